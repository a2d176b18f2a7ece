/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target over the endpoint server's control protocol
 * (src/endpoint/dpsock_proto.h, endpoint.c): what an application may send on
 * the [endpoint] socket. The in-process rig of the unit tests
 * (tests/ring_rig.h), brought up once with an [endpoint] section; the server
 * thread runs as it does in dpfwd (dp_endpoint_start()), and the target plays
 * up to three applications on SOCK_SEQPACKET connections.
 *
 * Deterministic without a hook in the server: every message gets a reply or
 * the connection closed, and the server thread works in rounds (one poll,
 * then each ready connection in the order they came, each for up to 8
 * messages). Apart from a pipeline (below), whose answers are all read
 * before anything else is sent, no two messages in a row go on one
 * connection, so each is read in a round that polled after it was sent (the
 * loop over the connection's messages that could have read it early ended in
 * a round before the one that read the message in between). After each
 * message (or pipeline) the target waits for its answer (or the end of the
 * connection), then for the answer to a RESOLVE on a sentinel connection that
 * never binds (-EINVAL, nothing changes): the server is then done with the
 * message. A connection this side closes is taken back in the first round
 * that polls after the close; the round that reads a RESOLVE sent after the
 * close is such a round, but may answer it before the others (the sentinels
 * are the oldest connections), so a second RESOLVE, on the other sentinel,
 * waits for its end.
 *
 * Input: a list of records, each one message on one connection (made on
 * first use; each application's own, its socket, its HELLO, its endpoint):
 *
 *   record = head | fields (template, CTL_FIELDS bytes)
 *          | head (raw) | length | that many bytes, sent as they are
 *          | head (close)
 *          | head (pipeline) | 1..8 records
 *   head   = bits 0-1 connection 0..2, bits 2-4 descriptors attached (enum
 *            fd_kind), bit 5 raw, bits 6-7 the template's op (HELLO, BIND,
 *            RESOLVE, any: op from the fields);
 *            or bits 0-1 = 3, bits 2-3 a connection (mod 3), and bit 4 clear:
 *            close it from this side; bit 4 set: the next bits 5-7 + 1 records
 *            go on it one after the other, each sent before the server answers
 *            the one before (their own connection bits are not read)
 *
 * A template is a well-formed message (the family, an address, a port) that
 * the flags break: magic, version, family, junk in the unused fields, a
 * message one byte short or longer (enum ctl_field, enum ctl_flag).
 *
 * Checked after each message, abort() otherwise: a message the server must
 * refuse (wrong size, magic, version or op; descriptors with a request that
 * takes none or not the one it takes; a request before HELLO, a second HELLO,
 * an unknown family; BIND twice, of the other family, with a
 * descriptor that is not an eventfd; RESOLVE before BIND) is answered rc < 0
 * or the connection closed; a well-formed HELLO is answered 0, a BIND of the
 * wildcard to port 0 with an eventfd (under [endpoint] max) is answered 0;
 * every reply has the magic, the version and the op of the request, rc < 0
 * only as a negative errno and then no descriptor, BIND's a sealed memfd of
 * the size it says, RESOLVE's 0 or 1 (1: a sealed channel memfd and an
 * eventfd); unasked CHANNEL only to bound endpoints, with a memfd and an
 * eventfd. After the input every connection is closed and taken back: the
 * process has the descriptors and dpsock mappings it had before the input,
 * no mbuf is in use over the baseline, and a new application still gets
 * HELLO and BIND (and RESOLVE of itself) answered.
 *
 * Seeds: tests/fuzz/corpus/dpsock_ctl/NNN-*, written by tests/fuzz/gen_seeds.py
 * (python3 tests/fuzz/gen_seeds.py dpsock_ctl); crash-* are inputs that once
 * made this target abort.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <rte_log.h>

#include "dp_endpoint.h"
#include "dp_mem.h"
#include "dpsock_proto.h"
#include "ring_rig.h"

#define NB_CONNS         3
#define MAX_RECORDS      64
#define MAX_MSG          (sizeof(struct dpsock_ctl) + 256)
#define MAX_FDS_IN       4 /* descriptors a reply may carry, as far as we read */
#define WAIT_MS          5000
#define EP_MAX           2 /* [endpoint] max: the third BIND finds it full */
#define ERRNO_MAX        4095
#define MEMFD_SEALED     (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)
#define MAPS_CHECK_EVERY 64
#define FD_WORDS         64 /* descriptors 0..4095 are watched */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Descriptors attached to a message (head bits 2-4). */
enum fd_kind {
	FD_NONE,
	FD_EFD,
	FD_MEMFD,
	FD_EFD_MEMFD,
	FD_PIPE,
	FD_EFD_EFD,
	FD_THREE, /* an eventfd, a memfd and a pipe: more than any message carries */
	FD_EFD_BLOCKING,
};

#define HEAD_CONN(h)       ((h)&3)
#define HEAD_CLOSE         3
#define HEAD_FDS(h)        (((h) >> 2) & 7)
#define HEAD_RAW           0x20
#define HEAD_TOP(h)        ((h) >> 6)
#define HEAD_CLOSE_OF(h)   ((((h) >> 2) & 3) % NB_CONNS)
#define HEAD_PIPELINE      0x10 /* with HEAD_CLOSE: the next records on one connection */
#define HEAD_PIPELINE_N(h) (((h) >> 5) + 1u)
#define PIPELINE_MAX       8

