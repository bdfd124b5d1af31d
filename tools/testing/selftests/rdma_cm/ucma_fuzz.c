// SPDX-License-Identifier: GPL-2.0
/*
 * ucma_fuzz: random and malformed command sequences on
 * /dev/infiniband/rdma_cm from several threads and several files, with
 * MIGRATE_ID between the files and close() of files under use.
 *
 * The kernel log is the real oracle (KASAN, lockdep, WARN, kmemleak).
 * The fuzzer itself checks what it can see: a successful write() returns
 * its length, an event record carries a known event number, a zero
 * reserved field and either no uid or one this process gave, so that no
 * kernel pointer or stale memory reaches user space.  Before fuzzing, with
 * two files or more, it checks what a command gets for another file's id
 * (-EINVAL) and for a destroyed one (-ENOENT).
 *
 * With -N, the threads are spread over network namespaces: an id belongs
 * to the namespace of the thread that created it, so ids of several
 * namespaces share the files, migrate between them and meet in the port
 * spaces, listeners and loopback resolution of each namespace.
 *
 * usage: ucma_fuzz [-s SEED] [-n COMMANDS] [-t THREADS] [-f FILES]
 *                  [-a IPV4] [-T SECONDS] [-l] [-D DEVICE] [-x OP,...]
 *                  [-N NETNS]
 *   -s  seed of the random sequence (default: from the clock); printed,
 *       so that "-s SEED -t 1" replays a run (up to the timing of the
 *       asynchronous rdma_cm events)
 *   -n  number of operations over all threads (default 100000); a
 *       chain operation issues up to 8 commands
 *   -t  threads (default 4)
 *   -f  event channels, i.e. open files (default 4)
 *   -a  IPv4 address of the RDMA device (default 10.0.0.1)
 *   -T  stop after this many seconds (default: no limit)
 *   -l  log each command and its result on stdout, one line each, for a
 *       differential run against another kernel
 *   -D  device node (default /dev/infiniband/rdma_cm)
 *   -x  never issue these operations (names as in the summary), or
 *       "ib_path": no SET_OPTION RDMA_OPTION_IB_PATH (see tests/ucma_fuzz.sh),
 *       or "answer_own": no ACCEPT or REJECT (garbage included) on an id
 *       this process sent CONNECT on, and at most one on any other id,
 *       for stock rdma_cm (see below), or "stock_lax": outside garbage,
 *       nothing stock takes and we refuse on purpose (hdr.in below the
 *       command's size, RDMA_PS_IB with a QP type ib_cm has no use for,
 *       MIGRATE_ID with hdr.out below 4)
 *   -N  network namespaces (default 1): thread i runs in namespace
 *       i % NETNS, namespace 0 being the fuzzer's own and the others new
 *       ones with only lo (up)
 *
 * Exit status: 0 when every check held, 1 when one failed, 2 on a usage
 * or setup error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>
#include <rdma/rdma_user_cm.h>

#ifndef AF_IB
#define AF_IB			27
#endif

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define MAX_THREADS		64
#define MAX_FILES		64
#define MAX_NETNS		8
#define POOL			64
#define PORT_BASE		21000
#define PORTS			8
#define UID_TAG			0x55434d4100000000ull	/* "UCMA" */
#define UID_MASK		0xffffffff00000000ull
#define NR_EVENTS		16	/* RDMA_CM_EVENT_TIMEWAIT_EXIT + 1 */
#define PAGE			4096

enum op {
	OP_CREATE, OP_DESTROY, OP_BIND_IP, OP_BIND, OP_RESOLVE_IP,
	OP_RESOLVE_ADDR, OP_RESOLVE_ROUTE, OP_QUERY_ROUTE, OP_CONNECT,
	OP_LISTEN, OP_ACCEPT, OP_REJECT, OP_DISCONNECT, OP_INIT_QP_ATTR,
	OP_GET_EVENT, OP_GET_OPTION, OP_SET_OPTION,
	OP_NOTIFY, OP_JOIN_IP, OP_JOIN, OP_LEAVE, OP_MIGRATE, OP_QUERY,
	OP_REOPEN, OP_POLL, OP_GARBAGE, OP_CHAIN, NR_OPS
};

static const char * const op_names[NR_OPS] = {
	"create_id", "destroy_id", "bind_ip", "bind", "resolve_ip",
	"resolve_addr", "resolve_route", "query_route", "connect",
	"listen", "accept", "reject", "disconnect", "init_qp_attr",
	"get_event", "get_option", "set_option",
	"notify", "join_ip_mcast", "join_mcast", "leave_mcast", "migrate_id",
	"query", "reopen", "poll", "garbage", "chain",
};

/* relative frequency of each operation */
static unsigned int op_weight[NR_OPS] = {
	[OP_CREATE] = 30, [OP_DESTROY] = 12, [OP_BIND_IP] = 6, [OP_BIND] = 15,
	[OP_RESOLVE_IP] = 6, [OP_RESOLVE_ADDR] = 15, [OP_RESOLVE_ROUTE] = 15,
	[OP_QUERY_ROUTE] = 9, [OP_CONNECT] = 15, [OP_LISTEN] = 12,
	[OP_ACCEPT] = 15, [OP_REJECT] = 6, [OP_DISCONNECT] = 9,
	[OP_INIT_QP_ATTR] = 9, [OP_GET_EVENT] = 50, [OP_GET_OPTION] = 2,
	[OP_SET_OPTION] = 12, [OP_NOTIFY] = 3, [OP_JOIN_IP] = 6,
	[OP_JOIN] = 9, [OP_LEAVE] = 9, [OP_MIGRATE] = 18, [OP_QUERY] = 12,
	[OP_REOPEN] = 1, [OP_POLL] = 3, [OP_GARBAGE] = 18, [OP_CHAIN] = 8,
};

static struct {
	__u64 seed;
	long commands;
	int threads;
	int files;
	int netns;
	struct in_addr addr;
	int seconds;
	bool log;
	bool no_ib_path;
	bool no_answer_own;
	bool no_stock_lax;
	const char *dev;
} opt = {
	.commands = 100000,
	.threads = 4,
	.files = 4,
	.netns = 1,
	.dev = "/dev/infiniband/rdma_cm",
};

static atomic_int fds[MAX_FILES];
static int netns_fds[MAX_NETNS];	/* [0]: the fuzzer's own, unused */
static atomic_ullong ids[POOL];	/* (file slot + 1) << 32 | id */
static atomic_ullong mcs[POOL];
static atomic_long skipped;
static atomic_long issued;
static atomic_long done;
static atomic_int running;
static atomic_long failures;
static atomic_bool stop;
static atomic_ullong next_uid = 1;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_long results[NR_OPS][2];	/* [op][0: ok, 1: error] */
static struct timespec t_start;
static char *rw_page;			/* read-write, then ... */
static char *bad_page;			/* ... PROT_NONE right after it */
static char *ro_page;			/* read-only */

