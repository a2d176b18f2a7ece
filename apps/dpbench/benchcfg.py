#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""benchcfg -- load dpbench's testpmd-style benchmark configs (configs/bench/*.ini).

    benchcfg.py FILE [--build BUILD]      print the scenario and every variant's
                                          dpfwd --set arguments; exit 2 on errors

A bench config describes one scenario the way testpmd's command line would
(what runs, on which rig, for how long, how often) and the variants to
compare.  Format: INI, one `key = value` a line, `#` starts a comment (at the
start of a line or after a blank), `;` at the start of a line too.

    [bench]
    name = fwd-2000flows-64b-variants   # default: the file name without .ini
    description = dpfwd's tunables      # free text, into the results
    config = fwd-2000flows-64b.ini       # the dpfwd config; relative to this file
    rig = pcap                           # pcap | memif
    pcap = ${DPFWD_BUILD}/pcap/fwd-2000flows-64b.pcap   # pcap rig: what port RX_PORT replays
    rx_port = 0                          # the port traffic comes in on
    tx_ports = 1, 2                      # forwarded = opackets summed over these
    duration = 10                        # measured seconds per run (sampled every second)
    warmup = 2                           # seconds between forwarding start and measuring
    repetitions = 5                      # runs per variant, interleaved round robin
    cooldown = 1                         # pause between runs, seconds
    anchors = l3fwd, testpmd             # run in the same rounds; or none (default)
    baseline = cache-256                 # variant the others are tested against (default: first)
    set = dpfwd.node_stats=on            # override for every variant (repeatable)
    no_huge = off                        # on: every program with --no-huge -m 1024
    telemetry = socket                   # where dpfwd's 1 s samples come from: socket (DPDK
                                         # telemetry), or metrics (GET its Prometheus
                                         # /metrics, served on 127.0.0.1, a free port)

    [variant cache-0]                    # one per variant, in the order to show them
    label = mempool cache 0              # optional legend text
    mempool.cache = 0                    # any dpfwd --set SECTION.KEY=VALUE

    [matrix]                             # optional: every combination of these
    mempool.cache = 0 | 256              # values separated by '|'
    mempool.ops = ring_mp_mc | stack     # -> 4 variants "cache=0/ops=ring_mp_mc", ...

The pcap rig: dpfwd's port RX_PORT replays `pcap` with net_pcap's
infinite_rx (a line-rate source), TX_PORTS are the config's sinks.

