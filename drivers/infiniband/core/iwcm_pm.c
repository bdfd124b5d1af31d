// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * iWARP connection manager: the client of the iWARP port mapper daemon
 * (rdma-core's iwpmd), over RDMA netlink (client RDMA_NL_IWCM, multicast
 * group RDMA_NL_GROUP_IWPM, init_net only), ABI versions 3 and 4.
 *
 * Before a listen or a connect, the id's address is registered with the
 * daemon, which may map it to another port (ADD_MAPPING for a listener,
 * QUERY_MAPPING for a connection, which also learns the peer's mapped
 * address from the peer's daemon).  On the passive side the daemon tells
 * us (REMOTE_INFO) which real address hides behind a mapped peer.
 *
 * The daemon is optional and may be slow; no connection waits for another
 * connection's exchange with it:
 *  - nobody in the multicast group: no daemon, real addresses, no waits,
 *    until a daemon says hello;
 *  - messages to the daemon never block (a full socket queue counts as a
 *    daemon not answering);
 *  - a caller waits for its own answer only, at most IWCM_PM_TIMEOUT; an
 *    id that finds the registration in progress does not wait for it;
 *  - when the daemon does not answer a local request (registration,
 *    ADD_MAPPING), it is left alone until it speaks again.  A QUERY that
 *    times out says nothing about the local daemon (the peer's may be
 *    missing): it only leaves that connection unmapped.
 * Without an answer the real addresses are used, as when no daemon is
 * registered.
 *
 * Only CAP_NET_ADMIN may send us port mapper messages: every operation
 * carries RDMA_NL_ADMIN_PERM.
 */
#include <linux/completion.h>
#include <linux/errno.h>
#include <linux/hashtable.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/jhash.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/ipv6.h>
#include <net/netlink.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>
#include <rdma/iw_portmap.h>
#include <rdma/rdma_netlink.h>

#include "iwcm_priv.h"

#define IWCM_PM_ULIB_NAME	"iWarpPortMapperUser"
#define IWCM_PM_TIMEOUT		(10 * HZ)
#define IWCM_PM_MSG_SIZE	512
/* Bounds of what the daemon may make us keep. */
#define IWCM_PM_MAX_REMINFO	1024
#define IWCM_PM_MAPINFO_SKBS	20

enum iwcm_pm_state {
	PM_UNKNOWN,	/* never tried, or a daemon said hello: register */
	PM_ABSENT,	/* nobody listens to the port mapper group */
	PM_VALID,	/* registered: pid and ABI known */
	PM_STALLED,	/* did not answer: left alone until it speaks */
};

/* A request waiting for the daemon's answer (on the caller's stack). */
struct iwcm_pm_req {
	struct list_head node;
	u32 seq;
	int op;
	struct completion done;
	u16 err;			/* daemon's error code, 0: none */
	const char *dev_name;		/* REG_PID */
	struct sockaddr_storage loc;	/* ADD, QUERY: what we asked */
	struct sockaddr_storage rem;
	struct sockaddr_storage m_loc;	/* the answer */
	struct sockaddr_storage m_rem;
};

/* A mapping of ours, sent again to a restarted daemon (MAPINFO). */
struct iwcm_pm_mapinfo {
	struct list_head node;
	struct iwcm_id_private *cm;
	struct sockaddr_storage loc;
	struct sockaddr_storage m_loc;
	u32 flags;
};

/* REMOTE_INFO: the real address of a mapped peer. */
struct iwcm_pm_reminfo {
	struct hlist_node hnode;
	struct list_head age;
	struct sockaddr_storage m_loc;
	struct sockaddr_storage m_rem;
	struct sockaddr_storage rem;
};

static struct {
	struct mutex lock;		/* everything here */
	enum iwcm_pm_state state;
	bool reg_inflight;
	u32 pid;			/* the daemon's netlink port */
	u16 abi;			/* negotiated ABI version */
	u32 echo_seq;			/* the daemon's last sequence */
	u32 seq;			/* ours */
	struct list_head reqs;
	struct list_head mapinfo;
	DECLARE_HASHTABLE(reminfo, 6);
	struct list_head reminfo_age;
	unsigned int nr_reminfo;
} pm;

static bool pm_addr_ok(const struct sockaddr_storage *a)
{
	return a->ss_family == AF_INET || a->ss_family == AF_INET6;
}

/* Same family, address and port. */
static bool pm_addr_eq(const struct sockaddr_storage *a,
		       const struct sockaddr_storage *b)
{
	const struct sockaddr_in *a4 = (const void *)a, *b4 = (const void *)b;
	const struct sockaddr_in6 *a6 = (const void *)a, *b6 = (const void *)b;

	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr &&
		       a4->sin_port == b4->sin_port;
	if (a->ss_family == AF_INET6)
		return ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr) &&
		       a6->sin6_port == b6->sin6_port;
	return false;
}

static u32 pm_addr_hash(const struct sockaddr_storage *a)
{
	const struct sockaddr_in *a4 = (const void *)a;
	const struct sockaddr_in6 *a6 = (const void *)a;

	if (a->ss_family == AF_INET)
		return jhash_2words((__force u32)a4->sin_addr.s_addr,
				    (__force u32)a4->sin_port, 0);
	return jhash2((const u32 *)&a6->sin6_addr, 4,
		      (__force u32)a6->sin6_port);
}

static bool pm_addr_any(const struct sockaddr_storage *a)
{
	const struct sockaddr_in *a4 = (const void *)a;
	const struct sockaddr_in6 *a6 = (const void *)a;

	if (a->ss_family == AF_INET)
		return a4->sin_addr.s_addr == htonl(INADDR_ANY);
	return ipv6_addr_any(&a6->sin6_addr);
}

