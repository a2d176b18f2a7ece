#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The RFC 2544 searches (apps/dpbench/rfc2544.py) on a model of the rig, no DPDK:
a generator that reaches GEN_MAX pps and a DUT that forwards up to CAP pps, either
dropping the excess (a NIC: imissed) or refusing it (memif: the generator waits).
Checks the rate found against the model's capacity and the resolution, the
bottleneck named, loss tolerance, repeats, validation, the trial budget, and the
offered-load curve's points."""

import sys
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "apps" / "dpbench"))
import rfc2544  # noqa: E402

M = 1e6


class Model:
    """trial(rate, secs) of a generator (gen_max pps) and a DUT (cap pps).

    backpressure  the DUT's excess is refused: the generator sends only cap and its
                  queue is found full; otherwise the excess is lost (DUT imissed)
    base_loss     packets lost in every trial (DUT drop reason ip4_no_route)
    egress_cap    the generator's receive side takes at most this (DUT tx_full)
    flaky         (rate, secs): trials above rate lasting at least secs lose 1 packet
    fail_every    (rate, n): every n-th trial above rate loses 1 packet
    """

    def __init__(self, gen_max, cap, backpressure=False, base_loss=0, egress_cap=None,
                 flaky=None, fail_every=None):
        self.gen_max, self.cap, self.bp = gen_max, cap, backpressure
        self.base_loss, self.egress_cap = base_loss, egress_cap
        self.flaky, self.fail_every = flaky, fail_every
        self.calls = []

    def __call__(self, rate, secs):
        self.calls.append((rate, secs))
        tx = self.gen_max if rate is None else min(rate, self.gen_max)
        dut = {"imissed": 0, "rx_nombuf": 0, "oerrors": 0, "drops": {}}
        gen = {"queue_full": 0, "behind_s": 0.0 if tx >= (rate or 0) else 0.2}
        sent = int(min(tx, self.cap if self.bp else tx) * secs)
        if self.bp and tx > self.cap:
            # the queue refuses part of a burst about every other burst
            tx, gen["queue_full"] = self.cap, sent // 32 // 2
        lost = 0
        if not self.bp and tx > self.cap:
            lost = int((tx - self.cap) * secs)
            dut["imissed"] = lost
        if self.base_loss:
            lost += self.base_loss
            dut["drops"]["ip4_no_route"] = self.base_loss
        if self.egress_cap and tx > self.egress_cap and not lost:
            lost = int((tx - self.egress_cap) * secs)
            dut["drops"]["tx_full"] = lost
        if self.flaky and tx > self.flaky[0] and secs >= self.flaky[1]:
            lost += 1
            dut["drops"]["tx_full"] = dut["drops"].get("tx_full", 0) + 1
        if self.fail_every and tx > self.fail_every[0]:
            above = sum(1 for r, _ in self.calls if r is not None and r > self.fail_every[0])
            if above % self.fail_every[1] == 0:
                lost += 1
                dut["drops"]["ip4_ttl_exceeded"] = 1
        return {"offered_pps": rate, "tx_pps": tx, "rx_pps": (sent - lost) / secs,
                "rx_gbps": (sent - lost) / secs * 84 * 8 / 1e9, "sent": sent, "lost": lost,
                "gen": gen, "dut": dut}


def search(model, **kw):
    opts = dict(trial_s=2.0, repeats=1, validate_s=0.0, max_trials=40, resolution=("pct", 1.0),
                loss_tolerance=0.0, rate_tolerance=1.0)
    max_rate = kw.pop("max_rate", None)
    opts.update(kw)
    top = rfc2544.top_rate(model, max_rate, opts["trial_s"], opts["repeats"],
                           opts["loss_tolerance"], opts["rate_tolerance"])
    return rfc2544.throughput_search(model, top, **opts)


