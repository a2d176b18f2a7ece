#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""unit/relaybench: the parts of `dpbench.py relay` and `relay-pps` that need no
namespace and no process: the command line, udprtt's JSON summary, the exact
quantiles, dpfwd's delay-bucket windows and busy share, CPU deltas, the summary and
its table and ratios, and the dpfwd relay config written for the namespaces."""
import argparse
import json
import math
import os
import random
import sys
import unittest
from pathlib import Path

REPO = Path(os.environ.get("DPFWD_SRC", Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(REPO / "apps" / "dpbench"))
import dpbench  # noqa: E402
import relaybench as rb  # noqa: E402

RTT = {"n": 3, "min": 10.0, "p50": 11.0, "p90": 12.0, "p99": 13.0, "p999": 13.0, "max": 13.0,
       "mean": 11.3, "stddev": 1.5}


def udprtt_doc(**over):
    d = {"tool": "udprtt", "target": "198.18.10.1:5000", "size": 64, "sent": 3, "received": 3,
         "lost": 0, "corrupted": 0, "late": 0, "duplicate": 0, "rtt_us": dict(RTT)}
    d.update(over)
    return d


class TestQuantiles(unittest.TestCase):
    def test_nearest_rank_definition(self):
        rnd = random.Random(5)
        for n in (1, 2, 3, 7, 10, 99, 100, 101, 999, 1000, 1001, 12345):
            vals = sorted(rnd.randrange(10**6) for _ in range(n))
            for q in (5000, 9000, 9900, 9990):
                # smallest value with at least q/10000 of the samples at or below it
                want = next(v for i, v in enumerate(vals) if (i + 1) * 10000 >= q * n)
                self.assertEqual(rb.quantile_nr(vals, q), want, (n, q))
                self.assertEqual(rb.quantile_nr(vals, q), vals[math.ceil(q * n / 10000) - 1])

    def test_known_values(self):
        v = list(range(1, 101))                 # 1..100
        self.assertEqual([rb.quantile_nr(v, q) for q in (5000, 9000, 9900, 9990)],
                         [50, 90, 99, 100])
        self.assertIsNone(rb.quantile_nr([], 5000))
        self.assertEqual(rb.quantile_nr([7], 9990), 7)

    def test_rtt_summary_shape_and_order(self):
        s = rb.rtt_summary([3000, 1000, 2000, 10000])
        self.assertEqual(set(s), set(rb.RTT_KEYS))
        self.assertEqual((s["n"], s["min"], s["p50"], s["max"]), (4, 1.0, 2.0, 10.0))
        self.assertAlmostEqual(s["mean"], 4.0)
        ks = ["min", "p50", "p90", "p99", "p999", "max"]
        self.assertEqual([s[k] for k in ks], sorted(s[k] for k in ks))
        self.assertIsNone(rb.rtt_summary([]))


class TestUdprttJson(unittest.TestCase):
    def test_accepts_summary(self):
        d = rb.parse_udprtt(json.dumps(udprtt_doc()))
        self.assertEqual(d["received"], 3)
        self.assertIsNone(rb.parse_udprtt(json.dumps(udprtt_doc(rtt_us=None)))["rtt_us"])

    def test_rejects_others(self):
        bad = [udprtt_doc(tool="udprelay"), {k: v for k, v in udprtt_doc().items() if k != "lost"},
               udprtt_doc(rtt_us={"p50": 1})]
        for d in bad:
            with self.assertRaises(ValueError):
                rb.parse_udprtt(json.dumps(d))
        with self.assertRaises(ValueError):
            rb.parse_udprtt("not json")


class TestDelayWindow(unittest.TestCase):
    def test_bucket_diff_and_quantiles(self):
        prev = [[0, 1, 5], [100, 25, 10]]
        cur = [[0, 1, 5], [100, 25, 30], [200, 50, 20]]
        d = rb.buckets_diff(cur, prev)
        self.assertEqual(d, [[100, 25, 20], [200, 50, 20]])
        # dp_hist_bucket_quantile: linear inside the bucket
        self.assertAlmostEqual(rb.bucket_quantile(d, 0.5), 125.0)
        self.assertAlmostEqual(rb.bucket_quantile(d, 0.75), 225.0)
        self.assertIsNone(rb.bucket_quantile([], 0.5))

    def test_delay_window_in_ns(self):
        snap0 = {"tsc_hz": 2_000_000_000, "delay": {"total": {"buckets_cycles": [[1000, 1000, 4]]}}}
        snap1 = {"tsc_hz": 2_000_000_000, "delay": {"total": {
            "count": 12, "p50_ns": 1.0, "max_ns": 9.0,
            "buckets_cycles": [[1000, 1000, 4], [4000, 1000, 8]]}}}
        w = rb.delay_window(snap1, snap0)
        self.assertEqual(w["count"], 8)
        self.assertAlmostEqual(w["p50_ns"], 4500 / 2.0)     # 2 cycles per ns
        self.assertEqual(w["since_start"]["max_ns"], 9.0)
        self.assertIsNone(rb.delay_window(None, snap0))

    def test_busy_share(self):
        a = {"lcores": [{"busy_cycles": 10, "idle_cycles": 90}]}
        b = {"lcores": [{"busy_cycles": 40, "idle_cycles": 160}]}
        self.assertAlmostEqual(rb.busy_share(b, a), 0.3)
        self.assertAlmostEqual(rb.busy_share({"lcores": {"0": b["lcores"][0]}}, None), 0.2)
        self.assertIsNone(rb.busy_share(a, a))

    def test_cpu_delta(self):
        t = rb.CLK_TCK
        d = rb.cpu_delta({"ticks": 0, "ns": 0}, {"ticks": t, "ns": 500_000_000}, 2.0)
        self.assertEqual((d["cpu_s"], d["run_s"], d["cores"]), (1.0, 0.5, 0.25))
        self.assertIsNone(rb.cpu_delta(None, d, 1.0))
        me = rb.cpu_usage(os.getpid())
        self.assertGreaterEqual(me["ticks"], 0)
        self.assertIn(os.getpid(), rb.descendants(os.getpid()))


def fake_run(relay, p50, p99, delay=None, busy=None):
    case = {"udprtt": udprtt_doc(rtt_us=dict(RTT, p50=p50, p99=p99, p999=p99)),
            "cpu": {"cpu_s": 0.5, "run_s": 0.5, "wall_s": 1.0, "cores": 0.5}}
    if delay:
        case["delay"] = {"count": 6, "p50_ns": delay, "p90_ns": delay, "p99_ns": delay,
                         "p999_ns": delay, "since_start": {"max_ns": 9e3, "jitter_ns": 5.0}}
        case["busy_share"] = busy
    return {"relay": relay, "ok": True, "cases": {"pingpong": case, "rate": case}}


class TestSummary(unittest.TestCase):
    def test_medians_ratios_table(self):
        runs = [fake_run("dpfwd", 40, 100, 800, 0.1), fake_run("udprelay", 80, 300),
                fake_run("dpfwd", 60, 120, 1000, 0.3), fake_run("udprelay", 100, 500),
                {"relay": "udprelay", "ok": False, "error": "x"}]
        s = rb.summarize_relay(runs)
        self.assertEqual(s["dpfwd"]["pingpong"]["p50_us"], 50)
        self.assertEqual(s["dpfwd"]["pingpong"]["p99_us_runs"], [100, 120])
        self.assertEqual(s["dpfwd"]["rate"]["delay_p99_ns"], 900)
        self.assertAlmostEqual(s["dpfwd"]["rate"]["busy_pct"], 20.0)
        self.assertEqual(s["udprelay"]["pingpong"]["runs"], 2)
        self.assertNotIn("busy_pct", s["udprelay"]["pingpong"])
        self.assertAlmostEqual(s["udprelay"]["pingpong"]["cpu_us_per_req"], 0.5e6 / 3)
        r = rb.ratios(s, ["dpfwd", "udprelay"])
        self.assertAlmostEqual(r["udprelay / dpfwd pingpong"]["p50"], 90 / 50)
        self.assertAlmostEqual(r["udprelay / dpfwd rate"]["p99"], 400 / 110)
        text = "\n".join(rb.table_text(s, ["dpfwd", "udprelay", "socat"]))
        self.assertIn("case pingpong", text)
        self.assertIn("socat", text)
        self.assertIn("(no successful run)", text)
        json.dumps(s)                                      # JSON-clean


class TestNodeTable(unittest.TestCase):
    def test_cycles_per_node_and_per_rx_packet(self):
        nodes = {
            "relay": {"port_rx": {"pkts": 4000, "cycles_per_pkt": "40.0"},
                      "relay4": {"pkts": 4000, "cycles_per_pkt": "100.0"},
                      "ctl_inject": {"pkts": 3, "cycles_per_pkt": "2000.0"}},
            "fwd": {"port_rx": {"pkts": 4000, "cycles_per_pkt": "30.0"},
                    "port_tx_1": {"pkts": 2000, "cycles_per_pkt": "40.0"},
                    "port_tx_2": {"pkts": 2000, "cycles_per_pkt": "60.0"},
                    "relay4": {"pkts": 0, "cycles_per_pkt": "null"}}}
        t = rb.node_table(nodes).splitlines()
        self.assertEqual(t[0].split(), ["cycles/packet", "relay", "fwd"])
        rows = {line.split()[0]: line.split()[1:] for line in t[1:]}
        self.assertNotIn("ctl_inject", rows)                # too few packets
        self.assertEqual(rows["relay4"], ["100.0", "-"])
        self.assertEqual(rows["port_tx_1"], ["-", "40.0"])
        self.assertEqual(t[-1].split()[-2:], ["140.0", "80.0"])   # 30 + 40/2 + 60/2


class TestCommandLine(unittest.TestCase):
    def parse(self, *argv):
        ap = argparse.ArgumentParser()
        sub = ap.add_subparsers(dest="cmd", required=True)
        rb.add_parsers(sub, dpbench)
        args = ap.parse_args(list(argv))
        rb.check_args(ap, args)
        return args

    def test_defaults(self):
        a = self.parse("relay")
        self.assertEqual((a.reps, a.count, a.size, a.inflight), (3, 5000, 64, 32))
        self.assertEqual(a.relays.split(","), ["dpfwd", "dpfwd/drain=1", "udprelay", "socat"])
        self.assertIs(a.func, rb.cmd_relay)
        p = self.parse("relay-pps", "--runs", "2")
        self.assertEqual((p.runs, p.relay_config), (2, rb.RELAY_PPS_CONFIG))
        self.assertIs(p.func, rb.cmd_relay_pps)

    def test_range_errors_exit_2(self):
        for argv in (["--size", "8"], ["--reps", "0"], ["--rate", "0"], ["--inflight", "0"]):
            with self.assertRaises(SystemExit) as cm:
                with open(os.devnull, "w") as devnull:
                    old, sys.stderr = sys.stderr, devnull
                    try:
                        self.parse("relay", *argv)
                    finally:
                        sys.stderr = old
            self.assertEqual(cm.exception.code, 2, argv)

    def test_through_dpbench_main(self):
        with self.assertRaises(SystemExit) as cm:
            with open(os.devnull, "w") as devnull:
                old, sys.stderr = sys.stderr, devnull
                try:
                    dpbench.main(["relay", "--count", "0"])
                finally:
                    sys.stderr = old
        self.assertEqual(cm.exception.code, 2)

    def test_relay_names(self):
        self.assertIs(rb.relay_class("udprelay"), rb.UdpRelay)
        c = rb.relay_class("dpfwd/drain=5")
        self.assertTrue(issubclass(c, rb.DpfwdRelay))
        self.assertEqual((c.name, c.sets), ("dpfwd/drain=5", ["dpfwd.tx_drain_us=5"]))
        self.assertEqual(rb.DpfwdRelay.sets, [])
        for bad in ("dpfwd/drain=0", "dpfwd/drain=x", "nginx"):
            self.assertIsNone(rb.relay_class(bad), bad)

    def test_dpfwd_config_for_the_namespaces(self):
        class R:
            tag, rc, rs = "rb1", "rb1c", "rb1s"
        text = rb.dpfwd_relay_config(R(), True)
        self.assertIn("[relay0]\nlisten = 198.18.10.1:5000\nbackend = 198.18.20.2:6000\n"
                      "source = 198.18.20.1\n", text)
        self.assertIn("dev = net_af_packet0,iface=rb1c,framecnt=4096", text)
        self.assertIn("delay_stats = on", text)

    def test_shipped_relay_pps_config(self):
        text = (REPO / rb.RELAY_PPS_CONFIG).read_text()
        self.assertIn("relay-2000sessions-64b.pcap,infinite_rx=1", text)
        self.assertIn("listen = 198.18.0.1:5000", text)
        self.assertTrue((REPO / rb.FWD_PPS_CONFIG).is_file())

    def test_twin_pcaps_of_each_shipped_relay_config(self):
        for cfg, one, hosts, full in (
                (rb.RELAY_PPS_CONFIG, "pcap/relay-1session-64b.pcap",
                 "pcap/relay-2000sessions-126hosts-64b.pcap",
                 "pcap/relay-10000sessions-126hosts-64b.pcap"),
                ("configs/bench/relay6-2000sessions-78b.ini", "pcap/relay6-1session-78b.pcap",
                 "pcap/relay6-2000sessions-126hosts-78b.pcap",
                 "pcap/relay6-10000sessions-126hosts-78b.pcap")):
            pcap = rb.config_pcap(REPO / cfg)
            self.assertEqual(rb.one_session_pcap(pcap), one)
            self.assertEqual(rb.hosts_pcap(pcap), hosts)
            self.assertEqual(rb.full_pcap(pcap), full)
            build = os.environ.get("DPFWD_BUILD")
            for want in (one, hosts, full) if build else ():
                # pcap/meson.build makes them by default, as the rig's own
                self.assertTrue((Path(build) / want).is_file(), want)
        self.assertIsNone(rb.one_session_pcap(rb.config_pcap(REPO / rb.FWD_PPS_CONFIG)))
        self.assertIsNone(rb.hosts_pcap(rb.config_pcap(REPO / rb.FWD_PPS_CONFIG)))
        self.assertIsNone(rb.full_pcap(rb.config_pcap(REPO / rb.FWD_PPS_CONFIG)))

    def test_forwarding_twin_of_the_full_table(self):
        # fwd-full: forwarding over as many packets as the full relay replays
        for cfg, want in ((rb.FWD_PPS_CONFIG, "pcap/fwd-10000flows-126hosts-64b.pcap"),
                          ("configs/bench/fwd6-2000flows-78b.ini",
                           "pcap/fwd6-10000flows-126hosts-78b.pcap")):
            self.assertEqual(rb.fwd_full_pcap(rb.config_pcap(REPO / cfg)), want)
            build = os.environ.get("DPFWD_BUILD")
            if build:
                self.assertTrue((Path(build) / want).is_file(), want)
        self.assertIsNone(rb.fwd_full_pcap(rb.config_pcap(REPO / rb.RELAY_PPS_CONFIG)))
        self.assertEqual(rb.PCAP_COLUMNS["fwd-full"], rb.PCAP_COLUMNS["full"])

    def test_one_session_column_replays_its_own_pcap(self):
        # with one worker dpfwd replays the config's pcap unless told otherwise:
        # relay1 must be told (pcap_set), the others keep the config's
        prog = dpbench.make_dpfwd("on", "on")
        for pcap_set in (False, True):
            ctx = dpbench.Ctx(build=Path("/b"), pcap=Path("/b/pcap/one.pcap"),
                              workdir=Path("/b/w"), mem=[], dpfwd_config=Path("/c.ini"),
                              pcap_set=pcap_set)
            a = prog.argv(ctx, "p")
            sets = [a[i + 1] for i, x in enumerate(a) if x == "--set"]
            want = "port0.dev=net_pcap0,rx_pcap=/b/pcap/one.pcap,infinite_rx=1"
            self.assertEqual(want in sets, pcap_set, sets)

    def test_full_table_column_gets_a_pool_for_its_pcap(self):
        # net_pcap keeps every packet of its file in an mbuf: 10000 need a bigger pool
        ctx = dpbench.Ctx(build=Path("/b"), pcap=Path("/b/pcap/full.pcap"), workdir=Path("/b/w"),
                          mem=[], dpfwd_config=Path("/c.ini"), pcap_set=True,
                          sets=rb.PCAP_COLUMNS["full"])
        a = dpbench.make_dpfwd("on", "on").argv(ctx, "p")
        sets = [a[i + 1] for i, x in enumerate(a) if x == "--set"]
        self.assertIn("mempool.size=32767", sets)
        self.assertIn("port0.dev=net_pcap0,rx_pcap=/b/pcap/full.pcap,infinite_rx=1", sets)
        self.assertEqual(rb.PCAP_COLUMNS["hosts"], ())


if __name__ == "__main__":
    unittest.main(verbosity=2)
