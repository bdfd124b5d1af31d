// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit tests of iw_cm's host-integrated model over loopback TCP in
 * init_net: a fake provider opts in (include/rdma/iw_host.h) and takes
 * the streams iw_cm hands it; raw kernel sockets play hostile peers.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/ipv6.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <net/inet_ecn.h>
#include <net/inet_sock.h>
#include <net/sock.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>
#include <rdma/iw_host.h>

#include "rdma_kunit_fake.h"

MODULE_IMPORT_NS(IW_HOST);

#define HQ_MAX_EVENTS	16
#define HQ_WAIT		(10 * HZ)
#define LOOPBACK	0x7f000001

/* The stream of a QP, which the fake provider's QP number indexes. */
struct hq_qp {
	struct socket *sock;		/* the attached stream */
	struct iw_cm_id *cm_id;		/* with the provider's add_ref */
	struct iw_host_params params;
	u8 pdata[256];
	int attached;
};

struct hq_dev {
	struct kfake_dev base;
	struct hq_qp qp[KFAKE_NR_QP];
	int attach_ret;
};

struct hq_event {
	struct iw_cm_id *id;
	int event;
	int status;
	u8 pdata[256];
	int pdata_len;
	u8 ird, ord;
};

struct hq_consumer {
	spinlock_t lock;		/* ev, n */
	wait_queue_head_t wq;
	struct hq_event ev[HQ_MAX_EVENTS];
	int n;
};

struct hq_fixture {
	struct hq_dev *hd;
	struct hq_consumer *c;
};

static struct hq_dev *to_hq(struct ib_device *ibdev)
{
	return container_of(to_kfake(ibdev), struct hq_dev, base);
}

static struct hq_qp *to_hq_qp(struct ib_qp *ibqp)
{
	return &to_hq(ibqp->device)->qp[ibqp->qp_num];
}

/* The provider lets go of its stream: what siw does on QP close. */
static void hq_release(struct hq_qp *qp, bool report)
{
	struct iw_cm_id *id = qp->cm_id;

	if (qp->sock) {
		kernel_sock_shutdown(qp->sock, SHUT_RDWR);
		sock_release(qp->sock);
		qp->sock = NULL;
	}
	qp->cm_id = NULL;
	if (id) {
		if (report) {
			struct iw_cm_event ev = { .event = IW_CM_EVENT_CLOSE };

			id->event_handler(id, &ev);
		}
		id->rem_ref(id);
	}
}

static int hq_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			int mask, struct ib_udata *udata)
{
	if ((mask & IB_QP_STATE) && (attr->qp_state == IB_QPS_ERR ||
				     attr->qp_state == IB_QPS_SQD))
		hq_release(to_hq_qp(ibqp), true);
	return 0;
}

static int hq_attach(struct ib_qp *ibqp, struct iw_cm_id *cm_id,
		     struct socket *sock, const struct iw_host_params *p)
{
	struct hq_dev *hd = to_hq(ibqp->device);
	struct hq_qp *qp = to_hq_qp(ibqp);
	struct iw_cm_event ev = {};

	if (hd->attach_ret)
		return hd->attach_ret;
	qp->sock = sock;
	qp->params = *p;
	memcpy(qp->pdata, p->pdata, p->pdata_len);
	qp->attached++;
	cm_id->add_ref(cm_id);
	qp->cm_id = cm_id;
	kernel_getsockname(sock, (struct sockaddr *)&ev.local_addr);
	kernel_getpeername(sock, (struct sockaddr *)&ev.remote_addr);
	if (p->initiator) {
		ev.event = IW_CM_EVENT_CONNECT_REPLY;
		ev.private_data = (void *)p->pdata;
		ev.private_data_len = p->pdata_len;
	} else {
		ev.event = IW_CM_EVENT_ESTABLISHED;
	}
	cm_id->event_handler(cm_id, &ev);
	return 0;
}

static const struct iw_host_ops hq_ops = {
	.attach = hq_attach,
	.large_fpdu = true,
	.rtr_send = IW_HOST_RTR_WRITE | IW_HOST_RTR_READ,
	.rtr_recv = IW_HOST_RTR_WRITE | IW_HOST_RTR_READ,
};

static int hq_handler(struct iw_cm_id *id, struct iw_cm_event *ev)
{
	struct hq_consumer *c = id->context;
	struct hq_event *r;

	spin_lock_irq(&c->lock);
	if (c->n < HQ_MAX_EVENTS) {
		r = &c->ev[c->n];
		r->id = id;
		r->event = ev->event;
		r->status = ev->status;
		r->pdata_len = ev->private_data_len;
		memcpy(r->pdata, ev->private_data, ev->private_data_len);
		r->ird = ev->ird;
		r->ord = ev->ord;
	}
	c->n++;
	spin_unlock_irq(&c->lock);
	wake_up_all(&c->wq);
	return 0;
}

static int hq_count(struct hq_consumer *c)
{
	int n;

	spin_lock_irq(&c->lock);
	n = c->n;
	spin_unlock_irq(&c->lock);
	return n;
}

