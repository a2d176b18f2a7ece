/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One sequence of socket calls on UDP sockets over loopback, each result
 * printed as "step: value" (a count, a flag, or the errno's name). Run once
 * on the kernel's sockets and once under libdpsock-preload: the two outputs
 * must be the same (tests/preload/test_preload.py).
 *
 *   preload_sem 4|6 [eintr]
 *
 * With "eintr" only the signal steps run: under DPSOCK_SPIN_US=1000000 their waits are
 * interrupted while they still spin, not while they sleep.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/time.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <netinet/in.h>

static int family;

/* Print @p name and @p rc (>= 0), or the errno's name. */
static long
show(const char *name, long rc)
{
	if (rc < 0)
		printf("%s: %s\n", name, strerrorname_np(errno));
	else
		printf("%s: %ld\n", name, rc);
	fflush(stdout);
	return rc;
}

static void
flag(const char *name, int v)
{
	printf("%s: %s\n", name, v ? "yes" : "no");
	fflush(stdout);
}

static socklen_t
loop_addr(struct sockaddr_storage *ss, uint16_t port)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		in->sin_family = AF_INET;
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		in->sin_port = htons(port);
		return sizeof(*in);
	}
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	in6->sin6_family = AF_INET6;
	in6->sin6_addr = in6addr_loopback;
	in6->sin6_port = htons(port);
	return sizeof(*in6);
}

static uint16_t
port_of(const struct sockaddr_storage *ss)
{
	size_t off = family == AF_INET ? offsetof(struct sockaddr_in, sin_port)
				       : offsetof(struct sockaddr_in6, sin6_port);
	uint16_t p;

	memcpy(&p, (const uint8_t *)ss + off, sizeof(p));
	return ntohs(p);
}

static bool
is_loopback(const struct sockaddr_storage *ss)
{
	struct sockaddr_in in;
	struct sockaddr_in6 in6;

	if (family == AF_INET) {
		memcpy(&in, ss, sizeof(in));
		return in.sin_addr.s_addr == htonl(INADDR_LOOPBACK);
	}
	memcpy(&in6, ss, sizeof(in6));
	return IN6_IS_ADDR_LOOPBACK(&in6.sin6_addr);
}

static uint16_t
local_port(int fd)
{
	union {
		struct sockaddr sa;
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	} u;
	socklen_t l = sizeof(u);

	memset(&u, 0, sizeof(u));
	if (getsockname(fd, &u.sa, &l) < 0)
		return 0;
	return ntohs(family == AF_INET ? u.in.sin_port : u.in6.sin6_port);
}

static int
udp(void)
{
	return socket(family, SOCK_DGRAM, 0);
}

static int
udp_bound(void)
{
	struct sockaddr_storage ss;
	socklen_t l = loop_addr(&ss, 0);
	int fd = udp();

	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, l) < 0) {
		perror("udp_bound");
		exit(2);
	}
	return fd;
}

