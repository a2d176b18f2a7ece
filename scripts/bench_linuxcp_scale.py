#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""How fast the Linux control plane ([linux], docs/linux-cp.md) takes a large table from
the kernel, against dpfwd's own route file, and what forwarding does meanwhile.

dpfwd runs the pcap rig (configs/bench/fwd-2000flows-64b.ini: net_pcap infinite_rx on
port 0, two net_null sinks) with [linux] on, in a network namespace of its own. Then:

  0. kernel:   the routes pushed in a namespace without dpfwd (veths): the rate the
               kernel and the pusher give, the ceiling of step 2;
  1. idle:     the forwarding rate (port 1 and 2 TX) for a few seconds;
               with each rate, the share of the time the worker thread ran (schedstat):
               below 100 %, other threads took turns on its CPU;
  2. netlink:  N routes through the mirrors dp1 and dp2 pushed in that namespace;
               routes/s from the first to the last route seen in dpfwd
               (fwd.ip4_routes of the telemetry JSON, read every 100 ms), and the
               forwarding rate meanwhile;
  3. dump:     dpfwd forgets them (`dpctl route reload` of its config), then dumps the
               kernel's table again (/dpfwd/linux/resync): routes/s from the resync
               asked to the last route seen (dpfwd swaps the dump's routes in at once),
               and the forwarding rate meanwhile;
  4. resync:   /dpfwd/linux/resync again, the kernel's table unchanged: seconds from the
               resync asked until the dump's N routes are counted (linux.routes_unchanged,
               or routes_added where dpfwd re-adds them), the control thread's CPU seconds
               meanwhile, and the forwarding rate;
  5. file:     `dpctl route reload` of a config whose [routes] file holds the same N
               routes; routes/s by dpfwd's own count of the reload's time.

The pusher (--pusher): `ip -batch` of `route add` lines (ip), one request and one answer at
a time; or scripts/nlpush.py (nlpush), the same lines 1000 to a netlink send, as routing
daemons (zebra) push. The table is gen-routes.py's (mostly /24s, 2 % longer than /24).
Root; hugepages.

  scripts/bench_linuxcp_scale.py --build build [-n 1000000] [--pusher ip|nlpush]
                                 [--no-kernel-alone]
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RIG = os.path.join(ROOT, "configs", "bench", "fwd-2000flows-64b.ini")
PUSHERS = {"ip": ("ip", "-batch"), "nlpush": (sys.executable, os.path.join(HERE, "nlpush.py"))}
GATEWAYS = ("198.18.101.2 port 1", "198.18.102.2 port 2")
INTERVAL_MS = 100


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def sh(*argv, ns=None, **kw):
    if ns is not None:
        argv = ("ip", "netns", "exec", ns) + argv
    return subprocess.run(argv, check=True, capture_output=True, text=True, **kw)


