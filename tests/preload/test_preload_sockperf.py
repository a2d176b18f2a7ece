#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Debian's sockperf, server and client both under libdpsock-preload, against a dpfwd of
its own: `sockperf sr` with `sockperf pp` (ping-pong), `sockperf ul` (under load: a
paced stream, every 100th message answered) and `sockperf tp` (throughput), UDP over
127.0.0.1, with -F epoll, -F poll and -F select (a feed file, as sockperf wants for -F).
Every run completes; ping-pong and under-load report no dropped, duplicated or
out-of-order message, and under-load got the replies it asked for (but the last, which may
be on its way when the client stops; at 10000 messages a second the server sleeps
between messages, so this is the wake-up path). Under-load's client receives on a thread
of its own, blocked on its socket before its first send binds it. The server handled
every message that the throughput client sent
(dpsock holds a sender back rather than dropping): as many as the preload's counters say
the client's socket sent (DPSOCK_PRELOAD_STATS). sockperf's own count may be one more:
the signal that ends its run interrupts a send held back for a buffer with EINTR, as it
would on Linux, and sockperf counts that send too. The traffic went through dpsock: the
server's port is in dpfwd's endpoint list while it runs, and each run made a new local
channel (resolves_local rises).

sockperf 3.7 (Debian 12) parses no IPv6 address (-i ::1 and the feed file refuse it):
IPv6 under the preload is covered by test_preload.py (preload_sem, socat, asyncio).

Environment: tests/preload/meson.build.
"""
import json
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pl_rig  # noqa: E402

PORT = 11511
# sockperf 3.7's ping-pong gives up ("_seqN > m_maxSequenceNo", exit 6) once it goes
# faster than about a million messages a second, as it can under the preload; under-load
# is paced slower than the server's spin, so it sleeps and is woken between messages
MPS = {"pp": ["--mps", "500000"], "ul": ["--mps", "10000"]}


class PreloadSockperfTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmpdir = tempfile.TemporaryDirectory(prefix="dppls.")
        cls.tmp = Path(cls.tmpdir.name)
        cls.fwd = pl_rig.start_dpfwd(cls.tmp)
        cls.env = pl_rig.env(cls.tmp / "dpsock.sock")
        cls.feed = cls.tmp / "feed"
        cls.feed.write_text(f"U:127.0.0.1:{PORT}\n")

    @classmethod
    def tearDownClass(cls):
        cls.fwd.cleanup()
        cls.tmpdir.cleanup()

    def sockperf(self, mode, iomux, cli_env=None):
        """sockperf sr and a 1 s client of @mode: (client output, server output)."""
        before = pl_rig.endpoint_stats(self.fwd, 0)["resolves_local"]
        srv = subprocess.Popen(["sockperf", "sr", "-f", str(self.feed), "-F", iomux],
                               env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
        try:
            pl_rig.dprig.wait_until(lambda: PORT in pl_rig.endpoint_ports(self.fwd), 10,
                                    "sockperf server's endpoint in dpfwd's list")
            cli = subprocess.run(["sockperf", mode, "-f", str(self.feed), "-F", iomux,
                                  "-t", "1"] + MPS.get(mode, []),
                                 env=cli_env or self.env, capture_output=True, text=True,
                                 timeout=20)
            # sockperf's server counts what it handled before SIGINT: the client's last
            # messages may still be in the channel on a loaded machine, so it gets time to
            # read them (a test of loss, not of how soon)
            time.sleep(1)
            srv.send_signal(signal.SIGINT)
            srv_out, _ = srv.communicate(timeout=10)
        finally:
            if srv.poll() is None:
                srv.kill()
                srv.communicate()
        self.assertEqual(cli.returncode, 0, cli.stdout + cli.stderr)
        self.assertEqual(srv.returncode, 0, srv_out)
        self.assertGreater(pl_rig.endpoint_stats(self.fwd)["resolves_local"], before,
                           "no local channel: the traffic did not go through dpsock")
        return cli.stdout + cli.stderr, srv_out

    def ping_pong(self, iomux):
        out, _ = self.sockperf("pp", iomux)
        m = re.search(r"SentMessages=(\d+); ReceivedMessages=(\d+)", out)
        self.assertIsNotNone(m, out)
        self.assertGreater(int(m.group(2)), 100, out)
        m = re.search(r"# dropped messages = (\d+); # duplicated messages = (\d+); "
                      r"# out-of-order messages = (\d+)", out)
        self.assertIsNotNone(m, out)
        self.assertEqual(m.groups(), ("0", "0", "0"), out)

    def under_load(self, iomux):
        out, _ = self.sockperf("ul", iomux)
        m = re.search(r"SentMessages=(\d+); ReceivedMessages=(\d+)", out)
        self.assertIsNotNone(m, out)
        sent, replies = int(m.group(1)), int(m.group(2))
        self.assertGreater(sent, 1000, out)
        # sockperf asks a reply of every 100th message (--reply-every's default); the
        # last one asked may still be on its way when the client stops
        self.assertIn(sent // 100 - replies, (0, 1), out)
        m = re.search(r"# dropped messages = (\d+); # duplicated messages = (\d+); "
                      r"# out-of-order messages = (\d+)", out)
        self.assertIsNotNone(m, out)
        self.assertEqual(m.groups(), ("0", "0", "0"), out)

    def throughput(self, iomux):
        stats = self.tmp / f"tp-{iomux}.stats"
        stats.unlink(missing_ok=True)
        out, srv_out = self.sockperf(
            "tp", iomux, pl_rig.env(self.tmp / "dpsock.sock", DPSOCK_PRELOAD_STATS=str(stats)))
        sent = re.search(r"Total of (\d+) messages sent", out)
        got = re.search(r"Total (\d+) messages received and handled", srv_out)
        self.assertIsNotNone(sent, out)
        self.assertIsNotNone(got, srv_out)
        self.assertGreater(int(sent.group(1)), 1000, out)
        # the client's one socket: what its sends gave to dpsock
        lines = [json.loads(x) for x in stats.read_text().splitlines()]
        tx = sum(x["tx_msgs"] for x in lines)
        self.assertEqual(int(got.group(1)), tx, "messages lost: " + srv_out)
        self.assertIn(int(sent.group(1)) - tx, (0, 1), out)

    def test_preload_sockperf_pp_epoll(self):
        self.ping_pong("epoll")

    def test_preload_sockperf_pp_poll(self):
        self.ping_pong("poll")

    def test_preload_sockperf_pp_select(self):
        self.ping_pong("select")

    def test_preload_sockperf_ul_epoll(self):
        self.under_load("epoll")

    def test_preload_sockperf_ul_poll(self):
        self.under_load("poll")

    def test_preload_sockperf_ul_select(self):
        self.under_load("select")

    def test_preload_sockperf_tp_epoll(self):
        self.throughput("epoll")

    def test_preload_sockperf_tp_poll(self):
        self.throughput("poll")

    def test_preload_sockperf_tp_select(self):
        self.throughput("select")


if __name__ == "__main__":
    unittest.main(verbosity=2)
