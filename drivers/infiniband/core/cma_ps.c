// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Port spaces: the TCP, UDP, IPOIB and IB port numbers ids bind to, one
 * set per network namespace.
 *
 * A held port is a bind list: the ids holding it.  Several ids share a
 * port when the conflict rules allow it (reuseaddr, afonly, distinct
 * addresses, or a distinct four-tuple for an automatically bound active
 * id).  The bind lists of all four port spaces of a namespace hang in
 * one hash table keyed by port space and port, under one mutex; nothing
 * on the connect or accept path takes it.
 *
 * A hash of intrusive lists rather than an xarray keyed by port: taking
 * a port nobody holds then costs the 32-byte bind list and nothing more.
 * An xarray needs up to three interior nodes of 576 bytes for an
 * isolated port (the ephemeral range sits high in the key space), which
 * are zeroed on allocation and freed through RCU on release, on every
 * bind of a client that connects and goes.  The table starts with the
 * buckets embedded in it and grows, under the mutex, once it averages
 * more than two ports per bucket; it does not shrink, so a namespace
 * that once held many ports keeps its buckets until it goes.
 */
#include <linux/bug.h>
#include <linux/capability.h>
#include <linux/errno.h>
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/ip.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <rdma/ib.h>

#include "cma_priv.h"

static unsigned int cma_ps_net_id;

/* Whether @ps is one of the four port spaces ids bind in. */
static bool cma_ps_known(enum rdma_ucm_port_space ps)
{
	switch (ps) {
	case RDMA_PS_TCP:
	case RDMA_PS_UDP:
	case RDMA_PS_IPOIB:
	case RDMA_PS_IB:
		return true;
	default:
		return false;
	}
}

static struct hlist_head *cma_ps_bucket(struct hlist_head *buckets,
					unsigned int bits,
					enum rdma_ucm_port_space ps, u16 port)
{
	return &buckets[hash_32((u32)ps << 16 | port, bits)];
}

/* The bind list of @port in @ps, or NULL; under table->lock. */
static struct cma_bind_list *cma_ps_lookup(struct cma_ps_table *table,
					   enum rdma_ucm_port_space ps,
					   u16 port)
{
	struct cma_bind_list *bl;

	hlist_for_each_entry(bl, cma_ps_bucket(table->buckets,
					       table->hash_bits, ps, port),
			     node)
		if (bl->port == port && bl->ps == ps)
			return bl;
	return NULL;
}

/*
 * Four times the buckets once there are more than two ports per bucket.
 * Without the memory the table keeps its size: longer chains, still
 * correct.
 */
static void cma_ps_grow(struct cma_ps_table *table)
{
	unsigned int bits = table->hash_bits + 2, i;
	struct hlist_head *buckets;
	struct cma_bind_list *bl;
	struct hlist_node *next;

	if (table->nr_ports <= 2U << table->hash_bits ||
	    table->hash_bits >= CMA_PS_HASH_MAX_BITS)
		return;
	buckets = kvmalloc_array(1U << bits, sizeof(*buckets),
				 GFP_KERNEL | __GFP_NOWARN);
	if (!buckets)
		return;
	for (i = 0; i < 1U << bits; i++)
		INIT_HLIST_HEAD(&buckets[i]);
	for (i = 0; i < 1U << table->hash_bits; i++) {
		hlist_for_each_entry_safe(bl, next, &table->buckets[i], node) {
			hlist_del(&bl->node);
			hlist_add_head(&bl->node,
				       cma_ps_bucket(buckets, bits, bl->ps,
						     bl->port));
		}
	}
	if (table->buckets != table->first)
		kvfree(table->buckets);
	table->buckets = buckets;
	table->hash_bits = bits;
}

/**
 * cma_port_check_bind - Whether an id may bind a port another id holds.
 * @want: the id binding (to a given port, or listening on its port)
 * @cur: an id already holding the port
 *
 * The rules applications rely on: two ids that both set reuseaddr share
 * freely; two afonly ids of different families do not meet; otherwise a
 * wildcard (or loopback) address on either side overlaps everything,
 * and equal addresses collide.
 *
 * Return: 0 if they can share the port; -EADDRNOTAVAIL if a wildcard
 * overlaps; -EADDRINUSE if the addresses are equal.
 */
