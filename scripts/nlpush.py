#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Push routes into the kernel the way a routing daemon does: RTM_NEWROUTE (and
RTM_DELROUTE) messages many to a netlink send (zebra batches its route installs the same
way), rather than `ip -batch`'s one request and one answer per route.

  scripts/nlpush.py FILE [--batch N]

FILE holds `ip -batch` lines (IPv4 or IPv6) of two forms:
- `route add PREFIX via GATEWAY dev IFNAME`: a unicast route of the main table, protocol
  boot (as `ip` makes it), created or replaced;
- `route del PREFIX`: the main table's route to PREFIX deleted.
Run it inside the namespace (`ip netns exec NS ...`). Prints the routes sent and the
seconds taken; exit 1 naming the line of the first route the kernel refused.

Written with struct rather than a netlink library: pyroute2 builds an object per message,
which would make this tool, not the kernel, the bound it is meant to measure.
"""
import argparse
import os
import socket
import struct
import sys
import time

RTM_NEWROUTE, RTM_DELROUTE = 24, 25
NLMSG_ERROR = 2
NLM_F_REQUEST, NLM_F_ACK = 0x1, 0x4
NLM_F_REPLACE, NLM_F_CREATE = 0x100, 0x400
RTA_DST, RTA_OIF, RTA_GATEWAY = 1, 4, 5
RT_TABLE_MAIN, RTPROT_BOOT, RTN_UNICAST = 254, 3, 1
RT_SCOPE_UNIVERSE, RT_SCOPE_NOWHERE = 0, 255
SO_RCVBUFFORCE = 33


def rta(kind, payload):
    return struct.pack("=HH", 4 + len(payload), kind) + payload


def route_msg(seq, line, ifindex, ack):
    """The RTM_NEWROUTE of a `route add P via G dev D` line, the RTM_DELROUTE of a
    `route del P` one."""
    words = line.split()
    add = len(words) == 7 and words[:2] == ["route", "add"] and words[3] == "via" \
        and words[5] == "dev"
    if not add and (len(words) != 3 or words[:2] != ["route", "del"]):
        raise ValueError("not `route add PREFIX via GATEWAY dev IFNAME` or `route del PREFIX`")
    prefix, plen = words[2].split("/")
    fam = socket.AF_INET6 if ":" in prefix else socket.AF_INET
    body = struct.pack("=BBBBBBBBI", fam, int(plen), 0, 0, RT_TABLE_MAIN,
                       RTPROT_BOOT if add else 0, RT_SCOPE_UNIVERSE if add else RT_SCOPE_NOWHERE,
                       RTN_UNICAST if add else 0, 0)
    body += rta(RTA_DST, socket.inet_pton(fam, prefix))
    if add:
        body += (rta(RTA_GATEWAY, socket.inet_pton(fam, words[4]))
                 + rta(RTA_OIF, struct.pack("=I", ifindex(words[6]))))
        kind, flags = RTM_NEWROUTE, NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE
    else:
        kind, flags = RTM_DELROUTE, NLM_F_REQUEST
    flags |= NLM_F_ACK if ack else 0
    return struct.pack("=IHHII", 16 + len(body), kind, flags, seq, 0) + body


def errors(sock, last_seq):
    """(seq, errno) of every refusal, reading until the acknowledgement of LAST_SEQ."""
    found = []
    while True:
        data = sock.recv(1 << 20)
        off = 0
        while off + 16 <= len(data):
            length, kind, _, seq, _ = struct.unpack_from("=IHHII", data, off)
            if kind == NLMSG_ERROR:
                err = -struct.unpack_from("=i", data, off + 16)[0]
                if err:
                    found.append((seq, err))
                if seq == last_seq:
                    return found
            off += (length + 3) & ~3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--batch", type=int, default=1000, help="routes per send (default 1000)")
    a = ap.parse_args()
    with open(a.file) as f:
        lines = [ln for ln in f.read().splitlines() if ln.strip()]
    indexes = {}

    def ifindex(name):
        if name not in indexes:
            indexes[name] = socket.if_nametoindex(name)
        return indexes[name]

    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 22)
    sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 1 << 22)
    sock.bind((0, 0))
    t0 = time.monotonic()
    for start in range(0, len(lines), a.batch):
        part = lines[start:start + a.batch]
        msgs = []
        for i, line in enumerate(part):
            seq = start + i + 1
            try:
                msgs.append(route_msg(seq, line, ifindex, i == len(part) - 1))
            except (ValueError, OSError) as e:
                sys.exit(f"nlpush: {a.file}:{seq}: {e}")
        sock.send(b"".join(msgs))
        bad = errors(sock, start + len(part))
        if bad:
            seq, err = bad[0]
            sys.exit(f"nlpush: {a.file}:{seq}: the kernel refused the route: "
                     f"{os.strerror(err)} ({len(bad)} refused in its batch)")
    print(f"nlpush: {len(lines)} routes in {time.monotonic() - t0:.2f} s")


if __name__ == "__main__":
    main()
