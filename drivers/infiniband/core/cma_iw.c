// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The iWARP transport of the rdma_cm switch, over iw_cm.
 *
 * iw_cm is socket-like: a connection is one iw_cm_id from connect or
 * from a listener's request to destroy, and its callbacks report the
 * reply, the establishment and the close.  Each rdma_cm id owns at most
 * one iw_cm_id, in cm_id.iw; a non-zero return from a callback makes
 * iw_cm destroy that iw_cm_id itself, so the id forgets it first.
 */
#include <linux/if_arp.h>
#include <linux/irqflags.h>
#include <linux/netdevice.h>
#include <linux/sched/signal.h>
#include <rdma/ib_cache.h>
#include <rdma/iw_cm.h>
#include <rdma/restrack.h>

#include "core_priv.h"
#include "cma_priv.h"

/* An iw_cm event as the rdma_cm event a consumer gets, or false for none. */
static bool cma_iw_event(const struct iw_cm_event *iw_event,
			 struct rdma_cm_event *event)
{
	switch (iw_event->event) {
	case IW_CM_EVENT_CLOSE:
		event->event = RDMA_CM_EVENT_DISCONNECTED;
		return true;
	case IW_CM_EVENT_CONNECT_REPLY:
		switch (iw_event->status) {
		case 0:
			event->event = RDMA_CM_EVENT_ESTABLISHED;
			break;
		case -ECONNRESET:
		case -ECONNREFUSED:
			event->event = RDMA_CM_EVENT_REJECTED;
			break;
		case -ETIMEDOUT:
			event->event = RDMA_CM_EVENT_UNREACHABLE;
			break;
		default:
			event->event = RDMA_CM_EVENT_CONNECT_ERROR;
			break;
		}
		break;
	case IW_CM_EVENT_ESTABLISHED:
		event->event = RDMA_CM_EVENT_ESTABLISHED;
		break;
	default:
		/* DISCONNECT: the CLOSE that follows is what consumers see. */
		return false;
	}
	event->status = iw_event->status;
	event->param.conn.private_data = iw_event->private_data;
	event->param.conn.private_data_len = iw_event->private_data_len;
	event->param.conn.initiator_depth = iw_event->ird;
	event->param.conn.responder_resources = iw_event->ord;
	return true;
}

/* Callback of a connection's iw_cm_id, active or passive. */
static int cma_iw_handler(struct iw_cm_id *iw_id, struct iw_cm_event *iw_event)
{
	struct rdma_id_private *id_priv = iw_id->context;
	struct rdma_cm_event event = {};

	mutex_lock(&id_priv->handler_mutex);
	/* Destroyed or removed meanwhile: nobody to tell. */
	if (READ_ONCE(id_priv->state) != RDMA_CM_CONNECT)
		goto out;
	if (!cma_iw_event(iw_event, &event))
		goto out;
	if (iw_event->event == IW_CM_EVENT_CONNECT_REPLY) {
		memcpy(cma_src_addr(id_priv), &iw_event->local_addr,
		       rdma_addr_size((struct sockaddr *)&iw_event->local_addr));
		memcpy(cma_dst_addr(id_priv), &iw_event->remote_addr,
		       rdma_addr_size((struct sockaddr *)&iw_event->remote_addr));
	}
	return cma_deliver_unlock(id_priv, &event);
out:
	mutex_unlock(&id_priv->handler_mutex);
	return 0;
}

/* A new iw_cm_id for @id_priv, with its type of service and family rule. */
static struct iw_cm_id *cma_iw_new(struct rdma_id_private *id_priv,
				   iw_cm_handler handler)
{
	struct iw_cm_id *iw_id;

	iw_id = iw_create_cm_id(id_priv->id.device, handler, id_priv);
	if (IS_ERR(iw_id))
		return iw_id;
	mutex_lock(&id_priv->qp_mutex);
	iw_id->tos = id_priv->tos;
	iw_id->tos_set = id_priv->tos_set;
	mutex_unlock(&id_priv->qp_mutex);
	iw_id->afonly = READ_ONCE(id_priv->afonly);
	memcpy(&iw_id->local_addr, cma_src_addr(id_priv),
	       rdma_addr_size(cma_src_addr(id_priv)));
	return iw_id;
}

