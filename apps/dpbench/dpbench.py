#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpbench -- dpfwd's benchmarks: bench configs and variants, RFC 2544 searches, anchors.

    dpbench.py fwd-anchor --build BUILD --pcap PCAP [--runs 5] [--duration 10]
                          [--warmup 2] [--json OUT] [--only NAME,...] [--no-huge]
                          [--routes N] [--workers 1|2]
    dpbench.py run BENCH.ini [--runs N] [--duration S] [--warmup W] [--out DIR]
                   [--build BUILD] [--only NAME,...] [--no-anchors] [--keep-going]
                   [--confidence 95] [--no-plots] [--dry-run] [--no-huge]
    dpbench.py rfc2544 BENCH.ini [--only NAME,...] [--no-curve | --no-search] [--trial S]
                   [--repeats N] [--loss-tolerance PCT] [--resolution 1%|RATE]
                   [--max-rate max|RATE] [--points N] [--validate S] [--out DIR] [--dry-run]
    dpbench.py build-anchors --build BUILD
    dpbench.py list [--build BUILD] [--programs]
    dpbench.py relay | relay-pps ...   (relaybench.py: dpfwd's UDP relay vs a userspace
                                        relay, RTT/delay/CPU; relay pps on the pcap rig)
    dpbench.py dpsock | dpsock-tx ...  (dpsockbench.py: libdpsock vs Linux sockets and raw
                                        shared memory, 8 B..1 MiB; 63 KB UDP TX via dpfwd)
    dpbench.py preload ...             (preloadbench.py: sockperf's RTT and throughput
                                        under libdpsock-preload vs the kernel (RTT also vs
                                        dpsock-perf), per size; idle CPU)
    dpbench.py dns ...                 (dnsbench.py: nsd queried by dnsperf under
                                        libdpsock-preload vs the kernel: qps, qps/CPU-s)

