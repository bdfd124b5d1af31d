// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit tests for rdma_cm: the exported helpers that need no connection
 * state, and the device-independent units (id states, port spaces, the
 * IP private-data header, option rules), which cma_kunit_units.c
 * compiles into this module.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/user_namespace.h>
#include <net/net_namespace.h>
#include <rdma/ib.h>
#include <rdma/ib_cm.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_cm.h>

#include "cma_priv.h"
#include "rdma_kunit_fake.h"

/* Expected names, indexed by the ABI values of enum rdma_cm_event_type. */
static const char * const cma_test_event_names[] = {
	[RDMA_CM_EVENT_ADDR_RESOLVED]	= "address resolved",
	[RDMA_CM_EVENT_ADDR_ERROR]	= "address error",
	[RDMA_CM_EVENT_ROUTE_RESOLVED]	= "route resolved",
	[RDMA_CM_EVENT_ROUTE_ERROR]	= "route error",
	[RDMA_CM_EVENT_CONNECT_REQUEST]	= "connect request",
	[RDMA_CM_EVENT_CONNECT_RESPONSE] = "connect response",
	[RDMA_CM_EVENT_CONNECT_ERROR]	= "connect error",
	[RDMA_CM_EVENT_UNREACHABLE]	= "unreachable",
	[RDMA_CM_EVENT_REJECTED]	= "rejected",
	[RDMA_CM_EVENT_ESTABLISHED]	= "established",
	[RDMA_CM_EVENT_DISCONNECTED]	= "disconnected",
	[RDMA_CM_EVENT_DEVICE_REMOVAL]	= "device removal",
	[RDMA_CM_EVENT_MULTICAST_JOIN]	= "multicast join",
	[RDMA_CM_EVENT_MULTICAST_ERROR]	= "multicast error",
	[RDMA_CM_EVENT_ADDR_CHANGE]	= "address change",
	[RDMA_CM_EVENT_TIMEWAIT_EXIT]	= "timewait exit",
};

static void cma_event_msg_known_test(struct kunit *test)
{
	int i;

	/* The event numbering is ABI: user space sees these values. */
	KUNIT_ASSERT_EQ(test, ARRAY_SIZE(cma_test_event_names), 16);
	KUNIT_ASSERT_EQ(test, RDMA_CM_EVENT_TIMEWAIT_EXIT, 15);

	for (i = 0; i < ARRAY_SIZE(cma_test_event_names); i++)
		KUNIT_EXPECT_STREQ_MSG(test, rdma_event_msg(i),
				       cma_test_event_names[i], "event %d", i);
}

static void cma_event_msg_unknown_test(struct kunit *test)
{
	static const int events[] = { 16, 17, 255, -1, INT_MIN, INT_MAX };
	int i;

	for (i = 0; i < ARRAY_SIZE(events); i++)
		KUNIT_EXPECT_STREQ_MSG(test, rdma_event_msg(events[i]),
				       "unrecognized event", "event %d",
				       events[i]);
}

static struct rdma_cm_id *cma_test_id(struct kunit *test)
{
	struct rdma_cm_id *id;

	/* struct rdma_cm_id is too large for a KASAN stack frame. */
	id = kunit_kzalloc(test, sizeof(*id), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, id);
	return id;
}

/*
 * An id bound to port 1 of a device whose port has the given capability
 * bits (a port type of ib_verbs.h, or 0 for a port no transport serves):
 * they pick the port's transport.
 */
static struct rdma_cm_id *cma_test_bound_id(struct kunit *test, u32 cap_flags)
{
	struct rdma_cm_id *id = cma_test_id(test);
	struct kfake_dev *fd;

	fd = kunit_kzalloc(test, sizeof(*fd), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fd);
	kfake_init(fd, "cma_kunit0", cap_flags);

	id->device = &fd->ibdev;
	id->port_num = 1;
	return id;
}

static void cma_service_id_test(struct kunit *test)
{
	struct rdma_cm_id *id = cma_test_id(test);
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct sockaddr_ib sib = { .sib_family = AF_IB };

	id->ps = RDMA_PS_TCP;
	sin.sin_port = htons(4791);
	KUNIT_EXPECT_EQ(test,
			be64_to_cpu(rdma_get_service_id(id,
							(struct sockaddr *)&sin)),
			RDMA_IB_IP_PS_TCP | 4791);

	sin.sin_port = 0;
	KUNIT_EXPECT_EQ(test,
			be64_to_cpu(rdma_get_service_id(id,
							(struct sockaddr *)&sin)),
			RDMA_IB_IP_PS_TCP);

	id->ps = RDMA_PS_UDP;
	sin6.sin6_port = htons(0xfffe);
	KUNIT_EXPECT_EQ(test,
			be64_to_cpu(rdma_get_service_id(id,
							(struct sockaddr *)&sin6)),
			RDMA_IB_IP_PS_UDP | 0xfffe);

	/* AF_IB carries the whole service ID; the port space is ignored. */
	sib.sib_sid = cpu_to_be64(0x123456789abcdef0ULL);
	KUNIT_EXPECT_EQ(test,
			be64_to_cpu(rdma_get_service_id(id,
							(struct sockaddr *)&sib)),
			0x123456789abcdef0ULL);
}

static void cma_reject_msg_test(struct kunit *test)
{
	struct rdma_cm_id *iwarp, *ib, *roce, *none, *unbound;

	/*
	 * rdma_reject_msg() is declared __attribute_const__, so the compiler
	 * may merge calls with equal arguments: use a distinct id for each
	 * transport rather than changing one id's device between calls.
	 */
	iwarp = cma_test_bound_id(test, RDMA_CORE_PORT_IWARP);
	ib = cma_test_bound_id(test, RDMA_CORE_PORT_IBA_IB);
	roce = cma_test_bound_id(test, RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP);
	none = cma_test_bound_id(test, 0);
	unbound = cma_test_id(test);

	KUNIT_EXPECT_STREQ(test, rdma_reject_msg(iwarp, -ECONNREFUSED),
			   "refused by remote application");
	KUNIT_EXPECT_STREQ(test, rdma_reject_msg(iwarp, -ETIMEDOUT),
			   "setup timeout");

	KUNIT_EXPECT_STREQ(test,
			   rdma_reject_msg(ib, IB_CM_REJ_CONSUMER_DEFINED),
			   "consumer defined");
	KUNIT_EXPECT_STREQ(test, rdma_reject_msg(ib, IB_CM_REJ_TIMEOUT),
			   ibcm_reject_msg(IB_CM_REJ_TIMEOUT));

	/* RoCE rejects are IB CM reasons, not errnos. */
	KUNIT_EXPECT_STREQ(test,
			   rdma_reject_msg(roce, IB_CM_REJ_CONSUMER_DEFINED),
			   "consumer defined");
	KUNIT_EXPECT_STREQ(test, rdma_reject_msg(roce, -ECONNREFUSED),
			   ibcm_reject_msg(-ECONNREFUSED));

	KUNIT_EXPECT_STREQ(test, rdma_reject_msg(none, -ECONNREFUSED),
			   "unrecognized transport");
	KUNIT_EXPECT_STREQ(test, rdma_reject_msg(unbound, -ECONNREFUSED),
			   "unrecognized transport");
}

static void cma_consumer_reject_data_test(struct kunit *test)
{
	static const u8 pdata[] = { 0xde, 0xad, 0xbe, 0xef };
	struct rdma_cm_id *roce, *iwarp;
	struct rdma_cm_event *ev;
	u8 len;

	roce = cma_test_bound_id(test, RDMA_CORE_PORT_IBA_ROCE);
	iwarp = cma_test_bound_id(test, RDMA_CORE_PORT_IWARP);
	ev = kunit_kzalloc(test, sizeof(*ev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ev);
	ev->event = RDMA_CM_EVENT_REJECTED;
	ev->param.conn.private_data = pdata;
	ev->param.conn.private_data_len = sizeof(pdata);

	ev->status = IB_CM_REJ_CONSUMER_DEFINED;
	len = 0;
	KUNIT_EXPECT_PTR_EQ(test, rdma_consumer_reject_data(roce, ev, &len),
			    (const void *)pdata);
	KUNIT_EXPECT_EQ(test, len, sizeof(pdata));

	/* Only a consumer-defined reject carries the peer's data. */
	ev->status = IB_CM_REJ_TIMEOUT;
	len = 0xff;
	KUNIT_EXPECT_NULL(test, rdma_consumer_reject_data(roce, ev, &len));
	KUNIT_EXPECT_EQ(test, len, 0);

	/* iWARP status is an errno; 28 is not IB_CM_REJ_CONSUMER_DEFINED. */
	ev->status = IB_CM_REJ_CONSUMER_DEFINED;
	len = 0xff;
	KUNIT_EXPECT_NULL(test, rdma_consumer_reject_data(iwarp, ev, &len));
	KUNIT_EXPECT_EQ(test, len, 0);

	/* An MPA reject: -ECONNREFUSED, or -ECONNRESET with data (siw). */
	ev->status = -ECONNREFUSED;
	len = 0;
	KUNIT_EXPECT_PTR_EQ(test, rdma_consumer_reject_data(iwarp, ev, &len),
			    (const void *)pdata);
	KUNIT_EXPECT_EQ(test, len, sizeof(pdata));
	ev->status = -ECONNRESET;
	len = 0;
	KUNIT_EXPECT_PTR_EQ(test, rdma_consumer_reject_data(iwarp, ev, &len),
			    (const void *)pdata);
	KUNIT_EXPECT_EQ(test, len, sizeof(pdata));

	/* A reset with no MPA reply, and a timeout, are no reject. */
	ev->param.conn.private_data = NULL;
	ev->param.conn.private_data_len = 0;
	len = 0xff;
	KUNIT_EXPECT_NULL(test, rdma_consumer_reject_data(iwarp, ev, &len));
	KUNIT_EXPECT_EQ(test, len, 0);
	ev->param.conn.private_data = pdata;
	ev->param.conn.private_data_len = sizeof(pdata);
	ev->status = -ETIMEDOUT;
	len = 0xff;
	KUNIT_EXPECT_NULL(test, rdma_consumer_reject_data(iwarp, ev, &len));
	KUNIT_EXPECT_EQ(test, len, 0);
}

static void cma_read_gids_test(struct kunit *test)
{
	struct rdma_cm_id *unbound, *roce, *ib;
	struct sockaddr_in6 *dst;
	struct sockaddr_in *src;
	struct rdma_dev_addr *dev_addr;
	union ib_gid sgid, dgid, want;

	/* No device: both GIDs are cleared. */
	unbound = cma_test_id(test);
	memset(&sgid, 0xff, sizeof(sgid));
	memset(&dgid, 0xff, sizeof(dgid));
	rdma_read_gids(unbound, &sgid, &dgid);
	memset(&want, 0, sizeof(want));
	KUNIT_EXPECT_EQ(test, memcmp(&sgid, &want, sizeof(want)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&dgid, &want, sizeof(want)), 0);

	/* RoCE: the GIDs are the IP addresses, IPv4 ones v4-mapped. */
	roce = cma_test_bound_id(test, RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP);
	src = (struct sockaddr_in *)&roce->route.addr.src_addr;
	dst = (struct sockaddr_in6 *)&roce->route.addr.dst_addr;
	src->sin_family = AF_INET;
	src->sin_addr.s_addr = htonl(0xc0000201);
	dst->sin6_family = AF_INET6;
	dst->sin6_addr.s6_addr32[0] = htonl(0x20010db8);
	dst->sin6_addr.s6_addr32[3] = htonl(1);
	rdma_read_gids(roce, &sgid, &dgid);
	ipv6_addr_set_v4mapped(htonl(0xc0000201), (struct in6_addr *)&want);
	KUNIT_EXPECT_EQ(test, memcmp(&sgid, &want, sizeof(want)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&dgid, &dst->sin6_addr, sizeof(dgid)), 0);

	/*
	 * IB: the GIDs come from the resolved hardware addresses, even with
	 * an IP source address present.
	 */
	ib = cma_test_bound_id(test, RDMA_CORE_PORT_IBA_IB);
	src = (struct sockaddr_in *)&ib->route.addr.src_addr;
	src->sin_family = AF_INET;
	src->sin_addr.s_addr = htonl(0xc0000201);
	dev_addr = &ib->route.addr.dev_addr;
	dev_addr->dev_type = ARPHRD_INFINIBAND;
	want.global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	want.global.interface_id = cpu_to_be64(0x0002c90300001234ULL);
	rdma_addr_set_sgid(dev_addr, &want);
	want.global.interface_id = cpu_to_be64(0x0002c90300005678ULL);
	rdma_addr_set_dgid(dev_addr, &want);
	rdma_read_gids(ib, &sgid, NULL);
	rdma_read_gids(ib, NULL, &dgid);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sgid.global.subnet_prefix),
			0xfe80000000000000ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sgid.global.interface_id),
			0x0002c90300001234ULL);
	KUNIT_EXPECT_EQ(test, memcmp(&dgid, &want, sizeof(want)), 0);
}

