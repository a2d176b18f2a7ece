#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Two workers on two RX queues of one port, on a PMD whose queues the kernel fills:
dpfwd on net_tap (the kernel's multi-queue TAP), Linux hosts in namespaces behind it.

     netns <tag>-a                  netns <tag>-r                       netns <tag>-b
  +----------------+   +----------------------------------------+   +-------------------+
  | eth0           |---| <tag>a --+                             |   |              eth0 |
  | 198.18.10.2/24 |   |          +-- bridge <tag>br -- <tag>b  |---|    198.18.10.3/24 |
  | 198.18.20.0/24 |   |          |                             |   | lo 198.18.20.2/32 |
  |   via .1       |   |        <tag>t (TAP, 2 queues)          |   +-------------------+
  +----------------+   |          || q0: lcore 1 (worker 0)     |
                       |          || q1: lcore 2 (worker 1)     |
                       |        dpfwd port0 198.18.10.1/24      |
                       +----------------------------------------+

dpfwd forwards A -> 198.18.20.2 out of the same port (route via B), and relays UDP
198.18.10.1:5000 (clients on A) to B:6000 from relay ports 20000-20999 (worker 0 owns
20000-20499, worker 1 20500-20999).

How the TAP sits, and why:
- Made before dpfwd (`ip tuntap add ... multi_queue`, MTU 1400) and bridged with the
  hosts' veths in the router namespace; net_tap takes it over (iface=). The profile's
  `mtu = 1500` must then be set by dpfwd: the kernel's MTU of the TAP says it was.
- Not moved into a host's namespace: net_tap asks the kernel about its interface by name
  in its own namespace (SIOCGIFFLAGS), which fails with ENODEV once the interface left it;
  the port then reads as link down and dpfwd stops polling it.
- net_tap gives the kernel's side of the TAP dpfwd's MAC, and a bridge takes a frame to
  one of its ports' own addresses as its own (delivers it up, never forwards it): once
  dpfwd runs, the kernel's side gets a MAC of its own.

Which queue a frame takes is the kernel's choice (tun's automq): a flow it has not seen
goes to the queue its hash picks, and a flow dpfwd wrote on a queue within the last 3 s
(TUN_FLOW_EXPIRE) goes to that queue. A worker sends on its own queue, so a flow and its
answers stay on one worker. Relay sessions belong to the worker that saw the client
first; the backend's answers then come to the owner, except when the backend speaks
after tun forgot the flow (a push after 3 s of quiet): the hash picks the queue, and
about half of the sessions arrive at the other worker, which hands them to the owner.

No frame but the test's own: IPv6 is off in every namespace, neighbors are static, the
bridge has no address. So the workers' counters count the test's packets exactly.

Exit status 77 (meson: skipped) with the reason only where namespaces cannot be made or
the kernel refuses a multi-queue TAP (TUNSETIFF with IFF_MULTI_QUEUE, its errno).

  meson test -C build --suite netns tap_mq        # about 30 s
  DPFWD_NETNS_KEEP=1 ...                           # keep configs and logs
