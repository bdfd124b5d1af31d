// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Connections of the IB CM transports (InfiniBand and RoCE) over ib_cm:
 * REQ with the IP private-data header, REP, RTU, REJ, DREQ and DREP, and
 * the passive side, which finds the listener a REQ is for from its
 * service id and the header's destination address.
 *
 * Each id owns at most one ib_cm_id, in cm_id.ib.  A non-zero return
 * from an ib_cm callback makes ib_cm destroy that ib_cm_id itself, so
 * the id forgets it first.  PSNs follow what rdma_cm peers expect, so
 * that the two QPs agree: both REQ and REP announce the sender's
 * seq_num, and each side's receive PSN is its own seq_num.
 */
#include <linux/netdevice.h>
#include <net/ip6_route.h>
#include <net/ip_fib.h>
#include <rdma/ib.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>

#include "core_priv.h"
#include "cma_priv.h"
#include "cma_trace.h"

/* ib_cm timing, as rdma_cm peers expect: 4.096 us * 2^20 a try, 15 tries. */
#define CMA_CM_RESPONSE_TIMEOUT	20
#define CMA_MAX_CM_RETRIES	15
/* MRA: service timeout 4.096 us * 2^24, sent on a repeated REQ/REP only. */
#define CMA_CM_MRA_SETTING	(IB_CM_MRA_FLAG_DELAY | 24)

/*
 * A REQ or REP now goes to the consumer, who may answer it much later:
 * should the peer repeat its message meanwhile, ib_cm answers the repeat
 * with an MRA, so the peer waits instead of timing out.  It is armed
 * before the consumer's handler runs rather than after: that is the same
 * on the wire (a delayed MRA goes out only on a repeat, which ib_cm
 * handles only after the handler anyway) and ib_cm accepts the answers
 * in either state.
 */
static void cma_ib_mra(struct rdma_id_private *id_priv)
{
	if (id_priv->id.qp_type == IB_QPT_UD)
		return;
	trace_cm_send_mra(id_priv);
	ib_send_cm_mra(id_priv->cm_id.ib, CMA_CM_MRA_SETTING, NULL, 0);
}

/* An IP-addressed request carries the header; an AF_IB one does not. */
static u8 cma_ib_hdr_len(struct rdma_id_private *id_priv)
{
	return cma_src_addr(id_priv)->sa_family == AF_IB ? 0 : CMA_HDR_SIZE;
}

/**
 * cma_ib_req_pdata - The private data of a REQ or SIDR REQ.
 * @id_priv: the requesting id
 * @param: the consumer's parameters, with its private data
 * @max: what the message carries
 * @len: out: the length of the result
 *
 * Return: the IP header (for IP ids) followed by the consumer's data, to
 * kfree(); NULL when both are empty; ERR_PTR(-EINVAL) when the data does
 * not fit behind the header, or -ENOMEM.
 */
void *cma_ib_req_pdata(struct rdma_id_private *id_priv,
		       const struct rdma_conn_param *param, u8 max, u8 *len)
{
	u8 hdr = cma_ib_hdr_len(id_priv);
	void *pdata;
	int ret;

	if (param->private_data_len > max - hdr)
		return ERR_PTR(-EINVAL);
	*len = hdr + param->private_data_len;
	if (!*len)
		return NULL;
	pdata = kzalloc(*len, GFP_KERNEL);
	if (!pdata)
		return ERR_PTR(-ENOMEM);
	if (param->private_data_len)
		memcpy(pdata + hdr, param->private_data,
		       param->private_data_len);
	if (hdr) {
		ret = cma_hdr_encode(pdata, hdr, cma_src_addr(id_priv),
				     cma_dst_addr(id_priv));
		if (ret < 0) {
			kfree(pdata);
			return ERR_PTR(ret);
		}
	}
	return pdata;
}

/* The consumer's view of a REP: private data and the peer's QP. */
static void cma_ib_rep_event(struct rdma_cm_event *event,
			     const struct ib_cm_event *ib_event)
{
	const struct ib_cm_rep_event_param *rep = &ib_event->param.rep_rcvd;

	event->param.conn.private_data = ib_event->private_data;
	event->param.conn.private_data_len = IB_CM_REP_PRIVATE_DATA_SIZE;
	event->param.conn.responder_resources = rep->responder_resources;
	event->param.conn.initiator_depth = rep->initiator_depth;
	event->param.conn.flow_control = rep->flow_control;
	event->param.conn.rnr_retry_count = rep->rnr_retry_count;
	event->param.conn.srq = rep->srq;
	event->param.conn.qp_num = rep->remote_qpn;
	event->ece = rep->ece;
}

