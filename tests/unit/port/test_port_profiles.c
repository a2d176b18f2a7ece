/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Driver profiles (drivers-cfg/) against what DPDK 22.11 knows, and how ports
 * apply them:
 *
 *   every profile    parsed by dpfwd's parser; read again line by line here, each
 *                    offload name checked against this file's table of DPDK's
 *                    RTE_ETH_*_OFFLOAD_* flags (itself checked against DPDK's
 *                    rte_eth_dev_*_offload_name()), each RSS field against
 *                    RTE_ETH_RSS_*, each driver name and each devargs key against
 *                    the lists below (from the DPDK 22.11 guides; compared with the
 *                    installed dpdk-doc when it is there)
 *   real PMDs        the virtual devices this machine can make, probed in-process:
 *                    each one's profile asks only for what its driver offers
 *   masking          dp_port_offloads_mask() on dev_info built here, with and
 *                    without the offloads: what is requested and what is logged
 *   PCI              dp_port_pci_arg(), dp_port_eal_args() (-a with the profile's
 *                    devargs) and dp_port_pci_diagnose() on a sysfs tree made here
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <dirent.h>
#include <unistd.h>
#include <sys/stat.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_log.h>

#include "dp_build_config.h"
#include "dp_common.h"
#include "dp_config.h"
#include "dp_port.h"
#include "dp_test.h"

static char tmpdir[256];

/* ---- what DPDK 22.11 knows ---- */

struct flag_name {
	const char *name;
	uint64_t flag;
};

/* RTE_ETH_RX_OFFLOAD_* of rte_ethdev.h (22.11), by the names DPDK prints (lower case) */
static const struct flag_name rx_offloads[] = {
	{ "vlan_strip", RTE_ETH_RX_OFFLOAD_VLAN_STRIP },
	{ "ipv4_cksum", RTE_ETH_RX_OFFLOAD_IPV4_CKSUM },
	{ "udp_cksum", RTE_ETH_RX_OFFLOAD_UDP_CKSUM },
	{ "tcp_cksum", RTE_ETH_RX_OFFLOAD_TCP_CKSUM },
	{ "tcp_lro", RTE_ETH_RX_OFFLOAD_TCP_LRO },
	{ "qinq_strip", RTE_ETH_RX_OFFLOAD_QINQ_STRIP },
	{ "outer_ipv4_cksum", RTE_ETH_RX_OFFLOAD_OUTER_IPV4_CKSUM },
	{ "macsec_strip", RTE_ETH_RX_OFFLOAD_MACSEC_STRIP },
	{ "vlan_filter", RTE_ETH_RX_OFFLOAD_VLAN_FILTER },
	{ "vlan_extend", RTE_ETH_RX_OFFLOAD_VLAN_EXTEND },
	{ "scatter", RTE_ETH_RX_OFFLOAD_SCATTER },
	{ "timestamp", RTE_ETH_RX_OFFLOAD_TIMESTAMP },
	{ "security", RTE_ETH_RX_OFFLOAD_SECURITY },
	{ "keep_crc", RTE_ETH_RX_OFFLOAD_KEEP_CRC },
	{ "sctp_cksum", RTE_ETH_RX_OFFLOAD_SCTP_CKSUM },
	{ "outer_udp_cksum", RTE_ETH_RX_OFFLOAD_OUTER_UDP_CKSUM },
	{ "rss_hash", RTE_ETH_RX_OFFLOAD_RSS_HASH },
	{ "buffer_split", RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT },
	{ NULL, 0 },
};

/* RTE_ETH_TX_OFFLOAD_* of rte_ethdev.h (22.11) */
static const struct flag_name tx_offloads[] = {
	{ "vlan_insert", RTE_ETH_TX_OFFLOAD_VLAN_INSERT },
	{ "ipv4_cksum", RTE_ETH_TX_OFFLOAD_IPV4_CKSUM },
	{ "udp_cksum", RTE_ETH_TX_OFFLOAD_UDP_CKSUM },
	{ "tcp_cksum", RTE_ETH_TX_OFFLOAD_TCP_CKSUM },
	{ "sctp_cksum", RTE_ETH_TX_OFFLOAD_SCTP_CKSUM },
	{ "tcp_tso", RTE_ETH_TX_OFFLOAD_TCP_TSO },
	{ "udp_tso", RTE_ETH_TX_OFFLOAD_UDP_TSO },
	{ "outer_ipv4_cksum", RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM },
	{ "qinq_insert", RTE_ETH_TX_OFFLOAD_QINQ_INSERT },
	{ "vxlan_tnl_tso", RTE_ETH_TX_OFFLOAD_VXLAN_TNL_TSO },
	{ "gre_tnl_tso", RTE_ETH_TX_OFFLOAD_GRE_TNL_TSO },
	{ "ipip_tnl_tso", RTE_ETH_TX_OFFLOAD_IPIP_TNL_TSO },
	{ "geneve_tnl_tso", RTE_ETH_TX_OFFLOAD_GENEVE_TNL_TSO },
	{ "macsec_insert", RTE_ETH_TX_OFFLOAD_MACSEC_INSERT },
	{ "mt_lockfree", RTE_ETH_TX_OFFLOAD_MT_LOCKFREE },
	{ "multi_segs", RTE_ETH_TX_OFFLOAD_MULTI_SEGS },
	{ "mbuf_fast_free", RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE },
	{ "security", RTE_ETH_TX_OFFLOAD_SECURITY },
	{ "udp_tnl_tso", RTE_ETH_TX_OFFLOAD_UDP_TNL_TSO },
	{ "ip_tnl_tso", RTE_ETH_TX_OFFLOAD_IP_TNL_TSO },
	{ "outer_udp_cksum", RTE_ETH_TX_OFFLOAD_OUTER_UDP_CKSUM },
	{ "send_on_timestamp", RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP },
	{ NULL, 0 },
};

/* the profiles' RSS words: DPDK's RTE_ETH_RSS_* groups */
static const struct flag_name rss_fields[] = {
	{ "ip", RTE_ETH_RSS_IP },
	{ "udp", RTE_ETH_RSS_UDP },
	{ "tcp", RTE_ETH_RSS_TCP },
	{ "sctp", RTE_ETH_RSS_SCTP },
	{ "none", 0 },
	{ NULL, 0 },
};

/*
 * Driver names as DPDK 22.11 reports them (rte_eth_dev_info.driver_name):
 * the PCI ones from their registration (drivers/common/mlx5: MLX5_PCI_DRIVER_NAME
 * "mlx5_pci"; drivers/net/ixgbe: RTE_PMD_REGISTER_PCI(net_ixgbe, ...);
 * drivers/net/virtio: RTE_PMD_REGISTER_PCI(net_virtio, ...)); the virtual ones
 * are also probed below, where this machine can make them.
 */
