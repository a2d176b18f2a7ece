#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
dpfwd --check: the config and the machine are checked and what dpfwd would
run is printed, and nothing starts.

- On the bench config: exit 0; the plan names the EAL arguments dpfwd adds (the vdevs),
  the worker lcore and its queue, each port with its driver and profile, the packet
  pool (its size and how it was computed) and the route table; "nothing was started".
  The run is short (no --duration: dpfwd would otherwise run until stopped); its runtime
  directory is removed after.
- A worker lcore that EAL does not have: exit 2 with the reason, nothing printed as ok.
- A worker lcore that is not a CPU of this machine (no -l given: dpfwd makes it from the
  config): exit 2, a config error at the rx line's file:line, before EAL starts.
- --file-prefix given by the user, no memory option: dpfwd still adds --in-memory (free
  hugepages) or --no-huge -m 1024 (none) to the EAL arguments, and the check passes.
- A port that cannot be probed (a vdev of a driver that does not exist): exit non-zero
  and the error names the port.
- A pool that cannot be made (more mbufs than the memory given with --no-huge -m 64):
  exit 1 and the error says how to fix it.
- A PCI port that is not on this machine (an address sysfs does not list, with the mlx5
  profile): the EAL arguments carry -a with the profile's devargs (read from the file
  here), exit 1, and the error names the port's file:line, says the device is not
  here and what to do (dpdk-devbind.py --status, -b vfio-pci).
- A profile's mtu that the device cannot take (net_memif's frames stop at 1518 bytes, as
  DPDK 22.11's memif reports): exit 2 at --check, not a failure at start. The same for a
  [portN] mtu, at its own line; under 1280 on a port with ip6; over what a [mempool]
  data_room given by hand holds. mtu 9000 with data_room unset: the buffers grow to hold it.
- The plan's last line on MTUs: "mtu: 1500 on every port" for the bench config; on the
  fragmenting bench (ports at 1500 and 576), that the ports' differ and what dpfwd does.
- ECMP routes with a weight of 0, a next hop twice, or (in a route file) 17 next hops:
  exit 2, each error at its route's file:line.
About 5 s. Exit 77 (skipped) when dpfwd is not built.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("DPFWD_BUILD") or REPO / "build").resolve()
DPFWD = Path(os.environ.get("DPFWD_BIN", BUILD / "apps" / "dpfwd" / "dpfwd"))
CONFIG = REPO / "configs" / "bench" / "fwd-2000flows-64b.ini"


def check(eal, *extra, config=CONFIG):
    env = dict(os.environ, DPFWD_BUILD=str(BUILD))
    prefix = f"dpfwd-check-{os.getpid()}"
    # --in-memory: no hugepage files; EAL refuses it beside --no-huge (legacy
    # memory), which makes none either. The runtime directory (the telemetry
    # socket's) is made all the same: removed here
    mem = [] if "--no-huge" in eal else ["--in-memory"]
    cmd = [str(DPFWD), *eal, "--file-prefix", prefix, *mem, "--",
           "-c", str(config), "--check", *extra]
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    finally:
        shutil.rmtree(Path("/var/run/dpdk") / prefix, ignore_errors=True)
    return p.returncode, p.stdout, p.stderr


def one_port(d, drivers_cfg, port):
    """A config in folder d: one port (port: its section's lines, dev first, on line 5),
    polled by lcore 1."""
    cfg = Path(d) / "one-port.ini"
    cfg.write_text(f"[dpfwd]\nmain_lcore = 0\ndrivers_cfg = {drivers_cfg}\n"
                   f"[port0]\n{port}ip4 = 198.18.0.1/24\n[lcores]\nrx = (0,0,1)\n")
    return cfg


