#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Soak (issue 7): forwarding, relay and endpoint traffic through one dpfwd at once, for
DPFWD_SOAK_SECONDS (meson test: 120; by hand 60; an hour as a documented bench:
DPFWD_SOAK_SECONDS=3600 meson test -C build soak --timeout-multiplier 0).

  dpgen F ==memif==> port0 198.18.0.1  routed 198.18.1.0/24 back to F (64 flows)
  dpgen R ==memif==> port1 198.18.3.1:5000  relay -> backend 198.18.3.2:6000 = R itself
                     (2000 client ports, max_sessions 500: sessions evicted all along)
  dpsock-perf        endpoints on dpfwd's socket, made and closed again and again
                     (ping-pong between two processes, copy and zero copy, 64 B, 16 KiB)

Every second the test samples dpfwd's telemetry and RSS. Checks:
- every packet accounted for: dpfwd's rx = tx + drops, with no drop; what the two dpgens
  sent is what dpfwd received and what they got back is what it sent; both lost nothing;
- flat: mempool in use in the second half never above the first half's most (plus a
  burst per port in flight), and back at the baseline at the end; relay sessions never
  above max_sessions; no endpoint left; RSS grew by less than 4 MiB after the first
  quarter (not checked under ASan, whose quarantine keeps freed memory);
- dpfwd exits 0 with no mbuf over its baseline.
Exit 77 (skipped) when dpfwd, dpgen or dpsock-perf is not built.
"""
import os
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

import dprig
from dprig import Dpfwd, Dpgen, as_list, memif_dev, wait_until

SECONDS = int(os.environ.get("DPFWD_SOAK_SECONDS") or
              os.environ.get("DPFWD_SOAK_SECONDS_DEFAULT") or "60")
RATE = "10kpps"
MAX_SESSIONS = 500
RELAY_FLOWS = 2000
FWD_MAC0, FWD_MAC1 = "02:00:00:00:00:10", "02:00:00:00:00:11"
GEN_F, GEN_R = "02:64:67:00:00:00", "02:64:67:00:00:01"

CONFIG = """\
[dpfwd]
mode = forward
main_lcore = 0
node_stats = on

[mempool]
size = auto

[port0]
dev = {dev0}
ip4 = 198.18.0.1/24

[port1]
dev = {dev1}
ip4 = 198.18.3.1/24

[lcores]
rx = (0,0,1),(1,0,1)

[routes]
route = 198.18.1.0/24 via 198.18.0.2 port 0

[neighbors]
neigh = 198.18.0.2 lladdr {gen_f} port 0
neigh = 198.18.3.2 lladdr {gen_r} port 1

[relay0]
listen = 198.18.3.1:5000
backend = 198.18.3.2:6000
ports = 20000-29999
max_sessions = {max_sessions}

[endpoint]
socket = {sock}
mode = 0600
"""


def perf_log(d: Path) -> str:
    """dpsock-perf's failures (the notes) and the end of its output."""
    text = (d / "perf.log").read_text(errors="replace")
    notes = [line for line in text.splitlines() if "FAILED" in line or "error" in line]
    return "\n".join(notes) + "\n...\n" + text[-1500:]


def under_asan() -> bool:
    out = subprocess.run(["nm", "-D", str(dprig.DPFWD)], capture_output=True, text=True)
    return "__asan_init" in out.stdout


