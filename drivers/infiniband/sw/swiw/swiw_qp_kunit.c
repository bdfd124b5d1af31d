// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: how a swiw QP flushes its queues when it fails, and what a
 * request posted meanwhile gets.  ib_drain_qp() moves the QP to ERROR,
 * posts one marker to each queue and waits for their completions, so a
 * request posted at any point of the close work must complete, once.
 * The QP has no stream here; its CQs are stubs that record completions
 * and, on cue, post from inside a completion as a ULP's handler does.
 *
 * Suite swiw_srq: shared receive queues (swiw_srq.c) as QPs' rx works
 * take from them, the limit event, and what a QP on an SRQ flushes.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "swiw_qp.c"
#include "swiw_srq.c"

#define QT_NR_WC	64

struct qt_ctx {
	struct swiw_dev sdev;
	struct swiw_cq scq;
	struct swiw_cq rcq;
	struct swiw_qp qp;
	struct swiw_srq srq;
	struct swiw_qp sqp;		/* a QP on srq */
	int srq_events;
	struct ib_wc wc[QT_NR_WC];
	bool wc_recv[QT_NR_WC];
	int nr_wc;
	int overflow;
	/* If set: completions the CQs take before they overflow. */
	int room;
	/* Re-post a receive from this many receives' flush completions. */
	int repost;
	/* A process's mapped rings: posts it makes into any free slot. */
	int hostile;
	u64 next_id;
	int released;
	/* Post a send with this wr_id from the first receive flushed. */
	u64 post_on_recv;
	int post_ret;
};

static struct qt_ctx *qt;

/* Stubs for what swiw_qp.c takes from the rest of swiw. */
struct workqueue_struct *swiw_wq;
bool swiw_tx_large;

bool swiw_cq_add(struct swiw_cq *cq, const struct ib_wc *wc, bool solicited)
{
	bool recv = cq == &qt->rcq;

	if (qt->nr_wc == QT_NR_WC || (qt->room && qt->nr_wc == qt->room)) {
		qt->overflow++;
		return false;
	}
	qt->wc_recv[qt->nr_wc] = recv;
	qt->wc[qt->nr_wc++] = *wc;
	if (recv && qt->post_on_recv) {
		struct ib_send_wr wr = {
			.wr_id = qt->post_on_recv,
			.opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
		};
		const struct ib_send_wr *bad;

		qt->post_on_recv = 0;
		qt->post_ret = swiw_post_send(&qt->qp.ibqp, &wr, &bad);
	}
	if (recv && qt->repost) {
		struct ib_recv_wr wr = { .wr_id = 1000 + qt->repost };
		const struct ib_recv_wr *bad;

		qt->repost--;
		swiw_post_recv(&qt->qp.ibqp, &wr, &bad);
	}
	return true;
}

void swiw_tx_work(struct work_struct *work)
{
}

void swiw_tx_doorbell_run(struct swiw_qp *qp)
{
}

void swiw_rx_work(struct work_struct *work)
{
}

bool swiw_rx_direct(struct swiw_qp *qp, struct sock *sk)
{
	return false;
}

void swiw_rx_reset(struct swiw_rx *rx)
{
}

int swiw_tx_terminate(struct swiw_qp *qp, struct socket *sock, u32 term)
{
	return -ENOTCONN;
}

void *swiw_uqueue_alloc(struct ib_udata *udata, size_t len,
			struct rdma_user_mmap_entry **map)
{
	return NULL;
}

void swiw_uqueue_free(void *addr, struct rdma_user_mmap_entry *map)
{
}

/* A process that posts to every free slot of its ring at once. */
static void qt_ufill(struct swiw_ring *r)
{
	while (qt->hostile && r->head - r->tail < r->size) {
		struct swiw_wqe *w = &r->wqe[r->head & (r->size - 1)];

		memset(w, 0, sizeof(*w));
		w->wr_id = qt->next_id++;
		w->opcode = IB_WR_SEND;
		w->signaled = true;
		r->head++;
		qt->hostile--;
	}
}

void swiw_usq_fetch(struct swiw_qp *qp)
{
	qt_ufill(&qp->sq);
}

