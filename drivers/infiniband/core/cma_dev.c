// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The "cma" ib_client: the devices rdma_cm serves, attaching ids to a
 * device port, and device removal.
 *
 * The device list has its own mutex, taken only by bind, device add and
 * device removal.  Each device keeps the ids attached to it on a list
 * under a per-device spinlock, so attaching and releasing ids on one
 * device does not serialise against another device or against lookups.
 */
#include <linux/bitops.h>
#include <linux/if_arp.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"
#include "cma_priv.h"
#include "cma_trace.h"

static DEFINE_MUTEX(cma_dev_mutex);	/* cma_dev_list */
static LIST_HEAD(cma_dev_list);
/* Who else hears of devices arriving and going (cma_listen.c). */
static const struct cma_dev_hooks *cma_hooks;

static int cma_add_one(struct ib_device *device);
static void cma_remove_one(struct ib_device *device, void *client_data);

/* The ib_client name "cma", which ib_core's tools and users know. */
static struct ib_client cma_client = {
	.name	= "cma",
	.add	= cma_add_one,
	.remove	= cma_remove_one,
};

/**
 * cma_transport_of - The transport switch entry serving a device port.
 * @device: the device
 * @port: a port of @device
 *
 * This is the one place that looks at a port's capabilities; ids keep
 * the table they got here.
 *
 * Return: the port's table, or NULL for a port no transport serves.
 */
const struct cma_transport_ops *cma_transport_of(struct ib_device *device,
						 u32 port)
{
	if (rdma_cap_iw_cm(device, port))
		return &cma_iw_transport;
	if (rdma_protocol_roce(device, port))
		return &cma_roce_transport;
	if (rdma_cap_ib_cm(device, port))
		return &cma_ib_transport;
	return NULL;
}

static bool cma_port_served(struct ib_device *device, u32 port)
{
	return cma_transport_of(device, port);
}

/**
 * cma_dev_addr_gids - The GIDs of an id's resolved device address.
 * @id: an id attached to an IB or iWARP port
 * @sgid: if not NULL, receives the source GID
 * @dgid: if not NULL, receives the destination GID
 */
void cma_dev_addr_gids(struct rdma_cm_id *id, union ib_gid *sgid,
		       union ib_gid *dgid)
{
	struct rdma_dev_addr *dev_addr = &id->route.addr.dev_addr;

	if (sgid)
		rdma_addr_get_sgid(dev_addr, sgid);
	if (dgid)
		rdma_addr_get_dgid(dev_addr, dgid);
}

/**
 * cma_port_serves_net - Whether ids of a namespace may use a device port.
 * @device: the device
 * @port: a port of @device
 * @net: the ids' network namespace
 *
 * Return: true if a transport serves @port, @net may use @device, and
 * the transport takes ids of @net on @port.
 */
bool cma_port_serves_net(struct ib_device *device, u32 port, struct net *net)
{
	const struct cma_transport_ops *xprt = cma_transport_of(device, port);

	if (!xprt || !rdma_dev_access_netns(device, net))
		return false;
	return !xprt->serves_net || xprt->serves_net(device, port, net);
}

void cma_dev_put(struct cma_device *cma_dev)
{
	if (refcount_dec_and_test(&cma_dev->refcount))
		complete(&cma_dev->comp);
}

static void cma_dev_free(struct cma_device *cma_dev)
{
	kfree(cma_dev->default_roce_tos);
	kfree(cma_dev->default_gid_type);
	kfree(cma_dev);
}

static int cma_add_one(struct ib_device *device)
{
	u32 start = rdma_start_port(device);
	struct cma_device *cma_dev;
	bool served = false;
	u32 port;

	rdma_for_each_port(device, port)
		served |= cma_port_served(device, port);
	if (!served)
		return -EOPNOTSUPP;
	trace_cm_add_one(device);

	cma_dev = kzalloc(sizeof(*cma_dev), GFP_KERNEL);
	if (!cma_dev)
		return -ENOMEM;
	cma_dev->device = device;
	cma_dev->default_gid_type = kcalloc(rdma_end_port(device) - start + 1,
					    sizeof(*cma_dev->default_gid_type),
					    GFP_KERNEL);
	cma_dev->default_roce_tos = kcalloc(rdma_end_port(device) - start + 1,
					    sizeof(*cma_dev->default_roce_tos),
					    GFP_KERNEL);
	if (!cma_dev->default_gid_type || !cma_dev->default_roce_tos) {
		cma_dev_free(cma_dev);
		return -ENOMEM;
	}

	/* RoCE v2 where the port has it: the default users expect. */
	rdma_for_each_port(device, port) {
		unsigned long types = roce_gid_type_mask_support(device, port);
		enum ib_gid_type *def =
			&cma_dev->default_gid_type[port - start];

		if (types & BIT(IB_GID_TYPE_ROCE_UDP_ENCAP))
			*def = IB_GID_TYPE_ROCE_UDP_ENCAP;
		else if (types)
			*def = __ffs(types);
		else
			*def = IB_GID_TYPE_IB;
	}

	refcount_set(&cma_dev->refcount, 1);
	init_completion(&cma_dev->comp);
	spin_lock_init(&cma_dev->id_lock);
	INIT_LIST_HEAD(&cma_dev->id_list);
	ib_set_client_data(device, &cma_client, cma_dev);

	mutex_lock(&cma_dev_mutex);
	list_add_tail(&cma_dev->list, &cma_dev_list);
	mutex_unlock(&cma_dev_mutex);
	cma_hooks->add(cma_dev);
	return 0;
}