static long
send_to(int fd, int to_fd, const void *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t l = loop_addr(&ss, local_port(to_fd));

	return sendto(fd, buf, len, 0, (struct sockaddr *)&ss, l);
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
step_bind(void)
{
	struct sockaddr_storage ss, me = { 0 };
	socklen_t l = loop_addr(&ss, 0), ml = sizeof(me);
	int a = udp(), b = udp();

	show("bind_port0", bind(a, (struct sockaddr *)&ss, l));
	show("getsockname", getsockname(a, (struct sockaddr *)&me, &ml));
	flag("getsockname_port_set", port_of(&me) != 0);
	flag("getsockname_loopback", is_loopback(&me));
	show("getsockname_len", (long)ml);
	show("bind_again", bind(a, (struct sockaddr *)&ss, l));
	show("bind_in_use", bind(b, (struct sockaddr *)&me, ml));
	show("send_no_dest", send(b, "x", 1, 0));
	show("write_no_dest", write(b, "x", 1));
	show("getpeername_unconnected", getpeername(a, (struct sockaddr *)&me, &ml));
	show("shutdown_unconnected", shutdown(b, SHUT_RD));
	close(a);
	close(b);
}

static void
step_nonblock_timeout(void)
{
	struct timeval tv = { 0, 100000 };
	char buf[16];
	int a = udp_bound(), on = 1, off = 0;
	uint64_t t0;

	show("recv_dontwait", recv(a, buf, sizeof(buf), MSG_DONTWAIT));
	show("fcntl_setfl", fcntl(a, F_SETFL, fcntl(a, F_GETFL) | O_NONBLOCK));
	flag("fcntl_getfl_nonblock", (fcntl(a, F_GETFL) & O_NONBLOCK) != 0);
	show("recv_nonblock", recv(a, buf, sizeof(buf), 0));
	show("fcntl_clear", fcntl(a, F_SETFL, fcntl(a, F_GETFL) & ~O_NONBLOCK));
	show("fionbio_on", ioctl(a, FIONBIO, &on));
	show("read_fionbio", read(a, buf, sizeof(buf)));
	show("fionbio_off", ioctl(a, FIONBIO, &off));
	show("rcvtimeo_set", setsockopt(a, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	t0 = now_ms();
	show("recv_timeout", recv(a, buf, sizeof(buf), 0));
	flag("recv_timeout_waited", now_ms() - t0 >= 90);
	close(a);
}

static void
step_trunc_peek(void)
{
	struct sockaddr_storage from = { 0 };
	socklen_t fl = sizeof(from);
	char big[100], buf[16];
	struct iovec iov = { buf, 10 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct pollfd p;
	int a = udp_bound(), s = udp_bound(), n = -1;

	memset(big, 'a', sizeof(big));
	show("sendto", send_to(s, a, big, sizeof(big)));
	p = (struct pollfd){ .fd = a, .events = POLLIN };
	show("poll_in", poll(&p, 1, 1000));
	show("poll_revents", p.revents);
	show("fionread", ioctl(a, FIONREAD, &n));
	show("fionread_value", n);
	show("recv_peek", recv(a, buf, 10, MSG_PEEK));
	show("recv_peek_trunc", recv(a, buf, 10, MSG_PEEK | MSG_TRUNC));
	show("recvfrom_trunc", recvfrom(a, buf, 10, MSG_TRUNC, (struct sockaddr *)&from, &fl));
	flag("recvfrom_from_sender", port_of(&from) == local_port(s) && is_loopback(&from));
	show("recvfrom_fromlen", (long)fl);
	show("recv_rest_gone", recv(a, buf, 10, MSG_DONTWAIT));
	show("fionread_empty", ioctl(a, FIONREAD, &n));
	show("fionread_empty_value", n);
	send_to(s, a, big, 50);
	show("recvmsg_small", recvmsg(a, &msg, 0));
	flag("recvmsg_flag_trunc", (msg.msg_flags & MSG_TRUNC) != 0);
	send_to(s, a, "", 0);
	show("recv_empty_datagram", recv(a, buf, sizeof(buf), 0));
	close(a);
	close(s);
}

static void
step_connect(void)
{
	struct sockaddr_storage ss, peer;
	socklen_t l, pl = sizeof(peer);
	struct iovec iov[2] = { { "he", 2 }, { "llo", 3 } };
	char buf[16];
	int a = udp_bound(), s = udp_bound(), o = udp_bound();

	memset(&peer, 0, sizeof(peer));
	l = loop_addr(&ss, local_port(a));
	show("connect", connect(s, (struct sockaddr *)&ss, l));
	show("getpeername", getpeername(s, (struct sockaddr *)&peer, &pl));
	flag("getpeername_is_peer", port_of(&peer) == local_port(a) && is_loopback(&peer));
	show("send_connected", send(s, "hi", 2, 0));
	show("recv_from_connected", recv(a, buf, sizeof(buf), 0));
	show("writev_connected", writev(s, iov, 2));
	show("read_writev", read(a, buf, sizeof(buf)));
	/* a connected socket takes datagrams from its peer only */
	show("send_from_other", send_to(o, s, "no", 2));
	show("send_from_peer", send_to(a, s, "yes", 3));
	show("recv_only_peer", recv(s, buf, sizeof(buf), 0));
	flag("recv_only_peer_data", memcmp(buf, "yes", 3) == 0);
	show("recv_other_dropped", recv(s, buf, sizeof(buf), MSG_DONTWAIT));
	memset(&ss, 0, sizeof(ss));
	ss.ss_family = AF_UNSPEC;
	show("connect_unspec", connect(s, (struct sockaddr *)&ss, sizeof(ss)));
	show("getpeername_disconnected", getpeername(s, (struct sockaddr *)&peer, &pl));
	show("send_disconnected", send(s, "x", 1, 0));
	show("shutdown_connected", shutdown(a, SHUT_WR));
	close(a);
	close(s);
	close(o);
}

static void
step_dup(void)
{
	char buf[16];
	int a = udp_bound(), s = udp_bound(), d, d2;

	d = dup(a);
	show("dup_ok", d >= 0);
	show("close_original", close(a));
	show("sendto_dup", send_to(s, d, "dup", 3));
	show("recv_dup", recv(d, buf, sizeof(buf), 0));
	d2 = fcntl(d, F_DUPFD_CLOEXEC, 0);
	show("dup2_ok", dup2(d2, d2) == d2);
	show("close_dup", close(d));
	show("sendto_dup2", send_to(s, d2, "dup2", 4));
	show("recv_dup2", recv(d2, buf, sizeof(buf), 0));
	show("close_dup2", close(d2));
	show("close_again", close(d2));
	close(s);
}

static void
step_options(void)
{
	int a = udp(), v = 0x10, got = 0;
	socklen_t l = sizeof(got);

	show("so_type", getsockopt(a, SOL_SOCKET, SO_TYPE, &got, &l));
	show("so_type_value", got);
	show("so_error", getsockopt(a, SOL_SOCKET, SO_ERROR, &got, &l));
	show("so_error_value", got);
	v = 65536;
	show("so_rcvbuf_set", setsockopt(a, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)));
	show("so_rcvbuf", getsockopt(a, SOL_SOCKET, SO_RCVBUF, &got, &l));
	show("so_rcvbuf_value", got);
	show("so_sndbuf_set", setsockopt(a, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)));
	show("so_sndbuf", getsockopt(a, SOL_SOCKET, SO_SNDBUF, &got, &l));
	show("so_sndbuf_value", got);
	{
		struct timeval tv = { 0, 250000 }, tv_got = { 0 };
		socklen_t tl = sizeof(tv_got);

		show("so_sndtimeo_set", setsockopt(a, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)));
		show("so_sndtimeo", getsockopt(a, SOL_SOCKET, SO_SNDTIMEO, &tv_got, &tl));
		show("so_sndtimeo_usec", tv_got.tv_usec);
	}
	v = 1;
	show("so_reuseaddr_set", setsockopt(a, SOL_SOCKET, SO_REUSEADDR, &v, sizeof(v)));
	show("so_reuseaddr", getsockopt(a, SOL_SOCKET, SO_REUSEADDR, &got, &l));
	show("so_reuseaddr_value", got);
	if (family == AF_INET) {
		v = 0x10;
		show("ip_tos_set", setsockopt(a, IPPROTO_IP, IP_TOS, &v, sizeof(v)));
		show("ip_tos", getsockopt(a, IPPROTO_IP, IP_TOS, &got, &l));
		show("ip_tos_value", got);
		v = 1;
		show("ip_pktinfo_set", setsockopt(a, IPPROTO_IP, IP_PKTINFO, &v, sizeof(v)));
	} else {
		show("ipv6_v6only", getsockopt(a, IPPROTO_IPV6, IPV6_V6ONLY, &got, &l));
		v = 1;
		show("ipv6_recvpktinfo_set",
			setsockopt(a, IPPROTO_IPV6, IPV6_RECVPKTINFO, &v, sizeof(v)));
	}
	show("unknown_option", setsockopt(a, SOL_SOCKET, 12345, &v, sizeof(v)));
	show("bad_optlen", setsockopt(a, SOL_SOCKET, SO_RCVBUF, &v, 1));
	close(a);
}

static void
step_pktinfo(void)
{
	char buf[16], ctl[128];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl)
	};
	struct cmsghdr *c;
	int a = udp_bound(), s = udp_bound(), v = 1;

	if (family == AF_INET)
		setsockopt(a, IPPROTO_IP, IP_PKTINFO, &v, sizeof(v));
	else
		setsockopt(a, IPPROTO_IPV6, IPV6_RECVPKTINFO, &v, sizeof(v));
	send_to(s, a, "pi", 2);
	show("recvmsg_pktinfo", recvmsg(a, &msg, 0));
	c = CMSG_FIRSTHDR(&msg);
	flag("pktinfo_present", c != NULL);
	if (c != NULL && family == AF_INET) {
		struct in_pktinfo pi;

		memcpy(&pi, CMSG_DATA(c), sizeof(pi));
		flag("pktinfo_addr_loopback", pi.ipi_addr.s_addr == htonl(INADDR_LOOPBACK));
	} else if (c != NULL) {
		struct in6_pktinfo pi;

		memcpy(&pi, CMSG_DATA(c), sizeof(pi));
		flag("pktinfo_addr_loopback", IN6_IS_ADDR_LOOPBACK(&pi.ipi6_addr));
	}
	close(a);
	close(s);
}