void swiw_urq_fetch(struct swiw_qp *qp)
{
	qt_ufill(&qp->rq);
}

void swiw_uq_release(struct swiw_qp *qp, bool recv, u32 pos)
{
	qt->released++;
}

void swiw_usrq_fetch(struct swiw_srq *srq)
{
}

void swiw_usrq_release(struct swiw_srq *srq, u32 pos)
{
}

static int qt_init(struct kunit *test)
{
	struct ib_qp_init_attr attr = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	/* NULL on failure: .exit, which runs after a failed .init too, skips. */
	qt = kunit_kzalloc(test, sizeof(*qt), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qt);
	xa_init_flags(&qt->sdev.qps, XA_FLAGS_ALLOC1);
	attr.send_cq = &qt->scq.ibcq;
	attr.recv_cq = &qt->rcq.ibcq;
	qt->qp.ibqp.device = &qt->sdev.ibdev;
	qt->qp.ibqp.send_cq = attr.send_cq;
	qt->qp.ibqp.recv_cq = attr.recv_cq;
	KUNIT_ASSERT_EQ(test, swiw_create_qp(&qt->qp.ibqp, &attr, NULL), 0);
	return 0;
}

static void qt_exit(struct kunit *test)
{
	if (!qt)
		return;
	if (qt->qp.sq.wqe)
		swiw_destroy_qp(&qt->qp.ibqp, NULL);
	xa_destroy(&qt->sdev.qps);
}

static int qt_post(struct ib_qp *ibqp, bool recv, u64 wr_id)
{
	struct ib_send_wr swr = {
		.wr_id = wr_id,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct ib_recv_wr rwr = { .wr_id = wr_id };
	const struct ib_send_wr *sbad;
	const struct ib_recv_wr *rbad;

	if (recv)
		return swiw_post_recv(ibqp, &rwr, &rbad);
	return swiw_post_send(ibqp, &swr, &sbad);
}

/* The completion of @wr_id: its index, or -1 if none; at most one. */
static int qt_find(struct kunit *test, bool recv, u64 wr_id)
{
	int i, at = -1;

	for (i = 0; i < qt->nr_wc; i++) {
		if (qt->wc_recv[i] != recv || qt->wc[i].wr_id != wr_id)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, at, -1, "wr_id %llu twice", wr_id);
		KUNIT_EXPECT_EQ(test, qt->wc[i].status, IB_WC_WR_FLUSH_ERR);
		at = i;
	}
	return at;
}

/* Fail the QP as a disconnect does and wait for its close work. */
static void qt_fail(struct swiw_qp *qp)
{
	swiw_qp_fail(qp);
	flush_work(&qp->close_work);
}

/* What is queued when the QP fails is flushed, each queue in order. */
static void swiw_qp_flush_test(struct kunit *test)
{
	struct swiw_qp *qp = &qt->qp;

	qp->state = SWIW_QP_RTS;	/* as swiw_attach() leaves it */
	KUNIT_ASSERT_EQ(test, qt_post(&qp->ibqp, true, 1), 0);
	KUNIT_ASSERT_EQ(test, qt_post(&qp->ibqp, true, 2), 0);
	KUNIT_ASSERT_EQ(test, qt_post(&qp->ibqp, false, 3), 0);
	KUNIT_ASSERT_EQ(test, qt_post(&qp->ibqp, false, 4), 0);
	KUNIT_EXPECT_EQ(test, qt->nr_wc, 0);
	qt_fail(qp);
	KUNIT_EXPECT_EQ(test, qt->nr_wc, 4);
	KUNIT_EXPECT_LT(test, qt_find(test, true, 1), qt_find(test, true, 2));
	KUNIT_EXPECT_LT(test, qt_find(test, false, 3),
			qt_find(test, false, 4));
	KUNIT_EXPECT_GE(test, qt_find(test, false, 3), 0);
	KUNIT_EXPECT_GE(test, qt_find(test, true, 1), 0);
}

