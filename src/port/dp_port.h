/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Ports: ethdev bring-up from a driver profile (drivers-cfg/<driver>.ini):
 * queues, descriptors, RSS and offloads, each wanted offload masked by what
 * the device can do and logged.
 */
#ifndef DP_PORT_H
#define DP_PORT_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_ether.h>
#include <rte_ethdev.h>
#include <rte_rcu_qsbr.h>

#include "dp_config.h"
#include "dp_mem.h"

/** Log type "dpfwd.port": DP_LOG(level, port, ...) (dp_common.h). */
extern int dp_logtype_port;

/** Ports: the physical ones (DPDK ports), then the 802.1Q sub-interfaces ([portN.VID]) */
#define DP_PORT_MAX DP_CONFIG_MAX_PORTS

/**
 * Port ids (mbuf->port) past DPDK's: a sub-interface's is DP_PORT_VLAN_ID_BASE plus its
 * port index. eth_classify gives it to a frame it took the tag off, and the arrays by port
 * id (dp_port_index, dp_port_up, ...) go that far.
 */
#define DP_PORT_VLAN_ID_BASE RTE_MAX_ETHPORTS
#define DP_PORT_MAX_IDS      (DP_PORT_VLAN_ID_BASE + DP_PORT_MAX)

/** A driver profile: what dpfwd asks of a driver. */
struct dp_port_profile {
	char name[64];     /**< file name without .ini */
	char drivers[256]; /**< driver names it applies to, space separated */
	uint16_t rx_desc;
	uint16_t tx_desc;
	uint64_t rx_offloads; /**< wanted, before masking */
	uint64_t tx_offloads;
	uint64_t rss_hf;
	char devargs[256]; /**< added to a PCI device's -a argument */
	char notes[512];
	/** Largest IPv4 datagram that arrives whole (0: any); larger ones arrive cut short */
	uint16_t ip4_whole_max;
	/** MTU set on the port at start (0: the driver's own is kept) */
	uint16_t mtu;
	/** Bytes the driver keeps free between the mbuf headroom and a received frame, in the
	 * packet buffer (net_af_xdp: the kernel's XDP_PACKET_HEADROOM, 256) */
	uint16_t rx_headroom;
	/** Largest packet buffer the driver takes, as a mempool object: header, mbuf and
	 * data room (0: any; net_af_xdp: a page, the largest umem chunk) */
	uint16_t buf_max;
	/** The driver keeps sent mbufs until its TX ring comes round again and cannot
	 * hand them back before close (virtio: no tx_done_cleanup) */
	bool tx_keeps_sent;
	/** The driver sends only the first segment of a chained mbuf, whatever its offloads
	 * say (net_af_xdp): endpoints copy each packet into one buffer for such a port */
	bool tx_first_seg_only;
};

/** Where a port's MTU comes from. */
enum dp_port_mtu_from {
	DP_PORT_MTU_DEFAULT, /**< neither: 1500, set only where the device has another */
	DP_PORT_MTU_PROFILE, /**< its driver profile's mtu */
	DP_PORT_MTU_CONFIG,  /**< [portN] mtu */
};

struct dp_port {
	uint16_t port_id; /**< DPDK's */
	char name[64];
	char driver[64];
	struct dp_port_profile profile;
	bool has_profile;
	struct rte_ether_addr mac;
	int socket;
	uint16_t nb_rxq;
	uint16_t nb_txq;
	uint16_t rx_desc;
	uint16_t tx_desc;
	uint64_t rx_offloads; /**< applied */
	uint64_t tx_offloads;
	uint64_t rss_hf;
	uint16_t mtu;      /**< the port's MTU: [portN] mtu, else the profile's, else 1500 */
	uint8_t mtu_from;  /**< where mtu comes from: enum dp_port_mtu_from */
	bool rx_ip4_cksum; /**< the NIC checks IPv4 header checksums */
	uint32_t ip4;      /**< host order, 0 = none */
	uint8_t ip4_plen;
	bool promisc; /**< accept unicast frames for any MAC */
	bool set_mac; /**< the config sets the MAC */
	bool started;
	/* a sub-interface: its VLAN id (0: a physical port), its port's index, and whether
	 * that port inserts the tag (RTE_ETH_TX_OFFLOAD_VLAN_INSERT) */
	uint16_t vid;
	uint16_t parent;
	bool vlan_insert;
	/* telemetry: ethdev counters kept monotonic across link flaps (net_memif
	 * reports zeros while its peer is gone); only ports_fill() writes these */
	struct rte_eth_stats stats_prev; /**< last raw read that was not all zero */
	struct rte_eth_stats stats_base; /**< added to raw reads: sums before resets */
	uint64_t link_changes;           /**< up/down transitions seen by dp_port_link_poll() */
};

