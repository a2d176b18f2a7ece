#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
dpfwd's MTU handling between real Linux hosts (netns.py's topology), the two links at
different MTUs, on each virtual PMD that runs on a veth:

      netns A            netns R: dpfwd                             netns B
   eth0 mtu M_A  --veth-- port0 mtu M_A       port1 mtu M_B --veth-- eth0 mtu M_B

- net_af_packet, M_A 1500 and M_B 1280: DPDK 22.11's af_packet PMD reports max_rx_pktlen
  RTE_ETHER_MAX_LEN (1518 bytes) whatever its framesz/blocksz devargs, so ethdev refuses
  any MTU above 1500 on it (rte_eth_dev_configure and rte_eth_dev_set_mtu check MTU + 18 <=
  max_rx_pktlen), and so does dpfwd's own check. 1500 is the largest; 1280 on B's side is
  the smallest link MTU IPv6 takes, so both families run on both links.
- net_af_xdp, M_A 3434 and M_B 1500: the largest jumbo MTU dpfwd runs there. The PMD
  (built with XDP_UMEM_UNALIGNED_CHUNK_FLAG) receives into the mbufs themselves: the
  mempool is the umem, a mempool object is a umem chunk, and the kernel takes chunks of
  a page at most (4096 bytes here; larger ones are EINVAL) and writes a frame 256 bytes
  (XDP_PACKET_HEADROOM) past the mbuf headroom. dpfwd's buffer for an MTU holds the frame
  with a VLAN tag and CRC: 64 (object header) + 128 (mbuf) + 128 (headroom) + 256 + MTU +
  22, and DPDK pads each object to an odd number of cache lines (spread over memory
  channels): 4032 bytes at most within the page, so MTU 3434 (profile net_af_xdp:
  rx_headroom 256, buf_max 4096). The other limits are above it: the PMD reports
  max_mtu 3542 (a page less the mbuf, both headrooms and an object header without its
  padding) and veth's native XDP caps the peer's MTU at 3506 (a page less
  XDP_PACKET_HEADROOM, skb_shared_info and the Ethernet header: the hosts' eth0 shows
  maxmtu 3506 once dpfwd runs). The kernel never reassembles for XDP sockets, so here
  dpfwd receives the fragments the hosts send, and cuts those over the egress MTU again.

The probes: ICMP data of `size` bytes (1400 on af_packet, 3000 on af_xdp): one frame on
A's link, too long for B's. Each test starts with the hosts' route caches flushed (no PMTU
learned by another test):
- ping -M do: dropped by dpfwd (ip4_frag_needed); A's ping prints "Frag needed and DF
  set (mtu = M_B)" from dpfwd's ICMP type 3 code 4.
- ping -6: ICMPv6 Packet Too Big (ip6_too_big) with mtu M_B; A caches it (`ip -6 route
  get` shows it), fragments at the source and the retry gets every reply.
- ping -M dont: dpfwd fragments each request (fwd.ip4_fragmented); a capture on B checks
  the fragments (offsets, MF, lengths, checksums, ids) and B answers; a capture on A
  checks the replies as dpfwd passed them. Then `size_over_both` bytes (over both MTUs):
  the hosts fragment; on net_af_packet the kernel reassembles and dpfwd cuts the
  datagrams again both ways, on net_af_xdp dpfwd cuts A's fragments over M_B again.
- iperf3 TCP A -> B for 3 s: B's route advertises the MSS of A's MTU (advmss M_A - 40),
  as a host behind a smaller link on a wider network does, so A's first full segments are
  too long for port1 and A's TCP lives on the PMTU that dpfwd's ICMP gives it; then
  B -> A (-R).
The ping -M do, ping -6 and iperf3 cases (MtuSignalTests) run on net_af_xdp only, where
the MTU change is a jumbo one; on net_af_packet the ping -M dont cases run, for what the
kernel reassembled, and a third class has both links at 1500.

