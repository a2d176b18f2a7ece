#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Python style: flake8 (pycodestyle and pyflakes), with the settings of the tree's .flake8
(100 columns), finds nothing in the tracked Python files (git ls-files '*.py'). On a planted
file next to a copy of .flake8 it finds a line of 101 columns, a variable named l, a lambda
assigned to a name and an unused import, and lets a line of 100 columns pass."""
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from lintcheck import write

SRC = os.environ.get('DPFWD_SRC', os.path.join(os.path.dirname(__file__), '..', '..'))


def flake8(cwd, files):
    """(exit status, findings) of flake8 on @files, run in @cwd: it reads @cwd's .flake8."""
    p = subprocess.run([sys.executable, '-m', 'flake8', *files], cwd=cwd,
                       capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


class PythonStyle(unittest.TestCase):
    def test_tracked_python_is_clean(self):
        files = subprocess.run(['git', 'ls-files', '*.py'], cwd=SRC, capture_output=True,
                               text=True, check=True).stdout.split()
        self.assertIn('tests/lint/lintcheck.py', files)
        rc, out = flake8(SRC, files)
        self.assertEqual(rc, 0, "flake8 findings (settings in .flake8):\n" + out)
        self.assertEqual(out, '')

    def test_planted_findings_fail(self):
        tmp = tempfile.mkdtemp(prefix='dpfwd-python-style-')
        self.addCleanup(shutil.rmtree, tmp)
        shutil.copy(os.path.join(SRC, '.flake8'), tmp)
        ok_line = 'OK = "' + 'x' * 93 + '"\n'
        long_line = 'LONG = "' + 'x' * 92 + '"\n'
        self.assertEqual((len(ok_line), len(long_line)), (101, 102))   # with the newline
        write(tmp + '/bad.py', 'import os\n\n' + ok_line + long_line +
              'double = lambda v: 2 * v\n'
              'l = [double(v) for v in range(3)]\n')
        write(tmp + '/good.py', ok_line)
        rc, out = flake8(tmp, ['bad.py', 'good.py'])
        self.assertEqual(rc, 1, out)
        self.assertEqual(sorted(line.split()[1] for line in out.splitlines()),
                         ['E501', 'E731', 'E741', 'F401'], out)
        self.assertIn('bad.py:1:1: F401', out)
        self.assertIn('bad.py:4:101: E501 line too long (101 > 100 characters)', out)
        self.assertIn('bad.py:5:1: E731', out)
        self.assertIn('bad.py:6:1: E741', out)
        self.assertNotIn('good.py', out)


if __name__ == '__main__':
    if importlib.util.find_spec('flake8') is None:
        print(f'FAIL: {sys.executable} has no flake8: python3-flake8 is not installed '
              '(scripts/dev.sh installs it)')
        sys.exit(1)
    unittest.main(verbosity=2)
