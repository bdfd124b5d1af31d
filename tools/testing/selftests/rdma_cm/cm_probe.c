// SPDX-License-Identifier: GPL-2.0
/*
 * cm_probe: the connection outcomes rdmacm-utils do not show, through
 * librdmacm.
 *
 * usage: cm_probe -s ADDR -p PORT [-d DATA] [-T MS]
 *          connect (RC, a QP of its own, private data DATA) and print
 *          the first event that ends the attempt
 *        cm_probe -l -p PORT [-r DATA]
 *          listen on the wildcard address, reject the first request
 *          with private data DATA (default none), print it and exit
 *        cm_probe -s ADDR -p PORT -A accept|reject
 *          listen on PORT, connect to ADDR:PORT, and once the request
 *          is there answer it on the wrong side: accept or reject the
 *          ACTIVE id while its request is outstanding; print what that
 *          returned and how long destroying the active id then took
 *        cm_probe -s ADDR -p PORT -L
 *          bind a second id to ADDR:PORT, which the first holds, then
 *          resolve 127.0.0.1 and its route and connect (no QP) from it;
 *          print each call's result or event ("CALL: -ERRNO (TEXT)"
 *          or "CALL: 0")
 *        cm_probe -s ADDR -J MADDR
 *          bind a UD id to ADDR and join the multicast group MADDR
 *          without a QP; print what the call returned
 *          ("rdma_join_multicast: 0" or "...: -ERRNO (TEXT)") and the
 *          join's event
 *        cm_probe -s ADDR -E N
 *          bind N RC ids (at most 16) to ADDR with port 0, one after
 *          the other, all kept; print each bind's result and, after a
 *          success, "port P", the ephemeral port it got
 *        cm_probe -s ADDR -p PORT -Q N
 *          with net.rdma_ucm.max_events set to N by the caller: listen
 *          on PORT, then fill the channel with N unreported
 *          ADDR_RESOLVED events (each id resolves ADDR on a second
 *          channel and moves here with its event); print what a resolve
 *          on a new id returns then ("resolve at the cap: ..."), what a
 *          connection to the listener gets ("connect at the cap:
 *          EVENT" or "...: no answer"), what the resolve returns after
 *          GET_EVENT took one event ("resolve below the cap: ..."), and
 *          the count of each kind of event the channel then gave
 *          ("ADDR_RESOLVED N", "CONNECT_REQUEST N", "other N")
 *        cm_probe -F
 *          write SET_OPTION (TOS) and JOIN_IP_MCAST for an id number
 *          nobody has, with a bad value or answer pointer, and print
 *          what each returned ("set_option: -ERRNO (TEXT)", "join: ...")
 *        cm_probe -s ADDR -p PORT -B
 *          listen on PORT with backlog 1, connect to ADDR:PORT from a
 *          second channel and, with the request unreported, LISTEN
 *          again ("rdma_listen again: ..."); connect a second time and
 *          print what that connection got within 5 s ("second connect:
 *          EVENT" or "second connect: no answer"), then "requests
 *          queued: N", the requests the listener held
 *        cm_probe -s ADDR -p PORT -O
 *          connect a QP of its own to its own listener on PORT ("qp N"),
 *          then run a second process, "cm_probe -s ADDR -p PORT+1 -n N";
 *          then SEND on the first connection ("send on the first
 *          connection: ok"), print any event that came meanwhile and
 *          disconnect
 *        cm_probe -s ADDR -M N
 *          in a memory cgroup of its own (cgroup v2): create N ids,
 *          resolve ADDR on each without reading the events, and once
 *          the cgroup's slab_unreclaimable stops growing read them all;
 *          print "ADDR_RESOLVED N", then "charged per event: B" and
 *          "released per event: B", the growth of slab_unreclaimable
 *          while the events were queued and its fall once they were
 *          read, in bytes per event
 *        cm_probe -s ADDR -p PORT -n QPN
 *          with a listener of its own on PORT, connect an id without a
 *          QP naming QPN, and accept a request (from an id of its own
 *          with a QP) naming QPN; print what each call returned
 *
 * Each event is one line:
 *   event NAME status N pdata_len L pdata "TEXT"
 * and a connect the call itself refuses "rdma_connect: -ERRNO (TEXT)".
 * TEXT being the private data up to its first NUL, non-printing bytes as
 * '.'.  Exit status 0 when the run went as far as it could, 1 on an
 * error of the tool itself (printed), 2 on a usage error.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_cma_abi.h>
#include <rdma/rdma_verbs.h>

static struct rdma_event_channel *chan;

static void print_event(const struct rdma_cm_event *ev)
{
	const unsigned char *p = ev->param.conn.private_data;
	unsigned int len = ev->param.conn.private_data_len, i;

	printf("event %s status %d pdata_len %u pdata \"",
	       rdma_event_str(ev->event), ev->status, p ? len : 0);
	for (i = 0; p && i < len && p[i]; i++)
		putchar(isprint(p[i]) ? p[i] : '.');
	printf("\"\n");
	fflush(stdout);
}

/* The next event of channel @ch, on any id; NULL (printed) on an error. */
static struct rdma_cm_event *next_event_on(struct rdma_event_channel *ch)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ch, &ev)) {
		printf("error: rdma_get_cm_event: %s\n", strerror(errno));
		return NULL;
	}
	print_event(ev);
	return ev;
}

