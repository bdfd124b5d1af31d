// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Listening: an id bound to a device address listens through its own
 * transport; a wildcard listener spans devices, so it gets one internal
 * per-device listener on each device, now and as devices arrive.
 *
 * A per-device listener is on its device's id list like any attached id
 * and on its parent's listen_list.  Whoever takes it off the parent's
 * list (the parent's destruction or the device's removal) destroys it;
 * the consumer never sees it, nor gets events for it.
 */
#include <linux/cred.h>
#include <linux/mutex.h>

#include "core_priv.h"
#include "cma_priv.h"

/*
 * cma_listen_mutex protects the two lists a wildcard listener needs: the
 * devices to listen on (fed by device add and removal) and the wildcard
 * listeners, which every device added later must serve too; and each
 * wildcard listener's listen_list.  Only this file takes it.
 */
static DEFINE_MUTEX(cma_listen_mutex);
static LIST_HEAD(cma_listen_devs);	/* cma_device.listen_item */
static LIST_HEAD(cma_listen_any);	/* rdma_id_private.device_item */

/* The transport's listener, then LISTEN; back to ADDR_BOUND on failure. */
static int cma_listen_start(struct rdma_id_private *id_priv, int backlog)
{
	const struct cma_transport_ops *xprt = id_priv->xprt;
	int ret;

	if (!xprt || !xprt->listen)
		return -EOPNOTSUPP;
	ret = cma_comp_exch(id_priv, RDMA_CM_ADDR_BOUND, RDMA_CM_LISTEN);
	if (ret)
		return ret;
	id_priv->backlog = backlog;
	ret = xprt->listen(id_priv, backlog);
	if (ret) {
		id_priv->backlog = 0;
		cma_comp_exch(id_priv, RDMA_CM_LISTEN, RDMA_CM_ADDR_BOUND);
	}
	return ret;
}

/*
 * Give a wildcard listener a listener on one device.  @parent is in
 * LISTEN; @cma_dev is on cma_listen_devs, under cma_listen_mutex, so it
 * is not being removed.  Takes no handler_mutex.
 *
 * Return: 0, also for a device the listener cannot use (another network
 * namespace; AF_IB on a device without IB CM; a transport without
 * listen), or the error that kept the device from listening.
 */
static int cma_listen_on_dev(struct rdma_id_private *parent,
			     struct cma_device *cma_dev)
{
	struct ib_device *device = cma_dev->device;
	struct rdma_id_private *child;
	const struct cred *old_cred;
	int ret;

	if (!cma_port_serves_net(device, rdma_start_port(device),
				 cma_id_net(parent)))
		return 0;
	if (cma_src_addr(parent)->sa_family == AF_IB &&
	    !cma_transport_of(device, rdma_start_port(device))->af_ib)
		return 0;

	child = cma_id_alloc(cma_id_net(parent), parent->id.event_handler,
			     parent->id.context, parent->id.ps,
			     parent->id.qp_type, parent);
	if (!child)
		return -ENOMEM;
	child->internal_id = 1;
	memcpy(cma_src_addr(child), cma_src_addr(parent),
	       rdma_addr_size(cma_src_addr(parent)));
	child->afonly = READ_ONCE(parent->afonly);
	child->tos = parent->tos;
	child->tos_set = parent->tos_set;
	cma_state_init(child, RDMA_CM_ADDR_BOUND);

	ret = cma_dev_attach_listener(child, cma_dev);
	if (ret)
		goto err;
	/* A transport that cannot listen yet leaves the device out. */
	if (!child->xprt->listen) {
		cma_id_discard(child);
		return 0;
	}
	rdma_restrack_add(&child->res);
	/*
	 * Also when a device arrives later: the transport's listener (a
	 * socket, for iWARP on the host's TCP) is the listener owner's, with
	 * its credentials and security checks, not those of whoever added
	 * the device.
	 */
	old_cred = override_creds(parent->listen_cred);
	ret = cma_listen_start(child, parent->backlog);
	revert_creds(old_cred);
	if (ret)
		goto err;
	list_add_tail(&child->listen_item, &parent->listen_list);
	return 0;

err:
	pr_warn_ratelimited("rdma_cm: no listener on %s for port %u: %d\n",
			    dev_name(&device->dev),
			    cma_addr_port(cma_src_addr(parent)), ret);
	cma_id_discard(child);
	return ret;
}