/* After the flush, a post completes at once: ib_drain_qp()'s markers. */
static void swiw_qp_drain_after_test(struct kunit *test)
{
	struct swiw_qp *qp = &qt->qp;

	qp->state = SWIW_QP_RTS;
	qt_fail(qp);
	KUNIT_EXPECT_EQ(test, qt->nr_wc, 0);
	KUNIT_EXPECT_EQ(test, qt_post(&qp->ibqp, false, 7), 0);
	KUNIT_EXPECT_EQ(test, qt_post(&qp->ibqp, true, 8), 0);
	KUNIT_EXPECT_GE(test, qt_find(test, false, 7), 0);
	KUNIT_EXPECT_GE(test, qt_find(test, true, 8), 0);
	KUNIT_EXPECT_EQ(test, qt->nr_wc, 2);
}

/*
 * A send posted while the receive queue is being flushed, after the
 * send queue was: from a receive's flush completion here, from another
 * CPU in ib_drain_qp().  It must complete, not wait in a send queue
 * nobody flushes again.  (It stayed queued until swiw kept a flushed
 * mark per queue: the two-guest NVMe-oF disconnect hung on it.)
 */
static void swiw_qp_drain_between_test(struct kunit *test)
{
	struct swiw_qp *qp = &qt->qp;

	qp->state = SWIW_QP_RTS;
	KUNIT_ASSERT_EQ(test, qt_post(&qp->ibqp, true, 1), 0);
	KUNIT_ASSERT_EQ(test, qt_post(&qp->ibqp, true, 2), 0);
	qt->post_on_recv = 9;
	qt_fail(qp);
	KUNIT_EXPECT_EQ(test, qt->post_ret, 0);
	KUNIT_EXPECT_GE(test, qt_find(test, false, 9), 0);
	KUNIT_EXPECT_GE(test, qt_find(test, true, 2), 0);
	KUNIT_EXPECT_EQ(test, qt->nr_wc, 3);
	KUNIT_EXPECT_EQ(test, qt->overflow, 0);
}

/* A send to a QP that never had a stream is refused, not queued. */
static void swiw_qp_idle_send_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, qt_post(&qt->qp.ibqp, false, 1), -ENOTCONN);
	KUNIT_EXPECT_EQ(test, qt_post(&qt->qp.ibqp, true, 2), 0);
	qt_fail(&qt->qp);
	KUNIT_EXPECT_EQ(test, qt->nr_wc, 1);
	KUNIT_EXPECT_GE(test, qt_find(test, true, 2), 0);
}

/*
 * No RFC 7306 message: immediate data and atomics are refused when
 * posted (-EINVAL, the request named as bad), whatever the QP's state,
 * and nothing completes.
 */
static void swiw_qp_no_7306_test(struct kunit *test)
{
	static const enum ib_wr_opcode ops[] = {
		IB_WR_RDMA_WRITE_WITH_IMM, IB_WR_SEND_WITH_IMM,
		IB_WR_ATOMIC_CMP_AND_SWP, IB_WR_ATOMIC_FETCH_AND_ADD,
	};
	const struct ib_send_wr *bad = NULL;
	struct ib_send_wr wr = { .send_flags = IB_SEND_SIGNALED };
	int i;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		wr.opcode = ops[i];
		wr.wr_id = i;
		KUNIT_EXPECT_EQ_MSG(test, swiw_post_send(&qt->qp.ibqp, &wr, &bad),
				    -EINVAL, "opcode %d", ops[i]);
		KUNIT_EXPECT_PTR_EQ(test, bad, (const struct ib_send_wr *)&wr);
	}
	KUNIT_EXPECT_EQ(test, qt->nr_wc, 0);
}

/*
 * A handler that re-posts a receive from each receive's flush
 * completion: one flush takes what was queued and one ring's worth
 * more, not all the handler ever posts.  The rest is dropped, and a
 * later post completes at once.
 */
