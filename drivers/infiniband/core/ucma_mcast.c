// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_ucm: multicast joins (JOIN_IP_MCAST, JOIN_MCAST, LEAVE_MCAST).
 *
 * A join has its own number in ucma_mc_xa (reserved while the join is
 * set up, published once user space has its number) and lives on its
 * id's list (ctx->mcs, under ctx->lock).  It is freed by LEAVE_MCAST,
 * which takes it out of the table, or with its id.
 *
 * rdma_leave_multicast() finds the group by address, so one id joins an
 * address at most once: a second join of the same address is
 * -EADDRINUSE, since leaving the first would tear down the second's
 * rdma_cm state while the first's may still report an event.
 */
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "ucma_abi.h"
#include "ucma_priv.h"

DEFINE_XARRAY_ALLOC(ucma_mc_xa);

static bool ucma_mc_joined(struct ucma_ctx *ctx, const struct sockaddr *addr,
			   size_t len)
{
	struct ucma_mc *mc;

	list_for_each_entry(mc, &ctx->mcs, node)
		if (!memcmp(&mc->addr, addr, len))
			return true;
	return false;
}

/*
 * The join's number goes to user space before the id is looked up: a
 * reference on the id holds off the close that DEVICE_REMOVAL starts,
 * and a write to user memory may wait on a page fault for as long as user
 * space likes (userfaultfd).  If the join then fails, the number written
 * is void (librdmacm reads the answer only on success).
 */
static int ucma_join(struct ucma_file *file, u64 response, u64 uid, u32 id,
		     const struct sockaddr *addr, u16 addr_size,
		     u16 join_flags, u32 out_len)
{
	struct rdma_ucm_create_id_resp resp = {};
	struct ucma_ctx *ctx;
	struct ucma_mc *mc;
	u8 join_state;
	int ret;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	if (addr_size != rdma_addr_size(addr))
		return -EINVAL;
	ret = ucma_join_state(join_flags, &join_state);
	if (ret)
		return ret;

	mc = kzalloc(sizeof(*mc), GFP_KERNEL_ACCOUNT);
	if (!mc)
		return -ENOMEM;
	mc->uid = uid;
	mc->join_state = join_state;
	memcpy(&mc->addr, addr, addr_size);
	ret = xa_alloc(&ucma_mc_xa, &mc->id, NULL, xa_limit_32b, GFP_KERNEL);
	if (ret)
		goto out_free;

	resp.id = mc->id;
	if (copy_to_user(u64_to_user_ptr(response), &resp, sizeof(resp))) {
		ret = -EFAULT;
		goto out_erase;
	}

	ctx = ucma_ctx_get(file, id);
	if (IS_ERR(ctx)) {
		ret = PTR_ERR(ctx);
		goto out_erase;
	}
	mc->ctx = ctx;

	mutex_lock(&ctx->lock);
	ret = ctx->cm_id->device ? 0 : -EINVAL;
	if (!ret && ucma_mc_joined(ctx, addr, addr_size))
		ret = -EADDRINUSE;
	if (!ret && ucma_file_full(file))
		ret = -ENOBUFS;
	if (ret) {
		mutex_unlock(&ctx->lock);
		goto out_put;
	}
	list_add_tail(&mc->node, &ctx->mcs);
	ret = rdma_join_multicast(ctx->cm_id, (struct sockaddr *)&mc->addr,
				  join_state, mc);
	if (ret) {
		list_del(&mc->node);
		mutex_unlock(&ctx->lock);
		goto out_put;
	}
	mutex_unlock(&ctx->lock);

	/* the slot exists: replacing its reservation allocates nothing */
	WARN_ON_ONCE(xa_is_err(xa_store(&ucma_mc_xa, mc->id, mc, 0)));
	ucma_ctx_put(ctx);
	return 0;

out_put:
	ucma_ctx_put(ctx);
out_erase:
	xa_erase(&ucma_mc_xa, mc->id);
out_free:
	kfree(mc);
	return ret;
}

