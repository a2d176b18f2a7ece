#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
dpfwd with two worker lcores on DPDK virtual ports, pcap in ->
pcap out, every packet and every byte checked:

  port0  net_pcap0  rx_pcap=in0.pcap   polled by worker lcore 1   (198.18.0.1/24)
  port1  net_pcap1  rx_pcap=in1.pcap   polled by worker lcore 2   (198.18.100.1/24)
  port2  net_pcap2  tx_pcap=out2-0.pcap,tx_pcap=out2-1.pcap   198.18.1.0/24 via 198.18.101.2
  port3  net_pcap3  tx_pcap=out3-0.pcap,tx_pcap=out3-1.pcap   198.18.2.0/24 via 198.18.102.2

Each worker has its own TX queue on every port (queue = worker index), and net_pcap writes
each TX queue to its own file, so out<p>-<w>.pcap is what worker w sent on port p. The input
frames are UDP, each with a unique id in its payload, half to each output network. After
dpfwd read both inputs once (no infinite_rx) and stopped:

- every input frame is in exactly one output file: the one of its route's port and of the
  worker polling its input port; no other frame is there;
- its bytes are the input's with the destination MAC the neighbor's, the source MAC the
  output port's, the TTL one less and the IPv4 checksum right (recomputed here), the rest
  identical;
- each worker's telemetry counts its own port's frames: rx_pkts = tx_pkts = frames in,
  tx_bytes = their bytes, no drop; dpfwd exits 0 (no mbuf leaked).

The input ports' TX side (they send nothing) is two more pcap files each: dpfwd needs a TX
queue per worker on every port, and net_pcap without tx_pcap has one per RX queue.  EAL
runs with --no-huge, its own --file-prefix and --lcores 0@0,1@1,2@0 (lcores are threads;
EAL refuses -l 0-2 where there are only 2 CPUs): worker lcore 2 shares CPU 0 with the main
lcore, which sleeps between its 1 ms control polls.  About 5 s.  DPFW_KEEP=1 keeps the folder.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

BUILD = Path(os.environ.get("DPFWD_BUILD", "build"))
BIN = Path(os.environ.get("DPFWD_BIN", BUILD / "apps" / "dpfwd" / "dpfwd"))
RUN_S = 3
N_PER_PORT = 3000          # frames in each input pcap
PCAP_MAC = [bytes([0x02, 0x70, 0x63, 0x61, 0x70, n]) for n in range(4)]  # by creation order
NEIGH_MAC = {2: bytes.fromhex("020000000102"), 3: bytes.fromhex("020000000202")}

CONFIG = """\
# written by test_fwd_workers.py
[dpfwd]
main_lcore = 0

[port0]
dev = net_pcap0,rx_pcap={d}/in0.pcap,tx_pcap={d}/sink0-0.pcap,tx_pcap={d}/sink0-1.pcap
ip4 = 198.18.0.1/24

[port1]
dev = net_pcap1,rx_pcap={d}/in1.pcap,tx_pcap={d}/sink1-0.pcap,tx_pcap={d}/sink1-1.pcap
ip4 = 198.18.100.1/24

[port2]
dev = net_pcap2,tx_pcap={d}/out2-0.pcap,tx_pcap={d}/out2-1.pcap
ip4 = 198.18.101.1/24

[port3]
dev = net_pcap3,tx_pcap={d}/out3-0.pcap,tx_pcap={d}/out3-1.pcap
ip4 = 198.18.102.1/24

[lcores]
rx = (0,0,1),(1,0,2)

[routes]
route = 198.18.1.0/24 via 198.18.101.2 port 2
route = 198.18.2.0/24 via 198.18.102.2 port 3

[neighbors]
neigh = 198.18.101.2 lladdr 02:00:00:00:01:02 port 2
neigh = 198.18.102.2 lladdr 02:00:00:00:02:02 port 3
"""


