# SPDX-License-Identifier: BSD-3-Clause
"""dpbench dns: a DNS server from Debian (nsd) under libdpsock-preload beside the same
server on the kernel's UDP: queries per second (dnsperf) and queries per CPU-second.

    dpbench.py dns [--build BUILD] [--runs 3] [--duration 5] [--clients 4]
                   [--json OUT] [--no-huge] [--keep-worker]

Starts dpfwd on configs/bench/dpsock-local.ini (as `dpbench.py preload` does), then --runs
times, round robin:

    kernel    nsd (one server process, a zone of 20 names) and dnsperf, both on the kernel's
              UDP over 127.0.0.1
    preload   the same two, both under libdpsock-preload (dpsock's intra-host channel)

nsd is on CPU 0 and dnsperf (as fast as it can, --clients sockets) on CPU 1. CPU time is
counted for each side: nsd's processes (utime + stime of /proc/PID/stat, its forked server
and xfrd included), dnsperf's (its rusage), and, in the preload row, dpfwd's worker lcores
counted as fully busy over the run's wall time: they poll. Their measured CPU time is
printed beside. Printed: the median qps and qps per CPU-second with [min..max] over the
runs, and the ratios preload / kernel. dpfwd, nsd and dnsperf are stopped by pid and the
folder removed on every exit.
"""
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

import dpsockbench
import preloadbench

DP = None  # the dpbench module (set by add_parsers)

REPO = Path(__file__).resolve().parents[2]
ROWS = ("kernel", "preload")
METRICS = ("qps", "nsd_cpu_s", "dnsperf_cpu_s", "worker_cpu_s", "worker_measured_s",
           "qps_per_cpu_s", "qps_per_server_cpu_s")
PORT = 11853
ZONE_NAME = "bench.test"
NAMES = 20
ZONE = (f"$ORIGIN {ZONE_NAME}.\n$TTL 300\n@ IN SOA ns1 admin 1 3600 600 86400 300\n"
        "@ IN NS ns1\nns1 IN A 198.18.0.1\n"
        + "".join(f"host{i} IN A 198.18.99.{i}\n" for i in range(1, NAMES + 1)))
QUERIES = "".join(f"host{i}.{ZONE_NAME} A\n" for i in range(1, NAMES + 1))
NSD_CONF = """\
# written by {writer}
server:
\tport: {port}
\tserver-count: 1
\tusername: ""
\tchroot: ""
\tzonesdir: "{dir}"
\tdatabase: ""
\tpidfile: "{dir}/nsd.pid"
\txfrdfile: "{dir}/xfrd.state"
\tzonelistfile: "{dir}/zone.list"
\txfrdir: "{dir}"
\tlogfile: "{dir}/nsd.log"
\tdo-ip6: no
\tverbosity: 0
\t# no response rate limiting (by default 200 answers a second to one /24, the rest dropped)
\trrl-ratelimit: 0
{extra}remote-control:
\tcontrol-enable: no
zone:
\tname: "{zone}"
\tzonefile: "{zone}.zone"
"""


def nsd_conf(writer: str, port: int, folder: Path, zone: str, extra: str = "") -> str:
    """An nsd.conf for one server process on PORT that keeps everything of its own (pid,
    state, log, zone list) in FOLDER and serves ZONE from FOLDER/ZONE.zone; EXTRA: more
    lines of the server section."""
    return NSD_CONF.format(writer=writer, port=port, dir=folder, zone=zone, extra=extra)


Samples = Dict[str, Dict[str, List[Optional[float]]]]   # row -> metric -> one per run


def log(msg: str = "") -> None:
    print(msg, flush=True)


def dnsperf_result(out: str) -> Dict[str, Optional[float]]:
    """Queries sent, completed, lost and per second of dnsperf's statistics (None where
    not printed)."""
    got: Dict[str, Optional[float]] = {}
    for key, pat in (("sent", r"Queries sent:\s+(\d+)"),
                     ("completed", r"Queries completed:\s+(\d+)"),
                     ("lost", r"Queries lost:\s+(\d+)"),
                     ("qps", r"Queries per second:\s+([\d.]+)")):
        m = re.search(pat, out)
        got[key] = float(m.group(1)) if m else None
    return got