class TestCheck(unittest.TestCase):
    def test_mtus_that_differ_are_said(self):
        rc, out, err = check(["-l", "0,1"],
                             config=REPO / "configs" / "bench" / "fwd-frag-1500to576.ini")
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r"MTU 1500 \(config\)")
        self.assertRegex(out, r"MTU 576 \(config\)")
        mtu = [line for line in out.splitlines() if line.startswith("mtu: ")]
        self.assertEqual(len(mtu), 1, out)
        self.assertIn("the ports' differ: IPv4 over a next hop's MTU is fragmented", mtu[0])

    def test_bench_config_plan(self):
        rc, out, err = check(["-l", "0,1"])
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertEqual(lines[-1], "dpfwd --check: ok: nothing was started")
        eal = next(line for line in lines if line.startswith("EAL:"))
        self.assertIn("--vdev=net_pcap0,rx_pcap=", eal)
        self.assertIn("--vdev=net_null0", eal)
        self.assertIn("lcores: main 0 (control); worker 1 (socket 0): port0/q0", lines)
        self.assertIn("mtu: 1500 on every port", lines)
        ports = [line for line in lines if line.startswith("port")]
        self.assertEqual(len(ports), 3, out)
        self.assertIn("driver net_pcap, profile net_pcap", ports[0])
        self.assertIn("driver net_null, profile net_null", ports[1])
        pool = next(line for line in lines if line.startswith("mempool: socket 0:"))
        self.assertRegex(pool, r"\d+ mbufs = rx desc 1024 \+ tx desc 3072 .*: made$")
        self.assertRegex(next(line for line in lines if line.startswith("routes:")),
                         r"^routes: 2 IPv4 \(table room \d+, \d+ tbl8 groups: made\)")
        # nothing ran: no worker was launched, no telemetry JSON was written
        self.assertNotIn("telemetry JSON", out)
        self.assertNotIn("worker 0 on lcore", err)

    def test_worker_lcore_missing(self):
        rc, out, err = check(["-l", "0"])
        self.assertEqual(rc, 2, out + err)
        self.assertIn("lcore 1 polls ports in [lcores] but is not enabled in EAL", err)
        self.assertNotIn("ok:", out)

    def test_worker_lcore_the_machine_lacks(self):
        cpus = os.sched_getaffinity(0)
        lcore = max(cpus) + 1
        self.assertLess(lcore, 128, "this test needs a CPU number under RTE_MAX_LCORE")
        with tempfile.TemporaryDirectory() as d:
            cfg = Path(d) / "lcore.ini"
            cfg.write_text(CONFIG.read_text().replace("rx = (0,0,1)", f"rx = (0,0,{lcore})"))
            line = cfg.read_text().splitlines().index(f"rx = (0,0,{lcore})") + 1
            rc, out, err = check([], config=cfg)
        self.assertEqual(rc, 2, out + err)
        self.assertIn(f"dpfwd: error: {cfg}:{line}: [lcores] rx: lcore {lcore} is not a CPU of "
                      "this machine that dpfwd may run on (CPUs: "
                      f"{','.join(str(c) for c in sorted(cpus))})", err)
        self.assertNotIn("EAL:", out)   # refused before EAL
        self.assertNotIn("ok:", out)

    def test_file_prefix_keeps_memory_fallback(self):
        prefix = f"dpfwd-check-fp-{os.getpid()}"
        cmd = [str(DPFWD), "-l", "0,1", "--file-prefix", prefix, "--", "-c", str(CONFIG),
               "--check"]
        try:
            p = subprocess.run(cmd, env=dict(os.environ, DPFWD_BUILD=str(BUILD)),
                               capture_output=True, text=True, timeout=60)
        finally:
            shutil.rmtree(Path("/var/run/dpdk") / prefix, ignore_errors=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        eal = next(line for line in p.stdout.splitlines() if line.startswith("EAL:")).split()
        self.assertIn("--file-prefix", eal)
        # which one depends on the hugepages free at that moment (others may take them)
        self.assertTrue("--in-memory" in eal or
                        ("--no-huge" in eal and eal[eal.index("-m") + 1] == "1024"), eal)
        self.assertEqual(eal.count("--file-prefix"), 1, eal)

    def test_port_that_cannot_be_probed(self):
        with tempfile.TemporaryDirectory() as d:
            cfg = Path(d) / "bad.ini"
            text = CONFIG.read_text().replace("dev = net_null1", "dev = net_nosuchdriver0")
            cfg.write_text(text)
            rc, out, err = check(["-l", "0,1"], config=cfg)
        self.assertNotEqual(rc, 0, out + err)
        self.assertIn("net_nosuchdriver0", err)
        self.assertNotIn("ok:", out)

    def test_pool_too_big_for_memory(self):
        rc, out, err = check(["-l", "0,1", "--no-huge", "-m", "64"],
                             "--set", "mempool.size=1000000")
        self.assertEqual(rc, 1, out + err)
        self.assertIn("cannot create the packet pool on socket 0 (1000000 mbufs", err)
        self.assertIn("reserve more hugepages or set [mempool] size", err)

    def test_pci_port_not_on_this_machine(self):
        sysfs = Path("/sys/bus/pci/devices")
        addr = next(a for a in ("0000:af:00.0", "0000:fe:1f.7", "00ff:ff:1f.7")
                    if not (sysfs / a).exists())
        profile = REPO / "drivers-cfg" / "net_mlx5.ini"
        devargs = next(line.split("=", 1)[1].strip() for line in profile.read_text().splitlines()
                       if line.startswith("devargs"))
        with tempfile.TemporaryDirectory() as d:
            cfg = one_port(d, REPO / "drivers-cfg", f"dev = {addr}\nprofile = net_mlx5\n")
            rc, out, err = check(["-l", "0,1"], config=cfg)
        self.assertEqual(rc, 1, out + err)
        eal = next(line for line in out.splitlines() if line.startswith("EAL:"))
        self.assertIn(f" -a {addr},{devargs}", eal)
        self.assertNotIn("ok:", out)
        error = next(line for line in err.splitlines() if line.startswith("dpfwd --check: error:"))
        self.assertIn(f"{cfg}:5: port0 '{addr}' not found: there is no PCI device {addr} "
                      "on this machine", error)
        self.assertIn("dpdk-devbind.py --status", error)
        self.assertIn(f"dpdk-devbind.py -b vfio-pci {addr}", error)

    def test_profile_mtu_the_device_cannot_take(self):
        with tempfile.TemporaryDirectory() as d:
            profiles = Path(d) / "drivers-cfg"
            shutil.copytree(REPO / "drivers-cfg", profiles)
            memif = profiles / "net_memif.ini"
            memif.write_text(memif.read_text() + "mtu = 1600\n")
            memif_dev = f"net_memif0,role=server,id=0,socket={d}/m.sock"
            cfg = one_port(d, profiles, f"dev = {memif_dev}\n")
            rc, out, err = check(["-l", "0,1"], config=cfg)
        self.assertEqual(rc, 2, out + err)
        self.assertNotIn("ok:", out)
        self.assertIn(f"{cfg}:5: port0 (net_memif): profile net_memif asks mtu 1600, the "
                      "device takes frames of 1518 bytes at most (mtu 1500)", err)

    def test_port_mtu_over_the_device_names_its_line(self):
        with tempfile.TemporaryDirectory() as d:
            memif_dev = f"net_memif0,role=server,id=0,socket={d}/m.sock"
            # the mtu line is line 6: after [dpfwd] (3 lines), [port0] and dev
            cfg = one_port(d, REPO / "drivers-cfg", f"dev = {memif_dev}\nmtu = 1600\n")
            rc, out, err = check(["-l", "0,1"], config=cfg)
        self.assertEqual(rc, 2, out + err)
        self.assertNotIn("ok:", out)
        self.assertIn(f"{cfg}:6: port0 (net_memif): [port0] mtu 1600, the device takes "
                      "frames of 1518 bytes at most (mtu 1500)", err)

    def test_bad_sub_interfaces_exit_2_at_their_line(self):
        with tempfile.TemporaryDirectory() as d:
            base = one_port(d, REPO / "drivers-cfg", "dev = net_null0\n").read_text()
            cases = {
                # the section's first key is line 10, after the config's 9 lines
                "port0.0": "bad sub-interface section [port0.0] (expected [portN.VID], "
                           "N 0..15, VID 1..4094)",
                "port0.4095": "bad sub-interface section [port0.4095]",
                "port0.x": "bad sub-interface section [port0.x]",
                "port3.100": "[port3.100] is a sub-interface of [port3], which is not "
                             "defined",
            }
            for section, msg in cases.items():
                cfg = Path(d) / f"{section}.ini"
                cfg.write_text(base + f"[{section}]\nip4 = 198.18.9.1/24\n")
                rc, out, err = check(["-l", "0,1"], config=cfg)
                self.assertEqual(rc, 2, section + out + err)
                self.assertNotIn("ok:", out)
                self.assertIn(f"{cfg}:10: {msg}", err)
            # an mtu over the port's (1500 by default): at the mtu line
            cfg = Path(d) / "mtu.ini"
            cfg.write_text(base + "[port0.5]\nip4 = 198.18.9.1/24\nmtu = 1600\n")
            rc, out, err = check(["-l", "0,1"], config=cfg)
            self.assertEqual(rc, 2, out + err)
            self.assertNotIn("ok:", out)
            self.assertIn(f"{cfg}:11: port0.5: mtu 1600 is over its port's mtu 1500 (the "
                          "default)", err)
            # and one that fits: in the plan
            cfg.write_text(base + "[port0.5]\nip4 = 198.18.9.1/24\nmtu = 1400\n")
            rc, out, err = check(["-l", "0,1"], config=cfg)
            self.assertEqual(rc, 0, out + err)
            self.assertIn("port0.5: net_null0.5, VLAN 5 of port0; MTU 1400 (config); tag "
                          "inserted in software", out)

    def test_bad_ecmp_routes_exit_2_at_their_line(self):
        via = " ".join(f"via 198.18.0.{i} port 0" for i in range(2, 19))
        cases = [
            ("route = 198.18.5.0/24 via 198.18.0.2 port 0 weight 0 via 198.18.0.3 port 0",
             None, "bad weight '0' of next hop 198.18.0.2 (1..255)"),
            ("route = 198.18.5.0/24 via 198.18.0.2 port 0 via 198.18.0.2 port 0",
             None, "next hop 198.18.0.2 port 0 twice"),
            ("file = routes.txt", f"# 17 next hops\n198.18.5.0/24 {via}\n",
             "more than 16 next hops"),
        ]
        for line, routes, why in cases:
            with self.subTest(line=line), tempfile.TemporaryDirectory() as d:
                # the route is line 10: one_port's 8, [routes], then it
                cfg = one_port(d, REPO / "drivers-cfg", "dev = net_null0\n")
                cfg.write_text(cfg.read_text() + f"[routes]\n{line}\n")
                if routes is not None:
                    (Path(d) / "routes.txt").write_text(routes)
                rc, out, err = check(["-l", "0,1"], config=cfg)
                self.assertEqual(rc, 2, out + err)
                self.assertNotIn("ok:", out)
                where = f"{cfg}:10: " if routes is None else f"{Path(d) / 'routes.txt'}:2: "
                self.assertIn(where, err)
                self.assertIn(why, err)

    def test_port_mtu_under_ipv6_minimum(self):
        with tempfile.TemporaryDirectory() as d:
            cfg = one_port(d, REPO / "drivers-cfg",
                           "dev = net_null0\nmtu = 1200\nip6 = 2001:db8::1/64\n")
            rc, out, err = check(["-l", "0,1"], config=cfg)
        self.assertEqual(rc, 2, out + err)
        self.assertIn(f"{cfg}:6: [port0] mtu 1200 with an ip6 address: IPv6 links carry "
                      "1280 bytes at least", err)

    def test_jumbo_mtu_sizes_the_packet_buffers(self):
        """mtu 9000: the plan shows it, and the pool's buffers hold a 9000-byte packet with
        its Ethernet header, a VLAN tag and the CRC after DPDK's 128-byte headroom."""
        with tempfile.TemporaryDirectory() as d:
            cfg = one_port(d, REPO / "drivers-cfg", "dev = net_null0\nmtu = 9000\n")
            rc, out, err = check(["-l", "0,1"], config=cfg)
        self.assertEqual(rc, 0, out + err)
        port = next(line for line in out.splitlines() if line.startswith("port0:"))
        self.assertIn("MTU 9000 (config)", port)
        pool = re.search(r"pool dpfwd_pkt_s0: \d+ mbufs x (\d+) B", out + err)
        self.assertIsNotNone(pool, out + err)
        # the element holds the mbuf header (128 B) and the data room
        self.assertGreaterEqual(int(pool.group(1)), 128 + 128 + 9000 + 14 + 4 + 4)

    def test_jumbo_mtu_with_a_small_data_room_says_what_to_raise(self):
        with tempfile.TemporaryDirectory() as d:
            cfg = Path(d) / "small-room.ini"
            cfg.write_text("[dpfwd]\nmain_lcore = 0\n[mempool]\ndata_room = 2176\n"
                           "[port0]\ndev = net_null0\nmtu = 9000\nip4 = 198.18.0.1/24\n"
                           "[lcores]\nrx = (0,0,1)\n")
            rc, out, err = check(["-l", "0,1"], config=cfg)
        self.assertEqual(rc, 2, out + err)
        self.assertIn(f"{cfg}:7: port0 (net_null): [port0] mtu 9000, frames of 9018 bytes, "
                      "more than a packet buffer holds ([mempool] data_room 2176: 2048 after "
                      "the headroom); raise data_room to 9146 or leave it unset", err)


if __name__ == "__main__":
    if not DPFWD.exists():
        print(f"SKIP: {DPFWD} not built")
        sys.exit(77)
    unittest.main(verbosity=2)
