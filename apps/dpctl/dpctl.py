#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
dpctl: the operator's command-line client for a running dpfwd.

It talks to dpfwd over DPDK's telemetry socket (<runtime dir>/<file-prefix>/
dpdk_telemetry.v2, SOCK_SEQPACKET: a JSON hello, then one JSON reply per command) and
prints what the /dpfwd/... commands answer as tables (VPP's show runtime, show errors,
show interface) or, with --json, as JSON for scripts.  Counters are "cleared" by a
snapshot kept beside dpctl's other state, subtracted from what later shows print.

Python 3 standard library only; docs/dpctl.md is its manual.
"""
import argparse
import datetime
import errno
import glob
import json
import os
import re
import shutil
import signal
import socket
import sys
import tempfile
import textwrap
import time

EXIT_OK = 0
EXIT_REFUSED = 1        # dpfwd answered, and refused (or does not know) the command
EXIT_USAGE = 2          # bad command line, cannot find or reach dpfwd

SOCK_NAME = "dpdk_telemetry.v2"
TEL_STRING_MAX = 127    # RTE_TEL_MAX_STRING_LEN - 1: longer strings come back cut
TEL_CMD_MAX = 1023      # the telemetry server reads a command into 1024 bytes
SNAPSHOT_VERSION = 1
DEFAULT_INTERVAL = 0.2  # seconds between the two samples that make rates

PROG = "dpctl"
# meson install writes the project's version here (apps/dpctl/meson.build)
VERSION = None  # from the source tree: read from meson.build (version_text)


class DpctlError(Exception):
    """A message for stderr and the exit status that goes with it."""

    def __init__(self, msg, code=EXIT_USAGE):
        super().__init__(msg)
        self.code = code


# --------------------------------------------------------------------------
# DPDK telemetry socket
# --------------------------------------------------------------------------

class Telemetry:
    """One connection to a DPDK telemetry v2 socket."""

    def __init__(self, path, timeout=5.0):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.settimeout(timeout)
        try:
            self.sock.connect(path)
            data = self.sock.recv(16384)
        except OSError:
            self.sock.close()
            raise
        if not data:
            # the server takes a limited number of clients and closes the others
            self.sock.close()
            raise ConnectionRefusedError(errno.ECONNREFUSED,
                                         "the telemetry server closed the connection "
                                         "(too many clients?)")
        try:
            hello = json.loads(data.decode())
        except ValueError:
            self.sock.close()
            raise ConnectionRefusedError(errno.EPROTO, "not a DPDK telemetry v2 socket")
        self.version = hello.get("version")
        self.pid = hello.get("pid")
        self.max_output_len = int(hello.get("max_output_len", 16384))
        self.bufsize = max(65536, self.max_output_len + 1024)

    def call(self, command):
        """Send one command; return the whole reply ({command: value})."""
        if len(command.encode()) > TEL_CMD_MAX:
            raise DpctlError(f"command too long for the telemetry socket "
                             f"({len(command.encode())} bytes, at most {TEL_CMD_MAX})")
        try:
            self.sock.send(command.encode())
            data = self.sock.recv(self.bufsize)
        except socket.timeout:
            raise DpctlError(f"no answer from {self.path} to {command} (timeout)")
        except OSError as e:
            raise DpctlError(f"{self.path}: {e.strerror or e}")
        if not data:
            raise DpctlError(f"{self.path}: the telemetry server closed the connection "
                             "(dpfwd stopping?)")
        try:
            return json.loads(data.decode())
        except ValueError as e:
            raise DpctlError(f"{self.path}: bad JSON in the answer to {command}: {e}")

    def get(self, command):
        """The value of a command's reply; None when the command is unknown."""
        reply = self.call(command)
        if not isinstance(reply, dict):
            return None
        return reply.get(command.split(",", 1)[0])

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def dpdk_runtime_dirs():
    """Where EAL puts <file-prefix>/dpdk_telemetry.v2 (eal_get_runtime_dir()): /var/run/dpdk
    for root, $XDG_RUNTIME_DIR/dpdk (or /tmp/dpdk) for others; both are looked at for
    a user that is not root.  DPCTL_DPDK_RUNTIME_DIR replaces the list (tests)."""
    env = os.environ.get("DPCTL_DPDK_RUNTIME_DIR")
    if env:
        return [env]
    dirs = []
    if os.geteuid() != 0:
        dirs.append(os.path.join(os.environ.get("XDG_RUNTIME_DIR") or "/tmp", "dpdk"))
    dirs.append("/var/run/dpdk")
    return dirs


def closed_dirs():
    """A hint about runtime folders this user may not look into ('' when none)."""
    closed = [d for d in dpdk_runtime_dirs()
              if os.path.isdir(d) and not os.access(d, os.R_OK | os.X_OK)]
    if not closed:
        return ""
    return (f" ({' and '.join(closed)}: not readable by this user; dpfwd's sockets there "
            "need its user, root for /var/run/dpdk)")


def prefix_of(path):
    """The file prefix a socket path belongs to (the name of its folder)."""
    return os.path.basename(os.path.dirname(os.path.abspath(path))) or "?"


def probe(path, timeout):
    """('dpfwd', Telemetry, run_info) | ('other', Telemetry-less info, None) |
    ('dead', reason, None) for the socket at path."""
    try:
        tel = Telemetry(path, timeout)
    except OSError as e:
        return ("dead", e.strerror or str(e), None)
    try:
        info = tel.get("/dpfwd/run/info")
    except DpctlError as e:
        tel.close()
        return ("dead", str(e), None)
    if isinstance(info, dict):
        return ("dpfwd", tel, info)
    what = f"pid {tel.pid}, {tel.version}"
    tel.close()
    return ("other", what, None)


def connect_error(path, e):
    prefix = prefix_of(path)
    if isinstance(e, FileNotFoundError):
        return f"{path} does not exist"
    if isinstance(e, ConnectionRefusedError):
        return (f"nothing answers on {path} ({e.strerror or e}): the process with "
                f"--file-prefix {prefix} has exited (a stale socket)")
    if isinstance(e, PermissionError):
        return (f"{path}: permission denied: run dpctl as the user that runs dpfwd "
                "(root for /var/run/dpdk)")
    return f"{path}: {e.strerror or e}"


HOW_TO_POINT = ("give its EAL --file-prefix with `dpctl --file-prefix PREFIX ...` (DPDK's "
                "default prefix is rte) or its socket with `dpctl --socket PATH ...`")


def find_target(args):
    """(Telemetry, run_info, socket path) of the dpfwd the options name, or the only
    one running."""
    timeout = args.timeout
    if args.socket or args.file_prefix:
        if args.socket:
            paths = [args.socket]
        else:
            if "/" in args.file_prefix:
                raise DpctlError(f"bad --file-prefix {args.file_prefix!r}: a name, not a path "
                                 "(--socket takes a path)")
            paths = [os.path.join(d, args.file_prefix, SOCK_NAME) for d in dpdk_runtime_dirs()]
            existing = [p for p in paths if os.path.exists(p)]
            if not existing:
                raise DpctlError(
                    f"no dpfwd with --file-prefix {args.file_prefix}: "
                    f"{' and '.join(paths)} {'do' if len(paths) > 1 else 'does'} not exist "
                    "(is it running? is the prefix right? `dpctl list` shows what runs)"
                    + closed_dirs())
            paths = existing
        path = paths[0]
        try:
            tel = Telemetry(path, timeout)
        except OSError as e:
            raise DpctlError("cannot connect: " + connect_error(path, e))
        info = tel.get("/dpfwd/run/info")
        if not isinstance(info, dict):
            tel.close()
            raise DpctlError(f"the DPDK process on {path} (pid {tel.pid}, {tel.version}) is "
                             "not a dpfwd: it does not know /dpfwd/run/info")
        return tel, info, path
    found, others, dead = scan(timeout)
    if len(found) == 1:
        path, tel, info = found[0]
        return tel, info, path
    for _, tel, _ in found:
        tel.close()
    if not found:
        msg = ["dpfwd does not seem to run: no telemetry socket of a dpfwd in "
               + " or ".join(os.path.join(d, "*", SOCK_NAME) for d in dpdk_runtime_dirs())
               + closed_dirs()]
        for path, what in others:
            msg.append(f"  {prefix_of(path)}: a DPDK process that is not dpfwd ({what})")
        for path, why in dead:
            msg.append(f"  {prefix_of(path)}: stale socket ({why})")
        msg.append("Start dpfwd, or if it runs (as another user, or with its runtime "
                   "folder elsewhere), " + HOW_TO_POINT + ".")
        raise DpctlError("\n".join(msg))
    lines = ["several dpfwd run; say which with --file-prefix PREFIX:"]
    for path, _, info in found:
        lines.append(f"  --file-prefix {prefix_of(path)}  (config {info.get('config')})")
    raise DpctlError("\n".join(lines))


def scan(timeout):
    """Every telemetry socket in the runtime folders: ([(path, tel, info)] of dpfwds,
    [(path, what)] of other DPDK processes, [(path, why)] of stale sockets)."""
    found, others, dead, seen = [], [], [], set()
    for d in dpdk_runtime_dirs():
        for path in sorted(glob.glob(os.path.join(d, "*", SOCK_NAME))):
            real = os.path.realpath(path)
            if real in seen:
                continue
            seen.add(real)
            kind, x, info = probe(path, min(timeout, 2.0))
            if kind == "dpfwd":
                found.append((path, x, info))
            elif kind == "other":
                others.append((path, x))
            else:
                dead.append((path, x))
    return found, others, dead


# --------------------------------------------------------------------------
# What rte_telemetry does to dpfwd's JSON, undone
# --------------------------------------------------------------------------

_REAL = re.compile(r"^-?\d+\.\d+$")


def salvage(text):
    """What can be read of a cut JSON text: its longest prefix that parses once closed
    with the brackets it left open, cut where the fewest containers are open (whole
    elements of the outer container; a part of an inner one only when not even one
    element is whole); an empty container when nothing is."""
    stack, cuts, in_str, esc = [], [], False, False
    for i, ch in enumerate(text):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"':
            in_str = True
        elif ch in "[{":
            stack.append(ch)
        elif ch in "]}":
            if stack:
                stack.pop()
            if stack:
                cuts.append((i + 1, tuple(stack)))
        elif ch == ",":
            cuts.append((i, tuple(stack)))
    for pos, st in sorted(cuts, key=lambda c: (len(c[1]), -c[0])):
        closing = "".join("}" if c == "{" else "]" for c in reversed(st))
        try:
            return json.loads(text[:pos] + closing)
        except ValueError:
            continue
    return {} if text.startswith("{") else []


