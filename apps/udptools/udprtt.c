/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * udprtt: UDP request-response RTT client, and the echo server it talks to.
 *
 *   udprtt [options] ADDR:PORT          client: prints a JSON summary on stdout
 *   udprtt --server [ADDR:]PORT         echo every datagram back to its sender
 *
 * Each request is S bytes:
 *
 *   0        4        8                16               24
 *   +--------+--------+----------------+----------------+-----------------------+
 *   | magic  | size   | seq (u64)      | send ns (u64)  | pattern(seq, offset)  |
 *   +--------+--------+----------------+----------------+-----------------------+
 *
 * (host byte order: only this program reads it back). The client keeps every
 * request's send time (CLOCK_MONOTONIC) and, for each reply, rebuilds the bytes it
 * sent and compares the whole datagram: a reply that differs in any byte or in
 * length is corrupted. A request without a correct reply within --timeout is lost
 * (a reply after that is counted late, not received).
 *
 * Pacing: --rate 0 (default) sends the next request as soon as the window has room;
 * with --inflight 1 (default) that is one request in flight, ping-pong. --rate R
 * sends on a fixed schedule of R per second with at most --inflight outstanding (a
 * send held back by a full window is counted in "window_full").
 *
 * RTT quantiles come from a histogram of 128 buckets per power of two (dp_hist,
 * src/common/dp_hist.h): pQ is the nearest-rank value sorted[ceil(Q * n) - 1],
 * reported as the top of its bucket, so never below it and less than 1/128
 * (0.78 %) above it; exact below 256 ns. min, max, mean and stddev are exact.
 *
 * Exit status: 0 ran (whatever was lost), 1 runtime error, 2 bad command line.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <netinet/in.h>
#include <sys/socket.h>

#include "dp_hist.h"
#include "udp_common.h"

#define RTT_MAGIC    0x54545255u /* "URTT" little-endian */
#define RTT_HDR      24u
#define RTT_MAX_SIZE 65507u
#define RTT_BATCH    32u
#define EXIT_USAGE   2

/* the RTT histogram: 128 buckets per power of two, quantiles less than 1/128 high */
#define RTT_HIST_SUB_BITS 7

enum req_state {
	REQ_UNSENT = 0,
	REQ_PENDING,
	REQ_ANSWERED,
	REQ_CORRUPT,
	REQ_EXPIRED,
	REQ_SEND_FAILED,
};

struct req {
	uint64_t send_ns;
	uint64_t rtt_ns;
	uint8_t state;
};

struct client_opts {
	uint64_t count;
	uint64_t warmup;
	uint32_t size;
	double rate;
	uint32_t inflight;
	uint64_t timeout_ns;
	const char *samples;
	const char *target;
	const char *bind;
	uint64_t corrupt_every; /* server, for tests: flip a byte of every Nth datagram */
	uint64_t drop_every;    /* server, for tests: do not answer every Nth datagram */
};

struct counters {
	uint64_t sent;
	uint64_t send_errors;
	uint64_t received;
	uint64_t corrupted;
	uint64_t corrupted_unmatched;
	uint64_t late;
	uint64_t duplicate;
	uint64_t icmp_errors;
	uint64_t window_full;
	uint64_t lost;
};

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: udprtt [options] ADDR:PORT      request-response client (JSON summary on "
		"stdout)\n"
		"       udprtt --server [ADDR:]PORT     echo server (JSON counts on stdout at "
		"SIGINT/SIGTERM)\n"
		"\n"
		"  -n, --count N        measured requests (default 10000)\n"
		"  -w, --warmup N       requests sent first and not measured (default 0)\n"
		"  -s, --size S         datagram payload bytes, %u..%u (default 64)\n"
		"  -r, --rate R         requests per second on a fixed schedule; 0 = next as soon "
		"as the\n"
		"                       window has room (default 0)\n"
		"  -k, --inflight K     requests outstanding at most (default 1: one in flight)\n"
		"  -t, --timeout MS     a request without a reply after MS is lost (default 1000)\n"
		"  -o, --samples FILE   write 'seq rtt_ns' for every measured reply\n"
		"  -b, --bind ADDR:PORT bind the client socket first\n"
		"      --server         echo mode\n"
		"      --corrupt-every N  (server, for tests) flip one byte of every Nth reply\n"
		"      --drop-every N     (server, for tests) do not answer every Nth datagram\n"
		"  -h, --help\n"
		"ADDR:PORT is a.b.c.d:port or [ipv6]:port. Quantiles are exact nearest-rank "
		"values.\n",
		RTT_HDR, RTT_MAX_SIZE);
}

