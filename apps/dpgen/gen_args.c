/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "dp_build_config.h"
#include "dp_config.h"
#include "gen_args.h"
#include "gen_seq.h"

#define IP4_BENCH_NET  0xc6120000u /* 198.18.0.0/15, RFC 2544 appendix C.2.2 */
#define IP4_BENCH_PLEN 15
#define IP6_DOC_PLEN   32 /* 2001:db8::/32, RFC 3849 */
#define HDRS_V4        (14 + 20 + 8)
#define HDRS_V6        (14 + 40 + 8)

/* dp_config's default: the source tree's profiles from the build tree, else the installed */
static const char *
gen_drivers_cfg_default(void)
{
	static char path[PATH_MAX];

	if (path[0] == '\0')
		dp_config_drivers_cfg_default(path, sizeof(path));
	return path;
}

/* Laid out as printed (under 92 columns); clang-format would re-wrap the strings. */
/* clang-format off */
void
gen_args_usage(FILE *f)
{
	fprintf(f,
		"Usage: dpgen [EAL options] -- [options]\n"
		"\n"
		"DPDK traffic generator. Sends synthetic UDP flows (IPv4 or IPv6), or replays a pcap\n"
		"in a loop, on one DPDK port at the rate you ask; stamps each packet with a sequence\n"
		"number and the TSC, and when the traffic comes back on an RX port reports loss,\n"
		"reordering, duplicates and latency, every second and in total.\n"
		"\n"
		"Ports are DPDK ports made with EAL options before '--': --vdev net_null0 (a sink),\n"
		"--vdev net_ring0 (a loopback: what port 0 sends, port 0 receives),\n"
		"--vdev net_pcap0,tx_pcap=out.pcap, --vdev net_memif0,role=client,socket=/run/x.sock,\n"
		"or -a <PCI address> for a NIC. EAL options dpgen adds unless you gave them:\n"
		"  -l A,B                      the first two CPUs it may run on (main + one worker)\n"
		"  --in-memory                 with 256 MiB of free hugepages; otherwise\n"
		"                              --no-huge -m 512, with a notice saying how to reserve some\n"
		"  --file-prefix dpgen-<pid>   so that it runs next to dpfwd or another dpgen\n"
		"  --no-pci                    unless -a/-b/--no-pci is there: a NIC is only used when\n"
		"                              named with -a (and not taken from a running dpfwd)\n"
		"\n"
		"Ports:\n"
		"  --tx-port N            port to send on (default 0)\n"
		"  --rx-port N|none       port where the traffic comes back; its stamps are checked\n"
		"                         (default none: send only). May be the TX port (net_ring\n"
		"                         loopback). With two worker lcores (-l 0,1,2) TX and RX get\n"
		"                         one each, with one (-l 0,1) it does both.\n"
		"\n"
		"Synthetic traffic (addresses only in 198.18.0.0/15, IPv6 in 2001:db8::/32):\n"
		"  --flows N              1..%u flows, sent round robin (default 1)\n"
		"  --vary sport|saddr|both  what the flow id changes (default sport): the UDP source\n"
		"                         port (base + id), the source address (host <id> of\n"
		"                         --src-ip), or both\n"
		"  --frame-size B         frame size including the 4-byte FCS, 64..%u (64 B = 60 bytes\n"
		"                         in the mbuf). Default 64 (IPv6: 84, the least with a stamp)\n"
		"  --payload B            UDP payload bytes instead of --frame-size (e.g. 100, 500,\n"
		"                         1000); at least 18 for the stamp\n"
		"  -6, --ipv6             IPv6 instead of IPv4\n"
		"  --src-ip A[/LEN]       source address or prefix (default 198.18.0.0/24: 198.18.0.1,\n"
		"                         or .1 .2 .3 ... per flow with --vary saddr; IPv6 2001:db8::/64)\n"
		"  --dst-ip A             destination address (default 198.18.1.1; IPv6 2001:db8:1::1)\n"
		"  --src-port N           base UDP source port (default 1024)\n"
		"  --dst-port N           UDP destination port (default 9)\n"
		"  --src-mac MAC          source MAC (default: the TX port's)\n"
		"  --dst-mac MAC          destination MAC (default: the RX port's, or 02:00:00:00:00:02\n"
		"                         without one; give the router's MAC when one is in between)\n"
		"  --ttl N                IPv4 TTL / IPv6 hop limit (default 64)\n"
		"\n"
		"Replay:\n"
		"  --pcap FILE            replay FILE's Ethernet frames in a loop instead (up to 2^20\n"
		"                         frames, 1 GiB); --src-mac/--dst-mac rewrite every frame when\n"
		"                         given. UDP frames with room for it are stamped (not with\n"
		"                         --no-stamp); the others go out as captured\n"
		"  --loops N              stop after N passes over the file (default 0: no limit)\n"
		"\n"
		"Rate:\n"
		"  --rate R               max (default), or N[k|M|G]pps, or N[k|M|G]bps: 12Mpps, 1.5Mpps,\n"
		"                         5Gbps. A token bucket on the TSC paces the bursts\n"
		"  --rate-wire            a bps target counts wire bytes (frame + 20 B preamble and\n"
		"                         inter-frame gap); by default frame bytes with the FCS\n"
		"  --catchup-us US        bucket depth as time at the target rate, 1..1000000 (default\n"
		"                         1000): how far a sender that lost its CPU may fall behind and\n"
		"                         still catch up, in a burst\n"
		"  --burst N              packets per TX and RX burst, 1..64 (default 32)\n"
		"\n"
		"Stamp and checks:\n"
		"  --no-stamp             do not stamp; nothing is checked on receive\n"
		"  --seq-window N         reorder window in packets, a power of two 64..2^30 (default\n"
		"                         65536): a packet still missing when N newer ones have\n"
		"                         arrived is lost (and counted 'late' if it comes after all)\n"
		"\n"
		"Run and output:\n"
		"  --duration S           stop after S seconds (default 0: on SIGINT/SIGTERM, or when\n"
		"                         --count / --loops is done)\n"
		"  --count N              stop after sending N packets\n"
		"  --drain-ms MS          after sending stops, keep receiving MS ms (default 100)\n"
		"  --warmup S             the JSON's \"measured\" part (counts, loss, latency and its\n"
		"                         histogram) starts at the first 1 s sample at or after S\n"
		"                         seconds (default 0: the whole run); the totals stay whole\n"
		"  --hold S               after the JSON is written, keep the ports open (nothing is\n"
		"                         sent or polled) up to S seconds, or until SIGINT/SIGTERM:\n"
		"                         a memif peer can stop before dpgen disconnects (default 0)\n"
		"  --json FILE            per-second samples and totals as JSON, written at exit\n"
		"  --quiet                no per-second lines\n"
		"  --drivers-cfg DIR      driver profiles (default %s)\n"
		"  -h, --help             this text;  -V, --version  the version\n"
		"\n"
		"Each second one line: TX and RX in Mpps and Gbps, twice: 'frame' counts frame bytes\n"
		"with the 4-byte FCS (64 for a 64-byte frame), 'wire' adds 20 B of preamble and\n"
		"inter-frame gap (84); then lost / reordered / duplicate packets and latency\n"
		"percentiles (p50 p90 p99 p99.9 max, in us, from a histogram with < 1%% error).\n"
		"\n"
		"Example (loopback on a ring, 2 flows of 1000-byte payloads at 1 Mpps, 5 s):\n"
		"  dpgen --no-huge -m 512 --vdev net_ring0 -- --tx-port 0 --rx-port 0 \\\n"
		"        --flows 2 --payload 1000 --rate 1Mpps --duration 5 --json out.json\n"
		"\n"
		"Exit status: 0 done, 1 a run-time failure (EAL, port, memory), 2 bad arguments.\n",
		GEN_FLOWS_MAX, GEN_FRAME_MAX, gen_drivers_cfg_default());
}
/* clang-format on */

