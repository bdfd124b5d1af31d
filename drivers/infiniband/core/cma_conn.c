// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Connections: connect, accept, reject, disconnect and notify check the
 * id's state and hand the work to the id's transport.  What the peer
 * answers comes back through the transport's callbacks.
 */
#include <linux/bits.h>
#include <rdma/ib_cm.h>

#include "cma_priv.h"

/* Whether the transport has an id for the connection (IB or iWARP). */
static bool cma_has_cm_id(struct rdma_id_private *id_priv)
{
	/* One pointer, whichever the transport: see the cm_id union. */
	return id_priv->cm_id.ib;
}

/**
 * cma_answer_owe - Record that the id has something to answer.
 * @id_priv: the id
 * @what: CMA_ANSWER_REQ or CMA_ANSWER_REP
 */
void cma_answer_owe(struct rdma_id_private *id_priv, enum cma_answer what)
{
	unsigned long flags;

	spin_lock_irqsave(&id_priv->lock, flags);
	id_priv->answer = what;
	spin_unlock_irqrestore(&id_priv->lock, flags);
}

/* Take the answer the id owes if it is one of @mask; -EINVAL if not. */
static int cma_answer_take(struct rdma_id_private *id_priv,
			   unsigned int mask)
{
	unsigned long flags;
	int ret = -EINVAL;

	spin_lock_irqsave(&id_priv->lock, flags);
	if (BIT(id_priv->answer) & mask) {
		id_priv->answer = CMA_ANSWER_GIVEN;
		ret = 0;
	}
	spin_unlock_irqrestore(&id_priv->lock, flags);
	return ret;
}

/* The ECE options the next request or reply carries. */
static void cma_set_ece(struct rdma_id_private *id_priv,
			const struct rdma_ucm_ece *ece)
{
	id_priv->ece.vendor_id = ece->vendor_id;
	id_priv->ece.attr_mod = ece->attr_mod;
}

/* Without a kernel QP, the consumer names its QP in the parameters. */
static void cma_conn_qp(struct rdma_id_private *id_priv,
			const struct rdma_conn_param *param)
{
	mutex_lock(&id_priv->qp_mutex);
	if (!id_priv->id.qp && param) {
		id_priv->qp_num = param->qp_num;
		id_priv->srq = param->srq;
	}
	mutex_unlock(&id_priv->qp_mutex);
}

/**
 * rdma_connect_locked - rdma_connect() with the handler lock already held.
 * @id: the id, in ROUTE_RESOLVED
 * @conn_param: connection parameters and private data
 *
 * For calls from the id's own event handler (ROUTE_RESOLVED), or under
 * rdma_lock_handler().
 *
 * Return: 0 if the connection was started, or a negative errno: -EINVAL
 * if the route is not resolved, -EOPNOTSUPP where the transport cannot
 * connect, or the transport's error.  A failed call leaves the id in
 * ROUTE_RESOLVED.
 */
int rdma_connect_locked(struct rdma_cm_id *id,
			struct rdma_conn_param *conn_param)
{
	struct rdma_id_private *id_priv = cma_id_priv(id);
	const struct cma_transport_ops *xprt = id_priv->xprt;
	int ret;

	lockdep_assert_held(&id_priv->handler_mutex);
	if (!xprt || !xprt->connect)
		return READ_ONCE(id_priv->state) == RDMA_CM_ROUTE_RESOLVED ?
		       -EOPNOTSUPP : -EINVAL;
	ret = cma_comp_exch(id_priv, RDMA_CM_ROUTE_RESOLVED, RDMA_CM_CONNECT);
	if (ret)
		return ret;

	cma_conn_qp(id_priv, conn_param);
	ret = xprt->connect(id_priv, conn_param);
	if (ret)
		cma_comp_exch(id_priv, RDMA_CM_CONNECT, RDMA_CM_ROUTE_RESOLVED);
	return ret;
}
EXPORT_SYMBOL(rdma_connect_locked);

/**
 * rdma_connect - Start connecting to the remote end of a resolved route.
 * @id: the id, in ROUTE_RESOLVED
 * @conn_param: connection parameters and private data
 *
 * Takes the handler lock; use rdma_connect_locked() from inside the id's
 * event handler.  The outcome arrives as ESTABLISHED (or, on IB without a
 * kernel QP, CONNECT_RESPONSE), REJECTED, UNREACHABLE or CONNECT_ERROR.
 *
 * Return: as rdma_connect_locked().
 */
int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct rdma_id_private *id_priv = cma_id_priv(id);
	int ret;

	mutex_lock(&id_priv->handler_mutex);
	ret = rdma_connect_locked(id, conn_param);
	mutex_unlock(&id_priv->handler_mutex);
	return ret;
}
EXPORT_SYMBOL(rdma_connect);

/**
 * rdma_connect_ece - rdma_connect() with Enhanced Connection Establishment.
 * @id: the id, in ROUTE_RESOLVED
 * @conn_param: connection parameters and private data
 * @ece: ECE options to send in the request
 *
 * Return: as rdma_connect_locked().
 */
int rdma_connect_ece(struct rdma_cm_id *id, struct rdma_conn_param *conn_param,
		     struct rdma_ucm_ece *ece)
{
	cma_set_ece(cma_id_priv(id), ece);
	return rdma_connect(id, conn_param);
}
EXPORT_SYMBOL(rdma_connect_ece);

