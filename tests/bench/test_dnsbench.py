#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/dnsbench: `dpbench.py dns` (apps/dpbench/dnsbench.py), unit tests.

No dpfwd, no process: the parser of dnsperf 2.10's statistics (recorded on Debian 12), the
CPU time of a process tree from /proc/PID/stat lines, queries per CPU-second, the table
and the ratios of medians.
"""
import os
import sys
import unittest
from pathlib import Path

REPO = Path(os.environ.get("DPFWD_SRC", Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(REPO / "apps" / "dpbench"))
import dnsbench as db  # noqa: E402

DNSPERF_OUT = """DNS Performance Testing Tool
Version 2.10.0

[Status] Command line: dnsperf -s 127.0.0.1 -p 11853 -d q -l 1 -c 4 -T 1 -t 2
[Status] Sending queries (to 127.0.0.1:11853)
[Status] Testing complete (time limit)

Statistics:

  Queries sent:         42368
  Queries completed:    42368 (100.00%)
  Queries lost:         0 (0.00%)

  Response codes:       NOERROR 42368 (100.00%)
  Average packet size:  request 34, response 84
  Run time (s):         1.002381
  Queries per second:   42267.361412

  Average Latency (s):  0.001663 (min 0.000019, max 0.009731)
"""


def stat(pid, ppid, utime, stime, comm="nsd"):
    """A /proc/PID/stat line: fields 4 (ppid), 14 (utime) and 15 (stime) set."""
    rest = ["S", str(ppid)] + ["0"] * 9 + [str(utime), str(stime)] + ["0"] * 5
    return f"{pid} ({comm}) " + " ".join(rest)


class TestParsers(unittest.TestCase):
    def test_dnsperf_statistics(self):
        self.assertEqual(db.dnsperf_result(DNSPERF_OUT),
                         {"sent": 42368, "completed": 42368, "lost": 0,
                          "qps": 42267.361412})

    def test_dnsperf_nothing(self):
        self.assertEqual(db.dnsperf_result("dnsperf: error"),
                         {"sent": None, "completed": None, "lost": None, "qps": None})

    def test_tree_ticks_counts_descendants_only(self):
        stats = {10: stat(10, 1, 5, 1), 11: stat(11, 10, 100, 20, "nsd: server 1"),
                 12: stat(12, 10, 2, 2, "nsd: xfrd"), 13: stat(13, 11, 7, 0),
                 20: stat(20, 1, 1000, 1000, "other (a) b")}
        self.assertEqual(db.tree_ticks(10, stats), 5 + 1 + 120 + 4 + 7)
        self.assertEqual(db.tree_ticks(11, stats), 127)
        self.assertEqual(db.tree_ticks(99, stats), 0)

    def test_queries_per_cpu_second(self):
        self.assertAlmostEqual(db.per_cpu_s(1000.0, 5.0, 2.5), 2000.0)
        self.assertIsNone(db.per_cpu_s(None, 5.0, 2.5))
        self.assertIsNone(db.per_cpu_s(1000.0, 5.0, 0.0))


def samples(kernel, preload):
    """Results of 3 runs: row -> metric -> values, from per-row (qps, q/CPU-s) triples."""
    res = {}
    for row, (qps, per, server) in (("kernel", kernel), ("preload", preload)):
        res[row] = {k: [1.0] * 3 for k in db.METRICS}
        res[row]["qps"], res[row]["qps_per_cpu_s"] = qps, per
        res[row]["qps_per_server_cpu_s"] = server
    return res


class TestTableAndRatios(unittest.TestCase):
    def test_ratios_of_medians(self):
        res = samples(([100.0, 300.0, 200.0], [50.0, 40.0, 60.0], [90.0, 100.0, 110.0]),
                      ([900.0, 1000.0, 1100.0], [100.0, 150.0, 200.0], [10.0, 50.0, 20.0]))
        got = {r["metric"]: r["ratio"] for r in db.ratios(res)}
        self.assertAlmostEqual(got["qps"], 1000.0 / 200.0)
        self.assertAlmostEqual(got["qps_per_cpu_s"], 150.0 / 50.0)
        self.assertAlmostEqual(got["qps_per_server_cpu_s"], 20.0 / 100.0)

    def test_no_ratio_without_a_row(self):
        res = samples(([100.0] * 3, [1.0] * 3, [1.0] * 3), ([None] * 3, [None] * 3, [None] * 3))
        self.assertTrue(all(r["ratio"] is None for r in db.ratios(res)))

    def test_table_medians_and_spread(self):
        res = samples(([100.0, 300.0, 200.0], [50.0, 40.0, 60.0], [90.0, 100.0, 110.0]),
                      ([900.0, 1000.0, 1100.0], [100.0, 150.0, 200.0], [10.0, 50.0, 20.0]))
        lines = db.table(res)
        self.assertEqual(lines[1].split()[:3], ["kernel", "200", "[100..300]"])
        self.assertEqual(lines[2].split()[:3], ["preload", "1000", "[900..1100]"])
        self.assertIn("dpfwd worker", lines[3])


if __name__ == "__main__":
    unittest.main(verbosity=2)
