// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The host-integrated connection model (include/rdma/iw_host.h): TCP on
 * kernel sockets and the MPA exchange, done here for the providers that
 * opt in, which then get an established, negotiated stream.
 *
 * An endpoint is one socket on its way to a provider: a listener's, a
 * connecting one, or an accepted one whose MPA request is awaited or
 * whose CONNECT_REQUEST waits for the consumer's answer.  Everything an
 * endpoint does runs in its work item or in a downcall, under its mutex;
 * the socket callbacks and the timer only queue the work.
 *
 * References on an endpoint: one while it is open (dropped by
 * iwh_close()), one per queued run of its work, one per passive endpoint
 * on its listener.
 */
#include <linux/errno.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/rculist.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>
#include <rdma/iw_host.h>

#include "iwcm_mpa.h"
#include "iwcm_priv.h"

/* A device that opted in. */
struct iwh_dev {
	struct list_head node;		/* on iwh_devs, RCU */
	struct ib_device *device;
	const struct iw_host_ops *ops;
	spinlock_t lock;		/* eps, every ep's children list */
	struct list_head eps;
	wait_queue_head_t wait;		/* eps emptied */
	struct rcu_head rcu;
};

static LIST_HEAD(iwh_devs);
static DEFINE_SPINLOCK(iwh_devs_lock);

enum iwh_state {
	IWH_LISTEN,
	IWH_CONNECTING,		/* active: TCP handshake */
	IWH_AWAIT_REP,		/* active: request sent */
	IWH_AWAIT_REQ,		/* passive: request not all in */
	IWH_RECVD_REQ,		/* passive: CONNECT_REQUEST delivered */
	IWH_CLOSED,		/* handed over or closed */
};

/* Bits of iwh_ep.flags. */
enum {
	IWH_TIMEDOUT,
	IWH_KILL,
};

struct iwh_ep {
	refcount_t ref;
	struct mutex mutex;		/* state and everything below */
	enum iwh_state state;
	unsigned long flags;
	struct iwh_dev *hdev;
	struct list_head dev_node;	/* on hdev->eps */
	struct socket *sock;
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
	struct work_struct work;
	struct timer_list timer;

	/* active: the connecting id (referenced) and its QP (iw_add_ref) */
	struct iw_cm_id *cm_id;
	struct ib_qp *qp;
	int req_len;			/* the request, encoded in buf */
	int connect_err;		/* kernel_connect()'s, to report */

	/* listener: its id (iw_cm keeps it until destroy_listen) */
	struct iw_cm_id *listen_id;
	struct list_head children;	/* passive eps not delivered yet */
	int nr_children;
	int backlog;

	/* passive, until delivered: its listener (referenced) */
	struct iwh_ep *listener;
	struct list_head child_node;

	struct iwcm_mpa_local me;
	struct iwcm_mpa_frame req;	/* as sent (active), as received */
	size_t got, need;
	u8 buf[IWCM_MPA_FRAME_MAX];
};

static struct workqueue_struct *iwh_wq;

/*
 * A listener's mutex is taken under a passive endpoint's (to deliver
 * its request), never the other way round: a class of its own.
 */
static struct lock_class_key iwh_listener_key;

static void iwh_work(struct work_struct *work);
static void iwh_timeout(struct timer_list *t);

static struct iwh_dev *iwh_dev_find(struct ib_device *device)
{
	struct iwh_dev *hdev, *found = NULL;

