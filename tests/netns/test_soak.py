#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Soak: the three jobs through one dpfwd at once (forwarding, relay, endpoints local and
remote), for DPFWD_SOAK_SECONDS (meson test: 45, 20 under ASan in scripts/dev.sh; by
hand 60; an hour as a documented bench:
DPFWD_SOAK_SECONDS=3600 meson test -C build soak --timeout-multiplier 0).

  dpgen F ==memif==> port0 198.18.0.1   routed 198.18.1.0/24 back to F (64 flows)
  dpgen R ==memif==> port1 198.18.3.1:5000  relay -> backend 198.18.3.2:6000 = R itself
                     (2000 client ports, max_sessions 500: sessions evicted all along)
  dpsock-perf        local endpoints on dpfwd's socket, made and closed again and again
                     (ping-pong between two processes, copy and zero copy, 64 B, 16 KiB)
  dpsock-perf        remote endpoints (--transports dpsock-remote), made and closed again
   --remote          and again: ping-pong (64 B, 1400 B) from 198.18.10.1 out of
                     port2 198.18.10.1/24 (net_af_packet, one end of a veth) to a Linux
                     host in a namespace, 198.18.10.2, where udprtt --server echoes

dpfwd runs in a namespace of its own (netns.py's router namespace, one host: host a,
IPv6 off on its eth0); memif and dpsock sockets are files, so dpgen and dpsock-perf stay
outside. No static neighbor on port2: the host and dpfwd learn each other by ARP, and
both re-confirm along the run (Linux's DELAY/PROBE, dpfwd's stale probes).

Every second the test samples dpfwd's telemetry and RSS. Checks:
- every packet accounted for, per port: port0/port1 in = what dpgen F/R sent, out = what
  they got back, neither lost any. port2 against the host's own counters (its eth0's
  frames, an ARP counter on it by opcode and way, the echo server's counts): in = what
  the host sent = echo replies + its ARP = endpoint rx + ARP punted to the control lcore;
  out = what the host got = echo requests + ARP = endpoint tx + control frames (ARP, and
  packets held for a neighbor counted once). Every ARP request either way was answered;
  the ARP replies dpfwd took in are its only drops (arp_consumed), no other drop;
  dpsock-perf's requests = the echo's = endpoint tx, its replies = the echo's = endpoint
  rx, every request answered (a reply later than dpsock-perf's 0.5 s wait is late, not
  lost: it still comes and is checked). The workers' rx and tx are the ports' sums.
- flat: mempool in use in the second half never above the first half's most (plus a
  burst per port in flight), and back at the baseline at the end; relay sessions never
  above max_sessions; no endpoint left; RSS grew by less than 4 MiB after the first
  quarter or 10 s, when the memif rings went round once (not checked under ASan, whose
  quarantine keeps freed memory);
- dpfwd exits 0 with no mbuf over its baseline.
Exit 77 (skipped, with the reason) when dpfwd, dpgen, dpsock-perf or udprtt is not
built, or when namespaces cannot be made here (needs root). Everything made (namespaces,
veth, processes, by pid) is undone at the end, on failure and on SIGTERM (netns.py).

`test_soak.py arp-count IFNAME` is the ARP counter, run in the host's namespace.
"""
import ctypes
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "func"))
import netns  # noqa: E402
import dprig  # noqa: E402  (puts apps/dpbench on the path)
from dprig import Dpfwd, Dpgen, as_list, memif_dev, wait_until  # noqa: E402
import relaybench  # noqa: E402  (wait_udp_listen)

THIS = Path(__file__).resolve()
UDPRTT = Path(os.environ.get("UDPRTT_BIN", dprig.BUILD / "apps" / "udptools" / "udprtt"))
SECONDS = int(os.environ.get("DPFWD_SOAK_SECONDS") or
              os.environ.get("DPFWD_SOAK_SECONDS_DEFAULT") or "60")
RATE = "10kpps"
MAX_SESSIONS = 500
RELAY_FLOWS = 2000
FWD_MAC0, FWD_MAC1 = "02:00:00:00:00:10", "02:00:00:00:00:11"
GEN_F, GEN_R = "02:64:67:00:00:00", "02:64:67:00:00:01"
ECHO_PORT = 6000
REMOTE_SIZES = "64,1400"  # one frame each: net_af_packet truncates reassembled IPv4
ETH_P_ARP, ETH_P_ALL = 0x0806, 0x0003
SO_ATTACH_FILTER = 26

CONFIG = """\
[dpfwd]
mode = forward
main_lcore = 0
node_stats = on
drivers_cfg = {drivers_cfg}

