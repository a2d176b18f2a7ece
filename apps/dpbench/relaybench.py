# SPDX-License-Identifier: BSD-3-Clause
"""dpbench relay, relay-pps: dpfwd's UDP relay against a Linux userspace relay.

    dpbench.py relay [--build BUILD] [--reps 3] [--count 5000] [--size 64]
                     [--rate 2000] [--rate-count 10000] [--inflight 32]
                     [--relays dpfwd,dpfwd/drain=1,udprelay,socat] [--json OUT] [--no-huge]
    dpbench.py relay-pps [--build BUILD] [--runs 3] [--duration 5] [--warmup 2]
                         [--json OUT] [--no-huge]

`relay`: one run, the same three namespaces and veths for every relay measured:

    netns rb<pid>-c            netns rb<pid>-r                       netns rb<pid>-s
    eth0 198.18.10.2/24 --veth-- rb<pid>c  [relay]  rb<pid>s --veth-- eth0 198.18.20.2/24
    udprtt (client)              198.18.10.1:5000 -> 198.18.20.2:6000   udprtt --server :6000

  dpfwd     dpfwd on the two router veth ends (net_af_packet, in the relay namespace;
            the kernel there has no address on them), [relay0] listen 198.18.10.1:5000,
            backend 198.18.20.2:6000, source 198.18.20.1.
  udprelay  apps/udptools/udprelay (epoll, recvmmsg/sendmmsg) in the relay namespace, the
            kernel now holding 198.18.10.1 and 198.18.20.1 on the same veth ends.
  socat     socat UDP4-LISTEN:5000,fork,reuseaddr UDP4:198.18.20.2:6000 (the same).

Relays run alternately, --reps times each (round robin). Per run: a warm-up (the first
request opens the session), then two cases measured by udprtt in the client namespace:
`pingpong` (one request in flight, --count requests of --size bytes) and `rate` (--rate
requests/s, at most --inflight in flight, --rate-count requests). Per case: udprtt's
RTT quantiles (every reply's bytes checked; nearest rank, at most 1/128 above the exact
value, from its histogram), and the relay process's CPU time
(utime+stime of the process, its threads and children, from /proc/PID/stat; and the
run time in ns from /proc/PID/task/*/schedstat) over the case. For dpfwd, the relay's
own added delay per packet over the case (the "delay" section of its telemetry JSON: the
histogram's buckets at the case's end minus those at its start, quantiles as dpfwd
computes them) and its worker's busy share (busy/(busy+idle) cycles). dpfwd busy-polls
its worker lcore by design: its CPU time is a whole core whatever the load; busy% is
the share of the polling that found packets.

CPU placement (2-core machine): client and server on CPU 0 (taskset), the relay on CPU
1: dpfwd's worker is lcore 1 (its control lcore 0), udprelay/socat are pinned to CPU 1.

Printed: a side-by-side table (medians over the runs of each relay's per-run values,
and every run's p50/p99 in the JSON), the ratios of p50 and p99 RTT (userspace / dpfwd),
and JSON (--json; default BUILD/dpbench/relay-DATE.json). Namespaces, veths and every
process are removed (processes by pid) at the end, on an error and on SIGINT/SIGTERM.

`relay-pps`: the pcap rig (net_pcap infinite_rx -> net_null) for the relay beside
forwarding, one worker: dpfwd with configs/bench/relay-2000sessions-64b.ini (2000 client
flows of 64 B to 198.18.0.1:5000, relayed to a backend on net_null) and with
configs/bench/fwd-2000flows-64b.ini, alternately, --runs times; prints the pps of
each, relay/forwarding (target >= 0.9) and cycles per packet per node. A third column,
relay1, replays a single client (the relay config's pcap with 1session for 2000sessions in
its name, e.g. pcap/relay-1session-64b.pcap: 2000 copies of one packet, so that net_pcap
reads as many buffers as for the others) through the relay config: the
same work per packet with its session's cache line always in L1, so relay1 - relay in
cycles is what reaching 2000 sessions' state costs (cache and TLB misses). A fourth,
hosts, replays 2000 sessions from 126 client hosts (...-2000sessions-126hosts-...: a host's
source ports 126 apart) through the relay config: the relay rig's one client host with
2000 consecutive ports fills a run of consecutive cache entries (the cache's index adds
the ports), these keys land anywhere in the cache, as most real clients' do. A fifth,
full, replays 10000 sessions from the same 126 hosts (...-10000sessions-126hosts-...):
the config's 10000 relay ports all in use, the table full, and some keys with all four
cache entries they may take (their pair and its buddy) in use by others, whose packets
relay4 takes; the pool gets room for net_pcap's 10000 buffers (mempool.size=32767). A
sixth, fwd-full, forwards 10000 flows from the same 126 hosts (the forwarding config's
pcap with 10000flows-126hosts for 2000flows) with the same pool: full's anchor over as
many replayed packets and buffers, so full / fwd-full is the relay's own cost at a full
table, where full / fwd also holds the rig's larger pcap.
"""

import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DP = None  # the dpbench module (set by add_parsers: Telemetry, run_one, ...)

RELAYS = ("dpfwd", "udprelay", "socat")
QUANTS_10K = {"p50": 5000, "p90": 9000, "p99": 9900, "p999": 9990}
UDPRTT_KEYS = ("sent", "received", "lost", "corrupted", "late", "duplicate", "rtt_us")
RTT_KEYS = ("n", "min", "p50", "p90", "p99", "p999", "max", "mean", "stddev")
LISTEN = ("198.18.10.1", 5000)
BACKEND = ("198.18.20.2", 6000)
CLIENT_IP, SERVER_IP, SOURCE_IP = "198.18.10.2", "198.18.20.2", "198.18.20.1"
MAC = {"rc": "02:00:00:0a:00:01", "c": "02:00:00:0a:00:02",
       "rs": "02:00:00:14:00:01", "s": "02:00:00:14:00:02"}
HOST_CPU, RELAY_CPU = 0, 1
CLK_TCK = os.sysconf("SC_CLK_TCK")
RELAY_PPS_CONFIG = "configs/bench/relay-2000sessions-64b.ini"
FWD_PPS_CONFIG = "configs/bench/fwd-2000flows-64b.ini"


def log(msg: str) -> None:
    print(msg, flush=True)


# --------------------------------------------------------------------------
# Statistics (no namespaces needed; tests/bench/test_relaybench.py)
# --------------------------------------------------------------------------