/* @out gets @real's address when @mapped's is a wildcard; ports stay. */
static void pm_fix_wildcard(const struct sockaddr_storage *mapped,
			    const struct sockaddr_storage *real,
			    struct sockaddr_storage *out)
{
	if (!pm_addr_any(mapped) || real->ss_family != out->ss_family)
		return;
	if (out->ss_family == AF_INET)
		((struct sockaddr_in *)out)->sin_addr =
			((const struct sockaddr_in *)real)->sin_addr;
	else
		((struct sockaddr_in6 *)out)->sin6_addr =
			((const struct sockaddr_in6 *)real)->sin6_addr;
}

/* --- messages to the daemon --------------------------------------------- */

static struct sk_buff *pm_msg(int op, u32 seq, struct nlmsghdr **nlh)
{
	struct sk_buff *skb = nlmsg_new(IWCM_PM_MSG_SIZE, GFP_KERNEL);

	if (!skb)
		return NULL;
	if (!ibnl_put_msg(skb, nlh, seq, 0, RDMA_NL_IWCM, op,
			  NLM_F_REQUEST)) {
		nlmsg_free(skb);
		return NULL;
	}
	return skb;
}

static int pm_put(struct sk_buff *skb, struct nlmsghdr *nlh, int type,
		  int len, const void *data)
{
	return ibnl_put_attr(skb, nlh, len, (void *)data, type);
}

/* Unicast to the daemon without blocking; consumes @skb. */
static int pm_send(struct sk_buff *skb, struct nlmsghdr *nlh, u32 pid)
{
	nlmsg_end(skb, nlh);
	return rdma_nl_unicast(&init_net, skb, pid);
}

/* Locked. */
static void pm_add_req(struct iwcm_pm_req *req, int op)
{
	req->op = op;
	req->seq = ++pm.seq;
	req->err = 0;
	init_completion(&req->done);
	list_add_tail(&req->node, &pm.reqs);
}

/* Forget @req: a late answer finds nothing. */
static void pm_forget(struct iwcm_pm_req *req)
{
	mutex_lock(&pm.lock);
	if (!list_empty(&req->node))
		list_del_init(&req->node);
	mutex_unlock(&pm.lock);
}

/*
 * Wait for the answer to @req, then forget it.  Returns 0 when it came
 * (req->err may still carry the daemon's error code), -ETIMEDOUT or
 * -EINTR (fatal signal) otherwise.
 */
static int pm_wait(struct iwcm_pm_req *req)
{
	long left;

	left = wait_for_completion_killable_timeout(&req->done,
						    IWCM_PM_TIMEOUT);
	pm_forget(req);
	if (left > 0 || completion_done(&req->done))
		return 0;
	return left < 0 ? -EINTR : -ETIMEDOUT;
}

/* Locked: the daemon did not answer a local request. */
static void pm_stall(const char *what)
{
	if (pm.state == PM_VALID || pm.state == PM_UNKNOWN) {
		pm.state = PM_STALLED;
		pr_warn("iw_cm: the iWARP port mapper daemon did not answer %s; real addresses until it speaks again\n",
			what);
	}
}

/* Locked: the daemon spoke; a stalled one is asked again. */
static void pm_heard(u32 seq)
{
	pm.echo_seq = seq;
	if (pm.state == PM_STALLED)
		pm.state = PM_UNKNOWN;
}

/*
 * Register with the daemon (REG_PID, multicast).  Returns true when
 * registered.  Only one registration is in flight; an id that finds one
 * goes on unmapped rather than wait for someone else's exchange.
 */
static bool pm_register(struct ib_device *dev)
{
	static const char ulib[IWPM_ULIBNAME_SIZE] = IWCM_PM_ULIB_NAME;
	char ifname[IFNAMSIZ] = {}, ibname[IWPM_DEVNAME_SIZE] = {};
	const char *devname = dev_name(&dev->dev);
	struct iwcm_pm_req req = {};
	struct nlmsghdr *nlh;
	struct sk_buff *skb;
	bool valid;
	u32 echo;
	int ret;

	mutex_lock(&pm.lock);
	if (pm.state != PM_UNKNOWN || pm.reg_inflight) {
		valid = pm.state == PM_VALID;
		mutex_unlock(&pm.lock);
		return valid;
	}
	pm.reg_inflight = true;
	pm_add_req(&req, RDMA_NL_IWPM_REG_PID);
	echo = pm.echo_seq;
	mutex_unlock(&pm.lock);

	strscpy(ifname, dev->iw_ifname, sizeof(ifname));
	strscpy(ibname, devname ? devname : "", sizeof(ibname));
	req.dev_name = ibname;
	ret = -ENOMEM;
	skb = pm_msg(RDMA_NL_IWPM_REG_PID, req.seq, &nlh);
	if (skb) {
		ret = pm_put(skb, nlh, IWPM_NLA_REG_PID_SEQ, sizeof(echo),
			     &echo);
		if (!ret)
			ret = pm_put(skb, nlh, IWPM_NLA_REG_IF_NAME, IFNAMSIZ,
				     ifname);
		if (!ret)
			ret = pm_put(skb, nlh, IWPM_NLA_REG_IBDEV_NAME,
				     IWPM_DEVNAME_SIZE, ibname);
		if (!ret)
			ret = pm_put(skb, nlh, IWPM_NLA_REG_ULIB_NAME,
				     IWPM_ULIBNAME_SIZE, ulib);
		if (ret) {
			nlmsg_free(skb);
		} else {
			nlmsg_end(skb, nlh);
			ret = rdma_nl_multicast(&init_net, skb,
						RDMA_NL_GROUP_IWPM,
						GFP_KERNEL);
		}
	}
	if (!ret)
		ret = pm_wait(&req);
	else
		pm_forget(&req);

	mutex_lock(&pm.lock);
	pm.reg_inflight = false;
	if (ret == -ESRCH && pm.state == PM_UNKNOWN) {
		/* Nobody listens: no daemon. */
		pm.state = PM_ABSENT;
		pr_info_once("iw_cm: no iWARP port mapper daemon; using real addresses\n");
	} else if (ret == -ETIMEDOUT) {
		pm_stall("a registration");
	}
	valid = pm.state == PM_VALID;
	mutex_unlock(&pm.lock);
	return valid;
}