static void cma_remove_one(struct ib_device *device, void *client_data)
{
	struct cma_device *cma_dev = client_data;
	struct rdma_id_private *id_priv;

	trace_cm_remove_one(device);
	cma_hooks->remove(cma_dev);
	/* No new id can find the device after this. */
	mutex_lock(&cma_dev_mutex);
	list_del(&cma_dev->list);
	mutex_unlock(&cma_dev_mutex);

	spin_lock(&cma_dev->id_lock);
	while (!list_empty(&cma_dev->id_list)) {
		id_priv = list_first_entry(&cma_dev->id_list,
					   struct rdma_id_private, device_item);
		list_del_init(&id_priv->device_item);
		cma_id_get(id_priv);
		spin_unlock(&cma_dev->id_lock);

		cma_remove_id(id_priv);

		spin_lock(&cma_dev->id_lock);
	}
	spin_unlock(&cma_dev->id_lock);

	/* Each id still holds the device until its consumer destroys it. */
	cma_dev_put(cma_dev);
	wait_for_completion(&cma_dev->comp);
	cma_dev_free(cma_dev);
}

/*
 * The GID entry of @port that the id's source address stands for, with
 * a reference, or an ERR_PTR() if the port does not carry it.
 */
static const struct ib_gid_attr *
cma_validate_port(struct rdma_id_private *id_priv, struct cma_device *cma_dev,
		  u32 port)
{
	struct ib_device *device = cma_dev->device;
	const struct cma_transport_ops *xprt = cma_transport_of(device, port);

	if (!xprt)
		return ERR_PTR(-ENODEV);
	if (!rdma_dev_access_netns(device, cma_id_net(id_priv)))
		return ERR_PTR(-ENODEV);
	return xprt->src_gid_attr(id_priv, cma_dev, port);
}

/*
 * Attach @id_priv to @port of @cma_dev with @sgid_attr, whose reference
 * it takes over (NULL for a per-device listener, which has no source
 * GID, and for a loopback id), and give it the port's transport.  If
 * the id already has another transport, -EBUSY and the reference is
 * dropped.
 */
static int cma_dev_attach(struct rdma_id_private *id_priv,
			  struct cma_device *cma_dev, u32 port,
			  const struct ib_gid_attr *sgid_attr)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct ib_device *device = cma_dev->device;
	int ret;

	ret = cma_set_transport(id_priv, cma_transport_of(device, port));
	if (ret) {
		if (sgid_attr)
			rdma_put_gid_attr(sgid_attr);
		return ret;
	}

	refcount_inc(&cma_dev->refcount);
	id_priv->cma_dev = cma_dev;
	id_priv->id.device = device;
	id_priv->id.port_num = port;
	if (sgid_attr)
		id_priv->gid_type = sgid_attr->gid_type;
	dev_addr->sgid_attr = sgid_attr;
	dev_addr->transport = rdma_node_get_transport(device->node_type);
	trace_cm_id_attach(id_priv, device);

	spin_lock(&cma_dev->id_lock);
	list_add_tail(&id_priv->device_item, &cma_dev->id_list);
	spin_unlock(&cma_dev->id_lock);
	return 0;
}

/**
 * cma_dev_acquire_by_src - Attach an id to the device port of its source.
 * @id_priv: an id whose dev_addr was filled from its source address
 *	(rdma_translate_ip() or an AF_IB GID)
 *
 * Takes the first served port whose GID table holds the source: the GID
 * of the address for IB and iWARP, the IP-derived GID on the netdev the
 * address lives on for RoCE.  The id also gets the port's transport.
 *
 * Return: 0, -EINVAL for an RDMA_PS_IPOIB id on a non-IPoIB address,
 * -EBUSY if the id already has another transport, or -ENODEV if no port
 * carries the address.
 */
