#!/usr/bin/env python3
"""Unit tests of synth.py's record rules (no tools needed; run by `make synth-check`):
the 10% comparison, the reason rule against the base revision, the merge of a run's rows
into the report, the blocks placed, the
placement seeds tried in turn, the slack histogram's spread, the source staging and
watched runs of the shared YoWASP runner, logic_depth's path estimate (--paths), the
seed sweep (--sweep), the parts placed alone (--alone) and fanout's load count on hand-made netlists, and docs/SYNTH.md's
Results table against the committed report."""

import json
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fanout  # noqa: E402
import logic_depth  # noqa: E402
import synth  # noqa: E402
import yowasp_run as yw  # noqa: E402


def row(luts=1000, ffs=500, fmax=None, reason="", block="nic", target="ecp5"):
    return {"block": block, "target": target, "luts": luts, "ffs": ffs, "brams": 0,
            "lutrams": 0, "dsps": 0, "fmax_mhz": fmax, "reason": reason}


class Compare(unittest.TestCase):
    def test_within_tolerance_passes(self):
        fails, notes = synth.compare([row()], [row(luts=1100, ffs=450)])
        self.assertEqual(fails, [])
        self.assertEqual(len(notes), 2)

    def test_bigger_fails(self):
        fails, _ = synth.compare([row()], [row(luts=1101)])
        self.assertEqual(len(fails), 1)
        self.assertIn("luts", fails[0])

    def test_slower_fails_faster_passes(self):
        self.assertEqual(len(synth.compare([row(fmax=50.0)], [row(fmax=44.9)])[0]), 1)
        self.assertEqual(synth.compare([row(fmax=50.0)], [row(fmax=80.0)])[0], [])

    def test_missing_row_fails(self):
        fails, _ = synth.compare([row()], [row(block="router_voq")])
        self.assertEqual(len(fails), 1)


class Reasons(unittest.TestCase):
    def check(self, base_rows, rows):
        with mock.patch.object(synth, "base_report", return_value=("0123456789ab", base_rows)):
            return synth.check_reasons(rows)

    def test_unmoved_needs_no_reason(self):
        self.assertEqual(self.check([row()], [row(luts=1050)]), [])

    def test_moved_without_reason_fails(self):
        self.assertEqual(len(self.check([row()], [row(luts=2000)])), 1)

    def test_moved_with_stale_reason_fails(self):
        self.assertEqual(len(self.check([row(reason="old")], [row(luts=2000, reason="old")])), 1)

    def test_moved_with_new_reason_passes(self):
        self.assertEqual(self.check([row(reason="old")], [row(luts=2000, reason="new")]), [])

    def test_new_row_passes(self):
        self.assertEqual(self.check([row()], [row(), row(block="router_voq")]), [])

    def test_no_base_skips(self):
        with mock.patch.object(synth, "base_report", return_value=(None, "no git")):
            self.assertEqual(synth.check_reasons([row(luts=9999)]), [])


class Merge(unittest.TestCase):
    def test_rows_not_run_are_kept_in_block_order(self):
        # node_pipe was written by another run since this one started: it stays
        old = [row(block="node_pipe", fmax=40.0), row(block="nic", reason="kept")]
        out, unexplained = synth.merge_rows(old, [row(block="router_fifo", luts=1010)], "")
        self.assertEqual([r["block"] for r in out], ["router_fifo", "nic", "node_pipe"])
        self.assertEqual(out[2]["fmax_mhz"], 40.0)
        self.assertEqual(out[1]["reason"], "kept")
        self.assertEqual(out[0]["reason"], "first measurement")
        self.assertEqual(unexplained, [])

    def test_reasons(self):
        old = [row(reason="old")]
        out, unexplained = synth.merge_rows(old, [row(luts=1050)], "")
        self.assertEqual((out[0]["reason"], unexplained), ("old", []))
        out, unexplained = synth.merge_rows(old, [row(luts=2000)], "why")
        self.assertEqual((out[0]["reason"], unexplained), ("why", []))
        out, unexplained = synth.merge_rows(old, [row(luts=2000)], "")
        self.assertEqual(out[0]["reason"], "")
        self.assertEqual(len(unexplained), 1)


