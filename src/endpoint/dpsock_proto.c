/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control messages with descriptors (dpsock_proto.h), the same framing for
 * both ends: compiled into libdpfwd (the server) and libdpsock (the library).
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dpsock_proto.h"

ssize_t
dpsock_ctl_sendmsg(
	int sock, const struct dpsock_ctl *m, const int *fds, unsigned int nfds, int flags)
{
	if (nfds > DPSOCK_CTL_MAX_FDS) {
		errno = EINVAL;
		return -1;
	}
	return dpsock_sendmsg_fds(sock, m, sizeof(*m), fds, nfds, flags);
}

ssize_t
dpsock_sendmsg_fds(
	int sock, const void *buf, size_t len, const int *fds, unsigned int nfds, int flags)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * DPSOCK_SEND_MAX_FDS)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (nfds > DPSOCK_SEND_MAX_FDS) {
		errno = EINVAL;
		return -1;
	}
	if (nfds > 0) {
		struct cmsghdr *cm;

		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
	}
	do
		n = sendmsg(sock, &mh, flags | MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n;
}

ssize_t
dpsock_ctl_recvmsg(int sock, struct dpsock_ctl *m, int fds[DPSOCK_CTL_MAX_FDS], unsigned int *nfds,
	int flags, int *msg_flags, pid_t *pid)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * DPSOCK_CTL_MAX_FDS) +
			 CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;
	ssize_t n;

	*nfds = 0;
	*msg_flags = 0;
	if (pid != NULL)
		*pid = 0;
	do
		n = recvmsg(sock, &mh, flags | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return n;
	/* every descriptor that came is ours to keep or close, whatever the message */
	for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t k, cnt;

		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_CREDENTIALS &&
			cm->cmsg_len >= CMSG_LEN(sizeof(struct ucred)) && pid != NULL) {
			struct ucred cred;

			memcpy(&cred, CMSG_DATA(cm), sizeof(cred));
			*pid = cred.pid;
		}
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		cnt = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (k = 0; k < cnt; k++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + k * sizeof(int), sizeof(int));
			if (*nfds < DPSOCK_CTL_MAX_FDS)
				fds[(*nfds)++] = fd;
			else
				close(fd);
		}
	}
	*msg_flags = mh.msg_flags;
	return n;
}
