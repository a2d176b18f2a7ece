/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Functional tests of the dpfwd binary on DPDK virtual ports: no NIC needed.
 *
 *   port0  net_pcap0,rx_pcap=IN      the input, read once (no infinite_rx)
 *   port1  net_pcap1,tx_pcap=OUT1    198.18.1.0/24 via 198.18.101.2 (02:00:00:00:01:02)
 *   port2  net_pcap2,tx_pcap=OUT2    198.18.2.0/24 via 198.18.102.2 (02:00:00:00:02:02)
 *
 * Each test writes its input pcap (libpcap, frames from dp_pkt_craft) and a config into a
 * folder of a mkdtemp() directory, runs dpfwd as a child process (fork/exec, always reaped,
 * SIGKILLed on timeout) with EAL "--no-huge -m 512 --no-pci --file-prefix dpft<pid>_<n>
 * -l 0,1", then compares the output pcaps byte by byte and reads the telemetry JSON.
 *
 * net_pcap notes (DPDK 22.11): a port with only tx_pcap gets a dummy RX side, and a port with
 * only rx_pcap a dropping TX side, so dpfwd's one TX queue per worker works on all three.
 * The driver has no mac_addr_set: "mac =" on a net_pcap port makes dpfwd exit 1, so the
 * ports keep their driver MACs 02:70:63:61:70:<n> (n = order of creation), which the tests
 * read back from the JSON. Output pcaps are created when the device is probed.
 *
 * Set DPFT_KEEP=1 to keep the temporary folder (its path is printed).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <jansson.h>
#include <pcap/pcap.h>

#include "dp_pkt_craft.h"
#include "dp_test.h"

#define RUN_TIMEOUT_S 30.0
#define MAX_PKTS      1024
#define ETH_HLEN      14
#define IP_TTL_OFF    (ETH_HLEN + 8)
#define IP_CKSUM_OFF  (ETH_HLEN + 10)

#define IP4(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (d))
#define NET1            IP4(198, 18, 1, 0)
#define NET2            IP4(198, 18, 2, 0)
#define SRC_NET         IP4(198, 18, 0, 0)
#define IP_NO_ROUTE     IP4(198, 18, 200, 1) /* no route covers 198.18.200.0/24 */
#define IP_ROUTER       IP4(198, 18, 0, 1)   /* port0's own address */

/* net_pcap MACs in creation order, and the static neighbors of the config */
static const uint8_t pcap_mac[3][6] = {
	{ 0x02, 0x70, 0x63, 0x61, 0x70, 0x00 },
	{ 0x02, 0x70, 0x63, 0x61, 0x70, 0x01 },
	{ 0x02, 0x70, 0x63, 0x61, 0x70, 0x02 },
};
static const uint8_t neigh_mac[3][6] = {
	{ 0 },
	{ 0x02, 0x00, 0x00, 0x00, 0x01, 0x02 },
	{ 0x02, 0x00, 0x00, 0x00, 0x02, 0x02 },
};
static const uint8_t other_host_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x99, 0x99 };

static char dpfwd_bin[PATH_MAX];
static char suite_dir[PATH_MAX];
static unsigned int run_seq;

/* ---- small utilities ---- */

static int __attribute__((format(printf, 3, 4)))
fmt_path(char *out, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len) {
		fprintf(stderr, "path too long\n");
		abort();
	}
	return n;
}

static bool
exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Whole file as a string (for logs); "" if unreadable. Caller frees. */
static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (f == NULL)
		return strdup("");
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap);
			if (buf == NULL) {
				fclose(f);
				return strdup("");
			}
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		if (n == 0)
			break;
		len += n;
	}
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/* ---- frames ---- */

struct frame {
	uint8_t *data;
	size_t len;
};

struct input {
	struct frame f[MAX_PKTS];
	int out_port[MAX_PKTS];    /* 1 or 2: forwarded there; 0: dropped */
	const char *why[MAX_PKTS]; /* drop reason when dropped */
	bool bad_cksum[MAX_PKTS];  /* forwarded with a wrong header checksum (check off) */
	unsigned int n;
};

static void
input_free(struct input *in)
{
	unsigned int i;

	for (i = 0; i < in->n; i++)
		free(in->f[i].data);
	in->n = 0;
}

static void
input_push(struct input *in, const uint8_t *data, size_t len, int out_port, const char *why)
{
	struct frame *f;

	if (in->n == MAX_PKTS) {
		fprintf(stderr, "too many input packets\n");
		abort();
	}
	f = &in->f[in->n];
	f->data = malloc(len);
	if (f->data == NULL)
		abort();
	memcpy(f->data, data, len);
	f->len = len;
	in->out_port[in->n] = out_port;
	in->why[in->n] = why;
	in->bad_cksum[in->n] = false;
	in->n++;
}

static const uint32_t frame_lens[] = { 64, 1518, 65, 128, 1500, 256, 511, 512, 1000, 1024, 1280,
	77 };
static const uint8_t ttls[] = { 64, 2, 255, 17, 128, 3, 33, 100 };

/* Valid frame number @p i toward route @p port (1 or 2): sizes, TTLs, ids, ports vary. */
static void
valid_spec(struct dp_pkt_spec *s, unsigned int i, int port)
{
	dp_pkt_spec_init(s);
	memcpy(s->dst_mac, pcap_mac[0], 6);
	s->src_mac[5] = (uint8_t)(0x10 + i % 8);
	s->src_ip4 = SRC_NET | (2 + i % 200);
	s->dst_ip4 = (port == 1 ? NET1 : NET2) | (1 + (i * 7) % 254);
	s->ttl = ttls[i % (sizeof(ttls) / sizeof(ttls[0]))];
	s->tos = (uint8_t)((i % 4) << 3);
	s->ip_id = (uint16_t)(i * 37 + 1);
	s->df = (i & 1) != 0;
	s->sport = (uint16_t)(1024 + i);
	s->dport = (uint16_t)(9 + i % 7);
	s->frame_len = frame_lens[i % (sizeof(frame_lens) / sizeof(frame_lens[0]))];
	s->flow_id = i;
}

