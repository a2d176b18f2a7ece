#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The memif rig end to end: dpgen <-> dpfwd, two processes over net_memif, driven by
dpbench.py (DPFWD_BUILD, default build/):

- `run` of a 1-variant, 1-run, 2 s bench at a fixed 200 kpps, dpfwd sampled through
  its Prometheus endpoint (telemetry = metrics): exit 0; dpgen's
  measured part is in results.json and agrees with dpfwd's counters (what dpfwd
  forwarded is what dpgen got back, within the 1 s sampling); loss and latency
  metrics are dpgen's numbers; the latency histogram adds up; the latency CDF
  plot is drawn; no socket, runtime folder or process is left behind.
- `rfc2544` with 1 s trials, 3 curve points and a fixed top (400 kpps): the
  curve's offered rates, every trial's verdict recomputed from its numbers, the
  search's answer consistent with the trials, the offered-load plot.
- a dpgen killed while it is measured, and a dpfwd killed while it is measured:
  dpbench names the run and the process, keeps the runs done, exits 1; the
  same for a dpgen killed in an rfc2544 trial.
- a gen_pcap that does not exist: exit 1, the file:line of the key named.
- the memif peer going away under a running dpfwd (no dpbench, no --hold on the
  path DPDK's memif unmaps under): a dpgen that --holds its port after its JSON and ends
  on SIGINT; one that ends on its own; several SIGKILLed while they send at
  1 Mpps (DPDK 22.11's memif unmaps the rings under the worker: SIGSEGV before
  dpfwd's munmap guard); then a new dpgen gets every packet back.  dpfwd stays up
  throughout, exits 0 with no mbuf leaked, stopped polling the port while it was
  down, and its port counters stayed monotonic (memif reads zeros while down).

Exit 77 (skipped) when dpfwd or dpgen is not built.  About 55 s."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("DPFWD_BUILD") or REPO / "build").resolve()
DPFWD = BUILD / "apps" / "dpfwd" / "dpfwd"
DPGEN = BUILD / "apps" / "dpgen" / "dpgen"
DPBENCH = REPO / "apps" / "dpbench" / "dpbench.py"
sys.path.insert(0, str(REPO / "apps" / "dpbench"))
import dpbench   # noqa: E402

HEAD = f"""[bench]
config = {REPO}/configs/bench/fwd-memif.ini
rig = memif
gen_flows = 64
gen_frame_size = 64
cooldown = 0
"""


def dpbench_cmd(*args, timeout=120):
    return subprocess.run([sys.executable, str(DPBENCH), *map(str, args), "--build", str(BUILD)],
                          capture_output=True, text=True, timeout=timeout)


def leftovers(pid: int):
    """Runtime folders and memif socket folders a dpbench process left."""
    rt = dpbench.dpdk_runtime_dir()
    out = [str(p) for p in rt.glob(f"dpbench-{pid}-*")] if rt.is_dir() else []
    return out


def memif_dirs():
    return set(Path(tempfile.gettempdir()).glob("dpbench-memif-*"))


def find_proc(exe: str, tag: bytes, deadline: float, parent):
    """pid of a running EXE whose argv has an argument starting with TAG."""
    while time.monotonic() < deadline and parent.poll() is None:
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                cmd = Path(f"/proc/{d}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if cmd and cmd[0].endswith(exe.encode()) and any(c.startswith(tag) for c in cmd):
                return int(d)
        time.sleep(0.05)
    return None


class TestRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        d = Path(cls.tmp.name)
        cls.before_dirs = memif_dirs()
        b = d / "memif.ini"
        b.write_text(HEAD + "gen_rate = 200kpps\nduration = 2\nwarmup = 1\nrepetitions = 1\n"
                     "telemetry = metrics\n[variant baseline]\nlabel = as configured\n")
        cls.out = d / "out"
        cls.r = dpbench_cmd("run", b, "--out", cls.out)
        cls.res = json.loads((cls.out / "results.json").read_text())

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_exit_0_and_one_good_run(self):
        self.assertEqual(self.r.returncode, 0, self.r.stdout + self.r.stderr)
        self.assertTrue(self.res["complete"])
        self.assertEqual(len(self.res["runs"]), 1)
        run = self.res["runs"][0]
        self.assertTrue(run["ok"])
        self.assertEqual(run["exit_status"], 0)
        self.assertEqual(run["gen"]["exit_status"], 0)
        self.assertEqual(self.res["bench"]["rig"], "memif")
        # its samples came from dpfwd's Prometheus endpoint, on a port of 127.0.0.1
        self.assertRegex(run["metrics_url"], r"^http://127\.0\.0\.1:[0-9]+/metrics$")
        self.assertIn("dpfwd.metrics=127.0.0.1:0", run["argv"])
        self.assertIn("port_rx", run["samples"][0]["nodes"])
        self.assertEqual(run["samples"][0]["lcores"]["workers"], 1)
        self.assertIn("--rate", run["gen"]["argv"])
        self.assertEqual(run["gen"]["argv"][run["gen"]["argv"].index("--rate") + 1], "200kpps")

    def test_dpgen_and_dpfwd_agree(self):
        run = self.res["runs"][0]
        m = run["gen"]["measured"]
        # dpgen offered 200 kpps (less when its CPU was taken: never more)
        self.assertLessEqual(m["tx"]["pps"], 200e3 * 1.01)
        self.assertGreater(m["tx"]["pps"], 0)
        self.assertEqual(m["seq"]["sent"], m["tx"]["stamped"])
        # the measured part starts while packets are in flight: at most the two memif rings
        self.assertLessEqual(abs(m["seq"]["received"] + m["seq"]["lost"] - m["seq"]["sent"]),
                             2 * 1024 + 64)
        # over the whole run, to the packet: what dpgen sent dpfwd's worker received, what
        # dpgen lost dpfwd counted as drops (dpfwd's final JSON: its lcores' counters;
        # memif's port counters are reset when the peer goes).  dpfwd may also drop a
        # frame of its own (an ARP request sent before dpgen was there): a few more drops.
        tot = run["gen"]["total"]
        tj = json.loads(Path(run["telemetry_json"]).read_text())
        self.assertTrue(tj["final"])
        self.assertEqual(sum(lcore["rx_pkts"] for lcore in tj["lcores"]), tot["tx"]["pkts"])
        self.assertGreaterEqual(sum(lcore["tx_pkts"] for lcore in tj["lcores"]),
                                tot["seq"]["received"])
        self.assertGreaterEqual(tj["drops"]["total"], tot["seq"]["lost"])
        self.assertLessEqual(tj["drops"]["total"] - tot["seq"]["lost"], 16)
        self.assertEqual(tot["seq"]["received"] + tot["seq"]["lost"], tot["seq"]["sent"])
        # dpfwd's forwarded rate (1 s samples of its /metrics) is about what dpgen got back
        # over its measured part (the two windows are not quite the same seconds, and on a
        # busy machine dpgen's rate wanders)
        self.assertAlmostEqual(run["median"]["mpps"] * 1e6, m["rx"]["pps"],
                               delta=max(m["rx"]["pps"] * 0.35, 5e3))
        self.assertAlmostEqual(run["median"]["loss_pct"], m["seq"]["loss_pct"])
        self.assertAlmostEqual(run["median"]["lat_p99_us"], m["latency_ns"]["p99"] / 1e3)
        self.assertLessEqual(run["median"]["lat_p50_us"], run["median"]["lat_p99_us"])
        # Gbps of 64 B frames: Mpps x 64 x 8 / 1e3, each 1 s sample; within 0.1 %: a
        # port's packet and byte counters are not one snapshot, and a few frames may be
        # counted in one and not yet in the other
        ps = run["per_second"]
        for mpps, gbps in zip(ps["mpps"], ps["gbps"]):
            want = mpps * 64 * 8 / 1e3
            self.assertAlmostEqual(gbps, want, delta=max(want * 1e-3, 1e-6))

    def test_latency_histogram_and_plots(self):
        m = self.res["runs"][0]["gen"]["measured"]
        hist = m["latency_hist_ns"]
        self.assertEqual(sum(c for _, _, c in hist), m["latency_ns"]["count"])
        self.assertTrue(all(lo <= hi for lo, hi, _ in hist))
        self.assertEqual([lo for lo, _, _ in hist], sorted(lo for lo, _, _ in hist))
        self.assertLessEqual(hist[0][0], m["latency_ns"]["min"])
        self.assertGreaterEqual(hist[-1][1], m["latency_ns"]["max"] * 0.99)
        names = {Path(p).name for p in self.res["plots"]}
        for base in ("latency-cdf", "timeline-mpps", "dist-gbps", "dist-loss-pct"):
            self.assertIn(base + ".png", names)
            self.assertIn(base + ".svg", names)
        self.assertIn("== loss %", self.r.stdout)
        self.assertIn("== latency p99 us", self.r.stdout)

    def test_nothing_left_behind(self):
        pid = int(self.res["runs"][0]["prefix"].split("-")[1])
        self.assertEqual(leftovers(pid), [])
        self.assertEqual(memif_dirs() - self.before_dirs, set())
        for r in self.res["runs"]:
            self.assertFalse(Path(dpbench.dpdk_runtime_dir() / (r["prefix"] + "-gen")).exists())


class TestRfc2544(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        d = Path(cls.tmp.name)
        b = d / "rfc.ini"
        b.write_text(HEAD + "[variant baseline]\n[rfc2544]\ntrial = 1\nwarmup = 0\nrepeats = 1\n"
                     "points = 3\nvalidate = 1\nresolution = 25%\nmax_rate = 400kpps\n"
                     "max_trials = 6\nloss_tolerance = 0.5\nrate_tolerance = 5\n")
        cls.out = d / "out"
        t0 = time.monotonic()
        cls.r = dpbench_cmd("rfc2544", b, "--out", cls.out)
        cls.seconds = time.monotonic() - t0
        cls.res = json.loads((cls.out / "results.json").read_text())

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_exit_0_and_the_curve(self):
        self.assertEqual(self.r.returncode, 0, self.r.stdout + self.r.stderr)
        self.assertTrue(self.res["complete"])
        v = self.res["variants"]["baseline"]
        self.assertEqual(v["status"], "done")
        self.assertEqual(v["top"]["rate_pps"], 400e3)
        self.assertEqual([p["offered_pps"] for p in v["curve"]], [133333, 266666, 400000])
        for p in v["curve"]:
            t = v["trials"][p["trials"][0] - 1]
            self.assertEqual(t["phase"], "curve")
            self.assertEqual(t["offered_pps"], p["offered_pps"])
            self.assertEqual(p["rx_pps"], t["rx_pps"])
        self.assertLess(self.seconds, 60)

    def test_every_verdict_follows_from_its_numbers(self):
        v = self.res["variants"]["baseline"]
        self.assertEqual([t["n"] for t in v["trials"]], list(range(1, len(v["trials"]) + 1)))
        for t in v["trials"]:
            # the verdict from the raw counts, not with rfc2544.judge(), which made it:
            # something sent, at most 0.5 % of it lost, at least 95 % of the offered rate
            sent, lost = t["sent"], t["lost"] or 0
            offered, tx_pps = t.get("offered_pps"), t.get("tx_pps") or 0
            ok = (sent > 0 and lost * 200 <= sent and
                  (not offered or tx_pps * 100 >= offered * 95))
            self.assertEqual(t["passed"], ok, t)
            # who is blamed: nobody when nothing was lost at (within 5 %) the offered rate;
            # dpfwd when it lost packets and only dpfwd's own drop counters moved
            who = t["bottleneck"]["who"]
            drops = {k: n for k, n in (t["dut"].get("drops") or {}).items() if n}
            if lost == 0 and (not offered or tx_pps * 100 >= offered * 95):
                self.assertEqual(who, "none", t)
            elif lost and drops and "tx_full" not in drops and not t["dut"].get("oerrors"):
                self.assertEqual(who, "dpfwd", t)
            else:
                self.assertIn(who, ("dpfwd", "dpgen", "unknown"), t)
            self.assertEqual(t["sent"] >= t["lost"] >= 0, True)
            self.assertGreater(t["dut"]["rx_pkts"], 0)          # dpfwd's own counters
            self.assertIsNotNone(t["dut"]["cycles_per_pkt"])
            self.assertEqual(t["dpfwd_exit_status"], 0)
            self.assertAlmostEqual(t["measured_s"], t["seconds"], delta=0.3)

    def test_search_is_consistent_with_its_trials(self):
        s = self.res["variants"]["baseline"]["search"]
        trials = self.res["variants"]["baseline"]["trials"]
        self.assertLessEqual(s["rate_pps"], 400e3)
        self.assertIn(s["limited_by"]["who"], ("dpgen", "dpfwd", "none", "unknown"))
        if s["found"]:
            best = trials[s["best_trial"] - 1]
            self.assertTrue(best["passed"])
            self.assertEqual(best["offered_pps"], s["rate_pps"])
            # nothing at or below the rate found failed among the search's own trials
            # after it (the bracket only narrows)
        failing = [t for t in trials if not t["passed"] and t["phase"] in ("top", "search")]
        if s["hi_pps"] is not None:
            self.assertIn(s["hi_pps"], [t["offered_pps"] or s["top_pps"] for t in trials])
        self.assertTrue(s["trials_used"] <= 6)
        self.assertIn("zero-loss throughput", self.r.stdout)
        self.assertIn("bottleneck: ", self.r.stdout)
        del failing

    def test_plot(self):
        names = sorted(Path(p).name for p in self.res["plots"])
        self.assertEqual(names, ["offered-load.png", "offered-load.svg"])
        for p in self.res["plots"]:
            self.assertGreater(Path(p).stat().st_size, 1000)


class TestPeerGoesAway(unittest.TestCase):
    """dpfwd (memif server) stays up while dpgen (client) comes and goes."""

    FWD_MAC = "02:00:00:00:00:10"
    KILLS = 20

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="dpbench-memif-peer-")
        cls.dir = Path(cls.tmp.name)
        cls.sock = cls.dir / "memif.sock"
        cls.prefix = f"dpbench-peer-{os.getpid()}"
        cls.tel = cls.dir / "telemetry.json"
        cls.n_gen = 0
        cls.ipackets = []   # port0's ipackets in every snapshot read, in order
        cls.fwd_log = cls.dir / "dpfwd.log"
        with open(cls.fwd_log, "w") as log:
            cls.fwd = subprocess.Popen(
                [str(DPFWD), "--file-prefix", cls.prefix, "--no-pci", "--no-huge", "-m", "512",
                 "--", "-c", str(REPO / "configs/bench/fwd-memif.ini"), "-j", str(cls.tel),
                 "-i", "100", "--set",
                 f"port0.dev=net_memif0,role=server,id=0,socket={cls.sock},"
                 f"socket-abstract=no,mac={cls.FWD_MAC}"],
                stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while not (cls.sock.exists() and cls.tel.exists()) and time.monotonic() < deadline:
            if cls.fwd.poll() is not None:
                break
            time.sleep(0.05)

    @classmethod
    def tearDownClass(cls):
        if cls.fwd.poll() is None:
            cls.fwd.kill()
            cls.fwd.wait()
        for d in [cls.prefix] + [f"{cls.prefix}-gen{i}" for i in range(1, cls.n_gen + 1)]:
            shutil.rmtree(dpbench.dpdk_runtime_dir() / d, ignore_errors=True)
        cls.tmp.cleanup()

    def log(self) -> str:
        return self.fwd_log.read_text(errors="replace")[-3000:]

    def alive(self):
        self.assertIsNone(self.fwd.poll(), f"dpfwd died ({self.fwd.returncode}):\n{self.log()}")

    def snapshot(self) -> dict:
        """dpfwd's telemetry JSON (rewritten atomically every 100 ms)."""
        for _ in range(50):
            try:
                snap = json.loads(self.tel.read_text())
            except (OSError, ValueError):
                time.sleep(0.02)
                continue
            self.ipackets.append(self.port0(snap)["ipackets"])
            return snap
        self.fail("no readable telemetry JSON")

    def port0(self, snap: dict) -> dict:
        return snap["ports"][0]

    def wait_for(self, what: str, cond, timeout: float = 10.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            self.alive()
            snap = self.snapshot()
            if cond(snap):
                return snap
            if time.monotonic() > deadline:
                self.fail(f"{what} not seen in {timeout} s: {self.port0(snap)}")
            time.sleep(0.05)

    def gen(self, *args: str) -> "tuple[subprocess.Popen, Path]":
        type(self).n_gen += 1
        n = self.n_gen
        out = self.dir / f"gen{n}.json"
        log = open(self.dir / f"gen{n}.log", "w")
        p = subprocess.Popen(
            [str(DPGEN), "--lcores", "0@0,1@0", "--file-prefix", f"{self.prefix}-gen{n}",
             "--no-pci", "--no-huge", "-m", "512", "--vdev",
             f"net_memif0,role=client,id=0,socket={self.sock},socket-abstract=no,"
             f"mac=02:64:67:00:00:00",
             "--", "--tx-port", "0", "--rx-port", "0", "--flows", "64", "--src-mac",
             "02:64:67:00:00:00", "--dst-mac", self.FWD_MAC, "--quiet", "--json", str(out),
             *args],
            stdout=log, stderr=subprocess.STDOUT)
        log.close()
        return p, out

    def drops_now(self) -> dict:
        time.sleep(0.3)        # a snapshot taken after what came before was counted
        return self.snapshot()["drops"]["by_reason"]

    def every_packet_accounted(self, out: Path, count: int, drops0: dict) -> dict:
        """What dpgen sent came back, or was a drop dpfwd counted; the only drop
        allowed is tx_full: dpgen's RX lcore shares CPU 0 with its TX lcore and
        everything else on this 2-CPU machine, so its queue back may fill."""
        tot = json.loads(out.read_text())["total"]["seq"]
        drops = {k: v - drops0.get(k, 0) for k, v in self.drops_now().items()
                 if v != drops0.get(k, 0)}
        self.assertEqual(tot["sent"], count)
        self.assertEqual(tot["received"] + tot["lost"], tot["sent"])
        self.assertEqual(set(drops) - {"tx_full"}, set(), drops)
        self.assertEqual(tot["lost"], drops.get("tx_full", 0), drops)
        self.assertGreater(tot["received"], count * 0.9, drops)
        return tot

    def rx_pkts(self, snap: dict) -> int:
        return sum(lc["rx_pkts"] for lc in snap["lcores"])

    def test_peer_comes_and_goes(self):
        self.alive()
        self.assertFalse(self.port0(self.snapshot())["polled"], "no peer yet: not polled")

        # 1. --hold: the JSON is written, then the port stays open (link up) until SIGINT
        drops0 = self.drops_now()
        p, out = self.gen("--rate", "50kpps", "--count", "5000", "--hold", "30")
        deadline = time.monotonic() + 30
        while not out.exists() and time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.05)
        self.assertTrue(out.exists(), "dpgen --hold wrote no JSON")
        time.sleep(0.3)
        self.assertIsNone(p.poll(), "dpgen --hold exited before SIGINT")
        snap = self.snapshot()
        self.assertTrue(self.port0(snap)["link_up"] and self.port0(snap)["polled"])
        t0 = time.monotonic()
        p.send_signal(signal.SIGINT)
        self.assertEqual(p.wait(timeout=10), 0)
        self.assertLess(time.monotonic() - t0, 5)
        self.every_packet_accounted(out, 5000, drops0)
        self.wait_for("link down after dpgen --hold ended",
                      lambda s: not self.port0(s)["polled"])

        # 2. no --hold: dpgen disconnects as soon as its run is over
        p, out = self.gen("--rate", "100kpps", "--duration", "1")
        self.assertEqual(p.wait(timeout=30), 0)
        tot = json.loads(out.read_text())["total"]["seq"]
        self.assertEqual(tot["received"] + tot["lost"], tot["sent"])
        self.assertGreater(tot["received"], 0)
        self.wait_for("link down after dpgen ended", lambda s: not self.port0(s)["polled"])

        # 3. killed while sending at 1 Mpps, several times: dpfwd's worker is in a burst
        before = self.rx_pkts(self.snapshot())
        for i in range(self.KILLS):
            p, _ = self.gen("--rate", "1Mpps", "--duration", "30")
            time.sleep(0.5 + 0.1 * (i % 6))
            p.kill()
            p.wait()
            self.wait_for("link down after dpgen was killed",
                          lambda s: not self.port0(s)["polled"])
            time.sleep(0.05)
            self.alive()

        self.assertGreater(self.rx_pkts(self.snapshot()), before + 100000)

        # 4. a new peer: every packet comes back
        drops0 = self.drops_now()
        p, out = self.gen("--rate", "20kpps", "--count", "10000")
        self.assertEqual(p.wait(timeout=30), 0)
        self.every_packet_accounted(out, 10000, drops0)
        self.alive()

        # 5. dpfwd stops cleanly: exit 0 (no mbuf leaked), counters monotonic
        self.fwd.send_signal(signal.SIGINT)
        self.assertEqual(self.fwd.wait(timeout=30), 0, self.log())
        final = json.loads(self.tel.read_text())
        self.assertTrue(final["final"])
        port = self.port0(final)
        self.assertFalse(port["link_up"])
        # up and down once per session (a dpgen killed before it connected had none)
        self.assertEqual(port["link_changes"] % 2, 0)
        self.assertGreaterEqual(port["link_changes"], 2 * (2 + 1 + 1))
        self.assertLessEqual(port["link_changes"], 2 * (2 + self.KILLS + 1))
        # memif reads zeros while its peer is gone (and counts on where it was when the
        # next one comes): telemetry shows the last totals read while up instead, so
        # they never go back; at the end they lag the worker's count by at most what
        # came in after the last read of the last session (100 ms at 50 kpps)
        self.ipackets.append(port["ipackets"])
        self.assertEqual(self.ipackets, sorted(self.ipackets))
        self.assertLessEqual(port["ipackets"], self.rx_pkts(final))
        self.assertGreaterEqual(port["ipackets"], self.rx_pkts(final) - 10000)
        self.assertGreaterEqual(port["ipackets"], 5000 + 100000 + 9000)
        self.assertEqual(final["run"]["mbufs_over_baseline"], 0)
        self.assertIn("port_down", final["drops"]["by_reason"])
        log = self.fwd_log.read_text(errors="replace")
        self.assertIn("port0 net_memif0: link down", log)
        self.assertNotIn("leaked", log)


class TestFailures(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def kill_while_measured(self, exe: str, suffix: bytes):
        b = self.dir / "b.ini"
        b.write_text(HEAD + "gen_rate = 100kpps\nduration = 3\nwarmup = 0.5\nrepetitions = 2\n"
                     "[variant a]\n")
        p = subprocess.Popen([sys.executable, str(DPBENCH), "run", str(b), "--build", str(BUILD),
                              "--out", str(self.dir / "out"), "--no-plots"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            # the second run: --file-prefix dpbench-<pid>-2-a (dpgen: ...-2-a-gen)
            tag = f"dpbench-{p.pid}-2-a{suffix.decode()}".encode()
            pid = find_proc(exe, tag, time.monotonic() + 60, p)
            self.assertIsNotNone(pid, f"second {exe} run not seen")
            time.sleep(2.0)             # start-up + 0.5 s warmup: now it is being measured
            os.kill(pid, signal.SIGKILL)
            out, err = p.communicate(timeout=90)
        finally:
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
                try:
                    p.communicate(timeout=60)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.communicate()
        self.assertEqual(p.returncode, 1, out + err)
        res = json.loads((self.dir / "out" / "results.json").read_text())
        self.assertEqual([x["ok"] for x in res["runs"]], [True, False])
        self.assertEqual(leftovers(p.pid), [])
        return out, err, res

    def test_dpgen_killed_while_measured(self):
        out, err, res = self.kill_while_measured("/dpgen", b"-gen")
        self.assertIn("run 2 of 2 (a, repetition 2) failed: dpgen exited with status -9", err)
        self.assertEqual(res["failed"][0]["process"], "dpgen")
        self.assertIsNotNone(res["runs"][0]["gen"]["measured"])

    def test_dpfwd_killed_while_measured(self):
        out, err, res = self.kill_while_measured("/dpfwd", b"")
        self.assertIn("run 2 of 2 (a, repetition 2) failed: dpfwd exited with status -9", err)
        self.assertEqual(res["failed"][0]["process"], "dpfwd")
        self.assertEqual(res["failed"][0]["exit_status"], -9)

    def test_rfc2544_dpgen_killed_in_a_trial(self):
        b = self.dir / "b.ini"
        b.write_text(HEAD + "[variant a]\n[rfc2544]\ntrial = 3\nwarmup = 0\nrepeats = 1\n"
                     "points = 2\nmax_rate = 100kpps\nvalidate = 0\n")
        p = subprocess.Popen([sys.executable, str(DPBENCH), "rfc2544", str(b), "--build",
                              str(BUILD), "--out", str(self.dir / "out"), "--no-plots"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            # the second trial's dpgen: --file-prefix dpbench-<pid>-1-a-t2-gen
            pid = find_proc("/dpgen", f"dpbench-{p.pid}-1-a-t2-gen".encode(),
                            time.monotonic() + 60, p)
            self.assertIsNotNone(pid, "the second trial's dpgen not seen")
            time.sleep(1.0)
            os.kill(pid, signal.SIGKILL)
            out, err = p.communicate(timeout=90)
        finally:
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
                p.communicate(timeout=60)
        self.assertEqual(p.returncode, 1, out + err)
        self.assertIn("variant a, trial 2 failed: dpgen exited with status -9 before writing "
                      "its JSON", err)
        res = json.loads((self.dir / "out" / "results.json").read_text())
        v = res["variants"]["a"]
        self.assertEqual(v["status"], "failed")
        self.assertEqual(len(v["trials"]), 1)                 # the trial done is kept
        self.assertEqual(v["trials"][0]["offered_pps"], 100e3)
        self.assertFalse(res["complete"])
        self.assertEqual(res["failed"][0]["trial"], 2)
        self.assertEqual(leftovers(p.pid), [])

    def test_missing_gen_pcap_names_its_line(self):
        b = self.dir / "b.ini"
        b.write_text(HEAD.replace("gen_flows = 64\ngen_frame_size = 64\n", "")
                     + "gen_pcap = /nonexistent/x.pcap\n[variant a]\n")
        r = dpbench_cmd("run", b, "--out", self.dir / "out")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn(f"({b}:5;", r.stderr)
        self.assertIn("/nonexistent/x.pcap not found", r.stderr)


if __name__ == "__main__":
    why = [f"{f} not built" for f in (DPFWD, DPGEN) if not f.exists()]
    if why:
        print("SKIP: " + "; ".join(why) + " (set DPFWD_BUILD to the build dir)")
        sys.exit(77)
    unittest.main(verbosity=2)
