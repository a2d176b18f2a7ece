#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
The Linux control plane ([linux], docs/linux-cp.md) between real Linux hosts: dpfwd
makes a TAP mirror of each port (dp0, dp1) in its own namespace; routes added there with
`ip route` become dpfwd routes that carry host A's traffic to host B, and leave when
deleted; a multipath route becomes an ECMP group; a TCP connection from host A to
dpfwd's own address reaches a listener on the mirror through the exception path. On
ports that filter multicast (net_tap devices of their own), dpfwd opens the filter to
every group (IFF_ALLMULTI), for the groups the routing daemons join on the mirrors.

  A 198.18.10.2 -- port0 [dpfwd, dp0 dp1] port1 -- B 198.18.20.2 (lo 198.19.40.2)

Exit status 77 (meson: skipped) with the reason where network namespaces cannot be made.

  python3 tests/netns/test_linuxcp_netns.py -v
"""
import json
import os
import re
import signal
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netns  # noqa: E402
from netns import wait_for  # noqa: E402

SCHEMA = os.path.join(netns.HERE, "..", "..", "docs", "telemetry.schema.json")
DOC = os.path.join(netns.HERE, "..", "..", "docs", "telemetry.md")
FAR = "198.19.40.2"
TCP_PORT = 179


class LinuxcpTopology(netns.Topology):
    def __init__(self):
        super().__init__(static_neighbors=True, ip6=True, nb_hosts=2, host_ip6=True)
        self.b.extra4 = ["198.19.30.2", FAR]

    def dpfwd_config(self, driver="net_af_packet", extra=""):
        return super().dpfwd_config(driver, extra) + netns.LINUX_SECTION


class LinuxcpTest(netns.RigTest):
    topology = LinuxcpTopology

    def routes(self):
        return self.dpctl("route", "list")

    def linux(self):
        return self.dp.snapshot()["linux"]

    def test_1_mirrors_have_the_ports_mac_mtu_and_address(self):
        out = self.r("ip", "-o", "addr", "show", "dev", "dp1").stdout
        self.assertIn("198.18.20.1/24", out)
        link = self.r("ip", "-o", "link", "show", "dev", "dp1").stdout
        self.assertIn(self.topo.ports[1].mac, link)
        self.assertIn("UP", link)
        self.assertEqual(self.r("sysctl", "-n", "net.ipv4.ip_forward").stdout.strip(), "0")
        lx = self.linux()
        self.assertTrue(lx["enabled"])
        self.assertEqual([m["name"] for m in lx["mirrors"]], ["dp0", "dp1"])
        with open(SCHEMA) as f:
            full = json.load(f)
        schema = full["properties"]["linux"]
        self.assertEqual(sorted(lx), sorted(schema["required"]))
        try:
            import jsonschema
        except ImportError:
            jsonschema = None
        if jsonschema is not None:
            jsonschema.validate(self.dp.snapshot(), full)
        self.assertEqual(sorted(lx["mirrors"][0]), sorted(schema["properties"]["mirrors"]
                                                          ["items"]["required"]))

    def test_2_route_from_linux_carries_traffic_and_leaves(self):
        self.r("ip", "route", "add", "198.19.0.0/16", "via", self.topo.b.ip4, "dev", "dp1")
        wait_for("route in dpfwd", lambda: "198.19.0.0/16 via 198.18.20.2 port 1"
                 in self.routes())
        before = netns.port_stat(self.dp.snapshot(), 1, "opackets")
        self.topo.a.run("ping", "-c", "3", "-i", "0.2", "-W", "2", FAR)
        after = netns.port_stat(self.dp.snapshot(), 1, "opackets")
        self.assertGreaterEqual(after - before, 3)
        self.assertGreaterEqual(self.linux()["routes_added"], 1)
        self.r("ip", "route", "del", "198.19.0.0/16")
        wait_for("route gone from dpfwd", lambda: "198.19.0.0/16" not in self.routes())
        self.assertNotEqual(self.topo.a.run("ping", "-c", "1", "-W", "1", FAR,
                                            check=False).returncode, 0)
        self.assertGreaterEqual(self.linux()["routes_deleted"], 1)

    def test_2_ip6_route_from_linux_carries_traffic_and_leaves(self):
        far6 = "2001:db8:99::2"
        self.topo.b.run("ip", "-6", "addr", "add", f"{far6}/128", "dev", "lo")
        self.r("ip", "-6", "route", "add", "2001:db8:99::/48", "via", self.topo.b.ip6, "dev",
               "dp1")
        want = "2001:db8:99::/48 via 2001:db8:20::2 port 1"
        wait_for("IPv6 route in dpfwd",
                 lambda: want in self.dpctl("route", "list", "2001:db8:99::/48"))
        s0 = self.dp.snapshot()
        out = self.topo.a.run("ping", "-6", "-c", "3", "-i", "0.2", "-W", "2", far6).stdout
        s1 = self.dp.snapshot()
        drops = {k: v - s0["drops"]["by_reason"].get(k, 0)
                 for k, v in s1["drops"]["by_reason"].items()
                 if v != s0["drops"]["by_reason"].get(k, 0)}
        self.assertGreaterEqual(netns.port_stat(s1, 1, "opackets") -
                                netns.port_stat(s0, 1, "opackets"), 3, f"{out} {drops}")
        self.r("ip", "-6", "route", "del", "2001:db8:99::/48")
        wait_for("IPv6 route gone from dpfwd",
                 lambda: "2001:db8:99::/48 via" not in self.dpctl("route", "list",
                                                                  "2001:db8:99::/48"))

    def test_3_multipath_route_is_an_ecmp_group(self):
        self.r("ip", "route", "add", "198.19.50.0/24", "nexthop", "via", self.topo.a.ip4,
               "dev", "dp0", "weight", "1", "nexthop", "via", self.topo.b.ip4, "dev", "dp1",
               "weight", "3")
        want = ("198.19.50.0/24 via 198.18.10.2 port 0 weight 1 "
                "via 198.18.20.2 port 1 weight 3")
        out = wait_for("ECMP route in dpfwd", lambda: want in self.routes() and self.routes())
        self.assertIn("# group", out)
        self.r("ip", "route", "del", "198.19.50.0/24")
        wait_for("ECMP route gone", lambda: "198.19.50.0/24" not in self.routes())

    def test_3_onlink_route_has_no_gateway(self):
        self.r("ip", "route", "add", "198.19.80.0/24", "dev", "dp1")
        wait_for("on-link route in dpfwd", lambda: "198.19.80.0/24 port 1" in self.routes())
        self.r("ip", "route", "del", "198.19.80.0/24")
        wait_for("on-link route gone", lambda: "198.19.80.0/24" not in self.routes())

    def test_4_routes_of_other_interfaces_and_the_kernels_are_ignored(self):
        self.r("ip", "link", "add", "lcpdummy0", "type", "veth", "peer", "name", "lcpdummy1")
        self.r("ip", "link", "set", "lcpdummy0", "up")
        self.r("ip", "link", "set", "lcpdummy1", "up")
        self.r("ip", "addr", "add", "192.0.2.1/24", "dev", "lcpdummy0")
        self.r("ip", "route", "add", "198.19.60.0/24", "via", "192.0.2.2")
        time.sleep(0.3)
        self.assertNotIn("198.19.60.0/24", self.routes())
        self.assertGreaterEqual(self.linux()["routes_other_if"], 1)
        self.assertGreaterEqual(self.linux()["routes_skipped"], 1)
        self.r("ip", "link", "del", "lcpdummy0")

    def test_5_tcp_to_the_router_reaches_linux(self):
        ns = self.topo.router_ns
        srv = netns.spawn(["socat", "-T", "5", f"TCP4-LISTEN:{TCP_PORT},bind=198.18.10.1",
                           "SYSTEM:echo hello-from-linux"], ns=ns)
        try:
            time.sleep(0.3)
            out = self.topo.a.run("socat", "-t", "3", "-", f"TCP4:198.18.10.1:{TCP_PORT}",
                                  timeout=15).stdout
            self.assertIn("hello-from-linux", out)
        finally:
            netns.stop_process(srv, signal.SIGTERM, 3)
        snap = self.dp.snapshot()
        lx = snap["linux"]
        self.assertGreater(lx["punted"], 0)
        self.assertGreater(lx["injected"], 0)
        self.assertGreater(lx["neigh_copied"], 0)
        self.assertGreaterEqual(snap["ctl"]["punted"]["host"], lx["punted"])
        by = snap["drops"]["by_reason"]
        for reason in ("linux_punt_full", "linux_tap_full", "linux_no_tap"):
            self.assertEqual(by[reason], 0, reason)

    def test_5_tcp6_to_the_router_reaches_linux(self):
        srv = netns.spawn(["socat", "-T", "5", f"TCP6-LISTEN:{TCP_PORT},bind=[2001:db8:10::1]",
                           "SYSTEM:echo hello-over-ip6"], ns=self.topo.router_ns)
        try:
            time.sleep(0.3)
            out = self.topo.a.run("socat", "-t", "3", "-", f"TCP6:[2001:db8:10::1]:{TCP_PORT}",
                                  timeout=15).stdout
            self.assertIn("hello-over-ip6", out)
        finally:
            netns.stop_process(srv, signal.SIGTERM, 3)

    def test_6_kernel_neighbor_of_a_mirror_reaches_dpfwd(self):
        self.r("ip", "neigh", "replace", "198.18.20.77", "lladdr", "02:00:00:00:00:77", "dev",
               "dp1", "nud", "permanent")
        out = wait_for("neighbor in dpfwd", lambda: "198.18.20.77" in (
            n := self.dpctl("show", "neighbors")) and n)
        line = next(ln for ln in out.splitlines() if "198.18.20.77" in ln)
        self.assertIn("02:00:00:00:00:77", line)
        self.assertGreater(self.linux()["neigh_learned"], 0)
        self.r("ip", "neigh", "del", "198.18.20.77", "dev", "dp1")

    def test_6_linux_commands_are_those_of_the_doc(self):
        out = self.dpctl("raw", "/")
        listed = {c for c in json.loads(out).get("/", []) if c.startswith("/dpfwd/linux/")}
        with open(DOC) as f:
            doc = set(re.findall(r"^\| `(/dpfwd/linux/[a-z0-9_/]+)` \|", f.read(), re.M))
        self.assertEqual(listed, doc)
        self.assertEqual(len(doc), 2)

    def test_6_dpctl_show_linux(self):
        out = self.dpctl("show", "linux")
        self.assertIn("port 1 dp1", out)
        self.assertIn("resyncs 0", out)

    def test_7_resync_puts_back_a_route_dpfwd_lost(self):
        self.r("ip", "route", "add", "198.19.70.0/24", "via", self.topo.b.ip4, "dev", "dp1")
        want = "198.19.70.0/24 via 198.18.20.2 port 1"
        wait_for("route in dpfwd", lambda: want in self.routes())
        self.dpctl("route", "del", "198.19.70.0/24")
        self.assertNotIn("198.19.70.0/24", self.routes())
        dumps = self.linux()["dumps"]
        self.dpctl("raw", "/dpfwd/linux/resync")
        wait_for("route back in dpfwd", lambda: want in self.routes())
        self.assertGreater(self.linux()["dumps"], dumps)

    def test_7_a_burst_of_routes_arrives_and_leaves(self):
        nb = 500
        prefixes = [f"198.19.{200 + i // 250}.{i % 250}/32" for i in range(nb)]
        batch = os.path.join(self.topo.tmp, "routes.batch")
        added = self.linux()["routes_added"]
        deleted = self.linux()["routes_deleted"]
        with open(batch, "w") as f:
            f.writelines(f"route add {p} via {self.topo.b.ip4} dev dp1\n" for p in prefixes)
        t0 = time.monotonic()
        self.r("ip", "-batch", batch)
        wait_for(f"{nb} routes in dpfwd", lambda: self.linux()["routes_added"] - added >= nb,
                 timeout=10)
        took = time.monotonic() - t0
        print(f"\n  {nb} kernel routes in dpfwd's table {took:.2f} s after `ip -batch`",
              end=" ", flush=True)
        self.assertIn(f"198.19.201.249/32 via {self.topo.b.ip4} port 1",
                      self.dpctl("route", "list", "198.19.201.249/32"))
        with open(batch, "w") as f:
            f.writelines(f"route del {p}\n" for p in prefixes)
        self.r("ip", "-batch", batch)
        wait_for(f"{nb} routes gone", lambda: self.linux()["routes_deleted"] - deleted >= nb,
                 timeout=10)
        self.assertEqual(self.linux()["route_errors"], 0)

    def test_8_mirror_link_down_withdraws_its_routes(self):
        # the kernel drops the routes of a link that goes down without a message each
        want = "198.19.70.0/24 via 198.18.20.2 port 1"
        wait_for("route in dpfwd", lambda: want in self.routes())
        self.r("ip", "link", "set", "dp1", "down")
        try:
            wait_for("route gone from dpfwd", lambda: "198.19.70.0/24" not in self.routes())
            self.assertGreater(self.linux()["link_changes"], 0)
        finally:
            self.r("ip", "link", "set", "dp1", "up")

    def test_9_stop_removes_the_mirrors(self):
        self.assertEqual(self.dp.stop(), 0, self.dp.output())
        links = self.r("ip", "-o", "link", "show").stdout
        self.assertNotIn(" dp0:", links)
        self.assertNotIn(" dp1:", links)


class LinuxcpForwardingTest(unittest.TestCase):
    def test_refuses_a_namespace_that_forwards(self):
        with LinuxcpTopology() as topo:
            netns.sh("sysctl", "-qw", "net.ipv4.ip_forward=1", ns=topo.router_ns)
            dp = netns.Dpfwd(topo).start()
            self.assertNotEqual(dp.proc.wait(timeout=30), 0)
            self.assertIn("net.ipv4.ip_forward", dp.output())
            links = netns.sh("ip", "-o", "link", "show", ns=topo.router_ns).stdout
            self.assertNotIn(" dp0:", links)


class TapPortTopology(LinuxcpTopology):
    """LinuxcpTopology with dpfwd's ports on net_tap devices of their own (lcpmc0, ...),
    apart from the hosts: a device that filters multicast (IFF_ALLMULTI)."""

    def dpfwd_config(self, driver="net_af_packet", extra=""):
        return re.sub(rf"^dev = {driver}(\d+),.*$", r"dev = net_tap\1,iface=lcpmc\1",
                      super().dpfwd_config(driver, extra), flags=re.M)


class LinuxcpMulticastTest(unittest.TestCase):
    def test_ports_take_every_multicast_frame(self):
        """Routing daemons join groups on the mirrors that Linux does not announce: each
        port receives all multicast (the device's own flag, IFF_ALLMULTI on a TAP)."""
        with TapPortTopology() as topo:
            dp = netns.Dpfwd(topo).start().wait_ready()
            for p in topo.ports:
                link = netns.sh("ip", "-o", "link", "show", "dev", f"lcpmc{p.index}",
                                ns=topo.router_ns).stdout
                self.assertIn("ALLMULTI", link.split(">")[0], link)
                self.assertIn(f"port{p.index} (net_tap): all multicast frames", dp.output())
            self.assertEqual(dp.stop(), 0, dp.output())


if __name__ == "__main__":
    netns.run_tests("linuxcp_netns", "__main__",
                    "dpfwd's Linux control plane: mirrors, routes from netlink, TCP to Linux")
