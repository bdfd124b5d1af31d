// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What a RoCE path takes from the netdev stack and from address
 * resolution: the SL of a TOS and the GID type of the path.  No device
 * state, so that the KUnit module compiles its own copy.
 */
#include <linux/bits.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <net/route.h>
#include <rdma/ib_verbs.h>

#include "cma_priv.h"

static bool cma_is_vlan(const struct net_device *dev)
{
	return is_vlan_dev(dev);
}

static u8 cma_vlan_egress_pcp(struct net_device *dev, u8 prio)
{
	return (vlan_dev_get_egress_qos_mask(dev, prio) & VLAN_PRIO_MASK) >>
	       VLAN_PRIO_SHIFT;
}

const struct cma_vlan_ops cma_vlan_ops = {
	.is_vlan	= cma_is_vlan,
	.egress_pcp	= cma_vlan_egress_pcp,
};

static int cma_first_lower(struct net_device *lower,
			   struct netdev_nested_priv *priv)
{
	priv->data = lower;
	return 1;	/* the first device of the first level only */
}

/* The first device under @dev (a VLAN's real device, a bond's slave). */
static struct net_device *cma_lower_rcu(struct net_device *dev)
{
	struct netdev_nested_priv priv = {};

	netdev_walk_all_lower_dev_rcu(dev, cma_first_lower, &priv);
	return priv.data;
}

/*
 * A VLAN device: the traffic classes of its real device if it has any
 * (DCB configures those, not the VLAN), else the VLAN's egress map.
 */
static u8 cma_vlan_prio_sl(const struct cma_vlan_ops *ops,
			   struct net_device *vlan, u8 prio)
{
	struct net_device *real = cma_lower_rcu(vlan);

	if (real && real->num_tc)
		return netdev_get_prio_tc_map(real, prio);
	return ops->egress_pcp(vlan, prio);
}

/**
 * cma_roce_prio_sl - The SL of a packet priority leaving through a netdev.
 * @ops: how to recognise a VLAN device and read its egress map
 * @ndev: the netdev the id's address resolved to
 * @prio: the packet priority (rt_tos2priority() of the TOS)
 *
 * The SL is the traffic class the priority gets on the device that
 * carries the frames: for a VLAN, its real device's class or else its
 * egress map's VLAN priority; for a bond or team, what its first lower
 * device (a VLAN, or one with traffic classes) gives; otherwise @ndev's
 * own class, 0 without classes.
 *
 * Return: the SL.
 */
u8 cma_roce_prio_sl(const struct cma_vlan_ops *ops, struct net_device *ndev,
		    u8 prio)
{
	struct net_device *lower;
	u8 sl = 0;

	rcu_read_lock();
	if (ops->is_vlan(ndev)) {
		sl = cma_vlan_prio_sl(ops, ndev, prio);
		goto out;
	}
	lower = cma_lower_rcu(ndev);
	if (lower) {
		if (ops->is_vlan(lower))
			sl = cma_vlan_prio_sl(ops, lower, prio);
		else if (lower->num_tc)
			sl = netdev_get_prio_tc_map(lower, prio);
	} else if (ndev->num_tc) {
		sl = netdev_get_prio_tc_map(ndev, prio);
	}
out:
	rcu_read_unlock();
	return sl;
}

/**
 * cma_roce_tos_to_sl - The SL of a RoCE path for a TOS.
 * @ndev: the netdev the id's address resolved to
 * @tos: the id's TOS
 *
 * Return: the SL, see cma_roce_prio_sl().
 */
u8 cma_roce_tos_to_sl(struct net_device *ndev, u8 tos)
{
	return cma_roce_prio_sl(&cma_vlan_ops, ndev, rt_tos2priority(tos));
}

/**
 * cma_roce_route_gid_type - The GID type of a RoCE path.
 * @network: what address resolution found: RDMA_NETWORK_IPV4 or
 *	RDMA_NETWORK_IPV6 when the destination is behind a gateway
 * @supported: the GID types of the port (a mask of BIT(ib_gid_type))
 * @def: the port's default GID type
 *
 * A routed destination is reachable only over IP, so its path is RoCE
 * v2 where the port has it, whatever the default; never a type below
 * what the network needs.
 *
 * Return: the GID type.
 */
enum ib_gid_type cma_roce_route_gid_type(enum rdma_network_type network,
					 unsigned long supported,
					 enum ib_gid_type def)
{
	enum ib_gid_type need = ib_network_to_gid_type(network);

	if ((network == RDMA_NETWORK_IPV4 || network == RDMA_NETWORK_IPV6) &&
	    (supported & BIT(IB_GID_TYPE_ROCE_UDP_ENCAP)))
		return IB_GID_TYPE_ROCE_UDP_ENCAP;
	return def < need ? need : def;
}
