/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Functional tests of endpoints (libdpsock + dpfwd's endpoint server), with real
 * bytes between real processes.
 *
 *   dpfwd (child, posix_spawn)   port0 net_null0,no-rx=1: 198.18.0.1/24, 2001:db8::1/64
 *                                port1 net_pcap0,tx_pcap=out.pcap: 198.18.1.1/24, static
 *                                neighbor 198.18.1.2 (what leaves through a worker)
 *                                [endpoint] socket in a mkdtemp() folder
 *   endpoints                    in this process and in fork()ed children; children
 *                                report through their exit status and a pipe
 *
 * EAL: --no-huge -m 512 --no-pci --file-prefix dpsk<pid>_<n> -l 0,1. Telemetry JSON is
 * written every 100 ms; the tests read the "endpoint" sections from it. Only processes
 * this test started are signalled (by pid); the temporary folder and dpfwd's EAL runtime
 * folder are removed at the end. DPSK_KEEP=1 keeps the folder (its path is printed).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <jansson.h>

#include "dp_test.h"
#include "dpsock_ctl_test.h"
#include "dpsock.h"
#include "dpsock_proto.h"

extern char **environ;

#define START_TIMEOUT_S 30.0
#define MIB             (1024u * 1024u)
#define CHAN_BUFS       32 /* [endpoint] chan_bufs below */

static char dpfwd_bin[PATH_MAX];
static char dir[PATH_MAX / 2];
static char sock_path[PATH_MAX];
static char json_path[PATH_MAX];
static char cfg_path[PATH_MAX];
static char prefix[64];
static unsigned int run_seq;
static pid_t dpfwd_pid = -1;

/* ---- small utilities ---- */

static struct sockaddr_in
sin4(const char *ip, uint16_t port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	inet_pton(AF_INET, ip, &a.sin_addr);
	return a;
}

static struct sockaddr_in6
sin6(const char *ip, uint16_t port)
{
	struct sockaddr_in6 a;

	memset(&a, 0, sizeof(a));
	a.sin6_family = AF_INET6;
	a.sin6_port = htons(port);
	inet_pton(AF_INET6, ip, &a.sin6_addr);
	return a;
}

#define SA(a) ((const struct sockaddr *)&(a))

/* Payload byte @p i of a datagram with @p seed: differs by position and datagram. */
static uint8_t
pattern(size_t i, uint32_t seed)
{
	return (uint8_t)((i * 131u + (i >> 8) * 7u + seed * 17u) ^ (seed >> 3));
}

static void
pattern_fill(uint8_t *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = pattern(i, seed);
}

static bool
pattern_ok(const uint8_t *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != pattern(i, seed))
			return false;
	return true;
}

/* ---- dpfwd ---- */

static int
config_write(void)
{
	FILE *f = fopen(cfg_path, "w");

	if (f == NULL)
		return -1;
	fprintf(f,
		"# written by test_dpsock\n"
		"[dpfwd]\n"
		"main_lcore = 0\n"
		"\n"
		"[port0]\n"
		"dev = net_null0,no-rx=1\n"
		"ip4 = 198.18.0.1/24\n"
		"ip6 = 2001:db8::1/64\n"
		"\n"
		"[port1]\n"
		"dev = net_pcap0,tx_pcap=%s/out.pcap\n"
		"ip4 = 198.18.1.1/24\n"
		"\n"
		"[lcores]\n"
		"rx = (0,0,1)\n"
		"\n"
		"[neighbors]\n"
		"neigh = 198.18.1.2 lladdr 02:00:00:00:01:02 port 1\n"
		"\n"
		"[endpoint]\n"
		"socket = %s\n"
		"max = 16\n"
		"tx_bufs = 64\n"
		"rx_bufs = 64\n"
		"large_bufs = 4\n"
		"chan_bufs = %u\n",
		dir, sock_path, CHAN_BUFS);
	return fclose(f);
}

static void
runtime_dir_remove(void)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/var/run/dpdk/%s", prefix);
	dp_test_rm_rf(path);
}

/* Spawn dpfwd (output in dpfwd<n>.out/.err of the folder). @return its pid or -1. */
static pid_t
dpfwd_spawn(char *err, size_t errlen)
{
	char out[PATH_MAX];
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int rc;
	char *argv[] = { dpfwd_bin, "--no-huge", "-m", "512", "--no-pci", "--file-prefix", prefix,
		"-l", "0,1", "--", "-c", cfg_path, "--telemetry-json", json_path,
		"--telemetry-interval", "100", NULL };

	snprintf(prefix, sizeof(prefix), "dpsk%d_%u", (int)getpid(), ++run_seq);
	snprintf(out, sizeof(out), "%s/dpfwd%u.out", dir, run_seq);
	snprintf(err, errlen, "%s/dpfwd%u.err", dir, run_seq);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(
		&fa, STDOUT_FILENO, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(
		&fa, STDERR_FILENO, err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	fflush(stdout);
	fflush(stderr);
	rc = posix_spawn(&pid, dpfwd_bin, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		fprintf(stderr, "posix_spawn %s: %s\n", dpfwd_bin, strerror(rc));
		return -1;
	}
	return pid;
}

/* Start dpfwd and wait until an endpoint can attach. @return 0 or -1. */
static int
dpfwd_start(void)
{
	char err[PATH_MAX];
	double t0 = dp_test_now_s();

	dpfwd_pid = dpfwd_spawn(err, sizeof(err));
	if (dpfwd_pid < 0)
		return -1;
	while (dp_test_now_s() - t0 < START_TIMEOUT_S) {
		struct dpsock *ep;
		int status;

		if (waitpid(dpfwd_pid, &status, WNOHANG) == dpfwd_pid) {
			fprintf(stderr, "dpfwd exited early (status 0x%x); see %s\n", status, err);
			dpfwd_pid = -1;
			return -1;
		}
		ep = dpsock_open(sock_path, AF_INET, 0);
		if (ep != NULL) {
			dpsock_close(ep);
			return 0;
		}
		dp_test_sleep_s(0.05);
	}
	fprintf(stderr, "dpfwd did not listen on %s within %.0f s; see %s\n", sock_path,
		START_TIMEOUT_S, err);
	return -1;
}

/* SIGTERM (or SIGKILL) and reap; its EAL runtime folder goes. @return its wait status. */
static int
dpfwd_stop(int sig)
{
	double t0 = dp_test_now_s();
	int status = -1;

	if (dpfwd_pid <= 0)
		return -1;
	kill(dpfwd_pid, sig);
	for (;;) {
		pid_t w = waitpid(dpfwd_pid, &status, WNOHANG);

		if (w == dpfwd_pid)
			break;
		if (dp_test_now_s() - t0 > 15.0) {
			fprintf(stderr, "dpfwd pid %d still running: SIGKILL\n", (int)dpfwd_pid);
			kill(dpfwd_pid, SIGKILL);
			waitpid(dpfwd_pid, &status, 0);
			break;
		}
		dp_test_sleep_s(0.02);
	}
	dpfwd_pid = -1;
	runtime_dir_remove();
	return status;
}

/* The JSON snapshot's section @p key (a new reference), or NULL. */
static json_t *
snapshot_section(const char *key)
{
	json_t *root, *v;

	root = json_load_file(json_path, 0, NULL);
	if (root == NULL)
		return NULL;
	v = json_incref(json_object_get(root, key));
	json_decref(root);
	return v;
}

static long
stat_get(const char *name)
{
	json_t *s = snapshot_section("endpoint");
	long v = -1;

	if (s != NULL && json_is_integer(json_object_get(s, name)))
		v = (long)json_integer_value(json_object_get(s, name));
	json_decref(s);
	return v;
}

/* Wait until the snapshot says "endpoint"."@p name" == @p want. @return true when it did. */
static bool
stat_wait(const char *name, long want, double timeout)
{
	double t0 = dp_test_now_s();

	while (dp_test_now_s() - t0 < timeout) {
		if (stat_get(name) == want)
			return true;
		dp_test_sleep_s(0.05);
	}
	fprintf(stderr, "endpoint.%s: %ld, expected %ld\n", name, stat_get(name), want);
	return false;
}

/* Does the endpoint list show an endpoint of process @p pid? -1: unreadable. */
static int
list_has_pid(pid_t pid)
{
	json_t *l = snapshot_section("endpoint_list"), *e;
	size_t i;
	int found = 0;

	if (!json_is_array(l)) {
		json_decref(l);
		return -1;
	}
	json_array_foreach(l, i, e) if (json_integer_value(json_object_get(e, "pid")) == pid)
		found = 1;
	if (getenv("DPSK_DEBUG") != NULL) {
		char *txt = json_dumps(l, 0);

		fprintf(stderr, "pid %d: %s\n", (int)pid, txt);
		free(txt);
	}
	json_decref(l);
	return found;
}

static bool
list_wait_pid(pid_t pid, int want, double timeout)
{
	double t0 = dp_test_now_s();

	while (dp_test_now_s() - t0 < timeout) {
		if (list_has_pid(pid) == want)
			return true;
		dp_test_sleep_s(0.05);
	}
	return false;
}

/* ---- children ---- */

/* Fork a child that runs @p fn and exits with its return; *ready gets a pipe it writes once ready.
 */
static pid_t
child_start(int (*fn)(int ready_fd, void *arg), void *arg, int *ready)
{
	int p[2];
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		_exit(fn(p[1], arg));
	}
	close(p[1]);
	*ready = p[0];
	return pid;
}

/* Wait for the child's "ready" byte. @return true when it came. */
static bool
child_ready(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	return poll(&p, 1, 10000) == 1 && read(fd, &c, 1) == 1;
}

static int
child_wait(pid_t pid, double timeout)
{
	double t0 = dp_test_now_s();
	int status;

	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		if (dp_test_now_s() - t0 > timeout) {
			fprintf(stderr, "child %d still running: SIGKILL\n", (int)pid);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return 255;
		}
		dp_test_sleep_s(0.01);
	}
}

