/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoints, the datapath's tables (control side): the UDP port tables that
 * ip4_local / ip6_local consult, ports picked and refused, which worker sends
 * for which endpoint, in-flight zero-copy buffers, counters.
 *
 * Publishing, as the workers see it (endpoint_fp.h has the structures):
 *
 *   attach: endpoint made -> on its worker's send list -> in the port table
 *           -> its port claimed for endpoint4_rx/endpoint6_rx (dp_fwd_local.h:
 *           the workers now send its UDP here); each a release store, no wait
 *   detach: port released -> out of the port table -> off the send list
 *           -> rte_rcu_qsbr_synchronize(dp_graph_qsv): no worker holds it ->
 *           its unsent offsets back -> freed once no zero-copy mbuf points
 *           into its region (ep_dp_release())
 *
 * The control functions run on the endpoint server's thread (one lock keeps
 * them in order should another thread call them too); none is on the fast path.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include <jansson.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "dp_common.h"
#include "dp_config.h"
#include "dp_endpoint.h"
#include "dp_fwd6.h"
#include "dp_fwd_local.h"
#include "dp_graph.h"
#include "dp_port.h"
#include "endpoint_fp.h"
#include "fwd6_fp.h"

/* Ports picked for an endpoint bound to port 0 (the IANA dynamic range, RFC 6335 6). */
#define EP_EPHEMERAL_LO 49152u
#define EP_EPHEMERAL_HI 65535u

struct ep_dp_params ep_params;
struct ep_worker ep_workers[DP_GRAPH_MAX_WORKERS];
struct ep_dp *ep_port4[65536];
struct ep_dp *ep_port6[65536];

static pthread_mutex_t ep_lock = PTHREAD_MUTEX_INITIALIZER;
/* the relay's ports, as dp_relay_init() left the maps: never an endpoint's */
/* Local delivery's number for endpoint4_rx/endpoint6_rx (dp_fwd_local.h), 0 before the first init. */
static uint8_t ep_local_svc;
static uint16_t ep_nb_workers;
static uint32_t ep_max;         /* [endpoint] max */
static uint32_t ep_count;       /* attached */
static uint32_t ep_next_worker; /* round robin of send pipes over workers */
static uint32_t ep_cursor[2];   /* where the next ephemeral port search starts, per family */

/* ---- zero copy ---- */

void
ep_zc_free(void *addr, void *opaque)
{
	struct ep_zc *z = opaque;
	struct ep_dp *e = z->e;

	RTE_SET_USED(addr);
	/* the last mbuf that pointed at the buffer is gone: the application may
	 * have it back (pipe 0's free rings take several producers) */
	dpsock_pipe_release(e->region, &e->tx_geo, &z->off, 1);
	__atomic_store_n(&z->busy, 0, __ATOMIC_RELEASE);
	/* last: once it reads 0, the endpoint may be freed under us */
	__atomic_fetch_sub(&e->inflight, 1, __ATOMIC_RELEASE);
}

/* ---- addresses and ports ---- */

bool
ep_dp_addr_is_local(bool ip6, const uint8_t *addr)
{
	uint16_t i;

	if (!ip6) {
		uint32_t a;

		memcpy(&a, addr, 4);
		a = ntohl(a);
		for (i = 0; i < dp_nb_ports; i++)
			if (a != 0 && dp_ports[i].ip4 == a)
				return true;
		return false;
	}
	if (ip6_is_unspec(addr))
		return false;
	for (i = 0; i < dp_nb_ports && i < DP_CONFIG_MAX_PORTS; i++)
		if (ip6_is_port_addr(i, addr))
			return true;
	return false;
}

static bool
addr_is_wildcard(bool ip6, const uint8_t *addr)
{
	static const uint8_t zero[16];

	return memcmp(addr, zero, ip6 ? 16 : 4) == 0;
}

/* Is @p port another service's (the relay's)? */
static bool
port_is_other_svc(bool ip6, uint16_t port)
{
	const uint8_t owner = dp_fwd_local_udp_owner(ip6, port);

	return owner != 0 && owner != ep_local_svc;
}

/* A free port in the ephemeral range for family @p ip6, or 0. */
static uint16_t
port_pick(bool ip6)
{
	struct ep_dp *const *table = ip6 ? ep_port6 : ep_port4;
	const uint32_t span = EP_EPHEMERAL_HI - EP_EPHEMERAL_LO + 1;
	uint32_t i;

	for (i = 0; i < span; i++) {
		uint16_t p = (uint16_t)(EP_EPHEMERAL_LO + (ep_cursor[ip6] + i) % span);

		if (table[p] == NULL && !port_is_other_svc(ip6, p)) {
			ep_cursor[ip6] = (ep_cursor[ip6] + i + 1) % span;
			return p;
		}
	}
	return 0;
}