def quantile_nr(sorted_vals: List[float], q10k: int):
    """Exact nearest-rank quantile: sorted[ceil(q * n) - 1], q in 1/10000 (udprtt reports
    the top of this value's histogram bucket: never below it, less than 1/128 above)."""
    n = len(sorted_vals)
    if n == 0:
        return None
    rank = (q10k * n + 9999) // 10000
    return sorted_vals[min(max(rank, 1), n) - 1]


def rtt_summary(samples_ns: List[int]) -> Optional[dict]:
    """udprtt's rtt_us object from raw samples (ns), with the exact quantiles (udprtt's
    own are at most 1/128 above them; min, max, mean and stddev are the same)."""
    if not samples_ns:
        return None
    s = sorted(samples_ns)
    out = {"n": len(s), "min": s[0] / 1e3}
    for k, q in QUANTS_10K.items():
        out[k] = quantile_nr(s, q) / 1e3
    out["max"] = s[-1] / 1e3
    out["mean"] = statistics.fmean(s) / 1e3
    out["stddev"] = (statistics.stdev(s) if len(s) > 1 else 0.0) / 1e3
    return out


def parse_udprtt(text: str) -> dict:
    """udprtt's JSON summary; ValueError if it is not one."""
    d = json.loads(text)
    if not isinstance(d, dict) or d.get("tool") != "udprtt":
        raise ValueError("not a udprtt summary")
    for k in UDPRTT_KEYS:
        if k not in d:
            raise ValueError(f"udprtt summary without '{k}'")
    r = d["rtt_us"]
    if r is not None and any(k not in r for k in RTT_KEYS):
        raise ValueError("udprtt rtt_us without " + ",".join(k for k in RTT_KEYS if k not in r))
    return d


def buckets_diff(cur, prev) -> List[List[int]]:
    """dpfwd's delay buckets ([low, width, count], cycles) of CUR minus PREV."""
    before = {(b[0], b[1]): b[2] for b in (prev or [])}
    out = []
    for low, width, count in cur or []:
        c = count - before.get((low, width), 0)
        if c > 0:
            out.append([low, width, c])
    return out


def bucket_quantile(buckets: List[List[int]], q: float) -> Optional[float]:
    """The quantile of a bucket histogram, as dpfwd's dp_hist_bucket_quantile (linear in
    the bucket)."""
    total = sum(b[2] for b in buckets)
    if total == 0:
        return None
    rank, seen = q * total, 0
    for low, width, count in buckets:
        if seen + count >= rank and count:
            return low + width * (rank - seen) / count
        seen += count
    return float(buckets[-1][0] + buckets[-1][1])


def delay_window(cur: Optional[dict], prev: Optional[dict]) -> Optional[dict]:
    """The per-packet delay through dpfwd between two telemetry snapshots (ns)."""
    if not cur or "delay" not in cur or not cur.get("tsc_hz"):
        return None
    ns = 1e9 / cur["tsc_hz"]
    dc = cur["delay"].get("total", {})
    dp = (prev or {}).get("delay", {}).get("total", {})
    b = buckets_diff(dc.get("buckets_cycles"), dp.get("buckets_cycles"))
    n = sum(x[2] for x in b)
    out = {"count": n}
    for k, q in (("p50_ns", .5), ("p90_ns", .9), ("p99_ns", .99), ("p999_ns", .999)):
        v = bucket_quantile(b, q)
        out[k] = v * ns if v is not None else None
    out["since_start"] = {k: dc.get(k) for k in ("count", "p50_ns", "p90_ns", "p99_ns",
                                                 "p999_ns", "max_ns", "jitter_ns", "mean_ns")}
    return out


def busy_share(cur: Optional[dict], prev: Optional[dict]) -> Optional[float]:
    """busy / (busy + idle) cycles of dpfwd's workers between two snapshots."""
    def sums(s):
        lc = (s or {}).get("lcores")
        items = lc.values() if isinstance(lc, dict) else (lc or [])
        b = sum(int(x.get("busy_cycles", 0)) for x in items if isinstance(x, dict))
        i = sum(int(x.get("idle_cycles", 0)) for x in items if isinstance(x, dict))
        return b, i
    if not cur:
        return None
    b1, i1 = sums(cur)
    b0, i0 = sums(prev)
    tot = (b1 - b0) + (i1 - i0)
    return (b1 - b0) / tot if tot > 0 else None


def ratio(a, b) -> Optional[float]:
    return a / b if a is not None and b else None


def median_of(vals) -> Optional[float]:
    v = [x for x in vals if x is not None]
    return statistics.median(v) if v else None


# --------------------------------------------------------------------------
# CPU time of a process tree
# --------------------------------------------------------------------------

def proc_stat_fields(path: str) -> List[str]:
    """The fields of a /proc/PID[/task/TID]/stat file after the command name
    (which may hold spaces and parentheses): [0] is the state, [11] utime."""
    with open(path) as f:
        return f.read().rsplit(")", 1)[1].split()


