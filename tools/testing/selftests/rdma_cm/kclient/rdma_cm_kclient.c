// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Selftest client of the rdma_cm kernel API (tests/kclient.sh).
 *
 * Loading the module runs one case, named by the "test" parameter, on
 * the local address "addr" (an address of the RDMA device under test):
 * insmod succeeds when the case passed and fails with the case's error
 * otherwise; the kernel log says what went wrong.  The "hold" case keeps
 * an id bound until the module is removed and records the events it
 * gets in the "events" parameter, for device removal tests; "holdroute"
 * keeps an id with a resolved route to "dst" the same way, for the
 * neighbour watch, and "holdquery" one still resolving "dst", for device
 * removal in ADDR_QUERY ("keep": the handler keeps it then).  The
 * connection cases ("conn", "reject", "refused") connect the device to
 * itself: a listener and an active id on "addr", a QP on each side;
 * with "peer", the listener is on that address instead, with its own
 * device, PD and CQ: two devices (providers) talk to each other.
 *
 * It uses only the exported API, so it runs on the stock rdma_cm and on
 * ours alike.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/in.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm_ib.h>
#include <rdma/rdma_cm.h>

static char *test = "";
module_param(test, charp, 0444);
MODULE_PARM_DESC(test, "case: bind, resolve, route, qp, hold, holdroute, holdquery, conn, reject, refused, holdconn, ud, mcast or qptype");

static char *addr = "";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "local IPv4 address of the device under test");

static char *dst = "";
module_param(dst, charp, 0444);
MODULE_PARM_DESC(dst, "holdroute, holdquery: the destination whose route the id holds, or resolves");

static char *peer = "";
module_param(peer, charp, 0444);
MODULE_PARM_DESC(peer, "connection cases: the passive side listens here, on its own device, instead of on addr");

static char *role = "";
module_param(role, charp, 0444);
MODULE_PARM_DESC(role, "reject across two machines: listen (on addr, reject the one request that comes within 120 s) or connect (from addr to peer); both sides here by default");

static ushort port = 7300;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "first port the cases use");

static bool loopback = true;
module_param(loopback, bool, 0444);
MODULE_PARM_DESC(loopback, "resolve 127.0.0.1 too (stock fails it on siw)");

static bool afib;
module_param(afib, bool, 0444);
MODULE_PARM_DESC(afib, "an AF_IB GID resolves (RoCE, InfiniBand; not iWARP)");

static bool ud = true;
module_param(ud, bool, 0444);
MODULE_PARM_DESC(ud, "the qp case also makes a UD QP (not on siw)");

static bool qpstate = true;
module_param(qpstate, bool, 0444);
MODULE_PARM_DESC(qpstate, "the device's query_qp reports the state (not siw)");

static uint slow;
module_param(slow, uint, 0444);
MODULE_PARM_DESC(slow, "conn: the passive side accepts this many seconds after its handler returned");

static bool opts;
module_param(opts, bool, 0444);
MODULE_PARM_DESC(opts, "conn: TOS, ACK timeout, minimum RNR timer and ECE both ways (RoCE)");

static bool write;
module_param(write, bool, 0444);
MODULE_PARM_DESC(write, "conn: an RDMA WRITE to the passive side's buffer before the SEND");

static bool read;
module_param(read, bool, 0444);
MODULE_PARM_DESC(read, "conn: an RDMA READ of the passive side's buffer after the SEND");

static bool rejdata = true;
module_param(rejdata, bool, 0444);
MODULE_PARM_DESC(rejdata, "reject: rdma_consumer_reject_data() returns the reject's private data (stock rdma_cm does not on siw)");

static bool any;
module_param(any, bool, 0444);
MODULE_PARM_DESC(any, "the connection cases listen on the wildcard address");

static bool keep;
module_param(keep, bool, 0444);
MODULE_PARM_DESC(keep, "hold cases: the handler keeps the id at DEVICE_REMOVAL (returns 0); the module's removal destroys it");

static char events[256];
module_param_string(events, events, sizeof(events), 0444);
MODULE_PARM_DESC(events, "events the held id got, space separated");

/* A nobody's address (TEST-NET-1, RFC 5737). */
#define KC_NOBODY	"192.0.2.1"

struct kc_id {
	struct rdma_cm_id	*id;
	struct completion	done;
	enum rdma_cm_event_type	event;
	int			status;
	bool			removed;	/* rdma_cm destroyed the id */
};

static struct kc_id held;

#define kc_fail(fmt, ...) \
	pr_err("rdma_cm_kclient: %s: FAIL: " fmt "\n", test, ##__VA_ARGS__)

static int kc_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct kc_id *kc = id->context;

	kc->event = ev->event;
	kc->status = ev->status;
	if (kc == &held) {
		strlcat(events, rdma_event_msg(ev->event), sizeof(events));
		strlcat(events, ";", sizeof(events));
	}
	complete(&kc->done);
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL && !(kc == &held && keep)) {
		/* Non-zero: rdma_cm destroys the id for us. */
		kc->removed = true;
		return 1;
	}
	return 0;
}

static int kc_create(struct kc_id *kc)
{
	init_completion(&kc->done);
	kc->removed = false;
	kc->id = rdma_create_id(&init_net, kc_handler, kc, RDMA_PS_TCP,
				IB_QPT_RC);
	if (IS_ERR(kc->id)) {
		kc_fail("rdma_create_id: %ld", PTR_ERR(kc->id));
		return PTR_ERR(kc->id);
	}
	return 0;
}

static void kc_destroy(struct kc_id *kc)
{
	if (!IS_ERR_OR_NULL(kc->id) && !kc->removed)
		rdma_destroy_id(kc->id);
	kc->id = NULL;
}

static int kc_sin(struct sockaddr_in *sin, const char *ip, u16 p)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(p);
	if (!in4_pton(ip, -1, (u8 *)&sin->sin_addr.s_addr, -1, NULL)) {
		kc_fail("bad address '%s'", ip);
		return -EINVAL;
	}
	return 0;
}

static int kc_expect(const char *what, int got, int want)
{
	if (got == want)
		return 0;
	kc_fail("%s returned %d, expected %d", what, got, want);
	return -EPROTO;
}

/* Wait for @kc's next event and check it is @want. */
static int kc_wait(struct kc_id *kc, enum rdma_cm_event_type want,
		   const char *what)
{
	if (!wait_for_completion_timeout(&kc->done, 30 * HZ)) {
		kc_fail("%s: no event in 30 s", what);
		return -ETIMEDOUT;
	}
	reinit_completion(&kc->done);
	if (kc->event != want) {
		kc_fail("%s: %s (status %d), expected %s", what,
			rdma_event_msg(kc->event), kc->status,
			rdma_event_msg(want));
		return -EPROTO;
	}
	return 0;
}

/* Create @kc and bind it to addr:port, filling @sin with that address. */
static int kc_create_bound(struct kc_id *kc, struct sockaddr_in *sin)
{
	return kc_create(kc) ?: kc_sin(sin, addr, port) ?:
	       kc_expect("bind", rdma_bind_addr(kc->id, (struct sockaddr *)sin),
			 0);
}

/* Bind to the device's address: the id gets the device; conflicts. */
static int kc_bind(void)
{
	struct kc_id a = {}, b = {}, c = {};
	struct sockaddr_in sin;
	int ret;

	ret = kc_create_bound(&a, &sin) ?: kc_create(&b) ?: kc_create(&c);
	if (ret)
		goto out;
	if (!a.id->device || !a.id->port_num) {
		kc_fail("bound to %s but no device port", addr);
		ret = -ENODEV;
		goto out;
	}
	ret = kc_expect("second bind of the port",
			rdma_bind_addr(b.id, (struct sockaddr *)&sin),
			-EADDRINUSE);
	if (ret)
		goto out;
	ret = kc_sin(&sin, KC_NOBODY, port) ?:
	      kc_expect("bind to nobody's address",
			rdma_bind_addr(c.id, (struct sockaddr *)&sin),
			-EADDRNOTAVAIL);
	if (!ret && c.id->device) {
		kc_fail("failed bind left a device");
		ret = -EPROTO;
	}
out:
	kc_destroy(&c);
	kc_destroy(&b);
	kc_destroy(&a);
	return ret;
}

