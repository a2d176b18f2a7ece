#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
libdpsock-preload (lib/preload) with unmodified programs, against a dpfwd of its own:

- preload_sem (tests/preload/preload_sem.c) prints the same on kernel sockets and
  preloaded ones, over IPv4 and IPv6, and its sockets were dpfwd's endpoints;
- socat's UDP echo (UDP-LISTEN ... PIPE, a socat client), IPv4 and IPv6;
- a Python asyncio datagram echo, client and server in one program;
- a program asleep in epoll, poll or select on a preloaded socket and a kernel one uses
  no CPU for a second, and wakes for a datagram from another program;
- SO_SNDTIMEO: a blocking send held back by a peer that does not read fails with EAGAIN
  after it; a signal handler interrupts such a send with EINTR, or lets it go on when
  installed with SA_RESTART and no SO_SNDTIMEO is set (preload_sndintr);
- fork: a socket bound in the parent serves in the child, the parent's copy closed;
  two children use the parent's socket in turn, then the parent (the kernel's sockets
  the reference); a socket with 320 channels made while it does not read (more than a
  control socket of the kernel's default size holds CHANNEL messages), served by the
  process itself, or by two children in turn, the second hearing of them from dpfwd
  again, each peer answered;
  exec closes preloaded sockets, even made inheritable;
- DPSOCK_PRELOAD_PORTS: a socket bound to a listed port is an endpoint, another not;
- dpfwd killed under a program blocked in recvfrom: the call fails with ENETDOWN;
- no dpfwd: DPSOCK_FALLBACK=kernel runs on the kernel's sockets (the same output),
  DPSOCK_FALLBACK=fail makes socket() fail with a message that says what to do.

Environment: tests/preload/meson.build.
"""
import json
import os
import subprocess
import sys
import time
import tempfile
import textwrap
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pl_rig  # noqa: E402

ASYNCIO_ECHO = textwrap.dedent("""\
    import asyncio, socket, sys

    family = socket.AF_INET6 if sys.argv[1] == "6" else socket.AF_INET
    host = "::1" if family == socket.AF_INET6 else "127.0.0.1"

    class Echo(asyncio.DatagramProtocol):
        def connection_made(self, transport):
            self.transport = transport
        def datagram_received(self, data, addr):
            self.transport.sendto(data, addr)

    class Client(asyncio.DatagramProtocol):
        def __init__(self):
            self.got = asyncio.Queue()
        def datagram_received(self, data, addr):
            self.got.put_nowait(data)

    async def main():
        loop = asyncio.get_running_loop()
        srv, _ = await loop.create_datagram_endpoint(Echo, local_addr=(host, 0), family=family)
        port = srv.get_extra_info("sockname")[1]
        cli, proto = await loop.create_datagram_endpoint(Client, remote_addr=(host, port),
                                                         family=family)
        for i in range(200):
            cli.sendto(b"msg %d" % i)
            data = await asyncio.wait_for(proto.got.get(), 5)
            assert data == b"msg %d" % i, data
        cli.close()
        srv.close()
        print("echoed 200")

    asyncio.run(main())
""")

BLOCKED_RECV = textwrap.dedent("""\
    import errno, socket, sys
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    print("ready", flush=True)
    try:
        s.recvfrom(100)
        print("received?")
    except OSError as e:
        print(errno.errorcode[e.errno])
""")

POLICY = textwrap.dedent("""\
    import socket, sys
    a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    a.bind(("127.0.0.1", int(sys.argv[1])))
    b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    b.bind(("127.0.0.1", 0))
    print(b.getsockname()[1], flush=True)
    sys.stdin.readline()
""")

# a blocking send to a peer that never reads: held back (no free buffer), then EAGAIN
# after SO_SNDTIMEO
SNDTIMEO = textwrap.dedent("""\
    import socket, struct, time
    r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    r.bind(("127.0.0.1", 0))
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", 0, 200000))
    sent = 0
    while sent < 1000000:
        t0 = time.monotonic()
        try:
            s.sendto(b"x" * 1000, r.getsockname())
        except BlockingIOError:
            print("EAGAIN", sent > 0, time.monotonic() - t0 >= 0.18, flush=True)
            break
        sent += 1
    else:
        print("never held back")
""")


IDLE_WAIT = textwrap.dedent("""\
    import select, socket, sys
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    r, w = socket.socketpair()
    print(s.getsockname()[1], flush=True)
    how = sys.argv[1]
    if how == "epoll":
        ep = select.epoll()
        ep.register(s.fileno(), select.EPOLLIN)
        ep.register(r.fileno(), select.EPOLLIN)
        ready = [fd for fd, _ in ep.poll(-1)]
    elif how == "poll":
        p = select.poll()
        p.register(s.fileno(), select.POLLIN)
        p.register(r.fileno(), select.POLLIN)
        ready = [fd for fd, _ in p.poll()]
    else:
        ready = [x.fileno() for x in select.select([s, r], [], [])[0]]
    print("woke", ready == [s.fileno()], s.recv(100).decode(), flush=True)
""")

FORK_SERVE = textwrap.dedent("""\
    import os, socket, sys
    fam = socket.AF_INET6 if sys.argv[1] == "6" else socket.AF_INET
    host = "::1" if fam == socket.AF_INET6 else "127.0.0.1"
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.bind((host, 0))
    port = s.getsockname()[1]
    pid = os.fork()
    if pid == 0:
        s.settimeout(10)  # a child that gets nothing does not outlive the test
        for _ in range(3):
            data, addr = s.recvfrom(100)
            s.sendto(data.upper(), addr)
        os._exit(0)
    s.close()
    c = socket.socket(fam, socket.SOCK_DGRAM)
    c.settimeout(5)
    for i in range(3):
        c.sendto(b"fork %d" % i, (host, port))
        print(c.recvfrom(100)[0].decode())
    _, status = os.waitpid(pid, 0)
    print("child", status)
    # a child that does not use the socket leaves it to the parent, whose close frees
    # the port
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.bind((host, 0))
    port = s.getsockname()[1]
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    s.close()
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.bind((host, port))
    print("port free again")
""")

# A socket bound in the parent, used by two children in turn (a pre-forking server whose
# children take turns or restart), then by the parent: the peer speaks first, then each
# child reads that, sends three datagrams and reads the answer. The pair's channel is
# made by the peer's first datagram, which the first child reads; the second child
# takes the channel up where the first left it, both ways.
FORK_TURNS = textwrap.dedent("""\
    import os, socket, sys
    fam = socket.AF_INET6 if sys.argv[1] == "6" else socket.AF_INET
    host = "::1" if fam == socket.AF_INET6 else "127.0.0.1"
    r = socket.socket(fam, socket.SOCK_DGRAM)
    r.bind((host, 0))
    r.settimeout(5)
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.bind((host, 0))
    for turn in range(2):
        r.sendto(b"hello %d" % turn, s.getsockname())
        pid = os.fork()
        if pid == 0:
            s.settimeout(5)  # a child that gets nothing does not outlive the test
            print("child", turn, "got", s.recv(100).decode(), flush=True)
            for i in range(3):
                s.sendto(b"turn %d msg %d" % (turn, i), r.getsockname())
            print("child", turn, "got", s.recv(100).decode(), flush=True)
            os._exit(0)
        for i in range(3):
            data, addr = r.recvfrom(100)
            print(data.decode(), flush=True)
        r.sendto(b"ok %d" % turn, addr)
        print("status", os.waitpid(pid, 0)[1], flush=True)
    # the parent's turn after its children's (any process holding the socket may use it)
    r.sendto(b"hello parent", s.getsockname())
    s.settimeout(5)
    print("parent got", s.recv(100).decode(), flush=True)
    for i in range(3):
        s.sendto(b"parent msg %d" % i, r.getsockname())
    for i in range(3):
        data, addr = r.recvfrom(100)
        print(data.decode(), flush=True)
    r.sendto(b"ok parent", addr)
    print("parent got", s.recv(100).decode(), flush=True)
""")

# A child that took datagrams ahead and exits: an edge-triggered look takes every datagram
# waiting into the library (preload only: Linux's queue stays with the socket). Their
# data goes with the child; their buffers must come back to the sender's channel, which
# fills to its capacity again afterwards (a release batch of slack). Prints the
# capacity before and after, and what the parent still found.
TAKEN_AHEAD = textwrap.dedent("""\
    import os, select, socket, sys
    a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    a.bind(("127.0.0.1", 0))
    a.setblocking(False)
    b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    b.bind(("127.0.0.1", 0))
    b.setblocking(False)

    def fill():
        n = 0
        while n < 1000000:
            try:
                b.sendto(b"x", a.getsockname())
            except BlockingIOError:
                break
            n += 1
        return n

    def drain():
        n = 0
        while True:
            try:
                a.recv(16)
            except BlockingIOError:
                return n
            n += 1

    before = fill()
    drained = drain()
    fill()
    pid = os.fork()
    if pid == 0:
        ep = select.epoll()
        ep.register(a.fileno(), select.EPOLLIN | select.EPOLLET)
        ep.poll(1)
        os._exit(0) if sys.argv[1] == "_exit" else sys.exit(0)
    os.waitpid(pid, 0)
    left = drain()
    after = fill()
    print(before, drained, left, after)
""")

# Datagrams the parent took ahead before a fork (an edge-triggered look under the preload;
# the kernel leaves them queued) are received once in all: the child that tries the socket
# and the parent that reads it after the child exited get each of them once between them.
FORK_AFTER_TAKING = textwrap.dedent("""\
    import os, select, socket
    a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    a.bind(("127.0.0.1", 0))
    a.setblocking(False)
    b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    b.bind(("127.0.0.1", 0))
    for i in range(8):
        b.sendto(b"%d" % i, a.getsockname())
    ep = select.epoll()
    ep.register(a.fileno(), select.EPOLLIN | select.EPOLLET)
    print("ready", len(ep.poll(1)), flush=True)

    def drain():
        got = []
        while True:
            try:
                got.append(a.recv(16).decode())
            except BlockingIOError:
                return got

    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(w, " ".join(["child"] + drain()).encode())
        os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    child = os.read(r, 100).decode().split()[1:]
    parent = drain()
    both = sorted(child + parent, key=int)
    print("each once", both == [str(i) for i in range(8)], flush=True)
""")

# A socket with many channels (one per peer on this host), served in two turns, by two
# children in turn ("fork") or by the process itself: each peer sends one datagram a
# turn before the socket is read (dpfwd tells the socket of each new peer's channel
# meanwhile), the server answers each, and each peer reads its answer. Forked, the first
# child hears of the channels from dpfwd as they were made, the second asks dpfwd to
# announce them all again (in batches).
MANY_CHANNELS = textwrap.dedent("""\
    import os, resource, socket, sys
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    n, forked = int(sys.argv[1]), sys.argv[2] == "fork"
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)  # the kernel's: all n
    s.bind(("127.0.0.1", 0))
    peers = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(n)]
    for p in peers:
        p.bind(("127.0.0.1", 0))
        p.settimeout(5)

    def serve(turn):
        s.settimeout(5)
        got = set()
        try:
            while len(got) < n:
                data, addr = s.recvfrom(100)
                got.add(data)
                s.sendto(b"re " + data, addr)
        except socket.timeout:
            pass
        print("turn", turn, "got", len(got), flush=True)

    def answer(p, want):
        try:
            return p.recv(100) == want
        except socket.timeout:
            return False

    for turn in range(2):
        for i, p in enumerate(peers):
            p.sendto(b"%d %d" % (turn, i), s.getsockname())
        if forked:
            pid = os.fork()
            if pid == 0:
                serve(turn)
                os._exit(0)
            print("status", os.waitpid(pid, 0)[1], flush=True)
        else:
            serve(turn)
        back = sum(answer(p, b"re %d %d" % (turn, i)) for i, p in enumerate(peers))
        print("turn", turn, "answered", back, flush=True)
