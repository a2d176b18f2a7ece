#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpfwd.ini(5) in scdoc, from the key tables: `dpfwd --config-reference` (Markdown)
put into the page's template (man/dpfwd.ini.5.scd.in, at @SECTIONS@).

Usage: man_config.py DPFWD TEMPLATE OUT
"""
import re
import subprocess
import sys


def esc(text):
    """Markdown cell text as scdoc text: no code marks, scdoc's marks escaped."""
    text = text.replace('`', '')
    return re.sub(r'([*_\\])', r'\\\1', text)


def cells(line):
    return [c.strip() for c in line.strip().strip('|').split('|')]


def sections(md):
    """The reference's sections as scdoc: a heading, its text, a list of keys."""
    out, header, intro = [], None, True
    for line in md.splitlines():
        if line.startswith('<!--') or line.startswith('# '):
            continue
        if line.startswith('## '):
            intro, header = False, None
            out.append('## ' + esc(line[3:].strip()))
            out.append('')
            continue
        if intro:
            continue  # the reference's preamble: the page says it in its own words
        if line.startswith('|'):
            row = cells(line)
            if header is None:
                header = row
            elif not set(line) <= set('|-: '):
                r = dict(zip(header, row))
                key = r['key']
                rep = ' (repeatable)' in key
                key = key.replace(' (repeatable)', '').strip('`')
                out.append('*%s*%s' % (esc(key), ' (repeatable)' if rep else ''))
                out.append('\t%s. Type %s (%s); default %s.' % (
                    esc(r['description'][:1].upper() + r['description'][1:]),
                    esc(r['type']), esc(r['range']), esc(r['default'])))
                out.append('')
            continue
        header = None
        if line.strip():
            out.append(esc(line.strip()))
        else:
            out.append('')
    text = '\n'.join(out)
    return re.sub(r'\n{3,}', '\n\n', text).strip() + '\n'


def main():
    dpfwd, template, dest = sys.argv[1:4]
    md = subprocess.run([dpfwd, '--config-reference'], check=True, capture_output=True,
                        text=True).stdout
    with open(template) as f:
        page = f.read()
    if '@SECTIONS@' not in page:
        sys.exit('%s: no @SECTIONS@' % template)
    with open(dest, 'w') as f:
        f.write(page.replace('@SECTIONS@', sections(md).rstrip('\n')))


if __name__ == '__main__':
    main()