/* Child: block until the parent says go (a byte on @p fd). */
static void
go_wait(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		_exit(91);
	close(fd);
}

static void
go_say(int fd)
{
	char c = 1;

	if (write(fd, &c, 1) != 1)
		fprintf(stderr, "go: %s\n", strerror(errno));
	close(fd);
}

/* What a sending child is told: where to send, and the pipe it waits on before it starts. */
struct send_arg {
	struct sockaddr_in to;
	int go[2];
};

static void
ready_say(int fd)
{
	char c = 1;

	if (write(fd, &c, 1) != 1)
		_exit(90);
	close(fd);
}

/* ---- tests ---- */

static void
test_dpsock_open_refused_without_dpfwd(void)
{
	char path[PATH_MAX];
	struct dpsock *ep;

	snprintf(path, sizeof(path), "%s/nobody.sock", dir);
	ep = dpsock_open(path, AF_INET, 0);
	CU_ASSERT_PTR_NULL(ep);
	CU_ASSERT_EQUAL(errno, ENOENT);
	ep = dpsock_open(sock_path, AF_UNIX, 0);
	CU_ASSERT_PTR_NULL(ep);
	CU_ASSERT_EQUAL(errno, EAFNOSUPPORT);
}

static void
test_dpsock_bind_getsockname_ephemeral(void)
{
	struct sockaddr_in a = sin4("198.18.0.1", 5000), any = sin4("0.0.0.0", 0), got;
	struct sockaddr_in bad = sin4("198.18.9.9", 5001);
	struct sockaddr_in6 a6 = sin6("2001:db8::1", 5000), got6;
	struct dpsock *e1, *e2, *e3, *e6;
	socklen_t len = sizeof(got);

	e1 = dpsock_open(sock_path, AF_INET, 0);
	e2 = dpsock_open(sock_path, AF_INET, 0);
	e3 = dpsock_open(sock_path, AF_INET, 0);
	e6 = dpsock_open(sock_path, AF_INET6, 0);
	CU_ASSERT_FATAL(e1 != NULL && e2 != NULL && e3 != NULL && e6 != NULL);
	CU_ASSERT_EQUAL(dpsock_getsockname(e1, (struct sockaddr *)&got, &len), -EINVAL);
	CU_ASSERT_EQUAL(dpsock_bind(e1, SA(a), sizeof(a)), 0);
	CU_ASSERT_EQUAL(dpsock_bind(e1, SA(a), sizeof(a)), -EINVAL);
	CU_ASSERT_EQUAL(dpsock_getsockname(e1, (struct sockaddr *)&got, &len), 0);
	CU_ASSERT_EQUAL(len, sizeof(got));
	CU_ASSERT_EQUAL(got.sin_family, AF_INET);
	CU_ASSERT_EQUAL(got.sin_port, htons(5000));
	CU_ASSERT_EQUAL(got.sin_addr.s_addr, a.sin_addr.s_addr);
	/* the port is taken, whatever the address */
	CU_ASSERT_EQUAL(dpsock_bind(e2, SA(a), sizeof(a)), -EADDRINUSE);
	any.sin_port = htons(5000);
	CU_ASSERT_EQUAL(dpsock_bind(e2, SA(any), sizeof(any)), -EADDRINUSE);
	CU_ASSERT_EQUAL(dpsock_bind(e2, SA(bad), sizeof(bad)), -EADDRNOTAVAIL);
	CU_ASSERT_EQUAL(dpsock_bind(e2, SA(a6), sizeof(a6)), -EINVAL);
	CU_ASSERT_EQUAL(dpsock_bind(e2, SA(a), 4), -EINVAL);
	/* port 0: dpfwd picks one of the dynamic range */
	any.sin_port = 0;
	CU_ASSERT_EQUAL(dpsock_bind(e2, SA(any), sizeof(any)), 0);
	len = sizeof(got);
	CU_ASSERT_EQUAL(dpsock_getsockname(e2, (struct sockaddr *)&got, &len), 0);
	CU_ASSERT(ntohs(got.sin_port) >= 49152);
	CU_ASSERT_EQUAL(got.sin_addr.s_addr, 0);
	/* the first send binds an unbound endpoint */
	CU_ASSERT_EQUAL(dpsock_sendto(e3, "x", 1, 0, SA(a), sizeof(a)), 1);
	len = sizeof(got);
	CU_ASSERT_EQUAL(dpsock_getsockname(e3, (struct sockaddr *)&got, &len), 0);
	CU_ASSERT(ntohs(got.sin_port) >= 49152 && got.sin_port != 0);
	CU_ASSERT_NOT_EQUAL(got.sin_port, htons(0));
	/* IPv6 has its own ports */
	CU_ASSERT_EQUAL(dpsock_bind(e6, SA(a6), sizeof(a6)), 0);
	len = sizeof(got6);
	CU_ASSERT_EQUAL(dpsock_getsockname(e6, (struct sockaddr *)&got6, &len), 0);
	CU_ASSERT_EQUAL(got6.sin6_port, htons(5000));
	CU_ASSERT(memcmp(&got6.sin6_addr, &a6.sin6_addr, 16) == 0);
	CU_ASSERT(stat_wait("endpoints", 4, 5.0));
	dpsock_close(e1);
	dpsock_close(e2);
	dpsock_close(e3);
	dpsock_close(e6);
	CU_ASSERT(stat_wait("endpoints", 0, 5.0));
}

static const size_t pp_sizes[] = { 1, 8, 1472, 2048, 65536, MIB };
#define PP_ROUNDS 5

/* The echo side: every datagram checked against its pattern, then sent back; 0 bytes ends. */
static int
echo_child(int ready, void *arg)
{
	const struct sockaddr *bind_to = arg;
	struct sockaddr_storage from;
	uint8_t *buf = malloc(MIB + 1);
	struct dpsock *ep;
	uint32_t seed = 0;

	if (buf == NULL)
		return 10;
	ep = dpsock_open(sock_path, bind_to->sa_family, 0);
	if (ep == NULL)
		return 11;
	if (dpsock_bind(ep, bind_to,
		    bind_to->sa_family == AF_INET ? sizeof(struct sockaddr_in)
						  : sizeof(struct sockaddr_in6)) < 0)
		return 12;
	ready_say(ready);
	for (;;) {
		socklen_t flen = sizeof(from);
		ssize_t n = dpsock_recvfrom(ep, buf, MIB + 1, 0, (struct sockaddr *)&from, &flen);

		if (n < 0)
			return 13;
		if (n == 0)
			break;
		if (!pattern_ok(buf, (size_t)n, seed++))
			return 14;
		if (dpsock_sendto(ep, buf, (size_t)n, 0, (struct sockaddr *)&from, flen) != n)
			return 15;
	}
	dpsock_close(ep);
	free(buf);
	return 0;
}