int cma_port_check_bind(const struct cma_port_claim *want,
			const struct cma_port_claim *cur)
{
	if (want->reuseaddr && cur->reuseaddr)
		return 0;
	if (want->afonly && cur->afonly &&
	    want->src->sa_family != cur->src->sa_family)
		return 0;
	if (cma_any_addr(want->src) || cma_any_addr(cur->src))
		return -EADDRNOTAVAIL;
	if (cma_addr_equal(want->src, cur->src))
		return -EADDRINUSE;
	return 0;
}

/* An address that names one host: neither unset nor a wildcard. */
static bool cma_addr_given(const struct sockaddr *addr)
{
	return addr->sa_family && !cma_any_addr(addr);
}

/**
 * cma_port_check_unique - Whether an automatically bound id may share a
 * port another id holds.
 * @want: the id being given a port
 * @cur: an id already holding the port
 *
 * The two must differ in the destination port, the source address or
 * the destination address, where both sides specify it.  A destination
 * not set yet (family 0) specifies nothing: it may become anything.
 *
 * Return: 0 if their four-tuples differ; -EADDRNOTAVAIL otherwise.
 */
int cma_port_check_unique(const struct cma_port_claim *want,
			  const struct cma_port_claim *cur)
{
	u16 dport = cma_addr_port(want->dst);
	u16 cur_dport = cma_addr_port(cur->dst);

	if (dport && cur_dport && dport != cur_dport)
		return 0;
	if (cma_addr_given(want->src) && cma_addr_given(cur->src) &&
	    !cma_addr_equal(want->src, cur->src))
		return 0;
	if (cma_addr_given(want->dst) && cma_addr_given(cur->dst) &&
	    !cma_addr_equal(want->dst, cur->dst))
		return 0;
	return -EADDRNOTAVAIL;
}

/**
 * cma_port_privileged - Whether binding a port needs CAP_NET_BIND_SERVICE.
 * @net: the namespace of the id
 * @port: the port
 *
 * As for sockets: ports below the namespace's
 * net.ipv4.ip_unprivileged_port_start (PROT_SOCK, 1024, by default).
 *
 * Return: true for a privileged port.
 */
bool cma_port_privileged(struct net *net, u16 port)
{
	return inet_port_requires_bind_service(net, port);
}

static void cma_claim_of(struct rdma_id_private *id_priv,
			 struct cma_port_claim *claim)
{
	claim->src = cma_src_addr(id_priv);
	claim->dst = cma_dst_addr(id_priv);
	claim->reuseaddr = READ_ONCE(id_priv->reuseaddr);
	claim->afonly = READ_ONCE(id_priv->afonly);
}

/* Check @id_priv against every other holder of @bl. */
static int cma_ps_check_owners(struct cma_bind_list *bl,
			       struct rdma_id_private *id_priv, bool reuseaddr,
			       bool auto_bind)
{
	struct cma_port_claim want, cur;
	struct rdma_id_private *owner;
	int ret;

	cma_claim_of(id_priv, &want);
	want.reuseaddr = reuseaddr;
	hlist_for_each_entry(owner, &bl->owners, bind_node) {
		if (owner == id_priv)
			continue;
		cma_claim_of(owner, &cur);
		if (auto_bind)
			ret = cma_port_check_unique(&want, &cur);
		else
			ret = cma_port_check_bind(&want, &cur);
		if (ret)
			return ret;
	}
	return 0;
}

static void cma_ps_join(struct cma_bind_list *bl,
			struct rdma_id_private *id_priv)
{
	cma_addr_set_port(cma_src_addr(id_priv), bl->port);
	hlist_add_head(&id_priv->bind_node, &bl->owners);
	id_priv->bind_list = bl;
	id_priv->bound_ps = bl->ps;
}

/*
 * Take @port, alone or next to its holders.  A port nobody holds gets
 * *@spare as its bind list, and *@spare becomes NULL.
 */
static int cma_ps_take(struct cma_ps_table *table,
		       struct cma_bind_list **spare, u16 port,
		       struct rdma_id_private *id_priv, bool auto_bind)
{
	struct cma_bind_list *bl;
	int ret;

