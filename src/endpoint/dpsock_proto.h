/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The control protocol between libdpsock and dpfwd: one Unix SOCK_SEQPACKET
 * connection per endpoint, fixed-size messages (struct dpsock_ctl), file
 * descriptors passed with SCM_RIGHTS.
 *
 *   application (libdpsock)                      dpfwd (endpoint server thread)
 *   connect(path)            ---------------->   accept; SO_PEERCRED logged
 *   HELLO {family}           ---------------->
 *                            <----------------   HELLO {rc}
 *   BIND {addr:port} + eventfd ------------->    endpoint made, port taken
 *                            <----------------   BIND {rc, bound addr:port, size} + region memfd
 *   RESOLVE {dest addr:port} --------------->    is dest an endpoint on this host?
 *                            <----------------   RESOLVE {rc = DPSOCK_ROUTE_LOCAL, chan, size}
 *                                                  + channel memfd + peer's eventfd
 *                                          or    RESOLVE {rc = DPSOCK_ROUTE_REMOTE}
 *                 (to the peer's connection) --> CHANNEL {chan, peer addr:port, size}
 *                                                  + channel memfd + asker's eventfd; the
 *                                                  peer region's ctl_seq + 1
 *   CHANNELS {chan = from}   ---------------->   (a process forked from the application's)
 *                            <----------------   CHANNEL {side, ...} for some of its channels
 *                                                  with an id above from, then CHANNELS
 *                                                  {rc = how many, chan = the last id,
 *                                                  more = 1: ask again from chan}
 *   close / crash            ---------------->   endpoint reclaimed; each channel peer
 *                                                  gets CHANNEL_GONE {chan}; ctl_seq + 1
 *
 * Unasked messages (CHANNEL, CHANNEL_GONE) may arrive while the application
 * waits for a reply: libdpsock handles them as they come and keeps reading.
 * An error reply has rc < 0 (a negative errno) and no descriptors. A reply comes
 * after every message dpfwd sent before it: when the control socket is full, dpfwd
 * keeps the reply until the application has read some, and reads nothing more of that
 * connection meanwhile.
 *
 * Channel sides: the asker (RESOLVE) is side 0 and sends on pipe 0; the peer
 * (CHANNEL) is side 1 and sends on pipe 1. CHANNEL and the RESOLVE reply say which.
 */
#ifndef DPSOCK_PROTO_H
#define DPSOCK_PROTO_H

#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <netinet/in.h>

#define DPSOCK_CTL_MAGIC     0x6b736470u /* "pdsk" */
#define DPSOCK_PROTO_VERSION 1

enum dpsock_op {
	DPSOCK_OP_HELLO = 1,
	DPSOCK_OP_BIND,
	DPSOCK_OP_RESOLVE,
	DPSOCK_OP_CHANNEL,
	DPSOCK_OP_CHANNEL_GONE,
	DPSOCK_OP_CHANNELS,
};

/** RESOLVE replies (rc >= 0). */
#define DPSOCK_ROUTE_REMOTE 0 /**< send through the endpoint's own pipe 0 (a dpfwd worker) */
#define DPSOCK_ROUTE_LOCAL                                                                         \
	1 /**< a channel to an endpoint on this host: memfd and eventfd attached */

/** Every message, both ways. */
struct dpsock_ctl {
	uint32_t magic;
	uint16_t version;
	uint16_t op; /**< enum dpsock_op */
	int32_t rc;  /**< replies: 0 / DPSOCK_ROUTE_* or -errno */
	/** channel id (RESOLVE reply, CHANNEL, CHANNEL_GONE; CHANNELS: the last one announced) */
	uint32_t chan;
	/** bytes of the region whose memfd is attached */
	uint64_t size;
	uint32_t family; /**< HELLO: the endpoint's address family */
	/** RESOLVE reply: the asker's side of the channel, 1 when the peer asked first (a
	 * process forked after that has the pair's channel to map all the same) */
	uint32_t side;
	/** BIND: address asked / bound; RESOLVE: the destination; CHANNEL: the peer */
	union {
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	} addr;
	/** CHANNELS reply: 1 when more are left (ask again from chan), else 0 */
	uint32_t more;
};

/** A message of @p op with the header filled in and everything else zero. */
static inline void
dpsock_ctl_init(struct dpsock_ctl *m, enum dpsock_op op)
{
	memset(m, 0, sizeof(*m));
	m->magic = DPSOCK_CTL_MAGIC;
	m->version = DPSOCK_PROTO_VERSION;
	m->op = (uint16_t)op;
}

/** Descriptors one message carries at most. */
#define DPSOCK_CTL_MAX_FDS 2

/**
 * Send @p m with @p nfds descriptors (SCM_RIGHTS) on @p sock; sendmsg() @p flags
 * (MSG_NOSIGNAL is added). Both sides use it (dpsock_proto.c).
 * @return sendmsg()'s result (-1 with errno).
 */
ssize_t dpsock_ctl_sendmsg(
	int sock, const struct dpsock_ctl *m, const int *fds, unsigned int nfds, int flags);

/** Most descriptors dpsock_sendmsg_fds() sends: more than a message may carry,
 * so that a test can see the other side refuse them. */
#define DPSOCK_SEND_MAX_FDS 4

/**
 * The same for any @p len bytes at @p buf (the fuzzer's malformed messages):
 * at most DPSOCK_SEND_MAX_FDS descriptors (EINVAL), retried on EINTR.
 */
ssize_t dpsock_sendmsg_fds(
	int sock, const void *buf, size_t len, const int *fds, unsigned int nfds, int flags);

/**
 * Receive one message into @p m and the descriptors it carries into @p fds
 * (up to DPSOCK_CTL_MAX_FDS; more are closed), their count in @p nfds, the
 * message's flags (MSG_TRUNC, MSG_CTRUNC) in @p msg_flags; recvmsg() @p flags
 * (MSG_CMSG_CLOEXEC is added). When @p pid is not NULL, the sender's process id
 * (SCM_CREDENTIALS, on a socket with SO_PASSCRED) goes there, 0 when none came.
 * The caller checks size, magic and version.
 * @return recvmsg()'s result (-1 with errno; 0 at end of stream).
 */
ssize_t dpsock_ctl_recvmsg(int sock, struct dpsock_ctl *m, int fds[DPSOCK_CTL_MAX_FDS],
	unsigned int *nfds, int flags, int *msg_flags, pid_t *pid);

#endif /* DPSOCK_PROTO_H */
