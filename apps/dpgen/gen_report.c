/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen_report.h"

static const struct {
	const char *key;
	uint32_t pcm; /* thousandths of a percent, see dp_hist_percentile() */
} percentiles[] = {
	{ "p50", 50000 },
	{ "p90", 90000 },
	{ "p99", 99000 },
	{ "p99_9", 99900 },
};

int
gen_report_init(struct gen_report *r, double hz, uint64_t t0, bool has_tx, bool has_rx, bool quiet)
{
	memset(r, 0, sizeof(*r));
	r->hz = hz;
	r->t0 = t0;
	r->has_tx = has_tx;
	r->has_rx = has_rx;
	r->quiet = quiet;
	r->prev_tx.tsc = t0;
	r->prev_rx.tsc = t0;
	r->total = dp_hist_create(GEN_HIST_SUB_BITS);
	r->measured = dp_hist_create(GEN_HIST_SUB_BITS);
	r->samples = json_array();
	if (r->total == NULL || r->measured == NULL || r->samples == NULL) {
		gen_report_free(r);
		return -ENOMEM;
	}
	r->measuring = true;
	r->m_tsc = t0;
	r->m_tx.tsc = t0;
	r->m_rx.tsc = t0;
	return 0;
}

void
gen_report_set_warmup(struct gen_report *r, double secs)
{
	r->warmup_tsc = secs > 0 ? (uint64_t)(secs * r->hz) : 0;
	r->measuring = r->warmup_tsc == 0;
}

void
gen_report_free(struct gen_report *r)
{
	dp_hist_free(r->total);
	r->total = NULL;
	dp_hist_free(r->measured);
	r->measured = NULL;
	json_decref(r->samples);
	r->samples = NULL;
}

void
gen_report_legend(const struct gen_report *r)
{
	if (r->quiet)
		return;
	printf("dpgen: per second: Mpps, then Gbps frame/wire (frame = bytes with the 4 B FCS, "
	       "wire = frame + 20 B preamble and IFG)%s\n",
		r->has_rx ? "; lost, reordered, duplicate packets; latency in us" : "");
}

static double
ns(const struct gen_report *r, uint64_t cycles)
{
	return (double)cycles * 1e9 / r->hz;
}

json_t *
gen_report_latency_json(const struct dp_hist *h, double hz)
{
	json_t *o;
	unsigned int i;

	if (h->count == 0)
		return json_null();
	o = json_object();
	if (o == NULL)
		return NULL;
	json_object_set_new(o, "count", json_integer((json_int_t)h->count));
	json_object_set_new(o, "min", json_real((double)h->min * 1e9 / hz));
	json_object_set_new(o, "mean", json_real(dp_hist_mean(h) * 1e9 / hz));
	for (i = 0; i < sizeof(percentiles) / sizeof(percentiles[0]); i++)
		json_object_set_new(o, percentiles[i].key,
			json_real((double)dp_hist_percentile(h, percentiles[i].pcm) * 1e9 / hz));
	json_object_set_new(o, "max", json_real((double)h->max * 1e9 / hz));
	return o;
}

/* Packets and bytes of a stretch -> pps, Gbps of frames, Gbps on the wire. */
struct rates {
	double pps;
	double gbps_frame;
	double gbps_wire;
};

static struct rates
rates(uint64_t pkts, uint64_t bytes, double secs)
{
	struct rates x = { 0, 0, 0 };

	if (secs <= 0)
		return x;
	x.pps = (double)pkts / secs;
	x.gbps_frame = (double)(bytes + pkts * GEN_FCS_BYTES) * 8 / secs / 1e9;
	x.gbps_wire =
		(double)(bytes + pkts * (GEN_FCS_BYTES + GEN_WIRE_EXTRA_BYTES)) * 8 / secs / 1e9;
	return x;
}

