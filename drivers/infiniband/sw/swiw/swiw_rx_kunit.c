// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: swiw's inbound parser (swiw_rx.c) on a loopback TCP stream.
 * The test plays the peer: it writes FPDUs, well formed or not, and
 * runs the QP's receive work over them against one memory region the
 * size of its kmalloc'd buffer, so a byte placed outside it is a KASAN
 * report.  A known stream must give the known completions and bytes;
 * random and mutated streams must end (the peer's EOF at the latest)
 * with the QP failed, no completion beyond what was posted and nothing
 * written out of bounds.  The TERMINATE swiw sends is read back and fed
 * to the parser; the known stream also goes through data_ready's parser,
 * in atomic context.  A doorbell's send that TCP takes only in part must
 * reach the peer whole and in order.  The QP's other files are stubs
 * here.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <net/sock.h>

#include "swiw_wire.c"
#include "swiw_rx.c"
#include "swiw_tx.c"

static unsigned int fuzz_iters = 1000;
module_param(fuzz_iters, uint, 0444);
MODULE_PARM_DESC(fuzz_iters, "streams the fuzz case tries (default 1000)");

static unsigned long fuzz_seed = 0x5041;
module_param(fuzz_seed, ulong, 0444);
MODULE_PARM_DESC(fuzz_seed, "seed of the fuzz case");

/* The one memory region: FZ_KEY covers [FZ_BASE, FZ_BASE + FZ_LEN). */
#define FZ_KEY		0x1234500
/* STags the lookup refuses for a reason: another PD's, a local one. */
#define FZ_KEY_PD	0x1234600
#define FZ_KEY_LOCAL	0x1234700
#define FZ_BASE		0x10000ULL
#define FZ_LEN		1024
#define FZ_NR_RQE	8
#define FZ_NR_READ	4
/* The IRD the streams' QP negotiated: above what one stream queues. */
#define FZ_IRD		8
#define FZ_STREAM	8192

struct fz_stats {
	int recv_ok;
	int recv_err;
	int send_done;
	int fails;
	u32 recv_len[FZ_NR_RQE + 1];
	bool recv_se[FZ_NR_RQE + 1];
	u32 recv_inval[FZ_NR_RQE + 1];
};

static u8 *fz_mem;
static struct fz_stats fz;

/* Stubs for what swiw_rx.c takes from the rest of swiw. */
bool swiw_complete(struct swiw_qp *qp, bool recv, const struct swiw_wqe *wqe,
		   enum ib_wc_status status, u32 len, bool solicited, u32 inval)
{
	if (!recv)
		return true;
	if (status == IB_WC_SUCCESS) {
		if (fz.recv_ok < ARRAY_SIZE(fz.recv_len)) {
			fz.recv_len[fz.recv_ok] = len;
			fz.recv_se[fz.recv_ok] = solicited;
			fz.recv_inval[fz.recv_ok] = inval;
		}
		fz.recv_ok++;
	} else {
		fz.recv_err++;
	}
	return true;
}

void swiw_sq_done(struct swiw_qp *qp, u32 pos, enum ib_wc_status status)
{
	qp->sq.wqe[pos & (qp->sq.size - 1)].state = SWIW_WQE_DONE;
	fz.send_done++;
}

void swiw_qp_kick(struct swiw_qp *qp, struct work_struct *work)
{
}

void swiw_rtr_in(struct swiw_qp *qp, struct socket *sock)
{
	qp->rtr_wait = false;
}

void swiw_qp_fail(struct swiw_qp *qp)
{
	qp->state = SWIW_QP_ERROR;
	fz.fails++;
}

int swiw_mr_reg(struct swiw_qp *qp, struct ib_mr *ibmr, u32 key, int access)
{
	return -EINVAL;
}

/*
 * FZ_KEY has uses in progress elsewhere: a wait is needed, and it must
 * not hold the socket fz_inval_sk (a READ response's sendmsg may be
 * waiting for it).
 */
static bool fz_inval_busy;
static int fz_inval_waits;
static int fz_inval_locked;
static struct sock *fz_inval_sk;

int swiw_mr_inval(struct swiw_dev *sdev, struct ib_pd *pd, u32 key,
		  bool wait)
{
	if (key != FZ_KEY)
		return -EINVAL;
	if (fz_inval_busy) {
		if (!wait)
			return -EBUSY;
		fz_inval_waits++;
		if (sock_owned_by_user_nocheck(fz_inval_sk))
			fz_inval_locked++;
	}
	return 0;
}

void swiw_mr_release(struct swiw_mr *mr)
{
}

void swiw_usq_fetch(struct swiw_qp *qp)
{
}

void swiw_urq_fetch(struct swiw_qp *qp)
{
}

void swiw_uq_release(struct swiw_qp *qp, bool recv, u32 pos)
{
}

int swiw_srq_take(struct swiw_srq *srq, struct swiw_wqe *wqe)
{
	return -ENOBUFS;
}

/* Why swiw_mr_piece() below refused, as swiw_mr.c says it. */
enum swiw_fault swiw_mr_fault(struct swiw_dev *sdev, struct ib_pd *pd,
			      u32 key, u64 addr, u32 len, int access)
{
	if (addr + len < addr)
		return SWIW_FAULT_WRAP;
	switch (key) {
	case FZ_KEY_PD:
		return SWIW_FAULT_FOREIGN;
	case FZ_KEY_LOCAL:
		return access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ) ?
		       SWIW_FAULT_ACCESS : SWIW_FAULT_NONE;
	case FZ_KEY:
		return addr < FZ_BASE || addr + len > FZ_BASE + FZ_LEN ?
		       SWIW_FAULT_BOUNDS : SWIW_FAULT_NONE;
	default:
		return SWIW_FAULT_STAG;
	}
}

/* With fz_frmr_on, FZ_KEY is a fast-reg MR: counted uses hold it. */
static struct swiw_mr fz_frmr;
static bool fz_frmr_on;
static atomic_t fz_frmr_holds;

/* In pieces of at most 100 bytes, to cross piece boundaries. */
void *swiw_mr_piece(struct swiw_dev *sdev, struct ib_pd *pd, u32 key,
		    u64 addr, u32 len, int access, u32 *piece,
		    struct swiw_mr **hold)
{
	*hold = NULL;
	if (key != FZ_KEY || !len || addr < FZ_BASE ||
	    addr + len > FZ_BASE + FZ_LEN || addr + len < addr)
		return NULL;
	if (READ_ONCE(fz_frmr_on) && access) {
		refcount_inc(&fz_frmr.ref);
		atomic_inc(&fz_frmr.users);
		atomic_inc(&fz_frmr_holds);
		*hold = &fz_frmr;
	}
	*piece = min(len, 100U);
	return fz_mem + (addr - FZ_BASE);
}

struct fz_ctx {
	struct swiw_dev sdev;
	struct swiw_qp qp;
	struct swiw_wqe rq[FZ_NR_RQE];
	struct swiw_wqe sq[FZ_NR_READ];
	struct socket *srv;
	struct socket *cli;
	u8 stream[FZ_STREAM];
	u32 len;			/* bytes of stream built */
	u32 msn;			/* next SEND MSN to use */
	u32 rd_msn;			/* next READ request MSN */
	u32 rd_next;			/* next READ to answer */
	bool crc;
};

/* The MSS the next fz_pair()'s client advertises; 0: the route's. */
static int fz_mss;

