# SPDX-License-Identifier: BSD-3-Clause
"""
Does this kernel accept what DPDK's net_af_xdp asks of it on interface IFACE (run in its
namespace)? The same steps as libxdp's xsk_socket__create, as bare syscalls, so that
every errno is the kernel's own:

  socket(AF_XDP) -> umem and its fill/completion rings, RX/TX rings (setsockopt SOL_XDP)
  -> an XDP program (bpf BPF_PROG_LOAD: return XDP_PASS) attached to IFACE (BPF_LINK_CREATE,
  native mode, then generic where native is not supported, as libxdp does) -> bind to
  IFACE queue 0.

    python3 xdp_probe.py IFACE

Exit 0: accepted. Exit 1: the step the kernel refused and its errno, on stdout. Exit 2:
the probe itself could not run (an unknown architecture, no such interface).
Python 3 standard library only; needs root (CAP_NET_RAW, CAP_BPF).
"""
import ctypes
import errno
import mmap
import os
import platform
import socket
import struct
import sys

AF_XDP = 44
SOL_XDP = 283
XDP_RX_RING, XDP_TX_RING, XDP_UMEM_REG = 2, 3, 4
XDP_UMEM_FILL_RING, XDP_UMEM_COMPLETION_RING = 5, 6
BPF_PROG_LOAD, BPF_LINK_CREATE = 5, 28
BPF_PROG_TYPE_XDP, BPF_XDP = 6, 37
XDP_FLAGS_SKB_MODE = 1 << 1
NR_BPF = {"x86_64": 321, "aarch64": 280}
CHUNK, FRAMES, RING = 4096, 16, 64

libc = ctypes.CDLL(None, use_errno=True)


def refused(step, iface):
    e = ctypes.get_errno()
    print(f"{step} on {iface}: {errno.errorcode.get(e, str(e))} ({os.strerror(e)})")
    sys.exit(1)


def bpf(cmd, attr):
    buf = ctypes.create_string_buffer(attr, len(attr))
    return libc.syscall(NR_BPF[platform.machine()], cmd, buf, len(attr))


def main(iface):
    if platform.machine() not in NR_BPF:
        print(f"xdp_probe: no bpf syscall number for {platform.machine()}")
        return 2
    try:
        ifindex = socket.if_nametoindex(iface)
    except OSError as e:
        print(f"xdp_probe: {iface}: {e}")
        return 2
    fd = libc.socket(AF_XDP, socket.SOCK_RAW, 0)
    if fd < 0:
        refused("socket(AF_XDP)", iface)
    umem = mmap.mmap(-1, CHUNK * FRAMES)  # anonymous: page-aligned, as the kernel wants
    addr = ctypes.addressof(ctypes.c_char.from_buffer(umem))
    # struct xdp_umem_reg as of its first version: addr, len, chunk_size, headroom
    opts = [(XDP_UMEM_REG, "XDP_UMEM_REG", struct.pack("=QQII", addr, len(umem), CHUNK, 0))]
    opts += [(o, n, struct.pack("=i", RING)) for o, n in (
        (XDP_UMEM_FILL_RING, "XDP_UMEM_FILL_RING"),
        (XDP_UMEM_COMPLETION_RING, "XDP_UMEM_COMPLETION_RING"),
        (XDP_RX_RING, "XDP_RX_RING"), (XDP_TX_RING, "XDP_TX_RING"))]
    for opt, name, val in opts:
        buf = ctypes.create_string_buffer(val, len(val))
        if libc.setsockopt(fd, SOL_XDP, opt, buf, len(val)) != 0:
            refused(f"setsockopt({name})", iface)
    # r0 = XDP_PASS (2); exit
    insns = struct.pack("<BBhi", 0xb7, 0, 0, 2) + struct.pack("<BBhi", 0x95, 0, 0, 0)
    ibuf = ctypes.create_string_buffer(insns, len(insns))
    lic = ctypes.create_string_buffer(b"GPL")
    # union bpf_attr, BPF_PROG_LOAD: prog_type, insn_cnt, insns, license, log_level,
    # log_size, log_buf, kern_version, prog_flags, prog_name, prog_ifindex,
    # expected_attach_type
    prog = bpf(BPF_PROG_LOAD, struct.pack(
        "=IIQQIIQII16sII", BPF_PROG_TYPE_XDP, 2, ctypes.addressof(ibuf),
        ctypes.addressof(lic), 0, 0, 0, 0, 0, b"dpfwd_probe", 0, BPF_XDP))
    if prog < 0:
        refused("bpf(BPF_PROG_LOAD, XDP)", iface)
    # link_create: prog_fd, target_ifindex, attach_type, flags; closing it detaches
    link = bpf(BPF_LINK_CREATE, struct.pack("=IIII", prog, ifindex, BPF_XDP, 0))
    if link < 0 and ctypes.get_errno() == errno.EOPNOTSUPP:
        link = bpf(BPF_LINK_CREATE,
                   struct.pack("=IIII", prog, ifindex, BPF_XDP, XDP_FLAGS_SKB_MODE))
    if link < 0:
        refused("bpf(BPF_LINK_CREATE, XDP)", iface)
    # struct sockaddr_xdp: family, flags, ifindex, queue_id, shared_umem_fd
    sxdp = struct.pack("=HHIII", AF_XDP, 0, ifindex, 0, 0)
    if libc.bind(fd, ctypes.create_string_buffer(sxdp, len(sxdp)), len(sxdp)) != 0:
        refused("bind(AF_XDP, queue 0)", iface)
    print(f"the kernel accepts an XDP socket on {iface}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
