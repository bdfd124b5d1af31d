// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The "rdma_cm" configfs subsystem: per device port defaults for RoCE.
 *
 *   mkdir /sys/kernel/config/rdma_cm/<device>
 *   <device>/ports/<n>/default_roce_mode   "IB/RoCE v1" or "RoCE v2"
 *   <device>/ports/<n>/default_roce_tos    0..255
 *
 * The layout is ABI: rdma-core's and distributions' scripts write these
 * files.  A group names its device; every access looks
 * the device up by that name and holds it only for the access, so a
 * group never delays device removal (its files then return -ENODEV).
 */
#include <linux/configfs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"
#include "cma_priv.h"

struct cma_cfs_dev;

struct cma_cfs_port {
	struct config_group	group;		/* ports/<n> */
	struct cma_cfs_dev	*dev;
	u32			port;
};

/* One allocation per mkdir; the port groups hold references on it. */
struct cma_cfs_dev {
	struct config_group	device_group;	/* <device> */
	struct config_group	ports_group;	/* <device>/ports */
	char			name[IB_DEVICE_NAME_MAX];
	u32			nports;
	struct cma_cfs_port	ports[];
};

static struct cma_cfs_port *cma_cfs_port_of(struct config_item *item)
{
	return container_of(to_config_group(item), struct cma_cfs_port, group);
}

static struct cma_device *cma_cfs_get(struct config_item *item, u32 *port)
{
	struct cma_cfs_port *p = cma_cfs_port_of(item);

	*port = p->port;
	return cma_dev_get_by_name(p->dev->name);
}

static ssize_t default_roce_mode_show(struct config_item *item, char *buf)
{
	struct cma_device *cma_dev;
	u32 port;
	int type;

	cma_dev = cma_cfs_get(item, &port);
	if (!cma_dev)
		return -ENODEV;
	type = cma_dev_default_gid_type(cma_dev, port);
	cma_dev_put(cma_dev);
	if (type < 0)
		return type;
	return sysfs_emit(buf, "%s\n", ib_cache_gid_type_str(type));
}

static ssize_t default_roce_mode_store(struct config_item *item,
				       const char *buf, size_t count)
{
	struct cma_device *cma_dev;
	u32 port;
	int type, ret;

	type = ib_cache_gid_parse_type_str(buf);
	if (type < 0)
		return -EINVAL;
	cma_dev = cma_cfs_get(item, &port);
	if (!cma_dev)
		return -ENODEV;
	ret = cma_dev_set_default_gid_type(cma_dev, port, type);
	cma_dev_put(cma_dev);
	return ret ?: count;
}

CONFIGFS_ATTR(, default_roce_mode);

static ssize_t default_roce_tos_show(struct config_item *item, char *buf)
{
	struct cma_device *cma_dev;
	u32 port;
	int tos;

	cma_dev = cma_cfs_get(item, &port);
	if (!cma_dev)
		return -ENODEV;
	tos = cma_dev_default_roce_tos(cma_dev, port);
	cma_dev_put(cma_dev);
	if (tos < 0)
		return tos;
	return sysfs_emit(buf, "%d\n", tos);
}

static ssize_t default_roce_tos_store(struct config_item *item,
				      const char *buf, size_t count)
{
	struct cma_device *cma_dev;
	u32 port;
	int ret;
	u8 tos;

	ret = kstrtou8(buf, 0, &tos);
	if (ret)
		return ret;
	cma_dev = cma_cfs_get(item, &port);
	if (!cma_dev)
		return -ENODEV;
	ret = cma_dev_set_default_roce_tos(cma_dev, port, tos);
	cma_dev_put(cma_dev);
	return ret ?: count;
}

CONFIGFS_ATTR(, default_roce_tos);

static struct configfs_attribute *cma_cfs_port_attrs[] = {
	&attr_default_roce_mode,
	&attr_default_roce_tos,
	NULL,
};

static const struct config_item_type cma_cfs_port_type = {
	.ct_attrs	= cma_cfs_port_attrs,
	.ct_owner	= THIS_MODULE,
};

static const struct config_item_type cma_cfs_ports_type = {
	.ct_owner	= THIS_MODULE,
};

static void cma_cfs_dev_release(struct config_item *item)
{
	kfree(container_of(to_config_group(item), struct cma_cfs_dev,
			   device_group));
}

static struct configfs_item_operations cma_cfs_dev_ops = {
	.release	= cma_cfs_dev_release,
};

static const struct config_item_type cma_cfs_dev_type = {
	.ct_item_ops	= &cma_cfs_dev_ops,
	.ct_owner	= THIS_MODULE,
};

static struct config_group *cma_cfs_make_dev(struct config_group *parent,
					     const char *name)
{
	struct cma_device *cma_dev;
	struct cma_cfs_dev *dev;
	u32 i, start, nports;

	cma_dev = cma_dev_get_by_name(name);
	if (!cma_dev)
		return ERR_PTR(-ENODEV);
	start = rdma_start_port(cma_dev->device);
	nports = rdma_end_port(cma_dev->device) - start + 1;
	cma_dev_put(cma_dev);

	dev = kzalloc(struct_size(dev, ports, nports), GFP_KERNEL);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	strscpy(dev->name, name, sizeof(dev->name));
	dev->nports = nports;

	config_group_init_type_name(&dev->device_group, name,
				    &cma_cfs_dev_type);
	config_group_init_type_name(&dev->ports_group, "ports",
				    &cma_cfs_ports_type);
	configfs_add_default_group(&dev->ports_group, &dev->device_group);
	for (i = 0; i < nports; i++) {
		struct cma_cfs_port *p = &dev->ports[i];
		char num[11];

		p->dev = dev;
		p->port = start + i;
		snprintf(num, sizeof(num), "%u", p->port);
		config_group_init_type_name(&p->group, num, &cma_cfs_port_type);
		configfs_add_default_group(&p->group, &dev->ports_group);
	}
	return &dev->device_group;
}

static void cma_cfs_drop_dev(struct config_group *parent,
			     struct config_item *item)
{
	struct cma_cfs_dev *dev = container_of(to_config_group(item),
					       struct cma_cfs_dev,
					       device_group);

	configfs_remove_default_groups(&dev->ports_group);
	configfs_remove_default_groups(&dev->device_group);
	config_item_put(item);
}

static struct configfs_group_operations cma_cfs_subsys_ops = {
	.make_group	= cma_cfs_make_dev,
	.drop_item	= cma_cfs_drop_dev,
};

static const struct config_item_type cma_cfs_subsys_type = {
	.ct_group_ops	= &cma_cfs_subsys_ops,
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem cma_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf = "rdma_cm",
			.ci_type = &cma_cfs_subsys_type,
		},
	},
};

int __init cma_configfs_init(void)
{
	config_group_init(&cma_subsys.su_group);
	mutex_init(&cma_subsys.su_mutex);
	return configfs_register_subsystem(&cma_subsys);
}

void __exit cma_configfs_exit(void)
{
	configfs_unregister_subsystem(&cma_subsys);
}
