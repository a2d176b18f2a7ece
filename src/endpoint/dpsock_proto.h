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
 *   close / crash            ---------------->   endpoint reclaimed; each channel peer
 *                                                  gets CHANNEL_GONE {chan}; ctl_seq + 1
 *
 * Unasked messages (CHANNEL, CHANNEL_GONE) may arrive while the application
 * waits for a reply: libdpsock handles them as they come and keeps reading.
 * An error reply has rc < 0 (a negative errno) and no descriptors.
 *
 * Channel sides: the asker (RESOLVE) is side 0 and sends on pipe 0; the peer
 * (CHANNEL) is side 1 and sends on pipe 1.
 */
#ifndef DPSOCK_PROTO_H
#define DPSOCK_PROTO_H

#include <stdint.h>
#include <netinet/in.h>

#define DPSOCK_CTL_MAGIC 0x6b736470u /* "pdsk" */
#define DPSOCK_PROTO_VERSION 1

enum dpsock_op {
	DPSOCK_OP_HELLO = 1,
	DPSOCK_OP_BIND,
	DPSOCK_OP_RESOLVE,
	DPSOCK_OP_CHANNEL,
	DPSOCK_OP_CHANNEL_GONE,
};

/** RESOLVE replies (rc >= 0). */
#define DPSOCK_ROUTE_REMOTE 0 /**< send through the endpoint's own pipe 0 (a dpfwd worker) */
#define DPSOCK_ROUTE_LOCAL 1  /**< a channel to an endpoint on this host: memfd and eventfd attached */

/** Every message, both ways. */
struct dpsock_ctl {
	uint32_t magic;
	uint16_t version;
	uint16_t op;  /**< enum dpsock_op */
	int32_t rc;   /**< replies: 0 / DPSOCK_ROUTE_* or -errno */
	uint32_t chan; /**< channel id (RESOLVE reply, CHANNEL, CHANNEL_GONE) */
	uint64_t size; /**< bytes of the region whose memfd is attached */
	uint32_t family; /**< HELLO: the endpoint's address family */
	uint32_t pad;
	/** BIND: address asked / bound; RESOLVE: the destination; CHANNEL: the peer */
	union {
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	} addr;
	uint32_t pad2;
};

#endif /* DPSOCK_PROTO_H */