extern struct dp_port dp_ports[DP_PORT_MAX];
/** Every port has the same MTU and hands over no packet longer (dp_port_probe()): a
 * packet received fits every next hop's MTU. */
extern bool dp_port_mtu_uniform;

/**
 * The longest IP packet port @p p hands over: its MTU or, when its driver has
 * the kernel reassemble IPv4 (a profile with ip4_whole_max, a UDP payload:
 * net_af_packet), the datagram that makes, if longer. Its fragments were each
 * within the MTU of the link they came by.
 */
uint32_t dp_port_rx_max(const struct dp_port *p);

/**
 * Bytes of packet buffer (headroom included) that a frame of every probed
 * port's MTU, with a VLAN tag, needs in one segment, past the room its driver
 * keeps in front of it (the profile's rx_headroom). Call after dp_port_probe().
 */
uint32_t dp_port_data_room_needed(void);

/**
 * Bytes of one packet buffer of @p data_room as a mempool object (dp_mem's
 * pools: object header, mbuf, no private area, default flags), as a driver
 * with a profile's buf_max gets it.
 */
uint32_t dp_port_buf_size(uint32_t data_room);

/**
 * The packet buffers' data room: [mempool] data_room where given, else the
 * larger of its default and dp_port_data_room_needed(). Call after dp_port_probe().
 */
uint16_t dp_port_data_room(const struct dp_config *cfg);

/** " (the default)", " (the profile's)" or " (config)": where an MTU comes from, for logs. */
const char *dp_port_mtu_from_str(uint8_t from);

/**
 * Per DPDK port id: true while the port's link is up. Workers read it once per
 * burst (__atomic relaxed): no RX burst on a port that is down, and what they
 * would send to it is dropped and counted (port_down). Set for every port by
 * dp_port_start_all(), then written only by dp_port_link_poll() on the control
 * lcore.
 */
extern bool dp_port_up[DP_PORT_MAX_IDS];

/** Config port index of each port id (mbuf->port); DP_PORT_NONE for ports not ours. */
#define DP_PORT_NONE UINT8_MAX
extern uint8_t dp_port_index[DP_PORT_MAX_IDS];
/** Ports: dp_ports[0, dp_nb_phys_ports) are DPDK ports, the rest sub-interfaces. What
 * acts on a device (queues, link, counters, MTU, promiscuous mode) loops over the first. */
extern uint16_t dp_nb_ports;
extern uint16_t dp_nb_phys_ports;

/**
 * (port index, VLAN id) -> the sub-interface's port id (DP_PORT_VLAN_ID_BASE + index), 0
 * for none: eth_classify's one look-up per tagged frame.
 */
extern uint8_t dp_port_vlan_ids[DP_CONFIG_MAX_PORTS][4096];
/** Sub-interfaces configured: none, and a tagged frame is a drop as it always was. */
extern uint16_t dp_port_nb_vlans;

/** A sub-interface's counters, kept by the workers (one row per lcore, its own). */
struct dp_port_vlan_stats {
	uint64_t rx_pkts;
	uint64_t rx_bytes; /**< frame bytes, without the tag */
	uint64_t tx_pkts;
	uint64_t tx_bytes; /**< frame bytes, with the tag */
};

struct dp_port_vlan_lcore {
	struct dp_port_vlan_stats s[DP_CONFIG_MAX_VLANS];
} __rte_cache_aligned;

extern struct dp_port_vlan_lcore dp_port_vlan_stats[RTE_MAX_LCORE];

/** Is port index @p i a sub-interface? */
static inline bool
dp_port_is_vlan(uint16_t i)
{
	return i >= dp_nb_phys_ports;
}

