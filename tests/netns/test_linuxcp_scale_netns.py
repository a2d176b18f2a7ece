#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
The Linux control plane ([linux], docs/linux-cp.md) with many routes: 20,000 IPv4 and
3,000 IPv6 kernel routes added in one `ip -batch` through the mirrors all become dpfwd
routes, and all leave on `ip route flush`, each within 15 s. With a netlink receive
buffer too small for a burst ([linux] netlink_rcvbuf; the burst sent in one netlink
write by scripts/nlpush.py, as a routing daemon batches), the kernel drops notifications
(ENOBUFS): dpfwd dumps the routes again, and its table ends equal to the kernel's,
deletions included. A resync of a table that did not change copies neither table.

  A 198.18.10.2 -- port0 [dpfwd, dp0 dp1] port1 -- B 198.18.20.2

Exit status 77 (meson: skipped) with the reason where network namespaces cannot be made.

  python3 tests/netns/test_linuxcp_scale_netns.py -v
"""
import ipaddress
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netns  # noqa: E402
from netns import wait_for  # noqa: E402

sys.path.insert(0, os.path.dirname(netns.DPCTL))
import dpctl  # noqa: E402
sys.path.insert(0, os.path.join(netns.HERE, "..", "func"))
import test_metrics  # noqa: E402
NLPUSH = os.path.join(netns.SRC, "scripts", "nlpush.py")
NB_ROUTES = 20000
NB_ROUTES6 = 3000
LANDED_S = 15.0


class ScaleTopology(netns.Topology):
    """Two hosts; dpfwd with [linux] and room for the routes (linux_extra: more keys)."""

    def __init__(self, linux_extra=""):
        super().__init__(static_neighbors=True, ip6=True, nb_hosts=2)
        self.linux_extra = linux_extra

    def dpfwd_config(self, driver="net_af_packet", extra=""):
        text = super().dpfwd_config(driver, extra)
        room = f"[routes]\nip4_max = {2 * NB_ROUTES}\nip4_tbl8 = 4096\n"
        text = text.replace("[dpfwd]\n", "[dpfwd]\nmetrics = 127.0.0.1:0\n")
        return text.replace("[routes]\n", room) + netns.LINUX_SECTION + self.linux_extra


def table(topo):
    """20,000 /24s out of dp1, and in every 40th of them a /25 out of dp0 (a /24 with a
    longer prefix: dpfwd's table writes it through a group of its own); 3,000 IPv6 /64s
    out of dp1."""
    lines = []
    for i in range(NB_ROUTES):
        lines.append(f"route add 10.{i // 256}.{i % 256}.0/24 via {topo.b.ip4} dev dp1")
    for i in range(0, NB_ROUTES, 40):
        lines.append(f"route add 10.{i // 256}.{i % 256}.128/25 via {topo.a.ip4} dev dp0")
    for i in range(NB_ROUTES6):
        lines.append(f"route add 2001:db8:1000:{i:x}::/64 via {topo.b.ip6} dev dp1")
    return lines


def ip_batch(rig, name, lines):
    """@p lines (`ip -batch` commands) run in one `ip -batch` in dpfwd's namespace."""
    path = os.path.join(rig.topo.tmp, name)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    rig.r("ip", "-batch", path, timeout=60)


class LinuxcpScaleTest(netns.RigTest):
    topology = ScaleTopology

    def routes(self):
        """(IPv4 routes, IPv6 routes) in dpfwd's table."""
        s = self.dp.snapshot()
        return s["fwd"]["ip4_routes"], s["fwd6"]["routes"]

    def route(self, prefix):
        """dpfwd's route to exactly @p prefix, as listed, or None."""
        out = self.dpctl("route", "list", prefix)
        m = re.search(rf"^{re.escape(prefix)} .*$", out, re.M)
        return m[0] if m else None

    def test_changes_after_one_made_in_a_copy_land_in_their_order(self):
        """A /20 over a /24 with a group and one without cannot be made in place
        (src/fwd/route.c): it and the changes after it wait for one copy of the table,
        in the kernel's order, rather than a copy of the table each."""
        a, b = self.topo.a.ip4, self.topo.b.ip4
        copies = self.dp.snapshot()["route_changes"]["copies"]
        first = [f"route add 10.200.0.0/16 via {b} dev dp1",
                 f"route add 10.200.1.0/28 via {a} dev dp0",   # 10.200.1.0/24: a group
                 f"route add 10.200.2.0/28 via {b} dev dp1"]   # 10.200.2.0/24: uniform
        then = [f"route add 10.200.0.0/20 via {a} dev dp0",    # over both: a copy
                "route del 10.200.1.0/28",
                f"route add 10.200.1.0/28 via {b} dev dp1",
                f"route add 10.200.3.0/24 via {a} dev dp0",
                "route del 10.200.3.0/24",
                f"route add 10.200.3.0/24 via {b} dev dp1"]
        for i, lines in enumerate((first, then)):
            ip_batch(self, f"order{i}.batch", lines)
        want = {"10.200.0.0/16": f"10.200.0.0/16 via {b} port 1",
                "10.200.0.0/20": f"10.200.0.0/20 via {a} port 0",
                "10.200.1.0/28": f"10.200.1.0/28 via {b} port 1",
                "10.200.2.0/28": f"10.200.2.0/28 via {b} port 1",
                "10.200.3.0/24": f"10.200.3.0/24 via {b} port 1"}
        wait_for("the routes in the kernel's order",
                 lambda: all(self.route(p) == line for p, line in want.items()), LANDED_S)
        self.assertEqual(self.dp.snapshot()["route_changes"]["copies"], copies)
        self.assertEqual(self.dp.snapshot()["linux"]["route_errors"], 0)
        self.r("ip", "route", "del", "10.200.0.0/20")
        self.r("ip", "route", "del", "10.200.0.0/16")
        for p in ("10.200.1.0/28", "10.200.2.0/28", "10.200.3.0/24"):
            self.r("ip", "route", "del", p)
        wait_for("the routes gone", lambda: all(self.route(p) is None for p in want), LANDED_S)

    def test_resync_of_an_unchanged_table_copies_nothing(self):
        """A resync (/dpfwd/linux/resync) dumps the kernel's routes again; dpfwd has them
        all, so it makes no copy of either table and adds nothing."""
        base = self.routes()
        lines = table(self.topo)
        nb4 = len(lines) - NB_ROUTES6
        ip_batch(self, "unchanged.batch", lines)
        try:
            wait_for("the routes in dpfwd",
                     lambda: self.routes() == (base[0] + nb4, base[1] + NB_ROUTES6), LANDED_S)
            # a snapshot after the burst's held changes were made: none left to make
            time.sleep(0.5)
            s0 = self.dp.snapshot()
            self.dpctl("raw", "/dpfwd/linux/resync")
            s1 = wait_for("the dump's routes counted unchanged", lambda: (
                s := self.dp.snapshot())["linux"]["routes_unchanged"] -
                s0["linux"]["routes_unchanged"] >= nb4 + NB_ROUTES6 and s, LANDED_S)
            for k in ("routes_added", "routes_deleted", "route_errors"):
                self.assertEqual(s1["linux"][k], s0["linux"][k], k)
            self.assertEqual(s1["linux"]["dumps"], s0["linux"]["dumps"] + 1)
            for k in ("copies", "batch_copies"):
                self.assertEqual(s1["route_changes"][k], s0["route_changes"][k], k)
            self.assertEqual(self.routes(), (base[0] + nb4, base[1] + NB_ROUTES6))
        finally:
            self.r("ip", "route", "flush", "proto", "boot", timeout=60)
            self.r("ip", "-6", "route", "flush", "proto", "boot", timeout=60)
        wait_for("the routes gone from dpfwd", lambda: self.routes() == base, LANDED_S)

    def test_routes_of_one_batch_all_land_and_all_leave_on_flush(self):
        base = self.routes()
        lines = table(self.topo)
        nb4 = len(lines) - NB_ROUTES6
        t0 = time.monotonic()
        ip_batch(self, "routes.batch", lines)
        wait_for(f"{nb4} IPv4 and {NB_ROUTES6} IPv6 routes in dpfwd",
                 lambda: self.routes() == (base[0] + nb4, base[1] + NB_ROUTES6),
                 LANDED_S - (time.monotonic() - t0))
        print(f"\n  {len(lines)} kernel routes in dpfwd {time.monotonic() - t0:.2f} s after "
              "`ip -batch`", end=" ", flush=True)
        self.assertIn(f"10.78.31.0/24 via {self.topo.b.ip4} port 1",
                      self.dpctl("route", "list", "10.78.31.0/24"))
        self.assertIn(f"10.77.248.128/25 via {self.topo.a.ip4} port 0",
                      self.dpctl("route", "list", "10.77.248.128/25"))
        self.assertIn(f"2001:db8:1000:bb7::/64 via {self.topo.b.ip6} port 1",
                      self.dpctl("route", "list", "2001:db8:1000:bb7::/64"))
        lx = self.dp.snapshot()["linux"]
        self.assertEqual(lx["route_errors"], 0)

        t0 = time.monotonic()
        self.r("ip", "route", "flush", "proto", "boot", timeout=60)
        self.r("ip", "-6", "route", "flush", "proto", "boot", timeout=60)
        wait_for("the routes gone from dpfwd", lambda: self.routes() == base,
                 LANDED_S - (time.monotonic() - t0))
        print(f"gone {time.monotonic() - t0:.2f} s after `ip route flush`", end=" ",
              flush=True)
        self.assertNotIn(" via ", self.dpctl("route", "list", "10.78.31.0/24"))
        self.assertNotIn(" via ", self.dpctl("route", "list", "2001:db8:1000:bb7::/64"))
        self.assertEqual(self.dp.snapshot()["linux"]["route_errors"], 0)


class LinuxcpOverrunTest(netns.RigTest):
    """[linux] netlink_rcvbuf = 4096: a burst of adds and deletes overruns the socket."""
    OLD = [f"10.{i // 256}.{i % 256}.0/24" for i in range(512)]           # 10.0/15
    NEW = [f"10.{4 + i // 256}.{i % 256}.0/24" for i in range(1024)]      # 10.4/14
    LONGER = [f"10.{4 + i // 256}.{i % 256}.128/25" for i in range(0, 1024, 16)]

    @classmethod
    def topology(cls):
        return ScaleTopology("netlink_rcvbuf = 4096\n")

    def batch(self, lines):
        """@p lines (`ip -batch` routes) in one netlink write: the kernel applies them
        faster than dpfwd's control thread reads (`ip -batch`, one route to a request,
        may not outrun it)."""
        path = os.path.join(self.topo.tmp, "burst.batch")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.r(sys.executable, NLPUSH, path, "--batch", str(len(lines)), timeout=60)

    def kernel_routes(self):
        """{(prefix, gateway, port)} of the kernel's routes out of the mirrors in 10/8."""
        out = self.r("ip", "-o", "-4", "route", "show", "root", "10.0.0.0/8").stdout
        return {(m[1], m[2], int(m[3]))
                for m in re.finditer(r"^(\S+) via (\S+) dev dp(\d+)", out, re.M)}

    def dpfwd_routes(self):
        """The same of dpfwd's table, listed by /17 (each at most 200 lines)."""
        tel = dpctl.Telemetry(os.path.join("/var/run/dpdk", self.dp.prefix, dpctl.SOCK_NAME))
        got = set()
        try:
            for net in ipaddress.ip_network("10.0.0.0/13").subnets(new_prefix=17):
                reply = dpctl.normalize(tel.get(f"/dpfwd/route/list,{net}"))
                self.assertFalse(reply.get("truncated"), net)
                for line in reply.get("routes") or []:
                    m = re.match(r"^(\S+) via (\S+) port (\d+)$", line)
                    if m:
                        got.add((m[1], m[2], int(m[3])))
        finally:
            tel.close()
        return got

    def wait_equal(self, timeout=15.0):
        """Until dpfwd's routes in 10/8 are the kernel's and no dump is under way."""
        want = self.kernel_routes()
        t0 = time.monotonic()
        while True:
            lx = self.dp.snapshot()["linux"]
            got = self.dpfwd_routes()
            if got == want:
                return lx
            if time.monotonic() - t0 > timeout:
                self.fail(f"dpfwd's table is not the kernel's after {timeout} s: "
                          f"{len(want - got)} missing (e.g. {sorted(want - got)[:3]}), "
                          f"{len(got - want)} extra (e.g. {sorted(got - want)[:3]}); "
                          f"linux {lx}")
            time.sleep(0.5)

    def test_overrun_resyncs_to_the_kernels_table_deletions_included(self):
        b, a = self.topo.b.ip4, self.topo.a.ip4
        self.batch([f"route add {p} via {b} dev dp1" for p in self.OLD])
        before = self.wait_equal()
        self.assertEqual(len(self.kernel_routes()), len(self.OLD))
        # half of the old ones deleted, 1,088 new ones, in one burst
        burst = [f"route del {p}" for p in self.OLD[::2]]
        burst += [f"route add {p} via {a} dev dp0" for p in self.NEW]
        burst += [f"route add {p} via {b} dev dp1" for p in self.LONGER]
        self.batch(burst)
        after = self.wait_equal()
        self.assertGreater(after["resyncs"], before["resyncs"], after)
        self.assertEqual(len(self.kernel_routes()),
                         len(self.OLD) // 2 + len(self.NEW) + len(self.LONGER))
        self.assertEqual(after["route_errors"], 0)

    def test_prometheus_scrape_has_the_linux_counters(self):
        snap = self.dp.snapshot()
        body = self.r("curl", "-s", "--noproxy", "*", snap["run"]["metrics"]).stdout
        self.assertEqual(test_metrics.promlint(body), [])
        types, samples = test_metrics.parse_exposition(body)
        lx = self.dp.snapshot()["linux"]
        for field in ("routes_added", "routes_deleted", "route_errors", "dumps", "resyncs",
                      "link_changes", "routes_other_if", "routes_config"):
            name = f"dpfwd_linux_{field}_total"
            self.assertEqual(types.get(name), "counter", name)
            self.assertEqual(samples[test_metrics.key(name)], lx[field], name)
        for name in ("dpfwd_linux_punted_packets_total", "dpfwd_linux_injected_packets_total",
                     "dpfwd_linux_netlink_messages_total", "dpfwd_linux_neigh_learned_total"):
            self.assertIn(test_metrics.key(name), samples, name)
        self.assertGreater(samples[test_metrics.key("dpfwd_linux_resyncs_total")], 0)


if __name__ == "__main__":
    netns.run_tests("linuxcp_scale_netns", "__main__",
                    "dpfwd's Linux control plane: 20,000 routes from netlink, in and out; "
                    "a burst that overruns the netlink socket")