int cma_dev_acquire_by_src(struct rdma_id_private *id_priv)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	const struct ib_gid_attr *sgid_attr;
	struct cma_device *cma_dev;
	int ret = -ENODEV;
	u32 port;

	if (dev_addr->dev_type != ARPHRD_INFINIBAND &&
	    id_priv->id.ps == RDMA_PS_IPOIB)
		return -EINVAL;

	mutex_lock(&cma_dev_mutex);
	list_for_each_entry(cma_dev, &cma_dev_list, list) {
		rdma_for_each_port(cma_dev->device, port) {
			sgid_attr = cma_validate_port(id_priv, cma_dev, port);
			if (IS_ERR(sgid_attr))
				continue;
			ret = cma_dev_attach(id_priv, cma_dev, port, sgid_attr);
			goto out;
		}
	}
out:
	mutex_unlock(&cma_dev_mutex);
	return ret;
}

/**
 * cma_dev_visit_ids - Call a function for every id attached to a device.
 * @fn: the function; it runs under the device's id lock and must not
 *	sleep
 * @arg: its argument
 */
void cma_dev_visit_ids(cma_id_visit_t fn, void *arg)
{
	struct rdma_id_private *id_priv;
	struct cma_device *cma_dev;

	mutex_lock(&cma_dev_mutex);
	list_for_each_entry(cma_dev, &cma_dev_list, list) {
		spin_lock(&cma_dev->id_lock);
		list_for_each_entry(id_priv, &cma_dev->id_list, device_item)
			fn(id_priv, arg);
		spin_unlock(&cma_dev->id_lock);
	}
	mutex_unlock(&cma_dev_mutex);
}

/**
 * cma_dev_acquire_like - Attach a passive id to its listener's device.
 * @id_priv: the new id, whose dev_addr was filled from the local address
 *	the request arrived on
 * @listener: the listener the request came through, attached to a device
 *
 * Return: 0, -EBUSY if the id already has another transport, or -ENODEV
 * if no port of the listener's device carries the address.
 */
int cma_dev_acquire_like(struct rdma_id_private *id_priv,
			 struct rdma_id_private *listener)
{
	struct cma_device *cma_dev = listener->cma_dev;
	const struct ib_gid_attr *sgid_attr;
	u32 port;

	if (WARN_ON_ONCE(!cma_dev))
		return -ENODEV;
	rdma_for_each_port(cma_dev->device, port) {
		sgid_attr = cma_validate_port(id_priv, cma_dev, port);
		if (!IS_ERR(sgid_attr))
			return cma_dev_attach(id_priv, cma_dev, port, sgid_attr);
	}
	return -ENODEV;
}

/**
 * cma_dev_attach_listener - Attach a per-device listener to its device.
 * @id_priv: the new listener
 * @cma_dev: the device; the caller keeps it from being removed (device
 *	removal takes it off the listeners' list before its ids)
 *
 * The listener takes the first served port, and with it the transport:
 * a transport listens on a whole device.
 *
 * Return: 0, or -ENODEV when the device serves no port.
 */
int cma_dev_attach_listener(struct rdma_id_private *id_priv,
			    struct cma_device *cma_dev)
{
	u32 port;

	rdma_for_each_port(cma_dev->device, port)
		if (cma_port_served(cma_dev->device, port))
			return cma_dev_attach(id_priv, cma_dev, port, NULL);
	return -ENODEV;
}

/*
 * The first port serving @net that is up, else the first port serving
 * @net: a loopback connection must stay inside the id's namespace.  An
 * AF_IB id takes only a port of the IB CM (InfiniBand, RoCE): its
 * service id and GIDs mean nothing to iWARP.
 */
static struct cma_device *cma_dev_pick_loopback(struct net *net,
						sa_family_t family, u32 *port)
{
	struct cma_device *cma_dev, *first = NULL;
	enum ib_port_state state;
	u32 p;

	list_for_each_entry(cma_dev, &cma_dev_list, list) {
		rdma_for_each_port(cma_dev->device, p) {
			if (!cma_port_serves_net(cma_dev->device, p, net))
				continue;
			if (family == AF_IB &&
			    !cma_transport_of(cma_dev->device, p)->af_ib)
				continue;
			if (!first) {
				first = cma_dev;
				*port = p;
			}
			if (!ib_get_cached_port_state(cma_dev->device, p,
						      &state) &&
			    state == IB_PORT_ACTIVE) {
				*port = p;
				return cma_dev;
			}
		}
	}
	return first;
}

