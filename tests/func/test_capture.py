#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
dpctl capture on the pcap rig, the files read back with tshark and scapy:

  port0  net_pcap0  rx_pcap=in0.pcap, infinite_rx   polled by worker lcore 1 (198.18.0.1/24)
  port1  net_null1                                   198.18.1.0/24 via 198.18.101.2

in0.pcap holds three kinds of frames, each with a unique id in its payload, all routed
to port 1: UDP to port 9, UDP to port 10, TCP to port 9.  One dpfwd runs for every test
(in order); each test runs dpctl capture against it and checks:

- rx, `-f 'udp and dst port 9' -c 1000`: tshark reads exactly 1000 packets, each
  byte-identical to a UDP-port-9 frame of the input; the interface is port 0's, inbound;
- tx: each packet is the forwarded frame (MACs, TTL, checksum: built here with scapy);
- a filter that matches nothing with -d 2: an empty, valid file after about 2 s;
- -w -: the bytes on stdout are a pcapng tshark reads; when the reader exits, the
  capture stops;
- SIGINT to dpctl: the capture stops and the file is complete; so it is when dpfwd
  itself stops during a capture (the last test);
- bad input: an invalid filter (libpcap's error, exit 2), an unwritable file, a port
  that does not exist (exit 2), a second capture while one runs (exit 1); dpfwd runs on.

EAL: --no-huge, its own --file-prefix, --lcores 0@0,1@1.  About 80 s (tshark starts slowly).
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dprig  # noqa: E402

from scapy.all import IP, TCP, UDP, Ether, Raw, wrpcap  # noqa: E402
from scapy.utils import RawPcapNgReader  # noqa: E402

# a generous --timeout: on a 2-CPU machine a busy moment can delay the socket's answer
DPCTL = [sys.executable, str(dprig.REPO / "apps" / "dpctl" / "dpctl.py"), "--timeout", "30"]
PORT0_MAC = "02:70:63:61:70:00"   # net_pcap0's
PORT1_MAC = "02:00:00:00:01:01"   # set by the config
NEIGH_MAC = "02:00:00:00:01:02"
N_EACH = 200
# one frame of each pass over the input (IPv4 id 3 is a UDP datagram to port 9): captures
# that run until they are stopped stay small at the rig's rate
ONE_PER_LOOP = "udp and dst port 9 and ip[4:2] = 3"

CONFIG = """\
# written by test_capture.py
[dpfwd]
main_lcore = 0

[port0]
dev = net_pcap0,rx_pcap={d}/in0.pcap,infinite_rx=1
ip4 = 198.18.0.1/24

[port1]
dev = net_null1
mac = {port1_mac}
ip4 = 198.18.101.1/24

[lcores]
rx = (0,0,1)

[routes]
route = 198.18.1.0/24 via 198.18.101.2 port 1

[neighbors]
neigh = 198.18.101.2 lladdr {neigh_mac} port 1
"""


def frames():
    """(all input frames, UDP-port-9 ones) as bytes."""
    out, udp9 = [], []
    for i in range(3 * N_EACH):
        kind = i % 3
        l4 = (UDP(sport=1024 + i, dport=9) if kind == 0 else
              UDP(sport=1024 + i, dport=10) if kind == 1 else
              TCP(sport=1024 + i, dport=9, flags="S"))
        pay = Raw(i.to_bytes(4, "big") + bytes((i + k) & 0xFF for k in range(i % 300)))
        f = bytes(Ether(dst=PORT0_MAC, src="02:aa:00:00:00:00") /
                  IP(src="198.18.0.2", dst=f"198.18.1.{1 + i % 250}", ttl=64, id=i) / l4 / pay)
        out.append(f)
        if kind == 0:
            udp9.append(f)
    return out, udp9


def forwarded(f: bytes) -> bytes:
    """The frame dpfwd sends for input F: scapy rebuilds the IPv4 checksum."""
    p = Ether(f)
    p[Ether].dst, p[Ether].src = NEIGH_MAC, PORT1_MAC
    p[IP].ttl -= 1
    del p[IP].chksum
    return bytes(p)


def pcapng_packets(path: Path):
    """[(bytes, interface id)] of a pcapng file, read by scapy."""
    out = []
    r = RawPcapNgReader(str(path))
    try:
        for data, meta in r:
            out.append((bytes(data), getattr(meta, "ifname", None)))
    finally:
        r.close()
    return out


def tshark(path: str, *fields):
    """tshark's lines for FIELDS of each packet (it fails on an invalid file)."""
    argv = ["tshark", "-r", path, "-T", "fields"]
    for f in fields:
        argv += ["-e", f]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise AssertionError(f"tshark -r {path}: {p.returncode}: {p.stderr}")
    return [line for line in p.stdout.splitlines() if line.strip()]


class TestCapture(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        dprig.skip_unless_built(dprig.DPFWD)
        cls.dir = Path(tempfile.mkdtemp(prefix="dpcap-"))
        d = cls.dir
        cls.inputs, cls.udp9 = frames()
        wrpcap(str(d / "in0.pcap"), [Ether(f) for f in cls.inputs])
        (d / "fwd.ini").write_text(CONFIG.format(d=d, port1_mac=PORT1_MAC,
                                                 neigh_mac=NEIGH_MAC))
        cls.fwd = dprig.Dpfwd(d, d / "fwd.ini",
                              eal=dprig.EAL_SMALL + ["--lcores", "0@0,1@1"]).start()
        cls.fwd.wait_ready()

    @classmethod
    def tearDownClass(cls):
        cls.fwd.cleanup()
        if os.environ.get("DPFW_KEEP"):
            print(f"kept {cls.dir}", file=sys.stderr)
        else:
            import shutil
            shutil.rmtree(cls.dir, ignore_errors=True)

    def dpctl(self, *args, timeout=30, **kw):
        return subprocess.run(DPCTL + ["--file-prefix", self.fwd.prefix, "capture"] +
                              list(args), capture_output=True, timeout=timeout, **kw)

    def status(self):
        return json.loads(subprocess.run(
            DPCTL + ["--file-prefix", self.fwd.prefix, "raw", "/dpfwd/capture/status",
                     "--decode"], capture_output=True, text=True,
            timeout=30).stdout)["/dpfwd/capture/status"]

    def test_1_rx_count_bytes_identical(self):
        out = self.dir / "rx.pcapng"
        p = self.dpctl("0", "--rx", "-f", "udp and dst port 9", "-c", "1000", "-w", str(out))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(b"1000 packets written", p.stderr)
        lines = tshark(str(out), "frame.interface_name", "frame.p2p_dir", "udp.dstport")
        self.assertEqual(len(lines), 1000)
        # rte_pcapng names interface N "dpdk:N" (N the DPDK port id), inbound
        self.assertEqual({tuple(line.split("\t")[:2]) for line in lines}, {("dpdk:0", "1")})
        self.assertEqual({line.split("\t")[2] for line in lines}, {"9"})
        pkts = pcapng_packets(out)
        self.assertEqual(len(pkts), 1000)
        udp9 = set(self.udp9)
        for data, _ in pkts:
            self.assertIn(data, udp9)
        # the port's device in its interface block, its name and driver in the comment
        info = subprocess.run(["capinfos", "-I", "-k", str(out)], capture_output=True,
                              text=True).stdout
        self.assertIn("Hardware = vdev-net_pcap0", info)
        self.assertIn("dpdk:0 = port 0 net_pcap0 (net_pcap)", info)
        self.assertIn("filter: udp and dst port 9", info)

    def test_2_tx_rewritten(self):
        out = self.dir / "tx.pcapng"
        p = self.dpctl("1", "--tx", "-f", "udp and dst port 9", "-c", "300", "-w", str(out))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(tshark(str(out), "frame.number")), 300)
        expect = {forwarded(f) for f in self.udp9}
        pkts = pcapng_packets(out)
        self.assertEqual(len(pkts), 300)
        for data, _ in pkts:
            self.assertIn(data, expect)
        self.assertEqual(set(tshark(str(out), "frame.interface_name", "frame.p2p_dir")),
                         {"dpdk:1\t0"})

    def test_3_no_match_duration(self):
        out = self.dir / "none.pcapng"
        t0 = time.monotonic()
        p = self.dpctl("all", "--both", "-f", "udp and dst port 7", "-d", "2", "-w", str(out))
        took = time.monotonic() - t0
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertGreaterEqual(took, 1.9)
        self.assertLess(took, 6)
        self.assertIn(b"stopped by duration", p.stderr)
        self.assertEqual(tshark(str(out), "frame.number"), [])
        self.assertGreater(out.stat().st_size, 0)

    def test_4_stdout_pipe(self):
        p = self.dpctl("0", "-f", "tcp", "-c", "50", "-w", "-")
        self.assertEqual(p.returncode, 0, p.stderr)
        t = subprocess.run(["tshark", "-r", "-", "-T", "fields", "-e", "tcp.dstport"],
                           input=p.stdout, capture_output=True, timeout=60)
        self.assertEqual(t.returncode, 0, t.stderr)
        self.assertEqual(t.stdout.decode().split(), ["9"] * 50)

    def test_4b_reader_goes_away(self):
        """tshark -c 5 exits after 5 packets: dpctl stops the capture."""
        argv = " ".join(f"'{a}'" for a in DPCTL + ["--file-prefix", self.fwd.prefix,
                                                   "capture", "0", "-w", "-"])
        t = subprocess.run(f"{argv} | tshark -r - -c 5 -T fields -e frame.number",
                           shell=True, capture_output=True, timeout=60)
        self.assertEqual(t.stdout.decode().split(), ["1", "2", "3", "4", "5"], t.stderr)
        dprig.wait_until(lambda: self.status().get("state") == "done", 10, "capture stopped")
        self.assertEqual(self.status()["stopped_by"], "stop")

    def test_5_sigint_completes_file(self):
        out = self.dir / "int.pcapng"
        p = subprocess.Popen(DPCTL + ["--file-prefix", self.fwd.prefix, "capture", "0",
                                      "-f", ONE_PER_LOOP, "-w", str(out)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        dprig.wait_until(lambda: self.status().get("state") == "running", 10,
                         "capture running")
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 0, err)
        self.assertIn(b"stopped by stop", err)
        n = len(tshark(str(out), "frame.number"))
        self.assertGreater(n, 0)
        self.assertEqual(n, self.status()["written"])

    def test_6_bad_filter(self):
        p = self.dpctl("0", "-f", "udp and dst port", "-w", str(self.dir / "bad.pcapng"))
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(b"syntax error", p.stderr)
        # dpfwd unaffected: still forwarding, and the next capture works
        before = self.fwd.totals()["rx"]
        time.sleep(0.2)
        self.assertGreater(self.fwd.totals()["rx"], before)
        p = self.dpctl("0", "-c", "5", "-w", str(self.dir / "after.pcapng"))
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_7_unwritable_file_and_no_port(self):
        p = self.dpctl("0", "-w", "/nonexistent-dir/x.pcapng")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(b"cannot write /nonexistent-dir/x.pcapng", p.stderr)
        p = self.dpctl("7", "-w", str(self.dir / "p7.pcapng"))
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(b"no port 7", p.stderr)

    def test_8_one_at_a_time(self):
        first = self.dir / "first.pcapng"
        p = subprocess.Popen(DPCTL + ["--file-prefix", self.fwd.prefix, "capture", "0",
                                      "-f", "udp and dst port 10 and ip[4:2] = 4",
                                      "-w", str(first)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        dprig.wait_until(lambda: self.status().get("state") == "running", 10,
                         "capture running")
        q = self.dpctl("0", "-w", str(self.dir / "second.pcapng"))
        self.assertEqual(q.returncode, 1, q.stderr)
        self.assertIn(b"a capture runs already", q.stderr)
        s = self.dpctl("--stop")
        self.assertEqual(s.returncode, 0, s.stderr)
        _, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 0, err)
        ports = tshark(str(first), "udp.dstport")
        self.assertGreater(len(ports), 0)
        self.assertEqual(set(ports), {"10"})

    def test_9_dpfwd_stops_during_capture(self):
        """Last: dpfwd stops (SIGINT) while a capture runs; the file is complete."""
        out = self.dir / "exit.pcapng"
        p = subprocess.Popen(DPCTL + ["--file-prefix", self.fwd.prefix, "capture", "0",
                                      "-f", ONE_PER_LOOP, "-w", str(out)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        dprig.wait_until(lambda: self.status().get("state") == "running", 10,
                         "capture running")
        time.sleep(0.3)
        self.assertEqual(self.fwd.stop(), 0, self.fwd.log())
        _, err = p.communicate(timeout=30)
        # dpctl reads the final status if it asks before the socket goes, else says so
        if p.returncode == 0:
            self.assertIn(b"stopped by exit", err)
        else:
            self.assertEqual(p.returncode, 1, err)
            self.assertIn(b"dpfwd stopped during the capture", err)
        self.assertIn("stopped (exit)", self.fwd.log())
        n = len(tshark(str(out), "udp.dstport"))
        self.assertGreater(n, 0)
        self.assertIn(f"capture to {out} stopped (exit): {n} packets written", self.fwd.log())


if __name__ == "__main__":
    unittest.main(verbosity=2)
