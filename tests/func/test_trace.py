#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
dpctl trace on the pcap rig: the node path and the node lines of marked packets,
checked against what this test sent.

  port0  net_pcap0  rx in0.pcap, infinite_rx   198.18.0.1/24, the clients' side
  port1  net_pcap1  rx in1.pcap, infinite_rx   198.18.101.1/24, the backends' side
  one worker (lcore 1) polls both; 198.18.1.0/24 via 198.18.101.2 port 1;
  [relay0] listen 198.18.0.1:5000 -> backend 198.18.1.2:6000 from 198.18.101.1:20000

in0.pcap: a forwarded datagram (to 198.18.1.5:2222), one with TTL 1, an ARP request for
198.18.0.1, a client datagram to the relay, one to an endpoint (dpsock_peer, bound to
198.18.0.1:7001), a frame of ethertype 0x88b5, an IPv6 datagram to 2001:db8:5::5, and
filler (forwarded, to port 9); in1.pcap: the backend's answer to the relay port, and
filler. Each test marks packets with a filter and checks:

- forwarded: port_rx, ip4_fwd (dst, route 198.18.1.0/24, via 198.18.101.2, port 1), tx
  on port 1 with TTL 63; IPv6 the same through ip6_fwd (2001:db8:5::/48);
- dropped: eth_classify, then drop with the reason counted (not_ip4);
- endpoint: ip4_fwd (local), endpoint4_rx naming the endpoint and the datagram's length;
- TTL 1: ip4_fwd says expired, icmp4_error a time exceeded to the sender, then the
  ICMP error to 198.18.0.2 leaves on port 0 through ip4_output (its next hop), or is
  dropped as icmp_ratelimited;
- ARP: port_rx, eth_classify, ctl_punt, ctl on the control lcore, the reply on port 0;
- relay, both directions: the relay's line (session, direction, the rewritten
  addresses and ports) and tx with those addresses;
- a route replaced back and forth (dpctl route add) while 40 marked packets flow: every
  trace is whole (port_rx ... tx) and names one of the two next hops;
- a relay hand-off (a second rig, two workers): the backend's answer traced on the worker
  that received it, then on the session's worker, which sends it;
