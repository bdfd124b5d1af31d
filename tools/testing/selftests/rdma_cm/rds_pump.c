// SPDX-License-Identifier: GPL-2.0
/*
 * RDS over RDMA between two local addresses (tests/ulp.sh, rds_rdma).
 *
 *   rds_pump -a ADDR_A -b ADDR_B [-p PORT] [-n MSGS] [-t SECONDS] [-r [-A]]
 *
 * Two AF_RDS sockets, A bound to ADDR_A:PORT and B to ADDR_B:PORT, both
 * on the IB transport (SO_RDS_TRANSPORT before bind: never TCP, and the
 * IB transport does not hand a connection to a local address over to
 * RDS's loopback transport), so everything goes over one RDMA CM
 * connection between the two addresses.
 *
 * Messages: A and B each send MSGS messages to the other at once, their
 * sizes cycling from 32 bytes to RDS's largest, 1 MiB (one 4 KiB receive
 * fragment and many).  Each starts with a header: sequence number,
 * length and a 64-bit FNV-1a sum of the rest, which is a pattern derived
 * from the sender and the sequence number.  The receiver checks the
 * source address, that the sequence numbers come 0, 1, 2 ... (each
 * message once, in order), the length, the sum, and the bytes against the
 * pattern.  One byte more than 1 MiB must be refused with EMSGSIZE.
 *
 * RDMA: for each of a few region sizes (4 KiB to 1 MiB, one at an
 * offset that is not page aligned), B fills a region with a pattern and
 * has RDS map it (RDS_GET_MR, or, where RDS/IB cannot register a region
 * without a connection's QP, RDS_CMSG_RDMA_MAP on the message that
 * announces it); A takes the cookie from the message's RDS_CMSG_RDMA_DEST,
 * with -r RDMA-reads the region, and RDMA-writes another pattern into it
 * (RDS_CMSG_RDMA_ARGS, each with RDS_RDMA_NOTIFY_ME: A waits for its
 * RDS_CMSG_RDMA_STATUS).  A checks what it read; B checks what was
 * written, and that the bytes around the region are untouched, then
 * frees the region (RDS_FREE_MR; a second free of the cookie must fail).
 *
 * Last, the RDS/IB connection of the pair must be listed by
 * RDS_INFO_IB_CONNECTIONS, and nothing more may arrive on either socket.
 * Prints what it checked and "N check failures"; exit status 0 when N is
 * 0, 1 on failures, 2 when it could not run or timed out.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/rds.h>

#ifndef AF_RDS
#define AF_RDS 21
#endif

/* RDS_MAX_MSG_SIZE in net/rds/rds.h: the largest payload of a message. */
#define RDS_MAX 1048576u
#define PUMP_MAGIC 0x52445350u		/* "RDSP" */
#define PAGE 4096u
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum { KIND_DATA = 1, KIND_MAP, KIND_READ, KIND_WRITE, KIND_DONE };

struct pump_hdr {
	uint32_t magic;
	uint16_t kind;
	uint16_t from;		/* 0: A, 1: B */
	uint32_t seq;
	uint32_t len;		/* the whole message, this header included */
	uint64_t sum;		/* FNV-1a 64 of the bytes after the header */
	uint64_t arg;		/* MAP, READ, WRITE: region size; DONE: failures */
};

struct side {
	const char *name;
	int id;
	int fd;
	struct sockaddr_in self;
	struct sockaddr_in peer;
	/* what this side received in the message phase */
	unsigned long msgs;
	unsigned long long bytes;
};

static struct side sides[2];
static int nmsgs = 45;
static int timeout_s = 300;
static unsigned short port = 18700;
static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long failures;

static const uint32_t sizes[] = {
	32, 33, 200, 4064, 4096, 4097, 65536, 262145, RDS_MAX,
};

#define NSIZES ARRAY_SIZE(sizes)

/* One line of output, whole; a failure also counts (under the same lock). */
static void vline(bool fail, const char *fmt, va_list ap)
{
	pthread_mutex_lock(&fail_lock);
	if (fail) {
		failures++;
		printf("FAIL: ");
	}
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	pthread_mutex_unlock(&fail_lock);
}

static void failf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(true, fmt, ap);
	va_end(ap);
}

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(false, fmt, ap);
	va_end(ap);
}

static unsigned long rdma_reads, rdma_writes;

