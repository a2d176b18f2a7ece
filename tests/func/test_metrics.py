#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Functional tests of dpfwd's Prometheus endpoint ([dpfwd] metrics), on DPDK virtual ports:

  port0  net_pcap0, rx_pcap = build/pcap/fwd-2000flows-64b.pcap (1000 frames to
         198.18.1.0/24, 1000 to 198.18.2.0/24), read once or replayed (infinite_rx)
  port1  net_null0, 198.18.1.0/24 via 198.18.101.2
  port2  net_null1, no route to 198.18.2.0/24 there: half the frames are ip4_no_route drops

dpfwd binds "metrics = 127.0.0.1:0" (any free port) and says which one in the JSON's
run.metrics; we scrape it with urllib, parse the text exposition format as Prometheus
reads it (and check it on the way, with prometheus_client's parser and the rules
`promtool check metrics` applies), compare the counters with the telemetry JSON written
at exit, and the metric families with docs/telemetry.md's table. EAL runs with
--no-huge and its own --file-prefix; every dpfwd is reaped (SIGKILLed after
RUN_TIMEOUT_S) and its EAL runtime folder removed.

Set DPMT_KEEP=1 to keep the temporary folder.
"""
import errno
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request

BUILD = os.environ.get("DPFWD_BUILD", "build")
SRC = os.environ.get("DPFWD_SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("DPFWD_BIN", os.path.join(BUILD, "apps", "dpfwd", "dpfwd"))
PCAP = os.path.join(BUILD, "pcap", "fwd-2000flows-64b.pcap")
PCAP_FRAMES = 2000
RUN_TIMEOUT_S = 20.0

# no proxy for 127.0.0.1, whatever the environment says
HTTP = urllib.request.build_opener(urllib.request.ProxyHandler({}))

CONFIG = """\
# written by test_metrics.py
[dpfwd]
main_lcore = 0
{metrics}

[port0]
dev = net_pcap0,rx_pcap={pcap}{infinite}
ip4 = 198.18.0.1/24

[port1]
dev = net_null0
ip4 = 198.18.101.1/24

[port2]
dev = net_null1
ip4 = 198.18.102.1/24

[lcores]
rx = (0,0,1)

[routes]
route = 198.18.1.0/24 via 198.18.101.2 port 1

[neighbors]
neigh = 198.18.101.2 lladdr 02:00:00:00:01:02 port 1
"""
METRICS_LINE = 4  # the line {metrics} is on

# ---- the exposition format ----

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
SAMPLE = re.compile(r"(" + NAME + r")(?:\{(.*)\})? (\S+)")
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,?)')


HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")


def key(name, /, **labels):
    """A sample's identity: its name and its sorted labels."""
    return (name, tuple(sorted(labels.items())))


def family_type(types, name):
    """The type of the family a sample name belongs to (a histogram's NAME_bucket ...)."""
    for suffix in ("",) + HISTOGRAM_SUFFIXES:
        if name.endswith(suffix) and name[:len(name) - len(suffix)] in types:
            return types[name[:len(name) - len(suffix)]]
    raise KeyError(name)


def parse_labels(text):
    labels, pos = {}, 0
    while pos < len(text):
        m = LABEL.match(text, pos)
        if m is None:
            raise AssertionError(f"bad labels at {text[pos:]!r}")
        value = re.sub(r"\\(.)", lambda e: "\n" if e.group(1) == "n" else e.group(1), m.group(2))
        if m.group(1) in labels:
            raise AssertionError(f"label {m.group(1)} twice")
        labels[m.group(1)] = value
        pos = m.end()
        if m.group(3) == "" and pos != len(text):
            raise AssertionError(f"no comma before {text[pos:]!r}")
    return labels


