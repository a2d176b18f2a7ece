#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Bench configs: every error names file:line and exits 2; variants expand
to the right dpfwd --set arguments; the shipped configs load.  The checks
that ask dpfwd itself (preflight, --dry-run) need DPFWD_BUILD (or build/)
with apps/dpfwd/dpfwd and are skipped without it."""

import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "apps" / "dpbench"))
import benchcfg  # noqa: E402

DPBENCH = REPO / "apps" / "dpbench" / "dpbench.py"
BENCHCFG = REPO / "apps" / "dpbench" / "benchcfg.py"
BUILD = Path(os.environ.get("DPFWD_BUILD") or REPO / "build")
DPFWD = BUILD / "apps" / "dpfwd" / "dpfwd"
CONFIG = REPO / "configs" / "bench" / "fwd-2000flows-64b.ini"

GOOD_HEAD = f"""[bench]
config = {CONFIG}
"""


class BenchFiles(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, text: str, name: str = "b.ini") -> Path:
        p = self.dir / name
        p.write_text(text)
        return p

    def load(self, text: str):
        return benchcfg.load(self.write(text), BUILD)

    def assertError(self, text: str, line: int, fragment: str):
        p = self.write(text)
        with self.assertRaises(benchcfg.BenchConfigError) as cm:
            benchcfg.load(p, BUILD)
        e = cm.exception
        self.assertEqual(e.line, line, str(e))
        self.assertIn(fragment, e.msg)
        self.assertTrue(str(e).startswith(f"{p}:{line}: ") if line else str(e).startswith(str(p)))
        return e


class TestErrors(BenchFiles):
    def test_unknown_section(self):
        self.assertError(GOOD_HEAD + "[variant a]\n[foo]\n", 4, "unknown section [foo]")

    def test_unknown_bench_key(self):
        self.assertError(GOOD_HEAD + "durration = 5\n[variant a]\n", 3, "unknown key 'durration'")

    def test_key_outside_section(self):
        self.assertError("duration = 5\n" + GOOD_HEAD, 1, "outside a section")

    def test_line_without_equals(self):
        self.assertError(GOOD_HEAD + "[variant a]\nmempool.cache 0\n", 4, "expected 'key = value'")

    def test_bad_section_header(self):
        self.assertError(GOOD_HEAD + "[variant a\n", 3, "bad section header")

    def test_duplicate_key(self):
        self.assertError(GOOD_HEAD + "duration = 5\n# c\nduration = 6\n[variant a]\n", 5,
                         "given twice")

    def test_duplicate_override_in_variant(self):
        self.assertError(GOOD_HEAD + "[variant a]\nmempool.cache = 0\nmempool.cache = 1\n", 5,
                         "first at line 4")

    def test_bad_numbers(self):
        for line, frag in (("duration = 0", "out of range 1..86400"),
                           ("duration = 1.5", "not an integer"),
                           ("warmup = -1", "out of range"),
                           ("repetitions = many", "not an integer"),
                           ("rx_port = 16", "out of range"),
                           ("tx_ports = 1, x", "expected port numbers"),
                           ("tx_ports = 1, 1", "listed twice")):
            with self.subTest(line=line):
                self.assertError(GOOD_HEAD + line + "\n[variant a]\n", 3, frag)

    def test_unknown_rig_and_anchor(self):
        self.assertError(GOOD_HEAD + "rig = netmap\n[variant a]\n", 3, "rig 'netmap' unknown")
        self.assertError(GOOD_HEAD + "anchors = l3fwd, vpp\n[variant a]\n", 3,
                         "anchor 'vpp' unknown")

    def test_anchors_need_the_fixed_rig_ports(self):
        self.assertError(GOOD_HEAD + "tx_ports = 1\nanchors = l3fwd\n[variant a]\n", 4,
                         "rx_port = 0 and tx_ports = 1, 2")

    def test_override_must_be_section_dot_key(self):
        self.assertError(GOOD_HEAD + "[variant a]\ncache = 0\n", 4, "expected SECTION.KEY")

    def test_known_override_values_are_checked(self):
        for line, frag in (("mempool.ops = stak", "'stak' is not one of"),
                           ("mempool.cache = 513", "out of range 0..512"),
                           ("dpfwd.burst = 65", "out of range 1..64"),
                           ("dpfwd.node_stats = maybe", "'maybe' is not one of"),
                           ("mempool.size = 12", "out of range 1024..")):
            with self.subTest(line=line):
                self.assertError(GOOD_HEAD + "\n[variant a]\n" + line + "\n", 5, frag)

    def test_common_set_is_checked(self):
        self.assertError(GOOD_HEAD + "set = mempool.cache\n[variant a]\n", 3,
                         "expected SECTION.KEY=VALUE")
        self.assertError(GOOD_HEAD + "set = mempool.ops=nope\n[variant a]\n", 3, "mempool.ops")

    def test_duplicate_variant(self):
        self.assertError(GOOD_HEAD + "[variant a]\n[variant a]\n", 4, "defined twice")

    def test_variant_named_like_an_anchor(self):
        self.assertError(GOOD_HEAD + "[variant l3fwd]\n", 3, "taken by an anchor")

    def test_baseline_must_be_a_variant(self):
        self.assertError(GOOD_HEAD + "baseline = b\n[variant a]\n", 3, "baseline 'b' is not")

    def test_no_variants(self):
        self.assertError(GOOD_HEAD, 1, "no variants")

    def test_no_bench_section(self):
        self.assertError("[variant a]\n", 0, "no [bench] section")

    def test_missing_config(self):
        self.assertError("[bench]\nduration = 1\n[variant a]\n", 1, "has no 'config'")
        self.assertError("[bench]\nconfig = nope.ini\n[variant a]\n", 2, "nope.ini not found")

    def test_unset_variable(self):
        self.assertError("[bench]\nconfig = ${DPBENCH_TEST_NOT_SET}/x.ini\n[variant a]\n", 2,
                         "${DPBENCH_TEST_NOT_SET} is not set")

    def test_rig_specific_keys(self):
        self.assertError(GOOD_HEAD + "gen_rate = 5\n[variant a]\n", 3, "rig = memif only")
        self.assertError(GOOD_HEAD + "rig = memif\ngen_pcap = x.pcap\ngen_rate = fast\n"
                         "[variant a]\n", 5, "gen_rate 'fast'")
        self.assertError(GOOD_HEAD + "rig = memif\ngen_pcap = x.pcap\npcap = y.pcap\n"
                         "[variant a]\n", 5, "rig = pcap only")
        self.assertError(GOOD_HEAD + "rig = memif\nanchors = l3fwd\n[variant a]\n", 4,
                         "rig = pcap only")

    def test_telemetry_source(self):
        self.assertError(GOOD_HEAD + "telemetry = snmp\n[variant a]\n", 3,
                         "telemetry 'snmp' unknown (expected socket, metrics)")
        self.assertError(GOOD_HEAD + "anchors = l3fwd\ntelemetry = metrics\n[variant a]\n", 4,
                         "the anchors (l3fwd, testpmd) serve no metrics endpoint")
        self.assertEqual(self.load(GOOD_HEAD + "[variant a]\n").telemetry, "socket")
        self.assertEqual(self.load(GOOD_HEAD + "telemetry = metrics\n[variant a]\n").telemetry,
                         "metrics")

    def test_memif_rig_errors(self):
        head = GOOD_HEAD + "rig = memif\n"
        for body, line, frag in (
                ("gen_pcap = x.pcap\ngen_flows = 10\n", 5, "gen_pcap (line 4) is replayed"),
                ("gen_frame_size = 64\ngen_payload = 100\n", 5, "gen_frame_size (line 4)"),
                ("gen_frame_size = 9000\n", 4, "out of range 64..1518"),
                ("gen_frame_size = 63\n", 4, "out of range 64..1518"),
                ("gen_payload = 17\n", 4, "out of range 18..1472"),
                ("gen_payload = 1473\n", 4, "out of range 18..1472"),
                ("gen_flows = 0\n", 4, "out of range"),
                ("gen_flows = x\n", 4, "not an integer"),
                ("tx_ports = 1\n", 4, "tx_ports = 0 (rx_port)"),
                ("rx_port = 2\ntx_ports = 1, 2\n", 5, "tx_ports = 2 (rx_port)")):
            with self.subTest(body=body):
                self.assertError(head + body + "[variant a]\n", line, frag)

    def test_rfc2544_section_errors(self):
        head = GOOD_HEAD + "rig = memif\n[variant a]\n[rfc2544]\n"
        self.assertError(GOOD_HEAD + "[variant a]\n[rfc2544]\ntrial = 2\n", 4, "needs rig = memif")
        self.assertError(head + "[rfc2544]\n", 6, "[rfc2544] given twice (first at line 5)")
        for body, frag in (("trial = 0", "out of range 1..3600"),
                           ("trial = 1.5", "not an integer"),
                           ("trial = 3601", "out of range 1..3600"),
                           ("loss_tolerance = -1", "out of range 0..100"),
                           ("loss_tolerance = lots", "not a number"),
                           ("rate_tolerance = 60", "out of range 0..50"),
                           ("resolution = 0%", "a percentage 0.01%..50%"),
                           ("resolution = fine", "expected a percentage (1%) or a rate"),
                           ("max_rate = 5Gbps", "expected max or N[k|M|G]pps"),
                           ("max_rate = 0", "nothing to search"),
                           ("min_rate = max", "expected N[k|M|G]pps"),
                           ("points = 1", "out of range 2..100"),
                           ("validate = -1", "out of range 0..3600"),
                           ("max_trials = 1", "out of range 2..1000"),
                           ("bogus = 1", "unknown key 'bogus' in [rfc2544]"),
                           ("trial =", "trial: empty value")):
            with self.subTest(body=body):
                self.assertError(head + "repeats = 1\n" + body + "\n", 7, frag)
        self.assertError(head + "max_rate = 2Mpps\nmin_rate = 2Mpps\n", 7,
                         "min_rate 2Mpps is not below max_rate 2Mpps")

    def test_matrix_errors(self):
        self.assertError(GOOD_HEAD + "[matrix]\nmempool.cache = 0 | | 256\n", 4,
                         "separated by '|'")
        self.assertError(GOOD_HEAD + "[matrix]\nmempool.cache = 0 | 999\n", 4, "out of range")
        self.assertError(GOOD_HEAD + "[matrix]\nmempool.cache = 0 | 0\n", 4, "listed twice")
        self.assertError(GOOD_HEAD + "[variant cache=0]\n[matrix]\nmempool.cache = 0 | 1\n", 4,
                         "also defined at line 3")

    def test_cli_prints_file_line_and_exits_2(self):
        p = self.write(GOOD_HEAD + "[variant a]\nmempool.ops = stak\n")
        for tool in (BENCHCFG, DPBENCH):
            args = [sys.executable, str(tool)] + (["run"] if tool == DPBENCH else []) + [str(p)]
            with self.subTest(tool=tool.name):
                r = subprocess.run(args, capture_output=True, text=True,
                                   env=dict(os.environ, DPFWD_BUILD=str(BUILD)))
                self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
                self.assertIn(f"{p}:4: mempool.ops: 'stak' is not one of", r.stderr)


class TestExpansion(BenchFiles):
    def test_defaults(self):
        b = self.load(GOOD_HEAD + "[variant a]\n")
        self.assertEqual((b.rig, b.duration, b.warmup, b.repetitions, b.cooldown),
                         ("pcap", 10, 2.0, 5, 1.0))
        self.assertEqual((b.rx_port, b.tx_ports, b.anchors, b.baseline), (0, [1, 2], [], "a"))
        self.assertEqual(b.pcap, str(BUILD.resolve() / "pcap" / "fwd-2000flows-64b.pcap"))
        self.assertEqual(b.name, "b")
        self.assertEqual(b.set_args(b.variant("a")), [])

    def test_relative_config_and_builtin_variables(self):
        (self.dir / "sub").mkdir()
        (self.dir / "sub" / "d.ini").write_text("[dpfwd]\n")
        b = self.load("[bench]\nconfig = sub/d.ini\npcap = ${BENCH_DIR}/p.pcap\n[variant a]\n")
        self.assertEqual(b.config, self.dir.resolve() / "sub" / "d.ini")
        self.assertEqual(b.pcap, str(self.dir.resolve() / "p.pcap"))

    def test_variant_overrides_replace_common_sets(self):
        b = self.load(GOOD_HEAD + "set = dpfwd.node_stats=on\nset = mempool.cache=256\n"
                      "[variant a]\n"
                      "[variant b]  # comment\nlabel = cache off\nmempool.cache = 0\n"
                      "port0.dev = net_pcap0,rx_pcap=/x # y.pcap\n")
        self.assertEqual(b.set_args(b.variant("a")),
                         ["--set", "dpfwd.node_stats=on", "--set", "mempool.cache=256"])
        self.assertEqual(b.set_args(b.variant("b")),
                         ["--set", "dpfwd.node_stats=on", "--set", "mempool.cache=0",
                          "--set", "port0.dev=net_pcap0,rx_pcap=/x"])
        self.assertEqual(b.variant("b").title(), "cache off")
        self.assertEqual(b.variant("a").title(), "a")

    def test_matrix_is_the_cartesian_product_in_order(self):
        b = self.load(GOOD_HEAD + "baseline = ref\n[variant ref]\n[matrix]\n"
                      "mempool.cache = 0 | 256\nmempool.ops = ring_mp_mc | stack | lf_stack\n")
        names = [v.name for v in b.ordered_variants()]
        self.assertEqual(names, ["ref",
                                 "cache=0/ops=ring_mp_mc", "cache=0/ops=stack",
                                 "cache=0/ops=lf_stack", "cache=256/ops=ring_mp_mc",
                                 "cache=256/ops=stack", "cache=256/ops=lf_stack"])
        v = b.variant("cache=256/ops=stack")
        self.assertEqual(b.set_args(v),
                         ["--set", "mempool.cache=256", "--set", "mempool.ops=stack"])
        self.assertEqual(v.label, "mempool.cache=256 mempool.ops=stack")
        self.assertEqual([o.line for o in v.overrides], [6, 7])

    def test_matrix_names_use_full_keys_when_short_ones_collide(self):
        b = self.load(GOOD_HEAD + "[matrix]\nport1.rx_desc = 512 | 1024\nport2.rx_desc = 512\n")
        self.assertEqual([v.name for v in b.variants],
                         ["port1.rx_desc=512/port2.rx_desc=512",
                          "port1.rx_desc=1024/port2.rx_desc=512"])

    def test_baseline_goes_first(self):
        b = self.load(GOOD_HEAD + "baseline = c\n[variant a]\n[variant b]\n[variant c]\n")
        self.assertEqual([v.name for v in b.ordered_variants()], ["c", "a", "b"])

    def test_anchors_none_and_list(self):
        self.assertEqual(self.load(GOOD_HEAD + "anchors = none\n[variant a]\n").anchors, [])
        self.assertEqual(self.load(GOOD_HEAD + "anchors = testpmd l3fwd\n[variant a]\n").anchors,
                         ["testpmd", "l3fwd"])

    def test_memif_rig_parses(self):
        p = self.write(GOOD_HEAD + "rig = memif\ngen_pcap = g.pcap\ngen_rate = 1.5Mpps\n"
                       "[variant a]\n")
        b = benchcfg.load(p, BUILD)
        self.assertEqual((b.rig, b.gen_pcap, b.gen_rate, b.pcap, b.tx_ports, b.search),
                         ("memif", str(self.dir.resolve() / "g.pcap"), "1.5Mpps", None, [0],
                          None))
        self.assertEqual(b.gen_traffic_args(), ["--pcap", str(self.dir.resolve() / "g.pcap")])
        b = self.load(GOOD_HEAD + "rig = memif\n[variant a]\n")
        self.assertEqual(b.gen_traffic_args(), ["--flows", "2000", "--frame-size", "64"])
        b = self.load(GOOD_HEAD + "rig = memif\ngen_flows = 1\ngen_payload = 1472\n"
                      "[variant a]\n")
        self.assertEqual(b.gen_traffic_args(), ["--flows", "1", "--payload", "1472"])
        self.assertEqual(b.gen_traffic_text(), "1 UDP flow of 1472 B UDP payload")
        b = self.load(GOOD_HEAD + "rig = memif\nrx_port = 1\n[variant a]\n")
        self.assertEqual(b.tx_ports, [1])

    def test_rfc2544_section(self):
        b = self.load(GOOD_HEAD + "rig = memif\n[variant a]\n[rfc2544]\n")
        sc = b.search
        self.assertEqual((sc.trial, sc.warmup, sc.repeats, sc.loss_tolerance, sc.rate_tolerance,
                          sc.resolution, sc.max_rate, sc.min_rate, sc.points, sc.validate_s(),
                          sc.max_trials),
                         (5, 1, 2, 0.0, 1.0, ("pct", 1.0), None, 0.0, 10, 10, 40))
        b = self.load(GOOD_HEAD + "rig = memif\n[rfc2544]\ntrial = 3\nwarmup = 0\nrepeats = 1\n"
                      "loss_tolerance = 0.01\nresolution = 50kpps\nmax_rate = 12Mpps\n"
                      "min_rate = 1.5Mpps\npoints = 4\nvalidate = 0\nmax_trials = 9\n"
                      "[variant a]\n")
        sc = b.search
        self.assertEqual((sc.trial, sc.warmup, sc.repeats, sc.loss_tolerance, sc.resolution,
                          sc.max_rate, sc.min_rate, sc.points, sc.validate_s(), sc.max_trials),
                         (3, 0, 1, 0.01, ("pps", 50e3), 12e6, 1.5e6, 4, 0, 9))
        self.assertEqual(sc.lines["max_rate"], 10)
        self.assertEqual(b.as_dict()["rfc2544"]["resolution"], "50kpps")
        self.assertIn("rfc2544   trials 1 x 3 s", benchcfg.describe(b))

    def test_rates(self):
        for text, pps in (("12Mpps", 12e6), ("1.5Mpps", 1.5e6), ("500kpps", 5e5), ("7pps", 7.0),
                          ("1Gpps", 1e9)):
            self.assertEqual(benchcfg.parse_pps(text), pps)
            self.assertEqual(benchcfg.parse_pps(benchcfg.fmt_pps(pps)), pps)
        for bad in ("12Mbps", "12 Mpps", "Mpps", "-1pps", "max"):
            self.assertIsNone(benchcfg.parse_pps(bad))
        self.assertEqual(benchcfg.fmt_pps(12345678), "12.345678Mpps")

    def test_shipped_bench_configs_load(self):
        found = 0
        for p in sorted((REPO / "configs" / "bench").glob("*.ini")):
            if "[bench]" not in p.read_text():
                continue                     # a dpfwd config, not a bench config
            with self.subTest(config=p.name):
                b = benchcfg.load(p, BUILD)
                self.assertTrue(b.variants)
                found += 1
        self.assertGreaterEqual(found, 2)
        b = benchcfg.load(REPO / "configs" / "bench" / "fwd-2000flows-64b-variants.ini", BUILD)
        self.assertEqual(b.repetitions, 5)
        self.assertEqual(b.anchors, ["l3fwd", "testpmd"])
        sets = {v.name: b.set_args(v) for v in b.variants}
        self.assertEqual(sets["cache-0-ops-stack"],
                         ["--set", "mempool.cache=0", "--set", "mempool.ops=stack"])


@unittest.skipUnless(os.access(DPFWD, os.X_OK), f"{DPFWD} not built")
class TestPreflight(BenchFiles):
    """dpfwd checks what benchcfg cannot: its answer comes back as file:line."""

    def run_dpbench(self, p: Path, *extra):
        return subprocess.run([sys.executable, str(DPBENCH), "run", str(p), "--build", str(BUILD),
                               *extra], capture_output=True, text=True, timeout=120)

    def test_unknown_dpfwd_key_is_reported_at_its_line(self):
        p = self.write(GOOD_HEAD + "[variant a]\n[variant b]\ndpfwd.burst = 16\n"
                       "mempool.no_such_key = 1\n")
        r = self.run_dpbench(p, "--dry-run")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn(f"{p}:6: [variant b] mempool.no_such_key = 1: dpfwd says:", r.stderr)
        self.assertIn("no_such_key", r.stderr)

    def test_dry_run_of_shipped_configs(self):
        for name in ("fwd-2000flows-64b-variants.ini", "alloc-mempool-64b.ini"):
            with self.subTest(config=name):
                r = self.run_dpbench(REPO / "configs" / "bench" / name, "--dry-run",
                                     "--out", str(self.dir / "out"))
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assertIn("--set port0.dev=net_pcap0,rx_pcap=", r.stdout)
        self.assertFalse((self.dir / "out").exists())    # a dry run writes nothing

    def test_dry_run_of_shipped_memif_configs(self):
        for name in ("replay-1024flows-100.ini", "alloc-udp-tx.ini", "rfc2544-memif-64b.ini"):
            for cmd in ("run", "rfc2544"):
                with self.subTest(config=name, cmd=cmd):
                    r = subprocess.run([sys.executable, str(DPBENCH), cmd,
                                        str(REPO / "configs" / "bench" / name), "--build",
                                        str(BUILD), "--dry-run", "--out", str(self.dir / "out")],
                                       capture_output=True, text=True, timeout=120)
                    self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                    self.assertIn("--set port0.dev=net_memif0,role=server,id=0,socket=/tmp/",
                                  r.stdout)
                    self.assertIn("net_memif0,role=client,id=0,socket=/tmp/", r.stdout)
                    self.assertIn("mac=02:64:67:00:00:00", r.stdout)
        self.assertFalse((self.dir / "out").exists())
        r = subprocess.run([sys.executable, str(DPBENCH), "rfc2544",
                            str(REPO / "configs" / "bench" / "fwd-2000flows-64b-variants.ini"),
                            "--build", str(BUILD), "--dry-run"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("rfc2544 needs rig = memif", r.stderr)


class FwdAnchorPcap(unittest.TestCase):
    """fwd-anchor warns when dpfwd's config replays another pcap than the anchors: the
    pcap is read from the config's own dev line, not assumed."""

    def test_config_rx_pcap(self):
        import dpbench
        build = Path("/b").resolve()
        with tempfile.TemporaryDirectory() as d:
            cfg = Path(d) / "c.ini"
            cfg.write_text("[port0]\n# dev = net_pcap0,rx_pcap=/not/this\n"
                           "dev = net_pcap0,rx_pcap=${DPFWD_BUILD}/pcap/x.pcap,infinite_rx=1\n"
                           "[port1]\ndev = net_pcap1,rx_pcap=/second.pcap\n")
            self.assertEqual(dpbench.config_rx_pcap(cfg, build), build / "pcap" / "x.pcap")
            cfg.write_text("[port0]\ndev = net_null0\n")
            self.assertIsNone(dpbench.config_rx_pcap(cfg, build))
            self.assertIsNone(dpbench.config_rx_pcap(Path(d) / "missing.ini", build))
        for name, pcap in (("fwd-2000flows-64b.ini", "fwd-2000flows-64b.pcap"),
                           ("fwd6-2000flows-78b.ini", "fwd6-2000flows-78b.pcap")):
            self.assertEqual(dpbench.config_rx_pcap(REPO / "configs" / "bench" / name, build),
                             build / "pcap" / pcap)


if __name__ == "__main__":
    unittest.main(verbosity=2)