/* Create @kc and start resolving @dst:@p from it. */
static int kc_start_resolve(struct kc_id *kc, const char *dst, u16 p)
{
	struct sockaddr_in sin;
	int ret;

	ret = kc_create(kc) ?: kc_sin(&sin, dst, p);
	if (ret)
		return ret;
	ret = rdma_resolve_addr(kc->id, NULL, (struct sockaddr *)&sin, 5000);
	if (ret)
		kc_fail("resolve %s: %d", dst, ret);
	return ret;
}

/* Resolve @dst; 0 once ADDR_RESOLVED arrived with a device. */
static int kc_resolve_one(const char *dst, u16 p)
{
	struct kc_id kc = {};
	int ret;

	ret = kc_start_resolve(&kc, dst, p);
	if (ret)
		goto out;
	if (!wait_for_completion_timeout(&kc.done, 30 * HZ)) {
		kc_fail("resolve %s: no event in 30 s", dst);
		ret = -ETIMEDOUT;
		goto out;
	}
	if (kc.event != RDMA_CM_EVENT_ADDR_RESOLVED || !kc.id->device) {
		kc_fail("resolve %s: %s (status %d), device %s", dst,
			rdma_event_msg(kc.event), kc.status,
			kc.id->device ? "set" : "none");
		ret = -EPROTO;
	}
out:
	kc_destroy(&kc);
	return ret;
}

/*
 * An AF_IB destination from an unbound id: rdma_cm takes a port with the
 * AF_IB capability (InfiniBand and RoCE, not iWARP) that has the GID or,
 * if active, one on its subnet.  fe80::2 is on the subnet of every
 * port's default GID: ADDR_RESOLVED from such a port, whose GID becomes
 * the source, or -ENODEV at once and no device.
 */
static int kc_resolve_ib(void)
{
	struct sockaddr_ib sib = {
		.sib_family = AF_IB,
		.sib_pkey = cpu_to_be16(0xffff),
	};
	struct sockaddr_ib *src;
	struct kc_id kc = {};
	int ret;

	ret = kc_create(&kc);
	if (ret)
		return ret;
	ib_addr_set(&sib.sib_addr, htonl(0xfe800000), 0, 0, htonl(2));
	ret = rdma_resolve_addr(kc.id, NULL, (struct sockaddr *)&sib, 1000);
	if (!afib) {
		ret = kc_expect("resolve of an AF_IB GID", ret, -ENODEV);
		if (!ret && kc.id->device) {
			kc_fail("failed AF_IB resolve left a device");
			ret = -EPROTO;
		}
		goto out;
	}
	if (ret) {
		kc_fail("resolve of an AF_IB GID: %d", ret);
		goto out;
	}
	if (!wait_for_completion_timeout(&kc.done, 30 * HZ)) {
		kc_fail("AF_IB resolve: no event in 30 s");
		ret = -ETIMEDOUT;
		goto out;
	}
	src = (struct sockaddr_ib *)&kc.id->route.addr.src_addr;
	if (kc.event != RDMA_CM_EVENT_ADDR_RESOLVED || !kc.id->device ||
	    src->sib_family != AF_IB ||
	    src->sib_addr.sib_subnet_prefix != sib.sib_addr.sib_subnet_prefix) {
		kc_fail("AF_IB resolve: %s (status %d), device %s, source %pI6",
			rdma_event_msg(kc.event), kc.status,
			kc.id->device ? "set" : "none", &src->sib_addr);
		ret = -EPROTO;
	}
out:
	kc_destroy(&kc);
	return ret;
}

/*
 * The AF_IB loopback GID (::1) from an unbound id: rdma_cm takes a local
 * port of the IB CM (InfiniBand, RoCE), never an iWARP one, whose
 * connections know no service ids or GIDs: ADDR_RESOLVED on such a
 * port, or -ENODEV at once and no device where there is none.
 */
static int kc_resolve_ib_loopback(void)
{
	struct sockaddr_ib sib = {
		.sib_family = AF_IB,
		.sib_pkey = cpu_to_be16(0xffff),
	};
	struct kc_id kc = {};
	int ret;

	ret = kc_create(&kc);
	if (ret)
		return ret;
	ib_addr_set(&sib.sib_addr, 0, 0, 0, htonl(1));
	ret = rdma_resolve_addr(kc.id, NULL, (struct sockaddr *)&sib, 1000);
	if (!afib) {
		if (kc.id->device)
			kc_fail("AF_IB loopback: on %s port %u (%s)",
				dev_name(&kc.id->device->dev),
				kc.id->port_num,
				rdma_cap_ib_cm(kc.id->device, kc.id->port_num) ?
				"IB CM" : "no IB CM");
		ret = kc_expect("resolve of the AF_IB loopback", ret,
				-ENODEV) ?: (kc.id->device ? -EPROTO : 0);
		goto out;
	}
	if (ret) {
		kc_fail("resolve of the AF_IB loopback: %d", ret);
		goto out;
	}
	ret = kc_wait(&kc, RDMA_CM_EVENT_ADDR_RESOLVED, "AF_IB loopback");
	if (!ret && (!kc.id->device ||
		     !rdma_cap_ib_cm(kc.id->device, kc.id->port_num))) {
		kc_fail("AF_IB loopback: resolved to a port without IB CM");
		ret = -EPROTO;
	}
out:
	kc_destroy(&kc);
	return ret;
}

static int kc_resolve(void)
{
	struct kc_id kc = {};
	struct sockaddr_in sin;
	int ret;

	ret = kc_resolve_one(addr, port);
	if (!ret && loopback)
		ret = kc_resolve_one("127.0.0.1", port + 1);
	if (!ret)
		ret = kc_resolve_ib();
	if (!ret)
		ret = kc_resolve_ib_loopback();
	if (ret)
		return ret;

	/* Nobody's address: an error now, or ADDR_ERROR later. */
	ret = kc_create(&kc) ?: kc_sin(&sin, KC_NOBODY, port + 2);
	if (ret)
		goto out;
	ret = rdma_resolve_addr(kc.id, NULL, (struct sockaddr *)&sin, 1000);
	if (ret) {
		ret = 0;
		goto out;
	}
	if (!wait_for_completion_timeout(&kc.done, 30 * HZ)) {
		kc_fail("resolve %s: no event in 30 s", KC_NOBODY);
		ret = -ETIMEDOUT;
	} else if (kc.event != RDMA_CM_EVENT_ADDR_ERROR) {
		kc_fail("resolve %s: %s, expected an address error", KC_NOBODY,
			rdma_event_msg(kc.event));
		ret = -EPROTO;
	}
out:
	kc_destroy(&kc);
	return ret;
}

/*
 * Route to the own address: ROUTE_RESOLVED, with one path record on
 * RoCE whose GIDs are the IP addresses' and whose MTU is set, none on
 * iWARP; a zero timeout and a second resolution are -EINVAL.
 */
