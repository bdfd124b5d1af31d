// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The exports that need no id state beyond the public struct
 * rdma_cm_id fields.
 */
#include <linux/export.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>

#include "cma_priv.h"

/**
 * rdma_get_service_id - IB service ID for an address.
 * @id: the id, which supplies the port space
 * @addr: the address; for AF_IB it carries the service ID itself
 *
 * Return: the service ID in network byte order: the port space shifted
 * left by 16 plus the port for IP addresses, or sib_sid for AF_IB.
 */
__be64 rdma_get_service_id(struct rdma_cm_id *id, struct sockaddr *addr)
{
	if (addr->sa_family == AF_IB)
		return ((struct sockaddr_ib *)addr)->sib_sid;

	/* cma_addr_port() is 0 for a family that has no port. */
	return cma_service_id(id->ps, cma_addr_port(addr));
}
EXPORT_SYMBOL(rdma_get_service_id);

/**
 * rdma_read_gids - Source and destination GIDs of an id.
 * @cm_id: the id
 * @sgid: if not NULL, receives the source GID
 * @dgid: if not NULL, receives the destination GID
 *
 * RoCE GIDs are derived from the IP addresses; IB and iWARP ones come
 * from the resolved device address.  Both are zero while @cm_id has no
 * device (or is on a port no transport serves).
 */
void rdma_read_gids(struct rdma_cm_id *cm_id, union ib_gid *sgid,
		    union ib_gid *dgid)
{
	const struct cma_transport_ops *xprt = NULL;

	if (cm_id->device)
		xprt = cma_transport_of(cm_id->device, cm_id->port_num);
	if (!xprt) {
		if (sgid)
			memset(sgid, 0, sizeof(*sgid));
		if (dgid)
			memset(dgid, 0, sizeof(*dgid));
		return;
	}
	xprt->read_gids(cm_id, sgid, dgid);
}
EXPORT_SYMBOL(rdma_read_gids);