/* The MGIDs of IB joins: IPoIB's mapping, which all members share. */
static void cma_ib_mgid_test(struct kunit *test)
{
	/* IPoIB broadcast address: scope 2 (link), P_Key 0xffff. */
	static const unsigned char bcast[20] = {
		0x00, 0xff, 0xff, 0xff, 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
	};
	static const u8 v4[16] = {
		0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0,
		0x0f, 0x01, 0x01, 0x01,
	};
	static const u8 v6[16] = {
		0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0,
		0x01, 0x02, 0x03, 0x04,
	};
	struct sockaddr_storage ss = {};
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_ib *sib = (struct sockaddr_ib *)&ss;
	union ib_gid mgid, want;

	/* 239.1.1.1: the low 28 bits behind ff12:401b:ffff. */
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(0xef010101);
	cma_ib_mgid((struct sockaddr *)sin, bcast, false, &mgid);
	KUNIT_EXPECT_EQ(test, memcmp(mgid.raw, v4, 16), 0);
	/* The UDP port space: rdma_cm's signature 0x01 for 0x1b. */
	cma_ib_mgid((struct sockaddr *)sin, bcast, true, &mgid);
	memcpy(want.raw, v4, 16);
	want.raw[3] = 0x01;
	KUNIT_EXPECT_EQ(test, memcmp(&mgid, &want, 16), 0);

	/* ff15::102:304: the low 80 bits behind ff12:601b:ffff. */
	memset(&ss, 0, sizeof(ss));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_addr.s6_addr32[0] = htonl(0xff150000);
	sin6->sin6_addr.s6_addr32[3] = htonl(0x01020304);
	cma_ib_mgid((struct sockaddr *)sin6, bcast, false, &mgid);
	KUNIT_EXPECT_EQ(test, memcmp(mgid.raw, v6, 16), 0);

	/* An SA-assigned MGID (ff1x:a01b::) is used as it is. */
	sin6->sin6_addr.s6_addr32[0] = htonl(0xff12a01b);
	cma_ib_mgid((struct sockaddr *)sin6, bcast, true, &mgid);
	KUNIT_EXPECT_EQ(test, memcmp(&mgid, &sin6->sin6_addr, 16), 0);

	/* The wildcard: the zero MGID, for the SA to assign one. */
	memset(&ss, 0, sizeof(ss));
	sin->sin_family = AF_INET;
	memset(&mgid, 0xaa, sizeof(mgid));
	cma_ib_mgid((struct sockaddr *)sin, bcast, true, &mgid);
	memset(&want, 0, sizeof(want));
	KUNIT_EXPECT_EQ(test, memcmp(&mgid, &want, 16), 0);

	/* AF_IB: the address is the MGID. */
	sib->sib_family = AF_IB;
	sib->sib_addr.sib_addr64[0] = cpu_to_be64(0xff12601b12345678ULL);
	sib->sib_addr.sib_addr64[1] = cpu_to_be64(1);
	cma_ib_mgid((struct sockaddr *)sib, bcast, false, &mgid);
	KUNIT_EXPECT_EQ(test, memcmp(&mgid, &sib->sib_addr, 16), 0);
}

static struct kunit_case cma_helper_cases[] = {
	KUNIT_CASE(cma_event_msg_known_test),
	KUNIT_CASE(cma_event_msg_unknown_test),
	KUNIT_CASE(cma_service_id_test),
	KUNIT_CASE(cma_reject_msg_test),
	KUNIT_CASE(cma_consumer_reject_data_test),
	KUNIT_CASE(cma_read_gids_test),
	KUNIT_CASE(cma_ib_mgid_test),
	{}
};

static struct kunit_suite cma_helper_suite = {
	.name = "rdma_cm_helpers",
	.test_cases = cma_helper_cases,
};

/* --- id states ---------------------------------------------------------- */

static struct rdma_id_private *cma_test_priv(struct kunit *test)
{
	struct rdma_id_private *id_priv;

	id_priv = kunit_kzalloc(test, sizeof(*id_priv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, id_priv);
	spin_lock_init(&id_priv->lock);
	mutex_init(&id_priv->handler_mutex);
	mutex_init(&id_priv->qp_mutex);
	cma_state_init(id_priv, RDMA_CM_IDLE);
	return id_priv;
}

static void cma_state_numbering_test(struct kunit *test)
{
	static const char * const names[] = {
		"IDLE", "ADDR_QUERY", "ADDR_RESOLVED", "ROUTE_QUERY",
		"ROUTE_RESOLVED", "CONNECT", "DISCONNECT", "ADDR_BOUND",
		"LISTEN", "DEVICE_REMOVAL", "DESTROYING",
	};
	int i;

	/* nldev reports these numbers; iproute2 names them in this order. */
	KUNIT_EXPECT_EQ(test, RDMA_CM_IDLE, 0);
	KUNIT_EXPECT_EQ(test, RDMA_CM_CONNECT, 5);
	KUNIT_EXPECT_EQ(test, RDMA_CM_ADDR_BOUND, 7);
	KUNIT_EXPECT_EQ(test, RDMA_CM_DESTROYING, 10);
	KUNIT_ASSERT_EQ(test, ARRAY_SIZE(names), RDMA_CM_NR_STATES);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		KUNIT_EXPECT_STREQ(test, cma_state_name(i), names[i]);
	KUNIT_EXPECT_STREQ(test, cma_state_name(RDMA_CM_NR_STATES), "UNKNOWN");
	KUNIT_EXPECT_STREQ(test, cma_state_name(-1), "UNKNOWN");
}

/* Out-of-tree build glue: the 6.1 layout pin of cma_priv.h. */
static void cma_state_layout_test(struct kunit *test)
{
	/* Locals: the offset formulas are too long for KUnit's messages. */
	size_t stock_state = CMA_STOCK_STATE_OFFSET;
	size_t stock_qp_num = CMA_STOCK_QP_NUM_OFFSET;
	size_t stock_res = CMA_STOCK_RES_OFFSET;

	/* What restrack and nldev of this kernel read, relative to res. */
	KUNIT_EXPECT_EQ(test, offsetof(struct rdma_id_private, id), 0);
	KUNIT_EXPECT_EQ(test, offsetof(struct rdma_id_private, state),
			stock_state);
	KUNIT_EXPECT_EQ(test, offsetof(struct rdma_id_private, qp_num),
			stock_qp_num);
	KUNIT_EXPECT_EQ(test, offsetof(struct rdma_id_private, res),
			stock_res);
	if (CMA_STOCK_LAYOUT_PRODUCTION) {
		KUNIT_EXPECT_EQ(test, stock_state, 604);
		KUNIT_EXPECT_EQ(test, stock_qp_num, 760);
		KUNIT_EXPECT_EQ(test, stock_res, 784);
	}
}

static void cma_state_table_test(struct kunit *test)
{
	static const struct {
		enum rdma_cm_state from, to;
		bool legal;
	} cases[] = {
		{ RDMA_CM_IDLE, RDMA_CM_ADDR_BOUND, true },
		{ RDMA_CM_IDLE, RDMA_CM_ADDR_QUERY, false },
		{ RDMA_CM_IDLE, RDMA_CM_CONNECT, false },
		{ RDMA_CM_IDLE, RDMA_CM_LISTEN, false },
		{ RDMA_CM_ADDR_BOUND, RDMA_CM_ADDR_QUERY, true },
		{ RDMA_CM_ADDR_BOUND, RDMA_CM_LISTEN, true },
		{ RDMA_CM_ADDR_BOUND, RDMA_CM_IDLE, true },
		{ RDMA_CM_ADDR_BOUND, RDMA_CM_CONNECT, false },
		{ RDMA_CM_ADDR_QUERY, RDMA_CM_ADDR_RESOLVED, true },
		{ RDMA_CM_ADDR_QUERY, RDMA_CM_ADDR_BOUND, true },
		{ RDMA_CM_ADDR_QUERY, RDMA_CM_ROUTE_QUERY, false },
		{ RDMA_CM_ADDR_RESOLVED, RDMA_CM_ROUTE_QUERY, true },
		{ RDMA_CM_ADDR_RESOLVED, RDMA_CM_ROUTE_RESOLVED, true },
		{ RDMA_CM_ADDR_RESOLVED, RDMA_CM_ADDR_BOUND, true },
		{ RDMA_CM_ADDR_RESOLVED, RDMA_CM_ADDR_QUERY, false },
		{ RDMA_CM_ADDR_RESOLVED, RDMA_CM_CONNECT, false },
		{ RDMA_CM_ROUTE_QUERY, RDMA_CM_ROUTE_RESOLVED, true },
		{ RDMA_CM_ROUTE_QUERY, RDMA_CM_ADDR_RESOLVED, true },
		{ RDMA_CM_ROUTE_RESOLVED, RDMA_CM_CONNECT, true },
		{ RDMA_CM_ROUTE_RESOLVED, RDMA_CM_ADDR_RESOLVED, true },
		{ RDMA_CM_ROUTE_RESOLVED, RDMA_CM_LISTEN, false },
		{ RDMA_CM_CONNECT, RDMA_CM_DISCONNECT, true },
		{ RDMA_CM_CONNECT, RDMA_CM_ROUTE_RESOLVED, true },
		{ RDMA_CM_CONNECT, RDMA_CM_IDLE, false },
		{ RDMA_CM_DISCONNECT, RDMA_CM_CONNECT, false },
		{ RDMA_CM_LISTEN, RDMA_CM_ADDR_BOUND, true },
		{ RDMA_CM_LISTEN, RDMA_CM_CONNECT, false },
		{ RDMA_CM_DEVICE_REMOVAL, RDMA_CM_DESTROYING, true },
		{ RDMA_CM_DEVICE_REMOVAL, RDMA_CM_IDLE, false },
		{ RDMA_CM_DESTROYING, RDMA_CM_DEVICE_REMOVAL, false },
	};
	int from, i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    cma_state_legal(cases[i].from, cases[i].to),
				    cases[i].legal, "%s -> %s",
				    cma_state_name(cases[i].from),
				    cma_state_name(cases[i].to));