/* How far it got: a hang is a failure too. */
static void on_alarm(int sig)
{
	char msg[160];
	int n;

	(void)sig;
	n = snprintf(msg, sizeof(msg),
		     "FAIL: timed out: A received %lu, B %lu messages; %lu RDMA reads, %lu writes done\n",
		     sides[0].msgs, sides[1].msgs, rdma_reads, rdma_writes);
	if (write(1, msg, n) < 0)
		_exit(2);
	_exit(2);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* xorshift64*: the same bytes for the same seed on both ends. */
static void fill(void *buf, size_t n, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
	unsigned char *p = buf;
	size_t i;

	if (!x)
		x = 1;
	for (i = 0; i < n; i += 8) {
		uint64_t v;

		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		v = x * 0x2545f4914f6cdd1dull;
		memcpy(p + i, &v, n - i < 8 ? n - i : 8);
	}
}

static uint64_t fnv1a(const void *buf, size_t n)
{
	const unsigned char *p = buf;
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* First offset where A and B differ, or -1. */
static long first_diff(const unsigned char *a, const unsigned char *b, size_t n)
{
	size_t i;

	if (!memcmp(a, b, n))
		return -1;
	for (i = 0; i < n && a[i] == b[i]; i++)
		;
	return (long)i;
}

static uint64_t data_seed(int from, uint32_t seq)
{
	return ((uint64_t)(from + 1) << 40) | seq;
}

static uint64_t read_seed(int round)
{
	return 0x5245414400000000ull | round;
}

static uint64_t write_seed(int round)
{
	return 0x5752495400000000ull | round;
}

static void *xalloc(size_t n)
{
	void *p;

	if (posix_memalign(&p, PAGE, n ? n : 1)) {
		printf("FAIL: cannot allocate %zu bytes\n", n);
		exit(2);
	}
	return p;
}

static const char *addr_str(const struct sockaddr_in *sin, char *buf, size_t n)
{
	char a[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &sin->sin_addr, a, sizeof(a));
	snprintf(buf, n, "%s:%u", a, ntohs(sin->sin_port));
	return buf;
}

static void open_side(struct side *s, const char *addr, int id)
{
	int trans = RDS_TRANS_IB, bufsz = 4 << 20, got = -1;
	socklen_t len = sizeof(got);

	s->id = id;
	s->name = id ? "B" : "A";
	memset(&s->self, 0, sizeof(s->self));
	s->self.sin_family = AF_INET;
	s->self.sin_port = htons(port);
	if (inet_pton(AF_INET, addr, &s->self.sin_addr) != 1) {
		printf("FAIL: bad address %s\n", addr);
		exit(2);
	}
	s->fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	if (s->fd < 0) {
		printf("FAIL: socket(AF_RDS): %s\n", strerror(errno));
		exit(2);
	}
	if (setsockopt(s->fd, SOL_RDS, SO_RDS_TRANSPORT, &trans, sizeof(trans))) {
		printf("FAIL: %s: SO_RDS_TRANSPORT RDS_TRANS_IB: %s\n", s->name,
		       strerror(errno));
		exit(2);
	}
	/*
	 * RDS takes half of sk_sndbuf as the most a socket may have queued,
	 * and a message larger than that is refused: 1 MiB needs more than
	 * the default.  The receive side uses half of sk_rcvbuf before it
	 * marks the port congested.
	 */
	if (setsockopt(s->fd, SOL_SOCKET, SO_SNDBUFFORCE, &bufsz, sizeof(bufsz)) ||
	    setsockopt(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, &bufsz, sizeof(bufsz))) {
		printf("FAIL: %s: SO_SNDBUFFORCE/SO_RCVBUFFORCE: %s\n", s->name,
		       strerror(errno));
		exit(2);
	}
	if (bind(s->fd, (struct sockaddr *)&s->self, sizeof(s->self))) {
		printf("FAIL: %s: bind %s on RDS_TRANS_IB: %s\n", s->name, addr,
		       strerror(errno));
		exit(2);
	}
	if (getsockopt(s->fd, SOL_RDS, SO_RDS_TRANSPORT, &got, &len) ||
	    got != RDS_TRANS_IB) {
		printf("FAIL: %s: transport after bind is %d (%s), not RDS_TRANS_IB\n",
		       s->name, got, strerror(errno));
		exit(2);
	}
}

/* sendmsg of HDR + BODY to the peer with optional control data. */
static ssize_t send_msg(struct side *s, const struct pump_hdr *hdr,
			const void *body, size_t body_len, void *ctl, size_t ctl_len)
{
	struct iovec iov[2] = {
		{ .iov_base = (void *)hdr, .iov_len = sizeof(*hdr) },
		{ .iov_base = (void *)body, .iov_len = body_len },
	};
	struct msghdr mh = {
		.msg_name = &s->peer,
		.msg_namelen = sizeof(s->peer),
		.msg_iov = iov,
		.msg_iovlen = body_len ? 2 : 1,
		.msg_control = ctl,
		.msg_controllen = ctl_len,
	};

	return sendmsg(s->fd, &mh, 0);
}

/* --- messages ------------------------------------------------------------ */

static void *sender(void *arg)
{
	struct side *s = arg;
	unsigned char *body = xalloc(RDS_MAX);
	struct pump_hdr hdr = { .magic = PUMP_MAGIC, .kind = KIND_DATA };
	int i;

	hdr.from = s->id;
	for (i = 0; i < nmsgs; i++) {
		size_t blen = sizes[i % NSIZES] - sizeof(hdr);
		ssize_t n;

		hdr.seq = i;
		hdr.len = sizes[i % NSIZES];
		fill(body, blen, data_seed(s->id, i));
		hdr.sum = fnv1a(body, blen);
		n = send_msg(s, &hdr, body, blen, NULL, 0);
		if (n != (ssize_t)hdr.len) {
			failf("%s: send of message %d (%u bytes): %zd (%s)", s->name, i,
			      hdr.len, n, n < 0 ? strerror(errno) : "short");
			break;
		}
	}
	free(body);
	return NULL;
}

/*
 * Receive one message into BUF (LEN bytes) with control data into CTL;
 * the number of bytes, -1 on error (reported).
 */
static ssize_t recv_msg(struct side *s, void *buf, size_t len, void *ctl,
			size_t *ctl_len, int *flags, const char *what)
{
	struct sockaddr_in from;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr mh = {
		.msg_name = &from,
		.msg_namelen = sizeof(from),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl,
		.msg_controllen = ctl ? *ctl_len : 0,
	};
	char a[64], b[64];
	ssize_t n;

	memset(&from, 0, sizeof(from));
	n = recvmsg(s->fd, &mh, 0);
	if (n < 0) {
		failf("%s: recvmsg waiting for %s: %s", s->name, what, strerror(errno));
		return -1;
	}
	if (ctl)
		*ctl_len = mh.msg_controllen;
	*flags = mh.msg_flags;
	/* an RDMA notification has no data and no sender */
	if (n > 0 && (from.sin_addr.s_addr != s->peer.sin_addr.s_addr ||
		      from.sin_port != s->peer.sin_port)) {
		failf("%s: %s came from %s, not from %s", s->name, what,
		      addr_str(&from, a, sizeof(a)), addr_str(&s->peer, b, sizeof(b)));
		return -1;
	}
	return n;
}

static int check_hdr(struct side *s, const struct pump_hdr *h, ssize_t n,
		     int flags, int kind, uint32_t seq, const char *what)
{
	if (flags & MSG_TRUNC) {
		failf("%s: %s truncated (%zd bytes)", s->name, what, n);
		return -1;
	}
	if (n < (ssize_t)sizeof(*h) || h->magic != PUMP_MAGIC) {
		failf("%s: %s: %zd bytes without a header", s->name, what, n);
		return -1;
	}
	if (h->kind != kind || h->from != !s->id || h->seq != seq) {
		failf("%s: %s: got kind %u from %u seq %u, expected kind %d from %d seq %u",
		      s->name, what, h->kind, h->from, h->seq, kind, !s->id, seq);
		return -1;
	}
	if (h->len != (uint64_t)n) {
		failf("%s: %s: %zd bytes, the header says %u", s->name, what, n, h->len);
		return -1;
	}
	return 0;
}

static void *receiver(void *arg)
{
	struct side *s = arg;
	size_t cap = RDS_MAX + PAGE;
	unsigned char *buf = xalloc(cap), *want = xalloc(RDS_MAX);
	const struct pump_hdr *h = (const void *)buf;
	int i, flags;

	for (i = 0; i < nmsgs; i++) {
		char what[48];
		size_t blen;
		ssize_t n;
		long d;

		snprintf(what, sizeof(what), "message %d", i);
		n = recv_msg(s, buf, cap, NULL, NULL, &flags, what);
		if (n < 0 || check_hdr(s, h, n, flags, KIND_DATA, i, what))
			break;
		blen = n - sizeof(*h);
		if (fnv1a(buf + sizeof(*h), blen) != h->sum) {
			failf("%s: message %d (%zd bytes): checksum differs", s->name, i, n);
			break;
		}
		fill(want, blen, data_seed(!s->id, i));
		d = first_diff(buf + sizeof(*h), want, blen);
		if (d >= 0) {
			failf("%s: message %d (%zd bytes): wrong byte at %ld", s->name, i,
			      n, d + (long)sizeof(*h));
			break;
		}
		s->msgs++;
		s->bytes += n;
	}
	free(buf);
	free(want);
	return NULL;
}

static void message_phase(void)
{
	pthread_t th[4];
	struct pump_hdr hdr = { .magic = PUMP_MAGIC, .kind = KIND_DATA };
	unsigned char *big = xalloc(RDS_MAX + 1);
	double t0 = now_s();
	ssize_t n;
	int i;

	/* one byte over RDS's limit: refused, nothing sent */
	memset(big, 0, RDS_MAX + 1);
	hdr.seq = 0xffffffff;
	hdr.len = RDS_MAX + 1;
	n = send_msg(&sides[0], &hdr, big, RDS_MAX + 1 - sizeof(hdr), NULL, 0);
	if (n >= 0 || errno != EMSGSIZE)
		failf("A: a message of %u bytes: %zd (%s), expected EMSGSIZE", RDS_MAX + 1,
		      n, n < 0 ? strerror(errno) : "sent");
	free(big);

	for (i = 0; i < 2; i++) {
		pthread_create(&th[2 * i], NULL, receiver, &sides[i]);
		pthread_create(&th[2 * i + 1], NULL, sender, &sides[i]);
	}
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < 2; i++)
		say("messages %s->%s: %lu of %d received once, in order, intact, %llu bytes",
		    sides[!i].name, sides[i].name, sides[i].msgs, nmsgs, sides[i].bytes);
	say("messages: %.1f s", now_s() - t0);
}

/* --- RDMA ------------------------------------------------------------------ */

struct region_case {
	uint32_t size;
	uint32_t offset;	/* from a page boundary, in both buffers */
};

static const struct region_case regions[] = {
	{ 4096, 0 }, { 12345, 100 }, { 65536, 0 }, { RDS_MAX, 0 },
};

#define NREGIONS ARRAY_SIZE(regions)

static int getmr_works = -1;	/* -1: not tried yet */
static int anon_reads;
static int do_reads;	/* -r: RDMA reads too (see dirty_alloc()) */

/*
 * A's buffer for the RDMA write and, with -r, the read: N zeroed bytes
 * whose pages are marked dirty already.  When the acknowledgment of an RDMA read comes
 * in, RDS (6.1) unpins the pages it read into from its receive tasklet
 * with unpin_user_pages_dirty_lock(), which locks a page that is not
 * dirty yet: "BUG: sleeping function called from invalid context".
 * Pages of a memfd that write() filled are dirty from the start, which
 * was meant to avoid that report, but one run on rxe still showed it
 * (not understood yet); -A uses anonymous memory, as most applications
 * would.
 */
static unsigned char *dirty_alloc(size_t n)
{
	static const unsigned char zero[PAGE];
	unsigned char *p;
	size_t done;
	int fd;

	if (anon_reads) {
		p = xalloc(n);
		memset(p, 0, n);
		return p;
	}
	fd = memfd_create("rds_pump", 0);
	if (fd < 0) {
		printf("FAIL: memfd_create: %s\n", strerror(errno));
		exit(2);
	}
	for (done = 0; done < n; done += PAGE) {
		if (pwrite(fd, zero, PAGE, done) != PAGE) {
			printf("FAIL: write to the memfd: %s\n", strerror(errno));
			exit(2);
		}
	}
	p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		printf("FAIL: mmap of the memfd: %s\n", strerror(errno));
		exit(2);
	}
	close(fd);
	return p;
}

