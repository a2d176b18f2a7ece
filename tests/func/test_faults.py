#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Faults while traffic flows, on the memif rig:

  dpgen (memif client) ==net_memif==> port0 dpfwd (memif server) ==> routed back to dpgen

- RouteFileBrokenOnHup: the config's route file is replaced with one whose line 2 is
  wrong and dpfwd gets SIGHUP while dpgen sends: the log names routes.txt:2, the route
  counters show one failed reload, the old table stays (every packet comes back, none
  dropped); then a good file and SIGHUP again: its new route is in the table.
- TxStaysFull: a dpgen that never reads, so the ring back to it fills and stays full:
  dpfwd drops what it cannot send as tx_full (counted: rx = tx + drops exactly), answers
  telemetry all along and keeps receiving (no stall); then a dpgen that reads gets every
  one of its packets back from the same dpfwd, and the pool is back at its baseline.

- PeerKilled: dpfwd SIGKILLed while dpgen sends at 1 Mpps and reads what comes back,
  five times: DPDK 22.11's memif unmaps the rings in dpgen's interrupt thread when the
  peer goes, with dpgen's worker perhaps in a burst on them. dpgen is still running
  afterwards, and on SIGINT exits 0 with its JSON, having sent more than it got back.

The other faults of the issue are tests of their own: a pool with no buffer left
(unit/pool_exhausted), an endpoint application killed mid-stream (func/dpsock), a relay
table flooded (unit/relay), a link down and up (netns/netns test_8b_link_down_and_up).
About 15 s. Exit 77 (skipped) when dpfwd or dpgen is not built.
"""
import os
import signal
import tempfile
import time
import unittest
from pathlib import Path

import dprig
from dprig import Dpfwd, Dpgen, memif_dev, wait_until

FWD_MAC = "02:00:00:00:00:10"
GEN_MAC = "02:64:67:00:00:00"

CONFIG = """\
[dpfwd]
mode = forward
main_lcore = 0
node_stats = on

[mempool]
size = auto

[port0]
dev = {dev}
ip4 = 198.18.0.1/24

[lcores]
rx = (0,0,1)

[routes]
file = {routes}

[neighbors]
neigh = 198.18.0.2 lladdr {gen_mac} port 0
"""

ROUTES_GOOD = "198.18.1.0/24 via 198.18.0.2 port 0\n"
ROUTES_BROKEN = ROUTES_GOOD + "198.18.7.0/24 via 198.18.0.2 port nine\n"
ROUTES_MORE = ROUTES_GOOD + "198.18.9.0/24 via 198.18.0.2 port 0\n"


def replace(path: Path, text: str) -> None:
    """As an operator's tool would: write aside, then rename over."""
    tmp = path.with_suffix(".new")
    tmp.write_text(text)
    os.replace(tmp, path)


class Rig:
    def __init__(self, test: unittest.TestCase):
        self.tmp = tempfile.TemporaryDirectory(prefix="dpfwd-test-faults-")
        test.addCleanup(self.tmp.cleanup)
        self.dir = Path(self.tmp.name)
        self.sock = self.dir / "memif.sock"
        self.routes = self.dir / "routes.txt"
        self.routes.write_text(ROUTES_GOOD)
        cfg = self.dir / "faults.ini"
        cfg.write_text(CONFIG.format(dev=memif_dev(0, "server", self.sock, FWD_MAC),
                                     routes=self.routes, gen_mac=GEN_MAC))
        self.fwd = Dpfwd(self.dir, cfg)
        test.addCleanup(self.fwd.cleanup)
        self.fwd.start()
        self.fwd.wait_ready(extra=self.sock.exists)
        self.test = test

    def gen(self, name: str, count: int, rate: str, rx: bool = True,
            hold_s: int = 0) -> Dpgen:
        """hold_s: after its JSON, dpgen keeps its port open that long or until SIGINT."""
        g = Dpgen(self.dir, name, memif_dev(0, "client", self.sock, GEN_MAC),
                  ["--flows", "64", "--dst-mac", FWD_MAC, "--rate", rate, "--count",
                   str(count)] + (["--hold", str(hold_s)] if hold_s else []), rx=rx)
        self.test.addCleanup(g.cleanup)
        return g.start()

    def check_all_back(self, g: Dpgen, count: int) -> None:
        self.test.assertEqual(g.wait(timeout=60), 0, g.log())
        t = g.result()
        seq = t["seq"]
        self.test.assertEqual(seq["sent"], count)
        self.test.assertEqual((seq["received"], seq["lost"], seq["duplicates"]),
                              (count, 0, 0), seq)