class PlacedBlocks(unittest.TestCase):
    ALL = ["router_fifo", "router_voq", "nic", "node_fifo", "node"]

    def test_defaults(self):
        # the VOQ node is placed only on request; a check places the FIFO node
        self.assertEqual(synth.pnr_blocks(self.ALL, ["ecp5"], None, False, False),
                         ["router_fifo", "router_voq", "nic", "node_fifo"])
        self.assertEqual(synth.pnr_blocks(self.ALL, ["ecp5"], None, True, False),
                         ["router_fifo", "node_fifo"])
        self.assertEqual(synth.pnr_blocks(self.ALL, ["ecp5"], "node", False, False),
                         ["node"])
        self.assertEqual(synth.pnr_blocks(self.ALL, ["xilinx"], None, False, False), [])
        self.assertEqual(synth.pnr_blocks(self.ALL, ["ecp5"], None, False, True), [])

    def test_explicit_subset(self):
        self.assertEqual(synth.pnr_blocks(self.ALL, ["ecp5"], "router_fifo", True, False),
                         ["router_fifo"])

    def test_bad_choices_rejected(self):
        for blocks, pnr in ((self.ALL, "bogus"), (["nic"], "router_fifo")):
            with self.assertRaises(SystemExit, msg=pnr), \
                    mock.patch("sys.stderr"):
                synth.pnr_blocks(blocks, ["ecp5"], pnr, True, False)
        # a block without a P&R wrapper cannot be placed
        with self.assertRaises(SystemExit), mock.patch("sys.stderr"), \
                mock.patch.dict(synth.BLOCKS["nic"], {"wrap": None}):
            synth.pnr_blocks(self.ALL, ["ecp5"], "nic", True, False)
        with self.assertRaises(SystemExit), mock.patch("sys.stderr"):
            synth.pnr_blocks(self.ALL, ["ecp5"], "router_fifo", True, True)


class Seeds(unittest.TestCase):
    """place_and_route tries the block's seeds in order; a seed whose router2 run the
    watch stops is recorded as unrouted and the next one is tried."""

    def fake_run(self, stop_seeds):
        def run(cmd, cwd, logfile, what, watch=None, **_):
            cmd = [str(c) for c in cmd]
            if "--seed" not in cmd:
                return 1.0  # yosys
            seed = int(cmd[cmd.index("--seed") + 1])
            self.tried.append(seed)
            self.placers.append(cmd[cmd.index("--placer") + 1] if "--placer" in cmd else None)
            (Path(cwd) / "nextpnr.log").write_text(
                "Info:     iter=1 wires=9 overused=5 overuse=5 archfail=NA\n"
                if seed in stop_seeds else
                "Info:     iter=9 wires=9 overused=0 overuse=0 archfail=0\n")
            if seed in stop_seeds:
                raise yw.Stopped(watch and "stopped by the watch")
            (Path(cwd) / "report.json").write_text(json.dumps(
                {"fmax": {"$glbnet$clk_i": {"achieved": 10.0 + seed}}}))
            return 2.0
        return run

    def place(self, seeds, stop_seeds, override=None):
        self.tried, self.placers = [], []
        with tempfile.TemporaryDirectory() as t, \
                mock.patch.object(synth, "BUILD", Path(t)), \
                mock.patch.object(yw, "run", self.fake_run(stop_seeds)), \
                mock.patch.dict(synth.BLOCKS["nic"], {"pnr_seeds": seeds}), \
                mock.patch("sys.stdout"):
            res = synth.place_and_route("nic", override)
            logs = sorted(p.name for p in (Path(t) / "nic-ecp5-pnr").glob("nextpnr*.log"))
        return res, logs

    def test_first_routing_seed_kept(self):
        (fmax, _, _, _, pnr), logs = self.place([1, 2, 3], {1})
        self.assertEqual(self.tried, [1, 2])
        self.assertEqual(fmax, 12.0)
        self.assertEqual(pnr, {"seed": 2, "unrouted_seeds": [1], "spread": None})
        self.assertEqual(logs, ["nextpnr-seed1-unrouted.log", "nextpnr.log"])
        # the NIC's block names its placer, and every seed's run uses it
        self.assertEqual(self.placers, ["static", "static"])

    def test_seeds_given_replace_the_blocks(self):
        # --seeds: the given seeds, in the given order, instead of the block's list
        (fmax, _, _, _, pnr), _ = self.place([1, 2], {3}, override=[3, 5])
        self.assertEqual(self.tried, [3, 5])
        self.assertEqual(fmax, 15.0)
        self.assertEqual(pnr, {"seed": 5, "unrouted_seeds": [3], "spread": None})

    def test_bad_seeds_rejected(self):
        for bad in ["", "0", "1,x", "-2"]:
            with mock.patch.object(sys, "argv", ["synth.py", "--seeds", bad]), \
                    mock.patch("sys.stderr"), self.assertRaises(SystemExit) as e:
                synth.main()
            self.assertNotEqual(e.exception.code, 0, bad)

    def test_no_seed_routes(self):
        with self.assertRaises(yw.ToolError) as e:
            self.place([1, 2], {1, 2})
        self.assertIn("no placement seed routed", str(e.exception))
        self.assertEqual(self.tried, [1, 2])

    def test_router2_watch(self):
        with tempfile.TemporaryDirectory() as t:
            f = Path(t) / "nextpnr.log"
            watch = synth.router2_watch(f, max_iter=5, diverging=(3, 50))
            self.assertIsNone(watch(), "no log yet")
            f.write_text("Info: at initial placer iter 9, wirelen = 1\n"
                         "Info:     iter=4 wires=10 overused=7 overuse=7 archfail=NA\n"
                         "Info:     iter=5 wires=10 overused=3 overuse=3 archfail=NA\n")
            self.assertIsNone(watch(), "at the limit")
            with f.open("a") as g:
                g.write("Info:     iter=6 wires=10 overused=2 overuse=2 archfail=NA\n")
            self.assertEqual(watch(), "router2 did not converge: 2 overused wires after "
                                      "6 iterations")
            f.write_text("Info:     iter=2 wires=10 overused=900 overuse=9 archfail=NA\n")
            self.assertIsNone(watch(), "many overused wires, but early")
            f.write_text("Info:     iter=3 wires=10 overused=50 overuse=9 archfail=NA\n")
            self.assertIsNone(watch(), "at the overuse bound")
            f.write_text("Info:     iter=3 wires=10 overused=51 overuse=9 archfail=NA\n")
            self.assertEqual(watch(), "router2 did not converge: 51 overused wires after "
                                      "3 iterations")

    def test_router1_watch(self):
        row = ("Info:     {:6d} |    28960      66374 |  107   646 |    {:6d}|       1.88"
               "      60.00|\n")
        with tempfile.TemporaryDirectory() as t:
            f = Path(t) / "nextpnr.log"
            watch = synth.router1_watch(f, max_passes=2.0)
            self.assertIsNone(watch(), "no log yet")
            f.write_text("Info: Routing 1000 arcs.\n" + row.format(1000, 700))
            self.assertIsNone(watch(), "early")
            with f.open("a") as g:
                g.write(row.format(2000, 5))
            self.assertIsNone(watch(), "at the limit")
            with f.open("a") as g:
                g.write(row.format(2001, 5))
            self.assertEqual(watch(), "router1 did not converge: 5 of 1000 arcs left after "
                                      "2001 routings")
            f.write_text("Info: Routing 1000 arcs.\n" + row.format(2500, 0))
            self.assertIsNone(watch(), "finished: nothing left")

    def test_run_stops_on_watch(self):
        with tempfile.TemporaryDirectory() as t:
            t = Path(t)
            with self.assertRaises(yw.Stopped):
                yw.run(["sleep", "30"], t, t / "log", "sleep", watch=lambda: "enough",
                       poll_s=0.05)
            calls = []
            yw.run(["true"], t, t / "log", "true", watch=lambda: calls.append(1), poll_s=5)
            with self.assertRaises(yw.ToolError):
                yw.run(["false"], t, t / "log", "false", watch=lambda: None, poll_s=5)


