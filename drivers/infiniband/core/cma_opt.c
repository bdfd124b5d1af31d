// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Which id options may be set, with which values, in which state.
 *
 * The setters (rdma_set_reuseaddr() and friends) call these with the
 * lock that protects the option held, so that the check and the store
 * are one step.  User space (librdmacm's rdma_set_option()) relies on
 * these rules.
 */
#include <linux/errno.h>

#include "cma_priv.h"

/**
 * cma_opt_check_reuseaddr - Whether reuseaddr may be set now.
 * @state: the id's state
 * @reuse: the new value
 *
 * Turning it on is allowed in every state but LISTEN (a listener's port
 * is its own), turning it off only before the id is bound.
 *
 * Return: 0 or -EINVAL.
 */
int cma_opt_check_reuseaddr(enum rdma_cm_state state, int reuse)
{
	if (state == RDMA_CM_IDLE || (reuse && state != RDMA_CM_LISTEN))
		return 0;
	return -EINVAL;
}

/**
 * cma_opt_check_afonly - Whether afonly may be set now.
 * @state: the id's state
 *
 * Only before the id listens or resolves: in IDLE or ADDR_BOUND.
 *
 * Return: 0 or -EINVAL.
 */
int cma_opt_check_afonly(enum rdma_cm_state state)
{
	if (state == RDMA_CM_IDLE || state == RDMA_CM_ADDR_BOUND)
		return 0;
	return -EINVAL;
}

/**
 * cma_opt_check_ack_timeout - Whether the QP ACK timeout may be set.
 * @qp_type: the id's QP type
 *
 * Only requester QPs time out waiting for ACKs: RC and XRC initiator.
 *
 * Return: 0 or -EINVAL.
 */
int cma_opt_check_ack_timeout(enum ib_qp_type qp_type)
{
	if (qp_type == IB_QPT_RC || qp_type == IB_QPT_XRC_INI)
		return 0;
	return -EINVAL;
}

/**
 * cma_opt_check_min_rnr_timer - Whether the minimum RNR NAK timer may be
 * set to a value.
 * @qp_type: the id's QP type
 * @min_rnr_timer: the IB encoding of the timer, 5 bits
 *
 * Only responder QPs send RNR NAKs: RC and XRC target.
 *
 * Return: 0 or -EINVAL.
 */
int cma_opt_check_min_rnr_timer(enum ib_qp_type qp_type, u8 min_rnr_timer)
{
	if (min_rnr_timer > 0x1f)
		return -EINVAL;
	if (qp_type == IB_QPT_RC || qp_type == IB_QPT_XRC_TGT)
		return 0;
	return -EINVAL;
}

/**
 * cma_opt_req_qp_type - Whether a listener takes a request for a QP type.
 * @listener: the listener's QP type
 * @req: the request's: a REQ's transport service type (RC, UC, XRC), or
 *	IB_QPT_UD for a SIDR REQ
 *
 * A listener takes requests for its own QP type only: no UC REQ or SIDR
 * REQ reaches an RC listener, no REQ a UD listener, so that the passive
 * id the consumer accepts on is of the type it listens for.  An id of
 * QP type 0 (IB_QPT_SMI, which no connection uses) takes any, which
 * consumers that never set a QP type rely on.
 *
 * Return: true if @listener takes the request.
 */
bool cma_opt_req_qp_type(enum ib_qp_type listener, enum ib_qp_type req)
{
	return !listener || listener == req;
}
