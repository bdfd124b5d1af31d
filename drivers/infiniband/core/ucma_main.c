// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RDMA CM user space access (/dev/infiniband/rdma_cm).
 *
 * Skeleton: the module loads and unloads; the character device arrives
 * with the implementation.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <rdma/rdma_netlink.h>

MODULE_AUTHOR("rdma_cm project");
MODULE_DESCRIPTION("RDMA Userspace Connection Manager Access");
MODULE_LICENSE("Dual BSD/GPL");

/* ib_core autoloads us when user space looks up the "rdma_cm" chardev. */
MODULE_ALIAS_RDMA_CLIENT("rdma_cm");

static int __init ucma_init(void)
{
	return 0;
}

static void __exit ucma_cleanup(void)
{
}

module_init(ucma_init);
module_exit(ucma_cleanup);