/*
 * ADD_MAPPING (@active false) or QUERY_MAPPING (@active true) for @cm.
 * Returns 0 when the daemon answered without error, with the answer in
 * @req; -EAGAIN when nothing was sent (the daemon keeps no state).
 */
static int pm_request_mapping(struct iwcm_id_private *cm, bool active,
			      u32 flags, struct iwcm_pm_req *req)
{
	int op = active ? RDMA_NL_IWPM_QUERY_MAPPING :
			  RDMA_NL_IWPM_ADD_MAPPING;
	struct nlmsghdr *nlh;
	struct sk_buff *skb;
	u32 echo, pid;
	u16 abi;
	int ret;

	mutex_lock(&pm.lock);
	if (pm.state != PM_VALID) {
		mutex_unlock(&pm.lock);
		return -EAGAIN;
	}
	pid = pm.pid;
	abi = pm.abi;
	echo = pm.echo_seq;
	req->loc = cm->id.local_addr;
	req->rem = cm->id.remote_addr;
	pm_add_req(req, op);
	mutex_unlock(&pm.lock);

	/* ABI 3 daemons know no flags: leave such ids unmapped. */
	if (flags && abi < IWPM_UABI_VERSION) {
		pm_forget(req);
		return -EAGAIN;
	}
	skb = pm_msg(op, req->seq, &nlh);
	if (!skb) {
		pm_forget(req);
		return -EAGAIN;
	}
	if (active)
		ret = pm_put(skb, nlh, IWPM_NLA_QUERY_MAPPING_SEQ,
			     sizeof(echo), &echo) ?:
		      pm_put(skb, nlh, IWPM_NLA_QUERY_LOCAL_ADDR,
			     sizeof(req->loc), &req->loc) ?:
		      pm_put(skb, nlh, IWPM_NLA_QUERY_REMOTE_ADDR,
			     sizeof(req->rem), &req->rem);
	else
		ret = pm_put(skb, nlh, IWPM_NLA_MANAGE_MAPPING_SEQ,
			     sizeof(echo), &echo) ?:
		      pm_put(skb, nlh, IWPM_NLA_MANAGE_ADDR,
			     sizeof(req->loc), &req->loc);
	if (!ret && abi >= IWPM_UABI_VERSION)
		ret = pm_put(skb, nlh, active ? IWPM_NLA_QUERY_FLAGS :
			     IWPM_NLA_MANAGE_FLAGS, sizeof(flags), &flags);
	if (ret) {
		nlmsg_free(skb);
		pm_forget(req);
		return -EAGAIN;
	}
	ret = pm_send(skb, nlh, pid);
	if (ret) {
		pm_forget(req);
		mutex_lock(&pm.lock);
		pm_stall("a mapping request (not sent)");
		mutex_unlock(&pm.lock);
		return -EAGAIN;
	}
	ret = pm_wait(req);
	if (ret == -ETIMEDOUT && !active) {
		mutex_lock(&pm.lock);
		pm_stall("a mapping request");
		mutex_unlock(&pm.lock);
	}
	if (!ret && req->err)
		ret = -EREMOTEIO;
	return ret;
}

static void pm_add_mapinfo(struct iwcm_id_private *cm, u32 flags)
{
	struct iwcm_pm_mapinfo *mi = kzalloc(sizeof(*mi), GFP_KERNEL);

	if (!mi)
		return;		/* only a restarted daemon misses it */
	mi->cm = cm;
	mi->loc = cm->id.local_addr;
	mi->m_loc = cm->id.m_local_addr;
	mi->flags = flags;
	mutex_lock(&pm.lock);
	list_add_tail(&mi->node, &pm.mapinfo);
	mutex_unlock(&pm.lock);
}

/**
 * iwcm_pm_map - Map the addresses of an id before listen or connect.
 * @cm: the id, local_addr (and remote_addr if @active) set
 * @active: connect (QUERY_MAPPING) rather than listen (ADD_MAPPING)
 *
 * Sets m_local_addr and m_remote_addr: the daemon's mapping when it gave
 * one, the real addresses otherwise.  Never fails for want of a daemon.
 *
 * Return: 0, or -EINVAL when the device or interface name does not fit
 * the port mapper protocol.
 */
