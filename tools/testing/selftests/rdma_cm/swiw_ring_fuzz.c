// SPDX-License-Identifier: GPL-2.0
/*
 * A hostile process on swiw's user-mapped queues (tests/swiw.sh,
 * swiw_ring_fuzz; make soak, siw.swiw_ring).
 *
 *   swiw_ring_fuzz [-d DEV] -a ADDR [-p PORT] [-s SEED] [-R ROUND]
 *                  [-n ROUNDS] [-t SECONDS] [-o OPS] [-v]
 *
 * Each round (its own seed, from SEED and the round number) makes, on
 * DEV through rdma-core's siw provider: a connected pair of QPs over
 * rdma_cm loopback to ADDR whose rings it fuzzes, QPs never connected
 * (left in RESET/INIT or moved to ERR), and a canary pair it leaves
 * alone.  It finds each QP's send and receive rings and each CQ's ring
 * among the process's mappings of the uverbs file, and then writes
 * them as a process may: elements valid and mutated (any opcode and
 * flag, lengths zero and huge, SGE counts beyond the maximum, keys
 * random, freed or another process's, addresses unmapped or in the
 * kernel's half), raw bytes, valid bits set out of order, cleared,
 * set before the element is written; rings doorbells (also malformed
 * ones), moves QPs between states, deregisters MRs and destroys QPs
 * while requests are in flight, plants elements in its CQ rings, and
 * forks children that post into its rings or make objects of their
 * own and are killed with all of it open.
 *
 * What a correct kernel guarantees, checked:
 *   - every completion in a CQ ring names a QP of that CQ and a request
 *     that was posted to that QP's ring of the right kind; a QP never
 *     connected completes nothing but flushes, of 0 bytes;
 *   - memory no STag grants for writing (a read-only MR, an MR
 *     deregistered before, guard bytes around a registered buffer) is
 *     never written;
 *   - a CQ reports IB_EVENT_CQ_ERR at most once, however often the
 *     fuzzing overflows it (each event is kernel memory until read);
 *   - a SEND, an RDMA WRITE and an RDMA READ between the canary pair
 *     (in a PD of its own) complete, with the right data, after the
 *     round's fuzzing;
 *   - every verb returns (a round has a deadline: SIGALRM ends the run
 *     with the step it was at), and a destroy succeeds.
 *
 * The kernel's own checks (KASAN, lockdep, kmemleak) are the harness's.
 * Output ends with "swiw_ring_fuzz: N rounds, ... F check failures";
 * exit status 0 when F is 0.  A failure names the seed and the round:
 * "-s SEED -R ROUND -n 1" runs that round alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/siw-abi.h>

#define NSQ		64	/* 64 * 120 bytes: a 2-page send ring */
#define NRQ		32	/* 32 * 112 bytes: a 1-page receive ring */
#define NCQE		256	/* 256 * 32 + 8 bytes: 3 pages */
#define MAX_QP		8
#define MAX_MR		8
#define BUF_LEN		(64 * 1024)
#define GUARD		4096
#define MAX_TAGS	32768
#define ID_MAGIC	0xf00dULL
#define ID_PLANT	0xbadcafe0badcafe0ULL
#define PAT_RO		0x5a
#define PAT_FREED	0xa5
#define PAT_GUARD	0xc3

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *dev_name = "swiw0";
static const char *addr_str;
static int port = 7480, verbose;
static unsigned long long seed = 1;
static long cur_round;
static const char *step = "start";
static unsigned long failures, n_ops, n_cqes, n_canary, n_children;

/* Parent-process state a forked child may read: other-process keys. */
struct shared {
	uint32_t keys[16];
	atomic_uint nkeys;
};

static struct shared *shm;

/* xorshift64*: one stream per round. */
static uint64_t rs;

static uint64_t rnd(void)
{
	rs ^= rs >> 12;
	rs ^= rs << 25;
	rs ^= rs >> 27;
	return rs * 0x2545f4914f6cdd1dULL;
}

static uint32_t rn(uint32_t n)
{
	return n ? rnd() % n : 0;
}

static int chance(int pct)
{
	return rn(100) < (uint32_t)pct;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

static void check_fail(const char *fmt, ...)
{
	va_list ap;

	failures++;
	printf("FAIL seed %llu round %ld: ", seed, cur_round);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static void on_alarm(int sig)
{
	char msg[256];
	int n;

	n = snprintf(msg, sizeof(msg),
		     "FAIL seed %llu round %ld: stuck in %s\n",
		     seed, cur_round, step);
	if (write(1, msg, n) < 0)
		_exit(3);
	_exit(3);
}

/* --- the rings among the uverbs mappings -------------------------------- */

struct umap {
	uintptr_t start, len, off;
};

/* The process's mappings of a uverbs file. */
static int uverbs_maps(struct umap *m, int max)
{
	char line[512], path[256];
	unsigned long s, e, off;
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		path[0] = 0;
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %255s", &s, &e, &off,
			   path) < 3)
			continue;
		if (!strstr(path, "/dev/infiniband/uverbs"))
			continue;
		m[n].start = s;
		m[n].len = e - s;
		m[n++].off = off;
	}
	fclose(f);
	return n;
}

#define MAXMAPS 256

static struct umap before[MAXMAPS], own[MAXMAPS];
static int nbefore, nown;

static void maps_mark(void)
{
	nbefore = uverbs_maps(before, MAXMAPS);
}

/*
 * A ring the provider mapped since maps_mark(), @len bytes (pages),
 * mapped once more for the fuzzer: the provider unmaps its own at a
 * destroy, even one the kernel refuses, and the fuzzer's stays (the
 * pages are the mapping's once the object is gone).  NULL if none.
 */
static void *maps_new(int fd, size_t len)
{
	struct umap now[MAXMAPS];
	long pg = sysconf(_SC_PAGESIZE);
	int n = uverbs_maps(now, MAXMAPS), i, j;
	void *p;

	len = (len + pg - 1) / pg * pg;
	for (i = 0; i < n; i++) {
		if (now[i].len != len)
			continue;
		for (j = 0; j < nbefore; j++)
			if (before[j].start == now[i].start)
				break;
		if (j < nbefore)
			continue;
		for (j = 0; j < nown; j++)
			if (own[j].start == now[i].start)
				break;
		if (j < nown || nown == MAXMAPS)
			continue;
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 now[i].off);
		if (p == MAP_FAILED)
			return NULL;
		own[nown].start = (uintptr_t)p;
		own[nown++].len = len;
		return p;
	}
	return NULL;
}