class SeedSweep(unittest.TestCase):
    """--sweep: one netlist at several seeds, each in its own directory; a seed that does
    not route is listed, not fatal; the median is over the seeds that routed."""

    def fake_pnr(self, calls):
        def pnr(block, seeds, speed, out_suffix=""):
            calls.append((block, seeds, speed, out_suffix))
            seed = seeds[0]
            if seed == 3:
                raise yw.ToolError("nic: no placement seed routed ([3])")
            crit = {"delay_ns": 20.0 + seed, "routing_ns": 17.0, "from": "a", "to": "b"}
            spread = {"endpoints": [9, 9], "failing": [5, 5], "within_20pct": [seed, seed + 1]}
            return {1: 44.3, 2: 44.7, 4: 40.1, 5: 46.1}[seed], crit, {}, 1.0, \
                {"seed": seed, "unrouted_seeds": [], "spread": spread}
        return pnr

    def test_rows_median_and_own_directories(self):
        calls = []
        with tempfile.TemporaryDirectory() as t, \
                mock.patch.object(synth, "BUILD", Path(t)), \
                mock.patch.object(synth, "place_and_route", self.fake_pnr(calls)), \
                mock.patch("builtins.print") as out:
            rows = synth.seed_sweep("nic", [1, 2, 3, 4, 5], "6", 2)
            written = json.loads((Path(t) / "nic-sweep.json").read_text())
        self.assertEqual(written, rows)
        self.assertEqual([r["fmax_mhz"] for r in rows], [44.3, 44.7, None, 40.1, 46.1])
        self.assertIn("did not route", " ".join(str(a) for c in out.call_args_list
                                                for a in c.args))
        self.assertIn("no placement seed routed", rows[2]["error"])
        self.assertEqual(rows[0]["within_20pct"], [1, 2])
        self.assertEqual(sorted(c[3] for c in calls),
                         ["-sweep1", "-sweep2", "-sweep3", "-sweep4", "-sweep5"])
        self.assertTrue(all(c[1] == [int(c[3][6:])] for c in calls))
        summary = out.call_args_list[-1].args[0]
        # four routed: 40.1 44.3 44.7 46.1, median (44.3 + 44.7) / 2
        self.assertIn("4 of 5 seeds routed: min 40.1, median 44.5, max 46.1 MHz", summary)

    def test_bad_sweep_arguments_are_refused(self):
        for argv in (["--sweep", "bogus"], ["--sweep", "nic", "--seeds", "1,1"],
                     ["--sweep", "nic", "--speed", "9"]):
            with self.assertRaises(SystemExit), mock.patch("sys.stderr"), \
                    mock.patch.object(sys, "argv", ["synth.py"] + argv):
                synth.main()