static int fz_pair(struct fz_ctx *c)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct socket *l;
	int ret;

	ret = sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP,
			       &l);
	if (ret)
		return ret;
	ret = kernel_bind(l, (struct sockaddr *)&a, sizeof(a)) ?:
	      kernel_listen(l, 1) ?:
	      kernel_getsockname(l, (struct sockaddr *)&a);
	if (ret < 0)
		goto out;
	ret = sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP,
			       &c->cli);
	if (ret)
		goto out;
	if (fz_mss)
		ret = c->cli->ops->setsockopt(c->cli, SOL_TCP, TCP_MAXSEG,
					      KERNEL_SOCKPTR(&fz_mss),
					      sizeof(fz_mss));
	ret = ret ?: kernel_connect(c->cli, (struct sockaddr *)&a, sizeof(a),
				    0) ?:
	      kernel_accept(l, &c->srv, 0);
	if (ret) {
		sock_release(c->cli);
		c->cli = NULL;
	}
out:
	sock_release(l);
	return ret < 0 ? ret : 0;
}

static int fz_init(struct kunit *test, struct fz_ctx *c, bool crc)
{
	int i;

	memset(c, 0, sizeof(*c));
	memset(&fz, 0, sizeof(fz));
	memset(fz_mem, 0, FZ_LEN);
	spin_lock_init(&c->qp.lock);
	c->qp.sdev = &c->sdev;
	c->qp.state = SWIW_QP_RTS;
	c->qp.crc = crc;
	c->qp.ird = FZ_IRD;
	c->qp.access = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	c->crc = crc;
	c->msn = 1;
	c->rd_msn = 1;
	swiw_rx_reset(&c->qp.rx);
	/* Receives of 128 bytes each, in two SGEs, across the region. */
	for (i = 0; i < FZ_NR_RQE; i++) {
		struct swiw_wqe *w = &c->rq[i];

		w->wr_id = i;
		w->num_sge = 2;
		w->sge[0] = (struct ib_sge){ FZ_BASE + i * 128, 50, FZ_KEY };
		w->sge[1] = (struct ib_sge){ FZ_BASE + i * 128 + 50, 78,
					     FZ_KEY };
		w->bytes = 128;
	}
	c->qp.rq.wqe = c->rq;
	c->qp.rq.size = FZ_NR_RQE;
	c->qp.rq.head = FZ_NR_RQE;
	/* READs of 64 bytes into the region's last 256, outstanding. */
	for (i = 0; i < FZ_NR_READ; i++) {
		struct swiw_wqe *w = &c->sq[i];

		w->opcode = IB_WR_RDMA_READ;
		w->state = SWIW_WQE_READING;
		w->num_sge = 1;
		w->sge[0] = (struct ib_sge){ FZ_BASE + 768 + i * 64, 64,
					     FZ_KEY };
	}
	c->qp.sq.wqe = c->sq;
	c->qp.sq.size = FZ_NR_READ;
	c->qp.sq.head = FZ_NR_READ;
	c->qp.sq.next = FZ_NR_READ;
	c->qp.orq_count = FZ_NR_READ;
	KUNIT_ASSERT_EQ(test, fz_pair(c), 0);
	c->qp.sock = c->srv;
	return 0;
}

/* Read @len bytes of what swiw sent, as its peer; return what came. */
static int fz_recv(struct fz_ctx *c, void *buf, size_t len)
{
	struct kvec iov = { buf, len };
	struct msghdr msg = {};

	return kernel_recvmsg(c->cli, &msg, &iov, 1, len, MSG_WAITALL);
}

static void fz_fini(struct fz_ctx *c)
{
	if (c->cli)
		sock_release(c->cli);
	if (c->srv)
		sock_release(c->srv);
	c->cli = NULL;
	c->srv = NULL;
}

/* Append one FPDU: header (its first 4 bytes are filled in), payload. */
static void fz_fpdu(struct fz_ctx *c, union swiw_hdr *h, u32 hdr_len,
		    u16 ctrl, const u8 *payload, u32 len)
{
	u32 mpa_len = hdr_len - 2 + len, pad = swiw_pad(mpa_len);
	u32 total = 2 + mpa_len + pad + SWIW_CRC_LEN, crc;
	u8 *p = c->stream + c->len;
	__le32 crc_le = 0;

	if (c->len + total > FZ_STREAM || mpa_len > U16_MAX)
		return;
	h->u.mpa_len = cpu_to_be16(mpa_len);
	h->u.ctrl = cpu_to_be16(ctrl);
	memcpy(p, h, hdr_len);
	memcpy(p + hdr_len, payload, len);
	memset(p + hdr_len + len, 0, pad);
	if (c->crc) {
		crc = swiw_crc_update(SWIW_CRC_INIT, p, hdr_len + len + pad);
		crc_le = swiw_crc_final(crc);
	}
	memcpy(p + hdr_len + len + pad, &crc_le, SWIW_CRC_LEN);
	c->len += total;
}

static void fz_send(struct fz_ctx *c, const u8 *data, u32 len, u32 seg)
{
	union swiw_hdr h = {};
	u32 off = 0, n;

	do {
		n = min(len - off, seg);
		h.u.qn = cpu_to_be32(SWIW_QN_SEND);
		h.u.msn = cpu_to_be32(c->msn);
		h.u.mo = cpu_to_be32(off);
		fz_fpdu(c, &h, sizeof(h.u),
			swiw_ctrl(SWIW_OP_SEND, off + n == len), data + off,
			n);
		off += n;
	} while (off < len);
	c->msn++;
}

static void fz_write(struct fz_ctx *c, u32 stag, u64 to, const u8 *data,
		     u32 len)
{
	union swiw_hdr h = {};

	h.t.stag = cpu_to_be32(stag);
	h.t.to = cpu_to_be64(to);
	fz_fpdu(c, &h, sizeof(h.t), swiw_ctrl(SWIW_OP_WRITE, true), data,
		len);
}

static void fz_read_resp(struct fz_ctx *c, const u8 *data, u32 len)
{
	union swiw_hdr h = {};
	u32 i = c->rd_next++ % FZ_NR_READ;

	h.t.stag = cpu_to_be32(FZ_KEY);
	h.t.to = cpu_to_be64(c->sq[i].sge[0].addr);
	fz_fpdu(c, &h, sizeof(h.t), swiw_ctrl(SWIW_OP_READ_RESP, true), data,
		len);
}

static void fz_read_req(struct fz_ctx *c, u32 size)
{
	union swiw_hdr h = {};

	h.rreq.u.qn = cpu_to_be32(SWIW_QN_READ_REQ);
	h.rreq.u.msn = cpu_to_be32(c->rd_msn++);
	h.rreq.sink_stag = cpu_to_be32(0x777);
	h.rreq.size = cpu_to_be32(size);
	h.rreq.src_stag = cpu_to_be32(FZ_KEY);
	h.rreq.src_to = cpu_to_be64(FZ_BASE);
	fz_fpdu(c, &h, sizeof(h.rreq), swiw_ctrl(SWIW_OP_READ_REQ, true),
		NULL, 0);
}

/* Run the QP's receive work until the stream ends (or 5 s pass). */
static void fz_drain(struct fz_ctx *c)
{
	unsigned long end = jiffies + 5 * HZ;

	while (c->qp.state == SWIW_QP_RTS && time_before(jiffies, end)) {
		swiw_rx_work(&c->qp.rx_work);
		if (c->qp.state == SWIW_QP_RTS)
			usleep_range(500, 1000);
	}
}

/* Send the stream, close our end, and let the QP read it all. */
static void fz_run(struct kunit *test, struct fz_ctx *c)
{
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	struct kvec iov = { .iov_base = c->stream, .iov_len = c->len };

	if (c->len)
		KUNIT_ASSERT_EQ(test, kernel_sendmsg(c->cli, &msg, &iov, 1,
						     c->len), (int)c->len);
	kernel_sock_shutdown(c->cli, SHUT_WR);
	fz_drain(c);
	/* EOF at the latest ends the stream, once. */
	KUNIT_EXPECT_EQ(test, fz.fails, 1);
}