/*
 * A REP arrived for an id with a kernel QP: bring the QP up and send the
 * RTU.  On failure the QP goes to error and the peer gets a REJ.
 */
static int cma_ib_rep_recv(struct rdma_id_private *id_priv)
{
	int ret;

	ret = cma_qp_ready(id_priv, NULL) ?: cma_qp_rts(id_priv, NULL);
	if (!ret) {
		trace_cm_send_rtu(id_priv);
		ret = ib_send_cm_rtu(id_priv->cm_id.ib, NULL, 0);
	}
	if (ret) {
		cma_qp_error(id_priv);
		trace_cm_send_rej(id_priv);
		ib_send_cm_rej(id_priv->cm_id.ib, IB_CM_REJ_CONSUMER_DEFINED,
			       NULL, 0, NULL, 0);
	}
	return ret;
}

/*
 * An ib_cm event as the rdma_cm event the consumer gets; false for none.
 * Runs with @id_priv's handler_mutex held, the id in CONNECT or (for
 * TIMEWAIT_EXIT) DISCONNECT.
 */
static bool cma_ib_event(struct rdma_id_private *id_priv,
			 const struct ib_cm_event *ib_event,
			 struct rdma_cm_event *event)
{
	switch (ib_event->event) {
	case IB_CM_REQ_ERROR:
	case IB_CM_REP_ERROR:
		event->event = RDMA_CM_EVENT_UNREACHABLE;
		event->status = -ETIMEDOUT;
		return true;
	case IB_CM_REP_RECEIVED:
		cma_ib_mra(id_priv);
		if (id_priv->id.qp) {
			event->status = cma_ib_rep_recv(id_priv);
			event->event = event->status ?
				       RDMA_CM_EVENT_CONNECT_ERROR :
				       RDMA_CM_EVENT_ESTABLISHED;
		} else {
			cma_answer_owe(id_priv, CMA_ANSWER_REP);
			event->event = RDMA_CM_EVENT_CONNECT_RESPONSE;
		}
		cma_ib_rep_event(event, ib_event);
		return true;
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		event->event = RDMA_CM_EVENT_ESTABLISHED;
		return true;
	case IB_CM_DREQ_ERROR:
		event->status = -ETIMEDOUT;
		fallthrough;
	case IB_CM_DREQ_RECEIVED:
	case IB_CM_DREP_RECEIVED:
		/* DISCONNECTED once per connection. */
		if (cma_comp_exch(id_priv, RDMA_CM_CONNECT,
				  RDMA_CM_DISCONNECT))
			return false;
		event->event = RDMA_CM_EVENT_DISCONNECTED;
		return true;
	case IB_CM_TIMEWAIT_EXIT:
		event->event = RDMA_CM_EVENT_TIMEWAIT_EXIT;
		return true;
	case IB_CM_REJ_RECEIVED:
		cma_qp_error(id_priv);
		event->event = RDMA_CM_EVENT_REJECTED;
		event->status = ib_event->param.rej_rcvd.reason;
		event->param.conn.private_data = ib_event->private_data;
		event->param.conn.private_data_len =
			IB_CM_REJ_PRIVATE_DATA_SIZE;
		return true;
	default:
		/* MRA and the rest: nothing for the consumer. */
		return false;
	}
}

/* Callback of a connection's ib_cm_id, active or passive. */
static int cma_ib_handler(struct ib_cm_id *cm_id,
			  const struct ib_cm_event *ib_event)
{
	struct rdma_id_private *id_priv = cm_id->context;
	struct rdma_cm_event event = {};
	enum rdma_cm_state want;

	mutex_lock(&id_priv->handler_mutex);
	want = ib_event->event == IB_CM_TIMEWAIT_EXIT ? RDMA_CM_DISCONNECT :
						       RDMA_CM_CONNECT;
	/* Destroyed or removed meanwhile: nobody to tell. */
	if (READ_ONCE(id_priv->state) != want)
		goto out;
	if (!cma_ib_event(id_priv, ib_event, &event))
		goto out;
	return cma_deliver_unlock(id_priv, &event);
out:
	mutex_unlock(&id_priv->handler_mutex);
	return 0;
}