def proc_children(stats: Dict[int, str]) -> Dict[int, List[int]]:
    """pid -> its children's pids, from /proc/PID/stat lines (ppid: field 4 of proc(5))."""
    kids: Dict[int, List[int]] = {}
    for pid, st in stats.items():
        ppid = int(st[st.rindex(")") + 2:].split()[1])
        kids.setdefault(ppid, []).append(pid)
    return kids


def tree_ticks(root: int, stats: Dict[int, str]) -> int:
    """utime + stime of ROOT and its descendants, in clock ticks."""
    # depth first: the processes whose children are still to be visited
    kids, stack, ticks = proc_children(stats), [root], 0
    while stack:
        pid = stack.pop()
        if pid in stats:
            ticks += preloadbench.proc_cpu_ticks(stats[pid])
        stack += kids.get(pid, [])
    return ticks


def read_stats() -> Dict[int, str]:
    out = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                out[int(d)] = Path(f"/proc/{d}/stat").read_text()
            except OSError:
                pass
    return out


def thread_ticks(pid: int, tids: List[int]) -> int:
    t = 0
    for tid in tids:
        try:
            t += preloadbench.proc_cpu_ticks(Path(f"/proc/{pid}/task/{tid}/stat").read_text())
        except (OSError, ValueError):
            pass
    return t


def per_cpu_s(qps: Optional[float], run_s: float, cpu_s: float) -> Optional[float]:
    """Queries per CPU-second: QPS over RUN_S seconds answered for CPU_S CPU-seconds."""
    return qps * run_s / cpu_s if qps is not None and cpu_s > 0 else None


def udp_port_bound(port: int) -> bool:
    """Something listens on UDP PORT on the kernel (/proc/net/udp, local address column)."""
    try:
        lines = Path("/proc/net/udp").read_text().splitlines()[1:]
    except OSError:
        return False
    return any(ln.split()[1].endswith(f":{port:04X}") for ln in lines if len(ln.split()) > 1)


class Nsd:
    """nsd in the foreground (-d) on CPU 0, in its own folder, stopped by pid."""

    def __init__(self, folder: Path, env: dict):
        self.dir = folder
        folder.mkdir(exist_ok=True)
        (folder / f"{ZONE_NAME}.zone").write_text(ZONE)
        self.conf = folder / "nsd.conf"
        self.conf.write_text(nsd_conf("dpbench dns", PORT, folder, ZONE_NAME))
        self.out = folder / "nsd.out"
        with open(self.out, "w") as f:
            self.proc = subprocess.Popen(["nsd", "-d", "-c", str(self.conf)], env=env,
                                         stdin=subprocess.DEVNULL, stdout=f,
                                         stderr=subprocess.STDOUT,
                                         preexec_fn=preloadbench.pinned(0))

    def wait_ready(self, ready, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while not ready():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"nsd did not start (exit {self.proc.poll()}): "
                                   + self.out.read_text(errors="replace")[-300:])
            time.sleep(0.05)
        time.sleep(0.3)     # its server child forked

    def stop(self) -> None:
        DP.stop_process(self.proc, first=signal.SIGTERM, wait_first=5)


