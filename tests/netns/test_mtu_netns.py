#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
dpfwd's MTU handling between real Linux hosts (netns.py's topology), the two links at
different MTUs: host A and port0 at 1500, host B and port1 at 1280.

      netns A            netns R: dpfwd (net_af_packet)             netns B
   eth0 mtu 1500 --veth-- port0 mtu 1500     port1 mtu 1280 --veth-- eth0 mtu 1280

Why 1500 and 1280, not 9000 and 1500: DPDK 22.11's af_packet PMD reports max_rx_pktlen
RTE_ETHER_MAX_LEN (1518 bytes) whatever its framesz/blocksz devargs, so ethdev refuses any
MTU above 1500 on it (rte_eth_dev_configure and rte_eth_dev_set_mtu check MTU + 18 <=
max_rx_pktlen), and so does dpfwd's own check. 1500 is the largest; 1280 on B's side is
the smallest link MTU IPv6 takes, so both families run on both links. The probes are
1400 bytes of ICMP data (a 1428-byte IPv4 packet, 1448 bytes with IPv6): one frame on A's
link, too long for B's. dpfwd's packet buffers need nothing more for these MTUs (1500 +
Ethernet, VLAN and CRC + headroom: 1650 bytes, under the default data room of 2176).

Each test starts with the hosts' route caches flushed (no PMTU learned by another test):
- ping -M do: dropped by dpfwd (ip4_frag_needed); A's ping prints "Frag needed and DF
  set (mtu = 1280)" from dpfwd's ICMP type 3 code 4.
- ping -6: ICMPv6 Packet Too Big (ip6_too_big) with mtu 1280; A caches it (`ip -6 route
  get` shows mtu 1280), fragments at the source and the retry gets every reply.
- ping -M dont: dpfwd fragments each request (fwd.ip4_fragmented); a capture on B checks
  the fragments (offsets, MF, lengths, checksums, ids) and B answers. With 1600 bytes,
  over both MTUs, the hosts fragment, net_af_packet hands dpfwd the datagrams the kernel
  reassembled, and dpfwd cuts them again both ways.
- iperf3 TCP A -> B for 3 s: B's route advertises MSS 1460 (advmss), as a host behind a
  smaller link does, so A's first full segments are too long for port1 and A's TCP
  lives on the PMTU that dpfwd's ICMP gives it; then B -> A (-R).

Exit status 77 (meson: skipped) with the reason where namespaces cannot be made.

  meson test -C build mtu_netns
  python3 tests/netns/test_mtu_netns.py -v \
      AfPacketMtu1500To1280Test.test_1_ping_df_gets_frag_needed_mtu_1280
  DPFWD_NETNS_KEEP=1 ...          # keep the temporary folder (config, pcaps, logs)
"""
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netns  # noqa: E402
from netns import node_pkts  # noqa: E402
from test_netns import BENIGN_DROPS, iperf3, needs, note, ping  # noqa: E402

MTU_A = 1500  # host A's link and dpfwd's port0: the most net_af_packet takes (see above)
MTU_B = 1280  # host B's link and dpfwd's port1
SIZE = 1400   # ICMP data: 1428-byte IPv4 packets, 1448-byte IPv6 ones
# a 1428-byte IPv4 datagram cut to MTU_B: data in multiples of 8 bytes
FRAG_DATA = (MTU_B - 20) // 8 * 8  # 1256
# what these tests make dpfwd drop on purpose, besides what any clean run shows
MTU_DROPS = {"ip4_frag_needed", "ip6_too_big"}


class MtuTopology(netns.Topology):
    """netns.py's topology with A's link at mtus[0] and B's at mtus[1] (both veth ends),
    and `mtu =` in dpfwd's [port0] and [port1]."""

    def __init__(self, mtus, **kw):
        super().__init__(**kw)
        self.mtus = mtus

    def _build(self):
        super()._build()
        for host, port, mtu in zip(self.hosts(), self.ports, self.mtus):
            host.run("ip", "link", "set", host.ifname, "mtu", mtu)
            netns.sh("ip", "-n", self.router_ns, "link", "set", port.ifname, "mtu", mtu)
        # B, as a host behind a small link does on a wider network, advertises the MSS of
        # a 1500-byte path: A's TCP then needs dpfwd's ICMP to find the real path MTU
        self.b.run("ip", "route", "change", "default", "via", self.b.gw4, "advmss", 1460)

    def dpfwd_config(self, driver="net_af_packet", extra=""):
        text = super().dpfwd_config(driver, extra)
        for port, mtu in zip(self.ports, self.mtus):
            text = text.replace(f"[port{port.index}]\n", f"[port{port.index}]\nmtu = {mtu}\n")
        return text


