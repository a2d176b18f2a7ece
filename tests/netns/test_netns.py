#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
dpfwd routing between real Linux hosts in network namespaces (see netns.py for the
topology): A 198.18.10.2/24 -- port0 [dpfwd] port1 -- B 198.18.20.2/24, each host with
its default route via dpfwd, unmodified ping, iperf3 and tshark.

Exit status 77 (meson: skipped) with the reason when this machine cannot make network
namespaces (not root, a container without CAP_SYS_ADMIN, no veth). Tests of features
dpfwd does not have yet are skipped while their name is in FEATURES_PENDING.

  meson test -C build --suite netns          # all of it (~25 s)
  python3 tests/netns/test_netns.py -v AfPacketTest.test_1_ping_a_to_b_counted
  DPFWD_NETNS_KEEP=1 ...                      # keep the temporary folder (configs, pcaps, logs)
  DPFWD_NETNS_FEATURES=arp,ip6 ...            # treat these as landed without editing the file
"""
import json
import os
import re
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netns  # noqa: E402
from netns import node_pkts, port_stat  # noqa: E402

# Features dpfwd does not have yet; their tests are skipped with this reason. Remove a
# name when the feature lands: "arp" also switches the whole suite to dynamic neighbors
# (no static entries on the hosts nor in dpfwd's config), "ip6" gives dpfwd its IPv6
# addresses.
FEATURES_PENDING = set()
FEATURES_PENDING -= set(filter(None, os.environ.get("DPFWD_NETNS_FEATURES", "").split(",")))
STATIC_NEIGHBORS = "arp" in FEATURES_PENDING
WITH_IP6 = "ip6" not in FEATURES_PENDING

# Drop reasons a clean run still shows: what the hosts send by themselves (IPv6 router
# solicitations, MLD reports, DAD probes), ARP/ND frames freed once learned from, and
# what dpfwd cannot take yet. Any other reason (bad checksum, no route, TX full...) fails.
BENIGN_DROPS = {"arp_consumed", "nd_consumed", "nd_not_for_us", "ip6_mcast", "ip6_link_local",
                "icmp6_unhandled",
                # test_6b/6c's probes: TTL 1 and a destination without a route
                "ip4_ttl_exceeded", "ip4_no_route", "ip6_hop_limit"}
if not WITH_IP6:
    BENIGN_DROPS |= {"not_ip4", "ip6_off"}
if STATIC_NEIGHBORS:
    BENIGN_DROPS |= {"arp"}

TRAFFIC = os.path.join(netns.HERE, "traffic.py")
GOOD = "1"  # tshark's *.checksum.status: 0 bad, 1 good, 2 unverified


def note(text):
    """A line of results in the test's verbose output (unittest writes to stderr)."""
    sys.stderr.write(f"\n  {text} ")
    sys.stderr.flush()


def pending(feature, what):
    return unittest.skipIf(feature in FEATURES_PENDING,
                           f"pending: {what} (remove '{feature}' from FEATURES_PENDING "
                           f"in tests/netns/test_netns.py when it lands)")


def needs(*tools):
    miss = netns.missing_tools(*tools)
    return unittest.skipIf(bool(miss), f"{', '.join(miss)} not installed (scripts/dev.sh "
                                       f"installs it)")


def ping(host, dst, count=5, extra=(), timeout=30):
    """ping's (transmitted, received, loss %, output)."""
    r = host.run("ping", "-n", "-c", count, "-i", "0.2", "-W", "2", *extra, dst,
                 check=False, timeout=timeout)
    m = re.search(r"(\d+) packets transmitted, (\d+) received.*?([\d.]+)% packet loss",
                  r.stdout)
    if m is None:
        raise AssertionError(f"ping {dst}: exit {r.returncode}: {r.stdout}{r.stderr}")
    return int(m.group(1)), int(m.group(2)), float(m.group(3)), r.stdout


