// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite rdma_cm_id: ids through the exported API of the loaded
 * rdma_cm.ko, without any RDMA device: creation, settings per state,
 * bind to wildcard addresses and its errors, the handler lock, the
 * resource tracking back pointer, address resolution's failures, route
 * and QP calls in the wrong state, wildcard listeners (with whatever
 * devices the machine has), connection calls without a connection and
 * multicast joins an id cannot make.
 *
 * The ids live in init_net and use fixed ports from 45000 up, which
 * nothing else binds while the KUnit modules run.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <net/net_namespace.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ib.h>

#include "cma_priv.h"

#define CMA_TEST_PORT	45000

static int cma_test_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	return 0;
}

static struct rdma_cm_id *cma_test_id(struct kunit *test,
				      enum rdma_ucm_port_space ps,
				      enum ib_qp_type qp_type)
{
	struct rdma_cm_id *id;

	id = rdma_create_id(&init_net, cma_test_handler, test, ps, qp_type);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	return id;
}

static enum rdma_cm_state cma_test_state(struct rdma_cm_id *id)
{
	return READ_ONCE(cma_id_priv(id)->state);
}

static struct sockaddr *cma_test_sin(struct sockaddr_storage *ss, __be32 ip,
				     u16 port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = ip;
	sin->sin_port = htons(port);
	return (struct sockaddr *)ss;
}

static struct sockaddr *cma_test_sin6(struct sockaddr_storage *ss,
				      const struct in6_addr *ip, u16 port)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_addr = *ip;
	sin6->sin6_port = htons(port);
	return (struct sockaddr *)ss;
}

static void cma_id_create_test(struct kunit *test)
{
	struct rdma_cm_id *id = cma_test_id(test, RDMA_PS_UDP, IB_QPT_UD);
	struct rdma_id_private *id_priv = cma_id_priv(id);

	KUNIT_EXPECT_PTR_EQ(test, id->context, (void *)test);
	KUNIT_EXPECT_PTR_EQ(test, (void *)id->event_handler,
			    (void *)cma_test_handler);
	KUNIT_EXPECT_EQ(test, id->ps, RDMA_PS_UDP);
	KUNIT_EXPECT_EQ(test, id->qp_type, IB_QPT_UD);
	KUNIT_EXPECT_NULL(test, id->device);
	KUNIT_EXPECT_NULL(test, id->qp);
	KUNIT_EXPECT_PTR_EQ(test, id->route.addr.dev_addr.net, &init_net);
	KUNIT_EXPECT_EQ(test, cma_test_state(id), RDMA_CM_IDLE);
	KUNIT_EXPECT_EQ(test, refcount_read(&id_priv->refcount), 1);
	KUNIT_EXPECT_EQ(test, id_priv->seq_num & ~0x00ffffffU, 0U);
	/* Kernel ids are named for resource tracking by their module. */
	KUNIT_EXPECT_STREQ(test, id_priv->res.kern_name, KBUILD_MODNAME);
	KUNIT_EXPECT_PTR_EQ(test, rdma_res_to_id(&id_priv->res), id);
	rdma_destroy_id(id);
}

static void cma_id_res_to_id_test(struct kunit *test)
{
	struct rdma_restrack_entry res = { .type = RDMA_RESTRACK_QP };

	KUNIT_EXPECT_NULL(test, rdma_res_to_id(&res));
	KUNIT_EXPECT_NULL(test, rdma_res_to_id(NULL));
}

static void cma_id_lock_handler_test(struct kunit *test)
{
	struct rdma_cm_id *id = cma_test_id(test, RDMA_PS_TCP, IB_QPT_RC);
	struct mutex *m = &cma_id_priv(id)->handler_mutex;

	KUNIT_EXPECT_FALSE(test, mutex_is_locked(m));
	rdma_lock_handler(id);
	KUNIT_EXPECT_TRUE(test, mutex_is_locked(m));
	rdma_unlock_handler(id);
	KUNIT_EXPECT_FALSE(test, mutex_is_locked(m));
	rdma_destroy_id(id);
}

