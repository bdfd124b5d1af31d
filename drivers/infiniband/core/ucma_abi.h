/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_ucm: the ABI of /dev/infiniband/rdma_cm (<rdma/rdma_user_cm.h>,
 * version 4) as pure helpers: command size limits, header and argument
 * validation, and the conversion of rdma_cm parameters into the event
 * record.  Nothing here touches a file, an id or a lock, so that the
 * KUnit suite (ucma_kunit.c) can test all of it without a device.
 */
#ifndef UCMA_ABI_H
#define UCMA_ABI_H

#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/nospec.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/types.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_marshall.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_user_cm.h>

#define UCMA_NUM_CMDS		(RDMA_USER_CM_CMD_JOIN_MCAST + 1)

/*
 * What GET_OPTION, an unknown option or an unknown QUERY return, and so
 * what user space sees: "function not implemented" (38), the errno
 * librdmacm and applications have always been given.
 * checkpatch keeps that name for bad syscall numbers, hence the paste.
 */
#define UCMA_ENOTIMPL		(-__PASTE(ENO, SYS))

/*
 * The structure sizes are ABI: librdmacm of any version writes and reads
 * exactly these.  The figures are those of the x86-64 and i386 builds of
 * the uapi header (every 64-bit member is __aligned_u64).
 */
static_assert(sizeof(struct rdma_ucm_cmd_hdr) == 8);
static_assert(sizeof(struct rdma_ucm_create_id) == 24);
static_assert(sizeof(struct rdma_ucm_create_id_resp) == 4);
static_assert(sizeof(struct rdma_ucm_destroy_id) == 16);
static_assert(sizeof(struct rdma_ucm_destroy_id_resp) == 4);
static_assert(sizeof(struct rdma_ucm_bind_ip) == 40);
static_assert(sizeof(struct rdma_ucm_resolve_ip) == 64);
static_assert(sizeof(struct rdma_ucm_resolve_route) == 8);
static_assert(sizeof(struct rdma_ucm_query) == 16);
static_assert(sizeof(struct rdma_ucm_query_route_resp) == 208);
static_assert(sizeof(struct rdma_ucm_connect) == 288);
static_assert(sizeof(struct rdma_ucm_listen) == 8);
static_assert(sizeof(struct rdma_ucm_accept) == 296);
static_assert(sizeof(struct rdma_ucm_reject) == 264);
static_assert(sizeof(struct rdma_ucm_disconnect) == 4);
static_assert(sizeof(struct rdma_ucm_init_qp_attr) == 16);
static_assert(sizeof(struct ib_uverbs_qp_attr) == 144);
static_assert(sizeof(struct rdma_ucm_get_event) == 8);
static_assert(sizeof(struct rdma_ucm_event_resp) == 336);
static_assert(sizeof(struct rdma_ucm_set_option) == 24);
static_assert(sizeof(struct rdma_ucm_notify) == 8);
static_assert(sizeof(struct rdma_ucm_join_ip_mcast) == 48);
static_assert(sizeof(struct rdma_ucm_migrate_id) == 16);
static_assert(sizeof(struct rdma_ucm_migrate_resp) == 4);
static_assert(sizeof(struct rdma_ucm_bind) == 136);
static_assert(sizeof(struct rdma_ucm_resolve_addr) == 272);
static_assert(sizeof(struct rdma_ucm_join_mcast) == 152);
static_assert(sizeof(struct rdma_ucm_query_addr_resp) == 280);
static_assert(sizeof(struct rdma_ucm_query_path_resp) == 8);
static_assert(sizeof(struct ib_path_rec_data) == 72);
static_assert(offsetof(struct rdma_ucm_event_resp, param) == 20);
static_assert(offsetof(struct rdma_ucm_event_resp, reserved) == 324);
static_assert(offsetof(struct rdma_ucm_event_resp, ece) == 328);

/* The smallest GET_EVENT answer: old i386 librdmacm has no tail. */
#define UCMA_EVENT_RESP_MIN	offsetof(struct rdma_ucm_event_resp, reserved)
/* CONNECT and ACCEPT without the ECE tail (librdmacm before v29). */
#define UCMA_CONNECT_IN_MIN	offsetofend(struct rdma_ucm_connect, reserved)
#define UCMA_ACCEPT_IN_MIN	offsetofend(struct rdma_ucm_accept, reserved)
/* QUERY_ROUTE and QUERY ADDR/GID answers from before ibdev_index. */
#define UCMA_QUERY_ROUTE_OUT_MIN \
	offsetof(struct rdma_ucm_query_route_resp, ibdev_index)