static int kc_route(void)
{
	struct kc_id kc = {};
	struct sa_path_rec *path;
	union ib_gid gid;
	int ret;

	ret = kc_start_resolve(&kc, addr, port) ?:
	      kc_wait(&kc, RDMA_CM_EVENT_ADDR_RESOLVED, "resolve") ?:
	      kc_expect("route with timeout 0", rdma_resolve_route(kc.id, 0),
			-EINVAL) ?:
	      kc_expect("route", rdma_resolve_route(kc.id, 5000), 0) ?:
	      kc_wait(&kc, RDMA_CM_EVENT_ROUTE_RESOLVED, "route") ?:
	      kc_expect("second route", rdma_resolve_route(kc.id, 5000),
			-EINVAL);
	if (ret)
		goto out;

	path = kc.id->route.path_rec;
	if (!rdma_protocol_roce(kc.id->device, kc.id->port_num)) {
		if (path || kc.id->route.num_pri_alt_paths) {
			kc_fail("a path record on a non-RoCE port");
			ret = -EPROTO;
		}
		goto out;
	}
	if (!path || kc.id->route.num_pri_alt_paths != 1) {
		kc_fail("RoCE route without one path record");
		ret = -EPROTO;
		goto out;
	}
	rdma_ip2gid((struct sockaddr *)&kc.id->route.addr.src_addr, &gid);
	if (memcmp(&gid, &path->sgid, sizeof(gid)) ||
	    memcmp(&gid, &path->dgid, sizeof(gid)) || !path->mtu ||
	    !path->roce.route_resolved || path->pkey != cpu_to_be16(0xffff)) {
		kc_fail("RoCE path: sgid %pI6 dgid %pI6 mtu %d resolved %d pkey %#x",
			path->sgid.raw, path->dgid.raw, path->mtu,
			path->roce.route_resolved, be16_to_cpu(path->pkey));
		ret = -EPROTO;
	}
out:
	kc_destroy(&kc);
	return ret;
}

/* Create a QP of @type on a resolved id and check the state it got. */
static int kc_qp_one(enum rdma_ucm_port_space ps, enum ib_qp_type type,
		     enum ib_qp_state want, u16 p)
{
	struct ib_qp_init_attr init = {}, got_init;
	struct ib_qp_attr attr = {};
	struct kc_id kc = {};
	struct sockaddr_in sin;
	struct ib_pd *pd = NULL;
	struct ib_cq *cq = NULL;
	int ret, mask = 0;

	init_completion(&kc.done);
	kc.id = rdma_create_id(&init_net, kc_handler, &kc, ps, type);
	if (IS_ERR(kc.id)) {
		kc_fail("rdma_create_id: %ld", PTR_ERR(kc.id));
		return PTR_ERR(kc.id);
	}
	ret = kc_sin(&sin, addr, p);
	if (ret)
		goto out;
	ret = kc_expect("resolve", rdma_resolve_addr(kc.id, NULL,
						     (struct sockaddr *)&sin,
						     5000), 0) ?:
	      kc_wait(&kc, RDMA_CM_EVENT_ADDR_RESOLVED, "resolve");
	if (ret)
		goto out;

	pd = ib_alloc_pd(kc.id->device, 0);
	cq = ib_alloc_cq(kc.id->device, NULL, 8, 0, IB_POLL_DIRECT);
	if (IS_ERR(pd) || IS_ERR(cq)) {
		kc_fail("no PD or CQ");
		ret = -ENOMEM;
		goto out;
	}
	init.qp_type = type;
	init.send_cq = cq;
	init.recv_cq = cq;
	init.cap.max_send_wr = 4;
	init.cap.max_recv_wr = 4;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	ret = kc_expect("rdma_create_qp", rdma_create_qp(kc.id, pd, &init), 0);
	if (ret)
		goto out;
	if (!kc.id->qp || init.port_num != kc.id->port_num) {
		kc_fail("no QP on the id, or port_num %u not the id's",
			init.port_num);
		ret = -EPROTO;
		goto out_qp;
	}
	ret = ib_query_qp(kc.id->qp, &attr, IB_QP_STATE | IB_QP_QKEY,
			  &got_init);
	if (ret || (qpstate && attr.qp_state != want) ||
	    (type == IB_QPT_UD && attr.qkey != RDMA_UDP_QKEY)) {
		kc_fail("QP query %d: state %d (expected %d) qkey %#x", ret,
			attr.qp_state, want, attr.qkey);
		ret = -EPROTO;
		goto out_qp;
	}
	attr.qp_state = IB_QPS_INIT;
	ret = kc_expect("rdma_init_qp_attr INIT",
			rdma_init_qp_attr(kc.id, &attr, &mask), 0);
	if (!ret && !(mask & IB_QP_STATE)) {
		kc_fail("INIT attributes without IB_QP_STATE (mask %#x)", mask);
		ret = -EPROTO;
	}
out_qp:
	rdma_destroy_qp(kc.id);
	if (!ret && kc.id->qp) {
		kc_fail("rdma_destroy_qp left the QP on the id");
		ret = -EPROTO;
	}
out:
	if (!IS_ERR_OR_NULL(cq))
		ib_free_cq(cq);
	if (!IS_ERR_OR_NULL(pd))
		ib_dealloc_pd(pd);
	kc_destroy(&kc);
	return ret;
}

/* rdma_create_qp: RC in INIT; UD in RTS with the UDP port space's Q_Key. */
static int kc_qp(void)
{
	int ret;

	ret = kc_qp_one(RDMA_PS_TCP, IB_QPT_RC, IB_QPS_INIT, port);
	if (!ret && ud)
		ret = kc_qp_one(RDMA_PS_UDP, IB_QPT_UD, IB_QPS_RTS, port + 1);
	return ret;
}

/* An id bound to the device, kept for device removal. */
static int kc_hold(void)
{
	struct sockaddr_in sin;
	int ret;

	ret = kc_create_bound(&held, &sin);
	if (ret)
		kc_destroy(&held);
	return ret;
}

/*
 * An id with a resolved route to @dst, kept until the module is removed;
 * the events it gets after ROUTE_RESOLVED go to the "events" parameter.
 */
static int kc_holdroute(void)
{
	int ret;

	ret = kc_start_resolve(&held, dst, port) ?:
	      kc_wait(&held, RDMA_CM_EVENT_ADDR_RESOLVED, "resolve") ?:
	      kc_expect("route", rdma_resolve_route(held.id, 5000), 0) ?:
	      kc_wait(&held, RDMA_CM_EVENT_ROUTE_RESOLVED, "route");
	if (ret) {
		kc_destroy(&held);
		return ret;
	}
	/* Only what comes later counts; no event is due before. */
	events[0] = '\0';
	return 0;
}

/*
 * An id bound to addr, resolving @dst (which never answers ARP) with a
 * minute to go, kept until the module is removed: for device removal in
 * ADDR_QUERY.  "dsthw" shows the hardware address the id got.
 */
static int kc_holdquery(void)
{
	struct sockaddr_in sin;
	int ret;

	ret = kc_create_bound(&held, &sin) ?: kc_sin(&sin, dst, port) ?:
	      kc_expect("resolve",
			rdma_resolve_addr(held.id, NULL, (struct sockaddr *)&sin,
					  60000), 0);
	if (ret) {
		kc_destroy(&held);
		return ret;
	}
	events[0] = '\0';
	return 0;
}

static int kc_dsthw_get(char *buf, const struct kernel_param *kp)
{
	if (IS_ERR_OR_NULL(held.id))
		return sysfs_emit(buf, "none\n");
	return sysfs_emit(buf, "%pM\n",
			  held.id->route.addr.dev_addr.dst_dev_addr);
}

static const struct kernel_param_ops kc_dsthw_ops = {
	.get	= kc_dsthw_get,
};

module_param_cb(dsthw, &kc_dsthw_ops, NULL, 0444);
MODULE_PARM_DESC(dsthw, "the destination hardware address of the held id");

/*
 * The connection cases.  Events of the listener and of the passive id
 * it hands out arrive at one handler (the passive id inherits the
 * listener's context); each id's events are logged in order.
 */
#define KC_MAX_EVENTS	8
#define KC_MSG		"kc-msg: hello over rdma_cm"

struct kc_log {
	struct rdma_cm_id	*id;
	enum rdma_cm_event_type	event[KC_MAX_EVENTS];
	int			status[KC_MAX_EVENTS];
	char			pdata[KC_MAX_EVENTS][8];	/* first bytes */
	int			count;
	int			seen;		/* events the test checked */
	wait_queue_head_t	wait;
	spinlock_t		lock;		/* the arrays and count */
};

struct kc_side {
	struct kc_log		log;
	struct ib_cq		*cq;
	void			*buf;
	u64			dma;
};

