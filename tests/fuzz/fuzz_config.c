/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target over the config loader: dp_config_load() (our line scan,
 * then rte_cfgfile, then every key's parser), dp_config_set() and
 * dp_config_validate(). No EAL: the loader needs none.
 *
 * Each input is one config file. If its last line (after the last newline)
 * starts with "--set ", the rest of that line is not part of the file but an
 * override, applied with dp_config_set() after a good load as dpfwd's --set
 * is. The file is written into a private folder (made once, rewritten for each
 * input), next to a small valid route file, routes.txt, that "[routes] file =
 * routes.txt" can name.
 *
 * Checked:
 *   - dp_config_ini_parse() alone, against a model of rte_cfgfile's reading
 *     written here (a "#" not after a "\" cuts the line, "\#" in a value is
 *     "#", spaces trimmed, lines of 322 bytes at most): when it accepts the
 *     file, it hands over each section and "key = value" of the file once, in
 *     order, whole (nothing cut short) and with the line it is on; when the
 *     model says rte_cfgfile fails, it refuses the file itself, naming a line;
 *   - every call returns 0 or -EINVAL;
 *   - a refusal leaves a message, terminated inside the buffer, that says
 *     where: a refused load "<file>:<line>: " with a line of the file, a
 *     refused override "--set: ", a refused config the name of a file it read
 *     or "--set";
 *   - a config that validates keeps what dp_config.h promises (ports defined
 *     with a dev, the lcore map, routes and their ports, relay ranges);
 *   - nothing leaks (LeakSanitizer) once dp_config_free() ran.
 *
 * "[routes] file =" opens whatever path it is given, and a FIFO or a terminal
 * (/dev/stdin, /dev/tty, /proc/kmsg, a FIFO under /run) would block the
 * fuzzer: inputs that name a route file and reach outside the private folder
 * through those trees or through ".." are skipped. (A ${VAR} of the
 * environment that names such a path would get through: none of dpfwd's does.)
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

#include <rte_cfgfile.h>

#include "dp_common.h"
#include "dp_config.h"
#include "dp_fwd_config.h"
#include "dp_relay.h"
#include "fuzz_tmpdir.h"

#define SET_MARK "--set "
/* what the buffers hold before a call: a message must overwrite and end it */
#define ERR_FILL 0x5a

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *path;
static const char *routes_path;

/* A route file next to the config: IPv4, l3fwd's format, IPv6, all on port 0. */
static const char routes_txt[] = "# for 'file = routes.txt'\n"
				 "198.18.10.0/24 via 198.18.0.2 port 0\n"
				 "R198.18.11.0/24 0\n"
				 "2001:db8:10::/48 port 0\n";

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	FILE *f;

	(void)argc;
	(void)argv;
	fuzz_tmp_make("fuzz_config", "config");
	path = fuzz_tmp_input("dpfwd.ini");
	routes_path = fuzz_tmp_file("routes.txt");
	f = fopen(routes_path, "w");
	if (f == NULL || fputs(routes_txt, f) < 0 || fclose(f) != 0)
		fuzz_die("%s: cannot write it", routes_path);
	return 0;
}

/* Could this input make the loader open something that blocks? (See the top.) */
static bool
may_block(const uint8_t *data, size_t size)
{
	static const char *const outside[] = { "..", "/dev", "/proc", "/sys", "/run", "/var" };
	unsigned int i;

	if (memmem(data, size, "file", 4) == NULL)
		return false;
	for (i = 0; i < DP_ARRAY_SIZE(outside); i++)
		if (memmem(data, size, outside[i], strlen(outside[i])) != NULL)
			return true;
	return false;
}

/* After a refusal: a message, ended inside the buffer, that is not what was there. */
static const char *
check_msg(const char *err, size_t len, const char *what)
{
	if (memchr(err, '\0', len) == NULL)
		fuzz_die("%s: message not terminated", what);
	if (err[0] == '\0' || (uint8_t)err[0] == ERR_FILL)
		fuzz_die("%s: refused without a message", what);
	return err;
}

/* Does @p err start with "<file>:"? @return the rest after the colon, or NULL. */
static const char *
after_file(const char *err, const char *file)
{
	size_t n = strlen(file);

	return strncmp(err, file, n) == 0 && err[n] == ':' ? err + n + 1 : NULL;
}

/* A refused config names a file it read ("<file>:") or an override ("--set:"). */
static void
check_validate_msg(const struct dp_config *cfg, const char *err)
{
	unsigned int i;

	if (after_file(err, "--set") != NULL)
		return;
	for (i = 0; i < cfg->nb_files; i++)
		if (after_file(err, cfg->files[i]) != NULL)
			return;
	fuzz_die("validate: error '%s' names no file that was read", err);
}

static void
check_prefix(uint32_t prefix, uint8_t plen, const char *what)
{
	if (plen > 32 || (plen < 32 && (prefix & (UINT32_MAX >> plen)) != 0))
		fuzz_die("%s: route %08x/%u kept", what, prefix, plen);
}

static void
check_prefix6(const uint8_t prefix[16], uint8_t plen, const char *what)
{
	unsigned int i;

	if (plen > 128)
		fuzz_die("%s: route /%u kept", what, plen);
	for (i = 0; i < 16; i++) {
		unsigned int bits = plen >= 8 * (i + 1) ? 8 : plen > 8 * i ? plen - 8 * i : 0;

		if ((prefix[i] & (uint8_t) ~(0xff00 >> bits)) != 0)
			fuzz_die("%s: route /%u with host bits kept", what, plen);
	}
}

/* What dp_config.h and the modules' config headers promise of a config that validated. */
static void
check_valid(const struct dp_config *cfg)
{
	const struct dp_fwd_routes_config *rt = dp_fwd_routes_config(cfg);
	const struct dp_fwd_neighbors_config *nc = dp_fwd_neighbors_config(cfg);
	unsigned int i;

	if (cfg->nb_ports == 0 || cfg->nb_ports > DP_CONFIG_MAX_PORTS)
		fuzz_die("valid: %u ports", cfg->nb_ports);
	for (i = 0; i < cfg->nb_ports; i++)
		if (!cfg->ports[i].defined || cfg->ports[i].dev[0] == '\0' ||
			memchr(cfg->ports[i].dev, '\0', sizeof(cfg->ports[i].dev)) == NULL)
			fuzz_die("valid: port %u undefined or without a dev", i);
	if (cfg->nb_rxmap == 0 || cfg->nb_rxmap > DP_CONFIG_MAX_RXMAP)
		fuzz_die("valid: %u lcore map entries", cfg->nb_rxmap);
	for (i = 0; i < cfg->nb_rxmap; i++)
		if (cfg->rxmap[i].port >= cfg->nb_ports ||
			cfg->rxmap[i].queue >= cfg->ports[cfg->rxmap[i].port].rx_queues ||
			cfg->rxmap[i].lcore == cfg->main_lcore)
			fuzz_die("valid: lcore map entry %u (%u,%u,%u)", i, cfg->rxmap[i].port,
				cfg->rxmap[i].queue, cfg->rxmap[i].lcore);
	if (cfg->burst == 0 || cfg->burst > DP_BURST_MAX)
		fuzz_die("valid: burst %u", cfg->burst);
	for (i = 0; i < rt->nb_routes4; i++) {
		if (rt->routes4[i].port >= cfg->nb_ports || rt->routes4[i].loc.file == NULL)
			fuzz_die("valid: route %u to port %u", i, rt->routes4[i].port);
		check_prefix(rt->routes4[i].prefix, rt->routes4[i].plen, "valid");
	}
	for (i = 0; i < rt->nb_routes6; i++) {
		if (rt->routes6[i].port >= cfg->nb_ports || rt->routes6[i].loc.file == NULL)
			fuzz_die("valid: IPv6 route %u to port %u", i, rt->routes6[i].port);
		check_prefix6(rt->routes6[i].prefix, rt->routes6[i].plen, "valid");
	}
	for (i = 0; i < nc->nb_neighs4; i++)
		if (nc->neighs4[i].port >= cfg->nb_ports)
			fuzz_die("valid: neighbor %u on port %u", i, nc->neighs4[i].port);
	for (i = 0; i < nc->nb_neighs6; i++)
		if (nc->neighs6[i].port >= cfg->nb_ports)
			fuzz_die("valid: IPv6 neighbor %u on port %u", i, nc->neighs6[i].port);
	for (i = 0; i < DP_RELAY_MAX; i++) {
		const struct dp_relay_config *r = dp_relay_config(cfg, i);

		if (!r->defined)
			continue;
		if (r->nb_backends == 0 || r->nb_backends > DP_RELAY_MAX_BACKENDS ||
			r->port_lo > r->port_hi || r->max_sessions == 0 ||
			r->max_sessions > (uint32_t)r->port_hi - r->port_lo + 1)
			fuzz_die("valid: relay %u: %u backends, ports %u-%u, %u sessions", i,
				r->nb_backends, r->port_lo, r->port_hi, r->max_sessions);
	}
}

/* One thing dp_config_ini_parse() hands over: a "key = value", or a section without keys. */
struct ini_item {
	const char *section;
	const char *key; /* NULL: a section without keys */
	const char *value;
	int line;
};

/* The model of the file: what rte_cfgfile reads in it, in file order. */
struct ini_model {
	char *text; /* the file, cut into lines in place */
	struct ini_item *items;
	unsigned int nb, next;
	bool fails; /* rte_cfgfile fails on the file (or our scan must) */
};

static char *
trim_c(char *s)
{
	char *e;

	while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || (e[-1] >= '\t' && e[-1] <= '\r')))
		*--e = '\0';
	return s;
}