static void
pingpong(int family)
{
	struct sockaddr_in b4 = sin4("198.18.0.1", 6001);
	struct sockaddr_in6 b6 = sin6("2001:db8::1", 6001);
	const struct sockaddr *b = family == AF_INET ? SA(b4) : SA(b6);
	socklen_t blen = family == AF_INET ? sizeof(b4) : sizeof(b6);
	uint8_t *out = malloc(MIB), *in = malloc(MIB + 1);
	struct sockaddr_storage from;
	struct dpsock_stats st;
	struct dpsock *ep;
	uint32_t seed = 0;
	unsigned int s, r;
	int ready = -1;
	pid_t pid;

	CU_ASSERT_FATAL(out != NULL && in != NULL);
	pid = child_start(echo_child, (void *)(uintptr_t)b, &ready);
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_FATAL(child_ready(ready));
	close(ready);
	ep = dpsock_open(sock_path, family, 0);
	CU_ASSERT_FATAL(ep != NULL);
	for (s = 0; s < sizeof(pp_sizes) / sizeof(pp_sizes[0]); s++) {
		for (r = 0; r < PP_ROUNDS; r++, seed++) {
			size_t len = pp_sizes[s];
			socklen_t flen = sizeof(from);
			ssize_t n;

			pattern_fill(out, len, seed);
			CU_ASSERT_EQUAL_FATAL(
				dpsock_sendto(ep, out, len, 0, b, blen), (ssize_t)len);
			memset(in, 0, len);
			n = dpsock_recvfrom(ep, in, MIB + 1, 0, (struct sockaddr *)&from, &flen);
			CU_ASSERT_EQUAL_FATAL(n, (ssize_t)len);
			CU_ASSERT_FATAL(pattern_ok(in, len, seed));
			CU_ASSERT_EQUAL(flen, blen);
			CU_ASSERT(memcmp(&from, b, blen) == 0);
		}
	}
	/* truncated as UDP is: the whole length comes back, the rest is lost */
	pattern_fill(out, 3000, seed);
	CU_ASSERT_EQUAL(dpsock_sendto(ep, out, 3000, 0, b, blen), 3000);
	CU_ASSERT_EQUAL(dpsock_recvfrom(ep, in, 100, 0, NULL, NULL), 3000);
	CU_ASSERT(pattern_ok(in, 100, seed));
	/* over 1 MiB: not even to a local endpoint */
	CU_ASSERT_EQUAL(dpsock_sendto(ep, out, MIB + 1, 0, b, blen), -EMSGSIZE);
	CU_ASSERT_EQUAL(dpsock_stats_get(ep, &st), 0);
	CU_ASSERT_EQUAL(st.channels, 1);
	CU_ASSERT_EQUAL(st.tx_msgs, PP_ROUNDS * 6 + 1);
	CU_ASSERT_EQUAL(st.rx_msgs, PP_ROUNDS * 6 + 1);
	CU_ASSERT_EQUAL(dpsock_sendto(ep, out, 0, 0, b, blen), 0);
	CU_ASSERT_EQUAL(child_wait(pid, 20.0), 0);
	dpsock_close(ep);
	free(out);
	free(in);
}

static void
test_dpsock_pingpong_two_processes_ip4(void)
{
	pingpong(AF_INET);
}

static void
test_dpsock_pingpong_two_processes_ip6(void)
{
	pingpong(AF_INET6);
}

static void
test_dpsock_zero_copy_burst(void)
{
	struct sockaddr_in ba = sin4("198.18.0.1", 6300);
	struct dpsock_msg *tx[16], *rx[16], fake;
	struct dpsock *a, *b;
	unsigned int got = 0, i, round;
	int n;

	a = dpsock_open(sock_path, AF_INET, DPSOCK_NONBLOCK);
	b = dpsock_open(sock_path, AF_INET, DPSOCK_NONBLOCK);
	CU_ASSERT_FATAL(a != NULL && b != NULL);
	CU_ASSERT_EQUAL_FATAL(dpsock_bind(b, SA(ba), sizeof(ba)), 0);
	for (round = 0; round < 4; round++) {
		size_t size = round == 3 ? 200000 : 1000 + round;

		n = dpsock_msg_alloc(a, SA(ba), sizeof(ba), size, tx, 16);
		CU_ASSERT_FATAL(n >= 1);
		for (i = 0; i < (unsigned int)n; i++) {
			CU_ASSERT(tx[i]->cap >= size);
			pattern_fill(dpsock_msg_data(tx[i]), size, round * 100 + i);
			tx[i]->len = (uint32_t)size;
		}
		CU_ASSERT_EQUAL(dpsock_send_burst(a, tx, (unsigned int)n), n);
		for (got = 0; got < (unsigned int)n;) {
			int k = dpsock_recv_burst(b, rx + got, 16 - got, 0);

			if (k == -EAGAIN)
				continue;
			CU_ASSERT_FATAL(k > 0);
			got += (unsigned int)k;
		}
		for (i = 0; i < got; i++) {
			CU_ASSERT_EQUAL(rx[i]->len, size);
			CU_ASSERT(pattern_ok(dpsock_msg_data(rx[i]), size, round * 100 + i));
		}
		dpsock_msg_free(b, rx, got);
		/* freed twice: ignored */
		dpsock_msg_free(b, rx, got);
	}
	/* a buffer libdpsock did not give: refused, nothing sent */
	n = dpsock_msg_alloc(a, SA(ba), sizeof(ba), 64, tx, 1);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	tx[0]->len = 64;
	memset(&fake, 0, sizeof(fake));
	tx[1] = &fake;
	CU_ASSERT_EQUAL(dpsock_send_burst(a, tx, 2), -EINVAL);
	tx[0]->len = tx[0]->cap + 1;
	CU_ASSERT_EQUAL(dpsock_send_burst(a, tx, 1), -EINVAL);
	dpsock_msg_free(a, tx, 1);
	CU_ASSERT_EQUAL(dpsock_recv_burst(b, rx, 16, 0), -EAGAIN);
	/* unsent buffers came back: the whole pipe can be taken again */
	for (got = 0; got < CHAN_BUFS;) {
		n = dpsock_msg_alloc(a, SA(ba), sizeof(ba), 64, tx, 16);
		CU_ASSERT_FATAL(n > 0);
		dpsock_msg_free(a, tx, (unsigned int)n);
		got += (unsigned int)n;
	}
	dpsock_close(a);
	dpsock_close(b);
}

static void
test_dpsock_nonblocking_backpressure_and_recovery(void)
{
	struct sockaddr_in ba = sin4("198.18.0.1", 6400);
	struct dpsock_stats st;
	struct dpsock *a, *b;
	unsigned int sent = 0, i;
	uint8_t buf[256];
	ssize_t n;

	a = dpsock_open(sock_path, AF_INET, DPSOCK_NONBLOCK);
	b = dpsock_open(sock_path, AF_INET, 0);
	CU_ASSERT_FATAL(a != NULL && b != NULL);
	CU_ASSERT_EQUAL_FATAL(dpsock_bind(b, SA(ba), sizeof(ba)), 0);
	for (;;) {
		pattern_fill(buf, 100, sent);
		n = dpsock_sendto(a, buf, 100, 0, SA(ba), sizeof(ba));
		if (n == -EAGAIN)
			break;
		CU_ASSERT_EQUAL_FATAL(n, 100);
		sent++;
		CU_ASSERT_FATAL(sent <= CHAN_BUFS);
	}
	/* every small buffer of the channel is the receiver's now */
	CU_ASSERT_EQUAL(sent, CHAN_BUFS);
	CU_ASSERT_EQUAL(dpsock_sendto(a, buf, 100, MSG_DONTWAIT, SA(ba), sizeof(ba)), -EAGAIN);
	CU_ASSERT_EQUAL(dpsock_stats_get(a, &st), 0);
	CU_ASSERT_EQUAL(st.tx_again, 2);
	for (i = 0; i < sent; i++) {
		CU_ASSERT_EQUAL(dpsock_recv(b, buf, sizeof(buf), 0), 100);
		CU_ASSERT(pattern_ok(buf, 100, i));
	}
	CU_ASSERT_EQUAL(dpsock_recv(b, buf, sizeof(buf), MSG_DONTWAIT), -EAGAIN);
	/* recovered */
	pattern_fill(buf, 100, 999);
	CU_ASSERT_EQUAL(dpsock_sendto(a, buf, 100, 0, SA(ba), sizeof(ba)), 100);
	CU_ASSERT_EQUAL(dpsock_recv(b, buf, sizeof(buf), 0), 100);
	CU_ASSERT(pattern_ok(buf, 100, 999));
	dpsock_close(a);
	dpsock_close(b);
}

