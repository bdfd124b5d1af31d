// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit tests for rdma_ucm's ABI helpers (ucma_abi.h): command limits and
 * header validation, argument checks, and the event record, none of which
 * needs a device.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <rdma/ib.h>

#include "ucma_abi.h"

/* Every command number with its limits; -1: not a command. */
static const struct {
	u32 cmd;
	int in_min;
	int out_min;
	bool out_late;
} ucma_test_limits[] = {
	{ RDMA_USER_CM_CMD_CREATE_ID,	  24,  4,   false },
	{ RDMA_USER_CM_CMD_DESTROY_ID,	  16,  4,   false },
	{ RDMA_USER_CM_CMD_BIND_IP,	  40,  0,   false },
	{ RDMA_USER_CM_CMD_RESOLVE_IP,	  64,  0,   false },
	{ RDMA_USER_CM_CMD_RESOLVE_ROUTE, 8,   0,   false },
	{ RDMA_USER_CM_CMD_QUERY_ROUTE,	  16,  200, false },
	{ RDMA_USER_CM_CMD_CONNECT,	  280, 0,   false },
	{ RDMA_USER_CM_CMD_LISTEN,	  8,   0,   false },
	{ RDMA_USER_CM_CMD_ACCEPT,	  288, 0,   false },
	{ RDMA_USER_CM_CMD_REJECT,	  264, 0,   false },
	{ RDMA_USER_CM_CMD_DISCONNECT,	  4,   0,   false },
	{ RDMA_USER_CM_CMD_INIT_QP_ATTR,  16,  144, false },
	{ RDMA_USER_CM_CMD_GET_EVENT,	  8,   324, false },
	{ RDMA_USER_CM_CMD_GET_OPTION,	  0,   0,   false },
	{ RDMA_USER_CM_CMD_SET_OPTION,	  24,  0,   false },
	{ RDMA_USER_CM_CMD_NOTIFY,	  8,   0,   false },
	{ RDMA_USER_CM_CMD_JOIN_IP_MCAST, 48,  4,   true },
	{ RDMA_USER_CM_CMD_LEAVE_MCAST,	  16,  4,   false },
	{ RDMA_USER_CM_CMD_MIGRATE_ID,	  16,  4,   false },
	{ RDMA_USER_CM_CMD_QUERY,	  16,  0,   false },
	{ RDMA_USER_CM_CMD_BIND,	  136, 0,   false },
	{ RDMA_USER_CM_CMD_RESOLVE_ADDR,  272, 0,   false },
	{ RDMA_USER_CM_CMD_JOIN_MCAST,	  152, 4,   true },
};

static void ucma_cmd_numbers_test(struct kunit *test)
{
	/* the numbering is ABI */
	KUNIT_EXPECT_EQ(test, RDMA_USER_CM_CMD_CREATE_ID, 0);
	KUNIT_EXPECT_EQ(test, RDMA_USER_CM_CMD_GET_EVENT, 12);
	KUNIT_EXPECT_EQ(test, RDMA_USER_CM_CMD_MIGRATE_ID, 18);
	KUNIT_EXPECT_EQ(test, RDMA_USER_CM_CMD_JOIN_MCAST, 22);
	KUNIT_EXPECT_EQ(test, UCMA_NUM_CMDS, 23);
	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(ucma_test_limits), UCMA_NUM_CMDS);
	KUNIT_EXPECT_EQ(test, RDMA_USER_CM_ABI_VERSION, 4);
	/* the errno of GET_OPTION and unknown options, as librdmacm sees it */
	KUNIT_EXPECT_EQ(test, UCMA_ENOTIMPL, -38);
}

