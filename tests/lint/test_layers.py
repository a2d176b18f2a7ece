#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/layers.py: the real tree passes; a wrong include, a private header,
a dependency out of order, a symbol taken from an upper module, a drop reason
of an upper module, a drop reason declared twice and a dpfwd header in an
application-side library (lib/preload) each fail, named by file
and line (or library and symbol)."""
import os
import shutil
import subprocess
import tempfile
import unittest

from lintcheck import run_script, write

SRC = os.environ.get('DPFWD_SRC', os.path.join(os.path.dirname(__file__), '..', '..'))
BUILD = os.environ.get('DPFWD_BUILD')
LAYERS = os.path.join(SRC, 'scripts', 'layers.py')


def run(*args):
    return run_script(LAYERS, *args)


class Layers(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='dpfwd-layers-')

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def small_tree(self):
        """Two modules: low (no deps) and high (deps low)."""
        t = self.tmp
        write(t + '/meson.build', "dp_modules = ['low', 'high']\n")
        write(t + '/src/low/meson.build', "deps = []\nsources = files('low.c')\n")
        write(t + '/src/low/dp_low.h', 'int dp_low(void);\n')
        write(t + '/src/low/low_priv.h', 'int low_secret(void);\n')
        write(t + '/src/low/low.c', '#include "dp_low.h"\n#include "low_priv.h"\n'
              'int dp_low(void) { return low_secret(); }\nint low_secret(void) { return 1; }\n')
        write(t + '/src/high/meson.build', "deps = ['low']\nsources = files('high.c')\n")
        write(t + '/src/high/dp_high.h', 'int dp_high(void);\n')
        write(t + '/src/high/high.c', '#include "dp_high.h"\n#include "dp_low.h"\n'
              'int dp_high(void) { return dp_low(); }\n')
        return t

    def test_real_tree_passes(self):
        args = [SRC] + (['--build', BUILD] if BUILD else [])
        rc, out = run(*args)
        self.assertEqual(rc, 0, out)
        # every folder of src/ is a module the check read
        modules = [d for d in os.listdir(os.path.join(SRC, 'src'))
                   if os.path.isfile(os.path.join(SRC, 'src', d, 'meson.build'))]
        self.assertIn('%d modules' % len(modules), out)

    def test_small_tree_passes(self):
        rc, out = run(self.small_tree())
        self.assertEqual(rc, 0, out)

    def test_include_of_an_upper_module_fails(self):
        t = self.small_tree()
        with open(t + '/src/low/low.c', 'a') as f:
            f.write('#include "dp_high.h"\n')
        rc, out = run(t)
        self.assertEqual(rc, 1, out)
        self.assertIn('src/low/low.c:5: includes dp_high.h of module high', out)

    def test_private_header_of_a_lower_module_fails(self):
        t = self.small_tree()
        with open(t + '/src/high/high.c', 'a') as f:
            f.write('#include "low_priv.h"\n')
        rc, out = run(t)
        self.assertEqual(rc, 1, out)
        self.assertIn('src/high/high.c:4: includes low_priv.h, private to module low', out)

    def test_dependency_out_of_order_fails(self):
        t = self.small_tree()
        write(t + '/src/low/meson.build', "deps = ['high']\nsources = files('low.c')\n")
        rc, out = run(t)
        self.assertEqual(rc, 1, out)
        self.assertIn('src/low/meson.build: deps names high, which comes after low', out)

    def test_wrong_include_in_a_copy_of_the_real_tree_fails(self):
        """fwd including the relay's header: what the check exists for."""
        t = self.tmp + '/tree'
        shutil.copytree(os.path.join(SRC, 'src'), t + '/src')
        shutil.copy(os.path.join(SRC, 'meson.build'), t + '/meson.build')
        path = t + '/src/fwd/ip4_fwd_node.c'
        with open(path) as f:
            lines = f.read().split('\n')
        at = lines.index('#include "fwd_fp.h"')
        lines.insert(at, '#include "relay_fp.h"')
        with open(path, 'w') as f:
            f.write('\n'.join(lines))
        rc, out = run(t)
        self.assertEqual(rc, 1, out)
        self.assertIn('src/fwd/ip4_fwd_node.c:%d: includes relay_fp.h of module relay' % (at + 1),
                      out)

    def test_module_header_in_the_preload_library_fails(self):
        """lib/preload (an application-side library) including a header of dpfwd's."""
        t = self.tmp + '/tree'
        shutil.copytree(os.path.join(SRC, 'src'), t + '/src')
        shutil.copytree(os.path.join(SRC, 'lib', 'preload'), t + '/lib/preload')
        shutil.copy(os.path.join(SRC, 'meson.build'), t + '/meson.build')
        path = t + '/lib/preload/preload.c'
        with open(path) as f:
            lines = f.read().split('\n')
        at = lines.index('#include "preload_priv.h"')
        lines.insert(at, '#include "dp_common.h"')
        with open(path, 'w') as f:
            f.write('\n'.join(lines))
        rc, out = run(t)
        self.assertEqual(rc, 1, out)
        self.assertIn('lib/preload/preload.c:%d: includes dp_common.h of module common; an '
                      'application-side library may include only dpsock.h' % (at + 1), out)

    def test_drop_reason_of_an_upper_module_fails(self):
        t = self.small_tree()
        write(t + '/src/low/drop.def', 'DP_DROP(LOW_BAD, "low_bad", "low: bad")\n')
        write(t + '/src/high/drop.def', 'DP_DROP(HIGH_BAD, "high_bad", "high: bad")\n')
        with open(t + '/src/high/high.c', 'a') as f:
            f.write('int high_why(void) { return DP_DROP_LOW_BAD; }\n')
        rc, out = run(t)
        self.assertEqual(rc, 0, out)
        with open(t + '/src/low/low.c', 'a') as f:
            f.write('int low_why(void) { return DP_DROP_HIGH_BAD; }\n')
        rc, out = run(t)
        self.assertEqual(rc, 1, out)
        self.assertIn('src/low/low.c:5: counts DP_DROP_HIGH_BAD of module high', out)

    def test_drop_reason_declared_twice_fails(self):
        t = self.small_tree()
        write(t + '/src/low/drop.def', 'DP_DROP(LOW_BAD, "bad", "low: bad")\n')
        write(t + '/src/high/drop.def', '/* high */\nDP_DROP(HIGH_BAD, "bad", "high: bad")\n'
              'DP_DROP(LOW_BAD, "low_bad2", "high: bad too")\n')
        rc, out = run(t)
        self.assertEqual(rc, 1, out)
        self.assertIn('src/high/drop.def:2: drop reason name "bad" is also used in '
                      'src/low/drop.def', out)
        self.assertIn('src/high/drop.def:3: DP_DROP_LOW_BAD is also declared in '
                      'src/low/drop.def', out)

    def test_drop_def_included_by_hand_fails(self):
        t = self.small_tree()
        write(t + '/src/low/drop.def', 'DP_DROP(LOW_BAD, "low_bad", "low: bad")\n')
        with open(t + '/src/high/high.c', 'a') as f:
            f.write('#include "../low/drop.def"\n')
        rc, out = run(t)
        self.assertEqual(rc, 1, out)
        self.assertIn('src/high/high.c:4: includes ../low/drop.def', out)

    def test_symbol_of_an_upper_module_fails(self):
        """low calls dp_high() through its own declaration: no include to see."""
        t = self.small_tree()
        b = t + '/build'
        os.makedirs(b)
        write(t + '/src/low/low.c', 'int dp_high(void);\nint dp_low(void) { return dp_high(); }\n')
        for m in ('low', 'high'):
            obj = '%s/%s.o' % (b, m)
            subprocess.run(['cc', '-c', '-I', t + '/src/low', '-o', obj,
                            '%s/src/%s/%s.c' % (t, m, m)], check=True)
            subprocess.run(['ar', 'rcs', '%s/libdp_%s.a' % (b, m), obj], check=True)
        rc, out = run(t, '--build', b)
        self.assertEqual(rc, 1, out)
        self.assertIn('libdp_low.a uses dp_high, defined in module high', out)


if __name__ == '__main__':
    unittest.main(verbosity=2)