/*
 * The same through data_ready's parser, as TCP's receive path calls it:
 * bottom halves off, the socket's spinlock held.  It takes all the bytes
 * in; the EOF after them is rx_work's (state_change).
 */
static void fz_run_direct(struct kunit *test, struct fz_ctx *c)
{
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	struct kvec iov = { .iov_base = c->stream, .iov_len = c->len };
	struct sock *sk = c->srv->sk;
	u32 start = READ_ONCE(tcp_sk(sk)->copied_seq);
	unsigned long end = jiffies + 5 * HZ;
	bool done;

	KUNIT_ASSERT_EQ(test, kernel_sendmsg(c->cli, &msg, &iov, 1, c->len),
			(int)c->len);
	/* Until it has taken every byte, as the bytes come in. */
	while (READ_ONCE(tcp_sk(sk)->copied_seq) - start < c->len &&
	       time_before(jiffies, end)) {
		local_bh_disable();
		bh_lock_sock(sk);
		done = swiw_rx_direct(&c->qp, sk);
		bh_unlock_sock(sk);
		local_bh_enable();
		KUNIT_ASSERT_TRUE(test, done);
		usleep_range(100, 200);
	}
	KUNIT_EXPECT_EQ(test, tcp_sk(sk)->copied_seq - start, c->len);
	KUNIT_EXPECT_EQ(test, fz.fails, 0);
	kernel_sock_shutdown(c->cli, SHUT_WR);
	fz_drain(c);
	KUNIT_EXPECT_EQ(test, fz.fails, 1);
}

static u8 fz_data[512];

/* A known stream: what it places and completes, then EOF. */
static void swiw_rx_known_test(struct kunit *test)
{
	struct fz_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	bool crc;
	int pass;

	KUNIT_ASSERT_NOT_NULL(test, c);
	/* Without CRC, with it, and by data_ready's parser. */
	for (pass = 0; pass < 3; pass++) {
		crc = pass == 1;
		fz_init(test, c, crc);
		fz_send(c, fz_data, 100, 40);	/* three segments */
		fz_send(c, fz_data + 7, 0, 40);	/* empty */
		fz_write(c, FZ_KEY, FZ_BASE + 600, fz_data + 3, 50);
		fz_read_resp(c, fz_data + 5, 64);
		fz_read_req(c, 16);
		if (pass == 2)
			fz_run_direct(test, c);
		else
			fz_run(test, c);
		KUNIT_EXPECT_EQ(test, fz.recv_ok, 2);
		KUNIT_EXPECT_EQ(test, fz.recv_len[0], 100U);
		KUNIT_EXPECT_EQ(test, fz.recv_len[1], 0U);
		KUNIT_EXPECT_EQ(test, fz.recv_err, 0);
		/* Two SGEs of the first receive: 50 + 50 of the 100. */
		KUNIT_EXPECT_EQ(test, memcmp(fz_mem, fz_data, 100), 0);
		KUNIT_EXPECT_EQ(test, memcmp(fz_mem + 600, fz_data + 3, 50), 0);
		KUNIT_EXPECT_EQ(test, memcmp(fz_mem + 768, fz_data + 5, 64), 0);
		KUNIT_EXPECT_EQ(test, fz.send_done, 1);
		KUNIT_EXPECT_EQ(test, c->qp.irq_head, 1U);
		KUNIT_EXPECT_TRUE(test, c->qp.peer_closed);
		fz_fini(c);
	}
}

/* An untagged segment of @len bytes, its header fields as given. */
static void fz_untagged(struct fz_ctx *c, enum swiw_rdmap_op op, u32 inval,
			u32 qn, u32 msn, u32 mo, u32 len, bool last)
{
	union swiw_hdr h = {};
	u32 hdr_len = sizeof(h.u);

	if (op == SWIW_OP_READ_REQ) {
		hdr_len = sizeof(h.rreq);
		h.rreq.sink_stag = cpu_to_be32(0x777);
		h.rreq.size = cpu_to_be32(len);
		h.rreq.src_stag = cpu_to_be32(FZ_KEY);
		h.rreq.src_to = cpu_to_be64(FZ_BASE);
		len = 0;
	}
	h.u.inval_stag = cpu_to_be32(inval);
	h.u.qn = cpu_to_be32(qn);
	h.u.msn = cpu_to_be32(msn);
	h.u.mo = cpu_to_be32(mo);
	fz_fpdu(c, &h, hdr_len, swiw_ctrl(op, last), fz_data, len);
}

/* An FPDU of a bare header with control word @ctrl. */
static void fz_ctrl(struct fz_ctx *c, u16 ctrl, u32 hdr_len)
{
	union swiw_hdr h = {};

	fz_fpdu(c, &h, hdr_len, ctrl, NULL, 0);
}

/*
 * The four Sends (RFC 5040 opcodes 3 to 6): each fills a receive; with
 * SE its completion is solicited, with Invalidate it carries the STag
 * invalidated.
 */
static void swiw_rx_send_kinds_test(struct kunit *test)
{
	static const struct {
		enum swiw_rdmap_op op;
		u32 inval;
		bool se;
	} kind[] = {
		{ SWIW_OP_SEND, 0, false },
		{ SWIW_OP_SEND_SE, 0, true },
		{ SWIW_OP_SEND_INV, FZ_KEY, false },
		{ SWIW_OP_SEND_SE_INV, FZ_KEY, true },
	};
	struct fz_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	fz_init(test, c, true);
	for (i = 0; i < ARRAY_SIZE(kind); i++)
		fz_untagged(c, kind[i].op, kind[i].inval, SWIW_QN_SEND, i + 1,
			    0, 8 + i, true);
	fz_run(test, c);
	KUNIT_EXPECT_EQ(test, fz.recv_ok, ARRAY_SIZE(kind));
	KUNIT_EXPECT_EQ(test, fz.recv_err, 0);
	KUNIT_EXPECT_EQ(test, c->qp.term, 0U);
	for (i = 0; i < min_t(int, fz.recv_ok, ARRAY_SIZE(kind)); i++) {
		KUNIT_EXPECT_EQ_MSG(test, fz.recv_len[i], 8U + i, "op %d",
				    kind[i].op);
		KUNIT_EXPECT_EQ_MSG(test, fz.recv_se[i], kind[i].se, "op %d",
				    kind[i].op);
		KUNIT_EXPECT_EQ_MSG(test, fz.recv_inval[i], kind[i].inval,
				    "op %d", kind[i].op);
	}
	fz_fini(c);
}

/*
 * data_ready's parser over the stream until it gives up on it (false),
 * then rx_work once: it waits, completes the SEND and goes on.
 */
static void fz_inval_direct(struct kunit *test, struct fz_ctx *c)
{
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	struct kvec iov = { .iov_base = c->stream, .iov_len = c->len };
	unsigned long end = jiffies + 5 * HZ;
	struct sock *sk = c->srv->sk;
	bool done = true;

	KUNIT_ASSERT_EQ(test, kernel_sendmsg(c->cli, &msg, &iov, 1, c->len),
			(int)c->len);
	while (done && time_before(jiffies, end)) {
		local_bh_disable();
		bh_lock_sock(sk);
		done = swiw_rx_direct(&c->qp, sk);
		bh_unlock_sock(sk);
		local_bh_enable();
		if (done)
			usleep_range(100, 200);
	}
	KUNIT_EXPECT_FALSE(test, done);
	KUNIT_EXPECT_EQ(test, c->qp.rx.step, SWIW_RX_DONE);
	KUNIT_EXPECT_EQ(test, fz.recv_ok, 0);
	KUNIT_EXPECT_EQ(test, fz.fails, 0);
	swiw_rx_work(&c->qp.rx_work);
	KUNIT_EXPECT_EQ(test, fz_inval_waits, 1);
	KUNIT_EXPECT_GE(test, fz.recv_ok, 1);
	kernel_sock_shutdown(c->cli, SHUT_WR);
	fz_drain(c);
	KUNIT_EXPECT_EQ(test, fz.fails, 1);
}