def cksum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def udp_frame(dst_mac: bytes, src_mac: bytes, src_ip: bytes, dst_ip: bytes, ident: int,
              size: int) -> bytes:
    """An Ethernet/IPv4/UDP frame of SIZE bytes (no FCS), id IDENT in its payload."""
    payload = struct.pack("!I", ident) + bytes((ident + i) & 0xFF for i in range(size - 46))
    udp = struct.pack("!HHHH", 1024 + ident % 2000, 9, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), ident & 0xFFFF, 0, 64, 17, 0,
                     src_ip, dst_ip)
    ip = ip[:10] + struct.pack("!H", cksum(ip)) + ip[12:]
    return dst_mac + src_mac + b"\x08\x00" + ip + udp


def pcap_write(path: Path, frames) -> None:
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1, i, len(fr), len(fr)) + fr)


def pcap_read(path: Path):
    data = path.read_bytes()
    magic = struct.unpack("<I", data[:4])[0]
    assert magic in (0xA1B2C3D4, 0xA1B23C4D), f"{path}: not a little-endian pcap"
    off, out = 24, []
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack("<IIII", data[off:off + 16])
        out.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return out


def split_arp(frames):
    """(IPv4 frames, ARP frames): dpfwd announces each port's address once (gratuitous
    ARP, from the control lcore through a worker's TX queue) when it starts."""
    ip = [f for f in frames if f[12:14] == b"\x08\x00"]
    arp = [f for f in frames if f[12:14] == b"\x08\x06"]
    assert len(ip) + len(arp) == len(frames), "a frame neither IPv4 nor ARP"
    return ip, arp


def forwarded(fr: bytes, out_port: int) -> bytes:
    """What dpfwd must send for input frame FR routed to OUT_PORT."""
    ip = bytearray(fr[14:34])
    ip[8] -= 1                                  # TTL
    ip[10:12] = b"\0\0"
    ip[10:12] = struct.pack("!H", cksum(bytes(ip)))
    return NEIGH_MAC[out_port] + PCAP_MAC[out_port] + fr[12:14] + bytes(ip) + fr[34:]


