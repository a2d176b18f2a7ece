#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check that dpfwd's modules keep their layers.

The top-level meson.build lists the modules of src/ in order (dp_modules);
each module's meson.build lists the modules it uses (deps = [...]), all of
which must come before it. This check fails when:
  - a module lists a dependency that comes after it, or is not a module;
  - a file of a module includes a header of a module outside its
    dependencies (direct or through them), or a private header of another
    module (public ones are dp_*.h and *_fp.h);
  - a module counts a drop reason (DP_DROP_<SYM>) that the drop.def of a
    module outside its dependencies declares; two drop.def files declare
    the same symbol or JSON name; a file includes a drop.def itself (the
    build collects them into dp_drop_list.def, which only src/common's
    dp_drop.h and drop.c include);
  - with --build DIR: a module's library (DIR/libdp_<m>.a) uses a symbol
    that only a module outside its dependencies defines;
  - an application-side library (APP_LIBS: built on libdpsock, loaded into
    programs that are not dpfwd) includes a module's header other than the
    installed ones it is allowed, or (with --build) its shared object needs
    a symbol that a module of dpfwd defines.

  scripts/layers.py [SOURCE_DIR] [--build BUILD_DIR]
"""
import argparse
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
DROP_DEF = re.compile(r'^\s*DP_(?:DROP|CONSUMED)\(\s*(\w+)\s*,\s*"([^"]*)"', re.M)
DROP_USE = re.compile(r'\bDP_DROP_(\w+)')


def meson_list(text, name):
    """The strings of `name = [...]` in a meson.build, or None."""
    m = re.search(r'^\s*' + name + r'\s*=\s*\[([^\]]*)\]', text, re.M)
    if m is None:
        return None
    return re.findall(r"'([^']+)'", m.group(1))


def is_public(header):
    return header.startswith('dp_') or header.endswith('_fp.h')


def load(src):
    """(modules in order, {module: direct deps}, problems)"""
    problems = []
    with open(os.path.join(src, 'meson.build')) as f:
        order = meson_list(f.read(), 'dp_modules')
    if not order:
        return [], {}, ['meson.build: no dp_modules list']
    deps = {}
    for i, m in enumerate(order):
        path = os.path.join(src, 'src', m, 'meson.build')
        with open(path) as f:
            d = meson_list(f.read(), 'deps')
        if d is None:
            problems.append('src/%s/meson.build: no deps = [...] list' % m)
            d = []
        for x in d:
            if x not in order:
                problems.append('src/%s/meson.build: deps names %s, not a module' % (m, x))
            elif order.index(x) >= i:
                problems.append('src/%s/meson.build: deps names %s, which comes after %s '
                                'in dp_modules' % (m, x, m))
        deps[m] = [x for x in d if x in order and order.index(x) < i]
    return order, deps, problems


def closure(deps, m):
    seen, todo = set(), list(deps.get(m, []))
    while todo:
        x = todo.pop()
        if x not in seen:
            seen.add(x)
            todo.extend(deps.get(x, []))
    return seen


def check_includes(src, order, deps):
    problems = []
    owner = {}
    for m in order:
        for f in os.listdir(os.path.join(src, 'src', m)):
            if f.endswith('.h'):
                owner[f] = m
    for m in order:
        allowed = closure(deps, m)
        folder = os.path.join(src, 'src', m)
        for f in sorted(os.listdir(folder)):
            if not f.endswith(('.c', '.h')):
                continue
            with open(os.path.join(folder, f), errors='replace') as fh:
                text = fh.read()
            for h in INCLUDE.findall(text):
                o = owner.get(os.path.basename(h))
                if o is None or o == m:
                    continue
                line = text[:text.index('"%s"' % h)].count('\n') + 1
                where = 'src/%s/%s:%d' % (m, f, line)
                if o not in allowed:
                    problems.append('%s: includes %s of module %s, which %s does not depend '
                                    'on (src/%s/meson.build deps)' % (where, h, o, m, m))
                elif not is_public(os.path.basename(h)):
                    problems.append('%s: includes %s, private to module %s (public headers '
                                    'are dp_*.h and *_fp.h)' % (where, h, o))
    return problems


def sources(src, m):
    """(file name, text) of a module's .c and .h files."""
    folder = os.path.join(src, 'src', m)
    for f in sorted(os.listdir(folder)):
        if f.endswith(('.c', '.h')):
            with open(os.path.join(folder, f), errors='replace') as fh:
                yield f, fh.read()


