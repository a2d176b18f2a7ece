/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Typed key tables (dp_config.h): the generic apply on a section made up here
 * (any struct, every type, its messages word for word), the defaults, the
 * tables dpfwd reads (well formed, every default a value of its key), and
 * docs/config-reference.md, which must be what the tables print.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_build_config.h"
#include "dp_common.h"
#include "dp_config.h"
#include "dp_endpoint.h"
#include "dp_relay.h"
#include "dp_test.h"

/* ---- a section of this test's own: the table API is not dpfwd's alone ---- */

struct widget {
	bool on;
	uint16_t n;
	bool n_given;
	struct dp_config_loc n_at;
	uint32_t big;
	unsigned int pick;
	char name[8];
	char kind[8];
	char path[32];
	unsigned int odd_calls;
	char odd_section[16];
};

static int
odd_parse(void *base, const struct dp_config_key *k, const char *v, const struct dp_config_at *at,
	char *err, size_t errlen)
{
	struct widget *w = base;

	if (strcmp(v, "odd") != 0)
		return dp_config_error(err, errlen, at->loc, "%s '%s' is not odd", k->name, v);
	w->odd_calls++;
	dp_strlcpy(w->odd_section, at->section, sizeof(w->odd_section));
	return 0;
}

static const char *const pick_names[] = { "a", "b", "c", NULL };
static const char *const kind_names[] = { "x", "y", NULL };

#define W(member) DP_CONFIG_FIELD(struct widget, member)

static const struct dp_config_key widget_keys[] = {
	{ .name = "on", .type = DP_CONFIG_BOOL, W(on), .def = "yes", .doc = "on or not" },
	{ .name = "n",
		.type = DP_CONFIG_UINT,
		W(n),
		.min = 1,
		.max = 64,
		.given = DP_CONFIG_OPT_FIELD(struct widget, n_given),
		.given_at = DP_CONFIG_OPT_FIELD(struct widget, n_at),
		.def = "32",
		.doc = "things at once" },
	{ .name = "big",
		.type = DP_CONFIG_UINT,
		W(big),
		.zero = "auto",
		.min = 1024,
		.max = 1u << 26,
		.def = "auto",
		.doc = "many things; auto = guessed" },
	{ .name = "pick", .type = DP_CONFIG_ENUM, W(pick), .names = pick_names, .doc = "one" },
	{ .name = "name", .type = DP_CONFIG_STRING, W(name), .doc = "a name" },
	{ .name = "kind", .type = DP_CONFIG_STRING, W(kind), .names = kind_names, .doc = "kind" },
	{ .name = "path", .type = DP_CONFIG_PATH, W(path), .doc = "a file" },
	{ .name = "odd",
		.type = DP_CONFIG_CUSTOM,
		.parse = odd_parse,
		.syntax = "odd",
		.flags = DP_CONFIG_KEY_REPEAT,
		.doc = "odd" },
};

static const struct dp_config_section widget_section = {
	.name = "widget",
	.count = 4,
	.label = "widget ",
	.doc = "A section of the test.",
	.keys = widget_keys,
	.nb_keys = DP_ARRAY_SIZE(widget_keys),
};

static const struct dp_config_loc loc7 = { .file = "w.ini", .line = 7 };
static const struct dp_config_at at7 = { .section = "widget2", .loc = &loc7, .dir = "/etc/dp" };

/* Apply @p key = @p value to @p w: @return the rc; the message in @p err. */
static int
set(struct widget *w, const char *key, const char *value, char *err, size_t errlen)
{
	err[0] = '\0';
	return dp_config_key_apply(&widget_section, w, key, value, &at7, err, errlen);
}