def descendants(pid: int) -> List[int]:
    """PID and its live descendants (from /proc/*/stat ppid)."""
    kids: Dict[int, List[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                ppid = int(proc_stat_fields(f"/proc/{d}/stat")[1])
            except (OSError, IndexError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(d))
    out, stack = [], [pid]
    while stack:
        p = stack.pop()
        out.append(p)
        stack.extend(kids.get(p, []))
    return out


def cpu_usage(pid: Optional[int]) -> Optional[dict]:
    """{ticks: utime+stime (+ cutime+cstime of the root: children that exited) of PID
    and its live descendants, ns: sum of their threads' schedstat run time}."""
    if pid is None:
        return None
    ticks, ns = 0, 0
    try:
        f = proc_stat_fields(f"/proc/{pid}/stat")
        ticks += int(f[13]) + int(f[14])            # cutime, cstime
    except (OSError, IndexError, ValueError):
        return None
    for p in descendants(pid):
        try:
            f = proc_stat_fields(f"/proc/{p}/stat")
            ticks += int(f[11]) + int(f[12])        # utime, stime
            for t in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{t}/schedstat") as sf:
                    ns += int(sf.read().split()[0])
        except (OSError, IndexError, ValueError):
            continue
    return {"ticks": ticks, "ns": ns}


def cpu_delta(a: Optional[dict], b: Optional[dict], seconds: float) -> Optional[dict]:
    if not a or not b or seconds <= 0:
        return None
    cpu_s = (b["ticks"] - a["ticks"]) / CLK_TCK
    run_s = (b["ns"] - a["ns"]) / 1e9
    return {"cpu_s": cpu_s, "run_s": run_s, "wall_s": seconds, "cores": run_s / seconds}


# --------------------------------------------------------------------------
# Namespaces (own cleanup registry: everything by name or pid)
# --------------------------------------------------------------------------

class Cleanup:
    def __init__(self):
        self.items = []

    def add(self, desc, fn):
        self.items.append((desc, fn))

    def run(self):
        while self.items:
            desc, fn = self.items.pop()
            try:
                fn()
            except Exception as e:  # a cleanup never stops the others
                print(f"relaybench: cleanup '{desc}' failed: {e}", file=sys.stderr)


def sh(*argv, ns=None, check=True, timeout=60):
    argv = [str(a) for a in argv]
    if ns:
        argv = ["ip", "netns", "exec", ns] + argv
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       stdin=subprocess.DEVNULL, timeout=timeout)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {r.returncode}: {r.stderr.strip()}")
    return r


def stop_pid(proc: subprocess.Popen, sig=signal.SIGTERM, wait: float = 10) -> Optional[int]:
    """Stop one process we started, by its pid: SIG, then SIGKILL."""
    if proc.poll() is None:
        try:
            os.kill(proc.pid, sig)
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        except ProcessLookupError:
            pass
    return proc.returncode


def offloads_off(ifname: str, ns: Optional[str] = None):
    """tests/netns/netns.py's veth settings: no TX checksum offload (frames leave with
    their checksums filled in: af_packet / af_xdp hand dpfwd the bytes as they are), no
    TSO/GSO (real frames of at most the MTU), no GRO."""
    sh("ethtool", "-K", ifname, "tx", "off", "tso", "off", "gso", "off", "gro", "off", ns=ns)


class Rig:
    """Client, relay and server namespaces joined by two veth pairs."""

    def __init__(self, cleanup: Cleanup):
        self.tag = f"rb{os.getpid()}"
        self.c, self.r, self.s = self.tag + "-c", self.tag + "-r", self.tag + "-s"
        self.rc, self.rs = self.tag + "c", self.tag + "s"     # router ends
        self.cleanup = cleanup
        self.mode = None

    def up(self):
        for ns in (self.c, self.r, self.s):
            sh("ip", "netns", "add", ns)
            self.cleanup.add(f"netns {ns}", lambda ns=ns: sh("ip", "netns", "del", ns,
                                                             check=False))
        sh("ip", "-n", self.r, "link", "set", "lo", "up")
        for host, rend, ip, gw, hmac, rmac in (
                (self.c, self.rc, CLIENT_IP, LISTEN[0], MAC["c"], MAC["rc"]),
                (self.s, self.rs, SERVER_IP, SOURCE_IP, MAC["s"], MAC["rs"])):
            sh("ip", "link", "add", rend, "netns", self.r, "address", rmac, "type", "veth",
               "peer", "name", "eth0", "netns", host, "address", hmac)
            sh("sysctl", "-qw", f"net.ipv6.conf.{rend}.disable_ipv6=1", ns=self.r)
            sh("sysctl", "-qw", f"net.ipv4.conf.{rend}.forwarding=0", ns=self.r)
            sh("ip", "-n", self.r, "link", "set", rend, "up")
            sh("ip", "-n", host, "link", "set", "lo", "up")
            # full checksums on the wire (dpfwd on af_packet sees the frames as they are)
            offloads_off("eth0", ns=host)
            sh("sysctl", "-qw", "net.ipv6.conf.eth0.disable_ipv6=1", ns=host)
            sh("ip", "-n", host, "addr", "add", f"{ip}/24", "dev", "eth0")
            sh("ip", "-n", host, "link", "set", "eth0", "up")
            sh("ip", "-n", host, "route", "add", "default", "via", gw)
            sh("ip", "-n", host, "neigh", "replace", gw, "lladdr", rmac, "dev", "eth0",
               "nud", "permanent")
        return self

    def set_mode(self, mode: str):
        """'kernel': the relay namespace's kernel owns the router addresses (userspace
        relays); 'dpfwd': no address, no ARP there (dpfwd answers for them)."""
        if mode == self.mode:
            return
        for rend, ip, peer, pmac in ((self.rc, LISTEN[0], CLIENT_IP, MAC["c"]),
                                     (self.rs, SOURCE_IP, SERVER_IP, MAC["s"])):
            sh("ip", "-n", self.r, "addr", "flush", "dev", rend)
            sh("ip", "-n", self.r, "neigh", "flush", "dev", rend, check=False)
            if mode == "kernel":
                sh("ip", "-n", self.r, "link", "set", rend, "arp", "on")
                sh("ip", "-n", self.r, "addr", "add", f"{ip}/24", "dev", rend)
                sh("ip", "-n", self.r, "neigh", "replace", peer, "lladdr", pmac, "dev", rend,
                   "nud", "permanent")
            else:
                sh("ip", "-n", self.r, "link", "set", rend, "arp", "off")
        self.mode = mode


def spawn_ns(ns: str, argv: List[str], cpu: Optional[int], out, cleanup: Cleanup,
             sig=signal.SIGTERM) -> subprocess.Popen:
    """ARGV in namespace NS (pinned to CPU); `ip netns exec` and taskset exec in place,
    so the pid is the program's own. Stopped by cleanup unless stopped before."""
    a = ["ip", "netns", "exec", ns]
    if cpu is not None:
        a += ["taskset", "-c", str(cpu)]
    a += [str(x) for x in argv]
    proc = subprocess.Popen(a, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT
                            if out is not subprocess.PIPE else subprocess.DEVNULL)
    cleanup.add(f"pid {proc.pid} ({Path(str(argv[0])).name})", lambda: stop_pid(proc, sig))
    return proc


# --------------------------------------------------------------------------
# The relays
# --------------------------------------------------------------------------

def dpfwd_relay_config(rig: Rig, huge: bool) -> str:
    dev = "net_af_packet{i},iface={ifn},framecnt=4096"
    return "\n".join([
        f"# written by dpbench.py relay for {rig.tag}",
        "[dpfwd]", "main_lcore = 0", f"drivers_cfg = {REPO / 'drivers-cfg'}",
        "node_stats = on", "delay_stats = on", "",
        "[port0]", f"dev = {dev.format(i=0, ifn=rig.rc)}", f"ip4 = {LISTEN[0]}/24", "",
        "[port1]", f"dev = {dev.format(i=1, ifn=rig.rs)}", f"ip4 = {SOURCE_IP}/24", "",
        "[lcores]", "rx = (0,0,1),(1,0,1)", "",
        "[neighbors]",
        f"neigh = {CLIENT_IP} lladdr {MAC['c']} port 0",
        f"neigh = {SERVER_IP} lladdr {MAC['s']} port 1", "",
        "[relay0]", f"listen = {LISTEN[0]}:{LISTEN[1]}", f"backend = {BACKEND[0]}:{BACKEND[1]}",
        f"source = {SOURCE_IP}", "ports = 20000-20999", ""])


class Relay:
    name = ""
    mode = "kernel"

    def __init__(self, ctx):
        self.ctx = ctx
        self.proc = None
        self.log = None

    def available(self) -> Optional[str]:
        return None

    def start(self):
        raise NotImplementedError

    def snapshot(self) -> Optional[dict]:
        return None

    def stop(self) -> dict:
        rc = stop_pid(self.proc, signal.SIGTERM)
        return {"exit_status": rc}


class DpfwdRelay(Relay):
    name = "dpfwd"
    mode = "dpfwd"
    sets: List[str] = []

    def available(self):
        b = self.ctx["build"] / "apps" / "dpfwd" / "dpfwd"
        return None if os.access(b, os.X_OK) else f"{b} missing (build first)"

    def start(self):
        c = self.ctx
        self.seq = c["seq"] = c["seq"] + 1
        d = c["workdir"] / f"dpfwd{self.seq}"
        d.mkdir(parents=True, exist_ok=True)
        cfg = d / "relay.ini"
        cfg.write_text(dpfwd_relay_config(c["rig"], True))
        self.json = d / "telemetry.json"
        self.prefix = f"{c['rig'].tag}_dp{self.seq}"
        argv = [c["build"] / "apps" / "dpfwd" / "dpfwd", "-l", "0,1", "--file-prefix",
                self.prefix, "--no-pci", *c["mem"], "--", "-c", cfg,
                # dpfwd's default interval: its control lcore shares CPU 0 with the
                # client and the server, and a JSON snapshot every 100 ms shows up
                # in the relay's own delay p99 in the rate case
                "--telemetry-json", self.json, "--telemetry-interval", "1000"]
        for s in self.sets:
            argv += ["--set", s]
        self.log = d / "dpfwd.log"
        with open(self.log, "w") as lf:
            # dpfwd pins its own lcores (-l 0,1: control 0, worker 1)
            self.proc = spawn_ns(c["rig"].r, argv, None, lf, c["cleanup"])
        c["cleanup"].add(f"runtime dir {self.prefix}", lambda p=self.prefix: shutil.rmtree(
            DP.dpdk_runtime_dir() / p, ignore_errors=True))
        deadline = time.monotonic() + 60
        while not self.json.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"dpfwd did not start (exit {self.proc.poll()}): "
                                   + " | ".join(DP.log_tail(self.log)))
            time.sleep(0.1)

    def snapshot(self):
        """A snapshot written after this call (interval 1 s)."""
        t = time.time()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                if os.stat(self.json).st_mtime > t + 0.1:
                    return json.loads(self.json.read_text())
            except (OSError, ValueError):
                pass
            time.sleep(0.03)
        return None

    def stop(self):
        out = super().stop()
        try:
            out["final"] = json.loads(self.json.read_text())
        except (OSError, ValueError):
            out["final"] = None
        shutil.rmtree(DP.dpdk_runtime_dir() / self.prefix, ignore_errors=True)
        return out