class Alone(unittest.TestCase):
    """--alone: a block's parts placed one at a time behind a generated wrapper."""

    ROWS = [
        {"instance": "top", "module": "top", "luts": 50},
        {"instance": "top.u_a", "module": "a_mod", "luts": 600},
        {"instance": "top.u_a.u_x", "module": "x_mod", "luts": 500},
        {"instance": "top.u_a.u_xy", "module": "x_mod", "luts": 7},
        {"instance": "top.u_b", "module": "b_mod", "luts": 999},
    ]

    def test_subtree_sizes_and_default_parts(self):
        sizes = synth.subtree_luts(self.ROWS, "top")
        # u_a counts its children, and u_x's prefix does not take in its sibling u_xy
        self.assertEqual(sizes, {"u_a": 1107, "u_a.u_x": 500, "u_a.u_xy": 7, "u_b": 999})
        self.assertEqual(synth.alone_default(self.ROWS, "top"), ["u_a"])
        self.assertEqual(synth.alone_default(self.ROWS, "top", 500), ["u_a", "u_a.u_x", "u_b"])
        self.assertEqual(synth.alone_module(self.ROWS, "top", "u_a.u_x"), "x_mod$top.u_a.u_x")
        with self.assertRaises(yw.ToolError):
            synth.alone_module(self.ROWS, "top", "u_c")

    def test_portlist_parsed(self):
        text = ("module m$top.u_a\ninput [0:0] clk_i\ninput [511:0] base_i\n"
                "output [7:0] seq_o\ninout [3:0] pad_io\nendmodule\n")
        self.assertEqual(synth.parse_portlist(text), [
            ("input", 1, "clk_i"), ("input", 512, "base_i"), ("output", 8, "seq_o"),
            ("inout", 4, "pad_io")])

    def test_wrapper_registers_every_port_but_clock_and_reset(self):
        ports = [("input", 1, "clk_i"), ("input", 1, "rst_ni"), ("input", 3, "a_i"),
                 ("input", 1, "b_i"), ("output", 1, "y_o")]
        v = synth.alone_wrapper(ports, "nic.u_a")
        self.assertIn(".clk_i(clk_i)", v)
        self.assertIn(".rst_ni(rst_ni)", v)
        self.assertIn(".a_i(core_in[2:0])", v)
        self.assertIn(".b_i(core_in[3:3])", v)
        self.assertIn(".y_o(core_out[0:0])", v)
        # the output chain's two-bit minimum: its unused bit is tied off, not left floating
        self.assertIn("#(.IN_W(4), .OUT_W(2))", v)
        self.assertIn("assign core_out[1:1] = '0;", v)
        self.assertIn(f"{synth.ALONE_CORE} u_core", v)
        for bad in ([("input", 1, "clk_i"), ("inout", 2, "p_io")], [("input", 1, "a_i")]):
            with self.assertRaises(yw.ToolError):
                synth.alone_wrapper(bad, "nic.u_a")

    def test_parts_seeds_medians_and_own_directories(self):
        calls = []

        def pnr(block, seeds, speed, out_suffix="", alone=None):
            self.assertEqual(alone[1], {"u_a": "a_mod$top.u_a", "u_b": "b_mod$top.u_b"}[alone[0]])
            alone = alone[0]
            calls.append((alone, seeds[0], out_suffix))
            if (alone, seeds[0]) == ("u_b", 2):
                raise yw.ToolError("nic.u_b: no placement seed routed ([2])")
            crit = {"delay_ns": 10.0, "logic_levels": 9, "routing_ns": 8.0,
                    "from": "q", "to": "r"}
            fmax = {("u_a", 1): 80.0, ("u_a", 2): 90.0, ("u_b", 1): 60.0}[(alone, seeds[0])]
            return fmax, crit, {"TRELLIS_COMB": [123, 83640]}, 1.0, {"seed": seeds[0]}

        with tempfile.TemporaryDirectory() as t, \
                mock.patch.object(synth, "BUILD", Path(t)), \
                mock.patch.object(synth, "BLOCKS", {"nic": {"top": "top"}}), \
                mock.patch.object(synth, "place_and_route", pnr), \
                mock.patch("builtins.print") as out:
            parts = synth.alone_run("nic", self.ROWS, ["u_a", "u_b"], [1, 2], "6", 2)
            written = json.loads((Path(t) / "nic-alone.json").read_text())
        self.assertEqual(written, parts)
        self.assertEqual([(p["instance"], p["luts"], p["median_mhz"]) for p in parts],
                         [("u_a", 1107, 85.0), ("u_b", 999, 60.0)])
        self.assertIn("no placement seed routed", parts[1]["seeds"][1]["error"])
        self.assertEqual(sorted(c[2] for c in calls),
                         ["-alone-u_a-seed1", "-alone-u_a-seed2", "-alone-u_b-seed1",
                          "-alone-u_b-seed2"])
        printed = "\n".join(str(a) for c in out.call_args_list for a in c.args)
        self.assertIn("80.0 / 90.0", printed)
        self.assertIn("60.0 / -", printed)

    def test_bad_alone_arguments_are_refused(self):
        for argv in (["--alone", "bogus"], ["--alone", "nic", "--seeds", "1,1"],
                     ["--instances", "u_a"], ["--alone", "nic", "--instances", "u_c"],
                     ["--alone", "nic", "--instances", "u_a,u_a"]):
            with self.assertRaises(SystemExit), mock.patch("sys.stderr"), \
                    mock.patch.object(synth, "check_tools", lambda pnr: None), \
                    mock.patch.object(yw, "warm_up", lambda names: None), \
                    mock.patch.object(synth, "BLOCKS", {"nic": {"top": "top", "wrap": "w"}}), \
                    mock.patch.object(synth, "breakdown", lambda b: (self.ROWS, None)), \
                    mock.patch.object(synth, "alone_run", self.fail), \
                    mock.patch.object(sys, "argv", ["synth.py"] + argv):
                synth.main()


