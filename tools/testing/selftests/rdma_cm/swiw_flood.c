// SPDX-License-Identifier: GPL-2.0
/*
 * A process that keeps posting to a user QP's mapped rings while the QP
 * is flushed, destroyed, or its device deleted (tests/swiw.sh).
 *
 *   swiw_flood DEV SECONDS destroy
 *	makes a PD, a CQ and an RC QP on DEV (never connected) and forks
 *	a child that, for SECONDS, posts a receive and a send to every
 *	slot the kernel gives back and polls the CQ so that it never
 *	overflows.  The rings are shared mappings, so the child posts into
 *	the parent's QP.  The parent moves the QP to ERROR, waits a
 *	second (the child's doorbells flush it meanwhile), destroys it
 *	(again while a doorbell makes it EBUSY) and prints "destroy_ms N",
 *	the time that took.
 *   swiw_flood DEV SECONDS hold
 *	the same objects and child; the parent prints "ready" and waits,
 *	for up to SECONDS, for the device's fatal async event (the test
 *	deletes DEV meanwhile: a provider that disassociates the context
 *	raises IBV_EVENT_DEVICE_FATAL on it), prints "device fatal" when
 *	it comes, stops the child and destroys what is left, ignoring
 *	errors.
 *
 * Exit status 0 unless a setup step or the destroy failed.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <infiniband/verbs.h>

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

/* Post to each free slot, poll the CQ empty, until @end. */
static void flood(struct ibv_qp *qp, struct ibv_cq *cq, long end)
{
	static char buf[64];
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf,
		.length = sizeof(buf),
	};
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 };
	struct ibv_send_wr swr = {
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_recv_wr *rbad;
	struct ibv_send_wr *sbad;
	struct ibv_wc wc[64];
	unsigned long n = 0;

	while (now_ms() < end && getppid() != 1) {
		swr.wr_id = n++;
		rwr.wr_id = n++;
		while (!ibv_post_recv(qp, &rwr, &rbad))
			rwr.wr_id = n++;
		/* A send rings the doorbell when the ring looks idle. */
		ibv_post_send(qp, &swr, &sbad);
		while (ibv_poll_cq(cq, 64, wc) > 0)
			;
	}
}

/* Wait until @end for IBV_EVENT_DEVICE_FATAL; true if it came. */
static int wait_fatal(struct ibv_context *ctx, long end)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	long left;

	while ((left = end - now_ms()) > 0) {
		if (poll(&pfd, 1, left) <= 0)
			continue;
		if (ibv_get_async_event(ctx, &ev))
			return 0;
		ibv_ack_async_event(&ev);
		if (ev.event_type == IBV_EVENT_DEVICE_FATAL)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = 64,
			.max_recv_wr = 64,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	long end, t;
	pid_t child;
	int ret;

	if (argc != 4) {
		fprintf(stderr, "usage: %s DEV SECONDS destroy|hold\n", argv[0]);
		return 2;
	}
	ctx = open_dev(argv[1]);
	if (!ctx) {
		fprintf(stderr, "cannot open %s\n", argv[1]);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	/* Room for both rings' flushes: the child keeps it polled. */
	cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	if (!pd || !cq) {
		fprintf(stderr, "cannot make a PD and a CQ: %s\n",
			strerror(errno));
		return 1;
	}
	init.send_cq = cq;
	init.recv_cq = cq;
	qp = ibv_create_qp(pd, &init);
	if (!qp) {
		fprintf(stderr, "cannot make a QP: %s\n", strerror(errno));
		return 1;
	}
	end = now_ms() + atol(argv[2]) * 1000L;
	child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (!child) {
		flood(qp, cq, end);
		_exit(0);
	}
	printf("ready qp %u\n", qp->qp_num);
	fflush(stdout);

	ret = 0;
	if (!strcmp(argv[3], "destroy")) {
		sleep(1);
		if (ibv_modify_qp(qp, &attr, IBV_QP_STATE))
			perror("ibv_modify_qp ERR");
		sleep(1);
		t = now_ms();
		/* EBUSY: the child's doorbell holds the QP; that ends. */
		do
			ret = ibv_destroy_qp(qp);
		while (ret == EBUSY || ret == -EBUSY);
		printf("destroy_ms %ld\n", now_ms() - t);
		if (ret)
			fprintf(stderr, "ibv_destroy_qp: %s\n", strerror(ret));
		qp = NULL;
		kill(child, SIGKILL);
	} else if (wait_fatal(ctx, end)) {
		printf("device fatal\n");
		fflush(stdout);
		kill(child, SIGKILL);
	}
	waitpid(child, NULL, 0);
	printf("child done\n");
	fflush(stdout);
	/* After a device delete these fail (EIO): only the memory goes. */
	if (qp)
		ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return ret ? 1 : 0;
}
