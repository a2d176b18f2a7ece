/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "gen_pcap.h"

void
gen_pcap_free(struct gen_tmpl *tmpl, uint32_t n)
{
	uint32_t i;

	if (tmpl == NULL)
		return;
	for (i = 0; i < n; i++)
		gen_tmpl_free(&tmpl[i]);
	free(tmpl);
}

int
gen_pcap_load(const char *path, const uint8_t *src_mac, const uint8_t *dst_mac,
	struct gen_tmpl **tmpl, struct gen_pcap_info *info, char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	struct gen_tmpl *t = NULL, *grown;
	uint32_t n = 0, cap = 0; /* templates in t and room for them */
	pcap_t *p;
	int rc = 0, r;

	memset(info, 0, sizeof(*info));
	*tmpl = NULL;
	p = pcap_open_offline(path, ebuf);
	if (p == NULL) {
		snprintf(err, errlen, "%s: %s", path, ebuf);
		return -ENOENT;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		snprintf(err, errlen, "%s: link type %s, dpgen replays Ethernet (EN10MB) only",
			path, pcap_datalink_val_to_name(pcap_datalink(p)));
		pcap_close(p);
		return -EINVAL;
	}
	while ((r = pcap_next_ex(p, &h, &data)) == 1) {
		struct gen_tmpl *cur;

		if (h->caplen < 14)
			continue; /* not even an Ethernet header: nothing a port could send */
		if (h->caplen > GEN_FRAME_MAX - DP_PKT_FCS_LEN) {
			info->oversize++;
			continue;
		}
		if (n == GEN_PCAP_MAX_PKTS || info->bytes + h->caplen > GEN_PCAP_MAX_BYTES) {
			snprintf(err, errlen, "%s: more than %u frames or %llu bytes", path,
				GEN_PCAP_MAX_PKTS, GEN_PCAP_MAX_BYTES);
			rc = -EINVAL;
			goto close;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			grown = realloc(t, cap * sizeof(*t));
			if (grown == NULL) {
				rc = -ENOMEM;
				goto close;
			}
			t = grown;
		}
		cur = &t[n];
		memset(cur, 0, sizeof(*cur));
		cur->data = malloc(h->caplen);
		if (cur->data == NULL) {
			rc = -ENOMEM;
			goto close;
		}
		memcpy(cur->data, data, h->caplen);
		cur->len = h->caplen;
		if (dst_mac != NULL)
			memcpy(cur->data, dst_mac, 6);
		if (src_mac != NULL)
			memcpy(cur->data + 6, src_mac, 6);
		gen_tmpl_parse(cur);
		n++;
		info->bytes += h->caplen;
		if (h->caplen < h->len)
			info->truncated++;
		if (cur->stampable)
			info->stampable++;
		if (h->caplen > info->max_len)
			info->max_len = h->caplen;
	}
	if (r == -1) {
		snprintf(err, errlen, "%s: %s", path, pcap_geterr(p));
		rc = -EIO;
	} else if (n == 0) {
		snprintf(err, errlen, "%s: no Ethernet frame to replay%s", path,
			info->oversize ? " (all longer than 8996 bytes)" : "");
		rc = -EINVAL;
	}
close:
	pcap_close(p);
	info->packets = n;
	if (rc != 0) {
		if (rc == -ENOMEM)
			snprintf(err, errlen, "%s: out of memory after %u frames", path, n);
		gen_pcap_free(t, n);
		return rc;
	}
	*tmpl = t;
	return 0;
}