static void ucma_cmd_limits_test(struct kunit *test)
{
	static const u32 bad[] = { 23, 24, 255, 0x10000, U32_MAX };
	struct ucma_cmd_limits lim;
	int i;

	for (i = 0; i < ARRAY_SIZE(ucma_test_limits); i++) {
		KUNIT_ASSERT_TRUE(test, ucma_cmd_limits(ucma_test_limits[i].cmd, &lim));
		KUNIT_EXPECT_EQ_MSG(test, lim.in_min, ucma_test_limits[i].in_min,
				    "cmd %u", ucma_test_limits[i].cmd);
		KUNIT_EXPECT_EQ_MSG(test, lim.out_min, ucma_test_limits[i].out_min,
				    "cmd %u", ucma_test_limits[i].cmd);
		KUNIT_EXPECT_EQ_MSG(test, lim.out_late, ucma_test_limits[i].out_late,
				    "cmd %u", ucma_test_limits[i].cmd);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_FALSE(test, ucma_cmd_limits(bad[i], &lim));
}

static int ucma_test_hdr(u32 cmd, u16 in, u16 out, size_t len)
{
	struct rdma_ucm_cmd_hdr hdr = { .cmd = cmd, .in = in, .out = out };

	return ucma_check_hdr(&hdr, len);
}

static void ucma_check_hdr_test(struct kunit *test)
{
	int i;

	/* unknown commands first, whatever the lengths */
	KUNIT_EXPECT_EQ(test, ucma_test_hdr(23, 0, 0, 8), -EINVAL);
	KUNIT_EXPECT_EQ(test, ucma_test_hdr(U32_MAX, 0xffff, 0xffff, SZ_1M), -EINVAL);
	/* hdr.in beyond the write() */
	KUNIT_EXPECT_EQ(test, ucma_test_hdr(RDMA_USER_CM_CMD_CREATE_ID, 24, 4, 31), -EINVAL);
	KUNIT_EXPECT_EQ(test, ucma_test_hdr(RDMA_USER_CM_CMD_CREATE_ID, 0xffff, 4, 100), -EINVAL);
	/* GET_OPTION has no handler */
	KUNIT_EXPECT_EQ(test, ucma_test_hdr(RDMA_USER_CM_CMD_GET_OPTION, 0, 0, 8), UCMA_ENOTIMPL);
	/* ... but a length error comes before that */
	KUNIT_EXPECT_EQ(test, ucma_test_hdr(RDMA_USER_CM_CMD_GET_OPTION, 8, 0, 8), -EINVAL);

	for (i = 0; i < ARRAY_SIZE(ucma_test_limits); i++) {
		u32 cmd = ucma_test_limits[i].cmd;
		u16 in = ucma_test_limits[i].in_min;
		u16 out = ucma_test_limits[i].out_min;

		if (cmd == RDMA_USER_CM_CMD_GET_OPTION)
			continue;
		/* exact sizes pass; a longer write() is fine too */
		KUNIT_EXPECT_EQ_MSG(test, ucma_test_hdr(cmd, in, out, in + 8), 0, "cmd %u", cmd);
		KUNIT_EXPECT_EQ_MSG(test, ucma_test_hdr(cmd, in, out, in + 100), 0, "cmd %u", cmd);
		/* a larger input (an extension) is accepted */
		KUNIT_EXPECT_EQ_MSG(test, ucma_test_hdr(cmd, in + 8, out, in + 16), 0,
				    "cmd %u", cmd);
		/* a short input is refused */
		if (in)
			KUNIT_EXPECT_EQ_MSG(test, ucma_test_hdr(cmd, in - 1, out, in + 8),
					    -EINVAL, "cmd %u", cmd);
		/* a short answer is refused, except where the handler decides */
		if (out)
			KUNIT_EXPECT_EQ_MSG(test, ucma_test_hdr(cmd, in, out - 1, in + 8),
					    ucma_test_limits[i].out_late ? 0 : -ENOSPC,
					    "cmd %u", cmd);
	}
	/* old i386 librdmacm: GET_EVENT answers without the 12 byte tail */
	KUNIT_EXPECT_EQ(test, ucma_test_hdr(RDMA_USER_CM_CMD_GET_EVENT, 8, 324, 16), 0);
	KUNIT_EXPECT_EQ(test, ucma_test_hdr(RDMA_USER_CM_CMD_GET_EVENT, 8, 323, 16), -ENOSPC);
	/* CONNECT and ACCEPT without ECE */
	KUNIT_EXPECT_EQ(test, ucma_test_hdr(RDMA_USER_CM_CMD_CONNECT, 280, 0, 288), 0);
	KUNIT_EXPECT_EQ(test, ucma_test_hdr(RDMA_USER_CM_CMD_ACCEPT, 288, 0, 296), 0);
}

static void ucma_qp_type_test(struct kunit *test)
{
	enum ib_qp_type t;

	KUNIT_EXPECT_EQ(test, ucma_qp_type(RDMA_PS_TCP, 77, &t), 0);
	KUNIT_EXPECT_EQ(test, t, IB_QPT_RC);
	KUNIT_EXPECT_EQ(test, ucma_qp_type(RDMA_PS_UDP, 0, &t), 0);
	KUNIT_EXPECT_EQ(test, t, IB_QPT_UD);
	KUNIT_EXPECT_EQ(test, ucma_qp_type(RDMA_PS_IPOIB, 2, &t), 0);
	KUNIT_EXPECT_EQ(test, t, IB_QPT_UD);
	KUNIT_EXPECT_EQ(test, ucma_qp_type(RDMA_PS_IB, IB_QPT_XRC_TGT, &t), 0);
	KUNIT_EXPECT_EQ(test, t, IB_QPT_XRC_TGT);
	KUNIT_EXPECT_EQ(test, ucma_qp_type(RDMA_PS_IB, IB_QPT_UC, &t), 0);
	KUNIT_EXPECT_EQ(test, t, IB_QPT_UC);
	/* special and raw QPs are no CM business */
	KUNIT_EXPECT_EQ(test, ucma_qp_type(RDMA_PS_IB, IB_QPT_SMI, &t), -EINVAL);
	KUNIT_EXPECT_EQ(test, ucma_qp_type(RDMA_PS_IB, IB_QPT_GSI, &t), -EINVAL);
	KUNIT_EXPECT_EQ(test, ucma_qp_type(RDMA_PS_IB, IB_QPT_RAW_PACKET, &t), -EINVAL);
	KUNIT_EXPECT_EQ(test, ucma_qp_type(RDMA_PS_IB, 0xff, &t), -EINVAL);
	/* unknown port spaces */
	KUNIT_EXPECT_EQ(test, ucma_qp_type(0, IB_QPT_RC, &t), -EINVAL);
	KUNIT_EXPECT_EQ(test, ucma_qp_type(0x0001, IB_QPT_RC, &t), -EINVAL);
	KUNIT_EXPECT_EQ(test, ucma_qp_type(0xffff, IB_QPT_RC, &t), -EINVAL);
}

static void ucma_listen_backlog_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ucma_listen_backlog(0, 1024), 1024);
	KUNIT_EXPECT_EQ(test, ucma_listen_backlog(1, 1024), 1);
	KUNIT_EXPECT_EQ(test, ucma_listen_backlog(1024, 1024), 1024);
	KUNIT_EXPECT_EQ(test, ucma_listen_backlog(1025, 1024), 1024);
	/* librdmacm passes an int: -1 arrives as U32_MAX */
	KUNIT_EXPECT_EQ(test, ucma_listen_backlog(U32_MAX, 1024), 1024);
	KUNIT_EXPECT_EQ(test, ucma_listen_backlog(0x80000000u, 8), 8);
	KUNIT_EXPECT_EQ(test, ucma_listen_backlog(5, 0), 0);
}

