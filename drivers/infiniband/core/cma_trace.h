/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_cm's tracepoints.  The system, the event names, the event class
 * names, the fields and the output formats are those of Linux 6.1's
 * rdma_cm, so that perf, trace-cmd and bpftrace scripts written for it
 * work on ours: BPF programs name an event's record by its class, as
 * struct trace_event_raw_<class> in the module's BTF.
 */
#ifndef _CMA_TRACE_ADDRS
#define _CMA_TRACE_ADDRS

#include <linux/string.h>
#include <rdma/ib_cm.h>

#include "cma_priv.h"

/* Every id event records both addresses as sockaddr_in6-sized blobs. */
#define CMA_TRACE_ADDR_LEN	sizeof(struct sockaddr_in6)

static inline void cma_trace_addrs(unsigned char *src, unsigned char *dst,
				   const struct rdma_id_private *id_priv)
{
	memcpy(src, &id_priv->id.route.addr.src_addr, CMA_TRACE_ADDR_LEN);
	memcpy(dst, &id_priv->id.route.addr.dst_addr, CMA_TRACE_ADDR_LEN);
}
#endif /* _CMA_TRACE_ADDRS */

#undef TRACE_SYSTEM
#define TRACE_SYSTEM rdma_cma

#if !defined(_CMA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _CMA_TRACE_H

#include <linux/tracepoint.h>
#include <trace/misc/rdma.h>

/* A step of a connection: cm.id, TOS, addresses. */
DECLARE_EVENT_CLASS(cma_fsm_class,
		    TP_PROTO(const struct rdma_id_private *id_priv),
		    TP_ARGS(id_priv),
		    TP_STRUCT__entry(__field(u32, cm_id)
				     __field(u32, tos)
				     __array(unsigned char, srcaddr, CMA_TRACE_ADDR_LEN)
				     __array(unsigned char, dstaddr, CMA_TRACE_ADDR_LEN)),
		    TP_fast_assign(__entry->cm_id = id_priv->res.id;
				   __entry->tos = id_priv->tos;
				   cma_trace_addrs(__entry->srcaddr,
						   __entry->dstaddr, id_priv);),
		    TP_printk("cm.id=%u src=%pISpc dst=%pISpc tos=%u",
			      __entry->cm_id, __entry->srcaddr,
			      __entry->dstaddr, __entry->tos));

DEFINE_EVENT(cma_fsm_class, cm_send_rtu,
	     TP_PROTO(const struct rdma_id_private *id_priv), TP_ARGS(id_priv));
DEFINE_EVENT(cma_fsm_class, cm_send_rej,
	     TP_PROTO(const struct rdma_id_private *id_priv), TP_ARGS(id_priv));
DEFINE_EVENT(cma_fsm_class, cm_send_mra,
	     TP_PROTO(const struct rdma_id_private *id_priv), TP_ARGS(id_priv));
DEFINE_EVENT(cma_fsm_class, cm_send_sidr_req,
	     TP_PROTO(const struct rdma_id_private *id_priv), TP_ARGS(id_priv));
DEFINE_EVENT(cma_fsm_class, cm_send_sidr_rep,
	     TP_PROTO(const struct rdma_id_private *id_priv), TP_ARGS(id_priv));
DEFINE_EVENT(cma_fsm_class, cm_disconnect,
	     TP_PROTO(const struct rdma_id_private *id_priv), TP_ARGS(id_priv));
DEFINE_EVENT(cma_fsm_class, cm_sent_drep,
	     TP_PROTO(const struct rdma_id_private *id_priv), TP_ARGS(id_priv));
DEFINE_EVENT(cma_fsm_class, cm_sent_dreq,
	     TP_PROTO(const struct rdma_id_private *id_priv), TP_ARGS(id_priv));
DEFINE_EVENT(cma_fsm_class, cm_id_destroy,
	     TP_PROTO(const struct rdma_id_private *id_priv), TP_ARGS(id_priv));

/* An id attached to a device. */
TRACE_EVENT(cm_id_attach,
	    TP_PROTO(const struct rdma_id_private *id_priv,
		     const struct ib_device *device),
	    TP_ARGS(id_priv, device),
	    TP_STRUCT__entry(__field(u32, cm_id)
			     __array(unsigned char, srcaddr, CMA_TRACE_ADDR_LEN)
			     __array(unsigned char, dstaddr, CMA_TRACE_ADDR_LEN)
			     __string(devname, device->name)),
	    TP_fast_assign(__entry->cm_id = id_priv->res.id;
			   cma_trace_addrs(__entry->srcaddr, __entry->dstaddr,
					   id_priv);
			   __assign_str(devname, device->name);),
	    TP_printk("cm.id=%u src=%pISpc dst=%pISpc device=%s",
		      __entry->cm_id, __entry->srcaddr, __entry->dstaddr,
		      __get_str(devname)));