/* What the kernel may write to: a private page per thread. */
union answer {
	struct rdma_ucm_event_resp event;
	struct rdma_ucm_create_id_resp id;
	struct rdma_ucm_query_route_resp route;
	struct rdma_ucm_query_addr_resp addr;
	unsigned char raw[2048];
};

struct thread {
	pthread_t pthread;
	pid_t tid;
	int idx;
	__u64 rng;
	timer_t timer;
	bool have_timer;
	int value;
	atomic_int cur_op;		/* -1: between commands */
	atomic_uint cur_id;		/* id and file of the command */
	atomic_int cur_slot;
	/* a chain: valid commands in order on one id */
	bool chain;
	int chain_slot;
	__u32 chain_id;
	__u16 chain_port;
	__u32 last_id;			/* of the last CREATE_ID */
	/*
	 * Mid-page, alone in its page: a response pointer whose low bytes a
	 * malformed command changed still lands in memory nobody else uses.
	 */
	union answer *resp;
	unsigned char cmd[4096];
	unsigned char odd[4096 + 16];	/* cmd moved off 8-byte alignment */
};

struct cmd {
	__u32 op;
	__u32 cmd;
	__u16 in;
	__u16 out;
	size_t len;
	int slot;		/* of fds[] */
	int fd;
	__u32 id;		/* the id picked, for the log */
	__u64 response;	/* where the answer should be */
};

static void failure(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pthread_mutex_lock(&log_lock);
	fprintf(stderr, "ucma_fuzz: FAIL: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	pthread_mutex_unlock(&log_lock);
	va_end(ap);
	atomic_fetch_add(&failures, 1);
}

/* xorshift64*: cheap, and the same sequence for the same seed */
static __u64 rnd(struct thread *t)
{
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return t->rng * 0x2545F4914F6CDD1Dull;
}

static __u32 rnd_below(struct thread *t, __u32 n)
{
	return n ? (__u32)(rnd(t) % n) : 0;
}

static bool chance(struct thread *t, unsigned int percent)
{
	return rnd_below(t, 100) < percent;
}

static void rnd_fill(struct thread *t, void *buf, size_t len)
{
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)rnd(t);
}

static int pick_fd(struct thread *t)
{
	return atomic_load(&fds[rnd_below(t, opt.files)]);
}

/*
 * An id: mostly one seen recently, written to the file it was seen on,
 * sometimes any number or any file.
 */
static __u32 pick_id(struct thread *t, struct cmd *c, atomic_ullong *pool)
{
	unsigned long long e;
	int slot;

	if (t->chain)
		return c->id = t->chain_id;
	switch (rnd_below(t, 10)) {
	case 0:
		return c->id = (__u32)rnd(t);
	case 1:
		return c->id = rnd_below(t, 8);
	default:
		e = atomic_load(&pool[rnd_below(t, POOL)]);
		slot = (int)(e >> 32) - 1;
		if (slot >= 0 && slot < opt.files && chance(t, 85)) {
			c->slot = slot;
			c->fd = atomic_load(&fds[slot]);
		}
		return c->id = (__u32)e;
	}
}

static void remember(struct thread *t, atomic_ullong *pool, __u32 id, int slot)
{
	atomic_store(&pool[rnd_below(t, POOL)],
		     (unsigned long long)(slot + 1) << 32 | id);
}

static __u64 new_uid(void)
{
	return UID_TAG | (atomic_fetch_add(&next_uid, 1) & ~UID_MASK);
}

/* Where an answer goes: mostly our buffer, sometimes nowhere good. */
static __u64 pick_response(struct thread *t)
{
	if (t->chain)
		return (uintptr_t)t->resp;
	switch (rnd_below(t, 40)) {
	case 0:
		return 0;
	case 1:
		return (uintptr_t)bad_page;
	case 2:
		return (uintptr_t)ro_page;
	case 3:
		return 0xffff888000000000ull;	/* the kernel's direct map */
	case 4:
		/* the last bytes of a page: a long answer overruns */
		return (uintptr_t)bad_page - 8;
	default:
		return (uintptr_t)t->resp;
	}
}

static __u16 pick_port(struct thread *t)
{
	return htons(PORT_BASE + rnd_below(t, PORTS));
}

/* An address: mostly the device's, sometimes wildcard, IPv6, AF_IB, junk. */
static int fill_addr(struct thread *t, void *ss, bool mcast)
{
	struct sockaddr_in *sin = ss;
	struct sockaddr_in6 *sin6 = ss;

	memset(ss, 0, sizeof(struct sockaddr_storage));
	if (t->chain) {
		sin->sin_family = AF_INET;
		sin->sin_port = t->chain_port;
		sin->sin_addr = opt.addr;
		return sizeof(*sin);
	}
	switch (rnd_below(t, 12)) {
	case 0:
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = pick_port(t);
		if (chance(t, 50))
			sin6->sin6_addr = in6addr_loopback;
		return sizeof(*sin6);
	case 1:
		sin->sin_family = AF_IB;
		rnd_fill(t, (char *)ss + 2, 46);
		return 48;
	case 2:
		rnd_fill(t, ss, sizeof(struct sockaddr_storage));
		return rnd_below(t, 129);
	case 3:
		sin->sin_family = AF_INET;
		sin->sin_port = pick_port(t);
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return sizeof(*sin);
	case 4:
		sin->sin_family = AF_INET;
		sin->sin_port = pick_port(t);
		return sizeof(*sin);	/* INADDR_ANY */
	default:
		sin->sin_family = AF_INET;
		sin->sin_port = pick_port(t);
		if (mcast)
			sin->sin_addr.s_addr = htonl(0xe6000001 + rnd_below(t, 4));
		else
			sin->sin_addr = opt.addr;
		return sizeof(*sin);
	}
}

/*
 * -x answer_own.  Stock rdma_cm lets ACCEPT or REJECT through on the
 * active side of a connection whose REQ is outstanding: it resets the
 * ib_cm id to IDLE without cancelling the REQ MAD, and destroying the id
 * then waits until the MAD's retries run out (~100 s on rxe, far longer
 * with a large ACK_TIMEOUT: tests/cm_probe.sh, answer_active).  A reject
 * or a second accept after an accept (REP outstanding) seems to do the
 * same from TIMEWAIT (60 s stalls in a 1M-command soak, "state 13 -> 0").
 * The option keeps the fuzzer clear of both: an id number is marked
 * before and after CONNECT on it and by its first ACCEPT or REJECT, and
 * unmarked only where it names a new id that cannot have been connected
 * or answered yet (CREATE_ID answer, CONNECT_REQUEST event); a marked id
 * gets no ACCEPT or REJECT.
 */
