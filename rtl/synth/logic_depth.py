"""Register-to-register logic depth of a word-level Yosys netlist, path by RTL line.

Input: the JSON of a flat netlist stopped before fine mapping (`synth -flatten -run
begin:fine`), where every cell still carries the `src` of the RTL expression it came
from. Each cell gets an estimated depth in LUT4 levels (COST below); arrival times are
propagated bit by bit where the cell is bitwise (a mux, an and), so a path reads as the
list of RTL lines it crosses. The estimate is a ranking, not a timing: a priority chain
written as a loop counts its full length, where ABC may do somewhat better, and routing,
which is most of an ECP5 path (docs/SYNTH.md), is not modelled. What it answers in
seconds, instead of a 20-minute place and route, is which RTL lines the long paths run
through.
"""
import collections
import math
import re
import sys

# Where a synchronous read port's data starts, in LUT4 levels after a flop's output. A
# deep memory becomes ECP5 block RAM, read without its output register: nextpnr gives a
# DP16KD 5.8 ns from clock to data against a flop's 0.5 ns, about four levels of this
# design's logic and routing (docs/SYNTH.md). A shallow one becomes distributed RAM read
# behind a flop that holds the address (Yosys folds that register into the port): one
# LUT level.
BRAM_MIN_DEPTH = 128
BRAM_CLK_TO_Q = 4.0
LUTRAM_SYNC_READ = 1.0

SEQ = {"$adff", "$adffe", "$dff", "$dffe", "$sdff", "$sdffe", "$sdffce", "$aldff",
       "$aldffe", "$dffsr", "$dffsre"}


def log4(n):
    """LUT4 levels of a balanced tree over n inputs."""
    return math.ceil(math.log(n, 4)) if n > 1 else 0


def _conn(cell, port):
    """A port's bits in order; constants ("0", "1", "x") stay in place."""
    return cell["connections"].get(port, [])


def _param(cell, name, default=0):
    v = cell.get("parameters", {}).get(name, default)
    return int(v, 2) if isinstance(v, str) else int(v)


