# SPDX-License-Identifier: BSD-3-Clause
"""What the tests of the lint scripts share: a script run on a small tree, and its files."""
import os
import subprocess
import sys


def run_script(script, *args):
    """(exit status, stdout + stderr) of python script @script with @args."""
    p = subprocess.run([sys.executable, script, *args], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def write(path, text):
    """@text into @path, its folders made."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)