static void swiw_qp_repost_test(struct kunit *test)
{
	struct swiw_qp *qp = &qt->qp;

	qp->state = SWIW_QP_RTS;
	KUNIT_ASSERT_EQ(test, qt_post(&qp->ibqp, true, 1), 0);
	KUNIT_ASSERT_EQ(test, qt_post(&qp->ibqp, true, 2), 0);
	qt->repost = 1000;
	qt_fail(qp);
	/* Two queued, then four (the ring's size) of the re-posted. */
	KUNIT_EXPECT_EQ(test, qt->nr_wc, 2 + 4);
	KUNIT_EXPECT_EQ(test, qt->overflow, 0);
	KUNIT_EXPECT_EQ(test, qp->rq.tail, qp->rq.head);
	KUNIT_EXPECT_TRUE(test, qp->rq.flushed);
	qt->repost = 0;
	KUNIT_EXPECT_EQ(test, qt_post(&qp->ibqp, true, 3), 0);
	KUNIT_EXPECT_GE(test, qt_find(test, true, 3), 0);
}

/*
 * The flush stops at the first completion the CQ cannot take, and
 * drops the rest, which would only overflow it again.
 */
static void swiw_qp_overflow_test(struct kunit *test)
{
	struct swiw_qp *qp = &qt->qp;
	int i;

	qp->state = SWIW_QP_RTS;
	for (i = 1; i <= 4; i++)
		KUNIT_ASSERT_EQ(test, qt_post(&qp->ibqp, false, i), 0);
	qt->room = 2;
	qt_fail(qp);
	KUNIT_EXPECT_EQ(test, qt->nr_wc, 2);
	KUNIT_EXPECT_EQ(test, qt->overflow, 1);
	KUNIT_EXPECT_GE(test, qt_find(test, false, 1), 0);
	KUNIT_EXPECT_GE(test, qt_find(test, false, 2), 0);
	KUNIT_EXPECT_EQ(test, qp->sq.tail, qp->sq.head);
	KUNIT_EXPECT_TRUE(test, qp->sq.flushed);
}

/*
 * A user QP whose process fills each slot of its mapped rings as soon
 * as the flush gives it back: the close work, which destroy_qp and
 * device removal wait for, ends after a bounded number of completions,
 * every slot it took is given back, and so does each doorbell's flush
 * after it.  (It looped for as long as the process posted.)
 */
static void swiw_qp_hostile_test(struct kunit *test)
{
	struct swiw_qp *qp = &qt->qp;
	int i;

	/* Only compared with NULL: the stubs stand for the rings. */
	qp->usq = (struct siw_sqe *)qt;
	qp->urq = (struct siw_rqe *)qt;
	qp->state = SWIW_QP_RTS;
	/* Enough for the old flush to stop, not before many too many. */
	qt->hostile = 10000;
	qt_fail(qp);
	/* Each ring: the four it held and a ring's worth more. */
	KUNIT_EXPECT_EQ(test, qt->nr_wc, 2 * (4 + 4));
	KUNIT_EXPECT_EQ(test, qt->overflow, 0);
	KUNIT_EXPECT_EQ(test, qt->released, qt->next_id);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, swiw_post_send(&qp->ibqp, NULL, NULL), 0);
	KUNIT_EXPECT_EQ(test, qt->nr_wc, 2 * (4 + 4) + 3 * (4 + 4));
	KUNIT_EXPECT_EQ(test, qt->released, qt->next_id);
	qt->hostile = 0;
	qp->usq = NULL;
	qp->urq = NULL;
}

static int swiw_qp_suite_init(struct kunit_suite *suite)
{
	swiw_wq = alloc_workqueue("swiw_qp_kunit", WQ_UNBOUND, 0);
	return swiw_wq ? 0 : -ENOMEM;
}

static void swiw_qp_suite_exit(struct kunit_suite *suite)
{
	destroy_workqueue(swiw_wq);
}

static struct kunit_case swiw_qp_cases[] = {
	KUNIT_CASE(swiw_qp_flush_test),
	KUNIT_CASE(swiw_qp_drain_after_test),
	KUNIT_CASE(swiw_qp_drain_between_test),
	KUNIT_CASE(swiw_qp_idle_send_test),
	KUNIT_CASE(swiw_qp_no_7306_test),
	KUNIT_CASE(swiw_qp_repost_test),
	KUNIT_CASE(swiw_qp_overflow_test),
	KUNIT_CASE(swiw_qp_hostile_test),
	{}
};