def unstring(v):
    """(value, cut): a string of rte_telemetry back to what dpfwd meant.  Reals and
    nulls come as strings ("47.325", "null"), values nested deeper than two levels as
    JSON text, cut to 127 characters when longer (cut is then True and the value is
    what could be read of it)."""
    if not isinstance(v, str):
        return v, False
    if v == "null":
        return None, False
    if v in ("nan", "-nan", "inf", "-inf"):
        return None, False
    if _REAL.match(v):
        return float(v), False
    if v[:1] in ("{", "["):
        try:
            return decode(json.loads(v)), False
        except ValueError:
            if len(v) >= TEL_STRING_MAX:
                return decode(salvage(v)), True
    return v, False


_INDEX = re.compile(r"^_\d+$")


def _lists(v):
    """Dicts keyed "_0", "_1", ... (an array's elements, see unflatten) back to lists."""
    if isinstance(v, dict):
        v = {k: _lists(e) for k, e in v.items()}
        if v and all(_INDEX.match(k) for k in v):
            return [v[k] for k in sorted(v, key=lambda k: int(k[1:]))]
    return v


def unflatten(d):
    """rte_telemetry holds containers two levels deep: dpfwd spreads what is nested
    deeper into keys of their own, "nodes/ip4_fwd/calls", with an array's elements by
    index after an underscore, "lcores/_0/p50_ns" (src/telemetry/telemetry.c,
    tel_add_flat).  Put the levels back."""
    if not isinstance(d, dict) or not any("/" in k or _INDEX.match(k) for k in d):
        return d
    root = {}
    for k, v in d.items():
        parts = k.split("/")
        cur = root
        for p in parts[:-1]:
            nxt = cur.get(p)
            if not isinstance(nxt, dict):
                nxt = cur[p] = {}
            cur = nxt
        cur[parts[-1]] = v
    return _lists(root)


def decode(v):
    """Strings inside a value turned back into numbers, nulls and containers, nested
    levels put back (unflatten).  A dict that came from a cut JSON text gets
    "_truncated": true; a cut list gets a sibling "<key>_truncated": true in its dict."""
    v = unflatten(v)
    if isinstance(v, dict):
        out = {}
        for k, e in v.items():
            d, cut = unstring(e) if isinstance(e, str) else (decode(e), False)
            out[k] = d
            if cut:
                if isinstance(d, dict):
                    d["_truncated"] = True
                else:
                    out[k + "_truncated"] = True
        return out
    if isinstance(v, list):
        out = []
        for e in v:
            d, cut = unstring(e) if isinstance(e, str) else (decode(e), False)
            if cut and isinstance(d, dict):
                d["_truncated"] = True
            out.append(d)
        return out
    return v


def normalize(v):
    """A command's value as dpfwd built it: a top-level JSON array of objects arrives as
    a dict keyed "0", "1", ... (rte_telemetry arrays hold one type of scalar)."""
    if isinstance(v, dict) and v and all(k.isdigit() for k in v):
        keys = sorted(v, key=int)
        if [int(k) for k in keys] == list(range(len(keys))):
            v = [v[k] for k in keys]
    return decode(v)


# --------------------------------------------------------------------------
# The process behind the socket
# --------------------------------------------------------------------------

