/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The fake provider the KUnit suites of iw_cm and rdma_cm share: a bare
 * struct ib_device that is never registered with ib_core, with two ports
 * of one transport and, for iWARP, the QP reference operations iw_cm
 * calls (iw_get_qp, iw_add_ref, iw_rem_ref).  Each QP counts the
 * references iw_cm holds and the state changes it asked for, so that a
 * suite can check that every reference comes back.  A suite embeds
 * struct kfake_dev and adds its own connection operations.
 */
#ifndef RDMA_KUNIT_FAKE_H
#define RDMA_KUNIT_FAKE_H

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/irqflags.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>

#define KFAKE_NR_QP	4

struct kfake_qp {
	struct ib_qp ibqp;
	atomic_t refs;			/* iw_add_ref()s not yet dropped */
	atomic_t n_modify;		/* modify_qp() calls */
	int last_state;			/* the last IB_QP_STATE asked, or -1 */
};

struct kfake_dev {
	struct ib_device ibdev;
	struct ib_port_data port_data[2];	/* port 1; [0] is unused */
	struct kfake_qp qp[KFAKE_NR_QP];	/* QP number = index */
	/* iw_get_qp()/iw_add_ref() called with interrupts enabled */
	atomic_t n_unlocked_qp_op;
};

static inline struct kfake_dev *to_kfake(struct ib_device *ibdev)
{
	return container_of(ibdev, struct kfake_dev, ibdev);
}

static inline struct kfake_qp *to_kfake_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct kfake_qp, ibqp);
}

/* iw_cm looks QPs up and references them under the id's IRQ-safe lock. */
static inline void kfake_note_qp_op(struct ib_device *ibdev)
{
	if (!irqs_disabled())
		atomic_inc(&to_kfake(ibdev)->n_unlocked_qp_op);
}

static inline struct ib_qp *kfake_get_qp(struct ib_device *ibdev, int qpn)
{
	kfake_note_qp_op(ibdev);
	if (qpn < 0 || qpn >= KFAKE_NR_QP)
		return NULL;
	return &to_kfake(ibdev)->qp[qpn].ibqp;
}

static inline void kfake_add_ref(struct ib_qp *ibqp)
{
	kfake_note_qp_op(ibqp->device);
	atomic_inc(&to_kfake_qp(ibqp)->refs);
}

/* Providers may sleep here (siw frees the QP). */
static inline void kfake_rem_ref(struct ib_qp *ibqp)
{
	might_sleep();
	atomic_dec(&to_kfake_qp(ibqp)->refs);
}

/* For a suite's modify_qp(): note what was asked. */
static inline void kfake_qp_modified(struct ib_qp *ibqp,
				     const struct ib_qp_attr *attr, int mask)
{
	struct kfake_qp *qp = to_kfake_qp(ibqp);

	if (mask & IB_QP_STATE)
		qp->last_state = attr->qp_state;
	atomic_inc(&qp->n_modify);
}

/**
 * kfake_init - Set up a fake device.
 * @fd: zeroed memory
 * @name: the device's name
 * @cap_flags: the ports' RDMA_CORE_PORT_* type; an iWARP device also
 *	gets the QP reference operations and needs no port mapper
 */
static inline void kfake_init(struct kfake_dev *fd, const char *name,
			      u32 cap_flags)
{
	int i;

	fd->ibdev.dev.init_name = name;
	fd->port_data[0].immutable.core_cap_flags = cap_flags;
	fd->port_data[1].immutable.core_cap_flags = cap_flags;
	fd->ibdev.port_data = fd->port_data;
	if (cap_flags == RDMA_CORE_PORT_IWARP) {
		fd->ibdev.node_type = RDMA_NODE_RNIC;
		fd->ibdev.iw_driver_flags = IW_F_NO_PORT_MAP;
		fd->ibdev.ops.iw_get_qp = kfake_get_qp;
		fd->ibdev.ops.iw_add_ref = kfake_add_ref;
		fd->ibdev.ops.iw_rem_ref = kfake_rem_ref;
	}
	for (i = 0; i < KFAKE_NR_QP; i++) {
		fd->qp[i].ibqp.device = &fd->ibdev;
		fd->qp[i].ibqp.real_qp = &fd->qp[i].ibqp;
		fd->qp[i].ibqp.qp_type = IB_QPT_RC;
		fd->qp[i].ibqp.qp_num = i;
		fd->qp[i].last_state = -1;
	}
}

/* At the end of a test: every QP reference iw_cm took is back. */
static inline void kfake_expect_refs_back(struct kunit *test,
					  struct kfake_dev *fd)
{
	int i;

	for (i = 0; i < KFAKE_NR_QP; i++)
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&fd->qp[i].refs), 0,
				    "qp %d", i);
}

#endif /* RDMA_KUNIT_FAKE_H */