struct kc_conn {
	struct kc_side		active;
	struct kc_log		listener;
	struct kc_side		passive;
	struct ib_pd		*pd;
	struct ib_pd		*ppd;		/* "peer": the passive side's */
	bool			reject;
	bool			held;		/* the "holdconn" connection */
	bool			ud;		/* UD ids and QPs (SIDR) */
	struct ib_ah		*ah;		/* UD: the active side's AH */
	u32			remote_qpn;	/* UD: from ESTABLISHED */
	u32			remote_qkey;
	bool			req_seen;	/* a request reached the handler */
	struct completion	req_done;	/* ... and its handler returned */
	atomic_t		live;		/* ids not removed yet */
	struct delayed_work	accept_work;	/* "slow": the late accept */
	struct rdma_ucm_ece	req_ece;	/* "opts": ECE of the request */
	struct rdma_ucm_ece	rep_ece;	/* ... and of the reply */
	char			rej_data[8];	/* "reject": first bytes ... */
	u8			rej_len;	/* ... of rdma_consumer_reject_data() */
	int			handler_err;	/* first failure in a handler */
};

static void kc_side_fini(struct kc_side *side, struct ib_device *dev);

/*
 * DEVICE_REMOVAL on one id of a connection: its QP goes now, the CQs and
 * the PD with the last id, before the device can finish going away.
 * rdma_cm destroys the id itself (the handler returns non-zero).
 */
static int kc_conn_removed(struct kc_conn *c, struct kc_log *log,
			   const char *role)
{
	struct ib_device *dev;

	if (c->held) {
		strlcat(events, role, sizeof(events));
		strlcat(events, ":device removal;", sizeof(events));
	}
	if (log->id && log->id->qp)
		rdma_destroy_qp(log->id);
	log->id = NULL;
	if (atomic_dec_and_test(&c->live) && c->pd) {
		dev = c->pd->device;
		kc_side_fini(&c->passive, c->ppd ? c->ppd->device : dev);
		kc_side_fini(&c->active, dev);
		if (c->ppd)
			ib_dealloc_pd(c->ppd);
		ib_dealloc_pd(c->pd);
		c->pd = NULL;
		c->ppd = NULL;
	}
	return 1;
}

static void kc_log_init(struct kc_log *log)
{
	memset(log, 0, sizeof(*log));
	init_waitqueue_head(&log->wait);
	spin_lock_init(&log->lock);
}

static void kc_log_add(struct kc_log *log, struct rdma_cm_event *ev)
{
	unsigned long flags;

	spin_lock_irqsave(&log->lock, flags);
	if (log->count < KC_MAX_EVENTS) {
		log->event[log->count] = ev->event;
		log->status[log->count] = ev->status;
		if (ev->param.conn.private_data)
			memcpy(log->pdata[log->count],
			       ev->param.conn.private_data,
			       min_t(size_t, ev->param.conn.private_data_len,
				     sizeof(log->pdata[0])));
		log->count++;
	}
	spin_unlock_irqrestore(&log->lock, flags);
	wake_up(&log->wait);
}

/* Wait for @log's next event; check it is @want and, if given, @pdata. */
static int kc_log_next(struct kc_log *log, enum rdma_cm_event_type want,
		       const char *pdata, const char *what)
{
	int i = log->seen;

	if (!wait_event_timeout(log->wait, READ_ONCE(log->count) > i,
				30 * HZ)) {
		kc_fail("%s: no event in 30 s, expected %s", what,
			rdma_event_msg(want));
		return -ETIMEDOUT;
	}
	log->seen++;
	if (log->event[i] != want) {
		kc_fail("%s: %s (status %d), expected %s", what,
			rdma_event_msg(log->event[i]), log->status[i],
			rdma_event_msg(want));
		return -EPROTO;
	}
	if (pdata && strncmp(log->pdata[i], pdata, strlen(pdata))) {
		kc_fail("%s: private data '%.8s', expected '%s'", what,
			log->pdata[i], pdata);
		return -EPROTO;
	}
	return 0;
}

/* The PD of @side: the passive side has its own in "peer" mode. */
static struct ib_pd *kc_pd(struct kc_conn *c, struct kc_side *side)
{
	return side == &c->passive && c->ppd ? c->ppd : c->pd;
}

static int kc_side_qp(struct kc_conn *c, struct kc_side *side,
		      struct rdma_cm_id *id)
{
	struct ib_qp_init_attr init = {
		.send_cq	= side->cq,
		.recv_cq	= side->cq,
		.qp_type	= c->ud ? IB_QPT_UD : IB_QPT_RC,
		.sq_sig_type	= IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = 4, .max_recv_wr = 4,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
	};
	struct ib_recv_wr wr = {}, *bad;
	struct ib_sge sge;
	int ret;

	ret = rdma_create_qp(id, kc_pd(c, side), &init);
	if (ret) {
		kc_fail("rdma_create_qp: %d", ret);
		return ret;
	}
	sge.addr = side->dma;
	sge.length = PAGE_SIZE;
	sge.lkey = kc_pd(c, side)->local_dma_lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	ret = ib_post_recv(id->qp, &wr, (const struct ib_recv_wr **)&bad);
	if (ret)
		kc_fail("ib_post_recv: %d", ret);
	return ret;
}

/* "opts": what each side asks for, as values stock carries unchanged. */
#define KC_TOS		0x20
#define KC_ACK_TIMEOUT	18
#define KC_MIN_RNR	12
static const struct rdma_ucm_ece kc_req_ece = { 0x123456, 0xabcd0001 };
static const struct rdma_ucm_ece kc_rep_ece = { 0x654321, 0xdcba0002 };

static int kc_accept(struct rdma_cm_id *id)
{
	struct rdma_conn_param param = {
		.private_data = "kc-rep",
		.private_data_len = 7,
		.initiator_depth = 1,
		.responder_resources = 1,
	};
	struct rdma_ucm_ece ece = kc_rep_ece;
	int ret;

	ret = opts ? rdma_accept_ece(id, &param, &ece) : rdma_accept(id, &param);
	if (ret)
		kc_fail("rdma_accept: %d", ret);
	return ret;
}

/* "slow": accept outside the handler, as a consumer that takes its time. */
static void kc_accept_late(struct work_struct *work)
{
	struct kc_conn *c = container_of(to_delayed_work(work), struct kc_conn,
					 accept_work);
	struct rdma_cm_id *id = c->passive.log.id;
	int ret;

	rdma_lock_handler(id);
	ret = kc_accept(id);
	rdma_unlock_handler(id);
	if (ret)
		c->handler_err = ret;
}

static int kc_conn_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct kc_conn *c = id->context;
	int ret;

	if (id == c->listener.id) {
		kc_log_add(&c->listener, ev);
		if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
			return kc_conn_removed(c, &c->listener, "L");
		return 0;
	}
	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		kc_log_add(&c->passive.log, ev);
		if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
			return kc_conn_removed(c, &c->passive.log, "P");
		return 0;
	}
	if (c->req_seen) {
		kc_fail("a second connection request");
		c->handler_err = -EPROTO;
		return 1;	/* rdma_cm destroys that id */
	}
	c->req_seen = true;
	c->req_ece = ev->ece;
	kc_log_add(&c->passive.log, ev);
	if (c->reject) {
		ret = rdma_reject(id, "kc-rej", 7, IB_CM_REJ_CONSUMER_DEFINED);
		if (ret)
			kc_fail("rdma_reject: %d", ret);
		/* Done with it either way: rdma_cm destroys it. */
		c->handler_err = ret;
		ret = 1;
		goto out;
	}
	ret = kc_side_qp(c, &c->passive, id);
	if (!ret && slow) {
		c->passive.log.id = id;
		schedule_delayed_work(&c->accept_work, slow * HZ);
		goto out;
	}
	if (!ret)
		ret = kc_accept(id);
	if (ret) {
		c->handler_err = ret;
		if (id->qp)
			rdma_destroy_qp(id);
		ret = 1;
		goto out;
	}
	c->passive.log.id = id;
out:
	/* The test may tear down once this is seen; touch c no more. */
	complete(&c->req_done);
	return ret;
}

