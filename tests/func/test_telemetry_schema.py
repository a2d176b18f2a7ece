#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
The telemetry contract (docs/telemetry.md, docs/telemetry.schema.json) against a running
dpfwd:

- real snapshots validate against the schema (python3-jsonschema): one written while
  dpfwd runs and the final one, on the embedded default config (forwarding) and on a
  config with a relay service and an [endpoint] section with one endpoint attached
  (tests/netns/dpsock_peer), so that the optional sections are there;
- the schema is strict: every object of a fixed shape allows no other key and lists
  what it requires, every field has a description; a snapshot with a field renamed or
  missing does not validate;
- the field table of docs/telemetry.md is the schema's (scripts/telemetry_doc.py);
- the telemetry commands of docs/telemetry.md are the /dpfwd/ commands that `/` lists
  on the running dpfwd's socket.

Environment: DPFWD_BIN, DPFWD_BUILD, DPFWD_SRC, DPSOCK_PEER (tests/meson.build).
"""
import copy
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dprig  # noqa: E402

import jsonschema  # noqa: E402  (python3-jsonschema)

SRC = Path(os.environ.get("DPFWD_SRC", dprig.REPO))
SCHEMA = SRC / "docs" / "telemetry.schema.json"
DOC = SRC / "docs" / "telemetry.md"
PEER = os.environ.get("DPSOCK_PEER", str(dprig.BUILD / "tests" / "dpsock_peer"))

RELAY_ENDPOINT_CONFIG = """\
# written by test_telemetry_schema.py: a relay service and endpoints
[dpfwd]
main_lcore = 0

[port0]
dev = net_pcap0,rx_pcap={build}/pcap/relay-2000sessions-64b.pcap,infinite_rx=1
ip4 = 198.18.0.1/24
ip6 = 2001:db8::1/64

[port1]
dev = net_null0
ip4 = 198.18.101.1/24

[lcores]
rx = (0,0,1)

[routes]
route = 2001:db8:5::/48 via 2001:db8::2 port 0

[neighbors]
neigh = 198.18.101.2 lladdr 02:00:00:00:01:02 port 1

[relay0]
listen = 198.18.0.1:5000
backend = 198.18.101.2:6000
source = 198.18.101.1
ports = 20000-29999

[endpoint]
socket = {dir}/dpsock.sock
"""


def load_schema():
    with open(SCHEMA) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def errors(validator, snap):
    return ["%s: %s" % ("/".join(str(p) for p in e.absolute_path), e.message)
            for e in validator.iter_errors(snap)]


LINUX_COMMANDS = {"/dpfwd/linux/stats", "/dpfwd/linux/resync"}


def doc_commands():
    """The commands of the doc's table ("## Telemetry commands")."""
    text = DOC.read_text()
    sec = text[text.index("## Telemetry commands"):]
    sec = sec[:sec.index("\n## ", 5)]
    return set(re.findall(r"^\| `(/dpfwd/[a-z0-9_/]+)` \|", sec, re.M))