static struct kunit_suite swiw_qp_suite = {
	.name = "swiw_qp",
	.init = qt_init,
	.exit = qt_exit,
	.suite_init = swiw_qp_suite_init,
	.suite_exit = swiw_qp_suite_exit,
	.test_cases = swiw_qp_cases,
};

/* --- shared receive queues ----------------------------------------------- */

static void st_event(struct ib_event *ev, void *ctx)
{
	if (ev->event == IB_EVENT_SRQ_LIMIT_REACHED &&
	    ev->element.srq == &qt->srq.ibsrq && ctx == qt)
		qt->srq_events++;
}

/* An SRQ of @max_wr receives, one SGE each; and a QP on it. */
static int st_init(struct kunit *test)
{
	struct ib_srq_init_attr sattr = {
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = 3, .max_sge = 1 },
	};
	struct ib_qp_init_attr attr = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4 },
	};

	KUNIT_ASSERT_EQ(test, qt_init(test), 0);
	qt->srq.ibsrq.device = &qt->sdev.ibdev;
	qt->srq.ibsrq.event_handler = st_event;
	qt->srq.ibsrq.srq_context = qt;
	KUNIT_ASSERT_EQ(test, swiw_create_srq(&qt->srq.ibsrq, &sattr, NULL), 0);
	/* Rounded up to a power of two, and said so. */
	KUNIT_EXPECT_EQ(test, sattr.attr.max_wr, 4);

	attr.send_cq = &qt->scq.ibcq;
	attr.recv_cq = &qt->rcq.ibcq;
	attr.srq = &qt->srq.ibsrq;
	qt->sqp.ibqp.device = &qt->sdev.ibdev;
	qt->sqp.ibqp.send_cq = attr.send_cq;
	qt->sqp.ibqp.recv_cq = attr.recv_cq;
	qt->sqp.ibqp.srq = attr.srq;
	KUNIT_ASSERT_EQ(test, swiw_create_qp(&qt->sqp.ibqp, &attr, NULL), 0);
	KUNIT_EXPECT_EQ(test, attr.cap.max_recv_wr, 0);
	return 0;
}

static void st_exit(struct kunit *test)
{
	if (!qt)
		return;
	if (qt->sqp.sq.wqe)
		swiw_destroy_qp(&qt->sqp.ibqp, NULL);
	if (qt->srq.rq.wqe)
		swiw_destroy_srq(&qt->srq.ibsrq, NULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&qt->sdev.nr_srq), 0);
	qt_exit(test);
}

static int st_post(u64 wr_id, int num_sge)
{
	struct ib_sge sge[2] = {};
	struct ib_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = sge,
		.num_sge = num_sge,
	};
	const struct ib_recv_wr *bad = NULL;
	int ret;

	ret = swiw_post_srq_recv(&qt->srq.ibsrq, &wr, &bad);
	if (ret && bad != &wr)
		return -EFAULT;
	return ret;
}

/* The wr_id of the receive a SEND takes, or -1 for none. */
static s64 st_take(void)
{
	struct swiw_wqe wqe;

	if (swiw_srq_take(&qt->srq, &wqe))
		return -1;
	return wqe.wr_id;
}

