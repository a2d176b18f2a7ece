/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dppcap: write pcap files of crafted test traffic (dp_pkt_craft) for dpfwd tests.
 *
 *   dppcap flows [options] -o FILE      one packet per flow (or --count packets cycling)
 *   dppcap malformed [options] -o FILE  one valid packet, every dp_pkt_defect, one valid packet
 *
 * Output is deterministic (timestamps start at the epoch, 1 us apart), so runs are byte-identical.
 * Exit status: 0 success, 1 runtime error (I/O), 2 bad command line.
 */

/* getopt_long, strdup, strtok_r, and the BSD u_int/u_char types pcap.h needs under -std=c11 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <pcap/pcap.h>

#include "dp_pkt_craft.h"

#define MAX_DST_PREFIXES 256
#define BUF_SIZE         (65536 + 128)
#define EXIT_USAGE       2

struct prefix {
	int family;  /* AF_INET or AF_INET6 */
	uint32_t v4; /* host order */
	uint8_t v6[16];
	unsigned int plen;
};

struct opts {
	const char *mode;
	const char *output;
	uint32_t flows;
	uint64_t count;
	bool count_set;
	bool flows_set;
	uint32_t frame_size;
	bool frame_size_set;
	uint32_t payload_size;
	bool payload_size_set;
	const char *src;
	const char *dst;
	uint8_t src_mac[6];
	uint8_t dst_mac[6];
	uint8_t ttl;
	uint8_t tos;
	bool df;
	bool vlan;
	uint16_t vlan_tci;
	uint16_t sport;
	uint16_t dport;
	unsigned int vary;
	bool vary_set;
	bool ipv6;
	/* parsed */
	struct prefix src_pfx;
	struct prefix dst_pfx[MAX_DST_PREFIXES];
	unsigned int n_dst;
};

