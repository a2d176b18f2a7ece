#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rfc2544 -- throughput searches in the manner of RFC 2544 section 26.1, independent
of how a trial is run (dpbench.py runs them with dpgen and dpfwd over net_memif; the
tests run them on a model).

A trial offers one rate for a fixed time and counts what came back.  The trial
function is called as trial(rate_pps, seconds), rate_pps None meaning "as fast as
the generator can", and returns a dict:

    offered_pps     the rate asked for (None for the generator's maximum)
    tx_pps, rx_pps  what the generator sent and received, per second, over the trial
    sent, lost      frames of the trial (the generator's sequence numbers)
    gen             {"queue_full": TX bursts the queue to the DUT took only in part
                     (back-pressure), "behind_s": seconds the generator's pacing fell
                     behind (its CPU)}
    dut             the device under test's counters over the trial: {"imissed",
                     "rx_nombuf", "oerrors", "drops": {reason: n}}
    ... anything else (kept in the results as it is)

A trial passes when its loss is at most the loss tolerance (percent of the frames
sent, 0 as RFC 2544 asks) and the generator sent at least (100 - rate tolerance)
percent of the offered rate: on a rig with back-pressure (memif) a slow DUT makes
the sender wait instead of dropping, and the rate it could not offer counts as a
failure too.

    top_rate()           the top of the range: max_rate, or what the generator reaches
    offered_load_curve() N offered rates, top/N .. top, each run `repeats` times
    throughput_search()  binary search for the highest rate that passes, each rate run
                         `repeats` times (all must pass), the result validated by one
                         longer trial (a failure there lowers the bound and the search
                         goes on)
    bottleneck()         who limited a trial: dpgen or dpfwd, and the evidence

Python 3 standard library only.
"""

import math
import statistics
from typing import Callable, Dict, List, Optional, Tuple

Trial = Dict
TrialFn = Callable[[Optional[float], float], Trial]

# drop reasons that mean "the queue to the next hop was full": on the memif rig the
# next hop is dpgen's receive side, not dpfwd's own work
EGRESS_FULL_DROPS = ("tx_full",)


def loss_pct(t: Trial) -> float:
    sent = t.get("sent") or 0
    return 100.0 * (t.get("lost") or 0) / sent if sent else 0.0


def shortfall_pct(t: Trial) -> float:
    """How far the generator fell short of the offered rate, percent (0 at max rate)."""
    off = t.get("offered_pps")
    if not off:
        return 0.0
    return max(0.0, 100.0 * (off - (t.get("tx_pps") or 0.0)) / off)


def judge(t: Trial, loss_tolerance: float, rate_tolerance: float) -> Tuple[bool, str]:
    """(passed, why) for one trial."""
    lp, sp = loss_pct(t), shortfall_pct(t)
    if not t.get("sent"):
        return False, "nothing was sent"
    if lp > loss_tolerance:
        return False, f"loss {lp:.4g}% > {loss_tolerance:g}% ({t.get('lost')} of {t['sent']})"
    if sp > rate_tolerance:
        return False, (f"offered {t['offered_pps'] / 1e6:.4g} Mpps, sent only "
                       f"{t.get('tx_pps', 0) / 1e6:.4g} ({sp:.3g}% short > {rate_tolerance:g}%)")
    return True, (f"loss {lp:.4g}% <= {loss_tolerance:g}%"
                  + (f", sent {100 - sp:.4g}% of the offered rate" if t.get("offered_pps")
                     else ""))


def bottleneck(t: Trial, rate_tolerance: float = 1.0) -> Dict:
    """Who limited trial T, from the counters on both sides:

    dpfwd  it dropped packets (any reason but a full egress queue), or missed them on
           receive (imissed, rx_nombuf), or it did not drain its receive queue fast
           enough: the generator found that queue full (back-pressure) and fell short
    dpgen  it could not reach the offered rate with room in the queue (its CPU), or it
           did not drain what came back: dpfwd's queue towards it was full (tx_full)
    none   the trial passed its tolerances on both counts
    unknown  packets were lost and neither side counted why

    Returns {"who", "where", "detail", "evidence": {...}}."""
    dut = t.get("dut") or {}
    gen = t.get("gen") or {}
    drops = {k: v for k, v in (dut.get("drops") or {}).items() if v}
    egress = sum(v for k, v in drops.items() if k in EGRESS_FULL_DROPS) + (dut.get("oerrors") or 0)
    own = {k: v for k, v in drops.items() if k not in EGRESS_FULL_DROPS}
    rx_miss = (dut.get("imissed") or 0) + (dut.get("rx_nombuf") or 0)
    qfull = gen.get("queue_full") or 0
    behind = gen.get("behind_s") or 0.0
    lost = t.get("lost") or 0
    short = shortfall_pct(t)
    ev = {"lost": lost, "loss_pct": loss_pct(t), "shortfall_pct": short,
          "dpfwd_drops": own, "dpfwd_rx_missed": rx_miss, "dpfwd_egress_full": egress,
          "dpgen_queue_full": qfull, "dpgen_behind_s": behind}

    def out(who, where, detail):
        return {"who": who, "where": where, "detail": detail, "evidence": ev}

    if lost:
        # the biggest explanation of the loss wins; all of them are in the detail
        cands = []
        if own:
            cands.append((sum(own.values()), "dpfwd", "dpfwd-drops", "dpfwd dropped " + ", ".join(
                f"{k} {v}" for k, v in sorted(own.items(), key=lambda x: -x[1]))))
        if rx_miss:
            cands.append((rx_miss, "dpfwd", "dpfwd-rx",
                          f"dpfwd missed {rx_miss} on receive (imissed {dut.get('imissed') or 0}, "
                          f"rx_nombuf {dut.get('rx_nombuf') or 0})"))
        if egress:
            cands.append((egress, "dpgen", "dpgen-rx",
                          f"dpfwd's queue back to dpgen was full {egress} times (tx_full/oerrors): "
                          "dpgen's receive side did not keep up"))
        if not cands:
            return out("unknown", "unaccounted",
                       f"{lost} lost and neither dpfwd nor dpgen counted a drop")
        cands.sort(key=lambda c: -c[0])
        return out(cands[0][1], cands[0][2], "; ".join(c[3] for c in cands))
    if short > rate_tolerance:
        if qfull:
            return out("dpfwd", "dpfwd-backpressure",
                       f"dpgen sent {100 - short:.3g}% of the offered rate: dpfwd's receive queue "
                       f"was full ({qfull} partial TX bursts), dpfwd did not take the packets "
                       "fast enough")
        return out("dpgen", "dpgen-tx",
                   f"dpgen sent only {100 - short:.3g}% of the offered rate with room in the "
                   f"queue (its pacing fell behind {behind:.3g} s): the generator's limit")
    return out("none", "none", "no loss, full offered rate")


# --------------------------------------------------------------------------
# The searches
# --------------------------------------------------------------------------

class Budget:
    """Counts trials against max_trials (the curve has none)."""

    def __init__(self, max_trials: Optional[int]):
        self.max = max_trials
        self.used = 0

    def left(self) -> bool:
        return self.max is None or self.used < self.max


def _run(trial: TrialFn, rate: Optional[float], secs: float, phase: str, log, record: List,
         loss_tolerance: float, rate_tolerance: float, budget: Optional[Budget] = None) -> Trial:
    t = dict(trial(rate, secs))
    t.setdefault("offered_pps", rate)
    t["phase"] = phase
    t["seconds"] = secs
    ok, why = judge(t, loss_tolerance, rate_tolerance)
    t["passed"], t["why"] = ok, why
    t["bottleneck"] = bottleneck(t, rate_tolerance)
    t["n"] = len(record) + 1
    record.append(t)
    if budget:
        budget.used += 1
    if log:
        off = "max" if rate is None else f"{rate / 1e6:.4f} Mpps"
        log(f"  trial {t['n']:>3} {phase:<9} offered {off:>14}  "
            f"sent {t.get('tx_pps', 0) / 1e6:8.4f}"
            f"  back {t.get('rx_pps', 0) / 1e6:8.4f} Mpps  loss {loss_pct(t):8.4g}%  "
            f"{'pass' if ok else 'FAIL'}"
            + ("" if ok else f"  [{t['bottleneck']['who']}: {t['bottleneck']['detail']}]")
            + (f"  {t['warning']}" if t.get("warning") else ""))
    return t


def _rate_passes(trial, rate, secs, repeats, phase, log, record, lt, rt, budget
                 ) -> Tuple[bool, List[Trial]]:
    """Run RATE up to REPEATS times; stop at the first failure."""
    got = []
    for _ in range(repeats):
        t = _run(trial, rate, secs, phase, log, record, lt, rt, budget)
        got.append(t)
        if not t["passed"]:
            return False, got
    return True, got


def top_rate(trial: TrialFn, max_rate: Optional[float], trial_s: float, repeats: int,
             loss_tolerance: float = 0.0, rate_tolerance: float = 1.0, log=None,
             record: Optional[List] = None) -> Dict:
    """The top of the range.  max_rate None: run the generator flat out REPEATS times;
    the top is the median rate it sent.  Otherwise max_rate itself, run REPEATS times.
    Returns {"rate_pps", "passed" (every trial), "trials"}."""
    record = [] if record is None else record
    got = [_run(trial, max_rate, trial_s, "top", log, record, loss_tolerance, rate_tolerance)
           for _ in range(repeats)]
    passed = all(t["passed"] for t in got)
    if max_rate is None:
        rate = statistics.median(t.get("tx_pps") or 0.0 for t in got)
    else:
        rate = max_rate
    return {"rate_pps": rate, "passed": passed, "generator_max": max_rate is None,
            "trials": got}


def curve_rates(top: float, points: int) -> List[float]:
    """POINTS rates evenly spaced from top/POINTS to TOP (whole packets per second)."""
    return [float(math.floor(top * k / points)) for k in range(1, points + 1)]


def offered_load_curve(trial: TrialFn, top: float, points: int, trial_s: float, repeats: int,
                       loss_tolerance: float = 0.0, rate_tolerance: float = 1.0, log=None,
                       record: Optional[List] = None) -> List[Dict]:
    """Throughput against offered load: each of curve_rates(top, points) run REPEATS
    times (all of them, pass or fail).  Per point the medians of the trials' rates and
    loss, whether every trial passed, and the bottleneck of the worst one."""
    record = [] if record is None else record
    out = []
    for rate in curve_rates(top, points):
        got = [_run(trial, rate, trial_s, "curve", log, record, loss_tolerance, rate_tolerance)
               for _ in range(repeats)]
        worst = max(got, key=lambda t: (not t["passed"], loss_pct(t), shortfall_pct(t)))
        out.append({
            "offered_pps": rate,
            "tx_pps": statistics.median(t.get("tx_pps") or 0.0 for t in got),
            "rx_pps": statistics.median(t.get("rx_pps") or 0.0 for t in got),
            "rx_gbps": statistics.median(t.get("rx_gbps") or 0.0 for t in got),
            "loss_pct": statistics.median(loss_pct(t) for t in got),
            "passed": all(t["passed"] for t in got),
            "bottleneck": worst["bottleneck"] if not worst["passed"] else None,
            "trials": [t["n"] for t in got],
        })
    return out


def converged(lo: float, hi: float, resolution: Tuple[str, float]) -> bool:
    kind, v = resolution
    width = hi * v / 100.0 if kind == "pct" else v
    return hi - lo <= max(width, 1.0)


def throughput_search(trial: TrialFn, top: Dict, min_rate: float = 0.0,
                      resolution: Tuple[str, float] = ("pct", 1.0), loss_tolerance: float = 0.0,
                      rate_tolerance: float = 1.0, trial_s: float = 5.0, repeats: int = 1,
                      validate_s: float = 0.0, max_trials: int = 40, log=None,
                      record: Optional[List] = None) -> Dict:
    """The highest rate in [min_rate, top] whose trials all pass (RFC 2544 26.1), by
    binary search: lo passes (min_rate is taken to), hi fails.  TOP is top_rate()'s
    result.  With validate_s, the rate found is run once more for validate_s seconds;
    when that fails it becomes the new hi and the search goes on below it.

    Returns {"rate_pps", "found" (a rate above min_rate passed), "converged", "validated",
    "limited_by" (bottleneck(): of the lowest failing trial above the rate found, or
    dpgen when even the top passed), "lo_pps", "hi_pps", "trials_used", "best_trial"}."""
    record = [] if record is None else record
    budget = Budget(max_trials)
    budget.used = len(top["trials"])
    res: Dict = {"resolution": list(resolution), "loss_tolerance_pct": loss_tolerance,
                 "rate_tolerance_pct": rate_tolerance, "top_pps": top["rate_pps"]}
    if top["passed"]:
        # nothing failed: the answer is the top, and the top is where the range ends
        t = top["trials"][-1]
        res.update({"rate_pps": top["rate_pps"], "found": True, "converged": True,
                    "validated": None, "lo_pps": top["rate_pps"], "hi_pps": None,
                    "best_trial": t["n"], "trials_used": budget.used})
        if top["generator_max"] and backpressured(t):
            res["limited_by"] = {"who": "dpfwd", "where": "dpfwd-backpressure",
                                 "detail": "flat out, dpgen found dpfwd's receive queue full "
                                           f"({t['gen']['queue_full']} partial TX bursts): the "
                                           "rate it reached is what dpfwd took",
                                 "evidence": t["bottleneck"]["evidence"]}
        elif top["generator_max"]:
            res["limited_by"] = {"who": "dpgen", "where": "dpgen-tx",
                                 "detail": "dpgen's maximum rate passed with no loss: the "
                                           "generator is the limit, dpfwd may do more",
                                 "evidence": t["bottleneck"]["evidence"]}
        else:
            res["limited_by"] = {"who": "none", "where": "max_rate",
                                 "detail": "max_rate passed: the search range ends there",
                                 "evidence": t["bottleneck"]["evidence"]}
        return res

    lo, hi = min_rate, top["rate_pps"]
    if lo >= hi:
        lo = min_rate = 0.0
    fail_at = {hi: [t for t in top["trials"] if not t["passed"]][-1]}
    passed_at: Dict[float, Trial] = {}
    validated = None
    while not converged(lo, hi, resolution) and budget.left():
        mid = float(math.floor((lo + hi) / 2))
        if mid <= lo or mid >= hi:
            break
        ok, got = _rate_passes(trial, mid, trial_s, repeats, "search", log, record,
                               loss_tolerance, rate_tolerance, budget)
        if ok:
            lo, passed_at[mid] = mid, got[-1]
        else:
            hi, fail_at[mid] = mid, got[-1]
    if validate_s and lo > min_rate and budget.left():
        lo, hi, validated = _validate(trial, lo, hi, min_rate, resolution, validate_s, log,
                                      record, loss_tolerance, rate_tolerance, budget,
                                      passed_at, fail_at)
    above = min(r for r in fail_at if r > lo)
    res.update({"rate_pps": lo, "found": lo > min_rate, "lo_pps": lo, "hi_pps": hi,
                "converged": converged(lo, hi, resolution),
                "validated": validated if validate_s else None,
                "limited_by": fail_at[above]["bottleneck"], "lowest_failing_pps": above,
                "best_trial": passed_at[lo]["n"] if lo in passed_at else None,
                "trials_used": budget.used})
    return res


def _validate(trial, lo, hi, min_rate, resolution, validate_s, log, record, lt, rt, budget,
              passed_at, fail_at):
    """One long trial at LO.  When it fails, the short trials missed something: step
    down from it by 2, 4, 8 ... times the resolution until a long trial passes, then
    bisect between that and the lowest long failure with long trials.  Returns
    (lo, hi, validated)."""
    t = _run(trial, lo, validate_s, "validate", log, record, lt, rt, budget)
    if t["passed"]:
        passed_at[lo] = t
        return lo, hi, True
    hi, fail_at[lo] = lo, t
    kind, v = resolution
    step = 2 * (v / 100.0 if kind == "pct" else v / hi)
    lo = None
    while budget.left():
        cand = float(math.floor(hi * (1 - step)))
        if cand <= min_rate:
            break
        t = _run(trial, cand, validate_s, "validate", log, record, lt, rt, budget)
        if t["passed"]:
            lo, passed_at[cand] = cand, t
            break
        hi, fail_at[cand] = cand, t
        step = min(2 * step, 0.5)
    if lo is None:
        return min_rate, hi, False
    while not converged(lo, hi, resolution) and budget.left():
        mid = float(math.floor((lo + hi) / 2))
        if mid <= lo or mid >= hi:
            break
        t = _run(trial, mid, validate_s, "validate", log, record, lt, rt, budget)
        if t["passed"]:
            lo, passed_at[mid] = mid, t
        else:
            hi, fail_at[mid] = mid, t
    return lo, hi, True


def backpressured(t: Trial, share: float = 0.01) -> bool:
    """The generator found the queue to dpfwd full in at least SHARE of its bursts
    (taken as 32 packets each)."""
    q = (t.get("gen") or {}).get("queue_full") or 0
    return q > 0 and q * 32 >= share * max(1, t.get("sent") or 0)


def run(trial: TrialFn, max_rate: Optional[float] = None, min_rate: float = 0.0,
        resolution: Tuple[str, float] = ("pct", 1.0), loss_tolerance: float = 0.0,
        rate_tolerance: float = 1.0, trial_s: float = 5.0, repeats: int = 1,
        validate_s: float = 0.0, points: int = 10, max_trials: int = 40, curve: bool = True,
        search: bool = True, log=None) -> Dict:
    """The top, then the offered-load curve (curve=True), then the search (search=True).
    Returns {"top", "curve", "search", "trials"} (trials: every trial in order)."""
    record: List[Trial] = []
    top = top_rate(trial, max_rate, trial_s, repeats, loss_tolerance, rate_tolerance, log,
                   record)
    out = {"top": {k: v for k, v in top.items() if k != "trials"}, "curve": None, "search": None,
           "trials": record}
    out["top"]["trials"] = [t["n"] for t in top["trials"]]
    if curve:
        out["curve"] = offered_load_curve(trial, top["rate_pps"], points, trial_s, repeats,
                                          loss_tolerance, rate_tolerance, log, record)
    if search:
        out["search"] = throughput_search(trial, top, min_rate, resolution, loss_tolerance,
                                          rate_tolerance, trial_s, repeats, validate_s,
                                          max_trials, log, record)
    return out


def summary_text(name: str, r: Dict) -> str:
    """A few lines for one variant's results."""
    out = [f"== {name}"]
    top = r["top"]
    out.append(f"top of the range: {top['rate_pps'] / 1e6:.4f} Mpps "
               + ("(what dpgen reaches flat out)" if top.get("generator_max") else "(max_rate)"))
    if r.get("curve"):
        out.append(f"{'offered Mpps':>13} {'sent Mpps':>10} {'back Mpps':>10} {'Gbps':>7} "
                   f"{'loss %':>9}  result")
        for p in r["curve"]:
            bn = p["bottleneck"]
            out.append(f"{p['offered_pps'] / 1e6:13.4f} {p['tx_pps'] / 1e6:10.4f} "
                       f"{p['rx_pps'] / 1e6:10.4f} {p.get('rx_gbps') or 0:7.3f} "
                       f"{p['loss_pct']:9.4g}  "
                       + ("pass" if p["passed"] else f"FAIL ({bn['who']}: {bn['where']})"))
    s = r.get("search")
    if s:
        lb = s["limited_by"]
        if s["found"]:
            out.append(f"zero-loss throughput: {s['rate_pps'] / 1e6:.4f} Mpps"
                       + (f" (loss tolerance {s['loss_tolerance_pct']:g}%)"
                          if s["loss_tolerance_pct"] else "")
                       + ("" if s["hi_pps"] is None else
                          f", lowest failing rate {s['hi_pps'] / 1e6:.4f} Mpps")
                       + {True: ", validated", False: ", validation failed", None: ""}[
                           s["validated"]]
                       + ("" if s["converged"] else ", NOT converged (max_trials)"))
        else:
            out.append("zero-loss throughput: no rate above the minimum passed")
        out.append(f"bottleneck: {lb['who']} ({lb['where']}): {lb['detail']}")
        out.append(f"search trials: {s['trials_used']} (the top's, the search's and the "
                   "validation's; the curve's not counted)")
    return "\n".join(out) + "\n"