class SlackSpread(unittest.TestCase):
    # nextpnr prints a histogram after placement and one after routing: the last counts
    HIST = """Info: Slack histogram:
Info:  legend: * represents 10 endpoint(s)
Info:          + represents [1,10) endpoint(s)
Info: [{first}, -10000) |+
Info: [-10000,  -8000) |**+
Info: [ -8000,  -6000) |*****
Info: [ -6000,  -4000) |***
Info: [ -4000,  -2000) |*
Info: [ -2000,      0) |**
Info: [     0,   2000) |****+
"""

    def spread(self, near=0.20):
        placed = self.HIST.format(first=-30000).replace("|**+", "|*******")
        routed = self.HIST.format(first=-12000)
        return synth.slack_spread("Info: placed\n" + placed + "Info: routed\n" + routed,
                                  target_mhz=125, near=near)

    def test_counts_from_the_last_histogram(self):
        # worst path 8 + 12 = 20 ns; within 20%: slack below -8000 ps, the first two bars
        self.assertEqual(self.spread(), {"endpoints": [173, 197], "failing": [132, 148],
                                         "within_20pct": [22, 38]})

    def test_a_bar_across_the_limit_counts_in_the_high_bound_only(self):
        # within 25%: slack below -7000 ps, inside the third bar
        self.assertEqual(self.spread(near=0.25)["within_25pct"], [22, 88])

    def test_no_histogram(self):
        self.assertIsNone(synth.slack_spread("Info: Program finished normally.\n"))


class Breakdown(unittest.TestCase):
    def test_instances_named_and_sorted(self):
        stat = {"modules": {
            "\\ddc_nic": {"num_cells_by_type": {"LUT4": 10, "TRELLIS_FF": 3}},
            "\\fifo_sync$ddc_nic.u_rx.u_buf": {"num_cells_by_type": {
                "LUT4": 20, "CCU2C": 6, "TRELLIS_DPR16X4": 4}},
            "\\crc32_d64$ddc_nic.u_tx.u_crc": {"num_cells_by_type": {"LUT4": 30}},
        }}
        rows = synth.breakdown_rows(stat)
        self.assertEqual([r["instance"] for r in rows],
                         ["ddc_nic.u_rx.u_buf", "ddc_nic.u_tx.u_crc", "ddc_nic"])
        self.assertEqual(rows[0]["module"], "fifo_sync")
        self.assertEqual((rows[0]["luts"], rows[0]["lutrams"]), (32, 4))
        self.assertEqual(rows[2]["ffs"], 3)