/* Sends twice to arg (the second 300 ms later, when the receiver sleeps); exit 0 if it woke it. */
static int
late_sender_child(int ready, void *arg)
{
	struct send_arg *sa = arg;
	const struct sockaddr_in *to = &sa->to;
	struct dpsock_stats st;
	struct dpsock *ep = dpsock_open(sock_path, AF_INET, 0);

	if (ep == NULL)
		return 20;
	close(sa->go[1]);
	ready_say(ready);
	go_wait(sa->go[0]);
	if (dpsock_sendto(ep, "first", 5, 0, SA(*to), sizeof(*to)) != 5)
		return 21;
	dp_test_sleep_s(0.3);
	if (dpsock_sendto(ep, "second", 6, 0, SA(*to), sizeof(*to)) != 6)
		return 22;
	dpsock_stats_get(ep, &st);
	dpsock_close(ep);
	return st.wakeups >= 1 ? 0 : 23;
}

static void
test_dpsock_blocking_recv_woken_by_other_process(void)
{
	struct send_arg sa = { .to = sin4("198.18.0.1", 6500) };
	struct dpsock_stats st;
	struct dpsock *b;
	char buf[16];
	int ready = -1;
	pid_t pid;

	CU_ASSERT_FATAL(pipe(sa.go) == 0);
	pid = child_start(late_sender_child, &sa, &ready);
	CU_ASSERT_FATAL(pid > 0);
	close(sa.go[0]);
	b = dpsock_open(sock_path, AF_INET, 0);
	CU_ASSERT_FATAL(b != NULL);
	CU_ASSERT_EQUAL_FATAL(dpsock_bind(b, SA(sa.to), sizeof(sa.to)), 0);
	CU_ASSERT(child_ready(ready));
	close(ready);
	go_say(sa.go[1]);
	CU_ASSERT_EQUAL(dpsock_recv(b, buf, sizeof(buf), 0), 5);
	CU_ASSERT(memcmp(buf, "first", 5) == 0);
	CU_ASSERT_EQUAL(dpsock_recv(b, buf, sizeof(buf), 0), 6);
	CU_ASSERT(memcmp(buf, "second", 6) == 0);
	CU_ASSERT_EQUAL(dpsock_stats_get(b, &st), 0);
	/* at least the 300 ms wait for the second slept; the first may have come while
	 * the receiver still spun (a child that woke fast: seen under ASan) */
	CU_ASSERT(st.sleeps >= 1);
	CU_ASSERT_EQUAL(child_wait(pid, 10.0), 0);
	dpsock_close(b);
}

static void
test_dpsock_evq_fd_in_app_epoll_with_kernel_socket(void)
{
	struct sockaddr_in ba = sin4("198.18.0.1", 6600), lo = sin4("127.0.0.1", 0);
	struct epoll_event ev, evs[4];
	struct dpsock_event dev[4];
	struct dpsock_stats st;
	struct dpsock_evq *q;
	struct dpsock *a, *b;
	socklen_t len = sizeof(lo);
	int epfd, us, tx, n, k, round;
	bool saw_udp = false, saw_evq = false;
	char buf[32];

	a = dpsock_open(sock_path, AF_INET, 0);
	b = dpsock_open(sock_path, AF_INET, DPSOCK_NONBLOCK);
	CU_ASSERT_FATAL(a != NULL && b != NULL);
	CU_ASSERT_EQUAL_FATAL(dpsock_bind(b, SA(ba), sizeof(ba)), 0);
	q = dpsock_evq_create(5);
	CU_ASSERT_FATAL(q != NULL);
	CU_ASSERT_EQUAL(dpsock_evq_add(q, b, DPSOCK_EV_IN, (void *)0x1234), 0);
	CU_ASSERT_EQUAL(dpsock_evq_add(q, b, DPSOCK_EV_IN, NULL), -EEXIST);

	us = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	CU_ASSERT_FATAL(us >= 0 && tx >= 0);
	CU_ASSERT_FATAL(bind(us, SA(lo), sizeof(lo)) == 0);
	getsockname(us, (struct sockaddr *)&lo, &len);
	epfd = epoll_create1(0);
	ev.events = EPOLLIN;
	ev.data.fd = us;
	epoll_ctl(epfd, EPOLL_CTL_ADD, us, &ev);
	ev.data.fd = dpsock_evq_fd(q);
	epoll_ctl(epfd, EPOLL_CTL_ADD, dpsock_evq_fd(q), &ev);

	for (round = 0; round < 3; round++) {
		/* nothing yet: arms and returns at once */
		CU_ASSERT_EQUAL(dpsock_evq_wait(q, dev, 4, 0), 0);
		CU_ASSERT_EQUAL(epoll_wait(epfd, evs, 4, 0), 0);
		snprintf(buf, sizeof(buf), "dp%d", round);
		CU_ASSERT_EQUAL(dpsock_sendto(a, buf, 4, 0, SA(ba), sizeof(ba)), 4);
		CU_ASSERT_EQUAL(sendto(tx, "kernel", 6, 0, SA(lo), sizeof(lo)), 6);
		saw_udp = saw_evq = false;
		while (!(saw_udp && saw_evq)) {
			n = epoll_wait(epfd, evs, 4, 2000);
			CU_ASSERT_FATAL(n > 0);
			for (k = 0; k < n; k++) {
				if (evs[k].data.fd == us) {
					CU_ASSERT_EQUAL(recv(us, buf, sizeof(buf), 0), 6);
					saw_udp = true;
					continue;
				}
				if (dpsock_evq_wait(q, dev, 4, 0) == 0)
					continue; /* the notice of a new channel, not yet a datagram
						   */
				CU_ASSERT_EQUAL(dev[0].ep, b);
				CU_ASSERT_EQUAL(dev[0].udata, (void *)0x1234);
				CU_ASSERT(dev[0].events & DPSOCK_EV_IN);
				CU_ASSERT_EQUAL(dpsock_recv(b, buf, sizeof(buf), 0), 4);
				CU_ASSERT_EQUAL(buf[2], '0' + round);
				saw_evq = true;
			}
		}
	}
	/* the wake came from the sender's eventfd write */
	CU_ASSERT_EQUAL(dpsock_stats_get(a, &st), 0);
	CU_ASSERT(st.wakeups >= 2);
	/* dpsock_wake(): the queue's fd polls readable, so that its sleeper looks again */
	CU_ASSERT_EQUAL(dpsock_wake(NULL), -EINVAL);
	CU_ASSERT_EQUAL(dpsock_evq_wait(q, dev, 4, 0), 0);
	CU_ASSERT_EQUAL(epoll_wait(epfd, evs, 4, 0), 0);
	CU_ASSERT_EQUAL(dpsock_wake(b), 0);
	CU_ASSERT_EQUAL(epoll_wait(epfd, evs, 4, 0), 1);
	CU_ASSERT_EQUAL(dpsock_evq_disarm(q), 0);
	CU_ASSERT_EQUAL(epoll_wait(epfd, evs, 4, 0), 0);
	/* a timed wait with nothing: 0 after about the timeout */
	{
		double t0 = dp_test_now_s();

		CU_ASSERT_EQUAL(dpsock_evq_wait(q, dev, 4, 100), 0);
		CU_ASSERT(dp_test_now_s() - t0 >= 0.09);
	}
	CU_ASSERT_EQUAL(dpsock_evq_del(q, b), 0);
	CU_ASSERT_EQUAL(dpsock_evq_del(q, b), -ENOENT);
	dpsock_evq_destroy(q);
	close(epfd);
	close(us);
	close(tx);
	dpsock_close(a);
	dpsock_close(b);
}

