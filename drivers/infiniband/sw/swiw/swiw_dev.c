// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* What the device and its one port say about themselves; PDs. */
#include <linux/netdevice.h>
#include <rdma/ib_cache.h>

#include "swiw.h"

int swiw_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		      struct ib_udata *udata)
{
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->max_mr_size = U64_MAX;
	attr->page_size_cap = PAGE_SIZE;
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_qp = SWIW_MAX_QP;
	attr->max_qp_wr = SWIW_MAX_QP_WR;
	/*
	 * Fast registration (REG_MR, LOCAL_INV, SEND with invalidate), and
	 * no local DMA lkey: the core gets a DMA MR per kernel PD for it.
	 */
	attr->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS;
	attr->max_fast_reg_page_list_len = SWIW_MAX_FRMR_PAGES;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	attr->max_send_sge = SWIW_MAX_SGE;
	attr->max_recv_sge = SWIW_MAX_SGE;
	attr->max_sge_rd = 1;
	attr->max_cq = SWIW_MAX_CQ;
	attr->max_cqe = SWIW_MAX_CQE;
	attr->max_mr = SWIW_MAX_MR;
	attr->max_pd = SWIW_MAX_PD;
	attr->max_qp_rd_atom = SWIW_MAX_RD_ATOM;
	attr->max_qp_init_rd_atom = SWIW_MAX_RD_ATOM;
	attr->max_res_rd_atom = SWIW_MAX_QP * SWIW_MAX_RD_ATOM;
	attr->max_srq = SWIW_MAX_SRQ;
	attr->max_srq_wr = SWIW_MAX_SRQ_WR;
	attr->max_srq_sge = SWIW_MAX_SGE;
	return 0;
}

int swiw_query_port(struct ib_device *ibdev, u32 port,
		    struct ib_port_attr *attr)
{
	struct swiw_dev *sdev = to_swiw_dev(ibdev);
	int ret;

	ret = ib_get_eth_speed(ibdev, port, &attr->active_speed,
			       &attr->active_width);
	if (ret)
		return ret;
	attr->state = sdev->state;
	attr->phys_state = sdev->state == IB_PORT_ACTIVE ?
			   IB_PORT_PHYS_STATE_LINK_UP :
			   IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = ib_mtu_int_to_enum(READ_ONCE(sdev->netdev->mtu));
	attr->active_mtu = attr->max_mtu;
	attr->gid_tbl_len = 1;
	attr->port_cap_flags = IB_PORT_CM_SUP | IB_PORT_DEVICE_MGMT_SUP;
	attr->max_msg_sz = U32_MAX;
	return 0;
}

/* One GID: the netdev's MAC, which is how rdma_cm finds the device. */
int swiw_query_gid(struct ib_device *ibdev, u32 port, int idx,
		   union ib_gid *gid)
{
	struct net_device *netdev = to_swiw_dev(ibdev)->netdev;

	if (idx)
		return -EINVAL;
	memset(gid, 0, sizeof(*gid));
	memcpy(gid->raw, netdev->dev_addr,
	       min_t(unsigned int, netdev->addr_len, ETH_ALEN));
	return 0;
}

int swiw_get_port_immutable(struct ib_device *ibdev, u32 port,
			    struct ib_port_immutable *imm)
{
	imm->gid_tbl_len = 1;
	imm->core_cap_flags = RDMA_CORE_PORT_IWARP;
	return 0;
}

/* For iw_cm: a wildcard listener of this device binds to the netdev. */
struct net_device *swiw_get_netdev(struct ib_device *ibdev, u32 port)
{
	struct net_device *netdev = to_swiw_dev(ibdev)->netdev;

	dev_hold(netdev);
	return netdev;
}

static const struct rdma_stat_desc swiw_counters[SWIW_CNT_MAX] = {
	[SWIW_CNT_RTR_SENT] = { .name = "rtr_sent" },
	[SWIW_CNT_RTR_RECV] = { .name = "rtr_received" },
	[SWIW_CNT_TERM_SENT] = { .name = "terminate_sent" },
	[SWIW_CNT_TERM_RECV] = { .name = "terminate_received" },
	[SWIW_CNT_LARGE] = { .name = "large_fpdu_streams" },
};

struct rdma_hw_stats *swiw_alloc_hw_port_stats(struct ib_device *ibdev,
					       u32 port)
{
	return rdma_alloc_hw_stats_struct(swiw_counters, SWIW_CNT_MAX,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int swiw_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		      u32 port, int index)
{
	struct swiw_dev *sdev = to_swiw_dev(ibdev);
	int i;

	for (i = 0; i < SWIW_CNT_MAX; i++)
		stats->value[i] = atomic64_read(&sdev->counter[i]);
	return SWIW_CNT_MAX;
}

void swiw_port_event(struct swiw_dev *sdev, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &sdev->ibdev,
		.event = type,
		.element.port_num = 1,
	};

	ib_dispatch_event(&ev);
}

int swiw_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct swiw_dev *sdev = to_swiw_dev(ibpd->device);

	return swiw_count_get(&sdev->nr_pd, SWIW_MAX_PD) ? 0 : -ENOMEM;
}

int swiw_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	atomic_dec(&to_swiw_dev(ibpd->device)->nr_pd);
	return 0;
}