static void
add_valid(struct input *in, unsigned int i, int port)
{
	struct dp_pkt_spec s;
	uint8_t buf[2048];
	size_t len;
	int rc;

	valid_spec(&s, i, port);
	rc = dp_pkt_build(&s, buf, sizeof(buf), &len);
	if (rc != 0) {
		fprintf(stderr, "dp_pkt_build: %d\n", rc);
		abort();
	}
	input_push(in, buf, len, port, NULL);
}

/* Malformed kinds: dp_pkt_corrupt() defects, then three of our own. */
enum {
	MAL_NO_ROUTE = DP_PKT_DEFECT_COUNT,
	MAL_LOCAL,
	MAL_OTHER_HOST,
};

static const struct {
	int kind;
	const char *why; /* drop reason as named in the telemetry JSON */
} malformed[] = {
	{ DP_PKT_TRUNCATED_L3, "ip4_truncated" },
	{ DP_PKT_BAD_VERSION, "ip4_bad_version" },
	{ DP_PKT_BAD_IHL, "ip4_bad_ihl" },
	{ DP_PKT_BAD_CKSUM, "ip4_bad_cksum" },
	{ DP_PKT_LEN_GT_FRAME, "ip4_bad_length" },
	{ DP_PKT_TTL0, "ip4_ttl_exceeded" },
	{ DP_PKT_TTL1, "ip4_ttl_exceeded" },
	{ DP_PKT_NON_IP, "not_ip4" },
	{ DP_PKT_ARP,
		"arp_not_for_us" }, /* a request for another host: learned from only if known */
	{ MAL_NO_ROUTE, "ip4_no_route" },
	{ MAL_LOCAL, "ip4_local" },
	{ MAL_OTHER_HOST, "l2_other_host" },
};
#define NB_MALFORMED (sizeof(malformed) / sizeof(malformed[0]))

/* A frame that would be forwarded to @p port but for defect @p kind. */
static void
build_malformed(int kind, unsigned int i, int port, uint8_t *buf, size_t cap, size_t *len)
{
	struct dp_pkt_spec s;
	int rc;

	valid_spec(&s, i, port);
	s.ttl = 64;
	s.frame_len = (i & 1) ? 64 : 200;
	if (kind == MAL_NO_ROUTE)
		s.dst_ip4 = IP_NO_ROUTE;
	else if (kind == MAL_LOCAL)
		s.dst_ip4 = IP_ROUTER;
	else if (kind == MAL_OTHER_HOST)
		memcpy(s.dst_mac, other_host_mac, 6);
	rc = dp_pkt_build(&s, buf, cap, len);
	if (rc == 0 && kind < DP_PKT_DEFECT_COUNT)
		rc = dp_pkt_corrupt(buf, len, (enum dp_pkt_defect)kind);
	if (rc != 0) {
		fprintf(stderr, "building malformed kind %d: %d\n", kind, rc);
		abort();
	}
}

static void
add_malformed(struct input *in, unsigned int k, unsigned int i, int port)
{
	uint8_t buf[2048];
	size_t len;

	build_malformed(malformed[k].kind, i, port, buf, sizeof(buf), &len);
	input_push(in, buf, len, 0, malformed[k].why);
}

static int
pcap_write(const char *path, const struct input *in)
{
	pcap_t *p = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *d;
	unsigned int i;

	if (p == NULL)
		return -1;
	d = pcap_dump_open(p, path);
	if (d == NULL) {
		fprintf(stderr, "pcap_dump_open %s: %s\n", path, pcap_geterr(p));
		pcap_close(p);
		return -1;
	}
	for (i = 0; i < in->n; i++) {
		struct pcap_pkthdr h;

		memset(&h, 0, sizeof(h));
		h.ts.tv_sec = 1700000000;
		h.ts.tv_usec = (suseconds_t)i;
		h.caplen = (bpf_u_int32)in->f[i].len;
		h.len = (bpf_u_int32)in->f[i].len;
		pcap_dump((u_char *)d, &h, in->f[i].data);
	}
	pcap_dump_close(d);
	pcap_close(p);
	return 0;
}

struct capture {
	struct frame *f;
	unsigned int n;
	bool truncated;   /* some record had caplen < len */
	unsigned int arp; /* gratuitous ARPs taken out by take_announcements() */
};

static int
pcap_read(const char *path, struct capture *c)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	unsigned int cap = 0;
	pcap_t *p;
	int rc;

	memset(c, 0, sizeof(*c));
	p = pcap_open_offline(path, errbuf);
	if (p == NULL) {
		fprintf(stderr, "pcap_open_offline %s: %s\n", path, errbuf);
		return -1;
	}
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		if (c->n == cap) {
			cap = cap ? cap * 2 : 64;
			c->f = realloc(c->f, cap * sizeof(*c->f));
			if (c->f == NULL)
				abort();
		}
		if (h->caplen != h->len)
			c->truncated = true;
		c->f[c->n].data = malloc(h->caplen ? h->caplen : 1);
		if (c->f[c->n].data == NULL)
			abort();
		memcpy(c->f[c->n].data, data, h->caplen);
		c->f[c->n].len = h->caplen;
		c->n++;
	}
	pcap_close(p);
	return rc == PCAP_ERROR_BREAK ? 0 : -1;
}