	for (from = 0; from < RDMA_CM_NR_STATES; from++) {
		/* No state moves to itself; teardown is reachable. */
		KUNIT_EXPECT_FALSE(test, cma_state_legal(from, from));
		KUNIT_EXPECT_EQ(test,
				cma_state_legal(from, RDMA_CM_DESTROYING),
				from != RDMA_CM_DESTROYING);
		/* Nothing leaves DESTROYING. */
		KUNIT_EXPECT_FALSE(test,
				   cma_state_legal(RDMA_CM_DESTROYING, from));
		/* Out of range states are never legal. */
		KUNIT_EXPECT_FALSE(test,
				   cma_state_legal(from, RDMA_CM_NR_STATES));
		KUNIT_EXPECT_FALSE(test, cma_state_legal(-1, from));
	}
}

static void cma_state_active_path_test(struct kunit *test)
{
	static const enum rdma_cm_state path[] = {
		RDMA_CM_IDLE, RDMA_CM_ADDR_BOUND, RDMA_CM_ADDR_QUERY,
		RDMA_CM_ADDR_RESOLVED, RDMA_CM_ROUTE_QUERY,
		RDMA_CM_ROUTE_RESOLVED, RDMA_CM_CONNECT, RDMA_CM_DISCONNECT,
	};
	struct rdma_id_private *id_priv = cma_test_priv(test);
	int i;

	mutex_lock(&id_priv->handler_mutex);
	for (i = 1; i < ARRAY_SIZE(path); i++) {
		KUNIT_EXPECT_EQ(test, cma_comp_exch(id_priv, path[i - 1],
						    path[i]), 0);
		KUNIT_EXPECT_EQ(test, READ_ONCE(id_priv->state), path[i]);
	}
	mutex_unlock(&id_priv->handler_mutex);
}

static void cma_state_mismatch_test(struct kunit *test)
{
	struct rdma_id_private *id_priv = cma_test_priv(test);

	KUNIT_EXPECT_EQ(test, cma_comp_exch(id_priv, RDMA_CM_IDLE,
					    RDMA_CM_ADDR_BOUND), 0);
	/* A second bind loses: the id is no longer IDLE. */
	KUNIT_EXPECT_EQ(test, cma_comp_exch(id_priv, RDMA_CM_IDLE,
					    RDMA_CM_ADDR_BOUND), -EINVAL);
	KUNIT_EXPECT_EQ(test, cma_comp_exch(id_priv, RDMA_CM_ADDR_QUERY,
					    RDMA_CM_ADDR_RESOLVED), -EINVAL);
	KUNIT_EXPECT_EQ(test, id_priv->state, RDMA_CM_ADDR_BOUND);

	/* A failed listen goes back. */
	KUNIT_EXPECT_EQ(test, cma_comp_exch(id_priv, RDMA_CM_ADDR_BOUND,
					    RDMA_CM_LISTEN), 0);
	KUNIT_EXPECT_EQ(test, cma_comp_exch(id_priv, RDMA_CM_LISTEN,
					    RDMA_CM_ADDR_BOUND), 0);
	KUNIT_EXPECT_EQ(test, id_priv->state, RDMA_CM_ADDR_BOUND);
}

static void cma_state_teardown_test(struct kunit *test)
{
	struct rdma_id_private *id_priv = cma_test_priv(test);

	mutex_lock(&id_priv->handler_mutex);
	KUNIT_EXPECT_EQ(test, cma_comp_exch(id_priv, RDMA_CM_IDLE,
					    RDMA_CM_ADDR_BOUND), 0);
	KUNIT_EXPECT_EQ(test, cma_comp_exch(id_priv, RDMA_CM_ADDR_BOUND,
					    RDMA_CM_LISTEN), 0);

	/* The first to start teardown sees the state to cancel. */
	KUNIT_EXPECT_EQ(test, cma_exch(id_priv, RDMA_CM_DEVICE_REMOVAL),
			RDMA_CM_LISTEN);
	KUNIT_EXPECT_EQ(test, cma_exch(id_priv, RDMA_CM_DEVICE_REMOVAL),
			RDMA_CM_DEVICE_REMOVAL);
	KUNIT_EXPECT_EQ(test, id_priv->state, RDMA_CM_DEVICE_REMOVAL);
	KUNIT_EXPECT_EQ(test, cma_exch(id_priv, RDMA_CM_DESTROYING),
			RDMA_CM_DEVICE_REMOVAL);
	KUNIT_EXPECT_EQ(test, cma_exch(id_priv, RDMA_CM_DESTROYING),
			RDMA_CM_DESTROYING);
	/* Removal after destroy started changes nothing. */
	KUNIT_EXPECT_EQ(test, cma_exch(id_priv, RDMA_CM_DEVICE_REMOVAL),
			RDMA_CM_DESTROYING);
	KUNIT_EXPECT_EQ(test, id_priv->state, RDMA_CM_DESTROYING);
	mutex_unlock(&id_priv->handler_mutex);
}

static void cma_state_transport_test(struct kunit *test)
{
	static const struct cma_transport_ops a = { .name = "a" };
	static const struct cma_transport_ops b = { .name = "b" };
	struct rdma_id_private *id_priv = cma_test_priv(test);

	KUNIT_EXPECT_NULL(test, id_priv->xprt);
	KUNIT_EXPECT_EQ(test, cma_set_transport(id_priv, &a), 0);
	KUNIT_EXPECT_EQ(test, cma_set_transport(id_priv, &a), 0);
	KUNIT_EXPECT_EQ(test, cma_set_transport(id_priv, &b), -EBUSY);
	KUNIT_EXPECT_PTR_EQ(test, id_priv->xprt, &a);
}

static struct kunit_case cma_state_cases[] = {
	KUNIT_CASE(cma_state_numbering_test),
	KUNIT_CASE(cma_state_layout_test),
	KUNIT_CASE(cma_state_table_test),
	KUNIT_CASE(cma_state_active_path_test),
	KUNIT_CASE(cma_state_mismatch_test),
	KUNIT_CASE(cma_state_teardown_test),
	KUNIT_CASE(cma_state_transport_test),
	{}
};

static struct kunit_suite cma_state_suite = {
	.name = "rdma_cm_state",
	.test_cases = cma_state_cases,
};

/* --- port spaces -------------------------------------------------------- */

static void cma_test_sin(struct sockaddr_storage *ss, u32 addr, u16 port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(addr);
	sin->sin_port = htons(port);
}

/* An IPv6 address whose last 32 bits are @low (0 for the wildcard). */
static void cma_test_sin6(struct sockaddr_storage *ss, u32 low, u16 port)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	sin6->sin6_family = AF_INET6;
	if (low) {
		sin6->sin6_addr.s6_addr32[0] = htonl(0x20010db8);
		sin6->sin6_addr.s6_addr32[3] = htonl(low);
	}
	sin6->sin6_port = htons(port);
}

/* The addresses the conflict cases use. */
enum {
	V4_ANY, V4_A, V4_B, V4_LOOP, V6_ANY, V6_A, V6_B,
};

static void cma_test_addr(struct sockaddr_storage *ss, int which)
{
	switch (which) {
	case V4_ANY:
		cma_test_sin(ss, 0, 0);
		break;
	case V4_A:
		cma_test_sin(ss, 0xc0000201, 0);
		break;
	case V4_B:
		cma_test_sin(ss, 0xc0000202, 0);
		break;
	case V4_LOOP:
		cma_test_sin(ss, 0x7f000001, 0);
		break;
	case V6_ANY:
		cma_test_sin6(ss, 0, 0);
		break;
	case V6_A:
		cma_test_sin6(ss, 1, 0);
		break;
	default:
		cma_test_sin6(ss, 2, 0);
		break;
	}
}