/**
 * cma_dev_acquire_loopback - Attach an unattached id to a local port.
 * @id_priv: an id bound to a wildcard address, resolving a wildcard or
 *	loopback destination
 *
 * Takes the first port serving the id's namespace that is active (any
 * such port if none is), for an AF_IB id the first such port of the IB
 * CM, and its GID at index 0.  The id holds no
 * GID attribute: on RoCE the path's source GID comes from the source
 * address, not from index 0, and an AH built from index 0 with that
 * path's destination is one the provider cannot send (rxe then leaves
 * QP1 unable to receive).  Without one, ib_cm looks the path's source
 * GID up itself, and fails the connect when there is none.
 *
 * Return: 0, -ENODEV without such a port, or the GID or P_Key lookup's
 * error.
 */
int cma_dev_acquire_loopback(struct rdma_id_private *id_priv)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct cma_device *cma_dev;
	union ib_gid gid;
	u32 port = 0;
	u16 pkey;
	int ret;

	mutex_lock(&cma_dev_mutex);
	cma_dev = cma_dev_pick_loopback(cma_id_net(id_priv),
					cma_src_addr(id_priv)->sa_family, &port);
	if (!cma_dev) {
		ret = -ENODEV;
		goto out;
	}
	ret = ib_get_cached_pkey(cma_dev->device, port, 0, &pkey);
	if (ret)
		goto out;
	ret = rdma_query_gid(cma_dev->device, port, 0, &gid);
	if (ret)
		goto out;
	ret = cma_dev_attach(id_priv, cma_dev, port, NULL);
	if (ret)
		goto out;
	dev_addr->dev_type = id_priv->xprt->dev_type;
	rdma_addr_set_sgid(dev_addr, &gid);
	ib_addr_set_pkey(dev_addr, pkey);
out:
	mutex_unlock(&cma_dev_mutex);
	return ret;
}

/* Whether a GID of @port is @dgid or, on an active port, on its subnet. */
static bool cma_port_reaches(struct ib_device *device, u32 port,
			     const union ib_gid *dgid, union ib_gid *gid)
{
	enum ib_port_state state;
	int i;

	if (ib_get_cached_port_state(device, port, &state))
		return false;
	for (i = 0; i < device->port_data[port].immutable.gid_tbl_len; i++) {
		if (rdma_query_gid(device, port, i, gid))
			continue;
		if (!memcmp(gid, dgid, sizeof(*gid)))
			return true;
		if (gid->global.subnet_prefix == dgid->global.subnet_prefix &&
		    state == IB_PORT_ACTIVE)
			return true;
	}
	return false;
}

/**
 * cma_dev_acquire_ib - Attach an unattached AF_IB id to a port towards a GID.
 * @id_priv: an id bound to the AF_IB wildcard, resolving an AF_IB
 *	destination
 * @dgid: the destination's GID
 * @pkey: the destination's P_Key
 *
 * Takes the first port with the AF_IB capability (InfiniBand and RoCE,
 * not iWARP) holding @pkey that has @dgid itself or, if active, a GID on
 * @dgid's subnet (the same subnet prefix); that GID becomes the id's
 * source GID.  Like a loopback id, the id holds no GID attribute.
 *
 * Return: 0, -ENODEV if no port qualifies (none on an iWARP device), or
 * -EBUSY if the id already has another transport.
 */
int cma_dev_acquire_ib(struct rdma_id_private *id_priv,
		       const union ib_gid *dgid, u16 pkey)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct cma_device *cma_dev;
	union ib_gid gid;
	int ret = -ENODEV;
	u16 index;
	u32 port;

	mutex_lock(&cma_dev_mutex);
	list_for_each_entry(cma_dev, &cma_dev_list, list) {
		struct ib_device *device = cma_dev->device;

		if (!rdma_dev_access_netns(device, cma_id_net(id_priv)))
			continue;
		rdma_for_each_port(device, port) {
			const struct cma_transport_ops *xprt =
				cma_transport_of(device, port);

			if (!xprt || !xprt->af_ib ||
			    ib_find_cached_pkey(device, port, pkey, &index) ||
			    !cma_port_reaches(device, port, dgid, &gid))
				continue;
			ret = cma_dev_attach(id_priv, cma_dev, port, NULL);
			if (ret)
				goto out;
			dev_addr->dev_type = ARPHRD_INFINIBAND;
			rdma_addr_set_sgid(dev_addr, &gid);
			ib_addr_set_pkey(dev_addr, pkey);
			goto out;
		}
	}
out:
	mutex_unlock(&cma_dev_mutex);
	return ret;
}

