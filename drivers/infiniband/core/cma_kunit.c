// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit tests for rdma_cm's helpers that need no connection state.
 */
#include <kunit/test.h>
#include <linux/if_arp.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/string.h>
#include <rdma/ib.h>
#include <rdma/ib_cm.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_cm.h>

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
 * An id bound to port 1 of a device that has only the given protocol
 * capability bits: that is all the transport predicates of ib_verbs.h
 * look at.
 */
static struct rdma_cm_id *cma_test_bound_id(struct kunit *test, u32 cap_flags)
{
	struct rdma_cm_id *id = cma_test_id(test);
	struct ib_device *dev;

	dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	dev->port_data = kunit_kcalloc(test, 2, sizeof(*dev->port_data),
				       GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev->port_data);
	dev->port_data[1].immutable.core_cap_flags = cap_flags;

	id->device = dev;
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
	iwarp = cma_test_bound_id(test, RDMA_CORE_CAP_PROT_IWARP);
	ib = cma_test_bound_id(test, RDMA_CORE_CAP_PROT_IB);
	roce = cma_test_bound_id(test, RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP);
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

	roce = cma_test_bound_id(test, RDMA_CORE_CAP_PROT_ROCE);
	iwarp = cma_test_bound_id(test, RDMA_CORE_CAP_PROT_IWARP);
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
	roce = cma_test_bound_id(test, RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP);
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
	ib = cma_test_bound_id(test, RDMA_CORE_CAP_PROT_IB);
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

static struct kunit_case cma_helper_cases[] = {
	KUNIT_CASE(cma_event_msg_known_test),
	KUNIT_CASE(cma_event_msg_unknown_test),
	KUNIT_CASE(cma_service_id_test),
	KUNIT_CASE(cma_reject_msg_test),
	KUNIT_CASE(cma_consumer_reject_data_test),
	KUNIT_CASE(cma_read_gids_test),
	{}
};

static struct kunit_suite cma_helper_suite = {
	.name = "rdma_cm_helpers",
	.test_cases = cma_helper_cases,
};

kunit_test_suite(cma_helper_suite);

MODULE_AUTHOR("rdma_cm project");
MODULE_DESCRIPTION("KUnit tests for rdma_cm");
MODULE_LICENSE("Dual BSD/GPL");