static const char *prog = "dppcap";

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: %s flows     [options] -o FILE\n"
		"       %s malformed [options] -o FILE\n"
		"       %s --help\n"
		"\n"
		"Write a pcap file (DLT_EN10MB, microsecond timestamps 1 us apart from the epoch) of crafted\n"
		"Ethernet/IPv4|IPv6/UDP frames with valid IPv4 header and UDP checksums.\n"
		"\n"
		"Modes:\n"
		"  flows      One packet per flow (flow ids 0..N-1). Flow i goes to destination prefix\n"
		"             i %% P (P = number of --dst prefixes), host number i / P inside it: IPv4\n"
		"             hosts never end in .0 or .255 (a /24 cycles over .1-.254, a /16 walks\n"
		"             x.y.0.1-254, x.y.1.1-254, ...), IPv6 hosts are ::1, ::2, ... The flow id is\n"
		"             added to the UDP source port and/or selects the source host (--vary).\n"
		"  malformed  IPv4 only; 11 packets in this fixed order (IP id and UDP source port = index):\n"
		"               0 valid, 1 truncated_l3 (cut 10 B into the IPv4 header), 2 bad_version (6),\n"
		"               3 bad_ihl (4), 4 bad_cksum, 5 len_gt_frame (total length > frame),\n"
		"               6 ttl0, 7 ttl1, 8 non_ip (ethertype 0x88B5), 9 arp (request who-has DST\n"
		"               tell SRC, broadcast), 10 valid. Header checksums are correct except in 4.\n"
		"             Source/destination are the first host of --src and of the first --dst prefix.\n"
		"\n"
		"Options:\n"
		"  -o, --output FILE        Output pcap file (required; \"-\" = stdout).\n"
		"  -h, --help               Show this help.\n"
		"  -6, --ipv6               IPv6 instead of IPv4 (flows mode only). Changes the address\n"
		"                           defaults to 2001:db8::/64 (src) and 2001:db8:1::/64 (dst).\n"
		"      --flows N            Number of flows, 1..2^32-1 (default 1). flows mode only.\n"
		"      --count N            Packets to write, cycling over the flows: packet k belongs to\n"
		"                           flow k %% N (default: = --flows). flows mode only.\n"
		"      --frame-size N       Ethernet frame size INCLUDING the 4-byte FCS, RFC 2544 sense:\n"
		"                           64 writes 60-byte frames into the pcap (the FCS is never written).\n"
		"                           Minimum 64 and large enough for the headers. Default 64 for IPv4;\n"
		"                           for IPv6 the smallest that fits (66, or 70 with --vlan).\n"
		"      --payload-size N     UDP payload bytes instead of --frame-size (short frames are\n"
		"                           zero-padded to 60 bytes). Mutually exclusive with --frame-size.\n"
		"      --src A.B.C.D[/LEN]  Source prefix (default 198.18.0.0/24; no /LEN = single address).\n"
		"      --dst P[,P...]       Destination prefix list, up to %d, all of one family\n"
		"                           (default 198.18.1.0/24).\n"
		"      --src-mac MAC        Source MAC (default 02:00:00:00:00:01).\n"
		"      --dst-mac MAC        Destination MAC (default 02:70:63:61:70:00).\n"
		"      --ttl N              IPv4 TTL / IPv6 hop limit, 0..255 (default 64).\n"
		"      --tos N              IPv4 TOS / IPv6 traffic class, 0..255 (default 0).\n"
		"      --df                 Set the IPv4 Don't Fragment bit (default clear).\n"
		"      --vlan VID[:PCP]     Add one 802.1Q tag, VID 0..4095, PCP 0..7.\n"
		"      --sport N            Base UDP source port (default 1024).\n"
		"      --dport N            UDP destination port (default 9).\n"
		"      --vary sport|saddr|both\n"
		"                           What the flow id changes (default sport). sport: source port =\n"
		"                           base + flow id (wrapping back to base after 65535). saddr: source\n"
		"                           = host number <flow id> of --src, same numbering as the\n"
		"                           destinations (cycling). both: both at once. Without saddr the\n"
		"                           source is the first host of --src (198.18.0.1 by default).\n"
		"                           flows mode only. A warning is printed if the flows are not all\n"
		"                           distinct 5-tuples (e.g. --vary saddr with more flows than --src\n"
		"                           hosts): use a larger --src prefix or --vary both.\n"
		"\n"
		"Example:\n"
		"  %s flows --flows 2000 --frame-size 64 --dst 198.18.1.0/24,198.18.2.0/24 \\\n"
		"      --src 198.18.0.0/24 --vary sport -o out.pcap\n"
		"\n"
		"Exit status: 0 ok, 1 I/O error, 2 bad arguments.\n",
		prog, prog, prog, MAX_DST_PREFIXES, prog);
}

static void __attribute__((format(printf, 1, 2), noreturn)) usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", prog);
	exit(EXIT_USAGE);
}

static uint64_t
parse_uint(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	if (s[0] == '\0' || s[0] == '-' || s[0] == '+')
		usage_error("%s: '%s' is not an unsigned number", opt, s);
	v = strtoull(s, &end, 0);
	if (errno != 0 || *end != '\0')
		usage_error("%s: '%s' is not an unsigned number", opt, s);
	if (v < min || v > max)
		usage_error("%s: %llu out of range %" PRIu64 "..%" PRIu64, opt, v, min, max);
	return v;
}

static int
parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int i;

	for (i = 0; i < 6; i++) {
		int hi, lo;

		hi = s[0] >= '0' && s[0] <= '9'   ? s[0] - '0'
		     : s[0] >= 'a' && s[0] <= 'f' ? s[0] - 'a' + 10
		     : s[0] >= 'A' && s[0] <= 'F' ? s[0] - 'A' + 10
						  : -1;
		lo = s[1] >= '0' && s[1] <= '9'   ? s[1] - '0'
		     : s[1] >= 'a' && s[1] <= 'f' ? s[1] - 'a' + 10
		     : s[1] >= 'A' && s[1] <= 'F' ? s[1] - 'A' + 10
						  : -1;
		if (hi < 0 || lo < 0)
			return -EINVAL;
		mac[i] = (uint8_t)(hi << 4 | lo);
		s += 2;
		if (i < 5 && *s++ != ':')
			return -EINVAL;
	}
	return *s == '\0' ? 0 : -EINVAL;
}

