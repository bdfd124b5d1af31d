// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Binding an id to a local address: the device port the address lives
 * on, and a port in the id's port space.
 */
#include <rdma/ib.h>

#include "core_priv.h"
#include "cma_priv.h"

/* A link-local IPv6 address names its interface through the scope id. */
static int cma_check_linklocal(struct rdma_dev_addr *dev_addr,
			       const struct sockaddr *addr)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)addr;

	if (addr->sa_family != AF_INET6 ||
	    !(ipv6_addr_type(&sin6->sin6_addr) & IPV6_ADDR_LINKLOCAL))
		return 0;
	if (!sin6->sin6_scope_id)
		return -EINVAL;
	dev_addr->bound_dev_if = sin6->sin6_scope_id;
	return 0;
}

/* Fill dev_addr from a specific source address. */
static int cma_translate_src(struct rdma_id_private *id_priv,
			     const struct sockaddr *addr)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	const struct sockaddr_ib *sib = (const struct sockaddr_ib *)addr;

	if (addr->sa_family != AF_IB)
		return rdma_translate_ip(addr, dev_addr);

	dev_addr->dev_type = ARPHRD_INFINIBAND;
	rdma_addr_set_sgid(dev_addr, (union ib_gid *)&sib->sib_addr);
	ib_addr_set_pkey(dev_addr, ntohs(sib->sib_pkey));
	return 0;
}

/* IPv4 ids are IPv4-only; IPv6 ones follow bindv6only unless set. */
static void cma_default_afonly(struct rdma_id_private *id_priv)
{
	struct sockaddr *src = cma_src_addr(id_priv);
	unsigned long flags;

	spin_lock_irqsave(&id_priv->lock, flags);
	if (!id_priv->afonly_set) {
		if (src->sa_family == AF_INET)
			id_priv->afonly = 1;
#if IS_ENABLED(CONFIG_IPV6)
		else if (src->sa_family == AF_INET6)
			id_priv->afonly = cma_id_net(id_priv)->ipv6.sysctl.bindv6only;
#endif
	}
	spin_unlock_irqrestore(&id_priv->lock, flags);
}

/**
 * cma_get_port - Take the port of the id's source address.
 * @id_priv: the id, with its source address set; port 0 asks for an
 *	ephemeral port, written back into the source address
 *
 * Return: 0, -EPROTONOSUPPORT if no port space fits the address, or the
 * port space's error (-EADDRINUSE, -EADDRNOTAVAIL, -EACCES).
 */
int cma_get_port(struct rdma_id_private *id_priv)
{
	enum rdma_ucm_port_space ps = cma_ps_select(id_priv);
	int ret;

	if (!ps)
		return -EPROTONOSUPPORT;
	ret = cma_ps_get_port(cma_ps_table(cma_id_net(id_priv)), ps, id_priv);
	if (!ret)
		id_priv->bound_ps = ps;
	return ret;
}

/**
 * rdma_bind_addr - Bind an id to a local address.
 * @id: the id, in IDLE
 * @addr: local address (AF_INET, AF_INET6 or AF_IB).  A specific
 *	address also attaches the id to the device port that carries it; a
 *	link-local IPv6 address needs its scope id.  Port 0 picks an
 *	ephemeral port.
 *
 * Return: 0 on success or a negative errno: -EAFNOSUPPORT for another
 * family, -EINVAL if the id is not in IDLE or a link-local address has
 * no scope id, -EADDRNOTAVAIL if no interface has the address, -ENODEV if
 * no RDMA port carries it, or the port space's error.
 */
int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	return cma_bind(cma_id_priv(id), addr);
}
EXPORT_SYMBOL(rdma_bind_addr);

/**
 * cma_bind - rdma_bind_addr() for rdma_cm's own callers.
 * @id_priv: the id
 * @addr: local address
 *
 * Return: as rdma_bind_addr().
 */
int cma_bind(struct rdma_id_private *id_priv, const struct sockaddr *addr)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	int ret;

	if (!cma_family_supported(addr))
		return -EAFNOSUPPORT;

	ret = cma_comp_exch(id_priv, RDMA_CM_IDLE, RDMA_CM_ADDR_BOUND);
	if (ret)
		return ret;

	ret = cma_check_linklocal(dev_addr, addr);
	if (ret)
		goto err_state;

	memcpy(cma_src_addr(id_priv), addr, rdma_addr_size(addr));
	if (!cma_any_addr(addr)) {
		ret = cma_translate_src(id_priv, addr);
		if (ret)
			goto err_state;
		ret = cma_dev_acquire_by_src(id_priv);
		if (ret)
			goto err_state;
	}

	cma_default_afonly(id_priv);
	/*
	 * Until a destination is resolved it is the wildcard of the
	 * source's family, which QUERY_ADDR and "rdma res show" report.
	 */
	if (!cma_dst_addr(id_priv)->sa_family)
		cma_dst_addr(id_priv)->sa_family = addr->sa_family;
	ret = cma_get_port(id_priv);
	if (ret)
		goto err_dev;

	/* Tracked from here on; an attached device stays until destroy. */
	if (id_priv->cma_dev)
		rdma_restrack_add(&id_priv->res);
	return 0;

err_dev:
	cma_dev_release(id_priv);
err_state:
	cma_comp_exch(id_priv, RDMA_CM_ADDR_BOUND, RDMA_CM_IDLE);
	return ret;
}