def drops(snap, reason):
    return snap["drops"]["by_reason"].get(reason, 0)


def fragments_by_id(cap, src):
    """The IPv4 packets from src in a capture, by IP id: [(offset in bytes, MF, length)]
    in offset order. Every header checksum must be good and DF clear."""
    r = netns.sh("tshark", "-n", "-r", cap.path, "-o", "ip.check_checksum:TRUE",
                 "-Y", f"ip.src == {src}", "-T", "fields", "-E", "separator=\t",
                 "-e", "ip.id", "-e", "ip.frag_offset", "-e", "ip.flags.mf", "-e", "ip.len",
                 "-e", "ip.flags.df", "-e", "ip.checksum.status", timeout=60)
    by_id = {}
    for line in r.stdout.splitlines():
        ip_id, off, mf, ln, df, ck = line.split("\t")
        if (df, ck) != ("0", "1"):  # tshark: 0/1 flags, checksum status 1 = good
            raise AssertionError(f"{cap.path}: id {ip_id}: DF {df}, checksum status {ck}")
        # ip.frag_offset is the header's 13-bit field, in units of 8 bytes
        by_id.setdefault(ip_id, []).append((int(off) * 8, int(mf), int(ln)))
    return {i: sorted(f) for i, f in by_id.items()}


class MtuRig:
    """One topology (A's and B's links at `mtus`) and one dpfwd per class."""
    driver = "net_af_packet"
    mtus = (MTU_A, MTU_B)

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(netns.DPFWD_BIN):
            raise unittest.SkipTest(f"{netns.DPFWD_BIN} missing: build first")
        cls.topo = MtuTopology(cls.mtus, static_neighbors=False, ip6=True)
        try:
            cls.topo.up()
            cls.dp = netns.Dpfwd(cls.topo, cls.driver).start().wait_ready()
        except BaseException:
            cls.topo.down()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.topo.down()

    def setUp(self):
        # no path MTU learned by an earlier test (IPv4 exceptions go with the flush's new
        # generation, IPv6 cached routes with the flush itself)
        for h in self.topo.hosts():
            h.run("ip", "route", "flush", "cache")
            h.run("ip", "-6", "route", "flush", "cache")

    def fragmented_since(self, before, packets):
        """fwd's (ip4_fragmented, ip4_fragments) increase since @p before, once it has
        reached @p packets or 3 s passed, and that snapshot. dpfwd gathers a snapshot,
        then writes it: with its main lcore descheduled in between on this shared
        machine, the first file written after the traffic can miss the last echo (one
        echo short was seen once in a suite run, every echo answered)."""
        deadline = time.monotonic() + 3
        while True:
            snap = self.dp.snapshot()
            got = tuple(snap["fwd"][f] - before["fwd"][f]
                        for f in ("ip4_fragmented", "ip4_fragments"))
            if got[0] >= packets or time.monotonic() > deadline:
                return got, snap

    def assert_stopped_clean(self):
        """SIGTERM: exit 0, final JSON, no mbuf leak, no drop but the tests' own."""
        rc = self.dp.stop()
        snap = self.dp.read_json()
        self.assertTrue(snap.get("final"), f"no final JSON; dpfwd exit {rc}:\n"
                        f"{self.dp.output()}")
        self.assertEqual((rc, snap["run"]["mbufs_over_baseline"]), (0, 0), self.dp.output())
        bad = {k: v for k, v in snap["drops"]["by_reason"].items()
               if v and k not in BENIGN_DROPS | MTU_DROPS}
        self.assertEqual(bad, {}, f"drops these tests cannot explain: {bad}")
        return snap


