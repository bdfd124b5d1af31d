// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The module: `rdma link add NAME type swiw netdev DEV` makes a device
 * on DEV, the netdev notifier follows DEV's state, and every device is
 * registered with iw_cm's host-integrated model.
 */
#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/wait.h>
#include <net/addrconf.h>
#include <rdma/iw_host.h>
#include <rdma/rdma_netlink.h>

#include "swiw.h"

struct workqueue_struct *swiw_wq;

/* Our devices: ib_device_get_by_netdev() would find siw's as well. */
static LIST_HEAD(swiw_devs);
static DEFINE_SPINLOCK(swiw_devs_lock);
static DECLARE_WAIT_QUEUE_HEAD(swiw_devs_wait);

static bool p2p;
module_param(p2p, bool, 0444);
MODULE_PARM_DESC(p2p, "as initiator, ask for peer-to-peer mode (RFC 6581) with a zero-length RDMA WRITE as RTR");

/*
 * rdma-core's siw provider binds to a device by driver id only: with
 * user_verbs swiw takes siw's.  siw itself must then not be loaded: its
 * module exit unregisters every device of that id.
 */
static bool user_verbs;
module_param(user_verbs, bool, 0444);
MODULE_PARM_DESC(user_verbs, "user verbs in siw's ABI (rdma-core's siw provider); not with siw.ko loaded");

/*
 * As responder swiw takes either RTR, with or without p2p.  Its receive
 * side parses FPDUs of any length, so it says it takes large ones.
 */
static const struct iw_host_ops swiw_host_ops = {
	.attach = swiw_attach,
	.large_fpdu = true,
	.rtr_recv = IW_HOST_RTR_WRITE | IW_HOST_RTR_READ,
};

static const struct iw_host_ops swiw_host_ops_p2p = {
	.attach = swiw_attach,
	.large_fpdu = true,
	.p2p = true,
	.rtr_send = IW_HOST_RTR_WRITE,
	.rtr_recv = IW_HOST_RTR_WRITE | IW_HOST_RTR_READ,
};

static void swiw_dealloc_driver(struct ib_device *ibdev)
{
	struct swiw_dev *sdev = to_swiw_dev(ibdev);

	iw_host_unregister(ibdev);
	WARN_ON_ONCE(!xa_empty(&sdev->qps) || !xa_empty(&sdev->mrs));
	xa_destroy(&sdev->qps);
	xa_destroy(&sdev->mrs);
	dev_put(sdev->netdev);
	spin_lock(&swiw_devs_lock);
	list_del(&sdev->list);
	spin_unlock(&swiw_devs_lock);
	wake_up_all(&swiw_devs_wait);
}

static const struct ib_device_ops swiw_dev_ops = {
	.owner = THIS_MODULE,
	.uverbs_abi_ver = 1,

	.alloc_hw_port_stats = swiw_alloc_hw_port_stats,
	.alloc_mr = swiw_alloc_mr,
	.alloc_pd = swiw_alloc_pd,
	.create_cq = swiw_create_cq,
	.create_qp = swiw_create_qp,
	.create_srq = swiw_create_srq,
	.dealloc_driver = swiw_dealloc_driver,
	.dealloc_pd = swiw_dealloc_pd,
	.dereg_mr = swiw_dereg_mr,
	.destroy_cq = swiw_destroy_cq,
	.destroy_qp = swiw_destroy_qp,
	.destroy_srq = swiw_destroy_srq,
	.get_dma_mr = swiw_get_dma_mr,
	.get_hw_stats = swiw_get_hw_stats,
	.get_netdev = swiw_get_netdev,
	.get_port_immutable = swiw_get_port_immutable,
	.iw_add_ref = swiw_qp_get,
	.iw_get_qp = swiw_get_qp,
	.iw_rem_ref = swiw_qp_put,
	IW_HOST_DEVICE_OPS,
	.map_mr_sg = swiw_map_mr_sg,
	.modify_qp = swiw_modify_qp,
	.modify_srq = swiw_modify_srq,
	.poll_cq = swiw_poll_cq,
	.post_recv = swiw_post_recv,
	.post_send = swiw_post_send,
	.post_srq_recv = swiw_post_srq_recv,
	.query_device = swiw_query_device,
	.query_gid = swiw_query_gid,
	.query_port = swiw_query_port,
	.query_qp = swiw_query_qp,
	.query_srq = swiw_query_srq,
	.reg_user_mr = swiw_reg_user_mr,
	.req_notify_cq = swiw_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_cq, swiw_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, swiw_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, swiw_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, swiw_srq, ibsrq),
};