/** Lcore @p lcore's counters of sub-interface @p i (a config port index). */
static inline struct dp_port_vlan_stats *
dp_port_vlan_stats_of(unsigned int lcore, uint16_t i)
{
	return &dp_port_vlan_stats[lcore].s[i - dp_nb_phys_ports];
}

/**
 * The port index of a route's or a neighbor's port reference (dp_config_port_ref_parse():
 * N or N.VID) among the probed ports, or dp_nb_ports when there is none.
 */
uint16_t dp_port_ref_resolve(uint16_t ref);

/** The reference routes and neighbors name port index @p i by: N, or
 * DP_CONFIG_PORT_REF(N, VID) for a sub-interface (dp_port_ref_resolve()'s inverse). */
uint16_t dp_port_ref(uint16_t i);

/** Room for a port's name, "N" or "N.VID" (the longest: "15.4094"). */
#define DP_PORT_NAME_LEN 8

/** "N" or "N.VID": the config's name of port index @p i, into @p buf (DP_PORT_NAME_LEN). */
const char *dp_port_name(uint16_t i, char *buf, size_t len);

/**
 * Before probing for `dpfwd --check`: -EBUSY, said in @p err, when a net_af_xdp
 * port's interface is in use by another process (an AF_XDP socket bound to it; the
 * af_xdp PMD's close would take its XDP program off); 0 otherwise.
 */
int dp_port_xdp_in_use(const struct dp_config *cfg, char *err, size_t errlen);

/** Is @p dev a PCI address (DDDD:BB:DD.F or BB:DD.F)? */
bool dp_port_dev_is_pci(const char *dev);

/**
 * Extra EAL arguments for the configured ports: --vdev for virtual devices,
 * -a (with the profile's devargs) for PCI ones, --no-pci when there are none.
 * Each is appended to @p argv as a malloc'd string (freed by the caller).
 * @param user_argv  the user's EAL arguments, so that -a/-b/--no-pci given by
 *                   hand are respected
 * @return number of strings appended, or -ENOMEM / -E2BIG (then none are
 *         left appended).
 */
int dp_port_eal_args(
	const struct dp_config *cfg, int user_argc, char **user_argv, char **argv, int max);

/**
 * What a port requests of its device: the profile's offloads and RSS hash
 * fields that the device reports it can do, and the rest, dropped.
 */
struct dp_port_offloads {
	uint64_t rx;          /**< RX offloads to request */
	uint64_t tx;          /**< TX offloads to request */
	uint64_t rss_hf;      /**< RSS hash fields to request; 0: RSS off */
	uint64_t rx_dropped;  /**< wanted by the profile, not requested */
	uint64_t tx_dropped;  /**< wanted by the profile, not requested */
	uint64_t rss_dropped; /**< wanted by the profile, not hashed on by the device */
};

/**
 * Mask @p prof's offloads by what @p info reports (rx_offload_capa,
 * tx_offload_capa) and its RSS hash fields by flow_type_rss_offloads. RSS only
 * with more than one RX queue, and rss_hash only with RSS on (ethdev refuses it
 * otherwise). With @p tx_chained (the datapath sends chained mbufs with
 * external buffers: endpoints) multi_segs is asked for and mbuf_fast_free is
 * not. What is dropped is logged, each line starting with @p who ("port0 X").
 */
void dp_port_offloads_mask(const struct dp_port_profile *prof, const struct rte_eth_dev_info *info,
	uint16_t nb_rxq, bool tx_chained, const char *who, struct dp_port_offloads *out);

/**
 * The EAL -a argument of PCI device @p dev: @p dev with @p devargs appended
 * ("0000:3b:00.0,mprq_en=1"), or @p dev as it is when it carries devargs of
 * its own or @p devargs is empty.
 * @return 0, or -E2BIG when it does not fit in @p len bytes.
 */
int dp_port_pci_arg(const char *dev, const char *devargs, char *buf, size_t len);

/**
 * Why PCI device @p dev did not become a port, from sysfs (@p sysfs_devices:
 * /sys/bus/pci/devices): not on this machine, bound to no driver, to a kernel
 * driver, or to vfio-pci or mlx5_core and still not taken; each with what to
 * do. The sentence goes to @p buf.
 */
