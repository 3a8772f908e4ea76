#!/usr/bin/env python3
"""Placement-based replication of high-fanout drivers, between nextpnr-ecp5's placement
and its routing.

On the placed NIC, routing is most of every critical path, and the longest wires are the
nets of a flop or LUT with hundreds of loads spread over the whole chip (rtl/synth/fanout.py
lists them). nextpnr neither buffers nor copies a driver. Vivado's placer does
(MAX_FANOUT, physical optimisation); this script does the same between two runs of
nextpnr, on nextpnr's own placed design:

  1. nextpnr packs and places the netlist: `--no-route --write placed.json`;
  2. a flop (TRELLIS_FF) or a LUT (TRELLIS_COMB in LOGIC mode) whose net has more than
     --max-fanout loads spread over at least --min-span tiles (x + y of their bounding
     box) gets copies: its loads are cut into compact groups (median cuts along the
     longer side), the original keeps the group nearest to it, and each other group gets
     a copy placed in the free slice nearest the group's centre;
  3. nextpnr reads the result and routes it: every cell, copies included, is fixed
     where it stands.

The design is placed once: copies cut from one placement and the netlist placed again
from scratch do not help, since the new placement scatters each group again (session 22,
docs/SYNTH.md: four such netlists did not route).

A copy is the same cell (type, parameters, every input net), so it computes the same
value in every cycle: the logic does not change, only which wire carries it. A flop whose
data came from the LUT of its own slice (DI) takes it on M in the copy (SD=0), the same
value through general routing. Rules of the slice and tile kept:
  - a copy goes into an empty slice of a tile without distributed RAM; a flop copy only
    into a tile whose flops all have its clock, set/reset signal and their modes (the
    tile shares them);
  - loads on pins a slice shares (CE, M) stay together on one driver per slice;
  - left alone: nets into clock and set/reset pins (the clock and reset trees), nets
    into dedicated paths (a flop's DI from its LUT, wide-mux, carry and RAM write
    inputs), and the top ports.

  rtl/synth/replicate.py placed.json rep.json --max-fanout 32
"""

import argparse
import collections
import json
import re
import sys
from pathlib import Path

# Nets into these pins are the clock and reset trees, or dedicated wires inside a slice.
FIXED_PINS = {"CLK", "LSR", "WCK", "CLKA", "CLKB", "DI", "FXA", "FXB", "FCI", "DI0", "DI1",
              "WD", "WD0", "WD1", "WAD0", "WAD1", "WAD2", "WAD3", "WRE"}
# One value per slice: its two flops' clock enable, and M (a flop's data or a mux select).
SLICE_PINS = {"CE", "M"}
SLICE_BEL = re.compile(r"X(\d+)/Y(\d+)/SLICE([A-D])\.")
RAM_MODES = {"DPRAM", "RAMW_BLOCK"}
STRENGTH_FIXED = format(4, "032b")  # nextpnr's PlaceStrength: no placer moves it


def top_module(doc):
    return max(doc["modules"].values(), key=lambda m: len(m.get("cells", {})))


def bel_positions(placed):
    """{cell name: (x, y)} from nextpnr's --write JSON (its NEXTPNR_BEL attributes)."""
    pos = {}
    for name, cell in top_module(placed).get("cells", {}).items():
        m = re.match(r"X(\d+)/Y(\d+)/", cell.get("attributes", {}).get("NEXTPNR_BEL", ""))
        if m:
            pos[name] = (int(m.group(1)), int(m.group(2)))
    return pos


def cut(loads, max_fanout):
    """Median cuts along the longer side until every group has at most max_fanout loads."""
    if len(loads) <= max_fanout:
        return [loads]
    xs = [p[0] for _, p in loads]
    ys = [p[1] for _, p in loads]
    axis = 0 if max(xs) - min(xs) >= max(ys) - min(ys) else 1
    loads = sorted(loads, key=lambda lp: (lp[1][axis], lp[1][1 - axis], lp[0]))
    half = len(loads) // 2
    return cut(loads[:half], max_fanout) + cut(loads[half:], max_fanout)


def centre(group):
    return (sum(p[0] for _, p in group) / len(group), sum(p[1] for _, p in group) / len(group))