def iperf3(topo, *client_args, timeout=30):
    """One iperf3 run, A (client) -> B (one-off server): the client's JSON."""
    srv = topo.b.spawn("iperf3", "-s", "-1", "-B", topo.b.ip4)
    deadline = time.monotonic() + 10
    while not topo.b.run("ss", "-Hltn", "sport = :5201").stdout.strip():
        if srv.poll() is not None or time.monotonic() > deadline:
            raise AssertionError("the iperf3 server did not start")
        time.sleep(0.05)
    r = topo.a.run("iperf3", "-c", topo.b.ip4, "-J", *client_args, check=False,
                   timeout=timeout)
    netns.stop_process(srv)
    netns.undo(srv.cleanup)
    try:
        res = json.loads(r.stdout)
    except ValueError:
        raise AssertionError(f"iperf3: exit {r.returncode}: {r.stdout}{r.stderr}")
    if "error" in res:
        raise AssertionError(f"iperf3: {res['error']}")
    return res


class Router:
    """The tests, on one topology and one dpfwd (set up once per driver class; a mixin
    before netns.RigTest)."""
    driver = None
    # mbufs a PMD may still hold after the workers stop, which dpfwd's exit check then
    # reports as leaked (see AfXdpTest); 0 = none allowed
    held_mbufs_allowed = 0

    @classmethod
    def topology(cls):
        return netns.Topology(static_neighbors=STATIC_NEIGHBORS, ip6=WITH_IP6)

    def assert_ping(self, src, dst, count=5, extra=()):
        tx, rx, loss, out = ping(src, dst, count, extra)
        self.assertEqual((tx, rx, loss), (count, count, 0.0), f"ping {dst}:\n{out}")

    def assert_stopped_clean(self, dp):
        """SIGTERM: exit 0, final JSON, no mbuf leak, no drop that this clean
        topology cannot explain (bad checksums, martians, no route, TX full...)."""
        rc = dp.stop()
        snap = dp.read_json()
        self.assertTrue(snap.get("final"), f"no final JSON; dpfwd exit {rc}:\n{dp.output()}")
        held = snap["run"]["mbufs_over_baseline"]
        if 0 < held <= self.held_mbufs_allowed:
            # the known case: exit 1 with that message and nothing else wrong
            self.assertEqual(rc, 1, dp.output())
            errors = [ln for ln in dp.output().splitlines()
                      if re.search(r"\berror:|\bERR\b", ln)]
            self.assertEqual(errors, [f"dpfwd: error: {held} mbufs leaked"])
            note(f"NOTE: {self.driver}: dpfwd reports {held} mbufs leaked at exit: "
                 f"the PMD still holds the last TX burst per port (see AfXdpTest)")
        else:
            self.assertEqual((rc, held), (0, 0), f"dpfwd exit {rc}:\n{dp.output()}")
        drops = {k: v for k, v in snap["drops"]["by_reason"].items() if v}
        allowed = BENIGN_DROPS | getattr(self, "link_flap_drops", set())
        self.assertEqual({k: v for k, v in drops.items() if k not in allowed}, {},
                         f"unexpected drops: {drops}")
        return snap

    def test_1_ping_a_to_b_counted(self):
        before = self.dp.snapshot()
        self.assert_ping(self.topo.a, self.topo.b.ip4, 5)
        after = self.dp.snapshot()

        def delta(fn, *a):
            return fn(after, *a) - fn(before, *a)
        # 5 requests A -> B out of port1, 5 replies B -> A out of port0, nothing else
        # IPv4; with dynamic neighbors, up to 2 ARP frames more per port (dpfwd's request
        # for the host, its reply to the host's request)
        arp = 0 if STATIC_NEIGHBORS else 2
        self.assertEqual(delta(node_pkts, "ip4_fwd"), 10, after["nodes"])
        # on-link hosts: once a host's MAC is known, its adjacency (a /32 to its
        # own next hop) lets ip4_fwd send to it; only a packet that came before
        # (the first request, held while dpfwd asks) takes ip4_output
        self.assertIn(delta(node_pkts, "ip4_output"), range(0, 1 if STATIC_NEIGHBORS else 3))
        self.assertGreaterEqual(after["fwd"]["ip4_adjacencies"], 2, after["fwd"])
        for port in (0, 1):
            self.assertIn(delta(port_stat, port, "opackets"), range(5, 5 + arp + 1))
            self.assertGreaterEqual(delta(port_stat, port, "ipackets"), 5)
        tx = sum(lc["tx_pkts"] for lc in after["lcores"]) - \
            sum(lc["tx_pkts"] for lc in before["lcores"])
        self.assertIn(tx, range(10, 10 + 2 * arp + 1))
        self.assertEqual(after["drops"]["by_reason"]["ip4_bad_cksum"], 0)

    def test_2_ping_through_a_gateway_route(self):
        """198.19.30.2 (on B's lo) is routed via 198.18.20.2, not on-link."""
        self.assert_ping(self.topo.a, "198.19.30.2", 3)

    @needs("iperf3")
    def test_3_iperf3_tcp(self):
        before = self.dp.snapshot()
        res = iperf3(self.topo, "-t", "3")
        after = self.dp.snapshot()
        recv = res["end"]["sum_received"]
        note(f"iperf3 TCP A -> B: {recv['bits_per_second'] / 1e6:.0f} Mbit/s, "
             f"{res['end']['sum_sent'].get('retransmits', '?')} retransmits")
        self.assertGreater(recv["bits_per_second"], 0)
        # what was still in A's socket buffer when the time was up is not received
        self.assertGreater(recv["bytes"], 0.9 * res["end"]["sum_sent"]["bytes"])
        # every segment B received went through port1
        self.assertGreaterEqual(port_stat(after, 1, "opackets") -
                                port_stat(before, 1, "opackets"), recv["bytes"] // 1500)

    @needs("iperf3")
    def test_4_iperf3_udp_50mbit(self):
        before = self.dp.snapshot()
        # -w 4M: socket buffers that absorb a few ms without CPU for the iperf3 server
        # (with the default, a busy 2-core machine loses datagrams in B's socket,
        # UdpRcvbufErrors, after dpfwd delivered them)
        res = iperf3(self.topo, "-u", "-b", "50M", "-t", "3", "-w", "4M")
        after = self.dp.snapshot()
        s = res["end"]["sum"]
        fwd = port_stat(after, 1, "opackets") - port_stat(before, 1, "opackets")
        note(f"iperf3 UDP A -> B at 50 Mbit/s: {s['packets']} datagrams, "
             f"{s['lost_packets']} lost ({s['lost_percent']:.2f}%), "
             f"jitter {s['jitter_ms']:.3f} ms; dpfwd sent {fwd} frames to B")
        self.assertGreater(s["packets"], 10000)  # 50 Mbit/s x 3 s / 1460 B ~ 12800
        self.assertLessEqual(s["lost_percent"], 1.0)
        self.assertGreater(res["end"]["sum_received"]["bytes"], 0)
        self.assertGreaterEqual(fwd, 0.99 * s["packets"])

    @needs("tshark")
    def test_5_checksums_and_ttl_in_captures(self):
        """Captures on both hosts: every packet dpfwd forwarded (A -> B at B, B -> A at A)
        has good IPv4, UDP, TCP and ICMP checksums (tshark validating) and the TTL its
        sender gave it minus exactly 1. Traffic: ping, crafted UDP whose IP checksums sit
        where an incremental update wraps, TTL 2, odd and full-size datagrams, and a TCP
        transfer of 2 MB whose bytes are compared end to end."""
        a, b = self.topo.a, self.topo.b
        tmp = self.topo.tmp
        cap_a = netns.Capture(a, os.path.join(tmp, "a.pcapng"))
        cap_b = netns.Capture(b, os.path.join(tmp, "b.pcapng"))
        t0 = time.time()  # both capturing: what arrives from now on was captured when sent
        self.assert_ping(a, b.ip4, 3, extra=("-s", "1000"))
        r = a.run(sys.executable, TRAFFIC, "udp-corners", a.ip4, b.ip4, 9)
        corners = json.loads(r.stdout)
        recv_out = os.path.join(tmp, "tcp-recv.out")
        with open(recv_out, "w") as out:
            srv = b.spawn(sys.executable, TRAFFIC, "tcp-recv", b.ip4, 5202, stdout=out)
        deadline = time.monotonic() + 10
        while "listening" not in netns.read_text(recv_out):
            self.assertLess(time.monotonic(), deadline, "tcp-recv did not start")
            time.sleep(0.05)
        sent = a.run(sys.executable, TRAFFIC, "tcp-send", b.ip4, 5202, 2 * 1024 * 1024,
                     timeout=60).stdout.split()
        self.assertEqual(srv.wait(timeout=30), 0)
        netns.undo(srv.cleanup)
        got = netns.read_text(recv_out).split()[1:]
        self.assertEqual(got, sent, "TCP bytes differ between A and B")
        t1 = time.time()
        cap_a.stop()
        cap_b.stop()

        pa, pb = cap_a.packets(), cap_b.packets()

        def key(p):
            return (p["ip.src"], p["ip.dst"], p["ip.proto"], p["ip.id"], p["ip.len"],
                    p["udp.checksum"], p["tcp.checksum"], p["icmp.checksum"])

        def l4_bad(p):
            return [f for f in ("udp", "tcp", "icmp") if p[f + ".checksum.status"] not in
                    ("", GOOD)]

        def check_direction(sent_cap, recv_cap, src, dst):
            sent_by_key, sent_l4_bad = {}, set()
            for p in sent_cap:
                if p["ip.src"] == src and p["ip.dst"] == dst:
                    sent_by_key.setdefault(key(p), []).append(int(p["ip.ttl"]))
                    if l4_bad(p):
                        sent_l4_bad.add(key(p))
            fwd = [p for p in recv_cap if p["ip.src"] == src and p["ip.dst"] == dst and
                   t0 <= float(p["frame.time_epoch"]) <= t1]
            bad, unmatched, passed_on = [], [], []
            for p in fwd:
                if p["ip.checksum.status"] != GOOD:
                    bad.append(("ip", p))
                # a router passes L4 checksums on unread: one that left the sender
                # already wrong (seen in its own capture, once in many runs on this
                # kernel) is not dpfwd's; one that went wrong on the way is
                for f in l4_bad(p):
                    (passed_on if key(p) in sent_l4_bad else bad).append((f, p))
                ttls = sent_by_key.get(key(p))
                if not ttls:
                    unmatched.append(p)
                elif int(p["ip.ttl"]) + 1 not in ttls:
                    bad.append(("ttl", p, ttls))
            self.assertEqual((bad, unmatched), ([], []),
                             f"{src} -> {dst}: bad checksums or TTL; received but never sent")
            if passed_on:
                note(f"{src} -> {dst}: {len(passed_on)} packets whose L4 checksum was already "
                     f"wrong at the sender, forwarded unchanged")
            return fwd

        fwd_ab = check_direction(pa, pb, a.ip4, b.ip4)
        fwd_ba = check_direction(pb, pa, b.ip4, a.ip4)
        protos = {p["ip.proto"] for p in fwd_ab}
        self.assertTrue({"1", "6", "17"} <= protos, protos)  # ICMP, TCP, UDP all seen
        self.assertGreater(len(fwd_ab), 1000)  # the TCP transfer alone is ~1440 segments
        self.assertGreater(len(fwd_ba), 100)   # its ACKs
        # the crafted datagrams all arrived, and A really sent them with those checksums
        udp_b = {(int(p["ip.id"], 16), int(p["ip.ttl"])) for p in fwd_ab
                 if p["ip.proto"] == "17"}
        missing = [c for c in corners if (c["id"], c["ttl"] - 1) not in udp_b]
        self.assertEqual(missing, [], "crafted UDP datagrams lost")
        cks_a = {(int(p["ip.id"], 16), int(p["ip.ttl"]), int(p["ip.len"])):
                 int(p["ip.checksum"], 16) for p in pa
                 if p["ip.src"] == a.ip4 and p["ip.proto"] == "17"}
        self.assertEqual([c for c in corners
                          if cks_a.get((c["id"], c["ttl"], c["len"])) != c["ip_cksum"]], [])
        self.assertIn(0x0000, {c["ip_cksum"] for c in corners})
        self.assertIn(0xFFFE, {c["ip_cksum"] for c in corners})
        note(f"captured {len(fwd_ab)} A -> B and {len(fwd_ba)} B -> A forwarded "
             f"packets, {len(corners)} crafted UDP")

    @pending("icmp_echo", "echo replies from dpfwd's own addresses")
    def test_6_ping_dpfwd_addresses(self):
        a, b = self.topo.a, self.topo.b
        self.assert_ping(a, a.gw4, 3)                      # the near port
        self.assert_ping(a, b.gw4, 3)                      # the far port, through dpfwd
        self.assert_ping(b, b.gw4, 3)
        if WITH_IP6:
            self.assert_ping(a, a.gw6, 3, extra=("-6",))
            self.assert_ping(a, b.gw6, 3, extra=("-6",))

    def test_6b_time_exceeded_and_unreachable_from_dpfwd(self):
        """Unmodified ping with a TTL (hop limit) of 1 gets ICMP time exceeded from
        dpfwd's address on A's side, and a destination dpfwd has no route to gets
        net unreachable; IPv4 and IPv6; dpfwd counts the errors it sent."""
        a, b = self.topo.a, self.topo.b
        before = self.dp.snapshot()
        r = a.run("ping", "-n", "-c", "1", "-W", "2", "-t", "1", b.ip4, check=False)
        self.assertRegex(r.stdout, rf"From {re.escape(a.gw4)}\b.*Time to live exceeded",
                         r.stdout + r.stderr)
        # A's default route points at dpfwd, which has no route for TEST-NET-3
        r = a.run("ping", "-n", "-c", "1", "-W", "2", "203.0.113.7", check=False)
        self.assertRegex(r.stdout, rf"From {re.escape(a.gw4)}\b.*Destination Net Unreachable",
                         r.stdout + r.stderr)
        if WITH_IP6:
            r = a.run("ping", "-6", "-n", "-c", "1", "-W", "2", "-t", "1", b.ip6, check=False)
            self.assertRegex(r.stdout, rf"From {re.escape(a.gw6)}\b.*Time exceeded: Hop limit",
                             r.stdout + r.stderr)
        after = self.dp.snapshot()
        by = {k: after["drops"]["by_reason"].get(k, 0) - before["drops"]["by_reason"].get(k, 0)
              for k in ("ip4_ttl_exceeded", "ip4_no_route", "ip6_hop_limit")}
        self.assertEqual(by["ip4_ttl_exceeded"], 1, by)
        self.assertEqual(by["ip4_no_route"], 1, by)
        self.assertEqual(after["icmp4"]["errors_sent"] - before["icmp4"]["errors_sent"], 2)
        if WITH_IP6:
            self.assertEqual(by["ip6_hop_limit"], 1, by)
            self.assertEqual(after["fwd6"]["icmp6"]["errors_sent"] -
                             before["fwd6"]["icmp6"]["errors_sent"], 1)

    @needs("traceroute")
    def test_6c_traceroute_through_dpfwd(self):
        """traceroute (UDP probes, then ICMP) from A to B: hop 1 is dpfwd (its time
        exceeded, from A's gateway address), hop 2 is B itself."""
        a, b = self.topo.a, self.topo.b
        for extra in ((), ("-I",)):
            r = a.run("traceroute", "-n", "-q", "1", "-w", "2", "-m", "4", *extra, b.ip4,
                      check=False, timeout=30)
            hops = {int(m.group(1)): m.group(2) for m in
                    re.finditer(r"^\s*(\d+)\s+(\S+)", r.stdout, re.M)}
            self.assertEqual(hops.get(1), a.gw4, r.stdout + r.stderr)
            self.assertEqual(hops.get(2), b.ip4, r.stdout + r.stderr)
            self.assertNotIn(3, hops, r.stdout)

    @pending("ip6", "IPv6 forwarding and neighbor discovery")
    def test_7_ping6_a_to_b(self):
        before = self.dp.snapshot()
        self.assert_ping(self.topo.a, self.topo.b.ip6, 5, extra=("-6",))
        after = self.dp.snapshot()
        self.assertGreaterEqual(port_stat(after, 1, "opackets") -
                                port_stat(before, 1, "opackets"), 5)

    @pending("arp", "ARP (and ND with ip6) in dpfwd")
    def test_8_neighbors_learned_dynamically(self):
        """No static neighbor anywhere: the ping works only if dpfwd answered the hosts'
        ARP requests and resolved the hosts' MACs itself."""
        self.assertFalse(self.topo.static_neighbors)
        with open(self.dp.cfg) as f:
            self.assertNotIn("[neighbors]", f.read())
        a, b = self.topo.a, self.topo.b
        self.assert_ping(a, b.ip4, 3)
        if WITH_IP6:
            self.assert_ping(a, b.ip6, 3, extra=("-6",))
        for h, port in ((a, self.topo.ports[0]), (b, self.topo.ports[1])):
            for gw in (h.gw4, h.gw6) if WITH_IP6 else (h.gw4,):
                mac, states = h.neigh(gw)
                self.assertEqual(mac, port.mac, f"{h.name} learned {mac} for {gw}")
                self.assertNotIn("PERMANENT", states)

    def test_8b_link_down_and_up(self):
        """Port 1's veth (dpfwd's end) taken down under a ping and brought back: pings
        through it fail while it is down, dpfwd keeps running and answers telemetry,
        and once it is up A reaches B again, with the same dpfwd. What dpfwd dropped
        meanwhile is counted (and allowed at the clean stop: link_flap_drops)."""
        a, b = self.topo.a, self.topo.b
        ns, ifname = self.topo.router_ns, self.topo.ports[1].ifname
        self.assert_ping(a, b.ip4, 2)
        before = self.dp.snapshot()
        netns.sh("ip", "-n", ns, "link", "set", ifname, "down")
        try:
            tx, rx, _, out = ping(a, b.ip4, 5)
            self.assertEqual((tx, rx), (5, 0), f"pings crossed a link that is down:\n{out}")
            self.assertIsNone(self.dp.proc.poll(), self.dp.output())
            self.dp.snapshot()          # its telemetry goes on: a fresh snapshot comes
        finally:
            netns.sh("ip", "-n", ns, "link", "set", ifname, "up")
        # the kernel's packet socket (af_packet) or XDP socket takes frames again once the
        # device is up; allow it a few seconds, then every ping must pass
        deadline = time.monotonic() + 10
        while ping(a, b.ip4, 1)[1] != 1:
            self.assertLess(time.monotonic(), deadline, "no traffic after the link came up")
        self.assert_ping(a, b.ip4, 5)
        after = self.dp.snapshot()
        flap = {k: v - before["drops"]["by_reason"].get(k, 0)
                for k, v in after["drops"]["by_reason"].items()
                if v != before["drops"]["by_reason"].get(k, 0)}
        type(self).link_flap_drops = set(flap)
        note(f"{self.driver}: drops while port 1 was down: {flap or 'none'}")

    def test_9_stop_clean(self):
        snap = self.assert_stopped_clean(self.dp)
        self.assertGreater(port_stat(snap, 1, "opackets"), 0)


class AfPacketTest(Router, netns.RigTest):
    """dpfwd on net_af_packet (AF_PACKET sockets; rings of 4096 frames, see DEVARGS)."""
    driver = "net_af_packet"


class AfXdpTest(netns.SkipWhereKernelRefusesXdp, Router, netns.RigTest):
    """The same on net_af_xdp (XDP sockets on the veths; libxdp loads the program).
    Skipped, with the kernel's errno, only where the kernel itself refuses XDP sockets
    (netns.xdp_refusal()); any other failure to start fails.

    DPDK 22.11's af_xdp PMD frees transmitted mbufs from its completion ring only when
    it sends again (kick_tx); dpfwd sends empty bursts after the workers stop
    (dp_port_tx_reclaim) so that its exit check finds none held: none allowed here."""


# The UDP relay: clients on A send to dpfwd's port0 address, port 5000; dpfwd
# relays to the server on B from its port1 address and a relay port, and back.
RELAY_CONFIG = """
[relay0]
listen = 198.18.10.1:5000
backend = 198.18.20.2:6000
source = 198.18.20.1
ports = 20000-20999
[relay1]
listen = [2001:db8:10::1]:5000
backend = [2001:db8:20::2]:6000
source = 2001:db8:20::1
ports = 21000-21999
"""


class RelayTest(netns.RigTest):
    """dpfwd's UDP relay between real Linux hosts (net_af_packet): socat and plain
    sockets on A talk to a server on B through the relay, and only through it."""
    driver = "net_af_packet"
    dpfwd_extra = RELAY_CONFIG

    @classmethod
    def topology(cls):
        return netns.Topology(static_neighbors=STATIC_NEIGHBORS, ip6=WITH_IP6)

    def echo_peer_server(self, addr, port=6000):
        """traffic.py udp-echo-peer on B, until the test ends."""
        srv = self.topo.b.spawn("python3", TRAFFIC, "udp-echo-peer", addr, port)
        self.addCleanup(lambda: (netns.stop_process(srv), netns.undo(srv.cleanup)))
        deadline = time.monotonic() + 10
        while f":{port}" not in self.topo.b.run("ss", "-Hlun").stdout:
            if srv.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("the UDP server on B did not start")
            time.sleep(0.05)

    def clients(self, dst, n, k, prefix, lo, hi):
        """n clients on A, k datagrams each, through the relay; checks every answer."""
        r = self.topo.a.run("python3", TRAFFIC, "udp-clients", dst, 5000, n, k, timeout=60)
        res = json.loads(r.stdout)
        ports = set()
        for c in res:
            self.assertEqual((c["bad"], c["missing"]), (0, 0), f"client {c}")
            # one session per client: the server always saw the same relay port
            peers = set(c["peers"])
            self.assertEqual(len(peers), 1, f"client {c['port']}: {peers}")
            peer = peers.pop()
            self.assertTrue(peer.startswith(prefix), peer)
            rport = int(peer.rsplit(":", 1)[1])
            self.assertTrue(lo <= rport <= hi, peer)
            ports.add(rport)
        self.assertEqual(len(ports), n, "clients shared a relay port")
        note(f"{n} clients x {k} datagrams, relay ports {sorted(ports)}")
        return res

    @needs("socat")
    def test_1_socat_datagram_relayed_and_answered(self):
        # the server: socat echoing each datagram (cat) to whoever sent it
        srv = self.topo.b.spawn("socat", "UDP4-RECVFROM:6000,bind=198.18.20.2,fork",
                                "EXEC:cat")
        self.addCleanup(lambda: (netns.stop_process(srv), netns.undo(srv.cleanup)))
        deadline = time.monotonic() + 10
        while ":6000" not in self.topo.b.run("ss", "-Hlun").stdout:
            self.assertTrue(srv.poll() is None and time.monotonic() < deadline,
                            "socat server did not start")
            time.sleep(0.05)
        payload = "relay me 0123456789 " * 20
        # socat's UDP4 client is a connected socket: only an answer from the listen
        # address and port reaches it
        r = self.topo.a.run("sh", "-c", f"printf '%s' '{payload}' | socat -t 3 -T 3 - "
                            f"UDP4:198.18.10.1:5000", timeout=30)
        self.assertEqual(r.stdout, payload, r.stderr)
        snap = self.dp.snapshot()
        self.assertGreaterEqual(snap["relay"]["total"]["pkts_to_backend"], 1)
        self.assertGreaterEqual(snap["relay"]["total"]["pkts_to_client"], 1)

    def test_2_many_clients_keep_separate_sessions(self):
        self.echo_peer_server("198.18.20.2")
        before = self.dp.snapshot()["relay"]["total"]
        self.clients("198.18.10.1", 8, 25, "198.18.20.1:", 20000, 20999)
        after = self.dp.snapshot()["relay"]["total"]
        self.assertEqual(after["created"] - before["created"], 8)
        self.assertEqual(after["pkts_to_backend"] - before["pkts_to_backend"], 8 * 25)
        self.assertEqual(after["pkts_to_client"] - before["pkts_to_client"], 8 * 25)

    @pending("ip6", "IPv6 addresses on dpfwd's ports")
    def test_3_ipv6_clients_through_the_relay(self):
        self.echo_peer_server("2001:db8:20::2")
        self.clients("2001:db8:10::1", 4, 10, "[2001:db8:20::1]:", 21000, 21999)

    def test_4_no_session_no_relay(self):
        """B sends to a relay port nobody opened, and A to the relay port of a session
        it does not own: both dropped, counted; nothing reaches A."""
        before = self.dp.snapshot()["drops"]["by_reason"]["relay_no_session"]
        self.topo.b.run("python3", "-c",
                        "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM);"
                        "s.bind(('198.18.20.2', 6000));"
                        "[s.sendto(b'x' * 10, ('198.18.20.1', 20999)) for _ in range(3)]")
        self.topo.a.run("python3", "-c",
                        "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM);"
                        "[s.sendto(b'y', ('198.18.20.1', 20000)) for _ in range(2)]")
        after = self.dp.snapshot()["drops"]["by_reason"]["relay_no_session"]
        self.assertEqual(after - before, 5)

    def test_9_stop_clean(self):
        rc = self.dp.stop()
        snap = self.dp.read_json()
        self.assertEqual(rc, 0, self.dp.output())
        self.assertTrue(snap.get("final"))
        self.assertEqual(snap["run"]["mbufs_over_baseline"], 0)
        bad = {k: v for k, v in snap["drops"]["by_reason"].items()
               if v and k not in BENIGN_DROPS | {"relay_no_session"}}
        self.assertEqual(bad, {}, f"drops this topology cannot explain: {bad}")


class RelayHandoffTest(RelayTest):
    """The same with two workers, one per port (lcores 1 and 2, both on CPU 1): sessions
    are made by port0's worker, with relay ports of its own slice, and every answer from
    B arrives at port1's worker, which hands it to the owner through its ring."""

    @classmethod
    def dpfwd(cls, topo):
        dp = super().dpfwd(topo)
        i = dp.argv.index("--")
        # two workers on one CPU: this machine has two
        dp.argv[i:i] = ["--lcores", "0@0,1@1,2@1"]
        # af_packet with qpairs=2 fans frames out over two sockets: poll both
        dp.argv += ["--set", "lcores.rx=(0,0,1),(0,1,1),(1,0,2),(1,1,2)"]
        for p in topo.ports:
            dp.argv += ["--set", f"port{p.index}.dev=net_af_packet{p.index},"
                        f"iface={p.ifname},framecnt=4096,qpairs=2"]
        return dp

    def test_5_answers_handed_to_the_owning_worker(self):
        snap = self.dp.snapshot()
        w = snap["relay"]["workers"]
        note(f"workers {[(x['worker'], x['created'], x['handoffs'], x['handoffs_in']) for x in w]}")
        self.assertEqual(len(w), 2)
        # worker 0 polls port0 (the clients): it made every session
        self.assertEqual(w[1]["created"], 0)
        self.assertGreater(w[0]["created"], 0)
        # worker 1 polls port1 (the server): it handed every answer over
        self.assertEqual(w[1]["handoffs"], w[0]["handoffs_in"])
        self.assertEqual(w[0]["pkts_to_client"], w[0]["handoffs_in"])
        self.assertGreater(w[1]["handoffs"], 0)


def main():
    netns.run_tests("netns", __name__,
                    f"pending features {sorted(FEATURES_PENDING) or 'none'}; "
                    f"{'static' if STATIC_NEIGHBORS else 'dynamic'} neighbors; "
                    f"dpfwd {netns.DPFWD_BIN}")


if __name__ == "__main__":
    main()