def proc_start(pid):
    """(start time in clock ticks since boot, uptime in s) of a local pid that runs a
    dpfwd, (None, None) when it is not ours to see."""
    if not isinstance(pid, int) or pid <= 0:
        return None, None
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv0 = f.read().split(b"\0", 1)[0].decode(errors="replace")
        if "dpfwd" not in os.path.basename(argv0):
            return None, None
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        start = int(fields[19])
        with open("/proc/uptime") as f:
            up = float(f.read().split()[0])
        return start, max(0.0, up - start / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None, None


# --------------------------------------------------------------------------
# Counter snapshots ("clear")
# --------------------------------------------------------------------------

PORT_COUNTERS = ["ipackets", "opackets", "ibytes", "obytes", "imissed", "ierrors", "oerrors",
                 "rx_nombuf", "link_changes"]
LCORE_COUNTERS = ["rx_pkts", "tx_pkts", "tx_bytes", "iterations", "busy_cycles",
                  "idle_cycles", "empty_polls", "punted", "injected", "instructions"]
NODE_COUNTERS = ["calls", "pkts", "timed_cycles", "timed_pkts"]
CLEARED = ("ports", "lcores", "nodes", "drops")


def state_dir():
    env = os.environ.get("DPCTL_STATE_DIR")
    if env:
        return env
    if os.geteuid() == 0:
        return "/run/dpctl"
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    return os.path.join(xdg, "dpctl") if xdg else f"/tmp/dpctl-{os.geteuid()}"


def snapshot_path(prefix):
    return os.path.join(state_dir(), re.sub(r"[^A-Za-z0-9_.-]", "_", prefix) + ".json")


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def sub(cur, snap, keys):
    """cur with each counter of keys minus snap's; the names of counters that went
    back."""
    out, back = dict(cur), []
    for k in keys:
        a, b = cur.get(k), (snap or {}).get(k)
        if isinstance(a, int) and isinstance(b, int):
            if a < b:
                back.append(k)
            out[k] = a - b
    return out, back


def ratio(a, b):
    return a / b if is_num(a) and is_num(b) and b else None


def sub_nodes(cur, snap, stats_on=True):
    out, back = {}, []
    for name, o in cur.items():
        if not isinstance(o, dict):
            out[name] = o
            continue
        d, bk = sub(o, (snap or {}).get(name), NODE_COUNTERS)
        back += [f"{name}.{k}" for k in bk]
        if "cycles_per_pkt" in d:
            d["cycles_per_pkt"] = ratio(d.get("timed_cycles"), d.get("timed_pkts")) \
                if stats_on else None
        if "pkts_per_call" in d:
            d["pkts_per_call"] = ratio(d.get("pkts"), d.get("calls"))
        out[name] = d
    return out, back


def subtract(section, cur, snap):
    """A section's value minus its snapshot: (value, [counters that went back])."""
    if snap is None:
        return cur, []
    back = []
    if section == "ports":
        old = {p.get("index"): p for p in snap}
        out = []
        for p in cur:
            d, bk = sub(p, old.get(p.get("index")), PORT_COUNTERS)
            back += [f"port{p.get('index')}.{k}" for k in bk]
            out.append(d)
        return out, back
    if section == "lcores":
        old = {x.get("lcore"): x for x in snap}
        out = []
        for x in cur:
            o = old.get(x.get("lcore")) or {}
            d, bk = sub(x, o, LCORE_COUNTERS)
            back += [f"lcore{x.get('lcore')}.{k}" for k in bk]
            d["cycles_per_pkt"] = ratio(d.get("busy_cycles"), d.get("rx_pkts"))
            if is_num(d.get("instructions")):
                d["insn_per_pkt"] = ratio(d.get("instructions"), d.get("rx_pkts"))
            h, oh = x.get("rx_burst_hist"), o.get("rx_burst_hist")
            if isinstance(h, dict) and isinstance(oh, dict):
                hk = [k for k in h if k != "_truncated"]
                d["rx_burst_hist"], bk = sub(h, oh, hk)
                back += [f"lcore{x.get('lcore')}.rx_burst_hist.{k}" for k in bk]
            if isinstance(x.get("nodes"), dict) and isinstance(o.get("nodes"), dict):
                d["nodes"], _ = sub_nodes(x["nodes"], o["nodes"], bool(x.get("node_stats")))
                if x["nodes"].get("_truncated"):
                    d["nodes"]["_truncated"] = True
            out.append(d)
        return out, back
    if section == "nodes":
        stats_on = any(isinstance(o, dict) and o.get("cycles_per_pkt") is not None
                       for o in cur.values()) or not any(
            isinstance(o, dict) and o.get("timed_pkts") for o in cur.values())
        return sub_nodes(cur, snap, stats_on)
    if section == "drops":
        out, back = sub(cur, snap, [k for k in ("total", "consumed") if k in cur])
        by = cur.get("by_reason") or {}
        out["by_reason"], bk = sub(by, snap.get("by_reason"), list(by))
        return out, back + bk
    return cur, []


# --------------------------------------------------------------------------
# One session with one dpfwd
# --------------------------------------------------------------------------

COMMANDS = {
    "info": "/dpfwd/run/info",
    "ports": "/dpfwd/port/stats",
    "vlans": "/dpfwd/port/vlans",
    "lcores": "/dpfwd/graph/lcores",
    "nodes": "/dpfwd/graph/nodes",
    "drops": "/dpfwd/graph/drops",
    "delay": "/dpfwd/graph/delay",
    "routes": "/dpfwd/fwd/routes",
    "route_changes": "/dpfwd/fwd/route_changes",
    "ip6": "/dpfwd/fwd/ip6",
    "icmp4": "/dpfwd/fwd/icmp4",
    "neighbors": "/dpfwd/fwd/neighbors",
    "relay": "/dpfwd/relay/stats",
    "endpoint_stats": "/dpfwd/endpoint/stats",
    "endpoint_list": "/dpfwd/endpoint/list",
    "pools": "/dpfwd/mem/pools",
    "ctl": "/dpfwd/ctl/stats",
    "linux": "/dpfwd/linux/stats",
}


class Session:
    def __init__(self, args):
        self.args = args
        self.tel, info, self.path = find_target(args)
        self.info = normalize(info)
        self.prefix = prefix_of(self.path)
        self.pid = self.tel.pid
        self.start_ticks, self.uptime = proc_start(self.pid)
        self.notes = []           # said once, above the table (stderr with --json)
        self._snap = False        # not read yet
        self._deltas = {}
        self.ignored = None       # why a snapshot was ignored

    def close(self):
        self.tel.close()

    def raw(self, name):
        return self.tel.get(COMMANDS[name])

    def get(self, name):
        v = self.raw(name)
        return None if v is None else normalize(v)

    # ---- the snapshot ----

    def identity(self):
        return {"pid": self.pid, "start_ticks": self.start_ticks,
                "config": self.info.get("config")}

    def snapshot(self):
        """The valid snapshot of the last clear, or None (with a note why not)."""
        if self._snap is not False:
            return self._snap
        self._snap = None
        path = snapshot_path(self.prefix)
        try:
            with open(path) as f:
                snap = json.load(f)
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as e:
            self.ignored = "unreadable"
            self.notes.append(f"snapshot {path} unreadable ({e}): ignored")
            return None
        ident, when = snap.get("identity") or {}, snap.get("time_unix", 0)
        stamp = fmt_time(when)
        if snap.get("version") != SNAPSHOT_VERSION or \
                os.path.realpath(snap.get("socket") or "") != os.path.realpath(self.path):
            self.ignored = "another socket"
            self.notes.append(f"snapshot {path} is not for this socket: ignored")
            return None
        if ident.get("pid") != self.pid or (
                ident.get("start_ticks") is not None and self.start_ticks is not None
                and ident.get("start_ticks") != self.start_ticks):
            self.ignored = "restarted"
            self.notes.append(f"dpfwd was restarted since the clear at {stamp} (pid "
                              f"{ident.get('pid')} then, {self.pid} now): counters are "
                              "since its start; `dpctl clear` again, or `clear --undo`")
            return None
        # every cleared section is checked: a counter lower than the snapshot's anywhere
        # means another dpfwd (where /proc could not tell), for every show
        deltas, back = {}, []
        for section in CLEARED:
            cur = self.get(section)
            if cur is None or section not in snap:
                deltas[section] = cur
                continue
            deltas[section], bk = subtract(section, cur, snap[section])
            back += bk
        if back:
            self.ignored = "counters went back"
            self.notes.append(
                f"counters went back since the clear at {stamp} "
                f"({', '.join(back[:3])}{'...' if len(back) > 3 else ''}): dpfwd restarted? "
                "snapshot ignored, counters are since its start; `dpctl clear` again, or "
                "`clear --undo`")
            return None
        self._snap = snap
        self._deltas = deltas
        return snap

    def counters(self, section):
        """A cleared section's value, minus the snapshot when there is a valid one."""
        if self.snapshot() is not None:
            return self._deltas.get(section)
        return self.get(section)

    def since(self):
        """What the counters count from: JSON-ready."""
        snap = self.snapshot()
        now = time.time()
        if snap is not None:
            return {"since": "clear", "clear_time_unix": snap.get("time_unix"),
                    "clear_time": fmt_time(snap.get("time_unix", 0)),
                    "seconds": round(now - snap.get("time_unix", now), 3)}
        return {"since": "start", "clear_time_unix": None, "clear_time": None,
                "seconds": None if self.uptime is None else round(self.uptime, 3),
                "snapshot_ignored": self.ignored}

    def since_line(self, since):
        if since["since"] == "clear":
            return (f"Counters since clear at {since['clear_time']} "
                    f"({fmt_duration(since['seconds'])} ago)")
        up = "" if since["seconds"] is None else f" (uptime {fmt_duration(since['seconds'])})"
        return f"Counters since dpfwd started{up}"


# --------------------------------------------------------------------------
# Formatting
# --------------------------------------------------------------------------

def fmt_time(t):
    return datetime.datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M:%S")


def fmt_duration(s):
    if s is None:
        return "?"
    if s < 60:
        return f"{s:.1f} s"
    m, s = divmod(int(s), 60)
    h, m = divmod(m, 60)
    d, h = divmod(h, 24)
    return (f"{d}d " if d else "") + (f"{h}h " if h or d else "") + f"{m}m {s:02d}s"


def n(v):
    """An exact count with thousands separators; - when unknown."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:,.2f}"
    return str(v)


def si(v, unit="", prec=2):
    """1234567 -> '1.23 M<unit>'."""
    if v is None:
        return "-"
    a = abs(v)
    for div, p in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if a >= div:
            return f"{v / div:.{prec}f} {p}{unit}"
    if isinstance(v, float) and v != int(v):
        return f"{v:.{prec}f} {unit}".rstrip()
    return f"{int(v)} {unit}".rstrip()


def fnum(v, prec=2):
    if v is None:
        return "-"
    return f"{v:,.{prec}f}"


def pct(v):
    return "-" if v is None else f"{100 * v:.1f}%"


def fmt_ns(v):
    if v is None:
        return "-"
    if not is_num(v):
        return "?"
    if v < 1e3:
        return f"{v:.0f} ns"
    if v < 1e6:
        return f"{v / 1e3:.2f} us"
    if v < 1e9:
        return f"{v / 1e6:.2f} ms"
    return f"{v / 1e9:.2f} s"


def table(headers, rows, left=1, align=None):
    """Aligned columns: the first `left` columns to the left, the others to the right;
    or align, one letter a column: l(eft) or r(ight)."""
    if align is None:
        align = "l" * left + "r" * (len(headers) - left)
    rows = [[str(c) for c in r] for r in rows]
    widths = [len(h) for h in headers]
    for r in rows:
        for i, c in enumerate(r):
            widths[i] = max(widths[i], len(c))

    def line(cells):
        out = []
        for i, c in enumerate(cells):
            out.append(c.ljust(widths[i]) if align[i] == "l" else c.rjust(widths[i]))
        return "  ".join(out).rstrip()
    return "\n".join([line(headers)] + [line(r) for r in rows])


def kv(pairs, indent=""):
    w = max((len(k) for k, _ in pairs), default=0)
    return "\n".join(f"{indent}{k.ljust(w)}  {v}" for k, v in pairs)


# --------------------------------------------------------------------------
# show ...
# --------------------------------------------------------------------------

def show_info(s, args):
    info = s.info
    eal = s.tel.get("/eal/params")
    data = {"pid": s.pid, "dpdk_version": s.tel.version, "file_prefix": s.prefix,
            "socket": s.path, "uptime_s": None if s.uptime is None else round(s.uptime, 3),
            "eal_params": eal if isinstance(eal, list) else None, "run": info}
    if args.json:
        return data
    pairs = [("pid", s.pid), ("uptime", fmt_duration(s.uptime)),
             ("DPDK", s.tel.version), ("file prefix", s.prefix), ("socket", s.path)]
    if isinstance(eal, list) and eal:
        pairs.append(("EAL command line", " ".join(str(a) for a in eal)))
    labels = {"config": "config", "mode": "mode", "main_lcore": "main lcore",
              "workers": "worker lcores", "burst": "burst", "node_stats": "node stats",
              "ip4_cksum_check": "IPv4 checksum check", "check_dst_mac": "check dst MAC",
              "mempool_ops": "mempool ops", "mempool_cache": "mempool cache",
              "tx_drain_us": "TX drain (us)", "mbufs_over_baseline": "mbufs over baseline",
              "metrics": "metrics"}
    bools = ("node_stats", "ip4_cksum_check", "check_dst_mac")
    for k, v in info.items():
        if k in bools:
            v = "on" if v else "off"
        elif v is None:
            v = "off" if k == "metrics" else "-"
        pairs.append((labels.get(k, k), v))
    return kv(pairs)


def sample_twice(s, section, interval):
    """(first, second, seconds between) of a raw section read twice."""
    a = s.get(section)
    t0 = time.monotonic()
    time.sleep(interval)
    b = s.get(section)
    return a, b, time.monotonic() - t0


def rates(a, b, dt, key, fields):
    """{key value: {field: per second}} between two raw reads."""
    out = {}
    if not a or not b or dt <= 0:
        return out
    old = {x.get(key): x for x in a}
    for x in b:
        o = old.get(x.get(key))
        if o is None:
            continue
        out[x.get(key)] = {f: max(0, x.get(f, 0) - o.get(f, 0)) / dt for f in fields
                           if isinstance(x.get(f), int) and isinstance(o.get(f), int)}
    return out


def show_ports(s, args):
    r = {}
    if args.interval > 0:
        a, b, dt = sample_twice(s, "ports", args.interval)
        r = rates(a, b, dt, "index", ["ipackets", "opackets", "ibytes", "obytes"])
    ports = s.counters("ports") or []
    since = s.since()
    for p in ports:
        x = r.get(p.get("index"))
        if x is not None:
            p["rx_pps"] = round(x.get("ipackets", 0), 1)
            p["tx_pps"] = round(x.get("opackets", 0), 1)
            p["rx_bps"] = round(8 * x.get("ibytes", 0), 1)
            p["tx_bps"] = round(8 * x.get("obytes", 0), 1)
    vlans = s.get("vlans") or []
    if args.json:
        r = {"counters": since, "rate_interval_s": args.interval or None, "ports": ports}
        if vlans:
            r["vlans"] = vlans
        return r
    rows = []
    for p in ports:
        link = "up" if p.get("link_up") else "down"
        if p.get("link_up") and not p.get("polled"):
            link += "*"
        speed = p.get("link_speed_mbps")
        row = [p.get("index"), p.get("name"), p.get("driver"),
               link + (f" {speed // 1000}G" if isinstance(speed, int) and speed >= 1000
                       and p.get("link_up") else ""),
               n(p.get("ipackets")), si(p.get("ibytes"), "B"), n(p.get("opackets")),
               si(p.get("obytes"), "B"), n(p.get("imissed")), n(p.get("rx_nombuf")),
               n(p.get("ierrors")), n(p.get("oerrors"))]
        if args.interval > 0:
            row += [si(p.get("rx_pps"), "pps"), si(p.get("tx_pps"), "pps")]
        rows.append(row)
    headers = ["Port", "Name", "Driver", "Link", "Rx packets", "Rx bytes", "Tx packets",
               "Tx bytes", "imissed", "rx_nombuf", "ierrors", "oerrors"]
    if args.interval > 0:
        headers += ["Rx rate", "Tx rate"]
    out = [s.since_line(since), table(headers, rows, left=4)]
    if any(p.get("link_up") and not p.get("polled") for p in ports):
        out.append("* link up, not polled by the workers yet")
    if args.interval > 0:
        out.append(f"rates over the last {args.interval:g} s")
    if args.verbose:
        for p in ports:
            out.append(f"\nport{p.get('index')} {p.get('name')}: " + ", ".join(
                f"{k} {v}" for k, v in p.items() if k not in ("index", "name")))
    if vlans:
        # kept by the workers in software, counted since dpfwd started
        out.append("\nSub-interfaces (802.1Q), counted since start")
        out.append(table(["Port", "Name", "On", "VLAN", "MTU", "Rx packets", "Rx bytes",
                          "Tx packets", "Tx bytes"],
                         [[v.get("index"), v.get("name"), f"port{v.get('port')}",
                           v.get("vid"), v.get("mtu"), n(v.get("rx_pkts")),
                           si(v.get("rx_bytes"), "B"), n(v.get("tx_pkts")),
                           si(v.get("tx_bytes"), "B")] for v in vlans], left=2))
    return "\n".join(out)


def hist_summary(h, burst):
    """(bursts, mean packets per non-empty burst, share full, share empty, cut) of an
    rx_burst histogram."""
    if not isinstance(h, dict):
        return None, None, None, None, False
    cut = bool(h.get("_truncated"))
    counts = {int(k): v for k, v in h.items() if k.isdigit() and isinstance(v, int)}
    total = sum(counts.values())
    if cut or total == 0:
        return total or None, None, None, None, cut
    nonempty = total - counts.get(0, 0)
    mean = sum(k * v for k, v in counts.items()) / nonempty if nonempty else None
    return (total, mean, counts.get(burst, 0) / total if burst else None,
            counts.get(0, 0) / total, cut)


def show_lcores(s, args):
    r = {}
    if args.interval > 0:
        a, b, dt = sample_twice(s, "lcores", args.interval)
        r = rates(a, b, dt, "lcore", ["rx_pkts", "tx_pkts", "tx_bytes", "busy_cycles",
                                      "idle_cycles"])
    lcores = s.counters("lcores") or []
    since = s.since()
    burst = s.info.get("burst")
    for x in lcores:
        busy, idle = x.get("busy_cycles"), x.get("idle_cycles")
        x["busy_pct"] = None if not is_num(busy) or not is_num(idle) or busy + idle == 0 \
            else round(100.0 * busy / (busy + idle), 2)
        bursts, mean, full, empty, cut = hist_summary(x.get("rx_burst_hist"), burst)
        x["rx_bursts"] = {"calls": bursts, "mean_pkts": None if mean is None else round(mean, 2),
                          "full_pct": None if full is None else round(100 * full, 2),
                          "empty_pct": None if empty is None else round(100 * empty, 2),
                          "truncated": cut}
        y = r.get(x.get("lcore"))
        if y is not None:
            x["rx_pps"] = round(y.get("rx_pkts", 0), 1)
            x["tx_pps"] = round(y.get("tx_pkts", 0), 1)
            b2, i2 = y.get("busy_cycles"), y.get("idle_cycles")
            x["busy_pct_now"] = None if b2 is None or i2 is None or b2 + i2 == 0 \
                else round(100.0 * b2 / (b2 + i2), 2)
    if args.json:
        return {"counters": since, "rate_interval_s": args.interval or None, "lcores": lcores}
    headers = ["Lcore", "Worker", "Rx queues", "Rx packets", "Tx packets", "Busy", "Cyc/pkt",
               "Insn/pkt", "Pkts/burst", "Full", "Empty"]
    if args.interval > 0:
        headers += ["Rx rate", "Tx rate", "Busy now"]
    rows = []
    for x in lcores:
        rb = x["rx_bursts"]
        rxq = x.get("rx_queues")
        row = [x.get("lcore"), x.get("worker"),
               ",".join(rxq) if isinstance(rxq, list) else str(rxq),
               n(x.get("rx_pkts")), n(x.get("tx_pkts")),
               "-" if x["busy_pct"] is None else f"{x['busy_pct']:.1f}%",
               fnum(x.get("cycles_per_pkt")), fnum(x.get("insn_per_pkt")),
               "?" if rb["truncated"] else fnum(rb["mean_pkts"], 1),
               "?" if rb["truncated"] else ("-" if rb["full_pct"] is None
                                            else f"{rb['full_pct']:.1f}%"),
               "?" if rb["truncated"] else ("-" if rb["empty_pct"] is None
                                            else f"{rb['empty_pct']:.1f}%")]
        if args.interval > 0:
            row += [si(x.get("rx_pps"), "pps"), si(x.get("tx_pps"), "pps"),
                    "-" if x.get("busy_pct_now") is None else f"{x['busy_pct_now']:.1f}%"]
        rows.append(row)
    out = [s.since_line(since), table(headers, rows, left=3)]
    out.append("Busy: cycles of iterations that received / all; Cyc/pkt: busy cycles per "
               "received packet; Pkts/burst: mean of the non-empty rx_burst calls, Full: "
               f"calls that returned a whole burst ({burst}), Empty: calls that returned none")
    if any(x["rx_bursts"]["truncated"] for x in lcores):
        out.append("?: rte_telemetry cut the rx_burst histogram (its strings hold 127 "
                   "characters); the JSON file (dpfwd -j) has it whole")
    why = {x.get("instructions_unavailable") for x in lcores if x.get("insn_per_pkt") is None
           and x.get("instructions_unavailable")}
    for w in sorted(why):
        out.append(f"Insn/pkt unavailable: {w}")
    if args.interval > 0:
        out.append(f"rates and Busy now over the last {args.interval:g} s")
    if args.verbose:
        for x in lcores:
            h = x.get("rx_burst_hist") or {}
            out.append(f"\nlcore {x.get('lcore')} rx_burst histogram (packets: calls): " +
                       ", ".join(f"{k}: {n(v)}" for k, v in h.items() if k != "_truncated")
                       + (" ... (cut)" if h.get("_truncated") else ""))
    return "\n".join(out)


def show_runtime(s, args):
    nodes = s.counters("nodes") or {}
    since = s.since()
    lst = []
    for name, o in nodes.items():
        if not isinstance(o, dict):
            continue
        d = {"name": name}
        d.update(o)
        lst.append(d)
    lst.sort(key=lambda d: (-(d.get("pkts") or 0), -(d.get("calls") or 0), d["name"]))
    shown = lst if args.all else [d for d in lst if d.get("pkts")]
    if args.json:
        return {"counters": since, "node_stats": bool(s.info.get("node_stats")),
                "workers": s.info.get("workers"), "nodes": shown}
    rows = [[d["name"], n(d.get("calls")), n(d.get("pkts")), fnum(d.get("cycles_per_pkt")),
             fnum(d.get("pkts_per_call"))] for d in shown]
    out = [s.since_line(since) + f"; {s.info.get('workers')} worker lcore(s), summed",
           table(["Name", "Calls", "Packets", "Cycles/pkt", "Pkts/call"], rows)]
    hidden = len(lst) - len(shown)
    if hidden:
        out.append(f"({hidden} node(s) with no packet not shown; --all shows them)")
    if not s.info.get("node_stats"):
        out.append("node_stats is off in this dpfwd: no cycles per node")
    else:
        out.append("Cycles/pkt: cycles per packet in the timed walks (one in "
                   "node_stats_sample), calls that moved no packet left out")
    return "\n".join(out)


def show_drops(s, args):
    drops = s.counters("drops") or {}
    since = s.since()
    by = drops.get("by_reason") or {}
    if args.json:
        return {"counters": since, "total": drops.get("total"),
                "consumed": drops.get("consumed"), "by_reason": by}
    items = sorted(((k, v) for k, v in by.items() if is_num(v) and (v or args.all)),
                   key=lambda kv_: (-kv_[1], kv_[0]))
    out = [s.since_line(since)]
    if not items:
        out.append("no drops")
    else:
        # total: the errors; consumed: ARP/ND learned from, then freed (not errors)
        total = drops.get("total") or 0
        consumed = drops.get("consumed") or 0
        rows = [[k, n(v), pct(v / (total + consumed)) if total + consumed else "-"]
                for k, v in items]
        rows.append(["total", n(total), ""])
        if consumed or args.all:
            rows.append(["consumed", n(consumed), ""])
        out.append(table(["Reason", "Count", "Share"], rows))
    return "\n".join(out)


def show_routes(s, args):
    fwd = s.get("routes") or {}
    ch = s.get("route_changes") or {}
    ip6 = s.get("ip6") or {}
    if args.json:
        return {"routes": fwd, "route_changes": ch,
                "ip6": {"enabled": ip6.get("enabled"), "routes": ip6.get("routes")}}
    nr, room = ch.get("ip4_routes", fwd.get("ip4_routes")), ch.get("ip4_max_routes")
    used8, room8 = ch.get("ip4_tbl8_used"), ch.get("ip4_tbl8_groups")
    pairs = [
        ("IPv4 routes", f"{n(nr)} of {n(room)} ({pct(ratio(nr, room))} of the table)"
         " (connected and local routes of the ports included)"),
        ("IPv4 tbl8 groups", f"{n(used8)} used of {n(room8)}"),
        ("IPv4 adjacencies", f"{n(fwd.get('ip4_adjacencies'))} (added "
         f"{n(ch.get('ip4_adjacencies_added'))}, removed {n(ch.get('ip4_adjacencies_removed'))})"),
        ("IPv6", f"{n(ip6.get('routes'))} routes" if ip6.get("enabled") else "off"),
        ("changes", f"added {n(ch.get('added'))}, deleted {n(ch.get('deleted'))}, reloads "
         f"{n(ch.get('reloads'))} ({n(ch.get('reload_errors'))} failed), table copies "
         f"{n(ch.get('copies'))}"),
        ("last reload / copy", f"{fnum(ch.get('last_reload_seconds'), 3)} s / "
         f"{fnum(ch.get('last_copy_seconds'), 3)} s"),
    ]
    out = [kv(pairs)]
    nhs = fwd.get("next_hops") or []
    rows = []
    for h in nhs:
        if not isinstance(h, dict):
            continue
        kind = "local" if h.get("local") else ("gateway" if h.get("gateway") not in
                                               (None, "0.0.0.0") else "connected")
        rows.append([h.get("index"), h.get("gateway"), h.get("port_name", h.get("port")), kind,
                     "yes" if h.get("resolved") else "no",
                     h.get("mac") if h.get("resolved") else "-"])
    out.append(f"\nNext hops: {n(fwd.get('next_hops_total'))}"
               + (f" (first {len(nhs)} shown)" if fwd.get("next_hops_total", 0) > len(nhs)
                  else ""))
    out.append(table(["Index", "Gateway", "Port", "Kind", "Resolved", "MAC"], rows,
                     align="rlrlll"))
    out.append("(dpfwd exports no list of its prefixes: counts and next hops only)")
    return "\n".join(out)


def show_neighbors(s, args):
    nb = s.get("neighbors") or {}
    if args.json:
        return nb
    pairs = [("entries", f"{n(nb.get('entries'))} of {n(nb.get('max'))}"),
             ("created / resolved / failed",
              f"{n(nb.get('created'))} / {n(nb.get('resolved'))} / {n(nb.get('failed'))}"),
             ("solicitations", n(nb.get("solicitations"))),
             ("learned", n(nb.get("learned"))),
             ("packets held / released", f"{n(nb.get('held'))} / {n(nb.get('released'))}")]
    rows = []
    for e in nb.get("neighbors") or []:
        if not isinstance(e, dict):
            continue
        rows.append([e.get("ip", "?"), e.get("port_name") or n(e.get("port")),
                     e.get("state", "?"),
                     e.get("mac") or "-", n(e.get("held")),
                     "-" if e.get("age_ms") is None else fmt_duration(e["age_ms"] / 1000),
                     n(e.get("next_hop")) + ("  (cut)" if e.get("_truncated") else "")])
    out = [kv(pairs), "", table(["Address", "Port", "State", "MAC", "Held", "Age",
                                 "Next hop"], rows, align="lrllrrr") if rows else "no neighbors"]
    return "\n".join(out)


def show_relay(s, args):
    r = s.get("relay") or {}
    svcs = [x for x in r.get("services") or [] if isinstance(x, dict)]
    workers = [x for x in r.get("workers") or [] if isinstance(x, dict)]
    tot = r.get("total") or {}
    notes = []
    for i, x in enumerate(workers):
        x.setdefault("worker", i)       # the last key: the first one cut
    if len(workers) == 1 and workers[0].get("_truncated"):
        # one worker: its figures are the total's
        workers[0] = dict(tot, worker=workers[0]["worker"], _from_total=True)
        notes.append("(the worker's figures were cut by rte_telemetry's 127-character "
                     "strings; with one worker they are the total's)")
    elif any(x.get("_truncated") for x in workers):
        notes.append("-: cut by rte_telemetry's 127-character strings (the JSON file, "
                     "dpfwd -j, has them whole)")
    if args.json:
        return {"services": svcs, "workers": workers, "total": tot}
    out = []
    if not svcs:
        out.append("no relay service configured ([relayN] sections)")
    else:
        rows = []
        for x in svcs:
            be = x.get("backends")
            rows.append([x.get("section", "?"), x.get("listen", "?"), x.get("source", "?"),
                         x.get("ports", "?"),
                         ",".join(be) if isinstance(be, list) else (be or "?"),
                         n(x.get("sessions_per_worker")), n(x.get("timeout_s"))])
        out.append(table(["Service", "Listen", "Source", "Ports", "Backends",
                          "Sessions/worker", "Timeout s"], rows, left=5))
        if any(x.get("_truncated") for x in svcs):
            out.append("(services cut by rte_telemetry's 127-character strings: - is what "
                       "was lost)\n")
    keys = ["sessions_active", "created", "expired", "evicted", "handoffs", "handoffs_in",
            "pkts_to_backend", "pkts_to_client"]
    heads = ["Active", "Created", "Expired", "Evicted", "Handoffs", "Handoffs in",
             "To backend", "To client"]
    rows = [[f"worker {x.get('worker', '?')}"] + [n(x.get(k)) for k in keys] for x in workers]
    rows.append(["total"] + [n(tot.get(k)) for k in keys])
    out.append(table([""] + heads, rows))
    return "\n".join(out + notes)


def show_endpoints(s, args):
    st = s.get("endpoint_stats")
    lst = s.get("endpoint_list")
    if st is None and lst is None:
        if args.json:
            return {"enabled": False}
        return "endpoints are not enabled in this dpfwd (no [endpoint] section in its config)"
    lst = lst if isinstance(lst, list) else []
    if args.json:
        return {"enabled": True, "stats": st, "endpoints": lst}
    if st is None:
        # dpfwd registers it with a help text over rte_telemetry's 127 characters:
        # refused, and the refusal taken for "registered already"
        pairs = [("totals", "- (this dpfwd does not answer /dpfwd/endpoint/stats)")]
    else:
        pairs = []
        for k, v in st.items():
            if isinstance(v, dict):
                v = ", ".join(f"{a} {n(b)}" for a, b in v.items() if not isinstance(b, dict)
                              and a != "_truncated") + (" ..." if v.get("_truncated") else "")
            pairs.append((k, v if isinstance(v, str) else n(v)))
    rows = []
    for e in lst:
        dp = e.get("datapath") if isinstance(e.get("datapath"), dict) else {}
        rows.append([e.get("id", "?"), e.get("pid", "?"), e.get("family", "?"),
                     e.get("bound") or "-", n(e.get("channels")),
                     n(dp.get("worker")), n(dp.get("tx_msgs")), si(dp.get("tx_bytes"), "B"),
                     n(dp.get("rx_msgs")), si(dp.get("rx_bytes"), "B"), n(dp.get("rx_dropped")),
                     n(e.get("tx_bufs_in_use")), n(e.get("rx_bufs_in_use"))])
    out = [kv(pairs), ""]
    out.append(table(["Id", "Pid", "Family", "Bound", "Channels", "Worker", "Tx msgs",
                      "Tx bytes", "Rx msgs", "Rx bytes", "Rx dropped", "Tx bufs",
                      "Rx bufs"], rows, left=0) if rows else "no endpoint connected")
    return "\n".join(out)


def show_pools(s, args):
    pools = s.get("pools") or []
    if args.json:
        return {"pools": pools}
    rows = []
    for p in pools:
        size, used = p.get("size"), p.get("in_use")
        rows.append([p.get("name"), n(p.get("socket")), n(size), n(p.get("elt_size")),
                     n(p.get("cache_size")), p.get("ops"), n(used), pct(ratio(used, size)),
                     n(p.get("available")), n(p.get("in_caches")),
                     n(p.get("in_use_baseline"))])
    out = [table(["Pool", "Socket", "Size", "Elt bytes", "Cache", "Ops", "In use", "Used",
                  "Available", "In caches", "Baseline"], rows, align="lrrrrlrrrrr")]
    out.append("Baseline: in use once the ports started (RX rings); mbufs over baseline: "
               f"{n(s.info.get('mbufs_over_baseline'))}")
    return "\n".join(out)


DELAY_KEYS = ["count", "mean_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns",
              "jitter_ns"]


def show_delay(s, args):
    d = s.get("delay") or {}
    lcores = s.get("lcores") or []
    total = d.get("total") or {}
    per = [x if isinstance(x, dict) else {} for x in d.get("lcores") or []]
    notes = []
    whole = {k: v for k, v in total.items() if not k.startswith("buckets")}
    for i, x in enumerate(per):
        # a worker that sent every packet has the total's histogram: its figures are
        # the total's (rte_telemetry cuts each worker's to 127 characters)
        if x.get("_truncated") and x.get("count") and x.get("count") == total.get("count"):
            per[i] = dict(whole, _from_total=True)
            notes.append(f"(worker {i}'s figures were cut by rte_telemetry's 127-character "
                         "strings; it sent every packet, so they are the total's)")
    if any(x.get("_truncated") for x in per):
        notes.append("?: cut by rte_telemetry's 127-character strings (the JSON file, "
                     "dpfwd -j, has them whole)")
    for i, x in enumerate(per):
        if "lcore" not in x and i < len(lcores) and isinstance(lcores[i], dict):
            x["lcore"] = lcores[i].get("lcore")
    if args.json:
        return {"enabled": d.get("enabled"), "from": d.get("from"),
                "sample": d.get("sample"), "total": total, "lcores": per}

    def row(label, x):
        cut = x.get("_truncated")
        return [label] + [(n(x.get(k)) if k == "count" else fmt_ns(x.get(k)))
                          if k in x else ("?" if cut else "-") for k in DELAY_KEYS]
    rows = [row(f"lcore {x.get('lcore', '?')}", x) for x in per]
    rows.append(row("total", total))
    out = [f"Per-packet delay ({d.get('from', '?')}), since dpfwd started "
           "(`clear` does not reset it)"]
    if not d.get("enabled"):
        out.append("delay statistics are off in this dpfwd")
    elif (d.get("sample") or 1) > 1:
        out.append(f"one full TX burst in {d['sample']} timed, its packets counted "
                   f"{d['sample']} times each; partial bursts all: estimates of every packet")
    out.append(table(["", "Packets", "Mean", "p50", "p90", "p99", "p99.9", "Max", "Jitter"],
                     rows))
    out += notes
    return "\n".join(out)


def show_ctl(s, args):
    c = s.get("ctl") or {}
    if args.json:
        return c
    pairs = []
    for k, v in c.items():
        if isinstance(v, dict):
            pairs.append((k, ", ".join(f"{a} {n(b)}" for a, b in v.items())))
        else:
            pairs.append((k, n(v)))
    return "Control lcore (ARP, ND, held packets, injected replies)\n" + kv(pairs, "  ")


def show_linux(s, args):
    lx = s.get("linux")
    if args.json:
        return lx or {"enabled": False}
    if not lx:
        return "Linux control plane: off ([linux] enabled = on)"
    mirrors = ", ".join(f"port {m['port']} {m['name']} (ifindex {m['ifindex']}"
                        f"{'' if m['up'] else ', down'})" for m in lx.get("mirrors") or [])
    pairs = [
        ("mirrors", mirrors or "none"),
        ("exception path", f"punted {n(lx.get('punted'))}, injected {n(lx.get('injected'))}, "
         f"neighbor replies copied {n(lx.get('neigh_copied'))}, mirror full "
         f"{n(lx.get('tap_full'))}"),
        ("netlink", f"messages {n(lx.get('netlink_messages'))}, dumps {n(lx.get('dumps'))}, "
         f"resyncs {n(lx.get('resyncs'))}, mirror link changes {n(lx.get('link_changes'))}"),
        ("routes", f"added {n(lx.get('routes_added'))}, deleted {n(lx.get('routes_deleted'))}, "
         f"unchanged {n(lx.get('routes_unchanged'))}, refused {n(lx.get('route_errors'))}"),
        ("routes not copied", f"other interfaces {n(lx.get('routes_other_if'))}, kernel's "
         f"{n(lx.get('routes_skipped'))}, config's prefix {n(lx.get('routes_config'))}, "
         f"unsupported {n(lx.get('routes_unsupported'))}"),
        ("neighbors learned", n(lx.get("neigh_learned"))),
    ]
    return "Linux control plane (TAP mirrors, netlink routes)\n" + kv(pairs, "  ")


def show_icmp(s, args):
    v4 = s.get("icmp4") or {}
    ip6 = s.get("ip6") or {}
    if args.json:
        return {"icmp4": v4, "icmp6": ip6.get("icmp6"), "nd": ip6.get("nd"),
                "ip6_ports": ip6.get("ports")}
    keys = ["echo_replies", "errors", "errors_sent", "rate", "burst"]
    i6 = ip6.get("icmp6") or {}
    rows = [["ICMPv4"] + [n(v4.get(k)) for k in keys],
            ["ICMPv6"] + [n(i6.get(k)) for k in keys]]
    out = [table(["", "Echo replies", "Errors", "Errors sent", "Rate/s", "Burst"], rows)]
    nd = ip6.get("nd") or {}
    out.append("ND: " + ", ".join(f"{k} {n(v)}" for k, v in nd.items()))
    return "\n".join(out)


def show_graph(s, args):
    """The graph a worker runs: its nodes, their edges and packets; --dot: Graphviz."""
    reply = s.tel.get("/dpfwd/graph/graph," + str(args.worker))
    reply = normalize(reply) if reply is not None else None
    if not isinstance(reply, dict):
        raise SystemExit(f"{PROG}: show graph: this dpfwd does not know /dpfwd/graph/graph")
    if not reply.get("ok"):
        raise SystemExit(f"{PROG}: show graph: {reply.get('error') or 'refused'}")
    if args.dot:
        return "\n".join(reply.get("dot") or [])
    nodes = reply.get("nodes") or []
    for d in nodes:
        d.setdefault("edges", [])      # an empty list does not survive rte_telemetry
    if args.json:
        return {"worker": reply.get("worker"), "lcore": reply.get("lcore"),
                "graph": reply.get("graph"), "nodes": nodes}
    rows = [[d["name"], n(d.get("pkts")), ", ".join(d.get("edges") or []) or "-"]
            for d in nodes]
    return "\n".join([f"graph {reply.get('graph')} (worker {reply.get('worker')}, "
                      f"lcore {reply.get('lcore')}): {len(nodes)} nodes",
                      table(["Node", "Packets", "Edges (next nodes)"], rows)])


SHOWS = {
    # name: (function, aliases, help, source commands)
    "info": (show_info, [], "the running dpfwd: pid, uptime, DPDK, config, options",
             "/dpfwd/run/info, /eal/params"),
    "ports": (show_ports, ["interfaces", "int"],
              "per port: name, driver, link, rx/tx packets and bytes, imissed, rx_nombuf, "
              "errors, rates", "/dpfwd/port/stats"),
    "lcores": (show_lcores, ["workers", "threads"],
               "per worker lcore: packets, busy %, cycles/packet, instructions/packet, "
               "rx burst sizes, rates", "/dpfwd/graph/lcores"),
    "runtime": (show_runtime, ["nodes", "run"],
                "per graph node (VPP's show runtime): calls, packets, cycles/packet, "
                "packets/call", "/dpfwd/graph/nodes"),
    "drops": (show_drops, ["errors"], "drop reasons that counted (VPP's show errors)",
              "/dpfwd/graph/drops"),
    "routes": (show_routes, ["fib", "route"],
               "route counts and table room, changes, next hops",
               "/dpfwd/fwd/routes, /dpfwd/fwd/route_changes, /dpfwd/fwd/ip6"),
    "neighbors": (show_neighbors, ["neighbours", "neigh", "arp"],
                  "neighbor table (ARP, ND): states, MACs, held packets",
                  "/dpfwd/fwd/neighbors"),
    "relay": (show_relay, [], "UDP relay: services, sessions and packets per worker",
              "/dpfwd/relay/stats"),
    "endpoints": (show_endpoints, ["endpoint"], "dpsock endpoints: totals and each endpoint",
                  "/dpfwd/endpoint/stats, /dpfwd/endpoint/list"),
    "pools": (show_pools, ["mempools", "buffers"], "packet pools: size, in use, in caches",
              "/dpfwd/mem/pools"),
    "delay": (show_delay, ["latency"],
              "per-packet delay through dpfwd: p50/p90/p99/p99.9/max per lcore and total",
              "/dpfwd/graph/delay"),
    "graph": (show_graph, [], "the graph a worker runs: nodes, edges, packets "
              "(--dot: Graphviz)", "/dpfwd/graph/graph"),
    "ctl": (show_ctl, ["control"], "control lcore: punted and injected packets",
            "/dpfwd/ctl/stats"),
    "icmp": (show_icmp, ["icmp4", "icmp6", "nd"], "ICMPv4/ICMPv6 replies and errors, ND",
             "/dpfwd/fwd/icmp4, /dpfwd/fwd/ip6"),
    "linux": (show_linux, ["linuxcp", "lcp"],
              "Linux control plane: TAP mirrors, punted and injected frames, netlink routes",
              "/dpfwd/linux/stats"),
}


# --------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------

def emit(args, data):
    if args.json:
        json.dump(data, sys.stdout, indent=2 if sys.stdout.isatty() else None)
        sys.stdout.write("\n")
    elif data is not None:
        print(data)


def say_notes(s, args):
    for m in s.notes:
        if args.json:
            print(f"{PROG}: {m}", file=sys.stderr)
        else:
            print(f"note: {m}")


def cmd_show(s, args):
    fn = SHOWS[args.what][0]
    data = fn(s, args)
    say_notes(s, args)
    emit(args, data)
    return EXIT_OK


def action(s, args, command, params, label):
    full = command + ("," + params if params else "")
    reply = s.tel.get(full)
    if not isinstance(reply, dict):
        print(f"{PROG}: {label}: this dpfwd does not know {command}", file=sys.stderr)
        return EXIT_REFUSED
    reply = normalize(reply)
    ok = bool(reply.get("ok"))
    if args.json:
        emit(args, reply)
    elif ok:
        extra = []
        if "ip4_routes" in reply:
            extra.append(f"{n(reply['ip4_routes'])} IPv4 routes")
        if is_num(reply.get("seconds")):
            extra.append(f"in {reply['seconds']:.3f} s")
        print("ok" + (f" ({', '.join(extra)})" if extra else ""))
    if not ok:
        print(f"{PROG}: {label}: {reply.get('error') or 'refused'}", file=sys.stderr)
        return EXIT_REFUSED
    return EXIT_OK


def route_list(s, args):
    """route list [PREFIX]: the table as route file lines (dpfwd gives the first 200;
    each family separately, IPv4 unless PREFIX is IPv6)."""
    prefix = args.prefix or ""
    reply = s.tel.get("/dpfwd/route/list" + ("," + prefix if prefix else ""))
    if not isinstance(reply, dict):
        print(f"{PROG}: route list: this dpfwd does not know /dpfwd/route/list",
              file=sys.stderr)
        return EXIT_REFUSED
    reply = normalize(reply)
    if not reply.get("ok"):
        print(f"{PROG}: route list: {reply.get('error') or 'refused'}", file=sys.stderr)
        return EXIT_REFUSED
    if args.json:
        emit(args, reply)
        return EXIT_OK
    for line in reply.get("routes") or []:
        print(line)
    total, shown = reply.get("routes_in_prefix", 0), reply.get("shown", 0)
    if reply.get("truncated"):
        print(f"# {n(shown)} of {n(total)} routes shown: ask for a narrower prefix")
    else:
        print(f"# {n(total)} routes" + (f" in {prefix}" if prefix else ""))
    # each ECMP group the routes name: its next hops, weights, live or down
    for line in reply.get("groups") or []:
        print(f"# {line}")
    return EXIT_OK


def cmd_route(s, args):
    if args.route_cmd == "list":
        return route_list(s, args)
    if args.route_cmd == "add":
        text = " ".join(args.text).strip()
        return action(s, args, "/dpfwd/route/add", text, f"route add {text}")
    if args.route_cmd == "del":
        return action(s, args, "/dpfwd/route/del", args.prefix, f"route del {args.prefix}")
    path = args.path or ""
    if path and os.path.exists(path):
        path = os.path.abspath(path)    # dpfwd's working folder is not ours
    return action(s, args, "/dpfwd/route/reload", path,
                  "route reload" + (f" {path}" if path else ""))


def cmd_clear(s, args):
    path = snapshot_path(s.prefix)
    if args.undo:
        try:
            os.unlink(path)
            msg, removed = "snapshot removed: counters are since dpfwd started again", True
        except FileNotFoundError:
            msg, removed = "no snapshot: counters are since dpfwd started", False
        except OSError as e:
            raise DpctlError(f"cannot remove {path}: {e.strerror}")
        emit(args, {"removed": removed, "file": path} if args.json else msg)
        return EXIT_OK
    snap = {"version": SNAPSHOT_VERSION, "time_unix": time.time(), "socket": s.path,
            "prefix": s.prefix, "identity": s.identity()}
    for section in CLEARED:
        v = s.get(section)
        if v is not None:
            snap[section] = v
    try:
        os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            json.dump(snap, f)
        os.replace(tmp, path)
    except OSError as e:
        raise DpctlError(f"cannot write the snapshot {path}: {e.strerror or e}")
    if args.json:
        emit(args, {"cleared": list(k for k in CLEARED if k in snap), "file": path,
                    "time_unix": snap["time_unix"], "time": fmt_time(snap["time_unix"])})
    else:
        print(f"counters cleared at {fmt_time(snap['time_unix'])}: ports, lcores, runtime "
              f"(nodes), drops (snapshot {path}; `dpctl clear --undo` removes it)")
    return EXIT_OK


def cmd_raw(s, args):
    command = args.command
    if args.params:
        command += "," + " ".join(args.params)
    reply = s.tel.call(command)
    value = reply.get(command.split(",", 1)[0]) if isinstance(reply, dict) else None
    if args.decode:
        reply = {k: normalize(v) for k, v in reply.items()} if isinstance(reply, dict) \
            else reply
    json.dump(reply, sys.stdout, indent=None if args.json and not sys.stdout.isatty() else 2)
    sys.stdout.write("\n")
    if value is None:
        print(f"{PROG}: {command.split(',', 1)[0]}: unknown command (or no data); "
              "`dpctl raw /` lists the commands", file=sys.stderr)
        return EXIT_REFUSED
    return EXIT_OK


def cmd_list(args):
    found, others, dead = scan(args.timeout)
    rows = []
    data = []
    for path, tel, info in found:
        _, up = proc_start(tel.pid)
        data.append({"file_prefix": prefix_of(path), "socket": path, "pid": tel.pid,
                     "dpfwd": True, "config": info.get("config"),
                     "workers": info.get("workers"), "uptime_s": up})
        rows.append([prefix_of(path), tel.pid, "dpfwd", fmt_duration(up), info.get("config")])
        tel.close()
    for path, what in others:
        data.append({"file_prefix": prefix_of(path), "socket": path, "dpfwd": False,
                     "what": what})
        rows.append([prefix_of(path), "", "not dpfwd", "", what])
    if args.json:
        emit(args, data)
    elif rows:
        print(table(["Prefix", "Pid", "Process", "Uptime", "Config"], rows, align="lrlrl"))
    else:
        print("no dpfwd runs (no live telemetry socket in "
              + " or ".join(dpdk_runtime_dirs()) + ")")
    if args.verbose:
        for path, why in dead:
            print(f"stale: {path} ({why})", file=sys.stderr)
    return EXIT_OK


# --------------------------------------------------------------------------
# capture (docs/capture.md)
# --------------------------------------------------------------------------

def capture_call(s, command, params=None):
    """The reply of a /dpfwd/capture/ action, normalized; None when dpfwd does not know it."""
    reply = s.tel.get(command + ("," + params if params else ""))
    return normalize(reply) if isinstance(reply, dict) else None


def capture_summary(r):
    lost = r.get("lost", 0)
    text = (f"{r.get('written', 0)} packets written to {r.get('file')}, {lost} lost")
    if lost:
        text += (f" (ring full {r.get('lost_ring_full', 0)}, pool empty "
                 f"{r.get('lost_pool_empty', 0)})")
    return text + f"; stopped by {r.get('stopped_by') or '?'}"


def cmd_capture(s, args):
    if args.stop:
        r = capture_call(s, "/dpfwd/capture/stop")
        if r is None:
            print(f"{PROG}: capture: this dpfwd does not know /dpfwd/capture/stop",
                  file=sys.stderr)
            return EXIT_REFUSED
        if args.json:
            emit(args, r)
        if not r.get("ok"):
            print(f"{PROG}: capture --stop: {r.get('error') or 'refused'}", file=sys.stderr)
            return EXIT_REFUSED
        if not args.json:
            print(capture_summary(r))
        return EXIT_OK
    if not args.write:
        print(f"{PROG}: capture: -w FILE.pcapng (or -w - for stdout) is needed",
              file=sys.stderr)
        return EXIT_USAGE
    if args.port is None:
        print(f"{PROG}: capture: PORT (a port number, or all) is needed", file=sys.stderr)
        return EXIT_USAGE
    if args.port != "all" and not args.port.isdigit():
        print(f"{PROG}: capture: port {args.port}: a port number or all", file=sys.stderr)
        return EXIT_USAGE
    stream = args.write == "-"
    tmpdir = None
    if stream:
        # dpfwd writes a file that dpctl follows to stdout, then removes: dpfwd's control
        # lcore never waits for a slow reader
        tmpdir = tempfile.mkdtemp(prefix="dpctl-capture-")
        os.chmod(tmpdir, 0o755)
        path = os.path.join(tmpdir, "capture.pcapng")
    else:
        path = os.path.abspath(args.write)
    req = {"port": "all" if args.port == "all" else int(args.port), "dir": args.dir,
           "file": path}
    if args.filter:
        req["filter"] = args.filter
    for key, v in (("count", args.count), ("seconds", args.duration),
                   ("snaplen", args.snaplen)):
        if v is not None:
            if v < 0:
                print(f"{PROG}: capture: {key} {v}: >= 0", file=sys.stderr)
                return EXIT_USAGE
            req[key] = v
    try:
        return capture_run(s, args, req, path, stream)
    finally:
        if tmpdir:
            shutil.rmtree(tmpdir, ignore_errors=True)


def capture_run(s, args, req, path, stream):
    r = capture_call(s, "/dpfwd/capture/start", json.dumps(req, separators=(",", ":")))
    if r is None:
        print(f"{PROG}: capture: this dpfwd does not know /dpfwd/capture/start",
              file=sys.stderr)
        return EXIT_REFUSED
    if not r.get("ok"):
        print(f"{PROG}: capture: {r.get('error') or 'refused'}", file=sys.stderr)
        return EXIT_USAGE if r.get("usage") else EXIT_REFUSED
    print(f"capturing to {'stdout' if stream else path}: filter run as "
          f"{r.get('filter_mode')}, snaplen {r.get('snaplen')}", file=sys.stderr)
    src = open(path, "rb") if stream else None
    out = sys.stdout.buffer if stream else None

    def pump():
        if src is not None:
            while True:
                b = src.read(1 << 16)
                if not b:
                    break
                out.write(b)
            out.flush()

    final = None
    gone = False
    # SIGTERM as SIGINT: either stops the capture and leaves a complete file
    old_term = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        while True:
            pump()
            try:
                st = capture_call(s, "/dpfwd/capture/status")
            except (DpctlError, OSError):
                # dpfwd stopped: it completed the file as it exited
                gone = True
                break
            if st is None or st.get("state") != "running" or st.get("file") != path:
                final = st
                break
            time.sleep(0.05)
    except (KeyboardInterrupt, BrokenPipeError) as e:
        # Ctrl-C, or the reader of stdout went away (tshark -c N): stop the capture. The
        # socket may be mid-reply: a new connection asks dpfwd to stop
        s.tel.close()
        s.tel = Telemetry(s.path, args.timeout)
        final = capture_call(s, "/dpfwd/capture/stop")
        if final is not None and not final.get("ok"):
            final = capture_call(s, "/dpfwd/capture/status")
        if isinstance(e, BrokenPipeError):
            src.close()
            # stdout is gone: nothing more to print there, Python must not flush it
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return EXIT_OK
    finally:
        signal.signal(signal.SIGTERM, old_term)
    pump()
    if src is not None:
        src.close()
    if gone:
        print(f"{PROG}: capture: dpfwd stopped during the capture; "
              f"{'stdout' if stream else path} holds what it wrote", file=sys.stderr)
        return EXIT_REFUSED
    if final is None:
        print(f"{PROG}: capture: no status from dpfwd", file=sys.stderr)
        return EXIT_REFUSED
    if args.json:
        print(json.dumps(final), file=sys.stderr if stream else sys.stdout)
    else:
        print(capture_summary(final), file=sys.stderr)
    return EXIT_REFUSED if str(final.get("stopped_by", "")).startswith("error") else EXIT_OK


# --------------------------------------------------------------------------
# trace (docs/capture.md#trace)
# --------------------------------------------------------------------------

def trace_records(s):
    """Every record of /dpfwd/trace/show (it answers a page at a time) and the last reply."""
    recs, last, start = [], None, 0
    while True:
        r = capture_call(s, "/dpfwd/trace/show", str(start))
        if r is None or not r.get("ok"):
            return None, r
        page = r.get("records") or []
        if isinstance(page, dict):
            page = normalize(page)
        recs += page
        last = r
        if not page or len(recs) >= r.get("total", 0):
            return recs, last
        start = r.get("next", start + len(page))


def trace_parse(recs):
    """Records grouped by packet: [{"packet", "port", "lcore", "nodes": [...]}]."""
    packets = []
    for line in recs:
        pid, lcore, port, ns, node, text = (line.split(" ", 5) + [""])[:6]
        if not packets or packets[-1]["packet"] != int(pid):
            packets.append({"packet": int(pid), "port": int(port), "lcore": int(lcore),
                            "nodes": []})
        packets[-1]["nodes"].append({"ns": int(ns), "lcore": int(lcore), "node": node,
                                     "text": text})
    return packets


def cmd_trace(s, args):
    if args.trace_cmd == "add":
        if args.count < 1:
            print(f"{PROG}: trace add: COUNT {args.count}: at least 1", file=sys.stderr)
            return EXIT_USAGE
        req = {"count": args.count}
        if args.port is not None:
            if args.port != "all" and not args.port.isdigit():
                print(f"{PROG}: trace add: --port {args.port}: a port number or all",
                      file=sys.stderr)
                return EXIT_USAGE
            req["port"] = "all" if args.port == "all" else int(args.port)
        if args.filter:
            req["filter"] = args.filter
        r = capture_call(s, "/dpfwd/trace/add", json.dumps(req, separators=(",", ":")))
    elif args.trace_cmd == "clear":
        r = capture_call(s, "/dpfwd/trace/clear")
    else:
        recs, r = trace_records(s)
        if recs is not None:
            packets = trace_parse(recs)
            if args.json:
                emit(args, {"packets": packets, "armed": bool(r.get("armed")),
                            "marked": r.get("marked", 0),
                            "records_lost": r.get("records_lost", 0)})
                return EXIT_OK
            for p in packets:
                print(f"Packet {p['packet'] + 1} (port {p['port']}, lcore {p['lcore']})")
                for n in p["nodes"]:
                    lc = f" [lcore {n['lcore']}]" if n["lcore"] != p["lcore"] else ""
                    print(f"  +{n['ns']:<9} {n['node']:<16} {n['text']}{lc}")
                print()
            if not packets:
                print("no packet traced" + (" yet (armed)" if r.get("armed") else ""))
            if r.get("records_lost"):
                print(f"{r['records_lost']} records lost: the buffers were full",
                      file=sys.stderr)
            return EXIT_OK
    if r is None:
        print(f"{PROG}: trace: this dpfwd does not know /dpfwd/trace/{args.trace_cmd}",
              file=sys.stderr)
        return EXIT_REFUSED
    if not r.get("ok"):
        print(f"{PROG}: trace {args.trace_cmd}: {r.get('error') or 'refused'}",
              file=sys.stderr)
        return EXIT_USAGE if r.get("usage") else EXIT_REFUSED
    if args.json:
        emit(args, r)
    elif args.trace_cmd == "add":
        print(f"tracing the next {r.get('count')} packets (filter run as "
              f"{r.get('filter_mode')}); dpctl trace show prints them")
    return EXIT_OK


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------

DESCRIPTION = """\
dpctl: look at and steer a running dpfwd over DPDK's telemetry socket.

Commands:
  show WHAT     counters and state as tables (dpctl show --help lists WHAT)
  route add ROUTE...   add an IPv4/IPv6 route, e.g. 198.19.0.0/16 via 198.18.101.2 port 1
                       (ECMP: ... via A port 1 weight 1 via B port 2 weight 3)
  route del PREFIX     delete a route, e.g. 198.19.0.0/16
  route reload [FILE]  read the config's routes again (or FILE's); the table stays on error
  capture PORT|all -w FILE.pcapng [--rx|--tx|--both] [-f FILTER] [-c N] [-d S] [-s LEN]
                capture packets to pcapng (-w - : to stdout); capture --stop ends it
  trace add COUNT [--port P] [-f FILTER]   trace the next COUNT packets through the graph
  trace show | trace clear                 print the traces (VPP-style) | forget them
  clear         zero the counters of show ports/lcores/runtime/drops (a snapshot, see below)
  clear --undo  forget the snapshot: counters since dpfwd started again
  list          the DPDK processes with a telemetry socket here, and which are dpfwd
  raw CMD [PARAMS...]  send any telemetry command (/ lists them, /help,CMD explains one)