def control_set(cell):
    """What the flops of one tile share: clock and set/reset nets and their modes."""
    c, p = cell["connections"], cell.get("parameters", {})
    return (tuple(c.get("CLK", [])), tuple(c.get("LSR", [])), p.get("CLKMUX"), p.get("LSRMUX"),
            p.get("SRMODE"))


class Slices:
    """The free slices of the placed design and what each tile's flops share."""

    def __init__(self, cells):
        self.used, self.tiles, self.ram = set(), collections.defaultdict(set), set()
        seen = set()
        for cell in cells.values():
            m = SLICE_BEL.match(cell.get("attributes", {}).get("NEXTPNR_BEL", ""))
            if not m:
                continue
            x, y, s = int(m.group(1)), int(m.group(2)), m.group(3)
            seen.add((x, y))
            self.used.add((x, y, s))
            if cell["type"] == "TRELLIS_FF":
                self.tiles[(x, y)].add(control_set(cell))
            if cell["type"] == "TRELLIS_RAMW" or cell.get("parameters", {}).get("MODE") in RAM_MODES:
                self.ram.add((x, y))
        # Logic tiles are every column that holds a slice crossed with every such row: the
        # design is spread over nearly all of them, and the few it left empty are free.
        cols, rows = {x for x, _ in seen}, {y for _, y in seen}
        self.free = sorted((x, y, s) for x in cols for y in rows for s in "ABCD"
                           if (x, y) not in self.ram and (x, y, s) not in self.used)

    def take(self, near, ctrl=None):
        """The free slice nearest `near` (for a flop: in a tile whose flops share ctrl)."""
        ok = [f for f in self.free if ctrl is None or self.tiles[(f[0], f[1])] <= {ctrl}]
        if not ok:
            return None
        best = min(ok, key=lambda f: (abs(f[0] - near[0]) + abs(f[1] - near[1]), f))
        self.free.remove(best)
        if ctrl is not None:
            self.tiles[(best[0], best[1])].add(ctrl)
        return best


def replicable(cell, pin):
    if cell["type"] == "TRELLIS_FF":
        return pin == "Q"
    return (cell["type"] == "TRELLIS_COMB" and pin == "F"
            and cell.get("parameters", {}).get("MODE", "LOGIC") == "LOGIC")


