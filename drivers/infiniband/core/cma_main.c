// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_cm module entry points.
 */
#include <linux/init.h>
#include <linux/module.h>

#include "cma_priv.h"

MODULE_AUTHOR("rdma_cm project");
MODULE_DESCRIPTION("Generic RDMA CM Agent");
MODULE_LICENSE("Dual BSD/GPL");

static int __init cma_init(void)
{
	int ret;

	ret = cma_id_init();
	if (ret)
		return ret;

	ret = cma_ps_init();
	if (ret)
		goto err_id;

	/* Before the device client: ids may query as soon as devices come. */
	cma_sa_init();
	ret = cma_dev_init(&cma_listen_dev_hooks);
	if (ret)
		goto err_sa;

	ret = cma_netevent_init();
	if (ret)
		goto err_dev;

	ret = cma_configfs_init();
	if (ret)
		goto err_netevent;

	return 0;

err_netevent:
	cma_netevent_exit();
err_dev:
	cma_dev_exit();
err_sa:
	cma_sa_exit();
	cma_ps_exit();
err_id:
	cma_id_exit();
	return ret;
}

static void __exit cma_cleanup(void)
{
	cma_configfs_exit();
	cma_netevent_exit();
	cma_dev_exit();
	cma_sa_exit();
	cma_ps_exit();
	cma_id_exit();
}

module_init(cma_init);
module_exit(cma_cleanup);