/* The @n-th event (from 0), once it is there, or NULL. */
static struct hq_event *hq_wait(struct hq_consumer *c, int n)
{
	if (!wait_event_timeout(c->wq, hq_count(c) > n, HQ_WAIT))
		return NULL;
	return &c->ev[n];
}

static int hq_init(struct kunit *test)
{
	struct hq_fixture *fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	struct hq_dev *hd = kunit_kzalloc(test, sizeof(*hd), GFP_KERNEL);
	struct hq_consumer *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	if (!fx || !hd || !c)
		return -ENOMEM;
	kfake_init(&hd->base, "iwhost_kunit0", RDMA_CORE_PORT_IWARP);
	hd->base.ibdev.attrs.max_qp_rd_atom = 16;
	hd->base.ibdev.attrs.max_qp_init_rd_atom = 16;
	hd->base.ibdev.ops.iw_connect = iw_host_connect;
	hd->base.ibdev.ops.iw_accept = iw_host_accept;
	hd->base.ibdev.ops.iw_reject = iw_host_reject;
	hd->base.ibdev.ops.iw_create_listen = iw_host_create_listen;
	hd->base.ibdev.ops.iw_destroy_listen = iw_host_destroy_listen;
	hd->base.ibdev.ops.modify_qp = hq_modify_qp;
	spin_lock_init(&c->lock);
	init_waitqueue_head(&c->wq);
	fx->hd = hd;
	fx->c = c;
	test->priv = fx;
	return iw_host_register(&hd->base.ibdev, &hq_ops);
}

static void hq_exit(struct kunit *test)
{
	struct hq_fixture *fx = test->priv;
	int i;

	for (i = 0; i < KFAKE_NR_QP; i++)
		hq_release(&fx->hd->qp[i], false);
	/* Waits for every endpoint: none may be left behind. */
	iw_host_unregister(&fx->hd->base.ibdev);
	kfake_expect_refs_back(test, &fx->hd->base);
	/* iw_cm frees ids from its workqueue. */
	msleep(20);
}

static void hq_addr(struct sockaddr_storage *ss, u16 port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(LOOPBACK);
	sin->sin_port = htons(port);
}

static u16 hq_port(const struct sockaddr_storage *ss)
{
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

static struct iw_cm_id *hq_id(struct kunit *test)
{
	struct hq_fixture *fx = test->priv;
	struct iw_cm_id *id;

	id = iw_create_cm_id(&fx->hd->base.ibdev, hq_handler, fx->c);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	return id;
}

/* A listening id on 127.0.0.1 at a port the host picks; its port. */
static struct iw_cm_id *hq_listen(struct kunit *test, int backlog, u16 *port)
{
	struct iw_cm_id *l = hq_id(test);

	hq_addr(&l->local_addr, 0);
	KUNIT_ASSERT_EQ(test, iw_cm_listen(l, backlog), 0);
	*port = hq_port(&l->m_local_addr);
	KUNIT_ASSERT_NE(test, *port, 0);
	return l;
}

static int hq_connect(struct kunit *test, struct iw_cm_id *id, u16 port,
		      int qpn, const char *pdata)
{
	struct iw_cm_conn_param p = {
		.qpn = qpn, .ird = 4, .ord = 8,
		.private_data = pdata, .private_data_len = strlen(pdata),
	};

	hq_addr(&id->local_addr, 0);
	hq_addr(&id->remote_addr, port);
	return iw_cm_connect(id, &p);
}

/* Connect @a to @port: the listener's CONNECT_REQUEST, event 0. */
static struct hq_event *hq_request(struct kunit *test, struct iw_cm_id *a,
				   u16 port, const char *pdata)
{
	struct hq_fixture *fx = test->priv;
	struct hq_event *ev;

	KUNIT_ASSERT_EQ(test, hq_connect(test, a, port, 0, pdata), 0);
	ev = hq_wait(fx->c, 0);
	KUNIT_ASSERT_NOT_NULL(test, ev);
	KUNIT_ASSERT_EQ(test, ev->event, IW_CM_EVENT_CONNECT_REQUEST);
	return ev;
}

/* Event @n is the initiator's CONNECT_REPLY, with @status. */
static struct hq_event *hq_reply(struct kunit *test, int n, int status)
{
	struct hq_fixture *fx = test->priv;
	struct hq_event *ev = hq_wait(fx->c, n);

	KUNIT_ASSERT_NOT_NULL(test, ev);
	KUNIT_EXPECT_EQ(test, ev->event, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_EXPECT_EQ(test, ev->status, status);
	return ev;
}

/* A raw TCP socket connected to 127.0.0.1:@port, 5 s receive timeout. */
static struct socket *hq_raw(struct kunit *test, u16 port)
{
	struct sockaddr_storage ss;
	struct socket *s;

	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, AF_INET, SOCK_STREAM,
					       IPPROTO_TCP, &s), 0);
	s->sk->sk_rcvtimeo = 5 * HZ;
	hq_addr(&ss, port);
	KUNIT_ASSERT_EQ(test, kernel_connect(s, (struct sockaddr *)&ss,
					     sizeof(struct sockaddr_in), 0), 0);
	return s;
}

static int hq_send(struct socket *s, const void *buf, size_t len)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = {};

	return kernel_sendmsg(s, &msg, &iov, 1, len);
}