	bl = cma_ps_lookup(table, (*spare)->ps, port);
	if (!bl) {
		bl = *spare;
		*spare = NULL;
		bl->port = port;
		hlist_add_head(&bl->node,
			       cma_ps_bucket(table->buckets, table->hash_bits,
					     bl->ps, port));
		table->nr_ports++;
		cma_ps_join(bl, id_priv);
		return 0;
	}

	ret = cma_ps_check_owners(bl, id_priv, READ_ONCE(id_priv->reuseaddr),
				  auto_bind);
	if (!ret)
		cma_ps_join(bl, id_priv);
	return ret;
}

/*
 * An ephemeral port from the namespace's ip_local_port_range, starting
 * at a random one and skipping the reserved ports.  The port handed out
 * last is tried only when no other is free, so that a port is not
 * reused right after its previous owner released it.
 */
static int cma_ps_take_any(struct cma_ps_table *table,
			   struct cma_bind_list **spare,
			   struct rdma_id_private *id_priv)
{
	int low, high, port, remaining, ret;
	bool try_last = false;

	inet_get_local_port_range(table->net, &low, &high);
	if (low < 1 || high > U16_MAX || low > high)
		return -EADDRNOTAVAIL;

	remaining = high - low + 1;
	port = low + (int)get_random_u32_below(remaining);
	for (; remaining; remaining--, port = port < high ? port + 1 : low) {
		if (inet_is_local_reserved_port(table->net, port))
			continue;
		if (port == table->last_port) {
			try_last = true;
			continue;
		}
		ret = cma_ps_take(table, spare, port, id_priv, true);
		if (ret == -EADDRNOTAVAIL)
			continue;
		if (!ret)
			table->last_port = port;
		return ret;
	}
	if (try_last)
		return cma_ps_take(table, spare, table->last_port, id_priv,
				   true);
	return -EADDRNOTAVAIL;
}

/**
 * cma_ps_get_port - Give an id a port of a port space.
 * @table: the port spaces of the id's namespace
 * @ps: the port space (see cma_ps_select())
 * @id_priv: the id; its source address holds the port asked for, or 0
 *	for an ephemeral one
 *
 * On success the id is on the port's bind list and its source address
 * holds the port.
 *
 * Return: 0; -EACCES for a privileged port without CAP_NET_BIND_SERVICE
 * in the namespace; -EADDRINUSE or -EADDRNOTAVAIL on a conflict (see
 * cma_port_check_bind()) or when no ephemeral port is free;
 * -EPROTONOSUPPORT for an unknown port space; -ENOMEM.
 */
int cma_ps_get_port(struct cma_ps_table *table, enum rdma_ucm_port_space ps,
		    struct rdma_id_private *id_priv)
{
	u16 port = cma_addr_port(cma_src_addr(id_priv));
	struct cma_bind_list *spare;
	int ret;

	if (!cma_ps_known(ps))
		return -EPROTONOSUPPORT;
	if (WARN_ON_ONCE(id_priv->bind_list))
		return -EINVAL;
	if (port && cma_port_privileged(table->net, port) &&
	    !ns_capable(table->net->user_ns, CAP_NET_BIND_SERVICE))
		return -EACCES;

	/* the list of a new port; freed below if the port had holders */
	spare = kzalloc(sizeof(*spare), GFP_KERNEL);
	if (!spare)
		return -ENOMEM;
	spare->ps = ps;
	INIT_HLIST_HEAD(&spare->owners);

	mutex_lock(&table->lock);
	if (port)
		ret = cma_ps_take(table, &spare, port, id_priv, false);
	else
		ret = cma_ps_take_any(table, &spare, id_priv);
	if (!spare)
		cma_ps_grow(table);
	mutex_unlock(&table->lock);
	kfree(spare);
	return ret;
}

/**
 * cma_ps_listen_check - Make a bound id's port its own before it listens.
 * @table: the port spaces of the id's namespace
 * @id_priv: the id, holding a port
 *
 * A listener may not share its port under reuseaddr: the port must pass
 * the bind rules again without it, and reuseaddr is then cleared.
 *
 * Return: 0, or the conflict as cma_port_check_bind() reports it.
 */
int cma_ps_listen_check(struct cma_ps_table *table,
			struct rdma_id_private *id_priv)
{
	unsigned long flags;
	int ret = 0;

	if (!READ_ONCE(id_priv->reuseaddr))
		return 0;

