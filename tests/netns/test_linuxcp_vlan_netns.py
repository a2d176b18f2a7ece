#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
The Linux control plane ([linux], docs/linux-cp.md) on an 802.1Q sub-interface: with
[port0.100], dpfwd makes the mirror dp0.100 beside dp0 and dp1, with the sub-interface's
MAC, MTU and addresses. Host A, on VLAN 100 (test_vlan_netns.py's rig: a veth and a
scapy tagger, no 802.1Q module needed), opens a TCP connection to 198.18.100.1: the
packets go up to dp0.100, and Linux's answers leave through port 0 tagged. A kernel route
through dp0.100 becomes a dpfwd route through port 0.100 that carries B's pings to A.

  A IF 198.18.10.2 ----------- port0 198.18.10.1   [dpfwd]   port1 -- B 198.18.20.2
    V 198.18.100.2 --tag 100-- port0.100 198.18.100.1 (mirror dp0.100)

Exit status 77 (meson: skipped) with the reason where network namespaces cannot be made.

  python3 tests/netns/test_linuxcp_vlan_netns.py -v
"""
import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netns  # noqa: E402
from netns import wait_for  # noqa: E402
from test_vlan_netns import VlanTopology  # noqa: E402

TCP_PORT = 179


class LinuxcpVlanTopology(VlanTopology):
    def dpfwd_config(self, driver="net_af_packet", extra=""):
        return super().dpfwd_config(driver, extra) + netns.LINUX_SECTION


class LinuxcpVlanTest(netns.RigTest):
    topology = LinuxcpVlanTopology

    def test_1_sub_interface_has_a_mirror_with_its_address_mac_and_mtu(self):
        addrs = self.r("ip", "-o", "addr", "show", "dev", "dp0.100").stdout
        self.assertIn("198.18.100.1/24", addrs)
        self.assertIn("2001:db8:100::1/64", addrs)
        link = self.r("ip", "-o", "link", "show", "dev", "dp0.100").stdout
        self.assertIn(self.topo.ports[0].mac, link)
        self.assertIn("mtu 1500", link)
        self.assertIn("UP", link)
        names = [m["name"] for m in self.dp.snapshot()["linux"]["mirrors"]]
        self.assertEqual(names, ["dp0", "dp1", "dp0.100"])

    def test_2_tcp_to_the_sub_interface_reaches_linux_and_leaves_tagged(self):
        before = next(v for v in self.dp.snapshot()["vlans"] if v["vid"] == 100)
        srv = netns.spawn(["socat", "-T", "5", f"TCP4-LISTEN:{TCP_PORT},bind=198.18.100.1",
                           "SYSTEM:echo hello-from-vlan-100"], ns=self.topo.router_ns)
        try:
            time.sleep(0.3)
            out = self.topo.a.run("socat", "-t", "3", "-", f"TCP4:198.18.100.1:{TCP_PORT}",
                                  timeout=15).stdout
        finally:
            netns.stop_process(srv, signal.SIGTERM, 3)
        self.assertIn("hello-from-vlan-100", out)
        snap = self.dp.snapshot()
        after = next(v for v in snap["vlans"] if v["vid"] == 100)
        # Linux's answers went out of the sub-interface (tagged), not untagged on port 0
        self.assertGreater(after["tx_pkts"], before["tx_pkts"])
        self.assertGreater(snap["linux"]["punted"], 0)
        self.assertGreater(snap["linux"]["injected"], 0)
        self.assertEqual(snap["drops"]["by_reason"]["linux_no_tap"], 0)

    def test_3_kernel_route_through_the_sub_interface_carries_traffic(self):
        # A owns 198.19.100.2; Linux routes its /24 by A's address on VLAN 100
        self.topo.a.run("ip", "addr", "add", "198.19.100.2/32", "dev", "lo")
        self.r("ip", "route", "add", "198.19.100.0/24", "via", "198.18.100.2", "dev",
               "dp0.100")
        mirrors = self.dp.snapshot()["linux"]["mirrors"]
        subif = next(m["port"] for m in mirrors if m["name"] == "dp0.100")
        # route list names a sub-interface as the config does, not by its port index
        want = re.compile(r"^198\.19\.100\.0/24 via 198\.18\.100\.2 port 0\.100$", re.M)
        wait_for("route in dpfwd", lambda: want.search(self.dpctl("route", "list")))
        before = next(v for v in self.dp.snapshot()["vlans"] if v["vid"] == 100)
        out = self.topo.b.run("ping", "-c", "3", "-i", "0.2", "-W", "2", "198.19.100.2",
                              check=False).stdout
        self.assertIn("3 received", out)
        after = next(v for v in self.dp.snapshot()["vlans"] if v["vid"] == 100)
        self.assertGreaterEqual(after["tx_pkts"] - before["tx_pkts"], 3)
        # the gateway's neighbor: the port index and the config's name
        neigh = next(e for e in self.dp.snapshot()["neighbors"]["neighbors"]
                     if e["ip"] == "198.18.100.2")
        self.assertEqual((neigh["port"], neigh["port_name"]), (subif, "0.100"))
        self.r("ip", "route", "del", "198.19.100.0/24")
        wait_for("route gone", lambda: not want.search(self.dpctl("route", "list")))

    def test_4_stop_removes_the_mirrors(self):
        self.assertEqual(self.dp.stop(), 0, self.dp.output())
        links = self.r("ip", "-o", "link", "show").stdout
        self.assertNotIn(" dp0.100:", links)


if __name__ == "__main__":
    netns.run_tests("linuxcp_vlan_netns", "__main__",
                    "dpfwd's Linux control plane: a mirror for an 802.1Q sub-interface")