Exit status 77 (meson: skipped) with the reason where namespaces cannot be made. The
net_af_xdp class is skipped, with the kernel's errno, only where the kernel itself refuses
an XDP socket on a veth (netns.SkipWhereKernelRefusesXdp, as test_netns.py's AfXdpTest);
any other failure to start fails.

  meson test -C build mtu_netns
  python3 tests/netns/test_mtu_netns.py -v \
      AfXdpMtu3434To1500Test.test_1_ping_df_gets_frag_needed
  DPFWD_NETNS_KEEP=1 ...          # keep the temporary folder (config, pcaps, logs)
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netns  # noqa: E402
from netns import node_pkts  # noqa: E402
from test_netns import BENIGN_DROPS, iperf3, needs, note, ping  # noqa: E402

# what these tests make dpfwd drop on purpose, besides what any clean run shows
MTU_DROPS = {"ip4_frag_needed", "ip6_too_big"}
IP4_HDR = 20


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
        # A's link: A's TCP then needs dpfwd's ICMP to find the real path MTU
        self.b.run("ip", "route", "change", "default", "via", self.b.gw4, "advmss",
                   self.mtus[0] - 40)

    def dpfwd_config(self, driver="net_af_packet", extra=""):
        text = super().dpfwd_config(driver, extra)
        for port, mtu in zip(self.ports, self.mtus):
            text = text.replace(f"[port{port.index}]\n", f"[port{port.index}]\nmtu = {mtu}\n")
        return text


def drops(snap, reason):
    return snap["drops"]["by_reason"].get(reason, 0)


def cut(frag, mtu):
    """An IPv4 packet (offset in bytes, MF, total length) cut to @p mtu as RFC 791 and
    rte_ipv4_fragment_packet() cut it: data in multiples of 8 bytes, MF on every piece but
    the last, which keeps the packet's own; itself when it fits."""
    off, mf, length = frag
    if length <= mtu:
        return [frag]
    step, data = (mtu - IP4_HDR) // 8 * 8, length - IP4_HDR
    return [(off + k, 1 if k + step < data else mf, IP4_HDR + min(step, data - k))
            for k in range(0, data, step)]


def fragments_by_src(cap):
    """The IPv4 packets in a capture, by source address and IP id: {src: {id: [(offset
    in bytes, MF, length)]}}, in offset order. Every header checksum must be good and DF
    clear."""
    r = netns.sh("tshark", "-n", "-r", cap.path, "-o", "ip.check_checksum:TRUE",
                 "-Y", "ip", "-T", "fields", "-E", "separator=\t", "-e", "ip.src",
                 "-e", "ip.id", "-e", "ip.frag_offset", "-e", "ip.flags.mf", "-e", "ip.len",
                 "-e", "ip.flags.df", "-e", "ip.checksum.status", timeout=60)
    by_src = {}
    for line in r.stdout.splitlines():
        src, ip_id, off, mf, ln, df, ck = line.split("\t")
        if (df, ck) != ("0", "1"):  # tshark: 0/1 flags, checksum status 1 = good
            raise AssertionError(f"{cap.path}: id {ip_id}: DF {df}, checksum status {ck}")
        # ip.frag_offset is the header's 13-bit field, in units of 8 bytes
        by_src.setdefault(src, {}).setdefault(ip_id, []).append(
            (int(off) * 8, int(mf), int(ln)))
    return {s: {i: sorted(f) for i, f in by_id.items()} for s, by_id in by_src.items()}


class MtuRig:
    """One topology (A's and B's links at `mtus`) and one dpfwd per class (a mixin
    before netns.RigTest)."""
    driver = "net_af_packet"
    mtus = (1500, 1280)
    # the driver has the kernel reassemble IPv4 before dpfwd gets it (net_af_packet's
    # PACKET_FANOUT_FLAG_DEFRAG)
    reassembles = True
    # bytes the driver keeps in front of a received frame in a packet buffer (its
    # profile's rx_headroom)
    rx_headroom = 0

    @classmethod
    def topology(cls):
        return MtuTopology(cls.mtus, static_neighbors=False, ip6=True)

    @classmethod
    def after_dpfwd(cls):
        # ARP and ND done both ways before any test: a first probe's ICMP error, and
        # the fragments after it, then do not wait on a neighbor being resolved
        for dst in (cls.topo.b.ip4, cls.topo.b.ip6):
            ping(cls.topo.a, dst, 1)

    def setUp(self):
        # no path MTU learned by an earlier test (IPv4 exceptions go with the flush's new
        # generation, IPv6 cached routes with the flush itself)
        for h in self.topo.hosts():
            h.run("ip", "route", "flush", "cache")
            h.run("ip", "-6", "route", "flush", "cache")

    def arriving(self, total, mtu_from):
        """What dpfwd receives of a datagram of @p total bytes that a host on a link of
        @p mtu_from sent (its fragments, or the whole when the driver reassembles)."""
        frags = cut((0, 0, total), mtu_from)
        return [(0, 0, total)] if self.reassembles else frags

    def forwarded(self, total, mtu_from, mtu_to):
        """(what dpfwd sends of that datagram to a link of @p mtu_to, how many packets it
        cut, into how many pieces)."""
        out, cut_n, pieces = [], 0, 0
        for f in self.arriving(total, mtu_from):
            c = cut(f, mtu_to)
            out += c
            if len(c) > 1:
                cut_n, pieces = cut_n + 1, pieces + len(c)
        return out, cut_n, pieces

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


class MtuTests(MtuRig):
    """What dpfwd does with packets over an MTU, on a rig whose class gives the driver,
    the MTUs (A's larger), `size` (ICMP data that makes one frame on A's link, too long
    for B's) and `size_over_both`."""
    size = 1400
    size_over_both = 1600

    def test_0_config_mtus_applied(self):
        """dpfwd runs its ports at the configured MTUs, its next hops carry them, and the
        router's veth ends have them (the PMDs set them through SIOCSIFMTU)."""
        snap = self.dp.snapshot()
        out = self.dp.output()
        for port, mtu in zip(self.topo.ports, self.mtus):
            self.assertRegex(out, rf"port{port.index} .*mtu {mtu} \(config\)")
            link = netns.sh("ip", "-n", self.topo.router_ns, "-o", "link", "show",
                            port.ifname).stdout
            self.assertIn(f" mtu {mtu} ", link)
        # a packet buffer holds a frame of the largest MTU (mbuf header and headroom:
        # 128 bytes each; the driver's own headroom; Ethernet header, VLAN tag, CRC)
        for pool in snap["mempools"]:
            self.assertGreaterEqual(pool["elt_size"], 128 + 128 + self.rx_headroom +
                                    self.mtus[0] + 14 + 4 + 4, pool)
        nh_mtus = {nh["mtu"] for nh in snap["fwd"].get("next_hops", [])}
        self.assertTrue(set(self.mtus) <= nh_mtus, snap["fwd"].get("next_hops"))

    def ping_no_df(self, size, tag):
        """ping -M dont -s @p size, 3 requests, with captures on A and B: every echo
        answered; what dpfwd cut (its counters) and what B and A received (offsets, MF,
        lengths, good checksums, one id per datagram) as the model above says: the hosts
        fragment to their own link, the driver reassembles or not, dpfwd cuts what is over
        the egress MTU and passes the rest as it came."""
        a, b = self.topo.a, self.topo.b
        mtu_a, mtu_b = self.mtus
        total = IP4_HDR + 8 + size
        to_b, cut_ab, pieces_ab = self.forwarded(total, mtu_a, mtu_b)
        to_a, cut_ba, pieces_ba = self.forwarded(total, mtu_b, mtu_a)
        cap_a = netns.Capture(a, os.path.join(self.topo.tmp, f"a-{tag}.pcapng"),
                              bpf=f"ip and host {b.ip4}", wait=False)
        cap_b = netns.Capture(b, os.path.join(self.topo.tmp, f"b-{tag}.pcapng"),
                              bpf=f"ip and host {a.ip4}", wait=False)
        cap_a.wait_started()
        cap_b.wait_started()
        before = self.dp.snapshot()
        tx, rx, _, out = ping(a, b.ip4, 3, extra=("-M", "dont", "-s", size))
        want = (3 * (cut_ab + cut_ba), 3 * (pieces_ab + pieces_ba))
        (fragmented, fragments), after = self.fragmented_since(before, want[0])
        cap_a.stop()
        cap_b.stop()
        note(f"ping -M dont -s {size}: {tx} sent, {rx} replies; dpfwd fragmented "
             f"{fragmented} into {fragments}; to B {to_b}, to A {to_a}")
        seen_b, seen_a = fragments_by_src(cap_b), fragments_by_src(cap_a)
        # where an echo was lost: what each host received, dpfwd's drops and ports
        dropped = {k: v - before["drops"]["by_reason"].get(k, 0)
                   for k, v in after["drops"]["by_reason"].items()
                   if v != before["drops"]["by_reason"].get(k, 0)}
        ports = [{k: p[k] - q[k] for k in ("ipackets", "opackets", "imissed", "oerrors")
                  if k in p} for p, q in zip(after["ports"], before["ports"])]
        self.assertEqual((tx, rx), (3, 3), f"{out}\nB received {seen_b}\nA received "
                         f"{seen_a}\ndpfwd's drops {dropped}, ports {ports}")
        self.assertEqual((fragmented, fragments), want, after["fwd"])
        self.assertEqual(drops(after, "l2_too_long"), drops(before, "l2_too_long"))
        requests = seen_b.get(a.ip4, {})
        self.assertEqual(list(requests.values()), [to_b] * 3, requests)
        # B's replies as B sent them, and as A got them from dpfwd
        replies_b = seen_b.get(b.ip4, {})
        self.assertEqual(list(replies_b.values()), [cut((0, 0, total), mtu_b)] * 3, replies_b)
        replies_a = seen_a.get(b.ip4, {})
        self.assertEqual(list(replies_a.values()), [to_a] * 3, replies_a)

    @needs("tshark")
    def test_3_ping_no_df_fragmented_by_dpfwd(self):
        """ping -M dont -s `size`: dpfwd cuts each request for port1, B reassembles and
        answers; B fragments its replies to its MTU. On net_af_packet the kernel
        reassembles those (PACKET_FANOUT_FLAG_DEFRAG): dpfwd takes a frame longer than
        port1's MTU (its profile's ip4_whole_max, not l2_too_long) and sends it whole to A;
        on net_af_xdp it forwards B's fragments as they are."""
        self.ping_no_df(self.size, "frag")

    @needs("tshark")
    def test_3b_ping_no_df_over_both_mtus_cut_again_by_dpfwd(self):
        """ping -M dont -s `size_over_both` (over both MTUs): each host fragments its own.
        net_af_packet reassembles them and dpfwd cuts each datagram again for the way
        out, both ways; net_af_xdp hands over A's fragments and dpfwd cuts the first,
        over port1's MTU, again (MF kept on its last piece), B's all fit port0. Without
        that (packets past the MTU sent as they came) every echo would be lost."""
        self.ping_no_df(self.size_over_both, "frag2")

    def test_9_stop_clean(self):
        self.assertGreater(node_pkts(self.assert_stopped_clean(), "ip4_frag"), 0)


class MtuSignalTests:
    """What the hosts learn from dpfwd (ICMP fragmentation needed, Packet Too Big) and TCP
    across the MTU change: a mixin before MtuTests."""

    def test_1_ping_df_gets_frag_needed(self):
        """ping -M do: the first request dropped by dpfwd, ICMP fragmentation needed with
        port1's MTU back to A (iputils prints "Frag needed and DF set (mtu = M_B)"); A
        caches that PMTU, so the next two fail in A itself and never reach dpfwd (ping
        counts "+3 errors", dpfwd one ip4_frag_needed)."""
        a, b, mtu_b = self.topo.a, self.topo.b, self.mtus[1]
        before = self.dp.snapshot()
        tx, rx, _, out = ping(a, b.ip4, 3, extra=("-M", "do", "-s", self.size))
        after = self.dp.snapshot()
        self.assertEqual(rx, 0, out)
        self.assertIn(f"From {self.topo.ports[0].ip4} icmp_seq=1 Frag needed and DF set "
                      f"(mtu = {mtu_b})", out)
        self.assertIn(", +3 errors,", out)
        self.assertEqual(drops(after, "ip4_frag_needed") - drops(before, "ip4_frag_needed"),
                         1, after["drops"])
        self.assertEqual(after["fwd"]["ip4_fragmented"], before["fwd"]["ip4_fragmented"])
        # A learned the path MTU from it
        route = a.run("ip", "route", "get", b.ip4).stdout
        self.assertIn(f"mtu {mtu_b}", route)
        note(f"ping -M do -s {self.size}: {tx} sent, {rx} replies; A's route: "
             f"{' '.join(route.split())}")

    def test_2_ping6_gets_packet_too_big_then_pmtu(self):
        """ping -6: the first request too big for port1, ICMPv6 Packet Too Big with its
        MTU (one ip6_too_big); A caches the PMTU (`ip -6 route get` says mtu M_B) and
        fragments the next requests at the source: the second and third are answered, and
        a retry gets every reply with no PTB more."""
        a, b, mtu_b = self.topo.a, self.topo.b, self.mtus[1]
        before = self.dp.snapshot()
        _, rx, _, out = ping(a, b.ip6, 3, extra=("-6", "-s", self.size))
        after = self.dp.snapshot()
        self.assertIn(f"From {self.topo.ports[0].ip6} icmp_seq=1 Packet too big: "
                      f"mtu={mtu_b}", out)
        self.assertEqual(rx, 2, out)
        self.assertEqual(drops(after, "ip6_too_big") - drops(before, "ip6_too_big"), 1,
                         after["drops"])
        route = a.run("ip", "-6", "route", "get", b.ip6).stdout
        self.assertIn(f"mtu {mtu_b}", route)
        tx, rx, loss, out = ping(a, b.ip6, 3, extra=("-6", "-s", self.size))
        self.assertEqual((tx, rx), (3, 3), out)
        final = self.dp.snapshot()
        self.assertEqual(drops(final, "ip6_too_big"), drops(after, "ip6_too_big"))

    @needs("iperf3")
    def test_4_iperf3_tcp_a_to_b_finds_pmtu(self):
        """3 s of iperf3 TCP A -> B: B advertises A's MSS (its route's advmss), A's first
        full segments (M_A bytes, DF) are dropped by dpfwd with ICMP fragmentation
        needed, and A's TCP goes on at the PMTU of M_B it learned from them."""
        before = self.dp.snapshot()
        res = iperf3(self.topo, "-t", "3")
        after = self.dp.snapshot()
        self.check_tcp(res, "A -> B", before, after)
        # A sent segments too long for port1 and learned the PMTU from dpfwd's ICMP
        self.assertGreaterEqual(drops(after, "ip4_frag_needed") -
                                drops(before, "ip4_frag_needed"), 1, after["drops"])
        self.assertIn(f"mtu {self.mtus[1]}", self.topo.a.run("ip", "route", "get",
                                                             self.topo.b.ip4).stdout)

    @needs("iperf3")
    def test_5_iperf3_tcp_b_to_a(self):
        """3 s of iperf3 TCP B -> A (-R): B's segments fit its own MTU and go through
        port0 (the larger) as they are."""
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


class AfPacketMtu1500To1280Test(MtuTests, netns.RigTest):
    """dpfwd on net_af_packet between A (MTU 1500, the most it takes) and B (MTU 1280):
    what the kernel reassembled, cut by dpfwd. The ICMP signals and TCP (MtuSignalTests)
    run on net_af_xdp only, where the MTU change is a jumbo one."""


class AfXdpMtu3434To1500Test(netns.SkipWhereKernelRefusesXdp, MtuSignalTests, MtuTests,
                             netns.RigTest):
    """dpfwd on net_af_xdp between A (MTU 3434, the largest its buffers take: see the
    module's docstring) and B (MTU 1500)."""
    driver = "net_af_xdp"
    mtus = (3434, 1500)
    reassembles = False
    rx_headroom = 256  # XDP_PACKET_HEADROOM (profile net_af_xdp)
    size = 3000
    size_over_both = 4000

    def test_8_check_beside_a_running_dpfwd_leaves_it_alone(self):
        """`dpfwd --check` on the config of the running dpfwd: the af_xdp PMD's close
        would take the interface's XDP program off, whoever loaded it, so with an AF_XDP
        socket bound there the check refuses to probe (exit 1, naming the port and
        interface) and the running dpfwd still forwards. test_9b checks the same config
        once dpfwd stopped: nothing bound, the check probes."""
        a, b = self.topo.a, self.topo.b
        r = netns.Dpfwd(self.topo, self.driver).check()
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        # the socket where the kernel lists AF_XDP sockets (xsk_diag), else the program
        self.assertRegex(r.stderr, rf"port0 \(net_af_xdp\): interface "
                         rf"{self.topo.ports[0].ifname} (has 1 AF_XDP socket bound|has an "
                         r"XDP program \(id \d+\) and this kernel cannot list AF_XDP)")
        note(r.stderr.strip().split(": ", 2)[-1][:90])
        tx, rx, _, out = ping(a, b.ip4, 3)
        self.assertEqual((tx, rx), (3, 3), out)

    def test_9b_check_refuses_an_mtu_over_the_buffers(self):
        """`dpfwd --check` on this topology with port0 one byte over: exit 2, and the
        message says where, why and the largest MTU. After test_9 stopped dpfwd: the
        af_xdp PMD's close, at --check's exit too, takes the interface's XDP program
        off, whoever loaded it."""
        mtu = self.mtus[0] + 1
        dp = netns.Dpfwd(self.topo, self.driver)
        with open(dp.cfg) as f:
            text = f.read().replace(f"mtu = {self.mtus[0]}\n", f"mtu = {mtu}\n")
        with open(dp.cfg, "w") as f:
            f.write(text)
        r = dp.check()
        line = text.splitlines().index(f"mtu = {mtu}") + 1
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertRegex(r.stderr, rf"dpfwd.ini:{line}: port0 \(net_af_xdp\): \[port0\] mtu "
                         rf"{mtu} needs packet buffers of \d+ bytes")
        self.assertIn(f"mtu {self.mtus[0]} at most", r.stderr)


class AfPacketMtu1500BothTest(MtuRig, netns.RigTest):
    """Both links at 1500, dpfwd on net_af_packet: one MTU, yet the driver hands over
    IPv4 the kernel reassembled, past it; dpfwd must still compare those with the next
    hop's MTU (no shortcut for ports of one MTU here)."""
    mtus = (1500, 1500)

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
                    "A -- dpfwd -- B: net_af_packet at mtu 1500/1280 and 1500/1500, "
                    f"net_af_xdp at 3434/1500; dpfwd {netns.DPFWD_BIN}")


if __name__ == "__main__":
    main()