class UdpRelay(Relay):
    name = "udprelay"

    def available(self):
        b = self.ctx["build"] / "apps" / "udptools" / "udprelay"
        return None if os.access(b, os.X_OK) else f"{b} missing (build first)"

    def start(self):
        c = self.ctx
        c["seq"] += 1
        self.log = c["workdir"] / f"udprelay{c['seq']}.log"
        self.out = open(self.log, "w")
        self.proc = spawn_ns(c["rig"].r, [c["build"] / "apps" / "udptools" / "udprelay",
                                          "-l", f"{LISTEN[0]}:{LISTEN[1]}",
                                          "-b", f"{BACKEND[0]}:{BACKEND[1]}", "-i", "60"],
                             RELAY_CPU, self.out, c["cleanup"])
        wait_udp_listen(c["rig"].r, LISTEN[1], self.proc)

    def stop(self):
        out = super().stop()
        self.out.close()
        m = re.search(r"^\{.*\"tool\": \"udprelay\".*\}$", self.log.read_text(), re.M)
        out["counters"] = json.loads(m.group(0)) if m else None
        return out


class SocatRelay(Relay):
    name = "socat"

    def available(self):
        return None if shutil.which("socat") else "socat not installed"

    def start(self):
        c = self.ctx
        c["seq"] += 1
        self.log = c["workdir"] / f"socat{c['seq']}.log"
        self.out = open(self.log, "w")
        self.proc = spawn_ns(c["rig"].r, ["socat", "-T", "60",
                                          f"UDP4-LISTEN:{LISTEN[1]},bind={LISTEN[0]},fork,"
                                          "reuseaddr", f"UDP4:{BACKEND[0]}:{BACKEND[1]}"],
                             RELAY_CPU, self.out, c["cleanup"])
        wait_udp_listen(c["rig"].r, LISTEN[1], self.proc)

    def stop(self):
        # its forked children (one per client) first, by pid, so that socat reaps them
        for p in [p for p in descendants(self.proc.pid) if p != self.proc.pid]:
            try:
                os.kill(p, signal.SIGTERM)
            except ProcessLookupError:
                pass
        time.sleep(0.1)
        out = super().stop()
        self.out.close()
        return out


RELAY_CLASSES = {"dpfwd": DpfwdRelay, "udprelay": UdpRelay, "socat": SocatRelay}
DRAIN_RE = re.compile(r"^dpfwd/drain=([0-9]+)$")


def relay_class(name: str):
    """dpfwd, udprelay, socat, or dpfwd/drain=N: dpfwd with --set dpfwd.tx_drain_us=N
    (its TX buffers are flushed at least every N us; default 100: a lone packet waits
    up to that long, which a one-in-flight RTT sees twice per request)."""
    if name in RELAY_CLASSES:
        return RELAY_CLASSES[name]
    m = DRAIN_RE.match(name)
    if m and 1 <= int(m.group(1)) <= 1000000:
        return type("DpfwdDrainRelay", (DpfwdRelay,),
                    {"name": name, "sets": [f"dpfwd.tx_drain_us={int(m.group(1))}"]})
    return None


