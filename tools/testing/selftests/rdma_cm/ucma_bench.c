// SPDX-License-Identifier: GPL-2.0
/*
 * ucma_bench: the cost of single rdma_ucm commands, written raw to
 * /dev/infiniband/rdma_cm (no librdmacm), for `make bench` to compare
 * our rdma_ucm with the stock one in the same guest.
 *
 *   create_destroy  CREATE_ID then DESTROY_ID of the same id: the pair
 *   resolve_event   RESOLVE_ADDR to the device's own address, then a
 *                   blocking GET_EVENT until ADDR_RESOLVED arrives: the
 *                   round trip (CREATE_ID and DESTROY_ID around it are
 *                   not timed)
 *   resolve_batch   per id, of BATCH RESOLVE_ADDRs written back to back,
 *                   then their BATCH events, each followed by the queries
 *                   librdmacm makes on ADDR_RESOLVED (QUERY ADDR, and
 *                   with -g QUERY GID as on an IB or RoCE device): what
 *                   cmtime's "resolve addr" step asks of the kernel,
 *                   from one thread (creating and destroying the BATCH
 *                   ids is not timed)
 *   bind_batch      per id, of BATCH BINDs to the IPv4 wildcard with port
 *                   0 written back to back: the implied bind of a
 *                   RESOLVE_ADDR without a source, an ephemeral port
 *                   taken next to BATCH others (creating and destroying
 *                   the ids is not timed)
 *   route_batch     per id, of BATCH RESOLVE_ROUTEs written back to back,
 *                   then their BATCH ROUTE_RESOLVED events: cmtime's
 *                   "resolve route" step from one thread (librdmacm
 *                   queries nothing on an iWARP id's ROUTE_RESOLVED;
 *                   creating the ids, resolving their addresses and
 *                   destroying them is not timed)
 *
 * usage: ucma_bench [-n PAIRS] [-e EVENTS] [-b BATCH] [-g] [-v] [-a IPV4]
 *                   [-D DEVICE] [-f FIGURE]
 *   -n  CREATE_ID+DESTROY_ID pairs (default 20000)
 *   -e  RESOLVE_ADDR+GET_EVENT round trips, and ids resolved or bound
 *       in batches (default 2000)
 *   -b  ids of a batch (default 100)
 *   -g  QUERY GID after QUERY ADDR in the batches
 *   -v  also "command FIGURE CMD CALLS NANOSECONDS": the mean time of
 *       each command in a figure's measured run, the untimed ones
 *       included (CMD as rdma_user_cm.h numbers it)
 *   -a  IPv4 address of the RDMA device (default 10.0.0.1)
 *   -D  device node (default /dev/infiniband/rdma_cm)
 *   -f  only this figure (as when profiling one)
 *
 * Each figure is printed as "result NAME NANOSECONDS" (the mean), after
 * a tenth of the count run untimed as a warm-up.  Exit status: 0, 1 when
 * a command failed, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>
#include <rdma/rdma_user_cm.h>

#define RDMA_CM_EVENT_ADDR_RESOLVED	0
#define RDMA_CM_EVENT_ROUTE_RESOLVED	2
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static int fd = -1;
static struct in_addr addr;
static long batch = 100;
static bool query_gid;
/* -v: the time spent in each command, and how often it ran */
static bool verbose;
static double op_ns[RDMA_USER_CM_CMD_JOIN_MCAST + 1];
static long op_calls[RDMA_USER_CM_CMD_JOIN_MCAST + 1];

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* One command: header and body in one write(); 0 or -errno. */
static int cmd(__u32 op, void *body, __u16 in, __u16 out)
{
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		unsigned char body[512];
	} buf;
	size_t len = sizeof(buf.hdr) + in;
	double t0 = 0;
	ssize_t n;

	buf.hdr.cmd = op;
	buf.hdr.in = in;
	buf.hdr.out = out;
	memcpy(buf.body, body, in);
	if (verbose)
		t0 = now_ns();
	n = write(fd, &buf, len);
	if (verbose && op < ARRAY_SIZE(op_ns)) {
		op_ns[op] += now_ns() - t0;
		op_calls[op]++;
	}
	return n == (ssize_t)len ? 0 : -errno;
}

static int create_id(__u32 *id)
{
	struct rdma_ucm_create_id_resp resp = {};
	struct rdma_ucm_create_id c = {
		.uid = 1,
		.response = (uintptr_t)&resp,
		.ps = RDMA_PS_TCP,
		.qp_type = 2,	/* IB_QPT_RC */
	};
	int ret = cmd(RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c), sizeof(resp));

	*id = resp.id;
	return ret;
}

static int destroy_id(__u32 id)
{
	struct rdma_ucm_destroy_id_resp resp;
	struct rdma_ucm_destroy_id c = {
		.response = (uintptr_t)&resp,
		.id = id,
	};

	return cmd(RDMA_USER_CM_CMD_DESTROY_ID, &c, sizeof(c), sizeof(resp));
}