/* ---- the workers' send lists ---- */

/*
 * A list has room for [endpoint] max endpoints from the start, so that it is
 * changed in place: an add writes the new slot, then the count; a delete moves
 * the last endpoint into the slot, then lowers the count. A worker reading
 * meanwhile may see an endpoint twice or one being deleted (still whole until
 * the grace period that follows); never a freed one.
 */
static void
tx_list_add(uint16_t w, struct ep_dp *e)
{
	struct ep_tx_list *l = ep_workers[w].tx;

	__atomic_store_n(&l->e[l->n], e, __ATOMIC_RELAXED);
	__atomic_store_n(&l->n, l->n + 1, __ATOMIC_RELEASE);
}

static void
tx_list_del(uint16_t w, struct ep_dp *e)
{
	struct ep_tx_list *l = ep_workers[w].tx;
	uint32_t i;

	for (i = 0; i < l->n; i++) {
		if (l->e[i] != e)
			continue;
		__atomic_store_n(&l->e[i], l->e[l->n - 1], __ATOMIC_RELEASE);
		__atomic_store_n(&l->n, l->n - 1, __ATOMIC_RELEASE);
		return;
	}
}

/* Return once no worker can hold a pointer it read before this call. */
static void
ep_rcu_wait(void)
{
	if (dp_graph_qsv != NULL)
		rte_rcu_qsbr_synchronize(dp_graph_qsv, RTE_QSBR_THRID_INVALID);
}

/* ---- attach, detach ---- */

/* One ep_zc per send-pipe buffer, in slot order (dpsock_pipe_buf_check()'s slot). */
static struct ep_zc *
zc_make(struct ep_dp *e)
{
	const struct dpsock_pipe *p = &e->tx_geo;
	struct ep_zc *zc;
	uint32_t s = 0, i;
	unsigned int c;

	zc = rte_zmalloc("ep_zc", sizeof(*zc) * RTE_MAX(p->nb_bufs, 1u), RTE_CACHE_LINE_SIZE);
	if (zc == NULL)
		return NULL;
	for (c = 0; c < DPSOCK_NB_CLASSES; c++) {
		for (i = 0; i < p->cls[c].count; i++, s++) {
			zc[s].e = e;
			zc[s].off = p->cls[c].off + (uint64_t)i * p->cls[c].stride;
			zc[s].shinfo.free_cb = ep_zc_free;
			zc[s].shinfo.fcb_opaque = &zc[s];
		}
	}
	return zc;
}