/* "<prefix>_pps", ... in a sample; "pps", ... in the totals' tx/rx objects (NULL prefix). */
static void
set_rates(json_t *o, const char *prefix, struct rates x)
{
	const char *sep = prefix != NULL ? "_" : "";
	char key[32];

	prefix = prefix != NULL ? prefix : "";
	snprintf(key, sizeof(key), "%s%spps", prefix, sep);
	json_object_set_new(o, key, json_real(x.pps));
	snprintf(key, sizeof(key), "%s%sgbps_frame", prefix, sep);
	json_object_set_new(o, key, json_real(x.gbps_frame));
	snprintf(key, sizeof(key), "%s%sgbps_wire", prefix, sep);
	json_object_set_new(o, key, json_real(x.gbps_wire));
}

/*
 * Where a stretch that began at @p start ends, for rates: at @p tsc, or where TX
 * stopped if that came first. The last interval runs on through the drain time,
 * when nothing is sent and only stragglers arrive; it would read as a dip.
 */
static uint64_t
stretch_end(const struct gen_counters *tx, uint64_t tsc, uint64_t start)
{
	if (tx != NULL && tx->tx_end_tsc != 0 && tx->tx_end_tsc > start && tx->tx_end_tsc < tsc)
		return tx->tx_end_tsc;
	return tsc;
}

void
gen_report_interval(struct gen_report *r, const struct gen_counters *tx,
	const struct gen_counters *rx, const struct dp_hist *h)
{
	const struct gen_counters *end = tx != NULL ? tx : rx;
	char line[512];
	size_t len = 0;
	json_t *s = json_object();

	if (end == NULL || s == NULL) {
		json_decref(s);
		return;
	}
	json_object_set_new(s, "t_s", json_real((double)(end->tsc - r->t0) / r->hz));
	if (r->has_tx && tx != NULL) {
		double secs =
			(double)(stretch_end(tx, tx->tsc, r->prev_tx.tsc) - r->prev_tx.tsc) / r->hz;
		uint64_t pkts = tx->tx_pkts - r->prev_tx.tx_pkts;
		struct rates x = rates(pkts, tx->tx_bytes - r->prev_tx.tx_bytes, secs);

		json_object_set_new(s, "tx_interval_s", json_real(secs));
		json_object_set_new(s, "tx_pkts", json_integer((json_int_t)pkts));
		set_rates(s, "tx", x);
		json_object_set_new(s, "tx_behind_s",
			json_real((double)(tx->tx_behind - r->prev_tx.tx_behind) / r->hz));
		len += (size_t)snprintf(line + len, sizeof(line) - len,
			"tx %8.3f Mpps %7.3f/%7.3f Gbps", x.pps / 1e6, x.gbps_frame, x.gbps_wire);
		r->prev_tx = *tx;
	}
	if (r->has_rx && rx != NULL) {
		const struct gen_seq_counts *c = &rx->seq, *p = &r->prev_rx.seq;
		double secs =
			(double)(stretch_end(tx, rx->tsc, r->prev_rx.tsc) - r->prev_rx.tsc) / r->hz;
		uint64_t pkts = rx->rx_pkts - r->prev_rx.rx_pkts;
		struct rates x = rates(pkts, rx->rx_bytes - r->prev_rx.rx_bytes, secs);

		json_object_set_new(s, "rx_interval_s", json_real(secs));
		json_object_set_new(s, "rx_pkts", json_integer((json_int_t)pkts));
		set_rates(s, "rx", x);
		json_object_set_new(s, "rx_stamped",
			json_integer((json_int_t)(rx->rx_stamped - r->prev_rx.rx_stamped)));
		json_object_set_new(s, "lost", json_integer((json_int_t)(c->lost - p->lost)));
		json_object_set_new(
			s, "reordered", json_integer((json_int_t)(c->reordered - p->reordered)));
		json_object_set_new(
			s, "duplicates", json_integer((json_int_t)(c->duplicates - p->duplicates)));
		json_object_set_new(s, "late", json_integer((json_int_t)(c->late - p->late)));
		json_object_set_new(s, "latency_ns", gen_report_latency_json(h, r->hz));
		len += (size_t)snprintf(line + len, sizeof(line) - len,
			"%srx %8.3f Mpps %7.3f/%7.3f Gbps | lost %" PRIu64 " reord %" PRIu64
			" dup %" PRIu64,
			len ? " | " : "", x.pps / 1e6, x.gbps_frame, x.gbps_wire, c->lost - p->lost,
			c->reordered - p->reordered, c->duplicates - p->duplicates);
		if (h->count != 0 && len < sizeof(line))
			snprintf(line + len, sizeof(line) - len,
				" | lat p50 %.2f p90 %.2f p99 %.2f p99.9 %.2f max %.2f",
				ns(r, dp_hist_percentile(h, 50000)) / 1e3,
				ns(r, dp_hist_percentile(h, 90000)) / 1e3,
				ns(r, dp_hist_percentile(h, 99000)) / 1e3,
				ns(r, dp_hist_percentile(h, 99900)) / 1e3, ns(r, h->max) / 1e3);
		dp_hist_merge(r->total, h);
		if (r->measuring)
			dp_hist_merge(r->measured, h);
		r->prev_rx = *rx;
	}
	json_array_append_new(r->samples, s);
	r->n++;
	if (r->measuring) {
		r->m_n++;
	} else if (end->tsc - r->t0 >= r->warmup_tsc) {
		/* this sample ends the warm-up: the measured part starts at its end */
		r->measuring = true;
		r->m_tsc = end->tsc;
		r->m_tx = r->prev_tx;
		r->m_rx = r->prev_rx;
	}
	if (!r->quiet) {
		printf("[%7.1fs] %s\n", (double)(end->tsc - r->t0) / r->hz, line);
		fflush(stdout);
	}
}

