/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dp_cksum.h: RFC 1624 incremental updates must give, bit for bit, the
 * checksum a full RFC 1071 recompute gives (dp_pkt_cksum, and a byte-wise
 * reference here); dp_cksum_ip4_hdr_sum must be 0xffff exactly for valid
 * headers of every IHL and never for a header with one bit flipped.
 *
 * Random cases use a seeded PRNG; the seed is printed, and DPFWD_TEST_SEED=n
 * replays a run.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "dp_cksum.h"
#include "dp_pkt_craft.h"
#include "dp_test.h"

#define NB_RANDOM_HEADERS 200000
#define MAX_REPORTS       5 /* mismatches printed in full per test */

static uint64_t rng_state;

/* splitmix64 */
static uint64_t
rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int
suite_init(void)
{
	const char *s = getenv("DPFWD_TEST_SEED");
	uint64_t seed;

	if (s != NULL)
		seed = strtoull(s, NULL, 0);
	else
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	rng_state = seed;
	printf("\ncksum: PRNG seed %" PRIu64 " (replay with DPFWD_TEST_SEED=%" PRIu64 ")\n", seed,
		seed);
	return 0;
}

/* ---- references ---- */

/* RFC 1071 over big-endian 16-bit words, byte by byte; host-order result. */
static uint16_t
ref_cksum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint16_t
get16(const uint8_t *p)
{
	uint16_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

static void
put16(uint8_t *p, uint16_t w)
{
	memcpy(p, &w, sizeof(w));
}

static uint32_t
get32(const uint8_t *p)
{
	uint32_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

static void
put32(uint8_t *p, uint32_t w)
{
	memcpy(p, &w, sizeof(w));
}

/* Full recompute of the header checksum as stored in memory (field zeroed first). */
static uint16_t
recompute(const uint8_t *h, unsigned int ihl)
{
	uint8_t tmp[60];
	uint16_t a, b;

	memcpy(tmp, h, ihl * 4);
	tmp[10] = tmp[11] = 0;
	a = dp_pkt_cksum(tmp, ihl * 4);
	b = htons(ref_cksum(tmp, ihl * 4));
	if (a != b) /* the two references disagree: make it visible */
		fprintf(stderr, "dp_pkt_cksum %04x != reference %04x\n", a, b);
	return a;
}

static void
set_cksum(uint8_t *h, unsigned int ihl)
{
	put16(h + 10, recompute(h, ihl));
}

/* A random header of @p ihl words with a valid checksum. */
static void
rand_hdr(uint8_t *h, unsigned int ihl)
{
	unsigned int i;

	for (i = 0; i < ihl * 4; i++)
		h[i] = (uint8_t)rnd();
	h[0] = (uint8_t)(0x40 | ihl);
	set_cksum(h, ihl);
}

/* Choose the ID so that the header's checksum is 0x0000. */
static void
make_zero_cksum(uint8_t *h, unsigned int ihl)
{
	uint16_t s;

	h[4] = h[5] = h[10] = h[11] = 0;
	s = (uint16_t)~ref_cksum(h, ihl * 4); /* folded sum, 1..0xffff */
	h[4] = (uint8_t)((0xffff - s) >> 8);
	h[5] = (uint8_t)(0xffff - s);
}

/* 16-bit words that stress the one's complement corner cases, and random ones. */
static uint16_t
rnd_word(void)
{
	static const uint16_t special[] = { 0x0000, 0xffff, 0x0001, 0xfffe, 0x00ff, 0xff00, 0x8000,
		0x7fff };
	uint64_t r = rnd();

	if ((r & 7) == 0)
		return special[(r >> 3) % (sizeof(special) / sizeof(special[0]))];
	return (uint16_t)(r >> 16);
}

static uint32_t
rnd_addr(void)
{
	static const uint32_t special[] = { 0x00000000, 0xffffffff, 0xffff0000, 0x0000ffff,
		0x00010000, 0xfffeffff };
	uint64_t r = rnd();

	if ((r & 7) == 0)
		return special[(r >> 3) % (sizeof(special) / sizeof(special[0]))];
	return (uint32_t)(r >> 32);
}

/*
 * Apply one change to @p h and update its checksum incrementally, with the
 * words as read from memory (what the datapath does) and, as a cross-check, in
 * host order. Returns false (and prints once) if either differs from a full
 * recompute or the header no longer sums to 0xffff.
 */
struct change {
	unsigned int off;  /* byte offset of the field */
	unsigned int size; /* 2 or 4 */
	uint32_t new_val;  /* host order */
};

static unsigned int nb_reports;

static bool
apply_and_check(uint8_t *h, unsigned int ihl, const struct change *c, const char *what)
{
	uint16_t ck = get16(h + 10);
	uint16_t ck_mem, ck_host, want;
	uint8_t before[60];

	memcpy(before, h, ihl * 4);
	if (c->size == 2) {
		uint16_t old_m = get16(h + c->off);

		put16(h + c->off, htons((uint16_t)c->new_val));
		ck_mem = dp_cksum_update16(ck, old_m, get16(h + c->off));
		ck_host = dp_cksum_update16(ntohs(ck), ntohs(old_m), (uint16_t)c->new_val);
	} else {
		uint32_t old_m = get32(h + c->off);

		put32(h + c->off, htonl(c->new_val));
		ck_mem = dp_cksum_update32(ck, old_m, get32(h + c->off));
		ck_host = dp_cksum_update32(ntohs(ck), ntohl(old_m), c->new_val);
	}
	want = recompute(h, ihl);
	put16(h + 10, ck_mem);
	if (ck_mem == want && htons(ck_host) == want && dp_cksum_ip4_hdr_sum(h, ihl) == 0xffff)
		return true;
	if (nb_reports++ < MAX_REPORTS) {
		unsigned int i;

		fprintf(stderr,
			"\n%s: ihl %u, field @%u/%u -> 0x%x: old cksum %04x, incremental %04x "
			"(host order %04x), recompute %04x, hdr sum %04x\n  header before:",
			what, ihl, c->off, c->size, c->new_val, ntohs(ck), ntohs(ck_mem), ck_host,
			ntohs(want), dp_cksum_ip4_hdr_sum(h, ihl));
		for (i = 0; i < ihl * 4; i++)
			fprintf(stderr, " %02x", before[i]);
		fprintf(stderr, "\n");
	}
	put16(h + 10, want); /* go on from a correct header */
	return false;
}

/* ---- tests ---- */

static void
test_cksum_known_vectors(void)
{
	static const struct {
		const char *name;
		uint8_t bytes[20];
		size_t len;
		uint16_t cksum; /* host order, over the bytes as given */
	} vec[] = {
		{ "RFC 1071 section 3 example", { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 },
			8, 0x220d },
		{ "odd length", { 0x00, 0x01, 0xf2 }, 3, 0x0dfe },
		{ "IPv4 header, UDP",
			{ 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00,
				0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7 },
			20, 0xb861 },
		{ "IPv4 header, TCP",
			{ 0x45, 0x00, 0x00, 0x3c, 0x1c, 0x46, 0x40, 0x00, 0x40, 0x06, 0x00, 0x00,
				0xac, 0x10, 0x0a, 0x63, 0xac, 0x10, 0x0a, 0x0c },
			20, 0xb1e6 },
		{ "all zero", { 0 }, 20, 0xffff },
	};
	static const struct {
		const char *name;
		uint16_t cksum, old_w, new_w, want;
	} upd16[] = {
		/* RFC 1624 section 4: eqn. 3 gives 0x0000 where RFC 1141 gives 0xffff */
		{ "RFC 1624 example", 0xdd2f, 0x5555, 0x3285, 0x0000 },
		{ "TTL 64 -> 63 of the UDP header", 0xb861, 0x4011, 0x3f11, 0xb961 },
		{ "no change", 0xb861, 0x4011, 0x4011, 0xb861 },
		{ "0xffff -> 0x0000 word", 0x1234, 0xffff, 0x0000, 0x1234 },
	};
	static const struct {
		const char *name;
		uint16_t cksum;
		uint32_t old_w, new_w;
		uint16_t want;
	} upd32[] = {
		{ "dst 192.168.0.199 -> 10.0.0.1", 0xb861, 0xc0a800c7, 0x0a000001, 0x6fd0 },
		{ "dst 10.0.0.1 -> 192.168.0.199", 0x6fd0, 0x0a000001, 0xc0a800c7, 0xb861 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(vec) / sizeof(vec[0]); i++) {
		uint16_t mem = dp_pkt_cksum(vec[i].bytes, vec[i].len);
		uint16_t ref = ref_cksum(vec[i].bytes, vec[i].len);

		if (ntohs(mem) != vec[i].cksum || ref != vec[i].cksum)
			fprintf(stderr, "%s: dp_pkt_cksum %04x, reference %04x, expected %04x\n",
				vec[i].name, ntohs(mem), ref, vec[i].cksum);
		CU_ASSERT_EQUAL(ntohs(mem), vec[i].cksum);
		CU_ASSERT_EQUAL(ref, vec[i].cksum);
		if (vec[i].len == 20 && vec[i].bytes[0] == 0x45) {
			uint8_t h[20];

			memcpy(h, vec[i].bytes, 20);
			put16(h + 10, mem);
			CU_ASSERT_EQUAL(dp_cksum_ip4_hdr_sum(h, 5), 0xffff);
			CU_ASSERT_EQUAL(dp_pkt_cksum(h, 20), 0);
			CU_ASSERT_TRUE(dp_pkt_ipv4_hdr_cksum_ok(h));
		}
	}
	for (i = 0; i < sizeof(upd16) / sizeof(upd16[0]); i++) {
		uint16_t got = dp_cksum_update16(upd16[i].cksum, upd16[i].old_w, upd16[i].new_w);

		if (got != upd16[i].want)
			fprintf(stderr, "%s: %04x, expected %04x\n", upd16[i].name, got,
				upd16[i].want);
		CU_ASSERT_EQUAL(got, upd16[i].want);
	}
	for (i = 0; i < sizeof(upd32) / sizeof(upd32[0]); i++) {
		uint16_t got = dp_cksum_update32(upd32[i].cksum, upd32[i].old_w, upd32[i].new_w);

		if (got != upd32[i].want)
			fprintf(stderr, "%s: %04x, expected %04x\n", upd32[i].name, got,
				upd32[i].want);
		CU_ASSERT_EQUAL(got, upd32[i].want);
	}
	/* the fold: end-around carry, twice */
	CU_ASSERT_EQUAL(dp_cksum_fold(0x0001ffff), 0x0001);
	CU_ASSERT_EQUAL(dp_cksum_fold(0xffffffff), 0xffff);
	CU_ASSERT_EQUAL(dp_cksum_fold(0x0002fffe), 0x0001);
	CU_ASSERT_EQUAL(dp_cksum_fold(0), 0);
}

/* TTL decrements, address rewrites and arbitrary word rewrites on random headers. */
static void
test_cksum_incremental_matches_recompute_random(void)
{
	unsigned long n, bad = 0, checks = 0;

	nb_reports = 0;
	for (n = 0; n < NB_RANDOM_HEADERS; n++) {
		unsigned int ihl = 5 + (unsigned int)(rnd() % 11);
		unsigned int ops = 1 + (unsigned int)(rnd() % 4);
		uint8_t h[60];

		rand_hdr(h, ihl);
		if (n % 16 == 0) /* start from 0x0000 now and then */
			make_zero_cksum(h, ihl), set_cksum(h, ihl);
		while (ops-- > 0) {
			uint64_t r = rnd();
			struct change c;
			const char *what;

			switch (r % 3) {
			case 0: { /* TTL decrement by 1..TTL (a router: 1) */
				unsigned int ttl = h[8];
				unsigned int dec;

				if (ttl == 0) {
					ttl = 1 + (unsigned int)((r >> 8) % 255);
					c = (struct change){ 8, 2, (uint32_t)ttl << 8 | h[9] };
					bad += !apply_and_check(h, ihl, &c, "TTL set");
					checks++;
				}
				dec = (r >> 16) & 1 ? 1 : 1 + (unsigned int)((r >> 24) % ttl);
				c = (struct change){ 8, 2, (uint32_t)(ttl - dec) << 8 | h[9] };
				what = "TTL decrement";
				break;
			}
			case 1: /* source or destination address */
				c = (struct change){ (r >> 8) & 1 ? 16 : 12, 4, rnd_addr() };
				what = "address rewrite";
				break;
			default: { /* any other 16-bit word, options included */
				unsigned int w = (unsigned int)((r >> 8) % (ihl * 2 - 1));

				c = (struct change){ (w >= 5 ? w + 1 : w) * 2, 2, rnd_word() };
				what = "word rewrite";
				break;
			}
			}
			bad += !apply_and_check(h, ihl, &c, what);
			checks++;
		}
	}
	printf("\n    %lu random headers, %lu incremental updates, %lu mismatches\n",
		(unsigned long)NB_RANDOM_HEADERS, checks, bad);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(checks >= NB_RANDOM_HEADERS);
}

/* Starting from a checksum of 0x0000, and from its other zero 0xffff. */
static void
test_cksum_update_from_zero_and_ffff_checksum(void)
{
	unsigned int n, bad = 0;

	nb_reports = 0;
	for (n = 0; n < 2000; n++) {
		unsigned int ihl = 5 + n % 11;
		uint8_t h[60], h2[60], h3[60];
		struct change c;

		rand_hdr(h, ihl);
		make_zero_cksum(h, ihl);
		set_cksum(h, ihl);
		CU_ASSERT_EQUAL_FATAL(get16(h + 10), 0x0000);
		CU_ASSERT_EQUAL(dp_cksum_ip4_hdr_sum(h, ihl), 0xffff);
		if (h[8] == 0)
			h[8] = 1, make_zero_cksum(h, ihl), set_cksum(h, ihl);
		memcpy(h2, h, sizeof(h));
		memcpy(h3, h, sizeof(h));

		c = (struct change){ 8, 2, (uint32_t)(h[8] - 1) << 8 | h[9] };
		bad += !apply_and_check(h, ihl, &c, "TTL from cksum 0x0000");
		c = (struct change){ 16, 4, rnd_addr() };
		bad += !apply_and_check(h, ihl, &c, "address after cksum 0x0000");

		/* 0xffff is the same one's complement zero: the header still verifies */
		put16(h2 + 10, 0xffff);
		CU_ASSERT_EQUAL(dp_cksum_ip4_hdr_sum(h2, ihl), 0xffff);
		c = (struct change){ 8, 2, (uint32_t)(h2[8] - 1) << 8 | h2[9] };
		bad += !apply_and_check(h2, ihl, &c, "TTL from cksum 0xffff");
		put16(h3 + 10, 0xffff);
		CU_ASSERT_EQUAL(dp_cksum_ip4_hdr_sum(h3, ihl), 0xffff);
		c = (struct change){ 12, 4, rnd_addr() };
		bad += !apply_and_check(h3, ihl, &c, "address from cksum 0xffff");
	}
	CU_ASSERT_EQUAL(bad, 0);
}

/* Changes whose correct result is 0x0000: eqn. 3 must not give 0xffff (RFC 1624). */
static void
test_cksum_update_to_zero_checksum(void)
{
	unsigned int n, bad = 0;

	nb_reports = 0;
	for (n = 0; n < 2000; n++) {
		unsigned int ihl = 5 + n % 11;
		uint8_t h[60];
		uint16_t ck, got;
		uint16_t old_w, new_w;

		rand_hdr(h, ihl);
		if (h[8] == 0)
			h[8] = 64;
		/* the header after the decrement has checksum 0 ... */
		h[8]--;
		make_zero_cksum(h, ihl);
		set_cksum(h, ihl);
		CU_ASSERT_EQUAL_FATAL(get16(h + 10), 0x0000);
		/* ... so the one before it is the input */
		new_w = get16(h + 8);
		h[8]++;
		set_cksum(h, ihl);
		old_w = get16(h + 8);
		ck = get16(h + 10);
		got = dp_cksum_update16(ck, old_w, new_w);
		if (got != 0x0000) {
			bad++;
			if (bad <= MAX_REPORTS)
				fprintf(stderr, "to zero: cksum %04x, %04x -> %04x gave %04x\n",
					ntohs(ck), ntohs(old_w), ntohs(new_w), ntohs(got));
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
}

/* dp_cksum_ttl_dec() against eqn. 3, for every checksum and every TTL > 0. */
static void
test_cksum_ttl_dec_exhaustive(void)
{
	uint32_t ck, ttl, bad = 0, proto = 0x11;

	for (ttl = 1; ttl < 256; ttl++)
		for (ck = 0; ck <= 0xffff; ck++) {
			uint16_t ck_be = htons((uint16_t)ck);
			uint16_t old_w = htons((uint16_t)(ttl << 8 | proto));
			uint16_t new_w = htons((uint16_t)((ttl - 1) << 8 | proto));
			uint16_t want = dp_cksum_update16(ck_be, old_w, new_w);
			uint16_t got = dp_cksum_ttl_dec(ck_be);

			if (got != want && ++bad <= MAX_REPORTS)
				fprintf(stderr, "ttl_dec: ttl %u cksum %04x: %04x, eqn. 3 %04x\n",
					ttl, ck, ntohs(got), ntohs(want));
		}
	CU_ASSERT_EQUAL(bad, 0);
}

/* TTL 1 -> 0 (the router drops it, but the update itself must be right). */
static void
test_cksum_ttl_1_to_0(void)
{
	unsigned int n, bad = 0;
	uint8_t h[20] = { 0x45, 0x00, 0x00, 0x1c, 0x00, 0x01, 0x00, 0x00, 0x01, 0x11, 0x00, 0x00,
		198, 18, 0, 1, 198, 18, 1, 1 };
	struct change c;

	nb_reports = 0;
	set_cksum(h, 5);
	c = (struct change){ 8, 2, 0x0011 };
	CU_ASSERT_TRUE(apply_and_check(h, 5, &c, "TTL 1 -> 0"));
	CU_ASSERT_EQUAL(h[8], 0);
	for (n = 0; n < 5000; n++) {
		unsigned int ihl = 5 + n % 11;
		uint8_t r[60];

		rand_hdr(r, ihl);
		r[8] = 1;
		if (n % 2)
			make_zero_cksum(r, ihl);
		set_cksum(r, ihl);
		c = (struct change){ 8, 2, r[9] };
		bad += !apply_and_check(r, ihl, &c, "TTL 1 -> 0 random");
	}
	CU_ASSERT_EQUAL(bad, 0);
}

/* Fields going to and from 0x0000 / 0xffff, 16 and 32 bits at a time. */
static void
test_cksum_words_0000_ffff(void)
{
	static const uint32_t addrs[] = { 0x00000000, 0xffffffff, 0xffff0000, 0x0000ffff,
		0x00000000, 0xffff0000, 0xffffffff, 0x0000ffff, 0x00000000 };
	static const uint16_t words[] = { 0x0000, 0xffff, 0x0000, 0x0001, 0xffff, 0xfffe, 0x0000 };
	unsigned int n, i, bad = 0;

	nb_reports = 0;
	for (n = 0; n < 2000; n++) {
		unsigned int ihl = 5 + n % 11;
		uint8_t h[60];
		struct change c;

		rand_hdr(h, ihl);
		if (n % 3 == 0)
			make_zero_cksum(h, ihl), set_cksum(h, ihl);
		for (i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
			c = (struct change){ i % 2 ? 12 : 16, 4, addrs[i] };
			bad += !apply_and_check(h, ihl, &c, "address 0/ffff");
			c = (struct change){ i % 2 ? 16 : 12, 4, addrs[(i + 3) % 9] };
			bad += !apply_and_check(h, ihl, &c, "address 0/ffff");
		}
		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
			c = (struct change){ 4, 2, words[i] }; /* ID */
			bad += !apply_and_check(h, ihl, &c, "word 0/ffff");
			c = (struct change){ 6, 2, words[(i + 1) % 7] }; /* flags/fragment */
			bad += !apply_and_check(h, ihl, &c, "word 0/ffff");
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
}

/*
 * The two-word one's complement sums against a fold of the plain sum, over
 * every first word and a spread of second words (0, 1, 0xfffe, 0xffff among
 * them); and the relay's UDP form C + ~delta against RFC 1624 eqn. 3,
 * ~(~C + delta), with 0 sent as 0xffff: the same for every C but 0.
 */
static void
test_cksum_add16_and_halves(void)
{
	unsigned long bad = 0, bad_halves = 0, bad_udp = 0;
	uint32_t a, k;

	for (a = 0; a <= 0xffff; a++)
		for (k = 0; k < 261; k++) {
			const uint16_t b = k < 4 ? (uint16_t[]){ 0, 1, 0xfffe, 0xffff }[k]
						 : (uint16_t)(k * 251u + a * 7u);
			uint32_t ref = a + b;
			uint16_t eqn3;

			ref = (ref & 0xffff) + (ref >> 16);
			bad += dp_cksum_add16((uint16_t)a, b) != ref;
			bad_halves += dp_cksum_add_halves(a << 16 | b) != ref;
			if (a == 0)
				continue;
			eqn3 = (uint16_t)~dp_cksum_fold((uint32_t)(uint16_t)~a + b);
			bad_udp += dp_cksum_add16((uint16_t)a, (uint16_t)~b) !=
				   (eqn3 == 0 ? 0xffff : eqn3);
		}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(bad_halves, 0);
	CU_ASSERT_EQUAL(bad_udp, 0);
	CU_ASSERT_EQUAL(dp_cksum_add16(0, 0), 0);
	CU_ASSERT_EQUAL(dp_cksum_add16(0xffff, 1), 1);
	CU_ASSERT_EQUAL(dp_cksum_add_halves(0xffffffff), 0xffff);
}

/* 0xffff for valid headers of every IHL, at any alignment; never with one bit flipped. */
static void
test_cksum_ip4_hdr_sum_valid_and_flipped(void)
{
	unsigned int ihl, n, bit;
	unsigned long valid_bad = 0, flip_bad = 0, flips = 0;

	for (ihl = 5; ihl <= 15; ihl++) {
		for (n = 0; n < 1000; n++) {
			uint8_t buf[64 + 3];
			uint8_t *h = buf + n % 4; /* unaligned too */
			unsigned int len = ihl * 4;

			rand_hdr(h, ihl);
			if (n == 0) { /* carries everywhere */
				memset(h + 1, 0xff, len - 1);
				set_cksum(h, ihl);
			} else if (n == 1) {
				memset(h + 1, 0, len - 1);
				set_cksum(h, ihl);
			} else if (n % 8 == 2) {
				make_zero_cksum(h, ihl);
				set_cksum(h, ihl);
			}
			if (dp_cksum_ip4_hdr_sum(h, ihl) != 0xffff) {
				if (valid_bad++ < MAX_REPORTS)
					fprintf(stderr, "valid ihl %u header: sum %04x\n", ihl,
						dp_cksum_ip4_hdr_sum(h, ihl));
			}
			/* every bit for some headers, one random bit for the rest */
			for (bit = 0; bit < len * 8; bit++) {
				unsigned int b = n < 20 ? bit : (unsigned int)(rnd() % (len * 8));
				uint16_t s;

				h[b / 8] ^= (uint8_t)(1u << (b % 8));
				s = dp_cksum_ip4_hdr_sum(h, ihl);
				h[b / 8] ^= (uint8_t)(1u << (b % 8));
				flips++;
				if (s == 0xffff && flip_bad++ < MAX_REPORTS)
					fprintf(stderr,
						"ihl %u, bit %u flipped: sum still 0xffff\n", ihl,
						b);
				if (n >= 20)
					break;
			}
		}
	}
	CU_ASSERT_EQUAL(valid_bad, 0);
	CU_ASSERT_EQUAL(flip_bad, 0);
	CU_ASSERT(flips > 11 * 1000);
}

/* dp_cksum_ip4_hdr_sum agrees with a full sum for any content (not just valid headers). */
static void
test_cksum_ip4_hdr_sum_matches_reference(void)
{
	unsigned int n, bad = 0;

	for (n = 0; n < 20000; n++) {
		unsigned int ihl = 5 + n % 11;
		uint8_t h[60];
		unsigned int i;
		uint16_t want;

		for (i = 0; i < ihl * 4; i++)
			h[i] = (uint8_t)rnd();
		/* dp_pkt_cksum = ~(folded sum of memory-order words) */
		want = (uint16_t)~dp_pkt_cksum(h, ihl * 4);
		if (dp_cksum_ip4_hdr_sum(h, ihl) != want && bad++ < MAX_REPORTS)
			fprintf(stderr, "ihl %u: hdr sum %04x, reference %04x\n", ihl,
				dp_cksum_ip4_hdr_sum(h, ihl), want);
	}
	CU_ASSERT_EQUAL(bad, 0);
}

/*
 * dp_cksum_ip4_hdr20_ok (the fast paths' test, by divisibility) says yes
 * exactly when the full sum is 0xffff: valid headers, carries everywhere
 * (the 64-bit words overflow), every bit of some valid headers flipped, and
 * random content; any alignment. The first byte is never 0 (the version).
 */
static void
test_cksum_ip4_hdr20_ok_matches_sum(void)
{
	unsigned int n, bit, bad = 0, valid = 0, invalid = 0;

	for (n = 0; n < 40000; n++) {
		uint8_t buf[20 + 7];
		uint8_t *h = buf + n % 8;
		unsigned int i, flips = n < 200 ? 159 : 1;

		for (i = 0; i < 20; i++)
			h[i] = (uint8_t)rnd();
		h[0] = (uint8_t)(h[0] | 1);
		if (n % 4 == 1) {
			memset(h + 1, 0xff, 19); /* carries everywhere */
			set_cksum(h, 5);
		} else if (n % 4 == 2) {
			set_cksum(h, 5);
		} else if (n % 4 == 3) {
			memset(h + 2, n % 8 == 3 ? 0 : 0xff, 8);
			set_cksum(h, 5);
		}
		for (bit = 0; bit <= flips; bit++) {
			/* as is first, then one bit flipped at a time (not the first
			 * byte's lowest: it keeps the header non-zero) */
			const unsigned int b = n < 200 ? bit : 1 + (unsigned int)rnd() % 159;
			bool want, got;

			if (bit != 0)
				h[b / 8] ^= (uint8_t)(1u << (b % 8));
			want = dp_pkt_cksum(h, 20) == 0; /* the folded sum is 0xffff */
			got = dp_cksum_ip4_hdr20_ok(h);
			valid += want;
			invalid += !want;
			if (got != want && bad++ < MAX_REPORTS)
				fprintf(stderr, "header %u, bit %u: ok %d, full sum says %d\n", n,
					bit ? b : 0, got, want);
			if (bit != 0)
				h[b / 8] ^= (uint8_t)(1u << (b % 8));
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(valid >= 30000);
	CU_ASSERT(invalid >= 40000);
}

static const struct dp_test tests[] = {
	{ "test_cksum_known_vectors", test_cksum_known_vectors },
	{ "test_cksum_incremental_matches_recompute_random",
		test_cksum_incremental_matches_recompute_random },
	{ "test_cksum_update_from_zero_and_ffff_checksum",
		test_cksum_update_from_zero_and_ffff_checksum },
	{ "test_cksum_update_to_zero_checksum", test_cksum_update_to_zero_checksum },
	{ "test_cksum_ttl_dec_exhaustive", test_cksum_ttl_dec_exhaustive },
	{ "test_cksum_ttl_1_to_0", test_cksum_ttl_1_to_0 },
	{ "test_cksum_words_0000_ffff", test_cksum_words_0000_ffff },
	{ "test_cksum_add16_and_halves", test_cksum_add16_and_halves },
	{ "test_cksum_ip4_hdr_sum_valid_and_flipped", test_cksum_ip4_hdr_sum_valid_and_flipped },
	{ "test_cksum_ip4_hdr_sum_matches_reference", test_cksum_ip4_hdr_sum_matches_reference },
	{ "test_cksum_ip4_hdr20_ok_matches_sum", test_cksum_ip4_hdr20_ok_matches_sum },
	{ NULL, NULL },
};

int
main(void)
{
	return dp_test_run("cksum", tests, suite_init, NULL);
}