/* A step that involves the id's QP: the above and its number. */
DECLARE_EVENT_CLASS(cma_qp_class,
		    TP_PROTO(const struct rdma_id_private *id_priv),
		    TP_ARGS(id_priv),
		    TP_STRUCT__entry(__field(u32, cm_id)
				     __field(u32, tos)
				     __field(u32, qp_num)
				     __array(unsigned char, srcaddr, CMA_TRACE_ADDR_LEN)
				     __array(unsigned char, dstaddr, CMA_TRACE_ADDR_LEN)),
		    TP_fast_assign(__entry->cm_id = id_priv->res.id;
				   __entry->tos = id_priv->tos;
				   __entry->qp_num = id_priv->qp_num;
				   cma_trace_addrs(__entry->srcaddr,
						   __entry->dstaddr, id_priv);),
		    TP_printk("cm.id=%u src=%pISpc dst=%pISpc tos=%u qp_num=%u",
			      __entry->cm_id, __entry->srcaddr,
			      __entry->dstaddr, __entry->tos,
			      __entry->qp_num));

DEFINE_EVENT(cma_qp_class, cm_send_req,
	     TP_PROTO(const struct rdma_id_private *id_priv), TP_ARGS(id_priv));
DEFINE_EVENT(cma_qp_class, cm_send_rep,
	     TP_PROTO(const struct rdma_id_private *id_priv), TP_ARGS(id_priv));
DEFINE_EVENT(cma_qp_class, cm_qp_destroy,
	     TP_PROTO(const struct rdma_id_private *id_priv), TP_ARGS(id_priv));

/* QP type names for the output; their values exported to the tools. */
TRACE_DEFINE_ENUM(IB_QPT_SMI);
TRACE_DEFINE_ENUM(IB_QPT_GSI);
TRACE_DEFINE_ENUM(IB_QPT_RC);
TRACE_DEFINE_ENUM(IB_QPT_UC);
TRACE_DEFINE_ENUM(IB_QPT_UD);
TRACE_DEFINE_ENUM(IB_QPT_RAW_IPV6);
TRACE_DEFINE_ENUM(IB_QPT_RAW_ETHERTYPE);
TRACE_DEFINE_ENUM(IB_QPT_RAW_PACKET);
TRACE_DEFINE_ENUM(IB_QPT_XRC_INI);
TRACE_DEFINE_ENUM(IB_QPT_XRC_TGT);

#define cma_trace_qp_type(x)						\
	__print_symbolic(x, { IB_QPT_SMI, "SMI" }, { IB_QPT_GSI, "GSI" },	\
			 { IB_QPT_RC, "RC" }, { IB_QPT_UC, "UC" },	\
			 { IB_QPT_UD, "UD" },				\
			 { IB_QPT_RAW_IPV6, "RAW_IPV6" },		\
			 { IB_QPT_RAW_ETHERTYPE, "RAW_ETHERTYPE" },	\
			 { IB_QPT_RAW_PACKET, "RAW_PACKET" },		\
			 { IB_QPT_XRC_INI, "XRC_INI" },			\
			 { IB_QPT_XRC_TGT, "XRC_TGT" })

/* rdma_create_qp(): a failed create reports no QP. */
TRACE_EVENT(cm_qp_create,
	    TP_PROTO(const struct rdma_id_private *id_priv,
		     const struct ib_pd *pd,
		     const struct ib_qp_init_attr *qp_init_attr, int rc),
	    TP_ARGS(id_priv, pd, qp_init_attr, rc),
	    TP_STRUCT__entry(__field(u32, cm_id)
			     __field(u32, pd_id)
			     __field(u32, tos)
			     __field(u32, qp_num)
			     __field(u32, send_wr)
			     __field(u32, recv_wr)
			     __field(int, rc)
			     __field(unsigned long, qp_type)
			     __array(unsigned char, srcaddr, CMA_TRACE_ADDR_LEN)
			     __array(unsigned char, dstaddr, CMA_TRACE_ADDR_LEN)),
	    TP_fast_assign(__entry->cm_id = id_priv->res.id;
			   __entry->pd_id = pd->res.id;
			   __entry->tos = id_priv->tos;
			   __entry->send_wr = qp_init_attr->cap.max_send_wr;
			   __entry->recv_wr = qp_init_attr->cap.max_recv_wr;
			   __entry->rc = rc;
			   __entry->qp_num = rc ? 0 : id_priv->qp_num;
			   __entry->qp_type = rc ? 0 : id_priv->id.qp_type;
			   cma_trace_addrs(__entry->srcaddr, __entry->dstaddr,
					   id_priv);),
	    TP_printk("cm.id=%u src=%pISpc dst=%pISpc tos=%u pd.id=%u qp_type=%s send_wr=%u recv_wr=%u qp_num=%u rc=%d",
		      __entry->cm_id, __entry->srcaddr, __entry->dstaddr,
		      __entry->tos, __entry->pd_id,
		      cma_trace_qp_type(__entry->qp_type), __entry->send_wr,
		      __entry->recv_wr, __entry->qp_num, __entry->rc));

