#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""func/udptools: udprtt and udprelay (apps/udptools) over loopback.

udprtt --server echoes; the client's counts, byte validation (the server's
--corrupt-every and --drop-every make known numbers of bad and missing replies),
the ordering of its quantiles and their agreement with the samples file (the exact
nearest-rank values recomputed by relaybench.rtt_summary: udprtt's are the tops of their
histogram buckets, never below them and less than 1/128 above); udprelay between
them keeps one session per client and relays every byte both ways; socat too when
installed. Loopback only, ports chosen by the kernel (port 0). About 5 s.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

REPO = Path(os.environ.get("DPFWD_SRC", Path(__file__).resolve().parents[2]))
BUILD = Path(os.environ.get("DPFWD_BUILD", REPO / "build"))
UDPRTT = BUILD / "apps" / "udptools" / "udprtt"
UDPRELAY = BUILD / "apps" / "udptools" / "udprelay"
sys.path.insert(0, str(REPO / "apps" / "dpbench"))
import relaybench  # noqa: E402

ORDER = ("min", "p50", "p90", "p99", "p999", "max")


class Proc:
    """A background tool whose stderr names the port it bound; stopped by pid."""

    def __init__(self, argv, pattern):
        self.err = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([str(a) for a in argv], stdout=subprocess.PIPE,
                                     stderr=self.err, text=True, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            self.err.seek(0)
            m = re.search(pattern, self.err.read())
            if m:
                self.port = int(m.group(1))
                break
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"{argv[0]} did not start")
            time.sleep(0.02)

    def stop(self) -> dict:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        out = self.proc.stdout.read()
        self.proc.stdout.close()
        self.err.close()
        return json.loads(out) if out.strip() else {}


def server(*extra) -> Proc:
    return Proc([UDPRTT, "--server", "127.0.0.1:0", *extra], r"echoing on 127\.0\.0\.1:(\d+)")


