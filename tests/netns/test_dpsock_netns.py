#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
dpsock endpoints against an unmodified Linux host: dpfwd on net_af_packet
(AfPacketTest) and on net_af_xdp (AfXdpTest, skipped where the kernel refuses XDP sockets),
the host in a namespace behind a veth (netns.py's topology; only host A and port 0 carry
traffic here).

   router netns: dpsock_peer (libdpsock) --unix socket-- dpfwd port0 198.18.10.1/24
                                                               2001:db8:10::1/64
                                                                  | veth, MTU 1500
                                                   netns A: eth0 198.18.10.2/24
                                                               2001:db8:10::2/64
                                                   a python3 UDP socket

Both ways, IPv4 and IPv6, every byte checked (pattern(i, seed), dpsock_peer.c): endpoint
-> Linux socket and Linux socket -> endpoint with 1 B, a full frame, one byte more (two
fragments), 8000 B and 64512 B (63 KB: 44 or 45 fragments, made by dpfwd on the way out
and reassembled by dpfwd on the way in; Linux does the other half); then an echo through
the endpoint. No static neighbor anywhere: dpfwd learns the host by ARP / ND and answers
the host's own requests. GRO, GSO and TSO are off on both veth ends and the MTU is 1500,
so every frame on the wire is a real one of at most 1514 bytes. dpfwd runs with IOVA as
VA, where datagrams of 16 KB and more leave without a copy (as chained mbufs) through
net_af_packet and are copied into one buffer a packet for net_af_xdp, which sends a
chain's first segment only.

One known limit, checked as such: through net_af_packet, IPv4 fragments from the host never
reach dpfwd as fragments (DPDK's PMD asks the kernel to reassemble them, then truncates the
result to a ring frame; see AfPacketTest), so IPv4 datagrams of 8000 and 64512 bytes into
an endpoint are checked on net_af_xdp only.

Exit status 77 (meson: skipped) with the reason where namespaces cannot be made.

  meson test -C build dpsock_netns
  DPFWD_NETNS_KEEP=1 python3 tests/netns/test_dpsock_netns.py   # keep configs and logs

The same file, run as `test_dpsock_netns.py host-recv|host-send|host-echo ...` in the
host's namespace, is the Linux side (python3 standard library only).
"""
import json
import os
import select
import socket
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netns  # noqa: E402
from netns import port_stat  # noqa: E402

THIS = os.path.abspath(__file__)
PEER_BIN = os.environ.get("DPSOCK_PEER",
                          os.path.join(netns.BUILD, "tests", "dpsock_peer"))
SIZES4 = (1, 1472, 1473, 8000, 64512)  # 1472: a full 1500-byte packet; 64512: 63 KB
SIZES6 = (1, 1452, 1453, 8000, 64512)  # 1452: the same under IPv6's 40-byte header
MTU = 1500
# what a clean run still shows (see test_netns.py): frames the hosts send by themselves
BENIGN_DROPS = {"arp_consumed", "nd_consumed", "nd_not_for_us", "ip6_mcast", "ip6_link_local",
                "icmp6_unhandled"}
IO_TIMEOUT_MS = 5000


# ---- the Linux side (in the host's namespace) ----

def pattern(n, seed):
    """tests/func/test_dpsock.c's pattern(i, seed) for i < n."""
    s, x = seed * 17, seed >> 3
    return bytes(((i * 131 + (i >> 8) * 7 + s) ^ x) & 0xFF for i in range(n))


def first_diff(a, b):
    if a == b:
        return -1
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def udp_socket(addr, port):
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind((addr, port))
    return s


def peer_name(a):
    return f"[{a[0]}]:{a[1]}" if ":" in a[0] else f"{a[0]}:{a[1]}"