/* An ib_cm REQ or SIDR REQ for a listener. */
TRACE_EVENT(cm_req_handler,
	    TP_PROTO(const struct rdma_id_private *id_priv, int event),
	    TP_ARGS(id_priv, event),
	    TP_STRUCT__entry(__field(u32, cm_id)
			     __field(u32, tos)
			     __field(unsigned long, event)
			     __array(unsigned char, srcaddr, CMA_TRACE_ADDR_LEN)
			     __array(unsigned char, dstaddr, CMA_TRACE_ADDR_LEN)),
	    TP_fast_assign(__entry->cm_id = id_priv->res.id;
			   __entry->tos = id_priv->tos;
			   __entry->event = event;
			   cma_trace_addrs(__entry->srcaddr, __entry->dstaddr,
					   id_priv);),
	    TP_printk("cm.id=%u src=%pISpc dst=%pISpc tos=%u %s (%lu)",
		      __entry->cm_id, __entry->srcaddr, __entry->dstaddr,
		      __entry->tos, rdma_show_ib_cm_event(__entry->event),
		      __entry->event));

/* An event on its way to the consumer's handler. */
TRACE_EVENT(cm_event_handler,
	    TP_PROTO(const struct rdma_id_private *id_priv,
		     const struct rdma_cm_event *event),
	    TP_ARGS(id_priv, event),
	    TP_STRUCT__entry(__field(u32, cm_id)
			     __field(u32, tos)
			     __field(unsigned long, event)
			     __field(int, status)
			     __array(unsigned char, srcaddr, CMA_TRACE_ADDR_LEN)
			     __array(unsigned char, dstaddr, CMA_TRACE_ADDR_LEN)),
	    TP_fast_assign(__entry->cm_id = id_priv->res.id;
			   __entry->tos = id_priv->tos;
			   __entry->event = event->event;
			   __entry->status = event->status;
			   cma_trace_addrs(__entry->srcaddr, __entry->dstaddr,
					   id_priv);),
	    TP_printk("cm.id=%u src=%pISpc dst=%pISpc tos=%u %s (%lu/%d)",
		      __entry->cm_id, __entry->srcaddr, __entry->dstaddr,
		      __entry->tos, rdma_show_cm_event(__entry->event),
		      __entry->event, __entry->status));

/* What the consumer's handler returned for an event. */
TRACE_EVENT(cm_event_done,
	    TP_PROTO(const struct rdma_id_private *id_priv,
		     const struct rdma_cm_event *event, int result),
	    TP_ARGS(id_priv, event, result),
	    TP_STRUCT__entry(__field(u32, cm_id)
			     __field(u32, tos)
			     __field(unsigned long, event)
			     __field(int, result)
			     __array(unsigned char, srcaddr, CMA_TRACE_ADDR_LEN)
			     __array(unsigned char, dstaddr, CMA_TRACE_ADDR_LEN)),
	    TP_fast_assign(__entry->cm_id = id_priv->res.id;
			   __entry->tos = id_priv->tos;
			   __entry->event = event->event;
			   __entry->result = result;
			   cma_trace_addrs(__entry->srcaddr, __entry->dstaddr,
					   id_priv);),
	    TP_printk("cm.id=%u src=%pISpc dst=%pISpc tos=%u %s consumer returns %d",
		      __entry->cm_id, __entry->srcaddr, __entry->dstaddr,
		      __entry->tos, rdma_show_cm_event(__entry->event),
		      __entry->result));

/* A device coming to or going from rdma_cm's client. */
DECLARE_EVENT_CLASS(cma_client_class,
		    TP_PROTO(const struct ib_device *device),
		    TP_ARGS(device),
		    TP_STRUCT__entry(__string(name, device->name)),
		    TP_fast_assign(__assign_str(name, device->name);),
		    TP_printk("device name=%s", __get_str(name)));

DEFINE_EVENT(cma_client_class, cm_add_one,
	     TP_PROTO(const struct ib_device *device), TP_ARGS(device));
DEFINE_EVENT(cma_client_class, cm_remove_one,
	     TP_PROTO(const struct ib_device *device), TP_ARGS(device));

#endif /* _CMA_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE cma_trace

#include <trace/define_trace.h>