class AfPacketMtu1500To1280Test(MtuRig, unittest.TestCase):
    """dpfwd on net_af_packet between A (MTU 1500) and B (MTU 1280)."""

    def test_0_config_mtus_applied(self):
        """dpfwd runs its ports at the configured MTUs, its next hops carry them, and the
        router's veth ends have them (the PMD sets them through SIOCSIFMTU)."""
        snap = self.dp.snapshot()
        out = self.dp.output()
        for port, mtu in zip(self.topo.ports, self.mtus):
            self.assertRegex(out, rf"port{port.index} .*mtu {mtu} \(config\)")
            link = netns.sh("ip", "-n", self.topo.router_ns, "-o", "link", "show",
                            port.ifname).stdout
            self.assertIn(f" mtu {mtu} ", link)
        # a packet buffer holds a frame of the largest MTU (mbuf header and headroom:
        # 128 bytes each; Ethernet header, VLAN tag, CRC)
        for pool in snap["mempools"]:
            self.assertGreaterEqual(pool["elt_size"], 128 + 128 + MTU_A + 14 + 4 + 4, pool)
        nh_mtus = {nh["mtu"] for nh in snap["fwd"].get("next_hops", [])}
        self.assertTrue(set(self.mtus) <= nh_mtus, snap["fwd"].get("next_hops"))

    def test_1_ping_df_gets_frag_needed_mtu_1280(self):
        """ping -M do: the first request dropped by dpfwd, ICMP fragmentation needed with
        port1's MTU back to A (iputils prints "Frag needed and DF set (mtu = 1280)"); A
        caches that PMTU, so the next two fail in A itself and never reach dpfwd (ping
        counts "+3 errors", dpfwd one ip4_frag_needed)."""
        a, b = self.topo.a, self.topo.b
        before = self.dp.snapshot()
        tx, rx, _, out = ping(a, b.ip4, 3, extra=("-M", "do", "-s", SIZE))
        after = self.dp.snapshot()
        self.assertEqual(rx, 0, out)
        self.assertIn(f"From {self.topo.ports[0].ip4} icmp_seq=1 Frag needed and DF set "
                      f"(mtu = {MTU_B})", out)
        self.assertIn(", +3 errors,", out)
        self.assertEqual(drops(after, "ip4_frag_needed") - drops(before, "ip4_frag_needed"),
                         1, after["drops"])
        self.assertEqual(after["fwd"]["ip4_fragmented"], before["fwd"]["ip4_fragmented"])
        # A learned the path MTU from it
        route = a.run("ip", "route", "get", b.ip4).stdout
        self.assertIn(f"mtu {MTU_B}", route)
        note(f"ping -M do: {tx} sent, {rx} replies; A's route: {' '.join(route.split())}")

    def test_2_ping6_gets_packet_too_big_mtu_1280_then_pmtu(self):
        """ping -6: the first request too big for port1, ICMPv6 Packet Too Big with its
        MTU (one ip6_too_big); A caches the PMTU (`ip -6 route get` says mtu 1280) and
        fragments the next requests at the source: the second and third are answered, and
        a retry gets every reply with no PTB more."""
        a, b = self.topo.a, self.topo.b
        before = self.dp.snapshot()
        _, rx, _, out = ping(a, b.ip6, 3, extra=("-6", "-s", SIZE))
        after = self.dp.snapshot()
        self.assertIn(f"From {self.topo.ports[0].ip6} icmp_seq=1 Packet too big: "
                      f"mtu={MTU_B}", out)
        self.assertEqual(rx, 2, out)
        self.assertEqual(drops(after, "ip6_too_big") - drops(before, "ip6_too_big"), 1,
                         after["drops"])
        route = a.run("ip", "-6", "route", "get", b.ip6).stdout
        self.assertIn(f"mtu {MTU_B}", route)
        tx, rx, loss, out = ping(a, b.ip6, 3, extra=("-6", "-s", SIZE))
        self.assertEqual((tx, rx), (3, 3), out)
        final = self.dp.snapshot()
        self.assertEqual(drops(final, "ip6_too_big"), drops(after, "ip6_too_big"))

    @needs("tshark")
    def test_3_ping_no_df_fragmented_to_1280_by_dpfwd(self):
        """ping -M dont: dpfwd cuts each 1428-byte request into two fragments for port1
        (1276 + 172 bytes), B reassembles and answers. Checked on B's capture, apart from
        dpfwd's counters: offsets, MF, lengths, checksums, one id per request.

        The replies: B cuts each to its MTU itself; net_af_packet has the kernel
        reassemble them (the PMD's PACKET_FANOUT_FLAG_DEFRAG), so dpfwd receives a
        1442-byte frame on port1 (MTU 1280), takes it (its profile's ip4_whole_max,
        not l2_too_long) and sends it whole to A through port0 (MTU 1500)."""
        a, b = self.topo.a, self.topo.b
        cap_a = netns.Capture(a, os.path.join(self.topo.tmp, "a-frag.pcapng"),
                              bpf=f"ip and host {b.ip4}")
        cap_b = netns.Capture(b, os.path.join(self.topo.tmp, "b-frag.pcapng"),
                              bpf=f"ip and host {a.ip4}")
        before = self.dp.snapshot()
        tx, rx, _, out = ping(a, b.ip4, 3, extra=("-M", "dont", "-s", SIZE))
        (fragmented, fragments), after = self.fragmented_since(before, 3)
        cap_a.stop()
        cap_b.stop()
        note(f"ping -M dont: {tx} sent, {rx} replies; dpfwd fragmented {fragmented} "
             f"into {fragments}")
        self.assertEqual((fragmented, fragments), (3, 6), after["fwd"])
        self.assertEqual(drops(after, "l2_too_long"), drops(before, "l2_too_long"))

        # one datagram of 20 + 8 + SIZE bytes cut to MTU_B: data in multiples of 8 bytes
        frags = [(0, 1, 20 + FRAG_DATA), (FRAG_DATA, 0, 20 + SIZE + 8 - FRAG_DATA)]
        requests = fragments_by_id(cap_b, a.ip4)
        self.assertEqual(list(requests.values()), [frags] * 3, requests)
        # B's replies as B sent them, and as A got them from dpfwd
        self.assertEqual(sorted(map(len, fragments_by_id(cap_b, b.ip4).values())), [2, 2, 2])
        whole = fragments_by_id(cap_a, b.ip4)
        self.assertEqual(list(whole.values()), [[(0, 0, 20 + 8 + SIZE)]] * 3, whole)
        self.assertEqual((tx, rx), (3, 3), out)

    @needs("tshark")
    def test_3b_ping_no_df_over_both_mtus_cut_again_by_dpfwd(self):
        """ping -M dont -s 1600 (1628-byte packets, over both MTUs): each host fragments
        its own, net_af_packet reassembles them (1628 bytes > port0's and port1's MTU), and
        dpfwd cuts each again for the way out: 1276 + 372 bytes to B, 1500 + 148 to A.
        Without that (frames past the MTU sent as they came) every echo would be lost."""
        a, b = self.topo.a, self.topo.b
        size = 1600
        cap_a = netns.Capture(a, os.path.join(self.topo.tmp, "a-frag2.pcapng"),
                              bpf=f"ip and host {b.ip4}")
        before = self.dp.snapshot()
        tx, rx, _, out = ping(a, b.ip4, 3, extra=("-M", "dont", "-s", size))
        (fragmented, fragments), after = self.fragmented_since(before, 6)
        cap_a.stop()
        note(f"ping -M dont -s {size}: {tx} sent, {rx} replies; dpfwd fragmented "
             f"{fragmented} into {fragments}")
        self.assertEqual((tx, rx), (3, 3), out)
        self.assertEqual((fragmented, fragments), (6, 12), after["fwd"])
        self.assertEqual(drops(after, "l2_too_long"), drops(before, "l2_too_long"))
        data_a = (MTU_A - 20) // 8 * 8  # 1480
        replies = fragments_by_id(cap_a, b.ip4)
        self.assertEqual(list(replies.values()),
                         [[(0, 1, 20 + data_a), (data_a, 0, 20 + size + 8 - data_a)]] * 3,
                         replies)

    @needs("iperf3")
    def test_4_iperf3_tcp_a_to_b_finds_pmtu_1280(self):
        """3 s of iperf3 TCP A -> B: B advertises MSS 1460 (its route's advmss), A's
        first full segments (1500 bytes, DF) are dropped by dpfwd with ICMP fragmentation
        needed, and A's TCP goes on at the PMTU of 1280 it learned from them."""
        before = self.dp.snapshot()
        res = iperf3(self.topo, "-t", "3")
        after = self.dp.snapshot()
        self.check_tcp(res, "A -> B", before, after)
        # A sent segments too long for port1 and learned the PMTU from dpfwd's ICMP
        self.assertGreaterEqual(drops(after, "ip4_frag_needed") -
                                drops(before, "ip4_frag_needed"), 1, after["drops"])
        self.assertIn(f"mtu {MTU_B}", self.topo.a.run("ip", "route", "get",
                                                      self.topo.b.ip4).stdout)

    @needs("iperf3")
    def test_5_iperf3_tcp_b_to_a(self):
        """3 s of iperf3 TCP B -> A (-R): B's segments fit its own MTU, 1280, and go
        through port0 (1500) as they are."""
        before = self.dp.snapshot()
        res = iperf3(self.topo, "-t", "3", "-R")
        after = self.dp.snapshot()
        self.check_tcp(res, "B -> A", before, after)

    def check_tcp(self, res, what, before, after):
        recv = res["end"]["sum_received"]
        needed = drops(after, "ip4_frag_needed") - drops(before, "ip4_frag_needed")
        note(f"iperf3 TCP {what}: {recv['bits_per_second'] / 1e6:.0f} Mbit/s, "
             f"{res['end']['sum_sent'].get('retransmits', '?')} retransmits, "
             f"ip4_frag_needed +{needed}")
        self.assertGreater(recv["bits_per_second"], 0)
        self.assertGreater(recv["bytes"], 0.9 * res["end"]["sum_sent"]["bytes"])
        # TCP sets DF: nothing of it was fragmented
        self.assertEqual(after["fwd"]["ip4_fragmented"], before["fwd"]["ip4_fragmented"])

    def test_9_stop_clean(self):
        self.assertGreater(node_pkts(self.assert_stopped_clean(), "ip4_frag"), 0)