def run_row(d: "dpsockbench.Dpfwd", row: str, env: dict, args, workers: List[int],
            qfile: Path) -> Dict[str, Optional[float]]:
    """One nsd and one dnsperf run in ROW's environment: qps and the CPU accounting."""
    nsd = Nsd(d.dir / f"nsd-{row}", env)
    try:
        if row == "preload":
            nsd.wait_ready(lambda: any(e.get("port") == PORT for e in
                                       (d.snapshot(0) or {}).get("endpoint_list", [])))
        else:
            nsd.wait_ready(lambda: udp_port_bound(PORT))
        argv = ["dnsperf", "-s", "127.0.0.1", "-p", str(PORT), "-d", str(qfile),
                "-l", str(args.duration), "-c", str(args.clients), "-T", "1", "-t", "2"]
        s0, w0 = read_stats(), thread_ticks(d.proc.pid, workers)
        r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
        cli = subprocess.run(argv, env=env, capture_output=True, text=True,
                             timeout=args.duration + 30, preexec_fn=preloadbench.pinned(1))
        r1, t1 = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
        s1, w1 = read_stats(), thread_ticks(d.proc.pid, workers)
    finally:
        nsd.stop()
    hz = os.sysconf("SC_CLK_TCK")
    got = dnsperf_result(cli.stdout + cli.stderr)
    if cli.returncode != 0 or got["qps"] is None:
        log(f"dnsperf ({row}): exit {cli.returncode}: {(cli.stdout + cli.stderr)[-300:]}")
        return {k: None for k in METRICS}
    wall = t1 - t0
    nsd_s = (tree_ticks(nsd.proc.pid, s1) - tree_ticks(nsd.proc.pid, s0)) / hz
    perf_s = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
    worker_s = wall * len(workers) if row == "preload" else 0.0
    run_s = float(args.duration)
    return {"qps": got["qps"], "nsd_cpu_s": nsd_s, "dnsperf_cpu_s": perf_s,
            "worker_cpu_s": worker_s,
            "worker_measured_s": (w1 - w0) / hz if row == "preload" else 0.0,
            "qps_per_cpu_s": per_cpu_s(got["qps"], run_s, nsd_s + perf_s + worker_s),
            "qps_per_server_cpu_s": per_cpu_s(got["qps"], run_s, nsd_s + worker_s),
            "lost": got["lost"]}


def table(res: Samples) -> List[str]:
    cols = (("qps", "qps", ".0f"), ("qps_per_cpu_s", "q/CPU-s all", ".0f"),
            ("qps_per_server_cpu_s", "q/CPU-s server", ".0f"))
    lines = [f"{'row':<9} " + " ".join(f"{h:>14} {'[min..max]':>25}" for _, h, _ in cols)]
    for row in ROWS:
        cells = []
        for k, _, fmt in cols:
            cells += preloadbench.spread(preloadbench.summary(res[row][k]), fmt, 12)
        lines.append(f"{row:<9} " + " ".join(cells))
    lines.append(f"{'':<9} CPU-seconds per run (median): " + ", ".join(
        f"{row}: nsd {med(res, row, 'nsd_cpu_s')}, dnsperf {med(res, row, 'dnsperf_cpu_s')}, "
        f"dpfwd worker {med(res, row, 'worker_cpu_s')} (measured "
        f"{med(res, row, 'worker_measured_s')})" for row in ROWS))
    return lines


def med(res: Samples, row: str, k: str) -> str:
    s = preloadbench.summary(res[row][k])
    return "-" if s is None else f"{s['median']:.2f}"


def ratios(res: Samples) -> List[dict]:
    out = []
    for k, what in (("qps", "x the kernel's queries per second"),
                    ("qps_per_cpu_s", "x the kernel's queries per CPU-second, both sides and "
                     "dpfwd's worker counted"),
                    ("qps_per_server_cpu_s", "x the kernel's queries per CPU-second of the "
                     "server (nsd, and dpfwd's worker under the preload)")):
        a = preloadbench.summary(res["preload"][k])
        b = preloadbench.summary(res["kernel"][k])
        r = a["median"] / b["median"] if a and b and b["median"] > 0 else None
        out.append({"num": "preload", "den": "kernel", "metric": k, "ratio": r, "what": what})
    return out