static const struct ib_device_ops swiw_uverbs_ops = {
	.driver_id = RDMA_DRIVER_SIW,
	.uverbs_abi_ver = SIW_ABI_VERSION,

	.alloc_ucontext = swiw_alloc_ucontext,
	.dealloc_ucontext = swiw_dealloc_ucontext,
	.disassociate_ucontext = swiw_disassociate_ucontext,
	.mmap = swiw_mmap,
	.mmap_free = swiw_mmap_free,

	INIT_RDMA_OBJ_SIZE(ib_ucontext, swiw_ucontext, base),
};

static struct swiw_dev *swiw_dev_find(struct net_device *netdev)
{
	struct swiw_dev *sdev;

	list_for_each_entry(sdev, &swiw_devs, list)
		if (sdev->netdev == netdev)
			return sdev;
	return NULL;
}

static bool swiw_netdev_ok(const struct net_device *netdev)
{
	switch (netdev->type) {
	case ARPHRD_ETHER:
	case ARPHRD_IEEE802:
	case ARPHRD_NONE:
	case ARPHRD_LOOPBACK:
		return true;
	default:
		return false;
	}
}

static int swiw_newlink(const char *name, struct net_device *netdev)
{
	struct swiw_dev *sdev;
	struct ib_device *ibdev;
	u8 mac[ETH_ALEN] = {};
	int ret;

	if (!swiw_netdev_ok(netdev))
		return -EINVAL;
	spin_lock(&swiw_devs_lock);
	ret = swiw_dev_find(netdev) ? -EEXIST : 0;
	spin_unlock(&swiw_devs_lock);
	if (ret)
		return ret;

	sdev = ib_alloc_device(swiw_dev, ibdev);
	if (!sdev)
		return -ENOMEM;
	ibdev = &sdev->ibdev;
	INIT_LIST_HEAD(&sdev->list);
	xa_init_flags(&sdev->qps, XA_FLAGS_ALLOC1);
	xa_init_flags(&sdev->mrs, XA_FLAGS_ALLOC1);
	sdev->netdev = netdev;
	dev_hold(netdev);

	/* rdma_cm finds an iWARP device by its GID: the netdev's MAC. */
	memcpy(mac, netdev->dev_addr, min_t(unsigned int, netdev->addr_len,
					    ETH_ALEN));
	if (netdev->addr_len == ETH_ALEN || !netdev->addr_len)
		addrconf_addr_eui48((u8 *)&ibdev->node_guid, mac);
	ibdev->node_type = RDMA_NODE_RNIC;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = 1;
	ibdev->iw_driver_flags = IW_F_NO_PORT_MAP;
	strscpy(ibdev->node_desc, "swiw software iWARP",
		sizeof(ibdev->node_desc));
	memcpy(ibdev->iw_ifname, netdev->name, sizeof(ibdev->iw_ifname));
	ib_set_device_ops(ibdev, &swiw_dev_ops);
	if (user_verbs) {
		ib_set_device_ops(ibdev, &swiw_uverbs_ops);
		/* The doorbell of the provider's send ring. */
		ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND);
	}
	sdev->state = netif_running(netdev) && netif_carrier_ok(netdev) ?
		      IB_PORT_ACTIVE : IB_PORT_DOWN;
	spin_lock(&swiw_devs_lock);
	list_add_tail(&sdev->list, &swiw_devs);
	spin_unlock(&swiw_devs_lock);

	/*
	 * From here on dealloc_driver undoes all of the above.  With siw's
	 * driver id the netdev stays out of the core's table, where siw's
	 * netdev notifier would find the device and take it for its own;
	 * get_netdev tells the core about it.
	 */
	ret = user_verbs ? 0 : ib_device_set_netdev(ibdev, netdev, 1);
	if (!ret)
		ret = ib_register_device(ibdev, name, NULL);
	if (ret) {
		ib_dealloc_device(ibdev);
		return ret;
	}
	ret = iw_host_register(ibdev, p2p ? &swiw_host_ops_p2p :
					    &swiw_host_ops);
	if (ret)
		ib_unregister_device(ibdev);
	return ret;
}