- bad input: an invalid filter (libpcap's error, exit 2), a port that does not exist,
  COUNT 0 and COUNT too large (exit 2), an add while a trace is armed (exit 1); dpfwd
  runs on.

EAL: --no-huge, its own --file-prefix, --lcores 0@0,1@1 (0@0,1@1,2@1 for the hand-off).
About 10 s.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dprig  # noqa: E402

from scapy.all import ARP, IP, UDP, Ether, IPv6, Raw, wrpcap  # noqa: E402

DPCTL = [sys.executable, str(dprig.REPO / "apps" / "dpctl" / "dpctl.py"), "--timeout", "30"]
PEER = os.environ.get("DPSOCK_PEER", str(dprig.BUILD / "tests" / "dpsock_peer"))
PORT0_MAC = "02:70:63:61:70:00"   # net_pcap0's
PORT1_MAC = "02:70:63:61:70:01"   # net_pcap1's
CLIENT_MAC = "02:aa:00:00:00:00"
NEIGH_MAC = "02:00:00:00:01:02"

CONFIG = """\
# written by test_trace.py
[dpfwd]
main_lcore = 0

[port0]
dev = net_pcap0,rx_pcap={d}/in0.pcap,infinite_rx=1
ip4 = 198.18.0.1/24
ip6 = 2001:db8::1/64

[port1]
dev = net_pcap1,rx_pcap={d}/in1.pcap,infinite_rx=1
ip4 = 198.18.101.1/24

[lcores]
rx = (0,0,1),(1,0,1)

[routes]
route = 198.18.1.0/24 via 198.18.101.2 port 1
route = 2001:db8:5::/48 via 2001:db8::2 port 0

[neighbors]
neigh = 198.18.101.2 lladdr {neigh_mac} port 1
neigh = 198.18.101.3 lladdr 02:00:00:00:01:03 port 1
neigh = 198.18.0.2 lladdr {client_mac} port 0
neigh = 2001:db8::2 lladdr {client_mac} port 0

[relay0]
listen = 198.18.0.1:5000
backend = 198.18.1.2:6000
source = 198.18.101.1
ports = 20000-20000

[endpoint]
socket = {d}/dpsock.sock
"""


def inputs(d: Path):
    c = Ether(dst=PORT0_MAC, src=CLIENT_MAC)
    pay = Raw(b"t" * 18)
    special = [
        Ether(dst="ff:ff:ff:ff:ff:ff", src=CLIENT_MAC) /
        ARP(op=1, hwsrc=CLIENT_MAC, psrc="198.18.0.2", pdst="198.18.0.1"),
        c / IP(src="198.18.0.2", dst="198.18.1.5", ttl=64) / UDP(sport=1111, dport=2222) / pay,
        c / IP(src="198.18.0.2", dst="198.18.1.6", ttl=1) / UDP(sport=3333, dport=4444) / pay,
        c / IP(src="198.18.0.2", dst="198.18.0.1", ttl=64) / UDP(sport=7000, dport=5000) / pay,
        c / IP(src="198.18.0.2", dst="198.18.0.1", ttl=64) / UDP(sport=7777, dport=7001) / pay,
        Ether(dst=PORT0_MAC, src=CLIENT_MAC, type=0x88B5) / Raw(b"e" * 46),
        c / IPv6(src="2001:db8::2", dst="2001:db8:5::5", hlim=64) /
        UDP(sport=1212, dport=2323) / pay,
    ]
    filler = [c / IP(src="198.18.0.2", dst=f"198.18.1.{10 + i % 200}", ttl=64) /
              UDP(sport=5555, dport=9) / pay
              for i in range(2000)]
    wrpcap(str(d / "in0.pcap"), special + filler)
    back = Ether(dst=PORT1_MAC, src=NEIGH_MAC) / IP(src="198.18.1.2", dst="198.18.101.1") / \
        UDP(sport=6000, dport=20000) / pay
    # filler (forwarded back out of port 1) keeps the answers to one in 1000
    fill1 = [Ether(dst=PORT1_MAC, src=NEIGH_MAC) / IP(src="198.18.1.2", dst="198.18.1.50") /
             UDP(sport=5555, dport=9) / pay] * 999
    wrpcap(str(d / "in1.pcap"), [back] + fill1)


def start(cls):
    """Wait for CLS's dpfwd; when it does not come up, stop it and remove the folder (no
    tearDownClass runs after a failed setUpClass)."""
    try:
        cls.fwd.wait_ready()
    except BaseException:
        cls.fwd.cleanup()
        shutil.rmtree(cls.dir, ignore_errors=True)
        raise


class TestTrace(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        dprig.skip_unless_built(dprig.DPFWD)
        cls.dir = Path(tempfile.mkdtemp(prefix="dptrace-"))
        inputs(cls.dir)
        (cls.dir / "fwd.ini").write_text(CONFIG.format(
            d=cls.dir, neigh_mac=NEIGH_MAC, client_mac=CLIENT_MAC))
        cls.fwd = dprig.Dpfwd(cls.dir, cls.dir / "fwd.ini",
                              eal=dprig.EAL_SMALL + ["--lcores", "0@0,1@1"]).start()
        start(cls)
        # an endpoint on 198.18.0.1:7001 that sends back what it gets, until killed
        cls.peer = subprocess.Popen([PEER, str(cls.dir / "dpsock.sock"), "echo",
                                     "198.18.0.1:7001", "100000000", "60000"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = cls.peer.stdout.readline()
        if line.strip() != "ready":
            cls.peer.kill()
            cls.fwd.cleanup()
            shutil.rmtree(cls.dir, ignore_errors=True)
            raise AssertionError(f"dpsock_peer: {line!r} {cls.peer.stderr.read()}")

    @classmethod
    def tearDownClass(cls):
        cls.peer.kill()
        cls.peer.communicate()
        cls.fwd.cleanup()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def dpctl(self, *args):
        return subprocess.run(DPCTL + ["--file-prefix", self.fwd.prefix] + list(args),
                              capture_output=True, text=True, timeout=30)

    def trace(self, count, flt, port=None):
        """Clear, mark COUNT packets FILTER takes, wait until all are closed: the packets."""
        self.assertEqual(self.dpctl("trace", "clear").returncode, 0)
        args = ["trace", "add", str(count), "-f", flt] + (["--port", port] if port else [])
        p = self.dpctl(*args)
        self.assertEqual(p.returncode, 0, p.stderr)
        deadline = time.monotonic() + 10
        while True:
            p = self.dpctl("trace", "show", "--json")
            self.assertEqual(p.returncode, 0, p.stderr)
            r = json.loads(p.stdout)
            done = [t for t in r["packets"]
                    if t["nodes"][-1]["node"] in ("tx", "drop", "endpoint4_rx")]
            if not r["armed"] and len(done) == count:
                return r["packets"]
            if time.monotonic() > deadline:
                self.fail(f"traces not closed: {json.dumps(r, indent=1)}")
            time.sleep(0.2)

    def path(self, t):
        return [n["node"] for n in t["nodes"]]

    def line(self, t, node):
        return next(n["text"] for n in t["nodes"] if n["node"] == node)

    def assert_path(self, t, *nodes):
        """The path is NODES in order, eth_classify allowed after port_rx (a burst that
        is not all unicast IPv4 for the port takes it)."""
        got = [n for n in self.path(t) if n != "eth_classify"]
        self.assertEqual(got, list(nodes), json.dumps(t, indent=1))

    def test_forwarded(self):
        for t in self.trace(2, "udp dst port 2222"):
            self.assert_path(t, "port_rx", "ip4_fwd", "tx")
            self.assertEqual(t["port"], 0)
            self.assertIn("198.18.0.2:1111 > 198.18.1.5:2222 udp ttl 64",
                          self.line(t, "port_rx"))
            self.assertEqual(self.line(t, "ip4_fwd"),
                             "dst 198.18.1.5 route 198.18.1.0/24 via 198.18.101.2 port 1")
            self.assertRegex(self.line(t, "tx"),
                             r"^port 1 queue 0 IPv4 198\.18\.0\.2:1111 > 198\.18\.1\.5:2222 "
                             r"udp ttl 63 ")
            ns = [n["ns"] for n in t["nodes"]]
            self.assertEqual(ns, sorted(ns))

    def test_forwarded_ip6(self):
        for t in self.trace(1, "ip6 and udp dst port 2323"):
            self.assert_path(t, "port_rx", "ip6_fwd", "tx")
            self.assertEqual(self.line(t, "ip6_fwd"),
                             "dst 2001:db8:5::5 route 2001:db8:5::/48 via 2001:db8::2 port 0")
            self.assertRegex(self.line(t, "tx"), r"^port 0 queue 0 IPv6 2001:db8::2 > "
                             r"2001:db8:5::5 next 17 hlim 63 ")

    def test_ttl_expired(self):
        for t in self.trace(4, "udp dst port 4444"):
            path = [n for n in self.path(t) if n != "eth_classify"]
            self.assertEqual(path[:3], ["port_rx", "ip4_fwd", "icmp4_error"],
                             json.dumps(t, indent=1))
            self.assertEqual(self.line(t, "ip4_fwd"), "dst 198.18.1.6 ttl 1: expired")
            self.assertEqual(self.line(t, "icmp4_error"), "time exceeded to 198.18.0.2 (ttl 1)")
            if path[-1] == "drop":
                # the ICMP errors' token bucket is empty: the packet is dropped
                self.assertEqual(self.line(t, "drop"), "reason icmp_ratelimited")
            else:
                self.assertEqual(path[3:], ["ip4_output", "port_tx-0", "tx"])
                self.assertRegex(self.line(t, "ip4_output"),
                                 r"^next hop \d+ via 198\.18\.0\.2 port 0$")
                self.assertIn("IPv4 198.18.0.1 > 198.18.0.2 proto 1 ttl 64",
                              self.line(t, "tx"))

    def test_arp_punted(self):
        for t in self.trace(1, "arp"):
            self.assert_path(t, "port_rx", "ctl_punt", "ctl", "port_tx-0", "tx")
            ctl = next(n for n in t["nodes"] if n["node"] == "ctl")
            self.assertEqual(ctl["lcore"], 0)    # the control lcore
            self.assertEqual(t["lcore"], 1)      # the worker
            self.assertIn("arp from worker 0: ARP request who-has 198.18.0.1 tell 198.18.0.2",
                          ctl["text"])
            self.assertIn("ARP reply 198.18.0.1 is-at " + PORT0_MAC, self.line(t, "tx"))

    def test_relay_both_directions(self):
        ts = self.trace(2, "udp dst port 5000")
        for t in ts:
            relay = [n for n in t["nodes"] if n["node"].startswith("relay4")]
            self.assertEqual(len(relay), 1, json.dumps(t, indent=1))
            self.assertRegex(relay[0]["text"], r"^session \d+ to backend: "
                             r"198\.18\.101\.1:20000 > 198\.18\.1\.2:6000$")
            self.assertRegex(self.line(t, "tx"), r"^port 1 queue 0 IPv4 198\.18\.101\.1:20000"
                             r" > 198\.18\.1\.2:6000 udp ttl 64 ")
        for t in self.trace(2, "udp src port 6000", port="1"):
            self.assertEqual(t["port"], 1)
            relay = [n for n in t["nodes"] if n["node"].startswith("relay4")]
            self.assertEqual(len(relay), 1, json.dumps(t, indent=1))
            self.assertRegex(relay[0]["text"], r"^session \d+ to client: "
                             r"198\.18\.0\.1:5000 > 198\.18\.0\.2:7000$")
            self.assertRegex(self.line(t, "tx"), r"^port 0 queue 0 IPv4 198\.18\.0\.1:5000"
                             r" > 198\.18\.0\.2:7000 udp ttl 64 ")

    def test_dropped(self):
        for t in self.trace(1, "ether proto 0x88b5"):
            self.assertEqual(self.path(t), ["port_rx", "eth_classify", "drop"])
            self.assertEqual(self.line(t, "port_rx"), "queue 0 ethertype 0x88b5 len 60")
            self.assertEqual(self.line(t, "drop"), "reason not_ip4")

    def test_endpoint(self):
        for t in self.trace(2, "udp dst port 7001"):
            self.assert_path(t, "port_rx", "ip4_fwd", "endpoint4_rx")
            self.assertEqual(self.line(t, "ip4_fwd"),
                             "dst 198.18.0.1 route 198.18.0.1/32 local")
            self.assertRegex(self.line(t, "endpoint4_rx"),
                             r"^endpoint 198\.18\.0\.1:7001 \(sends on worker 0\) 26 bytes$")

    def test_route_replaced_while_traced(self):
        stop = threading.Event()

        def flip():
            gws = ["198.18.101.3", "198.18.101.2"]
            i = 0
            while not stop.is_set():
                self.dpctl("route", "add", f"198.18.1.0/24 via {gws[i % 2]} port 1")
                i += 1

        th = threading.Thread(target=flip)
        th.start()
        try:
            ts = self.trace(40, "udp dst port 2222")
        finally:
            stop.set()
            th.join()
        self.dpctl("route", "add", "198.18.1.0/24 via 198.18.101.2 port 1")
        self.assertEqual(len(ts), 40)
        for t in ts:
            self.assert_path(t, "port_rx", "ip4_fwd", "tx")
            self.assertRegex(self.line(t, "ip4_fwd"), r"^dst 198\.18\.1\.5 route "
                             r"198\.18\.1\.0/24 via 198\.18\.101\.[23] port 1$")

    def test_bad_input(self):
        self.assertEqual(self.dpctl("trace", "clear").returncode, 0)
        p = self.dpctl("trace", "add", "1", "-f", "udp and and")
        self.assertEqual(p.returncode, 2)
        self.assertIn("syntax error", p.stderr)
        p = self.dpctl("trace", "add", "1", "--port", "7")
        self.assertEqual(p.returncode, 2)
        self.assertIn("no port 7", p.stderr)
        for count in ("0", "257"):
            p = self.dpctl("trace", "add", count)
            self.assertEqual(p.returncode, 2, p.stderr)
        # a trace whose filter takes nothing stays armed: another add is refused (exit 1)
        self.assertEqual(self.dpctl("trace", "add", "1", "-f", "udp dst port 9999").returncode,
                         0)
        p = self.dpctl("trace", "add", "1")
        self.assertEqual(p.returncode, 1)
        self.assertIn("a trace is armed (0 of 1 marked)", p.stderr)
        p = self.dpctl("trace", "show")
        self.assertEqual((p.returncode, p.stdout.strip()), (0, "no packet traced yet (armed)"))
        self.assertEqual(self.dpctl("trace", "clear").returncode, 0)
        # dpfwd runs on, and traces after that
        self.fwd.alive()
        self.assertEqual(len(self.trace(1, "udp dst port 2222")), 1)


class TestTraceHandoff(unittest.TestCase):
    """Two workers: port0 (the client) on lcore 1, port1 (the backend) on lcore 2, both
    on CPU 1. The session is worker 0's, with relay port 20000 of its slice; the backend's
    answer reaches worker 1, which hands it to worker 0: one trace over both lcores."""

    @classmethod
    def setUpClass(cls):
        dprig.skip_unless_built(dprig.DPFWD)
        cls.dir = Path(tempfile.mkdtemp(prefix="dptrace-"))
        inputs(cls.dir)
        config = CONFIG.format(d=cls.dir, neigh_mac=NEIGH_MAC, client_mac=CLIENT_MAC)
        config = config.replace("rx = (0,0,1),(1,0,1)", "rx = (0,0,1),(1,0,2)")
        config = config.replace("ports = 20000-20000", "ports = 20000-20001")
        config = config[:config.index("[endpoint]")]
        # net_pcap has a TX queue per tx_pcap; a worker needs one on each port
        for dev in ("in0.pcap,infinite_rx=1", "in1.pcap,infinite_rx=1"):
            config = config.replace(dev, dev + ",tx_pcap=/dev/null,tx_pcap=/dev/null")
        (cls.dir / "fwd.ini").write_text(config)
        cls.fwd = dprig.Dpfwd(cls.dir, cls.dir / "fwd.ini",
                              eal=dprig.EAL_SMALL + ["--lcores", "0@0,1@1,2@1"]).start()
        start(cls)

    @classmethod
    def tearDownClass(cls):
        cls.fwd.cleanup()
        shutil.rmtree(cls.dir, ignore_errors=True)

    dpctl = TestTrace.dpctl
    trace = TestTrace.trace
    path = TestTrace.path

    def test_relay_handoff_keeps_the_trace(self):
        # a client datagram relayed first: the session is there before its answers
        self.assertEqual(self.path(self.trace(1, "udp dst port 5000")[0])[-1], "tx")
        crossed = 0
        for t in self.trace(8, "udp src port 6000", port="1"):
            self.assertEqual((t["port"], t["lcore"]), (1, 2))
            lcores = [n["lcore"] for n in t["nodes"]]
            # worker 1's nodes, then worker 0's from the hand-off on: one switch
            self.assertEqual(lcores, sorted(lcores, reverse=True), json.dumps(t, indent=1))
            if lcores[-1] == 2:
                # both workers share a CPU: the ring to the session's worker may be full
                self.assertEqual(self.path(t)[-2:], ["relay4", "drop"])
                self.assertEqual(t["nodes"][-1]["text"], "reason relay_handoff_full")
                continue
            crossed += 1
            on1 = [n for n in t["nodes"] if n["lcore"] == 1]
            self.assertEqual([n["node"] for n in on1], ["relay4", "tx"],
                             json.dumps(t, indent=1))
            self.assertRegex(on1[0]["text"], r"^session \d+ to client: "
                             r"198\.18\.0\.1:5000 > 198\.18\.0\.2:7000$")
            self.assertRegex(on1[1]["text"], r"^port 0 queue 0 IPv4 198\.18\.0\.1:5000"
                             r" > 198\.18\.0\.2:7000 udp ttl 64 ")
        self.assertGreater(crossed, 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