static int __attribute__((format(printf, 1, 2))) bad(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "dpgen: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'dpgen --help'.\n");
	return -EINVAL;
}

static int
parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	if (s[0] < '0' || s[0] > '9')
		return bad("%s: '%s' is not a number", opt, s);
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return bad("%s: '%s' is not a number", opt, s);
	if (v < min || v > max)
		return bad("%s: %llu is out of range %" PRIu64 "..%" PRIu64, opt, v, min, max);
	*out = v;
	return 0;
}

static int
parse_mac(const char *opt, const char *s, uint8_t mac[6])
{
	unsigned int b[6], i;
	char end;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
		    &end) != 6 ||
		strlen(s) != 17)
		return bad("%s: '%s' is not a MAC address xx:xx:xx:xx:xx:xx", opt, s);
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

/* Address or prefix of the family of @p o, inside the benchmarking/documentation ranges. */
static int
parse_addr(const char *opt, const char *s, bool v6, bool prefix_ok, uint32_t *a4, uint8_t a6[16],
	unsigned int *plen)
{
	static const uint8_t doc6[4] = { 0x20, 0x01, 0x0d, 0xb8 };
	char buf[INET6_ADDRSTRLEN + 8];
	char *slash, *end;
	unsigned long len;
	struct in_addr in4;
	unsigned int max = v6 ? 128 : 32;
	size_t n = strlen(s);

	if (n >= sizeof(buf))
		return bad("%s: '%s' is too long for an address", opt, s);
	memcpy(buf, s, n + 1);
	slash = strchr(buf, '/');
	if (slash != NULL) {
		if (!prefix_ok)
			return bad("%s: '%s': one address, without /LEN", opt, s);
		*slash++ = '\0';
		errno = 0;
		len = strtoul(slash, &end, 10);
		if (errno != 0 || *end != '\0' || slash[0] < '0' || slash[0] > '9' || len > max)
			return bad("%s: '%s': the prefix length must be 0..%u", opt, s, max);
	} else {
		len = max;
	}
	if (!v6) {
		if (inet_pton(AF_INET, buf, &in4) != 1)
			return bad("%s: '%s' is not an IPv4 address%s", opt, s,
				strchr(buf, ':') ? " (use -6 for IPv6)" : "");
		*a4 = ntohl(in4.s_addr);
		if ((*a4 & 0xfffe0000u) != IP4_BENCH_NET || len < IP4_BENCH_PLEN)
			return bad("%s: '%s' is outside 198.18.0.0/15, the benchmarking range "
				   "(RFC 2544): dpgen sends nowhere else",
				opt, s);
	} else {
		if (inet_pton(AF_INET6, buf, a6) != 1)
			return bad("%s: '%s' is not an IPv6 address", opt, s);
		if (memcmp(a6, doc6, 4) != 0 || len < IP6_DOC_PLEN)
			return bad("%s: '%s' is outside 2001:db8::/32, the documentation range "
				   "(RFC 3849): dpgen sends nowhere else",
				opt, s);
	}
	if (plen != NULL)
		*plen = (unsigned int)len;
	return 0;
}