static void cma_port_check_bind_test(struct kunit *test)
{
	static const struct {
		int want, cur;
		bool want_reuse, cur_reuse, want_afonly, cur_afonly;
		int ret;
	} cases[] = {
		/* equal specific addresses collide */
		{ V4_A, V4_A, false, false, true, true, -EADDRINUSE },
		{ V6_A, V6_A, false, false, false, false, -EADDRINUSE },
		/* distinct specific addresses share */
		{ V4_A, V4_B, false, false, true, true, 0 },
		{ V6_A, V6_B, false, false, false, false, 0 },
		/* a wildcard overlaps any address, on either side */
		{ V4_ANY, V4_A, false, false, true, true, -EADDRNOTAVAIL },
		{ V4_A, V4_ANY, false, false, true, true, -EADDRNOTAVAIL },
		{ V4_ANY, V4_ANY, false, false, true, true, -EADDRNOTAVAIL },
		/* loopback counts as a wildcard */
		{ V4_LOOP, V4_A, false, false, true, true, -EADDRNOTAVAIL },
		/* reuseaddr on both sides shares anything */
		{ V4_A, V4_A, true, true, true, true, 0 },
		{ V4_ANY, V4_A, true, true, true, true, 0 },
		/* ... but not on one side only */
		{ V4_A, V4_A, true, false, true, true, -EADDRINUSE },
		{ V4_A, V4_A, false, true, true, true, -EADDRINUSE },
		/* a dual-stack IPv6 wildcard covers IPv4 */
		{ V6_ANY, V4_A, false, false, false, true, -EADDRNOTAVAIL },
		{ V4_ANY, V6_ANY, false, false, true, false, -EADDRNOTAVAIL },
		/* two afonly ids of different families never meet */
		{ V6_ANY, V4_A, false, false, true, true, 0 },
		{ V4_ANY, V6_ANY, false, false, true, true, 0 },
		/* afonly on one side only does not separate them */
		{ V6_ANY, V4_ANY, false, false, true, false, -EADDRNOTAVAIL },
		/* different families, both specific: distinct addresses */
		{ V6_A, V4_A, false, false, false, true, 0 },
	};
	struct sockaddr_storage want_ss, cur_ss;
	struct cma_port_claim want, cur;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		cma_test_addr(&want_ss, cases[i].want);
		cma_test_addr(&cur_ss, cases[i].cur);
		want = (struct cma_port_claim) {
			.src = (struct sockaddr *)&want_ss,
			.reuseaddr = cases[i].want_reuse,
			.afonly = cases[i].want_afonly,
		};
		cur = (struct cma_port_claim) {
			.src = (struct sockaddr *)&cur_ss,
			.reuseaddr = cases[i].cur_reuse,
			.afonly = cases[i].cur_afonly,
		};
		KUNIT_EXPECT_EQ_MSG(test, cma_port_check_bind(&want, &cur),
				    cases[i].ret, "case %d", i);
	}
}

static void cma_port_check_unique_test(struct kunit *test)
{
	struct sockaddr_storage src, dst, cur_src, cur_dst;
	struct cma_port_claim want = {
		.src = (struct sockaddr *)&src,
		.dst = (struct sockaddr *)&dst,
	};
	struct cma_port_claim cur = {
		.src = (struct sockaddr *)&cur_src,
		.dst = (struct sockaddr *)&cur_dst,
	};

	/* The same four-tuple is not unique. */
	cma_test_sin(&src, 0x0a000001, 0);
	cma_test_sin(&dst, 0x0a000002, 5000);
	cma_test_sin(&cur_src, 0x0a000001, 0);
	cma_test_sin(&cur_dst, 0x0a000002, 5000);
	KUNIT_EXPECT_EQ(test, cma_port_check_unique(&want, &cur),
			-EADDRNOTAVAIL);

	/* Another destination port, source or destination address is. */
	cma_test_sin(&cur_dst, 0x0a000002, 5001);
	KUNIT_EXPECT_EQ(test, cma_port_check_unique(&want, &cur), 0);
	cma_test_sin(&cur_dst, 0x0a000003, 5000);
	KUNIT_EXPECT_EQ(test, cma_port_check_unique(&want, &cur), 0);
	cma_test_sin(&cur_dst, 0x0a000002, 5000);
	cma_test_sin(&cur_src, 0x0a000009, 0);
	KUNIT_EXPECT_EQ(test, cma_port_check_unique(&want, &cur), 0);

	/* A wildcard on either side matches any address or port. */
	cma_test_sin(&cur_src, 0, 0);
	KUNIT_EXPECT_EQ(test, cma_port_check_unique(&want, &cur),
			-EADDRNOTAVAIL);
	cma_test_sin(&cur_src, 0x0a000001, 0);
	cma_test_sin(&cur_dst, 0, 0);
	KUNIT_EXPECT_EQ(test, cma_port_check_unique(&want, &cur),
			-EADDRNOTAVAIL);

	/*
	 * So does a destination not set yet, on either side: two ids bound
	 * to one address, neither resolved, would share a port and later
	 * connect to one peer from it (cmtime -b failed EADDRNOTAVAIL).
	 */
	memset(&cur_dst, 0, sizeof(cur_dst));
	KUNIT_EXPECT_EQ(test, cma_port_check_unique(&want, &cur),
			-EADDRNOTAVAIL);
	memset(&dst, 0, sizeof(dst));
	cma_test_sin(&cur_dst, 0x0a000002, 5000);
	KUNIT_EXPECT_EQ(test, cma_port_check_unique(&want, &cur),
			-EADDRNOTAVAIL);
	memset(&cur_dst, 0, sizeof(cur_dst));
	KUNIT_EXPECT_EQ(test, cma_port_check_unique(&want, &cur),
			-EADDRNOTAVAIL);
}

/*
 * A network namespace as the port spaces see it: an ephemeral range, a
 * reserved-ports bitmap and the privileged limit.  A real namespace
 * would need CLONE_NEWNET, and init_net's settings belong to the system.
 */
static struct net *cma_test_net(struct kunit *test, int low, int high)
{
	struct net *net;

	net = kunit_kzalloc(test, sizeof(*net), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, net);
	seqlock_init(&net->ipv4.ip_local_ports.lock);
	net->ipv4.ip_local_ports.range[0] = low;
	net->ipv4.ip_local_ports.range[1] = high;
#ifdef CONFIG_SYSCTL
	net->ipv4.sysctl_local_reserved_ports =
		kunit_kzalloc(test, BITS_TO_LONGS(65536) * sizeof(long),
			      GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test,
				     net->ipv4.sysctl_local_reserved_ports);
	net->ipv4.sysctl_ip_prot_sock = 1024;
#endif
	net->user_ns = &init_user_ns;
	return net;
}

static struct cma_ps_table *cma_test_table(struct kunit *test,
					   struct net *net)
{
	struct cma_ps_table *table;

	table = kunit_kzalloc(test, sizeof(*table), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, table);
	cma_ps_table_init(table, net);
	return table;
}

static void cma_test_table_done(struct kunit *test, struct cma_ps_table *table,
				struct rdma_id_private **ids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		cma_ps_put_port(table, ids[i]);
	KUNIT_EXPECT_EQ(test, table->nr_ports, 0);
	cma_ps_table_destroy(table);
}

/* An id with the given source and destination and options. */
static struct rdma_id_private *
cma_test_bind_id(struct kunit *test, const struct sockaddr_storage *src,
		 const struct sockaddr_storage *dst, bool reuse, bool afonly)
{
	struct rdma_id_private *id_priv = cma_test_priv(test);

	id_priv->id.ps = RDMA_PS_TCP;
	memcpy(cma_src_addr(id_priv), src, sizeof(*src));
	if (dst)
		memcpy(cma_dst_addr(id_priv), dst, sizeof(*dst));
	else
		cma_dst_addr(id_priv)->sa_family = src->ss_family;
	id_priv->reuseaddr = reuse;
	id_priv->afonly = afonly;
	return id_priv;
}

static void cma_ps_bind_test(struct kunit *test)
{
	struct net *net = cma_test_net(test, 32768, 60999);
	struct cma_ps_table *table = cma_test_table(test, net);
	struct rdma_id_private *ids[6];
	struct sockaddr_storage ss;

	/* 192.0.2.1:4791 */
	cma_test_sin(&ss, 0xc0000201, 4791);
	ids[0] = cma_test_bind_id(test, &ss, NULL, false, true);
	KUNIT_EXPECT_EQ(test, cma_ps_get_port(table, RDMA_PS_TCP, ids[0]), 0);
	KUNIT_EXPECT_EQ(test, ids[0]->bound_ps, RDMA_PS_TCP);
	KUNIT_EXPECT_NOT_NULL(test, ids[0]->bind_list);

	/* The same address and port: in use; any address: overlaps. */
	ids[1] = cma_test_bind_id(test, &ss, NULL, false, true);
	KUNIT_EXPECT_EQ(test, cma_ps_get_port(table, RDMA_PS_TCP, ids[1]),
			-EADDRINUSE);
	KUNIT_EXPECT_NULL(test, ids[1]->bind_list);
	cma_test_sin(&ss, 0, 4791);
	ids[2] = cma_test_bind_id(test, &ss, NULL, false, true);
	KUNIT_EXPECT_EQ(test, cma_ps_get_port(table, RDMA_PS_TCP, ids[2]),
			-EADDRNOTAVAIL);

	/* The same port in another port space is another port. */
	KUNIT_EXPECT_EQ(test, cma_ps_get_port(table, RDMA_PS_UDP, ids[2]), 0);
	KUNIT_EXPECT_EQ(test, ids[2]->bound_ps, RDMA_PS_UDP);

	/* Another address on the same port shares it. */
	cma_test_sin(&ss, 0xc0000202, 4791);
	ids[3] = cma_test_bind_id(test, &ss, NULL, false, true);
	KUNIT_EXPECT_EQ(test, cma_ps_get_port(table, RDMA_PS_TCP, ids[3]), 0);
	KUNIT_EXPECT_PTR_EQ(test, ids[3]->bind_list, ids[0]->bind_list);

	/* An afonly IPv6 wildcard does not meet the IPv4 holders. */
	cma_test_sin6(&ss, 0, 4791);
	ids[4] = cma_test_bind_id(test, &ss, NULL, false, true);
	KUNIT_EXPECT_EQ(test, cma_ps_get_port(table, RDMA_PS_TCP, ids[4]), 0);
	/* A dual-stack one does. */
	ids[5] = cma_test_bind_id(test, &ss, NULL, false, false);
	KUNIT_EXPECT_EQ(test, cma_ps_get_port(table, RDMA_PS_TCP, ids[5]),
			-EADDRNOTAVAIL);

	/* No port space, no port. */
	KUNIT_EXPECT_EQ(test, cma_ps_get_port(table, 0x7777, ids[5]),
			-EPROTONOSUPPORT);

	/* Releasing the last holder frees the port; UDP 4791 stays. */
	KUNIT_EXPECT_EQ(test, table->nr_ports, 2);
	cma_ps_put_port(table, ids[0]);
	cma_ps_put_port(table, ids[3]);
	KUNIT_EXPECT_EQ(test, table->nr_ports, 2);
	cma_ps_put_port(table, ids[4]);
	KUNIT_EXPECT_EQ(test, table->nr_ports, 1);
	KUNIT_EXPECT_EQ(test, cma_ps_get_port(table, RDMA_PS_TCP, ids[1]), 0);
	cma_test_table_done(test, table, ids, ARRAY_SIZE(ids));
}

