// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: an STag's check and its use see one registration (swiw_mr.c).
 * A fast-reg MR is registered over one page; at the point between the
 * check of the STag and the translation of the address (SWIW_MR_RACE),
 * the test invalidates it and registers it again, as another QP's send
 * work may while an inbound WRITE is being placed.  The use must come
 * out as if it had run wholly before or wholly after that: never with
 * the new registration's page under the old key or the old rights.
 * A use for the peer holds the MR while it copies: an invalidation or a
 * deregistration completes only once it lets go.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/scatterlist.h>

struct swiw_mr;
static void mrt_race(struct swiw_mr *mr);
#define SWIW_MR_RACE(mr)	mrt_race(mr)

#include "swiw_mr.c"

/* No user MRs here: swiw_mr_release() queues nothing on it. */
struct workqueue_struct *swiw_wq;

/* The ULP's address of the MR's first byte, in every registration. */
#define MRT_IOVA		0x100000ULL
#define MRT_OFF		8
#define MRT_LEN		16

struct mrt_ctx {
	struct kunit *test;
	struct swiw_dev sdev;
	struct ib_pd pd;
	struct swiw_qp qp;
	struct swiw_mr *mr;
	u8 *a;
	u8 *b;
	/* Run once at the next SWIW_MR_RACE. */
	void (*race)(void);
	int races;
	bool counted;		/* a counted use's swiw_mr_piece() runs */
};

static struct mrt_ctx *mrt;

/* swiw_mr.c's user MRs need ib_uverbs: not here. */
struct ib_umem *ib_umem_get(struct ib_device *device, unsigned long addr,
			    size_t size, int access)
{
	return ERR_PTR(-EOPNOTSUPP);
}

void ib_umem_release(struct ib_umem *umem)
{
}

static void mrt_race(struct swiw_mr *mr)
{
	void (*race)(void) = mrt ? mrt->race : NULL;

	if (!race)
		return;
	mrt->race = NULL;
	mrt->races++;
	race();
}

static u32 mrt_key(u8 key)
{
	return (mrt->mr->stag & ~0xffU) | key;
}

/* map_mr_sg over @page, as ib_map_mr_sg() after a DMA mapping. */
static void mrt_map(u8 *page)
{
	struct scatterlist sg;

	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = (uintptr_t)page;
	sg_dma_len(&sg) = PAGE_SIZE;
	mrt->mr->ibmr.page_size = PAGE_SIZE;
	KUNIT_ASSERT_EQ(mrt->test,
			swiw_map_mr_sg(&mrt->mr->ibmr, &sg, 1, NULL), 1);
	mrt->mr->ibmr.iova = MRT_IOVA;
}

static void mrt_reg(u8 key, int access)
{
	KUNIT_ASSERT_EQ(mrt->test,
			swiw_mr_reg(&mrt->qp, &mrt->mr->ibmr, mrt_key(key),
				    access), 0);
}

/*
 * Without waiting: inside a counted use's own lookup (the race hooks,
 * under RCU) that use is the one left in the pages.
 */
static void mrt_inval(u8 key)
{
	KUNIT_ASSERT_EQ(mrt->test,
			swiw_mr_inval(&mrt->sdev, &mrt->pd, mrt_key(key),
				      false),
			mrt->counted ? -EBUSY : 0);
}

/* All but a local SEND's gather (access 0) count in a fast-reg MR. */
static bool mrt_counted(int access)
{
	return access;
}

/* An inbound WRITE's use of MRT_LEN bytes at MRT_OFF under @key. */
static void *mrt_use(u8 key, int access)
{
	struct swiw_mr *hold;
	u32 piece = 0;
	void *va;

	mrt->counted = mrt_counted(access);
	va = swiw_mr_piece(&mrt->sdev, &mrt->pd, mrt_key(key),
			   MRT_IOVA + MRT_OFF, MRT_LEN, access, &piece, &hold);
	mrt->counted = false;
	KUNIT_EXPECT_PTR_EQ(mrt->test, hold,
			    va && mrt_counted(access) ? mrt->mr : NULL);
	swiw_mr_put(hold);
	if (va)
		KUNIT_EXPECT_EQ(mrt->test, piece, MRT_LEN);
	return va;
}

