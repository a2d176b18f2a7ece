/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target over dpfwd's side of dpctl's commands: the /dpfwd/...
 * telemetry commands, sent over DPDK's telemetry socket as apps/dpctl/dpctl.py
 * sends them. dpctl itself is Python (argparse) and hands its words to dpfwd
 * as "<command>,<params>"; what parses them is here in C: route add, del,
 * list and reload (src/fwd/route.c), the graph of a worker
 * (src/graph/graph.c), and every section's reply as rte_telemetry data
 * (src/telemetry/telemetry.c). DPDK's own commands (/ethdev/..., /eal/...)
 * are DPDK's to fuzz and are not sent.
 *
 * The in-process rig of the unit tests (tests/ring_rig.h), brought up once
 * with two ports, routes, a static neighbor and small route tables; this
 * thread is its control lcore and walks no graph, so a command that needs the
 * control lcore (dp_ctl_call()) runs here while it waits for the answer.
 *
 * Input: lines, each one message on one connection (a line is cut at a NUL
 * byte; at most MAX_LINES lines, each under 1024 bytes as the server reads
 * them). A line is sent when its command (up to the first ',', after leading
 * commas, as rte_telemetry splits it) starts with "/dpfwd/". route/reload
 * opens the file its params name: there only "<digit>" is sent, made the path
 * of the private folder's file of that number (0 the rig's config, 1 the
 * same with other routes, 2 a bad route, 3 three ports, else absent).
 *
 * Checked, abort() otherwise:
 *   - every command gets an answer within WAIT_MS;
 *   - the answer to one of dpfwd's commands (as "/" lists them) is one JSON
 *     document {"<command>": value}, value not null; an action's value has
 *     "ok" (1 or 0: rte_telemetry has no booleans), and when 0 a non-empty
 *     "error";
 *   - a route add that succeeds is listed (route/list of its prefix), a
 *     route del that succeeds is not;
 *   - a route list shows "shown" lines of its "routes_in_prefix" (truncated
 *     when fewer), no line twice, each line a route that the route parsers
 *     read back to its prefix and port (kinds after "#": local, connected,
 *     adjacency, ecmp group; never an unknown next hop);
 *   - after an input that changed routes, the IPv4 and IPv6 tables are
 *     brought back to the rig's, line for line: by deleting and adding
 *     routes, else by a reload of the rig's config (from this thread), which
 *     must do it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <jansson.h>
#include <rte_eal.h>
#include <rte_log.h>

#include "dp_common.h"
#include "dp_config.h"
#include "dp_ctl.h"
#include "dp_fwd.h"
#include "dp_fwd_config.h"
#include "fuzz_tmpdir.h"
#include "ring_rig.h"

#define MAX_LINES    32
#define CMD_MAX      1023  /* the telemetry server reads a message into 1024 bytes */
#define REPLY_MAX    65536 /* more than its 16 KiB of output */
#define WAIT_MS      5000
#define SPINS        2000
#define MAX_COMMANDS 64
#define LIST_MAX     256 /* route/list shows 200 at most */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RIG_PORTS_TEXT                                                                             \
	"[dpfwd]\nburst = 32\nneigh_max = 16\n"                                                    \
	"[mempool]\ncache = 32\n"                                                                  \
	"[port0]\ndev = net_ring_t0\nip4 = 198.18.0.1/24\nip6 = 2001:db8:10::1/64\n"               \
	"[port1]\ndev = net_ring_t1\nip4 = 198.18.1.1/24\nip6 = 2001:db8:11::1/64\n"               \
	"[lcores]\nrx = (0,0,1),(1,0,1)\n"                                                         \
	"[neighbors]\nneigh = 198.18.1.2 lladdr 02:00:00:00:01:02 port 1\n"
#define RIG_ROUTES_TEXT                                                                            \
	"[routes]\nip4_max = 64\nip4_tbl8 = 8\n"                                                   \
	"route = 198.19.0.0/16 via 198.18.1.2 port 1\n"                                            \
	"route = 198.20.0.0/24 port 0\n"                                                           \
	"route = 2001:db8:20::/48 via 2001:db8:11::2 port 1\n"

