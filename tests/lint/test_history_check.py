#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/history_check.py: the real tree passes (no development history in README,
docs/, src/, apps/, configs/, tests/); in a small tree, each rule fails on a phrase
planted in a file it reads, named by file:line and rule, while the same words in their
legitimate senses pass, dates and commits pass in docs/performance.md only, and files
outside the scope or machine-made are not read."""
import codecs
import os
import shutil
import subprocess
import tempfile
import unittest

from lintcheck import run_script, write

SRC = os.environ.get('DPFWD_SRC', os.path.join(os.path.dirname(__file__), '..', '..'))
CHECK = os.path.join(SRC, 'scripts', 'history_check.py')

# (rule, a line that narrates history), each stored rot13-encoded: the tree itself never
# carries the phrases, so that a history check reading tests/ (this one or another) finds
# none here
PLANTED = [(rule, codecs.decode(text, 'rot13')) for rule, text in [
    ('seed', 'Orapu: frrq 003 evt, bar jbexre.'),
    ('seed', '# Frrqf 002 naq 000 ba gur raqcbvag cngu'),
    ('issue', 'Snhygf juvyr genssvp sybjf (vffhr 7), ba gur zrzvs evt.'),
    ('issue', 'gur gnetrgf bs vffhr #12'),
    ('session', "ERNQZR: gur sbhegrragu frffvba'f sjq-napube eha"),
    ('session', 'zrnfherq va guvf frffvba ba gur 2-pber IZ'),
    ('session', 'ahzoref sebz qri frffvba 4'),
    ('attempt', 'Cersrgpuvat obgu yvarf jnf gevrq naq abg xrcg.'),
    ('attempt', 'Jr gevrq n 2-jnl pnpur svefg.'),
    ('attempt', 'gur punatr jnf eriregrq'),
    ('attempt', 'cersrgpuvat obgu yvarf gbb jnf fybjre'),
    ('attempt', 'xrrcvat gur yratguf va ertvfgref zrnfherq 0.3 plpyrf/cnpxrg jbefr'),
    ('delta', '60.1 -> 55.5 plpyrf ba gur 64 O evt'),
    ('delta', 'vc4_sjq jnf 44.6 plpyrf orsber gur fcyvg'),
    ('delta', 'erynl4 jrag sebz 58.2 gb 38.9 plpyrf'),
    ('was_now', "qctra'f --ubyq vf ab ybatre arrqrq"),
    ('was_now', 'Vg hfrq gb yrnir ng bapr sbe gur ZNP bs K'),
    ('was_now', 'N ybatre inyhr hfrq gb cnff gur fpna'),
    ('was_now', 'nobhg 3 % snfgre guna orsber'),
    ('was_now', 'A = 1 gvzrf rirel cnpxrg, nf orsber fnzcyvat.'),
    ('date', 'Yngrfg (2026-11-23, guvf 2-pber IZ, 5 ehaf)'),
    ('commit', 'N yngre purpx ng pbzzvg 2rs4opp tnir 1.010k'),
]]

# the same words where they say what dpfwd is
LEGITIMATE = [
    'a session expires when idle; the next session of a slot gets new keys',
    codecs.decode("n pyvrag'f frpbaq frffvba) vf pbhagrq; gur frffvba gnoyr naq vgf frffvba xrlf",
                  'rot13'),
    'one session 0.945x of forwarding',
    'the first datagram opens a session with one backend',
    'kept: tried again at the next change',
    'retried on EINTR; a send is retried until it fits',
    'The histogram\'s minimum is not kept (it would take a second line)',
    'the TSC value is used to stamp packets; a buffer is used to hold the header',
    'descriptors more than before the input',
    'a mempool seed of 42 is not a seed number',
    'the issue of ordering: packets of one flow keep theirs',
    'RFC 1624 eqn. 3, 0xffff -> 0x0000 is the only carry case',
    '# no longer than 255 bytes',
    'the 5-tuple hash picks a queue; 4 ways, 8 entries a slot',
]


def run(root):
    return run_script(CHECK, root)


class HistoryCheck(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='dpfwd-history-')
        write(self.tmp + '/README.md', '# dpfwd\n\nA router.\n')
        write(self.tmp + '/src/fwd/fwd.c', '/* forwarding */\n')

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_real_tree_passes(self):
        rc, out = run(SRC)
        self.assertEqual(rc, 0, out)

    def test_clean_small_tree_passes(self):
        rc, out = run(self.tmp)
        self.assertEqual(rc, 0, out)
        self.assertIn('no development history', out)

    def test_each_planted_phrase_fails_with_file_line_rule(self):
        for rule, line in PLANTED:
            with self.subTest(rule=rule, line=line):
                write(self.tmp + '/docs/routing.md', '# Routing\n\nIntro.\n' + line + '\n')
                rc, out = run(self.tmp)
                self.assertEqual(rc, 1, out)
                self.assertIn(f'docs/routing.md:4: [{rule}]', out)
                self.assertIn('1 line(s) narrate history', out)

    def test_planted_in_a_c_comment_and_a_config_fails(self):
        write(self.tmp + '/src/relay/relay_fp.h',
              '/*\n * the cache, after issue 5\n */\nstatic int x;\n')
        write(self.tmp + '/configs/bench/fwd.ini', '# Bench: seed 004 at 100 B\n[bench]\n')
        rc, out = run(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn('src/relay/relay_fp.h:2: [issue]', out)
        self.assertIn('configs/bench/fwd.ini:1: [seed]', out)

    def test_legitimate_text_passes(self):
        write(self.tmp + '/docs/relay.md', '# Relay\n' + '\n'.join(LEGITIMATE) + '\n')
        write(self.tmp + '/src/relay/relay.c',
              ''.join(f'/* {line} */\n' for line in LEGITIMATE))
        rc, out = run(self.tmp)
        self.assertEqual(rc, 0, out)

    def test_dates_and_commits_only_in_performance_md(self):
        result = 'IPv4 forwarding, 2026-11-23, commit c6b5175: 1.009x l3fwd static\n'
        write(self.tmp + '/docs/performance.md', '# Performance\n' + result)
        write(self.tmp + '/CHANGELOG.md', '## 0.1.0 (2026-11-28)\n')
        rc, out = run(self.tmp)
        self.assertEqual(rc, 0, out)
        write(self.tmp + '/docs/relay.md', '# Relay\n' + result)
        rc, out = run(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn('docs/relay.md:2: [date]', out)
        self.assertIn('docs/relay.md:2: [commit]', out)
        self.assertNotIn('performance.md', out.split('history_check:')[0])

    def test_dates_in_the_readme_performance_section_only(self):
        write(self.tmp + '/README.md',
              '# dpfwd\n\n## Performance\n\n| fwd | 1.009x | 2026-11-23, commit c6b5175 |\n'
              '\n## License\n\nBSD.\n')
        rc, out = run(self.tmp)
        self.assertEqual(rc, 0, out)
        write(self.tmp + '/README.md',
              '# dpfwd\n\n## Performance\n\n| fwd | 1.009x | 2026-11-23 |\n'
              '\n## Status\n\nMeasured on 2026-11-22.\n')
        rc, out = run(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn('README.md:9: [date]', out)
        self.assertNotIn('README.md:5:', out)

    def test_out_of_scope_and_machine_made_files_are_not_read(self):
        write(self.tmp + '/tests/fuzz/corpus/config/003-fwd', PLANTED[0][1] + '\n')
        write(self.tmp + '/docs/img/graph.svg', '<!-- %s -->\n' % PLANTED[3][1])
        write(self.tmp + '/scripts/notes.md', PLANTED[4][1] + '\n')
        rc, out = run(self.tmp)
        self.assertEqual(rc, 0, out)

    def test_git_tree_reads_untracked_files_too(self):
        if shutil.which('git') is None:
            self.fail('git is not installed (scripts/dev.sh installs it)')
        subprocess.run(['git', 'init', '-q', self.tmp], check=True)
        write(self.tmp + '/docs/new.md', 'after issue 9\n')
        rc, out = run(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn('docs/new.md:1: [issue]', out)


if __name__ == '__main__':
    unittest.main(verbosity=2)
