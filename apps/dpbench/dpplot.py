#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpplot -- dpbench's plots, with matplotlib's Agg backend (no display).

Every plot is written twice, BASE.png and BASE.svg; each function returns the
paths it wrote.

    timeline(runs, base)          Mpps every second of every run, one colour per program
    distribution(sets, base)      per-run values per program: box plot + the points
    node_stack(nodes, base)       cycles per received packet by graph node, stacked per program
    latency_cdf(lat, base)        CDF of per-packet latencies (lists or histograms),
                                  p50/p99/p99.9 marked
    offered_load(curves, base)    RFC 2544: throughput and loss against offered load, one
                                  line per variant, the zero-loss rate found marked

    python3 dpplot.py results.json [OUTDIR]   redraw a dpbench run's plots

matplotlib comes from Debian's python3-matplotlib.  When this interpreter
is not Debian's (a pyenv python3 first in PATH), Debian's dist-packages
folder is tried too, when its Python version is the same.
"""

import json
import math
import os
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

DEBIAN_DIST = "/usr/lib/python3/dist-packages"
FORMATS = ("png", "svg")


class PlotUnavailable(Exception):
    pass


_plt = None


def pyplot():
    """matplotlib.pyplot on the Agg backend; PlotUnavailable if missing."""
    global _plt
    if _plt is not None:
        return _plt
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.environ.setdefault("MPLCONFIGDIR", os.path.join(
        os.environ.get("TMPDIR", "/tmp"), f"dpplot-mpl-{os.getuid()}"))
    try:
        import matplotlib
    except ImportError:
        if os.path.isdir(DEBIAN_DIST) and DEBIAN_DIST not in sys.path and _debian_same_version():
            sys.path.append(DEBIAN_DIST)
            try:
                import matplotlib
            except ImportError as e:
                raise PlotUnavailable(f"matplotlib: {e} (apt install python3-matplotlib)") from None
        else:
            raise PlotUnavailable("matplotlib not found for " + sys.executable +
                                  " (apt install python3-matplotlib, run with /usr/bin/python3)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    _plt = plt
    return plt


def _debian_same_version() -> bool:
    want = f"python{sys.version_info.major}.{sys.version_info.minor}"
    return os.path.exists(f"/usr/lib/{want}") or os.path.exists(f"/usr/bin/{want}")


def _save(fig, base) -> List[str]:
    base = Path(base)
    base.parent.mkdir(parents=True, exist_ok=True)
    out = []
    for ext in FORMATS:
        p = base.with_name(base.name + "." + ext)
        fig.savefig(p, dpi=110, bbox_inches="tight")
        out.append(str(p))
    _plt.close(fig)
    return out


def _colors(names: Sequence[str]) -> Dict[str, str]:
    cyc = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf"]
    return {n: cyc[i % len(cyc)] for i, n in enumerate(names)}


def timeline(runs: Sequence[dict], base, title: str = "", ylabel: str = "Mpps forwarded"
             ) -> List[str]:
    """runs: [{"program", "repetition", "t": [s...], "y": [...]}]: one line per run."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9, 4.5))
    names = list(dict.fromkeys(r["program"] for r in runs))
    col = _colors(names)
    shown = set()
    for r in runs:
        if not r.get("y"):
            continue
        lab = r["program"] if r["program"] not in shown else None
        shown.add(r["program"])
        ax.plot(r["t"], r["y"], marker=".", linewidth=1, color=col[r["program"]], label=lab,
                alpha=0.85)
    ax.set_xlabel("seconds into the measurement")
    ax.set_ylabel(ylabel)
    ax.set_title(title or "per-second rate, every run")
    ax.grid(True, alpha=0.3)
    if shown:
        ax.legend(fontsize="small", loc="best")
    return _save(fig, base)


def distribution(sets: Dict[str, Sequence[float]], base, ylabel: str, title: str = ""
                 ) -> List[str]:
    """sets: program -> per-run values (in the order to draw). Box + points."""
    plt = pyplot()
    names = [n for n, v in sets.items() if v]
    fig, ax = plt.subplots(figsize=(max(5, 1.2 * len(names) + 2), 4.5))
    if names:
        data = [list(sets[n]) for n in names]
        ax.boxplot(data, widths=0.5, showmeans=True, medianprops={"color": "black"},
                   meanprops={"marker": "D", "markerfacecolor": "white",
                              "markeredgecolor": "black"})
        col = _colors(names)
        for i, (n, vals) in enumerate(zip(names, data), 1):
            k = len(vals)
            # deterministic jitter: spread the points evenly across the box
            xs = [i + (0.0 if k == 1 else -0.15 + 0.3 * j / (k - 1)) for j in range(k)]
            ax.scatter(xs, vals, s=18, color=col[n], zorder=3)
        ax.set_xticks(range(1, len(names) + 1))
        ax.set_xticklabels(names, rotation=20, ha="right", fontsize="small")
    ax.set_ylabel(ylabel)
    ax.set_title(title or ylabel)
    ax.grid(True, axis="y", alpha=0.3)
    return _save(fig, base)


