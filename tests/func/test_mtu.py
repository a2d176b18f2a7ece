#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Packets larger than the next hop's MTU, pcap in -> pcap out, checked against scapy (an
independent builder and parser):

  port0  net_pcap0  mtu 9000  198.18.0.1/24, 2001:db8::1/64   rx in0.pcap, tx out0.pcap
  port1  net_pcap1  mtu 1500  198.18.101.1/24, 2001:db8:101::1/64          tx out1.pcap
  port2  net_pcap2  mtu 68    198.18.102.1/24 (198.18.2.0/24 behind it)      tx out2.pcap
  198.18.1.0/24 and 2001:db8:1::/64 via port1's neighbor; the sender is port0's neighbor

- IPv4 of 4000 bytes with DF set: not forwarded; an ICMP Destination Unreachable,
  Fragmentation Needed (type 3 code 4) goes back out of port0 to the sender, with
  next-hop MTU 1500 (RFC 1191) and the original header and data quoted (RFC 1812
  4.3.2.3: up to 576 bytes in all); the source is port0's address.
- IPv4 of 4000 bytes, DF clear: out of port1 as the fragments scapy's fragment() makes of
  it (1480 data bytes each), TTL one less, every field and byte compared, checksums
  right; reassembled by scapy's defragment() into the original datagram.
- A fragment (MF set, offset 1000 bytes) of 3000 bytes cut again: offsets continue from
  1000 and the last piece keeps MF.
- A datagram with options (Security, copied; Record Route, not): the first fragment
  carries both, the others Security alone (RFC 791 3.2), against an oracle written here.
- Exactly 1500 bytes with DF: forwarded whole. 1500 bytes with 6 bytes of junk after the
  datagram in the frame: forwarded whole, the junk cut. 1501 bytes with DF: an ICMP error.
- IPv6 of 4000 bytes: not forwarded; an ICMPv6 Packet Too Big (type 2) goes back out of
  port0 with MTU 1500 (RFC 4443 3.2) and as much of the packet as fits in 1280 bytes.
- A frame of 9001 IP bytes in on port0 (MTU 9000): dropped as l2_too_long.
- 4000 bytes without DF to port2 (MTU 68): 83 fragments would be due, more than the 64
  dpfwd makes of one packet: dropped as ip4_frag_failed, nothing sent.
- A relay from port0's address to a backend behind port1: a datagram of 1500 bytes is
  relayed, one of 1501 bytes is dropped as relay_too_big (the relay does not fragment).
- Telemetry: drops ip4_frag_needed = 2, ip6_too_big = 1, l2_too_long = 1,
  relay_too_big = 1 and nothing else; fwd's
  ip4_fragmented and ip4_fragments count the three packets cut and their fragments; the
  next hops report their port's MTU. dpfwd exits 0, no mbuf leaked.
About 5 s. Exit 77 (skipped) when dpfwd is not built.
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
PORT_MAC = ["02:70:63:61:70:00", "02:70:63:61:70:01"]   # net_pcap's, by creation order
SENDER_MAC = "02:aa:00:00:00:02"
NEIGH_MAC = "02:00:00:00:01:02"

CONFIG = """\
# written by test_mtu.py
[dpfwd]
main_lcore = 0

[port0]
dev = net_pcap0,rx_pcap={d}/in0.pcap,tx_pcap={d}/out0.pcap
ip4 = 198.18.0.1/24
ip6 = 2001:db8::1/64
mtu = 9000

[port1]
dev = net_pcap1,tx_pcap={d}/out1.pcap
ip4 = 198.18.101.1/24
ip6 = 2001:db8:101::1/64
mtu = 1500

[port2]
dev = net_pcap2,tx_pcap={d}/out2.pcap
ip4 = 198.18.102.1/24
mtu = 68

[lcores]
rx = (0,0,1)

[routes]
route = 198.18.1.0/24 via 198.18.101.2 port 1
route = 198.18.2.0/24 via 198.18.102.2 port 2
route = 2001:db8:1::/64 via 2001:db8:101::2 port 1

[neighbors]
neigh = 198.18.101.2 lladdr {nmac} port 1
neigh = 198.18.102.2 lladdr {nmac} port 2
neigh = 2001:db8:101::2 lladdr {nmac} port 1
neigh = 198.18.0.2 lladdr {smac} port 0
neigh = 2001:db8::2 lladdr {smac} port 0

[relay0]
listen = 198.18.0.1:5000
backend = 198.18.101.2:6000
source = 198.18.101.1
ports = 20000-29999
"""