static int
parse_prefix(const char *s, struct prefix *p)
{
	char buf[INET6_ADDRSTRLEN + 8];
	char *slash, *end;
	unsigned long plen;
	unsigned int max;
	struct in_addr a4;
	size_t n = strlen(s);

	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n + 1);
	slash = strchr(buf, '/');
	if (slash != NULL)
		*slash = '\0';
	if (inet_pton(AF_INET, buf, &a4) == 1) {
		p->family = AF_INET;
		p->v4 = ntohl(a4.s_addr);
		max = 32;
	} else if (inet_pton(AF_INET6, buf, p->v6) == 1) {
		p->family = AF_INET6;
		max = 128;
	} else {
		return -EINVAL;
	}
	p->plen = max;
	if (slash != NULL) {
		if (slash[1] < '0' || slash[1] > '9')
			return -EINVAL;
		errno = 0;
		plen = strtoul(slash + 1, &end, 10);
		if (errno != 0 || *end != '\0' || plen > max)
			return -EINVAL;
		p->plen = (unsigned int)plen;
	}
	return 0;
}

static void
parse_dst_list(struct opts *o)
{
	char *copy, *tok, *save = NULL;

	copy = strdup(o->dst);
	if (copy == NULL) {
		perror("strdup");
		exit(1);
	}
	o->n_dst = 0;
	for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		if (o->n_dst == MAX_DST_PREFIXES)
			usage_error("--dst: more than %d prefixes", MAX_DST_PREFIXES);
		if (parse_prefix(tok, &o->dst_pfx[o->n_dst]) != 0)
			usage_error("--dst: '%s' is not an IPv4/IPv6 address or prefix", tok);
		if (o->dst_pfx[o->n_dst].family != (o->ipv6 ? AF_INET6 : AF_INET))
			usage_error("--dst: '%s' is not an %s prefix%s", tok,
				o->ipv6 ? "IPv6" : "IPv4", o->ipv6 ? "" : " (use -6 for IPv6)");
		o->n_dst++;
	}
	if (o->n_dst == 0)
		usage_error("--dst: empty prefix list");
	free(copy);
}

enum {
	OPT_FLOWS = 256,
	OPT_COUNT,
	OPT_FRAME_SIZE,
	OPT_PAYLOAD_SIZE,
	OPT_SRC,
	OPT_DST,
	OPT_SRC_MAC,
	OPT_DST_MAC,
	OPT_TTL,
	OPT_TOS,
	OPT_DF,
	OPT_VLAN,
	OPT_SPORT,
	OPT_DPORT,
	OPT_VARY,
};

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ "ipv6", no_argument, NULL, '6' },
	{ "flows", required_argument, NULL, OPT_FLOWS },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "frame-size", required_argument, NULL, OPT_FRAME_SIZE },
	{ "payload-size", required_argument, NULL, OPT_PAYLOAD_SIZE },
	{ "src", required_argument, NULL, OPT_SRC },
	{ "dst", required_argument, NULL, OPT_DST },
	{ "src-mac", required_argument, NULL, OPT_SRC_MAC },
	{ "dst-mac", required_argument, NULL, OPT_DST_MAC },
	{ "ttl", required_argument, NULL, OPT_TTL },
	{ "tos", required_argument, NULL, OPT_TOS },
	{ "df", no_argument, NULL, OPT_DF },
	{ "vlan", required_argument, NULL, OPT_VLAN },
	{ "sport", required_argument, NULL, OPT_SPORT },
	{ "dport", required_argument, NULL, OPT_DPORT },
	{ "vary", required_argument, NULL, OPT_VARY },
	{ NULL, 0, NULL, 0 },
};

