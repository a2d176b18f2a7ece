/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpgen's core without EAL: the token bucket on a fake clock, sequence
 * accounting fed with sequences dropped, reordered and duplicated on purpose,
 * frame templates and stamps against dp_pkt_craft's frames, pcap loading,
 * option parsing (with --warmup and --hold at and beyond their limits), and
 * the report's measured part after a warm-up on a fake clock (the latency
 * histogram itself: tests/unit/common/test_hist.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "dp_pkt_craft.h"
#include "dp_test.h"
#include "gen_args.h"
#include "gen_pcap.h"
#include "gen_pkt.h"
#include "gen_rate.h"
#include "gen_report.h"
#include "gen_seq.h"

#define FAKE_HZ 2000000000ULL /* a 2 GHz "TSC" */

/* Deterministic pseudo-random steps (xorshift), so a failure replays. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* ---- token bucket ---- */

static void
test_gen_rate_parse_units_and_errors(void)
{
	static const char *const bad[] = { "", "12", "Mpps", "abc", "-1Mpps", "0pps", "0.0Gbps",
		"12Mppsx", "12 Mpps", "infpps", "nanGbps", "0x10pps", "1e30Gbps", "5Tbps", NULL };
	struct gen_rate_spec s;
	unsigned int i;

	CU_ASSERT_EQUAL(gen_rate_parse("12Mpps", &s), 0);
	CU_ASSERT_EQUAL(s.kind, GEN_RATE_PPS);
	CU_ASSERT_DOUBLE_EQUAL(s.value, 12e6, 1e-6);
	CU_ASSERT_EQUAL(gen_rate_parse("5Gbps", &s), 0);
	CU_ASSERT_EQUAL(s.kind, GEN_RATE_BPS);
	CU_ASSERT_DOUBLE_EQUAL(s.value, 5e9, 1e-3);
	CU_ASSERT_EQUAL(gen_rate_parse("1.5mpps", &s), 0);
	CU_ASSERT_DOUBLE_EQUAL(s.value, 1.5e6, 1e-6);
	CU_ASSERT_EQUAL(gen_rate_parse("100kbps", &s), 0);
	CU_ASSERT_DOUBLE_EQUAL(s.value, 1e5, 1e-9);
	CU_ASSERT_EQUAL(gen_rate_parse("750pps", &s), 0);
	CU_ASSERT_EQUAL(s.kind, GEN_RATE_PPS);
	CU_ASSERT_EQUAL(gen_rate_parse("MAX", &s), 0);
	CU_ASSERT_EQUAL(s.kind, GEN_RATE_MAX);
	for (i = 0; bad[i] != NULL; i++) {
		if (gen_rate_parse(bad[i], &s) != -EINVAL)
			fprintf(stderr, "accepted bad rate '%s'\n", bad[i]);
		CU_ASSERT_EQUAL(gen_rate_parse(bad[i], &s), -EINVAL);
	}
}

/*
 * Drive a bucket with random clock steps of 1..max_step ticks for exactly one
 * fake second, taking up to @p burst packets of @p cost at each step.
 */
static uint64_t
run_fake_second(struct gen_rate *r, uint64_t cost, unsigned int burst, uint64_t max_step)
{
	uint64_t now = 0, total = 0;

	while (now < FAKE_HZ) {
		now += 1 + rng() % max_step;
		if (now > FAKE_HZ)
			now = FAKE_HZ;
		total += gen_rate_take(r, now, cost, burst);
	}
	return total;
}

static void
test_gen_rate_fake_clock_12mpps_is_exact(void)
{
	struct gen_rate r;
	uint64_t total;

	/* steps up to 400 ticks earn < 3 packets each: the 32-packet bucket never overflows */
	CU_ASSERT_EQUAL_FATAL(gen_rate_init(&r, FAKE_HZ, 12000000, 32, 0), 0);
	total = run_fake_second(&r, 1, 32, 400);
	CU_ASSERT_EQUAL(total, 12000000);
	CU_ASSERT_EQUAL(r.missed, 0);
}

static void
test_gen_rate_fake_clock_gbps_frame_and_wire(void)
{
	struct gen_rate r;
	uint64_t total;

	/* 5 Gbps of 64-byte frames: 512 bits each -> 9765625 pps */
	CU_ASSERT_EQUAL_FATAL(gen_rate_init(&r, FAKE_HZ, 5000000000ULL, 32 * 672, 0), 0);
	total = run_fake_second(&r, 512, 32, 1000);
	CU_ASSERT_EQUAL(total, 9765625);
	/* counted on the wire, +20 bytes: 672 bits -> floor(5e9 / 672) = 7440476 */
	CU_ASSERT_EQUAL_FATAL(gen_rate_init(&r, FAKE_HZ, 5000000000ULL, 32 * 672, 0), 0);
	total = run_fake_second(&r, 672, 32, 1000);
	CU_ASSERT_EQUAL(total, 7440476);
}

static void
test_gen_rate_coarse_clock_steps_still_exact(void)
{
	struct gen_rate r;
	uint64_t total;

	/* 1 Mpps polled every 0..100 us: up to 100 packets per call, still exactly 1e6 a second */
	CU_ASSERT_EQUAL_FATAL(gen_rate_init(&r, FAKE_HZ, 1000000, 1000, 0), 0);
	total = run_fake_second(&r, 1, 1000, 200000);
	CU_ASSERT_EQUAL(total, 1000000);
	CU_ASSERT_EQUAL(r.missed, 0);
}