/* rte_cfgfile's reading of one line (lib/cfgfile, DPDK 22.11): comment, section or entry. */
static void
model_line(struct ini_model *m, char *s, int line, const char **section)
{
	char *hash = strchr(s, '#');
	char *eq, *p;

	/* the first '#' only, and not after a backslash */
	if (hash != NULL && (hash == s || hash[-1] != '\\'))
		*hash = '\0';
	s = trim_c(s);
	if (*s == '[') {
		p = strchr(s, ']');
		if (p == NULL) {
			m->fails = true;
			return;
		}
		*p = '\0';
		*section = trim_c(s + 1);
		m->items[m->nb++] = (struct ini_item){ *section, NULL, NULL, line };
		return;
	}
	eq = strchr(s, '=');
	if (eq == NULL) {
		/* rte_cfgfile skips it; our scan must refuse it */
		if (*s != '\0')
			m->fails = true;
		return;
	}
	*eq = '\0';
	s = trim_c(s);
	eq = trim_c(eq + 1);
	/* "\\#" is "#" in a value */
	for (p = eq; (p = strchr(p, '\\')) != NULL;) {
		if (p[1] == '#')
			memmove(p, p + 1, strlen(p + 1) + 1);
		else
			p++;
	}
	if (*eq == '\0' || *section == NULL) {
		m->fails = true;
		return;
	}
	/* an entry: its section, just before it, has keys */
	if (m->nb > 0 && m->items[m->nb - 1].key == NULL)
		m->nb--;
	m->items[m->nb++] = (struct ini_item){ *section, s, eq, line };
}

