#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/dpsockbench: `dpbench.py dpsock` and `dpsock-tx` (apps/dpbench/dpsockbench.py).

unit (default): no dpfwd, no process: the aggregation of dpsock-perf's JSON over runs
(dpstat's median and spread), the ratios of the medians, the endpoint targets and their
verdicts, the table, the completeness check, the variants file of dpsock-tx (file:line
errors) and the wire window it reads from dpfwd's telemetry. SAMPLE is one recorded
dpsock-perf --quick run (cells of 8 B and 1 MiB, trimmed); the other runs are it scaled.

--func: `dpbench.py dpsock --quick` end to end on the built dpfwd and dpsock-perf
(DPFWD_BUILD): the JSON has every transport with cells whose every byte was checked.
Exits 77 (skipped) without root or the binaries.
"""
import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

REPO = Path(os.environ.get("DPFWD_SRC", Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(REPO / "apps" / "dpbench"))
import dpbench  # noqa: E402
import dpsockbench as dsb  # noqa: E402

SAMPLE = json.loads(
    '{"tool":"dpsock-perf","version":1,"machine":{"cpu_model":"AMD EPYC","nproc":2,"kernel":"6.'
    '18.44-fc-v669","machine":"x86_64","hostname":"vm","loadavg":[1.931640625,1.013671875,0.776'
    '3671875],"tsc_hz":2596116952,"tick_overhead_ns":10.01495713818674},"params":{"sizes":[8,10'
    '24,65536,1048576],"iters":2000,"warmup":200,"pp_max_s":0.5,"duration_s":0.2,"batch":32,"mo'
    'de":"both","cpus":[0,1],"dpsock_path":"dd/dpsock.sock","local_addr":"198.18.0.1","remote":'
    'null,"sndbuf":4194304},"dpsock":{"available":true,"why":""},"cells":[{"transport":"dpsock-'
    'local","mode":"spin","size":8,"status":"ok","note":"","rtt_us":{"n":2000,"p50":1.703,"p99"'
    ':7.421},"lost_replies":0,"stream":{"sent":591553,"received":591553,"lost":0,"again":1072,"'
    'tx_s":0.2,"rx_s":0.2,"msgs_per_s":2957386.723,"gbps":0.189},"check":{"msgs":595953,"bytes"'
    ':4767624,"validated_bytes":4767624,"bad_len":0,"bad_data":0,"bad_seq":0,"lost":0,"ok":true'
    '}},{"transport":"dpsock-local","mode":"spin","size":1048576,"status":"ok","note":"","rtt_u'
    's":{"n":1508,"p50":307.589,"p99":372.627},"lost_replies":0,"stream":{"sent":1352,"received'
    '":1352,"lost":0,"again":743834,"tx_s":0.202,"rx_s":0.206,"msgs_per_s":6554.622,"gbps":54.9'
    '84},"check":{"msgs":4768,"bytes":4999610368,"validated_bytes":4999610368,"bad_len":0,"bad_'
    'data":0,"bad_seq":0,"lost":0,"ok":true}},{"transport":"dpsock-zc","mode":"spin","size":8,"'
    'status":"ok","note":"","rtt_us":{"n":2000,"p50":0.421,"p99":4.887},"lost_replies":0,"strea'
    'm":{"sent":4449209,"received":4449209,"lost":0,"again":1676476,"tx_s":0.202,"rx_s":0.204,"'
    'msgs_per_s":21857660.692,"gbps":1.399},"check":{"msgs":4453609,"bytes":35628872,"validated'
    '_bytes":35628872,"bad_len":0,"bad_data":0,"bad_seq":0,"lost":0,"ok":true}},{"transport":"d'
    'psock-zc","mode":"spin","size":1048576,"status":"ok","note":"","rtt_us":{"n":2000,"p50":41'
    '.883,"p99":1316.136},"lost_replies":0,"stream":{"sent":6016,"received":6016,"lost":0,"agai'
    'n":2709178,"tx_s":0.201,"rx_s":0.205,"msgs_per_s":29384.759,"gbps":246.497},"check":{"msgs'
    '":10416,"bytes":10921967616,"validated_bytes":10921967616,"bad_len":0,"bad_data":0,"bad_se'
    'q":0,"lost":0,"ok":true}},{"transport":"udp-loopback","mode":"block","size":8,"status":"ok'
    '","note":"","rtt_us":{"n":2000,"p50":32.038,"p99":62.503},"lost_replies":0,"stream":{"sent'
    '":43648,"received":43648,"lost":0,"again":0,"tx_s":0.2,"rx_s":0.2,"msgs_per_s":218205.295,'
    '"gbps":0.014},"check":{"msgs":48048,"bytes":384384,"validated_bytes":384384,"bad_len":0,"b'
    'ad_data":0,"bad_seq":0,"lost":0,"ok":true}},{"transport":"udp-loopback","mode":"block","si'
    'ze":1048576,"status":"skipped","note":"1048576 bytes > 65507, the largest udp-loopback mes'
    'sage"},{"transport":"unix-dgram","mode":"block","size":8,"status":"ok","note":"","rtt_us":'
    '{"n":2000,"p50":30.986,"p99":57.175},"lost_replies":0,"stream":{"sent":230496,"received":2'
    '30496,"lost":0,"again":0,"tx_s":0.2,"rx_s":0.203,"msgs_per_s":1137794.718,"gbps":0.073},"c'
    'heck":{"msgs":234896,"bytes":1879168,"validated_bytes":1879168,"bad_len":0,"bad_data":0,"b'
    'ad_seq":0,"lost":0,"ok":true}},{"transport":"unix-dgram","mode":"block","size":1048576,"st'
    'atus":"ok","note":"","rtt_us":{"n":2000,"p50":159.438,"p99":1191.079},"lost_replies":0,"st'
    'ream":{"sent":2816,"received":2816,"lost":0,"again":0,"tx_s":0.201,"rx_s":0.2,"msgs_per_s"'
    ':14093.933,"gbps":118.228},"check":{"msgs":7216,"bytes":7566524416,"validated_bytes":75665'
    '24416,"bad_len":0,"bad_data":0,"bad_seq":0,"lost":0,"ok":true}},{"transport":"shm-spin","m'
    'ode":"spin","size":8,"status":"ok","note":"","rtt_us":{"n":2000,"p50":0.13,"p99":0.27},"lo'
    'st_replies":0,"stream":{"sent":4049898,"received":4049898,"lost":0,"again":435336,"tx_s":0'
    '.2,"rx_s":0.199,"msgs_per_s":20383677.929,"gbps":1.305},"check":{"msgs":4054298,"bytes":32'
    '434384,"validated_bytes":32434384,"bad_len":0,"bad_data":0,"bad_seq":0,"lost":0,"ok":true}'
    '},{"transport":"shm-spin","mode":"spin","size":1048576,"status":"ok","note":"","rtt_us":{"'
    'n":952,"p50":151.536,"p99":4537.757},"lost_replies":0,"stream":{"sent":1712,"received":171'
    '2,"lost":0,"again":960119,"tx_s":0.2,"rx_s":0.2,"msgs_per_s":8547.26,"gbps":71.7},"check":'
    '{"msgs":4016,"bytes":4211081216,"validated_bytes":4211081216,"bad_len":0,"bad_data":0,"bad'
    '_seq":0,"lost":0,"ok":true}}],"notes":[],"failed":1}')


def scaled(doc, rtt=1.0, rate=1.0):
    """A copy of DOC with every RTT times RTT and every rate times RATE."""
    d = copy.deepcopy(doc)
    for c in d["cells"]:
        if c.get("rtt_us"):
            for k in ("p50", "p99"):
                c["rtt_us"][k] *= rtt
        if c.get("stream"):
            c["stream"]["msgs_per_s"] *= rate
            c["stream"]["gbps"] *= rate
    return d


def cell(doc, transport, size):
    return next(c for c in doc["cells"] if c["transport"] == transport and c["size"] == size)


def synthetic(dl_p50=0.25, udp_p50=30.0, dl_rate=10e6, udp_rate=0.4e6, zc_1m=400.0,
              unix_best=30.0):
    """A minimal dpsock-perf document with chosen numbers."""
    def c(t, mode, size, p50, rate, gbps=None):
        return {"transport": t, "mode": mode, "size": size, "status": "ok", "note": "",
                "rtt_us": {"n": 100, "p50": p50, "p99": p50 * 2},
                "stream": {"msgs_per_s": rate, "gbps": gbps if gbps is not None
                           else rate * size * 8 / 1e9},
                "check": {"validated_bytes": 100, "bad_len": 0, "bad_data": 0,
                          "bad_seq": 0, "ok": True}}
    return {"cells": [c("dpsock-local", "spin", 8, dl_p50, dl_rate),
                      c("dpsock-zc", "spin", 8, dl_p50, dl_rate / 2),
                      c("dpsock-zc", "spin", 1048576, 50.0, 1000, zc_1m),
                      c("udp-loopback", "block", 8, udp_p50, udp_rate),
                      c("udp-loopback", "block", 16384, udp_p50, 1000, 20.0),
                      c("unix-dgram", "block", 262144, 100.0, 1000, unix_best),
                      c("shm-spin", "spin", 8, 0.13, 20e6)]}


class TestAggregate(unittest.TestCase):
    def setUp(self):
        self.runs = [scaled(SAMPLE, 1.0, 1.0), scaled(SAMPLE, 2.0, 0.5), scaled(SAMPLE, 3.0, 2.0)]
        self.agg = dsb.aggregate(self.runs)

    def test_median_and_spread_over_runs(self):
        base = cell(SAMPLE, "dpsock-local", 8)
        a = self.agg[("dpsock-local", "spin", 8)]
        self.assertEqual(a["ok"], 3)
        s = a["stats"]["p50_us"]
        p = base["rtt_us"]["p50"]
        self.assertEqual(s["n"], 3)
        self.assertAlmostEqual(s["min"], p)
        self.assertAlmostEqual(s["max"], 3 * p)
        self.assertAlmostEqual(s["median"], 2 * p)
        r = a["stats"]["msgs_per_s"]
        m = base["stream"]["msgs_per_s"]
        self.assertAlmostEqual(r["min"], m / 2)
        self.assertAlmostEqual(r["median"], m)
        self.assertAlmostEqual(r["max"], 2 * m)

    def test_even_count_takes_dpstat_median(self):
        agg = dsb.aggregate(self.runs[:2])
        s = agg[("dpsock-local", "spin", 8)]["stats"]["p50_us"]
        # ministat's median: the upper of the two middle values
        self.assertAlmostEqual(s["median"], 2 * cell(SAMPLE, "dpsock-local", 8)["rtt_us"]["p50"])

    def test_skipped_cells_are_counted_not_measured(self):
        a = self.agg[("udp-loopback", "block", 1048576)]
        self.assertEqual((a["ok"], a["skipped"]), (0, 3))
        self.assertIsNone(a["stats"]["p50_us"])
        self.assertTrue(any("65507" in n for n in a["notes"]))

    def test_validated_bytes_summed(self):
        a = self.agg[("shm-spin", "spin", 8)]
        self.assertEqual(a["validated_bytes"],
                         3 * cell(SAMPLE, "shm-spin", 8)["check"]["validated_bytes"])
        self.assertEqual(a["bad"], 0)

    def test_failed_cell(self):
        bad = copy.deepcopy(SAMPLE)
        c = cell(bad, "dpsock-zc", 8)
        c["status"], c["note"] = "failed", "3 messages failed the check"
        c["check"]["bad_data"] = 3
        agg = dsb.aggregate([bad, SAMPLE])
        a = agg[("dpsock-zc", "spin", 8)]
        self.assertEqual((a["ok"], a["failed"], a["bad"]), (1, 1, 3))
        self.assertEqual(a["stats"]["p50_us"]["n"], 1)    # only the good run counts
        self.assertIn("3 messages failed the check", a["notes"])


class TestRatiosAndTargets(unittest.TestCase):
    def test_ratios_of_the_medians(self):
        agg = dsb.aggregate([synthetic(), synthetic(dl_p50=0.5), synthetic(dl_p50=0.3)])
        r = [x for x in dsb.ratios(agg) if x["transport"] == "dpsock-local"
             and x["size"] == 8 and x["vs"] == "udp-loopback"]
        self.assertEqual(len(r), 1)
        self.assertAlmostEqual(r[0]["rtt_p50_lower_x"], 30.0 / 0.3)
        self.assertAlmostEqual(r[0]["msgs_per_s_higher_x"], 10e6 / 0.4e6)

    def test_all_targets_pass(self):
        tg = dsb.targets(dsb.aggregate([synthetic()]))
        self.assertEqual(len(tg), 4)
        self.assertEqual([t["ok"] for t in tg], [True, True, True, True])
        self.assertAlmostEqual(tg[1]["value"], 120.0)
        self.assertAlmostEqual(tg[2]["value"], 25.0)
        # 1 MiB: against Linux's best at any size (unix-dgram 30 Gbps at 256K)
        self.assertAlmostEqual(tg[3]["value"], 400.0 / 30.0)
        self.assertIn("unix-dgram at 256K", tg[3]["detail"])

    def test_targets_fail_at_the_thresholds(self):
        tg = dsb.targets(dsb.aggregate([synthetic(dl_p50=0.31, udp_p50=30.0, dl_rate=7.9e6,
                                                  zc_1m=299.0)]))
        self.assertEqual([t["ok"] for t in tg], [False, False, False, False])
        tg = dsb.targets(dsb.aggregate([synthetic(dl_p50=0.3, udp_p50=30.0, dl_rate=8e6,
                                                  zc_1m=300.0)]))
        self.assertEqual([t["ok"] for t in tg], [True, True, True, True])

    def test_best_dpsock_streaming_counts(self):
        d = synthetic(dl_rate=1e6)
        cell(d, "dpsock-zc", 8)["stream"]["msgs_per_s"] = 9e6
        tg = dsb.targets(dsb.aggregate([d]))
        self.assertAlmostEqual(tg[2]["value"], 9e6 / 0.4e6)
        self.assertIn("dpsock-zc", tg[2]["detail"])

    def test_not_measured_is_na(self):
        d = synthetic()
        d["cells"] = [c for c in d["cells"] if not c["transport"].startswith("dpsock")]
        tg = dsb.targets(dsb.aggregate([d]))
        self.assertEqual([t["ok"] for t in tg], [None, None, None, None])
        self.assertTrue(all("n/a" in line for line in dsb.targets_text(tg)))

    def test_recorded_sample_verdicts(self):
        tg = dsb.targets(dsb.aggregate([SAMPLE]))
        p50 = cell(SAMPLE, "dpsock-local", 8)["rtt_us"]["p50"]
        self.assertAlmostEqual(tg[0]["value"], p50)
        self.assertEqual(tg[0]["ok"], p50 <= 0.3)
        udp = cell(SAMPLE, "udp-loopback", 8)["rtt_us"]["p50"]
        self.assertAlmostEqual(tg[1]["value"], udp / p50)

    def test_default_mode_preferred(self):
        d = synthetic()
        spin = copy.deepcopy(cell(d, "udp-loopback", 8))
        spin["mode"], spin["rtt_us"]["p50"] = "spin", 3.0
        d["cells"].append(spin)
        agg = dsb.aggregate([d])
        self.assertEqual(dsb.find_key(agg, "udp-loopback", 8), ("udp-loopback", "block", 8))
        self.assertAlmostEqual(dsb.targets(agg)[1]["value"], 120.0)


class TestTable(unittest.TestCase):
    def test_rows_and_ratio_columns(self):
        lines = dsb.table_text(dsb.aggregate([SAMPLE, scaled(SAMPLE, 1.1, 0.9),
                                              scaled(SAMPLE, 0.9, 1.1)]))
        self.assertIn("p50 us", lines[0])
        rows = {tuple(line.split()[:3]): line for line in lines[1:]}
        dl = rows[("dpsock-local", "spin", "8")]
        self.assertEqual(dl.split()[3], "3")                  # runs
        self.assertEqual(dl.count("x"), 4)                    # the ratio columns
        self.assertIn("skipped", rows[("udp-loopback", "block", "1M")])
        self.assertNotIn("x ", rows[("shm-spin", "spin", "8")] + " ")
        order = [line.split()[0] for line in lines[1:]]
        self.assertEqual(order.index("dpsock-local"), 0)
        self.assertLess(order.index("udp-loopback"), order.index("shm-spin"))

    def test_sizes_and_rates(self):
        self.assertEqual([dsb.size_str(n) for n in (8, 512, 1024, 65536, 65507, 1 << 20)],
                         ["8", "512", "1K", "64K", "65507", "1M"])
        self.assertEqual(dsb.fmt_rate(23.1e6), "23.10M")
        self.assertEqual(dsb.fmt_rate(850e3), "850.00k")
        self.assertEqual(dsb.fmt_rate(None), "-")


def udprtt_summary(p50, p99, received=1000, corrupted=0, lost=0):
    """A udprtt client summary (the keys relaybench.parse_udprtt requires)."""
    return {"tool": "udprtt", "sent": received + lost, "received": received, "lost": lost,
            "corrupted": corrupted, "late": 0, "duplicate": 0,
            "rtt_us": {"n": received, "min": p50 / 2, "p50": p50, "p90": p99 * 0.9,
                       "p99": p99, "p999": p99 * 1.5, "max": p99 * 2, "mean": p50,
                       "stddev": 1.0}}


def remote_cell(size, p50, p99):
    return {"transport": "dpsock-remote", "mode": "spin", "size": size, "status": "ok",
            "note": "", "rtt_us": {"n": 1000, "p50": p50, "p99": p99}, "lost_replies": 0,
            "check": {"validated_bytes": 1000 * size, "bad_len": 0, "bad_data": 0,
                      "bad_seq": 0, "ok": True}}


class TestRemote(unittest.TestCase):
    """--remote without namespaces: the anchor's cells from udprtt's JSON, the table rows,
    the ratios dpsock-remote vs Linux, the dpfwd config with the veth port."""

    def runs(self):
        out = []
        for k in (1.0, 1.2, 0.9):
            d = copy.deepcopy(SAMPLE)
            d["cells"] += [remote_cell(8, 16.0 * k, 40.0 * k), remote_cell(1024, 17.0 * k, 44.0)]
            d["cells"] += [dsb.anchor_cell(dsb.relaybench.parse_udprtt(json.dumps(
                udprtt_summary(48.0 * k, 80.0))), 8),
                dsb.anchor_cell(udprtt_summary(51.0 * k, 88.0), 1024)]
            out.append(d)
        return out

    def test_anchor_cell(self):
        c = dsb.anchor_cell(udprtt_summary(50.0, 90.0, received=990, lost=10), 1024)
        self.assertEqual((c["transport"], c["mode"], c["size"], c["status"]),
                         ("udp-remote", "block", 1024, "ok"))
        self.assertEqual(c["rtt_us"], {"n": 990, "p50": 50.0, "p99": 90.0})
        self.assertEqual((c["check"]["validated_bytes"], c["lost_replies"], c["note"]),
                         (990 * 1024, 10, ""))
        small = dsb.anchor_cell(udprtt_summary(50.0, 90.0), 8)
        self.assertEqual((small["size"], small["wire_size"], small["status"]), (8, 24, "ok"))
        self.assertIn("24 B", small["note"])
        self.assertEqual(small["check"]["validated_bytes"], 1000 * 24)
        bad = dsb.anchor_cell(udprtt_summary(50.0, 90.0, corrupted=1), 64)
        self.assertEqual(bad["status"], "failed")
        self.assertIn("1 corrupted", bad["note"])
        none = dsb.anchor_cell(udprtt_summary(50.0, 90.0, received=0, lost=5), 64)
        self.assertEqual((none["status"], none["note"]), ("failed", "udprtt: 0 of 5 answered, "
                                                          "0 corrupted"))
        err = dsb.anchor_cell(None, 64, "udprtt exit 1: no route")
        self.assertEqual((err["status"], err["note"]), ("failed", "udprtt exit 1: no route"))
        big = dsb.anchor_cell(None, 1 << 20)
        self.assertEqual(big["status"], "skipped")

    def test_rows_ratios_and_table(self):
        agg = dsb.aggregate(self.runs())
        rows = dsb.remote_rows(agg)
        self.assertEqual([r["size"] for r in rows], [8, 1024])
        r8 = rows[0]
        # dpstat's median of 3: the middle value
        self.assertAlmostEqual(r8["dpsock_p50_us"], 16.0)
        self.assertAlmostEqual(r8["linux_p50_us"], 48.0)
        self.assertAlmostEqual(r8["p50_lower_x"], 3.0)
        self.assertAlmostEqual(r8["p99_lower_x"], 2.0)
        self.assertEqual(len(r8["linux_notes"]), 1)
        self.assertAlmostEqual(rows[1]["p50_lower_x"], 3.0)
        text = dsb.remote_text(rows, "net_af_xdp")
        self.assertIn("net_af_xdp", text[0])
        self.assertIn("3.00x", text[2])
        self.assertIn("24 B", text[2])
        self.assertNotIn("24 B", text[3])
        lines = dsb.table_text(agg)
        order = [line.split()[0] for line in lines[1:]]
        # after the local transports, dpsock-remote then its anchor
        self.assertEqual(order[-4:], ["dpsock-remote"] * 2 + ["udp-remote"] * 2)
        rowd = {tuple(line.split()[:3]): line for line in lines[1:]}
        self.assertEqual(rowd[("udp-remote", "block", "1K")].split()[3], "3")
        self.assertEqual(dsb.remote_text([]), [])

    def test_no_anchor_no_ratio(self):
        d = copy.deepcopy(SAMPLE)
        d["cells"].append(remote_cell(64, 16.0, 40.0))
        rows = dsb.remote_rows(dsb.aggregate([d]))
        self.assertEqual((rows[0]["linux_p50_us"], rows[0]["p50_lower_x"]), (None, None))
        self.assertIn("-", dsb.remote_text(rows)[2])

    def test_remote_config(self):
        local = (REPO / dsb.LOCAL_CONFIG).read_text()
        for drv, devarg in (("net_af_xdp", "start_queue=0"), ("net_af_packet", "framecnt=")):
            cfg = dsb.remote_config(local, drv, "dsb1d", "/x/drivers-cfg")
            self.assertIn(f"[port1]\ndev = {drv}1,iface=dsb1d,{devarg}", cfg)
            self.assertIn(f"ip4 = {dsb.REMOTE_PORT_IP}/24", cfg)
            self.assertIn("rx = (0,0,1),(1,0,1)", cfg)
            self.assertIn("[dpfwd]\ndrivers_cfg = /x/drivers-cfg", cfg)
            self.assertIn(f"neigh = {dsb.REMOTE_HOST_IP} lladdr {dsb.REMOTE_HOST_MAC} port 1",
                          cfg)
            self.assertIn("[endpoint]\nsocket = ${DPSOCK_DIR}/dpsock.sock", cfg)
            self.assertIn("dev = net_null0,no-rx=1", cfg)
        two = "[dpfwd]\ndrivers_cfg = d\n[port0]\n[port1]\n[lcores]\nrx = (0,0,1),(1,0,1)\n"
        cfg = dsb.remote_config(two, "net_af_xdp", "v", "/y")
        self.assertIn("rx = (0,0,1),(1,0,1),(2,0,1)", cfg)
        self.assertIn("[port2]", cfg)
        self.assertNotIn("/y", cfg)
        with self.assertRaises(ValueError):
            dsb.remote_config("[dpfwd]\n[port0]\n", "net_af_xdp", "v", "/y")

    def test_stale_namespaces(self):
        names = ["dsb10-h", "dsb10-c", "dsb11-h", "dpn10_1-a", "dsb10-hx", "other"]
        self.assertEqual(dsb.stale_remote_namespaces(names, lambda pid: pid == 11),
                         ["dsb10-h", "dsb10-c"])

    def test_remote_needs_root_or_binaries(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.devnull, "w") as devnull:
                old, sys.stdout = sys.stdout, devnull
                try:
                    rc = dpbench.main(["dpsock", "--build", d, "--quick", "--remote"])
                finally:
                    sys.stdout = old
        self.assertEqual(rc, 2)


class TestComplete(unittest.TestCase):
    def test_sample_has_every_transport(self):
        self.assertEqual(dsb.check_complete(SAMPLE), [])

    def test_missing_and_unchecked(self):
        d = copy.deepcopy(SAMPLE)
        d["cells"] = [c for c in d["cells"] if c["transport"] != "shm-spin"]
        for c in d["cells"]:
            if c["transport"] == "dpsock-zc":
                c["check"]["validated_bytes"] = 0
        self.assertEqual(dsb.check_complete(d), ["dpsock-zc", "shm-spin"])


class TestTxBench(unittest.TestCase):
    def write(self, text):
        """TEXT in a temporary file; its relative config names the shipped one."""
        text = text.replace("config = dpsock-tx63k.ini",
                            f"config = {REPO / 'configs' / 'bench' / 'dpsock-tx63k.ini'}")
        f = tempfile.NamedTemporaryFile("w", suffix=".ini", delete=False,
                                        prefix="test-dpsocktx-")
        f.write(text)
        f.close()
        self.addCleanup(os.unlink, f.name)
        return Path(f.name)

    def test_shipped_variants_file(self):
        b = dsb.load_tx_bench(REPO / dsb.TX_VARIANTS)
        self.assertEqual([v.name for v in b["variants"]],
                         ["baseline", "cache-0", "ops-stack", "cache-0-ops-stack", "cksum-off"])
        self.assertEqual((b["size"], b["dest"], b["zero_copy"]), (64512, "198.18.0.2:9", False))
        self.assertTrue(b["config"].is_file())
        self.assertIn("dpfwd.node_stats=on", b["sets"])
        sets = {v.name: sorted(o.arg() for o in v.overrides) for v in b["variants"]}
        self.assertEqual(sets["cache-0-ops-stack"], ["mempool.cache=0", "mempool.ops=stack"])
        self.assertEqual(sets["cksum-off"], ["endpoint.udp4_cksum=off", "mempool.cache=256",
                                             "mempool.ops=ring_mp_mc"])

    def test_matrix(self):
        p = self.write("[dpsock-tx]\nconfig = dpsock-tx63k.ini\ndest = 198.18.0.2:9\n"
                       "[matrix]\nmempool.ops = ring_mp_mc | stack\nmempool.cache = 256 | 0\n")
        b = dsb.load_tx_bench(p)
        self.assertEqual(len(b["variants"]), 4)
        self.assertEqual(b["variants"][0].name, "ops=ring_mp_mc/cache=256")

    def test_errors_name_file_and_line(self):
        cases = [
            ("[dpsock-tx]\nconfig = dpsock-tx63k.ini\ndest = x\n[variant a]\n", ":3:", "dest"),
            ("[dpsock-tx]\nconfig = dpsock-tx63k.ini\ndest = 198.18.0.2:9\n[variant a]\n"
             "mempool.cache = 9999\n", ":5:", "mempool.cache"),
            ("[dpsock-tx]\nconfig = dpsock-tx63k.ini\ndest = 198.18.0.2:9\nbogus = 1\n", ":4:",
             "unknown key"),
            ("[dpsock-tx]\nconfig = nothere.ini\ndest = 198.18.0.2:9\n[variant a]\n", ":2:",
             "not found"),
            ("[dpsock-tx]\nconfig = dpsock-tx63k.ini\ndest = 198.18.0.2:9\n", ":0:",
             "no variants"),
            ("[bench]\n", ":1:", "unknown section"),
        ]
        for text, where, what in cases:
            p = self.write(text)
            with self.assertRaises(dsb.TxBenchError) as cm:
                dsb.load_tx_bench(p)
            self.assertIn(f"{p.name}{where}", str(cm.exception), text)
            self.assertIn(what, str(cm.exception), text)

    def test_wire_window(self):
        def snap(t, pk, by, lbytes, cyc, tpk):
            return {"uptime_s": t, "tsc_hz": 2e9,
                    "ports": [{"port_id": 0, "opackets": pk, "obytes": by}],
                    "lcores": [{"busy_cycles": 0, "tx_bytes": lbytes}],
                    "nodes": {"endpoint_tx": {"pkts": tpk, "timed_cycles": cyc,
                                              "timed_pkts": tpk},
                              "port_tx-0": {"pkts": tpk, "timed_cycles": cyc // 4,
                                            "timed_pkts": tpk}}}
        w = dsb.tx_window(snap(1.0, 100, 0, 0, 0, 0), snap(3.0, 2100, 0, 3000000, 400000, 2000))
        self.assertAlmostEqual(w["pps"], 1000.0)
        self.assertAlmostEqual(w["gbps"], 3e6 * 8 / 2 / 1e9)     # net_null: the lcore's bytes
        self.assertEqual(w["cycles_from"], "nodes")
        self.assertAlmostEqual(w["cycles_per_pkt"], 250.0)        # 200 + 50
        self.assertAlmostEqual(w["nodes"]["endpoint_tx"]["cycles_per_pkt"], 200.0)
        self.assertIsNone(dsb.tx_window(None, {}))


class TestCommandLine(unittest.TestCase):
    def test_subcommands_wired(self):
        for argv in (["dpsock", "--help"], ["dpsock-tx", "--help"]):
            with self.assertRaises(SystemExit) as cm:
                with open(os.devnull, "w") as devnull:
                    old, sys.stdout = sys.stdout, devnull
                    try:
                        dpbench.main(argv)
                    finally:
                        sys.stdout = old
            self.assertEqual(cm.exception.code, 0)

    def test_missing_binaries_exit_2(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.devnull, "w") as devnull:
                old, sys.stdout = sys.stdout, devnull
                try:
                    rc = dpbench.main(["dpsock", "--build", d, "--quick"])
                    rc2 = dpbench.main(["dpsock-tx", "--build", d])
                finally:
                    sys.stdout = old
        self.assertEqual((rc, rc2), (2, 2))


# --------------------------------------------------------------------------
# --func: the whole thing
# --------------------------------------------------------------------------

def func() -> int:
    build = Path(os.environ.get("DPFWD_BUILD", REPO / "build"))
    for b in (build / "apps" / "dpfwd" / "dpfwd", build / "apps" / "dpsock-perf" / "dpsock-perf"):
        if not os.access(b, os.X_OK):
            print(f"SKIP: {b} missing")
            return 77
    if os.geteuid() != 0:
        print("SKIP: needs root (dpfwd's EAL)")
        return 77
    with tempfile.TemporaryDirectory(prefix="dpsockbench-") as tmp:
        out = Path(tmp) / "dpsock.json"
        t0 = time.monotonic()
        r = subprocess.run([sys.executable, str(REPO / "apps" / "dpbench" / "dpbench.py"),
                            "dpsock", "--build", str(build), "--quick", "--json", str(out)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=120)
        secs = time.monotonic() - t0
        print(r.stdout)
        fails = []
        if r.returncode != 0:
            fails.append(f"dpbench.py dpsock --quick: exit {r.returncode}")
        if not out.is_file():
            fails.append("no JSON written")
        else:
            doc = json.loads(out.read_text())
            if doc.get("runs") != 1 or not doc.get("perf"):
                fails.append(f"runs {doc.get('runs')}")
            else:
                missing = dsb.check_complete(doc["perf"][0])
                if missing:
                    fails.append("transports without validated bytes: " + ", ".join(missing))
                bad = [c for c in doc["perf"][0]["cells"] if c["status"] == "failed"]
                if bad:
                    fails.append(f"{len(bad)} failed cell(s): {bad[0]['note']}")
            if len(doc.get("targets", [])) != 4:
                fails.append("targets missing")
        if secs > 60:
            fails.append(f"took {secs:.0f} s")
        for f in fails:
            print("FAIL: " + f)
        print(f"func: {'FAILED' if fails else 'ok'} ({secs:.1f} s)")
        return 1 if fails else 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--func", action="store_true", help="run dpbench.py dpsock --quick")
    a, rest = ap.parse_known_args()
    if a.func:
        sys.exit(func())
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
