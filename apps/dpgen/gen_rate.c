/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gen_rate.h"

#define RATE_MAX_BPS 10e12 /* 10 Tbps: far beyond any port, still exact in 64 bits */
#define RATE_MAX_PPS 1e12

static const struct {
	const char *unit;
	enum gen_rate_kind kind;
	double mult;
} rate_units[] = {
	{ "pps", GEN_RATE_PPS, 1 },
	{ "kpps", GEN_RATE_PPS, 1e3 },
	{ "mpps", GEN_RATE_PPS, 1e6 },
	{ "gpps", GEN_RATE_PPS, 1e9 },
	{ "bps", GEN_RATE_BPS, 1 },
	{ "kbps", GEN_RATE_BPS, 1e3 },
	{ "mbps", GEN_RATE_BPS, 1e6 },
	{ "gbps", GEN_RATE_BPS, 1e9 },
};

int
gen_rate_parse(const char *s, struct gen_rate_spec *out)
{
	const char *unit;
	char *end;
	double v;
	unsigned int i;

	if (s == NULL || out == NULL)
		return -EINVAL;
	if (strcasecmp(s, "max") == 0) {
		out->kind = GEN_RATE_MAX;
		out->value = 0;
		return 0;
	}
	/* strtod would accept "inf", "nan" and hex floats: insist on a plain decimal */
	if (!isdigit((unsigned char)s[0]) && s[0] != '.')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || !isfinite(v) || v <= 0)
		return -EINVAL;
	for (unit = s; unit < end; unit++)
		if (!isdigit((unsigned char)*unit) && strchr(".eE+-", *unit) == NULL)
			return -EINVAL; /* "0x10pps" is not 16 pps */
	unit = end;
	for (i = 0; i < sizeof(rate_units) / sizeof(rate_units[0]); i++)
		if (strcasecmp(unit, rate_units[i].unit) == 0)
			break;
	if (i == sizeof(rate_units) / sizeof(rate_units[0]))
		return -EINVAL;
	v *= rate_units[i].mult;
	if (v < 1 || v > (rate_units[i].kind == GEN_RATE_BPS ? RATE_MAX_BPS : RATE_MAX_PPS))
		return -EINVAL;
	out->kind = rate_units[i].kind;
	out->value = v;
	return 0;
}

void
gen_rate_spec_str(const struct gen_rate_spec *s, char *buf, unsigned int len)
{
	switch (s->kind) {
	case GEN_RATE_PPS:
		snprintf(buf, len, "%.3f Mpps", s->value / 1e6);
		break;
	case GEN_RATE_BPS:
		snprintf(buf, len, "%.3f Gbps", s->value / 1e9);
		break;
	default:
		snprintf(buf, len, "max");
		break;
	}
}

int
gen_rate_init(struct gen_rate *r, uint64_t hz, uint64_t rate, uint64_t depth, uint64_t now)
{
	memset(r, 0, sizeof(*r));
	if (hz == 0 || depth == 0)
		return -EINVAL;
	r->hz = hz;
	r->rate = rate;
	r->last = now;
	if (rate == 0)
		return 0;
	if (depth > UINT64_MAX / hz)
		return -ERANGE;
	r->credit_max = depth * hz;
	/* refill adds at most max_elapsed * rate <= credit_max + rate to credit <= credit_max */
	r->max_elapsed = r->credit_max / rate + 1;
	if (r->credit_max > UINT64_MAX / 2 || rate > UINT64_MAX - 2 * r->credit_max)
		return -ERANGE;
	return 0;
}
