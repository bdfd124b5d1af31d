// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit tests for iw_cm: iwcm_reject_msg(), and the connection manager
 * driven through its exported API by a fake iWARP provider, a bare
 * struct ib_device whose iw_* ops record what iw_cm asks of them and
 * report events through the id's event_handler, from task, hard-IRQ-off
 * and softirq context.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/errno.h>
#include <linux/in.h>
#include <linux/irqflags.h>
#include <linux/kthread.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>

#include "rdma_kunit_fake.h"

static void iwcm_reject_msg_known_test(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, iwcm_reject_msg(-ECONNRESET),
			   "reset by remote host");
	KUNIT_EXPECT_STREQ(test, iwcm_reject_msg(-ECONNREFUSED),
			   "refused by remote application");
	KUNIT_EXPECT_STREQ(test, iwcm_reject_msg(-ETIMEDOUT),
			   "setup timeout");
}

static void iwcm_reject_msg_unknown_test(struct kunit *test)
{
	/* Providers report negative errnos; positive ones are not reasons. */
	static const int reasons[] = {
		0, ECONNRESET, ECONNREFUSED, ETIMEDOUT, -EINVAL, -ENOMEM,
		-ECONNABORTED, INT_MIN, INT_MAX,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(reasons); i++)
		KUNIT_EXPECT_STREQ_MSG(test, iwcm_reject_msg(reasons[i]),
				       "unrecognized reason",
				       "reason %d", reasons[i]);
}

static struct kunit_case iwcm_msg_cases[] = {
	KUNIT_CASE(iwcm_reject_msg_known_test),
	KUNIT_CASE(iwcm_reject_msg_unknown_test),
	{}
};

static struct kunit_suite iwcm_msg_suite = {
	.name = "iw_cm_msg",
	.test_cases = iwcm_msg_cases,
};

/* --- the fake provider ----------------------------------------------- */

#define FAKE_BAD_QPN	99
#define MAX_EVENTS	32
#define PDATA_LEN	255
#define WAIT_MS		10000

struct fake_dev {
	struct kfake_dev base;

	/* behaviour */
	int connect_ret;
	int accept_ret;
	int listen_ret;
	bool accept_upcalls_established;
	bool connect_upcalls_reply;
	bool modify_upcalls_close;
	struct completion *connect_gate;
	struct completion connect_entered;

	/* what the provider was asked; lock: conn_id and reject_* */
	spinlock_t lock;
	atomic_t n_connect;
	atomic_t n_accept;
	atomic_t n_reject;
	atomic_t n_create_listen;
	atomic_t n_destroy_listen;
	int last_backlog;
	u8 reject_pdata[PDATA_LEN];
	int reject_pdata_len;
	void *reject_cookie;
	struct iw_cm_id *conn_id;	/* holds our add_ref */
};

static struct fake_dev *to_fake(struct ib_device *ibdev)
{
	return container_of(to_kfake(ibdev), struct fake_dev, base);
}

static void fake_upcall(struct iw_cm_id *id, enum iw_cm_event_type type,
			int status)
{
	struct iw_cm_event ev = { .event = type, .status = status };

	id->event_handler(id, &ev);
}

static int fake_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			  int mask, struct ib_udata *udata)
{
	struct fake_dev *fd = to_fake(ibqp->device);
	unsigned long flags;
	struct iw_cm_id *id;

	might_sleep();
	kfake_qp_modified(ibqp, attr, mask);
	/* Like siw: closing the QP reports CLOSE at once. */
	spin_lock_irqsave(&fd->lock, flags);
	id = fd->modify_upcalls_close ? fd->conn_id : NULL;
	spin_unlock_irqrestore(&fd->lock, flags);
	if (id)
		fake_upcall(id, IW_CM_EVENT_CLOSE, 0);
	return 0;
}

/* The provider takes its reference on a connection's id. */
static void fake_hold_conn(struct fake_dev *fd, struct iw_cm_id *id)
{
	unsigned long flags;

	id->add_ref(id);
	spin_lock_irqsave(&fd->lock, flags);
	fd->conn_id = id;
	spin_unlock_irqrestore(&fd->lock, flags);
}

/* The provider is done with the connection's id. */
static void fake_release_conn(struct fake_dev *fd)
{
	unsigned long flags;
	struct iw_cm_id *id;

	spin_lock_irqsave(&fd->lock, flags);
	id = fd->conn_id;
	fd->conn_id = NULL;
	spin_unlock_irqrestore(&fd->lock, flags);
	if (id)
		id->rem_ref(id);
}

static int fake_connect(struct iw_cm_id *id, struct iw_cm_conn_param *p)
{
	struct fake_dev *fd = to_fake(id->device);
	struct iw_cm_event ev = {
		.event = IW_CM_EVENT_CONNECT_REPLY,
		.status = fd->connect_ret ? -ECONNREFUSED : 0,
	};

	atomic_inc(&fd->n_connect);
	complete(&fd->connect_entered);
	if (fd->connect_gate)
		wait_for_completion(fd->connect_gate);
	/* A failing provider that reported an event anyway. */
	if (fd->connect_upcalls_reply)
		id->event_handler(id, &ev);
	if (fd->connect_ret)
		return fd->connect_ret;
	fake_hold_conn(fd, id);
	return 0;
}

static int fake_accept(struct iw_cm_id *id, struct iw_cm_conn_param *p)
{
	struct fake_dev *fd = to_fake(id->device);

	atomic_inc(&fd->n_accept);
	if (fd->accept_upcalls_established)
		fake_upcall(id, IW_CM_EVENT_ESTABLISHED, 0);
	if (fd->accept_ret)
		return fd->accept_ret;
	fake_hold_conn(fd, id);
	return 0;
}

static int fake_reject(struct iw_cm_id *id, const void *pdata, u8 len)
{
	struct fake_dev *fd = to_fake(id->device);
	unsigned long flags;

	spin_lock_irqsave(&fd->lock, flags);
	fd->reject_cookie = id->provider_data;
	fd->reject_pdata_len = len;
	if (len)
		memcpy(fd->reject_pdata, pdata, len);
	spin_unlock_irqrestore(&fd->lock, flags);
	atomic_inc(&fd->n_reject);
	return 0;
}

static int fake_create_listen(struct iw_cm_id *id, int backlog)
{
	struct fake_dev *fd = to_fake(id->device);

	atomic_inc(&fd->n_create_listen);
	fd->last_backlog = backlog;
	if (fd->listen_ret)
		return fd->listen_ret;
	id->add_ref(id);
	return 0;
}

static int fake_destroy_listen(struct iw_cm_id *id)
{
	struct fake_dev *fd = to_fake(id->device);

	atomic_inc(&fd->n_destroy_listen);
	id->rem_ref(id);
	return 0;
}

/* --- the consumer ------------------------------------------------------ */

struct rec_event {
	struct iw_cm_id *id;
	int event;
	int status;
	u8 pdata[PDATA_LEN];
	int pdata_len;
	void *provider_data;
	struct sockaddr_in local;
	struct sockaddr_in remote;
	int qp_refs;
};

struct consumer {
	struct kunit *test;
	struct fake_dev *fd;
	spinlock_t lock;		/* ev, n, in_cb */
	wait_queue_head_t wq;
	struct rec_event ev[MAX_EVENTS];
	int n;
	int in_cb;

	/* behaviour */
	int ret;			/* handler's return value */
	int ret_for_event;		/* ... only for this event, if set */
	bool accept_in_cb;		/* accept CONNECT_REQUEST in the callback */
	int accept_in_cb_ret;
	struct completion *gate;	/* the handler waits on it */
	struct completion entered;
};

