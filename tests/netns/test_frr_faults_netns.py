#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Faults under FRR driving dpfwd (docs/linux-cp.md, "Running FRR"), on the rig of
test_frr_bgp_netns.py (B announces its loopback prefix and 1000 more):

- bgpd killed (SIGKILL): zebra keeps its routes (graceful restart), dpfwd keeps
  forwarding; a prefix B announces meanwhile is there once bgpd is back, and one B
  withdraws then is gone. (B withdraws after bgpd is back: a prefix withdrawn while bgpd
  is down goes only when zebra sweeps the routes the new bgpd did not send again, and
  FRR 8.4's zebra now and then never does, which dpfwd, following the kernel, follows.)
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import frr  # noqa: E402
import netns  # noqa: E402
from test_frr_bgp_netns import (LOOP_ADDR, MORE, NB_MORE,  # noqa: E402
                                FrrBgpRigTest, wait_for)

GONE = "198.19.190.112/28"  # withdrawn by B while a daemon is down
NEW = "198.19.3.0/24"  # announced by B while a daemon is down
# zebra -K: how long a restarted zebra keeps the routes of its daemons it finds in the
# kernel. Longer than bgpd's restart, its sessions and updates take on a loaded machine
# (about 3 s on a quiet one): the kernel's routes stay until bgpd sent them again, and
# only the ones it did not send go at the end.
ZEBRA_KEEP_S = 30
# how long zebra keeps a dead bgpd's routes that the new bgpd has not sent again: longer
# than the checks made while bgpd is down take on a loaded machine
RIB_STALE_S = 30
# the bound of each wait for the daemons and dpfwd; a wait ends once its condition holds
SETTLE_S = 60


class FrrFaultsTest(FrrBgpRigTest):
    zebra_args = ("-K", str(ZEBRA_KEEP_S))
    bgpd_extra = (f" bgp graceful-restart rib-stale-time {RIB_STALE_S}",)

    @classmethod
    def after_dpfwd(cls):
        super().after_dpfwd()
        cls.frr_b.start("bgpd", cls.b_conf)
        wait_for(f"{NB_MORE} prefixes in dpfwd", lambda: cls.routes_in(MORE)[0] == NB_MORE,
                 timeout=SETTLE_S, every=0.2)
        wait_for("A's session", lambda: cls.established(cls.frr_dp, [cls.topo.a.ip4]),
                 timeout=SETTLE_S)

    def ping_through(self, count=10):
        """A pings B's loopback: every reply back (late ones too, on a loaded machine), and
        each request through dpfwd."""
        t = self.topo
        s0 = self.dp.snapshot()
        out = t.a.run("ping", "-c", str(count), "-i", "0.1", "-W", "10", LOOP_ADDR,
                      check=False).stdout
        self.assertIn(f"{count} received", out, out)
        s1 = self.dp.snapshot()
        self.assertGreaterEqual(netns.port_stat(s1, 1, "opackets") -
                                netns.port_stat(s0, 1, "opackets"), count)

    def b_changes(self, undo=False):
        """B withdraws GONE and announces NEW (@p undo: the other way round)."""
        no_gone, no_new = ("", "no ") if undo else ("no ", "")
        self.frr_b.config("router bgp 65002", "address-family ipv4 unicast",
                          f"{no_gone}network {GONE}", f"{no_new}network {NEW}")

    def setUp(self):
        """B announces GONE and not NEW (again, after a test that failed half-way)."""
        self.frr_b.vtysh("configure terminal", "router bgp 65002", "address-family ipv4 unicast",
                         f"network {GONE}", f"no network {NEW}", check=False)
        wait_for(f"{GONE} in dpfwd, {NEW} not", lambda: self.route(GONE) and
                 self.route(NEW) is None, timeout=SETTLE_S)

    def reconciled(self):
        """dpfwd has what B announces now: GONE went (at the latest when zebra drops what
        the new daemon did not send again), NEW came, the others stayed; then B's changes
        undone reach dpfwd too."""
        wait_for(f"{GONE} gone from dpfwd", lambda: self.route(GONE) is None,
                 timeout=max(ZEBRA_KEEP_S, RIB_STALE_S) + SETTLE_S, why=lambda: self.state(GONE))
        self.new_came()
        wait_for(f"{NB_MORE - 1} of B's prefixes in dpfwd",
                 lambda: self.routes_in(MORE)[0] == NB_MORE - 1, timeout=SETTLE_S, every=0.2,
                 why=lambda: f"{self.routes_in(MORE)[0]} in dpfwd\n" + self.state(GONE))
        self.undo()

    def new_came(self):
        wait_for(f"{NEW} in dpfwd", lambda: self.route(NEW), timeout=SETTLE_S,
                 why=lambda: self.state(NEW))

    def undo(self):
        self.b_changes(undo=True)
        wait_for(f"{GONE} back in dpfwd", lambda: self.route(GONE), timeout=SETTLE_S)
        wait_for(f"{NEW} gone from dpfwd", lambda: self.route(NEW) is None, timeout=SETTLE_S)

    def test_1_bgpd_killed_dpfwd_forwards_then_reconciles(self):
        t = self.topo
        self.frr_dp.kill("bgpd")
        self.frr_b.config("router bgp 65002", "address-family ipv4 unicast", f"network {NEW}")
        self.ping_through()
        self.assertEqual(self.routes_in(MORE)[0], NB_MORE, "routes lost while bgpd was down")
        self.frr_dp.start("bgpd")
        wait_for("sessions again", lambda: self.established(self.frr_dp, [t.a.ip4, t.b.ip4]),
                 timeout=SETTLE_S)
        self.new_came()
        self.assertEqual(self.routes_in(MORE)[0], NB_MORE, "routes lost when bgpd came back")
        self.frr_b.config("router bgp 65002", "address-family ipv4 unicast", f"no network {GONE}")
        wait_for(f"{GONE} gone from dpfwd", lambda: self.route(GONE) is None,
                 timeout=SETTLE_S, why=lambda: self.state(GONE))
        self.undo()
        self.ping_through(3)

    def test_2_zebra_killed_dpfwd_forwards_then_reconciles(self):
        self.frr_dp.kill("zebra")
        self.b_changes()
        self.ping_through()
        self.assertEqual(self.routes_in(MORE)[0], NB_MORE, "routes lost while zebra was down")
        self.frr_dp.kill("bgpd", netns.signal.SIGTERM)
        self.frr_dp.start("zebra")
        self.frr_dp.start("bgpd")
        self.ping_through()
        self.reconciled()
        self.ping_through(3)

    def test_0_a_route_out_of_another_interface_is_counted_not_copied(self):
        t = self.topo
        ns = t.router_ns
        netns.sh("ip", "link", "add", "frrx0", "type", "veth", "peer", "name", "frrx1", ns=ns)
        netns.sh("ip", "link", "set", "frrx0", "up", ns=ns)
        netns.sh("ip", "link", "set", "frrx1", "up", ns=ns)
        netns.sh("ip", "addr", "add", "192.0.2.1/24", "dev", "frrx0", ns=ns)
        other = json.loads(self.dpctl("raw", "/dpfwd/linux/stats"))
        other = other.get("/dpfwd/linux/stats", other)["routes_other_if"]
        self.frr_dp.start("staticd", "ip route 198.19.60.0/24 192.0.2.2\n")
        wait_for("the static route in the kernel", lambda: "via 192.0.2.2" in netns.sh(
            "ip", "route", "show", "198.19.60.0/24", ns=ns).stdout, timeout=SETTLE_S,
            why=lambda: self.frr_dp.vtysh("show ip route static", "show interface brief").stdout +
            self.frr_dp.output("staticd") + self.state("198.19.60.0/24"))

        def counted():
            s = json.loads(self.dpctl("raw", "/dpfwd/linux/stats"))
            return s.get("/dpfwd/linux/stats", s)["routes_other_if"] > other
        wait_for("routes_other_if counted", counted, timeout=SETTLE_S)
        self.assertIsNone(self.route("198.19.60.0/24"))
        self.frr_dp.kill("staticd", netns.signal.SIGTERM)
        netns.sh("ip", "link", "del", "frrx0", ns=ns)


def probe():
    frr.check()


if __name__ == "__main__":
    netns.run_tests("frr_faults_netns", "__main__",
                    "FRR under faults: bgpd and zebra killed and started again; a route "
                    "out of another interface", probe=probe)
