#!/usr/bin/env python3
"""The nets with the most loads in a mapped ECP5 netlist, named by the RTL around them.

On the placed NIC, routing is most of every critical path (docs/SYNTH.md), and the
longest wires are the nets with hundreds of loads: nextpnr neither buffers nor copies a
driver, so one net spreads over the chip. Mapped nets carry names made of cell chains
(`x_LUT4_B_Z_PFUMX_...`), so this script names a net by what the RTL says around it:

  driver   the driving cell's type; for a flop, its RTL line (the `src` of the always_ff)
  from     for a net driven by logic, the RTL lines of the flops behind it (through up to
           DEPTH combinational cells): what the logic starts from
  reaches  the RTL lines of the flops and RAM cells within two combinational cells after
           it, by pin (CE, DI, LSR...): what it controls

Input: the JSON netlist synth.py writes for place and route (`synth_ecp5 -json`:
target/synth/<block>-ecp5-pnr/wrap.json after `synth.py --pnr <block>`).

  rtl/synth/fanout.py target/synth/nic-ecp5-pnr/wrap.json --top 20
"""

import argparse
import collections
import json
import sys
from pathlib import Path

COMBINATIONAL = {"LUT4", "PFUMX", "L6MUX21", "CCU2C"}
# Clock and reset reach every flop by design: not what the report is for.
SKIP_PINS = {"CLK", "LSR"}


def rtl_src(cell):
    """The RTL part of a cell's src attribute (techmap adds its own after a `|`)."""
    return cell.get("attributes", {}).get("src", "?").split("|")[0] or "?"


class Netlist:
    def __init__(self, doc):
        modules = [m for m in doc["modules"].values() if m.get("cells")]
        if not modules:
            raise ValueError("netlist has no module with cells")
        top = max(modules, key=lambda m: len(m["cells"]))
        self.cells = top["cells"]
        self.driver = {}
        self.loads = collections.defaultdict(list)
        for name, cell in self.cells.items():
            dirs = cell.get("port_directions", {})
            for pin, bits in cell["connections"].items():
                for bit in bits:
                    if not isinstance(bit, int):
                        continue  # a constant
                    if dirs.get(pin) == "output":
                        self.driver[bit] = name
                    elif dirs.get(pin) == "input":
                        self.loads[bit].append((name, pin))
        self.names = {}
        for net, v in top.get("netnames", {}).items():
            for bit in v["bits"]:
                if isinstance(bit, int):
                    self.names.setdefault(bit, net)

    def pin_bits(self, name, direction):
        """A cell's net bits on its `direction` ("input"/"output") pins, constants left out."""
        cell = self.cells[name]
        return [b for pin, bits in cell["connections"].items()
                if cell["port_directions"].get(pin) == direction
                for b in bits if isinstance(b, int)]

    def sources(self, bit, depth):
        """RTL lines of the flops (and ports) a bit is computed from."""
        found, seen, stack = collections.Counter(), set(), [(bit, 0)]
        while stack:
            b, k = stack.pop()
            if b in seen:
                continue
            seen.add(b)
            name = self.driver.get(b)
            if name is None:
                found[f"port {self.names.get(b, '?')}"] += 1
            elif self.cells[name]["type"] not in COMBINATIONAL:
                found[f"{self.cells[name]['type']} {rtl_src(self.cells[name])}"] += 1
            elif k >= depth:
                found["(deeper logic)"] += 1
            else:
                stack += [(x, k + 1) for x in self.pin_bits(name, "input")]
        return found

    def reaches(self, bit, depth=2):
        """RTL lines of the sequential cells within `depth` logic cells after a bit."""
        found, seen, stack = collections.Counter(), set(), [(bit, 0)]
        while stack:
            b, k = stack.pop()
            for name, pin in self.loads.get(b, []):
                if (name, pin) in seen:
                    continue
                seen.add((name, pin))
                cell = self.cells[name]
                if cell["type"] in COMBINATIONAL:
                    if k < depth:
                        stack += [(x, k + 1) for x in self.pin_bits(name, "output")]
                elif pin not in SKIP_PINS:
                    found[f"{cell['type']}.{pin} {rtl_src(cell)}"] += 1
        return found

    def top_nets(self, n, skip_pins=SKIP_PINS):
        counted = []
        for bit, loads in self.loads.items():
            useful = [lp for lp in loads if lp[1] not in skip_pins]
            if useful:
                counted.append((len(useful), bit))
        counted.sort(key=lambda t: (-t[0], t[1]))
        return counted[:n]


def report(netlist, top, depth):
    rows = []
    for loads, bit in netlist.top_nets(top):
        name = netlist.driver.get(bit)
        cell = netlist.cells[name] if name else None
        if cell is None:
            driver = f"port {netlist.names.get(bit, '?')}"
        elif cell["type"] in COMBINATIONAL:
            driver = cell["type"]
        else:
            driver = f"{cell['type']} {rtl_src(cell)}"
        rows.append({
            "loads": loads,
            "net": netlist.names.get(bit, "?"),
            "driver": driver,
            "from": dict(netlist.sources(bit, depth).most_common(6))
            if cell is not None and cell["type"] in COMBINATIONAL else {},
            "reaches": dict(netlist.reaches(bit).most_common(6)),
        })
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("netlist", type=Path, help="synth_ecp5 JSON netlist (wrap.json)")
    ap.add_argument("--top", type=int, default=20, help="nets to list (default 20)")
    ap.add_argument("--depth", type=int, default=8,
                    help="logic cells to look through for a net's sources (default 8)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of text")
    args = ap.parse_args(argv)
    if not args.netlist.is_file():
        ap.error(f"{args.netlist}: no such file (it is written by "
                 "`rtl/synth/synth.py --pnr <block>`)")
    try:
        netlist = Netlist(json.loads(args.netlist.read_text()))
    except (ValueError, KeyError) as e:
        ap.error(f"{args.netlist}: not a Yosys JSON netlist ({e})")
    rows = report(netlist, args.top, args.depth)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    for r in rows:
        print(f"{r['loads']:6d} loads  driver {r['driver']}")
        for src, n in r["from"].items():
            print(f"{'':14}from    {n:4d} x {src}")
        for dst, n in r["reaches"].items():
            print(f"{'':14}reaches {n:4d} x {dst}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
