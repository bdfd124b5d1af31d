/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Out-of-tree build glue: the include context for every rdma_cm
 * translation unit, which Kbuild prepends with -include; the sources do
 * not include it, and an in-tree build has no use for it.
 *
 * Under CONFIG_MODVERSIONS each export's CRC is a hash of its prototype's
 * type closure as seen by genksyms in the exporting file.  Export CRCs
 * must equal the 6.1 ABI's, which genksyms computed in 6.1's cma.c, so
 * that modules built against that kernel load.  An exporting file must
 * therefore see exactly the same set of complete types: the same public
 * headers, ib_core's private core_priv.h (which completes, among others,
 * struct rdma_restrack_root) and <linux/tracepoint.h>.  Do not trim it,
 * even where a header looks unused.
 */
#ifndef _CMA_ABI_H
#define _CMA_ABI_H

#include <linux/completion.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/rbtree.h>
#include <linux/igmp.h>
#include <linux/xarray.h>
#include <linux/inetdevice.h>
#include <linux/slab.h>
#include <linux/module.h>
#include <linux/tracepoint.h>
#include <net/route.h>

#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/netevent.h>
#include <net/tcp.h>
#include <net/ipv6.h>
#include <net/ip_fib.h>
#include <net/ip6_route.h>

#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ib.h>
#include <rdma/rdma_netlink.h>
#include <rdma/ib.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_sa.h>
#include <rdma/iw_cm.h>

#include "core_priv.h"

#endif /* _CMA_ABI_H */