#define UCMA_QUERY_ADDR_OUT_MIN \
	offsetof(struct rdma_ucm_query_addr_resp, ibdev_index)

/**
 * struct ucma_cmd_limits - what write() requires of one command
 * @in_min: smallest hdr.in; smaller is -EINVAL (never read past what
 *	user space says it wrote)
 * @out_min: smallest hdr.out; smaller is -ENOSPC (0: no fixed answer)
 * @out_late: the handler checks @out_min itself, after validating the
 *	input, so that errors come in the order the ABI has returned them
 * @valid: the command number exists
 */
struct ucma_cmd_limits {
	u16 in_min;
	u16 out_min;
	bool out_late;
	bool valid;
};

#define UCMA_LIM(name, in_type, out, late)				\
	[RDMA_USER_CM_CMD_##name] = { sizeof(struct in_type), out, late, true }

/* The limits of command @cmd; false for a number that is no command. */
static inline bool ucma_cmd_limits(u32 cmd, struct ucma_cmd_limits *lim)
{
	static const struct ucma_cmd_limits limits[] = {
		UCMA_LIM(CREATE_ID, rdma_ucm_create_id,
			 sizeof(struct rdma_ucm_create_id_resp), false),
		UCMA_LIM(DESTROY_ID, rdma_ucm_destroy_id,
			 sizeof(struct rdma_ucm_destroy_id_resp), false),
		UCMA_LIM(BIND_IP, rdma_ucm_bind_ip, 0, false),
		UCMA_LIM(RESOLVE_IP, rdma_ucm_resolve_ip, 0, false),
		UCMA_LIM(RESOLVE_ROUTE, rdma_ucm_resolve_route, 0, false),
		UCMA_LIM(QUERY_ROUTE, rdma_ucm_query, UCMA_QUERY_ROUTE_OUT_MIN,
			 false),
		[RDMA_USER_CM_CMD_CONNECT] = { UCMA_CONNECT_IN_MIN, 0, false,
					       true },
		UCMA_LIM(LISTEN, rdma_ucm_listen, 0, false),
		[RDMA_USER_CM_CMD_ACCEPT] = { UCMA_ACCEPT_IN_MIN, 0, false,
					      true },
		UCMA_LIM(REJECT, rdma_ucm_reject, 0, false),
		UCMA_LIM(DISCONNECT, rdma_ucm_disconnect, 0, false),
		UCMA_LIM(INIT_QP_ATTR, rdma_ucm_init_qp_attr,
			 sizeof(struct ib_uverbs_qp_attr), false),
		UCMA_LIM(GET_EVENT, rdma_ucm_get_event, UCMA_EVENT_RESP_MIN,
			 false),
		[RDMA_USER_CM_CMD_GET_OPTION] = { 0, 0, false, true },
		UCMA_LIM(SET_OPTION, rdma_ucm_set_option, 0, false),
		UCMA_LIM(NOTIFY, rdma_ucm_notify, 0, false),
		UCMA_LIM(JOIN_IP_MCAST, rdma_ucm_join_ip_mcast,
			 sizeof(struct rdma_ucm_create_id_resp), true),
		UCMA_LIM(LEAVE_MCAST, rdma_ucm_destroy_id,
			 sizeof(struct rdma_ucm_destroy_id_resp), false),
		UCMA_LIM(MIGRATE_ID, rdma_ucm_migrate_id,
			 sizeof(struct rdma_ucm_migrate_resp), false),
		/* the answer's size depends on the option */
		UCMA_LIM(QUERY, rdma_ucm_query, 0, false),
		UCMA_LIM(BIND, rdma_ucm_bind, 0, false),
		UCMA_LIM(RESOLVE_ADDR, rdma_ucm_resolve_addr, 0, false),
		UCMA_LIM(JOIN_MCAST, rdma_ucm_join_mcast,
			 sizeof(struct rdma_ucm_create_id_resp), true),
	};

	if (cmd >= ARRAY_SIZE(limits))
		return false;
	*lim = limits[array_index_nospec(cmd, ARRAY_SIZE(limits))];
	return lim->valid;
}

#undef UCMA_LIM

/*
 * The checks write() makes on a command header before any handler runs,
 * in the ABI's order: 0 or a negative errno.  @len is write()'s length.
 * GET_OPTION, which has no handler, is UCMA_ENOTIMPL.
 */
static inline int ucma_check_hdr(const struct rdma_ucm_cmd_hdr *hdr,
				 size_t len)
{
	struct ucma_cmd_limits lim;

	if (!ucma_cmd_limits(hdr->cmd, &lim))
		return -EINVAL;
	if ((size_t)hdr->in + sizeof(*hdr) > len)
		return -EINVAL;
	if (hdr->cmd == RDMA_USER_CM_CMD_GET_OPTION)
		return UCMA_ENOTIMPL;
	if (hdr->in < lim.in_min)
		return -EINVAL;
	if (!lim.out_late && hdr->out < lim.out_min)
		return -ENOSPC;
	return 0;
}

/*
 * QP type of a new id: the port space decides, RDMA_PS_IB takes the
 * caller's choice among the types the CM can connect (any other byte
 * is -EINVAL).
 */
static inline int ucma_qp_type(u16 ps, u8 req, enum ib_qp_type *qp_type)
{
	switch (ps) {
	case RDMA_PS_TCP:
		*qp_type = IB_QPT_RC;
		return 0;
	case RDMA_PS_UDP:
	case RDMA_PS_IPOIB:
		*qp_type = IB_QPT_UD;
		return 0;
	case RDMA_PS_IB:
		switch (req) {
		case IB_QPT_RC:
		case IB_QPT_UC:
		case IB_QPT_UD:
		case IB_QPT_XRC_INI:
		case IB_QPT_XRC_TGT:
			*qp_type = req;
			return 0;
		}
		return -EINVAL;
	default:
		return -EINVAL;
	}
}

/* LISTEN: 0 (read as unset) and anything above the sysctl mean the sysctl. */
static inline int ucma_listen_backlog(u32 backlog, int max_backlog)
{
	if (!backlog || backlog > (u32)max_backlog)
		return max_backlog;
	return backlog;
}

/* REJECT: reason 0 means "consumer defined"; only two reasons are legal. */
static inline int ucma_reject_reason(u8 reason, u8 *out)
{
	if (!reason)
		reason = IB_CM_REJ_CONSUMER_DEFINED;
	if (reason != IB_CM_REJ_CONSUMER_DEFINED &&
	    reason != IB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED)
		return -EINVAL;
	*out = reason;
	return 0;
}

/* JOIN flags to the SA join state; -EINVAL for an unknown flag. */
static inline int ucma_join_state(u16 join_flags, u8 *state)
{
	switch (join_flags) {
	case RDMA_MC_JOIN_FLAG_FULLMEMBER:
		*state = BIT(FULLMEMBER_JOIN);
		return 0;
	case RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER:
		*state = BIT(SENDONLY_FULLMEMBER_JOIN);
		return 0;
	default:
		return -EINVAL;
	}
}

/* BIND: the address must be as long as its family says, and no more. */
static inline int ucma_check_bind(struct rdma_ucm_bind *cmd)
{
	if (cmd->reserved || !cmd->addr_size ||
	    cmd->addr_size != rdma_addr_size_kss(&cmd->addr))
		return -EINVAL;
	return 0;
}

/* BIND_IP: an IPv4 or IPv6 address (AF_IB does not fit sockaddr_in6). */
static inline int ucma_check_bind_ip(struct rdma_ucm_bind_ip *cmd)
{
	return rdma_addr_size_in6(&cmd->addr) ? 0 : -EINVAL;
}

/* RESOLVE_IP: the source is optional (family 0), the destination is not. */
static inline int ucma_check_resolve_ip(struct rdma_ucm_resolve_ip *cmd)
{
	if ((cmd->src_addr.sin6_family && !rdma_addr_size_in6(&cmd->src_addr)) ||
	    !rdma_addr_size_in6(&cmd->dst_addr))
		return -EINVAL;
	return 0;
}

/* RESOLVE_ADDR: sizes must match the families; the source is optional. */
static inline int ucma_check_resolve_addr(struct rdma_ucm_resolve_addr *cmd)
{
	if (cmd->reserved ||
	    (cmd->src_size && cmd->src_size != rdma_addr_size_kss(&cmd->src_addr)) ||
	    !cmd->dst_size || cmd->dst_size != rdma_addr_size_kss(&cmd->dst_addr))
		return -EINVAL;
	return 0;
}

/*
 * SET_OPTION at level RDMA_OPTION_ID: the exact optlen each option takes,
 * or UCMA_ENOTIMPL for an option that does not exist.
 */
static inline int ucma_id_option_len(u32 optname)
{
	switch (optname) {
	case RDMA_OPTION_ID_TOS:
	case RDMA_OPTION_ID_ACK_TIMEOUT:
		return sizeof(u8);
	case RDMA_OPTION_ID_REUSEADDR:
	case RDMA_OPTION_ID_AFONLY:
		return sizeof(int);
	default:
		return UCMA_ENOTIMPL;
	}
}

/* Upper bound of SET_OPTION's optlen: what one kmalloc() may copy. */
#define UCMA_OPTLEN_MAX		KMALLOC_MAX_SIZE

/* How many path records a QUERY PATH answer of @out_len bytes holds. */
static inline u32 ucma_paths_that_fit(u32 out_len, u32 num_paths)
{
	u32 room;

	if (out_len < sizeof(struct rdma_ucm_query_path_resp))
		return 0;
	room = (out_len - sizeof(struct rdma_ucm_query_path_resp)) /
	       sizeof(struct ib_path_rec_data);
	return min(room, num_paths);
}

/* The primary bidirectional GMP path is the one SET_OPTION IB_PATH uses. */
static inline bool ucma_path_is_primary(const struct ib_path_rec_data *p)
{
	return p->flags == (IB_PATH_GMP | IB_PATH_PRIMARY | IB_PATH_BIDIRECTIONAL);
}

/* Connection parameters of CONNECT/ACCEPT to rdma_cm's form. */
static inline void ucma_conn_param_from_user(struct rdma_conn_param *dst,
					     const struct rdma_ucm_conn_param *src,
					     bool af_ib)
{
	memset(dst, 0, sizeof(*dst));
	dst->private_data = src->private_data;
	dst->private_data_len = src->private_data_len;
	dst->responder_resources = src->responder_resources;
	dst->initiator_depth = src->initiator_depth;
	dst->flow_control = src->flow_control;
	dst->retry_count = src->retry_count;
	dst->rnr_retry_count = src->rnr_retry_count;
	dst->srq = src->srq;
	dst->qp_num = src->qp_num & 0xFFFFFF;
	/* the qkey only means something to an AF_IB id */
	dst->qkey = af_ib ? src->qkey : 0;
}

/*
 * Private data of an event into the record.  The rdma_cm length is a u8
 * and the record holds RDMA_MAX_PRIVATE_DATA, so it always fits; a length
 * without data is reported as none.
 */
static inline u8 ucma_copy_private_data(u8 *dst, const void *src, u8 len)
{
	static_assert(U8_MAX <= RDMA_MAX_PRIVATE_DATA);

	if (!src || !len)
		return 0;
	memcpy(dst, src, len);
	return len;
}

/* The connected-mode parameters of an event (the qkey is not reported). */
static inline void ucma_conn_param_to_user(struct rdma_ucm_conn_param *dst,
					   const struct rdma_conn_param *src)
{
	dst->private_data_len = ucma_copy_private_data(dst->private_data,
						       src->private_data,
						       src->private_data_len);
	dst->responder_resources = src->responder_resources;
	dst->initiator_depth = src->initiator_depth;
	dst->flow_control = src->flow_control;
	dst->retry_count = src->retry_count;
	dst->rnr_retry_count = src->rnr_retry_count;
	dst->srq = src->srq;
	dst->qp_num = src->qp_num;
}

/* Whether @type is one of the two events whose context is a multicast. */
static inline bool ucma_is_mc_event(enum rdma_cm_event_type type)
{
	return type == RDMA_CM_EVENT_MULTICAST_JOIN ||
	       type == RDMA_CM_EVENT_MULTICAST_ERROR;
}

/*
 * Whether @type answers a RESOLVE_ADDR, RESOLVE_ROUTE or CONNECT: after
 * it, nothing but destroy changes the id's addresses, device and paths.
 * DEVICE_REMOVAL does not count: the worker may not have run yet.
 */
static inline bool ucma_event_ends_work(enum rdma_cm_event_type type)
{
	switch (type) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_ESTABLISHED:
		return true;
	default:
		return false;
	}
}

/*
 * The datagram parameters of an event.  For the multicast events
 * rdma_cm's private_data is the join's context pointer, not data: it is
 * never copied (@mc).  @device may be NULL for an unbound id: it is only
 * needed to convert an OPA address.
 */
static inline void ucma_ud_param_to_user(struct ib_device *device,
					 struct rdma_ucm_ud_param *dst,
					 const struct rdma_ud_param *src,
					 bool mc)
{
	struct rdma_ah_attr ah = src->ah_attr;

	if (!mc)
		dst->private_data_len =
			ucma_copy_private_data(dst->private_data,
					       src->private_data,
					       src->private_data_len);
	if (device || ah.type != RDMA_AH_ATTR_TYPE_OPA)
		ib_copy_ah_attr_to_user(device, &dst->ah_attr, &ah);
	dst->qp_num = src->qp_num;
	dst->qkey = src->qkey;
}

#endif /* UCMA_ABI_H */
