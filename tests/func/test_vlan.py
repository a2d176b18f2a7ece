#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
802.1Q sub-interfaces, pcap in -> pcap out, checked against scapy (an independent
builder and parser):

  port0    net_pcap0  198.18.0.1/24                 rx in0.pcap, tx out0.pcap
  port0.100  VLAN 100 198.18.100.1/24, 2001:db8:100::1/64
  port0.200  VLAN 200 198.18.200.1/24, mtu 1400 (198.18.2.0/24 behind it)
  port1    net_pcap1  198.18.101.1/24 (198.18.1.0/24 behind it)     tx out1.pcap

- Tagged VLAN 100 to 198.18.1.9: out of port1 untagged (the tag taken off), TTL one less.
- Tagged VLAN 100 at 1500 IP bytes (a frame of 1518, over port0's 1514 but the tag's):
  forwarded whole.
- Tagged VLAN 100 to 198.18.2.9 (behind port0.200): out of port0 tagged VLAN 200, from
  port0's MAC to the neighbor's, TTL one less.
- Untagged to 198.18.2.9: the parent's frame, out of port0 tagged VLAN 200.
- Untagged to 198.18.1.9: stays with port0, out of port1 as before.
- IPv6 tagged VLAN 100 to 2001:db8:2::9 (routed by port 0.100): out tagged VLAN 100.
- The tagged frames forwarded (ids 3 and 4, the IPv6 one): byte for byte scapy's.
- An echo request tagged VLAN 100 to 198.18.100.1: the reply leaves tagged VLAN 100,
  from 198.18.100.1.
- An ARP request tagged VLAN 100 for 198.18.100.1: a reply tagged VLAN 100.
- A neighbor solicitation tagged VLAN 100 for 2001:db8:100::1: an advertisement
  tagged VLAN 100. A TTL 1 packet tagged VLAN 100: time exceeded back on VLAN 100, from
  198.18.100.1.
- Each address is announced (a gratuitous ARP request) on its own VLAN.
- Tagged VLAN 300 (no sub-interface): dropped as vlan_unknown.
- Telemetry: drops vlan_unknown = 1 and nothing else; the vlans section counts each
  sub-interface's frames in and out. dpfwd exits 0.
About 4 s. Exit 77 (skipped) when dpfwd is not built.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

BUILD = Path(os.environ.get("DPFWD_BUILD", "build"))
BIN = Path(os.environ.get("DPFWD_BIN", BUILD / "apps" / "dpfwd" / "dpfwd"))
RUN_S = 3
PORT0_MAC = "02:70:63:61:70:00"   # net_pcap's, by creation order
SENDER_MAC = "02:aa:00:00:00:02"
NEIGH_MAC = "02:00:00:00:01:02"

CONFIG = """\
# written by test_vlan.py
[dpfwd]
main_lcore = 0

[port0]
dev = net_pcap0,rx_pcap={d}/in0.pcap,tx_pcap={d}/out0.pcap
ip4 = 198.18.0.1/24

[port0.100]
ip4 = 198.18.100.1/24
ip6 = 2001:db8:100::1/64

[port0.200]
ip4 = 198.18.200.1/24
mtu = 1400

[port1]
dev = net_pcap1,tx_pcap={d}/out1.pcap
ip4 = 198.18.101.1/24

[lcores]
rx = (0,0,1)

[routes]
route = 198.18.1.0/24 via 198.18.101.2 port 1
route = 198.18.2.0/24 via 198.18.200.2 port 0.200
route = 2001:db8:2::/64 via 2001:db8:100::2 port 0.100

[neighbors]
neigh = 198.18.101.2 lladdr {nmac} port 1
neigh = 198.18.200.2 lladdr {nmac} port 0.200
neigh = 198.18.100.2 lladdr {smac} port 0.100
neigh = 2001:db8:100::2 lladdr {nmac} port 0.100
"""

try:
    from scapy.all import (ARP, ICMP, IP, UDP, Dot1Q, Ether, ICMPv6ND_NA, ICMPv6ND_NS,
                           ICMPv6NDOptSrcLLAddr, IPv6, Raw, rdpcap, wrpcap)
except ImportError:
    IP = None


def udp(src, dst, ident, tlen=100):
    return (IP(src=src, dst=dst, id=ident, ttl=64) / UDP(sport=1000 + ident, dport=9)
            / Raw(bytes(i & 0xFF for i in range(tlen - 28))))


def tagged(vid, pkt, dst=PORT0_MAC):
    return Ether(src=SENDER_MAC, dst=dst) / Dot1Q(vlan=vid) / pkt


def untagged(pkt):
    return Ether(src=SENDER_MAC, dst=PORT0_MAC) / pkt


