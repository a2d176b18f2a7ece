# SPDX-License-Identifier: BSD-3-Clause
"""dpbench preload: an unmodified program under libdpsock-preload beside the same program
on the kernel's UDP and beside libdpsock called directly: round-trip time, throughput and
idle CPU.

    dpbench.py preload [--build BUILD] [--runs 3] [--duration 2] [--sizes 16,...]
                       [--no-tp] [--idle 3] [--json OUT] [--no-huge] [--keep-worker]

Starts dpfwd on configs/bench/dpsock-local.ini (as `dpbench.py dpsock` does: its
[endpoint] socket in a temporary folder, its own file prefix, its worker SCHED_IDLE), then
--runs times, round robin, for each size of --sizes:

    kernel       sockperf sr + sockperf pp --full-rtt over 127.0.0.1, the kernel's UDP
    a pair, in alternating order (preload first in odd runs, dpsock-perf first in even):
      preload      the same two sockperf, both under libdpsock-preload (LD_PRELOAD)
      dpsock-perf  `apps/dpsock-perf --transports dpsock-local,shm-spin --sizes SIZE`
                   (libdpsock's calls, spinning; and shm-spin, a raw shared-memory ring
                   between the same two CPUs: the floor a round trip cannot go under)
    tp kernel    sockperf sr + sockperf tp (as fast as it can send), the kernel's UDP
    tp preload   the same two, both preloaded (unless --no-tp)

Every row is placed alike (PLACEMENT): the server (sockperf sr, dpsock-perf's echo side)
on CPU 0, the client (sockperf pp/tp, dpsock-perf's timing side) on CPU 1, dpfwd's worker
lcore on CPU 1 below them (SCHED_IDLE unless --keep-worker), each ping-pong as long
(--duration). The placement dpbench found (the worker threads' CPUs and policy read back)
is printed and kept in the JSON. sockperf's -m is the whole UDP payload, its own 14-byte
header included: 14 to 65507 bytes; dpsock-perf sends the same number of payload bytes.

Printed per size: the median over the runs of the RTT p50 and p99 (µs) with their spread
[min..max], the ratios kernel / preload and preload / dpsock-perf of those medians, and
the ratio preload / dpsock-perf of each pair (p50 and p99: the median and quartiles of the
per-pair ratios, which a change of machine state between runs moves less than it moves
the medians); per pair, the load average, shm-spin's round trip (the floor of that moment)
and the context switches of each side's processes (voluntary: a side slept, as a preloaded
wait does after DPSOCK_SPIN_US and dpsock-perf's spinning never does; involuntary: it was
preempted). Then the median message rate the throughput server handled (msg/s: its
"Total N messages received and handled" over the client's run time; the client's own
"Message Rate" when the server printed no total) and the ratio preload / kernel. Then,
unless --idle 0, the idle CPU: a `sockperf sr -F epoll` with no client, kernel and
preloaded, its utime + stime (/proc/PID/stat) over --idle seconds as a percentage of one
CPU. dpfwd is stopped by pid and its folder removed on every exit.
"""
import json
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import dpsockbench
import dpstat
import preloadnet

DP = None  # the dpbench module (set by add_parsers)

REPO = Path(__file__).resolve().parents[2]
ROWS = ("kernel", "preload", "dpsock-perf", "shm-spin")
PAIR = ("preload", "dpsock-perf")        # measured one right after the other, order alternating
SOCKPERF_ROWS = ("kernel", "preload")   # the rows sockperf runs in (RTT, throughput, idle)
TP_ROWS = SOCKPERF_ROWS
NET_ROWS = ("net kernel", "net preload")  # --netns (preloadnet.py)
PORT = 11611
SERVER_CPU, CLIENT_CPU = 0, 1            # every row's; dpfwd's worker lcore is on CPU 1 too
# dpsock-perf's transports in a pair -> their rows: libdpsock, and the raw ring (the floor)
PERF_ROWS = {"dpsock-local": "dpsock-perf", "shm-spin": "shm-spin"}
PERF_MAX_ITERS = 100000000               # dpsock-perf's ping-pong ends at --pp-max first
SOCKPERF_MIN, SOCKPERF_MAX = 14, 65507   # sockperf 3.7's -m range (header included)
IDLE_SETTLE_S = 1.0                      # after start, before the idle window opens
ANSI = re.compile(r"\x1b\[[0-9;]*m")