static void
step_mmsg(void)
{
	char bufs[4][16];
	struct iovec iov[4];
	struct mmsghdr v[4];
	struct sockaddr_storage ss;
	socklen_t l;
	int a = udp_bound(), s = udp_bound(), i;

	l = loop_addr(&ss, local_port(a));
	memset(v, 0, sizeof(v));
	for (i = 0; i < 4; i++) {
		iov[i] = (struct iovec){ bufs[i], sizeof(bufs[i]) };
		snprintf(bufs[i], sizeof(bufs[i]), "m%d", i);
		v[i].msg_hdr.msg_iov = &iov[i];
		v[i].msg_hdr.msg_iovlen = 1;
		v[i].msg_hdr.msg_name = &ss;
		v[i].msg_hdr.msg_namelen = l;
	}
	for (i = 0; i < 3; i++)
		iov[i].iov_len = 2;
	show("sendmmsg", sendmmsg(s, v, 3, 0));
	for (i = 0; i < 4; i++) {
		iov[i].iov_len = sizeof(bufs[i]);
		v[i].msg_hdr.msg_name = NULL;
	}
	usleep(20000);
	show("recvmmsg_waitforone", recvmmsg(a, v, 4, MSG_WAITFORONE, NULL));
	show("recvmmsg_len0", v[0].msg_len);
	close(a);
	close(s);
}