def wait_udp_listen(ns: str, port: int, proc, timeout: float = 10):
    deadline = time.monotonic() + timeout
    while f":{port} " not in sh("ss", "-Hlun", ns=ns).stdout + " ":
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"nothing listens on UDP {port} (exit {proc.poll()})")
        time.sleep(0.05)


# --------------------------------------------------------------------------
# relay: the side-by-side run
# --------------------------------------------------------------------------

def udprtt(ctx, args: List[str], timeout: float) -> dict:
    c = ctx
    a = ["ip", "netns", "exec", c["rig"].c, "taskset", "-c", str(HOST_CPU),
         str(c["build"] / "apps" / "udptools" / "udprtt"), *map(str, args),
         f"{LISTEN[0]}:{LISTEN[1]}"]
    # a Popen kept in ctx: the cleanup stops it by pid if dpbench is stopped meanwhile
    proc = c["client"] = subprocess.Popen(a, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          text=True, stdin=subprocess.DEVNULL)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop_pid(proc, signal.SIGKILL)
        raise RuntimeError(f"udprtt did not finish within {timeout:.0f} s")
    finally:
        c["client"] = None
    if proc.returncode != 0:
        raise RuntimeError(f"udprtt exit {proc.returncode}: {err.strip()}")
    return parse_udprtt(out)


def measure_case(ctx, relay: Relay, case: str, rtt_args: List[str], timeout: float) -> dict:
    snap0 = relay.snapshot()
    cpu0, t0 = cpu_usage(relay.proc.pid), time.monotonic()
    res = udprtt(ctx, rtt_args, timeout)
    cpu1, t1 = cpu_usage(relay.proc.pid), time.monotonic()
    snap1 = relay.snapshot()
    out = {"case": case, "udprtt": res, "cpu": cpu_delta(cpu0, cpu1, t1 - t0)}
    if snap1 is not None:
        out["delay"] = delay_window(snap1, snap0)
        out["busy_share"] = busy_share(snap1, snap0)
    return out


def one_run(ctx, relay: Relay, a) -> dict:
    ctx["rig"].set_mode(relay.mode)
    relay.start()
    res = {"relay": relay.name, "pid": relay.proc.pid, "log": str(relay.log), "cases": {}}
    try:
        w = udprtt(ctx, ["-n", a.warmup, "-s", a.size, "-t", 200], 60)
        res["warmup"] = {k: w[k] for k in ("sent", "received", "lost", "corrupted")}
        if w["received"] == 0:
            raise RuntimeError(f"{relay.name}: no reply to any of {w['sent']} warm-up requests")
        base = ["-s", a.size, "-t", a.timeout_ms]
        res["cases"]["pingpong"] = measure_case(
            ctx, relay, "pingpong", base + ["-n", a.count], 30 + a.count * a.timeout_ms / 1e3)
        res["cases"]["rate"] = measure_case(
            ctx, relay, "rate", base + ["-n", a.rate_count, "-r", a.rate, "-k", a.inflight],
            30 + a.rate_count / a.rate * 2 + a.timeout_ms / 1e3)
        res["ok"] = True
    finally:
        st = relay.stop()
        if relay.name.startswith("dpfwd") and st.get("final"):
            f = st.pop("final")
            res["dpfwd_relay"] = f.get("relay", {}).get("total")
            res["dpfwd_drops"] = {k: v for k, v in f.get("drops", {}).get("by_reason", {}).items()
                                  if v}
        res["stop"] = st
    return res


def summarize_relay(runs: List[dict]) -> dict:
    """Per relay and case: medians over the runs."""
    out = {}
    for r in runs:
        if not r.get("ok"):
            continue
        for case, c in r["cases"].items():
            out.setdefault(r["relay"], {}).setdefault(case, []).append(c)
    summ = {}
    for relay, cases in out.items():
        for case, cs in cases.items():
            u = [c["udprtt"] for c in cs]
            rt = [x["rtt_us"] for x in u if x["rtt_us"]]
            s = {"runs": len(cs),
                 "sent": sum(x["sent"] for x in u), "received": sum(x["received"] for x in u),
                 "lost": sum(x["lost"] for x in u), "corrupted": sum(x["corrupted"] for x in u)}
            for k in ("p50", "p90", "p99", "p999", "max", "mean", "stddev"):
                s[k + "_us"] = median_of([x[k] for x in rt])
            s["p50_us_runs"] = [x["p50"] for x in rt]
            s["p99_us_runs"] = [x["p99"] for x in rt]
            s["cpu_s"] = median_of([(c["cpu"] or {}).get("cpu_s") for c in cs])
            s["cpu_cores"] = median_of([(c["cpu"] or {}).get("cores") for c in cs])
            s["cpu_us_per_req"] = median_of(
                [(c["cpu"]["run_s"] * 1e6 / c["udprtt"]["sent"]) if c.get("cpu") and
                 c["udprtt"]["sent"] else None for c in cs])
            d = [c.get("delay") for c in cs if c.get("delay")]
            if d:
                for k in ("p50_ns", "p90_ns", "p99_ns", "p999_ns"):
                    s["delay_" + k] = median_of([x.get(k) for x in d])
                s["delay_count"] = sum(x["count"] for x in d)
                s["delay_max_ns_since_start"] = max(
                    (x["since_start"].get("max_ns") or 0) for x in d)
                s["delay_jitter_ns_since_start"] = median_of(
                    [x["since_start"].get("jitter_ns") for x in d])
            b = [c.get("busy_share") for c in cs if c.get("busy_share") is not None]
            if b:
                s["busy_pct"] = 100 * statistics.median(b)
            summ.setdefault(relay, {})[case] = s
    return summ


