/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * For the tests that talk to dpfwd's endpoint server over its control socket
 * with raw messages (unit/endpoint_dp, func/dpsock).
 */
#ifndef DP_TEST_DPSOCK_CTL_H
#define DP_TEST_DPSOCK_CTL_H

#include <poll.h>
#include <sys/socket.h>

#include "dpsock_proto.h"

/**
 * The rc of the next struct dpsock_ctl on @p fd; 1000 at the end of the
 * connection, 2000 when none came in 3 s, 3000 for a message of another size.
 */
static inline int
dp_test_ctl_reply(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct dpsock_ctl m;
	ssize_t n;

	if (poll(&p, 1, 3000) != 1)
		return 2000;
	n = recv(fd, &m, sizeof(m), 0);
	if (n <= 0)
		return 1000;
	return n == (ssize_t)sizeof(m) ? m.rc : 3000;
}

#endif /* DP_TEST_DPSOCK_CTL_H */
