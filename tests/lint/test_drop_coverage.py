#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/drop_coverage.py: the real tree passes (every drop reason named by a
test); in a small tree, a reason named only in a comment, a docstring, a longer
string or a fuzz target fails, named by its drop.def line."""
import os
import shutil
import tempfile
import unittest

from lintcheck import run_script, write

SRC = os.environ.get('DPFWD_SRC', os.path.join(os.path.dirname(__file__), '..', '..'))
CHECK = os.path.join(SRC, 'scripts', 'drop_coverage.py')

DEF = ('/* DP_DROP(symbol, "json_name", "what happened") */\n'
       'DP_DROP(LOW_A, "low_a", "first")\n'
       'DP_DROP(LOW_B, "low_b", "second")\n')


def run(root):
    return run_script(CHECK, root)


class DropCoverage(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='dpfwd-dropcov-')
        write(self.tmp + '/src/low/drop.def', DEF)
        # low_a is asserted in C, by its enum
        write(self.tmp + '/tests/unit/low/test_low.c',
              'CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_LOW_A), 1);\n')

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def assert_b_missing(self):
        rc, out = run(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn('src/low/drop.def:3: low_b (DP_DROP_LOW_B): no test names it', out)
        self.assertNotIn('low_a (', out)
        self.assertIn('1 of 2 drop reasons', out)

    def test_real_tree_passes(self):
        rc, out = run(SRC)
        self.assertEqual(rc, 0, out)

    def test_reason_no_test_names_fails(self):
        self.assert_b_missing()

    def test_c_enum_and_json_string_count(self):
        write(self.tmp + '/tests/func/test_b.c', 'EXPECT(drop(j, "low_b") == 2, "x");\n')
        rc, out = run(self.tmp)
        self.assertEqual(rc, 0, out)
        os.remove(self.tmp + '/tests/func/test_b.c')
        write(self.tmp + '/tests/unit/low/test_b.c', 'x = dp_graph_drops(DP_DROP_LOW_B);\n')
        rc, out = run(self.tmp)
        self.assertEqual(rc, 0, out)

    def test_python_key_counts(self):
        write(self.tmp + '/tests/func/test_b.py',
              'self.assertEqual(d["by_reason"]["low_b"], 3)\n')
        rc, out = run(self.tmp)
        self.assertEqual(rc, 0, out)

    def test_comments_and_longer_strings_do_not_count(self):
        write(self.tmp + '/tests/unit/low/test_b.c',
              '/* DP_DROP_LOW_B */\n// "low_b"\nputs("DP_DROP_LOW_B and low_b");\n'
              "char q = '\"'; /* a quote in a char: still code after it */\n")
        write(self.tmp + '/tests/func/test_b.py',
              '"""low_b"""\n# "low_b"\nx = "the low_b counter"\ny = f"{z}low_b"\n')
        self.assert_b_missing()

    def test_fuzz_targets_do_not_count(self):
        write(self.tmp + '/tests/fuzz/fuzz_low.c', 'n += drops[DP_DROP_LOW_B];\n')
        self.assert_b_missing()


if __name__ == '__main__':
    unittest.main(verbosity=2)