enum {
	OPT_TX_PORT = 256,
	OPT_RX_PORT,
	OPT_FLOWS,
	OPT_VARY,
	OPT_FRAME_SIZE,
	OPT_PAYLOAD,
	OPT_SRC_IP,
	OPT_DST_IP,
	OPT_SRC_PORT,
	OPT_DST_PORT,
	OPT_SRC_MAC,
	OPT_DST_MAC,
	OPT_TTL,
	OPT_PCAP,
	OPT_LOOPS,
	OPT_RATE,
	OPT_RATE_WIRE,
	OPT_CATCHUP,
	OPT_BURST,
	OPT_NO_STAMP,
	OPT_SEQ_WINDOW,
	OPT_DURATION,
	OPT_COUNT,
	OPT_DRAIN,
	OPT_WARMUP,
	OPT_HOLD,
	OPT_JSON,
	OPT_QUIET,
	OPT_DRIVERS_CFG,
};

static const struct option long_opts[] = {
	{ "tx-port", required_argument, NULL, OPT_TX_PORT },
	{ "rx-port", required_argument, NULL, OPT_RX_PORT },
	{ "flows", required_argument, NULL, OPT_FLOWS },
	{ "vary", required_argument, NULL, OPT_VARY },
	{ "frame-size", required_argument, NULL, OPT_FRAME_SIZE },
	{ "payload", required_argument, NULL, OPT_PAYLOAD },
	{ "ipv6", no_argument, NULL, '6' },
	{ "src-ip", required_argument, NULL, OPT_SRC_IP },
	{ "dst-ip", required_argument, NULL, OPT_DST_IP },
	{ "src-port", required_argument, NULL, OPT_SRC_PORT },
	{ "dst-port", required_argument, NULL, OPT_DST_PORT },
	{ "src-mac", required_argument, NULL, OPT_SRC_MAC },
	{ "dst-mac", required_argument, NULL, OPT_DST_MAC },
	{ "ttl", required_argument, NULL, OPT_TTL },
	{ "pcap", required_argument, NULL, OPT_PCAP },
	{ "loops", required_argument, NULL, OPT_LOOPS },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "rate-wire", no_argument, NULL, OPT_RATE_WIRE },
	{ "catchup-us", required_argument, NULL, OPT_CATCHUP },
	{ "burst", required_argument, NULL, OPT_BURST },
	{ "no-stamp", no_argument, NULL, OPT_NO_STAMP },
	{ "seq-window", required_argument, NULL, OPT_SEQ_WINDOW },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "drain-ms", required_argument, NULL, OPT_DRAIN },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "hold", required_argument, NULL, OPT_HOLD },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "drivers-cfg", required_argument, NULL, OPT_DRIVERS_CFG },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void