static void
capture_free(struct capture *c)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		free(c->f[i].data);
	free(c->f);
	memset(c, 0, sizeof(*c));
}

/* ---- one's complement helpers (host-order 16-bit values) ---- */

static uint16_t
oc_add(uint16_t a, uint16_t b)
{
	uint32_t s = (uint32_t)a + b;

	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* 0x0000 and 0xffff are the same number in one's complement */
static uint16_t
oc_norm(uint16_t a)
{
	return a == 0xffff ? 0 : a;
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Header checksum of a 20-byte IPv4 header as it should be, host order. */
static uint16_t
ip_cksum_recompute(const uint8_t *ip)
{
	uint8_t h[20];
	uint16_t ck;

	memcpy(h, ip, sizeof(h));
	h[10] = h[11] = 0;
	ck = dp_pkt_cksum(h, sizeof(h));
	memcpy(&h[10], &ck, 2);
	return get16(&h[10]);
}

/* The error of a stored checksum: stored - correct, one's complement, normalised. */
static uint16_t
ip_cksum_error(const uint8_t *ip)
{
	return oc_norm(oc_add(get16(&ip[10]), (uint16_t)~ip_cksum_recompute(ip)));
}

/*
 * Check one forwarded frame against its input: MACs rewritten, TTL - 1, the header checksum
 * correct and equal to a full recompute (or, for a frame sent in with a bad checksum, still
 * wrong by the same amount), every other byte identical. Prints what differs.
 */
static bool
frame_forwarded_ok(
	const struct frame *in, const struct frame *out, int port, bool bad_cksum, unsigned int idx)
{
	uint8_t *exp;
	const uint8_t *o = out->data;
	bool ok = true;
	size_t k;

	if (out->len != in->len) {
		fprintf(stderr, "input #%u: output length %zu, input %zu\n", idx, out->len,
			in->len);
		return false;
	}
	exp = malloc(in->len);
	if (exp == NULL)
		abort();
	memcpy(exp, in->data, in->len);
	memcpy(exp, neigh_mac[port], 6);
	memcpy(exp + 6, pcap_mac[port], 6);
	exp[IP_TTL_OFF] = (uint8_t)(in->data[IP_TTL_OFF] - 1);
	if (memcmp(o, neigh_mac[port], 6) != 0) {
		fprintf(stderr, "input #%u: dst MAC is not neighbor %d's\n", idx, port);
		ok = false;
	}
	if (memcmp(o + 6, pcap_mac[port], 6) != 0) {
		fprintf(stderr, "input #%u: src MAC is not port%d's\n", idx, port);
		ok = false;
	}
	if (o[IP_TTL_OFF] != (uint8_t)(in->data[IP_TTL_OFF] - 1)) {
		fprintf(stderr, "input #%u: TTL %u, expected %u - 1\n", idx, o[IP_TTL_OFF],
			in->data[IP_TTL_OFF]);
		ok = false;
	}
	if (!bad_cksum) {
		uint16_t ck = ip_cksum_recompute(exp + ETH_HLEN);

		exp[IP_CKSUM_OFF] = (uint8_t)(ck >> 8);
		exp[IP_CKSUM_OFF + 1] = (uint8_t)ck;
		if (!dp_pkt_ipv4_hdr_cksum_ok(o + ETH_HLEN)) {
			fprintf(stderr, "input #%u: IPv4 header checksum 0x%04x invalid\n", idx,
				get16(o + IP_CKSUM_OFF));
			ok = false;
		}
		if (!dp_pkt_udp_cksum_ok(o, out->len)) {
			fprintf(stderr, "input #%u: UDP checksum invalid\n", idx);
			ok = false;
		}
	} else {
		uint16_t err_in = ip_cksum_error(in->data + ETH_HLEN);
		uint16_t err_out = ip_cksum_error(o + ETH_HLEN);

		/* compare the checksum through its error; the rest bytewise */
		exp[IP_CKSUM_OFF] = o[IP_CKSUM_OFF];
		exp[IP_CKSUM_OFF + 1] = o[IP_CKSUM_OFF + 1];
		if (err_in == 0 || err_out != err_in) {
			fprintf(stderr,
				"input #%u: bad checksum in 0x%04x (off by 0x%04x), out 0x%04x "
				"(off "
				"by 0x%04x): expected the same error after an incremental update\n",
				idx, get16(in->data + IP_CKSUM_OFF), err_in,
				get16(o + IP_CKSUM_OFF), err_out);
			ok = false;
		}
	}
	for (k = 0; k < in->len; k++)
		if (o[k] != exp[k]) {
			fprintf(stderr,
				"input #%u (port %d, %zu B): byte %zu is 0x%02x, expected 0x%02x\n",
				idx, port, in->len, k, o[k], exp[k]);
			ok = false;
			break;
		}
	free(exp);
	return ok;
}

/*
 * Every input frame with out_port 1/2 must be on that capture, in input order, and
 * nothing else. Returns the number of frames that matched.
 */
static unsigned int
check_outputs(const struct input *in, const struct capture out[3])
{
	unsigned int pos[3] = { 0, 0, 0 };
	unsigned int i, good = 0;
	int p;

	for (i = 0; i < in->n; i++) {
		p = in->out_port[i];
		if (p == 0)
			continue;
		if (pos[p] >= out[p].n) {
			fprintf(stderr, "input #%u: missing on port%d (only %u frames there)\n", i,
				p, out[p].n);
			pos[p]++;
			continue;
		}
		if (frame_forwarded_ok(&in->f[i], &out[p].f[pos[p]], p, in->bad_cksum[i], i))
			good++;
		pos[p]++;
	}
	for (p = 1; p <= 2; p++) {
		CU_ASSERT_EQUAL(out[p].n, pos[p]);
		CU_ASSERT_FALSE(out[p].truncated);
		if (out[p].n != pos[p])
			fprintf(stderr, "port%d: %u frames written, %u expected\n", p, out[p].n,
				pos[p]);
	}
	return good;
}

/* ---- running dpfwd ---- */

struct run {
	char dir[PATH_MAX];
	char cfg[PATH_MAX];
	char in[PATH_MAX];
	char out[3][PATH_MAX];
	char json[PATH_MAX];
	char log_out[PATH_MAX];
	char log_err[PATH_MAX];
	char prefix[64];
	char rundir[PATH_MAX]; /* EAL runtime folder of this run's file prefix */
	bool rundir_made;      /* it existed when dpfwd had exited (run_dpfwd removes it) */
	int status;            /* waitpid() status */
	bool timed_out;
	bool sigterm_sent;
	double elapsed;
};

static void
run_init(struct run *r, const char *name)
{
	const char *base = "/var/run";

	memset(r, 0, sizeof(*r));
	fmt_path(r->dir, sizeof(r->dir), "%s/%s", suite_dir, name);
	if (mkdir(r->dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "mkdir %s: %s\n", r->dir, strerror(errno));
		abort();
	}
	fmt_path(r->cfg, sizeof(r->cfg), "%s/dpfwd.ini", r->dir);
	fmt_path(r->in, sizeof(r->in), "%s/in.pcap", r->dir);
	fmt_path(r->out[1], sizeof(r->out[1]), "%s/out1.pcap", r->dir);
	fmt_path(r->out[2], sizeof(r->out[2]), "%s/out2.pcap", r->dir);
	fmt_path(r->json, sizeof(r->json), "%s/telemetry.json", r->dir);
	fmt_path(r->log_out, sizeof(r->log_out), "%s/stdout.log", r->dir);
	fmt_path(r->log_err, sizeof(r->log_err), "%s/stderr.log", r->dir);
	fmt_path(r->prefix, sizeof(r->prefix), "dpft%d_%u", (int)getpid(), run_seq++);
	/* where EAL puts it (eal_create_runtime_dir) */
	if (getuid() != 0) {
		const char *xdg = getenv("XDG_RUNTIME_DIR");

		base = xdg != NULL ? xdg : "/tmp";
	}
	fmt_path(r->rundir, sizeof(r->rundir), "%s/dpdk/%s", base, r->prefix);
	r->status = -1;
}

/*
 * The config, one line per entry; @p insert (if not NULL) goes right after the first line
 * that starts with @p after, and *line gets its 1-based number.
 */
static int
config_write(const struct run *r, const char *insert, const char *after, int *line)
{
	char port0[PATH_MAX + 64], port1[PATH_MAX + 64], port2[PATH_MAX + 64];
	const char *lines[] = {
		"# dpfwd config written by test_fwd_pcap",
		"[dpfwd]",
		"main_lcore = 0",
		"burst = 32",
		"ip4_cksum_check = on",
		/* no ICMP errors: each TTL/no-route drop then also counts icmp_ratelimited,
		 * and no error waits for the pcap source's (absent) neighbor (test_icmp4
		 * checks the errors themselves) */
		"icmp_rate = 0",
		"",
		"[port0]",
		port0,
		"ip4 = 198.18.0.1/24",
		"",
		"[port1]",
		port1,
		"ip4 = 198.18.101.1/24",
		"",
		"[port2]",
		port2,
		"ip4 = 198.18.102.1/24",
		"",
		"[lcores]",
		"rx = (0,0,1)",
		"",
		"[routes]",
		"route = 198.18.1.0/24 via 198.18.101.2 port 1",
		"route = 198.18.2.0/24 via 198.18.102.2 port 2",
		"",
		"[neighbors]",
		"neigh = 198.18.101.2 lladdr 02:00:00:00:01:02 port 1",
		"neigh = 198.18.102.2 lladdr 02:00:00:00:02:02 port 2",
	};
	unsigned int i;
	int n = 0;
	bool done = insert == NULL;
	FILE *f;

	fmt_path(port0, sizeof(port0), "dev = net_pcap0,rx_pcap=%s", r->in);
	fmt_path(port1, sizeof(port1), "dev = net_pcap1,tx_pcap=%s", r->out[1]);
	fmt_path(port2, sizeof(port2), "dev = net_pcap2,tx_pcap=%s", r->out[2]);
	f = fopen(r->cfg, "w");
	if (f == NULL)
		return -1;
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		fprintf(f, "%s\n", lines[i]);
		n++;
		if (!done && strncmp(lines[i], after, strlen(after)) == 0) {
			fprintf(f, "%s\n", insert);
			n++;
			if (line != NULL)
				*line = n;
			done = true;
		}
	}
	fclose(f);
	return done ? 0 : -1;
}

/*
 * Run dpfwd with the run's config, input and JSON, plus @p extra arguments after "--"
 * (NULL-terminated). With @p sigterm, send SIGTERM once the first JSON snapshot exists
 * (signal handlers are installed by then) and at least 1.5 s have passed. The child is
 * always reaped; after RUN_TIMEOUT_S it is SIGKILLed. The EAL runtime folder is removed
 * (whether there was one is in r->rundir_made).
 */
static void
run_dpfwd(struct run *r, const char *const *extra, bool sigterm)
{
	const char *argv[64];
	int argc = 0;
	double t0;
	pid_t pid;

	argv[argc++] = dpfwd_bin;
	argv[argc++] = "--no-huge";
	argv[argc++] = "-m";
	argv[argc++] = "512";
	argv[argc++] = "--no-pci";
	argv[argc++] = "--file-prefix";
	argv[argc++] = r->prefix;
	argv[argc++] = "-l";
	argv[argc++] = "0,1";
	argv[argc++] = "--";
	argv[argc++] = "-c";
	argv[argc++] = r->cfg;
	argv[argc++] = "--telemetry-json";
	argv[argc++] = r->json;
	while (extra != NULL && *extra != NULL && argc < 63)
		argv[argc++] = *extra++;
	argv[argc] = NULL;

	fflush(stdout);
	fflush(stderr);
	t0 = dp_test_now_s();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "fork: %s\n", strerror(errno));
		r->status = -1;
		return;
	}
	if (pid == 0) {
		int fo = open(r->log_out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int fe = open(r->log_err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fo < 0 || fe < 0 || dup2(fo, STDOUT_FILENO) < 0 || dup2(fe, STDERR_FILENO) < 0)
			_exit(126);
		close(fo);
		close(fe);
		signal(SIGPIPE, SIG_DFL);
		execv(dpfwd_bin, (char *const *)(uintptr_t)argv);
		fprintf(stderr, "execv %s: %s\n", dpfwd_bin, strerror(errno));
		_exit(127);
	}
	for (;;) {
		pid_t w = waitpid(pid, &r->status, WNOHANG);
		double t = dp_test_now_s() - t0;

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			fprintf(stderr, "waitpid %d: %s\n", (int)pid, strerror(errno));
			break;
		}
		if (sigterm && !r->sigterm_sent && t >= 1.5 && exists(r->json)) {
			kill(pid, SIGTERM);
			r->sigterm_sent = true;
		}
		if (t > RUN_TIMEOUT_S) {
			fprintf(stderr, "dpfwd pid %d still running after %.0f s: SIGKILL\n",
				(int)pid, RUN_TIMEOUT_S);
			kill(pid, SIGKILL);
			while (waitpid(pid, &r->status, 0) < 0 && errno == EINTR)
				;
			r->timed_out = true;
			break;
		}
		dp_test_sleep_s(0.02);
	}
	r->elapsed = dp_test_now_s() - t0;
	r->rundir_made = exists(r->rundir);
	dp_test_rm_rf(r->rundir);
}

