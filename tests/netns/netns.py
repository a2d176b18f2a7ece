# SPDX-License-Identifier: BSD-3-Clause
"""
Harness for tests/netns: two real Linux hosts in network namespaces, routed through dpfwd.

      netns <tag>-a                netns <tag>-r                   netns <tag>-b
  +------------------+   +---------------------------------+   +------------------+
  | eth0             |   | <tag>a      dpfwd      <tag>b   |   |             eth0 |
  | 198.18.10.2/24   |---| port0                  port1    |---|   198.18.20.2/24 |
  | 2001:db8:10::2   |veth 198.18.10.1      198.18.20.1   veth|   2001:db8:20::2 |
  | default via .1   |   | 2001:db8:10::1   2001:db8:20::1 |   |   default via .1 |
  +------------------+   +---------------------------------+   | lo 198.19.30.2/32|
                                                                +------------------+

dpfwd runs on the router ends of the two veth pairs, through net_af_packet (or
net_af_xdp), with a config written to a temporary folder, in a namespace of its own
rather than the root one: (1) DPDK 22.11's af_packet PMD joins each socket to the
PACKET_FANOUT group (pid ^ ifindex) & 0xffff, and fanout groups are per namespace, so two
dpfwd processes on af_packet in one namespace (parallel runs, or another engineer's
dpfwd) can draw the same group and the second fails to probe ("could not set
PACKET_FANOUT ... Invalid argument"); (2) no kernel stack with routes sees the frames
addressed to dpfwd's MACs (the veths' own). dpfwd also has `198.19.30.0/24 via
198.18.20.2 port 1`, a route through a gateway, for B's loopback address. Every name
carries the pid (and a sequence number), so parallel runs do not collide: <tag> =
dpn<pid>_<n>, and interface names stay within IFNAMSIZ.

Neighbors: dpfwd has no ARP yet, so with `static_neighbors=True` (the one switch) every
MAC is fixed, dpfwd gets `[neighbors]` for the hosts and the hosts get permanent
neighbor entries for dpfwd's ports. With `static_neighbors=False` nothing is static on
either side: hosts and dpfwd must learn each other by ARP/ND.

Cleanup: everything made here (namespaces, veths, processes started through the harness,
temporary files, DPDK runtime folders and hugepage files) is registered on creation and
undone in reverse order: by Topology.down() (or the end of a `with Topology() as t:`
block), at exit (atexit) and on SIGTERM/SIGINT/SIGHUP (meson's timeout sends SIGTERM).
Processes are stopped by pid only. Should the test itself be SIGKILLed, its children get
SIGTERM from the kernel (PR_SET_PDEATHSIG) and the next run removes what it left
(sweep_stale()).

Python 3 standard library only. Needs root, iproute2, ethtool and ping; the tests
also use iperf3 and tshark.
"""
import atexit
import ctypes
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

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("DPFWD_SRC", os.path.normpath(os.path.join(HERE, "..", "..")))
BUILD = os.environ.get("DPFWD_BUILD", os.path.join(SRC, "build"))
DPFWD_BIN = os.environ.get("DPFWD_BIN", os.path.join(BUILD, "apps", "dpfwd", "dpfwd"))
DRIVERS_CFG = os.path.join(SRC, "drivers-cfg")
KEEP = os.environ.get("DPFWD_NETNS_KEEP", "0") != "0"  # keep the temporary folder
KEPT = "KEPT"  # marks a folder kept on purpose: sweep_stale() leaves it

