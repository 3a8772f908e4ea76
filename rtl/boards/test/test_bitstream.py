#!/usr/bin/env python3
"""Checks of the Vivado board flow that need no Vivado (run by `make lint`).

1. `bitstream.py litefury` without `vivado` on PATH: exit 3, says Vivado is not
   installed, what to install, and the exact command; builds nothing.
2. With a stand-in `vivado` on PATH (a script that records its arguments and writes the
   .bit file): the flow runs exactly that command and succeeds; a stand-in that fails
   makes the flow fail; one that writes no .bit makes it fail too.
3. constraints/litefury/contract.tcl (the Tcl reader the IP script uses) returns the same
   PCI ids, BAR0 size and MSI vector count as the generated Rust constants.
4. Every port of litefury_fasthsl_top has a pin in the XDC, and the XDC names no port
   the top does not have.
Python standard library only.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
BITSTREAM = ROOT / "rtl" / "boards" / "bitstream.py"
XDC = ROOT / "constraints" / "litefury" / "litefury_fasthsl.xdc"
TOP = ROOT / "rtl" / "boards" / "litefury" / "litefury_fasthsl_top.sv"
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def run_flow(path_dir, out_dir):
    env = dict(os.environ, PATH=str(path_dir), BITSTREAM_OUT=str(out_dir))
    return subprocess.run([sys.executable, str(BITSTREAM), "litefury"], env=env,
                          capture_output=True, text=True)


def expected_cmd(out):
    return ["-mode", "batch", "-nojournal", "-log", str(out / "vivado.log"),
            "-source", str(ROOT / "constraints" / "litefury" / "build.tcl"),
            "-tclargs", str(ROOT), str(out)]


def fake_vivado(bindir, record, write_bit, rc):
    script = bindir / "vivado"
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys, pathlib\n"
        f"pathlib.Path({str(record)!r}).write_text('\\n'.join(sys.argv[1:]))\n"
        + (f"pathlib.Path(sys.argv[-1], 'litefury_fasthsl_top.bit').write_text('bit')\n"
           if write_bit else "")
        + f"sys.exit({rc})\n")
    script.chmod(0o755)


with tempfile.TemporaryDirectory() as tmp:
    tmp = Path(tmp)
    empty = tmp / "empty"
    empty.mkdir()
    out_base = tmp / "out"
    out = out_base / "litefury"

    # 1. no vivado
    r = run_flow(empty, out_base)
    check(r.returncode == 3, f"no vivado: exit 3 (got {r.returncode})")
    check("not installed" in r.stderr and "Vivado ML Standard" in r.stderr,
          "no vivado: says Vivado is not installed and what to install")
    check("vivado " + " ".join(expected_cmd(out)) in r.stderr,
          "no vivado: prints the exact command it would run")
    check(not out.exists(), "no vivado: nothing built")

    # 2. stand-in vivado
    bindir = tmp / "bin"
    bindir.mkdir()
    record = tmp / "args.txt"
    fake_vivado(bindir, record, write_bit=True, rc=0)
    r = run_flow(bindir, out_base)
    check(r.returncode == 0, f"stand-in vivado: flow succeeds (exit {r.returncode}) {r.stderr.strip()}")
    check(record.exists() and record.read_text().split("\n") == expected_cmd(out),
          "stand-in vivado: called with exactly the documented command")
    fake_vivado(bindir, record, write_bit=False, rc=1)
    shutil.rmtree(out, ignore_errors=True)
    r = run_flow(bindir, out_base)
    check(r.returncode != 0 and "vivado failed" in r.stderr, "failing vivado: flow fails")
    fake_vivado(bindir, record, write_bit=False, rc=0)
    r = run_flow(bindir, out_base)
    check(r.returncode != 0 and "wrote no" in r.stderr, "vivado without a .bit: flow fails")

# 3. the Tcl contract reader against the generated Rust constants
gen = (ROOT / "host" / "contract" / "src" / "generated.rs").read_text()
names = ["PCI_VENDOR_ID", "PCI_DEVICE_ID", "BAR0_SIZE", "MSI_VECTORS"]
want = {}
for n in names:
    m = re.search(rf"pub const {n}: u64 = (0x[0-9a-fA-F_]+|[0-9_]+);", gen)
    check(m is not None, f"generated.rs has {n}")
    if m:
        want[n] = int(m.group(1).replace("_", ""), 0)
tclsh = shutil.which("tclsh")
if tclsh is None:
    print("note: tclsh not installed (Debian package tcl): constraints/litefury/contract.tcl "
          "not checked")
else:
    script = (f"source {{{ROOT / 'constraints' / 'litefury' / 'contract.tcl'}}}\n"
              + "".join(f"puts [fasthsl_contract_value {{{ROOT / 'host' / 'contract' / 'contract.toml'}}} {n}]\n"
                        for n in names))
    r = subprocess.run([tclsh], input=script, capture_output=True, text=True)
    got = r.stdout.split()
    check(r.returncode == 0 and len(got) == len(names), f"contract.tcl runs ({r.stderr.strip()})")
    for n, g in zip(names, got):
        check(n in want and int(g) == want[n], f"contract.tcl {n} = {g} (generated: {want.get(n)})")

# 4. XDC ports vs the top's ports
sv = TOP.read_text()
header = sv[sv.index("module litefury_fasthsl_top"):sv.index(");", sv.index(") ("))]
ports = {}
for m in re.finditer(r"(input|output)\s+logic\s*(\[(\d+):0\])?\s*(\w+)", header):
    width = int(m.group(3)) + 1 if m.group(3) else 1
    ports[m.group(4)] = width
check(len(ports) >= 9, f"top has its ports ({len(ports)})")
xdc = XDC.read_text()
pinned = set()
for m in re.finditer(r"PACKAGE_PIN\s+\w+\s+\[get_ports\s+\{?(\w+)(?:\[(\d+)\])?\}?\]", xdc):
    pinned.add((m.group(1), int(m.group(2)) if m.group(2) else None))
unknown = sorted({m.group(1) for m in re.finditer(r"get_ports\s+\{?(\w+)", xdc)} - set(ports))
check(not unknown, "XDC names only ports of the top" + (f" (unknown: {unknown})" if unknown else ""))
for p, w in ports.items():
    bits = [None] if w == 1 else list(range(w))
    missing = [b for b in bits if (p, b) not in pinned]
    check(not missing, f"XDC pins every bit of {p}" + (f" (missing {missing})" if missing else ""))

if failures:
    print(f"test_bitstream: {len(failures)} check(s) failed", file=sys.stderr)
    sys.exit(1)
print("test_bitstream: PASS")
