/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Driver profiles (drivers-cfg/<driver>.ini): read, found by driver name, and
 * their offloads and RSS hash fields masked by what a device reports.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>

#include "dp_common.h"
#include "dp_port.h"

/* Used when no profile names a port's driver: no offloads, l3fwd-like rings. */
static const struct dp_port_profile generic_profile = {
	.name = "generic",
	.rx_desc = 1024,
	.tx_desc = 1024,
	.rss_hf = RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP,
};

static int
offload_names_parse(const char *v, bool rx, uint64_t *out, char *bad, size_t badlen)
{
	char buf[512];
	char *save = NULL, *t;

	*out = 0;
	dp_strlcpy(buf, v, sizeof(buf));
	for (t = strtok_r(buf, " ,\t", &save); t != NULL; t = strtok_r(NULL, " ,\t", &save)) {
		unsigned int bit;

		if (strcmp(t, "none") == 0)
			continue;
		for (bit = 0; bit < 64; bit++) {
			const char *name = rx ? rte_eth_dev_rx_offload_name(1ULL << bit)
					      : rte_eth_dev_tx_offload_name(1ULL << bit);

			/* DPDK names the bits it has no name for "UNKNOWN" */
			if (name != NULL && strcmp(name, "UNKNOWN") != 0 &&
				strcasecmp(name, t) == 0)
				break;
		}
		if (bit == 64) {
			dp_strlcpy(bad, t, badlen);
			return -EINVAL;
		}
		*out |= 1ULL << bit;
	}
	return 0;
}

void
dp_port_offload_str(uint64_t offloads, bool rx, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int bit;

	buf[0] = '\0';
	for (bit = 0; bit < 64 && n < len; bit++) {
		const char *name;
		int w;
		size_t k;

		if (!(offloads & (1ULL << bit)))
			continue;
		name = rx ? rte_eth_dev_rx_offload_name(1ULL << bit)
			  : rte_eth_dev_tx_offload_name(1ULL << bit);
		w = snprintf(buf + n, len - n, "%s%s", n ? " " : "", name);
		if (w < 0)
			break;
		/* lower case, as in the profiles */
		for (k = n; k < len && buf[k] != '\0'; k++)
			buf[k] = (char)tolower((unsigned char)buf[k]);
		n += (size_t)w;
	}
}

static const struct {
	const char *name;
	uint64_t hf;
} rss_names[] = {
	{ "ip", RTE_ETH_RSS_IP },
	{ "udp", RTE_ETH_RSS_UDP },
	{ "tcp", RTE_ETH_RSS_TCP },
	{ "sctp", RTE_ETH_RSS_SCTP },
	{ "none", 0 },
};

