// SPDX-License-Identifier: GPL-2.0
/*
 * A one-way stream of checked bytes, over TCP or over rsockets (and so
 * over RDMA WRITEs and SENDs of an iWARP QP): the client sends MiB
 * megabytes of a pattern that depends on each byte's offset, the server
 * checks every byte and answers with one byte once all arrived, and
 * both print the rate they saw.
 *
 *   swiw_pump [-r] -l ADDR -p PORT -m MiB            server
 *   swiw_pump [-r] -b ADDR -s ADDR -p PORT -m MiB    client
 *
 * Exit status 0 only if the server saw every byte as sent (its last
 * line: "ok N bytes ..."), and the client got the server's answer.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <rdma/rsocket.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CHUNK	(256 * 1024)

static int use_rs;

#define CALL(f, ...) (use_rs ? r##f(__VA_ARGS__) : f(__VA_ARGS__))

static uint32_t word_at(uint64_t idx)
{
	uint64_t x = idx * 0x9e3779b97f4a7c15ULL;

	return (uint32_t)(x >> 29) ^ (uint32_t)idx;
}

/* CHUNK-aligned offsets, so whole 32-bit words. */
static void fill(uint32_t *buf, uint64_t off, size_t len)
{
	size_t i;

	for (i = 0; i < len / 4; i++)
		buf[i] = word_at(off / 4 + i);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int addr_of(const char *s, int port, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	return inet_pton(AF_INET, s, &sin->sin_addr) == 1 ? 0 : -1;
}

static int serve(const char *addr, int port, uint64_t total)
{
	static uint32_t buf[CHUNK / 4], want[CHUNK / 4];
	uint64_t got = 0, bad = 0, first_bad = 0;
	struct sockaddr_in sin;
	int ls, fd, one = 1;
	size_t have = 0, i;
	double t0 = 0;
	ssize_t n;
	char c = 'k';

	if (addr_of(addr, port, &sin))
		return 2;
	ls = CALL(socket, AF_INET, SOCK_STREAM, 0);
	if (ls < 0) {
		perror("socket");
		return 1;
	}
	CALL(setsockopt, ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (CALL(bind, ls, (struct sockaddr *)&sin, sizeof(sin)) ||
	    CALL(listen, ls, 1)) {
		perror("bind/listen");
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	fd = CALL(accept, ls, NULL, NULL);
	if (fd < 0) {
		perror("accept");
		return 1;
	}
	while (got < total) {
		n = CALL(recv, fd, (char *)buf + have, CHUNK - have, 0);
		if (n <= 0) {
			fprintf(stderr, "recv: %zd after %llu bytes\n", n,
				(unsigned long long)got);
			return 1;
		}
		if (!t0)
			t0 = now();
		have += n;
		got += n;
		if (have < CHUNK && got < total)
			continue;
		fill(want, got - have, have);
		for (i = 0; i < have / 4; i++) {
			if (buf[i] != want[i]) {
				if (!bad)
					first_bad = got - have + 4 * i;
				bad++;
			}
		}
		have = 0;
	}
	CALL(send, fd, &c, 1, 0);
	if (bad) {
		printf("bad %llu words, first at byte %llu\n",
		       (unsigned long long)bad, (unsigned long long)first_bad);
		return 1;
	}
	printf("ok %llu bytes %.1f MB/s\n", (unsigned long long)got,
	       got / (now() - t0) / 1e6);
	CALL(close, fd);
	CALL(close, ls);
	return 0;
}

static int client(const char *baddr, const char *saddr, int port,
		  uint64_t total)
{
	static uint32_t buf[CHUNK / 4];
	struct sockaddr_in sin, bin;
	uint64_t off = 0;
	size_t len, done;
	double t0;
	ssize_t n;
	int fd;
	char c;

	if (addr_of(saddr, port, &sin) || addr_of(baddr, 0, &bin))
		return 2;
	fd = CALL(socket, AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || CALL(bind, fd, (struct sockaddr *)&bin, sizeof(bin)) ||
	    CALL(connect, fd, (struct sockaddr *)&sin, sizeof(sin))) {
		perror("socket/bind/connect");
		return 1;
	}
	t0 = now();
	while (off < total) {
		len = total - off < CHUNK ? total - off : CHUNK;
		fill(buf, off, len);
		for (done = 0; done < len; done += n) {
			n = CALL(send, fd, (char *)buf + done, len - done, 0);
			if (n <= 0) {
				perror("send");
				return 1;
			}
		}
		off += len;
	}
	if (CALL(recv, fd, &c, 1, 0) != 1) {
		fprintf(stderr, "no answer from the server\n");
		return 1;
	}
	printf("sent %llu bytes %.1f MB/s\n", (unsigned long long)total,
	       total / (now() - t0) / 1e6);
	CALL(close, fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *laddr = NULL, *baddr = NULL, *saddr = NULL;
	int opt, port = 7700;
	uint64_t mib = 16;

	while ((opt = getopt(argc, argv, "rl:b:s:p:m:")) != -1) {
		switch (opt) {
		case 'r':
			use_rs = 1;
			break;
		case 'l':
			laddr = optarg;
			break;
		case 'b':
			baddr = optarg;
			break;
		case 's':
			saddr = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'm':
			mib = strtoull(optarg, NULL, 0);
			break;
		default:
			return 2;
		}
	}
	if (laddr)
		return serve(laddr, port, mib << 20);
	if (baddr && saddr)
		return client(baddr, saddr, port, mib << 20);
	fprintf(stderr, "usage: %s [-r] -l ADDR | -b ADDR -s ADDR [-p PORT] [-m MiB]\n",
		argv[0]);
	return 2;
}