static struct rdma_cm_event *next_event(void)
{
	return next_event_on(chan);
}

/* Wait up to @ms for an event on @ch, without taking it. */
static bool wait_event_on(struct rdma_event_channel *ch, int ms)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

/* Wait for @want on the next event of @ch; false if another one came. */
static bool expect_event_on(struct rdma_event_channel *ch,
			    enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev = next_event_on(ch);
	bool ok;

	if (!ev)
		return false;
	ok = ev->event == want;
	rdma_ack_cm_event(ev);
	return ok;
}

/* Wait for @want on the next event; false if another one came. */
static bool expect_event(enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev = next_event();
	bool ok;

	if (!ev)
		return false;
	ok = ev->event == want;
	rdma_ack_cm_event(ev);
	return ok;
}

/* A new id of @ps; false (printed) on an error. */
static bool new_id(enum rdma_port_space ps, struct rdma_cm_id **id)
{
	if (rdma_create_id(chan, id, NULL, ps)) {
		printf("error: rdma_create_id: %s\n", strerror(errno));
		return false;
	}
	return true;
}

static struct rdma_cm_id *listener;

static int listen_backlog(const char *port, int backlog)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(atoi(port)) };

	if (rdma_create_id(chan, &listener, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listener, (struct sockaddr *)&sin) ||
	    rdma_listen(listener, backlog)) {
		printf("error: listen: %s\n", strerror(errno));
		return 1;
	}
	printf("listening on port %s\n", port);
	fflush(stdout);
	return 0;
}

static int listen_on(const char *port)
{
	return listen_backlog(port, 4);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/*
 * -A: with the request at our own listener, accept or reject the active
 * id.  Both must fail or at least leave nothing behind: the destroy that
 * follows must not wait for a request message the CM still holds.
 */
static int answer_active(struct rdma_cm_id *id, const char *what)
{
	struct rdma_conn_param param = { .responder_resources = 1,
					 .initiator_depth = 1 };
	struct rdma_cm_event *ev;
	struct rdma_cm_id *req;
	long t0;
	int ret;

	ev = next_event();
	if (!ev)
		return 1;
	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		rdma_ack_cm_event(ev);
		printf("error: no connect request\n");
		return 1;
	}
	req = ev->id;
	rdma_ack_cm_event(ev);
	if (!strcmp(what, "accept"))
		ret = rdma_accept(id, &param);
	else
		ret = rdma_reject(id, NULL, 0);
	printf("%s on the active id: %d (%s)\n", what, ret ? -errno : 0,
	       strerror(ret ? errno : 0));
	t0 = now_ms();
	rdma_destroy_qp(id);
	rdma_destroy_id(id);
	printf("destroy of the active id: %ld ms\n", now_ms() - t0);
	fflush(stdout);
	rdma_reject(req, NULL, 0);
	rdma_destroy_id(req);
	rdma_destroy_id(listener);
	return 0;
}

static int run_client(const char *addr, const char *port, const char *data,
		      int tmo, const char *answer)
{
	struct rdma_conn_param param = { .retry_count = 1,
					 .responder_resources = 1,
					 .initiator_depth = 1 };
	struct ibv_qp_init_attr qpa = { .qp_type = IBV_QPT_RC,
					.cap = { .max_send_wr = 1,
						 .max_recv_wr = 1,
						 .max_send_sge = 1,
						 .max_recv_sge = 1 } };
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM };
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct addrinfo *ai;

	if (answer && listen_on(port))
		return 1;
	if (getaddrinfo(addr, port, &hints, &ai)) {
		printf("error: cannot resolve %s:%s\n", addr, port);
		return 1;
	}
	if (!new_id(RDMA_PS_TCP, &id))
		return 1;
	if (rdma_resolve_addr(id, NULL, ai->ai_addr, tmo)) {
		printf("error: rdma_resolve_addr: %s\n", strerror(errno));
		return 1;
	}
	freeaddrinfo(ai);
	if (!expect_event(RDMA_CM_EVENT_ADDR_RESOLVED))
		return 0;
	if (rdma_resolve_route(id, tmo)) {
		printf("error: rdma_resolve_route: %s\n", strerror(errno));
		return 1;
	}
	if (!expect_event(RDMA_CM_EVENT_ROUTE_RESOLVED))
		return 0;
	/* iWARP needs a QP to connect; the default PD of the device */
	if (rdma_create_qp(id, NULL, &qpa)) {
		printf("error: rdma_create_qp: %s\n", strerror(errno));
		return 1;
	}
	param.private_data = data;
	param.private_data_len = data ? strlen(data) + 1 : 0;
	/* an outcome, not a tool error: siw connects its TCP in the call */
	if (rdma_connect(id, &param)) {
		printf("rdma_connect: %d (%s)\n", -errno, strerror(errno));
		goto out;
	}
	if (answer)
		return answer_active(id, answer);
	ev = next_event();
	if (!ev)
		return 1;
	if (ev->event == RDMA_CM_EVENT_ESTABLISHED) {
		rdma_ack_cm_event(ev);
		rdma_disconnect(id);
		expect_event(RDMA_CM_EVENT_DISCONNECTED);
	} else {
		rdma_ack_cm_event(ev);
	}