def read_snapshot(path):
    """The telemetry JSON; None while dpfwd rewrites it."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def forwarded(snap):
    return sum(p["opackets"] for p in snap["ports"] if p["index"] in (1, 2))


class Rig:
    def __init__(self, build, tmp, nb_routes):
        self.build, self.tmp = build, tmp
        self.ns = f"lcpscale{os.getpid()}"
        self.prefix = f"lcpscale{os.getpid()}"
        self.json = os.path.join(tmp, "telemetry.json")
        self.cfg = os.path.join(tmp, "dpfwd.ini")
        self.proc = None
        room = (
            "[routes]\n"
            f"ip4_max = {nb_routes + 1024}\n"
            f"ip4_tbl8 = {max(4096, nb_routes // 8)}\n")
        with open(RIG) as f:
            rig = f.read().replace("[routes]\n", room)
        self.rig = rig + "\n[linux]\nenabled = on\nnames = dp%u\n"
        with open(self.cfg, "w") as f:
            f.write(self.rig)

    def up(self):
        sh("ip", "netns", "add", self.ns)
        sh("ip", "link", "set", "lo", "up", ns=self.ns)
        env = dict(os.environ, DPFWD_BUILD=self.build)
        argv = ["ip", "netns", "exec", self.ns,
                os.path.join(self.build, "apps", "dpfwd", "dpfwd"), "--file-prefix",
                self.prefix, "--no-pci", "--in-memory", "--", "-c", self.cfg,
                "--telemetry-json", self.json, "--telemetry-interval", str(INTERVAL_MS)]
        self.out = open(os.path.join(self.tmp, "dpfwd.log"), "w")
        self.proc = subprocess.Popen(argv, stdout=self.out, stderr=subprocess.STDOUT, env=env)
        t0 = time.monotonic()
        while read_snapshot(self.json) is None:
            if self.proc.poll() is not None or time.monotonic() - t0 > 30:
                raise RuntimeError("dpfwd did not start:\n" + self.output())
            time.sleep(0.1)

    def output(self):
        with open(os.path.join(self.tmp, "dpfwd.log")) as f:
            return f.read()

    def dpctl(self, *argv, timeout=120):
        return sh(sys.executable, os.path.join(ROOT, "apps", "dpctl", "dpctl.py"),
                  "--file-prefix", self.prefix, "--timeout", str(timeout), *argv,
                  timeout=timeout + 10).stdout

    def down(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        subprocess.run(["ip", "netns", "del", self.ns], capture_output=True)
        shutil.rmtree(f"/var/run/dpdk/{self.prefix}", ignore_errors=True)

    def sample(self):
        """A snapshot newer than the last one read."""
        while True:
            s = read_snapshot(self.json)
            if s is not None:
                return time.monotonic(), s
            time.sleep(0.005)


def worker_cpu_s(rig):
    """CPU seconds the worker thread (rte-worker-1) has run: against the wall clock, the
    share of its CPU it had (less than 1: other threads took turns on it)."""
    task = f"/proc/{rig.proc.pid}/task"
    for tid in os.listdir(task):
        try:
            with open(f"{task}/{tid}/comm") as f:
                if not f.read().startswith("rte-worker"):
                    continue
            with open(f"{task}/{tid}/schedstat") as f:
                return int(f.read().split()[0]) / 1e9
        except OSError:
            continue
    return float("nan")


def rate_over(rig, seconds):
    t0, s0 = rig.sample()
    time.sleep(seconds)
    t1, s1 = rig.sample()
    return (forwarded(s1) - forwarded(s0)) / (t1 - t0) / 1e6


def write_tables(tmp, nb):
    table = os.path.join(tmp, "routes.txt")
    args = [sys.executable, os.path.join(HERE, "gen-routes.py"), "-n", str(nb), "-o", table]
    for gw in GATEWAYS:
        args += ["--gw", gw]
    sh(*args)
    batch = os.path.join(tmp, "routes.batch")
    with open(table) as f, open(batch, "w") as out:
        for line in f:
            if line.startswith("#"):
                continue
            prefix, _, gw, _, port = line.split()
            out.write(f"route add {prefix} via {gw} dev dp{port}\n")
    return table, batch


def kernel_alone(batch, pusher):
    """Seconds PUSHER takes in a namespace without dpfwd, where dp1 and dp2 are a veth pair
    with the mirrors' addresses: what the kernel and the pusher give at most."""
    ns = f"lcpscale{os.getpid()}k"
    sh("ip", "netns", "add", ns)
    try:
        sh("ip", "link", "add", "dp1", "type", "veth", "peer", "name", "dp2", ns=ns)
        for dev, addr in (("dp1", "198.18.101.1/24"), ("dp2", "198.18.102.1/24")):
            sh("ip", "link", "set", dev, "up", ns=ns)
            sh("ip", "addr", "add", addr, "dev", dev, ns=ns)
        t0 = time.monotonic()
        sh(*PUSHERS[pusher], batch, ns=ns, timeout=600)
        return time.monotonic() - t0
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def push_netlink(rig, batch, nb, pusher):
    """routes/s first to last seen, seconds from the push's start to the last, the push's
    own seconds, Mpps meanwhile."""
    _, s = rig.sample()
    base = s["fwd"]["ip4_routes"]
    t_start = time.monotonic()
    ip = subprocess.Popen(["ip", "netns", "exec", rig.ns, *PUSHERS[pusher], batch],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    first = last = ip_end = None
    fwd0 = (t_start, forwarded(s))
    fwd1 = None
    deadline = t_start + 600
    while time.monotonic() < deadline:
        t, s = rig.sample()
        got = s["fwd"]["ip4_routes"] - base
        if got > 0 and first is None:
            first = (t, got)
        if got >= nb:
            last = (t, got)
            fwd1 = (t, forwarded(s))
            break
        if rig.proc.poll() is not None:
            raise RuntimeError("dpfwd exited:\n" + rig.output())
        if ip_end is None and ip.poll() is not None:
            if ip.returncode != 0:
                raise RuntimeError(f"{pusher} failed: " + ip.stderr.read())
            ip_end = time.monotonic()
        time.sleep(INTERVAL_MS / 1000)
    ip.wait()
    ip_s = (ip_end or time.monotonic()) - t_start
    if last is None:
        raise RuntimeError(f"only {got} of {nb} routes reached dpfwd in 600 s; "
                           f"linux: {json.dumps(s['linux'])}")
    span = last[0] - first[0]
    routes_per_s = (last[1] - first[1]) / span if span > 0 else float("inf")
    mpps = (fwd1[1] - fwd0[1]) / (fwd1[0] - fwd0[0]) / 1e6
    return routes_per_s, last[0] - t_start, ip_s, mpps, s


def wait_routes(rig, want, what, timeout=600):
    """Until dpfwd has @want IPv4 routes: (routes/s first to last seen, the last snapshot,
    Mpps forwarded meanwhile, from @t0)."""
    t0, s = rig.sample()
    base = s["fwd"]["ip4_routes"]
    fwd0 = (t0, forwarded(s))
    first = None
    while time.monotonic() - t0 < timeout:
        t, s = rig.sample()
        got = s["fwd"]["ip4_routes"]
        if got != base and first is None:
            first = (t, got)
        if got == want:
            span = t - first[0] if first is not None else 0
            rate = abs(got - first[1]) / span if span > 0 else float("inf")
            return rate, s, (forwarded(s) - fwd0[1]) / (t - fwd0[0]) / 1e6
        time.sleep(INTERVAL_MS / 1000)
    raise RuntimeError(f"{what}: dpfwd has {got} routes, not {want}, after {timeout} s")


def dump_again(rig, nb):
    """dpfwd forgets the routes (a reload of the config without them), then dumps the
    kernel's again (/dpfwd/linux/resync): routes/s of the dump, Mpps meanwhile."""
    _, s = rig.sample()
    full = s["fwd"]["ip4_routes"]
    rig.dpctl("route", "reload", rig.cfg)
    t0 = time.monotonic()
    while True:  # the telemetry JSON after the reload
        _, s = rig.sample()
        if full - s["fwd"]["ip4_routes"] == nb:
            break
        if time.monotonic() - t0 > 30:
            raise RuntimeError(f"reload left {s['fwd']['ip4_routes']} of {full} routes")
        time.sleep(INTERVAL_MS / 1000)
    rig.dpctl("raw", "/dpfwd/linux/resync")
    asked = time.monotonic()
    _, _, mpps = wait_routes(rig, full, "resync dump")
    # from the resync asked: dpfwd may take the whole dump in at once
    return nb / (time.monotonic() - asked), mpps


def thread_cpu_s(rig, tid):
    """CPU seconds thread @p tid of dpfwd has run (schedstat)."""
    with open(f"/proc/{rig.proc.pid}/task/{tid}/schedstat") as f:
        return int(f.read().split()[0]) / 1e9


def resync_unchanged(rig, nb):
    """/dpfwd/linux/resync with the kernel's table as dpfwd has it: seconds from asked until
    the dump's @p nb routes are counted, CPU seconds of the control thread (dpfwd's main
    thread) meanwhile, Mpps meanwhile, batch copies of the table meanwhile."""
    def counted(s):
        lx = s["linux"]
        return lx["routes_added"] + lx.get("routes_unchanged", 0)

    t0, s0 = rig.sample()
    cpu0 = thread_cpu_s(rig, rig.proc.pid)
    rig.dpctl("raw", "/dpfwd/linux/resync")
    asked = time.monotonic()
    while True:
        t, s = rig.sample()
        if counted(s) - counted(s0) >= nb:
            break
        if t - asked > 600:
            raise RuntimeError(f"resync: {counted(s) - counted(s0)} of {nb} routes counted "
                               f"after 600 s; linux: {json.dumps(s['linux'])}")
        time.sleep(INTERVAL_MS / 1000 / 4)
    took = time.monotonic() - asked
    cpu = thread_cpu_s(rig, rig.proc.pid) - cpu0
    copies = (s["route_changes"].get("batch_copies", 0) -
              s0["route_changes"].get("batch_copies", 0)
              if "batch_copies" in s["route_changes"] else "n/a")
    return took, cpu, (forwarded(s) - forwarded(s0)) / (t - t0) / 1e6, copies


def load_file(rig, table):
    cfg = os.path.join(rig.tmp, "with-file.ini")
    with open(cfg, "w") as f:
        f.write(rig.rig.replace("[routes]\n", f"[routes]\nfile = {table}\n"))
    out = rig.dpctl("--json", "route", "reload", cfg)
    res = json.loads(out)
    res = res.get("/dpfwd/route/reload", res)
    return res["ip4_routes"], res["seconds"]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("-n", type=int, default=1000000, help="routes (default 1000000)")
    ap.add_argument("--idle", type=float, default=3.0, help="seconds of idle forwarding")
    ap.add_argument("--pusher", choices=sorted(PUSHERS), default="ip",
                    help="ip: ip -batch (default); nlpush: scripts/nlpush.py, 1000 routes "
                    "to a netlink send")
    ap.add_argument("--no-kernel-alone", action="store_true",
                    help="leave step 0 (the push without dpfwd) out")
    a = ap.parse_args()
    # a timeout's SIGTERM still stops dpfwd and removes the namespaces (finally)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    build = os.path.abspath(a.build)
    tmp = tempfile.mkdtemp(prefix="lcpscale-")
    rig = Rig(build, tmp, a.n)
    try:
        log(f"tables: {a.n} routes ...")
        table, batch = write_tables(tmp, a.n)
        alone_s = None
        if not a.no_kernel_alone:
            log(f"kernel alone: {a.pusher} without dpfwd ...")
            alone_s = kernel_alone(batch, a.pusher)
        rig.up()
        share = {}

        def timed(what, fn, *args):
            c0, t0 = worker_cpu_s(rig), time.monotonic()
            r = fn(*args)
            share[what] = (worker_cpu_s(rig) - c0) / (time.monotonic() - t0)
            return r

        log("idle forwarding ...")
        idle = timed("idle", rate_over, rig, a.idle)
        log(f"netlink: {a.pusher} of {a.n} routes ...")
        nl_rate, nl_total, ip_s, during, snap = timed("push", push_netlink, rig, batch, a.n,
                                                      a.pusher)
        log("netlink: dump again ...")
        dump_rate, dump_mpps = timed("dump", dump_again, rig, a.n)
        log("netlink: resync of the unchanged table ...")
        rs_s, rs_cpu, rs_mpps, rs_copies = timed("resync", resync_unchanged, rig, a.n)
        log("route file: reload ...")
        nb_file, file_s = load_file(rig, table)
        lx = snap["linux"]
        print(f"routes                      {a.n}")
        print(f"netlink   routes/s          {nl_rate:,.0f}  (first to last seen in dpfwd; "
              f"{nl_total:.2f} s from the push's start to the last; {a.pusher} itself "
              f"{ip_s:.2f} s)")
        if alone_s is not None:
            print(f"kernel alone routes/s       {a.n / alone_s:,.0f}  ({a.pusher} in a "
                  "namespace without dpfwd: the most a push can give)")
        print(f"netlink dump routes/s       {dump_rate:,.0f}  (dpfwd without them, "
              "then /dpfwd/linux/resync: from asked to the last seen)")
        print(f"resync unchanged seconds    {rs_s:.2f}  (/dpfwd/linux/resync, the table as "
              f"dpfwd has it: from asked to the dump's routes counted; control thread CPU "
              f"{rs_cpu:.2f} s; table copies for batches meanwhile {rs_copies})")
        print(f"route file routes/s         {nb_file / file_s:,.0f}  ({nb_file} IPv4 routes "
              f"in {file_s:.2f} s, dpctl route reload)")
        print(f"netlink / file              {nl_rate / (nb_file / file_s):.2f} (push), "
              f"{dump_rate / (nb_file / file_s):.2f} (dump)")
        print(f"forwarding Mpps idle        {idle:.2f}  (worker on its CPU "
              f"{100 * share['idle']:.0f} % of the time)")
        print(f"forwarding Mpps during push {during:.2f}  ({100 * share['push']:.0f} %)")
        print(f"forwarding Mpps during dump {dump_mpps:.2f}  ({100 * share['dump']:.0f} %)")
        print(f"forwarding Mpps in resync   {rs_mpps:.2f}  ({100 * share['resync']:.0f} %)")
        print(f"linux: routes_added {lx['routes_added']} route_errors {lx['route_errors']} "
              f"resyncs {lx['resyncs']} netlink_messages {lx['netlink_messages']}; "
              f"fwd ip4_routes {snap['fwd']['ip4_routes']}; "
              f"table copies {snap['route_changes']['copies']}")
    finally:
        rig.down()
        if not os.environ.get("LCPSCALE_KEEP"):
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            log(f"kept {tmp}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