/*
 * Take one per-device listener off its parent: with @parent, its first
 * one (NULL when none is left); with @parent NULL, @child if it was
 * still on its parent's list, else NULL.  Whoever takes a per-device
 * listener off its parent's list destroys it: the parent's destruction
 * or its device's removal, whichever comes first.
 */
static struct rdma_id_private *
cma_listen_pop_child(struct rdma_id_private *parent,
		     struct rdma_id_private *child)
{
	struct rdma_id_private *ret = NULL;

	mutex_lock(&cma_listen_mutex);
	if (parent && !list_empty(&parent->listen_list))
		ret = list_first_entry(&parent->listen_list,
				       struct rdma_id_private, listen_item);
	else if (!parent && !list_empty(&child->listen_item))
		ret = child;
	if (ret)
		list_del_init(&ret->listen_item);
	mutex_unlock(&cma_listen_mutex);
	return ret;
}

/**
 * cma_listen_child_on - A wildcard listener's per-device listener.
 * @parent: the wildcard listener
 * @device: the device
 *
 * Return: the per-device listener on @device with a reference
 * (cma_id_put() it), or NULL.
 */
struct rdma_id_private *cma_listen_child_on(struct rdma_id_private *parent,
					    struct ib_device *device)
{
	struct rdma_id_private *child, *found = NULL;

	mutex_lock(&cma_listen_mutex);
	list_for_each_entry(child, &parent->listen_list, listen_item) {
		if (child->id.device == device) {
			found = child;
			cma_id_get(found);
			break;
		}
	}
	mutex_unlock(&cma_listen_mutex);
	return found;
}

/*
 * Serve a wildcard listener on every device, now and as devices arrive.
 * Return: 0, or the first device's error (the listener is then off the
 * list again; the caller stops the per-device listeners made so far).
 */
static int cma_listen_any_start(struct rdma_id_private *id_priv)
{
	struct cma_device *cma_dev;
	int ret = 0;

	mutex_lock(&cma_listen_mutex);
	list_add_tail(&id_priv->device_item, &cma_listen_any);
	list_for_each_entry(cma_dev, &cma_listen_devs, listen_item) {
		ret = cma_listen_on_dev(id_priv, cma_dev);
		if (ret) {
			list_del_init(&id_priv->device_item);
			break;
		}
	}
	mutex_unlock(&cma_listen_mutex);
	return ret;
}

/**
 * cma_listen_unlist_any - Take a wildcard listener off the listener list.
 * @id_priv: the listener
 *
 * No per-device listener is added to it after this.
 */
void cma_listen_unlist_any(struct rdma_id_private *id_priv)
{
	mutex_lock(&cma_listen_mutex);
	list_del_init(&id_priv->device_item);
	mutex_unlock(&cma_listen_mutex);
}

/* A device arrived: every wildcard listener listens on it too. */
static void cma_listen_dev_add(struct cma_device *cma_dev)
{
	struct rdma_id_private *id_priv;

	mutex_lock(&cma_listen_mutex);
	list_add_tail(&cma_dev->listen_item, &cma_listen_devs);
	list_for_each_entry(id_priv, &cma_listen_any, device_item)
		cma_listen_on_dev(id_priv, cma_dev);
	mutex_unlock(&cma_listen_mutex);
}

/*
 * A device goes: no per-device listener is made on it after this; the
 * removal of its ids takes down those it has.
 */
static void cma_listen_dev_remove(struct cma_device *cma_dev)
{
	mutex_lock(&cma_listen_mutex);
	list_del(&cma_dev->listen_item);
	mutex_unlock(&cma_listen_mutex);
}

const struct cma_dev_hooks cma_listen_dev_hooks = {
	.add	= cma_listen_dev_add,
	.remove	= cma_listen_dev_remove,
};

/* Destroy a per-device listener taken off its parent's list. */
static void cma_listen_destroy_child(struct rdma_id_private *child)
{
	mutex_lock(&child->handler_mutex);
	cma_destroy_handler_unlock(child);
}

