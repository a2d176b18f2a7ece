#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
802.1Q tags taken off and put on by the device: dpfwd's port0 is a virtio-user port
(DPDK's net_virtio_user, which offers VLAN_STRIP and VLAN_INSERT) whose vhost-user
peer is dpdk-testpmd, forwarding between its vhost port and a pcap port:

  testpmd: net_pcap (peer_in.pcap -> , -> peer_out.pcap) <-io-> net_vhost (vh.sock)
  dpfwd:   port0 net_virtio_user (vh.sock)  198.18.0.1/24
           port0.100  VLAN 100              198.18.100.1/24 (198.18.2.0/24 behind it)
           port1 net_pcap (in1.pcap -> , -> out1.pcap)  198.18.101.1/24 (198.18.1.0/24)

- Tagged VLAN 100 to 198.18.1.9, sent by testpmd: port0's device takes the tag off,
  the frames are port0.100's (its counters) and leave port1 untagged, TTL one less.
- Untagged to 198.18.1.9: stays with port0, out of port1 as well.
- Tagged VLAN 300: dropped as vlan_unknown.
- In on port1 to 198.18.2.9: leaves port0 with the tag VLAN 100, inserted by the device
  (the profile asks for VLAN_INSERT), as testpmd writes it.
- dpfwd's log says both offloads are on: the software paths did not do the work.
Frames are built and read with scapy, apart from dpfwd and DPDK. About 15 s.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dprig  # noqa: E402

from scapy.all import IP, UDP, Dot1Q, Ether, Raw, rdpcap, wrpcap  # noqa: E402

TESTPMD = shutil.which("dpdk-testpmd") or "/usr/bin/dpdk-testpmd"
PORT0_MAC = "02:76:69:00:00:01"
PORT1_MAC = "02:70:63:61:70:00"   # net_pcap's, the first one created
SENDER_MAC = "02:aa:00:00:00:02"
NEIGH_MAC = "02:00:00:00:01:02"

CONFIG = """\
# written by test_vlan_offload.py
[dpfwd]
main_lcore = 0
drivers_cfg = {d}/drivers

[port0]
dev = net_virtio_user0,path={d}/vh.sock,mac={mac0}
ip4 = 198.18.0.1/24

[port0.100]
ip4 = 198.18.100.1/24

[port1]
dev = net_pcap1,rx_pcap={d}/in1.pcap,tx_pcap={d}/out1.pcap
ip4 = 198.18.101.1/24

[lcores]
rx = (0,0,1),(1,0,1)

[routes]
route = 198.18.1.0/24 via 198.18.101.2 port 1
route = 198.18.2.0/24 via 198.18.100.2 port 0.100

[neighbors]
neigh = 198.18.101.2 lladdr {nmac} port 1
neigh = 198.18.100.2 lladdr {nmac} port 0.100
"""

# virtio-user's profile with the device inserting tags (drivers-cfg has it off: in
# virtio the PMD does it in software, no faster than dpfwd's own)
PROFILE = """\
[profile]
drivers = net_virtio_user
rx_desc = 1024
tx_desc = 1024
rx_offloads = none
tx_offloads = vlan_insert
rss_hf = none
tx_keeps_sent = on
"""


def udp(src, dst, ident):
    return (IP(src=src, dst=dst, id=ident, ttl=64) / UDP(sport=1000 + ident, dport=9)
            / Raw(bytes(i & 0xFF for i in range(72))))


class Testpmd:
    """dpdk-testpmd as the vhost-user server, driven on its prompt."""

    def __init__(self, d: Path, prefix: str):
        self.log = open(d / "testpmd.log", "w+")
        cmd = [TESTPMD, "-l", "0-1", "--file-prefix", prefix, "--no-pci", "--no-huge",
               "-m", "128",
               "--vdev", f"net_vhost0,iface={d}/vh.sock,client=0",
               "--vdev", f"net_pcap0,rx_pcap={d}/peer_in.pcap,tx_pcap={d}/peer_out.pcap",
               "--", "-i", "--no-lsc-interrupt", "--disable-link-check", "--forward-mode=io",
               "--no-flush-rx",
               "--total-num-mbufs=8192"]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=self.log,
                                     stderr=subprocess.STDOUT, text=True)

    def send(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def text(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def wait_for(self, what: str, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if what in self.text():
                return True
            if self.proc.poll() is not None:
                return False
            time.sleep(0.1)
        return False

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send("stop")
                self.send("quit")
                self.proc.wait(timeout=15)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        self.log.close()


class TestVlanOffload(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        dprig.skip_unless_built(dprig.DPFWD)
        cls.dir = Path(tempfile.mkdtemp(prefix="dpvlanoff-"))
        cls.prefixes = [f"dpvlanoff{os.getpid()}", f"dpvlanoffpmd{os.getpid()}"]
        try:
            cls.run_rig()
        except BaseException:
            cls.tearDownClass()  # unittest calls it only after a setUpClass that returned
            raise

    @classmethod
    def run_rig(cls):
        d = cls.dir
        (d / "drivers").mkdir()
        (d / "drivers" / "net_virtio_user.ini").write_text(PROFILE)
        wrpcap(str(d / "peer_in.pcap"), [
            Ether(src=SENDER_MAC, dst=PORT0_MAC) / Dot1Q(vlan=100, prio=5)
            / udp("198.18.100.2", "198.18.1.9", 1),
            Ether(src=SENDER_MAC, dst=PORT0_MAC) / Dot1Q(vlan=100)
            / udp("198.18.100.2", "198.18.1.9", 2),
            Ether(src=SENDER_MAC, dst=PORT0_MAC) / udp("198.18.0.2", "198.18.1.9", 3),
            Ether(src=SENDER_MAC, dst=PORT0_MAC) / Dot1Q(vlan=300)
            / udp("198.18.100.2", "198.18.1.9", 4),
        ])
        wrpcap(str(d / "in1.pcap"), [
            Ether(src=SENDER_MAC, dst=PORT1_MAC) / udp("198.18.1.2", "198.18.2.9", 5)])
        (d / "fwd.ini").write_text(CONFIG.format(d=d, mac0=PORT0_MAC, nmac=NEIGH_MAC))
        cls.tel = d / "telemetry.json"
        cls.pmd = Testpmd(d, cls.prefixes[1])
        cls.fwd = None
        try:
            if not cls.pmd.wait_for("testpmd>", 30):
                raise RuntimeError("testpmd did not start:\n" + cls.pmd.text()[-3000:])
            cmd = [str(dprig.DPFWD), "--file-prefix", cls.prefixes[0], "--no-huge", "-m",
                   "512", "--no-pci", "--lcores", "0@0,1@1", "--", "-c", str(d / "fwd.ini"),
                   "-d", "4", "-j", str(cls.tel)]
            cls.fwd = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       text=True)
            # the virtio device's queues ready on testpmd's vhost port: then forward
            if not cls.pmd.wait_for("virtio is now ready for processing", 20):
                raise RuntimeError("virtio-user never attached:\n" + cls.pmd.text()[-3000:])
            time.sleep(0.5)
            cls.pmd.send("start")
            cls.fwd_out, _ = cls.fwd.communicate(timeout=60)
        finally:
            if cls.fwd is not None and cls.fwd.poll() is None:
                cls.fwd.kill()
                cls.fwd.wait()
            cls.pmd.stop()
        try:
            cls.final = json.loads(cls.tel.read_text())
        except (OSError, ValueError):
            cls.final = None
        cls.out1 = list(rdpcap(str(d / "out1.pcap")))
        cls.peer_out = list(rdpcap(str(d / "peer_out.pcap")))

    @classmethod
    def tearDownClass(cls):
        for p in cls.prefixes:
            shutil.rmtree(Path("/var/run/dpdk") / p, ignore_errors=True)
        if os.environ.get("DPFW_KEEP"):
            print(f"kept {cls.dir}", file=sys.stderr)
        else:
            shutil.rmtree(cls.dir, ignore_errors=True)

    def ok(self):
        self.assertEqual(self.fwd.returncode, 0, self.fwd_out[-3000:])

    def by_id(self, frames, ident):
        return [f for f in frames if IP in f and UDP in f and f[IP].id == ident]

    def test_offloads_are_the_devices(self):
        self.ok()
        self.assertIn("port0 net_virtio_user0: VLAN tags taken off by the device",
                      self.fwd_out)
        self.assertIn("tag taken off by the device, inserted by the device", self.fwd_out)

    def test_tag_taken_off_by_device_leaves_port1_untagged(self):
        self.ok()
        for ident in (1, 2, 3):
            got = self.by_id(self.out1, ident)
            self.assertEqual(len(got), 1, f"id {ident}")
            self.assertNotIn(Dot1Q, got[0])
            self.assertEqual(got[0][Ether].type, 0x0800)
            self.assertEqual(got[0][Ether].dst, NEIGH_MAC)
            self.assertEqual(got[0][IP].ttl, 63)
            self.assertEqual(bytes(got[0][UDP].payload),
                             bytes(udp("198.18.0.2", "198.18.1.9", ident)[Raw]))

    def test_sub_interface_counts_its_frames(self):
        self.ok()
        self.assertIsNotNone(self.final)
        v100 = [v for v in self.final["vlans"] if v["vid"] == 100]
        self.assertEqual(len(v100), 1, self.final["vlans"])
        # in: ids 1 and 2; out: the announcement of 198.18.100.1 and id 5
        self.assertEqual(v100[0]["rx_pkts"], 2)
        self.assertEqual(v100[0]["tx_pkts"], 2)

    def test_unknown_vid_is_vlan_unknown_drop(self):
        self.ok()
        drops = {k: v for k, v in self.final["drops"]["by_reason"].items() if v}
        self.assertEqual(drops.get("vlan_unknown"), 1, drops)
        self.assertEqual(self.by_id(self.out1, 4), [])

    def test_tag_inserted_by_device(self):
        self.ok()
        got = self.by_id(self.peer_out, 5)
        self.assertEqual(len(got), 1, [f.summary() for f in self.peer_out])
        raw = bytes(got[0])
        self.assertEqual(raw[12:18], bytes.fromhex("8100" "0064" "0800"))
        self.assertEqual(got[0][Ether].src, PORT0_MAC)
        self.assertEqual(got[0][Ether].dst, NEIGH_MAC)
        self.assertEqual(got[0][IP].ttl, 63)


if __name__ == "__main__":
    unittest.main(verbosity=2)
