// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Address resolution: from a destination address to the device port,
 * source address and hardware addresses an id connects with.
 *
 * IP destinations go through ib_core's rdma_resolve_ip(), whose callback
 * runs in process context on ib_core's workqueue; wildcard and loopback
 * destinations and AF_IB ones are resolved here and reported from
 * cma_wq.  Either way the result arrives as ADDR_RESOLVED or ADDR_ERROR
 * with the id's handler_mutex held.
 */
#include <rdma/ib.h>

#include "core_priv.h"
#include "cma_priv.h"

static void cma_set_loopback(struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		((struct sockaddr_in *)addr)->sin_addr.s_addr =
			htonl(INADDR_LOOPBACK);
		break;
	case AF_INET6:
		ipv6_addr_set(&((struct sockaddr_in6 *)addr)->sin6_addr,
			      0, 0, 0, htonl(1));
		break;
	default:
		ib_addr_set(&((struct sockaddr_ib *)addr)->sib_addr,
			    0, 0, 0, htonl(1));
		break;
	}
}

static void cma_addr_handler(int status, struct sockaddr *src_addr,
			     struct rdma_dev_addr *dev_addr, void *context)
{
	struct rdma_id_private *id_priv = context;
	struct rdma_cm_event event = {};
	struct sockaddr_storage old_src __uninitialized;	/* len bytes used */
	struct sockaddr *src = cma_src_addr(id_priv);
	size_t len = rdma_addr_size(src_addr);

	mutex_lock(&id_priv->handler_mutex);
	if (cma_comp_exch(id_priv, RDMA_CM_ADDR_QUERY, RDMA_CM_ADDR_RESOLVED))
		goto out;

	/* ib_core chose the source address; keep ours if that fails. */
	memcpy(&old_src, src, len);
	memcpy(src, src_addr, len);
	if (!status && !id_priv->cma_dev) {
		status = cma_dev_acquire_by_src(id_priv);
		if (!status)
			rdma_restrack_add(&id_priv->res);
	}

	if (status) {
		memcpy(src, &old_src, len);
		if (cma_comp_exch(id_priv, RDMA_CM_ADDR_RESOLVED,
				  RDMA_CM_ADDR_BOUND))
			goto out;
		event.event = RDMA_CM_EVENT_ADDR_ERROR;
		event.status = status;
	} else {
		event.event = RDMA_CM_EVENT_ADDR_RESOLVED;
	}

	if (cma_deliver(id_priv, &event)) {
		cma_destroy_handler_unlock(id_priv);
		return;
	}
out:
	mutex_unlock(&id_priv->handler_mutex);
}

/* A wildcard or loopback destination: the id talks to its own port. */
static int cma_resolve_loopback(struct rdma_id_private *id_priv)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	union ib_gid gid;
	int ret;

	if (!id_priv->cma_dev) {
		ret = cma_dev_acquire_loopback(id_priv);
		if (ret)
			return ret;
		rdma_restrack_add(&id_priv->res);
		cma_set_loopback(cma_src_addr(id_priv));
	}
	rdma_addr_get_sgid(dev_addr, &gid);
	rdma_addr_set_dgid(dev_addr, &gid);
	return cma_queue_event(id_priv, RDMA_CM_ADDR_QUERY,
			       RDMA_CM_ADDR_RESOLVED,
			       RDMA_CM_EVENT_ADDR_RESOLVED);
}

/*
 * An AF_IB destination names its GID: nothing to look up but, for an id
 * bound to the wildcard, the port that reaches it.
 */
static int cma_resolve_ib_addr(struct rdma_id_private *id_priv)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct sockaddr_ib *dst = (struct sockaddr_ib *)cma_dst_addr(id_priv);
	struct sockaddr_ib *src = (struct sockaddr_ib *)cma_src_addr(id_priv);
	int ret;

	if (!id_priv->cma_dev) {
		ret = cma_dev_acquire_ib(id_priv, (union ib_gid *)&dst->sib_addr,
					 ntohs(dst->sib_pkey));
		if (ret)
			return ret;
		rdma_restrack_add(&id_priv->res);
		rdma_addr_get_sgid(dev_addr, (union ib_gid *)&src->sib_addr);
	}
	rdma_addr_set_dgid(dev_addr, (union ib_gid *)&dst->sib_addr);
	return cma_queue_event(id_priv, RDMA_CM_ADDR_QUERY,
			       RDMA_CM_ADDR_RESOLVED,
			       RDMA_CM_EVENT_ADDR_RESOLVED);
}

/*
 * Bind to the wildcard of the destination's family when the consumer
 * gave no source, keeping a link-local destination's interface.
 */
