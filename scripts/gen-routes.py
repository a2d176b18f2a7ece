#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write a large IPv4 route file for dpfwd (and the same prefixes for DPDK l3fwd).

A table shaped like an Internet one: mostly /24s, some shorter (/16../23) and
a few longer (2%: /25../32, which need tbl8 groups), spread over unicast
space, none inside 198.18.0.0/15 (the benchmark networks, which stay on their
own routes). Deterministic for a given --seed.

  gen-routes.py -n 1000000 -o routes-1m.txt [--l3fwd routes-1m.l3fwd]
"""
import argparse
import ipaddress
import random
import sys

RESERVED_NETS = [ipaddress.ip_network(n) for n in (
    "0.0.0.0/8", "10.0.0.0/8", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
    "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/3", "100.64.0.0/10")]
# as [first, last] integers: the overlap test runs a million times
RESERVED = [(int(n.network_address), int(n.broadcast_address)) for n in RESERVED_NETS]


def plen_for(r):
    x = r.random()
    if x < 0.60:
        return 24
    if x < 0.98:
        return r.randint(16, 23)
    return r.randint(25, 32)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=1000000, help="number of routes")
    ap.add_argument("-o", required=True, help="dpfwd route file")
    ap.add_argument("--l3fwd", help="also write l3fwd's --rule_ipv4 file (R<prefix> <port>)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--gw", action="append", default=None,
                    help="'a.b.c.d port N' gateways to spread routes over "
                         "(default: 198.18.101.2 port 1 and 198.18.102.2 port 2)")
    a = ap.parse_args()
    gws = a.gw or ["198.18.101.2 port 1", "198.18.102.2 port 2"]
    r = random.Random(a.seed)
    seen = set()
    with open(a.o, "w") as out, (open(a.l3fwd, "w") if a.l3fwd else open("/dev/null", "w")) as l3:
        out.write("# %d routes, gen-routes.py -n %d --seed %d\n" % (a.n, a.n, a.seed))
        while len(seen) < a.n:
            plen = plen_for(r)
            addr = r.randrange(1 << 24, 224 << 24) & ((0xffffffff << (32 - plen)) & 0xffffffff)
            last = addr | ((1 << (32 - plen)) - 1)
            if (addr, plen) in seen or any(addr <= b and a <= last for a, b in RESERVED):
                continue
            seen.add((addr, plen))
            net = ipaddress.ip_network((addr, plen))
            gw = gws[len(seen) % len(gws)]
            out.write("%s via %s\n" % (net, gw))
            l3.write("R%s %s\n" % (net, gw.split()[-1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