static void cma_id_options_test(struct kunit *test)
{
	struct rdma_cm_id *id = cma_test_id(test, RDMA_PS_TCP, IB_QPT_RC);
	struct rdma_cm_id *ud = cma_test_id(test, RDMA_PS_UDP, IB_QPT_UD);
	struct rdma_id_private *id_priv = cma_id_priv(id);
	struct sockaddr_storage ss;

	/* IDLE: everything goes. */
	KUNIT_EXPECT_EQ(test, rdma_set_reuseaddr(id, 1), 0);
	KUNIT_EXPECT_EQ(test, rdma_set_reuseaddr(id, 0), 0);
	KUNIT_EXPECT_EQ(test, id_priv->reuseaddr, 0);
	KUNIT_EXPECT_EQ(test, rdma_set_afonly(id, 1), 0);
	KUNIT_EXPECT_EQ(test, id_priv->afonly, 1);
	KUNIT_EXPECT_EQ(test, id_priv->afonly_set, 1);

	/* QP overrides follow the QP type, not the state. */
	KUNIT_EXPECT_EQ(test, rdma_set_ack_timeout(id, 18), 0);
	KUNIT_EXPECT_EQ(test, id_priv->timeout, 18);
	KUNIT_EXPECT_TRUE(test, id_priv->timeout_set);
	KUNIT_EXPECT_EQ(test, rdma_set_ack_timeout(ud, 18), -EINVAL);
	KUNIT_EXPECT_FALSE(test, cma_id_priv(ud)->timeout_set);
	KUNIT_EXPECT_EQ(test, rdma_set_min_rnr_timer(id, 12), 0);
	KUNIT_EXPECT_EQ(test, id_priv->min_rnr_timer, 12);
	KUNIT_EXPECT_EQ(test, rdma_set_min_rnr_timer(id, 0x20), -EINVAL);
	KUNIT_EXPECT_EQ(test, id_priv->min_rnr_timer, 12);
	KUNIT_EXPECT_EQ(test, rdma_set_min_rnr_timer(ud, 1), -EINVAL);
	rdma_set_service_type(id, 0x20);
	KUNIT_EXPECT_EQ(test, id_priv->tos, 0x20);
	KUNIT_EXPECT_TRUE(test, id_priv->tos_set);

	/* ADDR_BOUND: reuse may be turned on, not off; afonly still. */
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(id, cma_test_sin(&ss, 0,
							      CMA_TEST_PORT)),
			0);
	KUNIT_EXPECT_EQ(test, rdma_set_reuseaddr(id, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_set_reuseaddr(id, 1), 0);
	KUNIT_EXPECT_EQ(test, id_priv->reuseaddr, 1);
	KUNIT_EXPECT_EQ(test, rdma_set_afonly(id, 0), 0);

	rdma_destroy_id(ud);
	rdma_destroy_id(id);
}

