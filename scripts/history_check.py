#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""No development history in the tree: fails listing each line that narrates
how dpfwd got where it is instead of saying what it is.

The docs, the code and its comments describe dpfwd as it is. History lives in
`git log` and CHANGELOG.md; measured results live in docs/performance.md, each
with its date, commit, machine and command.

Flagged (each rule has a name, printed with the line):
  seed          "seed 003", "seeds 002 and 000": a reference document of the
                development, not a name a user knows; name the experiment by
                what it is
  issue         "issue 5", "issue #12": a tracker entry is history
  session       "this session", "the 3rd session", "work session": how the work
                was organised (a relay session, "a session's keys", is dpfwd's)
  attempt       "tried and ...", "we tried", "and not kept", "reverted", "which
                was slower", "measured 0.3 cycles worse"
  delta         a per-change measurement: "was 44.6 cycles", "-> 40.3 cycles",
                "60.1 to 55.5 cycles"
  was_now       "no longer needed", "it used to", "than before", "as it did
                before", "measured earlier", "before this commit"
  date          a date (2026-11-23): only docs/performance.md, CHANGELOG.md and
                the README's "## Performance" section carry dates
  commit        "at commit 84f9c28": only where dates may be

Read: README.md and the text files under docs/, src/, apps/, configs/,
drivers-cfg/, lib/ and tests/ (git's list when ROOT is a work tree). Not read:
machine-made files (the fuzz corpora, docs/img/, docs/config-reference.md is
read: it is made from the key tables' text), binary files, and this check and
its test, which must spell the phrases out.

EXEMPT below lists (path, rule) pairs that are not history although they match;
each says why.

Usage: history_check.py [ROOT]   (ROOT: the source tree, default .)
Exit: 0 clean, 1 a line is flagged, 2 usage.
"""
import os
import re
import subprocess
import sys

SCOPE_FILES = ('README.md',)
SCOPE_DIRS = ('docs', 'src', 'apps', 'configs', 'drivers-cfg', 'lib', 'tests')
NOT_READ = (
    'tests/fuzz/corpus/',  # inputs libFuzzer found, named by their hash
    'docs/img/',  # plots and graphs drawn by the tools
    'scripts/history_check.py',
    'tests/lint/test_history_check.py',
)
TEXT_EXT = ('.md', '.c', '.h', '.py', '.sh', '.ini', '.txt', '.build', '.def', '.dict',
            '.service', '.supp', '.scd', '.json', '.in', '.cfg', '')

# Files that may carry dates and commits: the results and the change log; and
# sections of a file that may (the README's one table of current results).
DATED = ('docs/performance.md', 'CHANGELOG.md')
DATED_SECTIONS = {'README.md': '## Performance'}

NUM = r'\d+(?:[.,]\d+)?'
UNIT = r'(?:busy )?(?:cycles?|cyc|Mpps|Gbps|ns|us|%)'

RULES = [
    ('seed', re.compile(r'\bseeds? 0\d\d\b', re.I)),
    ('issue', re.compile(r'\bissues? #?\d+\b', re.I)),
    ('session', re.compile(
        r'\b(?:in|during|since) (?:this|that|the previous|an earlier|a previous'
        r'|a later) (?:dev |development |work |coding |review )?session\b'
        r'|\b(?:work|dev|development|coding|review|agent)'
        r' sessions?\b(?! ?(?:key|table|slot|cache|entry|entries|state|owner|port|id|timeout)s?\b)'
        r'|\bthe (?:\d+(?:st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|eighth'
        r'|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|nth)'
        r' (?:dev |development |work )?session\b'
        r'|\bsession #?\d+\b(?![.,]\d|x)', re.I)),
    ('attempt', re.compile(
        r'\btried (?:and|but)\b|\b(?:we|I) tried\b|\b(?:and|but) not kept\b'
        r'|\b(?:was|were) reverted\b'
        r'|\breverted\b|\btried out\b'
        r'|\b(?:was|were) (?:\S+ )?(?:slower|faster|worse|better)\b'
        r'|\bmeasured (?:\S+ ){0,3}(?:slower|faster|worse|better)\b', re.I)),
    ('delta', re.compile(
        r'\b(?:was|were|from) ' + NUM + r' ?' + UNIT + r'(?=\W|$)'
        r'|(?:->|→|=>) ?' + NUM + r' ?' + UNIT + r'(?=\W|$)'
        r'|\b' + NUM + r' (?:to|->) ' + NUM + r' ?' + UNIT + r'(?=\W|$)', re.I)),
    ('was_now', re.compile(
        r'\bno longer (?:needed|necessary|required|used|the case|happens|crashes|fails)\b'
        r'|\b(?:it|this|that|which|dpfwd|dpgen|they|we|the code|the test) used to\b'
        r'|(?<!\bis )(?<!\bare )(?<!\bbe )(?<!\bwas )(?<!\bwere )(?<!\bbeen )(?<!\bbeing )'
        r'\bused to (?:pass|fail|crash|hold|leave|end|take|cost|give|be|drop|return|send|read'
        r'|write|stop|hang|leak|lose|miss|skip|break)\b'
        r'|\bas before (?:sampling|the change|this)\b'
        r'|\b(?:faster|slower|better|worse|more|less|fewer|higher|lower) than before\b'
        r'(?! (?:the|it|an?|its|any)\b)|\bas (?:it |dpfwd |dpgen )?did before\b'
        r'|\bmeasured (?:earlier|before)\b'
        r'|\bbefore this (?:commit|change|fix|patch)\b|\bafter this (?:commit|change|fix|patch)\b'
        r'|\bthis (?:commit|patch)\b', re.I)),
    ('date', re.compile(r'\b20\d\d-[01]\d-[0-3]\d\b')),
    ('commit', re.compile(r'\b(?:at |commit |build of )(?:commit )?[0-9a-f]{7,40}\b')),
]

# (path, rule): why it is not history.
EXEMPT = {
}


def tracked(root):
    """Relative paths of the files to read."""
    try:
        out = subprocess.run(['git', '-C', root, 'ls-files', '-z', '--cached', '--others',
                              '--exclude-standard'], capture_output=True, check=True)
        names = [n for n in out.stdout.decode().split('\0') if n]
    except (OSError, subprocess.CalledProcessError):
        names = []
        for d in SCOPE_DIRS + ('',):
            base = os.path.join(root, d)
            if d == '':
                names += [f for f in SCOPE_FILES if os.path.isfile(os.path.join(root, f))]
                continue
            for dirpath, dirnames, filenames in os.walk(base):
                dirnames[:] = [x for x in dirnames if not x.startswith('.') and x != 'build']
                for f in filenames:
                    names.append(os.path.relpath(os.path.join(dirpath, f), root))
    keep = []
    for n in sorted(set(names)):
        if not (n in SCOPE_FILES or n.split('/')[0] in SCOPE_DIRS):
            continue
        if any(n.startswith(x) for x in NOT_READ):
            continue
        base = os.path.basename(n)
        ext = os.path.splitext(base)[1]
        if ext not in TEXT_EXT or (ext == '' and base != 'meson.build' and '.' in base):
            continue
        if os.path.isfile(os.path.join(root, n)):
            keep.append(n)
    return keep


def findings(root, path):
    """[(line number, rule, text)] of one file."""
    try:
        with open(os.path.join(root, path), encoding='utf-8') as f:
            lines = f.read().split('\n')
    except UnicodeDecodeError:
        return []
    out = []
    dated_section = DATED_SECTIONS.get(path)
    in_dated = False
    for i, line in enumerate(lines, 1):
        if dated_section is not None and line.startswith('## '):
            in_dated = line.rstrip() == dated_section
        for name, rx in RULES:
            if name in ('date', 'commit') and (path in DATED or in_dated):
                continue
            if (path, name) in EXEMPT:
                continue
            m = rx.search(line)
            if m:
                out.append((i, name, m.group(0), line.strip()))
    return out


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith('-')):
        print(__doc__.strip().split('\n\n')[-1], file=sys.stderr)
        return 2
    root = argv[1] if len(argv) == 2 else '.'
    files = tracked(root)
    if not files:
        print(f'history_check: nothing to read under {root}', file=sys.stderr)
        return 2
    bad = 0
    for path in files:
        for line, rule, what, text in findings(root, path):
            bad += 1
            print(f'{path}:{line}: [{rule}] "{what}": {text[:160]}')
    if bad:
        print(f'history_check: {bad} line(s) narrate history in {len(files)} files read; '
              'say what dpfwd is (results: docs/performance.md; history: git log, '
              'CHANGELOG.md), or add a (path, rule) to EXEMPT with its reason')
        return 1
    print(f'history_check: {len(files)} files, no development history')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