/* Read exactly @len bytes (or what comes before EOF, an error, 5 s). */
static int hq_recv(struct socket *s, void *buf, size_t len)
{
	struct msghdr msg = {};
	struct kvec iov;
	size_t got = 0;
	int n;

	while (got < len) {
		iov.iov_base = buf + got;
		iov.iov_len = len - got;
		n = kernel_recvmsg(s, &msg, &iov, 1, len - got, 0);
		if (n <= 0)
			return got ? got : n;
		got += n;
	}
	return got;
}

static void hq_sysctl(struct kunit *test, const char *name, const char *val)
{
	char path[64];
	struct file *f;
	loff_t pos = 0;

	snprintf(path, sizeof(path), "/proc/sys/net/iw_cm/%s", name);
	f = filp_open(path, O_WRONLY, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, kernel_write(f, val, strlen(val), &pos),
			(ssize_t)strlen(val));
	filp_close(f, NULL);
}

/*
 * Connect, accept: each end's provider gets a stream and the negotiated
 * parameters, private data goes both ways, and the streams carry bytes
 * from one provider to the other (MPA read no byte too many).
 */
static void hq_connect_accept_test(struct kunit *test)
{
	struct hq_fixture *fx = test->priv;
	struct iw_cm_conn_param ap = {
		.qpn = 1, .ird = 2, .ord = 16,
		.private_data = "world", .private_data_len = 5,
	};
	struct hq_qp *aq = &fx->hd->qp[0], *pq = &fx->hd->qp[1];
	struct iw_cm_id *l, *a, *child;
	struct hq_event *ev;
	char buf[8];
	u16 port;

	l = hq_listen(test, 4, &port);
	a = hq_id(test);
	ev = hq_request(test, a, port, "hello");
	KUNIT_EXPECT_EQ(test, ev->pdata_len, 5);
	KUNIT_EXPECT_EQ(test, memcmp(ev->pdata, "hello", 5), 0);
	KUNIT_EXPECT_EQ(test, ev->ird, 4);	/* the initiator's IRD */
	KUNIT_EXPECT_EQ(test, ev->ord, 8);	/* the initiator's ORD */
	child = ev->id;
	KUNIT_ASSERT_EQ(test, iw_cm_accept(child, &ap), 0);

	/* ESTABLISHED (passive) and CONNECT_REPLY (active), either order. */
	KUNIT_ASSERT_NOT_NULL(test, hq_wait(fx->c, 2));
	ev = fx->c->ev[1].event == IW_CM_EVENT_CONNECT_REPLY ?
	     &fx->c->ev[1] : &fx->c->ev[2];
	KUNIT_EXPECT_EQ(test, ev->event, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_EXPECT_EQ(test, ev->status, 0);
	KUNIT_EXPECT_EQ(test, ev->pdata_len, 5);
	KUNIT_EXPECT_EQ(test, memcmp(ev->pdata, "world", 5), 0);
	KUNIT_EXPECT_EQ(test, aq->attached, 1);
	KUNIT_EXPECT_EQ(test, pq->attached, 1);

	/* Initiator: IRD 4 ORD 8; responder: IRD 2 (raised to 8) ORD 16. */
	KUNIT_EXPECT_TRUE(test, aq->params.initiator);
	KUNIT_EXPECT_FALSE(test, pq->params.initiator);
	KUNIT_EXPECT_EQ(test, aq->params.mpa_rev, 2);
	KUNIT_EXPECT_FALSE(test, aq->params.crc || pq->params.crc);
	KUNIT_EXPECT_FALSE(test, aq->params.p2p || pq->params.p2p);
	/* Both take FPDUs past MULPDU and said so. */
	KUNIT_EXPECT_TRUE(test, aq->params.large_fpdu);
	KUNIT_EXPECT_TRUE(test, pq->params.large_fpdu);
	KUNIT_EXPECT_EQ(test, pq->params.ord, 4);
	KUNIT_EXPECT_EQ(test, pq->params.ird, 8);
	KUNIT_EXPECT_EQ(test, aq->params.ord, 8);
	KUNIT_EXPECT_EQ(test, aq->params.ird, 4);
	KUNIT_EXPECT_EQ(test, pq->params.pdata_len, 5);

	KUNIT_ASSERT_NOT_NULL(test, aq->sock);
	KUNIT_ASSERT_NOT_NULL(test, pq->sock);
	pq->sock->sk->sk_rcvtimeo = 5 * HZ;
	aq->sock->sk->sk_rcvtimeo = 5 * HZ;
	KUNIT_EXPECT_EQ(test, hq_send(aq->sock, "ping", 4), 4);
	KUNIT_EXPECT_EQ(test, hq_recv(pq->sock, buf, 4), 4);
	KUNIT_EXPECT_EQ(test, memcmp(buf, "ping", 4), 0);
	KUNIT_EXPECT_EQ(test, hq_send(pq->sock, "pong", 4), 4);
	KUNIT_EXPECT_EQ(test, hq_recv(aq->sock, buf, 4), 4);
	KUNIT_EXPECT_EQ(test, memcmp(buf, "pong", 4), 0);

	iw_destroy_cm_id(a);
	iw_destroy_cm_id(child);
	iw_destroy_cm_id(l);
}

/*
 * A consumer IRD over the device's: the responder offers, and its
 * provider is held to, the device's 16.  The initiator's ORD of 8 fits.
 */
static void hq_ird_cap_test(struct kunit *test)
{
	struct hq_fixture *fx = test->priv;
	struct iw_cm_conn_param ap = { .qpn = 1, .ird = 100, .ord = 1 };
	struct hq_qp *aq = &fx->hd->qp[0], *pq = &fx->hd->qp[1];
	struct iw_cm_id *l, *a, *child;
	u16 port;

	l = hq_listen(test, 4, &port);
	a = hq_id(test);
	child = hq_request(test, a, port, "")->id;
	KUNIT_ASSERT_EQ(test, iw_cm_accept(child, &ap), 0);
	KUNIT_ASSERT_NOT_NULL(test, hq_wait(fx->c, 2));
	KUNIT_EXPECT_EQ(test, pq->attached, 1);
	KUNIT_EXPECT_EQ(test, pq->params.ird, 16);
	KUNIT_EXPECT_EQ(test, pq->params.ord, 1);
	KUNIT_EXPECT_EQ(test, aq->params.ord, 8);
	iw_destroy_cm_id(a);
	iw_destroy_cm_id(child);
	iw_destroy_cm_id(l);
}

/* A reject reaches the initiator as -ECONNREFUSED with its data. */
static void hq_reject_test(struct kunit *test)
{
	struct hq_fixture *fx = test->priv;
	struct iw_cm_id *l, *a;
	struct hq_event *ev;
	u16 port;

	l = hq_listen(test, 4, &port);
	a = hq_id(test);
	ev = hq_request(test, a, port, "may I");
	KUNIT_ASSERT_EQ(test, iw_cm_reject(ev->id, "no", 2), 0);
	ev = hq_reply(test, 1, -ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, ev->pdata_len, 2);
	KUNIT_EXPECT_EQ(test, memcmp(ev->pdata, "no", 2), 0);
	KUNIT_EXPECT_EQ(test, fx->hd->qp[0].attached, 0);
	iw_destroy_cm_id(a);
	iw_destroy_cm_id(fx->c->ev[0].id);
	iw_destroy_cm_id(l);
}

/* Nobody listening: the TCP error, as CONNECT_REPLY. */
static void hq_refused_test(struct kunit *test)
{
	struct iw_cm_id *l, *a;
	u16 port;

	l = hq_listen(test, 1, &port);
	iw_destroy_cm_id(l);		/* a port nobody listens on now */
	a = hq_id(test);
	KUNIT_ASSERT_EQ(test, hq_connect(test, a, port, 0, ""), 0);
	hq_reply(test, 0, -ECONNREFUSED);
	iw_destroy_cm_id(a);
}

/*
 * The connecting socket is bound to the port rdma_cm picked; TCP may
 * still hold it for an earlier connection (TIME_WAIT).  A bound socket
 * with SO_REUSEADDR stands in for that: the connect goes ahead, as
 * siw's does (both ends set SO_REUSEADDR).
 */
static void hq_connect_reuse_test(struct kunit *test)
{
	struct hq_fixture *fx = test->priv;
	struct iw_cm_conn_param p = { .ird = 4, .ord = 8 };
	struct sockaddr_storage ss;
	struct iw_cm_id *l, *a;
	struct hq_event *ev;
	struct socket *s;
	u16 port;

	l = hq_listen(test, 4, &port);
	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, AF_INET, SOCK_STREAM,
					       IPPROTO_TCP, &s), 0);
	sock_set_reuseaddr(s->sk);
	hq_addr(&ss, 0);
	KUNIT_ASSERT_EQ(test, kernel_bind(s, (struct sockaddr *)&ss,
					  sizeof(struct sockaddr_in)), 0);
	KUNIT_ASSERT_GE(test, kernel_getsockname(s, (struct sockaddr *)&ss), 0);

	a = hq_id(test);
	hq_addr(&a->local_addr, hq_port(&ss));
	hq_addr(&a->remote_addr, port);
	KUNIT_EXPECT_EQ(test, iw_cm_connect(a, &p), 0);
	ev = hq_wait(fx->c, 0);
	KUNIT_ASSERT_NOT_NULL(test, ev);
	KUNIT_EXPECT_EQ(test, ev->event, IW_CM_EVENT_CONNECT_REQUEST);
	KUNIT_ASSERT_EQ(test, iw_cm_reject(ev->id, NULL, 0), 0);
	hq_reply(test, 1, -ECONNREFUSED);
	iw_destroy_cm_id(a);
	iw_destroy_cm_id(fx->c->ev[0].id);
	iw_destroy_cm_id(l);
	sock_release(s);
}

