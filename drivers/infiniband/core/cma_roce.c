// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The RoCE transport of the rdma_cm switch: ib_cm on the wire, as on
 * InfiniBand (cma_ib_conn.c), but no SA: the path record is built from
 * the netdev the address resolved to.  Multicast groups are IP ones: a
 * join needs no SA either, the group's record is built from the IP group
 * address and the netdev, a RoCE v2 full member also joins the IPv4
 * group on the netdev (so that IGMP tells the switches), and the join is
 * reported from a work item.  What the path takes from the netdev stack
 * is in cma_roce_net.c.
 */
#include <linux/if_arp.h>
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/ipv6.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_sa.h>

#include "core_priv.h"
#include "cma_priv.h"

/* The packet lifetime of RoCE paths: 4.096 us * 2^18, about 1 s. */
#define CMA_ROCE_PACKET_LIFETIME	18

/* RoCE v2 flow label: the IPv6 one if set, else a hash of the ports. */
static __be32 cma_roce_flow_label(struct rdma_id_private *id_priv)
{
	struct sockaddr *src = cma_src_addr(id_priv);
	u32 fl = 0;

	if (src->sa_family == AF_INET6)
		fl = be32_to_cpu(((struct sockaddr_in6 *)src)->sin6_flowinfo) &
		     IB_GRH_FLOWLABEL_MASK;
	if (!fl)
		fl = ((u32)cma_addr_port(src) * 31 +
		      cma_addr_port(cma_dst_addr(id_priv))) &
		     IB_GRH_FLOWLABEL_MASK;
	return cpu_to_be32(fl);
}

/* The Ethernet fields of a RoCE path record: type and next hop's MAC. */
static void cma_roce_fill_l2(struct rdma_id_private *id_priv,
			     struct sa_path_rec *path)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	u32 port = id_priv->id.port_num;
	int def = cma_dev_default_gid_type(id_priv->cma_dev, port);
	enum ib_gid_type gid_type;

	gid_type = cma_roce_route_gid_type(dev_addr->network,
					   roce_gid_type_mask_support(id_priv->id.device,
								      port),
					   def < 0 ? IB_GID_TYPE_IB : def);
	path->rec_type = sa_conv_gid_to_pathrec_type(gid_type);
	path->roce.route_resolved = true;
	sa_path_set_dmac(path, id_priv->id.route.addr.dev_addr.dst_dev_addr);
}

/**
 * cma_roce_path_l2 - Fill the Ethernet fields of a RoCE path record.
 * @id_priv: the id, with its address resolved on a RoCE port
 * @path: the record
 *
 * Return: 0, or -ENODEV if the id's netdev is gone.
 */
static int cma_roce_path_l2(struct rdma_id_private *id_priv,
			    struct sa_path_rec *path)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct net_device *ndev;

	ndev = dev_get_by_index(dev_addr->net, dev_addr->bound_dev_if);
	if (!ndev)
		return -ENODEV;
	dev_put(ndev);
	cma_roce_fill_l2(id_priv, path);
	return 0;
}

/**
 * cma_roce_path - Fill a path record for a RoCE id from its addresses.
 * @id_priv: the id, with its address resolved on a RoCE port
 * @path: the record to fill, zeroed by the caller
 *
 * Return: 0, -ENODEV if the id's netdev is gone, or -EINVAL if its MTU
 * is too small for RoCE.
 */
