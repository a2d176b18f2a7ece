/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * dpfwd configuration: INI files (read with DPDK's rte_cfgfile) turned into
 * validated structs. Every error carries "file:line: what is wrong".
 *
 * Format (docs/configuration.md; every key, its type, range and default: the key tables
 * below, printed as docs/config-reference.md):
 *
 *   [dpfwd]          main_lcore, burst, tx_drain_us, node_stats, ip4_cksum_check, ...
 *                    metrics = 127.0.0.1:9108   (Prometheus text over HTTP; off by default)
 *   [mempool]        size, cache, ops, data_room
 *   [port0] ...      dev, profile, rx_queues, rx_desc, tx_desc, mac, ip4, ip6, promisc
 *   [lcores]         rx = (port,queue,lcore),...           as l3fwd's --config
 *   [routes], [neighbors]   fwd's sections (src/fwd/dp_fwd_config.h)
 *   [relay0] ...     listen = 198.18.0.1:5000, backend = 198.18.1.2:6000 (repeatable),
 *                    source, ports = 20000-29999, timeout, profile, max_sessions
 */
#ifndef DP_CONFIG_H
#define DP_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <rte_ether.h>

/** Log type "dpfwd.config": DP_LOG(level, config, ...) (dp_common.h). */
extern int dp_logtype_config;

/** Config ports in all: the [portN] sections (N below it), then the [portN.VID] ones */
#define DP_CONFIG_MAX_PORTS 16
/** [portN.VID] sections (802.1Q sub-interfaces) a config may have, within the 16 ports */
#define DP_CONFIG_MAX_VLANS (DP_CONFIG_MAX_PORTS - 1)
/** The largest 802.1Q VLAN id (0 and 4095 are reserved, IEEE 802.1Q 9.6) */
#define DP_CONFIG_VID_MAX        4094
#define DP_CONFIG_MAX_RXMAP      64
#define DP_CONFIG_NEIGH_HOLD_MAX 64
#define DP_CONFIG_DEV_LEN        256
#define DP_CONFIG_ERR_LEN        512
/** [portN] mtu's bounds: IPv4's least (RFC 791), and ethdev's largest jumbo frame
 * (RTE_ETHER_MAX_JUMBO_FRAME_LEN) less the header and CRC; the device's own range is
 * checked when the port is probed. */
#define DP_CONFIG_MTU_MIN  68
#define DP_CONFIG_MTU_MIN6 1280 /* a port with ip6: IPv6's least (RFC 8200 5) */
#define DP_CONFIG_MTU_MAX  (0x3f00 - 18)

/** Where a value came from: a file and line, or a command-line override. */
struct dp_config_loc {
	const char *file; /**< points into struct dp_config's file names */
	int line;         /**< 0 for command-line overrides */
};

struct dp_config_port {
	bool defined;
	char dev[DP_CONFIG_DEV_LEN]; /**< vdev string ("net_null0,size=64") or PCI address */
	char profile[64];            /**< driver profile override; "" = by driver name */
	uint16_t rx_queues;          /**< 0 = as many as [lcores] maps */
	uint16_t rx_desc;            /**< 0 = the driver profile's */
	uint16_t tx_desc;
	bool has_mac;
	struct rte_ether_addr mac;
	uint32_t ip4; /**< host order, 0 = none */
	uint8_t ip4_plen;
	bool has_ip6;
	uint8_t ip6_pfxlen;
	uint8_t ip6[16]; /**< global unicast, network order (the link-local is from the MAC) */
	bool promisc;
	uint16_t mtu;                /**< 0 = the driver profile's, else 1500 */
	struct dp_config_loc mtu_at; /**< where mtu was given (file NULL: not given) */
	struct dp_config_loc loc;
	/* a sub-interface ([portN.VID]): vid 1..4094 and its port N; vid 0 for a port */
	uint16_t vid;
	uint16_t parent;
};

struct dp_config_rxmap {
	uint16_t port;
	uint16_t queue;
	unsigned int lcore;
	struct dp_config_loc loc; /**< the "rx =" line */
};

/**
 * Bytes of struct dp_config that the modules' sections share (struct dp_module's
 * sections), fixed so that a config stays a plain struct; fwd's static neighbors are
 * most of it. A binary whose modules need more stops at its first config and says so.
 */
#define DP_CONFIG_MOD_BYTES 32768

enum dp_config_mode {
	DP_CONFIG_MODE_FORWARD = 0,
};

struct dp_config {
	char path[PATH_MAX];
	/* [dpfwd] */
	enum dp_config_mode mode;
	unsigned int main_lcore;
	uint16_t burst;              /**< RX burst, 1..DP_BURST_MAX */
	uint32_t tx_drain_us;        /**< flush TX buffers at least this often */
	bool tx_flush_idle;          /**< ... and after a walk whose RX was not full */
	bool node_stats;             /**< per-node cycles (one rdtsc per node boundary) */
	uint16_t node_stats_sample;  /**< time one graph walk in this many (1 = every walk) */
	bool delay_stats;            /**< per-packet RX-to-TX delay histogram (dp_delay.h) */
	uint16_t delay_stats_sample; /**< time one full TX burst in this many (1 = every one) */
	bool avx512;                 /**< let DPDK's libraries use AVX-512 where the CPU has it */
	bool ip4_cksum_check;        /**< verify header checksums in software if the NIC did not */
	bool check_dst_mac;          /**< drop unicast frames for other hosts */
	uint32_t icmp_rate;          /**< ICMP errors per second per worker; 0 = none sent */
	uint32_t icmp_burst;         /**< ICMP errors sent at once (the token bucket's depth) */
	/* neighbors (ARP, ND) */
	uint32_t neigh_max;          /**< dynamic + static neighbors, IPv4 and IPv6 */
	uint32_t neigh_hold;         /**< packets held per unresolved neighbor */
	uint32_t neigh_reachable_ms; /**< a confirmed neighbor turns stale after this */
	uint32_t neigh_retrans_ms;   /**< between two solicitations */
	uint32_t neigh_probes;       /**< solicitations before failed */
	uint32_t neigh_failed_ms;    /**< a failed neighbor is not asked again for this long */
	char drivers_cfg[PATH_MAX];
	bool metrics;                     /**< serve Prometheus metrics over HTTP */
	char metrics_addr[48];            /**< numeric address to bind: "127.0.0.1", "::1" */
	uint16_t metrics_port;            /**< 0 = any free port (logged, and in the JSON's run) */
	struct dp_config_loc metrics_loc; /**< where "metrics =" was set, for bind errors */
	/* [mempool] */
	uint32_t pool_size; /**< 0 = computed from ports, queues, descriptors, lcores */
	uint32_t pool_cache;
	char pool_ops[32];
	uint16_t pool_data_room;
	bool pool_data_room_set; /**< data_room given: not sized for the ports' MTUs */
	/* the rest */
	/** the [portN] sections, then (from nb_phys_ports, once dp_config_validate() placed
	 * them) the [portN.VID] ones */
	struct dp_config_port ports[DP_CONFIG_MAX_PORTS];
	uint16_t nb_ports;      /**< [portN] sections; after dp_config_validate(), all */
	uint16_t nb_phys_ports; /**< [portN] sections (set by dp_config_validate()) */
	/** the [portN.VID] sections as read, before dp_config_validate() places them */
	struct dp_config_port vlans[DP_CONFIG_MAX_VLANS];
	uint16_t nb_vlans;
	struct dp_config_rxmap rxmap[DP_CONFIG_MAX_RXMAP];
	uint16_t nb_rxmap;
	/* the modules' sections ([routes], [relayN], ...): each one's struct at its off
	 * (struct dp_config_section), placed by dp_config_section_at() */
	uint8_t mod[DP_CONFIG_MOD_BYTES] __rte_aligned(8);
	/* names of every file read, for struct dp_config_loc */
	char **files;
	uint32_t nb_files;
	uint32_t cap_files;
};

/** Called for every "key = value" of an INI file, in file order. @return 0 or -EINVAL. */
typedef int (*dp_config_ini_cb_t)(void *arg, const char *section, const char *key,
	const char *value, const struct dp_config_loc *loc, char *err, size_t errlen);

/**
 * Read any dpfwd INI file (configs, driver profiles) with rte_cfgfile, after a
 * scan that rejects what rte_cfgfile would silently mangle (long values,
 * repeated sections, lines that are neither) and that gives each entry its line.
 *
 * A section without keys is announced by one call of @p cb with @p key and
 * @p value NULL (at the section's line).
 *
 * @param fname  name to print in messages (may point to NULL: @p path is used)
 * @return 0, -EINVAL (message "file:line: ..." in @p err), -ENOENT, -ENOMEM, or
 *         what @p cb returned.
 */
int dp_config_ini_parse(const char *path, dp_config_ini_cb_t cb, void *arg, const char **fname,
	char *err, size_t errlen);

/**
 * Called for each line dp_config_read_lines() reads: @p text trimmed, without its
 * comment. @return 0, or an -errno that stops the reading (the message in @p err).
 */
typedef int (*dp_config_line_cb_t)(
	void *arg, char *text, const struct dp_config_loc *loc, char *err, size_t errlen);

/**
 * Read a text file that a config names (a route file) line by line: cut "#"
 * comments, trim, skip blank lines, and hand each line to @p cb with its file:line.
 * The file's name is kept in @p cfg (its struct dp_config_loc stay valid until
 * dp_config_free()).
 *
 * @param what     what the file is, for the message when it cannot be opened
 * @param max_len  longest line, in bytes (a longer one is an error at its line)
 * @return 0; -EINVAL (a line too long or with a NUL byte: "file:line: ..."); the
 *         -errno of a file that cannot be opened ("path: cannot open <what>: ...");
 *         or what @p cb returned.
 */
int dp_config_read_lines(struct dp_config *cfg, const char *path, const char *what, size_t max_len,
	dp_config_line_cb_t cb, void *arg, char *err, size_t errlen);

/** Format "file:line: " + message into @p err. @return -EINVAL. */
int dp_config_error(char *err, size_t errlen, const struct dp_config_loc *loc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/** @p s without its leading and trailing white space (the trailing one cut off in place). */
char *dp_config_trim(char *s);

/** Parse an unsigned number (decimal or 0x hex) in [min, max]. @return 0 or -EINVAL. */
int dp_config_parse_uint(const char *v, uint64_t min, uint64_t max, uint64_t *out);

/** Parse "a.b.c.d" into @p out, host order. @return 0 or -EINVAL. */
int dp_config_parse_ip4(const char *v, uint32_t *out);

/** Parse "a.b.c.d/len" (len 0..32); host bits are kept (callers decide). @return 0 or -EINVAL. */
int dp_config_parse_ip4_prefix(const char *v, uint32_t *ip, uint8_t *plen);

/** Parse "ADDR/len" of IPv6 (len 0..128), network order; host bits are kept.
 * @return 0 or -EINVAL. */
int dp_config_parse_ip6_prefix(const char *v, uint8_t ip[16], uint8_t *plen);

/** Why @p ip cannot be a neighbor, a gateway or an interface address; NULL if it can. */
const char *dp_config_ip6_not_unicast(const uint8_t ip[16]);

/*
 * ---- Typed key tables ----
 *
 * Each kind of section ([dpfwd], [portN], [relayN], ...) is described by a struct
 * dp_config_section: its keys, each with a type, a range, a default and a one-line doc.
 * dp_config_key_apply() reads one "key = value" of such a section into the section's
 * struct; dp_config_section_print() writes the table as Markdown (docs/config-reference.md
 * is made so). The tables themselves live next to the code that uses the section.
 */

/** How a key's value is read and stored. */
enum dp_config_type {
	DP_CONFIG_BOOL,   /**< bool: on/off, yes/no, true/false, 1/0, in any case */
	DP_CONFIG_UINT,   /**< an unsigned integer: decimal or 0x hex, in [min, max] */
	DP_CONFIG_STRING, /**< char[size]: at most size - 1 bytes; one of @c names if set */
	DP_CONFIG_PATH,   /**< char[size]: relative to the config file's folder if relative */
	DP_CONFIG_ENUM,   /**< an unsigned integer: the index of the value in @c names */
	DP_CONFIG_CUSTOM, /**< read and stored by @c parse */
};

/** A key may be given more than once: each line adds one (a route, a backend). */
#define DP_CONFIG_KEY_REPEAT (1u << 0)

/** Where a value comes from, as handed to dp_config_key_apply() and custom parsers. */
struct dp_config_at {
	const char *section;             /**< the section as written ("relay0"), for messages */
	const struct dp_config_loc *loc; /**< file:line of the value */
	const char *dir;                 /**< relative paths start here; "": as given */
	struct dp_config *cfg;           /**< the config read (dp_config_read_lines() needs it) */
};

struct dp_config_key;

/**
 * Read @p value for key @p k into the section's struct at @p base; errors are
 * "file:line: ..." in @p err (dp_config_error() with @p at->loc).
 * @return 0 or -EINVAL.
 */
typedef int (*dp_config_parse_t)(void *base, const struct dp_config_key *k, const char *value,
	const struct dp_config_at *at, char *err, size_t errlen);

/** Offset + 1 of @p member in @p type: the optional offsets of struct dp_config_key (0 = none). */
#define DP_CONFIG_OPT_FIELD(type, member) (offsetof(type, member) + 1)

/** @c off and @c size of struct dp_config_key for @p member of @p type. */
#define DP_CONFIG_FIELD(type, member)                                                              \
	.off = offsetof(type, member), .size = sizeof(((type *)0)->member)

/** One key of a section. */
struct dp_config_key {
	const char *name;
	enum dp_config_type type;
	size_t off;  /**< the field in the section's struct (DP_CONFIG_FIELD()); not for CUSTOM */
	size_t size; /**< its size: 1, 2, 4 or 8 for UINT and ENUM, the array's for STRING, PATH */
	uint64_t min, max;        /**< UINT: the range */
	const char *zero;         /**< UINT: a word that stands for 0 ("auto"), or NULL */
	const char *const *names; /**< ENUM, STRING: the values allowed, NULL-terminated */
	dp_config_parse_t parse;  /**< CUSTOM: reads and stores the value */
	const char *syntax;       /**< CUSTOM: the value's form, for the reference ("ADDR:PORT") */
	/** DP_CONFIG_OPT_FIELD() of a bool set when the key is given (not by its default) */
	size_t given;
	/** DP_CONFIG_OPT_FIELD() of a struct dp_config_loc: where the key was given last */
	size_t given_at;
	const char *def;    /**< the default as a value of the key (set by its parser), or NULL */
	const char *unset;  /**< without @c def: what leaving the key out means ("the NIC's") */
	const char *doc;    /**< one line; value errors of UINT keys quote it too */
	unsigned int flags; /**< DP_CONFIG_KEY_REPEAT */
};

/**
 * A kind of section: [name], or [name0]..[name<count - 1>] when @c count is set.
 *
 * Defaults: dp_config_init() applies those of unnumbered sections; a numbered
 * section's are applied when it first appears (@c open returned true).
 */
struct dp_config_section {
	const char *name;
	unsigned int count; /**< 0: one section [name]; else how many numbered ones */
	const char *label;  /**< put before a key's name in value errors ("mempool "), or NULL */
	const char *doc;    /**< a sentence or two for the reference */
	const struct dp_config_key *keys;
	unsigned int nb_keys;
	size_t off;    /**< the section's struct in struct dp_config (0: struct dp_config itself) */
	size_t stride; /**< numbered sections: bytes from one's struct to the next's */
	/**
	 * Called before each of the section's keys is applied (and for the section alone,
	 * without keys, when @c presence is set): mark it used. @return true the first time.
	 */
	bool (*open)(struct dp_config *cfg, void *base, unsigned int idx,
		const struct dp_config_loc *loc);
	bool presence; /**< the section alone, even without keys, means something ([endpoint]) */
	/**
	 * A module's section (struct dp_module's sections): the bytes of one section's
	 * struct. Its @c off in struct dp_config's @c mod (and @c stride = @c size for a
	 * numbered one) are set when the section is first seen, the same for every config.
	 */
	size_t size;
	/** A module's section: cross-checks once the whole config is read (dp_config_validate()) */
	int (*validate)(struct dp_config *cfg, char *err, size_t errlen);
	/**
	 * A module's section: free what one section's struct at @p base holds (memory it
	 * allocated) and leave it empty; dp_config_free() calls it for each, even unused
	 * or already freed ones.
	 */
	void (*free)(void *base);
};

/**
 * The struct of section @p s number @p idx (0 for an unnumbered one) in @p cfg. A
 * module's section is placed by the first dp_config_init() after it registered.
 */
static inline void *
dp_config_section_data(
	const struct dp_config *cfg, const struct dp_config_section *s, unsigned int idx)
{
	return (char *)(uintptr_t)cfg + s->off + (size_t)idx * s->stride;
}

/** The key of @p s named @p name, or NULL. */
const struct dp_config_key *dp_config_key_find(const struct dp_config_section *s, const char *name);

/**
 * Apply "@p key = @p value" of section @p s to its struct at @p base: find the key,
 * parse the value by its type and range, store it. @p value is used as it is (no
 * ${VAR} expansion).
 *
 * @return 0, or -EINVAL with "file:line: message" in @p err: an unknown key (the
 *         message lists the section's keys) or a bad value (it says what the key takes).
 */
int dp_config_key_apply(const struct dp_config_section *s, void *base, const char *key,
	const char *value, const struct dp_config_at *at, char *err, size_t errlen);

/**
 * Apply the default (@c def) of every key of @p s that has one to @p base.
 * @return 0, or -EINVAL when a default is not a value of its key (a bug in the table).
 */
int dp_config_section_defaults(const struct dp_config_section *s, void *base,
	const struct dp_config_at *at, char *err, size_t errlen);

/**
 * The @p i-th section dpfwd reads (in the order of the reference), or NULL past the
 * last: src/config's own, then each registered module's (dp_module.h), in the order
 * the modules registered.
 */
const struct dp_config_section *dp_config_section_at(unsigned int i);

/** Write @p s as a Markdown heading, its doc and a table: key, type, range, default, doc. */
void dp_config_section_print(FILE *f, const struct dp_config_section *s);

/**
 * Write the configuration reference (every section, docs/config-reference.md).
 * @return 0, or -EIO if writing to @p f failed.
 */
int dp_config_reference_print(FILE *f);

/** Fill @p cfg with the defaults (no ports, no module sections used). */
void dp_config_init(struct dp_config *cfg);

/**
 * The drivers_cfg a config gets when it names none: the source tree's drivers-cfg/ for a
 * binary of the build tree, else the installed profiles (DATADIR/dpfwd/drivers-cfg,
 * looked up beside the binary first, for a relocated install).
 */
void dp_config_drivers_cfg_default(char *out, size_t len);

/**
 * Read and validate a config file.
 *
 * @param path  the INI file
 * @param cfg   initialised with dp_config_init()
 * @param err   receives "file:line: message" on failure
 * @return 0, -EINVAL for a bad file (message in @p err), -ENOENT/-EACCES when it
 *         cannot be opened, -ENOMEM.
 */
int dp_config_load(struct dp_config *cfg, const char *path, char *err, size_t errlen);

/**
 * Apply one "section.key=value" override (dpfwd's --set), as if it were in the file.
 * @return 0 or -EINVAL with the message in @p err.
 */
int dp_config_set(struct dp_config *cfg, const char *assignment, char *err, size_t errlen);

/**
 * Cross-check the whole config (ports exist and the lcores poll them, ...), then each
 * module section's validate hook in section order. Call once after load and overrides.
 * @return 0 or -EINVAL.
 */
int dp_config_validate(struct dp_config *cfg, char *err, size_t errlen);

/** Free what load allocated (the modules' sections: their free hooks). */
void dp_config_free(struct dp_config *cfg);

/** Lcores that poll at least one RX queue, ascending, without repeats. @return count. */
unsigned int dp_config_worker_lcores(
	const struct dp_config *cfg, unsigned int *lcores, unsigned int max);

/**
 * The port whose address is @p addr (IPv4: its first 4 bytes, network order), or
 * cfg->nb_ports for none.
 */
uint16_t dp_config_port_of_addr(const struct dp_config *cfg, bool ip6, const uint8_t addr[16]);

/**
 * The port a route or a neighbor names: "N" for [portN] (N itself), "N.VID" for a
 * sub-interface [portN.VID] (a reference, DP_CONFIG_PORT_REF(N, VID), that
 * dp_config_port_resolve() turns into its config port index once the config is read).
 * @return 0, or -EINVAL for anything else (N over DP_CONFIG_MAX_PORTS - 1, VID out of
 *         1..4094).
 */
int dp_config_port_ref_parse(const char *s, uint16_t *ref);

/** The reference of sub-interface @p vid of port @p port: above every config port index
 * (the largest, 15.4094, is 65519). */
#define DP_CONFIG_PORT_REF(port, vid)                                                              \
	((uint16_t)(DP_CONFIG_MAX_PORTS + (port)*DP_CONFIG_VID_MAX + (vid)-1))

/** Is @p ref a sub-interface reference (DP_CONFIG_PORT_REF()) rather than a port index? */
static inline bool
dp_config_port_ref_is_vlan(uint16_t ref)
{
	return ref >= DP_CONFIG_MAX_PORTS;
}

/** "N" or "N.VID": the name of port reference @p ref into @p buf. */
const char *dp_config_port_ref_str(uint16_t ref, char *buf, size_t len);

/**
 * The config port index of reference @p ref in @p cfg (validated): @p ref itself for a
 * port index, else the sub-interface's index, or cfg->nb_ports when it has none.
 */
uint16_t dp_config_port_resolve(const struct dp_config *cfg, uint16_t ref);

/** "a.b.c.d" of a host-order address into @p buf (16 bytes). */
const char *dp_config_ip4_str(uint32_t ip, char *buf, size_t len);

/** The text form of an IPv6 address (network order) into @p buf (46 bytes). */
const char *dp_config_ip6_str(const uint8_t ip[16], char *buf, size_t len);

#endif /* DP_CONFIG_H */
