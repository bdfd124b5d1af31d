// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The "rdma_cm" configfs subsystem.
 *
 * Registered empty for now: the directory user space looks for exists,
 * and mkdir of a per-device group fails with -EPERM until the per-device
 * knobs are implemented.
 */
#include <linux/configfs.h>
#include <linux/module.h>

#include "cma_priv.h"

static const struct config_item_type cma_subsys_type = {
	.ct_owner = THIS_MODULE,
};

static struct configfs_subsystem cma_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf = "rdma_cm",
			.ci_type = &cma_subsys_type,
		},
	},
};

int __init cma_configfs_init(void)
{
	config_group_init(&cma_subsys.su_group);
	mutex_init(&cma_subsys.su_mutex);
	return configfs_register_subsystem(&cma_subsys);
}

void __exit cma_configfs_exit(void)
{
	configfs_unregister_subsystem(&cma_subsys);
}
