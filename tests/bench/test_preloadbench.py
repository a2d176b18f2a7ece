#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/preloadbench: `dpbench.py preload` (apps/dpbench/preloadbench.py), unit tests.

No dpfwd, no process: --sizes (sockperf's 14..65507 bytes), the parsers of sockperf 3.7's
outputs (pp --full-rtt percentiles; tp's client and server totals, ANSI colours and all,
recorded on Debian 12), the CPU time of a /proc/PID/stat line, the RTT and throughput
tables, their ratios of medians, the rows without a result, and the JSON of a report.
"""
import argparse
import contextlib
import io
import json
import os
import sys
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

    def test_no_idle_section_when_skipped(self):
        args = argparse.Namespace(runs=1, duration=1.0, idle=0.0)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            doc = pb.report(args, [16], {16: rtt_samples([50.0], [1.0], [0.5])}, {}, {})
        self.assertEqual((doc["tp"], doc["idle_cpu_pct"]), ({}, {}))
        self.assertNotIn("Idle CPU", out.getvalue())


if __name__ == "__main__":
    unittest.main(verbosity=2)