int cma_ib_connect(struct rdma_id_private *id_priv,
		   struct rdma_conn_param *param)
{
	struct rdma_route *route = &id_priv->id.route;
	struct ib_cm_req_param req = {};
	struct ib_cm_id *cm_id;
	void *pdata;
	u8 len;
	int ret;

	if (!param || !route->path_rec)
		return -EINVAL;
	if (id_priv->id.qp_type == IB_QPT_UD)
		return cma_ib_sidr_req(id_priv, param);
	pdata = cma_ib_req_pdata(id_priv, param, IB_CM_REQ_PRIVATE_DATA_SIZE,
				 &len);
	if (IS_ERR(pdata))
		return PTR_ERR(pdata);

	cm_id = ib_create_cm_id(id_priv->id.device, cma_ib_handler, id_priv);
	if (IS_ERR(cm_id)) {
		ret = PTR_ERR(cm_id);
		goto out;
	}
	id_priv->cm_id.ib = cm_id;

	req.primary_path = &route->path_rec[0];
	req.primary_path_inbound = route->path_rec_inbound;
	req.primary_path_outbound = route->path_rec_outbound;
	if (route->num_pri_alt_paths == 2)
		req.alternate_path = &route->path_rec[1];
	req.ppath_sgid_attr = route->addr.dev_addr.sgid_attr;
	req.service_id = rdma_get_service_id(&id_priv->id,
					     cma_dst_addr(id_priv));
	req.qp_num = id_priv->qp_num;
	req.qp_type = id_priv->id.qp_type;
	req.starting_psn = id_priv->seq_num;
	req.responder_resources = param->responder_resources;
	req.initiator_depth = param->initiator_depth;
	req.flow_control = param->flow_control;
	req.retry_count = min_t(u8, 7, param->retry_count);
	req.rnr_retry_count = min_t(u8, 7, param->rnr_retry_count);
	req.remote_cm_response_timeout = CMA_CM_RESPONSE_TIMEOUT;
	req.local_cm_response_timeout = CMA_CM_RESPONSE_TIMEOUT;
	req.max_cm_retries = CMA_MAX_CM_RETRIES;
	req.srq = id_priv->srq;
	req.ece = id_priv->ece;
	req.private_data = pdata;
	req.private_data_len = len;

	trace_cm_send_req(id_priv);
	ret = ib_send_cm_req(cm_id, &req);
	if (ret) {
		id_priv->cm_id.ib = NULL;
		ib_destroy_cm_id(cm_id);
	}
out:
	kfree(pdata);
	return ret;
}

int cma_ib_accept(struct rdma_id_private *id_priv,
		  struct rdma_conn_param *param)
{
	struct ib_cm_rep_param rep = {};
	int ret;

	if (id_priv->id.qp_type == IB_QPT_UD)
		return cma_ib_sidr_rep(id_priv, IB_SIDR_SUCCESS,
				       param ? param->qkey : 0,
				       param ? param->private_data : NULL,
				       param ? param->private_data_len : 0);
	/* The active side of a userspace QP: its RTU. */
	if (!param)
		return cma_ib_rep_recv(id_priv);

	ret = cma_qp_ready(id_priv, param) ?: cma_qp_rts(id_priv, param);
	if (ret)
		return ret;
	rep.qp_num = id_priv->qp_num;
	rep.starting_psn = id_priv->seq_num;
	rep.private_data = param->private_data;
	rep.private_data_len = param->private_data_len;
	rep.responder_resources = param->responder_resources;
	rep.initiator_depth = param->initiator_depth;
	rep.flow_control = param->flow_control;
	rep.rnr_retry_count = min_t(u8, 7, param->rnr_retry_count);
	rep.srq = id_priv->srq;
	rep.ece = id_priv->ece;
	trace_cm_send_rep(id_priv);
	return ib_send_cm_rep(id_priv->cm_id.ib, &rep);
}

int cma_ib_reject(struct rdma_id_private *id_priv, const void *pdata,
		  u8 pdata_len, u8 reason)
{
	if (id_priv->id.qp_type == IB_QPT_UD)
		return cma_ib_sidr_rep(id_priv, IB_SIDR_REJECT, 0, pdata,
				       pdata_len);
	trace_cm_send_rej(id_priv);
	return ib_send_cm_rej(id_priv->cm_id.ib, reason, NULL, 0, pdata,
			      pdata_len);
}