int iwcm_pm_map(struct iwcm_id_private *cm, bool active)
{
	struct ib_device *dev = cm->id.device;
	const char *devname = dev_name(&dev->dev);
	struct iwcm_pm_req req = {};
	unsigned long irqflags;
	u32 flags;
	int ret;

	cm->id.m_local_addr = cm->id.local_addr;
	cm->id.m_remote_addr = cm->id.remote_addr;

	if (!devname || strlen(devname) >= IWPM_DEVNAME_SIZE ||
	    strnlen(dev->iw_ifname, IFNAMSIZ) >= IWPM_IFNAME_SIZE)
		return -EINVAL;
	if (!pm_addr_ok(&cm->id.local_addr) || !pm_register(dev))
		return 0;

	flags = (dev->iw_driver_flags & IW_F_NO_PORT_MAP) ?
		IWPM_FLAGS_NO_PORT_MAP : 0;
	ret = pm_request_mapping(cm, active, flags, &req);
	if (ret == -EAGAIN)
		return 0;

	/* Sent: the daemon may hold a mapping to remove at destroy. */
	spin_lock_irqsave(&cm->lock, irqflags);
	cm->flags |= IWCM_F_MAPPED;
	cm->id.mapped = true;
	spin_unlock_irqrestore(&cm->lock, irqflags);
	if (!ret) {
		cm->id.m_local_addr = req.m_loc;
		if (active) {
			cm->id.m_remote_addr = req.m_rem;
			pm_fix_wildcard(&req.m_rem, &cm->id.remote_addr,
					&cm->id.m_remote_addr);
		}
	}
	pm_add_mapinfo(cm, flags);
	return 0;
}

/**
 * iwcm_pm_unmap - Drop the mapping of an id (destroy, failed listen or
 * connect).  Tells the daemon without waiting for it.
 * @cm: the id
 */
void iwcm_pm_unmap(struct iwcm_id_private *cm)
{
	struct iwcm_pm_mapinfo *mi, *next;
	struct nlmsghdr *nlh;
	struct sk_buff *skb;
	unsigned long irqflags;
	bool mapped;
	u32 echo, pid, seq;

	spin_lock_irqsave(&cm->lock, irqflags);
	mapped = cm->flags & IWCM_F_MAPPED;
	cm->flags &= ~IWCM_F_MAPPED;
	spin_unlock_irqrestore(&cm->lock, irqflags);
	if (!mapped)
		return;

	mutex_lock(&pm.lock);
	list_for_each_entry_safe(mi, next, &pm.mapinfo, node) {
		if (mi->cm == cm) {
			list_del(&mi->node);
			kfree(mi);
		}
	}
	/* A restarted daemon got this mapping with MAPINFO: tell it too. */
	mapped = pm.pid && pm.state != PM_ABSENT;
	pid = pm.pid;
	echo = pm.echo_seq;
	seq = ++pm.seq;
	mutex_unlock(&pm.lock);
	if (!mapped)
		return;

	skb = pm_msg(RDMA_NL_IWPM_REMOVE_MAPPING, seq, &nlh);
	if (!skb)
		return;
	if (pm_put(skb, nlh, IWPM_NLA_MANAGE_MAPPING_SEQ, sizeof(echo),
		   &echo) ||
	    pm_put(skb, nlh, IWPM_NLA_MANAGE_ADDR,
		   sizeof(cm->id.local_addr), &cm->id.local_addr)) {
		nlmsg_free(skb);
		return;
	}
	pm_send(skb, nlh, pid);
}

/**
 * iwcm_pm_passive_addrs - The real addresses of a passive id.
 * @listener: the listener
 * @child: the new passive id; remote_addr and local_addr set from the
 *	event and the listener
 * @ev: the CONNECT_REQUEST, whose addresses are rewritten when the
 *	daemon told us the peer's real address
 */
void iwcm_pm_passive_addrs(struct iwcm_id_private *listener,
			   struct iwcm_id_private *child,
			   struct iw_cm_event *ev)
{
	struct iwcm_pm_reminfo *ri;
	bool found = false;
	u32 hash;

	if (!pm_addr_ok(&ev->remote_addr))
		return;
	hash = pm_addr_hash(&ev->remote_addr);
	mutex_lock(&pm.lock);
	hash_for_each_possible(pm.reminfo, ri, hnode, hash) {
		if (pm_addr_eq(&ri->m_rem, &ev->remote_addr) &&
		    pm_addr_eq(&ri->m_loc, &listener->id.m_local_addr)) {
			child->id.remote_addr = ri->rem;
			hash_del(&ri->hnode);
			list_del(&ri->age);
			pm.nr_reminfo--;
			kfree(ri);
			found = true;
			break;
		}
	}
	mutex_unlock(&pm.lock);
	if (!found)
		return;
	pm_fix_wildcard(&listener->id.m_local_addr, &ev->local_addr,
			&child->id.local_addr);
	ev->local_addr = child->id.local_addr;
	ev->remote_addr = child->id.remote_addr;
}

/* --- messages from the daemon ------------------------------------------- */

static int pm_parse(struct netlink_callback *cb, struct nlattr **tb,
		    int max, const struct nla_policy *policy, int needed)
{
	int i, ret;

	ret = nlmsg_parse_deprecated(cb->nlh, 0, tb, max, policy, NULL);
	if (ret)
		return ret;
	for (i = 1; i <= needed; i++)
		if (!tb[i])
			return -EINVAL;
	return 0;
}

static const struct sockaddr_storage *pm_nla_addr(struct nlattr *nla)
{
	const struct sockaddr_storage *a = nla_data(nla);

	if (nla_len(nla) < sizeof(*a) || !pm_addr_ok(a))
		return NULL;
	return a;
}

static u32 pm_sender(struct netlink_callback *cb)
{
	return NETLINK_CB(cb->skb).portid;
}

/* Locked: the waiting request of sequence @seq and operation @op. */
static struct iwcm_pm_req *pm_find_req(u32 seq, int op)
{
	struct iwcm_pm_req *req;