/* Receives go out oldest first; a full SRQ or too many SGEs refuse. */
static void swiw_srq_post_take_test(struct kunit *test)
{
	int i;

	for (i = 1; i <= 4; i++)
		KUNIT_EXPECT_EQ(test, st_post(i, 1), 0);
	KUNIT_EXPECT_EQ(test, st_post(5, 1), -ENOMEM);
	KUNIT_EXPECT_EQ(test, st_take(), 1);
	KUNIT_EXPECT_EQ(test, st_take(), 2);
	KUNIT_EXPECT_EQ(test, st_post(6, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, st_post(7, 1), 0);
	KUNIT_EXPECT_EQ(test, st_take(), 3);
	KUNIT_EXPECT_EQ(test, st_take(), 4);
	KUNIT_EXPECT_EQ(test, st_take(), 7);
	KUNIT_EXPECT_EQ(test, st_take(), -1);
	KUNIT_EXPECT_EQ(test, qt->nr_wc, 0);
}

/*
 * With a limit, the take that leaves fewer receives than that raises
 * IB_EVENT_SRQ_LIMIT_REACHED once, and disarms it; query then says 0.
 */
static void swiw_srq_limit_test(struct kunit *test)
{
	struct ib_srq_attr a = { .srq_limit = 2 };
	int i;

	KUNIT_EXPECT_EQ(test, swiw_modify_srq(&qt->srq.ibsrq, &a,
					      IB_SRQ_MAX_WR, NULL),
			-EOPNOTSUPP);
	a.srq_limit = 5;
	KUNIT_EXPECT_EQ(test, swiw_modify_srq(&qt->srq.ibsrq, &a,
					      IB_SRQ_LIMIT, NULL), -EINVAL);
	a.srq_limit = 2;
	KUNIT_ASSERT_EQ(test, swiw_modify_srq(&qt->srq.ibsrq, &a,
					      IB_SRQ_LIMIT, NULL), 0);
	for (i = 1; i <= 4; i++)
		KUNIT_ASSERT_EQ(test, st_post(i, 1), 0);
	KUNIT_EXPECT_EQ(test, st_take(), 1);	/* 3 left */
	KUNIT_EXPECT_EQ(test, st_take(), 2);	/* 2 left */
	KUNIT_EXPECT_EQ(test, qt->srq_events, 0);
	KUNIT_EXPECT_EQ(test, st_take(), 3);	/* 1 left: below */
	KUNIT_EXPECT_EQ(test, qt->srq_events, 1);
	KUNIT_EXPECT_EQ(test, st_take(), 4);
	KUNIT_EXPECT_EQ(test, st_take(), -1);
	KUNIT_EXPECT_EQ(test, qt->srq_events, 1);
	memset(&a, 0xff, sizeof(a));
	KUNIT_EXPECT_EQ(test, swiw_query_srq(&qt->srq.ibsrq, &a), 0);
	KUNIT_EXPECT_EQ(test, a.srq_limit, 0);
	KUNIT_EXPECT_EQ(test, a.max_wr, 4);
	KUNIT_EXPECT_EQ(test, a.max_sge, 1);

	/* Armed again: again once. */
	a.srq_limit = 1;
	KUNIT_ASSERT_EQ(test, swiw_modify_srq(&qt->srq.ibsrq, &a,
					      IB_SRQ_LIMIT, NULL), 0);
	KUNIT_ASSERT_EQ(test, st_post(5, 1), 0);
	KUNIT_EXPECT_EQ(test, st_take(), 5);
	KUNIT_EXPECT_EQ(test, qt->srq_events, 2);
}

/*
 * A QP on an SRQ has no receive queue: post_recv is refused.  When it
 * fails, the receives still in the SRQ are not its own and are not
 * flushed; its send queue still drains.
 */
static void swiw_srq_qp_fail_test(struct kunit *test)
{
	struct swiw_qp *qp = &qt->sqp;
	int i;

	KUNIT_EXPECT_EQ(test, qt_post(&qp->ibqp, true, 1), -EINVAL);
	for (i = 1; i <= 3; i++)
		KUNIT_ASSERT_EQ(test, st_post(i, 1), 0);
	qp->state = SWIW_QP_RTS;
	KUNIT_ASSERT_EQ(test, qt_post(&qp->ibqp, false, 9), 0);
	qt_fail(qp);
	KUNIT_EXPECT_EQ(test, qt->nr_wc, 1);
	KUNIT_EXPECT_GE(test, qt_find(test, false, 9), 0);
	KUNIT_EXPECT_EQ(test, qt->srq.rq.head - qt->srq.rq.tail, 3);
	KUNIT_EXPECT_PTR_EQ(test, qp->srq, &qt->srq);
	KUNIT_EXPECT_EQ(test, qp->rq.size, 0);
	/* The next QP on the SRQ gets them. */
	KUNIT_EXPECT_EQ(test, st_take(), 1);
}

/* Destroying an SRQ with receives in it completes none of them. */
static void swiw_srq_destroy_pending_test(struct kunit *test)
{
	int i;

	swiw_destroy_qp(&qt->sqp.ibqp, NULL);
	qt->sqp.sq.wqe = NULL;
	for (i = 1; i <= 4; i++)
		KUNIT_ASSERT_EQ(test, st_post(i, 1), 0);
	KUNIT_EXPECT_EQ(test, swiw_destroy_srq(&qt->srq.ibsrq, NULL), 0);
	qt->srq.rq.wqe = NULL;
	KUNIT_EXPECT_EQ(test, qt->nr_wc, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&qt->sdev.nr_srq), 0);
}

