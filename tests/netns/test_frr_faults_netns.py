#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Faults under FRR driving dpfwd (docs/linux-cp.md, "Running FRR"), on the rig of
test_frr_bgp_netns.py (B announces its loopback prefix and 1000 more):

- bgpd killed (SIGKILL): zebra keeps its routes (graceful restart), dpfwd keeps
  forwarding; a prefix B withdraws and one it adds meanwhile are gone and there once
  bgpd is back. zebra drops the stale routes when the new bgpd says its routes are
  complete, and at the latest RIB_STALE_S after bgpd died (`bgp graceful-restart
  rib-stale-time`): now and then FRR 8.4's zebra misses the first, and dpfwd follows
  the kernel either way;
- zebra killed (SIGKILL): the kernel keeps the routes, dpfwd keeps forwarding; then
  zebra and bgpd started again, as watchfrr does (a daemon does not send its routes
  again to a new zebra): zebra -K keeps the routes it finds in the kernel until bgpd
  sent them again, and dpfwd follows what changed meanwhile;
- a route to an interface that is not a mirror (staticd, out of a veth in dpfwd's
  namespace) is not copied and is counted (routes_other_if in /dpfwd/linux/stats).

Exit status 77 (meson: skipped) with the reason where network namespaces cannot be made
or FRR is not installed.

  python3 tests/netns/test_frr_faults_netns.py -v
"""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import frr  # noqa: E402
import netns  # noqa: E402
from test_frr_bgp_netns import (AGAIN_S, LOOP_ADDR, MORE, NB_MORE, Rig,  # noqa: E402
                                wait_for)

GONE = "198.19.190.112/28"  # withdrawn by B while a daemon is down
NEW = "198.19.3.0/24"  # announced by B while a daemon is down
# zebra -K: how long a restarted zebra keeps the routes of its daemons it finds in the
# kernel (bgpd's restart, its sessions and updates take about 3 s here)
ZEBRA_KEEP_S = 8
# how long zebra keeps a dead bgpd's routes that the new bgpd has not sent again
RIB_STALE_S = 10


class FrrFaultsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rig = rig = Rig(zebra_args=("-K", str(ZEBRA_KEEP_S)),
                           bgpd_extra=(f" bgp graceful-restart rib-stale-time {RIB_STALE_S}",))
        t = rig.topo
        try:
            rig.b.start("bgpd", rig.b_conf)
            wait_for(f"{NB_MORE} prefixes in dpfwd", lambda: rig.routes_in(MORE)[0] == NB_MORE,
                     timeout=AGAIN_S, every=0.2)
            wait_for("A's session", lambda: rig.established(rig.r, [t.a.ip4]))
        except BaseException:
            t.down()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.rig.topo.down()

    def ping_through(self, count=10):
        """A pings B's loopback: every reply back, and each request through dpfwd."""
        rig, t = self.rig, self.rig.topo
        s0 = rig.dp.snapshot()
        out = t.a.run("ping", "-c", str(count), "-i", "0.1", "-W", "2", LOOP_ADDR,
                      check=False).stdout
        self.assertIn(f"{count} received", out, out)
        s1 = rig.dp.snapshot()
        self.assertGreaterEqual(netns.port_stat(s1, 1, "opackets") -
                                netns.port_stat(s0, 1, "opackets"), count)

    def b_changes(self, undo=False):
        """B withdraws GONE and announces NEW (@p undo: the other way round)."""
        no_gone, no_new = ("", "no ") if undo else ("no ", "")
        self.rig.b.config("router bgp 65002", "address-family ipv4 unicast",
                          f"{no_gone}network {GONE}", f"{no_new}network {NEW}")

    def reconciled(self):
        rig = self.rig
        wait_for(f"{GONE} gone from dpfwd", lambda: rig.route(GONE) is None, timeout=AGAIN_S,
                 why=lambda: rig.state(GONE))
        wait_for(f"{NEW} in dpfwd", lambda: rig.route(NEW), timeout=AGAIN_S,
                 why=lambda: rig.state(NEW))
        self.assertEqual(rig.routes_in(MORE)[0], NB_MORE - 1)
        self.b_changes(undo=True)
        wait_for(f"{GONE} back in dpfwd", lambda: rig.route(GONE), timeout=AGAIN_S)
        wait_for(f"{NEW} gone from dpfwd", lambda: rig.route(NEW) is None, timeout=AGAIN_S)

    def test_1_bgpd_killed_dpfwd_forwards_then_reconciles(self):
        rig, t = self.rig, self.rig.topo
        rig.r.kill("bgpd")
        self.b_changes()
        self.ping_through()
        self.assertEqual(rig.routes_in(MORE)[0], NB_MORE, "routes lost while bgpd was down")
        self.assertTrue(rig.route(GONE))
        rig.r.start("bgpd")
        wait_for("sessions again", lambda: rig.established(rig.r, [t.a.ip4, t.b.ip4]),
                 timeout=15)
        self.reconciled()
        self.ping_through(3)

    def test_2_zebra_killed_dpfwd_forwards_then_reconciles(self):
        rig = self.rig
        rig.r.kill("zebra")
        self.b_changes()
        self.ping_through()
        self.assertEqual(rig.routes_in(MORE)[0], NB_MORE, "routes lost while zebra was down")
        rig.r.kill("bgpd", netns.signal.SIGTERM)
        rig.r.start("zebra")
        rig.r.start("bgpd")
        self.ping_through()
        self.reconciled()
        self.ping_through(3)

    def test_0_a_route_out_of_another_interface_is_counted_not_copied(self):
        rig, t = self.rig, self.rig.topo
        ns = t.router_ns
        netns.sh("ip", "link", "add", "frrx0", "type", "veth", "peer", "name", "frrx1", ns=ns)
        netns.sh("ip", "link", "set", "frrx0", "up", ns=ns)
        netns.sh("ip", "link", "set", "frrx1", "up", ns=ns)
        netns.sh("ip", "addr", "add", "192.0.2.1/24", "dev", "frrx0", ns=ns)
        other = json.loads(rig.dpctl("raw", "/dpfwd/linux/stats"))
        other = other.get("/dpfwd/linux/stats", other)["routes_other_if"]
        rig.r.start("staticd", "ip route 198.19.60.0/24 192.0.2.2\n")
        wait_for("the static route in the kernel", lambda: "via 192.0.2.2" in netns.sh(
            "ip", "route", "show", "198.19.60.0/24", ns=ns).stdout,
            why=lambda: rig.r.vtysh("show ip route static", "show interface brief").stdout +
            rig.r.output("staticd") + rig.state("198.19.60.0/24"))

        def counted():
            s = json.loads(rig.dpctl("raw", "/dpfwd/linux/stats"))
            return s.get("/dpfwd/linux/stats", s)["routes_other_if"] > other
        wait_for("routes_other_if counted", counted)
        self.assertIsNone(rig.route("198.19.60.0/24"))
        rig.r.kill("staticd", netns.signal.SIGTERM)
        netns.sh("ip", "link", "del", "frrx0", ns=ns)


def probe():
    frr.check()


if __name__ == "__main__":
    netns.run_tests("frr_faults_netns", "__main__",
                    "FRR under faults: bgpd and zebra killed and started again; a route "
                    "out of another interface", probe=probe)