	list_for_each_entry(req, &pm.reqs, node)
		if (req->seq == seq && (op < 0 || req->op == op))
			return req;
	return NULL;
}

/* Locked. */
static void pm_complete(struct iwcm_pm_req *req, u16 err)
{
	req->err = err;
	list_del_init(&req->node);
	complete(&req->done);
}

static const struct nla_policy pm_reg_policy[IWPM_NLA_RREG_PID_MAX] = {
	[IWPM_NLA_RREG_PID_SEQ] = { .type = NLA_U32 },
	[IWPM_NLA_RREG_IBDEV_NAME] = { .type = NLA_NUL_STRING,
				       .len = IWPM_DEVNAME_SIZE - 1 },
	[IWPM_NLA_RREG_ULIB_NAME] = { .type = NLA_NUL_STRING,
				      .len = IWPM_ULIBNAME_SIZE - 1 },
	[IWPM_NLA_RREG_ULIB_VER] = { .type = NLA_U16 },
	[IWPM_NLA_RREG_PID_ERR] = { .type = NLA_U16 },
};

static int pm_reg_pid_cb(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr *tb[IWPM_NLA_RREG_PID_MAX];
	struct iwcm_pm_req *req;
	u16 ver;
	int ret;

	ret = pm_parse(cb, tb, IWPM_NLA_RREG_PID_MAX - 1, pm_reg_policy,
		       IWPM_NLA_RREG_PID_MAX - 1);
	if (ret)
		return ret;
	ver = nla_get_u16(tb[IWPM_NLA_RREG_ULIB_VER]);

	mutex_lock(&pm.lock);
	pm_heard(cb->nlh->nlmsg_seq);
	req = pm_find_req(nla_get_u32(tb[IWPM_NLA_RREG_PID_SEQ]),
			  RDMA_NL_IWPM_REG_PID);
	if (!req) {
		ret = -EINVAL;
	} else if (strcmp(nla_data(tb[IWPM_NLA_RREG_IBDEV_NAME]),
			  req->dev_name) ||
		   strcmp(nla_data(tb[IWPM_NLA_RREG_ULIB_NAME]),
			  IWCM_PM_ULIB_NAME) ||
		   ver < IWPM_UABI_VERSION_MIN) {
		pr_info("iw_cm: port mapper daemon: unexpected registration (version %u)\n",
			ver);
		pm_complete(req, IWPM_USER_LIB_INFO_ERR);
	} else {
		pm.pid = pm_sender(cb);
		pm.abi = min_t(u16, ver, IWPM_UABI_VERSION);
		pm.state = PM_VALID;
		pm_complete(req, nla_get_u16(tb[IWPM_NLA_RREG_PID_ERR]));
	}
	mutex_unlock(&pm.lock);
	return ret;
}

/* @a, mapped to @m, is the address the request asked about (@asked). */
static bool pm_mapped_ok(const struct sockaddr_storage *a,
			 const struct sockaddr_storage *m,
			 const struct sockaddr_storage *asked)
{
	return a && m && pm_addr_eq(a, asked) && m->ss_family == a->ss_family;
}

/*
 * The answer to an ADD_MAPPING (@rem and @m_rem unused) or QUERY_MAPPING
 * request of sequence @seq: complete it with the mapped addresses and
 * the daemon's @err, or with IWPM_USER_LIB_INFO_ERR when they are
 * missing or answer another question.  -EINVAL if nobody waits for it.
 */
static int pm_mapping_answer(struct netlink_callback *cb, int op, u32 seq,
			     const struct sockaddr_storage *loc,
			     const struct sockaddr_storage *m_loc,
			     const struct sockaddr_storage *rem,
			     const struct sockaddr_storage *m_rem, u16 err)
{
	bool query = op == RDMA_NL_IWPM_QUERY_MAPPING;
	struct iwcm_pm_req *req;
	int ret = 0;

	mutex_lock(&pm.lock);
	pm_heard(cb->nlh->nlmsg_seq);
	req = pm_find_req(seq, op);
	if (!req) {
		ret = -EINVAL;
	} else if (!pm_mapped_ok(loc, m_loc, &req->loc) ||
		   (query && !pm_mapped_ok(rem, m_rem, &req->rem))) {
		pm_complete(req, IWPM_USER_LIB_INFO_ERR);
	} else {
		req->m_loc = *m_loc;
		if (query)
			req->m_rem = *m_rem;
		pm_complete(req, err);
	}
	mutex_unlock(&pm.lock);
	return ret;
}

static const struct nla_policy pm_add_policy[IWPM_NLA_RMANAGE_MAPPING_MAX] = {
	[IWPM_NLA_RMANAGE_MAPPING_SEQ] = { .type = NLA_U32 },
	[IWPM_NLA_RMANAGE_ADDR] = { .len = sizeof(struct sockaddr_storage) },
	[IWPM_NLA_RMANAGE_MAPPED_LOC_ADDR] = {
		.len = sizeof(struct sockaddr_storage) },
	[IWPM_NLA_RMANAGE_MAPPING_ERR] = { .type = NLA_U16 },
};

static int pm_add_mapping_cb(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr *tb[IWPM_NLA_RMANAGE_MAPPING_MAX];
	const struct sockaddr_storage *loc, *m_loc;
	int ret;

	ret = pm_parse(cb, tb, IWPM_NLA_RMANAGE_MAPPING_MAX - 1,
		       pm_add_policy, IWPM_NLA_RMANAGE_MAPPING_MAX - 1);
	if (ret)
		return ret;
	loc = pm_nla_addr(tb[IWPM_NLA_RMANAGE_ADDR]);
	m_loc = pm_nla_addr(tb[IWPM_NLA_RMANAGE_MAPPED_LOC_ADDR]);

	return pm_mapping_answer(cb, RDMA_NL_IWPM_ADD_MAPPING,
				 nla_get_u32(tb[IWPM_NLA_RMANAGE_MAPPING_SEQ]),
				 loc, m_loc, NULL, NULL,
				 nla_get_u16(tb[IWPM_NLA_RMANAGE_MAPPING_ERR]));
}

