# SPDX-License-Identifier: BSD-3-Clause
"""dpbench dpsock, dpsock-tx: libdpsock against Linux sockets (after SocksDirect's
evaluation), and single-core UDP TX of 63 KB datagrams.

    dpbench.py dpsock [--build BUILD] [--runs 3] [--sizes 8,64,...] [--quick] [--breakdown]
                      [--mode auto|spin|block|both] [--json OUT] [--no-huge] [--keep]
                      [--remote]
    dpbench.py dpsock-tx [--build BUILD] [--variants configs/bench/dpsock-tx63k-variants.ini]
                         [--runs N] [--duration S] [--only NAME,...] [--zc] [--json OUT]
                         [--no-huge]

`dpsock`: starts dpfwd on configs/bench/dpsock-local.ini (its [endpoint] socket in a
temporary folder, ${DPSOCK_DIR}; EAL --no-pci, its own --file-prefix, --in-memory or,
without hugepages, --no-huge), runs apps/dpsock-perf --runs times (every transport and
size in each run: dpsock-local, dpsock-zc, udp-loopback, unix-dgram, shm-spin), stops
dpfwd by pid and removes the folder. Printed: per cell the median over the runs and the
spread [min..max] (dpstat's median: the upper middle), the ratios of the medians, and
the targets with pass/fail:

    8 B intra-host RTT p50 <= 0.3 us                        (dpsock-local)
    8 B RTT p50 >= 100x lower than udp-loopback's
    8 B streaming msgs/s >= 20x udp-loopback's
    1 MiB throughput >= 10x Linux's best (Linux UDP stops at 65507 B and the largest
    AF_UNIX datagram depends on SO_SNDBUF: the best Gbps of either at any size counts)

--remote (root): also inter-host over a veth pair (RemoteRig): a namespace with a Linux
host (udprtt --server 198.18.40.2:6000, an echo server) behind a veth whose other end is
dpfwd's extra port1 (net_af_xdp; net_af_packet if dpfwd does not start on af_xdp), and
dpsock-perf --remote against it: the dpsock-remote rows (RTT only). Beside them, the Linux
anchor udp-remote: after each dpsock-perf run, udprtt (a kernel UDP socket) in a second
namespace, over a veth, against the same echo server, per size (udprtt's requests are
24 B at least: the 8 B cell is measured at 24 B, and says so). Printed: both rows in the
table and the ratios udp-remote / dpsock-remote of the RTT p50 and p99 medians.
Namespaces, veth, echo server are removed (processes by pid) on every exit, SIGTERM and
SIGHUP included; namespaces a SIGKILLed run left (dsb<pid>-h/-c) on the next run.

dpfwd's worker lcore is not on the intra-host path (the two applications share a ring
pair), but it busy-polls CPU 1, where dpsock-perf's receiver runs on this 2-CPU machine:
dpbench makes it SCHED_IDLE (it runs when the CPU is otherwise idle); --keep-worker leaves
it alone.

`dpsock-tx`: single-core UDP TX of 63 KB datagrams on dpfwd's endpoint TX path.
Per variant of the variants file (its [dpsock-tx] section and [variant NAME] sections of
dpfwd --set overrides, benchcfg.py's style), round robin, --runs times: dpfwd on the
variant, `dpsock-perf --tx-stream` for warmup + duration seconds, and from dpfwd's
telemetry JSON (two snapshots around the measured window): port0's packets and bytes
(Gbps on the wire), the worker's busy cycles per packet and per datagram, and the cycles
per packet of each graph node. ministat-style tables (dpstat.py) against the baseline.
"""

import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import benchcfg  # noqa: E402
import dpstat    # noqa: E402
import relaybench  # noqa: E402  (namespaces, udprtt, cleanup registry)

DP = None  # the dpbench module (set by add_parsers: mem_args, spawn, stop_process, ...)

LOCAL_CONFIG = "configs/bench/dpsock-local.ini"
TX_VARIANTS = "configs/bench/dpsock-tx63k-variants.ini"
LOCAL_ADDR = "198.18.0.1"
SOCK_NAME = "dpsock.sock"
TRANSPORTS = ("dpsock-local", "dpsock-zc", "udp-loopback", "unix-dgram", "shm-spin")
DPSOCK_TRANSPORTS = ("dpsock-local", "dpsock-zc")
LINUX_TRANSPORTS = ("udp-loopback", "unix-dgram")
DEFAULT_MODE = {"dpsock-local": "spin", "dpsock-zc": "spin", "udp-loopback": "block",
                "unix-dgram": "block", "shm-spin": "spin", "dpsock-remote": "spin",
                "udp-remote": "block"}
REMOTE_TRANSPORTS = ("dpsock-remote", "udp-remote")
METRICS = ("p50_us", "p99_us", "msgs_per_s", "gbps")
MIB = 1024 * 1024
WORKER_COMM = ("rte-worker-", "lcore-worker-")   # EAL's names of its lcore threads

TARGET_RTT_US = 0.3
TARGET_RTT_X = 100.0
TARGET_MSGS_X = 20.0
TARGET_1M_X = 10.0


def log(msg: str = "") -> None:
    print(msg, flush=True)


# --------------------------------------------------------------------------
# Aggregation over runs (no dpfwd needed; tests/bench/test_dpsockbench.py)
# --------------------------------------------------------------------------

def cell_values(cell: dict) -> Dict[str, Optional[float]]:
    """The numbers of one dpsock-perf cell that are aggregated."""
    rtt = cell.get("rtt_us") or {}
    st = cell.get("stream") or {}
    return {"p50_us": rtt.get("p50"), "p99_us": rtt.get("p99"),
            "msgs_per_s": st.get("msgs_per_s") or None, "gbps": st.get("gbps") or None}


def spread(vals: List[float]) -> Optional[dict]:
    """dpstat's summary of the values (n, min, max, median, avg, stddev), None if empty."""
    v = [x for x in vals if x is not None]
    return dpstat.Dataset("", v).summary() if v else None


def aggregate(runs: List[dict]) -> Dict[Tuple[str, str, int], dict]:
    """dpsock-perf JSON documents -> per (transport, mode, size): status counts, the
    spread of each metric over the runs where the cell was ok, and the check sums."""
    out: Dict[Tuple[str, str, int], dict] = {}
    for r in runs:
        for c in r.get("cells", []):
            key = (c["transport"], c["mode"], int(c["size"]))
            a = out.setdefault(key, {"transport": key[0], "mode": key[1], "size": key[2],
                                     "ok": 0, "skipped": 0, "failed": 0, "notes": [],
                                     "vals": {m: [] for m in METRICS},
                                     "validated_bytes": 0, "bad": 0})
            a[c["status"]] = a.get(c["status"], 0) + 1
            if c.get("note") and c["note"] not in a["notes"]:
                a["notes"].append(c["note"])
            chk = c.get("check") or {}
            a["validated_bytes"] += int(chk.get("validated_bytes", 0))
            a["bad"] += sum(int(chk.get(k, 0)) for k in ("bad_len", "bad_data", "bad_seq"))
            if c["status"] == "ok":
                for m, v in cell_values(c).items():
                    if v is not None:
                        a["vals"][m].append(float(v))
    for a in out.values():
        a["stats"] = {m: spread(v) for m, v in a["vals"].items()}
    return out


def med(agg: dict, key: Tuple[str, str, int], metric: str) -> Optional[float]:
    a = agg.get(key)
    s = a and a["stats"].get(metric)
    return s["median"] if s else None