[mempool]
size = auto

[port0]
dev = {dev0}
ip4 = 198.18.0.1/24

[port1]
dev = {dev1}
ip4 = 198.18.3.1/24

[port2]
dev = {dev2}
ip4 = {ip2}/24

[lcores]
rx = (0,0,1),(1,0,1),(2,0,1)

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


def arp_count(ifname: str) -> None:
    """In the host's namespace: count the ARP frames on IFNAME, both ways, by opcode; one
    JSON line of the totals at start and after each frame, until SIGTERM."""
    # ETH_P_ALL, as only its taps see outgoing frames; a classic BPF filter keeps ARP only
    # (tcpdump -dd arp), attached before the bind so that nothing else is ever queued
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    code = ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *i) for i in (
        (0x28, 0, 0, 12), (0x15, 0, 1, ETH_P_ARP), (0x06, 0, 0, 0x40000), (0x06, 0, 0, 0))))
    s.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER,
                 struct.pack("HL", len(code) // 8, ctypes.addressof(code)))
    s.bind((ifname, ETH_P_ALL))
    s.settimeout(0.2)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    counts = {w: {"request": 0, "reply": 0, "other": 0} for w in ("in", "out")}
    print(json.dumps(counts), flush=True)
    while not stop:
        try:
            frame, addr = s.recvfrom(256)
        except socket.timeout:
            continue
        way = "out" if addr[2] == socket.PACKET_OUTGOING else "in"
        op = int.from_bytes(frame[20:22], "big")  # ARP opcode: Ethernet 14 + 6
        counts[way][{1: "request", 2: "reply"}.get(op, "other")] += 1
        print(json.dumps(counts), flush=True)


def under_asan() -> bool:
    out = subprocess.run(["nm", "-D", str(dprig.DPFWD)], capture_output=True, text=True)
    return "__asan_init" in out.stdout


class EchoHost:
    """Host a of a one-host netns.Topology (dpfwd's port2 is the router end of its veth):
    udprtt --server, the echo `dpbench.py dpsock --remote` uses, and the ARP counter on
    its eth0. Both stopped by pid through netns's cleanup."""

    def __init__(self, topo: netns.Topology):
        self.host, d = topo.a, Path(topo.tmp)
        self.echo_json = d / "echo.json"
        with open(self.echo_json, "w") as out, open(d / "echo.log", "w") as err:
            self.echo = self.host.spawn(UDPRTT, "--server", f"{self.host.ip4}:{ECHO_PORT}",
                                        stdout=out, stderr=err)
        relaybench.wait_udp_listen(self.host.ns, ECHO_PORT, self.echo)
        self.arp_lines = d / "arp.jsonl"
        with open(self.arp_lines, "w") as out, open(d / "arp.log", "w") as err:
            self.arp_proc = self.host.spawn(sys.executable, THIS, "arp-count",
                                            self.host.ifname, stdout=out, stderr=err)

        def alive():
            if self.arp_proc.poll() is not None:
                raise RuntimeError(f"ARP counter: exit {self.arp_proc.returncode}: "
                                   + netns.read_text(d / "arp.log"))
        wait_until(lambda: self.arp_lines.read_text().startswith("{"), 10, "ARP counter",
                   alive)
        self.link0 = self.link()

    def link(self) -> dict:
        """eth0's own frame counters."""
        r = self.host.run("ip", "-s", "-j", "link", "show", self.host.ifname)
        st = json.loads(r.stdout)[0]["stats64"]
        return {"tx": st["tx"]["packets"], "rx": st["rx"]["packets"]}

    def arp(self) -> dict:
        return json.loads(self.arp_lines.read_text().splitlines()[-1])

    def stop_echo(self) -> dict:
        """Stop the echo server; its counts (received, echoed, send_failed...)."""
        netns.stop_process(self.echo)
        netns.undo(self.echo.cleanup)
        return json.loads(self.echo_json.read_text().splitlines()[-1])


def remote_counts(fwd: Dpfwd, eh: EchoHost) -> dict:
    """Port2's traffic seen from both sides, from dpfwd's start / the host's link0."""
    p2 = as_list(fwd.cmd("/dpfwd/port/stats"))[2]
    ctl = fwd.cmd("/dpfwd/ctl/stats")
    ep = fwd.cmd("/dpfwd/endpoint/stats")["datapath"]
    link, arp = eh.link(), eh.arp()
    return {"p2_in": int(p2["ipackets"]), "p2_out": int(p2["opackets"]),
            "host_tx": link["tx"] - eh.link0["tx"], "host_rx": link["rx"] - eh.link0["rx"],
            "arp_out": sum(arp["out"].values()), "arp_in": sum(arp["in"].values()),
            "arp_out_req": arp["out"]["request"], "arp_out_rep": arp["out"]["reply"],
            "arp_in_req": arp["in"]["request"], "arp_in_rep": arp["in"]["reply"],
            "punted_arp": int(ctl["punted"]["arp"]), "held": int(ctl["punted"]["neigh4_hold"]),
            "injected": int(ctl["injected"]), "ep_rx": int(ep["rx_msgs"]),
            "ep_tx": int(ep["tx_msgs"])}


def arp_gap(c: dict) -> tuple:
    """The ARP counter against dpfwd's ARP in and out: constant once it caught up."""
    return c["arp_out"] - c["punted_arp"], c["arp_in"] - (c["injected"] - c["held"])


def settled(fwd: Dpfwd, eh: EchoHost, cond, timeout: float = 20) -> dict:
    """remote_counts() once two reads 0.5 s apart agree and COND(counts) holds: nothing in
    flight on the veth (an ARP re-confirmation may be under way at any moment). The last
    read after TIMEOUT, for the checks to show."""
    deadline, last = time.monotonic() + timeout, None
    while True:
        c = remote_counts(fwd, eh)
        if (c == last and cond(c)) or time.monotonic() > deadline:
            return c
        last = c
        time.sleep(0.5)


class PerfLoop:
    """dpsock-perf run again and again (each run makes and closes its endpoints); every run
    must exit 0. With CELLS, every run's cells (its --json) are kept."""

    def __init__(self, d: Path, name: str, argv: list, env: dict, cells: bool = False):
        self.d, self.name, self.argv, self.env = d, name, argv, env
        self.json = d / f"{name}.json" if cells else None
        if cells:
            self.argv = argv + ["--json", str(self.json)]
        self.proc, self.runs, self.cells = None, 0, []
        self.cleanup = netns.defer(f"stop {name}", self.stop)

    def log(self) -> str:
        """Its failures (the notes) and the end of its output."""
        text = (self.d / f"{self.name}.log").read_text(errors="replace")
        notes = [ln for ln in text.splitlines() if "FAILED" in ln or "error" in ln]
        return "\n".join(notes) + "\n...\n" + text[-1500:]

    def step(self, again: bool) -> None:
        """Check the run that ended; start the next one if AGAIN."""
        if self.proc is not None and self.proc.poll() is None:
            return
        if self.proc is not None:
            self._ended()
        if again:
            with open(self.d / f"{self.name}.log", "w") as log:
                self.proc = subprocess.Popen(self.argv, stdout=log, stderr=subprocess.STDOUT,
                                             stdin=subprocess.DEVNULL, env=self.env)

    def finish(self, timeout: float = 60) -> None:
        if self.proc is not None:
            self.proc.wait(timeout=timeout)
            self._ended()

    def _ended(self) -> None:
        if self.proc.returncode != 0:
            raise AssertionError(f"{self.name}: exit {self.proc.returncode}\n{self.log()}")
        self.proc = None
        self.runs += 1
        if self.json is not None:
            doc = json.loads(self.json.read_text())
            self.cells += doc["cells"]

    def stop(self) -> None:
        if self.proc is not None:
            netns.stop_process(self.proc)


class Soak(unittest.TestCase):
    def test_mixed_traffic_stays_flat_and_accounted(self):
        topo = netns.Topology(static_neighbors=False, nb_hosts=1, host_ip6=False).up()
        self.addCleanup(topo.down)  # every process below first (by pid), then the namespaces
        d, veth = Path(topo.tmp), topo.ports[0]
        eh = EchoHost(topo)
        s0, s1, eps = d / "memif0.sock", d / "memif1.sock", d / "dpsock.sock"
        cfg = d / "soak.ini"
        dev2 = ",".join([f"net_af_packet2,iface={veth.ifname}"] +
                        list(netns.DEVARGS["net_af_packet"]))
        cfg.write_text(CONFIG.format(dev0=memif_dev(0, "server", s0, FWD_MAC0),
                                     dev1=memif_dev(1, "server", s1, FWD_MAC1),
                                     dev2=dev2, ip2=veth.ip4, drivers_cfg=netns.DRIVERS_CFG,
                                     gen_f=GEN_F, gen_r=GEN_R, max_sessions=MAX_SESSIONS,
                                     sock=eps))
        fwd = Dpfwd(d, cfg, interval_ms=1000, netns=topo.router_ns)
        netns.defer("stop dpfwd", fwd.cleanup)
        fwd.start()
        fwd.wait_ready(extra=lambda: s0.exists() and s1.exists() and eps.exists())
        time.sleep(0.5)    # the ports' gratuitous ARPs went out before the peers came
        # so far the veth carried ARP only (dpfwd's announcement)
        r0 = settled(fwd, eh, lambda c: c["host_tx"] == c["p2_in"] == c["arp_out"] and
                     c["host_rx"] == c["p2_out"] == c["arp_in"])
        base = fwd.totals()
        ports0 = as_list(fwd.cmd("/dpfwd/port/stats"))
        baseline = int(as_list(fwd.cmd("/dpfwd/mem/pools"))[0]["in_use_baseline"])

        # net_memif reads zeros once its peer is gone, and dpfwd's port counters then keep
        # the last totals they read: the dpgens wait 2 s after their last packet, still
        # connected, so that a read in that time (dpfwd's own every second, the samples
        # below) has the final totals
        common = ["--rate", RATE, "--duration", str(SECONDS), "--drain-ms", "2000"]
        gf = Dpgen(d, "genf", memif_dev(0, "client", s0, GEN_F),
                   ["--flows", "64", "--dst-mac", FWD_MAC0, "--dst-ip", "198.18.1.1"] + common)
        gr = Dpgen(d, "genr", memif_dev(0, "client", s1, GEN_R),
                   ["--flows", str(RELAY_FLOWS), "--src-ip", "198.18.3.2",
                    "--dst-ip", "198.18.3.1", "--dst-port", "5000", "--src-mac", GEN_R,
                    "--dst-mac", FWD_MAC1] + common)
        for g in (gf, gr):
            netns.defer(f"stop {g.name}", g.cleanup)
            g.start()

        env = dict(os.environ, DPSOCK_PATH=str(eps))
        perf = [str(dprig.DPSOCK_PERF), "--mode", "block", "--warmup", "10", "--duration", "0",
                "--dpsock", str(eps), "--timeout", "30"]
        local = PerfLoop(d, "perf-local", perf + [
            "--transports", "dpsock-local,dpsock-zc", "--sizes", "64,16K", "--iters", "300",
            "--cpus", "0,1"], env)
        remote = PerfLoop(d, "perf-remote", perf + [
            "--transports", "dpsock-remote", "--remote", f"{eh.host.ip4}:{ECHO_PORT}",
            "--local-addr", veth.ip4, "--sizes", REMOTE_SIZES, "--iters", "1000",
            "--cpus", "1,0"], env, cells=True)
        samples = []
        t0 = time.monotonic()
        while gf.running() or gr.running():
            fwd.alive()
            for loop in (local, remote):
                loop.step(again=time.monotonic() - t0 < SECONDS - 5)
            pools = as_list(fwd.cmd("/dpfwd/mem/pools"))[0]
            relay = fwd.cmd("/dpfwd/relay/stats")
            fwd.cmd("/dpfwd/port/stats")  # a read of the memif ports' totals (above)
            samples.append({"t": time.monotonic() - t0, "in_use": int(pools["in_use"]),
                            "rss_kb": fwd.rss_kb(),
                            "sessions": sum(int(w["sessions_active"])
                                            for w in as_list(relay["workers"]))})
            time.sleep(1)
        for loop in (local, remote):
            loop.finish()
        for g in (gf, gr):
            self.assertEqual(g.wait(timeout=30), 0, g.log())
        time.sleep(0.5)
        # port2's counters agree on both sides (no frame in flight)
        r1 = settled(fwd, eh, lambda c: c["host_tx"] == c["p2_in"] and
                     c["host_rx"] == c["p2_out"] and arp_gap(c) == arp_gap(r0))
        echo = eh.stop_echo()
        end = fwd.totals()
        ports = as_list(fwd.cmd("/dpfwd/port/stats"))
        relay = fwd.cmd("/dpfwd/relay/stats")
        endpoints = fwd.cmd("/dpfwd/endpoint/list")
        pools = as_list(fwd.cmd("/dpfwd/mem/pools"))[0]

        # every packet accounted for, per port
        f, r = gf.result()["seq"], gr.result()["seq"]
        rx, tx = end["rx"] - base["rx"], end["tx"] - base["tx"]
        p_in = [int(ports[i]["ipackets"]) - int(ports0[i]["ipackets"]) for i in range(3)]
        p_out = [int(ports[i]["opackets"]) - int(ports0[i]["opackets"]) for i in range(3)]
        drops = {k: v - base["by_reason"].get(k, 0) for k, v in end["by_reason"].items()
                 if v != base["by_reason"].get(k, 0)}
        x = {k: r1[k] - r0[k] for k in r1}  # port2, both sides, over the soak
        rcells = [c for c in remote.cells if c["transport"] == "dpsock-remote"]
        # every request answered; a reply later than dpsock-perf's wait (0.5 s) counts as
        # lost there but is still received and checked: late, not lost
        bad = [f"{c['size']} B: {c['status']} {c['note']}".rstrip() +
               f", {c['check']['msgs']} of {c.get('requests')} back" for c in rcells
               if c["status"] != "ok" or not c["check"]["ok"] or
               c["check"]["msgs"] != c["requests"]]
        requests = sum(c["requests"] for c in rcells)
        late = sum(c["lost_replies"] for c in rcells)
        replies = sum(c["check"]["msgs"] for c in rcells)
        accounts = [
            ("dpsock-perf remote cells not ok", bad, []),
            ("workers' rx = the ports' in", rx, sum(p_in)),
            ("workers' tx = the ports' out", tx, sum(p_out)),
            ("port0 in = dpgen F sent", p_in[0], f["sent"]),
            ("port0 out = dpgen F received", p_out[0], f["received"]),
            ("port1 in = dpgen R sent", p_in[1], r["sent"]),
            ("port1 out = dpgen R received", p_out[1], r["received"]),
            ("dpgen F, R lost", (f["lost"], r["lost"]), (0, 0)),
            ("port2 in = host eth0 sent", p_in[2], x["host_tx"]),
            ("port2 out = host eth0 received", p_out[2], x["host_rx"]),
            ("host sent = echo replies + ARP", x["host_tx"], echo["echoed"] + x["arp_out"]),
            ("host received = echo requests + ARP", x["host_rx"],
             echo["received"] + x["arp_in"]),
            ("port2 in = endpoint rx + ARP punted", p_in[2], x["ep_rx"] + x["punted_arp"]),
            ("port2 out = endpoint tx + control frames - held ones", p_out[2],
             x["ep_tx"] + x["injected"] - x["held"]),
            ("host's ARP = ARP punted", x["arp_out"], x["punted_arp"]),
            ("dpfwd's ARP (control frames but held) = host's ARP in", x["injected"] - x["held"],
             x["arp_in"]),
            ("host's ARP requests = dpfwd's replies", x["arp_out_req"], x["arp_in_rep"]),
            ("dpfwd's ARP requests = host's replies", x["arp_in_req"], x["arp_out_rep"]),
            ("drops: only host's ARP replies consumed", drops,
             {"arp_consumed": x["arp_out_rep"]} if x["arp_out_rep"] else {}),
            ("echo: received = echoed", echo["received"], echo["echoed"]),
            ("requests: dpsock-perf = echo = endpoint tx", (requests, echo["received"]),
             (x["ep_tx"], x["ep_tx"])),
            ("replies: dpsock-perf = echo = endpoint rx", (replies, echo["echoed"]),
             (x["ep_rx"], x["ep_rx"])),
        ]
        wrong = [f"{what}: {got} != {want}" for what, got, want in accounts if got != want]
        self.assertEqual(wrong, [], f"port2 {x}\necho {echo}")
        # traffic all along: at least a tenth of RATE (the generators get what CPU this
        # shared 2-core machine leaves beside dpfwd, the dpsock-perf processes and the
        # echo; 3 to 6 kpps here, under ASan too) and a hundred round trips a second
        self.assertGreater(f["sent"], SECONDS * 1000)
        self.assertGreater(r["sent"], SECONDS * 1000)
        self.assertGreater(requests, SECONDS * 100)
        self.assertGreater(x["arp_in_req"], 0, x)  # dpfwd resolved the host

        # flat
        half = len(samples) // 2
        self.assertGreater(half, 3, samples)
        first = max(s["in_use"] for s in samples[:half])
        second = max(s["in_use"] for s in samples[half:])
        # a sample may catch up to a burst per port in flight
        self.assertLessEqual(second, first + 3 * 32, samples)
        self.assertEqual(int(pools["in_use"]), baseline, pools)
        self.assertLessEqual(max(s["sessions"] for s in samples), MAX_SESSIONS, samples)
        evicted = sum(int(w["evicted"]) for w in as_list(relay["workers"]))
        self.assertGreater(evicted, 0, relay)
        self.assertEqual(len(as_list(endpoints.get("endpoints", []))), 0, endpoints)
        self.assertGreater(local.runs, 1)
        self.assertGreater(remote.runs, 1)
        if not under_asan():
            # dpfwd touches the pages of the dpgens' memif rings (16384 slots of 2 KB, two
            # a port: 128 MB) as the slots come round: RSS grows until each ring went round
            # once, about 16384 / rate seconds; from then on it stays
            t = max(SECONDS / 4, 10)
            q = next(s["rss_kb"] for s in samples if s["t"] >= t or s is samples[-1])
            self.assertLess(samples[-1]["rss_kb"] - q, 4096, samples)

        self.assertEqual(fwd.stop(), 0, fwd.log())
        self.assertEqual(fwd.final()["run"]["mbufs_over_baseline"], 0)
        print("rss kB:", [s["rss_kb"] for s in samples])
        print(f"soak {SECONDS} s: dpgen F {f['sent']} forwarded, dpgen R {r['sent']} relayed "
              f"(evicted {evicted}); local dpsock-perf runs {local.runs}; remote runs "
              f"{remote.runs}, {requests} round trips ({late} late); port2 ARP host->dpfwd "
              f"{x['arp_out_req']} requests {x['arp_out_rep']} replies, dpfwd->host "
              f"{x['arp_in_req']} requests {x['arp_in_rep']} replies; dpfwd rx {rx} tx {tx}; "
              f"in use {first}/{second} (halves' max), "
              f"rss {samples[0]['rss_kb']}..{samples[-1]['rss_kb']} kB")


if __name__ == "__main__":
    if sys.argv[1:2] == ["arp-count"]:
        arp_count(sys.argv[2])
        sys.exit(0)
    dprig.skip_unless_built(dprig.DPFWD, dprig.DPGEN, dprig.DPSOCK_PERF, UDPRTT)
    netns.run_tests("soak", sys.modules[__name__],
                    f"forwarding, relay, local and remote endpoints for {SECONDS} s")