static int consumer_handler(struct iw_cm_id *id, struct iw_cm_event *ev)
{
	struct consumer *c = id->context;
	struct iw_cm_conn_param param = { .qpn = 1, .ord = 1, .ird = 1 };
	struct rec_event *r;
	int ret;

	might_sleep();
	spin_lock_irq(&c->lock);
	c->in_cb++;
	spin_unlock_irq(&c->lock);
	complete(&c->entered);
	if (c->gate)
		wait_for_completion(c->gate);

	if (ev->event == IW_CM_EVENT_CONNECT_REQUEST && c->accept_in_cb)
		c->accept_in_cb_ret = iw_cm_accept(id, &param);

	spin_lock_irq(&c->lock);
	if (c->n < MAX_EVENTS) {
		r = &c->ev[c->n];
		r->id = id;
		r->event = ev->event;
		r->status = ev->status;
		r->pdata_len = ev->private_data_len;
		if (ev->private_data_len)
			memcpy(r->pdata, ev->private_data, ev->private_data_len);
		r->provider_data = ev->provider_data;
		memcpy(&r->local, &ev->local_addr, sizeof(r->local));
		memcpy(&r->remote, &ev->remote_addr, sizeof(r->remote));
		r->qp_refs = atomic_read(&c->fd->base.qp[1].refs);
	}
	c->n++;
	c->in_cb--;
	ret = c->ret;
	if (c->ret_for_event && c->ret_for_event != ev->event)
		ret = 0;
	spin_unlock_irq(&c->lock);
	wake_up_all(&c->wq);
	return ret;
}

static int consumer_count(struct consumer *c)
{
	int n;

	spin_lock_irq(&c->lock);
	n = c->n;
	spin_unlock_irq(&c->lock);
	return n;
}

static bool consumer_wait(struct consumer *c, int n)
{
	return wait_event_timeout(c->wq, consumer_count(c) >= n,
				  msecs_to_jiffies(WAIT_MS)) > 0;
}

/* No more events come: give the workqueue a moment to prove it. */
static void consumer_expect_quiet(struct kunit *test, struct consumer *c,
				  int n)
{
	msleep(50);
	KUNIT_EXPECT_EQ(test, consumer_count(c), n);
}

struct iwcm_fixture {
	struct fake_dev *fd;
	struct consumer *c;
};

static int iwcm_fake_init(struct kunit *test)
{
	struct iwcm_fixture *fx;
	struct fake_dev *fd;
	struct consumer *c;

	fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	fd = kunit_kzalloc(test, sizeof(*fd), GFP_KERNEL);
	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	if (!fx || !fd || !c)
		return -ENOMEM;

	kfake_init(&fd->base, "iwcm_kunit0", RDMA_CORE_PORT_IWARP);
	strscpy(fd->base.ibdev.iw_ifname, "kunit0",
		sizeof(fd->base.ibdev.iw_ifname));
	fd->base.ibdev.ops.iw_connect = fake_connect;
	fd->base.ibdev.ops.iw_accept = fake_accept;
	fd->base.ibdev.ops.iw_reject = fake_reject;
	fd->base.ibdev.ops.iw_create_listen = fake_create_listen;
	fd->base.ibdev.ops.iw_destroy_listen = fake_destroy_listen;
	fd->base.ibdev.ops.modify_qp = fake_modify_qp;
	spin_lock_init(&fd->lock);
	init_completion(&fd->connect_entered);

	c->test = test;
	c->fd = fd;
	spin_lock_init(&c->lock);
	init_waitqueue_head(&c->wq);
	init_completion(&c->entered);

	fx->fd = fd;
	fx->c = c;
	test->priv = fx;
	return 0;
}

static void iwcm_fake_exit(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;

	/* Every QP reference iw_cm took is back; none taken unlocked. */
	kfake_expect_refs_back(test, &fx->fd->base);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->fd->base.n_unlocked_qp_op), 0);
	/* Frees are deferred to the workqueue: let them run. */
	msleep(20);
}

static void set_addr(struct sockaddr_storage *ss, u32 ip, u16 port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(ip);
	sin->sin_port = htons(port);
}

#define IP_A	0x0a000001	/* 10.0.0.1 */
#define IP_B	0x0a000002	/* 10.0.0.2 */

static struct iw_cm_id *new_id(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct iw_cm_id *id;

	id = iw_create_cm_id(&fx->fd->base.ibdev, consumer_handler, fx->c);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(id));
	KUNIT_EXPECT_NULL(test, id->provider_data);
	KUNIT_EXPECT_PTR_EQ(test, id->device, &fx->fd->base.ibdev);
	KUNIT_EXPECT_PTR_EQ(test, id->context, (void *)fx->c);
	set_addr(&id->local_addr, IP_A, 7000);
	set_addr(&id->remote_addr, IP_B, 8000);
	return id;
}

static int connect_id(struct iw_cm_id *id)
{
	struct iw_cm_conn_param param = {
		.qpn = 1, .ord = 4, .ird = 4,
		.private_data = "hello", .private_data_len = 5,
	};

	return iw_cm_connect(id, &param);
}

/* Report an event with private data from a buffer scribbled right after. */
static noinline_for_stack int upcall_pdata(struct iw_cm_id *id,
					   enum iw_cm_event_type type,
					   int status, int len, void *cookie)
{
	u8 buf[PDATA_LEN];
	struct iw_cm_event ev = {
		.event = type, .status = status, .private_data = buf,
		.private_data_len = len, .provider_data = cookie,
		.ird = 3, .ord = 5,
	};
	int ret;

	memset(buf, 0xa5, PDATA_LEN);
	set_addr(&ev.local_addr, IP_A, 7000);
	set_addr(&ev.remote_addr, IP_B, 40000);
	ret = id->event_handler(id, &ev);
	memset(buf, 0x5a, PDATA_LEN);
	return ret;
}

static bool wait_done(struct completion *done, unsigned int ms)
{
	return wait_for_completion_timeout(done, msecs_to_jiffies(ms)) > 0;
}

/* Poll for something the event work does after a callback. */
#define wait_cond(cond) ({						\
	unsigned long __end = jiffies + msecs_to_jiffies(WAIT_MS);	\
	bool __ok;							\
	while (!(__ok = (cond)) && time_before(jiffies, __end))		\
		usleep_range(5000, 10000);				\
	__ok;								\
})

static bool all_bytes(const u8 *p, u8 v, int len)
{
	while (len--)
		if (*p++ != v)
			return false;
	return true;
}

/* Bring an active id to ESTABLISHED; returns the events seen so far. */
static int establish_active(struct kunit *test, struct iw_cm_id *id)
{
	struct iwcm_fixture *fx = test->priv;
	int n = consumer_count(fx->c);

	KUNIT_ASSERT_EQ(test, connect_id(id), 0);
	KUNIT_ASSERT_EQ(test, upcall_pdata(id, IW_CM_EVENT_CONNECT_REPLY, 0,
					   0, NULL), 0);
	KUNIT_ASSERT_TRUE(test, consumer_wait(fx->c, n + 1));
	KUNIT_EXPECT_EQ(test, fx->c->ev[n].event, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_EXPECT_EQ(test, fx->c->ev[n].status, 0);
	return n + 1;
}

/* --- id lifecycle ------------------------------------------------------ */

static void iwcm_create_destroy_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct iw_cm_id *id = new_id(test);

	KUNIT_EXPECT_PTR_NE(test, (void *)id->event_handler, NULL);
	KUNIT_EXPECT_PTR_NE(test, (void *)id->add_ref, NULL);
	KUNIT_EXPECT_PTR_NE(test, (void *)id->rem_ref, NULL);
	/* Nothing to disconnect, nothing to listen on. */
	KUNIT_EXPECT_EQ(test, iw_cm_disconnect(id, 0), 0);
	KUNIT_EXPECT_EQ(test, iw_cm_reject(id, NULL, 0), -EINVAL);
	iw_destroy_cm_id(id);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->fd->n_reject), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->fd->n_destroy_listen), 0);
}

