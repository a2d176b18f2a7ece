/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <stddef.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>

#include "dp_common.h"
#include "dp_port.h"
#include "dp_telemetry.h"

RTE_LOG_REGISTER(dp_logtype_port, dpfwd.port, INFO);

struct dp_port dp_ports[DP_PORT_MAX];
bool dp_port_up[RTE_MAX_ETHPORTS] __rte_cache_aligned; /* read by every worker each burst */
uint8_t dp_port_index[RTE_MAX_ETHPORTS];
uint16_t dp_nb_ports;

/* Used when no profile names a port's driver: no offloads, l3fwd-like rings. */
static const struct dp_port_profile generic_profile = {
	.name = "generic",
	.rx_desc = 1024,
	.tx_desc = 1024,
	.rss_hf = RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP,
};

bool
dp_port_dev_is_pci(const char *dev)
{
	unsigned int a, b, c, d;
	char end;

	if (sscanf(dev, "%x:%x:%x.%x%c", &a, &b, &c, &d, &end) == 4)
		return true;
	if (sscanf(dev, "%x:%x:%x.%x,%c", &a, &b, &c, &d, &end) == 5)
		return true;
	return sscanf(dev, "%x:%x.%x%c", &a, &b, &c, &end) == 3;
}

static int
push_arg(char **argv, int *n, int max, const char *a, const char *b)
{
	size_t len = strlen(a) + (b ? strlen(b) + 1 : 0) + 1;

	if (*n >= max)
		return -E2BIG;
	argv[*n] = malloc(len);
	if (argv[*n] == NULL)
		return -ENOMEM;
	if (b != NULL)
		snprintf(argv[*n], len, "%s=%s", a, b);
	else
		snprintf(argv[*n], len, "%s", a);
	(*n)++;
	return 0;
}

int
dp_port_eal_args(const struct dp_config *cfg, int user_argc, char **user_argv, char **argv, int max)
{
	static const char *const allow[] = { "-a", "--allow", "-b", "--block", "--no-pci", NULL };
	bool any_pci = false;
	bool user_pci = dp_args_has(user_argc, user_argv, allow);
	int n = 0, rc;
	uint16_t i;

	for (i = 0; i < cfg->nb_ports; i++) {
		const struct dp_config_port *p = &cfg->ports[i];

		if (dp_port_dev_is_pci(p->dev)) {
			char dev[DP_CONFIG_DEV_LEN + 256];
			struct dp_port_profile prof;
			char path[PATH_MAX + 80], err[256];

			any_pci = true;
			if (user_pci)
				continue;
			dp_strlcpy(dev, p->dev, sizeof(dev));
			/* a profile named in the config may carry devargs (mlx5 tuning) */
			if (p->profile[0] != '\0' && strchr(p->dev, ',') == NULL) {
				snprintf(path, sizeof(path), "%s/%s.ini", cfg->drivers_cfg,
					p->profile);
				if (dp_port_profile_load(path, &prof, err, sizeof(err)) == 0 &&
					prof.devargs[0] != '\0')
					snprintf(dev, sizeof(dev), "%s,%s", p->dev, prof.devargs);
			}
			rc = push_arg(argv, &n, max, "-a", NULL);
			if (rc == 0)
				rc = push_arg(argv, &n, max, dev, NULL);
		} else {
			rc = push_arg(argv, &n, max, "--vdev", p->dev);
		}
		if (rc < 0)
			return rc;
	}
	if (!any_pci && !user_pci) {
		rc = push_arg(argv, &n, max, "--no-pci", NULL);
		if (rc < 0)
			return rc;
	}
	return n;
}