/* Flush the QP, then start a disconnect or answer the peer's DREQ. */
int cma_ib_disconnect(struct rdma_id_private *id_priv)
{
	int ret;

	ret = cma_qp_error(id_priv);
	if (ret)
		return ret;
	trace_cm_disconnect(id_priv);
	if (!ib_send_cm_dreq(id_priv->cm_id.ib, NULL, 0))
		trace_cm_sent_dreq(id_priv);
	else if (!ib_send_cm_drep(id_priv->cm_id.ib, NULL, 0))
		trace_cm_sent_drep(id_priv);
	return 0;
}

int cma_ib_notify(struct rdma_id_private *id_priv,
		  enum ib_event_type event)
{
	return ib_cm_notify(id_priv->cm_id.ib, event);
}

void cma_ib_destroy(struct rdma_id_private *id_priv)
{
	struct ib_cm_id *cm_id = id_priv->cm_id.ib;

	cma_sa_cancel(id_priv);
	id_priv->cm_id.ib = NULL;
	if (cm_id)
		ib_destroy_cm_id(cm_id);
}

/*
 * An AF_IB id's device address: InfiniBand, its GID and P_Key (for a REQ
 * the path's: cma_ib_req_sib() copied them).
 */
static void cma_ib_sib_dev_addr(struct rdma_dev_addr *dev_addr,
				const struct sockaddr_ib *sib)
{
	dev_addr->dev_type = ARPHRD_INFINIBAND;
	rdma_addr_set_sgid(dev_addr, (union ib_gid *)&sib->sib_addr);
	ib_addr_set_pkey(dev_addr, be16_to_cpu(sib->sib_pkey));
}

/*
 * The new passive id's addresses, path records and device address, from
 * the REQ and the netdev it arrived on (RoCE's, or IB's IPoIB netdev;
 * none for an AF_IB request).
 */
static int cma_ib_conn_setup(struct rdma_id_private *conn,
			     const struct ib_cm_req_event_param *req,
			     const struct sockaddr_storage *local,
			     const struct sockaddr_storage *remote,
			     struct net_device *ndev)
{
	const struct sockaddr_ib *sib = (const struct sockaddr_ib *)local;
	struct rdma_dev_addr *dev_addr = &conn->id.route.addr.dev_addr;
	struct rdma_route *route = &conn->id.route;
	int n;

	memcpy(cma_src_addr(conn), local, sizeof(*local));
	memcpy(cma_dst_addr(conn), remote, sizeof(*remote));
	if (ndev)
		rdma_copy_src_l2_addr(dev_addr, ndev);
	else
		cma_ib_sib_dev_addr(dev_addr, sib);

	/* A SIDR request (@req NULL) has no path: UD sends per address. */
	if (!req)
		return 0;

	n = req->alternate_path ? 2 : 1;
	route->path_rec = kcalloc(n, sizeof(*route->path_rec), GFP_KERNEL);
	if (!route->path_rec)
		return -ENOMEM;
	route->num_pri_alt_paths = n;
	route->path_rec[0] = *req->primary_path;
	if (n == 2)
		route->path_rec[1] = *req->alternate_path;
	rdma_addr_set_dgid(dev_addr, &route->path_rec[0].dgid);
	return 0;
}

/* CONNECT_REQUEST as the consumer sees a REQ or a SIDR REQ. */
static void cma_ib_req_event(struct rdma_cm_event *event,
			     const struct ib_cm_event *ib_event, u8 hdr_len)
{
	const struct ib_cm_req_event_param *req = &ib_event->param.req_rcvd;

	if (ib_event->event == IB_CM_SIDR_REQ_RECEIVED) {
		event->param.ud.private_data = ib_event->private_data + hdr_len;
		event->param.ud.private_data_len =
			IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE - hdr_len;
		return;
	}
	event->param.conn.private_data = ib_event->private_data + hdr_len;
	event->param.conn.private_data_len =
		IB_CM_REQ_PRIVATE_DATA_SIZE - hdr_len;
	event->param.conn.responder_resources = req->responder_resources;
	event->param.conn.initiator_depth = req->initiator_depth;
	event->param.conn.flow_control = req->flow_control;
	event->param.conn.retry_count = req->retry_count;
	event->param.conn.rnr_retry_count = req->rnr_retry_count;
	event->param.conn.srq = req->srq;
	event->param.conn.qp_num = req->remote_qpn;
	event->ece = req->ece;
}

