# SPDX-License-Identifier: BSD-3-Clause
"""dpbench preload --netns: sockperf through dpfwd's NIC path to a Linux host in a
namespace, the client preloaded on this host vs a kernel client routed through dpfwd.

  root netns                        netns plb<pid>-h (the server host)
  sockperf pp/tp (LD_PRELOAD)       eth0 198.18.40.2/24: sockperf sr (the kernel's UDP)
    | dpsock endpoint               routes 198.18.0.0/24 and 198.18.42.0/24 via .40.1
  dpfwd port1 198.18.40.1 -- veth -- eth0
  dpfwd port2 198.18.42.1 -- veth -- eth0 198.18.42.2/24, default via .42.1
                                    netns plb<pid>-k: sockperf pp/tp (the kernel's UDP)

dpfwd runs configs/bench/dpsock-local.ini with ports 1 and 2 added on the veths
(net_af_xdp, else net_af_packet; static neighbors, the veth ends offloads off, as
dpbench.py dpsock --remote), polled by its worker lcore; it forwards the kernel
client's datagrams between ports 2 and 1 and carries the preloaded client's endpoint
out of port 1. Rows:

    net kernel    sockperf pp / tp in plb<pid>-k, routed through dpfwd
    net preload   sockperf pp / tp preloaded on this host, an endpoint of dpfwd

dpfwd's worker is on the path of both rows: it keeps CPU 1 to itself at its normal
priority (--keep-worker or not), and the server and the clients share CPU 0. Namespaces
and veths are removed, processes stopped by pid, on every exit (relaybench.Cleanup).
"""
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Dict, List, Optional

import dpsockbench
import preloadbench
import relaybench

DP = None  # the dpbench module (set by preloadbench.add_parsers)

ROWS = ("net kernel", "net preload")
PORT = 11612
SERVER_IP, PORT1_IP = dpsockbench.REMOTE_HOST_IP, dpsockbench.REMOTE_PORT_IP
PORT1_MAC, SERVER_MAC = dpsockbench.REMOTE_PORT_MAC, dpsockbench.REMOTE_HOST_MAC
PORT2_IP, CLIENT_IP = "198.18.42.1", "198.18.42.2"
PORT2_MAC, CLIENT_MAC = "02:00:00:2a:00:01", "02:00:00:2a:00:02"


def net_config(local_text: str, driver: str, if1: str, if2: str, drivers_cfg: str) -> str:
    """The local config with port1 (dpsockbench.remote_config: the server host's veth) and
    port2 (the kernel client's veth) on DRIVER, both polled by the worker, and their
    neighbors static."""
    text = dpsockbench.remote_config(local_text, driver, if1, drivers_cfg)
    out = []
    for line in text.splitlines():
        if line.strip().startswith("rx =") and "(2,0,1)" not in line:
            line = f"{line.rstrip()},(2,0,1)"
        out.append(line)
    dev = f"{driver}2,iface={if2}," + dpsockbench.DRIVER_DEVARGS[driver]
    port2 = (f"\n# dpbench preload --netns: the kernel client's veth\n"
             f"[port2]\ndev = {dev}\nip4 = {PORT2_IP}/24\n")
    # the [neighbors] section is the last one: its second entry goes at the end
    return ("\n".join(out).replace("\n[neighbors]\n", port2 + "\n[neighbors]\n", 1).rstrip("\n")
            + f"\nneigh = {CLIENT_IP} lladdr {CLIENT_MAC} port 2\n")