def find_key(agg: dict, transport: str, size: int) -> Optional[Tuple[str, str, int]]:
    """The cell of TRANSPORT at SIZE: its default mode first, else any mode with data."""
    k = (transport, DEFAULT_MODE.get(transport, "spin"), size)
    if k in agg and agg[k]["ok"]:
        return k
    for key, a in sorted(agg.items()):
        if key[0] == transport and key[2] == size and a["ok"]:
            return key
    return None


def ratio(a: Optional[float], b: Optional[float]) -> Optional[float]:
    return a / b if a and b else None


def ratios(agg: dict) -> List[dict]:
    """Per dpsock cell: RTT p50 x lower and msgs/s x higher than each Linux transport
    (ratios of the medians)."""
    out = []
    for key in sorted(agg, key=sort_key):
        if key[0] not in DPSOCK_TRANSPORTS or not agg[key]["ok"]:
            continue
        for vs in LINUX_TRANSPORTS:
            o = find_key(agg, vs, key[2])
            if o is None:
                continue
            out.append({"transport": key[0], "mode": key[1], "size": key[2], "vs": vs,
                        "rtt_p50_lower_x": ratio(med(agg, o, "p50_us"), med(agg, key, "p50_us")),
                        "msgs_per_s_higher_x": ratio(med(agg, key, "msgs_per_s"),
                                                     med(agg, o, "msgs_per_s"))})
    return out


def best(agg: dict, transports, metric: str, size: Optional[int] = None):
    """(value, key) of the highest median METRIC among TRANSPORTS (at SIZE, or any size)."""
    cands = [(med(agg, k, metric), k) for k in agg
             if k[0] in transports and (size is None or k[2] == size) and agg[k]["ok"]]
    cands = [c for c in cands if c[0] is not None]
    return max(cands) if cands else (None, None)


def size_str(n: int) -> str:
    if n >= MIB and n % MIB == 0:
        return f"{n // MIB}M"
    if n >= 1024 and n % 1024 == 0:
        return f"{n // 1024}K"
    return str(n)


def targets(agg: dict) -> List[dict]:
    """The endpoint targets: name, value, threshold, ok (True / False / None: not measured)
    and how the value was found."""
    out = []
    dl = find_key(agg, "dpsock-local", 8)
    udp8 = find_key(agg, "udp-loopback", 8)
    p50 = med(agg, dl, "p50_us") if dl else None
    out.append({"name": "8 B intra-host RTT p50 <= 0.3 us", "value": p50, "unit": "us",
                "threshold": TARGET_RTT_US, "ok": None if p50 is None else p50 <= TARGET_RTT_US,
                "detail": "dpsock-local, median of the runs' p50"})
    x = ratio(med(agg, udp8, "p50_us"), p50) if udp8 else None
    out.append({"name": "8 B RTT p50 >= 100x lower than UDP loopback", "value": x, "unit": "x",
                "threshold": TARGET_RTT_X, "ok": None if x is None else x >= TARGET_RTT_X,
                "detail": "udp-loopback p50 / dpsock-local p50"
                + (f" ({med(agg, udp8, 'p50_us'):.2f} / {p50:.3f} us)" if x else "")})
    v, k = best(agg, DPSOCK_TRANSPORTS, "msgs_per_s", 8)
    u = med(agg, udp8, "msgs_per_s") if udp8 else None
    x = ratio(v, u)
    out.append({"name": "8 B streaming >= 20x Linux UDP msgs/s", "value": x, "unit": "x",
                "threshold": TARGET_MSGS_X, "ok": None if x is None else x >= TARGET_MSGS_X,
                "detail": f"{k[0]} {v / 1e6:.2f}M / udp-loopback {u / 1e6:.3f}M msgs/s"
                if x else "not measured"})
    v, k = best(agg, DPSOCK_TRANSPORTS, "gbps", MIB)
    lv, lk = best(agg, LINUX_TRANSPORTS, "gbps")
    x = ratio(v, lv)
    out.append({"name": "1 MiB throughput >= 10x Linux", "value": x, "unit": "x",
                "threshold": TARGET_1M_X, "ok": None if x is None else x >= TARGET_1M_X,
                "detail": (f"{k[0]} {v:.1f} Gbps at 1M / Linux's best {lv:.1f} Gbps "
                           f"({lk[0]} at {size_str(lk[2])}; UDP stops at 65507 B, AF_UNIX "
                           "datagrams at what SO_SNDBUF allows)") if x else "not measured"})
    return out


def sort_key(key: Tuple[str, str, int]):
    order = TRANSPORTS + REMOTE_TRANSPORTS
    t = order.index(key[0]) if key[0] in order else len(order)
    return (t, key[0], key[1], key[2])


def fmt(v: Optional[float], w: int, p: int) -> str:
    return f"{v:{w}.{p}f}" if isinstance(v, (int, float)) else f"{'-':>{w}}"


def fmt_rate(v: Optional[float]) -> str:
    if v is None:
        return "-"
    for div, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if v >= div:
            return f"{v / div:.2f}{unit}"
    return f"{v:.0f}"


def table_text(agg: dict) -> List[str]:
    """One line per cell: medians with [min..max] of RTT p50 and msgs/s, and the ratio
    columns on dpsock rows."""
    lines = [f"{'transport':<14}{'mode':<6}{'size':>5} {'runs':>4} {'p50 us':>8} "
             f"{'[min..max]':<17} {'p99 us':>8} {'msgs/s':>8} {'[min..max]':<17} "
             f"{'Gbps':>7} {'rtt/udp':>8} {'rtt/unix':>8} {'msg/udp':>8} {'msg/unix':>8}"]
    for key in sorted(agg, key=sort_key):
        a = agg[key]
        head = f"{key[0]:<14}{key[1]:<6}{size_str(key[2]):>5} {a['ok']:>4}"
        if not a["ok"]:
            why = "; ".join(a["notes"])[:90] or "-"
            lines.append(f"{head} {'FAILED' if a['failed'] else 'skipped'}: {why}")
            continue
        s = a["stats"]

        def rng(m, scale=1.0, p=2):
            x = s.get(m)
            if not x:
                return f"{'':<17}"
            if m == "msgs_per_s":
                return f"[{fmt_rate(x['min'])}..{fmt_rate(x['max'])}]".ljust(17)
            return f"[{x['min'] * scale:.{p}f}..{x['max'] * scale:.{p}f}]".ljust(17)
        cols = ""
        if key[0] in DPSOCK_TRANSPORTS:
            for metric, inv in (("p50_us", True), ("msgs_per_s", False)):
                for vs in LINUX_TRANSPORTS:
                    o = find_key(agg, vs, key[2])
                    r = (ratio(med(agg, o, metric), med(agg, key, metric)) if inv
                         else ratio(med(agg, key, metric), med(agg, o, metric))) if o else None
                    cols += f" {fmt(r, 7, 1)}x" if r else f" {'-':>8}"
        lines.append(f"{head} {fmt(med(agg, key, 'p50_us'), 8, 3)} {rng('p50_us', p=3)} "
                     f"{fmt(med(agg, key, 'p99_us'), 8, 3)} "
                     f"{fmt_rate(med(agg, key, 'msgs_per_s')):>8} {rng('msgs_per_s')} "
                     f"{fmt(med(agg, key, 'gbps'), 7, 2)}{cols}"
                     + ("  (some runs failed)" if a["failed"] else ""))
    return lines