static int mrt_init(struct kunit *test)
{
	struct ib_mr *ibmr;

	mrt = kunit_kzalloc(test, sizeof(*mrt), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mrt);
	mrt->test = test;
	xa_init_flags(&mrt->sdev.mrs, XA_FLAGS_ALLOC1);
	mrt->pd.device = &mrt->sdev.ibdev;
	mrt->qp.ibqp.device = &mrt->sdev.ibdev;
	mrt->qp.ibqp.pd = &mrt->pd;
	mrt->a = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	mrt->b = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mrt->a);
	KUNIT_ASSERT_NOT_NULL(test, mrt->b);
	ibmr = swiw_alloc_mr(&mrt->pd, IB_MR_TYPE_MEM_REG, 1);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ibmr));
	ibmr->device = &mrt->sdev.ibdev;
	mrt->mr = to_swiw_mr(ibmr);
	/* Key 1, remotely writable, over page a. */
	mrt_map(mrt->a);
	mrt_reg(1, IB_ACCESS_REMOTE_WRITE);
	return 0;
}

static void mrt_exit(struct kunit *test)
{
	if (!mrt)
		return;
	if (mrt->mr)
		swiw_dereg_mr(&mrt->mr->ibmr, NULL);
	/* The MR is freed after a grace period, and the test memory too. */
	rcu_barrier();
	xa_destroy(&mrt->sdev.mrs);
	mrt = NULL;
}

/* With nothing in between: page a, under key 1 only, with its rights. */
static void swiw_mr_plain_test(struct kunit *test)
{
	KUNIT_EXPECT_PTR_EQ(test, mrt_use(1, IB_ACCESS_REMOTE_WRITE),
			    (void *)(mrt->a + MRT_OFF));
	KUNIT_EXPECT_NULL(test, mrt_use(2, IB_ACCESS_REMOTE_WRITE));
	KUNIT_EXPECT_NULL(test, mrt_use(1, IB_ACCESS_REMOTE_READ));
	/* A local SEND's gather: not counted, nothing held. */
	KUNIT_EXPECT_PTR_EQ(test, mrt_use(1, 0), (void *)(mrt->a + MRT_OFF));
	KUNIT_EXPECT_EQ(test, mrt->races, 0);
}

static void mrt_rereg_key2(void)
{
	mrt_inval(1);
	mrt_map(mrt->b);
	mrt_reg(2, IB_ACCESS_REMOTE_WRITE);
}

/*
 * Key 1 checked, then invalidated and registered as key 2 over page b:
 * the use under key 1 fails, it does not land in page b.
 */
static void swiw_mr_rereg_key_test(struct kunit *test)
{
	mrt->race = mrt_rereg_key2;
	KUNIT_EXPECT_NULL(test, mrt_use(1, IB_ACCESS_REMOTE_WRITE));
	KUNIT_EXPECT_EQ(test, mrt->races, 1);
	KUNIT_EXPECT_PTR_EQ(test, mrt_use(2, IB_ACCESS_REMOTE_WRITE),
			    (void *)(mrt->b + MRT_OFF));
}

static void mrt_rereg_local(void)
{
	mrt_inval(1);
	mrt_map(mrt->b);
	mrt_reg(1, IB_ACCESS_LOCAL_WRITE);
}

/*
 * The same key registered again without remote rights: the remote use
 * that passed the old rights fails.
 */
static void swiw_mr_rereg_rights_test(struct kunit *test)
{
	mrt->race = mrt_rereg_local;
	KUNIT_EXPECT_NULL(test, mrt_use(1, IB_ACCESS_REMOTE_WRITE));
	KUNIT_EXPECT_EQ(test, mrt->races, 1);
	KUNIT_EXPECT_PTR_EQ(test, mrt_use(1, IB_ACCESS_LOCAL_WRITE),
			    (void *)(mrt->b + MRT_OFF));
}

static void mrt_rereg_same(void)
{
	mrt_inval(1);
	mrt_map(mrt->b);
	mrt_reg(1, IB_ACCESS_REMOTE_WRITE);
}

/*
 * The same key and rights over page b: the STag names page b now, and
 * the use is of that registration as a whole.
 */
static void swiw_mr_rereg_same_test(struct kunit *test)
{
	mrt->race = mrt_rereg_same;
	KUNIT_EXPECT_PTR_EQ(test, mrt_use(1, IB_ACCESS_REMOTE_WRITE),
			    (void *)(mrt->b + MRT_OFF));
	KUNIT_EXPECT_EQ(test, mrt->races, 1);
}