static unsigned long long rdma_bytes;

/* Control data of one cmsg of TYPE with LEN bytes of DATA. */
static size_t put_cmsg(void *ctl, int type, const void *data, size_t len)
{
	struct cmsghdr *c = ctl;

	c->cmsg_level = SOL_RDS;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(c), data, len);
	return CMSG_SPACE(len);
}

/* The payload of cmsg TYPE in CTL (LEN bytes) into OUT; 0 if found. */
static int get_cmsg(void *ctl, size_t ctl_len, int type, void *out, size_t len)
{
	struct msghdr mh = { .msg_control = ctl, .msg_controllen = ctl_len };
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_RDS || c->cmsg_type != type)
			continue;
		if (c->cmsg_len < CMSG_LEN(len))
			return -1;
		memcpy(out, CMSG_DATA(c), len);
		return 0;
	}
	return -1;
}

/*
 * B: map REGION for RDMA and announce it to A with a MAP message that
 * carries the cookie in RDS's extension header.  0 and the cookie, or -1.
 */
static int b_map(struct side *b, int round, unsigned char *region, uint32_t size,
		 rds_rdma_cookie_t *cookie)
{
	struct pump_hdr hdr = {
		.magic = PUMP_MAGIC, .kind = KIND_MAP, .from = b->id, .seq = round,
		.len = sizeof(hdr), .arg = size,
	};
	struct rds_get_mr_args mr = {
		.vec = { .addr = (uintptr_t)region, .bytes = size },
		.cookie_addr = (uintptr_t)cookie,
		.flags = RDS_RDMA_READWRITE,
	};
	union {
		char buf[CMSG_SPACE(sizeof(struct rds_get_mr_args))];
		struct cmsghdr align;
	} ctl;
	size_t ctl_len;
	ssize_t n;
	int tries;

	hdr.sum = fnv1a(region, size);
	*cookie = 0;
	if (getmr_works) {
		if (!setsockopt(b->fd, SOL_RDS, RDS_GET_MR, &mr, sizeof(mr))) {
			if (getmr_works < 0)
				say("RDS_GET_MR: mapped without a message");
			getmr_works = 1;
		} else if (errno == EOPNOTSUPP && getmr_works < 0) {
			/* RDS/IB registers with a fast-registration work
			 * request on a connection's QP, which a bare
			 * setsockopt does not name.
			 */
			say("RDS_GET_MR: %s: mapping with RDS_CMSG_RDMA_MAP instead",
			    strerror(errno));
			getmr_works = 0;
		} else {
			failf("B: RDS_GET_MR of %u bytes: %s", size, strerror(errno));
			return -1;
		}
	}
	for (tries = 0; ; tries++) {
		if (getmr_works)
			ctl_len = put_cmsg(ctl.buf, RDS_CMSG_RDMA_DEST, cookie,
					   sizeof(*cookie));
		else
			ctl_len = put_cmsg(ctl.buf, RDS_CMSG_RDMA_MAP, &mr, sizeof(mr));
		n = send_msg(b, &hdr, NULL, 0, ctl.buf, ctl_len);
		if (n == sizeof(hdr))
			break;
		/*
		 * No QP to register with: the connection is (re)connecting
		 * (sendmsg turns the ENODEV of the mapping into EAGAIN).
		 */
		if (n < 0 && (errno == EAGAIN || errno == ENODEV) && tries < 100) {
			usleep(100000);
			continue;
		}
		failf("B: MAP message of round %d (%u bytes, %s): %zd (%s)", round, size,
		      getmr_works ? "RDS_CMSG_RDMA_DEST" : "RDS_CMSG_RDMA_MAP", n,
		      n < 0 ? strerror(errno) : "short");
		return -1;
	}
	if (!*cookie) {
		failf("B: no cookie for the region of round %d", round);
		return -1;
	}
	return 0;
}