#define MARKS			1048576		/* ids above: never marked */
static atomic_bool marks[MARKS];

static void mark(__u32 id, bool on)
{
	if (opt.no_answer_own && id < MARKS)
		atomic_store(&marks[id], on);
}

/* Mark @id; true if it was marked already. */
static bool mark_once(__u32 id)
{
	return opt.no_answer_own && id < MARKS && atomic_exchange(&marks[id], true);
}

/* The offset of the id in the body of command @cmd, -1 if not marked. */
static int mark_offset(__u32 cmd)
{
	switch (cmd) {
	case RDMA_USER_CM_CMD_CONNECT:
		return offsetof(struct rdma_ucm_connect, id);
	case RDMA_USER_CM_CMD_ACCEPT:
		return offsetof(struct rdma_ucm_accept, id);
	case RDMA_USER_CM_CMD_REJECT:
		return offsetof(struct rdma_ucm_reject, id);
	default:
		return -1;
	}
}

static double elapsed(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t_start.tv_sec) +
	       (now.tv_nsec - t_start.tv_nsec) / 1e9;
}

static void check_event(struct thread *t, struct cmd *c,
			const struct rdma_ucm_event_resp *ev)
{
	if (ev->event >= NR_EVENTS)
		failure("thread %d: event number %u", t->idx, ev->event);
	if (ev->reserved)
		failure("thread %d: event reserved field 0x%x", t->idx, ev->reserved);
	if (ev->uid && (ev->uid & UID_MASK) != UID_TAG)
		failure("thread %d: event %u carries uid 0x%llx, not one of ours",
			t->idx, ev->event, (unsigned long long)ev->uid);
	if (ev->event == 4 /* CONNECT_REQUEST */) {
		mark(ev->id, false);
		remember(t, ids, ev->id, c->slot);
	}
}

/*
 * A timer that interrupts a blocking GET_EVENT of this thread; it repeats,
 * in case it fires before the thread is in the wait.
 */
static void arm_timer(struct thread *t, long ms)
{
	struct itimerspec its = {
		.it_value.tv_nsec = ms * 1000000L,
		.it_interval.tv_nsec = ms ? 5000000L : 0,
	};
	struct sigevent sev = {
		.sigev_notify = SIGEV_THREAD_ID,
		.sigev_signo = SIGUSR1,
	};

	if (!t->have_timer) {
		sev._sigev_un._tid = t->tid;
		if (timer_create(CLOCK_MONOTONIC, &sev, &t->timer))
			return;
		t->have_timer = true;
	}
	timer_settime(t->timer, 0, &its, NULL);
}

/*
 * The offset of the user pointer in the body of command @cmd, -1 if it
 * has none.  A malformed command keeps a pointer we chose there: the
 * kernel must not write into memory of ours that is in use.
 */
static int pointer_offset(__u32 cmd)
{
	switch (cmd) {
	case RDMA_USER_CM_CMD_CREATE_ID:
		return offsetof(struct rdma_ucm_create_id, response);
	case RDMA_USER_CM_CMD_DESTROY_ID:
	case RDMA_USER_CM_CMD_BIND_IP:
	case RDMA_USER_CM_CMD_QUERY_ROUTE:
	case RDMA_USER_CM_CMD_INIT_QP_ATTR:
	case RDMA_USER_CM_CMD_GET_EVENT:
	case RDMA_USER_CM_CMD_SET_OPTION:
	case RDMA_USER_CM_CMD_JOIN_IP_MCAST:
	case RDMA_USER_CM_CMD_LEAVE_MCAST:
	case RDMA_USER_CM_CMD_MIGRATE_ID:
	case RDMA_USER_CM_CMD_QUERY:
	case RDMA_USER_CM_CMD_JOIN_MCAST:
		return 0;
	default:
		return -1;
	}
}

/* The offset of the uid in the body of command @cmd, -1 if it has none. */
static int uid_offset(__u32 cmd)
{
	switch (cmd) {
	case RDMA_USER_CM_CMD_CREATE_ID:
	case RDMA_USER_CM_CMD_ACCEPT:
		return 0;
	case RDMA_USER_CM_CMD_JOIN_IP_MCAST:
		return offsetof(struct rdma_ucm_join_ip_mcast, uid);
	case RDMA_USER_CM_CMD_JOIN_MCAST:
		return offsetof(struct rdma_ucm_join_mcast, uid);
	default:
		return -1;
	}
}