class TestJudgeAndBottleneck(unittest.TestCase):
    def t(self, **kw):
        base = {"offered_pps": 1e6, "tx_pps": 1e6, "rx_pps": 1e6, "sent": 1000000, "lost": 0,
                "gen": {"queue_full": 0, "behind_s": 0.0},
                "dut": {"imissed": 0, "rx_nombuf": 0, "oerrors": 0, "drops": {}}}
        for k, v in kw.items():
            if k in ("gen", "dut"):
                base[k].update(v)
            else:
                base[k] = v
        return base

    def test_judge(self):
        self.assertTrue(rfc2544.judge(self.t(), 0, 1)[0])
        ok, why = rfc2544.judge(self.t(lost=1), 0, 1)
        self.assertFalse(ok)
        self.assertIn("loss 0.0001% > 0%", why)
        self.assertTrue(rfc2544.judge(self.t(lost=1), 0.001, 1)[0])
        self.assertTrue(rfc2544.judge(self.t(tx_pps=0.995e6), 0, 1)[0])
        ok, why = rfc2544.judge(self.t(tx_pps=0.98e6), 0, 1)
        self.assertFalse(ok)
        self.assertIn("2% short > 1%", why)
        self.assertFalse(rfc2544.judge(self.t(sent=0), 100, 50)[0])
        # flat out there is no offered rate to fall short of
        self.assertTrue(rfc2544.judge(self.t(offered_pps=None, tx_pps=5), 0, 1)[0])

    def test_bottleneck_cases(self):
        cases = [
            (self.t(), "none", "none"),
            (self.t(lost=10, dut={"imissed": 10}), "dpfwd", "dpfwd-rx"),
            (self.t(lost=10, dut={"rx_nombuf": 10}), "dpfwd", "dpfwd-rx"),
            (self.t(lost=10, dut={"drops": {"ip4_no_route": 10, "tx_full": 0}}), "dpfwd",
             "dpfwd-drops"),
            (self.t(lost=10, dut={"drops": {"tx_full": 10}}), "dpgen", "dpgen-rx"),
            (self.t(lost=10, dut={"oerrors": 10}), "dpgen", "dpgen-rx"),
            # the larger count wins
            (self.t(lost=30, dut={"drops": {"tx_full": 5, "neigh_unresolved": 25}}), "dpfwd",
             "dpfwd-drops"),
            (self.t(lost=30, dut={"imissed": 2, "drops": {"tx_full": 28}}), "dpgen", "dpgen-rx"),
            (self.t(lost=3), "unknown", "unaccounted"),
            (self.t(tx_pps=0.5e6, gen={"queue_full": 7}), "dpfwd", "dpfwd-backpressure"),
            (self.t(tx_pps=0.5e6, gen={"behind_s": 0.5}), "dpgen", "dpgen-tx"),
            # within the rate tolerance: not short
            (self.t(tx_pps=0.995e6, gen={"queue_full": 7}), "none", "none"),
        ]
        for t, who, where in cases:
            with self.subTest(who=who, where=where, t=t):
                b = rfc2544.bottleneck(t, 1.0)
                self.assertEqual((b["who"], b["where"]), (who, where), b["detail"])
        b = rfc2544.bottleneck(self.t(lost=30, dut={"imissed": 2, "drops": {"tx_full": 28}}))
        self.assertIn("tx_full", b["detail"])
        self.assertIn("imissed 2", b["detail"])        # every explanation is listed
        self.assertEqual(b["evidence"]["dpfwd_egress_full"], 28)