static void
parse_vlan(struct opts *o, const char *arg)
{
	char buf[32];
	char *colon;
	uint64_t vid, pcp = 0;
	size_t n = strlen(arg);

	if (n >= sizeof(buf))
		usage_error("--vlan: '%s' is not VID[:PCP]", arg);
	memcpy(buf, arg, n + 1);
	colon = strchr(buf, ':');
	if (colon != NULL) {
		*colon = '\0';
		pcp = parse_uint("--vlan PCP", colon + 1, 0, 7);
	}
	vid = parse_uint("--vlan VID", buf, 0, 4095);
	o->vlan = true;
	o->vlan_tci = (uint16_t)(pcp << 13 | vid);
}

/* Smallest frame size (FCS included) that fits the headers, at least 64. */
static uint32_t
min_frame_size(const struct opts *o)
{
	uint32_t need = DP_PKT_ETH_HLEN + (o->vlan ? DP_PKT_VLAN_HLEN : 0) + (o->ipv6 ? 40 : 20) +
			8 + DP_PKT_FCS_LEN;

	return need < DP_PKT_MIN_FRAME_LEN ? DP_PKT_MIN_FRAME_LEN : need;
}

static void
parse_args(int argc, char **argv, struct opts *o)
{
	int c;

	opterr = 0; /* report errors ourselves, prefixed with the program name */
	while ((c = getopt_long(argc, argv, ":o:h6", long_opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case '6':
			o->ipv6 = true;
			break;
		case OPT_FLOWS:
			o->flows = (uint32_t)parse_uint("--flows", optarg, 1, UINT32_MAX);
			o->flows_set = true;
			break;
		case OPT_COUNT:
			o->count = parse_uint("--count", optarg, 1, UINT64_MAX);
			o->count_set = true;
			break;
		case OPT_FRAME_SIZE:
			o->frame_size = (uint32_t)parse_uint(
				"--frame-size", optarg, DP_PKT_MIN_FRAME_LEN, 65535);
			o->frame_size_set = true;
			break;
		case OPT_PAYLOAD_SIZE:
			o->payload_size = (uint32_t)parse_uint("--payload-size", optarg, 0, 65487);
			o->payload_size_set = true;
			break;
		case OPT_SRC:
			o->src = optarg;
			break;
		case OPT_DST:
			o->dst = optarg;
			break;
		case OPT_SRC_MAC:
			if (parse_mac(optarg, o->src_mac) != 0)
				usage_error("--src-mac: '%s' is not xx:xx:xx:xx:xx:xx", optarg);
			break;
		case OPT_DST_MAC:
			if (parse_mac(optarg, o->dst_mac) != 0)
				usage_error("--dst-mac: '%s' is not xx:xx:xx:xx:xx:xx", optarg);
			break;
		case OPT_TTL:
			o->ttl = (uint8_t)parse_uint("--ttl", optarg, 0, 255);
			break;
		case OPT_TOS:
			o->tos = (uint8_t)parse_uint("--tos", optarg, 0, 255);
			break;
		case OPT_DF:
			o->df = true;
			break;
		case OPT_VLAN:
			parse_vlan(o, optarg);
			break;
		case OPT_SPORT:
			o->sport = (uint16_t)parse_uint("--sport", optarg, 0, 65535);
			break;
		case OPT_DPORT:
			o->dport = (uint16_t)parse_uint("--dport", optarg, 0, 65535);
			break;
		case OPT_VARY:
			if (strcmp(optarg, "sport") == 0)
				o->vary = DP_PKT_VARY_SPORT;
			else if (strcmp(optarg, "saddr") == 0)
				o->vary = DP_PKT_VARY_SADDR;
			else if (strcmp(optarg, "both") == 0)
				o->vary = DP_PKT_VARY_SPORT | DP_PKT_VARY_SADDR;
			else
				usage_error("--vary: '%s' is not sport, saddr or both", optarg);
			o->vary_set = true;
			break;
		case ':':
			if (optopt != 0)
				usage_error("option '-%c' requires an argument", optopt);
			usage_error("option '%s' requires an argument", argv[optind - 1]);
		default:
			if (optopt != 0)
				usage_error("unknown option '-%c'", optopt);
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);

	if (o->output == NULL)
		usage_error("missing -o/--output FILE");
	if (o->frame_size_set && o->payload_size_set)
		usage_error("--frame-size and --payload-size are mutually exclusive");
	if (strcmp(o->mode, "malformed") == 0) {
		if (o->ipv6)
			usage_error("malformed: -6 is not supported (the defects are IPv4 ones)");
		if (o->flows_set || o->count_set || o->vary_set)
			usage_error("malformed: --flows/--count/--vary are flows mode options");
	}
	if (!o->count_set)
		o->count = o->flows;

	if (o->src == NULL)
		o->src = o->ipv6 ? "2001:db8::/64" : "198.18.0.0/24";
	if (o->dst == NULL)
		o->dst = o->ipv6 ? "2001:db8:1::/64" : "198.18.1.0/24";
	if (parse_prefix(o->src, &o->src_pfx) != 0)
		usage_error("--src: '%s' is not an IPv4/IPv6 address or prefix", o->src);
	if (o->src_pfx.family != (o->ipv6 ? AF_INET6 : AF_INET))
		usage_error("--src: '%s' is not an %s prefix%s", o->src, o->ipv6 ? "IPv6" : "IPv4",
			o->ipv6 ? "" : " (use -6 for IPv6)");
	parse_dst_list(o);
	if (o->frame_size_set && o->frame_size < min_frame_size(o))
		usage_error("--frame-size %" PRIu32 " is too small for the %s/UDP headers%s "
			    "(minimum %" PRIu32 ")",
			o->frame_size, o->ipv6 ? "IPv6" : "IPv4", o->vlan ? " with a VLAN tag" : "",
			min_frame_size(o));
}

/* Base spec shared by all packets of the run. */
static void
base_spec(const struct opts *o, struct dp_pkt_spec *s)
{
	dp_pkt_spec_init(s);
	memcpy(s->src_mac, o->src_mac, 6);
	memcpy(s->dst_mac, o->dst_mac, 6);
	s->ip_version = o->ipv6 ? 6 : 4;
	s->src_ip4 = o->src_pfx.v4;
	memcpy(s->src_ip6, o->src_pfx.v6, 16);
	s->ttl = o->ttl;
	s->tos = o->tos;
	s->df = o->df;
	s->has_vlan = o->vlan;
	s->vlan_tci = o->vlan_tci;
	s->sport = o->sport;
	s->dport = o->dport;
	if (o->payload_size_set) {
		s->frame_len = 0;
		s->payload_len = o->payload_size;
	} else if (o->frame_size_set) {
		s->frame_len = o->frame_size;
	} else {
		s->frame_len = min_frame_size(o);
	}
}

/* Spec of flow @p id: addresses from the prefixes, varying fields from the flow id. */
static int
flow_spec(const struct opts *o, const struct dp_pkt_spec *base, uint32_t id, struct dp_pkt_spec *s)
{
	const struct prefix *d = &o->dst_pfx[id % o->n_dst];
	uint32_t host = id / o->n_dst;
	int ret;

	ret = dp_pkt_spec_flow(s, base, id, o->vary, o->src_pfx.plen);
	if (ret != 0)
		return ret;
	if (!(o->vary & DP_PKT_VARY_SADDR)) {
		const struct prefix *sp = &o->src_pfx;

		/* fixed source: first usable host of --src */
		if (o->ipv6)
			ret = dp_pkt_ipv6_prefix_host(sp->v6, sp->plen, 0, s->src_ip6);
		else
			ret = dp_pkt_ipv4_prefix_host(sp->v4, sp->plen, 0, &s->src_ip4);
		if (ret != 0)
			return ret;
	}
	if (o->ipv6)
		return dp_pkt_ipv6_prefix_host(d->v6, d->plen, host, s->dst_ip6);
	return dp_pkt_ipv4_prefix_host(d->v4, d->plen, host, &s->dst_ip4);
}

struct flow_key {
	uint8_t src[16];
	uint8_t dst[16];
	uint16_t sport;
};

static int
key_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct flow_key));
}