static void ucma_reject_reason_test(struct kunit *test)
{
	u8 r = 0, v;

	KUNIT_EXPECT_EQ(test, ucma_reject_reason(0, &r), 0);
	KUNIT_EXPECT_EQ(test, r, IB_CM_REJ_CONSUMER_DEFINED);
	KUNIT_EXPECT_EQ(test, r, 28);
	KUNIT_EXPECT_EQ(test, ucma_reject_reason(28, &r), 0);
	KUNIT_EXPECT_EQ(test, r, 28);
	KUNIT_EXPECT_EQ(test, ucma_reject_reason(35, &r), 0);
	KUNIT_EXPECT_EQ(test, r, 35);
	for (v = 1; v != 0; v++)
		if (v != 28 && v != 35)
			KUNIT_EXPECT_EQ_MSG(test, ucma_reject_reason(v, &r), -EINVAL,
					    "reason %u", v);
}

static void ucma_join_state_test(struct kunit *test)
{
	u8 s;

	KUNIT_EXPECT_EQ(test, ucma_join_state(RDMA_MC_JOIN_FLAG_FULLMEMBER, &s), 0);
	KUNIT_EXPECT_EQ(test, s, BIT(FULLMEMBER_JOIN));
	KUNIT_EXPECT_EQ(test, ucma_join_state(RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER, &s), 0);
	KUNIT_EXPECT_EQ(test, s, BIT(SENDONLY_FULLMEMBER_JOIN));
	KUNIT_EXPECT_EQ(test, ucma_join_state(RDMA_MC_JOIN_FLAG_RESERVED, &s), -EINVAL);
	KUNIT_EXPECT_EQ(test, ucma_join_state(0xffff, &s), -EINVAL);
}