static void cma_ps_reuseaddr_test(struct kunit *test)
{
	struct net *net = cma_test_net(test, 32768, 60999);
	struct cma_ps_table *table = cma_test_table(test, net);
	struct rdma_id_private *ids[3];
	struct sockaddr_storage ss;

	cma_test_sin(&ss, 0xc0000201, 20049);
	ids[0] = cma_test_bind_id(test, &ss, NULL, true, true);
	ids[1] = cma_test_bind_id(test, &ss, NULL, true, true);
	ids[2] = cma_test_bind_id(test, &ss, NULL, false, true);
	KUNIT_EXPECT_EQ(test, cma_ps_get_port(table, RDMA_PS_TCP, ids[0]), 0);
	KUNIT_EXPECT_EQ(test, cma_ps_get_port(table, RDMA_PS_TCP, ids[1]), 0);
	KUNIT_EXPECT_EQ(test, cma_ps_get_port(table, RDMA_PS_TCP, ids[2]),
			-EADDRINUSE);

	/* A listener needs the port to itself, without reuseaddr. */
	KUNIT_EXPECT_EQ(test, cma_ps_listen_check(table, ids[0]), -EADDRINUSE);
	KUNIT_EXPECT_TRUE(test, ids[0]->reuseaddr);
	cma_ps_put_port(table, ids[1]);
	KUNIT_EXPECT_EQ(test, cma_ps_listen_check(table, ids[0]), 0);
	KUNIT_EXPECT_FALSE(test, ids[0]->reuseaddr);

	/* Now even a reuseaddr id cannot join the listener. */
	KUNIT_EXPECT_EQ(test, cma_ps_get_port(table, RDMA_PS_TCP, ids[1]),
			-EADDRINUSE);
	cma_test_table_done(test, table, ids, ARRAY_SIZE(ids));
}

static void cma_ps_ephemeral_test(struct kunit *test)
{
	struct net *net = cma_test_net(test, 40000, 40003);
	struct cma_ps_table *table = cma_test_table(test, net);
	struct rdma_id_private *ids[4];
	struct sockaddr_storage ss;
	u16 ports[3], last;
	int i, j;

#ifdef CONFIG_SYSCTL
	set_bit(40001, net->ipv4.sysctl_local_reserved_ports);
#else
	kunit_skip(test, "reserved ports need CONFIG_SYSCTL");
#endif
	cma_test_sin(&ss, 0, 0);
	for (i = 0; i < ARRAY_SIZE(ids); i++)
		ids[i] = cma_test_bind_id(test, &ss, NULL, false, true);

	/* Three free ports in the range; 40001 is reserved. */
	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test,
				cma_ps_get_port(table, RDMA_PS_TCP, ids[i]), 0);
		ports[i] = cma_addr_port(cma_src_addr(ids[i]));
		KUNIT_EXPECT_GE(test, ports[i], 40000);
		KUNIT_EXPECT_LE(test, ports[i], 40003);
		KUNIT_EXPECT_NE(test, ports[i], 40001);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, ports[i], ports[j]);
	}
	KUNIT_EXPECT_EQ(test, table->last_port, ports[2]);
	KUNIT_EXPECT_EQ(test, cma_ps_get_port(table, RDMA_PS_TCP, ids[3]),
			-EADDRNOTAVAIL);

	/* The port handed out last is still given when it is the only one. */
	last = ports[2];
	cma_ps_put_port(table, ids[2]);
	KUNIT_EXPECT_EQ(test, cma_ps_get_port(table, RDMA_PS_TCP, ids[3]), 0);
	KUNIT_EXPECT_EQ(test, cma_addr_port(cma_src_addr(ids[3])), last);
	cma_test_table_done(test, table, ids, ARRAY_SIZE(ids));
}

static void cma_ps_ephemeral_share_test(struct kunit *test)
{
	struct net *net = cma_test_net(test, 40010, 40010);
	struct cma_ps_table *table = cma_test_table(test, net);
	struct sockaddr_storage src, dst;
	struct rdma_id_private *ids[3];

	/* Active ids to distinct peers share the only ephemeral port. */
	cma_test_sin(&src, 0x0a000001, 0);
	cma_test_sin(&dst, 0x0a000002, 5000);
	ids[0] = cma_test_bind_id(test, &src, &dst, false, true);
	ids[2] = cma_test_bind_id(test, &src, &dst, false, true);
	cma_test_sin(&dst, 0x0a000003, 5000);
	ids[1] = cma_test_bind_id(test, &src, &dst, false, true);

	KUNIT_EXPECT_EQ(test, cma_ps_get_port(table, RDMA_PS_TCP, ids[0]), 0);
	KUNIT_EXPECT_EQ(test, cma_ps_get_port(table, RDMA_PS_TCP, ids[1]), 0);
	KUNIT_EXPECT_EQ(test, cma_addr_port(cma_src_addr(ids[1])), 40010);
	KUNIT_EXPECT_PTR_EQ(test, ids[0]->bind_list, ids[1]->bind_list);
	/* The same four-tuple twice cannot. */
	KUNIT_EXPECT_EQ(test, cma_ps_get_port(table, RDMA_PS_TCP, ids[2]),
			-EADDRNOTAVAIL);
	cma_test_table_done(test, table, ids, ARRAY_SIZE(ids));
}

/*
 * Enough ports to make the table grow twice: every port is still found
 * (a second bind to it collides) and every release is counted.
 */
static void cma_ps_grow_test(struct kunit *test)
{
	const int n = 4 << CMA_PS_HASH_MIN_BITS << 2;
	struct net *net = cma_test_net(test, 32768, 60999);
	struct cma_ps_table *table = cma_test_table(test, net);
	struct rdma_id_private **ids, *other;
	struct sockaddr_storage ss;
	int i;

	ids = kunit_kcalloc(test, n, sizeof(*ids), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ids);
	for (i = 0; i < n; i++) {
		cma_test_sin(&ss, 0xc0000201, 5000 + i);
		ids[i] = cma_test_bind_id(test, &ss, NULL, false, true);
		/* half in TCP, half in UDP, on the same port numbers */
		KUNIT_ASSERT_EQ(test, cma_ps_get_port(table, i & 1 ?
						      RDMA_PS_UDP :
						      RDMA_PS_TCP, ids[i]),
				0);
	}
	KUNIT_EXPECT_EQ(test, table->nr_ports, n);
	KUNIT_EXPECT_EQ(test, table->hash_bits, CMA_PS_HASH_MIN_BITS + 4);
	KUNIT_EXPECT_TRUE(test, table->buckets != table->first);

	cma_test_sin(&ss, 0xc0000201, 0);
	other = cma_test_bind_id(test, &ss, NULL, false, true);
	for (i = 0; i < n; i++) {
		cma_addr_set_port(cma_src_addr(other), 5000 + i);
		KUNIT_EXPECT_EQ(test, cma_ps_get_port(table, i & 1 ?
						      RDMA_PS_UDP :
						      RDMA_PS_TCP, other),
				-EADDRINUSE);
		/* the other port space has the port free */
		KUNIT_EXPECT_EQ(test, cma_ps_get_port(table, i & 1 ?
						      RDMA_PS_TCP :
						      RDMA_PS_UDP, other),
				0);
		cma_ps_put_port(table, other);
	}
	cma_test_table_done(test, table, ids, n);
}

static void cma_ps_privileged_test(struct kunit *test)
{
	struct net *net = cma_test_net(test, 32768, 60999);
	struct cma_ps_table *table = cma_test_table(test, net);
	struct rdma_id_private *ids[2];
	struct sockaddr_storage ss;
	const struct cred *old;
	struct cred *cred;
	int ret;

	KUNIT_EXPECT_TRUE(test, cma_port_privileged(net, 1));
	KUNIT_EXPECT_TRUE(test, cma_port_privileged(net, 1023));
	KUNIT_EXPECT_FALSE(test, cma_port_privileged(net, 1024));

	cma_test_sin(&ss, 0xc0000201, 80);
	ids[0] = cma_test_bind_id(test, &ss, NULL, false, true);
	cma_test_sin(&ss, 0xc0000202, 80);
	ids[1] = cma_test_bind_id(test, &ss, NULL, false, true);

	cred = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, cred);
	cap_lower(cred->cap_effective, CAP_NET_BIND_SERVICE);
	old = override_creds(cred);
	ret = cma_ps_get_port(table, RDMA_PS_TCP, ids[0]);
	revert_creds(old);
	put_cred(cred);
	KUNIT_EXPECT_EQ(test, ret, -EACCES);
	KUNIT_EXPECT_NULL(test, ids[0]->bind_list);

	/* This test runs with every capability. */
	KUNIT_EXPECT_EQ(test, cma_ps_get_port(table, RDMA_PS_TCP, ids[1]), 0);
	cma_test_table_done(test, table, ids, ARRAY_SIZE(ids));
}

/* An AF_IB address: @gid_low in the low byte of the GID (0: any). */
static void cma_test_sib(struct sockaddr_storage *ss, u8 gid_low, u16 port)
{
	struct sockaddr_ib *sib = (struct sockaddr_ib *)ss;

	memset(ss, 0, sizeof(*ss));
	sib->sib_family = AF_IB;
	sib->sib_addr.sib_raw[15] = gid_low;
	sib->sib_sid = cpu_to_be64(RDMA_IB_IP_PS_TCP | port);
	sib->sib_sid_mask = cpu_to_be64(~0ULL);
}