static int
profile_cb(void *arg, const char *section, const char *key, const char *value,
	const struct dp_config_loc *loc, char *err, size_t errlen)
{
	struct dp_port_profile *p = arg;
	char bad[64];
	uint64_t u;

	if (strcmp(section, "profile") != 0)
		return dp_config_error(
			err, errlen, loc, "unknown section [%s] (expected [profile])", section);
	if (key == NULL)
		return 0; /* an empty [profile]: the defaults */
	if (strcmp(key, "drivers") == 0) {
		dp_strlcpy(p->drivers, value, sizeof(p->drivers));
	} else if (strcmp(key, "rx_desc") == 0 || strcmp(key, "tx_desc") == 0) {
		if (dp_config_parse_uint(value, 32, 32768, &u) < 0)
			return dp_config_error(
				err, errlen, loc, "%s '%s' must be 32..32768", key, value);
		if (key[0] == 'r')
			p->rx_desc = (uint16_t)u;
		else
			p->tx_desc = (uint16_t)u;
	} else if (strcmp(key, "rx_offloads") == 0 || strcmp(key, "tx_offloads") == 0) {
		bool rx = key[0] == 'r';

		if (offload_names_parse(value, rx, rx ? &p->rx_offloads : &p->tx_offloads, bad,
			    sizeof(bad)) < 0)
			return dp_config_error(err, errlen, loc,
				"unknown %s offload '%s' (names as DPDK prints them, e.g. "
				"ipv4_cksum, udp_cksum, tcp_cksum, rss_hash, mbuf_fast_free)",
				rx ? "RX" : "TX", bad);
	} else if (strcmp(key, "rss_hf") == 0) {
		char buf[128];
		char *save = NULL, *t;

		p->rss_hf = 0;
		dp_strlcpy(buf, value, sizeof(buf));
		for (t = strtok_r(buf, " ,", &save); t; t = strtok_r(NULL, " ,", &save)) {
			unsigned int i;

			for (i = 0; i < DP_ARRAY_SIZE(rss_names); i++)
				if (strcmp(t, rss_names[i].name) == 0)
					break;
			if (i == DP_ARRAY_SIZE(rss_names))
				return dp_config_error(err, errlen, loc,
					"unknown rss_hf '%s' (expected ip, udp, tcp, sctp, none)",
					t);
			p->rss_hf |= rss_names[i].hf;
		}
	} else if (strcmp(key, "devargs") == 0) {
		dp_strlcpy(p->devargs, value, sizeof(p->devargs));
	} else if (strcmp(key, "notes") == 0) {
		dp_strlcpy(p->notes, value, sizeof(p->notes));
	} else if (strcmp(key, "ip4_whole_max") == 0) {
		if (dp_config_parse_uint(value, 0, 65535, &u) < 0)
			return dp_config_error(
				err, errlen, loc, "%s '%s' must be 0..65535", key, value);
		p->ip4_whole_max = (uint16_t)u;
	} else if (strcmp(key, "mtu") == 0) {
		if (dp_config_parse_uint(value, 0, 65535, &u) < 0 ||
			(u != 0 && u < RTE_ETHER_MIN_MTU))
			return dp_config_error(err, errlen, loc,
				"%s '%s' must be 0 (the driver's) or %u..65535", key, value,
				RTE_ETHER_MIN_MTU);
		p->mtu = (uint16_t)u;
	} else if (strcmp(key, "rx_headroom") == 0) {
		if (dp_config_parse_uint(value, 0, 4096, &u) < 0)
			return dp_config_error(
				err, errlen, loc, "%s '%s' must be 0..4096", key, value);
		p->rx_headroom = (uint16_t)u;
	} else if (strcmp(key, "buf_max") == 0) {
		if (dp_config_parse_uint(value, 0, 65535, &u) < 0 || (u != 0 && u < 1024))
			return dp_config_error(err, errlen, loc,
				"%s '%s' must be 0 (any) or 1024..65535", key, value);
		p->buf_max = (uint16_t)u;
	} else if (strcmp(key, "tx_keeps_sent") == 0) {
		if (strcmp(value, "on") != 0 && strcmp(value, "off") != 0)
			return dp_config_error(
				err, errlen, loc, "%s '%s' must be on or off", key, value);
		p->tx_keeps_sent = strcmp(value, "on") == 0;
	} else if (strcmp(key, "tx_first_seg_only") == 0) {
		if (strcmp(value, "on") != 0 && strcmp(value, "off") != 0)
			return dp_config_error(
				err, errlen, loc, "%s '%s' must be on or off", key, value);
		p->tx_first_seg_only = strcmp(value, "on") == 0;
	} else {
		return dp_config_error(err, errlen, loc,
			"unknown key '%s' in [profile] (expected drivers, rx_desc, tx_desc, "
			"rx_offloads, tx_offloads, rss_hf, mtu, devargs, notes, ip4_whole_max, "
			"rx_headroom, buf_max, tx_keeps_sent, tx_first_seg_only)",
			key);
	}
	return 0;
}

int
dp_port_profile_load(const char *path, struct dp_port_profile *p, char *err, size_t errlen)
{
	const char *base = strrchr(path, '/');
	const char *fname = path;
	size_t n;

	*p = generic_profile;
	base = base ? base + 1 : path;
	n = strcspn(base, ".");
	if (n >= sizeof(p->name))
		n = sizeof(p->name) - 1;
	memcpy(p->name, base, n);
	p->name[n] = '\0';
	return dp_config_ini_parse(path, profile_cb, p, &fname, err, errlen);
}

/* A word of a profile's "drivers": between spaces, tabs or commas, as the offload lists. */
static bool
word_sep(char c)
{
	return c == ' ' || c == '\t' || c == ',';
}

static bool
word_in(const char *list, const char *word)
{
	size_t wl = strlen(word);
	const char *s = list;

	while ((s = strstr(s, word)) != NULL) {
		bool start = s == list || word_sep(s[-1]);
		bool end = s[wl] == '\0' || word_sep(s[wl]);

		if (start && end)
			return true;
		s += wl;
	}
	return false;
}

