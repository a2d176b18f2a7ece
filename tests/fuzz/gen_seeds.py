#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Seed corpora of tests/fuzz/fuzz_relay.c, fuzz_dpsock_ctl.c, fuzz_profile.c, fuzz_dpctl.c.

    python3 tests/fuzz/gen_seeds.py                  # all, into tests/fuzz/corpus/<name>/
    python3 tests/fuzz/gen_seeds.py relay --out DIR  # one of them, elsewhere

Each seed is a file NNN-what. The seeds this script wrote before are replaced; inputs a
fuzzer found (crash-*, or any name without the NNN- prefix) are left as they are. The
formats are the targets' own (their header comments); the constants below mirror them.
"""
import argparse
import os
import random
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# ---- fuzz_relay.c ----

K_RAW, K_CLIENT4, K_CLIENT6, K_BACKEND4, K_BACKEND6, K_ECHO, K_AGAIN = range(7)
KIND_AGE, KIND_HOLD = 0x10, 0x80
F_CKSUM_RAW, F_CKSUM_ZERO, F_IPCK_BAD, F_FRAG_MF = 0x01, 0x02, 0x04, 0x08
F_FRAG_OFF, F_DF, F_LEN_RAW, F_HDR_RAW = 0x10, 0x20, 0x40, 0x80
# net_ring ports keep the MAC the ring PMD gives them: all zero
PORT_MAC = [bytes(6), bytes(6)]


def kind(what, port=0, age=False, split=0, hold=False):
    return bytes([what | port << 3 | (KIND_AGE if age else 0) | split << 5
                  | (KIND_HOLD if hold else 0)])


def tpl(what, port=0, age=False, split=0, hold=False, flags=0, src=0, src_low=2, dst_low=0,
        sport=0, dport=0, ttl=0, tos=0, cksum=0, iplen=0, ulen=0, hdr=0, payload=b'hello',
        cut=0, select=0):
    """One template record (enum tpl_field)."""
    fields = struct.pack('>BBBBHHBBHHHBBBB', flags, src, src_low, dst_low, sport, dport, ttl,
                         tos, cksum, iplen, ulen, hdr, len(payload), cut, select)
    assert len(fields) == 20
    return kind(what, port, age, split, hold) + fields + payload


def raw(frame, port=0, hold=False):
    return kind(K_RAW, port, hold=hold) + struct.pack('>H', len(frame)) + frame


def again(port=0, hold=False):
    return kind(K_AGAIN, port, hold=hold)


def ip4_cksum(hdr):
    s = sum(struct.unpack('>%dH' % (len(hdr) // 2), hdr))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def raw_client4(payload=b'raw'):
    """A whole frame, as a client sends it to 198.18.0.1:5000 on port0."""
    udp = struct.pack('>HHHH', 40100, 5000, 8 + len(payload), 0) + payload
    ip = struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + len(udp), 7, 0x4000, 64, 17, 0,
                     bytes([203, 0, 113, 9]), bytes([198, 18, 0, 1]))
    ip = ip[:10] + struct.pack('>H', ip4_cksum(ip)) + ip[12:]
    frame = PORT_MAC[0] + bytes([2, 0, 0, 0, 0, 0xfe]) + b'\x08\x00' + ip + udp
    return frame + bytes(max(0, 60 - len(frame)))


def relay_seeds():
    c4, c6, b4, b6, echo = K_CLIENT4, K_CLIENT6, K_BACKEND4, K_BACKEND6, K_ECHO
    rnd = random.Random(7)
    s = [
        ('empty', b''),
        ('client_v4', tpl(c4)),
        ('client_v4_echo', tpl(c4) + tpl(echo)),
        ('client_v6_echo', tpl(c6) + tpl(echo)),
        ('svc2_client_echo', tpl(c4, port=1, select=1) + tpl(echo, port=0)),
        ('backend_v4_no_session', tpl(b4, port=1)),
        ('backend_v6_no_session', tpl(b6, port=1)),
        ('client_v4_cksum0_echo', tpl(c4, flags=F_CKSUM_ZERO) + tpl(echo, flags=F_CKSUM_ZERO)),
        ('client_v6_cksum0', tpl(c6, flags=F_CKSUM_ZERO)),
        ('backend_v6_cksum0', tpl(c6) + tpl(echo, flags=F_CKSUM_ZERO)),
        ('client_v4_bad_cksum_echo',
         tpl(c4, flags=F_CKSUM_RAW, cksum=0x1234) + tpl(echo, flags=F_CKSUM_RAW, cksum=0xffff)),
        ('client_v6_bad_cksum_echo', tpl(c6, flags=F_CKSUM_RAW, cksum=1) + tpl(echo)),
        ('client_v4_df_tos', tpl(c4, flags=F_DF, tos=0xb8) + tpl(echo, tos=0x28)),
        ('frag4_mf', tpl(c4, flags=F_FRAG_MF)),
        ('frag4_offset', tpl(c4, flags=F_FRAG_OFF, iplen=3)),
        ('frag4_last', tpl(c4, flags=F_FRAG_OFF | F_FRAG_MF, iplen=9)),
        ('frag6_mf', tpl(c6, flags=F_FRAG_MF)),
        ('frag6_offset', tpl(c6, flags=F_FRAG_OFF, iplen=1)),
        ('options4_echo', tpl(c4, flags=F_HDR_RAW, hdr=7) + tpl(echo, flags=F_HDR_RAW, hdr=15)),
        ('ihl4', tpl(c4, flags=F_HDR_RAW, hdr=4)),
        ('ihl15_past_frame', tpl(c4, flags=F_HDR_RAW, hdr=15, payload=b'')),
        ('ip6_next_hbh', tpl(c6, flags=F_HDR_RAW, hdr=0)),
        ('ip6_next_tcp', tpl(c6, flags=F_HDR_RAW, hdr=6)),
        ('udp4_cut_short', tpl(c4, cut=14 + 20 + 4, payload=b'')),
        ('udp4_eth_only', tpl(c4, cut=14)),
        ('udp6_cut_short', tpl(c6, cut=14 + 40 + 6, payload=b'')),
        ('ulen4_below_8', tpl(c4, flags=F_LEN_RAW, iplen=28 + 5, ulen=4)),
        ('ulen4_past_ip', tpl(c4, flags=F_LEN_RAW, iplen=28 + 5, ulen=40)),
        ('ulen4_inside_ip_echo',
         tpl(c4, flags=F_LEN_RAW, iplen=28 + 5, ulen=10) + tpl(echo)),
        ('iplen4_past_frame', tpl(c4, flags=F_LEN_RAW, iplen=1400, ulen=13)),
        ('iplen4_below_hdr', tpl(c4, flags=F_LEN_RAW, iplen=12, ulen=13)),
        ('iplen4_hdr_only', tpl(c4, flags=F_LEN_RAW, iplen=20, ulen=13)),
        ('plen6_past_frame', tpl(c6, flags=F_LEN_RAW, iplen=900, ulen=13)),
        ('plen6_short', tpl(c6, flags=F_LEN_RAW, iplen=4, ulen=13)),
        ('ulen6_past_plen', tpl(c6, flags=F_LEN_RAW, iplen=13, ulen=200)),
        ('ulen6_zero', tpl(c6, flags=F_LEN_RAW, iplen=13, ulen=0)),
        ('ttl1_local', tpl(c4, ttl=1) + tpl(echo, ttl=1)),
        ('hl1_local', tpl(c6, ttl=1) + tpl(echo, ttl=255)),
        ('ip4_bad_hdr_cksum', tpl(c4, flags=F_IPCK_BAD)),
        ('split_after_eth', tpl(c4, split=1) + tpl(echo, split=1)),
        ('split_in_udp', tpl(c6, split=2) + tpl(echo, split=2)),
        ('split_after_udp_v4', tpl(c4, split=3) + tpl(echo, split=3)),
        ('split_after_udp_v6', tpl(c6, split=3, payload=b'x' * 200) + tpl(echo, split=3)),
        ('split_v4_options', tpl(c4, split=3, flags=F_HDR_RAW, hdr=6, payload=b'x' * 100)),
        ('echo_from_other_host', tpl(c4) + tpl(echo, src=4 | 0, src_low=50)),
        ('echo_from_other_backend', tpl(c4) + tpl(echo, select=2)),
        ('echo_other_bport', tpl(c4) + tpl(echo, sport=6002)),
        ('echo_other_rport', tpl(c4) + tpl(echo, dport=20007)),
        ('echo_other_source', tpl(c4) + tpl(echo, dst_low=9)),
        ('echo_v6_other_host', tpl(c6) + tpl(echo, src=4 | 2, src_low=9)),
        ('age_then_echo', tpl(c4) + tpl(echo, age=True)),
        ('age_then_client', tpl(c4) + tpl(c4, age=True) + tpl(echo)),
        ('again_hits', tpl(c4) + again() + again() + tpl(echo) + again(port=1)),
        ('client_on_link_static_echo', tpl(c4, src=1, src_low=2) + tpl(echo)),
        ('client_on_link_unresolved', tpl(c4, src=1, src_low=77) + tpl(echo)),
        ('client_v6_on_link_unresolved', tpl(c6, src=1, src_low=77) + tpl(echo)),
        ('client_v6_link_local', tpl(c6, src=3, src_low=3) + tpl(echo)),
        ('client_v4_martian', tpl(c4, src=3, src_low=1)),
        ('client_is_listen', tpl(c4, src=3, src_low=4) + tpl(echo)),
        ('client_is_source', tpl(c4, src=3, src_low=5) + tpl(echo)),
        ('client_is_backend', tpl(c4, src=2, src_low=2, sport=6000) + tpl(echo)),
        ('relay_port_on_listen', tpl(c4, dport=20001)),
        ('listen_port_on_source', tpl(b4, dport=5000)),
        ('other_local_port', tpl(c4, dport=5002)),
        ('other_host_same_port', tpl(c4, dst_low=9)),
        ('svc2_relay_port_from_svc0_backend', tpl(c4, select=1, port=1) + tpl(b4, dport=21000)),
        ('backend_to_each_port_v4', b''.join(tpl(b4, port=1, select=k << 2) for k in range(8))),
        ('burst_client_echo',
         tpl(c4, hold=True) + tpl(c4, hold=True, src_low=3) + tpl(c6) + tpl(echo)),
        ('burst_flood_v4_evicts',
         b''.join(tpl(c4, hold=True, src_low=10 + k) for k in range(12)) + tpl(echo)),
        ('burst_flood_v6', b''.join(tpl(c6, hold=True, src_low=10 + k) for k in range(16))),
        ('burst_client_and_replies',
         tpl(c4) + tpl(echo, hold=True) + again(hold=True) + tpl(c4, src_low=3, hold=True)
         + tpl(echo)),
        ('burst_mixed_ports',
         tpl(c4, hold=True) + tpl(b4, port=1, hold=True) + tpl(c6, hold=True)
         + tpl(b6, port=1, hold=True) + raw(raw_client4(), hold=True)),
        ('raw_client_v4', raw(raw_client4())),
        ('raw_client_v4_port1', raw(raw_client4(), port=1)),
        ('raw_garbage', raw(bytes(rnd.randrange(256) for _ in range(80)))),
        ('raw_empty', raw(b'')),
        ('payload_big_echo', tpl(c4, payload=bytes(range(255))) + tpl(echo, payload=b'z' * 200)),
        ('payload_none_echo', tpl(c6, payload=b'') + tpl(echo, payload=b'')),
    ]
    return s


# ---- fuzz_dpsock_ctl.c ----

# record: | head | ... ; head bits 0-1 connection, bits 2-4 descriptors, bit 5 raw,
# bits 6-7 op (HELLO, BIND, RESOLVE, from field C_OP); bits 0-1 = 3: bits 2-3 a
# connection, bit 4 clear: close it; set: the next bits 5-7 + 1 records pipelined on it
FD_NONE, FD_EFD, FD_MEMFD, FD_EFD_MEMFD, FD_PIPE, FD_EFD_EFD, FD_THREE, FD_EFD_BLOCKING = range(8)
OP_HELLO, OP_BIND, OP_RESOLVE, OP_FIELD = range(4)
G_BAD_MAGIC, G_BAD_VERSION, G_V6, G_OTHER_FAMILY = 0x01, 0x02, 0x04, 0x08
G_FAMILY_RAW, G_JUNK, G_SHORT, G_LONG = 0x10, 0x20, 0x40, 0x80
A_WILDCARD, A_PORT0, A_PORT1, A_REMOTE, A_LOOPBACK, A_MCAST, A_BOUND = range(7)
MAGIC = 0x6b736470
CTL_SIZE = 64


def msg(conn, op, fds=FD_NONE, flags=0, addr=A_WILDCARD, port=0, op_raw=0, family=0, junk=0,
        lenmod=0):
    """A template message (enum ctl_field)."""
    head = conn | fds << 2 | op << 6
    return bytes([head]) + struct.pack('>BBHBBBB', flags, addr, port, op_raw, family, junk,
                                       lenmod)


def close(conn):
    return bytes([3 | conn << 2])


def pipeline(conn, *records):
    """Records sent on one connection without waiting for the answers."""
    assert 1 <= len(records) <= 8
    return bytes([3 | conn << 2 | 0x10 | (len(records) - 1) << 5]) + b''.join(records)


def raw_msg(conn, body, fds=FD_NONE):
    return bytes([conn | fds << 2 | 0x20, len(body)]) + body


def ctl_bytes(op, family=0, version=1, magic=MAGIC, addr=b''):
    """A struct dpsock_ctl as libdpsock sends it (little-endian host)."""
    m = struct.pack('<IHHiIQII', magic, version, op, 0, 0, 0, family, 0)
    m += addr.ljust(28, b'\0') + b'\0' * 4
    assert len(m) == CTL_SIZE
    return m


def sockaddr_in(port, a):
    return struct.pack('<H', 2) + struct.pack('>H', port) + bytes(a)


def dpsock_seeds():
    h, b, r, f = OP_HELLO, OP_BIND, OP_RESOLVE, OP_FIELD
    hello4, hello6 = msg(0, h), msg(0, h, flags=G_V6)
    s = [
        ('empty', b''),
        ('hello_v4', hello4),
        ('hello_v6', hello6),
        ('hello_bind_v4', hello4 + msg(0, b, FD_EFD)),
        ('hello_bind_v6', hello6 + msg(0, b, FD_EFD, flags=G_V6)),
        ('bind_port0_addr', hello4 + msg(0, b, FD_EFD, addr=A_PORT0, port=7000)),
        ('bind_v6_port1_addr', hello6 + msg(0, b, FD_EFD, flags=G_V6, addr=A_PORT1, port=7001)),
        ('bind_remote_addr', hello4 + msg(0, b, FD_EFD, addr=A_REMOTE, port=7000)),
        ('bind_relay_port', hello4 + msg(0, b, FD_EFD, addr=A_PORT0, port=5000)),
        ('bind_twice', hello4 + msg(0, b, FD_EFD) + msg(0, b, FD_EFD)),
        ('bind_no_fd', hello4 + msg(0, b)),
        ('bind_memfd', hello4 + msg(0, b, FD_MEMFD)),
        ('bind_pipe', hello4 + msg(0, b, FD_PIPE)),
        ('bind_two_fds', hello4 + msg(0, b, FD_EFD_EFD)),
        ('bind_three_fds', hello4 + msg(0, b, FD_THREE)),
        ('bind_blocking_efd', hello4 + msg(0, b, FD_EFD_BLOCKING)),
        ('bind_other_family', hello4 + msg(0, b, FD_EFD, flags=G_OTHER_FAMILY)),
        ('bind_before_hello', msg(0, b, FD_EFD)),
        ('hello_twice', hello4 + hello4),
        ('hello_bad_version', msg(0, h, flags=G_BAD_VERSION)),
        ('hello_bad_magic', msg(0, h, flags=G_BAD_MAGIC)),
        ('hello_family_raw', msg(0, h, flags=G_FAMILY_RAW, family=1)),
        ('hello_with_fd', msg(0, h, FD_EFD)),
        ('hello_short', msg(0, h, flags=G_SHORT, lenmod=10)),
        ('hello_long', msg(0, h, flags=G_LONG, lenmod=1)),
        ('hello_junk', msg(0, h, flags=G_JUNK, junk=0xa5)),
        ('op_channel', hello4 + msg(0, f, op_raw=4)),
        ('op_channel_gone', hello4 + msg(0, f, op_raw=5)),
        ('op_zero', hello4 + msg(0, f, op_raw=0)),
        ('op_unknown', hello4 + msg(0, f, FD_MEMFD, op_raw=99)),
        ('resolve_unbound', hello4 + msg(0, r, addr=A_PORT0, port=7000)),
        ('resolve_remote', hello4 + msg(0, b, FD_EFD) + msg(0, r, addr=A_REMOTE, port=9)),
        ('resolve_self', hello4 + msg(0, b, FD_EFD, addr=A_PORT0, port=7000)
         + msg(0, r, addr=A_PORT0, port=7000)),
        ('resolve_other_family', hello4 + msg(0, b, FD_EFD) + msg(0, r, flags=G_OTHER_FAMILY)),
        ('resolve_with_fd', hello4 + msg(0, b, FD_EFD) + msg(0, r, FD_EFD)),
        ('channel_two_endpoints',
         hello4 + msg(0, b, FD_EFD, addr=A_PORT0, port=7000) + msg(1, h)
         + msg(1, b, FD_EFD, port=7001) + msg(0, r, addr=A_PORT1, port=7001)
         + msg(0, r, addr=A_PORT1, port=7001) + msg(1, r, addr=A_PORT0, port=7000)),
        ('channel_then_close_peer',
         hello4 + msg(0, b, FD_EFD) + msg(1, h) + msg(1, b, FD_EFD)
         + msg(0, r, addr=A_BOUND | 1 << 3, port=0xff01) + close(1)
         + msg(0, r, addr=A_BOUND | 1 << 3, port=0xff01)),
        ('channel_v6', hello6 + msg(0, b, FD_EFD, flags=G_V6) + msg(1, h, flags=G_V6)
         + msg(1, b, FD_EFD, flags=G_V6, addr=A_PORT1, port=7002)
         + msg(0, r, flags=G_V6, addr=A_PORT1, port=7002)),
        ('three_binds_max', hello4 + msg(0, b, FD_EFD) + msg(1, h) + msg(1, b, FD_EFD)
         + msg(2, h) + msg(2, b, FD_EFD)),
        ('port_taken', hello4 + msg(0, b, FD_EFD, port=7000) + msg(1, h)
         + msg(1, b, FD_EFD, addr=A_PORT1, port=7000)),
        ('close_reopen', hello4 + msg(0, b, FD_EFD, port=7000) + close(0) + hello4
         + msg(0, b, FD_EFD, port=7000)),
        ('raw_libdpsock_hello', raw_msg(0, ctl_bytes(1, family=2))),
        ('raw_hello_bind', raw_msg(0, ctl_bytes(1, family=2))
         + raw_msg(0, ctl_bytes(2, addr=sockaddr_in(7000, [198, 18, 0, 1])), FD_EFD)),
        ('raw_text', raw_msg(0, b'hello')),
        ('raw_zero', raw_msg(0, b'')),
        ('raw_oversize', raw_msg(0, ctl_bytes(1, family=2) + b'\x01' * 40)),
        ('closed_by_server_then_send', msg(0, h, flags=G_BAD_MAGIC) + hello4 + hello4),
        ('pipeline_hello_bind_resolve',
         pipeline(0, hello4, msg(0, b, FD_EFD), msg(0, r, addr=A_REMOTE, port=9))),
        ('pipeline_bad_magic_then_more',
         pipeline(0, hello4, msg(0, b, FD_EFD, flags=G_BAD_MAGIC), hello4, msg(0, b, FD_EFD))),
        ('pipeline_version_then_bind',
         pipeline(1, msg(1, h, flags=G_BAD_VERSION), msg(1, b, FD_EFD))),
        ('pipeline_past_a_round',
         pipeline(0, hello4, msg(0, b, FD_EFD), *[msg(0, r, addr=A_PORT0, port=9)] * 6)),
        ('pipeline_short_then_hello', pipeline(2, msg(2, h, flags=G_SHORT, lenmod=3), hello4)),
        ('pipeline_channel',
         msg(1, h) + msg(1, b, FD_EFD, port=7001)
         + pipeline(0, hello4, msg(0, b, FD_EFD, port=7000), msg(0, r, addr=A_PORT0, port=7001),
                    msg(0, r, addr=A_PORT1, port=7001), close(1))
         + msg(0, r, addr=A_PORT1, port=7001)),
    ]
    return s


# ---- fuzz_profile.c ----

RX_OFFLOADS = ('vlan_strip ipv4_cksum udp_cksum tcp_cksum tcp_lro qinq_strip outer_ipv4_cksum '
               'macsec_strip vlan_filter vlan_extend scatter timestamp security keep_crc '
               'sctp_cksum outer_udp_cksum rss_hash buffer_split')
TX_OFFLOADS = ('vlan_insert ipv4_cksum udp_cksum tcp_cksum sctp_cksum tcp_tso udp_tso '
               'outer_ipv4_cksum qinq_insert vxlan_tnl_tso gre_tnl_tso ipip_tnl_tso '
               'geneve_tnl_tso macsec_insert mt_lockfree multi_segs mbuf_fast_free security '
               'udp_tnl_tso ip_tnl_tso outer_udp_cksum send_on_timestamp')


def prof(*lines, dev=None):
    """A profile: [profile] then @lines; a last line '--dev DEV' is the port's dev."""
    text = '[profile]\n' + ''.join(line + '\n' for line in lines)
    return (text + ('--dev ' + dev if dev is not None else '')).encode()