/* ---- driver profiles ---- */

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

			if (name != NULL && strcasecmp(name, t) == 0)
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
	} else {
		return dp_config_error(err, errlen, loc,
			"unknown key '%s' in [profile] (expected drivers, rx_desc, tx_desc, "
			"rx_offloads, tx_offloads, rss_hf, devargs, notes, ip4_whole_max)",
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

int
dp_port_probe(const struct dp_config *cfg, uint16_t nb_workers, char *err, size_t errlen)
{
	uint16_t i;
	int rc;

	dp_nb_ports = 0;
	memset(dp_port_index, DP_PORT_NONE, sizeof(dp_port_index));
	for (i = 0; i < cfg->nb_ports; i++) {
		const struct dp_config_port *cp = &cfg->ports[i];
		struct dp_port *p = &dp_ports[i];
		struct rte_eth_dev_info info;
		char name[DP_CONFIG_DEV_LEN];
		size_t n;

		memset(p, 0, sizeof(*p));
		dp_strlcpy(name, cp->dev, sizeof(name));
		n = strcspn(name, ",");
		name[n] = '\0';
		if (rte_eth_dev_get_port_by_name(name, &p->port_id) != 0)
			return dp_config_error(err, errlen, &cp->loc, "port%u '%s' not found: %s",
				i, name,
				dp_port_dev_is_pci(name)
					? "is the NIC bound to vfio-pci (82599: dpdk-devbind.py -b "
					  "vfio-pci) or, for mlx5, is rdma-core installed?"
					: "the virtual device failed to probe (see the EAL log above)");
		rc = rte_eth_dev_info_get(p->port_id, &info);
		if (rc != 0)
			return dp_config_error(err, errlen, &cp->loc, "port%u: cannot get info: %s",
				i, strerror(-rc));
		dp_strlcpy(p->name, name, sizeof(p->name));
		dp_strlcpy(p->driver, info.driver_name, sizeof(p->driver));
		rc = dp_port_profile_find(cfg->drivers_cfg, cp->profile, p->driver, &p->profile,
			&p->has_profile, err, errlen);
		if (rc < 0)
			return rc;
		if (!p->has_profile)
			DP_LOG(WARNING, port,
				"port%u %s: no profile in %s lists driver %s; generic defaults", i,
				name, cfg->drivers_cfg, p->driver);
		p->socket = rte_eth_dev_socket_id(p->port_id);
		if (p->socket < 0)
			p->socket = 0;
		p->nb_rxq = cp->rx_queues;
		p->nb_txq = nb_workers;
		if (p->nb_rxq > info.max_rx_queues)
			return dp_config_error(err, errlen, &cp->loc,
				"port%u (%s) has at most %u RX queues, the config polls %u", i,
				p->driver, info.max_rx_queues, p->nb_rxq);
		if (p->nb_txq > info.max_tx_queues)
			return dp_config_error(err, errlen, &cp->loc,
				"port%u (%s) has at most %u TX queues; dpfwd needs one per worker "
				"lcore (%u)",
				i, p->driver, info.max_tx_queues, p->nb_txq);
		p->rx_desc = cp->rx_desc ? cp->rx_desc : p->profile.rx_desc;
		p->tx_desc = cp->tx_desc ? cp->tx_desc : p->profile.tx_desc;
		rc = rte_eth_dev_adjust_nb_rx_tx_desc(p->port_id, &p->rx_desc, &p->tx_desc);
		if (rc != 0)
			return dp_config_error(err, errlen, &cp->loc,
				"port%u: descriptor counts rejected: %s", i, strerror(-rc));
		p->rx_offloads = p->profile.rx_offloads & info.rx_offload_capa;
		p->tx_offloads = p->profile.tx_offloads & info.tx_offload_capa;
		p->rss_hf = p->nb_rxq > 1 ? p->profile.rss_hf & info.flow_type_rss_offloads : 0;
		p->rx_ip4_cksum = (p->rx_offloads & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM) != 0;
		p->ip4 = cp->ip4;
		p->ip4_plen = cp->ip4_plen;
		p->promisc = cp->promisc;
		p->set_mac = cp->has_mac;
		p->mac = cp->mac;
		{
			char want[256], got[256], masked[256];

			dp_port_offload_str(p->rx_offloads, true, got, sizeof(got));
			dp_port_offload_str(p->profile.rx_offloads & ~info.rx_offload_capa, true,
				masked, sizeof(masked));
			dp_port_offload_str(p->tx_offloads, false, want, sizeof(want));
			DP_LOG(INFO, port,
				"port%u %s: driver %s, profile %s, socket %d, %u rxq x %u desc, %u txq "
				"x %u desc, rx offloads [%s] (not supported, masked: [%s]), tx "
				"offloads [%s], rss %s",
				i, name, p->driver, p->profile.name, p->socket, p->nb_rxq,
				p->rx_desc, p->nb_txq, p->tx_desc, got, masked, want,
				p->rss_hf ? "on" : "off");
		}
		dp_port_index[p->port_id] = (uint8_t)i;
		dp_nb_ports++;
	}
	return 0;
}

void
dp_port_mem_demand(struct dp_mem_demand *per_socket)
{
	uint16_t i;

	for (i = 0; i < dp_nb_ports; i++) {
		struct dp_port *p = &dp_ports[i];
		struct dp_mem_demand *d = &per_socket[p->socket];

		d->rx_desc += (uint32_t)p->nb_rxq * p->rx_desc;
		d->tx_desc += (uint32_t)p->nb_txq * p->tx_desc;
		d->tx_bufs += p->nb_txq;
	}
}

int
dp_port_start_all(char *err, size_t errlen)
{
	uint16_t i, q;
	int rc;

	for (i = 0; i < dp_nb_ports; i++) {
		struct dp_port *p = &dp_ports[i];
		struct rte_eth_conf conf;
		struct rte_eth_dev_info info;
		struct rte_eth_rxconf rxc;
		struct rte_eth_txconf txc;
		struct rte_mempool *mp = dp_mem_pool_get(p->socket);

		memset(&conf, 0, sizeof(conf));
		conf.rxmode.offloads = p->rx_offloads;
		conf.txmode.offloads = p->tx_offloads;
		if (p->rss_hf) {
			conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
			conf.rx_adv_conf.rss_conf.rss_hf = p->rss_hf;
		}
		rc = rte_eth_dev_configure(p->port_id, p->nb_rxq, p->nb_txq, &conf);
		if (rc < 0) {
			snprintf(err, errlen, "port%u %s (%s): configure failed: %s", i, p->name,
				p->driver, strerror(-rc));
			return rc;
		}
		rte_eth_dev_info_get(p->port_id, &info);
		rxc = info.default_rxconf;
		rxc.offloads = p->rx_offloads;
		for (q = 0; q < p->nb_rxq; q++) {
			rc = rte_eth_rx_queue_setup(p->port_id, q, p->rx_desc, p->socket, &rxc, mp);
			if (rc < 0) {
				snprintf(err, errlen, "port%u %s: RX queue %u setup failed: %s", i,
					p->name, q, strerror(-rc));
				return rc;
			}
		}
		txc = info.default_txconf;
		txc.offloads = p->tx_offloads;
		for (q = 0; q < p->nb_txq; q++) {
			rc = rte_eth_tx_queue_setup(p->port_id, q, p->tx_desc, p->socket, &txc);
			if (rc < 0) {
				snprintf(err, errlen, "port%u %s: TX queue %u setup failed: %s", i,
					p->name, q, strerror(-rc));
				return rc;
			}
		}
		if (p->set_mac) {
			rc = rte_eth_dev_default_mac_addr_set(p->port_id, &p->mac);
			if (rc < 0) {
				snprintf(err, errlen, "port%u %s (%s): cannot set MAC: %s", i,
					p->name, p->driver, strerror(-rc));
				return rc;
			}
		}
		rc = rte_eth_dev_start(p->port_id);
		if (rc < 0) {
			snprintf(err, errlen, "port%u %s (%s): start failed: %s", i, p->name,
				p->driver, strerror(-rc));
			return rc;
		}
		p->started = true;
		memset(&p->stats_prev, 0, sizeof(p->stats_prev));
		memset(&p->stats_base, 0, sizeof(p->stats_base));
		p->link_changes = 0;
		/* as the driver reports it now (a memif server: down until a peer
		 * connects); a driver that cannot tell is taken as up. From now on
		 * dp_port_link_poll() follows it. */
		{
			struct rte_eth_link link;

			memset(&link, 0, sizeof(link));
			__atomic_store_n(&dp_port_up[p->port_id],
				rte_eth_link_get_nowait(p->port_id, &link) != 0 ||
					link.link_status == RTE_ETH_LINK_UP,
				__ATOMIC_RELEASE);
		}
		if (p->promisc) {
			rc = rte_eth_promiscuous_enable(p->port_id);
			if (rc < 0 && rc != -ENOTSUP) {
				snprintf(err, errlen,
					"port%u %s: cannot enable promiscuous mode: %s", i, p->name,
					strerror(-rc));
				return rc;
			}
		}
		rte_eth_macaddr_get(p->port_id, &p->mac);
		{
			char mac[RTE_ETHER_ADDR_FMT_SIZE];

			rte_ether_format_addr(mac, sizeof(mac), &p->mac);
			DP_LOG(INFO, port, "port%u %s started, MAC %s", i, p->name, mac);
		}
	}
	return 0;
}

void
dp_port_close_all(void)
{
	uint16_t i;

	for (i = 0; i < dp_nb_ports; i++) {
		struct dp_port *p = &dp_ports[i];

		__atomic_store_n(&dp_port_up[p->port_id], false, __ATOMIC_RELEASE);
		if (p->started)
			rte_eth_dev_stop(p->port_id);
		rte_eth_dev_close(p->port_id);
		p->started = false;
	}
	memset(dp_port_index, DP_PORT_NONE, sizeof(dp_port_index));
	dp_nb_ports = 0;
}

void
dp_port_tx_reclaim(void)
{
	uint16_t i, q;

	for (i = 0; i < dp_nb_ports; i++) {
		struct dp_port *p = &dp_ports[i];

		if (!p->started)
			continue;
		for (q = 0; q < p->nb_txq; q++) {
			int rc = rte_eth_tx_done_cleanup(p->port_id, q, 0);

			if (rc == -ENOTSUP && strcmp(p->driver, "net_af_xdp") == 0) {
				rte_eth_tx_burst(p->port_id, q, NULL, 0);
				rte_eth_tx_burst(p->port_id, q, NULL, 0);
			}
		}
	}
}

unsigned int
dp_port_link_poll(void)
{
	unsigned int changed = 0;
	uint16_t i;

	for (i = 0; i < dp_nb_ports; i++) {
		struct dp_port *p = &dp_ports[i];
		struct rte_eth_link link;
		bool up;

		if (!p->started || rte_eth_link_get_nowait(p->port_id, &link) != 0)
			continue;
		up = link.link_status == RTE_ETH_LINK_UP;
		if (up == __atomic_load_n(&dp_port_up[p->port_id], __ATOMIC_RELAXED))
			continue;
		__atomic_store_n(&dp_port_up[p->port_id], up, __ATOMIC_RELEASE);
		p->link_changes++;
		changed++;
		DP_LOG(INFO, port, "port%u %s: link %s%s", i, p->name, up ? "up" : "down",
			up ? "" : "; not polled, packets routed to it are dropped (port_down)");
	}
	return changed;
}

bool
dp_port_needs_unmap_guard(void)
{
	uint16_t i;

	for (i = 0; i < dp_nb_ports; i++)
		if (strcmp(dp_ports[i].driver, "net_memif") == 0)
			return true;
	return false;
}

/*
 * The port's counters as telemetry shows them: monotonic. A raw read of all
 * zeros (net_memif while its peer is gone) shows the last totals; a counter
 * that went back (a driver that resets on reconnect) adds what it had before.
 */
static void
port_stats_read(struct dp_port *p, struct rte_eth_stats *out)
{
	struct rte_eth_stats cur;
	uint64_t *c, *prev, *base, *o;
	size_t k, n = offsetof(struct rte_eth_stats, q_ipackets) / sizeof(uint64_t);

	memset(&cur, 0, sizeof(cur));
	memset(out, 0, sizeof(*out));
	rte_eth_stats_get(p->port_id, &cur);
	c = (uint64_t *)&cur;
	prev = (uint64_t *)&p->stats_prev;
	base = (uint64_t *)&p->stats_base;
	o = (uint64_t *)out;
	if (cur.ipackets == 0 && cur.opackets == 0 && cur.ibytes == 0 && cur.obytes == 0 &&
		cur.imissed == 0 && cur.oerrors == 0)
		c = prev;
	for (k = 0; k < n; k++) {
		if (c[k] < prev[k])
			base[k] += prev[k];
		prev[k] = c[k];
		o[k] = base[k] + c[k];
	}
}

static json_t *
ports_fill(void *arg)
{
	json_t *arr = json_array();
	uint16_t i;

	RTE_SET_USED(arg);
	for (i = 0; i < dp_nb_ports; i++) {
		struct dp_port *p = &dp_ports[i];
		struct rte_eth_stats st;
		struct rte_eth_link link;
		char mac[RTE_ETHER_ADDR_FMT_SIZE], rxo[256], txo[256];
		json_t *o;

		memset(&link, 0, sizeof(link));
		port_stats_read(p, &st);
		rte_eth_link_get_nowait(p->port_id, &link);
		rte_ether_format_addr(mac, sizeof(mac), &p->mac);
		dp_port_offload_str(p->rx_offloads, true, rxo, sizeof(rxo));
		dp_port_offload_str(p->tx_offloads, false, txo, sizeof(txo));
		o = json_pack("{s:i, s:i, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:s, s:s, "
			      "s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
			"index", i, "port_id", p->port_id, "name", p->name, "driver", p->driver,
			"profile", p->profile.name, "mac", mac, "socket", p->socket, "rx_queues",
			p->nb_rxq, "tx_queues", p->nb_txq, "rx_desc", p->rx_desc, "tx_desc",
			p->tx_desc, "rx_offloads", rxo, "tx_offloads", txo, "link_up",
			link.link_status == RTE_ETH_LINK_UP, "link_speed_mbps",
			(json_int_t)link.link_speed, "ipackets", (json_int_t)st.ipackets,
			"opackets", (json_int_t)st.opackets, "ibytes", (json_int_t)st.ibytes,
			"obytes", (json_int_t)st.obytes, "imissed", (json_int_t)st.imissed,
			"ierrors", (json_int_t)st.ierrors, "oerrors", (json_int_t)st.oerrors,
			"rx_nombuf", (json_int_t)st.rx_nombuf);
		if (o != NULL) {
			json_object_set_new(o, "polled",
				json_boolean(__atomic_load_n(
					&dp_port_up[p->port_id], __ATOMIC_RELAXED)));
			json_object_set_new(
				o, "link_changes", json_integer((json_int_t)p->link_changes));
			json_array_append_new(arr, o);
		}
	}
	return arr;
}

int
dp_port_telemetry_register(void)
{
	return dp_telemetry_section_register("ports", "/dpfwd/port/stats",
		"Ports: driver, profile, queues, offloads applied, ethdev counters", ports_fill,
		NULL);
}