static void
test_gen_rate_stall_is_capped_and_counted(void)
{
	struct gen_rate r;
	unsigned int n;

	CU_ASSERT_EQUAL_FATAL(gen_rate_init(&r, FAKE_HZ, 1000000, 1000, 0), 0);
	/* a 1 s stall earns 1e6 packets, the bucket holds 1000 */
	n = gen_rate_take(&r, FAKE_HZ, 1, 100000);
	CU_ASSERT_EQUAL(n, 1000);
	/* what was thrown away: 1 s minus 1000 packets' worth (1 ms), in ticks, +-1 */
	CU_ASSERT(r.missed >= FAKE_HZ - FAKE_HZ / 1000 - 2 && r.missed <= FAKE_HZ - FAKE_HZ / 1000);
	/* right after, nothing */
	CU_ASSERT_EQUAL(gen_rate_take(&r, FAKE_HZ, 1, 100000), 0);
	/* one packet earned every 2000 ticks */
	CU_ASSERT_EQUAL(gen_rate_take(&r, FAKE_HZ + 1999, 1, 10), 0);
	CU_ASSERT_EQUAL(gen_rate_take(&r, FAKE_HZ + 2000, 1, 10), 1);
}

static void
test_gen_rate_variable_cost_and_refund(void)
{
	struct gen_rate r;
	uint64_t sizes[3] = { 512, 4096, 12000 }; /* bits */
	uint64_t now = 0, bits = 0;
	unsigned int i = 0;

	CU_ASSERT_EQUAL_FATAL(gen_rate_init(&r, FAKE_HZ, 1000000000ULL, 64 * 12000, 0), 0);
	while (now < FAKE_HZ) {
		now += 1 + rng() % 5000;
		if (now > FAKE_HZ)
			now = FAKE_HZ;
		gen_rate_refill(&r, now);
		while (gen_rate_take_one(&r, sizes[i % 3])) {
			bits += sizes[i % 3];
			i++;
		}
	}
	/* 1 Gbps for 1 s, short by less than the largest packet */
	CU_ASSERT(bits <= 1000000000ULL);
	CU_ASSERT(bits > 1000000000ULL - 12000);
	/* a refund makes the credit available again at once */
	gen_rate_refund(&r, 12000);
	CU_ASSERT(gen_rate_take_one(&r, 12000));
	CU_ASSERT(!gen_rate_take_one(&r, 12000));
}