/* The round's objects are gone: so go the fuzzer's ring mappings. */
static void maps_drop(void)
{
	while (nown) {
		nown--;
		munmap((void *)own[nown].start, own[nown].len);
	}
}

/* --- objects ---------------------------------------------------------- */

struct fcq {
	struct ibv_cq *cq;
	struct siw_cqe *ring;		/* NULL: not found, not polled */
	uint32_t n;
	uint32_t qpn[MAX_QP * 2];	/* QPs ever on it */
	int nqpn;
	int cq_err;			/* IBV_EVENT_CQ_ERR events */
	/*
	 * The fuzzer set valid bits here: one may have marked an element
	 * the kernel was still writing, so elements are not checked.
	 */
	int planted;
};

enum qkind { Q_PAIR, Q_IDLE };

struct fq {
	struct ibv_qp *qp;
	struct rdma_cm_id *id;		/* rdma_cm's QPs */
	enum qkind kind;
	struct siw_sqe *sq;
	struct siw_rqe *rq;
	struct fcq *scq, *rcq;
	int tag;
};

/* Per tag (a QP's life): its QPN, the last id posted per ring. */
static struct {
	uint32_t qpn;
	uint32_t max[2];
	int never_connected;
} tags[MAX_TAGS];
static int ntags;

struct fmr {
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t len;
};

struct round {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_pd *canary_pd;
	struct fcq cq[2];
	int plant;			/* cq[1] gets planted CQEs */
	struct fq q[MAX_QP];
	int nq;
	struct fmr mr[MAX_MR];
	int nmr;
	uint32_t freed_keys[8];
	int nfreed;
	uint8_t *buf;			/* GUARD | BUF_LEN | GUARD | ro | freed */
	struct ibv_mr *buf_mr;
	uint8_t *ro;			/* a read-only MR's buffer */
	uint8_t *freed;			/* a buffer deregistered */
	size_t freed_len;
};

static struct rdma_event_channel *ch_srv, *ch_cli;
static struct rdma_cm_id *listener;
static struct sockaddr_storage dst;

static uint64_t mkid(int tag, int recv, uint32_t seq)
{
	return ID_MAGIC << 48 | (uint64_t)recv << 47 |
	       (uint64_t)(tag & 0x7fff) << 32 | seq;
}

static int in_child;
static uint64_t old_id(struct fq *q, int recv);

static uint64_t next_id(struct fq *q, int recv)
{
	/* A child's count is its own: the parent would not know the id. */
	if (in_child)
		return old_id(q, recv);
	return mkid(q->tag, recv, ++tags[q->tag].max[recv]);
}

/* An id already posted to @q's ring (for elements written again). */
static uint64_t old_id(struct fq *q, int recv)
{
	return mkid(q->tag, recv, rn(tags[q->tag].max[recv] + 1));
}

static int new_tag(uint32_t qpn, int never_connected)
{
	int t = ntags++ % MAX_TAGS;

	tags[t].qpn = qpn;
	tags[t].max[0] = 0;
	tags[t].max[1] = 0;
	tags[t].never_connected = never_connected;
	return t;
}

static int cq_add_qpn(struct fcq *c, uint32_t qpn)
{
	if (c->nqpn < (int)ARRAY_SIZE(c->qpn))
		c->qpn[c->nqpn++] = qpn;
	return 0;
}

/* Every element found in the ring: polled, checked, given back. */
static void cq_poll(struct fcq *c)
{
	uint32_t i, seq, qpn;
	struct siw_cqe e;
	int k, tag, recv;

	if (!c->ring)
		return;
	for (i = 0; i < c->n; i++) {
		struct siw_cqe *p = &c->ring[i];

		if (!(__atomic_load_n(&p->flags, __ATOMIC_ACQUIRE) &
		      SIW_WQE_VALID))
			continue;
		memcpy(&e, p, sizeof(e));
		__atomic_store_n(&p->flags, 0, __ATOMIC_RELEASE);
		if (e.id == ID_PLANT || c->planted)
			continue;
		n_cqes++;
		qpn = e.qp_id;
		for (k = 0; k < c->nqpn; k++)
			if (c->qpn[k] == qpn)
				break;
		if (k == c->nqpn) {
			check_fail("CQE of QP %u, not of this CQ", qpn);
			continue;
		}
		if (e.id >> 48 != ID_MAGIC) {
			check_fail("CQE id %#llx never posted (QP %u)",
				   (unsigned long long)e.id, qpn);
			continue;
		}
		recv = e.id >> 47 & 1;
		tag = e.id >> 32 & 0x7fff;
		seq = (uint32_t)e.id;
		if (tags[tag].qpn != qpn || seq > tags[tag].max[recv]) {
			check_fail("CQE id %#llx not posted to QP %u",
				   (unsigned long long)e.id, qpn);
			continue;
		}
		if (recv != (int)(e.opcode == SIW_OP_RECEIVE))
			check_fail("CQE opcode %u for a %s request (QP %u)",
				   e.opcode, recv ? "receive" : "send", qpn);
		if (e.status >= SIW_NUM_WC_STATUS)
			check_fail("CQE status %u (QP %u)", e.status, qpn);
		if (tags[tag].never_connected &&
		    (e.status != SIW_WC_WR_FLUSH_ERR || e.bytes))
			check_fail("QP %u never connected completed %#llx with status %u, %u bytes",
				   qpn,
				   (unsigned long long)e.id, e.status, e.bytes);
	}
}

/*
 * The context's async events.  An overflowing CQ reports CQ_ERR once:
 * the kernel queues each event until the process reads it, so one per
 * lost completion would let a process that never reads them grow
 * kernel memory without bound.
 */
static void async_read(struct ibv_context *ctx, struct fcq *cq, int ncq)
{
	struct ibv_async_event ev;
	int k;

	while (!ibv_get_async_event(ctx, &ev)) {
		if (ev.event_type == IBV_EVENT_CQ_ERR)
			for (k = 0; k < ncq; k++)
				if (cq[k].cq && ev.element.cq == cq[k].cq &&
				    ++cq[k].cq_err == 2)
					check_fail("CQ of %u reported CQ_ERR more than once",
						   cq[k].n);
		ibv_ack_async_event(&ev);
	}
}

