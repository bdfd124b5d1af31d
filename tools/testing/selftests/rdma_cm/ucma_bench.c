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
 *
 * usage: ucma_bench [-n PAIRS] [-e EVENTS] [-a IPV4] [-D DEVICE]
 *   -n  CREATE_ID+DESTROY_ID pairs (default 20000)
 *   -e  RESOLVE_ADDR+GET_EVENT round trips (default 2000)
 *   -a  IPv4 address of the RDMA device (default 10.0.0.1)
 *   -D  device node (default /dev/infiniband/rdma_cm)
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

static int fd = -1;
static struct in_addr addr;

/* One command: header and body in one write(); 0 or -errno. */
static int cmd(__u32 op, void *body, __u16 in, __u16 out)
{
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		unsigned char body[512];
	} buf;
	size_t len = sizeof(buf.hdr) + in;

	buf.hdr.cmd = op;
	buf.hdr.in = in;
	buf.hdr.out = out;
	memcpy(buf.body, body, in);
	if (write(fd, &buf, len) != (ssize_t)len)
		return -errno;
	return 0;
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

/* RESOLVE_ADDR to our own address, then wait for its event. */
static int resolve_event(__u32 id)
{
	struct rdma_ucm_event_resp ev = {};
	struct rdma_ucm_get_event g = { .response = (uintptr_t)&ev };
	struct rdma_ucm_resolve_addr r = {
		.id = id,
		.timeout_ms = 2000,
		.dst_size = sizeof(struct sockaddr_in),
	};
	struct sockaddr_in *dst = (struct sockaddr_in *)&r.dst_addr;
	int ret;

	dst->sin_family = AF_INET;
	dst->sin_addr = addr;
	ret = cmd(RDMA_USER_CM_CMD_RESOLVE_ADDR, &r, sizeof(r), 0);
	if (ret)
		return ret;
	ret = cmd(RDMA_USER_CM_CMD_GET_EVENT, &g, sizeof(g), sizeof(ev));
	if (ret)
		return ret;
	if (ev.event != RDMA_CM_EVENT_ADDR_RESOLVED || ev.status) {
		fprintf(stderr, "ucma_bench: event %u status %d, expected ADDR_RESOLVED\n",
			ev.event, (int)ev.status);
		return -EPROTO;
	}
	return 0;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

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

int main(int argc, char **argv)
{
	const char *dev = "/dev/infiniband/rdma_cm", *a = "10.0.0.1";
	long count[2] = { 20000, 2000 };	/* pairs, round trips */
	double ns;
	int c, i;

	while ((c = getopt(argc, argv, "n:e:a:D:")) != -1) {
		switch (c) {
		case 'n':
			count[0] = strtol(optarg, NULL, 0);
			break;
		case 'e':
			count[1] = strtol(optarg, NULL, 0);
			break;
		case 'a':
			a = optarg;
			break;
		case 'D':
			dev = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (count[0] < 1 || count[1] < 1 || inet_pton(AF_INET, a, &addr) != 1)
		goto usage;
	/* blocking: GET_EVENT sleeps until the event is there */
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "ucma_bench: open %s: %s\n", dev, strerror(errno));
		return 2;
	}

	for (i = 0; i < 2; i++) {
		/* a tenth untimed first: caches, slabs, the xarray */
		if (bench(count[i] / 10 + 1, i) < 0)
			return 1;
		ns = bench(count[i], i);
		if (ns < 0)
			return 1;
		printf("result %s %.0f\n", i ? "resolve_event" : "create_destroy", ns);
		fflush(stdout);
	}
	close(fd);
	return 0;

usage:
	fprintf(stderr, "usage: ucma_bench [-n PAIRS] [-e EVENTS] [-a IPV4] [-D DEVICE]\n");
	return 2;
}