/*
 * The listener of a request: an IP request goes to IP listeners, an
 * AF_IB one (no IP header) to AF_IB listeners only, whatever their GID
 * (a request's header, not its GID, decides who may take it).
 */
static void cma_ps_find_listener_test(struct kunit *test)
{
	struct net *net = cma_test_net(test, 32768, 60999);
	struct cma_ps_table *table = cma_test_table(test, net);
	struct sockaddr *r4, *r_ib;
	struct sockaddr_storage ss, req4, req_ib;
	struct rdma_id_private *ids[2];
	int i;

	/* An IPv4 wildcard and an AF_IB listener (GID ::7) on port 5000. */
	cma_test_sin(&ss, 0, 5000);
	ids[0] = cma_test_bind_id(test, &ss, NULL, false, true);
	cma_test_sib(&ss, 7, 5000);
	ids[1] = cma_test_bind_id(test, &ss, NULL, false, true);
	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		refcount_set(&ids[i]->refcount, 1);
		KUNIT_ASSERT_EQ(test, cma_ps_get_port(table, RDMA_PS_TCP,
						      ids[i]), 0);
	}
	cma_test_sin(&req4, 0x0a000001, 5000);
	cma_test_sib(&req_ib, 9, 5000);
	r4 = (struct sockaddr *)&req4;
	r_ib = (struct sockaddr *)&req_ib;

	/* Not listening yet: nobody takes anything. */
	KUNIT_EXPECT_NULL(test, cma_ps_find_listener(table, RDMA_PS_TCP, 5000,
						     r4, NULL));
	for (i = 0; i < ARRAY_SIZE(ids); i++)
		ids[i]->state = RDMA_CM_LISTEN;
	KUNIT_EXPECT_PTR_EQ(test, cma_ps_find_listener(table, RDMA_PS_TCP,
						       5000, r4, NULL), ids[0]);
	KUNIT_EXPECT_PTR_EQ(test, cma_ps_find_listener(table, RDMA_PS_TCP,
						       5000, r_ib, NULL),
			    ids[1]);

	/* Neither family's listener takes the other's request. */
	ids[1]->state = RDMA_CM_ADDR_BOUND;
	KUNIT_EXPECT_NULL(test, cma_ps_find_listener(table, RDMA_PS_TCP, 5000,
						     r_ib, NULL));
	ids[0]->state = RDMA_CM_ADDR_BOUND;
	ids[1]->state = RDMA_CM_LISTEN;
	KUNIT_EXPECT_NULL(test, cma_ps_find_listener(table, RDMA_PS_TCP, 5000,
						     r4, NULL));
	/* Each find took a reference. */
	KUNIT_EXPECT_EQ(test, refcount_read(&ids[0]->refcount), 2);
	KUNIT_EXPECT_EQ(test, refcount_read(&ids[1]->refcount), 2);
	cma_test_table_done(test, table, ids, ARRAY_SIZE(ids));
}

/*
 * Which ports' AF_IB requests a listener takes: one bound to a port's
 * GID, that port's; the per-device listener of a wildcard one, every
 * port's, although it is attached to the device's first port.
 */
static void cma_ps_listener_on_port_test(struct kunit *test)
{
	struct rdma_id_private *bound = cma_test_priv(test);
	struct rdma_id_private *dev_l = cma_test_priv(test);
	struct rdma_id_private *none = cma_test_priv(test);

	bound->id.port_num = 2;
	dev_l->id.port_num = 1;
	dev_l->internal_id = 1;

	KUNIT_EXPECT_TRUE(test, cma_ps_listener_on_port(bound, 2));
	KUNIT_EXPECT_FALSE(test, cma_ps_listener_on_port(bound, 1));
	KUNIT_EXPECT_TRUE(test, cma_ps_listener_on_port(dev_l, 1));
	KUNIT_EXPECT_TRUE(test, cma_ps_listener_on_port(dev_l, 2));
	KUNIT_EXPECT_TRUE(test, cma_ps_listener_on_port(none, 1));
	KUNIT_EXPECT_TRUE(test, cma_ps_listener_on_port(none, 2));
}

static void cma_ps_select_test(struct kunit *test)
{
	struct rdma_id_private *id_priv = cma_test_priv(test);
	struct sockaddr_ib *sib = (struct sockaddr_ib *)cma_src_addr(id_priv);
	struct sockaddr_storage ss;

	/* IP addresses bind in the id's own port space. */
	cma_test_sin(&ss, 0, 0);
	memcpy(cma_src_addr(id_priv), &ss, sizeof(ss));
	id_priv->id.ps = RDMA_PS_IPOIB;
	KUNIT_EXPECT_EQ(test, cma_ps_select(id_priv), RDMA_PS_IPOIB);
	id_priv->id.ps = 0x7777;
	KUNIT_EXPECT_EQ(test, cma_ps_select(id_priv), 0);

	/* AF_IB: an IB id may bind in the TCP range of its service id. */
	memset(sib, 0, sizeof(*sib));
	sib->sib_family = AF_IB;
	sib->sib_sid = cpu_to_be64(RDMA_IB_IP_PS_TCP | 0x1234);
	sib->sib_sid_mask = cpu_to_be64(~0ULL);
	id_priv->id.ps = RDMA_PS_IB;
	KUNIT_EXPECT_EQ(test, cma_ps_select(id_priv), RDMA_PS_TCP);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sib->sib_sid),
			RDMA_IB_IP_PS_TCP | 0x1234);
	KUNIT_EXPECT_EQ(test, cma_addr_port(cma_src_addr(id_priv)), 0x1234);

	/* ... a UDP id may not. */
	id_priv->id.ps = RDMA_PS_UDP;
	KUNIT_EXPECT_EQ(test, cma_ps_select(id_priv), 0);

	/* A wildcard service id binds an IB id in the IB range. */
	sib->sib_sid = 0;
	sib->sib_sid_mask = 0;
	id_priv->id.ps = RDMA_PS_IB;
	KUNIT_EXPECT_EQ(test, cma_ps_select(id_priv), RDMA_PS_IB);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sib->sib_sid), RDMA_IB_IP_PS_IB);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sib->sib_sid_mask),
			RDMA_IB_IP_PS_MASK);

	/* The port then goes into the low bits of the service id. */
	cma_addr_set_port(cma_src_addr(id_priv), 0xabcd);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sib->sib_sid),
			RDMA_IB_IP_PS_IB | 0xabcd);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sib->sib_sid_mask), ~0ULL);
}

static struct kunit_case cma_ps_cases[] = {
	KUNIT_CASE(cma_port_check_bind_test),
	KUNIT_CASE(cma_port_check_unique_test),
	KUNIT_CASE(cma_ps_bind_test),
	KUNIT_CASE(cma_ps_reuseaddr_test),
	KUNIT_CASE(cma_ps_ephemeral_test),
	KUNIT_CASE(cma_ps_ephemeral_share_test),
	KUNIT_CASE(cma_ps_grow_test),
	KUNIT_CASE(cma_ps_privileged_test),
	KUNIT_CASE(cma_ps_select_test),
	KUNIT_CASE(cma_ps_find_listener_test),
	KUNIT_CASE(cma_ps_listener_on_port_test),
	{}
};

static struct kunit_suite cma_ps_suite = {
	.name = "rdma_cm_port_space",
	.test_cases = cma_ps_cases,
};

/* --- the IP private-data header ----------------------------------------- */

static const u8 cma_test_hdr_v4[CMA_HDR_SIZE] = {
	0x00, 0x40, 0x12, 0x34,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xc0, 0x00, 0x02, 0x01,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xc6, 0x33, 0x64, 0x07,
};

static void cma_hdr_encode_v4_test(struct kunit *test)
{
	struct sockaddr_storage src, dst;
	u8 buf[CMA_HDR_SIZE + 4];

	cma_test_sin(&src, 0xc0000201, 0x1234);
	cma_test_sin(&dst, 0xc6336407, 4791);
	memset(buf, 0xa5, sizeof(buf));
	KUNIT_EXPECT_EQ(test,
			cma_hdr_encode(buf, sizeof(buf),
				       (struct sockaddr *)&src,
				       (struct sockaddr *)&dst), CMA_HDR_SIZE);
	KUNIT_EXPECT_EQ(test, memcmp(buf, cma_test_hdr_v4, CMA_HDR_SIZE), 0);
	/* Nothing past the header is touched. */
	KUNIT_EXPECT_EQ(test, buf[CMA_HDR_SIZE], 0xa5);
}

static void cma_hdr_encode_errors_test(struct kunit *test)
{
	struct sockaddr_storage v4, v6, ib = { .ss_family = AF_IB };
	u8 buf[CMA_HDR_SIZE];

	cma_test_sin(&v4, 0xc0000201, 1);
	cma_test_sin6(&v6, 1, 1);
	KUNIT_EXPECT_EQ(test, cma_hdr_encode(buf, CMA_HDR_SIZE - 1,
					     (struct sockaddr *)&v4,
					     (struct sockaddr *)&v4),
			-EMSGSIZE);
	KUNIT_EXPECT_EQ(test, cma_hdr_encode(buf, sizeof(buf),
					     (struct sockaddr *)&v4,
					     (struct sockaddr *)&v6),
			-EAFNOSUPPORT);
	KUNIT_EXPECT_EQ(test, cma_hdr_encode(buf, sizeof(buf),
					     (struct sockaddr *)&ib,
					     (struct sockaddr *)&ib),
			-EAFNOSUPPORT);
}