/* --- doorbells ---------------------------------------------------------- */

static int doorbell(struct ibv_qp *qp, uint32_t handle, int bad)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
		struct ib_uverbs_send_wr wr;
		struct ib_uverbs_sge sge;
	} c;
	struct ib_uverbs_post_send_resp resp;
	size_t len = sizeof(c.hdr) + sizeof(c.cmd);

	memset(&c, 0, sizeof(c));
	c.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	c.hdr.out_words = sizeof(resp) / 4;
	c.cmd.response = (uintptr_t)&resp;
	c.cmd.qp_handle = handle;
	c.cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);
	if (bad) {
		/* A request in the doorbell, or garbage sizes. */
		c.cmd.wr_count = 1;
		c.cmd.sge_count = 1;
		c.wr.wr_id = rnd();
		c.wr.num_sge = 1;
		c.wr.opcode = rn(16);
		c.wr.send_flags = rnd();
		c.sge.addr = rnd();
		c.sge.length = rnd();
		c.sge.lkey = rnd();
		len = sizeof(c);
		if (chance(30))
			c.cmd.wqe_size = rn(256);
	}
	c.hdr.in_words = len / 4;
	return write(qp->context->cmd_fd, &c, len) < 0 ? -errno : 0;
}

/*
 * DESTROY_CQ, not through the provider, which unmaps its ring before it
 * asks (and a refused destroy leaves it unmapped).
 */
static int destroy_cq_raw(struct ibv_cq *cq)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_destroy_cq cmd;
	} c;
	struct ib_uverbs_destroy_cq_resp resp;

	memset(&c, 0, sizeof(c));
	c.hdr.command = IB_USER_VERBS_CMD_DESTROY_CQ;
	c.hdr.in_words = sizeof(c) / 4;
	c.hdr.out_words = sizeof(resp) / 4;
	c.cmd.response = (uintptr_t)&resp;
	c.cmd.cq_handle = cq->handle;
	return write(cq->context->cmd_fd, &c, sizeof(c)) < 0 ? -errno : 0;
}

/* --- elements --------------------------------------------------------- */

static uint64_t rnd_addr(struct round *r)
{
	switch (rn(8)) {
	case 0:
		return 0;
	case 1:
		return rnd();
	case 2:
		return 0xffff888000000000ULL + (rnd() & 0xfffffff000ULL);
	case 3:
		return 0xffffffff81000000ULL + rn(1 << 24);
	case 4:
		return (uintptr_t)r->freed + rn(r->freed_len);
	case 5:
		return (uintptr_t)r->ro + rn(4096);
	default:
		return (uintptr_t)r->buf + rn(GUARD * 2 + BUF_LEN);
	}
}

static uint32_t rnd_len(void)
{
	switch (rn(6)) {
	case 0:
		return 0;
	case 1:
		return 0xffffffff - rn(64);
	case 2:
		return rnd();
	case 3:
		return rn(8) * 4096 + rn(2);
	default:
		return rn(512);
	}
}

static uint32_t rnd_key(struct round *r)
{
	int n;

	switch (rn(8)) {
	case 0:
		return rnd();
	case 1:
		return r->nfreed ? r->freed_keys[rn(r->nfreed)] : 0;
	case 2:
		n = atomic_load(&shm->nkeys);
		return n ? shm->keys[rn(n < 16 ? n : 16)] : 0;
	case 3:
		return r->buf_mr ? r->buf_mr->lkey + rn(3) - 1 : 0;
	case 4:
		/* another index, this key byte */
		return r->buf_mr ? r->buf_mr->lkey + (rn(5) - 2) * 256 : 0;
	default:
		n = rn(r->nmr + 1);
		if (n == r->nmr)
			return r->buf_mr ? r->buf_mr->lkey : 0;
		return r->mr[n].mr ? r->mr[n].mr->lkey : rnd();
	}
}

static void rnd_sge(struct round *r, struct siw_sge *s)
{
	if (chance(50) && r->buf_mr) {
		/* Valid, mostly. */
		uint32_t off = rn(BUF_LEN);

		s->laddr = (uintptr_t)r->buf + GUARD + off;
		s->length = rn(BUF_LEN - off + 1);
		s->lkey = r->buf_mr->lkey;
		if (chance(20))
			s->length += rn(64);
		if (chance(10))
			s->laddr -= rn(64);
		return;
	}
	s->laddr = rnd_addr(r);
	s->length = rnd_len();
	s->lkey = rnd_key(r);
}

/* Write a send element to @slot; valid bit last unless @hostile. */
static void put_sqe(struct round *r, struct fq *q, uint32_t slot, int raw)
{
	struct siw_sqe *e = &q->sq[slot % NSQ], v;
	uint8_t *b = (uint8_t *)&v;
	int i, ops[] = { SIW_OP_WRITE, SIW_OP_READ, SIW_OP_SEND,
			 SIW_OP_SEND_REMOTE_INV };

	if (raw) {
		for (i = 0; i < (int)sizeof(v); i++)
			b[i] = rnd();
	} else {
		memset(&v, 0, sizeof(v));
		v.opcode = chance(85) ? ops[rn(4)] : rn(256);
		v.flags = SIW_WQE_SIGNALLED;
		if (chance(20))
			v.flags = rnd() & 0x7f;
		if (chance(10))
			v.flags |= SIW_WQE_INLINE;
		v.num_sge = chance(85) ? 1 + rn(SIW_MAX_SGE) : rn(256);
		for (i = 0; i < SIW_MAX_SGE; i++)
			rnd_sge(r, &v.sge[i]);
		if (v.flags & SIW_WQE_INLINE)
			v.sge[0].length = chance(80) ? rn(SIW_MAX_INLINE + 1) :
						       rnd_len();
		v.rkey = chance(60) && r->buf_mr ? r->buf_mr->rkey : rnd_key(r);
		v.raddr = chance(60) ? (uintptr_t)r->buf + GUARD +
				       rn(BUF_LEN) : rnd_addr(r);
	}
	v.id = chance(90) ? next_id(q, 0) : old_id(q, 0);
	v.flags |= SIW_WQE_VALID;
	if (chance(10)) {
		/* Valid before the rest: the kernel may read either. */
		__atomic_store_n(&e->flags, v.flags, __ATOMIC_RELEASE);
		e->id = old_id(q, 0);
	}
	memcpy((uint8_t *)e + 16, b + 16, sizeof(v) - 16);
	e->id = v.id;
	e->num_sge = v.num_sge;
	e->opcode = v.opcode;
	e->rkey = v.rkey;
	__atomic_store_n(&e->flags, v.flags, __ATOMIC_RELEASE);
}