/* route/reload,<digit>: the private folder's files */
static const char *const reload_text[] = {
	RIG_PORTS_TEXT RIG_ROUTES_TEXT,
	RIG_PORTS_TEXT "[routes]\nip4_max = 64\nip4_tbl8 = 8\n"
		       "route = 198.21.0.0/16 via 198.18.0.2 port 0\n"
		       "route = 198.21.7.128/25 port 1\n"
		       "route = 2001:db8:21::/48 port 0\n",
	RIG_PORTS_TEXT RIG_ROUTES_TEXT "route = 198.22.0.0/16 port 7\n",
	RIG_PORTS_TEXT RIG_ROUTES_TEXT "[port2]\ndev = net_ring_t9\n",
};
#define NB_RELOAD RTE_DIM(reload_text)

static struct ring_rig rig = {
	.name = "fuzz_dpctl",
	.prefix = 't',
	.nb_ports = 2,
	/* a reload builds the new IPv4 table (64 MiB of dir24_8) beside the old */
	.mem_mb = "512",
	.config_text = RIG_PORTS_TEXT RIG_ROUTES_TEXT,
};
static const char *reload_path[NB_RELOAD];
static int sock = -1;
static char commands[MAX_COMMANDS][64]; /* dpfwd's, as "/" lists them */
static unsigned int nb_commands;
static json_t *base4, *base6; /* the route lists as a reload of 0.ini makes them */
static char *reply_buf;
/* a route add, del or reload succeeded in this input: restore() after it */
static bool changed;

/* ---- the socket ---- */

/* Send @p msg, then wait for the answer as the control lcore. @return its JSON, or NULL. */
static json_t *
ask(const char *msg, size_t len, bool want_json)
{
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	json_error_t jerr;
	unsigned int ms, spins;
	json_t *v;
	ssize_t n;

	if (send(sock, msg, len, 0) != (ssize_t)len)
		fuzz_die("send '%.*s': %s", (int)len, msg, strerror(errno));
	/* route changes wait for the control lcore, this thread: a spin first (most answers
	 * take well under a millisecond), then a millisecond a round */
	for (spins = 0, ms = 0; ms < WAIT_MS; spins < SPINS ? spins++ : ms++) {
		dp_ctl_poll(dp_ctl_now_ms());
		if (poll(&pfd, 1, spins < SPINS ? 0 : 1) == 1)
			break;
	}
	if (ms == WAIT_MS)
		fuzz_die("no answer to '%.*s' in %d ms", (int)len, msg, WAIT_MS);
	n = recv(sock, reply_buf, REPLY_MAX, 0);
	if (n <= 0)
		fuzz_die("'%.*s': the telemetry server closed the connection", (int)len, msg);
	if (!want_json)
		return NULL;
	v = json_loadb(reply_buf, (size_t)n, 0, &jerr);
	if (v == NULL)
		fuzz_die("'%.*s': answer is not JSON (%s): %.*s", (int)len, msg, jerr.text, (int)n,
			reply_buf);
	return v;
}

/* The value of @p cmd's answer to @p msg (a borrowed reference into *@p whole). */
static json_t *
ask_value(const char *msg, const char *cmd, json_t **whole)
{
	json_t *v;

	*whole = ask(msg, strlen(msg), true);
	v = json_object_get(*whole, cmd);
	if (!json_is_object(*whole) || json_object_size(*whole) != 1 || v == NULL ||
		json_is_null(v))
		fuzz_die("'%s': answer without a value for %s", msg, cmd);
	return v;
}

static void
connect_telemetry(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct pollfd pfd;
	char hello[1024];

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/dpdk_telemetry.v2",
		rte_eal_get_runtime_dir());
	sock = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (sock < 0 || connect(sock, (struct sockaddr *)&sun, sizeof(sun)) != 0)
		fuzz_die("%s: %s", sun.sun_path, strerror(errno));
	pfd = (struct pollfd){ .fd = sock, .events = POLLIN };
	if (poll(&pfd, 1, WAIT_MS) != 1 || recv(sock, hello, sizeof(hello), 0) <= 0)
		fuzz_die("%s: no hello", sun.sun_path);
}

/* dpfwd's commands, from the list "/" answers. */
static void
list_commands(void)
{
	json_t *whole, *cmds = ask_value("/", "/", &whole), *c;
	size_t i;

	json_array_foreach(cmds, i, c)
	{
		const char *s = json_string_value(c);

		if (s != NULL && strncmp(s, "/dpfwd/", 7) == 0 && nb_commands < MAX_COMMANDS)
			dp_strlcpy(commands[nb_commands++], s, sizeof(commands[0]));
	}
	json_decref(whole);
	if (nb_commands == 0)
		fuzz_die("no /dpfwd/ command registered");
}