/**
 * rdma_accept - Accept a connection request, or complete an active one.
 * @id: the id, in CONNECT, with its handler lock held (from its
 *	CONNECT_REQUEST handler, or under rdma_lock_handler())
 * @conn_param: reply parameters and private data; on the active side of
 *	an IB connection without a kernel QP, NULL sends the RTU that
 *	answers CONNECT_RESPONSE
 *
 * A request or reply is answered once: a second answer, or an accept of
 * the active side's own request, is refused.  A failed accept rejects
 * the request, so the peer is not left waiting.
 *
 * Return: 0 on success or a negative errno: -EINVAL if the id is not in
 * CONNECT, has nothing to answer this way, or the transport needs
 * parameters that are missing, or the transport's error.
 */
int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct rdma_id_private *id_priv = cma_id_priv(id);
	const struct cma_transport_ops *xprt = id_priv->xprt;
	int ret;

	lockdep_assert_held(&id_priv->handler_mutex);
	if (READ_ONCE(id_priv->state) != RDMA_CM_CONNECT ||
	    !cma_has_cm_id(id_priv))
		return -EINVAL;
	if (WARN_ON_ONCE(!xprt) || !xprt->accept)
		return -EOPNOTSUPP;
	/* Without parameters, an RC id sends the RTU of a reply. */
	ret = cma_answer_take(id_priv,
			      !conn_param && id->qp_type != IB_QPT_UD ?
			      BIT(CMA_ANSWER_REP) : BIT(CMA_ANSWER_REQ));
	if (ret)
		return ret;

	cma_conn_qp(id_priv, conn_param);
	ret = xprt->accept(id_priv, conn_param);
	if (ret) {
		cma_qp_error(id_priv);
		if (xprt->reject)
			xprt->reject(id_priv, NULL, 0,
				     IB_CM_REJ_CONSUMER_DEFINED);
	}
	return ret;
}
EXPORT_SYMBOL(rdma_accept);

/**
 * rdma_accept_ece - rdma_accept() with Enhanced Connection Establishment.
 * @id: the id, with its handler lock held
 * @conn_param: reply parameters
 * @ece: ECE options to send in the reply
 *
 * Return: as rdma_accept().
 */
int rdma_accept_ece(struct rdma_cm_id *id, struct rdma_conn_param *conn_param,
		    struct rdma_ucm_ece *ece)
{
	cma_set_ece(cma_id_priv(id), ece);
	return rdma_accept(id, conn_param);
}
EXPORT_SYMBOL(rdma_accept_ece);

/**
 * rdma_reject - Reject a connection request.
 * @id: the id that received the request
 * @private_data: data to send with the reject
 * @private_data_len: length of @private_data
 * @reason: IB CM reject reason (IB_CM_REJ_CONSUMER_DEFINED from most
 *	consumers); iWARP carries no reason on the wire
 *
 * Also refuses, on the active side of an IB connection without a kernel
 * QP, the reply that CONNECT_RESPONSE reported.
 *
 * Return: 0 on success or a negative errno: -EINVAL for an id without a
 * request (or reply) it has not answered yet, or the transport's error.
 */
int rdma_reject(struct rdma_cm_id *id, const void *private_data,
		u8 private_data_len, u8 reason)
{
	struct rdma_id_private *id_priv = cma_id_priv(id);
	const struct cma_transport_ops *xprt = id_priv->xprt;

	if (!cma_has_cm_id(id_priv))
		return -EINVAL;
	if (WARN_ON_ONCE(!xprt) || !xprt->reject)
		return -EOPNOTSUPP;
	if (cma_answer_take(id_priv,
			    BIT(CMA_ANSWER_REQ) | BIT(CMA_ANSWER_REP)))
		return -EINVAL;
	return xprt->reject(id_priv, private_data, private_data_len, reason);
}
EXPORT_SYMBOL(rdma_reject);

/**
 * rdma_disconnect - Tear down a connection.
 * @id: the id
 *
 * Both ends get DISCONNECTED once the transport closed the connection.
 *
 * Return: 0 on success or a negative errno: -EINVAL for an id without a
 * connection, or the transport's error.
 */
int rdma_disconnect(struct rdma_cm_id *id)
{
	struct rdma_id_private *id_priv = cma_id_priv(id);
	const struct cma_transport_ops *xprt = id_priv->xprt;

	if (!cma_has_cm_id(id_priv))
		return -EINVAL;
	if (WARN_ON_ONCE(!xprt) || !xprt->disconnect)
		return -EOPNOTSUPP;
	return xprt->disconnect(id_priv);
}
EXPORT_SYMBOL(rdma_disconnect);

/**
 * rdma_notify - Tell the connection manager about a QP event.
 * @id: the id
 * @event: the asynchronous QP event, e.g. IB_EVENT_COMM_EST
 *
 * Return: 0 on success (also for a transport that needs no events) or a
 * negative errno: -EINVAL for an id without a connection.
 */
int rdma_notify(struct rdma_cm_id *id, enum ib_event_type event)
{
	struct rdma_id_private *id_priv = cma_id_priv(id);
	const struct cma_transport_ops *xprt = id_priv->xprt;

	if (!cma_has_cm_id(id_priv))
		return -EINVAL;
	if (!xprt || !xprt->notify)
		return 0;
	return xprt->notify(id_priv, event);
}
EXPORT_SYMBOL(rdma_notify);