def arcs_of(cell):
    """(output bit, input bit, cost) arcs of a combinational cell; [] for sequential ones."""
    t = cell["type"]
    A, B, S, Y = (_conn(cell, p) for p in ("A", "B", "S", "Y"))
    out = []
    if t in ("$not", "$pos", "$buf"):
        out = [(o, A[i], 0.0) for i, o in enumerate(Y) if i < len(A)]
    elif t in ("$and", "$or", "$xor", "$xnor"):
        out = [(o, x[i], 0.5) for i, o in enumerate(Y) for x in (A, B) if i < len(x)]
    elif t == "$mux":
        out = [(o, x, 0.5) for i, o in enumerate(Y) for x in (A[i], B[i], S[0])]
    elif t == "$bwmux":
        out = [(o, x[i], 0.5) for i, o in enumerate(Y) for x in (A, B, S)]
    elif t == "$pmux":
        w, n = len(Y), len(S)
        cost = 0.5 + log4(n + 1)
        for i, o in enumerate(Y):
            out += [(o, A[i], cost)] + [(o, B[j * w + i], cost) for j in range(n)]
            out += [(o, s, cost) for s in S]
    elif t == "$bmux":
        w = len(Y)
        cost = 0.6 * len(S)  # a 4:1 mux is about one LUT level with PFUMX/L6MUX
        for i, o in enumerate(Y):
            out += [(o, A[k * w + i], cost) for k in range(len(A) // w)]
            out += [(o, s, cost) for s in S]
    elif t in ("$shiftx", "$shr", "$shl", "$sshr", "$sshl"):
        cost = 0.6 * max(1, len(B))
        out = [(o, x, cost) for o in Y for x in A + B]
    elif t == "$demux":
        out = [(o, x, 1.0) for o in Y for x in A + S]
    elif t in ("$eq", "$ne", "$eqx", "$nex"):
        cost = 1.0 + log4(max(1, max(len(A), len(B)) // 2))
        out = [(o, x, cost) for o in Y for x in A + B]
    elif t in ("$reduce_or", "$reduce_and", "$reduce_bool", "$reduce_xor", "$reduce_xnor",
               "$logic_not"):
        cost = max(0.5, float(log4(len(A))))
        out = [(o, x, cost) for o in Y for x in A]
    elif t in ("$logic_and", "$logic_or"):
        cost = 0.5 + 0.5 * log4(max(len(A), len(B)))
        out = [(o, x, cost) for o in Y for x in A + B]
    elif t in ("$alu", "$lt", "$le", "$gt", "$ge", "$add", "$sub", "$neg"):
        # a carry chain: one LUT level in, then a fast hop per two bits
        cost = 1.0 + 0.025 * max(len(Y), len(A), len(B))
        ins = A + B + _conn(cell, "CI") + _conn(cell, "BI")
        out = [(o, x, cost) for o in Y + _conn(cell, "X") + _conn(cell, "CO") for x in ins]
    elif t in ("$macc", "$macc_v2", "$mul"):
        out = [(o, x, 3.0) for o in Y for x in A + B + _conn(cell, "C")]
    else:
        dirs = cell.get("port_directions", {})
        outs = [b for p, d in dirs.items() if d == "output" for b in _conn(cell, p)]
        ins = [b for p, d in dirs.items() if d == "input" for b in _conn(cell, p)]
        out = [(o, x, 1.0) for o in outs for x in ins]
    return [(o, x, cost) for o, x, cost in out if not isinstance(o, str) and
            not isinstance(x, str)]


def analyse(netlist):
    """Endpoints of the top module, deepest first: (depth, endpoint name, path), the path
    a list of (arrival, cell type, src) from the start register on."""
    top = next(m for m, v in netlist["modules"].items() if v.get("attributes", {}).get("top"))
    mod = netlist["modules"][top]
    cells = mod["cells"]
    names = {}
    for n, v in mod["netnames"].items():
        if v.get("hide_name", 0):
            continue
        for i, b in enumerate(v["bits"]):
            nm = n if len(v["bits"]) == 1 else f"{n}[{i}]"
            if not isinstance(b, str) and (b not in names or len(nm) < len(names[b])):
                names[b] = nm

    arcs = collections.defaultdict(list)
    starts, ends = set(), []
    start_at = {}   # start bits that launch later than a flop's output
    for cn, c in cells.items():
        t = c["type"]
        if t in SEQ:
            q = [b for b in _conn(c, "Q") if not isinstance(b, str)]
            starts.update(q)
            what = names.get(q[0], cn) if q else cn
            # the synchronous inputs; an asynchronous reset is not a timed path
            for p in ("D", "EN", "SRST"):
                ends += [(b, what) for b in _conn(c, p) if not isinstance(b, str)]
        elif t == "$mem_v2":
            mem = str(c.get("parameters", {}).get("MEMID", cn)).lstrip("\\")
            ends += [(b, f"{mem} (write)") for p in ("WR_DATA", "WR_ADDR", "WR_EN")
                     for b in _conn(c, p) if not isinstance(b, str)]
            if _param(c, "RD_CLK_ENABLE"):
                at = (BRAM_CLK_TO_Q if _param(c, "SIZE", 1) >= BRAM_MIN_DEPTH
                      else LUTRAM_SYNC_READ)
                for b in _conn(c, "RD_DATA"):
                    if not isinstance(b, str):
                        starts.add(b)
                        start_at[b] = at
                ends += [(b, f"{mem} (read)") for p in ("RD_ADDR", "RD_EN")
                         for b in _conn(c, p) if not isinstance(b, str)]
            else:
                size = _param(c, "SIZE", 1)
                cost = 1.0 + 0.6 * max(0, math.ceil(math.log2(max(size, 1))) - 4)
                for o in _conn(c, "RD_DATA"):
                    arcs[o] += [(i, cost, cn) for i in _conn(c, "RD_ADDR")
                                if not isinstance(i, str)]
        else:
            for o, i, cost in arcs_of(c):
                arcs[o].append((i, cost, cn))
    for pn, p in mod.get("ports", {}).items():
        if p["direction"] == "output":
            ends += [(b, pn) for b in p["bits"] if not isinstance(b, str)]

    # Longest arrival per bit, iteratively (netlists are deep: no recursion).
    arr, pred = {}, {}
    for b0, _ in ends:
        stack = [b0]
        while stack:
            b = stack[-1]
            if b in arr:
                stack.pop()
                continue
            if b in starts or b not in arcs:
                arr[b], pred[b] = start_at.get(b, 0.0), None
                stack.pop()
                continue
            todo = [i for i, _, _ in arcs[b] if i not in arr and i not in stack]
            if todo:
                stack += todo
                continue
            best, bp = 0.0, None
            for i, cost, cn in arcs[b]:
                t = arr.get(i, 0.0) + cost  # a bit still on the stack closes a loop: 0
                if bp is None or t > best:
                    best, bp = t, (i, cn)
            arr[b], pred[b] = best, bp
            stack.pop()

    def src(cn):
        return cells[cn].get("attributes", {}).get("src", "?").split("|")[0]

    out = []
    for b, what in ends:
        path, x = [], b
        while pred.get(x):
            i, cn = pred[x]
            path.append((arr[x], cells[cn]["type"], src(cn)))
            x = i
        start = re.sub(r"\[\d+\]$", "", names.get(x, f"bit {x}"))
        out.append((arr.get(b, 0.0), start, re.sub(r"\[\d+\]$", "", what), path[::-1]))
    out.sort(key=lambda e: (-e[0], e[1], e[2]))
    return out


def families(endpoints, top=20):
    """The deepest (start, end) register pairs, each once: [(depth, start, end, bits,
    path)], the path reduced to its RTL lines in order."""
    fam = collections.OrderedDict()
    for dep, start, end, path in endpoints:
        k = (start, end)
        if k in fam:
            fam[k][3] += 1
            continue
        if len(fam) == top:
            continue
        lines = []
        for a, t, s in path:
            if not lines or lines[-1][2] != s:
                lines.append((a, t, s))
        fam[k] = [dep, start, end, 1, lines]
    return [tuple(v) for v in fam.values()]


def print_families(fams, out=sys.stdout, lines=True):
    for dep, start, end, bits, path in fams:
        print(f"{dep:5.1f}  {start} -> {end}  ({bits} bit{'s' if bits > 1 else ''})", file=out)
        if lines:
            for a, t, s in path:
                print(f"        {a:5.1f}  {t:<12} {s}", file=out)