static void put_rqe(struct round *r, struct fq *q, uint32_t slot, int raw)
{
	struct siw_rqe *e = &q->rq[slot % NRQ], v;
	uint8_t *b = (uint8_t *)&v;
	int i;

	if (raw) {
		for (i = 0; i < (int)sizeof(v); i++)
			b[i] = rnd();
	} else {
		memset(&v, 0, sizeof(v));
		v.num_sge = chance(85) ? 1 + rn(SIW_MAX_SGE) : rn(256);
		v.opcode = chance(90) ? 0 : rnd();
		for (i = 0; i < SIW_MAX_SGE; i++)
			rnd_sge(r, &v.sge[i]);
	}
	v.id = chance(90) ? next_id(q, 1) : old_id(q, 1);
	v.flags = SIW_WQE_VALID | (chance(10) ? rnd() : 0);
	memcpy((uint8_t *)e + 16, b + 16, sizeof(v) - 16);
	e->id = v.id;
	e->num_sge = v.num_sge;
	e->opcode = v.opcode;
	__atomic_store_n(&e->flags, v.flags, __ATOMIC_RELEASE);
}

/* Every slot: an id already of this QP, not valid. */
static void ring_init(struct fq *q)
{
	int i;

	for (i = 0; i < NSQ; i++)
		q->sq[i].id = mkid(q->tag, 0, 0);
	for (i = 0; i < NRQ; i++)
		q->rq[i].id = mkid(q->tag, 1, 0);
}

/* --- setup ------------------------------------------------------------ */

static int wait_event(struct rdma_event_channel *ch,
		      enum rdma_cm_event_type type, struct rdma_cm_id **id,
		      int ms)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	long end = now_ms() + ms;
	int got;

	for (;;) {
		if (poll(&p, 1, end - now_ms() > 0 ? end - now_ms() : 0) <= 0)
			return -ETIMEDOUT;
		if (rdma_get_cm_event(ch, &ev))
			return -errno;
		got = ev->event;
		if (id)
			*id = ev->id;
		rdma_ack_cm_event(ev);
		if (got == (int)type)
			return 0;
		/* A teardown of an earlier connection: not this one's. */
		if (got == RDMA_CM_EVENT_DISCONNECTED ||
		    got == RDMA_CM_EVENT_TIMEWAIT_EXIT)
			continue;
		return -EPROTO;
	}
}

/* Events nobody waits for (teardowns); a stray request is refused. */
static void drain(struct rdma_event_channel *ch)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	int type;

	while (!rdma_get_cm_event(ch, &ev)) {
		type = ev->event;
		id = ev->id;
		rdma_ack_cm_event(ev);
		if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
			rdma_reject(id, NULL, 0);
			rdma_destroy_id(id);
		}
	}
}

static void set_nonblock(struct rdma_event_channel *ch)
{
	int fl = fcntl(ch->fd, F_GETFL);

	fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK);
}

/* A QP on @pd's context for rdma_cm id @id, its rings found. */
static int make_cm_qp(struct round *r, struct ibv_pd *pd,
		      struct rdma_cm_id *id, struct fq *q, struct fcq *scq,
		      struct fcq *rcq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = scq->cq,
		.recv_cq = rcq->cq,
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = NSQ, .max_recv_wr = NRQ,
			.max_send_sge = SIW_MAX_SGE,
			.max_recv_sge = SIW_MAX_SGE,
		},
	};

	maps_mark();
	if (rdma_create_qp(id, pd, &a))
		return -errno;
	q->qp = id->qp;
	q->id = id;
	q->scq = scq;
	q->rcq = rcq;
	q->kind = Q_PAIR;
	q->sq = maps_new(r->ctx->cmd_fd, NSQ * sizeof(struct siw_sqe));
	q->rq = maps_new(r->ctx->cmd_fd, NRQ * sizeof(struct siw_rqe));
	q->tag = new_tag(q->qp->qp_num, 0);
	cq_add_qpn(scq, q->qp->qp_num);
	cq_add_qpn(rcq, q->qp->qp_num);
	if (!q->sq || !q->rq) {
		check_fail("QP %u: rings not found in the mappings",
			   q->qp->qp_num);
		return -ENOENT;
	}
	ring_init(q);
	return 0;
}

/* A connected pair over rdma_cm loopback: @a active, @b passive. */
static int connect_pair(struct round *r, struct ibv_pd *pd, struct fq *a,
			struct fq *b, struct fcq *ca, struct fcq *cb)
{
	struct rdma_conn_param cp = { .responder_resources = 4,
				      .initiator_depth = 4 };
	struct rdma_cm_id *cid, *sid;
	int ret;

	step = "connect: resolve";
	if (rdma_create_id(ch_cli, &cid, NULL, RDMA_PS_TCP))
		return -errno;
	if (rdma_resolve_addr(cid, NULL, (struct sockaddr *)&dst, 2000) ||
	    wait_event(ch_cli, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, 10000) ||
	    rdma_resolve_route(cid, 2000) ||
	    wait_event(ch_cli, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, 10000)) {
		rdma_destroy_id(cid);
		return -EHOSTUNREACH;
	}
	if (cid->verbs != r->ctx) {
		check_fail("rdma_cm id on another context");
		rdma_destroy_id(cid);
		return -EINVAL;
	}
	ret = make_cm_qp(r, pd, cid, a, ca, ca);
	if (ret)
		goto err_cid;
	step = "connect: connect";
	if (rdma_connect(cid, &cp)) {
		ret = -errno;
		goto err_cid;
	}
	ret = wait_event(ch_srv, RDMA_CM_EVENT_CONNECT_REQUEST, &sid, 10000);
	if (ret)
		goto err_cid;
	ret = make_cm_qp(r, pd, sid, b, cb, cb);
	if (ret || rdma_accept(sid, &cp)) {
		if (b->qp)
			rdma_destroy_qp(sid);
		b->qp = NULL;
		rdma_reject(sid, NULL, 0);
		rdma_destroy_id(sid);
		ret = ret ? ret : -EIO;
		goto err_cid;
	}
	step = "connect: established";
	ret = wait_event(ch_cli, RDMA_CM_EVENT_ESTABLISHED, NULL, 10000);
	if (!ret)
		ret = wait_event(ch_srv, RDMA_CM_EVENT_ESTABLISHED, NULL,
				 10000);
	if (ret) {
		/* Torn down with the round: both are in the list. */
		return ret;
	}
	return 0;
err_cid:
	if (a->qp)
		rdma_destroy_qp(cid);
	a->qp = NULL;
	rdma_destroy_id(cid);
	return ret;
}