static void cma_iw_param(struct rdma_id_private *id_priv,
			 const struct rdma_conn_param *param,
			 struct iw_cm_conn_param *iw_param)
{
	memset(iw_param, 0, sizeof(*iw_param));
	iw_param->qpn = id_priv->qp_num;
	if (!param)
		return;
	iw_param->ord = param->initiator_depth;
	iw_param->ird = param->responder_resources;
	iw_param->private_data = param->private_data;
	iw_param->private_data_len = param->private_data_len;
	if (!id_priv->id.qp)
		iw_param->qpn = param->qp_num;
}

/*
 * Whether the connection of @id_priv may be bound to @qp: a QP of user
 * space only for an id of rdma_ucm and in the thread group that created
 * it (rdma_ucm connects and accepts in the calling process's context),
 * a kernel QP only for a kernel id.
 */
static bool cma_iw_qp_owned(struct rdma_id_private *id_priv,
			    struct ib_qp *qp)
{
	struct task_struct *owner;

	if (rdma_is_kernel_res(&id_priv->res))
		return !qp->uobject;
	/* Set from creation to destroy, which waits for our reference. */
	owner = READ_ONCE(qp->res.task);
	return qp->uobject && owner && same_thread_group(owner, current);
}

/*
 * iWARP binds the connection to the QP named by number: iw_cm hands it
 * to the provider, which moves it to RTS on the new stream and tears it
 * down with it.  A number naming another's QP is refused before anything
 * is sent, as one naming no QP is: whether it exists is not told.
 *
 * The QP stays referenced until iw_cm has its own reference: while it
 * is, the QP keeps its number, and iw_cm's lookup (and that of its
 * host-integrated connections) finds this QP.
 *
 * Return: 0 and the QP in *@qpp, referenced (NULL where the device has
 * no QP lookup: iw_cm refuses the call), or -EINVAL.
 */
static int cma_iw_qp_get(struct rdma_id_private *id_priv, u32 qpn,
			 struct ib_qp **qpp)
{
	struct ib_device *dev = id_priv->id.device;
	unsigned long flags;
	struct ib_qp *qp;

	*qpp = NULL;
	if (!dev->ops.iw_get_qp || !dev->ops.iw_add_ref ||
	    !dev->ops.iw_rem_ref)
		return 0;
	/* With interrupts off, as iw_cm calls them. */
	local_irq_save(flags);
	qp = dev->ops.iw_get_qp(dev, qpn);
	if (qp)
		dev->ops.iw_add_ref(qp);
	local_irq_restore(flags);
	if (!qp)
		return -EINVAL;
	if (!cma_iw_qp_owned(id_priv, qp)) {
		dev->ops.iw_rem_ref(qp);
		return -EINVAL;
	}
	*qpp = qp;
	return 0;
}

static void cma_iw_qp_put(struct rdma_id_private *id_priv, struct ib_qp *qp)
{
	if (qp)
		id_priv->id.device->ops.iw_rem_ref(qp);
}

static int cma_iw_connect(struct rdma_id_private *id_priv,
			  struct rdma_conn_param *param)
{
	struct iw_cm_conn_param iw_param;
	struct iw_cm_id *iw_id;
	struct ib_qp *qp;
	int ret;

	cma_iw_param(id_priv, param, &iw_param);
	ret = cma_iw_qp_get(id_priv, iw_param.qpn, &qp);
	if (ret)
		return ret;
	iw_id = cma_iw_new(id_priv, cma_iw_handler);
	if (IS_ERR(iw_id)) {
		ret = PTR_ERR(iw_id);
		goto out;
	}
	memcpy(&iw_id->remote_addr, cma_dst_addr(id_priv),
	       rdma_addr_size(cma_dst_addr(id_priv)));
	id_priv->cm_id.iw = iw_id;

	ret = cma_qp_ready(id_priv, param) ?:
	      iw_cm_connect(iw_id, &iw_param);
	if (ret) {
		id_priv->cm_id.iw = NULL;
		iw_destroy_cm_id(iw_id);
	}
out:
	cma_iw_qp_put(id_priv, qp);
	return ret;
}

/*
 * A connection request reached a listener: a new id in CONNECT, on the
 * listener's device, takes over the request's iw_cm_id and is offered to
 * the consumer.  Non-zero refuses the request (iw_cm then destroys
 * @iw_id).
 */