static bool
run_exited(const struct run *r, int code)
{
	bool ok = !r->timed_out && r->status != -1 && WIFEXITED(r->status) &&
		  WEXITSTATUS(r->status) == code;

	if (!ok) {
		char *err = slurp(r->log_err);

		if (r->status != -1 && WIFSIGNALED(r->status))
			fprintf(stderr, "dpfwd killed by signal %d (expected exit %d)\n",
				WTERMSIG(r->status), code);
		else if (r->status != -1 && WIFEXITED(r->status))
			fprintf(stderr, "dpfwd exit status %d (expected %d)\n",
				WEXITSTATUS(r->status), code);
		fprintf(stderr, "---- dpfwd stderr (%s) ----\n%s----\n", r->log_err, err);
		free(err);
	}
	return ok;
}

/* ---- telemetry JSON ---- */

static json_t *
json_read(const struct run *r)
{
	json_error_t e;
	json_t *j = json_load_file(r->json, 0, &e);

	if (j == NULL)
		fprintf(stderr, "%s: %s (line %d)\n", r->json, e.text, e.line);
	return j;
}

static json_int_t
j_int(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? json_integer_value(v) : -1;
}

static json_int_t
lcores_sum(const json_t *root, const char *key)
{
	const json_t *arr = json_object_get(root, "lcores");
	json_int_t sum = 0;
	size_t i;

	if (!json_is_array(arr) || json_array_size(arr) == 0)
		return -1;
	for (i = 0; i < json_array_size(arr); i++) {
		json_int_t v = j_int(json_array_get(arr, i), key);

		if (v < 0)
			return -1;
		sum += v;
	}
	return sum;
}