def node_stack(nodes: Dict[str, Dict[str, float]], base, title: str = "") -> List[str]:
    """nodes: program -> {node: cycles per received packet}; stacked bars."""
    plt = pyplot()
    progs = [p for p, v in nodes.items() if v]
    order: List[str] = []
    for p in progs:
        for n in nodes[p]:
            if n not in order:
                order.append(n)
    fig, ax = plt.subplots(figsize=(max(5, 1.2 * len(progs) + 3), 5))
    col = _colors(order)
    bottoms = [0.0] * len(progs)
    for n in order:
        vals = [nodes[p].get(n) or 0.0 for p in progs]
        if not any(vals):
            continue
        ax.bar(range(len(progs)), vals, bottom=bottoms, label=n, color=col[n], width=0.6)
        bottoms = [b + v for b, v in zip(bottoms, vals)]
    for i, total in enumerate(bottoms):
        if total:
            ax.text(i, total, f"{total:.1f}", ha="center", va="bottom", fontsize="small")
    ax.set_xticks(range(len(progs)))
    ax.set_xticklabels(progs, rotation=20, ha="right", fontsize="small")
    ax.set_ylabel("cycles per received packet")
    ax.set_title(title or "cycles per packet by graph node (median over runs)")
    ax.grid(True, axis="y", alpha=0.3)
    if order:
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _save(fig, base)