void dp_port_pci_diagnose(const char *sysfs_devices, const char *dev, char *buf, size_t len);

/**
 * Load one driver profile file.
 * @return 0, -EINVAL with "file:line: ..." in @p err, -ENOENT.
 */
int dp_port_profile_load(const char *path, struct dp_port_profile *p, char *err, size_t errlen);

/**
 * The profile for a driver: @p want from @p dir when not empty, else the first
 * profile whose "drivers" lists @p driver, else the generic one (*found false).
 * @return 0, or -errno with a message when a profile file is bad.
 */
int dp_port_profile_find(const char *dir, const char *want, const char *driver,
	struct dp_port_profile *out, bool *found, char *err, size_t errlen);

/**
 * After rte_eal_init: find each configured port, pick its driver profile
 * (by the port's "profile" key, else by driver name), decide queues,
 * descriptors and offloads (dp_port_offloads_mask()). @p nb_workers TX queues
 * per port (one per worker); @p tx_chained: the datapath sends chained mbufs
 * with external buffers (endpoints are on).
 * @return 0, -ENODEV (a port is missing: message says which and what to do), -EINVAL.
 */
int dp_port_probe(const struct dp_config *cfg, uint16_t nb_workers, bool tx_chained, char *err,
	size_t errlen);

/** Add each probed port's buffers to the demand of its socket (array by socket). */
void dp_port_mem_demand(struct dp_mem_demand *per_socket);

/**
 * Configure, set up queues and start every probed port (pools must exist).
 * @return 0, or -errno with the port and reason in @p err.
 */
int dp_port_start_all(char *err, size_t errlen);

/** Stop and close every port (flushes pcap output files). */
void dp_port_close_all(void);

/**
 * After the workers stopped (nothing else may use the TX queues): have the
 * drivers free the mbufs they still hold of what was sent, so that the exit
 * check counts only real leaks. rte_eth_tx_done_cleanup() where the driver
 * has it; DPDK 22.11's net_af_xdp has not, and frees sent mbufs from its
 * completion ring only when it sends again: two empty bursts per queue (the
 * first one's kick makes the kernel complete what was pending). A driver
 * whose profile has tx_keeps_sent (virtio) frees them only as its ring comes
 * round again or at close. @return how many mbufs such ports may still hold:
 * their TX descriptors.
 */
uint32_t dp_port_tx_reclaim(void);

/**
 * On the control lcore, every few milliseconds: read each port's link status
 * (rte_eth_link_get_nowait) and set dp_port_up[] to it, logging changes.
 * @return number of ports whose link changed.
 */
unsigned int dp_port_link_poll(void);

/**
 * While workers run, make munmap() from any thread other than an EAL worker
 * lcore wait until every worker has passed a quiescent state on @p qsv
 * (rte_rcu_qsbr_synchronize) before the pages go; NULL turns it off.
 *
 * Why: DPDK 22.11's net_memif unmaps the shared rings in its interrupt thread
 * when the peer disconnects (memif_disconnect -> memif_free_regions), with no
 * event before: a worker preempted in the middle of rte_eth_rx_burst() or
 * rte_eth_tx_burst() on that port then resumes on unmapped memory (SIGSEGV).
 * The driver clears its "connected" flag before it unmaps, so once every
 * worker finished the walk it was in, no burst can touch the rings again.
 * dpfwd defines munmap() (see port_unmap.c), which the driver's calls bind
 * to; only turned on when a port uses net_memif.
 */
void dp_port_unmap_guard(struct rte_rcu_qsbr *qsv);

/** Does any probed port use a driver that unmaps memory under the workers (net_memif)? */
bool dp_port_needs_unmap_guard(void);

/** Register the "ports" telemetry section (/dpfwd/port/stats) and the "vlans" one
 * (/dpfwd/port/vlans). */
int dp_port_telemetry_register(void);

/** Names of the offload bits set in @p offloads, space separated. */
void dp_port_offload_str(uint64_t offloads, bool rx, char *buf, size_t len);

#endif /* DP_PORT_H */
