// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_cm module entry points.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <rdma/ib_verbs.h>

#include "cma_priv.h"

MODULE_AUTHOR("rdma_cm project");
MODULE_DESCRIPTION("Generic RDMA CM Agent");
MODULE_LICENSE("Dual BSD/GPL");

/*
 * Same client name as the stock module, so ib_core and its tools see the
 * familiar "cma".  Per-device callbacks arrive with the id core.
 */
static struct ib_client cma_client = {
	.name = "cma",
};

static int __init cma_init(void)
{
	int ret;

	ret = cma_ps_init();
	if (ret)
		return ret;

	ret = ib_register_client(&cma_client);
	if (ret)
		goto err_ps;

	ret = cma_configfs_init();
	if (ret)
		goto err_unregister;

	return 0;

err_unregister:
	ib_unregister_client(&cma_client);
err_ps:
	cma_ps_exit();
	return ret;
}

static void __exit cma_cleanup(void)
{
	cma_configfs_exit();
	ib_unregister_client(&cma_client);
	cma_ps_exit();
}

module_init(cma_init);
module_exit(cma_cleanup);
