#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpstat -- ministat-style statistics for benchmark samples.

    dpstat.py [-c CONF] [-C COL] [-d DELIMS] [-A] [-n] [-w WIDTH] [FILE ...]

Reads one number a line from each FILE (``-`` or none: standard input), like
FreeBSD's ministat(1), and prints for each set N, min, max, median, average and
standard deviation, and for every set after the first a two-sample Student's
t test against the first (pooled variance) at the chosen confidence:

    Difference at 95.0% confidence
    \t9 +/- 2.306
    \t300% +/- 76.8667%
    \t(Student's t, pooled s = 1.58114)

or ``No difference proven at 95.0% confidence``.

The numbers are ministat's, so the two can be checked against each other:

- median is the element at index N/2 of the sorted set (for an even N the
  upper of the two middle values, as ministat prints it);
- stddev is the sample standard deviation (N - 1);
- the t test: d = avg(set) - avg(first), pooled
  s = sqrt(((n1-1) s1^2 + (n2-1) s2^2) / (n1 + n2 - 2)),
  e = t(df) * s * sqrt(1/n1 + 1/n2) with df = n1 + n2 - 2, and a difference
  is proven when |d| > e; the relative lines divide by avg(first);
- t(df) is the two-sided critical value of Student's t distribution, rounded
  to 3 decimals as in printed tables, for df <= 100, and the normal
  distribution's for df > 100 (ministat's table does the same).  dpstat
  computes the values itself (inverse of the t CDF through the regularized
  incomplete beta function).  One deliberate difference: ministat's "99.5%"
  column holds the 99.8% values (t(0.999)); dpstat's 99.5% is t(0.9975).