Samples = Dict[str, Dict[str, List[Optional[float]]]]   # row -> metric -> one per run


def log(msg: str = "") -> None:
    print(msg, flush=True)


def parse_sizes(text: str) -> List[int]:
    """--sizes: comma-separated bytes, each within sockperf's -m range, in order given,
    duplicates dropped."""
    sizes: List[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            n = int(part)
        except ValueError:
            raise ValueError(f"--sizes: {part!r} is not a number of bytes")
        if not SOCKPERF_MIN <= n <= SOCKPERF_MAX:
            raise ValueError(f"--sizes: {n} is outside sockperf's {SOCKPERF_MIN}.."
                             f"{SOCKPERF_MAX} bytes (-m counts its 14-byte header)")
        if n not in sizes:
            sizes.append(n)
    if not sizes:
        raise ValueError("--sizes: no size given")
    return sizes


def sockperf_rtt(out: str) -> Dict[str, Optional[float]]:
    """p50 and p99 (µs) of a `sockperf pp --full-rtt` report."""
    got: Dict[str, Optional[float]] = {"p50": None, "p99": None}
    for key, pct in (("p50", "50.000"), ("p99", "99.000")):
        m = re.search(r"percentile %s =\s*([0-9.]+)" % re.escape(pct), out)
        if m:
            got[key] = float(m.group(1))
    return got


def sockperf_tp(client: str, server: str) -> Dict[str, Optional[float]]:
    """The message rate of a `sockperf tp` run: the server's "Total N messages received and
    handled" over the client's "Total of M messages sent in T sec" (source "server"), else
    the client's "Message Rate is R [msg/sec]" (source "client"). Also sent, received, run_s
    (None where not printed)."""
    client, server = ANSI.sub("", client), ANSI.sub("", server)
    got: Dict[str, Optional[float]] = {"msgs_per_s": None, "sent": None, "received": None,
                                       "run_s": None, "source": None}
    m = re.search(r"Total of (\d+) messages sent in ([0-9.]+) sec", client)
    if m:
        got["sent"], got["run_s"] = int(m.group(1)), float(m.group(2))
    m = re.search(r"Total (\d+) messages received and handled", server)
    if m:
        got["received"] = int(m.group(1))
    if got["received"] is not None and got["run_s"]:
        got["msgs_per_s"], got["source"] = got["received"] / got["run_s"], "server"
    else:
        m = re.search(r"Message Rate is ([0-9.]+) \[msg/sec\]", client)
        if m:
            got["msgs_per_s"], got["source"] = float(m.group(1)), "client"
    return got


def proc_cpu_ticks(stat: str) -> int:
    """utime + stime (clock ticks) of a /proc/PID/stat line; the command name in
    parentheses may hold spaces and parentheses, so fields count from the last ')'."""
    fields = stat[stat.rindex(")") + 2:].split()
    return int(fields[11]) + int(fields[12])     # fields 14 and 15 of proc(5)


def cpu_pct(ticks: int, wall_s: float, hz: int) -> Optional[float]:
    """TICKS of CPU time over WALL_S seconds, in percent of one CPU."""
    return 100.0 * ticks / hz / wall_s if wall_s > 0 and hz > 0 else None


def perf_rtt(doc: dict, size: int, transport: str = "dpsock-local") -> Dict[str, Optional[float]]:
    """p50 and p99 (µs) of dpsock-perf's TRANSPORT cell of @size."""
    for c in doc.get("cells", []):
        if c.get("transport") == transport and int(c.get("size", -1)) == size and \
                c.get("status") == "ok":
            rtt = c.get("rtt_us") or {}
            return {"p50": rtt.get("p50"), "p99": rtt.get("p99")}
    return {"p50": None, "p99": None}


def pinned(cpu: int) -> Callable[[], None]:
    return lambda: os.sched_setaffinity(0, {cpu})


def sockperf_seconds(duration: float) -> str:
    """sockperf's -t takes whole seconds (0.5 is refused)."""
    return str(max(1, int(round(duration))))


def start_server(feed: Path, env: dict, out=subprocess.DEVNULL) -> subprocess.Popen:
    return subprocess.Popen(["sockperf", "sr", "-f", str(feed), "-F", "epoll"], env=env,
                            stdout=out, stderr=subprocess.STDOUT, text=True,
                            stdin=subprocess.DEVNULL, preexec_fn=pinned(SERVER_CPU))


# sockperf 3.7's ping-pong gives up ("_seqN > m_maxSequenceNo", exit 6) once it goes faster
# than about a million messages a second, as it can under the preload: its rate is capped
# here, for every row, below that (a round trip under 2 us is still measured as it is)
PP_MPS = 500000

SOCKPERF_TOTAL = re.compile(r"\[Total Run\] RunTime=([0-9.]+) sec; Warm up time=(\d+) msec; "
                            r"SentMessages=(\d+); ReceivedMessages=(\d+)")


def sockperf_pp_why(out: str) -> Tuple[str, bool]:
    """Why a `sockperf pp` report has no percentiles, from what sockperf printed; and
    whether it stalled on a lost message (sockperf pp sends the next message only once
    the last one's reply came: one datagram lost ends the measured part)."""
    text = ANSI.sub("", out)
    if "_seqN > m_maxSequenceNo" in text:
        return ("sockperf gave up: more messages than its sequence numbers allow "
                f"(the rate went over what --mps {PP_MPS} sized them for)", False)
    if "No messages were sent" in text:
        return "sockperf sent nothing (its socket failed)", False
    if "No messages were received from the server" in text:
        return ("no reply at all: the server did not answer, or the first message or its "
                "reply was lost and sockperf pp waited for it to the end", True)
    m = SOCKPERF_TOTAL.search(text)
    if m is not None:
        run_s, warm_ms, sent, got = float(m[1]), int(m[2]), int(m[3]), int(m[4])
        if run_s * 1000 <= warm_ms:
            return (f"the run ({run_s:.3f} s) was no longer than sockperf's warm-up "
                    f"({warm_ms} ms): a longer --duration", False)
        if sent > got:
            return (f"stalled after {got} round trips in {run_s:.3f} s ({sent} sent): a "
                    "message or its reply was lost, and sockperf pp sends the next only "
                    "after each reply", True)
    if "No valid observations found" in text:
        return ("no valid observation: the run shorter than sockperf's warm-up and "
                "cool-down, a longer --duration", False)
    return "no percentiles in sockperf's output: " + repr(text.strip()[-200:]), False


def run_client(argv: List[str], env: dict, duration: float,
               cpu: int = CLIENT_CPU) -> subprocess.CompletedProcess:
    """A sockperf client on CPU (CLIENT_CPU). One that fails within its first second (exit 6, a
    socket error: the server, started 0.5 s before, not listening yet on a busy host)
    runs once more a second later, and the log says so."""
    for attempt in (1, 2):
        t0 = time.monotonic()
        cli = subprocess.run(argv, env=env, capture_output=True, text=True,
                             timeout=duration + 30, preexec_fn=pinned(cpu))
        if cli.returncode == 0 or attempt == 2 or time.monotonic() - t0 > 1:
            return cli
        log(f"{' '.join(argv[:2])} -m {argv[argv.index('-m') + 1]}: exit {cli.returncode} "
            f"at once: {(cli.stdout + cli.stderr).strip()[-200:]}; once more")
        time.sleep(1)
    return cli


def pp_result(what: str, cli: subprocess.CompletedProcess,
              attempt: int) -> Tuple[Dict[str, Optional[float]], bool]:
    """The RTT of a finished `sockperf pp` WHAT; without one, a log line that says why.
    @return (p50 and p99, whether to run it once more: a first run stalled on a loss)."""
    out = cli.stdout + cli.stderr
    if cli.returncode != 0:
        log(f"{what}: exit {cli.returncode}: {out.strip()[-300:]}")
        return {"p50": None, "p99": None}, False
    got = sockperf_rtt(out)
    if got["p50"] is not None:
        return got, False
    why, stalled = sockperf_pp_why(out)
    again = stalled and attempt == 1
    log(f"{what}: no RTT: {why}" + ("; once more" if again else ""))
    return got, again


def run_sockperf(feed: Path, env: dict, duration: float, size: int) -> Dict[str, Optional[float]]:
    for attempt in (1, 2):
        srv = start_server(feed, env)
        try:
            time.sleep(0.5)
            cli = run_client(["sockperf", "pp", "-f", str(feed), "-F", "epoll", "--full-rtt",
                              "--mps", str(PP_MPS), "-m", str(size),
                              "-t", sockperf_seconds(duration)], env, duration)
        finally:
            DP.stop_process(srv, wait_first=5)
        got, again = pp_result(f"sockperf pp -m {size}", cli, attempt)
        if not again:
            break
    return got


def run_tp(feed: Path, env: dict, duration: float, size: int, logdir: Path,
           name: str) -> Dict[str, Optional[float]]:
    """sockperf sr + sockperf tp -m SIZE; the server's output (its total, printed when
    SIGINT stops it) goes to a file in LOGDIR."""
    srv_log = logdir / f"sr-{name}.log"
    with open(srv_log, "w") as f:
        srv = start_server(feed, env, out=f)
    try:
        time.sleep(0.5)
        cli = run_client(["sockperf", "tp", "-f", str(feed), "-F", "epoll",
                          "-m", str(size), "-t", sockperf_seconds(duration)], env, duration)
        time.sleep(0.2)     # the last messages in flight
    finally:
        DP.stop_process(srv, wait_first=5)
    if cli.returncode != 0:
        log(f"sockperf tp -m {size}: exit {cli.returncode}: "
            f"{(cli.stdout + cli.stderr).strip()[-300:]}")
        return {"msgs_per_s": None}
    return sockperf_tp(cli.stdout + cli.stderr, srv_log.read_text(errors="replace"))


def measure_idle(feed: Path, env: dict, seconds: float) -> Optional[float]:
    """A `sockperf sr -F epoll` with no client: its CPU over SECONDS, % of one CPU."""
    srv = start_server(feed, env)
    stat = Path(f"/proc/{srv.pid}/stat")
    try:
        time.sleep(IDLE_SETTLE_S)
        if srv.poll() is not None:
            log(f"sockperf sr: exited {srv.returncode} before the idle window")
            return None
        t0, c0 = time.monotonic(), proc_cpu_ticks(stat.read_text())
        time.sleep(seconds)
        t1, c1 = time.monotonic(), proc_cpu_ticks(stat.read_text())
    except (OSError, ValueError) as e:
        log(f"sockperf sr: no CPU time read: {e}")
        return None
    finally:
        DP.stop_process(srv, wait_first=5)
    return cpu_pct(c1 - c0, t1 - t0, os.sysconf("SC_CLK_TCK"))


def summary(vals: List[Optional[float]]) -> Optional[dict]:
    v = [x for x in vals if x is not None]
    return dpstat.Dataset("", v).summary() if v else None


def spread(s: Optional[dict], fmt: str, width: int) -> List[str]:
    """The median and [min..max] cells of summary S."""
    if s is None:
        return [f"{'-':>{width}}", f"{'':>{2 * width + 1}}"]
    return [f"{s['median']:{width}{fmt}}",
            f"{'[%s..%s]' % (format(s['min'], fmt), format(s['max'], fmt)):>{2 * width + 1}}"]


def table(results: Samples, rows=ROWS) -> List[str]:
    lines = [f"{'row':<12} {'p50 us':>9} {'[min..max]':>19} {'p99 us':>9} {'[min..max]':>19}"]
    for row in (r for r in rows if r in results):
        cells = []
        for k in ("p50", "p99"):
            cells += spread(summary(results[row][k]), ".2f", 9)
        lines.append(f"{row:<12} " + " ".join(cells))
    return lines


def ratios(results: Samples) -> List[dict]:
    out = []
    for num, den, what in (("kernel", "preload", "x lower RTT under the preload"),
                           ("preload", "dpsock-perf", "x the RTT of libdpsock called directly")):
        for k in ("p50", "p99"):
            a, b = summary(results[num][k]), summary(results[den][k])
            r = a["median"] / b["median"] if a and b and b["median"] > 0 else None
            out.append({"num": num, "den": den, "metric": k, "ratio": r, "what": what})
    return out


def quartiles(vals: List[Optional[float]]) -> Optional[dict]:
    """Median and quartiles of VALS (None left out; statistics.quantiles, as
    scripts/ab.sh reads its rounds), or None when there is none."""
    v = sorted(x for x in vals if x is not None)
    if not v:
        return None
    q = statistics.quantiles(v, n=4) if len(v) > 1 else [v[0]] * 3
    return {"n": len(v), "median": statistics.median(v), "q1": q[0], "q3": q[2],
            "min": v[0], "max": v[-1]}


def pair_ratio(pair: dict, metric: str) -> Optional[float]:
    """preload / dpsock-perf of one pair's METRIC (p50 or p99)."""
    a, b = pair["preload"][metric], pair["dpsock-perf"][metric]
    return a / b if a is not None and b is not None and b > 0 else None


def pair_summary(pairs: List[dict]) -> Dict[str, Optional[dict]]:
    """The per-pair ratios preload / dpsock-perf: their median and quartiles, p50 and p99."""
    return {k: quartiles([pair_ratio(p, k) for p in pairs]) for k in ("p50", "p99")}


def fmt_pair_summary(summ: Dict[str, Optional[dict]]) -> List[str]:
    out = []
    for k in ("p50", "p99"):
        q = summ.get(k)
        out.append(f"preload / dpsock-perf {k}, per pair: " + (
            "-" if q is None else
            f"median {q['median']:.2f}, quartiles {q['q1']:.2f}-{q['q3']:.2f} "
            f"[{q['min']:.2f}..{q['max']:.2f}] over {q['n']} pair(s)"))
    return out


def fmt_pair(pair: dict) -> str:
    """One pair's log line: each side's p50, the ratio, the floor, what ran beside it."""
    def us(v):
        return "-" if v is None else f"{v:.3f}"
    r = pair_ratio(pair, "p50")
    cost = pair.get("cost") or {}
    sides = ", ".join(
        f"{row} {c['voluntary']}/{c['involuntary']}" for row, c in
        ((row, cost.get(row)) for row in PAIR) if c is not None)
    return (f"{pair['first']} first: preload p50 {us(pair['preload']['p50'])}, dpsock-perf "
            f"{us(pair['dpsock-perf']['p50'])} (x{'-' if r is None else f'{r:.2f}'}), "
            f"shm-spin {us(pair['shm-spin']['p50'])} us; load {pair.get('load1', 0):.2f}"
            + (f"; context switches vol/invol: {sides}" if sides else ""))


def tp_table(tp: Samples, rows=TP_ROWS) -> List[str]:
    lines = [f"{'row':<12} {'msg/s':>11} {'[min..max]':>23}"]
    for row in rows:
        lines.append(f"{row:<12} " + " ".join(spread(summary(tp[row]["msgs_per_s"]), ".0f", 11)))
    return lines


def tp_ratio(tp: Samples, num: str = "preload", den: str = "kernel") -> dict:
    """NUM / DEN of the median message rates (the issue's goal: at least 10)."""
    a, b = summary(tp[num]["msgs_per_s"]), summary(tp[den]["msgs_per_s"])
    r = a["median"] / b["median"] if a and b and b["median"] > 0 else None
    return {"num": num, "den": den, "metric": "msgs_per_s", "ratio": r,
            "what": "x the kernel's message rate under the preload"}


def net_ratios(results: Samples) -> List[dict]:
    """net kernel / net preload of the RTT medians (x lower under the preload)."""
    out = []
    for k in ("p50", "p99"):
        a, b = summary(results["net kernel"][k]), summary(results["net preload"][k])
        r = a["median"] / b["median"] if a and b and b["median"] > 0 else None
        out.append({"num": "net kernel", "den": "net preload", "metric": k, "ratio": r,
                    "what": "x lower RTT under the preload, through dpfwd"})
    return out


def fmt_ratio(r: dict) -> str:
    v = "-" if r["ratio"] is None else f"{r['ratio']:.2f}"
    return f"{r['num']} / {r['den']} {r['metric']}: {v} ({r['what']})"


def idle_lines(idle: Dict[str, Optional[float]], seconds: float, hz: int) -> List[str]:
    """The idle rows; the kernel counts CPU time in clock ticks (1/HZ s), so one tick over
    the window is the smallest non-zero value."""
    tick = cpu_pct(1, seconds, hz)
    lines = [f"Idle CPU of sockperf sr -F epoll with no client, over {seconds:g} s "
             "(utime + stime, % of one CPU" + ("" if tick is None else
                                               f"; one clock tick is {tick:.2f} %") + "):"]
    for row in SOCKPERF_ROWS:
        v = idle.get(row)
        lines.append(f"{row:<12} " + ("-" if v is None else f"{v:.2f} %"))
    return lines


def missing_rows(rtt: Dict[int, Samples], tp: Dict[int, Samples],
                 idle: Dict[str, Optional[float]]) -> List[str]:
    """The rows without one result (the run then fails)."""
    out = []
    for size, res in rtt.items():
        out += [f"{row} {size} B" for row in res if summary(res[row]["p50"]) is None]
    for size, res in tp.items():
        out += [f"tp {row} {size} B" for row in res
                if summary(res[row]["msgs_per_s"]) is None]
    out += [f"idle {row}" for row, v in idle.items() if v is None]
    return out


def net_report(args, sizes: List[int], rtt: Dict[int, Samples], tp: Dict[int, Samples],
               driver: str) -> dict:
    """Print the --netns tables and ratios; their part of the JSON document."""
    doc: dict = {"driver": driver, "rtt": {}, "tp": {}}
    for size in sizes:
        log(f"\nThrough dpfwd ({driver}) to a Linux host in a namespace: RTT of {size} B "
            f"messages, median of {args.runs} run(s) (sockperf pp --full-rtt; net kernel: a "
            "kernel client routed through dpfwd, net preload: preloaded on this host):")
        for line in table(rtt[size], NET_ROWS):
            log(line)
        rs = net_ratios(rtt[size])
        for r in rs:
            log(fmt_ratio(r))
        doc["rtt"][str(size)] = {"results": rtt[size], "ratios": rs}
        if size in tp:
            log(f"\nThrough dpfwd: throughput of {size} B messages, median of {args.runs} "
                "run(s) (sockperf tp; messages the server handled per second):")
            for line in tp_table(tp[size], NET_ROWS):
                log(line)
            r = tp_ratio(tp[size], "net preload", "net kernel")
            log(fmt_ratio(r))
            doc["tp"][str(size)] = {"results": tp[size], "ratio": r}
    return doc


def report(args, sizes: List[int], rtt: Dict[int, Samples], tp: Dict[int, Samples],
           idle: Dict[str, Optional[float]], pairs: Optional[Dict[int, List[dict]]] = None,
           placement: Optional[dict] = None) -> dict:
    """Print the tables and ratios; the JSON document of it all."""
    doc: dict = {"sizes": sizes, "runs": args.runs, "duration_s": args.duration,
                 "idle_s": args.idle, "placement": placement, "rtt": {}, "tp": {},
                 "idle_cpu_pct": idle}
    if placement:
        log("\n" + fmt_placement(placement))
    for size in sizes:
        if size not in rtt:
            continue
        log(f"\nRTT of {size} B messages, median of {args.runs} run(s) (sockperf pp "
            "--full-rtt, dpsock-perf ping-pong; shm-spin: a raw shared-memory ring):")
        for line in table(rtt[size]):
            log(line)
        rs = ratios(rtt[size])
        for r in rs:
            log(fmt_ratio(r))
        doc["rtt"][str(size)] = {"results": rtt[size], "ratios": rs}
        if pairs and pairs.get(size):
            summ = pair_summary(pairs[size])
            for line in fmt_pair_summary(summ):
                log(line)
            doc["rtt"][str(size)]["pairs"] = pairs[size]
            doc["rtt"][str(size)]["pair_ratios"] = summ
        if size in tp:
            log(f"\nThroughput of {size} B messages, median of {args.runs} run(s) (sockperf tp; "
                "messages the server handled per second):")
            for line in tp_table(tp[size]):
                log(line)
            r = tp_ratio(tp[size])
            log(fmt_ratio(r))
            doc["tp"][str(size)] = {"results": tp[size], "ratio": r}
    if idle:
        hz = os.sysconf("SC_CLK_TCK")
        doc["idle_tick_pct"] = cpu_pct(1, args.idle, hz)
        log("")
        for line in idle_lines(idle, args.idle, hz):
            log(line)
    return doc


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
    try:
        sizes = parse_sizes(args.sizes)
    except ValueError as e:
        log(f"dpbench: {e}")
        return 2
    if args.idle < 0:
        log("dpbench: --idle: seconds, 0 to skip")
        return 2
    if args.no_local and not args.netns:
        log("dpbench: --no-local: with --netns only (else nothing is measured)")
        return 2
    if args.netns and os.geteuid() != 0:
        log("dpbench: --netns makes namespaces and veths: run it as root")
        return 2
    old = {sg: signal.signal(sg, dpsockbench._raise_interrupted)
           for sg in (signal.SIGTERM, signal.SIGHUP)}
    rtt: Dict[int, Samples] = {}
    tp: Dict[int, Samples] = {}
    idle: Dict[str, Optional[float]] = {}
    pairs: Dict[int, List[dict]] = {}
    where = None
    net = None
    try:
        if not args.no_local:
            rtt, tp, idle, pairs, where = measure_local(args, build, lib, perf, sizes)
        if args.netns:
            net = preloadnet.measure(args, build, lib, sizes)
    except dpsockbench.Interrupted as e:
        log(f"dpbench: stopped by {e}")
        return 1
    finally:
        for sg, h in old.items():
            signal.signal(sg, h)
    doc = report(args, sizes, rtt, tp, idle, pairs, where)
    missing = missing_rows(rtt, tp, idle)
    if net is not None:
        doc["netns"] = net_report(args, sizes, *net)
        missing += missing_rows(net[0], net[1], {})
    if args.json:
        Path(args.json).write_text(json.dumps(doc, indent=2) + "\n")
    if missing:
        log("dpbench: no result for " + ", ".join(missing))
        return 1
    return 0


def fmt_placement(pl: dict) -> str:
    w = "; ".join(f"thread {t['tid']} on CPU(s) {','.join(map(str, t['cpus']))}, {t['policy']}"
                  for t in pl.get("dpfwd_workers", [])) or "none found"
    return (f"Placement: server (sockperf sr, dpsock-perf's echo side) on CPU "
            f"{pl['server_cpu']}, client (sockperf pp/tp, dpsock-perf's timing side) on CPU "
            f"{pl['client_cpu']}; dpfwd's worker lcore: {w}")


POLICIES = {getattr(os, n): n for n in ("SCHED_OTHER", "SCHED_BATCH", "SCHED_IDLE",
                                        "SCHED_FIFO", "SCHED_RR") if hasattr(os, n)}


def placement(tids: List[int]) -> dict:
    """Where the rows run, dpfwd's worker threads TIDS as the kernel reports them."""
    workers = []
    for tid in tids:
        try:
            workers.append({"tid": tid, "cpus": sorted(os.sched_getaffinity(tid)),
                            "policy": POLICIES.get(os.sched_getscheduler(tid), "other")})
        except OSError:
            pass
    return {"server_cpu": SERVER_CPU, "client_cpu": CLIENT_CPU, "dpfwd_workers": workers}


def children_switches() -> Tuple[int, int]:
    """Voluntary and involuntary context switches of the children waited for so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_nvcsw, r.ru_nivcsw


def with_cost(fn: Callable[[], object]) -> Tuple[object, dict]:
    """FN's result and the context switches of the processes it ran (and waited for), their
    start and exit included."""
    c0 = children_switches()
    got = fn()
    c1 = children_switches()
    return got, {"voluntary": c1[0] - c0[0], "involuntary": c1[1] - c0[1]}


def run_perf_pair(perf: Path, d, size: int, duration: float, out: Path) -> Dict[str, dict]:
    """dpsock-perf's ping-pong of SIZE bytes, dpsock-local then shm-spin, placed as the
    sockperf rows are (its timing side on CLIENT_CPU); each as long as sockperf's run.
    @return PERF_ROWS' rows -> p50 and p99 (None when it gave none, logged)."""
    rc, _, err = dpsockbench.run_perf(
        [perf, "--dpsock", d.sock, "--local-addr", dpsockbench.LOCAL_ADDR,
         "--transports", ",".join(PERF_ROWS), "--sizes", str(size),
         "--cpus", f"{CLIENT_CPU},{SERVER_CPU}", "--duration", "0",
         "--iters", str(PERF_MAX_ITERS), "--pp-max", str(duration), "--json", out],
        duration * len(PERF_ROWS) * 2 + 60)
    doc = json.loads(out.read_text()) if rc == 0 and out.exists() else {}
    if rc != 0:
        log(f"dpsock-perf: exit {rc}: {err.strip()[-300:]}")
    return {row: perf_rtt(doc, size, t) for t, row in PERF_ROWS.items()}


def measure_local(args, build: Path, lib: Path, perf: Path, sizes: List[int]):
    """The intra-host rows, idle CPU included: (rtt, tp, idle, pairs, placement)."""
    d = dpsockbench.Dpfwd(build, REPO / dpsockbench.LOCAL_CONFIG, DP.mem_args(args.no_huge),
                          tag="preload")
    rtt: Dict[int, Samples] = {s: {r: {"p50": [], "p99": []} for r in ROWS} for s in sizes}
    tp: Dict[int, Samples] = ({} if args.no_tp else
                              {s: {r: {"msgs_per_s": []} for r in TP_ROWS} for s in sizes})
    pairs: Dict[int, List[dict]] = {s: [] for s in sizes}
    idle: Dict[str, Optional[float]] = {}
    try:
        d.start()
        workers = [] if args.keep_worker else d.idle_workers()
        where = placement(d.worker_tids())
        log(f"dpfwd pid {d.proc.pid} on {d.sock}"
            + (f"; worker thread(s) {','.join(map(str, workers))} SCHED_IDLE" if workers else ""))
        log(fmt_placement(where))
        feed = d.dir / "feed"
        feed.write_text(f"U:127.0.0.1:{PORT}\n")
        kernel_env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        preload_env = dict(kernel_env, LD_PRELOAD=str(lib), DPSOCK_PATH=str(d.sock))
        envs = {"kernel": kernel_env, "preload": preload_env}
        for i in range(args.runs):
            for size in sizes:
                got = {"kernel": run_sockperf(feed, kernel_env, args.duration, size)}
                steps = {
                    "preload": lambda: {"preload": run_sockperf(feed, preload_env,
                                                                args.duration, size)},
                    "dpsock-perf": lambda: run_perf_pair(perf, d, size, args.duration,
                                                         d.dir / f"perf{i + 1}-{size}.json")}
                order = PAIR if i % 2 == 0 else PAIR[::-1]
                pair: dict = {"run": i + 1, "first": order[0],
                              "load1": os.getloadavg()[0], "cost": {}}
                for step in order:
                    res, pair["cost"][step] = with_cost(steps[step])
                    got.update(res)
                for row in ROWS:
                    pair[row] = got[row]
                    for k in ("p50", "p99"):
                        rtt[size][row][k].append(got[row][k])
                pairs[size].append(pair)
                line = f"run {i + 1}/{args.runs} {size} B: kernel p50 {got['kernel']['p50']}; "
                line += fmt_pair(pair)
                if size in tp:
                    for row in TP_ROWS:
                        t = run_tp(feed, envs[row], args.duration, size, d.dir, row)
                        tp[size][row]["msgs_per_s"].append(t["msgs_per_s"])
                        v = t["msgs_per_s"]
                        line += f", tp {row} " + ("-" if v is None else
                                                  f"{v:.0f} msg/s ({t['source']})")
                log(line)
        if args.idle > 0:
            for row in SOCKPERF_ROWS:
                idle[row] = measure_idle(feed, envs[row], args.idle)
    finally:
        d.stop()
        d.remove()
    return rtt, tp, idle, pairs, where


def add_parsers(sub, dpbench_module) -> None:
    global DP
    DP = dpbench_module
    preloadnet.DP = dpbench_module
    p = sub.add_parser("preload", help="sockperf RTT, throughput and idle CPU under "
                       "libdpsock-preload vs the kernel's UDP (RTT also vs dpsock-perf)")
    p.add_argument("--build", help="build dir (default: $DPFWD_BUILD, else REPO/build)")
    p.add_argument("--runs", type=int, default=3, help="rounds of the rows (default 3)")
    p.add_argument("--duration", type=float, default=2,
                   help="seconds per sockperf run (rounded to whole seconds, sockperf's -t)")
    p.add_argument("--sizes", default="16",
                   help="message bytes, comma-separated, e.g. 16,64,1024,8192,65000 (default "
                   "16); sockperf's -m counts its own 14-byte header: 14 to 65507")
    p.add_argument("--no-tp", action="store_true",
                   help="skip the throughput rows (sockperf tp, kernel and preloaded)")
    p.add_argument("--idle", type=float, default=3,
                   help="seconds of idle CPU measured on a sockperf sr with no client, "
                   "kernel and preloaded (default 3; 0: skip)")
    p.add_argument("--netns", action="store_true",
                   help="also through dpfwd to a Linux host in a namespace (root): sockperf "
                   "preloaded on this host vs a kernel client routed through dpfwd")
    p.add_argument("--no-local", action="store_true",
                   help="with --netns: only the rows through dpfwd")
    p.add_argument("--json", help="write the results and ratios as JSON")
    p.add_argument("--no-huge", action="store_true", help="run dpfwd with --no-huge")
    p.add_argument("--keep-worker", action="store_true",
                   help="leave dpfwd's worker at its normal priority")
    p.set_defaults(func=cmd_preload)


if __name__ == "__main__":
    sys.exit("run it as: dpbench.py preload")