def parse_exposition(text):
    """
    Text format 0.0.4 -> ({family: type}, {key: value}). Raises AssertionError when a
    line would not be read as meant: names, HELP then TYPE once per family and before its
    samples, a family's samples in one block (a histogram's as NAME_bucket, _sum and
    _count), counters named _total, no series twice.
    """
    types, samples, helped = {}, {}, set()
    family = None
    for n, line in enumerate(text.splitlines(), 1):
        where = f"line {n}: {line!r}"
        if line.startswith("# HELP "):
            name = line.split(" ", 3)[2]
            assert re.fullmatch(NAME, name), where
            assert name not in helped, f"{where}: family {name} again"
            helped.add(name)
            family = name
            continue
        if line.startswith("# TYPE "):
            parts = line.split(" ")
            assert len(parts) == 4 and parts[2] == family, where
            assert parts[3] in ("counter", "gauge", "histogram"), where
            types[family] = parts[3]
            continue
        m = SAMPLE.fullmatch(line)
        assert m is not None, where
        name, labels, value = m.groups()
        if types.get(family) == "histogram":
            assert name in [family + s for s in HISTOGRAM_SUFFIXES], \
                f"{where}: not in its histogram's block"
        else:
            assert name == family and name in types, f"{where}: not in its family's block"
        if types[family] == "counter":
            assert name.endswith("_total"), where
        k = key(name, **parse_labels(labels or ""))
        assert k not in samples, f"{where}: series twice"
        samples[k] = float(value)
    return types, samples


# ---- what `promtool check metrics` reports (client_golang's promlint), and histograms ----

# promlint's units: a name part (or a part after a metric prefix) of a unit that is not
# the base unit is reported ("use base unit seconds instead of nanoseconds")
PROMLINT_UNITS = {"amperes": "amperes", "bytes": "bytes", "celsius": "celsius",
                  "grams": "grams", "joules": "joules", "kelvin": "kelvin", "meters": "meters",
                  "metres": "metres", "seconds": "seconds", "volts": "volts",
                  "minutes": "seconds", "hours": "seconds", "days": "seconds",
                  "weeks": "seconds", "kelvins": "kelvin", "fahrenheit": "celsius",
                  "rankine": "celsius", "inches": "meters", "yards": "meters",
                  "miles": "meters", "bits": "bytes", "calories": "joules",
                  "pounds": "grams", "ounces": "grams"}
PROMLINT_PREFIXES = ("pico", "nano", "micro", "milli", "centi", "deci", "deca", "hecto",
                     "kilo", "kibi", "mega", "mibi", "giga", "gibi", "tera", "tebi", "peta",
                     "pebi")
PROMLINT_ABBREVIATIONS = {"s", "ms", "us", "ns", "sec", "b", "kb", "mb", "gb", "tb", "pb",
                          "m", "h", "d"}
CAMEL = re.compile(r"[a-z][A-Z]")


