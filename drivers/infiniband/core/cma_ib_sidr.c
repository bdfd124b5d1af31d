// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * UD ids over ib_cm: "connecting" a UD id is a service id resolution.
 * The SIDR REQ carries the IP header like a REQ; the SIDR REP answers
 * with the remote QP number and Q_Key, from which the active side gets
 * an address handle.  The passive side is cma_ib_conn.c's request
 * handler, which serves both.
 */
#include <rdma/ib_cm.h>
#include <rdma/ib_sa.h>

#include "cma_priv.h"
#include "cma_trace.h"

/* SIDR REQ timing, as rdma_cm peers expect: 4.096 us * 2^20, 15 tries. */
#define CMA_SIDR_TIMEOUT_MS	(1 << (20 - 8))
#define CMA_SIDR_RETRIES	15

/*
 * The id's Q_Key: the one agreed with the peer, the consumer's, or the
 * port space's default.  A Q_Key that contradicts the one the id has is
 * -EINVAL: a UD id sends and receives with one Q_Key.
 */
static int cma_sidr_qkey(struct rdma_id_private *id_priv, u32 qkey)
{
	if (id_priv->qkey)
		return qkey && qkey != id_priv->qkey ? -EINVAL : 0;
	if (qkey) {
		id_priv->qkey = qkey;
		return 0;
	}
	return cma_ib_qkey(id_priv);
}

/* The SIDR REP, or its absence, as the consumer's event. */
static void cma_sidr_event(struct rdma_id_private *id_priv,
			   const struct ib_cm_event *ib_event,
			   struct rdma_cm_event *event)
{
	const struct ib_cm_sidr_rep_event_param *rep =
		&ib_event->param.sidr_rep_rcvd;
	int ret;

	if (ib_event->event == IB_CM_SIDR_REQ_ERROR) {
		event->event = RDMA_CM_EVENT_UNREACHABLE;
		event->status = -ETIMEDOUT;
		return;
	}
	event->param.ud.private_data = ib_event->private_data;
	event->param.ud.private_data_len = IB_CM_SIDR_REP_PRIVATE_DATA_SIZE;
	if (rep->status != IB_SIDR_SUCCESS) {
		event->event = RDMA_CM_EVENT_UNREACHABLE;
		event->status = rep->status;
		return;
	}
	ret = cma_sidr_qkey(id_priv, rep->qkey);
	if (!ret)
		ret = ib_init_ah_attr_from_path(id_priv->id.device,
						id_priv->id.port_num,
						id_priv->id.route.path_rec,
						&event->param.ud.ah_attr,
						rep->sgid_attr);
	if (ret) {
		event->event = RDMA_CM_EVENT_ADDR_ERROR;
		event->status = ret;
		return;
	}
	event->event = RDMA_CM_EVENT_ESTABLISHED;
	event->param.ud.qp_num = rep->qpn;
	event->param.ud.qkey = rep->qkey;
}

/* Callback of the active side's SIDR ib_cm_id. */
static int cma_sidr_rep_handler(struct ib_cm_id *cm_id,
				const struct ib_cm_event *ib_event)
{
	struct rdma_id_private *id_priv = cm_id->context;
	struct rdma_cm_event event = {};
	int ret;

	mutex_lock(&id_priv->handler_mutex);
	if (READ_ONCE(id_priv->state) != RDMA_CM_CONNECT ||
	    (ib_event->event != IB_CM_SIDR_REQ_ERROR &&
	     ib_event->event != IB_CM_SIDR_REP_RECEIVED)) {
		mutex_unlock(&id_priv->handler_mutex);
		return 0;
	}
	cma_sidr_event(id_priv, ib_event, &event);
	ret = cma_deliver_unlock(id_priv, &event);
	/* The AH attribute held a GID reference only for the handler. */
	rdma_destroy_ah_attr(&event.param.ud.ah_attr);
	return ret;
}

/**
 * cma_ib_sidr_req - Resolve a UD id's remote QP: send the SIDR REQ.
 * @id_priv: the id, in CONNECT with its route resolved
 * @param: the consumer's parameters, with its private data
 *
 * Return: 0 once the request is out (ESTABLISHED with the remote QP, or
 * UNREACHABLE, follows), or a negative errno.
 */
int cma_ib_sidr_req(struct rdma_id_private *id_priv,
		    struct rdma_conn_param *param)
{
	struct ib_cm_sidr_req_param req = {};
	struct ib_cm_id *cm_id;
	void *pdata;
	u8 len;
	int ret;

	pdata = cma_ib_req_pdata(id_priv, param,
				 IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE, &len);
	if (IS_ERR(pdata))
		return PTR_ERR(pdata);
	cm_id = ib_create_cm_id(id_priv->id.device, cma_sidr_rep_handler,
				id_priv);
	if (IS_ERR(cm_id)) {
		ret = PTR_ERR(cm_id);
		goto out;
	}
	id_priv->cm_id.ib = cm_id;

	req.path = id_priv->id.route.path_rec;
	req.sgid_attr = id_priv->id.route.addr.dev_addr.sgid_attr;
	req.service_id = rdma_get_service_id(&id_priv->id,
					     cma_dst_addr(id_priv));
	req.timeout_ms = CMA_SIDR_TIMEOUT_MS;
	req.max_cm_retries = CMA_SIDR_RETRIES;
	req.private_data = pdata;
	req.private_data_len = len;
	trace_cm_send_sidr_req(id_priv);
	ret = ib_send_cm_sidr_req(cm_id, &req);
	if (ret) {
		id_priv->cm_id.ib = NULL;
		ib_destroy_cm_id(cm_id);
	}
out:
	kfree(pdata);
	return ret;
}

/**
 * cma_ib_sidr_rep - Answer a SIDR REQ.
 * @id_priv: the passive UD id
 * @status: IB_SIDR_SUCCESS to accept, IB_SIDR_REJECT to refuse
 * @qkey: the consumer's Q_Key, or 0 for the id's
 * @pdata: private data for the requester
 * @pdata_len: its length
 *
 * Return: 0 or a negative errno (-EINVAL for a Q_Key that contradicts
 * the id's).
 */
int cma_ib_sidr_rep(struct rdma_id_private *id_priv, int status, u32 qkey,
		    const void *pdata, u8 pdata_len)
{
	struct ib_cm_sidr_rep_param rep = {};
	int ret;

	if (status == IB_SIDR_SUCCESS) {
		ret = cma_sidr_qkey(id_priv, qkey);
		if (ret)
			return ret;
		rep.qp_num = id_priv->qp_num;
		rep.qkey = id_priv->qkey;
		rep.ece = id_priv->ece;
	}
	rep.status = status;
	rep.private_data = pdata;
	rep.private_data_len = pdata_len;
	trace_cm_send_sidr_rep(id_priv);
	return ib_send_cm_sidr_rep(id_priv->cm_id.ib, &rep);
}