@unittest.skipIf(IP is None, "scapy is not installed")
class TestVlan(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not BIN.exists():
            sys.exit(77)
        cls.dir = Path(tempfile.mkdtemp(prefix="dpvlan-"))
        cls.prefix = f"dpvlan{os.getpid()}"
        d = cls.dir
        frames = [
            tagged(100, udp("198.18.100.2", "198.18.1.9", 1)),
            tagged(100, udp("198.18.100.2", "198.18.1.9", 2, tlen=1500)),
            tagged(100, udp("198.18.100.2", "198.18.2.9", 3)),
            untagged(udp("198.18.0.2", "198.18.2.9", 4)),
            untagged(udp("198.18.0.2", "198.18.1.9", 5)),
            tagged(100, IPv6(src="2001:db8:100::2", dst="2001:db8:2::9", hlim=64)
                   / UDP(sport=7, dport=9) / Raw(b"v6 through port0.100")),
            tagged(100, IP(src="198.18.100.2", dst="198.18.100.1", id=7)
                   / ICMP(type=8, id=0x77, seq=1) / Raw(b"ping on VLAN 100")),
            tagged(100, ARP(op=1, hwsrc=SENDER_MAC, psrc="198.18.100.2",
                            pdst="198.18.100.1"), dst="ff:ff:ff:ff:ff:ff"),
            tagged(300, udp("198.18.100.2", "198.18.1.9", 9)),
            tagged(100, IPv6(src="2001:db8:100::2", dst="ff02::1:ff00:1", hlim=255)
                   / ICMPv6ND_NS(tgt="2001:db8:100::1")
                   / ICMPv6NDOptSrcLLAddr(lladdr=SENDER_MAC), dst="33:33:ff:00:00:01"),
            tagged(100, IP(src="198.18.100.2", dst="198.18.1.9", id=10, ttl=1)
                   / UDP(sport=1010, dport=9) / Raw(b"ttl 1")),
        ]
        wrpcap(str(d / "in0.pcap"), frames)
        (d / "fwd.ini").write_text(CONFIG.format(d=d, nmac=NEIGH_MAC, smac=SENDER_MAC))
        cls.tel = d / "telemetry.json"
        cmd = [str(BIN), "--file-prefix", cls.prefix, "--no-huge", "-m", "512", "--no-pci",
               "--lcores", "0@0,1@1", "--", "-c", str(d / "fwd.ini"), "-d", str(RUN_S),
               "-j", str(cls.tel)]
        try:
            cls.proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired as e:
            cls.proc = subprocess.CompletedProcess(cmd, -9, "", f"dpfwd timed out: {e}")
        try:
            cls.final = json.loads(cls.tel.read_text())
        except (OSError, ValueError):
            cls.final = None

        def read(name):
            try:
                return list(rdpcap(str(d / name)))
            except FileNotFoundError:
                return []
        cls.out0 = read("out0.pcap")
        cls.out1 = read("out1.pcap")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(Path("/var/run/dpdk") / cls.prefix, ignore_errors=True)
        if os.environ.get("DPFW_KEEP"):
            print(f"kept {cls.dir}", file=sys.stderr)
        else:
            shutil.rmtree(cls.dir, ignore_errors=True)

    def ok(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stdout + self.proc.stderr[-3000:])

    def ip_out(self, frames, ident):
        return [f for f in frames if IP in f and f[IP].id == ident and UDP in f]

    def test_tagged_frame_leaves_port1_untagged(self):
        self.ok()
        for ident, tlen in ((1, 100), (2, 1500)):
            got = self.ip_out(self.out1, ident)
            self.assertEqual(len(got), 1, f"id {ident}")
            f = got[0]
            self.assertNotIn(Dot1Q, f)
            self.assertEqual(f[Ether].type, 0x0800)
            self.assertEqual(f[IP].ttl, 63)
            self.assertEqual(f[IP].len, tlen)
            self.assertEqual(f[Ether].dst, NEIGH_MAC)

    def test_routed_to_sub_interface_leaves_tagged(self):
        self.ok()
        for ident in (3, 4):
            got = self.ip_out(self.out0, ident)
            self.assertEqual(len(got), 1, f"id {ident}")
            raw = bytes(got[0])
            # the tag right after the MACs: TPID 0x8100, TCI = VLAN 200, then IPv4
            self.assertEqual(raw[12:18], bytes.fromhex("8100" "00c8" "0800"))
            self.assertEqual(got[0][Ether].src, PORT0_MAC)
            self.assertEqual(got[0][Ether].dst, NEIGH_MAC)
            self.assertEqual(got[0][IP].ttl, 63)
            expect = udp("198.18.100.2" if ident == 3 else "198.18.0.2", "198.18.2.9",
                         ident)
            self.assertEqual(bytes(got[0][UDP].payload), bytes(expect[UDP].payload))

    def test_tagged_egress_frames_are_scapys(self):
        # whole frames against scapy's: tagged VLAN 100 -> VLAN 200 (id 3), untagged ->
        # VLAN 200 (id 4), IPv6 tagged VLAN 100 -> VLAN 100; TTL or hop limit one less,
        # the IPv4 checksum scapy's for it
        self.ok()
        for ident, src in ((3, "198.18.100.2"), (4, "198.18.0.2")):
            got = self.ip_out(self.out0, ident)
            self.assertEqual(len(got), 1, f"id {ident}")
            ip = udp(src, "198.18.2.9", ident)
            ip[IP].ttl = 63  # the checksum scapy's, made when the frame is built
            want = Ether(dst=NEIGH_MAC, src=PORT0_MAC) / Dot1Q(vlan=200) / ip
            self.assertEqual(bytes(got[0]), bytes(want), f"id {ident}")
        got = [f for f in self.out0 if IPv6 in f and f[IPv6].dst == "2001:db8:2::9"]
        self.assertEqual(len(got), 1)
        want = (Ether(dst=NEIGH_MAC, src=PORT0_MAC) / Dot1Q(vlan=100)
                / IPv6(src="2001:db8:100::2", dst="2001:db8:2::9", hlim=63)
                / UDP(sport=7, dport=9) / Raw(b"v6 through port0.100"))
        self.assertEqual(bytes(got[0]), bytes(want))

    def test_untagged_frame_stays_with_port0(self):
        self.ok()
        got = self.ip_out(self.out1, 5)
        self.assertEqual(len(got), 1)
        self.assertNotIn(Dot1Q, got[0])

    def test_ip6_routed_by_sub_interface(self):
        self.ok()
        got = [f for f in self.out0 if IPv6 in f and f[IPv6].dst == "2001:db8:2::9"]
        self.assertEqual(len(got), 1)
        self.assertEqual(bytes(got[0])[12:18], bytes.fromhex("8100" "0064" "86dd"))
        self.assertEqual(got[0][IPv6].hlim, 63)

    def test_echo_reply_on_sub_interface(self):
        self.ok()
        got = [f for f in self.out0 if ICMP in f and f[ICMP].type == 0]
        self.assertEqual(len(got), 1)
        self.assertEqual(got[0][Dot1Q].vlan, 100)
        self.assertEqual(got[0][IP].src, "198.18.100.1")
        self.assertEqual(got[0][IP].dst, "198.18.100.2")
        self.assertEqual(bytes(got[0][ICMP].payload), b"ping on VLAN 100")

    def test_arp_reply_on_sub_interface(self):
        self.ok()
        got = [f for f in self.out0 if ARP in f and f[ARP].op == 2]
        self.assertEqual(len(got), 1)
        self.assertEqual(got[0][Dot1Q].vlan, 100)
        self.assertEqual(got[0][ARP].psrc, "198.18.100.1")
        self.assertEqual(got[0][ARP].hwsrc, PORT0_MAC)

    def test_each_address_announced_on_its_vlan(self):
        self.ok()
        got = {(f[Dot1Q].vlan if Dot1Q in f else None, f[ARP].psrc) for f in self.out0
               if ARP in f and f[ARP].op == 1 and f[ARP].psrc == f[ARP].pdst}
        self.assertEqual(got, {(None, "198.18.0.1"), (100, "198.18.100.1"),
                               (200, "198.18.200.1")})

    def test_neighbor_advertisement_on_sub_interface(self):
        self.ok()
        got = [f for f in self.out0 if ICMPv6ND_NA in f]
        self.assertEqual(len(got), 1)
        self.assertEqual(got[0][Dot1Q].vlan, 100)
        self.assertEqual(got[0][ICMPv6ND_NA].tgt, "2001:db8:100::1")
        self.assertEqual(got[0][IPv6].dst, "2001:db8:100::2")

    def test_time_exceeded_from_sub_interface_address(self):
        self.ok()
        got = [f for f in self.out0 if ICMP in f and f[ICMP].type == 11]
        self.assertEqual(len(got), 1)
        self.assertEqual(got[0][Dot1Q].vlan, 100)
        self.assertEqual(got[0][IP].src, "198.18.100.1")
        self.assertEqual(got[0][IP].dst, "198.18.100.2")

    def test_unknown_vid_is_vlan_unknown_drop(self):
        self.ok()
        self.assertIsNotNone(self.final)
        drops = {k: v for k, v in self.final["drops"]["by_reason"].items() if v}
        # the TTL 1 packet is an ip4_ttl_exceeded drop (answered); the NS consumed
        drops.pop("ip4_ttl_exceeded", None)
        drops.pop("nd_consumed", None)
        self.assertEqual(drops, {"vlan_unknown": 1})
        self.assertEqual(self.ip_out(self.out1, 9), [])

    def test_sub_interface_counters(self):
        self.ok()
        vlans = {v["name"]: v for v in self.final["vlans"]}
        v100 = next(v for v in vlans.values() if v["vid"] == 100)
        v200 = next(v for v in vlans.values() if v["vid"] == 200)
        # in on VLAN 100: ids 1, 2, 3, the IPv6 one, the echo request, the ARP request,
        # the NS and the TTL 1 packet
        self.assertEqual(v100["rx_pkts"], 8)
        # out on VLAN 100: the announcement, the IPv6 one, the echo and ARP replies, the
        # NA and the time exceeded
        self.assertEqual(v100["tx_pkts"], 6)
        self.assertEqual(v200["rx_pkts"], 0)
        # out on VLAN 200: the announcement, ids 3 and 4
        self.assertEqual(v200["tx_pkts"], 3)
        self.assertEqual((v100["port"], v200["mtu"]), (0, 1400))


if __name__ == "__main__":
    unittest.main()