/* A port in use: the listen fails with the host's error. */
/* 127.0.0.1 or ::1, port @port. */
static void hq_addr_af(struct sockaddr_storage *ss, int family, u16 port)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	if (family == AF_INET) {
		hq_addr(ss, port);
		return;
	}
	memset(ss, 0, sizeof(*ss));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_addr = in6addr_loopback;
	sin6->sin6_port = htons(port);
}

/* The DSCP a stream's packets carry: IPv4 TOS or IPv6 traffic class. */
static u8 hq_dscp(struct sock *sk, int family)
{
#if IS_ENABLED(CONFIG_IPV6)
	if (family == AF_INET6)
		return inet6_sk(sk)->tclass & ~INET_ECN_MASK;
#endif
	return inet_sk(sk)->tos & ~INET_ECN_MASK;
}

/*
 * An id's TOS (rdma_set_service_type()) marks its stream: the
 * initiator's, and every stream its listener accepts.
 */
static void hq_tos(struct kunit *test, int family)
{
	struct hq_fixture *fx = test->priv;
	struct iw_cm_conn_param cp = {
		.qpn = 0, .ird = 4, .ord = 4,
		.private_data = "tos", .private_data_len = 3,
	};
	struct iw_cm_conn_param ap = { .qpn = 1, .ird = 4, .ord = 4 };
	struct hq_qp *aq = &fx->hd->qp[0], *pq = &fx->hd->qp[1];
	struct iw_cm_id *l, *a, *child;
	struct hq_event *ev;
	u16 port;

	l = hq_id(test);
	l->tos = 0x28;		/* AF11 */
	l->tos_set = true;
	hq_addr_af(&l->local_addr, family, 0);
	KUNIT_ASSERT_EQ(test, iw_cm_listen(l, 4), 0);
	port = hq_port(&l->m_local_addr);

	a = hq_id(test);
	a->tos = 0xb8;		/* EF */
	a->tos_set = true;
	hq_addr_af(&a->local_addr, family, 0);
	hq_addr_af(&a->remote_addr, family, port);
	KUNIT_ASSERT_EQ(test, iw_cm_connect(a, &cp), 0);
	ev = hq_wait(fx->c, 0);
	KUNIT_ASSERT_NOT_NULL(test, ev);
	KUNIT_ASSERT_EQ(test, ev->event, IW_CM_EVENT_CONNECT_REQUEST);
	child = ev->id;
	KUNIT_ASSERT_EQ(test, iw_cm_accept(child, &ap), 0);
	KUNIT_ASSERT_NOT_NULL(test, hq_wait(fx->c, 2));

	KUNIT_ASSERT_NOT_NULL(test, aq->sock);
	KUNIT_ASSERT_NOT_NULL(test, pq->sock);
	KUNIT_EXPECT_EQ(test, hq_dscp(aq->sock->sk, family), 0xb8);
	KUNIT_EXPECT_EQ(test, hq_dscp(pq->sock->sk, family), 0x28);

	iw_destroy_cm_id(a);
	iw_destroy_cm_id(child);
	iw_destroy_cm_id(l);
}