class Soak(unittest.TestCase):
    def test_mixed_traffic_stays_flat_and_accounted(self):
        tmp = tempfile.TemporaryDirectory(prefix="dpfwd-test-soak-")
        self.addCleanup(tmp.cleanup)
        d = Path(tmp.name)
        s0, s1, eps = d / "memif0.sock", d / "memif1.sock", d / "dpsock.sock"
        cfg = d / "soak.ini"
        cfg.write_text(CONFIG.format(dev0=memif_dev(0, "server", s0, FWD_MAC0),
                                     dev1=memif_dev(1, "server", s1, FWD_MAC1),
                                     gen_f=GEN_F, gen_r=GEN_R, max_sessions=MAX_SESSIONS,
                                     sock=eps))
        fwd = Dpfwd(d, cfg, interval_ms=1000)
        self.addCleanup(fwd.cleanup)
        fwd.start()
        fwd.wait_ready(extra=lambda: s0.exists() and s1.exists() and eps.exists())
        time.sleep(0.5)    # the ports' gratuitous ARPs went out before the peers came
        base = fwd.totals()
        baseline = int(as_list(fwd.cmd("/dpfwd/mem/pools"))[0]["in_use_baseline"])

        common = ["--rate", RATE, "--duration", str(SECONDS), "--drain-ms", "500"]
        gf = Dpgen(d, "genf", memif_dev(0, "client", s0, GEN_F),
                   ["--flows", "64", "--dst-mac", FWD_MAC0, "--dst-ip", "198.18.1.1"] + common)
        gr = Dpgen(d, "genr", memif_dev(0, "client", s1, GEN_R),
                   ["--flows", str(RELAY_FLOWS), "--src-ip", "198.18.3.2",
                    "--dst-ip", "198.18.3.1", "--dst-port", "5000", "--src-mac", GEN_R,
                    "--dst-mac", FWD_MAC1] + common)
        for g in (gf, gr):
            self.addCleanup(g.cleanup)
            g.start()

        samples, perf_runs, perf = [], 0, None

        def perf_stop():
            if perf is not None and perf.poll() is None:
                perf.kill()
                perf.wait()
        self.addCleanup(perf_stop)
        env = dict(os.environ, DPSOCK_PATH=str(eps))
        t0 = time.monotonic()
        while gf.running() or gr.running():
            fwd.alive()
            if perf is None or perf.poll() is not None:
                if perf is not None:
                    self.assertEqual(perf.returncode, 0, perf_log(d))
                    perf_runs += 1
                if time.monotonic() - t0 < SECONDS - 5:
                    with open(d / "perf.log", "w") as log:
                        perf = subprocess.Popen(
                            [str(dprig.DPSOCK_PERF), "--transports", "dpsock-local,dpsock-zc",
                             "--sizes", "64,16K", "--mode", "block", "--iters", "300",
                             "--warmup", "10", "--duration", "0", "--cpus", "0,1",
                             "--dpsock", str(eps), "--timeout", "30"],
                            stdout=log, stderr=subprocess.STDOUT, env=env)
                else:
                    perf = None
            pools = as_list(fwd.cmd("/dpfwd/mem/pools"))[0]
            relay = fwd.cmd("/dpfwd/relay/stats")
            samples.append({"t": time.monotonic() - t0, "in_use": int(pools["in_use"]),
                            "rss_kb": fwd.rss_kb(),
                            "sessions": sum(int(w["sessions_active"])
                                            for w in as_list(relay["workers"]))})
            time.sleep(1)
        if perf is not None:
            self.assertEqual(perf.wait(timeout=60), 0, perf_log(d))
            perf_runs += 1
        for g in (gf, gr):
            self.assertEqual(g.wait(timeout=30), 0, g.log())
        time.sleep(0.5)
        end = fwd.totals()
        relay = fwd.cmd("/dpfwd/relay/stats")
        endpoints = fwd.cmd("/dpfwd/endpoint/list")
        pools = as_list(fwd.cmd("/dpfwd/mem/pools"))[0]

        # every packet accounted for, none dropped, none lost
        f, r = gf.result()["seq"], gr.result()["seq"]
        rx, tx = end["rx"] - base["rx"], end["tx"] - base["tx"]
        drops = end["drops"] - base["drops"]
        self.assertEqual(rx, tx + drops)
        self.assertEqual(drops, 0, end["by_reason"])
        self.assertEqual(rx, f["sent"] + r["sent"])
        self.assertEqual(tx, f["received"] + r["received"])
        self.assertEqual((f["lost"], r["lost"]), (0, 0), (f, r))
        self.assertGreater(f["sent"], SECONDS * 5000)
        self.assertGreater(r["sent"], SECONDS * 5000)

        # flat
        half = len(samples) // 2
        self.assertGreater(half, 3, samples)
        first = max(s["in_use"] for s in samples[:half])
        second = max(s["in_use"] for s in samples[half:])
        # a sample may catch up to a burst per port in flight
        self.assertLessEqual(second, first + 2 * 32, samples)
        self.assertEqual(int(pools["in_use"]), baseline, pools)
        self.assertLessEqual(max(s["sessions"] for s in samples), MAX_SESSIONS, samples)
        evicted = sum(int(w["evicted"]) for w in as_list(relay["workers"]))
        self.assertGreater(evicted, 0, relay)
        self.assertEqual(len(as_list(endpoints.get("endpoints", []))), 0, endpoints)
        self.assertGreater(perf_runs, 1)
        if not under_asan():
            q = samples[len(samples) // 4]["rss_kb"]
            self.assertLess(samples[-1]["rss_kb"] - q, 4096, samples)

        self.assertEqual(fwd.stop(), 0, fwd.log())
        self.assertEqual(fwd.final()["run"]["mbufs_over_baseline"], 0)
        print("rss kB:", [s["rss_kb"] for s in samples])
        print(f"soak {SECONDS} s: dpfwd rx {rx} tx {tx}, relay evicted {evicted}, "
              f"dpsock-perf runs {perf_runs}, in use {first}/{second} (halves' max), "
              f"rss {samples[0]['rss_kb']}..{samples[-1]['rss_kb']} kB")


if __name__ == "__main__":
    dprig.skip_unless_built(dprig.DPFWD, dprig.DPGEN, dprig.DPSOCK_PERF)
    unittest.main(verbosity=2)