json_t *
gen_report_total(struct gen_report *r, const struct gen_counters *tx, const struct gen_counters *rx)
{
	json_t *t = json_object(), *o;
	double secs = 0;

	if (t == NULL)
		return NULL;
	/* rates over the time TX was sending; RX over the same stretch, for comparison */
	if (tx != NULL) {
		uint64_t end = tx->tx_end_tsc ? tx->tx_end_tsc : tx->tsc;

		secs = (double)(end - tx->tx_start_tsc) / r->hz;
	} else if (rx != NULL) {
		secs = (double)(rx->tsc - r->t0) / r->hz;
	}
	json_object_set_new(t, "duration_s", json_real(secs));
	if (tx != NULL) {
		struct rates x = rates(tx->tx_pkts, tx->tx_bytes, secs);
		uint64_t frame_bytes = tx->tx_bytes + tx->tx_pkts * GEN_FCS_BYTES;

		o = json_object();
		json_object_set_new(o, "pkts", json_integer((json_int_t)tx->tx_pkts));
		json_object_set_new(o, "bytes_frame", json_integer((json_int_t)frame_bytes));
		set_rates(o, NULL, x);
		json_object_set_new(o, "stamped", json_integer((json_int_t)tx->tx_stamped));
		json_object_set_new(o, "nombuf", json_integer((json_int_t)tx->tx_nombuf));
		json_object_set_new(o, "queue_full", json_integer((json_int_t)tx->tx_full));
		json_object_set_new(o, "unsent", json_integer((json_int_t)tx->tx_unsent));
		json_object_set_new(o, "behind_s", json_real((double)tx->tx_behind / r->hz));
		json_object_set_new(t, "tx", o);
		printf("dpgen: total %.3f s: tx %" PRIu64 " packets, %.3f Mpps, %.3f Gbps frame, "
		       "%.3f Gbps wire\n",
			secs, tx->tx_pkts, x.pps / 1e6, x.gbps_frame, x.gbps_wire);
		if (tx->tx_behind > r->hz / 1000)
			printf("dpgen: note: the sender fell behind the target rate for %.3f s in "
			       "all (its lcore was descheduled or too slow); --catchup-us lets it "
			       "catch up in bursts\n",
				(double)tx->tx_behind / r->hz);
	}
	if (rx != NULL) {
		const struct gen_seq_counts *c = &rx->seq;
		struct rates x = rates(rx->rx_pkts, rx->rx_bytes, secs);
		uint64_t sent = tx != NULL ? tx->tx_stamped : 0;
		uint64_t frame_bytes = rx->rx_bytes + rx->rx_pkts * GEN_FCS_BYTES;

		o = json_object();
		json_object_set_new(o, "pkts", json_integer((json_int_t)rx->rx_pkts));
		json_object_set_new(o, "bytes_frame", json_integer((json_int_t)frame_bytes));
		set_rates(o, NULL, x);
		json_object_set_new(o, "stamped", json_integer((json_int_t)rx->rx_stamped));
		json_object_set_new(o, "foreign", json_integer((json_int_t)rx->rx_foreign));
		json_object_set_new(o, "unstamped", json_integer((json_int_t)rx->rx_other));
		json_object_set_new(t, "rx", o);

		o = json_object();
		json_object_set_new(o, "sent", json_integer((json_int_t)sent));
		json_object_set_new(o, "received", json_integer((json_int_t)c->received));
		json_object_set_new(o, "lost", json_integer((json_int_t)c->lost));
		json_object_set_new(o, "loss_pct",
			json_real(sent ? 100.0 * (double)c->lost / (double)sent : 0.0));
		json_object_set_new(o, "reordered", json_integer((json_int_t)c->reordered));
		json_object_set_new(o, "duplicates", json_integer((json_int_t)c->duplicates));
		json_object_set_new(o, "late", json_integer((json_int_t)c->late));
		json_object_set_new(
			o, "max_reorder_distance", json_integer((json_int_t)c->max_reorder));
		json_object_set_new(t, "seq", o);

		o = gen_report_latency_json(r->total, r->hz);
		if (json_is_object(o))
			json_object_set_new(o, "jitter",
				rx->jitter_n
					? json_real(ns(r, rx->jitter_sum) / (double)rx->jitter_n)
					: json_null());
		json_object_set_new(t, "latency_ns", o);

		printf("dpgen: total rx %" PRIu64 " packets, %.3f Mpps, %.3f Gbps frame, %.3f Gbps "
		       "wire; %" PRIu64 " stamped, %" PRIu64 " foreign, %" PRIu64 " unstamped\n",
			rx->rx_pkts, x.pps / 1e6, x.gbps_frame, x.gbps_wire, rx->rx_stamped,
			rx->rx_foreign, rx->rx_other);
		printf("dpgen: sequence: sent %" PRIu64 " received %" PRIu64 " lost %" PRIu64
		       " (%.4f%%) reordered %" PRIu64 " duplicates %" PRIu64 " late %" PRIu64 "\n",
			sent, c->received, c->lost,
			sent ? 100.0 * (double)c->lost / (double)sent : 0.0, c->reordered,
			c->duplicates, c->late);
		if (r->total->count != 0)
			printf("dpgen: latency us: min %.2f p50 %.2f p90 %.2f p99 %.2f p99.9 %.2f "
			       "max %.2f mean %.2f jitter %.2f\n",
				ns(r, r->total->min) / 1e3,
				ns(r, dp_hist_percentile(r->total, 50000)) / 1e3,
				ns(r, dp_hist_percentile(r->total, 90000)) / 1e3,
				ns(r, dp_hist_percentile(r->total, 99000)) / 1e3,
				ns(r, dp_hist_percentile(r->total, 99900)) / 1e3,
				ns(r, r->total->max) / 1e3, dp_hist_mean(r->total) * 1e6 / r->hz,
				rx->jitter_n ? ns(r, rx->jitter_sum) / (double)rx->jitter_n / 1e3
					     : 0.0);
	}
	return t;
}