/* A: an RDMA read or write of SIZE bytes at LOCAL, and its notification. */
static int a_rdma(struct side *a, int round, int write, rds_rdma_cookie_t cookie,
		  unsigned char *local, uint32_t size)
{
	struct pump_hdr hdr = {
		.magic = PUMP_MAGIC, .kind = write ? KIND_WRITE : KIND_READ,
		.from = a->id, .seq = round, .len = sizeof(hdr), .arg = size,
	};
	struct rds_iovec vec = { .addr = (uintptr_t)local, .bytes = size };
	struct rds_rdma_args args = {
		.cookie = cookie,
		.remote_vec = { .addr = 0, .bytes = size },
		.local_vec_addr = (uintptr_t)&vec,
		.nr_local = 1,
		.flags = RDS_RDMA_NOTIFY_ME | (write ? RDS_RDMA_READWRITE : 0),
		.user_token = ((uint64_t)round << 1) | write,
	};
	union {
		char buf[CMSG_SPACE(sizeof(struct rds_rdma_args)) +
			 CMSG_SPACE(sizeof(struct rds_rdma_notify))];
		struct cmsghdr align;
	} ctl;
	const char *op = write ? "write" : "read";
	struct rds_rdma_notify note;
	size_t ctl_len;
	char dummy[64];
	int flags;
	ssize_t n;

	if (write)
		hdr.sum = fnv1a(local, size);
	ctl_len = put_cmsg(ctl.buf, RDS_CMSG_RDMA_ARGS, &args, sizeof(args));
	n = send_msg(a, &hdr, NULL, 0, ctl.buf, ctl_len);
	if (n != sizeof(hdr)) {
		failf("A: RDMA %s of round %d (%u bytes): %zd (%s)", op, round, size, n,
		      n < 0 ? strerror(errno) : "short");
		return -1;
	}
	ctl_len = sizeof(ctl.buf);
	n = recv_msg(a, dummy, sizeof(dummy), ctl.buf, &ctl_len, &flags,
		     "an RDMA notification");
	if (n < 0)
		return -1;
	if (n != 0 || get_cmsg(ctl.buf, ctl_len, RDS_CMSG_RDMA_STATUS, &note,
			       sizeof(note))) {
		failf("A: a %zd-byte message instead of the notification of RDMA %s %d",
		      n, op, round);
		return -1;
	}
	if (note.user_token != args.user_token || note.status != RDS_RDMA_SUCCESS) {
		failf("A: RDMA %s %d: token %llu status %d, expected %llu status 0",
		      op, round, (unsigned long long)note.user_token, note.status,
		      (unsigned long long)args.user_token);
		return -1;
	}
	if (write)
		rdma_writes++;
	else
		rdma_reads++;
	rdma_bytes += size;
	return 0;
}