static int make_idle_qp(struct round *r, struct fq *q, struct fcq *c)
{
	struct ibv_qp_init_attr a = {
		.send_cq = c->cq,
		.recv_cq = c->cq,
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = chance(30),
		.cap = {
			.max_send_wr = NSQ, .max_recv_wr = NRQ,
			.max_send_sge = SIW_MAX_SGE,
			.max_recv_sge = SIW_MAX_SGE,
		},
	};
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT };

	maps_mark();
	q->qp = ibv_create_qp(r->pd, &a);
	if (!q->qp)
		return -errno;
	q->kind = Q_IDLE;
	q->id = NULL;
	q->scq = c;
	q->rcq = c;
	q->sq = maps_new(r->ctx->cmd_fd, NSQ * sizeof(struct siw_sqe));
	q->rq = maps_new(r->ctx->cmd_fd, NRQ * sizeof(struct siw_rqe));
	q->tag = new_tag(q->qp->qp_num, 1);
	cq_add_qpn(c, q->qp->qp_num);
	if (!q->sq || !q->rq) {
		check_fail("QP %u: rings not found", q->qp->qp_num);
		ibv_destroy_qp(q->qp);
		q->qp = NULL;
		return -ENOENT;
	}
	ring_init(q);
	switch (rn(3)) {
	case 0:
		break;
	case 1:
		qa.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
		ibv_modify_qp(q->qp, &qa, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS);
		break;
	default:
		qa.qp_state = IBV_QPS_ERR;
		ibv_modify_qp(q->qp, &qa, IBV_QP_STATE);
		break;
	}
	return 0;
}

static int make_cq(struct round *r, struct fcq *c, int n)
{
	maps_mark();
	c->cq = ibv_create_cq(r->ctx, n, NULL, NULL, 0);
	if (!c->cq)
		return -errno;
	c->n = c->cq->cqe;
	c->ring = maps_new(r->ctx->cmd_fd, c->n * sizeof(struct siw_cqe) +
			   sizeof(struct siw_cq_ctrl));
	c->nqpn = 0;
	if (!c->ring)
		check_fail("CQ ring of %u not found", c->n);
	return 0;
}

static void fill(uint8_t *p, size_t n, uint8_t v)
{
	memset(p, v, n);
}

static void expect_fill(const uint8_t *p, size_t n, uint8_t v,
			const char *what)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != v) {
			check_fail("%s written at byte %zu: %#x", what, i,
				   p[i]);
			return;
		}
}

/* --- the canary --------------------------------------------------------- */

static int canary_wait(struct ibv_cq *cq, uint64_t id, enum ibv_wc_opcode op,
		       uint32_t len, const char *what)
{
	long end = now_ms() + 20000;
	struct ibv_wc wc;
	int n;

	while (now_ms() < end) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			break;
		if (!n) {
			usleep(1000);
			continue;
		}
		if (wc.wr_id != id || wc.status != IBV_WC_SUCCESS ||
		    wc.opcode != op || (op == IBV_WC_RECV && wc.byte_len != len)) {
			check_fail("canary %s: id %llu status %s opcode %d len %u",
				   what, (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
				   wc.opcode, wc.byte_len);
			return -1;
		}
		return 0;
	}
	check_fail("canary %s: no completion in 20 s", what);
	return -1;
}

/*
 * A SEND, a WRITE and a READ between @a and @b, with data checked,
 * through the provider's own verbs.
 */
static void canary_run(struct fq *a, struct fq *b, struct fcq *ca,
		       struct fcq *cb)
{
	size_t len = 8192;
	uint8_t *ma = calloc(1, 4 * len), *mb = calloc(1, 4 * len);
	struct ibv_mr *ra = NULL, *rb = NULL;
	struct ibv_send_wr swr = {}, *sbad;
	struct ibv_recv_wr rwr = {}, *rbad;
	struct ibv_sge sa, sb;
	size_t i;
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_REMOTE_READ;