def host_recv(addr, port, seed, ms, *sizes):
    """Receive one datagram per size (told apart by length), check each; print JSON."""
    sizes = [int(x) for x in sizes]
    s = udp_socket(addr, int(port))
    print("ready", flush=True)
    got, extra, deadline = {}, [], time.monotonic() + int(ms) / 1000
    while len(got) < len(sizes) and time.monotonic() < deadline:
        s.settimeout(max(deadline - time.monotonic(), 0.001))
        try:
            data, src = s.recvfrom(65536)
        except socket.timeout:
            break
        i = next((k for k, n in enumerate(sizes) if n == len(data) and k not in got), None)
        if i is None:
            extra.append(len(data))
            continue
        got[i] = {"i": i, "len": len(data), "from": peer_name(src),
                  "bad_at": first_diff(data, pattern(len(data), int(seed) + i))}
    print(json.dumps({"got": [got[i] for i in sorted(got)], "extra": extra,
                      "missing": [n for k, n in enumerate(sizes) if k not in got]}))


def host_send(addr, port, daddr, dport, seed, *sizes):
    s = udp_socket(addr, int(port))
    sent = [s.sendto(pattern(int(n), int(seed) + i), (daddr, int(dport)))
            for i, n in enumerate(sizes)]
    print(json.dumps({"sent": sent}))


def host_echo(addr, port, daddr, dport, seed, ms, *sizes):
    """One datagram per size to the echo endpoint; each answer must come back whole,
    from the endpoint's address and port."""
    s = udp_socket(addr, int(port))
    res = []
    for i, n in enumerate(int(x) for x in sizes):
        data = pattern(n, int(seed) + i)
        s.sendto(data, (daddr, int(dport)))
        s.settimeout(int(ms) / 1000)
        try:
            back, src = s.recvfrom(65536)
            res.append({"len": n, "back": len(back), "from": peer_name(src),
                        "bad_at": first_diff(back, data)})
        except socket.timeout:
            res.append({"len": n, "back": None})
    print(json.dumps({"echo": res}))


HOST_CMDS = {"host-recv": host_recv, "host-send": host_send, "host-echo": host_echo}


# ---- the test ----

def note(text):
    sys.stderr.write(f"\n  {text} ")
    sys.stderr.flush()


def frames(size, ip6):
    """Frames dpfwd sends for one datagram of `size` bytes at MTU 1500 (RFC 791 3.2,
    RFC 8200 4.5: fragments carry multiples of 8 bytes but the last)."""
    l3 = 40 if ip6 else 20
    total = 8 + size
    if l3 + total <= MTU:
        return 1
    fs = (MTU - l3 - (8 if ip6 else 0)) & ~7
    return (total + fs - 1) // fs


class Proc:
    """A process in a namespace, its stdout and stderr piped (text), stdin piped or not;
    stopped by cleanup (by pid) unless it ended."""

    def __init__(self, ns, argv, stdin=False, env=None):
        argv = ["ip", "netns", "exec", ns] + [str(a) for a in argv]
        self.argv = argv
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=env, preexec_fn=netns._die_with_parent)
        self.cleanup = netns.defer(f"stop pid {self.p.pid} ({argv[4]})",
                                   lambda: netns.stop_process(self.p))

    def ready(self, timeout=10.0):
        """Until it printed "ready" (bound)."""
        r, _, _ = select.select([self.p.stdout], [], [], timeout)
        line = self.p.stdout.readline() if r else ""
        if line.strip() != "ready":
            out, err = self.finish(5)
            raise AssertionError(f"{' '.join(self.argv[4:])}: not ready: {line}{out}{err}")
        return self

    def finish(self, timeout=15.0):
        """Close its stdin, wait: (stdout, stderr)."""
        try:
            out, err = self.p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            netns.stop_process(self.p)
            out, err = self.p.communicate()
        netns.undo(self.cleanup)
        return out, err

    def result(self, timeout=15.0):
        """Its last stdout line as JSON, and its exit status."""
        out, err = self.finish(timeout)
        lines = out.strip().splitlines()
        try:
            return json.loads(lines[-1]), self.p.returncode, err
        except (IndexError, ValueError):
            raise AssertionError(f"{' '.join(self.argv[4:])}: exit {self.p.returncode}: "
                                 f"{out}{err}")