def table_text(summ: dict, relays: List[str]) -> List[str]:
    def f(v, w=9, p=1):
        return f"{v:{w}.{p}f}" if isinstance(v, (int, float)) else f"{'-':>{w}}"
    lines = []
    for case in ("pingpong", "rate"):
        lines.append("")
        lines.append(f"case {case}: RTT (us, median over runs) | relay CPU over the case | "
                     "dpfwd added delay (ns)")
        lines.append(f"{'relay':<16}{'runs':>5}{'recv':>8}{'lost':>6}{'corr':>5}{'p50':>9}"
                     f"{'p90':>9}{'p99':>9}{'p99.9':>9}{'max':>9}{'stddev':>8}"
                     f"{'cpu s':>8}{'cores':>7}{'us/req':>8}{'busy%':>7}"
                     f"{'d.p50':>8}{'d.p99':>8}{'d.p99.9':>9}")
        for r in relays:
            s = summ.get(r, {}).get(case)
            if not s:
                lines.append(f"{r:<16}  (no successful run)")
                continue
            lines.append(f"{r:<16}{s['runs']:>5}{s['received']:>8}{s['lost']:>6}"
                         f"{s['corrupted']:>5}{f(s['p50_us'])}{f(s['p90_us'])}"
                         f"{f(s['p99_us'])}{f(s['p999_us'])}{f(s['max_us'])}"
                         f"{f(s['stddev_us'], 8)}{f(s['cpu_s'], 8, 2)}"
                         f"{f(s['cpu_cores'], 7, 2)}{f(s['cpu_us_per_req'], 8, 1)}"
                         f"{f(s.get('busy_pct'), 7, 2)}{f(s.get('delay_p50_ns'), 8, 0)}"
                         f"{f(s.get('delay_p99_ns'), 8, 0)}{f(s.get('delay_p999_ns'), 9, 0)}")
    return lines


def ratios(summ: dict, relays: List[str]) -> dict:
    """Each userspace relay's RTT quantiles over each dpfwd's (> 1: dpfwd is faster)."""
    out = {}
    for d in [r for r in relays if r.startswith("dpfwd")]:
        for r in [r for r in relays if not r.startswith("dpfwd")]:
            for case in ("pingpong", "rate"):
                a, b = summ.get(r, {}).get(case), summ.get(d, {}).get(case)
                if a and b:
                    out[f"{r} / {d} {case}"] = {k: ratio(a[k + "_us"], b[k + "_us"])
                                                for k in ("p50", "p99", "p999")}
    return out


def cmd_relay(args) -> int:
    build = DP_build(args)
    relays = [r.strip() for r in args.relays.split(",") if r.strip()]
    bad = [r for r in relays if relay_class(r) is None]
    if bad:
        log(f"dpbench: unknown relay(s) {', '.join(bad)}; known: {', '.join(RELAYS)}, "
            "dpfwd/drain=N")
        return 2
    if os.geteuid() != 0:
        log("dpbench: relay needs root (network namespaces, veths)")
        return 2
    rtt_bin = build / "apps" / "udptools" / "udprtt"
    if not os.access(rtt_bin, os.X_OK):
        log(f"dpbench: {rtt_bin} missing: ninja -C {build}")
        return 2
    workdir = Path(tempfile.mkdtemp(prefix=f"rb{os.getpid()}.", dir=build / "dpbench"
                                    if (build / "dpbench").is_dir() else None))
    cleanup = Cleanup()
    ctx = {"build": build, "workdir": workdir, "seq": 0, "cleanup": cleanup, "client": None,
           "mem": DP.mem_args(args.no_huge) if any(r.startswith("dpfwd") for r in relays)
           else []}
    active = []
    for r in relays:
        rel = relay_class(r)(ctx)
        why = rel.available()
        if why:
            log(f"SKIP {r}: {why}")
        else:
            active.append(rel)
    if not active:
        return 1

    def on_sig(signum, frame):
        cleanup.run()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, on_sig)

    runs: List[dict] = []
    failed = 0
    t_start = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    cleanup.add("udprtt client", lambda: ctx["client"] and stop_pid(ctx["client"]))
    try:
        rig = Rig(cleanup).up()
        ctx["rig"] = rig
        with open(workdir / "server.log", "w") as so:
            server = spawn_ns(rig.s, [build / "apps" / "udptools" / "udprtt", "--server",
                                      f"{BACKEND[0]}:{BACKEND[1]}"], HOST_CPU, so, cleanup)
        wait_udp_listen(rig.s, BACKEND[1], server)
        log(f"relay bench: {len(active)} relays x {args.reps} runs, {args.count} ping-pong "
            f"requests + {args.rate_count} at {args.rate}/s (<= {args.inflight} in flight), "
            f"{args.size} B; client/server on CPU {HOST_CPU}, relay on CPU {RELAY_CPU}; "
            f"load average {os.getloadavg()[0]:.1f}")
        for rep in range(args.reps):
            for rel in active:
                t0 = time.monotonic()
                try:
                    res = one_run(ctx, rel, args)
                except (RuntimeError, subprocess.TimeoutExpired, OSError, ValueError) as e:
                    res = {"relay": rel.name, "ok": False, "error": str(e)}
                    failed += 1
                res["round"] = rep + 1
                runs.append(res)
                if res.get("ok"):
                    pp, rt = res["cases"]["pingpong"], res["cases"]["rate"]
                    u, v = pp["udprtt"]["rtt_us"] or {}, rt["udprtt"]["rtt_us"] or {}
                    log(f"[{rep + 1}/{args.reps}] {rel.name:<15} pingpong p50 "
                        f"{u.get('p50', 0):7.1f} p99 {u.get('p99', 0):7.1f} us "
                        f"(lost {pp['udprtt']['lost']}, corrupted {pp['udprtt']['corrupted']})"
                        f" | rate p50 {v.get('p50', 0):7.1f} p99 {v.get('p99', 0):7.1f} us "
                        f"(lost {rt['udprtt']['lost']}) | {time.monotonic() - t0:.1f} s")
                else:
                    log(f"[{rep + 1}/{args.reps}] {rel.name:<15} FAILED: {res.get('error')}")
        sst = stop_pid(server, signal.SIGTERM)
        log(f"echo server stopped (exit {sst})")
    except KeyboardInterrupt:
        log("dpbench: interrupted; summarizing what was measured")
    finally:
        cleanup.run()

    names = [r.name for r in active]
    summ = summarize_relay(runs)
    for line in table_text(summ, names):
        log(line)
    rat = ratios(summ, names)
    if rat:
        log("")
        log("RTT ratio userspace / dpfwd (>1: dpfwd faster)")
        for k, v in rat.items():
            log(f"  {k:<36} p50 {v['p50'] or 0:6.2f}   p99 {v['p99'] or 0:6.2f}   "
                f"p99.9 {v['p999'] or 0:6.2f}")
    log("")
    log("cpu s / cores: utime+stime of the relay process tree over the case / on-CPU time "
        "per wall second (schedstat); dpfwd busy-polls its worker lcore, so it shows ~1 core "
        "whatever the load; busy%: share of the worker's cycles that found packets. "
        "d.*: dpfwd's per-packet delay RX burst -> TX burst over the case (both directions).")
    out = {"schema": "dpbench-relay/1", "time": t_start, "host": os.uname().nodename,
           "loadavg_start_end": os.getloadavg(),
           "params": {k: getattr(args, k) for k in ("reps", "count", "size", "rate",
                                                    "rate_count", "inflight", "timeout_ms",
                                                    "warmup")},
           "relays": names, "placement": {"client_server_cpu": HOST_CPU,
                                          "relay_cpu": RELAY_CPU},
           "summary": summ, "ratios": rat, "runs": runs}
    path = Path(args.json) if args.json else workdir / "relay.json"
    path.write_text(json.dumps(out, indent=2) + "\n")
    log(f"wrote {path}")
    return 0 if failed == 0 and runs else 1