static void cma_id_bind_test(struct kunit *test)
{
	struct rdma_cm_id *a = cma_test_id(test, RDMA_PS_TCP, IB_QPT_RC);
	struct rdma_cm_id *b = cma_test_id(test, RDMA_PS_TCP, IB_QPT_RC);
	struct rdma_cm_id *u = cma_test_id(test, RDMA_PS_UDP, IB_QPT_UD);
	struct sockaddr_storage ss;

	KUNIT_ASSERT_EQ(test, rdma_bind_addr(a, cma_test_sin(&ss, 0,
							     CMA_TEST_PORT + 1)),
			0);
	KUNIT_EXPECT_EQ(test, cma_test_state(a), RDMA_CM_ADDR_BOUND);
	KUNIT_EXPECT_NULL(test, a->device);
	KUNIT_EXPECT_EQ(test, cma_addr_port((struct sockaddr *)
					    &a->route.addr.src_addr),
			CMA_TEST_PORT + 1);
	/* An IPv4 id is IPv4-only. */
	KUNIT_EXPECT_EQ(test, cma_id_priv(a)->afonly, 1);
	KUNIT_EXPECT_EQ(test, cma_id_priv(a)->bound_ps, RDMA_PS_TCP);
	/* Its destination is the IPv4 wildcard until one is resolved. */
	KUNIT_EXPECT_EQ(test, a->route.addr.dst_addr.ss_family, AF_INET);
	KUNIT_EXPECT_TRUE(test, cma_any_addr((struct sockaddr *)
					     &a->route.addr.dst_addr));

	/* Bound once only. */
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(a, cma_test_sin(&ss, 0,
							     CMA_TEST_PORT + 2)),
			-EINVAL);

	/* Wildcards overlap on one port; a failed bind leaves IDLE. */
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(b, cma_test_sin(&ss, 0,
							     CMA_TEST_PORT + 1)),
			-EADDRNOTAVAIL);
	KUNIT_EXPECT_EQ(test, cma_test_state(b), RDMA_CM_IDLE);
	/* The UDP port space is another one. */
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(u, cma_test_sin(&ss, 0,
							     CMA_TEST_PORT + 1)),
			0);

	/* Destroying the holder frees the port. */
	rdma_destroy_id(a);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(b, cma_test_sin(&ss, 0,
							     CMA_TEST_PORT + 1)),
			0);
	rdma_destroy_id(b);
	rdma_destroy_id(u);
}

static void cma_id_bind_reuse_test(struct kunit *test)
{
	struct rdma_cm_id *a = cma_test_id(test, RDMA_PS_TCP, IB_QPT_RC);
	struct rdma_cm_id *b = cma_test_id(test, RDMA_PS_TCP, IB_QPT_RC);
	struct rdma_cm_id *c = cma_test_id(test, RDMA_PS_TCP, IB_QPT_RC);
	struct sockaddr_storage ss;

	KUNIT_ASSERT_EQ(test, rdma_set_reuseaddr(a, 1), 0);
	KUNIT_ASSERT_EQ(test, rdma_set_reuseaddr(b, 1), 0);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(a, cma_test_sin(&ss, 0,
							     CMA_TEST_PORT + 3)),
			0);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(b, cma_test_sin(&ss, 0,
							     CMA_TEST_PORT + 3)),
			0);
	/* Sharing needs reuseaddr on both sides. */
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(c, cma_test_sin(&ss, 0,
							     CMA_TEST_PORT + 3)),
			-EADDRNOTAVAIL);
	rdma_destroy_id(a);
	rdma_destroy_id(b);
	rdma_destroy_id(c);
}

static void cma_id_bind_family_test(struct kunit *test)
{
	struct rdma_cm_id *v4 = cma_test_id(test, RDMA_PS_TCP, IB_QPT_RC);
	struct rdma_cm_id *v6 = cma_test_id(test, RDMA_PS_TCP, IB_QPT_RC);
	struct rdma_cm_id *x = cma_test_id(test, RDMA_PS_TCP, IB_QPT_RC);
	struct in6_addr ll = { .s6_addr = { 0xfe, 0x80, [15] = 1 } };
	struct sockaddr_storage ss;

	/* An IPv6-only wildcard and an IPv4 wildcard share a port. */
	KUNIT_ASSERT_EQ(test, rdma_set_afonly(v6, 1), 0);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(v6, cma_test_sin6(&ss, &in6addr_any,
							       CMA_TEST_PORT + 4)),
			0);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(v4, cma_test_sin(&ss, 0,
							      CMA_TEST_PORT + 4)),
			0);

	/* Unknown family; link-local without scope; nobody's address. */
	memset(&ss, 0, sizeof(ss));
	ss.ss_family = AF_UNIX;
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(x, (struct sockaddr *)&ss),
			-EAFNOSUPPORT);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(x, cma_test_sin6(&ss, &ll,
							      CMA_TEST_PORT + 5)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(x, cma_test_sin(&ss,
							     htonl(0xc0000201),
							     CMA_TEST_PORT + 5)),
			-EADDRNOTAVAIL);
	KUNIT_EXPECT_EQ(test, cma_test_state(x), RDMA_CM_IDLE);
	KUNIT_EXPECT_NULL(test, x->device);

	/* Port 0: an ephemeral port, written back. */
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(x, cma_test_sin(&ss, 0, 0)), 0);
	KUNIT_EXPECT_NE(test, cma_addr_port((struct sockaddr *)
					    &x->route.addr.src_addr), 0);

	rdma_destroy_id(v4);
	rdma_destroy_id(v6);
	rdma_destroy_id(x);
}