static void rdma_round(int round, const struct region_case *rc)
{
	struct side *a = &sides[0], *b = &sides[1];
	uint32_t size = rc->size, off = rc->offset;
	size_t span = off + size + PAGE;
	unsigned char *bmem = xalloc(span), *amem = dirty_alloc(span);
	unsigned char *region = bmem + off, *local = amem + off;
	unsigned char *want = xalloc(size), buf[256];
	union {
		char buf[CMSG_SPACE(sizeof(rds_rdma_cookie_t)) + 256];
		struct cmsghdr align;
	} ctl;
	const struct pump_hdr *h = (const void *)buf;
	struct rds_free_mr_args fr = { .flags = RDS_RDMA_INVALIDATE };
	rds_rdma_cookie_t cookie, dest = 0;
	uint64_t map_sum;
	size_t ctl_len;
	int flags, bad = 0;
	ssize_t n;
	long d, i;

	/* guard bytes around the region show a write that strays */
	memset(bmem, 0xa5, span);
	fill(region, size, read_seed(round));

	if (b_map(b, round, region, size, &cookie))
		goto out;

	/* A: the announcement and its cookie */
	ctl_len = sizeof(ctl.buf);
	n = recv_msg(a, buf, sizeof(buf), ctl.buf, &ctl_len, &flags, "a MAP message");
	if (n < 0 || check_hdr(a, h, n, flags, KIND_MAP, round, "MAP message"))
		goto out;
	map_sum = h->sum;
	if (get_cmsg(ctl.buf, ctl_len, RDS_CMSG_RDMA_DEST, &dest, sizeof(dest))) {
		failf("A: the MAP message of round %d has no RDS_CMSG_RDMA_DEST", round);
		goto out;
	}
	if (dest != cookie) {
		failf("A: RDS_CMSG_RDMA_DEST %#llx differs from B's cookie %#llx",
		      (unsigned long long)dest, (unsigned long long)cookie);
		goto out;
	}

	/* A reads the region ... */
	if (do_reads) {
		if (a_rdma(a, round, 0, dest, local, size))
			goto out;
		fill(want, size, read_seed(round));
		d = first_diff(local, want, size);
		if (d >= 0 || fnv1a(local, size) != map_sum) {
			failf("A: RDMA read of round %d (%u bytes at offset %u): wrong byte at %ld",
			      round, size, off, d);
			bad++;
		}
	}
	/* ... and writes another pattern into it */
	fill(local, size, write_seed(round));
	if (a_rdma(a, round, 1, dest, local, size))
		goto out;

	/* B: the READ and WRITE messages, in that order, then the bytes */
	if (do_reads) {
		n = recv_msg(b, buf, sizeof(buf), NULL, NULL, &flags, "the READ message");
		if (n < 0 || check_hdr(b, h, n, flags, KIND_READ, round, "READ message"))
			goto out;
	}
	n = recv_msg(b, buf, sizeof(buf), NULL, NULL, &flags, "the WRITE message");
	if (n < 0 || check_hdr(b, h, n, flags, KIND_WRITE, round, "WRITE message"))
		goto out;
	fill(want, size, write_seed(round));
	d = first_diff(region, want, size);
	if (d >= 0 || fnv1a(region, size) != h->sum) {
		failf("B: RDMA write of round %d (%u bytes at offset %u): wrong byte at %ld",
		      round, size, off, d);
		bad++;
	}
	for (i = 0; i < (long)span; i++) {
		if (i == off)
			i += size;
		if (i < (long)span && bmem[i] != 0xa5) {
			failf("B: RDMA write of round %d changed byte %ld outside the region",
			      round, i - (long)off);
			bad++;
			break;
		}
	}
	fr.cookie = cookie;
	if (setsockopt(b->fd, SOL_RDS, RDS_FREE_MR, &fr, sizeof(fr))) {
		failf("B: RDS_FREE_MR of round %d: %s", round, strerror(errno));
		bad++;
	} else if (!setsockopt(b->fd, SOL_RDS, RDS_FREE_MR, &fr, sizeof(fr)) ||
		   errno != EINVAL) {
		failf("B: a second RDS_FREE_MR of the cookie of round %d: %s, expected EINVAL",
		      round, errno == EINVAL ? "succeeded" : strerror(errno));
		bad++;
	}

	/* B tells A it is done with the round */
	{
		struct pump_hdr done = {
			.magic = PUMP_MAGIC, .kind = KIND_DONE, .from = b->id,
			.seq = round, .len = sizeof(done), .arg = bad,
		};

		n = send_msg(b, &done, NULL, 0, NULL, 0);
		if (n != sizeof(done)) {
			failf("B: DONE message: %zd (%s)", n, n < 0 ? strerror(errno) : "short");
			goto out;
		}
	}
	n = recv_msg(a, buf, sizeof(buf), NULL, NULL, &flags, "a DONE message");
	if (n < 0 || check_hdr(a, h, n, flags, KIND_DONE, round, "DONE message"))
		goto out;
	if (!bad)
		say("rdma round %d: %u bytes at offset %u, cookie %#llx (%s): %s, freed",
		    round, size, off, (unsigned long long)cookie,
		    do_reads ? "read, written" : "written",
		    getmr_works ? "RDS_GET_MR" : "RDS_CMSG_RDMA_MAP");
out:
	free(bmem);
	if (anon_reads)
		free(amem);
	else
		munmap(amem, span);
	free(want);
}

