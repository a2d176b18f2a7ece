#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpbench -- forwarding benchmark: dpfwd against its anchors.

    dpbench.py fwd-anchor --build BUILD --pcap PCAP [--runs 5] [--duration 10]
                          [--warmup 2] [--json OUT] [--only NAME,...] [--no-huge]
    dpbench.py run BENCH.ini [--runs N] [--duration S] [--warmup W] [--out DIR]
                   [--build BUILD] [--only NAME,...] [--no-anchors] [--keep-going]
                   [--confidence 95] [--no-plots] [--dry-run] [--no-huge]
    dpbench.py build-anchors --build BUILD
    dpbench.py list --build BUILD

`run` measures the variants of a bench config (configs/bench/*.ini, read by
benchcfg.py: the dpfwd config, the rig, run length and count, anchors, and
[variant NAME] sections of dpfwd --set overrides).  Each variant and anchor
runs N times, round robin.  Every second it reads the ports' counters and,
from dpfwd, /dpfwd/graph/lcores (busy cycles, packets) and
/dpfwd/graph/nodes (cycles per node).  Per run: the median of the 1 s
samples of Mpps forwarded and of cycles/packet; per variant the per-node
cycles.  It prints a ministat-style table per metric (dpstat.py: N, min,
max, median, avg, stddev, Student's t test of each against the first, the
baseline) and writes to OUT (default BUILD/dpbench/runs/NAME-DATE/):
results.json (every sample, per-run medians, nodes; rewritten after every
run), summary.txt (the tables), plots/*.png and *.svg (dpplot.py), logs/
and telemetry/ (dpfwd's final JSON of each run).  Before measuring, dpfwd
itself checks the config with each variant's overrides (exit 2 and
file:line on a refusal).  A run whose process dies is reported (which run,
why, its log), the runs done are kept in results.json, and dpbench stops
(--keep-going: runs the rest) and exits 1.

Rig, identical for every program measured (only this machine, no NIC):
  port 0  net_pcap0,rx_pcap=PCAP,infinite_rx=1   line-rate generator
  port 1  net_null0                               sink  (198.18.1.0/24)
  port 2  net_null1                               sink  (198.18.2.0/24)
  one forwarding lcore: lcore 1 (CPU 1).  EAL also gets --no-pci (never
  touch the host's PCI NIC) and --in-memory (no hugepage/runtime files
  left behind; the telemetry socket is still created), or, without free
  hugepages, --no-huge -m 1024 (EAL refuses --in-memory with --no-huge).

Programs (data driven, see make_programs()):
  l3fwd     DPDK's examples/l3fwd built out of tree by anchors.sh into
            BUILD/anchors/dpdk-l3fwd; LPM lookup, software ptype.
  testpmd   dpdk-testpmd, io forward mode, port 0 -> port 1: the ceiling.
  dpfwd/*   BUILD/apps/dpfwd/dpfwd with CONFIG and --set variants
            (skipped with a message while the binary does not exist).

Measurement, the same for every program: DPDK telemetry socket of the
running process (<runtime dir>/<file-prefix>/dpdk_telemetry.v2,
SOCK_SEQPACKET, JSON), /ethdev/stats,<port>.  Forwarded = opackets of
ports 1+2.  Warm up W s after forwarding starts, then sample every 1 s for
D s; pps = delta forwarded / delta time.  Runs are done round-robin over
the programs, --runs times.  The process is stopped with SIGINT (then
SIGTERM, SIGKILL) by its pid.

Python 3 standard library; the plots of `run` use python3-matplotlib
(dpplot.py; without it, run still measures and writes everything else).
"""

import argparse
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import benchcfg  # noqa: E402  (next to this file)
import dpplot    # noqa: E402
import dpstat    # noqa: E402

DEFAULT_DPFWD_CONFIG = "configs/bench/fwd-2000flows-64b.ini"
DPFWD_PCAP_REL = "pcap/fwd-2000flows-64b.pcap"   # ${DPFWD_BUILD}/... in the config
FWD_LCORE = 1
MAIN_LCORE = 0
TX_PORTS = (1, 2)
RX_PORT = 0
NO_HUGE_MEM_MB = 1024
MIN_HUGE_FREE_MB = 1024      # below this, fall back to --no-huge -m 1024
COMMON_EAL = ["--no-pci"]
HUGE_MEM_ARGS = ["--in-memory"]          # not allowed together with --no-huge
NO_HUGE_MEM_ARGS = ["--no-huge", "-m", str(NO_HUGE_MEM_MB)]

# l3fwd LPM rule files (format of examples/l3fwd/lpm_route_parse.c).
# l3fwd only reads rule files when BOTH --rule_ipv4 and --rule_ipv6 are
# given (otherwise it silently loads its built-in tables), so an IPv6 file
# is supplied too; it matches nothing in the IPv4-only traffic.
L3FWD_RULES_V4 = "R198.18.1.0/24 1\nR198.18.2.0/24 2\n"
L3FWD_RULES_V6 = "R2001:db8:1::/48 1\nR2001:db8:2::/48 2\n"


def log(msg: str) -> None:
    print(msg, flush=True)


def warn(msg: str) -> None:
    print("dpbench: " + msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# DPDK telemetry client
# --------------------------------------------------------------------------

def dpdk_runtime_dir() -> Path:
    """EAL's runtime dir base (eal_get_runtime_dir logic)."""
    if os.geteuid() == 0:
        return Path("/var/run/dpdk")
    return Path(os.environ.get("XDG_RUNTIME_DIR", "/tmp")) / "dpdk"


class Telemetry:
    def __init__(self, path: Path, timeout: float = 5.0):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.settimeout(timeout)
        self.sock.connect(str(path))
        hello = json.loads(self.sock.recv(16384).decode())
        self.version = hello.get("version")
        self.bufsize = max(65536, int(hello.get("max_output_len", 16384)) + 1024)

    def cmd(self, command: str):
        """Send a command; return the value of the reply, None if unknown."""
        self.sock.send(command.encode())
        reply = json.loads(self.sock.recv(self.bufsize).decode())
        key = command.split(",", 1)[0]
        return reply.get(key)

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


# --------------------------------------------------------------------------
# Environment: hugepages, build of the anchors
# --------------------------------------------------------------------------

def hugepages_free_mb() -> int:
    try:
        mounted = any(line.split()[2] == "hugetlbfs"
                      for line in open("/proc/mounts") if len(line.split()) > 2)
        if not mounted:
            return 0
        info = {}
        for line in open("/proc/meminfo"):
            k, _, v = line.partition(":")
            info[k.strip()] = v.split()
        free = int(info["HugePages_Free"][0])
        size_kb = int(info["Hugepagesize"][0])
        return free * size_kb // 1024
    except (OSError, KeyError, ValueError, IndexError):
        return 0


def mem_args(force_no_huge: bool) -> List[str]:
    if force_no_huge:
        log(f"notice: --no-huge requested: all programs run with --no-huge -m {NO_HUGE_MEM_MB}")
        return list(NO_HUGE_MEM_ARGS)
    free = hugepages_free_mb()
    if free < MIN_HUGE_FREE_MB:
        log(f"notice: only {free} MB of free hugepages (need {MIN_HUGE_FREE_MB}); "
            f"falling back to --no-huge -m {NO_HUGE_MEM_MB} for ALL programs "
            "(numbers are lower and not comparable with hugepage runs).  To reserve: "
            "echo 1024 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages")
        return list(NO_HUGE_MEM_ARGS)
    log(f"hugepages: {free} MB free")
    return list(HUGE_MEM_ARGS)


def build_anchors(build: Path) -> None:
    subprocess.run(["sh", str(HERE / "anchors.sh"), str(build)], check=True)


# --------------------------------------------------------------------------
# Programs
# --------------------------------------------------------------------------

@dataclass
class Ctx:
    build: Path
    pcap: Path
    workdir: Path              # BUILD/dpbench: logs, rule files
    mem: List[str]             # --in-memory, or --no-huge -m 1024
    dpfwd_config: Path
    rx_port: int = RX_PORT     # the rig: traffic in on rx_port, forwarded = sum over tx_ports
    tx_ports: Tuple[int, ...] = TX_PORTS

    def pcap_vdev(self) -> str:
        return f"net_pcap0,rx_pcap={self.pcap},infinite_rx=1"


@dataclass
class Program:
    name: str
    group: str                                   # l3fwd | testpmd | dpfwd
    argv: Callable[[Ctx, str], List[str]]        # (ctx, file_prefix) -> argv
    check: Callable[[Ctx], Optional[str]]        # -> reason to skip, or None
    env: Callable[[Ctx], Dict[str, str]] = lambda ctx: {}
    probes: List[str] = field(default_factory=list)  # extra telemetry at end
    per_second: List[str] = field(default_factory=list)  # extra telemetry in every sample
    label: str = ""                              # legend text (dpbench run)


def l3fwd_argv(ctx: Ctx, prefix: str) -> List[str]:
    rules = ctx.workdir / "rules"
    # EAL: -l 1 (lcore 1 is the only lcore, it is the main lcore and runs
    # the forwarding loop).  l3fwd sets up one TX queue per (port, enabled
    # lcore) and net_pcap with only rx_pcap has a single (drop) TX queue,
    # so with -l 0,1 rte_eth_dev_configure fails ("nb_tx_queues=2 > 1").
    # Forwarding still runs on exactly one lcore, pinned to CPU 1; the
    # control threads (telemetry) then run on CPU 0.
    # App: -p 0x7 all three ports (port 0 must be enabled to receive;
    # 1, 2 to transmit); --config (port,queue,lcore) = (0,0,1): the only
    # RX queue is port 0 queue 0, polled by lcore 1.  --parse-ptype: the
    # vdevs do not set packet types, l3fwd classifies in software.
    return [str(ctx.build / "anchors" / "dpdk-l3fwd"),
            "-l", str(FWD_LCORE), "--file-prefix", prefix, *COMMON_EAL, *ctx.mem,
            "--vdev", ctx.pcap_vdev(), "--vdev", "net_null0", "--vdev", "net_null1",
            "--",
            "-p", "0x7", "--config", f"(0,0,{FWD_LCORE})",
            "--lookup=lpm", "--parse-ptype",
            f"--rule_ipv4={rules / 'l3fwd-v4.cfg'}", f"--rule_ipv6={rules / 'l3fwd-v6.cfg'}"]


def l3fwd_check(ctx: Ctx) -> Optional[str]:
    b = ctx.build / "anchors" / "dpdk-l3fwd"
    if not os.access(b, os.X_OK):
        return f"{b} missing (anchors.sh failed?)"
    rules = ctx.workdir / "rules"
    rules.mkdir(parents=True, exist_ok=True)
    (rules / "l3fwd-v4.cfg").write_text(L3FWD_RULES_V4)
    (rules / "l3fwd-v6.cfg").write_text(L3FWD_RULES_V6)
    return None


def testpmd_argv(ctx: Ctx, prefix: str) -> List[str]:
    # io forwarding (no header access at all) of port 0 -> port 1 only:
    # testpmd forwards port pairs and cannot split one RX stream across two
    # TX ports in io mode.  --portlist=0,1 --port-topology=paired makes the
    # streams 0->1 and 1->0 on the one forwarding core (lcore 1, main lcore
    # 0 only prints stats).  The null ports get no-rx=1 so that the 1->0
    # stream is empty (a plain net_null RX generates packets forever, which
    # would be forwarded into port 0 and steal cycles); port 2 exists but is
    # idle.  This is the ceiling: RX (pcap copy) + TX (null free) and
    # nothing else.  --stats-period keeps it non-interactive until SIGINT.
    return ["dpdk-testpmd",
            "-l", f"{MAIN_LCORE},{FWD_LCORE}", "--file-prefix", prefix, *COMMON_EAL, *ctx.mem,
            "--vdev", ctx.pcap_vdev(),
            "--vdev", "net_null0,no-rx=1", "--vdev", "net_null1,no-rx=1",
            "--",
            "--forward-mode=io", "--nb-cores=1", "--portlist=0,1",
            "--port-topology=paired", "--rxq=1", "--txq=1",
            "--auto-start", "--stats-period=1"]


def testpmd_check(ctx: Ctx) -> Optional[str]:
    if not shutil.which("dpdk-testpmd"):
        return "dpdk-testpmd not in PATH (apt install dpdk)"
    return None


def dpfwd_bin(ctx: Ctx) -> Path:
    return ctx.build / "apps" / "dpfwd" / "dpfwd"


def make_dpfwd(stats: str, cksum: str) -> Program:
    sets = [f"dpfwd.node_stats={stats}", f"dpfwd.ip4_cksum_check={cksum}"]

    def argv(ctx: Ctx, prefix: str) -> List[str]:
        # dpfwd creates its vdevs itself from CONFIG (same order: 0 pcap,
        # 1 null, 2 null; pcap = ${DPFWD_BUILD}/pcap/fwd-2000flows-64b.pcap).
        a = [str(dpfwd_bin(ctx)),
             "-l", f"{MAIN_LCORE},{FWD_LCORE}", "--file-prefix", prefix, *COMMON_EAL, *ctx.mem,
             "--", "-c", str(ctx.dpfwd_config), "--duration", "0"]
        for s in sets:
            a += ["--set", s]
        return a

    def check(ctx: Ctx) -> Optional[str]:
        if not os.access(dpfwd_bin(ctx), os.X_OK):
            return f"{dpfwd_bin(ctx)} does not exist (yet): dpfwd runs skipped"
        if not ctx.dpfwd_config.is_file():
            return f"{ctx.dpfwd_config} does not exist: dpfwd runs skipped"
        return None

    return Program(name=f"dpfwd/stats={stats}/cksum={cksum}", group="dpfwd",
                   argv=argv, check=check,
                   env=lambda ctx: {"DPFWD_BUILD": str(ctx.build)},
                   probes=["/dpfwd/graph/nodes"])


def make_programs() -> List[Program]:
    progs = [Program("l3fwd", "l3fwd", l3fwd_argv, l3fwd_check),
             Program("testpmd", "testpmd", testpmd_argv, testpmd_check)]
    for stats in ("on", "off"):
        for cksum in ("on", "off"):
            progs.append(make_dpfwd(stats, cksum))
    return progs


# --------------------------------------------------------------------------
# One measured run
# --------------------------------------------------------------------------

class RunError(Exception):
    pass


_seq = 0


def unique_prefix(name: str) -> str:
    global _seq
    _seq += 1
    tag = re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-")[:24]
    return f"dpbench-{os.getpid()}-{_seq}-{tag}"


def _all_cpus():
    return set(range(os.cpu_count() or 1))


def _int(v) -> int:
    try:
        return int(v)
    except (TypeError, ValueError):
        return 0


def reduce_lcores(v) -> Optional[dict]:
    """/dpfwd/graph/lcores (a dict keyed by worker index) -> the counters
    summed over workers."""
    if not isinstance(v, dict):
        return None
    out = {"busy_cycles": 0, "idle_cycles": 0, "rx_pkts": 0, "tx_pkts": 0, "workers": 0}
    for w in v.values():
        if isinstance(w, dict):
            out["workers"] += 1
            for k in ("busy_cycles", "idle_cycles", "rx_pkts", "tx_pkts"):
                out[k] += _int(w.get(k))
    return out


def reduce_nodes(v) -> Optional[dict]:
    """/dpfwd/graph/nodes -> {node: {calls, pkts, timed_cycles, timed_pkts}}."""
    if not isinstance(v, dict):
        return None
    return {n: {k: _int(x.get(k)) for k in ("calls", "pkts", "timed_cycles", "timed_pkts")}
            for n, x in v.items() if isinstance(x, dict)}


# per-second telemetry: command -> (key in the sample, reducer)
PER_SECOND = {
    "/dpfwd/graph/lcores": ("lcores", reduce_lcores),
    "/dpfwd/graph/nodes": ("nodes", reduce_nodes),
}


def sample(tel: Telemetry, rx_port: int = RX_PORT, tx_ports=TX_PORTS, extra=()) -> dict:
    # The timestamp brackets the TX-port queries only: pps is computed from
    # those; the RX port is read just before, for the sanity columns; the
    # extra per-second commands (counters whose ratios need no time) after.
    st = {rx_port: tel.cmd(f"/ethdev/stats,{rx_port}")}
    t0 = time.monotonic()
    for p in tx_ports:
        st[p] = tel.cmd(f"/ethdev/stats,{p}")
    t1 = time.monotonic()
    for p, v in st.items():
        if not isinstance(v, dict):
            raise RunError(f"telemetry has no stats for port {p}: {v!r}")
    s = {"t": (t0 + t1) / 2,
         "tx": sum(st[p]["opackets"] for p in tx_ports),
         "rx": st[rx_port]["ipackets"],
         "imissed": st[rx_port]["imissed"],
         "rx_nombuf": st[rx_port].get("rx_nombuf", 0),
         "tx_back": st[rx_port]["opackets"],     # sent back out the RX port
         "oerrors": sum(st[p]["oerrors"] for p in tx_ports)}
    for c in extra:
        key, reduce = PER_SECOND[c]
        s[key] = reduce(tel.cmd(c))
    return s


def stop_process(proc: subprocess.Popen) -> str:
    """SIGINT, then SIGTERM, then SIGKILL, by pid; returns how it ended."""
    how = "already exited"
    for sig, wait in ((signal.SIGINT, 20), (signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        if proc.poll() is not None:
            break
        try:
            os.kill(proc.pid, sig)
        except ProcessLookupError:
            break
        how = signal.Signals(sig).name
        try:
            proc.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue
    if proc.poll() is None:
        raise RunError(f"pid {proc.pid} survived SIGKILL")
    return how


def run_one(prog: Program, ctx: Ctx, warmup: float, duration: int,
            keep_samples: bool = False) -> dict:
    """Start PROG, wait until it forwards, warm up, sample every second for
    DURATION s, stop it.  res["ok"] False with res["error"] when it failed
    (res["log_tail"]: its log's last error lines).  keep_samples: every
    sample in res["samples"] (with PROG's per-second telemetry)."""
    prefix = unique_prefix(prog.name)
    rtdir = dpdk_runtime_dir() / prefix
    sock_path = rtdir / "dpdk_telemetry.v2"
    logs = ctx.workdir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    logfile = logs / f"{prefix}.log"
    argv = prog.argv(ctx, prefix)
    env = dict(os.environ, **prog.env(ctx))
    want_ports = {ctx.rx_port, *ctx.tx_ports}
    port_list = ",".join(str(p) for p in sorted(want_ports))
    tx_list = ",".join(str(p) for p in ctx.tx_ports)

    def take() -> dict:
        return sample(tel, ctx.rx_port, ctx.tx_ports, prog.per_second)

    res = {"program": prog.name, "prefix": prefix, "argv": argv, "log": str(logfile)}
    cpus = _all_cpus()
    with open(logfile, "wb") as lf:
        lf.write(("# " + " ".join(argv) + "\n").encode())
        lf.flush()
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=lf, stderr=subprocess.STDOUT,
                                env=env, start_new_session=True,
                                preexec_fn=lambda: os.sched_setaffinity(0, cpus))
    tel = None
    try:
        # 1. wait for the telemetry socket
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RunError(f"exited with status {proc.returncode} during start-up")
            if sock_path.exists():
                try:
                    tel = Telemetry(sock_path)
                    break
                except OSError:
                    pass
            if time.monotonic() > deadline:
                raise RunError(f"no telemetry socket {sock_path} after 60 s")
            time.sleep(0.1)
        ports = tel.cmd("/ethdev/list")
        if not isinstance(ports, list) or not want_ports <= set(ports):
            # ports may still be probing; retry briefly
            for _ in range(50):
                time.sleep(0.1)
                ports = tel.cmd("/ethdev/list")
                if isinstance(ports, list) and want_ports <= set(ports):
                    break
            else:
                raise RunError(f"expected ports {port_list}, telemetry lists {ports!r}")
        # 2. wait until forwarding has started
        deadline = time.monotonic() + 60
        first = take()
        while True:
            time.sleep(0.2)
            if proc.poll() is not None:
                raise RunError(f"exited with status {proc.returncode} before forwarding")
            s = take()
            if s["tx"] > first["tx"]:
                break
            if time.monotonic() > deadline:
                raise RunError(f"nothing forwarded to ports {tx_list} after 60 s (rx={s['rx']})")
        # 3. warm up, then sample every second
        time.sleep(warmup)
        samples = [take()]
        t_start = samples[0]["t"]
        for k in range(1, duration + 1):
            delay = t_start + k - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            if proc.poll() is not None:
                raise RunError(f"exited with status {proc.returncode} while measuring")
            samples.append(take())
        a, b = samples[0], samples[-1]
        dt = b["t"] - a["t"]
        per_sec = [(y["tx"] - x["tx"]) / (y["t"] - x["t"]) for x, y in zip(samples, samples[1:])]
        res.update({
            "ok": True,
            "pps": (b["tx"] - a["tx"]) / dt,
            "rx_pps": (b["rx"] - a["rx"]) / dt,
            "imissed": b["imissed"] - a["imissed"],
            "rx_nombuf": b["rx_nombuf"] - a["rx_nombuf"],
            "tx_back": b["tx_back"] - a["tx_back"],
            "oerrors": b["oerrors"] - a["oerrors"],
            "seconds": dt,
            "per_second_pps": per_sec,
        })
        if keep_samples:
            res["samples"] = samples
        # 4. optional extra telemetry (e.g. dpfwd's per-node cycles/packet)
        res["probes"] = {}
        for c in prog.probes:
            try:
                v = tel.cmd(c)
            except (OSError, ValueError) as e:
                v = None
                warn(f"{prog.name}: telemetry {c} failed: {e}")
            if v not in (None, {}, []):
                res["probes"][c] = v
    except (RunError, OSError, ValueError) as e:
        res.update({"ok": False, "error": str(e)})
    finally:
        if tel:
            tel.close()
        res["stopped_by"] = stop_process(proc)
        res["exit_status"] = proc.returncode
        # --in-memory leaves no hugepage files (--no-huge uses none); remove
        # our (unique) runtime dir: it keeps EAL's config files with
        # --no-huge, and the socket if the process had to be killed.
        if rtdir.name.startswith("dpbench-") and rtdir.is_dir():
            shutil.rmtree(rtdir, ignore_errors=True)
    if not res["ok"]:
        try:
            lines = logfile.read_text(errors="replace").splitlines()
        except OSError:
            lines = []
        errs = [l for l in lines if re.search(r"EAL:|Cause:|[Ee]rror|FATAL|[Ii]nvalid|[Ff]ail", l)]
        tail = errs[-10:] if errs else lines[-15:]
        res["log_tail"] = tail
    return res


# --------------------------------------------------------------------------
# fwd-anchor
# --------------------------------------------------------------------------

def summarize(values: List[float]) -> dict:
    if not values:
        return {"n": 0}
    return {"n": len(values), "min": min(values), "max": max(values),
            "median": statistics.median(values), "avg": statistics.fmean(values),
            "stddev": statistics.stdev(values) if len(values) > 1 else 0.0}


def fmt_nodes(v) -> List[str]:
    if isinstance(v, dict):
        out = []
        w = max((len(str(k)) for k in v), default=0)
        for k in sorted(v):
            x = v[k]
            if isinstance(x, (int, float)):
                out.append(f"    {k:<{w}}  {x:10.1f}")
            else:
                out.append(f"    {k:<{w}}  {json.dumps(x)}")
        return out
    return ["    " + json.dumps(v)]


def cmd_fwd_anchor(args) -> int:
    build = Path(args.build).resolve()
    pcap = Path(args.pcap).resolve()
    if not pcap.is_file():
        warn(f"pcap {pcap} not found")
        return 2
    if "," in str(pcap):
        warn("pcap path must not contain ',' (it goes into a --vdev devargs string)")
        return 2
    cfg = Path(args.config)
    if not cfg.is_absolute():
        cfg = REPO / cfg
    workdir = build / "dpbench"
    workdir.mkdir(parents=True, exist_ok=True)

    if not args.no_build:
        try:
            build_anchors(build)
        except subprocess.CalledProcessError:
            warn("building the anchors failed; l3fwd will be skipped")

    ctx = Ctx(build=build, pcap=pcap, workdir=workdir, mem=mem_args(args.no_huge),
              dpfwd_config=cfg)

    progs = make_programs()
    if args.only:
        want = [w.strip() for w in args.only.split(",") if w.strip()]
        progs = [p for p in progs if any(p.name == w or p.group == w for w in want)]
    active = []
    for p in progs:
        why = p.check(ctx)
        if why:
            log(f"SKIP {p.name}: {why}")
        else:
            active.append(p)
    if not active:
        warn("nothing to run")
        return 1
    if any(p.group == "dpfwd" for p in active):
        dp = (build / DPFWD_PCAP_REL).resolve()
        if dp != pcap:
            log(f"WARNING: dpfwd reads {dp} (from its config, ${{DPFWD_BUILD}}/{DPFWD_PCAP_REL}) "
                f"but the anchors read {pcap}")

    # Keep this script off the forwarding CPU.
    try:
        if FWD_LCORE in os.sched_getaffinity(0) and MAIN_LCORE in _all_cpus():
            os.sched_setaffinity(0, {MAIN_LCORE})
    except OSError:
        pass

    log(f"rig: pcap={pcap}  runs={args.runs}  warmup={args.warmup}s  duration={args.duration}s  "
        f"programs={', '.join(p.name for p in active)}")
    results: Dict[str, List[dict]] = {p.name: [] for p in active}
    total = args.runs * len(active)
    i = 0
    try:
        for r in range(args.runs):
            for p in active:
                i += 1
                res = run_one(p, ctx, args.warmup, args.duration)
                res["round"] = r + 1
                results[p.name].append(res)
                if res["ok"]:
                    ps = res["per_second_pps"]
                    log(f"[{i:>2}/{total}] {p.name:<28} {res['pps'] / 1e6:8.3f} Mpps  "
                        f"(rx {res['rx_pps'] / 1e6:.3f}, 1s {min(ps) / 1e6:.2f}..{max(ps) / 1e6:.2f}"
                        f"{', back->0 %d' % res['tx_back'] if res['tx_back'] else ''}"
                        f"{', nombuf %d' % res['rx_nombuf'] if res['rx_nombuf'] else ''})")
                else:
                    log(f"[{i:>2}/{total}] {p.name:<28} FAILED: {res['error']} (log {res['log']})")
                    for line in res.get("log_tail", []):
                        log("      | " + line)
                if args.cooldown:
                    time.sleep(args.cooldown)
    except KeyboardInterrupt:
        warn("interrupted; summarizing what was measured")

    # ---- summary
    summ = {}
    log("")
    log(f"{'program':<28} {'N':>3} {'min':>8} {'max':>8} {'median':>8} {'avg':>8} {'stddev':>7}"
        f"  {'rx med':>8}   (Mpps)")
    for p in active:
        ok = [x for x in results[p.name] if x.get("ok")]
        s = summarize([x["pps"] / 1e6 for x in ok])
        s["rx_median"] = statistics.median([x["rx_pps"] / 1e6 for x in ok]) if ok else None
        s["failed"] = len(results[p.name]) - len(ok)
        summ[p.name] = s
        if s["n"]:
            log(f"{p.name:<28} {s['n']:>3} {s['min']:8.3f} {s['max']:8.3f} {s['median']:8.3f} "
                f"{s['avg']:8.3f} {s['stddev']:7.3f}  {s['rx_median']:8.3f}"
                f"{'   (%d failed)' % s['failed'] if s['failed'] else ''}")
        else:
            log(f"{p.name:<28} {0:>3}  (all {s['failed']} runs failed)")

    ratios = {}
    base = {g: summ.get(g, {}).get("median") for g in ("l3fwd", "testpmd")}
    dps = [p for p in active if p.group == "dpfwd" and summ[p.name].get("n")]
    if dps:
        log("")
        log(f"{'ratio of medians':<28} {'/l3fwd':>8} {'/testpmd':>9}")
        for p in dps:
            m = summ[p.name]["median"]
            r = {k: (m / v if v else None) for k, v in base.items()}
            ratios[p.name] = {f"{p.name}/{k}": v for k, v in r.items()}
            f = lambda v: f"{v:8.3f}" if v is not None else "     n/a"
            log(f"{p.name:<28} {f(r['l3fwd'])} {f(r['testpmd']):>9}")
    elif base["l3fwd"] and base["testpmd"]:
        log("")
        log(f"l3fwd/testpmd (medians): {base['l3fwd'] / base['testpmd']:.3f}")

    nodes = {}
    for p in active:
        if p.group != "dpfwd":
            continue
        got = [x["probes"]["/dpfwd/graph/nodes"] for x in results[p.name]
               if x.get("ok") and "/dpfwd/graph/nodes" in x.get("probes", {})]
        if got:
            nodes[p.name] = got[-1]
            log("")
            log(f"{p.name}: /dpfwd/graph/nodes (last run)")
            for line in fmt_nodes(got[-1]):
                log(line)
        elif results[p.name]:
            log(f"{p.name}: /dpfwd/graph/nodes not served")

    if args.json:
        out = {"rig": {"pcap": str(pcap), "build": str(build), "runs": args.runs,
                       "warmup_s": args.warmup, "duration_s": args.duration,
                       "mem_args": ctx.mem, "common_eal": COMMON_EAL,
                       "fwd_lcore": FWD_LCORE, "host": os.uname().nodename,
                       "time": time.strftime("%Y-%m-%dT%H:%M:%S%z")},
               "summary_mpps": summ, "ratios": ratios, "graph_nodes": nodes,
               "runs": results}
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
        log(f"\nwrote {args.json}")
    return 0 if all(summ[p.name].get("n") for p in active) else 1


# --------------------------------------------------------------------------
# run: a bench config (configs/bench/*.ini) and its variants
# --------------------------------------------------------------------------

# The metrics of the ministat tables: one value per run, the median of the
# run's 1 s samples.
METRICS = {
    "mpps": {"label": "Mpps forwarded", "file": "mpps",
             "what": "packets out of the TX ports per second / 1e6, per-run median of 1 s samples"},
    "cycles_per_pkt": {"label": "cycles/packet", "file": "cycles-per-pkt",
                       "what": "worker lcores' busy TSC cycles / packets received, per-run "
                               "median of 1 s samples (dpfwd only)"},
}
SOURCE_NODE = "port_rx"           # the graph's source: per received packet = per its packets
DPFWD_PER_SECOND = ["/dpfwd/graph/lcores", "/dpfwd/graph/nodes"]
# Not an EAL option: dpfwd checks its config and every --set first (exit 2
# on a mistake), then EAL refuses the option and dpfwd exits 1 at once.
PREFLIGHT_EAL_ARG = "--dpbench-preflight"
RESULTS_SCHEMA = "dpbench-run/1"


def derive_per_second(samples: List[dict]) -> dict:
    """Rates between consecutive samples: t (s since the first sample), mpps,
    rx_mpps and, when the samples carry dpfwd's lcore counters,
    cycles_per_pkt (busy cycles / packets received in the interval)."""
    out = {"t": [], "mpps": [], "rx_mpps": [], "cycles_per_pkt": []}
    if not samples:
        return out
    t0 = samples[0]["t"]
    for a, b in zip(samples, samples[1:]):
        dt = b["t"] - a["t"]
        if dt <= 0:
            continue
        out["t"].append(round(b["t"] - t0, 4))
        out["mpps"].append((b["tx"] - a["tx"]) / dt / 1e6)
        out["rx_mpps"].append((b["rx"] - a["rx"]) / dt / 1e6)
        la, lb = a.get("lcores"), b.get("lcores")
        if la and lb and lb["rx_pkts"] > la["rx_pkts"]:
            out["cycles_per_pkt"].append(
                (lb["busy_cycles"] - la["busy_cycles"]) / (lb["rx_pkts"] - la["rx_pkts"]))
    return out


def derive_nodes(first: dict, last: dict) -> dict:
    """Per graph node over the measured window: cycles_per_pkt (per packet
    through the node, as dpfwd reports it), cycles_per_rx_pkt (its share of
    the cost of one received packet: the stackable number), pkts_per_call.
    Nodes that saw nothing are left out; {} when node stats are off."""
    na, nb = first.get("nodes"), last.get("nodes")
    if not na or not nb:
        return {}
    keys = ("calls", "pkts", "timed_cycles", "timed_pkts")
    d = {n: {k: x[k] - na.get(n, {}).get(k, 0) for k in keys} for n, x in nb.items()}
    src = d.get(SOURCE_NODE)
    if src is None and d:
        src = max(d.values(), key=lambda x: x["timed_pkts"])
    rx_timed = src["timed_pkts"] if src else 0
    out = {}
    for n, x in d.items():
        if x["timed_cycles"] <= 0 or x["timed_pkts"] <= 0:
            continue
        out[n] = {"pkts": x["pkts"], "calls": x["calls"],
                  "cycles_per_pkt": x["timed_cycles"] / x["timed_pkts"],
                  "cycles_per_rx_pkt": x["timed_cycles"] / rx_timed if rx_timed else None,
                  "pkts_per_call": x["pkts"] / x["calls"] if x["calls"] else None}
    return out


def finish_run(res: dict) -> dict:
    """Add per_second, median (per metric) and nodes to one run_one() result."""
    samples = res.get("samples") or []
    ps = derive_per_second(samples)
    res["per_second"] = ps
    res["median"] = {m: (statistics.median(ps[m]) if ps.get(m) else None) for m in METRICS}
    res["nodes"] = derive_nodes(samples[0], samples[-1]) if len(samples) > 1 else {}
    return res


def summarize_runs(programs: List[Program], runs: List[dict], confidence: float) -> dict:
    """Per metric: every program's per-run medians as dpstat sets, the stats
    and the t test against the first program with data."""
    out = {}
    for m in METRICS:
        sets = []
        for p in programs:
            vals = [r["median"][m] for r in runs
                    if r["program"] == p.name and r.get("ok") and r["median"].get(m) is not None]
            if vals:
                sets.append(dpstat.Dataset(p.name, vals))
        if not sets:
            continue
        per = {}
        for i, ds in enumerate(sets):
            s = ds.summary()
            s["values"] = ds.values
            t = dpstat.ttest(sets[0], ds, confidence) if i else None
            s["vs_baseline"] = t.as_dict() if t else None
            per[ds.name] = s
        out[m] = {"baseline": sets[0].name, "confidence": confidence, "programs": per}
    return out


def summarize_nodes(programs: List[Program], runs: List[dict]) -> dict:
    """program -> node -> medians over its runs of the per-run node numbers."""
    out = {}
    for p in programs:
        got = [r["nodes"] for r in runs if r["program"] == p.name and r.get("ok") and r.get("nodes")]
        if not got:
            continue
        names = list(dict.fromkeys(n for g in got for n in g))
        out[p.name] = {}
        for n in names:
            row = {"runs": sum(1 for g in got if n in g)}
            for k in ("cycles_per_pkt", "cycles_per_rx_pkt", "pkts_per_call"):
                vals = [g[n][k] for g in got if n in g and g[n].get(k) is not None]
                row[k] = statistics.median(vals) if vals else None
            out[p.name][n] = row
    return out


def tables_text(programs: List[Program], runs: List[dict], confidence: float) -> str:
    """The ministat-style tables, one per metric, and the node table."""
    label = {p.name: p.label for p in programs}
    out = []
    for m, meta in METRICS.items():
        sets = []
        for p in programs:
            vals = [r["median"][m] for r in runs
                    if r["program"] == p.name and r.get("ok") and r["median"].get(m) is not None]
            if vals:
                sets.append(dpstat.Dataset(p.name + (f": {label[p.name]}" if label[p.name] else ""),
                                           vals))
        if not sets:
            continue
        out.append(f"== {meta['label']}: {meta['what']}")
        out.append(dpstat.report(sets, confidence).rstrip("\n"))
        out.append("")
    nodes = summarize_nodes(programs, runs)
    if nodes:
        progs = list(nodes)
        names = list(dict.fromkeys(n for p in progs for n in nodes[p]))
        w = max(12, max(len(n) for n in names) + 2)
        cw = max(10, max(len(p) for p in progs) + 2)
        out.append("== cycles/packet by graph node (per packet through the node; median over runs)")
        out.append(f"{'node':<{w}}" + "".join(f"{p:>{cw}}" for p in progs))
        for n in names:
            cells = []
            for p in progs:
                v = nodes[p].get(n, {}).get("cycles_per_pkt")
                cells.append(f"{v:>{cw}.1f}" if v is not None else f"{'-':>{cw}}")
            out.append(f"{n:<{w}}" + "".join(cells))
        tot = []
        for p in progs:
            vals = [x.get("cycles_per_rx_pkt") for x in nodes[p].values()]
            s = sum(v for v in vals if v is not None)
            tot.append(f"{s:>{cw}.1f}")
        out.append(f"{'sum/rx pkt':<{w}}" + "".join(tot))
        out.append("")
    bad = [r for r in runs if not r.get("ok")]
    if bad:
        out.append("== failed runs (not in the tables above)")
        for r in bad:
            out.append(f"run {r.get('index')}: {r['program']}, repetition {r.get('repetition')}: "
                       f"{r.get('error')} (log {r.get('log')})")
        out.append("")
    return "\n".join(out)


def write_json_atomic(path: Path, obj) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1) + "\n")
    os.replace(tmp, path)


def dpgen_unavailable(build: Path) -> str:
    b = build / "apps" / "dpgen" / "dpgen"
    if not os.access(b, os.X_OK):
        return (f"rig dpgen is not available yet: {b} does not exist (apps/dpgen is not "
                "built); use rig = pcap")
    return (f"rig dpgen is not available yet: dpbench does not drive {b} yet; use rig = pcap")


def dpfwd_check(dpfwd: Path, config: Path, sets: List[str], env: Dict[str, str]) -> Optional[str]:
    """What dpfwd says about CONFIG with SETS ('--set', 'k=v', ...), None if it
    takes them."""
    argv = [str(dpfwd), "--file-prefix", f"dpbench-{os.getpid()}-preflight", "--in-memory",
            PREFLIGHT_EAL_ARG, "--", "-c", str(config), *sets]
    try:
        p = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=30)
    except subprocess.TimeoutExpired:
        warn(f"preflight: {dpfwd} did not stop within 30 s; config not checked")
        return None
    if p.returncode != 2:
        return None
    lines = [l.strip() for l in p.stderr.splitlines() if l.strip()]
    errs = [l.replace("dpfwd: error: ", "", 1) for l in lines if l.startswith("dpfwd: error:")]
    return "; ".join(errs or lines[-3:]) or "exit status 2"


def preflight(bench: "benchcfg.BenchConfig", variants, dpfwd: Path, env: Dict[str, str],
              rig_sets: List[str]) -> None:
    """dpfwd checks the config with every variant's overrides before anything
    runs; a refusal becomes a BenchConfigError at the line of the override."""
    base_err = None
    base_checked = False
    for v in variants:
        why = dpfwd_check(dpfwd, bench.config, rig_sets + bench.set_args(v), env)
        if why is None:
            continue
        if not base_checked:
            base_err = dpfwd_check(dpfwd, bench.config, rig_sets, env)
            base_checked = True
        if base_err:
            raise benchcfg.BenchConfigError(bench.path, bench.config_line,
                                            f"dpfwd rejects config {bench.config}: {base_err}")
        for o in bench.overrides(v):
            w = dpfwd_check(dpfwd, bench.config, rig_sets + ["--set", o.arg()], env)
            if w:
                where = "[bench] set" if o in bench.common else f"[variant {v.name}]"
                raise benchcfg.BenchConfigError(bench.path, o.line,
                                                f"{where} {o.key} = {o.value}: dpfwd says: {w}")
        raise benchcfg.BenchConfigError(bench.path, v.line,
                                        f"[variant {v.name}]: dpfwd rejects its overrides "
                                        f"together: {why}")


def make_variant_program(bench: "benchcfg.BenchConfig", v, rig_sets: List[str]) -> Program:
    sets = rig_sets + bench.set_args(v)

    def argv(ctx: Ctx, prefix: str) -> List[str]:
        # dpfwd adds -l, --vdev and the rest from its config; the final
        # telemetry JSON of each run is kept next to its log.
        return [str(dpfwd_bin(ctx)), "--file-prefix", prefix, *COMMON_EAL, *ctx.mem,
                "--", "-c", str(bench.config), "--duration", "0",
                "--telemetry-json", str(ctx.workdir / "telemetry" / f"{prefix}.json"), *sets]

    def check(ctx: Ctx) -> Optional[str]:
        if not os.access(dpfwd_bin(ctx), os.X_OK):
            return f"{dpfwd_bin(ctx)} does not exist (build it: ninja -C {ctx.build})"
        (ctx.workdir / "telemetry").mkdir(parents=True, exist_ok=True)
        return None

    return Program(name=v.name, group="dpfwd", argv=argv, check=check,
                   env=lambda ctx: {"DPFWD_BUILD": str(ctx.build)},
                   per_second=list(DPFWD_PER_SECOND), label=v.label)


ANCHOR_LABELS = {"l3fwd": "DPDK l3fwd (LPM)", "testpmd": "dpdk-testpmd io (ceiling)"}


def cmd_run(args) -> int:
    build = Path(args.build).resolve() if args.build else benchcfg.default_build()
    try:
        bench = benchcfg.load(args.bench, build)
    except benchcfg.BenchConfigError as e:
        warn(str(e))
        return 2
    runs = args.runs or bench.repetitions
    duration = args.duration or bench.duration
    warmup = bench.warmup if args.warmup is None else args.warmup
    cooldown = bench.cooldown if args.cooldown is None else args.cooldown
    if bench.rig == "dpgen":
        warn(dpgen_unavailable(build))
        return 1

    variants = bench.ordered_variants()
    anchors = [] if args.no_anchors else list(bench.anchors)
    if args.only:
        want = [w.strip() for w in args.only.split(",") if w.strip()]
        known = [v.name for v in variants] + anchors
        for w in want:
            if w not in known:
                warn(f"--only: '{w}' is not a variant or anchor of {bench.path} "
                     f"(have: {', '.join(known)})")
                return 2
        variants = [v for v in variants if v.name in want]
        anchors = [a for a in anchors if a in want]

    pcap = Path(bench.pcap)
    rig_sets = ["--set", f"port{bench.rx_port}.dev=net_pcap{bench.rx_port},"
                         f"rx_pcap={pcap},infinite_rx=1"]
    dpfwd = build / "apps" / "dpfwd" / "dpfwd"
    env = dict(os.environ, DPFWD_BUILD=str(build))
    if variants:
        if not os.access(dpfwd, os.X_OK):
            warn(f"{dpfwd} does not exist: build dpfwd first (ninja -C {build})")
            return 1
        try:
            preflight(bench, variants, dpfwd, env, rig_sets)
        except benchcfg.BenchConfigError as e:
            warn(str(e))
            return 2

    programs = [make_variant_program(bench, v, rig_sets) for v in variants]
    by_group = {p.group: p for p in make_programs() if p.group in ("l3fwd", "testpmd")}
    for a in anchors:
        p = by_group[a]
        p.label = ANCHOR_LABELS.get(a, "")
        programs.append(p)
    if not programs:
        warn("nothing to run")
        return 1

    stamp = time.strftime("%Y%m%d-%H%M%S")
    out = Path(args.out) if args.out else build / "dpbench" / "runs" / f"{bench.name}-{stamp}"
    out = out.resolve()
    mem = mem_args(bench.no_huge or args.no_huge)
    ctx = Ctx(build=build, pcap=pcap, workdir=out, mem=mem, dpfwd_config=bench.config,
              rx_port=bench.rx_port, tx_ports=tuple(bench.tx_ports))

    if args.dry_run:
        sys.stdout.write(benchcfg.describe(bench))
        for p in programs:
            log(f"{p.name}:\n    {' '.join(p.argv(ctx, 'PREFIX'))}")
        return 0

    if not pcap.is_file():
        warn(f"pcap {pcap} not found ([bench] pcap; the default is made by the build: "
             f"ninja -C {build})")
        return 1
    out.mkdir(parents=True, exist_ok=True)
    if "l3fwd" in anchors and not args.no_build:
        try:
            build_anchors(build)
        except subprocess.CalledProcessError:
            warn("building the anchors failed; l3fwd will be skipped")
    active = []
    for p in programs:
        why = p.check(ctx)
        if why and p.group == "dpfwd":
            warn(f"{p.name}: {why}")
            return 1
        if why:
            log(f"SKIP {p.name}: {why}")
        else:
            active.append(p)
    programs = active

    try:
        if FWD_LCORE in os.sched_getaffinity(0) and MAIN_LCORE in _all_cpus():
            os.sched_setaffinity(0, {MAIN_LCORE})
    except OSError:
        pass

    results_path = out / "results.json"
    meta = {"schema": RESULTS_SCHEMA,
            "bench": bench.as_dict(),
            "options": {"runs": runs, "duration_s": duration, "warmup_s": warmup,
                        "cooldown_s": cooldown, "confidence": args.confidence,
                        "only": args.only, "no_anchors": args.no_anchors},
            "env": {"build": str(build), "dpfwd": str(dpfwd), "pcap": str(pcap),
                    "mem_args": mem, "common_eal": COMMON_EAL, "rig_sets": rig_sets,
                    "host": os.uname().nodename, "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                    "out": str(out), "argv": sys.argv},
            "metrics": METRICS,
            "programs": [{"name": p.name, "kind": "variant" if p.group == "dpfwd" else "anchor",
                          "group": p.group, "label": p.label,
                          "argv": p.argv(ctx, "PREFIX")} for p in programs]}
    done: List[dict] = []
    failed: List[dict] = []

    def results(complete: bool, extra: Optional[dict] = None) -> dict:
        r = dict(meta)
        r["complete"] = complete
        r["failed"] = failed
        r["runs"] = done
        if extra:
            r.update(extra)
        return r

    log(f"bench {bench.name}: {len(programs)} programs x {runs} runs x {duration} s "
        f"(warmup {warmup:g} s), round robin; results in {out}")
    schedule = [(r, p) for r in range(1, runs + 1) for p in programs]   # round robin
    total = len(schedule)
    stopped = None
    try:
        for i, (r, p) in enumerate(schedule, 1):
            res = run_one(p, ctx, warmup, duration, keep_samples=True)
            res.update({"index": i, "repetition": r,
                        "kind": "variant" if p.group == "dpfwd" else "anchor"})
            if p.group == "dpfwd":
                tj = Path(res["argv"][res["argv"].index("--telemetry-json") + 1])
                res["telemetry_json"] = str(tj) if tj.exists() else None
            if res["ok"]:
                finish_run(res)
                ps = res["per_second"]["mpps"]
                cyc = res["median"]["cycles_per_pkt"]
                log(f"[{i:>2}/{total}] {p.name:<28} rep {r}  {res['median']['mpps']:8.3f} Mpps"
                    f"  (1s {min(ps):.2f}..{max(ps):.2f})"
                    + (f"  {cyc:6.1f} cyc/pkt" if cyc is not None else ""))
            else:
                why = (f"run {i} of {total} ({p.name}, repetition {r}) failed: "
                       f"{res['error']}; exit status {res['exit_status']}, "
                       f"stopped by {res['stopped_by']}; log {res['log']}")
                log(f"[{i:>2}/{total}] {p.name:<28} rep {r}  FAILED: {res['error']}")
                for line in res.get("log_tail", []):
                    log("      | " + line)
                failed.append({"index": i, "program": p.name, "repetition": r,
                               "error": res["error"], "exit_status": res["exit_status"],
                               "log": res["log"], "log_tail": res.get("log_tail", [])})
                warn(why)
            done.append(res)
            write_json_atomic(results_path, results(False))
            if not res["ok"] and not args.keep_going:
                stopped = "a run failed"
                break
            if cooldown and i < total:
                time.sleep(cooldown)
    except KeyboardInterrupt:
        stopped = "interrupted"
        warn("interrupted; summarizing what was measured")

    ok_runs = [r for r in done if r.get("ok")]
    if stopped == "a run failed":
        warn(f"stopped after run {len(done)} of {total}; the {len(ok_runs)} good runs "
             f"done are kept in {results_path} (--keep-going runs the rest)")
    text = tables_text(programs, done, args.confidence)
    log("")
    log(text)
    (out / "summary.txt").write_text(text)
    extra = {"summary": summarize_runs(programs, done, args.confidence),
             "nodes": summarize_nodes(programs, done), "table": text, "plots": []}
    complete = stopped is None and not failed and len(done) == total
    write_json_atomic(results_path, results(complete, extra))
    if not args.no_plots and ok_runs:
        try:
            extra["plots"] = dpplot.plots_from_results(results(complete, extra), out / "plots")
            log(f"plots: {out / 'plots'} ({len(extra['plots'])} files)")
        except dpplot.PlotUnavailable as e:
            warn(f"no plots: {e}")
        write_json_atomic(results_path, results(complete, extra))
    log(f"results: {results_path}")
    if stopped == "interrupted":
        return 130
    return 0 if complete else 1


def cmd_build_anchors(args) -> int:
    build_anchors(Path(args.build).resolve())
    return 0


def cmd_list(args) -> int:
    build = Path(args.build).resolve()
    ctx = Ctx(build=build, pcap=Path(args.pcap).resolve(), workdir=build / "dpbench",
              mem=list(HUGE_MEM_ARGS), dpfwd_config=REPO / DEFAULT_DPFWD_CONFIG)
    for p in make_programs():
        log(f"{p.name}:\n    {' '.join(p.argv(ctx, 'PREFIX'))}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="dpbench.py", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)

    fa = sub.add_parser("fwd-anchor", help="measure l3fwd, testpmd and dpfwd variants")
    fa.add_argument("--build", required=True, help="build dir (anchors go to BUILD/anchors)")
    fa.add_argument("--pcap", required=True, help="pcap replayed on port 0")
    fa.add_argument("--runs", type=int, default=5)
    fa.add_argument("--duration", type=int, default=10, help="measured seconds per run")
    fa.add_argument("--warmup", type=float, default=2.0, help="seconds after forwarding starts")
    fa.add_argument("--cooldown", type=float, default=1.0, help="pause between runs (s)")
    fa.add_argument("--json", help="write all results as JSON here")
    fa.add_argument("--only", help="comma list of program names or groups (l3fwd,testpmd,dpfwd)")
    fa.add_argument("--config", default=DEFAULT_DPFWD_CONFIG, help="dpfwd config (repo-relative)")
    fa.add_argument("--no-huge", action="store_true", help=f"force --no-huge -m {NO_HUGE_MEM_MB}")
    fa.add_argument("--no-build", action="store_true", help="do not (re)build the anchors")
    fa.set_defaults(func=cmd_fwd_anchor)

    ru = sub.add_parser("run", help="run a bench config's variants (configs/bench/*.ini)")
    ru.add_argument("bench", help="bench config (INI; see benchcfg.py)")
    ru.add_argument("--build", help="build dir (default: $DPFWD_BUILD, else REPO/build)")
    ru.add_argument("--runs", type=int, help="runs per variant (default: its repetitions)")
    ru.add_argument("--duration", type=int, help="measured seconds per run (default: its duration)")
    ru.add_argument("--warmup", type=float, help="seconds after forwarding starts (default: its warmup)")
    ru.add_argument("--cooldown", type=float, help="pause between runs (default: its cooldown)")
    ru.add_argument("--out", help="output dir (default BUILD/dpbench/runs/NAME-DATE)")
    ru.add_argument("--only", help="comma list of variant/anchor names")
    ru.add_argument("--no-anchors", action="store_true", help="skip the config's anchors")
    ru.add_argument("--keep-going", action="store_true", help="go on after a failed run")
    ru.add_argument("--confidence", type=float, default=95.0, choices=dpstat.CONFIDENCES,
                    help="t test confidence, percent (default 95)")
    ru.add_argument("--no-plots", action="store_true", help="no PNG/SVG plots")
    ru.add_argument("--dry-run", action="store_true", help="check, print the command lines, stop")
    ru.add_argument("--no-huge", action="store_true", help=f"force --no-huge -m {NO_HUGE_MEM_MB}")
    ru.add_argument("--no-build", action="store_true", help="do not (re)build the l3fwd anchor")
    ru.set_defaults(func=cmd_run)

    ba = sub.add_parser("build-anchors", help="build BUILD/anchors/dpdk-l3fwd")
    ba.add_argument("--build", required=True)
    ba.set_defaults(func=cmd_build_anchors)

    ls = sub.add_parser("list", help="print each program's command line")
    ls.add_argument("--build", required=True)
    ls.add_argument("--pcap", default="PCAP")
    ls.set_defaults(func=cmd_list)

    args = ap.parse_args(argv)
    for k in ("runs", "duration"):
        v = getattr(args, k, None)
        if v is not None and v < 1:
            ap.error(f"--{k} must be >= 1")
    for k in ("warmup", "cooldown"):
        v = getattr(args, k, None)
        if v is not None and v < 0:
            ap.error(f"--{k} must be >= 0")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