static const char *const pci_drivers[] = { "mlx5_pci", "net_ixgbe", "net_virtio", NULL };
static const char *const vdev_drivers[] = { "net_af_packet", "net_af_xdp", "net_memif", "net_null",
	"net_pcap", "net_ring", "net_tap", "net_virtio_user", NULL };

struct devarg {
	const char *key;
	bool is_int;     /**< documented as [int] (or <0|1>) */
	bool deprecated; /**< documented as deprecated or ignored */
};

/*
 * mlx5 devargs of DPDK 22.11: doc/guides/nics/mlx5.rst ("Driver options", every
 * "- ``key`` parameter [type]") and doc/guides/platform/mlx5.rst (the common
 * ones: class, mr_ext_memseg_en, ...). mlx5 registers no parameter string, so
 * dpdk-pmdinfo.py has none to print: the guides are the reference.
 */
static const struct devarg mlx5_devargs[] = {
	{ "rxq_cqe_comp_en", true, false },
	{ "rxq_pkt_pad_en", true, false },
	{ "delay_drop", true, false },
	{ "mprq_en", true, false },
	{ "mprq_log_stride_num", true, false },
	{ "mprq_log_stride_size", true, false },
	{ "mprq_max_memcpy_len", true, false },
	{ "rxqs_min_mprq", true, false },
	{ "txq_inline", true, true },
	{ "txqs_min_inline", true, false },
	{ "txq_inline_min", true, false },
	{ "txq_inline_max", true, false },
	{ "txq_inline_mpw", true, false },
	{ "txqs_max_vec", true, true },
	{ "txq_mpw_hdr_dseg_en", true, true },
	{ "txq_max_inline_len", true, true },
	{ "txq_mpw_en", true, false },
	{ "tx_db_nc", true, true },
	{ "tx_pp", true, false },
	{ "tx_skew", true, false },
	{ "tx_vec_en", true, true },
	{ "rx_vec_en", true, false },
	{ "vf_nl_en", true, false },
	{ "l3_vxlan_en", true, false },
	{ "dv_xmeta_en", true, false },
	{ "dv_flow_en", true, false },
	{ "dv_esw_en", true, false },
	{ "fdb_def_rule_en", true, false },
	{ "lacp_by_user", true, false },
	{ "representor", false, false },
	{ "repr_matching_en", true, false },
	{ "max_dump_files_num", true, false },
	{ "lro_timeout_usec", true, false },
	{ "hp_buf_log_sz", true, false },
	{ "reclaim_mem_mode", true, false },
	{ "decap_en", true, false },
	{ "allow_duplicate_pattern", true, false },
	/* platform/mlx5.rst, the common driver options */
	{ "class", false, false },
	{ "mr_ext_memseg_en", true, false },
	{ "mr_mempool_reg_en", true, false },
	{ "sys_mem_en", true, false },
	{ "sq_db_nc", true, false },
	{ "cmd_fd", true, false },
	{ "pd_handle", true, false },
	{ NULL, false, false },
};

/*
 * ixgbe (PF, net_ixgbe) devargs of DPDK 22.11: doc/guides/nics/ixgbe.rst, and the
 * parameter string the PMD registers (dpdk-pmdinfo.py librte_net_ixgbe.so:
 * "fiber_sdp3_no_tx_disable=<0|1>"; the VF's pflink_fullchk is net_ixgbe_vf's).
 */
static const struct devarg ixgbe_devargs[] = {
	{ "fiber_sdp3_no_tx_disable", true, false },
	{ NULL, false, false },
};

#define DOC_DIR "/usr/share/doc/dpdk/guides/_sources"

/* ---- helpers ---- */

static const char *
src_dir(void)
{
	const char *s = getenv("DPFWD_SRC");

	return s != NULL ? s : DP_SOURCE_DIR;
}

/* Under CI (CI=true) or DPFWD_STRICT=1 a check this machine cannot make fails; else it says so. */
static void
not_checked(const char *what)
{
	const char *ci = getenv("CI"), *strict = getenv("DPFWD_STRICT");

	if ((ci != NULL && strcmp(ci, "true") == 0) || (strict != NULL && strcmp(strict, "1") == 0))
		EXPECT(false, "not checked: %s", what);
	else
		printf("\n  NOT CHECKED: %s\n", what);
}