out:
	rdma_destroy_qp(id);
	rdma_destroy_id(id);
	return 0;
}

static int get_addr_port(const char *addr, const char *port,
			 struct addrinfo **ai)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_DGRAM };

	if (getaddrinfo(addr, port, &hints, ai)) {
		printf("error: cannot resolve %s\n", addr);
		return 1;
	}
	return 0;
}

static int get_addr(const char *addr, struct addrinfo **ai)
{
	return get_addr_port(addr, "0", ai);
}

/* Print what a call returned; true if it succeeded. */
static bool outcome(const char *call, int ret)
{
	if (ret)
		printf("%s: %d (%s)\n", call, -errno, strerror(errno));
	else
		printf("%s: 0\n", call);
	fflush(stdout);
	return !ret;
}

/* A new id of @ps bound to @addr; false (printed) on an error. */
static bool bound_id(enum rdma_port_space ps, struct sockaddr *addr,
		     struct rdma_cm_id **id)
{
	if (!new_id(ps, id))
		return false;
	if (rdma_bind_addr(*id, addr)) {
		printf("error: rdma_bind_addr: %s\n", strerror(errno));
		rdma_destroy_id(*id);
		return false;
	}
	return true;
}

/*
 * -L: the failed bind leaves ADDR's interface in the id's device
 * address, on stock as here, so on RoCE the loopback route resolves.
 * The connect must then not send a request whose source GID the path
 * does not name: rxe cannot route it and its QP1 stops receiving.
 */
static int run_stale(const char *addr, const char *port)
{
	struct rdma_conn_param param = { .retry_count = 1,
					 .responder_resources = 1,
					 .initiator_depth = 1 };
	struct rdma_cm_id *holder, *id;
	struct addrinfo *src, *lo;
	int ret = 1;

	if (get_addr_port(addr, port, &src))
		return 1;
	if (get_addr_port("127.0.0.1", port, &lo))
		goto out_src;
	if (!bound_id(RDMA_PS_TCP, src->ai_addr, &holder))
		goto out_lo;
	if (!new_id(RDMA_PS_TCP, &id))
		goto out_holder;
	ret = 0;
	outcome("rdma_bind_addr", rdma_bind_addr(id, src->ai_addr));
	if (!outcome("rdma_resolve_addr",
		     rdma_resolve_addr(id, NULL, lo->ai_addr, 2000)) ||
	    !expect_event(RDMA_CM_EVENT_ADDR_RESOLVED))
		goto out_id;
	if (!outcome("rdma_resolve_route", rdma_resolve_route(id, 2000)) ||
	    !expect_event(RDMA_CM_EVENT_ROUTE_RESOLVED))
		goto out_id;
	outcome("rdma_connect", rdma_connect(id, &param));
out_id:
	rdma_destroy_id(id);
out_holder:
	rdma_destroy_id(holder);
out_lo:
	freeaddrinfo(lo);
out_src:
	freeaddrinfo(src);
	return ret;
}

static int run_join(const char *addr, const char *maddr)
{
	struct addrinfo *src, *group;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	int ret = 1;

	if (get_addr(addr, &src))
		return 1;
	if (get_addr(maddr, &group))
		goto out_src;
	if (!bound_id(RDMA_PS_UDP, src->ai_addr, &id))
		goto out_group;
	ret = 0;
	/* an outcome, not a tool error: iWARP has no multicast */
	if (!outcome("rdma_join_multicast",
		     rdma_join_multicast(id, group->ai_addr, NULL)))
		goto out_id;
	ev = next_event();
	if (!ev) {
		ret = 1;
		goto out_id;
	}
	if (ev->event == RDMA_CM_EVENT_MULTICAST_JOIN) {
		rdma_ack_cm_event(ev);
		if (rdma_leave_multicast(id, group->ai_addr)) {
			printf("error: rdma_leave_multicast: %s\n", strerror(errno));
			ret = 1;
		}
	} else {
		rdma_ack_cm_event(ev);
	}
out_id:
	rdma_destroy_id(id);
out_group:
	freeaddrinfo(group);
out_src:
	freeaddrinfo(src);
	return ret;
}

/*
 * -E: ids bound to one address with port 0 and nothing resolved yet
 * have no four-tuple to tell them apart: each needs a port of its own.
 */