static bool
is_dpfwd_command(const char *cmd)
{
	unsigned int i;

	for (i = 0; i < nb_commands; i++)
		if (strcmp(commands[i], cmd) == 0)
			return true;
	return false;
}

/* rte_telemetry has no booleans: jansson's true and false come as 1 and 0. */
static bool
is_flag(const json_t *v)
{
	return json_is_integer(v) && (json_integer_value(v) == 0 || json_integer_value(v) == 1);
}

static bool
flag_set(const json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) == 1;
}

/* ---- route lists ---- */

/* Does route list line @p line say @p prefix/@p plen (exactly that text before a space)? */
static bool
line_is(const char *line, const char *pfx)
{
	size_t n = strlen(pfx);

	return strncmp(line, pfx, n) == 0 && line[n] == ' ';
}

/* One line of a route list: a route file line, its kind after " # ". */
static void
check_list_line(const char *msg, const char *line)
{
	char text[256], err[DP_CONFIG_ERR_LEN];
	const char *hash = strstr(line, " # ");
	struct dp_fwd_config_route6 r6;
	struct dp_fwd_config_route4 r4;
	struct dp_fwd_config_paths paths;
	size_t n = hash != NULL ? (size_t)(hash - line) : strlen(line);
	const bool ecmp = hash != NULL && strncmp(hash, " # ecmp group ", 14) == 0;
	int rc;

	if (hash != NULL && strcmp(hash, " # local") != 0 && strcmp(hash, " # connected") != 0 &&
		strcmp(hash, " # adjacency") != 0 && !ecmp)
		fuzz_die("'%s': line '%s' of an unknown kind", msg, line);
	snprintf(text, sizeof(text), "%.*s", (int)n, line);
	/* a local route has no port: any port reads it; an ECMP route too long for a
	 * line is its prefix alone */
	if (hash != NULL && (strcmp(hash, " # local") == 0 || (ecmp && !strstr(text, " via "))))
		snprintf(text + n, sizeof(text) - n, " port 0");
	rc = strchr(text, ':') != NULL
		     ? dp_fwd_config_route6_parse_paths(text, &r6, &paths, err, sizeof(err))
		     : dp_fwd_config_route4_parse_paths(text, &r4, &paths, err, sizeof(err));
	if (rc != 0)
		fuzz_die("'%s': line '%s' does not read back: %s", msg, line, err);
}

/* route/list of @p prefix ("" all IPv4): the lines, checked. @return a new reference. */
static json_t *
route_list(const char *prefix)
{
	char msg[CMD_MAX + 1];
	json_t *whole, *v, *lines, *l, *copy;
	json_int_t total, shown;
	size_t i, j;

	snprintf(msg, sizeof(msg), "/dpfwd/route/list%s%s", prefix[0] ? "," : "", prefix);
	v = ask_value(msg, "/dpfwd/route/list", &whole);
	if (!flag_set(json_object_get(v, "ok"))) {
		json_decref(whole);
		return NULL;
	}
	lines = json_object_get(v, "routes");
	total = json_integer_value(json_object_get(v, "routes_in_prefix"));
	shown = json_integer_value(json_object_get(v, "shown"));
	if (!json_is_array(lines) || (json_int_t)json_array_size(lines) != shown || shown > total ||
		shown > LIST_MAX || !is_flag(json_object_get(v, "truncated")) ||
		flag_set(json_object_get(v, "truncated")) != (total > shown))
		fuzz_die("'%s': %" JSON_INTEGER_FORMAT " shown of %" JSON_INTEGER_FORMAT
			 ", %zu lines",
			msg, shown, total, json_array_size(lines));
	json_array_foreach(lines, i, l)
	{
		if (!json_is_string(l))
			fuzz_die("'%s': line %zu not a string", msg, i);
		check_list_line(msg, json_string_value(l));
		for (j = 0; j < i; j++)
			if (json_equal(l, json_array_get(lines, j)))
				fuzz_die("'%s': '%s' listed twice", msg, json_string_value(l));
	}
	copy = json_deep_copy(lines);
	json_decref(whole);
	return copy;
}

/* Is a route for exactly @p pfx ("a.b.c.d/len") in the list of that prefix? */
static bool
route_listed(const char *pfx)
{
	json_t *lines = route_list(pfx), *l;
	bool found = false;
	size_t i;

	if (lines == NULL)
		fuzz_die("route list '%s' refused", pfx);
	json_array_foreach(lines, i, l) found |= line_is(json_string_value(l), pfx);
	json_decref(lines);
	return found;
}