static int cma_iw_req_handler(struct iw_cm_id *iw_id,
			      struct iw_cm_event *iw_event)
{
	struct rdma_id_private *listener = iw_id->context;
	struct sockaddr *laddr = (struct sockaddr *)&iw_event->local_addr;
	struct sockaddr *raddr = (struct sockaddr *)&iw_event->remote_addr;
	struct rdma_cm_event event = {
		.event = RDMA_CM_EVENT_CONNECT_REQUEST,
	};
	struct rdma_id_private *conn;
	int ret = -ECONNABORTED;

	if (iw_event->event != IW_CM_EVENT_CONNECT_REQUEST)
		return 0;

	mutex_lock(&listener->handler_mutex);
	if (READ_ONCE(listener->state) != RDMA_CM_LISTEN)
		goto out;

	conn = cma_listen_new_conn(listener, cma_id_net(listener), IB_QPT_RC);
	ret = -ENOMEM;
	if (!conn)
		goto out;
	memcpy(cma_src_addr(conn), laddr, rdma_addr_size(laddr));
	memcpy(cma_dst_addr(conn), raddr, rdma_addr_size(raddr));
	ret = rdma_translate_ip(laddr, &conn->id.route.addr.dev_addr) ?:
	      cma_dev_acquire_like(conn, listener);
	if (ret) {
		cma_destroy_handler_unlock(conn);
		goto out;
	}
	rdma_restrack_add(&conn->res);

	conn->cm_id.iw = iw_id;
	iw_id->context = conn;
	iw_id->cm_handler = cma_iw_handler;

	event.param.conn.private_data = iw_event->private_data;
	event.param.conn.private_data_len = iw_event->private_data_len;
	event.param.conn.initiator_depth = iw_event->ird;
	event.param.conn.responder_resources = iw_event->ord;
	/* Non-zero: the consumer refused it; iw_cm destroys iw_id. */
	ret = cma_deliver_unlock(conn, &event);
out:
	mutex_unlock(&listener->handler_mutex);
	return ret;
}

static int cma_iw_listen(struct rdma_id_private *id_priv, int backlog)
{
	struct iw_cm_id *iw_id;
	int ret;

	iw_id = cma_iw_new(id_priv, cma_iw_req_handler);
	if (IS_ERR(iw_id))
		return PTR_ERR(iw_id);
	id_priv->cm_id.iw = iw_id;
	ret = iw_cm_listen(iw_id, backlog);
	if (ret) {
		id_priv->cm_id.iw = NULL;
		iw_destroy_cm_id(iw_id);
	}
	return ret;
}

static int cma_iw_accept(struct rdma_id_private *id_priv,
			 struct rdma_conn_param *param)
{
	struct iw_cm_conn_param iw_param;
	struct ib_qp *qp;
	int ret;

	if (!param)
		return -EINVAL;
	cma_iw_param(id_priv, param, &iw_param);
	ret = cma_iw_qp_get(id_priv, iw_param.qpn, &qp);
	if (ret)
		return ret;
	ret = cma_qp_ready(id_priv, param) ?:
	      iw_cm_accept(id_priv->cm_id.iw, &iw_param);
	cma_iw_qp_put(id_priv, qp);
	return ret;
}

/* iWARP has no reject reason on the wire: MPA carries the data only. */
static int cma_iw_reject(struct rdma_id_private *id_priv, const void *pdata,
			 u8 pdata_len, u8 reason)
{
	return iw_cm_reject(id_priv->cm_id.iw, pdata, pdata_len);
}

static int cma_iw_disconnect(struct rdma_id_private *id_priv)
{
	return iw_cm_disconnect(id_priv->cm_id.iw, 0);
}

static void cma_iw_destroy(struct rdma_id_private *id_priv)
{
	struct iw_cm_id *iw_id = id_priv->cm_id.iw;

	id_priv->cm_id.iw = NULL;
	if (iw_id)
		iw_destroy_cm_id(iw_id);
}

/* An iWARP connection follows the IP route: nothing to resolve. */
static int cma_iw_resolve_route(struct rdma_id_private *id_priv,
				unsigned long timeout_ms)
{
	return cma_queue_event(id_priv, RDMA_CM_ROUTE_QUERY,
			       RDMA_CM_ROUTE_RESOLVED,
			       RDMA_CM_EVENT_ROUTE_RESOLVED);
}