static void hq_tos_ipv4_test(struct kunit *test)
{
	hq_tos(test, AF_INET);
}

static void hq_tos_ipv6_test(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_IPV6))
		kunit_skip(test, "no IPv6");
	hq_tos(test, AF_INET6);
}

static void hq_listen_busy_test(struct kunit *test)
{
	struct iw_cm_id *l, *l2;
	u16 port;

	l = hq_listen(test, 1, &port);
	l2 = hq_id(test);
	hq_addr(&l2->local_addr, port);
	KUNIT_EXPECT_EQ(test, iw_cm_listen(l2, 1), -EADDRINUSE);
	iw_destroy_cm_id(l2);
	iw_destroy_cm_id(l);
}

/* Expect the listener to close @s on us, with no event delivered. */
static void hq_expect_closed(struct kunit *test, struct socket *s,
			     int events)
{
	struct hq_fixture *fx = test->priv;
	char buf[64];
	int n;

	n = hq_recv(s, buf, sizeof(buf));
	KUNIT_EXPECT_TRUE_MSG(test, n == 0 || n == -ECONNRESET,
			      "read %d", n);
	KUNIT_EXPECT_EQ(test, hq_count(fx->c), events);
}

/* Hostile initiators: garbage, a wrong revision, a silent peer. */
static void hq_hostile_request_test(struct kunit *test)
{
	static const char http[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
	u8 frame[20] = "MPA ID Req Frame";
	struct iw_cm_id *l;
	struct socket *s;
	u16 port;

	l = hq_listen(test, 4, &port);

	s = hq_raw(test, port);
	KUNIT_EXPECT_EQ(test, hq_send(s, http, sizeof(http) - 1),
			(int)sizeof(http) - 1);
	hq_expect_closed(test, s, 0);
	sock_release(s);

	/* Revision 3, then PD_Length 0xffff: closed without a reply. */
	frame[17] = 3;
	s = hq_raw(test, port);
	hq_send(s, frame, sizeof(frame));
	hq_expect_closed(test, s, 0);
	sock_release(s);
	frame[17] = 1;
	frame[18] = 0xff;
	frame[19] = 0xff;
	s = hq_raw(test, port);
	hq_send(s, frame, sizeof(frame));
	hq_expect_closed(test, s, 0);
	sock_release(s);

	/* Half a header, then silence: closed after the timeout. */
	hq_sysctl(test, "mpa_request_timeout_ms", "300");
	s = hq_raw(test, port);
	hq_send(s, frame, 7);
	hq_expect_closed(test, s, 0);
	sock_release(s);
	hq_sysctl(test, "mpa_request_timeout_ms", "5000");

	iw_destroy_cm_id(l);
}

/* Markers are refused with a reply that says so, then a close. */
static void hq_markers_test(struct kunit *test)
{
	u8 frame[24] = "MPA ID Req Frame", rep[24];
	struct iw_cm_id *l;
	struct socket *s;
	u16 port;

	l = hq_listen(test, 4, &port);
	frame[16] = 0x80 | 0x10;	/* M, H */
	frame[17] = 2;
	frame[19] = 4;			/* the IRD/ORD word only */
	frame[21] = 1;
	s = hq_raw(test, port);
	hq_send(s, frame, sizeof(frame));
	KUNIT_ASSERT_EQ(test, hq_recv(s, rep, sizeof(rep)), (int)sizeof(rep));
	KUNIT_EXPECT_EQ(test, memcmp(rep, "MPA ID Rep Frame", 16), 0);
	KUNIT_EXPECT_EQ(test, rep[16] & 0xe0, 0x20);	/* R, no M */
	KUNIT_EXPECT_EQ(test, rep[17], 2);
	KUNIT_EXPECT_EQ(test, rep[19], 4);
	hq_expect_closed(test, s, 0);
	sock_release(s);
	iw_destroy_cm_id(l);
}

/* A listener of our own that answers (or not) as told. */
static struct socket *hq_raw_listen(struct kunit *test, u16 *port)
{
	struct sockaddr_storage ss;
	struct socket *s;

	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, AF_INET, SOCK_STREAM,
					       IPPROTO_TCP, &s), 0);
	hq_addr(&ss, 0);
	KUNIT_ASSERT_EQ(test, kernel_bind(s, (struct sockaddr *)&ss,
					  sizeof(struct sockaddr_in)), 0);
	KUNIT_ASSERT_EQ(test, kernel_listen(s, 4), 0);
	kernel_getsockname(s, (struct sockaddr *)&ss);
	*port = hq_port(&ss);
	return s;
}

