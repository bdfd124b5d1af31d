// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What the network stack tells rdma_cm about the ids' neighbours and
 * bonds.
 *
 * A RoCE id whose route is resolved sends to the hardware address the
 * neighbour table gave for its destination.  When that neighbour entry
 * changes to another address (NETEVENT_NEIGH_UPDATE), the id gets
 * UNREACHABLE with -ETIMEDOUT, so that its consumer connects again
 * through the new one.
 *
 * Every neighbour update in the system runs the notifier, so it must be
 * cheap and must not contend: the ids hang in a hash table of RCU lists
 * keyed by netdev index and destination address, the notifier takes no
 * lock, writers take a spinlock, and the namespace is part of the match
 * (interface indexes repeat across namespaces).
 *
 * When a bond fails over to a slave with another hardware address
 * (NETDEV_BONDING_FAILOVER), every id bound to the bond gets ADDR_CHANGE.
 * The notifier runs under rtnl: it only records the bond, and a work
 * item walks the ids without rtnl, so no lock of rdma_cm ever nests
 * inside rtnl.
 */
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/netdevice.h>
#include <net/neighbour.h>
#include <net/netevent.h>

#include "cma_priv.h"

#define CMA_NEIGH_HASH_BITS	8

static DEFINE_HASHTABLE(cma_neigh_table, CMA_NEIGH_HASH_BITS);
static DEFINE_SPINLOCK(cma_neigh_lock);	/* writers of cma_neigh_table */

/* The key of a destination: its interface index and IP address. */
static u32 cma_neigh_key(int ifindex, const struct sockaddr *addr)
{
	if (addr->sa_family == AF_INET)
		return jhash_2words(ifindex,
				    (__force u32)cma_sin(addr)->sin_addr.s_addr,
				    0);
	return jhash2((const u32 *)&cma_sin6(addr)->sin6_addr, 4, ifindex);
}

/* Whether @addr is the IP address @key names (family @family). */
static bool cma_neigh_addr_is(const struct sockaddr *addr, int family,
			      const void *key)
{
	if (addr->sa_family != family)
		return false;
	if (family == AF_INET)
		return !memcmp(&cma_sin(addr)->sin_addr, key, 4);
	return !memcmp(&cma_sin6(addr)->sin6_addr, key, 16);
}

/* UNREACHABLE for an id whose neighbour moved, from cma_wq. */
static void cma_neigh_work(struct work_struct *work)
{
	struct rdma_id_private *id_priv =
		container_of(work, struct rdma_id_private, id.net_work);
	struct rdma_cm_event event = {
		.event = RDMA_CM_EVENT_UNREACHABLE,
		.status = -ETIMEDOUT,
	};

	/*
	 * Told once: UNREACHABLE ends the id's connection, and a neighbour
	 * that keeps changing would queue an event per change for a
	 * consumer that may not be reading them.  Not watched any more:
	 * told already (the notifier queued this again while the first
	 * ran), or being destroyed.
	 */
	if (!cma_neigh_unwatch(id_priv)) {
		cma_id_put(id_priv);
		return;
	}
	/*
	 * A non-zero return keeps the transport's id for the destroy to
	 * destroy: no transport callback is returning it.
	 */
	cma_deliver_notice_put(id_priv, &event);
}

/**
 * cma_neigh_watch - Watch the neighbour of a RoCE id's destination.
 * @id_priv: an id whose route was just resolved
 *
 * Destroy stops the watch (cma_neigh_unwatch()).  A second call for the
 * same id is ignored.
 */
void cma_neigh_watch(struct rdma_id_private *id_priv)
{
	const struct sockaddr *dst = cma_dst_addr(id_priv);
	int ifindex = id_priv->id.route.addr.dev_addr.bound_dev_if;

	if (dst->sa_family != AF_INET && dst->sa_family != AF_INET6)
		return;
	spin_lock_bh(&cma_neigh_lock);
	if (!id_priv->neigh_watched) {
		hash_add_rcu(cma_neigh_table, &id_priv->neigh_node,
			     cma_neigh_key(ifindex, dst));
		id_priv->neigh_watched = 1;
		id_priv->neigh_rcu = 1;
	}
	spin_unlock_bh(&cma_neigh_lock);
}

/**
 * cma_neigh_unwatch - Stop watching an id's neighbour.
 * @id_priv: the id (being destroyed, or its route failed)
 *
 * The notifier may still hold the id under RCU: an id that was watched
 * is freed after a grace period (cma_id_teardown()), and the notifier
 * takes a reference only while the id has one.
 *
 * Return: true if this call stopped the watch.
 */
bool cma_neigh_unwatch(struct rdma_id_private *id_priv)
{
	bool was;

	/* Most ids never were: no global lock for them. */
	if (!id_priv->neigh_rcu)
		return false;
	spin_lock_bh(&cma_neigh_lock);
	was = id_priv->neigh_watched;
	if (was) {
		hash_del_rcu(&id_priv->neigh_node);
		id_priv->neigh_watched = 0;
	}
	spin_unlock_bh(&cma_neigh_lock);
	return was;
}

