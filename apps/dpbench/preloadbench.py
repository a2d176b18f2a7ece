# SPDX-License-Identifier: BSD-3-Clause
"""dpbench preload: round-trip time of an unmodified program under libdpsock-preload,
beside the same program on the kernel's UDP and beside libdpsock called directly.

    dpbench.py preload [--build BUILD] [--runs 3] [--duration 2] [--size 16] [--json OUT]
                       [--no-huge] [--keep-worker]

Starts dpfwd on configs/bench/dpsock-local.ini (as `dpbench.py dpsock` does: its
[endpoint] socket in a temporary folder, its own file prefix, its worker SCHED_IDLE), then
--runs times, round robin:

    kernel       sockperf sr + sockperf pp --full-rtt over 127.0.0.1, the kernel's UDP
    preload      the same two sockperf, both under libdpsock-preload (LD_PRELOAD)
    dpsock-perf  apps/dpsock-perf --transports dpsock-local (libdpsock's calls, spinning)

with the server on CPU 0 and the client on CPU 1, messages of --size bytes (sockperf's
smallest is 14). Printed: per row the median over the runs of the RTT p50 and p99 (µs)
and their spread [min..max], then the ratios kernel / preload (how much lower the
preloaded RTT is) and preload / dpsock-perf (what the preload costs over the API).
dpfwd is stopped by pid and its folder removed on every exit.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

import dpsockbench
import dpstat

DP = None  # the dpbench module (set by add_parsers)

REPO = Path(__file__).resolve().parents[2]
ROWS = ("kernel", "preload", "dpsock-perf")
PORT = 11611


def log(msg: str = "") -> None:
    print(msg, flush=True)


def sockperf_rtt(out: str) -> Dict[str, Optional[float]]:
    """p50 and p99 (µs) of a `sockperf pp --full-rtt` report."""
    got: Dict[str, Optional[float]] = {"p50": None, "p99": None}
    for key, pct in (("p50", "50.000"), ("p99", "99.000")):
        m = re.search(r"percentile %s =\s*([0-9.]+)" % re.escape(pct), out)
        if m:
            got[key] = float(m.group(1))
    return got


def perf_rtt(doc: dict, size: int) -> Dict[str, Optional[float]]:
    """p50 and p99 (µs) of dpsock-perf's dpsock-local cell of @size."""
    for c in doc.get("cells", []):
        if c.get("transport") == "dpsock-local" and int(c.get("size", -1)) == size and \
                c.get("status") == "ok":
            rtt = c.get("rtt_us") or {}
            return {"p50": rtt.get("p50"), "p99": rtt.get("p99")}
    return {"p50": None, "p99": None}


def pinned(cpu: int):
    return lambda: os.sched_setaffinity(0, {cpu})


def run_sockperf(feed: Path, env: dict, duration: float, size: int) -> Dict[str, Optional[float]]:
    srv = subprocess.Popen(["sockperf", "sr", "-f", str(feed), "-F", "epoll"], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           preexec_fn=pinned(0))
    try:
        time.sleep(0.5)
        cli = subprocess.run(["sockperf", "pp", "-f", str(feed), "-F", "epoll", "--full-rtt",
                              "-m", str(size), "-t", str(duration)], env=env,
                             capture_output=True, text=True, timeout=duration + 30,
                             preexec_fn=pinned(1))
    finally:
        DP.stop_process(srv, wait_first=5)
    if cli.returncode != 0:
        log(f"sockperf pp: exit {cli.returncode}: {cli.stderr.strip()[-300:]}")
        return {"p50": None, "p99": None}
    return sockperf_rtt(cli.stdout + cli.stderr)


def summary(vals: List[Optional[float]]) -> Optional[dict]:
    v = [x for x in vals if x is not None]
    return dpstat.Dataset("", v).summary() if v else None


def table(results: Dict[str, Dict[str, List[Optional[float]]]]) -> List[str]:
    lines = [f"{'row':<12} {'p50 us':>9} {'[min..max]':>19} {'p99 us':>9} {'[min..max]':>19}"]
    for row in ROWS:
        cells = []
        for k in ("p50", "p99"):
            s = summary(results[row][k])
            if s is None:
                cells += [f"{'-':>9}", f"{'':>19}"]
            else:
                cells += [f"{s['median']:9.2f}", f"{'[%.2f..%.2f]' % (s['min'], s['max']):>19}"]
        lines.append(f"{row:<12} " + " ".join(cells))
    return lines


def ratios(results: Dict[str, Dict[str, List[Optional[float]]]]) -> List[dict]:
    out = []
    for num, den, what in (("kernel", "preload", "x lower RTT under the preload"),
                           ("preload", "dpsock-perf", "x the RTT of libdpsock called directly")):
        for k in ("p50", "p99"):
            a, b = summary(results[num][k]), summary(results[den][k])
            r = a["median"] / b["median"] if a and b and b["median"] > 0 else None
            out.append({"num": num, "den": den, "metric": k, "ratio": r, "what": what})
    return out