/**
 * cma_listen_stop - Stop a wildcard listener's per-device listeners.
 * @id_priv: the listener, no longer on the wildcard list (or never put
 *	on it); per-device listeners and other ids: nothing to do
 */
void cma_listen_stop(struct rdma_id_private *id_priv)
{
	struct rdma_id_private *child;

	if (id_priv->internal_id || id_priv->cma_dev)
		return;
	while ((child = cma_listen_pop_child(id_priv, NULL)))
		cma_listen_destroy_child(child);
}

/**
 * cma_listen_remove_child - A per-device listener's device goes away.
 * @child: the per-device listener; the caller holds its handler_mutex
 *	and has moved it out of LISTEN
 *
 * Return: true if the caller is to destroy @child (it was still on its
 * parent's list), false if the parent's destruction already owns it.
 */
bool cma_listen_remove_child(struct rdma_id_private *child)
{
	return cma_listen_pop_child(NULL, child) == child;
}

/**
 * cma_listen_new_conn - A passive id for a request a listener received.
 * @listener: the listener, with its handler_mutex held; a per-device
 *	listener carries its wildcard parent's handler and context, which
 *	the new id takes
 * @net: the namespace the request arrived in
 * @qp_type: the QP type the request is for
 *
 * Return: the new id in CONNECT with its handler_mutex held (nested in
 * the listener's), or NULL without memory.
 */
struct rdma_id_private *cma_listen_new_conn(struct rdma_id_private *listener,
					    struct net *net,
					    enum ib_qp_type qp_type)
{
	struct rdma_id_private *conn;

	lockdep_assert_held(&listener->handler_mutex);
	conn = cma_id_alloc(net, listener->id.event_handler,
			    listener->id.context, listener->id.ps, qp_type,
			    listener);
	if (!conn)
		return NULL;
	mutex_lock_nested(&conn->handler_mutex, SINGLE_DEPTH_NESTING);
	cma_state_init(conn, RDMA_CM_CONNECT);
	conn->answer = CMA_ANSWER_REQ;
	return conn;
}

/**
 * rdma_listen - Listen for connection requests on the id's address.
 * @id: the id; an unbound id is first bound to the IPv4 wildcard address
 * @backlog: pending request limit, handed to the transport
 *
 * An id bound to a device address listens on that device; a wildcard
 * listener listens on every device its namespace can use, and on each
 * device added later.  A listener bound with reuseaddr must own its port
 * alone.  CONNECT_REQUEST events carry new ids in CONNECT with the
 * listener's handler and context.
 *
 * Return: 0 on success or a negative errno: -EINVAL if the id is not in
 * IDLE or ADDR_BOUND, -EADDRINUSE if the port is shared, -EOPNOTSUPP for
 * a transport that cannot listen, or the transport's error.
 */
int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	struct rdma_id_private *id_priv = cma_id_priv(id);
	struct sockaddr_in any = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	int ret;

	if (READ_ONCE(id_priv->state) == RDMA_CM_IDLE) {
		ret = cma_bind(id_priv, (struct sockaddr *)&any);
		if (ret)
			return ret;
	}
	if (READ_ONCE(id_priv->state) != RDMA_CM_ADDR_BOUND)
		return -EINVAL;

	ret = cma_ps_listen_check(cma_ps_table(cma_id_net(id_priv)), id_priv);
	if (ret)
		return ret;

	if (id_priv->cma_dev)
		return cma_listen_start(id_priv, backlog);

	ret = cma_comp_exch(id_priv, RDMA_CM_ADDR_BOUND, RDMA_CM_LISTEN);
	if (ret)
		return ret;
	id_priv->backlog = backlog;
	id_priv->listen_cred = get_current_cred();
	ret = cma_listen_any_start(id_priv);
	if (ret) {
		cma_listen_stop(id_priv);
		put_cred(id_priv->listen_cred);
		id_priv->listen_cred = NULL;
		id_priv->backlog = 0;
		cma_comp_exch(id_priv, RDMA_CM_LISTEN, RDMA_CM_ADDR_BOUND);
	}
	return ret;
}
EXPORT_SYMBOL(rdma_listen);