def promlint(text):
    """
    The findings of `promtool check metrics` on an exposition text (Prometheus'
    promlint rules: help, units, counters, reserved suffixes and labels, type names,
    reserved characters, camel case, unit abbreviations), and of a histogram's shape
    (le ascending, counts cumulative, +Inf equal to _count). [] when there is nothing
    to report. The text must also parse with prometheus_client's parser.

    promtool itself ships in Debian's prometheus package, whose install starts a
    Prometheus server (its init script, or its enabled systemd unit): too much for a
    test tool, so these are its rules (client_golang's promlint), tested against
    promtool's messages by test_promlint_reports_what_promtool_reports.
    """
    from prometheus_client.parser import text_string_to_metric_families
    problems = []
    list(text_string_to_metric_families(text))  # raises on what it cannot read
    helps, types, labels = {}, {}, {}
    buckets = {}
    for line in text.splitlines():
        if line.startswith("# HELP "):
            parts = line.split(" ", 3)
            helps[parts[2]] = parts[3] if len(parts) > 3 else ""
        elif line.startswith("# TYPE "):
            parts = line.split(" ")
            types[parts[2]] = parts[3]
        elif line and not line.startswith("#"):
            m = SAMPLE.fullmatch(line)
            name, lab = m.group(1), parse_labels(m.group(2) or "")
            fam = next((f for f in (name, *(name[:-len(s)] for s in HISTOGRAM_SUFFIXES
                                            if name.endswith(s))) if f in types), name)
            labels.setdefault(fam, set()).update(lab)
            if types.get(fam) == "histogram":
                series = tuple(sorted((k, v) for k, v in lab.items() if k != "le"))
                b = buckets.setdefault((fam, series), {"le": [], "count": None})
                if name.endswith("_bucket"):
                    b["le"].append((float(lab["le"]), float(m.group(3))))
                elif name.endswith("_count"):
                    b["count"] = float(m.group(3))
    for fam, typ in types.items():
        parts = fam.split("_")
        if not helps.get(fam):
            problems.append(f"{fam}: no help text")
        for p in parts:
            base = PROMLINT_UNITS.get(p)
            for pre in PROMLINT_PREFIXES:
                if base is None and p.startswith(pre):
                    base = PROMLINT_UNITS.get(p[len(pre):])
            if base is not None and base != p:
                problems.append(f'{fam}: use base unit "{base}" instead of "{p}"')
            if p in PROMLINT_ABBREVIATIONS:
                problems.append(f"{fam}: metric names should not contain abbreviated units")
        if typ == "counter" and not fam.endswith("_total"):
            problems.append(f'{fam}: counter metrics should have "_total" suffix')
        if typ != "counter" and fam.endswith("_total"):
            problems.append(f'{fam}: non-counter metrics should not have "_total" suffix')
        if typ not in ("histogram", "summary"):
            if fam.endswith(("_count", "_sum", "_bucket")):
                problems.append(f"{fam}: non-histogram and non-summary metrics should not "
                                "have a reserved suffix")
            if "le" in labels.get(fam, ()):
                problems.append(f'{fam}: non-histogram metrics should not have "le" label')
        if typ != "summary" and "quantile" in labels.get(fam, ()):
            problems.append(f'{fam}: non-summary metrics should not have "quantile" label')
        if f"_{typ}_" in fam or fam.endswith(f"_{typ}"):
            problems.append(f'{fam}: metric name should not include type "{typ}"')
        if ":" in fam:
            problems.append(f"{fam}: metric names should not contain ':'")
        if CAMEL.search(fam) or any(CAMEL.search(lb) for lb in labels.get(fam, ())):
            problems.append(f"{fam}: metric names and label names should be snake_case")
    for (fam, series), b in buckets.items():
        les = [le for le, _ in b["le"]]
        counts = [c for _, c in b["le"]]
        if les != sorted(les) or len(set(les)) != len(les):
            problems.append(f"{fam}{series}: le not ascending")
        if counts != sorted(counts):
            problems.append(f"{fam}{series}: bucket counts not cumulative")
        if not les or les[-1] != float("inf") or counts[-1] != b["count"]:
            problems.append(f"{fam}{series}: no +Inf bucket equal to _count")
    return problems


def doc_metrics():
    """{name: (type, labels)} of the Prometheus table of docs/telemetry.md."""
    with open(os.path.join(SRC, "docs", "telemetry.md")) as f:
        text = f.read()
    sec = text[text.index("## Prometheus metrics"):]
    sec = sec[:sec.index("\n## ", 5)]
    out = {}
    for name, typ, labels in re.findall(r"^\| `(dpfwd_\w+)` \| (\w+) \|([^|]*)\|", sec,
                                        re.M):
        out[name] = (typ, set(re.findall(r"`(\w+)`", labels.split("(")[0])))
    return out


def table_metrics():
    """The metric names of src/telemetry/prom.c's family table."""
    with open(os.path.join(SRC, "src", "telemetry", "prom.c")) as f:
        return set(re.findall(r'^\s*\{ SRC_\w+, (?:"\w+"|NULL), "(dpfwd_\w+)"', f.read(), re.M))