def targets_text(tg: List[dict]) -> List[str]:
    out = []
    for t in tg:
        verdict = "n/a " if t["ok"] is None else ("PASS" if t["ok"] else "FAIL")
        val = "-" if t["value"] is None else (f"{t['value']:.3f} us" if t["unit"] == "us"
                                              else f"{t['value']:.1f}x")
        out.append(f"  [{verdict}] {t['name']:<46} {val:>10}   {t['detail']}")
    return out


def check_complete(doc: dict, transports=TRANSPORTS) -> List[str]:
    """What a dpsock-perf JSON lacks to count as a full run: a transport with no cell
    whose every byte was checked (validated_bytes > 0, no bad message)."""
    missing = []
    for t in transports:
        cells = [c for c in doc.get("cells", []) if c["transport"] == t]
        good = [c for c in cells if c["status"] == "ok" and (c.get("check") or {}).get("ok")
                and (c["check"].get("validated_bytes") or 0) > 0]
        if not good:
            missing.append(t)
    return missing


# --------------------------------------------------------------------------
# --remote: dpsock-remote and its Linux anchor over a veth (no namespace needed
# for these functions; tests/bench/test_dpsockbench.py)
# --------------------------------------------------------------------------

REMOTE_PORT_IP, REMOTE_HOST_IP, ANCHOR_HOST_IP, ANCHOR_CLIENT_IP = \
    "198.18.40.1", "198.18.40.2", "198.18.41.1", "198.18.41.2"
REMOTE_PORT_MAC, REMOTE_HOST_MAC = "02:00:00:28:00:01", "02:00:00:28:00:02"
ECHO_PORT = 6000
UDPRTT_MIN = 24          # udprtt's smallest request (its header)
UDP_MAX = 65507
REMOTE_DRIVERS = ("net_af_xdp", "net_af_packet")
DRIVER_DEVARGS = {"net_af_xdp": "start_queue=0,queue_count=1",
                  "net_af_packet": "framecnt=4096"}
AF_PACKET_IP4_MAX = 1940  # UDP payload net_af_packet's kernel defrag delivers whole
REMOTE_TAG_RE = re.compile(r"^dsb(\d+)-[hc]$")


def remote_config(local_text: str, driver: str, ifname: str, drivers_cfg: str) -> str:
    """The local config plus port1 on the dpfwd end of the veth (DRIVER), polled by the
    same worker lcore, and static neighbors both ways (the host has a permanent entry for
    port1's MAC). ValueError if the local config has no [lcores] rx line."""
    port_n = max([int(m) + 1 for m in re.findall(r"^\s*\[port([0-9]+)\]", local_text, re.M)]
                 or [0])
    out, section, rx_done = [], None, False
    for line in local_text.splitlines():
        st = line.strip()
        if st.startswith("[") and st.endswith("]"):
            section = st[1:-1].strip()
            out.append(line)
            if section == "dpfwd" and "drivers_cfg" not in local_text:
                out.append(f"drivers_cfg = {drivers_cfg}")
            continue
        key = st.split("=", 1)[0].strip()
        if section == "lcores" and key == "rx" and not rx_done:
            out.append(f"{line.rstrip()},({port_n},0,1)")
            rx_done = True
            continue
        out.append(line)
    if not rx_done:
        raise ValueError("no [lcores] rx line to add the remote port to")
    text = "\n".join(out)
    dev = f"{driver}{port_n},iface={ifname}," + DRIVER_DEVARGS[driver]
    return (text.rstrip("\n") + "\n\n"
            f"# --remote (dpbench.py dpsock): the dpfwd end of a veth to {REMOTE_HOST_IP}\n"
            f"[port{port_n}]\ndev = {dev}\nip4 = {REMOTE_PORT_IP}/24\n\n"
            f"[neighbors]\nneigh = {REMOTE_HOST_IP} lladdr {REMOTE_HOST_MAC} port {port_n}\n")


def anchor_cell(summary: Optional[dict], size: int, error: str = "") -> dict:
    """One udprtt client run (relaybench.parse_udprtt's summary) as a dpsock-perf cell of
    transport udp-remote at SIZE (udprtt sends max(SIZE, 24) bytes: its header; the cell
    says so in its note). Failed if nothing came back or a reply was corrupted."""
    wire = max(size, UDPRTT_MIN)
    c = {"transport": "udp-remote", "mode": "block", "size": size, "wire_size": wire,
         "status": "failed", "note": error, "rtt_us": None, "stream": None,
         "check": {"ok": False, "validated_bytes": 0, "bad_data": 0}}
    if size > UDP_MAX:
        c.update(status="skipped", note=f"{size} bytes > {UDP_MAX}, the largest UDP datagram")
        return c
    if summary is None:
        return c
    r = summary.get("rtt_us") or {}
    c["udprtt"] = {k: summary.get(k) for k in relaybench.UDPRTT_KEYS}
    c["lost_replies"] = summary["lost"]
    c["check"] = {"ok": summary["corrupted"] == 0 and summary["received"] > 0,
                  "validated_bytes": summary["received"] * wire,
                  "bad_data": summary["corrupted"]}
    if summary["received"] and summary["corrupted"] == 0 and r:
        c["status"] = "ok"
        c["rtt_us"] = {"n": r.get("n"), "p50": r.get("p50"), "p99": r.get("p99")}
    else:
        c["note"] = error or (f"udprtt: {summary['received']} of {summary['sent']} answered, "
                              f"{summary['corrupted']} corrupted")
    if wire != size and not c["note"]:
        c["note"] = f"measured at {wire} B (udprtt's smallest request)"
    return c


def remote_rows(agg: dict) -> List[dict]:
    """Per size with a dpsock-remote cell: its RTT p50/p99 medians, udp-remote's, and
    udp-remote / dpsock-remote (x lower)."""
    rows = []
    for key in sorted(agg, key=sort_key):
        if key[0] != "dpsock-remote" or not agg[key]["ok"]:
            continue
        o = find_key(agg, "udp-remote", key[2])
        row = {"size": key[2], "mode": key[1],
               "dpsock_p50_us": med(agg, key, "p50_us"), "dpsock_p99_us": med(agg, key, "p99_us"),
               "linux_p50_us": med(agg, o, "p50_us") if o else None,
               "linux_p99_us": med(agg, o, "p99_us") if o else None,
               "linux_notes": agg[o]["notes"] if o else []}
        row["p50_lower_x"] = ratio(row["linux_p50_us"], row["dpsock_p50_us"])
        row["p99_lower_x"] = ratio(row["linux_p99_us"], row["dpsock_p99_us"])
        rows.append(row)
    return rows


def remote_text(rows: List[dict], driver: str = "") -> List[str]:
    if not rows:
        return []
    out = [f"remote over a veth{f' (dpfwd port on {driver})' if driver else ''}: "
           "RTT us, medians over the runs; x = udp-remote / dpsock-remote (x lower)",
           f"{'size':>5} {'dpsock p50':>10} {'p99':>9} {'linux p50':>10} {'p99':>9} "
           f"{'p50 x':>7} {'p99 x':>7}"]
    for r in rows:
        note = "  (linux: " + "; ".join(r["linux_notes"]) + ")" if r["linux_notes"] else ""
        out.append(f"{size_str(r['size']):>5} {fmt(r['dpsock_p50_us'], 10, 2)} "
                   f"{fmt(r['dpsock_p99_us'], 9, 2)} {fmt(r['linux_p50_us'], 10, 2)} "
                   f"{fmt(r['linux_p99_us'], 9, 2)} {fmt(r['p50_lower_x'], 6, 2)}x "
                   f"{fmt(r['p99_lower_x'], 6, 2)}x{note}")
    return out


