// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_ucm: the file operations of /dev/infiniband/rdma_cm, write()
 * command dispatch and the commands on ids.
 *
 * ucma_dispatch() checks a command's header and calls its entry, which
 * copies the input once into kernel memory; the handler validates it,
 * then looks the id up in the calling file (a reference) and takes
 * ctx->lock around its calls into rdma_cm (ucma_ctx_lock()), builds any
 * answer in kernel memory and copies it to user space after dropping the
 * lock.
 */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_marshall.h>
#include <rdma/ib_sa.h>
#include <rdma/rdma_cm_ib.h>

#include "ucma_abi.h"
#include "ucma_priv.h"

/*
 * Copy an answer to user space.  Inlined, a constant @size needs no
 * run-time object check under HARDENED_USERCOPY.
 */
static __always_inline int ucma_copy_out(u64 response, const void *resp,
					 size_t size)
{
	return copy_to_user(u64_to_user_ptr(response), resp, size) ? -EFAULT : 0;
}

/*
 * Copy @len bytes of an answer.  librdmacm asks for @usual bytes, which
 * are then copied at that constant size.
 */
static __always_inline int ucma_copy_out_len(u64 response, const void *resp,
					     size_t len, size_t usual)
{
	if (len == usual)
		return ucma_copy_out(response, resp, usual);
	return ucma_copy_out(response, resp, len);
}

/* Look up id @id of @file and lock it: the ctx or an ERR_PTR. */
static struct ucma_ctx *ucma_ctx_lock(struct ucma_file *file, u32 id)
{
	struct ucma_ctx *ctx = ucma_ctx_get(file, id);

	if (!IS_ERR(ctx))
		mutex_lock(&ctx->lock);
	return ctx;
}

static void ucma_ctx_unlock(struct ucma_ctx *ctx)
{
	mutex_unlock(&ctx->lock);
	ucma_ctx_put(ctx);
}

/* As ucma_ctx_lock(), for the commands that need an id bound to a device. */
static struct ucma_ctx *ucma_ctx_lock_dev(struct ucma_file *file, u32 id)
{
	struct ucma_ctx *ctx = ucma_ctx_lock(file, id);

	if (!IS_ERR(ctx) && !ctx->cm_id->device) {
		ucma_ctx_unlock(ctx);
		return ERR_PTR(-EINVAL);
	}
	return ctx;
}

