// SPDX-License-Identifier: GPL-2.0
/*
 * One shared receive queue behind several connected QPs.  The server
 * listens through librdmacm, gives every QP it accepts the one SRQ, and
 * posts SRQ_WR receives to it; the client connects NQP QPs, names each
 * one in its private data, and sends MSGS messages on each.  The server
 * checks that every message lands whole in an SRQ buffer, with the
 * number of the QP it came on in wc.qp_num and in order on that QP, re-
 * posts the buffer and gives the client a credit back on that QP (an
 * iWARP SEND that finds no receive ends the connection, so the client
 * never has more outstanding than the SRQ holds).
 *
 * The SRQ limit: armed at SRQ_WR / 2 before any connection; the server
 * holds its first receives back until the one that leaves fewer than
 * that posted, and then wants IB_EVENT_SRQ_LIMIT_REACHED, and only the
 * one over the whole run.  It destroys the SRQ with its receives still
 * posted.
 *
 *   srq_share -l ADDR [-p PORT] [-n NQP] [-m MSGS]            server
 *   srq_share -b ADDR -s ADDR [-p PORT] [-n NQP] [-m MSGS]    client
 *
 * Exit status 0 only if all arrived as sent; the server's last line is
 * then "ok N messages on NQP QPs, 1 limit event".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SRQ_WR		16
#define MSG		512
#define MAX_QP		8
#define CQE		512

struct msg {
	uint32_t idx;
	uint32_t seq;
	uint8_t data[MSG - 8];
};

static struct rdma_event_channel *ec;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct rdma_cm_id *ids[MAX_QP];
static uint32_t qpn[MAX_QP];
static int nqp = 2, msgs = 200;

#define die(...) do {					\
		fprintf(stderr, __VA_ARGS__);		\
		fputc('\n', stderr);			\
		exit(1);				\
	} while (0)

static uint8_t pat(uint32_t idx, uint32_t seq, int k)
{
	return (uint8_t)(idx * 131 + seq * 7 + k * 3);
}

static struct rdma_cm_event *expect_event(enum rdma_cm_event_type type)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ec, &ev))
		die("rdma_get_cm_event: %s", strerror(errno));
	if (ev->event != type)
		die("got %s (status %d), wanted %s", rdma_event_str(ev->event),
		    ev->status, rdma_event_str(type));
	return ev;
}

static void post_send(struct ibv_qp *qp, struct ibv_mr *mr, void *buf,
		      uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = len, .lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (ibv_post_send(qp, &wr, &bad))
		die("ibv_post_send: %s", strerror(errno));
}

/* Poll until there is something; die on any error completion. */
static int poll_some(struct ibv_wc *wc, int n)
{
	int i, got;

	for (;;) {
		got = ibv_poll_cq(cq, n, wc);
		if (got < 0)
			die("ibv_poll_cq: %d", got);
		for (i = 0; i < got; i++)
			if (wc[i].status != IBV_WC_SUCCESS)
				die("completion %s, opcode %d, qp %u, wr_id %llu",
				    ibv_wc_status_str(wc[i].status),
				    wc[i].opcode, wc[i].qp_num,
				    (unsigned long long)wc[i].wr_id);
		if (got)
			return got;
	}
}

/* --- server ------------------------------------------------------------- */

static struct ibv_srq *srq;
static struct ibv_mr *rmr, *cmr;
static struct msg *rbuf;
static char credit[4];

static void srq_post(uint64_t slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)&rbuf[slot], .length = MSG,
		.lkey = rmr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	if (ibv_post_srq_recv(srq, &wr, &bad))
		die("ibv_post_srq_recv: %s", strerror(errno));
}

/* The SRQ limit events that come within @ms milliseconds. */
static int limit_events(struct ibv_context *ctx, int ms)
{
	struct ibv_async_event ev;
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	int n = 0;

	while (poll(&p, 1, ms) > 0) {
		if (ibv_get_async_event(ctx, &ev))
			break;
		printf("async event %s\n", ibv_event_type_str(ev.event_type));
		if (ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED) {
			if (ev.element.srq != srq)
				die("limit event for another SRQ");
			n++;
		}
		ibv_ack_async_event(&ev);
		ms = 0;
	}
	return n;
}