def run_dpfwd(tmp: Path, config: Path, endpoint: bool):
    """dpfwd on @config: (a snapshot while it runs, the final one, the /dpfwd/ commands
    that `/` lists, the sections whose command answered)."""
    with dprig.Dpfwd(tmp, config) as fwd:
        fwd.wait_ready(lambda: any(lc["rx_pkts"] > 0 for lc in fwd.final()["lcores"]))
        peer = None
        if endpoint:
            peer = subprocess.Popen([PEER, str(tmp / "dpsock.sock"), "echo",
                                     "198.18.0.1:7000", "1", "5000"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            line = peer.stdout.readline()
            if line.strip() != "ready":
                peer.kill()
                raise AssertionError("dpsock_peer: %r %s" % (line, peer.stderr.read()))
        try:
            # a snapshot written after the endpoint attached
            t0 = time.monotonic()
            while True:
                snap = fwd.final()
                if not endpoint or snap.get("endpoint_list"):
                    break
                if time.monotonic() - t0 > 10:
                    raise AssertionError("no endpoint in endpoint_list: %s"
                                         % snap.get("endpoint_list"))
                time.sleep(0.05)
            listed = fwd.telemetry().cmd("/")
            cmds = {c for c in listed if c.startswith("/dpfwd/")}
        finally:
            if peer is not None:
                peer.kill()
                peer.communicate()
        assert fwd.stop() == 0, fwd.log()
        final = fwd.final()
    return snap, final, cmds


class TelemetrySchemaTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.validator = load_schema()
        cls.tmp = tempfile.TemporaryDirectory(prefix="dpts.")
        cls.runs = {}

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_config(self, name):
        """(snapshot, final, commands) of a config, run once per test class."""
        if name not in self.runs:
            d = Path(self.tmp.name) / name
            d.mkdir()
            if name == "default":
                cfg, endpoint = SRC / "configs" / "default.ini", False
            else:
                cfg, endpoint = d / "relay-endpoint.ini", True
                cfg.write_text(RELAY_ENDPOINT_CONFIG.format(build=dprig.BUILD, dir=d))
            self.runs[name] = run_dpfwd(d, cfg, endpoint)
        return self.runs[name]

    def check_snapshots(self, name, sections):
        snap, final, _ = self.run_config(name)
        for what, s in (("running", snap), ("final", final)):
            self.assertEqual(errors(self.validator, s), [], "%s %s snapshot" % (name, what))
            for sec in sections:
                self.assertIn(sec, s, "%s %s snapshot" % (name, what))
        self.assertNotIn("final", snap)
        self.assertIs(final["final"], True)
        # time_unix keeps its sub-second part: two snapshots 100 ms apart do not share
        # one whole second often; at least one of them has a fraction
        self.assertTrue(snap["time_unix"] % 1 or final["time_unix"] % 1,
                        (snap["time_unix"], final["time_unix"]))
        # the drop groups add up to the reasons
        for s in (snap, final):
            by = s["drops"]["by_reason"]
            self.assertEqual(s["drops"]["total"] + s["drops"]["consumed"], sum(by.values()))
            self.assertEqual(s["drops"]["consumed"], by["arp_consumed"] + by["nd_consumed"])
        return snap, final

    def test_default_config_snapshots_validate(self):
        self.check_snapshots("default", ["lcores", "nodes", "drops", "delay", "ports",
                                         "mempools", "run", "fwd", "fwd6", "icmp4",
                                         "neighbors", "ctl", "route_changes", "interval"])

    def test_relay_endpoint_snapshots_validate(self):
        snap, _ = self.check_snapshots("relay", ["relay", "endpoint", "endpoint_list"])
        self.assertGreater(snap["relay"]["total"]["created"], 0)
        self.assertEqual(len(snap["endpoint_list"]), 1)

    def test_doc_commands_are_those_dpfwd_lists(self):
        cmds = set()
        for name in ("default", "relay"):
            listed = self.run_config(name)[2]
            self.assertTrue(listed, name)
            self.assertEqual(sorted(listed - doc_commands()), [],
                             "listed by dpfwd (%s), not in docs/telemetry.md" % name)
            cmds |= listed
        # [linux] needs root and TAP devices: tests/netns/test_linuxcp_netns.py checks its
        # commands against the doc
        self.assertEqual(sorted(doc_commands() - cmds - LINUX_COMMANDS), [],
                         "in docs/telemetry.md, listed by no dpfwd")

    def test_snapshot_with_a_field_renamed_or_missing_fails(self):
        snap = self.run_config("default")[1]
        for path, change in ((("lcores", 0, "rx_pkts"), "rename"),
                             (("drops", "consumed"), "delete"),
                             (("delay", "lcores", 0, "le_counts"), "delete"),
                             (("ports", 0, "ipackets"), "rename"),
                             (("time_unix",), "string"),
                             (("run",), "rename")):
            with self.subTest(path=path, change=change):
                s = copy.deepcopy(snap)
                parent = s
                for p in path[:-1]:
                    parent = parent[p]
                if change == "string":
                    parent[path[-1]] = str(parent[path[-1]])
                else:
                    v = parent.pop(path[-1])
                    if change == "rename":
                        parent[path[-1] + "_renamed"] = v
                self.assertNotEqual(errors(self.validator, s), [])

    def test_schema_is_strict_and_described(self):
        with open(SCHEMA) as f:
            schema = json.load(f)
        problems = []

        def walk(s, where, described=True):
            if s.get("type") == "object" or "properties" in s:
                if "additionalProperties" not in s:
                    problems.append("%s: additionalProperties not set" % where)
                if s.get("properties") and s.get("additionalProperties") is not False:
                    problems.append("%s: fixed fields, yet other keys allowed" % where)
                if s.get("properties") and "required" not in s:
                    problems.append("%s: no required list" % where)
                for k in s.get("required", []):
                    if k not in s.get("properties", {}):
                        problems.append("%s: requires %s, which it does not describe"
                                        % (where, k))
            if where != "$" and described and not s.get("description"):
                problems.append("%s: no description" % where)
            for k, v in s.get("properties", {}).items():
                walk(v, "%s.%s" % (where, k))
            if isinstance(s.get("additionalProperties"), dict):
                walk(s["additionalProperties"], where + ".<key>")
            if isinstance(s.get("items"), dict):
                walk(s["items"], where + "[]", False)

        walk(schema, "$")
        self.assertEqual(problems, [])

    def test_doc_field_table_is_the_schema(self):
        r = subprocess.run([sys.executable, str(SRC / "scripts" / "telemetry_doc.py"),
                            "--check", str(SRC)], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertGreater(DOC.read_text().count("\n| `"), 150)


if __name__ == "__main__":
    dprig.skip_unless_built(dprig.DPFWD, Path(PEER))
    unittest.main(verbosity=2)