static void cma_hdr_decode_v4_test(struct kunit *test)
{
	struct sockaddr_storage local, remote;
	struct sockaddr_in *sin;
	u8 *pdata;

	/* Exactly the header, so KASAN sees any read past it. */
	pdata = kunit_kmalloc(test, CMA_HDR_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pdata);
	memcpy(pdata, cma_test_hdr_v4, CMA_HDR_SIZE);

	KUNIT_EXPECT_EQ(test,
			cma_hdr_decode(pdata, CMA_HDR_SIZE,
				       cma_service_id(RDMA_PS_TCP, 4791),
				       &local, &remote), 0);
	sin = (struct sockaddr_in *)&local;
	KUNIT_EXPECT_EQ(test, sin->sin_family, AF_INET);
	KUNIT_EXPECT_EQ(test, ntohl(sin->sin_addr.s_addr), 0xc6336407);
	KUNIT_EXPECT_EQ(test, ntohs(sin->sin_port), 4791);
	sin = (struct sockaddr_in *)&remote;
	KUNIT_EXPECT_EQ(test, sin->sin_family, AF_INET);
	KUNIT_EXPECT_EQ(test, ntohl(sin->sin_addr.s_addr), 0xc0000201);
	KUNIT_EXPECT_EQ(test, ntohs(sin->sin_port), 0x1234);

	/* Either output may be left out; the low nibble is ignored. */
	pdata[1] |= 0x0f;
	KUNIT_EXPECT_EQ(test, cma_hdr_decode(pdata, CMA_HDR_SIZE, 0, NULL,
					     &remote), 0);
	KUNIT_EXPECT_EQ(test, cma_hdr_decode(pdata, CMA_HDR_SIZE, 0, &local,
					     NULL), 0);
	KUNIT_EXPECT_EQ(test, ntohs(((struct sockaddr_in *)&local)->sin_port),
			0);
}

static void cma_hdr_v6_round_trip_test(struct kunit *test)
{
	struct sockaddr_storage src, dst, local, remote;
	struct cma_hdr *hdr;

	cma_test_sin6(&src, 7, 40000);
	cma_test_sin6(&dst, 9, 0);
	hdr = kunit_kmalloc(test, sizeof(*hdr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, hdr);
	KUNIT_ASSERT_EQ(test, cma_hdr_encode(hdr, sizeof(*hdr),
					     (struct sockaddr *)&src,
					     (struct sockaddr *)&dst),
			CMA_HDR_SIZE);
	KUNIT_EXPECT_EQ(test, hdr->cma_version, CMA_VERSION);
	KUNIT_EXPECT_EQ(test, hdr->ip_version, 0x60);
	KUNIT_EXPECT_EQ(test, ntohs(hdr->port), 40000);

	KUNIT_ASSERT_EQ(test, cma_hdr_decode(hdr, sizeof(*hdr),
					     cma_service_id(RDMA_PS_UDP, 7471),
					     &local, &remote), 0);
	/* The requester's address comes back as the remote one. */
	KUNIT_EXPECT_EQ(test, memcmp(&remote, &src, sizeof(src)), 0);
	((struct sockaddr_in6 *)&dst)->sin6_port = htons(7471);
	KUNIT_EXPECT_EQ(test, memcmp(&local, &dst, sizeof(dst)), 0);
}

static void cma_hdr_malformed_test(struct kunit *test)
{
	/* One byte changed in a good header, and the error it gives. */
	static const struct {
		int offset;
		u8 value;
		int ret;
	} bad[] = {
		{ 0, 0x01, -EINVAL },		/* unknown version */
		{ 1, 0x00, -EAFNOSUPPORT },	/* IP versions but 4 and 6 */
		{ 1, 0x50, -EAFNOSUPPORT },
		{ 1, 0x04, -EAFNOSUPPORT },	/* 4 in the wrong nibble */
		{ 1, 0xf0, -EAFNOSUPPORT },
	};
	struct sockaddr_storage local, remote, untouched;
	size_t len;
	u8 *pdata;
	int i, ret;

	memset(&local, 0x5a, sizeof(local));
	memset(&untouched, 0x5a, sizeof(untouched));

	KUNIT_EXPECT_EQ(test, cma_hdr_decode(NULL, CMA_HDR_SIZE, 0, &local,
					     &remote), -EINVAL);

	/* Every short length fails before reading; KASAN checks it. */
	for (len = 0; len < CMA_HDR_SIZE; len++) {
		pdata = kmalloc(len, GFP_KERNEL);
		if (len) {
			KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pdata);
			memcpy(pdata, cma_test_hdr_v4, len);
		}
		ret = cma_hdr_decode(pdata, len, 0, &local, &remote);
		kfree(pdata);
		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "length %zu", len);
	}

	pdata = kunit_kmalloc(test, CMA_HDR_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pdata);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		memcpy(pdata, cma_test_hdr_v4, CMA_HDR_SIZE);
		pdata[bad[i].offset] = bad[i].value;
		KUNIT_EXPECT_EQ_MSG(test, cma_hdr_decode(pdata, CMA_HDR_SIZE, 0,
							 &local, &remote),
				    bad[i].ret, "byte %d = %#x", bad[i].offset,
				    bad[i].value);
	}

	/* Nothing was written by the failures. */
	KUNIT_EXPECT_EQ(test, memcmp(&local, &untouched, sizeof(local)), 0);
}

static void cma_hdr_service_id_test(struct kunit *test)
{
	struct rdma_cm_id *id = cma_test_id(test);
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(20049),
	};

	KUNIT_EXPECT_EQ(test, be64_to_cpu(cma_service_id(RDMA_PS_TCP, 20049)),
			RDMA_IB_IP_PS_TCP | 20049);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(cma_service_id(RDMA_PS_IB, 0)),
			RDMA_IB_IP_PS_IB);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(cma_service_id(RDMA_PS_IPOIB, 1)),
			0x20001ULL);

	KUNIT_EXPECT_EQ(test,
			cma_service_id_ps(cpu_to_be64(RDMA_IB_IP_PS_UDP | 9)),
			RDMA_PS_UDP);
	KUNIT_EXPECT_EQ(test, cma_service_id_ps(cpu_to_be64(RDMA_IB_IP_PS_IB)),
			RDMA_PS_IB);
	KUNIT_EXPECT_EQ(test, cma_service_id_ps(cpu_to_be64(0x1234ULL << 32)),
			0);
	KUNIT_EXPECT_EQ(test,
			cma_service_id_port(cpu_to_be64(RDMA_IB_IP_PS_TCP |
							0xfedc)), 0xfedc);

	/* The export computes the same. */
	id->ps = RDMA_PS_TCP;
	KUNIT_EXPECT_EQ(test,
			be64_to_cpu(rdma_get_service_id(id,
							(struct sockaddr *)&sin)),
			be64_to_cpu(cma_service_id(RDMA_PS_TCP, 20049)));
}

static struct kunit_case cma_hdr_cases[] = {
	KUNIT_CASE(cma_hdr_encode_v4_test),
	KUNIT_CASE(cma_hdr_encode_errors_test),
	KUNIT_CASE(cma_hdr_decode_v4_test),
	KUNIT_CASE(cma_hdr_v6_round_trip_test),
	KUNIT_CASE(cma_hdr_malformed_test),
	KUNIT_CASE(cma_hdr_service_id_test),
	{}
};

static struct kunit_suite cma_hdr_suite = {
	.name = "rdma_cm_hdr",
	.test_cases = cma_hdr_cases,
};

/* --- options ------------------------------------------------------------ */

static void cma_opt_reuseaddr_test(struct kunit *test)
{
	int state;

	for (state = 0; state < RDMA_CM_NR_STATES; state++) {
		/* Set in every state but LISTEN; cleared only in IDLE. */
		KUNIT_EXPECT_EQ_MSG(test, cma_opt_check_reuseaddr(state, 1),
				    state == RDMA_CM_LISTEN ? -EINVAL : 0,
				    "%s", cma_state_name(state));
		KUNIT_EXPECT_EQ_MSG(test, cma_opt_check_reuseaddr(state, 0),
				    state == RDMA_CM_IDLE ? 0 : -EINVAL,
				    "%s", cma_state_name(state));
	}
}

static void cma_opt_afonly_test(struct kunit *test)
{
	int state;

	for (state = 0; state < RDMA_CM_NR_STATES; state++)
		KUNIT_EXPECT_EQ_MSG(test, cma_opt_check_afonly(state),
				    state == RDMA_CM_IDLE ||
				    state == RDMA_CM_ADDR_BOUND ? 0 : -EINVAL,
				    "%s", cma_state_name(state));
}

static void cma_opt_qp_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, cma_opt_check_ack_timeout(IB_QPT_RC), 0);
	KUNIT_EXPECT_EQ(test, cma_opt_check_ack_timeout(IB_QPT_XRC_INI), 0);
	KUNIT_EXPECT_EQ(test, cma_opt_check_ack_timeout(IB_QPT_XRC_TGT),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, cma_opt_check_ack_timeout(IB_QPT_UD), -EINVAL);

	KUNIT_EXPECT_EQ(test, cma_opt_check_min_rnr_timer(IB_QPT_RC, 0x1f), 0);
	KUNIT_EXPECT_EQ(test, cma_opt_check_min_rnr_timer(IB_QPT_XRC_TGT, 0),
			0);
	KUNIT_EXPECT_EQ(test, cma_opt_check_min_rnr_timer(IB_QPT_RC, 0x20),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, cma_opt_check_min_rnr_timer(IB_QPT_XRC_INI, 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, cma_opt_check_min_rnr_timer(IB_QPT_UD, 1),
			-EINVAL);
}

/*
 * Which requests a listener takes by QP type: a REQ carries its QP's
 * transport service type, a SIDR REQ is for UD.  An RC listener takes
 * no UC REQ and no SIDR REQ, a UD listener no REQ.
 */
static void cma_opt_req_qp_type_test(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, cma_opt_req_qp_type(IB_QPT_RC, IB_QPT_RC));
	KUNIT_EXPECT_TRUE(test, cma_opt_req_qp_type(IB_QPT_UD, IB_QPT_UD));
	KUNIT_EXPECT_TRUE(test, cma_opt_req_qp_type(IB_QPT_UC, IB_QPT_UC));
	KUNIT_EXPECT_TRUE(test, cma_opt_req_qp_type(IB_QPT_XRC_TGT,
						    IB_QPT_XRC_TGT));
	KUNIT_EXPECT_FALSE(test, cma_opt_req_qp_type(IB_QPT_RC, IB_QPT_UD));
	KUNIT_EXPECT_FALSE(test, cma_opt_req_qp_type(IB_QPT_RC, IB_QPT_UC));
	KUNIT_EXPECT_FALSE(test, cma_opt_req_qp_type(IB_QPT_UD, IB_QPT_RC));
	KUNIT_EXPECT_FALSE(test, cma_opt_req_qp_type(IB_QPT_UD, IB_QPT_UC));
	KUNIT_EXPECT_FALSE(test, cma_opt_req_qp_type(IB_QPT_UC, IB_QPT_RC));
	/* QP type 0 takes any. */
	KUNIT_EXPECT_TRUE(test, cma_opt_req_qp_type(0, IB_QPT_RC));
	KUNIT_EXPECT_TRUE(test, cma_opt_req_qp_type(0, IB_QPT_UD));
}