static int run_ephemeral(const char *addr, int n)
{
	struct rdma_cm_id *ids[16];
	struct addrinfo *src;
	int i, ret = 0;

	if (get_addr(addr, &src))
		return 1;
	for (i = 0; i < n; i++) {
		if (!new_id(RDMA_PS_TCP, &ids[i])) {
			ret = 1;
			break;
		}
		if (outcome("rdma_bind_addr", rdma_bind_addr(ids[i], src->ai_addr)))
			printf("port %u\n", ntohs(rdma_get_src_port(ids[i])));
	}
	while (i--)
		rdma_destroy_id(ids[i]);
	freeaddrinfo(src);
	return ret;
}

/*
 * A new RC id of channel @ch connecting to @ai, with a QP of its own (iWARP
 * needs one); false (printed) if it did not get as far as the request.
 */
static bool connect_on(struct rdma_event_channel *ch, struct addrinfo *ai,
		       struct rdma_cm_id **id)
{
	struct rdma_conn_param param = { .retry_count = 1,
					 .responder_resources = 1,
					 .initiator_depth = 1 };
	struct ibv_qp_init_attr qpa = { .qp_type = IBV_QPT_RC,
					.cap = { .max_send_wr = 1,
						 .max_recv_wr = 1,
						 .max_send_sge = 1,
						 .max_recv_sge = 1 } };

	if (rdma_create_id(ch, id, NULL, RDMA_PS_TCP)) {
		printf("error: rdma_create_id: %s\n", strerror(errno));
		return false;
	}
	if (!outcome("rdma_resolve_addr",
		     rdma_resolve_addr(*id, NULL, ai->ai_addr, 2000)) ||
	    !expect_event_on(ch, RDMA_CM_EVENT_ADDR_RESOLVED) ||
	    !outcome("rdma_resolve_route", rdma_resolve_route(*id, 2000)) ||
	    !expect_event_on(ch, RDMA_CM_EVENT_ROUTE_RESOLVED))
		return false;
	if (rdma_create_qp(*id, NULL, &qpa)) {
		printf("error: rdma_create_qp: %s\n", strerror(errno));
		return false;
	}
	return outcome("rdma_connect", rdma_connect(*id, &param));
}

/* Destroy an active id of connect_on() and its QP. */
static void destroy_active(struct rdma_cm_id *id)
{
	if (!id)
		return;
	if (id->qp)
		rdma_destroy_qp(id);
	rdma_destroy_id(id);
}

/*
 * Reject and count the connection requests the listener holds, with
 * nothing more coming after @ms.
 */
static int drain_requests(int ms)
{
	struct rdma_cm_event *ev;
	int n = 0;

	while (wait_event_on(chan, ms)) {
		ev = next_event();
		if (!ev)
			break;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			n++;
			rdma_reject(ev->id, NULL, 0);
			rdma_destroy_id(ev->id);
		}
		rdma_ack_cm_event(ev);
	}
	return n;
}

/*
 * -B: a LISTEN on an id that listens fails, and must leave the count of
 * the listener's free backlog slots alone: with its one slot taken by an
 * unreported request, a second request is refused.
 */
static int run_listen_again(const char *addr, const char *port)
{
	struct rdma_cm_id *c1 = NULL, *c2 = NULL;
	struct rdma_event_channel *cch;
	struct rdma_cm_event *ev;
	struct addrinfo *ai;
	int ret = 1;

	if (get_addr_port(addr, port, &ai))
		return 1;
	if (listen_backlog(port, 1))
		goto out_ai;
	cch = rdma_create_event_channel();
	if (!cch) {
		printf("error: rdma_create_event_channel: %s\n", strerror(errno));
		goto out_listener;
	}
	if (!connect_on(cch, ai, &c1))
		goto out;
	if (!wait_event_on(chan, 10000)) {
		printf("error: no connect request\n");
		goto out;
	}
	outcome("rdma_listen again", rdma_listen(listener, 1));
	if (!connect_on(cch, ai, &c2))
		goto out;
	ev = wait_event_on(cch, 5000) ? next_event_on(cch) : NULL;
	if (ev) {
		printf("second connect: %s\n", rdma_event_str(ev->event));
		rdma_ack_cm_event(ev);
	} else {
		printf("second connect: no answer\n");
	}
	printf("requests queued: %d\n", drain_requests(1000));
	fflush(stdout);
	ret = 0;
out:
	destroy_active(c2);
	destroy_active(c1);
	rdma_destroy_event_channel(cch);
out_listener:
	rdma_destroy_id(listener);
out_ai:
	freeaddrinfo(ai);
	return ret;
}

/*
 * -Q: at the cap on a file's unreported events, what would add one more
 * is refused and says so; no event already queued is lost.
 */