/* Packets dropped: the total less the ICMP errors refused (icmp_rate = 0), which
 * are packets the router made, not ones it received. */
static json_int_t
drops_total(const json_t *root)
{
	const json_t *d = json_object_get(root, "drops");

	return j_int(d, "total") - j_int(json_object_get(d, "by_reason"), "icmp_ratelimited");
}

static json_int_t
port_stat(const json_t *root, unsigned int port, const char *key)
{
	return j_int(json_array_get(json_object_get(root, "ports"), port), key);
}

/* The ports' MACs in the JSON are the ones the tests expect. */
static bool
json_macs_ok(const json_t *root)
{
	unsigned int p;
	bool ok = true;

	for (p = 0; p < 3; p++) {
		const char *s = json_string_value(
			json_object_get(json_array_get(json_object_get(root, "ports"), p), "mac"));
		char want[18];

		snprintf(want, sizeof(want), "%02X:%02X:%02X:%02X:%02X:%02X", pcap_mac[p][0],
			pcap_mac[p][1], pcap_mac[p][2], pcap_mac[p][3], pcap_mac[p][4],
			pcap_mac[p][5]);
		if (s == NULL || strcasecmp(s, want) != 0) {
			fprintf(stderr, "port%u MAC %s, expected %s\n", p, s ? s : "(none)", want);
			ok = false;
		}
	}
	return ok;
}

/*
 * Every drop counter is what @p in expects: its "why" counts, every other reason 0; each
 * expected reason must exist in the JSON.
 */