/*
 * Connect @a to the raw listener @ls on @port with @pdata: the peer's
 * end of the TCP connection, 5 s receive timeout.
 */
static struct socket *hq_raw_accept(struct kunit *test, struct iw_cm_id *a,
				    struct socket *ls, u16 port,
				    const char *pdata)
{
	struct socket *s;

	KUNIT_ASSERT_EQ(test, hq_connect(test, a, port, 0, pdata), 0);
	KUNIT_ASSERT_EQ(test, kernel_accept(ls, &s, 0), 0);
	s->sk->sk_rcvtimeo = 5 * HZ;
	return s;
}

/*
 * After the event, what the initiator sent the responder: a TERMINATE
 * FPDU with layer LLP, type MPA, @code and the CRC field @crc (RFC 5040,
 * 5044, 6581), then the close; with @code 0, the close only.
 */
static void hq_expect_term(struct kunit *test, struct socket *s, u8 code,
			   const u8 *crc, const char *what)
{
	static const u8 hdr[24] = {
		0x00, 0x16,		/* MPA length: 22 */
		0x41, 0x47,		/* L, DDP v1, RDMAP v1, TERMINATE */
		0, 0, 0, 0,		/* reserved */
		0, 0, 0, 2,		/* queue 2 */
		0, 0, 0, 1,		/* MSN 1 */
		0, 0, 0, 0,		/* MO 0 */
		0x20, 0, 0, 0,		/* layer LLP, type MPA; no header */
	};
	u8 buf[32];
	int n;

	/* Not an assertion: the caller must still release what it has. */
	if (code) {
		n = hq_recv(s, buf, 28);
		KUNIT_EXPECT_EQ_MSG(test, n, 28, "%s: no TERMINATE", what);
		if (n != 28)
			return;
		KUNIT_EXPECT_EQ_MSG(test, memcmp(buf, hdr, 21), 0, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, buf[21], code, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(buf + 22, hdr + 22, 2), 0,
				    "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(buf + 24, crc, 4), 0,
				    "%s: CRC", what);
	}
	n = hq_recv(s, buf, sizeof(buf));
	KUNIT_EXPECT_TRUE_MSG(test, n == 0 || n == -ECONNRESET,
			      "%s: read %d", what, n);
}

/*
 * Hostile responders: silence, garbage, a reply that answers nothing,
 * and replies that accept with what this end cannot take.  Once the
 * responder accepted it sends FPDUs, and is owed a TERMINATE saying
 * why the initiator goes no further.
 */
