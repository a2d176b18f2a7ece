#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Traffic for tests/netns, run inside a host's namespace (ip netns exec NS python3 traffic.py).

  udp-corners SRC DST PORT   raw IPv4/UDP datagrams (IP_HDRINCL) whose IP IDs are chosen so
                             that their header checksums, as the kernel fills them in, hit
                             the values where an incremental update (RFC 1624) can go
                             wrong (0x0000, 0xfeff..0xffff and around), at TTLs 2, 64 and
                             255 and odd and full-size payloads; prints the list sent (JSON)
  tcp-recv ADDR PORT         accept one connection, read to EOF, print "<bytes> <sha256>"
  tcp-send DST PORT N        connect, send N deterministic pseudo-random bytes, print the same
  udp-echo-peer ADDR PORT    UDP server: answer each datagram with its bytes + b"|" + the
                             sender's "addr:port" as seen here (a relay's source, say)
  udp-clients DST PORT N K   N UDP clients at once, each its own connected socket (so only
                             answers from DST:PORT reach it), K datagrams of random bytes
                             each; prints JSON: per client its port, the answers' "|peer"
                             parts, and how many answers were wrong or missing
  udp-relay-clients DST PORT N K PUSHES WAIT
                             udp-clients (its JSON on one line), then the same sockets wait
                             up to WAIT s for PUSHES datagrams each ("push RPORT SEQ", sent
                             by udp-push to the relay ports) and print, per client, what came
  udp-push ADDR PORT DST K RPORT...
                             from ADDR:PORT (a backend), K rounds of one datagram to each
                             DST:RPORT ("push RPORT SEQ"), paced
  udp-flow-sender DST PORT N N sockets (N flows, one source port each) to DST:PORT; prints
                             their ports (JSON), then per stdin line "FLOW COUNT SIZE"
                             sends COUNT datagrams of SIZE bytes (>= 6: the flow and its
                             next sequence number first) and prints "sent FLOW"
  udp-flow-sink ADDR PORT    receives until SIGTERM, then prints JSON: per sender
                             "addr:port" the (flow, seq, size) of each datagram in order
  ip4-bad-cksum IFACE DMAC SRC DST PORT N
                             N Ethernet frames out of IFACE (AF_PACKET: the kernel fills
                             in no checksum) to DMAC, IPv4/UDP SRC -> DST:PORT whose IPv4
                             header checksum is wrong (the right one + 1); the UDP one is
                             right