enum tpl_op {
	TOP_HELLO,
	TOP_BIND,
	TOP_RESOLVE,
	TOP_FIELD,
};

/* Template fields, after the head. */
enum ctl_field {
	C_FLAGS,   /* enum ctl_flag */
	C_ADDR,    /* bits 0-2: enum addr_kind; bits 3-4: the connection of A_BOUND */
	C_PORT_HI, /* port; 0xff, n: the port connection n (mod 3) is bound to */
	C_PORT_LO,
	C_OP,     /* TOP_FIELD: the op */
	C_FAMILY, /* G_FAMILY_RAW: the HELLO family and the address's */
	C_JUNK,   /* G_JUNK: in every field that should be zero; G_BAD_*: how bad */
	C_LENMOD, /* G_SHORT: bytes short (1..64), G_LONG: bytes more (1..256) */
	CTL_FIELDS,
};

enum ctl_flag {
	G_BAD_MAGIC = 0x01,
	G_BAD_VERSION = 0x02,
	G_V6 = 0x04,
	G_OTHER_FAMILY = 0x08, /* the address of the family the connection does not have */
	G_FAMILY_RAW = 0x10,
	G_JUNK = 0x20,
	G_SHORT = 0x40,
	G_LONG = 0x80,
};

enum addr_kind {
	A_WILDCARD,
	A_PORT0, /* 198.18.0.1, 2001:db8:10::1 */
	A_PORT1, /* 198.18.1.1, 2001:db8:11::1 */
	A_REMOTE,
	A_LOOPBACK,
	A_MCAST,
	A_BOUND, /* what connection C_ADDR bits 3-4 is bound to */
	A_BYTES, /* the junk byte in every byte of the address */
};

/* One application, as this side knows it. */
struct conn {
	int fd;     /* -1: not connected */
	int family; /* after a HELLO answered 0 */
	bool bound;
	uint8_t addr[16];
	uint16_t port;
	unsigned int chans; /* CHANNEL messages received */
};

/* What the server must do with a message. */
enum expect {
	EX_CLOSE, /* refuse it and close the connection (perhaps an rc < 0 first) */
	EX_FAIL,  /* refuse it: rc < 0, or close */
	EX_OK,    /* rc 0, connection open */
	EX_REPLY, /* one reply (any rc the op may have), connection open */
};

/* What came back on a connection. */
struct reply {
	struct dpsock_ctl m;
	int fds[MAX_FDS_IN];
	unsigned int nfds;
};

static char sock_dir[64];
static char sock_path[96]; /* fits sockaddr_un.sun_path */
static char config_text[2048];

static struct ring_rig rig = {
	.name = "fuzz_dpsock_ctl",
	.prefix = 'k',
	.nb_ports = 2,
	.config_text = config_text,
};

static struct conn conns[NB_CONNS];
static int sentinels[2] = { -1, -1 };
static int last_sock = -1;     /* the connection of the last message sent */
static unsigned int maps_base; /* dpsock regions mapped with no application attached */
static uint64_t inputs;
static size_t cur_size;

static void
cleanup(void)
{
	unsigned int i;

	/* the server thread first: it closes its connections and listens no more */
	dp_endpoint_stop();
	for (i = 0; i < RTE_DIM(sentinels); i++) {
		if (sentinels[i] >= 0)
			close(sentinels[i]);
		sentinels[i] = -1;
	}
	unlink(sock_path);
	rmdir(sock_dir);
}

static __attribute__((noreturn)) void
fail(const char *fmt, const char *what, long v)
{
	fprintf(stderr, "fuzz_dpsock_ctl: ");
	fprintf(stderr, fmt, what, v);
	fprintf(stderr, " (input of %zu bytes)\n", cur_size);
	/* no socket file left behind (a sanitizer's report, which ends the process
	 * elsewhere, leaves /tmp/dpfwd-test-fuzz_dpsock_ctl-sock-*) */
	unlink(sock_path);
	rmdir(sock_dir);
	abort();
}

/* ---- descriptors ---- */

/* The process's descriptors, as a bitmap of their numbers. @return how many. */
static unsigned int
fd_set_of(uint64_t *set, size_t words)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	unsigned int n = 0;

	if (d == NULL)
		fail("%s: %ld", "cannot read /proc/self/fd", errno);
	memset(set, 0, words * sizeof(set[0]));
	while ((e = readdir(d)) != NULL) {
		long fd = strtol(e->d_name, NULL, 10);

		if (e->d_name[0] == '.' || fd == dirfd(d))
			continue;
		if (fd >= 0 && (size_t)fd < words * 64)
			set[fd / 64] |= UINT64_C(1) << (fd % 64);
		n++;
	}
	closedir(d);
	return n;
}

