# SPDX-License-Identifier: BSD-3-Clause
"""
BIRD (Debian's bird2, 2.0) for tests/netns: one daemon per namespace, in the
foreground (-f) with its own config (-c) and control socket (-s) in a temporary folder,
so the system's bird service, /etc/bird and /run/bird are never read or touched.

  b = Bird("dpfwd", ns, topo.tmp)
  b.start(CONF)
  b.birdc("show protocols")
  b.established("b4")          # the BGP protocol named b4 is up
  b.birdc("disable", "loop")   # its routes withdrawn
  b.stop()                     # SIGTERM, by pid

The daemon runs as root (no -u): it needs CAP_NET_ADMIN for the kernel's table and
binds TCP port 179. It logs to its stderr, kept in NAME/bird.out. It is registered with
netns.py's cleanup (stopped by pid).
"""
import os
import shutil
import signal
import subprocess
import time

import netns

BIRD = "bird"
BIRDC = "birdc"


def check():
    """Raise netns.Unavailable when BIRD is missing (scripts/dev.sh installs it)."""
    missing = [p for p in (BIRD, BIRDC) if shutil.which(p) is None]
    if missing:
        raise netns.Unavailable(f"BIRD missing ({', '.join(missing)}): apt-get install bird2 "
                                f"(scripts/dev.sh installs it)")


class Bird:
    """The BIRD daemon of one namespace."""

    def __init__(self, name, ns, tmp):
        self.name, self.ns = name, ns
        self.dir = os.path.join(tmp, f"bird-{name}")
        os.makedirs(self.dir)
        self.conf = os.path.join(self.dir, "bird.conf")
        self.sock = os.path.join(self.dir, "bird.ctl")
        self.proc = None

    def start(self, conf, timeout=10.0):
        """Check @p conf (bird -p), start BIRD on it; return once its socket answers."""
        with open(self.conf, "w") as f:
            f.write(conf)
        r = netns.sh(BIRD, "-p", "-c", self.conf, check=False)
        if r.returncode != 0:
            raise RuntimeError(f"{self.name}: bird refuses its config: {r.stderr.strip()}\n"
                               f"{conf}")
        with open(os.path.join(self.dir, "bird.out"), "a") as out:
            self.proc = netns.spawn([BIRD, "-f", "-c", self.conf, "-s", self.sock],
                                    ns=self.ns, stdout=out, stderr=subprocess.STDOUT)
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} bird exited {self.proc.returncode}:\n"
                                   f"{self.output()}")
            if os.path.exists(self.sock) and "up and running" in self.birdc(
                    "show status", check=False).stdout:
                return self.proc
            time.sleep(0.05)
        raise RuntimeError(f"{self.name} bird: no answer within {timeout} s:\n{self.output()}")

    def output(self):
        try:
            return netns.read_text(os.path.join(self.dir, "bird.out"))
        except FileNotFoundError:
            return ""

    def birdc(self, *words, check=True):
        """birdc on this daemon's socket, @p words as one command: the CompletedProcess."""
        return netns.sh(BIRDC, "-s", self.sock, *words, check=check, timeout=20)

    def established(self, protocol):
        """Whether BGP protocol @p protocol is up (its session Established)."""
        out = self.birdc("show", "protocols", protocol, check=False).stdout
        return any(ln.split()[:1] == [protocol] and "Established" in ln
                   for ln in out.splitlines())

    def stop(self, sig=signal.SIGTERM):
        """Signal the daemon by its pid and wait for it; its exit status."""
        rc = netns.stop_process(self.proc, sig, 5)
        netns.undo(self.proc.cleanup)
        return rc