def replicate(doc, max_fanout=32, min_span=20):
    """Adds placed copies to `doc` (nextpnr's placed JSON) in place. Returns one row per
    replicated net: driver, type, RTL line, loads, span, groups."""
    if max_fanout < 1:
        raise ValueError("max_fanout must be at least 1")
    top = top_module(doc)
    cells = top["cells"]
    pos = bel_positions(doc)
    slices = Slices(cells)
    port_bits = {b for p in top.get("ports", {}).values() for b in p["bits"]
                 if isinstance(b, int)}
    driver, loads = {}, collections.defaultdict(list)
    for name, cell in cells.items():
        for pin, bits in cell["connections"].items():
            for b in bits:
                if not isinstance(b, int):
                    continue
                if cell["port_directions"].get(pin) == "output":
                    driver[b] = (name, pin)
                else:
                    loads[b].append((name, pin))
    next_bit = max(list(driver) + list(port_bits) + [1]) + 1
    # Every cell stays where it is: nextpnr's annealer, given the design back, would move
    # the LUTs of a wide mux apart (the reloaded design no longer ties them into one slice).
    for cell in cells.values():
        if "NEXTPNR_BEL" in cell.get("attributes", {}):
            cell["attributes"]["BEL_STRENGTH"] = STRENGTH_FIXED

    def slice_of(name):
        m = SLICE_BEL.match(cells[name].get("attributes", {}).get("NEXTPNR_BEL", ""))
        return m.groups() if m else None

    rows = []
    for bit in sorted(driver):
        name, out_pin = driver[bit]
        drv = cells[name]
        net_loads = sorted(set(loads.get(bit, [])))
        if (not replicable(drv, out_pin) or bit in port_bits or name not in pos
                or len(net_loads) <= max_fanout
                or any(pin in FIXED_PINS for _, pin in net_loads)):
            continue
        if any(n not in pos for n, _ in net_loads):
            continue
        movable = [((n, pin), pos[n]) for n, pin in net_loads]
        xs = [p[0] for _, p in movable]
        ys = [p[1] for _, p in movable]
        span = (max(xs) - min(xs)) + (max(ys) - min(ys))
        if span < min_span:
            continue
        here = pos[name]
        groups = sorted(cut(movable, max_fanout),
                        key=lambda g: (abs(centre(g)[0] - here[0]) + abs(centre(g)[1] - here[1]),
                                       g[0][0]))
        # a slice's shared pins follow the first group that has one of them
        owner = {}
        for k, group in enumerate(groups):
            for (n, pin), _ in group:
                if pin in SLICE_PINS:
                    owner.setdefault(slice_of(n), k)
        regrouped = [[] for _ in groups]
        for k, group in enumerate(groups):
            for (n, pin), p in group:
                regrouped[owner[slice_of(n)] if pin in SLICE_PINS else k].append(((n, pin), p))
        groups = regrouped[:1] + [g for g in regrouped[1:] if g]
        is_ff = drv["type"] == "TRELLIS_FF"
        copies = 0
        for k, group in enumerate(groups[1:], 1):
            spot = slices.take(centre(group), control_set(drv) if is_ff else None)
            if spot is None:
                break  # no free slice left: the rest of the loads stay on the original
            copy = json.loads(json.dumps(drv))
            for pin in copy["connections"]:
                if copy["port_directions"].get(pin) == "output":
                    copy["connections"][pin] = []
            copy["connections"][out_pin] = [next_bit]
            if is_ff and copy["connections"].get("DI"):
                # DI is the dedicated wire from the LUT of the original's slice
                copy["connections"]["M"] = copy["connections"].pop("DI")
                copy["port_directions"]["M"] = "input"
                copy["port_directions"].pop("DI", None)
                copy["parameters"]["SD"] = "0 "
            x, y, s = spot
            copy["attributes"]["NEXTPNR_BEL"] = f"X{x}/Y{y}/SLICE{s}." + ("FF0" if is_ff else "K0")
            copy["attributes"]["BEL_STRENGTH"] = STRENGTH_FIXED
            copy["attributes"]["replica_of"] = name
            cname = f"{name}$replica{k}"
            cells[cname] = copy
            top.setdefault("netnames", {})[cname + "$out"] = {
                "hide_name": 0, "bits": [next_bit], "attributes": {}}
            for (n, pin), _ in group:
                cells[n]["connections"][pin] = [next_bit if b == bit else b
                                                for b in cells[n]["connections"][pin]]
            next_bit += 1
            copies += 1
        if copies:
            rows.append({"driver": name, "type": drv["type"],
                         "src": drv.get("attributes", {}).get("src", "?").split("|")[0],
                         "loads": len(net_loads), "span": span, "groups": copies + 1})
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("placed", type=Path, help="nextpnr-ecp5 --no-route --write JSON")
    ap.add_argument("out", type=Path, help="the placed design with the copies")
    ap.add_argument("--max-fanout", type=int, default=32, help="loads per driver (default 32)")
    ap.add_argument("--min-span", type=int, default=20,
                    help="replicate only nets whose loads span at least this many tiles "
                         "(x + y, default 20)")
    ap.add_argument("--json", action="store_true", help="print the replicated nets as JSON")
    args = ap.parse_args(argv)
    if args.max_fanout < 1:
        ap.error("--max-fanout must be at least 1")
    if not args.placed.is_file():
        ap.error(f"{args.placed}: no such file (nextpnr-ecp5 --no-route --write writes it)")
    try:
        doc = json.loads(args.placed.read_text())
        rows = replicate(doc, args.max_fanout, args.min_span)
    except (KeyError, ValueError, TypeError) as e:
        ap.error(f"{args.placed}: not a nextpnr placed JSON design ({e})")
    args.out.write_text(json.dumps(doc))
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        copies = sum(r["groups"] - 1 for r in rows)
        print(f"{len(rows)} nets replicated, {copies} copies")
        for r in sorted(rows, key=lambda r: -r["loads"])[:20]:
            print(f"{r['loads']:6d} loads  span {r['span']:3d}  {r['groups']:3d} drivers  "
                  f"{r['type']} {r['src']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