def profile_seeds():
    cfg = os.path.join(HERE, '..', '..', 'drivers-cfg')
    s = []
    for f in sorted(os.listdir(cfg)):
        if f.endswith('.ini'):
            with open(os.path.join(cfg, f), 'rb') as fh:
                s.append(('drivers_cfg_' + f[:-4], fh.read()))
    half = len(RX_OFFLOADS.split()) // 2
    s += [
        ('empty', b''),
        ('empty_section', prof()),
        ('all_keys', prof('drivers = net_fuzz fuzz_pci', 'rx_desc = 512', 'tx_desc = 2048',
                          'rx_offloads = ipv4_cksum udp_cksum', 'tx_offloads = mbuf_fast_free',
                          'rss_hf = ip udp', 'devargs = a=1,b=2', 'notes = what it is for',
                          'ip4_whole_max = 1500', 'mtu = 9000', 'tx_keeps_sent = on',
                          'rx_headroom = 256', 'buf_max = 4096',
                          'tx_first_seg_only = on')),
        ('rx_offloads_first_half', prof('rx_offloads = ' + ' '.join(RX_OFFLOADS.split()[:half]))),
        ('rx_offloads_second_half',
         prof('rx_offloads = ' + ' '.join(RX_OFFLOADS.split()[half:]))),
        ('tx_offloads_tso', prof('tx_offloads = ' + ' '.join(
            w for w in TX_OFFLOADS.split() if w.endswith('tso')))),
        ('tx_offloads_rest', prof('tx_offloads = ' + ' '.join(
            w for w in TX_OFFLOADS.split() if not w.endswith('tso')))),
        ('offloads_case_and_separators',
         prof('rx_offloads = IPV4_CKSUM,Udp_Cksum\ttcp_cksum  none', 'tx_offloads = none')),
        ('rss_all', prof('rss_hf = ip,udp tcp sctp')),
        ('rss_none', prof('rss_hf = none')),
        ('desc_limits', prof('rx_desc = 32', 'tx_desc = 32768')),
        ('drivers_commas', prof('drivers = a,b c')),
        ('drivers_tab', prof('drivers = net_a\tnet_b')),
        ('notes_escaped_hash', prof(r'notes = ring \# 1 # a comment')),
        ('devargs_and_pci_dev_with_args', prof('devargs = x=1', dev='0000:3b:00.0,y=2')),
        ('devargs_short_pci', prof('devargs = mprq_en=1', dev='3b:00.1')),
        ('devargs_vdev', prof('devargs = mprq_en=1', dev='net_null0,size=64')),
        ('devargs_long', prof('devargs = ' + 'k=v,' * 60 + 'end=1', dev='0000:00:00.0')),
        ('dev_empty', prof(dev='')),
        ('comment_and_blank', b'# a profile\n\n[profile]  # here\n  rx_desc = 64  \n'),
        ('crlf', b'[profile]\r\nrx_desc = 64\r\n'),
        ('err_unknown_key', prof('rx_ring = 64')),
        ('err_unknown_section', b'[port0]\ndev = x\n'),
        ('err_two_sections', prof('rx_desc = 64') + b'[other]\n'),
        ('err_key_before_section', b'rx_desc = 64\n[profile]\n'),
        ('err_desc_low', prof('rx_desc = 31')),
        ('err_desc_high', prof('tx_desc = 32769')),
        ('err_desc_text', prof('rx_desc = many')),
        ('err_unknown_rx_offload', prof('rx_offloads = ipv4_cksum tcp_tso')),
        ('err_unknown_tx_offload', prof('tx_offloads = rss_hash')),
        ('err_unknown_rss', prof('rss_hf = ipv4')),
        ('err_whole_max', prof('ip4_whole_max = 65536')),
        ('err_no_value', prof('notes =')),
        ('err_long_value', prof('notes = ' + 'n' * 300)),
    ]
    return s