static void iwcm_init_qp_attr_test(struct kunit *test)
{
	struct iw_cm_id *id = new_id(test), *lid = new_id(test);
	struct ib_qp_attr attr = {};
	int mask = -1;

	attr.qp_state = IB_QPS_INIT;
	KUNIT_EXPECT_EQ(test, iw_cm_init_qp_attr(id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, mask, IB_QP_STATE | IB_QP_ACCESS_FLAGS);
	KUNIT_EXPECT_EQ(test, attr.qp_access_flags,
			IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ);
	attr.qp_state = IB_QPS_RTR;
	attr.qp_access_flags = 0;
	KUNIT_EXPECT_EQ(test, iw_cm_init_qp_attr(id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, mask, IB_QP_STATE | IB_QP_ACCESS_FLAGS);
	attr.qp_state = IB_QPS_RTS;
	KUNIT_EXPECT_EQ(test, iw_cm_init_qp_attr(id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, mask, 0);
	attr.qp_state = IB_QPS_SQD;
	KUNIT_EXPECT_EQ(test, iw_cm_init_qp_attr(id, &attr, &mask), -EINVAL);
	attr.qp_state = IB_QPS_ERR;
	KUNIT_EXPECT_EQ(test, iw_cm_init_qp_attr(id, &attr, &mask), -EINVAL);

	/* A listener has no QP. */
	KUNIT_ASSERT_EQ(test, iw_cm_listen(lid, 4), 0);
	attr.qp_state = IB_QPS_INIT;
	KUNIT_EXPECT_EQ(test, iw_cm_init_qp_attr(lid, &attr, &mask), -EINVAL);

	iw_destroy_cm_id(lid);
	iw_destroy_cm_id(id);
}

/* --- listen ------------------------------------------------------------ */

static void iwcm_listen_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	struct iw_cm_id *id = new_id(test);

	KUNIT_ASSERT_EQ(test, iw_cm_listen(id, 7), 0);
	KUNIT_EXPECT_EQ(test, fd->last_backlog, 7);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->n_create_listen), 1);
	/* Without a port mapper the mapped addresses are the real ones. */
	KUNIT_EXPECT_EQ(test, memcmp(&id->m_local_addr, &id->local_addr,
				     sizeof(id->local_addr)), 0);
	/* One listen per id; no connect or disconnect on a listener. */
	KUNIT_EXPECT_EQ(test, iw_cm_listen(id, 7), -EINVAL);
	KUNIT_EXPECT_EQ(test, connect_id(id), -EINVAL);
	KUNIT_EXPECT_EQ(test, iw_cm_disconnect(id, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->n_create_listen), 1);
	iw_destroy_cm_id(id);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->n_destroy_listen), 1);
}

static void iwcm_listen_backlog_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	static const int in[] = { 0, -5, 1, 1 << 20 };
	static const int want[] = { 256, 256, 1, 8192 };
	struct iw_cm_id *id;
	int i;

	for (i = 0; i < ARRAY_SIZE(in); i++) {
		id = new_id(test);
		KUNIT_EXPECT_EQ(test, iw_cm_listen(id, in[i]), 0);
		KUNIT_EXPECT_EQ_MSG(test, fd->last_backlog, want[i],
				    "backlog %d", in[i]);
		iw_destroy_cm_id(id);
	}
}

/* The provider owns the port space: its error is the listen's error. */
static void iwcm_listen_provider_error_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	struct iw_cm_id *id = new_id(test);

	set_addr(&id->local_addr, 0, 7000);	/* wildcard */
	fd->listen_ret = -EADDRINUSE;
	KUNIT_EXPECT_EQ(test, iw_cm_listen(id, 4), -EADDRINUSE);
	/* The id is idle again: no listener to tear down. */
	KUNIT_EXPECT_EQ(test, upcall_pdata(id, IW_CM_EVENT_CONNECT_REQUEST,
					   0, 0, NULL), -ECONNREFUSED);
	iw_destroy_cm_id(id);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->n_destroy_listen), 0);
	consumer_expect_quiet(test, fx->c, 0);
}

/* --- active side ------------------------------------------------------- */

static void iwcm_connect_established_close_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	struct consumer *c = fx->c;
	struct iw_cm_id *id = new_id(test);
	struct sockaddr_in *m;
	int n;

	KUNIT_ASSERT_EQ(test, connect_id(id), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->n_connect), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->base.qp[1].refs), 1);
	/* Connecting twice is refused. */
	KUNIT_EXPECT_EQ(test, connect_id(id), -EINVAL);

	KUNIT_ASSERT_EQ(test, upcall_pdata(id, IW_CM_EVENT_CONNECT_REPLY, 0,
					   PDATA_LEN, NULL), 0);
	KUNIT_ASSERT_TRUE(test, consumer_wait(c, 1));
	KUNIT_EXPECT_EQ(test, c->ev[0].event, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_EXPECT_EQ(test, c->ev[0].status, 0);
	/* The private data was copied before the provider scribbled it. */
	KUNIT_EXPECT_EQ(test, c->ev[0].pdata_len, PDATA_LEN);
	KUNIT_EXPECT_TRUE(test, all_bytes(c->ev[0].pdata, 0xa5, PDATA_LEN));
	/* The consumer sees the real addresses, the id keeps the mapped. */
	KUNIT_EXPECT_EQ(test, ntohs(c->ev[0].remote.sin_port), 8000);
	m = (struct sockaddr_in *)&id->m_remote_addr;
	KUNIT_EXPECT_EQ(test, ntohs(m->sin_port), 40000);

	/* Graceful disconnect: QP to SQD; DISCONNECT is not delivered. */
	KUNIT_EXPECT_EQ(test, iw_cm_disconnect(id, 0), 0);
	KUNIT_EXPECT_EQ(test, fd->base.qp[1].last_state, IB_QPS_SQD);
	KUNIT_EXPECT_EQ(test, iw_cm_disconnect(id, 0), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->base.qp[1].n_modify), 1);
	fake_upcall(id, IW_CM_EVENT_DISCONNECT, 0);
	fake_upcall(id, IW_CM_EVENT_CLOSE, 0);
	KUNIT_ASSERT_TRUE(test, consumer_wait(c, 2));
	KUNIT_EXPECT_EQ(test, c->ev[1].event, IW_CM_EVENT_CLOSE);
	/* The QP reference was dropped before CLOSE was delivered. */
	KUNIT_EXPECT_EQ(test, c->ev[1].qp_refs, 0);
	fake_release_conn(fd);
	n = consumer_count(c);
	iw_destroy_cm_id(id);
	consumer_expect_quiet(test, c, n);
}

static void iwcm_disconnect_abrupt_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	struct iw_cm_id *id = new_id(test);
	int n;

	n = establish_active(test, id);
	fd->modify_upcalls_close = true;
	KUNIT_EXPECT_EQ(test, iw_cm_disconnect(id, 1), 0);
	KUNIT_EXPECT_EQ(test, fd->base.qp[1].last_state, IB_QPS_ERR);
	KUNIT_ASSERT_TRUE(test, consumer_wait(fx->c, n + 1));
	KUNIT_EXPECT_EQ(test, fx->c->ev[n].event, IW_CM_EVENT_CLOSE);
	fd->modify_upcalls_close = false;
	fake_release_conn(fd);
	iw_destroy_cm_id(id);
	/* Closed already: destroy leaves the QP alone. */
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->base.qp[1].n_modify), 1);
}

