#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
libdpsock-preload on the NIC path: a preloaded sockperf server bound to dpfwd's address,
a kernel sockperf client on a Linux host in a namespace behind a veth (tests/netns's
topology, host A and port 0 only; dpfwd on net_af_packet, ARP learned both ways).

   router netns: dpfwd port0 198.18.10.1/24 --unix socket-- sockperf sr, or pp (LD_PRELOAD)
                      | veth
   netns A: eth0 198.18.10.2/24, sockperf pp and tp, or sr (the kernel's UDP)

Ping-pong: no dropped, duplicated or out-of-order message. Throughput: the server counts
what arrived. The other way round: a preloaded sockperf client on this host and a kernel
server on the Linux host, ping-pong, every message back in order. Both through dpfwd:
its endpoint datapath counters (rx_msgs, tx_msgs) rise by at least what sockperf
counted, and the server's port is in the endpoint list.
Namespaces, dpfwd and sockperf are removed (processes by pid) on every exit (netns.py).

Environment: tests/preload/meson.build.
"""
import os
import re
import signal
import subprocess
import sys
import time
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "netns"))
sys.path.insert(0, str(HERE))
import netns  # noqa: E402
import pl_rig  # noqa: E402

PRELOAD_LIB = pl_rig.PRELOAD_LIB
PORT = 11711


def start_dpfwd(topo, endpoint_extra=""):
    """dpfwd on @p topo's ports (net_af_packet) with an [endpoint] socket in its folder
    (and the keys @p endpoint_extra), once the socket is there: (the Dpfwd, the socket's
    path)."""
    sock = os.path.join(topo.tmp, "dpsock.sock")
    extra = f"\n[endpoint]\nsocket = {sock}\nmode = 0600\n{endpoint_extra}"
    dp = netns.Dpfwd(topo, "net_af_packet", extra=extra).start().wait_ready()
    deadline = time.monotonic() + 10
    while not os.path.exists(sock):
        if time.monotonic() > deadline:
            raise RuntimeError(f"dpfwd made no {sock}:\n{dp.output()}")
        time.sleep(0.05)
    return dp, sock


class PreloadRig(unittest.TestCase):
    """One Linux host behind dpfwd's port 0 and dpfwd with an endpoint (start_dpfwd()) for
    all of a class's tests: addr, dpfwd's address; env, the preload's environment for it.
    after_dpfwd(): what a class starts beside dpfwd (the rig comes down if it fails);
    endpoint_extra: more keys of dpfwd's [endpoint] section."""

    endpoint_extra = ""

    @classmethod
    def after_dpfwd(cls):
        pass

    @classmethod
    def setUpClass(cls):
        cls.topo = netns.Topology(static_neighbors=False, nb_hosts=1)
        try:
            cls.topo.up()
            cls.dp, cls.sock = start_dpfwd(cls.topo, cls.endpoint_extra)
            cls.addr = cls.topo.ports[0].ip4
            cls.env = dict(pl_rig.preload_env(os.environ), DPSOCK_PATH=cls.sock)
            cls.after_dpfwd()
        except BaseException:
            cls.topo.down()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.topo.down()


class PreloadNetnsTest(PreloadRig):

    def datapath(self):
        return self.dp.snapshot()["endpoint"]["datapath"]

    def server(self):
        """The preloaded sockperf server, its endpoint listed by dpfwd."""
        log = os.path.join(self.topo.tmp, f"sr-{self.id().rsplit('.', 1)[1]}.log")
        with open(log, "w") as out:
            srv = subprocess.Popen(["sockperf", "sr", "-i", self.addr, "-p", str(PORT)],
                                   env=self.env, stdout=out, stderr=subprocess.STDOUT)
        srv.cleanup = netns.defer(f"stop pid {srv.pid} (sockperf sr)",
                                  lambda: netns.stop_process(srv, signal.SIGINT))
        deadline = time.monotonic() + 10
        while not any(e.get("port") == PORT
                      for e in self.dp.snapshot().get("endpoint_list", [])):
            if time.monotonic() > deadline or srv.poll() is not None:
                raise RuntimeError("the preloaded sockperf server did not attach:\n"
                                   + netns.read_text(log))
        return srv, log

    def client(self, mode):
        return netns.sh("sockperf", mode, "-i", self.addr, "-p", PORT, "-t", "1",
                        ns=self.topo.a.ns, check=False, timeout=30)

    def stop_server(self, srv, log):
        rc = netns.stop_process(srv, signal.SIGINT, 10)
        netns.undo(srv.cleanup)
        self.assertEqual(rc, 0, netns.read_text(log))
        return netns.read_text(log)

    def test_preload_netns_sockperf_pp_from_linux_host(self):
        before = self.datapath()
        srv, log = self.server()
        r = self.client("pp")
        self.stop_server(srv, log)
        out = r.stdout + r.stderr
        self.assertEqual(r.returncode, 0, out)
        m = re.search(r"SentMessages=(\d+); ReceivedMessages=(\d+)", out)
        self.assertIsNotNone(m, out)
        got = int(m.group(2))
        self.assertGreater(got, 100, out)
        m = re.search(r"# dropped messages = (\d+); # duplicated messages = (\d+); "
                      r"# out-of-order messages = (\d+)", out)
        self.assertEqual(m.groups() if m else None, ("0", "0", "0"), out)
        after = self.datapath()
        self.assertGreaterEqual(after["rx_msgs"] - before["rx_msgs"], got)
        self.assertGreaterEqual(after["tx_msgs"] - before["tx_msgs"], got)

    def test_preload_netns_sockperf_tp_from_linux_host(self):
        before = self.datapath()
        srv, log = self.server()
        r = self.client("tp")
        srv_out = self.stop_server(srv, log)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        m = re.search(r"Total (\d+) messages received and handled", srv_out)
        self.assertIsNotNone(m, srv_out)
        got = int(m.group(1))
        self.assertGreater(got, 1000, srv_out)
        self.assertGreaterEqual(self.datapath()["rx_msgs"] - before["rx_msgs"], got)

    def test_preload_netns_sockperf_pp_to_linux_host(self):
        # the other way: a preloaded client, a kernel server on the Linux host
        before = self.datapath()
        host = self.topo.a
        log = os.path.join(self.topo.tmp, "sr-kernel.log")
        with open(log, "w") as out:
            srv = host.spawn("sockperf", "sr", "-i", host.ip4, "-p", PORT, stdout=out,
                             stderr=subprocess.STDOUT, stop_signal=signal.SIGINT)
        deadline = time.monotonic() + 10
        while f":{PORT} " not in host.run("ss", "-ulnH").stdout:
            if time.monotonic() > deadline or srv.poll() is not None:
                raise RuntimeError("the kernel sockperf server did not start:\n"
                                   + netns.read_text(log))
            time.sleep(0.05)
        r = subprocess.run(["sockperf", "pp", "-i", host.ip4, "-p", str(PORT), "-t", "1"],
                           env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=30)
        netns.stop_process(srv, signal.SIGINT)
        netns.undo(srv.cleanup)
        out = r.stdout
        self.assertEqual(r.returncode, 0, out)
        # the measured part: every message back (the whole run may end with one in flight)
        m = re.search(r"\[Valid Duration\].*SentMessages=(\d+); ReceivedMessages=(\d+)", out)
        self.assertIsNotNone(m, out)
        sent, got = int(m.group(1)), int(m.group(2))
        self.assertGreater(got, 100, out)
        self.assertEqual(got, sent, out)
        m = re.search(r"# dropped messages = (\d+); # duplicated messages = (\d+); "
                      r"# out-of-order messages = (\d+)", out)
        self.assertEqual(m.groups() if m else None, ("0", "0", "0"), out)
        after = self.datapath()
        self.assertGreaterEqual(after["tx_msgs"] - before["tx_msgs"], got)
        self.assertGreaterEqual(after["rx_msgs"] - before["rx_msgs"], got)


if __name__ == "__main__":
    netns.run_tests("preload_netns", __name__,
                    f"dpfwd {netns.DPFWD_BIN}, preload {PRELOAD_LIB}")
