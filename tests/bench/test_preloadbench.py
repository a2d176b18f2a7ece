#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/preloadbench: `dpbench.py preload` (apps/dpbench/preloadbench.py), unit tests.

No dpfwd, no process: --sizes (sockperf's 14..65507 bytes), the parsers of sockperf 3.7's
outputs (pp --full-rtt percentiles; tp's client and server totals, ANSI colours and all,
recorded on Debian 12), the CPU time of a /proc/PID/stat line, the RTT and throughput
tables, their ratios of medians, the pairs (preload beside dpsock-perf: per-pair ratios,
their median and quartiles, the cost of each side), the placement read back from the kernel,
the rows without a result, and the JSON of a report.
"""
import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import threading
import unittest
from pathlib import Path

REPO = Path(os.environ.get("DPFWD_SRC", Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(REPO / "apps" / "dpbench"))
import preloadbench as pb  # noqa: E402
import preloadnet as pn  # noqa: E402

E = "\x1b"
PP_OUT = f"""sockperf: {E}[2;35m== version #3.7-no.git == {E}[0m
sockperf[CLIENT] send on:sockperf: using epoll() to block on socket(s)
[ 0] IP = 127.0.0.1       PORT = 11699 # UDP
sockperf: Warmup stage (sending a few dummy messages)...
sockperf: Starting test...
sockperf: Test end (interrupted by timer)
sockperf: Test ended
sockperf: [Total Run] RunTime=1.001 sec; Warm up time=400 msec; SentMessages=42025; \
ReceivedMessages=42024
sockperf: ========= Printing statistics for Server No: 0
sockperf: [Valid Duration] RunTime=0.552 sec; SentMessages=22073; ReceivedMessages=22073
sockperf: {E}[2;35m====> avg-rtt=24.972 (std-dev=168.335){E}[0m
sockperf: # dropped messages = 0; # duplicated messages = 0; # out-of-order messages = 0
sockperf: Summary: Round trip is 24.972 usec
sockperf: {E}[2;35mTotal 22073 observations{E}[0m; each percentile contains 220.73 observations
sockperf: ---> <MAX> observation = 5246.571
sockperf: ---> percentile 99.999 = 5246.571
sockperf: ---> percentile 99.990 = 5215.924
sockperf: ---> percentile 99.900 = 3570.339
sockperf: ---> percentile 99.000 =   33.722
sockperf: ---> percentile 90.000 =   18.043
sockperf: ---> percentile 75.000 =   17.141
sockperf: ---> percentile 50.000 =   16.420
sockperf: ---> percentile 25.000 =   16.300
sockperf: ---> <MIN> observation =   16.099
"""

TP_CLIENT = f"""sockperf: {E}[2;35m== version #3.7-no.git == {E}[0m
sockperf[CLIENT] send on:
[ 0] IP = 127.0.0.1       PORT = 11699 # UDP
sockperf: Warmup stage (sending a few dummy messages)...
sockperf: Starting test...
sockperf: Test end (interrupted by timer)
sockperf: Test ended
sockperf: Total of 75679 messages sent in 1.000 sec

sockperf: {E}[2;35mNOTE: test was performed, using msg-size=16. For getting maximum \
throughput consider using --msg-size=1472{E}[0m
sockperf: Summary: Message Rate is 75643 [msg/sec]
sockperf: Summary: BandWidth is 1.154 MBps (9.234 Mbps)
"""

TP_SERVER = f"""sockperf: {E}[2;35m== version #3.7-no.git == {E}[0m
sockperf: [SERVER] listen on:
[ 0] IP = 127.0.0.1       PORT = 11699 # UDP
sockperf: Warmup stage (sending a few dummy messages)...
sockperf: [tid 554] using epoll() to block on socket(s)
sockperf: Test end (interrupted by user)
sockperf: Total 37399 messages received and handled
sockperf: cleanupAfterLoop() exit
"""

# /proc/PID/stat of a process named "a (b) c": the name holds spaces and parentheses
STAT = ("4242 (a (b) c) S 1 4242 4242 0 -1 4194560 120 0 0 0 37 5 0 0 20 0 1 0 "
        "123456 10000000 300 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0")


def rtt_samples(kernel, preload, perf):
    """ROWS -> p50/p99 lists: each value V of a list gives p50 V and p99 2V."""
    return {row: {"p50": list(v), "p99": [None if x is None else 2 * x for x in v]}
            for row, v in (("kernel", kernel), ("preload", preload), ("dpsock-perf", perf))}


class TestSizes(unittest.TestCase):
    def test_list_in_order_without_duplicates(self):
        self.assertEqual(pb.parse_sizes("16,64,1024,8192,65000"), [16, 64, 1024, 8192, 65000])
        self.assertEqual(pb.parse_sizes(" 1024, 16,1024,"), [1024, 16])

    def test_sockperf_range(self):
        self.assertEqual(pb.parse_sizes("14,65507"), [14, 65507])
        for bad in ("13", "65508", "16,0", "16,x", "", ","):
            with self.assertRaises(ValueError, msg=bad):
                pb.parse_sizes(bad)
        with self.assertRaisesRegex(ValueError, "65507"):
            pb.parse_sizes("65536")

    def test_whole_seconds_for_sockperf(self):
        self.assertEqual([pb.sockperf_seconds(s) for s in (0.2, 1, 1.4, 2.6, 3)],
                         ["1", "1", "1", "3", "3"])


class TestParsers(unittest.TestCase):
    def test_pp_percentiles(self):
        self.assertEqual(pb.sockperf_rtt(PP_OUT), {"p50": 16.42, "p99": 33.722})
        self.assertEqual(pb.sockperf_rtt("sockperf: ERROR"), {"p50": None, "p99": None})

    def test_pp_why_no_result(self):
        # what sockperf 3.7 printed in runs without percentiles
        stalled = ("sockperf: Test end (interrupted by timer)\nsockperf: Test ended\n"
                   "sockperf: [Total Run] RunTime=1.001 sec; Warm up time=400 msec; "
                   "SentMessages=56; ReceivedMessages=55\n"
                   "sockperf: ========= Printing statistics for Server No: 0\n"
                   "sockperf: No valid observations found. Try tune parameters: "
                   "--time/--mps/--reply-every\n")
        why, again = pb.sockperf_pp_why(stalled)
        self.assertTrue(why.startswith("stalled after 55 round trips"), why)
        self.assertTrue(again)
        none = ("sockperf: Test ended\nsockperf: No messages were received from the server. "
                "Is the server down?\n")
        why, again = pb.sockperf_pp_why(none)
        self.assertTrue(why.startswith("no reply at all"), why)
        self.assertTrue(again)
        why, again = pb.sockperf_pp_why("sockperf: ERROR: _seqN > m_maxSequenceNo (5)\n")
        self.assertTrue(why.startswith("sockperf gave up"), why)
        self.assertFalse(again)
        short = stalled.replace("RunTime=1.001", "RunTime=0.300").replace(
            "SentMessages=56", "SentMessages=55")
        why, again = pb.sockperf_pp_why(short)
        self.assertTrue(why.startswith("the run (0.300 s) was no longer"), why)
        self.assertFalse(again)
        why, again = pb.sockperf_pp_why("sockperf: \x1b[31mweird\x1b[0m")
        self.assertEqual((why, again), ("no percentiles in sockperf's output: 'sockperf: weird'",
                                        False))

    def test_tp_server_total_over_client_time(self):
        t = pb.sockperf_tp(TP_CLIENT, TP_SERVER)
        self.assertEqual((t["sent"], t["received"], t["run_s"]), (75679, 37399, 1.0))
        self.assertAlmostEqual(t["msgs_per_s"], 37399.0)
        self.assertEqual(t["source"], "server")
        t = pb.sockperf_tp(TP_CLIENT.replace("in 1.000 sec", "in 2.000 sec"), TP_SERVER)
        self.assertAlmostEqual(t["msgs_per_s"], 37399 / 2.0)

    def test_tp_client_rate_without_server_total(self):
        t = pb.sockperf_tp(TP_CLIENT, "sockperf: Test end (interrupted by user)\n")
        self.assertEqual((t["msgs_per_s"], t["source"], t["received"]), (75643.0, "client", None))

    def test_tp_nothing(self):
        t = pb.sockperf_tp("sockperf: ERROR", "")
        self.assertIsNone(t["msgs_per_s"])
        self.assertIsNone(t["source"])

    def test_proc_stat_cpu_ticks(self):
        self.assertEqual(pb.proc_cpu_ticks(STAT), 42)      # utime 37 + stime 5
        self.assertEqual(pb.proc_cpu_ticks(STAT.replace("(a (b) c)", "(sockperf)")), 42)

    def test_cpu_percent_of_one_cpu(self):
        self.assertAlmostEqual(pb.cpu_pct(300, 3.0, 100), 100.0)
        self.assertAlmostEqual(pb.cpu_pct(3, 3.0, 100), 1.0)
        self.assertEqual(pb.cpu_pct(0, 3.0, 100), 0.0)
        self.assertIsNone(pb.cpu_pct(5, 0.0, 100))

    def test_perf_rtt_of_size(self):
        doc = {"cells": [
            {"transport": "dpsock-local", "size": 16, "status": "ok",
             "rtt_us": {"p50": 0.9, "p99": 2.0}},
            {"transport": "dpsock-local", "size": 1024, "status": "failed",
             "rtt_us": {"p50": 5.0, "p99": 9.0}},
            {"transport": "udp-loopback", "size": 1024, "status": "ok",
             "rtt_us": {"p50": 30.0, "p99": 60.0}}]}
        self.assertEqual(pb.perf_rtt(doc, 16), {"p50": 0.9, "p99": 2.0})
        doc["cells"].append({"transport": "shm-spin", "size": 16, "status": "ok",
                             "rtt_us": {"p50": 0.2, "p99": 0.3}})
        self.assertEqual(pb.perf_rtt(doc, 16, "shm-spin"), {"p50": 0.2, "p99": 0.3})
        self.assertEqual(pb.perf_rtt(doc, 1024, "shm-spin"), {"p50": None, "p99": None})
        self.assertEqual(pb.perf_rtt(doc, 1024), {"p50": None, "p99": None})
        self.assertEqual(pb.perf_rtt({}, 16), {"p50": None, "p99": None})


class TestTablesAndRatios(unittest.TestCase):
    def test_rtt_ratios_of_medians(self):
        res = rtt_samples([60.0, 40.0, 50.0], [1.0, 2.0, None], [0.5, 0.5, 0.5])
        rs = {(r["num"], r["metric"]): r["ratio"] for r in pb.ratios(res)}
        # dpstat's median of an even count: the upper middle value (2.0 of 1.0, 2.0)
        self.assertAlmostEqual(rs[("kernel", "p50")], 50.0 / 2.0)
        self.assertAlmostEqual(rs[("kernel", "p99")], 100.0 / 4.0)
        self.assertAlmostEqual(rs[("preload", "p50")], 2.0 / 0.5)
        res = rtt_samples([60.0], [1.0], [None])
        self.assertIsNone([r for r in pb.ratios(res) if r["den"] == "dpsock-perf"][0]["ratio"])

    def test_rtt_table(self):
        lines = pb.table(rtt_samples([60.0, 40.0, 50.0], [1.0, 2.0, 1.5], [None]))
        self.assertEqual(len(lines), 4)
        self.assertIn("p50 us", lines[0])
        self.assertEqual(lines[1].split(), ["kernel", "50.00", "[40.00..60.00]", "100.00",
                                            "[80.00..120.00]"])
        self.assertEqual(lines[3].split(), ["dpsock-perf", "-", "-"])
        res = rtt_samples([60.0], [1.0], [0.5])
        res["shm-spin"] = {"p50": [0.25], "p99": [0.5]}
        lines = pb.table(res)
        self.assertEqual(len(lines), 5)
        self.assertEqual(lines[4].split()[:2], ["shm-spin", "0.25"])

    def test_tp_table_and_ratio(self):
        tp = {"kernel": {"msgs_per_s": [40000.0, 38000.0, 42000.0]},
              "preload": {"msgs_per_s": [900000.0, None, 1000000.0]}}
        lines = pb.tp_table(tp)
        self.assertEqual(lines[1].split(), ["kernel", "40000", "[38000..42000]"])
        self.assertEqual(lines[2].split(), ["preload", "1000000", "[900000..1000000]"])
        r = pb.tp_ratio(tp)
        self.assertAlmostEqual(r["ratio"], 1000000.0 / 40000.0)
        self.assertEqual((r["num"], r["den"]), ("preload", "kernel"))
        self.assertIn("25.00", pb.fmt_ratio(r))
        tp["kernel"]["msgs_per_s"] = [None]
        self.assertIsNone(pb.tp_ratio(tp)["ratio"])
        self.assertIn(": -", pb.fmt_ratio(pb.tp_ratio(tp)))

    def test_idle_lines(self):
        lines = pb.idle_lines({"kernel": 0.0, "preload": 0.333}, 3, 100)
        self.assertIn("3 s", lines[0])
        self.assertIn("one clock tick is 0.33 %", lines[0])
        self.assertEqual(lines[1].split(), ["kernel", "0.00", "%"])
        self.assertEqual(lines[2].split(), ["preload", "0.33", "%"])
        self.assertEqual(pb.idle_lines({"kernel": None}, 3, 100)[1].split(), ["kernel", "-"])

    def test_missing_rows(self):
        rtt = {16: rtt_samples([50.0], [1.0], [0.5]), 1024: rtt_samples([50.0], [None], [0.5])}
        tp = {16: {"kernel": {"msgs_per_s": [1.0]}, "preload": {"msgs_per_s": [None]}}}
        self.assertEqual(pb.missing_rows(rtt, tp, {"kernel": 0.0, "preload": None}),
                         ["preload 1024 B", "tp preload 16 B", "idle preload"])
        self.assertEqual(pb.missing_rows({16: rtt[16]}, {}, {}), [])


def pair(preload, perf, first="preload", shm=0.2):
    """A pair's record: p50s given, p99 twice the p50."""
    def cell(v):
        return {"p50": v, "p99": None if v is None else 2 * v}
    return {"run": 1, "first": first, "load1": 1.5, "preload": cell(preload),
            "dpsock-perf": cell(perf), "shm-spin": cell(shm), "kernel": cell(60.0),
            "cost": {"preload": {"voluntary": 7, "involuntary": 2},
                     "dpsock-perf": {"voluntary": 9, "involuntary": 1}}}


class TestPairs(unittest.TestCase):
    """preload and dpsock-perf one right after the other: the ratio of each pair."""

    def test_quartiles(self):
        q = pb.quartiles([4.0, 1.0, None, 3.0, 2.0, 5.0])
        # statistics.quantiles' default (exclusive) method on 1..5: 1.5, 3, 4.5
        self.assertEqual((q["n"], q["median"], q["q1"], q["q3"], q["min"], q["max"]),
                         (5, 3.0, 1.5, 4.5, 1.0, 5.0))
        self.assertEqual(pb.quartiles([2.0, 4.0])["median"], 3.0)
        one = pb.quartiles([2.5])
        self.assertEqual((one["median"], one["q1"], one["q3"]), (2.5, 2.5, 2.5))
        self.assertIsNone(pb.quartiles([None]))
        self.assertIsNone(pb.quartiles([]))

    def test_ratio_of_each_pair_not_of_medians(self):
        # the machine's state changes between pairs: both sides of one pair move together
        pairs = [pair(0.8, 0.4), pair(1.6, 0.8, "dpsock-perf"), pair(0.9, 0.45),
                 pair(1.5, None), pair(None, 0.4)]
        self.assertAlmostEqual(pb.pair_ratio(pairs[0], "p50"), 2.0)
        self.assertAlmostEqual(pb.pair_ratio(pairs[1], "p99"), 2.0)
        self.assertIsNone(pb.pair_ratio(pairs[3], "p50"))
        self.assertIsNone(pb.pair_ratio(pairs[4], "p50"))
        summ = pb.pair_summary(pairs)
        self.assertEqual(summ["p50"]["n"], 3)
        self.assertAlmostEqual(summ["p50"]["median"], 2.0)
        self.assertAlmostEqual(summ["p50"]["q1"], 2.0)
        self.assertAlmostEqual(summ["p99"]["q3"], 2.0)
        # the ratio of the medians mixes pairs: a slow pair's preload over a fast pair's
        # dpsock-perf (1.6 / 0.45) where every pair's own ratio is 2 but one
        mixed = [pair(0.8, 0.4), pair(1.6, 0.8), pair(1.7, 0.85), pair(0.9, 0.45),
                 pair(1.65, 0.42)]
        med = pb.summary([p["preload"]["p50"] for p in mixed])["median"] / \
            pb.summary([p["dpsock-perf"]["p50"] for p in mixed])["median"]
        self.assertGreater(med, 3.0)
        q = pb.pair_summary(mixed)["p50"]
        self.assertAlmostEqual(q["median"], 2.0)
        self.assertLess(q["max"], 4.0)
        lines = pb.fmt_pair_summary(pb.pair_summary(pairs))
        self.assertEqual(lines[0], "preload / dpsock-perf p50, per pair: median 2.00, "
                         "quartiles 2.00-2.00 [2.00..2.00] over 3 pair(s)")
        self.assertEqual(pb.fmt_pair_summary({"p50": None, "p99": None})[1],
                         "preload / dpsock-perf p99, per pair: -")

    def test_pair_line(self):
        line = pb.fmt_pair(pair(0.9, 0.45, "dpsock-perf", 0.21))
        self.assertEqual(line, "dpsock-perf first: preload p50 0.900, dpsock-perf 0.450 "
                         "(x2.00), shm-spin 0.210 us; load 1.50; context switches vol/invol: "
                         "preload 7/2, dpsock-perf 9/1")
        self.assertIn("(x-)", pb.fmt_pair(pair(None, 0.45)))
        bare = pair(0.9, 0.45)
        del bare["cost"]
        self.assertTrue(pb.fmt_pair(bare).endswith("us; load 1.50"))

    def test_placement_read_back(self):
        tid = threading.get_native_id()
        pl = pb.placement([tid, 2 ** 22 + 7])     # the second thread does not exist
        self.assertEqual((pl["server_cpu"], pl["client_cpu"]), (0, 1))
        self.assertEqual(len(pl["dpfwd_workers"]), 1)
        w = pl["dpfwd_workers"][0]
        # the oracle: the kernel's own text for this thread
        status = Path(f"/proc/self/task/{tid}/status").read_text()
        allowed = [ln.split(":", 1)[1].strip() for ln in status.splitlines()
                   if ln.startswith("Cpus_allowed_list:")][0]
        cpus = set()
        for part in allowed.split(","):
            lo, _, hi = part.partition("-")
            cpus.update(range(int(lo), int(hi or lo) + 1))
        self.assertEqual(w["cpus"], sorted(cpus))
        policy = int(Path(f"/proc/self/task/{tid}/stat").read_text().rsplit(")", 1)[1]
                     .split()[38])      # field 41 of proc(5)
        self.assertEqual(w["policy"], {0: "SCHED_OTHER", 3: "SCHED_BATCH", 5: "SCHED_IDLE"}
                         .get(policy, w["policy"]))
        self.assertIn("SCHED_", w["policy"])
        self.assertIn(f"thread {tid} on CPU(s)", pb.fmt_placement(pl))
        self.assertIn("none found", pb.fmt_placement(pb.placement([])))

    def test_cost_of_a_step(self):
        # a child that sleeps gives up its CPU: at least one voluntary switch
        got, cost = pb.with_cost(lambda: subprocess.run(["sleep", "0.05"]).returncode)
        self.assertEqual(got, 0)
        self.assertGreaterEqual(cost["voluntary"], 1)
        self.assertGreaterEqual(cost["involuntary"], 0)
        # a child that spins: the oracle is its own count of itself, read from the kernel
        # before it prints and exits (its output and exit may add a switch or two)
        spin = ("import time\nend = time.monotonic() + 0.1\nwhile time.monotonic() < end:\n"
                "    pass\nimport resource\nprint(resource.getrusage(resource.RUSAGE_SELF)"
                ".ru_nvcsw)")
        out, cost = pb.with_cost(lambda: subprocess.run([sys.executable, "-c", spin],
                                                        capture_output=True, text=True).stdout)
        self.assertGreaterEqual(cost["voluntary"], int(out))
        self.assertLessEqual(cost["voluntary"], int(out) + 3)
        # nothing run, nothing counted
        self.assertEqual(pb.with_cost(lambda: 7), (7, {"voluntary": 0, "involuntary": 0}))


class TestNetns(unittest.TestCase):
    """--netns (preloadnet.py): dpfwd's config and the rows through dpfwd."""

    def test_config_adds_both_veth_ports_and_neighbors(self):
        local = (REPO / "configs" / "bench" / "dpsock-local.ini").read_text()
        cfg = pn.net_config(local, "net_af_packet", "plb1d", "plb1e", "/d")
        lines = [ln.strip() for ln in cfg.splitlines()]
        self.assertIn("rx = (0,0,1),(1,0,1),(2,0,1)", lines)
        self.assertIn("dev = net_af_packet1,iface=plb1d,framecnt=4096", lines)
        self.assertIn("dev = net_af_packet2,iface=plb1e,framecnt=4096", lines)
        self.assertIn("ip4 = 198.18.42.1/24", lines)
        nb = lines.index("[neighbors]")
        self.assertEqual([ln for ln in lines[nb + 1:] if ln],
                         ["neigh = 198.18.40.2 lladdr 02:00:00:28:00:02 port 1",
                          "neigh = 198.18.42.2 lladdr 02:00:00:2a:00:02 port 2"])
        self.assertEqual(lines.count("[neighbors]"), 1)
        self.assertLess(lines.index("[port2]"), nb)

    def test_kernel_client_in_its_namespace(self):
        rig = pn.NetRig(None)
        a = pn.client_argv("net kernel", rig, "pp", 16, 2)
        self.assertEqual(a[:4], ["ip", "netns", "exec", rig.k])
        self.assertIn("--full-rtt", a)
        a = pn.client_argv("net preload", rig, "tp", 64, 2)
        self.assertEqual(a[:2], ["sockperf", "tp"])
        self.assertNotIn("--full-rtt", a)

    def test_net_ratios_and_missing(self):
        res = {"net kernel": {"p50": [40.0, 50.0, 60.0], "p99": [100.0]},
               "net preload": {"p50": [10.0, 5.0, 5.0], "p99": [None]}}
        rs = {r["metric"]: r["ratio"] for r in pb.net_ratios(res)}
        self.assertAlmostEqual(rs["p50"], 50.0 / 5.0)
        self.assertIsNone(rs["p99"])
        self.assertEqual(pb.table(res, pb.NET_ROWS)[1].split()[:3],
                         ["net", "kernel", "50.00"])
        tp = {"net kernel": {"msgs_per_s": [1000.0]}, "net preload": {"msgs_per_s": [None]}}
        self.assertEqual(pb.missing_rows({16: res}, {16: tp}, {}),
                         ["tp net preload 16 B"])
        self.assertIsNone(pb.tp_ratio(tp, "net preload", "net kernel")["ratio"])


class TestReport(unittest.TestCase):
    def test_json_has_sizes_rows_ratios_idle(self):
        args = argparse.Namespace(runs=2, duration=1.0, idle=3.0)
        rtt = {16: rtt_samples([50.0, 60.0], [1.0, 1.2], [0.5, 0.6]),
               1024: rtt_samples([70.0, 80.0], [2.0, 2.2], [1.0, 1.1])}
        tp = {16: {"kernel": {"msgs_per_s": [4e4, 5e4]}, "preload": {"msgs_per_s": [1e6, 2e6]}}}
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            doc = pb.report(args, [16, 1024], rtt, tp, {"kernel": 0.0, "preload": 0.1})
        doc = json.loads(json.dumps(doc))
        self.assertEqual(doc["sizes"], [16, 1024])
        self.assertEqual(set(doc["rtt"]), {"16", "1024"})
        self.assertEqual(doc["rtt"]["1024"]["results"]["kernel"]["p50"], [70.0, 80.0])
        self.assertAlmostEqual(doc["rtt"]["16"]["ratios"][0]["ratio"], 60.0 / 1.2)
        self.assertEqual(set(doc["tp"]), {"16"})
        self.assertAlmostEqual(doc["tp"]["16"]["ratio"]["ratio"], 2e6 / 5e4)
        self.assertEqual(doc["idle_cpu_pct"], {"kernel": 0.0, "preload": 0.1})
        self.assertAlmostEqual(doc["idle_tick_pct"], 100.0 / os.sysconf("SC_CLK_TCK") / 3.0)
        text = out.getvalue()
        self.assertIn("RTT of 1024 B", text)
        self.assertIn("Throughput of 16 B", text)
        self.assertNotIn("Throughput of 1024 B", text)
        self.assertIn("preload / kernel msgs_per_s: 40.00", text)
        self.assertIn("Idle CPU", text)
        self.assertIsNone(doc["placement"])
        self.assertNotIn("pairs", doc["rtt"]["16"])

    def test_json_has_pairs_and_placement(self):
        args = argparse.Namespace(runs=2, duration=1.0, idle=0.0)
        rtt = {16: rtt_samples([50.0, 60.0], [0.8, 1.6], [0.4, 0.8])}
        pairs = {16: [pair(0.8, 0.4), pair(1.6, 0.8, "dpsock-perf")]}
        where = {"server_cpu": 0, "client_cpu": 1,
                 "dpfwd_workers": [{"tid": 42, "cpus": [1], "policy": "SCHED_IDLE"}]}
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            doc = pb.report(args, [16], rtt, {}, {}, pairs, where)
        doc = json.loads(json.dumps(doc))
        self.assertEqual(doc["placement"], where)
        self.assertEqual([p["first"] for p in doc["rtt"]["16"]["pairs"]],
                         ["preload", "dpsock-perf"])
        self.assertAlmostEqual(doc["rtt"]["16"]["pair_ratios"]["p50"]["median"], 2.0)
        self.assertEqual(doc["rtt"]["16"]["pair_ratios"]["p50"]["n"], 2)
        text = out.getvalue()
        self.assertIn("Placement: server (sockperf sr, dpsock-perf's echo side) on CPU 0, "
                      "client (sockperf pp/tp, dpsock-perf's timing side) on CPU 1; dpfwd's "
                      "worker lcore: thread 42 on CPU(s) 1, SCHED_IDLE", text)
        self.assertIn("preload / dpsock-perf p50, per pair: median 2.00", text)

    def test_no_idle_section_when_skipped(self):
        args = argparse.Namespace(runs=1, duration=1.0, idle=0.0)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            doc = pb.report(args, [16], {16: rtt_samples([50.0], [1.0], [0.5])}, {}, {})
        self.assertEqual((doc["tp"], doc["idle_cpu_pct"]), ({}, {}))
        self.assertNotIn("Idle CPU", out.getvalue())


if __name__ == "__main__":
    unittest.main(verbosity=2)
