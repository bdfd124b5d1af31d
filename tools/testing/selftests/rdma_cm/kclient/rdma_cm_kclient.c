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
#include <rdma/rdma_cm.h>

static char *test = "";
module_param(test, charp, 0444);
MODULE_PARM_DESC(test, "case to run: bind, resolve or hold");

static char *addr = "";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "local IPv4 address of the device under test");

static ushort port = 7300;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "first port the cases use");

static bool loopback = true;
module_param(loopback, bool, 0444);
MODULE_PARM_DESC(loopback, "resolve 127.0.0.1 too (stock fails it on siw)");

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

/* Bind to the device's address: the id gets the device; conflicts. */
static int kc_bind(void)
{
	struct kc_id a = {}, b = {}, c = {};
	struct sockaddr_in sin;
	int ret;

	ret = kc_create(&a) ?: kc_create(&b) ?: kc_create(&c) ?:
	      kc_sin(&sin, addr, port);
	if (ret)
		goto out;
	ret = kc_expect("bind", rdma_bind_addr(a.id, (struct sockaddr *)&sin),
			0);
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

/* Resolve @dst; 0 once ADDR_RESOLVED arrived with a device. */
static int kc_resolve_one(const char *dst, u16 p)
{
	struct kc_id kc = {};
	struct sockaddr_in sin;
	int ret;

	ret = kc_create(&kc) ?: kc_sin(&sin, dst, p);
	if (ret)
		goto out;
	ret = rdma_resolve_addr(kc.id, NULL, (struct sockaddr *)&sin, 5000);
	if (ret) {
		kc_fail("resolve %s: %d", dst, ret);
		goto out;
	}
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

/* An id bound to the device, kept for device removal. */
static int kc_hold(void)
{
	struct sockaddr_in sin;
	int ret;

	ret = kc_create(&held) ?: kc_sin(&sin, addr, port);
	if (ret)
		goto err;
	ret = kc_expect("bind", rdma_bind_addr(held.id, (struct sockaddr *)&sin),
			0);
	if (ret)
		goto err;
	return 0;
err:
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
