// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The QP of an id: creation in the state that lets it receive before the
 * connection is up, the attributes of each later transition, and
 * destruction.  The attributes are the transport's (init_qp_attr); the
 * core adds the consumer's overrides.
 */
#include "cma_priv.h"
#include "cma_trace.h"

/* rdma_init_qp_attr() with qp_mutex held. */
static int cma_qp_attr(struct rdma_id_private *id_priv,
		       struct ib_qp_attr *qp_attr, int *qp_attr_mask)
{
	const struct cma_transport_ops *xprt = id_priv->xprt;
	int ret;

	lockdep_assert_held(&id_priv->qp_mutex);
	if (!id_priv->id.device)
		return -EINVAL;
	if (!xprt || !xprt->init_qp_attr)
		return -EOPNOTSUPP;
	ret = xprt->init_qp_attr(id_priv, qp_attr, qp_attr_mask);
	if (ret)
		return ret;
	if ((*qp_attr_mask & IB_QP_TIMEOUT) && id_priv->timeout_set)
		qp_attr->timeout = id_priv->timeout;
	if ((*qp_attr_mask & IB_QP_MIN_RNR_TIMER) && id_priv->min_rnr_timer_set)
		qp_attr->min_rnr_timer = id_priv->min_rnr_timer;
	return 0;
}

/**
 * rdma_init_qp_attr - QP attributes for a state transition of an id's QP.
 * @id: the id, attached to a device
 * @qp_attr: in: the target qp_state; out: the attributes to apply
 * @qp_attr_mask: out: the ib_qp_attr_mask of the filled attributes
 *
 * The ACK timeout and minimum RNR timer set on the id replace what the
 * transport chose, when the transition carries them.
 *
 * Return: 0, -EINVAL for an id without a device, -EOPNOTSUPP where the
 * id's transport cannot tell yet, or the transport's error.
 */
int rdma_init_qp_attr(struct rdma_cm_id *id, struct ib_qp_attr *qp_attr,
		      int *qp_attr_mask)
{
	struct rdma_id_private *id_priv = cma_id_priv(id);
	int ret;

	mutex_lock(&id_priv->qp_mutex);
	ret = cma_qp_attr(id_priv, qp_attr, qp_attr_mask);
	mutex_unlock(&id_priv->qp_mutex);
	return ret;
}
EXPORT_SYMBOL(rdma_init_qp_attr);

/*
 * One transition of the id's QP, with the RDMA read limits of @param
 * where the transition carries them.
 */
static int cma_qp_step(struct rdma_id_private *id_priv, enum ib_qp_state state,
		       const struct rdma_conn_param *param)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask, ret;

	ret = cma_qp_attr(id_priv, &attr, &mask);
	if (ret)
		return ret;
	if (param && (mask & IB_QP_MAX_DEST_RD_ATOMIC))
		attr.max_dest_rd_atomic = param->responder_resources;
	if (param && (mask & IB_QP_MAX_QP_RD_ATOMIC))
		attr.max_rd_atomic = param->initiator_depth;
	return ib_modify_qp(id_priv->id.qp, &attr, mask);
}

/**
 * cma_qp_ready - Ready the id's QP to receive on a connection.
 * @id_priv: the id, with the transport's connection id set up
 * @param: the consumer's connection parameters, or NULL
 *
 * The QP is moved to INIT again (the transport may now know more, e.g.
 * the negotiated access rights), then to RTR, with the responder
 * resources of @param.  Nothing happens for an id without a kernel QP.
 *
 * Return: 0 or the error of the attribute query or the modify.
 */
int cma_qp_ready(struct rdma_id_private *id_priv,
		 const struct rdma_conn_param *param)
{
	int ret = 0;

	mutex_lock(&id_priv->qp_mutex);
	if (id_priv->id.qp)
		ret = cma_qp_step(id_priv, IB_QPS_INIT, NULL) ?:
		      cma_qp_step(id_priv, IB_QPS_RTR, param);
	mutex_unlock(&id_priv->qp_mutex);
	return ret;
}