static void iwcm_connect_rejected_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	static const int status[] = { -ECONNREFUSED, -ECONNRESET, -ETIMEDOUT,
				      -EINVAL };
	struct iw_cm_id *id;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT };
	int i, mask;

	for (i = 0; i < ARRAY_SIZE(status); i++) {
		id = new_id(test);
		KUNIT_ASSERT_EQ(test, connect_id(id), 0);
		/* A reject carries the peer's private data. */
		KUNIT_ASSERT_EQ(test, upcall_pdata(id, IW_CM_EVENT_CONNECT_REPLY,
						   status[i], 20, NULL), 0);
		KUNIT_ASSERT_TRUE(test, consumer_wait(fx->c, i + 1));
		KUNIT_EXPECT_EQ(test, fx->c->ev[i].status, status[i]);
		KUNIT_EXPECT_EQ(test, fx->c->ev[i].pdata_len, 20);
		KUNIT_EXPECT_TRUE(test, all_bytes(fx->c->ev[i].pdata, 0xa5, 20));
		/* The QP was released before the callback. */
		KUNIT_EXPECT_EQ(test, fx->c->ev[i].qp_refs, 0);
		/* Idle again. */
		KUNIT_EXPECT_EQ(test, iw_cm_disconnect(id, 0), 0);
		KUNIT_EXPECT_EQ(test, iw_cm_init_qp_attr(id, &attr, &mask), 0);
		fake_release_conn(fd);
		iw_destroy_cm_id(id);
		KUNIT_EXPECT_EQ(test, atomic_read(&fd->base.qp[1].n_modify), 0);
	}
}

/* A failed connect delivers nothing, even what the provider reported. */
static void iwcm_connect_provider_error_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	struct iw_cm_id *id = new_id(test);
	struct iw_cm_conn_param bad = { .qpn = FAKE_BAD_QPN };

	KUNIT_EXPECT_EQ(test, iw_cm_connect(id, &bad), -EINVAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->n_connect), 0);

	fd->connect_ret = -ENETUNREACH;
	fd->connect_upcalls_reply = true;
	KUNIT_EXPECT_EQ(test, connect_id(id), -ENETUNREACH);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->base.qp[1].refs), 0);
	/* Idle: it may connect again. */
	fd->connect_ret = 0;
	fd->connect_upcalls_reply = false;
	KUNIT_EXPECT_EQ(test, connect_id(id), 0);
	iw_destroy_cm_id(id);
	/* Destroy aborts the setup: QP to ERR. */
	KUNIT_EXPECT_EQ(test, fd->base.qp[1].last_state, IB_QPS_ERR);
	fake_release_conn(fd);
	consumer_expect_quiet(test, fx->c, 0);
}

/* CONNECT_REPLY reported inside iw_connect comes after it returns. */
static void iwcm_connect_reply_in_downcall_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	struct iw_cm_id *id = new_id(test);

	fd->connect_upcalls_reply = true;
	KUNIT_ASSERT_EQ(test, connect_id(id), 0);
	KUNIT_ASSERT_TRUE(test, consumer_wait(fx->c, 1));
	KUNIT_EXPECT_EQ(test, fx->c->ev[0].event, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_EXPECT_EQ(test, fx->c->ev[0].status, 0);
	fd->modify_upcalls_close = true;
	iw_destroy_cm_id(id);
	fake_release_conn(fd);
	consumer_expect_quiet(test, fx->c, 1);
}

/* A disconnect during setup waits for the connection, not the caller. */
static void iwcm_disconnect_pending_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	struct iw_cm_id *id = new_id(test);

	KUNIT_ASSERT_EQ(test, connect_id(id), 0);
	KUNIT_EXPECT_EQ(test, iw_cm_disconnect(id, 0), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->base.qp[1].n_modify), 0);
	KUNIT_ASSERT_EQ(test, upcall_pdata(id, IW_CM_EVENT_CONNECT_REPLY, 0,
					   0, NULL), 0);
	KUNIT_ASSERT_TRUE(test, consumer_wait(fx->c, 1));
	KUNIT_EXPECT_TRUE(test, wait_cond(atomic_read(&fd->base.qp[1].n_modify)));
	KUNIT_EXPECT_EQ(test, fd->base.qp[1].last_state, IB_QPS_SQD);
	fake_upcall(id, IW_CM_EVENT_CLOSE, 0);
	KUNIT_ASSERT_TRUE(test, consumer_wait(fx->c, 2));
	KUNIT_EXPECT_EQ(test, fx->c->ev[1].event, IW_CM_EVENT_CLOSE);
	fake_release_conn(fd);
	iw_destroy_cm_id(id);
}

/* A non-zero return from the handler destroys the id in iw_cm. */
static void iwcm_handler_destroys_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	struct iw_cm_id *id = new_id(test);

	fx->c->ret = -ENOMEM;
	KUNIT_ASSERT_EQ(test, connect_id(id), 0);
	KUNIT_ASSERT_EQ(test, upcall_pdata(id, IW_CM_EVENT_CONNECT_REPLY, 0,
					   0, NULL), 0);
	KUNIT_ASSERT_TRUE(test, consumer_wait(fx->c, 1));
	/* The connection was aborted and the QP released. */
	KUNIT_EXPECT_TRUE(test, wait_cond(!atomic_read(&fd->base.qp[1].refs)));
	KUNIT_EXPECT_EQ(test, fd->base.qp[1].last_state, IB_QPS_ERR);
	/* Later events of the provider go nowhere. */
	KUNIT_EXPECT_EQ(test, upcall_pdata(id, IW_CM_EVENT_CLOSE, 0, 0, NULL),
			0);
	consumer_expect_quiet(test, fx->c, 1);
	fake_release_conn(fd);
}

/* --- passive side ------------------------------------------------------ */

static struct iw_cm_id *listen_id(struct kunit *test, int backlog)
{
	struct iw_cm_id *id = new_id(test);

	KUNIT_EXPECT_EQ(test, iw_cm_listen(id, backlog), 0);
	return id;
}

static void *cookie(int i)
{
	return (void *)(unsigned long)(0x1000 + i);
}

