#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpplot: every plot from synthetic data (PNG and SVG written, readable),
the latency CDF and its percentiles, and dpbench's metric derivation from
samples (no DPDK needed)."""

import math
import random
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "apps" / "dpbench"))
import dpbench  # noqa: E402
import dpplot   # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class PlotTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def assertPlots(self, paths, base: str):
        self.assertEqual(sorted(Path(p).name for p in paths), [base + ".png", base + ".svg"])
        for p in paths:
            data = Path(p).read_bytes()
            if p.endswith(".png"):
                self.assertTrue(data.startswith(PNG_MAGIC), p)
                self.assertGreater(len(data), 2000, p)
            else:
                self.assertIn(b"<svg", data[:2000], p)


class TestLatency(PlotTest):
    def test_percentiles_nearest_rank(self):
        s = dpplot.latency_summary([float(v) for v in range(1000, 0, -1)])
        self.assertEqual((s["n"], s["min"], s["p50"], s["p90"], s["p99"], s["p99.9"], s["max"]),
                         (1000, 1.0, 500.0, 900.0, 990.0, 999.0, 1000.0))
        self.assertAlmostEqual(s["mean"], 500.5)
        self.assertAlmostEqual(s["jitter"], 1.0)     # |difference| of consecutive packets
        self.assertEqual(dpplot.latency_summary([]), {"n": 0})
        self.assertEqual(dpplot.percentile([7.0], 99.9), 7.0)

    def test_latency_cdf_from_synthetic_data(self):
        rnd = random.Random(42)
        lat = {"dpfwd relay": [rnd.lognormvariate(math.log(8.0), 0.3) for _ in range(20000)],
               "socat relay": [rnd.lognormvariate(math.log(110.0), 0.5) for _ in range(5000)],
               "empty": []}
        paths = dpplot.latency_cdf(lat, self.dir / "lat-cdf", unit="us")
        self.assertPlots(paths, "lat-cdf")
        svg = (self.dir / "lat-cdf.svg").read_text()
        self.assertIn("latency (us)", svg)
        self.assertIn("dpfwd relay (n=20000", svg)
        s = dpplot.latency_summary(lat["dpfwd relay"])
        self.assertTrue(7.0 < s["p50"] < 9.0, s)
        self.assertTrue(s["p50"] < s["p99"] < s["p99.9"] <= s["max"])

    def test_latency_cdf_from_a_histogram(self):
        # 1000 packets: 900 at 10 us, 90 at 20, 9 at 50, 1 at 400
        hist = {10.0: 900, 20.0: 90, 50.0: 9, 400.0: 1, 999.0: 0}
        pairs = dpplot._weighted(hist)
        self.assertEqual(pairs, [(10.0, 900), (20.0, 90), (50.0, 9), (400.0, 1)])
        self.assertEqual([dpplot._weighted_percentile(pairs, 1000, p) for p in (50, 90, 99, 99.9)],
                         [10.0, 10.0, 20.0, 50.0])
        paths = dpplot.latency_cdf({"hist": hist, "list": [5.0, 6.0, 7.0]}, self.dir / "hist")
        self.assertPlots(paths, "hist")
        self.assertIn("hist (n=1000, p50 10, p99 20)", (self.dir / "hist.svg").read_text())

    def test_latency_cdf_linear_axis_for_narrow_data(self):
        paths = dpplot.latency_cdf({"a": [1.0, 1.5, 2.0, 2.5]}, self.dir / "narrow")
        self.assertPlots(paths, "narrow")


class TestBenchPlots(PlotTest):
    def test_timeline_distribution_and_node_stack(self):
        runs = [{"program": p, "repetition": r, "t": [1, 2, 3], "y": [40 + r, 41, 40.5]}
                for r in (1, 2) for p in ("a", "b")]
        self.assertPlots(dpplot.timeline(runs, self.dir / "tl"), "tl")
        self.assertPlots(dpplot.distribution({"a": [40, 41, 42], "b": [43], "c": []},
                                             self.dir / "dist", ylabel="Mpps"), "dist")
        self.assertPlots(dpplot.node_stack({"a": {"port_rx": 16.0, "ip4_fwd": 18.0},
                                            "b": {"port_rx": 15.0, "ip4_fwd": 12.0, "x": None}},
                                           self.dir / "nodes"), "nodes")


def fake_samples(n: int, pps: float, cyc_per_pkt: float, node_cycles: dict):
    """dpbench samples every second of a steady run."""
    out = []
    for k in range(n + 1):
        pk = int(pps * k)
        out.append({"t": 100.0 + k, "tx": pk, "rx": pk, "imissed": 0, "rx_nombuf": 0,
                    "tx_back": 0, "oerrors": 0,
                    "lcores": {"busy_cycles": int(cyc_per_pkt * pk), "idle_cycles": 0,
                               "rx_pkts": pk, "tx_pkts": pk, "workers": 1},
                    "nodes": {name: {"calls": pk // 32, "pkts": int(pk * share),
                                     "timed_cycles": int(c * pk * share // 8),
                                     "timed_pkts": int(pk * share // 8)}
                              for name, (c, share) in node_cycles.items()}})
    return out


class TestDerive(unittest.TestCase):
    NODES = {"port_rx": (16.0, 1.0), "ip4_fwd": (18.0, 1.0), "port_tx_1": (14.0, 0.5),
             "port_tx_2": (14.0, 0.5), "drop": (0.0, 0.0)}

    def test_per_second_rates_medians_and_nodes(self):
        res = {"samples": fake_samples(4, 40e6, 67.5, self.NODES)}
        dpbench.finish_run(res)
        ps = res["per_second"]
        self.assertEqual(len(ps["mpps"]), 4)
        for v in ps["mpps"]:
            self.assertAlmostEqual(v, 40.0)
        for v in ps["cycles_per_pkt"]:
            self.assertAlmostEqual(v, 67.5, places=3)
        self.assertAlmostEqual(res["median"]["mpps"], 40.0)
        nodes = res["nodes"]
        self.assertNotIn("drop", nodes)           # nothing went through it
        self.assertAlmostEqual(nodes["port_rx"]["cycles_per_pkt"], 16.0, places=3)
        self.assertAlmostEqual(nodes["port_tx_1"]["cycles_per_pkt"], 14.0, places=3)
        self.assertAlmostEqual(nodes["port_tx_1"]["cycles_per_rx_pkt"], 7.0, places=3)
        total = sum(x["cycles_per_rx_pkt"] for x in nodes.values())
        self.assertAlmostEqual(total, 16 + 18 + 7 + 7, places=2)

    def test_instructions_per_packet_where_the_cpu_counts_them(self):
        s = fake_samples(3, 10e6, 50.0, {})
        res = dpbench.finish_run({"samples": [dict(x) for x in s]})
        self.assertIsNone(res["median"]["insn_per_pkt"])            # no PMU: no number
        for x in s:
            x["lcores"] = dict(x["lcores"], instructions=int(123.0 * x["lcores"]["rx_pkts"]))
        res = dpbench.finish_run({"samples": s})
        self.assertAlmostEqual(res["median"]["insn_per_pkt"], 123.0, places=3)

    def test_anchor_samples_have_no_cycles(self):
        s = [{k: v for k, v in x.items() if k not in ("lcores", "nodes")}
             for x in fake_samples(3, 60e6, 0, {})]
        res = dpbench.finish_run({"samples": s})
        self.assertIsNone(res["median"]["cycles_per_pkt"])
        self.assertEqual(res["nodes"], {})
        self.assertAlmostEqual(res["median"]["mpps"], 60.0)

    def test_telemetry_reducers(self):
        lc = dpbench.reduce_lcores({"0": {"lcore": 1, "busy_cycles": 10, "rx_pkts": 2,
                                          "nodes": "{}", "cycles_per_pkt": "5.000"},
                                    "1": {"busy_cycles": 30, "rx_pkts": 4, "idle_cycles": 7}})
        self.assertEqual(lc, {"busy_cycles": 40, "idle_cycles": 7, "rx_pkts": 6, "tx_pkts": 0,
                              "workers": 2, "instructions": None})
        lc = dpbench.reduce_lcores({"0": {"rx_pkts": 2, "instructions": 700},
                                    "1": {"rx_pkts": 4, "instructions": 500}})
        self.assertEqual(lc["instructions"], 1200)
        lc = dpbench.reduce_lcores({"0": {"rx_pkts": 2, "instructions": 700},
                                    "1": {"rx_pkts": 4, "instructions": "null"}})
        self.assertIsNone(lc["instructions"])
        self.assertIsNone(dpbench.reduce_lcores(None))
        nd = dpbench.reduce_nodes({"ip4_fwd": {"calls": 1, "pkts": 32, "timed_cycles": 500,
                                               "timed_pkts": 32, "cycles_per_pkt": "15.6"}})
        self.assertEqual(nd, {"ip4_fwd": {"calls": 1, "pkts": 32, "timed_cycles": 500,
                                          "timed_pkts": 32}})

    def test_plots_from_results(self):
        runs = []
        for r in (1, 2):
            for name, pps in (("a", 40e6), ("b", 42e6)):
                res = dpbench.finish_run({"samples": fake_samples(3, pps + r * 1e5, 60.0,
                                                                  self.NODES)})
                res.update({"program": name, "repetition": r, "ok": True})
                runs.append(res)
        progs = [dpbench.Program(name=n, group="dpfwd", argv=None, check=None) for n in "ab"]
        results = {"bench": {"name": "synthetic"}, "programs": [{"name": "a"}, {"name": "b"}],
                   "metrics": dpbench.METRICS, "runs": runs,
                   "nodes": dpbench.summarize_nodes(progs, runs)}
        summ = dpbench.summarize_runs(progs, runs, 95.0)
        self.assertEqual(summ["mpps"]["baseline"], "a")
        self.assertTrue(summ["mpps"]["programs"]["b"]["vs_baseline"]["significant"])
        text = dpbench.tables_text(progs, runs, 95.0)
        self.assertIn("Difference at 95.0% confidence", text)
        self.assertIn("sum/rx pkt", text)
        with tempfile.TemporaryDirectory() as d:
            paths = dpplot.plots_from_results(results, d)
            names = sorted(Path(p).name for p in paths)
        self.assertEqual(names, sorted(f"{b}.{e}" for b in ("timeline-mpps", "dist-mpps",
                                                            "dist-cycles-per-pkt", "nodes-cycles")
                                       for e in ("png", "svg")))


PROM_TEXT = """# HELP dpfwd_port_tx_packets_total Packets sent.
# TYPE dpfwd_port_tx_packets_total counter
dpfwd_port_tx_packets_total{port="0"} 7
dpfwd_port_tx_packets_total{port="1"} 1000
dpfwd_port_tx_packets_total{port="2"} 2000
dpfwd_port_tx_bytes_total{port="0"} 420
dpfwd_port_tx_bytes_total{port="1"} 60000
dpfwd_port_tx_bytes_total{port="2"} 120000
dpfwd_port_rx_packets_total{port="0"} 3100
dpfwd_port_rx_missed_total{port="0"} 4
dpfwd_port_rx_nombuf_total{port="0"} 5
dpfwd_port_tx_errors_total{port="1"} 1
dpfwd_port_tx_errors_total{port="2"} 2
dpfwd_lcore_busy_cycles_total{lcore="1"} 300000
dpfwd_lcore_busy_cycles_total{lcore="2"} 100000
dpfwd_lcore_idle_cycles_total{lcore="1"} 9
dpfwd_lcore_rx_packets_total{lcore="1"} 2000
dpfwd_lcore_rx_packets_total{lcore="2"} 1100
dpfwd_lcore_tx_packets_total{lcore="1"} 2000
dpfwd_lcore_cycles_per_packet{lcore="1"} 150.5
dpfwd_node_calls_total{lcore="1",node="ip4_fwd"} 10
dpfwd_node_calls_total{lcore="2",node="ip4_fwd"} 5
dpfwd_node_packets_total{lcore="1",node="ip4_fwd"} 320
dpfwd_node_packets_total{lcore="2",node="ip4_fwd"} 160
dpfwd_node_cycles_total{lcore="1",node="ip4_fwd"} 3200
dpfwd_node_timed_packets_total{lcore="1",node="ip4_fwd"} 32
dpfwd_run_info{mode="forward",config="/tmp/a \\"b\\".ini",mempool_ops="stack"} 1
"""


class TestPrometheus(unittest.TestCase):
    def test_parse(self):
        m = dpbench.parse_prometheus(PROM_TEXT)
        self.assertEqual(m["dpfwd_port_tx_packets_total"][1], ({"port": "1"}, 1000))
        self.assertEqual(m["dpfwd_lcore_cycles_per_packet"][0][1], 150.5)
        self.assertEqual(m["dpfwd_run_info"][0][0],
                         {"mode": "forward", "config": '/tmp/a "b".ini', "mempool_ops": "stack"})
        with self.assertRaises(ValueError):
            dpbench.parse_prometheus("dpfwd_x{port=\"1\"}\n")

    def test_sample_from_a_scrape(self):
        import http.server
        import threading

        class H(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = PROM_TEXT.encode()
                self.send_response(200 if self.path == "/metrics" else 404)
                self.send_header("Content-Type", "text/plain; version=0.0.4")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a):
                pass

        srv = http.server.HTTPServer(("127.0.0.1", 0), H)
        th = threading.Thread(target=srv.serve_forever, daemon=True)
        th.start()
        try:
            url = f"http://127.0.0.1:{srv.server_address[1]}/metrics"
            s = dpbench.sample_metrics(url, 0, (1, 2), dpbench.DPFWD_PER_SECOND)
            with self.assertRaises(dpbench.RunError):          # 404
                dpbench.sample_metrics(url.replace("/metrics", "/x"), 0, (1,))
            with self.assertRaises(dpbench.RunError):          # no port 9 there
                dpbench.sample_metrics(url, 9, (1,))
        finally:
            srv.shutdown()
            srv.server_close()
        self.assertEqual((s["tx"], s["tx_bytes"], s["rx"], s["imissed"], s["rx_nombuf"],
                          s["tx_back"], s["oerrors"]), (3000, 180000, 3100, 4, 5, 7, 3))
        self.assertEqual(s["lcores"], {"busy_cycles": 400000, "idle_cycles": 9, "rx_pkts": 3100,
                                       "tx_pkts": 2000, "workers": 2, "instructions": None})
        self.assertEqual(s["nodes"], {"ip4_fwd": {"calls": 15, "pkts": 480,
                                                  "timed_cycles": 3200, "timed_pkts": 32}})


class TestMemifAndRfc2544Plots(PlotTest):
    def test_dpgen_metrics_and_latency_histograms(self):
        hist = [[100.0, 100.0, 5], [1000.0, 1007.0, 3], [20000.0, 20150.0, 2]]
        runs = []
        for r, scale in ((1, 1), (2, 2)):
            res = {"samples": fake_samples(3, 1e6, 100.0, {}), "program": "v", "ok": True,
                   "repetition": r,
                   "gen": {"measured": {"seq": {"loss_pct": 0.5 * scale},
                                        "latency_ns": {"p50": 1000.0 * scale, "p99": 20000.0},
                                        "latency_hist_ns": [[lo, hi, c * scale]
                                                            for lo, hi, c in hist]}}}
            dpbench.finish_run(res)
            runs.append(res)
        self.assertEqual([r["median"]["loss_pct"] for r in runs], [0.5, 1.0])
        self.assertEqual([r["median"]["lat_p50_us"] for r in runs], [1.0, 2.0])
        self.assertEqual(runs[0]["median"]["lat_p99_us"], 20.0)
        lat = dpplot.latency_hists({"runs": runs + [{"program": "v", "ok": False,
                                                     "gen": {"measured": {
                                                         "latency_hist_ns": hist}}}]})
        # the failed run is left out; counts add up per bucket top, in us
        self.assertEqual(lat, {"v": {0.1: 15, 1.007: 9, 20.15: 6}})
        paths = dpplot.latency_cdf(lat, self.dir / "cdf")
        self.assertPlots(paths, "cdf")
        self.assertIn("v (n=30", (self.dir / "cdf.svg").read_text())

    def test_offered_load_plot(self):
        curve = [{"offered_pps": r, "tx_pps": min(r, 9e6), "rx_pps": min(r, 6e6),
                  "loss_pct": max(0.0, 100 * (min(r, 9e6) - 6e6) / min(r, 9e6)),
                  "passed": r <= 6e6} for r in (2e6, 4e6, 6e6, 8e6, 10e6)]
        paths = dpplot.offered_load({"baseline": curve, "cache-0": curve[:3]},
                                    self.dir / "offered", {"baseline": 5.9e6})
        self.assertPlots(paths, "offered")
        svg = (self.dir / "offered.svg").read_text()
        for text in ("offered load (Mpps)", "throughput (Mpps)", "loss %",
                     "zero loss 5.9 Mpps", "baseline: received", "cache-0: sent by dpgen"):
            self.assertIn(text, svg)


if __name__ == "__main__":
    try:
        dpplot.pyplot()
    except dpplot.PlotUnavailable as e:
        print(f"SKIP: {e}")
        sys.exit(77)
    unittest.main(verbosity=2)