/* Write the command; check and log the result; 0 or -errno. */
static int run(struct thread *t, struct cmd *c)
{
	struct rdma_ucm_cmd_hdr *hdr = (void *)t->cmd;
	unsigned char *body = t->cmd + sizeof(*hdr);
	int off = pointer_offset(c->cmd), uoff = uid_offset(c->cmd), moff;
	__u64 ptr = 0, uid = 0;
	__u32 mid = 0;
	unsigned char *buf;
	bool wait;
	ssize_t ret;
	int err = 0;

	hdr->cmd = c->cmd;
	hdr->in = c->in;
	hdr->out = c->out;
	if (off >= 0) {
		if (c->op == OP_GARBAGE) {
			c->response = pick_response(t);
			memcpy(body + off, &c->response, sizeof(ptr));
		}
		memcpy(&ptr, body + off, sizeof(ptr));
	}
	/* every uid we pass is tagged: an event can only carry one of those */
	if (uoff >= 0) {
		memcpy(&uid, body + uoff, sizeof(uid));
		if (uid && (c->op == OP_GARBAGE || (uid & UID_MASK) != UID_TAG)) {
			uid = new_uid();
			memcpy(body + uoff, &uid, sizeof(uid));
		}
	}
	if (c->op != OP_GARBAGE && !t->chain && chance(t, 8)) {
		/* a malformed header around a valid body */
		switch (rnd_below(t, 5)) {
		case 0:
			hdr->in = rnd_below(t, c->in + 1);
			break;
		case 1:
			hdr->out = rnd_below(t, c->out + 1);
			break;
		case 2:
			c->len = rnd_below(t, c->len + 1);
			break;
		case 3:
			hdr->in = (__u16)rnd(t);
			break;
		default:
			rnd_fill(t, body, rnd_below(t, 16));
			if (off >= 0)
				memcpy(body + off, &ptr, sizeof(ptr));
			if (uoff >= 0)
				memcpy(body + uoff, &uid, sizeof(uid));
			break;
		}
	}
	/*
	 * For a differential run: stock reads on past a short hdr.in,
	 * takes any QP type in RDMA_PS_IB and writes MIGRATE_ID's answer
	 * whatever hdr.out says, where we refuse on purpose.
	 */
	if (opt.no_stock_lax && c->op != OP_GARBAGE) {
		struct rdma_ucm_create_id *b = (void *)body;

		if (hdr->in < c->in)
			hdr->in = c->in;
		if (c->cmd == RDMA_USER_CM_CMD_MIGRATE_ID && hdr->out < 4)
			hdr->out = 4;
		if (c->cmd == RDMA_USER_CM_CMD_CREATE_ID && b->ps == RDMA_PS_IB &&
		    !(b->qp_type >= 2 && b->qp_type <= 4) &&
		    b->qp_type != 9 && b->qp_type != 10)
			b->qp_type = 2;		/* RC */
	}
	moff = mark_offset(c->cmd);
	if (moff >= 0) {
		memcpy(&mid, body + moff, sizeof(mid));
		if (c->cmd == RDMA_USER_CM_CMD_CONNECT) {
			mark(mid, true);
		} else if (mark_once(mid)) {
			atomic_fetch_add(&skipped, 1);
			return -ECANCELED;
		}
	}
	atomic_store(&t->cur_id, c->id);
	atomic_store(&t->cur_slot, c->slot);
	/*
	 * Now and then the answer's page is unmapped (it reads as zeros
	 * again): the kernel then copies the answer with a page fault,
	 * which GET_EVENT takes on a path of its own.
	 */
	if (chance(t, 10))
		madvise((void *)((uintptr_t)t->resp & ~(uintptr_t)(PAGE - 1)),
			PAGE, MADV_DONTNEED);
	else
		memset(t->resp, 0, sizeof(*t->resp));
	/* half the files block in GET_EVENT: a timer interrupts the wait */
	wait = hdr->cmd == RDMA_USER_CM_CMD_GET_EVENT;
	if (wait)
		arm_timer(t, 1 + rnd_below(t, 20));
	/* now and then from an odd address: the header is read another way */
	buf = t->cmd;
	if (chance(t, 10) && c->len <= sizeof(t->cmd)) {
		buf = t->odd + (-(uintptr_t)t->odd & 7) + 1 + rnd_below(t, 7);
		memcpy(buf, t->cmd, c->len);
	}
	ret = write(c->fd, buf, c->len);
	if (ret < 0)
		err = errno;
	if (wait)
		arm_timer(t, 0);
	if (ret >= 0 && (size_t)ret != c->len)
		failure("thread %d: %s wrote %zd of %zu", t->idx,
			op_names[c->op], ret, c->len);

	atomic_fetch_add(&results[c->op][err ? 1 : 0], 1);
	if (opt.log) {
		pthread_mutex_lock(&log_lock);
		printf("%ld %d %s file=%d id=%u cmd=%u in=%u out=%u len=%zu -> %s",
		       atomic_load(&issued), t->idx, op_names[c->op], c->slot,
		       c->id, hdr->cmd, hdr->in, hdr->out, c->len,
		       err ? strerror(err) : "ok");
		if (hdr->cmd == RDMA_USER_CM_CMD_CREATE_ID) {
			struct rdma_ucm_create_id *b = (void *)body;

			printf(" ps=%u qp=%u", b->ps, b->qp_type);
		}
		if (!err && c->response == (uintptr_t)t->resp &&
		    (hdr->cmd == RDMA_USER_CM_CMD_CREATE_ID ||
		     hdr->cmd == RDMA_USER_CM_CMD_JOIN_IP_MCAST ||
		     hdr->cmd == RDMA_USER_CM_CMD_JOIN_MCAST))
			printf(" new=%u", t->resp->id.id);
		if (!err && c->response == (uintptr_t)t->resp &&
		    hdr->cmd == RDMA_USER_CM_CMD_GET_EVENT)
			printf(" event=%u id=%u status=%d", t->resp->event.event,
			       t->resp->event.id, (int)t->resp->event.status);
		putchar('\n');
		fflush(stdout);
		pthread_mutex_unlock(&log_lock);
	}
	if (err)
		return -err;
	if (c->cmd == RDMA_USER_CM_CMD_CONNECT)
		mark(mid, true);

	/* look at answers that landed in our buffer */
	if (c->response != (uintptr_t)t->resp)
		return 0;
	switch (c->cmd) {
	case RDMA_USER_CM_CMD_CREATE_ID:
		t->last_id = t->resp->id.id;
		mark(t->last_id, false);	/* before others can pick it */
		remember(t, ids, t->resp->id.id, c->slot);
		break;
	case RDMA_USER_CM_CMD_JOIN_IP_MCAST:
	case RDMA_USER_CM_CMD_JOIN_MCAST:
		remember(t, mcs, t->resp->id.id, c->slot);
		break;
	case RDMA_USER_CM_CMD_MIGRATE_ID:
		/* the id now belongs to the file written to */
		remember(t, ids, ((struct rdma_ucm_migrate_id *)body)->id, c->slot);
		break;
	case RDMA_USER_CM_CMD_GET_EVENT:
		if (hdr->out >= offsetof(struct rdma_ucm_event_resp, reserved))
			check_event(t, c, &t->resp->event);
		break;
	}
	return 0;
}

#define BODY(t, type)	((type *)((t)->cmd + sizeof(struct rdma_ucm_cmd_hdr)))

static void prepare(struct thread *t, struct cmd *c, __u32 cmd,
		    size_t in, size_t out)
{
	memset(t->cmd, 0, sizeof(struct rdma_ucm_cmd_hdr) + in + 64);
	c->cmd = cmd;
	c->in = in;
	c->out = out;
	c->len = sizeof(struct rdma_ucm_cmd_hdr) + in;
	c->slot = t->chain ? t->chain_slot : (int)rnd_below(t, opt.files);
	c->fd = atomic_load(&fds[c->slot]);
	c->response = pick_response(t);
}

static void conn_param(struct thread *t, struct rdma_ucm_conn_param *p)
{
	p->qp_num = chance(t, 80) ? rnd_below(t, 64) : (__u32)rnd(t);
	p->private_data_len = chance(t, 50) ? rnd_below(t, 64) : (uint8_t)rnd(t);
	rnd_fill(t, p->private_data, p->private_data_len);
	p->responder_resources = rnd_below(t, 4);
	p->initiator_depth = rnd_below(t, 4);
	p->retry_count = rnd_below(t, 8);
	p->rnr_retry_count = rnd_below(t, 8);
	p->srq = chance(t, 10);
	p->valid = t->chain || !chance(t, 10);
}

/* Even slots are O_NONBLOCK files, odd ones block in GET_EVENT. */
static int open_file(int slot)
{
	return open(opt.dev, O_RDWR | O_CLOEXEC | (slot % 2 ? 0 : O_NONBLOCK));
}