# dpn<pid>_<n> + "-a"/"-b"/"-r" (namespaces), "." + random (temporary folder), "_dp<n>"
# (EAL runtime folder)
STALE_RE = re.compile(r"^dpn(\d+)_\d+(-[abr]|\.[a-z0-9_]+|_dp\d+)$")
# Devargs added to each port's vdev. net_af_packet's default ring is 512 frames per
# queue; when the worker does not run for a few ms (this 2-core machine is shared, and
# dpfwd pins its worker to lcore 1), the kernel drops what does not fit, and the PMD does
# not count those drops anywhere dpfwd can see (imissed stays 0). With the default ring
# iperf3 lost TCP segments (none with 4096 frames) and, with another run of this suite
# beside it, UDP datagrams.
DEVARGS = {"net_af_packet": ("framecnt=4096",)}
# the keys dpfwd will take for IPv6; only written when a topology has ip6=True
IP6_PORT_KEY = "ip6"
DPCTL = os.path.join(SRC, "apps", "dpctl", "dpctl.py")
sys.path.insert(0, os.path.dirname(DPCTL))
import dpctl  # noqa: E402  (its telemetry client)
# the section a topology's dpfwd_config() adds for the Linux control plane (docs/linux-cp.md)
LINUX_SECTION = "\n[linux]\nenabled = on\nnames = dp%u\n"


class Unavailable(Exception):
    """This machine cannot run the netns tests (not root, no namespaces, no tool)."""


# ---- cleanup registry ----

_cleanups = []  # (description, function), undone last first


def defer(desc, fn):
    """Register fn to undo something just made; returns a handle for undo()."""
    item = (desc, fn)
    _cleanups.append(item)
    return item


def undo(item):
    """Run one registered cleanup now (if it has not run yet)."""
    if item in _cleanups:
        _cleanups.remove(item)
        _run_one(item)


def _run_one(item):
    desc, fn = item
    try:
        fn()
    except Exception as e:  # a cleanup never stops the others
        print(f"netns: cleanup '{desc}' failed: {e}", file=sys.stderr)


def cleanup_all(keep=0):
    """Undo everything registered, last first (or all but the first `keep`)."""
    while len(_cleanups) > keep:
        _run_one(_cleanups.pop())


def _on_signal(signum, frame):
    cleanup_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


atexit.register(cleanup_all)
for _sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(_sig, _on_signal)


# ---- commands ----

_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1


def _die_with_parent():
    """In the child: SIGTERM when the test process dies, even by SIGKILL (no orphaned
    dpfwd busy-polling a deleted veth). Kept across exec (no set-uid programs here)."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


def sh(*argv, check=True, timeout=30, ns=None, **kw):
    """Run a command (in namespace ns when given); CompletedProcess with text output."""
    argv = [str(a) for a in argv]
    if ns is not None:
        argv = ["ip", "netns", "exec", ns] + argv
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout, stdin=subprocess.DEVNULL,
                       preexec_fn=_die_with_parent, **kw)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {r.returncode}: {r.stderr.strip()}")
    return r


def stop_process(proc, sig=signal.SIGTERM, timeout=5.0):
    """Signal one process we started (by its pid), wait, SIGKILL after the timeout."""
    if proc.poll() is None:
        try:
            proc.send_signal(sig)
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        except ProcessLookupError:
            pass
    return proc.returncode


def spawn(argv, ns=None, stdout=None, stderr=None, stop_signal=signal.SIGTERM, stdin=None):
    """Start a process (in namespace ns); it is stopped by cleanup unless waited for.
    `ip netns exec` execs the command in place, so the pid is the command's own."""
    argv = [str(a) for a in argv]
    if ns is not None:
        argv = ["ip", "netns", "exec", ns] + argv
    proc = subprocess.Popen(argv, stdin=stdin if stdin is not None else subprocess.DEVNULL,
                            preexec_fn=_die_with_parent,
                            stdout=stdout if stdout is not None else subprocess.DEVNULL,
                            stderr=stderr if stderr is not None else subprocess.DEVNULL)
    proc.cleanup = defer(f"stop pid {proc.pid} ({argv[0] if ns is None else argv[4]})",
                         lambda: stop_process(proc, stop_signal))
    return proc


def read_text(path):
    with open(path) as f:
        return f.read()


def missing_tools(*names):
    return [n for n in names if shutil.which(n) is None]