static const struct nla_policy pm_query_policy[IWPM_NLA_RQUERY_MAPPING_MAX] = {
	[IWPM_NLA_RQUERY_MAPPING_SEQ] = { .type = NLA_U32 },
	[IWPM_NLA_RQUERY_LOCAL_ADDR] = {
		.len = sizeof(struct sockaddr_storage) },
	[IWPM_NLA_RQUERY_REMOTE_ADDR] = {
		.len = sizeof(struct sockaddr_storage) },
	[IWPM_NLA_RQUERY_MAPPED_LOC_ADDR] = {
		.len = sizeof(struct sockaddr_storage) },
	[IWPM_NLA_RQUERY_MAPPED_REM_ADDR] = {
		.len = sizeof(struct sockaddr_storage) },
	[IWPM_NLA_RQUERY_MAPPING_ERR] = { .type = NLA_U16 },
};

static int pm_query_mapping_cb(struct sk_buff *skb,
			       struct netlink_callback *cb)
{
	const struct sockaddr_storage *loc, *rem, *m_loc, *m_rem;
	struct nlattr *tb[IWPM_NLA_RQUERY_MAPPING_MAX];
	int ret;

	ret = pm_parse(cb, tb, IWPM_NLA_RQUERY_MAPPING_MAX - 1,
		       pm_query_policy, IWPM_NLA_RQUERY_MAPPING_MAX - 1);
	if (ret)
		return ret;
	loc = pm_nla_addr(tb[IWPM_NLA_RQUERY_LOCAL_ADDR]);
	rem = pm_nla_addr(tb[IWPM_NLA_RQUERY_REMOTE_ADDR]);
	m_loc = pm_nla_addr(tb[IWPM_NLA_RQUERY_MAPPED_LOC_ADDR]);
	m_rem = pm_nla_addr(tb[IWPM_NLA_RQUERY_MAPPED_REM_ADDR]);

	return pm_mapping_answer(cb, RDMA_NL_IWPM_QUERY_MAPPING,
				 nla_get_u32(tb[IWPM_NLA_RQUERY_MAPPING_SEQ]),
				 loc, m_loc, rem, m_rem,
				 nla_get_u16(tb[IWPM_NLA_RQUERY_MAPPING_ERR]));
}

/* Unsolicited: the real address behind a mapped peer of our listener. */
static int pm_remote_info_cb(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct sockaddr_storage *loc, *rem, *m_loc, *m_rem;
	struct nlattr *tb[IWPM_NLA_RQUERY_MAPPING_MAX];
	struct iwcm_pm_reminfo *ri, *old = NULL;
	int ret;

	ret = pm_parse(cb, tb, IWPM_NLA_RQUERY_MAPPING_MAX - 1,
		       pm_query_policy, IWPM_NLA_RQUERY_MAPPING_MAX - 1);
	if (ret)
		return ret;
	loc = pm_nla_addr(tb[IWPM_NLA_RQUERY_LOCAL_ADDR]);
	rem = pm_nla_addr(tb[IWPM_NLA_RQUERY_REMOTE_ADDR]);
	m_loc = pm_nla_addr(tb[IWPM_NLA_RQUERY_MAPPED_LOC_ADDR]);
	m_rem = pm_nla_addr(tb[IWPM_NLA_RQUERY_MAPPED_REM_ADDR]);
	if (!loc || !rem || !m_loc || !m_rem ||
	    m_loc->ss_family != loc->ss_family ||
	    m_rem->ss_family != rem->ss_family)
		return -EINVAL;

	ri = kzalloc(sizeof(*ri), GFP_KERNEL);
	if (!ri)
		return -ENOMEM;
	ri->m_loc = *m_loc;
	ri->m_rem = *m_rem;
	ri->rem = *rem;

	mutex_lock(&pm.lock);
	pm_heard(cb->nlh->nlmsg_seq);
	/* Bounded: the oldest entry goes (its connection never came). */
	if (pm.nr_reminfo >= IWCM_PM_MAX_REMINFO) {
		old = list_first_entry(&pm.reminfo_age,
				       struct iwcm_pm_reminfo, age);
		hash_del(&old->hnode);
		list_del(&old->age);
		pm.nr_reminfo--;
	}
	hash_add(pm.reminfo, &ri->hnode, pm_addr_hash(&ri->m_rem));
	list_add_tail(&ri->age, &pm.reminfo_age);
	pm.nr_reminfo++;
	mutex_unlock(&pm.lock);
	if (old) {
		pr_warn_ratelimited("iw_cm: %d port mapper remote infos pending, dropping the oldest\n",
				    IWCM_PM_MAX_REMINFO);
		kfree(old);
	}
	return 0;
}

static const struct nla_policy pm_err_policy[IWPM_NLA_ERR_MAX] = {
	[IWPM_NLA_ERR_SEQ] = { .type = NLA_U32 },
	[IWPM_NLA_ERR_CODE] = { .type = NLA_U16 },
};

static int pm_mapping_error_cb(struct sk_buff *skb,
			       struct netlink_callback *cb)
{
	struct nlattr *tb[IWPM_NLA_ERR_MAX];
	struct iwcm_pm_req *req;
	u16 code;
	int ret;

