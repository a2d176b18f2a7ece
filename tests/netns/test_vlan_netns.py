#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
An 802.1Q sub-interface between real Linux hosts: host A has a VLAN interface on its
link and reaches host B through dpfwd's sub-interface 0.100.

  A IF 198.18.10.2 ----------- port0 198.18.10.1   [dpfwd]   port1 -- B 198.18.20.2
    V 198.18.100.2 --tag 100-- port0.100 198.18.100.1, 2001:db8:100::1/64

A's VLAN interface V is one end of a veth pair in A, with IF's MAC as a kernel VLAN
device would have; a tagger (scapy's bridge_and_sniff, in A) carries V's frames onto IF
with tag 100 and IF's frames of VLAN 100 back to V without it: on the wire, the frames
`ip link add link IF name IF.100 type vlan id 100` would make. (The kernels this runs on
need not have 802.1Q: the test does not ask for it.) A routes B's networks by V; the
neighbors on both sides are learned (ARP, ND).
- A raw tagged echo request (scapy on A's IF) to 198.18.100.1: the reply comes back on
  A's link tagged VLAN 100, from 198.18.100.1 (dpfwd's static neighbor 198.18.100.2 is
  A's MAC).
- ping A -> B, IPv4 and IPv6, through the sub-interface: every echo answered; and A
  pings the sub-interface's own addresses.
- TCP (iperf3, 1 s) A -> B through it.
- dpfwd's vlans telemetry counts the sub-interface's frames both ways; no vlan_unknown
  or vlan_tag_failed drop; dpfwd stops with exit 0 and no mbuf leaked.
Exit status 77 (meson: skipped) with the reason where network namespaces cannot be
made. About 10 s.

  python3 tests/netns/test_vlan_netns.py -v
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netns  # noqa: E402
from test_netns import iperf3, needs, ping  # noqa: E402

VID = 100
SUBIF = """
[port0.100]
ip4 = 198.18.100.1/24
ip6 = 2001:db8:100::1/64

[neighbors]
neigh = 198.18.100.2 lladdr {mac} port 0.100
"""
SCAPY_PY = "/usr/bin/python3"  # Debian's, with python3-scapy
# one tagged echo request out of IF, the first tagged echo reply seen on IF after it
RAW_ECHO = """
import sys, time
from scapy.all import AsyncSniffer, Dot1Q, Ether, ICMP, IP, conf, sendp
conf.verb = 0
iface, src_mac, dst_mac = sys.argv[1:4]
req = (Ether(src=src_mac, dst=dst_mac) / Dot1Q(vlan=100)
       / IP(src="198.18.100.2", dst="198.18.100.1") / ICMP(id=0x5656, seq=1) / b"raw vlan")
sn = AsyncSniffer(iface=iface, lfilter=lambda p: ICMP in p and p[ICMP].type == 0)
sn.start()
time.sleep(0.5)
sendp(req, iface=iface)
time.sleep(1.5)
for ans in sn.stop():
    print(ans[Dot1Q].vlan if Dot1Q in ans else "untagged", ans[IP].src, ans[IP].dst,
          ans[ICMP].type, bytes(ans[ICMP].payload))
"""


# A's VLAN link: frames between the veth end TAG (A's VLAN interface's peer) and A's
# link IF, tagged on the way to IF, untagged on the way back
TAGGER = """
import sys
from scapy.all import Dot1Q, Ether, bridge_and_sniff, conf
conf.verb = 0
link, veth, vid = sys.argv[1], sys.argv[2], int(sys.argv[3])

def untag(p):
    if Dot1Q in p and p[Dot1Q].vlan == vid:
        return Ether(src=p[Ether].src, dst=p[Ether].dst, type=p[Dot1Q].type) / p[Dot1Q].payload
    return False

def tag(p):
    return (Ether(src=p[Ether].src, dst=p[Ether].dst, type=0x8100) /
            Dot1Q(vlan=vid, type=p[Ether].type) / p[Ether].payload)

print("tagging", flush=True)
bridge_and_sniff(link, veth, xfrm12=untag, xfrm21=tag, store=False)
"""


class VlanTopology(netns.Topology):
    """netns.Topology with a VLAN 100 interface on A's link, B's networks routed by it."""

    def __init__(self):
        super().__init__(static_neighbors=False, ip6=True)

    def _build(self):
        super()._build()
        a, vif, tag = self.a, f"v{VID}", f"v{VID}t"
        a.run("ip", "link", "add", vif, "address", a.mac, "type", "veth", "peer", "name", tag)
        a.run("ip", "addr", "add", "198.18.100.2/24", "dev", vif)
        a.run("ip", "-6", "addr", "add", "2001:db8:100::2/64", "dev", vif, "nodad")
        # frames as the wire has them: no segmentation or checksum left to the device,
        # which the tagger's packet sockets would see undone
        for dev in (vif, tag):
            a.run("ethtool", "-K", dev, "tx", "off", "tso", "off", "gso", "off", "gro", "off")
        a.run("ip", "link", "set", tag, "up")
        a.run("ip", "link", "set", vif, "up")
        a.run("ip", "route", "add", "198.18.20.0/24", "via", "198.18.100.1", "dev", vif)
        a.run("ip", "-6", "route", "add", "2001:db8:20::/64", "via", "2001:db8:100::1",
              "dev", vif)
        self.tagger = a.spawn(SCAPY_PY, "-c", TAGGER, a.ifname, tag, VID,
                              stdout=subprocess.PIPE)
        line = self.tagger.stdout.readline().decode()
        if line.strip() != "tagging":
            raise RuntimeError(f"the tagger did not start: {line!r}")
        time.sleep(0.5)  # its sockets open after the line

    def dpfwd_config(self, driver="net_af_packet", extra=""):
        return super().dpfwd_config(driver, extra) + SUBIF.format(mac=self.a.mac)


class VlanTest(netns.RigTest):
    @classmethod
    def topology(cls):
        return VlanTopology()

    def vlan(self):
        return next(v for v in self.dp.snapshot()["vlans"] if v["vid"] == VID)

    def test_0_raw_tagged_echo_answered_tagged(self):
        port0 = self.topo.ports[0]
        r = subprocess.run(["ip", "netns", "exec", self.topo.a.ns, SCAPY_PY, "-c", RAW_ECHO,
                            self.topo.a.ifname, self.topo.a.mac, port0.mac],
                           capture_output=True, text=True, timeout=30)
        snap = self.dp.snapshot()
        self.assertEqual(r.stdout.strip(), "100 198.18.100.1 198.18.100.2 0 b'raw vlan'",
                         f"{r.stdout}{r.stderr}; vlans {snap['vlans']}; drops "
                         f"{ {k: v for k, v in snap['drops']['by_reason'].items() if v} }")

    def test_1_ping_through_sub_interface(self):
        before = self.vlan()
        for dst, src in (("198.18.20.2", "198.18.100.2"), ("2001:db8:20::2", None),
                         ("198.18.100.1", None), ("2001:db8:100::1", None)):
            extra = ("-I", src) if src else ()
            sent, got, _, out = ping(self.topo.a, dst, count=4, extra=extra)
            self.assertEqual((sent, got), (4, 4), out)
        # the replies came back by the sub-interface: counted there both ways
        deadline = time.monotonic() + 3
        while True:
            after = self.vlan()
            if after["tx_pkts"] - before["tx_pkts"] >= 16 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        self.assertGreaterEqual(after["rx_pkts"] - before["rx_pkts"], 16)
        self.assertGreaterEqual(after["tx_pkts"] - before["tx_pkts"], 16)

    @needs("iperf3")
    def test_2_tcp_through_sub_interface(self):
        before = self.vlan()
        res = iperf3(self.topo, "-t", "1")
        self.assertGreater(res["end"]["sum_received"]["bytes"], 100000)
        self.assertGreater(self.vlan()["rx_bytes"] - before["rx_bytes"], 100000)

    def test_3_stop_clean(self):
        snap = self.dp.snapshot()
        drops = snap["drops"]["by_reason"]
        self.assertEqual((drops.get("vlan_unknown"), drops.get("vlan_tag_failed")), (0, 0))
        rc = self.dp.stop()
        snap = self.dp.read_json()
        self.assertEqual((rc, snap["run"]["mbufs_over_baseline"]), (0, 0), self.dp.output())


def main():
    netns.run_tests("vlan_netns", __name__,
                    f"dpfwd {netns.DPFWD_BIN}: an 802.1Q sub-interface and a Linux VLAN")


if __name__ == "__main__":
    main()
