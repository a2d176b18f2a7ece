#!/usr/bin/env python3
"""dpbench -- forwarding benchmark: dpfwd against its anchors.

    dpbench.py fwd-anchor --build BUILD --pcap PCAP [--runs 5] [--duration 10]
                          [--warmup 2] [--json OUT] [--only NAME,...] [--no-huge]
    dpbench.py build-anchors --build BUILD
    dpbench.py list --build BUILD

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

Python 3 standard library only.
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
from typing import Callable, Dict, List, Optional

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

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


def sample(tel: Telemetry) -> dict:
    # The timestamp brackets the TX-port queries only: pps is computed from
    # those; port 0 (RX side) is read just before, for the sanity columns.
    st = {RX_PORT: tel.cmd(f"/ethdev/stats,{RX_PORT}")}
    t0 = time.monotonic()
    for p in TX_PORTS:
        st[p] = tel.cmd(f"/ethdev/stats,{p}")
    t1 = time.monotonic()
    for p, v in st.items():
        if not isinstance(v, dict):
            raise RunError(f"telemetry has no stats for port {p}: {v!r}")
    return {"t": (t0 + t1) / 2,
            "tx": sum(st[p]["opackets"] for p in TX_PORTS),
            "rx": st[RX_PORT]["ipackets"],
            "imissed": st[RX_PORT]["imissed"],
            "rx_nombuf": st[RX_PORT].get("rx_nombuf", 0),
            "tx_back": st[RX_PORT]["opackets"],     # sent back out port 0
            "oerrors": sum(st[p]["oerrors"] for p in TX_PORTS)}


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


def run_one(prog: Program, ctx: Ctx, warmup: float, duration: int) -> dict:
    prefix = unique_prefix(prog.name)
    rtdir = dpdk_runtime_dir() / prefix
    sock_path = rtdir / "dpdk_telemetry.v2"
    logs = ctx.workdir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    logfile = logs / f"{prefix}.log"
    argv = prog.argv(ctx, prefix)
    env = dict(os.environ, **prog.env(ctx))
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
        if not isinstance(ports, list) or not {RX_PORT, *TX_PORTS} <= set(ports):
            # ports may still be probing; retry briefly
            for _ in range(50):
                time.sleep(0.1)
                ports = tel.cmd("/ethdev/list")
                if isinstance(ports, list) and {RX_PORT, *TX_PORTS} <= set(ports):
                    break
            else:
                raise RunError(f"expected ports 0,1,2, telemetry lists {ports!r}")
        # 2. wait until forwarding has started
        deadline = time.monotonic() + 60
        first = sample(tel)
        while True:
            time.sleep(0.2)
            if proc.poll() is not None:
                raise RunError(f"exited with status {proc.returncode} before forwarding")
            s = sample(tel)
            if s["tx"] > first["tx"]:
                break
            if time.monotonic() > deadline:
                raise RunError(f"nothing forwarded to ports 1,2 after 60 s (rx={s['rx']})")
        # 3. warm up, then sample every second
        time.sleep(warmup)
        samples = [sample(tel)]
        t_start = samples[0]["t"]
        for k in range(1, duration + 1):
            delay = t_start + k - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            if proc.poll() is not None:
                raise RunError(f"exited with status {proc.returncode} while measuring")
            samples.append(sample(tel))
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

    ba = sub.add_parser("build-anchors", help="build BUILD/anchors/dpdk-l3fwd")
    ba.add_argument("--build", required=True)
    ba.set_defaults(func=cmd_build_anchors)

    ls = sub.add_parser("list", help="print each program's command line")
    ls.add_argument("--build", required=True)
    ls.add_argument("--pcap", default="PCAP")
    ls.set_defaults(func=cmd_list)

    args = ap.parse_args(argv)
    if getattr(args, "runs", 1) < 1 or getattr(args, "duration", 1) < 1:
        ap.error("--runs and --duration must be >= 1")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
