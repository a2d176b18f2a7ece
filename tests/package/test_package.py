#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
The Debian packages (debian/): the tree as git sees it (tracked and new files, not the
ignored build folders) is copied to a temporary folder, `dpkg-buildpackage -b -us -uc`
builds it there, and then:

- exactly the packages dpfwd, libdpsock0 and libdpsock-dev are made (beside the
  -dbgsym packages debhelper makes of their debug symbols);
- each holds its files: dpfwd the programs, profiles, configs, unit and completion;
  libdpsock0 the library under its soname; libdpsock-dev the header, the .so link, the .pc;
- lintian reports no error on them (its warnings are printed).

debhelper, lintian and dpkg-dev are installed when missing (apt-get, as root), as
scripts/dev.sh installs the other packages. A full build on 2 cores takes minutes:
suite package, run by hand (meson test -C build --setup package --suite package).
"""
import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NEEDS = {"debhelper": "dh", "lintian": "lintian", "dpkg-dev": "dpkg-buildpackage",
         "fakeroot": "fakeroot"}


def install_tools():
    missing = [pkg for pkg, tool in NEEDS.items() if shutil.which(tool) is None]
    if not missing:
        return
    if os.geteuid() != 0:
        raise RuntimeError(f"needs {' '.join(missing)}: apt-get install them, or run as root")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], env=env, check=True)
    subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing],
                   env=env, check=True)


def deb_files(deb: Path):
    out = subprocess.run(["dpkg-deb", "-c", str(deb)], capture_output=True, text=True,
                         check=True).stdout
    return [line.split()[5].lstrip(".") for line in out.splitlines()]


class TestPackage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        install_tools()
        cls.tmp = tempfile.TemporaryDirectory(prefix="dpfwd-package-")
        top = Path(cls.tmp.name)
        src = top / "dpfwd"
        files = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached",
                                "--others", "--exclude-standard"],
                               capture_output=True, check=True).stdout.split(b"\0")
        for f in filter(None, files):
            p = REPO / f.decode()
            if p.is_file():
                (src / f.decode()).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(p, src / f.decode())
        build = subprocess.run(["dpkg-buildpackage", "-b", "-us", "-uc", "-j2"], cwd=src,
                               capture_output=True, text=True, timeout=3000)
        cls.build_log = build.stdout + build.stderr
        if build.returncode != 0:
            raise RuntimeError(f"dpkg-buildpackage failed ({build.returncode}):\n"
                               f"{cls.build_log[-6000:]}")
        cls.debs = {p.name.split("_")[0]: p for p in top.glob("*.deb")
                    if not p.name.split("_")[0].endswith("-dbgsym")}
        cls.dbgsym = sorted(p.name.split("_")[0] for p in top.glob("*-dbgsym_*"))
        cls.changes = next(top.glob("*.changes"))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_three_packages(self):
        self.assertEqual(sorted(self.debs), ["dpfwd", "libdpsock-dev", "libdpsock0"])
        self.assertEqual(self.dbgsym, ["dpfwd-dbgsym", "libdpsock0-dbgsym"])

    def test_contents(self):
        dpfwd = deb_files(self.debs["dpfwd"])
        for f in ("/usr/sbin/dpfwd", "/usr/bin/dpctl", "/usr/bin/dpgen", "/usr/bin/dpbench",
                  "/usr/share/dpfwd/drivers-cfg/net_mlx5.ini",
                  "/usr/share/dpfwd/configs/default.ini",
                  "/usr/share/dpfwd/pcap/fwd-2000flows-64b.pcap",
                  "/lib/systemd/system/dpfwd@.service",
                  "/usr/share/bash-completion/completions/dpfwd",
                  "/usr/share/bash-completion/completions/dpctl",
                  "/usr/share/man/man8/dpfwd.8.gz", "/usr/share/man/man8/dpctl.8.gz",
                  "/usr/share/man/man1/dpgen.1.gz", "/usr/share/man/man1/dpbench.1.gz",
                  "/usr/share/man/man5/dpfwd.ini.5.gz",
                  "/usr/bin/dpsock-run", "/usr/share/man/man1/dpsock-run.1.gz"):
            self.assertIn(f, dpfwd)
        lib = deb_files(self.debs["libdpsock0"])
        self.assertTrue(any(f.endswith("/libdpsock.so.0") for f in lib), lib)
        self.assertFalse(any(f.endswith("/libdpsock.so") for f in lib), lib)
        self.assertTrue(any(f.endswith("/libdpsock-preload.so") for f in lib), lib)
        # Multi-Arch: same: nothing outside the architecture's own library folder
        self.assertEqual([f for f in lib if f.startswith(("/usr/bin/", "/usr/sbin/"))], [])
        dev = deb_files(self.debs["libdpsock-dev"])
        self.assertIn("/usr/include/dpsock.h", dev)
        self.assertIn("/usr/share/man/man3/libdpsock.3.gz", dev)
        self.assertTrue(any(f.endswith("/pkgconfig/libdpsock.pc") for f in dev), dev)
        self.assertTrue(any(f.endswith("/libdpsock.so") for f in dev), dev)

    def test_lintian_no_error(self):
        p = subprocess.run(["lintian", "--fail-on", "error", "--no-tag-display-limit",
                            *map(str, self.debs.values())],
                           capture_output=True, text=True, timeout=900)
        print("lintian:\n" + (p.stdout + p.stderr or "(nothing)"), flush=True)
        errors = [line for line in p.stdout.splitlines() if line.startswith("E:")]
        self.assertEqual(errors, [])
        # the preload library's two (overridden: debian/libdpsock0.lintian-overrides)
        self.assertNotIn("libdpsock-preload.so", p.stdout)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