class RouteFileBrokenOnHup(unittest.TestCase):
    COUNT = 60000
    RATE = "20kpps"  # 3 s

    def test_old_table_stays_error_names_file_line_then_good_file_loads(self):
        rig = Rig(self)
        fwd = rig.fwd
        base = fwd.totals()
        changes0 = fwd.cmd("/dpfwd/fwd/route_changes")
        g = rig.gen("gen", self.COUNT, self.RATE)
        wait_until(lambda: fwd.totals()["rx"] > base["rx"], 20, "traffic", g.alive)

        replace(rig.routes, ROUTES_BROKEN)
        fwd.p.send_signal(signal.SIGHUP)
        wait_until(lambda: int(fwd.cmd("/dpfwd/fwd/route_changes")["reload_errors"]) ==
                   int(changes0["reload_errors"]) + 1, 10, "the failed reload", fwd.alive)
        self.assertTrue(g.running(), "the reload came after the traffic: make COUNT larger")
        self.assertIn(f"{rig.routes}:2:", fwd.log(20000))
        self.assertIn("the old ones stay", fwd.log(20000))
        ch = fwd.cmd("/dpfwd/fwd/route_changes")
        self.assertEqual(int(ch["reloads"]), int(changes0["reloads"]))
        self.assertEqual(int(ch["ip4_routes"]), int(changes0["ip4_routes"]))

        replace(rig.routes, ROUTES_MORE)
        fwd.p.send_signal(signal.SIGHUP)
        wait_until(lambda: int(fwd.cmd("/dpfwd/fwd/route_changes")["reloads"]) ==
                   int(changes0["reloads"]) + 1, 10, "the good reload", fwd.alive)
        ch = fwd.cmd("/dpfwd/fwd/route_changes")
        self.assertEqual(int(ch["ip4_routes"]), int(changes0["ip4_routes"]) + 1)
        self.assertEqual(int(ch["reload_errors"]), int(changes0["reload_errors"]) + 1)

        rig.check_all_back(g, self.COUNT)
        time.sleep(0.3)
        end = fwd.totals()
        self.assertEqual(end["rx"] - base["rx"], self.COUNT)
        self.assertEqual(end["tx"] - base["tx"], self.COUNT)
        self.assertEqual(end["drops"], base["drops"], end["by_reason"])
        self.assertEqual(fwd.stop(), 0, fwd.log())
        self.assertEqual(fwd.final()["run"]["mbufs_over_baseline"], 0)


class TxStaysFull(unittest.TestCase):
    COUNT = 40000    # > the 16384 slots of the ring back to dpgen: the rest cannot go
    RATE = "20kpps"
    COUNT2 = 20000

    def test_counted_drops_no_stall_then_recovery(self):
        rig = Rig(self)
        fwd = rig.fwd
        base = fwd.totals()
        # --hold: a memif peer that disconnects takes the ring with it, and with it what
        # dpfwd had not read yet; this one stays until dpfwd has read everything
        deaf = rig.gen("deaf", self.COUNT, self.RATE, rx=False, hold_s=60)
        answers = 0
        while not deaf.json.exists():  # written once it has sent all
            self.assertTrue(deaf.running(), deaf.log())
            # dpfwd answers all along: its control lcore is not stuck behind a full queue
            self.assertIsInstance(fwd.cmd("/dpfwd/graph/lcores"), (dict, list))
            answers += 1
            time.sleep(0.1)
        self.assertGreater(answers, 10)
        self.assertEqual(deaf.result()["tx"]["pkts"], self.COUNT)
        wait_until(lambda: fwd.totals()["rx"] - base["rx"] >= self.COUNT, 10,
                   "dpfwd received everything", fwd.alive)
        self.assertEqual(deaf.stop(), 0, deaf.log())
        t = fwd.totals()
        rx, tx = t["rx"] - base["rx"], t["tx"] - base["tx"]
        full = t["by_reason"]["tx_full"] - base["by_reason"]["tx_full"]
        self.assertEqual(rx, self.COUNT)
        # every packet is either sent or counted as tx_full, nothing else
        self.assertEqual(rx, tx + full, t["by_reason"])
        self.assertEqual(t["drops"] - base["drops"], full, t["by_reason"])
        self.assertGreaterEqual(full, self.COUNT - 16384 - 1024, (rx, tx, full))
        self.assertLessEqual(tx, 16384 + 1024)

        # the deaf dpgen is gone: a new one is served in full
        mid = fwd.totals()
        g = rig.gen("hearing", self.COUNT2, self.RATE)
        rig.check_all_back(g, self.COUNT2)
        time.sleep(0.3)
        end = fwd.totals()
        self.assertEqual(end["tx"] - mid["tx"], self.COUNT2)
        self.assertEqual(end["drops"], mid["drops"], end["by_reason"])
        self.assertEqual(fwd.stop(), 0, fwd.log())
        self.assertEqual(fwd.final()["run"]["mbufs_over_baseline"], 0)


class PeerKilled(unittest.TestCase):
    ROUNDS = 5

    def test_dpgen_survives_its_memif_peer_killed_mid_burst(self):
        for r in range(self.ROUNDS):
            with self.subTest(round=r):
                rig = Rig(self)
                fwd = rig.fwd
                g = rig.gen(f"gen{r}", 10**9, "1Mpps")     # until SIGINT
                wait_until(lambda: fwd.totals()["tx"] > 20000, 20, "traffic forwarded",
                           g.alive)
                fwd.p.kill()
                fwd.p.wait(timeout=10)
                time.sleep(0.5)                 # dpgen's interrupt thread saw the socket go
                self.assertTrue(g.running(), g.log())
                self.assertEqual(g.stop(), 0, g.log())
                t = g.result()
                self.assertGreater(t["tx"]["pkts"], 20000, t)
                self.assertGreater(t["tx"]["pkts"], t["rx"]["pkts"], t)


if __name__ == "__main__":
    dprig.skip_unless_built(dprig.DPFWD, dprig.DPGEN)
    unittest.main(verbosity=2)