/* Kernel ULP style: accept inside CONNECT_REQUEST; ESTABLISHED follows. */
static void iwcm_accept_in_callback_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	struct consumer *c = fx->c;
	struct iw_cm_id *lid = listen_id(test, 4), *child;
	struct sockaddr_in *sin;

	c->accept_in_cb = true;
	fd->accept_upcalls_established = true;
	KUNIT_ASSERT_EQ(test, upcall_pdata(lid, IW_CM_EVENT_CONNECT_REQUEST, 0,
					   PDATA_LEN, cookie(1)), 0);
	KUNIT_ASSERT_TRUE(test, consumer_wait(c, 2));
	KUNIT_EXPECT_EQ(test, c->accept_in_cb_ret, 0);
	child = c->ev[0].id;
	KUNIT_EXPECT_PTR_NE(test, child, lid);
	KUNIT_EXPECT_EQ(test, c->ev[0].event, IW_CM_EVENT_CONNECT_REQUEST);
	KUNIT_EXPECT_PTR_EQ(test, c->ev[0].provider_data, cookie(1));
	KUNIT_EXPECT_PTR_EQ(test, child->provider_data, cookie(1));
	KUNIT_EXPECT_EQ(test, c->ev[0].pdata_len, PDATA_LEN);
	KUNIT_EXPECT_TRUE(test, all_bytes(c->ev[0].pdata, 0xa5, PDATA_LEN));
	/* The child: listener's local address, the peer's remote one. */
	KUNIT_EXPECT_EQ(test, memcmp(&child->local_addr, &lid->local_addr,
				     sizeof(child->local_addr)), 0);
	sin = (struct sockaddr_in *)&child->remote_addr;
	KUNIT_EXPECT_EQ(test, ntohs(sin->sin_port), 40000);
	/* ESTABLISHED came inside iw_accept, delivered after the request. */
	KUNIT_EXPECT_PTR_EQ(test, c->ev[1].id, child);
	KUNIT_EXPECT_EQ(test, c->ev[1].event, IW_CM_EVENT_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->n_accept), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->n_reject), 0);
	/* Answered once: no second answer. */
	KUNIT_EXPECT_EQ(test, iw_cm_reject(child, NULL, 0), -EINVAL);

	/* The peer closes. */
	fake_upcall(child, IW_CM_EVENT_DISCONNECT, 0);
	fake_upcall(child, IW_CM_EVENT_CLOSE, 0);
	KUNIT_ASSERT_TRUE(test, consumer_wait(c, 3));
	KUNIT_EXPECT_EQ(test, c->ev[2].event, IW_CM_EVENT_CLOSE);
	fake_release_conn(fd);
	iw_destroy_cm_id(child);
	iw_destroy_cm_id(lid);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->n_reject), 0);
}

/* rdma_ucm style: accept later, from another context. */
static void iwcm_accept_later_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	struct consumer *c = fx->c;
	struct iw_cm_id *lid = listen_id(test, 4), *child;
	struct iw_cm_conn_param param = { .qpn = 1 };
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RTR };
	int mask;

	KUNIT_ASSERT_EQ(test, upcall_pdata(lid, IW_CM_EVENT_CONNECT_REQUEST, 0,
					   0, cookie(2)), 0);
	KUNIT_ASSERT_TRUE(test, consumer_wait(c, 1));
	child = c->ev[0].id;
	KUNIT_EXPECT_EQ(test, c->ev[0].pdata_len, 0);
	KUNIT_EXPECT_EQ(test, iw_cm_init_qp_attr(child, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, iw_cm_accept(child, &param), 0);
	KUNIT_EXPECT_EQ(test, iw_cm_accept(child, &param), -EINVAL);
	/* Disconnect before ESTABLISHED applies once it is up. */
	KUNIT_EXPECT_EQ(test, iw_cm_disconnect(child, 1), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->base.qp[1].n_modify), 0);
	fake_upcall(child, IW_CM_EVENT_ESTABLISHED, 0);
	KUNIT_ASSERT_TRUE(test, consumer_wait(c, 2));
	KUNIT_EXPECT_EQ(test, c->ev[1].event, IW_CM_EVENT_ESTABLISHED);
	KUNIT_EXPECT_TRUE(test, wait_cond(atomic_read(&fd->base.qp[1].n_modify)));
	KUNIT_EXPECT_EQ(test, fd->base.qp[1].last_state, IB_QPS_ERR);
	fake_upcall(child, IW_CM_EVENT_CLOSE, 0);
	KUNIT_ASSERT_TRUE(test, consumer_wait(c, 3));
	fake_release_conn(fd);
	iw_destroy_cm_id(child);
	iw_destroy_cm_id(lid);
}

static void iwcm_reject_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	struct iw_cm_id *lid = listen_id(test, 4), *child;
	static const u8 pdata[] = "go away";

	KUNIT_ASSERT_EQ(test, upcall_pdata(lid, IW_CM_EVENT_CONNECT_REQUEST, 0,
					   0, cookie(3)), 0);
	KUNIT_ASSERT_TRUE(test, consumer_wait(fx->c, 1));
	child = fx->c->ev[0].id;
	KUNIT_EXPECT_EQ(test, iw_cm_reject(child, pdata, sizeof(pdata)), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->n_reject), 1);
	KUNIT_EXPECT_PTR_EQ(test, fd->reject_cookie, cookie(3));
	KUNIT_EXPECT_EQ(test, fd->reject_pdata_len, (int)sizeof(pdata));
	KUNIT_EXPECT_EQ(test, memcmp(fd->reject_pdata, pdata, sizeof(pdata)),
			0);
	KUNIT_EXPECT_EQ(test, iw_cm_reject(child, NULL, 0), -EINVAL);
	iw_destroy_cm_id(child);
	iw_destroy_cm_id(lid);
	/* Exactly one answer. */
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->n_reject), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->n_accept), 0);
}

/*
 * A consumer blocked in its listener's handler until an earlier
 * connection's QP is destroyed: the connection's CLOSE waits behind that
 * request, in order, but its QP reference must not, or a provider whose
 * destroy waits for every reference never returns.
 */
static void iwcm_close_behind_request_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	struct consumer *c = fx->c;
	struct iw_cm_id *lid = listen_id(test, 4), *child, *child2;
	struct iw_cm_conn_param param = { .qpn = 1 };
	struct completion gate;

	KUNIT_ASSERT_EQ(test, upcall_pdata(lid, IW_CM_EVENT_CONNECT_REQUEST, 0,
					   0, cookie(10)), 0);
	KUNIT_ASSERT_TRUE(test, consumer_wait(c, 1));
	child = c->ev[0].id;
	KUNIT_ASSERT_EQ(test, iw_cm_accept(child, &param), 0);
	fake_upcall(child, IW_CM_EVENT_ESTABLISHED, 0);
	KUNIT_ASSERT_TRUE(test, consumer_wait(c, 2));
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->base.qp[1].refs), 1);

	/* The listener's handler blocks on the next request... */
	init_completion(&gate);
	reinit_completion(&c->entered);
	c->gate = &gate;
	KUNIT_ASSERT_EQ(test, upcall_pdata(lid, IW_CM_EVENT_CONNECT_REQUEST, 0,
					   0, cookie(11)), 0);
	KUNIT_ASSERT_TRUE(test, wait_done(&c->entered, WAIT_MS));
	/* ...while the first connection closes: its QP comes back. */
	fake_upcall(child, IW_CM_EVENT_CLOSE, 0);
	KUNIT_EXPECT_TRUE(test, wait_cond(!atomic_read(&fd->base.qp[1].refs)));
	KUNIT_EXPECT_EQ(test, consumer_count(c), 2);

	c->gate = NULL;
	complete_all(&gate);
	KUNIT_ASSERT_TRUE(test, consumer_wait(c, 4));
	child2 = c->ev[2].id;
	KUNIT_EXPECT_EQ(test, c->ev[2].event, IW_CM_EVENT_CONNECT_REQUEST);
	KUNIT_EXPECT_PTR_EQ(test, c->ev[3].id, child);
	KUNIT_EXPECT_EQ(test, c->ev[3].event, IW_CM_EVENT_CLOSE);
	fake_release_conn(fd);
	iw_destroy_cm_id(child2);
	iw_destroy_cm_id(child);
	iw_destroy_cm_id(lid);
}

