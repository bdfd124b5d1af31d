/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Declarations shared between the rdma_cm translation units.
 */
#ifndef _CMA_PRIV_H
#define _CMA_PRIV_H

#include <linux/init.h>

#if IS_ENABLED(CONFIG_INFINIBAND_ADDR_TRANS_CONFIGFS)
int __init cma_configfs_init(void);
void __exit cma_configfs_exit(void);
#else
static inline int cma_configfs_init(void)
{
	return 0;
}

static inline void cma_configfs_exit(void)
{
}
#endif

#endif /* _CMA_PRIV_H */
