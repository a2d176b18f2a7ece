#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/history_check.py: the real tree passes (no development history in README,
docs/, src/, apps/, configs/, tests/); in a small tree, each rule fails on a phrase
planted in a file it reads, named by file:line and rule, while the same words in their
legitimate senses pass, dates and commits pass in docs/performance.md only, and files
outside the scope or machine-made are not read."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SRC = os.environ.get('DPFWD_SRC', os.path.join(os.path.dirname(__file__), '..', '..'))
CHECK = os.path.join(SRC, 'scripts', 'history_check.py')

# (rule, a line that narrates history)
PLANTED = [
    ('seed', 'Bench: seed 003 rig, one worker.'),
    ('seed', '# Seeds 002 and 000 on the endpoint path'),
    ('issue', 'Faults while traffic flows (issue 7), on the memif rig.'),
    ('issue', 'the targets of issue #12'),
    ('session', "README: the fourteenth session's fwd-anchor run"),
    ('session', 'measured in this session on the 2-core VM'),
    ('session', 'numbers from dev session 4'),
    ('attempt', 'Prefetching both lines was tried and not kept.'),
    ('attempt', 'We tried a 2-way cache first.'),
    ('attempt', 'the change was reverted'),
    ('attempt', 'prefetching both lines too was slower'),
    ('attempt', 'keeping the lengths in registers measured 0.3 cycles/packet worse'),
    ('delta', '60.1 -> 55.5 cycles on the 64 B rig'),
    ('delta', 'ip4_fwd was 44.6 cycles before the split'),
    ('delta', 'relay4 went from 58.2 to 38.9 cycles'),
    ('was_now', "dpgen's --hold is no longer needed"),
    ('was_now', 'It used to leave at once for the MAC of X'),
    ('was_now', 'A longer value used to pass the scan'),
    ('was_now', 'about 3 % faster than before'),
    ('was_now', 'N = 1 times every packet, as before sampling.'),
    ('date', 'Latest (2026-11-23, this 2-core VM, 5 runs)'),
    ('commit', 'A later check at commit 2ef4bcc gave 1.010x'),
]

# the same words where they say what dpfwd is
LEGITIMATE = [
    'a session expires when idle; the next session of a slot gets new keys',
    "a client's second session) is counted; the session table and its session keys",
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
    p = subprocess.run([sys.executable, CHECK, root], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)


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
        write(self.tmp + '/tests/fuzz/corpus/config/003-fwd', '# Bench: seed 003 rig\n')
        write(self.tmp + '/docs/img/graph.svg', '<!-- issue 5 -->\n')
        write(self.tmp + '/scripts/notes.md', 'the fifteenth session, issue 5\n')
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
