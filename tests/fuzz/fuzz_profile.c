/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target over the driver profile reader (drivers-cfg/<name>.ini,
 * src/port/port.c): dp_port_profile_load(), dp_port_profile_find() and the EAL
 * arguments a profile's devargs end up in, dp_port_eal_args(). No EAL: none of
 * them needs it (DPDK's offload names are a table).
 *
 * Each input is one profile file, written as fuzz.ini into a private folder
 * (made once, rewritten for each input) that holds nothing else. If its last
 * line (after the last newline) starts with "--dev ", the rest of that line is
 * not part of the file but the dev of a port that names the profile;
 * otherwise the port is the PCI address 0000:3b:00.0.
 *
 * Checked:
 *   - a load returns 0 or -EINVAL, and a refusal leaves a terminated message
 *     "<file>:<line>: " with a line of the file;
 *   - a profile that loads keeps its promises: descriptors 32..32768, only
 *     offloads that DPDK names, RSS hash fields that are whole groups of
 *     rss_hf's names, terminated strings;
 *   - written back as a profile (offloads as dp_port_offload_str() prints
 *     them, "#" escaped where rte_cfgfile needs it), it loads into the same
 *     profile;
 *   - dp_port_profile_find() without a name finds it by each driver its
 *     "drivers" lists (words between spaces, tabs and commas), and not by a
 *     name it does not list; by name, it loads the same;
 *   - dp_port_eal_args() gives "-a <dev>[,<devargs>]" for a PCI dev (the
 *     profile's devargs when it loads and the dev has none of its own) and
 *     "--vdev=<dev>" then "--no-pci" for any other;
 *   - nothing leaks (LeakSanitizer).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_ethdev.h>

#include "dp_common.h"
#include "dp_config.h"
#include "dp_port.h"
#include "fuzz_tmpdir.h"

#define DEV_MARK    "--dev "
#define DEFAULT_DEV "0000:3b:00.0"
/* what the buffers hold before a call: a message must overwrite and end it */
#define ERR_FILL 0x5a
#define MAX_ARGS 8

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *path;  /* the profile: <folder>/fuzz.ini */
static const char *again; /* its text written back: <folder>/again.txt (not *.ini) */

/* rss_hf's names (port.c): a profile's hash fields are a union of these */
static const uint64_t rss_groups[] = { RTE_ETH_RSS_IP, RTE_ETH_RSS_UDP, RTE_ETH_RSS_TCP,
	RTE_ETH_RSS_SCTP };
static const char *const rss_group_names[] = { "ip", "udp", "tcp", "sctp" };

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_tmp_make("fuzz_profile", "profile");
	path = fuzz_tmp_input("fuzz.ini");
	again = fuzz_tmp_file("again.txt");
	return 0;
}

static void
check_str(const char *s, size_t size, const char *what)
{
	if (memchr(s, '\0', size) == NULL)
		fuzz_die("%s not terminated", what);
}

/* What a profile that loaded promises. */
static void
check_profile(const struct dp_port_profile *p)
{
	uint64_t rss = 0;
	unsigned int bit, i;

	check_str(p->name, sizeof(p->name), "name");
	check_str(p->drivers, sizeof(p->drivers), "drivers");
	check_str(p->devargs, sizeof(p->devargs), "devargs");
	check_str(p->notes, sizeof(p->notes), "notes");
	if (strcmp(p->name, "fuzz") != 0)
		fuzz_die("profile named '%s', not after its file", p->name);
	if (p->rx_desc < 32 || p->rx_desc > 32768 || p->tx_desc < 32 || p->tx_desc > 32768)
		fuzz_die("descriptors %u/%u kept", p->rx_desc, p->tx_desc);
	for (bit = 0; bit < 64; bit++) {
		uint64_t m = 1ULL << bit;

		if ((p->rx_offloads & m) && strcmp(rte_eth_dev_rx_offload_name(m), "UNKNOWN") == 0)
			fuzz_die("RX offload bit %u has no name", bit);
		if ((p->tx_offloads & m) && strcmp(rte_eth_dev_tx_offload_name(m), "UNKNOWN") == 0)
			fuzz_die("TX offload bit %u has no name", bit);
	}
	for (i = 0; i < DP_ARRAY_SIZE(rss_groups); i++)
		if ((p->rss_hf & rss_groups[i]) == rss_groups[i])
			rss |= rss_groups[i];
	if (rss != p->rss_hf)
		fuzz_die("rss_hf %#" PRIx64 " is not a union of ip, udp, tcp, sctp", p->rss_hf);
}

static bool
same_profile(const struct dp_port_profile *a, const struct dp_port_profile *b)
{
	return strcmp(a->name, b->name) == 0 && strcmp(a->drivers, b->drivers) == 0 &&
	       a->rx_desc == b->rx_desc && a->tx_desc == b->tx_desc &&
	       a->rx_offloads == b->rx_offloads && a->tx_offloads == b->tx_offloads &&
	       a->rss_hf == b->rss_hf && strcmp(a->devargs, b->devargs) == 0 &&
	       strcmp(a->notes, b->notes) == 0 && a->ip4_whole_max == b->ip4_whole_max &&
	       a->mtu == b->mtu && a->tx_keeps_sent == b->tx_keeps_sent &&
	       a->rx_headroom == b->rx_headroom && a->buf_max == b->buf_max &&
	       a->tx_first_seg_only == b->tx_first_seg_only;
}

/*
 * "key=value" as short as rte_cfgfile reads it back: only the line's first "#"
 * starts a comment unless a backslash precedes it, and every "\#" loses its
 * backslash. So the first "#" and any "#" after a "\" are escaped, the others
 * written bare, with no spaces around "=": an input line at the length limit,
 * written back, still fits. Nothing when empty.
 */
static void
put_str(FILE *f, const char *key, const char *v)
{
	bool hash_seen = false;
	char prev = '\0';

	if (v[0] == '\0')
		return;
	fprintf(f, "%s=", key);
	for (; *v != '\0'; prev = *v++) {
		if (*v == '#' && (!hash_seen || prev == '\\'))
			fputc('\\', f);
		hash_seen |= *v == '#';
		fputc(*v, f);
	}
	fputc('\n', f);
}

/* @p p written back as profile text and read again must be @p p. */
static void
check_round_trip(const struct dp_port_profile *p)
{
	char rx[1024], tx[1024], err[DP_CONFIG_ERR_LEN];
	struct dp_port_profile q;
	unsigned int i;
	FILE *f;
	int rc;

	dp_port_offload_str(p->rx_offloads, true, rx, sizeof(rx));
	dp_port_offload_str(p->tx_offloads, false, tx, sizeof(tx));
	f = fopen(again, "w");
	if (f == NULL)
		fuzz_die("%s: %s", again, strerror(errno));
	fprintf(f,
		"[profile]\nrx_desc=%u\ntx_desc=%u\nip4_whole_max=%u\nmtu=%u\ntx_keeps_sent=%s\n"
		"rx_headroom=%u\nbuf_max=%u\ntx_first_seg_only=%s\n",
		p->rx_desc, p->tx_desc, p->ip4_whole_max, p->mtu, p->tx_keeps_sent ? "on" : "off",
		p->rx_headroom, p->buf_max, p->tx_first_seg_only ? "on" : "off");
	fprintf(f, "rx_offloads=%s\ntx_offloads=%s\nrss_hf=none", rx[0] ? rx : "none",
		tx[0] ? tx : "none");
	for (i = 0; i < DP_ARRAY_SIZE(rss_groups); i++)
		if (p->rss_hf & rss_groups[i])
			fprintf(f, " %s", rss_group_names[i]);
	fputc('\n', f);
	put_str(f, "drivers", p->drivers);
	put_str(f, "devargs", p->devargs);
	put_str(f, "notes", p->notes);
	if (fclose(f) != 0)
		fuzz_die("%s: cannot write it", again);
	memset(err, ERR_FILL, sizeof(err));
	rc = dp_port_profile_load(again, &q, err, sizeof(err));
	if (rc != 0)
		fuzz_die("written back, refused: %s", err);
	/* the name is the file's */
	memcpy(q.name, p->name, sizeof(q.name));
	if (!same_profile(p, &q))
		fuzz_die("written back, read as another profile (offloads %s / %s)", rx, tx);
}

/* dp_port_profile_find() by name, by each driver listed, and by one not listed. */
static void
check_find(const struct dp_port_profile *p)
{
	char words[sizeof(p->drivers)], absent[sizeof(p->drivers) + 8] = "x";
	char err[DP_CONFIG_ERR_LEN];
	struct dp_port_profile q;
	char *save = NULL, *w;
	bool found;
	int rc;

	rc = dp_port_profile_find(fuzz_tmp.dir, "fuzz", "", &q, &found, err, sizeof(err));
	if (rc != 0 || !found || !same_profile(p, &q))
		fuzz_die("find by name: rc %d, found %d", rc, found);
	dp_strlcpy(words, p->drivers, sizeof(words));
	for (w = strtok_r(words, " \t,", &save); w != NULL; w = strtok_r(NULL, " \t,", &save)) {
		rc = dp_port_profile_find(fuzz_tmp.dir, "", w, &q, &found, err, sizeof(err));
		if (rc != 0 || !found || !same_profile(p, &q))
			fuzz_die("find by driver '%s' of '%s': rc %d, found %d", w, p->drivers, rc,
				found);
		/* a name no word of the list is: this one, longer */
		if (strlen(w) >= strlen(absent))
			snprintf(absent, sizeof(absent), "%s_", w);
	}
	rc = dp_port_profile_find(fuzz_tmp.dir, "", absent, &q, &found, err, sizeof(err));
	if (rc != 0 || found || strcmp(q.name, "generic") != 0)
		fuzz_die("find by driver '%s', not in '%s': rc %d, found %d, profile %s", absent,
			p->drivers, rc, found, q.name);
}

/* The EAL arguments of one port on profile "fuzz" (@p p when it loaded, else NULL). */
static void
check_eal_args(const char *dev, const struct dp_port_profile *p)
{
	struct dp_config *cfg = calloc(1, sizeof(*cfg));
	char *argv[MAX_ARGS] = { NULL };
	char want[DP_CONFIG_DEV_LEN + 256];
	int n, i;

	if (cfg == NULL)
		fuzz_die("no memory");
	dp_config_init(cfg);
	cfg->nb_ports = 1;
	cfg->ports[0].defined = true;
	dp_strlcpy(cfg->ports[0].dev, dev, sizeof(cfg->ports[0].dev));
	dp_strlcpy(cfg->ports[0].profile, "fuzz", sizeof(cfg->ports[0].profile));
	dp_strlcpy(cfg->drivers_cfg, fuzz_tmp.dir, sizeof(cfg->drivers_cfg));
	n = dp_port_eal_args(cfg, 0, NULL, argv, MAX_ARGS);
	dev = cfg->ports[0].dev;
	if (dp_port_dev_is_pci(dev)) {
		if (p != NULL && p->devargs[0] != '\0' && strchr(dev, ',') == NULL)
			snprintf(want, sizeof(want), "%s,%s", dev, p->devargs);
		else
			dp_strlcpy(want, dev, sizeof(want));
		if (n != 2 || strcmp(argv[0], "-a") != 0 || strcmp(argv[1], want) != 0)
			fuzz_die("EAL args of PCI dev '%s': %d (%s %s), want -a %s", dev, n,
				n > 0 ? argv[0] : "", n > 1 ? argv[1] : "", want);
	} else {
		snprintf(want, sizeof(want), "--vdev=%s", dev);
		if (n != 2 || strcmp(argv[0], want) != 0 || strcmp(argv[1], "--no-pci") != 0)
			fuzz_die("EAL args of vdev '%s': %d (%s %s)", dev, n, n > 0 ? argv[0] : "",
				n > 1 ? argv[1] : "");
	}
	for (i = 0; i < MAX_ARGS; i++)
		free(argv[i]);
	dp_config_free(cfg);
	free(cfg);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[DP_CONFIG_ERR_LEN];
	struct dp_port_profile p;
	unsigned int lines;
	size_t file_len;
	char *dev_line;
	int rc;

	dev_line = fuzz_tmp_input_write(data, size, DEV_MARK, &file_len, &lines);

	memset(err, ERR_FILL, sizeof(err));
	rc = dp_port_profile_load(path, &p, err, sizeof(err));
	if (rc != 0 && rc != -EINVAL)
		fuzz_die("load: rc %d", rc);
	if (rc != 0) {
		if (memchr(err, '\0', sizeof(err)) == NULL)
			fuzz_die("load: message not terminated");
		fuzz_check_file_line("load", err, path, lines);
	} else {
		check_profile(&p);
		check_round_trip(&p);
		check_find(&p);
	}
	check_eal_args(dev_line != NULL ? dev_line : DEFAULT_DEV, rc == 0 ? &p : NULL);
	free(dev_line);
	return 0;
}