/*
 * Before iw_cm has an id for the connection, a new QP gets no remote
 * access; after, iw_cm knows the negotiated rights.
 */
static int cma_iw_init_qp_attr(struct rdma_id_private *id_priv,
			       struct ib_qp_attr *qp_attr, int *qp_attr_mask)
{
	int ret = 0;

	if (id_priv->cm_id.iw) {
		ret = iw_cm_init_qp_attr(id_priv->cm_id.iw, qp_attr,
					 qp_attr_mask);
	} else {
		qp_attr->qp_access_flags = 0;
		*qp_attr_mask = IB_QP_STATE | IB_QP_ACCESS_FLAGS;
	}
	qp_attr->port_num = id_priv->id.port_num;
	*qp_attr_mask |= IB_QP_PORT;
	return ret;
}

/*
 * An iWARP port's connections are TCP connections on its netdev, which
 * use the port space and routes of the netdev's namespace: an id of
 * another namespace would listen on, or connect from, ports that are
 * not its own.
 */
static bool cma_iw_serves_net(struct ib_device *device, u32 port,
			      const struct net *net)
{
	struct net_device *ndev;
	bool ret;

	if (device->ops.get_netdev) {
		ndev = device->ops.get_netdev(device, port);
		ret = ndev && net_eq(dev_net(ndev), net);
		dev_put(ndev);
		return ret;
	}
	rcu_read_lock();
	ndev = rcu_dereference(device->port_data[port].netdev);
	ret = ndev && net_eq(dev_net(ndev), net);
	rcu_read_unlock();
	return ret;
}

/* An iWARP port carries IP addresses on Ethernet, not IPoIB ones. */
static const struct ib_gid_attr *
cma_iw_src_gid_attr(struct rdma_id_private *id_priv,
		    struct cma_device *cma_dev, u32 port)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	union ib_gid gid;

	if (dev_addr->dev_type == ARPHRD_INFINIBAND)
		return ERR_PTR(-ENODEV);
	rdma_addr_get_sgid(dev_addr, &gid);
	return rdma_find_gid_by_port(cma_dev->device, &gid, IB_GID_TYPE_IB,
				     port, NULL);
}

/*
 * A reject the peer's consumer chose arrives as an MPA reply with the
 * reject flag, which iWARP providers report as -ECONNREFUSED and siw as
 * -ECONNRESET with the reply's private data (a reset without an MPA
 * reply has none).
 */
static bool cma_iw_consumer_reject(const struct rdma_cm_event *ev)
{
	return ev->status == -ECONNREFUSED ||
	       (ev->status == -ECONNRESET && ev->param.conn.private_data_len);
}

const struct cma_transport_ops cma_iw_transport = {
	.name		= "iw_cm",
	.resolve_route	= cma_iw_resolve_route,
	.listen		= cma_iw_listen,
	.connect	= cma_iw_connect,
	.accept		= cma_iw_accept,
	.reject		= cma_iw_reject,
	.disconnect	= cma_iw_disconnect,
	.init_qp_attr	= cma_iw_init_qp_attr,
	.destroy	= cma_iw_destroy,
	.serves_net	= cma_iw_serves_net,
	.src_gid_attr	= cma_iw_src_gid_attr,
	.read_gids	= cma_dev_addr_gids,
	.reject_msg	= iwcm_reject_msg,
	.consumer_reject = cma_iw_consumer_reject,
	.dev_type	= ARPHRD_ETHER,
};

/**
 * rdma_iw_cm_id - The iWARP CM id underlying an RDMA CM id.
 * @cm_id: the id
 *
 * Return: the iw_cm_id of the id's connection or listener, or NULL when
 * @cm_id is not on an iWARP device or has none.
 */
struct iw_cm_id *rdma_iw_cm_id(struct rdma_cm_id *cm_id)
{
	struct rdma_id_private *id_priv = cma_id_priv(cm_id);

	if (id_priv->xprt != &cma_iw_transport)
		return NULL;
	return id_priv->cm_id.iw;
}
EXPORT_SYMBOL(rdma_iw_cm_id);