The CLI wants at least 3 values per set (ministat's rule); the library
functions work from 2 (the t test then has df >= 2).

Exit status: 0, or 2 for bad arguments or data (file:line named).
Python 3 standard library only.
"""

import argparse
import math
import sys
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, List, Optional, Sequence, TextIO

CONFIDENCES = (80.0, 90.0, 95.0, 98.0, 99.0, 99.5)
TABLE_MAX_DF = 100          # beyond this, the normal distribution's value
SYMBOLS = "x+*%#@O" + "abcdefghijklmnopqrstuvwyz"
DEFAULT_WIDTH = 74
MIN_POINTS_CLI = 3


# --------------------------------------------------------------------------
# Student's t distribution
# --------------------------------------------------------------------------

def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10000):
        m2 = 2 * m
        # even step
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        # odd step
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def betainc_reg(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta function I_x(a, b), 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(lbeta + a * math.log(x) + b * math.log1p(-x))
    # the continued fraction converges fast for x < (a+1)/(a+b+2); use the
    # symmetry I_x(a,b) = 1 - I_{1-x}(b,a) on the other side
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with df degrees of freedom."""
    if df <= 0:
        raise ValueError("df must be > 0")
    tail = 0.5 * betainc_reg(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def normal_cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _invert(cdf, p: float) -> float:
    """x with cdf(x) = p for an increasing cdf symmetric around 0."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must be in (0, 1)")
    if p < 0.5:
        return -_invert(cdf, 1.0 - p)
    lo, hi = 0.0, 1.0
    while cdf(hi) < p:
        lo, hi = hi, hi * 2.0
        if hi > 1e12:
            return math.inf
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if mid in (lo, hi):
            break
        if cdf(mid) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


@lru_cache(maxsize=None)
def t_quantile(p: float, df: float) -> float:
    """Inverse CDF of Student's t: the t with P(T <= t) = p."""
    return _invert(lambda x: t_cdf(x, df), p)


@lru_cache(maxsize=None)
def normal_quantile(p: float) -> float:
    return _invert(normal_cdf, p)


def t_critical(confidence: float, df: int) -> float:
    """Two-sided critical value at CONFIDENCE percent, as a printed table has
    it: rounded to 3 decimals, the normal value beyond df 100."""
    if df < 1:
        raise ValueError("df must be >= 1")
    p = 1.0 - (1.0 - confidence / 100.0) / 2.0
    v = normal_quantile(p) if df > TABLE_MAX_DF else t_quantile(p, float(df))
    return round(v, 3)


def t_table(confidence: float, max_df: int = TABLE_MAX_DF) -> List[float]:
    """Critical values for df = 1..max_df (index 0 is df 1)."""
    return [t_critical(confidence, df) for df in range(1, max_df + 1)]


# --------------------------------------------------------------------------
# Data sets
# --------------------------------------------------------------------------

class DataError(Exception):
    pass


class Dataset:
    """A named set of numbers; statistics as ministat prints them."""

    def __init__(self, name: str, values: Iterable[float]):
        self.name = name
        self.values = [float(v) for v in values]
        self.sorted = sorted(self.values)

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def min(self) -> float:
        return self.sorted[0]

    @property
    def max(self) -> float:
        return self.sorted[-1]

    @property
    def median(self) -> float:
        return self.sorted[self.n // 2]

    @property
    def avg(self) -> float:
        return math.fsum(self.values) / self.n

    @property
    def var(self) -> float:
        if self.n < 2:
            return 0.0
        a = self.avg
        return math.fsum((v - a) * (v - a) for v in self.values) / (self.n - 1)

    @property
    def stddev(self) -> float:
        return math.sqrt(self.var)

    def summary(self) -> dict:
        if not self.n:
            return {"n": 0}
        return {"n": self.n, "min": self.min, "max": self.max, "median": self.median,
                "avg": self.avg, "stddev": self.stddev}


@dataclass
class TTest:
    confidence: float
    df: int
    t: float             # critical value used
    diff: float          # avg(other) - avg(base)
    err: float           # half width of the confidence interval of diff
    pct: float           # diff in percent of avg(base)
    pct_err: float
    spool: float         # pooled standard deviation
    significant: bool

    def as_dict(self) -> dict:
        return dict(self.__dict__)

    def lines(self) -> List[str]:
        if not self.significant:
            return [f"No difference proven at {self.confidence:.1f}% confidence"]
        return [f"Difference at {self.confidence:.1f}% confidence",
                "\t%s +/- %s" % (_g(self.diff), _g(self.err)),
                "\t%s%% +/- %s%%" % (_g(self.pct), _g(self.pct_err)),
                "\t(Student's t, pooled s = %s)" % _g(self.spool)]


def _g(v: float) -> str:
    """C's %g, including inf/nan spelled as C prints them."""
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return "%g" % v


def _div(a: float, b: float) -> float:
    if b == 0.0:
        return math.nan if a == 0.0 else math.copysign(math.inf, a)
    return a / b


def ttest_stats(n1: int, avg1: float, sd1: float, n2: int, avg2: float, sd2: float,
                confidence: float = 95.0) -> Optional[TTest]:
    """The t test from summary numbers (set 1 is the base); None when a set
    has fewer than 2 values."""
    if confidence not in CONFIDENCES:
        raise ValueError(f"confidence {confidence} not one of {CONFIDENCES}")
    if n1 < 2 or n2 < 2:
        return None
    df = n1 + n2 - 2
    spool = math.sqrt(((n1 - 1) * sd1 * sd1 + (n2 - 1) * sd2 * sd2) / df)
    s = spool * math.sqrt(1.0 / n1 + 1.0 / n2)
    t = t_critical(confidence, df)
    diff = avg2 - avg1
    err = t * s
    return TTest(confidence=confidence, df=df, t=t, diff=diff, err=err,
                 pct=_div(diff * 100.0, avg1), pct_err=_div(err * 100.0, avg1),
                 spool=spool, significant=abs(diff) > err)


def ttest(base: Dataset, other: Dataset, confidence: float = 95.0) -> Optional[TTest]:
    """Two-sample Student's t test of OTHER against BASE, pooled variance;
    None when a set has fewer than 2 values."""
    if base.n < 2 or other.n < 2:
        if confidence not in CONFIDENCES:
            raise ValueError(f"confidence {confidence} not one of {CONFIDENCES}")
        return None
    return ttest_stats(base.n, base.avg, base.stddev, other.n, other.avg, other.stddev,
                       confidence)


# --------------------------------------------------------------------------
# Report, as ministat lays it out
# --------------------------------------------------------------------------

VITALS_HEADER = "    N           Min           Max        Median           Avg        Stddev"


def vitals_line(sym: str, ds: Dataset) -> str:
    return "%c %3d %13.8g %13.8g %13.8g %13.8g %13.8g" % (
        sym, ds.n, ds.min, ds.max, ds.median, ds.avg, ds.stddev)


def ascii_plot(sets: Sequence[Dataset], width: int = DEFAULT_WIDTH) -> List[str]:
    """Dots of every value, then per set |__A__| (avg +/- stddev) with M at
    the median, on one common scale."""
    inner = max(width, 10)
    lo = min(ds.min for ds in sets)
    hi = max(ds.max for ds in sets)
    span = hi - lo

    def col(v: float) -> int:
        if span == 0:
            return inner // 2
        c = int(round((v - lo) / span * (inner - 1)))
        return min(max(c, 0), inner - 1)

    stacks: List[List[str]] = [[] for _ in range(inner)]
    for i, ds in enumerate(sets):
        for v in ds.sorted:
            stacks[col(v)].append(SYMBOLS[i])
    height = max(len(s) for s in stacks)
    border = "+" + "-" * inner + "+"
    out = [border]
    for row in range(height - 1, -1, -1):
        out.append("|" + "".join(s[row] if len(s) > row else " " for s in stacks) + "|")
    for ds in sets:
        line = [" "] * inner
        if ds.n >= 2:
            a, b = col(ds.avg - ds.stddev), col(ds.avg + ds.stddev)
            for c in range(a, b + 1):
                line[c] = "_"
            line[a] = "|"
            line[b] = "|"
        line[col(ds.median)] = "M"
        line[col(ds.avg)] = "A"
        out.append("|" + "".join(line) + "|")
    out.append(border)
    return out


def report(sets: Sequence[Dataset], confidence: float = 95.0, width: int = DEFAULT_WIDTH,
           plot: bool = True, test: bool = True, legend: bool = True) -> str:
    """The whole ministat-style text: legend, plot, vitals and t tests."""
    sets = [ds for ds in sets]
    if len(sets) > len(SYMBOLS):
        raise ValueError(f"at most {len(SYMBOLS)} data sets")
    out: List[str] = []
    if legend:
        out += [f"{SYMBOLS[i]} {ds.name}" for i, ds in enumerate(sets)]
    nonempty = [ds for ds in sets if ds.n]
    if plot and nonempty:
        out += ascii_plot(nonempty, width)
    out.append(VITALS_HEADER)
    for i, ds in enumerate(sets):
        if not ds.n:
            out.append(f"{SYMBOLS[i]}   0   (no data)")
            continue
        out.append(vitals_line(SYMBOLS[i], ds))
        if test and i > 0 and sets[0].n:
            r = ttest(sets[0], ds, confidence)
            if r is None:
                out.append("No test: need at least 2 values in both sets")
            else:
                out += r.lines()
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------

def read_values(f: TextIO, name: str, column: int = 1, delims: str = " \t") -> List[float]:
    """Numbers from COLUMN (1-based) of each line; '#' lines and blank lines
    are skipped. Raises DataError naming name:line."""
    vals = []
    for lineno, line in enumerate(f, 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        fields = [s]
        for d in delims:
            fields = [p for f_ in fields for p in f_.split(d)]
        fields = [p for p in fields if p != ""]
        if len(fields) < column:
            raise DataError(f"{name}:{lineno}: no column {column} in '{s}'")
        try:
            v = float(fields[column - 1])
        except ValueError:
            raise DataError(f"{name}:{lineno}: invalid data '{fields[column - 1]}'") from None
        if math.isnan(v) or math.isinf(v):
            raise DataError(f"{name}:{lineno}: invalid data '{fields[column - 1]}'")
        vals.append(v)
    return vals


def _confidence(s: str) -> float:
    try:
        v = float(s.rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{s}' is not a number") from None
    if v not in CONFIDENCES:
        raise argparse.ArgumentTypeError(
            f"confidence {s} not one of {', '.join('%g' % c for c in CONFIDENCES)}")
    return v


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="dpstat.py",
                                 description="ministat-style statistics and Student's t test")
    ap.add_argument("-c", dest="confidence", type=_confidence, default=95.0,
                    help="confidence level: 80, 90, 95, 98, 99, 99.5 (default 95)")
    ap.add_argument("-C", dest="column", type=int, default=1, help="column to read (1-based)")
    ap.add_argument("-d", dest="delims", default=" \t",
                    help="column delimiters (default space, tab)")
    ap.add_argument("-A", dest="no_plot", action="store_true", help="statistics only, no plot")
    ap.add_argument("-n", dest="vitals_only", action="store_true",
                    help="summary statistics only: no plot, no t test")
    ap.add_argument("-w", dest="width", type=int, default=DEFAULT_WIDTH, help="plot width")
    ap.add_argument("files", nargs="*", help="one number a line; '-' or none: stdin")
    a = ap.parse_args(argv)
    if a.column < 1:
        ap.error("-C must be >= 1")
    if a.width < 12:
        ap.error("-w must be >= 12")
    files = a.files or ["-"]
    if len(files) > len(SYMBOLS):
        ap.error(f"at most {len(SYMBOLS)} files")
    sets = []
    try:
        for fn in files:
            if fn == "-":
                vals = read_values(sys.stdin, "<stdin>", a.column, a.delims)
            else:
                try:
                    with open(fn) as f:
                        vals = read_values(f, fn, a.column, a.delims)
                except OSError as e:
                    raise DataError(f"cannot read {fn}: {e.strerror}") from None
            if len(vals) < MIN_POINTS_CLI:
                raise DataError(f"data set {fn} must contain at least {MIN_POINTS_CLI} data points")
            sets.append(Dataset(fn, vals))
    except DataError as e:
        print(f"dpstat: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(report(sets, a.confidence, a.width, plot=not (a.no_plot or a.vitals_only),
                            test=not a.vitals_only))
    return 0


if __name__ == "__main__":
    sys.exit(main())
