# SPDX-License-Identifier: BSD-3-Clause
"""
FRR daemons (Debian's frr 8.4) for tests/netns: one set per namespace, each daemon in
the foreground with its own config file, pid file, zserv socket and vty socket folder
under a temporary folder, so the system's frr service and /etc/frr are never read or
touched.

  r = Frr("dpfwd", ns, topo.tmp)
  r.start("zebra", "hostname dpfwd\n")
  r.start("bgpd", BGPD_CONF)
  r.vtysh("show bgp summary")
  r.kill("bgpd")               # SIGKILL, by pid
  r.start("bgpd")              # the same config again

What this machine asks of it:
- The daemons drop to user frr, whose group frrvty owns the vty sockets; started as
  root with `-u root`, they refuse ("user(root) is not part of vty group specified
  (frrvty)"). So they run as frr (`-u frr -g frr`), and their folder is frr's.
- zebra finds no MPLS in this kernel and says "Disabling MPLS support (no kernel
  support)", then runs without it: no option needed.
- Each daemon keeps a folder /var/tmp/frr/<daemon>.<pid> (crash log, log buffer) that
  it cannot remove itself after dropping root; it is removed here once the daemon
  stopped.

Every daemon is registered with netns.py's cleanup (stopped by pid).
"""
import os
import pwd
import shutil
import signal
import subprocess
import time

import netns

FRR_LIB = "/usr/lib/frr"
VTYSH = "vtysh"
USER = "frr"
DAEMON_TMP = "/var/tmp/frr"


def check():
    """Raise netns.Unavailable when FRR is missing (scripts/dev.sh installs it)."""
    if not os.path.exists(os.path.join(FRR_LIB, "zebra")) or shutil.which(VTYSH) is None:
        raise netns.Unavailable(f"FRR missing ({FRR_LIB}/zebra, vtysh): apt-get install frr "
                                f"(scripts/dev.sh installs it)")
    try:
        pwd.getpwnam(USER)
    except KeyError:
        raise netns.Unavailable(f"no user {USER} (made by the frr package)")


class Frr:
    """The FRR daemons of one namespace."""

    def __init__(self, name, ns, tmp):
        self.name, self.ns = name, ns
        self.dir = os.path.join(tmp, f"frr-{name}")
        os.makedirs(self.dir)
        # the daemons run as frr: they must reach and write their folder
        os.chmod(tmp, 0o755)
        pw = pwd.getpwnam(USER)
        os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        self.uid, self.gid = pw.pw_uid, pw.pw_gid
        self.procs = {}
        self.args = {}  # each daemon's own arguments, kept for a restart

    def path(self, what):
        return os.path.join(self.dir, what)

    def write(self, daemon, text):
        p = self.path(f"{daemon}.conf")
        with open(p, "w") as f:
            f.write(text)
        os.chown(p, self.uid, self.gid)

    def start(self, daemon, conf=None, args=(), timeout=10.0):
        """Start @p daemon (zebra first) with @p conf (or the config it had), in the
        foreground; return once its vty socket answers."""
        if conf is not None:
            self.write(daemon, conf)
        if args:
            self.args[daemon] = tuple(args)
        args = self.args.get(daemon, ())
        vty = self.path(f"{daemon}.vty")
        if os.path.exists(vty):
            os.unlink(vty)
        argv = [os.path.join(FRR_LIB, daemon), "-u", USER, "-g", USER,
                "-f", self.path(f"{daemon}.conf"), "-i", self.path(f"{daemon}.pid"),
                "-z", self.path("zserv.api"), "--vty_socket", self.dir, "-P", "0",
                "--log", f"file:{self.path(daemon + '.log')}", *args]
        box = {}
        # registered before the process: removed after it stopped
        netns.defer(f"remove {DAEMON_TMP}/{daemon}.<pid> ({self.name})",
                    lambda: box.get("proc") and shutil.rmtree(
                        f"{DAEMON_TMP}/{daemon}.{box['proc'].pid}", ignore_errors=True))
        with open(self.path(f"{daemon}.out"), "a") as out:
            proc = netns.spawn(argv, ns=self.ns, stdout=out, stderr=subprocess.STDOUT)
        box["proc"] = proc
        self.procs[daemon] = proc
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if proc.poll() is not None:
                raise RuntimeError(f"{self.name} {daemon} exited {proc.returncode}:\n"
                                   f"{self.output(daemon)}")
            if os.path.exists(vty) and self.vtysh("show version", daemon=daemon,
                                                  check=False).returncode == 0:
                return proc
            time.sleep(0.05)
        raise RuntimeError(f"{self.name} {daemon}: no vty within {timeout} s:\n"
                           f"{self.output(daemon)}")

    def output(self, daemon):
        text = ""
        for suffix in ("out", "log"):
            try:
                text += netns.read_text(self.path(f"{daemon}.{suffix}"))
            except FileNotFoundError:
                pass
        return text

    def pid(self, daemon):
        return self.procs[daemon].pid

    def kill(self, daemon, sig=signal.SIGKILL):
        """Signal @p daemon by its pid and wait for it."""
        proc = self.procs.pop(daemon)
        rc = netns.stop_process(proc, sig, 5)
        netns.undo(proc.cleanup)
        shutil.rmtree(f"{DAEMON_TMP}/{daemon}.{proc.pid}", ignore_errors=True)
        return rc

    def stop(self):
        """Every daemon, SIGTERM, the last started first."""
        for daemon in reversed(list(self.procs)):
            self.kill(daemon, signal.SIGTERM)

    def vtysh(self, *cmds, daemon=None, check=True):
        """vtysh on this set's sockets; each of @p cmds one -c. The CompletedProcess."""
        argv = [VTYSH, "--vty_socket", self.dir]
        if daemon is not None:
            argv += ["-d", daemon]
        for c in cmds:
            argv += ["-c", c]
        return netns.sh(*argv, check=check, timeout=20)

    def config(self, *lines):
        """`configure terminal`, then @p lines."""
        return self.vtysh("configure terminal", *lines)


def bgpd_conf(asn, router_id, neighbors, networks=(), extra=(), restart_time=1):
    """A bgpd config: eBGP to each (address, remote AS) of @p neighbors with the short
    timers of the tests (keepalive 1 s, hold 3 s, connect retry 1 s, no MRAI), up to 2
    paths per prefix (AS paths of the same length from different ASes too), and a
    `network` statement for each of @p networks. Graceful restart (RFC 4724) with
    @p restart_time: how long its peers keep its routes after its session fails (and
    how long its zebra keeps them after bgpd dies); a host's 1 s lets dpfwd's bgpd drop
    a dead peer's routes 1 s after the hold time."""
    lines = [f"router bgp {asn}",
             f" bgp router-id {router_id}",
             " no bgp ebgp-requires-policy",
             " no bgp network import-check",
             " bgp bestpath as-path multipath-relax",
             " bgp graceful-restart",
             f" bgp graceful-restart restart-time {restart_time}",
             " bgp fast-convergence",
             " timers bgp 1 3"]
    for addr, remote_as in neighbors:
        lines += [f" neighbor {addr} remote-as {remote_as}",
                  f" neighbor {addr} timers connect 1",
                  f" neighbor {addr} advertisement-interval 0"]
    lines += list(extra)
    lines += [" address-family ipv4 unicast", "  maximum-paths 2"]
    lines += [f"  network {p}" for p in networks]
    lines += [" exit-address-family", ""]
    return "\n".join(lines)