class TestSearch(unittest.TestCase):
    def assertWithin(self, rate, cap, pct):
        self.assertLessEqual(rate, cap)
        self.assertGreaterEqual(rate, cap * (1 - pct / 100.0) - 1)

    def test_dut_that_drops_above_its_capacity(self):
        m = Model(gen_max=10 * M, cap=6.3 * M)
        r = search(m)
        self.assertTrue(r["found"] and r["converged"])
        self.assertWithin(r["rate_pps"], 6.3 * M, 1.0)
        self.assertLessEqual(r["hi_pps"] - r["lo_pps"], r["hi_pps"] * 0.01 + 1)
        self.assertGreater(r["hi_pps"], 6.3 * M)
        self.assertEqual((r["limited_by"]["who"], r["limited_by"]["where"]), ("dpfwd", "dpfwd-rx"))
        self.assertEqual(m.calls[0], (None, 2.0))               # the top: dpgen flat out
        # a binary search: about log2(1 / 1%) trials after the top
        self.assertLessEqual(r["trials_used"], 1 + 8)
        self.assertEqual(r["trials_used"], len(m.calls))

    def test_dut_with_backpressure_is_found_by_the_rate_shortfall(self):
        m = Model(gen_max=10 * M, cap=4 * M, backpressure=True)
        r = search(m)
        self.assertWithin(r["rate_pps"], 4 * M, 1.0)
        self.assertEqual((r["limited_by"]["who"], r["limited_by"]["where"]),
                         ("dpfwd", "dpfwd-backpressure"))
        # the top trial flat out had no loss at all: it failed nothing, it only showed the top
        self.assertEqual(r["top_pps"], 4 * M)

    def test_generator_is_the_limit(self):
        m = Model(gen_max=3 * M, cap=5 * M)
        r = search(m)
        self.assertEqual(r["rate_pps"], 3 * M)
        self.assertTrue(r["found"])
        self.assertEqual(r["limited_by"]["who"], "dpgen")
        self.assertEqual(len(m.calls), 1)

    def test_max_rate_bounds_the_search(self):
        m = Model(gen_max=10 * M, cap=5 * M)
        r = search(m, max_rate=4 * M)
        self.assertEqual((r["rate_pps"], r["limited_by"]["who"]), (4 * M, "none"))
        r = search(Model(gen_max=10 * M, cap=5 * M), max_rate=8 * M)
        self.assertWithin(r["rate_pps"], 5 * M, 1.0)

    def test_min_rate_is_the_floor(self):
        m = Model(gen_max=10 * M, cap=0.5 * M)
        r = search(m, min_rate=1 * M)
        self.assertFalse(r["found"])
        self.assertEqual(r["rate_pps"], 1 * M)
        self.assertTrue(all(rate is None or rate >= 1 * M for rate, _ in m.calls))

    def test_absolute_resolution(self):
        r = search(Model(gen_max=10 * M, cap=7.77 * M), resolution=("pps", 10e3))
        self.assertWithin(r["rate_pps"], 7.77 * M, 100 * 10e3 / 7.77e6)
        self.assertLessEqual(r["hi_pps"] - r["lo_pps"], 10e3)

    def test_loss_tolerance(self):
        # 5 packets lost in every trial of ~2 s: 0 tolerance passes nothing
        r = search(Model(gen_max=2 * M, cap=10 * M, base_loss=5))
        self.assertFalse(r["found"])
        self.assertEqual(r["limited_by"]["where"], "dpfwd-drops")
        # at 2 Mpps x 2 s, 5 packets are 0.000125%: a tolerance of 0.001% passes the top
        r = search(Model(gen_max=2 * M, cap=10 * M, base_loss=5), loss_tolerance=0.001)
        self.assertEqual(r["rate_pps"], 2 * M)
        # low rates send fewer packets: the same 5 lost weigh more, the search finds where
        r = search(Model(gen_max=2 * M, cap=10 * M, base_loss=5), loss_tolerance=0.0005)
        # 5 / (rate x 2 s) <= 0.0005 % <=> rate >= 0.5 Mpps: every rate above passes
        self.assertEqual(r["rate_pps"], 2 * M)

    def test_repeats_catch_a_rate_that_fails_sometimes(self):
        # above 3 Mpps every second trial loses a packet (cap 8)
        once = search(Model(gen_max=10 * M, cap=8 * M, fail_every=(3 * M, 2)), repeats=1)
        twice = search(Model(gen_max=10 * M, cap=8 * M, fail_every=(3 * M, 2)), repeats=2)
        self.assertLessEqual(twice["rate_pps"], 3 * M)
        self.assertGreater(twice["rate_pps"], 2.9 * M)
        self.assertEqual(twice["limited_by"]["where"], "dpfwd-drops")
        self.assertNotEqual(once["rate_pps"], twice["rate_pps"])

    def test_validation_lowers_the_bound_and_searches_on(self):
        # 2 s trials pass up to the 6 Mpps cap; 10 s ones fail above 4.5 Mpps
        m = Model(gen_max=10 * M, cap=6 * M, flaky=(4.5 * M, 10))
        r = search(m, validate_s=10.0)
        self.assertTrue(r["validated"])
        self.assertLessEqual(r["rate_pps"], 4.5 * M)
        self.assertGreater(r["rate_pps"], 4.0 * M)
        vals = [(rate, s) for rate, s in m.calls if s == 10.0]
        self.assertGreaterEqual(len(vals), 2)                # one failed, one passed
        self.assertGreater(vals[0][0], 4.5 * M)
        self.assertIn(r["rate_pps"], [rate for rate, _ in vals])   # found by a long trial
        self.assertTrue(r["converged"])
        self.assertGreater(r["rate_pps"], 4.5 * M * 0.99 - 1)
        self.assertEqual(r["limited_by"]["where"], "dpgen-rx")     # the model's tx_full
        self.assertLessEqual(len(m.calls), 40)
        no_val = search(Model(gen_max=10 * M, cap=6 * M, flaky=(4.5 * M, 10)))
        self.assertIsNone(no_val["validated"])
        self.assertGreater(no_val["rate_pps"], 5.9 * M)

    def test_trial_budget(self):
        m = Model(gen_max=10 * M, cap=6.3 * M)
        r = search(m, max_trials=4, resolution=("pct", 0.01))
        self.assertFalse(r["converged"])
        self.assertEqual(len(m.calls), 4)
        self.assertEqual(r["trials_used"], 4)
        self.assertLessEqual(r["rate_pps"], 6.3 * M)

    def test_every_trial_is_recorded_with_its_verdict(self):
        out = rfc2544.run(Model(gen_max=10 * M, cap=6 * M), trial_s=1.0, points=4,
                          validate_s=3.0)
        ns = [t["n"] for t in out["trials"]]
        self.assertEqual(ns, list(range(1, len(ns) + 1)))
        phases = [t["phase"] for t in out["trials"]]
        self.assertEqual(phases[0], "top")
        self.assertEqual(phases[1:5], ["curve"] * 4)
        self.assertIn("search", phases)
        self.assertEqual(phases[-1], "validate")
        for t in out["trials"]:
            self.assertEqual(t["passed"],
                             t["lost"] == 0 and t["tx_pps"] >= 0.99 * (t["offered_pps"] or 0))
        text = rfc2544.summary_text("v", out)
        self.assertIn("zero-loss throughput: ", text)
        self.assertIn("bottleneck: dpfwd (dpfwd-rx)", text)