/* Handler refuses the request: iw_cm rejects it, once. */
static void iwcm_request_refused_by_handler_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	struct iw_cm_id *lid = listen_id(test, 4);

	fx->c->ret = -ECONNABORTED;
	KUNIT_ASSERT_EQ(test, upcall_pdata(lid, IW_CM_EVENT_CONNECT_REQUEST, 0,
					   0, cookie(4)), 0);
	KUNIT_ASSERT_TRUE(test, consumer_wait(fx->c, 1));
	KUNIT_EXPECT_TRUE(test, wait_cond(atomic_read(&fd->n_reject) == 1));
	KUNIT_EXPECT_PTR_EQ(test, fd->reject_cookie, cookie(4));
	fx->c->ret = 0;
	iw_destroy_cm_id(lid);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->n_reject), 1);
}

/* Destroyed without an answer: iw_cm rejects it, once. */
static void iwcm_unanswered_child_destroy_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	struct iw_cm_id *lid = listen_id(test, 4), *child;

	KUNIT_ASSERT_EQ(test, upcall_pdata(lid, IW_CM_EVENT_CONNECT_REQUEST, 0,
					   0, cookie(5)), 0);
	KUNIT_ASSERT_TRUE(test, consumer_wait(fx->c, 1));
	child = fx->c->ev[0].id;
	iw_destroy_cm_id(lid);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->n_reject), 0);
	iw_destroy_cm_id(child);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->n_reject), 1);
	KUNIT_EXPECT_PTR_EQ(test, fd->reject_cookie, cookie(5));
}

/* The provider fails the accept: it answered; no reject follows. */
static void iwcm_accept_provider_error_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	struct iw_cm_id *lid = listen_id(test, 4), *child;
	struct iw_cm_conn_param param = { .qpn = 1 }, bad = {
		.qpn = FAKE_BAD_QPN };

	KUNIT_ASSERT_EQ(test, upcall_pdata(lid, IW_CM_EVENT_CONNECT_REQUEST, 0,
					   0, cookie(6)), 0);
	KUNIT_ASSERT_TRUE(test, consumer_wait(fx->c, 1));
	child = fx->c->ev[0].id;
	/* No such QP: not an answer, the request still waits. */
	KUNIT_EXPECT_EQ(test, iw_cm_accept(child, &bad), -EINVAL);
	fd->accept_ret = -ECONNRESET;
	fd->accept_upcalls_established = true;
	KUNIT_EXPECT_EQ(test, iw_cm_accept(child, &param), -ECONNRESET);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->base.qp[1].refs), 0);
	KUNIT_EXPECT_EQ(test, iw_cm_reject(child, NULL, 0), -EINVAL);
	iw_destroy_cm_id(child);
	iw_destroy_cm_id(lid);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->n_accept), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->n_reject), 0);
	/* The ESTABLISHED of the failed accept was never delivered. */
	consumer_expect_quiet(test, fx->c, 1);
}

/* Accepted, but the peer left before ESTABLISHED: CLOSE ends it. */
static void iwcm_close_before_established_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	struct iw_cm_id *lid = listen_id(test, 4), *child;
	struct iw_cm_conn_param param = { .qpn = 1 };

	KUNIT_ASSERT_EQ(test, upcall_pdata(lid, IW_CM_EVENT_CONNECT_REQUEST, 0,
					   0, cookie(7)), 0);
	KUNIT_ASSERT_TRUE(test, consumer_wait(fx->c, 1));
	child = fx->c->ev[0].id;
	KUNIT_ASSERT_EQ(test, iw_cm_accept(child, &param), 0);
	fake_upcall(child, IW_CM_EVENT_DISCONNECT, 0);
	fake_upcall(child, IW_CM_EVENT_CLOSE, 0);
	KUNIT_ASSERT_TRUE(test, consumer_wait(fx->c, 2));
	KUNIT_EXPECT_EQ(test, fx->c->ev[1].event, IW_CM_EVENT_CLOSE);
	fake_release_conn(fd);
	iw_destroy_cm_id(child);
	iw_destroy_cm_id(lid);
}

/* --- backlog ----------------------------------------------------------- */

static void iwcm_backlog_exhaustion_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	struct consumer *c = fx->c;
	struct completion gate;
	struct iw_cm_id *lid = listen_id(test, 2);
	int i;

	init_completion(&gate);
	c->gate = &gate;
	c->ret = -ECONNREFUSED;		/* reject them all */
	KUNIT_ASSERT_EQ(test, upcall_pdata(lid, IW_CM_EVENT_CONNECT_REQUEST, 0,
					   0, cookie(10)), 0);
	/* Request 1 is in its callback: its slot stays taken. */
	KUNIT_ASSERT_TRUE(test, wait_done(&c->entered, WAIT_MS));
	KUNIT_EXPECT_EQ(test, upcall_pdata(lid, IW_CM_EVENT_CONNECT_REQUEST, 0,
					   0, cookie(11)), 0);
	/* The bound is hit: a clear error, the provider drops it. */
	KUNIT_EXPECT_EQ(test, upcall_pdata(lid, IW_CM_EVENT_CONNECT_REQUEST, 0,
					   0, cookie(12)), -ENOMEM);
	complete_all(&gate);
	KUNIT_ASSERT_TRUE(test, consumer_wait(c, 2));
	KUNIT_EXPECT_TRUE(test, wait_cond(atomic_read(&fd->n_reject) == 2));
	/* Slots come back once the callbacks returned. */
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_TRUE(test,
				  wait_cond(!upcall_pdata(lid,
							  IW_CM_EVENT_CONNECT_REQUEST,
							  0, 0, cookie(13 + i))));
	KUNIT_ASSERT_TRUE(test, consumer_wait(c, 4));
	KUNIT_EXPECT_TRUE(test, wait_cond(atomic_read(&fd->n_reject) == 4));
	iw_destroy_cm_id(lid);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->n_reject), 4);
}

/* --- atomic context ---------------------------------------------------- */

struct timer_upcall {
	struct timer_list timer;
	struct iw_cm_id *id;
	int event;
	void *cookie;
	int ret;
	bool in_irq_ctx;
	struct completion done;
};

static void timer_upcall_fn(struct timer_list *t)
{
	struct timer_upcall *tu = from_timer(tu, t, timer);
	u8 buf[32];
	struct iw_cm_event ev = {
		.event = tu->event, .private_data = buf,
		.private_data_len = sizeof(buf), .provider_data = tu->cookie,
	};

	memset(buf, 0xa5, sizeof(buf));
	set_addr(&ev.local_addr, IP_A, 7000);
	set_addr(&ev.remote_addr, IP_B, 40001);
	tu->in_irq_ctx = in_softirq();
	tu->ret = tu->id->event_handler(tu->id, &ev);
	memset(buf, 0, sizeof(buf));
	complete(&tu->done);
}

static int upcall_from_timer(struct iw_cm_id *id, int event, void *cookie,
			     bool *softirq)
{
	struct timer_upcall tu = { .id = id, .event = event,
				   .cookie = cookie };

	init_completion(&tu.done);
	timer_setup_on_stack(&tu.timer, timer_upcall_fn, 0);
	mod_timer(&tu.timer, jiffies + 1);
	wait_for_completion(&tu.done);
	del_timer_sync(&tu.timer);
	destroy_timer_on_stack(&tu.timer);
	*softirq = tu.in_irq_ctx;
	return tu.ret;
}

/* A lock of the provider's, held around an upcall. */
static DEFINE_SPINLOCK(provider_lock);