int
dp_port_profile_find(const char *dir, const char *want, const char *driver,
	struct dp_port_profile *out, bool *found, char *err, size_t errlen)
{
	char path[PATH_MAX + 300];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	*found = false;
	if (want[0] != '\0') {
		snprintf(path, sizeof(path), "%s/%s.ini", dir, want);
		rc = dp_port_profile_load(path, out, err, errlen);
		*found = rc == 0;
		return rc;
	}
	d = opendir(dir);
	if (d == NULL) {
		DP_LOG(WARNING, port, "driver profile folder %s: %s; using generic defaults", dir,
			strerror(errno));
		*out = generic_profile;
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);

		if (n < 5 || strcmp(de->d_name + n - 4, ".ini") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		rc = dp_port_profile_load(path, out, err, errlen);
		if (rc < 0)
			break;
		if (word_in(out->drivers, driver)) {
			*found = true;
			break;
		}
	}
	closedir(d);
	if (!*found && rc == 0)
		*out = generic_profile;
	return rc;
}

/* The profile's names of the RSS groups with a field in @p hf ("udp", "ip (in part)"). */
static void
rss_str(uint64_t hf, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < DP_ARRAY_SIZE(rss_names) && n < len; i++) {
		uint64_t g = rss_names[i].hf;
		int w;

		if (g == 0 || (hf & g) == 0)
			continue;
		w = snprintf(buf + n, len - n, "%s%s%s", n ? " " : "", rss_names[i].name,
			(hf & g) == g ? "" : " (in part)");
		if (w < 0)
			break;
		n += (size_t)w;
	}
}

static void
log_not_requested(const char *who, const char *what, const char *names, const char *profile)
{
	DP_LOG(NOTICE, port, "%s: the device does not %s [%s] of profile %s: not requested", who,
		what, names, profile);
}

void
dp_port_offloads_mask(const struct dp_port_profile *prof, const struct rte_eth_dev_info *info,
	uint16_t nb_rxq, bool tx_chained, const char *who, struct dp_port_offloads *out)
{
	uint64_t rx_nocapa = prof->rx_offloads & ~info->rx_offload_capa;
	uint64_t tx_nocapa = prof->tx_offloads & ~info->tx_offload_capa;
	uint64_t tx_want = prof->tx_offloads;
	char names[256];

	memset(out, 0, sizeof(*out));
	/* one RX queue: nothing to spread */
	if (nb_rxq > 1) {
		out->rss_hf = prof->rss_hf & info->flow_type_rss_offloads;
		out->rss_dropped = prof->rss_hf & ~info->flow_type_rss_offloads;
	}
	out->rx = prof->rx_offloads & info->rx_offload_capa;
	/* ethdev refuses rss_hash without RSS (rte_eth_dev_configure: -EINVAL) */
	if (out->rss_hf == 0 && (out->rx & RTE_ETH_RX_OFFLOAD_RSS_HASH)) {
		out->rx &= ~RTE_ETH_RX_OFFLOAD_RSS_HASH;
		DP_LOG(INFO, port, "%s: rss_hash not requested: RSS is off (%u RX queue%s)", who,
			nb_rxq, nb_rxq == 1 ? "" : "s, no RSS field the device hashes on");
	}
	out->rx_dropped = prof->rx_offloads & ~out->rx;
	/*
	 * Chained mbufs, some with external buffers (endpoints: large datagrams,
	 * zero copy; IPv4 fragments made by fwd) go out only with multi_segs; mbuf_fast_free would put their
	 * segments straight back to the pool without releasing the buffers.
	 */
	if (tx_chained) {
		tx_want |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
		if (tx_want & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE) {
			tx_want &= ~RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
			DP_LOG(INFO, port,
				"%s: mbuf_fast_free not requested: endpoints send chained mbufs "
				"with external buffers",
				who);
		}
		if (!(info->tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS))
			DP_LOG(NOTICE, port,
				"%s: the device does not offer multi_segs: chained mbufs (endpoint "
				"datagrams) may not go out whole; IPv4 fragments are copied into "
				"one buffer each",
				who);
	}
	out->tx = tx_want & info->tx_offload_capa;
	out->tx_dropped = prof->tx_offloads & ~out->tx;
	if (rx_nocapa != 0) {
		dp_port_offload_str(rx_nocapa, true, names, sizeof(names));
		log_not_requested(who, "offer RX offloads", names, prof->name);
	}
	if (tx_nocapa != 0) {
		dp_port_offload_str(tx_nocapa, false, names, sizeof(names));
		log_not_requested(who, "offer TX offloads", names, prof->name);
	}
	if (out->rss_dropped != 0) {
		rss_str(out->rss_dropped, names, sizeof(names));
		log_not_requested(who, "hash on RSS fields", names, prof->name);
	}
}