int ucma_cmd_join_ip_mcast(struct ucma_file *file, const void __user *in,
			   u32 in_len, u32 out_len)
{
	struct rdma_ucm_join_ip_mcast cmd;
	int size;

	if (copy_from_user(&cmd, in, sizeof(cmd)))
		return -EFAULT;
	size = rdma_addr_size_in6(&cmd.addr);
	if (!size)
		return -EINVAL;
	return ucma_join(file, cmd.response, cmd.uid, cmd.id,
			 (struct sockaddr *)&cmd.addr, size,
			 RDMA_MC_JOIN_FLAG_FULLMEMBER, out_len);
}

int ucma_cmd_join_mcast(struct ucma_file *file, const void __user *in,
			u32 in_len, u32 out_len)
{
	struct rdma_ucm_join_mcast *cmd;
	int ret;

	cmd = kmalloc(sizeof(*cmd), GFP_KERNEL);
	if (!cmd)
		return -ENOMEM;
	if (copy_from_user(cmd, in, sizeof(*cmd)))
		ret = -EFAULT;
	else if (!rdma_addr_size_kss(&cmd->addr))
		ret = -EINVAL;
	else
		ret = ucma_join(file, cmd->response, cmd->uid, cmd->id,
				(struct sockaddr *)&cmd->addr, cmd->addr_size,
				cmd->join_flags, out_len);
	kfree(cmd);
	return ret;
}

/*
 * Take join @id of @file out of the table, with a reference on its id
 * (which is then alive until ucma_ctx_put()).
 */
static struct ucma_mc *ucma_mc_claim(struct ucma_file *file, u32 id)
{
	struct ucma_ctx *ctx;
	struct ucma_mc *mc;
	bool mine;

	xa_lock(&ucma_mc_xa);
	mc = xa_load(&ucma_mc_xa, id);
	if (!mc) {
		mc = ERR_PTR(-ENOENT);
		goto out;
	}
	/* a join in the table keeps its id's memory */
	ctx = mc->ctx;
	xa_lock(&ucma_ctx_xa);
	mine = ctx->file == file;
	xa_unlock(&ucma_ctx_xa);
	if (!mine)
		mc = ERR_PTR(-EINVAL);
	else if (!refcount_inc_not_zero(&ctx->users))
		mc = ERR_PTR(-ENXIO);	/* left with the id at its close */
	else
		__xa_erase(&ucma_mc_xa, id);
out:
	xa_unlock(&ucma_mc_xa);
	return mc;
}

int ucma_cmd_leave_mcast(struct ucma_file *file, const void __user *in,
			 u32 in_len, u32 out_len)
{
	struct rdma_ucm_destroy_id_resp resp = {};
	struct rdma_ucm_destroy_id cmd;
	struct ucma_ctx *ctx;
	struct ucma_mc *mc;

	if (copy_from_user(&cmd, in, sizeof(cmd)))
		return -EFAULT;

	mc = ucma_mc_claim(file, cmd.id);
	if (IS_ERR(mc))
		return PTR_ERR(mc);
	ctx = mc->ctx;

	mutex_lock(&ctx->lock);
	rdma_leave_multicast(ctx->cm_id, (struct sockaddr *)&mc->addr);
	list_del(&mc->node);
	mutex_unlock(&ctx->lock);
	/* no event of the group comes any more: drop the queued ones */
	resp.events_reported = ucma_file_drop_mc(ctx, mc);
	ucma_ctx_put(ctx);
	kfree(mc);

	if (copy_to_user(u64_to_user_ptr(cmd.response), &resp, sizeof(resp)))
		return -EFAULT;
	return 0;
}

/*
 * Destruction of @ctx: its rdma_cm_id is gone (it left every group) and
 * its events are dropped, so only the records are left to free.
 */
void ucma_mc_free_all(struct ucma_ctx *ctx)
{
	struct ucma_mc *mc, *tmp;

	list_for_each_entry_safe(mc, tmp, &ctx->mcs, node) {
		list_del(&mc->node);
		xa_erase(&ucma_mc_xa, mc->id);
		kfree(mc);
	}
}