The memif rig: two processes, dpgen -> dpfwd -> dpgen over one net_memif
interface (dpfwd is the server, dpgen the client; `tx_ports` is RX_PORT, its
default: dpfwd routes the traffic back out of the port it came in on, to
dpgen's MAC 02:64:67:00:00:00 that the dpfwd config names as a neighbor).
dpgen measures what comes back: loss, reordering, latency.  Its keys:

    gen_pcap = ${DPFWD_BUILD}/pcap/replay-1024flows-100b.pcap   # replay in a loop, or:
    gen_flows = 2000                     # synthetic UDP flows (default 2000) of
    gen_frame_size = 64                  # frame size with FCS, 64..1518 (default 64), or
    gen_payload = 100                    # UDP payload bytes, 18..1472
    gen_rate = max                       # dpgen's --rate: max, N[k|M|G]pps, N[k|M|G]bps

and an optional [rfc2544] section for `dpbench.py rfc2544` (RFC 2544 26.1
throughput: the highest rate without loss, by binary search, and the
offered-load curve):

    [rfc2544]
    trial = 5                            # measured seconds per trial
    warmup = 1                           # seconds of traffic before each trial's measurement
    repeats = 2                          # trials per rate; a rate passes when all pass
    loss_tolerance = 0                   # percent of frames lost that still passes (RFC: 0)
    rate_tolerance = 1                   # percent dpgen may fall short of the offered rate
    resolution = 1%                      # stop when hi - lo <= 1% of hi; or a rate: 10kpps
    max_rate = max                       # the top: max = what dpgen reaches; or N[k|M|G]pps
    min_rate = 0                         # the bottom, assumed to pass
    points = 10                          # offered-load curve: max_rate/points .. max_rate
    validate = 10                        # seconds of the final trial at the rate found (0: none)
    max_trials = 40                      # search trials at most (the curve not counted)

`${NAME}` in config, pcap and gen_pcap comes from the environment, with
DPFWD_BUILD (the build dir), DPFWD_SRC (the source tree) and BENCH_DIR (this
file's folder) built in.  Override values are passed to dpfwd as they are
(dpfwd expands `${NAME}` in them itself).

Every error names file:line; unknown sections and keys are errors.  The
override keys are checked here for form (SECTION.KEY) and, for the keys this
loader knows (below, KNOWN_VALUES), for their values; dpfwd itself checks
the rest before anything runs (dpbench's preflight).

Python 3 standard library only.
"""

import argparse
import itertools
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

RIGS = ("pcap", "memif")
TELEMETRY_SOURCES = ("socket", "metrics")
ANCHORS = ("l3fwd", "testpmd")
DEFAULT_PCAP = "${DPFWD_BUILD}/pcap/fwd-2000flows-64b.pcap"
MAX_PORTS = 16
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+=/-]*$")
OVERRIDE_KEY_RE = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)\.([A-Za-z][A-Za-z0-9_]*)$")
VAR_RE = re.compile(r"\$\{([^}]*)\}")
GEN_RATE_RE = re.compile(r"^(max|[0-9]+(\.[0-9]+)?[kMG]?(pps|bps))$")
PPS_RE = re.compile(r"^([0-9]+(\.[0-9]+)?)([kMG]?)pps$")
UNIT = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9}
# memif in DPDK 22.11 carries frames up to 1518 bytes with the FCS (no jumbo frames)
MEMIF_MAX_FRAME = 1518
GEN_MIN_FRAME, GEN_STAMP_LEN, GEN_UDP4_HDRS = 64, 18, 14 + 20 + 8
GEN_FLOWS_MAX = 1 << 20
# dpgen's MAC on the memif rig; the dpfwd config's neighbor (the next hop back to dpgen)
GEN_MAC = "02:64:67:00:00:00"

MEMPOOL_OPS = ("ring_mp_mc", "ring_sp_sc", "ring_mp_sc", "ring_sp_mc", "stack", "lf_stack",
               "ring_mt_rts", "ring_mt_hts")
BOOLS = ("on", "off", "yes", "no", "true", "false", "1", "0")


class BenchConfigError(Exception):
    """A mistake in a bench config; str() is 'file:line: message'."""

    def __init__(self, path, line: int, msg: str):
        self.path = str(path)
        self.line = line
        self.msg = msg
        super().__init__(f"{self.path}:{line}: {msg}" if line else f"{self.path}: {msg}")


# --------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------

def _int_in(lo: int, hi: int) -> Callable[[str], Optional[str]]:
    def check(v: str) -> Optional[str]:
        try:
            n = int(v, 10)
        except ValueError:
            return f"'{v}' is not an integer ({lo}..{hi})"
        return None if lo <= n <= hi else f"'{v}' is out of range {lo}..{hi}"
    return check


def _one_of(choices) -> Callable[[str], Optional[str]]:
    def check(v: str) -> Optional[str]:
        return None if v.lower() in choices else f"'{v}' is not one of {', '.join(choices)}"
    return check


def _mempool_size(v: str) -> Optional[str]:
    return None if v == "auto" else _int_in(1024, 1 << 26)(v)


# The dpfwd keys whose values are checked here, without running dpfwd
# (mirrors src/config/config.c; dpfwd's own check is the authority).
KNOWN_VALUES: Dict[str, Callable[[str], Optional[str]]] = {
    "dpfwd.burst": _int_in(1, 64),
    "dpfwd.tx_drain_us": _int_in(1, 1000000),
    "dpfwd.node_stats": _one_of(BOOLS),
    "dpfwd.node_stats_sample": _int_in(1, 1024),
    "dpfwd.delay_stats_sample": _int_in(1, 1024),
    "dpfwd.ip4_cksum_check": _one_of(BOOLS),
    "dpfwd.check_dst_mac": _one_of(BOOLS),
    "mempool.cache": _int_in(0, 512),
    "mempool.ops": _one_of(MEMPOOL_OPS),
    "mempool.size": _mempool_size,
}


def check_key(key: str) -> Optional[str]:
    """None if KEY has the form of a dpfwd override, else why not."""
    if not OVERRIDE_KEY_RE.match(key):
        return (f"'{key}' is not a dpfwd override: expected SECTION.KEY "
                "(e.g. mempool.cache = 0), or label")
    return None


def check_override(key: str, value: str) -> Optional[str]:
    """None if KEY = VALUE may be passed to dpfwd --set, else why not."""
    why = check_key(key)
    if why:
        return why
    if value == "":
        return f"{key}: empty value"
    check = KNOWN_VALUES.get(key)
    if check and "${" not in value:
        why = check(value)
        if why:
            return f"{key}: {why}"
    return None


def parse_pps(v: str) -> Optional[float]:
    """'12Mpps', '500kpps', '1000pps' -> packets per second; None if not that form."""
    m = PPS_RE.match(v)
    if not m:
        return None
    return float(m.group(1)) * UNIT[m.group(3)]


def fmt_pps(pps: float) -> str:
    """12000000 -> '12Mpps' (dpgen's --rate syntax, exact to the packet per second)."""
    for unit, mult in (("M", 1e6), ("k", 1e3)):
        if pps >= mult:
            return f"{pps / mult:.6f}".rstrip("0").rstrip(".") + unit + "pps"
    return f"{max(1, round(pps))}pps"


@dataclass
class SearchConfig:
    """[rfc2544]: the throughput search and the offered-load curve."""
    trial: int = 5                   # measured seconds per trial
    warmup: int = 1                  # seconds of traffic before the measurement
    repeats: int = 2                 # trials per rate; all must pass
    loss_tolerance: float = 0.0      # percent
    rate_tolerance: float = 1.0      # percent dpgen may fall short of the offered rate
    resolution: Tuple[str, float] = ("pct", 1.0)    # ("pct", %) or ("pps", pps)
    max_rate: Optional[float] = None                # pps; None = what dpgen reaches
    min_rate: float = 0.0
    points: int = 10
    validate: Optional[int] = None   # seconds; None = 2 x trial; 0 = no validation
    max_trials: int = 40
    line: int = 0                    # of the [rfc2544] header
    lines: Dict[str, int] = field(default_factory=dict)

    def validate_s(self) -> int:
        return 2 * self.trial if self.validate is None else self.validate

    def resolution_text(self) -> str:
        kind, v = self.resolution
        return f"{v:g}%" if kind == "pct" else fmt_pps(v)

    def as_dict(self) -> dict:
        return {"trial_s": self.trial, "warmup_s": self.warmup, "repeats": self.repeats,
                "loss_tolerance_pct": self.loss_tolerance,
                "rate_tolerance_pct": self.rate_tolerance,
                "resolution": self.resolution_text(),
                "max_rate_pps": self.max_rate, "min_rate_pps": self.min_rate,
                "points": self.points, "validate_s": self.validate_s(),
                "max_trials": self.max_trials}


SEARCH_KEYS = ("trial", "warmup", "repeats", "loss_tolerance", "rate_tolerance", "resolution",
               "max_rate", "min_rate", "points", "validate", "max_trials")


# --------------------------------------------------------------------------
# The scenario
# --------------------------------------------------------------------------

@dataclass
class Override:
    key: str            # section.key
    value: str
    line: int

    def arg(self) -> str:
        return f"{self.key}={self.value}"


@dataclass
class Variant:
    name: str
    label: str
    line: int                                    # of its [variant] header (or [matrix])
    overrides: List[Override] = field(default_factory=list)   # its own keys

    def title(self) -> str:
        return self.label or self.name


@dataclass
class BenchConfig:
    path: Path
    name: str
    description: str
    config: Path                 # the dpfwd config
    config_line: int
    rig: str
    pcap: Optional[str]          # pcap rig (expanded; checked when run)
    rx_port: int
    tx_ports: List[int]
    duration: int
    warmup: float
    repetitions: int
    cooldown: float
    anchors: List[str]
    baseline: str
    common: List[Override]
    variants: List[Variant]
    no_huge: bool
    telemetry: str = "socket"               # socket | metrics: where the 1 s samples come from
    gen_pcap: Optional[str] = None
    gen_rate: str = "max"
    gen_flows: int = 2000
    gen_frame_size: Optional[int] = None     # with the FCS; None with gen_payload or gen_pcap
    gen_payload: Optional[int] = None
    search: Optional[SearchConfig] = None    # [rfc2544]; memif rig only
    lines: Dict[str, int] = field(default_factory=dict)   # [bench] key -> line

    def gen_traffic_args(self) -> List[str]:
        """dpgen's options for what to send (not the rate)."""
        if self.gen_pcap:
            return ["--pcap", self.gen_pcap]
        a = ["--flows", str(self.gen_flows)]
        if self.gen_payload is not None:
            return a + ["--payload", str(self.gen_payload)]
        return a + ["--frame-size", str(self.gen_frame_size or GEN_MIN_FRAME)]

    def gen_traffic_text(self) -> str:
        if self.gen_pcap:
            return f"replay {self.gen_pcap}"
        size = (f"{self.gen_payload} B UDP payload" if self.gen_payload is not None
                else f"{self.gen_frame_size or GEN_MIN_FRAME} B frames")
        return f"{self.gen_flows} UDP flow{'s' if self.gen_flows != 1 else ''} of {size}"

    def variant(self, name: str) -> Variant:
        for v in self.variants:
            if v.name == name:
                return v
        raise KeyError(name)

    def overrides(self, v: Variant) -> List[Override]:
        """[bench] set = ... then the variant's own keys; a variant's key
        replaces the common one."""
        own = {o.key for o in v.overrides}
        return [o for o in self.common if o.key not in own] + list(v.overrides)

    def set_args(self, v: Variant) -> List[str]:
        """dpfwd arguments: --set K=V ..."""
        out = []
        for o in self.overrides(v):
            out += ["--set", o.arg()]
        return out

    def ordered_variants(self) -> List[Variant]:
        """The baseline first, then the others in file order."""
        b = self.variant(self.baseline)
        return [b] + [v for v in self.variants if v is not b]

    def as_dict(self) -> dict:
        return {"file": str(self.path), "name": self.name, "description": self.description,
                "config": str(self.config), "rig": self.rig, "pcap": self.pcap,
                "rx_port": self.rx_port, "tx_ports": self.tx_ports,
                "duration_s": self.duration, "warmup_s": self.warmup,
                "repetitions": self.repetitions, "cooldown_s": self.cooldown,
                "anchors": self.anchors, "baseline": self.baseline, "no_huge": self.no_huge,
                "telemetry": self.telemetry,
                "gen_pcap": self.gen_pcap, "gen_rate": self.gen_rate,
                "gen_flows": self.gen_flows if self.rig == "memif" and not self.gen_pcap else None,
                "gen_frame_size": self.gen_frame_size, "gen_payload": self.gen_payload,
                "gen_traffic": self.gen_traffic_text() if self.rig == "memif" else None,
                "rfc2544": self.search.as_dict() if self.search else None,
                "common_sets": [o.arg() for o in self.common],
                "variants": [{"name": v.name, "label": v.label,
                              "sets": [o.arg() for o in self.overrides(v)]}
                             for v in self.ordered_variants()]}


# --------------------------------------------------------------------------
# Loader
# --------------------------------------------------------------------------

BENCH_KEYS = ("name", "description", "config", "rig", "pcap", "rx_port", "tx_ports",
              "duration", "warmup", "repetitions", "cooldown", "anchors", "baseline", "set",
              "no_huge", "gen_pcap", "gen_rate", "gen_flows", "gen_frame_size", "gen_payload",
              "telemetry")
REPEATABLE = ("set",)
PCAP_ONLY = ("pcap", "anchors")
MEMIF_ONLY = ("gen_pcap", "gen_rate", "gen_flows", "gen_frame_size", "gen_payload")


def _strip_comment(line: str) -> str:
    s = line.rstrip("\r\n")
    if s.lstrip().startswith((";", "#")):
        return ""
    m = re.search(r"(^|\s)#", s)
    if m:
        s = s[:m.start()]
    return s.strip()


def _split_list(v: str) -> List[str]:
    return [x for x in re.split(r"[,\s]+", v) if x]


def default_build() -> Path:
    return Path(os.environ.get("DPFWD_BUILD") or REPO / "build").resolve()


def load(path, build: Optional[Path] = None) -> BenchConfig:
    """Read and check a bench config. Raises BenchConfigError (file:line)."""
    path = Path(path)
    shown = path
    build = Path(build).resolve() if build else default_build()
    try:
        text = path.read_text()
    except OSError as e:
        raise BenchConfigError(shown, 0, f"cannot read: {e.strerror}") from None
    bench_dir = path.resolve().parent
    builtins = {"DPFWD_BUILD": str(build), "DPFWD_SRC": str(REPO), "BENCH_DIR": str(bench_dir)}

    def err(line: int, msg: str) -> BenchConfigError:
        return BenchConfigError(shown, line, msg)

    def expand(v: str, line: int) -> str:
        def sub(m):
            name = m.group(1)
            if name in builtins:
                return builtins[name]
            if name in os.environ:
                return os.environ[name]
            raise err(line, f"${{{name}}} is not set (built-ins: {', '.join(builtins)}; "
                            "or export it)")
        return VAR_RE.sub(sub, v)

    # ---- pass 1: sections and key = value lines, with line numbers
    bench: Dict[str, List[Tuple[str, int]]] = {}
    bench_line = 0
    matrix: List[Tuple[str, str, int]] = []
    matrix_line = 0
    variants: List[Variant] = []
    search_kv: Dict[str, Tuple[str, int]] = {}
    search_line = 0
    section = None          # "bench" | "matrix" | "rfc2544" | Variant
    seen_keys: Dict[str, int] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        s = _strip_comment(raw)
        if not s:
            continue
        if s.startswith("["):
            if not s.endswith("]"):
                raise err(lineno, f"bad section header '{s}' (expected [bench], "
                                  "[variant NAME], [matrix] or [rfc2544])")
            head = s[1:-1].strip()
            seen_keys = {}
            if head == "bench":
                if bench_line:
                    raise err(lineno, f"[bench] given twice (first at line {bench_line})")
                bench_line, section = lineno, "bench"
            elif head == "matrix":
                if matrix_line:
                    raise err(lineno, f"[matrix] given twice (first at line {matrix_line})")
                matrix_line, section = lineno, "matrix"
            elif head == "rfc2544":
                if search_line:
                    raise err(lineno, f"[rfc2544] given twice (first at line {search_line})")
                search_line, section = lineno, "rfc2544"
            elif head.split(None, 1)[0] == "variant":
                parts = head.split(None, 1)
                if len(parts) != 2:
                    raise err(lineno, "[variant] needs a name: [variant NAME]")
                vname = parts[1].strip()
                if not NAME_RE.match(vname):
                    raise err(lineno, f"variant name '{vname}': use letters, digits and "
                                      "_ . + = / - (no blanks, no commas)")
                for v in variants:
                    if v.name == vname:
                        raise err(lineno, f"variant '{vname}' defined twice "
                                          f"(first at line {v.line})")
                section = Variant(name=vname, label="", line=lineno)
                variants.append(section)
            else:
                raise err(lineno, f"unknown section [{head}] (expected [bench], "
                                  "[variant NAME], [matrix] or [rfc2544])")
            continue
        if "=" not in s:
            raise err(lineno, f"expected 'key = value', got '{s}'")
        key, _, value = s.partition("=")
        key, value = key.strip(), value.strip()
        if section is None:
            raise err(lineno, f"'{key}' outside a section: start with [bench]")
        if not key:
            raise err(lineno, "empty key")
        if key in seen_keys and not (section == "bench" and key in REPEATABLE):
            raise err(lineno, f"'{key}' given twice in this section "
                              f"(first at line {seen_keys[key]})")
        seen_keys.setdefault(key, lineno)
        if section == "bench":
            if key not in BENCH_KEYS:
                raise err(lineno, f"unknown key '{key}' in [bench] (expected "
                                  f"{', '.join(BENCH_KEYS)})")
            bench.setdefault(key, []).append((value, lineno))
        elif section == "rfc2544":
            if key not in SEARCH_KEYS:
                raise err(lineno, f"unknown key '{key}' in [rfc2544] (expected "
                                  f"{', '.join(SEARCH_KEYS)})")
            if value == "":
                raise err(lineno, f"{key}: empty value")
            search_kv[key] = (value, lineno)
        elif section == "matrix":
            why = check_key(key)
            if why:
                raise err(lineno, why)
            vals = [x.strip() for x in value.split("|")]
            if not value or any(x == "" for x in vals):
                raise err(lineno, f"{key}: expected values separated by '|', got '{value}'")
            if len(set(vals)) != len(vals):
                raise err(lineno, f"{key}: a value is listed twice")
            for x in vals:
                why = check_override(key, x)
                if why:
                    raise err(lineno, why)
            matrix.append((key, value, lineno))
        else:
            if key == "label":
                section.label = value
                continue
            why = check_override(key, value)
            if why:
                raise err(lineno, why)
            section.overrides.append(Override(key, value, lineno))

    if not bench_line:
        raise err(0, "no [bench] section")

    def one(key: str) -> Tuple[Optional[str], int]:
        v = bench.get(key)
        return (v[0][0], v[0][1]) if v else (None, bench_line)

    def get_int(key: str, default: int, lo: int, hi: int) -> int:
        v, line = one(key)
        if v is None:
            return default
        try:
            n = int(v, 10)
        except ValueError:
            raise err(line, f"{key} '{v}' is not an integer ({lo}..{hi})") from None
        if not lo <= n <= hi:
            raise err(line, f"{key} '{v}' is out of range {lo}..{hi}")
        return n

    def get_float(key: str, default: float, lo: float, hi: float) -> float:
        v, line = one(key)
        if v is None:
            return default
        try:
            x = float(v)
        except ValueError:
            raise err(line, f"{key} '{v}' is not a number ({lo:g}..{hi:g})") from None
        if not lo <= x <= hi:
            raise err(line, f"{key} '{v}' is out of range {lo:g}..{hi:g}")
        return x

    # ---- pass 2: [bench]
    for key, vals in bench.items():
        if key not in REPEATABLE and len(vals) > 1:
            raise err(vals[1][1], f"'{key}' given twice (first at line {vals[0][1]})")
        for v, line in vals:
            if v == "" and key not in ("description",):
                raise err(line, f"{key}: empty value")

    name, _ = one("name")
    if name is None:
        name = path.stem
    elif not NAME_RE.match(name):
        raise err(one("name")[1], f"name '{name}': use letters, digits and _ . + = / -")
    description = one("description")[0] or ""

    rig, rig_line = one("rig")
    rig = rig or "pcap"
    if rig not in RIGS:
        raise err(rig_line, f"rig '{rig}' unknown (expected {', '.join(RIGS)})")
    for k in PCAP_ONLY if rig != "pcap" else MEMIF_ONLY:
        if k in bench:
            raise err(bench[k][0][1], f"'{k}' applies to rig = "
                                      f"{'pcap' if k in PCAP_ONLY else 'memif'} only "
                                      f"(this is rig = {rig})")
    if search_line and rig != "memif":
        raise err(search_line, "[rfc2544] needs rig = memif: the searches need dpgen to offer "
                               "a rate and count what comes back")

    cfg_v, cfg_line = one("config")
    if cfg_v is None:
        raise err(bench_line, "[bench] has no 'config' (the dpfwd config to run)")
    cfg = Path(expand(cfg_v, cfg_line))
    if not cfg.is_absolute():
        cfg = bench_dir / cfg
    if not cfg.is_file():
        raise err(cfg_line, f"config '{cfg_v}': {cfg} not found")

    pcap = None
    if rig == "pcap":
        pv, pl = one("pcap")
        pcap = expand(pv or DEFAULT_PCAP, pl)
        if not os.path.isabs(pcap):
            pcap = str(bench_dir / pcap)
        if "," in pcap:
            raise err(pl, "pcap path must not contain ',' (it goes into a --vdev devargs string)")

    gen_pcap, gen_rate = None, "max"
    gen_flows, gen_frame_size, gen_payload = 2000, None, None
    if rig == "memif":
        gv, gl = one("gen_pcap")
        if gv is not None:
            for k in ("gen_flows", "gen_frame_size", "gen_payload"):
                if k in bench:
                    raise err(bench[k][0][1], f"{k}: gen_pcap (line {gl}) is replayed as it "
                                              "is; give one or the other")
            gen_pcap = expand(gv, gl)
            if not os.path.isabs(gen_pcap):
                gen_pcap = str(bench_dir / gen_pcap)
        gen_flows = get_int("gen_flows", 2000, 1, GEN_FLOWS_MAX)
        if "gen_frame_size" in bench and "gen_payload" in bench:
            raise err(bench["gen_payload"][0][1], "gen_payload: gen_frame_size (line "
                      f"{bench['gen_frame_size'][0][1]}) already sets the size; give one")
        if "gen_frame_size" in bench:
            gen_frame_size = get_int("gen_frame_size", GEN_MIN_FRAME, GEN_MIN_FRAME,
                                     MEMIF_MAX_FRAME)
        if "gen_payload" in bench:
            gen_payload = get_int("gen_payload", 100, GEN_STAMP_LEN,
                                  MEMIF_MAX_FRAME - 4 - GEN_UDP4_HDRS)
        rv, rl = one("gen_rate")
        if rv is not None:
            if not GEN_RATE_RE.match(rv):
                raise err(rl, f"gen_rate '{rv}': expected max, N[k|M|G]pps or N[k|M|G]bps "
                              "(e.g. 12Mpps, 5Gbps)")
            gen_rate = rv

    rx_port = get_int("rx_port", 0, 0, MAX_PORTS - 1)
    tv, tl = one("tx_ports")
    if tv is None:
        tx_ports = [rx_port] if rig == "memif" else [1, 2]
    else:
        try:
            tx_ports = [int(x, 10) for x in _split_list(tv)]
        except ValueError:
            raise err(tl, f"tx_ports '{tv}': expected port numbers, e.g. 1, 2") from None
        if not tx_ports or any(not 0 <= p < MAX_PORTS for p in tx_ports):
            raise err(tl, f"tx_ports '{tv}': expected port numbers 0..{MAX_PORTS - 1}")
        if len(set(tx_ports)) != len(tx_ports):
            raise err(tl, f"tx_ports '{tv}': a port is listed twice")
        if rig == "memif" and tx_ports != [rx_port]:
            raise err(tl, f"tx_ports '{tv}': on the memif rig the traffic goes back to dpgen "
                          f"over the one memif it came in on: tx_ports = {rx_port} (rx_port)")

    duration = get_int("duration", 10, 1, 86400)
    warmup = get_float("warmup", 2.0, 0.0, 3600.0)
    repetitions = get_int("repetitions", 5, 1, 1000)
    cooldown = get_float("cooldown", 1.0, 0.0, 600.0)

    av, al = one("anchors")
    anchors: List[str] = []
    if av is not None and av.lower() != "none":
        for a in _split_list(av):
            if a not in ANCHORS:
                raise err(al, f"anchor '{a}' unknown (expected {', '.join(ANCHORS)} or none)")
            if a in anchors:
                raise err(al, f"anchor '{a}' listed twice")
            anchors.append(a)
        if anchors and (rx_port != 0 or tx_ports != [1, 2]):
            raise err(al, "the anchors run on the fixed rig port 0 -> ports 1, 2: they need "
                          "rx_port = 0 and tx_ports = 1, 2")

    tv_, tl_ = one("telemetry")
    telemetry = tv_ or "socket"
    if telemetry not in TELEMETRY_SOURCES:
        raise err(tl_, f"telemetry '{telemetry}' unknown (expected {', '.join(TELEMETRY_SOURCES)})")
    if telemetry == "metrics" and anchors:
        raise err(tl_, "telemetry = metrics: the anchors (l3fwd, testpmd) serve no metrics "
                       f"endpoint; use anchors = none (line {al})")

    nh, nl = one("no_huge")
    if nh is not None and nh.lower() not in BOOLS:
        raise err(nl, f"no_huge '{nh}' is not one of {', '.join(BOOLS)}")
    no_huge = nh is not None and nh.lower() in ("on", "yes", "true", "1")

    common = []
    seen_common: Dict[str, int] = {}
    for v, line in bench.get("set", []):
        k, eq, val = v.partition("=")
        k, val = k.strip(), val.strip()
        if not eq:
            raise err(line, f"set '{v}': expected SECTION.KEY=VALUE")
        why = check_override(k, val)
        if why:
            raise err(line, why)
        if k in seen_common:
            raise err(line, f"set {k} given twice (first at line {seen_common[k]})")
        seen_common[k] = line
        common.append(Override(k, val, line))

    # ---- variants: the explicit ones, then the matrix
    if matrix:
        shorts = [k.split(".", 1)[1] for k, _, _ in matrix]
        names = shorts if len(set(shorts)) == len(shorts) else [k for k, _, _ in matrix]
        axes = [[x.strip() for x in v.split("|")] for _, v, _ in matrix]
        for combo in itertools.product(*axes):
            vname = "/".join(f"{n}={x}" for n, x in zip(names, combo))
            if not NAME_RE.match(vname):
                raise err(matrix_line, f"[matrix] makes variant name '{vname}': values may "
                                       "use letters, digits and _ . + = / - only")
            for v in variants:
                if v.name == vname:
                    raise err(matrix_line, f"[matrix] makes variant '{vname}', which is "
                                           f"also defined at line {v.line}")
            variants.append(Variant(
                name=vname, label=" ".join(f"{k}={x}" for (k, _, _), x in zip(matrix, combo)),
                line=matrix_line,
                overrides=[Override(k, x, line) for (k, _, line), x in zip(matrix, combo)]))
    for v in variants:
        if v.name in ANCHORS:
            raise err(v.line, f"variant name '{v.name}' is taken by an anchor")
    if not variants:
        raise err(bench_line, "no variants: add at least one [variant NAME] section (it may "
                              "be empty: the config as it is) or a [matrix]")

    search = _load_search(search_kv, search_line, err) if search_line else None

    bv, bl = one("baseline")
    baseline = variants[0].name
    if bv is not None:
        if bv not in [v.name for v in variants]:
            raise err(bl, f"baseline '{bv}' is not a variant (variants: "
                          f"{', '.join(v.name for v in variants)})")
        baseline = bv

    return BenchConfig(path=path, name=name, description=description, config=cfg,
                       config_line=cfg_line, rig=rig, pcap=pcap, rx_port=rx_port,
                       tx_ports=tx_ports, duration=duration, warmup=warmup,
                       repetitions=repetitions, cooldown=cooldown, anchors=anchors,
                       baseline=baseline, common=common, variants=variants, no_huge=no_huge,
                       telemetry=telemetry, gen_pcap=gen_pcap, gen_rate=gen_rate,
                       gen_flows=gen_flows,
                       gen_frame_size=gen_frame_size, gen_payload=gen_payload, search=search,
                       lines={k: v[0][1] for k, v in bench.items()})


def _load_search(kv: Dict[str, Tuple[str, int]], line: int, err) -> SearchConfig:
    """[rfc2544] key = value pairs -> SearchConfig; errors at the key's line."""
    sc = SearchConfig(line=line, lines={k: v[1] for k, v in kv.items()})

    def num(key: str, lo: float, hi: float, integer: bool):
        v, ln = kv[key]
        try:
            x = int(v, 10) if integer else float(v)
        except ValueError:
            raise err(ln, f"{key} '{v}' is not {'an integer' if integer else 'a number'} "
                          f"({lo:g}..{hi:g})") from None
        if not lo <= x <= hi:
            raise err(ln, f"{key} '{v}' is out of range {lo:g}..{hi:g}")
        return x

    def rate(key: str, allow_max: bool) -> Optional[float]:
        v, ln = kv[key]
        if allow_max and v == "max":
            return None
        if v == "0":
            return 0.0
        pps = parse_pps(v)
        if pps is None:
            raise err(ln, f"{key} '{v}': expected {'max or ' if allow_max else ''}"
                          "N[k|M|G]pps (e.g. 12Mpps; the searches count packets)")
        return pps

    if "trial" in kv:
        sc.trial = num("trial", 1, 3600, True)
    if "warmup" in kv:
        sc.warmup = num("warmup", 0, 600, True)
    if "repeats" in kv:
        sc.repeats = num("repeats", 1, 100, True)
    if "loss_tolerance" in kv:
        sc.loss_tolerance = num("loss_tolerance", 0, 100, False)
    if "rate_tolerance" in kv:
        sc.rate_tolerance = num("rate_tolerance", 0, 50, False)
    if "resolution" in kv:
        v, ln = kv["resolution"]
        if v.endswith("%"):
            try:
                pct = float(v[:-1])
            except ValueError:
                pct = -1.0
            if not 0.01 <= pct <= 50:
                raise err(ln, f"resolution '{v}': a percentage 0.01%..50% of the upper bound, "
                              "or a rate (10kpps)")
            sc.resolution = ("pct", pct)
        else:
            pps = parse_pps(v)
            if pps is None or pps <= 0:
                raise err(ln, f"resolution '{v}': expected a percentage (1%) or a rate "
                              "(10kpps)")
            sc.resolution = ("pps", pps)
    if "max_rate" in kv:
        sc.max_rate = rate("max_rate", True)
        if sc.max_rate == 0:
            raise err(kv["max_rate"][1], "max_rate 0: nothing to search")
    if "min_rate" in kv:
        sc.min_rate = rate("min_rate", False)
        if sc.max_rate is not None and sc.min_rate >= sc.max_rate:
            raise err(kv["min_rate"][1], f"min_rate {kv['min_rate'][0]} is not below max_rate "
                                         f"{kv['max_rate'][0]}")
    if "points" in kv:
        sc.points = num("points", 2, 100, True)
    if "validate" in kv:
        sc.validate = num("validate", 0, 3600, True)
    if "max_trials" in kv:
        sc.max_trials = num("max_trials", 2, 1000, True)
    return sc


def describe(b: BenchConfig) -> str:
    out = [f"bench {b.name}: {b.description}".rstrip(": "),
           f"  file      {b.path}",
           f"  config    {b.config}",
           f"  rig       {b.rig}"
           + (f"  pcap {b.pcap}" if b.rig == "pcap" else f"  dpgen: {b.gen_traffic_text()} "
              f"at {b.gen_rate}"),
           f"  ports     rx {b.rx_port}  tx {','.join(map(str, b.tx_ports))}",
           f"  runs      {b.repetitions} x {b.duration} s (warmup {b.warmup:g} s, "
           f"cooldown {b.cooldown:g} s), round robin",
           f"  anchors   {', '.join(b.anchors) or 'none'}",
           f"  telemetry {b.telemetry}"
           + ("  (dpfwd's 1 s samples from its Prometheus /metrics)" if b.telemetry == "metrics"
              else "  (dpfwd's 1 s samples from its DPDK telemetry socket)"),
           f"  baseline  {b.baseline}"]
    if b.search:
        sc = b.search
        out.append(f"  rfc2544   trials {sc.repeats} x {sc.trial} s (warmup {sc.warmup} s), "
                   f"loss tolerance {sc.loss_tolerance:g}%, resolution {sc.resolution_text()}, "
                   f"rates {fmt_pps(sc.min_rate) if sc.min_rate else '0'}.."
                   f"{fmt_pps(sc.max_rate) if sc.max_rate else 'max'}, curve {sc.points} points, "
                   f"validation {sc.validate_s()} s")
    for v in b.ordered_variants():
        out.append(f"  variant {v.name}" + (f"  ({v.label})" if v.label else ""))
        out.append("      " + (" ".join(b.set_args(v)) or "(the config as it is)"))
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="benchcfg.py", description="check a dpbench bench config "
                                 "and print its variants")
    ap.add_argument("file")
    ap.add_argument("--build", help="build dir for ${DPFWD_BUILD} (default: $DPFWD_BUILD or "
                                    "REPO/build)")
    a = ap.parse_args(argv)
    try:
        b = load(a.file, Path(a.build) if a.build else None)
    except BenchConfigError as e:
        print(f"benchcfg: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(describe(b))
    return 0


if __name__ == "__main__":
    sys.exit(main())