/* ---- payload ---- */

static inline uint8_t
pattern_byte(uint64_t seq, uint32_t off)
{
	return (uint8_t)(seq * 131u + off * 7u + 0x5au);
}

static void
payload_fill(uint8_t *buf, uint32_t size, uint64_t seq, uint64_t send_ns)
{
	uint32_t magic = RTT_MAGIC, off;

	memcpy(buf, &magic, 4);
	memcpy(buf + 4, &size, 4);
	memcpy(buf + 8, &seq, 8);
	memcpy(buf + 16, &send_ns, 8);
	for (off = RTT_HDR; off < size; off++)
		buf[off] = pattern_byte(seq, off);
}

/* ---- client ---- */

static int
parse_client(int argc, char **argv, struct client_opts *o, bool *server, const char **srv_arg)
{
	static const struct option lo[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "size", required_argument, NULL, 's' },
		{ "rate", required_argument, NULL, 'r' },
		{ "inflight", required_argument, NULL, 'k' },
		{ "timeout", required_argument, NULL, 't' },
		{ "samples", required_argument, NULL, 'o' },
		{ "bind", required_argument, NULL, 'b' },
		{ "server", no_argument, NULL, 'S' },
		{ "corrupt-every", required_argument, NULL, 'C' },
		{ "drop-every", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->count = 10000;
	o->size = 64;
	o->inflight = 1;
	o->timeout_ns = 1000ull * 1000000ull;
	while ((c = getopt_long(argc, argv, "n:w:s:r:k:t:o:b:h", lo, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (udp_parse_u64(optarg, 1, 100000000, &o->count) < 0)
				goto bad;
			break;
		case 'w':
			if (udp_parse_u64(optarg, 0, 100000000, &o->warmup) < 0)
				goto bad;
			break;
		case 's':
			if (udp_parse_u64(optarg, RTT_HDR, RTT_MAX_SIZE, &v) < 0)
				goto bad;
			o->size = (uint32_t)v;
			break;
		case 'r':
			errno = 0;
			o->rate = strtod(optarg, &end);
			if (errno || *end || !(o->rate >= 0) || o->rate > 1e8)
				goto bad;
			break;
		case 'k':
			if (udp_parse_u64(optarg, 1, 65536, &v) < 0)
				goto bad;
			o->inflight = (uint32_t)v;
			break;
		case 't':
			if (udp_parse_u64(optarg, 1, 3600000, &v) < 0)
				goto bad;
			o->timeout_ns = v * 1000000ull;
			break;
		case 'o':
			o->samples = optarg;
			break;
		case 'b':
			o->bind = optarg;
			break;
		case 'S':
			*server = true;
			break;
		case 'C':
			if (udp_parse_u64(optarg, 1, UINT32_MAX, &o->corrupt_every) < 0)
				goto bad;
			break;
		case 'D':
			if (udp_parse_u64(optarg, 1, UINT32_MAX, &o->drop_every) < 0)
				goto bad;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "udprtt: expected one ADDR:PORT (got %d arguments)\n",
			argc - optind);
		usage(stderr);
		return -EINVAL;
	}
	if ((o->corrupt_every || o->drop_every) && !*server) {
		fprintf(stderr, "udprtt: --corrupt-every and --drop-every are server options\n");
		return -EINVAL;
	}
	if (*server)
		*srv_arg = argv[optind];
	else
		o->target = argv[optind];
	return 0;
bad:
	fprintf(stderr, "udprtt: bad value '%s' for -%c (see --help)\n", optarg, c);
	return -EINVAL;
}

struct client {
	const struct client_opts *o;
	int fd;
	struct req *reqs;
	uint64_t total;  /* warmup + count */
	uint64_t next;   /* next seq to send */
	uint64_t oldest; /* every seq below it is settled */
	uint64_t outstanding;
	struct counters c;
	uint8_t *sendbuf;
	uint8_t *expect;
	uint8_t (*rbufs)[RTT_MAX_SIZE + 1];
};

static inline bool
measured(const struct client *cl, uint64_t seq)
{
	return seq >= cl->o->warmup;
}

static void
settle(struct client *cl, uint64_t seq, uint8_t state)
{
	struct req *r = &cl->reqs[seq];

	r->state = state;
	cl->outstanding--;
}

static void
expire(struct client *cl, uint64_t now)
{
	while (cl->oldest < cl->next) {
		struct req *r = &cl->reqs[cl->oldest];

		if (r->state == REQ_PENDING) {
			if (now - r->send_ns < cl->o->timeout_ns)
				break;
			settle(cl, cl->oldest, REQ_EXPIRED);
		}
		cl->oldest++;
	}
}

static void
handle_reply(struct client *cl, const uint8_t *buf, size_t len, uint64_t now)
{
	uint32_t magic = 0;
	uint64_t seq = UINT64_MAX;
	struct req *r;

	if (len >= RTT_HDR) {
		memcpy(&magic, buf, 4);
		memcpy(&seq, buf + 8, 8);
	}
	if (magic != RTT_MAGIC || seq >= cl->next) {
		if (measured(cl, cl->next ? cl->next - 1 : 0))
			cl->c.corrupted_unmatched++;
		return;
	}
	r = &cl->reqs[seq];
	switch (r->state) {
	case REQ_PENDING:
		payload_fill(cl->expect, cl->o->size, seq, r->send_ns);
		if (len != cl->o->size || memcmp(buf, cl->expect, len) != 0) {
			settle(cl, seq, REQ_CORRUPT);
			if (measured(cl, seq))
				cl->c.corrupted++;
			return;
		}
		r->rtt_ns = now - r->send_ns;
		settle(cl, seq, REQ_ANSWERED);
		if (measured(cl, seq))
			cl->c.received++;
		return;
	case REQ_EXPIRED:
		if (measured(cl, seq))
			cl->c.late++;
		return;
	default:
		if (measured(cl, seq))
			cl->c.duplicate++;
		return;
	}
}

static void
drain(struct client *cl)
{
	struct mmsghdr msgs[RTT_BATCH];
	struct iovec iov[RTT_BATCH];
	unsigned int i;
	int n;

	for (;;) {
		memset(msgs, 0, sizeof(msgs));
		for (i = 0; i < RTT_BATCH; i++) {
			iov[i].iov_base = cl->rbufs[i];
			iov[i].iov_len = RTT_MAX_SIZE + 1;
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
		}
		n = recvmmsg(cl->fd, msgs, RTT_BATCH, MSG_DONTWAIT, NULL);
		if (n < 0) {
			if (errno == ECONNREFUSED) {
				cl->c.icmp_errors++;
				continue;
			}
			return; /* EAGAIN, EINTR */
		}
		{
			uint64_t now = udp_now_ns();

			for (i = 0; i < (unsigned int)n; i++)
				handle_reply(cl, cl->rbufs[i], msgs[i].msg_len, now);
		}
		if ((unsigned int)n < RTT_BATCH)
			return;
	}
}

static void
send_one(struct client *cl, uint64_t now)
{
	uint64_t seq = cl->next++;
	struct req *r = &cl->reqs[seq];
	ssize_t n;

	r->send_ns = now;
	payload_fill(cl->sendbuf, cl->o->size, seq, now);
	n = send(cl->fd, cl->sendbuf, cl->o->size, 0);
	if (n != (ssize_t)cl->o->size) {
		r->state = REQ_SEND_FAILED;
		if (measured(cl, seq))
			cl->c.send_errors++;
		return;
	}
	r->state = REQ_PENDING;
	cl->outstanding++;
	if (measured(cl, seq))
		cl->c.sent++;
}

static int
client_open(const struct client_opts *o)
{
	struct sockaddr_storage dst, src;
	socklen_t dlen, slen;
	int fd, bufsz = 4 << 20;

	if (udp_parse_addr(o->target, &dst, &dlen) < 0) {
		fprintf(stderr, "udprtt: bad target '%s' (a.b.c.d:port or [ipv6]:port)\n",
			o->target);
		return -EINVAL;
	}
	fd = socket(dst.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("udprtt: socket");
		return -errno;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bufsz, sizeof(bufsz));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bufsz, sizeof(bufsz));
	if (o->bind) {
		if (udp_parse_addr(o->bind, &src, &slen) < 0) {
			fprintf(stderr, "udprtt: bad --bind '%s'\n", o->bind);
			close(fd);
			return -EINVAL;
		}
		if (bind(fd, (struct sockaddr *)&src, slen) < 0) {
			fprintf(stderr, "udprtt: bind %s: %s\n", o->bind, strerror(errno));
			close(fd);
			return -EIO;
		}
	}
	if (connect(fd, (struct sockaddr *)&dst, dlen) < 0) {
		fprintf(stderr, "udprtt: connect %s: %s\n", o->target, strerror(errno));
		close(fd);
		return -EIO;
	}
	return fd;
}

static void
wait_for(struct client *cl, uint64_t now, uint64_t until)
{
	struct pollfd pfd = { .fd = cl->fd, .events = POLLIN };
	struct timespec ts;
	uint64_t d = until > now ? until - now : 0;

	ts.tv_sec = (time_t)(d / 1000000000ull);
	ts.tv_nsec = (long)(d % 1000000000ull);
	if (ppoll(&pfd, 1, &ts, NULL) > 0)
		drain(cl);
}

/* the sample standard deviation of the measured RTTs, around their @p mean */
static double
rtt_stddev(const struct client *cl, double mean)
{
	double var = 0;
	uint64_t i, n = 0;

	for (i = cl->o->warmup; i < cl->total; i++) {
		const struct req *r = &cl->reqs[i];

		if (r->state != REQ_ANSWERED)
			continue;
		var += ((double)r->rtt_ns - mean) * ((double)r->rtt_ns - mean);
		n++;
	}
	return n > 1 ? sqrt(var / (double)(n - 1)) : 0;
}

static void
print_summary(const struct client *cl, double elapsed_s, const struct dp_hist *h)
{
	const struct client_opts *o = cl->o;
	const struct counters *c = &cl->c;
	const double mean = dp_hist_mean(h);

	printf("{\"tool\": \"udprtt\", \"target\": \"%s\", \"size\": %u, \"requests\": %" PRIu64
	       ", \"warmup\": %" PRIu64 ", \"mode\": \"%s\", \"rate\": %.1f, \"inflight_max\": %u, "
	       "\"timeout_ms\": %" PRIu64 ",\n",
		o->target, o->size, o->count, o->warmup,
		o->rate > 0       ? "rate"
		: o->inflight > 1 ? "window"
				  : "pingpong",
		o->rate, o->inflight, o->timeout_ns / 1000000u);
	printf(" \"sent\": %" PRIu64 ", \"received\": %" PRIu64 ", \"lost\": %" PRIu64
	       ", \"corrupted\": %" PRIu64 ", \"corrupted_unmatched\": %" PRIu64
	       ", \"late\": %" PRIu64 ", \"duplicate\": %" PRIu64 ", \"send_errors\": %" PRIu64
	       ", \"icmp_errors\": %" PRIu64 ", \"window_full\": %" PRIu64 ",\n",
		c->sent, c->received, c->lost, c->corrupted + c->corrupted_unmatched,
		c->corrupted_unmatched, c->late, c->duplicate, c->send_errors, c->icmp_errors,
		c->window_full);
	printf(" \"elapsed_s\": %.6f, \"achieved_rate\": %.1f,\n", elapsed_s,
		elapsed_s > 0 ? (double)c->sent / elapsed_s : 0.0);
	if (h->count == 0) {
		printf(" \"rtt_us\": null}\n");
		return;
	}
	printf(" \"rtt_us\": {\"n\": %" PRIu64 ", \"min\": %.3f, \"p50\": %.3f, \"p90\": %.3f, "
	       "\"p99\": %.3f, \"p999\": %.3f, \"max\": %.3f, \"mean\": %.3f, \"stddev\": %.3f}}\n",
		h->count, h->min / 1e3, dp_hist_percentile(h, 50000) / 1e3,
		dp_hist_percentile(h, 90000) / 1e3, dp_hist_percentile(h, 99000) / 1e3,
		dp_hist_percentile(h, 99900) / 1e3, h->max / 1e3, mean / 1e3,
		rtt_stddev(cl, mean) / 1e3);
}

static int
run_client(const struct client_opts *o)
{
	struct client cl;
	uint64_t t0, t_end, now, interval = 0, i;
	struct dp_hist *h = NULL;
	FILE *sf = NULL;
	int rc = 1;

	memset(&cl, 0, sizeof(cl));
	cl.o = o;
	cl.total = o->warmup + o->count;
	cl.fd = client_open(o);
	if (cl.fd < 0)
		return cl.fd == -EINVAL ? EXIT_USAGE : 1;
	cl.reqs = calloc(cl.total, sizeof(*cl.reqs));
	cl.sendbuf = malloc(RTT_MAX_SIZE);
	cl.expect = malloc(RTT_MAX_SIZE);
	cl.rbufs = malloc(sizeof(*cl.rbufs) * RTT_BATCH);
	h = dp_hist_create(RTT_HIST_SUB_BITS);
	if (!cl.reqs || !cl.sendbuf || !cl.expect || !cl.rbufs || !h) {
		fprintf(stderr, "udprtt: out of memory for %" PRIu64 " requests\n", cl.total);
		goto out;
	}
	if (o->samples) {
		sf = fopen(o->samples, "w");
		if (!sf) {
			fprintf(stderr, "udprtt: %s: %s\n", o->samples, strerror(errno));
			goto out;
		}
	}
	udp_signals_install();
	if (o->rate > 0)
		interval = (uint64_t)(1e9 / o->rate);
	t0 = udp_now_ns();
	while (!udp_stop) {
		now = udp_now_ns();
		expire(&cl, now);
		if (cl.next >= cl.total) {
			if (cl.outstanding == 0)
				break;
			wait_for(&cl, now, cl.reqs[cl.oldest].send_ns + o->timeout_ns);
			continue;
		}
		{
			/* the schedule of --rate, or now */
			uint64_t due = interval ? t0 + cl.next * interval : now;
			uint64_t until = due;

			if (now >= due && cl.outstanding < o->inflight) {
				send_one(&cl, now);
				if (cl.outstanding >= o->inflight || interval)
					drain(&cl);
				continue;
			}
			if (now >= due) {
				/* window full: wait for a reply or the oldest's timeout (with
				 * --rate a send held back; ping-pong is always waiting) */
				if (interval)
					cl.c.window_full++;
				until = cl.reqs[cl.oldest].send_ns + o->timeout_ns;
			} else if (cl.outstanding) {
				uint64_t exp = cl.reqs[cl.oldest].send_ns + o->timeout_ns;

				if (exp < until)
					until = exp;
			}
			wait_for(&cl, now, until);
		}
	}
	t_end = udp_now_ns();
	/* everything still unsettled is lost */
	for (i = o->warmup; i < cl.total; i++) {
		struct req *r = &cl.reqs[i];

		if (r->state == REQ_PENDING || r->state == REQ_EXPIRED)
			cl.c.lost++;
		if (r->state == REQ_ANSWERED) {
			dp_hist_record(h, r->rtt_ns);
			if (sf)
				fprintf(sf, "%" PRIu64 " %" PRIu64 "\n", i - o->warmup, r->rtt_ns);
		}
	}
	print_summary(&cl, (double)(t_end - t0) / 1e9, h);
	fflush(stdout);
	rc = 0;
	if (sf && fclose(sf) != 0) {
		fprintf(stderr, "udprtt: writing %s: %s\n", o->samples, strerror(errno));
		rc = 1;
	}
	sf = NULL;
out:
	if (sf)
		fclose(sf);
	dp_hist_free(h);
	free(cl.rbufs);
	free(cl.expect);
	free(cl.sendbuf);
	free(cl.reqs);
	close(cl.fd);
	return rc;
}

/* ---- server ---- */

static int
run_server(const char *arg, const struct client_opts *o)
{
	struct sockaddr_storage ss, peers[RTT_BATCH];
	struct mmsghdr msgs[RTT_BATCH];
	struct iovec iov[RTT_BATCH];
	uint8_t(*bufs)[RTT_MAX_SIZE + 1];
	uint64_t echoed = 0, bytes = 0, send_fail = 0, seen = 0, dropped = 0, corrupted = 0;
	socklen_t len;
	unsigned int i;
	int fd, n, m, bufsz = 4 << 20;
	char a[80];

	if (udp_parse_addr(arg, &ss, &len) < 0 && udp_parse_port_any(arg, AF_INET, &ss, &len) < 0) {
		fprintf(stderr,
			"udprtt: --server wants PORT, a.b.c.d:port or [ipv6]:port, not '%s'\n",
			arg);
		return EXIT_USAGE;
	}
	fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("udprtt: socket");
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bufsz, sizeof(bufsz));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bufsz, sizeof(bufsz));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0) {
		fprintf(stderr, "udprtt: bind %s: %s\n",
			udp_addr_str((struct sockaddr *)&ss, a, sizeof(a)), strerror(errno));
		close(fd);
		return 1;
	}
	bufs = malloc(sizeof(*bufs) * RTT_BATCH);
	if (!bufs) {
		close(fd);
		return 1;
	}
	udp_signals_install();
	len = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &len); /* the port bound, with port 0 */
	fprintf(stderr, "udprtt: echoing on %s\n",
		udp_addr_str((struct sockaddr *)&ss, a, sizeof(a)));
	while (!udp_stop) {
		memset(msgs, 0, sizeof(msgs));
		for (i = 0; i < RTT_BATCH; i++) {
			iov[i].iov_base = bufs[i];
			iov[i].iov_len = RTT_MAX_SIZE + 1;
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
			msgs[i].msg_hdr.msg_name = &peers[i];
			msgs[i].msg_hdr.msg_namelen = sizeof(peers[i]);
		}
		/* blocks for the first datagram, then takes what is queued */
		n = recvmmsg(fd, msgs, RTT_BATCH, MSG_WAITFORONE, NULL);
		if (n <= 0)
			continue; /* EINTR (stop), or a transient error */
		for (i = 0, m = 0; i < (unsigned int)n; i++) {
			seen++;
			bytes += msgs[i].msg_len;
			if (o->drop_every && seen % o->drop_every == 0) {
				dropped++;
				continue;
			}
			if (o->corrupt_every && seen % o->corrupt_every == 0 &&
				msgs[i].msg_len > 0) {
				bufs[i][msgs[i].msg_len - 1] ^= 0xff;
				corrupted++;
			}
			/* compact the batch over the dropped ones */
			iov[i].iov_len = msgs[i].msg_len;
			if ((unsigned int)m != i) {
				iov[m] = iov[i];
				msgs[m].msg_hdr = msgs[i].msg_hdr;
				msgs[m].msg_hdr.msg_iov = &iov[m];
			}
			m++;
		}
		n = m;
		if (n == 0)
			continue;
		m = sendmmsg(fd, msgs, (unsigned int)n, 0);
		if (m < 0)
			m = 0;
		echoed += (uint64_t)m;
		send_fail += (uint64_t)(n - m);
	}
	printf("{\"tool\": \"udprtt-server\", \"received\": %" PRIu64 ", \"echoed\": %" PRIu64
	       ", \"bytes\": %" PRIu64 ", \"send_failed\": %" PRIu64 ", \"dropped\": %" PRIu64
	       ", \"corrupted\": %" PRIu64 "}\n",
		seen, echoed, bytes, send_fail, dropped, corrupted);
	fflush(stdout);
	free(bufs);
	close(fd);
	return 0;
}

int
main(int argc, char **argv)
{
	struct client_opts o;
	bool server = false;
	const char *srv_arg = NULL;

	if (parse_client(argc, argv, &o, &server, &srv_arg) < 0)
		return EXIT_USAGE;
	if (server)
		return run_server(srv_arg, &o);
	return run_client(&o);
}