static void
test_config_keys_values_are_stored_by_type(void)
{
	struct widget w;
	char err[DP_CONFIG_ERR_LEN];

	memset(&w, 0, sizeof(w));
	CU_ASSERT_EQUAL(set(&w, "on", "Yes", err, sizeof(err)), 0);
	CU_ASSERT(w.on);
	CU_ASSERT_EQUAL(set(&w, "on", "0", err, sizeof(err)), 0);
	CU_ASSERT(!w.on);
	CU_ASSERT_EQUAL(set(&w, "n", "0x10", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(w.n, 16);
	CU_ASSERT_EQUAL(set(&w, "n", "010", err, sizeof(err)), 0); /* decimal, not octal */
	CU_ASSERT_EQUAL(w.n, 10);
	CU_ASSERT_EQUAL(set(&w, "big", "auto", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(w.big, 0);
	CU_ASSERT_EQUAL(set(&w, "big", "67108864", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(w.big, 1u << 26);
	CU_ASSERT_EQUAL(set(&w, "pick", "c", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(w.pick, 2);
	CU_ASSERT_EQUAL(set(&w, "name", "1234567", err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(w.name, "1234567");
	CU_ASSERT_EQUAL(set(&w, "kind", "y", err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(w.kind, "y");
	/* relative paths start at the config's folder, absolute ones stay */
	CU_ASSERT_EQUAL(set(&w, "path", "sub/f.txt", err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(w.path, "/etc/dp/sub/f.txt");
	CU_ASSERT_EQUAL(set(&w, "path", "/abs/f.txt", err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(w.path, "/abs/f.txt");
	CU_ASSERT_EQUAL(set(&w, "odd", "odd", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(set(&w, "odd", "odd", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(w.odd_calls, 2);
	CU_ASSERT_STRING_EQUAL(w.odd_section, "widget2");
}

/* A value a key does not take: the message says what it takes, after file:line. */
static void
test_config_keys_bad_values_say_what_the_key_takes(void)
{
	static const struct {
		const char *key, *value, *msg;
	} cases[] = {
		{ "n", "65", "w.ini:7: widget n '65' must be 1..64 (things at once)" },
		{ "n", "0", "w.ini:7: widget n '0' must be 1..64 (things at once)" },
		{ "n", "", "w.ini:7: widget n '' must be 1..64 (things at once)" },
		{ "n", "1O",
			"w.ini:7: widget n '1O' is not a number: it must be 1..64 (things at once)" },
		{ "n", "-1",
			"w.ini:7: widget n '-1' is not a number: it must be 1..64 (things at once)" },
		{ "n", " 1",
			"w.ini:7: widget n ' 1' is not a number: it must be 1..64 (things at once)" },
		{ "n", "0x",
			"w.ini:7: widget n '0x' is not a number: it must be 1..64 (things at once)" },
		{ "big", "18446744073709551617",
			"w.ini:7: widget big '18446744073709551617' must be auto or 1024..67108864 "
			"(many things; auto = guessed)" },
		{ "big", "0",
			"w.ini:7: widget big '0' must be auto or 1024..67108864 (many things; auto = "
			"guessed)" },
		{ "on", "maybe", "w.ini:7: widget on 'maybe' must be on or off" },
		{ "pick", "d", "w.ini:7: widget pick 'd' unknown (expected a, b, c)" },
		{ "kind", "z", "w.ini:7: widget kind 'z' unknown (expected x, y)" },
		{ "name", "12345678", "w.ini:7: widget name too long (at most 7 bytes)" },
		{ "path", "a-path-longer-than-thirty-one-bytes",
			"w.ini:7: widget path too long (at most 31 bytes)" },
		{ "odd", "even", "w.ini:7: odd 'even' is not odd" },
		{ "colour", "red",
			"w.ini:7: unknown key 'colour' in [widget2] (expected on, n, big, pick, name, "
			"kind, path, odd)" },
	};
	unsigned int i;

	for (i = 0; i < DP_ARRAY_SIZE(cases); i++) {
		struct widget w;
		char err[DP_CONFIG_ERR_LEN];
		int rc;

		memset(&w, 0, sizeof(w));
		rc = set(&w, cases[i].key, cases[i].value, err, sizeof(err));
		EXPECT(rc == -EINVAL, "%s = '%s': rc %d", cases[i].key, cases[i].value, rc);
		EXPECT(strcmp(err, cases[i].msg) == 0, "%s = '%s':\n  got  '%s'\n  want '%s'",
			cases[i].key, cases[i].value, err, cases[i].msg);
		CU_ASSERT(!w.n_given);
	}
}

/* given / given_at: set by a value from a file or --set, never by the default. */
static void
test_config_keys_given_is_not_set_by_default(void)
{
	struct widget w;
	char err[DP_CONFIG_ERR_LEN];

	memset(&w, 0, sizeof(w));
	CU_ASSERT_EQUAL(dp_config_section_defaults(&widget_section, &w, &at7, err, sizeof(err)), 0);
	CU_ASSERT(w.on);
	CU_ASSERT_EQUAL(w.n, 32);
	CU_ASSERT_EQUAL(w.big, 0);
	CU_ASSERT(!w.n_given);
	CU_ASSERT_PTR_NULL(w.n_at.file);
	CU_ASSERT_EQUAL(set(&w, "n", "32", err, sizeof(err)), 0);
	CU_ASSERT(w.n_given);
	CU_ASSERT_PTR_EQUAL(w.n_at.file, loc7.file);
	CU_ASSERT_EQUAL(w.n_at.line, 7);
}

/* ---- dpfwd's own tables ---- */

static bool
uint_fits(uint64_t v, size_t size)
{
	return size >= 8 || v <= (UINT64_MAX >> (64 - 8 * size));
}

/* What each type needs; every key documented; every default a value of its key. */
static void
test_config_keys_dpfwd_tables_are_well_formed(void)
{
	const struct dp_config_section *s;
	unsigned int i, j, k;

	for (i = 0; (s = dp_config_section_at(i)) != NULL; i++) {
		struct dp_config cfg;
		char err[DP_CONFIG_ERR_LEN] = "";
		const struct dp_config_loc loc = { .file = "defaults", .line = 0 };
		const struct dp_config_at at = { .section = s->name, .loc = &loc, .dir = "" };

		EXPECT(s->doc != NULL && s->nb_keys > 0, "[%s]: no doc or no keys", s->name);
		for (j = 0; j < i; j++)
			EXPECT(strcmp(dp_config_section_at(j)->name, s->name) != 0, "[%s] twice",
				s->name);
		for (j = 0; j < s->nb_keys; j++) {
			const struct dp_config_key *key = &s->keys[j];
			const char *n = key->name;

			EXPECT(key->doc != NULL && key->doc[0] != '\0', "[%s] %s: no doc", s->name,
				n);
			EXPECT(!(key->def != NULL && key->unset != NULL),
				"[%s] %s: a default and an unset text", s->name, n);
			EXPECT(key->def != NULL || key->unset != NULL ||
					(key->flags & DP_CONFIG_KEY_REPEAT),
				"[%s] %s: the reference would have no default", s->name, n);
			EXPECT(dp_config_key_find(s, n) == key, "[%s] %s twice", s->name, n);
			switch (key->type) {
			case DP_CONFIG_BOOL:
				EXPECT(key->size == sizeof(bool), "[%s] %s: not a bool", s->name,
					n);
				break;
			case DP_CONFIG_UINT:
				EXPECT(key->size == 1 || key->size == 2 || key->size == 4 ||
						key->size == 8,
					"[%s] %s: size %zu", s->name, n, key->size);
				EXPECT(key->min <= key->max && uint_fits(key->max, key->size),
					"[%s] %s: range %" PRIu64 "..%" PRIu64 " in %zu bytes",
					s->name, n, key->min, key->max, key->size);
				break;
			case DP_CONFIG_ENUM:
				for (k = 0; key->names != NULL && key->names[k] != NULL; k++)
					;
				EXPECT(k > 0 && uint_fits(k - 1, key->size) &&
						(key->size == 1 || key->size == 2 ||
							key->size == 4 || key->size == 8),
					"[%s] %s: %u names in %zu bytes", s->name, n, k, key->size);
				break;
			case DP_CONFIG_STRING:
			case DP_CONFIG_PATH:
				EXPECT(key->size >= 2, "[%s] %s: size %zu", s->name, n, key->size);
				break;
			case DP_CONFIG_CUSTOM:
				EXPECT(key->parse != NULL && key->syntax != NULL,
					"[%s] %s: custom without parse or syntax", s->name, n);
				break;
			}
		}
		/* the defaults parse, into a config of dp_config_init() */
		dp_config_init(&cfg);
		EXPECT(dp_config_section_defaults(
			       s, (char *)&cfg + s->off, &at, err, sizeof(err)) == 0,
			"[%s]: a default is not a value of its key: %s", s->name, err);
		dp_config_free(&cfg);
	}
	CU_ASSERT(i >= 8);
}

/* dp_config_init() is the tables' defaults (a numbered section's apply when it appears). */
static void
test_config_keys_defaults_are_the_tables(void)
{
	struct dp_config cfg;
	char err[DP_CONFIG_ERR_LEN] = "";
	const char *set[] = { "relay0.listen=198.18.0.1:5000", "port0.dev=net_null0" };
	unsigned int i;

	dp_config_init(&cfg);
	CU_ASSERT_EQUAL(cfg.burst, 32);
	CU_ASSERT_EQUAL(cfg.pool_size, 0);
	CU_ASSERT_STRING_EQUAL(cfg.pool_ops, "ring_mp_mc");
	CU_ASSERT_EQUAL(dp_endpoint_config(&cfg)->mode, 0660);
	CU_ASSERT(!dp_endpoint_config(&cfg)->enabled);
	CU_ASSERT(!cfg.metrics);
	CU_ASSERT_EQUAL(dp_relay_config(&cfg, 0)->timeout_s, 0); /* not there yet */
	for (i = 0; i < DP_ARRAY_SIZE(set); i++)
		EXPECT(dp_config_set(&cfg, set[i], err, sizeof(err)) == 0, "%s: %s", set[i], err);
	CU_ASSERT_EQUAL(dp_relay_config(&cfg, 0)->timeout_s, DP_RELAY_TIMEOUT);
	CU_ASSERT(!dp_relay_config(&cfg, 0)->timeout_set);
	CU_ASSERT_EQUAL(dp_relay_config(&cfg, 0)->port_lo, 20000);
	CU_ASSERT_EQUAL(dp_relay_config(&cfg, 0)->port_hi, 29999);
	CU_ASSERT_STRING_EQUAL(
		dp_relay_config(&cfg, 0)->ports_loc.file, "--set"); /* the first key's */
	CU_ASSERT_EQUAL(dp_relay_config(&cfg, 1)->port_lo, 0);
	CU_ASSERT(cfg.ports[0].defined && !cfg.ports[0].promisc);
	dp_config_free(&cfg);
}

/* ---- docs/config-reference.md ---- */

/* The tables are the reference: a key added, changed or documented anew shows there. */
static void
test_config_keys_reference_doc_is_current(void)
{
	const char *src = getenv("DPFWD_SRC") != NULL ? getenv("DPFWD_SRC") : DP_SOURCE_DIR;
	char path[PATH_MAX];
	char *want = NULL, *have;
	size_t want_len = 0, have_len = 0, i, line = 1;
	FILE *f;

	f = open_memstream(&want, &want_len);
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(dp_config_reference_print(f), 0);
	CU_ASSERT_FATAL(fclose(f) == 0);
	snprintf(path, sizeof(path), "%s/docs/config-reference.md", src);
	have = dp_test_read_file(path);
	have_len = have != NULL ? strlen(have) : 0;
	EXPECT(have != NULL, "cannot read %s", path);
	if (have != NULL) {
		for (i = 0; i < want_len && i < have_len && want[i] == have[i]; i++)
			line += want[i] == '\n';
		EXPECT(want_len == have_len && i == want_len,
			"%s differs from the key tables at line %zu: make it again with "
			"`build/apps/dpfwd/dpfwd --config-reference > docs/config-reference.md`",
			path, line);
	}
	/* and every key is in it */
	for (i = 0; dp_config_section_at(i) != NULL; i++) {
		const struct dp_config_section *s = dp_config_section_at(i);
		unsigned int j;

		for (j = 0; j < s->nb_keys; j++) {
			char cell[64];

			snprintf(cell, sizeof(cell), "| `%s`", s->keys[j].name);
			EXPECT(strstr(want, cell) != NULL, "[%s] %s not in the reference", s->name,
				s->keys[j].name);
		}
	}
	free(have);
	free(want);
}

static const struct dp_test tests[] = {
	{ "test_config_keys_values_are_stored_by_type",
		test_config_keys_values_are_stored_by_type },
	{ "test_config_keys_bad_values_say_what_the_key_takes",
		test_config_keys_bad_values_say_what_the_key_takes },
	{ "test_config_keys_given_is_not_set_by_default",
		test_config_keys_given_is_not_set_by_default },
	{ "test_config_keys_dpfwd_tables_are_well_formed",
		test_config_keys_dpfwd_tables_are_well_formed },
	{ "test_config_keys_defaults_are_the_tables", test_config_keys_defaults_are_the_tables },
	{ "test_config_keys_reference_doc_is_current", test_config_keys_reference_doc_is_current },
	{ NULL, NULL },
};

int
main(void)
{
	return dp_test_run("config_keys", tests, NULL, NULL);
}