static int run_cap(const char *addr, const char *port, int n)
{
	int resolved = 0, requests = 0, other = 0, i, ret = 1;
	struct rdma_cm_id *ids[64] = {}, *x = NULL, *c = NULL;
	struct rdma_event_channel *b;
	struct rdma_cm_event *ev;
	struct addrinfo *ai, *dst;

	if (get_addr_port(addr, port, &ai))
		return 1;
	if (get_addr(addr, &dst))
		goto out_ai;
	if (listen_on(port))
		goto out_dst;
	b = rdma_create_event_channel();
	if (!b) {
		printf("error: rdma_create_event_channel: %s\n", strerror(errno));
		goto out_listener;
	}
	for (i = 0; i < n; i++) {
		if (rdma_create_id(b, &ids[i], NULL, RDMA_PS_TCP) ||
		    rdma_resolve_addr(ids[i], NULL, dst->ai_addr, 2000)) {
			printf("error: id %d: %s\n", i, strerror(errno));
			goto out;
		}
		if (!wait_event_on(b, 10000)) {
			printf("error: id %d: no event\n", i);
			goto out;
		}
		if (rdma_migrate_id(ids[i], chan)) {
			printf("error: rdma_migrate_id: %s\n", strerror(errno));
			goto out;
		}
	}
	if (!new_id(RDMA_PS_TCP, &x))
		goto out;
	outcome("resolve at the cap",
		rdma_resolve_addr(x, NULL, dst->ai_addr, 2000));
	if (connect_on(b, ai, &c)) {
		ev = wait_event_on(b, 5000) ? next_event_on(b) : NULL;
		if (ev) {
			printf("connect at the cap: %s\n",
			       rdma_event_str(ev->event));
			rdma_ack_cm_event(ev);
		} else {
			printf("connect at the cap: no answer\n");
		}
	}
	ev = next_event();
	if (!ev)
		goto out;
	resolved += ev->event == RDMA_CM_EVENT_ADDR_RESOLVED;
	rdma_ack_cm_event(ev);
	outcome("resolve below the cap",
		rdma_resolve_addr(x, NULL, dst->ai_addr, 2000));
	while (wait_event_on(chan, 2000)) {
		ev = next_event();
		if (!ev)
			goto out;
		if (ev->event == RDMA_CM_EVENT_ADDR_RESOLVED) {
			resolved++;
		} else if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			requests++;
			rdma_reject(ev->id, NULL, 0);
			rdma_destroy_id(ev->id);
		} else {
			other++;
		}
		rdma_ack_cm_event(ev);
	}
	printf("ADDR_RESOLVED %d\nCONNECT_REQUEST %d\nother %d\n", resolved,
	       requests, other);
	fflush(stdout);
	ret = 0;
out:
	destroy_active(c);
	if (x)
		rdma_destroy_id(x);
	for (i = 0; i < n; i++)
		if (ids[i])
			rdma_destroy_id(ids[i]);
	rdma_destroy_event_channel(b);
out_listener:
	rdma_destroy_id(listener);
out_dst:
	freeaddrinfo(dst);
out_ai:
	freeaddrinfo(ai);
	return ret;
}