"""
import configparser
import json
import os
import re
import select
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netns  # noqa: E402
from test_netns import note  # noqa: E402

TRAFFIC = os.path.join(netns.HERE, "traffic.py")
DRIVER = "net_tap"
PROFILE = os.path.join(netns.DRIVERS_CFG, DRIVER + ".ini")
DP_MAC = "02:00:00:0a:00:01"
TAP_KERNEL_MAC = "02:00:00:0a:00:fe"  # the kernel's side, once dpfwd runs
TAP_MTU_BEFORE = 1400                  # what dpfwd must change to the profile's
LCORES = "0@0,1@1,2@1"                 # two workers on one CPU: this machine has two
QUEUE_LCORE = {0: 1, 1: 2}             # rx = (0,0,1),(0,1,2)
RELAY_LO, RELAY_HI = 20000, 20999
TUN_FORGETS_S = 5  # TUN_FLOW_EXPIRE (3 s), its GC timer rounded up to a second, margin

RELAY_CONFIG = f"""
[relay0]
listen = 198.18.10.1:5000
backend = 198.18.10.3:6000
source = 198.18.10.1
ports = {RELAY_LO}-{RELAY_HI}
"""


# ---- the kernel's multi-queue TAP ----

TUNSETIFF = 0x400454CA
IFF_TAP, IFF_MULTI_QUEUE, IFF_NO_PI = 0x0002, 0x0100, 0x1000

PROBE = f"""
import fcntl, os, struct
fds = []
for q in range(2):  # two queues: two opens of one name
    try:
        fds.append(os.open("/dev/net/tun", os.O_RDWR))
        fcntl.ioctl(fds[-1], {TUNSETIFF:#x}, struct.pack("16sH22x", b"dpnprobe",
                                                      {IFF_TAP | IFF_MULTI_QUEUE | IFF_NO_PI:#x}))
    except OSError as e:
        what = "open /dev/net/tun" if e.filename else "TUNSETIFF IFF_TAP|IFF_MULTI_QUEUE"
        raise SystemExit(f"queue {{q}}: {{what}}: errno {{e.errno}} ({{e.strerror}})")
"""


def tap_refusal():
    """Raise netns.Unavailable with the kernel's errno when it will not make a TAP with two
    queues (in a namespace of its own, gone after)."""
    ns = f"dpn{os.getpid()}_probe"
    netns.sh("ip", "netns", "add", ns)
    try:
        r = netns.sh(sys.executable, "-c", PROBE, ns=ns, check=False)
    finally:
        netns.sh("ip", "netns", "del", ns, check=False)
    if r.returncode != 0:
        raise netns.Unavailable(f"the kernel refuses a multi-queue TAP: {r.stderr.strip()}")


class TapTopology(netns.Topology):
    """Hosts A and B on a bridge with dpfwd's TAP, in the router namespace (see above)."""

    def __init__(self):
        super().__init__(static_neighbors=True, ip6=False)
        self.b.ip4, self.b.extra4 = "198.18.10.3", ["198.18.20.2"]
        self.tap, self.bridge = self.tag + "t", self.tag + "br"
        self.ports = [netns.RouterPort(0, self.tap, DP_MAC, "198.18.10.1", 24, None)]

    def _build(self):
        r = self.router_ns
        for ns in (self.a.ns, self.b.ns, r):
            netns.sh("ip", "netns", "add", ns)
            netns.defer(f"delete netns {ns}",
                        lambda ns=ns: netns.sh("ip", "netns", "del", ns, check=False))
            # before any link: no router solicitation, MLD or DAD frame anywhere
            for conf in ("all", "default"):
                netns.sh("sysctl", "-qw", f"net.ipv6.conf.{conf}.disable_ipv6=1", ns=ns)
            netns.sh("ip", "-n", ns, "link", "set", "lo", "up")
        netns.sh("ip", "-n", r, "link", "add", self.bridge, "type", "bridge")
        netns.sh("ip", "-n", r, "link", "set", self.bridge, "up")
        # a plain wire: with br_netfilter loaded the bridge would check IPv4 headers (and
        # drop test_2's bad checksums before dpfwd sees them)
        for t in ("iptables", "ip6tables", "arptables"):
            netns.sh("sysctl", "-qw", f"net.bridge.bridge-nf-call-{t}=0", ns=r, check=False)
        for h, end in ((self.a, self.tag + "a"), (self.b, self.tag + "b")):
            netns.sh("ip", "link", "add", end, "netns", r, "type", "veth", "peer", "name",
                     h.ifname, "netns", h.ns, "address", h.mac)
            netns.sh("ip", "-n", r, "link", "set", end, "master", self.bridge, "up")
            self._host(h)
        netns.sh("ip", "-n", r, "tuntap", "add", "dev", self.tap, "mode", "tap", "multi_queue")
        netns.sh("ip", "-n", r, "link", "set", self.tap, "mtu", TAP_MTU_BEFORE, "master",
                 self.bridge, "up")

    def _host(self, h):
        # as in Topology._host_end: whole frames with their checksums, no super-packets
        h.run("ethtool", "-K", h.ifname, "tx", "off", "tso", "off", "gso", "off", "gro", "off")
        h.run("ip", "addr", "add", f"{h.ip4}/24", "dev", h.ifname)
        for a in h.extra4:
            h.run("ip", "addr", "add", f"{a}/32", "dev", "lo")
        h.run("ip", "link", "set", h.ifname, "up")
        h.run("ip", "neigh", "replace", "198.18.10.1", "lladdr", DP_MAC, "dev", h.ifname,
              "nud", "permanent")
        if h is self.a:
            h.run("ip", "route", "add", "198.18.20.0/24", "via", "198.18.10.1")

    def tap_link(self):
        """The kernel's view of the TAP (ip -j -d link show)."""
        return json.loads(netns.sh("ip", "-n", self.router_ns, "-j", "-d", "link", "show",
                                   self.tap).stdout)[0]

    def dpfwd_config(self, driver=DRIVER, extra=""):
        a, b = self.a, self.b
        return "\n".join([
            f"# written by tests/netns/test_tap_mq.py for {self.tag}",
            "[dpfwd]", "main_lcore = 0", f"drivers_cfg = {netns.DRIVERS_CFG}",
            # no IPv4 header check in software: a bad checksum is caught only by the PMD's
            # verdict (the RX offload flag), or not at all
            "ip4_cksum_check = off", "",
            "[port0]", f"dev = {driver}0,iface={self.tap}", "ip4 = 198.18.10.1/24",
            f"mac = {DP_MAC}", "",
            "[lcores]",
            "rx = " + ",".join(f"(0,{q},{lc})" for q, lc in sorted(QUEUE_LCORE.items())), "",
            "[routes]", f"route = 198.18.20.0/24 via {b.ip4} port 0", "",
            "[neighbors]", f"neigh = {a.ip4} lladdr {a.mac} port 0",
            f"neigh = {b.ip4} lladdr {b.mac} port 0", ""]) + extra


# ---- counters ----

def lcore_rx(snap):
    return {lc["lcore"]: lc["rx_pkts"] for lc in snap["lcores"] if lc.get("role") == "worker"}


def delta(after, before):
    return {k: after[k] - before.get(k, 0) for k in after}


def queues(snap, field):
    return snap["ports"][0][field]


def relay_workers(snap):
    return {w["worker"]: w for w in snap["relay"]["workers"]}


def readline(proc, timeout):
    """One line of a process's stdout pipe, or an AssertionError after timeout seconds."""
    r, _, _ = select.select([proc.stdout], [], [], timeout)
    line = proc.stdout.readline().decode() if r else ""
    if not line:
        raise AssertionError(f"no line from pid {proc.pid} within {timeout} s "
                             f"(exit {proc.poll()})")
    return line


class TapMultiQueueTest(unittest.TestCase):
    """One dpfwd, one net_tap port with two RX queues, a worker on each."""

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(netns.DPFWD_BIN):
            raise unittest.SkipTest(f"{netns.DPFWD_BIN} missing: build first")
        cls.topo = TapTopology()
        try:
            cls.topo.up()
            cls.mtu_before = cls.topo.tap_link()["mtu"]
            # --check first: it probes the port (no start), so the TAP keeps its MTU
            chk = cls.dpfwd()
            cls.check = chk.check()
            cls.dp = cls.dpfwd().start().wait_ready()
            netns.sh("ip", "-n", cls.topo.router_ns, "link", "set", cls.topo.tap, "address",
                     TAP_KERNEL_MAC)
            # The kernel says the TAP runs (IFF_RUNNING, which net_tap reads as link up)
            # only once its link watch saw the carrier that came with the first queue: up
            # to a second after dpfwd started, which may find the link down and drop what
            # it sends at once (its gratuitous ARP: port_down). The tests start after.
            deadline = time.monotonic() + 10
            while not cls.dp.snapshot()["ports"][0]["polled"]:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the TAP's link never came up:\n{cls.dp.output()}")
            cls.start_drops = cls.dp.snapshot()["drops"]["by_reason"]
        except BaseException:
            cls.topo.down()
            raise

    @classmethod
    def dpfwd(cls):
        dp = netns.Dpfwd(cls.topo, DRIVER, interval_ms=100, extra=RELAY_CONFIG)
        dp.argv[1:1] = ["--lcores", LCORES]
        return dp

    @classmethod
    def tearDownClass(cls):
        cls.topo.down()

    def wait_counts(self, before, rx, tx=0, timeout=10.0):
        """A snapshot once the workers received @p rx packets and the port sent @p tx more
        than in @p before (TX is buffered: it may come a little after)."""
        deadline = time.monotonic() + timeout
        while True:
            snap = self.dp.snapshot()
            got = (sum(delta(lcore_rx(snap), lcore_rx(before)).values()),
                   sum(queues(snap, "tx_queue_pkts")) - sum(queues(before, "tx_queue_pkts")))
            if got[0] >= rx and got[1] >= tx:
                return snap
            self.assertLess(time.monotonic(), deadline,
                            f"(rx, tx) {got}, not yet ({rx}, {tx})")

    def spawn_ready(self, host, *argv, word="listening", timeout=10):
        """traffic.py ARGV in @p host until it prints @p word (stopped at the test's end)."""
        out = os.path.join(self.topo.tmp, f"{argv[0]}.{time.monotonic_ns()}.out")
        with open(out, "w") as f:
            proc = host.spawn(sys.executable, TRAFFIC, *argv, stdout=f)
        self.addCleanup(lambda: (netns.stop_process(proc), netns.undo(proc.cleanup)))
        deadline = time.monotonic() + timeout
        while word not in netns.read_text(out):
            self.assertTrue(proc.poll() is None and time.monotonic() < deadline,
                            f"{argv[0]} did not start: {netns.read_text(out)}")
            time.sleep(0.05)
        return proc, out

    def test_1_port_as_the_profile_asks(self):
        """The profile's offloads (all of which net_tap offers) and MTU, applied: in the
        telemetry, in `dpfwd --check`, and the MTU in the kernel's own view of the TAP."""
        ini = configparser.ConfigParser(inline_comment_prefixes=None)
        ini.read(PROFILE)
        prof = ini["profile"]
        port = self.dp.snapshot()["ports"][0]
        self.assertEqual((port["driver"], port["profile"], port["rx_queues"],
                          port["tx_queues"]), (DRIVER, DRIVER, 2, 2), port)
        self.assertEqual(port["rx_offloads"].split(), prof["rx_offloads"].split())
        self.assertEqual(port["tx_offloads"].split(), prof["tx_offloads"].split())
        self.assertRegex(self.dp.output(), r"port0 net_tap0: .*rx offloads \[" +
                         re.escape(prof["rx_offloads"]) + r"\], tx offloads")
        self.assertNotIn("port0 net_tap0: the device does not offer", self.dp.output())
        mtu = int(prof["mtu"])
        self.assertNotEqual(self.mtu_before, mtu)  # the TAP had another before dpfwd
        self.assertEqual((port["mtu"], self.topo.tap_link()["mtu"]), (mtu, mtu))
        self.assertEqual(self.check.returncode, 0, self.check.stdout + self.check.stderr)
        self.assertIn(f"port0: net_tap0, driver net_tap, profile net_tap, socket 0; 2 RX / 2 TX "
                      f"queues, {prof['rx_desc']} / {prof['tx_desc']} descriptors; RX offloads "
                      f"{prof['rx_offloads']}; TX offloads {prof['tx_offloads']}; MTU {mtu} (the "
                      f"profile's); IPv4 header checksum checked by the NIC", self.check.stdout)
        note(f"TAP MTU {self.mtu_before} -> {mtu}; rx offloads [{port['rx_offloads']}], "
             f"tx offloads [{port['tx_offloads']}]")

    def test_2_pmd_checksum_verdict_drops(self):
        """Frames with a wrong IPv4 header checksum (sent raw from A): dropped as
        ip4_bad_cksum, with dpfwd's software check off (ip4_cksum_check = off), so by the
        PMD's RX checksum flag."""
        before = self.dp.snapshot()["drops"]["by_reason"]["ip4_bad_cksum"]
        self.topo.a.run(sys.executable, TRAFFIC, "ip4-bad-cksum", "eth0", DP_MAC,
                        self.topo.a.ip4, "198.18.20.2", 7000, 3)
        deadline = time.monotonic() + 10
        while self.dp.snapshot()["drops"]["by_reason"]["ip4_bad_cksum"] - before < 3:
            self.assertLess(time.monotonic(), deadline, "bad IPv4 checksums not dropped")
        self.assertEqual(self.dp.snapshot()["drops"]["by_reason"]["ip4_bad_cksum"] - before, 3)

    def test_3_each_flow_stays_on_one_worker(self):
        """32 UDP flows A -> B (own source ports), one at a time, 16 datagrams each in two
        halves (the second once the first was forwarded): the workers' RX counts (and the
        PMD's per-queue counts) put each flow's 16 on exactly one worker, and the forwarded
        ones leave on that worker's queue; both workers got flows; B got every datagram of
        every flow in order, the MTU-sized ones too."""
        nflows, count, sizes = 32, 16, (18, 200, 1000, 1472)  # 1472: 1500-byte packets
        a, b = self.topo.a, self.topo.b
        sink, sink_out = self.spawn_ready(b, "udp-flow-sink", "198.18.20.2", 7000)
        sender = a.spawn(sys.executable, TRAFFIC, "udp-flow-sender", "198.18.20.2", 7000,
                         nflows, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.addCleanup(lambda: (netns.stop_process(sender), netns.undo(sender.cleanup)))
        sports = json.loads(readline(sender, 10))
        worker_of, snap = {}, self.dp.snapshot()
        for f in range(nflows):
            before = snap
            # in halves: the first comes to the queue the flow's hash picks, the second
            # after dpfwd forwarded the first (to the queue tun then keeps the flow on)
            for half in (1, 2):
                sender.stdin.write(f"{f} {count // 2} {sizes[f % len(sizes)]}\n".encode())
                sender.stdin.flush()
                self.assertEqual(readline(sender, 10).split(), ["sent", str(f)])
                snap = self.wait_counts(before, half * count // 2, half * count // 2)
            rx = delta(lcore_rx(snap), lcore_rx(before))
            qrx = [x - y for x, y in zip(queues(snap, "rx_queue_pkts"),
                                         queues(before, "rx_queue_pkts"))]
            qtx = [x - y for x, y in zip(queues(snap, "tx_queue_pkts"),
                                         queues(before, "tx_queue_pkts"))]
            on = [lc for lc, n in rx.items() if n]
            self.assertEqual((len(on), sorted(rx.values())), (1, [0, count]),
                             f"flow {f} (port {sports[f]}) split over the workers: {rx}")
            q = next(q for q, lc in QUEUE_LCORE.items() if lc == on[0])
            self.assertEqual(qrx, [count if i == q else 0 for i in range(2)], (f, rx, qrx))
            self.assertEqual(qtx, qrx, f"flow {f}: forwarded on another queue than read")
            worker_of[f] = on[0]
        netns.stop_process(sink)
        got = json.loads(netns.read_text(sink_out).splitlines()[-1])
        for f, sport in enumerate(sports):
            seen = got.get(f"{a.ip4}:{sport}", [])
            self.assertEqual(seen, [[f, i, sizes[f % len(sizes)]] for i in range(count)],
                             f"flow {f}: lost, reordered or cut")
        per = {lc: sorted(f for f, w in worker_of.items() if w == lc)
               for lc in QUEUE_LCORE.values()}
        self.assertTrue(all(per.values()), f"a worker got no flow: {per}")
        note(f"{nflows} flows x {count}: lcore 1 (q0) {len(per[1])} flows, lcore 2 (q1) "
             f"{len(per[2])} flows; each on one worker, in order at B")

    def test_4_relay_sessions_stay_and_pushes_are_handed_off(self):
        """64 relay clients on A, 4 rounds each through the relay to an echo server on B:
        each client has one session (one relay port: its datagrams all met one worker),
        the sessions' owners are both workers and match the workers' own counts. Then, once
        tun forgot the backend's flows, B pushes 8 datagrams into each session: every client
        gets its 8 in order; those that arrived at the worker not owning the session were
        handed off (counted on both sides), whole flows at a time, and none was lost."""
        n, rounds, pushes = 64, 4, 8
        a, b = self.topo.a, self.topo.b
        echo, _ = self.spawn_ready(b, "udp-echo-peer", b.ip4, 6000)
        s0 = self.dp.snapshot()
        clients, out = self.spawn_ready(a, "udp-relay-clients", "198.18.10.1", 5000, n,
                                        rounds, pushes, 60, word="\n", timeout=60)
        res = json.loads(netns.read_text(out).splitlines()[0])
        owner = {}
        for c in res:
            self.assertEqual((c["bad"], c["missing"]), (0, 0), f"client {c}")
            peers = set(c["peers"])
            self.assertEqual(len(peers), 1, f"client {c['port']} met several workers: {peers}")
            rport = int(peers.pop().rsplit(":", 1)[1])
            self.assertTrue(RELAY_LO <= rport <= RELAY_HI, rport)
            owner[c["port"]] = (rport, (rport - RELAY_LO) // ((RELAY_HI - RELAY_LO + 1) // 2))
        s1 = self.dp.snapshot()
        w0, w1 = relay_workers(s0), relay_workers(s1)
        owned = {w: sum(1 for _, o in owner.values() if o == w) for w in (0, 1)}
        self.assertEqual({w: w1[w]["created"] - w0[w]["created"] for w in (0, 1)}, owned)
        self.assertTrue(all(owned.values()), f"sessions all on one worker: {owned}")
        ask_handoffs = sum(w1[w]["handoffs"] - w0[w]["handoffs"] for w in (0, 1))

        netns.stop_process(echo)  # B:6000 free for the pushes
        time.sleep(TUN_FORGETS_S)
        s2 = self.dp.snapshot()
        b.run(sys.executable, TRAFFIC, "udp-push", b.ip4, 6000, "198.18.10.1", pushes,
              *sorted(r for r, _ in owner.values()))
        self.assertEqual(clients.wait(timeout=90), 0)
        got = json.loads(netns.read_text(out).splitlines()[1])
        for c in got:
            rport = owner[c["port"]][0]
            self.assertEqual(c["pushes"], [[rport, k] for k in range(pushes)],
                             f"client {c['port']} (relay port {rport}): lost or reordered")
        s3 = self.wait_counts(s2, n * pushes, n * pushes)
        w2, w3 = relay_workers(s2), relay_workers(s3)
        d = {w: {k: w3[w][k] - w2[w][k] for k in ("handoffs", "handoffs_in", "pkts_to_client")}
             for w in (0, 1)}
        rx = delta(lcore_rx(s3), lcore_rx(s2))
        drops = {k: v - s2["drops"]["by_reason"][k] for k, v in s3["drops"]["by_reason"].items()
                 if v != s2["drops"]["by_reason"][k]}
        self.assertEqual(drops, {}, "drops while pushing")
        self.assertEqual(sum(rx.values()), n * pushes, rx)
        for w, lc in ((0, 1), (1, 2)):
            self.assertEqual(d[w]["pkts_to_client"], pushes * owned[w], d)
            self.assertEqual(d[w]["handoffs"], d[1 - w]["handoffs_in"], d)
            # a backend flow stays on one queue: all of its pushes handed off, or none
            self.assertEqual((d[w]["handoffs"] % pushes, rx[lc] % pushes), (0, 0), (d, rx))
            self.assertLessEqual(d[w]["handoffs"], rx[lc])
        self.assertGreater(d[0]["handoffs"] + d[1]["handoffs"], 0,
                           "no push met the worker not owning its session")
        note(f"sessions owned: worker 0 {owned[0]}, worker 1 {owned[1]}; handoffs while "
             f"asking {ask_handoffs}; pushes received lcore 1 {rx[1]}, lcore 2 {rx[2]}; "
             f"handed off by worker 0 {d[0]['handoffs']}, by worker 1 {d[1]['handoffs']}; "
             f"all {n * pushes} delivered")

    def test_9_stop_clean(self):
        snap = self.dp.snapshot()
        rc = self.dp.stop()
        final = self.dp.read_json()
        self.assertEqual(rc, 0, self.dp.output())
        self.assertTrue(final.get("final"))
        self.assertEqual(final["run"]["mbufs_over_baseline"], 0)
        drops = {k: v - self.start_drops[k] for k, v in final["drops"]["by_reason"].items()
                 if v != self.start_drops[k]}
        self.assertEqual(drops, {"ip4_bad_cksum": 3}, "drops after the link came up")
        port = snap["ports"][0]
        note(f"per queue: rx {port['rx_queue_pkts']}, tx {port['tx_queue_pkts']}; per lcore "
             f"rx {lcore_rx(snap)}; dropped before the link came up: "
             f"{ {k: v for k, v in self.start_drops.items() if v} or 'none'}")


def main():
    netns.run_tests("tap_mq", __name__, f"dpfwd {netns.DPFWD_BIN} on {DRIVER}, 2 queues",
                    probe=tap_refusal)


if __name__ == "__main__":
    main()
