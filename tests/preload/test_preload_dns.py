#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
A DNS server from Debian under libdpsock-preload: nsd (its own config, zone, pid file,
state and log in the test's temporary folder) serves a zone of 20 names (A, AAAA, TXT, a
CNAME) on the wildcard address, its UDP sockets dpfwd's endpoints, run by pid.

   router netns: dpfwd port0 198.18.10.1/24 --unix socket-- nsd (LD_PRELOAD)
                      | veth                                   ^ dpsock's intra-host
   netns A: eth0 198.18.10.2/24, dig, dnsperf                  | channel: dnsperf
                                                                   (LD_PRELOAD)

- dig from the Linux host in netns A, through dpfwd's NIC path: a few names exactly (the
  answer section with its TTLs), and NXDOMAIN for a name the zone lacks;
- dnsperf from that host (the kernel's UDP) for 2 s at a fixed rate: every query answered,
  none lost, every response NOERROR; dpfwd's endpoint datapath counters rise by as many;
- dnsperf preloaded on this host, to 127.0.0.1 (dpsock's intra-host channel), the same.

nsd forks (a server child and xfrd) after it made its sockets, so the child serves on
sockets bound by its parent. Namespaces, dpfwd, nsd and the clients are removed
(processes by pid) on every exit (netns.py). About 10 s.

Environment: tests/preload/meson.build.
"""
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "netns"))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "apps" / "dpbench"))
import dnsbench  # noqa: E402
import netns  # noqa: E402
import pl_rig  # noqa: E402
from test_preload_netns import PreloadRig  # noqa: E402

PORT = 11753
ZONE_NAME = "example.test"
# (owner, ttl, type, data): the zone's records under the SOA and NS
RECORDS = ([(f"host{i}", 600, "A", f"198.18.99.{i}") for i in range(1, 9)]
           + [(f"host{i}", 600, "AAAA", f"2001:db8:99::{i}") for i in range(1, 9)]
           + [("txt1", 300, "TXT", '"dpsock preload"'),
              ("txt2", 300, "TXT", '"hello" "world"'),
              ("www", 300, "CNAME", f"host1.{ZONE_NAME}."),
              ("mail", 300, "A", "198.18.99.25")])
ZONE = f"""\
$ORIGIN {ZONE_NAME}.
$TTL 300
@ IN SOA ns1 admin 1 3600 600 86400 300
@ IN NS ns1
ns1 IN A 198.18.10.1
""" + "".join(f"{o} {t} IN {ty} {d}\n" for o, t, ty, d in RECORDS)

# dnsperf's queries: every name and type of the zone that answers NOERROR with data
QUERIES = "".join(f"{o}.{ZONE_NAME} {ty}\n" for o, _, ty, _ in RECORDS) + f"www.{ZONE_NAME} A\n"
RATE = 2000  # queries per second, for DNSPERF_SECONDS
DNSPERF_SECONDS = 2


def dnsperf_stats(out):
    """(sent, completed, lost, noerror, qps) from dnsperf's statistics."""
    def num(pattern, conv=int):
        m = re.search(pattern, out)
        if m is None:
            raise AssertionError(f"dnsperf printed no {pattern!r}:\n{out}")
        return conv(m.group(1))
    return (num(r"Queries sent:\s+(\d+)"), num(r"Queries completed:\s+(\d+)"),
            num(r"Queries lost:\s+(\d+)"), num(r"Response codes:\s+NOERROR (\d+)"),
            num(r"Queries per second:\s+([\d.]+)", float))


class PreloadDnsTest(PreloadRig):
    @classmethod
    def after_dpfwd(cls):
        cls.nsd = cls.start_nsd()

    @classmethod
    def start_nsd(cls):
        """nsd in the foreground (-d: its pid is the one started), preloaded, its
        endpoint listed by dpfwd and answering."""
        d = Path(cls.topo.tmp) / "nsd"
        d.mkdir()
        (d / f"{ZONE_NAME}.zone").write_text(ZONE)
        conf = d / "nsd.conf"
        conf.write_text(dnsbench.nsd_conf("tests/preload/test_preload_dns.py", PORT, d,
                                          ZONE_NAME, extra="\ttcp-count: 4\n"))
        cls.nsd_log = d / "nsd.log"
        out = open(d / "nsd.out", "w")
        # SIGTERM from the kernel should this test die first (netns.py)
        proc = subprocess.Popen(["nsd", "-d", "-c", str(conf)], env=cls.env,
                                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                preexec_fn=netns._die_with_parent)
        out.close()
        netns.defer(f"stop pid {proc.pid} (nsd)", lambda: netns.stop_process(proc))
        deadline = time.monotonic() + 10
        while not any(e.get("port") == PORT
                      for e in cls.dp.snapshot().get("endpoint_list", [])):
            if time.monotonic() > deadline or proc.poll() is not None:
                log = netns.read_text(cls.nsd_log) if cls.nsd_log.exists() else ""
                raise RuntimeError("the preloaded nsd did not attach:\n"
                                   + netns.read_text(d / "nsd.out") + log)
            time.sleep(0.05)
        cls.qfile = d / "queries"
        cls.qfile.write_text(QUERIES)
        return proc

    def datapath(self):
        return self.dp.snapshot()["endpoint"]["datapath"]

    def dig(self, name, qtype):
        r = netns.sh("dig", f"@{self.addr}", "-p", PORT, "+noall", "+answer", "+comments",
                     "+tries=1", "+time=2", name, qtype, ns=self.topo.a.ns, check=False)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        status = re.search(r"status: (\w+)", r.stdout)
        answer = [line.split() for line in r.stdout.splitlines()
                  if line and not line.startswith(";")]
        return (status.group(1) if status else None), answer

    def test_preload_dns_dig_from_linux_host(self):
        z = ZONE_NAME
        cases = [
            (f"host3.{z}", "A", [[f"host3.{z}.", "600", "IN", "A", "198.18.99.3"]]),
            (f"host8.{z}", "AAAA", [[f"host8.{z}.", "600", "IN", "AAAA", "2001:db8:99::8"]]),
            (f"txt2.{z}", "TXT", [[f"txt2.{z}.", "300", "IN", "TXT", '"hello"', '"world"']]),
            (f"www.{z}", "A", [[f"www.{z}.", "300", "IN", "CNAME", f"host1.{z}."],
                               [f"host1.{z}.", "600", "IN", "A", "198.18.99.1"]]),
        ]
        for name, qtype, want in cases:
            with self.subTest(name=name, qtype=qtype):
                self.assertEqual(self.dig(name, qtype), ("NOERROR", want))
        self.assertEqual(self.dig(f"absent.{z}", "A"), ("NXDOMAIN", []))

    def check_dnsperf(self, r, what):
        out = r.stdout + r.stderr
        self.assertEqual(r.returncode, 0, out)
        sent, completed, lost, noerror, qps = dnsperf_stats(out)
        print(f"\n{what}: {sent} queries, {qps:.0f} qps", file=sys.stderr)
        self.assertGreaterEqual(sent, RATE * DNSPERF_SECONDS * 9 // 10, out)
        self.assertEqual((completed, lost, noerror), (sent, 0, sent), out)
        return sent

    def dnsperf_argv(self, server):
        return ["dnsperf", "-s", server, "-p", str(PORT), "-d", str(self.qfile),
                "-l", str(DNSPERF_SECONDS), "-Q", str(RATE), "-t", "2"]

    def test_preload_dns_dnsperf_from_linux_host(self):
        before = self.datapath()
        r = netns.sh(*self.dnsperf_argv(self.addr), ns=self.topo.a.ns, check=False,
                     timeout=20)
        sent = self.check_dnsperf(r, "dnsperf from netns A through dpfwd")
        after = self.datapath()
        self.assertGreaterEqual(after["rx_msgs"] - before["rx_msgs"], sent)
        self.assertGreaterEqual(after["tx_msgs"] - before["tx_msgs"], sent)

    def test_preload_dns_dnsperf_preloaded_on_this_host(self):
        r = subprocess.run(self.dnsperf_argv("127.0.0.1"), env=self.env, text=True,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=20)
        self.check_dnsperf(r, "dnsperf preloaded, to 127.0.0.1 over dpsock")


if __name__ == "__main__":
    netns.run_tests("preload_dns", __name__,
                    f"dpfwd {netns.DPFWD_BIN}, preload {pl_rig.PRELOAD_LIB}")