static void
key_of(const struct dp_pkt_spec *s, struct flow_key *k)
{
	memset(k, 0, sizeof(*k));
	if (s->ip_version == 6) {
		memcpy(k->src, s->src_ip6, 16);
		memcpy(k->dst, s->dst_ip6, 16);
	} else {
		memcpy(k->src, &s->src_ip4, 4);
		memcpy(k->dst, &s->dst_ip4, 4);
	}
	k->sport = s->sport;
}

/* Number of distinct (src, dst, sport) among the flows; 0 if not computable (no memory). */
static uint64_t
count_distinct(const struct opts *o, const struct dp_pkt_spec *base)
{
	struct flow_key *keys;
	struct dp_pkt_spec s;
	uint64_t n = 0, i;

	keys = calloc(o->flows, sizeof(*keys));
	if (keys == NULL)
		return 0;
	for (i = 0; i < o->flows; i++) {
		if (flow_spec(o, base, (uint32_t)i, &s) != 0) {
			free(keys);
			return 0;
		}
		key_of(&s, &keys[i]);
	}
	qsort(keys, o->flows, sizeof(*keys), key_cmp);
	for (i = 0; i < o->flows; i++)
		if (i == 0 || key_cmp(&keys[i - 1], &keys[i]) != 0)
			n++;
	free(keys);
	return n;
}

