// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The id state machine: which state changes exist, and the
 * compare-and-exchange every state change goes through.
 */
#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/lockdep.h>
#include <linux/spinlock.h>

#include "cma_priv.h"

#define S(state)	BIT(RDMA_CM_##state)

/*
 * Teardown can start in every state: device removal in every state but
 * the two teardown ones, destruction in every state but its own.
 */
#define CMA_TEARDOWN	(S(DEVICE_REMOVAL) | S(DESTROYING))

/*
 * For each state, the states an id may move to from it.  Failed calls
 * move back where they came from, hence the reverse edges.  Passive ids
 * are born in CONNECT and per-device listeners in ADDR_BOUND through
 * cma_state_init(), not through a transition.
 */
static const u16 cma_next_states[RDMA_CM_NR_STATES] = {
	/* rdma_bind_addr(), also implied by resolve_addr and listen */
	[RDMA_CM_IDLE]		 = S(ADDR_BOUND) | CMA_TEARDOWN,
	/* resolve_addr; listen; failed bind back to IDLE */
	[RDMA_CM_ADDR_BOUND]	 = S(ADDR_QUERY) | S(LISTEN) | S(IDLE) |
				   CMA_TEARDOWN,
	/* the resolution ends, or fails synchronously */
	[RDMA_CM_ADDR_QUERY]	 = S(ADDR_RESOLVED) | S(ADDR_BOUND) |
				   CMA_TEARDOWN,
	/* resolve_route; set_ib_path; an asynchronous resolution error */
	[RDMA_CM_ADDR_RESOLVED]	 = S(ROUTE_QUERY) | S(ROUTE_RESOLVED) |
				   S(ADDR_BOUND) | CMA_TEARDOWN,
	/* the route query ends, or fails */
	[RDMA_CM_ROUTE_QUERY]	 = S(ROUTE_RESOLVED) | S(ADDR_RESOLVED) |
				   CMA_TEARDOWN,
	/* connect; a failed set_ib_path goes back */
	[RDMA_CM_ROUTE_RESOLVED] = S(CONNECT) | S(ADDR_RESOLVED) |
				   CMA_TEARDOWN,
	/* IB DREQ, DREP or DREQ timeout; failed connect goes back */
	[RDMA_CM_CONNECT]	 = S(DISCONNECT) | S(ROUTE_RESOLVED) |
				   CMA_TEARDOWN,
	[RDMA_CM_DISCONNECT]	 = CMA_TEARDOWN,
	/* failed listen goes back */
	[RDMA_CM_LISTEN]	 = S(ADDR_BOUND) | CMA_TEARDOWN,
	/* the consumer (or rdma_cm for it) destroys the id */
	[RDMA_CM_DEVICE_REMOVAL] = S(DESTROYING),
	[RDMA_CM_DESTROYING]	 = 0,
};

#undef S

static const char * const cma_state_names[RDMA_CM_NR_STATES] = {
	[RDMA_CM_IDLE]		 = "IDLE",
	[RDMA_CM_ADDR_QUERY]	 = "ADDR_QUERY",
	[RDMA_CM_ADDR_RESOLVED]	 = "ADDR_RESOLVED",
	[RDMA_CM_ROUTE_QUERY]	 = "ROUTE_QUERY",
	[RDMA_CM_ROUTE_RESOLVED] = "ROUTE_RESOLVED",
	[RDMA_CM_CONNECT]	 = "CONNECT",
	[RDMA_CM_DISCONNECT]	 = "DISCONNECT",
	[RDMA_CM_ADDR_BOUND]	 = "ADDR_BOUND",
	[RDMA_CM_LISTEN]	 = "LISTEN",
	[RDMA_CM_DEVICE_REMOVAL] = "DEVICE_REMOVAL",
	[RDMA_CM_DESTROYING]	 = "DESTROYING",
};

static bool cma_state_valid(enum rdma_cm_state state)
{
	return (unsigned int)state < RDMA_CM_NR_STATES;
}

/**
 * cma_state_legal - Whether the state machine has an edge @from -> @to.
 * @from: current state
 * @to: new state
 *
 * Return: true for a transition some path of rdma_cm may take.
 */
bool cma_state_legal(enum rdma_cm_state from, enum rdma_cm_state to)
{
	if (!cma_state_valid(from) || !cma_state_valid(to))
		return false;
	return cma_next_states[from] & BIT(to);
}

/**
 * cma_state_name - Name of a state, as iproute2 prints it.
 * @state: the state
 *
 * Return: a static string, "UNKNOWN" outside the enum.
 */