/* --- what RDS says ------------------------------------------------------- */

/* An RDS_INFO_* table into a new buffer; its length, or -1. */
static ssize_t rds_info(int fd, int opt, void **out)
{
	socklen_t len = 0;
	void *buf = NULL;
	int tries;

	for (tries = 0; tries < 8; tries++) {
		int ret = getsockopt(fd, SOL_RDS, opt, buf, &len);

		if (ret >= 0) {
			*out = buf;
			return len;
		}
		free(buf);
		buf = NULL;
		if (errno != ENOSPC)
			return -1;
		len += 4096;
		buf = xalloc(len);
	}
	free(buf);
	return -1;
}

static int counters(int fd, const char *const *names, int n, uint64_t *vals)
{
	struct rds_info_counter *c;
	void *buf;
	ssize_t len;
	int i, j;

	len = rds_info(fd, RDS_INFO_COUNTERS, &buf);
	if (len < 0)
		return -1;
	c = buf;
	for (i = 0; i < n; i++) {
		vals[i] = 0;
		for (j = 0; j < len / (ssize_t)sizeof(*c); j++)
			if (!strncmp((char *)c[j].name, names[i], sizeof(c[j].name)))
				vals[i] = c[j].value;
	}
	free(buf);
	return 0;
}

static void check_ib_connection(void)
{
	struct rds_info_rdma_connection *ic;
	char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN];
	int i, found = 0;
	ssize_t len;
	void *buf;

	len = rds_info(sides[0].fd, RDS_INFO_IB_CONNECTIONS, &buf);
	if (len < 0) {
		failf("RDS_INFO_IB_CONNECTIONS: %s", strerror(errno));
		return;
	}
	ic = buf;
	for (i = 0; i < len / (ssize_t)sizeof(*ic); i++) {
		uint32_t s = ic[i].src_addr, d = ic[i].dst_addr;
		uint32_t x = sides[0].self.sin_addr.s_addr, y = sides[1].self.sin_addr.s_addr;

		if (!((s == x && d == y) || (s == y && d == x)))
			continue;
		inet_ntop(AF_INET, &ic[i].src_addr, a, sizeof(a));
		inet_ntop(AF_INET, &ic[i].dst_addr, b, sizeof(b));
		say("RDS/IB connection %s -> %s: send/recv WRs %u/%u, %u SGEs, %u MRs of %u pages",
		    a, b, ic[i].max_send_wr, ic[i].max_recv_wr, ic[i].max_send_sge,
		    ic[i].rdma_mr_max, ic[i].rdma_mr_size);
		found++;
	}
	if (!found)
		failf("RDS_INFO_IB_CONNECTIONS lists no connection of the pair (%zd entries)",
		      len / (ssize_t)sizeof(*ic));
	free(buf);
}