static void
test_gen_rate_unlimited_and_bad_init(void)
{
	struct gen_rate r;

	CU_ASSERT_EQUAL_FATAL(gen_rate_init(&r, FAKE_HZ, 0, 1, 0), 0);
	CU_ASSERT_EQUAL(gen_rate_take(&r, 0, 1, 32), 32);
	CU_ASSERT_EQUAL(gen_rate_take(&r, 0, 100000, 7), 7);
	CU_ASSERT(gen_rate_take_one(&r, 1ULL << 40));
	CU_ASSERT_EQUAL(gen_rate_init(&r, 0, 10, 1, 0), -EINVAL);
	CU_ASSERT_EQUAL(gen_rate_init(&r, FAKE_HZ, 10, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(gen_rate_init(&r, FAKE_HZ, 10, UINT64_MAX / 2, 0), -ERANGE);
}

/* ---- sequence accounting ---- */

static void
feed(struct gen_seq *s, uint64_t from, uint64_t to)
{
	uint64_t i;

	for (i = from; i < to; i++)
		gen_seq_rx(s, i);
}

static void
test_gen_seq_in_order_counts_nothing_wrong(void)
{
	struct gen_seq s;

	CU_ASSERT_EQUAL_FATAL(gen_seq_init(&s, 1024), 0);
	feed(&s, 0, 100000);
	CU_ASSERT_EQUAL(s.c.received, 100000);
	CU_ASSERT_EQUAL(s.c.lost, 0);
	CU_ASSERT_EQUAL(s.c.reordered, 0);
	CU_ASSERT_EQUAL(s.c.duplicates, 0);
	gen_seq_finish(&s, 100000);
	CU_ASSERT_EQUAL(s.c.lost, 0);
	gen_seq_free(&s);
}

/*
 * 100000 numbers through a deliberately bad network: every number = 7 mod 97
 * dropped, pairs (n, n+1) with n = 20 mod 50 swapped when both survive,
 * numbers = 33 mod 70 delivered twice. The counts must come out exactly.
 */
static void
test_gen_seq_dropped_reordered_duplicated_exact_counts(void)
{
	const uint64_t n = 100000;
	uint64_t drops = 0, swaps = 0, dups = 0, i;
	struct gen_seq s;

	CU_ASSERT_EQUAL_FATAL(gen_seq_init(&s, 65536), 0);
	for (i = 0; i < n; i++) {
		bool drop = i % 97 == 7, drop_next = (i + 1) % 97 == 7;
		uint64_t order[2] = { i, i + 1 };
		unsigned int k, cnt = 1;

		if (drop) {
			drops++;
			continue;
		}
		if (i % 50 == 20 && i + 1 < n && !drop_next) {
			/* the later one first */
			order[0] = i + 1;
			order[1] = i;
			cnt = 2;
			swaps++;
		}
		for (k = 0; k < cnt; k++) {
			gen_seq_rx(&s, order[k]);
			if (order[k] % 70 == 33) {
				gen_seq_rx(&s, order[k]);
				dups++;
			}
		}
		i += cnt - 1;
	}
	gen_seq_finish(&s, n);
	CU_ASSERT(drops > 1000 && swaps > 1000 && dups > 1000);
	CU_ASSERT_EQUAL(s.c.lost, drops);
	CU_ASSERT_EQUAL(s.c.reordered, swaps);
	CU_ASSERT_EQUAL(s.c.duplicates, dups);
	CU_ASSERT_EQUAL(s.c.received, n - drops);
	CU_ASSERT_EQUAL(s.c.late, 0);
	CU_ASSERT_EQUAL(s.c.max_reorder, 1);
	gen_seq_free(&s);
}

static void
test_gen_seq_loss_declared_when_leaving_window(void)
{
	struct gen_seq s;

	CU_ASSERT_EQUAL_FATAL(gen_seq_init(&s, 64), 0);
	feed(&s, 0, 10);
	feed(&s, 11, 74); /* 10 is missing; window [10, 74) still holds it */
	CU_ASSERT_EQUAL(s.c.lost, 0);
	gen_seq_rx(&s, 74); /* window [11, 75): 10 left it unreceived */
	CU_ASSERT_EQUAL(s.c.lost, 1);
	/* 10 after all, too late to tell from a duplicate */
	gen_seq_rx(&s, 10);
	CU_ASSERT_EQUAL(s.c.late, 1);
	CU_ASSERT_EQUAL(s.c.reordered, 0);
	/* a reordered packet still inside the window */
	feed(&s, 76, 100);
	gen_seq_rx(&s, 75);
	CU_ASSERT_EQUAL(s.c.reordered, 1);
	CU_ASSERT_EQUAL(s.c.max_reorder, 24);
	gen_seq_rx(&s, 75);
	CU_ASSERT_EQUAL(s.c.duplicates, 1);
	gen_seq_finish(&s, 100);
	CU_ASSERT_EQUAL(s.c.lost, 1);
	CU_ASSERT_EQUAL(s.c.received, 99);
	gen_seq_free(&s);
}

static void
test_gen_seq_jump_and_tail_loss(void)
{
	struct gen_seq s;

	CU_ASSERT_EQUAL_FATAL(gen_seq_init(&s, 64), 0);
	feed(&s, 0, 10);
	gen_seq_rx(&s, 1000); /* 10 .. 999 missing: a jump over many windows */
	gen_seq_rx(&s, 990);  /* inside the window again: reordered */
	CU_ASSERT_EQUAL(s.c.reordered, 1);
	/* the run sent 1200: 1001 .. 1199 never came */
	gen_seq_finish(&s, 1200);
	CU_ASSERT_EQUAL(s.c.received, 12);
	CU_ASSERT_EQUAL(s.c.lost, 1200 - 12);
	/* settled once: a second finish adds nothing */
	gen_seq_finish(&s, 1200);
	CU_ASSERT_EQUAL(s.c.lost, 1200 - 12);
	gen_seq_free(&s);

	/* nothing received at all */
	CU_ASSERT_EQUAL_FATAL(gen_seq_init(&s, 128), 0);
	gen_seq_finish(&s, 500);
	CU_ASSERT_EQUAL(s.c.lost, 500);
	gen_seq_free(&s);
	CU_ASSERT_EQUAL(gen_seq_init(&s, 100), -EINVAL);
	CU_ASSERT_EQUAL(gen_seq_init(&s, 32), -EINVAL);
}

/* ---- frames and stamps ---- */

/*
 * Every synthetic flow, stamped, must be the frame dp_pkt_craft builds for it
 * (same payload pattern), apart from the stamp and the UDP checksum, and both
 * checksums must verify.
 */
static void
check_synth(int ip_version, uint32_t frame_len, uint32_t payload_len, unsigned int vary)
{
	struct gen_synth s;
	struct gen_tmpl t;
	struct gen_flow *flows = NULL;
	uint8_t got[GEN_FRAME_MAX], want[GEN_FRAME_MAX];
	uint32_t f;

	memset(&s, 0, sizeof(s));
	dp_pkt_spec_init(&s.base);
	s.base.ip_version = (uint8_t)ip_version;
	s.base.frame_len = frame_len;
	s.base.payload_len = payload_len;
	if (ip_version == 6) {
		static const uint8_t src6[16] = { 0x20, 0x01, 0x0d, 0xb8 };

		memcpy(s.base.src_ip6, src6, 16);
		s.src_plen = 64;
	} else {
		s.base.src_ip4 = 0xc6120000; /* 198.18.0.0/16 */
		s.src_plen = 16;
	}
	s.base.sport = 60000; /* wraps back to 60000 after 65535 */
	s.flows = 3000;
	s.vary = vary;
	CU_ASSERT_EQUAL_FATAL(gen_synth_build(&s, true, &t, &flows), 0);
	CU_ASSERT(t.stampable);
	for (f = 0; f < s.flows; f += 7) {
		struct dp_pkt_spec spec;
		struct gen_stamp st;
		size_t len = 0;
		uint32_t off = t.l4_off + 8u;

		gen_pkt_fill(
			got, &t, &flows[f], true, 0xbeef, 0x123456789aULL + f, 0xfedcba987654ULL);
		CU_ASSERT_EQUAL_FATAL(dp_pkt_spec_flow(&spec, &s.base, f, vary, s.src_plen), 0);
		spec.flow_id = 0;
		CU_ASSERT_EQUAL_FATAL(dp_pkt_build(&spec, want, sizeof(want), &len), 0);
		CU_ASSERT_EQUAL_FATAL(len, t.len);
		/* headers up to the UDP checksum, then the payload after the stamp */
		CU_ASSERT(memcmp(got, want, t.l4_off + 6u) == 0);
		CU_ASSERT(memcmp(got + off + GEN_STAMP_LEN, want + off + GEN_STAMP_LEN,
				  len - off - GEN_STAMP_LEN) == 0);
		CU_ASSERT(dp_pkt_udp_cksum_ok(got, len));
		if (ip_version == 4)
			CU_ASSERT(dp_pkt_ipv4_hdr_cksum_ok(got + t.l3_off));
		CU_ASSERT_FATAL(gen_stamp_read(got, len, &st));
		CU_ASSERT_EQUAL(st.run, 0xbeef);
		CU_ASSERT_EQUAL(st.seq, 0x123456789aULL + f);
		CU_ASSERT_EQUAL(st.tsc, 0xfedcba987654ULL);
		/* unstamped, the checksum holds too (stamp area left zero) */
		gen_pkt_fill(got, &t, &flows[f], false, 0, 0, 0);
		CU_ASSERT(dp_pkt_udp_cksum_ok(got, len));
		CU_ASSERT(!gen_stamp_read(got, len, &st));
	}
	free(flows);
	gen_tmpl_free(&t);
}

static void
test_gen_pkt_synth_flows_match_dp_pkt_craft(void)
{
	check_synth(4, 64, 0, DP_PKT_VARY_SPORT);
	check_synth(4, 0, 1000, DP_PKT_VARY_SPORT | DP_PKT_VARY_SADDR);
	check_synth(4, 1518, 0, DP_PKT_VARY_SADDR);
	check_synth(4, 9000, 0, DP_PKT_VARY_SPORT | DP_PKT_VARY_SADDR);
	check_synth(6, 84, 0, DP_PKT_VARY_SPORT | DP_PKT_VARY_SADDR);
	check_synth(6, 0, 501, DP_PKT_VARY_SADDR); /* odd payload length */
}

static void
test_gen_pkt_no_room_for_stamp_is_refused(void)
{
	struct gen_synth s;
	struct gen_tmpl t;
	struct gen_flow *flows = NULL;

	memset(&s, 0, sizeof(s));
	dp_pkt_spec_init(&s.base);
	s.base.frame_len = 0;
	s.base.payload_len = 10;
	s.flows = 1;
	s.vary = DP_PKT_VARY_SPORT;
	CU_ASSERT_EQUAL(gen_synth_build(&s, true, &t, &flows), -EINVAL);
	CU_ASSERT_EQUAL(gen_synth_build(&s, false, &t, &flows), 0);
	CU_ASSERT(!t.stampable);
	free(flows);
	gen_tmpl_free(&t);
}

static void
test_gen_stamp_read_rejects_other_frames(void)
{
	struct dp_pkt_spec spec;
	struct gen_stamp st;
	uint8_t f[256];
	size_t len = 0;

	dp_pkt_spec_init(&spec);
	spec.payload_len = 40;
	spec.frame_len = 0;
	CU_ASSERT_EQUAL_FATAL(dp_pkt_build(&spec, f, sizeof(f), &len), 0);
	gen_stamp_write(f + 42, 7, 1, 2);
	CU_ASSERT(gen_stamp_read(f, len, &st));
	CU_ASSERT(!gen_stamp_read(f, 42 + GEN_STAMP_LEN - 1, &st)); /* cut short */
	f[42] ^= 1;                                                 /* magic */
	CU_ASSERT(!gen_stamp_read(f, len, &st));
	f[42] ^= 1;
	f[14 + 7] = 8; /* a later fragment: no UDP header there */
	CU_ASSERT(!gen_stamp_read(f, len, &st));
	f[14 + 7] = 0;
	f[14 + 9] = 6; /* TCP */
	CU_ASSERT(!gen_stamp_read(f, len, &st));
	f[14 + 9] = 17;
	f[12] = 0x88; /* not IP */
	CU_ASSERT(!gen_stamp_read(f, len, &st));
}

/* ---- pcap ---- */

static void
write_pcap(const char *path, uint8_t frames[][2048], const size_t *lens, unsigned int n)
{
	pcap_t *p = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *d = pcap_dump_open(p, path);
	unsigned int i;

	CU_ASSERT_FATAL(d != NULL);
	for (i = 0; i < n; i++) {
		struct pcap_pkthdr h;

		memset(&h, 0, sizeof(h));
		h.ts.tv_usec = (suseconds_t)i;
		h.caplen = h.len = (bpf_u_int32)lens[i];
		pcap_dump((u_char *)d, &h, frames[i]);
	}
	pcap_dump_close(d);
	pcap_close(p);
}

static void
test_gen_pcap_load_rewrites_macs_and_stamps_udp(void)
{
	static const uint8_t smac[6] = { 0x02, 0xaa, 0, 0, 0, 1 },
			     dmac[6] = { 0x02, 0xbb, 0, 0, 0, 2 };
	static uint8_t frames[5][2048];
	char path[] = "/tmp/dpgen-test-pcap-XXXXXX";
	struct dp_pkt_spec spec;
	struct gen_pcap_info info;
	struct gen_tmpl *t = NULL;
	size_t lens[5];
	char err[256];
	uint8_t out[2048];
	struct gen_stamp st;
	int fd;

	/* 0: UDP 100 B payload; 1: ARP; 2: UDP without checksum; 3: IPv6 UDP; 4: UDP 8 B payload */
	dp_pkt_spec_init(&spec);
	spec.frame_len = 0;
	spec.payload_len = 100;
	CU_ASSERT_FATAL(dp_pkt_build(&spec, frames[0], 2048, &lens[0]) == 0);
	CU_ASSERT_FATAL(dp_pkt_build_arp(&spec, frames[1], 2048, &lens[1]) == 0);
	CU_ASSERT_FATAL(dp_pkt_build(&spec, frames[2], 2048, &lens[2]) == 0);
	frames[2][14 + 20 + 6] = frames[2][14 + 20 + 7] = 0;
	spec.ip_version = 6;
	CU_ASSERT_FATAL(dp_pkt_build(&spec, frames[3], 2048, &lens[3]) == 0);
	spec.ip_version = 4;
	spec.payload_len = 8;
	CU_ASSERT_FATAL(dp_pkt_build(&spec, frames[4], 2048, &lens[4]) == 0);
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	write_pcap(path, frames, lens, 5);

	CU_ASSERT_EQUAL_FATAL(gen_pcap_load(path, smac, dmac, &t, &info, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(info.packets, 5);
	CU_ASSERT_EQUAL(info.stampable, 3);
	CU_ASSERT(t[0].stampable && !t[1].stampable && t[2].stampable && t[3].stampable &&
		  !t[4].stampable);
	CU_ASSERT(!t[2].udp_cksum);
	CU_ASSERT(memcmp(t[1].data, dmac, 6) == 0 && memcmp(t[1].data + 6, smac, 6) == 0);

	gen_pkt_fill(out, &t[0], NULL, true, 1, 42, 43);
	CU_ASSERT(dp_pkt_udp_cksum_ok(out, t[0].len));
	CU_ASSERT(gen_stamp_read(out, t[0].len, &st) && st.seq == 42);
	/* the rest of the payload is the captured one */
	CU_ASSERT(memcmp(out + 42 + GEN_STAMP_LEN, frames[0] + 42 + GEN_STAMP_LEN,
			  lens[0] - 42 - GEN_STAMP_LEN) == 0);
	gen_pkt_fill(out, &t[2], NULL, true, 1, 44, 45);
	CU_ASSERT(out[14 + 20 + 6] == 0 && out[14 + 20 + 7] == 0); /* still "no checksum" */
	gen_pkt_fill(out, &t[3], NULL, true, 1, 46, 47);
	CU_ASSERT(dp_pkt_udp_cksum_ok(out, t[3].len));
	/* not stamped: byte for byte (after the MAC rewrite) */
	gen_pkt_fill(out, &t[1], NULL, false, 1, 0, 0);
	CU_ASSERT(memcmp(out + 12, frames[1] + 12, lens[1] - 12) == 0);
	gen_pcap_free(t, info.packets);

	CU_ASSERT_EQUAL(gen_pcap_load("/nonexistent.pcap", NULL, NULL, &t, &info, err, sizeof(err)),
		-ENOENT);
	CU_ASSERT(strstr(err, "/nonexistent.pcap") != NULL);
	unlink(path);
}

/* ---- options ---- */

static int
parse(struct gen_opts *o, const char *const *args)
{
	char *argv[64];
	int argc = 0;

	argv[argc++] = (char *)(uintptr_t) "dpgen";
	while (*args != NULL && argc < 63)
		argv[argc++] = (char *)(uintptr_t)*args++;
	argv[argc] = NULL;
	return gen_args_parse(argc, argv, o);
}

static void
test_gen_args_valid_and_invalid(void)
{
	static const char *const good[] = { "--tx-port", "1", "--rx-port", "2", "--flows", "2000",
		"--payload", "500", "--rate", "12Mpps", "--duration", "1.5", "--vary", "both",
		"--src-ip", "198.18.0.0/16", "--dst-ip", "198.19.255.1", NULL };
	const char *const *const bad[] = {
		(const char *const[]){ "--rate", "fast", NULL },
		(const char *const[]){ "--frame-size", "63", NULL },
		(const char *const[]){ "--frame-size", "9001", NULL },
		(const char *const[]){ "--payload", "10", NULL },
		(const char *const[]){ "--frame-size", "64", "-6", NULL },
		(const char *const[]){ "--src-ip", "10.0.0.0/8", NULL },
		(const char *const[]){ "--src-ip", "198.16.0.0/14", NULL },
		(const char *const[]){ "--dst-ip", "198.18.0.0/24", NULL },
		(const char *const[]){ "-6", "--dst-ip", "2001:db9::1", NULL },
		(const char *const[]){ "--flows", "0", NULL },
		(const char *const[]){ "--flows", "2000000", NULL },
		(const char *const[]){ "--burst", "65", NULL },
		(const char *const[]){ "--seq-window", "1000", NULL },
		(const char *const[]){ "--duration", "-1", NULL },
		(const char *const[]){ "--src-mac", "02:00:00:00:00", NULL },
		(const char *const[]){ "--frame-size", "100", "--payload", "50", NULL },
		(const char *const[]){ "--pcap", "x.pcap", "--flows", "2", NULL },
		(const char *const[]){ "--loops", "2", NULL },
		(const char *const[]){ "--rate-wire", NULL },
		(const char *const[]){ "--bogus", NULL },
		(const char *const[]){ "--tx-port", NULL },
		(const char *const[]){ "stray", NULL },
	};
	struct gen_opts o;
	unsigned int i;

	CU_ASSERT_EQUAL_FATAL(parse(&o, good), 0);
	CU_ASSERT_EQUAL(o.tx_port, 1);
	CU_ASSERT_EQUAL(o.rx_port, 2);
	CU_ASSERT_EQUAL(o.synth.flows, 2000);
	CU_ASSERT_EQUAL(o.synth.base.payload_len, 500);
	CU_ASSERT_EQUAL(o.synth.base.frame_len, 0);
	CU_ASSERT_EQUAL(o.rate.kind, GEN_RATE_PPS);
	CU_ASSERT_EQUAL(o.synth.src_plen, 16);
	CU_ASSERT_EQUAL(o.synth.base.dst_ip4, 0xc613ff01);
	CU_ASSERT_DOUBLE_EQUAL(o.duration, 1.5, 1e-12);

	/* defaults: 64-byte IPv4 frames from 198.18.0.1, IPv6 84 bytes */
	CU_ASSERT_EQUAL_FATAL(parse(&o, (const char *const[]){ NULL }), 0);
	CU_ASSERT_EQUAL(o.synth.base.frame_len, 64);
	CU_ASSERT_EQUAL(o.synth.base.src_ip4, 0xc6120001);
	CU_ASSERT_EQUAL(o.rx_port, GEN_PORT_NONE);
	CU_ASSERT_EQUAL_FATAL(parse(&o, (const char *const[]){ "-6", NULL }), 0);
	CU_ASSERT_EQUAL(o.synth.base.frame_len, 84);
	CU_ASSERT_EQUAL_FATAL(
		parse(&o, (const char *const[]){ "--no-stamp", "--payload", "0", NULL }), 0);

	fprintf(stderr, "(the option errors below are expected)\n");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = parse(&o, bad[i]);

		if (rc != -EINVAL)
			fprintf(stderr, "accepted bad options starting '%s'\n", bad[i][0]);
		CU_ASSERT_EQUAL(rc, -EINVAL);
	}
}

static void
expect_bad(const char *const *args, const char *what)
{
	struct gen_opts o;
	int rc = parse(&o, args);

	if (rc != -EINVAL)
		fprintf(stderr, "accepted %s\n", what);
	CU_ASSERT_EQUAL(rc, -EINVAL);
}

/* A value that is refused leaves its field as it was, not as the last number parsed. */
static void
test_gen_args_rejected_value_is_not_stored(void)
{
	struct gen_opts o;

	fprintf(stderr, "(the option errors below are expected)\n");
	CU_ASSERT_EQUAL(parse(&o, (const char *const[]){ "--tx-port", "7", "--burst", "65", NULL }),
		-EINVAL);
	CU_ASSERT_EQUAL(o.tx_port, 7);
	CU_ASSERT_EQUAL(o.burst, 32);
	CU_ASSERT_EQUAL(
		parse(&o, (const char *const[]){ "--hold", "5", "--ttl", "256", NULL }), -EINVAL);
	CU_ASSERT_EQUAL(o.hold_s, 5);
	CU_ASSERT_EQUAL(o.synth.base.ttl, 64);
}

static void
test_gen_args_warmup_limits_and_errors(void)
{
	struct gen_opts o;

	/* defaults: the whole run is measured, the ports close at once */
	CU_ASSERT_EQUAL_FATAL(parse(&o, (const char *const[]){ NULL }), 0);
	CU_ASSERT_DOUBLE_EQUAL(o.warmup, 0.0, 0.0);
	CU_ASSERT_EQUAL(o.hold_s, 0);
	CU_ASSERT_EQUAL_FATAL(
		parse(&o, (const char *const[]){ "--warmup", "2.5", "--duration", "3", NULL }), 0);
	CU_ASSERT_DOUBLE_EQUAL(o.warmup, 2.5, 1e-12);
	/* no --duration (until a signal or --count): any warm-up is allowed */
	CU_ASSERT_EQUAL_FATAL(parse(&o, (const char *const[]){ "--warmup", "1e6", NULL }), 0);
	CU_ASSERT_DOUBLE_EQUAL(o.warmup, 1e6, 1e-6);
	CU_ASSERT_EQUAL_FATAL(
		parse(&o, (const char *const[]){ "--warmup=0", "--duration", "1", NULL }), 0);
	CU_ASSERT_DOUBLE_EQUAL(o.warmup, 0.0, 0.0);
	/* the last one given wins */
	CU_ASSERT_EQUAL_FATAL(parse(&o, (const char *const[]){ "--warmup", "5", "--warmup", "0.25",
						"--duration", "1", NULL }),
		0);
	CU_ASSERT_DOUBLE_EQUAL(o.warmup, 0.25, 1e-12);

	fprintf(stderr, "(the option errors below are expected)\n");
	expect_bad((const char *const[]){ "--warmup", "-1", NULL }, "a negative --warmup");
	expect_bad((const char *const[]){ "--warmup", "-0.001", NULL }, "--warmup -0.001");
	expect_bad((const char *const[]){ "--warmup", "nan", NULL }, "--warmup nan");
	expect_bad((const char *const[]){ "--warmup", "inf", NULL }, "--warmup inf");
	expect_bad((const char *const[]){ "--warmup", "1000001", NULL }, "--warmup over 1e6 s");
	expect_bad((const char *const[]){ "--warmup", "", NULL }, "an empty --warmup");
	expect_bad((const char *const[]){ "--warmup", "2s", NULL }, "--warmup 2s");
	expect_bad((const char *const[]){ "--warmup", "0x", NULL }, "--warmup 0x");
	expect_bad((const char *const[]){ "--warmup", NULL }, "--warmup without a value");
	/* nothing left to measure: equal to or beyond the duration */
	expect_bad((const char *const[]){ "--warmup", "3", "--duration", "3", NULL },
		"--warmup == --duration");
	expect_bad((const char *const[]){ "--duration", "2", "--warmup", "2.5", NULL },
		"--warmup > --duration");
}

static void
test_gen_args_hold_limits_and_errors(void)
{
	struct gen_opts o;

	CU_ASSERT_EQUAL_FATAL(parse(&o, (const char *const[]){ "--hold", "0", NULL }), 0);
	CU_ASSERT_EQUAL(o.hold_s, 0);
	CU_ASSERT_EQUAL_FATAL(parse(&o, (const char *const[]){ "--hold", "3600", NULL }), 0);
	CU_ASSERT_EQUAL(o.hold_s, 3600);
	/* with the options dpbench's memif rig passes */
	CU_ASSERT_EQUAL_FATAL(
		parse(&o, (const char *const[]){ "--warmup", "1", "--duration", "2", "--hold",
				  "120", "--json", "x.json", "--quiet", NULL }),
		0);
	CU_ASSERT_EQUAL(o.hold_s, 120);
	CU_ASSERT_DOUBLE_EQUAL(o.warmup, 1.0, 0.0);
	CU_ASSERT_STRING_EQUAL(o.json, "x.json");

	fprintf(stderr, "(the option errors below are expected)\n");
	expect_bad((const char *const[]){ "--hold", "3601", NULL }, "--hold over an hour");
	expect_bad((const char *const[]){ "--hold", "-1", NULL }, "a negative --hold");
	expect_bad((const char *const[]){ "--hold", "1.5", NULL }, "a fractional --hold");
	expect_bad((const char *const[]){ "--hold", "x", NULL }, "--hold x");
	expect_bad((const char *const[]){ "--hold", "", NULL }, "an empty --hold");
	expect_bad((const char *const[]){ "--hold", "99999999999999999999", NULL },
		"a --hold beyond 64 bits");
	expect_bad((const char *const[]){ "--hold", NULL }, "--hold without a value");
}

/* ---- the report's measured part (--warmup) on a fake clock ---- */

#define REP_T0   1000ULL
#define REP_PPS  1000ULL /* sent per second */
#define REP_LOST 10ULL   /* of them lost per second */
#define REP_FAST 2000ULL /* latency in the first 3 s, cycles (1 us) */
#define REP_SLOW 8000ULL /* then (4 us) */

/* Counters after @p sec whole seconds of a run that sends REP_PPS 60-byte frames. */
static void
rep_counters(unsigned int sec, struct gen_counters *tx, struct gen_counters *rx)
{
	memset(tx, 0, sizeof(*tx));
	memset(rx, 0, sizeof(*rx));
	tx->tsc = rx->tsc = REP_T0 + sec * FAKE_HZ;
	tx->tx_start_tsc = REP_T0;
	tx->tx_pkts = tx->tx_stamped = sec * REP_PPS;
	tx->tx_bytes = tx->tx_pkts * 60;
	rx->rx_pkts = rx->rx_stamped = sec * (REP_PPS - REP_LOST);
	rx->rx_bytes = rx->rx_pkts * 60;
	rx->seq.received = rx->rx_pkts;
	rx->seq.lost = sec * REP_LOST;
}

/* A run of @p secs one-second intervals with warm-up @p warmup; returns "measured". */
static json_t *
rep_run(double warmup, unsigned int secs, json_t **total)
{
	struct gen_report r;
	struct gen_counters tx, rx;
	struct dp_hist *h = dp_hist_create(GEN_HIST_SUB_BITS);
	json_t *m;
	unsigned int s, k;

	CU_ASSERT_FATAL(h != NULL);
	CU_ASSERT_EQUAL_FATAL(gen_report_init(&r, (double)FAKE_HZ, REP_T0, true, true, true), 0);
	gen_report_set_warmup(&r, warmup);
	for (s = 1; s <= secs; s++) {
		dp_hist_reset(h);
		for (k = 0; k < REP_PPS - REP_LOST; k++)
			dp_hist_record(h, s <= 3 ? REP_FAST : REP_SLOW);
		rep_counters(s, &tx, &rx);
		gen_report_interval(&r, &tx, &rx, h);
	}
	m = gen_report_measured(&r, &tx, &rx);
	if (total != NULL)
		*total = gen_report_total(&r, &tx, &rx);
	CU_ASSERT_EQUAL(json_array_size(r.samples), secs);
	gen_report_free(&r);
	dp_hist_free(h);
	return m;
}

static double
jnum(json_t *o, const char *path)
{
	char buf[128], *save = NULL, *k;
	json_t *v = o;

	snprintf(buf, sizeof(buf), "%s", path);
	for (k = strtok_r(buf, ".", &save); k != NULL && v != NULL; k = strtok_r(NULL, ".", &save))
		v = json_object_get(v, k);
	if (!json_is_number(v)) {
		fprintf(stderr, "no number at %s\n", path);
		return -1;
	}
	return json_number_value(v);
}

static void
test_gen_report_warmup_measures_from_the_next_sample(void)
{
	json_t *total = NULL;
	/* 2.5 s: the warm-up ends with the third 1 s sample, so seconds 4 and 5 count */
	json_t *m = rep_run(2.5, 5, &total);

	CU_ASSERT_FATAL(json_is_object(m));
	CU_ASSERT_DOUBLE_EQUAL(jnum(m, "from_s"), 3.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(jnum(m, "duration_s"), 2.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(jnum(m, "samples"), 2, 0);
	CU_ASSERT_DOUBLE_EQUAL(jnum(m, "tx.pkts"), 2 * REP_PPS, 0);
	CU_ASSERT_DOUBLE_EQUAL(jnum(m, "tx.pps"), REP_PPS, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(jnum(m, "rx.pkts"), 2 * (REP_PPS - REP_LOST), 0);
	CU_ASSERT_DOUBLE_EQUAL(jnum(m, "seq.sent"), 2 * REP_PPS, 0);
	CU_ASSERT_DOUBLE_EQUAL(jnum(m, "seq.received"), 2 * (REP_PPS - REP_LOST), 0);
	CU_ASSERT_DOUBLE_EQUAL(jnum(m, "seq.lost"), 2 * REP_LOST, 0);
	CU_ASSERT_DOUBLE_EQUAL(jnum(m, "seq.loss_pct"), 100.0 * REP_LOST / REP_PPS, 1e-9);
	/* only the slow seconds' latencies: 4 us, to the histogram's < 1% */
	CU_ASSERT_DOUBLE_EQUAL(jnum(m, "latency_ns.count"), 2 * (REP_PPS - REP_LOST), 0);
	CU_ASSERT_DOUBLE_EQUAL(jnum(m, "latency_ns.min"), 4000, 40);
	CU_ASSERT_DOUBLE_EQUAL(jnum(m, "latency_ns.p50"), 4000, 40);
	/* the totals stay whole: five seconds, both latencies */
	CU_ASSERT_FATAL(json_is_object(total));
	CU_ASSERT_DOUBLE_EQUAL(jnum(total, "tx.pkts"), 5 * REP_PPS, 0);
	CU_ASSERT_DOUBLE_EQUAL(jnum(total, "seq.lost"), 5 * REP_LOST, 0);
	CU_ASSERT_DOUBLE_EQUAL(jnum(total, "latency_ns.count"), 5 * (REP_PPS - REP_LOST), 0);
	CU_ASSERT_DOUBLE_EQUAL(jnum(total, "latency_ns.min"), 1000, 10);
	json_decref(m);
	json_decref(total);
}

static void
test_gen_report_warmup_edges(void)
{
	json_t *m;

	/* 0: the whole run, from t0 */
	m = rep_run(0, 5, NULL);
	CU_ASSERT_FATAL(json_is_object(m));
	CU_ASSERT_DOUBLE_EQUAL(jnum(m, "from_s"), 0.0, 0);
	CU_ASSERT_DOUBLE_EQUAL(jnum(m, "samples"), 5, 0);
	CU_ASSERT_DOUBLE_EQUAL(jnum(m, "tx.pkts"), 5 * REP_PPS, 0);
	CU_ASSERT_DOUBLE_EQUAL(jnum(m, "latency_ns.count"), 5 * (REP_PPS - REP_LOST), 0);
	json_decref(m);
	/* exactly on a sample boundary: that sample still belongs to the warm-up */
	m = rep_run(3.0, 5, NULL);
	CU_ASSERT_FATAL(json_is_object(m));
	CU_ASSERT_DOUBLE_EQUAL(jnum(m, "from_s"), 3.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(jnum(m, "tx.pkts"), 2 * REP_PPS, 0);
	json_decref(m);
	/* just past one: the next sample ends it */
	m = rep_run(3.001, 5, NULL);
	CU_ASSERT_FATAL(json_is_object(m));
	CU_ASSERT_DOUBLE_EQUAL(jnum(m, "from_s"), 4.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(jnum(m, "samples"), 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(jnum(m, "seq.lost"), REP_LOST, 0);
	json_decref(m);
	/* ends with the last sample: nothing measured after it -> null, not zeros */
	m = rep_run(4.5, 5, NULL);
	CU_ASSERT_TRUE(json_is_null(m));
	json_decref(m);
	/* longer than the run (a signal came first) */
	m = rep_run(10, 5, NULL);
	CU_ASSERT_TRUE(json_is_null(m));
	json_decref(m);
}

/* Neither TX nor RX counters at the end: nothing to measure, not a crash. */
static void
test_gen_report_measured_needs_tx_or_rx(void)
{
	struct gen_report r;
	struct gen_counters tx, rx;
	struct dp_hist *h = dp_hist_create(GEN_HIST_SUB_BITS);
	json_t *m;

	CU_ASSERT_FATAL(h != NULL);
	CU_ASSERT_EQUAL_FATAL(gen_report_init(&r, (double)FAKE_HZ, REP_T0, true, true, true), 0);
	dp_hist_record(h, REP_FAST);
	rep_counters(1, &tx, &rx);
	gen_report_interval(&r, &tx, &rx, h);
	m = gen_report_measured(&r, NULL, NULL);
	CU_ASSERT_TRUE(json_is_null(m));
	json_decref(m);
	/* RX alone: its own clock ends the stretch */
	m = gen_report_measured(&r, NULL, &rx);
	CU_ASSERT_FATAL(json_is_object(m));
	CU_ASSERT_DOUBLE_EQUAL(jnum(m, "duration_s"), 1.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(jnum(m, "rx.pkts"), REP_PPS - REP_LOST, 0);
	json_decref(m);
	gen_report_free(&r);
	dp_hist_free(h);
}

static const struct dp_test tests[] = {
	{ "test_gen_rate_parse_units_and_errors", test_gen_rate_parse_units_and_errors },
	{ "test_gen_rate_fake_clock_12mpps_is_exact", test_gen_rate_fake_clock_12mpps_is_exact },
	{ "test_gen_rate_fake_clock_gbps_frame_and_wire",
		test_gen_rate_fake_clock_gbps_frame_and_wire },
	{ "test_gen_rate_coarse_clock_steps_still_exact",
		test_gen_rate_coarse_clock_steps_still_exact },
	{ "test_gen_rate_stall_is_capped_and_counted", test_gen_rate_stall_is_capped_and_counted },
	{ "test_gen_rate_variable_cost_and_refund", test_gen_rate_variable_cost_and_refund },
	{ "test_gen_rate_unlimited_and_bad_init", test_gen_rate_unlimited_and_bad_init },
	{ "test_gen_seq_in_order_counts_nothing_wrong",
		test_gen_seq_in_order_counts_nothing_wrong },
	{ "test_gen_seq_dropped_reordered_duplicated_exact_counts",
		test_gen_seq_dropped_reordered_duplicated_exact_counts },
	{ "test_gen_seq_loss_declared_when_leaving_window",
		test_gen_seq_loss_declared_when_leaving_window },
	{ "test_gen_seq_jump_and_tail_loss", test_gen_seq_jump_and_tail_loss },
	{ "test_gen_pkt_synth_flows_match_dp_pkt_craft",
		test_gen_pkt_synth_flows_match_dp_pkt_craft },
	{ "test_gen_pkt_no_room_for_stamp_is_refused", test_gen_pkt_no_room_for_stamp_is_refused },
	{ "test_gen_stamp_read_rejects_other_frames", test_gen_stamp_read_rejects_other_frames },
	{ "test_gen_pcap_load_rewrites_macs_and_stamps_udp",
		test_gen_pcap_load_rewrites_macs_and_stamps_udp },
	{ "test_gen_args_valid_and_invalid", test_gen_args_valid_and_invalid },
	{ "test_gen_args_rejected_value_is_not_stored",
		test_gen_args_rejected_value_is_not_stored },
	{ "test_gen_args_warmup_limits_and_errors", test_gen_args_warmup_limits_and_errors },
	{ "test_gen_args_hold_limits_and_errors", test_gen_args_hold_limits_and_errors },
	{ "test_gen_report_warmup_measures_from_the_next_sample",
		test_gen_report_warmup_measures_from_the_next_sample },
	{ "test_gen_report_warmup_edges", test_gen_report_warmup_edges },
	{ "test_gen_report_measured_needs_tx_or_rx", test_gen_report_measured_needs_tx_or_rx },
	{ NULL, NULL },
};

int
main(void)
{
	return dp_test_run("gen", tests, NULL, NULL);
}