try:
    from scapy.all import (ICMP, IP, UDP, Ether, ICMPv6PacketTooBig, IPOption_RR,
                           IPOption_Security, IPv6, Raw, defragment, fragment, rdpcap,
                           wrpcap)
except ImportError:
    ICMP = None


def payload(n: int, seed: int) -> bytes:
    return bytes((seed + 7 * i) & 0xFF for i in range(n))


def ip4(tlen: int, ident: int, df: bool, **kw):
    """IPv4/UDP from the sender to 198.18.1.9, TLEN bytes in all."""
    return (IP(src="198.18.0.2", dst="198.18.1.9", id=ident, ttl=64,
               flags="DF" if df else 0, **kw)
            / UDP(sport=1000 + ident, dport=9) / Raw(payload(tlen - 28, ident)))


def to_port0(pkt):
    return Ether(src=SENDER_MAC, dst=PORT_MAC[0]) / pkt


class TestMtu(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = Path(tempfile.mkdtemp(prefix="dpmtu-"))
        cls.prefix = f"dpmtu{os.getpid()}"
        d = cls.dir
        cls.df_big = ip4(4000, 1, True)
        cls.nodf_big = ip4(4000, 2, False)
        # a fragment of some larger datagram: 3000 bytes from offset 1000, more follow
        cls.frag_in = IP(src="198.18.0.2", dst="198.18.1.9", id=3, ttl=64, flags="MF",
                         frag=1000 // 8, proto=17) / Raw(payload(2980, 3))
        # options: Security has the "copied" flag (RFC 791: in every fragment), Record
        # Route has not (in the first one only)
        cls.with_opts = (IP(src="198.18.0.2", dst="198.18.1.9", id=11, ttl=64,
                            options=[IPOption_Security(),
                                     IPOption_RR(routers=["0.0.0.0"] * 2)])
                         / UDP(sport=1011, dport=9) / Raw(payload(3000, 11)))
        cls.df_1500 = ip4(1500, 4, True)
        cls.padded = ip4(1500, 5, True)
        cls.df_1501 = ip4(1501, 6, True)
        cls.v6_big = (IPv6(src="2001:db8::2", dst="2001:db8:1::9", hlim=64)
                      / UDP(sport=7, dport=9) / Raw(payload(4000 - 48, 7)))
        frames = [to_port0(p) for p in (cls.df_big, cls.nodf_big, cls.frag_in, cls.df_1500,
                                        cls.with_opts)]
        frames.append(Ether(bytes(to_port0(cls.padded)) + b"junk!!"))
        frames += [to_port0(cls.df_1501), to_port0(cls.v6_big)]
        # longer than port0's MTU allows a frame to be: a drop where it came in
        frames.append(to_port0(ip4(9001, 8, False)))
        # to port2 (MTU 68: 48 data bytes a fragment): 4000 bytes would make 83
        # fragments, more than dpfwd makes of one packet
        frames.append(to_port0(IP(src="198.18.0.2", dst="198.18.2.9", id=12)
                               / UDP(sport=1012, dport=9) / Raw(payload(4000 - 28, 12))))
        # to the relay: one that fits port1's MTU, one that does not
        for ident, tlen in ((9, 1500), (10, 1501)):
            frames.append(to_port0(IP(src="198.18.0.2", dst="198.18.0.1", id=ident)
                                   / UDP(sport=4000 + ident, dport=5000)
                                   / Raw(payload(tlen - 28, ident))))
        cls.frames = frames
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

        def ip_frames(name, kind):
            try:
                got = rdpcap(str(d / name))
            except FileNotFoundError:
                return []
            return [f for f in got if kind in f]
        cls.out0 = ip_frames("out0.pcap", IP) + ip_frames("out0.pcap", IPv6)
        cls.out1 = ip_frames("out1.pcap", IP)
        cls.relayed = [f for f in cls.out1 if f[IP].dst == "198.18.101.2"]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(Path("/var/run/dpdk") / cls.prefix, ignore_errors=True)
        if os.environ.get("DPFW_KEEP"):
            print(f"kept {cls.dir}", file=sys.stderr)
        else:
            shutil.rmtree(cls.dir, ignore_errors=True)

    def ok(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stdout + self.proc.stderr[-3000:])

    def out1_of(self, ident):
        return [f for f in self.out1 if f[IP].id == ident and f[IP].dst == "198.18.1.9"]

    def icmp4_about(self, ident):
        return [f for f in self.out0 if ICMP in f and f[ICMP].type == 3
                and bytes(f[ICMP].payload)[4:6] == ident.to_bytes(2, "big")]

    def test_exit_0_no_leak(self):
        self.ok()
        self.assertNotIn("leaked", self.proc.stderr)
        self.assertIsNotNone(self.final)
        self.assertEqual(self.final["run"]["mbufs_over_baseline"], 0)

    def test_df_over_mtu_gets_frag_needed(self):
        self.ok()
        self.assertEqual(self.out1_of(1), [])
        errs = self.icmp4_about(1)
        self.assertEqual(len(errs), 1, [f.summary() for f in self.out0])
        e = errs[0]
        self.assertEqual(e[Ether].dst, SENDER_MAC)
        self.assertEqual(e[Ether].src, PORT_MAC[0])
        self.assertEqual((e[IP].src, e[IP].dst), ("198.18.0.1", "198.18.0.2"))
        self.assertEqual((e[ICMP].type, e[ICMP].code), (3, 4))
        self.assertEqual(e[ICMP].nexthopmtu, 1500)
        self.assertEqual(e[IP].len, 576)
        # the quote: the original datagram as it came, header first
        self.assertEqual(bytes(e[ICMP].payload), bytes(self.df_big)[:548])
        # checksums right (scapy recomputes them when they are deleted)
        again = IP(bytes(e[IP]))
        del again[IP].chksum, again[ICMP].chksum
        again = IP(bytes(again))
        self.assertEqual((e[IP].chksum, e[ICMP].chksum), (again[IP].chksum, again[ICMP].chksum))

    def assert_fragments(self, got, original, mtu):
        want = fragment(original.copy(), fragsize=mtu - 20)
        self.assertEqual(len(got), len(want), [f.summary() for f in got])
        for g, w in zip(sorted(got, key=lambda f: f[IP].frag), want):
            w = w.copy()
            w.ttl -= 1
            del w.chksum
            w = IP(bytes(w))
            self.assertEqual(g[Ether].dst, NEIGH_MAC)
            self.assertEqual(g[Ether].src, PORT_MAC[1])
            self.assertLessEqual(g[IP].len, mtu)
            for field in ("id", "flags", "frag", "len", "ttl", "proto", "src", "dst",
                          "chksum", "ihl", "tos"):
                self.assertEqual(getattr(g[IP], field), getattr(w, field),
                                 f"fragment at {w.frag * 8}: {field}")
            self.assertEqual(bytes(g[IP].payload), bytes(w.payload))

    def test_no_df_over_mtu_is_fragmented(self):
        self.ok()
        got = self.out1_of(2)
        self.assert_fragments(got, self.nodf_big, 1500)
        whole = defragment(got)
        self.assertEqual(len(whole), 1)
        w = IP(bytes(whole[0][IP]))
        self.assertEqual(bytes(w[IP].payload), bytes(self.nodf_big[IP].payload))
        self.assertEqual(self.icmp4_about(2), [])

    def test_fragment_cut_again(self):
        self.ok()
        got = sorted(self.out1_of(3), key=lambda f: f[IP].frag)
        self.assert_fragments(got, self.frag_in, 1500)
        self.assertEqual(got[0][IP].frag, 1000 // 8)
        self.assertTrue(all("MF" in f[IP].flags for f in got), "the last keeps MF")
        self.assertEqual(b"".join(bytes(f[IP].payload) for f in got),
                         bytes(self.frag_in[IP].payload))

    def test_options_copied_by_their_flag(self):
        """RFC 791 3.2 (scapy's fragment() copies every option, so the oracle is here):
        the first fragment carries all the options, the others those with the copied
        flag; data offsets in 8-byte units run on; the data is the datagram's."""
        self.ok()
        got = sorted(self.out1_of(11), key=lambda f: f[IP].frag)
        self.assertGreaterEqual(len(got), 3, [f.summary() for f in got])
        orig = IP(bytes(self.with_opts))
        all_opts = bytes(orig)[20:orig.ihl * 4]
        copied = bytes(IPOption_Security())
        copied += b"\0" * (-len(copied) % 4)
        data, off = b"", 0
        for i, f in enumerate(got):
            ip = IP(bytes(f[IP]))
            hdr = bytes(ip)[:ip.ihl * 4]
            self.assertEqual(hdr[20:], all_opts if i == 0 else copied, f"fragment {i}")
            self.assertEqual(ip.frag * 8, off)
            self.assertEqual("MF" in ip.flags, i + 1 < len(got))
            self.assertLessEqual(ip.len, 1500)
            if i + 1 < len(got):
                self.assertEqual((ip.len - ip.ihl * 4) % 8, 0)
            again = IP(bytes(ip))
            del again.chksum
            self.assertEqual(ip.chksum, IP(bytes(again)).chksum)
            self.assertEqual(ip.ttl, 63)
            body = bytes(ip)[ip.ihl * 4:ip.len]
            data += body
            off += len(body)
        self.assertEqual(data, bytes(orig)[orig.ihl * 4:])

    def test_boundary_and_trailing_bytes(self):
        self.ok()
        for ident, pkt in ((4, self.df_1500), (5, self.padded)):
            got = self.out1_of(ident)
            self.assertEqual(len(got), 1, ident)
            g = got[0]
            self.assertEqual(len(bytes(g)), 14 + 1500, ident)
            w = pkt.copy()
            w.ttl -= 1
            del w.chksum
            self.assertEqual(bytes(g[IP]), bytes(IP(bytes(w))), ident)
        self.assertEqual(self.out1_of(6), [])
        errs = self.icmp4_about(6)
        self.assertEqual(len(errs), 1)
        self.assertEqual(errs[0][ICMP].nexthopmtu, 1500)

    def test_ip6_over_mtu_gets_packet_too_big(self):
        self.ok()
        ptb = [f for f in self.out0 if ICMPv6PacketTooBig in f]
        self.assertEqual(len(ptb), 1, [f.summary() for f in self.out0])
        p = ptb[0]
        self.assertEqual(p[Ether].dst, SENDER_MAC)
        self.assertEqual((p[IPv6].src, p[IPv6].dst), ("2001:db8::1", "2001:db8::2"))
        self.assertEqual(p[ICMPv6PacketTooBig].mtu, 1500)
        self.assertEqual(len(bytes(p[IPv6])), 1280)
        self.assertEqual(bytes(p[ICMPv6PacketTooBig].payload), bytes(self.v6_big)[:1280 - 48])
        again = IPv6(bytes(p[IPv6]))
        del again[ICMPv6PacketTooBig].cksum
        again = IPv6(bytes(again))
        self.assertEqual(p[ICMPv6PacketTooBig].cksum, again[ICMPv6PacketTooBig].cksum)
        self.assertFalse([f for f in self.out1 if IPv6 in f])

    def test_relay_keeps_to_the_backend_mtu(self):
        self.ok()
        self.assertEqual(len(self.relayed), 1, [f.summary() for f in self.relayed])
        r = self.relayed[0]
        self.assertEqual(r[IP].len, 1500)
        self.assertEqual((r[IP].src, r[UDP].dport), ("198.18.101.1", 6000))
        self.assertEqual(bytes(r[UDP].payload), payload(1500 - 28, 9))

    def test_too_many_fragments_is_a_counted_drop(self):
        self.ok()
        try:
            out2 = [f for f in rdpcap(str(self.dir / "out2.pcap")) if IP in f]
        except FileNotFoundError:
            out2 = []
        self.assertEqual(out2, [])

    def test_telemetry(self):
        self.ok()
        self.assertIsNotNone(self.final)
        drops = {k: v for k, v in self.final["drops"]["by_reason"].items() if v}
        self.assertEqual(drops, {"ip4_frag_needed": 2, "ip6_too_big": 1, "l2_too_long": 1,
                                 "relay_too_big": 1, "ip4_frag_failed": 1})
        self.assertEqual(self.out1_of(8), [])
        fwd = self.final["fwd"]
        self.assertEqual(fwd["ip4_fragmented"], 3)
        self.assertEqual(fwd["ip4_fragments"],
                         sum(len(self.out1_of(i)) for i in (2, 3, 11)))
        mtus = {nh["port"]: nh["mtu"] for nh in fwd["next_hops"] if not nh["local"]}
        self.assertEqual(mtus, {0: 9000, 1: 1500, 2: 68})


if __name__ == "__main__":
    if not BIN.exists():
        print(f"SKIP: {BIN} not built")
        sys.exit(77)
    if ICMP is None:
        print("FAIL: python3-scapy is not installed (scripts/dev.sh installs it)")
        sys.exit(1)
    unittest.main(verbosity=2)
