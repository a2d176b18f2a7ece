/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gen_pkt.h"

/* One's complement sum of bytes [from, to) of @p f, words aligned on @p from; odd tail padded. */
static uint32_t
sum_range(const uint8_t *f, size_t from, size_t to)
{
	uint32_t sum = 0;

	if (to <= from)
		return 0;
	sum = gen_sum16(f + from, (unsigned int)((to - from) & ~(size_t)1));
	if ((to - from) & 1)
		sum += (uint32_t)f[to - 1] << 8;
	/* keep headroom for later additions: a 9000-byte payload sums below 2^28 anyway */
	return dp_cksum_fold(sum);
}

/* Pseudo header (RFC 768, RFC 8200 section 8.1) plus the UDP header with checksum 0. */
static uint32_t
hdr_sum(const uint8_t *f, const struct gen_tmpl *t)
{
	const uint8_t *ip = f + t->l3_off, *udp = f + t->l4_off;
	uint32_t sum;

	if (t->ip_version == 4)
		sum = gen_sum16(ip + 12, 8); /* source and destination */
	else
		sum = gen_sum16(ip + 8, 32);
	sum += 17;                             /* zero, protocol / next header */
	sum += (uint32_t)udp[4] << 8 | udp[5]; /* UDP length (upper-layer length) */
	sum += gen_sum16(udp, 6);              /* ports and length, not the checksum */
	return sum;
}

void
gen_tmpl_parse(struct gen_tmpl *t)
{
	const uint8_t *f = t->data;
	size_t l3, l4, end;
	uint16_t et;
	uint32_t udp_len, pay_from;

	t->ip_version = 0;
	t->udp = t->stampable = t->udp_cksum = false;
	t->udp_sum = 0;
	t->l3_off = t->l4_off = 0;
	if (dp_pkt_l3_offset(f, t->len, &l3, &et) != 0)
		return;
	t->l3_off = (uint16_t)l3;
	if (et == DP_PKT_ETHERTYPE_IPV4 && t->len >= l3 + 20 && (f[l3] >> 4) == 4) {
		size_t ihl = (size_t)(f[l3] & 0xf) * 4;

		t->ip_version = 4;
		/* UDP, header checksum field aside; fragments other than the first have no header
		 */
		if (ihl < 20 || f[l3 + 9] != 17 || ((f[l3 + 6] & 0x1f) | f[l3 + 7]) != 0)
			return;
		l4 = l3 + ihl;
	} else if (et == DP_PKT_ETHERTYPE_IPV6 && t->len >= l3 + 40 && (f[l3] >> 4) == 6) {
		t->ip_version = 6;
		if (f[l3 + 6] != 17)
			return;
		l4 = l3 + 40;
	} else {
		return;
	}
	if (t->len < l4 + 8)
		return;
	udp_len = (uint32_t)f[l4 + 4] << 8 | f[l4 + 5];
	end = l4 + udp_len;
	/* a datagram cut short in the capture cannot get a checksum: leave it opaque */
	if (udp_len < 8 || end > t->len)
		return;
	t->l4_off = (uint16_t)l4;
	t->udp = true;
	/* IPv4 may say "no checksum" with 0 (RFC 768); IPv6 may not (RFC 8200 8.1) */
	t->udp_cksum = t->ip_version == 6 || (f[l4 + 6] | f[l4 + 7]) != 0;
	/* a fragmented datagram (MF set) has its payload elsewhere: do not stamp it */
	t->stampable = udp_len >= 8 + GEN_STAMP_LEN && !(t->ip_version == 4 && (f[l3 + 6] & 0x20));
	pay_from = (uint32_t)l4 + 8 + (t->stampable ? GEN_STAMP_LEN : 0);
	t->udp_sum = dp_cksum_fold(hdr_sum(f, t) + sum_range(f, pay_from, end));
}

void
gen_tmpl_free(struct gen_tmpl *t)
{
	free(t->data);
	t->data = NULL;
	t->len = 0;
}

int
gen_synth_build(
	const struct gen_synth *s, bool need_stamp, struct gen_tmpl *t, struct gen_flow **flows)
{
	struct dp_pkt_spec spec;
	struct gen_flow *fl;
	uint8_t hdr[128];
	uint32_t pay_sum, i;
	size_t len = 0;
	int rc;

	memset(t, 0, sizeof(*t));
	*flows = NULL;
	if (s->flows == 0 || s->flows > GEN_FLOWS_MAX)
		return -EINVAL;
	rc = dp_pkt_spec_flow(&spec, &s->base, 0, s->vary, s->src_plen);
	if (rc != 0)
		return rc;
	spec.flow_id = 0; /* one payload pattern for every flow: the template's */
	t->data = malloc(GEN_FRAME_MAX);
	if (t->data == NULL)
		return -ENOMEM;
	rc = dp_pkt_build(&spec, t->data, GEN_FRAME_MAX, &len);
	if (rc != 0)
		goto free_data;
	t->len = (uint32_t)len;
	gen_tmpl_parse(t);
	rc = -EINVAL;
	if (!t->udp || t->l4_off + 8u > sizeof(hdr) || (need_stamp && !t->stampable))
		goto free_data;
	if (t->stampable)
		memset(t->data + t->l4_off + 8, 0, GEN_STAMP_LEN);
	pay_sum = sum_range(t->data, t->l4_off + 8u + (t->stampable ? GEN_STAMP_LEN : 0u),
		t->l4_off + ((uint32_t)t->data[t->l4_off + 4] << 8 | t->data[t->l4_off + 5]));

	fl = calloc(s->flows, sizeof(*fl));
	rc = -ENOMEM;
	if (fl == NULL)
		goto free_data;
	/* headers of each flow in a scratch copy: addresses and port patched, sums from scratch */
	memcpy(hdr, t->data, t->l4_off + 8u);
	for (i = 0; i < s->flows; i++) {
		uint8_t *ip = hdr + t->l3_off, *udp = hdr + t->l4_off;
		uint16_t ck;

		rc = dp_pkt_spec_flow(&spec, &s->base, i, s->vary, s->src_plen);
		if (rc != 0) {
			free(fl);
			goto free_data;
		}
		udp[0] = (uint8_t)(spec.sport >> 8);
		udp[1] = (uint8_t)spec.sport;
		if (t->ip_version == 4) {
			ip[12] = (uint8_t)(spec.src_ip4 >> 24);
			ip[13] = (uint8_t)(spec.src_ip4 >> 16);
			ip[14] = (uint8_t)(spec.src_ip4 >> 8);
			ip[15] = (uint8_t)spec.src_ip4;
			ip[10] = ip[11] = 0;
			ck = dp_pkt_cksum(ip, (size_t)(ip[0] & 0xf) * 4);
			memcpy(ip + 10, &ck, 2);
			memcpy(&fl[i].ip_cksum, ip + 10, 2);
			memcpy(fl[i].saddr, ip + 12, 4);
		} else {
			memcpy(ip + 8, spec.src_ip6, 16);
			memcpy(fl[i].saddr, ip + 8, 16);
		}
		memcpy(&fl[i].sport_be, udp, 2);
		fl[i].udp_sum = dp_cksum_fold(hdr_sum(hdr, t) + pay_sum);
	}
	*flows = fl;
	return 0;

free_data:
	gen_tmpl_free(t);
	return rc;
}