static int kc_side_init(struct kc_side *side, struct ib_device *dev)
{
	side->cq = ib_alloc_cq(dev, NULL, 8, 0, IB_POLL_DIRECT);
	if (IS_ERR(side->cq)) {
		kc_fail("ib_alloc_cq: %ld", PTR_ERR(side->cq));
		return PTR_ERR(side->cq);
	}
	side->buf = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!side->buf)
		return -ENOMEM;
	side->dma = ib_dma_map_single(dev, side->buf, PAGE_SIZE,
				      DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, side->dma)) {
		kfree(side->buf);
		side->buf = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void kc_side_fini(struct kc_side *side, struct ib_device *dev)
{
	if (side->buf) {
		ib_dma_unmap_single(dev, side->dma, PAGE_SIZE,
				    DMA_BIDIRECTIONAL);
		kfree(side->buf);
	}
	if (!IS_ERR_OR_NULL(side->cq))
		ib_free_cq(side->cq);
}

/*
 * Poll @side's CQ for one completion of @opcode within 10 s; a receive
 * must hold KC_MSG at @off (UD receives start with a 40-byte GRH).
 */
static int kc_poll(struct kc_side *side, enum ib_wc_opcode opcode,
		   unsigned int off, const char *what)
{
	unsigned long end = jiffies + 10 * HZ;
	struct ib_wc wc;
	int n;

	do {
		n = ib_poll_cq(side->cq, 1, &wc);
		if (n > 0)
			break;
		msleep(20);
	} while (time_before(jiffies, end));
	if (n <= 0) {
		kc_fail("%s: no completion in 10 s", what);
		return -ETIMEDOUT;
	}
	if (wc.status != IB_WC_SUCCESS || wc.opcode != opcode) {
		kc_fail("%s: completion status %s opcode %d", what,
			ib_wc_status_msg(wc.status), wc.opcode);
		return -EIO;
	}
	if (opcode == IB_WC_RECV && (wc.byte_len != off + sizeof(KC_MSG) ||
				     strcmp(side->buf + off, KC_MSG))) {
		kc_fail("%s: received %u bytes '%.32s'", what, wc.byte_len,
			(char *)side->buf + off);
		return -EPROTO;
	}
	return 0;
}

/* "write": where the WRITE goes in the passive side's buffer. */
#define KC_WRITE_OFF	2048
#define KC_WRITE_MSG	"kc-write: placed by the peer"

/*
 * An RDMA WRITE or READ of @len bytes at @off between the two sides'
 * buffers, through the passive side's PD's global rkey.
 */
static int kc_post_rdma(struct kc_conn *c, enum ib_wr_opcode op,
			unsigned int off, size_t len, int flags)
{
	struct ib_rdma_wr wr = {};
	struct ib_send_wr *bad;
	struct ib_sge sge;
	int ret;

	sge.addr = c->active.dma + off;
	sge.length = len;
	sge.lkey = c->pd->local_dma_lkey;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.wr.opcode = op;
	wr.wr.send_flags = flags;
	wr.remote_addr = c->passive.dma + off;
	wr.rkey = kc_pd(c, &c->passive)->unsafe_global_rkey;
	ret = ib_post_send(c->active.log.id->qp, &wr.wr,
			   (const struct ib_send_wr **)&bad);
	if (ret)
		kc_fail("RDMA %s: ib_post_send: %d",
			op == IB_WR_RDMA_READ ? "READ" : "WRITE", ret);
	return ret;
}

/*
 * "write": an unsignalled RDMA WRITE into the passive side's buffer;
 * the SEND after it arrives after it.
 */
static int kc_write(struct kc_conn *c)
{
	strscpy(c->active.buf + KC_WRITE_OFF, KC_WRITE_MSG,
		PAGE_SIZE - KC_WRITE_OFF);
	return kc_post_rdma(c, IB_WR_RDMA_WRITE, KC_WRITE_OFF,
			    sizeof(KC_WRITE_MSG), 0);
}

/* The WRITE is in the passive side's buffer once the SEND is. */
static int kc_write_check(struct kc_conn *c)
{
	if (strcmp(c->passive.buf + KC_WRITE_OFF, KC_WRITE_MSG)) {
		kc_fail("RDMA WRITE: the passive buffer has '%.32s'",
			(char *)c->passive.buf + KC_WRITE_OFF);
		return -EPROTO;
	}
	return 0;
}

/* "read": what the active side reads, and where, in both buffers. */
#define KC_READ_OFF	3072
#define KC_READ_MSG	"kc-read: fetched from the peer"

/* "read": the active side READs a string from the passive side's buffer. */
static int kc_read(struct kc_conn *c)
{
	int ret;

	strscpy(c->passive.buf + KC_READ_OFF, KC_READ_MSG,
		PAGE_SIZE - KC_READ_OFF);
	ret = kc_post_rdma(c, IB_WR_RDMA_READ, KC_READ_OFF,
			   sizeof(KC_READ_MSG), IB_SEND_SIGNALED) ?:
	      kc_poll(&c->active, IB_WC_RDMA_READ, 0, "RDMA READ");
	if (!ret && strcmp(c->active.buf + KC_READ_OFF, KC_READ_MSG)) {
		kc_fail("RDMA READ: the active buffer has '%.32s'",
			(char *)c->active.buf + KC_READ_OFF);
		ret = -EPROTO;
	}
	return ret;
}

/* One SEND from the active side to the passive side's posted receive. */
static int kc_send(struct kc_conn *c)
{
	struct ib_ud_wr wr = {};
	struct ib_send_wr *bad;
	struct ib_sge sge;
	int ret;

	strscpy(c->active.buf, KC_MSG, PAGE_SIZE);
	sge.addr = c->active.dma;
	sge.length = sizeof(KC_MSG);
	sge.lkey = c->pd->local_dma_lkey;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.wr.opcode = IB_WR_SEND;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	if (c->ud) {
		if (!c->ah) {
			kc_fail("UD send: no address handle");
			return -EPROTO;
		}
		wr.ah = c->ah;
		wr.remote_qpn = c->remote_qpn;
		wr.remote_qkey = c->remote_qkey;
	}
	ret = ib_post_send(c->active.log.id->qp, &wr.wr,
			   (const struct ib_send_wr **)&bad);
	if (ret) {
		kc_fail("ib_post_send: %d", ret);
		return ret;
	}
	return kc_poll(&c->active, IB_WC_SEND, 0, "send") ?:
	       kc_poll(&c->passive, IB_WC_RECV,
		       c->ud ? sizeof(struct ib_grh) : 0, "receive") ?:
	       (write ? kc_write_check(c) : 0) ?:
	       (read ? kc_read(c) : 0);
}

/*
 * The passive side on a device of its own ("peer"): its PD, CQ and
 * buffer on the listener's device.
 */
static int kc_conn_peer(struct kc_conn *c, struct ib_device *dev)
{
	int ret;

	c->ppd = ib_alloc_pd(dev, write || read ? IB_PD_UNSAFE_GLOBAL_RKEY : 0);
	if (IS_ERR(c->ppd)) {
		ret = PTR_ERR(c->ppd);
		c->ppd = NULL;
		kc_fail("ib_alloc_pd on %s: %d", dev_name(&dev->dev), ret);
		return ret;
	}
	return kc_side_init(&c->passive, dev);
}

/* The listener on addr:@p (0.0.0.0 with "any"; peer:@p with "peer"). */
static int kc_conn_listen(struct kc_conn *c, u16 p)
{
	const char *at = *peer ? peer : addr;
	struct rdma_cm_id *id;
	struct sockaddr_in sin;
	int ret;

	id = rdma_create_id(&init_net, kc_conn_handler, c,
			    c->ud ? RDMA_PS_UDP : RDMA_PS_TCP,
			    c->ud ? IB_QPT_UD : IB_QPT_RC);
	if (IS_ERR(id)) {
		kc_fail("rdma_create_id: %ld", PTR_ERR(id));
		return PTR_ERR(id);
	}
	c->listener.id = id;
	ret = kc_sin(&sin, any ? "0.0.0.0" : at, p) ?:
	      kc_expect("bind listener",
			rdma_bind_addr(id, (struct sockaddr *)&sin), 0) ?:
	      kc_expect("listen", rdma_listen(id, 4), 0);
	if (!ret && !any && !id->device) {
		kc_fail("listener bound to %s has no device", at);
		ret = -EPROTO;
	}
	if (!ret && *peer)
		ret = kc_conn_peer(c, id->device);
	return ret;
}

static int kc_conn_handler_active(struct rdma_cm_id *id,
				  struct rdma_cm_event *ev)
{
	struct kc_log *log = id->context;
	struct kc_conn *c = container_of(log, struct kc_conn, active.log);

	/* UD: the address handle to the peer, from the SIDR reply. */
	if (c->ud && ev->event == RDMA_CM_EVENT_ESTABLISHED) {
		c->ah = rdma_create_ah(c->pd, &ev->param.ud.ah_attr,
				       RDMA_CREATE_AH_SLEEPABLE);
		if (IS_ERR(c->ah)) {
			kc_fail("rdma_create_ah: %ld", PTR_ERR(c->ah));
			c->handler_err = PTR_ERR(c->ah);
			c->ah = NULL;
		}
		c->remote_qpn = ev->param.ud.qp_num;
		c->remote_qkey = ev->param.ud.qkey;
	}
	if (ev->event == RDMA_CM_EVENT_ESTABLISHED)
		c->rep_ece = ev->ece;
	/* What a ULP reads its reject status from (nvme-rdma does). */
	if (ev->event == RDMA_CM_EVENT_REJECTED) {
		const void *p = rdma_consumer_reject_data(id, ev, &c->rej_len);

		if (p)
			memcpy(c->rej_data, p,
			       min_t(size_t, c->rej_len, sizeof(c->rej_data)));
		else
			c->rej_len = 0;
	}
	kc_log_add(log, ev);
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		return kc_conn_removed(container_of(log, struct kc_conn,
						    active.log), log, "A");
	return 0;
}

/* The active id, resolved to addr:@p, with a QP, ready to connect. */
static int kc_conn_active(struct kc_conn *c, u16 p)
{
	struct kc_log *log = &c->active.log;
	struct sockaddr_in sin, src;
	struct ib_device *dev;
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, kc_conn_handler_active, log,
			    c->ud ? RDMA_PS_UDP : RDMA_PS_TCP,
			    c->ud ? IB_QPT_UD : IB_QPT_RC);
	if (IS_ERR(id)) {
		kc_fail("rdma_create_id: %ld", PTR_ERR(id));
		return PTR_ERR(id);
	}
	log->id = id;
	/* Before the route: the TOS goes into its path. */
	if (opts) {
		rdma_set_service_type(id, KC_TOS);
		ret = kc_expect("ack timeout",
				rdma_set_ack_timeout(id, KC_ACK_TIMEOUT), 0) ?:
		      kc_expect("min RNR timer",
				rdma_set_min_rnr_timer(id, KC_MIN_RNR), 0);
		if (ret)
			return ret;
	}
	ret = kc_sin(&src, addr, 0) ?: kc_sin(&sin, *peer ? peer : addr, p) ?:
	      kc_expect("resolve",
			rdma_resolve_addr(id, *peer ? (struct sockaddr *)&src :
					  NULL, (struct sockaddr *)&sin,
					  5000), 0) ?:
	      kc_log_next(log, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, "resolve") ?:
	      kc_expect("route", rdma_resolve_route(id, 5000), 0) ?:
	      kc_log_next(log, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, "route");
	if (ret)
		return ret;

	dev = id->device;
	c->pd = ib_alloc_pd(dev, write || read ? IB_PD_UNSAFE_GLOBAL_RKEY : 0);
	if (IS_ERR(c->pd)) {
		ret = PTR_ERR(c->pd);
		c->pd = NULL;
		kc_fail("ib_alloc_pd: %d", ret);
		return ret;
	}
	return kc_side_init(&c->active, dev) ?:
	       (*peer ? 0 : kc_side_init(&c->passive, dev)) ?:
	       kc_side_qp(c, &c->active, id);
}