class Endpoints:
    """The tests, on one topology and one dpfwd per driver class."""
    driver = None
    # IPv4 datagrams from the host that dpfwd cannot get whole through this driver (see
    # AfPacketTest); the others go through test_2
    ip4_in_lost = ()
    ip4_defrag = False  # IPv4 fragments reach dpfwd reassembled (AfPacketTest)
    known_drops = {}  # drops a test caused on purpose: {reason: count}
    seed = 1000  # of the next pattern; every datagram of a run has its own
    # the port sends chained mbufs: endpoint datagrams of zero_copy_min (16384) bytes and
    # more leave without a copy; net_af_xdp sends a chain's first segment only
    chains = True

    @classmethod
    def setUpClass(cls):
        for path in (netns.DPFWD_BIN, PEER_BIN):
            if not os.path.exists(path):
                raise unittest.SkipTest(f"{path} missing: build first")
        cls.topo = netns.Topology(static_neighbors=False, ip6=True)
        try:
            cls.topo.up()
            cls.veth_setup()
            cls.sock = os.path.join(cls.topo.tmp, "dpsock.sock")
            extra = f"\n[endpoint]\nsocket = {cls.sock}\nmode = 0600\n"
            cls.dp = netns.Dpfwd(cls.topo, cls.driver, extra=extra)
            # IOVA as VA: the mode endpoints send without a copy in (not in PA)
            cls.dp.argv[1:1] = ["--iova-mode", "va"]
            cls.dp.start().wait_ready()
            deadline = time.monotonic() + 10
            while not os.path.exists(cls.sock):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"dpfwd made no {cls.sock}:\n{cls.dp.output()}")
                time.sleep(0.05)
        except BaseException:
            cls.topo.down()
            raise
        # libdpsock's waits sleep soon: dpfwd's worker polls one of the two CPUs
        cls.env = dict(os.environ, DPSOCK_SPIN_US="20")

    @classmethod
    def tearDownClass(cls):
        cls.topo.down()

    @classmethod
    def veth_setup(cls):
        """Both ends of port 0's veth: MTU 1500, no GRO / GSO / TSO (the kernel would hand
        af_packet, or the host's socket layer, frames larger than the MTU)."""
        a, port = cls.topo.a, cls.topo.ports[0]
        for ns, ifname in ((cls.topo.router_ns, port.ifname), (a.ns, a.ifname)):
            netns.sh("ip", "-n", ns, "link", "set", ifname, "mtu", MTU)
            netns.sh("ethtool", "-K", ifname, "gro", "off", "gso", "off", "tso", "off",
                     ns=ns)
            feats = netns.sh("ethtool", "-k", ifname, ns=ns).stdout
            for f in ("generic-receive-offload", "generic-segmentation-offload",
                      "tcp-segmentation-offload"):
                if f"{f}: off" not in feats:
                    raise RuntimeError(f"{ns} {ifname}: {f} still on:\n{feats}")

    def next_seed(self):
        Endpoints.seed += 100
        return Endpoints.seed

    def peer(self, *args, stdin=False):
        return Proc(self.topo.router_ns, [PEER_BIN, self.sock, *args], stdin=stdin,
                    env=self.env)

    def host(self, *args):
        return Proc(self.topo.a.ns, [sys.executable, THIS, *args])

    def drops(self, snap):
        return {k: v for k, v in snap["drops"]["by_reason"].items() if v}

    def assert_no_new_drops(self, before, after):
        b, a = self.drops(before), self.drops(after)
        new = {k: v - b.get(k, 0) for k, v in a.items()
               if v != b.get(k, 0) and k not in BENIGN_DROPS}
        self.assertEqual(new, {}, "dpfwd dropped")

    def assert_all_good(self, res, sizes, sender):
        self.assertEqual(res.get("missing"), [], res)
        self.assertEqual(res.get("extra", []), [], res)
        self.assertEqual([g["len"] for g in res["got"]], list(sizes), res)
        self.assertEqual([g for g in res["got"] if g["bad_at"] != -1], [], "bytes differ")
        self.assertEqual({g["from"] for g in res["got"]}, {sender})

    def endpoint_to_host(self, ip6, sizes):
        a = self.topo.a
        src, dst = (f"[{a.gw6}]", f"[{a.ip6}]") if ip6 else (a.gw4, a.ip4)
        seed = self.next_seed()
        before = self.dp.snapshot()
        rx = self.host("host-recv", a.ip6 if ip6 else a.ip4, 9000, seed, IO_TIMEOUT_MS,
                       *sizes).ready()
        tx = self.peer("send", f"{src}:7000", f"{dst}:9000", seed, *sizes, stdin=True)
        res, rc, err = rx.result()
        sent, tx_rc, tx_err = tx.result()
        after = self.dp.snapshot()
        out = after["ports"][0]["opackets"] - before["ports"][0]["opackets"]
        want = sum(frames(n, ip6) for n in sizes)
        note(f"endpoint {src}:7000 -> Linux {dst}:9000: {len(res['got'])}/{len(sizes)} "
             f"datagrams right, {out} frames out of port0 ({want} data)")
        self.assertEqual((tx_rc, sent["sent"]), (0, list(sizes)), tx_err)
        self.assert_all_good(res, sizes, f"{src}:7000")
        self.assertEqual(rc, 0, err)
        # fragmented at the MTU (a few ARP / ND frames more at most)
        self.assertIn(out, range(want, want + 4))
        self.assert_no_new_drops(before, after)

    def host_to_endpoint(self, ip6, sizes):
        a = self.topo.a
        src, dst = (a.ip6, a.gw6) if ip6 else (a.ip4, a.gw4)
        seed = self.next_seed()
        before = self.dp.snapshot()
        rx = self.peer("recv", f"[{dst}]:7001" if ip6 else f"{dst}:7001", seed,
                       IO_TIMEOUT_MS, *sizes).ready()
        tx = self.host("host-send", src, 9001, dst, 7001, seed, *sizes)
        sent, tx_rc, tx_err = tx.result()
        res, rc, err = rx.result()
        after = self.dp.snapshot()
        inp = after["ports"][0]["ipackets"] - before["ports"][0]["ipackets"]
        note(f"Linux {src}:9001 -> endpoint {dst}:7001: {len(res['got'])}/{len(sizes)} "
             f"datagrams right ({inp} frames into port0); endpoint {res['stats']}")
        self.assertEqual((tx_rc, sent["sent"]), (0, list(sizes)), tx_err)
        self.assert_all_good(res, sizes, f"[{src}]:9001" if ip6 else f"{src}:9001")
        self.assertEqual(rc, 0, err)
        # as many frames as fragments on the wire (af_packet: one per IPv4 datagram)
        want = len(sizes) if self.ip4_defrag and not ip6 else sum(frames(n, ip6) for n in sizes)
        self.assertIn(inp, range(want, want + 4))
        self.assert_no_new_drops(before, after)

    def test_0_neighbors_learned_both_ways(self):
        """The first datagrams each way: dpfwd resolves the host by ARP / ND (nothing
        static), and the host resolves dpfwd's addresses, which dpfwd answers. The very
        first is 63 KB: its 44 (IPv4) or 45 (IPv6) fragments wait for the neighbor
        together (neigh_hold 64) and all leave once it answers."""
        with open(self.dp.cfg) as f:
            self.assertNotIn("[neighbors]", f.read())
        a, port = self.topo.a, self.topo.ports[0]
        self.endpoint_to_host(False, (64512, 1))
        self.endpoint_to_host(True, (64512, 1))
        self.host_to_endpoint(False, (1,))
        self.host_to_endpoint(True, (1,))
        neighs = {n["ip"]: n for n in self.dp.snapshot()["neighbors"]["neighbors"]}
        for ip in (a.ip4, a.ip6):
            self.assertIn(ip, neighs)
            self.assertEqual((neighs[ip]["mac"].lower(), neighs[ip]["port"]), (a.mac, 0),
                             neighs[ip])
        for gw in (a.gw4, a.gw6):
            mac, states = a.neigh(gw)
            self.assertEqual(mac, port.mac, f"A learned {mac} for {gw} ({states})")
            self.assertNotIn("PERMANENT", states)

    def test_1_endpoint_to_linux_ip4(self):
        self.endpoint_to_host(False, SIZES4)

    def test_2_linux_to_endpoint_ip4(self):
        self.host_to_endpoint(False, [n for n in SIZES4 if n not in self.ip4_in_lost])

    def test_3_endpoint_to_linux_ip6(self):
        self.endpoint_to_host(True, SIZES6)

    def test_4_linux_to_endpoint_ip6(self):
        self.host_to_endpoint(True, SIZES6)

    def test_5_echo_through_endpoint(self):
        """A Linux client against an endpoint that sends every datagram back: the
        answers come from the endpoint's address and port, whole."""
        a = self.topo.a
        sizes4 = [n for n in SIZES4 if n not in self.ip4_in_lost]
        for ip6, sizes in ((False, sizes4), (True, SIZES6)):
            gw, me = (a.gw6, a.ip6) if ip6 else (a.gw4, a.ip4)
            ep = f"[{gw}]:7002" if ip6 else f"{gw}:7002"
            srv = self.peer("echo", ep, len(sizes), IO_TIMEOUT_MS, stdin=True).ready()
            cli = self.host("host-echo", me, 9002, gw, 7002, self.next_seed(), 2000, *sizes)
            res, rc, err = cli.result()
            echoed, src_rc, src_err = srv.result()
            bad = [r for r in res["echo"]
                   if (r["back"], r.get("from"), r.get("bad_at")) != (r["len"], ep, -1)]
            self.assertEqual(bad, [], f"echo through {ep}: {res}")
            self.assertEqual((src_rc, echoed["echoed"], echoed["failed"]),
                             (0, len(sizes), 0), src_err)
        note(f"echo: {sizes4} over IPv4 and {SIZES6} over IPv6, all back whole")

    def test_8_zero_copy_where_the_port_sends_chains(self):
        """Datagrams of 16 KB and more leave without a copy (the payload in mbufs that
        point into the application's buffer, chained to a header mbuf) where the port
        sends chains; net_af_xdp does not, so each packet is copied into one buffer
        there. Every byte was checked at the host by test_0, 1 and 3 either way."""
        self.assertRegex(self.dp.output(), r"zero copy from 16384 bytes,")
        ep = self.dp.snapshot()["endpoint"]["datapath"]
        self.assertTrue(ep["zero_copy"], ep)
        big = sum(1 for n in SIZES4 + SIZES6 if n >= 16384) + 2  # test_0's two
        if self.chains:
            self.assertGreaterEqual(ep["tx_zero_copy"], big, ep)
        else:
            self.assertEqual(ep["tx_zero_copy"], 0, ep)
        note(f"{self.driver}: {ep['tx_zero_copy']} datagrams sent without a copy")

    def test_9_stop_clean(self):
        snap = self.dp.snapshot()
        ep = snap["endpoint"]
        self.assertEqual((ep["endpoints"], ep["reclaims_pending"]), (0, 0), ep)
        rc = self.dp.stop()
        snap = self.dp.read_json()
        self.assertTrue(snap.get("final"), self.dp.output())
        self.assertEqual((rc, snap["run"]["mbufs_over_baseline"]), (0, 0), self.dp.output())
        bad = {k: v for k, v in self.drops(snap).items()
               if k not in BENIGN_DROPS and v != self.known_drops.get(k)}
        self.assertEqual(bad, {}, f"drops this topology cannot explain: {bad}")


