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
server on the Linux host, ping-pong, every message back in order. Both through dpfwd: its endpoint datapath counters (rx_msgs, tx_msgs) rise
by at least what sockperf counted, and the server's port is in the endpoint list.
A pre-forking server (Python, preloaded) whose 50 children serve in turn, one in five
killed with SIGKILL in a receive, and a kernel client on the Linux host: every datagram
answered exactly once (or counted dropped by dpfwd), and the endpoint's buffers in use
(dpfwd's endpoint list) back to their start values after the last child.
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
PREFORK_PORT = 11712
PREFORK_CHILDREN = 50

# A pre-forking server whose children restart: the socket bound in the parent, which
# never uses it; one child at a time echoes three datagrams, says each on its pipe, and
# exits, or, every fifth from the third, goes back to a receive and is killed there
# with SIGKILL (what it kept stays with the socket, for the next child). The
# parent says "child I" when a child may be sent to, each datagram its child got, and
# how the child ended.
PREFORK_SERVER = """\
import os, signal, socket, sys, time
addr, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((addr, port))
print("bound", flush=True)
sys.stdin.readline()  # the test has the buffers' counts before any child
for i in range(n):
    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rd)
        s.settimeout(30)  # a child that gets nothing does not outlive the test
        for k in range(3):
            data, peer = s.recvfrom(2048)
            s.sendto(data, peer)
            os.write(wr, data + b"\\n")
        if i % 5 == 2:
            os.write(wr, b"receiving\\n")
            s.recvfrom(2048)
        os._exit(0)
    os.close(wr)
    print("child", i, flush=True)
    with os.fdopen(rd) as f:
        for line in f:
            line = line.strip()
            if line == "receiving":
                time.sleep(0.05)  # asleep in the receive by now
                os.kill(pid, signal.SIGKILL)
                break
            print("got", line, flush=True)
    print("ended", i, os.waitpid(pid, 0)[1], flush=True)
print("all", flush=True)
sys.stdin.readline()  # the test has the counts after the last child
"""

# The kernel client on the Linux host: for each line "send I", three datagrams one at a
# time, each answered before the next; "echo ..." or "timeout ..." for each.
PREFORK_CLIENT = """\
import socket, sys
addr, port = sys.argv[1], int(sys.argv[2])
c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
c.settimeout(5)
for line in sys.stdin:
    i = int(line.split()[1])
    for k in range(3):
        msg = b"c%d-%d" % (i, k)
        c.sendto(msg, (addr, port))
        try:
            print("echo", c.recv(2048).decode(), flush=True)
        except socket.timeout:
            print("timeout", msg.decode(), flush=True)
"""


def start_dpfwd(topo):
    """dpfwd on @p topo's ports (net_af_packet) with an [endpoint] socket in its folder,
    once the socket is there: (the Dpfwd, the socket's path)."""
    sock = os.path.join(topo.tmp, "dpsock.sock")
    extra = f"\n[endpoint]\nsocket = {sock}\nmode = 0600\n"
    dp = netns.Dpfwd(topo, "net_af_packet", extra=extra).start().wait_ready()
    deadline = time.monotonic() + 10
    while not os.path.exists(sock):
        if time.monotonic() > deadline:
            raise RuntimeError(f"dpfwd made no {sock}:\n{dp.output()}")
        time.sleep(0.05)
    return dp, sock


class PreloadNetnsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.topo = netns.Topology(static_neighbors=False, nb_hosts=1)
        try:
            cls.topo.up()
            cls.dp, cls.sock = start_dpfwd(cls.topo)
        except BaseException:
            cls.topo.down()
            raise
        cls.addr = cls.topo.ports[0].ip4
        cls.env = dict(pl_rig.preload_env(os.environ), DPSOCK_PATH=cls.sock)

    @classmethod
    def tearDownClass(cls):
        cls.topo.down()

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

    def endpoint_of(self, port):
        """dpfwd's listing of the endpoint bound to @port (a fresh snapshot)."""
        for e in self.dp.snapshot().get("endpoint_list", []):
            if e.get("port") == port:
                return e
        self.fail(f"no endpoint on port {port} in dpfwd's list")

    def test_preload_netns_prefork_children_restart(self):
        # 50 children in turn on the parent's socket, one in five killed in a receive:
        # every datagram from the kernel client answered exactly once (or counted dropped
        # by dpfwd), and the endpoint's buffers in use, in dpfwd's telemetry, back to
        # what they were before the first child
        log = os.path.join(self.topo.tmp, "prefork-client.err")
        srv = subprocess.Popen(
            [sys.executable, "-c", PREFORK_SERVER, self.addr, str(PREFORK_PORT),
             str(PREFORK_CHILDREN)], env=self.env, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        srv.cleanup = netns.defer(f"stop pid {srv.pid} (prefork server)",
                                  lambda: netns.stop_process(srv, signal.SIGKILL))
        with open(log, "w") as err:
            cli = self.topo.a.spawn(sys.executable, "-c", PREFORK_CLIENT, self.addr,
                                    PREFORK_PORT, stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=err)
        self.addCleanup(netns.undo, cli.cleanup)
        self.addCleanup(netns.undo, srv.cleanup)
        cli_out = []
        srv_out = []

        def srv_line():
            line = srv.stdout.readline()
            if not line:
                self.fail("the server ended early: " + "".join(srv_out) + srv.stderr.read())
            srv_out.append(line)
            return line.split()

        self.assertEqual(srv_line(), ["bound"])
        start = self.endpoint_of(PREFORK_PORT)
        srv.stdin.write("go\n")
        srv.stdin.flush()
        for i in range(PREFORK_CHILDREN):
            self.assertEqual(srv_line(), ["child", str(i)])
            cli.stdin.write(f"send {i}\n".encode())
            cli.stdin.flush()
            for _ in range(3):
                cli_out.append(cli.stdout.readline().decode())
            while srv_line()[0] != "ended":
                pass
        self.assertEqual(srv_line(), ["all"])
        end = self.endpoint_of(PREFORK_PORT)
        srv.stdin.write("done\n")
        srv.stdin.flush()
        self.assertEqual(srv.wait(timeout=10), 0, srv.stderr.read())
        sent = [f"c{i}-{k}" for i in range(PREFORK_CHILDREN) for k in range(3)]
        echoed = [x.split()[1] for x in cli_out if x.startswith("echo ")]
        got = [x.split()[1] for x in srv_out if x.startswith("got ")]
        dropped = end["datapath"]["rx_dropped"] - start["datapath"]["rx_dropped"]
        self.assertEqual(len(got), len(set(got)), "a datagram received twice")
        self.assertLessEqual(set(got), set(sent))
        self.assertEqual(len(got) + dropped, len(sent), "".join(cli_out))
        self.assertEqual(echoed, got, "".join(cli_out))
        ended = [x.split() for x in srv_out if x.startswith("ended ")]
        want = [["ended", str(i), str(signal.SIGKILL if i % 5 == 2 else 0)]
                for i in range(PREFORK_CHILDREN)]
        self.assertEqual(ended, want)
        for k in ("rx_bufs_in_use", "tx_bufs_in_use"):
            self.assertEqual(end[k], start[k], k)


if __name__ == "__main__":
    netns.run_tests("preload_netns", __name__,
                    f"dpfwd {netns.DPFWD_BIN}, preload {PRELOAD_LIB}")
