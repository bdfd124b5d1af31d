// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RDMA CM user space access: /dev/infiniband/rdma_cm, ABI 4 of
 * <rdma/rdma_user_cm.h>, for librdmacm.
 *
 * This file registers what user space finds: the misc device with its
 * abi_version attribute, the ib_client that answers ib_core's netlink
 * chardev query for "rdma_cm" (librdmacm asks it first) and reports
 * DEVICE_REMOVAL to user ids before ib_uverbs waits for them, and the
 * sysctls net.rdma_ucm.max_backlog and net.rdma_ucm.max_events.
 */
#include <linux/device.h>
#include <linux/init.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/sysctl.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>
#include <rdma/rdma_user_cm.h>

#include "core_priv.h"
#include "ucma_priv.h"

MODULE_AUTHOR("rdma_cm project");
MODULE_DESCRIPTION("RDMA Userspace Connection Manager Access");
MODULE_LICENSE("Dual BSD/GPL");

/* ib_core autoloads us when user space looks up the "rdma_cm" chardev. */
MODULE_ALIAS_RDMA_CLIENT("rdma_cm");

/* LISTEN backlogs of 0 or above this become this (init_net only). */
static int ucma_backlog_max = 1024;

int ucma_max_backlog(void)
{
	return READ_ONCE(ucma_backlog_max);
}

/*
 * Unreported events a file may hold before the commands that would add
 * more fail with -ENOBUFS and its listeners refuse connection requests
 * (init_net only).
 */
static int ucma_events_max = 65536;

int ucma_max_events(void)
{
	return READ_ONCE(ucma_events_max);
}

static struct ctl_table ucma_sysctl[] = {
	{
		.procname	= "max_backlog",
		.data		= &ucma_backlog_max,
		.maxlen		= sizeof(ucma_backlog_max),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_INT_MAX,
	},
	{
		.procname	= "max_events",
		.data		= &ucma_events_max,
		.maxlen		= sizeof(ucma_events_max),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ONE,
		.extra2		= SYSCTL_INT_MAX,
	},
	{ }
};

static struct ctl_table_header *ucma_sysctl_hdr;

static ssize_t abi_version_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", RDMA_USER_CM_ABI_VERSION);
}
static DEVICE_ATTR_RO(abi_version);

static struct attribute *ucma_attrs[] = {
	&dev_attr_abi_version.attr,
	NULL
};
ATTRIBUTE_GROUPS(ucma);

static struct miscdevice ucma_misc = {
	.minor		= MISC_DYNAMIC_MINOR,
	.name		= "rdma_cm",
	.nodename	= "infiniband/rdma_cm",
	.mode		= 0666,
	.fops		= &ucma_fops,
	/* created with the device, before its uevent */
	.groups		= ucma_groups,
};

static int ucma_get_global_nl_info(struct ib_client_nl_info *res)
{
	res->abi = RDMA_USER_CM_ABI_VERSION;
	res->cdev = ucma_misc.this_device;
	return 0;
}

/*
 * ib_core calls the clients' remove in the reverse order of their
 * registration, and ib_uverbs' remove waits until user space has closed
 * its verbs files of the device (unless the driver can disassociate
 * them, which rxe and siw cannot).  librdmacm users close them once they
 * read DEVICE_REMOVAL, which rdma_cm reports from its own remove: too
 * late if rdma_cm registered before ib_uverbs (loaded early for NVMe-oF
 * or NFS/RDMA), and ib_unregister_device() never returns.  We depend on
 * both, so registered after both and our remove runs first: report
 * DEVICE_REMOVAL to every user id on the device now, through the id's
 * own handler under its handler lock, as rdma_cm would.  The handler
 * closes the id; an event rdma_cm still has for it is dropped
 * (ctx->removed).  A wildcard listener has no device and gets nothing,
 * as from rdma_cm: its per-device listener is rdma_cm's to remove.
 */
static void ucma_remove_one(struct ib_device *device, void *client_data)
{
	struct rdma_cm_event event = { .event = RDMA_CM_EVENT_DEVICE_REMOVAL };
	unsigned long index = 0;
	struct ucma_ctx *ctx;

	xa_lock(&ucma_ctx_xa);
	ctx = xa_find(&ucma_ctx_xa, &index, ULONG_MAX, XA_PRESENT);
	while (ctx) {
		/* a closed id has left its device already */
		if (refcount_inc_not_zero(&ctx->users)) {
			xa_unlock(&ucma_ctx_xa);
			/* the handler lock keeps cm_id->device in place */
			rdma_lock_handler(ctx->cm_id);
			if (ctx->cm_id->device == device && !ctx->removed)
				ucma_event_handler(ctx->cm_id, &event);
			rdma_unlock_handler(ctx->cm_id);
			ucma_ctx_put(ctx);
			xa_lock(&ucma_ctx_xa);
		}
		ctx = xa_find_after(&ucma_ctx_xa, &index, ULONG_MAX,
				    XA_PRESENT);
	}
	xa_unlock(&ucma_ctx_xa);
}

static struct ib_client ucma_client = {
	.name			= "rdma_cm",
	.remove			= ucma_remove_one,
	.get_global_nl_info	= ucma_get_global_nl_info,
};

static int __init ucma_init(void)
{
	int ret;

	ret = misc_register(&ucma_misc);
	if (ret)
		return ret;

	ucma_sysctl_hdr = register_net_sysctl(&init_net, "net/rdma_ucm",
					      ucma_sysctl);
	if (!ucma_sysctl_hdr) {
		pr_err("rdma_ucm: cannot register sysctl net.rdma_ucm\n");
		ret = -ENOMEM;
		goto err_misc;
	}

	ret = ib_register_client(&ucma_client);
	if (ret)
		goto err_sysctl;
	return 0;

err_sysctl:
	unregister_net_sysctl_table(ucma_sysctl_hdr);
err_misc:
	misc_deregister(&ucma_misc);
	return ret;
}

static void __exit ucma_cleanup(void)
{
	ib_unregister_client(&ucma_client);
	unregister_net_sysctl_table(ucma_sysctl_hdr);
	misc_deregister(&ucma_misc);
	/* every file was released, and with it every id and join */
	WARN_ON(!xa_empty(&ucma_ctx_xa));
	WARN_ON(!xa_empty(&ucma_mc_xa));
}

module_init(ucma_init);
module_exit(ucma_cleanup);