/*
 * A SEND with Invalidate whose STag other CPUs still use: the parser
 * may not wait for them inside tcp_read_sock() (data_ready cannot sleep;
 * rx_work holds the socket lock there), so it stops before the SEND's
 * completion; rx_work waits outside the lock, completes it, then goes
 * on with the stream.  Through data_ready first, and through rx_work
 * alone.
 */
static void swiw_rx_inval_wait_test(struct kunit *test)
{
	struct fz_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	int pass;

	KUNIT_ASSERT_NOT_NULL(test, c);
	for (pass = 0; pass < 2; pass++) {
		fz_init(test, c, true);
		fz_untagged(c, SWIW_OP_SEND_INV, FZ_KEY, SWIW_QN_SEND, 1, 0,
			    8, true);
		fz_untagged(c, SWIW_OP_SEND, 0, SWIW_QN_SEND, 2, 0, 4, true);
		fz_inval_sk = c->srv->sk;
		fz_inval_busy = true;
		fz_inval_waits = 0;
		fz_inval_locked = 0;
		if (pass)
			fz_run(test, c);
		else
			fz_inval_direct(test, c);
		fz_inval_busy = false;
		KUNIT_EXPECT_EQ(test, fz_inval_waits, 1);
		KUNIT_EXPECT_EQ(test, fz_inval_locked, 0);
		KUNIT_EXPECT_EQ(test, fz.recv_ok, 2);
		KUNIT_EXPECT_EQ(test, fz.recv_err, 0);
		KUNIT_EXPECT_EQ(test, fz.recv_inval[0], (u32)FZ_KEY);
		KUNIT_EXPECT_EQ(test, fz.recv_inval[1], 0U);
		KUNIT_EXPECT_EQ(test, c->qp.term, 0U);
		fz_fini(c);
	}
}

/* The inbound errors swiw_rx_bad_test() builds, and their TERMINATEs. */
enum fz_bad {
	FZ_BAD_BOUNDS,
	FZ_BAD_STAG,
	FZ_BAD_PD,
	FZ_BAD_ACCESS,
	FZ_BAD_WRAP,
	FZ_BAD_TOO_LONG,
	FZ_BAD_MSN,
	FZ_BAD_MSN_NEXT,
	FZ_BAD_MO,
	FZ_BAD_MO_NEXT,
	FZ_BAD_QN,
	FZ_BAD_NO_BUF,
	FZ_BAD_CRC,
	FZ_BAD_DDP_VERSION,
	FZ_BAD_DDP_VERSION_T,
	FZ_BAD_RDMAP_VERSION,
	FZ_BAD_OPCODE,
	FZ_BAD_TAGGED,
	FZ_BAD_MPA_LEN,
	FZ_BAD_RRESP_NONE,
	FZ_BAD_RRESP_LONG,
	FZ_BAD_RRESP_STAG,
	FZ_BAD_RREQ_QN,
	FZ_BAD_RREQ_MSN,
	FZ_BAD_RREQ_MO,
	FZ_BAD_RREQ_IRD,
	FZ_BAD_INVAL,
	FZ_BAD_INVAL_ZERO,
	FZ_BAD_LKEY,
	FZ_BAD_RREQ_CRC,
	FZ_BAD_MAX,
};

/* Layer/type/code as RFC 6580's registries number them. */
static const u32 fz_bad_term[FZ_BAD_MAX] = {
	[FZ_BAD_BOUNDS]		= SWIW_TERM(SWIW_TERM_DDP, 1, 0x01),
	[FZ_BAD_STAG]		= SWIW_TERM(SWIW_TERM_DDP, 1, 0x00),
	[FZ_BAD_PD]		= SWIW_TERM(SWIW_TERM_DDP, 1, 0x02),
	[FZ_BAD_ACCESS]		= SWIW_TERM(SWIW_TERM_RDMAP, 1, 0x02),
	[FZ_BAD_WRAP]		= SWIW_TERM(SWIW_TERM_DDP, 1, 0x03),
	[FZ_BAD_TOO_LONG]	= SWIW_TERM(SWIW_TERM_DDP, 2, 0x05),
	[FZ_BAD_MSN]		= SWIW_TERM(SWIW_TERM_DDP, 2, 0x03),
	[FZ_BAD_MSN_NEXT]	= SWIW_TERM(SWIW_TERM_DDP, 2, 0x03),
	[FZ_BAD_MO]		= SWIW_TERM(SWIW_TERM_DDP, 2, 0x04),
	[FZ_BAD_MO_NEXT]	= SWIW_TERM(SWIW_TERM_DDP, 2, 0x04),
	[FZ_BAD_QN]		= SWIW_TERM(SWIW_TERM_DDP, 2, 0x01),
	[FZ_BAD_NO_BUF]		= SWIW_TERM(SWIW_TERM_DDP, 2, 0x02),
	[FZ_BAD_CRC]		= SWIW_TERM(SWIW_TERM_LLP, 0, 0x02),
	[FZ_BAD_DDP_VERSION]	= SWIW_TERM(SWIW_TERM_DDP, 2, 0x06),
	[FZ_BAD_DDP_VERSION_T]	= SWIW_TERM(SWIW_TERM_DDP, 1, 0x04),
	[FZ_BAD_RDMAP_VERSION]	= SWIW_TERM(SWIW_TERM_RDMAP, 2, 0x05),
	[FZ_BAD_OPCODE]		= SWIW_TERM(SWIW_TERM_RDMAP, 2, 0x06),
	[FZ_BAD_TAGGED]		= SWIW_TERM(SWIW_TERM_RDMAP, 2, 0x06),
	[FZ_BAD_MPA_LEN]	= SWIW_TERM(SWIW_TERM_RDMAP, 2, 0xff),
	[FZ_BAD_RRESP_NONE]	= SWIW_TERM(SWIW_TERM_RDMAP, 2, 0x06),
	[FZ_BAD_RRESP_LONG]	= SWIW_TERM(SWIW_TERM_DDP, 1, 0x01),
	[FZ_BAD_RRESP_STAG]	= SWIW_TERM(SWIW_TERM_DDP, 1, 0x00),
	[FZ_BAD_RREQ_QN]	= SWIW_TERM(SWIW_TERM_DDP, 2, 0x01),
	[FZ_BAD_RREQ_MSN]	= SWIW_TERM(SWIW_TERM_DDP, 2, 0x03),
	[FZ_BAD_RREQ_MO]	= SWIW_TERM(SWIW_TERM_DDP, 2, 0x04),
	[FZ_BAD_RREQ_IRD]	= SWIW_TERM(SWIW_TERM_DDP, 2, 0x02),
	[FZ_BAD_INVAL]		= SWIW_TERM(SWIW_TERM_RDMAP, 1, 0x09),
	[FZ_BAD_INVAL_ZERO]	= SWIW_TERM(SWIW_TERM_RDMAP, 1, 0x09),
	[FZ_BAD_LKEY]		= SWIW_TERM(SWIW_TERM_DDP, 0, 0x00),
	[FZ_BAD_RREQ_CRC]	= SWIW_TERM(SWIW_TERM_LLP, 0, 0x02),
};