defaults(struct gen_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->tx_port = 0;
	o->rx_port = GEN_PORT_NONE;
	dp_pkt_spec_init(&o->synth.base);
	o->synth.flows = 1;
	o->synth.vary = DP_PKT_VARY_SPORT;
	o->rate.kind = GEN_RATE_MAX;
	o->rate_text = "max";
	o->catchup_us = 1000;
	o->burst = 32;
	o->stamp = true;
	o->drain_ms = 100;
	o->seq_window = 65536;
	o->drivers_cfg = gen_drivers_cfg_default();
}

/* Sizes and addresses once every option is known (they depend on -6 and --no-stamp). */
static int
finish(struct gen_opts *o, const char *src, const char *dst)
{
	struct dp_pkt_spec *b = &o->synth.base;
	uint32_t hdrs = o->ipv6 ? HDRS_V6 : HDRS_V4;
	uint32_t stamp = o->stamp ? GEN_STAMP_LEN : 0;
	uint32_t min_frame = hdrs + stamp + DP_PKT_FCS_LEN;
	int rc;

	if (min_frame < DP_PKT_MIN_FRAME_LEN)
		min_frame = DP_PKT_MIN_FRAME_LEN;
	if (o->pcap != NULL) {
		if (o->frame_size || o->payload_set || o->synth.flows != 1 || src || dst || o->ipv6)
			return bad("--pcap replays the file as it is: --flows, --frame-size, "
				   "--payload, "
				   "--src-ip, --dst-ip and -6 do not apply");
	} else if (o->loops != 0) {
		return bad("--loops counts passes over a --pcap file; use --count N for packets");
	}
	if (o->count != 0 && o->loops != 0)
		return bad("--count and --loops both limit the run: give one");
	if (o->frame_size && o->payload_set)
		return bad("--frame-size and --payload both set the size: give one");
	b->ip_version = o->ipv6 ? 6 : 4;
	if (o->payload_set) {
		if (o->payload < stamp)
			return bad("--payload %u is too small for the %u-byte stamp (or use "
				   "--no-stamp)",
				o->payload, GEN_STAMP_LEN);
		if (o->payload + hdrs + DP_PKT_FCS_LEN > GEN_FRAME_MAX)
			return bad("--payload %u makes a frame above %u bytes (at most %u)",
				o->payload, GEN_FRAME_MAX, GEN_FRAME_MAX - hdrs - DP_PKT_FCS_LEN);
		b->frame_len = 0;
		b->payload_len = o->payload;
	} else {
		if (o->frame_size == 0)
			o->frame_size = min_frame;
		if (o->frame_size < min_frame)
			return bad("--frame-size %u is too small for the %s/UDP headers%s (at "
				   "least %u)",
				o->frame_size, o->ipv6 ? "IPv6" : "IPv4",
				o->stamp ? " and the 18-byte stamp; or use --no-stamp" : "",
				min_frame);
		b->frame_len = o->frame_size;
	}
	if (src == NULL)
		src = o->ipv6 ? "2001:db8::/64" : "198.18.0.0/24";
	if (dst == NULL)
		dst = o->ipv6 ? "2001:db8:1::1" : "198.18.1.1";
	rc = parse_addr(
		"--src-ip", src, o->ipv6, true, &b->src_ip4, b->src_ip6, &o->synth.src_plen);
	if (rc == 0)
		rc = parse_addr("--dst-ip", dst, o->ipv6, false, &b->dst_ip4, b->dst_ip6, NULL);
	if (rc != 0)
		return rc;
	/* without saddr variation every flow uses the prefix's first host (.1), as dppcap does */
	if (!(o->synth.vary & DP_PKT_VARY_SADDR)) {
		if (o->ipv6)
			rc = dp_pkt_ipv6_prefix_host(b->src_ip6, o->synth.src_plen, 0, b->src_ip6);
		else
			rc = dp_pkt_ipv4_prefix_host(b->src_ip4, o->synth.src_plen, 0, &b->src_ip4);
		if (rc != 0)
			return bad("--src-ip '%s' is not a usable prefix", src);
	} else {
		uint64_t hosts = o->ipv6 ? dp_pkt_ipv6_prefix_nhosts(o->synth.src_plen)
					 : dp_pkt_ipv4_prefix_nhosts(o->synth.src_plen);

		if (o->synth.vary == DP_PKT_VARY_SADDR && hosts < o->synth.flows)
			fprintf(stderr,
				"dpgen: warning: --src-ip %s has %" PRIu64 " hosts for %u flows: "
				"flows repeat; use a shorter prefix or --vary both\n",
				src, hosts, o->synth.flows);
	}
	return 0;
}