static void chain(struct thread *t);

/* Issue one operation: 0 or the command's -errno. */
static int do_op(struct thread *t, enum op op)
{
	struct cmd c = { .op = op };
	int fd;

	switch (op) {
	case OP_CREATE: {
		struct rdma_ucm_create_id *b = BODY(t, struct rdma_ucm_create_id);
		static const __u16 ps[] = {
			RDMA_PS_TCP, RDMA_PS_TCP, RDMA_PS_UDP, RDMA_PS_IB,
			RDMA_PS_IPOIB, 0, 0x1234,
		};

		prepare(t, &c, RDMA_USER_CM_CMD_CREATE_ID, sizeof(*b), 4);
		b->uid = chance(t, 3) ? 0 : new_uid();
		b->response = c.response;
		b->ps = ps[rnd_below(t, ARRAY_SIZE(ps))];
		b->qp_type = chance(t, 80) ? 2 + rnd_below(t, 3) : (uint8_t)rnd(t);
		break;
	}
	case OP_DESTROY:
	case OP_LEAVE: {
		struct rdma_ucm_destroy_id *b = BODY(t, struct rdma_ucm_destroy_id);

		prepare(t, &c, op == OP_DESTROY ? RDMA_USER_CM_CMD_DESTROY_ID :
			RDMA_USER_CM_CMD_LEAVE_MCAST, sizeof(*b), 4);
		b->response = c.response;
		b->id = pick_id(t, &c, op == OP_DESTROY ? ids : mcs);
		break;
	}
	case OP_BIND_IP: {
		struct rdma_ucm_bind_ip *b = BODY(t, struct rdma_ucm_bind_ip);
		struct sockaddr_storage ss;

		prepare(t, &c, RDMA_USER_CM_CMD_BIND_IP, sizeof(*b), 0);
		fill_addr(t, &ss, false);
		memcpy(&b->addr, &ss, sizeof(b->addr));
		b->id = pick_id(t, &c, ids);
		break;
	}
	case OP_BIND: {
		struct rdma_ucm_bind *b = BODY(t, struct rdma_ucm_bind);

		prepare(t, &c, RDMA_USER_CM_CMD_BIND, sizeof(*b), 0);
		b->addr_size = fill_addr(t, &b->addr, false);
		b->id = pick_id(t, &c, ids);
		break;
	}
	case OP_RESOLVE_IP: {
		struct rdma_ucm_resolve_ip *b = BODY(t, struct rdma_ucm_resolve_ip);
		struct sockaddr_storage ss;

		prepare(t, &c, RDMA_USER_CM_CMD_RESOLVE_IP, sizeof(*b), 0);
		if (chance(t, 30)) {
			fill_addr(t, &ss, false);
			memcpy(&b->src_addr, &ss, sizeof(b->src_addr));
		}
		fill_addr(t, &ss, chance(t, 20));
		memcpy(&b->dst_addr, &ss, sizeof(b->dst_addr));
		b->id = pick_id(t, &c, ids);
		b->timeout_ms = 1 + rnd_below(t, 2000);
		break;
	}
	case OP_RESOLVE_ADDR: {
		struct rdma_ucm_resolve_addr *b = BODY(t, struct rdma_ucm_resolve_addr);

		prepare(t, &c, RDMA_USER_CM_CMD_RESOLVE_ADDR, sizeof(*b), 0);
		if (chance(t, 30))
			b->src_size = fill_addr(t, &b->src_addr, false);
		b->dst_size = fill_addr(t, &b->dst_addr, chance(t, 20));
		b->id = pick_id(t, &c, ids);
		b->timeout_ms = 1 + rnd_below(t, 2000);
		break;
	}
	case OP_RESOLVE_ROUTE: {
		struct rdma_ucm_resolve_route *b = BODY(t, struct rdma_ucm_resolve_route);

		prepare(t, &c, RDMA_USER_CM_CMD_RESOLVE_ROUTE, sizeof(*b), 0);
		b->id = pick_id(t, &c, ids);
		b->timeout_ms = 1 + rnd_below(t, 2000);
		break;
	}
	case OP_QUERY_ROUTE:
	case OP_QUERY: {
		struct rdma_ucm_query *b = BODY(t, struct rdma_ucm_query);

		if (op == OP_QUERY_ROUTE)
			prepare(t, &c, RDMA_USER_CM_CMD_QUERY_ROUTE, sizeof(*b),
				chance(t, 80) ? 208 : rnd_below(t, 300));
		else
			prepare(t, &c, RDMA_USER_CM_CMD_QUERY, sizeof(*b),
				chance(t, 70) ? 280 : rnd_below(t, 600));
		b->response = c.response;
		b->id = pick_id(t, &c, ids);
		b->option = chance(t, 90) ? rnd_below(t, 3) : (__u32)rnd(t);
		break;
	}
	case OP_CONNECT: {
		struct rdma_ucm_connect *b = BODY(t, struct rdma_ucm_connect);

		prepare(t, &c, RDMA_USER_CM_CMD_CONNECT,
			chance(t, 80) ? sizeof(*b) : offsetof(typeof(*b), ece), 0);
		conn_param(t, &b->conn_param);
		b->id = pick_id(t, &c, ids);
		b->ece.vendor_id = chance(t, 20) ? (__u32)rnd(t) : 0;
		break;
	}
	case OP_LISTEN: {
		struct rdma_ucm_listen *b = BODY(t, struct rdma_ucm_listen);

		prepare(t, &c, RDMA_USER_CM_CMD_LISTEN, sizeof(*b), 0);
		b->id = pick_id(t, &c, ids);
		b->backlog = chance(t, 50) ? rnd_below(t, 4) : (__u32)rnd(t);
		break;
	}
	case OP_ACCEPT: {
		struct rdma_ucm_accept *b = BODY(t, struct rdma_ucm_accept);

		prepare(t, &c, RDMA_USER_CM_CMD_ACCEPT,
			chance(t, 80) ? sizeof(*b) : offsetof(typeof(*b), ece), 0);
		b->uid = chance(t, 5) ? 0 : new_uid();
		conn_param(t, &b->conn_param);
		if (chance(t, 20))
			b->conn_param.valid = 0;	/* rdma_establish() */
		b->id = pick_id(t, &c, ids);
		break;
	}
	case OP_REJECT: {
		struct rdma_ucm_reject *b = BODY(t, struct rdma_ucm_reject);

		prepare(t, &c, RDMA_USER_CM_CMD_REJECT, sizeof(*b), 0);
		b->id = pick_id(t, &c, ids);
		b->reason = chance(t, 70) ? 0 : (uint8_t)rnd(t);
		b->private_data_len = (uint8_t)rnd(t);
		rnd_fill(t, b->private_data, b->private_data_len);
		break;
	}
	case OP_DISCONNECT: {
		struct rdma_ucm_disconnect *b = BODY(t, struct rdma_ucm_disconnect);

		prepare(t, &c, RDMA_USER_CM_CMD_DISCONNECT, sizeof(*b), 0);
		b->id = pick_id(t, &c, ids);
		break;
	}
	case OP_INIT_QP_ATTR: {
		struct rdma_ucm_init_qp_attr *b = BODY(t, struct rdma_ucm_init_qp_attr);

		prepare(t, &c, RDMA_USER_CM_CMD_INIT_QP_ATTR, sizeof(*b),
			chance(t, 90) ? 144 : rnd_below(t, 200));
		b->response = c.response;
		b->id = pick_id(t, &c, ids);
		b->qp_state = chance(t, 90) ? rnd_below(t, 7) : (__u32)rnd(t);
		break;
	}
	case OP_GET_EVENT: {
		struct rdma_ucm_get_event *b = BODY(t, struct rdma_ucm_get_event);

		prepare(t, &c, RDMA_USER_CM_CMD_GET_EVENT, sizeof(*b),
			chance(t, 90) ? 336 : rnd_below(t, 400));
		b->response = c.response;
		break;
	}
	case OP_GET_OPTION:
		prepare(t, &c, RDMA_USER_CM_CMD_GET_OPTION, rnd_below(t, 32), 0);
		break;
	case OP_SET_OPTION: {
		struct rdma_ucm_set_option *b = BODY(t, struct rdma_ucm_set_option);

		prepare(t, &c, RDMA_USER_CM_CMD_SET_OPTION, sizeof(*b), 0);
		b->id = pick_id(t, &c, ids);
		b->level = chance(t, 90) ? rnd_below(t, 2) : (__u32)rnd(t);
		b->optname = chance(t, 90) ? rnd_below(t, 4) : (__u32)rnd(t);
		if (opt.no_ib_path && b->level == RDMA_OPTION_IB &&
		    b->optname == RDMA_OPTION_IB_PATH)
			b->level = RDMA_OPTION_ID;
		switch (rnd_below(t, 4)) {
		case 0:
			b->optlen = 1;
			break;
		case 1:
			b->optlen = 4;
			break;
		case 2:
			b->optlen = 72 * rnd_below(t, 4);
			break;
		default:
			b->optlen = (__u32)rnd(t);
			break;
		}
		t->value = (int)rnd(t);
		if (b->optlen <= 4)
			b->optval = (uintptr_t)&t->value;
		else if (chance(t, 80) && b->optlen <= sizeof(*t->resp))
			b->optval = (uintptr_t)t->resp;
		else
			b->optval = pick_response(t);
		if (b->optval == (uintptr_t)t->resp &&
		    b->optlen <= sizeof(*t->resp)) {
			rnd_fill(t, t->resp, b->optlen);
			if (b->optlen >= 72 && chance(t, 50))
				t->resp->raw[0] = 0x1d;	/* GMP|PRIMARY|BIDI */
		}
		break;
	}
	case OP_NOTIFY: {
		struct rdma_ucm_notify *b = BODY(t, struct rdma_ucm_notify);

		prepare(t, &c, RDMA_USER_CM_CMD_NOTIFY, sizeof(*b), 0);
		b->id = pick_id(t, &c, ids);
		b->event = chance(t, 80) ? 3 /* COMM_EST */ : (__u32)rnd(t);
		break;
	}
	case OP_JOIN_IP: {
		struct rdma_ucm_join_ip_mcast *b = BODY(t, struct rdma_ucm_join_ip_mcast);
		struct sockaddr_storage ss;

		prepare(t, &c, RDMA_USER_CM_CMD_JOIN_IP_MCAST, sizeof(*b), 4);
		b->response = c.response;
		b->uid = new_uid();
		fill_addr(t, &ss, true);
		memcpy(&b->addr, &ss, sizeof(b->addr));
		b->id = pick_id(t, &c, ids);
		break;
	}
	case OP_JOIN: {
		struct rdma_ucm_join_mcast *b = BODY(t, struct rdma_ucm_join_mcast);

		prepare(t, &c, RDMA_USER_CM_CMD_JOIN_MCAST, sizeof(*b), 4);
		b->response = c.response;
		b->uid = new_uid();
		b->addr_size = fill_addr(t, &b->addr, true);
		b->join_flags = chance(t, 90) ? rnd_below(t, 2) : (__u16)rnd(t);
		b->id = pick_id(t, &c, ids);
		break;
	}
	case OP_MIGRATE: {
		struct rdma_ucm_migrate_id *b = BODY(t, struct rdma_ucm_migrate_id);

		prepare(t, &c, RDMA_USER_CM_CMD_MIGRATE_ID, sizeof(*b), 4);
		b->response = c.response;
		b->id = pick_id(t, &c, ids);
		switch (rnd_below(t, 10)) {
		case 0:
			b->fd = 0;		/* not an rdma_cm file */
			break;
		case 1:
			b->fd = (__u32)rnd(t);
			break;
		default:
			b->fd = pick_fd(t);
			break;
		}
		break;
	}
	case OP_REOPEN: {
		int slot = rnd_below(t, opt.files);

		fd = open_file(slot);
		if (fd < 0) {
			failure("thread %d: open %s: %s", t->idx, opt.dev,
				strerror(errno));
			return 0;
		}
		/* the old file goes with every id on it, under use */
		atomic_store(&t->cur_slot, slot);
		if (opt.log) {
			pthread_mutex_lock(&log_lock);
			printf("%ld %d reopen file=%d\n", atomic_load(&issued), t->idx, slot);
			fflush(stdout);
			pthread_mutex_unlock(&log_lock);
		}
		fd = atomic_exchange(&fds[slot], fd);
		close(fd);
		atomic_fetch_add(&results[op][0], 1);
		return 0;
	}
	case OP_POLL: {
		struct pollfd p = { .fd = pick_fd(t), .events = POLLIN };

		poll(&p, 1, rnd_below(t, 3));
		atomic_fetch_add(&results[op][0], 1);
		return 0;
	}
	case OP_CHAIN:
		chain(t);
		return 0;
	default: /* OP_GARBAGE */
		prepare(t, &c, (__u32)rnd_below(t, 30), rnd_below(t, 400),
			(__u16)rnd(t));
		if (chance(t, 20))
			c.cmd = (__u32)rnd(t);
		rnd_fill(t, t->cmd + sizeof(struct rdma_ucm_cmd_hdr), c.in);
		if (chance(t, 50))
			c.len = rnd_below(t, c.len + 16);
		break;
	}
	return run(t, &c);
}