static const char *
ev_name(uint64_t d)
{
	static const char *names[] = { "udp", "tcp", "pipe", "udp_out", "udp2" };

	return d < 5 ? names[d] : "?";
}

/* epoll_wait's events as "name,name" in data order. */
static void
epoll_show(const char *name, int ep, int timeout)
{
	struct epoll_event ev[8];
	char out[64] = "";
	int n = epoll_wait(ep, ev, 8, timeout), i, j;
	size_t len;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (ev[j].data.u64 < ev[i].data.u64) {
				struct epoll_event t = ev[i];

				ev[i] = ev[j];
				ev[j] = t;
			}
	for (i = 0, len = 0; i < n && len < sizeof(out); i++)
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s", i ? "," : "",
			ev_name(ev[i].data.u64));
	printf("%s: %d %s\n", name, n, n > 0 ? out : "-");
	fflush(stdout);
}

static void
step_epoll_mixed(void)
{
	struct sockaddr_in tin = { .sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t tl = sizeof(tin);
	struct epoll_event ev;
	char buf[16];
	int a = udp_bound(), s = udp_bound(), ep, t, c, p[2];

	ep = epoll_create1(EPOLL_CLOEXEC);
	t = socket(AF_INET, SOCK_STREAM, 0);
	if (bind(t, (struct sockaddr *)&tin, sizeof(tin)) < 0 || listen(t, 4) < 0 ||
		getsockname(t, (struct sockaddr *)&tin, &tl) < 0 || pipe(p) < 0)
		exit(2);
	ev = (struct epoll_event){ .events = EPOLLIN, .data.u64 = 0 };
	show("epoll_add_udp", epoll_ctl(ep, EPOLL_CTL_ADD, a, &ev));
	show("epoll_add_udp_again", epoll_ctl(ep, EPOLL_CTL_ADD, a, &ev));
	ev.data.u64 = 1;
	show("epoll_add_tcp", epoll_ctl(ep, EPOLL_CTL_ADD, t, &ev));
	ev.data.u64 = 2;
	show("epoll_add_pipe", epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev));
	epoll_show("epoll_idle", ep, 0);
	epoll_show("epoll_idle_timeout", ep, 50);
	show("pipe_write", write(p[1], "x", 1));
	epoll_show("epoll_pipe", ep, 1000);
	send_to(s, a, "u", 1);
	epoll_show("epoll_pipe_udp", ep, 1000);
	epoll_show("epoll_level", ep, 0);
	show("pipe_read", read(p[0], buf, sizeof(buf)));
	show("udp_recv", recv(a, buf, sizeof(buf), 0));
	epoll_show("epoll_drained", ep, 0);
	c = socket(AF_INET, SOCK_STREAM, 0);
	show("tcp_connect", connect(c, (struct sockaddr *)&tin, sizeof(tin)));
	epoll_show("epoll_tcp", ep, 1000);
	close(accept(t, NULL, NULL));
	ev = (struct epoll_event){ .events = EPOLLIN | EPOLLONESHOT, .data.u64 = 0 };
	show("epoll_mod_oneshot", epoll_ctl(ep, EPOLL_CTL_MOD, a, &ev));
	send_to(s, a, "u", 1);
	epoll_show("epoll_oneshot", ep, 1000);
	epoll_show("epoll_oneshot_off", ep, 0);
	ev = (struct epoll_event){ .events = EPOLLIN | EPOLLOUT, .data.u64 = 3 };
	show("epoll_mod_out", epoll_ctl(ep, EPOLL_CTL_MOD, a, &ev));
	epoll_show("epoll_out", ep, 0);
	show("epoll_del", epoll_ctl(ep, EPOLL_CTL_DEL, a, NULL));
	show("epoll_del_again", epoll_ctl(ep, EPOLL_CTL_DEL, a, NULL));
	epoll_show("epoll_after_del", ep, 0);
	show("udp_recv_after", recv(a, buf, sizeof(buf), 0));
	/* blocked in epoll_wait, woken by a datagram from a child */
	ev = (struct epoll_event){ .events = EPOLLIN, .data.u64 = 0 };
	epoll_ctl(ep, EPOLL_CTL_ADD, a, &ev);
	if (fork() == 0) {
		usleep(100000);
		send_to(s, a, "late", 4);
		_exit(0);
	}
	epoll_show("epoll_wakes", ep, 3000);
	wait(NULL);
	show("recv_late", recv(a, buf, sizeof(buf), 0));
	close(ep);
	close(t);
	close(c);
	close(p[0]);
	close(p[1]);
	close(a);
	close(s);
}