/* Descriptors open now that were not in @p before: named on stderr. @return how many. */
static unsigned int
fd_leaks(const uint64_t *before)
{
	uint64_t now[FD_WORDS];
	unsigned int w, b, n = 0;

	fd_set_of(now, FD_WORDS);
	for (w = 0; w < FD_WORDS; w++)
		for (b = 0; b < 64; b++) {
			char link[64], target[128];
			ssize_t len;

			if (!(now[w] >> b & 1) || (before[w] >> b & 1))
				continue;
			snprintf(link, sizeof(link), "/proc/self/fd/%u", w * 64 + b);
			len = readlink(link, target, sizeof(target) - 1);
			target[len < 0 ? 0 : len] = '\0';
			fprintf(stderr, "fuzz_dpsock_ctl: descriptor %u open: %s\n", w * 64 + b,
				target);
			n++;
		}
	return n;
}

/* Mappings of dpsock regions (the server's: this side maps none). */
static unsigned int
maps_count(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned int n = 0;

	if (f == NULL)
		fail("%s: %ld", "cannot read /proc/self/maps", errno);
	while (fgets(line, sizeof(line), f) != NULL)
		n += strstr(line, "dpsock-") != NULL;
	fclose(f);
	return n;
}

static bool
fd_is(int fd, const char *target)
{
	char link[64], buf[128];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n < 0)
		return false;
	buf[n] = '\0';
	return strncmp(buf, target, strlen(target)) == 0;
}

/* A memfd region the server made: its name, the size it said, sealed against resizing. */
static void
memfd_check(int fd, const char *name, uint64_t size, const char *what)
{
	char want[64];
	struct stat st;
	int seals;

	snprintf(want, sizeof(want), "/memfd:%s", name);
	if (!fd_is(fd, want) || fstat(fd, &st) != 0 || (uint64_t)st.st_size != size || size == 0)
		fail("%s: not a memfd of the size the reply gives (%ld)", what, (long)size);
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & MEMFD_SEALED) != MEMFD_SEALED)
		fail("%s: region memfd not sealed (%ld)", what, seals);
}

/* Descriptors to attach; @return how many (ours to close once sent). */
static unsigned int
fds_make(enum fd_kind k, int *fds)
{
	unsigned int i, n = 0;
	int p[2];

	if (k == FD_EFD || k == FD_EFD_MEMFD || k == FD_EFD_EFD || k == FD_THREE)
		fds[n++] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (k == FD_EFD_EFD)
		fds[n++] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (k == FD_EFD_BLOCKING)
		fds[n++] = eventfd(0, EFD_CLOEXEC);
	if (k == FD_MEMFD || k == FD_EFD_MEMFD || k == FD_THREE)
		fds[n++] = memfd_create("fuzz", MFD_CLOEXEC);
	if (k == FD_PIPE || k == FD_THREE) {
		if (pipe2(p, O_CLOEXEC) != 0)
			fail("%s: %ld", "pipe", errno);
		close(p[1]);
		fds[n++] = p[0];
	}
	for (i = 0; i < n; i++)
		if (fds[i] < 0)
			fail("%s: %ld", "cannot make a descriptor to send", errno);
	return n;
}

static void
fds_close(int *fds, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		close(fds[i]);
}

/* ---- the wire ---- */

/* @p len bytes with @p n descriptors. @return 0, or -1 when the server closed the connection. */
static int
msg_send(int sock, const void *buf, size_t len, const int *fds, unsigned int n)
{
	ssize_t r;

	last_sock = sock;
	r = dpsock_sendmsg_fds(sock, buf, len, fds, n, MSG_DONTWAIT);
	if (r < 0 && (errno == EPIPE || errno == ECONNRESET))
		return -1;
	if (r != (ssize_t)len)
		fail("%s: sendmsg: %ld", "cannot send", r < 0 ? errno : r);
	return 0;
}

/* Wait for something to read on @p sock (or its end). */
static void
wait_readable(int sock, const char *what)
{
	struct pollfd p = { .fd = sock, .events = POLLIN };
	int r;

	do
		r = poll(&p, 1, WAIT_MS);
	while (r < 0 && errno == EINTR);
	if (r != 1)
		fail("%s: no answer within %ld ms (the server hangs?)", what, WAIT_MS);
}

/* One message without waiting. @return 1, 0 (nothing now), -1 (end of the connection). */
static int
msg_recv(int sock, struct reply *r)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * MAX_FDS_IN)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = &r->m, .iov_len = sizeof(r->m) };
	struct msghdr mh = { .msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;
	ssize_t n;

	r->nfds = 0;
	/* ECONNRESET: the server closed with messages of ours unread; it comes before
	 * what the server sent first, which the next call returns */
	do
		n = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (n < 0 && (errno == EINTR || errno == ECONNRESET));
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (n < 0)
		fail("%s: recvmsg: %ld", "cannot read", errno);
	for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t k, cnt = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		for (k = 0; k < cnt && r->nfds < MAX_FDS_IN; k++)
			memcpy(&r->fds[r->nfds++], CMSG_DATA(cm) + k * sizeof(int), sizeof(int));
	}
	if (n == 0 && r->nfds == 0)
		return -1;
	if (n != (ssize_t)sizeof(r->m) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
		fail("%s: a message of %ld bytes from the server", "wrong size", (long)n);
	return 1;
}

static int
conn_connect(void)
{
	struct sockaddr_un sa;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		fail("%s: connect: %ld", sock_path, errno);
	return fd;
}