static void ucma_bind_check_test(struct kunit *test)
{
	struct rdma_ucm_bind *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct sockaddr_in *sin = (struct sockaddr_in *)&b->addr;
	struct sockaddr_ib *sib = (struct sockaddr_ib *)&b->addr;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);
	sin->sin_family = AF_INET;
	b->addr_size = sizeof(*sin);
	KUNIT_EXPECT_EQ(test, ucma_check_bind(b), 0);
	b->addr_size = sizeof(struct sockaddr_in6);	/* longer than AF_INET */
	KUNIT_EXPECT_EQ(test, ucma_check_bind(b), -EINVAL);
	b->addr_size = 0;
	KUNIT_EXPECT_EQ(test, ucma_check_bind(b), -EINVAL);
	b->addr_size = sizeof(*sin);
	b->reserved = 1;
	KUNIT_EXPECT_EQ(test, ucma_check_bind(b), -EINVAL);
	b->reserved = 0;

	sib->sib_family = AF_IB;
	b->addr_size = sizeof(*sib);
	KUNIT_EXPECT_EQ(test, ucma_check_bind(b), 0);

	/* families the CM does not know have no size */
	sin->sin_family = AF_UNIX;
	b->addr_size = 2;
	KUNIT_EXPECT_EQ(test, ucma_check_bind(b), -EINVAL);
	sin->sin_family = AF_UNSPEC;
	KUNIT_EXPECT_EQ(test, ucma_check_bind(b), -EINVAL);
}

static void ucma_ip_checks_test(struct kunit *test)
{
	struct rdma_ucm_bind_ip bip = {};
	struct rdma_ucm_resolve_ip rip = {};

	KUNIT_EXPECT_EQ(test, ucma_check_bind_ip(&bip), -EINVAL);
	bip.addr.sin6_family = AF_INET6;
	KUNIT_EXPECT_EQ(test, ucma_check_bind_ip(&bip), 0);
	bip.addr.sin6_family = AF_INET;
	KUNIT_EXPECT_EQ(test, ucma_check_bind_ip(&bip), 0);
	/* a sockaddr_ib does not fit the sockaddr_in6 field */
	bip.addr.sin6_family = AF_IB;
	KUNIT_EXPECT_EQ(test, ucma_check_bind_ip(&bip), -EINVAL);

	/* RESOLVE_IP: no destination */
	KUNIT_EXPECT_EQ(test, ucma_check_resolve_ip(&rip), -EINVAL);
	rip.dst_addr.sin6_family = AF_INET;
	KUNIT_EXPECT_EQ(test, ucma_check_resolve_ip(&rip), 0);
	rip.src_addr.sin6_family = AF_INET6;
	KUNIT_EXPECT_EQ(test, ucma_check_resolve_ip(&rip), 0);
	rip.src_addr.sin6_family = AF_IB;
	KUNIT_EXPECT_EQ(test, ucma_check_resolve_ip(&rip), -EINVAL);
	rip.src_addr.sin6_family = 0;
	rip.dst_addr.sin6_family = AF_NETLINK;
	KUNIT_EXPECT_EQ(test, ucma_check_resolve_ip(&rip), -EINVAL);
}

static void ucma_resolve_addr_check_test(struct kunit *test)
{
	struct rdma_ucm_resolve_addr *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r);
	KUNIT_EXPECT_EQ(test, ucma_check_resolve_addr(r), -EINVAL);
	r->dst_addr.ss_family = AF_INET6;
	r->dst_size = sizeof(struct sockaddr_in6);
	KUNIT_EXPECT_EQ(test, ucma_check_resolve_addr(r), 0);
	/* a source size that disagrees with its family */
	r->src_addr.ss_family = AF_INET;
	r->src_size = sizeof(struct sockaddr_in6);
	KUNIT_EXPECT_EQ(test, ucma_check_resolve_addr(r), -EINVAL);
	r->src_size = sizeof(struct sockaddr_in);
	KUNIT_EXPECT_EQ(test, ucma_check_resolve_addr(r), 0);
	r->reserved = 7;
	KUNIT_EXPECT_EQ(test, ucma_check_resolve_addr(r), -EINVAL);
	r->reserved = 0;
	r->dst_size = 0xffff;
	KUNIT_EXPECT_EQ(test, ucma_check_resolve_addr(r), -EINVAL);
}

