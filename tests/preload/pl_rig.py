# SPDX-License-Identifier: BSD-3-Clause
"""
What the preload tests share: a dpfwd with an [endpoint] section on its own file prefix
and socket (tests/func/dprig.py), the environment that preloads libdpsock-preload, and
the endpoint counters of dpfwd's telemetry snapshot.

Environment: DPFWD_BIN, DPFWD_BUILD, DPSOCK_PRELOAD_LIB, PRELOAD_SEM, PRELOAD_WAKE, DPSOCK_LOOP,
PRELOAD_SNDINTR, PRELOAD_RUNTIMES
(tests/preload/meson.build).
"""
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "func"))
import dprig  # noqa: E402

PRELOAD_LIB = os.environ.get(
    "DPSOCK_PRELOAD_LIB", str(dprig.BUILD / "lib" / "preload" / "libdpsock-preload.so"))
PRELOAD_SEM = os.environ.get("PRELOAD_SEM", str(dprig.BUILD / "tests" / "preload" / "preload_sem"))
DPSOCK_LOOP = os.environ.get("DPSOCK_LOOP",
                             str(dprig.BUILD / "apps" / "dpsock-perf" / "dpsock-loop"))
PRELOAD_WAKE = os.environ.get("PRELOAD_WAKE",
                              str(dprig.BUILD / "tests" / "preload" / "preload_wake"))
PRELOAD_SNDINTR = os.environ.get("PRELOAD_SNDINTR",
                                 str(dprig.BUILD / "tests" / "preload" / "preload_sndintr"))

CONFIG = """\
# written by tests/preload: one null port with dpfwd's addresses, endpoints on
[dpfwd]
main_lcore = 0

[port0]
dev = net_null0,no-rx=1
ip4 = 198.18.0.1/24
ip6 = 2001:db8::1/64

[lcores]
rx = (0,0,1)

[endpoint]
socket = {dir}/dpsock.sock
max = 512
"""


def start_dpfwd(tmp: Path, name: str = "dpfwd") -> "dprig.Dpfwd":
    """dpfwd on CONFIG in @tmp, ready (its control socket there), to use as a context."""
    cfg = tmp / f"{name}.ini"
    cfg.write_text(CONFIG.format(dir=tmp))
    fwd = dprig.Dpfwd(tmp, cfg, name=name).start()
    try:
        fwd.wait_ready(lambda: (tmp / "dpsock.sock").exists())
    except BaseException:
        fwd.cleanup()
        raise
    return fwd


def preload_value() -> str:
    """LD_PRELOAD for the library: in a sanitizer build, the runtimes first (the programs
    it goes into are not instrumented)."""
    return " ".join(os.environ.get("PRELOAD_RUNTIMES", "").split() + [PRELOAD_LIB])


def preload_env(base: dict) -> dict:
    """@base with the library preloaded. In a sanitizer build, LeakSanitizer is off for
    those programs: what sockperf, socat or python3 keep at exit is theirs."""
    e = dict(base)
    e["LD_PRELOAD"] = preload_value()
    if os.environ.get("PRELOAD_RUNTIMES", "").strip():
        e["ASAN_OPTIONS"] = ":".join(x for x in (e.get("ASAN_OPTIONS", ""), "detect_leaks=0")
                                     if x)
    return e


def env(sock: Path, **extra) -> dict:
    """The environment of a preloaded program attaching to @sock."""
    e = preload_env(os.environ)
    e["DPSOCK_PATH"] = str(sock)
    e.update(extra)
    return e


def kernel_env() -> dict:
    e = dict(os.environ)
    e.pop("LD_PRELOAD", None)
    return e


def endpoint_stats(fwd: "dprig.Dpfwd", after: float = 0.3) -> dict:
    """dpfwd's endpoint counters (the telemetry snapshot, written every 100 ms)."""
    time.sleep(after)
    return fwd.final()["endpoint"]


def endpoint_ports(fwd: "dprig.Dpfwd") -> list:
    """The ports of the endpoints attached now (the last snapshot's endpoint_list)."""
    return [e.get("port") for e in fwd.final().get("endpoint_list", [])]