/*
 * The server is done with every message sent before: a RESOLVE answered -EINVAL
 * on a sentinel (HELLO done, never bound), the one the last message did not go
 * on (see the top).
 */
static void
barrier(void)
{
	const int s = sentinels[last_sock == sentinels[0] ? 1 : 0];
	struct dpsock_ctl m;
	struct reply r;

	dpsock_ctl_init(&m, DPSOCK_OP_RESOLVE);
	if (msg_send(s, &m, sizeof(m), NULL, 0) != 0)
		fail("%s: %ld", "a sentinel connection was closed", (long)s);
	wait_readable(s, "sentinel");
	if (msg_recv(s, &r) != 1 || r.m.op != DPSOCK_OP_RESOLVE || r.m.rc != -EINVAL || r.nfds != 0)
		fail("%s: the sentinel's RESOLVE was answered %ld", "barrier", r.m.rc);
}

/* The server took back the connections this side closed (see the top). */
static void
barrier_closed(void)
{
	barrier();
	barrier();
}

/* ---- messages ---- */

static void
addr_fill(struct dpsock_ctl *m, int family, enum addr_kind k, uint8_t junk, uint16_t port,
	const struct conn *ref)
{
	static const char *const a4[] = { "0.0.0.0", "198.18.0.1", "198.18.1.1", "198.18.0.2",
		"127.0.0.1", "224.0.0.1" };
	static const char *const a6[] = { "::", "2001:db8:10::1", "2001:db8:11::1",
		"2001:db8:10::2", "::1", "ff02::1" };
	uint8_t a[16];

	memset(a, 0, sizeof(a));
	if (k == A_BOUND)
		memcpy(a, ref->addr, 16);
	else if (k == A_BYTES)
		memset(a, junk, sizeof(a));
	else if (inet_pton(family == AF_INET6 ? AF_INET6 : AF_INET,
			 family == AF_INET6 ? a6[k] : a4[k], a) != 1)
		abort();
	memset(&m->addr, 0, sizeof(m->addr));
	if (family == AF_INET6) {
		m->addr.in6.sin6_family = AF_INET6;
		m->addr.in6.sin6_port = htons(port);
		memcpy(&m->addr.in6.sin6_addr, a, 16);
	} else {
		m->addr.in.sin_family = (sa_family_t)family;
		m->addr.in.sin_port = htons(port);
		memcpy(&m->addr.in.sin_addr, a, 4);
	}
}

/* The message of a template record into @p buf. @return its length. */
static size_t
tpl_build(uint8_t head, const uint8_t *t, uint8_t *buf)
{
	static const uint16_t ops[] = { DPSOCK_OP_HELLO, DPSOCK_OP_BIND, DPSOCK_OP_RESOLVE };
	const uint8_t flags = t[C_FLAGS];
	const int family = flags & G_V6 ? AF_INET6 : AF_INET;
	const int other = family == AF_INET6 ? AF_INET : AF_INET6;
	const struct conn *ref = &conns[(t[C_ADDR] >> 3 & 3) % NB_CONNS];
	struct dpsock_ctl m;
	uint16_t port = (uint16_t)(t[C_PORT_HI] << 8 | t[C_PORT_LO]);
	size_t len = sizeof(m);

	dpsock_ctl_init(&m, HEAD_TOP(head) == TOP_FIELD ? DPSOCK_OP_HELLO : ops[HEAD_TOP(head)]);
	if (HEAD_TOP(head) == TOP_FIELD)
		m.op = t[C_OP];
	if (flags & G_BAD_MAGIC)
		m.magic ^= 1u << (t[C_JUNK] & 31);
	if (flags & G_BAD_VERSION)
		m.version = (uint16_t)(DPSOCK_PROTO_VERSION + 1 + t[C_JUNK]);
	m.family = flags & G_FAMILY_RAW ? t[C_FAMILY] : (uint32_t)family;
	if (t[C_PORT_HI] == 0xff)
		port = conns[t[C_PORT_LO] % NB_CONNS].port;
	addr_fill(&m,
		flags & G_FAMILY_RAW     ? t[C_FAMILY]
		: flags & G_OTHER_FAMILY ? other
					 : family,
		(enum addr_kind)(t[C_ADDR] & 7), t[C_JUNK], port, ref);
	if (flags & G_JUNK) {
		/* fields a request leaves zero: the server must not care */
		const uint32_t j = t[C_JUNK] * 0x01010101u;

		m.rc = (int32_t)j;
		m.chan = j;
		m.size = (uint64_t)j << 32 | j;
		m.side = j;
		m.more = j;
		if (m.addr.in6.sin6_family == AF_INET6) {
			m.addr.in6.sin6_flowinfo = j;
			m.addr.in6.sin6_scope_id = j;
		} else {
			memset(m.addr.in.sin_zero, t[C_JUNK], sizeof(m.addr.in.sin_zero));
		}
	}
	memcpy(buf, &m, sizeof(m));
	if (flags & G_SHORT)
		len = sizeof(m) - 1 - t[C_LENMOD] % sizeof(m);
	else if (flags & G_LONG)
		len = sizeof(m) + 1 + t[C_LENMOD];
	if (len > sizeof(m))
		memset(buf + sizeof(m), t[C_JUNK], len - sizeof(m));
	return len;
}