class NetRig:
    """The server host and the kernel client's namespaces, each on a veth to dpfwd."""

    def __init__(self, cleanup: "relaybench.Cleanup", feed: Path = Path("feed")):
        self.tag = f"plb{os.getpid()}"
        self.feed = feed  # sockperf's feed file (-f): the server's address, for -F epoll
        self.h, self.k = self.tag + "-h", self.tag + "-k"
        self.if1, self.if2 = self.tag + "d", self.tag + "e"
        self.cleanup = cleanup

    def _veth(self, root_if: str, root_mac: str, ns: str, ns_mac: str) -> None:
        sh = relaybench.sh
        sh("ip", "link", "add", root_if, "address", root_mac, "type", "veth", "peer", "name",
           "eth0", "netns", ns, "address", ns_mac)
        self.cleanup.add(f"veth {root_if}", lambda: Path(f"/sys/class/net/{root_if}").exists()
                         and sh("ip", "link", "del", root_if, check=False))
        # dpfwd's end: no address, no ARP, no IPv6, never forwarded by this kernel
        sh("sysctl", "-qw", f"net.ipv6.conf.{root_if}.disable_ipv6=1")
        sh("sysctl", "-qw", f"net.ipv4.conf.{root_if}.forwarding=0")
        relaybench.offloads_off(root_if)
        sh("ip", "link", "set", root_if, "arp", "off", "up")
        sh("ip", "-n", ns, "link", "set", "lo", "up")
        sh("sysctl", "-qw", "net.ipv6.conf.eth0.disable_ipv6=1", ns=ns)
        relaybench.offloads_off("eth0", ns=ns)

    def up(self) -> "NetRig":
        sh = relaybench.sh
        for ns in (self.h, self.k):
            sh("ip", "netns", "add", ns)
            self.cleanup.add(f"netns {ns}", lambda ns=ns: sh("ip", "netns", "del", ns,
                                                             check=False))
        self._veth(self.if1, PORT1_MAC, self.h, SERVER_MAC)
        self._veth(self.if2, PORT2_MAC, self.k, CLIENT_MAC)
        for ns, ip, gw, gw_mac in ((self.h, SERVER_IP, PORT1_IP, PORT1_MAC),
                                   (self.k, CLIENT_IP, PORT2_IP, PORT2_MAC)):
            sh("ip", "-n", ns, "addr", "add", f"{ip}/24", "dev", "eth0")
            sh("ip", "-n", ns, "link", "set", "eth0", "up")
            sh("ip", "-n", ns, "neigh", "replace", gw, "lladdr", gw_mac, "dev", "eth0",
               "nud", "permanent")
        local_net = dpsockbench.LOCAL_ADDR.rsplit(".", 1)[0] + ".0/24"
        for net in (local_net, CLIENT_IP.rsplit(".", 1)[0] + ".0/24"):
            sh("ip", "-n", self.h, "route", "add", net, "via", PORT1_IP)
        sh("ip", "-n", self.k, "route", "add", "default", "via", PORT2_IP)
        return self

    def server(self, logfile: Path) -> subprocess.Popen:
        with open(logfile, "w") as out:
            srv = relaybench.spawn_ns(self.h, ["sockperf", "sr", "-f", self.feed, "-F", "epoll"],
                                      DP.MAIN_LCORE, out, self.cleanup, sig=signal.SIGINT)
        relaybench.wait_udp_listen(self.h, PORT, srv)
        return srv


def start_dpfwd(build: Path, mem: List[str], rig: NetRig):
    """dpfwd on the local config plus the two veth ports: net_af_xdp, else net_af_packet.
    (Dpfwd, driver)."""
    cfg = preloadbench.REPO / dpsockbench.LOCAL_CONFIG
    for drv in dpsockbench.REMOTE_DRIVERS:
        d = dpsockbench.Dpfwd(build, cfg, mem, tag="preload-net")
        d.config = d.dir / f"preload-net-{drv}.ini"
        d.config.write_text(net_config(cfg.read_text(), drv, rig.if1, rig.if2,
                                       str(preloadbench.REPO / "drivers-cfg")))
        try:
            d.start()
            return d, drv
        except (RuntimeError, OSError) as e:
            preloadbench.log(f"dpbench: --netns: dpfwd on {drv} did not start: {str(e)[:300]}")
            d.stop()
            d.remove()
    raise RuntimeError("--netns: dpfwd started on none of "
                       + ", ".join(dpsockbench.REMOTE_DRIVERS))