	step = "canary";
	if (!ma || !mb)
		goto out;
	ra = ibv_reg_mr(a->qp->pd, ma, 4 * len, acc);
	rb = ibv_reg_mr(b->qp->pd, mb, 4 * len, acc);
	if (!ra || !rb) {
		check_fail("canary: reg_mr: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < len; i++) {
		ma[i] = i * 7 + cur_round;		/* SEND source */
		ma[len + i] = i * 13 + cur_round;	/* WRITE source */
		mb[3 * len + i] = i * 17 + cur_round;	/* READ source */
	}
	/* SEND a -> b */
	sb = (struct ibv_sge){ (uintptr_t)mb, len, rb->lkey };
	rwr.wr_id = 1;
	rwr.sg_list = &sb;
	rwr.num_sge = 1;
	if (ibv_post_recv(b->qp, &rwr, &rbad)) {
		check_fail("canary: post_recv: %s", strerror(errno));
		goto out;
	}
	sa = (struct ibv_sge){ (uintptr_t)ma, len, ra->lkey };
	swr.wr_id = 2;
	swr.sg_list = &sa;
	swr.num_sge = 1;
	swr.opcode = IBV_WR_SEND;
	swr.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(a->qp, &swr, &sbad)) {
		check_fail("canary: post_send SEND: %s", strerror(errno));
		goto out;
	}
	if (canary_wait(ca->cq, 2, IBV_WC_SEND, 0, "SEND") ||
	    canary_wait(cb->cq, 1, IBV_WC_RECV, len, "RECV"))
		goto out;
	/* WRITE a -> b's second part */
	sa.addr = (uintptr_t)ma + len;
	swr.wr_id = 3;
	swr.opcode = IBV_WR_RDMA_WRITE;
	swr.wr.rdma.remote_addr = (uintptr_t)mb + len;
	swr.wr.rdma.rkey = rb->rkey;
	if (ibv_post_send(a->qp, &swr, &sbad) ||
	    canary_wait(ca->cq, 3, IBV_WC_RDMA_WRITE, 0, "WRITE"))
		goto out;
	/* READ b's fourth part into a's third */
	sa.addr = (uintptr_t)ma + 2 * len;
	swr.wr_id = 4;
	swr.opcode = IBV_WR_RDMA_READ;
	swr.wr.rdma.remote_addr = (uintptr_t)mb + 3 * len;
	if (ibv_post_send(a->qp, &swr, &sbad) ||
	    canary_wait(ca->cq, 4, IBV_WC_RDMA_READ, 0, "READ"))
		goto out;
	if (memcmp(mb, ma, len))
		check_fail("canary: SEND data differ");
	/* The WRITE is placed before the READ response that follows it. */
	if (memcmp(mb + len, ma + len, len))
		check_fail("canary: WRITE data differ");
	if (memcmp(ma + 2 * len, mb + 3 * len, len))
		check_fail("canary: READ data differ");
	for (i = 0; i < len; i++)
		if (mb[2 * len + i]) {
			check_fail("canary: b written outside the transfers");
			break;
		}
	n_canary++;
out:
	if (ra)
		ibv_dereg_mr(ra);
	if (rb)
		ibv_dereg_mr(rb);
	free(ma);
	free(mb);
}

/* --- children ----------------------------------------------------------- */

/* Post into the parent's rings (shared mappings) until killed. */
static void child_flood(struct round *r)
{
	uint32_t slot = 0;
	int i;

	for (;;) {
		struct fq *q = &r->q[rn(r->nq)];

		if (!q->qp)
			continue;
		for (i = 0; i < 8; i++) {
			put_sqe(r, q, slot + i, chance(10));
			put_rqe(r, q, slot + i, chance(10));
		}
		slot += rn(16);
		doorbell(q->qp, q->qp->handle, chance(5));
	}
}

/* Objects of its own, keys for the parent, then posts until killed. */
static void child_own(struct round *r)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	struct round cr = *r;
	struct fq q = {};
	struct fcq c = {};
	void *buf;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev_name))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		_exit(1);
	cr.ctx = ctx;
	cr.pd = ibv_alloc_pd(ctx);
	buf = calloc(1, 1 << 16);
	if (!cr.pd || !buf)
		_exit(1);
	cr.buf_mr = ibv_reg_mr(cr.pd, buf, 1 << 16, IBV_ACCESS_LOCAL_WRITE |
			       IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_READ);
	if (cr.buf_mr) {
		i = atomic_fetch_add(&shm->nkeys, 1) % 16;
		shm->keys[i] = cr.buf_mr->lkey;
	}
	cr.nmr = 0;
	cr.nq = 0;
	if (make_cq(&cr, &c, 1 + rn(64)) || make_idle_qp(&cr, &q, &c))
		_exit(1);
	for (;;) {
		put_sqe(&cr, &q, rn(NSQ), chance(20));
		put_rqe(&cr, &q, rn(NRQ), chance(20));
		doorbell(q.qp, q.qp->handle, chance(5));
		if (chance(5)) {
			struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };

			ibv_modify_qp(q.qp, &qa, IBV_QP_STATE);
		}
	}
}