static void mrt_inval1(void)
{
	mrt_inval(1);
}

/* Invalidated between the check and the use: the use fails. */
static void swiw_mr_inval_test(struct kunit *test)
{
	mrt->race = mrt_inval1;
	KUNIT_EXPECT_NULL(test, mrt_use(1, IB_ACCESS_REMOTE_WRITE));
	KUNIT_EXPECT_EQ(test, mrt->races, 1);
}

/*
 * map_mr_sg for the next registration while key 1 is valid: key 1
 * still names page a until the REG_MR.
 */
static void swiw_mr_map_valid_test(struct kunit *test)
{
	mrt_map(mrt->b);
	KUNIT_EXPECT_PTR_EQ(test, mrt_use(1, IB_ACCESS_REMOTE_WRITE),
			    (void *)(mrt->a + MRT_OFF));
	mrt_inval(1);
	mrt_reg(2, IB_ACCESS_REMOTE_WRITE);
	KUNIT_EXPECT_PTR_EQ(test, mrt_use(2, IB_ACCESS_REMOTE_WRITE),
			    (void *)(mrt->b + MRT_OFF));
}

/*
 * Why a use is refused, for its TERMINATE: each refusal swiw_mr_piece()
 * makes, named by swiw_mr_fault(), and nothing named for a use it grants.
 */
static enum swiw_fault mrt_fault(u32 key, struct ib_pd *pd, u64 addr,
				 u32 len, int access)
{
	enum swiw_fault fault;
	struct swiw_mr *hold;
	u32 piece;
	void *va;

	va = swiw_mr_piece(&mrt->sdev, pd, key, addr, len, access, &piece,
			   &hold);
	swiw_mr_put(hold);
	fault = swiw_mr_fault(&mrt->sdev, pd, key, addr, len, access);
	KUNIT_EXPECT_EQ_MSG(mrt->test, !va, fault != SWIW_FAULT_NONE,
			    "key 0x%x addr 0x%llx len %u access 0x%x", key,
			    addr, len, access);
	return fault;
}

static void swiw_mr_fault_test(struct kunit *test)
{
	const int rw = IB_ACCESS_REMOTE_WRITE;
	u64 end = MRT_IOVA + PAGE_SIZE;
	struct ib_pd other = { .device = &mrt->sdev.ibdev };

	KUNIT_EXPECT_EQ(test, mrt_fault(mrt_key(1), &mrt->pd, MRT_IOVA,
					PAGE_SIZE, rw), SWIW_FAULT_NONE);
	KUNIT_EXPECT_EQ(test, mrt_fault(mrt_key(2), &mrt->pd, MRT_IOVA, 8, rw),
			SWIW_FAULT_STAG);
	KUNIT_EXPECT_EQ(test, mrt_fault(mrt_key(1) + 0x100, &mrt->pd,
					MRT_IOVA, 8, rw), SWIW_FAULT_STAG);
	KUNIT_EXPECT_EQ(test, mrt_fault(mrt_key(1), &other, MRT_IOVA, 8, rw),
			SWIW_FAULT_FOREIGN);
	KUNIT_EXPECT_EQ(test, mrt_fault(mrt_key(1), &mrt->pd, MRT_IOVA, 8,
					IB_ACCESS_REMOTE_READ),
			SWIW_FAULT_ACCESS);
	KUNIT_EXPECT_EQ(test, mrt_fault(mrt_key(1), &mrt->pd, end - 8, 16, rw),
			SWIW_FAULT_BOUNDS);
	KUNIT_EXPECT_EQ(test, mrt_fault(mrt_key(1), &mrt->pd, MRT_IOVA - 1, 8,
					rw), SWIW_FAULT_BOUNDS);
	KUNIT_EXPECT_EQ(test, mrt_fault(mrt_key(1), &mrt->pd, U64_MAX - 3, 8,
					rw), SWIW_FAULT_WRAP);
	mrt_inval(1);
	KUNIT_EXPECT_EQ(test, mrt_fault(mrt_key(1), &mrt->pd, MRT_IOVA, 8, rw),
			SWIW_FAULT_STAG);
}

/* What a thread that may sleep does to key 1 while a write holds it. */
struct mrt_waiter {
	struct completion done;
	struct swiw_mr *mr;
	bool dereg;
	int ret;
};

