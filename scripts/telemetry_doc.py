#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The field table of docs/telemetry.md, from docs/telemetry.schema.json: one row per
field of the telemetry JSON (its path, type, whether it is always there, and the
schema's description: meaning, unit, when present).

Usage: telemetry_doc.py [ROOT]           print the table
       telemetry_doc.py --check [ROOT]   exit 1 when the doc's table is not the schema's
       telemetry_doc.py --write [ROOT]   put the schema's table into the doc

The table sits between the BEGIN and END lines below in docs/telemetry.md.
"""
import json
import os
import sys

SCHEMA = os.path.join('docs', 'telemetry.schema.json')
DOC = os.path.join('docs', 'telemetry.md')
BEGIN = '<!-- BEGIN fields: scripts/telemetry_doc.py --write makes this table from ' \
        'docs/telemetry.schema.json -->'
END = '<!-- END fields -->'


def type_name(s):
    t = s.get('type')
    if t is None and 'const' in s:
        return json.dumps(s['const'])
    if isinstance(t, list):
        return ' or '.join(t)
    return t or 'any'


def cell(text):
    return text.replace('|', '\\|').replace('\n', ' ')


def rows(s, path, required, out):
    """Rows for the value at @path (None: the root) and what it holds."""
    if path is not None:
        out.append('| `%s` | %s | %s | %s |' % (
            path, type_name(s), 'always' if required else 'optional',
            cell(s.get('description', ''))))
    items = s.get('items')
    if isinstance(items, dict) and items.get('type') == 'object':
        for k, v in items.get('properties', {}).items():
            rows(v, '%s[].%s' % (path, k), k in items.get('required', []), out)
        extra = items.get('additionalProperties')
        if isinstance(extra, dict):
            rows(extra, '%s[].<key>' % path, False, out)
    for k, v in s.get('properties', {}).items():
        rows(v, k if path is None else '%s.%s' % (path, k), k in s.get('required', []), out)
    extra = s.get('additionalProperties')
    if isinstance(extra, dict) and path is not None:
        rows(extra, '%s.<key>' % path, False, out)


def table(root):
    with open(os.path.join(root, SCHEMA)) as f:
        schema = json.load(f)
    out = ['| field | type | present | meaning, unit, when present |', '|---|---|---|---|']
    rows(schema, None, True, out)
    return '\n'.join(out) + '\n'


def split_doc(root):
    with open(os.path.join(root, DOC)) as f:
        text = f.read()
    b, e = text.find(BEGIN), text.find(END)
    if b < 0 or e < b:
        sys.exit('%s: no table between "%s" and "%s"' % (DOC, BEGIN, END))
    b += len(BEGIN) + 1
    return text[:b], text[b:e], text[e:]


def main(argv):
    mode = argv[1] if len(argv) > 1 and argv[1].startswith('--') else None
    root = ([a for a in argv[1:] if not a.startswith('--')] or ['.'])[0]
    want = table(root)
    if mode is None:
        sys.stdout.write(want)
        return 0
    head, have, tail = split_doc(root)
    if mode == '--write':
        with open(os.path.join(root, DOC), 'w') as f:
            f.write(head + want + tail)
        return 0
    if have != want:
        import difflib
        sys.stdout.writelines(difflib.unified_diff(
            have.splitlines(True), want.splitlines(True), DOC + ' (the doc)',
            SCHEMA + ' (the schema)'))
        print('%s: the field table is not the schema\'s: scripts/telemetry_doc.py --write'
              % DOC)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