def client_argv(row: str, rig: NetRig, mode: str, size: int, duration: float) -> List[str]:
    a = ["sockperf", mode, "-f", str(rig.feed), "-F", "epoll", "-m", str(size),
         "-t", preloadbench.sockperf_seconds(duration)]
    if mode == "pp":
        a += ["--full-rtt", "--mps", str(preloadbench.PP_MPS)]
    if row == "net kernel":
        a = ["ip", "netns", "exec", rig.k] + a
    return a


def run_one(rig: NetRig, row: str, env: dict, mode: str, size: int, duration: float,
            logdir: Path) -> Dict[str, Optional[float]]:
    """A server in the host namespace and one client of ROW: pp's RTT or tp's rate (a
    ping-pong that stalled on a lost message runs once more, and the log says so)."""
    srv_log = logdir / f"sr-net-{mode}-{row.split()[-1]}.log"
    for attempt in (1, 2):
        srv = rig.server(srv_log)
        try:
            time.sleep(0.3)
            cli = preloadbench.run_client(client_argv(row, rig, mode, size, duration), env,
                                          duration, cpu=DP.MAIN_LCORE)
            time.sleep(0.2)     # the last messages in flight
        finally:
            relaybench.stop_pid(srv, signal.SIGINT)
        if mode != "pp":
            break
        got, again = preloadbench.pp_result(f"{row}: sockperf pp -m {size}", cli, attempt)
        if not again:
            return dict(got, msgs_per_s=None)
    out = cli.stdout + cli.stderr
    if cli.returncode != 0:
        preloadbench.log(f"{row}: sockperf {mode} -m {size}: exit {cli.returncode}: "
                         f"{out.strip()[-300:]}")
        return {"p50": None, "p99": None, "msgs_per_s": None}
    return dict(preloadbench.sockperf_tp(out, srv_log.read_text(errors="replace")),
                p50=None, p99=None)


def measure(args, build: Path, lib: Path, sizes: List[int]):
    """The net rows: (rtt, tp) per size as preloadbench's Samples, and the driver."""
    rtt = {s: {r: {"p50": [], "p99": []} for r in ROWS} for s in sizes}
    tp = ({} if args.no_tp else {s: {r: {"msgs_per_s": []} for r in ROWS} for s in sizes})
    cleanup = relaybench.Cleanup()
    d = None
    try:
        rig = NetRig(cleanup).up()
        d, drv = start_dpfwd(build, DP.mem_args(args.no_huge), rig)
        rig.feed = d.dir / "feed-net"
        rig.feed.write_text(f"U:{SERVER_IP}:{PORT}\n")
        preloadbench.log(f"--netns: dpfwd pid {d.proc.pid} on {drv}, server host {rig.h}, "
                         f"kernel client {rig.k}; worker(s) "
                         f"{','.join(map(str, d.worker_tids()))} on CPU {DP.FWD_LCORE}, "
                         f"server and clients on CPU {DP.MAIN_LCORE}")
        kernel_env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        envs = {"net kernel": kernel_env,
                "net preload": dict(kernel_env, LD_PRELOAD=str(lib), DPSOCK_PATH=str(d.sock))}
        for i in range(args.runs):
            for size in sizes:
                line = f"run {i + 1}/{args.runs} {size} B:"
                for row in ROWS:
                    got = run_one(rig, row, envs[row], "pp", size, args.duration, d.dir)
                    for k in ("p50", "p99"):
                        rtt[size][row][k].append(got[k])
                    line += f" {row} p50 {got['p50']}"
                    if size in tp:
                        got = run_one(rig, row, envs[row], "tp", size, args.duration, d.dir)
                        tp[size][row]["msgs_per_s"].append(got["msgs_per_s"])
                        v = got["msgs_per_s"]
                        line += f", tp {'-' if v is None else f'{v:.0f}'} msg/s;"
                preloadbench.log(line)
    finally:
        if d is not None:
            d.stop()
            d.remove()
        cleanup.run()
    return rtt, tp, drv