def expected_counters(snap):
    """The counters a scrape shows for a telemetry JSON, by docs/telemetry.md's table."""
    exp = {}
    for lc in snap["lcores"]:
        lcore = str(lc["lcore"])
        for field, name in (("rx_pkts", "dpfwd_lcore_rx_packets_total"),
                            ("tx_pkts", "dpfwd_lcore_tx_packets_total"),
                            ("tx_bytes", "dpfwd_lcore_tx_bytes_total"),
                            ("punted", "dpfwd_lcore_punted_packets_total"),
                            ("injected", "dpfwd_lcore_injected_packets_total"),
                            ("iterations", "dpfwd_lcore_iterations_total"),
                            ("busy_cycles", "dpfwd_lcore_busy_cycles_total")):
            exp[key(name, lcore=lcore)] = lc[field]
        for node, st in lc["nodes"].items():
            exp[key("dpfwd_node_packets_total", lcore=lcore, node=node)] = st["pkts"]
            exp[key("dpfwd_node_calls_total", lcore=lcore, node=node)] = st["calls"]
    for reason, v in snap["drops"]["by_reason"].items():
        exp[key("dpfwd_drops_total", reason=reason)] = v
    for p in snap["ports"]:
        port = str(p["index"])
        for field, name in (("ipackets", "dpfwd_port_rx_packets_total"),
                            ("opackets", "dpfwd_port_tx_packets_total"),
                            ("imissed", "dpfwd_port_rx_missed_total"),
                            ("rx_nombuf", "dpfwd_port_rx_nombuf_total"),
                            ("ierrors", "dpfwd_port_rx_errors_total"),
                            ("oerrors", "dpfwd_port_tx_errors_total")):
            exp[key(name, port=port)] = p[field]
    return exp


# ---- running dpfwd ----

