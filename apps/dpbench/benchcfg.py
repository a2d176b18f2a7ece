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
    description = seed 003 tunables      # free text, into the results
    config = fwd-2000flows-64b.ini       # the dpfwd config; relative to this file
    rig = pcap                           # pcap | dpgen
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

    [variant cache-0]                    # one per variant, in the order to show them
    label = mempool cache 0              # optional legend text
    mempool.cache = 0                    # any dpfwd --set SECTION.KEY=VALUE

    [matrix]                             # optional: every combination of these
    mempool.cache = 0 | 256              # values separated by '|'
    mempool.ops = ring_mp_mc | stack     # -> 4 variants "cache=0/ops=ring_mp_mc", ...

The dpgen rig takes `gen_pcap` (required: the pcap dpgen replays) and
`gen_rate` (dpgen's --rate: max, the default, or N[k|M|G]pps or N[k|M|G]bps) instead
of `pcap`.

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

RIGS = ("pcap", "dpgen")
ANCHORS = ("l3fwd", "testpmd")
DEFAULT_PCAP = "${DPFWD_BUILD}/pcap/fwd-2000flows-64b.pcap"
MAX_PORTS = 16
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+=/-]*$")
OVERRIDE_KEY_RE = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)\.([A-Za-z][A-Za-z0-9_]*)$")
VAR_RE = re.compile(r"\$\{([^}]*)\}")
GEN_RATE_RE = re.compile(r"^(max|[0-9]+(\.[0-9]+)?[kMG]?(pps|bps))$")

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
    gen_pcap: Optional[str] = None
    gen_rate: str = "max"
    lines: Dict[str, int] = field(default_factory=dict)   # [bench] key -> line

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
                "gen_pcap": self.gen_pcap, "gen_rate": self.gen_rate,
                "common_sets": [o.arg() for o in self.common],
                "variants": [{"name": v.name, "label": v.label,
                              "sets": [o.arg() for o in self.overrides(v)]}
                             for v in self.ordered_variants()]}


# --------------------------------------------------------------------------
# Loader
# --------------------------------------------------------------------------

BENCH_KEYS = ("name", "description", "config", "rig", "pcap", "rx_port", "tx_ports",
              "duration", "warmup", "repetitions", "cooldown", "anchors", "baseline", "set",
              "no_huge", "gen_pcap", "gen_rate")
REPEATABLE = ("set",)
PCAP_ONLY = ("pcap", "anchors")
DPGEN_ONLY = ("gen_pcap", "gen_rate")


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
    section = None          # "bench" | "matrix" | Variant
    seen_keys: Dict[str, int] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        s = _strip_comment(raw)
        if not s:
            continue
        if s.startswith("["):
            if not s.endswith("]"):
                raise err(lineno, f"bad section header '{s}' (expected [bench], "
                                  "[variant NAME] or [matrix])")
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
                                  "[variant NAME] or [matrix])")
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
    for k in PCAP_ONLY if rig != "pcap" else DPGEN_ONLY:
        if k in bench:
            raise err(bench[k][0][1], f"'{k}' applies to rig = "
                                      f"{'pcap' if k in PCAP_ONLY else 'dpgen'} only "
                                      f"(this is rig = {rig})")

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
    if rig == "dpgen":
        gv, gl = one("gen_pcap")
        if gv is None:
            raise err(bench_line, "rig = dpgen needs gen_pcap (the pcap dpgen replays)")
        gen_pcap = expand(gv, gl)
        if not os.path.isabs(gen_pcap):
            gen_pcap = str(bench_dir / gen_pcap)
        rv, rl = one("gen_rate")
        if rv is not None:
            if not GEN_RATE_RE.match(rv):
                raise err(rl, f"gen_rate '{rv}': expected max, N[k|M|G]pps or N[k|M|G]bps "
                              "(e.g. 12Mpps, 5Gbps)")
            gen_rate = rv

    rx_port = get_int("rx_port", 0, 0, MAX_PORTS - 1)
    tv, tl = one("tx_ports")
    if tv is None:
        tx_ports = [1, 2]
    else:
        try:
            tx_ports = [int(x, 10) for x in _split_list(tv)]
        except ValueError:
            raise err(tl, f"tx_ports '{tv}': expected port numbers, e.g. 1, 2") from None
        if not tx_ports or any(not 0 <= p < MAX_PORTS for p in tx_ports):
            raise err(tl, f"tx_ports '{tv}': expected port numbers 0..{MAX_PORTS - 1}")
        if len(set(tx_ports)) != len(tx_ports):
            raise err(tl, f"tx_ports '{tv}': a port is listed twice")

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
                       gen_pcap=gen_pcap, gen_rate=gen_rate,
                       lines={k: v[0][1] for k, v in bench.items()})


def describe(b: BenchConfig) -> str:
    out = [f"bench {b.name}: {b.description}".rstrip(": "),
           f"  file      {b.path}",
           f"  config    {b.config}",
           f"  rig       {b.rig}"
           + (f"  pcap {b.pcap}" if b.rig == "pcap" else f"  gen_pcap {b.gen_pcap} "
              f"gen_rate {b.gen_rate}"),
           f"  ports     rx {b.rx_port}  tx {','.join(map(str, b.tx_ports))}",
           f"  runs      {b.repetitions} x {b.duration} s (warmup {b.warmup:g} s, "
           f"cooldown {b.cooldown:g} s), round robin",
           f"  anchors   {', '.join(b.anchors) or 'none'}",
           f"  baseline  {b.baseline}"]
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