	mutex_lock(&table->lock);
	if (id_priv->bind_list)
		ret = cma_ps_check_owners(id_priv->bind_list, id_priv, false,
					  false);
	if (!ret) {
		spin_lock_irqsave(&id_priv->lock, flags);
		WRITE_ONCE(id_priv->reuseaddr, 0);
		spin_unlock_irqrestore(&id_priv->lock, flags);
	}
	mutex_unlock(&table->lock);
	return ret;
}

/* Whether listener @l, bound to @src, takes requests for @local. */
static bool cma_ps_listener_takes(struct rdma_id_private *l,
				  const struct sockaddr *local)
{
	const struct sockaddr *src = cma_src_addr(l);

	if (READ_ONCE(l->state) != RDMA_CM_LISTEN)
		return false;
	/*
	 * A request without an IP header is for AF_IB listeners, any of
	 * them on the device (no GID is compared), and only for them.
	 */
	if (local->sa_family == AF_IB || src->sa_family == AF_IB)
		return local->sa_family == src->sa_family;
	if (!cma_any_addr(src))
		return cma_addr_equal(src, local);
	/* A wildcard: its family, or IPv4 on an IPv6 id that is not afonly. */
	if (src->sa_family == local->sa_family)
		return true;
	return src->sa_family == AF_INET6 && local->sa_family == AF_INET &&
	       !READ_ONCE(l->afonly);
}

/**
 * cma_ps_listener_on_port - Whether an AF_IB listener takes a request
 * that arrived on a port of its device.
 * @l: the listener: bound to an AF_IB address, or the per-device
 *	listener of an AF_IB wildcard one
 * @port: the port the request arrived on
 *
 * A listener bound to a port's GID takes that port's requests only.  A
 * wildcard listener takes every port's: its per-device listener is
 * attached to the device's first port only to get the transport, which
 * listens on the whole device.
 *
 * Return: true if @l takes the request.
 */
bool cma_ps_listener_on_port(const struct rdma_id_private *l, u32 port)
{
	return l->internal_id || !l->id.port_num || l->id.port_num == port;
}

/**
 * cma_ps_find_listener - The listener a connection request is for.
 * @table: the port spaces of the namespace the request arrived in
 * @ps: the port space of the request's service id
 * @port: the port of its service id
 * @local: the address the requester connects to
 * @device: the device the request arrived on
 *
 * A listener bound to @local beats a wildcard one; a wildcard listener
 * answers through its per-device listener on @device.  Both come back
 * as the id to hand the request to: the specific listener itself if it
 * is on @device, or the wildcard one (the caller finds its per-device
 * listener).
 *
 * Return: the listener with a reference (cma_id_put() it), or NULL.
 */
struct rdma_id_private *cma_ps_find_listener(struct cma_ps_table *table,
					     enum rdma_ucm_port_space ps,
					     u16 port,
					     const struct sockaddr *local,
					     struct ib_device *device)
{
	struct rdma_id_private *owner, *found = NULL;
	struct cma_bind_list *bl;

	mutex_lock(&table->lock);
	bl = cma_ps_lookup(table, ps, port);
	if (!bl)
		goto out;
	hlist_for_each_entry(owner, &bl->owners, bind_node) {
		if (!cma_ps_listener_takes(owner, local))
			continue;
		if (owner->cma_dev) {
			if (owner->id.device != device)
				continue;
			found = owner;
			break;
		}
		if (!found)
			found = owner;	/* a specific one may still come */
	}
	if (found)
		cma_id_get(found);
out:
	mutex_unlock(&table->lock);
	return found;
}

/**
 * cma_ps_put_port - Release the port an id holds.
 * @table: the port spaces of the id's namespace
 * @id_priv: the id; nothing happens if it holds no port
 */
void cma_ps_put_port(struct cma_ps_table *table,
		     struct rdma_id_private *id_priv)
{
	struct cma_bind_list *bl;

	mutex_lock(&table->lock);
	bl = id_priv->bind_list;
	if (bl) {
		hlist_del(&id_priv->bind_node);
		id_priv->bind_list = NULL;
		if (hlist_empty(&bl->owners)) {
			hlist_del(&bl->node);
			table->nr_ports--;
			kfree(bl);
		}
	}
	mutex_unlock(&table->lock);
}