static bool
drops_match(const json_t *root, const struct input *in)
{
	const json_t *by = json_object_get(json_object_get(root, "drops"), "by_reason");
	const char *key;
	const json_t *v;
	unsigned int i;
	bool ok = true;

	if (!json_is_object(by)) {
		fprintf(stderr, "no drops.by_reason in the JSON\n");
		return false;
	}
	for (i = 0; i < in->n; i++)
		if (in->why[i] != NULL && json_object_get(by, in->why[i]) == NULL) {
			fprintf(stderr, "drop reason '%s' missing from the JSON\n", in->why[i]);
			ok = false;
		}
	json_object_foreach((json_t *)(uintptr_t)by, key, v)
	{
		json_int_t want = 0;

		for (i = 0; i < in->n; i++) {
			if (in->why[i] != NULL && strcmp(in->why[i], key) == 0)
				want++;
			/* the ICMP error each of these asks for, refused (icmp_rate = 0) */
			if (in->why[i] != NULL && strcmp(key, "icmp_ratelimited") == 0 &&
				(strcmp(in->why[i], "ip4_ttl_exceeded") == 0 ||
					strcmp(in->why[i], "ip4_no_route") == 0))
				want++;
		}
		if (!json_is_integer(v) || json_integer_value(v) != want) {
			fprintf(stderr, "drops.by_reason.%s = %lld, expected %lld\n", key,
				json_is_integer(v) ? (long long)json_integer_value(v) : -1LL,
				(long long)want);
			ok = false;
		}
	}
	return ok;
}

static unsigned int
input_forwarded(const struct input *in)
{
	unsigned int i, n = 0;

	for (i = 0; i < in->n; i++)
		n += in->out_port[i] != 0;
	return n;
}

/*
 * Write @p in, run dpfwd with @p extra, read both outputs and the JSON. Returns the JSON
 * (caller decrefs) or NULL; @p out[1..2] are filled when the run exited 0.
 */
/*
 * dpfwd announces each port address once when it starts (gratuitous ARP): check
 * that port's announcement and take it out of the capture, which then holds
 * only forwarded packets. @p ip is the port's address, host order.
 */
static void
take_announcements(struct capture *c, uint32_t ip)
{
	unsigned int i, k = 0;

	for (i = 0; i < c->n; i++) {
		const uint8_t *d = c->f[i].data;
		uint32_t sip, tip;

		if (c->f[i].len < 42 || d[12] != 0x08 || d[13] != 0x06) {
			c->f[k++] = c->f[i];
			continue;
		}
		memcpy(&sip, d + 28, 4);
		memcpy(&tip, d + 38, 4);
		CU_ASSERT_EQUAL(c->f[i].len, 60); /* padded to the minimum frame */
		CU_ASSERT(memcmp(d, "\xff\xff\xff\xff\xff\xff", 6) == 0); /* broadcast */
		CU_ASSERT(memcmp(d + 6, d + 22, 6) == 0); /* sender MAC = source MAC */
		CU_ASSERT_EQUAL(d[21], 1);                /* request */
		CU_ASSERT_EQUAL(ntohl(sip), ip);
		CU_ASSERT_EQUAL(ntohl(tip), ip);
		free(c->f[i].data);
		c->arp++;
	}
	c->n = k;
	CU_ASSERT_EQUAL(c->arp, 1);
}

/* Packets sent by the workers that came in on a port (not made by the control lcore). */
static json_int_t
tx_forwarded(json_t *j)
{
	return lcores_sum(j, "tx_pkts") - lcores_sum(j, "injected");
}