/* The prefix a route add or del names, as route/list takes it. @return false when none. */
static bool
route_prefix(const char *params, bool add, char *pfx, size_t len)
{
	char text[CMD_MAX + 16], err[DP_CONFIG_ERR_LEN], a[64];
	struct dp_fwd_config_route6 r6;
	struct dp_fwd_config_route4 r4;
	struct dp_fwd_config_paths paths;

	/* del takes a prefix alone: read it as dpfwd does, with a port */
	snprintf(text, sizeof(text), add ? "%s" : "%s port 0", params);
	if (strchr(params, ':') != NULL) {
		if (dp_fwd_config_route6_parse_paths(text, &r6, &paths, err, sizeof(err)) != 0)
			return false;
		snprintf(pfx, len, "%s/%u", dp_config_ip6_str(r6.prefix, a, sizeof(a)), r6.plen);
	} else {
		if (dp_fwd_config_route4_parse_paths(text, &r4, &paths, err, sizeof(err)) != 0)
			return false;
		snprintf(pfx, len, "%s/%u", dp_config_ip4_str(r4.prefix, a, sizeof(a)), r4.plen);
	}
	return true;
}

/* ---- back to the rig's routes ---- */

static bool
json_array_has(const json_t *a, const json_t *v)
{
	const json_t *e;
	size_t i;

	json_array_foreach(a, i, e) if (json_equal(e, v)) return true;
	return false;
}

/* Make the route list @p now what @p base is, route by route. */
static void
undo_changes(const json_t *now, const json_t *base)
{
	char text[CMD_MAX + 1], err[DP_CONFIG_ERR_LEN];
	const json_t *l;
	size_t i;

	json_array_foreach(now, i, l)
	{
		const char *s = json_string_value(l);

		if (s != NULL && !json_array_has(base, l)) {
			snprintf(text, sizeof(text), "%.*s", (int)strcspn(s, " "), s);
			dp_fwd_route_del(text, err, sizeof(err));
		}
	}
	json_array_foreach(base, i, l)
	{
		const char *s = json_string_value(l);

		if (s != NULL && !json_array_has(now, l)) {
			/* the route file line, without its kind */
			dp_strlcpy(text, s, sizeof(text));
			if (strstr(text, " # ") != NULL)
				*strstr(text, " # ") = '\0';
			dp_fwd_route_add(text, err, sizeof(err));
		}
	}
}

/* Both route lists as the rig started. */
static bool
routes_as_base(void)
{
	json_t *now4 = route_list(""), *now6 = route_list("::/0");
	bool same = json_equal(now4, base4) && json_equal(now6, base6);

	if (!same) {
		undo_changes(now4, base4);
		undo_changes(now6, base6);
	}
	json_decref(now4);
	json_decref(now6);
	return same;
}

/*
 * After a change: the rig's routes again, undone route by route where that
 * does it (a reload makes a 64 MiB IPv4 table anew: ten times slower), else
 * by a reload of @p path. @return false when even the reload did not.
 */
static bool
restore(const char *path)
{
	char err[DP_CONFIG_ERR_LEN];

	if (routes_as_base() || routes_as_base())
		return true;
	if (dp_fwd_route_reload(path, err, sizeof(err)) != 0)
		fuzz_die("reload of %s: %s", path, err);
	return routes_as_base();
}

/* ---- set-up ---- */

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char name[16], err[DP_CONFIG_ERR_LEN];
	unsigned int i;
	FILE *f;

	(void)argc;
	(void)argv;
	fuzz_tmp_make("fuzz_dpctl", "dpctl");
	for (i = 0; i < NB_RELOAD; i++) {
		snprintf(name, sizeof(name), "%u.ini", i);
		reload_path[i] = fuzz_tmp_file(name);
		f = fopen(reload_path[i], "w");
		if (f == NULL || fputs(reload_text[i], f) < 0 || fclose(f) != 0)
			fuzz_die("%s: cannot write it", reload_path[i]);
	}
	reply_buf = malloc(REPLY_MAX);
	if (reply_buf == NULL)
		fuzz_die("no memory");
	if (ring_rig_setup(&rig) < 0)
		fuzz_die("rig setup failed");
	/* its config is 0.ini: route/reload without params finds no file */
	unlink(rig.cfg_path);
	rmdir(rig.tmpdir);
	/* route changes wait for the workers (RCU): this thread walks no graph */
	ring_rig_rcu_offline();
	/* a refused route is a warning: thousands a second */
	rte_log_set_level_pattern("dpfwd.*", RTE_LOG_ERR);
	connect_telemetry();
	list_commands();
	/* the table as a reload makes it: what restore() compares with */
	if (dp_fwd_route_reload(reload_path[0], err, sizeof(err)) != 0)
		fuzz_die("reload of %s: %s", reload_path[0], err);
	base4 = route_list("");
	base6 = route_list("::/0");
	if (base4 == NULL || base6 == NULL)
		fuzz_die("cannot list the rig's routes");
	return 0;
}