static void ucma_option_len_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ucma_id_option_len(RDMA_OPTION_ID_TOS), 1);
	KUNIT_EXPECT_EQ(test, ucma_id_option_len(RDMA_OPTION_ID_REUSEADDR), 4);
	KUNIT_EXPECT_EQ(test, ucma_id_option_len(RDMA_OPTION_ID_AFONLY), 4);
	KUNIT_EXPECT_EQ(test, ucma_id_option_len(RDMA_OPTION_ID_ACK_TIMEOUT), 1);
	KUNIT_EXPECT_EQ(test, ucma_id_option_len(4), UCMA_ENOTIMPL);
	KUNIT_EXPECT_EQ(test, ucma_id_option_len(U32_MAX), UCMA_ENOTIMPL);
}

static void ucma_paths_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ucma_paths_that_fit(0, 2), 0);
	KUNIT_EXPECT_EQ(test, ucma_paths_that_fit(8, 2), 0);
	KUNIT_EXPECT_EQ(test, ucma_paths_that_fit(8 + 71, 2), 0);
	/* a record that fits exactly is returned (6.1.190 fix) */
	KUNIT_EXPECT_EQ(test, ucma_paths_that_fit(8 + 72, 2), 1);
	KUNIT_EXPECT_EQ(test, ucma_paths_that_fit(8 + 144, 2), 2);
	KUNIT_EXPECT_EQ(test, ucma_paths_that_fit(0xffff, 2), 2);
	KUNIT_EXPECT_EQ(test, ucma_paths_that_fit(0xffff, 0), 0);
}

static void ucma_path_primary_test(struct kunit *test)
{
	struct ib_path_rec_data p = {};

	p.flags = IB_PATH_GMP | IB_PATH_PRIMARY | IB_PATH_BIDIRECTIONAL;
	KUNIT_EXPECT_TRUE(test, ucma_path_is_primary(&p));
	p.flags = IB_PATH_GMP | IB_PATH_PRIMARY | IB_PATH_INBOUND;
	KUNIT_EXPECT_FALSE(test, ucma_path_is_primary(&p));
	p.flags |= IB_PATH_OUTBOUND | IB_PATH_ALTERNATE;
	KUNIT_EXPECT_FALSE(test, ucma_path_is_primary(&p));
}

static void ucma_event_layout_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct rdma_ucm_event_resp), 336);
	KUNIT_EXPECT_EQ(test, offsetof(struct rdma_ucm_event_resp, uid), 0);
	KUNIT_EXPECT_EQ(test, offsetof(struct rdma_ucm_event_resp, id), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct rdma_ucm_event_resp, event), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct rdma_ucm_event_resp, status), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct rdma_ucm_event_resp, param), 20);
	KUNIT_EXPECT_EQ(test, offsetof(struct rdma_ucm_event_resp, reserved), 324);
	KUNIT_EXPECT_EQ(test, offsetof(struct rdma_ucm_event_resp, ece), 328);
	KUNIT_EXPECT_EQ(test, UCMA_EVENT_RESP_MIN, 324);
	KUNIT_EXPECT_EQ(test, sizeof(struct rdma_ucm_conn_param), 272);
	KUNIT_EXPECT_EQ(test, offsetof(struct rdma_ucm_conn_param, private_data_len), 264);
	KUNIT_EXPECT_EQ(test, sizeof(struct rdma_ucm_ud_param), 304);
	KUNIT_EXPECT_EQ(test, offsetof(struct rdma_ucm_ud_param, private_data), 40);
	KUNIT_EXPECT_EQ(test, sizeof(struct ib_uverbs_ah_attr), 32);
	/* the event numbers are ABI: user space switches on them */
	KUNIT_EXPECT_EQ(test, RDMA_CM_EVENT_CONNECT_REQUEST, 4);
	KUNIT_EXPECT_EQ(test, RDMA_CM_EVENT_DEVICE_REMOVAL, 11);
	KUNIT_EXPECT_EQ(test, RDMA_CM_EVENT_MULTICAST_JOIN, 12);
	KUNIT_EXPECT_EQ(test, RDMA_CM_EVENT_TIMEWAIT_EXIT, 15);
	KUNIT_EXPECT_TRUE(test, ucma_is_mc_event(RDMA_CM_EVENT_MULTICAST_JOIN));
	KUNIT_EXPECT_TRUE(test, ucma_is_mc_event(RDMA_CM_EVENT_MULTICAST_ERROR));
	KUNIT_EXPECT_FALSE(test, ucma_is_mc_event(RDMA_CM_EVENT_ESTABLISHED));
}