static void
test_dpsock_connect_filters_other_senders(void)
{
	struct sockaddr_in aa = sin4("198.18.0.1", 6700), ba = sin4("198.18.0.1", 6701);
	struct sockaddr_in from;
	socklen_t flen = sizeof(from);
	struct dpsock *a, *b, *c;
	char buf[16];

	a = dpsock_open(sock_path, AF_INET, 0);
	b = dpsock_open(sock_path, AF_INET, 0);
	c = dpsock_open(sock_path, AF_INET, 0);
	CU_ASSERT_FATAL(a != NULL && b != NULL && c != NULL);
	CU_ASSERT_EQUAL(dpsock_bind(a, SA(aa), sizeof(aa)), 0);
	CU_ASSERT_EQUAL(dpsock_send(b, "x", 1, 0), -EDESTADDRREQ);
	CU_ASSERT_EQUAL(dpsock_bind(b, SA(ba), sizeof(ba)), 0);
	CU_ASSERT_EQUAL(dpsock_connect(b, SA(aa), sizeof(aa)), 0);
	CU_ASSERT_EQUAL(dpsock_sendto(c, "other", 5, 0, SA(ba), sizeof(ba)), 5);
	CU_ASSERT_EQUAL(dpsock_sendto(a, "peer", 4, 0, SA(ba), sizeof(ba)), 4);
	CU_ASSERT_EQUAL(
		dpsock_recvfrom(b, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen), 4);
	CU_ASSERT(memcmp(buf, "peer", 4) == 0);
	CU_ASSERT_EQUAL(from.sin_port, aa.sin_port);
	CU_ASSERT_EQUAL(dpsock_recv(b, buf, sizeof(buf), MSG_DONTWAIT), -EAGAIN);
	/* the connected route answers on the channel the peer opened */
	CU_ASSERT_EQUAL(dpsock_send(b, "back", 4, 0), 4);
	CU_ASSERT_EQUAL(dpsock_recv(a, buf, sizeof(buf), 0), 4);
	CU_ASSERT(memcmp(buf, "back", 4) == 0);
	dpsock_close(a);
	dpsock_close(b);
	dpsock_close(c);
}

static void
test_dpsock_close_peer_refused_then_reresolves(void)
{
	struct sockaddr_in ba = sin4("198.18.0.1", 6800);
	struct dpsock *a, *b, *b2;
	double t0;
	ssize_t n = 0;
	char buf[16];

	a = dpsock_open(sock_path, AF_INET, DPSOCK_NONBLOCK);
	b = dpsock_open(sock_path, AF_INET, 0);
	CU_ASSERT_FATAL(a != NULL && b != NULL);
	CU_ASSERT_EQUAL_FATAL(dpsock_bind(b, SA(ba), sizeof(ba)), 0);
	CU_ASSERT_EQUAL(dpsock_sendto(a, "one", 3, 0, SA(ba), sizeof(ba)), 3);
	CU_ASSERT_EQUAL(dpsock_recv(b, buf, sizeof(buf), 0), 3);
	dpsock_close(b);
	/* until dpfwd took it back, datagrams go (and are lost, as UDP's to a closed port) */
	for (t0 = dp_test_now_s(); dp_test_now_s() - t0 < 5.0; dp_test_sleep_s(0.001)) {
		n = dpsock_sendto(a, "two", 3, 0, SA(ba), sizeof(ba));
		if (n != 3)
			break;
	}
	CU_ASSERT_EQUAL(n, -ECONNREFUSED);
	b2 = dpsock_open(sock_path, AF_INET, 0);
	CU_ASSERT_FATAL(b2 != NULL);
	CU_ASSERT_EQUAL_FATAL(dpsock_bind(b2, SA(ba), sizeof(ba)), 0);
	/* asked again: the new endpoint on that port */
	CU_ASSERT_EQUAL(dpsock_sendto(a, "three", 5, 0, SA(ba), sizeof(ba)), 5);
	CU_ASSERT_EQUAL(dpsock_recv(b2, buf, sizeof(buf), 0), 5);
	CU_ASSERT(memcmp(buf, "three", 5) == 0);
	dpsock_close(a);
	dpsock_close(b2);
}

/* Streams numbered datagrams to arg until killed. */
static int
stream_child(int ready, void *arg)
{
	struct send_arg *sa = arg;
	const struct sockaddr_in *to = &sa->to;
	struct sockaddr_in me = sin4("198.18.0.1", 6901);
	struct dpsock *ep = dpsock_open(sock_path, AF_INET, 0);
	uint32_t i;

	if (ep == NULL || dpsock_bind(ep, SA(me), sizeof(me)) < 0)
		return 30;
	close(sa->go[1]);
	ready_say(ready);
	go_wait(sa->go[0]);
	for (i = 0;; i++)
		if (dpsock_sendto(ep, &i, sizeof(i), 0, SA(*to), sizeof(*to)) != sizeof(i))
			return 31;
}

static void
test_dpsock_sigkill_sender_reclaimed(void)
{
	struct sockaddr_in me = sin4("198.18.0.1", 6901);
	struct send_arg sa = { .to = sin4("198.18.0.1", 6900) };
	const struct sockaddr_in ba = sa.to;
	struct dpsock_stats st;
	struct dpsock *b, *again;
	uint32_t v, expect = 0;
	unsigned int i;
	int ready = -1, status;
	pid_t pid;

	/* the endpoints the tests before closed are gone (dpfwd reaps a close asynchronously) */
	CU_ASSERT(stat_wait("endpoints", 0, 5.0));
	CU_ASSERT_FATAL(pipe(sa.go) == 0);
	pid = child_start(stream_child, &sa, &ready);
	CU_ASSERT_FATAL(pid > 0);
	close(sa.go[0]);
	b = dpsock_open(sock_path, AF_INET, 0);
	CU_ASSERT_FATAL(b != NULL);
	CU_ASSERT_EQUAL_FATAL(dpsock_bind(b, SA(ba), sizeof(ba)), 0);
	CU_ASSERT_FATAL(child_ready(ready));
	close(ready);
	go_say(sa.go[1]);
	for (i = 0; i < 2000; i++) {
		CU_ASSERT_EQUAL_FATAL(dpsock_recv(b, &v, sizeof(v), 0), (ssize_t)sizeof(v));
		CU_ASSERT_EQUAL_FATAL(v, expect);
		expect++;
	}
	/* (the snapshot is rewritten every 100 ms: wait for one that shows the child) */
	CU_ASSERT(list_wait_pid(pid, 1, 5.0));
	CU_ASSERT(stat_wait("endpoints", 2, 5.0));
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	CU_ASSERT(list_wait_pid(pid, 0, 5.0));
	CU_ASSERT(stat_wait("endpoints", 1, 5.0));
	/* what it sent before it died is still read, in order; then its channel goes */
	while (dpsock_recv(b, &v, sizeof(v), MSG_DONTWAIT) == (ssize_t)sizeof(v)) {
		CU_ASSERT_EQUAL(v, expect);
		expect++;
	}
	CU_ASSERT_EQUAL(dpsock_stats_get(b, &st), 0);
	CU_ASSERT_EQUAL(st.channels, 0);
	/* its port is free again */
	again = dpsock_open(sock_path, AF_INET, 0);
	CU_ASSERT_FATAL(again != NULL);
	CU_ASSERT_EQUAL(dpsock_bind(again, SA(me), sizeof(me)), 0);
	CU_ASSERT_EQUAL(dpsock_sendto(again, "hi", 2, 0, SA(ba), sizeof(ba)), 2);
	CU_ASSERT_EQUAL(dpsock_recv(b, &v, sizeof(v), 0), 2);
	CU_ASSERT(stat_get("reclaims") >= 1);
	dpsock_close(again);
	dpsock_close(b);
}

/*
 * The frame in out.pcap whose UDP payload is @p payload: checked to be UDP/IPv4 from
 * @p src to 198.18.1.2:@p dport, to the neighbor's MAC. @return 1 found and right, 0 not
 * found, -1 found and wrong.
 */