""")

EXEC_DROPS = textwrap.dedent("""\
    import os, socket, sys
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    os.set_inheritable(s.fileno(), True)
    d = os.dup(s.fileno())
    os.set_inheritable(d, True)
    check = ("import os, sys\\n"
             "for fd in sys.argv[1:]:\\n"
             "    try:\\n"
             "        os.fstat(int(fd)); print('open')\\n"
             "    except OSError as e:\\n"
             "        print(e.strerror)\\n")
    os.execv(sys.executable, [sys.executable, "-c", check, str(s.fileno()), str(d)])
""")

# Peers of the socket of MANY_CHANNELS (dpfwd's [endpoint] max, pl_rig.CONFIG, has room).
MANY_PEERS = 320

SEND_TO = ("import socket, sys\n"
           "socket.socket().close()\n"
           "socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'wake', "
           "('127.0.0.1', int(sys.argv[1])))\n")


def cpu_s(pid):
    """User + system CPU time of @pid so far, in seconds (/proc/PID/stat)."""
    f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def run(argv, env, timeout=30, stdin=None):
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout,
                          input=stdin)


class PreloadTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmpdir = tempfile.TemporaryDirectory(prefix="dppl.")
        cls.tmp = Path(cls.tmpdir.name)
        cls.sock = cls.tmp / "dpsock.sock"
        cls.fwd = pl_rig.start_dpfwd(cls.tmp)

    @classmethod
    def tearDownClass(cls):
        cls.fwd.cleanup()
        cls.tmpdir.cleanup()

    def semantics(self, fam):
        kernel = run([pl_rig.PRELOAD_SEM, fam], pl_rig.kernel_env())
        self.assertEqual(kernel.returncode, 0, kernel.stderr)
        before = pl_rig.endpoint_stats(self.fwd, 0)["binds"]
        pre = run([pl_rig.PRELOAD_SEM, fam], pl_rig.env(self.sock))
        self.assertEqual(pre.returncode, 0, pre.stderr)
        self.assertTrue(kernel.stdout.endswith("end\n"), kernel.stdout)
        self.assertEqual(pre.stdout.splitlines(), kernel.stdout.splitlines())
        binds = pl_rig.endpoint_stats(self.fwd)["binds"] - before
        self.assertGreaterEqual(binds, 15, "preload_sem's sockets were not dpfwd's endpoints")

    def test_preload_semantics_same_as_kernel_ip4(self):
        self.semantics("4")

    def test_preload_semantics_same_as_kernel_ip6(self):
        self.semantics("6")

    def test_signal_while_spinning_same_as_kernel(self):
        """A handler that runs while recv, poll, select or epoll_wait still spins (a spin of
        1 s, the signals 100 ms in) ends the wait as it ends the kernel's sleep: EINTR, or
        with SA_RESTART the recv goes on to its datagram."""
        kernel = run([pl_rig.PRELOAD_SEM, "4", "eintr"], pl_rig.kernel_env())
        self.assertEqual(kernel.returncode, 0, kernel.stderr)
        self.assertIn("epoll_restart_handler: EINTR", kernel.stdout)
        pre = run([pl_rig.PRELOAD_SEM, "4", "eintr"],
                  pl_rig.env(self.sock, DPSOCK_SPIN_US="1000000"))
        self.assertEqual(pre.returncode, 0, pre.stderr)
        self.assertEqual(pre.stdout.splitlines(), kernel.stdout.splitlines())

    def woken(self, mode):
        """preload_wake @p mode: the eventfd writes its sender made (DPSOCK_PRELOAD_STATS)."""
        kernel = run([pl_rig.PRELOAD_WAKE, mode], pl_rig.kernel_env())
        self.assertEqual((kernel.returncode, kernel.stdout), (0, "received: 1000\n"),
                         kernel.stderr)
        stats = self.tmp / f"wake-{mode}.jsonl"
        pre = run([pl_rig.PRELOAD_WAKE, mode],
                  pl_rig.env(self.sock, DPSOCK_PRELOAD_STATS=str(stats)))
        self.assertEqual((pre.returncode, pre.stdout), (0, "received: 1000\n"), pre.stderr)
        lines = {ln["fd"]: ln for ln in map(json.loads, stats.read_text().splitlines())}
        # a is the first socket, b the second; a sent, b received, every datagram
        a, b = (lines[fd] for fd in sorted(lines)[:2])
        self.assertEqual((a["tx_msgs"], b["rx_msgs"]), (1001, 1001), lines)
        return a["wakeups"]

    # A socket that slept and timed out is disarmed once awake: the datagrams that come
    # while it is looked at without sleeping cost their sender no system call each.
    def test_preload_awake_socket_costs_no_wakeup_epoll(self):
        self.assertEqual(self.woken("epoll"), 0)

    def test_preload_awake_socket_costs_no_wakeup_poll(self):
        self.assertEqual(self.woken("poll"), 0)

    def test_preload_awake_socket_costs_no_wakeup_select(self):
        self.assertEqual(self.woken("select"), 0)

    def socat_echo(self, listen, connect, port):
        env = pl_rig.env(self.sock)
        before = pl_rig.endpoint_stats(self.fwd, 0)["resolves_local"]
        srv = subprocess.Popen(["socat", "-T5", f"{listen}:{port}", "PIPE"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            pl_rig.dprig.wait_until(lambda: port in pl_rig.endpoint_ports(self.fwd), 10,
                                    "socat's server endpoint")
            cli = run(["socat", "-t2", "-", f"{connect}:{port}"], env, stdin="hello dpsock\n")
            self.assertEqual(cli.returncode, 0, cli.stderr)
            self.assertEqual(cli.stdout, "hello dpsock\n")
        finally:
            srv.kill()
            srv.communicate()
        self.assertGreater(pl_rig.endpoint_stats(self.fwd)["resolves_local"], before)

    def test_preload_socat_udp_echo_ip4(self):
        self.socat_echo("UDP4-LISTEN", "UDP4:127.0.0.1", 15000)

    def test_preload_socat_udp_echo_ip6(self):
        self.socat_echo("UDP6-LISTEN", "UDP6:[::1]", 15001)

    def test_preload_python_asyncio_echo(self):
        for fam in ("4", "6"):
            before = pl_rig.endpoint_stats(self.fwd, 0)["binds"]
            r = run([sys.executable, "-c", ASYNCIO_ECHO, fam], pl_rig.env(self.sock))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout, "echoed 200\n")
            self.assertGreaterEqual(pl_rig.endpoint_stats(self.fwd)["binds"] - before, 2)

    def test_preload_idle_wait_sleeps_and_wakes(self):
        for how in ("epoll", "poll", "select"):
            p = subprocess.Popen([sys.executable, "-c", IDLE_WAIT, how],
                                 env=pl_rig.env(self.sock), text=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            try:
                port = p.stdout.readline().strip()
                time.sleep(0.3)
                c0 = cpu_s(p.pid)
                time.sleep(1)
                idle = cpu_s(p.pid) - c0
                r = run([sys.executable, "-c", SEND_TO, port], pl_rig.env(self.sock))
                self.assertEqual(r.returncode, 0, r.stderr)
                out, err = p.communicate(timeout=10)
            finally:
                if p.poll() is None:
                    p.kill()
                    p.communicate()
            self.assertEqual(out, "woke True wake\n", how + ": " + err)
            self.assertLess(idle, 0.05, f"{how}: {idle:.2f} s of CPU in 1 s asleep")

    def test_preload_fork_bind_in_parent_serve_in_child(self):
        for fam in ("4", "6"):
            r = run([sys.executable, "-c", FORK_SERVE, fam], pl_rig.env(self.sock))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout, "FORK 0\nFORK 1\nFORK 2\nchild 0\nport free again\n",
                             fam)

    def test_preload_fork_children_take_turns(self):
        want = ("child 0 got hello 0\n"
                "turn 0 msg 0\nturn 0 msg 1\nturn 0 msg 2\nchild 0 got ok 0\nstatus 0\n"
                "child 1 got hello 1\n"
                "turn 1 msg 0\nturn 1 msg 1\nturn 1 msg 2\nchild 1 got ok 1\nstatus 0\n"
                "parent got hello parent\n"
                "parent msg 0\nparent msg 1\nparent msg 2\nparent got ok parent\n")
        for fam in ("4", "6"):
            # the kernel's sockets say the same: the expected text is the reference's
            ref = run([sys.executable, "-c", FORK_TURNS, fam], dict(os.environ))
            self.assertEqual((ref.returncode, ref.stdout), (0, want), ref.stderr)
            r = run([sys.executable, "-c", FORK_TURNS, fam], pl_rig.env(self.sock))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout, want, fam)

    def many_channels(self, how):
        # more new channels than a control socket of the kernel's default size holds
        # CHANNEL messages, told to a socket that does not read them yet
        n = MANY_PEERS
        status = "status 0\n" if how == "fork" else ""
        want = "".join(f"turn {t} got {n}\n{status}turn {t} answered {n}\n" for t in (0, 1))
        ref = run([sys.executable, "-c", MANY_CHANNELS, str(n), how], dict(os.environ),
                  timeout=90)
        self.assertEqual((ref.returncode, ref.stdout), (0, want), ref.stderr)
        before = pl_rig.endpoint_stats(self.fwd, 0)
        r = run([sys.executable, "-c", MANY_CHANNELS, str(n), how], pl_rig.env(self.sock),
                timeout=90)
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        self.assertEqual(r.stdout, want, r.stderr[-2000:])
        after = pl_rig.endpoint_stats(self.fwd)
        # every peer's first datagram made a channel (none went through a worker)
        self.assertGreaterEqual(after["resolves_local"] - before["resolves_local"], n)
        self.assertEqual(after["malformed"], before["malformed"])

    def test_preload_fork_turns_on_a_socket_with_many_channels(self):
        self.many_channels("fork")

    def test_preload_socket_with_many_channels(self):
        self.many_channels("nofork")

    def test_preload_signal_interrupts_a_held_back_send(self):
        # preloaded only: the kernel never holds a loopback UDP send back (the program's
        # comment); its lines are what signal(7) says Linux does with a blocked send
        r = run([pl_rig.PRELOAD_SNDINTR], pl_rig.env(self.sock))
        self.assertEqual((r.returncode, r.stdout),
                         (0, "norestart: EINTR after >= 0.15 s, handler ran 1\n"
                             "restart: sent after >= 0.45 s, handler ran 1\n"
                             "restart+sndtimeo: EINTR after >= 0.15 s, handler ran 1\n"),
                         r.stderr)

    def test_preload_child_exiting_gives_back_datagrams_it_took_ahead(self):
        for how in ("_exit", "exit"):
            r = run([sys.executable, "-c", TAKEN_AHEAD, how], pl_rig.env(self.sock))
            self.assertEqual(r.returncode, 0, r.stderr)
            before, drained, left, after = map(int, r.stdout.split())
            self.assertGreater(before, 100, f"{how}: {r.stdout}")
            self.assertLess(before, 1000000, f"{how}: the sends never held back")
            self.assertEqual(drained, before, how)
            self.assertEqual(left, 0, f"{how}: the child took them all ahead")
            self.assertGreaterEqual(after, before - 64, f"{how}: {r.stdout}")

    def test_preload_datagrams_taken_before_a_fork_received_once(self):
        want = "ready 1\neach once True\n"
        ref = run([sys.executable, "-c", FORK_AFTER_TAKING], dict(os.environ))
        self.assertEqual((ref.returncode, ref.stdout), (0, want), ref.stderr)
        r = run([sys.executable, "-c", FORK_AFTER_TAKING], pl_rig.env(self.sock))
        self.assertEqual((r.returncode, r.stdout), (0, want), r.stderr)

    def test_dpsock_loop_kernel_preload_and_libdpsock(self):
        """dpsock-loop (the calls' own CPU, docs/benchmarking.md): its round trips on kernel
        sockets, preloaded ones (also in a process of several threads, --threaded: each call
        holds its socket) and libdpsock's endpoints, every datagram checked by the program (a
        wrong one exits 1); the preloaded and libdpsock runs are dpfwd's endpoints, the
        libdpsock ones on a same-host channel each."""
        argv = [pl_rig.DPSOCK_LOOP, "--loops", "2000", "--batches", "3", "--warmup", "100",
                "--json"]
        runs = {
            "kernel": (argv, pl_rig.kernel_env()),
            "preload": (argv, pl_rig.env(self.sock)),
            "preload-threaded": (argv + ["--threaded"], pl_rig.env(self.sock)),
            "dpsock": (argv + ["--api", "dpsock", "--wait", "readable", "--dpsock",
                               str(self.sock)], pl_rig.kernel_env()),
            "dpsock-evq": (argv + ["--api", "dpsock", "--dpsock", str(self.sock)],
                           pl_rig.kernel_env()),
        }
        for name, (cmd, env) in runs.items():
            with self.subTest(run=name):
                before = pl_rig.endpoint_stats(self.fwd, 0)["binds"]
                r = run(cmd, env)
                self.assertEqual(r.returncode, 0, r.stderr)
                d = json.loads(r.stdout)
                self.assertEqual(d["preload"], name.startswith("preload"))
                self.assertEqual(d["threaded"], name == "preload-threaded")
                self.assertEqual(d["api"], {"kernel": "socket", "preload": "socket",
                                            "preload-threaded": "socket",
                                            "dpsock": "dpsock-readable",
                                            "dpsock-evq": "dpsock-evq"}[name])
                self.assertEqual((d["loops"], d["batches"], d["size"]), (2000, 3, 16))
                for k in ("ns_per_loop", "ns_per_empty_wait", "cycles_per_loop"):
                    self.assertGreater(d[k]["best"], 0, k)
                    self.assertLessEqual(d[k]["best"], d[k]["median"], k)
                binds = pl_rig.endpoint_stats(self.fwd)["binds"] - before
                self.assertEqual(binds, 0 if name == "kernel" else 2, name)
                if name.startswith("dpsock"):
                    self.assertEqual(d["channels"], [1, 1])

    def test_preload_exec_drops_sockets(self):
        r = run([sys.executable, "-c", EXEC_DROPS], pl_rig.env(self.sock))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "Bad file descriptor\nBad file descriptor\n")

    def test_preload_sndtimeo_bounds_a_held_back_send(self):
        r = run([sys.executable, "-c", SNDTIMEO], pl_rig.env(self.sock))
        self.assertEqual((r.returncode, r.stdout), (0, "EAGAIN True True\n"), r.stderr)

    def test_preload_ports_policy(self):
        env = pl_rig.env(self.sock, DPSOCK_PRELOAD_PORTS="15010-15012")
        p = subprocess.Popen([sys.executable, "-c", POLICY, "15011"], env=env, text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        try:
            other = int(p.stdout.readline())
            pl_rig.dprig.wait_until(lambda: 15011 in pl_rig.endpoint_ports(self.fwd), 10,
                                    "the endpoint on the listed port")
            self.assertNotIn(other, pl_rig.endpoint_ports(self.fwd))
        finally:
            p.communicate("\n", timeout=10)
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_preload_dpfwd_gone_recv_fails_enetdown(self):
        with tempfile.TemporaryDirectory(prefix="dppl2.") as d:
            tmp = Path(d)
            fwd = pl_rig.start_dpfwd(tmp, "dpfwd2")
            try:
                p = subprocess.Popen([sys.executable, "-c", BLOCKED_RECV],
                                     env=pl_rig.env(tmp / "dpsock.sock"), text=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                self.assertEqual(p.stdout.readline(), "ready\n")
                fwd.stop()
                out, err = p.communicate(timeout=10)
                self.assertEqual(out, "ENETDOWN\n", err)
            finally:
                fwd.cleanup()

    def test_preload_no_dpfwd_fallback_kernel(self):
        env = pl_rig.env(self.tmp / "nothing.sock", DPSOCK_FALLBACK="kernel")
        kernel = run([pl_rig.PRELOAD_SEM, "4"], pl_rig.kernel_env())
        pre = run([pl_rig.PRELOAD_SEM, "4"], env)
        self.assertEqual(pre.returncode, 0, pre.stderr)
        self.assertEqual(pre.stdout, kernel.stdout)
        self.assertIn("UDP sockets stay with the kernel (DPSOCK_FALLBACK=kernel)", pre.stderr)

    def test_preload_no_dpfwd_fallback_fail(self):
        env = pl_rig.env(self.tmp / "nothing.sock", DPSOCK_FALLBACK="fail")
        code = ("import socket\n"
                "t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)\n"
                "try:\n"
                "    socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
                "except OSError as e:\n"
                "    print('failed', e.errno)\n")
        r = run([sys.executable, "-c", code], env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "failed 2\n")  # ENOENT: no socket at that path
        self.assertIn("no dpfwd to attach to at %s" % (self.tmp / "nothing.sock"), r.stderr)
        self.assertIn("DPSOCK_FALLBACK=kernel", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