struct writer {
	pcap_t *pcap;
	pcap_dumper_t *dumper;
	uint64_t n;
};

static int
writer_open(struct writer *w, const char *path)
{
	w->n = 0;
	w->pcap = pcap_open_dead(DLT_EN10MB, 65535);
	if (w->pcap == NULL) {
		fprintf(stderr, "%s: pcap_open_dead failed\n", prog);
		return -ENOMEM;
	}
	w->dumper = pcap_dump_open(w->pcap, path);
	if (w->dumper == NULL) {
		/* pcap_geterr() already names the file */
		fprintf(stderr, "%s: cannot create output: %s\n", prog, pcap_geterr(w->pcap));
		pcap_close(w->pcap);
		return -EIO;
	}
	return 0;
}

static void
writer_put(struct writer *w, const uint8_t *frame, size_t len)
{
	struct pcap_pkthdr h;

	memset(&h, 0, sizeof(h));
	h.ts.tv_sec = (time_t)(w->n / 1000000);
	h.ts.tv_usec = (suseconds_t)(w->n % 1000000);
	h.caplen = (bpf_u_int32)len;
	h.len = (bpf_u_int32)len;
	pcap_dump((u_char *)w->dumper, &h, frame);
	w->n++;
}

static int
writer_close(struct writer *w, const char *path)
{
	int ret = 0;

	if (pcap_dump_flush(w->dumper) != 0) {
		fprintf(stderr, "%s: %s: write error\n", prog, path);
		ret = -EIO;
	}
	pcap_dump_close(w->dumper);
	pcap_close(w->pcap);
	return ret;
}

static const char *
build_error(int ret)
{
	if (ret == -EINVAL)
		return "frame size too small for the headers, or IP length above 65535";
	return strerror(-ret);
}

static int
run_flows(const struct opts *o)
{
	static uint8_t buf[BUF_SIZE];
	struct dp_pkt_spec base, s;
	struct writer w;
	uint64_t k, distinct;
	size_t len = 0, first_len = 0;
	int ret;

	base_spec(o, &base);
	/* validate the size once, with clear diagnostics, before creating the file */
	ret = flow_spec(o, &base, 0, &s);
	if (ret == 0)
		ret = dp_pkt_build(&s, buf, sizeof(buf), &len);
	if (ret != 0) {
		fprintf(stderr, "%s: cannot build packets: %s\n", prog, build_error(ret));
		return EXIT_USAGE;
	}

	distinct = count_distinct(o, &base);
	if (distinct != 0 && distinct < o->flows)
		fprintf(stderr,
			"%s: WARNING: only %" PRIu64 " distinct (src, dst, sport) among %" PRIu32
			" flows; use a larger --src prefix or --vary both\n",
			prog, distinct, o->flows);

	if (writer_open(&w, o->output) != 0)
		return 1;
	for (k = 0; k < o->count; k++) {
		ret = flow_spec(o, &base, (uint32_t)(k % o->flows), &s);
		if (ret == 0) {
			s.ip_id = (uint16_t)k;
			ret = dp_pkt_build(&s, buf, sizeof(buf), &len);
		}
		if (ret != 0) {
			fprintf(stderr, "%s: packet %" PRIu64 ": %s\n", prog, k, build_error(ret));
			writer_close(&w, o->output);
			return 1;
		}
		if (k == 0)
			first_len = len;
		writer_put(&w, buf, len);
	}
	if (writer_close(&w, o->output) != 0)
		return 1;
	if (distinct == 0)
		fprintf(stderr, "%s: note: too many flows to check that they are distinct\n", prog);
	fprintf(stderr,
		"%s: wrote %" PRIu64 " packets, %" PRIu32 " flows (%" PRIu64
		" distinct), %zu bytes captured per frame, to %s\n",
		prog, o->count, o->flows, distinct, first_len, o->output);
	return 0;
}