class CriticalPath(unittest.TestCase):
    @staticmethod
    def step(typ, delay, net="", frm="", to=""):
        return {"type": typ, "delay": delay, "net": net,
                "from": {"cell": frm}, "to": {"cell": to}}

    def test_ends_named_by_their_cells_or_their_nets(self):
        path = [
            self.step("clk-to-q", 0.5, frm="$auto$ff$123", to="$auto$ff$123"),
            self.step("routing", 2.0, net="u_core.u_tx.desc_q[3]"),
            self.step("logic", 0.4, net="u_core.u_tx.pick_LUT4_Z"),
            self.step("routing", 1.5, net="u_core.u_rx.key_mem.0.19"),
            self.step("setup", 0.1, to="u_core.u_rx.hit_q_TRELLIS_FF_Q"),
        ]
        c = synth.summarize_path(path)
        self.assertEqual((c["delay_ns"], c["logic_ns"], c["routing_ns"]), (4.5, 1.0, 3.5))
        self.assertEqual(c["logic_levels"], 1)
        self.assertEqual(c["via"], ["u_tx.desc_q", "u_tx.pick", "u_rx.key_mem.0.19"])
        # the launching flop has no name of the core: the net it drives names it
        self.assertEqual(c["from"], "u_tx.desc_q")
        self.assertEqual(c["to"], "u_rx.hit_q")
        self.assertIsNone(synth.summarize_path([])["from"])


def netlist(cells, netnames, ports=None):
    """A one-module Yosys JSON netlist, as `write_json` lays it out."""
    return {"modules": {"top": {"attributes": {"top": 1}, "ports": ports or {},
                                "cells": cells, "netnames": netnames}}}


def cell(typ, src, **conns):
    return {"type": typ, "attributes": {"src": src}, "parameters": {},
            "connections": conns}


def ff(d, q):
    return {"type": "$adff", "attributes": {}, "parameters": {},
            "connections": {"D": d, "Q": q, "CLK": [1], "ARST": [2]}}


class LogicDepth(unittest.TestCase):
    def test_path_reads_as_rtl_lines_with_costs(self):
        # r0 -> mux (0.5) -> 2-bit compare (1) -> and with r2 (0.5) -> r1; r2 -> r1 is short
        nl = netlist({
            "r0": ff([20, 21], [3, 4]), "r2": ff([22], [5]),
            "m": cell("$mux", "a.sv:10", A=[3, 4], B=[5, 5], S=[5], Y=[6, 7]),
            "e": cell("$eq", "a.sv:11", A=[6, 7], B=["0", "1"], Y=[8]),
            "l": cell("$logic_and", "a.sv:12", A=[8], B=[5], Y=[9]),
            "r1": ff([9], [10]),
        }, {"r0": {"bits": [3, 4]}, "r2": {"bits": [5]}, "r1": {"bits": [10]}})
        ends = logic_depth.analyse(nl)
        depth, start, end, path = ends[0]
        self.assertEqual((depth, start, end), (2.0, "r0", "r1"))
        self.assertEqual(path, [(0.5, "$mux", "a.sv:10"), (1.5, "$eq", "a.sv:11"),
                                (2.0, "$logic_and", "a.sv:12")])
        # the other endpoints (D inputs fed by constants-free nets) start at 0
        self.assertTrue(all(d == 0.0 for d, *_ in ends[1:]))

    def test_families_count_bits_and_keep_the_deepest(self):
        nl = netlist({
            "r0": ff([30], [3]),
            "a": cell("$and", "b.sv:1", A=[3, 3], B=[3, 3], Y=[4, 5]),
            "b": cell("$not", "b.sv:2", A=[4], Y=[6]),
            "o": ff([6, 5], [7, 8]),
        }, {"r0": {"bits": [3]}, "o": {"bits": [7, 8]}})
        fams = logic_depth.families(logic_depth.analyse(nl), top=5)
        deep = [f for f in fams if f[1] == "r0"]
        self.assertEqual(len(deep), 1)
        depth, start, end, bits, lines = deep[0]
        self.assertEqual((depth, end, bits), (0.5, "o", 2))
        self.assertEqual([s for _, _, s in lines], ["b.sv:1", "b.sv:2"])

    def test_outputs_are_endpoints_and_deep_chains_do_not_recurse(self):
        n = 5000   # deeper than Python's recursion limit
        cells = {"r": ff([2], [3])}
        for i in range(n):
            cells[f"c{i}"] = cell("$and", f"c.sv:{i}", A=[3 + i], B=[3], Y=[4 + i])
        nl = netlist(cells, {"r": {"bits": [3]}},
                     {"y": {"direction": "output", "bits": [3 + n]}})
        ends = logic_depth.analyse(nl)
        self.assertEqual(ends[0][:3], (0.5 * n, "r", "y"))

    def test_synchronous_reads_start_late_block_ram_latest(self):
        # the same not -> flop path behind a deep and a shallow memory's synchronous read
        def mem(size, rd, addr):
            c = cell("$mem_v2", "m.sv:1", RD_DATA=[rd], RD_ADDR=[addr], WR_DATA=[],
                     WR_ADDR=[], WR_EN=[])
            c["parameters"] = {"SIZE": size, "RD_CLK_ENABLE": 1, "MEMID": f"m{size}"}
            return c
        nl = netlist({
            "a": ff([30], [3]),
            "deep": mem(256, 4, 3), "small": mem(16, 5, 3),
            "nd": cell("$not", "m.sv:2", A=[4], Y=[6]),
            "ns": cell("$and", "m.sv:3", A=[5], B=[5], Y=[7]),
            "od": ff([6], [8]), "os": ff([7], [9]),
        }, {"a": {"bits": [3]}, "rd_deep": {"bits": [4]}, "rd_small": {"bits": [5]},
            "od": {"bits": [8]}, "os": {"bits": [9]}})
        got = {e: (d, s) for d, s, e, _ in logic_depth.analyse(nl)}
        self.assertEqual(got["od"], (logic_depth.BRAM_CLK_TO_Q, "rd_deep"))
        self.assertEqual(got["os"], (logic_depth.LUTRAM_SYNC_READ + 0.5, "rd_small"))
        self.assertGreater(logic_depth.BRAM_CLK_TO_Q, logic_depth.LUTRAM_SYNC_READ + 0.5)

    def test_combinational_loop_terminates(self):
        nl = netlist({
            "x": cell("$and", "l.sv:1", A=[3], B=[4], Y=[4]),
            "r": ff([4], [3]),
        }, {"r": {"bits": [3]}})
        ends = logic_depth.analyse(nl)
        self.assertEqual(ends[0][1], "r")