# --------------------------------------------------------------------------
# relay-pps: the pcap rig, relay beside forwarding
# --------------------------------------------------------------------------

def DP_build(args) -> Path:
    b = args.build or os.environ.get("DPFWD_BUILD") or str(REPO / "build")
    return Path(b).resolve()


def node_table(nodes: Dict[str, dict], min_pkts: int = 1000) -> str:
    """cycles/packet per node (nodes that saw at least MIN_PKTS), one column per program,
    and per received packet: the nodes' cycles/packet weighted by the share of port_rx's
    packets each one saw (the cost of one packet's walk)."""
    names = list(nodes)
    rows = sorted({k for v in nodes.values() for k, x in v.items()
                   if isinstance(x, dict) and int(x.get("pkts", 0) or 0) >= min_pkts})

    def cpp(prog, node):
        x = nodes[prog].get(node, {})
        try:
            return float(x.get("cycles_per_pkt")) if int(x.get("pkts", 0)) >= min_pkts \
                else None
        except (TypeError, ValueError):
            return None
    out = [f"{'cycles/packet':<16}" + "".join(f"{n:>10}" for n in names)]
    for node in rows:
        out.append(f"{node:<16}" + "".join(
            f"{cpp(n, node):10.1f}" if cpp(n, node) is not None else f"{'-':>10}"
            for n in names))

    def per_rx_pkt(prog):
        rx = int(nodes[prog].get("port_rx", {}).get("pkts", 0) or 0)
        return sum((cpp(prog, k) or 0) * int(nodes[prog].get(k, {}).get("pkts", 0) or 0) / rx
                   for k in rows) if rx else 0.0
    out.append(f"{'per rx packet':<16}" + "".join(f"{per_rx_pkt(n):10.1f}" for n in names))
    return "\n".join(out)


def config_pcap(cfg: Path) -> Optional[str]:
    """The pcap a bench config's port 0 replays, as pcap/NAME (None: not one of BUILD/pcap's)."""
    m = re.search(r"rx_pcap=\$\{DPFWD_BUILD\}/(pcap/[^,\s]+)", cfg.read_text())
    return m.group(1) if m else None


def twin_pcap(pcap: Optional[str], infix: str) -> Optional[str]:
    """A relay rig pcap's twin: -2000sessions- in its name replaced by @infix (None: no twin)."""
    return pcap.replace("-2000sessions-", infix) if pcap and "-2000sessions-" in pcap else None


def one_session_pcap(pcap: Optional[str]) -> Optional[str]:
    """The one-session twin of a relay rig's pcap (...-2000sessions-... -> ...-1session-...)."""
    return twin_pcap(pcap, "-1session-")


def hosts_pcap(pcap: Optional[str]) -> Optional[str]:
    """Its twin from 126 hosts (...-2000sessions-... -> ...-2000sessions-126hosts-...)."""
    return twin_pcap(pcap, "-2000sessions-126hosts-")


def full_pcap(pcap: Optional[str]) -> Optional[str]:
    """Its twin with the table full (...-2000sessions-... -> ...-10000sessions-126hosts-...)."""
    return twin_pcap(pcap, "-10000sessions-126hosts-")


def fwd_full_pcap(pcap: Optional[str]) -> Optional[str]:
    """Forwarding's twin of the full relay (...-2000flows-... -> ...-10000flows-126hosts-...)."""
    return pcap.replace("-2000flows-", "-10000flows-126hosts-") \
        if pcap and "-2000flows-" in pcap else None


# the columns that replay a pcap of their own, and what else they set
PCAP_COLUMNS = {"relay1": (), "hosts": (), "full": ("mempool.size=32767",),
                "fwd-full": ("mempool.size=32767",)}