def cmd_dns(args) -> int:
    build = Path(args.build or os.environ.get("DPFWD_BUILD") or REPO / "build").resolve()
    lib = build / "lib" / "preload" / "libdpsock-preload.so"
    for b in (lib, build / "apps" / "dpfwd" / "dpfwd"):
        if not b.exists():
            log(f"dpbench: {b} missing: ninja -C {build}")
            return 2
    for prog, pkg in (("nsd", "nsd"), ("dnsperf", "dnsperf")):
        if shutil.which(prog) is None:
            log(f"dpbench: {prog} missing: apt-get install {pkg}")
            return 2
    if args.clients < 1:
        log("dpbench: --clients: at least 1")
        return 2
    d = dpsockbench.Dpfwd(build, REPO / dpsockbench.LOCAL_CONFIG, DP.mem_args(args.no_huge),
                          tag="dns")
    old = {sg: signal.signal(sg, dpsockbench._raise_interrupted)
           for sg in (signal.SIGTERM, signal.SIGHUP)}
    res: Samples = {r: {k: [] for k in METRICS} for r in ROWS}
    try:
        d.start()
        workers = d.worker_tids()
        if not args.keep_worker:
            d.idle_workers()
        log(f"dpfwd pid {d.proc.pid} on {d.sock}; worker thread(s) "
            f"{','.join(map(str, workers))}" + ("" if args.keep_worker else " SCHED_IDLE"))
        qfile = d.dir / "queries"
        qfile.write_text(QUERIES)
        kernel_env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        envs = {"kernel": kernel_env,
                "preload": dict(kernel_env, LD_PRELOAD=str(lib), DPSOCK_PATH=str(d.sock))}
        for i in range(args.runs):
            for row in ROWS:
                got = run_row(d, row, envs[row], args, workers, qfile)
                for k in METRICS:
                    res[row][k].append(got.get(k))
                log(f"run {i + 1}/{args.runs} {row}: " + (
                    "-" if got["qps"] is None else
                    f"{got['qps']:.0f} qps, lost {got['lost']:.0f}, nsd "
                    f"{got['nsd_cpu_s']:.2f} s, dnsperf {got['dnsperf_cpu_s']:.2f} s, "
                    f"worker {got['worker_cpu_s']:.2f} s (measured "
                    f"{got['worker_measured_s']:.2f} s)"))
    except dpsockbench.Interrupted as e:
        log(f"dpbench: stopped by {e}")
        return 1
    finally:
        d.stop()
        d.remove()
        for sg, h in old.items():
            signal.signal(sg, h)
    log(f"\nnsd queried by dnsperf over 127.0.0.1 ({args.clients} sockets, as fast as "
        f"answered, {args.duration} s), median of {args.runs} run(s). CPU: nsd + dnsperf, "
        "and under the preload dpfwd's worker lcore(s) counted fully (a polling core):")
    for line in table(res):
        log(line)
    rs = ratios(res)
    for r in rs:
        log(preloadbench.fmt_ratio(r))
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"runs": args.runs, "duration_s": args.duration, "clients": args.clients,
             "results": res, "ratios": rs}, indent=2) + "\n")
    missing = [row for row in ROWS if preloadbench.summary(res[row]["qps"]) is None]
    if missing:
        log("dpbench: no result for " + ", ".join(missing))
        return 1
    return 0


def add_parsers(sub, dpbench_module) -> None:
    global DP
    DP = dpbench_module
    p = sub.add_parser("dns", help="nsd queried by dnsperf under libdpsock-preload vs the "
                       "kernel's UDP: qps and qps per CPU-second")
    p.add_argument("--build", help="build dir (default: $DPFWD_BUILD, else REPO/build)")
    p.add_argument("--runs", type=int, default=3, help="rounds of the rows (default 3)")
    p.add_argument("--duration", type=int, default=5, help="seconds per dnsperf run (default 5)")
    p.add_argument("--clients", type=int, default=4,
                   help="dnsperf's client sockets (-c, default 4)")
    p.add_argument("--json", help="write the results and ratios as JSON")
    p.add_argument("--no-huge", action="store_true", help="run dpfwd with --no-huge")
    p.add_argument("--keep-worker", action="store_true",
                   help="leave dpfwd's worker at its normal priority")
    p.set_defaults(func=cmd_dns)


if __name__ == "__main__":
    sys.exit("run it as: dpbench.py dns")