/*
 * Each of these ends the stream before anything completes, with the
 * TERMINATE the close work sends.
 */
static void swiw_rx_bad_test(struct kunit *test)
{
	struct fz_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	union swiw_hdr h;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	for (i = 0; i < FZ_BAD_MAX; i++) {
		fz_init(test, c, true);
		h = (union swiw_hdr){};
		switch (i) {
		case FZ_BAD_BOUNDS:	/* a WRITE past the region */
			fz_write(c, FZ_KEY, FZ_BASE + FZ_LEN - 10, fz_data, 11);
			break;
		case FZ_BAD_STAG:	/* a WRITE with another key */
			fz_write(c, FZ_KEY + 1, FZ_BASE, fz_data, 8);
			break;
		case FZ_BAD_PD:		/* with another PD's STag */
			fz_write(c, FZ_KEY_PD, FZ_BASE, fz_data, 8);
			break;
		case FZ_BAD_ACCESS:	/* to a read-only STag */
			fz_write(c, FZ_KEY_LOCAL, FZ_BASE, fz_data, 8);
			break;
		case FZ_BAD_WRAP:	/* a tagged offset that wraps */
			fz_write(c, FZ_KEY, U64_MAX - 3, fz_data, 8);
			break;
		case FZ_BAD_TOO_LONG:	/* a SEND larger than the receive */
			fz_send(c, fz_data, 129, 200);
			break;
		case FZ_BAD_MSN:	/* a SEND with the wrong MSN */
			c->msn = 2;
			fz_send(c, fz_data, 10, 200);
			break;
		case FZ_BAD_MSN_NEXT:	/* a segment of another message */
			fz_untagged(c, SWIW_OP_SEND, 0, 0, 1, 0, 8, false);
			fz_untagged(c, SWIW_OP_SEND, 0, 0, 2, 8, 8, true);
			break;
		case FZ_BAD_MO:		/* a new SEND not at offset 0 */
			fz_untagged(c, SWIW_OP_SEND, 0, 0, 1, 4, 8, true);
			break;
		case FZ_BAD_MO_NEXT:	/* a gap in a SEND */
			fz_untagged(c, SWIW_OP_SEND, 0, 0, 1, 0, 8, false);
			fz_untagged(c, SWIW_OP_SEND, 0, 0, 1, 12, 8, true);
			break;
		case FZ_BAD_QN:		/* a SEND on queue 1 */
			fz_untagged(c, SWIW_OP_SEND, 0, 1, 1, 0, 8, true);
			break;
		case FZ_BAD_NO_BUF:	/* a SEND with no receive posted */
			c->qp.rq.head = 0;
			fz_send(c, fz_data, 10, 200);
			break;
		case FZ_BAD_CRC:
			fz_send(c, fz_data, 10, 200);
			c->stream[c->len - 1] ^= 1;
			break;
		case FZ_BAD_DDP_VERSION:	/* 2, untagged */
			fz_ctrl(c, 0x4243, sizeof(h.u));
			break;
		case FZ_BAD_DDP_VERSION_T:	/* 2, tagged */
			fz_ctrl(c, 0xc240, sizeof(h.t));
			break;
		case FZ_BAD_RDMAP_VERSION:	/* 2 */
			fz_ctrl(c, 0x4183, sizeof(h.u));
			break;
		case FZ_BAD_OPCODE:	/* 8, immediate data */
			fz_ctrl(c, 0x4148, sizeof(h.u));
			break;
		case FZ_BAD_TAGGED:	/* a tagged SEND */
			fz_ctrl(c, 0xc143, sizeof(h.t));
			break;
		case FZ_BAD_MPA_LEN:	/* shorter than the header */
			fz_send(c, fz_data, 10, 200);
			c->stream[1] = 4;
			break;
		case FZ_BAD_RRESP_NONE:	/* a READ response nobody asked for */
			c->qp.sq.next = 0;
			fz_read_resp(c, fz_data, 64);
			break;
		case FZ_BAD_RRESP_LONG:	/* longer than the READ */
			fz_read_resp(c, fz_data, 65);
			break;
		case FZ_BAD_RRESP_STAG:	/* at another STag than its sink */
			h.t.stag = cpu_to_be32(FZ_KEY + 1);
			h.t.to = cpu_to_be64(c->sq[0].sge[0].addr);
			fz_fpdu(c, &h, sizeof(h.t),
				swiw_ctrl(SWIW_OP_READ_RESP, true), fz_data, 64);
			break;
		case FZ_BAD_RREQ_QN:	/* a READ request on queue 0 */
			fz_untagged(c, SWIW_OP_READ_REQ, 0, SWIW_QN_SEND, 1, 0,
				    16, true);
			break;
		case FZ_BAD_RREQ_MSN:
			fz_untagged(c, SWIW_OP_READ_REQ, 0, SWIW_QN_READ_REQ, 2,
				    0, 16, true);
			break;
		case FZ_BAD_RREQ_MO:
			fz_untagged(c, SWIW_OP_READ_REQ, 0, SWIW_QN_READ_REQ, 1,
				    4, 16, true);
			break;
		case FZ_BAD_RREQ_IRD:	/* one READ request past the IRD */
			c->qp.ird = 2;
			fz_read_req(c, 16);
			fz_read_req(c, 16);
			fz_read_req(c, 16);
			break;
		case FZ_BAD_INVAL:	/* SEND with invalidate: not an MR */
			fz_untagged(c, SWIW_OP_SEND_INV, FZ_KEY + 1, 0, 1, 0, 8,
				    true);
			break;
		case FZ_BAD_INVAL_ZERO:	/* SEND with invalidate of STag 0 */
			fz_untagged(c, SWIW_OP_SEND_INV, 0, 0, 1, 0, 8, true);
			break;
		case FZ_BAD_LKEY:	/* our receive's lkey does not grant it */
			c->rq[0].sge[0].lkey = FZ_KEY + 1;
			fz_send(c, fz_data, 10, 200);
			break;
		case FZ_BAD_RREQ_CRC:	/* a READ request is not queued */
			fz_read_req(c, 16);
			c->stream[c->len - 1] ^= 1;
			break;
		}
		fz_run(test, c);
		KUNIT_EXPECT_EQ_MSG(test, fz.recv_ok, 0, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, fz.send_done, 0, "case %d", i);
		KUNIT_EXPECT_FALSE_MSG(test, c->qp.peer_closed, "case %d", i);
		if (i == FZ_BAD_RREQ_CRC)
			KUNIT_EXPECT_EQ(test, c->qp.irq_head, 0U);
		KUNIT_EXPECT_EQ_MSG(test, c->qp.term, fz_bad_term[i],
				    "case %d: %u/%u/0x%02x", i,
				    SWIW_TERM_LAYER(c->qp.term),
				    SWIW_TERM_ETYPE(c->qp.term),
				    SWIW_TERM_ECODE(c->qp.term));
		fz_fini(c);
	}
}

/*
 * A parser that stopped on a refused header leaves the stream there for
 * good.  Data_ready or rx_work may have seen the QP in RTS just before
 * it failed: when either then gets to run, it takes nothing more,
 * neither the rest of the refused header (whose length is unknown) nor
 * the valid SEND behind it, and does not fail the QP a second time.
 */
