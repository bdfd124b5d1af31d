// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The IP private-data header of IB and RoCE connection requests, and the
 * IB service ids of the IP port spaces.
 *
 * A requester addressed by IP puts a struct cma_hdr at the head of the
 * REQ or SIDR REQ private data, ahead of the consumer's own; the
 * listener's side reads the peer's address and port from it.  The
 * header comes off the wire: decoding checks the length before it reads
 * a byte, and rejects versions and address families it does not know.
 */
#include <linux/errno.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/string.h>

#include "cma_priv.h"

static u8 cma_hdr_ip_version(const struct cma_hdr *hdr)
{
	return hdr->ip_version >> 4;
}

/**
 * cma_hdr_encode - Write the header of a connection request.
 * @buf: the start of the request's private data
 * @len: bytes available at @buf
 * @src: the requester's address, with its port
 * @dst: the address connected to
 *
 * The whole header is written, unused bytes zeroed.
 *
 * Return: the header size (CMA_HDR_SIZE); -EMSGSIZE if @len is too
 * small; -EAFNOSUPPORT unless @src and @dst are both AF_INET or both
 * AF_INET6.
 */
int cma_hdr_encode(void *buf, size_t len, const struct sockaddr *src,
		   const struct sockaddr *dst)
{
	struct cma_hdr *hdr = buf;

	if (len < sizeof(*hdr))
		return -EMSGSIZE;
	if (src->sa_family != dst->sa_family)
		return -EAFNOSUPPORT;

	switch (src->sa_family) {
	case AF_INET:
		memset(hdr, 0, sizeof(*hdr));
		hdr->ip_version = 4 << 4;
		hdr->port = ((const struct sockaddr_in *)src)->sin_port;
		hdr->src_addr.ip4.addr =
			((const struct sockaddr_in *)src)->sin_addr.s_addr;
		hdr->dst_addr.ip4.addr =
			((const struct sockaddr_in *)dst)->sin_addr.s_addr;
		break;
	case AF_INET6:
		memset(hdr, 0, sizeof(*hdr));
		hdr->ip_version = 6 << 4;
		hdr->port = ((const struct sockaddr_in6 *)src)->sin6_port;
		hdr->src_addr.ip6 =
			((const struct sockaddr_in6 *)src)->sin6_addr;
		hdr->dst_addr.ip6 =
			((const struct sockaddr_in6 *)dst)->sin6_addr;
		break;
	default:
		return -EAFNOSUPPORT;
	}
	hdr->cma_version = CMA_VERSION;
	return sizeof(*hdr);
}

/**
 * cma_hdr_decode - Read the header of a received connection request.
 * @pdata: the request's private data, as received
 * @len: its length
 * @service_id: the service id the request was sent to; its low 16 bits
 *	are the listener's port
 * @local: if not NULL, receives the listener-side address (the header's
 *	destination, with the service id's port)
 * @remote: if not NULL, receives the requester's address and port
 *
 * Senders leave the low nibble of ip_version zero; it is reserved and
 * ignored here.  Nothing is written on error.
 *
 * Return: 0; -EINVAL if @pdata is shorter than the header or has another
 * version; -EAFNOSUPPORT if its IP version is neither 4 nor 6.
 */
int cma_hdr_decode(const void *pdata, size_t len, __be64 service_id,
		   struct sockaddr_storage *local,
		   struct sockaddr_storage *remote)
{
	__be16 port = htons(cma_service_id_port(service_id));
	const struct cma_hdr *hdr = pdata;
	struct sockaddr_in6 *sin6;
	struct sockaddr_in *sin;

	if (!pdata || len < sizeof(*hdr))
		return -EINVAL;
	if (hdr->cma_version != CMA_VERSION)
		return -EINVAL;

	switch (cma_hdr_ip_version(hdr)) {
	case 4:
		if (local) {
			memset(local, 0, sizeof(*local));
			sin = (struct sockaddr_in *)local;
			sin->sin_family = AF_INET;
			sin->sin_addr.s_addr = hdr->dst_addr.ip4.addr;
			sin->sin_port = port;
		}
		if (remote) {
			memset(remote, 0, sizeof(*remote));
			sin = (struct sockaddr_in *)remote;
			sin->sin_family = AF_INET;
			sin->sin_addr.s_addr = hdr->src_addr.ip4.addr;
			sin->sin_port = hdr->port;
		}
		return 0;
	case 6:
		if (local) {
			memset(local, 0, sizeof(*local));
			sin6 = (struct sockaddr_in6 *)local;
			sin6->sin6_family = AF_INET6;
			sin6->sin6_addr = hdr->dst_addr.ip6;
			sin6->sin6_port = port;
		}
		if (remote) {
			memset(remote, 0, sizeof(*remote));
			sin6 = (struct sockaddr_in6 *)remote;
			sin6->sin6_family = AF_INET6;
			sin6->sin6_addr = hdr->src_addr.ip6;
			sin6->sin6_port = hdr->port;
		}
		return 0;
	default:
		return -EAFNOSUPPORT;
	}
}

/**
 * cma_service_id - The IB service id of a port of an IP port space.
 * @ps: the port space
 * @port: the port, in host order
 *
 * Return: (@ps << 16) + @port in network byte order, which for the TCP,
 * UDP and IB port spaces is RDMA_IB_IP_PS_TCP, _UDP or _IB plus @port.
 */
__be64 cma_service_id(enum rdma_ucm_port_space ps, u16 port)
{
	return cpu_to_be64(((u64)ps << 16) + port);
}

/**
 * cma_service_id_ps - The IP port space a service id belongs to.
 * @service_id: the service id, network order
 *
 * Return: RDMA_PS_TCP, RDMA_PS_UDP or RDMA_PS_IB, or 0 if @service_id is
 * not in the IP range of any of them.
 */
enum rdma_ucm_port_space cma_service_id_ps(__be64 service_id)
{
	switch (be64_to_cpu(service_id) & RDMA_IB_IP_PS_MASK) {
	case RDMA_IB_IP_PS_TCP:
		return RDMA_PS_TCP;
	case RDMA_IB_IP_PS_UDP:
		return RDMA_PS_UDP;
	case RDMA_IB_IP_PS_IB:
		return RDMA_PS_IB;
	default:
		return 0;
	}
}

/**
 * cma_service_id_port - The port of a service id.
 * @service_id: the service id, network order
 *
 * Return: its low 16 bits, in host order.
 */
u16 cma_service_id_port(__be64 service_id)
{
	return (u16)be64_to_cpu(service_id);
}