static void spawn_child(struct round *r)
{
	uint64_t cseed = rnd();
	pid_t pid;

	step = "fork";
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return;
	if (!pid) {
		alarm(0);
		in_child = 1;
		rs = cseed | 1;
		if (cseed & 1)
			child_flood(r);
		child_own(r);
		_exit(0);
	}
	n_children++;
	usleep(rn(50000));
	step = "kill child";
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* --- a round ----------------------------------------------------------- */

static struct fq *any_qp(struct round *r)
{
	int i, k = rn(r->nq);

	for (i = 0; i < r->nq; i++) {
		struct fq *q = &r->q[(k + i) % r->nq];

		if (q->qp)
			return q;
	}
	return NULL;
}

static void destroy_fq(struct fq *q)
{
	int ret, tries = 0;

	if (!q->qp)
		return;
	if (q->id) {
		if (chance(50))
			rdma_disconnect(q->id);
		rdma_destroy_qp(q->id);
		rdma_destroy_id(q->id);
		q->id = NULL;
	} else {
		do
			ret = ibv_destroy_qp(q->qp);
		while (ret == EBUSY && ++tries < 1000);
		if (ret)
			check_fail("destroy_qp: %s", strerror(ret));
	}
	q->qp = NULL;
	q->sq = NULL;
	q->rq = NULL;
}

static void mr_new(struct round *r)
{
	struct fmr *m;
	int acc = 0;

	if (r->nmr == MAX_MR)
		return;
	m = &r->mr[r->nmr];
	m->len = 4096 * (1 + rn(4));
	m->buf = r->buf + GUARD + rn(BUF_LEN - m->len);
	if (chance(70))
		acc |= IBV_ACCESS_LOCAL_WRITE;
	if (chance(50))
		acc |= IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE;
	if (chance(50))
		acc |= IBV_ACCESS_REMOTE_READ;
	m->mr = ibv_reg_mr(r->pd, m->buf, m->len, acc);
	if (m->mr)
		r->nmr++;
}

static void mr_drop(struct round *r)
{
	struct fmr *m;
	int i;

	if (!r->nmr)
		return;
	i = rn(r->nmr);
	m = &r->mr[i];
	if (r->nfreed < 8)
		r->freed_keys[r->nfreed++] = m->mr->lkey;
	if (ibv_dereg_mr(m->mr))
		check_fail("dereg_mr: %s", strerror(errno));
	r->mr[i] = r->mr[--r->nmr];
}

static void op(struct round *r)
{
	struct ibv_qp_attr qa = {};
	struct fq *q = any_qp(r);
	uint32_t s;
	int i, n;

	n_ops++;
	switch (rn(20)) {
	case 0: case 1: case 2: case 3:
		step = "write send elements";
		if (!q)
			break;
		s = rn(NSQ);
		for (i = 0, n = 1 + rn(8); i < n; i++)
			put_sqe(r, q, s + (chance(80) ? i : rn(NSQ)),
				chance(10));
		if (chance(70))
			doorbell(q->qp, q->qp->handle, 0);
		break;
	case 4: case 5: case 6:
		step = "write receive elements";
		if (!q)
			break;
		s = rn(NRQ);
		for (i = 0, n = 1 + rn(8); i < n; i++)
			put_rqe(r, q, s + i, chance(10));
		break;
	case 7: case 8:
		step = "doorbell";
		if (!q)
			break;
		doorbell(q->qp, chance(90) ? q->qp->handle : rn(64),
			 chance(10));
		break;
	case 9: case 10:
		step = "poll";
		cq_poll(&r->cq[0]);
		cq_poll(&r->cq[1]);
		async_read(r->ctx, r->cq, 2);
		break;
	case 11:
		step = "modify_qp";
		if (!q)
			break;
		qa.qp_state = rn(8);
		qa.qp_access_flags = rnd() & 0xf;
		ibv_modify_qp(q->qp, &qa, chance(80) ? IBV_QP_STATE :
						       (rnd() & 0x1fffff));
		break;
	case 12:
		step = "take elements back";
		if (!q)
			break;
		for (i = 0, n = rn(8); i < n; i++) {
			__atomic_store_n(&q->sq[rn(NSQ)].flags,
					 chance(50) ? 0 : rnd(),
					 __ATOMIC_RELEASE);
			__atomic_store_n(&q->rq[rn(NRQ)].flags, 0,
					 __ATOMIC_RELEASE);
		}
		break;
	case 13:
		step = "MRs";
		if (chance(50))
			mr_new(r);
		else
			mr_drop(r);
		break;
	case 14:
		step = "plant CQEs";
		{
			struct fcq *c = &r->cq[1];

			if (!c->ring || !r->plant)
				break;
			c->planted = 1;
			for (i = 0, n = rn(4); i < n; i++) {
				struct siw_cqe *e = &c->ring[rn(c->n)];

				e->id = ID_PLANT;
				__atomic_store_n(&e->flags, SIW_WQE_VALID,
						 __ATOMIC_RELEASE);
			}
			/* The arming word behind the ring. */
			((struct siw_cq_ctrl *)&c->ring[c->n])->flags = rnd();
		}
		break;
	case 15:
		step = "flood";
		if (!q)
			break;
		for (i = 0; i < NSQ + 8; i++) {
			put_sqe(r, q, i, 0);
			put_rqe(r, q, i, 0);
		}
		doorbell(q->qp, q->qp->handle, 0);
		break;
	case 16:
		if (chance(70))
			spawn_child(r);
		break;
	case 17:
		step = "destroy a QP";
		if (q && chance(q->kind == Q_PAIR ? 15 : 30))
			destroy_fq(q);
		break;
	case 18:
		step = "destroy a busy CQ";
		/* A CQ with QPs stays. */
		{
			struct fcq *c = &r->cq[rn(2)];

			for (i = 0; i < r->nq; i++)
				if (r->q[i].qp && (r->q[i].scq == c ||
						   r->q[i].rcq == c))
					break;
			if (i < r->nq && !destroy_cq_raw(c->cq)) {
				/* Leaked: the provider's state is stale. */
				check_fail("destroy_cq of a CQ with QPs succeeded");
				c->cq = NULL;
			}
		}
		break;
	default:
		step = "disconnect";
		if (q && q->id && chance(20))
			rdma_disconnect(q->id);
		break;
	}
}

static void round_run(long nops)
{
	struct round r = {};
	struct fcq canary_cq[2] = {};
	struct fq ca = {}, cb = {};
	size_t blen;
	long i;
	int k;

	rs = (seed * 0x9e3779b97f4a7c15ULL) ^ (cur_round * 0xbf58476d1ce4e5b9ULL);
	rs = rs ? rs : 1;
	alarm(120);

	step = "setup";
	/* The listener's: rdma_cm ids to ADDR get the same one. */
	r.ctx = listener->verbs;
	fcntl(r.ctx->async_fd, F_SETFL,
	      fcntl(r.ctx->async_fd, F_GETFL) | O_NONBLOCK);
	r.pd = ibv_alloc_pd(r.ctx);
	blen = 2 * GUARD + BUF_LEN + 4096 + 4 * 4096;
	r.buf = mmap(NULL, blen, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!r.pd || r.buf == MAP_FAILED) {
		check_fail("no PD or buffer");
		return;
	}
	fill(r.buf, GUARD, PAT_GUARD);
	fill(r.buf + GUARD + BUF_LEN, GUARD, PAT_GUARD);
	r.ro = r.buf + 2 * GUARD + BUF_LEN;
	r.freed = r.ro + 4096;
	r.freed_len = 4 * 4096;
	fill(r.ro, 4096, PAT_RO);
	r.buf_mr = ibv_reg_mr(r.pd, r.buf + GUARD, BUF_LEN,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			      IBV_ACCESS_REMOTE_READ);
	r.mr[0].mr = ibv_reg_mr(r.pd, r.ro, 4096, chance(50) ?
				IBV_ACCESS_REMOTE_READ : 0);
	r.mr[0].buf = r.ro;
	r.mr[0].len = 4096;
	r.nmr = r.mr[0].mr ? 1 : 0;
	{
		struct ibv_mr *f = ibv_reg_mr(r.pd, r.freed, r.freed_len,
					      IBV_ACCESS_LOCAL_WRITE |
					      IBV_ACCESS_REMOTE_WRITE |
					      IBV_ACCESS_REMOTE_READ);

		if (f) {
			r.freed_keys[r.nfreed++] = f->lkey;
			ibv_dereg_mr(f);
		}
	}
	fill(r.freed, r.freed_len, PAT_FREED);
	if (!r.buf_mr) {
		check_fail("reg_mr: %s", strerror(errno));
		goto out;
	}
	for (k = 0; k < 2; k++)
		if (make_cq(&r, &r.cq[k], 1 + rn(2) * rn(NCQE))) {
			check_fail("create_cq: %s", strerror(errno));
			goto out;
		}
	for (k = 0; k < 2; k++)
		if (make_cq(&r, &canary_cq[k], NCQE)) {
			check_fail("create_cq: %s", strerror(errno));
			goto out;
		}

	/* The canary pair, then the fuzzed one, then idle QPs. */
	/* In a PD of its own: no key the fuzzing uses reaches its memory. */
	r.canary_pd = ibv_alloc_pd(r.ctx);
	if (!r.canary_pd ||
	    connect_pair(&r, r.canary_pd, &ca, &cb, &canary_cq[0],
			 &canary_cq[1]))
		check_fail("canary pair: no connection");
	k = connect_pair(&r, r.pd, &r.q[0], &r.q[1], &r.cq[0], &r.cq[rn(2)]);
	if (k && k != -ETIMEDOUT && k != -EPROTO)
		check_fail("fuzz pair: no connection: %s", strerror(-k));
	r.nq = 2;
	for (k = 0; k < 2 + (int)rn(3); k++)
		if (!make_idle_qp(&r, &r.q[r.nq], &r.cq[rn(2)]))
			r.nq++;
	r.plant = chance(25);
	if (verbose)
		printf("round %ld: %d QPs, CQs of %u and %u\n", cur_round,
		       r.nq, r.cq[0].n, r.cq[1].n);

	for (i = 0; i < nops; i++)
		op(&r);
	cq_poll(&r.cq[0]);
	cq_poll(&r.cq[1]);

	if (ca.qp && cb.qp)
		canary_run(&ca, &cb, &canary_cq[0], &canary_cq[1]);

	step = "teardown";
	for (k = 0; k < r.nq; k++) {
		struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };

		if (r.q[k].qp && chance(50)) {
			ibv_modify_qp(r.q[k].qp, &qa, IBV_QP_STATE);
			doorbell(r.q[k].qp, r.q[k].qp->handle, 0);
		}
		cq_poll(&r.cq[0]);
		cq_poll(&r.cq[1]);
		destroy_fq(&r.q[k]);
	}
	destroy_fq(&ca);
	destroy_fq(&cb);
	/* Whatever is in flight lands now, or never. */
	while (r.nmr)
		mr_drop(&r);
	expect_fill(r.buf, GUARD, PAT_GUARD, "guard below the MR");
	expect_fill(r.buf + GUARD + BUF_LEN, GUARD, PAT_GUARD,
		    "guard above the MR");
	expect_fill(r.ro, 4096, PAT_RO, "read-only MR");
	expect_fill(r.freed, r.freed_len, PAT_FREED, "deregistered MR");
out:
	step = "teardown CQs";
	async_read(r.ctx, r.cq, 2);
	for (k = 0; k < 2; k++) {
		if (r.cq[k].cq && ibv_destroy_cq(r.cq[k].cq))
			check_fail("destroy_cq: %s", strerror(errno));
		if (canary_cq[k].cq && ibv_destroy_cq(canary_cq[k].cq))
			check_fail("destroy_cq: %s", strerror(errno));
	}
	if (r.buf_mr)
		ibv_dereg_mr(r.buf_mr);
	while (r.nmr)
		mr_drop(&r);
	ibv_dealloc_pd(r.pd);
	if (r.canary_pd)
		ibv_dealloc_pd(r.canary_pd);
	munmap(r.buf, blen);
	maps_drop();
	alarm(0);
}