static int resolve_addr(__u32 id)
{
	struct rdma_ucm_resolve_addr r = {
		.id = id,
		.timeout_ms = 2000,
		.dst_size = sizeof(struct sockaddr_in),
	};
	struct sockaddr_in *dst = (struct sockaddr_in *)&r.dst_addr;

	dst->sin_family = AF_INET;
	dst->sin_addr = addr;
	return cmd(RDMA_USER_CM_CMD_RESOLVE_ADDR, &r, sizeof(r), 0);
}

static int bind_any(__u32 id)
{
	struct rdma_ucm_bind b = {
		.id = id,
		.addr_size = sizeof(struct sockaddr_in),
	};

	((struct sockaddr_in *)&b.addr)->sin_family = AF_INET;
	return cmd(RDMA_USER_CM_CMD_BIND, &b, sizeof(b), 0);
}

static int resolve_route(__u32 id)
{
	struct rdma_ucm_resolve_route r = { .id = id, .timeout_ms = 2000 };

	return cmd(RDMA_USER_CM_CMD_RESOLVE_ROUTE, &r, sizeof(r), 0);
}

/* The next event, which must be a successful @want; its id in *@id. */
static int next_event(__u32 want, __u32 *id)
{
	struct rdma_ucm_event_resp ev = {};
	struct rdma_ucm_get_event g = { .response = (uintptr_t)&ev };
	int ret;

	ret = cmd(RDMA_USER_CM_CMD_GET_EVENT, &g, sizeof(g), sizeof(ev));
	if (ret)
		return ret;
	if (ev.event != want || ev.status) {
		fprintf(stderr, "ucma_bench: event %u status %d, expected %u\n",
			ev.event, (int)ev.status, want);
		return -EPROTO;
	}
	*id = ev.id;
	return 0;
}

static int query(__u32 id, __u32 option)
{
	struct rdma_ucm_query_addr_resp resp;
	struct rdma_ucm_query q = {
		.response = (uintptr_t)&resp,
		.id = id,
		.option = option,
	};

	return cmd(RDMA_USER_CM_CMD_QUERY, &q, sizeof(q), sizeof(resp));
}

/* RESOLVE_ADDR to our own address, then wait for its event. */
static int resolve_event(__u32 id)
{
	int ret = resolve_addr(id);

	return ret ? ret : next_event(RDMA_CM_EVENT_ADDR_RESOLVED, &id);
}