/**
 * cma_dev_release - Detach an id from its device.
 * @id_priv: the id; nothing of it may be in use on the device any more
 *
 * Does nothing for an id without a device.
 */
void cma_dev_release(struct rdma_id_private *id_priv)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct cma_device *cma_dev = id_priv->cma_dev;

	if (!cma_dev)
		return;

	spin_lock(&cma_dev->id_lock);
	list_del_init(&id_priv->device_item);
	spin_unlock(&cma_dev->id_lock);

	if (dev_addr->sgid_attr) {
		rdma_put_gid_attr(dev_addr->sgid_attr);
		dev_addr->sgid_attr = NULL;
	}
	id_priv->cma_dev = NULL;
	id_priv->id.device = NULL;
	cma_dev_put(cma_dev);
}

/**
 * cma_dev_get_by_name - Find a served device by its name.
 * @name: the ib_device name ("rxe0")
 *
 * Return: the device with a reference (cma_dev_put() it), or NULL.
 */
struct cma_device *cma_dev_get_by_name(const char *name)
{
	struct cma_device *cma_dev, *found = NULL;

	mutex_lock(&cma_dev_mutex);
	list_for_each_entry(cma_dev, &cma_dev_list, list) {
		if (!strcmp(dev_name(&cma_dev->device->dev), name)) {
			refcount_inc(&cma_dev->refcount);
			found = cma_dev;
			break;
		}
	}
	mutex_unlock(&cma_dev_mutex);
	return found;
}

/**
 * cma_dev_default_gid_type - The GID type new ids on a port use.
 * @cma_dev: the device
 * @port: a port of it
 *
 * Return: the GID type, or -EINVAL for a port the device does not have.
 */
int cma_dev_default_gid_type(struct cma_device *cma_dev, u32 port)
{
	if (!rdma_is_port_valid(cma_dev->device, port))
		return -EINVAL;
	return READ_ONCE(cma_dev->default_gid_type[port -
				rdma_start_port(cma_dev->device)]);
}

/**
 * cma_dev_set_default_gid_type - Choose the GID type of a RoCE port.
 * @cma_dev: the device
 * @port: a port of it
 * @gid_type: the type; IB on a RoCE port means RoCE v1
 *
 * Return: 0, or -EINVAL for a port the device does not have or a type
 * the port does not support.
 */
int cma_dev_set_default_gid_type(struct cma_device *cma_dev, u32 port,
				 enum ib_gid_type gid_type)
{
	struct ib_device *device = cma_dev->device;

	if (!rdma_is_port_valid(device, port))
		return -EINVAL;
	/* The port's GID types, not its transport: every port answers. */
	if (gid_type == IB_GID_TYPE_IB &&
	    rdma_protocol_roce_eth_encap(device, port))
		gid_type = IB_GID_TYPE_ROCE;
	if (!(roce_gid_type_mask_support(device, port) & BIT(gid_type)))
		return -EINVAL;
	WRITE_ONCE(cma_dev->default_gid_type[port - rdma_start_port(device)],
		   gid_type);
	return 0;
}

/**
 * cma_dev_default_roce_tos - The TOS of ids on a port that set none.
 * @cma_dev: the device
 * @port: a port of it
 *
 * Return: the TOS, or -EINVAL for a port the device does not have.
 */
int cma_dev_default_roce_tos(struct cma_device *cma_dev, u32 port)
{
	if (!rdma_is_port_valid(cma_dev->device, port))
		return -EINVAL;
	return READ_ONCE(cma_dev->default_roce_tos[port -
				rdma_start_port(cma_dev->device)]);
}

/**
 * cma_dev_set_default_roce_tos - Set the TOS of ids on a port that set none.
 * @cma_dev: the device
 * @port: a port of it
 * @tos: the TOS
 *
 * Return: 0, or -EINVAL for a port the device does not have.
 */
int cma_dev_set_default_roce_tos(struct cma_device *cma_dev, u32 port, u8 tos)
{
	if (!rdma_is_port_valid(cma_dev->device, port))
		return -EINVAL;
	WRITE_ONCE(cma_dev->default_roce_tos[port -
				rdma_start_port(cma_dev->device)], tos);
	return 0;
}

/**
 * cma_dev_init - Register the device client.
 * @hooks: called for each device after it is listed and before its
 *	removal (ib_core does not remove a device while its add runs)
 *
 * Return: 0 or ib_register_client()'s error.
 */
int __init cma_dev_init(const struct cma_dev_hooks *hooks)
{
	cma_hooks = hooks;
	return ib_register_client(&cma_client);
}

void cma_dev_exit(void)
{
	ib_unregister_client(&cma_client);
}