def check_environment():
    """Raise Unavailable (with the reason) when namespaces cannot be made here."""
    if os.geteuid() != 0:
        raise Unavailable("not root: creating network namespaces and veths needs root")
    miss = missing_tools("ip", "ethtool", "ping")
    if miss:
        raise Unavailable(f"missing {', '.join(miss)} (scripts/dev.sh installs them: "
                          f"iproute2, ethtool, iputils-ping)")
    probe = f"dpn{os.getpid()}_probe"
    try:
        r = sh("ip", "netns", "add", probe, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise Unavailable(f"ip netns add: {e}")
    if r.returncode != 0:
        raise Unavailable(f"the kernel refuses network namespaces: ip netns add: "
                          f"{r.stderr.strip()}")
    sh("ip", "netns", "del", probe, check=False)
    r = sh("ip", "link", "add", probe[:15], "type", "veth", "peer", "name", probe[:13] + "p",
           check=False)
    if r.returncode != 0:
        raise Unavailable(f"cannot create veth pairs: {r.stderr.strip()}")
    sh("ip", "link", "del", probe[:15], check=False)


def hugepage_files(prefix_re):
    """Paths of DPDK hugepage files (<file-prefix>map_<n>, in each hugetlbfs mount) whose
    prefix matches prefix_re (a compiled regular expression, matched in full)."""
    paths = []
    for line in read_text("/proc/mounts").splitlines():
        w = line.split()
        if len(w) < 3 or w[2] != "hugetlbfs":
            continue
        try:
            names = os.listdir(w[1])
        except OSError:
            continue
        for name in names:
            m = re.match(r"^(.*)map_\d+$", name)
            if m and prefix_re.fullmatch(m.group(1)):
                paths.append(os.path.join(w[1], name))
    return paths


def remove_files(paths):
    for p in paths:
        try:
            os.unlink(p)
        except FileNotFoundError:
            pass


def sweep_stale():
    """Remove what earlier runs left when they were SIGKILLed (their pid is gone): their
    namespaces (which takes their veths along), temporary folders, DPDK runtime folders,
    hugepage files.
    Their processes died with them (PR_SET_PDEATHSIG)."""
    def dead(name):
        m = STALE_RE.match(name)
        return m is not None and not os.path.exists(f"/proc/{m.group(1)}")

    r = sh("ip", "netns", "list", check=False)
    names = [line.split()[0] for line in r.stdout.splitlines() if line.split()]
    # the router's first: that takes the veth pairs along at once, even when a host's
    # namespace outlives its name for a while (an orphaned TCP socket retrying its FIN)
    for name in sorted(names, key=lambda n: not n.endswith("-r")):
        if dead(name):
            sh("ip", "netns", "del", name, check=False)
    for parent in (tempfile.gettempdir(), "/var/run/dpdk"):
        try:
            names = os.listdir(parent)
        except OSError:
            continue
        for name in names:
            path = os.path.join(parent, name)
            if dead(name) and not os.path.exists(os.path.join(path, KEPT)):
                shutil.rmtree(path, ignore_errors=True)
    # EAL keeps its hugepage files at exit (dynamic memory mode, --file-prefix)
    remove_files(p for p in hugepage_files(re.compile(r"dpn\d+_\d+_dp\d+"))
                 if dead(os.path.basename(p).rsplit("map_", 1)[0]))


# ---- topology ----

class Host:
    """A Linux host: one namespace, one interface eth0, a default route via dpfwd."""

    def __init__(self, name, ns, mac, ip4, gw4, ip6, gw6):
        self.name, self.ns, self.ifname, self.mac = name, ns, "eth0", mac
        self.ip4, self.gw4, self.ip6, self.gw6 = ip4, gw4, ip6, gw6
        self.extra4 = []  # more addresses on lo (reached through a gateway route)

    def run(self, *argv, **kw):
        return sh(*argv, ns=self.ns, **kw)

    def spawn(self, *argv, **kw):
        return spawn(list(argv), ns=self.ns, **kw)

    def neigh(self, addr):
        """`ip neigh show ADDR` in this host: (lladdr or None, state words)."""
        out = self.run("ip", "neigh", "show", addr, "dev", self.ifname).stdout.split()
        mac = out[out.index("lladdr") + 1] if "lladdr" in out else None
        return mac, [w for w in out if w.isupper()]


class RouterPort:
    """One dpfwd port: the router's end of a veth pair."""

    def __init__(self, index, ifname, mac, ip4, plen, ip6):
        self.index, self.ifname, self.mac = index, ifname, mac
        self.ip4, self.plen, self.ip6 = ip4, plen, ip6


class Topology:
    """
    Hosts a and b behind dpfwd ports 0 and 1 (see the module docstring).

    static_neighbors: the single switch between fixed neighbors (dpfwd without ARP/ND)
    and dynamic ones (both sides learn by ARP/ND).
    ip6: also give dpfwd its IPv6 addresses (hosts have theirs unless host_ip6 is off).
    nb_hosts: 1 makes host a and port 0 only.
    host_ip6: off, the hosts' eth0 has IPv6 disabled (they send no RS, MLD or ND at all).
    """
    seq = 0

    def __init__(self, static_neighbors=True, ip6=False, nb_hosts=2, host_ip6=True):
        Topology.seq += 1
        self.tag = f"dpn{os.getpid()}_{Topology.seq}"
        self.static_neighbors = static_neighbors
        self.ip6 = ip6
        self.nb_hosts, self.host_ip6 = nb_hosts, host_ip6
        self.a = Host("a", self.tag + "-a", "02:00:00:0a:00:02", "198.18.10.2", "198.18.10.1",
                      "2001:db8:10::2", "2001:db8:10::1")
        self.b = Host("b", self.tag + "-b", "02:00:00:14:00:02", "198.18.20.2", "198.18.20.1",
                      "2001:db8:20::2", "2001:db8:20::1")
        self.b.extra4 = ["198.19.30.2"]
        self.router_ns = self.tag + "-r"  # where dpfwd runs
        self.ports = [
            RouterPort(0, self.tag + "a", "02:00:00:0a:00:01", "198.18.10.1", 24,
                       "2001:db8:10::1"),
            RouterPort(1, self.tag + "b", "02:00:00:14:00:01", "198.18.20.1", 24,
                       "2001:db8:20::1"),
        ][:nb_hosts]
        self.tmp = None
        self.mark = 0

    def hosts(self):
        return (self.a, self.b)[:self.nb_hosts]

    def up(self):
        """Make it; down() undoes it and whatever was registered after (dpfwd, tools)."""
        sweep_stale()
        self.mark = len(_cleanups)
        self.tmp = tempfile.mkdtemp(prefix=self.tag + ".")
        defer(f"remove {self.tmp}", self._remove_tmp)
        self._build()
        return self

    def _build(self):
        """The namespaces and links (registered for cleanup); a subclass may lay them out
        otherwise."""
        for ns in [h.ns for h in self.hosts()] + [self.router_ns]:
            sh("ip", "netns", "add", ns)
            defer(f"delete netns {ns}", lambda ns=ns: sh("ip", "netns", "del", ns,
                                                         check=False))
        sh("ip", "-n", self.router_ns, "link", "set", "lo", "up")
        for host, port in zip(self.hosts(), self.ports):
            sh("ip", "link", "add", port.ifname, "netns", self.router_ns, "address", port.mac,
               "type", "veth", "peer", "name", host.ifname, "netns", host.ns,
               "address", host.mac)
            self._router_end(port)
            self._host_end(host, port)

    def _remove_tmp(self):
        if KEEP:
            open(os.path.join(self.tmp, KEPT), "w").close()
            print(f"netns: kept {self.tmp}")
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def _router_end(self, port):
        """The end dpfwd owns: the router namespace's kernel stays out of its traffic."""
        i, ns = port.ifname, self.router_ns
        # no IPv6 on it (no RS, MLD or DAD frames from that kernel into the hosts), no
        # ARP answers from it, and never kernel forwarding (frames to dpfwd's MAC are
        # addressed to the veth's own MAC: the kernel sees them as well as dpfwd)
        sh("sysctl", "-qw", f"net.ipv6.conf.{i}.disable_ipv6=1", ns=ns)
        sh("sysctl", "-qw", f"net.ipv4.conf.{i}.forwarding=0", ns=ns)
        sh("ip", "-n", ns, "link", "set", i, "arp", "off", "up")

    def _host_end(self, host, port):
        h = host
        h.run("ip", "link", "set", "lo", "up")
        # Checksum offload off on the hosts' veth ends: with it, the kernel hands veth
        # frames still marked CHECKSUM_PARTIAL (TCP/UDP checksum not filled in, only the
        # pseudo-header sum), af_packet/af_xdp give dpfwd those bytes as they are, and
        # the receiving host then drops them as corrupt. TSO/GSO off too: segments must
        # be real frames of at most the MTU, not 64 KB super-packets. GRO off so that a
        # capture on the host shows frames as they arrived.
        h.run("ethtool", "-K", h.ifname, "tx", "off", "tso", "off", "gso", "off",
              "gro", "off")
        h.run("ip", "addr", "add", f"{h.ip4}/{port.plen}", "dev", h.ifname)
        if self.host_ip6:
            # nodad: usable at once, and DAD probes are not the traffic under test
            h.run("ip", "-6", "addr", "add", f"{h.ip6}/64", "dev", h.ifname, "nodad")
        else:
            h.run("sysctl", "-qw", f"net.ipv6.conf.{h.ifname}.disable_ipv6=1")
        for a in h.extra4:
            h.run("ip", "addr", "add", f"{a}/32", "dev", "lo")
        h.run("ip", "link", "set", h.ifname, "up")
        h.run("ip", "route", "add", "default", "via", h.gw4)
        if self.host_ip6:
            h.run("ip", "-6", "route", "add", "default", "via", h.gw6)
        if self.static_neighbors:
            h.run("ip", "neigh", "replace", h.gw4, "lladdr", port.mac, "dev", h.ifname,
                  "nud", "permanent")
        if self.static_neighbors and self.host_ip6:
            h.run("ip", "-6", "neigh", "replace", h.gw6, "lladdr", port.mac, "dev",
                  h.ifname, "nud", "permanent")

    def down(self):
        cleanup_all(keep=self.mark)

    def __enter__(self):
        return self.up()

    def __exit__(self, *exc):
        self.down()

    def dpfwd_config(self, driver="net_af_packet", extra=""):
        """The dpfwd config for this topology, as text."""
        devargs = "".join("," + a for a in DEVARGS.get(driver, ()))
        lines = [f"# written by tests/netns/netns.py for {self.tag}",
                 "[dpfwd]", "main_lcore = 0", f"drivers_cfg = {DRIVERS_CFG}", ""]
        for p in self.ports:
            lines += [f"[port{p.index}]",
                      f"dev = {driver}{p.index},iface={p.ifname}{devargs}",
                      f"ip4 = {p.ip4}/{p.plen}"]
            if self.ip6:
                lines.append(f"{IP6_PORT_KEY} = {p.ip6}/64")
            lines.append("")
        lines += ["[lcores]", "rx = " + ",".join(f"({p.index},0,1)" for p in self.ports), ""]
        if self.nb_hosts > 1:
            lines += ["[routes]", f"route = 198.19.30.0/24 via {self.b.ip4} port 1", ""]
        if self.static_neighbors:
            lines.append("[neighbors]")
            for h, p in zip(self.hosts(), self.ports):
                lines.append(f"neigh = {h.ip4} lladdr {h.mac} port {p.index}")
                if self.ip6:
                    lines.append(f"neigh = {h.ip6} lladdr {h.mac} port {p.index}")
            lines.append("")
        return "\n".join(lines) + extra


# ---- dpfwd ----

class Dpfwd:
    """One dpfwd process on a topology's ports (in its router namespace), telemetry JSON
    every 100 ms."""
    seq = 0

    def __init__(self, topo, driver="net_af_packet", interval_ms=100, extra=""):
        Dpfwd.seq += 1
        self.topo = topo
        self.driver = driver
        self.interval = interval_ms / 1000.0
        self.dir = os.path.join(topo.tmp, f"dpfwd{Dpfwd.seq}-{driver}")
        os.makedirs(self.dir)
        self.cfg = os.path.join(self.dir, "dpfwd.ini")
        self.json = os.path.join(self.dir, "telemetry.json")
        self.out_path = os.path.join(self.dir, "stdout.log")
        self.err_path = os.path.join(self.dir, "stderr.log")
        self.prefix = f"{topo.tag}_dp{Dpfwd.seq}"
        with open(self.cfg, "w") as f:
            f.write(topo.dpfwd_config(driver, extra))
        self.argv = [DPFWD_BIN, "--file-prefix", self.prefix, "--", "-c", self.cfg,
                     "--telemetry-json", self.json, "--telemetry-interval", str(interval_ms)]
        self.proc = None

    def _defer_eal_files(self):
        # registered before the process: undone after it stopped
        defer(f"remove /var/run/dpdk/{self.prefix}",
              lambda: shutil.rmtree(f"/var/run/dpdk/{self.prefix}", ignore_errors=True))
        defer(f"remove the hugepage files of {self.prefix}",
              lambda: remove_files(hugepage_files(re.compile(re.escape(self.prefix)))))

    def start(self):
        self._defer_eal_files()
        with open(self.out_path, "w") as out, open(self.err_path, "w") as err:
            self.proc = spawn(self.argv, ns=self.topo.router_ns, stdout=out, stderr=err)
        return self

    def check(self, timeout=60):
        """`dpfwd --check` on this config, in the router namespace: the CompletedProcess."""
        self._defer_eal_files()
        return sh(*self.argv, "--check", ns=self.topo.router_ns, check=False, timeout=timeout)

    def output(self):
        return read_text(self.out_path) + read_text(self.err_path)

    def wait_ready(self, timeout=20.0):
        """Until the first JSON snapshot (written after every port started)."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"dpfwd exited {self.proc.returncode}:\n{self.output()}")
            if os.path.exists(self.json):
                return self
            time.sleep(0.05)
        raise RuntimeError(f"dpfwd wrote no telemetry within {timeout} s:\n{self.output()}")

    def read_json(self):
        with open(self.json) as f:
            return json.load(f)

    def snapshot(self):
        """A snapshot taken after this call (so it counts everything sent before it)."""
        t = time.time()
        deadline = time.monotonic() + 10 * self.interval + 5
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return self.read_json()  # the final one
            try:
                if os.stat(self.json).st_mtime > t + self.interval:
                    return self.read_json()
            except FileNotFoundError:
                pass
            time.sleep(self.interval / 4)
        raise RuntimeError("dpfwd's telemetry JSON is not being rewritten")

    def stop(self, timeout=10.0):
        """SIGTERM (clean stop, final JSON); the exit status."""
        rc = stop_process(self.proc, signal.SIGTERM, timeout)
        undo(self.proc.cleanup)
        return rc


def wait_for(what, fn, timeout=5.0, every=0.05, why=None):
    """Poll fn() until true, and return its value; on the deadline fail, with why() (what
    the rig shows) if given."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        v = fn()
        if v:
            return v
        time.sleep(every)
    raise AssertionError(f"{what}: not within {timeout} s" + (f"\n{why()}" if why else ""))


class DaemonTopology(Topology):
    """Two hosts for routing daemons driving dpfwd's Linux control plane: static
    neighbors, no routes of the config to B's extra prefixes, room for 4096 IPv4 routes,
    [linux] on; IPv6 on the ports and hosts with @p ip6."""

    def __init__(self, ip6=False):
        super().__init__(static_neighbors=True, ip6=ip6, nb_hosts=2, host_ip6=ip6)
        self.b.extra4 = []

    def dpfwd_config(self, driver="net_af_packet", extra=""):
        text = super().dpfwd_config(driver, extra).replace("[routes]\n",
                                                           "[routes]\nip4_max = 4096\n", 1)
        return text + LINUX_SECTION


class RigTest(unittest.TestCase):
    """A test class with one topology (topology(), not yet up) and dpfwd on it for all its
    tests: r() runs a command in dpfwd's namespace, dpctl() asks that dpfwd. A class
    prepares its hosts in before_dpfwd() (the topology up, dpfwd not yet started) and
    starts what runs beside dpfwd in after_dpfwd(); a failure in either takes the
    topology down."""
    driver = "net_af_packet"  # the ports' PMD
    dpfwd_extra = ""  # config text after the ports and routes

    @classmethod
    def topology(cls):
        raise NotImplementedError

    @classmethod
    def dpfwd(cls, topo):
        """The rig's dpfwd, not started (a class may change its command line)."""
        return Dpfwd(topo, cls.driver, extra=cls.dpfwd_extra)

    @classmethod
    def before_dpfwd(cls):
        pass

    @classmethod
    def after_dpfwd(cls):
        pass

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(DPFWD_BIN):
            raise unittest.SkipTest(f"{DPFWD_BIN} missing: build first")
        cls.topo = cls.topology().up()
        try:
            cls.before_dpfwd()
            cls.dp = cls.dpfwd(cls.topo).start().wait_ready()
            cls.after_dpfwd()
        except BaseException:
            cls.topo.down()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.topo.down()

    def r(self, *argv, **kw):
        return sh(*argv, ns=self.topo.router_ns, **kw)

    def dpctl(self, *argv):
        return sh(sys.executable, DPCTL, "--file-prefix", self.dp.prefix, *argv).stdout


class RouterRigTest(RigTest):
    """A RigTest whose tests read dpfwd's routes many times (routing daemons driving it):
    through one telemetry socket, opened again when the rig's dpfwd is a new one."""
    _tel = _tel_of = None

    @classmethod
    def routes_in(cls, prefix):
        """dpfwd's routes in @p prefix: (count, lines of the first 200)."""
        if cls._tel_of is not cls.dp:
            if cls._tel is not None:
                cls._tel.close()
            cls._tel = dpctl.Telemetry(f"/var/run/dpdk/{cls.dp.prefix}/{dpctl.SOCK_NAME}")
            cls._tel_of = cls.dp
            defer("close the telemetry socket", cls._tel.close)
        reply = dpctl.normalize(cls._tel.get(f"/dpfwd/route/list,{prefix}"))
        if not reply.get("ok"):
            raise AssertionError(f"route list {prefix}: {reply}")
        return reply.get("routes_in_prefix", 0), reply.get("routes") or []

    @classmethod
    def route(cls, prefix):
        """dpfwd's route to exactly @p prefix as a route line, or None."""
        _, lines = cls.routes_in(prefix)
        return next((ln for ln in lines if ln.split()[0] == prefix), None)

    def forw_datagrams(self):
        """Ip: ForwDatagrams of the kernel of dpfwd's namespace."""
        lines = [ln.split() for ln in self.r("cat", "/proc/net/snmp").stdout.splitlines()
                 if ln.startswith("Ip:")]
        return int(lines[1][lines[0].index("ForwDatagrams")])


def node_pkts(snap, node):
    return snap["nodes"].get(node, {}).get("pkts", 0)


def port_stat(snap, index, field):
    return next(p[field] for p in snap["ports"] if p["index"] == index)


# ---- captures ----

class Capture:
    """tshark writing a pcapng in one host's namespace; read back with checksum checks."""

    def __init__(self, host, path, bpf="ip", wait=True):
        """wait=False: return at once; wait_started() before the traffic (captures
        started together take one tshark start-up, not one each)."""
        self.host, self.path = host, path
        self.err_path = path + ".log"
        with open(self.err_path, "w") as err:
            self.proc = host.spawn("tshark", "-n", "-i", host.ifname, "-f", bpf, "-w", path,
                                   "-q", stderr=err, stop_signal=signal.SIGINT)
        if wait:
            self.wait_started()

    def wait_started(self):
        # "Capturing on" comes before dumpcap has its socket: wait for dumpcap's own
        # "Capture started" (frames before it are not in the file)
        t0 = time.monotonic()
        while "Capture started" not in read_text(self.err_path):
            if self.proc.poll() is not None or time.monotonic() - t0 > 15:
                raise RuntimeError(f"tshark did not start:\n{read_text(self.err_path)}")
            time.sleep(0.05)

    def stop(self):
        """SIGINT: tshark stops dumpcap, which closes the file."""
        time.sleep(0.3)  # the last frames through
        stop_process(self.proc, signal.SIGINT, 10)
        undo(self.proc.cleanup)

    FIELDS = ("frame.time_epoch", "ip.src", "ip.dst", "ip.proto", "ip.id", "ip.len", "ip.ttl",
              "ip.checksum", "ip.checksum.status", "udp.checksum", "udp.checksum.status",
              "tcp.checksum", "tcp.checksum.status", "icmp.checksum", "icmp.checksum.status")

    def packets(self):
        """One dict per IPv4 frame: the outer header's fields (occurrence=f)."""
        argv = ["tshark", "-n", "-r", self.path,
                # validate checksums (off by default in tshark: offloads make them wrong)
                "-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE",
                "-o", "tcp.check_checksum:TRUE",
                "-Y", "ip", "-T", "fields", "-E", "separator=\t", "-E", "occurrence=f"]
        for f in self.FIELDS:
            argv += ["-e", f]
        r = sh(*argv, timeout=60)
        pkts = []
        for line in r.stdout.splitlines():
            v = line.split("\t")
            pkts.append(dict(zip(self.FIELDS, v + [""] * (len(self.FIELDS) - len(v)))))
        return pkts


XDP_PROBE = os.path.join(HERE, "xdp_probe.py")


def xdp_refusal():
    """None when this kernel accepts what net_af_xdp asks of it on a veth like the tests'
    (tests/netns/xdp_probe.py, in a topology of its own); otherwise the step it refused
    and its errno."""
    with Topology() as t:
        r = sh(sys.executable, XDP_PROBE, t.ports[0].ifname, ns=t.router_ns, check=False)
    return r.stdout.strip() if r.returncode == 1 else None


class SkipWhereKernelRefusesXdp:
    """A mixin before a suite's base class: dpfwd on net_af_xdp. When dpfwd cannot start
    there, the class is skipped only if the kernel itself refuses an XDP socket on a veth
    (xdp_refusal(): the kernel's errno, none of dpfwd's messages); otherwise the failure
    stands."""
    driver = "net_af_xdp"

    @classmethod
    def setUpClass(cls):
        try:
            super().setUpClass()
        except RuntimeError as e:
            why = xdp_refusal()
            if why:
                raise unittest.SkipTest(f"net_af_xdp cannot run on this kernel: {why}") from e
            raise


def run_tests(name, module, banner, probe=None):
    """A netns suite's main: exit 77 (skipped, with the reason) where namespaces
    cannot be made (or probe(), when given, raises Unavailable: the kernel refuses what
    the suite needs); otherwise run @p module's unittest cases, clean up every
    namespace, print a one-line summary and exit 0 only when all passed."""

    try:
        check_environment()
        if probe is not None:
            probe()
    except Unavailable as e:
        print(f"SKIP: {name}: {e}")
        sys.exit(77)
    print(f"{name}: {banner}")
    sys.stdout.flush()
    prog = unittest.main(module=module, verbosity=2, exit=False)
    cleanup_all()
    sys.stderr.flush()
    r = prog.result
    # a setUpClass that fails or skips is an entry of its own, not one of testsRun
    not_passed = [t for t, _ in r.failures + r.errors + r.skipped
                  if isinstance(t, unittest.TestCase)]
    print(f"{name}: {r.testsRun - len(not_passed)} passed, "
          f"{len(r.failures) + len(r.errors)} failed, {len(r.skipped)} skipped")
    sys.exit(0 if r.wasSuccessful() else 1)