/* EPOLLET: once per arrival, however much is left unread; again after EPOLL_CTL_MOD */
static void
step_epoll_edge(void)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET, .data.u64 = 0 };
	char buf[16];
	int a = udp_bound(), b = udp_bound(), s = udp_bound(), ep = epoll_create1(0);

	show("et_add", epoll_ctl(ep, EPOLL_CTL_ADD, a, &ev));
	epoll_show("et_idle", ep, 0);
	send_to(s, a, "1", 1);
	send_to(s, a, "2", 1);
	epoll_show("et_two_arrived", ep, 1000);
	epoll_show("et_not_again", ep, 0);
	show("et_read_one", recv(a, buf, sizeof(buf), 0));
	epoll_show("et_one_left", ep, 0);
	send_to(s, a, "3", 1);
	epoll_show("et_new_arrival", ep, 1000);
	epoll_show("et_new_once", ep, 0);
	show("et_read_two", recv(a, buf, sizeof(buf), 0));
	show("et_read_three", recv(a, buf, sizeof(buf), 0));
	show("et_drained", recv(a, buf, sizeof(buf), MSG_DONTWAIT));
	epoll_show("et_after_drain", ep, 0);
	send_to(s, a, "4", 1);
	epoll_show("et_after_drain_arrival", ep, 1000);
	ev.data.u64 = 0;
	show("et_mod", epoll_ctl(ep, EPOLL_CTL_MOD, a, &ev));
	epoll_show("et_mod_reports", ep, 0);
	epoll_show("et_mod_once", ep, 0);
	/* a datagram arrived and read before the wait: nothing to report */
	send_to(s, a, "5", 1);
	show("et_read_four", recv(a, buf, sizeof(buf), 0));
	show("et_read_five", recv(a, buf, sizeof(buf), 0));
	epoll_show("et_read_before_wait_none", ep, 0);
	/* added with a datagram waiting: reported once */
	send_to(s, b, "b", 1);
	ev.data.u64 = 4;
	show("et_add_ready", epoll_ctl(ep, EPOLL_CTL_ADD, b, &ev));
	epoll_show("et_add_reports", ep, 1000);
	epoll_show("et_add_once", ep, 0);
	/* with EPOLLOUT: both when added, both again at an arrival */
	ev = (struct epoll_event){ .events = EPOLLIN | EPOLLOUT | EPOLLET, .data.u64 = 3 };
	show("et_mod_out", epoll_ctl(ep, EPOLL_CTL_MOD, a, &ev));
	epoll_show("et_out_mod", ep, 0);
	epoll_show("et_out_once", ep, 0);
	/* one sleeping in epoll_wait, woken by a datagram from a child */
	if (fork() == 0) {
		usleep(100000);
		send_to(s, b, "late", 4);
		_exit(0);
	}
	epoll_show("et_wakes", ep, 3000);
	wait(NULL);
	close(ep);
	close(a);
	close(b);
	close(s);
}

/* CPU time of this process, in microseconds */
static uint64_t
cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/*
 * EPOLLET with a deep queue (more datagrams than a burst): reported once; a wait after
 * it sleeps (a quarter of its time on the CPU at most) until the next arrival.
 */
#define ET_DEEP         100
#define ET_DEEP_WAIT_MS 300

static void
step_epoll_edge_deep(void)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET, .data.u64 = 0 };
	char buf[16];
	int a = udp_bound(), s = udp_bound(), ep = epoll_create1(0), i;
	long sent = 0, got = 0;
	uint64_t t0, c0;

	show("et_deep_add", epoll_ctl(ep, EPOLL_CTL_ADD, a, &ev));
	epoll_show("et_deep_idle", ep, 0);
	for (i = 0; i < ET_DEEP; i++)
		sent += send_to(s, a, "d", 1) == 1;
	show("et_deep_sent", sent);
	epoll_show("et_deep_arrived", ep, 1000);
	t0 = now_ms();
	c0 = cpu_us();
	epoll_show("et_deep_not_again", ep, ET_DEEP_WAIT_MS);
	flag("et_deep_waited", now_ms() - t0 >= ET_DEEP_WAIT_MS - 10);
	flag("et_deep_slept", cpu_us() - c0 < ET_DEEP_WAIT_MS * 1000 / 4);
	send_to(s, a, "n", 1);
	epoll_show("et_deep_new_arrival", ep, 1000);
	epoll_show("et_deep_new_once", ep, 0);
	while (recv(a, buf, sizeof(buf), MSG_DONTWAIT) == 1)
		got++;
	show("et_deep_read", got);
	show("et_deep_drained", recv(a, buf, sizeof(buf), MSG_DONTWAIT));
	close(ep);
	close(a);
	close(s);
}