/* Events of one id, for the resolution cases. */
struct cma_test_events {
	struct completion	done;
	enum rdma_cm_event_type	event;
	int			status;
	int			count;
};

static int cma_test_record(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct cma_test_events *te = id->context;

	te->event = ev->event;
	te->status = ev->status;
	te->count++;
	complete(&te->done);
	return 0;
}

static struct rdma_cm_id *cma_test_rec_id(struct kunit *test,
					  struct cma_test_events *te)
{
	struct rdma_cm_id *id;

	init_completion(&te->done);
	te->count = 0;
	id = rdma_create_id(&init_net, cma_test_record, te, RDMA_PS_TCP,
			    IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	return id;
}

/*
 * Resolution that cannot succeed without a device: an address nobody
 * has (TEST-NET-1).  ib_core fails it at once without a route, or
 * reports ADDR_ERROR later; either way the implied bind stays.
 */
static void cma_id_resolve_error_test(struct kunit *test)
{
	struct cma_test_events te;
	struct rdma_cm_id *id = cma_test_rec_id(test, &te);
	struct sockaddr *src = (struct sockaddr *)&id->route.addr.src_addr;
	struct sockaddr_storage ss;
	int ret;

	ret = rdma_resolve_addr(id, NULL, cma_test_sin(&ss, htonl(0xc0000201),
						       CMA_TEST_PORT + 6),
				500);
	if (!ret) {
		KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&te.done,
								  10 * HZ),
				0UL);
		KUNIT_EXPECT_EQ(test, te.event, RDMA_CM_EVENT_ADDR_ERROR);
		KUNIT_EXPECT_LT(test, te.status, 0);
	} else {
		KUNIT_EXPECT_LT(test, ret, 0);
		KUNIT_EXPECT_EQ(test, te.count, 0);
	}
	KUNIT_EXPECT_EQ(test, cma_test_state(id), RDMA_CM_ADDR_BOUND);
	KUNIT_EXPECT_EQ(test, src->sa_family, AF_INET);
	KUNIT_EXPECT_NE(test, cma_addr_port(src), 0);
	KUNIT_EXPECT_NULL(test, id->device);
	rdma_destroy_id(id);
}

static void cma_id_resolve_args_test(struct kunit *test)
{
	struct cma_test_events te;
	struct rdma_cm_id *id = cma_test_rec_id(test, &te);
	struct sockaddr *dst = (struct sockaddr *)&id->route.addr.dst_addr;
	struct sockaddr_storage ss;

	memset(&ss, 0, sizeof(ss));
	ss.ss_family = AF_UNIX;
	KUNIT_EXPECT_EQ(test, rdma_resolve_addr(id, NULL,
						(struct sockaddr *)&ss, 500),
			-EAFNOSUPPORT);
	KUNIT_EXPECT_EQ(test, cma_test_state(id), RDMA_CM_IDLE);

	/* An IPv4 source and an IPv6 destination do not mix. */
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(id, cma_test_sin(&ss, 0,
							      CMA_TEST_PORT + 7)),
			0);
	KUNIT_EXPECT_EQ(test, rdma_resolve_addr(id, NULL,
						cma_test_sin6(&ss, &in6addr_loopback,
							      CMA_TEST_PORT + 7),
						500),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, cma_test_state(id), RDMA_CM_ADDR_BOUND);
	KUNIT_EXPECT_EQ(test, dst->sa_family, 0);
	KUNIT_EXPECT_EQ(test, te.count, 0);
	rdma_destroy_id(id);
}

