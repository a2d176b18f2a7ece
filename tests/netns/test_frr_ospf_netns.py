#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
FRR's OSPF drives dpfwd through the Linux control plane (docs/linux-cp.md, "Running
FRR"): ospfd (OSPFv2) and ospf6d (OSPFv3) run in dpfwd's namespace on its mirrors dp0
and dp1 and on hosts A and B. Their hellos go to 224.0.0.5 and ff02::5 in multicast
frames, which dpfwd hands to Linux; the adjacencies over dpfwd's ports come up, each
side learns the other's loopback addresses, and traffic between the loopbacks goes
through dpfwd's table (not the namespace's kernel), over IPv4 and IPv6.

  A 198.18.10.2 lo 198.19.10.1, 2001:db8:a::1 -- port0 [dpfwd dp0 dp1, FRR] port1 --
                                        B 198.18.20.2 lo 198.19.20.1, 2001:db8:b::1

Exit status 77 (meson: skipped) with the reason where network namespaces cannot be made
or FRR is not installed.

  python3 tests/netns/test_frr_ospf_netns.py -v
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import frr  # noqa: E402
import netns  # noqa: E402
from test_frr_bgp_netns import wait_for  # noqa: E402

LOOP4 = {"a": "198.19.10.1", "b": "198.19.20.1"}
LOOP6 = {"a": "2001:db8:a::1", "b": "2001:db8:b::1"}
ADJ_S = 15.0  # adjacencies Full (hello 1 s, dead 3 s; IPv6 link-local addresses first)


def ospfd_conf(router_id, ifaces, networks):
    """ospfd: point-to-point interfaces (no DR election to wait for), hello 1 s, dead 3 s,
    SPF at once; @p networks in area 0."""
    lines = []
    for i in ifaces:
        lines += [f"interface {i}", " ip ospf network point-to-point",
                  " ip ospf hello-interval 1", " ip ospf dead-interval 3", "exit"]
    lines += ["router ospf", f" ospf router-id {router_id}", " timers throttle spf 0 50 500"]
    lines += [f" network {n} area 0" for n in networks]
    return "\n".join(lines + ["exit", ""])


def ospf6d_conf(router_id, ifaces, passive=()):
    """ospf6d: the same timers; @p ifaces and @p passive (loopbacks) in area 0."""
    lines = []
    for i in ifaces:
        lines += [f"interface {i}", " ipv6 ospf6 area 0.0.0.0",
                  " ipv6 ospf6 network point-to-point", " ipv6 ospf6 hello-interval 1",
                  " ipv6 ospf6 dead-interval 3", "exit"]
    for i in passive:
        lines += [f"interface {i}", " ipv6 ospf6 area 0.0.0.0", " ipv6 ospf6 passive", "exit"]
    lines += ["router ospf6", f" ospf6 router-id {router_id}", " timers throttle spf 0 50 500"]
    return "\n".join(lines + ["exit", ""])


class OspfTopology(netns.Topology):
    def __init__(self):
        super().__init__(static_neighbors=True, ip6=True, nb_hosts=2, host_ip6=True)
        self.b.extra4 = []

    def dpfwd_config(self, driver="net_af_packet", extra=""):
        return super().dpfwd_config(driver, extra) + netns.LINUX_SECTION