static int kc_connect(struct kc_conn *c)
{
	struct rdma_conn_param param = {
		.private_data = "kc-req",
		.private_data_len = 7,
		.initiator_depth = 1,
		.responder_resources = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};

	struct rdma_ucm_ece ece = kc_req_ece;

	return kc_expect("connect", opts ?
			 rdma_connect_ece(c->active.log.id, &param, &ece) :
			 rdma_connect(c->active.log.id, &param), 0);
}

/*
 * rdma_notify() of COMM_EST on the established passive side: ib_cm says
 * -EISCONN (IB and RoCE); iWARP has nothing to tell, 0.
 */
static int kc_notify_check(struct kc_conn *c)
{
	struct rdma_cm_id *id = c->passive.log.id;

	return kc_expect("notify COMM_EST", rdma_notify(id, IB_EVENT_COMM_EST),
			 rdma_protocol_iwarp(id->device, id->port_num) ?
			 0 : -EISCONN);
}

/*
 * "opts": ECE crossed both ways intact; the active QP has the ACK
 * timeout, the minimum RNR timer and, in its path, the TOS.
 */
static int kc_opts_check(struct kc_conn *c)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr = {};
	int ret;

	if (c->req_ece.vendor_id != kc_req_ece.vendor_id ||
	    c->req_ece.attr_mod != kc_req_ece.attr_mod ||
	    c->rep_ece.vendor_id != kc_rep_ece.vendor_id ||
	    c->rep_ece.attr_mod != kc_rep_ece.attr_mod) {
		kc_fail("ECE: request %#x/%#x reply %#x/%#x",
			c->req_ece.vendor_id, c->req_ece.attr_mod,
			c->rep_ece.vendor_id, c->rep_ece.attr_mod);
		return -EPROTO;
	}
	ret = ib_query_qp(c->active.log.id->qp, &attr,
			  IB_QP_TIMEOUT | IB_QP_MIN_RNR_TIMER | IB_QP_AV, &init);
	if (ret || attr.timeout != KC_ACK_TIMEOUT ||
	    attr.min_rnr_timer != KC_MIN_RNR ||
	    rdma_ah_read_grh(&attr.ah_attr)->traffic_class != KC_TOS) {
		kc_fail("QP query %d: timeout %u, min RNR %u, traffic class %#x",
			ret, attr.timeout, attr.min_rnr_timer,
			rdma_ah_read_grh(&attr.ah_attr)->traffic_class);
		return -EPROTO;
	}
	return 0;
}

static void kc_conn_fini(struct kc_conn *c)
{
	struct ib_device *dev;

	/* A request handler still running would use c (and the PD). */
	if (READ_ONCE(c->req_seen) &&
	    !wait_for_completion_timeout(&c->req_done, 30 * HZ))
		kc_fail("the request handler did not return in 30 s");
	cancel_delayed_work_sync(&c->accept_work);
	dev = c->pd ? c->pd->device : NULL;
	if (c->passive.log.id) {
		if (c->passive.log.id->qp)
			rdma_destroy_qp(c->passive.log.id);
		rdma_destroy_id(c->passive.log.id);
	}
	if (c->active.log.id) {
		if (c->active.log.id->qp)
			rdma_destroy_qp(c->active.log.id);
		rdma_destroy_id(c->active.log.id);
	}
	if (c->listener.id)
		rdma_destroy_id(c->listener.id);
	if (c->ah)
		rdma_destroy_ah(c->ah, RDMA_DESTROY_AH_SLEEPABLE);
	if (c->ppd) {
		kc_side_fini(&c->passive, c->ppd->device);
		ib_dealloc_pd(c->ppd);
	} else if (dev) {
		kc_side_fini(&c->passive, dev);
	}
	if (dev) {
		kc_side_fini(&c->active, dev);
		ib_dealloc_pd(c->pd);
	}
	kfree(c);
}