/* @op on each of @n ids, back to back; stops at the first failure. */
static int each_id(int (*op)(__u32 id), const __u32 *ids, long n)
{
	long i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = op(ids[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* A batch of resolves, answered as librdmacm answers ADDR_RESOLVED. */
static int resolve_batch(const __u32 *ids, long n)
{
	__u32 id;
	long i;
	int ret;

	ret = each_id(resolve_addr, ids, n);
	for (i = 0; i < n && !ret; i++) {
		ret = next_event(RDMA_CM_EVENT_ADDR_RESOLVED, &id);
		if (!ret)
			ret = query(id, RDMA_USER_CM_QUERY_ADDR);
		if (!ret && query_gid)
			ret = query(id, RDMA_USER_CM_QUERY_GID);
	}
	return ret;
}

/* A batch of route resolutions of resolved ids, then their events. */
static int route_batch(const __u32 *ids, long n)
{
	__u32 id;
	long i;
	int ret;

	ret = each_id(resolve_route, ids, n);
	for (i = 0; i < n && !ret; i++)
		ret = next_event(RDMA_CM_EVENT_ROUTE_RESOLVED, &id);
	return ret;
}

static int bind_batch(const __u32 *ids, long n)
{
	return each_id(bind_any, ids, n);
}

/* What a batch figure times, and whether its ids need addresses first. */
struct batch {
	const char *what;
	int (*run)(const __u32 *ids, long n);
	bool resolved;
};

static const struct batch batch_resolve = {
	.what = "RESOLVE_ADDR+GET_EVENT+QUERY", .run = resolve_batch,
};

static const struct batch batch_bind = { .what = "BIND", .run = bind_batch };

static const struct batch batch_route = {
	.what = "RESOLVE_ROUTE+GET_EVENT", .run = route_batch, .resolved = true,
};

/* Say which command failed; -1 for the caller to return. */
static double fail(const char *what, int ret)
{
	fprintf(stderr, "ucma_bench: %s: %s\n", what, strerror(-ret));
	return -1;
}

/*
 * Mean ns over @n ids: of CREATE_ID+DESTROY_ID, or with @resolve, of the
 * RESOLVE_ADDR+GET_EVENT round trip between them; < 0 on a failure.
 */
static double bench(long n, bool resolve)
{
	double total = 0, t0 = now_ns(), t1;
	__u32 id;
	long i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = create_id(&id);
		if (ret)
			return fail("CREATE_ID", ret);
		if (resolve) {
			t1 = now_ns();
			ret = resolve_event(id);
			total += now_ns() - t1;
			if (ret)
				return fail("RESOLVE_ADDR+GET_EVENT", ret);
		}
		ret = destroy_id(id);
		if (ret)
			return fail("DESTROY_ID", ret);
	}
	return resolve ? total / n : (now_ns() - t0) / n;
}

/*
 * Mean ns per id over @n ids handled in batches of @b; < 0 on a failure.
 * The addresses of a batch that needs them are resolved first, untimed.
 */
static double batches(long n, const struct batch *b)
{
	double total = 0, t1;
	long done, k, made, i;
	__u32 *ids;
	int ret = 0, r;

	ids = calloc(batch, sizeof(*ids));
	if (!ids)
		return fail("calloc", -ENOMEM);
	for (done = 0; done < n && !ret; done += k) {
		k = n - done < batch ? n - done : batch;
		for (made = 0; made < k; made++) {
			ret = create_id(&ids[made]);
			if (ret) {
				fail("CREATE_ID", ret);
				break;
			}
		}
		if (!ret && b->resolved) {
			ret = resolve_batch(ids, k);
			if (ret)
				fail(batch_resolve.what, ret);
		}
		if (!ret) {
			t1 = now_ns();
			ret = b->run(ids, k);
			total += now_ns() - t1;
			if (ret)
				fail(b->what, ret);
		}
		for (i = 0; i < made; i++) {
			r = destroy_id(ids[i]);
			if (r && !ret) {
				fail("DESTROY_ID", r);
				ret = r;
			}
		}
	}
	free(ids);
	return ret ? -1 : total / n;
}

static double bench_batch(long n)
{
	return batches(n, &batch_resolve);
}

static double bench_bind(long n)
{
	return batches(n, &batch_bind);
}

static double bench_route(long n)
{
	return batches(n, &batch_route);
}

static double bench_pairs(long n)
{
	return bench(n, false);
}

static double bench_resolve(long n)
{
	return bench(n, true);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		double (*fn)(long n);
		int count;	/* index into count[] */
	} figures[] = {
		{ "create_destroy", bench_pairs, 0 },
		{ "resolve_event", bench_resolve, 1 },
		{ "resolve_batch", bench_batch, 1 },
		{ "bind_batch", bench_bind, 1 },
		{ "route_batch", bench_route, 1 },
	};
	const char *dev = "/dev/infiniband/rdma_cm", *a = "10.0.0.1";
	const char *only = NULL;
	long count[2] = { 20000, 2000 };	/* pairs, round trips */
	unsigned int i;
	double ns;
	long n;
	int c;

	while ((c = getopt(argc, argv, "n:e:b:gva:D:f:")) != -1) {
		switch (c) {
		case 'n':
			count[0] = strtol(optarg, NULL, 0);
			break;
		case 'e':
			count[1] = strtol(optarg, NULL, 0);
			break;
		case 'b':
			batch = strtol(optarg, NULL, 0);
			break;
		case 'g':
			query_gid = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'a':
			a = optarg;
			break;
		case 'D':
			dev = optarg;
			break;
		case 'f':
			only = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (count[0] < 1 || count[1] < 1 || batch < 1 ||
	    inet_pton(AF_INET, a, &addr) != 1)
		goto usage;
	for (i = 0; only && i < ARRAY_SIZE(figures); i++)
		if (!strcmp(only, figures[i].name))
			break;
	if (only && i == ARRAY_SIZE(figures))
		goto usage;
	/* blocking: GET_EVENT sleeps until the event is there */
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "ucma_bench: open %s: %s\n", dev, strerror(errno));
		return 2;
	}

	for (i = 0; i < ARRAY_SIZE(figures); i++) {
		if (only && strcmp(only, figures[i].name))
			continue;
		n = count[figures[i].count];
		/* a tenth untimed first: caches, slabs, the xarray */
		if (figures[i].fn(n / 10 + 1) < 0)
			return 1;
		memset(op_ns, 0, sizeof(op_ns));
		memset(op_calls, 0, sizeof(op_calls));
		ns = figures[i].fn(n);
		if (ns < 0)
			return 1;
		printf("result %s %.0f\n", figures[i].name, ns);
		for (c = 0; c < (int)ARRAY_SIZE(op_ns); c++)
			if (op_calls[c])
				printf("command %s %d %ld %.0f\n", figures[i].name, c,
				       op_calls[c], op_ns[c] / op_calls[c]);
		fflush(stdout);
	}
	close(fd);
	return 0;

usage:
	fprintf(stderr, "usage: ucma_bench [-n PAIRS] [-e EVENTS] [-b BATCH] [-g] [-v]\n"
		"                  [-a IPV4] [-D DEVICE] [-f FIGURE]\n");
	return 2;
}