	/* Downcalls end before the device unregisters: no reference. */
	rcu_read_lock();
	list_for_each_entry_rcu(hdev, &iwh_devs, node) {
		if (hdev->device == device) {
			found = hdev;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

static struct iwh_ep *iwh_ep_alloc(struct iwh_dev *hdev, enum iwh_state state)
{
	struct iwh_ep *ep = kzalloc(sizeof(*ep), GFP_KERNEL);

	if (!ep)
		return NULL;
	refcount_set(&ep->ref, 1);
	mutex_init(&ep->mutex);
	ep->state = state;
	ep->hdev = hdev;
	INIT_LIST_HEAD(&ep->children);
	INIT_LIST_HEAD(&ep->child_node);
	INIT_WORK(&ep->work, iwh_work);
	timer_setup(&ep->timer, iwh_timeout, 0);
	ep->need = IWCM_MPA_HDR_LEN;
	spin_lock(&hdev->lock);
	list_add_tail(&ep->dev_node, &hdev->eps);
	spin_unlock(&hdev->lock);
	return ep;
}

static void iwh_ep_put(struct iwh_ep *ep)
{
	struct iwh_dev *hdev = ep->hdev;
	bool empty;

	if (!refcount_dec_and_test(&ep->ref))
		return;
	spin_lock(&hdev->lock);
	list_del(&ep->dev_node);
	empty = list_empty(&hdev->eps);
	spin_unlock(&hdev->lock);
	mutex_destroy(&ep->mutex);
	kfree(ep);
	if (empty)
		wake_up(&hdev->wait);
}

/*
 * Queue the work, with a reference.  From socket callbacks and the
 * timer the open reference cannot go meanwhile: iwh_sock_detach() and
 * del_timer_sync() come first.
 */
static void iwh_queue(struct iwh_ep *ep)
{
	refcount_inc(&ep->ref);
	if (!queue_work(iwh_wq, &ep->work))
		iwh_ep_put(ep);
}

/*
 * Have the work close @ep.  Under hdev->lock, walking a list: not
 * iwh_queue(), as no put may happen under the lock (and none would be
 * the last).  An endpoint whose last put is waiting for the lock to
 * leave hdev->eps needs nothing.
 */
static void iwh_kill(struct iwh_ep *ep)
{
	lockdep_assert_held(&ep->hdev->lock);
	if (!refcount_inc_not_zero(&ep->ref))
		return;
	set_bit(IWH_KILL, &ep->flags);
	if (!queue_work(iwh_wq, &ep->work))
		refcount_dec(&ep->ref);
}

/*
 * sk_user_data is tagged "no copy": a connection a listener's socket
 * spawns must not inherit the listener's endpoint (it does inherit the
 * callbacks, which then find no endpoint and do nothing).
 */
static struct iwh_ep *iwh_sk_ep(const struct sock *sk)
{
	return (struct iwh_ep *)((uintptr_t)sk->sk_user_data &
				 SK_USER_DATA_PTRMASK);
}

static void iwh_sk_wake(struct sock *sk)
{
	struct iwh_ep *ep;

	read_lock_bh(&sk->sk_callback_lock);
	ep = iwh_sk_ep(sk);
	if (ep)
		iwh_queue(ep);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void iwh_timeout(struct timer_list *t)
{
	struct iwh_ep *ep = from_timer(ep, t, timer);

	set_bit(IWH_TIMEDOUT, &ep->flags);
	iwh_queue(ep);
}

static void iwh_sock_attach(struct iwh_ep *ep)
{
	struct sock *sk = ep->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	if (ep->listener) {
		/* The socket's own callbacks, not the ones it inherited. */
		ep->saved_data_ready = ep->listener->saved_data_ready;
		ep->saved_state_change = ep->listener->saved_state_change;
	} else {
		ep->saved_data_ready = sk->sk_data_ready;
		ep->saved_state_change = sk->sk_state_change;
	}
	sk->sk_user_data = (void *)((uintptr_t)ep | SK_USER_DATA_NOCOPY);
	sk->sk_data_ready = iwh_sk_wake;
	sk->sk_state_change = iwh_sk_wake;
	write_unlock_bh(&sk->sk_callback_lock);
}

/* The socket's own callbacks back: nothing queues the work any more. */
static void iwh_sock_detach(struct iwh_ep *ep)
{
	struct sock *sk = ep->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	if (iwh_sk_ep(sk) == ep) {
		sk->sk_user_data = NULL;
		sk->sk_data_ready = ep->saved_data_ready;
		sk->sk_state_change = ep->saved_state_change;
	}
	write_unlock_bh(&sk->sk_callback_lock);
}

/* Off its listener's list of connections waiting for a request. */
static void iwh_unlink_child(struct iwh_ep *ep)
{
	struct iwh_ep *l = ep->listener;

	if (!l)
		return;
	spin_lock(&ep->hdev->lock);
	list_del_init(&ep->child_node);
	l->nr_children--;
	spin_unlock(&ep->hdev->lock);
	ep->listener = NULL;
	iwh_ep_put(l);
}

/*
 * Close an endpoint: its socket (unless a provider took it), its
 * references on the active id and QP, its place on a listener.  Under
 * ep->mutex; the work may still be queued and finds the state CLOSED.
 */
static void iwh_close(struct iwh_ep *ep)
{
	struct ib_device *device = ep->hdev->device;

	if (ep->state == IWH_CLOSED)
		return;
	ep->state = IWH_CLOSED;
	if (ep->sock) {
		iwh_sock_detach(ep);
		sock_release(ep->sock);
		ep->sock = NULL;
	}
	del_timer_sync(&ep->timer);
	iwh_unlink_child(ep);
	if (ep->qp) {
		device->ops.iw_rem_ref(ep->qp);
		ep->qp = NULL;
	}
	if (ep->cm_id) {
		if (ep->cm_id->provider_data == ep)
			ep->cm_id->provider_data = NULL;
		ep->cm_id->rem_ref(ep->cm_id);
		ep->cm_id = NULL;
	}
	iwh_ep_put(ep);
}

/* Undo a downcall's endpoint that never got going: no callbacks yet. */
static void iwh_ep_abort(struct iwh_ep *ep)
{
	if (ep->sock)
		sock_release(ep->sock);
	ep->sock = NULL;
	ep->state = IWH_CLOSED;
	iwh_ep_put(ep);
}

static int iwh_addr_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					   sizeof(struct sockaddr_in);
}

/* The provider's netdev, held, or NULL if it says none. */
static struct net_device *iwh_netdev(struct ib_device *device)
{
	return device->ops.get_netdev ? device->ops.get_netdev(device, 1) :
					NULL;
}

/* The network namespace of the device's netdev: where its TCP runs. */
static struct net *iwh_net(struct ib_device *device)
{
	struct net_device *ndev = iwh_netdev(device);
	struct net *net = &init_net;

	if (ndev) {
		net = dev_net(ndev);
		dev_put(ndev);
	}
	return net;
}

static bool iwh_addr_any(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ((const struct sockaddr_in *)ss)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	return ipv6_addr_any(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

/*
 * A wildcard listener takes the connections of its device's netdev
 * only: rdma_cm listens on the wildcard address once per device, and
 * another provider (siw, or a second host-model device) may hold the
 * same port on its own netdev.
 */
static int iwh_bind_dev(struct ib_device *device, struct socket *sock,
			const struct sockaddr_storage *laddr)
{
	struct net_device *ndev;
	int ret;

	if (!iwh_addr_any(laddr))
		return 0;
	ndev = iwh_netdev(device);
	if (!ndev)
		return 0;
	ret = sock_bindtoindex(sock->sk, ndev->ifindex, true);
	dev_put(ndev);
	return ret;
}

/*
 * The id's type of service (rdma_set_service_type()) is the IPv4 TOS
 * byte or the IPv6 traffic class: both carry the DSCP in their upper six
 * bits (RFC 2474), and the ECN bits stay TCP's.  An IPv6 socket gets the
 * TOS too, for IPv4-mapped peers.  Streams a listener accepts inherit
 * its socket's.
 */
static void iwh_sock_set_tos(struct sock *sk, int family, u8 tos)
{
	ip_sock_set_tos(sk, tos);
#if IS_ENABLED(CONFIG_IPV6)
	if (family == AF_INET6) {
		struct ipv6_pinfo *np = inet6_sk(sk);

		lock_sock(sk);
		np->tclass = (tos & ~INET_ECN_MASK) |
			     (np->tclass & INET_ECN_MASK);
		release_sock(sk);
	}
#endif
}

/*
 * A socket of the caller's, not the kernel's: the security module
 * checks and the bind privilege check apply to whoever asked for the
 * connection or listener (rdma_cm calls with the owner's credentials),
 * and the socket holds its namespace.  The namespace is the device's:
 * rdma_cm gives an iWARP device only ids of its netdev's namespace.
 */
static int iwh_sock_create(struct iw_cm_id *cm_id, int family,
			   struct socket **sockp)
{
	int ret;

	ret = __sock_create(iwh_net(cm_id->device), family, SOCK_STREAM,
			    IPPROTO_TCP, sockp, 0);
	if (ret)
		return ret;
	/* MPA frames are small, and RDMA wants them out now. */
	tcp_sock_set_nodelay((*sockp)->sk);
	if (cm_id->tos_set)
		iwh_sock_set_tos((*sockp)->sk, family, cm_id->tos);
	return 0;
}

static int iwh_send(struct iwh_ep *ep, const u8 *buf, int len)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	int ret;

	/* At most 532 bytes into a fresh socket's send buffer: no wait. */
	ret = kernel_sendmsg(ep->sock, &msg, &iov, 1, len);
	if (ret < 0)
		return ret;
	return ret == len ? 0 : -ECONNRESET;
}

static int iwh_send_frame(struct iwh_ep *ep, enum iwcm_mpa_kind kind,
			  const struct iwcm_mpa_frame *f)
{
	u8 *buf = kmalloc(IWCM_MPA_FRAME_MAX, GFP_KERNEL);
	int len, ret;

	if (!buf)
		return -ENOMEM;
	len = iwcm_mpa_encode(buf, IWCM_MPA_FRAME_MAX, kind, f);
	ret = len < 0 ? len : iwh_send(ep, buf, len);
	kfree(buf);
	return ret;
}

/*
 * Read what is in of the frame, never a byte past it (the provider reads
 * on from there).  Return: 1 with the whole frame in ep->buf, 0 to wait
 * for more, or an error: the socket's, -ECONNRESET if the peer closed,
 * the framing errors of iwcm_mpa_frame_len().
 */
static int iwh_recv_frame(struct iwh_ep *ep, enum iwcm_mpa_kind kind)
{
	struct msghdr msg = {};
	struct kvec iov;
	int n, len;

	while (ep->got < ep->need) {
		iov.iov_base = ep->buf + ep->got;
		iov.iov_len = ep->need - ep->got;
		n = kernel_recvmsg(ep->sock, &msg, &iov, 1, iov.iov_len,
				   MSG_DONTWAIT);
		if (n == -EAGAIN)
			return 0;
		if (n < 0)
			return n;
		if (n == 0)
			return -ECONNRESET;
		ep->got += n;
		len = iwcm_mpa_frame_len(ep->buf, ep->got, kind);
		if (len == -EAGAIN)
			continue;
		if (len < 0)
			return len;
		ep->need = len;
	}
	return 1;
}

static void iwh_addrs(struct iwh_ep *ep, struct iw_cm_event *ev)
{
	kernel_getsockname(ep->sock, (struct sockaddr *)&ev->local_addr);
	kernel_getpeername(ep->sock, (struct sockaddr *)&ev->remote_addr);
}

static u8 iwh_rtr_mpa(u8 host)
{
	return (host & IW_HOST_RTR_SEND ? IWCM_MPA_RTR_SEND : 0) |
	       (host & IW_HOST_RTR_WRITE ? IWCM_MPA_RTR_WRITE : 0) |
	       (host & IW_HOST_RTR_READ ? IWCM_MPA_RTR_READ : 0);
}

static u8 iwh_rtr_host(u8 mpa)
{
	return (mpa & IWCM_MPA_RTR_SEND ? IW_HOST_RTR_SEND : 0) |
	       (mpa & IWCM_MPA_RTR_WRITE ? IW_HOST_RTR_WRITE : 0) |
	       (mpa & IWCM_MPA_RTR_READ ? IW_HOST_RTR_READ : 0);
}

/* This end's side of the negotiation, from the consumer's parameters. */
static void iwh_local(struct iwh_ep *ep, const struct iw_cm_conn_param *p,
		      bool initiator)
{
	const struct iw_host_ops *ops = ep->hdev->ops;
	struct ib_device *device = ep->hdev->device;

	u8 rev = initiator ? iwcm_mpa_version() : 2;
	u32 ird_max = min_t(u32, max_t(int, device->attrs.max_qp_rd_atom, 0),
			    IWCM_MPA_IRD_ORD_MAX);

	/*
	 * Revision 1 has no RTR: no peer-to-peer start.  The IRD offered is
	 * one the device holds: the provider terminates a peer that keeps
	 * more READs outstanding than it was told it may.
	 */
	ep->me = (struct iwcm_mpa_local){
		.rev = rev,
		.crc = ops->crc,
		.large = ops->large_fpdu,
		.p2p = initiator && ops->p2p && rev == 2,
		.rtr = iwh_rtr_mpa(initiator ? ops->rtr_send : ops->rtr_recv),
		.ird = min(p->ird, ird_max),
		.ird_max = ird_max,
		.ord = min_t(u32, p->ord, IWCM_MPA_IRD_ORD_MAX),
	};
}

/* Hand the stream to the provider; the socket is its on success. */
static int iwh_attach(struct iwh_ep *ep, struct ib_qp *qp,
		      struct iw_cm_id *cm_id, const struct iwcm_mpa_result *r,
		      bool initiator, const struct iwcm_mpa_frame *peer)
{
	struct iw_host_params p = {
		.mpa_rev = r->rev,
		.crc = r->crc,
		.large_fpdu = r->large,
		.initiator = initiator,
		.p2p = r->p2p,
		.rtr = iwh_rtr_host(r->rtr),
		.ird = r->ird,
		.ord = r->ord,
		.pdata = peer->pdata,
		.pdata_len = min_t(u16, peer->pdata_len, U8_MAX),
	};
	int ret;

	iwh_sock_detach(ep);
	del_timer_sync(&ep->timer);
	ret = ep->hdev->ops->attach(qp, cm_id, ep->sock, &p);
	if (ret)
		return ret;
	ep->sock = NULL;
	return 0;
}

/*
 * The responder accepted, so it is in FPDU mode, but this end cannot go
 * on: tell it why (RFC 6581) before the close.  Best effort: the close
 * follows whatever the send says, and a peer that reset the stream
 * already needs no reason.
 */
static void iwh_send_terminate(struct iwh_ep *ep, u8 ecode, bool crc)
{
	u8 fpdu[IWCM_MPA_TERM_LEN];
	int len;

	len = iwcm_mpa_terminate(fpdu, sizeof(fpdu), ecode, crc);
	if (len > 0)
		iwh_send(ep, fpdu, len);
}

/* An active endpoint's failure: CONNECT_REPLY with @status, and close. */
static void iwh_connect_fail(struct iwh_ep *ep, int status,
			     const struct iwcm_mpa_frame *rep)
{
	struct iw_cm_id *cm_id = ep->cm_id;
	struct iw_cm_event ev = {
		.event = IW_CM_EVENT_CONNECT_REPLY,
		.status = status,
	};

	memcpy(&ev.local_addr, &cm_id->m_local_addr, sizeof(ev.local_addr));
	memcpy(&ev.remote_addr, &cm_id->m_remote_addr, sizeof(ev.remote_addr));
	if (rep) {
		ev.private_data = (void *)rep->pdata;
		ev.private_data_len = min_t(u16, rep->pdata_len, U8_MAX);
	}
	cm_id->event_handler(cm_id, &ev);
	iwh_close(ep);
}

/* Active: TCP is up (or failed): send the request. */
static void iwh_connected(struct iwh_ep *ep)
{
	struct sock *sk = ep->sock->sk;
	int ret;

	if (ep->connect_err) {
		iwh_connect_fail(ep, ep->connect_err, NULL);
		return;
	}
	if (READ_ONCE(sk->sk_state) == TCP_SYN_SENT)
		return;
	if (READ_ONCE(sk->sk_state) != TCP_ESTABLISHED) {
		ret = sock_error(sk);
		iwh_connect_fail(ep, ret ?: -ECONNREFUSED, NULL);
		return;
	}
	ret = iwh_send(ep, ep->buf, ep->req_len);
	if (ret) {
		iwh_connect_fail(ep, ret, NULL);
		return;
	}
	ep->state = IWH_AWAIT_REP;
	mod_timer(&ep->timer, jiffies + iwcm_mpa_timeout(false));
	/* A reply cannot be in before the request went out. */
}

/* Active: the reply, or some of it, is in. */
static void iwh_recv_reply(struct iwh_ep *ep)
{
	struct iwcm_mpa_result res;
	struct iwcm_mpa_frame rep;
	int ret;

	ret = iwh_recv_frame(ep, IWCM_MPA_REP);
	if (!ret) {
		if (test_bit(IWH_TIMEDOUT, &ep->flags))
			iwh_connect_fail(ep, -ETIMEDOUT, NULL);
		return;
	}
	if (ret < 0) {
		iwh_connect_fail(ep, ret == -EBADMSG || ret == -EMSGSIZE ?
				 -EPROTO : ret, NULL);
		return;
	}
	ret = iwcm_mpa_decode(ep->buf, ep->got, IWCM_MPA_REP, &rep);
	if (ret) {
		iwh_connect_fail(ep, ret, NULL);
		return;
	}
	ret = iwcm_mpa_reply(&ep->req, &rep, &ep->me, &res);
	if (ret) {
		if (res.term)
			iwh_send_terminate(ep, res.term, res.crc);
		iwh_connect_fail(ep, ret, ret == -ECONNREFUSED ? &rep : NULL);
		return;
	}
	ret = iwh_attach(ep, ep->qp, ep->cm_id, &res, true, &rep);
	if (ret) {
		iwh_connect_fail(ep, ret, NULL);
		return;
	}
	/* The provider reports CONNECT_REPLY from here on. */
	iwh_close(ep);
}

/* Listener: take every connection the host stack has accepted. */
static void iwh_accept_all(struct iwh_ep *l)
{
	struct socket *ns;
	struct iwh_ep *ep;

	while (!kernel_accept(l->sock, &ns, O_NONBLOCK)) {
		spin_lock(&l->hdev->lock);
		if (l->nr_children >= l->backlog) {
			spin_unlock(&l->hdev->lock);
			net_info_ratelimited("iw_cm: host listener backlog of %d MPA requests full\n",
					     l->backlog);
			sock_release(ns);
			continue;
		}
		spin_unlock(&l->hdev->lock);
		ep = iwh_ep_alloc(l->hdev, IWH_AWAIT_REQ);
		if (!ep) {
			sock_release(ns);
			continue;
		}
		ep->sock = ns;
		tcp_sock_set_nodelay(ns->sk);
		refcount_inc(&l->ref);
		ep->listener = l;
		spin_lock(&l->hdev->lock);
		list_add_tail(&ep->child_node, &l->children);
		l->nr_children++;
		spin_unlock(&l->hdev->lock);
		iwh_sock_attach(ep);
		mod_timer(&ep->timer, jiffies + iwcm_mpa_timeout(true));
		/* The request may be in already: no callback would say so. */
		iwh_queue(ep);
	}
}

static void iwh_send_reject(struct iwh_ep *ep, const void *pdata, u8 len)
{
	struct iwcm_mpa_frame rep;

	if (!iwcm_mpa_reject(&ep->req, pdata, len, &rep))
		iwh_send_frame(ep, IWCM_MPA_REP, &rep);
}

/* A depth for an event: @want, within the device's @max and a u8. */
static u8 iwh_cap(u32 want, int max)
{
	return min3(want, (u32)max_t(int, max, 0), (u32)U8_MAX);
}

/* Passive: the request, or some of it, is in. */
static void iwh_recv_request(struct iwh_ep *ep)
{
	struct iw_cm_event ev = { .event = IW_CM_EVENT_CONNECT_REQUEST };
	struct iwh_ep *l = ep->listener;
	struct ib_device *device = ep->hdev->device;
	int ret;

	ret = iwh_recv_frame(ep, IWCM_MPA_REQ);
	if (!ret && !test_bit(IWH_TIMEDOUT, &ep->flags))
		return;
	/* Garbage, a stall, a reset: the peer gets a close, nothing else. */
	if (ret <= 0 || iwcm_mpa_decode(ep->buf, ep->got, IWCM_MPA_REQ,
					&ep->req)) {
		iwh_close(ep);
		return;
	}
	del_timer_sync(&ep->timer);
	ret = iwcm_mpa_check_request(&ep->req);
	if (ret == -EOPNOTSUPP || (!ret && ep->req.pdata_len > U8_MAX)) {
		/* Markers, or more private data than an event carries. */
		iwh_send_reject(ep, NULL, 0);
		iwh_close(ep);
		return;
	}
	if (ret) {
		iwh_close(ep);
		return;
	}

	iwh_addrs(ep, &ev);
	ev.provider_data = ep;
	ev.private_data = (void *)ep->req.pdata;
	ev.private_data_len = ep->req.pdata_len;
	/*
	 * The initiator's IRD and ORD, capped by what this end can do, as
	 * siw reports them: rdma_cm passes ird on as the initiator_depth
	 * (the ORD this end may accept with) and ord as the
	 * responder_resources (the IRD it needs).
	 */
	ev.ird = iwh_cap(ep->req.enhanced ? ep->req.ird : U8_MAX,
			 device->attrs.max_qp_init_rd_atom);
	ev.ord = iwh_cap(ep->req.enhanced ? ep->req.ord : U8_MAX,
			 device->attrs.max_qp_rd_atom);

	mutex_lock(&l->mutex);
	if (l->state != IWH_LISTEN) {
		mutex_unlock(&l->mutex);
		iwh_close(ep);
		return;
	}
	iwh_unlink_child(ep);
	ep->state = IWH_RECVD_REQ;
	ret = l->listen_id->event_handler(l->listen_id, &ev);
	mutex_unlock(&l->mutex);
	/* Refused by iw_cm (backlog full, no memory): drop it. */
	if (ret)
		iwh_close(ep);
}

/*
 * Close a listener: its socket (connections the host stack accepted
 * and nobody took get a reset), and every passive endpoint still
 * waiting for its request.  Under l->mutex.
 */
static void iwh_listener_close(struct iwh_ep *l)
{
	struct iwh_ep *ep;

	iwh_close(l);
	spin_lock(&l->hdev->lock);
	list_for_each_entry(ep, &l->children, child_node)
		iwh_kill(ep);
	spin_unlock(&l->hdev->lock);
}

static void iwh_work(struct work_struct *work)
{
	struct iwh_ep *ep = container_of(work, struct iwh_ep, work);

	mutex_lock(&ep->mutex);
	if (test_bit(IWH_KILL, &ep->flags)) {
		if (ep->state == IWH_CONNECTING || ep->state == IWH_AWAIT_REP)
			iwh_connect_fail(ep, -ECONNABORTED, NULL);
		else if (ep->state == IWH_LISTEN)
			iwh_listener_close(ep);
		else
			iwh_close(ep);
	}
	switch (ep->state) {
	case IWH_LISTEN:
		iwh_accept_all(ep);
		break;
	case IWH_CONNECTING:
		iwh_connected(ep);
		if (ep->state != IWH_AWAIT_REP)
			break;
		fallthrough;
	case IWH_AWAIT_REP:
		iwh_recv_reply(ep);
		break;
	case IWH_AWAIT_REQ:
		iwh_recv_request(ep);
		break;
	default:
		/* RECVD_REQ: bytes wait for the provider.  CLOSED. */
		break;
	}
	mutex_unlock(&ep->mutex);
	iwh_ep_put(ep);
}

/**
 * iw_host_connect - iw_connect of a host-integrated provider.
 * @cm_id: the active id
 * @param: the consumer's parameters; @param->qpn names the QP
 *
 * Starts the TCP connection from @cm_id->m_local_addr (its port if it
 * has one) to @cm_id->m_remote_addr in the device's network namespace,
 * and returns.  The MPA request follows once TCP is up; then either the
 * provider gets the stream and reports CONNECT_REPLY 0, or iw_cm reports
 * CONNECT_REPLY with the error: -ECONNREFUSED for a reject (with the
 * responder's private data), -ETIMEDOUT for a responder that does not
 * reply in net.iw_cm.mpa_reply_timeout_ms, the TCP error, or -EPROTO
 * for a reply that is no MPA reply.
 *
 * Return: 0, or a negative errno (and no event follows).
 */
int iw_host_connect(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param)
{
	struct ib_device *device = cm_id->device;
	struct sockaddr_storage *laddr = &cm_id->m_local_addr;
	struct iwh_dev *hdev = iwh_dev_find(device);
	struct iwh_ep *ep;
	struct ib_qp *qp;
	int ret;

	if (!hdev)
		return -ENODEV;
	if (param->private_data_len > U8_MAX)
		return -EINVAL;
	qp = device->ops.iw_get_qp(device, param->qpn);
	if (!qp)
		return -EINVAL;
	ep = iwh_ep_alloc(hdev, IWH_CONNECTING);
	if (!ep)
		return -ENOMEM;
	iwh_local(ep, param, true);
	ret = iwcm_mpa_request(&ep->me, param->private_data,
			       param->private_data_len, &ep->req);
	if (ret)
		goto err_ep;
	/* Encoded now: the private data is the consumer's. */
	ep->req_len = iwcm_mpa_encode(ep->buf, sizeof(ep->buf), IWCM_MPA_REQ,
				      &ep->req);
	ep->req.pdata = NULL;
	if (ep->req_len < 0) {
		ret = ep->req_len;
		goto err_ep;
	}
	ret = iwh_sock_create(cm_id, cm_id->m_remote_addr.ss_family,
			      &ep->sock);
	if (ret)
		goto err_ep;
	if (laddr->ss_family == cm_id->m_remote_addr.ss_family) {
		/*
		 * rdma_cm picked the port in its own port space: TCP may
		 * still keep it in TIME_WAIT from an earlier connection
		 * (siw sets it too).
		 */
		sock_set_reuseaddr(ep->sock->sk);
		ret = kernel_bind(ep->sock, (struct sockaddr *)laddr,
				  iwh_addr_len(laddr));
		if (ret)
			goto err_ep;
	}

	refcount_inc(&ep->ref);		/* ours, across the connect */
	mutex_lock(&ep->mutex);
	device->ops.iw_add_ref(qp);
	ep->qp = qp;
	cm_id->add_ref(cm_id);
	ep->cm_id = cm_id;
	cm_id->provider_data = ep;
	iwh_sock_attach(ep);
	ret = kernel_connect(ep->sock, (struct sockaddr *)&cm_id->m_remote_addr,
			     iwh_addr_len(&cm_id->m_remote_addr), O_NONBLOCK);
	/*
	 * The peer's answer may be in before the call returns (loopback):
	 * reported as it would be later, by CONNECT_REPLY.
	 */
	if (ret == -ECONNREFUSED || ret == -ECONNRESET) {
		ep->connect_err = ret;
		ret = 0;
	}
	if (ret == -EINPROGRESS)
		ret = 0;
	if (ret)
		iwh_close(ep);	/* no event: the connect failed */
	else
		iwh_queue(ep);	/* up already (loopback), or failed early */
	mutex_unlock(&ep->mutex);
	iwh_ep_put(ep);
	return ret;

err_ep:
	iwh_ep_abort(ep);
	return ret;
}
EXPORT_SYMBOL_NS(iw_host_connect, IW_HOST);

/**
 * iwcm_host_abort - Cut short the setup of a destroyed active id.
 * @cm_id: the id, DESTROYING, whose connect has not been answered
 *
 * Its endpoint, if still connecting or waiting for the MPA reply, is
 * closed by its work: the peer sees the TCP connection go at once, not
 * when the reply timer runs out.  Nothing to do for a device of the
 * offloaded model (the QP moving to ERR tells the provider) or an
 * endpoint that handed its stream to the provider already.
 */
void iwcm_host_abort(struct iw_cm_id *cm_id)
{
	struct iwh_dev *hdev = iwh_dev_find(cm_id->device);
	enum iwh_state state;
	struct iwh_ep *ep;

	if (!hdev)
		return;
	spin_lock(&hdev->lock);
	list_for_each_entry(ep, &hdev->eps, dev_node) {
		/*
		 * Unlocked peek: only an active endpoint is ever in these
		 * states, and a kill that comes late finds it CLOSED.
		 */
		state = READ_ONCE(ep->state);
		if (READ_ONCE(ep->cm_id) == cm_id &&
		    (state == IWH_CONNECTING || state == IWH_AWAIT_REP))
			iwh_kill(ep);
	}
	spin_unlock(&hdev->lock);
}

/* The passive endpoint of @cm_id, referenced and locked, or NULL. */
static struct iwh_ep *iwh_passive_get(struct iw_cm_id *cm_id)
{
	struct iwh_ep *ep = cm_id->provider_data;

	/* Open until answered: nothing else closes a delivered request. */
	if (!ep)
		return NULL;
	refcount_inc(&ep->ref);
	mutex_lock(&ep->mutex);
	cm_id->provider_data = NULL;
	return ep;
}

static void iwh_passive_put(struct iwh_ep *ep)
{
	iwh_close(ep);
	mutex_unlock(&ep->mutex);
	iwh_ep_put(ep);
}

/**
 * iw_host_accept - iw_accept of a host-integrated provider.
 * @cm_id: the passive id of a CONNECT_REQUEST
 * @param: the consumer's parameters; @param->qpn names the QP
 *
 * Sends the MPA reply (IRD/ORD and RTR negotiated as
 * Documentation/infiniband/iw_cm.rst says) and hands the stream to the
 * provider, which reports ESTABLISHED.  An RTR none of which the
 * provider takes is answered with a reject.
 *
 * Return: 0, or a negative errno: the connection is closed then, and no
 * event follows.
 */
int iw_host_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param)
{
	struct ib_device *device = cm_id->device;
	struct iwcm_mpa_result res;
	struct iwcm_mpa_frame rep;
	struct iwh_ep *ep;
	struct ib_qp *qp;
	int ret;

	ep = iwh_passive_get(cm_id);
	if (!ep)
		return -EINVAL;
	ret = -ECONNRESET;
	if (ep->state != IWH_RECVD_REQ)
		goto out;
	ret = -EINVAL;
	qp = device->ops.iw_get_qp(device, param->qpn);
	if (!qp || param->private_data_len > U8_MAX)
		goto out;
	iwh_local(ep, param, false);
	ret = iwcm_mpa_answer(&ep->req, &ep->me, param->private_data,
			      param->private_data_len, &rep, &res);
	if (ret == -EPROTO)
		iwh_send_reject(ep, NULL, 0);
	if (ret)
		goto out;
	ret = iwh_send_frame(ep, IWCM_MPA_REP, &rep);
	if (ret)
		goto out;
	ret = iwh_attach(ep, qp, cm_id, &res, false, &ep->req);
out:
	iwh_passive_put(ep);
	return ret;
}
EXPORT_SYMBOL_NS(iw_host_accept, IW_HOST);

/**
 * iw_host_reject - iw_reject of a host-integrated provider.
 * @cm_id: the passive id of a CONNECT_REQUEST
 * @pdata: private data for the initiator, or NULL
 * @pdata_len: its length
 *
 * Sends an MPA reply with the reject flag and @pdata, and closes.
 *
 * Return: 0, or -EINVAL if @cm_id has no request to answer.
 */
int iw_host_reject(struct iw_cm_id *cm_id, const void *pdata, u8 pdata_len)
{
	struct iwh_ep *ep = iwh_passive_get(cm_id);

	if (!ep)
		return -EINVAL;
	if (ep->state == IWH_RECVD_REQ)
		iwh_send_reject(ep, pdata, pdata_len);
	iwh_passive_put(ep);
	return 0;
}
EXPORT_SYMBOL_NS(iw_host_reject, IW_HOST);

/**
 * iw_host_create_listen - iw_create_listen of a host-integrated provider.
 * @cm_id: the listening id; @cm_id->m_local_addr is the address
 * @backlog: connections in TCP's accept queue, and connections whose
 *	MPA request is still awaited, each at most; 0 for
 *	net.iw_cm.default_backlog
 *
 * Binds and listens on a kernel socket in the device's network
 * namespace before it returns; a port 0 gets the host's choice, written
 * back into @cm_id->m_local_addr.  A connection whose MPA request is not
 * in within net.iw_cm.mpa_request_timeout_ms, or is no MPA request, is
 * closed without a CONNECT_REQUEST; one asking for markers is rejected.
 *
 * Return: 0, or the bind's or listen's negative errno (-EADDRINUSE...).
 */
int iw_host_create_listen(struct iw_cm_id *cm_id, int backlog)
{
	struct sockaddr_storage *laddr = &cm_id->m_local_addr;
	struct iwh_dev *hdev = iwh_dev_find(cm_id->device);
	struct iwh_ep *ep;
	int ret;

	if (!hdev)
		return -ENODEV;
	if (laddr->ss_family != AF_INET && laddr->ss_family != AF_INET6)
		return -EAFNOSUPPORT;
	ep = iwh_ep_alloc(hdev, IWH_LISTEN);
	if (!ep)
		return -ENOMEM;
	lockdep_set_class(&ep->mutex, &iwh_listener_key);
	ep->listen_id = cm_id;
	ep->backlog = backlog > 0 ? backlog : iwcm_default_backlog();
	ret = iwh_sock_create(cm_id, laddr->ss_family, &ep->sock);
	if (ret)
		goto err_ep;
	sock_set_reuseaddr(ep->sock->sk);
	if (IS_ENABLED(CONFIG_IPV6) && laddr->ss_family == AF_INET6 &&
	    cm_id->afonly)
		ip6_sock_set_v6only(ep->sock->sk);
	ret = iwh_bind_dev(cm_id->device, ep->sock, laddr) ?:
	      kernel_bind(ep->sock, (struct sockaddr *)laddr,
			  iwh_addr_len(laddr)) ?:
	      kernel_listen(ep->sock, ep->backlog);
	if (ret)
		goto err_ep;
	kernel_getsockname(ep->sock, (struct sockaddr *)laddr);

	mutex_lock(&ep->mutex);
	cm_id->provider_data = ep;
	iwh_sock_attach(ep);
	/* A connection may have come before the callback was there. */
	iwh_queue(ep);
	mutex_unlock(&ep->mutex);
	return 0;

err_ep:
	iwh_ep_abort(ep);
	return ret;
}
EXPORT_SYMBOL_NS(iw_host_create_listen, IW_HOST);

/**
 * iw_host_destroy_listen - iw_destroy_listen of a host-integrated provider.
 * @cm_id: the listening id
 *
 * Closes the socket and every connection still waiting for its MPA
 * request; no CONNECT_REQUEST comes for @cm_id once this returns.
 * Requests already delivered stay theirs until answered.
 *
 * Return: 0, or -EINVAL if @cm_id does not listen.
 */
int iw_host_destroy_listen(struct iw_cm_id *cm_id)
{
	struct iwh_ep *ep = cm_id->provider_data;

	if (!ep)
		return -EINVAL;
	refcount_inc(&ep->ref);
	mutex_lock(&ep->mutex);
	cm_id->provider_data = NULL;
	if (ep->state == IWH_LISTEN)
		iwh_listener_close(ep);
	mutex_unlock(&ep->mutex);
	iwh_ep_put(ep);
	return 0;
}
EXPORT_SYMBOL_NS(iw_host_destroy_listen, IW_HOST);

/**
 * iw_host_register - Opt a device into the host-integrated model.
 * @device: the provider's device, registered with ib_core
 * @ops: its operations, which must outlive the registration
 *
 * Return: 0, -EINVAL without @ops->attach, -EEXIST if @device is
 * registered already, or -ENOMEM.
 */
int iw_host_register(struct ib_device *device, const struct iw_host_ops *ops)
{
	struct iwh_dev *hdev, *old;

	if (!ops || !ops->attach)
		return -EINVAL;
	hdev = kzalloc(sizeof(*hdev), GFP_KERNEL);
	if (!hdev)
		return -ENOMEM;
	hdev->device = device;
	hdev->ops = ops;
	spin_lock_init(&hdev->lock);
	INIT_LIST_HEAD(&hdev->eps);
	init_waitqueue_head(&hdev->wait);

	spin_lock(&iwh_devs_lock);
	list_for_each_entry(old, &iwh_devs, node) {
		if (old->device == device) {
			spin_unlock(&iwh_devs_lock);
			kfree(hdev);
			return -EEXIST;
		}
	}
	list_add_tail_rcu(&hdev->node, &iwh_devs);
	spin_unlock(&iwh_devs_lock);
	return 0;
}
EXPORT_SYMBOL_NS(iw_host_register, IW_HOST);

static bool iwh_dev_idle(struct iwh_dev *hdev)
{
	bool idle;

	spin_lock(&hdev->lock);
	idle = list_empty(&hdev->eps);
	spin_unlock(&hdev->lock);
	return idle;
}

/**
 * iw_host_unregister - Undo iw_host_register().
 * @device: the device, unregistered from ib_core already (so that no id
 *	uses it any more)
 *
 * Closes what is left (a connection still being set up fails with
 * -ECONNABORTED) and waits until every endpoint of @device is gone.
 */
void iw_host_unregister(struct ib_device *device)
{
	struct iwh_dev *hdev = iwh_dev_find(device);
	struct iwh_ep *ep;

	if (!hdev)
		return;
	spin_lock(&iwh_devs_lock);
	list_del_rcu(&hdev->node);
	spin_unlock(&iwh_devs_lock);
	synchronize_rcu();

	spin_lock(&hdev->lock);
	list_for_each_entry(ep, &hdev->eps, dev_node)
		iwh_kill(ep);
	spin_unlock(&hdev->lock);
	wait_event(hdev->wait, iwh_dev_idle(hdev));
	kfree(hdev);
}
EXPORT_SYMBOL_NS(iw_host_unregister, IW_HOST);

int iwcm_host_init(void)
{
	/* Storage ULPs reconnect through here too. */
	iwh_wq = alloc_workqueue("iw_cm_host", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return iwh_wq ? 0 : -ENOMEM;
}

void iwcm_host_exit(void)
{
	/* Providers link to us: all of them unregistered already. */
	WARN_ON_ONCE(!list_empty(&iwh_devs));
	destroy_workqueue(iwh_wq);
}