json_t *
gen_report_measured(
	struct gen_report *r, const struct gen_counters *tx, const struct gen_counters *rx)
{
	const struct gen_counters *last = tx != NULL ? tx : rx; /* whose clock ends the run */
	json_t *m, *o, *hist;
	uint64_t start = r->m_tsc, end;
	double secs;
	unsigned int i;

	if (!r->measuring || r->m_n == 0 || last == NULL)
		return json_null();
	m = json_object();
	if (m == NULL)
		return NULL;
	/* as the totals: rates over the time TX was sending, within the measured part */
	end = tx != NULL && tx->tx_end_tsc ? tx->tx_end_tsc : last->tsc;
	if (tx != NULL && tx->tx_start_tsc > start)
		start = tx->tx_start_tsc;
	secs = end > start ? (double)(end - start) / r->hz : 0.0;
	json_object_set_new(m, "from_s", json_real((double)(r->m_tsc - r->t0) / r->hz));
	json_object_set_new(m, "duration_s", json_real(secs));
	json_object_set_new(m, "samples", json_integer(r->m_n));
	if (tx != NULL) {
		const struct gen_counters *a = &r->m_tx;
		uint64_t pkts = tx->tx_pkts - a->tx_pkts;

		o = json_object();
		json_object_set_new(o, "pkts", json_integer((json_int_t)pkts));
		set_rates(o, NULL, rates(pkts, tx->tx_bytes - a->tx_bytes, secs));
		json_object_set_new(
			o, "stamped", json_integer((json_int_t)(tx->tx_stamped - a->tx_stamped)));
		json_object_set_new(
			o, "nombuf", json_integer((json_int_t)(tx->tx_nombuf - a->tx_nombuf)));
		json_object_set_new(
			o, "queue_full", json_integer((json_int_t)(tx->tx_full - a->tx_full)));
		json_object_set_new(
			o, "behind_s", json_real((double)(tx->tx_behind - a->tx_behind) / r->hz));
		json_object_set_new(m, "tx", o);
	}
	if (rx != NULL) {
		const struct gen_counters *a = &r->m_rx;
		const struct gen_seq_counts *c = &rx->seq, *p = &a->seq;
		uint64_t pkts = rx->rx_pkts - a->rx_pkts;
		uint64_t sent = tx != NULL ? tx->tx_stamped - r->m_tx.tx_stamped : 0;
		uint64_t jn = rx->jitter_n - a->jitter_n;

		o = json_object();
		json_object_set_new(o, "pkts", json_integer((json_int_t)pkts));
		set_rates(o, NULL, rates(pkts, rx->rx_bytes - a->rx_bytes, secs));
		json_object_set_new(
			o, "stamped", json_integer((json_int_t)(rx->rx_stamped - a->rx_stamped)));
		json_object_set_new(m, "rx", o);

		o = json_object();
		json_object_set_new(o, "sent", json_integer((json_int_t)sent));
		json_object_set_new(
			o, "received", json_integer((json_int_t)(c->received - p->received)));
		json_object_set_new(o, "lost", json_integer((json_int_t)(c->lost - p->lost)));
		json_object_set_new(o, "loss_pct",
			json_real(sent ? 100.0 * (double)(c->lost - p->lost) / (double)sent : 0.0));
		json_object_set_new(
			o, "reordered", json_integer((json_int_t)(c->reordered - p->reordered)));
		json_object_set_new(
			o, "duplicates", json_integer((json_int_t)(c->duplicates - p->duplicates)));
		json_object_set_new(o, "late", json_integer((json_int_t)(c->late - p->late)));
		json_object_set_new(m, "seq", o);

		o = gen_report_latency_json(r->measured, r->hz);
		if (json_is_object(o))
			json_object_set_new(o, "jitter",
				jn ? json_real(ns(r, rx->jitter_sum - a->jitter_sum) / (double)jn)
				   : json_null());
		json_object_set_new(m, "latency_ns", o);

		hist = json_array();
		for (i = 0; hist != NULL && i < r->measured->nb_buckets; i++)
			if (dp_hist_counts(r->measured)[i] != 0)
				json_array_append_new(hist,
					json_pack("[f, f, I]",
						ns(r, dp_hist_bucket_low(i, GEN_HIST_SUB_BITS)),
						ns(r, dp_hist_bucket_high(i, GEN_HIST_SUB_BITS)),
						(json_int_t)dp_hist_counts(r->measured)[i]));
		json_object_set_new(m, "latency_hist_ns", hist ? hist : json_null());
	}
	return m;
}

int
gen_report_write(json_t *root, const char *path)
{
	char tmp[4096];
	int rc;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	if (json_dump_file(root, tmp, JSON_INDENT(1) | JSON_REAL_PRECISION(10)) != 0)
		return -EIO;
	rc = rename(tmp, path);
	if (rc != 0) {
		rc = -errno;
		unlink(tmp);
	}
	return rc;
}
