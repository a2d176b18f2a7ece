#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
The Linux control plane ([linux], docs/linux-cp.md) with many routes: 20,000 kernel
routes added in one `ip -batch` through the mirrors all become dpfwd routes, and all
leave on `ip route flush`, each within 15 s.

  A 198.18.10.2 -- port0 [dpfwd, dp0 dp1] port1 -- B 198.18.20.2

Exit status 77 (meson: skipped) with the reason where network namespaces cannot be made.

  python3 tests/netns/test_linuxcp_scale_netns.py -v
"""
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netns  # noqa: E402

DPCTL = os.path.join(netns.HERE, "..", "..", "apps", "dpctl", "dpctl.py")
NB_ROUTES = 20000
LANDED_S = 15.0


class ScaleTopology(netns.Topology):
    """Two hosts; dpfwd with [linux] and room for the routes (linux_extra: more keys)."""

    def __init__(self, linux_extra=""):
        super().__init__(static_neighbors=True, nb_hosts=2)
        self.linux_extra = linux_extra

    def dpfwd_config(self, driver="net_af_packet", extra=""):
        text = super().dpfwd_config(driver, extra)
        room = f"[routes]\nip4_max = {2 * NB_ROUTES}\nip4_tbl8 = 4096\n"
        return (text.replace("[routes]\n", room) +
                "\n[linux]\nenabled = on\nnames = dp%u\n" + self.linux_extra)


def wait_for(what, fn, timeout):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        v = fn()
        if v:
            return v
        time.sleep(0.1)
    raise AssertionError(f"{what}: not within {timeout} s")


def table(topo):
    """20,000 /24s out of dp1, and in every 40th of them a /25 out of dp0 (a /24 with a
    longer prefix: dpfwd's table writes it through a group of its own)."""
    lines = []
    for i in range(NB_ROUTES):
        lines.append(f"route add 10.{i // 256}.{i % 256}.0/24 via {topo.b.ip4} dev dp1")
    for i in range(0, NB_ROUTES, 40):
        lines.append(f"route add 10.{i // 256}.{i % 256}.128/25 via {topo.a.ip4} dev dp0")
    return lines


class LinuxcpScaleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.topo = ScaleTopology().up()
        try:
            cls.dp = netns.Dpfwd(cls.topo).start().wait_ready()
        except BaseException:
            cls.topo.down()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.topo.down()

    def r(self, *argv, **kw):
        return netns.sh(*argv, ns=self.topo.router_ns, **kw)

    def dpctl(self, *argv):
        return netns.sh(sys.executable, DPCTL, "--file-prefix", self.dp.prefix, *argv).stdout

    def test_routes_of_one_batch_all_land_and_all_leave_on_flush(self):
        base = self.dp.snapshot()["fwd"]["ip4_routes"]
        lines = table(self.topo)
        batch = os.path.join(self.topo.tmp, "routes.batch")
        with open(batch, "w") as f:
            f.write("\n".join(lines) + "\n")
        t0 = time.monotonic()
        self.r("ip", "-batch", batch, timeout=60)
        wait_for(f"{len(lines)} routes in dpfwd",
                 lambda: self.dp.snapshot()["fwd"]["ip4_routes"] == base + len(lines),
                 LANDED_S - (time.monotonic() - t0))
        print(f"\n  {len(lines)} kernel routes in dpfwd {time.monotonic() - t0:.2f} s after "
              "`ip -batch`", end=" ", flush=True)
        self.assertIn(f"10.78.31.0/24 via {self.topo.b.ip4} port 1",
                      self.dpctl("route", "list", "10.78.31.0/24"))
        self.assertIn(f"10.77.248.128/25 via {self.topo.a.ip4} port 0",
                      self.dpctl("route", "list", "10.77.248.128/25"))
        lx = self.dp.snapshot()["linux"]
        self.assertEqual(lx["route_errors"], 0)

        t0 = time.monotonic()
        self.r("ip", "route", "flush", "proto", "boot", timeout=60)
        wait_for("the routes gone from dpfwd",
                 lambda: self.dp.snapshot()["fwd"]["ip4_routes"] == base,
                 LANDED_S - (time.monotonic() - t0))
        print(f"gone {time.monotonic() - t0:.2f} s after `ip route flush`", end=" ",
              flush=True)
        self.assertNotIn(" via ", self.dpctl("route", "list", "10.78.31.0/24"))
        self.assertEqual(self.dp.snapshot()["linux"]["route_errors"], 0)


if __name__ == "__main__":
    netns.run_tests("linuxcp_scale_netns", "__main__",
                    "dpfwd's Linux control plane: 20,000 routes from netlink, in and out")