static json_t *
forward_run(struct run *r, const struct input *in, const char *const *extra, struct capture out[3])
{
	json_t *j;

	memset(out, 0, 3 * sizeof(out[0]));
	CU_ASSERT_EQUAL_FATAL(config_write(r, NULL, NULL, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(pcap_write(r->in, in), 0);
	run_dpfwd(r, extra, false);
	CU_ASSERT_TRUE(run_exited(r, 0));
	CU_ASSERT_EQUAL(pcap_read(r->out[1], &out[1]), 0);
	CU_ASSERT_EQUAL(pcap_read(r->out[2], &out[2]), 0);
	take_announcements(&out[1], 0xc6126501); /* 198.18.101.1 */
	take_announcements(&out[2], 0xc6126601); /* 198.18.102.1 */
	j = json_read(r);
	CU_ASSERT_PTR_NOT_NULL(j);
	if (j != NULL)
		CU_ASSERT_TRUE(json_macs_ok(j));
	return j;
}

/* ---- tests ---- */

static const char *const duration2[] = { "--duration", "2", NULL };

static void
test_fwd_pcap_forwards_every_valid_packet_bytewise(void)
{
	static struct input in;
	struct capture out[3];
	struct run r;
	unsigned int i, n, good;
	json_t *j;

	run_init(&r, "valid");
	/* 200 packets, both routes in an irregular pattern, 12 sizes 64..1518, 8 TTLs */
	for (i = 0; i < 200; i++)
		add_valid(&in, i, (i * 5 + i / 3) % 3 == 0 ? 2 : 1);
	n = in.n;
	j = forward_run(&r, &in, duration2, out);
	good = check_outputs(&in, out);
	CU_ASSERT_EQUAL(good, n);
	CU_ASSERT_TRUE(out[1].n > 50 && out[2].n > 50);
	if (j != NULL) {
		CU_ASSERT_EQUAL(lcores_sum(j, "rx_pkts"), (json_int_t)n);
		CU_ASSERT_EQUAL(tx_forwarded(j), (json_int_t)n);
		CU_ASSERT_EQUAL(drops_total(j), 0);
		CU_ASSERT_EQUAL(port_stat(j, 0, "ipackets"), (json_int_t)n);
		CU_ASSERT_EQUAL(port_stat(j, 1, "opackets"), (json_int_t)(out[1].n + out[1].arp));
		CU_ASSERT_EQUAL(port_stat(j, 2, "opackets"), (json_int_t)(out[2].n + out[2].arp));
		CU_ASSERT_TRUE(drops_match(j, &in));
	}
	json_decref(j);
	capture_free(&out[1]);
	capture_free(&out[2]);
	input_free(&in);
}

static void
test_fwd_pcap_malformed_are_counted_drops(void)
{
	static struct input in;
	struct capture out[3];
	struct run r;
	unsigned int k, i = 0;
	json_t *j;

	run_init(&r, "malformed");
	/* valid, malformed, valid, malformed, ..., valid */
	add_valid(&in, i++, 1);
	for (k = 0; k < NB_MALFORMED; k++) {
		add_malformed(&in, k, i, k % 2 ? 2 : 1);
		i++;
		add_valid(&in, i++, k % 2 ? 1 : 2);
	}
	j = forward_run(&r, &in, duration2, out);
	CU_ASSERT_EQUAL(check_outputs(&in, out), input_forwarded(&in));
	CU_ASSERT_EQUAL(out[1].n + out[2].n, NB_MALFORMED + 1);
	if (j != NULL) {
		json_int_t rx = lcores_sum(j, "rx_pkts"), tx = tx_forwarded(j);

		CU_ASSERT_TRUE(drops_match(j, &in));
		CU_ASSERT_EQUAL(drops_total(j), (json_int_t)NB_MALFORMED);
		CU_ASSERT_EQUAL(rx, (json_int_t)in.n);
		CU_ASSERT_EQUAL(tx, (json_int_t)(NB_MALFORMED + 1));
		CU_ASSERT_EQUAL(rx, tx + drops_total(j));
		CU_ASSERT_EQUAL(port_stat(j, 0, "ipackets"), (json_int_t)in.n);
	}
	json_decref(j);
	capture_free(&out[1]);
	capture_free(&out[2]);
	input_free(&in);
}

static void
test_fwd_pcap_no_mbuf_leak(void)
{
	static struct input in;
	struct capture out[3];
	const json_t *pools;
	struct run r;
	unsigned int i, round;
	size_t p;
	json_t *j;
	char *err;

	run_init(&r, "leak");
	/* every drop path and both TX ports, several times, more packets than a burst */
	for (round = 0, i = 0; round < 20; round++) {
		unsigned int k;

		for (k = 0; k < NB_MALFORMED; k++) {
			add_valid(&in, i++, (round + k) % 2 ? 1 : 2);
			add_malformed(&in, k, i++, (round + k) % 2 ? 2 : 1);
		}
	}
	j = forward_run(&r, &in, duration2, out);
	CU_ASSERT_EQUAL(check_outputs(&in, out), input_forwarded(&in));
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_TRUE(json_is_true(json_object_get(j, "final")));
	CU_ASSERT_TRUE(drops_match(j, &in));
	CU_ASSERT_EQUAL(lcores_sum(j, "rx_pkts"), (json_int_t)in.n);
	pools = json_object_get(j, "mempools");
	CU_ASSERT_TRUE(json_is_array(pools) && json_array_size(pools) > 0);
	for (p = 0; p < json_array_size(pools); p++) {
		const json_t *o = json_array_get(pools, p);
		json_int_t use = j_int(o, "in_use"), base = j_int(o, "in_use_baseline");

		CU_ASSERT_TRUE(use >= 0 && base >= 0);
		CU_ASSERT_EQUAL(use, base);
		if (use != base)
			fprintf(stderr, "mempool %s: in_use %lld, baseline %lld\n",
				json_string_value(json_object_get(o, "name")), (long long)use,
				(long long)base);
	}
	CU_ASSERT_EQUAL(j_int(json_object_get(j, "run"), "mbufs_over_baseline"), 0);
	err = slurp(r.log_err);
	CU_ASSERT_PTR_NULL(strstr(err, "leaked"));
	free(err);
	json_decref(j);
	capture_free(&out[1]);
	capture_free(&out[2]);
	input_free(&in);
}

static void
bad_config_case(const char *name, const char *insert, const char *after, const char *msg)
{
	char want[PATH_MAX + 32];
	struct run r;
	int line = 0;
	char *err;

	run_init(&r, name);
	CU_ASSERT_EQUAL_FATAL(config_write(&r, insert, after, &line), 0);
	CU_ASSERT_TRUE(line > 1);
	run_dpfwd(&r, duration2, false);
	CU_ASSERT_TRUE(run_exited(&r, 2));
	CU_ASSERT_TRUE(r.elapsed < 10.0);
	err = slurp(r.log_err);
	fmt_path(want, sizeof(want), "%s:%d:", r.cfg, line);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, msg));
	if (strstr(err, want) == NULL || strstr(err, msg) == NULL)
		fprintf(stderr, "expected '%s' and '%s' in dpfwd's stderr:\n%s\n", want, msg, err);
	/* nothing started: no port probed (net_pcap creates its TX files at probe), no EAL */
	CU_ASSERT_PTR_NULL(strstr(err, "started"));
	CU_ASSERT_PTR_NULL(strstr(err, "EAL:"));
	CU_ASSERT_FALSE(exists(r.out[1]));
	CU_ASSERT_FALSE(exists(r.out[2]));
	CU_ASSERT_FALSE(exists(r.json));
	CU_ASSERT_FALSE(r.rundir_made);
	free(err);
}