static int ucma_cmd_create_id(struct ucma_file *file, void *in, u32 in_len,
			      u32 out_len)
{
	struct rdma_ucm_create_id_resp resp = {};
	struct rdma_ucm_create_id *cmd = in;
	enum ib_qp_type qp_type;
	struct rdma_cm_id *cm_id;
	struct ucma_ctx *ctx;
	int ret;

	ret = ucma_qp_type(cmd->ps, cmd->qp_type, &qp_type);
	if (ret)
		return ret;

	ctx = ucma_ctx_alloc(file, GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return -ENOMEM;
	ctx->uid = cmd->uid;
	ucma_ctx_charge_current(ctx);

	cm_id = rdma_create_user_id(ucma_event_handler, ctx, cmd->ps, qp_type);
	if (IS_ERR(cm_id)) {
		ucma_ctx_free(ctx);
		return PTR_ERR(cm_id);
	}
	ctx->cm_id = cm_id;

	resp.id = ctx->id;
	ret = ucma_copy_out(cmd->response, &resp, sizeof(resp));
	if (ret) {
		ucma_ctx_claim_private(ctx);
		ucma_ctx_destroy(ctx);
		return ret;
	}
	ucma_ctx_publish(ctx, file);
	return 0;
}

static int ucma_cmd_destroy_id(struct ucma_file *file, void *in, u32 in_len,
			       u32 out_len)
{
	struct rdma_ucm_destroy_id_resp resp = {};
	struct rdma_ucm_destroy_id *cmd = in;
	struct ucma_ctx *ctx;

	ctx = ucma_ctx_claim(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	resp.events_reported = ucma_ctx_destroy(ctx);
	return ucma_copy_out(cmd->response, &resp, sizeof(resp));
}

static int ucma_bind_common(struct ucma_file *file, u32 id,
			    struct sockaddr *addr)
{
	struct ucma_ctx *ctx;
	int ret;

	ctx = ucma_ctx_lock(file, id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = rdma_bind_addr(ctx->cm_id, addr);
	ucma_ctx_unlock(ctx);
	return ret;
}

static int ucma_cmd_bind_ip(struct ucma_file *file, void *in, u32 in_len,
			    u32 out_len)
{
	struct rdma_ucm_bind_ip *cmd = in;

	return ucma_check_bind_ip(cmd) ?:
	       ucma_bind_common(file, cmd->id, (struct sockaddr *)&cmd->addr);
}

static int ucma_cmd_bind(struct ucma_file *file, void *in, u32 in_len,
			 u32 out_len)
{
	struct rdma_ucm_bind *cmd = in;

	return ucma_check_bind(cmd) ?:
	       ucma_bind_common(file, cmd->id, (struct sockaddr *)&cmd->addr);
}

/*
 * A command starts a worker that writes the route (caller holds
 * ctx->lock); the answer that ends it counts it off under the handler
 * lock.  rdma_cm moves the id to its next state under that lock before
 * it delivers the answer, so the next command may start while the
 * previous answer is on its way: counted under the same lock, neither
 * the late answer nor a command rdma_cm refuses hides the work that
 * runs.
 */
static void ucma_work_start(struct ucma_ctx *ctx)
{
	rdma_lock_handler(ctx->cm_id);
	WRITE_ONCE(ctx->resolving, ctx->resolving + 1);
	rdma_unlock_handler(ctx->cm_id);
}

/* The command failed: no answer comes for it. */
static void ucma_work_refused(struct ucma_ctx *ctx)
{
	rdma_lock_handler(ctx->cm_id);
	if (ctx->resolving)
		WRITE_ONCE(ctx->resolving, ctx->resolving - 1);
	rdma_unlock_handler(ctx->cm_id);
}

static int ucma_resolve_common(struct ucma_file *file, u32 id,
			       struct sockaddr *src, struct sockaddr *dst,
			       u32 timeout_ms)
{
	struct ucma_ctx *ctx;
	int ret;

	ctx = ucma_ctx_lock(file, id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (ucma_file_full(file)) {
		ret = -ENOBUFS;
		goto out;
	}
	/* Before the call: its answer may come before the call returns. */
	ucma_work_start(ctx);
	ret = rdma_resolve_addr(ctx->cm_id, src, dst, timeout_ms);
	if (ret)
		ucma_work_refused(ctx);
out:
	ucma_ctx_unlock(ctx);
	return ret;
}

static int ucma_cmd_resolve_ip(struct ucma_file *file, void *in, u32 in_len,
			       u32 out_len)
{
	struct rdma_ucm_resolve_ip *cmd = in;

	return ucma_check_resolve_ip(cmd) ?:
	       ucma_resolve_common(file, cmd->id,
				   (struct sockaddr *)&cmd->src_addr,
				   (struct sockaddr *)&cmd->dst_addr,
				   cmd->timeout_ms);
}

static int ucma_cmd_resolve_addr(struct ucma_file *file, void *in, u32 in_len,
				 u32 out_len)
{
	struct rdma_ucm_resolve_addr *cmd = in;

	return ucma_check_resolve_addr(cmd) ?:
	       ucma_resolve_common(file, cmd->id,
				   (struct sockaddr *)&cmd->src_addr,
				   (struct sockaddr *)&cmd->dst_addr,
				   cmd->timeout_ms);
}

static int ucma_cmd_resolve_route(struct ucma_file *file, void *in, u32 in_len,
				  u32 out_len)
{
	struct rdma_ucm_resolve_route *cmd = in;
	struct ucma_ctx *ctx;
	int ret;

	ctx = ucma_ctx_lock_dev(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (ucma_file_full(file)) {
		ret = -ENOBUFS;
		goto out;
	}
	ucma_work_start(ctx);
	ret = rdma_resolve_route(ctx->cm_id, cmd->timeout_ms);
	if (ret)
		ucma_work_refused(ctx);
out:
	ucma_ctx_unlock(ctx);
	return ret;
}

/*
 * Lock what QUERY reads against the id's event side, when needed.  Under
 * ctx->lock only the worker of a resolve or connect command changes the
 * addresses, device and path records; once every such worker has
 * answered (ctx->resolving back at 0) they stay until destroy.  Not
 * taking the handler lock then matters: librdmacm queries right after
 * each event, often while the worker that delivered it still holds that
 * lock.
 */
static bool ucma_route_lock(struct ucma_ctx *ctx)
{
	/* pairs with the release in ucma_event_handler() */
	if (!smp_load_acquire(&ctx->resolving))
		return false;
	rdma_lock_handler(ctx->cm_id);
	return true;
}

static void ucma_route_unlock(struct ucma_ctx *ctx, bool locked)
{
	if (locked)
		rdma_unlock_handler(ctx->cm_id);
}

/* An address into a fixed-size answer field, no longer than its family. */
static void ucma_copy_addr(void *dst, size_t room, const struct sockaddr_storage *src)
{
	size_t len = rdma_addr_size((const struct sockaddr *)src);

	memcpy(dst, src, min(len, room));
}

static void ucma_route_ib(struct rdma_ucm_query_route_resp *resp,
			  struct rdma_route *route, bool roce)
{
	u32 n = min_t(u32, route->num_pri_alt_paths, ARRAY_SIZE(resp->ib_route));
	u32 i;

	resp->num_paths = route->num_pri_alt_paths;
	if (!n) {
		/* no path record: describe the path from the addresses */
		union ib_gid *sgid = (union ib_gid *)resp->ib_route[0].sgid;
		union ib_gid *dgid = (union ib_gid *)resp->ib_route[0].dgid;

		if (roce) {
			rdma_ip2gid((struct sockaddr *)&route->addr.src_addr, sgid);
			rdma_ip2gid((struct sockaddr *)&route->addr.dst_addr, dgid);
			resp->ib_route[0].pkey = cpu_to_be16(0xffff);
		} else {
			rdma_addr_get_sgid(&route->addr.dev_addr, sgid);
			rdma_addr_get_dgid(&route->addr.dev_addr, dgid);
			resp->ib_route[0].pkey =
				cpu_to_be16(ib_addr_get_pkey(&route->addr.dev_addr));
		}
		return;
	}
	if (!route->path_rec)
		return;
	for (i = 0; i < n; i++)
		ib_copy_path_rec_to_user(&resp->ib_route[i], &route->path_rec[i]);
}

/* QUERY_ROUTE: ctx->lock and the handler lock held. */
static void ucma_fill_route(struct rdma_cm_id *cm_id,
			    struct rdma_ucm_query_route_resp *resp)
{
	struct rdma_route *route = &cm_id->route;

	ucma_copy_addr(&resp->src_addr, sizeof(resp->src_addr),
		       &route->addr.src_addr);
	ucma_copy_addr(&resp->dst_addr, sizeof(resp->dst_addr),
		       &route->addr.dst_addr);
	if (!cm_id->device)
		return;

	resp->node_guid = (__force __u64)cm_id->device->node_guid;
	resp->ibdev_index = cm_id->device->index;
	resp->port_num = cm_id->port_num;

	if (rdma_cap_ib_sa(cm_id->device, cm_id->port_num)) {
		ucma_route_ib(resp, route, false);
	} else if (rdma_protocol_roce(cm_id->device, cm_id->port_num)) {
		ucma_route_ib(resp, route, true);
	} else if (rdma_protocol_iwarp(cm_id->device, cm_id->port_num)) {
		rdma_addr_get_sgid(&route->addr.dev_addr,
				   (union ib_gid *)resp->ib_route[0].sgid);
		rdma_addr_get_dgid(&route->addr.dev_addr,
				   (union ib_gid *)resp->ib_route[0].dgid);
	}
}

static int ucma_cmd_query_route(struct ucma_file *file, void *in, u32 in_len,
				u32 out_len)
{
	struct rdma_ucm_query_route_resp resp __uninitialized;	/* memset below */
	struct rdma_ucm_query *cmd = in;
	struct ucma_ctx *ctx;
	bool locked;

	ctx = ucma_ctx_lock(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	memset(&resp, 0, sizeof(resp));
	locked = ucma_route_lock(ctx);
	ucma_fill_route(ctx->cm_id, &resp);
	ucma_route_unlock(ctx, locked);
	ucma_ctx_unlock(ctx);

	return ucma_copy_out_len(cmd->response, &resp,
				 min_t(size_t, out_len, sizeof(resp)),
				 sizeof(resp));
}

static void ucma_fill_device(struct rdma_cm_id *cm_id,
			     struct rdma_ucm_query_addr_resp *resp)
{
	if (!cm_id->device)
		return;
	resp->node_guid = (__force __u64)cm_id->device->node_guid;
	resp->ibdev_index = cm_id->device->index;
	resp->port_num = cm_id->port_num;
	resp->pkey = (__force __u16)cpu_to_be16(ib_addr_get_pkey(&cm_id->route.addr.dev_addr));
}

static void ucma_fill_addr(struct rdma_cm_id *cm_id,
			   struct rdma_ucm_query_addr_resp *resp)
{
	struct rdma_addr *addr = &cm_id->route.addr;

	resp->src_size = rdma_addr_size((struct sockaddr *)&addr->src_addr);
	memcpy(&resp->src_addr, &addr->src_addr, resp->src_size);
	resp->dst_size = rdma_addr_size((struct sockaddr *)&addr->dst_addr);
	memcpy(&resp->dst_addr, &addr->dst_addr, resp->dst_size);
	ucma_fill_device(cm_id, resp);
}

/* One end of QUERY GID: its sockaddr_ib, synthesised for an IP address. */
static void ucma_fill_gid_end(struct rdma_cm_id *cm_id, struct sockaddr_ib *sib,
			      struct sockaddr_storage *ss, __be16 pkey, bool src)
{
	union ib_gid *gid = (union ib_gid *)&sib->sib_addr;

	if (ss->ss_family == AF_IB) {
		memcpy(sib, ss, sizeof(*sib));
		return;
	}
	sib->sib_family = AF_IB;
	sib->sib_pkey = pkey;
	rdma_read_gids(cm_id, src ? gid : NULL, src ? NULL : gid);
	sib->sib_sid = rdma_get_service_id(cm_id, (struct sockaddr *)ss);
}

static void ucma_fill_gid(struct rdma_cm_id *cm_id,
			  struct rdma_ucm_query_addr_resp *resp)
{
	struct rdma_addr *addr = &cm_id->route.addr;
	__be16 pkey;

	ucma_fill_device(cm_id, resp);
	pkey = (__force __be16)resp->pkey;
	resp->src_size = sizeof(struct sockaddr_ib);
	ucma_fill_gid_end(cm_id, (struct sockaddr_ib *)&resp->src_addr,
			  &addr->src_addr, pkey, true);
	resp->dst_size = sizeof(struct sockaddr_ib);
	ucma_fill_gid_end(cm_id, (struct sockaddr_ib *)&resp->dst_addr,
			  &addr->dst_addr, pkey, false);
}

/* QUERY PATH: the first @n path records, packed; returns the size. */
static size_t ucma_fill_paths(struct rdma_cm_id *cm_id,
			      struct rdma_ucm_query_path_resp *resp, u32 n)
{
	struct rdma_route *route = &cm_id->route;
	struct sa_path_rec ib;
	u32 i;

	resp->num_paths = route->num_pri_alt_paths;
	n = min_t(u32, n, route->num_pri_alt_paths);
	if (!route->path_rec)
		n = 0;
	for (i = 0; i < n; i++) {
		struct sa_path_rec *rec = &route->path_rec[i];

		resp->path_data[i].flags = IB_PATH_GMP | IB_PATH_PRIMARY |
					   IB_PATH_BIDIRECTIONAL;
		if (rec->rec_type == SA_PATH_REC_TYPE_OPA) {
			sa_convert_path_opa_to_ib(&ib, rec);
			ib_sa_pack_path(&ib, &resp->path_data[i].path_rec);
		} else {
			ib_sa_pack_path(rec, &resp->path_data[i].path_rec);
		}
	}
	return struct_size(resp, path_data, n);
}

/*
 * QUERY's answer, built on the stack: the largest is a path answer with
 * the most rdma_cm keeps, a primary and an alternate path.
 */
union ucma_query_resp {
	struct rdma_ucm_query_addr_resp addr;
	struct rdma_ucm_query_path_resp path;
	u8 room[sizeof(struct rdma_ucm_query_path_resp) +
		2 * sizeof(struct ib_path_rec_data)];
};

/* How much of QUERY @option's answer fits in @out_len, or an errno. */
static int ucma_query_size(u32 option, u32 out_len, size_t *size, u32 *paths)
{
	switch (option) {
	case RDMA_USER_CM_QUERY_ADDR:
	case RDMA_USER_CM_QUERY_GID:
		if (out_len < UCMA_QUERY_ADDR_OUT_MIN)
			return -ENOSPC;
		*size = min_t(size_t, out_len, sizeof(struct rdma_ucm_query_addr_resp));
		return 0;
	case RDMA_USER_CM_QUERY_PATH:
		if (out_len < sizeof(struct rdma_ucm_query_path_resp))
			return -ENOSPC;
		*paths = ucma_paths_that_fit(out_len, 2);
		return 0;
	default:
		return UCMA_ENOTIMPL;
	}
}

static int ucma_cmd_query(struct ucma_file *file, void *in, u32 in_len,
			  u32 out_len)
{
	struct rdma_ucm_query *cmd = in;
	union ucma_query_resp resp __uninitialized;	/* memset below */
	struct ucma_ctx *ctx;
	size_t size = 0;
	u32 paths = 0;
	bool locked;
	int ret;

	ctx = ucma_ctx_lock(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = ucma_query_size(cmd->option, out_len, &size, &paths);
	if (ret) {
		ucma_ctx_unlock(ctx);
		return ret;
	}

	/* all of it: the answer's padding and unused tails reach user space */
	memset(&resp, 0, sizeof(resp));
	locked = ucma_route_lock(ctx);
	switch (cmd->option) {
	case RDMA_USER_CM_QUERY_ADDR:
		ucma_fill_addr(ctx->cm_id, &resp.addr);
		break;
	case RDMA_USER_CM_QUERY_GID:
		ucma_fill_gid(ctx->cm_id, &resp.addr);
		break;
	default:
		size = ucma_fill_paths(ctx->cm_id, &resp.path, paths);
		break;
	}
	ucma_route_unlock(ctx, locked);
	ucma_ctx_unlock(ctx);

	return ucma_copy_out_len(cmd->response, &resp, size,
				 sizeof(resp.addr));
}

static bool ucma_af_ib(struct ucma_ctx *ctx)
{
	return ctx->cm_id->route.addr.src_addr.ss_family == AF_IB;
}

/*
 * CONNECT and ACCEPT come with or without their ECE tail (librdmacm
 * before v29 sends none): @in_len says which.  No tail, or one cut
 * short, is ECE zero ("none").
 */
static int ucma_cmd_connect(struct ucma_file *file, void *in, u32 in_len,
			    u32 out_len)
{
	struct rdma_ucm_connect *cmd = in;
	struct rdma_ucm_ece ece = {};
	struct rdma_conn_param param;
	struct ucma_ctx *ctx;
	int ret;

	if (!cmd->conn_param.valid)
		return -EINVAL;
	if (in_len >= offsetofend(struct rdma_ucm_connect, ece))
		ece = cmd->ece;

	ctx = ucma_ctx_lock_dev(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (ucma_file_full(file)) {
		ret = -ENOBUFS;
		goto out;
	}
	ucma_conn_param_from_user(&param, &cmd->conn_param, ucma_af_ib(ctx));
	/* iWARP's reply rewrites the addresses */
	ucma_work_start(ctx);
	ret = rdma_connect_ece(ctx->cm_id, &param, &ece);
	if (ret)
		ucma_work_refused(ctx);
out:
	ucma_ctx_unlock(ctx);
	return ret;
}

static int ucma_cmd_listen(struct ucma_file *file, void *in, u32 in_len,
			   u32 out_len)
{
	struct rdma_ucm_listen *cmd = in;
	struct ucma_ctx *ctx;
	int backlog, ret;

	ctx = ucma_ctx_lock(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	backlog = ucma_listen_backlog(cmd->backlog, ucma_max_backlog());
	/*
	 * Set before the call: a request may come before it returns.  Once
	 * the id listens, the count is the listener's free slots, which a
	 * further LISTEN (rdma_cm refuses it: the id is not ADDR_BOUND any
	 * more) must leave alone, or unreported requests would be counted
	 * twice.
	 */
	if (!ctx->listening)
		atomic_set(&ctx->backlog, backlog);
	ret = rdma_listen(ctx->cm_id, backlog);
	if (!ret)
		ctx->listening = true;
	ucma_ctx_unlock(ctx);
	return ret;
}

static int ucma_cmd_accept(struct ucma_file *file, void *in, u32 in_len,
			   u32 out_len)
{
	struct rdma_ucm_accept *cmd = in;
	struct rdma_ucm_ece ece = {};
	struct rdma_conn_param param;
	struct ucma_ctx *ctx;
	int ret;

	if (in_len >= offsetofend(struct rdma_ucm_accept, ece))
		ece = cmd->ece;

	ctx = ucma_ctx_lock_dev(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (cmd->conn_param.valid)
		ucma_conn_param_from_user(&param, &cmd->conn_param,
					  ucma_af_ib(ctx));
	/*
	 * Under the handler lock the uid is set before any event of the
	 * accepted connection can be reported.  Without parameters this is
	 * the active side's rdma_establish(): the uid stays as it is.
	 */
	rdma_lock_handler(ctx->cm_id);
	ret = rdma_accept_ece(ctx->cm_id, cmd->conn_param.valid ? &param : NULL,
			      &ece);
	if (!ret && cmd->conn_param.valid)
		ctx->uid = cmd->uid;
	rdma_unlock_handler(ctx->cm_id);
	ucma_ctx_unlock(ctx);
	return ret;
}

static int ucma_cmd_reject(struct ucma_file *file, void *in, u32 in_len,
			   u32 out_len)
{
	struct rdma_ucm_reject *cmd = in;
	struct ucma_ctx *ctx;
	u8 reason;
	int ret;

	ret = ucma_reject_reason(cmd->reason, &reason);
	if (ret)
		return ret;

	ctx = ucma_ctx_lock_dev(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = rdma_reject(ctx->cm_id, cmd->private_data, cmd->private_data_len,
			  reason);
	ucma_ctx_unlock(ctx);
	return ret;
}

static int ucma_cmd_disconnect(struct ucma_file *file, void *in, u32 in_len,
			       u32 out_len)
{
	struct rdma_ucm_disconnect *cmd = in;
	struct ucma_ctx *ctx;
	int ret;

	ctx = ucma_ctx_lock_dev(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = rdma_disconnect(ctx->cm_id);
	ucma_ctx_unlock(ctx);
	return ret;
}

static int ucma_cmd_init_qp_attr(struct ucma_file *file, void *in, u32 in_len,
				 u32 out_len)
{
	struct rdma_ucm_init_qp_attr *cmd = in;
	/* on the stack, as a connection asks three times per side */
	struct ib_uverbs_qp_attr resp = {};
	struct ib_qp_attr attr = {};
	struct ucma_ctx *ctx;
	int mask = 0;
	int ret;

	if (cmd->qp_state > IB_QPS_ERR)
		return -EINVAL;
	attr.qp_state = cmd->qp_state;

	ctx = ucma_ctx_lock_dev(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = rdma_init_qp_attr(ctx->cm_id, &attr, &mask);
	if (!ret) {
		ib_copy_qp_attr_to_user(ctx->cm_id->device, &resp, &attr);
		resp.qp_attr_mask = mask;
	}
	ucma_ctx_unlock(ctx);

	return ret ?: ucma_copy_out(cmd->response, &resp, sizeof(resp));
}

static int ucma_cmd_get_event(struct ucma_file *file, void *in, u32 in_len,
			      u32 out_len)
{
	struct rdma_ucm_get_event *cmd = in;
	struct ucma_ctx *child;
	int ret;

	ret = ucma_get_event(file, u64_to_user_ptr(cmd->response), out_len,
			     &child);
	/*
	 * A connection request's id joins @file.  Until it is published it
	 * is nobody's but ours, and @file cannot be released while this
	 * command runs.  It has queued nothing yet (no uid before ACCEPT):
	 * who takes the request pays for its events.
	 */
	if (!ret && child) {
		ucma_ctx_charge_current(child);
		ucma_ctx_publish(child, file);
	}
	return ret;
}

/*
 * SET_OPTION reads its value before it looks the id up: a reference on
 * the id holds off the close that DEVICE_REMOVAL starts, and a read of
 * user memory may wait on a page fault for as long as user space likes
 * (userfaultfd), so the device could not go meanwhile.
 */
static int ucma_get_id_option(u32 optname, const void __user *optval,
			      u32 optlen, int *value)
{
	int len = ucma_id_option_len(optname);
	u8 byte;

	if (len < 0)
		return len;
	if (optlen != len)
		return -EINVAL;
	if (len == sizeof(u8)) {
		if (copy_from_user(&byte, optval, sizeof(byte)))
			return -EFAULT;
		*value = byte;
		return 0;
	}
	return copy_from_user(value, optval, sizeof(*value)) ? -EFAULT : 0;
}

static int ucma_set_id_option(struct ucma_ctx *ctx, u32 optname, int value)
{
	switch (optname) {
	case RDMA_OPTION_ID_TOS:
		rdma_set_service_type(ctx->cm_id, value);
		return 0;
	case RDMA_OPTION_ID_REUSEADDR:
		return rdma_set_reuseaddr(ctx->cm_id, value ? 1 : 0);
	case RDMA_OPTION_ID_AFONLY:
		return rdma_set_afonly(ctx->cm_id, value ? 1 : 0);
	default: /* RDMA_OPTION_ID_ACK_TIMEOUT */
		return rdma_set_ack_timeout(ctx->cm_id, value);
	}
}

/*
 * RDMA_OPTION_IB_PATH: an array of path records, of which the primary
 * bidirectional one becomes the id's route.  The records are read one at
 * a time (no allocation sized by user space), before the id is looked up.
 */
static int ucma_get_ib_path(const void __user *optval, u32 optlen,
			    struct ib_path_rec_data *data)
{
	u32 off;

	if (optlen % sizeof(*data))
		return -EINVAL;
	for (off = 0; off < optlen; off += sizeof(*data)) {
		if (copy_from_user(data, optval + off, sizeof(*data)))
			return -EFAULT;
		if (ucma_path_is_primary(data))
			return 0;
		/* up to UCMA_OPTLEN_MAX / 72 records */
		cond_resched();
	}
	return -EINVAL;
}

/*
 * Make @data the id's route, as if route resolution had completed: the
 * ROUTE_RESOLVED event is ours to report.
 */
static int ucma_set_ib_path(struct ucma_ctx *ctx,
			    struct ib_path_rec_data *data)
{
	struct sa_path_rec rec, opa;
	struct rdma_cm_event event;
	int ret;

	if (!ctx->cm_id->device)
		return -EINVAL;
	if (ucma_file_full(ctx->file))
		return -ENOBUFS;

	memset(&rec, 0, sizeof(rec));
	rec.rec_type = SA_PATH_REC_TYPE_IB;
	ib_sa_unpack_path(data->path_rec, &rec);
	if (rdma_cap_opa_ah(ctx->cm_id->device, ctx->cm_id->port_num)) {
		sa_convert_path_ib_to_opa(&opa, &rec);
		ret = rdma_set_ib_path(ctx->cm_id, &opa);
	} else {
		ret = rdma_set_ib_path(ctx->cm_id, &rec);
	}
	if (ret)
		return ret;

	memset(&event, 0, sizeof(event));
	event.event = RDMA_CM_EVENT_ROUTE_RESOLVED;
	rdma_lock_handler(ctx->cm_id);
	ret = ucma_event_handler(ctx->cm_id, &event);
	rdma_unlock_handler(ctx->cm_id);
	return ret;
}

static int ucma_cmd_set_option(struct ucma_file *file, void *in, u32 in_len,
			       u32 out_len)
{
	struct rdma_ucm_set_option *cmd = in;
	const void __user *optval = u64_to_user_ptr(cmd->optval);
	struct ib_path_rec_data path;
	struct ucma_ctx *ctx;
	int value = 0;
	int ret;

	if (cmd->optlen > UCMA_OPTLEN_MAX)
		return -EINVAL;

	switch (cmd->level) {
	case RDMA_OPTION_ID:
		ret = ucma_get_id_option(cmd->optname, optval, cmd->optlen,
					 &value);
		break;
	case RDMA_OPTION_IB:
		if (cmd->optname == RDMA_OPTION_IB_PATH)
			ret = ucma_get_ib_path(optval, cmd->optlen, &path);
		else
			ret = UCMA_ENOTIMPL;
		break;
	default:
		ret = UCMA_ENOTIMPL;
		break;
	}
	if (ret)
		return ret;

	ctx = ucma_ctx_lock(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (cmd->level == RDMA_OPTION_ID)
		ret = ucma_set_id_option(ctx, cmd->optname, value);
	else
		ret = ucma_set_ib_path(ctx, &path);
	ucma_ctx_unlock(ctx);
	return ret;
}

static int ucma_cmd_notify(struct ucma_file *file, void *in, u32 in_len,
			   u32 out_len)
{
	struct rdma_ucm_notify *cmd = in;
	struct ucma_ctx *ctx;
	int ret;

	ctx = ucma_ctx_lock_dev(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = rdma_notify(ctx->cm_id, (enum ib_event_type)cmd->event);
	ucma_ctx_unlock(ctx);
	return ret;
}

/*
 * MIGRATE_ID, written to the destination file: move id @id of file
 * descriptor @fd here, with its unreported events.
 */
static int ucma_cmd_migrate_id(struct ucma_file *file, void *in, u32 in_len,
			       u32 out_len)
{
	struct rdma_ucm_migrate_resp resp = {};
	struct rdma_ucm_migrate_id *cmd = in;
	struct ucma_file *from;
	struct ucma_ctx *ctx;
	struct fd f;
	int ret = 0;

	/* the reference keeps the source file from being released */
	f = fdget(cmd->fd);
	if (!f.file)
		return -ENOENT;
	if (f.file->f_op != &ucma_fops) {
		ret = -EINVAL;
		goto out_fdput;
	}
	from = f.file->private_data;

	ctx = ucma_ctx_lock(from, cmd->id);
	if (IS_ERR(ctx)) {
		ret = PTR_ERR(ctx);
		goto out_fdput;
	}
	if (from == file) {
		spin_lock(&file->lock);
		resp.events_reported = ctx->events_reported;
		spin_unlock(&file->lock);
	} else {
		/* no event is queued on either file while the id moves */
		rdma_lock_handler(ctx->cm_id);
		ret = ucma_file_move_ctx(ctx, from, file, &resp.events_reported);
		rdma_unlock_handler(ctx->cm_id);
	}
	ucma_ctx_unlock(ctx);
	if (!ret)
		ret = ucma_copy_out(cmd->response, &resp, sizeof(resp));
out_fdput:
	fdput(f);
	return ret;
}

/*
 * Copy a command's input into @buf, @size bytes: ucma_check_hdr() made
 * @in_len at least that, but for CONNECT and ACCEPT, which may lack
 * their ECE tail and are then zero-filled.  Inlined with a constant
 * @size, the usual full copy needs no run-time object check under
 * HARDENED_USERCOPY (a walk of the stack frames on every command).
 */
static __always_inline int ucma_copy_in(void *buf, size_t size,
					const void __user *in, u32 in_len)
{
	if (likely(in_len >= size))
		return copy_from_user(buf, in, size) ? -EFAULT : 0;
	memset(buf, 0, size);
	return copy_from_user(buf, in, in_len) ? -EFAULT : 0;
}

/*
 * The entry of a command whose handler takes its structure in kernel
 * memory: HANDLER_in() copies it in, at its own size, and calls HANDLER.
 */
#define UCMA_CMD_IN(handler, type)					\
static int handler##_in(struct ucma_file *file, const void __user *in,	\
			u32 in_len, u32 out_len)			\
{									\
	type cmd __uninitialized;	/* copied in, tail zeroed */	\
									\
	return ucma_copy_in(&cmd, sizeof(cmd), in, in_len) ?:		\
	       handler(file, &cmd, in_len, out_len);			\
}

UCMA_CMD_IN(ucma_cmd_create_id, struct rdma_ucm_create_id)
UCMA_CMD_IN(ucma_cmd_destroy_id, struct rdma_ucm_destroy_id)
UCMA_CMD_IN(ucma_cmd_bind_ip, struct rdma_ucm_bind_ip)
UCMA_CMD_IN(ucma_cmd_resolve_ip, struct rdma_ucm_resolve_ip)
UCMA_CMD_IN(ucma_cmd_resolve_route, struct rdma_ucm_resolve_route)
UCMA_CMD_IN(ucma_cmd_query_route, struct rdma_ucm_query)
UCMA_CMD_IN(ucma_cmd_connect, struct rdma_ucm_connect)
UCMA_CMD_IN(ucma_cmd_listen, struct rdma_ucm_listen)
UCMA_CMD_IN(ucma_cmd_accept, struct rdma_ucm_accept)
UCMA_CMD_IN(ucma_cmd_reject, struct rdma_ucm_reject)
UCMA_CMD_IN(ucma_cmd_disconnect, struct rdma_ucm_disconnect)
UCMA_CMD_IN(ucma_cmd_init_qp_attr, struct rdma_ucm_init_qp_attr)
UCMA_CMD_IN(ucma_cmd_get_event, struct rdma_ucm_get_event)
UCMA_CMD_IN(ucma_cmd_set_option, struct rdma_ucm_set_option)
UCMA_CMD_IN(ucma_cmd_notify, struct rdma_ucm_notify)
UCMA_CMD_IN(ucma_cmd_migrate_id, struct rdma_ucm_migrate_id)
UCMA_CMD_IN(ucma_cmd_query, struct rdma_ucm_query)
UCMA_CMD_IN(ucma_cmd_bind, struct rdma_ucm_bind)
UCMA_CMD_IN(ucma_cmd_resolve_addr, struct rdma_ucm_resolve_addr)

/*
 * The commands' entries, with their input in user memory: those above,
 * and the multicast commands, which read their input themselves.
 */
typedef int (*ucma_cmd_fn)(struct ucma_file *file, const void __user *in,
			   u32 in_len, u32 out_len);

#define UCMA_CMD(cmd, handler)						\
	[RDMA_USER_CM_CMD_##cmd] = handler##_in
#define UCMA_CMD_USER(cmd, handler)					\
	[RDMA_USER_CM_CMD_##cmd] = handler

static const ucma_cmd_fn ucma_cmds[UCMA_NUM_CMDS] = {
	UCMA_CMD(CREATE_ID, ucma_cmd_create_id),
	UCMA_CMD(DESTROY_ID, ucma_cmd_destroy_id),
	UCMA_CMD(BIND_IP, ucma_cmd_bind_ip),
	UCMA_CMD(RESOLVE_IP, ucma_cmd_resolve_ip),
	UCMA_CMD(RESOLVE_ROUTE, ucma_cmd_resolve_route),
	UCMA_CMD(QUERY_ROUTE, ucma_cmd_query_route),
	UCMA_CMD(CONNECT, ucma_cmd_connect),
	UCMA_CMD(LISTEN, ucma_cmd_listen),
	UCMA_CMD(ACCEPT, ucma_cmd_accept),
	UCMA_CMD(REJECT, ucma_cmd_reject),
	UCMA_CMD(DISCONNECT, ucma_cmd_disconnect),
	UCMA_CMD(INIT_QP_ATTR, ucma_cmd_init_qp_attr),
	UCMA_CMD(GET_EVENT, ucma_cmd_get_event),
	/* GET_OPTION: never implemented, ucma_check_hdr() refuses it */
	UCMA_CMD(SET_OPTION, ucma_cmd_set_option),
	UCMA_CMD(NOTIFY, ucma_cmd_notify),
	UCMA_CMD_USER(JOIN_IP_MCAST, ucma_cmd_join_ip_mcast),
	UCMA_CMD_USER(LEAVE_MCAST, ucma_cmd_leave_mcast),
	UCMA_CMD(MIGRATE_ID, ucma_cmd_migrate_id),
	UCMA_CMD(QUERY, ucma_cmd_query),
	UCMA_CMD(BIND, ucma_cmd_bind),
	UCMA_CMD(RESOLVE_ADDR, ucma_cmd_resolve_addr),
	UCMA_CMD_USER(JOIN_MCAST, ucma_cmd_join_mcast),
};

/*
 * Read the 8-byte header of every command: one get_user() where the
 * buffer is aligned for it (librdmacm's always is) instead of a call into
 * the generic copy.
 */
static int ucma_get_hdr(struct rdma_ucm_cmd_hdr *hdr, const char __user *buf)
{
	u64 raw;

	BUILD_BUG_ON(sizeof(*hdr) != sizeof(raw));
	if (!IS_ALIGNED((unsigned long)buf, sizeof(raw)))
		return copy_from_user(hdr, buf, sizeof(*hdr)) ? -EFAULT : 0;
	if (get_user(raw, (const u64 __user *)buf))
		return -EFAULT;
	memcpy(hdr, &raw, sizeof(*hdr));
	return 0;
}

static ssize_t ucma_dispatch(struct ucma_file *file, const char __user *buf,
			     size_t len)
{
	const void __user *in = buf + sizeof(struct rdma_ucm_cmd_hdr);
	struct rdma_ucm_cmd_hdr hdr;
	ucma_cmd_fn fn;
	int ret;

	/* a write() on an fd passed to a process of other credentials */
	if (!ib_safe_file_access(file->filp)) {
		pr_err_once("%s: process %d (%s) changed security contexts after opening file descriptor, this is not allowed.\n",
			    __func__, task_tgid_vnr(current), current->comm);
		return -EACCES;
	}
	if (len < sizeof(hdr))
		return -EINVAL;
	ret = ucma_get_hdr(&hdr, buf);
	if (ret)
		return ret;
	ret = ucma_check_hdr(&hdr, len);
	if (ret)
		return ret;

	fn = ucma_cmds[array_index_nospec(hdr.cmd, UCMA_NUM_CMDS)];
	ret = fn(file, in, hdr.in, hdr.out);
	return ret ? ret : len;
}

static int ucma_open(struct inode *inode, struct file *filp)
{
	struct ucma_file *file;

	file = ucma_file_alloc(filp);
	if (!file)
		return -ENOMEM;
	filp->private_data = file;
	return stream_open(inode, filp);
}

/*
 * Last close: destroy every id of the file.  No command runs on this
 * file any more (each holds a file reference), a MIGRATE_ID elsewhere
 * that names this file holds one too, and the rdma_cm handler adds
 * nothing to a closing file, so the id list only shrinks.
 */
static int ucma_release(struct inode *inode, struct file *filp)
{
	struct ucma_file *file = filp->private_data;
	struct ucma_ctx *ctx;
	LIST_HEAD(dropped);

	ucma_file_close(file);

	while ((ctx = ucma_ctx_claim_first(file)))
		ucma_ctx_destroy(ctx);

	/* every event belonged to one of the ids: nothing should be left */
	ucma_file_drain(file, &dropped);
	WARN_ON_ONCE(!list_empty(&dropped));
	ucma_destroy_dropped(&dropped);

	ucma_file_free(file);
	return 0;
}

static ssize_t ucma_write(struct file *filp, const char __user *buf,
			  size_t len, loff_t *pos)
{
	return ucma_dispatch(filp->private_data, buf, len);
}

static __poll_t ucma_poll(struct file *filp, struct poll_table_struct *wait)
{
	return ucma_file_poll(filp->private_data, filp, wait);
}

const struct file_operations ucma_fops = {
	.owner		= THIS_MODULE,
	.open		= ucma_open,
	.release	= ucma_release,
	.write		= ucma_write,
	.poll		= ucma_poll,
	.llseek		= no_llseek,
};