/*
 * A listener and a connecting id, with valid commands in order: bind,
 * listen; resolve the address, the route, connect.  The events land on
 * the two files and other threads take them, accept, reject, migrate or
 * destroy the ids, or close the files under them.
 */
static void chain(struct thread *t)
{
	t->chain = true;
	t->chain_port = pick_port(t);

	t->chain_slot = rnd_below(t, opt.files);
	if (do_op(t, OP_CREATE))
		goto out;
	t->chain_id = t->last_id;
	if (do_op(t, OP_BIND) || do_op(t, OP_LISTEN))
		goto out;

	t->chain_slot = rnd_below(t, opt.files);
	if (do_op(t, OP_CREATE))
		goto out;
	t->chain_id = t->last_id;
	if (do_op(t, OP_RESOLVE_ADDR))
		goto out;
	/* the resolutions complete in the background: give them a moment */
	usleep(1000 + rnd_below(t, 4000));
	if (do_op(t, OP_RESOLVE_ROUTE))
		goto out;
	usleep(1000 + rnd_below(t, 4000));
	do_op(t, OP_CONNECT);
out:
	t->chain = false;
}

static unsigned int op_total;

static enum op pick_op(struct thread *t)
{
	unsigned int r, i;

	r = rnd_below(t, op_total);
	for (i = 0; i < NR_OPS; i++) {
		if (r < op_weight[i])
			return i;
		r -= op_weight[i];
	}
	return OP_GARBAGE;
}