static void
step_poll_select(void)
{
	struct pollfd pf[2];
	fd_set r;
	struct timeval tv = { 0, 50000 };
	char buf[16];
	int a = udp_bound(), s = udp_bound(), p[2];

	if (pipe(p) < 0)
		exit(2);
	pf[0] = (struct pollfd){ .fd = a, .events = POLLIN };
	pf[1] = (struct pollfd){ .fd = p[0], .events = POLLIN };
	show("poll_idle", poll(pf, 2, 30));
	show("ppoll_idle", ppoll(pf, 2, &(struct timespec){ 0, 1000000 }, NULL));
	pf[0].events = POLLOUT;
	show("poll_out", poll(pf, 2, 0));
	show("poll_out_revents", pf[0].revents);
	pf[0].events = POLLIN;
	FD_ZERO(&r);
	FD_SET(a, &r);
	FD_SET(p[0], &r);
	show("select_idle", select((a > p[0] ? a : p[0]) + 1, &r, NULL, NULL, &tv));
	send_to(s, a, "sel", 3);
	show("pipe_write", write(p[1], "x", 1));
	FD_ZERO(&r);
	FD_SET(a, &r);
	FD_SET(p[0], &r);
	tv = (struct timeval){ 1, 0 };
	show("select_both", select((a > p[0] ? a : p[0]) + 1, &r, NULL, NULL, &tv));
	flag("select_udp_set", FD_ISSET(a, &r));
	flag("select_pipe_set", FD_ISSET(p[0], &r));
	show("poll_both", poll(pf, 2, 1000));
	show("poll_both_udp", pf[0].revents);
	show("poll_both_pipe", pf[1].revents);
	recv(a, buf, sizeof(buf), 0);
	show("pipe_read", read(p[0], buf, sizeof(buf)));
	/* a blocking recv woken by a child's datagram */
	if (fork() == 0) {
		usleep(100000);
		send_to(s, a, "late", 4);
		_exit(0);
	}
	show("recv_blocking_wakes", recv(a, buf, sizeof(buf), 0));
	wait(NULL);
	close(p[0]);
	close(p[1]);
	close(a);
	close(s);
}

/* dnsperf's way: one thread sends on a socket while another waits on it and receives */
#define THREAD_MSGS 2000

struct rx_thread {
	int fd;
	bool use_poll;
	long got;
};