def stale_remote_namespaces(names: List[str], alive) -> List[str]:
    """Namespaces an earlier --remote run left (killed by SIGKILL): dsb<pid>-h/-c whose
    pid ALIVE(pid) says is gone."""
    return [n for n in names if REMOTE_TAG_RE.match(n)
            and not alive(int(REMOTE_TAG_RE.match(n).group(1)))]


def _pid_alive(pid: int) -> bool:
    return os.path.exists(f"/proc/{pid}")


class RemoteRig:
    """The Linux host behind a veth, its echo server, and the anchor's client namespace.

      root netns (dpfwd)            netns dsb<pid>-h                  netns dsb<pid>-c
      dsb<pid>d --------- veth ---- eth0 198.18.40.2/24               eth0 198.18.41.2/24
      dpfwd port1 198.18.40.1       udprtt --server 198.18.40.2:6000    (udprtt client)
      (no kernel address, no ARP)   eth1 198.18.41.1/24 ---- veth ---- default via .41.1

    The host routes 198.18.0.0/24 (dpsock endpoints' address, port0) via dpfwd's port1;
    MACs and neighbors are static. Every veth end: offloads off (relaybench.offloads_off,
    as tests/netns/netns.py). Made and removed through a relaybench.Cleanup."""

    def __init__(self, cleanup, build: Path, workdir: Path):
        self.tag = f"dsb{os.getpid()}"
        self.h, self.c = self.tag + "-h", self.tag + "-c"
        self.dend = self.tag + "d"
        self.cleanup, self.build, self.workdir = cleanup, build, workdir
        self.udprtt = build / "apps" / "udptools" / "udprtt"
        self.server = None
        self.client = None

    @property
    def echo(self) -> str:
        return f"{REMOTE_HOST_IP}:{ECHO_PORT}"

    def up(self):
        sh = relaybench.sh
        r = sh("ip", "netns", "list", check=False)
        for n in stale_remote_namespaces([x.split()[0] for x in r.stdout.splitlines()
                                          if x.split()], _pid_alive):
            sh("ip", "netns", "del", n, check=False)
        for ns in (self.h, self.c):
            sh("ip", "netns", "add", ns)
            self.cleanup.add(f"netns {ns}", lambda ns=ns: sh("ip", "netns", "del", ns,
                                                             check=False))
        # deleting the host namespace takes the veth along; this covers a failure between
        sh("ip", "link", "add", self.dend, "address", REMOTE_PORT_MAC, "type", "veth",
           "peer", "name", "eth0", "netns", self.h, "address", REMOTE_HOST_MAC)
        self.cleanup.add(f"veth {self.dend}", self._del_veth)
        # the dpfwd end: no address, no ARP, no IPv6, never forwarded by this kernel
        sh("sysctl", "-qw", f"net.ipv6.conf.{self.dend}.disable_ipv6=1")
        sh("sysctl", "-qw", f"net.ipv4.conf.{self.dend}.forwarding=0")
        relaybench.offloads_off(self.dend)
        sh("ip", "link", "set", self.dend, "arp", "off", "up")
        sh("ip", "link", "add", "eth1", "netns", self.h, "type", "veth", "peer", "name", "eth0",
           "netns", self.c)
        for ns in (self.h, self.c):
            sh("ip", "-n", ns, "link", "set", "lo", "up")
            for ifn in (("eth0", "eth1") if ns == self.h else ("eth0",)):
                sh("sysctl", "-qw", f"net.ipv6.conf.{ifn}.disable_ipv6=1", ns=ns)
                relaybench.offloads_off(ifn, ns=ns)
        for ns, ifn, ip in ((self.h, "eth0", REMOTE_HOST_IP), (self.h, "eth1", ANCHOR_HOST_IP),
                            (self.c, "eth0", ANCHOR_CLIENT_IP)):
            sh("ip", "-n", ns, "addr", "add", f"{ip}/24", "dev", ifn)
            sh("ip", "-n", ns, "link", "set", ifn, "up")
        sh("ip", "-n", self.h, "route", "add", f"{LOCAL_ADDR.rsplit('.', 1)[0]}.0/24", "via",
           REMOTE_PORT_IP)
        sh("ip", "-n", self.h, "neigh", "replace", REMOTE_PORT_IP, "lladdr", REMOTE_PORT_MAC,
           "dev", "eth0", "nud", "permanent")
        sh("ip", "-n", self.c, "route", "add", "default", "via", ANCHOR_HOST_IP)
        self.cleanup.add("udprtt client", lambda: self.client and relaybench.stop_pid(
            self.client, signal.SIGKILL))
        with open(self.workdir / "echo-server.log", "w") as so:
            # on the worker's CPU: the client (dpsock-perf's or udprtt) spins or waits on
            # the other one, and dpfwd's worker there is SCHED_IDLE
            self.server = relaybench.spawn_ns(self.h, [self.udprtt, "--server", self.echo],
                                              DP.FWD_LCORE, so, self.cleanup)
        relaybench.wait_udp_listen(self.h, ECHO_PORT, self.server)
        return self

    def _del_veth(self):
        if Path(f"/sys/class/net/{self.dend}").exists():
            relaybench.sh("ip", "link", "del", self.dend, check=False)

    def anchor(self, size: int, count: int, warmup: int, timeout: float = 120) -> dict:
        """udprtt in the client namespace (on CPU MAIN_LCORE, as dpsock-perf's client)
        against the echo server: one anchor_cell."""
        if size > UDP_MAX:
            return anchor_cell(None, size)
        a = ["ip", "netns", "exec", self.c, "taskset", "-c", str(DP.MAIN_LCORE),
             str(self.udprtt), "-n", str(count), "-w", str(warmup),
             "-s", str(max(size, UDPRTT_MIN)), "-t", "1000", self.echo]
        self.client = subprocess.Popen(a, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True, stdin=subprocess.DEVNULL)
        try:
            out, err = self.client.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            relaybench.stop_pid(self.client, signal.SIGKILL)
            return anchor_cell(None, size, f"udprtt did not finish within {timeout:.0f} s")
        finally:
            rc, self.client = self.client.returncode, None
        if rc != 0:
            return anchor_cell(None, size, f"udprtt exit {rc}: {err.strip()[-200:]}")
        try:
            return anchor_cell(relaybench.parse_udprtt(out), size)
        except ValueError as e:
            return anchor_cell(None, size, f"udprtt: {e}")


# --------------------------------------------------------------------------
# dpfwd with an [endpoint] socket
# --------------------------------------------------------------------------

