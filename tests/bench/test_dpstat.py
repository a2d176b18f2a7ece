#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpstat: statistics and Student's t test against known values and against
the ministat binary (skipped when /usr/bin/ministat is not installed)."""

import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "apps" / "dpbench"))
import dpstat  # noqa: E402

DPSTAT = REPO / "apps" / "dpbench" / "dpstat.py"
MINISTAT = shutil.which("ministat")


class TestTDistribution(unittest.TestCase):
    def test_t_quantile_matches_closed_forms_for_df_1_and_2(self):
        for p in (0.6, 0.9, 0.95, 0.975, 0.995, 0.999):
            self.assertAlmostEqual(dpstat.t_quantile(p, 1.0), math.tan(math.pi * (p - 0.5)),
                                   places=6)
            a = 4 * p * (1 - p)
            self.assertAlmostEqual(dpstat.t_quantile(p, 2.0), (2 * p - 1) * math.sqrt(2 / a),
                                   places=8)

    def test_t_cdf_is_symmetric_and_half_at_zero(self):
        for df in (1, 3, 7.5, 30, 200):
            self.assertAlmostEqual(dpstat.t_cdf(0.0, df), 0.5, places=12)
            self.assertAlmostEqual(dpstat.t_cdf(1.3, df) + dpstat.t_cdf(-1.3, df), 1.0,
                                   places=12)

    def test_normal_quantile_known_values(self):
        self.assertAlmostEqual(dpstat.normal_quantile(0.975), 1.959963985, places=8)
        self.assertAlmostEqual(dpstat.normal_quantile(0.95), 1.644853627, places=8)
        self.assertAlmostEqual(dpstat.normal_quantile(0.5), 0.0, places=12)

    def test_t_table_95_known_values(self):
        # the printed table every statistics book has
        self.assertEqual(dpstat.t_table(95.0, 10),
                         [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228])
        self.assertEqual(dpstat.t_critical(95.0, 30), 2.042)
        self.assertEqual(dpstat.t_critical(95.0, 100), 1.984)
        self.assertEqual(dpstat.t_critical(95.0, 101), 1.96)     # normal beyond df 100
        self.assertEqual(dpstat.t_critical(90.0, 8), 1.86)
        self.assertEqual(dpstat.t_critical(99.0, 8), 3.355)
        self.assertEqual(dpstat.t_critical(80.0, 1000), 1.282)

    def test_t_critical_rejects_df_0(self):
        with self.assertRaises(ValueError):
            dpstat.t_critical(95.0, 0)


class TestDataset(unittest.TestCase):
    def test_vitals_of_1_to_5(self):
        d = dpstat.Dataset("a", [5, 3, 1, 4, 2])
        self.assertEqual((d.n, d.min, d.max, d.median, d.avg), (5, 1, 5, 3, 3))
        self.assertAlmostEqual(d.stddev, math.sqrt(2.5), places=12)

    def test_median_of_even_set_is_upper_middle_as_ministat(self):
        self.assertEqual(dpstat.Dataset("e", [4, 1, 3, 2]).median, 3)

    def test_single_value_has_zero_stddev_and_no_ttest(self):
        one = dpstat.Dataset("one", [7])
        self.assertEqual(one.stddev, 0.0)
        self.assertIsNone(dpstat.ttest(one, dpstat.Dataset("b", [1, 2, 3])))

    def test_ttest_proven_difference_matches_ministat_text(self):
        a = dpstat.Dataset("a", [1, 2, 3, 4, 5])
        c = dpstat.Dataset("c", [10, 11, 12, 13, 14])
        r = dpstat.ttest(a, c)
        self.assertTrue(r.significant)
        self.assertEqual(r.df, 8)
        self.assertEqual(r.t, 2.306)
        self.assertEqual(r.lines(), ["Difference at 95.0% confidence",
                                     "\t9 +/- 2.306",
                                     "\t300% +/- 76.8667%",
                                     "\t(Student's t, pooled s = 1.58114)"])

    def test_ttest_no_difference(self):
        a = dpstat.Dataset("a", [1, 2, 3, 4, 5])
        b = dpstat.Dataset("b", [2, 3, 4, 5, 9])
        r = dpstat.ttest(a, b)
        self.assertFalse(r.significant)
        self.assertEqual(r.lines(), ["No difference proven at 95.0% confidence"])

    def test_ttest_negative_difference_keeps_sign(self):
        r = dpstat.ttest(dpstat.Dataset("a", [10, 11, 12]), dpstat.Dataset("b", [1, 2, 3]))
        self.assertTrue(r.significant)
        self.assertEqual(r.lines()[1].split()[0], "-9")

    def test_iflib_report_summaries_show_no_difference(self):
        # the FreeBSD iflib forwarding report's ministat output (N, avg, stddev per tunable):
        # all three "No difference proven at 95.0% confidence"
        x = (5, 4637167.9, 65541.784)
        for other in ((5, 4657819.7, 24991.263), (5, 4569664.4, 35609.45),
                      (5, 4605739, 75307.632)):
            r = dpstat.ttest_stats(*x, *other)
            self.assertFalse(r.significant, other)

    def test_report_layout(self):
        text = dpstat.report([dpstat.Dataset("a", [1, 2, 3, 4, 5]),
                              dpstat.Dataset("c", [10, 11, 12, 13, 14])], width=40)
        lines = text.splitlines()
        self.assertEqual(lines[0], "x a")
        self.assertEqual(lines[1], "+ c")
        self.assertEqual(lines[2], "+" + "-" * 40 + "+")
        self.assertIn(dpstat.VITALS_HEADER, lines)
        self.assertIn("x   5             1             5             3             3     1.5811388",
                      lines)
        self.assertEqual(lines[-4], "Difference at 95.0% confidence")
        plot = lines[2:lines.index(dpstat.VITALS_HEADER)]
        self.assertTrue(all(len(row) == 42 for row in plot), plot)
        self.assertEqual(sum(1 for row in plot if "A" in row and "|_" in row), 2)


# ---------------------------------------------------------------------------
# against the ministat binary
# ---------------------------------------------------------------------------

VITALS_RE = re.compile(r"^(\S) +(\d+) +(\S+) +(\S+) +(\S+) +(\S+) +(\S+)$")


def parse(out: str):
    """[(symbol, [n, min, max, median, avg, stddev], verdict, ci)] from the
    statistics part of ministat's (or dpstat's) output."""
    sets = []
    lines = out.splitlines()
    i = lines.index(dpstat.VITALS_HEADER) + 1
    while i < len(lines):
        m = VITALS_RE.match(lines[i])
        assert m, f"unexpected line {lines[i]!r}"
        vit = [float(x) for x in m.groups()[1:]]
        i += 1
        verdict, ci = None, None
        if i < len(lines) and lines[i].startswith("No difference proven"):
            verdict = lines[i]
            i += 1
        elif i < len(lines) and lines[i].startswith("Difference at"):
            verdict = lines[i]
            d = re.match(r"^\t(\S+) \+/- (\S+)$", lines[i + 1])
            p = re.match(r"^\t(\S+)% \+/- (\S+)%$", lines[i + 2])
            s = re.match(r"^\t\(Student's t, pooled s = (\S+)\)$", lines[i + 3])
            assert d and p and s, lines[i:i + 4]
            ci = [float(x) for x in (*d.groups(), *p.groups(), *s.groups())]
            i += 4
        sets.append((m.group(1), vit, verdict, ci))
    return sets


def close(a: float, b: float, rel: float) -> bool:
    return a == b or abs(a - b) <= rel * max(abs(a), abs(b))


def generated_sets(seed: int):
    """Groups of data sets shaped like benchmark results: a baseline and
    variants shifted by 0..3 standard deviations, several scales."""
    rnd = random.Random(seed)
    groups = []
    shapes = [(40.0, 0.5, 2), (4.6e6, 65000, 0), (70.0, 3.0, 1), (1.0, 0.01, 4),
              (-5.0, 2.0, 3), (123456.789, 1000.0, 3)]
    for center, sd, digits in shapes:
        n0 = rnd.randint(3, 12)
        sets = []
        for k in range(rnd.randint(2, 4)):
            n = n0 if k == 0 else rnd.randint(3, 25)
            shift = 0 if k == 0 else rnd.choice([0.0, 0.5, 1.0, 2.0, 3.0]) * sd
            sets.append([round(rnd.gauss(center + shift, sd), digits) for _ in range(n)])
        groups.append(sets)
    # ties, an even count and a constant set
    groups.append([[1, 1, 2, 2], [1, 2, 2, 3, 3, 3], [5, 5, 5]])
    return groups


@unittest.skipUnless(MINISTAT, "ministat not installed (apt install ministat)")
class TestAgainstMinistat(unittest.TestCase):
    def run_both(self, sets, conf="95"):
        with tempfile.TemporaryDirectory() as d:
            files = []
            for i, s in enumerate(sets):
                f = os.path.join(d, f"set{i}")
                with open(f, "w") as fh:
                    fh.write("".join(f"{v!r}\n" for v in s))
                files.append(f)
            ms = subprocess.run([MINISTAT, "-A", "-c", conf, *files], capture_output=True,
                                text=True, check=True).stdout
            dp = subprocess.run([sys.executable, str(DPSTAT), "-A", "-c", conf, *files],
                                capture_output=True, text=True, check=True).stdout
        return ms, dp

    def compare(self, sets, conf="95"):
        ms, dp = self.run_both(sets, conf)
        a, b = parse(ms), parse(dp)
        self.assertEqual(len(a), len(b), (ms, dp))
        for (sa, va, verda, cia), (sb, vb, verdb, cib) in zip(a, b):
            self.assertEqual(sa, sb)
            self.assertEqual(va[0], vb[0])
            for x, y in zip(va[1:], vb[1:]):     # %13.8g: 8 significant digits
                self.assertTrue(close(x, y, 2e-8), (x, y, ms, dp))
            self.assertEqual(verda, verdb, (ms, dp))
            if cia is not None:
                for x, y in zip(cia, cib):       # %g: 6 significant digits
                    self.assertTrue(close(x, y, 2e-6), (x, y, ms, dp))
        return ms, dp

    def test_generated_sets_match_ministat_at_95(self):
        n = 0
        for seed in (1, 2, 3):
            for sets in generated_sets(seed):
                with self.subTest(seed=seed, first=sets[0][:3]):
                    self.compare(sets)
                    n += 1
        self.assertGreaterEqual(n, 15)

    def test_other_confidence_levels_match_ministat(self):
        # 99.5 left out on purpose: ministat's 99.5% column is the 99.8% one
        for conf in ("80", "90", "98", "99"):
            for sets in generated_sets(7)[:4]:
                with self.subTest(conf=conf):
                    self.compare(sets, conf)

    def test_both_verdicts_are_exercised(self):
        ms, _ = self.compare([[1, 2, 3, 4, 5], [2, 3, 4, 5, 9], [10, 11, 12, 13, 14]])
        self.assertIn("No difference proven at 95.0% confidence", ms)
        self.assertIn("Difference at 95.0% confidence", ms)

    def test_text_identical_for_the_manual_example(self):
        ms, dp = self.run_both([[1, 2, 3, 4, 5], [2, 3, 4, 5, 9], [10, 11, 12, 13, 14]])

        def from_vitals(text):
            return text[text.index(dpstat.VITALS_HEADER):]
        self.assertEqual(from_vitals(ms), from_vitals(dp))


class TestCli(unittest.TestCase):
    def run_cli(self, *files, stdin=None):
        return subprocess.run([sys.executable, str(DPSTAT), *files], capture_output=True,
                              text=True, input=stdin)

    def test_invalid_data_names_file_and_line_exit_2(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("# comment\n1\n\n2\nabc\n3\n")
        try:
            r = self.run_cli(f.name)
            self.assertEqual(r.returncode, 2)
            self.assertIn(f"{f.name}:5: invalid data 'abc'", r.stderr)
        finally:
            os.unlink(f.name)

    def test_fewer_than_3_points_is_an_error(self):
        r = self.run_cli(stdin="1\n2\n")
        self.assertEqual(r.returncode, 2)
        self.assertIn("at least 3", r.stderr)

    def test_stdin_and_column(self):
        r = subprocess.run([sys.executable, str(DPSTAT), "-n", "-C", "2"], capture_output=True,
                           text=True, input="a 1\nb 2\nc 3\n")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("x   3             1             3             2             2             1",
                      r.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