static struct kc_conn *kc_conn_alloc(void)
{
	struct kc_conn *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return NULL;
	kc_log_init(&c->active.log);
	kc_log_init(&c->passive.log);
	kc_log_init(&c->listener);
	init_completion(&c->req_done);
	INIT_DELAYED_WORK(&c->accept_work, kc_accept_late);
	atomic_set(&c->live, 3);
	return c;
}

/*
 * Connect with private data both ways, one SEND, disconnect: both ends
 * get ESTABLISHED and DISCONNECTED, the listener nothing.
 */
static int kc_establish(struct kc_conn *c)
{
	return kc_conn_listen(c, port) ?:
	       kc_conn_active(c, port) ?:
	       kc_connect(c) ?:
	       kc_log_next(&c->passive.log, RDMA_CM_EVENT_CONNECT_REQUEST,
			   "kc-req", "connection request") ?:
	       kc_log_next(&c->active.log, RDMA_CM_EVENT_ESTABLISHED,
			   "kc-rep", "active established") ?:
	       kc_log_next(&c->passive.log, RDMA_CM_EVENT_ESTABLISHED, NULL,
			   "passive established") ?:
	       c->handler_err ?:
	       (write ? kc_write(c) : 0) ?:
	       kc_send(c);
}

static int kc_conn(void)
{
	struct kc_conn *c = kc_conn_alloc();
	int ret;

	if (!c)
		return -ENOMEM;
	ret = kc_establish(c) ?:
	      (opts ? kc_opts_check(c) : 0) ?:
	      kc_notify_check(c) ?:
	      kc_expect("disconnect", rdma_disconnect(c->active.log.id), 0) ?:
	      kc_log_next(&c->passive.log, RDMA_CM_EVENT_DISCONNECTED, NULL,
			  "passive disconnected") ?:
	      /* IB: the DREP the active side waits for; iWARP: no-op. */
	      kc_expect("passive disconnect",
			rdma_disconnect(c->passive.log.id), 0) ?:
	      kc_log_next(&c->active.log, RDMA_CM_EVENT_DISCONNECTED, NULL,
			  "active disconnected");
	if (!ret && READ_ONCE(c->listener.count)) {
		kc_fail("the listener got %s",
			rdma_event_msg(c->listener.event[0]));
		ret = -EPROTO;
	}
	kc_conn_fini(c);
	return ret;
}

/*
 * A connection kept until the module is removed: `rdma link delete`
 * must reach the listener and both ends with one DEVICE_REMOVAL each
 * ("events" lists them) and complete.
 */
static struct kc_conn *held_conn;

static int kc_holdconn(void)
{
	int ret;

	held_conn = kc_conn_alloc();
	if (!held_conn)
		return -ENOMEM;
	held_conn->held = true;
	ret = kc_establish(held_conn);
	if (ret) {
		kc_conn_fini(held_conn);
		held_conn = NULL;
	}
	return ret;
}

/*
 * UD: the active id resolves the passive one's QP through SIDR (private
 * data both ways; ESTABLISHED carries an AH, QP number and Q_Key), and
 * one UD SEND arrives.  The passive id gets no ESTABLISHED.
 */
static int kc_ud(void)
{
	struct kc_conn *c = kc_conn_alloc();
	int ret;

	if (!c)
		return -ENOMEM;
	c->ud = true;
	ret = kc_conn_listen(c, port) ?:
	      kc_conn_active(c, port) ?:
	      kc_connect(c) ?:
	      kc_log_next(&c->passive.log, RDMA_CM_EVENT_CONNECT_REQUEST,
			  "kc-req", "SIDR request") ?:
	      kc_log_next(&c->active.log, RDMA_CM_EVENT_ESTABLISHED, "kc-rep",
			  "SIDR reply") ?:
	      c->handler_err ?:
	      kc_send(c);
	if (!ret && c->remote_qkey != RDMA_UDP_QKEY) {
		kc_fail("Q_Key %#x, expected the UDP port space's %#x",
			c->remote_qkey, RDMA_UDP_QKEY);
		ret = -EPROTO;
	}
	kc_conn_fini(c);
	return ret;
}

/* The multicast case: what the join event carried. */
struct kc_mc {
	struct kc_id	kc;
	void		*ctx;
	u32		qpn;
	u32		qkey;
};

static int kc_mc_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct kc_mc *m = container_of(id->context, struct kc_mc, kc);

	if (ev->event == RDMA_CM_EVENT_MULTICAST_JOIN) {
		m->ctx = (void *)ev->param.ud.private_data;
		m->qpn = ev->param.ud.qp_num;
		m->qkey = ev->param.ud.qkey;
	}
	m->kc.event = ev->event;
	m->kc.status = ev->status;
	complete(&m->kc.done);
	return 0;
}

/*
 * RoCE multicast: a UD id bound to the device joins 239.1.1.1 and gets
 * MULTICAST_JOIN with its context, QP number 0xffffff and the UDP port
 * space's Q_Key; it leaves, joins again, and is destroyed while joined.
 */
static int kc_mcast(void)
{
	struct sockaddr_in sin, grp;
	struct kc_mc m = {};
	int ret, i;

	init_completion(&m.kc.done);
	m.kc.id = rdma_create_id(&init_net, kc_mc_handler, &m.kc, RDMA_PS_UDP,
				 IB_QPT_UD);
	if (IS_ERR(m.kc.id)) {
		kc_fail("rdma_create_id: %ld", PTR_ERR(m.kc.id));
		return PTR_ERR(m.kc.id);
	}
	ret = kc_sin(&sin, addr, port) ?: kc_sin(&grp, "239.1.1.1", 0) ?:
	      kc_expect("bind", rdma_bind_addr(m.kc.id, (struct sockaddr *)&sin),
			0);
	for (i = 0; !ret && i < 2; i++) {
		ret = kc_expect("join",
				rdma_join_multicast(m.kc.id,
						    (struct sockaddr *)&grp,
						    BIT(FULLMEMBER_JOIN), &m),
				0) ?:
		      kc_wait(&m.kc, RDMA_CM_EVENT_MULTICAST_JOIN, "join");
		if (!ret && (m.ctx != &m || m.qpn != 0xffffff ||
			     m.qkey != RDMA_UDP_QKEY)) {
			kc_fail("join event: context %s, QPN %#x, Q_Key %#x",
				m.ctx == &m ? "ours" : "wrong", m.qpn, m.qkey);
			ret = -EPROTO;
		}
		/* The second time round, destroy leaves the group. */
		if (!ret && !i)
			rdma_leave_multicast(m.kc.id, (struct sockaddr *)&grp);
	}
	kc_destroy(&m.kc);
	return ret;
}

/*
 * role=listen: the listener on addr rejects the request that comes from
 * another machine (role=connect there) within 120 s.
 */
static int kc_reject_listen(struct kc_conn *c)
{
	int ret = kc_conn_listen(c, port);

	if (ret)
		return ret;
	/* The host waits for this line before it lets the peer connect. */
	pr_info("rdma_cm_kclient: listening on %s:%u\n", addr, port);
	if (!wait_for_completion_timeout(&c->req_done, 120 * HZ)) {
		kc_fail("no connection request in 120 s");
		return -ETIMEDOUT;
	}
	return c->handler_err ?:
	       kc_log_next(&c->passive.log, RDMA_CM_EVENT_CONNECT_REQUEST,
			   "kc-req", "request");
}

/*
 * The passive side rejects with private data: REJECTED, data intact in
 * the event and from rdma_consumer_reject_data().
 */