/* @p data has no NUL byte. */
static void
model_build(struct ini_model *m, const uint8_t *data, size_t len, unsigned int lines)
{
	const char *section = NULL;
	char *s, *nl;
	int line = 0;

	memset(m, 0, sizeof(*m));
	m->text = malloc(len + 1);
	m->items = malloc((lines + 1) * sizeof(*m->items));
	if (m->text == NULL || m->items == NULL)
		fuzz_die("no memory");
	memcpy(m->text, data, len);
	m->text[len] = '\0';
	for (s = m->text; *s != '\0' && !m->fails; s = nl != NULL ? nl + 1 : s + strlen(s)) {
		nl = strchr(s, '\n');
		if (nl != NULL)
			*nl = '\0';
		line++;
		/* rte_cfgfile reads lines into CFG_NAME_LEN + CFG_VALUE_LEN + 4 bytes */
		if (strlen(s) > CFG_NAME_LEN + CFG_VALUE_LEN + 2)
			m->fails = true;
		else
			model_line(m, s, line, &section);
	}
}

static int
model_cb(void *arg, const char *section, const char *key, const char *value,
	const struct dp_config_loc *loc, char *err, size_t errlen)
{
	struct ini_model *m = arg;
	const struct ini_item *it = &m->items[m->next];

	(void)err;
	(void)errlen;
	if (m->fails || m->next == m->nb)
		fuzz_die("ini: [%s] %s = '%s' (line %d) is not in the file", section,
			key ? key : "", value ? value : "", loc->line);
	if (strcmp(section, it->section) != 0 || (key == NULL) != (it->key == NULL) ||
		(key != NULL && (strcmp(key, it->key) != 0 || strcmp(value, it->value) != 0)) ||
		loc->line != it->line || loc->file == NULL || strcmp(loc->file, path) != 0)
		fuzz_die("ini: [%s] %s = '%s' at %s:%d, the file has [%s] %s = '%s' at line %d",
			section, key ? key : "", value ? value : "",
			loc->file ? loc->file : "(null)", loc->line, it->section,
			it->key ? it->key : "", it->value ? it->value : "", it->line);
	m->next++;
	return 0;
}

