#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
dpctl (apps/dpctl/dpctl.py) against a real dpfwd: the bench config (net_pcap replaying
2000 flows of 64 B in a loop on port0, routed to two net_null ports) on one worker, and
dpctl run as a command, as an operator would:

- every `show` answers, as tables and as JSON; show runtime has ip4_fwd with packets and
  a positive cycles/packet, show ports' rx counter grows, show drops adds up;
- route add / del change the route count by one; a second del exits 1 with dpfwd's error;
- clear: later counters are below the raw ones, a restart (another pid) or counters that
  went back make dpctl ignore the snapshot and say so; clear --undo;
- which dpfwd: a bad --file-prefix exits 2; found alone in a runtime folder; none (exit 2,
  with the stale socket named) or several (exit 2, both prefixes named) with a fake DPDK
  telemetry server beside it;
- raw, --help, show --help; dpfwd stops cleanly (SIGINT) at the end.

About 8 s.  Exit 77 (skipped) when dpfwd is not built.
"""
import datetime
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("DPFWD_BUILD") or REPO / "build").resolve()
DPFWD = Path(os.environ.get("DPFWD_BIN", BUILD / "apps" / "dpfwd" / "dpfwd"))
DPCTL = REPO / "apps" / "dpctl" / "dpctl.py"
CONFIG = REPO / "configs" / "bench" / "fwd-2000flows-64b.ini"
PCAP = BUILD / "pcap" / "fwd-2000flows-64b.pcap"
SOCK = "dpdk_telemetry.v2"
SHOWS = ["info", "ports", "lcores", "runtime", "drops", "routes", "neighbors", "relay",
         "endpoints", "pools", "delay", "ctl", "icmp"]


def dpdk_runtime_dir() -> Path:
    if os.geteuid() == 0:
        return Path("/var/run/dpdk")
    return Path(os.environ.get("XDG_RUNTIME_DIR") or "/tmp") / "dpdk"


class FakeTelemetry(threading.Thread):
    """A DPDK telemetry v2 server that is not dpfwd's (as_dpfwd=False) or one more dpfwd
    (as_dpfwd=True), one connection at a time."""

    def __init__(self, path: Path, as_dpfwd: bool):
        super().__init__(daemon=True)
        self.as_dpfwd = as_dpfwd
        self.srv = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.srv.bind(str(path))
        self.srv.listen(4)
        self.srv.settimeout(0.1)
        self.stop = False

    def run(self):
        while not self.stop:
            try:
                c, _ = self.srv.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            with c:
                c.settimeout(2)
                try:
                    c.send(json.dumps({"version": "DPDK 22.11.0", "pid": 1,
                                       "max_output_len": 16384}).encode())
                    while True:
                        cmd = c.recv(1024).decode()
                        if not cmd:
                            break
                        key = cmd.split(",", 1)[0]
                        val = {"config": "fake.ini", "mode": "forward", "workers": 1} \
                            if key == "/dpfwd/run/info" and self.as_dpfwd else None
                        c.send(json.dumps({key: val}).encode())
                except OSError:
                    pass

    def close(self):
        self.stop = True
        self.join(timeout=2)
        self.srv.close()


class TestDpctl(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = Path(tempfile.mkdtemp(prefix="dpctl-test-"))
        cls.prefix = f"dpctl-test-{os.getpid()}"
        cls.state = cls.dir / "state"
        cls.sock = dpdk_runtime_dir() / cls.prefix / SOCK
        cls.log_path = cls.dir / "dpfwd.log"
        cls.fwd_log = open(cls.log_path, "w")
        # dpfwd adds --in-memory itself (or --no-huge without free hugepages); -j none: the
        # shared /run/dpfwd/telemetry.json is not ours to rewrite. tearDownClass stops it;
        # --duration only bounds an orphan's life (a loaded machine stretches the tests
        # far past their own run time)
        cls.fwd = subprocess.Popen(
            [str(DPFWD), "-l", "0,1", "--file-prefix", cls.prefix, "--",
             "-c", str(CONFIG), "--duration", "900", "-j", "none"],
            stdout=cls.fwd_log, stderr=subprocess.STDOUT,
            env=dict(os.environ, DPFWD_BUILD=str(BUILD)))
        cls.ready_error = None
        deadline = time.monotonic() + 30
        while True:
            if cls.sock.exists():
                r = cls.run_dpctl(["raw", "/dpfwd/run/info"], check=False)
                if r.returncode == 0:
                    break
            if cls.fwd.poll() is not None or time.monotonic() > deadline:
                cls.ready_error = f"dpfwd did not start ({cls.fwd.poll()}): {cls.log()}"
                break
            time.sleep(0.1)

    @classmethod
    def tearDownClass(cls):
        if cls.fwd.poll() is None:
            cls.fwd.send_signal(signal.SIGINT)
            try:
                cls.fwd.wait(timeout=20)
            except subprocess.TimeoutExpired:
                cls.fwd.kill()
                cls.fwd.wait()
        cls.fwd_log.close()
        shutil.rmtree(dpdk_runtime_dir() / cls.prefix, ignore_errors=True)
        shutil.rmtree(cls.dir, ignore_errors=True)

    @classmethod
    def log(cls) -> str:
        cls.fwd_log.flush()
        return cls.log_path.read_text()[-3000:]

    @classmethod
    def run_dpctl(cls, args, check=True, env=None, prefix=True):
        e = dict(os.environ, DPCTL_STATE_DIR=str(cls.state))
        e.pop("DPCTL_DPDK_RUNTIME_DIR", None)
        e.update(env or {})
        cmd = [sys.executable, str(DPCTL)] + (["--file-prefix", cls.prefix] if prefix else [])
        r = subprocess.run(cmd + args, capture_output=True, text=True, timeout=30, env=e)
        if check and r.returncode != 0:
            raise AssertionError(f"dpctl {' '.join(args)}: exit {r.returncode}\n"
                                 f"stdout: {r.stdout}\nstderr: {r.stderr}")
        return r

    def dpctl_json(self, args, **kw):
        r = self.run_dpctl(args + ["--json"], **kw)
        try:
            return json.loads(r.stdout)
        except ValueError as e:
            self.fail(f"dpctl {' '.join(args)} --json: not JSON ({e}): {r.stdout!r}")

    def raw(self, cmd):
        return json.loads(self.run_dpctl(["raw", cmd]).stdout)[cmd]

    def setUp(self):
        if self.ready_error:
            self.fail(self.ready_error)

    # ---- command line ----

    def test_01_help(self):
        r = self.run_dpctl(["--help"], prefix=False)
        self.assertEqual(r.returncode, 0, r.stderr)
        for word in ("show", "route add", "route del", "route reload", "clear", "--undo",
                     "raw", "--json", "--file-prefix", "--socket", "Exit status"):
            self.assertIn(word, r.stdout)
        r = self.run_dpctl(["show", "--help"], prefix=False)
        self.assertEqual(r.returncode, 0, r.stderr)
        for what in SHOWS:
            self.assertIn(f"  {what} ", r.stdout)
        r = self.run_dpctl(["show", "nonsense"], check=False)
        self.assertEqual(r.returncode, 2)

    def test_02_bad_prefix_exits_2(self):
        r = self.run_dpctl(["--file-prefix", f"no-such-dpfwd-{os.getpid()}", "show", "info"],
                           check=False, prefix=False)
        self.assertEqual(r.returncode, 2, r.stdout)
        self.assertIn(f"no dpfwd with --file-prefix no-such-dpfwd-{os.getpid()}", r.stderr)
        self.assertEqual(r.stdout, "")
        r = self.run_dpctl(["--socket", str(self.dir / "nothing"), "show", "info"],
                           check=False, prefix=False)
        self.assertEqual(r.returncode, 2)
        self.assertIn("cannot connect", r.stderr)

    # ---- shows ----

    def test_10_every_show_answers(self):
        for what in SHOWS:
            r = self.run_dpctl(["show", what])
            self.assertTrue(r.stdout.strip(), what)
            data = self.dpctl_json(["show", what])
            self.assertIsInstance(data, dict, what)
        info = self.dpctl_json(["show", "info"])
        self.assertEqual(info["pid"], self.fwd.pid)
        self.assertEqual(info["file_prefix"], self.prefix)
        self.assertEqual(info["run"]["config"], str(CONFIG))
        self.assertEqual(info["run"]["workers"], 1)
        self.assertGreater(info["uptime_s"], 0)

    def test_11_runtime(self):
        data = self.dpctl_json(["show", "runtime"])
        nodes = {n["name"]: n for n in data["nodes"]}
        self.assertIn("ip4_fwd", nodes)
        self.assertGreater(nodes["ip4_fwd"]["pkts"], 0)
        cpp = nodes["ip4_fwd"]["cycles_per_pkt"]
        self.assertIsInstance(cpp, float)
        self.assertGreater(cpp, 0)
        self.assertGreater(nodes["ip4_fwd"]["pkts_per_call"], 1)
        pkts = [n["pkts"] for n in data["nodes"]]
        self.assertEqual(pkts, sorted(pkts, reverse=True))
        self.assertNotIn("ip6_fwd", nodes)           # saw nothing: hidden
        self.assertEqual(data["counters"]["since"], "start")
        every = self.dpctl_json(["show", "runtime", "--all"])
        self.assertIn("ip6_fwd", {n["name"] for n in every["nodes"]})
        out = self.run_dpctl(["show", "runtime"]).stdout
        self.assertRegex(out, r"Name\s+Calls\s+Packets\s+Cycles/pkt\s+Pkts/call")
        self.assertRegex(out, r"\nip4_fwd\s+[\d,]+\s+[\d,]+\s+[\d,]+\.\d\d\s+32\.00")
        self.assertIn("--all shows them", out)

    def test_16_graph_shows_what_runs(self):
        data = self.dpctl_json(["show", "graph"])
        nodes = {d["name"]: d for d in data["nodes"]}
        self.assertEqual(data["worker"], 0)
        self.assertIn("ip4_fwd", nodes["port_rx"]["edges"])
        self.assertGreater(nodes["ip4_fwd"]["pkts"], 0)
        self.assertTrue(any(k.startswith("port_tx-") for k in nodes))
        # DPDK's own export of the same graph has every edge the node walk listed
        dot = self.run_dpctl(["show", "graph", "--dot"]).stdout
        self.assertRegex(dot, r'^digraph "worker-\d+" \{')
        for name, d in nodes.items():
            for e in d["edges"]:
                self.assertIn('"%s"->"%s"' % (name, e), dot)
        out = self.run_dpctl(["show", "graph"]).stdout
        self.assertRegex(out, r"\nip4_fwd\s+[\d,]+\s+drop, ip4_output, ip4_local")
        r = self.run_dpctl(["show", "graph", "--worker", "7"], check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no worker 7", r.stderr)

    def test_12_ports_grow(self):
        a = self.dpctl_json(["show", "ports", "-i", "0"])
        time.sleep(0.3)
        b = self.dpctl_json(["show", "ports"])
        self.assertEqual([p["name"] for p in b["ports"]], ["net_pcap0", "net_null0", "net_null1"])
        self.assertGreater(b["ports"][0]["ipackets"], a["ports"][0]["ipackets"])
        self.assertGreater(b["ports"][1]["opackets"], a["ports"][1]["opackets"])
        self.assertGreater(b["ports"][0]["rx_pps"], 0)
        self.assertNotIn("rx_pps", a["ports"][0])
        out = self.run_dpctl(["show", "ports"]).stdout
        self.assertRegex(out, r"\n0\s+net_pcap0\s+net_pcap\s+up")
        self.assertIn("Mpps", out)

    def test_13_lcores_and_delay(self):
        lc = self.dpctl_json(["show", "lcores"])["lcores"]
        self.assertEqual(len(lc), 1)
        self.assertEqual(lc[0]["lcore"], 1)
        self.assertGreater(lc[0]["busy_pct"], 50)
        self.assertGreater(lc[0]["cycles_per_pkt"], 0)
        self.assertGreater(lc[0]["rx_pps"], 0)
        d = self.dpctl_json(["show", "delay"])
        self.assertGreater(d["total"]["count"], 0)
        for k in ("p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns"):
            self.assertGreater(d["lcores"][0][k], 0, k)     # whole, from the total
        out = self.run_dpctl(["show", "delay"]).stdout
        self.assertRegex(out, r"\ntotal\s+[\d,]+\s+\d")

    def test_15_nested_values_arrive_whole(self):
        """Values nested deeper than rte_telemetry's two levels are spread into keys of
        their own by dpfwd and put back by dpctl: nothing is cut at 127 characters."""
        def cut(v):
            if isinstance(v, dict):
                return "_truncated" in v or any(cut(e) for e in v.values())
            if isinstance(v, list):
                return any(cut(e) for e in v)
            return False

        for cmd in ("/dpfwd/graph/lcores", "/dpfwd/graph/delay", "/dpfwd/port/stats"):
            v = json.loads(self.run_dpctl(["raw", cmd, "--decode"]).stdout)[cmd]
            self.assertFalse(cut(v), cmd)
        lc = json.loads(self.run_dpctl(["raw", "/dpfwd/graph/lcores", "--decode"]).stdout)
        nodes = lc["/dpfwd/graph/lcores"][0]["nodes"]
        self.assertGreater(nodes["ip4_fwd"]["pkts"], 0)
        self.assertGreater(nodes["port_rx"]["calls"], 0)
        d = json.loads(self.run_dpctl(["raw", "/dpfwd/graph/delay", "--decode"]).stdout)
        d = d["/dpfwd/graph/delay"]
        self.assertEqual(d["lcores"][0]["lcore"], 1)
        self.assertGreater(d["lcores"][0]["p999_ns"], 0)
        # the histogram itself: [low, width, count] per bucket, counts adding up
        self.assertEqual(sum(b[2] for b in d["total"]["buckets_cycles"]), d["total"]["count"])

    def test_14_drops(self):
        r = self.run_dpctl(["show", "drops"])
        self.assertTrue(r.stdout.startswith("Counters since"), r.stdout)
        d = self.dpctl_json(["show", "drops"])
        # total counts the errors, consumed the ARP/ND learned from: every reason in one
        self.assertEqual(d["total"] + d["consumed"], sum(d["by_reason"].values()))
        self.assertEqual(d["consumed"],
                         d["by_reason"]["arp_consumed"] + d["by_reason"]["nd_consumed"])
        self.assertIn("ip4_no_route", d["by_reason"])
        out = self.run_dpctl(["show", "drops", "--all"]).stdout
        self.assertIn("ip4_no_route", out)

    # ---- routes ----

    def test_20_route_add_del(self):
        before = self.dpctl_json(["show", "routes"])["routes"]["ip4_routes"]
        r = self.run_dpctl(["route", "add", "198.19.0.0/16 via 198.18.101.2 port 1"])
        self.assertEqual(r.stdout.strip(), "ok")
        self.assertEqual(r.stderr, "")
        routes = self.dpctl_json(["show", "routes"])
        self.assertEqual(routes["routes"]["ip4_routes"], before + 1)
        self.assertGreaterEqual(routes["route_changes"]["added"], 1)
        r = self.run_dpctl(["route", "del", "198.19.0.0/16"])
        self.assertEqual(r.stdout.strip(), "ok")
        self.assertEqual(self.dpctl_json(["show", "routes"])["routes"]["ip4_routes"], before)
        r = self.run_dpctl(["route", "del", "198.19.0.0/16"], check=False)
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertEqual(r.stdout, "")
        self.assertIn("no route 198.19.0.0/16", r.stderr)      # dpfwd's own words
        r = self.run_dpctl(["route", "add", "nonsense"], check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("bad route", r.stderr)
        r = self.run_dpctl(["route", "reload"])
        self.assertTrue(r.stdout.startswith("ok"), r.stdout)
        self.assertEqual(self.dpctl_json(["show", "routes"])["routes"]["ip4_routes"], before)

    def test_21_route_list(self):
        self.run_dpctl(["route", "add", "198.19.0.0/16 via 198.18.101.2 port 1"])
        # on-link: it shares port 1's connected next hop, but is the user's route
        self.run_dpctl(["route", "add", "198.18.77.0/24 port 1"])
        try:
            r = self.run_dpctl(["route", "list", "198.18.77.0/24"])
            self.assertEqual(r.stdout.splitlines(),
                             ["198.18.77.0/24 port 1", "# 1 routes in 198.18.77.0/24"])
            r = self.run_dpctl(["route", "list", "198.19.0.0/16"])
            self.assertEqual(r.stdout.splitlines(),
                             ["198.19.0.0/16 via 198.18.101.2 port 1",
                              "# 1 routes in 198.19.0.0/16"])
            j = self.dpctl_json(["route", "list"])
            lines = j["routes"]
            self.assertEqual(j["routes_in_prefix"], len(lines))
            self.assertIn("198.19.0.0/16 via 198.18.101.2 port 1", lines)
            self.assertIn("198.18.0.1/32 # local", lines)
            self.assertIn("198.18.0.0/24 port 0 # connected", lines)
            # every user route of the config is there as its route file line
            self.assertIn("198.18.1.0/24 via 198.18.101.2 port 1", lines)
            shown = self.dpctl_json(["show", "routes"])["routes"]["ip4_routes"]
            self.assertEqual(len([x for x in lines if "# adjacency" not in x]), shown)
            self.assertIn("198.18.101.0/24 port 1 # connected", lines)
        finally:
            self.run_dpctl(["route", "del", "198.18.77.0/24"])
            self.run_dpctl(["route", "del", "198.19.0.0/16"])
        r = self.run_dpctl(["route", "list", "198.19.0.0/16"])
        self.assertEqual(r.stdout.splitlines(), ["# 0 routes in 198.19.0.0/16"])
        r = self.run_dpctl(["route", "list", "198.19.0.0/33"], check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("198.19.0.0/33", r.stderr)

    def test_22_run_info_says_what_and_since_when(self):
        info = self.raw("/dpfwd/run/info")
        self.assertRegex(info["version"], r"^\d+\.\d+\.\d+")
        self.assertTrue(info["dpdk"].startswith("DPDK "), info)
        self.assertEqual(info["pid"], self.fwd.pid)
        started = datetime.datetime.strptime(info["started"], "%Y-%m-%dT%H:%M:%SZ")
        age = datetime.datetime.utcnow() - started
        self.assertLess(abs(age.total_seconds() - float(info["uptime_s"])), 5, info)
        self.assertGreater(float(info["uptime_s"]), 0)

    # ---- clear ----

    def test_30_clear(self):
        snap = self.state / f"{self.prefix}.json"
        r = self.run_dpctl(["clear"])
        self.assertIn("counters cleared", r.stdout)
        self.assertTrue(snap.exists())
        time.sleep(0.2)
        ports = self.dpctl_json(["show", "ports", "-i", "0"])
        nodes = self.dpctl_json(["show", "runtime"])
        raw_ports = self.raw("/dpfwd/port/stats")
        raw_nodes = self.raw("/dpfwd/graph/nodes")
        self.assertEqual(ports["counters"]["since"], "clear")
        p0, raw0 = ports["ports"][0], raw_ports["0"]
        self.assertGreater(p0["ipackets"], 0)                   # traffic since the clear
        self.assertLess(p0["ipackets"], raw0["ipackets"])
        self.assertLess(p0["ibytes"], raw0["ibytes"])
        fwd = {n["name"]: n for n in nodes["nodes"]}["ip4_fwd"]
        self.assertLess(fwd["pkts"], raw_nodes["ip4_fwd"]["pkts"])
        self.assertGreater(fwd["cycles_per_pkt"], 0)
        self.assertIn("Counters since clear at", self.run_dpctl(["show", "ports"]).stdout)
        self.assertEqual(self.dpctl_json(["show", "drops"])["counters"]["since"], "clear")

        # another pid in the snapshot: a restarted dpfwd, the snapshot is ignored
        saved = snap.read_text()
        d = json.loads(saved)
        d["identity"]["pid"] += 1
        snap.write_text(json.dumps(d))
        r = self.run_dpctl(["show", "ports", "-i", "0"])
        self.assertIn("restarted", r.stdout)
        self.assertIn("Counters since dpfwd started", r.stdout)
        r = self.run_dpctl(["show", "ports", "-i", "0", "--json"])
        self.assertIn("restarted", r.stderr)                    # notes on stderr with --json
        data = json.loads(r.stdout)
        self.assertEqual(data["counters"]["since"], "start")
        self.assertGreaterEqual(data["ports"][0]["ipackets"], raw0["ipackets"])

        # counters lower than the snapshot's (same pid): ignored too
        d = json.loads(saved)
        d["drops"]["by_reason"]["ip4_no_route"] = 1 << 60
        snap.write_text(json.dumps(d))
        r = self.run_dpctl(["show", "runtime"])
        self.assertIn("counters went back", r.stdout)
        self.assertIn("Counters since dpfwd started", r.stdout)

        r = self.run_dpctl(["clear", "--undo"])
        self.assertIn("removed", r.stdout)
        self.assertFalse(snap.exists())
        self.assertEqual(self.dpctl_json(["show", "ports", "-i", "0"])["counters"]["since"],
                         "start")

    # ---- raw ----

    def test_40_raw(self):
        r = self.run_dpctl(["raw", "/"])
        self.assertIn("/dpfwd/graph/nodes", json.loads(r.stdout)["/"])
        r = self.run_dpctl(["raw", "/dpfwd/no/such"], check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("unknown command", r.stderr)
        d = json.loads(self.run_dpctl(["raw", "--decode", "/dpfwd/port/stats"]).stdout)
        self.assertIsInstance(d["/dpfwd/port/stats"], list)

    # ---- which dpfwd ----

    def test_50_discovery(self):
        rt = self.dir / "rt"
        (rt / self.prefix).mkdir(parents=True)
        env = {"DPCTL_DPDK_RUNTIME_DIR": str(rt)}
        # nothing there
        r = self.run_dpctl(["show", "info"], check=False, env=env, prefix=False)
        self.assertEqual(r.returncode, 2)
        self.assertIn("dpfwd does not seem to run", r.stderr)
        self.assertIn("--file-prefix", r.stderr)
        # our dpfwd alone: found
        (rt / self.prefix / SOCK).symlink_to(self.sock)
        info = self.dpctl_json(["show", "info"], env=env, prefix=False)
        self.assertEqual(info["pid"], self.fwd.pid)
        # a DPDK process that is not dpfwd, and a stale socket: still ours alone
        fakes = []
        try:
            (rt / "other").mkdir()
            fakes.append(FakeTelemetry(rt / "other" / SOCK, as_dpfwd=False))
            (rt / "stale").mkdir()
            dead = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            dead.bind(str(rt / "stale" / SOCK))
            dead.close()
            for f in fakes:
                f.start()
            info = self.dpctl_json(["show", "info"], env=env, prefix=False)
            self.assertEqual(info["pid"], self.fwd.pid)
            r = self.run_dpctl(["list"], env=env, prefix=False)
            self.assertIn(self.prefix, r.stdout)
            self.assertIn("not dpfwd", r.stdout)
            # two dpfwd: which one?
            (rt / "second").mkdir()
            fakes.append(FakeTelemetry(rt / "second" / SOCK, as_dpfwd=True))
            fakes[-1].start()
            r = self.run_dpctl(["show", "ports"], check=False, env=env, prefix=False)
            self.assertEqual(r.returncode, 2)
            self.assertIn("several dpfwd", r.stderr)
            self.assertIn(f"--file-prefix {self.prefix}", r.stderr)
            self.assertIn("--file-prefix second", r.stderr)
            # none of them dpfwd: the others are named
            (rt / self.prefix / SOCK).unlink()
            fakes.pop().close()
            r = self.run_dpctl(["show", "ports"], check=False, env=env, prefix=False)
            self.assertEqual(r.returncode, 2)
            self.assertIn("dpfwd does not seem to run", r.stderr)
            self.assertIn("other: a DPDK process that is not dpfwd", r.stderr)
            self.assertIn("stale: stale socket", r.stderr)
        finally:
            for f in fakes:
                f.close()

    # ---- last ----

    def test_99_dpfwd_stops_cleanly(self):
        self.fwd.send_signal(signal.SIGINT)
        self.assertEqual(self.fwd.wait(timeout=20), 0, self.log())
        r = self.run_dpctl(["show", "info"], check=False)
        self.assertEqual(r.returncode, 2)


if __name__ == "__main__":
    why = [f"{f} not built" for f in (DPFWD, PCAP) if not f.exists()]
    if why:
        print("SKIP: " + "; ".join(why))
        sys.exit(77)
    unittest.main(verbosity=2)
