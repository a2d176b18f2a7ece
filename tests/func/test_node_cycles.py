#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
The node table tells where the cycles go (telemetry JSON, `nodes` of the lcore), on the
pcap rigs of the benchmarks (net_pcap infinite_rx -> net_null, one worker):

- forwarding (configs/bench/fwd-2000flows-64b.ini): ip4_fwd's row is the lookup and the
  rewrite, and the TX bursts it sends count as the output ports' port_tx rows: the
  port_tx rows carry cycles and the packets forwarded, less what the drain timer sent
  (at most 5 %);
- relay (configs/bench/relay-2000sessions-64b.ini): the relay's fast match inside ip4_fwd
  counts as relay4_shortcut's row, with the packets it relayed;
- in both, with every walk timed (node_stats_sample = 1), the nodes' cycles per received
  packet, and the cycles of node calls that moved nothing (timed_empty_call_cycles: a
  source node's empty poll), sum to the lcore's busy cycles per received packet within
  5 % (what the walk spends outside nodes: the loop itself).

Each rig runs 3 s. About 10 s.
"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

SRC = Path(os.environ.get("DPFWD_SRC", Path(__file__).resolve().parents[2]))
BUILD = Path(os.environ.get("DPFWD_BUILD", SRC / "build"))
BIN = Path(os.environ.get("DPFWD_BIN", BUILD / "apps" / "dpfwd" / "dpfwd"))
RUN_S = 3


def run_rig(config):
    prefix = "nodecyc%d" % os.getpid()
    with tempfile.TemporaryDirectory(prefix="dpfwd-nodecyc-") as d:
        out = Path(d) / "t.json"
        env = dict(os.environ, DPFWD_BUILD=str(BUILD))
        try:
            p = run_dpfwd(config, prefix, out, env)
        finally:
            # EAL's runtime folder (the telemetry socket) outlives --in-memory
            shutil.rmtree(Path("/var/run/dpdk") / prefix, ignore_errors=True)
        if p.returncode != 0:
            raise AssertionError("dpfwd exited %d:\n%s" % (p.returncode, p.stderr[-3000:]))
        j = json.loads(out.read_text())
    workers = [lc for lc in j["lcores"] if lc.get("role") == "worker"]
    if len(workers) != 1:
        raise AssertionError("expected one worker lcore, got %d" % len(workers))
    return workers[0]


def run_dpfwd(config, prefix, out, env):
    return subprocess.run(
        [str(BIN), "--no-pci", "--in-memory", "--file-prefix", prefix,
         "--", "-c", str(SRC / "configs" / "bench" / config), "--duration", str(RUN_S),
         "--telemetry-json", str(out),
         # every walk timed: the sum is then exact but for the loop's own work,
         # not an estimate from sampled walks, which a preempted VM spreads
         "--set", "dpfwd.node_stats_sample=1"],
        env=env, capture_output=True, text=True, timeout=120)


class NodeCycles(unittest.TestCase):
    def check_sum(self, lc):
        nodes = lc["nodes"]
        rx_timed = nodes["port_rx"]["timed_pkts"]
        self.assertGreater(rx_timed, 1000)
        # the rows, and the source nodes' empty polls, which no row counts
        total = (sum(v["timed_cycles"] for v in nodes.values()) +
                 lc["timed_empty_call_cycles"]) / rx_timed
        busy = lc["busy_cycles"] / lc["rx_pkts"]
        self.assertLess(abs(total - busy) / busy, 0.05,
                        "nodes %.1f vs busy %.1f cycles/packet" % (total, busy))
        return nodes

    def test_forwarding_splits_lookup_from_tx(self):
        lc = run_rig("fwd-2000flows-64b.ini")
        nodes = self.check_sum(lc)
        fwd = nodes["ip4_fwd"]
        tx = [v for k, v in nodes.items() if k.startswith("port_tx-") and v["pkts"] > 0]
        self.assertGreaterEqual(len(tx), 1)
        tx_pkts = sum(v["pkts"] for v in tx)
        tx_cycles = sum(v["timed_cycles"] for v in tx)
        self.assertEqual(fwd["pkts"], lc["rx_pkts"])
        # everything forwarded left through ip4_fwd's TX buffers, counted at port_tx,
        # but for the drain timer's flushes (outside any node, every tx_drain_us: a few
        # percent of the bursts in a slow build, ASan's)
        self.assertLessEqual(tx_pkts, lc["tx_pkts"])
        self.assertGreater(tx_pkts, 0.95 * lc["tx_pkts"])
        self.assertGreater(tx_cycles, 0)
        self.assertGreater(fwd["timed_cycles"], 0)
        # the TX cycles are no longer in ip4_fwd's: per timed packet, its row and
        # port_tx's together are what ip4_fwd alone would show with TX fused in
        self.assertLess(fwd["cycles_per_pkt"],
                        (fwd["timed_cycles"] + tx_cycles) / fwd["timed_pkts"])

    def test_relay_fast_match_has_its_own_row(self):
        lc = run_rig("relay-2000sessions-64b.ini")
        nodes = self.check_sum(lc)
        sc = nodes["relay4_shortcut"]
        # the steady state: nearly every packet relayed by the fast match
        self.assertGreater(sc["pkts"], 0.9 * lc["rx_pkts"])
        self.assertGreater(sc["timed_cycles"], 0)
        self.assertLess(nodes["relay4"]["pkts"], 0.1 * lc["rx_pkts"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