class Dpfwd:
    seq = 0

    def __init__(self, tmp, name, metrics="metrics = 127.0.0.1:0", infinite=False,
                 extra=()):
        self.dir = os.path.join(tmp, name)
        os.makedirs(self.dir)
        self.cfg = os.path.join(self.dir, "dpfwd.ini")
        self.json = os.path.join(self.dir, "telemetry.json")
        self.err_path = os.path.join(self.dir, "stderr.log")
        Dpfwd.seq += 1
        self.prefix = f"dpmt{os.getpid()}_{Dpfwd.seq}"
        with open(self.cfg, "w") as f:
            f.write(CONFIG.format(metrics=metrics, pcap=PCAP,
                                  infinite=",infinite_rx=1" if infinite else ""))
        self.argv = [BIN, "--no-huge", "-m", "512", "--no-pci", "--file-prefix", self.prefix,
                     "-l", "0,1", "--", "-c", self.cfg, "--telemetry-json", self.json,
                     "--telemetry-interval", "100", *extra]
        self.proc = None
        self.t0 = 0.0

    def start(self):
        self.t0 = time.monotonic()
        with open(os.path.join(self.dir, "stdout.log"), "w") as out, \
                open(self.err_path, "w") as err:
            self.proc = subprocess.Popen(self.argv, stdout=out, stderr=err,
                                         stdin=subprocess.DEVNULL)
        return self

    def wait(self, timeout=RUN_TIMEOUT_S):
        """Exit status; SIGKILL after the timeout. Removes EAL's runtime folder."""
        try:
            return self.proc.wait(timeout=max(0.1, timeout - (time.monotonic() - self.t0)))
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"dpfwd still running after {timeout} s: killed")
        finally:
            shutil.rmtree(f"/var/run/dpdk/{self.prefix}", ignore_errors=True)

    def stop(self):
        """SIGTERM (a clean stop: final JSON), then wait."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.wait()

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.wait()

    def stderr(self):
        with open(self.err_path) as f:
            return f.read()

    def read_json(self):
        with open(self.json) as f:
            return json.load(f)

    def metrics_url(self):
        """run.metrics of the first JSON snapshot (written after the ports started)."""
        while time.monotonic() - self.t0 < RUN_TIMEOUT_S:
            if self.proc.poll() is not None:
                raise AssertionError(f"dpfwd exited {self.proc.returncode}:\n{self.stderr()}")
            try:
                url = self.read_json()["run"]["metrics"]
                if url:
                    return url
            except (OSError, ValueError, KeyError):
                pass  # not written yet (rename makes it whole when it is)
            time.sleep(0.05)
        raise AssertionError("no telemetry JSON with run.metrics")


def scrape(url):
    """(status, content type, body) of one GET."""
    try:
        with HTTP.open(url, timeout=5) as r:
            return r.status, r.headers.get("Content-Type"), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type"), e.read().decode()


def scrape_samples(url):
    status, ctype, body = scrape(url)
    assert status == 200, f"GET {url}: {status}"
    assert ctype.startswith("text/plain; version=0.0.4"), ctype
    return parse_exposition(body)


class MetricsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        for path in (BIN, PCAP):
            if not os.path.exists(path):
                raise unittest.SkipTest(f"{path} missing: build first")
        cls.tmp = tempfile.mkdtemp(prefix="dpmt.")

    @classmethod
    def tearDownClass(cls):
        if os.environ.get("DPMT_KEEP", "0") != "0":
            print(f"\nkept {cls.tmp}")
        else:
            shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_dpfwd(self, name, **kw):
        d = Dpfwd(self.tmp, name, **kw).start()
        self.addCleanup(d.kill)
        return d

    def test_metrics_equal_the_final_json(self):
        """Read once: after the pcap is through, a scrape equals the JSON written at exit."""
        d = self.run_dpfwd("final")
        url = d.metrics_url()
        self.assertRegex(url, r"^http://127\.0\.0\.1:[1-9][0-9]*/metrics$")
        rx = key("dpfwd_lcore_rx_packets_total", lcore="1")
        tx = key("dpfwd_lcore_tx_packets_total", lcore="1")
        injected = key("dpfwd_lcore_injected_packets_total", lcore="1")
        no_route = key("dpfwd_drops_total", reason="ip4_no_route")
        first = None
        while time.monotonic() - d.t0 < RUN_TIMEOUT_S:
            types, s = scrape_samples(url)
            first = first or s
            # what the worker forwarded: its TX less the control lcore's frames
            if (s.get(rx) == PCAP_FRAMES and
                    s[tx] - s[injected] + s[no_route] == PCAP_FRAMES):
                break
            time.sleep(0.1)
        self.assertEqual(s.get(rx), PCAP_FRAMES)
        self.assertEqual(s[no_route], PCAP_FRAMES / 2)
        self.assertEqual(s[key("dpfwd_port_rx_packets_total", port="0")], PCAP_FRAMES)
        # + the gratuitous ARP announcing port1's address at start
        self.assertEqual(s[key("dpfwd_port_tx_packets_total", port="1")], PCAP_FRAMES / 2 + 1)
        for name, typ in (("dpfwd_node_cycles_total", "counter"),
                          ("dpfwd_lcore_cycles_per_packet", "gauge"),
                          ("dpfwd_mempool_in_use", "gauge"),
                          ("dpfwd_port_rx_nombuf_total", "counter"),
                          ("dpfwd_port_rx_missed_total", "counter"),
                          ("dpfwd_tsc_hz", "gauge"),
                          ("dpfwd_uptime_seconds", "gauge")):
            self.assertEqual(types.get(name), typ, name)
        for k, v in first.items():
            if family_type(types, k[0]) == "counter":
                self.assertGreaterEqual(s[k], v, k)

        self.assertEqual(d.stop(), 0, d.stderr())
        snap = d.read_json()
        self.assertTrue(snap["final"])
        exp = expected_counters(snap)
        self.assertGreater(len(exp), 30)
        for k, v in exp.items():
            if k[0] in ("dpfwd_lcore_iterations_total", "dpfwd_lcore_busy_cycles_total",
                        "dpfwd_node_calls_total"):
                self.assertGreaterEqual(v, s[k], k)  # the poll loop went on
            else:
                self.assertEqual(s.get(k), v, k)
        self.assertEqual(s[key("dpfwd_tsc_hz")], snap["tsc_hz"])
        self.assertLessEqual(s[key("dpfwd_uptime_seconds")], snap["uptime_s"])

    def test_metrics_monotonic_under_traffic(self):
        """Replayed: every counter grows or stays between scrapes; the final JSON is above."""
        d = self.run_dpfwd("traffic", infinite=True)
        url = d.metrics_url()
        types, a = scrape_samples(url)
        time.sleep(0.5)
        _, b = scrape_samples(url)
        counters = [k for k in a if family_type(types, k[0]) == "counter"]
        self.assertGreater(len(counters), 40)
        for k in counters:
            self.assertGreaterEqual(b[k], a[k], k)
        rx = key("dpfwd_lcore_rx_packets_total", lcore="1")
        no_route = key("dpfwd_drops_total", reason="ip4_no_route")
        self.assertGreater(b[rx], a[rx])
        self.assertGreater(b[no_route], a[no_route])
        self.assertGreater(b[key("dpfwd_uptime_seconds")], a[key("dpfwd_uptime_seconds")])

        base = url[: -len("/metrics")]
        for path in ("/", "/metrics/", "/foo", "/metricsx"):
            self.assertEqual(scrape(base + path)[0], 404, path)
        req = urllib.request.Request(url, data=b"x", method="POST")
        try:
            HTTP.open(req, timeout=5)
            self.fail("POST /metrics answered")
        except urllib.error.HTTPError as e:
            self.assertEqual(e.code, 405)

        self.assertEqual(d.stop(), 0, d.stderr())
        snap = d.read_json()
        for k, v in expected_counters(snap).items():
            self.assertGreaterEqual(v, b[k], k)
        self.assertEqual(snap["run"]["metrics"], url)

    def test_promlint_reports_what_promtool_reports(self):
        """The checker below finds what promtool check metrics finds on a bad text."""
        bad = ("# HELP x_delay_p99_nanoseconds p99.\n# TYPE x_delay_p99_nanoseconds gauge\n"
               "x_delay_p99_nanoseconds{lcore=\"1\"} 5\n"
               "# HELP x_pkts Packets.\n# TYPE x_pkts counter\nx_pkts 1\n"
               "# HELP x_up_total Up.\n# TYPE x_up_total gauge\nx_up_total 1\n"
               "# HELP x_t_ms Time.\n# TYPE x_t_ms gauge\nx_t_ms{le=\"1\"} 1\n"
               "# HELP x_d_seconds D.\n# TYPE x_d_seconds histogram\n"
               "x_d_seconds_bucket{le=\"1\"} 3\nx_d_seconds_bucket{le=\"0.5\"} 2\n"
               "x_d_seconds_sum 1\nx_d_seconds_count 4\n")
        found = "\n".join(promlint(bad))
        for what in ('x_delay_p99_nanoseconds: use base unit "seconds" instead of '
                     '"nanoseconds"',
                     'x_pkts: counter metrics should have "_total" suffix',
                     'x_up_total: non-counter metrics should not have "_total" suffix',
                     "x_t_ms: metric names should not contain abbreviated units",
                     'x_t_ms: non-histogram metrics should not have "le" label',
                     "le not ascending", "bucket counts not cumulative",
                     "no +Inf bucket equal to _count"):
            self.assertIn(what, found)

    def test_scrape_passes_promtool_rules_and_is_the_doc(self):
        """A scrape under traffic: nothing for promtool to report; its families, types and
        labels are docs/telemetry.md's table, which is prom.c's; the delay histogram adds
        up to the JSON's delay counts."""
        d = self.run_dpfwd("lint", infinite=True)
        url = d.metrics_url()
        time.sleep(0.3)
        status, _, body = scrape(url)
        self.assertEqual(status, 200)
        self.assertEqual(promlint(body), [])
        types, samples = parse_exposition(body)
        doc = doc_metrics()
        self.assertEqual(sorted(set(doc) ^ table_metrics()), [],
                         "docs/telemetry.md's metrics vs src/telemetry/prom.c's table")
        labels = {}
        for (name, lab) in samples:
            fam = next(f for f in (name, name.rsplit("_", 1)[0]) if f in types)
            labels.setdefault(fam, set()).update(k for k, _ in lab if k != "le")
        for fam, typ in types.items():
            self.assertIn(fam, doc, "scraped, not in docs/telemetry.md")
            self.assertEqual((typ, labels[fam]), doc[fam], fam)
        self.assertEqual(types["dpfwd_delay_seconds"], "histogram")
        inf = samples[key("dpfwd_delay_seconds_bucket", lcore="1", le="+Inf")]
        self.assertGreater(inf, 0)
        self.assertEqual(inf, samples[key("dpfwd_delay_seconds_count", lcore="1")])
        mean = (samples[key("dpfwd_delay_seconds_sum", lcore="1")] / inf)
        self.assertTrue(1e-8 < mean < 1.0, mean)
        self.assertEqual(d.stop(), 0, d.stderr())
        snap = d.read_json()
        lc = snap["delay"]["lcores"][0]
        self.assertGreaterEqual(lc["count"], inf)
        # cumulative; every packet counted at a bound well above the largest delay (a
        # bucket spans at most a quarter of its low end)
        self.assertEqual(lc["le_counts"], sorted(lc["le_counts"]))
        for le_ns, n in zip(snap["delay"]["le_ns"], lc["le_counts"]):
            if le_ns >= 1.5 * lc["max_ns"] + 10:
                self.assertEqual(n, lc["count"], le_ns)

    def test_metrics_off_by_default(self):
        d = self.run_dpfwd("off", metrics="", extra=("--duration", "0.5"))
        self.assertEqual(d.wait(), 0, d.stderr())
        self.assertIsNone(d.read_json()["run"]["metrics"])
        self.assertNotIn("metrics", d.stderr())

    def test_bad_metrics_value_names_file_and_line(self):
        for i, (value, msg) in enumerate((
                ("127.0.0.1:70000", "port '70000' must be 0..65535"),
                ("127.0.0.300:9108", "'127.0.0.300' is not a numeric IPv4 address"),
                ("::1:9108", "write an IPv6 address in brackets"))):
            d = self.run_dpfwd(f"bad{i}", metrics=f"metrics = {value}")
            self.assertEqual(d.wait(), 2, value)
            err = d.stderr()
            self.assertIn(f"{d.cfg}:{METRICS_LINE}: metrics '{value}'", err)
            self.assertIn(msg, err)
            self.assertNotIn("EAL:", err)  # refused before EAL started
            self.assertFalse(os.path.exists(d.json))

    def test_busy_port_fails_before_ports_start(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            s.listen()
            port = s.getsockname()[1]
            d = self.run_dpfwd("busy", metrics=f"metrics = 127.0.0.1:{port}")
            self.assertEqual(d.wait(), 1)
        err = d.stderr()
        self.assertIn(f"{d.cfg}:{METRICS_LINE}: metrics endpoint 127.0.0.1:{port}: "
                      f"cannot bind: {os.strerror(errno.EADDRINUSE)}", err)
        self.assertNotIn("started", err)  # no port was started
        self.assertFalse(os.path.exists(d.json))


if __name__ == "__main__":
    unittest.main(verbosity=2)