static int cma_bind_for(struct rdma_id_private *id_priv,
			const struct sockaddr *src, const struct sockaddr *dst)
{
	struct sockaddr_storage any = { .ss_family = dst->sa_family };

	if (src && src->sa_family)
		return cma_bind(id_priv, src);

	if (IS_ENABLED(CONFIG_IPV6) && dst->sa_family == AF_INET6) {
		const struct sockaddr_in6 *dst6 =
			(const struct sockaddr_in6 *)dst;

		((struct sockaddr_in6 *)&any)->sin6_scope_id =
			dst6->sin6_scope_id;
		if (ipv6_addr_type(&dst6->sin6_addr) & IPV6_ADDR_LINKLOCAL)
			id_priv->id.route.addr.dev_addr.bound_dev_if =
				dst6->sin6_scope_id;
	} else if (dst->sa_family == AF_IB) {
		((struct sockaddr_ib *)&any)->sib_pkey =
			((const struct sockaddr_ib *)dst)->sib_pkey;
	}
	return cma_bind(id_priv, (struct sockaddr *)&any);
}

/*
 * Record the destination and move to ADDR_QUERY, binding first if the
 * id is not bound yet.  On failure the destination is cleared; an
 * implied bind that succeeded stays: the id is left ADDR_BOUND, as
 * after a failed resolution, and a retry resolves from that address.
 */
static int cma_prepare_resolve(struct rdma_id_private *id_priv,
			       struct sockaddr *src,
			       const struct sockaddr *dst)
{
	int ret;

	memcpy(cma_dst_addr(id_priv), dst, rdma_addr_size(dst));
	/* a racing call fails in cma_bind() or the exchange below */
	if (READ_ONCE(id_priv->state) == RDMA_CM_IDLE) {
		ret = cma_bind_for(id_priv, src, dst);
		if (ret)
			goto err_dst;
	}
	ret = cma_comp_exch(id_priv, RDMA_CM_ADDR_BOUND, RDMA_CM_ADDR_QUERY);
	if (ret)
		goto err_dst;

	if (cma_src_addr(id_priv)->sa_family != dst->sa_family) {
		ret = -EINVAL;
		goto err_state;
	}
	return 0;

err_state:
	cma_comp_exch(id_priv, RDMA_CM_ADDR_QUERY, RDMA_CM_ADDR_BOUND);
err_dst:
	memset(cma_dst_addr(id_priv), 0, rdma_addr_size(dst));
	return ret;
}

/**
 * rdma_resolve_addr - Resolve a destination address to an RDMA address.
 * @id: the id, in IDLE (it is bound first) or ADDR_BOUND
 * @src_addr: source address for an id in IDLE; NULL or AF_UNSPEC binds
 *	to the wildcard of @dst_addr's family
 * @dst_addr: destination address (AF_INET, AF_INET6 or AF_IB); a
 *	wildcard or loopback destination resolves to a local port
 * @timeout_ms: time allowed for the neighbour resolution
 *
 * Completion is reported by RDMA_CM_EVENT_ADDR_RESOLVED (the id is then
 * attached to the device port it will use) or RDMA_CM_EVENT_ADDR_ERROR
 * (back to ADDR_BOUND).
 *
 * Return: 0 if the resolution was started, or a negative errno: -EINVAL
 * in another state or for a destination of another family than the
 * source, -ENODEV when a loopback destination finds no device or an
 * AF_IB destination of an unattached id no port that takes AF_IB, the
 * bind's or ib_core's error otherwise.  After an error the id stays
 * bound if this call bound it.
 */
int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
		      const struct sockaddr *dst_addr,
		      unsigned long timeout_ms)
{
	struct rdma_id_private *id_priv = cma_id_priv(id);
	int ret;

	if (!cma_family_supported(dst_addr))
		return -EAFNOSUPPORT;

	ret = cma_prepare_resolve(id_priv, src_addr, dst_addr);
	if (ret)
		return ret;

	if (cma_any_addr(dst_addr)) {
		ret = cma_resolve_loopback(id_priv);
	} else if (dst_addr->sa_family == AF_IB) {
		ret = cma_resolve_ib_addr(id_priv);
	} else {
		/*
		 * An earlier request of this id may still be queued in
		 * ib_core after its error came back; ib_core matches
		 * requests by dev_addr, so cancel before reusing it.
		 */
		if (id_priv->used_resolve_ip)
			rdma_addr_cancel(&id->route.addr.dev_addr);
		id_priv->used_resolve_ip = 1;
		ret = rdma_resolve_ip(cma_src_addr(id_priv), dst_addr,
				      &id->route.addr.dev_addr, timeout_ms,
				      cma_addr_handler, false, id_priv);
	}
	if (ret)
		cma_comp_exch(id_priv, RDMA_CM_ADDR_QUERY, RDMA_CM_ADDR_BOUND);
	return ret;
}
EXPORT_SYMBOL(rdma_resolve_addr);