static void give_back(uint64_t slot, uint32_t idx)
{
	srq_post(slot);
	post_send(ids[idx]->qp, cmr, credit, sizeof(credit));
}

static void server(struct sockaddr *addr)
{
	struct ibv_srq_init_attr sattr = {
		.attr = { .max_wr = SRQ_WR, .max_sge = 1 },
	};
	struct ibv_srq_attr lattr = { .srq_limit = SRQ_WR / 2 };
	struct rdma_cm_id *lid;
	struct rdma_cm_event *ev;
	struct ibv_context *ctx;
	uint32_t next[MAX_QP] = {};
	uint64_t held[SRQ_WR];
	uint32_t held_idx[SRQ_WR];
	int nheld = 0, hold = 1, events = 0, got = 0, est = 0, i, k, n;
	struct ibv_wc wc[16];

	if (rdma_create_id(ec, &lid, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(lid, addr))
		die("bind: %s", strerror(errno));
	ctx = lid->verbs;
	if (!ctx)
		die("no device at the listen address");
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, CQE, NULL, NULL, 0) : NULL;
	srq = cq ? ibv_create_srq(pd, &sattr) : NULL;
	if (!srq)
		die("ibv_create_srq: %s", strerror(errno));
	printf("srq max_wr %u\n", sattr.attr.max_wr);
	rbuf = calloc(SRQ_WR, sizeof(*rbuf));
	rmr = ibv_reg_mr(pd, rbuf, SRQ_WR * sizeof(*rbuf),
			 IBV_ACCESS_LOCAL_WRITE);
	cmr = ibv_reg_mr(pd, credit, sizeof(credit), 0);
	if (!rmr || !cmr)
		die("ibv_reg_mr: %s", strerror(errno));
	for (i = 0; i < SRQ_WR; i++)
		srq_post(i);
	if (ibv_modify_srq(srq, &lattr, IBV_SRQ_LIMIT))
		die("ibv_modify_srq(IBV_SRQ_LIMIT): %s", strerror(errno));
	fcntl(ctx->async_fd, F_SETFL,
	      fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
	if (rdma_listen(lid, MAX_QP))
		die("rdma_listen: %s", strerror(errno));
	printf("listening\n");
	fflush(stdout);

	while (est < nqp) {
		struct ibv_qp_init_attr qattr = {
			.send_cq = cq, .recv_cq = cq, .srq = srq,
			.cap = { .max_send_wr = SRQ_WR, .max_send_sge = 1 },
			.qp_type = IBV_QPT_RC,
		};
		struct rdma_conn_param cp = {};
		struct rdma_cm_id *id;
		uint32_t idx;

		if (rdma_get_cm_event(ec, &ev))
			die("rdma_get_cm_event: %s", strerror(errno));
		if (ev->event == RDMA_CM_EVENT_ESTABLISHED) {
			est++;
			rdma_ack_cm_event(ev);
			continue;
		}
		if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
			die("listener got %s", rdma_event_str(ev->event));
		id = ev->id;
		if (ev->param.conn.private_data_len < 4)
			die("no index in the private data");
		memcpy(&idx, ev->param.conn.private_data, 4);
		if (idx >= (uint32_t)nqp || ids[idx])
			die("bad index %u", idx);
		rdma_ack_cm_event(ev);
		if (rdma_create_qp(id, pd, &qattr))
			die("rdma_create_qp with an SRQ: %s", strerror(errno));
		ids[idx] = id;
		qpn[idx] = id->qp->qp_num;
		if (rdma_accept(id, &cp))
			die("rdma_accept: %s", strerror(errno));
	}
	for (i = 0; i < nqp; i++)
		printf("qp %d: qp_num %u\n", i, qpn[i]);

	while (got < nqp * msgs) {
		n = poll_some(wc, 16);
		for (i = 0; i < n; i++) {
			struct msg *m;

			if (wc[i].opcode != IBV_WC_RECV)
				continue;
			if (wc[i].wr_id >= SRQ_WR)
				die("wr_id %llu", (unsigned long long)wc[i].wr_id);
			m = &rbuf[wc[i].wr_id];
			if (wc[i].byte_len != MSG || m->idx >= (uint32_t)nqp)
				die("message of %u bytes, index %u",
				    wc[i].byte_len, m->idx);
			if (wc[i].qp_num != qpn[m->idx])
				die("message of qp %u came with qp_num %u",
				    qpn[m->idx], wc[i].qp_num);
			if (m->seq != next[m->idx])
				die("qp %u: message %u, wanted %u", m->idx,
				    m->seq, next[m->idx]);
			for (k = 0; k < (int)sizeof(m->data); k++)
				if (m->data[k] != pat(m->idx, m->seq, k))
					die("qp %u message %u: byte %d changed",
					    m->idx, m->seq, k);
			next[m->idx]++;
			got++;
			if (!hold) {
				give_back(wc[i].wr_id, m->idx);
				continue;
			}
			held[nheld] = wc[i].wr_id;
			held_idx[nheld++] = m->idx;
			/* This one left SRQ_WR / 2 - 1 posted: below. */
			if (nheld < SRQ_WR / 2 + 1)
				continue;
			events += limit_events(ctx, 10000);
			if (!events)
				die("no SRQ limit event with %d of %d posted",
				    SRQ_WR - nheld, SRQ_WR);
			hold = 0;
			for (k = 0; k < nheld; k++)
				give_back(held[k], held_idx[k]);
		}
	}
	for (i = 0; i < nqp; i++) {
		ev = expect_event(RDMA_CM_EVENT_DISCONNECTED);
		rdma_ack_cm_event(ev);
	}
	events += limit_events(ctx, 0);
	for (i = 0; i < nqp; i++) {
		rdma_destroy_qp(ids[i]);
		rdma_destroy_id(ids[i]);
	}
	/* With SRQ_WR receives still posted. */
	if (ibv_destroy_srq(srq))
		die("ibv_destroy_srq: %s", strerror(errno));
	ibv_dereg_mr(rmr);
	ibv_dereg_mr(cmr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	rdma_destroy_id(lid);
	if (events != 1)
		die("%d SRQ limit events, wanted 1", events);
	printf("ok %d messages on %d QPs, %d limit event\n", got, nqp, events);
}

/* --- client ------------------------------------------------------------- */

static void client(struct sockaddr *src, struct sockaddr *dst)
{
	int window = SRQ_WR / nqp, sent[MAX_QP] = {}, out[MAX_QP] = {};
	int i, k, n, left = nqp * msgs, outstanding = 0;
	struct ibv_mr *smr = NULL, *cmr2 = NULL;
	static char cbuf[MAX_QP][SRQ_WR][4];
	struct msg *sbuf;
	struct ibv_wc wc[16];

	sbuf = calloc(nqp * window, sizeof(*sbuf));
	for (i = 0; i < nqp; i++) {
		struct ibv_qp_init_attr qattr = {
			.cap = { .max_send_wr = window + 1, .max_send_sge = 1,
				 .max_recv_wr = window, .max_recv_sge = 1 },
			.qp_type = IBV_QPT_RC,
		};
		struct rdma_conn_param cp = {
			.private_data = &i, .private_data_len = sizeof(i),
		};
		struct rdma_cm_id *id;

		if (rdma_create_id(ec, &id, NULL, RDMA_PS_TCP) ||
		    rdma_resolve_addr(id, src, dst, 5000))
			die("resolve_addr: %s", strerror(errno));
		rdma_ack_cm_event(expect_event(RDMA_CM_EVENT_ADDR_RESOLVED));
		if (rdma_resolve_route(id, 5000))
			die("resolve_route: %s", strerror(errno));
		rdma_ack_cm_event(expect_event(RDMA_CM_EVENT_ROUTE_RESOLVED));
		if (!pd) {
			pd = ibv_alloc_pd(id->verbs);
			cq = pd ? ibv_create_cq(id->verbs, CQE, NULL, NULL, 0) :
				  NULL;
			smr = cq ? ibv_reg_mr(pd, sbuf,
					      nqp * window * sizeof(*sbuf), 0) :
				   NULL;
			cmr2 = smr ? ibv_reg_mr(pd, cbuf, sizeof(cbuf),
						IBV_ACCESS_LOCAL_WRITE) : NULL;
			if (!cmr2)
				die("PD, CQ or MR: %s", strerror(errno));
		}
		qattr.send_cq = cq;
		qattr.recv_cq = cq;
		if (rdma_create_qp(id, pd, &qattr))
			die("rdma_create_qp: %s", strerror(errno));
		for (k = 0; k < window; k++) {
			struct ibv_sge sge = {
				.addr = (uintptr_t)cbuf[i][k], .length = 4,
				.lkey = cmr2->lkey,
			};
			struct ibv_recv_wr wr = {
				.wr_id = k, .sg_list = &sge, .num_sge = 1,
			}, *bad;

			if (ibv_post_recv(id->qp, &wr, &bad))
				die("ibv_post_recv: %s", strerror(errno));
		}
		if (rdma_connect(id, &cp))
			die("rdma_connect: %s", strerror(errno));
		rdma_ack_cm_event(expect_event(RDMA_CM_EVENT_ESTABLISHED));
		ids[i] = id;
		qpn[i] = id->qp->qp_num;
	}

	while (left || outstanding) {
		for (i = 0; i < nqp; i++) {
			while (sent[i] < msgs && out[i] < window) {
				struct msg *m = &sbuf[i * window +
						      sent[i] % window];

				m->idx = i;
				m->seq = sent[i];
				for (k = 0; k < (int)sizeof(m->data); k++)
					m->data[k] = pat(i, sent[i], k);
				post_send(ids[i]->qp, smr, m, MSG);
				sent[i]++;
				out[i]++;
				outstanding++;
				left--;
			}
		}
		n = poll_some(wc, 16);
		for (k = 0; k < n; k++) {
			struct ibv_sge sge;
			struct ibv_recv_wr wr = { .sg_list = &sge,
						  .num_sge = 1 }, *bad;

			if (wc[k].opcode != IBV_WC_RECV)
				continue;
			for (i = 0; i < nqp && qpn[i] != wc[k].qp_num; i++)
				;
			if (i == nqp || !out[i])
				die("credit on qp_num %u", wc[k].qp_num);
			out[i]--;
			outstanding--;
			wr.wr_id = wc[k].wr_id;
			sge.addr = (uintptr_t)cbuf[i][wc[k].wr_id];
			sge.length = 4;
			sge.lkey = cmr2->lkey;
			if (ibv_post_recv(ids[i]->qp, &wr, &bad))
				die("ibv_post_recv: %s", strerror(errno));
		}
	}
	for (i = 0; i < nqp; i++) {
		rdma_disconnect(ids[i]);
		rdma_ack_cm_event(expect_event(RDMA_CM_EVENT_DISCONNECTED));
	}
	for (i = 0; i < nqp; i++) {
		rdma_destroy_qp(ids[i]);
		rdma_destroy_id(ids[i]);
	}
	ibv_dereg_mr(smr);
	ibv_dereg_mr(cmr2);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	printf("sent %d messages on %d QPs\n", nqp * msgs, nqp);
}

static void set_addr(struct sockaddr_in *sin, const char *a, int port)
{
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	if (inet_pton(AF_INET, a, &sin->sin_addr) != 1)
		die("bad address %s", a);
}

int main(int argc, char **argv)
{
	const char *l = NULL, *b = NULL, *s = NULL;
	struct sockaddr_in la = {}, ba = {}, sa = {};
	int opt, port = 7800;

	while ((opt = getopt(argc, argv, "l:b:s:p:n:m:")) != -1) {
		switch (opt) {
		case 'l':
			l = optarg;
			break;
		case 'b':
			b = optarg;
			break;
		case 's':
			s = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'n':
			nqp = atoi(optarg);
			break;
		case 'm':
			msgs = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (nqp < 1 || nqp > MAX_QP || SRQ_WR % nqp || msgs < SRQ_WR ||
	    !(l || (b && s)))
		goto usage;
	setvbuf(stdout, NULL, _IOLBF, 0);
	ec = rdma_create_event_channel();
	if (!ec)
		die("rdma_create_event_channel: %s", strerror(errno));
	if (l) {
		set_addr(&la, l, port);
		server((struct sockaddr *)&la);
	} else {
		set_addr(&ba, b, 0);
		set_addr(&sa, s, port);
		client((struct sockaddr *)&ba, (struct sockaddr *)&sa);
	}
	rdma_destroy_event_channel(ec);
	return 0;
usage:
	fprintf(stderr, "usage: %s -l ADDR | -b ADDR -s ADDR [-p PORT]\n"
		"\t[-n NQP, divides %d] [-m MSGS, at least %d]\n",
		argv[0], SRQ_WR, SRQ_WR);
	return 2;
}
