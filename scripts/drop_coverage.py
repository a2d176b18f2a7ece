#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every drop reason of every src/*/drop.def is named by a test: fails listing
those that no test names.

A test names a reason where its counter would be asserted:
  - in C, the enum DP_DROP_<SYMBOL>, or the JSON name as a whole string
    literal ("ep_no_route");
  - in Python, the JSON name as a whole string literal ('ep_no_route').
Comments do not count, nor docstrings or longer strings that contain the name.
The files read are the C and Python files under tests/, except tests/fuzz
(fuzz targets assert no counter) and tests/lint (checks, not drop tests).

Usage: drop_coverage.py [ROOT]   (ROOT: the source tree, default .)
"""
import ast
import glob
import os
import re
import sys

DEF_ROW = re.compile(r'^DP_(?:DROP|CONSUMED)\((\w+),\s*"(\w+)"', re.M)
SKIP_DIRS = ('fuzz', 'lint')


def reasons(root):
    """[(def file, line, symbol, json name)] of every src/*/drop.def."""
    out = []
    for path in sorted(glob.glob(os.path.join(root, 'src', '*', 'drop.def'))):
        with open(path) as f:
            text = f.read()
        for m in DEF_ROW.finditer(text):
            line = text.count('\n', 0, m.start()) + 1
            out.append((os.path.relpath(path, root), line, m.group(1), m.group(2)))
    return out


def c_code_and_strings(text):
    """C text with comments and string contents blanked, and its string literals."""
    code, strings = [], []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            i = n if j < 0 else j + 2
            code.append(' ')
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            if c == '"':
                strings.append(text[i + 1:j])
            code.append(c + c)
            i = j + 1
        else:
            code.append(c)
            i += 1
    return ''.join(code), strings


def py_strings(text):
    """The string literals of Python source, but docstrings and other bare string
    statements, and the pieces of f-strings."""
    tree = ast.parse(text)
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            skip.add(id(node.value))
        elif isinstance(node, ast.JoinedStr):
            skip.update(id(v) for v in node.values)
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
            and isinstance(n.value, str) and id(n) not in skip]


def test_files(root):
    tests = os.path.join(root, 'tests')
    for dirpath, dirnames, filenames in os.walk(tests):
        if os.path.relpath(dirpath, tests) == '.':
            dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
        for name in sorted(filenames):
            if name.endswith(('.c', '.h', '.py')):
                yield os.path.join(dirpath, name)


def named(root):
    """(C enum symbols named in code, JSON names named as whole string literals)."""
    symbols, names = set(), set()
    for path in test_files(root):
        with open(path, errors='replace') as f:
            text = f.read()
        if path.endswith('.py'):
            try:
                names.update(py_strings(text))
            except SyntaxError as e:
                raise SystemExit(f'drop_coverage: {path}:{e.lineno}: cannot parse: {e.msg}')
        else:
            code, strings = c_code_and_strings(text)
            symbols.update(re.findall(r'\bDP_DROP_(\w+)', code))
            names.update(strings)
    return symbols, names


def main(argv):
    root = argv[1] if len(argv) > 1 else '.'
    rs = reasons(root)
    if not rs:
        print(f'drop_coverage: no src/*/drop.def under {root}')
        return 1
    symbols, names = named(root)
    missing = [r for r in rs if r[2] not in symbols and r[3] not in names]
    for path, line, sym, name in missing:
        print(f'{path}:{line}: {name} (DP_DROP_{sym}): no test names it')
    print(f'drop_coverage: {len(rs) - len(missing)} of {len(rs)} drop reasons named by a test')
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
