#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
libdpsock-preload and fork on the NIC path: a pre-forking server (Python, preloaded) on
dpfwd's address whose 50 children serve in turn on the parent's socket, and a kernel
client on a Linux host in a namespace (test_preload_netns.py's topology; dpfwd with
16 buffers of each small class per endpoint pipe, fewer than the children):

- one child in five killed with SIGKILL in a receive: every datagram answered exactly
  once (or counted dropped by dpfwd), the children's ends as expected, and the
  endpoint's buffers in use (dpfwd's endpoint list: tx_bufs_in_use, rx_bufs_in_use,
  the datapath's inflight) back to their start values after the last child;
- every child killed in a receive, the last one too (nobody uses the socket after it):
  the same, dpfwd giving back what each kept (its endpoint stats count the processes
  that died holding the socket's turn).

Namespaces, dpfwd and the programs are removed (processes by pid) on every exit
(netns.py).

Environment: tests/preload/meson.build.
"""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "netns"))
sys.path.insert(0, str(HERE))
import netns  # noqa: E402
import pl_rig  # noqa: E402
from test_preload_netns import PreloadRig  # noqa: E402

PREFORK_PORT = 11712
PREFORK_CHILDREN = 50

# A pre-forking server whose children restart: the socket bound in the parent, which
# never uses it; one child at a time echoes three datagrams, says each on its pipe, and
# exits, or, child I when I % EVERY == FIRST, goes back to a receive and is killed there
# with SIGKILL. The parent says "child I" when a child may be sent to, each datagram its
# child got, and how the child ended.
PREFORK_SERVER = """\
import os, signal, socket, sys, time
addr, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
every, first = int(sys.argv[4]), int(sys.argv[5])
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
        if i % every == first:
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


class PreloadPreforkTest(PreloadRig):
    # fewer buffers of each small class than children: one lost a child runs them out
    endpoint_extra = "tx_bufs = 16\nrx_bufs = 16\n"

    def endpoint_of(self, port):
        """dpfwd's listing of the endpoint bound to @port (a fresh snapshot)."""
        for e in self.dp.snapshot().get("endpoint_list", []):
            if e.get("port") == port:
                return e
        self.fail(f"no endpoint on port {port} in dpfwd's list")

    @staticmethod
    def in_use(e):
        return (e["tx_bufs_in_use"], e["rx_bufs_in_use"], e["datapath"]["inflight"])

    def prefork(self, every, first):
        """PREFORK_SERVER with children I % @every == @first killed in a receive, and the
        kernel client: every datagram answered exactly once (or counted dropped by
        dpfwd), each child ended as it should; the endpoint's buffers in use back to
        their start values (waiting up to 5 s for dpfwd to see the last child gone).
        @return dpfwd's endpoint stats before and after."""
        log = os.path.join(self.topo.tmp, "prefork-client.err")
        srv = subprocess.Popen(
            [sys.executable, "-c", PREFORK_SERVER, self.addr, str(PREFORK_PORT),
             str(PREFORK_CHILDREN), str(every), str(first)], env=self.env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
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
        stats0 = self.dp.snapshot()["endpoint"]
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
        deadline = time.monotonic() + 5
        end = self.endpoint_of(PREFORK_PORT)
        while self.in_use(end) != self.in_use(start) and time.monotonic() < deadline:
            time.sleep(0.1)
            end = self.endpoint_of(PREFORK_PORT)
        stats1 = self.dp.snapshot()["endpoint"]
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
        want = [["ended", str(i), str(signal.SIGKILL if i % every == first else 0)]
                for i in range(PREFORK_CHILDREN)]
        self.assertEqual(ended, want)
        self.assertEqual(self.in_use(end), self.in_use(start),
                         "(tx_bufs_in_use, rx_bufs_in_use, inflight)")
        return stats0, stats1

    def test_preload_netns_prefork_children_restart(self):
        # one in five killed in a receive, the last child exits
        self.prefork(5, 2)

    def test_preload_netns_prefork_every_child_killed(self):
        # each child killed in a receive, holding what it kept (a batch of free send
        # buffers taken ahead): dpfwd gives it back, the last child's too, which no
        # process takes the socket up after
        before, after = self.prefork(1, 0)
        self.assertGreaterEqual(after["turns_taken_back"] - before["turns_taken_back"], 1)
        self.assertGreater(after["held_returned"], before["held_returned"])


if __name__ == "__main__":
    netns.run_tests("preload_prefork", __name__,
                    f"dpfwd {netns.DPFWD_BIN}, preload {pl_rig.PRELOAD_LIB}")