int
gen_args_parse(int argc, char **argv, struct gen_opts *o)
{
	const char *src = NULL, *dst = NULL;
	uint64_t v = 0; /* read only once parse_u64() set it: clang-tidy cannot see into bad() */
	char *end;
	int c, rc = 0;

	defaults(o);
	optind = 0; /* glibc: a full restart, so the tests may parse many times */
	opterr = 0; /* errors are reported here, with what to do */
	while (rc == 0 && (c = getopt_long(argc, argv, ":6hV", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_TX_PORT:
			rc = parse_u64("--tx-port", optarg, 0, UINT16_MAX - 1, &v);
			if (rc == 0)
				o->tx_port = (int)v;
			break;
		case OPT_RX_PORT:
			if (strcmp(optarg, "none") == 0) {
				o->rx_port = GEN_PORT_NONE;
				break;
			}
			rc = parse_u64("--rx-port", optarg, 0, UINT16_MAX - 1, &v);
			if (rc == 0)
				o->rx_port = (int)v;
			break;
		case OPT_FLOWS:
			rc = parse_u64("--flows", optarg, 1, GEN_FLOWS_MAX, &v);
			if (rc == 0)
				o->synth.flows = (uint32_t)v;
			break;
		case OPT_VARY:
			if (strcmp(optarg, "sport") == 0)
				o->synth.vary = DP_PKT_VARY_SPORT;
			else if (strcmp(optarg, "saddr") == 0)
				o->synth.vary = DP_PKT_VARY_SADDR;
			else if (strcmp(optarg, "both") == 0)
				o->synth.vary = DP_PKT_VARY_SPORT | DP_PKT_VARY_SADDR;
			else
				rc = bad("--vary: '%s' is not sport, saddr or both", optarg);
			break;
		case OPT_FRAME_SIZE:
			rc = parse_u64(
				"--frame-size", optarg, DP_PKT_MIN_FRAME_LEN, GEN_FRAME_MAX, &v);
			if (rc == 0)
				o->frame_size = (uint32_t)v;
			break;
		case OPT_PAYLOAD:
			rc = parse_u64("--payload", optarg, 0, GEN_FRAME_MAX, &v);
			if (rc == 0)
				o->payload = (uint32_t)v;
			o->payload_set = true;
			break;
		case '6':
			o->ipv6 = true;
			break;
		case OPT_SRC_IP:
			src = optarg;
			break;
		case OPT_DST_IP:
			dst = optarg;
			break;
		case OPT_SRC_PORT:
			rc = parse_u64("--src-port", optarg, 0, UINT16_MAX, &v);
			if (rc == 0)
				o->synth.base.sport = (uint16_t)v;
			break;
		case OPT_DST_PORT:
			rc = parse_u64("--dst-port", optarg, 0, UINT16_MAX, &v);
			if (rc == 0)
				o->synth.base.dport = (uint16_t)v;
			break;
		case OPT_SRC_MAC:
			rc = parse_mac("--src-mac", optarg, o->src_mac);
			o->src_mac_set = true;
			break;
		case OPT_DST_MAC:
			rc = parse_mac("--dst-mac", optarg, o->dst_mac);
			o->dst_mac_set = true;
			break;
		case OPT_TTL:
			rc = parse_u64("--ttl", optarg, 0, 255, &v);
			if (rc == 0)
				o->synth.base.ttl = (uint8_t)v;
			break;
		case OPT_PCAP:
			o->pcap = optarg;
			break;
		case OPT_LOOPS:
			rc = parse_u64("--loops", optarg, 0, UINT32_MAX, &o->loops);
			break;
		case OPT_RATE:
			if (gen_rate_parse(optarg, &o->rate) != 0)
				rc = bad(
					"--rate: '%s' is not max or a number with pps, kpps, Mpps, "
					"Gpps, bps, kbps, Mbps or Gbps (e.g. 12Mpps, 5Gbps)",
					optarg);
			o->rate_text = optarg;
			break;
		case OPT_RATE_WIRE:
			o->rate_wire = true;
			break;
		case OPT_CATCHUP:
			rc = parse_u64("--catchup-us", optarg, 1, 1000000, &v);
			if (rc == 0)
				o->catchup_us = (uint32_t)v;
			break;
		case OPT_BURST:
			rc = parse_u64("--burst", optarg, 1, 64, &v);
			if (rc == 0)
				o->burst = (uint16_t)v;
			break;
		case OPT_NO_STAMP:
			o->stamp = false;
			break;
		case OPT_SEQ_WINDOW:
			rc = parse_u64("--seq-window", optarg, 64, 1u << 30, &o->seq_window);
			if (rc == 0 && (o->seq_window & (o->seq_window - 1)) != 0)
				rc = bad("--seq-window: %s is not a power of two", optarg);
			break;
		case OPT_DURATION:
			errno = 0;
			o->duration = strtod(optarg, &end);
			if (errno != 0 || *end != '\0' || end == optarg || !(o->duration >= 0) ||
				o->duration > 1e7)
				rc = bad(
					"--duration: '%s' is not a number of seconds >= 0", optarg);
			break;
		case OPT_COUNT:
			rc = parse_u64("--count", optarg, 1, UINT64_MAX, &o->count);
			break;
		case OPT_DRAIN:
			rc = parse_u64("--drain-ms", optarg, 0, 60000, &v);
			if (rc == 0)
				o->drain_ms = (uint32_t)v;
			break;
		case OPT_WARMUP:
			errno = 0;
			o->warmup = strtod(optarg, &end);
			if (errno != 0 || *end != '\0' || end == optarg || !(o->warmup >= 0) ||
				o->warmup > 1e6)
				rc = bad("--warmup: '%s' is not a number of seconds >= 0", optarg);
			break;
		case OPT_HOLD:
			rc = parse_u64("--hold", optarg, 0, 3600, &v);
			if (rc == 0)
				o->hold_s = (uint32_t)v;
			break;
		case OPT_JSON:
			o->json = optarg;
			break;
		case OPT_QUIET:
			o->quiet = true;
			break;
		case OPT_DRIVERS_CFG:
			o->drivers_cfg = optarg;
			break;
		case 'h':
			gen_args_usage(stdout);
			return 1;
		case 'V':
			printf("dpgen %s\n", DP_VERSION);
			return 1;
		case ':':
			rc = bad("option '%s' needs a value", argv[optind - 1]);
			break;
		default:
			if (optopt != 0)
				rc = bad("unknown option '-%c'", optopt);
			else
				rc = bad("unknown option '%s'", argv[optind - 1]);
			break;
		}
	}
	if (rc != 0)
		return rc;
	if (optind < argc)
		return bad("unexpected argument '%s' (options start with --)", argv[optind]);
	if (o->rate.kind == GEN_RATE_MAX && o->rate_wire)
		return bad("--rate-wire applies to a bps --rate");
	if (o->duration > 0 && o->warmup >= o->duration)
		return bad("--warmup %g s leaves nothing to measure in --duration %g s", o->warmup,
			o->duration);
	return finish(o, src, dst);
}