class Staging(unittest.TestCase):
    def test_bare_names_and_key(self):
        with tempfile.TemporaryDirectory() as t:
            t = Path(t)
            lib, job = t / "lib", t / "job"
            lib.mkdir()
            (lib / "a.sv").write_text("module a; endmodule\n")
            (t / "top.sv").write_text("module top; a u(); endmodule\n")
            names = yw.stage(job, [t / "top.sv"], [lib])
            self.assertEqual(names, ["top.sv"])
            self.assertEqual(sorted(p.name for p in job.glob("*.sv")), ["a.sv", "top.sv"])
            k1 = yw.input_key(job, [["yosys", "x.ys"]])
            self.assertEqual(k1, yw.input_key(job, [["yosys", "x.ys"]]))
            self.assertNotEqual(k1, yw.input_key(job, [["yosys", "y.ys"]]))
            (lib / "a.sv").write_text("module a; logic x; endmodule\n")
            yw.stage(job, [t / "top.sv"], [lib])
            self.assertNotEqual(k1, yw.input_key(job, [["yosys", "x.ys"]]))
            (lib / "a.sv").unlink()
            yw.stage(job, [t / "top.sv"], [lib])
            self.assertFalse((job / "a.sv").exists(), "a stale copy stayed in the job dir")
            yw.mark_built(job, k1)
            self.assertTrue(yw.is_cached(job, k1, []))
            self.assertFalse(yw.is_cached(job, k1, ["missing.json"]))

    def test_duplicate_library_names_rejected(self):
        with tempfile.TemporaryDirectory() as t:
            t = Path(t)
            for d in ("l1", "l2"):
                (t / d).mkdir()
                (t / d / "x.sv").write_text(f"// {d}\n")
            (t / "top.sv").write_text("\n")
            with self.assertRaises(yw.ToolError):
                yw.stage(t / "job", [t / "top.sv"], [t / "l1", t / "l2"])


def mapped_cell(typ, src, inputs, outputs):
    """A mapped cell of a hand-made synth_ecp5 netlist: {pin: bit} both ways."""
    conns = {**{p: [b] for p, b in inputs.items()}, **{p: [b] for p, b in outputs.items()}}
    dirs = {**{p: "input" for p in inputs}, **{p: "output" for p in outputs}}
    return {"type": typ, "attributes": {"src": src + "|/share/lattice/cells_map_trellis.v:1"},
            "connections": conns, "port_directions": dirs}