static int
run_malformed(const struct opts *o)
{
	static uint8_t buf[BUF_SIZE];
	struct dp_pkt_spec base, s;
	struct writer w;
	size_t len = 0;
	unsigned int i, n = DP_PKT_DEFECT_COUNT + 2;
	int ret;

	base_spec(o, &base);
	if (writer_open(&w, o->output) != 0)
		return 1;
	for (i = 0; i < n; i++) {
		/* packet i: UDP source port base + i, IP id i; defect i - 1 for 1..n-2 */
		ret = dp_pkt_spec_flow(&s, &base, i, DP_PKT_VARY_SPORT, 32);
		if (ret == 0)
			ret = dp_pkt_ipv4_prefix_host(
				o->src_pfx.v4, o->src_pfx.plen, 0, &s.src_ip4);
		if (ret == 0)
			ret = dp_pkt_ipv4_prefix_host(
				o->dst_pfx[0].v4, o->dst_pfx[0].plen, 0, &s.dst_ip4);
		if (ret == 0) {
			s.ip_id = (uint16_t)i;
			ret = dp_pkt_build(&s, buf, sizeof(buf), &len);
		}
		if (ret == 0 && i != 0 && i != n - 1)
			ret = dp_pkt_corrupt(buf, &len, (enum dp_pkt_defect)(i - 1));
		if (ret != 0) {
			fprintf(stderr, "%s: packet %u: %s\n", prog, i, build_error(ret));
			writer_close(&w, o->output);
			return i == 0 ? EXIT_USAGE : 1;
		}
		writer_put(&w, buf, len);
	}
	if (writer_close(&w, o->output) != 0)
		return 1;
	fprintf(stderr, "%s: wrote %u packets (valid,", prog, n);
	for (i = 0; i < DP_PKT_DEFECT_COUNT; i++)
		fprintf(stderr, " %s,", dp_pkt_defect_name((enum dp_pkt_defect)i));
	fprintf(stderr, " valid) to %s\n", o->output);
	return 0;
}

int
main(int argc, char **argv)
{
	static const uint8_t def_src_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
	static const uint8_t def_dst_mac[6] = { 0x02, 0x70, 0x63, 0x61, 0x70, 0x00 };
	struct opts o;

	memset(&o, 0, sizeof(o));
	o.flows = 1;
	o.frame_size = DP_PKT_MIN_FRAME_LEN;
	o.ttl = 64;
	o.sport = 1024;
	o.dport = 9;
	o.vary = DP_PKT_VARY_SPORT;
	memcpy(o.src_mac, def_src_mac, 6);
	memcpy(o.dst_mac, def_dst_mac, 6);

	if (argc < 2)
		usage_error("missing mode (flows or malformed)");
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "flows") != 0 && strcmp(argv[1], "malformed") != 0)
		usage_error("unknown mode '%s' (expected flows or malformed)", argv[1]);
	o.mode = argv[1];

	/* parse the options that follow the mode; argv[0] of the sub-vector is the mode */
	parse_args(argc - 1, argv + 1, &o);

	if (strcmp(o.mode, "flows") == 0)
		return run_flows(&o);
	return run_malformed(&o);
}