static struct kunit_case cma_opt_cases[] = {
	KUNIT_CASE(cma_opt_reuseaddr_test),
	KUNIT_CASE(cma_opt_afonly_test),
	KUNIT_CASE(cma_opt_qp_test),
	KUNIT_CASE(cma_opt_req_qp_type_test),
	{}
};

static struct kunit_suite cma_opt_suite = {
	.name = "rdma_cm_options",
	.test_cases = cma_opt_cases,
};

/* --- RoCE path parameters ---------------------------------------------- */

static void cma_roce_gid_type_test(struct kunit *test)
{
	unsigned long v1v2 = BIT(IB_GID_TYPE_ROCE) |
			     BIT(IB_GID_TYPE_ROCE_UDP_ENCAP);
	unsigned long v1 = BIT(IB_GID_TYPE_ROCE);

	/* A routed destination: RoCE v2 whatever the default. */
	KUNIT_EXPECT_EQ(test, cma_roce_route_gid_type(RDMA_NETWORK_IPV4, v1v2,
						      IB_GID_TYPE_ROCE),
			IB_GID_TYPE_ROCE_UDP_ENCAP);
	KUNIT_EXPECT_EQ(test, cma_roce_route_gid_type(RDMA_NETWORK_IPV6, v1v2,
						      IB_GID_TYPE_ROCE),
			IB_GID_TYPE_ROCE_UDP_ENCAP);
	/* On-link: the default. */
	KUNIT_EXPECT_EQ(test, cma_roce_route_gid_type(RDMA_NETWORK_IB, v1v2,
						      IB_GID_TYPE_ROCE),
			IB_GID_TYPE_ROCE);
	KUNIT_EXPECT_EQ(test, cma_roce_route_gid_type(RDMA_NETWORK_IB, v1v2,
						      IB_GID_TYPE_ROCE_UDP_ENCAP),
			IB_GID_TYPE_ROCE_UDP_ENCAP);
	/* Never below what the network needs. */
	KUNIT_EXPECT_EQ(test, cma_roce_route_gid_type(RDMA_NETWORK_ROCE_V1, v1v2,
						      IB_GID_TYPE_IB),
			IB_GID_TYPE_ROCE);
	KUNIT_EXPECT_EQ(test, cma_roce_route_gid_type(RDMA_NETWORK_IPV4, v1,
						      IB_GID_TYPE_ROCE),
			IB_GID_TYPE_ROCE_UDP_ENCAP);
}

/*
 * Netdevs of our own, registered and stacked as the test says; which of
 * them count as VLAN devices, and their egress map, is the test's too
 * (the test kernel has no 802.1Q, and a device flagged as a VLAN would
 * meet ib_core's netdev notifier).
 */
#define CMA_TEST_PRIO		6	/* rt_tos2priority(IPTOS_LOWDELAY) */
#define CMA_TEST_PCP		5	/* the fake VLANs' egress map */

static struct net_device *cma_test_vlans[4];

static bool cma_test_is_vlan(const struct net_device *dev)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(cma_test_vlans); i++)
		if (cma_test_vlans[i] == dev)
			return true;
	return false;
}

static u8 cma_test_egress_pcp(struct net_device *dev, u8 prio)
{
	return prio == CMA_TEST_PRIO ? CMA_TEST_PCP : 0;
}

static const struct cma_vlan_ops cma_test_vlan_ops = {
	.is_vlan	= cma_test_is_vlan,
	.egress_pcp	= cma_test_egress_pcp,
};

static netdev_tx_t cma_test_xmit(struct sk_buff *skb, struct net_device *dev)
{
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops cma_test_netdev_ops = {
	.ndo_start_xmit	= cma_test_xmit,
};

static void cma_test_netdev_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &cma_test_netdev_ops;
	eth_hw_addr_random(dev);
}

/* A registered netdev; @tc >= 0 gives it 4 classes, CMA_TEST_PRIO -> @tc. */
static struct net_device *cma_test_netdev(struct kunit *test, int tc)
{
	struct net_device *dev;

	dev = alloc_netdev(0, "cmakt%d", NET_NAME_ENUM, cma_test_netdev_setup);
	if (!dev)
		return NULL;
	if (register_netdev(dev)) {
		free_netdev(dev);
		return NULL;
	}
	if (tc >= 0) {
		KUNIT_EXPECT_EQ(test, netdev_set_num_tc(dev, 4), 0);
		KUNIT_EXPECT_EQ(test,
				netdev_set_prio_tc_map(dev, CMA_TEST_PRIO, tc),
				0);
	}
	return dev;
}

static void cma_test_netdev_put(struct net_device *dev)
{
	if (!dev)
		return;
	netdev_reset_tc(dev);
	unregister_netdev(dev);
	free_netdev(dev);
}

static bool cma_test_link(struct net_device *lower, struct net_device *upper)
{
	int ret;

	rtnl_lock();
	ret = netdev_upper_dev_link(lower, upper, NULL);
	rtnl_unlock();
	return !ret;
}

static void cma_test_unlink(struct net_device *lower, struct net_device *upper)
{
	rtnl_lock();
	netdev_upper_dev_unlink(lower, upper);
	rtnl_unlock();
}

static void cma_roce_sl_test(struct kunit *test)
{
	/* plain with and without classes */
	struct net_device *p, *q;
	/* a VLAN on a device with classes, one on a device without */
	struct net_device *r, *v, *r2, *v2;
	/* a bond on that second VLAN; a bond with classes on one with */
	struct net_device *b, *b2, *l, *b3, *l3;
	bool vr = false, v2r2 = false, bv2 = false, b2l = false, b3l3 = false;

	p = cma_test_netdev(test, 3);
	q = cma_test_netdev(test, -1);
	r = cma_test_netdev(test, 3);
	v = cma_test_netdev(test, -1);
	r2 = cma_test_netdev(test, -1);
	v2 = cma_test_netdev(test, -1);
	b = cma_test_netdev(test, -1);
	b2 = cma_test_netdev(test, 2);
	l = cma_test_netdev(test, 1);
	b3 = cma_test_netdev(test, 2);
	l3 = cma_test_netdev(test, -1);
	if (!p || !q || !r || !v || !r2 || !v2 || !b || !b2 || !l || !b3 ||
	    !l3) {
		KUNIT_FAIL(test, "cannot register the test netdevs");
		goto out;
	}
	vr = cma_test_link(r, v);
	v2r2 = cma_test_link(r2, v2);
	bv2 = cma_test_link(v2, b);
	b2l = cma_test_link(l, b2);
	b3l3 = cma_test_link(l3, b3);
	if (!vr || !v2r2 || !bv2 || !b2l || !b3l3) {
		KUNIT_FAIL(test, "cannot stack the test netdevs");
		goto out;
	}
	cma_test_vlans[0] = v;
	cma_test_vlans[1] = v2;

	/* A device's own classes; none: SL 0. */
	KUNIT_EXPECT_EQ(test, cma_roce_prio_sl(&cma_test_vlan_ops, p,
					       CMA_TEST_PRIO), 3);
	KUNIT_EXPECT_EQ(test, cma_roce_prio_sl(&cma_test_vlan_ops, q,
					       CMA_TEST_PRIO), 0);
	/* A VLAN: its real device's classes, else its egress map. */
	KUNIT_EXPECT_EQ(test, cma_roce_prio_sl(&cma_test_vlan_ops, v,
					       CMA_TEST_PRIO), 3);
	KUNIT_EXPECT_EQ(test, cma_roce_prio_sl(&cma_test_vlan_ops, v2,
					       CMA_TEST_PRIO), CMA_TEST_PCP);
	/* A bond on a VLAN: the VLAN's. */
	KUNIT_EXPECT_EQ(test, cma_roce_prio_sl(&cma_test_vlan_ops, b,
					       CMA_TEST_PRIO), CMA_TEST_PCP);
	/* A bond: its lower device decides, with classes or without. */
	KUNIT_EXPECT_EQ(test, cma_roce_prio_sl(&cma_test_vlan_ops, b2,
					       CMA_TEST_PRIO), 1);
	KUNIT_EXPECT_EQ(test, cma_roce_prio_sl(&cma_test_vlan_ops, b3,
					       CMA_TEST_PRIO), 0);
	/* Another priority of a device with classes: its class 0. */
	KUNIT_EXPECT_EQ(test, cma_roce_prio_sl(&cma_test_vlan_ops, p, 0), 0);

out:
	memset(cma_test_vlans, 0, sizeof(cma_test_vlans));
	if (b3l3)
		cma_test_unlink(l3, b3);
	if (b2l)
		cma_test_unlink(l, b2);
	if (bv2)
		cma_test_unlink(v2, b);
	if (v2r2)
		cma_test_unlink(r2, v2);
	if (vr)
		cma_test_unlink(r, v);
	cma_test_netdev_put(l3);
	cma_test_netdev_put(b3);
	cma_test_netdev_put(l);
	cma_test_netdev_put(b2);
	cma_test_netdev_put(b);
	cma_test_netdev_put(v2);
	cma_test_netdev_put(r2);
	cma_test_netdev_put(v);
	cma_test_netdev_put(r);
	cma_test_netdev_put(q);
	cma_test_netdev_put(p);
}

static struct kunit_case cma_roce_cases[] = {
	KUNIT_CASE(cma_roce_gid_type_test),
	KUNIT_CASE(cma_roce_sl_test),
	{}
};

static struct kunit_suite cma_roce_suite = {
	.name = "rdma_cm_roce",
	.test_cases = cma_roce_cases,
};

kunit_test_suites(&cma_helper_suite, &cma_state_suite, &cma_ps_suite,
		  &cma_hdr_suite, &cma_opt_suite, &cma_roce_suite);

MODULE_AUTHOR("rdma_cm project");
MODULE_DESCRIPTION("KUnit tests for rdma_cm");
MODULE_LICENSE("Dual BSD/GPL");