/* A reject the peer's consumer chose: REJ with the consumer's reason. */
bool cma_ib_consumer_reject(const struct rdma_cm_event *ev)
{
	return ev->status == IB_CM_REJ_CONSUMER_DEFINED;
}

/**
 * cma_ib_req_netdev - The IPoIB netdev a request on an IB port is for.
 * @device: the device the request arrived on
 * @port: its port
 * @ib_event: the REQ or SIDR REQ
 * @local: the address the requester connects to
 *
 * As IPoIB answers ib_core: the netdev of the port, P_Key and (for a
 * REQ) local GID that serves @local.
 *
 * Return: the netdev with a reference, or NULL.
 */
struct net_device *cma_ib_req_netdev(struct ib_device *device, u32 port,
				     const struct ib_cm_event *ib_event,
				     const struct sockaddr_storage *local)
{
	const struct ib_cm_req_event_param *req = &ib_event->param.req_rcvd;

	if (ib_event->event == IB_CM_REQ_RECEIVED)
		return ib_get_net_dev_by_params(device, port,
						be16_to_cpu(req->primary_path->pkey),
						&req->primary_path->sgid,
						(const struct sockaddr *)local);
	return ib_get_net_dev_by_params(device, port,
					ib_event->param.sidr_req_rcvd.pkey,
					NULL, (const struct sockaddr *)local);
}

/*
 * The netdev a REQ or SIDR REQ arrived on, with a reference, or NULL.
 * The transport of the port it arrived on finds it, not the listener's:
 * one device may have IB and RoCE ports.
 */
static struct net_device *cma_ib_req_ndev(struct ib_cm_id *cm_id,
					  const struct ib_cm_event *ib_event,
					  const struct sockaddr_storage *local)
{
	const struct cma_transport_ops *xprt;
	u32 port;

	if (ib_event->event == IB_CM_REQ_RECEIVED)
		port = ib_event->param.req_rcvd.port;
	else
		port = ib_event->param.sidr_req_rcvd.port;
	xprt = cma_transport_of(cm_id->device, port);
	if (!xprt || !xprt->req_netdev)
		return NULL;
	return xprt->req_netdev(cm_id->device, port, ib_event, local);
}

/*
 * Whether @ndev is up and the host routes from @local to the requester's
 * @remote through it, checked before the header is trusted: the
 * addresses a REQ claims must belong to the netdev it arrived on.
 */
static bool cma_ib_req_routed(struct net_device *ndev,
			      const struct sockaddr *remote,
			      const struct sockaddr *local)
{
	const struct sockaddr_in6 *r6 = cma_sin6(remote);
	struct fib_result res;
	struct flowi4 fl4 = {};
	struct rt6_info *rt;
	bool ok = false;
	__be32 r, l;

	if (!(READ_ONCE(ndev->flags) & IFF_UP) ||
	    remote->sa_family != local->sa_family)
		return false;
	if (remote->sa_family == AF_INET6) {
		if (!IS_ENABLED(CONFIG_IPV6))
			return false;
		rt = rt6_lookup(dev_net(ndev), &r6->sin6_addr,
				&cma_sin6(local)->sin6_addr, ndev->ifindex,
				NULL, ipv6_addr_type(&r6->sin6_addr) &
				      IPV6_ADDR_LINKLOCAL);
		if (!rt)
			return false;
		ok = rt->rt6i_idev->dev == ndev;
		ip6_rt_put(rt);
		return ok;
	}
	if (remote->sa_family != AF_INET)
		return false;
	r = cma_sin(remote)->sin_addr.s_addr;
	l = cma_sin(local)->sin_addr.s_addr;
	if (ipv4_is_multicast(l) || ipv4_is_lbcast(l) || ipv4_is_lbcast(r) ||
	    ipv4_is_zeronet(l) || ipv4_is_zeronet(r) ||
	    ipv4_is_loopback(l) || ipv4_is_loopback(r))
		return false;
	fl4.flowi4_oif = ndev->ifindex;
	fl4.daddr = r;
	fl4.saddr = l;
	rcu_read_lock();
	ok = !fib_lookup(dev_net(ndev), &fl4, &res, 0) &&
	     FIB_RES_DEV(res) == ndev;
	rcu_read_unlock();
	return ok;
}

