# SPDX-License-Identifier: BSD-3-Clause
"""
What the Python functional tests share: a dpfwd process and dpgen processes on the memif
rig, started, waited for and always stopped, with their logs, telemetry and runtime
folders.

    with tempfile.TemporaryDirectory() as d, dprig.Dpfwd(Path(d), config) as fwd:
        fwd.wait_ready()
        tel = fwd.telemetry()            # dpbench.Telemetry on its socket
        gen = dprig.Dpgen(fwd.dir, "a", memif_client(sock, 0, GEN_MAC), [...]).start()
        ...
        fwd.stop()                       # SIGINT, its exit status

Processes are ended by their own pid (SIGINT, then SIGKILL after a timeout), never by
name; the EAL runtime folders of the file prefixes used here are removed at exit.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, List, Optional

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("DPFWD_BUILD") or REPO / "build").resolve()
DPFWD = Path(os.environ.get("DPFWD_BIN", BUILD / "apps" / "dpfwd" / "dpfwd"))
DPGEN = Path(os.environ.get("DPGEN_BIN", BUILD / "apps" / "dpgen" / "dpgen"))
DPSOCK_PERF = Path(os.environ.get("DPSOCK_PERF_BIN",
                                  BUILD / "apps" / "dpsock-perf" / "dpsock-perf"))
sys.path.insert(0, str(REPO / "apps" / "dpbench"))
sys.path.insert(0, str(REPO / "apps" / "dpctl"))
import dpbench  # noqa: E402  (its telemetry socket client and runtime-dir logic)
import dpctl  # noqa: E402  (decode: telemetry values with their nesting put back)

EAL_SMALL = ["--no-pci", "--no-huge", "-m", "512"]


def skip_unless_built(*bins: Path) -> None:
    """Exit 77 (meson: skipped) naming what is missing."""
    why = [f"{b} not built" for b in bins if not Path(b).exists()]
    if why:
        print("SKIP: " + "; ".join(why))
        sys.exit(77)


def memif_dev(n: int, role: str, sock: Path, mac: str, rsize: int = 14) -> str:
    """A net_memif vdev string; rsize=14 makes 16384-slot rings, so that a moment in which
    a process is descheduled on a 2-CPU machine cannot fill them."""
    return (f"net_memif{n},role={role},id=0,socket={sock},socket-abstract=no,mac={mac},"
            f"rsize={rsize}")


def as_list(v):
    """A telemetry array: rte_telemetry may give a dict of index -> object."""
    if isinstance(v, dict):
        v = [v[k] for k in sorted(v, key=lambda k: int(k) if str(k).isdigit() else 0)]
    return [json.loads(x) if isinstance(x, str) else x for x in v]


def wait_until(cond: Callable[[], bool], timeout: float, what: str,
               alive: Optional[Callable[[], None]] = None, step: float = 0.05) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if alive is not None:
            alive()
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {timeout} s")
        time.sleep(step)


class Proc:
    """A child process with its output in DIR/NAME.log, ended by pid."""

    def __init__(self, dir: Path, name: str):
        self.dir, self.name = dir, name
        self.log_path = dir / f"{name}.log"
        self.p: Optional[subprocess.Popen] = None

    def spawn(self, argv: List[str], env: Optional[dict] = None) -> "Proc":
        with open(self.log_path, "w") as log:
            self.p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env)
        return self

    def alive(self) -> None:
        """Raise when the process has ended (with the end of its log)."""
        if self.p is not None and self.p.poll() is not None:
            raise RuntimeError(f"{self.name} ended ({self.p.returncode}): {self.log()}")

    def running(self) -> bool:
        return self.p is not None and self.p.poll() is None

    def log(self, tail: int = 3000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-tail:]
        except OSError:
            return ""

    def wait(self, timeout: float) -> int:
        return self.p.wait(timeout=timeout)

    def stop(self, sig: int = signal.SIGINT, timeout: float = 30) -> Optional[int]:
        """Ask it to stop; SIGKILL when it does not within @timeout. Its exit status."""
        if self.p is None:
            return None
        if self.p.poll() is None:
            self.p.send_signal(sig)
            try:
                self.p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        return self.p.returncode

    def rss_kb(self) -> int:
        for line in Path(f"/proc/{self.p.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0


class Dpfwd(Proc):
    """dpfwd on CONFIG (a path) with --set overrides, telemetry JSON every INTERVAL ms; in
    network namespace NETNS when given (`ip netns exec` execs in place: the pid is dpfwd's)."""

    def __init__(self, dir: Path, config: Path, sets: List[str] = (), interval_ms: int = 100,
                 name: str = "dpfwd", eal: List[str] = EAL_SMALL, args: List[str] = (),
                 netns: Optional[str] = None):
        super().__init__(dir, name)
        self.config = config
        self.prefix = f"{name}{os.getpid()}"
        self.json = dir / f"{name}-telemetry.json"
        self.argv = ([str(DPFWD), "--file-prefix", self.prefix] + list(eal) +
                     ["--", "-c", str(config), "-j", str(self.json), "-i", str(interval_ms)])
        for s in sets:
            self.argv += ["--set", s]
        self.argv += list(args)
        if netns is not None:
            self.argv = ["ip", "netns", "exec", netns] + self.argv
        self._tel = None

    def __enter__(self) -> "Dpfwd":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.cleanup()

    def start(self) -> "Dpfwd":
        self.spawn(self.argv)
        return self

    def runtime_dir(self) -> Path:
        return dpbench.dpdk_runtime_dir() / self.prefix

    def wait_ready(self, extra: Callable[[], bool] = lambda: True, timeout: float = 30) -> None:
        """Its telemetry socket answers, a first JSON snapshot is written, and @extra."""
        sock = self.runtime_dir() / "dpdk_telemetry.v2"
        wait_until(lambda: sock.exists() and self.json.exists() and extra(), timeout,
                   f"dpfwd start: {self.log()}", self.alive)

    def telemetry(self):
        if self._tel is None:
            self._tel = dpbench.Telemetry(self.runtime_dir() / "dpdk_telemetry.v2", timeout=30)
        return self._tel

    def cmd(self, command: str):
        """A telemetry command's value, nested levels put back (dpctl.decode)."""
        return dpctl.decode(self.telemetry().cmd(command))

    def totals(self) -> dict:
        """Packets in and out over the workers, and drops by reason (telemetry)."""
        lc = as_list(self.cmd("/dpfwd/graph/lcores"))
        drops = self.cmd("/dpfwd/graph/drops")
        return {"rx": sum(int(x["rx_pkts"]) for x in lc),
                "tx": sum(int(x["tx_pkts"]) for x in lc),
                "drops": int(drops["total"]),
                "by_reason": {k: int(v) for k, v in drops["by_reason"].items()}}

    def final(self) -> dict:
        return json.loads(self.json.read_text())

    def stop(self, sig: int = signal.SIGINT, timeout: float = 30) -> Optional[int]:
        if self._tel is not None:
            self._tel.close()
            self._tel = None
        return super().stop(sig, timeout)

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.runtime_dir(), ignore_errors=True)


class Dpgen(Proc):
    """dpgen on one memif client port (VDEV), sending and (unless rx_port None) checking
    what comes back; its totals in DIR/NAME.json."""

    def __init__(self, dir: Path, name: str, vdev: str, args: List[str],
                 rx: bool = True, lcores: str = "0@0,1@0"):
        super().__init__(dir, name)
        self.prefix = f"{name}{os.getpid()}"
        self.json = dir / f"{name}.json"
        self.argv = ([str(DPGEN), "--lcores", lcores, "--file-prefix", self.prefix] +
                     EAL_SMALL + ["--vdev", vdev, "--", "--tx-port", "0",
                                  "--rx-port", "0" if rx else "none", "--quiet",
                                  "--json", str(self.json)] + list(args))

    def start(self) -> "Dpgen":
        self.spawn(self.argv)
        return self

    def result(self) -> dict:
        return json.loads(self.json.read_text())["total"]

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(dpbench.dpdk_runtime_dir() / self.prefix, ignore_errors=True)
