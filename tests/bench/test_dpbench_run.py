#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpbench run, end to end, on the built dpfwd (DPFWD_BUILD, default build/):

- tests/bench/tiny.ini (2 variants x 2 runs x 2 s): exit 0; results.json has
  every run in round-robin order, samples every second, per-run medians
  that are the medians of those samples, the summary's sets are those
  medians, per-node cycles; the tables are printed; the plots exist.
- a variant whose dpfwd cannot start: dpbench names the run and the reason,
  keeps the good run in results.json and exits 1.
- a dpfwd killed while it is measured: the same.
- fwd-anchor --workers 2 (the 2-worker run): every program gets two
  forwarding lcores on two CPUs and port 0 two RX queues; one short dpfwd run
  forwards on both workers, each its own RX queue, nothing lost.

Exit 77 (skipped) when dpfwd or its pcap is not built.  About 35 s."""

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("DPFWD_BUILD") or REPO / "build").resolve()
DPFWD = BUILD / "apps" / "dpfwd" / "dpfwd"
PCAP = BUILD / "pcap" / "fwd-2000flows-64b.pcap"
DPBENCH = REPO / "apps" / "dpbench" / "dpbench.py"
TINY = REPO / "tests" / "bench" / "tiny.ini"
CONFIG = REPO / "configs" / "bench" / "fwd-2000flows-64b.ini"
VITALS_HEADER = "    N           Min           Max        Median           Avg        Stddev"


def dpbench(*args, **kw):
    return subprocess.run([sys.executable, str(DPBENCH), "run", *map(str, args),
                           "--build", str(BUILD)], capture_output=True, text=True,
                          timeout=kw.pop("timeout", 120), **kw)


def bench_file(d: Path, variants: str, reps: int, duration: int = 2) -> Path:
    p = d / "b.ini"
    p.write_text(f"[bench]\nconfig = {CONFIG}\nduration = {duration}\nwarmup = 0.5\ncooldown = 0\n"
                 f"repetitions = {reps}\n" + variants)
    return p


class TestRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = Path(cls.tmp.name) / "out"
        t0 = time.monotonic()
        cls.r = dpbench(TINY, "--out", cls.out)
        cls.seconds = time.monotonic() - t0
        cls.res = json.loads((cls.out / "results.json").read_text())

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_exit_0_and_complete(self):
        self.assertEqual(self.r.returncode, 0, self.r.stdout + self.r.stderr)
        self.assertTrue(self.res["complete"])
        self.assertEqual(self.res["failed"], [])
        self.assertLess(self.seconds, 45)

    def test_runs_are_round_robin(self):
        runs = self.res["runs"]
        self.assertEqual([(r["program"], r["repetition"]) for r in runs],
                         [("baseline", 1), ("cache-0", 1), ("baseline", 2), ("cache-0", 2)])
        self.assertEqual([r["index"] for r in runs], [1, 2, 3, 4])
        self.assertTrue(all(r["ok"] for r in runs))
        self.assertEqual([p["name"] for p in self.res["programs"]], ["baseline", "cache-0"])
        cache0 = [r for r in runs if r["program"] == "cache-0"][0]
        self.assertIn("mempool.cache=0", cache0["argv"])
        self.assertIn("--file-prefix", cache0["argv"])

    def test_samples_every_second_and_medians_match(self):
        for r in self.res["runs"]:
            s = r["samples"]
            self.assertEqual(len(s), 3)                      # start + 2 x 1 s
            mpps = [(b["tx"] - a["tx"]) / (b["t"] - a["t"]) / 1e6 for a, b in zip(s, s[1:])]
            for x, y in zip(mpps, r["per_second"]["mpps"]):
                self.assertAlmostEqual(x, y, places=9)
            for a, b in zip(s, s[1:]):
                self.assertAlmostEqual(b["t"] - a["t"], 1.0, delta=0.25)
            self.assertAlmostEqual(r["median"]["mpps"], statistics.median(mpps), places=9)
            cyc = r["per_second"]["cycles_per_pkt"]
            self.assertEqual(len(cyc), 2)
            self.assertAlmostEqual(r["median"]["cycles_per_pkt"], statistics.median(cyc), places=9)
            self.assertGreater(r["median"]["mpps"], 0.1)
            self.assertTrue(10 < r["median"]["cycles_per_pkt"] < 100000)
            self.assertIn("lcores", s[0])
            self.assertIn("port_rx", s[0]["nodes"])

    def test_summary_sets_are_the_run_medians(self):
        for m in ("mpps", "cycles_per_pkt"):
            summ = self.res["summary"][m]
            self.assertEqual(summ["baseline"], "baseline")
            for prog in ("baseline", "cache-0"):
                want = [r["median"][m] for r in self.res["runs"] if r["program"] == prog]
                got = summ["programs"][prog]
                self.assertEqual(got["values"], want)
                self.assertEqual(got["n"], 2)
                self.assertEqual(got["min"], min(want))
            t = summ["programs"]["cache-0"]["vs_baseline"]
            self.assertEqual(t["df"], 2)
            self.assertEqual(t["t"], 4.303)
            self.assertIsNone(summ["programs"]["baseline"]["vs_baseline"])

    def test_nodes_per_variant(self):
        for prog in ("baseline", "cache-0"):
            nodes = self.res["nodes"][prog]
            # port_rx hands unicast IPv4 bursts straight to ip4_fwd, which puts
            # resolved packets in the TX buffers itself, and the TX bursts it sends
            # count as the port_tx nodes': eth_classify and ip4_output see nothing
            # on this rig (nodes that saw nothing are left out)
            for n in ("port_rx", "ip4_fwd", "port_tx_1", "port_tx_2"):
                self.assertGreater(nodes[n]["cycles_per_pkt"], 0, (prog, n))
                self.assertEqual(nodes[n]["runs"], 2)
            for n in ("eth_classify", "ip4_output"):
                self.assertNotIn(n, nodes, (prog, n))
            per_run = [r["nodes"]["ip4_fwd"]["cycles_per_pkt"] for r in self.res["runs"]
                       if r["program"] == prog]
            self.assertAlmostEqual(nodes["ip4_fwd"]["cycles_per_pkt"], statistics.median(per_run))

    def test_tables_printed_and_saved(self):
        out = self.r.stdout
        self.assertIn("== Mpps forwarded", out)
        self.assertIn("== cycles/packet", out)
        self.assertIn(VITALS_HEADER, out)
        self.assertIn("x baseline: as configured", out)
        self.assertIn("+ cache-0: mempool cache 0", out)
        self.assertTrue("No difference proven at 95.0% confidence" in out
                        or "Difference at 95.0% confidence" in out)
        self.assertIn("cycles/packet by graph node", out)
        self.assertEqual((self.out / "summary.txt").read_text(), self.res["table"])

    def test_plots_exist(self):
        plots = self.res["plots"]
        names = sorted(Path(p).name for p in plots)
        self.assertEqual(names, sorted(f"{b}.{e}" for b in ("timeline-mpps", "dist-mpps",
                                                            "dist-gbps", "dist-cycles-per-pkt",
                                                            "nodes-cycles")
                                       for e in ("png", "svg")))
        for p in plots:
            self.assertTrue(Path(p).is_file(), p)
            self.assertGreater(Path(p).stat().st_size, 1000, p)
            self.assertEqual(Path(p).parent, self.out / "plots")

    def test_logs_and_final_telemetry_kept(self):
        for r in self.res["runs"]:
            self.assertTrue(Path(r["log"]).is_file())
            tj = json.loads(Path(r["telemetry_json"]).read_text())
            self.assertTrue(tj.get("final"), r["telemetry_json"])
            self.assertEqual(r["exit_status"], 0)


class TestFailures(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def test_dpfwd_that_cannot_start_stops_the_bench_and_keeps_the_runs_done(self):
        b = bench_file(self.dir, "[variant ok]\n[variant broken]\nport2.dev = net_nosuchdriver0\n",
                       reps=2)
        r = dpbench(b, "--out", self.dir / "out")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("run 2 of 4 (broken, repetition 1) failed: exited with status 1 during "
                      "start-up", r.stderr)
        self.assertIn("net_nosuchdriver0", r.stdout)          # its log's error lines
        res = json.loads((self.dir / "out" / "results.json").read_text())
        self.assertFalse(res["complete"])
        self.assertEqual([(x["program"], x["ok"]) for x in res["runs"]],
                         [("ok", True), ("broken", False)])
        self.assertEqual(res["failed"][0]["index"], 2)
        self.assertEqual(res["summary"]["mpps"]["programs"]["ok"]["n"], 1)

    def test_dpfwd_killed_while_measured(self):
        b = bench_file(self.dir, "[variant a]\n", reps=2, duration=4)
        p = subprocess.Popen([sys.executable, str(DPBENCH), "run", str(b), "--build", str(BUILD),
                              "--out", str(self.dir / "out"), "--no-plots"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            # the second run's dpfwd: --file-prefix dpbench-<dpbench pid>-2-a
            tag = f"dpbench-{p.pid}-2-".encode()
            pid, deadline = None, time.monotonic() + 60
            while pid is None and time.monotonic() < deadline and p.poll() is None:
                for d in os.listdir("/proc"):
                    if not d.isdigit():
                        continue
                    try:
                        cmd = Path(f"/proc/{d}/cmdline").read_bytes().split(b"\0")
                    except OSError:
                        continue
                    if cmd and cmd[0].endswith(b"/dpfwd") and any(c.startswith(tag) for c in cmd):
                        pid = int(d)
                        break
                time.sleep(0.05)
            self.assertIsNotNone(pid, "second dpfwd run not seen")
            time.sleep(2.5)             # start-up + 0.5 s warmup: now it is being measured
            os.kill(pid, signal.SIGKILL)
            out, err = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                # only after a failed assertion: SIGINT lets dpbench stop its dpfwd by pid
                p.send_signal(signal.SIGINT)
                try:
                    p.communicate(timeout=60)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.communicate()
        self.assertEqual(p.returncode, 1, out + err)
        self.assertIn("run 2 of 2 (a, repetition 2) failed: exited with status -9", err)
        res = json.loads((self.dir / "out" / "results.json").read_text())
        self.assertEqual([x["ok"] for x in res["runs"]], [True, False])
        self.assertEqual(res["failed"][0]["exit_status"], -9)
        self.assertEqual(len(res["runs"][0]["samples"]), 5)


class TestFwdAnchorWorkers(unittest.TestCase):
    def anchor(self, *args, timeout=120):
        return subprocess.run([sys.executable, str(DPBENCH), *map(str, args)],
                              capture_output=True, text=True, timeout=timeout)

    def test_command_lines_of_two_workers(self):
        r = self.anchor("list", "--programs", "--workers", "2", "--build", BUILD,
                        "--pcap", "/x.pcap")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = dict(zip(r.stdout.splitlines()[0::2], r.stdout.splitlines()[1::2]))
        vdev = "net_pcap0,rx_pcap=/x.pcap,rx_pcap=/x.pcap,infinite_rx=1"
        l3 = lines["l3fwd:"].split()
        self.assertEqual(l3[l3.index("-l") + 1], "0,1")          # both lcores forward
        self.assertEqual(l3[l3.index("--config") + 1], "(0,0,0),(0,1,1)")
        self.assertEqual(l3[l3.index("--vdev") + 1], vdev)
        tp = lines["testpmd:"].split()
        self.assertEqual(tp[tp.index("--lcores") + 1], "0@0,1@1,2@0")
        for a in ("--nb-cores=2", "--rxq=2", "--txq=2"):
            self.assertIn(a, tp)
        for name, line in lines.items():
            if not name.startswith("dpfwd/"):
                continue
            a = line.split()
            self.assertEqual(a[a.index("--lcores") + 1], "0@0,1@1,2@0", name)
            self.assertIn(f"port0.dev={vdev}", a, name)
            self.assertIn("lcores.rx=(0,0,1),(0,1,2)", a, name)

    def test_dpfwd_forwards_on_both_workers(self):
        if (os.cpu_count() or 1) < 2:
            self.skipTest("one CPU: --workers 2 is refused")
        with tempfile.TemporaryDirectory() as d:
            j = Path(d) / "r.json"
            r = self.anchor("fwd-anchor", "--build", BUILD, "--pcap", PCAP, "--runs", 1,
                            "--duration", 2, "--warmup", 0.5, "--cooldown", 0, "--workers", 2,
                            "--only", "dpfwd/stats=on/cksum=off", "--no-build", "--json", j)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            res = json.loads(j.read_text())
        self.assertEqual(res["rig"]["workers"], 2)
        run = res["runs"]["dpfwd/stats=on/cksum=off"][0]
        self.assertTrue(run["ok"], run)
        lc = run["probes"]["/dpfwd/graph/lcores"]
        self.assertEqual(sorted(w["lcore"] for w in lc.values()), [1, 2])
        for w in lc.values():
            # each worker polled its own queue of port 0 and sent all it got
            self.assertGreater(w["rx_pkts"], 1_000_000, w)
            self.assertLessEqual(w["rx_pkts"] - w["tx_pkts"], 2 * 32, w)
        self.assertEqual(run["rx_nombuf"], 0)
        self.assertGreater(run["pps"], 1e6)
        self.assertIn("per worker: lcore 1 ", r.stdout)


if __name__ == "__main__":
    why = [f"{f} not built" for f in (DPFWD, PCAP) if not f.exists()]
    if why:
        print("SKIP: " + "; ".join(why) + " (set DPFWD_BUILD to the build dir)")
        sys.exit(77)
    unittest.main(verbosity=2)