static int mrt_waiter_fn(void *arg)
{
	struct mrt_waiter *w = arg;

	if (w->dereg)
		w->ret = swiw_dereg_mr(&w->mr->ibmr, NULL);
	else
		w->ret = swiw_mr_inval(&mrt->sdev, &mrt->pd, mrt_key(1), true);
	complete(&w->done);
	return 0;
}

/*
 * A write found key 1 valid and copies: invalidating (or deregistering)
 * makes the STag invalid at once, and completes only once the write
 * lets go of the MR; the ULP may free the pages after that.  Without
 * leave to wait, the invalidation says so.
 */
static void mrt_wait(struct kunit *test, bool dereg)
{
	struct mrt_waiter *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct swiw_mr *hold, *other;
	struct task_struct *t;
	u32 piece;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, swiw_mr_piece(&mrt->sdev, &mrt->pd,
						  mrt_key(1), MRT_IOVA, 8,
						  IB_ACCESS_REMOTE_WRITE,
						  &piece, &hold));
	KUNIT_ASSERT_PTR_EQ(test, hold, mrt->mr);
	if (!dereg) {
		KUNIT_EXPECT_EQ(test, swiw_mr_inval(&mrt->sdev, &mrt->pd,
						    mrt_key(1), false),
				-EBUSY);
		KUNIT_EXPECT_NULL(test, mrt_use(1, IB_ACCESS_REMOTE_WRITE));
	}
	init_completion(&w->done);
	w->mr = mrt->mr;
	w->dereg = dereg;
	t = kthread_create(mrt_waiter_fn, w, "swiw_mr_wait");
	if (IS_ERR(t)) {
		swiw_mr_put(hold);
		KUNIT_FAIL(test, "kthread_create: %ld", PTR_ERR(t));
		return;
	}
	get_task_struct(t);
	wake_up_process(t);
	/* Until it sleeps in the wait (or, wrongly, returns). */
	for (i = 0; i < 250; i++) {
		if (completion_done(&w->done) ||
		    READ_ONCE(t->__state) == TASK_UNINTERRUPTIBLE)
			break;
		msleep(20);
	}
	put_task_struct(t);
	/* Invalid at once; a new write is refused while the first copies. */
	KUNIT_EXPECT_FALSE(test, READ_ONCE(w->mr->valid));
	KUNIT_EXPECT_NULL(test, swiw_mr_piece(&mrt->sdev, &mrt->pd,
					      mrt_key(1), MRT_IOVA, 8,
					      IB_ACCESS_REMOTE_WRITE, &piece,
					      &other));
	/* Not consumed here: the wait below is the one that takes it. */
	msleep(100);
	KUNIT_EXPECT_FALSE(test, completion_done(&w->done));
	swiw_mr_put(hold);
	/* Not killable: the thread touches w until it completes. */
	wait_for_completion(&w->done);
	KUNIT_EXPECT_EQ(test, w->ret, 0);
	if (dereg)
		mrt->mr = NULL;
	else
		KUNIT_EXPECT_EQ(test, swiw_mr_inval(&mrt->sdev, &mrt->pd,
						    mrt_key(1), false), 0);
}

static void swiw_mr_inval_wait_test(struct kunit *test)
{
	mrt_wait(test, false);
}

static void swiw_mr_dereg_wait_test(struct kunit *test)
{
	mrt_wait(test, true);
}

static struct kunit_case swiw_mr_cases[] = {
	KUNIT_CASE(swiw_mr_plain_test),
	KUNIT_CASE(swiw_mr_rereg_key_test),
	KUNIT_CASE(swiw_mr_rereg_rights_test),
	KUNIT_CASE(swiw_mr_rereg_same_test),
	KUNIT_CASE(swiw_mr_inval_test),
	KUNIT_CASE(swiw_mr_map_valid_test),
	KUNIT_CASE(swiw_mr_fault_test),
	KUNIT_CASE(swiw_mr_inval_wait_test),
	KUNIT_CASE(swiw_mr_dereg_wait_test),
	{}
};

static struct kunit_suite swiw_mr_suite = {
	.name = "swiw_mr",
	.init = mrt_init,
	.exit = mrt_exit,
	.test_cases = swiw_mr_cases,
};

kunit_test_suites(&swiw_mr_suite);

MODULE_DESCRIPTION("KUnit tests of swiw's STag checks");
MODULE_LICENSE("Dual BSD/GPL");