/**
 * cma_ps_select - The port space an id's source address binds in.
 * @id_priv: the id, with its source address set
 *
 * IP addresses bind in the id's own port space.  An AF_IB address binds
 * in the port space its service id (under its mask) falls in: an
 * RDMA_PS_IB id may use the IB, TCP or UDP range, a TCP or UDP id only
 * its own.  The service id is then rewritten as that range plus the
 * port, and its mask widened to the whole range.
 *
 * Return: the port space, or 0 if the id cannot bind anywhere.
 */
enum rdma_ucm_port_space cma_ps_select(struct rdma_id_private *id_priv)
{
	static const struct {
		enum rdma_ucm_port_space ps;
		u64 sid_ps;
	} ib_ranges[] = {
		{ RDMA_PS_IB, RDMA_IB_IP_PS_IB },
		{ RDMA_PS_TCP, RDMA_IB_IP_PS_TCP },
		{ RDMA_PS_UDP, RDMA_IB_IP_PS_UDP },
	};
	struct sockaddr *src = cma_src_addr(id_priv);
	enum rdma_ucm_port_space ps = id_priv->id.ps;
	struct sockaddr_ib *sib;
	u64 mask, sid;
	u16 port;
	int i;

	if (src->sa_family != AF_IB)
		return cma_ps_known(ps) ? ps : 0;

	sib = (struct sockaddr_ib *)src;
	port = cma_addr_port(src);
	mask = be64_to_cpu(sib->sib_sid_mask) & RDMA_IB_IP_PS_MASK;
	sid = be64_to_cpu(sib->sib_sid) & mask;
	for (i = 0; i < ARRAY_SIZE(ib_ranges); i++) {
		if (ps != RDMA_PS_IB && ps != ib_ranges[i].ps)
			continue;
		if (sid != (ib_ranges[i].sid_ps & mask))
			continue;
		sib->sib_sid = cpu_to_be64(ib_ranges[i].sid_ps | port);
		sib->sib_sid_mask = cpu_to_be64(RDMA_IB_IP_PS_MASK |
						be64_to_cpu(sib->sib_sid_mask));
		return ib_ranges[i].ps;
	}
	return 0;
}

/**
 * cma_ps_table_init - Set up empty port spaces.
 * @table: the table
 * @net: the namespace whose port range, reserved ports and privileged
 *	port limit apply; the table does not hold a reference on it
 */
void cma_ps_table_init(struct cma_ps_table *table, struct net *net)
{
	int i;

	mutex_init(&table->lock);
	for (i = 0; i < ARRAY_SIZE(table->first); i++)
		INIT_HLIST_HEAD(&table->first[i]);
	table->buckets = table->first;
	table->hash_bits = CMA_PS_HASH_MIN_BITS;
	table->nr_ports = 0;
	table->net = net;
	table->last_port = 0;
}

/**
 * cma_ps_table_destroy - Tear down port spaces.
 * @table: the table; every id must have released its port
 */
void cma_ps_table_destroy(struct cma_ps_table *table)
{
	WARN_ON_ONCE(table->nr_ports);
	if (table->buckets != table->first)
		kvfree(table->buckets);
	table->buckets = NULL;
	mutex_destroy(&table->lock);
}

/**
 * cma_ps_table - The port spaces of a network namespace.
 * @net: the namespace
 *
 * Return: the table, valid while @net is.
 */
struct cma_ps_table *cma_ps_table(struct net *net)
{
	return net_generic(net, cma_ps_net_id);
}

static int __net_init cma_ps_net_init(struct net *net)
{
	cma_ps_table_init(cma_ps_table(net), net);
	return 0;
}

static void __net_exit cma_ps_net_exit(struct net *net)
{
	cma_ps_table_destroy(cma_ps_table(net));
}

static struct pernet_operations cma_ps_net_ops = {
	.init = cma_ps_net_init,
	.exit = cma_ps_net_exit,
	.id = &cma_ps_net_id,
	.size = sizeof(struct cma_ps_table),
};

/**
 * cma_ps_init - Give every network namespace its port spaces.
 *
 * Return: 0 or a negative errno.
 */
int __init cma_ps_init(void)
{
	return register_pernet_subsys(&cma_ps_net_ops);
}

/**
 * cma_ps_exit - Undo cma_ps_init().
 */
void cma_ps_exit(void)
{
	unregister_pernet_subsys(&cma_ps_net_ops);
}