static int cma_roce_path(struct rdma_id_private *id_priv,
			 struct sa_path_rec *path)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct cma_device *cma_dev = id_priv->cma_dev;
	u32 port = id_priv->id.port_num;
	struct net_device *ndev;
	int tos;

	ndev = dev_get_by_index(dev_addr->net, dev_addr->bound_dev_if);
	if (!ndev)
		return -ENODEV;
	cma_roce_fill_l2(id_priv, path);

	tos = cma_dev_default_roce_tos(cma_dev, port);
	mutex_lock(&id_priv->qp_mutex);
	if (id_priv->tos_set)
		tos = id_priv->tos;
	path->packet_life_time = id_priv->timeout_set && id_priv->timeout ?
				 id_priv->timeout - 1 :
				 CMA_ROCE_PACKET_LIFETIME;
	mutex_unlock(&id_priv->qp_mutex);

	rdma_ip2gid(cma_src_addr(id_priv), &path->sgid);
	rdma_ip2gid(cma_dst_addr(id_priv), &path->dgid);
	path->hop_limit = cma_dst_addr(id_priv)->sa_family == AF_IB ?
			  1 : dev_addr->hoplimit;
	path->reversible = 1;
	path->pkey = cpu_to_be16(0xffff);
	path->mtu_selector = IB_SA_EQ;
	path->sl = cma_roce_tos_to_sl(ndev, tos < 0 ? 0 : tos);
	path->traffic_class = tos < 0 ? 0 : tos;
	path->mtu = iboe_get_mtu(ndev->mtu);
	path->rate_selector = IB_SA_EQ;
	path->rate = IB_RATE_PORT_CURRENT;
	path->packet_life_time_selector = IB_SA_EQ;
	dev_put(ndev);
	if (!path->mtu)
		return -EINVAL;
	if (rdma_protocol_roce_udp_encap(id_priv->id.device, port))
		path->flow_label = cma_roce_flow_label(id_priv);
	return 0;
}

static int cma_roce_resolve_route(struct rdma_id_private *id_priv,
				  unsigned long timeout_ms)
{
	struct rdma_route *route = &id_priv->id.route;
	struct sa_path_rec *path;
	int ret;

	path = kzalloc(sizeof(*path), GFP_KERNEL);
	if (!path)
		return -ENOMEM;
	ret = cma_roce_path(id_priv, path);
	if (ret) {
		kfree(path);
		return ret;
	}
	cma_route_reset(id_priv);
	route->path_rec = path;
	route->num_pri_alt_paths = 1;

	/* The peer's hardware address may change under the route. */
	cma_neigh_watch(id_priv);
	ret = cma_queue_event(id_priv, RDMA_CM_ROUTE_QUERY,
			      RDMA_CM_ROUTE_RESOLVED,
			      RDMA_CM_EVENT_ROUTE_RESOLVED);
	if (ret) {
		cma_neigh_unwatch(id_priv);
		cma_route_reset(id_priv);
	}
	return ret;
}

/* RoCE has no partitions: a QP is in the default one. */
static int cma_roce_init_qp_attr(struct rdma_id_private *id_priv,
				 struct ib_qp_attr *qp_attr, int *qp_attr_mask)
{
	return cma_ib_cm_init_qp_attr(id_priv, 0xffff, qp_attr, qp_attr_mask);
}

/*
 * The GID of the source IP address; for an Ethernet address, on the
 * netdev the address lives on and of the port's default GID type.
 */
static const struct ib_gid_attr *
cma_roce_src_gid_attr(struct rdma_id_private *id_priv,
		      struct cma_device *cma_dev, u32 port)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	enum ib_gid_type gid_type = IB_GID_TYPE_IB;
	const struct ib_gid_attr *sgid_attr;
	struct net_device *ndev = NULL;
	union ib_gid gid = {};

	if (dev_addr->dev_type == ARPHRD_INFINIBAND)
		return ERR_PTR(-ENODEV);
	rdma_ip2gid(cma_src_addr(id_priv), &gid);
	if (dev_addr->dev_type == ARPHRD_ETHER) {
		ndev = dev_get_by_index(dev_addr->net, dev_addr->bound_dev_if);
		if (!ndev)
			return ERR_PTR(-ENODEV);
		gid_type = cma_dev_default_gid_type(cma_dev, port);
	}
	sgid_attr = rdma_find_gid_by_port(cma_dev->device, &gid, gid_type,
					  port, ndev);
	dev_put(ndev);
	return sgid_attr;
}

/* RoCE GIDs stand for IP addresses. */
static void cma_roce_read_gids(struct rdma_cm_id *id,
			       union ib_gid *sgid, union ib_gid *dgid)
{
	struct rdma_addr *addr = &id->route.addr;