static void *
rx_thread_run(void *arg)
{
	struct rx_thread *t = arg;
	char buf[16];

	while (t->got < THREAD_MSGS) {
		if (t->use_poll) {
			struct pollfd p = { .fd = t->fd, .events = POLLIN };

			if (poll(&p, 1, 100) <= 0 ||
				recv(t->fd, buf, sizeof(buf), MSG_DONTWAIT) < 0)
				continue;
		} else if (recv(t->fd, buf, sizeof(buf), 0) < 0) {
			break;
		}
		__atomic_add_fetch(&t->got, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void
step_threads(bool use_poll)
{
	struct rx_thread t = { .use_poll = use_poll };
	char buf[16];
	pthread_t th;
	long sent = 0, echoed = 0;
	int a = udp_bound(), b = udp_bound(), i;

	t.fd = a;
	if (pthread_create(&th, NULL, rx_thread_run, &t) != 0)
		exit(2);
	usleep(20000); /* the receiver asleep before the first send */
	for (i = 0; i < THREAD_MSGS; i++) {
		/* a window of 32, so that no queue overflows */
		while (echoed - __atomic_load_n(&t.got, __ATOMIC_ACQUIRE) >= 32)
			sched_yield();
		sent += send_to(a, b, "q", 1) == 1;
		if (recv(b, buf, sizeof(buf), 0) == 1)
			echoed += send_to(b, a, "r", 1) == 1;
	}
	pthread_join(th, NULL);
	show(use_poll ? "threads_poll_sent" : "threads_sent", sent);
	show(use_poll ? "threads_poll_echoed" : "threads_echoed", echoed);
	show(use_poll ? "threads_poll_received" : "threads_received", t.got);
	close(a);
	close(b);
}

/* A thread's wait on a socket that another thread's first send binds. */
struct unbound_wait {
	int fd;
	bool use_poll;
	long rc;
};

static void *
unbound_wait_run(void *arg)
{
	struct unbound_wait *w = arg;
	char buf[16];

	if (w->use_poll) {
		struct pollfd p = { .fd = w->fd, .events = POLLIN };

		w->rc = poll(&p, 1, 5000) == 1 ? recv(w->fd, buf, sizeof(buf), 0) : -1;
	} else {
		w->rc = recv(w->fd, buf, sizeof(buf), 0);
	}
	return NULL;
}

/*
 * A socket not bound yet has nothing to read, and is writable; a thread blocked on it
 * (recv, or poll for POLLIN) receives the reply to another thread's first send, which
 * binds it (sockperf's under-load client does this).
 */
static void
step_unbound(bool use_poll)
{
	struct unbound_wait w = { .use_poll = use_poll };
	struct sockaddr_storage from;
	socklen_t fl = sizeof(from);
	struct pollfd p;
	char buf[16];
	pthread_t th;
	int e = udp_bound(), n = -1;

	w.fd = udp();
	if (!use_poll) {
		show("unbound_recv_dontwait", recv(w.fd, buf, sizeof(buf), MSG_DONTWAIT));
		p = (struct pollfd){ .fd = w.fd, .events = POLLIN | POLLOUT };
		show("unbound_poll", poll(&p, 1, 0));
		show("unbound_poll_revents", p.revents);
		show("unbound_fionread", ioctl(w.fd, FIONREAD, &n));
		show("unbound_fionread_value", n);
		show("unbound_port", local_port(w.fd));
	}
	if (pthread_create(&th, NULL, unbound_wait_run, &w) != 0)
		exit(2);
	usleep(50000); /* the waiter asleep before the send binds its socket */
	show(use_poll ? "unbound_poll_send" : "unbound_send", send_to(w.fd, e, "q", 1));
	n = (int)recvfrom(e, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
	show("unbound_echo", sendto(e, "r", (size_t)n, 0, (struct sockaddr *)&from, fl));
	pthread_join(th, NULL);
	show(use_poll ? "unbound_poll_woken" : "unbound_recv_woken", w.rc);
	close(w.fd);
	close(e);
}

/* A thread in a call on a socket that another thread closes. */
struct closing {
	int fd;
	uint16_t to_port;
	long rc;
	int err; /* the thread's errno after the call */
};

static void *
closing_recv_run(void *arg)
{
	struct closing *c = arg;
	char buf[16];

	c->rc = recv(c->fd, buf, sizeof(buf), 0);
	c->err = errno;
	return NULL;
}

static void *
closing_poll_run(void *arg)
{
	struct closing *c = arg;
	struct pollfd p = { .fd = c->fd, .events = POLLIN };

	c->rc = poll(&p, 1, 5000);
	c->err = errno;
	if (c->rc == 1)
		c->rc = p.revents;
	return NULL;
}

static void *
closing_epoll_run(void *arg)
{
	struct closing *c = arg;
	struct epoll_event ev;

	c->rc = epoll_wait(c->fd, &ev, 1, 300);
	c->err = errno;
	return NULL;
}

static void *
closing_send_run(void *arg)
{
	struct closing *c = arg;
	struct sockaddr_storage ss;
	socklen_t l = loop_addr(&ss, c->to_port);

	/* until the close: sends that find no buffer (dpsock) or are dropped (Linux) go on */
	do
		c->rc = sendto(c->fd, "s", 1, MSG_DONTWAIT, (struct sockaddr *)&ss, l);
	while (c->rc == 1 || errno == EAGAIN);
	c->err = errno;
	return NULL;
}

/*
 * @p run (one of the above) on @p c in a thread; once it sleeps in its call, shutdown
 * (SHUT_RD) or close c->fd, shown as @p what; then the thread's result as @p result.
 */
static void
act_during_call(
	struct closing *c, void *(*run)(void *), const char *what, bool shut, const char *result)
{
	pthread_t th;

	if (pthread_create(&th, NULL, run, c) != 0)
		exit(2);
	usleep(50000);
	show(what, shut ? shutdown(c->fd, SHUT_RD) : close(c->fd));
	pthread_join(th, NULL);
	errno = c->err;
	show(result, c->rc);
}

/*
 * close() while another thread is in a call on the socket, as Linux does it: a blocked
 * recv is not woken, and the socket lives until it returns, so a datagram that comes to
 * its port after the close is received; a thread that keeps sending gets EBADF.
 */
static void
step_close_in_use(void)
{
	struct closing c = { .fd = udp_bound() };
	struct sockaddr_storage ss;
	socklen_t l;
	pthread_t th;
	int s = udp_bound();

	l = loop_addr(&ss, local_port(c.fd));
	if (pthread_create(&th, NULL, closing_recv_run, &c) != 0)
		exit(2);
	usleep(50000); /* the receiver asleep before the close */
	show("close_while_receiving", close(c.fd));
	usleep(20000);
	show("send_to_closed_waiting", sendto(s, "late", 4, 0, (struct sockaddr *)&ss, l));
	pthread_join(th, NULL);
	errno = c.err;
	show("recv_after_close", c.rc);

	/* shutdown(SHUT_RD) wakes a blocked recv, which returns 0 (the way to stop a thread),
	 * and a poll, which finds the socket readable */
	c = (struct closing){ .fd = udp_bound() };
	act_during_call(
		&c, closing_recv_run, "shutdown_while_receiving", true, "recv_after_shutdown");
	close(c.fd);
	c = (struct closing){ .fd = udp_bound() };
	act_during_call(&c, closing_poll_run, "shutdown_while_polling", true,
		"poll_after_shutdown_revents");
	close(c.fd);

	/* an epoll closed while a thread waits in it: the wait goes on to its timeout */
	c = (struct closing){ .fd = epoll_create1(0) };
	{
		struct epoll_event ev = { .events = EPOLLIN };
		int a = udp_bound();

		epoll_ctl(c.fd, EPOLL_CTL_ADD, a, &ev);
		act_during_call(&c, closing_epoll_run, "close_epoll_while_waiting", false,
			"epoll_wait_after_close");
		close(a);
	}

	c = (struct closing){ .fd = udp_bound(), .to_port = local_port(s) };
	if (pthread_create(&th, NULL, closing_send_run, &c) != 0)
		exit(2);
	usleep(20000);
	show("close_while_sending", close(c.fd));
	pthread_join(th, NULL);
	errno = c.err;
	show("send_after_close", c.rc);
	close(s);
}

static volatile sig_atomic_t alarms;

static void
on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static void
alarm_in_ms(long ms)
{
	struct itimerval it = { .it_value = { ms / 1000, (ms % 1000) * 1000 } };

	setitimer(ITIMER_REAL, &it, NULL);
}

/* A child that sends "late" to @p to from @p from after @p ms. */
static pid_t
late_sender(int from, int to, long ms)
{
	pid_t pid = fork();

	if (pid == 0) {
		usleep((useconds_t)ms * 1000);
		send_to(from, to, "late", 4);
		_exit(0);
	}
	return pid;
}

/*
 * Signal handlers interrupting waits (signal(7)): a blocking recv fails with EINTR without
 * SA_RESTART and goes on with it, unless SO_RCVTIMEO is set; poll, select and epoll_wait
 * fail with EINTR either way. signal() installs with SA_RESTART (glibc's BSD semantics).
 */
static void
step_eintr(void)
{
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct timeval tv = { 2, 0 };
	struct epoll_event ev = { .events = EPOLLIN };
	struct pollfd pf;
	char buf[16];
	int a = udp_bound(), s = udp_bound(), ep = epoll_create1(0);
	fd_set r;
	pid_t child;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	alarm_in_ms(100);
	show("recv_interrupted", recv(a, buf, sizeof(buf), 0));

	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	show("sigaction_get", sigaction(SIGALRM, NULL, &old));
	flag("sigaction_get_handler", old.sa_handler == on_alarm);
	flag("sigaction_get_restart", (old.sa_flags & SA_RESTART) != 0);
	flag("sigaction_get_siginfo", (old.sa_flags & SA_SIGINFO) != 0);
	alarms = 0;
	child = late_sender(s, a, 400);
	alarm_in_ms(100);
	show("recv_restarted", recv(a, buf, sizeof(buf), 0));
	show("recv_restarted_alarms", alarms);
	waitpid(child, NULL, 0);

	pf = (struct pollfd){ .fd = a, .events = POLLIN };
	alarm_in_ms(100);
	show("poll_restart_handler", poll(&pf, 1, 2000));
	FD_ZERO(&r);
	FD_SET(a, &r);
	alarm_in_ms(100);
	show("select_restart_handler", select(a + 1, &r, NULL, NULL, &tv));
	epoll_ctl(ep, EPOLL_CTL_ADD, a, &ev);
	alarm_in_ms(100);
	show("epoll_restart_handler", epoll_wait(ep, &ev, 1, 2000));
	setsockopt(a, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	alarm_in_ms(100);
	show("recv_timeo_restart_handler", recv(a, buf, sizeof(buf), 0));
	tv = (struct timeval){ 0, 0 };
	setsockopt(a, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	show("signal_old_is_handler", signal(SIGALRM, on_alarm) == on_alarm);
	alarms = 0;
	close(s);
	s = udp_bound(); /* (one sender per child) */
	child = late_sender(s, a, 400);
	alarm_in_ms(100);
	show("recv_signal_restarted", recv(a, buf, sizeof(buf), 0));
	show("recv_signal_restarted_alarms", alarms);
	waitpid(child, NULL, 0);
	show("signal_dfl_old_is_handler", signal(SIGALRM, SIG_DFL) == on_alarm);
	close(ep);
	close(a);
	close(s);
}

int
main(int argc, char **argv)
{
	family = argc > 1 && strcmp(argv[1], "6") == 0 ? AF_INET6 : AF_INET;
	if (argc > 2 && strcmp(argv[2], "eintr") == 0) {
		step_eintr();
		printf("end\n");
		return 0;
	}
	step_bind();
	step_nonblock_timeout();
	step_trunc_peek();
	step_connect();
	step_dup();
	step_options();
	step_pktinfo();
	step_mmsg();
	step_epoll_mixed();
	step_epoll_edge();
	step_epoll_edge_deep();
	step_poll_select();
	step_eintr();
	step_threads(false);
	step_threads(true);
	step_unbound(false);
	step_unbound(true);
	step_close_in_use();
	printf("end\n");
	return 0;
}