class FrrOspfTest(netns.RigTest):
    topology = OspfTopology

    @classmethod
    def before_dpfwd(cls):
        for h in (cls.topo.a, cls.topo.b):
            h.run("ip", "addr", "add", f"{LOOP4[h.name]}/32", "dev", "lo")
            h.run("ip", "-6", "addr", "add", f"{LOOP6[h.name]}/128", "dev", "lo")

    @classmethod
    def after_dpfwd(cls):
        t = cls.topo
        cls.t0 = time.monotonic()
        cls.frr_dp = frr.Frr("dpfwd", t.router_ns, t.tmp)
        cls.frr_dp.start("zebra", "hostname dpfwd\n")
        cls.frr_dp.start("ospfd", ospfd_conf("198.18.10.1", ["dp0", "dp1"],
                                             ["198.18.10.0/24", "198.18.20.0/24"]))
        cls.frr_dp.start("ospf6d", ospf6d_conf("198.18.10.1", ["dp0", "dp1"]))
        cls.hosts = {}
        for h in (t.a, t.b):
            f = frr.Frr(h.name, h.ns, t.tmp)
            f.start("zebra", f"hostname {h.name}\n")
            f.start("ospfd", ospfd_conf(h.ip4, [h.ifname],
                                        [f"{h.ip4}/24", f"{LOOP4[h.name]}/32"]))
            f.start("ospf6d", ospf6d_conf(h.ip4, [h.ifname], passive=["lo"]))
            cls.hosts[h.name] = f

    def route(self, prefix):
        reply = json.loads(self.dpctl("--json", "route", "list", prefix))
        return next((ln for ln in reply.get("routes") or [] if ln.split()[0] == prefix), None)

    def full(self, cmd, key):
        """The neighbors of dpfwd's ospfd (ospf6d) that are Full, by router id."""
        out = self.frr_dp.vtysh(cmd, check=False).stdout
        try:
            nbrs = json.loads(out)[key]
        except (ValueError, KeyError):
            return set()
        if isinstance(nbrs, dict):  # ospfd: router id -> [one entry an interface]
            return {rid for rid, e in nbrs.items()
                    if any(x.get("nbrState", "").startswith("Full") for x in e)}
        return {n["neighborId"] for n in nbrs if n.get("state") == "Full"}

    def snmp(self, path, key):
        """A counter of /proc/net/snmp (Ip:) or snmp6 in dpfwd's namespace."""
        text = self.r("cat", path).stdout
        if path.endswith("snmp6"):
            return int(next(ln.split()[1] for ln in text.splitlines()
                            if ln.split()[0] == key))
        rows = [ln.split() for ln in text.splitlines() if ln.startswith("Ip:")]
        return int(rows[1][rows[0].index(key)])

    def test_1_adjacencies_over_dpfwds_ports_come_up(self):
        t = self.topo
        want = {t.a.ip4, t.b.ip4}
        wait_for("OSPFv2 adjacencies Full",
                 lambda: self.full("show ip ospf neighbor json", "neighbors") == want,
                 timeout=ADJ_S, why=lambda: self.frr_dp.vtysh("show ip ospf neighbor").stdout)
        v4 = time.monotonic() - self.t0
        wait_for("OSPFv3 adjacencies Full",
                 lambda: self.full("show ipv6 ospf6 neighbor json", "neighbors") == want,
                 timeout=ADJ_S, why=lambda: self.frr_dp.vtysh("show ipv6 ospf6 neighbor").stdout)
        print(f"\n  adjacencies Full {v4:.2f} s (v2), {time.monotonic() - self.t0:.2f} s (v3) "
              f"after FRR started in dpfwd's namespace", end=" ", flush=True)

    def test_2_routes_learned_both_ways(self):
        t = self.topo
        for h, port in ((t.a, 0), (t.b, 1)):
            p4, p6 = f"{LOOP4[h.name]}/32", f"{LOOP6[h.name]}/128"
            wait_for(f"{p4} in dpfwd", lambda p4=p4: self.route(p4) == f"{p4} via {h.ip4} "
                     f"port {port}", timeout=ADJ_S, why=lambda: self.dpctl("route", "list"))
            line = wait_for(f"{p6} in dpfwd", lambda p6=p6: self.route(p6), timeout=ADJ_S,
                            why=lambda: self.frr_dp.vtysh("show ipv6 route").stdout)
            # OSPFv3's next hop: the host's link-local address
            self.assertRegex(line, rf"^{p6} via fe80::[0-9a-f:]+ port {port}$")
        for h, other in ((t.a, "b"), (t.b, "a")):
            wait_for(f"{h.name} learned {other}'s loopbacks", lambda h=h, other=other: all(
                "proto ospf" in h.run("ip", *fam, "route", "show", addr).stdout
                for fam, addr in (((), LOOP4[other]), (("-6",), LOOP6[other]))),
                timeout=ADJ_S)

    def test_3_forwarding_between_the_loopbacks_follows(self):
        t = self.topo
        loops = (f"{LOOP4['a']}/32", f"{LOOP4['b']}/32", f"{LOOP6['a']}/128", f"{LOOP6['b']}/128")
        wait_for("both loopbacks in dpfwd", lambda: all(self.route(p) for p in loops),
                 timeout=ADJ_S)
        s0 = self.dp.snapshot()
        fw4 = self.snmp("/proc/net/snmp", "ForwDatagrams")
        fw6 = self.snmp("/proc/net/snmp6", "Ip6OutForwDatagrams")
        t.a.run("ping", "-c", "5", "-i", "0.1", "-W", "2", "-I", LOOP4["a"], LOOP4["b"])
        t.a.run("ping", "-6", "-c", "5", "-i", "0.1", "-W", "2", "-I", LOOP6["a"], LOOP6["b"])
        s1 = self.dp.snapshot()
        for port in (0, 1):
            self.assertGreaterEqual(netns.port_stat(s1, port, "opackets") -
                                    netns.port_stat(s0, port, "opackets"), 10)
        self.assertEqual(self.snmp("/proc/net/snmp", "ForwDatagrams"), fw4)
        self.assertEqual(self.snmp("/proc/net/snmp6", "Ip6OutForwDatagrams"), fw6)


def probe():
    frr.check()


if __name__ == "__main__":
    netns.run_tests("frr_ospf_netns", "__main__",
                    "FRR's OSPFv2 and OSPFv3 over dpfwd's ports: adjacencies, routes both "
                    "ways, forwarding", probe=probe)