Which dpfwd: --file-prefix PREFIX (the EAL option it runs with; DPDK's default is rte) or
--socket PATH; without either, the only dpfwd whose socket is in /var/run/dpdk/*/
(and $XDG_RUNTIME_DIR/dpdk/* for a user that is not root).

Counters are dpfwd's, monotonic since it started.  `clear` saves them to
/run/dpctl/PREFIX.json ($XDG_RUNTIME_DIR/dpctl/ when not root, DPCTL_STATE_DIR to
choose); show prints them minus that snapshot ("since clear at ...") until dpfwd
restarts (another pid, or counters lower than the snapshot: then it says so and
ignores it).

--json prints the data (after the snapshot is subtracted) as JSON on stdout, nothing
else; notes go to stderr.

Exit status: 0 ok; 1 dpfwd refused the command (its error on stderr) or does not know
it; 2 bad usage, or dpfwd not found / not reachable.
"""

SHOW_DESCRIPTION = "show WHAT: one of\n\n" + "\n".join(
    textwrap.fill(f"{h} ({src}{'; also: ' + ', '.join(al) if al else ''})", 86,
                  initial_indent=f"  {name:<10} ", subsequent_indent=" " * 13)
    for name, (_, al, h, src) in SHOWS.items()) + """

Counter shows (ports, lcores, runtime, drops) count since the last `dpctl clear`, or
since dpfwd started, and say which on their first line.  ports and lcores read dpfwd
twice, --interval apart (default 0.2 s), for rates; --interval 0 skips that.
Human output sorts and hides: runtime and drops show what counted, --all everything.
"""


def version_text():
    """dpctl --version: its version and the Python running it."""
    v = VERSION
    if v is None:
        build = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                             "meson.build")
        try:
            with open(build) as f:
                m = re.search(r"^project\('dpfwd'.*?version: '([^']+)'", f.read(), re.S | re.M)
            v = m.group(1) if m else "unknown"
        except OSError:
            v = "unknown"
    return (f"{PROG} {v}\nPython {sys.version.split()[0]}; talks to dpfwd over DPDK "
            f"telemetry v2 (the socket names its DPDK: dpctl show info)")


def common_options(defaults):
    """Options accepted before or after the command.  defaults=False: SUPPRESS, so that
    the subcommand's copy does not overwrite the main parser's value."""
    p = argparse.ArgumentParser(add_help=False)
    d = (lambda v: v) if defaults else (lambda v: argparse.SUPPRESS)
    p.add_argument("--file-prefix", metavar="PREFIX", default=d(None),
                   help="the dpfwd started with EAL option --file-prefix PREFIX")
    p.add_argument("--socket", metavar="PATH", default=d(None),
                   help="the dpfwd whose telemetry socket is PATH")
    p.add_argument("--json", action="store_true", default=d(False),
                   help="print JSON for scripts (nothing else on stdout)")
    p.add_argument("--timeout", type=float, metavar="S", default=d(5.0),
                   help="seconds to wait for an answer (default 5)")
    p.add_argument("-v", "--verbose", action="store_true", default=d(False),
                   help="more detail (every port field, burst histograms)")
    return p


def build_parser():
    top = common_options(True)
    sub_common = common_options(False)
    fmt = argparse.RawDescriptionHelpFormatter
    ap = argparse.ArgumentParser(prog=PROG, description=DESCRIPTION, formatter_class=fmt,
                                 parents=[top])
    ap.add_argument("-V", "--version", action="version", version=version_text())
    cmds = ap.add_subparsers(dest="cmd", metavar="COMMAND")
    cmds.required = True

    show = cmds.add_parser("show", help="show counters and state (show --help lists them)",
                           description=SHOW_DESCRIPTION, formatter_class=fmt,
                           parents=[sub_common])
    whats = show.add_subparsers(dest="what", metavar="WHAT")
    whats.required = True
    for name, (_, aliases, h, src) in SHOWS.items():
        w = whats.add_parser(name, aliases=aliases, help=h.replace("%", "%%"),
                             parents=[sub_common],
                             description=f"show {name}: {h}.  From {src}.")
        w.set_defaults(what=name)
        if name in ("runtime", "drops"):
            w.add_argument("-a", "--all", action="store_true",
                           help="also what counted nothing")
        if name == "graph":
            w.add_argument("--dot", action="store_true",
                           help="print the graph as Graphviz dot (rte_graph_export)")
            w.add_argument("-w", "--worker", type=int, default=0, metavar="N",
                           help="the worker's index (default 0)")
        if name in ("ports", "lcores"):
            w.add_argument("-i", "--interval", type=float, default=DEFAULT_INTERVAL,
                           metavar="S", help="seconds between the two reads that make "
                           f"rates (default {DEFAULT_INTERVAL}; 0: no rates)")

    route = cmds.add_parser("route", help="list, add, delete or reload routes",
                            description="Change routes while dpfwd forwards; prints ok or "
                            "dpfwd's error (exit 1).", parents=[sub_common])
    rc = route.add_subparsers(dest="route_cmd", metavar="ACTION")
    rc.required = True
    a = rc.add_parser("add", parents=[sub_common], help="add a route",
                      description="route add PREFIX [via GATEWAY] port N, e.g. "
                      "`dpctl route add 198.19.0.0/16 via 198.18.101.2 port 1` or "
                      "`dpctl route add 2001:db8:9::/48 via 2001:db8:101::2 port 1`")
    a.add_argument("text", nargs="+", metavar="ROUTE")
    d = rc.add_parser("del", aliases=["delete"], parents=[sub_common], help="delete a route",
                      description="route del PREFIX, e.g. `dpctl route del 198.19.0.0/16`")
    d.set_defaults(route_cmd="del")
    d.add_argument("prefix", metavar="PREFIX")
    r = rc.add_parser("reload", parents=[sub_common], help="read the routes again",
                      description="route reload [FILE]: the routes and neighbors of dpfwd's "
                      "config again, or of FILE (a config or route file, made absolute "
                      "when it exists here); a new table is swapped in, the live one stays "
                      "on any error.")
    r.add_argument("path", nargs="?", metavar="FILE")
    li = rc.add_parser("list", aliases=["ls"], parents=[sub_common], help="list the routes",
                       description="route list [PREFIX]: the routes in PREFIX (default: every "
                       "IPv4 route; an IPv6 prefix for IPv6) as route file lines, with "
                       "local, connected and adjacency (a resolved neighbor's own /32) "
                       "marked after '#'; at most 200, then ask for a narrower prefix.")
    li.set_defaults(route_cmd="list")
    li.add_argument("prefix", nargs="?", metavar="PREFIX")

    cap = cmds.add_parser("capture", parents=[sub_common], formatter_class=fmt,
                          help="capture packets to a pcapng file",
                          description="capture PORT|all [--rx|--tx|--both] [-f FILTER] "
                          "[-c COUNT] [-d SECONDS] [-s SNAPLEN] -w FILE.pcapng\n"
                          "capture --stop\n\n"
                          "dpfwd's workers copy the packets FILTER (tcpdump syntax) "
                          "matches, as they arrive (--rx, the default) or leave (--tx, "
                          "rewritten), and dpfwd writes FILE (made absolute here; dpfwd "
                          "creates it). -w - streams the file to stdout (tshark -r -). "
                          "It stops at COUNT packets, after SECONDS, on Ctrl-C or on "
                          "`dpctl capture --stop`; the file is complete after any of them. "
                          "One capture at a time. Exit 2 for a bad filter, port or file.")
    cap.add_argument("port", nargs="?", metavar="PORT|all")
    g = cap.add_mutually_exclusive_group()
    g.add_argument("--rx", dest="dir", action="store_const", const="rx",
                   help="packets as they arrive (default)")
    g.add_argument("--tx", dest="dir", action="store_const", const="tx",
                   help="packets as they leave, after the rewrite")
    g.add_argument("--both", dest="dir", action="store_const", const="both",
                   help="both directions")
    cap.set_defaults(dir="rx")
    cap.add_argument("-f", "--filter", metavar="FILTER", help="tcpdump filter expression")
    cap.add_argument("-c", "--count", type=int, metavar="COUNT",
                     help="stop after COUNT packets written")
    cap.add_argument("-d", "--duration", type=int, metavar="SECONDS",
                     help="stop after SECONDS")
    cap.add_argument("-s", "--snaplen", type=int, metavar="SNAPLEN",
                     help="bytes kept of each packet (default: the largest frame the "
                     "ports take)")
    cap.add_argument("-w", "--write", metavar="FILE", help="the pcapng file; - for stdout")
    cap.add_argument("--stop", action="store_true", help="stop the running capture")

    tr = cmds.add_parser("trace", parents=[sub_common], formatter_class=fmt,
                         help="trace packets through the graph, node by node",
                         description="trace add COUNT [--port P|all] [-f FILTER]\n"
                         "trace show\ntrace clear\n\n"
                         "add marks the next COUNT packets (1..256) that arrive on port P "
                         "(default: any) and that FILTER (tcpdump syntax) takes; each "
                         "marked packet leaves a record in every node it visits, on any "
                         "lcore, until it is sent or dropped. show prints them per "
                         "packet in time order, clear forgets them. Exit 2 for a bad "
                         "COUNT, port or filter.")
    tcmds = tr.add_subparsers(dest="trace_cmd", metavar="add|show|clear", required=True)
    ta = tcmds.add_parser("add", parents=[sub_common], help="mark the next COUNT packets")
    ta.add_argument("count", type=int, metavar="COUNT")
    ta.add_argument("--port", metavar="P|all", help="only packets that arrive on port P")
    ta.add_argument("-f", "--filter", metavar="FILTER", help="tcpdump filter expression")
    tcmds.add_parser("show", parents=[sub_common], help="print the traces")
    tcmds.add_parser("clear", parents=[sub_common], help="stop marking, forget the traces")

    c = cmds.add_parser("clear", parents=[sub_common],
                        help="zero ports/lcores/runtime/drops counters (a snapshot)",
                        description="Save the counters of ports, lcores, graph nodes and "
                        "drops; later shows print them minus this snapshot.  dpfwd's own "
                        "counters are not touched (other readers see them whole).")
    c.add_argument("--undo", action="store_true", help="remove the snapshot")

    cmds.add_parser("list", parents=[sub_common],
                    help="list the DPDK processes with a telemetry socket (which are dpfwd)")

    raw = cmds.add_parser("raw", parents=[sub_common], help="send any telemetry command",
                          description="raw CMD [PARAMS...]: send CMD (with ,PARAMS) and print "
                          "the reply as JSON.  `dpctl raw /` lists the commands, "
                          "`dpctl raw /help /dpfwd/graph/nodes` explains one.  Exit 1 when "
                          "the reply is null (unknown command).")
    raw.add_argument("command", metavar="CMD")
    raw.add_argument("params", nargs="*", metavar="PARAMS")
    raw.add_argument("--decode", action="store_true",
                     help="undo rte_telemetry's mapping (reals as strings, nested JSON "
                     "as text, arrays as dicts)")
    return ap


def main(argv=None):
    args = build_parser().parse_args(argv)
    if args.file_prefix is not None and args.socket is not None:
        print(f"{PROG}: --file-prefix and --socket: give one", file=sys.stderr)
        return EXIT_USAGE
    if not hasattr(args, "all"):
        args.all = False
    if not hasattr(args, "interval"):
        args.interval = 0
    if args.interval < 0 or args.interval > 60:
        print(f"{PROG}: --interval {args.interval}: 0..60 seconds", file=sys.stderr)
        return EXIT_USAGE
    try:
        if args.cmd == "list":
            return cmd_list(args)
        s = Session(args)
        try:
            if args.cmd == "show":
                return cmd_show(s, args)
            if args.cmd == "route":
                return cmd_route(s, args)
            if args.cmd == "clear":
                return cmd_clear(s, args)
            if args.cmd == "capture":
                return cmd_capture(s, args)
            if args.cmd == "trace":
                return cmd_trace(s, args)
            if args.cmd == "raw":
                return cmd_raw(s, args)
        finally:
            s.close()
    except DpctlError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return e.code
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
