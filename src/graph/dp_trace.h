/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Per-packet trace through the graph (docs/capture.md#trace): a marked mbuf
 * (an mbuf dynamic flag; its id in dp_mbuf_meta.trace_id) leaves one record
 * in every node it visits: the node, the lcore, a TSC stamp and a line of the
 * node's own (a formatter the node's module registers).
 *
 *   mark:    the capture module's tap, at RX (dp_trace_mark())
 *   nodes:   the worker walks its graph with graph_walk_traced() while
 *            dp_trace_armed is set: one test per walk when it is not
 *   control: dp_ctl_poll() records what a punted marked packet met there
 *   close:   TX (the tap, dp_trace_close()) or the drop node
 *
 * Records go to one buffer per worker and one for the control lcore, each
 * written only by its owner, its count published with a release store.
 */
#ifndef DP_TRACE_H
#define DP_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_graph.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#define DP_TRACE_RECS      4096 /**< records per buffer (a worker's or the control lcore's) */
#define DP_TRACE_TEXT      80
#define DP_TRACE_NODE_LEN  32
#define DP_TRACE_PORT_NONE UINT16_MAX
#define DP_TRACE_ID_MAX    UINT16_MAX /**< ids handed out between two clears, at most */

/** One node visit of one marked packet. */
struct dp_trace_rec {
	uint16_t id; /**< the packet's trace id */
	uint16_t pad;
	uint16_t lcore; /**< where it was written */
	uint16_t port;  /**< the RX port (config index) in the mark's record, else PORT_NONE */
	uint64_t tsc;
	char node[DP_TRACE_NODE_LEN];
	char text[DP_TRACE_TEXT];
};

/** One writer's records; @p n published with a release store. */
struct dp_trace_buf {
	uint32_t n;
	uint32_t full; /**< records not written: the buffer was full */
	struct dp_trace_rec rec[DP_TRACE_RECS];
};

/** Non-zero while marked packets may be in flight: workers walk with the trace hook. */
extern uint32_t dp_trace_armed;
/** The dynamic flag of marked mbufs (0 before dp_trace_init()). */
extern uint64_t dp_trace_flag;
/** Marked packets closed (sent or dropped), by every lcore. */
extern uint32_t dp_trace_closed;
/** Buffers: one per worker (by index), then the control lcore's; NULL until armed once. */
extern struct dp_trace_buf *dp_trace_bufs[];

/**
 * A node's line for a marked packet @p m about to enter it: @p ctx is the
 * node's state (dp_node_ctx.arg; a fast match's ctx). Writes at most @p len
 * bytes, NUL-terminated; reads the tables as the node would, changes nothing.
 */
typedef void (*dp_trace_fmt_t)(void *ctx, const struct rte_mbuf *m, char *buf, size_t len);

/** Register the dynamic flag; control lcore. @return 0 or -errno. */
int dp_trace_init(void);

/**
 * Give node @p name (a registered rte_node, or a clone's base name) formatter
 * @p fmt; nodes without one get dp_trace_fmt_pkt(). @return 0, -ENOENT, -ENOSPC.
 */
int dp_trace_fmt_register(const char *name, dp_trace_fmt_t fmt);

/**
 * Node @p name takes packets out of the graph (an endpoint's delivery): a
 * marked packet's trace ends there unless the call counted a drop.
 * @return 0 or -ENOSPC.
 */
int dp_trace_end_register(const char *name);

/** The formatter registered for node @p name, NULL when none. */
dp_trace_fmt_t dp_trace_fmt_find(const char *name);

/** The packet's addresses, ports, protocol and TTL: the default line. */
void dp_trace_fmt_pkt(const struct rte_mbuf *m, char *buf, size_t len);

static inline bool
dp_trace_marked(const struct rte_mbuf *m)
{
	return (m->ol_flags & dp_trace_flag) != 0 && dp_trace_flag != 0;
}

/** Mark @p m with trace @p id and write its first record (@p node, @p port). */
void dp_trace_mark(
	struct rte_mbuf *m, uint16_t id, uint16_t port, const char *node, const char *text);

/** Write a record for marked @p m: node @p node, line @p text (on its owner lcore). */
void dp_trace_add(struct rte_mbuf *m, const char *node, const char *text);

/** As dp_trace_add(), for a packet of id @p id seen at @p tsc (it may be gone since). */
void dp_trace_add_id(uint16_t id, uint64_t tsc, const char *node, const char *text);

/** A record, then the mark off: @p m leaves dpfwd (sent, or freed outside the drop node). */
void dp_trace_close(struct rte_mbuf *m, const char *node, const char *text);

/**
 * Call @p node of worker @p w's graph with the trace hook: a record for every
 * marked packet it is handed, the drop reason it counts for them.
 * @return what node->process returned.
 */
uint16_t dp_trace_node_call(struct rte_graph *graph, struct rte_node *node);

/** Zero every buffer (the workers must be past any record: armed off, RCU synchronized). */
void dp_trace_bufs_reset(void);

/** Allocate the buffers of @p nb_workers workers and the control lcore. @return 0 or -ENOMEM. */
int dp_trace_bufs_alloc(uint16_t nb_workers);

#endif /* DP_TRACE_H */
