"""Vivado flow for `make bitstream BOARD=<board>` on Xilinx boards (rtl/boards/bitstream.py).

Runs the board's project-less Tcl build script (constraints/<board>/build.tcl) in batch
mode: the script creates the vendor IP from host/contract/contract.toml, reads the RTL
and constraints, synthesizes, places, routes, checks timing and writes the bitstream.
Without `vivado` on PATH it builds nothing and says what to install and the exact
command it would have run (exit 3). Checked by rtl/boards/test/test_bitstream.py
(`make lint`). Python standard library only.
"""

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

# The release the scripts are written for (XDMA 4.1). Not run on this machine: no Vivado.
VIVADO_VERSION = "2023.2"


def out_dir(root, name):
    # BITSTREAM_OUT lets the test run the flow (with a stand-in vivado) elsewhere
    base = Path(os.environ.get("BITSTREAM_OUT", root / "target" / "bitstream"))
    return base / name


def command(root, name, b):
    out = out_dir(root, name)
    return ["vivado", "-mode", "batch", "-nojournal", "-log", str(out / "vivado.log"),
            "-source", str(b["build_tcl"]), "-tclargs", str(root), str(out)]


def run(root, name, b):
    cmd = command(root, name, b)
    shown = " ".join(shlex.quote(c) for c in cmd)
    if shutil.which("vivado") is None:
        print(f"bitstream: error: board {name} ({b['what']}) is built with AMD Vivado, "
              f"which is not installed (no `vivado` on PATH); nothing was built.\n"
              f"  Install Vivado ML Standard {VIVADO_VERSION} (no licence fee; it covers the "
              f"{b['part']} and includes the XDMA PCIe IP) from "
              f"https://www.xilinx.com/support/download.html,\n"
              f"  then `source <install dir>/Vivado/{VIVADO_VERSION}/settings64.sh` and run "
              f"`make bitstream BOARD={name}` again. It runs:\n"
              f"    {shown}", file=sys.stderr)
        return 3
    out = out_dir(root, name)
    out.mkdir(parents=True, exist_ok=True)
    print(f"[bitstream] {name}: {shown}", flush=True)
    rc = subprocess.run(cmd, cwd=out).returncode
    if rc != 0:
        print(f"bitstream: error: vivado failed (exit {rc}); log: {out / 'vivado.log'}, "
              f"timing: {out / 'timing.rpt'}", file=sys.stderr)
        return rc
    bit = out / f"{b['top']}.bit"
    if not bit.exists():
        print(f"bitstream: error: vivado finished but wrote no {bit}", file=sys.stderr)
        return 1
    print(f"[bitstream] {name}: wrote {bit} (and .bin/.mcs for the SPI flash); "
          f"load over JTAG: openFPGALoader -c <cable> {bit} (docs/BOARDS.md)", flush=True)
    return 0