/* dp_config_ini_parse() against the model. */
static void
check_ini(const uint8_t *data, size_t len, unsigned int lines)
{
	struct ini_model m;
	char err[DP_CONFIG_ERR_LEN];
	int rc;

	model_build(&m, data, len, lines);
	memset(err, ERR_FILL, sizeof(err));
	rc = dp_config_ini_parse(path, model_cb, &m, NULL, err, sizeof(err));
	if (rc != 0 && rc != -EINVAL)
		fuzz_die("ini: rc %d", rc);
	if (rc != 0)
		fuzz_check_file_line("ini", check_msg(err, sizeof(err), "ini"), path, lines);
	else if (m.fails)
		fuzz_die("ini: accepted a file that rte_cfgfile fails on");
	else if (m.next != m.nb)
		fuzz_die("ini: %u of the file's %u sections and keys handed over", m.next, m.nb);
	free(m.items);
	free(m.text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[DP_CONFIG_ERR_LEN];
	struct dp_config cfg;
	unsigned int lines;
	size_t file_len;
	char *set;
	int rc;

	if (may_block(data, size))
		return -1; /* not added to the corpus */
	set = fuzz_tmp_input_write(data, size, SET_MARK, &file_len, &lines);

	if (memchr(data, '\0', file_len) == NULL)
		check_ini(data, file_len, lines);

	dp_config_init(&cfg);
	memset(err, ERR_FILL, sizeof(err));
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	if (rc != 0 && rc != -EINVAL)
		fuzz_die("load: rc %d", rc);
	if (rc != 0)
		fuzz_check_file_line("load", check_msg(err, sizeof(err), "load"), path, lines);
	if (rc == 0 && set != NULL) {
		memset(err, ERR_FILL, sizeof(err));
		rc = dp_config_set(&cfg, set, err, sizeof(err));
		if (rc != 0 && rc != -EINVAL)
			fuzz_die("set '%s': rc %d", set, rc);
		if (rc != 0 && after_file(check_msg(err, sizeof(err), "set"), "--set") == NULL)
			fuzz_die("set '%s': error '%s' does not start with --set:", set, err);
	}
	if (rc == 0) {
		memset(err, ERR_FILL, sizeof(err));
		rc = dp_config_validate(&cfg, err, sizeof(err));
		if (rc != 0 && rc != -EINVAL)
			fuzz_die("validate: rc %d", rc);
		if (rc != 0)
			check_validate_msg(&cfg, check_msg(err, sizeof(err), "validate"));
		else
			check_valid(&cfg);
	}
	dp_config_free(&cfg);
	free(set);
	return 0;
}