static void iwcm_atomic_upcall_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	struct consumer *c = fx->c;
	struct iw_cm_id *lid = listen_id(test, 4), *child;
	struct iw_cm_conn_param param = { .qpn = 1 };
	unsigned long flags;
	bool softirq = false;
	int ret;

	/* A request from softirq (a socket callback, a timer). */
	KUNIT_ASSERT_EQ(test, upcall_from_timer(lid,
						IW_CM_EVENT_CONNECT_REQUEST,
						cookie(20), &softirq), 0);
	KUNIT_EXPECT_TRUE(test, softirq);
	KUNIT_ASSERT_TRUE(test, consumer_wait(c, 1));
	child = c->ev[0].id;
	KUNIT_EXPECT_EQ(test, c->ev[0].pdata_len, 32);
	KUNIT_EXPECT_TRUE(test, all_bytes(c->ev[0].pdata, 0xa5, 32));
	KUNIT_ASSERT_EQ(test, iw_cm_accept(child, &param), 0);

	/* ESTABLISHED with a provider spinlock held and IRQs off. */
	spin_lock_irqsave(&provider_lock, flags);
	ret = upcall_pdata(child, IW_CM_EVENT_ESTABLISHED, 0, 0, NULL);
	spin_unlock_irqrestore(&provider_lock, flags);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_ASSERT_TRUE(test, consumer_wait(c, 2));
	KUNIT_EXPECT_EQ(test, c->ev[1].event, IW_CM_EVENT_ESTABLISHED);

	/* CLOSE from softirq, and the provider's last reference there too. */
	KUNIT_EXPECT_EQ(test, upcall_from_timer(child, IW_CM_EVENT_CLOSE,
						NULL, &softirq), 0);
	KUNIT_ASSERT_TRUE(test, consumer_wait(c, 3));
	KUNIT_EXPECT_EQ(test, c->ev[2].event, IW_CM_EVENT_CLOSE);
	iw_destroy_cm_id(child);
	local_irq_save(flags);
	fake_release_conn(fd);	/* frees the child */
	local_irq_restore(flags);
	iw_destroy_cm_id(lid);
}

/* --- provider contract breaches ---------------------------------------- */

struct connector {
	struct iw_cm_id *id;
	int ret;
	struct completion done;
};

static int connector_fn(void *arg)
{
	struct connector *cn = arg;

	cn->ret = connect_id(cn->id);
	complete(&cn->done);
	return 0;
}

static void iwcm_unexpected_events_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	struct consumer *c = fx->c;
	struct iw_cm_id *id = new_id(test), *id2 = new_id(test);
	struct iw_cm_event *ev;
	struct completion gate;
	struct connector cn;
	struct task_struct *t;

	/* Unknown event, request on a non-listener. */
	ev = kunit_kzalloc(test, sizeof(*ev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ev);
	ev->event = 99;
	KUNIT_EXPECT_EQ(test, id->event_handler(id, ev), -EINVAL);
	KUNIT_EXPECT_EQ(test, upcall_pdata(id, IW_CM_EVENT_CONNECT_REQUEST, 0,
					   0, NULL), -ECONNREFUSED);
	/* Events with no connection: logged and dropped. */
	KUNIT_EXPECT_EQ(test, upcall_pdata(id, IW_CM_EVENT_ESTABLISHED, 0, 0,
					   NULL), 0);
	KUNIT_EXPECT_EQ(test, upcall_pdata(id, IW_CM_EVENT_CONNECT_REPLY, 0, 0,
					   NULL), 0);
	consumer_expect_quiet(test, c, 0);

	/* CLOSE instead of CONNECT_REPLY: the consumer is not left waiting. */
	KUNIT_ASSERT_EQ(test, connect_id(id), 0);
	fake_upcall(id, IW_CM_EVENT_ESTABLISHED, 0);
	fake_upcall(id, IW_CM_EVENT_CLOSE, 0);
	KUNIT_ASSERT_TRUE(test, consumer_wait(c, 1));
	KUNIT_EXPECT_EQ(test, c->ev[0].event, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_EXPECT_EQ(test, c->ev[0].status, -ECONNRESET);
	KUNIT_EXPECT_EQ(test, c->ev[0].qp_refs, 0);
	fake_release_conn(fd);
	iw_destroy_cm_id(id);

	/*
	 * The same event twice while the first is queued (here: held while
	 * iw_connect runs): delivered once.
	 */
	init_completion(&gate);
	fd->connect_gate = &gate;
	cn.id = id2;
	init_completion(&cn.done);
	/* earlier connects of the test completed it already */
	reinit_completion(&fd->connect_entered);
	t = kthread_run(connector_fn, &cn, "iwcm_kunit_connect");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_ASSERT_TRUE(test,
			  wait_done(&fd->connect_entered, WAIT_MS));
	fake_upcall(id2, IW_CM_EVENT_CONNECT_REPLY, -ECONNREFUSED);
	fake_upcall(id2, IW_CM_EVENT_CONNECT_REPLY, -ECONNREFUSED);
	complete_all(&gate);
	KUNIT_ASSERT_TRUE(test,
			  wait_done(&cn.done, WAIT_MS));
	KUNIT_EXPECT_EQ(test, cn.ret, 0);
	fd->connect_gate = NULL;
	KUNIT_ASSERT_TRUE(test, consumer_wait(c, 2));
	KUNIT_EXPECT_EQ(test, c->ev[1].status, -ECONNREFUSED);
	consumer_expect_quiet(test, c, 2);
	fake_release_conn(fd);
	iw_destroy_cm_id(id2);
}

/* --- destroy racing events --------------------------------------------- */

struct destroyer {
	struct iw_cm_id *id;
	struct completion done;
};

static int destroyer_fn(void *arg)
{
	struct destroyer *d = arg;

	iw_destroy_cm_id(d->id);
	complete(&d->done);
	return 0;
}

/*
 * For each connection event: destroy while its callback runs (destroy
 * waits for it), then the provider reports it again after destroy (it
 * goes nowhere).  No callback after destroy returns.
 */
static void iwcm_destroy_during_callback_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	struct consumer *c = fx->c;
	static const int events[] = { IW_CM_EVENT_CONNECT_REPLY,
				      IW_CM_EVENT_CLOSE };
	struct destroyer d;
	struct completion gate;
	struct task_struct *t;
	struct iw_cm_id *id;
	int i, n;

	for (i = 0; i < ARRAY_SIZE(events); i++) {
		id = new_id(test);
		if (events[i] == IW_CM_EVENT_CLOSE)
			establish_active(test, id);
		else
			KUNIT_ASSERT_EQ(test, connect_id(id), 0);
		n = consumer_count(c);
		init_completion(&gate);
		reinit_completion(&c->entered);
		c->gate = &gate;
		fake_upcall(id, events[i], 0);
		KUNIT_ASSERT_TRUE(test, wait_done(&c->entered, WAIT_MS));

		d.id = id;
		init_completion(&d.done);
		t = kthread_run(destroyer_fn, &d, "iwcm_kunit_destroy");
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
		/* Destroy waits for the running callback. */
		KUNIT_EXPECT_FALSE(test, wait_done(&d.done, 100));
		complete_all(&gate);
		KUNIT_ASSERT_TRUE(test, wait_done(&d.done, WAIT_MS));
		c->gate = NULL;
		KUNIT_EXPECT_EQ(test, consumer_count(c), n + 1);
		/* The provider still holds the id and reports more. */
		fake_upcall(id, IW_CM_EVENT_DISCONNECT, 0);
		fake_upcall(id, IW_CM_EVENT_CLOSE, 0);
		consumer_expect_quiet(test, c, n + 1);
		fake_release_conn(fd);
	}
}