/*
 * A link-local address names its link: the request's addresses get the
 * scope id of the netdev it arrived on, so that only a listener bound
 * to that interface (or a wildcard one) matches it, and the new id
 * reports where it is.
 */
static void cma_ib_req_scope(struct sockaddr_storage *addr,
			     const struct net_device *ndev)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)addr;

	if (addr->ss_family == AF_INET6 &&
	    ipv6_addr_type(&sin6->sin6_addr) & IPV6_ADDR_LINKLOCAL)
		sin6->sin6_scope_id = ndev->ifindex;
}

/*
 * An IP request's netdev (referenced, in @ndev), which must serve its
 * addresses (cma_ib_req_routed()); link-local ones get its scope.
 */
static int cma_ib_req_ip(struct ib_cm_id *cm_id,
			 const struct ib_cm_event *ib_event,
			 struct sockaddr_storage *local,
			 struct sockaddr_storage *remote,
			 struct net_device **ndev)
{
	*ndev = cma_ib_req_ndev(cm_id, ib_event, local);
	if (!*ndev)
		return -ENODEV;
	if (!cma_ib_req_routed(*ndev, (struct sockaddr *)remote,
			       (struct sockaddr *)local)) {
		dev_put(*ndev);
		return -EHOSTUNREACH;
	}
	cma_ib_req_scope(local, *ndev);
	cma_ib_req_scope(remote, *ndev);
	return 0;
}

/*
 * An AF_IB request's addresses, from its primary path as ib_cm turned it
 * to this side (sgid the local one).  A SIDR request has no path: its
 * local address is the listener's (cma_ib_req_sib_listener()).
 */
static void cma_ib_req_sib(struct ib_cm_id *cm_id,
			   const struct ib_cm_req_event_param *req,
			   struct sockaddr_storage *local,
			   struct sockaddr_storage *remote)
{
	struct sockaddr_ib *l = (struct sockaddr_ib *)local;
	struct sockaddr_ib *r = (struct sockaddr_ib *)remote;
	const struct sa_path_rec *path = req ? req->primary_path : NULL;

	memset(local, 0, sizeof(*local));
	memset(remote, 0, sizeof(*remote));
	l->sib_family = AF_IB;
	r->sib_family = AF_IB;
	if (!path)
		return;
	l->sib_pkey = path->pkey;
	l->sib_flowinfo = path->flow_label;
	memcpy(&l->sib_addr, &path->sgid, sizeof(l->sib_addr));
	l->sib_sid = cm_id->service_id;
	l->sib_sid_mask = cpu_to_be64(U64_MAX);
	r->sib_pkey = path->pkey;
	r->sib_flowinfo = path->flow_label;
	memcpy(&r->sib_addr, &path->dgid, sizeof(r->sib_addr));
}

/*
 * Whether the AF_IB listener @l takes an AF_IB request: bound to a port,
 * only the port's; a wildcard one, every port's.  A SIDR request's local
 * address becomes @l's own.
 */
static bool cma_ib_req_sib_listener(struct rdma_id_private *l,
				    const struct ib_cm_event *ib_event,
				    struct sockaddr_storage *local)
{
	u32 port = ib_event->event == IB_CM_REQ_RECEIVED ?
		   ib_event->param.req_rcvd.port :
		   ib_event->param.sidr_req_rcvd.port;

	if (!cma_ps_listener_on_port(l, port))
		return false;
	if (ib_event->event != IB_CM_REQ_RECEIVED) {
		memcpy(local, cma_src_addr(l), sizeof(*local));
		((struct sockaddr_ib *)local)->sib_sid_mask =
			cpu_to_be64(U64_MAX);
	}
	return true;
}

/* The listener a REQ is for, with a reference, or NULL. */
static struct rdma_id_private *
cma_ib_find_listener(struct ib_cm_id *cm_id, struct net *net,
		     const struct sockaddr_storage *local)
{
	__be64 sid = cm_id->service_id;
	struct rdma_id_private *l, *child;

	l = cma_ps_find_listener(cma_ps_table(net), cma_service_id_ps(sid),
				 cma_service_id_port(sid),
				 (const struct sockaddr *)local,
				 cm_id->device);
	if (!l || l->cma_dev)
		return l;
	child = cma_listen_child_on(l, cm_id->device);
	cma_id_put(l);
	return child;
}