int
ep_dp_attach(struct ep_dp_bind *b, struct ep_dp **out)
{
	struct ep_dp **table = b->ip6 ? ep_port6 : ep_port4;
	const bool wildcard = addr_is_wildcard(b->ip6, b->addr);
	const struct dpsock_pipe *txp, *rxp;
	struct ep_dp *e = NULL;
	uint16_t port = b->port;
	int rc;

	if (b->region == NULL || dpsock_region_check(b->region, b->size) < 0)
		return -EINVAL;
	pthread_mutex_lock(&ep_lock);
	if (!ep_params.enabled || ep_nb_workers == 0 || ep_count >= ep_max) {
		rc = -ENOSPC;
		goto out;
	}
	if (!wildcard && !ep_dp_addr_is_local(b->ip6, b->addr)) {
		rc = -EADDRNOTAVAIL;
		goto out;
	}
	if (port == 0) {
		port = port_pick(b->ip6);
		if (port == 0) {
			rc = -ENOSPC;
			goto out;
		}
	} else if (port_is_other_svc(b->ip6, port) || table[port] != NULL) {
		/* one endpoint per port and family, whatever the address (as a
		 * socket without SO_REUSEADDR) */
		rc = -EADDRINUSE;
		goto out;
	}
	e = rte_zmalloc("ep_dp", sizeof(*e), RTE_CACHE_LINE_SIZE);
	if (e == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	/* the geometry, copied before the application has the region */
	txp = dpsock_region_pipe(b->region, DPSOCK_EP_PIPE_TX);
	rxp = dpsock_region_pipe(b->region, DPSOCK_EP_PIPE_RX);
	memcpy(&e->tx_geo, txp, sizeof(e->tx_geo));
	memcpy(&e->rx_geo, rxp, sizeof(e->rx_geo));
	e->region = b->region;
	e->rx_pipe = dpsock_region_pipe(b->region, DPSOCK_EP_PIPE_RX);
	e->efd = b->efd;
	e->ip6 = b->ip6;
	e->wildcard = wildcard;
	memcpy(e->addr, b->addr, b->ip6 ? 16 : 4);
	e->port = port;
	e->port_be = rte_cpu_to_be_16(port);
	e->zc = zc_make(e);
	if (e->zc == NULL) {
		rte_free(e);
		e = NULL;
		rc = -ENOMEM;
		goto out;
	}
	e->worker = (uint16_t)(ep_next_worker++ % ep_nb_workers);
	tx_list_add(e->worker, e);
	__atomic_store_n(&table[port], e, __ATOMIC_RELEASE);
	/* the port was checked free of other services under ep_lock; only the
	 * control lcore's relay set-up, before the workers run, claims others */
	(void)dp_fwd_local_udp_claim(b->ip6, port, port, ep_local_svc);
	ep_count++;
	b->port = port;
	*out = e;
	rc = 0;
out:
	pthread_mutex_unlock(&ep_lock);
	return rc;
}

bool
ep_dp_release(struct ep_dp *e)
{
	if (__atomic_load_n(&e->inflight, __ATOMIC_ACQUIRE) != 0)
		return false;
	rte_free(e->zc);
	rte_free(e);
	return true;
}

bool
ep_dp_detach(struct ep_dp *e)
{
	struct ep_dp **table = e->ip6 ? ep_port6 : ep_port4;

	pthread_mutex_lock(&ep_lock);
	if (!e->detached) {
		dp_fwd_local_udp_release(e->ip6, e->port, e->port, ep_local_svc);
		if (table[e->port] == e)
			__atomic_store_n(&table[e->port], NULL, __ATOMIC_RELEASE);
		tx_list_del(e->worker, e);
		ep_count--;
		e->detached = true;
		ep_rcu_wait();
		/* taken from the send pipe but not sent: the application's again */
		if (e->npend != 0)
			dpsock_pipe_release(e->region, &e->tx_geo, e->pend, e->npend);
		e->npend = 0;
	}
	pthread_mutex_unlock(&ep_lock);
	return ep_dp_release(e);
}

uint16_t
ep_dp_port(const struct ep_dp *e)
{
	return e->port;
}

/* ---- set-up, teardown ---- */

uint32_t
dp_endpoint_mbuf_demand(const struct dp_config *cfg, unsigned int nb_workers)
{
	if (!dp_endpoint_config(cfg)->enabled)
		return 0;
	/* a full reassembly table, and a burst of sends each cut into header + data mbufs */
	return nb_workers * (EP_REASM_HELD_MAX + 2 * EP_TX_OUT_MAX);
}

int
ep_dp_init(const struct dp_config *cfg, char *err, size_t errlen)
{
	const struct dp_endpoint_config *ec = dp_endpoint_config(cfg);
	unsigned int lcores[DP_GRAPH_MAX_WORKERS];
	const char *zc_off;
	unsigned int nw, i;

	ep_dp_fini();
	if (!ec->enabled)
		return 0;
	if (ep_local_svc == 0) {
		int rc = dp_fwd_local_service_add("endpoint4_rx", "endpoint6_rx");

		if (rc < 0) {
			snprintf(err, errlen, "endpoint: cannot register with local delivery: %s",
				strerror(-rc));
			return rc;
		}
		ep_local_svc = (uint8_t)rc;
	}
	nw = dp_config_worker_lcores(cfg, lcores, DP_ARRAY_SIZE(lcores));
	ep_max = ec->max;
	ep_params.tsc_hz = rte_get_tsc_hz();
	for (i = 0; i < nw; i++) {
		struct ep_worker *ws = &ep_workers[i];
		const int socket = (int)rte_lcore_to_socket_id(lcores[i]);

		memset(&ws->stats, 0, sizeof(ws->stats));
		ws->rr = 0;
		ws->tx = rte_zmalloc_socket("ep_tx_list",
			sizeof(*ws->tx) + (size_t)ep_max * sizeof(ws->tx->e[0]),
			RTE_CACHE_LINE_SIZE, socket);
		ws->reasm = rte_zmalloc_socket(
			"ep_reasm", sizeof(*ws->reasm), RTE_CACHE_LINE_SIZE, socket);
		if (ws->tx == NULL || ws->reasm == NULL) {
			snprintf(err, errlen,
				"endpoint: out of memory for the tables of worker %u ([endpoint] "
				"max "
				"= %u)",
				i, ep_max);
			ep_nb_workers = (uint16_t)(i + 1);
			ep_dp_fini();
			return -ENOMEM;
		}
		ws->reasm->timeout_tsc = ep_params.tsc_hz / 1000 * EP_REASM_TIMEOUT_MS;
	}
	ep_nb_workers = (uint16_t)nw;
	/* fragments are cut to each port's MTU (dpfwd's: a device without an MTU
	 * setting keeps ethdev's default in rte_eth_dev_get_mtu()) */
	for (i = 0; i < DP_CONFIG_MAX_PORTS; i++)
		ep_params.mtu[i] =
			i < dp_nb_ports && dp_ports[i].mtu != 0 ? dp_ports[i].mtu : RTE_ETHER_MTU;
	/* net_af_xdp sends a chain's first segment only (its profile's tx_first_seg_only): no
	 * zero copy out of such a port */
	for (i = 0; i < DP_CONFIG_MAX_PORTS; i++) {
		const struct dp_port *p = NULL;

		if (i < dp_nb_ports)
			p = dp_port_is_vlan((uint16_t)i) ? &dp_ports[dp_ports[i].parent]
							 : &dp_ports[i];
		ep_params.chains[i] =
			p != NULL && !(p->has_profile && p->profile.tx_first_seg_only);
	}
	/*
	 * Zero copy hands the NIC a pointer into an application's region, which
	 * no IOMMU or NIC memory registration knows: only virtual devices (which
	 * copy or memcpy by virtual address) may take it; with a PCI port every
	 * send is copied.
	 */
	ep_params.zc_ok = rte_eal_iova_mode() == RTE_IOVA_VA;
	zc_off = ep_params.zc_ok ? "" : " (off: IOVA mode PA; --iova-mode va allows it)";
	for (i = 0; i < cfg->nb_ports; i++)
		if (cfg->ports[i].defined && dp_port_dev_is_pci(cfg->ports[i].dev)) {
			ep_params.zc_ok = false;
			zc_off = " (off: a PCI port)";
		}
	ep_params.zc_min = ec->zero_copy_min;
	ep_params.udp4_cksum = ec->udp4_cksum;
	ep_params.enabled = true;
	if (dp_graph_source_add("endpoint_tx") < 0) {
		snprintf(err, errlen, "endpoint: cannot add endpoint_tx to the graphs");
		ep_dp_fini();
		return -ENOSPC;
	}
	/* endpoint4_rx and endpoint6_rx reassemble */
	dp_fwd_local_frag_set(false, ep_local_svc);
	dp_fwd_local_frag_set(true, ep_local_svc);
	DP_LOG(INFO, endpoint,
		"endpoints: up to %u, %u worker(s) send for them, zero copy from %u bytes%s, "
		"IPv4 UDP checksum %s",
		ep_max, nw, ep_params.zc_min, zc_off, ep_params.udp4_cksum ? "on" : "off");
	return 0;
}

void
ep_dp_fini(void)
{
	uint32_t p;
	uint16_t i;

	pthread_mutex_lock(&ep_lock);
	dp_graph_source_del("endpoint_tx");
	if (ep_local_svc != 0) {
		dp_fwd_local_frag_set(false, 0);
		dp_fwd_local_frag_set(true, 0);
	}
	/* endpoints the server did not take back: their ports go, the structures
	 * stay (a zero-copy mbuf may still point at them) */
	for (p = 0; p < 65536; p++) {
		if (ep_port4[p] != NULL)
			dp_fwd_local_udp_release(false, (uint16_t)p, (uint16_t)p, ep_local_svc);
		if (ep_port6[p] != NULL)
			dp_fwd_local_udp_release(true, (uint16_t)p, (uint16_t)p, ep_local_svc);
	}
	memset(ep_port4, 0, sizeof(ep_port4));
	memset(ep_port6, 0, sizeof(ep_port6));
	for (i = 0; i < DP_GRAPH_MAX_WORKERS; i++) {
		struct ep_worker *ws = &ep_workers[i];

		/* fragments still waiting: freed as what dpfwd held when it stopped */
		if (ws->reasm != NULL)
			dp_ctl_drops[DP_DROP_SHUTDOWN] +=
				ep_reasm_expire(ws->reasm, UINT64_MAX, false);
		rte_free(ws->reasm);
		rte_free(ws->tx);
		ws->reasm = NULL;
		ws->tx = NULL;
	}
	ep_nb_workers = 0;
	ep_count = 0;
	ep_max = 0;
	memset(&ep_params, 0, sizeof(ep_params));
	pthread_mutex_unlock(&ep_lock);
}

/* ---- counters ---- */

void
ep_dp_stats_sum(struct ep_dp_stats *st)
{
	uint16_t i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < ep_nb_workers; i++) {
		const struct ep_worker *ws = &ep_workers[i];
		const struct ep_dp_stats *s = &ws->stats;

		st->rx_msgs += s->rx_msgs;
		st->rx_bytes += s->rx_bytes;
		st->tx_msgs += s->tx_msgs;
		st->tx_bytes += s->tx_bytes;
		st->tx_zero_copy += s->tx_zero_copy;
		st->tx_frags += s->tx_frags;
		st->wakeups += s->wakeups;
		st->reasm_frags += s->reasm_frags;
		st->reasm_done += s->reasm_done;
		if (ws->reasm != NULL)
			st->reasm_held += __atomic_load_n(&ws->reasm->held, __ATOMIC_RELAXED);
	}
}

