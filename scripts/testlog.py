#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The summary of a `meson test` run that scripts/dev.sh prints, and its verdict.

  scripts/testlog.py BUILD [--suite S ...] [--no-suite X ...]

Reads BUILD/meson-logs/testlog.json (the last run) and what the build registers
(`meson introspect --tests`; each CUnit executable's own list of tests, DP_TEST_LIST=1,
tests/dp_test.h) and prints:
  - per meson suite: tests registered, run, passed, failed, skipped. A test that skipped
    anything (exit 77, or a Python unittest case skipped inside a run that passed) counts
    as skipped, never as passed;
  - per CUnit suite: tests registered, run, failed, not run (a failed suite init runs none);
  - one SKIP line per skip, with its reason.

Exit 1 when a test failed or a CUnit test did not run. In strict mode (CI=true, or
DPFWD_STRICT=1; DPFWD_STRICT=0 turns it off under CI) also on any skip, and when a suite
named by --suite has a registered test that did not run, or no test at all. Without
--suite the run is taken to be a chosen subset: registered tests it left out are not
counted. A registered test that also carries a suite named by --no-suite (the run was
asked to leave it out: `meson test --no-suite X`) is not counted either, and the summary
names it.
"""
import argparse
import json
import os
import re
import subprocess
import sys

# unittest's last line: "OK (skipped=2)", "FAILED (failures=1, skipped=2)"
UNITTEST_SKIPPED = re.compile(r"^(?:OK|FAILED) \((?:[^)]*, )?skipped=(\d+)", re.M)
# unittest -v: "test_x (mod.Class.test_x) ... skipped 'why'" (also setUpClass); the
# reason alone when a docstring or the test's own output came between
UNITTEST_SKIP_LINE = re.compile(
    r"""(?:^(\w+) \(([^)]*)\) \.\.\. |\.\.\. |^)skipped (['"])(.*)\3$""", re.M)
CUNIT_ROW = re.compile(r"^\s+(suites|tests)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\d+)\s+(\d+)$", re.M)
CUNIT_TEST = re.compile(r"^  Test: (.*?) \.\.\.(passed|FAILED)", re.M)
CUNIT_MARK = b"DP_TEST_LIST"  # in every executable that runs its tests with dp_test_run()
CUNIT_BANNER = "CUnit - A unit testing framework"


def strict_mode(env=os.environ):
    """(on, why): DPFWD_STRICT=1/0 decides; otherwise CI=true (or 1) turns it on."""
    s = env.get("DPFWD_STRICT", "")
    if s != "":
        return s not in ("0", "false", "no"), f"DPFWD_STRICT={s}"
    ci = env.get("CI", "")
    return ci.lower() in ("true", "1"), f"CI={ci}" if ci else "CI unset"


def split_name(logname):
    """testlog.json's "dpfwd:unit / config" -> ("unit", "config"); a test of several
    suites ("dpfwd:netns+frr / bgp") is counted under its first."""
    suite, name = logname.split(" / ", 1)
    return suite.split(":")[-1].split("+")[0], name


def cunit_counts(out, registered):
    """A CUnit executable's output -> dict(registered, run, failed, not_run, note).
    @p registered: its DP_TEST_LIST names (None: not known; CUnit's own total then)."""
    rows = {m.group(1): [int(m.group(i)) if m.group(i).isdigit() else 0 for i in range(2, 7)]
            for m in CUNIT_ROW.finditer(out)}
    done = CUNIT_TEST.findall(out)
    note = []
    if "tests" in rows:
        total, run, _, failed, _ = rows["tests"]
    else:
        total, run = None, len(done)
        failed = sum(1 for _, r in done if r == "FAILED")
        note.append("no CUnit run summary: it stopped during a test")
    if rows.get("suites", [0] * 5)[3]:
        note.append("suite init failed: its tests did not run")
    n = len(registered) if registered is not None else total
    if registered is None:
        note.append("its own list of tests could not be read")
    elif total is not None and total != n:
        note.append(f"CUnit registered {total}, the list says {n}")
    if n is None:
        n = run
    return {"registered": n, "run": run, "failed": failed, "not_run": max(n - run, 0),
            "note": "; ".join(note)}


def skip_reasons(result):
    """The reasons of a test's skips: (count, [reason, ...])."""
    out = result.get("stdout", "") + "\n" + result.get("stderr", "")
    if result["result"] == "SKIP":
        why = [re.sub(r"^SKIP:\s*", "", ln.strip()) for ln in out.splitlines()
               if ln.strip().upper().startswith("SKIP") or "skipped" in ln.lower()]
        if not why:
            why = ([ln.strip() for ln in out.splitlines() if ln.strip()][-1:]
                   or ["(no reason given)"])
        return 1, why
    n = sum(int(m.group(1)) for m in UNITTEST_SKIPPED.finditer(out))
    if n == 0:
        return 0, []
    why = [(f"{m.group(2)}: " if m.group(2) else "") + m.group(4)
           for m in UNITTEST_SKIP_LINE.finditer(out)]
    return n, why or [f"{n} unittest case(s) skipped (reasons: run it with -v)"]


def summarize(results, registered, cunit_lists, suites, strict):
    """The summary's lines and whether the run passes.

    results: testlog.json's entries; registered: [(suite, name)] of the build;
    cunit_lists: {(suite, name): [test names] or None} for the CUnit executables;
    suites: the suites the run was asked for ([] = a chosen subset); strict: (on, why)."""
    lines, ok, bad_strict = [], True, []
    per_suite = {}
    skips, cunit = [], []
    ran = set()
    for r in results:
        suite, name = split_name(r["name"])
        ran.add((suite, name))
        s = per_suite.setdefault(suite, {"run": 0, "passed": 0, "failed": 0, "skipped": 0})
        s["run"] += 1
        # a CUnit executable whose tests did not all run has failed, whatever its status
        cut_short = False
        out = r.get("stdout", "")
        if ((suite, name) in cunit_lists or CUNIT_BANNER in out) and r["result"] != "SKIP":
            listed = cunit_lists.get((suite, name))
            c = cunit_counts(out, listed)
            cunit.append((f"{suite}/{name}", c))
            cut_short = c["not_run"] > 0 or "suite init failed" in c["note"]
            if listed is None:
                # a CUnit runner of its own, or a list that failed: only CUnit's count
                bad_strict.append(f"{suite}/{name}: its registered tests are not known "
                                  "(run them with dp_test_run(), tests/dp_test.h)")
        n, why = skip_reasons(r)
        if r["result"] not in ("OK", "SKIP") or cut_short:
            s["failed"] += 1
            ok = False
        elif n:
            s["skipped"] += 1
            skips += [f"SKIP {suite}/{name}: {w}" for w in why]
        else:
            s["passed"] += 1
    want = {}
    for suite, name in registered:
        want.setdefault(suite, []).append(name)
    lines.append(f"{'meson suite':<24}{'registered':>11}{'run':>6}{'passed':>8}{'failed':>8}"
                 f"{'skipped':>9}")
    for suite in sorted(set(per_suite) | set(suites)):
        s = per_suite.get(suite, {"run": 0, "passed": 0, "failed": 0, "skipped": 0})
        lines.append(f"  {suite:<22}{len(want.get(suite, [])):>11}{s['run']:>6}"
                     f"{s['passed']:>8}{s['failed']:>8}{s['skipped']:>9}")
    for suite in suites:
        missing = [n for n in want.get(suite, []) if (suite, n) not in ran]
        if not want.get(suite):
            bad_strict.append(f"suite {suite} has no test in this build")
        elif missing:
            bad_strict.append(f"suite {suite}: {len(missing)} registered tests did not run: "
                              + ", ".join(missing))
    if cunit:
        lines.append(f"{'CUnit suite':<24}{'registered':>11}{'run':>6}{'failed':>8}"
                     f"{'not run':>9}")

        def row(name, v, note):
            return f"  {name:<22}{v[0]:>11}{v[1]:>6}{v[2]:>8}{v[3]:>9}" + (
                f"  ({note})" if note else "")

        tot = [0, 0, 0, 0]
        for name, c in cunit:
            v = [c["registered"], c["run"], c["failed"], c["not_run"]]
            tot = [a + b for a, b in zip(tot, v)]
            lines.append(row(name, v, c["note"]))
        lines.append(row("total", tot, ""))
    lines += skips
    if skips:
        bad_strict.append(f"{len(skips)} skip(s)")
    on, why = strict
    if bad_strict:
        head = f"strict mode ({why}): FAIL:" if on else f"not strict ({why}), allowed:"
        lines += [f"{head} {b}" for b in bad_strict]
        ok = ok and not on
    lines.append("tests: " + ("PASS" if ok else "FAIL"))
    return lines, ok


def introspect(build):
    out = subprocess.run(["meson", "introspect", build, "--tests"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def split_registered(tests, no_suites):
    """`meson introspect --tests` -> ({(suite, name): test} counted, in order;
    ["suite/name"] left out: those that also carry a suite of @p no_suites)."""
    registered, left_out = {}, []
    for t in tests:
        key = (t["suite"][0].split(":")[-1], t["name"])
        if any(s.split(":")[-1] in no_suites for s in t["suite"]):
            left_out.append(f"{key[0]}/{key[1]}")
        else:
            registered[key] = t
    return registered, left_out


def cunit_list(test):
    """The tests a CUnit executable registers (DP_TEST_LIST=1), None if it cannot say;
    absent (not CUnit) -> raises KeyError. A program that has dp_test_run() linked in but
    a main of its own (the fuzz targets' replay_<name>, through the ring rig) lists
    nothing and exits 0: not CUnit either."""
    exe = test["cmd"][0]
    try:
        with open(exe, "rb") as f:
            if CUNIT_MARK not in f.read():
                raise KeyError(exe)
    except OSError:
        raise KeyError(exe)
    # a listing is not a test: an ASan build's leak check at exit has nothing to say here
    env = dict(os.environ, **(test.get("env") or {}), DP_TEST_LIST="1",
               ASAN_OPTIONS="detect_leaks=0")
    try:
        p = subprocess.run(test["cmd"], env=env, capture_output=True, text=True, timeout=30,
                           cwd=test.get("workdir") or None)
    except (OSError, subprocess.TimeoutExpired):
        return None
    names = [ln.split(" ", 2)[2] for ln in p.stdout.splitlines()
             if ln.startswith("DP_TEST_LIST ") and ln.count(" ") >= 2]
    if p.returncode != 0:
        return None
    if not names:
        raise KeyError(exe)
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--suite", action="append", default=[],
                    help="a suite the run was asked for (all of its tests must run)")
    ap.add_argument("--no-suite", action="append", default=[],
                    help="a suite the run was asked to leave out (`meson test --no-suite`)")
    a = ap.parse_args()
    log = os.path.join(a.build, "meson-logs", "testlog.json")
    try:
        with open(log) as f:
            results = [json.loads(ln) for ln in f if ln.strip()]
    except OSError as e:
        print(f"testlog: no test run to summarize: {e}")
        return 1
    tests = introspect(a.build)
    registered, left_out = split_registered(tests, a.no_suite)
    lists = {}
    for key, t in registered.items():
        try:
            lists[key] = cunit_list(t)
        except KeyError:
            pass
    lines, ok = summarize(results, registered, lists, a.suite, strict_mode())
    if left_out:  # before the verdict, the last line
        lines.insert(len(lines) - 1, f"left out of this run (suite {', '.join(a.no_suite)}): "
                     f"{', '.join(sorted(left_out))}")
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