/* The events after which QUERY reads an id without its handler lock. */
static void ucma_event_ends_work_test(struct kunit *test)
{
	static const enum rdma_cm_event_type ends[] = {
		RDMA_CM_EVENT_ADDR_RESOLVED, RDMA_CM_EVENT_ADDR_ERROR,
		RDMA_CM_EVENT_ROUTE_RESOLVED, RDMA_CM_EVENT_ROUTE_ERROR,
		RDMA_CM_EVENT_CONNECT_RESPONSE, RDMA_CM_EVENT_CONNECT_ERROR,
		RDMA_CM_EVENT_UNREACHABLE, RDMA_CM_EVENT_REJECTED,
		RDMA_CM_EVENT_ESTABLISHED,
	};
	unsigned int i;
	size_t n = 0;
	int type;

	for (type = RDMA_CM_EVENT_ADDR_RESOLVED;
	     type <= RDMA_CM_EVENT_TIMEWAIT_EXIT; type++) {
		bool want = false;

		for (i = 0; i < ARRAY_SIZE(ends); i++)
			want |= ends[i] == type;
		KUNIT_EXPECT_EQ_MSG(test, ucma_event_ends_work(type), want,
				    "event %d", type);
		n += want;
	}
	KUNIT_EXPECT_EQ(test, n, ARRAY_SIZE(ends));
	/* a removal may come before the resolution's worker has run */
	KUNIT_EXPECT_FALSE(test, ucma_event_ends_work(RDMA_CM_EVENT_DEVICE_REMOVAL));
}

static void ucma_conn_event_test(struct kunit *test)
{
	struct rdma_ucm_conn_param *dst = kunit_kzalloc(test, sizeof(*dst), GFP_KERNEL);
	u8 *data = kunit_kzalloc(test, 255, GFP_KERNEL);
	struct rdma_conn_param src = {};
	int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dst);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, data);
	for (i = 0; i < 255; i++)
		data[i] = i ^ 0x5a;
	src.private_data = data;
	src.private_data_len = 255;
	src.responder_resources = 3;
	src.initiator_depth = 4;
	src.flow_control = 1;
	src.retry_count = 7;
	src.rnr_retry_count = 6;
	src.srq = 1;
	src.qp_num = 0x123456;
	src.qkey = 0xdeadbeef;
	memset(dst, 0xcc, sizeof(*dst));
	dst->qkey = 0;
	ucma_conn_param_to_user(dst, &src);
	KUNIT_EXPECT_EQ(test, dst->private_data_len, 255);
	KUNIT_EXPECT_EQ(test, memcmp(dst->private_data, data, 255), 0);
	KUNIT_EXPECT_EQ(test, dst->responder_resources, 3);
	KUNIT_EXPECT_EQ(test, dst->initiator_depth, 4);
	KUNIT_EXPECT_EQ(test, dst->flow_control, 1);
	KUNIT_EXPECT_EQ(test, dst->retry_count, 7);
	KUNIT_EXPECT_EQ(test, dst->rnr_retry_count, 6);
	KUNIT_EXPECT_EQ(test, dst->srq, 1);
	KUNIT_EXPECT_EQ(test, dst->qp_num, 0x123456);
	/* the qkey is not part of a connection event */
	KUNIT_EXPECT_EQ(test, dst->qkey, 0);

	/* a length without data is no data */
	memset(dst, 0, sizeof(*dst));
	src.private_data = NULL;
	src.private_data_len = 40;
	ucma_conn_param_to_user(dst, &src);
	KUNIT_EXPECT_EQ(test, dst->private_data_len, 0);
}