def cmd_preload(args) -> int:
    build = Path(args.build or os.environ.get("DPFWD_BUILD") or REPO / "build").resolve()
    lib = build / "lib" / "preload" / "libdpsock-preload.so"
    perf = dpsockbench.perf_bin(build)
    for b in (lib, perf, build / "apps" / "dpfwd" / "dpfwd"):
        if not b.exists():
            log(f"dpbench: {b} missing: ninja -C {build}")
            return 2
    if shutil.which("sockperf") is None:
        log("dpbench: sockperf missing: apt-get install sockperf")
        return 2
    size = max(args.size, 14)
    d = dpsockbench.Dpfwd(build, REPO / dpsockbench.LOCAL_CONFIG, DP.mem_args(args.no_huge),
                          tag="preload")
    old = {sg: signal.signal(sg, dpsockbench._raise_interrupted)
           for sg in (signal.SIGTERM, signal.SIGHUP)}
    results = {r: {"p50": [], "p99": []} for r in ROWS}
    try:
        d.start()
        idle = [] if args.keep_worker else d.idle_workers()
        log(f"dpfwd pid {d.proc.pid} on {d.sock}"
            + (f"; worker thread(s) {','.join(map(str, idle))} SCHED_IDLE" if idle else ""))
        feed = d.dir / "feed"
        feed.write_text(f"U:127.0.0.1:{PORT}\n")
        kernel_env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        preload_env = dict(kernel_env, LD_PRELOAD=str(lib), DPSOCK_PATH=str(d.sock))
        for i in range(args.runs):
            got = {"kernel": run_sockperf(feed, kernel_env, args.duration, size),
                   "preload": run_sockperf(feed, preload_env, args.duration, size)}
            out = d.dir / f"perf{i + 1}.json"
            rc, _, err = dpsockbench.run_perf(
                [perf, "--dpsock", d.sock, "--local-addr", dpsockbench.LOCAL_ADDR,
                 "--transports", "dpsock-local", "--sizes", str(size), "--duration", "0",
                 "--pp-max", str(args.duration), "--json", out], args.duration * 10 + 60)
            got["dpsock-perf"] = (perf_rtt(json.loads(out.read_text()), size)
                                  if rc == 0 and out.exists() else {"p50": None, "p99": None})
            if rc != 0:
                log(f"dpsock-perf: exit {rc}: {err.strip()[-300:]}")
            for row in ROWS:
                for k in ("p50", "p99"):
                    results[row][k].append(got[row][k])
            log(f"run {i + 1}/{args.runs}: " + ", ".join(
                f"{row} p50 {got[row]['p50']}" for row in ROWS))
    except dpsockbench.Interrupted as e:
        log(f"dpbench: stopped by {e}")
        return 1
    finally:
        d.stop()
        d.remove()
        for sg, h in old.items():
            signal.signal(sg, h)
    log(f"\nRTT of {size} B messages, median of {args.runs} run(s) (sockperf pp --full-rtt, "
        "dpsock-perf ping-pong):")
    for line in table(results):
        log(line)
    rs = ratios(results)
    for r in rs:
        v = "-" if r["ratio"] is None else f"{r['ratio']:.2f}"
        log(f"{r['num']} / {r['den']} {r['metric']}: {v} ({r['what']})")
    if args.json:
        doc = {"size": size, "runs": args.runs, "duration_s": args.duration,
               "results": results, "ratios": rs}
        Path(args.json).write_text(json.dumps(doc, indent=2) + "\n")
    missing = [row for row in ROWS if summary(results[row]["p50"]) is None]
    if missing:
        log("dpbench: no result for " + ", ".join(missing))
        return 1
    return 0


def add_parsers(sub, dpbench_module) -> None:
    global DP
    DP = dpbench_module
    p = sub.add_parser("preload", help="sockperf RTT under libdpsock-preload vs the kernel's "
                       "UDP vs dpsock-perf, with ratios")
    p.add_argument("--build", help="build dir (default: $DPFWD_BUILD, else REPO/build)")
    p.add_argument("--runs", type=int, default=3, help="rounds of the three rows (default 3)")
    p.add_argument("--duration", type=float, default=2, help="seconds per sockperf run")
    p.add_argument("--size", type=int, default=16, help="message bytes (at least 14)")
    p.add_argument("--json", help="write the results and ratios as JSON")
    p.add_argument("--no-huge", action="store_true", help="run dpfwd with --no-huge")
    p.add_argument("--keep-worker", action="store_true",
                   help="leave dpfwd's worker at its normal priority")
    p.set_defaults(func=cmd_preload)


if __name__ == "__main__":
    sys.exit("run it as: dpbench.py preload")
