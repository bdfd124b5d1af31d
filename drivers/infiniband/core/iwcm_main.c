// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * iWARP connection manager: module entry points and kernel API.
 *
 * Skeleton: no iw_cm_id can be created yet, so every operation on one
 * fails with -EOPNOTSUPP.  iwcm_reject_msg() is implemented.
 */
#include <linux/errno.h>
#include <linux/init.h>
#include <linux/module.h>
#include <rdma/ib_addr.h>
#include <rdma/iw_cm.h>
#include <rdma/iw_portmap.h>
#include <rdma/rdma_netlink.h>

MODULE_AUTHOR("rdma_cm project");
MODULE_DESCRIPTION("iWARP CM");
MODULE_LICENSE("Dual BSD/GPL");

/**
 * iwcm_reject_msg - Describe the reason of a rejected iWARP connection.
 * @reason: the negative errno reported in the reject event
 *
 * Return: a static string, "unrecognized reason" for an unknown @reason.
 */
const char *__attribute_const__ iwcm_reject_msg(int reason)
{
	switch (reason) {
	case -ECONNRESET:
		return "reset by remote host";
	case -ECONNREFUSED:
		return "refused by remote application";
	case -ETIMEDOUT:
		return "setup timeout";
	default:
		return "unrecognized reason";
	}
}
EXPORT_SYMBOL(iwcm_reject_msg);

/**
 * iw_create_cm_id - Create an iWARP CM id.
 * @device: the iWARP device
 * @cm_handler: consumer callback for the id's events
 * @context: consumer context stored in the id
 *
 * Return: the new id, or an ERR_PTR().
 */
struct iw_cm_id *iw_create_cm_id(struct ib_device *device,
				 iw_cm_handler cm_handler, void *context)
{
	return ERR_PTR(-EOPNOTSUPP);
}
EXPORT_SYMBOL(iw_create_cm_id);

/**
 * iw_destroy_cm_id - Destroy an iWARP CM id.
 * @cm_id: the id
 *
 * Aborts a connection in progress and waits for the id's events to drain.
 */
void iw_destroy_cm_id(struct iw_cm_id *cm_id)
{
	/* No id can have been created, so there is nothing to release. */
}
EXPORT_SYMBOL(iw_destroy_cm_id);

/**
 * iw_cm_listen - Listen for connection requests on the id's local address.
 * @cm_id: the id
 * @backlog: pending request limit; 0 selects the default
 *
 * Return: 0 on success or a negative errno.
 */
int iw_cm_listen(struct iw_cm_id *cm_id, int backlog)
{
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(iw_cm_listen);

/**
 * iw_cm_reject - Reject a connection request.
 * @cm_id: the id of the request
 * @private_data: data to send with the reject
 * @private_data_len: length of @private_data
 *
 * Return: 0 on success or a negative errno.
 */
int iw_cm_reject(struct iw_cm_id *cm_id, const void *private_data,
		 u8 private_data_len)
{
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(iw_cm_reject);

/**
 * iw_cm_accept - Accept a connection request.
 * @cm_id: the id of the request
 * @iw_param: QP number, ORD/IRD and private data of the reply
 *
 * Return: 0 on success or a negative errno.
 */
int iw_cm_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *iw_param)
{
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(iw_cm_accept);

/**
 * iw_cm_connect - Start connecting to the id's remote address.
 * @cm_id: the id
 * @iw_param: QP number, ORD/IRD and private data of the request
 *
 * Return: 0 if the connection was started, or a negative errno.
 */
int iw_cm_connect(struct iw_cm_id *cm_id, struct iw_cm_conn_param *iw_param)
{
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(iw_cm_connect);

/**
 * iw_cm_disconnect - Close a connection.
 * @cm_id: the id
 * @abrupt: non-zero to reset the connection rather than close it
 *
 * Return: 0 on success or a negative errno.
 */
int iw_cm_disconnect(struct iw_cm_id *cm_id, int abrupt)
{
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(iw_cm_disconnect);

/**
 * iw_cm_init_qp_attr - QP attributes for a state transition of the id's QP.
 * @cm_id: the id
 * @qp_attr: in: the target qp_state; out: the attributes to apply
 * @qp_attr_mask: out: the ib_qp_attr_mask of the filled attributes
 *
 * Return: 0 on success or a negative errno.
 */
int iw_cm_init_qp_attr(struct iw_cm_id *cm_id, struct ib_qp_attr *qp_attr,
		       int *qp_attr_mask)
{
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(iw_cm_init_qp_attr);

/*
 * Claim the IWCM netlink client with no operations: iwpmd's requests then
 * fail with -EINVAL at once, instead of each retrying the module autoload
 * that the alias below triggers.
 */
static const struct rdma_nl_cbs iwcm_nl_cb_table[RDMA_NL_IWPM_NUM_OPS] = {};

static int __init iw_cm_init(void)
{
	rdma_nl_register(RDMA_NL_IWCM, iwcm_nl_cb_table);
	return 0;
}

static void __exit iw_cm_cleanup(void)
{
	rdma_nl_unregister(RDMA_NL_IWCM);
}

MODULE_ALIAS_RDMA_NETLINK(RDMA_NL_IWCM, 2);

module_init(iw_cm_init);
module_exit(iw_cm_cleanup);
