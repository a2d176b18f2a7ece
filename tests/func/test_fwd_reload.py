#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Routes reloaded while traffic flows lose no packet: traffic is sent through
reloads and every packet is counted.

  dpgen (memif client) ==net_memif==> port0 dpfwd (memif server, configs/bench/fwd-memif.ini)
        <=========================== routed back: 198.18.1.0/24, 198.18.2.0/24 via dpgen

dpgen sends a known number of stamped packets (--count, 64 flows to 198.18.1.1) at a
fixed rate; meanwhile the test asks dpfwd over its telemetry socket for
/dpfwd/route/reload (the config's routes, read again: a new table, swapped under RCU)
again and again, and once for a route file that adds 198.18.1.1/32 (so every packet's
lookup lands on another entry, same neighbor) and then for the config again.  Then:

- dpgen got every packet back: received = sent = COUNT, lost, reordered, duplicates and
  foreign all 0 (each packet's sequence number and stamp checked by dpgen);
- dpfwd's own counters over the same stretch: rx = COUNT = tx, and no drop of any
  reason: rx == tx + drops with drops = 0;
- the reloads all happened during the traffic and none failed (route_changes);
- dpfwd exits 0 with no mbuf leaked.

The memif rings are made 16384 slots (rsize=14) on both sides so that a moment in which
dpgen's lcore is descheduled on this 2-CPU machine cannot fill the ring back to it.
About 10 s.  Exit 77 (skipped) when dpfwd or dpgen is not built.
"""
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
DPFWD = Path(os.environ.get("DPFWD_BIN", BUILD / "apps" / "dpfwd" / "dpfwd"))
DPGEN = Path(os.environ.get("DPGEN_BIN", BUILD / "apps" / "dpgen" / "dpgen"))
sys.path.insert(0, str(REPO / "apps" / "dpbench"))
import dpbench  # noqa: E402  (its telemetry socket client and runtime-dir logic)

FWD_MAC = "02:00:00:00:00:10"
GEN_MAC = "02:64:67:00:00:00"
COUNT = 60000
RATE = "20kpps"              # 3 s of traffic
MIN_RELOADS = 10


class TestReloadUnderTraffic(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = Path(tempfile.mkdtemp(prefix="dpfr-"))
        cls.prefix = f"dpfr{os.getpid()}"
        cls.sock = cls.dir / "memif.sock"
        cls.tel_json = cls.dir / "telemetry.json"
        cls.gen_json = cls.dir / "gen.json"
        cls.routes = cls.dir / "more-routes.ini"
        # the config's two routes, and a /32 for dpgen's destination 198.18.1.1 inside
        # the first: its lookups move to another entry of the new table (the same next
        # hop, so every packet still goes back to dpgen), and back with the next reload
        # (a reload reads a whole config: the rig's, with one more route)
        cfg = (REPO / "configs/bench/fwd-memif.ini").read_text()
        last = "route = 198.18.2.0/24 via 198.18.0.2 port 0\n"
        assert last in cfg, "configs/bench/fwd-memif.ini changed its routes"
        cls.routes.write_text(cfg.replace(last, last + "route = 198.18.1.1/32 via 198.18.0.2 "
                                                       "port 0\n"))
        cls.fwd_log = open(cls.dir / "dpfwd.log", "w")
        cls.fwd = subprocess.Popen(
            [str(DPFWD), "--file-prefix", cls.prefix, "--no-pci", "--no-huge", "-m", "512", "--",
             "-c", str(REPO / "configs/bench/fwd-memif.ini"), "-j", str(cls.tel_json),
             "-i", "100", "--set",
             f"port0.dev=net_memif0,role=server,id=0,socket={cls.sock},socket-abstract=no,"
             f"mac={FWD_MAC},rsize=14"],
            stdout=cls.fwd_log, stderr=subprocess.STDOUT)
        cls.gen = None
        cls.results = None
        cls.error = None
        try:
            cls.results = cls.drive()
        except Exception as e:          # reported by the tests, after cleanup is sure
            cls.error = e

    @classmethod
    def drive(cls) -> dict:
        rt = dpbench.dpdk_runtime_dir() / cls.prefix / "dpdk_telemetry.v2"
        deadline = time.monotonic() + 30
        while not (cls.sock.exists() and rt.exists() and cls.tel_json.exists()):
            if cls.fwd.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"dpfwd did not start ({cls.fwd.poll()}): {cls.log()}")
            time.sleep(0.05)
        tel = dpbench.Telemetry(rt, timeout=30)
        try:
            before = tel.cmd("/dpfwd/graph/drops")
            gen_log = open(cls.dir / "dpgen.log", "w")
            cls.gen = subprocess.Popen(
                [str(DPGEN), "--lcores", "0@0,1@0", "--file-prefix", cls.prefix + "-gen",
                 "--no-pci", "--no-huge", "-m", "512", "--vdev",
                 f"net_memif0,role=client,id=0,socket={cls.sock},socket-abstract=no,"
                 f"mac={GEN_MAC},rsize=14",
                 "--", "--tx-port", "0", "--rx-port", "0", "--flows", "64",
                 "--src-mac", GEN_MAC, "--dst-mac", FWD_MAC,
                 "--rate", RATE, "--count", str(COUNT), "--quiet", "--json", str(cls.gen_json)],
                stdout=gen_log, stderr=subprocess.STDOUT)
            gen_log.close()
            # the traffic has begun: dpfwd's worker receives
            deadline = time.monotonic() + 20
            while cls.rx(tel) == 0:
                if cls.gen.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"no traffic reached dpfwd: {cls.gen.poll()}")
                time.sleep(0.01)
            reloads, during = [], 0
            while cls.gen.poll() is None:
                if len(reloads) == 3:
                    param = str(cls.routes)
                else:
                    param = ""
                t0 = time.monotonic()
                r = tel.cmd("/dpfwd/route/reload" + ("," + param if param else ""))
                reloads.append((param, r, time.monotonic() - t0))
                if cls.gen.poll() is None:
                    during += 1
                time.sleep(0.1)
            cls.gen.wait()
            time.sleep(0.3)
            after = tel.cmd("/dpfwd/graph/drops")
            changes = tel.cmd("/dpfwd/fwd/route_changes")
            lcores = tel.cmd("/dpfwd/graph/lcores")
        finally:
            tel.close()
        return {"reloads": reloads, "during": during, "drops_before": before,
                "drops_after": after, "changes": changes, "lcores": lcores}

    @classmethod
    def rx(cls, tel) -> int:
        lc = tel.cmd("/dpfwd/graph/lcores")
        return sum(int(x["rx_pkts"]) for x in cls.as_list(lc))

    @staticmethod
    def as_list(v):
        """rte_telemetry maps a JSON array of objects to a dict of index -> object, each
        object nested deeper as its JSON text (see telemetry.c)."""
        if isinstance(v, dict):
            v = [v[k] for k in sorted(v, key=lambda k: int(k) if str(k).isdigit() else 0)]
        return [json.loads(x) if isinstance(x, str) else x for x in v]

    @classmethod
    def log(cls) -> str:
        cls.fwd_log.flush()
        return (cls.dir / "dpfwd.log").read_text(errors="replace")[-3000:]

    @classmethod
    def tearDownClass(cls):
        for p in (cls.gen, cls.fwd):
            if p is not None and p.poll() is None:
                p.send_signal(signal.SIGINT)
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        cls.fwd_log.close()
        for pfx in (cls.prefix, cls.prefix + "-gen"):
            shutil.rmtree(dpbench.dpdk_runtime_dir() / pfx, ignore_errors=True)
        if os.environ.get("DPFR_KEEP"):
            print(f"kept {cls.dir}", file=sys.stderr)
        else:
            shutil.rmtree(cls.dir, ignore_errors=True)

    def setUp(self):
        if self.error is not None:
            self.fail(f"{self.error!r}\n{self.log()}")

    def test_dpgen_got_every_packet_back(self):
        self.assertEqual(self.gen.returncode, 0)
        j = json.loads(self.gen_json.read_text())["total"]
        seq = j["seq"]
        self.assertEqual(seq["sent"], COUNT)
        self.assertEqual(j["tx"]["pkts"], COUNT)
        self.assertEqual((seq["received"], seq["lost"], seq["reordered"], seq["duplicates"],
                          seq["late"]), (COUNT, 0, 0, 0, 0), seq)
        self.assertEqual(j["rx"]["pkts"], COUNT)
        self.assertEqual(j["rx"]["foreign"] + j["rx"]["unstamped"], 0)

    def test_reloads_happened_during_traffic_and_none_failed(self):
        r = self.results
        self.assertGreaterEqual(r["during"], MIN_RELOADS, r["reloads"])
        for param, reply, _ in r["reloads"]:
            self.assertIsInstance(reply, dict, (param, reply))
            self.assertEqual(reply.get("ok"), 1, (param, reply))
            self.assertEqual(int(reply["ip4_routes"]), 3 + 2 if param else 2 + 2,
                             (param, reply))   # + the ports' own /32 and connected route
        self.assertEqual(int(r["changes"]["reloads"]), len(r["reloads"]))
        self.assertEqual(int(r["changes"]["reload_errors"]), 0)

    def test_dpfwd_counted_every_packet_no_drop(self):
        r = self.results
        before = r["drops_before"]
        after = r["drops_after"]
        self.assertEqual(int(after["total"]), int(before["total"]),
                         (before, after))
        lc = self.as_list(r["lcores"])
        rx = sum(int(x["rx_pkts"]) for x in lc)
        tx = sum(int(x["tx_pkts"]) for x in lc)
        # (dpfwd's own gratuitous ARP at start, before dpgen was there, was a port_down
        # drop before "drops_before"); since then: rx == tx + 0 drops == COUNT
        self.assertEqual(rx, COUNT)
        self.assertEqual(tx, COUNT)

    def test_dpfwd_exits_0(self):
        self.fwd.send_signal(signal.SIGINT)
        self.assertEqual(self.fwd.wait(timeout=30), 0, self.log())
        final = json.loads(self.tel_json.read_text())
        self.assertEqual(final["run"]["mbufs_over_baseline"], 0)
        self.assertNotIn("leaked", self.log())


if __name__ == "__main__":
    why = [f"{f} not built" for f in (DPFWD, DPGEN) if not f.exists()]
    if why:
        print("SKIP: " + "; ".join(why))
        sys.exit(77)
    unittest.main(verbosity=2)