class AfPacketMtu1500BothTest(MtuRig, unittest.TestCase):
    """Both links at 1500, dpfwd on net_af_packet: one MTU, yet the driver hands over
    IPv4 the kernel reassembled, past it; dpfwd must still compare those with the next
    hop's MTU (no shortcut for ports of one MTU here)."""
    mtus = (MTU_A, MTU_A)

    def test_1_ping_no_df_1600_reassembled_by_kernel_cut_again(self):
        """ping -M dont -s 1600: A and B fragment at 1500, net_af_packet reassembles,
        dpfwd cuts each 1628-byte datagram again (1500 + 148), and every echo is
        answered."""
        a, b = self.topo.a, self.topo.b
        before = self.dp.snapshot()
        tx, rx, _, out = ping(a, b.ip4, 3, extra=("-M", "dont", "-s", 1600))
        (fragmented, fragments), after = self.fragmented_since(before, 6)
        note(f"ping -M dont -s 1600: {tx} sent, {rx} replies; dpfwd fragmented "
             f"{fragmented} into {fragments}")
        self.assertEqual((tx, rx), (3, 3), out)
        self.assertEqual((fragmented, fragments), (6, 12), after["fwd"])

    def test_9_stop_clean(self):
        self.assert_stopped_clean()


def main():
    netns.run_tests("mtu_netns", __name__,
                    f"A mtu {MTU_A} -- dpfwd -- B mtu {MTU_B}; dpfwd {netns.DPFWD_BIN}")


if __name__ == "__main__":
    main()