/* Every event type reported after destroy: taken, never delivered. */
static void iwcm_event_after_destroy_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	struct iw_cm_id *id = new_id(test), *lid = listen_id(test, 4);
	int e;

	establish_active(test, id);
	fd->modify_upcalls_close = true;	/* CLOSE inside destroy */
	iw_destroy_cm_id(id);
	fd->modify_upcalls_close = false;
	KUNIT_EXPECT_EQ(test, fd->base.qp[1].last_state, IB_QPS_ERR);
	for (e = IW_CM_EVENT_CONNECT_REPLY; e <= IW_CM_EVENT_CLOSE; e++)
		KUNIT_EXPECT_EQ(test, upcall_pdata(id, e, 0, 8, NULL), 0);
	KUNIT_EXPECT_EQ(test, upcall_pdata(id, IW_CM_EVENT_CONNECT_REQUEST, 0,
					   0, NULL), -ECONNREFUSED);
	fake_release_conn(fd);	/* the last reference: freed now */

	/* A listener: the provider's listen reference goes in destroy. */
	iw_destroy_cm_id(lid);
	consumer_expect_quiet(test, fx->c, 1);
}

/* Requests queued behind a slow callback when the listener goes. */
static void iwcm_listener_destroy_with_queue_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	struct consumer *c = fx->c;
	struct iw_cm_id *lid = listen_id(test, 8);
	struct completion gate;
	struct task_struct *t;
	struct destroyer d;
	int i;

	init_completion(&gate);
	c->gate = &gate;
	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, upcall_pdata(lid,
						   IW_CM_EVENT_CONNECT_REQUEST,
						   0, 0, cookie(30 + i)), 0);
	KUNIT_ASSERT_TRUE(test, wait_done(&c->entered, WAIT_MS));
	d.id = lid;
	init_completion(&d.done);
	t = kthread_run(destroyer_fn, &d, "iwcm_kunit_destroy");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	/* Disconnect fails on a listener, not on an id being destroyed. */
	KUNIT_EXPECT_TRUE(test, wait_cond(!iw_cm_disconnect(lid, 0)));
	c->ret = -ECONNABORTED;		/* as rdma_cm does for a dying listener */
	complete_all(&gate);
	KUNIT_ASSERT_TRUE(test, wait_done(&d.done, WAIT_MS));
	/* The one in its callback, and the three queued: one reject each. */
	KUNIT_EXPECT_EQ(test, consumer_count(c), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->n_reject), 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->n_destroy_listen), 1);
	consumer_expect_quiet(test, c, 1);
}

/* Destroy waits for a downcall in the provider. */
static void iwcm_destroy_during_connect_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	struct iw_cm_id *id = new_id(test);
	struct completion gate;
	struct connector cn;
	struct destroyer d;
	struct task_struct *t;

	init_completion(&gate);
	fd->connect_gate = &gate;
	cn.id = id;
	init_completion(&cn.done);
	/* earlier connects of the test completed it already */
	reinit_completion(&fd->connect_entered);
	t = kthread_run(connector_fn, &cn, "iwcm_kunit_connect");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_ASSERT_TRUE(test,
			  wait_done(&fd->connect_entered, WAIT_MS));
	d.id = id;
	init_completion(&d.done);
	t = kthread_run(destroyer_fn, &d, "iwcm_kunit_destroy");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_EXPECT_FALSE(test,
			   wait_done(&d.done, 100));
	complete_all(&gate);
	KUNIT_ASSERT_TRUE(test,
			  wait_done(&d.done, WAIT_MS));
	KUNIT_ASSERT_TRUE(test,
			  wait_done(&cn.done, WAIT_MS));
	KUNIT_EXPECT_EQ(test, cn.ret, 0);
	fd->connect_gate = NULL;
	/* The setup was aborted; its outcome goes nowhere. */
	KUNIT_EXPECT_EQ(test, fd->base.qp[1].last_state, IB_QPS_ERR);
	fake_upcall(id, IW_CM_EVENT_CONNECT_REPLY, -ECONNRESET);
	fake_release_conn(fd);
	consumer_expect_quiet(test, fx->c, 0);
}

/* Upcalls from another CPU while the id is destroyed. */
struct storm {
	struct iw_cm_id *id;
	atomic_t stop;
	struct completion done;
};

static int storm_fn(void *arg)
{
	struct storm *s = arg;
	int e = IW_CM_EVENT_CONNECT_REPLY;

	while (!atomic_read(&s->stop)) {
		fake_upcall(s->id, e, 0);
		e = e == IW_CM_EVENT_CLOSE ? IW_CM_EVENT_CONNECT_REPLY : e + 1;
		cond_resched();
	}
	complete(&s->done);
	return 0;
}

static void iwcm_destroy_storm_test(struct kunit *test)
{
	struct iwcm_fixture *fx = test->priv;
	struct fake_dev *fd = fx->fd;
	struct iw_cm_id *id = new_id(test);
	struct task_struct *t;
	struct storm s;
	int n;

	establish_active(test, id);
	s.id = id;
	atomic_set(&s.stop, 0);
	init_completion(&s.done);
	t = kthread_run(storm_fn, &s, "iwcm_kunit_storm");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	msleep(30);
	iw_destroy_cm_id(id);
	n = consumer_count(fx->c);
	msleep(30);
	atomic_set(&s.stop, 1);
	wait_for_completion(&s.done);
	consumer_expect_quiet(test, fx->c, n);
	fake_release_conn(fd);
}

static struct kunit_case iwcm_fake_cases[] = {
	KUNIT_CASE(iwcm_create_destroy_test),
	KUNIT_CASE(iwcm_init_qp_attr_test),
	KUNIT_CASE(iwcm_listen_test),
	KUNIT_CASE(iwcm_listen_backlog_test),
	KUNIT_CASE(iwcm_listen_provider_error_test),
	KUNIT_CASE(iwcm_connect_established_close_test),
	KUNIT_CASE(iwcm_disconnect_abrupt_test),
	KUNIT_CASE(iwcm_connect_rejected_test),
	KUNIT_CASE(iwcm_connect_provider_error_test),
	KUNIT_CASE(iwcm_connect_reply_in_downcall_test),
	KUNIT_CASE(iwcm_disconnect_pending_test),
	KUNIT_CASE(iwcm_handler_destroys_test),
	KUNIT_CASE(iwcm_accept_in_callback_test),
	KUNIT_CASE(iwcm_accept_later_test),
	KUNIT_CASE(iwcm_reject_test),
	KUNIT_CASE(iwcm_close_behind_request_test),
	KUNIT_CASE(iwcm_request_refused_by_handler_test),
	KUNIT_CASE(iwcm_unanswered_child_destroy_test),
	KUNIT_CASE(iwcm_accept_provider_error_test),
	KUNIT_CASE(iwcm_close_before_established_test),
	KUNIT_CASE(iwcm_backlog_exhaustion_test),
	KUNIT_CASE(iwcm_atomic_upcall_test),
	KUNIT_CASE(iwcm_unexpected_events_test),
	KUNIT_CASE(iwcm_destroy_during_callback_test),
	KUNIT_CASE(iwcm_event_after_destroy_test),
	KUNIT_CASE(iwcm_listener_destroy_with_queue_test),
	KUNIT_CASE(iwcm_destroy_during_connect_test),
	KUNIT_CASE(iwcm_destroy_storm_test),
	{}
};

static struct kunit_suite iwcm_fake_suite = {
	.name = "iw_cm_fake_provider",
	.init = iwcm_fake_init,
	.exit = iwcm_fake_exit,
	.test_cases = iwcm_fake_cases,
};

kunit_test_suites(&iwcm_msg_suite, &iwcm_fake_suite);

MODULE_AUTHOR("rdma_cm project");
MODULE_DESCRIPTION("KUnit tests for iw_cm");
MODULE_LICENSE("Dual BSD/GPL");