static void
test_fwd_bad_config_names_file_and_line(void)
{
	/* a bad value, found while parsing */
	bad_config_case("badcfg_value", "rx_desc = 7", "ip4 = 198.18.101.1/24",
		"rx_desc '7' must be 32..32768");
	/* a route to a port that does not exist, found by the cross-check after parsing */
	bad_config_case("badcfg_route", "route = 198.18.3.0/24 via 198.18.101.2 port 9",
		"route = 198.18.2.0/24", "route to port 9, which is not defined");
	/* not an INI line */
	bad_config_case("badcfg_syntax", "this line is not an entry", "[lcores]",
		"expected 'key = value' or '[section]'");
}

static void
test_fwd_sigterm_writes_final_json(void)
{
	static const char *const extra[] = { "--duration", "0", "--telemetry-interval", "100",
		NULL };
	static struct input in;
	struct run r;
	unsigned int i;
	json_t *j;

	run_init(&r, "sigterm");
	for (i = 0; i < 20; i++)
		add_valid(&in, i, i % 2 ? 1 : 2);
	CU_ASSERT_EQUAL_FATAL(config_write(&r, NULL, NULL, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(pcap_write(r.in, &in), 0);
	run_dpfwd(&r, extra, true);
	CU_ASSERT_TRUE(r.sigterm_sent);
	CU_ASSERT_TRUE(run_exited(&r, 0));
	j = json_read(&r);
	CU_ASSERT_PTR_NOT_NULL(j);
	if (j != NULL) {
		const char *why = json_string_value(json_object_get(j, "exit_reason"));

		CU_ASSERT_TRUE(json_is_true(json_object_get(j, "final")));
		CU_ASSERT_PTR_NOT_NULL(why);
		CU_ASSERT_STRING_EQUAL(why ? why : "", "signal");
		CU_ASSERT_EQUAL(lcores_sum(j, "rx_pkts"), (json_int_t)in.n);
		CU_ASSERT_EQUAL(tx_forwarded(j), (json_int_t)in.n);
	}
	json_decref(j);
	input_free(&in);
}

static void
test_fwd_cksum_check_off_forwards_bad_cksum(void)
{
	static const char *const extra[] = { "--duration", "2", "--set",
		"dpfwd.ip4_cksum_check=off", NULL };
	static struct input in;
	struct capture out[3];
	uint8_t buf[2048];
	struct run r;
	size_t len;
	json_t *j;
	unsigned int k;

	run_init(&r, "cksum_off");
	for (k = 0; k < 4; k++) {
		int port = k % 2 ? 2 : 1;

		add_valid(&in, 2 * k, port);
		build_malformed(DP_PKT_BAD_CKSUM, 2 * k + 1, port, buf, sizeof(buf), &len);
		input_push(&in, buf, len, port, NULL);
		in.bad_cksum[in.n - 1] = true;
		CU_ASSERT_FALSE(dp_pkt_ipv4_hdr_cksum_ok(buf + ETH_HLEN));
	}
	add_valid(&in, 99, 1);
	j = forward_run(&r, &in, extra, out);
	CU_ASSERT_EQUAL(check_outputs(&in, out), in.n);
	if (j != NULL) {
		CU_ASSERT_TRUE(json_is_false(
			json_object_get(json_object_get(j, "run"), "ip4_cksum_check")));
		CU_ASSERT_EQUAL(drops_total(j), 0);
		CU_ASSERT_TRUE(drops_match(j, &in));
		CU_ASSERT_EQUAL(tx_forwarded(j), (json_int_t)in.n);
	}
	json_decref(j);
	capture_free(&out[1]);
	capture_free(&out[2]);
	input_free(&in);
}

/* ---- suite ---- */

static int
suite_init(void)
{
	const char *bin = getenv("DPFWD_BIN");
	const char *build = getenv("DPFWD_BUILD");

	if (bin != NULL)
		fmt_path(dpfwd_bin, sizeof(dpfwd_bin), "%s", bin);
	else if (build != NULL)
		fmt_path(dpfwd_bin, sizeof(dpfwd_bin), "%s/apps/dpfwd/dpfwd", build);
	else {
		fprintf(stderr, "set DPFWD_BIN (meson test does)\n");
		return -1;
	}
	if (access(dpfwd_bin, X_OK) != 0) {
		fprintf(stderr, "%s: %s\n", dpfwd_bin, strerror(errno));
		return -1;
	}
	/* a closed stdout (| head) must not kill us between a run and the cleanup */
	signal(SIGPIPE, SIG_IGN);
	fmt_path(suite_dir, sizeof(suite_dir), "/tmp/dpft.XXXXXX");
	if (mkdtemp(suite_dir) == NULL) {
		fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static int
suite_cleanup(void)
{
	const char *keep = getenv("DPFT_KEEP");

	if (keep != NULL && strcmp(keep, "0") != 0)
		printf("\nkept %s\n", suite_dir);
	else
		dp_test_rm_rf(suite_dir);
	return 0;
}

int
main(void)
{
	static const struct dp_test tests[] = {
		{ "test_fwd_pcap_forwards_every_valid_packet_bytewise",
			test_fwd_pcap_forwards_every_valid_packet_bytewise },
		{ "test_fwd_pcap_malformed_are_counted_drops",
			test_fwd_pcap_malformed_are_counted_drops },
		{ "test_fwd_pcap_no_mbuf_leak", test_fwd_pcap_no_mbuf_leak },
		{ "test_fwd_bad_config_names_file_and_line",
			test_fwd_bad_config_names_file_and_line },
		{ "test_fwd_sigterm_writes_final_json", test_fwd_sigterm_writes_final_json },
		{ "test_fwd_cksum_check_off_forwards_bad_cksum",
			test_fwd_cksum_check_off_forwards_bad_cksum },
		{ NULL, NULL },
	};

	return dp_test_run("fwd_pcap", tests, suite_init, suite_cleanup);
}