static int
pcap_find_udp(const void *payload, size_t len, uint16_t sport, uint16_t dport)
{
	static const uint8_t nb_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x01, 0x02 };
	char path[PATH_MAX];
	uint8_t *buf = malloc(1 << 20);
	size_t n, off = 24;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/out.pcap", dir);
	f = fopen(path, "r");
	if (f == NULL || buf == NULL) {
		if (f != NULL)
			fclose(f);
		free(buf);
		return 0;
	}
	n = fread(buf, 1, 1 << 20, f);
	fclose(f);
	while (found == 0 && off + 16 <= n) {
		uint32_t caplen;
		const uint8_t *fr;

		memcpy(&caplen, buf + off + 8, 4);
		fr = buf + off + 16;
		if (off + 16 + caplen > n)
			break;
		if (caplen == 14 + 20 + 8 + len && fr[12] == 0x08 && fr[13] == 0x00 &&
			memcmp(fr + 42, payload, len) == 0) {
			const uint8_t *ip = fr + 14, *udp = fr + 34;
			struct in_addr dst, src;

			inet_pton(AF_INET, "198.18.1.2", &dst);
			inet_pton(AF_INET, "198.18.1.1", &src);
			found = memcmp(fr, nb_mac, 6) == 0 && ip[9] == 17 &&
						memcmp(ip + 12, &src, 4) == 0 &&
						memcmp(ip + 16, &dst, 4) == 0 &&
						udp[0] == sport >> 8 && udp[1] == (sport & 0xff) &&
						udp[2] == dport >> 8 && udp[3] == (dport & 0xff) &&
						((udp[4] << 8) | udp[5]) == (int)(8 + len)
					? 1
					: -1;
		}
		off += 16 + caplen;
	}
	free(buf);
	return found;
}

static void
test_dpsock_remote_datagram_leaves_through_worker(void)
{
	struct sockaddr_in me = sin4("198.18.1.1", 7300), to = sin4("198.18.1.2", 9000);
	struct dpsock_stats st;
	struct dpsock *ep;
	uint8_t payload[200];
	double t0;
	int found = 0;

	ep = dpsock_open(sock_path, AF_INET, 0);
	CU_ASSERT_FATAL(ep != NULL);
	CU_ASSERT_EQUAL_FATAL(dpsock_bind(ep, SA(me), sizeof(me)), 0);
	pattern_fill(payload, sizeof(payload), 4242);
	CU_ASSERT_EQUAL(dpsock_sendto(ep, payload, sizeof(payload), 0, SA(to), sizeof(to)),
		(ssize_t)sizeof(payload));
	/* too large for one UDP datagram to another host */
	CU_ASSERT_EQUAL(dpsock_sendto(ep, payload, 65508, 0, SA(to), sizeof(to)), -EMSGSIZE);
	for (t0 = dp_test_now_s(); dp_test_now_s() - t0 < 5.0 && found == 0; dp_test_sleep_s(0.05))
		found = pcap_find_udp(payload, sizeof(payload), 7300, 9000);
	CU_ASSERT_EQUAL(found, 1);
	CU_ASSERT_EQUAL(dpsock_stats_get(ep, &st), 0);
	CU_ASSERT_EQUAL(st.channels, 0);
	CU_ASSERT_EQUAL(st.tx_msgs, 1);
	dpsock_close(ep);
}