static unsigned int
bound_count(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < NB_CONNS; i++)
		n += conns[i].bound;
	return n;
}

static bool
addr_is_zero(const struct dpsock_ctl *m, int family)
{
	static const uint8_t zero[16];

	return family == AF_INET6 ? memcmp(&m->addr.in6.sin6_addr, zero, 16) == 0
				  : m->addr.in.sin_addr.s_addr == 0;
}

/* What the server must do with message @p buf on @p c (independent of the server's code). */
static enum expect
expect_of(const struct conn *c, const uint8_t *buf, size_t len, enum fd_kind fk, unsigned int nfds)
{
	struct dpsock_ctl m;

	if (len != sizeof(m) || nfds > DPSOCK_CTL_MAX_FDS)
		return EX_CLOSE;
	memcpy(&m, buf, sizeof(m));
	/* dpsock_proto.h: the receiver checks size, magic and version, of every message */
	if (m.magic != DPSOCK_CTL_MAGIC || m.version != DPSOCK_PROTO_VERSION)
		return EX_CLOSE;
	if (c->family == 0 && m.op != DPSOCK_OP_HELLO)
		return EX_CLOSE;
	switch (m.op) {
	case DPSOCK_OP_HELLO:
		if (c->family != 0 || nfds != 0 || (m.family != AF_INET && m.family != AF_INET6))
			return EX_CLOSE;
		return EX_OK;
	case DPSOCK_OP_BIND:
		if (nfds != 1)
			return EX_CLOSE;
		if (c->bound || m.addr.in.sin_family != c->family ||
			(fk != FD_EFD && fk != FD_EFD_BLOCKING) || bound_count() >= EP_MAX)
			return EX_FAIL;
		/* the wildcard, any port: nothing may refuse it */
		if (addr_is_zero(&m, c->family) &&
			(c->family == AF_INET6 ? m.addr.in6.sin6_port : m.addr.in.sin_port) == 0)
			return EX_OK;
		return EX_REPLY;
	case DPSOCK_OP_RESOLVE:
		if (nfds != 0)
			return EX_CLOSE;
		if (!c->bound || m.addr.in.sin_family != c->family)
			return EX_FAIL;
		return EX_REPLY;
	case DPSOCK_OP_CHANNELS:
		if (nfds != 0)
			return EX_CLOSE;
		return c->bound ? EX_REPLY : EX_FAIL;
	default:
		return EX_CLOSE;
	}
}

/* A message from the server, whatever it answers: well-formed; its descriptors closed. */
static void
reply_check(struct conn *c, const struct reply *r, uint16_t asked_op, const struct dpsock_ctl *req)
{
	const struct dpsock_ctl *m = &r->m;

	if (m->magic != DPSOCK_CTL_MAGIC || m->version != DPSOCK_PROTO_VERSION)
		fail("%s: bad magic or version in a message from the server (op %ld)", "reply",
			m->op);
	if (m->rc < 0 && (m->rc < -ERRNO_MAX || r->nfds != 0))
		fail("%s: rc %ld: not a negative errno, or descriptors with an error", "reply",
			m->rc);
	switch (m->op) {
	case DPSOCK_OP_CHANNEL:
		/* unasked: a peer resolved this endpoint */
		if (!c->bound || r->nfds != 2 || m->rc != 0 || m->chan == 0)
			fail("%s: CHANNEL to an endpoint not bound, or without its memfd and "
			     "eventfd (%ld descriptors)",
				"channel", r->nfds);
		memfd_check(r->fds[0], "dpsock-channel", m->size, "CHANNEL");
		if (!fd_is(r->fds[1], "anon_inode:[eventfd]"))
			fail("%s: CHANNEL's second descriptor is not an eventfd (%ld)", "channel",
				0);
		c->chans++;
		break;
	case DPSOCK_OP_CHANNEL_GONE:
		if (c->chans == 0 || r->nfds != 0)
			fail("%s: CHANNEL_GONE without a channel, or with descriptors (%ld)",
				"channel_gone", r->nfds);
		break;
	case DPSOCK_OP_HELLO:
		if (m->rc > 0 || r->nfds != 0)
			fail("%s: HELLO answered rc %ld, or with descriptors", "hello", m->rc);
		break;
	case DPSOCK_OP_BIND:
		if (m->rc > 0)
			fail("%s: BIND answered rc %ld", "bind", m->rc);
		if (m->rc < 0)
			break;
		if (r->nfds != 1 || c->family == 0 || c->bound)
			fail("%s: BIND answered 0 with %ld descriptors, or before HELLO, or twice",
				"bind", r->nfds);
		memfd_check(r->fds[0], "dpsock-endpoint", m->size, "BIND");
		if (m->addr.in.sin_family != c->family)
			fail("%s: bound to family %ld, not the endpoint's", "bind",
				m->addr.in.sin_family);
		c->bound = true;
		memset(c->addr, 0, sizeof(c->addr));
		if (c->family == AF_INET6) {
			memcpy(c->addr, &m->addr.in6.sin6_addr, 16);
			c->port = ntohs(m->addr.in6.sin6_port);
		} else {
			memcpy(c->addr, &m->addr.in.sin_addr, 4);
			c->port = ntohs(m->addr.in.sin_port);
		}
		if (c->port == 0)
			fail("%s: bound to port %ld", "bind", 0);
		/* the address asked for; the port too, or one picked for 0 */
		if (req != NULL) {
			const bool v6 = c->family == AF_INET6;
			const void *want = v6 ? (const void *)&req->addr.in6.sin6_addr
					      : (const void *)&req->addr.in.sin_addr;
			const uint16_t port =
				ntohs(v6 ? req->addr.in6.sin6_port : req->addr.in.sin_port);

			if (memcmp(want, c->addr, v6 ? 16 : 4) != 0 ||
				(port != 0 && port != c->port))
				fail("%s: bound to another address or port (asked port %ld)",
					"bind", port);
		}
		break;
	case DPSOCK_OP_RESOLVE:
		if (m->rc > DPSOCK_ROUTE_LOCAL)
			fail("%s: RESOLVE answered %ld", "resolve", m->rc);
		if (m->rc == DPSOCK_ROUTE_REMOTE && r->nfds != 0)
			fail("%s: RESOLVE remote with %ld descriptors", "resolve", r->nfds);
		if (m->rc == DPSOCK_ROUTE_LOCAL) {
			if (r->nfds != 2)
				fail("%s: RESOLVE local with %ld descriptors", "resolve", r->nfds);
			memfd_check(r->fds[0], "dpsock-channel", m->size, "RESOLVE");
			if (!fd_is(r->fds[1], "anon_inode:[eventfd]"))
				fail("%s: RESOLVE's second descriptor is not an eventfd (%ld)",
					"resolve", 0);
			c->chans++;
		}
		break;
	case DPSOCK_OP_CHANNELS:
		/* after a CHANNEL for each of the endpoint's channels: how many */
		if (r->nfds != 0 || (m->rc >= 0 && !c->bound))
			fail("%s: CHANNELS answered rc %ld, with descriptors or unbound",
				"channels", m->rc);
		break;
	default:
		fail("%s: a message of op %ld from the server", "reply", m->op);
	}
	if (asked_op != 0 && m->op != asked_op && m->op != DPSOCK_OP_CHANNEL &&
		m->op != DPSOCK_OP_CHANNEL_GONE)
		fail("%s: the answer has op %ld, not the request's", "reply", m->op);
}