	ret = pm_parse(cb, tb, IWPM_NLA_ERR_MAX - 1, pm_err_policy,
		       IWPM_NLA_ERR_MAX - 1);
	if (ret)
		return ret;
	code = nla_get_u16(tb[IWPM_NLA_ERR_CODE]);
	mutex_lock(&pm.lock);
	pm_heard(cb->nlh->nlmsg_seq);
	req = pm_find_req(nla_get_u32(tb[IWPM_NLA_ERR_SEQ]), -1);
	if (req)
		pm_complete(req, code ? code : IWPM_INVALID_NLMSG_ERR);
	mutex_unlock(&pm.lock);
	pr_debug("iw_cm: port mapper error %u\n", code);
	return 0;
}

static int pm_mapinfo_size(void)
{
	return nlmsg_total_size(2 * nla_total_size(sizeof(struct sockaddr_storage)) +
				nla_total_size(sizeof(u32)));
}

/* Close a multipart skb of MAPINFO messages and send it; consumes @skb. */
static int pm_send_done(struct sk_buff *skb, u32 pid)
{
	struct nlmsghdr *nlh;

	if (!ibnl_put_msg(skb, &nlh, 0, 0, RDMA_NL_IWCM, RDMA_NL_IWPM_MAPINFO,
			  NLM_F_MULTI)) {
		nlmsg_free(skb);
		return -EMSGSIZE;
	}
	nlh->nlmsg_type = NLMSG_DONE;
	return rdma_nl_unicast(&init_net, skb, pid);
}

static int pm_send_mapinfo_num(u32 count, u32 pid)
{
	struct nlmsghdr *nlh;
	struct sk_buff *skb;
	u32 zero = 0;

	skb = pm_msg(RDMA_NL_IWPM_MAPINFO_NUM, ++pm.seq, &nlh);
	if (!skb)
		return -ENOMEM;
	if (pm_put(skb, nlh, IWPM_NLA_MAPINFO_SEQ, sizeof(zero), &zero) ||
	    pm_put(skb, nlh, IWPM_NLA_MAPINFO_SEND_NUM, sizeof(count),
		   &count)) {
		nlmsg_free(skb);
		return -EMSGSIZE;
	}
	return pm_send(skb, nlh, pid);
}

/* Send our mappings to a (re)started daemon.  Locked. */
static int pm_send_mapinfo(u32 pid, u16 abi)
{
	int per_skb = (NLMSG_GOODSIZE - nlmsg_total_size(0)) /
		      pm_mapinfo_size();
	int in_skb = 0, nskb = 0, ret;
	struct iwcm_pm_mapinfo *mi;
	struct sk_buff *skb = NULL;
	struct nlmsghdr *nlh;
	u32 count = 0;

	list_for_each_entry(mi, &pm.mapinfo, node) {
		if (skb && in_skb == per_skb) {
			ret = pm_send_done(skb, pid);
			skb = NULL;
			if (ret)
				return ret;
		}
		if (!skb) {
			if (nskb == IWCM_PM_MAPINFO_SKBS) {
				pr_warn("iw_cm: too many mappings for the port mapper daemon, %u sent\n",
					count);
				break;
			}
			skb = nlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
			if (!skb)
				return -ENOMEM;
			nskb++;
			in_skb = 0;
		}
		if (!ibnl_put_msg(skb, &nlh, 0, 0, RDMA_NL_IWCM,
				  RDMA_NL_IWPM_MAPINFO, NLM_F_MULTI) ||
		    pm_put(skb, nlh, IWPM_NLA_MAPINFO_LOCAL_ADDR,
			   sizeof(mi->loc), &mi->loc) ||
		    pm_put(skb, nlh, IWPM_NLA_MAPINFO_MAPPED_ADDR,
			   sizeof(mi->m_loc), &mi->m_loc) ||
		    (abi >= IWPM_UABI_VERSION &&
		     pm_put(skb, nlh, IWPM_NLA_MAPINFO_FLAGS,
			    sizeof(mi->flags), &mi->flags))) {
			nlmsg_free(skb);
			return -EMSGSIZE;
		}
		nlmsg_end(skb, nlh);
		in_skb++;
		count++;
	}
	if (skb) {
		ret = pm_send_done(skb, pid);
		if (ret)
			return ret;
	}
	return pm_send_mapinfo_num(count, pid);
}

static const struct nla_policy pm_mapinfo_policy[IWPM_NLA_MAPINFO_REQ_MAX] = {
	[IWPM_NLA_MAPINFO_ULIB_NAME] = { .type = NLA_NUL_STRING,
					 .len = IWPM_ULIBNAME_SIZE - 1 },
	[IWPM_NLA_MAPINFO_ULIB_VER] = { .type = NLA_U16 },
};

/* A daemon (re)started: it wants our mappings, and a new registration. */
static int pm_mapping_info_cb(struct sk_buff *skb,
			      struct netlink_callback *cb)
{
	struct nlattr *tb[IWPM_NLA_MAPINFO_REQ_MAX];
	u16 ver;
	int ret;

	ret = pm_parse(cb, tb, IWPM_NLA_MAPINFO_REQ_MAX - 1,
		       pm_mapinfo_policy, IWPM_NLA_MAPINFO_REQ_MAX - 1);
	if (ret)
		return ret;
	ver = nla_get_u16(tb[IWPM_NLA_MAPINFO_ULIB_VER]);
	if (strcmp(nla_data(tb[IWPM_NLA_MAPINFO_ULIB_NAME]),
		   IWCM_PM_ULIB_NAME) || ver < IWPM_UABI_VERSION_MIN)
		return -EINVAL;

