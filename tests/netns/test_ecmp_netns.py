#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
ECMP between real Linux hosts: dpfwd routes 198.19.40.0/24 through two gateways, B
(port 1, weight 1) and C (port 2, weight 3), which both hold 198.19.40.1 on their lo.
Host A sends many UDP flows (one source port each) to 198.19.40.1; each flow must arrive
whole at one of B and C, and the flows must split about 1:3.

  A 198.18.10.2 -- port0 [dpfwd] port1 -- B 198.18.20.2 (lo 198.19.40.1)
                               port2 -- C 198.18.30.2 (lo 198.19.40.1)

Exit status 77 (meson: skipped) with the reason where network namespaces cannot be made.

  python3 tests/netns/test_ecmp_netns.py -v
"""
import json
import os
import select
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netns  # noqa: E402

TRAFFIC = os.path.join(netns.HERE, "traffic.py")
DST = "198.19.40.1"
PORT = 7100
ROUTE = "route = 198.19.40.0/24 via 198.18.20.2 port 1 weight 1 via 198.18.30.2 port 2 weight 3"


class EcmpTopology(netns.Topology):
    """netns.Topology with a third host, C, behind port 2; B and C share DST on lo."""

    def __init__(self):
        super().__init__(static_neighbors=True, ip6=False, nb_hosts=2, host_ip6=False)
        self.c = netns.Host("c", self.tag + "-c", "02:00:00:1e:00:02", "198.18.30.2",
                            "198.18.30.1", "2001:db8:30::2", "2001:db8:30::1")
        self.b.extra4 = [DST]
        self.c.extra4 = [DST]
        self.ports.append(netns.RouterPort(2, self.tag + "c", "02:00:00:1e:00:01",
                                           "198.18.30.1", 24, "2001:db8:30::1"))

    def hosts(self):
        return (self.a, self.b, self.c)

    def dpfwd_config(self, driver="net_af_packet", extra=""):
        text = super().dpfwd_config(driver, extra)
        return text.replace("[routes]\n", f"[routes]\n{ROUTE}\n", 1)


def readline(proc, timeout):
    r, _, _ = select.select([proc.stdout], [], [], timeout)
    line = proc.stdout.readline().decode() if r else ""
    if not line:
        raise AssertionError(f"no line from pid {proc.pid} within {timeout} s")
    return line


class EcmpTest(netns.RigTest):
    @classmethod
    def topology(cls):
        return EcmpTopology()

    def sink(self, host):
        out = os.path.join(self.topo.tmp, f"sink-{host.name}.out")
        with open(out, "w") as f:
            proc = host.spawn(sys.executable, TRAFFIC, "udp-flow-sink", DST, PORT, stdout=f)
        self.addCleanup(lambda: (netns.stop_process(proc), netns.undo(proc.cleanup)))
        deadline = time.monotonic() + 10
        while "listening" not in netns.read_text(out):
            self.assertTrue(proc.poll() is None and time.monotonic() < deadline,
                            f"sink on {host.name} did not start")
            time.sleep(0.05)
        return proc, out

    def test_1_flows_split_by_weight_each_whole_on_one_gateway(self):
        nflows, count = 800, 4
        a = self.topo.a
        sinks = {h.name: self.sink(h) for h in (self.topo.b, self.topo.c)}
        sender = a.spawn(sys.executable, TRAFFIC, "udp-flow-sender", DST, PORT, nflows,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.addCleanup(lambda: (netns.stop_process(sender), netns.undo(sender.cleanup)))
        sports = json.loads(readline(sender, 20))
        for f in range(nflows):
            sender.stdin.write(f"{f} {count} 64\n".encode())
            sender.stdin.flush()
            self.assertEqual(readline(sender, 10).split(), ["sent", str(f)])
        time.sleep(1.0)
        got = {}
        for name, (proc, out) in sinks.items():
            netns.stop_process(proc)
            got[name] = json.loads(netns.read_text(out).splitlines()[-1])
        per = {"b": 0, "c": 0}
        for f, sport in enumerate(sports):
            key = f"{a.ip4}:{sport}"
            at = {n: g.get(key, []) for n, g in got.items()}
            where = [n for n, seen in at.items() if seen]
            self.assertEqual(len(where), 1, f"flow {f} (port {sport}) at {where}")
            self.assertEqual(at[where[0]], [[f, i, 64] for i in range(count)],
                             f"flow {f}: lost or reordered at {where[0]}")
            per[where[0]] += 1
        share_c = per["c"] / nflows
        sys.stderr.write(f"\n  {nflows} flows: B (weight 1) {per['b']}, C (weight 3) "
                         f"{per['c']} ")
        self.assertTrue(0.70 <= share_c <= 0.80, f"C's share {share_c:.3f}, weight 3 of 4")

    def test_9_stop_clean(self):
        rc = self.dp.stop()
        snap = self.dp.read_json()
        self.assertEqual((rc, snap["run"]["mbufs_over_baseline"]), (0, 0), self.dp.output())


def main():
    netns.run_tests("ecmp_netns", __name__,
                    f"dpfwd {netns.DPFWD_BIN}: ECMP over two gateways in namespaces")


if __name__ == "__main__":
    main()