`list` prints the shipped bench configs (configs/bench/*.ini with a [bench]
section) and the command that runs each.

`rfc2544` (memif rig) measures each variant in trials, one fresh dpfwd and
one dpgen at a fixed rate per trial: the top of the range (dpgen flat out),
the offered-load curve, and a binary search for the highest rate without
loss, validated by a longer trial; every failing trial names its
bottleneck (dpgen or dpfwd, from both sides' counters).  The search itself
is rfc2544.py (no DPDK; its tests run it on a model of the rig).

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

The memif rig (rig = memif): dpgen and dpfwd as two processes over one
net_memif interface, dpfwd the server (its port RX_PORT, a socket per
process under /tmp), dpgen the client, its worker on CPU 0, dpfwd's on CPU
1; dpfwd routes the traffic back to dpgen, which counts loss and latency.
See MemifRig and GenRun (and why dpfwd must stop before dpgen disconnects).

The pcap rig, identical for every program measured (only this machine, no NIC):
  port 0  net_pcap0,rx_pcap=PCAP,infinite_rx=1   line-rate generator
  port 1  net_null0                               sink  (198.18.1.0/24)
  port 2  net_null1                               sink  (198.18.2.0/24)
  one forwarding lcore: lcore 1 (CPU 1).  With --workers 2, port 0 has two
  RX queues (rx_pcap twice: each replays the whole pcap) and each program
  forwards on two lcores, one per CPU: l3fwd on lcores 0 and 1 (its main
  lcore forwards too); testpmd and dpfwd on lcores 1@CPU1 and 2@CPU0, their
  main lcore 0 sharing CPU 0 with worker 2 (testpmd's prints stats once a
  second; dpfwd's control lcore wakes every millisecond, a cost that is
  dpfwd's own and is in its numbers).  EAL also gets --no-pci (never
  touch the host's PCI NIC) and --in-memory (no hugepage/runtime files
  left behind; the telemetry socket is still created), or, without free
  hugepages, --no-huge -m 1024 (EAL refuses --in-memory with --no-huge).

Programs (data driven, see make_programs()):
  l3fwd     DPDK's examples/l3fwd built out of tree by anchors.sh into
            BUILD/anchors/dpdk-l3fwd; LPM lookup, software ptype.
  testpmd   dpdk-testpmd, io forward mode, port 0 -> port 1: the ceiling.
  --routes N: l3fwd/fib (l3fwd --lookup=fib, 2 routes), and l3fwd/fib/routes=N
            and dpfwd/.../routes=N: the same with N more prefixes
            (scripts/gen-routes.py, cached in BUILD/dpbench/routes/; none in
            198.18.0.0/15, so the flows keep the rig's 2 routes, now inside a
            big table): l3fwd with the rule file, dpfwd with --set
            routes.file=.  Printed: the time from start to forwarding, dpfwd's
            table load time, each pps against the same program with 2 routes,
            and dpfwd/.../routes=N against l3fwd/fib/routes=N.
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
import functools
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
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
import rfc2544   # noqa: E402
import relaybench  # noqa: E402  (relay, relay-pps: relaybench.py)
import dpsockbench  # noqa: E402  (dpsock, dpsock-tx: dpsockbench.py)
import preloadbench  # noqa: E402  (preload: preloadbench.py)
import dnsbench  # noqa: E402  (dns: dnsbench.py)

DEFAULT_DPFWD_CONFIG = "configs/bench/fwd-2000flows-64b.ini"
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
    metrics: bool = False      # dpfwd's per-second samples from its Prometheus endpoint
    workers: int = 1           # forwarding lcores (and port 0's RX queues)
    # dpfwd: port 0 replays pcap even with one worker (the config names another file)
    pcap_set: bool = False
    sets: Tuple[str, ...] = ()  # dpfwd: more --set SECTION.KEY=VALUE

    def pcap_vdev(self) -> str:
        # one rx_pcap per RX queue, each replaying the whole file
        rx = ",".join([f"rx_pcap={self.pcap}"] * self.workers)
        return f"net_pcap0,{rx},infinite_rx=1"

    def worker_cpus(self) -> List[int]:
        """The CPU of each forwarding lcore: FWD_LCORE's first, then the others."""
        return [(FWD_LCORE + k) % max(self.workers, FWD_LCORE + 1) for k in range(self.workers)]

    def main_and_workers(self) -> List[str]:
        """EAL lcores for a program whose main lcore does not forward: main lcore
        MAIN_LCORE on its CPU, forwarding lcores 1..N on worker_cpus()."""
        if self.workers == 1:
            return ["-l", f"{MAIN_LCORE},{FWD_LCORE}"]
        return ["--lcores", ",".join([f"{MAIN_LCORE}@{MAIN_LCORE}"] + [
            f"{k + 1}@{c}" for k, c in enumerate(self.worker_cpus())])]


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


L3FWD_BIN = "dpdk-l3fwd"                 # in BUILD/anchors: DPDK shared (the examples' default)
L3FWD_STATIC_BIN = "dpdk-l3fwd-static"   # DPDK's static libraries, as dpfwd links them


def l3fwd_argv(ctx: Ctx, prefix: str, binary: str = L3FWD_BIN) -> List[str]:
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
    # With N workers: lcores = CPUs 0..N-1, all forwarding (the main one too),
    # queue q polled by lcore q; port 0 has N RX queues and so N drop TX queues.
    cpus = [FWD_LCORE] if ctx.workers == 1 else list(range(ctx.workers))
    config = ",".join(f"(0,{q},{c})" for q, c in enumerate(cpus))
    return [str(ctx.build / "anchors" / binary),
            "-l", ",".join(map(str, cpus)), "--file-prefix", prefix, *COMMON_EAL, *ctx.mem,
            "--vdev", ctx.pcap_vdev(), "--vdev", "net_null0", "--vdev", "net_null1",
            "--",
            "-p", "0x7", "--config", config,
            "--lookup=lpm", "--parse-ptype",
            f"--rule_ipv4={rules / 'l3fwd-v4.cfg'}", f"--rule_ipv6={rules / 'l3fwd-v6.cfg'}"]


def l3fwd_check(ctx: Ctx, binary: str = L3FWD_BIN) -> Optional[str]:
    b = ctx.build / "anchors" / binary
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
    # With N workers: N forwarding cores and N queues on each port.
    n = ctx.workers
    return ["dpdk-testpmd",
            *ctx.main_and_workers(), "--file-prefix", prefix, *COMMON_EAL, *ctx.mem,
            "--vdev", ctx.pcap_vdev(),
            "--vdev", "net_null0,no-rx=1", "--vdev", "net_null1,no-rx=1",
            "--",
            "--forward-mode=io", f"--nb-cores={n}", "--portlist=0,1",
            "--port-topology=paired", f"--rxq={n}", f"--txq={n}",
            "--auto-start", "--stats-period=1"]


def testpmd_check(ctx: Ctx) -> Optional[str]:
    if not shutil.which("dpdk-testpmd"):
        return "dpdk-testpmd not in PATH (apt install dpdk)"
    return None


def dpfwd_bin(ctx: Ctx) -> Path:
    return ctx.build / "apps" / "dpfwd" / "dpfwd"


def make_dpfwd(stats: str, cksum: str, routes: Optional[Tuple[int, Path]] = None) -> Program:
    """ROUTES (N, FILE): the config's routes plus FILE's (--set routes.file=FILE);
    the program is then named .../routes=N."""
    # stats: all of the datapath's own measuring, per-node cycles and per-packet delay
    sets = [f"dpfwd.node_stats={stats}", f"dpfwd.delay_stats={stats}",
            f"dpfwd.ip4_cksum_check={cksum}"]
    if routes:
        sets.append(f"routes.file={routes[1]}")

    def argv(ctx: Ctx, prefix: str) -> List[str]:
        # dpfwd creates its vdevs itself from CONFIG (same order: 0 pcap,
        # 1 null, 2 null; pcap = ${DPFWD_BUILD}/pcap/fwd-2000flows-64b.pcap).
        a = [str(dpfwd_bin(ctx)),
             *ctx.main_and_workers(), "--file-prefix", prefix, *COMMON_EAL, *ctx.mem,
             "--", "-c", str(ctx.dpfwd_config), "--duration", "0"]
        for s in sets:
            a += ["--set", s]
        if ctx.workers > 1:
            # the anchors' port 0 (an RX queue per worker), polled by workers 1..N
            rx = ",".join(f"(0,{q},{q + 1})" for q in range(ctx.workers))
            a += ["--set", f"port0.dev={ctx.pcap_vdev()}", "--set", f"lcores.rx={rx}"]
        elif ctx.pcap_set:
            a += ["--set", f"port0.dev={ctx.pcap_vdev()}"]
        for s in ctx.sets:
            a += ["--set", s]
        return a

    def check(ctx: Ctx) -> Optional[str]:
        if not os.access(dpfwd_bin(ctx), os.X_OK):
            return f"{dpfwd_bin(ctx)} does not exist (yet): dpfwd runs skipped"
        if not ctx.dpfwd_config.is_file():
            return f"{ctx.dpfwd_config} does not exist: dpfwd runs skipped"
        return None

    return Program(name=f"dpfwd/stats={stats}/cksum={cksum}"
                   + (f"/routes={routes[0]}" if routes else ""), group="dpfwd",
                   argv=argv, check=check,
                   env=lambda ctx: {"DPFWD_BUILD": str(ctx.build)},
                   probes=["/dpfwd/graph/nodes", "/dpfwd/graph/lcores"])


def make_programs() -> List[Program]:
    progs = [Program("l3fwd", "l3fwd", l3fwd_argv, l3fwd_check),
             Program("l3fwd/static", "l3fwd",
                     functools.partial(l3fwd_argv, binary=L3FWD_STATIC_BIN),
                     functools.partial(l3fwd_check, binary=L3FWD_STATIC_BIN)),
             Program("testpmd", "testpmd", testpmd_argv, testpmd_check)]
    for stats in ("on", "off"):
        for cksum in ("on", "off"):
            progs.append(make_dpfwd(stats, cksum))
    return progs


def route_files(workdir: Path, n: int, seed: int = 1) -> Tuple[Path, Path]:
    """scripts/gen-routes.py's table of N prefixes, made once into WORKDIR/routes/:
    dpfwd's route file, and l3fwd's rule file with the rig's two /24s appended
    (the table leaves 198.18.0.0/15 out; dpfwd's config routes them itself), so
    that the pcap's flows (198.18.1.x, 198.18.2.x) are routed in both tables."""
    d = workdir / "routes"
    d.mkdir(parents=True, exist_ok=True)
    dp, l3 = d / f"routes-{n}-seed{seed}.txt", d / f"routes-{n}-seed{seed}.l3fwd"
    if not (dp.is_file() and l3.is_file()):
        tmp_dp, tmp_l3 = Path(str(dp) + ".tmp"), Path(str(l3) + ".tmp")
        subprocess.run([sys.executable, str(REPO / "scripts" / "gen-routes.py"), "-n", str(n),
                        "--seed", str(seed), "-o", str(tmp_dp), "--l3fwd", str(tmp_l3)],
                       check=True)
        with open(tmp_l3, "a") as f:
            f.write(L3FWD_RULES_V4)
        os.replace(tmp_dp, dp)
        os.replace(tmp_l3, l3)
    return dp, l3


def make_l3fwd_fib(routes: Optional[Tuple[int, Path]] = None) -> Program:
    """l3fwd on its FIB lookup (rte_fib, as dpfwd; its LPM adds scan their rules
    linearly and take minutes for 1M): l3fwd/fib with the rig's 2 routes, or
    with ROUTES (N, rule file: room made by anchors.sh) l3fwd/fib/routes=N."""
    def argv(ctx: Ctx, prefix: str) -> List[str]:
        a = [x for x in l3fwd_argv(ctx, prefix) if x != "--lookup=lpm"]
        if routes:
            a = [x for x in a if not x.startswith("--rule_ipv4=")]
            a.append(f"--rule_ipv4={routes[1]}")
        return a + ["--lookup=fib"]

    return Program("l3fwd/fib" + (f"/routes={routes[0]}" if routes else ""), "l3fwd", argv,
                   l3fwd_check)


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
    out = {"busy_cycles": 0, "idle_cycles": 0, "rx_pkts": 0, "tx_pkts": 0, "workers": 0,
           "instructions": 0}
    for w in v.values():
        if isinstance(w, dict):
            out["workers"] += 1
            for k in ("busy_cycles", "idle_cycles", "rx_pkts", "tx_pkts"):
                out[k] += _int(w.get(k))
            # hardware counters: "null" (as text) where the CPU or the VM has no PMU
            insn = w.get("instructions")
            if isinstance(insn, int) and out["instructions"] is not None:
                out["instructions"] += insn
            else:
                out["instructions"] = None
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
         "tx_bytes": sum(st[p]["obytes"] for p in tx_ports),
         "rx": st[rx_port]["ipackets"],
         "imissed": st[rx_port]["imissed"],
         "rx_nombuf": st[rx_port].get("rx_nombuf", 0),
         "tx_back": st[rx_port]["opackets"],     # sent back out the RX port
         "oerrors": sum(st[p]["oerrors"] for p in tx_ports)}
    for c in extra:
        key, reduce = PER_SECOND[c]
        s[key] = reduce(tel.cmd(c))
    return s


# --------------------------------------------------------------------------
# dpfwd's Prometheus endpoint (the bench key telemetry = metrics)
# --------------------------------------------------------------------------

PROM_LINE_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\S+)?$')
PROM_LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_prometheus(text: str) -> Dict[str, List[Tuple[Dict[str, str], float]]]:
    """Prometheus text format 0.0.4 -> {metric: [(labels, value)]} (comments skipped)."""
    out: Dict[str, List[Tuple[Dict[str, str], float]]] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = PROM_LINE_RE.match(line.strip())
        if not m:
            raise ValueError(f"not a Prometheus sample line: {line!r}")
        labels = {k: v.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
                  for k, v in PROM_LABEL_RE.findall(m.group(2) or "")}
        v = m.group(3)
        try:
            val = int(v)
        except ValueError:
            val = float(v)
        out.setdefault(m.group(1), []).append((labels, val))
    return out


def scrape(url: str, timeout: float = 5.0) -> Dict[str, List[Tuple[Dict[str, str], float]]]:
    import urllib.error
    import urllib.request
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return parse_prometheus(r.read().decode())
    except urllib.error.HTTPError as e:
        raise RunError(f"GET {url}: HTTP {e.code} {e.reason}") from None


def sample_metrics(url: str, rx_port: int, tx_ports, extra=()) -> dict:
    """One sample (the keys of sample()) from one scrape of dpfwd's /metrics: the
    ports' counters, and with EXTRA the lcores' and nodes' counters summed as
    reduce_lcores() and reduce_nodes() do.  One GET is one snapshot, so t is the
    middle of the request."""
    t0 = time.monotonic()
    m = scrape(url)
    t1 = time.monotonic()

    def port(name: str, p: int) -> int:
        for labels, v in m.get(name, []):
            if labels.get("port") == str(p):
                return int(v)
        raise RunError(f"{url} has no {name}{{port=\"{p}\"}}")

    s = {"t": (t0 + t1) / 2,
         "tx": sum(port("dpfwd_port_tx_packets_total", p) for p in tx_ports),
         "tx_bytes": sum(port("dpfwd_port_tx_bytes_total", p) for p in tx_ports),
         "rx": port("dpfwd_port_rx_packets_total", rx_port),
         "imissed": port("dpfwd_port_rx_missed_total", rx_port),
         "rx_nombuf": port("dpfwd_port_rx_nombuf_total", rx_port),
         "tx_back": port("dpfwd_port_tx_packets_total", rx_port),
         "oerrors": sum(port("dpfwd_port_tx_errors_total", p) for p in tx_ports)}
    if "/dpfwd/graph/lcores" in extra:
        lc = {"busy_cycles": 0, "idle_cycles": 0, "rx_pkts": 0, "tx_pkts": 0, "workers": 0}
        for name, key in (("dpfwd_lcore_busy_cycles_total", "busy_cycles"),
                          ("dpfwd_lcore_idle_cycles_total", "idle_cycles"),
                          ("dpfwd_lcore_rx_packets_total", "rx_pkts"),
                          ("dpfwd_lcore_tx_packets_total", "tx_pkts")):
            lc[key] = sum(int(v) for _, v in m.get(name, []))
        rx_series = m.get("dpfwd_lcore_rx_packets_total", [])
        lc["workers"] = len({labels.get("lcore") for labels, _ in rx_series})
        insn = m.get("dpfwd_lcore_instructions_total", [])
        lc["instructions"] = sum(int(v) for _, v in insn) if len(insn) == lc["workers"] else None
        s["lcores"] = lc
    if "/dpfwd/graph/nodes" in extra:
        nodes: Dict[str, dict] = {}
        for name, key in (("dpfwd_node_calls_total", "calls"),
                          ("dpfwd_node_packets_total", "pkts"),
                          ("dpfwd_node_cycles_total", "timed_cycles"),
                          ("dpfwd_node_timed_packets_total", "timed_pkts")):
            for labels, v in m.get(name, []):
                n = nodes.setdefault(labels.get("node", "?"),
                                     {"calls": 0, "pkts": 0, "timed_cycles": 0, "timed_pkts": 0})
                n[key] += int(v)
        s["nodes"] = nodes
    return s


# --------------------------------------------------------------------------
# Did the workers have their CPUs?  (this machine is shared)
# --------------------------------------------------------------------------

CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
CPU_SHARE_WARN = 0.9


def worker_ticks(pid: Optional[int]) -> Optional[Tuple[int, int]]:
    """(user + system clock ticks, number) of PID's DPDK worker threads
    (rte-worker-N), None when there is none (or the process is gone)."""
    if pid is None:
        return None
    total, n = 0, 0
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                if not f.read().startswith("rte-worker"):
                    continue
            fields = relaybench.proc_stat_fields(f"/proc/{pid}/task/{tid}/stat")
            total += int(fields[11]) + int(fields[12])       # utime, stime
            n += 1
        except (OSError, IndexError, ValueError):
            continue
    return (total, n) if n else None


def cpu_share(a: Optional[Tuple[int, int]], b: Optional[Tuple[int, int]], seconds: float
              ) -> Optional[float]:
    """Share of its CPU a worker thread had between two worker_ticks() readings
    SECONDS apart (1.0: all of it; a busy-polling worker that shares its CPU with
    another busy process gets about 0.5)."""
    if not a or not b or seconds <= 0 or a[1] != b[1]:
        return None
    return (b[0] - a[0]) / CLK_TCK / seconds / a[1]


def share_note(shares: Dict[str, Optional[float]]) -> str:
    """'' or a warning that a worker did not have its CPU to itself."""
    low = {k: v for k, v in shares.items() if v is not None and v < CPU_SHARE_WARN}
    if not low:
        return ""
    return "  WARNING: " + ", ".join(f"{k} worker had {v:.0%} of its CPU" for k, v in low.items()) \
        + " (another process ran there: numbers not representative)"


def stop_process(proc: subprocess.Popen, first=signal.SIGINT, wait_first: float = 20) -> str:
    """SIGINT (or FIRST), then SIGTERM, then SIGKILL, by pid; returns how it ended."""
    how = "already exited"
    for sig, wait in ((first, wait_first), (signal.SIGTERM, 5), (signal.SIGKILL, 5)):
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


def spawn(argv: List[str], env: Dict[str, str], logfile: Path) -> subprocess.Popen:
    """Start ARGV with its output in LOGFILE (first line: the command), in its own
    session, allowed on every CPU (dpbench itself keeps off the worker's)."""
    cpus = _all_cpus()
    with open(logfile, "wb") as lf:
        lf.write(("# " + " ".join(argv) + "\n").encode())
        lf.flush()
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=lf,
                                stderr=subprocess.STDOUT, env=env, start_new_session=True,
                                preexec_fn=lambda: os.sched_setaffinity(0, cpus))


def log_tail(logfile: Path) -> List[str]:
    """The error lines of a log (EAL, Cause, error, ...), or its last lines."""
    try:
        lines = Path(logfile).read_text(errors="replace").splitlines()
    except OSError:
        lines = []
    errs = [line for line in lines
            if re.search(r"EAL:|Cause:|[Ee]rror|FATAL|[Ii]nvalid|[Ff]ail", line)]
    return errs[-10:] if errs else lines[-15:]


def remove_runtime_dir(prefix: str) -> None:
    """--in-memory leaves no hugepage files (--no-huge uses none); remove our
    (unique) runtime dir: it keeps EAL's config files with --no-huge, and the
    socket if the process had to be killed."""
    rtdir = dpdk_runtime_dir() / prefix
    if rtdir.name.startswith("dpbench-") and rtdir.is_dir():
        shutil.rmtree(rtdir, ignore_errors=True)


def connect_telemetry(proc: subprocess.Popen, prefix: str, who: str = "") -> Telemetry:
    """Wait (60 s at most) for the process's DPDK telemetry socket and connect."""
    sock_path = dpdk_runtime_dir() / prefix / "dpdk_telemetry.v2"
    deadline = time.monotonic() + 60
    while True:
        if proc.poll() is not None:
            raise RunError(f"{who}exited with status {proc.returncode} during start-up")
        if sock_path.exists():
            try:
                return Telemetry(sock_path)
            except OSError:
                pass
        if time.monotonic() > deadline:
            raise RunError(f"{who}no telemetry socket {sock_path} after 60 s")
        time.sleep(0.1)


def wait_ports(tel: Telemetry, want_ports) -> None:
    ports = tel.cmd("/ethdev/list")
    if not isinstance(ports, list) or not set(want_ports) <= set(ports):
        # ports may still be probing; retry briefly
        for _ in range(50):
            time.sleep(0.1)
            ports = tel.cmd("/ethdev/list")
            if isinstance(ports, list) and set(want_ports) <= set(ports):
                break
        else:
            raise RunError(f"expected ports {','.join(map(str, sorted(want_ports)))}, "
                           f"telemetry lists {ports!r}")


def wait_run_info(tel: Telemetry, proc, timeout: float = 30.0):
    """dpfwd's /dpfwd/run/info, once it answers: dpfwd registers it after its
    ports have started and its modules are set up, so a slow start (a
    sanitizer's build) lists the ports a while before it."""
    deadline = time.monotonic() + timeout
    info = tel.cmd("/dpfwd/run/info")
    while not isinstance(info, dict) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
        info = tel.cmd("/dpfwd/run/info")
    return info


class GenRun:
    """dpgen on the memif rig, next to one dpfwd: started once dpfwd's ports
    exist (dpfwd is the memif server).  It runs with --hold: once its run is
    over (SIGINT, or its --duration) it writes its JSON and keeps the memif
    port open, polling nothing, until the next SIGINT.  So dpfwd can be
    stopped first: DPDK 22.11's memif PMD unmaps the shared rings when the
    peer disconnects, under the feet of a worker still polling them (dpfwd's
    worker died of that, SIGSEGV in librte_net_memif, about one trial in 10
    before this order).  Errors name dpgen."""

    HOLD_S = 120

    def __init__(self, rig: "MemifRig", prefix: str, logs: Path, rate: str, warmup: float,
                 duration: float = 0, sock: Optional[str] = None):
        self.rig, self.rate, self.warmup, self.duration = rig, rate, warmup, duration
        self.prefix = prefix + "-gen"
        self.log = logs / f"{self.prefix}.log"
        self.json = logs / f"{self.prefix}.json"
        self.sock = sock or rig.sock_path(prefix)
        self.proc: Optional[subprocess.Popen] = None
        self.argv: List[str] = []
        self.exit_status: Optional[int] = None

    def start(self, tel: Telemetry, rx_port: int) -> None:
        info = tel.cmd(f"/ethdev/info,{rx_port}")
        mac = info.get("mac_addr") if isinstance(info, dict) else None
        if not mac:
            raise RunError(f"dpfwd's telemetry has no MAC address for port {rx_port}: {info!r}")
        self.argv = self.rig.gen_argv(self.prefix, self.sock, mac, self.json, self.rate,
                                      self.warmup, self.duration, self.HOLD_S)
        self.proc = spawn(self.argv, dict(os.environ), self.log)

    def check(self, when: str) -> None:
        if self.proc is not None and self.proc.poll() is not None:
            raise RunError(f"dpgen exited with status {self.proc.returncode} {when} "
                           f"(log {self.log})")

    def wait_json(self, timeout: float, also: Optional[Callable[[], None]] = None) -> None:
        """Until dpgen has written its JSON (it then holds); ALSO() is called in
        between (to check on dpfwd)."""
        deadline = time.monotonic() + timeout
        while not self.json.exists():
            if self.proc.poll() is not None:
                raise RunError(f"dpgen exited with status {self.proc.returncode} before "
                               f"writing its JSON (log {self.log})")
            if also:
                also()
            if time.monotonic() > deadline:
                raise RunError(f"dpgen wrote no JSON within {timeout:.0f} s (log {self.log})")
            time.sleep(0.05)

    def finish(self) -> dict:
        """End its run (SIGINT: it stops sending, drains, writes its JSON) and
        read the JSON; it keeps holding the port until cleanup()."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGINT)
        self.wait_json(30)
        return self.read()

    def read(self) -> dict:
        try:
            j = json.loads(self.json.read_text())
        except (OSError, ValueError) as e:
            raise RunError(f"dpgen wrote no usable JSON {self.json}: {e}") from None
        return {"argv": self.argv, "log": str(self.log), "json": str(self.json),
                "measured": j.get("measured"), "samples": j.get("samples"),
                "total": j.get("total"), "config": j.get("config")}

    def quiesce(self) -> None:
        """Before dpfwd is stopped: make sure dpgen's lcores have stopped polling
        (its run ended: JSON written, holding), SIGINT if not; errors ignored."""
        if self.proc is None or self.proc.poll() is not None or self.json.exists():
            return
        try:
            os.kill(self.proc.pid, signal.SIGINT)
            self.wait_json(10)
        except (ProcessLookupError, RunError):
            pass

    def cleanup(self) -> None:
        """Stop it: SIGINT ends a run, the next one the hold; then SIGTERM, SIGKILL."""
        if self.proc is not None:
            for _ in range(2):
                if self.proc.poll() is not None:
                    break
                try:
                    os.kill(self.proc.pid, signal.SIGINT)
                    self.proc.wait(timeout=10)
                except (ProcessLookupError, subprocess.TimeoutExpired):
                    pass
            try:
                stop_process(self.proc, signal.SIGTERM, 5)
            except RunError:
                pass
            self.exit_status = self.proc.returncode
        remove_runtime_dir(self.prefix)


def run_one(prog: Program, ctx: Ctx, warmup: float, duration: int,
            keep_samples: bool = False, rig: Optional["MemifRig"] = None) -> dict:
    """Start PROG, wait until it forwards, warm up, sample every second for
    DURATION s, stop it.  res["ok"] False with res["error"] when it failed
    (res["log_tail"]: its log's last error lines).  keep_samples: every
    sample in res["samples"] (with PROG's per-second telemetry).  RIG (the
    memif rig): dpgen is started once dpfwd's ports exist and sends at the
    bench's gen_rate; its measured part (loss, latency) is res["gen"]."""
    prefix = unique_prefix(prog.name)
    logs = ctx.workdir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    logfile = logs / f"{prefix}.log"
    argv = prog.argv(ctx, prefix)
    env = dict(os.environ, **prog.env(ctx))
    want_ports = {ctx.rx_port, *ctx.tx_ports}
    tx_list = ",".join(str(p) for p in ctx.tx_ports)
    who = "dpfwd " if rig else ""
    gen = GenRun(rig, prefix, logs, rig.bench.gen_rate, warmup) if rig else None

    metrics_url = None

    def take() -> dict:
        if metrics_url:
            return sample_metrics(metrics_url, ctx.rx_port, ctx.tx_ports, prog.per_second)
        return sample(tel, ctx.rx_port, ctx.tx_ports, prog.per_second)

    def alive(when: str) -> None:
        if proc.poll() is not None:
            raise RunError(f"{who}exited with status {proc.returncode} {when}")
        if gen:
            gen.check(when)

    res = {"program": prog.name, "prefix": prefix, "argv": argv, "log": str(logfile)}
    t_spawn = time.monotonic()
    proc = spawn(argv, env, logfile)
    tel = None
    failed_gen = False
    try:
        # 1. wait for the telemetry socket and the ports
        tel = connect_telemetry(proc, prefix, who)
        wait_ports(tel, want_ports)
        if ctx.metrics and prog.group == "dpfwd":
            info = wait_run_info(tel, proc)
            metrics_url = info.get("metrics") if isinstance(info, dict) else None
            if not metrics_url:
                raise RunError(f"dpfwd serves no metrics endpoint (/dpfwd/run/info: {info!r})")
            res["metrics_url"] = metrics_url
        if gen:
            gen.start(tel, ctx.rx_port)
            res["gen_log"] = str(gen.log)
        # 2. wait until forwarding has started
        deadline = time.monotonic() + 60
        first = take()
        while True:
            time.sleep(0.2)
            alive("before forwarding")
            s = take()
            if s["tx"] > first["tx"]:
                # start to forwarding (within 0.2 s): EAL, ports, tables (routes)
                res["forwarding_after_s"] = time.monotonic() - t_spawn
                break
            if time.monotonic() > deadline:
                raise RunError(f"nothing forwarded to ports {tx_list} after 60 s (rx={s['rx']})")
        # 3. warm up, then sample every second
        time.sleep(warmup)
        alive("while warming up")
        ticks0 = {"dpfwd": worker_ticks(proc.pid),
                  "dpgen": worker_ticks(gen.proc.pid) if gen else None}
        w0 = time.monotonic()
        samples = [take()]
        t_start = samples[0]["t"]
        for k in range(1, duration + 1):
            delay = t_start + k - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            alive("while measuring")
            samples.append(take())
        w1 = time.monotonic()
        res["cpu_share"] = {k: cpu_share(v, worker_ticks(proc.pid if k == "dpfwd" else
                                                         gen.proc.pid), w1 - w0)
                            for k, v in ticks0.items() if v}
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
        # 4. dpgen's JSON (it then holds its port: dpfwd stops first), then the
        # optional extra telemetry
        if gen:
            failed_gen = True
            res["gen"] = gen.finish()
            failed_gen = False
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
        if not isinstance(e, RunError):
            # a telemetry or HTTP read that failed: most often because the process died
            time.sleep(0.2)
            if proc.poll() is not None:
                res["error"] = f"{who}exited with status {proc.returncode} ({e})"
            elif metrics_url and isinstance(e, OSError):
                res["error"] = f"metrics endpoint {metrics_url}: {e}"
        if gen and (failed_gen or str(e).startswith("dpgen")):
            res["failed_process"] = "dpgen"
        elif gen:
            res["failed_process"] = "dpfwd"
    finally:
        if tel:
            tel.close()
        if gen:
            gen.quiesce()
        res["stopped_by"] = stop_process(proc)
        res["exit_status"] = proc.returncode
        if gen:
            gen.cleanup()
            if "gen" in res:
                res["gen"]["exit_status"] = gen.exit_status
        remove_runtime_dir(prefix)
        if rig:
            rig.remove_socket(rig.sock_path(prefix))
    if not res["ok"]:
        tail = log_tail(logfile)
        if gen and res.get("failed_process") == "dpgen":
            tail = [f"(dpgen) {line}" for line in log_tail(gen.log)] + tail
        res["log_tail"] = tail
    return res


# --------------------------------------------------------------------------
# The memif rig: dpgen <-> dpfwd, two processes over net_memif
# --------------------------------------------------------------------------

GEN_CPU = MAIN_LCORE          # dpgen's worker: CPU 0 (with the main lcores); dpfwd's: CPU 1
GEN_NO_HUGE_MEM_ARGS = ["--no-huge", "-m", "512"]


def dpgen_bin(build: Path) -> Path:
    return build / "apps" / "dpgen" / "dpgen"


class MemifRig:
    """dpfwd's port RX_PORT becomes a memif server (--set portN.dev=net_memif...)
    on a socket of its own for each dpfwd process, in a private folder under
    /tmp that cleanup() removes; dpgen is the client, one worker lcore on CPU 0
    doing TX and RX, with the MAC the dpfwd config names as its next hop
    (benchcfg.GEN_MAC).  dpfwd routes what it receives back out of the same
    port.  This machine has 2 CPUs: dpfwd's worker has CPU 1 to itself, dpgen's
    worker shares CPU 0 with both main lcores (which sleep) and dpbench."""

    def __init__(self, bench: "benchcfg.BenchConfig", build: Path, mem: List[str]):
        self.bench, self.build = bench, build
        self.dir = Path(tempfile.mkdtemp(prefix="dpbench-memif-"))
        self.gen_mem = GEN_NO_HUGE_MEM_ARGS if "--no-huge" in mem else list(HUGE_MEM_ARGS)

    def sock_path(self, prefix: str) -> str:
        return str(self.dir / f"{prefix}.sock")

    def dpfwd_sets(self, prefix: str) -> List[str]:
        p = self.bench.rx_port
        return ["--set", f"port{p}.dev=net_memif{p},role=server,id=0,"
                         f"socket={self.sock_path(prefix)},socket-abstract=no"]

    def gen_argv(self, prefix: str, sock: str, dst_mac: str, json_path: Path, rate: str,
                 warmup: float, duration: float, hold: int = 120) -> List[str]:
        return [str(dpgen_bin(self.build)), "--lcores", f"0@{GEN_CPU},1@{GEN_CPU}",
                "--file-prefix", prefix, *COMMON_EAL, *self.gen_mem,
                "--vdev", f"net_memif0,role=client,id=0,socket={sock},socket-abstract=no,"
                          f"mac={benchcfg.GEN_MAC}",
                "--", "--tx-port", "0", "--rx-port", "0", *self.bench.gen_traffic_args(),
                "--src-mac", benchcfg.GEN_MAC, "--dst-mac", dst_mac, "--rate", rate,
                "--warmup", f"{warmup:g}", "--duration", f"{duration:g}", "--quiet",
                "--hold", str(hold), "--json", str(json_path)]

    def check(self) -> Optional[str]:
        b = dpgen_bin(self.build)
        if not os.access(b, os.X_OK):
            return f"{b} does not exist (build it: ninja -C {self.build})"
        if self.bench.gen_pcap and not Path(self.bench.gen_pcap).is_file():
            return (f"gen_pcap {self.bench.gen_pcap} not found ({self.bench.path}:"
                    f"{self.bench.lines.get('gen_pcap', 0)}; the build makes the shipped ones: "
                    f"ninja -C {self.build})")
        return None

    def remove_socket(self, sock: str) -> None:
        try:
            os.unlink(sock)
        except OSError:
            pass

    def cleanup(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


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


def config_rx_pcap(cfg: Path, build: Path) -> Optional[Path]:
    """The first rx_pcap= in a dpfwd config's dev lines, ${DPFWD_BUILD} as BUILD; None when none."""
    try:
        text = cfg.read_text()
    except OSError:
        return None
    m = re.search(r"^\s*dev\s*=.*\brx_pcap=([^,\s]+)", text, re.M)
    if m is None:
        return None
    return Path(m.group(1).replace("${DPFWD_BUILD}", str(build))).resolve()


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

    if args.workers < 1 or args.workers > (os.cpu_count() or 1):
        warn(f"--workers {args.workers}: between 1 and this machine's {os.cpu_count()} CPUs")
        return 2
    ctx = Ctx(build=build, pcap=pcap, workdir=workdir, mem=mem_args(args.no_huge),
              dpfwd_config=cfg, workers=args.workers)

    progs = make_programs()
    if args.routes:
        # beside each program with the rig's 2 routes, the same with the big table
        dp_routes, l3_rules = route_files(workdir, args.routes)
        log(f"routes: {args.routes} generated prefixes + the rig's 2: {dp_routes} (dpfwd), "
            f"{l3_rules} (l3fwd --lookup=fib)")
        progs.insert(1, make_l3fwd_fib())
        big = [make_l3fwd_fib((args.routes, l3_rules))]
        for stats in ("on", "off"):
            for cksum in ("on", "off"):
                big.append(make_dpfwd(stats, cksum, (args.routes, dp_routes)))
        progs = [q for p in progs
                 for q in [p] + [b for b in big if b.name == p.name + f"/routes={args.routes}"]]
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
        dp = config_rx_pcap(cfg, build)
        if dp is not None and dp != pcap:
            log(f"WARNING: dpfwd reads {dp} (its config {cfg.name} says so) "
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
                    if "/routes=" in p.name:
                        m = re.search(r"IPv4 routes loaded in ([0-9.]+) s",
                                      Path(res["log"]).read_text(errors="replace"))
                        res["routes_loaded_s"] = float(m.group(1)) if m else None
                        log(f"      {p.name}: forwarding {res['forwarding_after_s']:.1f} s after "
                            f"start" + (f", dpfwd's table loaded in {m.group(1)} s" if m else ""))
                    lc = res.get("probes", {}).get("/dpfwd/graph/lcores")
                    if ctx.workers > 1 and isinstance(lc, dict):
                        # each worker's share of what the run received (whole run)
                        log("      " + p.name + " per worker: " + ", ".join(
                            f"lcore {w.get('lcore')} {_int(w.get('rx_pkts')) / 1e6:.1f} M pkts "
                            f"{w.get('cycles_per_pkt')} cycles/pkt"
                            for _, w in sorted(lc.items()) if isinstance(w, dict)))
                    log(f"[{i:>2}/{total}] {p.name:<28} {res['pps'] / 1e6:8.3f} Mpps  "
                        f"(rx {res['rx_pps'] / 1e6:.3f}, "
                        f"1s {min(ps) / 1e6:.2f}..{max(ps) / 1e6:.2f}"
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
    base = {g: summ.get(g, {}).get("median") for g in ("l3fwd", "l3fwd/static", "testpmd")}
    dps = [p for p in active if p.group == "dpfwd" and summ[p.name].get("n")]

    def round_ratios(name: str, anchor: str) -> List[float]:
        """NAME's pps / ANCHOR's in the same round, for each round both ran: the
        machine's slow and fast spells cancel out."""
        a = {x["round"]: x["pps"] for x in results.get(anchor, []) if x.get("ok")}
        return [x["pps"] / a[x["round"]] for x in results.get(name, [])
                if x.get("ok") and a.get(x["round"])]

    def ratio_cell(v: Optional[float]) -> str:
        return f"{v:8.3f}" if v is not None else "     n/a"

    def rounds_cell(v: List[float]) -> str:
        return f"{statistics.median(v):.3f} ({min(v):.3f}..{max(v):.3f})" if v else "n/a"

    if dps:
        log("")
        log(f"{'ratio of medians':<28} {'/l3fwd':>8} {'/l3fwd-static':>14} {'/testpmd':>9}"
            f"   {'per-round /l3fwd, /l3fwd-static (median)':>42}")
        for p in dps:
            m = summ[p.name]["median"]
            sfx = p.name[p.name.find("/routes="):] if "/routes=" in p.name else ""
            r = {k: (m / v if v else None) for k, v in base.items()}
            if sfx:
                # against l3fwd with the same table (its FIB lookup)
                v = summ.get("l3fwd/fib" + sfx, {}).get("median")
                r["l3fwd"] = m / v if v else None
            ratios[p.name] = {f"{p.name}/{k}": v for k, v in r.items()}
            per = {k: round_ratios(p.name, k) for k in ("l3fwd", "l3fwd/static")}
            for k, v in per.items():
                if v and not sfx:
                    ratios[p.name][f"{p.name}/{k}/per_round_median"] = statistics.median(v)
            log(f"{p.name:<28} {ratio_cell(r['l3fwd'])} {ratio_cell(r['l3fwd/static']):>14} "
                f"{ratio_cell(r['testpmd']):>9}"
                + ("" if sfx else
                   f"   {rounds_cell(per['l3fwd'])}, {rounds_cell(per['l3fwd/static'])}"))
    elif base["l3fwd"] and base["testpmd"]:
        log("")
        log(f"l3fwd/testpmd (medians): {base['l3fwd'] / base['testpmd']:.3f}")
    if args.routes:
        # each program with the big table against itself with the rig's 2 routes
        pairs = [(p.name, p.name[:p.name.find("/routes=")]) for p in active if "/routes=" in p.name]
        pairs = [(b, s) for b, s in pairs if summ.get(b, {}).get("n") and summ.get(s, {}).get("n")]
        if pairs:
            log("")
            log(f"{'routes=%d vs 2 routes' % args.routes:<40} {'ratio of medians':>16}")
            for b, s2 in pairs:
                ratios.setdefault(b, {})[f"{b}/{s2}"] = summ[b]["median"] / summ[s2]["median"]
                log(f"{b:<40} {summ[b]['median'] / summ[s2]['median']:16.3f}")

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
                       "fwd_lcore": FWD_LCORE, "workers": ctx.workers,
                       "worker_cpus": ctx.worker_cpus(), "host": os.uname().nodename,
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
    "gbps": {"label": "Gbps forwarded", "file": "gbps",
             "what": "frame bytes (with the 4-byte FCS) out of the TX ports x 8 / 1e9 per "
                     "second, per-run median of 1 s samples"},
    "cycles_per_pkt": {"label": "cycles/packet", "file": "cycles-per-pkt",
                       "what": "worker lcores' busy TSC cycles / packets received, per-run "
                               "median of 1 s samples (dpfwd only)"},
    "insn_per_pkt": {"label": "instructions/packet", "file": "insn-per-pkt",
                     "what": "worker lcores' retired instructions / packets received, per-run "
                             "median of 1 s samples (dpfwd, where the CPU has a PMU: not in "
                             "a VM without one)"},
    # from dpgen's measured part (memif rig): one value per run, not a median of samples
    "loss_pct": {"label": "loss %", "file": "loss-pct", "source": "dpgen",
                 "what": "frames dpgen sent and did not get back, percent, over the run's "
                         "measured part (memif rig)"},
    "lat_p50_us": {"label": "latency p50 us", "file": "latency-p50", "source": "dpgen",
                   "what": "dpgen's round-trip latency through dpfwd, median, us (memif rig)"},
    "lat_p99_us": {"label": "latency p99 us", "file": "latency-p99", "source": "dpgen",
                   "what": "dpgen's round-trip latency through dpfwd, 99th percentile, us "
                           "(memif rig)"},
}
FCS_BYTES = 4
SOURCE_NODE = "port_rx"           # the graph's source: per received packet = per its packets
DPFWD_PER_SECOND = ["/dpfwd/graph/lcores", "/dpfwd/graph/nodes"]
# Not an EAL option: dpfwd checks its config and every --set first (exit 2
# on a mistake), then EAL refuses the option and dpfwd exits 1 at once.
PREFLIGHT_EAL_ARG = "--dpbench-preflight"
RESULTS_SCHEMA = "dpbench-run/1"


def derive_per_second(samples: List[dict]) -> dict:
    """Rates between consecutive samples: t (s since the first sample), mpps,
    gbps (frames with the FCS), rx_mpps and, when the samples carry dpfwd's
    lcore counters, cycles_per_pkt (busy cycles / packets received in the
    interval)."""
    out = {"t": [], "mpps": [], "gbps": [], "rx_mpps": [], "cycles_per_pkt": [],
           "insn_per_pkt": []}
    if not samples:
        return out
    t0 = samples[0]["t"]
    for a, b in zip(samples, samples[1:]):
        dt = b["t"] - a["t"]
        if dt <= 0:
            continue
        out["t"].append(round(b["t"] - t0, 4))
        out["mpps"].append((b["tx"] - a["tx"]) / dt / 1e6)
        if "tx_bytes" in a and "tx_bytes" in b:
            frames = (b["tx_bytes"] - a["tx_bytes"]) + FCS_BYTES * (b["tx"] - a["tx"])
            out["gbps"].append(frames * 8 / dt / 1e9)
        out["rx_mpps"].append((b["rx"] - a["rx"]) / dt / 1e6)
        la, lb = a.get("lcores"), b.get("lcores")
        if la and lb and lb["rx_pkts"] > la["rx_pkts"]:
            out["cycles_per_pkt"].append(
                (lb["busy_cycles"] - la["busy_cycles"]) / (lb["rx_pkts"] - la["rx_pkts"]))
            if la.get("instructions") is not None and lb.get("instructions") is not None:
                out["insn_per_pkt"].append((lb["instructions"] - la["instructions"])
                                           / (lb["rx_pkts"] - la["rx_pkts"]))
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
    res["median"] = {m: (statistics.median(ps[m]) if ps.get(m) else None) for m in METRICS
                     if METRICS[m].get("source") != "dpgen"}
    m = (res.get("gen") or {}).get("measured") or {}
    lat = m.get("latency_ns") or {}
    res["median"]["loss_pct"] = (m.get("seq") or {}).get("loss_pct")
    res["median"]["lat_p50_us"] = lat["p50"] / 1e3 if lat.get("p50") is not None else None
    res["median"]["lat_p99_us"] = lat["p99"] / 1e3 if lat.get("p99") is not None else None
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
        got = [r["nodes"] for r in runs
               if r["program"] == p.name and r.get("ok") and r.get("nodes")]
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
    lines = [line.strip() for line in p.stderr.splitlines() if line.strip()]
    errs = [line.replace("dpfwd: error: ", "", 1) for line in lines
            if line.startswith("dpfwd: error:")]
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


def make_variant_program(bench: "benchcfg.BenchConfig", v,
                         rig_sets: Callable[[str], List[str]]) -> Program:
    """RIG_SETS(prefix): the rig's --set arguments for the process with that
    file prefix (the memif rig gives each its own socket)."""

    def argv(ctx: Ctx, prefix: str) -> List[str]:
        # dpfwd adds -l, --vdev and the rest from its config; the final
        # telemetry JSON of each run is kept next to its log.
        return [str(dpfwd_bin(ctx)), "--file-prefix", prefix, *COMMON_EAL, *ctx.mem,
                "--", "-c", str(bench.config), "--duration", "0",
                "--telemetry-json", str(ctx.workdir / "telemetry" / f"{prefix}.json"),
                *rig_sets(prefix), *bench.set_args(v)]

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

    mem = mem_args(bench.no_huge or args.no_huge)
    rig = MemifRig(bench, build, mem) if bench.rig == "memif" else None
    try:
        return _cmd_run(args, build, bench, runs, duration, warmup, cooldown, variants, anchors,
                        mem, rig)
    finally:
        if rig:
            rig.cleanup()


def _cmd_run(args, build, bench, runs, duration, warmup, cooldown, variants, anchors, mem,
             rig) -> int:
    pcap = Path(bench.pcap) if bench.pcap else None
    if rig:
        port_sets = rig.dpfwd_sets
    else:
        pcap_sets = ["--set", f"port{bench.rx_port}.dev=net_pcap{bench.rx_port},"
                              f"rx_pcap={pcap},infinite_rx=1"]
        port_sets = lambda prefix: pcap_sets    # noqa: E731
    # telemetry = metrics: dpfwd serves /metrics on a free port of 127.0.0.1 (its
    # /dpfwd/run/info names it) and dpbench reads its samples from there
    metrics_sets = ["--set", "dpfwd.metrics=127.0.0.1:0"] if bench.telemetry == "metrics" else []
    rig_sets = lambda prefix: port_sets(prefix) + metrics_sets    # noqa: E731
    dpfwd = build / "apps" / "dpfwd" / "dpfwd"
    env = dict(os.environ, DPFWD_BUILD=str(build))
    if variants:
        if not os.access(dpfwd, os.X_OK):
            warn(f"{dpfwd} does not exist: build dpfwd first (ninja -C {build})")
            return 1
        try:
            preflight(bench, variants, dpfwd, env, rig_sets("dpbench-preflight"))
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
    ctx = Ctx(build=build, pcap=pcap, workdir=out, mem=mem, dpfwd_config=bench.config,
              rx_port=bench.rx_port, tx_ports=tuple(bench.tx_ports),
              metrics=bench.telemetry == "metrics")

    if args.dry_run:
        sys.stdout.write(benchcfg.describe(bench))
        for p in programs:
            log(f"{p.name}:\n    {' '.join(p.argv(ctx, 'PREFIX'))}")
        if rig:
            log("dpgen (started once dpfwd's ports exist; DPFWD_MAC from its telemetry):\n    "
                + " ".join(rig.gen_argv("PREFIX-gen", rig.sock_path("PREFIX"), "DPFWD_MAC",
                                        out / "logs" / "PREFIX-gen.json", bench.gen_rate,
                                        warmup, 0)))
        return 0

    if rig:
        why = rig.check()
        if why:
            warn(why)
            return 1
    elif not pcap.is_file():
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
            "env": {"build": str(build), "dpfwd": str(dpfwd),
                    "pcap": str(pcap) if pcap else None,
                    "dpgen": str(dpgen_bin(build)) if rig else None,
                    "mem_args": mem, "common_eal": COMMON_EAL,
                    "rig_sets": rig_sets("PREFIX"),
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
            res = run_one(p, ctx, warmup, duration, keep_samples=True,
                          rig=rig if p.group == "dpfwd" else None)
            res.update({"index": i, "repetition": r,
                        "kind": "variant" if p.group == "dpfwd" else "anchor"})
            if p.group == "dpfwd":
                tj = Path(res["argv"][res["argv"].index("--telemetry-json") + 1])
                res["telemetry_json"] = str(tj) if tj.exists() else None
            if res["ok"]:
                finish_run(res)
                ps = res["per_second"]["mpps"]
                med = res["median"]
                cyc, gb = med["cycles_per_pkt"], med["gbps"]
                log(f"[{i:>2}/{total}] {p.name:<28} rep {r}  {med['mpps']:8.3f} Mpps"
                    f"  (1s {min(ps):.2f}..{max(ps):.2f})"
                    + (f"  {gb:7.3f} Gbps" if gb is not None else "")
                    + (f"  {cyc:6.1f} cyc/pkt" if cyc is not None else "")
                    + (f"  loss {med['loss_pct']:.4g}%" if med.get("loss_pct") is not None else "")
                    + (f"  lat p50 {med['lat_p50_us']:.1f} p99 {med['lat_p99_us']:.1f} us"
                       if med.get("lat_p99_us") is not None else "")
                    + share_note(res.get("cpu_share") or {}))
            else:
                why = (f"run {i} of {total} ({p.name}, repetition {r}) failed: "
                       f"{res['error']}; exit status {res['exit_status']}, "
                       f"stopped by {res['stopped_by']}; log {res['log']}")
                log(f"[{i:>2}/{total}] {p.name:<28} rep {r}  FAILED: {res['error']}")
                for line in res.get("log_tail", []):
                    log("      | " + line)
                failed.append({"index": i, "program": p.name, "repetition": r,
                               "error": res["error"], "exit_status": res["exit_status"],
                               "process": res.get("failed_process", p.group),
                               "log": res["log"], "gen_log": res.get("gen_log"),
                               "log_tail": res.get("log_tail", [])})
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


# --------------------------------------------------------------------------
# rfc2544: the offered-load curve and the zero-loss throughput search
# --------------------------------------------------------------------------

RFC2544_SCHEMA = "dpbench-rfc2544/1"


class TrialRunner:
    """The trials of one variant on the memif rig.  Each trial is a fresh dpfwd
    (it starts in about 0.2 s) and one dpgen that sends for warmup + trial
    seconds and writes its JSON; dpfwd's counters are read once dpgen is done,
    then dpfwd is stopped.  A fresh dpfwd per trial keeps the trials
    independent: no state (queues, a half-torn-down memif connection) carries
    over from one to the next.  Errors name the process that failed."""

    def __init__(self, prog: Program, ctx: Ctx, rig: MemifRig):
        self.prog, self.ctx, self.rig = prog, ctx, rig
        self.base = unique_prefix(prog.name)
        self.logs = ctx.workdir / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.n = 0
        self.last_log: Optional[Path] = None

    def _counters(self, tel: Telemetry) -> dict:
        ports = {p: tel.cmd(f"/ethdev/stats,{p}")
                 for p in sorted({self.ctx.rx_port, *self.ctx.tx_ports})}
        drops = tel.cmd("/dpfwd/graph/drops")
        lc = reduce_lcores(tel.cmd("/dpfwd/graph/lcores")) or {}
        for p, v in ports.items():
            if not isinstance(v, dict):
                raise RunError(f"dpfwd's telemetry has no stats for port {p}: {v!r}")
        by = drops.get("by_reason", {}) if isinstance(drops, dict) else {}
        return {"rx": ports[self.ctx.rx_port]["ipackets"],
                "tx": sum(ports[p]["opackets"] for p in self.ctx.tx_ports),
                "imissed": ports[self.ctx.rx_port]["imissed"],
                "rx_nombuf": ports[self.ctx.rx_port].get("rx_nombuf", 0),
                "oerrors": sum(ports[p]["oerrors"] for p in self.ctx.tx_ports),
                "drops": {k: _int(v) for k, v in by.items()},
                "busy_cycles": lc.get("busy_cycles", 0), "rx_pkts": lc.get("rx_pkts", 0),
                "tx_pkts": lc.get("tx_pkts", 0)}

    def trial(self, rate: Optional[float], secs: float, warmup: float) -> dict:
        """dpgen at RATE (pps; None = max) for WARMUP + SECS; its measured part
        (after WARMUP) and dpfwd's counters over the whole trial."""
        self.n += 1
        prefix = f"{self.base}-t{self.n}"
        log_path = self.logs / f"{prefix}.log"
        self.last_log = log_path
        argv = self.prog.argv(self.ctx, prefix)
        proc = spawn(argv, dict(os.environ, **self.prog.env(self.ctx)), log_path)
        tel = None
        rate_text = "max" if rate is None else benchcfg.fmt_pps(rate)
        gen = GenRun(self.rig, prefix, self.logs, rate_text, warmup, warmup + secs)

        def alive(when: str) -> None:
            if proc.poll() is not None:
                raise RunError(f"dpfwd exited with status {proc.returncode} {when} "
                               f"(log {log_path})")

        try:
            tel = connect_telemetry(proc, prefix, "dpfwd ")
            wait_ports(tel, {self.ctx.rx_port, *self.ctx.tx_ports})
            before = self._counters(tel)
            fwd0, w0 = worker_ticks(proc.pid), time.monotonic()
            gen.start(tel, self.ctx.rx_port)
            gen.wait_json(warmup + secs + 60, lambda: alive("during the trial"))
            alive("at the end of the trial")
            shares = {"dpfwd": cpu_share(fwd0, worker_ticks(proc.pid), time.monotonic() - w0),
                      "dpgen": cpu_share((0, 1), worker_ticks(gen.proc.pid),
                                         warmup + secs + 0.1)}
            after = self._counters(tel)
            out = gen.read()
        finally:
            # dpfwd first, while dpgen holds its port (see GenRun)
            if tel:
                tel.close()
            gen.quiesce()
            stopped_by = stop_process(proc)
            gen.cleanup()
            remove_runtime_dir(prefix)
            self.rig.remove_socket(self.rig.sock_path(prefix))
        if proc.returncode != 0:
            raise RunError(f"dpfwd exited with status {proc.returncode} when stopped "
                           f"({stopped_by}; log {log_path})")
        m = out.get("measured")
        if not m or not m.get("seq"):
            raise RunError(f"dpgen measured nothing (its JSON {gen.json} has no measured part)")
        d = {k: after[k] - before[k] for k in ("rx", "tx", "imissed", "rx_nombuf", "oerrors",
                                               "busy_cycles", "rx_pkts", "tx_pkts")}
        d["drops"] = {k: v - before["drops"].get(k, 0) for k, v in after["drops"].items()
                      if v - before["drops"].get(k, 0)}
        lat = m.get("latency_ns") or {}
        return {"offered_pps": rate, "tx_pps": m["tx"]["pps"], "rx_pps": m["rx"]["pps"],
                "tx_gbps": m["tx"]["gbps_frame"], "rx_gbps": m["rx"]["gbps_frame"],
                "sent": m["seq"]["sent"], "lost": m["seq"]["lost"],
                "reordered": m["seq"]["reordered"], "duplicates": m["seq"]["duplicates"],
                "measured_s": m["duration_s"],
                "latency_us": {k: (lat[k] / 1e3 if lat.get(k) is not None else None)
                               for k in ("p50", "p99", "p99_9", "max")},
                "gen": {"queue_full": m["tx"]["queue_full"], "behind_s": m["tx"]["behind_s"],
                        "nombuf": m["tx"]["nombuf"]},
                "dut": {"rx_pkts": d["rx_pkts"], "tx_pkts": d["tx_pkts"],
                        "imissed": d["imissed"], "rx_nombuf": d["rx_nombuf"],
                        "oerrors": d["oerrors"], "drops": d["drops"],
                        "cycles_per_pkt": (d["busy_cycles"] / d["rx_pkts"]
                                           if d["rx_pkts"] else None)},
                "cpu_share": shares, "warning": share_note(shares).strip(),
                "dpfwd_log": str(log_path), "dpfwd_exit_status": proc.returncode,
                "dpfwd_stopped_by": stopped_by, "dpgen_log": out["log"],
                "dpgen_json": out["json"]}


def search_options(args, bench: "benchcfg.BenchConfig") -> benchcfg.SearchConfig:
    """[rfc2544] of the bench config (defaults without one), then the command line."""
    sc = bench.search or benchcfg.SearchConfig()
    if args.trial is not None:
        sc.trial = args.trial
    if args.trial_warmup is not None:
        sc.warmup = args.trial_warmup
    if args.repeats is not None:
        sc.repeats = args.repeats
    if args.loss_tolerance is not None:
        sc.loss_tolerance = args.loss_tolerance
    if args.points is not None:
        sc.points = args.points
    if args.validate is not None:
        sc.validate = args.validate
    if args.max_trials is not None:
        sc.max_trials = args.max_trials
    if args.resolution is not None:
        if args.resolution.endswith("%"):
            sc.resolution = ("pct", float(args.resolution[:-1]))
        else:
            sc.resolution = ("pps", benchcfg.parse_pps(args.resolution))
    if args.max_rate is not None:
        sc.max_rate = None if args.max_rate == "max" else benchcfg.parse_pps(args.max_rate)
    return sc


def cmd_rfc2544(args) -> int:
    build = Path(args.build).resolve() if args.build else benchcfg.default_build()
    try:
        bench = benchcfg.load(args.bench, build)
    except benchcfg.BenchConfigError as e:
        warn(str(e))
        return 2
    if bench.rig != "memif":
        warn(f"{bench.path}:{bench.lines.get('rig', 0)}: rfc2544 needs rig = memif (dpgen "
             f"offers the rate and counts what comes back); this is rig = {bench.rig}")
        return 2
    sc = search_options(args, bench)
    variants = bench.ordered_variants()
    if args.only:
        want = [w.strip() for w in args.only.split(",") if w.strip()]
        for w in want:
            if w not in [v.name for v in variants]:
                warn(f"--only: '{w}' is not a variant of {bench.path} "
                     f"(have: {', '.join(v.name for v in variants)})")
                return 2
        variants = [v for v in variants if v.name in want]
    mem = mem_args(bench.no_huge or args.no_huge)
    rig = MemifRig(bench, build, mem)
    try:
        return _cmd_rfc2544(args, build, bench, sc, variants, mem, rig)
    finally:
        rig.cleanup()


def _cmd_rfc2544(args, build, bench, sc, variants, mem, rig) -> int:
    dpfwd = build / "apps" / "dpfwd" / "dpfwd"
    env = dict(os.environ, DPFWD_BUILD=str(build))
    if not os.access(dpfwd, os.X_OK):
        warn(f"{dpfwd} does not exist: build dpfwd first (ninja -C {build})")
        return 1
    try:
        preflight(bench, variants, dpfwd, env, rig.dpfwd_sets("dpbench-preflight"))
    except benchcfg.BenchConfigError as e:
        warn(str(e))
        return 2
    do_curve, do_search = not args.no_curve, not args.no_search
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out = Path(args.out) if args.out else build / "dpbench" / "rfc2544" / f"{bench.name}-{stamp}"
    out = out.resolve()
    ctx = Ctx(build=build, pcap=None, workdir=out, mem=mem, dpfwd_config=bench.config,
              rx_port=bench.rx_port, tx_ports=tuple(bench.tx_ports))
    programs = [make_variant_program(bench, v, rig.dpfwd_sets) for v in variants]
    what = " + ".join(x for x, on in (("offered-load curve", do_curve),
                                      ("zero-loss search", do_search)) if on)
    if args.dry_run:
        sys.stdout.write(benchcfg.describe(bench))
        log(f"rfc2544: {what}; {json.dumps(sc.as_dict())}")
        for p in programs:
            log(f"{p.name}:\n    {' '.join(p.argv(ctx, 'PREFIX'))}")
        log("dpgen, one per trial:\n    " + " ".join(rig.gen_argv(
            "PREFIX-tN-gen", rig.sock_path("PREFIX"), "DPFWD_MAC",
            out / "logs" / "PREFIX-tN-gen.json", "RATE", sc.warmup, sc.warmup + sc.trial)))
        return 0
    why = rig.check()
    if why:
        warn(why)
        return 1
    for p in programs:
        why = p.check(ctx)
        if why:
            warn(f"{p.name}: {why}")
            return 1
    out.mkdir(parents=True, exist_ok=True)
    try:
        if FWD_LCORE in os.sched_getaffinity(0) and MAIN_LCORE in _all_cpus():
            os.sched_setaffinity(0, {MAIN_LCORE})
    except OSError:
        pass

    results_path = out / "results.json"
    res = {"schema": RFC2544_SCHEMA, "bench": bench.as_dict(), "rfc2544": sc.as_dict(),
           "options": {"curve": do_curve, "search": do_search, "only": args.only},
           "env": {"build": str(build), "dpfwd": str(dpfwd), "dpgen": str(dpgen_bin(build)),
                   "mem_args": mem, "host": os.uname().nodename,
                   "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "out": str(out),
                   "argv": sys.argv},
           "variants": {}, "failed": [], "complete": False, "plots": []}
    log(f"bench {bench.name}: rfc2544 {what} for {len(programs)} variant(s); "
        f"trials {sc.trial} s after {sc.warmup} s, x{sc.repeats}; loss tolerance "
        f"{sc.loss_tolerance:g}%, resolution {sc.resolution_text()}; results in {out}")
    status = 0
    stopped = None
    texts = []
    for p in programs:
        v = {"label": p.label, "status": "running", "trials": [],
             "argv": p.argv(ctx, "PREFIX")}
        res["variants"][p.name] = v
        runner = TrialRunner(p, ctx, rig)
        log(f"-- {p.name}" + (f" ({p.label})" if p.label else ""))

        def trial(rate, secs, runner=runner, v=v):
            t = runner.trial(rate, secs, sc.warmup)
            v["trials"].append(t)
            write_json_atomic(results_path, res)
            return t

        try:
            r = rfc2544.run(trial, max_rate=sc.max_rate, min_rate=sc.min_rate,
                            resolution=sc.resolution, loss_tolerance=sc.loss_tolerance,
                            rate_tolerance=sc.rate_tolerance, trial_s=sc.trial,
                            repeats=sc.repeats, validate_s=sc.validate_s(), points=sc.points,
                            max_trials=sc.max_trials, curve=do_curve, search=do_search, log=log)
            v.update({"status": "done", "top": r["top"], "curve": r["curve"],
                      "search": r["search"], "trials": r["trials"]})
            texts.append(rfc2544.summary_text(p.name + (f": {p.label}" if p.label else ""), r))
        except (RunError, OSError, ValueError) as e:
            n = len(v["trials"]) + 1
            why = (f"variant {p.name}, trial {n} failed: {e}; the {len(v['trials'])} trials "
                   f"done are kept in {results_path}")
            v.update({"status": "failed", "error": str(e)})
            res["failed"].append({"variant": p.name, "trial": n, "error": str(e),
                                  "dpfwd_log": str(runner.last_log)})
            warn(why)
            for line in log_tail(runner.last_log) if runner.last_log else []:
                log("      | " + line)
            status = 1
        except KeyboardInterrupt:
            v["status"] = "interrupted"
            stopped = "interrupted"
            warn("interrupted; keeping what was measured")
        write_json_atomic(results_path, res)
        if stopped or (status and not args.keep_going):
            break
    text = "\n".join(texts)
    log("")
    log(text)
    (out / "summary.txt").write_text(text)
    res["table"] = text
    res["complete"] = all(v["status"] == "done" for v in res["variants"].values()) and \
        len(res["variants"]) == len(programs)
    curves = {n: v["curve"] for n, v in res["variants"].items() if v.get("curve")}
    found = {n: v["search"]["rate_pps"] for n, v in res["variants"].items()
             if v.get("search") and v["search"]["found"]}
    if curves and not args.no_plots:
        try:
            res["plots"] = dpplot.offered_load(curves, out / "plots" / "offered-load", found,
                                               title=f"{bench.name}: throughput against "
                                                     "offered load")
            log(f"plots: {out / 'plots'} ({len(res['plots'])} files)")
        except dpplot.PlotUnavailable as e:
            warn(f"no plots: {e}")
    write_json_atomic(results_path, res)
    log(f"results: {results_path}")
    if stopped:
        return 130
    return status


def cmd_build_anchors(args) -> int:
    build_anchors(Path(args.build).resolve())
    return 0


def _shown(p: Path) -> str:
    """P relative to the current folder when under it, else absolute."""
    rel = os.path.relpath(p)
    return str(p) if rel.startswith("..") else rel


def cmd_list(args) -> int:
    build = Path(args.build).resolve() if args.build else benchcfg.default_build()
    if args.programs:
        ctx = Ctx(build=build, pcap=Path(args.pcap).resolve(), workdir=build / "dpbench",
                  mem=list(HUGE_MEM_ARGS), dpfwd_config=REPO / DEFAULT_DPFWD_CONFIG,
                  workers=args.workers)
        for p in make_programs():
            log(f"{p.name}:\n    {' '.join(p.argv(ctx, 'PREFIX'))}")
        return 0
    folder = Path(args.dir) if args.dir else REPO / "configs" / "bench"
    me = _shown(Path(__file__).resolve())
    benches, others, bad = [], [], []
    for f in sorted(folder.glob("*.ini")):
        try:
            text = f.read_text()
        except OSError:
            continue
        if not re.search(r"^\s*\[bench\]", text, re.M):
            others.append(f.name)
            continue
        try:
            benches.append(benchcfg.load(f, build))
        except benchcfg.BenchConfigError as e:
            bad.append(str(e))
    log(f"bench configs in {_shown(folder)} (build {_shown(build)}):")
    for b in benches:
        n = len(b.variants) + len(b.anchors)
        secs = n * b.repetitions * (b.warmup + b.duration + 2 + b.cooldown)
        log("")
        log(f"{b.name}  [rig {b.rig}; {len(b.variants)} variant(s)"
            + (f" + {', '.join(b.anchors)}" if b.anchors else "")
            + f" x {b.repetitions} x {b.duration} s: about {max(1, round(secs / 60))} min]")
        if b.description:
            log(f"    {b.description}")
        if b.rig == "memif":
            log(f"    dpgen: {b.gen_traffic_text()} at {b.gen_rate}")
        log(f"    python3 {me} run {_shown(b.path)}")
        if b.rig == "memif":
            log(f"    python3 {me} rfc2544 {_shown(b.path)}"
                + ("   (its [rfc2544] section)" if b.search else "   (default search settings)"))
    if others:
        log("")
        log(f"dpfwd configs the benches run: {', '.join(others)}")
    for e in bad:
        warn(e)
    return 1 if bad else 0


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
    fa.add_argument("--routes", type=int, default=0, metavar="N",
                    help="also run l3fwd --lookup=fib with 2 and with N+2 routes, and each "
                         "dpfwd with N generated prefixes (scripts/gen-routes.py) beside the "
                         "rig's 2 routes")
    fa.add_argument("--workers", type=int, default=1, metavar="N",
                    help="forwarding lcores, one per CPU, each polling its own RX queue of "
                         "port 0 (default 1); every program runs with N")
    fa.set_defaults(func=cmd_fwd_anchor)

    ru = sub.add_parser("run", help="run a bench config's variants (configs/bench/*.ini)")
    ru.add_argument("bench", help="bench config (INI; see benchcfg.py)")
    ru.add_argument("--build", help="build dir (default: $DPFWD_BUILD, else REPO/build)")
    ru.add_argument("--runs", type=int, help="runs per variant (default: its repetitions)")
    ru.add_argument("--duration", type=int, help="measured seconds per run (default: its duration)")
    ru.add_argument("--warmup", type=float,
                    help="seconds after forwarding starts (default: its warmup)")
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

    rf = sub.add_parser("rfc2544", help="offered-load curve and zero-loss throughput search "
                        "(memif rig)")
    rf.add_argument("bench", help="bench config with rig = memif (and optionally [rfc2544])")
    rf.add_argument("--build", help="build dir (default: $DPFWD_BUILD, else REPO/build)")
    rf.add_argument("--out", help="output dir (default BUILD/dpbench/rfc2544/NAME-DATE)")
    rf.add_argument("--only", help="comma list of variant names")
    rf.add_argument("--no-curve", action="store_true", help="the search only")
    rf.add_argument("--no-search", action="store_true", help="the curve only")
    rf.add_argument("--trial", type=int, help="measured seconds per trial")
    rf.add_argument("--trial-warmup", type=int, help="seconds before each trial's measurement")
    rf.add_argument("--repeats", type=int, help="trials per rate")
    rf.add_argument("--loss-tolerance", type=float, help="percent lost that still passes")
    rf.add_argument("--resolution", help="N%% of the upper bound, or a rate (10kpps)")
    rf.add_argument("--max-rate", help="max or N[k|M|G]pps: the top of the range")
    rf.add_argument("--points", type=int, help="offered-load curve points")
    rf.add_argument("--validate", type=int, help="seconds of the final trial (0: none)")
    rf.add_argument("--max-trials", type=int, help="search trials at most")
    rf.add_argument("--keep-going", action="store_true", help="go on after a failed variant")
    rf.add_argument("--no-plots", action="store_true", help="no PNG/SVG plot")
    rf.add_argument("--dry-run", action="store_true", help="check, print the command lines, stop")
    rf.add_argument("--no-huge", action="store_true", help=f"force --no-huge -m {NO_HUGE_MEM_MB}")
    rf.set_defaults(func=cmd_rfc2544)

    ba = sub.add_parser("build-anchors", help="build BUILD/anchors/dpdk-l3fwd")
    ba.add_argument("--build", required=True)
    ba.set_defaults(func=cmd_build_anchors)

    ls = sub.add_parser("list", help="the shipped bench configs and the command that runs each "
                        "(--programs: fwd-anchor's command lines)")
    ls.add_argument("--build", help="build dir (default: $DPFWD_BUILD, else REPO/build)")
    ls.add_argument("--dir", help="folder of bench configs (default REPO/configs/bench)")
    ls.add_argument("--programs", action="store_true", help="fwd-anchor's programs instead")
    ls.add_argument("--pcap", default="PCAP", help="with --programs: the pcap to show")
    ls.add_argument("--workers", type=int, default=1,
                    help="with --programs: fwd-anchor's --workers")
    ls.set_defaults(func=cmd_list)

    relaybench.add_parsers(sub, sys.modules[__name__])
    dpsockbench.add_parsers(sub, sys.modules[__name__])
    preloadbench.add_parsers(sub, sys.modules[__name__])
    dnsbench.add_parsers(sub, sys.modules[__name__])

    args = ap.parse_args(argv)
    relaybench.check_args(ap, args)
    for k in ("runs", "duration"):
        v = getattr(args, k, None)
        if v is not None and v < 1:
            ap.error(f"--{k} must be >= 1")
    for k in ("warmup", "cooldown"):
        v = getattr(args, k, None)
        if v is not None and v < 0:
            ap.error(f"--{k} must be >= 0")
    if args.cmd == "rfc2544":
        for k, lo, hi in (("trial", 1, 3600), ("trial_warmup", 0, 600), ("repeats", 1, 100),
                          ("points", 2, 100), ("validate", 0, 3600), ("max_trials", 2, 1000)):
            v = getattr(args, k)
            if v is not None and not lo <= v <= hi:
                ap.error(f"--{k.replace('_', '-')} must be {lo}..{hi}")
        if args.loss_tolerance is not None and not 0 <= args.loss_tolerance <= 100:
            ap.error("--loss-tolerance must be 0..100 (percent)")
        if args.resolution is not None:
            r = args.resolution
            ok = (r.endswith("%") and re.match(r"^[0-9]+(\.[0-9]+)?%$", r)
                  and 0.01 <= float(r[:-1]) <= 50) or (benchcfg.parse_pps(r) or 0) > 0
            if not ok:
                ap.error(f"--resolution '{r}': a percentage 0.01%..50% or a rate (10kpps)")
        if args.max_rate is not None and args.max_rate != "max" and \
                not benchcfg.parse_pps(args.max_rate):
            ap.error(f"--max-rate '{args.max_rate}': max or N[k|M|G]pps")
        if args.no_curve and args.no_search:
            ap.error("--no-curve and --no-search: nothing left to do")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