/*
 * A loopback destination resolves to a local port: ADDR_RESOLVED on a
 * device if there is one, -ENODEV at once otherwise.
 */
static void cma_id_resolve_loopback_test(struct kunit *test)
{
	struct cma_test_events te;
	struct rdma_cm_id *id = cma_test_rec_id(test, &te);
	struct sockaddr_storage ss;
	int ret;

	ret = rdma_resolve_addr(id, NULL, cma_test_sin(&ss, htonl(INADDR_LOOPBACK),
						       CMA_TEST_PORT + 8),
				500);
	if (ret) {
		KUNIT_EXPECT_EQ(test, ret, -ENODEV);
		KUNIT_EXPECT_EQ(test, cma_test_state(id), RDMA_CM_ADDR_BOUND);
		KUNIT_EXPECT_NULL(test, id->device);
	} else {
		KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&te.done,
								  10 * HZ),
				0UL);
		KUNIT_EXPECT_EQ(test, te.event, RDMA_CM_EVENT_ADDR_RESOLVED);
		KUNIT_EXPECT_EQ(test, cma_test_state(id),
				RDMA_CM_ADDR_RESOLVED);
		KUNIT_EXPECT_NOT_NULL(test, id->device);
	}
	KUNIT_EXPECT_EQ(test, te.count, ret ? 0 : 1);
	rdma_destroy_id(id);
}

/* Route and QP calls on an id that has no address or device yet. */
static void cma_id_route_state_test(struct kunit *test)
{
	struct rdma_cm_id *id = cma_test_id(test, RDMA_PS_TCP, IB_QPT_RC);
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT };
	struct sa_path_rec path = {};
	int mask = 0;

	KUNIT_EXPECT_EQ(test, rdma_resolve_route(id, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_resolve_route(id, 1000), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_set_ib_path(id, &path), -EINVAL);
	KUNIT_EXPECT_EQ(test, cma_test_state(id), RDMA_CM_IDLE);
	KUNIT_EXPECT_NULL(test, id->route.path_rec);
	KUNIT_EXPECT_EQ(test, rdma_init_qp_attr(id, &attr, &mask), -EINVAL);
	rdma_destroy_id(id);
}

static void cma_id_listen_test(struct kunit *test)
{
	struct rdma_cm_id *a = cma_test_id(test, RDMA_PS_TCP, IB_QPT_RC);
	struct rdma_cm_id *b = cma_test_id(test, RDMA_PS_TCP, IB_QPT_RC);
	struct rdma_cm_id *c = cma_test_id(test, RDMA_PS_TCP, IB_QPT_RC);
	struct sockaddr_storage ss;

	/* An unbound id binds to the IPv4 wildcard and an ephemeral port. */
	KUNIT_EXPECT_EQ(test, rdma_listen(a, 8), 0);
	KUNIT_EXPECT_EQ(test, cma_test_state(a), RDMA_CM_LISTEN);
	KUNIT_EXPECT_EQ(test, a->route.addr.src_addr.ss_family, AF_INET);
	KUNIT_EXPECT_NE(test, cma_addr_port(cma_src_addr(cma_id_priv(a))), 0);
	KUNIT_EXPECT_NULL(test, a->device);
	KUNIT_EXPECT_EQ(test, rdma_listen(a, 8), -EINVAL);

	/* A listener does not share its port, even under reuseaddr. */
	KUNIT_ASSERT_EQ(test, rdma_set_reuseaddr(b, 1), 0);
	KUNIT_ASSERT_EQ(test, rdma_set_reuseaddr(c, 1), 0);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(b, cma_test_sin(&ss, 0,
							     CMA_TEST_PORT + 30)),
			0);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(c, cma_test_sin(&ss, 0,
							     CMA_TEST_PORT + 30)),
			0);
	KUNIT_EXPECT_EQ(test, rdma_listen(b, 8), -EADDRNOTAVAIL);
	KUNIT_EXPECT_EQ(test, cma_test_state(b), RDMA_CM_ADDR_BOUND);
	rdma_destroy_id(c);
	KUNIT_EXPECT_EQ(test, rdma_listen(b, 8), 0);
	KUNIT_EXPECT_EQ(test, cma_test_state(b), RDMA_CM_LISTEN);

	rdma_destroy_id(a);
	rdma_destroy_id(b);
}

