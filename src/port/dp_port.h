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

#include "dp_config.h"
#include "dp_mem.h"

#define DP_PORT_MAX DP_CONFIG_MAX_PORTS

/** A driver profile: what dpfwd asks of a driver. */
struct dp_port_profile {
	char name[64];		/**< file name without .ini */
	char drivers[256];	/**< driver names it applies to, space separated */
	uint16_t rx_desc;
	uint16_t tx_desc;
	uint64_t rx_offloads;	/**< wanted, before masking */
	uint64_t tx_offloads;
	uint64_t rss_hf;
	char devargs[256];	/**< added to a PCI device's -a argument */
	char notes[512];
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
	bool rx_ip4_cksum; /**< the NIC checks IPv4 header checksums */
	uint32_t ip4;	   /**< host order, 0 = none */
	uint8_t ip4_plen;
	bool promisc; /**< accept unicast frames for any MAC */
	bool set_mac; /**< the config sets the MAC */
	bool started;
};

extern struct dp_port dp_ports[DP_PORT_MAX];

/** Config port index of each DPDK port id (mbuf->port); DP_PORT_NONE for ports not ours. */
#define DP_PORT_NONE UINT8_MAX
extern uint8_t dp_port_index[RTE_MAX_ETHPORTS];
extern uint16_t dp_nb_ports;

/** Is @p dev a PCI address (DDDD:BB:DD.F or BB:DD.F)? */
bool dp_port_dev_is_pci(const char *dev);

/**
 * Extra EAL arguments for the configured ports: --vdev for virtual devices,
 * -a (with the profile's devargs) for PCI ones, --no-pci when there are none.
 * Each is appended to @p argv as a malloc'd string (freed by the caller).
 * @param user_argv  the user's EAL arguments, so that -a/-b/--no-pci given by
 *                   hand are respected
 * @return number of strings appended, or -ENOMEM / -E2BIG.
 */
int dp_port_eal_args(const struct dp_config *cfg, int user_argc, char **user_argv, char **argv,
	int max);

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
 * (by the port's "profile" key, else by driver name), decide queues and
 * descriptors. @p nb_workers TX queues per port (one per worker).
 * @return 0, -ENODEV (a port is missing: message says which), -EINVAL.
 */
int dp_port_probe(const struct dp_config *cfg, uint16_t nb_workers, char *err, size_t errlen);

/** Add each probed port's buffers to the demand of its socket (array by socket). */
void dp_port_mem_demand(struct dp_mem_demand *per_socket);

/**
 * Configure, set up queues and start every probed port (pools must exist).
 * @return 0, or -errno with the port and reason in @p err.
 */
int dp_port_start_all(char *err, size_t errlen);

/** Stop and close every port (flushes pcap output files). */
void dp_port_close_all(void);

/** Register the "ports" telemetry section (/dpfwd/port/stats). */
int dp_port_telemetry_register(void);

/** Names of the offload bits set in @p offloads, space separated. */
void dp_port_offload_str(uint64_t offloads, bool rx, char *buf, size_t len);

#endif /* DP_PORT_H */