# ---- fuzz_dpctl.c ----

# dpfwd's telemetry commands that take no params: what dpctl's shows read
DPCTL_SECTIONS = ['run/info', 'port/stats', 'graph/lcores', 'graph/nodes', 'graph/drops',
                  'graph/delay', 'fwd/routes', 'fwd/route_changes', 'fwd/ip6', 'fwd/neighbors',
                  'fwd/icmp4', 'relay/stats', 'endpoint/stats', 'endpoint/list', 'mem/pools',
                  'ctl/stats']


def cmds(*lines):
    """Lines as dpctl sends them: '/dpfwd/<what>[,params]'."""
    return ''.join('/dpfwd/' + line + '\n' for line in lines).encode()


def dpctl_seeds():
    s = [('empty', b'')]
    s += [('show_' + w.replace('/', '_'), cmds(w)) for w in DPCTL_SECTIONS]
    s += [
        ('show_everything', cmds(*DPCTL_SECTIONS)),
        ('graph', cmds('graph/graph')),
        ('graph_worker0', cmds('graph/graph,0')),
        ('graph_worker_absent', cmds('graph/graph,7')),
        ('graph_worker_text', cmds('graph/graph,-1', 'graph/graph,x')),
        ('route_add_via', cmds('route/add,198.19.7.0/24 via 198.18.1.2 port 1')),
        ('route_add_onlink', cmds('route/add,198.23.0.0/16 port 0')),
        ('route_add_l3fwd', cmds('route/add,R198.24.0.0/16 1')),
        ('route_add_long', cmds('route/add,198.25.1.128/25 port 1', 'route/list,198.25.0.0/16')),
        ('route_add_host', cmds('route/add,198.26.0.9/32 via 198.18.0.2 port 0')),
        ('route_add_default', cmds('route/add,0.0.0.0/0 via 198.18.1.2 port 1', 'route/list')),
        ('route_add_v6', cmds('route/add,2001:db8:30::/48 via 2001:db8:11::2 port 1',
                              'route/list,2001:db8::/32')),
        ('route_add_v6_onlink', cmds('route/add,2001:db8:31::/64 port 0')),
        ('route_add_then_del', cmds('route/add,198.27.0.0/16 port 1', 'route/del,198.27.0.0/16')),
        ('route_add_twice', cmds('route/add,198.28.0.0/16 port 1',
                                 'route/add,198.28.0.0/16 port 0')),
        ('route_del_config', cmds('route/del,198.19.0.0/16', 'route/list')),
        ('route_del_v6', cmds('route/del,2001:db8:20::/48')),
        ('route_del_absent', cmds('route/del,198.29.0.0/16')),
        ('route_del_port_addr', cmds('route/del,198.18.0.1/32')),
        ('route_del_connected', cmds('route/del,198.18.0.0/24')),
        ('route_del_adjacency', cmds('route/del,198.18.1.2/32')),
        ('route_add_port_addr', cmds('route/add,198.18.1.1/32 port 0')),
        ('route_add_bad_port', cmds('route/add,198.30.0.0/16 port 9')),
        ('route_add_host_bits', cmds('route/add,198.31.0.1/16 port 0')),
        ('route_add_garbage', cmds('route/add,a route', 'route/add', 'route/add,')),
        ('route_add_fill_table', cmds(*['route/add,10.%d.0.0/16 port %d' % (i, i % 2)
                                        for i in range(30)])),
        ('route_add_fill_tbl8', cmds(*['route/add,10.0.%d.0/25 port 0' % i for i in range(12)])),
        ('route_list_all', cmds('route/list')),
        ('route_list_prefix', cmds('route/list,198.18.0.0/16')),
        ('route_list_host', cmds('route/list,198.18.1.2/32')),
        ('route_list_v6_all', cmds('route/list,::/0')),
        ('route_list_bad', cmds('route/list,not a prefix', 'route/list,198.18.0.0/33')),
        ('reload_config', cmds('route/reload,0')),
        ('reload_other_routes', cmds('route/reload,1', 'route/list', 'route/list,::/0')),
        ('reload_bad_route', cmds('route/reload,2')),
        ('reload_three_ports', cmds('route/reload,3')),
        ('reload_absent', cmds('route/reload,9', 'route/reload')),
        ('add_reload_list', cmds('route/add,198.19.9.0/24 port 0', 'route/reload,0', 'route/list')),
        ('unknown_command', cmds('route/move,1', 'nosuch')),
        ('leading_commas', b',,/dpfwd/route/list,198.18.0.0/16\n'),
        ('quote_in_params', cmds('route/add,"198.19.0.0/16', 'route/del,\\x"')),
        ('not_dpfwd', b'/ethdev/list\n/eal/params\n'),
    ]
    return s


TARGETS = {'relay': relay_seeds, 'dpsock_ctl': dpsock_seeds, 'profile': profile_seeds,
           'dpctl': dpctl_seeds}


def write(name, out):
    seeds = TARGETS[name]()
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out):
        if re.match(r'^\d{3}-', f):
            os.unlink(os.path.join(out, f))
    for i, (what, data) in enumerate(seeds):
        with open(os.path.join(out, '%03d-%s' % (i, what)), 'wb') as fh:
            fh.write(data)
    print('%s: %d seeds in %s' % (name, len(seeds), out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('targets', nargs='*', help=' '.join(sorted(TARGETS)) + ' (default: all)')
    ap.add_argument('--out', help='folder (one target only); default tests/fuzz/corpus/<name>')
    a = ap.parse_args()
    names = a.targets or sorted(TARGETS)
    for n in names:
        if n not in TARGETS:
            sys.exit('unknown target %s (%s)' % (n, ', '.join(sorted(TARGETS))))
    if a.out and len(names) != 1:
        sys.exit('--out takes one target')
    for n in names:
        write(n, a.out or os.path.join(HERE, 'corpus', n))


if __name__ == '__main__':
    main()
