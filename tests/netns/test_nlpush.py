#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
scripts/nlpush.py (routes pushed to the kernel many to a netlink send, as routing daemons
do) against the kernel's own account of its table: in a namespace with a veth pair (dp1,
dp2), 3,000 IPv4 and 1,000 IPv6 routes pushed in batches of 512 are exactly the routes
`ip -json route show proto boot` lists afterwards, gateway and device included; pushed
again they replace themselves (the same table); deletions mixed with adds in the same
sends leave exactly the routes not deleted and the new ones; a route the kernel refuses (a
gateway on no link, the deletion of a route that is not there) and a line that is not a
route stop it with exit 1 naming the file's line.

Exit status 77 (meson: skipped) with the reason where network namespaces cannot be made.

  python3 tests/netns/test_nlpush.py -v
"""
import ipaddress
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netns  # noqa: E402

NLPUSH = os.path.join(netns.SRC, "scripts", "nlpush.py")
LINKS = (("dp1", "198.18.101.1/24", "2001:db8:101::1/64"),
         ("dp2", "198.18.102.1/24", "2001:db8:102::1/64"))
GW4 = {"dp1": "198.18.101.2", "dp2": "198.18.102.2"}
GW6 = {"dp1": "2001:db8:101::2", "dp2": "2001:db8:102::2"}


def table_lines():
    """`route add` lines: /28s of 198.19.0.0/16 and /64s of 2001:db8:1000::/48, with /32s
    and /128s among them, over both links."""
    lines = []
    for i, net in enumerate(ipaddress.ip_network("198.19.0.0/16").subnets(new_prefix=28)):
        if i == 3000:
            break
        dev = ("dp1", "dp2")[i % 2]
        dst = f"{net.network_address}/32" if i % 7 == 0 else str(net)
        lines.append(f"route add {dst} via {GW4[dev]} dev {dev}")
    for i, net in enumerate(ipaddress.ip_network("2001:db8:1000::/48").subnets(new_prefix=64)):
        if i == 1000:
            break
        dev = ("dp2", "dp1")[i % 2]
        dst = f"{net.network_address}/128" if i % 5 == 0 else str(net)
        lines.append(f"route add {dst} via {GW6[dev]} dev {dev}")
    return lines


def expected(lines):
    """{(dst, gateway, dev)} of LINES, written as ip -json writes them (a host route
    without its length)."""
    out = set()
    for line in lines:
        _, _, dst, _, gw, _, dev = line.split()
        net = ipaddress.ip_network(dst)
        full = net.prefixlen == net.max_prefixlen
        out.add((str(net.network_address) if full else str(net), gw, dev))
    return out


class NlpushTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ns = f"nlp{os.getpid()}"
        netns.sh("ip", "netns", "add", cls.ns)
        netns.defer(f"delete netns {cls.ns}",
                    lambda: netns.sh("ip", "netns", "del", cls.ns, check=False))
        netns.sh("ip", "link", "add", "dp1", "type", "veth", "peer", "name", "dp2", ns=cls.ns)
        for dev, a4, a6 in LINKS:
            netns.sh("ip", "-6", "addr", "add", a6, "dev", dev, "nodad", ns=cls.ns)
            netns.sh("ip", "addr", "add", a4, "dev", dev, ns=cls.ns)
            netns.sh("ip", "link", "set", dev, "up", ns=cls.ns)
        cls.tmp = tempfile.mkdtemp(prefix="nlpush.")
        netns.defer(f"remove {cls.tmp}",
                    lambda: subprocess.run(["rm", "-rf", cls.tmp], check=False))

    @classmethod
    def tearDownClass(cls):
        netns.cleanup_all()

    def push(self, lines, name):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write("".join(line + "\n" for line in lines))
        r = subprocess.run(["ip", "netns", "exec", self.ns, sys.executable, NLPUSH, path,
                            "--batch", "512"], capture_output=True, text=True, timeout=60)
        return path, r

    def kernel_routes(self):
        got = set()
        for fam in ("-4", "-6"):
            r = netns.sh("ip", "-json", fam, "route", "show", "proto", "boot", ns=self.ns)
            for rt in json.loads(r.stdout or "[]"):
                got.add((rt["dst"], rt.get("gateway"), rt.get("dev")))
        return got

    def test_1_the_kernel_holds_what_was_pushed(self):
        lines = table_lines()
        path, r = self.push(lines, "table")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"nlpush: {len(lines)} routes in ", r.stdout)
        self.assertEqual(self.kernel_routes(), expected(lines))
        # again: each replaces itself
        _, r = self.push(lines, "table")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.kernel_routes(), expected(lines))

    def test_2_a_refused_route_names_its_line(self):
        lines = table_lines()[:700]
        lines[600] = "route add 198.19.200.0/24 via 198.18.103.2 dev dp1"  # on no link
        path, r = self.push(lines, "refused")
        self.assertEqual(r.returncode, 1)
        self.assertIn(f"nlpush: {path}:601: the kernel refused the route: ", r.stderr)

    def test_3_a_line_that_is_no_route_names_its_line(self):
        path, r = self.push(["route add 198.19.201.0/24 via 198.18.101.2 dev dp1",
                             "route change 198.19.201.0/24 via 198.18.101.3 dev dp1"], "bad")
        self.assertEqual(r.returncode, 1)
        self.assertIn(f"nlpush: {path}:2: not `route add PREFIX via GATEWAY dev IFNAME` or "
                      "`route del PREFIX`", r.stderr)

    def test_4_deletions_and_adds_in_one_send(self):
        for fam in ("-4", "-6"):
            netns.sh("ip", fam, "route", "flush", "proto", "boot", ns=self.ns)
        lines = table_lines()
        _, r = self.push(lines, "before")
        self.assertEqual(r.returncode, 0, r.stderr)
        # every other route deleted, in the same sends as adds of new ones
        dels = [f"route del {ln.split()[2]}" for ln in lines[::2]]
        adds = [f"route add 198.18.{200 + i // 64}.{i % 64 * 4}/30 via 198.18.101.2 dev dp1"
                for i in range(300)]
        burst = [x for pair in zip(dels, adds) for x in pair] + dels[len(adds):]
        _, r = self.push(burst, "burst")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.kernel_routes(), expected(lines[1::2] + adds))
        # a route that is not there: refused, named by its line
        path, r = self.push(["route del 198.19.240.0/24"], "absent")
        self.assertEqual(r.returncode, 1)
        self.assertIn(f"nlpush: {path}:1: the kernel refused the route: ", r.stderr)


if __name__ == "__main__":
    netns.run_tests("nlpush", __name__, "routes pushed by scripts/nlpush.py vs the kernel's table")