static void *worker(void *arg)
{
	struct thread *t = arg;
	int ns = t->idx % opt.netns;

	t->tid = syscall(SYS_gettid);
	/* A namespace is per thread: CREATE_ID takes the caller's. */
	if (ns && setns(netns_fds[ns], CLONE_NEWNET)) {
		failure("thread %d: setns: %s", t->idx, strerror(errno));
		atomic_fetch_sub(&running, 1);
		return NULL;
	}
	while (!atomic_load(&stop)) {
		enum op op;

		if (atomic_fetch_add(&issued, 1) >= opt.commands)
			break;
		if (opt.seconds && elapsed() >= opt.seconds)
			break;
		op = pick_op(t);
		atomic_store(&t->cur_op, op);
		do_op(t, op);
		atomic_store(&t->cur_op, -1);
		atomic_fetch_add(&done, 1);
	}
	if (t->have_timer)
		timer_delete(t->timer);
	atomic_fetch_sub(&running, 1);
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;
}

/*
 * Report progress every 10 s while the threads run.  A command that does
 * not return for a minute is a failure in itself (none of them should
 * block that long: blocking GET_EVENTs are interrupted by a timer): say
 * which, and give up without waiting for it.
 */
static bool watch(struct thread *threads)
{
	long last = -1, idle = 0, n;
	int i, secs = 0;

	while (atomic_load(&running) > 0) {
		sleep(1);
		n = atomic_load(&done);
		idle = n == last ? idle + 1 : 0;
		last = n;
		if (!opt.log && ++secs % 10 == 0) {
			printf("ucma_fuzz: %ld operations after %.0f s\n", n, elapsed());
			fflush(stdout);
		}
		if (idle < 60)
			continue;
		for (i = 0; i < opt.threads; i++) {
			int op = atomic_load(&threads[i].cur_op);

			if (op >= 0)
				failure("thread %d stuck for 60 s in %s (id %u, file %d)",
					i, op_names[op], atomic_load(&threads[i].cur_id),
					atomic_load(&threads[i].cur_slot));
		}
		fflush(stdout);
		return false;
	}
	return true;
}

static void *map_pages(int n)
{
	void *p = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("ucma_fuzz: mmap");
		return NULL;
	}
	return p;
}

/* -x: operations never to issue, by name, and the named behaviours. */
static int exclude(char *list)
{
	char *name, *save = NULL;
	int i;

	for (name = strtok_r(list, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		if (!strcmp(name, "ib_path")) {
			opt.no_ib_path = true;
			continue;
		}
		if (!strcmp(name, "answer_own")) {
			opt.no_answer_own = true;
			continue;
		}
		if (!strcmp(name, "stock_lax")) {
			opt.no_stock_lax = true;
			continue;
		}
		for (i = 0; i < NR_OPS; i++)
			if (!strcmp(name, op_names[i]))
				break;
		if (i == NR_OPS) {
			fprintf(stderr, "ucma_fuzz: no operation '%s'\n", name);
			return -1;
		}
		op_weight[i] = 0;
	}
	return 0;
}

/* One raw command on @fd, header and body in one write(): 0 or -errno. */
static int raw_cmd(int fd, __u32 op, const void *body, __u16 in, __u16 out)
{
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		char body[64];
	} buf = { .hdr = { .cmd = op, .in = in, .out = out } };

	memcpy(buf.body, body, in);
	if (write(fd, &buf, sizeof(buf.hdr) + in) < 0)
		return -errno;
	return 0;
}

/*
 * What a command finds of an id it may not use: another file's id is
 * -EINVAL, a destroyed one -ENOENT (as stock's lookup answers).  Run on
 * one thread before the fuzzing, with two files.
 */
static bool lookup_checks(int fd, int other)
{
	struct rdma_ucm_create_id_resp cresp = {};
	struct rdma_ucm_destroy_id_resp dresp;
	struct rdma_ucm_create_id create = {
		.uid = 1, .response = (__u64)(uintptr_t)&cresp,
		.ps = RDMA_PS_TCP, .qp_type = 2 /* IBV_QPT_RC */,
	};
	struct rdma_ucm_destroy_id destroy = {
		.response = (__u64)(uintptr_t)&dresp,
	};
	struct rdma_ucm_disconnect disc = {};
	int ret;

	ret = raw_cmd(fd, RDMA_USER_CM_CMD_CREATE_ID, &create, sizeof(create),
		      sizeof(cresp));
	if (ret) {
		failure("lookup checks: CREATE_ID: %d", ret);
		return false;
	}
	disc.id = cresp.id;
	destroy.id = cresp.id;
	ret = raw_cmd(other, RDMA_USER_CM_CMD_DISCONNECT, &disc, sizeof(disc), 0);
	if (ret != -EINVAL)
		failure("lookup checks: another file's id: %d, not -EINVAL", ret);
	ret = raw_cmd(other, RDMA_USER_CM_CMD_DESTROY_ID, &destroy,
		      sizeof(destroy), sizeof(dresp));
	if (ret != -EINVAL)
		failure("lookup checks: DESTROY_ID of another file's id: %d", ret);
	ret = raw_cmd(fd, RDMA_USER_CM_CMD_DESTROY_ID, &destroy,
		      sizeof(destroy), sizeof(dresp));
	if (ret) {
		failure("lookup checks: DESTROY_ID: %d", ret);
		return false;
	}
	ret = raw_cmd(fd, RDMA_USER_CM_CMD_DISCONNECT, &disc, sizeof(disc), 0);
	if (ret != -ENOENT)
		failure("lookup checks: destroyed id: %d, not -ENOENT", ret);
	ret = raw_cmd(fd, RDMA_USER_CM_CMD_DESTROY_ID, &destroy,
		      sizeof(destroy), sizeof(dresp));
	if (ret != -ENOENT)
		failure("lookup checks: DESTROY_ID again: %d, not -ENOENT", ret);
	return atomic_load(&failures) == 0;
}