static int kc_reject(void)
{
	struct kc_conn *c = kc_conn_alloc();
	bool here = strcmp(role, "connect");
	int ret;

	if (!c)
		return -ENOMEM;
	c->reject = true;
	if (!strcmp(role, "listen")) {
		ret = kc_reject_listen(c);
		kc_conn_fini(c);
		return ret;
	}
	ret = (here ? kc_conn_listen(c, port) : 0) ?:
	      kc_conn_active(c, port) ?:
	      kc_connect(c) ?:
	      kc_log_next(&c->active.log, RDMA_CM_EVENT_REJECTED, "kc-rej",
			  "rejected") ?:
	      c->handler_err;
	if (!ret && !c->active.log.status[c->active.log.seen - 1]) {
		kc_fail("REJECTED with status 0");
		ret = -EPROTO;
	}
	if (!ret && rejdata &&
	    (c->rej_len < 7 || strncmp(c->rej_data, "kc-rej", 7))) {
		kc_fail("consumer reject data: %u bytes '%.6s', status %d, expected 'kc-rej'",
			c->rej_len, c->rej_len ? c->rej_data : "",
			c->active.log.status[c->active.log.seen - 1]);
		ret = -EPROTO;
	}
	kc_conn_fini(c);
	return ret;
}

/*
 * Nobody listens on the port: IB answers with a REJ (REJECTED); siw's
 * TCP connect fails at once, so rdma_connect() returns -ECONNREFUSED.
 */
static int kc_refused(void)
{
	struct kc_conn *c = kc_conn_alloc();
	int ret;

	if (!c)
		return -ENOMEM;
	ret = kc_conn_active(c, port);
	if (ret)
		goto out;
	ret = rdma_connect(c->active.log.id, &(struct rdma_conn_param){});
	if (ret == -ECONNREFUSED) {
		ret = 0;
		goto out;
	}
	ret = kc_expect("connect", ret, 0) ?:
	      kc_log_next(&c->active.log, RDMA_CM_EVENT_REJECTED, NULL,
			  "connect to a closed port");
out:
	kc_conn_fini(c);
	return ret;
}

/*
 * "qptype": a request for another QP type than the listener's is refused
 * before the listener's consumer sees it, with what ib_cm answers a
 * request handler's error with: a SIDR REP with the reject status
 * (UNREACHABLE, status 1) or a REJ, consumer defined (REJECTED, status
 * 28).  An RC listener of the TCP port space gets a SIDR REQ from a UD
 * id and a REQ from a UC id, a UD listener of the UDP port space a REQ
 * from an RC id.  (The IPoIB port space needs an IB port.)
 */
struct kc_qpt_listener {
	struct rdma_cm_id	*id;
	atomic_t		requests;
};

static int kc_qpt_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct kc_qpt_listener *l = id->context;

	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
		return 0;
	atomic_inc(&l->requests);
	kc_fail("listener of QP type %d got a request for QP type %d",
		l->id->qp_type, id->qp_type);
	return 1;	/* refuse it: rdma_cm destroys the new id */
}

static int kc_qpt_listen(struct kc_qpt_listener *l,
			 enum rdma_ucm_port_space ps, enum ib_qp_type type,
			 u16 p)
{
	struct sockaddr_in sin;
	int ret;

	atomic_set(&l->requests, 0);
	l->id = rdma_create_id(&init_net, kc_qpt_handler, l, ps, type);
	if (IS_ERR(l->id)) {
		ret = PTR_ERR(l->id);
		l->id = NULL;
		kc_fail("rdma_create_id: %d", ret);
		return ret;
	}
	return kc_sin(&sin, addr, p) ?:
	       kc_expect("bind", rdma_bind_addr(l->id, (struct sockaddr *)&sin),
			 0) ?:
	       kc_expect("listen", rdma_listen(l->id, 4), 0);
}

/* A request of @ps and @type to @p: the event and status it ends with. */
static int kc_qpt_request(enum rdma_ucm_port_space ps, enum ib_qp_type type,
			  u16 p, enum rdma_cm_event_type want, int status,
			  const char *what)
{
	struct rdma_conn_param param = { .qp_num = 0x123 };
	struct kc_id kc = {};
	struct sockaddr_in sin;
	int ret;

	init_completion(&kc.done);
	kc.id = rdma_create_id(&init_net, kc_handler, &kc, ps, type);
	if (IS_ERR(kc.id)) {
		kc_fail("%s: rdma_create_id: %ld", what, PTR_ERR(kc.id));
		return PTR_ERR(kc.id);
	}
	ret = kc_sin(&sin, addr, p) ?:
	      kc_expect(what, rdma_resolve_addr(kc.id, NULL,
						(struct sockaddr *)&sin, 5000),
			0) ?:
	      kc_wait(&kc, RDMA_CM_EVENT_ADDR_RESOLVED, what) ?:
	      kc_expect(what, rdma_resolve_route(kc.id, 5000), 0) ?:
	      kc_wait(&kc, RDMA_CM_EVENT_ROUTE_RESOLVED, what) ?:
	      kc_expect(what, rdma_connect(kc.id, &param), 0) ?:
	      kc_wait(&kc, want, what);
	if (!ret && kc.status != status) {
		kc_fail("%s: status %d, expected %d", what, kc.status, status);
		ret = -EPROTO;
	}
	kc_destroy(&kc);
	return ret;
}

static int kc_qptype(void)
{
	struct kc_qpt_listener rc = {}, ud = {};
	int ret;

	ret = kc_qpt_listen(&rc, RDMA_PS_TCP, IB_QPT_RC, port) ?:
	      kc_qpt_listen(&ud, RDMA_PS_UDP, IB_QPT_UD, port + 1) ?:
	      kc_qpt_request(RDMA_PS_TCP, IB_QPT_UD, port,
			     RDMA_CM_EVENT_UNREACHABLE, IB_SIDR_REJECT,
			     "UD id to an RC listener") ?:
	      kc_qpt_request(RDMA_PS_TCP, IB_QPT_UC, port,
			     RDMA_CM_EVENT_REJECTED, IB_CM_REJ_CONSUMER_DEFINED,
			     "UC id to an RC listener") ?:
	      kc_qpt_request(RDMA_PS_UDP, IB_QPT_RC, port + 1,
			     RDMA_CM_EVENT_REJECTED, IB_CM_REJ_CONSUMER_DEFINED,
			     "RC id to a UD listener");
	if (atomic_read(&rc.requests) || atomic_read(&ud.requests)) {
		kc_fail("listeners got requests: RC %d, UD %d",
			atomic_read(&rc.requests), atomic_read(&ud.requests));
		ret = ret ?: -EPROTO;
	}
	if (ud.id)
		rdma_destroy_id(ud.id);
	if (rc.id)
		rdma_destroy_id(rc.id);
	return ret;
}

static int __init kc_init(void)
{
	int ret;

	if (!strcmp(test, "bind"))
		ret = kc_bind();
	else if (!strcmp(test, "resolve"))
		ret = kc_resolve();
	else if (!strcmp(test, "route"))
		ret = kc_route();
	else if (!strcmp(test, "qp"))
		ret = kc_qp();
	else if (!strcmp(test, "hold"))
		ret = kc_hold();
	else if (!strcmp(test, "holdroute"))
		ret = kc_holdroute();
	else if (!strcmp(test, "holdquery"))
		ret = kc_holdquery();
	else if (!strcmp(test, "conn"))
		ret = kc_conn();
	else if (!strcmp(test, "reject"))
		ret = kc_reject();
	else if (!strcmp(test, "refused"))
		ret = kc_refused();
	else if (!strcmp(test, "holdconn"))
		ret = kc_holdconn();
	else if (!strcmp(test, "ud"))
		ret = kc_ud();
	else if (!strcmp(test, "mcast"))
		ret = kc_mcast();
	else if (!strcmp(test, "qptype"))
		ret = kc_qptype();
	else
		ret = -EINVAL;
	pr_info("rdma_cm_kclient: %s on %s: %s (%d)\n", test, addr,
		ret ? "failed" : "passed", ret);
	return ret;
}

static void __exit kc_exit(void)
{
	if (held_conn)
		kc_conn_fini(held_conn);
	kc_destroy(&held);
}

module_init(kc_init);
module_exit(kc_exit);

MODULE_AUTHOR("rdma_cm project");
MODULE_DESCRIPTION("rdma_cm kernel API selftest client");
MODULE_LICENSE("Dual BSD/GPL");
