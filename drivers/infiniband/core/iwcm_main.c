// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * iWARP connection manager: module entry points, the event workqueue,
 * the net.iw_cm sysctls and iwcm_reject_msg().
 */
#include <linux/errno.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/sysctl.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_netlink.h>

#include "iwcm_priv.h"

MODULE_AUTHOR("rdma_cm project");
MODULE_DESCRIPTION("iWARP CM");
MODULE_LICENSE("Dual BSD/GPL");

/**
 * iwcm_reject_msg - Describe the reason of a rejected iWARP connection.
 * @reason: the negative errno reported in the reject event
 *
 * Return: a static string, "unrecognized reason" for an unknown @reason.
 */
const char *__attribute_const__ iwcm_reject_msg(int reason)
{
	switch (reason) {
	case -ECONNRESET:
		return "reset by remote host";
	case -ECONNREFUSED:
		return "refused by remote application";
	case -ETIMEDOUT:
		return "setup timeout";
	default:
		return "unrecognized reason";
	}
}
EXPORT_SYMBOL(iwcm_reject_msg);

/*
 * Event work of every id, and the deferred frees.  Not ordered: each id
 * has one work item, which the workqueue never runs twice at once, so
 * events are ordered per id and ids do not wait for each other.  Storage
 * and NFS reconnect through here under memory pressure: MEM_RECLAIM.
 */
struct workqueue_struct *iwcm_wq;

static int default_backlog = IWCM_DEFAULT_BACKLOG;
static int backlog_max = IWCM_MAX_BACKLOG;

/* The host-integrated model's MPA timeouts, as siw's. */
static int mpa_request_timeout_ms = 5000;
static int mpa_reply_timeout_ms = 10000;
static int mpa_timeout_min = 10;
static int mpa_timeout_max = 600000;

/*
 * The MPA revision an initiator sends.  RFC 5044 lets a revision 1
 * responder close a connection whose request it cannot work with, so a
 * peer that only speaks revision 1 needs a revision 1 request.
 */
static int mpa_version = 2;
static int mpa_version_min = 1;
static int mpa_version_max = 2;

/* The backlog of a listen with none given. */
int iwcm_default_backlog(void)
{
	return READ_ONCE(default_backlog);
}

/* The MPA revision of the requests the host-integrated model sends. */
u8 iwcm_mpa_version(void)
{
	return READ_ONCE(mpa_version);
}

/**
 * iwcm_mpa_timeout - How long the host-integrated model waits.
 * @request: for the MPA request of an accepted connection (else for the
 *	reply to a request sent)
 *
 * Return: the time, in jiffies.
 */
unsigned long iwcm_mpa_timeout(bool request)
{
	return msecs_to_jiffies(request ? READ_ONCE(mpa_request_timeout_ms) :
					  READ_ONCE(mpa_reply_timeout_ms));
}

static struct ctl_table iwcm_ctl_table[] = {
	{
		.procname	= "default_backlog",
		.data		= &default_backlog,
		.maxlen		= sizeof(default_backlog),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ONE,
		.extra2		= &backlog_max,
	},
	{
		.procname	= "mpa_request_timeout_ms",
		.data		= &mpa_request_timeout_ms,
		.maxlen		= sizeof(mpa_request_timeout_ms),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &mpa_timeout_min,
		.extra2		= &mpa_timeout_max,
	},
	{
		.procname	= "mpa_reply_timeout_ms",
		.data		= &mpa_reply_timeout_ms,
		.maxlen		= sizeof(mpa_reply_timeout_ms),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &mpa_timeout_min,
		.extra2		= &mpa_timeout_max,
	},
	{
		.procname	= "mpa_version",
		.data		= &mpa_version,
		.maxlen		= sizeof(mpa_version),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &mpa_version_min,
		.extra2		= &mpa_version_max,
	},
	{ }
};

static struct ctl_table_header *iwcm_ctl_hdr;

static int __init iw_cm_init(void)
{
	int ret;

	ret = iwcm_id_init();
	if (ret)
		return ret;

	iwcm_wq = alloc_workqueue("iw_cm", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!iwcm_wq) {
		ret = -ENOMEM;
		goto err_id;
	}

	iwcm_ctl_hdr = register_net_sysctl(&init_net, "net/iw_cm",
					   iwcm_ctl_table);
	if (!iwcm_ctl_hdr) {
		pr_err("iw_cm: cannot register net.iw_cm sysctls\n");
		ret = -ENOMEM;
		goto err_wq;
	}

	ret = iwcm_host_init();
	if (ret)
		goto err_sysctl;
	ret = iwcm_pm_init();
	if (ret)
		goto err_host;
	return 0;

err_host:
	iwcm_host_exit();
err_sysctl:
	unregister_net_sysctl_table(iwcm_ctl_hdr);
err_wq:
	destroy_workqueue(iwcm_wq);
err_id:
	iwcm_id_exit();
	return ret;
}

static void __exit iw_cm_cleanup(void)
{
	iwcm_pm_exit();
	/* Providers may still hold ids whose rem_ref is our code. */
	iwcm_wait_idle();
	iwcm_host_exit();
	unregister_net_sysctl_table(iwcm_ctl_hdr);
	destroy_workqueue(iwcm_wq);
	iwcm_id_exit();
}

MODULE_ALIAS_RDMA_NETLINK(RDMA_NL_IWCM, 2);

module_init(iw_cm_init);
module_exit(iw_cm_cleanup);