static void swiw_rx_dead_test(struct kunit *test)
{
	struct fz_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct sock *sk;
	u32 seq, taken;
	int pass;

	KUNIT_ASSERT_NOT_NULL(test, c);
	/* The first FPDU's control word refused, by rx_work, by data_ready. */
	for (pass = 0; pass < 2; pass++) {
		struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
		struct kvec iov;

		fz_init(test, c, false);
		fz_ctrl(c, 0x414f, sizeof(c->qp.rx.hdr.u));
		fz_send(c, fz_data, 100, 100);
		iov = (struct kvec){ c->stream, c->len };
		KUNIT_ASSERT_EQ(test, kernel_sendmsg(c->cli, &msg, &iov, 1,
						     c->len), (int)c->len);
		sk = c->srv->sk;
		fz_drain(c);
		KUNIT_ASSERT_EQ(test, fz.fails, 1);
		KUNIT_EXPECT_EQ(test, c->qp.term,
				SWIW_TERM(SWIW_TERM_RDMAP, 2, 0x06));
		seq = READ_ONCE(tcp_sk(sk)->copied_seq);
		/* As if the failure had not been seen yet. */
		c->qp.state = SWIW_QP_RTS;
		if (pass) {
			local_bh_disable();
			bh_lock_sock(sk);
			KUNIT_EXPECT_TRUE(test, swiw_rx_direct(&c->qp, sk));
			bh_unlock_sock(sk);
			local_bh_enable();
		} else {
			swiw_rx_work(&c->qp.rx_work);
		}
		taken = READ_ONCE(tcp_sk(sk)->copied_seq) - seq;
		KUNIT_EXPECT_EQ(test, taken, 0U);
		KUNIT_EXPECT_EQ(test, fz.recv_ok, 0);
		KUNIT_EXPECT_EQ(test, fz.fails, 1);
		fz_fini(c);
	}
}

/*
 * A READ request whose source STag does not grant the READ: no response
 * goes out, and the QP fails with the RDMAP remote protection error the
 * close work then sends.
 */
static void swiw_rx_read_src_test(struct kunit *test)
{
	static const struct {
		u32 stag;
		u64 to;
		u32 term;
	} src[] = {
		{ FZ_KEY + 1, FZ_BASE, SWIW_TERM(SWIW_TERM_RDMAP, 1, 0x00) },
		{ FZ_KEY, FZ_BASE + FZ_LEN - 8, SWIW_TERM(SWIW_TERM_RDMAP, 1, 0x01) },
		{ FZ_KEY_LOCAL, FZ_BASE, SWIW_TERM(SWIW_TERM_RDMAP, 1, 0x02) },
		{ FZ_KEY_PD, FZ_BASE, SWIW_TERM(SWIW_TERM_RDMAP, 1, 0x03) },
		{ FZ_KEY, U64_MAX - 3, SWIW_TERM(SWIW_TERM_RDMAP, 1, 0x04) },
	};
	struct fz_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct swiw_rreq rr = { .sink_stag = 0x777, .size = 16 };
	int i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	for (i = 0; i < ARRAY_SIZE(src); i++) {
		fz_init(test, c, true);
		rr.src_stag = src[i].stag;
		rr.src_to = src[i].to;
		KUNIT_EXPECT_EQ_MSG(test, swiw_tx_read_resp(&c->qp, c->srv, &rr),
				    -EFAULT, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, c->qp.term, src[i].term,
				    "case %d: %u/%u/0x%02x", i,
				    SWIW_TERM_LAYER(c->qp.term),
				    SWIW_TERM_ETYPE(c->qp.term),
				    SWIW_TERM_ECODE(c->qp.term));
		fz_fini(c);
	}
}

/* A peer that resets mid-FPDU: the stream ends, no TERMINATE. */
static void swiw_rx_reset_test(struct kunit *test)
{
	struct fz_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	struct kvec iov;

	KUNIT_ASSERT_NOT_NULL(test, c);
	fz_init(test, c, false);
	fz_send(c, fz_data, 100, 200);
	iov.iov_base = c->stream;
	iov.iov_len = 30;
	KUNIT_ASSERT_EQ(test, kernel_sendmsg(c->cli, &msg, &iov, 1, 30), 30);
	/* Linger 0: the close is a reset. */
	sock_no_linger(c->cli->sk);
	sock_release(c->cli);
	c->cli = NULL;
	fz_drain(c);
	KUNIT_EXPECT_EQ(test, fz.fails, 1);
	KUNIT_EXPECT_TRUE(test, c->qp.peer_closed);
	KUNIT_EXPECT_EQ(test, c->qp.term, 0U);
	KUNIT_EXPECT_EQ(test, fz.recv_ok, 0);
	KUNIT_EXPECT_TRUE(test, c->qp.rx.rqe_busy);
	fz_fini(c);
}

/*
 * The TERMINATE the close work sends, as the peer reads it: 24 bytes of
 * header (queue 2, MSN 1, the control word) and the CRC.  Sent back, it
 * ends the stream as the peer's close does, with no TERMINATE of ours.
 */
static void swiw_rx_terminate_test(struct kunit *test)
{
	struct fz_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	u32 term = SWIW_TERM(SWIW_TERM_DDP, 2, 0x02);
	union swiw_hdr h;
	__le32 crc;
	u8 buf[28];

	KUNIT_ASSERT_NOT_NULL(test, c);
	fz_init(test, c, true);
	KUNIT_ASSERT_EQ(test, swiw_tx_terminate(&c->qp, c->srv, term), 0);
	KUNIT_ASSERT_EQ(test, fz_recv(c, buf, sizeof(buf)), (int)sizeof(buf));
	memcpy(&h, buf, sizeof(h.term));
	KUNIT_EXPECT_EQ(test, be16_to_cpu(h.u.mpa_len), 22);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(h.u.ctrl), 0x4147);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(h.u.qn), (u32)SWIW_QN_TERMINATE);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(h.u.msn), 1U);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(h.u.mo), 0U);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(h.term.term_ctrl), term);
	crc = swiw_crc_final(swiw_crc_update(SWIW_CRC_INIT, buf, 24));
	KUNIT_EXPECT_EQ(test, memcmp(buf + 24, &crc, 4), 0);

	memcpy(c->stream, buf, sizeof(buf));
	c->len = sizeof(buf);
	fz_run(test, c);
	KUNIT_EXPECT_TRUE(test, c->qp.peer_closed);
	KUNIT_EXPECT_EQ(test, c->qp.term, 0U);
	fz_fini(c);
}

/*
 * A READ response of 1000 bytes on a stream of MSS 300: FPDUs no longer
 * than a segment (RFC 5044's MULPDU), or, to a peer that takes large
 * ones (tx_large), a single FPDU.  Either way the payload is whole and in
 * order, the last FPDU alone has L set, and each TO follows the last.
 */
static void swiw_tx_large_test(struct kunit *test)
{
	struct fz_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct swiw_rreq rr = {
		.sink_stag = 0x777, .sink_to = 0x5000, .size = 1000,
		.src_stag = FZ_KEY, .src_to = FZ_BASE,
	};
	struct swiw_hdr_tagged h;
	u32 got, mpa_len, pay, rest, mss, n;
	u8 *pl;
	int large;

	KUNIT_ASSERT_NOT_NULL(test, c);
	pl = kunit_kzalloc(test, FZ_LEN + 8, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pl);
	for (large = 0; large < 2; large++) {
		fz_mss = 300;
		fz_init(test, c, true);
		fz_mss = 0;
		for (got = 0; got < FZ_LEN; got++)
			fz_mem[got] = got * 7;
		c->qp.tx_large = large;
		mss = READ_ONCE(tcp_sk(c->srv->sk)->mss_cache);
		KUNIT_EXPECT_LE(test, mss, 300U);
		KUNIT_ASSERT_EQ(test, swiw_tx_read_resp(&c->qp, c->srv, &rr), 0);
		for (got = 0, n = 0; got < rr.size; got += pay, n++) {
			KUNIT_ASSERT_EQ(test, fz_recv(c, &h, sizeof(h)),
					(int)sizeof(h));
			mpa_len = be16_to_cpu(h.mpa_len);
			pay = mpa_len + 2 - sizeof(h);
			KUNIT_ASSERT_LE(test, got + pay, rr.size);
			if (!large)
				KUNIT_EXPECT_LE(test, 2 + mpa_len +
						swiw_pad(mpa_len) + SWIW_CRC_LEN,
						mss);
			KUNIT_EXPECT_EQ(test, be64_to_cpu(h.to),
					rr.sink_to + got);
			KUNIT_EXPECT_EQ(test, !!(be16_to_cpu(h.ctrl) &
						 SWIW_CTRL_L),
					got + pay == rr.size);
			/* Payload, pad and CRC. */
			rest = pay + swiw_pad(mpa_len) + SWIW_CRC_LEN;
			KUNIT_ASSERT_EQ(test, fz_recv(c, pl + got, rest),
					(int)rest);
		}
		KUNIT_EXPECT_EQ(test, memcmp(pl, fz_mem, rr.size), 0);
		if (large)
			KUNIT_EXPECT_EQ(test, n, 1U);
		else
			KUNIT_EXPECT_GE(test, n, 4U);
		fz_fini(c);
	}
}

