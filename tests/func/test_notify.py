#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
systemd readiness without systemd: dpfwd started with NOTIFY_SOCKET set to an AF_UNIX
datagram socket this test owns (what systemd does for a Type=notify unit). Each message
is read with its sender's credentials (SO_PASSCRED): every one must come from dpfwd's pid.

- READY=1 is the first message; when it arrives the telemetry socket answers, every port
  shows link up and every worker lcore has walked its graph (iterations > 0).
- SIGHUP after a route was added to the config: RELOADING=1 (with MONOTONIC_USEC) then
  READY=1, and by READY=1 the table holds one IPv4 route more.
- SIGTERM: STOPPING=1, then dpfwd exits 0.
Fails (not skipped) when dpfwd was built without libsystemd: dpfwd --version says so.
About 5 s.
"""
import os
import signal
import socket
import struct
import sys
import tempfile
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dprig  # noqa: E402

CONFIG = """[dpfwd]
main_lcore = 0
node_stats = off
[port0]
dev = net_null0
ip4 = 198.18.0.1/24
[port1]
dev = net_null1
ip4 = 198.18.101.1/24
[lcores]
rx = (0,0,1)
[routes]
route = 198.18.1.0/24 via 198.18.101.2 port 1
"""
ROUTE2 = "route = 198.18.2.0/24 via 198.18.101.2 port 1\n"


class Notify:
    """The socket systemd would own: datagrams with the sender's pid."""

    def __init__(self, path: Path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        self.sock.bind(str(path))

    def recv(self, timeout: float):
        """(pid, {key: value}) of the next message."""
        self.sock.settimeout(timeout)
        data, anc, _, _ = self.sock.recvmsg(4096, socket.CMSG_SPACE(struct.calcsize("3i")))
        pid = None
        for level, kind, cdata in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                pid = struct.unpack("3i", cdata[:struct.calcsize("3i")])[0]
        fields = dict(line.split("=", 1) for line in data.decode().splitlines() if line)
        return pid, fields

    def close(self):
        self.sock.close()


class TestNotify(unittest.TestCase):
    def test_ready_reloading_stopping(self):
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            cfg = d / "notify.ini"
            cfg.write_text(CONFIG)
            notify = Notify(d / "notify.sock")
            fwd = dprig.Dpfwd(d, cfg, interval_ms=100)
            try:
                fwd.spawn(fwd.argv, env=dict(os.environ, NOTIFY_SOCKET=str(notify.path)))
                pid, msg = notify.recv(60)
                self.assertEqual(pid, fwd.p.pid)
                self.assertEqual(msg.get("READY"), "1", msg)
                # at READY=1: the ports are up, every worker has walked its graph
                ports = dprig.as_list(fwd.cmd("/dpfwd/port/stats"))
                self.assertEqual(len(ports), 2, ports)
                self.assertTrue(all(p["link_up"] for p in ports), ports)
                lcores = dprig.as_list(fwd.cmd("/dpfwd/graph/lcores"))
                self.assertEqual(len(lcores), 1, lcores)
                self.assertTrue(all(int(lc["iterations"]) > 0 for lc in lcores), lcores)
                before = int(fwd.cmd("/dpfwd/fwd/routes")["ip4_routes"])

                cfg.write_text(CONFIG + ROUTE2)
                t0 = time.clock_gettime(time.CLOCK_MONOTONIC)
                fwd.p.send_signal(signal.SIGHUP)
                pid, msg = notify.recv(30)
                self.assertEqual(pid, fwd.p.pid)
                self.assertEqual(msg.get("RELOADING"), "1", msg)
                usec = int(msg["MONOTONIC_USEC"])
                self.assertGreaterEqual(usec, int(t0 * 1e6))
                self.assertLessEqual(usec, int(time.clock_gettime(time.CLOCK_MONOTONIC) * 1e6))
                pid, msg = notify.recv(30)
                self.assertEqual(pid, fwd.p.pid)
                self.assertEqual(msg.get("READY"), "1", msg)
                self.assertEqual(int(fwd.cmd("/dpfwd/fwd/routes")["ip4_routes"]), before + 1)

                fwd.p.send_signal(signal.SIGTERM)
                pid, msg = notify.recv(30)
                self.assertEqual(pid, fwd.p.pid)
                self.assertEqual(msg.get("STOPPING"), "1", msg)
                self.assertEqual(fwd.wait(30), 0, fwd.log())
            finally:
                fwd.cleanup()
                notify.close()


if __name__ == "__main__":
    dprig.skip_unless_built(dprig.DPFWD)
    import subprocess
    v = subprocess.run([str(dprig.DPFWD), "--version"], capture_output=True, text=True)
    if "systemd notify on" not in v.stdout:
        print(f"FAIL: {dprig.DPFWD} built without libsystemd: {v.stdout.strip()}")
        sys.exit(1)
    unittest.main(verbosity=2)