const char *cma_state_name(enum rdma_cm_state state)
{
	return cma_state_valid(state) ? cma_state_names[state] : "UNKNOWN";
}

/**
 * cma_state_init - Set the state of an id nobody else can see yet.
 * @id_priv: a new id, not yet published to any list, device or handler
 * @state: its first state: IDLE, ADDR_BOUND (per-device listener) or
 *	CONNECT (passive id)
 */
void cma_state_init(struct rdma_id_private *id_priv, enum rdma_cm_state state)
{
	WARN_ON_ONCE(state != RDMA_CM_IDLE && state != RDMA_CM_ADDR_BOUND &&
		     state != RDMA_CM_CONNECT);
	WRITE_ONCE(id_priv->state, state);
}

static void cma_assert_transition_locks(struct rdma_id_private *id_priv,
					enum rdma_cm_state from,
					enum rdma_cm_state to)
{
	/*
	 * Handlers rely on CONNECT being stable while they hold
	 * handler_mutex; the teardown states are set under it as well.
	 */
	if (from == RDMA_CM_CONNECT || to == RDMA_CM_CONNECT ||
	    to == RDMA_CM_DEVICE_REMOVAL || to == RDMA_CM_DESTROYING)
		lockdep_assert_held(&id_priv->handler_mutex);
}

/**
 * cma_comp_exch - Move an id from one state to another, if it is in it.
 * @id_priv: the id
 * @from: the state the id must be in
 * @to: the state to move it to
 *
 * The check and the change are one step under @id_priv->lock.  Changes
 * into or out of CONNECT, and into the teardown states, also need the
 * caller to hold @id_priv->handler_mutex.
 *
 * Return: 0 if the id was in @from and is now in @to; -EINVAL if it was
 * in another state (a call in the wrong state, or a race lost to another
 * transition) and nothing changed; -EPERM, with a warning, if the state
 * machine has no such transition (a bug in rdma_cm).
 */
int cma_comp_exch(struct rdma_id_private *id_priv, enum rdma_cm_state from,
		  enum rdma_cm_state to)
{
	unsigned long flags;
	int ret = -EINVAL;

	if (WARN_ON_ONCE(!cma_state_legal(from, to)))
		return -EPERM;
	cma_assert_transition_locks(id_priv, from, to);

	spin_lock_irqsave(&id_priv->lock, flags);
	if (id_priv->state == from) {
		WRITE_ONCE(id_priv->state, to);
		ret = 0;
	}
	spin_unlock_irqrestore(&id_priv->lock, flags);
	return ret;
}

/**
 * cma_exch - Move an id to a teardown state, whatever its state.
 * @id_priv: the id; the caller holds its handler_mutex
 * @to: RDMA_CM_DEVICE_REMOVAL or RDMA_CM_DESTROYING
 *
 * The first caller to move an id into teardown owns cancelling what the
 * previous state had started; later callers see the state returned and
 * do nothing.
 *
 * Return: the state before the call.  The state is unchanged when the
 * state machine has no edge from it to @to (already destroying, or
 * already removed when @to is DEVICE_REMOVAL); a @to that is not a
 * teardown state warns and changes nothing.
 */
enum rdma_cm_state cma_exch(struct rdma_id_private *id_priv,
			    enum rdma_cm_state to)
{
	enum rdma_cm_state old;
	unsigned long flags;

	if (WARN_ON_ONCE(to != RDMA_CM_DEVICE_REMOVAL &&
			 to != RDMA_CM_DESTROYING))
		return READ_ONCE(id_priv->state);
	lockdep_assert_held(&id_priv->handler_mutex);

	spin_lock_irqsave(&id_priv->lock, flags);
	old = id_priv->state;
	if (cma_state_legal(old, to))
		WRITE_ONCE(id_priv->state, to);
	spin_unlock_irqrestore(&id_priv->lock, flags);
	return old;
}

/**
 * cma_set_transport - Choose the transport of an id, once.
 * @id_priv: the id, being attached to a device port
 * @xprt: the transport of that port
 *
 * Return: 0 if the id had no transport or already had @xprt; -EBUSY if
 * it has another one (an id never changes transport).
 */
int cma_set_transport(struct rdma_id_private *id_priv,
		      const struct cma_transport_ops *xprt)
{
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&id_priv->lock, flags);
	if (!id_priv->xprt)
		id_priv->xprt = xprt;
	else if (id_priv->xprt != xprt)
		ret = -EBUSY;
	spin_unlock_irqrestore(&id_priv->lock, flags);
	return ret;
}