def client(port, *args, timeout=60) -> dict:
    r = subprocess.run([str(UDPRTT), *map(str, args), f"127.0.0.1:{port}"],
                       capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise AssertionError(f"udprtt exit {r.returncode}: {r.stderr}")
    return relaybench.parse_udprtt(r.stdout)


@unittest.skipUnless(os.access(UDPRTT, os.X_OK) and os.access(UDPRELAY, os.X_OK),
                     f"{UDPRTT} / {UDPRELAY} not built")
class TestUdptools(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="udptools."))
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def check_quantiles(self, r):
        q = r["rtt_us"]
        vals = [q[k] for k in ORDER]
        self.assertEqual(vals, sorted(vals), f"quantiles out of order: {q}")
        self.assertGreater(q["min"], 0)
        self.assertLessEqual(q["min"], q["mean"])
        self.assertLessEqual(q["mean"], q["max"])

    def test_pingpong_counts_and_quantiles_match_samples(self):
        srv = server()
        samples = self.tmp / "samples.txt"
        try:
            r = client(srv.port, "-n", 400, "-w", 20, "-s", 100, "-o", samples)
        finally:
            st = srv.stop()
        self.assertEqual((r["sent"], r["received"], r["lost"], r["corrupted"]), (400, 400, 0, 0))
        self.assertEqual((r["late"], r["duplicate"], r["mode"]), (0, 0, "pingpong"))
        self.assertEqual(st["echoed"], 420)              # warm-up included
        self.assertEqual(st["bytes"], 420 * 100)
        self.check_quantiles(r)
        lines = samples.read_text().split("\n")[:-1]
        self.assertEqual(len(lines), 400)
        self.assertEqual([int(x.split()[0]) for x in lines], list(range(400)))
        mine = relaybench.rtt_summary([int(x.split()[1]) for x in lines])
        for k in ("min", "max", "mean"):                  # udprtt prints 3 decimals (ns)
            self.assertAlmostEqual(mine[k], r["rtt_us"][k], delta=0.0011, msg=k)
        for k in ("p50", "p90", "p99", "p999"):           # the histogram's bound
            self.assertGreaterEqual(r["rtt_us"][k], mine[k] - 0.0011, msg=k)
            self.assertLess(r["rtt_us"][k], mine[k] * (1 + 1 / 128) + 0.0011, msg=k)
        self.assertAlmostEqual(mine["stddev"], r["rtt_us"]["stddev"], delta=0.01)

    def test_corrupted_and_dropped_replies_are_counted(self):
        # server: every 10th datagram unanswered, every 7th answered with a flipped byte
        srv = server("--drop-every", 10, "--corrupt-every", 7)
        try:
            r = client(srv.port, "-n", 140, "-s", 64, "-t", 200)
        finally:
            st = srv.stop()
        dropped = 140 // 10
        corrupt = len([i for i in range(1, 141) if i % 7 == 0 and i % 10 != 0])
        self.assertEqual((st["dropped"], st["corrupted"]), (dropped, corrupt))
        self.assertEqual(r["lost"], dropped)
        self.assertEqual(r["corrupted"], corrupt)
        self.assertEqual(r["received"], 140 - dropped - corrupt)
        self.check_quantiles(r)

    def test_rate_mode_with_window(self):
        srv = server()
        try:
            r = client(srv.port, "-n", 1000, "-r", 5000, "-k", 16, "-s", 512)
        finally:
            srv.stop()
        self.assertEqual((r["sent"], r["received"], r["lost"], r["corrupted"]),
                         (1000, 1000, 0, 0))
        self.assertEqual((r["mode"], r["inflight_max"]), ("rate", 16))
        self.assertGreater(r["elapsed_s"], 0.9 * 1000 / 5000)   # paced, not flat out
        self.check_quantiles(r)

    def test_nobody_listening_is_all_lost(self):
        srv = server()
        port = srv.port
        srv.stop()
        r = client(port, "-n", 3, "-t", 50)
        self.assertEqual((r["sent"], r["received"], r["lost"]), (3, 0, 3))
        self.assertIsNone(r["rtt_us"])

    def test_bad_arguments_exit_2(self):
        for args in (["-s", "8", "127.0.0.1:9"], ["-n", "0", "127.0.0.1:9"], ["nohost"],
                     ["--drop-every", "2", "127.0.0.1:9"]):
            r = subprocess.run([str(UDPRTT), *args], capture_output=True, text=True, timeout=10)
            self.assertEqual(r.returncode, 2, args)
        r = subprocess.run([str(UDPRELAY), "-l", "127.0.0.1:1"], capture_output=True, text=True,
                           timeout=10)
        self.assertEqual(r.returncode, 2)
        # an address it cannot bind (TEST-NET-1): exit 1, all freed (LSan in the ASan build)
        r = subprocess.run([str(UDPRELAY), "-l", "192.0.2.1:9", "-b", "192.0.2.2:9"],
                           capture_output=True, text=True, timeout=10)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("bind 192.0.2.1:9", r.stderr)

    def test_udprelay_sessions_and_bytes(self):
        srv = server()
        rel = Proc([UDPRELAY, "-l", "127.0.0.1:0", "-b", f"127.0.0.1:{srv.port}"],
                   r"udprelay: 127\.0\.0\.1:(\d+)")
        try:
            a = client(rel.port, "-n", 300, "-s", 1200)
            b = client(rel.port, "-n", 500, "-r", 4000, "-k", 8, "-s", 64)
        finally:
            st = rel.stop()
            ss = srv.stop()
        for r in (a, b):
            self.assertEqual((r["lost"], r["corrupted"]), (0, 0))
            self.check_quantiles(r)
        self.assertEqual(st["sessions_created"], 2)       # one per client socket
        self.assertEqual((st["pkts_to_backend"], st["pkts_to_client"]), (800, 800))
        self.assertEqual(st["bytes_to_backend"], 300 * 1200 + 500 * 64)
        self.assertEqual(st["bytes_to_client"], st["bytes_to_backend"])
        self.assertEqual((st["drop_to_backend"], st["drop_to_client"]), (0, 0))
        self.assertEqual(ss["echoed"], 800)

    def test_udprelay_evicts_after_the_answers_already_waiting(self):
        # -m 1: client B's first datagram evicts client A's session. udprelay is stopped
        # while B's datagram and then the backend's answer to A arrive, so one epoll_wait
        # returns both, the listen socket first: A's answer is relayed before its session
        # is closed (it was freed first, then read by the answer's event).
        import socket
        backend = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        backend.bind(("127.0.0.1", 0))
        backend.settimeout(5)
        self.addCleanup(backend.close)
        rel = Proc([UDPRELAY, "-l", "127.0.0.1:0", "-b", f"127.0.0.1:{backend.getsockname()[1]}",
                    "-m", "1"], r"udprelay: 127\.0\.0\.1:(\d+)")
        a, b = (socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(2))
        for c in (a, b):
            c.settimeout(5)
            self.addCleanup(c.close)
        try:
            a.sendto(b"from a", ("127.0.0.1", rel.port))
            data, session_a = backend.recvfrom(100)
            self.assertEqual(data, b"from a")
            os.kill(rel.proc.pid, signal.SIGSTOP)
            deadline = time.monotonic() + 5
            while Path(f"/proc/{rel.proc.pid}/stat").read_text().split(")")[-1].split()[0] != "T":
                self.assertLess(time.monotonic(), deadline, "udprelay did not stop")
                time.sleep(0.01)
            b.sendto(b"from b", ("127.0.0.1", rel.port))
            backend.sendto(b"to a", session_a)
            os.kill(rel.proc.pid, signal.SIGCONT)
            self.assertEqual(a.recv(100), b"to a")
            data, session_b = backend.recvfrom(100)
            self.assertEqual(data, b"from b")
            self.assertNotEqual(session_b, session_a)
        finally:
            os.kill(rel.proc.pid, signal.SIGCONT)
            st = rel.stop()
        self.assertEqual((st["sessions_created"], st["evicted"], st["sessions_active"]), (2, 1, 1))
        self.assertEqual((st["pkts_to_backend"], st["pkts_to_client"]), (2, 1))

    @unittest.skipUnless(shutil.which("socat"), "socat not installed")
    def test_socat_relays_request_response(self):
        srv = server()
        # socat has no port-0 report: take a free port from the kernel first
        import socket
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        soc = subprocess.Popen(["socat", "-T", "10", f"UDP4-LISTEN:{port},bind=127.0.0.1,fork,"
                                "reuseaddr", f"UDP4:127.0.0.1:{srv.port}"],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        try:
            time.sleep(0.3)
            r = client(port, "-n", 200, "-w", 5, "-s", 64, "-t", 500)
        finally:
            # the forked child first (by pid), so that socat reaps it, then socat
            for p in [p for p in relaybench.descendants(soc.pid) if p != soc.pid]:
                try:
                    os.kill(p, signal.SIGTERM)
                except ProcessLookupError:
                    pass
            time.sleep(0.1)
            soc.terminate()
            soc.wait(timeout=5)
            srv.stop()
        self.assertEqual((r["received"], r["lost"], r["corrupted"]), (200, 0, 0))
        self.check_quantiles(r)


if __name__ == "__main__":
    unittest.main(verbosity=2)