static void print_usage(void)
{
	fprintf(stderr,
		"usage: ucma_fuzz [-s SEED] [-n COMMANDS] [-t THREADS] [-f FILES]\n"
		"                 [-a IPV4] [-T SECONDS] [-l] [-D DEVICE] [-x OP,...]\n"
		"                 [-N NETNS]\n");
	exit(2);
}

/* A new network namespace with lo up, as a descriptor; -1 on failure. */
static int new_netns(void)
{
	int self = open("/proc/thread-self/ns/net", O_RDONLY), fd = -1, s;
	struct ifreq ifr = { .ifr_name = "lo" };

	if (self < 0)
		return -1;
	if (unshare(CLONE_NEWNET)) {
		close(self);
		return -1;
	}
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s >= 0 && !ioctl(s, SIOCGIFFLAGS, &ifr)) {
		ifr.ifr_flags |= IFF_UP;
		if (!ioctl(s, SIOCSIFFLAGS, &ifr))
			fd = open("/proc/thread-self/ns/net", O_RDONLY);
	}
	if (s >= 0)
		close(s);
	if (setns(self, CLONE_NEWNET)) {
		perror("ucma_fuzz: setns back");
		exit(2);
	}
	close(self);
	return fd;
}

int main(int argc, char **argv)
{
	static struct thread threads[MAX_THREADS];
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART */
	const char *addr = "10.0.0.1";
	long ok = 0, err = 0;
	int c, i;

	opt.seed = (__u64)time(NULL) ^ ((__u64)getpid() << 32);
	while ((c = getopt(argc, argv, "s:n:t:f:a:T:lD:x:N:")) != -1) {
		switch (c) {
		case 's':
			opt.seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			opt.commands = strtol(optarg, NULL, 0);
			break;
		case 't':
			opt.threads = atoi(optarg);
			break;
		case 'f':
			opt.files = atoi(optarg);
			break;
		case 'a':
			addr = optarg;
			break;
		case 'T':
			opt.seconds = atoi(optarg);
			break;
		case 'l':
			opt.log = true;
			break;
		case 'D':
			opt.dev = optarg;
			break;
		case 'x':
			if (exclude(optarg))
				print_usage();
			break;
		case 'N':
			opt.netns = atoi(optarg);
			break;
		default:
			print_usage();
		}
	}
	if (opt.threads < 1 || opt.threads > MAX_THREADS ||
	    opt.files < 1 || opt.files > MAX_FILES || opt.commands < 0 ||
	    opt.netns < 1 || opt.netns > MAX_NETNS ||
	    inet_pton(AF_INET, addr, &opt.addr) != 1)
		print_usage();

	for (i = 1; i < opt.netns; i++) {
		netns_fds[i] = new_netns();
		if (netns_fds[i] < 0) {
			fprintf(stderr, "ucma_fuzz: new network namespace: %s\n",
				strerror(errno));
			return 2;
		}
	}
	for (i = 0; i < NR_OPS; i++)
		op_total += op_weight[i];
	sigaction(SIGUSR1, &sa, NULL);
	rw_page = map_pages(3);
	if (!rw_page)
		return 2;
	bad_page = rw_page + PAGE;
	ro_page = rw_page + 2 * PAGE;
	if (mprotect(bad_page, PAGE, PROT_NONE) || mprotect(ro_page, PAGE, PROT_READ)) {
		perror("ucma_fuzz: mprotect");
		return 2;
	}
	for (i = 0; i < opt.files; i++) {
		int fd = open_file(i);

		if (fd < 0) {
			fprintf(stderr, "ucma_fuzz: open %s: %s\n", opt.dev,
				strerror(errno));
			return 2;
		}
		atomic_store(&fds[i], fd);
	}

	if (opt.files > 1 && !lookup_checks(atomic_load(&fds[0]),
					    atomic_load(&fds[1])))
		return 1;

	printf("ucma_fuzz: seed %llu, %ld commands, %d threads, %d files, %d netns, address %s\n",
	       (unsigned long long)opt.seed, opt.commands, opt.threads,
	       opt.files, opt.netns, addr);
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t_start);
	for (i = 0; i < opt.threads; i++) {
		threads[i].idx = i;
		atomic_store(&threads[i].cur_op, -1);
		threads[i].rng = opt.seed * 0x9E3779B97F4A7C15ull + i + 1;
		threads[i].resp = map_pages(1);
		if (!threads[i].resp)
			return 2;
		threads[i].resp = (void *)((char *)threads[i].resp + PAGE / 4);
		atomic_fetch_add(&running, 1);
		if (pthread_create(&threads[i].pthread, NULL, worker, &threads[i])) {
			atomic_fetch_sub(&running, 1);
			fprintf(stderr, "ucma_fuzz: pthread_create failed\n");
			atomic_store(&stop, true);
			opt.threads = i;
			break;
		}
	}
	if (!watch(threads))
		return 1;
	for (i = 0; i < opt.threads; i++)
		pthread_join(threads[i].pthread, NULL);

	/* close() destroys whatever is left, with its events and joins */
	for (i = 0; i < opt.files; i++)
		close(atomic_load(&fds[i]));

	for (i = 0; i < NR_OPS; i++) {
		long o = atomic_load(&results[i][0]), e = atomic_load(&results[i][1]);

		ok += o;
		err += e;
		if (o || e)
			printf("ucma_fuzz:   %-15s %8ld ok %8ld errors\n", op_names[i], o, e);
	}
	if (opt.no_answer_own)
		printf("ucma_fuzz:   %-15s %8ld\n", "answer_own skip",
		       atomic_load(&skipped));
	/* an operation issues one command, several (a chain) or none */
	printf("ucma_fuzz: %ld operations\n", atomic_load(&done));
	printf("ucma_fuzz: %ld commands (%ld ok, %ld errors) in %.1f s, %ld check failures\n",
	       ok + err, ok, err, elapsed(), atomic_load(&failures));
	return atomic_load(&failures) ? 1 : 0;
}