/* Nothing more may arrive: no duplicate, no stray notification. */
static void check_quiet(void)
{
	struct pollfd p[2] = {
		{ .fd = sides[0].fd, .events = POLLIN },
		{ .fd = sides[1].fd, .events = POLLIN },
	};
	unsigned char buf[64];
	int i;

	if (poll(p, 2, 1000) <= 0)
		return;
	for (i = 0; i < 2; i++) {
		ssize_t n;

		if (!(p[i].revents & POLLIN))
			continue;
		n = recv(p[i].fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n >= 0)
			failf("%s: an extra message (%zd bytes) after the last one",
			      sides[i].name, n);
	}
}

static void usage(void)
{
	fprintf(stderr,
		"Usage: rds_pump -a ADDR_A -b ADDR_B [-p PORT] [-n MSGS] [-t SECONDS] [-r [-A]]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const char *const names[] = {
		"send_rdma", "send_rdma_bytes", "recv_delivered", "conn_reset",
		"ib_rdma_mr_8k_used", "ib_rdma_mr_1m_used",
	};
	uint64_t before[6], after[6];
	const char *aa = NULL, *ab = NULL;
	unsigned int i;
	int c;

	while ((c = getopt(argc, argv, "a:b:p:n:t:Ar")) != -1) {
		switch (c) {
		case 'A':
			anon_reads = 1;
			break;
		case 'r':
			do_reads = 1;
			break;
		case 'a':
			aa = optarg;
			break;
		case 'b':
			ab = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'n':
			nmsgs = atoi(optarg);
			break;
		case 't':
			timeout_s = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (!aa || !ab || nmsgs < 0)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, on_alarm);
	alarm(timeout_s);

	open_side(&sides[0], aa, 0);
	open_side(&sides[1], ab, 1);
	sides[0].peer = sides[1].self;
	sides[1].peer = sides[0].self;
	say("A %s:%u and B %s:%u bound on RDS_TRANS_IB", aa, port, ab, port);
	if (counters(sides[0].fd, names, 6, before))
		failf("RDS_INFO_COUNTERS: %s", strerror(errno));

	message_phase();
	for (i = 0; i < NREGIONS && !failures; i++)
		rdma_round(i, &regions[i]);
	if (!failures)
		check_ib_connection();
	check_quiet();

	if (!counters(sides[0].fd, names, 6, after)) {
		printf("counters:");
		for (i = 0; i < 6; i++)
			printf(" %s +%llu", names[i],
			       (unsigned long long)(after[i] - before[i]));
		printf("\n");
		/* one RDMA operation per region, two with -r */
		if (!failures &&
		    after[0] - before[0] != (do_reads ? 2 : 1) * NREGIONS)
			failf("send_rdma went up by %llu, expected %zu",
			      (unsigned long long)(after[0] - before[0]),
			      (do_reads ? 2 : 1) * NREGIONS);
	}
	close(sides[0].fd);
	close(sides[1].fd);
	printf("summary: %lu messages, %llu bytes; RDMA: %lu reads, %lu writes, %llu bytes; "
	       "%lu check failures\n",
	       sides[0].msgs + sides[1].msgs, sides[0].bytes + sides[1].bytes,
	       rdma_reads, rdma_writes, rdma_bytes, failures);
	return failures ? 1 : 0;
}
