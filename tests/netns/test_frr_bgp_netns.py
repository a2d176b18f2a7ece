#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
FRR's BGP drives dpfwd through the Linux control plane (docs/linux-cp.md, "Running
FRR"): zebra and bgpd run in dpfwd's namespace on its mirrors dp0 and dp1 and peer over
eBGP with FRR on hosts A and B, across dpfwd's own ports (the BGP packets are punted to
Linux and injected back). B announces its loopback prefix and 1000 more; they reach
dpfwd's table through the kernel within a bound measured here, carry A's traffic to B's
loopback through dpfwd (not through the namespace's kernel), and leave when withdrawn.
A prefix both hosts announce is an ECMP group of two next hops; A's link going down
leaves it with B's. A prefix of dpfwd's config that A announces stays the config's.
dpfwd killed and started again under the running FRR: its mirrors
come back, the sessions over them, and it has the 1001 prefixes again.

  A 198.18.10.2 AS 65001 -- port0 [dpfwd dp0 dp1, FRR AS 65000] port1 -- B 198.18.20.2
                                                                      AS 65002, lo 198.19.2.1/24

Exit status 77 (meson: skipped) with the reason where network namespaces cannot be made
or FRR is not installed.

  python3 tests/netns/test_frr_bgp_netns.py -v
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import frr  # noqa: E402
import netns  # noqa: E402

LOOP = "198.19.2.0/24"
LOOP_ADDR = "198.19.2.1"
NB_MORE = 1000
MORE = "198.19.128.0/17"  # the 1000 more: /28s from 198.19.128.0
BOTH = "198.19.99.0/24"  # announced by A and B
CONFIG_PFX = "198.19.30.0/24"  # a route of dpfwd's config (netns.Topology), via B
CONVERGE_S = 10.0  # the bound docs/linux-cp.md states for 1001 prefixes
# Later waits for all of them: a burst of 1001 route messages can overrun dpfwd's netlink
# socket, and the resync that follows (a dump, docs/linux-cp.md) takes longer.
AGAIN_S = 20.0


def more_prefixes():
    return [f"198.19.{128 + i // 16}.{(i % 16) * 16}/28" for i in range(NB_MORE)]


def wait_for(what, fn, timeout=10.0, every=0.1, why=None):
    """netns.wait_for() with the longer waits of routing daemons."""
    return netns.wait_for(what, fn, timeout, every, why)


class FrrBgpRigTest(netns.RouterRigTest):
    """dpfwd on netns.DaemonTopology (IPv4), zebra in the three namespaces (frr_dp: dpfwd's, frr_a,
    frr_b), bgpd in dpfwd's and A's (B's is started by the tests, with b_conf);
    zebra_args: more arguments for dpfwd's zebra, bgpd_extra: more lines for dpfwd's
    bgpd under `router bgp`."""
    topology = netns.DaemonTopology
    zebra_args = ()
    bgpd_extra = ()

    @classmethod
    def before_dpfwd(cls):
        cls.topo.b.run("ip", "addr", "add", f"{LOOP_ADDR}/24", "dev", "lo")

    @classmethod
    def after_dpfwd(cls):
        t = cls.topo
        cls.frr_dp = frr.Frr("dpfwd", t.router_ns, t.tmp)
        cls.frr_a = frr.Frr("a", t.a.ns, t.tmp)
        cls.frr_b = frr.Frr("b", t.b.ns, t.tmp)
        cls.r_conf = frr.bgpd_conf(65000, "198.18.10.1", [(t.a.ip4, 65001), (t.b.ip4, 65002)],
                                   extra=cls.bgpd_extra, restart_time=30)
        cls.b_conf = frr.bgpd_conf(65002, t.b.ip4, [(t.ports[1].ip4, 65000)],
                                   [LOOP] + more_prefixes())
        cls.frr_dp.start("zebra", "hostname dpfwd\n", args=cls.zebra_args)
        cls.frr_a.start("zebra", "hostname a\n")
        cls.frr_b.start("zebra", "hostname b\n")
        cls.frr_dp.start("bgpd", cls.r_conf)
        cls.frr_a.start("bgpd", frr.bgpd_conf(65001, t.a.ip4, [(t.ports[0].ip4, 65000)]))

    @staticmethod
    def established(f, peers):
        out = f.vtysh("show bgp summary json", check=False).stdout
        try:
            got = json.loads(out)["ipv4Unicast"]["peers"]
        except (ValueError, KeyError):
            return False
        return all(got.get(p, {}).get("state") == "Established" for p in peers)

    @classmethod
    def linux(cls):
        return cls.dp.snapshot()["linux"]

    @classmethod
    def state(cls, prefix):
        """What each layer in dpfwd's namespace has for @p prefix, for a failure's message."""
        ns = cls.topo.router_ns
        lx = cls.linux()
        return "\n".join([
            "kernel: " + netns.sh("ip", "route", "show", prefix, ns=ns).stdout.strip(),
            "kernel bgp routes: " + str(len(netns.sh("ip", "route", "show", "proto", "bgp",
                                                     ns=ns).stdout.splitlines())),
            "zebra: " + cls.frr_dp.vtysh(f"show ip route {prefix}", check=False).stdout.strip(),
            "bgpd: " + cls.frr_dp.vtysh(f"show bgp ipv4 {prefix}", check=False).stdout.strip(),
            "bgpd peers: " + cls.frr_dp.vtysh("show bgp summary", check=False).stdout.strip(),
            "dpfwd: " + str(cls.route(prefix)),
            "dpfwd linux: " + json.dumps({k: v for k, v in lx.items() if k != "mirrors"})])


class FrrBgpTest(FrrBgpRigTest):
    @classmethod
    def after_dpfwd(cls):
        super().after_dpfwd()
        wait_for("dpfwd's bgpd and A's established",
                 lambda: cls.established(cls.frr_dp, [cls.topo.a.ip4]), timeout=15)

    def test_1_1001_prefixes_reach_dpfwd_within_the_bound(self):
        t = self.topo
        added = self.linux()["routes_added"]
        t0 = time.monotonic()
        self.frr_b.start("bgpd", self.b_conf)
        wait_for("B's session", lambda: self.established(self.frr_dp, [t.b.ip4]), timeout=15)
        up = time.monotonic() - t0
        wait_for(f"{NB_MORE} prefixes in dpfwd",
                 lambda: self.routes_in(MORE)[0] == NB_MORE, timeout=CONVERGE_S, every=0.2)
        took = time.monotonic() - t0
        print(f"\n  B's bgpd started: session up in {up:.2f} s, {NB_MORE + 1} prefixes in "
              f"dpfwd's table in {took:.2f} s", end=" ", flush=True)
        self.assertEqual(self.route(LOOP), f"{LOOP} via {t.b.ip4} port 1")
        self.assertEqual(self.route("198.19.190.112/28"),
                         f"198.19.190.112/28 via {t.b.ip4} port 1")
        lx = self.linux()
        self.assertGreaterEqual(lx["routes_added"] - added, NB_MORE + 1)
        self.assertEqual(lx["route_errors"], 0)
        self.assertLess(took, CONVERGE_S)

    def test_2_traffic_to_bs_loopback_goes_through_dpfwd_not_the_kernel(self):
        t = self.topo
        wait_for("B's loopback in dpfwd", lambda: self.route(LOOP), timeout=AGAIN_S)
        s0, fw0 = self.dp.snapshot(), self.forw_datagrams()
        t.a.run("ping", "-c", "5", "-i", "0.1", "-W", "2", LOOP_ADDR)
        s1, fw1 = self.dp.snapshot(), self.forw_datagrams()
        self.assertGreaterEqual(netns.port_stat(s1, 1, "opackets") -
                                netns.port_stat(s0, 1, "opackets"), 5)
        self.assertGreaterEqual(netns.port_stat(s1, 0, "opackets") -
                                netns.port_stat(s0, 0, "opackets"), 5)
        self.assertEqual(fw1 - fw0, 0, "the namespace's kernel forwarded")

    def test_3_a_withdrawn_prefix_leaves_dpfwd(self):
        t = self.topo
        wait_for("B's loopback in dpfwd", lambda: self.route(LOOP), timeout=AGAIN_S)
        self.frr_b.config("router bgp 65002", "address-family ipv4 unicast", f"no network {LOOP}")
        wait_for("B's loopback gone from dpfwd", lambda: self.route(LOOP) is None)
        self.assertNotEqual(t.a.run("ping", "-c", "1", "-W", "1", LOOP_ADDR,
                                    check=False).returncode, 0)
        self.frr_b.config("router bgp 65002", "address-family ipv4 unicast", f"network {LOOP}")
        wait_for("B's loopback back in dpfwd", lambda: self.route(LOOP))
        t.a.run("ping", "-c", "1", "-W", "2", LOOP_ADDR)

    def test_3_a_shut_neighbor_takes_all_its_prefixes_away(self):
        t = self.topo
        wait_for(f"{NB_MORE} prefixes in dpfwd", lambda: self.routes_in(MORE)[0] == NB_MORE,
                 timeout=AGAIN_S, every=0.2)
        t0 = time.monotonic()
        self.frr_b.config("router bgp 65002", f"neighbor {t.ports[1].ip4} shutdown")
        wait_for("B's prefixes gone from dpfwd",
                 lambda: self.routes_in(MORE)[0] == 0 and self.route(LOOP) is None,
                 timeout=AGAIN_S, every=0.2)
        print(f"\n  B's {NB_MORE + 1} prefixes withdrawn from dpfwd in "
              f"{time.monotonic() - t0:.2f} s", end=" ", flush=True)
        self.frr_b.config("router bgp 65002", f"no neighbor {t.ports[1].ip4} shutdown")
        wait_for(f"{NB_MORE} prefixes back in dpfwd",
                 lambda: self.routes_in(MORE)[0] == NB_MORE, timeout=AGAIN_S, every=0.2)
        self.assertEqual(self.linux()["route_errors"], 0)

    def test_3_config_prefix_announced_by_a_stays_the_configs(self):
        # the topology's config has 198.19.30.0/24 via B: A's announcement of it reaches
        # the kernel, not dpfwd, and its withdrawal leaves the config's route in place
        t = self.topo
        cfg = f"{CONFIG_PFX} via {t.b.ip4} port 1"
        self.assertEqual(self.route(CONFIG_PFX), cfg)
        counted = self.linux()["routes_config"]
        self.frr_a.config("router bgp 65001", "address-family ipv4 unicast",
                          f"network {CONFIG_PFX}")
        wait_for("A's route in the kernel", lambda: f"via {t.a.ip4} dev dp0" in netns.sh(
            "ip", "route", "show", CONFIG_PFX, ns=t.router_ns).stdout)
        wait_for("routes_config counted", lambda: self.linux()["routes_config"] > counted)
        self.assertEqual(self.route(CONFIG_PFX), cfg)
        self.frr_a.config("router bgp 65001", "address-family ipv4 unicast",
                          f"no network {CONFIG_PFX}")
        wait_for("A's route gone from the kernel", lambda: "dp0" not in netns.sh(
            "ip", "route", "show", CONFIG_PFX, ns=t.router_ns).stdout)
        self.assertEqual(self.route(CONFIG_PFX), cfg)

    def test_4_two_peers_one_prefix_is_an_ecmp_group(self):
        t = self.topo
        for f, asn in ((self.frr_a, 65001), (self.frr_b, 65002)):
            f.config(f"router bgp {asn}", "address-family ipv4 unicast", f"network {BOTH}")
        want = [f"via {t.a.ip4} port 0", f"via {t.b.ip4} port 1"]
        line = wait_for("a route of two next hops in dpfwd",
                        lambda: (ln := self.route(BOTH)) and all(w in ln for w in want) and ln)
        out = self.dpctl("route", "list", BOTH)
        self.assertIn("# group", out, out)
        self.assertIn(f"{BOTH} via", line)

    def test_5_a_peers_link_down_converges(self):
        t = self.topo
        want = [f"via {t.a.ip4} port 0", f"via {t.b.ip4} port 1"]
        wait_for("the ECMP route", lambda: (ln := self.route(BOTH)) and all(w in ln for w in want))
        t0 = time.monotonic()
        t.a.run("ip", "link", "set", t.a.ifname, "down")
        try:
            wait_for("only B's next hop left", lambda: self.route(BOTH) == f"{BOTH} via "
                     f"{t.b.ip4} port 1", timeout=8)
            print(f"\n  A's link down: {BOTH} left with B's next hop in "
                  f"{time.monotonic() - t0:.2f} s (hold time 3 s)", end=" ", flush=True)
        finally:
            t.a.run("ip", "link", "set", t.a.ifname, "up")
        wait_for("A's session again", lambda: self.established(self.frr_dp, [t.a.ip4]), timeout=15)
        wait_for("the ECMP route again",
                 lambda: (ln := self.route(BOTH)) and all(w in ln for w in want))

    def test_6_dpfwd_restarted_under_running_frr_catches_up(self):
        t = self.topo
        netns.stop_process(self.dp.proc, netns.signal.SIGKILL)
        netns.undo(self.dp.proc.cleanup)
        t0 = time.monotonic()
        type(self).dp = netns.Dpfwd(t).start().wait_ready()
        wait_for(f"{NB_MORE} prefixes in the new dpfwd",
                 lambda: self.routes_in(MORE)[0] == NB_MORE and self.route(LOOP),
                 timeout=AGAIN_S, every=0.2, why=lambda: self.state(LOOP))
        print(f"\n  dpfwd started again: {NB_MORE + 1} prefixes in its table "
              f"{time.monotonic() - t0:.2f} s later", end=" ", flush=True)
        self.assertGreaterEqual(self.linux()["dumps"], 1)
        t.a.run("ping", "-c", "3", "-i", "0.1", "-W", "2", LOOP_ADDR)


def probe():
    frr.check()


if __name__ == "__main__":
    netns.run_tests("frr_bgp_netns", "__main__",
                    "FRR's BGP in dpfwd's namespace: 1001 prefixes, traffic, withdrawals, "
                    "ECMP, a link down, dpfwd restarted", probe=probe)