void
ep_dp_info_get(const struct ep_dp *e, struct ep_dp_info *out)
{
	memset(out, 0, sizeof(*out));
	out->ip6 = e->ip6;
	out->wildcard = e->wildcard;
	memcpy(out->addr, e->addr, sizeof(out->addr));
	out->port = e->port;
	out->worker = e->worker;
	out->tx_msgs = __atomic_load_n(&e->tx_msgs, __ATOMIC_RELAXED);
	out->tx_bytes = __atomic_load_n(&e->tx_bytes, __ATOMIC_RELAXED);
	out->tx_bad = __atomic_load_n(&e->tx_bad, __ATOMIC_RELAXED);
	out->rx_msgs = __atomic_load_n(&e->rx_msgs, __ATOMIC_RELAXED);
	out->rx_bytes = __atomic_load_n(&e->rx_bytes, __ATOMIC_RELAXED);
	out->rx_dropped = __atomic_load_n(&e->rx_dropped, __ATOMIC_RELAXED);
	out->inflight = __atomic_load_n(&e->inflight, __ATOMIC_RELAXED);
}

struct json_t *
ep_dp_stats_json(void)
{
	static const enum dp_drop_reason reasons[] = { DP_DROP_EP_BAD_UDP, DP_DROP_EP_BAD_CKSUM,
		DP_DROP_EP_NO_ENDPOINT, DP_DROP_EP_RX_FULL, DP_DROP_EP_RX_TOO_BIG,
		DP_DROP_EP_BAD_BUF, DP_DROP_EP_BAD_DEST, DP_DROP_EP_NO_ROUTE, DP_DROP_EP_NOMEM,
		DP_DROP_EP_TOO_BIG, DP_DROP_EP_FRAG_TIMEOUT, DP_DROP_EP_FRAG_FULL,
		DP_DROP_EP_FRAG_BAD };
	struct ep_dp_stats st;
	json_t *o, *drops;
	size_t i;

	ep_dp_stats_sum(&st);
	o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:i, s:b}", "rx_msgs",
		(json_int_t)st.rx_msgs, "rx_bytes", (json_int_t)st.rx_bytes, "tx_msgs",
		(json_int_t)st.tx_msgs, "tx_bytes", (json_int_t)st.tx_bytes, "tx_zero_copy",
		(json_int_t)st.tx_zero_copy, "tx_frags", (json_int_t)st.tx_frags, "wakeups",
		(json_int_t)st.wakeups, "reasm_frags", (json_int_t)st.reasm_frags, "reasm_done",
		(json_int_t)st.reasm_done, "reasm_held", (json_int_t)st.reasm_held,
		"endpoints_attached", (int)__atomic_load_n(&ep_count, __ATOMIC_RELAXED),
		"zero_copy", ep_params.zc_ok);
	drops = json_object();
	if (o == NULL || drops == NULL) {
		json_decref(o);
		json_decref(drops);
		return NULL;
	}
	for (i = 0; i < DP_ARRAY_SIZE(reasons); i++)
		json_object_set_new(drops, dp_drop_name(reasons[i]),
			json_integer((json_int_t)dp_graph_drops(reasons[i])));
	json_object_set_new(o, "drops", drops);
	return o;
}