/**
 * cma_qp_rts - Let the id's QP send on a connection.
 * @id_priv: the id, its QP in RTR
 * @param: the consumer's connection parameters, or NULL
 *
 * The initiator depth of @param bounds the RDMA reads in flight.
 * Nothing happens for an id without a kernel QP.
 *
 * Return: 0 or the error of the attribute query or the modify.
 */
int cma_qp_rts(struct rdma_id_private *id_priv,
	       const struct rdma_conn_param *param)
{
	int ret = 0;

	mutex_lock(&id_priv->qp_mutex);
	if (id_priv->id.qp)
		ret = cma_qp_step(id_priv, IB_QPS_RTS, param);
	mutex_unlock(&id_priv->qp_mutex);
	return ret;
}

/**
 * cma_qp_error - Move the id's QP to the error state.
 * @id_priv: the id
 *
 * Flushes outstanding work when a connection ends or fails.  Nothing
 * happens for an id without a kernel QP.
 *
 * Return: 0 or the modify's error.
 */
int cma_qp_error(struct rdma_id_private *id_priv)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int ret = 0;

	mutex_lock(&id_priv->qp_mutex);
	if (id_priv->id.qp)
		ret = ib_modify_qp(id_priv->id.qp, &attr, IB_QP_STATE);
	mutex_unlock(&id_priv->qp_mutex);
	return ret;
}

/* Move a new QP to @state through the attributes rdma_cm gives it. */
static int cma_qp_to(struct rdma_id_private *id_priv, struct ib_qp *qp,
		     enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask, ret;

	ret = rdma_init_qp_attr(&id_priv->id, &attr, &mask);
	if (ret)
		return ret;
	return ib_modify_qp(qp, &attr, mask);
}

/* UD QPs send and receive without a connection: straight to RTS. */
static int cma_qp_init_ud(struct rdma_id_private *id_priv, struct ib_qp *qp)
{
	struct ib_qp_attr attr = {};
	int ret;

	ret = cma_qp_to(id_priv, qp, IB_QPS_INIT);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTR;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

/**
 * rdma_create_qp - Create a QP and attach it to an id.
 * @id: the id, attached to the device of @pd
 * @pd: protection domain of the QP
 * @qp_init_attr: QP creation attributes; its port_num is set to the id's
 *
 * The QP is moved to INIT (connected types) or RTS (UD) so that it can
 * receive before the connection is established.
 *
 * Return: 0 on success or a negative errno: -EINVAL if @pd is on another
 * device than the id (or the id has none), the verbs' error otherwise.
 */
int rdma_create_qp(struct rdma_cm_id *id, struct ib_pd *pd,
		   struct ib_qp_init_attr *qp_init_attr)
{
	struct rdma_id_private *id_priv = cma_id_priv(id);
	struct ib_qp *qp;
	int ret;

	if (!id->device || id->device != pd->device)
		return -EINVAL;

	qp_init_attr->port_num = id->port_num;
	qp = ib_create_qp(pd, qp_init_attr);
	if (IS_ERR(qp)) {
		ret = PTR_ERR(qp);
		goto out;
	}

	if (id->qp_type == IB_QPT_UD)
		ret = cma_qp_init_ud(id_priv, qp);
	else
		ret = cma_qp_to(id_priv, qp, IB_QPS_INIT);
	if (ret) {
		ib_destroy_qp(qp);
		goto out;
	}

	mutex_lock(&id_priv->qp_mutex);
	id->qp = qp;
	id_priv->qp_num = qp->qp_num;
	id_priv->srq = !!qp->srq;
	mutex_unlock(&id_priv->qp_mutex);
out:
	trace_cm_qp_create(id_priv, pd, qp_init_attr, ret);
	return ret;
}
EXPORT_SYMBOL(rdma_create_qp);

/**
 * rdma_destroy_qp - Destroy the QP created by rdma_create_qp().
 * @id: the id
 */
void rdma_destroy_qp(struct rdma_cm_id *id)
{
	struct rdma_id_private *id_priv = cma_id_priv(id);

	mutex_lock(&id_priv->qp_mutex);
	trace_cm_qp_destroy(id_priv);
	if (id->qp)
		ib_destroy_qp(id->qp);
	id->qp = NULL;
	mutex_unlock(&id_priv->qp_mutex);
}
EXPORT_SYMBOL(rdma_destroy_qp);