static void ucma_ud_event_test(struct kunit *test)
{
	struct rdma_ucm_ud_param *dst = kunit_kzalloc(test, sizeof(*dst), GFP_KERNEL);
	struct rdma_ud_param *src = kunit_kzalloc(test, sizeof(*src), GFP_KERNEL);
	static const u8 pd[4] = { 1, 2, 3, 4 };
	u8 zero[sizeof(dst->private_data)] = {};

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dst);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, src);
	src->qp_num = 0xffffff;
	src->qkey = 0x11111111;
	src->private_data = pd;
	src->private_data_len = sizeof(pd);
	src->ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_sl(&src->ah_attr, 5);
	rdma_ah_set_port_num(&src->ah_attr, 1);
	rdma_ah_set_grh(&src->ah_attr, NULL, 0, 0, 64, 0);

	/* no device: fine for a non-OPA address */
	ucma_ud_param_to_user(NULL, dst, src, false);
	KUNIT_EXPECT_EQ(test, dst->qp_num, 0xffffff);
	KUNIT_EXPECT_EQ(test, dst->qkey, 0x11111111);
	KUNIT_EXPECT_EQ(test, dst->private_data_len, sizeof(pd));
	KUNIT_EXPECT_EQ(test, memcmp(dst->private_data, pd, sizeof(pd)), 0);
	KUNIT_EXPECT_EQ(test, dst->ah_attr.sl, 5);
	KUNIT_EXPECT_EQ(test, dst->ah_attr.port_num, 1);
	KUNIT_EXPECT_EQ(test, dst->ah_attr.is_global, 1);
	KUNIT_EXPECT_EQ(test, dst->ah_attr.grh.hop_limit, 64);

	/* multicast: private_data is rdma_cm's context pointer, never data */
	memset(dst, 0, sizeof(*dst));
	ucma_ud_param_to_user(NULL, dst, src, true);
	KUNIT_EXPECT_EQ(test, dst->private_data_len, 0);
	KUNIT_EXPECT_EQ(test, memcmp(dst->private_data, zero, sizeof(zero)), 0);
	KUNIT_EXPECT_EQ(test, dst->qp_num, 0xffffff);

	/* an OPA address without a device is left alone, not converted */
	memset(dst, 0, sizeof(*dst));
	src->ah_attr.type = RDMA_AH_ATTR_TYPE_OPA;
	ucma_ud_param_to_user(NULL, dst, src, false);
	KUNIT_EXPECT_EQ(test, dst->ah_attr.sl, 0);
}

static void ucma_conn_param_from_user_test(struct kunit *test)
{
	struct rdma_ucm_conn_param *src = kunit_kzalloc(test, sizeof(*src), GFP_KERNEL);
	struct rdma_conn_param dst;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, src);
	src->qp_num = 0xff123456;
	src->qkey = 0x77;
	src->private_data_len = 200;
	src->retry_count = 7;
	ucma_conn_param_from_user(&dst, src, false);
	/* QPNs are 24 bits */
	KUNIT_EXPECT_EQ(test, dst.qp_num, 0x123456);
	KUNIT_EXPECT_EQ(test, dst.qkey, 0);
	KUNIT_EXPECT_PTR_EQ(test, dst.private_data, (const void *)src->private_data);
	KUNIT_EXPECT_EQ(test, dst.private_data_len, 200);
	KUNIT_EXPECT_EQ(test, dst.retry_count, 7);
	ucma_conn_param_from_user(&dst, src, true);
	KUNIT_EXPECT_EQ(test, dst.qkey, 0x77);
}

static struct kunit_case ucma_abi_cases[] = {
	KUNIT_CASE(ucma_cmd_numbers_test),
	KUNIT_CASE(ucma_cmd_limits_test),
	KUNIT_CASE(ucma_check_hdr_test),
	KUNIT_CASE(ucma_qp_type_test),
	KUNIT_CASE(ucma_listen_backlog_test),
	KUNIT_CASE(ucma_reject_reason_test),
	KUNIT_CASE(ucma_join_state_test),
	KUNIT_CASE(ucma_bind_check_test),
	KUNIT_CASE(ucma_ip_checks_test),
	KUNIT_CASE(ucma_resolve_addr_check_test),
	KUNIT_CASE(ucma_option_len_test),
	KUNIT_CASE(ucma_paths_test),
	KUNIT_CASE(ucma_path_primary_test),
	KUNIT_CASE(ucma_event_layout_test),
	KUNIT_CASE(ucma_event_ends_work_test),
	KUNIT_CASE(ucma_conn_event_test),
	KUNIT_CASE(ucma_ud_event_test),
	KUNIT_CASE(ucma_conn_param_from_user_test),
	{}
};

static struct kunit_suite ucma_abi_suite = {
	.name = "rdma_ucm_abi",
	.test_cases = ucma_abi_cases,
};

kunit_test_suite(ucma_abi_suite);

MODULE_AUTHOR("rdma_cm project");
MODULE_DESCRIPTION("KUnit tests for rdma_ucm");
MODULE_LICENSE("Dual BSD/GPL");