/* Runs in atomic context, for every neighbour update of the system. */
static int cma_neigh_event(struct notifier_block *nb, unsigned long event,
			   void *ctx)
{
	struct neighbour *neigh = ctx;
	struct net_device *ndev = neigh->dev;
	struct rdma_id_private *id_priv;
	char ha[MAX_ADDR_LEN];
	struct sockaddr_storage key = {};
	int family = neigh->tbl->family;

	if (event != NETEVENT_NEIGH_UPDATE || ndev->addr_len > MAX_ADDR_LEN)
		return NOTIFY_DONE;
	key.ss_family = family;
	if (family == AF_INET)
		memcpy(&((struct sockaddr_in *)&key)->sin_addr,
		       neigh->primary_key, 4);
	else if (family == AF_INET6)
		memcpy(&((struct sockaddr_in6 *)&key)->sin6_addr,
		       neigh->primary_key, 16);
	else
		return NOTIFY_DONE;
	neigh_ha_snapshot(ha, neigh, ndev);

	rcu_read_lock();
	hash_for_each_possible_rcu(cma_neigh_table, id_priv, neigh_node,
				   cma_neigh_key(ndev->ifindex,
						 (struct sockaddr *)&key)) {
		struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;

		if (dev_addr->bound_dev_if != ndev->ifindex ||
		    !net_eq(cma_id_net(id_priv), dev_net(ndev)) ||
		    !cma_neigh_addr_is(cma_dst_addr(id_priv), family,
				       neigh->primary_key))
			continue;
		/* Still the address the id sends to: nothing changed. */
		if (!memcmp(dev_addr->dst_dev_addr, ha, ndev->addr_len))
			continue;
		/* Destroy has dropped the last reference: too late. */
		if (!refcount_inc_not_zero(&id_priv->refcount))
			continue;
		/* Already queued: that one reports it. */
		if (!cma_queue_work(&id_priv->id.net_work))
			cma_id_put(id_priv);
	}
	rcu_read_unlock();
	return NOTIFY_DONE;
}

static struct notifier_block cma_neigh_nb = {
	.notifier_call = cma_neigh_event,
};

/* A bond that failed over, and the hardware address it has now. */
struct cma_failover {
	struct work_struct	work;
	struct net		*net;		/* holds a reference */
	int			ifindex;
	unsigned char		addr_len;
	unsigned char		addr[MAX_ADDR_LEN];
	unsigned int		queued;		/* ids told, for the log */
};

static void cma_failover_id(struct rdma_id_private *id_priv, void *arg)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct cma_failover *fo = arg;

	if (dev_addr->bound_dev_if != fo->ifindex ||
	    !net_eq(cma_id_net(id_priv), fo->net) ||
	    !memcmp(dev_addr->src_dev_addr, fo->addr, fo->addr_len))
		return;
	if (cma_queue_notice(id_priv, RDMA_CM_EVENT_ADDR_CHANGE))
		pr_warn_ratelimited("rdma_cm: no memory to report an address change\n");
	else
		fo->queued++;
}

static void cma_failover_work(struct work_struct *work)
{
	struct cma_failover *fo = container_of(work, struct cma_failover, work);

	cma_dev_visit_ids(cma_failover_id, fo);
	if (fo->queued)
		pr_info("rdma_cm: address change of %u ids on bond ifindex %d\n",
			fo->queued, fo->ifindex);
	put_net(fo->net);
	kfree(fo);
}

static int cma_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct cma_failover *fo;

	if (event != NETDEV_BONDING_FAILOVER || !netif_is_bond_master(ndev) ||
	    ndev->addr_len > MAX_ADDR_LEN)
		return NOTIFY_DONE;
	fo = kzalloc(sizeof(*fo), GFP_KERNEL);
	if (!fo) {
		pr_warn_ratelimited("rdma_cm: no memory to report an address change\n");
		return NOTIFY_DONE;
	}
	INIT_WORK(&fo->work, cma_failover_work);
	fo->net = get_net(dev_net(ndev));
	fo->ifindex = ndev->ifindex;
	fo->addr_len = ndev->addr_len;
	memcpy(fo->addr, ndev->dev_addr, ndev->addr_len);
	cma_queue_work(&fo->work);
	return NOTIFY_DONE;
}

static struct notifier_block cma_netdev_nb = {
	.notifier_call = cma_netdev_event,
};

/**
 * cma_netevent_id_init - Prepare a new id's neighbour watch.
 * @id_priv: the id
 */
void cma_netevent_id_init(struct rdma_id_private *id_priv)
{
	INIT_WORK(&id_priv->id.net_work, cma_neigh_work);
	INIT_HLIST_NODE(&id_priv->neigh_node);
}

int __init cma_netevent_init(void)
{
	int ret;

	ret = register_netevent_notifier(&cma_neigh_nb);
	if (ret)
		return ret;
	ret = register_netdevice_notifier(&cma_netdev_nb);
	if (ret)
		unregister_netevent_notifier(&cma_neigh_nb);
	return ret;
}

void cma_netevent_exit(void)
{
	unregister_netdevice_notifier(&cma_netdev_nb);
	unregister_netevent_notifier(&cma_neigh_nb);
}