	if (sgid)
		rdma_ip2gid((struct sockaddr *)&addr->src_addr, sgid);
	if (dgid)
		rdma_ip2gid((struct sockaddr *)&addr->dst_addr, dgid);
}

/* The netdev of the GID entry the request arrived on. */
static struct net_device *
cma_roce_req_netdev(struct ib_device *device, u32 port,
		    const struct ib_cm_event *ib_event,
		    const struct sockaddr_storage *local)
{
	const struct ib_gid_attr *sgid_attr;
	struct net_device *ndev;

	if (ib_event->event == IB_CM_REQ_RECEIVED)
		sgid_attr = ib_event->param.req_rcvd.ppath_sgid_attr;
	else
		sgid_attr = ib_event->param.sidr_req_rcvd.sgid_attr;
	if (!sgid_attr)
		return NULL;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(sgid_attr);
	if (IS_ERR(ndev))
		ndev = NULL;
	else
		dev_hold(ndev);
	rcu_read_unlock();
	return ndev;
}

/* A join's work: deliver the event cma_roce_join() prepared. */
static void cma_roce_mc_work(struct work_struct *work)
{
	struct cma_multicast *mc = container_of(work, struct cma_multicast,
						work);
	struct rdma_id_private *id_priv = mc->id_priv;

	mutex_lock(&id_priv->handler_mutex);
	if (cma_id_live(id_priv))
		cma_mcast_deliver(id_priv, &mc->event);
	mutex_unlock(&id_priv->handler_mutex);
}

/*
 * The RoCE multicast GID of an IP group: an IPv6 group as is; an IPv4
 * one IPv4-mapped for RoCE v2, or in ff0e::ffff:0:0/96 for RoCE v1.
 */
static void cma_roce_mgid(const struct sockaddr *addr, union ib_gid *mgid,
			  enum ib_gid_type gid_type)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)addr;

	memset(mgid, 0, sizeof(*mgid));
	if (addr->sa_family == AF_INET6) {
		memcpy(mgid->raw,
		       &((const struct sockaddr_in6 *)addr)->sin6_addr, 16);
		return;
	}
	if (gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP) {
		mgid->raw[0] = 0xff;
		mgid->raw[1] = 0x0e;
	}
	mgid->raw[10] = 0xff;
	mgid->raw[11] = 0xff;
	memcpy(&mgid->raw[12], &sin->sin_addr.s_addr, 4);
}

/* Join or leave the IPv4 group of @mgid on the netdev @ifindex. */
static int cma_igmp(struct net *net, int ifindex, const union ib_gid *mgid,
		    bool join)
{
	struct net_device *ndev;
	struct in_device *in_dev;
	__be32 group;
	int ret = -ENODEV;

	memcpy(&group, &mgid->raw[12], sizeof(group));
	rtnl_lock();
	ndev = __dev_get_by_index(net, ifindex);
	in_dev = ndev ? __in_dev_get_rtnl(ndev) : NULL;
	if (in_dev) {
		if (join)
			ip_mc_inc_group(in_dev, group);
		else
			ip_mc_dec_group(in_dev, group);
		ret = 0;
	}
	rtnl_unlock();
	return ret;
}

/**
 * cma_roce_join - Join an IP multicast group on a RoCE port.
 * @id_priv: a UD id attached to a RoCE port
 * @mc: the group, not yet on the id's list
 *
 * Return: 0 once MULTICAST_JOIN is queued, or a negative errno:
 * -EINVAL for the zero address or a port whose MTU RoCE cannot use,
 * -ENODEV without a netdev, -EOPNOTSUPP for IPv6 groups on RoCE v2.
 */