class TestCurve(unittest.TestCase):
    def test_points_and_throughput(self):
        m = Model(gen_max=10 * M, cap=6 * M)
        out = rfc2544.run(m, trial_s=1.0, points=5, repeats=2, search=False)
        self.assertEqual(out["top"]["rate_pps"], 10 * M)
        curve = out["curve"]
        self.assertEqual([p["offered_pps"] for p in curve], [2e6, 4e6, 6e6, 8e6, 10e6])
        for p in curve:
            self.assertAlmostEqual(p["rx_pps"], min(p["offered_pps"], 6 * M), delta=1)
            self.assertEqual(p["passed"], p["offered_pps"] <= 6 * M)
            self.assertEqual(len(p["trials"]), 2)                    # repeats
            if not p["passed"]:
                self.assertEqual(p["bottleneck"]["who"], "dpfwd")
                self.assertAlmostEqual(p["loss_pct"],
                                       100 * (p["offered_pps"] - 6 * M) / p["offered_pps"],
                                       places=3)
        self.assertIsNone(out["search"])
        self.assertEqual(len(m.calls), 2 + 5 * 2)

    def test_curve_rates(self):
        self.assertEqual(rfc2544.curve_rates(1000, 4), [250, 500, 750, 1000])
        self.assertEqual(rfc2544.curve_rates(7, 3), [2, 4, 7])
        self.assertTrue(rfc2544.converged(99, 100, ("pct", 1.0)))
        self.assertFalse(rfc2544.converged(98, 100, ("pct", 1.0)))
        self.assertTrue(rfc2544.converged(95e3, 100e3, ("pps", 5e3)))


if __name__ == "__main__":
    unittest.main(verbosity=2)