static const struct flag_name *
flag_find(const struct flag_name *t, const char *name)
{
	for (; t->name != NULL; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

static bool
word_in(const char *const *list, const char *w)
{
	for (; *list != NULL; list++)
		if (strcmp(*list, w) == 0)
			return true;
	return false;
}

/* One profile as read here, independently of dpfwd's parser: values and their lines. */
struct raw_profile {
	char path[PATH_MAX];
	char drivers[256], rx[256], tx[256], rss[256], devargs[256];
	int drivers_line, rx_line, tx_line, rss_line, devargs_line;
};

static int
raw_read(const char *path, struct raw_profile *r)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	int n = 0;

	memset(r, 0, sizeof(*r));
	snprintf(r->path, sizeof(r->path), "%s", path);
	if (f == NULL)
		return -errno;
	while (fgets(line, sizeof(line), f) != NULL) {
		char key[64], val[512];

		n++;
		line[strcspn(line, "\r\n")] = '\0';
		if (sscanf(line, " %63[a-z0-9_] = %511[^\n]", key, val) != 2)
			continue;
#define RAW_KEY(k, field)                                                                          \
	if (strcmp(key, k) == 0) {                                                                 \
		dp_strlcpy(r->field, val, sizeof(r->field));                                       \
		r->field##_line = n;                                                               \
	}
		RAW_KEY("drivers", drivers)
		RAW_KEY("rx_offloads", rx)
		RAW_KEY("tx_offloads", tx)
		RAW_KEY("rss_hf", rss)
		RAW_KEY("devargs", devargs)
#undef RAW_KEY
	}
	fclose(f);
	return 0;
}

/* Problems found in one profile, each "file:line: what\n" in @c msg. */
struct report {
	const char *path;
	char *msg;
	size_t len;
	int bad;
};

static void __attribute__((format(printf, 3, 4)))
problem(struct report *rep, int line, const char *fmt, ...)
{
	size_t n = strlen(rep->msg);
	va_list ap;

	snprintf(rep->msg + n, rep->len - n, "%s:%d: ", rep->path, line);
	n = strlen(rep->msg);
	va_start(ap, fmt);
	vsnprintf(rep->msg + n, rep->len - n, fmt, ap);
	va_end(ap);
	n = strlen(rep->msg);
	snprintf(rep->msg + n, rep->len - n, "\n");
	rep->bad++;
}

/* The words of @p value (split at @p seps), at most @p max, into @p words. @return how many. */
static int
words(const char *value, const char *seps, char words[][128], int max)
{
	char buf[512];
	char *save = NULL, *t;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", value);
	for (t = strtok_r(buf, seps, &save); t != NULL && n < max; t = strtok_r(NULL, seps, &save))
		dp_strlcpy(words[n++], t, 128);
	return n;
}

/* The flags of @p value's words in table @p t; each other word is a problem ("none": no flag). */
static uint64_t
flags_of(struct report *rep, const char *value, int line, const struct flag_name *t,
	const char *what)
{
	char w[32][128];
	uint64_t flags = 0;
	int i, n = words(value, " ,\t", w, 32);

	for (i = 0; i < n; i++) {
		const struct flag_name *f = flag_find(t, w[i]);

		if (f != NULL)
			flags |= f->flag;
		else if (strcmp(w[i], "none") != 0)
			problem(rep, line, "%s '%s' is not one of DPDK 22.11's", what, w[i]);
	}
	return flags;
}

/* The devargs of @p r against the keys @p known of its driver. */
static void
devargs_check(struct report *rep, const struct raw_profile *r, const struct devarg *known)
{
	char w[32][128];
	int i, n = words(r->devargs, ",", w, 32);

	/* only a PCI device's -a gets the profile's devargs: elsewhere they would be lost */
	if (n > 0 && known == NULL) {
		problem(rep, r->devargs_line,
			"devargs for a driver that does not take them from a profile");
		return;
	}
	for (i = 0; i < n; i++) {
		char key[128], *end = NULL;
		const char *eq = strchr(w[i], '=');
		const struct devarg *d;

		snprintf(key, sizeof(key), "%.*s", eq ? (int)(eq - w[i]) : (int)strlen(w[i]), w[i]);
		for (d = known; d->key != NULL && strcmp(d->key, key) != 0; d++)
			;
		if (d->key == NULL) {
			problem(rep, r->devargs_line, "devargs key '%s' is not documented for %s",
				key, r->drivers);
			continue;
		}
		if (d->deprecated)
			problem(rep, r->devargs_line, "devargs key '%s' is deprecated", key);
		if (d->is_int &&
			(eq == NULL || eq[1] == '\0' || (strtol(eq + 1, &end, 0), *end != '\0')))
			problem(rep, r->devargs_line, "devargs '%s' wants an integer", w[i]);
	}
}

/*
 * Check one profile as read here, and what dpfwd's parser made of it (@p parsed,
 * if not NULL). Each problem is appended to @p msg as "file:line: what".
 * @return the number of problems.
 */
static int
raw_check(const struct raw_profile *r, const struct dp_port_profile *parsed, char *msg, size_t len)
{
	struct report rep = { .path = r->path, .msg = msg, .len = len };
	const struct devarg *known = NULL;
	uint64_t rx, tx, rss;
	char w[16][128];
	int i, n;

	rx = flags_of(&rep, r->rx, r->rx_line, rx_offloads, "RX offload");
	tx = flags_of(&rep, r->tx, r->tx_line, tx_offloads, "TX offload");
	rss = flags_of(&rep, r->rss, r->rss_line, rss_fields, "RSS field");
	n = words(r->drivers, " ,\t", w, 16);
	if (n == 0)
		problem(&rep, 1, "no drivers line");
	for (i = 0; i < n; i++) {
		if (!word_in(pci_drivers, w[i]) && !word_in(vdev_drivers, w[i]))
			problem(&rep, r->drivers_line,
				"driver '%s' is not a DPDK 22.11 driver name", w[i]);
		if (strcmp(w[i], "mlx5_pci") == 0)
			known = mlx5_devargs;
		else if (strcmp(w[i], "net_ixgbe") == 0)
			known = ixgbe_devargs;
	}
	devargs_check(&rep, r, known);
	/* what dpfwd's parser made of the same lines */
	if (parsed != NULL) {
		if (parsed->rx_offloads != rx)
			problem(&rep, r->rx_line,
				"parsed RX offloads 0x%" PRIx64 ", the names say 0x%" PRIx64,
				parsed->rx_offloads, rx);
		if (parsed->tx_offloads != tx)
			problem(&rep, r->tx_line,
				"parsed TX offloads 0x%" PRIx64 ", the names say 0x%" PRIx64,
				parsed->tx_offloads, tx);
		if (r->rss_line != 0 && parsed->rss_hf != rss)
			problem(&rep, r->rss_line,
				"parsed rss_hf 0x%" PRIx64 ", the names say 0x%" PRIx64,
				parsed->rss_hf, rss);
		if (strcmp(parsed->devargs, r->devargs) != 0)
			problem(&rep, r->devargs_line, "parsed devargs '%s'", parsed->devargs);
	}
	return rep.bad;
}

/* Each *.ini of drivers-cfg/, in name order; @return how many (at most @p max). */
static int
profile_files(char names[][64], int max)
{
	char dir[PATH_MAX];
	struct dirent **list;
	int n, i, k = 0;

	snprintf(dir, sizeof(dir), "%s/drivers-cfg", src_dir());
	n = scandir(dir, &list, NULL, alphasort);
	for (i = 0; i < n; i++) {
		size_t l = strlen(list[i]->d_name);

		if (l > 4 && strcmp(list[i]->d_name + l - 4, ".ini") == 0 && k < max)
			snprintf(names[k++], 64, "%.63s", list[i]->d_name);
		free(list[i]);
	}
	free(list);
	return k;
}

/* ---- DPDK's own tables ---- */

/* This file's tables name each flag as DPDK does, and DPDK names no other. */
static void
test_offload_tables_match_dpdk_names(void)
{
	const struct flag_name *f;
	uint64_t rx = 0, tx = 0;
	unsigned int bit;

	for (f = rx_offloads; f->name != NULL; f++) {
		EXPECT(strcasecmp(rte_eth_dev_rx_offload_name(f->flag), f->name) == 0,
			"RX 0x%" PRIx64 ": DPDK says %s, the table %s", f->flag,
			rte_eth_dev_rx_offload_name(f->flag), f->name);
		rx |= f->flag;
	}
	for (f = tx_offloads; f->name != NULL; f++) {
		EXPECT(strcasecmp(rte_eth_dev_tx_offload_name(f->flag), f->name) == 0,
			"TX 0x%" PRIx64 ": DPDK says %s, the table %s", f->flag,
			rte_eth_dev_tx_offload_name(f->flag), f->name);
		tx |= f->flag;
	}
	for (bit = 0; bit < 64; bit++) {
		if (!(rx & RTE_BIT64(bit)))
			EXPECT(strcmp(rte_eth_dev_rx_offload_name(RTE_BIT64(bit)), "UNKNOWN") == 0,
				"RX bit %u is %s, not in the table", bit,
				rte_eth_dev_rx_offload_name(RTE_BIT64(bit)));
		if (!(tx & RTE_BIT64(bit)))
			EXPECT(strcmp(rte_eth_dev_tx_offload_name(RTE_BIT64(bit)), "UNKNOWN") == 0,
				"TX bit %u is %s, not in the table", bit,
				rte_eth_dev_tx_offload_name(RTE_BIT64(bit)));
	}
}

/* ---- every profile ---- */

static void
test_every_profile_parses_and_names_what_dpdk_knows(void)
{
	char names[32][64];
	char msg[8192] = "";
	int n = profile_files(names, 32), i, bad = 0;

	/* the nine virtual and NIC profiles and net_tap, at least */
	EXPECT(n >= 10, "%d profiles in %s/drivers-cfg", n, src_dir());
	for (i = 0; i < n; i++) {
		char path[PATH_MAX], err[DP_CONFIG_ERR_LEN] = "";
		struct dp_port_profile p;
		struct raw_profile r;
		int rc;

		snprintf(path, sizeof(path), "%s/drivers-cfg/%s", src_dir(), names[i]);
		rc = dp_port_profile_load(path, &p, err, sizeof(err));
		EXPECT(rc == 0, "%s: rc %d: %s", names[i], rc, err);
		CU_ASSERT_FATAL(raw_read(path, &r) == 0);
		bad += raw_check(&r, rc == 0 ? &p : NULL, msg, sizeof(msg));
		EXPECT(r.rx_line && r.tx_line && r.rss_line,
			"%s: rx_offloads, tx_offloads and rss_hf are all said", names[i]);
	}
	EXPECT(bad == 0, "%d problems:\n%s", bad, msg);
}

/* A driver picks one profile: two listing it would make the choice depend on readdir(). */
static void
test_each_driver_is_in_one_profile(void)
{
	char names[32][64], seen[64][64], from[64][64];
	int n = profile_files(names, 32), i, k, nb = 0;

	for (i = 0; i < n; i++) {
		char path[PATH_MAX], buf[256];
		char *save = NULL, *t;
		struct raw_profile r;

		snprintf(path, sizeof(path), "%s/drivers-cfg/%s", src_dir(), names[i]);
		CU_ASSERT_FATAL(raw_read(path, &r) == 0);
		snprintf(buf, sizeof(buf), "%s", r.drivers);
		for (t = strtok_r(buf, " ,", &save); t != NULL; t = strtok_r(NULL, " ,", &save)) {
			for (k = 0; k < nb; k++)
				EXPECT(strcmp(seen[k], t) != 0, "driver %s in %s and %s", t,
					from[k], names[i]);
			if (nb < 64) {
				dp_strlcpy(seen[nb], t, 64);
				dp_strlcpy(from[nb++], names[i], 64);
			}
		}
	}
	/* and every driver name known here has its profile */
	for (i = 0; pci_drivers[i] != NULL; i++) {
		for (k = 0; k < nb && strcmp(seen[k], pci_drivers[i]) != 0; k++)
			;
		EXPECT(k < nb, "no profile lists %s", pci_drivers[i]);
	}
	for (i = 0; vdev_drivers[i] != NULL; i++) {
		for (k = 0; k < nb && strcmp(seen[k], vdev_drivers[i]) != 0; k++)
			;
		EXPECT(k < nb, "no profile lists %s", vdev_drivers[i]);
	}
}

/* A paragraph of a guide: from @p start to the next "\n- ``" (the next key). */
static bool
doc_has(const char *doc, const char *key, const char *after, const char *word)
{
	char pat[128];
	const char *p, *end;

	snprintf(pat, sizeof(pat), "- ``%s``%s", key, after);
	p = strstr(doc, pat);
	if (p == NULL)
		return false;
	if (word == NULL)
		return true;
	end = strstr(p + strlen(pat), "\n- ``");
	end = end != NULL ? end : p + strlen(p);
	for (; p + strlen(word) <= end; p++)
		if (strncmp(p, word, strlen(word)) == 0)
			return true;
	return false;
}

/*
 * The devargs lists above against the guides of the installed dpdk-doc (the same
 * 22.11): every key there, deprecated where they say so, and no key the guides
 * document is missing from the lists.
 */
static void
test_devargs_lists_match_the_dpdk_guides(void)
{
	char *nics = dp_test_read_file(DOC_DIR "/nics/mlx5.rst.txt");
	char *platform = dp_test_read_file(DOC_DIR "/platform/mlx5.rst.txt");
	char *ixgbe = dp_test_read_file(DOC_DIR "/nics/ixgbe.rst.txt");
	const struct devarg *d;
	const char *p;
	int documented = 0, listed = 0;

	if (nics == NULL || platform == NULL || ixgbe == NULL) {
		not_checked("the devargs lists against the DPDK guides: dpdk-doc is not installed "
			    "(" DOC_DIR ")");
		goto out;
	}
	for (d = mlx5_devargs; d->key != NULL; d++) {
		bool in_nics = doc_has(nics, d->key, " parameter [", NULL);
		const char *doc = in_nics ? nics : platform;

		listed++;
		EXPECT(in_nics || doc_has(platform, d->key, " parameter [", NULL),
			"mlx5 %s is not in the mlx5 guides", d->key);
		EXPECT(doc_has(doc, d->key, " parameter [", "deprecated") == d->deprecated,
			"mlx5 %s: the guide %s it deprecated", d->key,
			d->deprecated ? "does not call" : "calls");
		EXPECT(doc_has(doc, d->key, " parameter [int]", NULL) == d->is_int,
			"mlx5 %s: the guide %s it [int]", d->key,
			d->is_int ? "does not call" : "calls");
	}
	for (p = nics; (p = strstr(p, "\n- ``")) != NULL; p++)
		documented += strstr(p, "`` parameter [") == strchr(p + 5, '`');
	for (p = platform; (p = strstr(p, "\n- ``")) != NULL; p++)
		documented += strstr(p, "`` parameter [") == strchr(p + 5, '`');
	EXPECT(documented == listed, "the mlx5 guides document %d keys, the list has %d",
		documented, listed);
	for (d = ixgbe_devargs; d->key != NULL; d++)
		EXPECT(doc_has(ixgbe, d->key, " (default", NULL), "ixgbe %s is not in ixgbe.rst",
			d->key);
out:
	free(nics);
	free(platform);
	free(ixgbe);
}

/* A misspelled offload fails the parse with file:line; a misspelled devargs key, the check. */
static void
test_wrong_profile_fails_with_file_and_line(void)
{
	static const struct {
		const char *text;
		int line;
		const char *says;
	} bad_parse[] = {
		{ "[profile]\ndrivers = net_null\nrx_offloads = ipv4_cksum udp_chksum\n", 3,
			"unknown RX offload 'udp_chksum'" },
		{ "[profile]\ndrivers = net_null\n\ntx_offloads = mbuf_fastfree\n", 4,
			"unknown TX offload 'mbuf_fastfree'" },
		/* DPDK's name of its unnamed bits is no offload */
		{ "[profile]\nrx_offloads = unknown\n", 2, "unknown RX offload 'unknown'" },
		{ "[profile]\nrss_hf = ip udp4\n", 2, "unknown rss_hf 'udp4'" },
	};
	char path[PATH_MAX], msg[2048];
	struct dp_port_profile p;
	struct raw_profile r;
	unsigned int i;

	for (i = 0; i < DP_ARRAY_SIZE(bad_parse); i++) {
		char err[DP_CONFIG_ERR_LEN] = "", where[PATH_MAX + 16];
		int rc;

		dp_test_write_file(tmpdir, "bad.ini", bad_parse[i].text, path, sizeof(path));
		rc = dp_port_profile_load(path, &p, err, sizeof(err));
		snprintf(where, sizeof(where), "%s:%d: ", path, bad_parse[i].line);
		CU_ASSERT_EQUAL(rc, -EINVAL);
		EXPECT(strstr(err, where) == err && strstr(err, bad_parse[i].says) != NULL,
			"case %u: '%s'", i, err);
	}
	/* the parser takes any devargs; this test's check does not */
	dp_test_write_file(tmpdir, "bad-devargs.ini",
		"[profile]\ndrivers = mlx5_pci\nrx_offloads = none\ntx_offloads = none\n"
		"rss_hf = none\ndevargs = mprq_en=1,mprq_enable=1,txq_inline=64,rxqs_min_mprq=x\n",
		path, sizeof(path));
	CU_ASSERT_FATAL(dp_port_profile_load(path, &p, msg, sizeof(msg)) == 0);
	CU_ASSERT_FATAL(raw_read(path, &r) == 0);
	msg[0] = '\0';
	CU_ASSERT_EQUAL(raw_check(&r, &p, msg, sizeof(msg)), 3);
	EXPECT(strstr(msg, "bad-devargs.ini:6: devargs key 'mprq_enable' is not documented") &&
			strstr(msg, "bad-devargs.ini:6: devargs key 'txq_inline' is deprecated") &&
			strstr(msg,
				"bad-devargs.ini:6: devargs 'rxqs_min_mprq=x' wants an integer"),
		"%s", msg);
	/* and a virtual device's profile with devargs, which would never reach its vdev */
	dp_test_write_file(tmpdir, "vdev-devargs.ini",
		"[profile]\ndrivers = net_pcap\nrx_offloads = none\ntx_offloads = none\n"
		"rss_hf = none\ndevargs = infinite_rx=1\n",
		path, sizeof(path));
	CU_ASSERT_FATAL(raw_read(path, &r) == 0);
	msg[0] = '\0';
	CU_ASSERT_EQUAL(raw_check(&r, NULL, msg, sizeof(msg)), 1);
	EXPECT(strstr(msg, "vdev-devargs.ini:6: devargs for a driver") != NULL, "%s", msg);
}

/* ---- masking, with dev_info built here ---- */

static char *logbuf;
static size_t loglen;
static FILE *log_stream;

static void
log_free(void)
{
	free(logbuf);
	logbuf = NULL;
}

/* dp_port_offloads_mask(), and what it logged (log_free() it) */
static const char *
mask_logged(const struct dp_port_profile *p, const struct rte_eth_dev_info *info, uint16_t nb_rxq,
	bool chained, const char *who, struct dp_port_offloads *off)
{
	log_stream = open_memstream(&logbuf, &loglen);
	CU_ASSERT_FATAL(log_stream != NULL);
	rte_log_set_level_pattern("dpfwd.port", RTE_LOG_INFO);
	rte_openlog_stream(log_stream);
	dp_port_offloads_mask(p, info, nb_rxq, chained, who, off);
	rte_openlog_stream(NULL);
	fclose(log_stream);
	return logbuf;
}

static void
profile_get(const char *name, struct dp_port_profile *p)
{
	char path[PATH_MAX], err[DP_CONFIG_ERR_LEN] = "";

	snprintf(path, sizeof(path), "%s/drivers-cfg/%s.ini", src_dir(), name);
	EXPECT(dp_port_profile_load(path, p, err, sizeof(err)) == 0, "%s", err);
}

/* A ConnectX as mlx5 describes one without MPRQ: all the profile asks for is there. */
static void
mlx5_like(struct rte_eth_dev_info *info)
{
	memset(info, 0, sizeof(*info));
	info->rx_offload_capa = RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM |
				RTE_ETH_RX_OFFLOAD_TCP_CKSUM | RTE_ETH_RX_OFFLOAD_RSS_HASH |
				RTE_ETH_RX_OFFLOAD_SCATTER | RTE_ETH_RX_OFFLOAD_TCP_LRO;
	info->tx_offload_capa = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM |
				RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_MULTI_SEGS |
				RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE | RTE_ETH_TX_OFFLOAD_TCP_TSO;
	info->flow_type_rss_offloads = RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP;
}

static void
test_mask_port_with_the_offloads_requests_all(void)
{
	const uint64_t cksums = RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM |
				RTE_ETH_RX_OFFLOAD_TCP_CKSUM;
	struct rte_eth_dev_info info;
	struct dp_port_profile p;
	struct dp_port_offloads off;
	const char *log;

	profile_get("net_mlx5", &p);
	mlx5_like(&info);
	log = mask_logged(&p, &info, 4, false, "port0 0000:3b:00.0", &off);
	CU_ASSERT_EQUAL(off.rx, cksums);
	CU_ASSERT_EQUAL(off.tx, RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE);
	CU_ASSERT_EQUAL(off.rss_hf, RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP);
	CU_ASSERT_EQUAL(off.rx_dropped | off.tx_dropped | off.rss_dropped, 0);
	EXPECT(log == NULL || strstr(log, "not requested") == NULL, "logged: %s", log);
	log_free();

	/* the same on ixgbe: RX checksums, no TX offload at all (the vector TX path) */
	profile_get("net_ixgbe", &p);
	dp_port_offloads_mask(&p, &info, 2, false, "port0 0000:01:00.0", &off);
	CU_ASSERT_EQUAL(off.rx, cksums);
	CU_ASSERT_EQUAL(off.tx, 0);
	CU_ASSERT_EQUAL(off.rss_hf, RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP);
}

static void
test_mask_port_without_the_offloads_logs_each_dropped(void)
{
	struct rte_eth_dev_info info;
	struct dp_port_profile p;
	struct dp_port_offloads off;
	const char *log;

	profile_get("net_mlx5", &p);
	memset(&info, 0, sizeof(info)); /* a device that offers nothing */
	log = mask_logged(&p, &info, 4, false, "port1 0000:3b:00.1", &off);
	CU_ASSERT_EQUAL(off.rx, 0);
	CU_ASSERT_EQUAL(off.tx, 0);
	CU_ASSERT_EQUAL(off.rss_hf, 0);
	CU_ASSERT_EQUAL(off.rx_dropped, RTE_ETH_RX_OFFLOAD_IPV4_CKSUM |
						RTE_ETH_RX_OFFLOAD_UDP_CKSUM |
						RTE_ETH_RX_OFFLOAD_TCP_CKSUM);
	CU_ASSERT_EQUAL(off.tx_dropped, RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE);
	CU_ASSERT_EQUAL(off.rss_dropped, RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP);
	EXPECT(log != NULL &&
			strstr(log, "port1 0000:3b:00.1: the device does not offer RX offloads "
				    "[ipv4_cksum udp_cksum tcp_cksum] of profile net_mlx5: not "
				    "requested") &&
			strstr(log, "port1 0000:3b:00.1: the device does not offer TX offloads "
				    "[mbuf_fast_free] of profile net_mlx5: not requested") &&
			strstr(log, "port1 0000:3b:00.1: the device does not hash on RSS fields "
				    "[ip udp tcp] of profile net_mlx5: not requested"),
		"logged: %s", log);
	log_free();

	/* in part: IPv4 header checksums only; RSS on IP and UDP but not TCP */
	info.rx_offload_capa = RTE_ETH_RX_OFFLOAD_IPV4_CKSUM;
	info.flow_type_rss_offloads = RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP;
	log = mask_logged(&p, &info, 2, false, "port1 x", &off);
	CU_ASSERT_EQUAL(off.rx, RTE_ETH_RX_OFFLOAD_IPV4_CKSUM);
	CU_ASSERT_EQUAL(off.rss_hf, RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP);
	CU_ASSERT_EQUAL(off.rss_dropped, RTE_ETH_RSS_TCP);
	EXPECT(log != NULL && strstr(log, "RX offloads [udp_cksum tcp_cksum] of") &&
			strstr(log, "RSS fields [tcp] of"),
		"logged: %s", log);
	log_free();
}

/* ethdev refuses rss_hash without RSS: asked for by a profile, it goes with one queue. */
static void
test_mask_rss_hash_only_with_rss(void)
{
	char path[PATH_MAX], err[DP_CONFIG_ERR_LEN] = "";
	struct rte_eth_dev_info info;
	struct dp_port_profile p;
	struct dp_port_offloads off;
	const char *log;

	dp_test_write_file(tmpdir, "rss-hash.ini",
		"[profile]\ndrivers = x\nrx_offloads = ipv4_cksum rss_hash\nrss_hf = ip udp\n",
		path, sizeof(path));
	CU_ASSERT_FATAL(dp_port_profile_load(path, &p, err, sizeof(err)) == 0);
	mlx5_like(&info);
	log = mask_logged(&p, &info, 1, false, "port0 x", &off);
	CU_ASSERT_EQUAL(off.rss_hf, 0);
	CU_ASSERT_EQUAL(off.rx, RTE_ETH_RX_OFFLOAD_IPV4_CKSUM);
	CU_ASSERT_EQUAL(off.rx_dropped, RTE_ETH_RX_OFFLOAD_RSS_HASH);
	EXPECT(log != NULL &&
			strstr(log, "port0 x: rss_hash not requested: RSS is off (1 RX queue)"),
		"logged: %s", log);
	log_free();
	dp_port_offloads_mask(&p, &info, 2, false, "port0 x", &off);
	CU_ASSERT_EQUAL(off.rss_hf, RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP);
	CU_ASSERT_EQUAL(off.rx, RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | RTE_ETH_RX_OFFLOAD_RSS_HASH);
	/* RSS asked for on fields the device does not hash on: off, and rss_hash with it */
	info.flow_type_rss_offloads = RTE_ETH_RSS_SCTP;
	dp_port_offloads_mask(&p, &info, 2, false, "port0 x", &off);
	CU_ASSERT_EQUAL(off.rss_hf, 0);
	CU_ASSERT_EQUAL(off.rx, RTE_ETH_RX_OFFLOAD_IPV4_CKSUM);
}

/* Endpoints send chained mbufs with external buffers: multi_segs, never mbuf_fast_free. */
static void
test_mask_chained_tx_wants_multi_segs_not_fast_free(void)
{
	struct rte_eth_dev_info info;
	struct dp_port_profile p;
	struct dp_port_offloads off;
	const char *log;

	profile_get("net_mlx5", &p);
	mlx5_like(&info);
	log = mask_logged(&p, &info, 1, true, "port0 y", &off);
	CU_ASSERT_EQUAL(off.tx, RTE_ETH_TX_OFFLOAD_MULTI_SEGS);
	CU_ASSERT_EQUAL(off.tx_dropped, RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE);
	EXPECT(log != NULL && strstr(log, "port0 y: mbuf_fast_free not requested: endpoints"),
		"logged: %s", log);
	log_free();
	/* a device without multi_segs: said once */
	info.tx_offload_capa = RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
	log = mask_logged(&p, &info, 1, true, "port0 y", &off);
	CU_ASSERT_EQUAL(off.tx, 0);
	EXPECT(log != NULL && strstr(log, "port0 y: the device does not offer multi_segs"),
		"logged: %s", log);
	log_free();
}

/* ---- the PCI path ---- */

static void
test_pci_dev_vectors(void)
{
	static const struct {
		const char *dev;
		bool pci;
	} v[] = {
		{ "0000:af:00.0", true },
		{ "af:00.0", true },
		{ "0000:3b:00.1,mprq_en=1", true },
		{ "net_null0", false },
		{ "net_pcap0,rx_pcap=a.pcap", false },
		{ "0000:af:00", false },
	};
	unsigned int i;

	for (i = 0; i < DP_ARRAY_SIZE(v); i++)
		EXPECT(dp_port_dev_is_pci(v[i].dev) == v[i].pci, "%s", v[i].dev);
}

static void
test_pci_arg_adds_profile_devargs(void)
{
	char buf[64];

	CU_ASSERT_EQUAL(
		dp_port_pci_arg("0000:af:00.0", "mprq_en=1,rxqs_min_mprq=1", buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "0000:af:00.0,mprq_en=1,rxqs_min_mprq=1");
	/* devargs in dev are the user's: the profile's are not added */
	CU_ASSERT_EQUAL(
		dp_port_pci_arg("0000:af:00.0,mprq_en=0", "mprq_en=1", buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "0000:af:00.0,mprq_en=0");
	CU_ASSERT_EQUAL(dp_port_pci_arg("af:00.0", "", buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "af:00.0");
	CU_ASSERT_EQUAL(dp_port_pci_arg("0000:af:00.0", "txq_inline_max=128", buf, 20), -E2BIG);
}

static int
argv_find(char **argv, int n, const char *s)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(argv[i], s) == 0)
			return i;
	return -1;
}

/* A config's PCI ports become -a, with the devargs of the profile it names. */
static void
test_eal_args_pci_port_with_profile_devargs(void)
{
	char ini[PATH_MAX + 512], path[PATH_MAX], want[512], prof[PATH_MAX];
	char err[DP_CONFIG_ERR_LEN] = "";
	char *argv[16], *user[] = { "dpfwd", "-l", "0,1", NULL },
			*user_a[] = { "dpfwd", "-a", "0000:01:00.0", NULL };
	struct raw_profile r;
	struct dp_config cfg;
	int n, i, k;

	/* what the mlx5 profile says, read here */
	snprintf(prof, sizeof(prof), "%s/drivers-cfg/net_mlx5.ini", src_dir());
	CU_ASSERT_FATAL(raw_read(prof, &r) == 0 && r.devargs[0] != '\0');
	snprintf(want, sizeof(want), "0000:af:00.0,%s", r.devargs);
	snprintf(ini, sizeof(ini),
		"[dpfwd]\ndrivers_cfg = %s/drivers-cfg\n"
		"[port0]\ndev = 0000:af:00.0\nprofile = net_mlx5\n"
		"[port1]\ndev = af:00.1\n"
		"[port2]\ndev = net_null0\n",
		src_dir());
	dp_test_write_file(tmpdir, "pci.ini", ini, path, sizeof(path));
	dp_config_init(&cfg);
	CU_ASSERT_FATAL(dp_config_load(&cfg, path, err, sizeof(err)) == 0);
	n = dp_port_eal_args(&cfg, 3, user, argv, (int)DP_ARRAY_SIZE(argv));
	CU_ASSERT_EQUAL_FATAL(n, 5);
	k = argv_find(argv, n, want);
	EXPECT(k == 1 && strcmp(argv[0], "-a") == 0, "want -a %s", want);
	/* no profile named: no devargs (the driver is known only after EAL probed) */
	k = argv_find(argv, n, "af:00.1");
	EXPECT(k == 3 && strcmp(argv[2], "-a") == 0, "-a af:00.1");
	CU_ASSERT_EQUAL(argv_find(argv, n, "--vdev=net_null0"), 4);
	CU_ASSERT_EQUAL(argv_find(argv, n, "--no-pci"), -1);
	for (i = 0; i < n; i++)
		free(argv[i]);
	/* -a given by hand: dpfwd adds none */
	n = dp_port_eal_args(&cfg, 3, user_a, argv, (int)DP_ARRAY_SIZE(argv));
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_STRING_EQUAL(argv[0], "--vdev=net_null0");
	free(argv[0]);
	/* too little room: said, not cut */
	CU_ASSERT_EQUAL(dp_port_eal_args(&cfg, 3, user, argv, 3), -E2BIG);
	dp_config_free(&cfg);
}

static void
sysfs_dev(const char *sysfs, const char *addr, const char *driver)
{
	char path[PATH_MAX + 64], target[PATH_MAX];

	snprintf(path, sizeof(path), "%s/devices/%s", sysfs, addr);
	CU_ASSERT_FATAL(mkdir(path, 0755) == 0);
	if (driver == NULL)
		return;
	snprintf(target, sizeof(target), "../../../bus/pci/drivers/%s", driver);
	snprintf(path, sizeof(path), "%s/devices/%s/driver", sysfs, addr);
	CU_ASSERT_FATAL(symlink(target, path) == 0);
}

/* Why a PCI port is missing, from a sysfs tree made here; each says what to do. */
static void
test_pci_diagnose_says_what_is_missing(void)
{
	static const struct {
		const char *dev;
		const char *says[3];
	} v[] = {
		{ "0000:af:00.0",
			{ "there is no PCI device 0000:af:00.0 on this machine",
				"dpdk-devbind.py --status", "dpdk-devbind.py -b vfio-pci" } },
		/* as a config may write it: no domain, upper case */
		{ "AF:00.0", { "there is no PCI device 0000:af:00.0", NULL, NULL } },
		{ "0000:3b:00.0", { "0000:3b:00.0 is a ConnectX on mlx5_core", "install rdma-core",
					  "ibv_devices" } },
		{ "0000:01:00.0", { "0000:01:00.0 is bound to the kernel's ixgbe driver",
					  "dpdk-devbind.py -b vfio-pci 0000:01:00.0",
					  "dpdk-devbind.py --status" } },
		{ "0000:01:00.1", { "0000:01:00.1 is bound to vfio-pci, but no DPDK driver took it",
					  "dpdk-devbind.py --status", "EAL log" } },
		{ "0000:02:00.0", { "0000:02:00.0 has no driver",
					  "dpdk-devbind.py -b vfio-pci 0000:02:00.0", NULL } },
	};
	char sysfs[PATH_MAX], path[PATH_MAX + 16];
	unsigned int i, k;

	snprintf(sysfs, sizeof(sysfs), "%s/sys", tmpdir);
	CU_ASSERT_FATAL(mkdir(sysfs, 0755) == 0);
	snprintf(path, sizeof(path), "%s/devices", sysfs);
	CU_ASSERT_FATAL(mkdir(path, 0755) == 0);
	sysfs_dev(sysfs, "0000:3b:00.0", "mlx5_core");
	sysfs_dev(sysfs, "0000:01:00.0", "ixgbe");
	sysfs_dev(sysfs, "0000:01:00.1", "vfio-pci");
	sysfs_dev(sysfs, "0000:02:00.0", NULL);
	for (i = 0; i < DP_ARRAY_SIZE(v); i++) {
		char why[1024];

		dp_port_pci_diagnose(path, v[i].dev, why, sizeof(why));
		for (k = 0; k < 3 && v[i].says[k] != NULL; k++)
			EXPECT(strstr(why, v[i].says[k]) != NULL, "%s: '%s' lacks '%s'", v[i].dev,
				why, v[i].says[k]);
	}
}

/* ---- the virtual devices this machine can make ---- */

struct vdev_case {
	const char *args;    /**< --vdev, "%s" the test's folder */
	const char *profile; /**< the one its driver name picks */
	bool root;           /**< needs CAP_NET_ADMIN / CAP_NET_RAW */
};

/* net_af_xdp and net_virtio_user are not made here: XDP on an interface, vhost-net */
static const struct vdev_case vdevs[] = {
	{ "net_null0", "net_null", false },
	{ "net_ring0", "net_ring", false },
	{ "net_pcap0,rx_pcap=%s/in.pcap,tx_pcap=%s/out.pcap", "net_pcap", false },
	{ "net_memif0,role=server,id=0,socket=%s/memif.sock", "net_memif", false },
	{ "net_af_packet0,iface=lo", "net_af_packet", true },
	{ "net_tap0,iface=dpprof%d", "net_tap", true },
};

static bool eal_up;

static int
eal_start(void)
{
	char prefix[64], args[DP_ARRAY_SIZE(vdevs)][PATH_MAX + 128], pcap[PATH_MAX];
	char *eal[32] = { "test_port_profiles", "-l", "0", "--no-huge", "-m", "256", "--no-pci",
		"--no-shconf", "--no-telemetry", "--log-level", "*:warning" };
	/* a pcap file with no packet: the global header (24 bytes, LINKTYPE_ETHERNET) */
	static const uint8_t pcap_hdr[24] = { 0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0xff, 0xff, 0, 0, 1, 0, 0, 0 };
	int n = 11;
	unsigned int i;
	FILE *f;

	snprintf(pcap, sizeof(pcap), "%s/in.pcap", tmpdir);
	f = fopen(pcap, "wb");
	if (f == NULL || fwrite(pcap_hdr, 1, sizeof(pcap_hdr), f) != sizeof(pcap_hdr))
		return -1;
	fclose(f);
	snprintf(prefix, sizeof(prefix), "dpfwd-test-profiles-%d", (int)getpid());
	eal[n++] = "--file-prefix";
	eal[n++] = prefix;
	for (i = 0; i < DP_ARRAY_SIZE(vdevs); i++) {
		if (vdevs[i].root && geteuid() != 0)
			continue;
		if (strstr(vdevs[i].args, "%d") != NULL)
			snprintf(args[i], sizeof(args[i]), vdevs[i].args, (int)getpid() % 100000);
		else
			snprintf(args[i], sizeof(args[i]), vdevs[i].args, tmpdir, tmpdir);
		eal[n++] = "--vdev";
		eal[n++] = args[i];
	}
	eal[n] = NULL;
	if (rte_eal_init(n, eal) < 0)
		return -1;
	eal_up = true;
	return 0;
}

/*
 * Each device's driver name picks its profile, and the profile asks only for
 * offloads and RSS fields that the driver reports, and an mtu in its range
 * (rte_eth_dev_info_get): the PMD is the oracle.
 */
static void
test_virtual_profiles_ask_what_their_pmd_offers(void)
{
	unsigned int i, probed = 0;

	CU_ASSERT_FATAL(eal_up);
	for (i = 0; i < DP_ARRAY_SIZE(vdevs); i++) {
		char name[64], dir[PATH_MAX], err[DP_CONFIG_ERR_LEN] = "";
		struct rte_eth_dev_info info;
		struct dp_port_profile p;
		uint32_t overhead;
		uint16_t id;
		bool found = false;

		if (vdevs[i].root && geteuid() != 0) {
			char what[128];

			snprintf(what, sizeof(what), "profile %s against its PMD (needs root)",
				vdevs[i].profile);
			not_checked(what);
			continue;
		}
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(vdevs[i].args, ","),
			vdevs[i].args);
		if (rte_eth_dev_get_port_by_name(name, &id) != 0) {
			EXPECT(false, "%s was not made", name);
			continue;
		}
		CU_ASSERT_FATAL(rte_eth_dev_info_get(id, &info) == 0);
		snprintf(dir, sizeof(dir), "%s/drivers-cfg", src_dir());
		CU_ASSERT(dp_port_profile_find(
				  dir, "", info.driver_name, &p, &found, err, sizeof(err)) == 0);
		EXPECT(found && strcmp(p.name, vdevs[i].profile) == 0,
			"%s: driver %s picks profile %s", name, info.driver_name,
			found ? p.name : "(none)");
		EXPECT((p.rx_offloads & ~info.rx_offload_capa) == 0,
			"%s: profile %s asks RX 0x%" PRIx64 ", the PMD offers 0x%" PRIx64, name,
			p.name, p.rx_offloads, info.rx_offload_capa);
		EXPECT((p.tx_offloads & ~info.tx_offload_capa) == 0,
			"%s: profile %s asks TX 0x%" PRIx64 ", the PMD offers 0x%" PRIx64, name,
			p.name, p.tx_offloads, info.tx_offload_capa);
		EXPECT((p.rss_hf & ~info.flow_type_rss_offloads) == 0,
			"%s: profile %s asks RSS 0x%" PRIx64 ", the PMD hashes on 0x%" PRIx64, name,
			p.name, p.rss_hf, info.flow_type_rss_offloads);
		/* as ethdev checks an MTU (rte_ethdev.c 22.11, eth_dev_validate_mtu): in
		 * min_mtu..max_mtu, and with the header overhead within max_rx_pktlen */
		overhead = info.max_mtu != UINT16_MAX && info.max_rx_pktlen > info.max_mtu
				   ? info.max_rx_pktlen - info.max_mtu
				   : RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;
		EXPECT(p.mtu == 0 || (p.mtu >= info.min_mtu && p.mtu <= info.max_mtu &&
					     p.mtu + overhead <= info.max_rx_pktlen),
			"%s: profile %s sets mtu %u, the PMD takes %u..%u and frames up to %u",
			name, p.name, p.mtu, info.min_mtu, info.max_mtu, info.max_rx_pktlen);
		/* RSS fields only where there can be several queues to spread over */
		EXPECT(p.rss_hf == 0 || info.max_rx_queues > 1, "%s: RSS with at most %u queue",
			name, info.max_rx_queues);
		probed++;
	}
	printf("\n  %u virtual devices probed\n", probed);
}

/* ---- suite ---- */

static int
suite_init(void)
{
	return dp_test_tmpdir_make(tmpdir, sizeof(tmpdir), "profiles");
}

static int
suite_cleanup(void)
{
	if (eal_up) {
		uint16_t id;

		RTE_ETH_FOREACH_DEV(id)
		rte_eth_dev_close(id); /* net_tap removes its interface */
		dp_dir_remove_flat(rte_eal_get_runtime_dir());
		rte_eal_cleanup();
	}
	if (tmpdir[0] != '\0')
		dp_test_rm_rf(tmpdir);
	return 0;
}

static void
test_eal_with_the_virtual_devices(void)
{
	CU_ASSERT_FATAL(eal_start() == 0);
}

static const struct dp_test tests[] = {
	{ "test_offload_tables_match_dpdk_names", test_offload_tables_match_dpdk_names },
	{ "test_every_profile_parses_and_names_what_dpdk_knows",
		test_every_profile_parses_and_names_what_dpdk_knows },
	{ "test_each_driver_is_in_one_profile", test_each_driver_is_in_one_profile },
	{ "test_devargs_lists_match_the_dpdk_guides", test_devargs_lists_match_the_dpdk_guides },
	{ "test_wrong_profile_fails_with_file_and_line",
		test_wrong_profile_fails_with_file_and_line },
	{ "test_mask_port_with_the_offloads_requests_all",
		test_mask_port_with_the_offloads_requests_all },
	{ "test_mask_port_without_the_offloads_logs_each_dropped",
		test_mask_port_without_the_offloads_logs_each_dropped },
	{ "test_mask_rss_hash_only_with_rss", test_mask_rss_hash_only_with_rss },
	{ "test_mask_chained_tx_wants_multi_segs_not_fast_free",
		test_mask_chained_tx_wants_multi_segs_not_fast_free },
	{ "test_pci_dev_vectors", test_pci_dev_vectors },
	{ "test_pci_arg_adds_profile_devargs", test_pci_arg_adds_profile_devargs },
	{ "test_eal_args_pci_port_with_profile_devargs",
		test_eal_args_pci_port_with_profile_devargs },
	{ "test_pci_diagnose_says_what_is_missing", test_pci_diagnose_says_what_is_missing },
	{ "test_eal_with_the_virtual_devices", test_eal_with_the_virtual_devices },
	{ "test_virtual_profiles_ask_what_their_pmd_offers",
		test_virtual_profiles_ask_what_their_pmd_offers },
	{ NULL, NULL },
};

int
main(void)
{
	return dp_test_run("port_profiles", tests, suite_init, suite_cleanup);
}
