// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: what a full swiw CQ does with a completion, for a kernel CQ
 * and for the ring a process maps (swiw_cq.c and swiw_uverbs.c).  The
 * completion is lost and IB_EVENT_CQ_ERR is reported, once in the CQ's
 * life: uverbs queues each event for the process until it reads it, so
 * a process that posts and never polls would otherwise have the kernel
 * allocate an event per doorbell for as long as it cares to ring.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "swiw_cq.c"
#include "swiw_uverbs.c"

struct ct_ctx {
	struct swiw_dev sdev;
	struct swiw_cq cq;
	struct swiw_qp qp;
	int events;
	enum ib_event_type last;
	int comps;
};

static struct ct_ctx *ct;

static void ct_event(struct ib_event *ev, void *ctx)
{
	ct->events++;
	ct->last = ev->event;
}

static void ct_comp(struct ib_cq *cq, void *ctx)
{
	ct->comps++;
}

static int ct_init(struct kunit *test)
{
	ct = kunit_kzalloc(test, sizeof(*ct), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ct);
	ct->cq.ibcq.device = &ct->sdev.ibdev;
	ct->cq.ibcq.event_handler = ct_event;
	ct->cq.ibcq.comp_handler = ct_comp;
	ct->qp.ibqp.qp_num = 7;
	return 0;
}

static bool ct_add_se(u64 wr_id, bool solicited)
{
	struct ib_wc wc = {
		.wr_id = wr_id,
		.status = IB_WC_WR_FLUSH_ERR,
		.qp = &ct->qp.ibqp,
	};

	return swiw_cq_add(&ct->cq, &wc, solicited);
}

static bool ct_add(u64 wr_id)
{
	return ct_add_se(wr_id, false);
}

/* A kernel CQ of 2: the third and later completions are lost. */
static void swiw_cq_overflow_once_test(struct kunit *test)
{
	struct ib_cq_init_attr attr = { .cqe = 2 };
	struct ib_wc wc[2];
	int i;

	KUNIT_ASSERT_EQ(test, swiw_create_cq(&ct->cq.ibcq, &attr, NULL), 0);
	KUNIT_EXPECT_TRUE(test, ct_add(1));
	KUNIT_EXPECT_TRUE(test, ct_add(2));
	for (i = 0; i < 100; i++)
		KUNIT_EXPECT_FALSE(test, ct_add(3 + i));
	KUNIT_EXPECT_EQ(test, ct->events, 1);
	KUNIT_EXPECT_EQ(test, ct->last, IB_EVENT_CQ_ERR);

	/* Polled: room again, and a later overflow reports nothing. */
	KUNIT_EXPECT_EQ(test, swiw_poll_cq(&ct->cq.ibcq, 2, wc), 2);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 1);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 2);
	KUNIT_EXPECT_TRUE(test, ct_add(200));
	KUNIT_EXPECT_TRUE(test, ct_add(201));
	KUNIT_EXPECT_FALSE(test, ct_add(202));
	KUNIT_EXPECT_EQ(test, ct->events, 1);
	swiw_destroy_cq(&ct->cq.ibcq, NULL);
}

/*
 * A process's ring of 4 that it never polls: what swiw_flush_ring()
 * meets each time a hostile process fills its send ring and rings.
 */
static void swiw_cq_user_overflow_once_test(struct kunit *test)
{
	struct swiw_cq *cq = &ct->cq;
	int i;

	cq->size = 4;
	spin_lock_init(&cq->lock);
	cq->ucqe = kunit_kzalloc(test, cq->size * sizeof(*cq->ucqe) +
				 sizeof(*cq->uctrl), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cq->ucqe);
	cq->uctrl = (struct siw_cq_ctrl *)&cq->ucqe[cq->size];

	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_TRUE(test, ct_add(i));
	for (i = 0; i < 1000; i++)
		KUNIT_EXPECT_FALSE(test, ct_add(100 + i));
	KUNIT_EXPECT_EQ(test, ct->events, 1);
	KUNIT_EXPECT_EQ(test, cq->ucqe[0].id, 0);
	KUNIT_EXPECT_EQ(test, cq->ucqe[0].qp_id, 7);
	KUNIT_EXPECT_EQ(test, cq->ucqe[0].status, SIW_WC_WR_FLUSH_ERR);

	/* The process takes one; the next fills it, the one after is lost. */
	cq->ucqe[0].flags = 0;
	KUNIT_EXPECT_TRUE(test, ct_add(2000));
	KUNIT_EXPECT_EQ(test, cq->ucqe[0].id, 2000);
	KUNIT_EXPECT_FALSE(test, ct_add(2001));
	KUNIT_EXPECT_EQ(test, ct->events, 1);
}

/*
 * Armed for solicited completions, a CQ runs its handler for the first
 * solicited one only (a Send with Solicited Event's receive); armed for
 * the next, for any.  Each arming fires once.
 */
static void swiw_cq_solicited_test(struct kunit *test)
{
	struct ib_cq_init_attr attr = { .cqe = 8 };
	struct ib_cq *ibcq = &ct->cq.ibcq;

	KUNIT_ASSERT_EQ(test, swiw_create_cq(ibcq, &attr, NULL), 0);
	KUNIT_EXPECT_TRUE(test, ct_add(1));
	KUNIT_EXPECT_EQ(test, ct->comps, 0);	/* not armed */

	KUNIT_EXPECT_EQ(test, swiw_req_notify_cq(ibcq, IB_CQ_SOLICITED), 0);
	KUNIT_EXPECT_TRUE(test, ct_add(2));
	KUNIT_EXPECT_EQ(test, ct->comps, 0);
	KUNIT_EXPECT_TRUE(test, ct_add_se(3, true));
	KUNIT_EXPECT_EQ(test, ct->comps, 1);
	KUNIT_EXPECT_TRUE(test, ct_add_se(4, true));
	KUNIT_EXPECT_EQ(test, ct->comps, 1);	/* fired: disarmed */

	/* Solicited does not narrow an arming for the next completion. */
	KUNIT_EXPECT_EQ(test, swiw_req_notify_cq(ibcq, IB_CQ_NEXT_COMP), 0);
	KUNIT_EXPECT_EQ(test, swiw_req_notify_cq(ibcq, IB_CQ_SOLICITED), 0);
	KUNIT_EXPECT_TRUE(test, ct_add(5));
	KUNIT_EXPECT_EQ(test, ct->comps, 2);

	KUNIT_EXPECT_EQ(test, swiw_req_notify_cq(ibcq, IB_CQ_SOLICITED |
						 IB_CQ_REPORT_MISSED_EVENTS), 1);
	swiw_destroy_cq(ibcq, NULL);
}

static struct kunit_case swiw_cq_cases[] = {
	KUNIT_CASE(swiw_cq_overflow_once_test),
	KUNIT_CASE(swiw_cq_user_overflow_once_test),
	KUNIT_CASE(swiw_cq_solicited_test),
	{}
};

static struct kunit_suite swiw_cq_suite = {
	.name = "swiw_cq",
	.init = ct_init,
	.test_cases = swiw_cq_cases,
};

kunit_test_suites(&swiw_cq_suite);

MODULE_DESCRIPTION("KUnit tests of swiw's completion queues");
MODULE_LICENSE("Dual BSD/GPL");