class Fanout(unittest.TestCase):
    """A flop (a.sv:1) drives a LUT whose output enables five flops (b.sv:2) and feeds a
    sixth's data (c.sv:3) through a second LUT; everything is clocked by bit 1."""

    def netlist(self):
        cells = {"src_ff": mapped_cell("TRELLIS_FF", "a.sv:1", {"CLK": 1, "DI": 9}, {"Q": 2}),
                 "lut": mapped_cell("LUT4", "?", {"A": 2, "B": 9}, {"Z": 3}),
                 "lut2": mapped_cell("LUT4", "?", {"A": 3}, {"Z": 4}),
                 "d_ff": mapped_cell("TRELLIS_FF", "c.sv:3", {"CLK": 1, "DI": 4}, {"Q": 5})}
        for i in range(5):
            cells[f"ce_ff{i}"] = mapped_cell("TRELLIS_FF", "b.sv:2",
                                             {"CLK": 1, "CE": 3, "DI": 9}, {"Q": 10 + i})
        doc = {"modules": {"top": {"cells": cells, "netnames": {
            "clk": {"bits": [1]}, "en_q": {"bits": [2]}, "x": {"bits": [9]}}}}}
        return fanout.Netlist(doc)

    def test_clock_pins_do_not_count(self):
        loads = dict((b, n) for n, b in self.netlist().top_nets(10))
        self.assertNotIn(1, loads)
        self.assertEqual(loads[3], 6)  # five CE and the second LUT
        self.assertEqual(loads[9], 7)  # five DI, the LUT and the source flop

    def test_logic_net_named_by_rtl_around_it(self):
        rows = {r["loads"]: r for r in fanout.report(self.netlist(), 10, depth=4)}
        row = rows[6]
        self.assertEqual(row["driver"], "LUT4")
        self.assertEqual(row["from"], {"TRELLIS_FF a.sv:1": 1, "port x": 1})
        self.assertEqual(row["reaches"], {"TRELLIS_FF.CE b.sv:2": 5, "TRELLIS_FF.DI c.sv:3": 1})

    def test_flop_driven_net(self):
        rows = fanout.report(self.netlist(), 10, depth=4)
        flop = [r for r in rows if r["net"] == "en_q"][0]
        self.assertEqual(flop["driver"], "TRELLIS_FF a.sv:1")
        self.assertEqual(flop["from"], {})

    def test_missing_netlist_is_a_clear_error(self):
        with mock.patch("sys.stderr"), self.assertRaises(SystemExit) as e:
            fanout.main(["/nonexistent/wrap.json"])
        self.assertEqual(e.exception.code, 2)


class DocTable(unittest.TestCase):
    """docs/SYNTH.md's Results table is written by hand beside the report it summarizes:
    every number in it must be the report's, so a row updated in one and not the other
    fails here (session 33 found the pipelined rows a session behind)."""

    @staticmethod
    def doc_rows(text):
        body = text.split("\n## Results\n", 1)[1]
        rows = {}
        for line in body.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != 8 or cells[0] in ("block", "---"):
                if rows:
                    break   # the first table under Results ends here
                continue
            # "52,237 (for area)" -> 52237, "**41.0**" -> 41.0, "-" -> None
            num = [c.split(" (")[0].replace(",", "").strip("*") for c in cells[2:]]
            rows[(cells[0], cells[1])] = (
                [int(n) for n in num[:5]], None if num[5] == "-" else float(num[5]))
        return rows

    def test_results_table_matches_report(self):
        doc = self.doc_rows((synth.ROOT / "docs" / "SYNTH.md").read_text())
        report = json.loads(synth.REPORT.read_text())
        self.assertEqual(set(doc), {(r["block"], r["target"]) for r in report})
        for r in report:
            ints, fmax = doc[(r["block"], r["target"])]
            want = [r["luts"], r["ffs"], r["brams"], r["lutrams"], r["dsps"]]
            self.assertEqual(ints, want,
                             f"{r['block']}/{r['target']}: LUTs, FFs, BRAM, LUTRAM, DSP")
            self.assertEqual(fmax, None if r["fmax_mhz"] is None else round(r["fmax_mhz"], 1),
                             f"{r['block']}/{r['target']}: Fmax")

    def test_parser_reads_annotated_bold_and_empty_cells(self):
        table = ("x\n## Results\n\n| block | target | LUTs | FFs | BRAM | LUTRAM | DSP | Fmax |\n"
                 "|---|---|---:|---:|---:|---:|---:|---:|\n"
                 "| nic | ecp5 | 33,172 (for area) | 14,728 | 6 | 490 | 1 | **41.1** |\n"
                 "| nic | xilinx | 21,175 | 14,669 | 2 | 322 | 1 | - |\n\nmore | text |\n")
        self.assertEqual(self.doc_rows(table), {
            ("nic", "ecp5"): ([33172, 14728, 6, 490, 1], 41.1),
            ("nic", "xilinx"): ([21175, 14669, 2, 322, 1], None)})


if __name__ == "__main__":
    unittest.main()
