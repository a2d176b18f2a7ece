/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Typed key tables (dp_config.h): one "key = value" of a section read by the key's
 * type and range, the section's defaults, and the tables written as Markdown. Nothing
 * here knows a section: the tables are config.c's (the core sections) and the modules'.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "dp_common.h"
#include "dp_config.h"

static const char *
label(const struct dp_config_section *s)
{
	return s->label != NULL ? s->label : "";
}

/* Append @p str to the string in @p buf (@p len bytes in all), cut if it does not fit. */
static void
cat(char *buf, size_t len, const char *str)
{
	size_t n = strlen(buf);

	if (n + 1 < len)
		snprintf(buf + n, len - n, "%s", str);
}

/* "a, b, c" of a NULL-terminated list into @p buf. */
static const char *
names_join(const char *const *names, char *buf, size_t len)
{
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; names[i] != NULL; i++) {
		if (i > 0)
			cat(buf, len, ", ");
		cat(buf, len, names[i]);
	}
	return buf;
}

static int
names_index(const char *const *names, const char *v)
{
	int i;

	for (i = 0; names[i] != NULL; i++)
		if (strcmp(names[i], v) == 0)
			return i;
	return -1;
}

static int
parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = { "on", "yes", "true", "1" };
	static const char *const no[] = { "off", "no", "false", "0" };
	unsigned int i;

	for (i = 0; i < DP_ARRAY_SIZE(yes); i++) {
		if (strcasecmp(v, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(v, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

/* Written as a number (decimal or 0x hex), whatever its size; "" counts as one out of range. */
static bool
looks_like_number(const char *v)
{
	if (v[0] == '0' && (v[1] == 'x' || v[1] == 'X'))
		return v[2] != '\0' && strspn(v + 2, "0123456789abcdefABCDEF") == strlen(v + 2);
	return strspn(v, "0123456789") == strlen(v);
}

static void
uint_store(void *field, size_t size, uint64_t u)
{
	switch (size) {
	case 1:
		*(uint8_t *)field = (uint8_t)u;
		break;
	case 2:
		*(uint16_t *)field = (uint16_t)u;
		break;
	case 4:
		*(uint32_t *)field = (uint32_t)u;
		break;
	default:
		*(uint64_t *)field = u;
		break;
	}
}

/* "1..64", or "auto or 1024..67108864" for a key with a word for 0. */
static const char *
uint_range(const struct dp_config_key *k, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%" PRIu64 "..%" PRIu64, k->zero != NULL ? k->zero : "",
		k->zero != NULL ? " or " : "", k->min, k->max);
	return buf;
}

static int
uint_parse(const struct dp_config_section *s, const struct dp_config_key *k, void *field,
	const char *v, const struct dp_config_at *at, char *err, size_t errlen)
{
	char range[64];
	uint64_t u;

	if (k->zero != NULL && strcmp(v, k->zero) == 0) {
		u = 0;
	} else if (dp_config_parse_uint(v, k->min, k->max, &u) < 0) {
		/* the doc says what the number counts, and in which unit */
		return dp_config_error(err, errlen, at->loc, "%s%s '%s' %s %s (%s)", label(s),
			k->name, v,
			looks_like_number(v) ? "must be" : "is not a number: it must be",
			uint_range(k, range, sizeof(range)), k->doc != NULL ? k->doc : "");
	}
	uint_store(field, k->size, u);
	return 0;
}

static int
unknown_value(const struct dp_config_section *s, const struct dp_config_key *k, const char *v,
	const struct dp_config_at *at, char *err, size_t errlen)
{
	char names[256];

	return dp_config_error(err, errlen, at->loc, "%s%s '%s' unknown (expected %s)", label(s),
		k->name, v, names_join(k->names, names, sizeof(names)));
}

static int
too_long(const struct dp_config_section *s, const struct dp_config_key *k,
	const struct dp_config_at *at, char *err, size_t errlen)
{
	return dp_config_error(err, errlen, at->loc, "%s%s too long (at most %zu bytes)", label(s),
		k->name, k->size - 1);
}

/* Parse @p v by @p k's type into its field of @p base. */
static int
key_parse(const struct dp_config_section *s, const struct dp_config_key *k, void *base,
	const char *v, const struct dp_config_at *at, char *err, size_t errlen)
{
	char *field = (char *)base + k->off;
	int i;

	switch (k->type) {
	case DP_CONFIG_BOOL:
		if (parse_bool(v, (bool *)field) < 0)
			return dp_config_error(err, errlen, at->loc, "%s%s '%s' must be on or off",
				label(s), k->name, v);
		return 0;
	case DP_CONFIG_UINT:
		return uint_parse(s, k, field, v, at, err, errlen);
	case DP_CONFIG_ENUM:
		i = names_index(k->names, v);
		if (i < 0)
			return unknown_value(s, k, v, at, err, errlen);
		uint_store(field, k->size, (uint64_t)i);
		return 0;
	case DP_CONFIG_STRING:
		if (k->names != NULL && names_index(k->names, v) < 0)
			return unknown_value(s, k, v, at, err, errlen);
		if (dp_strlcpy(field, v, k->size) < 0)
			return too_long(s, k, at, err, errlen);
		return 0;
	case DP_CONFIG_PATH:
		if (v[0] == '/' || at->dir == NULL || at->dir[0] == '\0')
			i = dp_strlcpy(field, v, k->size);
		else
			i = snprintf(field, k->size, "%s/%s", at->dir, v) >= (int)k->size ? -1 : 0;
		if (i < 0)
			return too_long(s, k, at, err, errlen);
		return 0;
	case DP_CONFIG_CUSTOM:
		return k->parse(base, k, v, at, err, errlen);
	}
	return dp_config_error(
		err, errlen, at->loc, "%s: key of unknown type %d", k->name, k->type);
}

const struct dp_config_key *
dp_config_key_find(const struct dp_config_section *s, const char *name)
{
	unsigned int i;

	for (i = 0; i < s->nb_keys; i++)
		if (strcmp(s->keys[i].name, name) == 0)
			return &s->keys[i];
	return NULL;
}

int
dp_config_key_apply(const struct dp_config_section *s, void *base, const char *key,
	const char *value, const struct dp_config_at *at, char *err, size_t errlen)
{
	const struct dp_config_key *k = dp_config_key_find(s, key);
	char keys[DP_CONFIG_ERR_LEN] = "";
	unsigned int i;
	int rc;

	if (k == NULL) {
		for (i = 0; i < s->nb_keys; i++) {
			if (i > 0)
				cat(keys, sizeof(keys), ", ");
			cat(keys, sizeof(keys), s->keys[i].name);
		}
		return dp_config_error(err, errlen, at->loc,
			"unknown key '%s' in [%s] (expected %s)", key, at->section, keys);
	}
	rc = key_parse(s, k, base, value, at, err, errlen);
	if (rc < 0)
		return rc;
	if (k->given != 0)
		*(bool *)((char *)base + k->given - 1) = true;
	if (k->given_at != 0)
		*(struct dp_config_loc *)((char *)base + k->given_at - 1) = *at->loc;
	return 0;
}

int
dp_config_section_defaults(const struct dp_config_section *s, void *base,
	const struct dp_config_at *at, char *err, size_t errlen)
{
	unsigned int i;
	int rc;

	for (i = 0; i < s->nb_keys; i++) {
		if (s->keys[i].def == NULL)
			continue;
		rc = key_parse(s, &s->keys[i], base, s->keys[i].def, at, err, errlen);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- the reference in Markdown ---- */

/* @p text in a table cell: a "|" would end the cell. */
static void
md_cell(FILE *f, const char *text)
{
	for (; *text != '\0'; text++) {
		if (*text == '|')
			fputc('\\', f);
		fputc(*text, f);
	}
}

/* "`a`, `b`" */
static void
md_names(FILE *f, const char *const *names)
{
	unsigned int i;

	for (i = 0; names[i] != NULL; i++)
		fprintf(f, "%s`%s`", i > 0 ? ", " : "", names[i]);
}

static void
md_type(FILE *f, const struct dp_config_key *k)
{
	static const char *const types[] = {
		[DP_CONFIG_BOOL] = "bool",
		[DP_CONFIG_UINT] = "integer",
		[DP_CONFIG_STRING] = "string",
		[DP_CONFIG_PATH] = "path",
		[DP_CONFIG_ENUM] = "enum",
		[DP_CONFIG_CUSTOM] = "text",
	};

	if (k->type == DP_CONFIG_STRING && k->names != NULL)
		fputs("enum", f); /* a string from a list reads as one */
	else if ((unsigned int)k->type < DP_ARRAY_SIZE(types))
		fputs(types[k->type], f);
}

static void
md_range(FILE *f, const struct dp_config_key *k)
{
	switch (k->type) {
	case DP_CONFIG_BOOL:
		fputs("`on`, `off`", f);
		break;
	case DP_CONFIG_UINT:
		if (k->zero != NULL)
			fprintf(f, "`%s`, ", k->zero);
		fprintf(f, "%" PRIu64 "..%" PRIu64, k->min, k->max);
		break;
	case DP_CONFIG_ENUM:
		md_names(f, k->names);
		break;
	case DP_CONFIG_STRING:
		if (k->names != NULL) {
			md_names(f, k->names);
			break;
		}
		/* fall through */
	case DP_CONFIG_PATH:
		fprintf(f, "up to %zu bytes", k->size - 1);
		break;
	case DP_CONFIG_CUSTOM:
		md_cell(f, k->syntax != NULL ? k->syntax : "");
		break;
	}
}

void
dp_config_section_print(FILE *f, const struct dp_config_section *s)
{
	unsigned int i;

	if (s->count > 0)
		fprintf(f, "## [%s0] .. [%s%u]\n\n", s->name, s->name, s->count - 1);
	else
		fprintf(f, "## [%s]\n\n", s->name);
	if (s->doc != NULL)
		fprintf(f, "%s\n\n", s->doc);
	fputs("| key | type | range | default | description |\n", f);
	fputs("|---|---|---|---|---|\n", f);
	for (i = 0; i < s->nb_keys; i++) {
		const struct dp_config_key *k = &s->keys[i];

		fprintf(f, "| `%s`%s | ", k->name,
			k->flags & DP_CONFIG_KEY_REPEAT ? " (repeatable)" : "");
		md_type(f, k);
		fputs(" | ", f);
		md_range(f, k);
		fputs(" | ", f);
		if (k->def != NULL)
			fprintf(f, "`%s`", k->def);
		else if (k->unset != NULL)
			md_cell(f, k->unset);
		fputs(" | ", f);
		md_cell(f, k->doc != NULL ? k->doc : "");
		fputs(" |\n", f);
	}
}