Standard library only.
"""
import hashlib
import json
import random
import select
import signal
import socket
import struct
import sys
import time


def fold(s):
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def csum(data):
    """Internet checksum (RFC 1071) of data."""
    if len(data) % 2:
        data += b"\0"
    return ~fold(sum(struct.unpack(f"!{len(data) // 2}H", data))) & 0xFFFF


def ip4_header(src, dst, ident, ttl, total_len, cksum=0):
    return struct.pack("!BBHHHBBH4s4s", 0x45, 0, total_len, ident, 0x4000, ttl,
                       socket.IPPROTO_UDP, cksum, socket.inet_aton(src), socket.inet_aton(dst))


def udp_datagram(src, dst, sport, dport, payload):
    length = 8 + len(payload)
    pseudo = socket.inet_aton(src) + socket.inet_aton(dst) + struct.pack(
        "!BBH", 0, socket.IPPROTO_UDP, length)
    c = csum(pseudo + struct.pack("!HHHH", sport, dport, length, 0) + payload)
    return struct.pack("!HHHH", sport, dport, length, c or 0xFFFF) + payload  # RFC 768


# header checksums (before forwarding) to hit: a TTL decrement adds 0x0100 to the
# checksum in one's complement, so these are the values around both ends of the wrap
TARGETS = (0x0000, 0x0001, 0x00FE, 0x00FF, 0x0100, 0x0101, 0x7FFF, 0x8000, 0xFDFF, 0xFEFE,
           0xFEFF, 0xFF00, 0xFF01, 0xFFFE)
TTLS = (2, 64, 255)
LENGTHS = (1, 17, 1472)  # 1472 = a full 1500-byte IP packet


def udp_corners(src, dst, port):
    rnd = random.Random(4)
    plan = []
    for ttl in TTLS:
        for n in LENGTHS:
            payload = bytes(rnd.randrange(256) for _ in range(n))
            total = 20 + 8 + n
            # the checksum is ~(S0 + id) in one's complement, S0 the sum with id = 0:
            # id = ~t - S0; checked below by computing the header's checksum again
            s0 = ~csum(ip4_header(src, dst, 0, ttl, total)) & 0xFFFF
            for t in TARGETS + tuple(rnd.randrange(0x10000) for _ in range(4)):
                ident = fold((~t & 0xFFFF) + (~s0 & 0xFFFF))
                if ident == 0:  # 0 would make the kernel choose the ID
                    continue
                if csum(ip4_header(src, dst, ident, ttl, total)) == t:
                    plan.append((ident, ttl, payload, t))
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    sent = []
    for i, (ident, ttl, payload, c) in enumerate(plan):
        udp = udp_datagram(src, dst, 40000 + i, port, payload)
        s.sendto(ip4_header(src, dst, ident, ttl, 20 + len(udp), c) + udp, (dst, 0))
        sent.append({"id": ident, "ttl": ttl, "len": 20 + len(udp), "ip_cksum": c})
        time.sleep(0.001)  # paced: the test is about bytes, not about queue sizes
    json.dump(sent, sys.stdout)


def stream(n, seed=7):
    rnd = random.Random(seed)
    while n > 0:
        k = min(n, 65536)
        yield rnd.randbytes(k)
        n -= k


def tcp_recv(addr, port):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, port))
    ls.listen(1)
    print("listening", flush=True)
    ls.settimeout(30)
    c, _ = ls.accept()
    c.settimeout(30)
    h, total = hashlib.sha256(), 0
    while True:
        b = c.recv(1 << 16)
        if not b:
            break
        h.update(b)
        total += len(b)
    print(total, h.hexdigest(), flush=True)


def tcp_send(dst, port, n):
    h = hashlib.sha256()
    s = socket.create_connection((dst, port), timeout=30)
    for chunk in stream(n):
        h.update(chunk)
        s.sendall(chunk)
    s.shutdown(socket.SHUT_WR)
    s.recv(1)  # until the peer closes: everything was read
    print(n, h.hexdigest(), flush=True)


def _family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def udp_echo_peer(addr, port):
    s = socket.socket(_family(addr), socket.SOCK_DGRAM)
    s.bind((addr, port))
    print("listening", flush=True)
    while True:
        data, peer = s.recvfrom(65535)
        tag = f"[{peer[0]}]:{peer[1]}" if ":" in peer[0] else f"{peer[0]}:{peer[1]}"
        s.sendto(data + b"|" + tag.encode(), peer)


def udp_clients(dst, port, n, k):
    print(json.dumps(_clients_rounds(dst, port, n, k)[1]), flush=True)


def _clients_rounds(dst, port, n, k):
    """n connected client sockets, k rounds of one datagram each and its answer."""
    rnd = random.Random(5)
    socks = []
    for _ in range(n):
        c = socket.socket(_family(dst), socket.SOCK_DGRAM)
        c.connect((dst, port))  # the kernel drops answers from any other address or port
        c.settimeout(2.0)
        socks.append(c)
    res = [{"port": c.getsockname()[1], "peers": [], "bad": 0, "missing": 0} for c in socks]
    for _ in range(k):
        sent = []
        for c in socks:  # all clients in flight at once
            data = rnd.randbytes(rnd.randrange(1, 1400))
            c.send(data)
            sent.append(data)
        for c, data, r in zip(socks, sent, res):
            try:
                got = c.recv(65535)
            except socket.timeout:
                r["missing"] += 1
                continue
            body, sep, peer = got.rpartition(b"|")
            if sep != b"|" or body != data:
                r["bad"] += 1
            else:
                r["peers"].append(peer.decode())
    return socks, res


def udp_relay_clients(dst, port, n, k, pushes, wait):
    socks, res = _clients_rounds(dst, port, n, k)
    print(json.dumps(res), flush=True)
    got = {c.fileno(): [] for c in socks}
    deadline = time.monotonic() + wait
    while any(len(v) < pushes for v in got.values()) and time.monotonic() < deadline:
        ready, _, _ = select.select(socks, [], [], 0.2)
        for c in ready:
            word, rport, seq = c.recv(65535).split()
            got[c.fileno()].append([int(rport), int(seq)] if word == b"push" else None)
    print(json.dumps([{"port": c.getsockname()[1], "pushes": got[c.fileno()]} for c in socks]),
          flush=True)


def udp_push(addr, port, dst, k, rports):
    s = socket.socket(_family(addr), socket.SOCK_DGRAM)
    s.bind((addr, port))
    for seq in range(k):
        for rport in rports:
            s.sendto(b"push %d %d" % (rport, seq), (dst, rport))
        time.sleep(0.002)  # a round at a time: the test is about queues, not their depth
    print(k * len(rports), flush=True)


def udp_flow_sender(dst, port, n):
    socks = [socket.socket(_family(dst), socket.SOCK_DGRAM) for _ in range(n)]
    for c in socks:
        c.connect((dst, port))
    print(json.dumps([c.getsockname()[1] for c in socks]), flush=True)
    seqs = [0] * n
    for line in sys.stdin:
        flow, count, size = (int(w) for w in line.split())
        for _ in range(count):
            socks[flow].send(struct.pack("!HI", flow, seqs[flow]).ljust(size, b"."))
            seqs[flow] += 1
        print("sent", flow, flush=True)


def udp_flow_sink(addr, port):
    s = socket.socket(_family(addr), socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind((addr, port))
    s.settimeout(0.1)
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    print("listening", flush=True)
    flows = {}
    while not stop:
        try:
            data, peer = s.recvfrom(65535)
        except (socket.timeout, InterruptedError):
            continue
        flow, seq = struct.unpack("!HI", data[:6])
        flows.setdefault(f"{peer[0]}:{peer[1]}", []).append([flow, seq, len(data)])
    print(json.dumps(flows), flush=True)


def ip4_bad_cksum(iface, dmac, src, dst, port, n):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    smac = s.getsockname()[4]
    udp = udp_datagram(src, dst, 40000, port, b"bad header checksum")
    good = csum(ip4_header(src, dst, 1, 64, 20 + len(udp)))
    frame = (bytes.fromhex(dmac.replace(":", "")) + smac + b"\x08\x00" +
             ip4_header(src, dst, 1, 64, 20 + len(udp), (good + 1) & 0xFFFF) + udp)
    for _ in range(n):
        s.send(frame)


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "udp-corners":
        udp_corners(args[0], args[1], int(args[2]))
    elif cmd == "tcp-recv":
        tcp_recv(args[0], int(args[1]))
    elif cmd == "tcp-send":
        tcp_send(args[0], int(args[1]), int(args[2]))
    elif cmd == "udp-echo-peer":
        udp_echo_peer(args[0], int(args[1]))
    elif cmd == "udp-clients":
        udp_clients(args[0], int(args[1]), int(args[2]), int(args[3]))
    elif cmd == "udp-relay-clients":
        udp_relay_clients(args[0], int(args[1]), *(int(a) for a in args[2:6]))
    elif cmd == "udp-push":
        udp_push(args[0], int(args[1]), args[2], int(args[3]), [int(a) for a in args[4:]])
    elif cmd == "udp-flow-sender":
        udp_flow_sender(args[0], int(args[1]), int(args[2]))
    elif cmd == "udp-flow-sink":
        udp_flow_sink(args[0], int(args[1]))
    elif cmd == "ip4-bad-cksum":
        ip4_bad_cksum(args[0], args[1], args[2], args[3], int(args[4]), int(args[5]))
    else:
        sys.exit(f"unknown command {cmd}")
