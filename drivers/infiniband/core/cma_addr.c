// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Socket address helpers for the three families an id can use: AF_INET,
 * AF_INET6 and AF_IB.  Callers pass addresses that live in a
 * sockaddr_storage (the id's route addresses), so reading the member of
 * the family's own sockaddr type never goes past the object.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <net/if_inet6.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <rdma/ib.h>

#include "cma_priv.h"

static const struct sockaddr_ib *cma_sib(const struct sockaddr *addr)
{
	return (const struct sockaddr_ib *)addr;
}

/* Whether @addr is the wildcard address, or with @loopback a loopback one. */
static bool cma_addr_is_special(const struct sockaddr *addr, bool loopback)
{
	__be32 ip4;

	switch (addr->sa_family) {
	case AF_INET:
		ip4 = cma_sin(addr)->sin_addr.s_addr;
		return loopback ? ipv4_is_loopback(ip4) : ipv4_is_zeronet(ip4);
	case AF_INET6:
		if (loopback)
			return ipv6_addr_loopback(&cma_sin6(addr)->sin6_addr);
		return ipv6_addr_any(&cma_sin6(addr)->sin6_addr);
	case AF_IB:
		if (loopback)
			return ib_addr_loopback(&cma_sib(addr)->sib_addr);
		return ib_addr_any(&cma_sib(addr)->sib_addr);
	default:
		return false;
	}
}

/**
 * cma_zero_addr - Whether an address is the unspecified (wildcard) one.
 * @addr: the address
 *
 * Return: true for 0.0.0.0/8, ::, or the zero GID; false for an unknown
 * family.
 */
bool cma_zero_addr(const struct sockaddr *addr)
{
	return cma_addr_is_special(addr, false);
}

/**
 * cma_loopback_addr - Whether an address is a loopback one.
 * @addr: the address
 *
 * Return: true for 127.0.0.0/8, ::1, or the IB loopback GID.
 */
bool cma_loopback_addr(const struct sockaddr *addr)
{
	return cma_addr_is_special(addr, true);
}

/**
 * cma_any_addr - Whether an address binds to no device in particular.
 * @addr: the address
 *
 * rdma_cm treats loopback like the wildcard: neither names a device.
 *
 * Return: cma_zero_addr() or cma_loopback_addr().
 */
bool cma_any_addr(const struct sockaddr *addr)
{
	return cma_zero_addr(addr) || cma_loopback_addr(addr);
}

/**
 * cma_family_supported - Whether rdma_cm binds and resolves @addr's family.
 * @addr: an address
 *
 * Return: true for AF_INET, AF_INET6 and AF_IB.
 */
bool cma_family_supported(const struct sockaddr *addr)
{
	return addr->sa_family == AF_INET || addr->sa_family == AF_INET6 ||
	       addr->sa_family == AF_IB;
}

/**
 * cma_addr_equal - Whether two addresses name the same host address.
 * @a: an address
 * @b: another address
 *
 * Ports are not compared.  IPv6 link-local addresses are equal only with
 * the same scope id.
 *
 * Return: true if @a and @b have the same family and address.
 */
bool cma_addr_equal(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;

	switch (a->sa_family) {
	case AF_INET:
		return cma_sin(a)->sin_addr.s_addr ==
		       cma_sin(b)->sin_addr.s_addr;
	case AF_INET6:
		if (!ipv6_addr_equal(&cma_sin6(a)->sin6_addr,
				     &cma_sin6(b)->sin6_addr))
			return false;
		if (!(ipv6_addr_type(&cma_sin6(b)->sin6_addr) &
		      IPV6_ADDR_LINKLOCAL))
			return true;
		return cma_sin6(a)->sin6_scope_id == cma_sin6(b)->sin6_scope_id;
	case AF_IB:
		return !ib_addr_cmp(&cma_sib(a)->sib_addr,
				    &cma_sib(b)->sib_addr);
	default:
		return false;
	}
}

/**
 * cma_addr_port - The port of an address, in host order.
 * @addr: the address
 *
 * Return: the port of an IP address; for AF_IB the low 16 bits of the
 * service id under its mask; 0 for another family.
 */
u16 cma_addr_port(const struct sockaddr *addr)
{
	const struct sockaddr_ib *sib;

	switch (addr->sa_family) {
	case AF_INET:
		return ntohs(cma_sin(addr)->sin_port);
	case AF_INET6:
		return ntohs(cma_sin6(addr)->sin6_port);
	case AF_IB:
		sib = cma_sib(addr);
		return (u16)(be64_to_cpu(sib->sib_sid) &
			     be64_to_cpu(sib->sib_sid_mask));
	default:
		return 0;
	}
}

/**
 * cma_addr_set_port - Store a port in an address.
 * @addr: the address
 * @port: the port, in host order
 *
 * For AF_IB the port becomes the low 16 bits of the service id, which is
 * then fully specified (mask all ones).  Other families are left alone.
 */
void cma_addr_set_port(struct sockaddr *addr, u16 port)
{
	struct sockaddr_ib *sib;
	u64 sid, mask;

	switch (addr->sa_family) {
	case AF_INET:
		((struct sockaddr_in *)addr)->sin_port = htons(port);
		break;
	case AF_INET6:
		((struct sockaddr_in6 *)addr)->sin6_port = htons(port);
		break;
	case AF_IB:
		sib = (struct sockaddr_ib *)addr;
		sid = be64_to_cpu(sib->sib_sid);
		mask = be64_to_cpu(sib->sib_sid_mask);
		sib->sib_sid = cpu_to_be64((sid & mask) | port);
		sib->sib_sid_mask = cpu_to_be64(~0ULL);
		break;
	}
}

/**
 * cma_ib_mgid - The IB multicast GID rdma_cm joins for a group.
 * @addr: the group address: IPv4, IPv6 or AF_IB
 * @broadcast: the IPoIB broadcast address of the port (scope and P_Key)
 * @udp: the id is in the UDP port space
 * @mgid: out: the MGID
 *
 * The wildcard address is the zero MGID (the SA assigns one); an
 * SA-assigned MGID (ff1x:a01b::/32) and an AF_IB address are taken as
 * they are; an IP group goes through IPoIB's mapping, with rdma_cm's
 * signature (0x01 instead of the IP version's) in the UDP port space.
 */
void cma_ib_mgid(const struct sockaddr *addr, const unsigned char *broadcast,
		 bool udp, union ib_gid *mgid)
{
	const struct sockaddr_in6 *sin6 = cma_sin6(addr);
	char map[MAX_ADDR_LEN];

	if (cma_any_addr(addr)) {
		memset(mgid, 0, sizeof(*mgid));
		return;
	}
	if (addr->sa_family == AF_INET6 &&
	    (be32_to_cpu(sin6->sin6_addr.s6_addr32[0]) & 0xfff0ffff) ==
	    0xff10a01b) {
		memcpy(mgid, &sin6->sin6_addr, sizeof(*mgid));
		return;
	}
	if (addr->sa_family == AF_IB) {
		memcpy(mgid, &cma_sib(addr)->sib_addr, sizeof(*mgid));
		return;
	}
	if (addr->sa_family == AF_INET6)
		ipv6_ib_mc_map(&sin6->sin6_addr, broadcast, map);
	else
		ip_ib_mc_map(cma_sin(addr)->sin_addr.s_addr, broadcast, map);
	if (udp)
		map[7] = 0x01;
	memcpy(mgid, map + 4, sizeof(*mgid));
}