static void hq_hostile_reply_test(struct kunit *test)
{
	static const u8 no_crc[4], ird_crc[4] = { 0x65, 0x40, 0xfb, 0x1b };
	static const struct {
		const char *what;
		u8 reply[24];
		int len;
		int status;
		u8 term;
		const u8 *crc;
	} cases[] = {
		{ "silence", {}, 0, -ETIMEDOUT },
		{ "garbage", "HTTP/1.1 400 Bad\r\n\r\n", 20, -EPROTO },
		{ "revision 3", "MPA ID Rep Frame\x00\x03\x00\x00", 20,
		  -EPROTO },
		{ "markers", "MPA ID Rep Frame\x90\x02\x00\x04", 24,
		  -EOPNOTSUPP },
		{ "reject", "MPA ID Rep Frame\x30\x02\x00\x04", 24,
		  -ECONNREFUSED },
		/* ORD 17: over the 16 this end's IRD can be raised to. */
		{ "insufficient IRD",
		  "MPA ID Rep Frame\x10\x02\x00\x04\x00\x04\x00\x11", 24,
		  -ENOBUFS, 0x06, no_crc },
		{ "insufficient IRD, CRC",
		  "MPA ID Rep Frame\x50\x02\x00\x04\x00\x04\x00\x11", 24,
		  -ENOBUFS, 0x06, ird_crc },
		/* A WRITE RTR for a request that asked for none. */
		{ "RTR not asked for",
		  "MPA ID Rep Frame\x10\x02\x00\x04\x80\x04\x80\x02", 24,
		  -EPROTO, 0x07, no_crc },
		{ "no word", "MPA ID Rep Frame\x00\x02\x00\x00", 20, 0 },
	};
	struct hq_fixture *fx = test->priv;
	struct socket *ls, *s;
	struct iw_cm_id *a;
	struct hq_event *ev;
	u8 req[64];
	u16 port;
	int i;

	hq_sysctl(test, "mpa_reply_timeout_ms", "300");
	ls = hq_raw_listen(test, &port);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		a = hq_id(test);
		s = hq_raw_accept(test, a, ls, port, "x");
		/* The request: header, IRD/ORD word, "x". */
		KUNIT_EXPECT_EQ(test, hq_recv(s, req, 25), 25);
		KUNIT_EXPECT_EQ(test, memcmp(req, "MPA ID Req Frame", 16), 0);
		if (cases[i].len)
			hq_send(s, cases[i].reply, cases[i].len);
		ev = hq_wait(fx->c, i);
		KUNIT_ASSERT_NOT_NULL_MSG(test, ev, "%s", cases[i].what);
		KUNIT_EXPECT_EQ_MSG(test, ev->event, IW_CM_EVENT_CONNECT_REPLY,
				    "%s", cases[i].what);
		KUNIT_EXPECT_EQ_MSG(test, ev->status, cases[i].status, "%s",
				    cases[i].what);
		/* Failed: a TERMINATE if the RFCs want one, and a close. */
		if (cases[i].status)
			hq_expect_term(test, s, cases[i].term, cases[i].crc,
				       cases[i].what);
		sock_release(s);
		iw_destroy_cm_id(a);
		hq_release(&fx->hd->qp[0], false);
	}
	sock_release(ls);
	hq_sysctl(test, "mpa_reply_timeout_ms", "10000");
}

/*
 * net.iw_cm.mpa_version 1: the request is revision 1, without the
 * IRD/ORD word, so a peer that speaks only revision 1 answers it, and
 * the provider runs the stream as revision 1.
 */
static void hq_v1_peer_test(struct kunit *test)
{
	struct hq_fixture *fx = test->priv;
	struct hq_qp *aq = &fx->hd->qp[0];
	struct socket *ls, *s;
	struct iw_cm_id *a;
	struct hq_event *ev;
	u8 req[32];
	u16 port;

	hq_sysctl(test, "mpa_version", "1");
	ls = hq_raw_listen(test, &port);
	a = hq_id(test);
	s = hq_raw_accept(test, a, ls, port, "v1");
	/*
	 * Key, flags without H but with siw's "large FPDUs" bit, revision 1,
	 * PD_Length 2, "v1".
	 */
	KUNIT_EXPECT_EQ(test, hq_recv(s, req, 22), 22);
	KUNIT_EXPECT_EQ(test, memcmp(req, "MPA ID Req Frame", 16), 0);
	KUNIT_EXPECT_EQ(test, req[16] & 0x18, 0x08);
	KUNIT_EXPECT_EQ(test, req[17], 1);
	KUNIT_EXPECT_EQ(test, req[18] << 8 | req[19], 2);
	KUNIT_EXPECT_EQ(test, memcmp(req + 20, "v1", 2), 0);
	hq_send(s, "MPA ID Rep Frame\x00\x01\x00\x02ok", 22);
	ev = hq_reply(test, 0, 0);
	KUNIT_EXPECT_EQ(test, ev->pdata_len, 2);
	KUNIT_EXPECT_EQ(test, memcmp(ev->pdata, "ok", 2), 0);
	KUNIT_EXPECT_EQ(test, aq->attached, 1);
	KUNIT_EXPECT_EQ(test, aq->params.mpa_rev, 1);
	KUNIT_EXPECT_FALSE(test, aq->params.p2p);
	/* The reply did not say it takes large FPDUs. */
	KUNIT_EXPECT_FALSE(test, aq->params.large_fpdu);

	sock_release(s);
	iw_destroy_cm_id(a);
	hq_release(aq, false);
	sock_release(ls);
	hq_sysctl(test, "mpa_version", "2");
}

/*
 * A revision 1 responder that takes a revision 2 request for a bad
 * frame and closes: the connect fails with -ECONNRESET and is not
 * retried (no second request on the listener), nothing is attached.
 */