/*
 * A REQ reached the ib_cm listener of a service: find the rdma_cm
 * listener, make a new id in CONNECT on its device that takes over the
 * REQ's ib_cm_id, and offer it to the consumer.  Non-zero refuses the
 * request (ib_cm then destroys @cm_id and rejects).
 */
static int cma_ib_req_handler(struct ib_cm_id *cm_id,
			      const struct ib_cm_event *ib_event)
{
	const struct ib_cm_req_event_param *req = &ib_event->param.req_rcvd;
	struct rdma_cm_event event = {
		.event = RDMA_CM_EVENT_CONNECT_REQUEST,
	};
	struct sockaddr_storage local, remote;
	struct rdma_id_private *listener, *conn;
	enum ib_qp_type qp_type;
	struct net_device *ndev;
	size_t pdata_len;
	struct net *net;
	int ret;

	switch (ib_event->event) {
	case IB_CM_REQ_RECEIVED:
		pdata_len = IB_CM_REQ_PRIVATE_DATA_SIZE;
		qp_type = req->qp_type;
		break;
	case IB_CM_SIDR_REQ_RECEIVED:
		pdata_len = IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE;
		qp_type = IB_QPT_UD;
		req = NULL;
		break;
	default:
		return -EINVAL;
	}
	ret = cma_hdr_decode(ib_event->private_data, pdata_len,
			     cm_id->service_id, &local, &remote);
	if (ret == -EAFNOSUPPORT) {
		/* Neither IPv4 nor IPv6 in the header: an AF_IB request. */
		ndev = NULL;
		net = &init_net;
		cma_ib_req_sib(cm_id, req, &local, &remote);
	} else {
		ret = ret ?: cma_ib_req_ip(cm_id, ib_event, &local, &remote,
					   &ndev);
		if (ret)
			return ret;
		net = dev_net(ndev);
	}
	listener = cma_ib_find_listener(cm_id, net, &local);
	ret = -ECONNREFUSED;
	if (!listener)
		goto out_ndev;
	if (!ndev && !cma_ib_req_sib_listener(listener, ib_event, &local)) {
		cma_id_put(listener);
		goto out_ndev;
	}

	mutex_lock(&listener->handler_mutex);
	trace_cm_req_handler(listener, ib_event->event);
	/*
	 * Another QP type than the listener's: never the consumer's to
	 * see.  ib_cm answers the error with a REJ (consumer defined), or
	 * a SIDR REP with status reject.
	 */
	ret = -EINVAL;
	if (!cma_opt_req_qp_type(listener->id.qp_type, qp_type))
		goto out;
	ret = -ECONNABORTED;
	if (READ_ONCE(listener->state) != RDMA_CM_LISTEN)
		goto out;
	conn = cma_listen_new_conn(listener, net, qp_type);
	ret = -ENOMEM;
	if (!conn)
		goto out;
	ret = cma_ib_conn_setup(conn, req, &local, &remote, ndev) ?:
	      cma_dev_acquire_like(conn, listener);
	if (ret) {
		cma_destroy_handler_unlock(conn);
		goto out;
	}
	rdma_restrack_add(&conn->res);

	conn->cm_id.ib = cm_id;
	cm_id->context = conn;
	cm_id->cm_handler = cma_ib_handler;

	cma_ib_req_event(&event, ib_event, cma_ib_hdr_len(conn));
	cma_ib_mra(conn);
	/* Non-zero: the consumer refused it; ib_cm destroys cm_id. */
	ret = cma_deliver_unlock(conn, &event);
out:
	mutex_unlock(&listener->handler_mutex);
	cma_id_put(listener);
out_ndev:
	dev_put(ndev);
	return ret;
}

/*
 * One ib_cm listener per device and service id, shared by every rdma_cm
 * listener of that port (different addresses, IPv4 and IPv6); the REQ
 * handler picks the rdma_cm one.
 */
int cma_ib_listen(struct rdma_id_private *id_priv, int backlog)
{
	struct ib_cm_id *cm_id;
	__be64 sid;

	sid = rdma_get_service_id(&id_priv->id, cma_src_addr(id_priv));
	cm_id = ib_cm_insert_listen(id_priv->id.device, cma_ib_req_handler,
				    sid);
	if (IS_ERR(cm_id))
		return PTR_ERR(cm_id);
	id_priv->cm_id.ib = cm_id;
	return 0;
}