static int cma_roce_join(struct rdma_id_private *id_priv, struct cma_multicast *mc)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	const struct sockaddr *addr = (struct sockaddr *)&mc->addr;
	struct ib_sa_mcmember_rec rec = {};
	struct rdma_cm_event *event = &mc->event;
	struct net_device *ndev;
	enum ib_gid_type gid_type;
	bool v2;
	int ret;

	if (cma_zero_addr(addr))
		return -EINVAL;
	gid_type = cma_dev_default_gid_type(id_priv->cma_dev,
					    id_priv->id.port_num);
	v2 = gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP;
	if (v2 && addr->sa_family != AF_INET)
		return -EOPNOTSUPP;
	ndev = dev_get_by_index(dev_addr->net, dev_addr->bound_dev_if);
	if (!ndev)
		return -ENODEV;

	cma_roce_mgid(addr, &rec.mgid, gid_type);
	rdma_ip2gid(cma_src_addr(id_priv), &rec.port_gid);
	rec.pkey = cpu_to_be16(0xffff);
	rec.rate = IB_RATE_PORT_CURRENT;
	rec.mtu = iboe_get_mtu(ndev->mtu);
	rec.hop_limit = v2 ? IPV6_DEFAULT_HOPLIMIT : 1;
	ret = rec.mtu ? cma_ib_qkey(id_priv) : -EINVAL;
	if (ret)
		goto out;
	rec.qkey = cpu_to_be32(id_priv->qkey);

	ret = ib_init_ah_from_mcmember(id_priv->id.device,
				       id_priv->id.port_num, &rec, ndev,
				       gid_type, &event->param.ud.ah_attr);
	if (ret)
		goto out;
	if (v2 && mc->join_state != BIT(SENDONLY_FULLMEMBER_JOIN)) {
		ret = cma_igmp(dev_addr->net, ndev->ifindex, &rec.mgid, true);
		if (ret) {
			rdma_destroy_ah_attr(&event->param.ud.ah_attr);
			goto out;
		}
		mc->igmp_joined = 1;
		mc->ifindex = ndev->ifindex;
	}

	event->event = RDMA_CM_EVENT_MULTICAST_JOIN;
	event->param.ud.private_data = mc->context;
	event->param.ud.qp_num = 0xffffff;	/* the multicast QPN */
	event->param.ud.qkey = id_priv->qkey;
	INIT_WORK(&mc->work, cma_roce_mc_work);
	queue_work(system_unbound_wq, &mc->work);
out:
	dev_put(ndev);
	return ret;
}

/**
 * cma_roce_leave - Leave a RoCE group joined by cma_roce_join().
 * @id_priv: the id
 * @mc: the group, off the id's list
 *
 * Waits for the join's event if it is being delivered.
 */
static void cma_roce_leave(struct rdma_id_private *id_priv,
			   struct cma_multicast *mc)
{
	union ib_gid mgid;

	cancel_work_sync(&mc->work);
	if (mc->igmp_joined) {
		cma_roce_mgid((struct sockaddr *)&mc->addr, &mgid,
			      IB_GID_TYPE_ROCE_UDP_ENCAP);
		cma_igmp(cma_id_net(id_priv), mc->ifindex, &mgid, false);
	}
	rdma_destroy_ah_attr(&mc->event.param.ud.ah_attr);
}

const struct cma_transport_ops cma_roce_transport = {
	.name		= "ib_cm (RoCE)",
	.resolve_route	= cma_roce_resolve_route,
	.set_path	= cma_roce_path_l2,
	.join		= cma_roce_join,
	.leave		= cma_roce_leave,
	.listen		= cma_ib_listen,
	.connect	= cma_ib_connect,
	.accept		= cma_ib_accept,
	.reject		= cma_ib_reject,
	.disconnect	= cma_ib_disconnect,
	.notify		= cma_ib_notify,
	.init_qp_attr	= cma_roce_init_qp_attr,
	.destroy	= cma_ib_destroy,
	.src_gid_attr	= cma_roce_src_gid_attr,
	.read_gids	= cma_roce_read_gids,
	.req_netdev	= cma_roce_req_netdev,
	.reject_msg	= ibcm_reject_msg,
	.consumer_reject = cma_ib_consumer_reject,
	.dev_type	= ARPHRD_ETHER,
	.af_ib		= true,
};