static void cma_id_conn_state_test(struct kunit *test)
{
	struct rdma_cm_id *id = cma_test_id(test, RDMA_PS_TCP, IB_QPT_RC);
	struct rdma_conn_param param = {};

	KUNIT_EXPECT_EQ(test, rdma_connect(id, &param), -EINVAL);
	rdma_lock_handler(id);
	KUNIT_EXPECT_EQ(test, rdma_connect_locked(id, &param), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_accept(id, &param), -EINVAL);
	rdma_unlock_handler(id);
	KUNIT_EXPECT_EQ(test, rdma_reject(id, NULL, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_disconnect(id), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_notify(id, IB_EVENT_COMM_EST), -EINVAL);
	KUNIT_EXPECT_NULL(test, rdma_iw_cm_id(id));
	KUNIT_EXPECT_EQ(test, cma_test_state(id), RDMA_CM_IDLE);
	rdma_destroy_id(id);
}

static void cma_id_mcast_args_test(struct kunit *test)
{
	struct rdma_cm_id *ud = cma_test_id(test, RDMA_PS_UDP, IB_QPT_UD);
	struct rdma_cm_id *rc = cma_test_id(test, RDMA_PS_TCP, IB_QPT_RC);
	struct sockaddr_storage grp;
	struct sockaddr *g;

	g = cma_test_sin(&grp, htonl(0xef010101), 0);	/* 239.1.1.1 */
	/* No device yet, or not UD: nothing to join with. */
	KUNIT_EXPECT_EQ(test, rdma_join_multicast(ud, g, BIT(0), NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_join_multicast(rc, g, BIT(0), NULL),
			-EINVAL);
	KUNIT_EXPECT_TRUE(test, list_empty(&cma_id_priv(ud)->mc_list));
	/* Leaving a group never joined does nothing. */
	rdma_leave_multicast(ud, g);
	rdma_destroy_id(ud);
	rdma_destroy_id(rc);
}

static struct kunit_case cma_id_cases[] = {
	KUNIT_CASE(cma_id_create_test),
	KUNIT_CASE(cma_id_res_to_id_test),
	KUNIT_CASE(cma_id_lock_handler_test),
	KUNIT_CASE(cma_id_options_test),
	KUNIT_CASE(cma_id_bind_test),
	KUNIT_CASE(cma_id_bind_reuse_test),
	KUNIT_CASE(cma_id_bind_family_test),
	KUNIT_CASE(cma_id_resolve_error_test),
	KUNIT_CASE(cma_id_resolve_args_test),
	KUNIT_CASE(cma_id_resolve_loopback_test),
	KUNIT_CASE(cma_id_route_state_test),
	KUNIT_CASE(cma_id_listen_test),
	KUNIT_CASE(cma_id_conn_state_test),
	KUNIT_CASE(cma_id_mcast_args_test),
	{}
};

static struct kunit_suite cma_id_suite = {
	.name = "rdma_cm_id",
	.test_cases = cma_id_cases,
};

kunit_test_suite(cma_id_suite);