#define ST_RACE	1024

struct st_taker {
	struct work_struct work;
	struct swiw_srq *srq;
	unsigned long *seen;
	int took;
	int twice;
};

static void st_take_work(struct work_struct *work)
{
	struct st_taker *tk = container_of(work, struct st_taker, work);
	struct swiw_wqe wqe;

	while (!swiw_srq_take(tk->srq, &wqe)) {
		tk->took++;
		if (wqe.wr_id >= ST_RACE || test_and_set_bit(wqe.wr_id, tk->seen))
			tk->twice++;
		cond_resched();
	}
}

/*
 * Several QPs' rx works take from one SRQ at once while it is posted
 * to: each receive goes to exactly one of them.
 */
static void swiw_srq_race_test(struct kunit *test)
{
	struct ib_srq_init_attr sattr = {
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = ST_RACE, .max_sge = 1 },
	};
	struct st_taker tk[3] = {};
	unsigned long *seen;
	int i, n = 0, took = 0, twice = 0;

	seen = kunit_kzalloc(test, BITS_TO_LONGS(ST_RACE) * sizeof(long),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	swiw_destroy_qp(&qt->sqp.ibqp, NULL);
	qt->sqp.sq.wqe = NULL;
	swiw_destroy_srq(&qt->srq.ibsrq, NULL);
	KUNIT_ASSERT_EQ(test, swiw_create_srq(&qt->srq.ibsrq, &sattr, NULL), 0);
	for (; n < ST_RACE / 2; n++)
		KUNIT_ASSERT_EQ(test, st_post(n, 1), 0);
	for (i = 0; i < ARRAY_SIZE(tk); i++) {
		tk[i].srq = &qt->srq;
		tk[i].seen = seen;
		INIT_WORK_ONSTACK(&tk[i].work, st_take_work);
		queue_work(swiw_wq, &tk[i].work);
	}
	/* No assertion from here on: the works use the stack. */
	for (; n < ST_RACE; n++)
		KUNIT_EXPECT_EQ(test, st_post(n, 1), 0);
	for (i = 0; i < ARRAY_SIZE(tk); i++) {
		flush_work(&tk[i].work);
		destroy_work_on_stack(&tk[i].work);
		took += tk[i].took;
		twice += tk[i].twice;
	}
	/* What the works left after they found it empty. */
	while (st_take() >= 0)
		took++;
	KUNIT_EXPECT_EQ(test, twice, 0);
	KUNIT_EXPECT_EQ(test, took, ST_RACE);
}

static struct kunit_case swiw_srq_cases[] = {
	KUNIT_CASE(swiw_srq_post_take_test),
	KUNIT_CASE(swiw_srq_limit_test),
	KUNIT_CASE(swiw_srq_qp_fail_test),
	KUNIT_CASE(swiw_srq_destroy_pending_test),
	KUNIT_CASE(swiw_srq_race_test),
	{}
};

static struct kunit_suite swiw_srq_suite = {
	.name = "swiw_srq",
	.init = st_init,
	.exit = st_exit,
	.suite_init = swiw_qp_suite_init,
	.suite_exit = swiw_qp_suite_exit,
	.test_cases = swiw_srq_cases,
};

kunit_test_suites(&swiw_qp_suite, &swiw_srq_suite);

MODULE_DESCRIPTION("KUnit tests of swiw's queue flushing and shared receive queues");
MODULE_LICENSE("Dual BSD/GPL");