def percentile(sorted_vals: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (the smallest value with at least p% at or below it)."""
    if not sorted_vals:
        return math.nan
    # round first: 99.9 / 100 * 1000 is 999.0000000000001 in binary floating point
    k = max(1, math.ceil(round(p / 100.0 * len(sorted_vals), 9)))
    return sorted_vals[min(k, len(sorted_vals)) - 1]


def latency_summary(values: Sequence[float]) -> dict:
    s = sorted(values)
    if not s:
        return {"n": 0}
    mean = math.fsum(s) / len(s)
    jitter = (math.fsum(abs(b - a) for a, b in zip(values, values[1:])) / (len(values) - 1)
              if len(values) > 1 else 0.0)
    return {"n": len(s), "min": s[0], "p50": percentile(s, 50), "p90": percentile(s, 90),
            "p99": percentile(s, 99), "p99.9": percentile(s, 99.9), "max": s[-1],
            "mean": mean, "jitter": jitter}


def _weighted(vals) -> List[tuple]:
    """[(latency, count)] sorted by latency, from a list of latencies or a
    histogram {latency: count} (e.g. bucket lower bounds)."""
    if isinstance(vals, dict):
        return sorted((float(k), int(c)) for k, c in vals.items() if int(c) > 0)
    return [(float(v), 1) for v in sorted(vals)]


def _weighted_percentile(pairs: List[tuple], total: int, p: float) -> float:
    need = max(1, math.ceil(round(p / 100.0 * total, 9)))
    cum = 0
    for v, c in pairs:
        cum += c
        if cum >= need:
            return v
    return pairs[-1][0]


def latency_cdf(latencies: Dict[str, object], base, unit: str = "us",
                title: str = "", log_x: Optional[bool] = None) -> List[str]:
    """latencies: label -> per-packet latencies (a list, any order) or a
    histogram {latency: count}. Empirical CDF per label, with p50/p99/p99.9
    marked (nearest rank). log_x: None = when max/min > 100."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    col = _colors(list(latencies))
    lo, hi = math.inf, 0.0
    for lab, vals in latencies.items():
        pairs = _weighted(vals)
        total = sum(c for _, c in pairs)
        if not total:
            continue
        xs, ys, cum = [], [], 0
        for v, c in pairs:
            cum += c
            xs.append(v)
            ys.append(cum / total)
        pct = {p: _weighted_percentile(pairs, total, p) for p in (50, 99, 99.9)}
        ax.step(xs, ys, where="post", color=col[lab],
                label=f"{lab} (n={total}, p50 {pct[50]:.3g}, p99 {pct[99]:.3g})")
        for p, mk in ((50, "o"), (99, "s"), (99.9, "^")):
            ax.plot([pct[p]], [p / 100.0], marker=mk, color=col[lab], linestyle="")
        lo, hi = min(lo, xs[0]), max(hi, xs[-1])
    if log_x is None:
        log_x = lo > 0 and hi / lo > 100
    if log_x and lo > 0:
        ax.set_xscale("log")
    ax.set_ylim(0, 1.005)
    ax.set_xlabel(f"latency ({unit})")
    ax.set_ylabel("fraction of packets")
    ax.set_title(title or "per-packet latency CDF (markers: p50, p99, p99.9)")
    ax.grid(True, alpha=0.3)
    if latencies:
        ax.legend(fontsize="small", loc="lower right")
    return _save(fig, base)


def offered_load(curves: Dict[str, Sequence[dict]], base, found: Optional[Dict[str, float]] = None,
                 title: str = "") -> List[str]:
    """curves: variant -> points {"offered_pps", "tx_pps", "rx_pps", "loss_pct", "passed"}
    (rfc2544.offered_load_curve()); found: variant -> zero-loss rate (pps).  Throughput
    (what came back) against offered load, with y = x dashed, what dpgen managed to send
    dotted, failing points hollow, the zero-loss rate a vertical line; loss % below."""
    plt = pyplot()
    fig, (ax, axl) = plt.subplots(2, 1, figsize=(8, 6), sharex=True,
                                  gridspec_kw={"height_ratios": [3, 1]})
    col = _colors(list(curves))
    top = 0.0
    for name, pts in curves.items():
        pts = sorted(pts, key=lambda p: p["offered_pps"])
        if not pts:
            continue
        xs = [p["offered_pps"] / 1e6 for p in pts]
        top = max(top, max(xs), max(p["rx_pps"] / 1e6 for p in pts))
        c = col[name]
        ax.plot(xs, [p["rx_pps"] / 1e6 for p in pts], color=c, linewidth=1.5,
                label=f"{name}: received")
        ax.plot(xs, [p["tx_pps"] / 1e6 for p in pts], color=c, linewidth=1, linestyle=":",
                label=f"{name}: sent by dpgen")
        for p, x in zip(pts, xs):
            ax.plot([x], [p["rx_pps"] / 1e6], marker="o", color=c,
                    markerfacecolor=c if p["passed"] else "white", linestyle="")
        axl.plot(xs, [p["loss_pct"] for p in pts], color=c, marker=".", linewidth=1)
        if found and found.get(name):
            f = found[name] / 1e6
            ax.axvline(f, color=c, linestyle="--", linewidth=0.8, alpha=0.8)
            ax.annotate(f"zero loss {f:.3g} Mpps", (f, 0), textcoords="offset points",
                        xytext=(3, 4), fontsize="small", color=c, rotation=90)
    if top:
        ax.plot([0, top], [0, top], color="grey", linestyle="--", linewidth=0.8,
                label="received = offered")
        ax.set_xlim(0, top * 1.03)
        ax.set_ylim(0, top * 1.08)
    ax.set_ylabel("throughput (Mpps)")
    ax.set_title(title or "throughput against offered load (filled: no loss, full rate)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="upper left")
    axl.set_xlabel("offered load (Mpps)")
    axl.set_ylabel("loss %")
    axl.grid(True, alpha=0.3)
    return _save(fig, base)


def latency_hists(res: dict) -> Dict[str, Dict[float, int]]:
    """program -> {latency us (top of its bucket): count}, the measured parts of a
    dpbench run's dpgen histograms merged over the program's runs."""
    out: Dict[str, Dict[float, int]] = {}
    for r in res.get("runs", []):
        m = ((r.get("gen") or {}).get("measured") or {}) if r.get("ok") else {}
        for _, high, count in m.get("latency_hist_ns") or []:
            h = out.setdefault(r["program"], {})
            h[high / 1e3] = h.get(high / 1e3, 0) + int(count)
    return out


def plots_from_results(res: dict, outdir) -> List[str]:
    """All of a dpbench run's plots from its results JSON (see dpbench.py)."""
    outdir = Path(outdir)
    out: List[str] = []
    name = res.get("bench", {}).get("name", "bench")
    progs = [p["name"] for p in res.get("programs", [])]
    runs = []
    for r in res.get("runs", []):
        ps = r.get("per_second") or {}
        if ps.get("mpps"):
            runs.append({"program": r["program"], "repetition": r.get("repetition"),
                         "t": ps.get("t", list(range(1, len(ps["mpps"]) + 1))),
                         "y": ps["mpps"]})
    if runs:
        out += timeline(runs, outdir / "timeline-mpps", title=f"{name}: Mpps every second")
    metrics = res.get("metrics", {})
    for m, meta in metrics.items():
        sets = {p: [r["median"][m] for r in res.get("runs", [])
                    if r.get("ok") and r["program"] == p and r.get("median", {}).get(m) is not None]
                for p in progs}
        if any(sets.values()):
            out += distribution(sets, outdir / f"dist-{meta.get('file', m)}",
                                ylabel=meta.get("label", m),
                                title=f"{name}: {meta.get('label', m)} (per-run medians)")
    nodes = {p: v for p, v in res.get("nodes", {}).items() if v}
    if nodes:
        stack = {p: {n: x.get("cycles_per_rx_pkt") for n, x in v.items()} for p, v in nodes.items()}
        out += node_stack(stack, outdir / "nodes-cycles",
                          title=f"{name}: cycles per packet by node")
    lat = latency_hists(res)
    if lat:
        out += latency_cdf(lat, outdir / "latency-cdf",
                           title=f"{name}: dpgen -> dpfwd -> dpgen latency (markers: p50, p99, "
                                 "p99.9)")
    return out


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help") or len(argv) > 2:
        print("usage: dpplot.py results.json [OUTDIR]  (default OUTDIR: plots/ next to it)",
              file=sys.stderr)
        return 2
    src = Path(argv[0])
    try:
        res = json.loads(src.read_text())
    except (OSError, ValueError) as e:
        print(f"dpplot: {src}: {e}", file=sys.stderr)
        return 2
    try:
        for p in plots_from_results(res, Path(argv[1]) if len(argv) > 1 else src.parent / "plots"):
            print(p)
    except PlotUnavailable as e:
        print(f"dpplot: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