/* slab_unreclaimable of our cgroup (v2, mounted on /sys/fs/cgroup); -1 */
static long long cgroup_slab(void)
{
	char path[512], line[256];
	long long v = -1;
	FILE *f;

	f = fopen("/proc/self/cgroup", "r");
	if (!f)
		return -1;
	/* v2 only: "0::/PATH" */
	if (!fgets(line, sizeof(line), f) || strncmp(line, "0::", 3)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	line[strcspn(line, "\n")] = 0;
	snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.stat", line + 3);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "slab_unreclaimable %lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/*
 * The cgroup's slab once it has not changed for a second (the resolves
 * complete in a kworker, at their own pace), or after 60 s.
 */
static long long settled_slab(void)
{
	long long v = cgroup_slab(), last = v;
	int same = 0, i;

	for (i = 0; i < 600 && same < 5; i++) {
		usleep(200000);
		v = cgroup_slab();
		same = v == last ? same + 1 : 0;
		last = v;
	}
	return v;
}

static int run_charge(const char *addr, int n)
{
	long long before, queued, after;
	struct rdma_cm_id **ids;
	struct rdma_cm_event *ev;
	struct addrinfo *dst;
	int i, resolved = 0, ret = 1;

	if (get_addr(addr, &dst))
		return 1;
	ids = calloc(n, sizeof(*ids));
	if (!ids)
		goto out_dst;
	for (i = 0; i < n; i++)
		if (!new_id(RDMA_PS_TCP, &ids[i]))
			goto out;
	before = settled_slab();
	if (before < 0) {
		printf("error: no memory.stat of our cgroup\n");
		goto out;
	}
	for (i = 0; i < n; i++)
		if (rdma_resolve_addr(ids[i], NULL, dst->ai_addr, 2000)) {
			printf("error: resolve %d: %s\n", i, strerror(errno));
			goto out;
		}
	queued = settled_slab();
	while (resolved < n && wait_event_on(chan, 10000)) {
		if (rdma_get_cm_event(chan, &ev)) {
			printf("error: rdma_get_cm_event: %s\n",
			       strerror(errno));
			goto out;
		}
		resolved += ev->event == RDMA_CM_EVENT_ADDR_RESOLVED;
		rdma_ack_cm_event(ev);
	}
	after = settled_slab();
	printf("ADDR_RESOLVED %d\n", resolved);
	printf("charged per event: %lld\n", (queued - before) / n);
	printf("released per event: %lld\n", (queued - after) / n);
	fflush(stdout);
	ret = 0;
out:
	for (i = 0; i < n; i++)
		if (ids[i])
			rdma_destroy_id(ids[i]);
	free(ids);
out_dst:
	freeaddrinfo(dst);
	return ret;
}

/*
 * Write raw command @cmd, @len bytes with its header, to the channel;
 * 0 or -errno.
 */
static int raw_cmd(void *cmd, size_t len, __u32 op, __u16 out)
{
	struct ucma_abi_cmd_hdr *hdr = cmd;

	hdr->cmd = op;
	hdr->in = len - sizeof(*hdr);
	hdr->out = out;
	return write(chan->fd, cmd, len) == (ssize_t)len ? 0 : -errno;
}

/*
 * -F: SET_OPTION and the joins touch user memory before they look the
 * id up, as device removal waits for a command holding an id, and a
 * page fault on user memory may take as long as user space likes.  With
 * an unknown id and a bad pointer the copy's EFAULT comes first.
 */
static int run_copy_first(void)
{
	struct ucma_abi_set_option opt = { .optval = 8, .id = ~0U,
					   .level = RDMA_OPTION_ID,
					   .optname = RDMA_OPTION_ID_TOS,
					   .optlen = 1 };
	struct ucma_abi_join_ip_mcast join = { .response = 8, .id = ~0U };
	struct sockaddr_in *sin = (struct sockaddr_in *)&join.addr;
	int ret;

	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(0xef010103);	/* 239.1.1.3 */
	ret = raw_cmd(&opt, sizeof(opt), UCMA_CMD_SET_OPTION, 0);
	printf("set_option: %d (%s)\n", ret, strerror(-ret));
	ret = raw_cmd(&join, sizeof(join), UCMA_CMD_JOIN_IP_MCAST,
		      sizeof(struct ucma_abi_create_id_resp));
	printf("join: %d (%s)\n", ret, strerror(-ret));
	fflush(stdout);
	return 0;
}

/*
 * An RC QP of @id, with CQs of its own in the device's default PD; 0 or
 * -1 (errno).  A fresh attribute each time: librdmacm writes the CQs it
 * made into it.
 */
static int create_rc_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr qpa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return rdma_create_qp(id, NULL, &qpa);
}

/* An id resolved to @ai, its route too; false (printed) on an error. */
static bool resolved_id(struct addrinfo *ai, struct rdma_cm_id **id)
{
	if (!new_id(RDMA_PS_TCP, id))
		return false;
	if (rdma_resolve_addr(*id, NULL, ai->ai_addr, 2000) ||
	    !expect_event(RDMA_CM_EVENT_ADDR_RESOLVED) ||
	    rdma_resolve_route(*id, 2000) ||
	    !expect_event(RDMA_CM_EVENT_ROUTE_RESOLVED)) {
		printf("error: resolve: %s\n", strerror(errno));
		rdma_destroy_id(*id);
		return false;
	}
	return true;
}

/* Print the next event and acknowledge it; false on an error. */
static bool show_event(void)
{
	struct rdma_cm_event *ev = next_event();

	if (!ev)
		return false;
	rdma_ack_cm_event(ev);
	return true;
}

/* An id's QP, if it has one, and the id. */
static void destroy_conn(struct rdma_cm_id *id)
{
	if (id->qp)
		rdma_destroy_qp(id);
	rdma_destroy_id(id);
}

/* The next event, which must be a request; its id, or NULL (printed). */
static struct rdma_cm_id *next_request(void)
{
	struct rdma_cm_event *ev = next_event();
	struct rdma_cm_id *req;

	if (!ev)
		return NULL;
	req = ev->event == RDMA_CM_EVENT_CONNECT_REQUEST ? ev->id : NULL;
	rdma_ack_cm_event(ev);
	if (!req)
		printf("error: no connect request\n");
	return req;
}

/*
 * -n: the second process.  On iWARP the kernel binds a connection to
 * the QP named by number: naming the first process's QP, in a connect
 * or an accept, must be refused.
 */
static int run_other(const char *addr, const char *port, unsigned int qpn)
{
	struct rdma_conn_param param = { .responder_resources = 1,
					 .initiator_depth = 1,
					 .qp_num = qpn };
	struct rdma_conn_param own = { .responder_resources = 1,
				       .initiator_depth = 1 };
	struct rdma_cm_id *id, *req;
	struct addrinfo *ai;
	int ret = 1;

	if (listen_on(port) || get_addr_port(addr, port, &ai))
		return 1;
	if (!resolved_id(ai, &id))
		goto out_ai;
	if (outcome("rdma_connect naming the other process's QP",
		    rdma_connect(id, &param))) {
		/* Let through: the request is at our listener. */
		req = next_request();
		if (req) {
			rdma_reject(req, NULL, 0);
			show_event();
			rdma_destroy_id(req);
		}
	}
	rdma_destroy_id(id);

	if (!resolved_id(ai, &id))
		goto out_ai;
	if (create_rc_qp(id) ||
	    rdma_connect(id, &own)) {
		printf("error: connect: %s\n", strerror(errno));
		goto out_id;
	}
	req = next_request();
	if (!req)
		goto out_id;
	ret = 0;
	outcome("rdma_accept naming the other process's QP",
		rdma_accept(req, &param));
	/* Refused, the request is rejected; else ESTABLISHED */
	show_event();
	destroy_conn(req);
out_id:
	destroy_conn(id);
out_ai:
	freeaddrinfo(ai);
	rdma_destroy_id(listener);
	return ret;
}

/* Run "cm_probe -s ADDR -p PORT+1 -n QPN" and wait for it. */
static int spawn_other(const char *addr, const char *port, unsigned int qpn)
{
	char port_b[16], num[16];
	int status;
	pid_t pid;

	snprintf(port_b, sizeof(port_b), "%d", atoi(port) + 1);
	snprintf(num, sizeof(num), "%u", qpn);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		printf("error: fork: %s\n", strerror(errno));
		return 1;
	}
	if (!pid) {
		execl("/proc/self/exe", "cm_probe", "-s", addr, "-p", port_b,
		      "-n", num, (char *)NULL);
		printf("error: exec: %s\n", strerror(errno));
		fflush(stdout);
		_exit(1);
	}
	if (waitpid(pid, &status, 0) < 0) {
		printf("error: waitpid: %s\n", strerror(errno));
		return 1;
	}
	printf("other process: exit %d\n",
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}

/* A SEND from @id, received by @peer; false (printed) on an error. */
static bool send_one(struct rdma_cm_id *id, struct rdma_cm_id *peer)
{
	static char sbuf[32] = "to the first connection", rbuf[32];
	struct ibv_wc wc = { .status = IBV_WC_GENERAL_ERR };
	struct ibv_mr *smr, *rmr = NULL;
	bool ok = false;

	smr = rdma_reg_msgs(id, sbuf, sizeof(sbuf));
	if (smr)
		rmr = rdma_reg_msgs(peer, rbuf, sizeof(rbuf));
	if (!rmr) {
		printf("error: rdma_reg_msgs: %s\n", strerror(errno));
		goto out;
	}
	if (rdma_post_recv(peer, NULL, rbuf, sizeof(rbuf), rmr) ||
	    rdma_post_send(id, NULL, sbuf, sizeof(sbuf), smr,
			   IBV_SEND_SIGNALED)) {
		printf("error: post: %s\n", strerror(errno));
		goto out;
	}
	if (rdma_get_send_comp(id, &wc) <= 0 || wc.status != IBV_WC_SUCCESS) {
		printf("send on the first connection: %s\n",
		       ibv_wc_status_str(wc.status));
		goto out;
	}
	if (rdma_get_recv_comp(peer, &wc) <= 0 || wc.status != IBV_WC_SUCCESS ||
	    strcmp(rbuf, sbuf)) {
		printf("receive on the first connection: %s\n",
		       ibv_wc_status_str(wc.status));
		goto out;
	}
	printf("send on the first connection: ok\n");
	ok = true;
out:
	if (rmr)
		rdma_dereg_mr(rmr);
	if (smr)
		rdma_dereg_mr(smr);
	return ok;
}

/*
 * -O: the first process.  Its connection, a QP of its own at each end,
 * must come out of the second process's attempts as it was: no event,
 * and a SEND gets through.
 */
static int run_owner(const char *addr, const char *port)
{
	struct rdma_conn_param param = { .responder_resources = 1,
					 .initiator_depth = 1 };
	struct pollfd pfd = { .fd = chan->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id, *req;
	struct addrinfo *ai;
	int ret = 1;

	if (listen_on(port) || get_addr_port(addr, port, &ai))
		return 1;
	if (!resolved_id(ai, &id))
		goto out_ai;
	if (create_rc_qp(id) ||
	    rdma_connect(id, &param)) {
		printf("error: connect: %s\n", strerror(errno));
		goto out_id;
	}
	req = next_request();
	if (!req)
		goto out_id;
	if (create_rc_qp(req) ||
	    rdma_accept(req, &param)) {
		printf("error: accept: %s\n", strerror(errno));
		goto out_req;
	}
	if (!expect_event(RDMA_CM_EVENT_ESTABLISHED) ||
	    !expect_event(RDMA_CM_EVENT_ESTABLISHED))
		goto out_req;
	printf("qp %u\n", id->qp->qp_num);
	if (spawn_other(addr, port, id->qp->qp_num) || !send_one(id, req))
		goto out_req;
	/* Printed: none is expected. */
	while (poll(&pfd, 1, 500) > 0) {
		ev = next_event();
		if (!ev)
			goto out_req;
		rdma_ack_cm_event(ev);
	}
	printf("events on the first connection: done\n");
	fflush(stdout);
	ret = 0;
	rdma_disconnect(id);
	show_event();
	show_event();
out_req:
	destroy_conn(req);
out_id:
	destroy_conn(id);
out_ai:
	freeaddrinfo(ai);
	rdma_destroy_id(listener);
	return ret;
}

static int run_server(const char *port, const char *data)
{
	struct rdma_cm_event *ev;
	int ret = 0;

	if (listen_on(port))
		return 1;
	ev = next_event();
	if (!ev)
		return 1;
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		if (rdma_reject(ev->id, data, data ? strlen(data) + 1 : 0)) {
			printf("error: rdma_reject: %s\n", strerror(errno));
			ret = 1;
		} else {
			printf("rejected\n");
		}
		rdma_destroy_id(ev->id);
	}
	rdma_ack_cm_event(ev);
	rdma_destroy_id(listener);
	return ret;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = NULL, *data = NULL, *answer = NULL;
	const char *maddr = NULL, *qpn = NULL;
	bool listen = false, stale = false, again = false, copy = false;
	bool owner = false, bad;
	int tmo = 2000, nbind = 0, cap = 0, charge = 0, c, ret;

	while ((c = getopt(argc, argv, "s:p:d:r:T:lA:J:LE:BFQ:On:M:")) != -1) {
		switch (c) {
		case 's':
			addr = optarg;
			break;
		case 'p':
			port = optarg;
			break;
		case 'd':
		case 'r':
			data = optarg;
			break;
		case 'T':
			tmo = atoi(optarg);
			break;
		case 'l':
			listen = true;
			break;
		case 'A':
			answer = optarg;
			break;
		case 'J':
			maddr = optarg;
			break;
		case 'L':
			stale = true;
			break;
		case 'B':
			again = true;
			break;
		case 'F':
			copy = true;
			break;
		case 'Q':
			cap = atoi(optarg);
			if (cap < 1 || cap > 64)
				return 2;
			break;
		case 'M':
			charge = atoi(optarg);
			if (charge < 1 || charge > 60000)
				return 2;
			break;
		case 'O':
			owner = true;
			break;
		case 'n':
			qpn = optarg;
			break;
		case 'E':
			nbind = atoi(optarg);
			if (nbind < 1 || nbind > 16)
				return 2;
			break;
		default:
			return 2;
		}
	}
	if (copy)
		bad = argc != 2;
	else if (charge)
		bad = !addr || argc != 5;
	else if (owner || qpn)
		bad = !addr || !port || listen || answer || data || stale ||
		      maddr || nbind || again || cap || (owner && qpn);
	else if (nbind)
		bad = !addr || port || listen || answer || data || stale ||
		      maddr;
	else if (maddr)
		bad = !addr || port || listen || answer || data || stale;
	else if (stale || again || cap)
		bad = !addr || !port || listen || answer || data ||
		      stale + again + !!cap > 1;
	else
		bad = !port || listen == !!addr || (answer && listen) ||
		      (answer && strcmp(answer, "accept") &&
		       strcmp(answer, "reject"));
	if (bad) {
		fprintf(stderr, "usage: cm_probe -s ADDR -p PORT [-d DATA] [-T MS]\n"
			"       cm_probe -l -p PORT [-r DATA]\n"
			"       cm_probe -s ADDR -p PORT -A accept|reject\n"
			"       cm_probe -s ADDR -p PORT -L\n"
			"       cm_probe -s ADDR -J MADDR\n"
			"       cm_probe -s ADDR -E N\n"
			"       cm_probe -F\n"
			"       cm_probe -s ADDR -p PORT -B\n"
			"       cm_probe -s ADDR -p PORT -Q N\n"
			"       cm_probe -s ADDR -p PORT -O\n"
			"       cm_probe -s ADDR -p PORT -n QPN\n"
			"       cm_probe -s ADDR -M N\n");
		return 2;
	}
	chan = rdma_create_event_channel();
	if (!chan) {
		printf("error: rdma_create_event_channel: %s\n", strerror(errno));
		return 1;
	}
	if (copy)
		ret = run_copy_first();
	else if (charge)
		ret = run_charge(addr, charge);
	else if (owner)
		ret = run_owner(addr, port);
	else if (qpn)
		ret = run_other(addr, port, strtoul(qpn, NULL, 0));
	else if (nbind)
		ret = run_ephemeral(addr, nbind);
	else if (maddr)
		ret = run_join(addr, maddr);
	else if (stale)
		ret = run_stale(addr, port);
	else if (again)
		ret = run_listen_again(addr, port);
	else if (cap)
		ret = run_cap(addr, port, cap);
	else if (listen)
		ret = run_server(port, data);
	else
		ret = run_client(addr, port, data, tmo, answer);
	rdma_destroy_event_channel(chan);
	return ret;
}
