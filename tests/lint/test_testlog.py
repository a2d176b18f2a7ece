#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/testlog.py on made-up runs: a suite whose init failed is not passed, a CUnit
executable that stopped mid-run leaves tests not run, a skip (exit 77 or unittest cases)
is printed as SKIP with its reason and never counted as passed, and strict mode fails on
skips and on registered tests that did not run."""
import os
import sys
import tempfile
import unittest

SRC = os.environ.get('DPFWD_SRC', os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(SRC, 'scripts'))
import testlog  # noqa: E402

STRICT = (True, 'DPFWD_STRICT=1')
LAX = (False, 'CI unset')

CUNIT_OK = """
Suite: hist
  Test: test_a ...passed
  Test: test_b ...passed

Run Summary:    Type  Total    Ran Passed Failed Inactive
              suites      1      1    n/a      0        0
               tests      2      2      2      0        0
             asserts      9      9      9      0      n/a
"""
CUNIT_INIT_FAILED = """
WARNING - Suite initialization failed for 'graph'.

Run Summary:    Type  Total    Ran Passed Failed Inactive
              suites      1      0    n/a      1        0
               tests      2      0      0      0        0
             asserts      0      0      0      0      n/a
"""
CUNIT_STOPPED = """
Suite: graph
  Test: test_a ...passed
  Test: test_b ..."""


def res(name, result='OK', stdout='', stderr=''):
    return {'name': 'dpfwd:' + name, 'result': result, 'stdout': stdout, 'stderr': stderr}


def run(results, registered, lists=None, suites=('unit',), strict=LAX):
    lines, ok = testlog.summarize(results, registered, lists or {}, list(suites), strict)
    return '\n'.join(lines), ok


class Testlog(unittest.TestCase):
    def test_all_passed_passes_in_strict_mode(self):
        out, ok = run([res('unit / hist', stdout=CUNIT_OK)], [('unit', 'hist')],
                      {('unit', 'hist'): ['test_a', 'test_b']}, strict=STRICT)
        self.assertTrue(ok, out)
        self.assertRegex(out, r'unit/hist\s+2\s+2\s+0\s+0')
        self.assertNotIn('SKIP', out)

    def test_failed_suite_init_is_not_run_never_passed(self):
        out, ok = run([res('unit / graph', stdout=CUNIT_INIT_FAILED)], [('unit', 'graph')],
                      {('unit', 'graph'): ['test_a', 'test_b']})
        self.assertFalse(ok, out)
        self.assertRegex(out, r'unit/graph\s+2\s+0\s+0\s+2 .*suite init failed')
        self.assertRegex(out, r'unit\s+1\s+1\s+0\s+1\s+0')

    def test_cunit_stopped_mid_run_counts_what_ran(self):
        out, ok = run([res('unit / graph', 'FAIL', stdout=CUNIT_STOPPED)], [('unit', 'graph')],
                      {('unit', 'graph'): ['test_a', 'test_b', 'test_c']})
        self.assertFalse(ok, out)
        self.assertRegex(out, r'unit/graph\s+3\s+1\s+0\s+2 .*no CUnit run summary')

    def test_cunit_without_its_list_fails_strict_only(self):
        out = "     CUnit - A unit testing framework for C - Version 2.1-3\n" + CUNIT_OK
        for lists in ({}, {('unit', 'hist'): None}):
            text, ok = run([res('unit / hist', stdout=out)], [('unit', 'hist')], lists)
            self.assertTrue(ok, text)
            self.assertRegex(text, r'unit/hist\s+2\s+2\s+0\s+0 .*list of tests could not')
            text, ok = run([res('unit / hist', stdout=out)], [('unit', 'hist')], lists,
                           strict=STRICT)
            self.assertFalse(ok, text)
            self.assertIn('unit/hist: its registered tests are not known', text)

    def test_exit_77_is_a_skip_with_its_reason(self):
        r = res('netns / netns', 'SKIP', stdout='SKIP: netns: not root\n')
        out, ok = run([r], [('netns', 'netns')], suites=['netns'])
        self.assertTrue(ok, out)
        self.assertIn('SKIP netns/netns: netns: not root', out)
        self.assertRegex(out, r'netns\s+1\s+1\s+0\s+0\s+1')
        self.assertIn('not strict (CI unset), allowed: 1 skip(s)', out)
        out, ok = run([r], [('netns', 'netns')], suites=['netns'], strict=STRICT)
        self.assertFalse(ok, out)
        self.assertIn('strict mode (DPFWD_STRICT=1): FAIL: 1 skip(s)', out)

    def test_skipped_unittest_cases_are_skips_not_passes(self):
        err = ("test_x (__main__.T.test_x) ... ok\n"
               "test_y (__main__.T.test_y) ... skipped 'ministat not installed'\n"
               "setUpClass (__main__.AfXdpTest) ... skipped \"the kernel's refusal\"\n"
               "test_z (__main__.T.test_z)\nA docstring ... skipped 'no tshark'\n"
               "\nRan 3 tests in 0.1s\n\nOK (skipped=3)\n")
        out, ok = run([res('unit / dpstat', stderr=err)], [('unit', 'dpstat')])
        self.assertTrue(ok, out)
        self.assertIn('SKIP unit/dpstat: __main__.T.test_y: ministat not installed', out)
        self.assertIn("SKIP unit/dpstat: __main__.AfXdpTest: the kernel's refusal", out)
        self.assertIn('SKIP unit/dpstat: no tshark', out)
        self.assertRegex(out, r'unit\s+1\s+1\s+0\s+0\s+1')
        out, ok = run([res('unit / dpstat', stderr=err)], [('unit', 'dpstat')], strict=STRICT)
        self.assertFalse(ok, out)

    def test_unittest_failure_with_skips_is_a_failure(self):
        err = "Ran 2 tests in 0.1s\n\nFAILED (failures=1, skipped=1)\n"
        out, ok = run([res('unit / x', 'FAIL', stderr=err)], [('unit', 'x')])
        self.assertFalse(ok, out)
        self.assertRegex(out, r'unit\s+1\s+1\s+0\s+1\s+0')

    def test_registered_test_not_run_fails_strict_only(self):
        reg = [('unit', 'hist'), ('unit', 'graph')]
        out, ok = run([res('unit / hist')], reg)
        self.assertTrue(ok, out)
        out, ok = run([res('unit / hist')], reg, strict=STRICT)
        self.assertFalse(ok, out)
        self.assertIn('suite unit: 1 registered tests did not run: graph', out)
        # a chosen subset (no --suite): what it left out is not asked for
        out, ok = run([res('unit / hist')], reg, suites=(), strict=STRICT)
        self.assertTrue(ok, out)

    def test_left_out_suite_is_named_not_missing(self):
        tests = [{'suite': ['dpfwd:netns'], 'name': 'mtu'},
                 {'suite': ['dpfwd:netns', 'dpfwd:frr'], 'name': 'bgp'}]
        reg, left = testlog.split_registered(tests, ['frr'])
        self.assertEqual(list(reg), [('netns', 'mtu')])
        self.assertEqual(left, ['netns/bgp'])
        out, ok = run([res('netns / mtu')], reg, suites=['netns'], strict=STRICT)
        self.assertTrue(ok, out)
        # without --no-suite the same run misses it
        reg, left = testlog.split_registered(tests, [])
        self.assertEqual(left, [])
        out, ok = run([res('netns / mtu')], reg, suites=['netns'], strict=STRICT)
        self.assertFalse(ok, out)
        # a test of several suites is counted under its first
        out, ok = run([res('netns / mtu'), res('netns+frr / bgp')], reg, suites=['netns'],
                      strict=STRICT)
        self.assertTrue(ok, out)
        self.assertIn('netns', out)
        self.assertNotIn('frr', out)

    def test_suite_without_tests_fails_strict(self):
        out, ok = run([], [], suites=['unit'], strict=STRICT)
        self.assertFalse(ok, out)
        self.assertIn('suite unit has no test in this build', out)

    def test_cunit_list_asks_the_executable(self):
        with tempfile.TemporaryDirectory() as d:
            def exe(name, body):
                path = os.path.join(d, name)
                with open(path, 'w') as f:
                    f.write('#!/bin/sh\n' + body + '\n')
                os.chmod(path, 0o755)
                return {'cmd': [path]}
            lists = exe('lists', 'echo "DP_TEST_LIST hist test_a"; echo "DP_TEST_LIST hist test_b"')
            self.assertEqual(testlog.cunit_list(lists), ['test_a', 'test_b'])
            broken = exe('broken', ': DP_TEST_LIST; exit 1')
            self.assertIsNone(testlog.cunit_list(broken))
            # dp_test_run() linked in, a main of its own: lists nothing, not CUnit
            own_main = exe('own_main', ': DP_TEST_LIST; echo "replayed 3 inputs"')
            self.assertRaises(KeyError, testlog.cunit_list, own_main)
            no_mark = exe('no_mark', 'echo hi')
            self.assertRaises(KeyError, testlog.cunit_list, no_mark)

    def test_strict_mode_from_the_environment(self):
        self.assertEqual(testlog.strict_mode({'CI': 'true'}), (True, 'CI=true'))
        self.assertEqual(testlog.strict_mode({'CI': 'false'})[0], False)
        self.assertEqual(testlog.strict_mode({})[0], False)
        self.assertEqual(testlog.strict_mode({'DPFWD_STRICT': '1'})[0], True)
        self.assertEqual(testlog.strict_mode({'CI': 'true', 'DPFWD_STRICT': '0'})[0], False)


if __name__ == '__main__':
    unittest.main(verbosity=2)
