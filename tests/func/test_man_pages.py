#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
The man pages (man/*.scd, built by man/meson.build): each renders with `man -l` and
groff reads it without a warning; and the options of `dpfwd --help`, `dpctl --help` and
`dpgen --help` are those their pages document, both ways.

The options of a --help text are read from its option lines (indented 1 to 8 spaces, then
'-'; prose starts in column 0, a description's next lines deeper): the line's columns
(split at two spaces or more) that start with '-', every -x / --long token of those. Those
of a page are read from its source: a line that starts with a bold option (`*-c*,
*--config* _FILE_`), every bold -x / --long token of it.

Environment: DPFWD_BIN, DPGEN_BIN, DPFWD_SRC, and MAN_PAGES (the built pages, separated
by ':'), as tests/meson.build sets them.
"""
import os
import re
import subprocess
import sys
import unittest

SRC = os.environ.get("DPFWD_SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
PAGES = [p for p in os.environ.get("MAN_PAGES", "").split(":") if p]
HELP = {
    "dpfwd": [os.environ.get("DPFWD_BIN", "build/apps/dpfwd/dpfwd"), "--help"],
    "dpgen": [os.environ.get("DPGEN_BIN", "build/apps/dpgen/dpgen"), "--help"],
    "dpctl": [sys.executable, os.path.join(SRC, "apps", "dpctl", "dpctl.py"), "--help"],
}
SOURCE = {"dpfwd": "dpfwd.8.scd", "dpgen": "dpgen.1.scd", "dpctl": "dpctl.8.scd"}
OPTION = re.compile(r"(?:^|(?<=[\s,/\[]))(--?[A-Za-z0-9][A-Za-z0-9-]*)")
BOLD_OPTION = re.compile(r"\*(--?[A-Za-z0-9][A-Za-z0-9-]*)\*")


def help_options(text):
    """The options an option line of a --help text names."""
    opts = set()
    for line in text.splitlines():
        if not re.match(r" {1,8}-", line):
            continue  # prose (column 0) or a description's next line (indented deeper)
        for col in re.split(r"\s{2,}", line.strip()):
            if col.startswith("-"):
                opts.update(OPTION.findall(col.split(";")[0]))
    return opts


def page_options(text):
    """The bold options of the lines of a page's source that start with one."""
    opts = set()
    for line in text.splitlines():
        if line.startswith("*-"):
            opts.update(BOLD_OPTION.findall(line))
    return opts


class ManPagesTest(unittest.TestCase):
    def test_help_parser_reads_columns(self):
        text = ("Usage: x [EAL options] -- [options]\n"
                "  -c, --config FILE     the config (see --other in prose)\n"
                "      --config-reference  print it\n"
                "  --no-pci              unless -a/-b/--no-pci is there\n"
                "                        --no-huge -m 512, a description's next line\n"
                "  -h, --help            this text;  -V, --version  the version\n"
                "--socket PATH; prose in column 0\n")
        self.assertEqual(help_options(text), {"-c", "--config", "--config-reference",
                                              "--no-pci", "-h", "--help", "-V", "--version"})
        self.assertEqual(page_options("*-c*, *--config* _FILE_\n\tsee *--other*\n"
                                      "*--rx-port* _N_|*none*\n"),
                         {"-c", "--config", "--rx-port"})

    def test_every_page_renders(self):
        self.assertEqual(len(PAGES), 7, PAGES)
        names = sorted(os.path.basename(p) for p in PAGES)
        self.assertEqual(names, ["dpbench.1", "dpctl.8", "dpfwd.8", "dpfwd.ini.5", "dpgen.1",
                                 "dpsock-run.1", "libdpsock.3"])
        for page in PAGES:
            name, section = os.path.basename(page).rsplit(".", 1)
            r = subprocess.run(["man", "-l", page], capture_output=True, text=True,
                               env=dict(os.environ, MANWIDTH="80", MANPAGER="cat",
                                        PAGER="cat"), timeout=60)
            self.assertEqual(r.returncode, 0, f"{page}: {r.stderr}")
            self.assertEqual(r.stderr, "", page)
            head = r.stdout.splitlines()[0]
            self.assertIn(f"{name}({section})", head, page)
            for heading in ("NAME", "DESCRIPTION", "SEE ALSO"):
                self.assertIn(f"\n{heading}\n", r.stdout, f"{page}: no {heading}")
            g = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", page],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual((g.returncode, g.stderr), (0, ""), page)

    def test_config_page_lists_every_key(self):
        ref = subprocess.run([HELP["dpfwd"][0], "--config-reference"], capture_output=True,
                             text=True, check=True, timeout=60).stdout
        keys = set(re.findall(r"^\| `(\w+)`", ref, re.M))
        self.assertGreater(len(keys), 40)
        page = [p for p in PAGES if p.endswith("dpfwd.ini.5")][0]
        text = subprocess.run(["man", "-l", page], capture_output=True, text=True,
                              env=dict(os.environ, MANWIDTH="80", MANPAGER="cat"),
                              check=True, timeout=60).stdout
        shown = set(re.findall(r"^ {7}(\w+)(?: \(repeatable\))?$", text, re.M))
        self.assertEqual(keys - shown, set())

    def test_help_and_page_name_the_same_options(self):
        for tool, argv in HELP.items():
            with self.subTest(tool=tool):
                r = subprocess.run(argv, capture_output=True, text=True, timeout=60)
                self.assertEqual(r.returncode, 0, r.stderr)
                in_help = help_options(r.stdout)
                self.assertGreater(len(in_help), 5, r.stdout)
                with open(os.path.join(SRC, "man", SOURCE[tool])) as f:
                    in_page = page_options(f.read())
                self.assertEqual(sorted(in_help - in_page), [],
                                 f"{tool} --help has options man/{SOURCE[tool]} lacks")
                self.assertEqual(sorted(in_page - in_help), [],
                                 f"man/{SOURCE[tool]} has options {tool} --help lacks")


if __name__ == "__main__":
    unittest.main(verbosity=2)