	mutex_lock(&pm.lock);
	pm_heard(cb->nlh->nlmsg_seq);
	pm.pid = pm_sender(cb);
	pm.state = PM_UNKNOWN;
	ret = list_empty(&pm.mapinfo) ? 0 : pm_send_mapinfo(pm.pid, pm.abi);
	mutex_unlock(&pm.lock);
	return ret;
}

static const struct nla_policy pm_ack_policy[IWPM_NLA_MAPINFO_NUM_MAX] = {
	[IWPM_NLA_MAPINFO_SEQ] = { .type = NLA_U32 },
	[IWPM_NLA_MAPINFO_SEND_NUM] = { .type = NLA_U32 },
	[IWPM_NLA_MAPINFO_ACK_NUM] = { .type = NLA_U32 },
};

static int pm_ack_mapping_info_cb(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	struct nlattr *tb[IWPM_NLA_MAPINFO_NUM_MAX];
	u32 sent, acked;
	int ret;

	ret = pm_parse(cb, tb, IWPM_NLA_MAPINFO_NUM_MAX - 1, pm_ack_policy,
		       IWPM_NLA_MAPINFO_NUM_MAX - 1);
	if (ret)
		return ret;
	sent = nla_get_u32(tb[IWPM_NLA_MAPINFO_SEND_NUM]);
	acked = nla_get_u32(tb[IWPM_NLA_MAPINFO_ACK_NUM]);
	if (sent != acked)
		pr_info("iw_cm: port mapper daemon took %u of %u mappings\n",
			acked, sent);
	mutex_lock(&pm.lock);
	pm_heard(cb->nlh->nlmsg_seq);
	mutex_unlock(&pm.lock);
	return 0;
}

static const struct nla_policy pm_hello_policy[IWPM_NLA_HELLO_MAX] = {
	[IWPM_NLA_HELLO_ABI_VERSION] = { .type = NLA_U16 },
};

/* A daemon starts: agree on the ABI version and answer hello. */
static int pm_hello_cb(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr *tb[IWPM_NLA_HELLO_MAX];
	struct nlmsghdr *nlh;
	struct sk_buff *msg;
	u16 ver;
	u32 pid;
	int ret;

	ret = pm_parse(cb, tb, IWPM_NLA_HELLO_MAX - 1, pm_hello_policy,
		       IWPM_NLA_HELLO_MAX - 1);
	if (ret)
		return ret;
	ver = nla_get_u16(tb[IWPM_NLA_HELLO_ABI_VERSION]);
	if (ver < IWPM_UABI_VERSION_MIN)
		return -EINVAL;
	ver = min_t(u16, ver, IWPM_UABI_VERSION);

	mutex_lock(&pm.lock);
	pm_heard(cb->nlh->nlmsg_seq);
	pid = pm_sender(cb);
	pm.pid = pid;
	pm.abi = ver;
	pm.state = PM_UNKNOWN;
	msg = pm_msg(RDMA_NL_IWPM_HELLO, ++pm.seq, &nlh);
	mutex_unlock(&pm.lock);
	if (!msg)
		return -ENOMEM;
	if (pm_put(msg, nlh, IWPM_NLA_HELLO_ABI_VERSION, sizeof(ver), &ver)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return pm_send(msg, nlh, pid);
}

#define PM_OP(fn) { .dump = fn, .flags = RDMA_NL_ADMIN_PERM }

static const struct rdma_nl_cbs iwcm_nl_cb_table[RDMA_NL_IWPM_NUM_OPS] = {
	[RDMA_NL_IWPM_REG_PID] = PM_OP(pm_reg_pid_cb),
	[RDMA_NL_IWPM_ADD_MAPPING] = PM_OP(pm_add_mapping_cb),
	[RDMA_NL_IWPM_QUERY_MAPPING] = PM_OP(pm_query_mapping_cb),
	[RDMA_NL_IWPM_REMOTE_INFO] = PM_OP(pm_remote_info_cb),
	[RDMA_NL_IWPM_HANDLE_ERR] = PM_OP(pm_mapping_error_cb),
	[RDMA_NL_IWPM_MAPINFO] = PM_OP(pm_mapping_info_cb),
	[RDMA_NL_IWPM_MAPINFO_NUM] = PM_OP(pm_ack_mapping_info_cb),
	[RDMA_NL_IWPM_HELLO] = PM_OP(pm_hello_cb),
};

int iwcm_pm_init(void)
{
	mutex_init(&pm.lock);
	pm.state = PM_UNKNOWN;
	pm.abi = IWPM_UABI_VERSION_MIN;
	INIT_LIST_HEAD(&pm.reqs);
	INIT_LIST_HEAD(&pm.mapinfo);
	INIT_LIST_HEAD(&pm.reminfo_age);
	hash_init(pm.reminfo);
	rdma_nl_register(RDMA_NL_IWCM, iwcm_nl_cb_table);
	return 0;
}

void iwcm_pm_exit(void)
{
	struct iwcm_pm_reminfo *ri, *rnext;
	struct iwcm_pm_mapinfo *mi, *mnext;

	/* Waits for the callbacks in progress. */
	rdma_nl_unregister(RDMA_NL_IWCM);
	list_for_each_entry_safe(ri, rnext, &pm.reminfo_age, age)
		kfree(ri);
	list_for_each_entry_safe(mi, mnext, &pm.mapinfo, node)
		kfree(mi);
	mutex_destroy(&pm.lock);
}