static void
conn_reset(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/*
 * The unasked messages waiting on @p c (CHANNEL, CHANNEL_GONE), checked.
 * @return true when the server closed the connection (then closed here too).
 */
static bool
conn_drain(struct conn *c)
{
	struct reply r;
	int got;

	if (c->fd < 0)
		return false;
	while ((got = msg_recv(c->fd, &r)) == 1) {
		if (r.m.op != DPSOCK_OP_CHANNEL && r.m.op != DPSOCK_OP_CHANNEL_GONE)
			fail("%s: an answer nothing asked for (op %ld)", "reply", r.m.op);
		reply_check(c, &r, 0, NULL);
		fds_close(r.fds, r.nfds);
	}
	if (got < 0) {
		conn_reset(c);
		return true;
	}
	return false;
}

/* Every connection's unasked messages (CHANNEL, CHANNEL_GONE), and their ends. */
static void
drain_all(void)
{
	unsigned int i;

	for (i = 0; i < NB_CONNS; i++)
		conn_drain(&conns[i]);
}

/* A message to send: its bytes and what goes with it. */
struct msg {
	uint8_t buf[MAX_MSG];
	size_t len;
	enum fd_kind fk;
};

/* Descriptors fds_make() attaches for @p k. */
static unsigned int
fd_kind_count(enum fd_kind k)
{
	static const unsigned int n[] = { 0, 1, 1, 2, 1, 2, 3, 1 };

	return n[k];
}

/*
 * The answer to the request of op @p op on @p c (the unasked messages before it
 * checked too). @return true with its rc in @p rc, false at the end of the
 * connection (then closed here too).
 */
static bool
answer_read(struct conn *c, uint16_t op, const struct dpsock_ctl *req, int *rc)
{
	struct reply r;
	int got;

	for (;;) {
		wait_readable(c->fd, "request");
		got = msg_recv(c->fd, &r);
		if (got < 0) {
			conn_reset(c);
			return false;
		}
		if (got == 0)
			continue;
		if (r.m.op == DPSOCK_OP_CHANNEL || r.m.op == DPSOCK_OP_CHANNEL_GONE) {
			reply_check(c, &r, 0, NULL);
			fds_close(r.fds, r.nfds);
			continue;
		}
		/* a bad magic before HELLO is answered as a HELLO */
		reply_check(c, &r,
			r.m.op == DPSOCK_OP_HELLO && r.m.rc < 0 && c->family == 0 ? DPSOCK_OP_HELLO
										  : op,
			req);
		fds_close(r.fds, r.nfds);
		*rc = r.m.rc;
		return true;
	}
}

/*
 * Messages @p msgs on connection @p ci, sent one after the other without
 * waiting (@p n > 1: the server reads up to 8 of them in one round); then
 * each answer in turn, checked against what the earlier answers left (enum
 * expect). The first message the server closes on ends the list.
 */
static void
send_msgs(unsigned int ci, const struct msg *msgs, unsigned int n)
{
	struct conn *c = &conns[ci];
	bool must_close = false, may_close = false;
	unsigned int k, sent = 0;

	if (c->fd < 0)
		c->fd = conn_connect();
	for (k = 0; k < n; k++) {
		int fds[3];
		unsigned int nfds = fds_make(msgs[k].fk, fds);
		int r = msg_send(c->fd, msgs[k].buf, msgs[k].len, fds, nfds);

		fds_close(fds, nfds);
		if (r != 0)
			break; /* the server closed it (an earlier message) */
		sent++;
	}
	for (k = 0; k < sent && c->fd >= 0; k++) {
		const struct msg *mk = &msgs[k];
		const enum expect ex =
			expect_of(c, mk->buf, mk->len, mk->fk, fd_kind_count(mk->fk));
		struct dpsock_ctl req;
		bool answered;
		int rc = 0;

		memset(&req, 0, sizeof(req));
		memcpy(&req, mk->buf, RTE_MIN(mk->len, sizeof(req)));
		answered = answer_read(c, mk->len == sizeof(req) ? req.op : DPSOCK_OP_HELLO,
			mk->len == sizeof(req) ? &req : NULL, &rc);
		if (must_close && answered)
			fail("%s: the server went on after a message it must close on (rc %ld)",
				"close", rc);
		if (!answered) {
			if (ex != EX_CLOSE && ex != EX_FAIL && !must_close)
				fail("%s: the connection closed on a request the server must take "
				     "(expect %ld)",
					"closed", ex);
			break;
		}
		switch (ex) {
		case EX_CLOSE:
			/* an answer first (HELLO of another version, bad magic), then the end */
			if (rc >= 0)
				fail("%s: a message the server must refuse was answered %ld",
					"close", rc);
			must_close = true;
			break;
		case EX_FAIL:
			if (rc >= 0)
				fail("%s: a request the server must refuse was answered %ld",
					"fail", rc);
			break;
		case EX_OK:
			if (rc != 0)
				fail("%s: a well-formed request was answered %ld", "ok", rc);
			if (req.op == DPSOCK_OP_HELLO)
				c->family = (int)req.family;
			break;
		case EX_REPLY:
			break;
		}
		may_close = ex == EX_CLOSE || ex == EX_FAIL;
	}
	barrier();
	if (c->fd >= 0) {
		const bool closed = conn_drain(c);

		if (must_close && !closed)
			fail("%s: a message the server must refuse left its connection open (%ld)",
				"close", 0);
		if (closed && !may_close)
			fail("%s: the connection closed after a request the server must take (%ld)",
				"closed", 0);
	}
	drain_all();
}

static void
send_one(unsigned int ci, const struct msg *m)
{
	send_msgs(ci, m, 1);
}

/* A new application: HELLO, BIND of the wildcard, RESOLVE of itself (the workers' way). */
static void
health_check(void)
{
	struct conn *c = &conns[0];
	struct dpsock_ctl m;
	struct msg x;

	dpsock_ctl_init(&m, DPSOCK_OP_HELLO);
	m.family = AF_INET;
	memcpy(x.buf, &m, sizeof(m));
	x.len = sizeof(m);
	x.fk = FD_NONE;
	send_one(0, &x);
	dpsock_ctl_init(&m, DPSOCK_OP_BIND);
	m.addr.in.sin_family = AF_INET;
	memcpy(x.buf, &m, sizeof(m));
	x.fk = FD_EFD;
	send_one(0, &x);
	if (!c->bound)
		fail("%s: a new application could not bind (%ld)", "health", 0);
	dpsock_ctl_init(&m, DPSOCK_OP_RESOLVE);
	m.addr.in.sin_family = AF_INET;
	m.addr.in.sin_port = htons(c->port);
	inet_pton(AF_INET, "198.18.0.1", &m.addr.in.sin_addr);
	memcpy(x.buf, &m, sizeof(m));
	x.fk = FD_NONE;
	send_one(0, &x);
}

/* Close every connection and wait until the server took them back. */
static void
close_all(void)
{
	unsigned int i;

	for (i = 0; i < NB_CONNS; i++)
		conn_reset(&conns[i]);
	barrier_closed();
}

/* ---- set-up ---- */

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct dpsock_ctl m;
	struct reply r;
	unsigned int i;

	(void)argc;
	(void)argv;
	snprintf(sock_dir, sizeof(sock_dir), "/tmp/dpfwd-test-fuzz_dpsock_ctl-sock-XXXXXX");
	if (mkdtemp(sock_dir) == NULL)
		fail("%s: mkdtemp: %ld", sock_dir, errno);
	snprintf(sock_path, sizeof(sock_path), "%s/dpsock.sock", sock_dir);
	/* small regions: a BIND costs a memfd of a few hundred KiB, not of 8 MiB */
	snprintf(config_text, sizeof(config_text),
		"[dpfwd]\n"
		"burst = 32\n"
		"[mempool]\n"
		"cache = 32\n"
		"[port0]\n"
		"dev = net_ring_k0\n"
		"ip4 = 198.18.0.1/24\n"
		"ip6 = 2001:db8:10::1/64\n"
		"[port1]\n"
		"dev = net_ring_k1\n"
		"ip4 = 198.18.1.1/24\n"
		"ip6 = 2001:db8:11::1/64\n"
		"[lcores]\n"
		"rx = (0,0,1),(1,0,1)\n"
		"[relay0]\n"
		"listen = 198.18.0.1:5000\n"
		"backend = 198.18.1.2:6000\n"
		"source = 198.18.1.1\n"
		"ports = 20000-20007\n"
		"[endpoint]\n"
		"socket = %s\n"
		"max = %d\n"
		"tx_bufs = 16\n"
		"rx_bufs = 16\n"
		"large_bufs = 1\n"
		"chan_bufs = 16\n",
		sock_path, EP_MAX);
	if (ring_rig_setup(&rig) < 0) {
		fprintf(stderr, "fuzz_dpsock_ctl: rig setup failed\n");
		cleanup();
		abort();
	}
	unlink(rig.cfg_path);
	rmdir(rig.tmpdir);
	atexit(cleanup);
	/* every malformed message is a warning: thousands a second */
	rte_log_set_level_pattern("dpfwd.endpoint", RTE_LOG_ERR);
	/* the server waits for the workers (RCU) as it takes an endpoint back; this
	 * thread is the rig's worker and walks no graph here */
	ring_rig_rcu_offline();
	if (dp_endpoint_start() != 0)
		fail("%s: %ld", "cannot start the endpoint server", 0);
	for (i = 0; i < NB_CONNS; i++)
		conns[i].fd = -1;
	/* the two oldest connections: first in the server's list */
	for (i = 0; i < RTE_DIM(sentinels); i++) {
		sentinels[i] = conn_connect();
		dpsock_ctl_init(&m, DPSOCK_OP_HELLO);
		m.family = AF_INET;
		if (msg_send(sentinels[i], &m, sizeof(m), NULL, 0) != 0)
			fail("%s: %ld", "sentinel HELLO", (long)i);
		wait_readable(sentinels[i], "sentinel HELLO");
		if (msg_recv(sentinels[i], &r) != 1 || r.m.rc != 0)
			fail("%s: answered %ld", "sentinel HELLO", r.m.rc);
	}
	maps_base = maps_count();
	return 0;
}

