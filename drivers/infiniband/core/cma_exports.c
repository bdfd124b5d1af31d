// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The rdma_cm kernel API not written yet.
 *
 * Ids, their settings, bind, address and route resolution exist
 * (cma_id.c, cma_bind.c, cma_resolve.c, cma_route.c); the transports'
 * connections, listen and multicast do not, so the operations below fail
 * with -EOPNOTSUPP (or do nothing when they cannot fail).  Functions
 * that need no id state beyond the public struct rdma_cm_id fields are
 * implemented.
 */
#include "cma_abi.h"
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
 * device.
 */
void rdma_read_gids(struct rdma_cm_id *cm_id, union ib_gid *sgid,
		    union ib_gid *dgid)
{
	struct rdma_addr *addr = &cm_id->route.addr;
	bool roce;

	if (!cm_id->device) {
		if (sgid)
			memset(sgid, 0, sizeof(*sgid));
		if (dgid)
			memset(dgid, 0, sizeof(*dgid));
		return;
	}

	roce = rdma_protocol_roce(cm_id->device, cm_id->port_num);
	if (sgid) {
		if (roce)
			rdma_ip2gid((struct sockaddr *)&addr->src_addr, sgid);
		else
			rdma_addr_get_sgid(&addr->dev_addr, sgid);
	}
	if (dgid) {
		if (roce)
			rdma_ip2gid((struct sockaddr *)&addr->dst_addr, dgid);
		else
			rdma_addr_get_dgid(&addr->dev_addr, dgid);
	}
}
EXPORT_SYMBOL(rdma_read_gids);

/**
 * rdma_connect - Start connecting to the remote end of a resolved route.
 * @id: the id
 * @conn_param: connection parameters and private data
 *
 * Takes the handler lock; use rdma_connect_locked() from inside the id's
 * event handler.
 *
 * Return: 0 if the connection was started, or a negative errno.
 */
int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(rdma_connect);

/**
 * rdma_connect_locked - rdma_connect() with the handler lock already held.
 * @id: the id
 * @conn_param: connection parameters and private data
 *
 * Return: 0 if the connection was started, or a negative errno.
 */
int rdma_connect_locked(struct rdma_cm_id *id,
			struct rdma_conn_param *conn_param)
{
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(rdma_connect_locked);

/**
 * rdma_connect_ece - rdma_connect() with Enhanced Connection Establishment.
 * @id: the id
 * @conn_param: connection parameters and private data
 * @ece: ECE options to send in the request
 *
 * Return: 0 if the connection was started, or a negative errno.
 */
int rdma_connect_ece(struct rdma_cm_id *id, struct rdma_conn_param *conn_param,
		     struct rdma_ucm_ece *ece)
{
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(rdma_connect_ece);

/**
 * rdma_listen - Listen for connection requests on the id's address.
 * @id: the id; an unbound id is first bound to the wildcard address
 * @backlog: pending request limit
 *
 * Return: 0 on success or a negative errno.
 */
int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(rdma_listen);

/**
 * rdma_accept - Accept a connection request, or complete an active one.
 * @id: the id, with its handler lock held
 * @conn_param: reply parameters; NULL on the active side sends the RTU
 *
 * Return: 0 on success or a negative errno.
 */
int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(rdma_accept);

/**
 * rdma_accept_ece - rdma_accept() with Enhanced Connection Establishment.
 * @id: the id, with its handler lock held
 * @conn_param: reply parameters
 * @ece: ECE options to send in the reply
 *
 * Return: 0 on success or a negative errno.
 */
int rdma_accept_ece(struct rdma_cm_id *id, struct rdma_conn_param *conn_param,
		    struct rdma_ucm_ece *ece)
{
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(rdma_accept_ece);

/**
 * rdma_notify - Tell the connection manager about a QP event.
 * @id: the id
 * @event: the asynchronous QP event, e.g. IB_EVENT_COMM_EST
 *
 * Return: 0 on success or a negative errno.
 */
int rdma_notify(struct rdma_cm_id *id, enum ib_event_type event)
{
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(rdma_notify);

/**
 * rdma_reject - Reject a connection request.
 * @id: the id that received the request
 * @private_data: data to send with the reject
 * @private_data_len: length of @private_data
 * @reason: IB CM reject reason
 *
 * Return: 0 on success or a negative errno.
 */
int rdma_reject(struct rdma_cm_id *id, const void *private_data,
		u8 private_data_len, u8 reason)
{
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(rdma_reject);

/**
 * rdma_disconnect - Tear down a connection.
 * @id: the id
 *
 * Return: 0 on success or a negative errno.
 */
int rdma_disconnect(struct rdma_cm_id *id)
{
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(rdma_disconnect);

/**
 * rdma_join_multicast - Join a multicast group.
 * @id: a UD id, with its address bound or resolved
 * @addr: the group address
 * @join_state: IB multicast join state (full, non or send-only member)
 * @context: consumer context returned in the join event
 *
 * Completion is reported by RDMA_CM_EVENT_MULTICAST_JOIN or
 * RDMA_CM_EVENT_MULTICAST_ERROR.
 *
 * Return: 0 if the join was started, or a negative errno.
 */
int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr,
			u8 join_state, void *context)
{
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(rdma_join_multicast);

/**
 * rdma_leave_multicast - Leave a multicast group joined by the id.
 * @id: the id
 * @addr: the group address given to rdma_join_multicast()
 */
void rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
}
EXPORT_SYMBOL(rdma_leave_multicast);

/**
 * rdma_iw_cm_id - The iWARP CM id underlying an RDMA CM id.
 * @cm_id: the id
 *
 * Return: the iw_cm_id, or NULL when @cm_id is not on an iWARP device.
 */
struct iw_cm_id *rdma_iw_cm_id(struct rdma_cm_id *cm_id)
{
	return NULL;
}
EXPORT_SYMBOL(rdma_iw_cm_id);