class TestTwoWorkers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = Path(tempfile.mkdtemp(prefix="dpfw-"))
        cls.prefix = f"dpfw{os.getpid()}"
        d = cls.dir
        # per input port: ids unique over both, sizes 60..1514, dst alternating networks
        cls.inputs = {}
        for port, src_net in ((0, 0), (1, 100)):
            frames = []
            for k in range(N_PER_PORT):
                ident = port * N_PER_PORT + k
                net = 1 + (k % 2)
                size = 60 + (ident * 37) % (1514 - 60 + 1)
                frames.append(udp_frame(PCAP_MAC[port], bytes.fromhex("02aa00000000"),
                                        bytes([198, 18, src_net, 2 + k % 200]),
                                        bytes([198, 18, net, 1 + k % 250]), ident, size))
            pcap_write(d / f"in{port}.pcap", frames)
            cls.inputs[port] = frames
        (d / "fwd.ini").write_text(CONFIG.format(d=d))
        cls.tel = d / "telemetry.json"
        cmd = [str(BIN), "--file-prefix", cls.prefix, "--no-huge", "-m", "512", "--no-pci",
               "--lcores", "0@0,1@1,2@0",
               "--", "-c", str(d / "fwd.ini"), "-d", str(RUN_S), "-j", str(cls.tel)]
        try:
            cls.proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired as e:    # run() killed it; the tests say so
            cls.proc = subprocess.CompletedProcess(cmd, -9, "", f"dpfwd timed out: {e}")
        try:
            cls.final = json.loads(cls.tel.read_text())
        except (OSError, ValueError):
            cls.final = None

    @classmethod
    def tearDownClass(cls):
        rt = Path("/var/run/dpdk" if os.geteuid() == 0
                  else os.environ.get("XDG_RUNTIME_DIR", "/tmp") + "/dpdk") / cls.prefix
        shutil.rmtree(rt, ignore_errors=True)
        if os.environ.get("DPFW_KEEP"):
            print(f"kept {cls.dir}", file=sys.stderr)
        else:
            shutil.rmtree(cls.dir, ignore_errors=True)

    def test_exit_0_and_two_workers(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stdout + self.proc.stderr)
        self.assertNotIn("leaked", self.proc.stderr)
        self.assertIsNotNone(self.final)
        self.assertEqual(self.final["run"]["workers"], 2)
        self.assertEqual(sorted(lc["lcore"] for lc in self.final["lcores"]), [1, 2])
        # the MACs the expected frames are built with
        self.assertEqual([p["mac"].lower() for p in self.final["ports"]],
                         [":".join(f"{b:02x}" for b in m) for m in PCAP_MAC])

    def test_every_frame_forwarded_once_by_its_worker_bytes_checked(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr[-2000:])
        outputs, arps = {}, []
        for p in (2, 3):
            for w in (0, 1):
                outputs[(p, w)], a = split_arp(pcap_read(self.dir / f"out{p}-{w}.pcap"))
                arps += [(p, f) for f in a]
        expect = {(p, w): [] for p in (2, 3) for w in (0, 1)}
        for in_port, frames in self.inputs.items():
            w = in_port                # (0,0,1) -> worker 0, (1,0,2) -> worker 1
            for fr in frames:
                out_port = 2 if fr[32] == 1 else 3     # destination 198.18.<net>.x
                expect[(out_port, w)].append(forwarded(fr, out_port))
        for key, want in expect.items():
            got = outputs[key]
            self.assertEqual(len(got), len(want), f"port{key[0]} worker {key[1]}")
            # one worker, one input port, one queue: in the order they came in
            for i, (g, e) in enumerate(zip(got, want)):
                self.assertEqual(g, e, f"port{key[0]} worker {key[1]} frame {i} differs")
        # nothing went anywhere else
        for p in (0, 1):
            for w in (0, 1):
                ip, a = split_arp(pcap_read(self.dir / f"sink{p}-{w}.pcap"))
                self.assertEqual(ip, [])
                arps += [(p, f) for f in a]
        # the announcements: one per port, from the port's MAC, for its own address
        self.assertEqual(sorted(p for p, _ in arps), [0, 1, 2, 3])
        own = {0: (198, 18, 0, 1), 1: (198, 18, 100, 1), 2: (198, 18, 101, 1),
               3: (198, 18, 102, 1)}
        for p, f in arps:
            self.assertEqual(f[6:12], PCAP_MAC[p])
            self.assertEqual(tuple(f[28:32]), own[p])     # sender IP
            self.assertEqual(tuple(f[38:42]), own[p])     # target IP: gratuitous
        ids = sorted(struct.unpack("!I", fr[42:46])[0] for fs in outputs.values() for fr in fs)
        self.assertEqual(ids, list(range(2 * N_PER_PORT)))

    def test_each_worker_counts_its_own_port(self):
        self.assertIsNotNone(self.final)
        for w, lc in enumerate(sorted(self.final["lcores"], key=lambda x: x["lcore"])):
            frames = self.inputs[w]
            self.assertEqual(lc["rx_pkts"], N_PER_PORT, lc["lcore"])
            # and the gratuitous ARPs the control lcore gave it to send (60 bytes each)
            self.assertEqual(lc["tx_pkts"], N_PER_PORT + lc["injected"], lc["lcore"])
            self.assertEqual(lc["tx_bytes"], sum(len(f) for f in frames) + 60 * lc["injected"],
                             lc["lcore"])
        self.assertEqual(self.final["drops"]["total"], 0, self.final["drops"])
        ports = self.final["ports"]
        self.assertEqual([p["ipackets"] for p in ports], [N_PER_PORT, N_PER_PORT, 0, 0])
        self.assertEqual(ports[2]["opackets"] + ports[3]["opackets"], 2 * N_PER_PORT + 2)
        self.assertEqual(self.final["run"]["mbufs_over_baseline"], 0)


if __name__ == "__main__":
    if not BIN.exists():
        print(f"SKIP: {BIN} not built")
        sys.exit(77)
    unittest.main(verbosity=2)