/* ---- one input ---- */

/* The message record at @p *off (head included) into @p m. @return false at the end. */
static bool
msg_take(const uint8_t *data, size_t size, size_t *off, struct msg *m)
{
	const uint8_t head = data[(*off)++];

	m->fk = (enum fd_kind)HEAD_FDS(head);
	if (head & HEAD_RAW) {
		if (*off >= size)
			return false;
		m->len = RTE_MIN((size_t)data[*off], size - *off - 1);
		memcpy(m->buf, data + *off + 1, m->len);
		*off += 1 + m->len;
		return true;
	}
	if (size - *off < CTL_FIELDS)
		return false;
	m->len = tpl_build(head, data + *off, m->buf);
	*off += CTL_FIELDS;
	return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct msg msgs[PIPELINE_MAX];
	uint64_t fds0[FD_WORDS];
	unsigned int nrec;
	size_t off = 0;

	cur_size = size;
	fd_set_of(fds0, FD_WORDS);
	for (nrec = 0; nrec < MAX_RECORDS && off < size;) {
		const uint8_t head = data[off++];
		unsigned int ci, want = 1, n = 0;

		if (HEAD_CONN(head) == HEAD_CLOSE && !(head & HEAD_PIPELINE)) {
			/* this side goes away; the server takes the endpoint back */
			conn_reset(&conns[HEAD_CLOSE_OF(head)]);
			barrier_closed();
			drain_all();
			nrec++;
			continue;
		}
		ci = HEAD_CONN(head);
		if (HEAD_CONN(head) == HEAD_CLOSE) {
			/* the next records, all on one connection, without waiting */
			ci = HEAD_CLOSE_OF(head);
			want = HEAD_PIPELINE_N(head);
		} else {
			off--;
		}
		while (n < want && nrec < MAX_RECORDS && off < size &&
			HEAD_CONN(data[off]) != HEAD_CLOSE) {
			if (!msg_take(data, size, &off, &msgs[n]))
				break;
			n++;
			nrec++;
		}
		if (n == 0)
			break;
		send_msgs(ci, msgs, n);
	}
	close_all();
	health_check();
	close_all();
	if (fd_leaks(fds0) != 0)
		fail("%s: %ld descriptors more than before the input", "leak",
			(long)fd_leaks(fds0));
	/* slow to read (DPDK's and ASan's many mappings): the first input and every
	 * MAPS_CHECK_EVERY-th; the leak of one stays, so it is seen there */
	if ((++inputs == 1 || inputs % MAPS_CHECK_EVERY == 0) && maps_count() != maps_base)
		fail("%s: %ld dpsock mappings more than before the inputs", "leak",
			(long)maps_count() - (long)maps_base);
	if (dp_mem_in_use_over_baseline() != 0)
		fail("%s: %ld mbufs in use over the baseline", "leak",
			(long)dp_mem_in_use_over_baseline());
	return 0;
}