def cmd_relay_pps(args) -> int:
    build = DP_build(args)
    workdir = build / "dpbench"
    workdir.mkdir(parents=True, exist_ok=True)
    mem = DP.mem_args(args.no_huge)
    progs = []

    def cfg_path(c: str) -> Path:
        return Path(c) if Path(c).is_absolute() else REPO / c

    def pcap_of(c: str, default: str) -> str:
        return (config_pcap(cfg_path(c)) if cfg_path(c).is_file() else None) or default

    relay_pcap = pcap_of(args.relay_config, "pcap/relay-2000sessions-64b.pcap")
    fwd_pcap = pcap_of(args.fwd_config, "pcap/fwd-2000flows-64b.pcap")
    plan = [("relay", args.relay_config, relay_pcap),
            ("fwd", args.fwd_config, fwd_pcap)]
    if one_session_pcap(relay_pcap):
        plan.append(("relay1", args.relay_config, one_session_pcap(relay_pcap)))
        plan.append(("hosts", args.relay_config, hosts_pcap(relay_pcap)))
        plan.append(("full", args.relay_config, full_pcap(relay_pcap)))
        if fwd_full_pcap(fwd_pcap):
            plan.append(("fwd-full", args.fwd_config, fwd_full_pcap(fwd_pcap)))
    else:
        log(f"dpbench: {args.relay_config} replays no ...-2000sessions-... pcap: "
            "no one-session, 126-host and full-table columns")
    for name, cfg, pcap in plan:
        cfgp = cfg_path(cfg)
        ctx = DP.Ctx(build=build, pcap=build / pcap, workdir=workdir, mem=mem,
                     dpfwd_config=cfgp, pcap_set=name in PCAP_COLUMNS,
                     sets=PCAP_COLUMNS.get(name, ()))
        prog = DP.make_dpfwd("on", "on")
        prog.name = f"dpfwd/{name}"
        why = prog.check(ctx) or (None if (build / pcap).is_file() else f"{build / pcap} missing")
        if why:
            log(f"dpbench: {name}: {why}")
            return 1
        progs.append((name, prog, ctx))
    try:
        if DP.FWD_LCORE in os.sched_getaffinity(0):
            os.sched_setaffinity(0, {DP.MAIN_LCORE})
    except OSError:
        pass
    results = {n: [] for n, _, _ in progs}
    for r in range(args.runs):
        for name, prog, ctx in progs:
            res = DP.run_one(prog, ctx, args.warmup, args.duration)
            results[name].append(res)
            if res["ok"]:
                log(f"[{r + 1}/{args.runs}] {name:<8} {res['pps'] / 1e6:8.3f} Mpps "
                    f"(rx {res['rx_pps'] / 1e6:.3f})" + DP.share_note(res.get("cpu_share", {})))
            else:
                log(f"[{r + 1}/{args.runs}] {name:<8} FAILED: {res['error']}")
                for line in res.get("log_tail", []):
                    log("      | " + line)
    med = {n: median_of([x["pps"] for x in v if x.get("ok")]) for n, v in results.items()}
    rel = ratio(med["relay"], med["fwd"])
    log("")
    for n in results:
        ok = [x["pps"] / 1e6 for x in results[n] if x.get("ok")]
        log(f"{n:<8} median {med[n] / 1e6 if med[n] else 0:8.3f} Mpps over {len(ok)} runs "
            f"({', '.join(f'{v:.3f}' for v in ok)})")
    log(f"relay / forwarding pps: {rel:.3f}  (target >= 0.9)" if rel else
        "relay / forwarding pps: n/a")
    rel1 = ratio(med.get("relay1"), med["fwd"])
    if rel1:
        log(f"relay with 1 session / forwarding pps: {rel1:.3f}  (the session's state always "
            "in L1: the gap to the line above is what 2000 sessions' state costs)")
    relh = ratio(med.get("hosts"), med["fwd"])
    if relh:
        log(f"relay with 2000 sessions from 126 hosts / forwarding pps: {relh:.3f}  (keys "
            "with no run of consecutive ports: their cache entries anywhere in the cache)")
    relf = ratio(med.get("full"), med["fwd"])
    if relf:
        log(f"relay with 10000 sessions from 126 hosts (the table full) / forwarding pps: "
            f"{relf:.3f}  (a key whose four cache entries are taken goes through relay4)")
    relff = ratio(med.get("full"), med.get("fwd-full"))
    if relff:
        log(f"the same / forwarding 10000 flows from the 126 hosts: {relff:.3f}  (as many "
            "packets replayed and buffers in use on both sides)")
    nodes = {}
    for n, v in results.items():
        got = [x["probes"]["/dpfwd/graph/nodes"] for x in v
               if x.get("ok") and "/dpfwd/graph/nodes" in x.get("probes", {})]
        if got:
            nodes[n] = got[-1]
    if nodes:
        log("")
        log(node_table(nodes))
        for n, v in nodes.items():
            log("")
            log(f"{n}: /dpfwd/graph/nodes (last run)")
            for line in DP.fmt_nodes(v):
                log(line)
    out = {"schema": "dpbench-relay-pps/1", "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
           "mem_args": mem, "median_pps": med, "relay_over_fwd": rel,
           "relay1_over_fwd": rel1, "hosts_over_fwd": relh, "full_over_fwd": relf,
           "full_over_fwd_full": relff,
           "graph_nodes": nodes,
           "runs": results}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
        log(f"wrote {args.json}")
    return 0 if rel else 1


# --------------------------------------------------------------------------
# Command line (dpbench.py's subparsers)
# --------------------------------------------------------------------------

def add_parsers(sub, dpbench_module) -> None:
    global DP
    DP = dpbench_module
    rl = sub.add_parser("relay", help="dpfwd's UDP relay vs udprelay/socat between client and "
                        "server namespaces: RTT, added delay, CPU (needs root)")
    rl.add_argument("--build", help="build dir (default: $DPFWD_BUILD, else REPO/build)")
    rl.add_argument("--relays", default="dpfwd,dpfwd/drain=1,udprelay,socat",
                    help="comma list of dpfwd, dpfwd/drain=N (tx_drain_us=N), udprelay, socat "
                         "(default dpfwd,dpfwd/drain=1,udprelay,socat)")
    rl.add_argument("--reps", type=int, default=3, help="runs per relay, round robin")
    rl.add_argument("--count", type=int, default=5000, help="ping-pong requests per run")
    rl.add_argument("--size", type=int, default=64, help="UDP payload bytes (>= 24)")
    rl.add_argument("--rate", type=float, default=2000.0, help="requests/s of the rate case")
    rl.add_argument("--rate-count", type=int, default=10000, help="requests of the rate case")
    rl.add_argument("--inflight", type=int, default=32, help="in flight at most (rate case)")
    rl.add_argument("--timeout-ms", type=int, default=500, help="a request is lost after this")
    rl.add_argument("--warmup", type=int, default=200, help="warm-up requests per run")
    rl.add_argument("--json", help="write the results here (default WORKDIR/relay.json)")
    rl.add_argument("--no-huge", action="store_true", help="dpfwd with --no-huge")
    rl.set_defaults(func=cmd_relay)

    rp = sub.add_parser("relay-pps", help="pcap rig: relay pps (2000 sessions, 64 B) beside "
                        "forwarding pps, one worker")
    rp.add_argument("--build", help="build dir (default: $DPFWD_BUILD, else REPO/build)")
    rp.add_argument("--runs", type=int, default=3)
    rp.add_argument("--duration", type=int, default=5, help="measured seconds per run")
    rp.add_argument("--warmup", type=float, default=2.0)
    rp.add_argument("--relay-config", default=RELAY_PPS_CONFIG)
    rp.add_argument("--fwd-config", default=FWD_PPS_CONFIG)
    rp.add_argument("--json", help="write the results here")
    rp.add_argument("--no-huge", action="store_true", help="force --no-huge")
    rp.set_defaults(func=cmd_relay_pps)


def check_args(ap, args) -> None:
    """Range checks of relay's options (argparse's error, exit 2)."""
    if args.cmd != "relay":
        return
    for k, lo, hi in (("reps", 1, 1000), ("count", 1, 10**8), ("size", 24, 65507),
                      ("rate_count", 1, 10**8), ("inflight", 1, 65536),
                      ("timeout_ms", 1, 3600000), ("warmup", 1, 10**6)):
        v = getattr(args, k)
        if not lo <= v <= hi:
            ap.error(f"--{k.replace('_', '-')} must be {lo}..{hi}")
    if not 0 < args.rate <= 1e7:
        ap.error("--rate must be > 0 (requests per second)")