static int swiw_netdev_event(struct notifier_block *nb, unsigned long event,
			     void *arg)
{
	struct net_device *netdev = netdev_notifier_info_to_dev(arg);
	struct swiw_dev *sdev;

	spin_lock(&swiw_devs_lock);
	sdev = swiw_dev_find(netdev);
	if (sdev && !ib_device_try_get(&sdev->ibdev))
		sdev = NULL;
	spin_unlock(&swiw_devs_lock);
	if (!sdev)
		return NOTIFY_DONE;

	switch (event) {
	case NETDEV_UP:
	case NETDEV_CHANGE:
		if (netif_running(netdev) && netif_carrier_ok(netdev) &&
		    sdev->state != IB_PORT_ACTIVE) {
			sdev->state = IB_PORT_ACTIVE;
			swiw_port_event(sdev, IB_EVENT_PORT_ACTIVE);
		} else if (!netif_carrier_ok(netdev) &&
			   sdev->state == IB_PORT_ACTIVE) {
			sdev->state = IB_PORT_DOWN;
			swiw_port_event(sdev, IB_EVENT_PORT_ERR);
		}
		break;
	case NETDEV_DOWN:
		sdev->state = IB_PORT_DOWN;
		swiw_port_event(sdev, IB_EVENT_PORT_ERR);
		break;
	case NETDEV_CHANGEADDR:
		swiw_port_event(sdev, IB_EVENT_GID_CHANGE);
		break;
	case NETDEV_UNREGISTER:
		/* Not under RTNL: unregistering waits for the device's users. */
		ib_unregister_device_queued(&sdev->ibdev);
		break;
	}
	ib_device_put(&sdev->ibdev);
	return NOTIFY_OK;
}

static struct notifier_block swiw_netdev_nb = {
	.notifier_call = swiw_netdev_event,
};

static struct rdma_link_ops swiw_link_ops = {
	.type = "swiw",
	.newlink = swiw_newlink,
};

/* Unregister every device, and wait for queued unregistrations too. */
static void swiw_unregister_all(void)
{
	struct swiw_dev *sdev;

	for (;;) {
		spin_lock(&swiw_devs_lock);
		sdev = list_first_entry_or_null(&swiw_devs, struct swiw_dev,
						list);
		if (sdev && !ib_device_try_get(&sdev->ibdev)) {
			/* Going away already: wait for dealloc_driver. */
			spin_unlock(&swiw_devs_lock);
			wait_event(swiw_devs_wait, list_empty(&swiw_devs) ||
				   list_first_entry(&swiw_devs, struct swiw_dev,
						    list) != sdev);
			continue;
		}
		spin_unlock(&swiw_devs_lock);
		if (!sdev)
			return;
		ib_unregister_device_and_put(&sdev->ibdev);
	}
}

static int __init swiw_init(void)
{
	int ret;

	swiw_wq = alloc_workqueue("swiw", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!swiw_wq)
		return -ENOMEM;
	ret = register_netdevice_notifier(&swiw_netdev_nb);
	if (ret) {
		destroy_workqueue(swiw_wq);
		return ret;
	}
	rdma_link_register(&swiw_link_ops);
	return 0;
}

static void __exit swiw_exit(void)
{
	rdma_link_unregister(&swiw_link_ops);
	unregister_netdevice_notifier(&swiw_netdev_nb);
	swiw_unregister_all();
	destroy_workqueue(swiw_wq);
}

module_init(swiw_init);
module_exit(swiw_exit);

MODULE_DESCRIPTION("Software iWARP provider on iw_cm's host-integrated connections");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_IMPORT_NS(IW_HOST);
MODULE_ALIAS_RDMA_LINK("swiw");
