// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Selftest client of the rdma_cm kernel API (tests/kclient.sh).
 *
 * Loading the module runs one case, named by the "test" parameter, on
 * the local address "addr" (an address of the RDMA device under test):
 * insmod succeeds when the case passed and fails with the case's error
 * otherwise; the kernel log says what went wrong.  The "hold" case keeps
 * an id bound until the module is removed and records the events it
 * gets in the "events" parameter, for device removal tests.
 *
 * It uses only the exported API, so it runs on the stock rdma_cm and on
 * ours alike.
 */
#include <linux/completion.h>
#include <linux/in.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/string.h>
#include <net/net_namespace.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm_ib.h>
#include <rdma/rdma_cm.h>

static char *test = "";
module_param(test, charp, 0444);
MODULE_PARM_DESC(test, "case to run: bind, resolve, route, qp or hold");

static char *addr = "";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "local IPv4 address of the device under test");

static ushort port = 7300;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "first port the cases use");

static bool loopback = true;
module_param(loopback, bool, 0444);
MODULE_PARM_DESC(loopback, "resolve 127.0.0.1 too (stock fails it on siw)");

static bool ud = true;
module_param(ud, bool, 0444);
MODULE_PARM_DESC(ud, "the qp case also makes a UD QP (not on siw)");

static bool qpstate = true;
module_param(qpstate, bool, 0444);
MODULE_PARM_DESC(qpstate, "the device's query_qp reports the state (not siw)");

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
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
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

static int kc_resolve(void)
{
	struct kc_id kc = {};
	struct sockaddr_in sin;
	int ret;

	ret = kc_resolve_one(addr, port);
	if (!ret && loopback)
		ret = kc_resolve_one("127.0.0.1", port + 1);
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
	else
		ret = -EINVAL;
	pr_info("rdma_cm_kclient: %s on %s: %s (%d)\n", test, addr,
		ret ? "failed" : "passed", ret);
	return ret;
}

static void __exit kc_exit(void)
{
	kc_destroy(&held);
}

module_init(kc_init);
module_exit(kc_exit);

MODULE_AUTHOR("rdma_cm project");
MODULE_DESCRIPTION("rdma_cm kernel API selftest client");
MODULE_LICENSE("Dual BSD/GPL");