class AfPacketTest(Endpoints, unittest.TestCase):
    """dpfwd on net_af_packet.

    DPDK's af_packet PMD (22.11, drivers/net/af_packet/rte_eth_af_packet.c) joins its
    sockets to a fanout group with PACKET_FANOUT_FLAG_DEFRAG: the kernel reassembles IPv4
    fragments (not IPv6 ones) before af_packet sees them, then copies at most a ring frame
    (framesz 2048 - 66 bytes of TPACKET2 header = 1982 bytes) of the reassembled packet.
    So IPv4 from the host never reaches dpfwd as fragments: up to 1940 bytes of UDP
    payload it arrives as one frame larger than the MTU (1473 does: the kernel's
    reassembly, not dpfwd's), and beyond that as one truncated frame, which dpfwd drops
    as ip4_bad_length. test_2b checks exactly that; dpfwd's own IPv4 reassembly is checked
    on net_af_xdp (AfXdpTest), its IPv6 reassembly on both."""
    driver = "net_af_packet"
    ip4_in_lost = (8000, 64512)
    ip4_defrag = True
    known_drops = {}

    def test_2b_ip4_from_host_defragmented_by_af_packet_then_truncated(self):
        a = self.topo.a
        seed = self.next_seed()
        sizes = self.ip4_in_lost
        before = self.dp.snapshot()
        rx = self.peer("recv", f"{a.gw4}:7003", seed, 1000, *sizes).ready()
        tx = self.host("host-send", a.ip4, 9003, a.gw4, 7003, seed, *sizes)
        sent, tx_rc, tx_err = tx.result()
        res, rc, err = rx.result()
        # the receiver gives up after its timeout; on a loaded machine the kernel's
        # reassembled frames can reach dpfwd after that
        deadline = time.monotonic() + 10
        while True:
            after = self.dp.snapshot()
            if (self.drops(after).get("ip4_bad_length", 0) -
                    before["drops"]["by_reason"].get("ip4_bad_length", 0) >= len(sizes) or
                    time.monotonic() > deadline):
                break
            time.sleep(0.1)
        inp = port_stat(after, 0, "ipackets") - port_stat(before, 0, "ipackets")
        drops = {k: v - before["drops"]["by_reason"].get(k, 0)
                 for k, v in self.drops(after).items()
                 if v != before["drops"]["by_reason"].get(k, 0) and k not in BENIGN_DROPS}
        note(f"KNOWN LIMIT (net_af_packet): Linux -> endpoint IPv4 {list(sizes)} B sent as "
             f"{sum(frames(n, False) for n in sizes)} fragments; dpfwd got {inp} frames, "
             f"drops {drops}, endpoint received {len(res['got'])}")
        self.assertEqual((tx_rc, sent["sent"]), (0, list(sizes)), tx_err)
        # one (reassembled, truncated) frame per datagram, each an ip4_bad_length drop
        self.assertEqual((res["missing"], rc), (list(sizes), 1), res)
        self.assertIn(inp, range(len(sizes), len(sizes) + 3))
        self.assertEqual(drops, {"ip4_bad_length": len(sizes)})
        self.known_drops["ip4_bad_length"] = len(sizes)
        # and dpfwd said so at start, naming the port
        self.assertRegex(self.dp.output(), r"port0 \(net_af_packet\w*\): IPv4 datagrams over "
                         r"1940 bytes cannot reach endpoints")


class AfXdpTest(netns.SkipWhereKernelRefusesXdp, Endpoints, unittest.TestCase):
    """The same on net_af_xdp: frames as they are on the wire, so dpfwd reassembles IPv4
    from the host too. Skipped, with the kernel's errno, only where the kernel itself
    refuses XDP sockets (netns.xdp_refusal())."""
    chains = False


def main():
    if len(sys.argv) > 1 and sys.argv[1] in HOST_CMDS:
        HOST_CMDS[sys.argv[1]](*sys.argv[2:])
        return
    netns.run_tests("dpsock_netns", __name__,
                    f"dpfwd {netns.DPFWD_BIN}, peer {PEER_BIN}")


if __name__ == "__main__":
    main()