class Dpfwd:
    """One dpfwd, its socket folder and runtime dir; stopped by pid."""

    def __init__(self, build: Path, config: Path, mem: List[str], sets: List[str] = (),
                 tag: str = "dpsock", telemetry_ms: int = 200):
        self.build, self.config, self.mem, self.sets = build, config, mem, list(sets)
        self.dir = Path(tempfile.mkdtemp(prefix="dpsock-"))
        self.sock = self.dir / SOCK_NAME
        self.json = self.dir / "telemetry.json"
        self.log = self.dir / "dpfwd.log"
        self.prefix = DP.unique_prefix(tag)
        self.telemetry_ms = telemetry_ms
        self.proc = None

    def argv(self) -> List[str]:
        a = [str(self.build / "apps" / "dpfwd" / "dpfwd"), "-l", f"{DP.MAIN_LCORE},{DP.FWD_LCORE}",
             "--file-prefix", self.prefix, *DP.COMMON_EAL, *self.mem, "--",
             "-c", str(self.config), "--duration", "0",
             "--telemetry-json", str(self.json), "--telemetry-interval", str(self.telemetry_ms)]
        for s in self.sets:
            a += ["--set", s]
        return a

    def env(self) -> Dict[str, str]:
        return dict(os.environ, DPSOCK_DIR=str(self.dir), DPFWD_BUILD=str(self.build))

    def start(self, timeout: float = 60):
        self.proc = DP.spawn(self.argv(), self.env(), self.log)
        deadline = time.monotonic() + timeout
        while not self.sock.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                tail = " | ".join(DP.log_tail(self.log))
                raise RuntimeError(f"dpfwd did not open {self.sock} (exit {self.proc.poll()}): "
                                   + tail)
            time.sleep(0.05)

    def worker_tids(self) -> List[int]:
        out = []
        try:
            for t in os.listdir(f"/proc/{self.proc.pid}/task"):
                with open(f"/proc/{self.proc.pid}/task/{t}/comm") as f:
                    if f.read().startswith(WORKER_COMM):
                        out.append(int(t))
        except OSError:
            pass
        return out

    def idle_workers(self) -> List[int]:
        """Make the worker lcores SCHED_IDLE (chrt -i): they run only where the CPU is
        otherwise idle."""
        done = []
        for tid in self.worker_tids():
            try:
                os.sched_setscheduler(tid, os.SCHED_IDLE, os.sched_param(0))
                done.append(tid)
            except (OSError, AttributeError):
                pass
        return done

    def snapshot(self, after: float) -> Optional[dict]:
        """The first telemetry snapshot written after time.time() AFTER."""
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                if os.stat(self.json).st_mtime > after:
                    return json.loads(self.json.read_text())
            except (OSError, ValueError):
                pass
            time.sleep(0.02)
        return None

    def stop(self) -> str:
        how = "not started"
        if self.proc is not None:
            how = DP.stop_process(self.proc)
        DP.remove_runtime_dir(self.prefix)
        return how

    def remove(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def perf_bin(build: Path) -> Path:
    return build / "apps" / "dpsock-perf" / "dpsock-perf"


def run_perf(argv: List[str], timeout: float) -> Tuple[int, str, str]:
    proc = subprocess.Popen([str(a) for a in argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        DP.stop_process(proc, wait_first=5)
        out, err = proc.communicate()
        return -1, out, err + f"\n(killed after {timeout:.0f} s)"
    except BaseException:       # ^C, SIGTERM (Interrupted): not left running
        DP.stop_process(proc, wait_first=5)
        raise
    return proc.returncode, out, err


# --------------------------------------------------------------------------
# dpsock: the side-by-side run
# --------------------------------------------------------------------------

def start_remote_dpfwd(build: Path, cfg: Path, mem: List[str], rig: RemoteRig):
    """dpfwd on the local config plus port1 on the veth: net_af_xdp, else net_af_packet.
    (Dpfwd, driver, why the drivers before it failed)."""
    local_text = cfg.read_text()
    why: List[str] = []
    for drv in REMOTE_DRIVERS:
        d = Dpfwd(build, cfg, mem)
        d.config = d.dir / f"dpsock-remote-{drv}.ini"
        d.config.write_text(remote_config(local_text, drv, rig.dend, str(REPO / "drivers-cfg")))
        try:
            d.start()
            return d, drv, why
        except (RuntimeError, OSError) as e:
            why.append(f"{drv}: {e}"[:400])
            log(f"dpbench: --remote: dpfwd on {drv} did not start: {why[-1]}")
            d.stop()
            d.remove()
    raise RuntimeError("--remote: dpfwd started on none of " + ", ".join(REMOTE_DRIVERS))


class Interrupted(KeyboardInterrupt):
    pass


def _raise_interrupted(signum, frame):
    raise Interrupted(signal.Signals(signum).name)


def cmd_dpsock(args) -> int:
    build = Path(args.build or os.environ.get("DPFWD_BUILD") or REPO / "build").resolve()
    perf = perf_bin(build)
    need = [perf, build / "apps" / "dpfwd" / "dpfwd"]
    if args.remote:
        need.append(build / "apps" / "udptools" / "udprtt")
        if os.geteuid() != 0:
            log("dpbench: --remote needs root (network namespaces, veths)")
            return 2
    for b in need:
        if not os.access(b, os.X_OK):
            log(f"dpbench: {b} missing: ninja -C {build}")
            return 2
    runs_n = 1 if args.quick and args.runs is None else (args.runs or 3)
    cfg = Path(args.config) if Path(args.config).is_absolute() else REPO / args.config
    mem = DP.mem_args(args.no_huge)
    docs: List[dict] = []
    failed = 0
    t_start = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    load0 = os.getloadavg()
    # every exit path: SIGTERM / SIGHUP unwind like ^C through the finally below
    old_sig = {sg: signal.signal(sg, _raise_interrupted) for sg in (signal.SIGTERM, signal.SIGHUP)}
    cleanup = relaybench.Cleanup()      # --remote: namespaces, veth, echo server (by pid)
    rig, driver, rdir = None, None, None
    d = None
    try:
        if args.remote:
            rdir = Path(tempfile.mkdtemp(prefix="dpsock-remote-"))
            if not args.keep:
                cleanup.add(f"remove {rdir}", lambda: shutil.rmtree(rdir, ignore_errors=True))
            rig = RemoteRig(cleanup, build, rdir).up()
            d, driver, _ = start_remote_dpfwd(build, cfg, mem, rig)
            log(f"--remote: echo server pid {rig.server.pid} at {rig.echo} in netns {rig.h}; "
                f"dpfwd port1 {REMOTE_PORT_IP} on {rig.dend} ({driver}); Linux anchor: udprtt "
                f"in netns {rig.c} over veth {rig.h}:eth1")
            if driver == "net_af_packet":
                log(f"note: net_af_packet: the kernel's defrag truncates IPv4 datagrams over "
                    f"~{AF_PACKET_IP4_MAX} B into dpfwd; larger remote sizes fail")
        else:
            d = Dpfwd(build, cfg, mem)
            d.start()
        idle = [] if args.keep_worker else d.idle_workers()
        log(f"dpfwd pid {d.proc.pid} on {d.sock}"
            + (f"; worker thread(s) {','.join(map(str, idle))} SCHED_IDLE" if idle else ""))
        for i in range(runs_n):
            out = d.dir / f"perf{i + 1}.json"
            argv = [perf, "--dpsock", d.sock, "--local-addr", LOCAL_ADDR, "--json", out,
                    "--mode", args.mode]
            if rig:
                argv += ["--remote", rig.echo]
            if args.quick:
                argv.append("--quick")
            if args.sizes:
                argv += ["--sizes", args.sizes]
            if args.breakdown and i == runs_n - 1:
                argv.append("--breakdown")
            if args.extra:
                argv += args.extra.split()
            t0 = time.monotonic()
            rc, so, se = run_perf(argv, args.timeout)
            doc = None
            try:
                doc = json.loads(out.read_text())
            except (OSError, ValueError):
                pass
            if rc != 0 or doc is None:
                failed += 1
                log(f"[{i + 1}/{runs_n}] dpsock-perf exit {rc}: "
                    + " | ".join(se.strip().splitlines()[-5:]))
            else:
                log(f"[{i + 1}/{runs_n}] ok ({time.monotonic() - t0:.1f} s)")
            if doc is not None:
                doc["exit_status"] = rc
                docs.append(doc)
                if rig:
                    pr = doc.get("params") or {}
                    t1 = time.monotonic()
                    cells = [rig.anchor(int(sz), int(pr.get("iters") or 10000),
                                        int(pr.get("warmup") or 1000))
                             for sz in pr.get("sizes") or []]
                    doc["cells"] += cells
                    bad = [c for c in cells if c["status"] == "failed"]
                    log(f"[{i + 1}/{runs_n}] udp-remote anchor: {len(cells) - len(bad)} of "
                        f"{len(cells)} sizes ok ({time.monotonic() - t1:.1f} s)"
                        + (": " + bad[0]["note"] if bad else ""))
            if d.proc.poll() is not None:
                log(f"dpbench: dpfwd exited ({d.proc.returncode}) during run {i + 1}")
                failed += 1
                break
        if docs and docs[-1].get("breakdown"):
            log("")
            log("latency breakdown (last run; ns)")
            for row in docs[-1]["breakdown"]["rows"]:
                log(f"  {row['name']:<46} {fmt(row['dpsock_ns'], 10, 1)} "
                    f"{fmt(row['linux_udp_ns'], 10, 1)}")
    except (RuntimeError, OSError, subprocess.SubprocessError) as e:
        log(f"dpbench: {e}")
        failed += 1
    except KeyboardInterrupt as e:
        log(f"dpbench: interrupted ({e or 'SIGINT'}); cleaning up")
        failed += 1
    finally:
        try:
            if d is not None:
                how = d.stop()
                log(f"dpfwd stopped ({how})")
                if not args.keep:
                    d.remove()
                else:
                    log(f"kept {d.dir}")
        finally:
            if rig is not None and rig.server is not None:
                log(f"echo server stopped (exit {relaybench.stop_pid(rig.server)})")
            cleanup.run()
            if rdir is not None and args.keep:
                log(f"kept {rdir}")
            for sg, h in old_sig.items():
                signal.signal(sg, h)
    agg = aggregate(docs)
    tg = targets(agg)
    log("")
    log(f"dpsock-perf x {len(docs)} run(s): medians [min..max] over the runs "
        f"(load average {load0[0]:.2f} at start)")
    for line in table_text(agg):
        log(line)
    log("rtt/X: X's RTT p50 / this row's (x lower); msg/X: this row's msgs/s / X's (x higher); "
        "ratios of the medians.")
    for doc in docs[:1]:
        for n in doc.get("notes", []):
            log(f"note: {n}")
    rrows = remote_rows(agg)
    if args.remote:
        log("")
        for line in remote_text(rrows, driver or ""):
            log(line)
        log("dpsock-remote: libdpsock endpoint (spin) -> dpfwd port1 -> veth -> Linux echo "
            "server; udp-remote: Linux UDP socket (udprtt, blocking) in a second namespace "
            "-> veth -> the same echo server. Both clients on CPU "
            f"{DP.MAIN_LCORE}, the echo server on CPU {DP.FWD_LCORE}.")
    log("")
    log("targets:")
    for line in targets_text(tg):
        log(line)
    machine = docs[0]["machine"] if docs else None
    result = {"schema": "dpbench-dpsock/1", "time": t_start, "config": str(cfg),
              "mem_args": mem, "loadavg_start": load0, "loadavg_end": os.getloadavg(),
              "machine": machine, "runs": len(docs), "failed_runs": failed,
              "summary": [{k: v for k, v in a.items() if k != "vals"} | {"values": a["vals"]}
                          for _, a in sorted(agg.items(), key=lambda kv: sort_key(kv[0]))],
              "ratios": ratios(agg), "targets": tg, "perf": docs}
    if args.remote:
        result["remote"] = {"driver": driver, "echo": f"{REMOTE_HOST_IP}:{ECHO_PORT}",
                            "rows": rrows}
    path = Path(args.json) if args.json else build / "dpbench" / \
        f"dpsock-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1) + "\n")
    log(f"wrote {path}")
    return 0 if failed == 0 and docs else 1


# --------------------------------------------------------------------------
# dpsock-tx: single-core UDP TX of 63 KB datagrams on the endpoint TX path
# --------------------------------------------------------------------------

class TxBenchError(Exception):
    pass


TX_KEYS = ("description", "config", "dest", "size", "duration", "warmup", "repetitions",
           "zero_copy", "set", "baseline")


def load_tx_bench(path: Path) -> dict:
    """The variants file: [dpsock-tx] and [variant NAME] / [matrix] sections (overrides
    checked by benchcfg). TxBenchError('file:line: ...') on a mistake."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise TxBenchError(f"{path}: cannot read: {e.strerror}") from None

    def err(line, msg):
        return TxBenchError(f"{path}:{line}: {msg}")
    head: Dict[str, Tuple[str, int]] = {}
    sets: List[Tuple[str, int]] = []
    variants: List[benchcfg.Variant] = []
    matrix: List[Tuple[str, List[str], int]] = []
    section = None
    for n, raw in enumerate(text.splitlines(), 1):
        s = benchcfg._strip_comment(raw)
        if not s:
            continue
        if s.startswith("["):
            name = s.strip("[]").strip()
            if name == "dpsock-tx":
                section = "head"
            elif name == "matrix":
                section = "matrix"
            elif name.startswith("variant "):
                vname = name.split(None, 1)[1].strip()
                if not benchcfg.NAME_RE.match(vname) or any(v.name == vname for v in variants):
                    raise err(n, f"bad or repeated variant name '{vname}'")
                section = benchcfg.Variant(name=vname, label="", line=n)
                variants.append(section)
            else:
                raise err(n, f"unknown section [{name}] (expected [dpsock-tx], "
                             "[variant NAME], [matrix])")
            continue
        key, eq, val = s.partition("=")
        key, val = key.strip(), val.strip()
        if not eq or section is None:
            raise err(n, f"expected 'key = value' inside a section, got '{s}'")
        if section == "head":
            if key not in TX_KEYS:
                raise err(n, f"unknown key '{key}' in [dpsock-tx] (expected {', '.join(TX_KEYS)})")
            if key == "set":
                k, _, v = val.partition("=")
                why = benchcfg.check_override(k.strip(), v.strip())
                if why:
                    raise err(n, why)
                sets.append((val, n))
            else:
                head[key] = (val, n)
        elif section == "matrix":
            vals = [x.strip() for x in val.split("|")]
            for x in vals:
                why = benchcfg.check_override(key, x)
                if why:
                    raise err(n, why)
            matrix.append((key, vals, n))
        elif key == "label":
            section.label = val
        else:
            why = benchcfg.check_override(key, val)
            if why:
                raise err(n, why)
            section.overrides.append(benchcfg.Override(key, val, n))
    if not head:
        raise err(0, "no [dpsock-tx] section")
    for combo in itertools.product(*[m[1] for m in matrix]) if matrix else ():
        vname = "/".join(f"{k.split('.', 1)[1]}={x}" for (k, _, _), x in zip(matrix, combo))
        variants.append(benchcfg.Variant(name=vname, label=vname, line=matrix[0][2],
                                         overrides=[benchcfg.Override(k, x, ln) for (k, _, ln), x
                                                    in zip(matrix, combo)]))
    if not variants:
        raise err(0, "no variants: add [variant NAME] sections or a [matrix]")

    def num(key, default, lo, hi, conv=int):
        if key not in head:
            return default
        v, ln = head[key]
        try:
            x = conv(v)
        except ValueError:
            raise err(ln, f"{key} '{v}' is not a number") from None
        if not lo <= x <= hi:
            raise err(ln, f"{key} '{v}' is out of range {lo}..{hi}")
        return x
    cfg_v, cfg_l = head.get("config", (None, 0))
    if not cfg_v:
        raise err(0, "[dpsock-tx] has no 'config'")
    cfg = Path(cfg_v) if Path(cfg_v).is_absolute() else path.resolve().parent / cfg_v
    if not cfg.is_file():
        raise err(cfg_l, f"config '{cfg_v}': {cfg} not found")
    dest, dl = head.get("dest", ("", 0))
    if not re.match(r"^[0-9.]+:[0-9]+$", dest):
        raise err(dl, f"dest '{dest}': expected ADDR:PORT (IPv4)")
    zc = head.get("zero_copy", ("off", 0))[0].lower()
    if zc not in benchcfg.BOOLS:
        raise err(head["zero_copy"][1], f"zero_copy '{zc}': on or off")
    baseline = head.get("baseline", (variants[0].name, 0))[0]
    if baseline not in [v.name for v in variants]:
        raise err(head["baseline"][1], f"baseline '{baseline}' is not a variant")
    return {"path": path, "description": head.get("description", ("", 0))[0], "config": cfg,
            "dest": dest, "size": num("size", 64512, 8, 65507),
            "duration": num("duration", 5, 1, 3600, float),
            "warmup": num("warmup", 1, 0, 600, float),
            "repetitions": num("repetitions", 5, 1, 1000),
            "zero_copy": zc in ("on", "yes", "true", "1"), "sets": [s for s, _ in sets],
            "variants": variants, "baseline": baseline}


def tx_window(s0: Optional[dict], s1: Optional[dict], port: int = 0) -> Optional[dict]:
    """From two dpfwd telemetry snapshots: the port's packets, bytes, Gbps, and the
    workers' busy cycles per packet sent; per node cycles per packet."""
    if not s0 or not s1:
        return None
    dt = float(s1.get("uptime_s", 0)) - float(s0.get("uptime_s", 0))

    def port_of(s):
        for p in s.get("ports") or []:
            if int(p.get("port_id", p.get("index", -1))) == port:
                return p
        return {}

    def lsum(s, k):
        return sum(int(x.get(k, 0) or 0) for x in (s.get("lcores") or []) if isinstance(x, dict))
    p0, p1 = port_of(s0), port_of(s1)
    pk = int(p1.get("opackets", 0)) - int(p0.get("opackets", 0))
    by = int(p1.get("obytes", 0)) - int(p0.get("obytes", 0))
    if by <= 0:     # net_null counts no bytes: the workers' own count of what they sent
        by = lsum(s1, "tx_bytes") - lsum(s0, "tx_bytes")
    busy = lsum(s1, "busy_cycles") - lsum(s0, "busy_cycles")
    node_cycles = 0
    nodes = {}
    n0, n1 = s0.get("nodes") or {}, s1.get("nodes") or {}
    for name, x in n1.items():
        if not isinstance(x, dict):
            continue
        y = n0.get(name, {})
        c = int(x.get("timed_cycles", 0)) - int(y.get("timed_cycles", 0))
        t = int(x.get("timed_pkts", 0)) - int(y.get("timed_pkts", 0))
        p = int(x.get("pkts", 0)) - int(y.get("pkts", 0))
        if p > 0:
            nodes[name] = {"pkts": p, "cycles_per_pkt": c / t if t > 0 and c > 0 else None}
            # timed walks only (node_stats_sample): scaled to every packet
            node_cycles += c * p / t if t > 0 and c > 0 else 0
    # the worker's busy cycles count walks that received; a TX-only load has none, so
    # the cost is the sum of the nodes' cycles
    cyc = busy if busy > 0 else node_cycles
    return {"seconds": dt, "packets": pk, "bytes": by,
            "pps": pk / dt if dt > 0 else None,
            "gbps": by * 8 / dt / 1e9 if dt > 0 else None,
            "busy_cycles": busy, "node_cycles": node_cycles, "cycles": cyc,
            "cycles_from": "busy" if busy > 0 else "nodes",
            "cycles_per_pkt": cyc / pk if pk > 0 and cyc > 0 else None,
            "tsc_hz": s1.get("tsc_hz"), "nodes": nodes}


def tx_one(build: Path, bench: dict, v, mem: List[str], zc: bool, duration: float) -> dict:
    sets = bench["sets"] + [o.arg() for o in v.overrides]
    d = Dpfwd(build, bench["config"], mem, sets, tag="dpsock-tx", telemetry_ms=100)
    res = {"variant": v.name, "sets": sets, "ok": False}
    try:
        d.start()
        argv = [perf_bin(build), "--dpsock", d.sock, "--local-addr", LOCAL_ADDR,
                "--tx-stream", bench["dest"], "--tx-size", bench["size"],
                "--duration", bench["warmup"] + duration, "--cpus", f"{DP.MAIN_LCORE},-1"]
        if zc:
            argv.append("--zc")
        proc = subprocess.Popen([str(a) for a in argv], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
        t0 = time.time()
        time.sleep(bench["warmup"])
        s0 = d.snapshot(time.time())
        time.sleep(max(0.0, t0 + bench["warmup"] + duration - time.time() - 0.15))
        s1 = d.snapshot(time.time())
        try:
            out, err = proc.communicate(timeout=duration + 30)
        except subprocess.TimeoutExpired:
            DP.stop_process(proc, wait_first=5)
            out, err = proc.communicate()
        res["perf_exit"] = proc.returncode
        m = re.search(r"^\{.*\"tx-stream\".*\}$", out, re.M)
        res["app"] = json.loads(m.group(0)) if m else None
        res["wire"] = tx_window(s0, s1)
        if res["wire"] and res["app"] and res["app"].get("size"):
            w = res["wire"]
            app_dgrams = res["app"]["msgs_per_s"] * w["seconds"]
            w["datagrams_est"] = app_dgrams
            w["cycles_per_datagram"] = w["cycles"] / app_dgrams if app_dgrams and w["cycles"] \
                else None
            w["packets_per_datagram"] = w["packets"] / app_dgrams if app_dgrams else None
        if proc.returncode != 0:
            res["error"] = f"dpsock-perf exit {proc.returncode}: {err.strip()[-300:]}"
        elif not res["wire"] or not res["wire"]["packets"]:
            res["error"] = "nothing left port0 (is the endpoint TX path in this dpfwd?)"
        else:
            res["ok"] = True
    except (RuntimeError, OSError, ValueError) as e:
        res["error"] = str(e)
    finally:
        res["dpfwd_stop"] = d.stop()
        res["dpfwd_log_tail"] = DP.log_tail(d.log) if not res["ok"] else []
        d.remove()
    return res


def tx_summary(results: Dict[str, List[dict]], order: List[str]) -> Tuple[dict, str]:
    """Per variant: dpstat summaries of gbps, pps, cycles_per_pkt, cycles_per_datagram;
    and the ministat-style report of each (t test against the first)."""
    metrics = ("gbps", "pps", "cycles_per_pkt", "cycles_per_datagram")
    summ, text = {}, []
    for m in metrics:
        sets = []
        for name in order:
            vals = [r["wire"][m] for r in results.get(name, [])
                    if r.get("ok") and r["wire"].get(m) is not None]
            summ.setdefault(name, {})[m] = spread(vals)
            sets.append(dpstat.Dataset(name, vals))
        if any(s.n for s in sets):
            text.append(f"--- {m}")
            text.append(dpstat.report(sets, plot=False))
    return summ, "\n".join(text)


def cmd_dpsock_tx(args) -> int:
    build = Path(args.build or os.environ.get("DPFWD_BUILD") or REPO / "build").resolve()
    vpath = Path(args.variants) if Path(args.variants).is_absolute() else REPO / args.variants
    try:
        bench = load_tx_bench(vpath)
    except TxBenchError as e:
        log(f"dpbench: {e}")
        return 2
    for b in (perf_bin(build), build / "apps" / "dpfwd" / "dpfwd"):
        if not os.access(b, os.X_OK):
            log(f"dpbench: {b} missing: ninja -C {build}")
            return 2
    variants = bench["variants"]
    base = next(v for v in variants if v.name == bench["baseline"])
    variants = [base] + [v for v in variants if v is not base]
    if args.only:
        want = [x.strip() for x in args.only.split(",")]
        variants = [v for v in variants if v.name in want]
        if not variants:
            log(f"dpbench: --only {args.only}: no such variant")
            return 2
    runs = args.runs or bench["repetitions"]
    duration = args.duration or bench["duration"]
    zc = args.zc or bench["zero_copy"]
    mem = DP.mem_args(args.no_huge)
    log(f"dpsock-tx: {len(variants)} variant(s) x {runs} run(s); {bench['size']} B datagrams "
        f"to {bench['dest']}, {'zero-copy' if zc else 'copy'} sends, {bench['warmup']:g} + "
        f"{duration:g} s; app on CPU {DP.MAIN_LCORE}, dpfwd's worker on CPU {DP.FWD_LCORE}")
    results: Dict[str, List[dict]] = {v.name: [] for v in variants}
    failed = 0
    for r in range(runs):
        for v in variants:
            res = tx_one(build, bench, v, mem, zc, duration)
            results[v.name].append(res)
            if res["ok"]:
                w = res["wire"]
                log(f"[{r + 1}/{runs}] {v.name:<20} {w['gbps']:7.2f} Gbps  "
                    f"{w['pps'] / 1e6:6.3f} Mpps  {fmt(w['cycles_per_pkt'], 8, 1)} cyc/pkt  "
                    f"{fmt(w.get('cycles_per_datagram'), 9, 0)} cyc/datagram")
            else:
                failed += 1
                log(f"[{r + 1}/{runs}] {v.name:<20} FAILED: {res.get('error')}")
                for line in res.get("dpfwd_log_tail", [])[-5:]:
                    log("      | " + line)
    order = [v.name for v in variants]
    summ, text = tx_summary(results, order)
    if text:
        log("")
        log(text)
    nodes = {}
    for name in order:
        ok = [x for x in results[name] if x.get("ok")]
        if ok:
            nodes[name] = {k: v.get("cycles_per_pkt") for k, v in ok[-1]["wire"]["nodes"].items()}
    if nodes:
        names = sorted({n for v in nodes.values() for n in v})
        log("cycles/packet per node (last run of each variant)")
        log(f"{'node':<18}" + "".join(f"{n[:18]:>20}" for n in order if n in nodes))
        for n in names:
            log(f"{n:<18}" + "".join(f"{fmt(nodes[v].get(n), 20, 1)}" for v in order
                                     if v in nodes))
    out = {"schema": "dpbench-dpsock-tx/1", "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
           "bench": {k: (str(v) if isinstance(v, Path) else v) for k, v in bench.items()
                     if k != "variants"},
           "variants": [{"name": v.name, "label": v.label, "sets": [o.arg() for o in v.overrides]}
                        for v in variants],
           "zero_copy": zc, "duration_s": duration, "mem_args": mem, "summary": summ,
           "nodes": nodes, "runs": results}
    path = Path(args.json) if args.json else build / "dpbench" / \
        f"dpsock-tx-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1, default=str) + "\n")
    log(f"wrote {path}")
    return 0 if failed == 0 else 1


# --------------------------------------------------------------------------
# Command line (dpbench.py's subparsers)
# --------------------------------------------------------------------------

def add_parsers(sub, dpbench_module) -> None:
    global DP
    DP = dpbench_module
    p = sub.add_parser("dpsock", help="libdpsock vs Linux UDP / AF_UNIX / raw shared memory: "
                       "RTT, msgs/s, Gbps for 8 B..1 MiB, the targets")
    p.add_argument("--build", help="build dir (default: $DPFWD_BUILD, else REPO/build)")
    p.add_argument("--runs", type=int, help="dpsock-perf runs (default 3; --quick: 1)")
    p.add_argument("--sizes", help="dpsock-perf --sizes (e.g. 8,64,1K,1M)")
    p.add_argument("--quick", action="store_true", help="dpsock-perf --quick (a smoke test)")
    p.add_argument("--breakdown", action="store_true", help="the latency breakdown (last run)")
    p.add_argument("--mode", default="auto", choices=("auto", "spin", "block", "both"))
    p.add_argument("--config", default=LOCAL_CONFIG, help="dpfwd config with an [endpoint]")
    p.add_argument("--timeout", type=float, default=1800, help="seconds per dpsock-perf run")
    p.add_argument("--extra", help="more dpsock-perf options, one string")
    p.add_argument("--json", help="write the results here (default BUILD/dpbench/dpsock-*.json)")
    p.add_argument("--no-huge", action="store_true", help="dpfwd with --no-huge")
    p.add_argument("--keep", action="store_true", help="keep the temporary folder (logs, JSON)")
    p.add_argument("--keep-worker", action="store_true",
                   help="leave dpfwd's worker at normal priority")
    p.add_argument("--remote", action="store_true",
                   help="also dpsock-remote (an endpoint against a Linux UDP echo server in a "
                   "namespace behind a veth, dpfwd's port on net_af_xdp, else net_af_packet) "
                   "and its anchor udp-remote (a Linux UDP socket over a veth to the same "
                   "server); needs root")
    p.set_defaults(func=cmd_dpsock)

    t = sub.add_parser("dpsock-tx", help="one app streams 63 KB UDP datagrams through "
                       "dpfwd's endpoint TX path; Gbps, cycles/packet per mempool variant")
    t.add_argument("--build", help="build dir (default: $DPFWD_BUILD, else REPO/build)")
    t.add_argument("--variants", default=TX_VARIANTS, help="the variants file")
    t.add_argument("--runs", type=int, help="runs per variant (default: its repetitions)")
    t.add_argument("--duration", type=float, help="measured seconds (default: its duration)")
    t.add_argument("--only", help="comma list of variant names")
    t.add_argument("--zc", action="store_true", help="zero-copy sends")
    t.add_argument("--json", help="write the results here")
    t.add_argument("--no-huge", action="store_true", help="dpfwd with --no-huge")
    t.set_defaults(func=cmd_dpsock_tx)