/* A raw connection to dpfwd's socket. */
static int
raw_connect(void)
{
	struct sockaddr_un sa;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	strcpy(sa.sun_path, sock_path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -1;
	return fd;
}

static int
raw_send(int fd, const void *m, size_t len, int pass_fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)(uintptr_t)m, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (pass_fd >= 0) {
		struct cmsghdr *cm;

		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &pass_fd, sizeof(int));
	}
	return sendmsg(fd, &mh, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

static struct dpsock_ctl
raw_msg(uint16_t op)
{
	struct dpsock_ctl m;

	memset(&m, 0, sizeof(m));
	m.magic = DPSOCK_CTL_MAGIC;
	m.version = DPSOCK_PROTO_VERSION;
	m.op = op;
	m.family = AF_INET;
	return m;
}

static void
test_dpsock_bad_control_messages_close_only_that_connection(void)
{
	struct sockaddr_in ba = sin4("198.18.0.1", 7000);
	struct dpsock_ctl m;
	struct dpsock *a, *b;
	long malformed0 = stat_get("malformed");
	int fd, pfd[2];
	char buf[8];

	/* a short message */
	fd = raw_connect();
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(raw_send(fd, "hello", 5, -1), 0);
	CU_ASSERT_EQUAL(dp_test_ctl_reply(fd), 1000);
	close(fd);
	/* a wrong magic: told why, then closed */
	fd = raw_connect();
	m = raw_msg(DPSOCK_OP_HELLO);
	m.magic = 0xdeadbeef;
	CU_ASSERT_EQUAL(raw_send(fd, &m, sizeof(m), -1), 0);
	CU_ASSERT_EQUAL(dp_test_ctl_reply(fd), -EPROTO);
	CU_ASSERT_EQUAL(dp_test_ctl_reply(fd), 1000);
	close(fd);
	/* another protocol version */
	fd = raw_connect();
	m = raw_msg(DPSOCK_OP_HELLO);
	m.version = 99;
	CU_ASSERT_EQUAL(raw_send(fd, &m, sizeof(m), -1), 0);
	CU_ASSERT_EQUAL(dp_test_ctl_reply(fd), -EPROTO);
	CU_ASSERT_EQUAL(dp_test_ctl_reply(fd), 1000);
	close(fd);
	/* a request before HELLO */
	fd = raw_connect();
	m = raw_msg(DPSOCK_OP_RESOLVE);
	CU_ASSERT_EQUAL(raw_send(fd, &m, sizeof(m), -1), 0);
	CU_ASSERT_EQUAL(dp_test_ctl_reply(fd), 1000);
	close(fd);
	/* BIND without its eventfd; an unknown op; a pipe instead of an eventfd */
	fd = raw_connect();
	m = raw_msg(DPSOCK_OP_HELLO);
	CU_ASSERT_EQUAL(raw_send(fd, &m, sizeof(m), -1), 0);
	CU_ASSERT_EQUAL(dp_test_ctl_reply(fd), 0);
	CU_ASSERT_FATAL(pipe(pfd) == 0);
	m = raw_msg(DPSOCK_OP_BIND);
	m.addr.in = ba;
	CU_ASSERT_EQUAL(raw_send(fd, &m, sizeof(m), pfd[1]), 0);
	CU_ASSERT_EQUAL(dp_test_ctl_reply(fd), -EINVAL);
	close(pfd[0]);
	close(pfd[1]);
	m = raw_msg(77);
	CU_ASSERT_EQUAL(raw_send(fd, &m, sizeof(m), -1), 0);
	CU_ASSERT_EQUAL(dp_test_ctl_reply(fd), 1000);
	close(fd);
	fd = raw_connect();
	m = raw_msg(DPSOCK_OP_HELLO);
	CU_ASSERT_EQUAL(raw_send(fd, &m, sizeof(m), -1), 0);
	CU_ASSERT_EQUAL(dp_test_ctl_reply(fd), 0);
	m = raw_msg(DPSOCK_OP_BIND);
	m.addr.in = ba;
	CU_ASSERT_EQUAL(raw_send(fd, &m, sizeof(m), -1), 0);
	CU_ASSERT_EQUAL(dp_test_ctl_reply(fd), 1000);
	close(fd);
	/* a longer message */
	fd = raw_connect();
	{
		char big[sizeof(m) + 64];

		memset(big, 0, sizeof(big));
		m = raw_msg(DPSOCK_OP_HELLO);
		memcpy(big, &m, sizeof(m));
		CU_ASSERT_EQUAL(raw_send(fd, big, sizeof(big), -1), 0);
		CU_ASSERT_EQUAL(dp_test_ctl_reply(fd), 1000);
	}
	close(fd);
	CU_ASSERT(stat_wait("malformed", malformed0 + 6, 3.0));
	/* everybody else is still served */
	a = dpsock_open(sock_path, AF_INET, 0);
	b = dpsock_open(sock_path, AF_INET, 0);
	CU_ASSERT_FATAL(a != NULL && b != NULL);
	CU_ASSERT_EQUAL(dpsock_bind(b, SA(ba), sizeof(ba)), 0);
	CU_ASSERT_EQUAL(dpsock_sendto(a, "ok", 2, 0, SA(ba), sizeof(ba)), 2);
	CU_ASSERT_EQUAL(dpsock_recv(b, buf, sizeof(buf), 0), 2);
	dpsock_close(a);
	dpsock_close(b);
	CU_ASSERT(stat_wait("connections", 0, 5.0));
}

/* Blocks in a receive; exit 0 when it returned -ENOTCONN. */
static int
blocked_child(int ready, void *arg)
{
	struct sockaddr_in ba = sin4("198.18.0.1", 7101);
	struct dpsock *ep = dpsock_open(sock_path, AF_INET, 0);
	char buf[8];
	ssize_t n;

	(void)arg;
	if (ep == NULL || dpsock_bind(ep, SA(ba), sizeof(ba)) < 0)
		return 40;
	ready_say(ready);
	n = dpsock_recv(ep, buf, sizeof(buf), 0);
	return n == -ENOTCONN ? 0 : 41;
}

static void
test_dpsock_dpfwd_killed_enotconn_then_restart(void)
{
	struct sockaddr_in ba = sin4("198.18.0.1", 7100), other = sin4("198.18.0.1", 7200);
	struct dpsock *a, *b, *fresh;
	double t0;
	ssize_t n = 0;
	char buf[8];
	int ready = -1;
	pid_t pid;

	pid = child_start(blocked_child, NULL, &ready);
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_FATAL(child_ready(ready));
	close(ready);
	a = dpsock_open(sock_path, AF_INET, DPSOCK_NONBLOCK);
	b = dpsock_open(sock_path, AF_INET, DPSOCK_NONBLOCK);
	CU_ASSERT_FATAL(a != NULL && b != NULL);
	CU_ASSERT_EQUAL(dpsock_bind(b, SA(ba), sizeof(ba)), 0);
	CU_ASSERT_EQUAL(dpsock_sendto(a, "x", 1, 0, SA(ba), sizeof(ba)), 1);
	dpfwd_stop(SIGKILL);
	/* the blocked receiver wakes with -ENOTCONN */
	CU_ASSERT_EQUAL(child_wait(pid, 5.0), 0);
	/* a call that needs dpfwd says so at once; the others within a few ms */
	CU_ASSERT_EQUAL(dpsock_sendto(a, "x", 1, 0, SA(other), sizeof(other)), -ENOTCONN);
	for (t0 = dp_test_now_s(); dp_test_now_s() - t0 < 2.0; dp_test_sleep_s(0.005)) {
		n = dpsock_recv(b, buf, sizeof(buf), 0);
		if (n == -ENOTCONN)
			break;
	}
	CU_ASSERT_EQUAL(n, -ENOTCONN);
	CU_ASSERT_EQUAL(dpsock_recv(b, buf, sizeof(buf), 0), -ENOTCONN);
	CU_ASSERT_EQUAL(dpsock_sendto(a, "x", 1, 0, SA(ba), sizeof(ba)), -ENOTCONN);
	CU_ASSERT_EQUAL(dpsock_bind(a, SA(other), sizeof(other)), -ENOTCONN);
	/* nobody listens: refused (the socket file is stale) */
	fresh = dpsock_open(sock_path, AF_INET, 0);
	CU_ASSERT_PTR_NULL(fresh);
	CU_ASSERT_EQUAL(errno, ECONNREFUSED);
	dpsock_close(a);
	dpsock_close(b);
	/* a new dpfwd removes the stale file; applications attach again */
	CU_ASSERT_FATAL(dpfwd_start() == 0);
	a = dpsock_open(sock_path, AF_INET, 0);
	b = dpsock_open(sock_path, AF_INET, 0);
	CU_ASSERT_FATAL(a != NULL && b != NULL);
	CU_ASSERT_EQUAL(dpsock_bind(b, SA(ba), sizeof(ba)), 0);
	CU_ASSERT_EQUAL(dpsock_sendto(a, "back", 4, 0, SA(ba), sizeof(ba)), 4);
	CU_ASSERT_EQUAL(dpsock_recv(b, buf, sizeof(buf), 0), 4);
	dpsock_close(a);
	dpsock_close(b);
}

static void
test_dpsock_second_dpfwd_refuses_the_socket(void)
{
	char err[PATH_MAX], *line = NULL;
	char saved_prefix[64];
	struct dpsock *ep;
	size_t cap = 0;
	bool said = false;
	FILE *f;
	int status;
	pid_t pid;

	/* the live one stays; a second one on the same path exits with a message */
	memcpy(saved_prefix, prefix, sizeof(prefix));
	pid = dpfwd_spawn(err, sizeof(err));
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_EQUAL(child_wait(pid, 30.0), 1);
	f = fopen(err, "r");
	while (f != NULL && getline(&line, &cap, f) > 0)
		if (strstr(line, "another dpfwd listens there") != NULL)
			said = true;
	if (f != NULL)
		fclose(f);
	free(line);
	CU_ASSERT(said);
	(void)status;
	runtime_dir_remove();
	memcpy(prefix, saved_prefix, sizeof(prefix));
	ep = dpsock_open(sock_path, AF_INET, 0);
	CU_ASSERT(ep != NULL);
	dpsock_close(ep);
}

/* ---- reclaim with packets in flight ---- */

#define INFLIGHT_DGRAM 64512u /* 63 KB: 44 fragments, sent zero copy (zero_copy_min 16 KB) */
#define INFLIGHT_NEIGH "neigh = 198.18.0.2 lladdr 02:00:00:00:00:02 port 0\n"

/* Mbufs in use above the baseline, over every pool of the snapshot; LONG_MIN: unreadable. */
static long
pools_over_baseline(void)
{
	json_t *pools = snapshot_section("mempools"), *p;
	long over = LONG_MIN;
	size_t i;

	if (json_is_array(pools) && json_array_size(pools) > 0) {
		over = 0;
		json_array_foreach(pools, i, p) over +=
			(long)(json_integer_value(json_object_get(p, "in_use")) -
				json_integer_value(json_object_get(p, "in_use_baseline")));
	}
	json_decref(pools);
	return over;
}

static bool
pools_wait_baseline(double timeout)
{
	double t0 = dp_test_now_s();

	while (dp_test_now_s() - t0 < timeout) {
		if (pools_over_baseline() == 0)
			return true;
		dp_test_sleep_s(0.05);
	}
	fprintf(stderr, "mempools: %ld mbufs over the baseline\n", pools_over_baseline());
	return false;
}

/* Frames port @p index sent, from the snapshot; -1: unreadable. */
static long
port_opackets(int index)
{
	json_t *ports = snapshot_section("ports"), *p;
	long v = -1;
	size_t i;

	for (i = 0; i < json_array_size(ports); i++) {
		p = json_array_get(ports, i);
		if (json_integer_value(json_object_get(p, "index")) == index)
			v = (long)json_integer_value(json_object_get(p, "opackets"));
	}
	json_decref(ports);
	return v;
}

/* dpfwd again, with a static neighbor on port0 (net_null, no-rx=1): a sink for remote sends. */
static int
dpfwd_restart_with_port0_neighbor(void)
{
	char *txt = NULL, *at;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	dpfwd_stop(SIGTERM);
	f = fopen(cfg_path, "r");
	if (f == NULL)
		return -1;
	n = getdelim(&txt, &cap, '\0', f);
	fclose(f);
	at = n > 0 ? strstr(txt, "[neighbors]\n") : NULL;
	f = at != NULL ? fopen(cfg_path, "w") : NULL;
	if (f == NULL) {
		free(txt);
		return -1;
	}
	at += strlen("[neighbors]\n");
	fprintf(f, "%.*s%s%s", (int)(at - txt), txt, INFLIGHT_NEIGH, at);
	free(txt);
	if (fclose(f) != 0)
		return -1;
	/* the old dpfwd's final snapshot goes: every number read after this is the new one's */
	unlink(json_path);
	if (dpfwd_start() != 0)
		return -1;
	return stat_wait("endpoints", 0, 5.0) ? 0 : -1;
}

/*
 * Sends one 63 KB datagram to 198.18.0.3, a neighbor that never answers (dpfwd holds the
 * last neigh_hold fragments, which point into this endpoint's buffer, until it gives up
 * after neigh_probes x neigh_retrans_ms = 3 s), then 63 KB datagrams to 198.18.0.2 (the
 * static neighbor behind port0) as fast as it can, until killed.
 */
static int
remote_stream_child(int ready, void *arg)
{
	struct sockaddr_in me = sin4("198.18.0.1", 7400), to = sin4("198.18.0.2", 9100);
	struct sockaddr_in mute = sin4("198.18.0.3", 9100);
	uint8_t *buf = malloc(INFLIGHT_DGRAM);
	struct dpsock *ep = dpsock_open(sock_path, AF_INET, 0);

	(void)arg;
	if (buf == NULL || ep == NULL || dpsock_bind(ep, SA(me), sizeof(me)) < 0)
		return 50;
	pattern_fill(buf, INFLIGHT_DGRAM, 77);
	if (dpsock_sendto(ep, buf, INFLIGHT_DGRAM, 0, SA(mute), sizeof(mute)) != INFLIGHT_DGRAM)
		return 52;
	ready_say(ready);
	for (;;)
		if (dpsock_sendto(ep, buf, INFLIGHT_DGRAM, 0, SA(to), sizeof(to)) != INFLIGHT_DGRAM)
			return 51;
}

static void
test_dpsock_sigkill_remote_sender_mid_stream_reclaimed(void)
{
	struct sockaddr_in me = sin4("198.18.0.1", 7400), to = sin4("198.18.0.2", 9100);
	long reclaims0, out0, out1, held;
	uint8_t *buf = malloc(INFLIGHT_DGRAM);
	struct dpsock_stats st;
	struct dpsock *ep;
	int ready = -1, status;
	double t0;
	pid_t pid;

	CU_ASSERT_FATAL(buf != NULL);
	CU_ASSERT_FATAL(dpfwd_restart_with_port0_neighbor() == 0);
	CU_ASSERT(pools_wait_baseline(5.0));
	reclaims0 = stat_get("reclaims");
	out0 = port_opackets(0);
	pid = child_start(remote_stream_child, NULL, &ready);
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_FATAL(child_ready(ready));
	close(ready);
	/* streaming for real: thousands of fragments out of port0 */
	for (t0 = dp_test_now_s(); dp_test_now_s() - t0 < 5.0 && port_opackets(0) - out0 < 44 * 100;
		dp_test_sleep_s(0.02))
		;
	out1 = port_opackets(0);
	CU_ASSERT(out1 - out0 >= 44 * 100);
	CU_ASSERT(list_wait_pid(pid, 1, 5.0));
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	/* its endpoint goes at once; its region waits for the fragments held for 198.18.0.3 */
	CU_ASSERT(list_wait_pid(pid, 0, 5.0));
	CU_ASSERT(stat_wait("endpoints", 0, 5.0));
	CU_ASSERT(stat_get("reclaims") >= reclaims0 + 1);
	held = pools_over_baseline();
	CU_ASSERT(stat_get("reclaims_pending") == 1 && held >= 1);
	/* its port is free at once, while its region waits */
	ep = dpsock_open(sock_path, AF_INET, 0);
	CU_ASSERT_FATAL(ep != NULL);
	CU_ASSERT_EQUAL(dpsock_bind(ep, SA(me), sizeof(me)), 0);
	dpsock_close(ep);
	/* then the neighbor fails, they are dropped, the region goes and every mbuf is back */
	CU_ASSERT(stat_wait("reclaims_pending", 0, 8.0));
	CU_ASSERT(pools_wait_baseline(5.0));
	fprintf(stderr, " [%ld frames out in the stream; %ld mbufs held after the kill] ",
		out1 - out0, held);
	/* a new endpoint gets the same port and sends through the same worker */
	ep = dpsock_open(sock_path, AF_INET, 0);
	CU_ASSERT_FATAL(ep != NULL);
	CU_ASSERT_EQUAL_FATAL(dpsock_bind(ep, SA(me), sizeof(me)), 0);
	pattern_fill(buf, INFLIGHT_DGRAM, 78);
	out0 = port_opackets(0);
	CU_ASSERT_EQUAL(dpsock_sendto(ep, buf, INFLIGHT_DGRAM, 0, SA(to), sizeof(to)),
		(ssize_t)INFLIGHT_DGRAM);
	for (t0 = dp_test_now_s(); dp_test_now_s() - t0 < 5.0 && port_opackets(0) - out0 < 44;
		dp_test_sleep_s(0.05))
		;
	CU_ASSERT_EQUAL(port_opackets(0) - out0, 44);
	CU_ASSERT_EQUAL(dpsock_stats_get(ep, &st), 0);
	CU_ASSERT_EQUAL(st.tx_msgs, 1);
	dpsock_close(ep);
	CU_ASSERT(stat_wait("endpoints", 0, 5.0));
	CU_ASSERT(pools_wait_baseline(5.0));
	free(buf);
}

/* ---- suite ---- */

static int
suite_init(void)
{
	const char *bin = getenv("DPFWD_BIN");
	char tmpl[] = "/tmp/dpsock_test.XXXXXX";

	if (bin == NULL) {
		fprintf(stderr, "DPFWD_BIN not set\n");
		return -1;
	}
	snprintf(dpfwd_bin, sizeof(dpfwd_bin), "%s", bin);
	if (mkdtemp(tmpl) == NULL)
		return -1;
	snprintf(dir, sizeof(dir), "%s", tmpl);
	snprintf(sock_path, sizeof(sock_path), "%s/run/dpsock.sock", dir);
	snprintf(json_path, sizeof(json_path), "%s/telemetry.json", dir);
	snprintf(cfg_path, sizeof(cfg_path), "%s/dpfwd.ini", dir);
	/* waits sleep soon: three processes share two cores with a polling worker */
	setenv("DPSOCK_SPIN_US", "5", 1);
	signal(SIGPIPE, SIG_IGN);
	if (config_write() != 0)
		return -1;
	return dpfwd_start();
}

static int
suite_cleanup(void)
{
	int status = dpfwd_stop(SIGTERM);

	if (status != -1 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		fprintf(stderr, "dpfwd exit status 0x%x at the end (logs in %s)\n", status, dir);
	if (getenv("DPSK_KEEP") != NULL)
		fprintf(stderr, "kept %s\n", dir);
	else
		dp_test_rm_rf(dir);
	return 0;
}

int
main(void)
{
	static const struct dp_test tests[] = {
		{ "open_refused_without_dpfwd", test_dpsock_open_refused_without_dpfwd },
		{ "bind_getsockname_ephemeral", test_dpsock_bind_getsockname_ephemeral },
		{ "pingpong_two_processes_ip4", test_dpsock_pingpong_two_processes_ip4 },
		{ "pingpong_two_processes_ip6", test_dpsock_pingpong_two_processes_ip6 },
		{ "zero_copy_burst", test_dpsock_zero_copy_burst },
		{ "nonblocking_backpressure_and_recovery",
			test_dpsock_nonblocking_backpressure_and_recovery },
		{ "blocking_recv_woken_by_other_process",
			test_dpsock_blocking_recv_woken_by_other_process },
		{ "evq_fd_in_app_epoll_with_kernel_socket",
			test_dpsock_evq_fd_in_app_epoll_with_kernel_socket },
		{ "connect_filters_other_senders", test_dpsock_connect_filters_other_senders },
		{ "remote_datagram_leaves_through_worker",
			test_dpsock_remote_datagram_leaves_through_worker },
		{ "close_peer_refused_then_reresolves",
			test_dpsock_close_peer_refused_then_reresolves },
		{ "sigkill_sender_reclaimed", test_dpsock_sigkill_sender_reclaimed },
		{ "bad_control_messages_close_only_that_connection",
			test_dpsock_bad_control_messages_close_only_that_connection },
		{ "second_dpfwd_refuses_the_socket", test_dpsock_second_dpfwd_refuses_the_socket },
		{ "dpfwd_killed_enotconn_then_restart",
			test_dpsock_dpfwd_killed_enotconn_then_restart },
		{ "sigkill_remote_sender_mid_stream_reclaimed",
			test_dpsock_sigkill_remote_sender_mid_stream_reclaimed },
		{ NULL, NULL },
	};

	return dp_test_run("dpsock", tests, suite_init, suite_cleanup);
}