int main(int argc, char **argv)
{
	struct rdma_addrinfo hints = {}, *ai;
	long rounds = 1000000, secs = 0, nops = 300, end;
	char ports[16];
	int c;

	while ((c = getopt(argc, argv, "d:a:p:s:R:n:t:o:v")) != -1) {
		switch (c) {
		case 'd':
			dev_name = optarg;
			break;
		case 'a':
			addr_str = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'R':
			cur_round = atol(optarg);
			break;
		case 'n':
			rounds = atol(optarg);
			break;
		case 't':
			secs = atol(optarg);
			break;
		case 'o':
			nops = atol(optarg);
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-d DEV] -a ADDR [-p PORT] [-s SEED]\n"
				"\t[-R ROUND] [-n ROUNDS] [-t SECONDS] [-o OPS] [-v]\n",
				argv[0]);
			return 2;
		}
	}
	if (!addr_str) {
		fprintf(stderr, "-a ADDR needed\n");
		return 2;
	}
	printf("swiw_ring_fuzz: seed %llu first round %ld dev %s\n",
	       seed, cur_round, dev_name);
	fflush(stdout);
	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN);
	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED)
		return 1;

	snprintf(ports, sizeof(ports), "%d", port);
	hints.ai_port_space = RDMA_PS_TCP;
	if (rdma_getaddrinfo(addr_str, ports, &hints, &ai)) {
		fprintf(stderr, "rdma_getaddrinfo %s: %s\n", addr_str,
			strerror(errno));
		return 1;
	}
	memcpy(&dst, ai->ai_dst_addr, ai->ai_dst_len);
	ch_srv = rdma_create_event_channel();
	ch_cli = rdma_create_event_channel();
	if (!ch_srv || !ch_cli ||
	    rdma_create_id(ch_srv, &listener, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listener, ai->ai_dst_addr) ||
	    rdma_listen(listener, 16)) {
		fprintf(stderr, "cannot listen on %s:%d: %s\n", addr_str, port,
			strerror(errno));
		return 1;
	}
	rdma_freeaddrinfo(ai);
	set_nonblock(ch_srv);
	set_nonblock(ch_cli);

	end = now_ms() + secs * 1000;
	for (c = 0; c < rounds && (!secs || now_ms() < end); c++, cur_round++) {
		round_run(nops);
		drain(ch_srv);
		drain(ch_cli);
	}
	rdma_destroy_id(listener);
	rdma_destroy_event_channel(ch_srv);
	rdma_destroy_event_channel(ch_cli);
	printf("swiw_ring_fuzz: %d rounds, %lu ops, %lu completions checked, ",
	       c, n_ops, n_cqes);
	printf("%lu canaries, %lu children killed, %lu check failures\n",
	       n_canary, n_children, failures);
	return failures ? 1 : 0;
}