def check_drops(src, order, deps):
    """Each module's drop.def: names unique, reasons counted only by modules that
    depend on the one declaring them, drop.def never included by hand."""
    problems = []
    owner, json_owner = {}, {}
    for m in order:
        path = os.path.join(src, 'src', m, 'drop.def')
        if not os.path.exists(path):
            continue
        with open(path) as f:
            text = f.read()
        for d in DROP_DEF.finditer(text):
            sym, name = d.group(1), d.group(2)
            line = text[:d.start()].count('\n') + 1
            where = 'src/%s/drop.def:%d' % (m, line)
            if sym in owner:
                problems.append('%s: DP_DROP_%s is also declared in src/%s/drop.def'
                                % (where, sym, owner[sym]))
            if name in json_owner:
                problems.append('%s: drop reason name "%s" is also used in src/%s/drop.def'
                                % (where, name, json_owner[name]))
            owner.setdefault(sym, m)
            json_owner.setdefault(name, m)
    for m in order:
        allowed = closure(deps, m) | {m}
        for f, text in sources(src, m):
            for h in INCLUDE.findall(text):
                if os.path.basename(h) == 'drop.def':
                    line = text[:text.index('"%s"' % h)].count('\n') + 1
                    problems.append('src/%s/%s:%d: includes %s (the build collects every '
                                    'drop.def into dp_drop_list.def; include dp_drop.h)'
                                    % (m, f, line, h))
            for match in DROP_USE.finditer(text):
                o = owner.get(match.group(1))
                if o is None or o in allowed:
                    continue
                line = text[:match.start()].count('\n') + 1
                problems.append('src/%s/%s:%d: counts DP_DROP_%s of module %s, which %s does '
                                'not depend on (src/%s/meson.build deps)'
                                % (m, f, line, match.group(1), o, m, m))
    return problems


def nm(path, *flags):
    out = subprocess.run(['nm', '--format=posix', *flags, path], check=True,
                         capture_output=True, text=True).stdout
    syms = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and not line.endswith(':'):
            syms.add(parts[0])
    return syms


def check_symbols(build, order, deps):
    problems = []
    defined, undefined = {}, {}
    for m in order:
        lib = os.path.join(build, 'libdp_%s.a' % m)
        if not os.path.exists(lib):
            return ['%s: not built (run ninja first)' % lib]
        defined[m] = nm(lib, '--defined-only', '--extern-only')
        undefined[m] = nm(lib, '--undefined-only')
    for m in order:
        allowed = closure(deps, m) | {m}
        for s in sorted(undefined[m]):
            owners = [o for o in order if s in defined[o]]
            if owners and not any(o in allowed for o in owners):
                problems.append('libdp_%s.a uses %s, defined in module %s, which %s does not '
                                'depend on' % (m, s, owners[0], m))
    return problems


# Application-side libraries: folder -> (module headers they may include, their shared
# object in the build tree). They link libdpsock and nothing of dpfwd's modules.
APP_LIBS = {
    'lib/preload': (['dpsock.h'], 'lib/preload/libdpsock-preload.so'),
}


def check_app_libs(src, order, build):
    problems = []
    owner = {}
    for m in order:
        for f in os.listdir(os.path.join(src, 'src', m)):
            if f.endswith('.h'):
                owner[f] = m
    for folder, (allowed, so) in APP_LIBS.items():
        path = os.path.join(src, folder)
        if not os.path.isdir(path):
            continue
        for f in sorted(os.listdir(path)):
            if not f.endswith(('.c', '.h')):
                continue
            with open(os.path.join(path, f), errors='replace') as fh:
                text = fh.read()
            for h in INCLUDE.findall(text):
                o = owner.get(os.path.basename(h))
                if o is None or os.path.basename(h) in allowed:
                    continue
                line = text[:text.index('"%s"' % h)].count('\n') + 1
                problems.append('%s/%s:%d: includes %s of module %s; an application-side '
                                'library may include only %s' % (folder, f, line, h, o,
                                                                 ', '.join(allowed)))
        if build is None:
            continue
        lib = os.path.join(build, so)
        if not os.path.exists(lib):
            problems.append('%s: not built (run ninja first)' % lib)
            continue
        needed = nm(lib, '-D', '--undefined-only')
        for m in order:
            mod = os.path.join(build, 'libdp_%s.a' % m)
            if not os.path.exists(mod):
                continue
            for s in sorted(needed & nm(mod, '--defined-only', '--extern-only')):
                problems.append('%s uses %s, defined in module %s of dpfwd' % (so, s, m))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('src', nargs='?', default=os.path.join(os.path.dirname(__file__), '..'))
    ap.add_argument('--build', help='build directory: also check the modules\' symbols')
    a = ap.parse_args()
    order, deps, problems = load(a.src)
    if order:
        problems += check_includes(a.src, order, deps)
        problems += check_drops(a.src, order, deps)
        if a.build:
            problems += check_symbols(a.build, order, deps)
        problems += check_app_libs(a.src, order, a.build)
    for p in problems:
        print('layers: ' + p)
    if problems:
        return 1
    print('layers: %d modules, includes, drop reasons%s within their dependencies; '
          '%d application-side libraries on libdpsock alone' %
          (len(order), ' and symbols' if a.build else '', len(APP_LIBS)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