/* A doorbell's send that TCP cannot take whole: the rest waits, in order. */
struct tx_rest_work {
	struct work_struct work;
	struct socket *sock;
	void *rest;
	u32 len;
	int ret;
};

static void tx_rest_send(struct work_struct *work)
{
	struct tx_rest_work *w = container_of(work, struct tx_rest_work, work);

	w->ret = swiw_tx_send_rest(w->sock, w->rest, w->len);
}

/* Far beyond the socket buffers below. */
#define TXR_LEN		(2U << 20)

static void swiw_tx_rest_test(struct kunit *test)
{
	struct fz_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	struct tx_rest_work w = {};
	struct kvec iov[2];
	u8 *buf, *got, tail[100];
	int bufsz = 65536;
	u32 i, kept;

	KUNIT_ASSERT_NOT_NULL(test, c);
	buf = kunit_kmalloc(test, TXR_LEN, GFP_KERNEL);
	got = kunit_kmalloc(test, TXR_LEN + sizeof(tail), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, got);
	for (i = 0; i < TXR_LEN; i++)
		buf[i] = i * 7 + (i >> 12);
	memset(tail, 0xa5, sizeof(tail));
	fz_init(test, c, false);
	c->qp.tx_db = true;
	/* Fixed buffers: TCP's autotuning would take the 2 MiB whole. */
	KUNIT_ASSERT_EQ(test, sock_setsockopt(c->srv, SOL_SOCKET, SO_SNDBUF,
					      KERNEL_SOCKPTR(&bufsz),
					      sizeof(bufsz)), 0);
	sock_set_rcvbuf(c->cli->sk, bufsz);

	/* Nobody reads: TCP takes what its buffers hold, the rest is kept. */
	iov[0] = (struct kvec){ buf, TXR_LEN / 2 };
	iov[1] = (struct kvec){ buf + TXR_LEN / 2, TXR_LEN / 2 };
	KUNIT_EXPECT_EQ(test, swiw_tx_send(&c->qp, c->srv, &msg, iov, 2,
					   TXR_LEN, false), (int)TXR_LEN);
	KUNIT_ASSERT_NOT_NULL(test, c->qp.tx_rest);
	kept = c->qp.tx_rest_len;
	KUNIT_EXPECT_GT(test, kept, 0U);
	KUNIT_EXPECT_LT(test, kept, TXR_LEN);

	/* A send behind kept bytes is kept whole, after them. */
	msg = (struct msghdr){ .msg_flags = MSG_NOSIGNAL };
	iov[0] = (struct kvec){ tail, sizeof(tail) };
	KUNIT_EXPECT_EQ(test, swiw_tx_send(&c->qp, c->srv, &msg, iov, 1,
					   sizeof(tail), false),
			(int)sizeof(tail));
	KUNIT_EXPECT_EQ(test, c->qp.tx_rest_len, kept + (u32)sizeof(tail));

	/* tx_work's turn, blocking, while the peer reads the stream. */
	w.sock = c->srv;
	w.rest = c->qp.tx_rest;
	w.len = c->qp.tx_rest_len;
	INIT_WORK_ONSTACK(&w.work, tx_rest_send);
	schedule_work(&w.work);
	KUNIT_EXPECT_EQ(test, fz_recv(c, got, TXR_LEN + sizeof(tail)),
			(int)(TXR_LEN + sizeof(tail)));
	flush_work(&w.work);
	destroy_work_on_stack(&w.work);
	KUNIT_EXPECT_EQ(test, w.ret, 0);
	KUNIT_EXPECT_EQ(test, memcmp(got, buf, TXR_LEN), 0);
	KUNIT_EXPECT_EQ(test, memcmp(got + TXR_LEN, tail, sizeof(tail)), 0);
	kvfree(c->qp.tx_rest);
	fz_fini(c);
}

/* tx_work's answer to a READ request, in a work item. */
struct tx_resp_work {
	struct work_struct work;
	struct swiw_qp *qp;
	struct socket *sock;
	struct swiw_rreq rr;
	int ret;
	bool done;
};

static void tx_resp_send(struct work_struct *work)
{
	struct tx_resp_work *w = container_of(work, struct tx_resp_work, work);

	w->ret = swiw_tx_read_resp(w->qp, w->sock, &w->rr);
	/* A hint for the test; flush_work() orders w->ret. */
	WRITE_ONCE(w->done, true);
}

/*
 * A READ response from a fast-reg MR, to a peer that has stopped
 * reading: tx_work lets go of the MR before it waits in the socket (the
 * ULP's invalidation waits for every use still holding it, and must not
 * wait for the peer), copying aside what TCP does not take.  Once the
 * peer reads, the response comes out whole, behind what went before.
 * With FPDUs sent one at a time and batched, on a stream of MSS 300.
 */
