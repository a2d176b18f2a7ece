#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
meson install --destdir into a temporary folder, then the installed tree is used:

- every file is where it belongs for the build's prefix and folders (meson's own
  build options): dpfwd in sbin; dpctl, dpgen, dpbench in bin; libdpsock.so.0 with that
  soname, dpsock.h, libdpsock.pc; the driver profiles (every file of drivers-cfg/), the
  example configs, the pcap default.ini replays, the systemd unit (Type=notify, ExecStart
  on the installed dpfwd), bash completion for dpfwd and dpctl; the man pages of man/
  when the source tree has that folder;
- the installed dpfwd --version names the project's version and the DPDK pkg-config
  knows; the installed dpctl --version the project's version; dpbench --help runs;
- the installed dpfwd --check on the installed default.ini (which names no drivers_cfg)
  takes the installed profiles (the folder it prints is the destdir's);
- examples/dpsock_echo.c compiles against the installed libdpsock.pc (PKG_CONFIG_PATH and
  PKG_CONFIG_SYSROOT_DIR into the destdir) and, run against the installed dpfwd with an
  [endpoint], echoes one datagram: the client prints back what it sent.
About 15 s.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dprig  # noqa: E402

REPO = dprig.REPO
BUILD = dprig.BUILD
MAN_PAGES = ["man8/dpfwd.8", "man8/dpctl.8", "man1/dpgen.1", "man1/dpbench.1",
             "man1/dpsock-run.1", "man3/libdpsock.3", "man5/dpfwd.ini.5"]


def build_options():
    """The build's own folders, from meson's introspection files."""
    opts = json.loads((BUILD / "meson-info" / "intro-buildoptions.json").read_text())
    return {o["name"]: o["value"] for o in opts}


def project_version():
    info = json.loads((BUILD / "meson-info" / "intro-projectinfo.json").read_text())
    return info["version"]


class TestInstall(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="dpfwd-install-")
        cls.dest = Path(cls.tmp.name) / "dest"
        p = subprocess.run(["meson", "install", "-C", str(BUILD), "--no-rebuild", "--quiet",
                            "--destdir", str(cls.dest)],
                           capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            raise RuntimeError(f"meson install failed ({p.returncode}): {p.stdout}{p.stderr}")
        o = build_options()
        prefix = Path(o["prefix"])
        cls.root = cls.dest / prefix.relative_to("/")

        def d(name):
            return cls.root / o[name]
        cls.bindir, cls.sbindir, cls.libdir = d("bindir"), d("sbindir"), d("libdir")
        cls.includedir, cls.datadir, cls.mandir = d("includedir"), d("datadir"), d("mandir")
        cls.share = cls.datadir / "dpfwd"

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def assertFile(self, path: Path, executable=False):
        self.assertTrue(path.is_file(), f"{path} not installed")
        if executable:
            self.assertTrue(os.access(path, os.X_OK), f"{path} not executable")

    def test_programs(self):
        self.assertFile(self.sbindir / "dpfwd", executable=True)
        for name in ("dpctl", "dpgen", "dpbench"):
            self.assertFile(self.bindir / name, executable=True)

    def test_dpsock_run_preloads_the_installed_library(self):
        lib = self.libdir / "libdpsock-preload.so"
        self.assertFile(lib)
        run = self.bindir / "dpsock-run"
        self.assertFile(run, executable=True)
        # its default is the library's place once installed (the destdir is not there yet)
        installed = Path("/") / lib.relative_to(self.dest)
        env = {k: v for k, v in os.environ.items()
               if k not in ("DPSOCK_PRELOAD_LIB", "LD_PRELOAD")}
        p = subprocess.run([str(run), "true"], capture_output=True, text=True, timeout=30,
                           env=env)
        if installed.exists():
            self.assertEqual(p.returncode, 0, p.stderr)
        else:
            self.assertEqual(p.returncode, 1)
            self.assertIn(f"dpsock-run: {installed} is not there", p.stderr)
        # DPSOCK_PRELOAD_LIB names another, and the program runs with it preloaded. A
        # sanitizer build's library wants its runtime loaded before it (tests/preload/pl_rig.py
        # puts it there, dpsock-run does not): there the wrapper preloads this process's libc
        target = lib
        if build_options().get("b_sanitize", "none") != "none":
            with open("/proc/self/maps") as maps:
                target = next(Path(line.split()[-1]) for line in maps if "/libc.so" in line)
        p = subprocess.run([str(run), sys.executable, "-c",
                            "import os, sys; print(os.environ['LD_PRELOAD']); "
                            "print(any(m.rstrip().endswith(sys.argv[1]) "
                            "for m in open('/proc/self/maps')))", "/" + target.name],
                           capture_output=True, text=True, timeout=30,
                           env=dict(env, DPSOCK_PRELOAD_LIB=str(target), DPSOCK_PRELOAD="0",
                                    LD_LIBRARY_PATH=str(self.libdir)))
        self.assertEqual((p.returncode, p.stdout.split()), (0, [str(target), "True"]),
                         p.stderr)
        self.assertEqual(p.stderr, "")
        p = subprocess.run([str(run)], capture_output=True, text=True, timeout=30, env=env)
        self.assertEqual(p.returncode, 2)
        self.assertIn("usage: dpsock-run PROGRAM", p.stderr)

    def test_libdpsock_soname_header_pc(self):
        so = self.libdir / "libdpsock.so.0"
        self.assertFile(so)
        self.assertTrue((self.libdir / "libdpsock.so").exists(), "no libdpsock.so (dev link)")
        dyn = subprocess.run(["readelf", "-d", str(so)], capture_output=True, text=True,
                             check=True).stdout
        self.assertRegex(dyn, r"\(SONAME\)\s+Library soname: \[libdpsock\.so\.0\]")
        self.assertFile(self.includedir / "dpsock.h")
        self.assertEqual((self.includedir / "dpsock.h").read_bytes(),
                         (REPO / "src" / "endpoint" / "dpsock.h").read_bytes())
        pc = (self.libdir / "pkgconfig" / "libdpsock.pc").read_text()
        self.assertIn("Libs: -L${libdir} -ldpsock", pc)
        self.assertNotIn("libdpdk", pc)   # dpsock.h needs no DPDK header

    def test_data_profiles_configs_unit_completion(self):
        profiles = sorted(p.name for p in (REPO / "drivers-cfg").glob("*.ini"))
        self.assertTrue(profiles)
        self.assertEqual(sorted(p.name for p in (self.share / "drivers-cfg").iterdir()),
                         profiles)
        for p in profiles:
            self.assertEqual((self.share / "drivers-cfg" / p).read_bytes(),
                             (REPO / "drivers-cfg" / p).read_bytes(), p)
        default = (self.share / "configs" / "default.ini").read_text()
        self.assertNotIn("${DPFWD_BUILD}", default)
        self.assertIn("rx_pcap=${CONFIG_DIR}/../pcap/fwd-2000flows-64b.pcap", default)
        self.assertEqual((self.share / "pcap" / "fwd-2000flows-64b.pcap").read_bytes(),
                         (BUILD / "pcap" / "fwd-2000flows-64b.pcap").read_bytes())
        for b in (REPO / "configs" / "bench").glob("*.ini"):
            self.assertFile(self.share / "configs" / "bench" / b.name)
        for f in ("dpbench.py", "benchcfg.py"):
            self.assertFile(self.share / "apps" / "dpbench" / f)
        units = list(self.dest.rglob("dpfwd@.service"))
        self.assertEqual(len(units), 1, units)
        self.assertEqual(units[0].parent.parts[-2:], ("systemd", "system"), units[0])
        unit = units[0].read_text()
        self.assertIn("Type=notify", unit.splitlines())
        sbin = "/" + str((self.sbindir / "dpfwd").relative_to(self.dest))
        self.assertRegex(unit, rf"(?m)^ExecStart={re.escape(sbin)} ")
        self.assertNotRegex(unit, r"@[A-Z_]+@")   # every placeholder filled in
        for name in ("dpfwd", "dpctl"):
            comp = self.datadir / "bash-completion" / "completions" / name
            self.assertFile(comp)
            self.assertIn(f"complete -F _{name} {name}", comp.read_text())

    def test_man_pages(self):
        if not (REPO / "man").is_dir():
            # no man/ in this tree: nothing to install, and nothing must be there
            self.assertFalse((self.mandir / "man8" / "dpfwd.8").exists())
            return
        for page in MAN_PAGES:
            p = self.mandir / page
            self.assertTrue(p.is_file() or Path(str(p) + ".gz").is_file(), f"{p} not installed")

    def test_versions(self):
        v = project_version()
        out = subprocess.run([str(self.sbindir / "dpfwd"), "--version"], capture_output=True,
                             text=True, timeout=30, check=True).stdout.splitlines()
        self.assertEqual(out[0], f"dpfwd {v}")
        dpdk = subprocess.run(["pkg-config", "--modversion", "libdpdk"], capture_output=True,
                              text=True, check=True).stdout.strip()
        self.assertTrue(out[1].startswith(f"DPDK {dpdk}"), (out, dpdk))
        self.assertRegex(out[2], r"^build: DPDK linked (static|shared), sanitizers \S+, "
                                 r"systemd notify (on|off)")
        self.assertIn(f"sanitizers {build_options()['b_sanitize']},", out[2])
        ctl = subprocess.run([str(self.bindir / "dpctl"), "--version"], capture_output=True,
                             text=True, timeout=30, check=True).stdout.splitlines()
        self.assertEqual(ctl[0], f"dpctl {v}")
        self.assertIn('VERSION = "', (self.bindir / "dpctl").read_text())
        bench = subprocess.run([str(self.bindir / "dpbench"), "--help"], capture_output=True,
                               text=True, timeout=60)
        self.assertEqual(bench.returncode, 0, bench.stderr)
        self.assertIn("usage: dpbench", bench.stdout)

    def test_check_takes_installed_profiles(self):
        cfg = self.share / "configs" / "default.ini"
        self.assertNotRegex(cfg.read_text(), r"(?m)^\s*drivers_cfg")
        prefix = f"dpfwd-install-{os.getpid()}"
        try:
            p = subprocess.run([str(self.sbindir / "dpfwd"), "-l", "0,1", "--no-pci",
                                "--file-prefix", prefix, "--", "-c", str(cfg), "--check"],
                               capture_output=True, text=True, timeout=60)
        finally:
            shutil.rmtree(dprig.dpbench.dpdk_runtime_dir() / prefix, ignore_errors=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        lines = p.stdout.splitlines()
        self.assertIn(f"driver profiles: {(self.share / 'drivers-cfg').resolve()}", lines)
        self.assertTrue(any(re.match(r"port0: net_pcap0, driver net_pcap, profile net_pcap,", line)
                            for line in lines), p.stdout)
        self.assertEqual(lines[-1], "dpfwd --check: ok: nothing was started")

    def test_example_builds_with_pc_and_echoes(self):
        d = Path(self.tmp.name) / "echo"
        d.mkdir()
        env = dict(os.environ, PKG_CONFIG_PATH=str(self.libdir / "pkgconfig"),
                   PKG_CONFIG_SYSROOT_DIR=str(self.dest))
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libdpsock"], env=env,
                               capture_output=True, text=True, check=True).stdout.split()
        self.assertIn(f"-L{self.libdir}", flags)
        # a sanitizer build's libdpsock leaves the sanitizer runtime to the program
        san = build_options()["b_sanitize"]
        flags += [f"-fsanitize={san}"] if san != "none" else []
        exe = d / "dpsock_echo"
        cc = subprocess.run(["cc", "-Wall", "-Wextra", "-Werror", "-o", str(exe),
                             str(REPO / "examples" / "dpsock_echo.c"), *flags],
                            capture_output=True, text=True, timeout=120)
        self.assertEqual(cc.returncode, 0, cc.stderr)
        run_env = dict(os.environ, LD_LIBRARY_PATH=str(self.libdir),
                       DPSOCK_PATH=str(d / "dpsock.sock"))
        ldd = subprocess.run(["ldd", str(exe)], env=run_env, capture_output=True, text=True,
                             check=True).stdout
        self.assertIn(f"libdpsock.so.0 => {self.libdir}/libdpsock.so.0", ldd)
        cfg = d / "echo.ini"
        cfg.write_text("[dpfwd]\nmain_lcore = 0\nnode_stats = off\n"
                       "[port0]\ndev = net_null0,no-rx=1\nip4 = 198.18.0.1/24\n"
                       "[lcores]\nrx = (0,0,1)\n"
                       f"[endpoint]\nsocket = {d / 'dpsock.sock'}\n")
        fwd = dprig.Dpfwd(d, cfg)
        fwd.argv[0] = str(self.sbindir / "dpfwd")
        server = dprig.Proc(d, "server")
        with fwd:
            fwd.wait_ready(lambda: (d / "dpsock.sock").exists())
            try:
                server.spawn([str(exe), "server", "198.18.0.1", "7007", "1"], env=run_env)
                dprig.wait_until(lambda: "listening" in server.log(), 30, "echo server",
                                 server.alive)
                text = "one datagram through libdpsock"
                c = subprocess.run([str(exe), "client", "198.18.0.1", "7007", text],
                                   env=run_env, capture_output=True, text=True, timeout=30)
                self.assertEqual((c.returncode, c.stdout, c.stderr), (0, text + "\n", ""))
                self.assertEqual(server.wait(30), 0, server.log())
            finally:
                server.stop()
            self.assertEqual(fwd.stop(), 0, fwd.log())


if __name__ == "__main__":
    dprig.skip_unless_built(dprig.DPFWD)
    unittest.main(verbosity=2)