static void hq_v1_closes_test(struct kunit *test)
{
	struct hq_fixture *fx = test->priv;
	struct socket *ls, *s;
	struct iw_cm_id *a;
	u8 req[25];
	u16 port;

	ls = hq_raw_listen(test, &port);
	a = hq_id(test);
	s = hq_raw_accept(test, a, ls, port, "x");
	/* Revision 2: the IRD/ORD word, then "x". */
	KUNIT_EXPECT_EQ(test, hq_recv(s, req, sizeof(req)), sizeof(req));
	KUNIT_EXPECT_EQ(test, req[17], 2);
	sock_release(s);
	hq_reply(test, 0, -ECONNRESET);
	KUNIT_EXPECT_EQ(test, fx->hd->qp[0].attached, 0);
	KUNIT_EXPECT_EQ(test, kernel_accept(ls, &s, O_NONBLOCK), -EAGAIN);
	iw_destroy_cm_id(a);
	sock_release(ls);
}

/*
 * An initiator destroyed while waiting for the reply closes its TCP
 * connection at once, not when the 10 s reply timer runs out (the raw
 * peer reads for at most 5 s), and reports nothing.
 */
static void hq_destroy_connecting_test(struct kunit *test)
{
	struct hq_fixture *fx = test->priv;
	struct socket *ls, *s;
	struct iw_cm_id *a;
	u8 req[25];
	u16 port;

	ls = hq_raw_listen(test, &port);
	a = hq_id(test);
	s = hq_raw_accept(test, a, ls, port, "x");
	KUNIT_EXPECT_EQ(test, hq_recv(s, req, sizeof(req)), sizeof(req));
	iw_destroy_cm_id(a);
	hq_expect_closed(test, s, 0);
	sock_release(s);
	sock_release(ls);
	hq_release(&fx->hd->qp[0], false);
}

/* A failing attach fails the connection: an error, no stream kept. */
static void hq_attach_fails_test(struct kunit *test)
{
	struct hq_fixture *fx = test->priv;
	struct iw_cm_conn_param ap = { .qpn = 1, .ird = 1, .ord = 1 };
	struct iw_cm_id *l, *a;
	struct hq_event *ev;
	u16 port;

	fx->hd->attach_ret = -ENOMEM;
	l = hq_listen(test, 4, &port);
	a = hq_id(test);
	ev = hq_request(test, a, port, "");
	KUNIT_EXPECT_EQ(test, iw_cm_accept(ev->id, &ap), -ENOMEM);
	/* The initiator got a reply and failed to attach as well. */
	hq_reply(test, 1, -ENOMEM);
	iw_destroy_cm_id(a);
	iw_destroy_cm_id(fx->c->ev[0].id);
	iw_destroy_cm_id(l);
}

/*
 * Destroying a listener closes connections still waiting to send their
 * request; a delivered, unanswered request is rejected when its id goes.
 */
static void hq_listener_destroy_test(struct kunit *test)
{
	struct hq_fixture *fx = test->priv;
	struct iw_cm_id *l, *a;
	struct socket *s;
	struct hq_event *ev;
	u16 port;

	l = hq_listen(test, 4, &port);
	a = hq_id(test);
	ev = hq_request(test, a, port, "q");
	s = hq_raw(test, port);
	msleep(100);
	iw_destroy_cm_id(l);
	hq_expect_closed(test, s, 1);
	sock_release(s);
	/* The passive id's destroy answers the request with a reject. */
	iw_destroy_cm_id(ev->id);
	ev = hq_wait(fx->c, 1);
	KUNIT_ASSERT_NOT_NULL(test, ev);
	KUNIT_EXPECT_EQ(test, ev->status, -ECONNREFUSED);
	iw_destroy_cm_id(a);
}

static struct kunit_case hq_cases[] = {
	KUNIT_CASE(hq_connect_accept_test),
	KUNIT_CASE(hq_ird_cap_test),
	KUNIT_CASE(hq_reject_test),
	KUNIT_CASE(hq_refused_test),
	KUNIT_CASE(hq_listen_busy_test),
	KUNIT_CASE(hq_tos_ipv4_test),
	KUNIT_CASE(hq_tos_ipv6_test),
	KUNIT_CASE(hq_v1_peer_test),
	KUNIT_CASE(hq_v1_closes_test),
	KUNIT_CASE(hq_connect_reuse_test),
	KUNIT_CASE(hq_hostile_request_test),
	KUNIT_CASE(hq_markers_test),
	KUNIT_CASE(hq_hostile_reply_test),
	KUNIT_CASE(hq_destroy_connecting_test),
	KUNIT_CASE(hq_attach_fails_test),
	KUNIT_CASE(hq_listener_destroy_test),
	{}
};

static struct kunit_suite hq_suite = {
	.name = "iw_cm_host",
	.init = hq_init,
	.exit = hq_exit,
	.test_cases = hq_cases,
};

kunit_test_suites(&hq_suite);

MODULE_AUTHOR("rdma_cm project");
MODULE_DESCRIPTION("KUnit tests for iw_cm's host-integrated model");
MODULE_LICENSE("Dual BSD/GPL");