static void swiw_tx_resp_hold_test(struct kunit *test)
{
	struct fz_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL | MSG_DONTWAIT };
	struct tx_resp_work *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	u8 *junk = kunit_kzalloc(test, 1000, GFP_KERNEL);
	u8 *pl = kunit_kzalloc(test, FZ_LEN, GFP_KERNEL);
	struct swiw_hdr_tagged h;
	u32 filled, got, pay, i, idle;
	int bufsz = 4096, batch, n;
	bool done;
	struct kvec iov;
	u8 trailer[8];

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, junk);
	KUNIT_ASSERT_NOT_NULL(test, pl);
	for (batch = 0; batch < 2; batch++) {
		/* Four FPDUs: each one's rest goes before the next. */
		fz_mss = 300;
		fz_init(test, c, false);
		fz_mss = 0;
		/* A response that does not come fails the test, not hangs. */
		c->cli->sk->sk_rcvtimeo = 10 * HZ;
		for (i = 0; i < FZ_LEN; i++)
			fz_mem[i] = i * 13 + batch;
		if (batch) {
			c->qp.txb = kzalloc(sizeof(*c->qp.txb), GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, c->qp.txb);
			c->qp.tx_batch = true;
		}
		KUNIT_ASSERT_EQ(test,
				sock_setsockopt(c->srv, SOL_SOCKET, SO_SNDBUF,
						KERNEL_SOCKPTR(&bufsz),
						sizeof(bufsz)), 0);
		sock_set_rcvbuf(c->cli->sk, bufsz);
		/*
		 * The peer stops reading: fill both buffers, until the
		 * socket has taken nothing for 100 ms (ACKs of what went
		 * to the peer free room for a while).
		 */
		for (filled = 0, idle = 0; idle < 5 && filled < (16U << 20);) {
			iov = (struct kvec){ junk, 1000 };
			n = kernel_sendmsg(c->srv, &msg, &iov, 1, 1000);
			if (n > 0) {
				filled += n;
				idle = 0;
			} else if (n == -EAGAIN) {
				idle++;
				msleep(20);
			} else {
				break;
			}
		}
		KUNIT_ASSERT_EQ(test, n, -EAGAIN);

		refcount_set(&fz_frmr.ref, 1);
		atomic_set(&fz_frmr.users, 0);
		atomic_set(&fz_frmr_holds, 0);
		WRITE_ONCE(fz_frmr_on, true);
		w->qp = &c->qp;
		w->sock = c->srv;
		w->rr = (struct swiw_rreq){
			.sink_stag = 0x777, .sink_to = 0x5000, .size = FZ_LEN,
			.src_stag = FZ_KEY, .src_to = FZ_BASE,
		};
		w->done = false;
		INIT_WORK(&w->work, tx_resp_send);
		schedule_work(&w->work);
		/* It took the MR, and let go of it while the peer waits. */
		for (i = 0; i < 500; i++) {
			if (atomic_read(&fz_frmr_holds) &&
			    !atomic_read(&fz_frmr.users))
				break;
			usleep_range(5000, 10000);
		}
		KUNIT_EXPECT_GT(test, atomic_read(&fz_frmr_holds), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&fz_frmr.users), 0);
		/* Waiting in the socket, for the peer. */
		done = READ_ONCE(w->done);
		KUNIT_EXPECT_FALSE(test, done);

		/* The peer reads again: the junk, then the response. */
		for (got = 0; got < filled; got += n) {
			n = fz_recv(c, junk, min(filled - got, 1000U));
			if (n <= 0)
				break;
		}
		KUNIT_EXPECT_EQ(test, got, filled);
		/* No assertion before the work is done: it uses c. */
		for (got = 0; got < FZ_LEN; got += pay) {
			if (fz_recv(c, &h, sizeof(h)) != sizeof(h) ||
			    (be16_to_cpu(h.ctrl) & SWIW_CTRL_OP_MASK) !=
			    SWIW_OP_READ_RESP ||
			    be64_to_cpu(h.to) != w->rr.sink_to + got)
				break;
			pay = be16_to_cpu(h.mpa_len) + 2 - sizeof(h);
			n = swiw_pad(be16_to_cpu(h.mpa_len)) + SWIW_CRC_LEN;
			if (got + pay > FZ_LEN ||
			    fz_recv(c, pl + got, pay) != pay ||
			    fz_recv(c, trailer, n) != n)
				break;
		}
		/* After a bad answer: read what comes until it is done. */
		for (i = 0; got != FZ_LEN && i < 1000 && !READ_ONCE(w->done);
		     i++) {
			struct msghdr rmsg = {};

			iov = (struct kvec){ junk, 1000 };
			if (kernel_recvmsg(c->cli, &rmsg, &iov, 1, 1000,
					   MSG_DONTWAIT) <= 0)
				usleep_range(5000, 10000);
		}
		flush_work(&w->work);
		WRITE_ONCE(fz_frmr_on, false);
		KUNIT_EXPECT_EQ(test, got, (u32)FZ_LEN);
		KUNIT_EXPECT_EQ(test, w->ret, 0);
		KUNIT_EXPECT_EQ(test, memcmp(pl, fz_mem, FZ_LEN), 0);
		KUNIT_EXPECT_NULL(test, c->qp.tx_rest);
		KUNIT_EXPECT_EQ(test, refcount_read(&fz_frmr.ref), 1U);
		kfree(c->qp.txb);
		c->qp.txb = NULL;
		fz_fini(c);
	}
}

/* Random streams: plausible FPDUs, then mutated. */
static void swiw_rx_fuzz_test(struct kunit *test)
{
	struct fz_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct rnd_state rnd;
	unsigned int it;
	u32 r, n, k;

	KUNIT_ASSERT_NOT_NULL(test, c);
	prandom_seed_state(&rnd, fuzz_seed);
	for (it = 0; it < fuzz_iters; it++) {
		fz_init(test, c, prandom_u32_state(&rnd) & 1);
		for (n = prandom_u32_state(&rnd) % 8; n; n--) {
			r = prandom_u32_state(&rnd);
			switch (r % 5) {
			case 0:
				fz_send(c, fz_data, (r >> 8) % 140,
					1 + (r >> 16) % 80);
				break;
			case 1:
				fz_write(c, FZ_KEY, FZ_BASE + (r >> 8) % FZ_LEN,
					 fz_data, (r >> 20) % 200);
				break;
			case 2:
				fz_read_resp(c, fz_data, 60 + (r >> 8) % 8);
				break;
			case 3:
				fz_read_req(c, (r >> 8) % 64);
				break;
			default:
				k = min_t(u32, (r >> 8) % 64, FZ_STREAM - c->len);
				prandom_bytes_state(&rnd, c->stream + c->len, k);
				c->len += k;
				break;
			}
		}
		/* Flip bytes, or cut the stream short. */
		r = prandom_u32_state(&rnd);
		if (c->len && (r & 3) == 0)
			c->stream[(r >> 8) % c->len] ^= 1 << (r >> 4) % 8;
		if (c->len && (r & 12) == 0)
			c->len = (r >> 16) % c->len;
		fz_run(test, c);
		KUNIT_EXPECT_LE(test, fz.recv_ok + fz.recv_err, FZ_NR_RQE);
		KUNIT_EXPECT_LE(test, fz.send_done, FZ_NR_READ);
		for (k = 0; k < min_t(int, fz.recv_ok, FZ_NR_RQE); k++)
			KUNIT_EXPECT_LE(test, fz.recv_len[k], 128U);
		fz_fini(c);
		if (test->status == KUNIT_FAILURE)
			break;
	}
}

static int swiw_rx_suite_init(struct kunit_suite *suite)
{
	int i;

	/* Exactly the region: a byte placed beyond it is a KASAN report. */
	fz_mem = kmalloc(FZ_LEN, GFP_KERNEL);
	for (i = 0; i < sizeof(fz_data); i++)
		fz_data[i] = i * 7 + 1;
	return fz_mem ? 0 : -ENOMEM;
}

static void swiw_rx_suite_exit(struct kunit_suite *suite)
{
	kfree(fz_mem);
}

static struct kunit_case swiw_rx_cases[] = {
	KUNIT_CASE(swiw_rx_known_test),
	KUNIT_CASE(swiw_rx_send_kinds_test),
	KUNIT_CASE(swiw_rx_inval_wait_test),
	KUNIT_CASE(swiw_rx_bad_test),
	KUNIT_CASE(swiw_rx_dead_test),
	KUNIT_CASE(swiw_rx_read_src_test),
	KUNIT_CASE(swiw_rx_reset_test),
	KUNIT_CASE(swiw_rx_terminate_test),
	KUNIT_CASE(swiw_tx_rest_test),
	KUNIT_CASE(swiw_tx_resp_hold_test),
	KUNIT_CASE(swiw_tx_large_test),
	KUNIT_CASE(swiw_rx_fuzz_test),
	{}
};

static struct kunit_suite swiw_rx_suite = {
	.name = "swiw_rx",
	.suite_init = swiw_rx_suite_init,
	.suite_exit = swiw_rx_suite_exit,
	.test_cases = swiw_rx_cases,
};

kunit_test_suites(&swiw_rx_suite);

MODULE_DESCRIPTION("KUnit tests and fuzzing of swiw's inbound parser");
MODULE_LICENSE("Dual BSD/GPL");