/* ---- one input ---- */

/* One line: sent when it is one of dpfwd's (see the top), its answer checked. */
static void
run_line(const char *line)
{
	char msg[CMD_MAX + 1], buf[CMD_MAX + 1], pfx[128];
	const char *cmd, *params;
	char *save = NULL;
	json_t *whole, *v;
	bool ok;

	dp_strlcpy(buf, line, sizeof(buf));
	/* rte_telemetry: strtok(buffer, ","), then strtok(NULL, "\0") */
	cmd = strtok_r(buf, ",", &save);
	params = strtok_r(NULL, "", &save);
	if (cmd == NULL || strncmp(cmd, "/dpfwd/", 7) != 0)
		return;
	if (strcmp(cmd, "/dpfwd/route/reload") == 0 && params != NULL) {
		unsigned int k;

		if (params[0] < '0' || params[0] > '9' || params[1] != '\0')
			return;
		k = (unsigned int)(params[0] - '0');
		snprintf(msg, sizeof(msg), "%s,%s", cmd,
			k < NB_RELOAD ? reload_path[k] : "/nonexistent/dpfwd-fuzz.ini");
	} else {
		dp_strlcpy(msg, line, sizeof(msg));
	}
	if (!is_dpfwd_command(cmd)) {
		/* rte_telemetry writes an unknown command's name as it is, unescaped */
		ask(msg, strlen(msg), false);
		return;
	}
	v = ask_value(msg, cmd, &whole);
	if (strcmp(cmd, "/dpfwd/route/add") == 0 || strcmp(cmd, "/dpfwd/route/del") == 0 ||
		strcmp(cmd, "/dpfwd/route/reload") == 0 || strcmp(cmd, "/dpfwd/route/list") == 0 ||
		strcmp(cmd, "/dpfwd/graph/graph") == 0) {
		json_t *e = json_object_get(v, "error");

		if (!is_flag(json_object_get(v, "ok")))
			fuzz_die("'%s': answer without ok", msg);
		ok = flag_set(json_object_get(v, "ok"));
		if (!ok && (!json_is_string(e) || json_string_length(e) == 0))
			fuzz_die("'%s': refused without an error", msg);
		changed |= ok && strncmp(cmd, "/dpfwd/route/", 13) == 0 &&
			   strcmp(cmd, "/dpfwd/route/list") != 0;
		if (ok && strcmp(cmd, "/dpfwd/route/add") == 0) {
			if (!route_prefix(params ? params : "", true, pfx, sizeof(pfx)))
				fuzz_die("'%s': added what the parser refuses", msg);
			if (!route_listed(pfx))
				fuzz_die("'%s': added, %s not listed", msg, pfx);
		} else if (ok && strcmp(cmd, "/dpfwd/route/del") == 0) {
			if (!route_prefix(params ? params : "", false, pfx, sizeof(pfx)))
				fuzz_die("'%s': deleted what the parser refuses", msg);
			if (route_listed(pfx))
				fuzz_die("'%s': deleted, %s still listed", msg, pfx);
		} else if (ok && strcmp(cmd, "/dpfwd/route/list") == 0) {
			json_decref(route_list(params ? params : ""));
		}
	}
	json_decref(whole);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char line[CMD_MAX + 1];
	unsigned int nb_lines = 0;
	size_t off = 0;

	while (off < size && nb_lines < MAX_LINES) {
		const uint8_t *nl = memchr(data + off, '\n', size - off);
		size_t len = nl != NULL ? (size_t)(nl - (data + off)) : size - off;

		if (len <= CMD_MAX) {
			memcpy(line, data + off, len);
			line[len] = '\0'; /* cut at a NUL byte too */
			run_line(line);
		}
		nb_lines++;
		off += len + 1;
	}
	if (changed && !restore(reload_path[0]))
		fuzz_die("after a reload of the rig's config, other routes than at the start");
	changed = false;
	return 0;
}
