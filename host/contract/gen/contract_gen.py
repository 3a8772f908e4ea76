#!/usr/bin/env python3
"""Generate the FastHSL hardware/software contract from contract.toml.

One source, three outputs: a SystemVerilog package for the RTL, a Rust module for the
driver and simulator, and a Markdown reference. Python's standard library only
(tomllib, 3.11+), so `make gen` needs nothing installed.

    contract_gen.py            write the outputs in place
    contract_gen.py --check    exit 1 (with a diff) if any committed output differs
"""

import argparse
import difflib
import pathlib
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[3]
SPEC = ROOT / "host/contract/contract.toml"
OUT_SV = ROOT / "rtl/pkg/fasthsl_pkg.sv"
OUT_RS = ROOT / "host/contract/src/generated.rs"
OUT_MD = ROOT / "docs/CONTRACT.md"

BANNER = "Generated from host/contract/contract.toml by host/contract/gen/contract_gen.py. Do not edit: run `make gen`."


class SpecError(Exception):
    pass


# Register blocks, with the prefix of their names in the SV package (one namespace there).
BLOCKS = {"nic": "", "router": "", "ctx": "CTX_"}

# Register access kinds (the Rust RegAccess enum, in this order).
ACCESS = {
    "ro": "Read only.",
    "rw": "Read and write.",
    "rw1c": "Read; writing 1 to a bit clears it.",
    "wo": "Write only.",
}


def camel(name):
    return "".join(p.capitalize() for p in name.lower().split("_"))


def rust_uint(width):
    if width == 1:
        return "bool"
    for w in (8, 16, 32, 64):
        if width <= w:
            return f"u{w}"
    raise SpecError(f"width {width} too large")


def hexw(value, width):
    digits = max(1, (width + 3) // 4)
    return f"{width}'h{value:0{digits}X}"


def validate(spec):
    for fmt in spec["formats"]:
        word_bits = fmt.get("word_bits", 64)
        used = {}
        for f in fmt["fields"]:
            if not 0 <= f["word"] < fmt["words"]:
                raise SpecError(f"{fmt['name']}.{f['name']}: word {f['word']} out of range")
            if f["lsb"] + f["width"] > word_bits:
                raise SpecError(f"{fmt['name']}.{f['name']}: bits exceed the {word_bits}-bit word")
            for b in range(f["lsb"], f["lsb"] + f["width"]):
                key = (f["word"], b)
                if key in used:
                    raise SpecError(f"{fmt['name']}.{f['name']} overlaps {used[key]}")
                used[key] = f["name"]
    offsets = {}
    for r in spec["registers"]:
        count = r.get("count", 1)
        stride = r.get("stride", 4)
        for i in range(count):
            key = (r["block"], r["offset"] + i * stride)
            if key in offsets:
                raise SpecError(f"register {r['name']} overlaps {offsets[key]}")
            if key[1] % 4:
                raise SpecError(f"register {r['name']} not 4-byte aligned")
            offsets[key] = r["name"]
        if r["access"] not in ACCESS:
            raise SpecError(f"register {r['name']}: unknown access {r['access']}")
        if r["block"] not in BLOCKS:
            raise SpecError(f"register {r['name']}: unknown block {r['block']}")
    consts = {c["name"]: c["value"] for c in spec["constants"]}
    for pg in spec.get("pages", []):
        for key in ("base", "stride", "count"):
            if pg[key] not in consts:
                raise SpecError(f"pages {pg['block']}: {key} names no constant ({pg[key]})")
        base, stride, count = (consts[pg[k]] for k in ("base", "stride", "count"))
        top = max((r["offset"] + r.get("count", 1) * r.get("stride", 4)
                   for r in spec["registers"] if r["block"] == pg["block"]), default=0)
        if top > stride:
            raise SpecError(f"pages {pg['block']}: registers end at {top:#x}, past the page stride {stride:#x}")
        if base < consts["ROUTER_CSR_BASE"] + 0x1000 or base + count * stride > consts["BAR0_SIZE"]:
            raise SpecError(f"pages {pg['block']}: {base:#x} + {count} x {stride:#x} is not inside BAR0 above the router page")


def paged(spec, block):
    """The [[pages]] entry of a paged register block (one page per instance), or None."""
    consts = {c["name"]: c["value"] for c in spec["constants"]}
    for pg in spec.get("pages", []):
        if pg["block"] == block:
            return {**pg, "base_v": consts[pg["base"]], "stride_v": consts[pg["stride"]],
                    "count_v": consts[pg["count"]]}
    return None


def word_layout(fmt, word):
    """Fields of one word, MSB first, with reserved gaps filled (for packed structs)."""
    word_bits = fmt.get("word_bits", 64)
    fields = sorted((f for f in fmt["fields"] if f["word"] == word), key=lambda f: -f["lsb"])
    out = []
    top = word_bits
    for f in fields:
        msb = f["lsb"] + f["width"]
        if msb < top:
            out.append({"name": f"rsvd{msb}", "width": top - msb, "rsvd": True})
        out.append({**f, "rsvd": False})
        top = f["lsb"]
    if top > 0:
        out.append({"name": "rsvd0", "width": top, "rsvd": True})
    return out


# ----------------------------------------------------------------------------
# SystemVerilog
# ----------------------------------------------------------------------------

def gen_sv(spec):
    o = [f"// {BANNER}", "", "package fasthsl_pkg;", ""]
    o.append(f"  localparam logic [31:0] CONTRACT_VERSION = {hexw(spec['version'], 32)};")
    for c in spec["constants"]:
        o.append(f"  // {c['doc']}")
        if "width" in c:
            o.append(f"  localparam logic [{c['width'] - 1}:0] {c['name']} = {hexw(c['value'], c['width'])};")
        else:
            o.append(f"  localparam int unsigned {c['name']} = {c['value']};")
    o.append("")
    for e in spec["enums"]:
        o.append(f"  // {e['doc']}")
        o.append(f"  typedef enum logic [{e['width'] - 1}:0] {{")
        items = [f"    {e['name'].upper()}_{v['name']} = {e['width']}'d{v['value']}" for v in e["values"]]
        o.append(",\n".join(items))
        o.append(f"  }} {e['name']}_e;")
        o.append("")
    for b in spec["bits"]:
        o.append(f"  // {b['doc']}")
        for v in b["values"]:
            o.append(f"  localparam int unsigned {b['name']}_{v['name']}_BIT = {v['bit']};")
            if "count" in v:
                o.append(f"  localparam int unsigned {b['name']}_{v['name']}_COUNT = {v['count']};")
        o.append("")
    for fmt in spec["formats"]:
        word_bits = fmt.get("word_bits", 64)
        o.append(f"  // {fmt['name']}: {fmt['doc']}")
        o.append(f"  localparam int unsigned {fmt['name'].upper()}_WORDS = {fmt['words']};")
        for w in range(fmt["words"]):
            o.append("  typedef struct packed {")
            for f in word_layout(fmt, w):
                o.append(f"    logic [{f['width'] - 1}:0] {f['name']};")
            name = f"{fmt['name']}_w{w}_t" if fmt["words"] > 1 else f"{fmt['name']}_t"
            o.append(f"  }} {name};  // {word_bits} bits")
        o.append("")
    for block, prefix in BLOCKS.items():
        pg = paged(spec, block)
        where = f", inside each page {pg['base']} + n * {pg['stride']}, n < {pg['count']}" if pg else ""
        o.append(f"  // {block} registers (byte offsets{where})")
        for r in (r for r in spec["registers"] if r["block"] == block):
            name = prefix + r["name"]
            o.append(f"  localparam logic [15:0] {name}_OFFSET = {hexw(r['offset'], 16)};")
            if "count" in r:
                o.append(f"  localparam int unsigned {name}_COUNT = {r['count']};")
                o.append(f"  localparam int unsigned {name}_STRIDE = {r.get('stride', 4)};")
        o.append("")
    o.append("endpackage")
    return "\n".join(o) + "\n"


# ----------------------------------------------------------------------------
# Rust
# ----------------------------------------------------------------------------

def gen_rs(spec):
    o = [f"// {BANNER}", "", "// Field packing is emitted uniformly (shift by 0, cast to the same type) so every field reads alike.", "#![allow(clippy::identity_op, clippy::unnecessary_cast, clippy::unreadable_literal)]", ""]
    o.append("/// Contract version, major in the high 16 bits.")
    o.append(f"pub const CONTRACT_VERSION: u32 = {spec['version']:#010x};")
    for c in spec["constants"]:
        ty = "u32" if c.get("width") == 32 else "u64"
        if c["name"] in ("NODE_W",):
            ty = "u32"
        o.append(f"/// {c['doc']}")
        o.append(f"pub const {c['name']}: {ty} = {c['value']:#x};")
    o.append("")
    for e in spec["enums"]:
        ty = rust_uint(e["width"])
        name = camel(e["name"])
        o.append(f"/// {e['doc']}")
        o.append("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]")
        o.append(f"#[repr({ty})]")
        o.append(f"pub enum {name} {{")
        for v in e["values"]:
            o.append(f"    /// {v['doc']}")
            o.append(f"    {camel(v['name'])} = {v['value']},")
        o.append("}")
        o.append("")
        o.append(f"impl {name} {{")
        o.append(f"    /// Every value, in code order.")
        o.append(f"    pub const ALL: [{name}; {len(e['values'])}] = [" +
                 ", ".join(f"{name}::{camel(v['name'])}" for v in e["values"]) + "];")
        o.append("")
        o.append(f"    /// Decodes a wire value; `None` for codes the contract does not define.")
        o.append(f"    pub fn from_code(code: {ty}) -> Option<Self> {{")
        o.append("        match code {")
        for v in e["values"]:
            o.append(f"            {v['value']} => Some({name}::{camel(v['name'])}),")
        o.append("            _ => None,")
        o.append("        }")
        o.append("    }")
        o.append("")
        o.append("    /// What the code means, from the contract.")
        o.append("    pub fn describe(self) -> &'static str {")
        o.append("        match self {")
        for v in e["values"]:
            doc = v["doc"].replace('"', '\\"')
            o.append(f"            {name}::{camel(v['name'])} => \"{doc}\",")
        o.append("        }")
        o.append("    }")
        o.append("}")
        o.append("")
    for b in spec["bits"]:
        ty = f"u{b.get('width', 16)}"
        o.append(f"/// {b['doc']}")
        o.append(f"pub mod {b['name'].lower()} {{")
        for v in b["values"]:
            o.append(f"    /// {v['doc']}")
            if "count" in v:
                # A field of `count` bits (one per instance): the constant is its mask.
                o.append(f"    pub const {v['name']}: {ty} = {(1 << v['count']) - 1:#x} << {v['bit']};")
            else:
                o.append(f"    pub const {v['name']}: {ty} = 1 << {v['bit']};")
        o.append("    /// Every defined bit.")
        o.append("    pub const ALL: " + ty + " = " + " | ".join(v["name"] for v in b["values"]) + ";")
        o.append("")
        o.append("    /// Names of the defined bits set in `value`, lowest first.")
        o.append(f"    pub fn names(value: {ty}) -> Vec<&'static str> {{")
        o.append(f"        const NAMES: [({ty}, &str); {len(b['values'])}] = [" +
                 ", ".join(f"({v['name']}, \"{v['name']}\")" for v in sorted(b["values"], key=lambda v: v["bit"])) + "];")
        o.append("        NAMES.iter().filter(|(bit, _)| value & bit != 0).map(|&(_, name)| name).collect()")
        o.append("    }")
        o.append("}")
        o.append("")
    for fmt in spec["formats"]:
        word_bits = fmt.get("word_bits", 64)
        wty = f"u{word_bits}"
        name = camel(fmt["name"])
        o.append(f"/// {fmt['doc']}")
        o.append("#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]")
        o.append(f"pub struct {name} {{")
        for f in fmt["fields"]:
            o.append(f"    /// {f['doc']}")
            o.append(f"    pub {f['name']}: {rust_uint(f['width'])},")
        o.append("}")
        o.append("")
        o.append(f"impl {name} {{")
        o.append(f"    /// Words in the format.")
        o.append(f"    pub const WORDS: usize = {fmt['words']};")
        o.append(f"    /// Bytes in memory.")
        o.append(f"    pub const BYTES: usize = {fmt['words'] * word_bits // 8};")
        o.append("")
        o.append("    /// Packs into words (reserved bits zero).")
        o.append(f"    pub fn to_words(&self) -> [{wty}; {fmt['words']}] {{")
        o.append(f"        let mut w = [0 as {wty}; {fmt['words']}];")
        for f in fmt["fields"]:
            mask = (1 << f["width"]) - 1
            val = f"(self.{f['name']} as {wty})"
            if f["width"] == word_bits:
                o.append(f"        w[{f['word']}] |= self.{f['name']} as {wty};")
            else:
                o.append(f"        w[{f['word']}] |= ({val} & {mask:#x}) << {f['lsb']};")
        o.append("        w")
        o.append("    }")
        o.append("")
        o.append("    /// Unpacks from words (reserved bits ignored).")
        o.append(f"    pub fn from_words(w: &[{wty}; {fmt['words']}]) -> Self {{")
        o.append("        Self {")
        for f in fmt["fields"]:
            ty = rust_uint(f["width"])
            mask = (1 << f["width"]) - 1
            if f["width"] == 1:
                o.append(f"            {f['name']}: (w[{f['word']}] >> {f['lsb']}) & 1 == 1,")
            elif f["width"] == word_bits:
                o.append(f"            {f['name']}: w[{f['word']}] as {ty},")
            else:
                o.append(f"            {f['name']}: ((w[{f['word']}] >> {f['lsb']}) & {mask:#x}) as {ty},")
        o.append("        }")
        o.append("    }")
        o.append("")
        o.append("    /// Little-endian bytes, as in host memory.")
        o.append(f"    pub fn to_bytes(&self) -> [u8; {fmt['words'] * word_bits // 8}] {{")
        o.append(f"        let mut b = [0u8; {fmt['words'] * word_bits // 8}];")
        o.append(f"        for (i, w) in self.to_words().iter().enumerate() {{")
        o.append(f"            b[i * {word_bits // 8}..(i + 1) * {word_bits // 8}].copy_from_slice(&w.to_le_bytes());")
        o.append("        }")
        o.append("        b")
        o.append("    }")
        o.append("")
        o.append("    /// From little-endian bytes, as in host memory.")
        o.append(f"    pub fn from_bytes(b: &[u8; {fmt['words'] * word_bits // 8}]) -> Self {{")
        o.append(f"        let mut w = [0 as {wty}; {fmt['words']}];")
        o.append("        for (i, word) in w.iter_mut().enumerate() {")
        o.append(f"            let mut le = [0u8; {word_bits // 8}];")
        o.append(f"            le.copy_from_slice(&b[i * {word_bits // 8}..(i + 1) * {word_bits // 8}]);")
        o.append(f"            *word = {wty}::from_le_bytes(le);")
        o.append("        }")
        o.append("        Self::from_words(&w)")
        o.append("    }")
        o.append("}")
        o.append("")
    o.append("/// How software may access a register.")
    o.append("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]")
    o.append("pub enum RegAccess {")
    for access, doc in ACCESS.items():
        o.append(f"    /// {doc}")
        o.append(f"    {camel(access)},")
    o.append("}")
    o.append("")
    o.append("/// One register of a block, or one array of them (`count` instances `stride` bytes apart).")
    o.append("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]")
    o.append("pub struct RegInfo {")
    o.append("    /// Name, as the offset constant of the block's module.")
    o.append("    pub name: &'static str,")
    o.append("    /// Byte offset of the first instance.")
    o.append("    pub offset: u32,")
    o.append("    /// Instances (1 for a single register).")
    o.append("    pub count: u32,")
    o.append("    /// Bytes between instances.")
    o.append("    pub stride: u32,")
    o.append("    /// Access.")
    o.append("    pub access: RegAccess,")
    o.append("    /// Defined bits (from bit 0; 32 when the contract gives no width).")
    o.append("    pub width: u32,")
    o.append("}")
    o.append("")
    for block in BLOCKS:
        pg = paged(spec, block)
        if pg:
            o.append(f"/// {block.upper()} register byte offsets inside one page; page n (n < `PAGES`)")
            o.append(f"/// starts at BAR0 offset `page(n)`.")
        else:
            o.append(f"/// {block.upper()} register byte offsets.")
        o.append(f"pub mod {block}_regs {{")
        if pg:
            o.append(f"    /// {pg['doc']}")
            o.append(f"    pub const PAGES: u32 = super::{pg['count']} as u32;")
            o.append(f"    /// BAR0 offset of page 0.")
            o.append(f"    pub const PAGE_BASE: u32 = super::{pg['base']} as u32;")
            o.append(f"    /// Bytes between pages.")
            o.append(f"    pub const PAGE_STRIDE: u32 = super::{pg['stride']} as u32;")
            o.append(f"    /// BAR0 offset of page `n` (`n < PAGES`).")
            o.append(f"    pub const fn page(n: u32) -> u32 {{")
            o.append(f"        PAGE_BASE + n * PAGE_STRIDE")
            o.append(f"    }}")
        for r in (r for r in spec["registers"] if r["block"] == block):
            o.append(f"    /// {r['doc']} ({r['access']})")
            o.append(f"    pub const {r['name']}: u32 = {r['offset']:#05x};")
            if "count" in r:
                o.append(f"    /// Instances of {r['name']}.")
                o.append(f"    pub const {r['name']}_COUNT: u32 = {r['count']};")
                o.append(f"    /// Bytes between instances of {r['name']}.")
                o.append(f"    pub const {r['name']}_STRIDE: u32 = {r.get('stride', 4)};")
        o.append(f"    /// Every register of the block, by offset.")
        o.append(f"    pub const REGISTERS: &[super::RegInfo] = &[")
        for r in sorted((r for r in spec["registers"] if r["block"] == block), key=lambda r: r["offset"]):
            o.append(f"        super::RegInfo {{ name: \"{r['name']}\", offset: {r['offset']:#05x}, "
                     f"count: {r.get('count', 1)}, stride: {r.get('stride', 4)}, "
                     f"access: super::RegAccess::{camel(r['access'])}, width: {r.get('width', 32)} }},")
        o.append("    ];")
        o.append("}")
        o.append("")
    return "\n".join(o).rstrip() + "\n"


# ----------------------------------------------------------------------------
# Markdown
# ----------------------------------------------------------------------------

def gen_md(spec):
    v = spec["version"]
    o = [f"<!-- {BANNER} -->", "", "# FastHSL contract reference", "",
         f"Contract version {v >> 16}.{v & 0xFFFF}. Everything the RTL and the software must agree on; "
         "generated into `rtl/pkg/fasthsl_pkg.sv` and `host/contract/src/generated.rs`.", "",
         "## Constants", "", "| name | value | meaning |", "|---|---|---|"]
    for c in spec["constants"]:
        o.append(f"| `{c['name']}` | {c['value']:#x} | {c['doc']} |")
    o.append("")
    o.append("## Enumerations and flag bits")
    for e in spec["enums"]:
        o += ["", f"### {e['name']} ({e['width']} bits)", "", e["doc"], "", "| code | name | meaning |", "|---|---|---|"]
        for val in e["values"]:
            o.append(f"| {val['value']} | `{val['name']}` | {val['doc']} |")
    for b in spec["bits"]:
        o += ["", f"### {b['name']}", "", b["doc"], "", "| bit | name | meaning |", "|---|---|---|"]
        for val in b["values"]:
            bits = f"{val['bit'] + val['count'] - 1}:{val['bit']}" if "count" in val else f"{val['bit']}"
            o.append(f"| {bits} | `{val['name']}` | {val['doc']} |")
    o += ["", "## Formats", "", "Word `w`, bits `msb:lsb`; 64-bit words little-endian in memory unless stated."]
    for fmt in spec["formats"]:
        word_bits = fmt.get("word_bits", 64)
        o += ["", f"### {fmt['name']} ({fmt['words']} x {word_bits} bits)", "", fmt["doc"], "",
              "| word | bits | field | meaning |", "|---|---|---|---|"]
        for f in sorted(fmt["fields"], key=lambda f: (f["word"], f["lsb"])):
            o.append(f"| {f['word']} | {f['lsb'] + f['width'] - 1}:{f['lsb']} | `{f['name']}` | {f['doc']} |")
    titles = {"nic": "NIC registers (BAR0 page 0)",
              "router": "Router registers (router page; BAR0 + ROUTER_CSR_BASE on a card)",
              "ctx": "Context registers (one page per context)"}
    for block, title in titles.items():
        o += ["", f"## {title}", ""]
        pg = paged(spec, block)
        if pg:
            o += [f"Page n (n < `{pg['count']}` = {pg['count_v']}) at BAR0 offset `{pg['base']}` + n x `{pg['stride']}` "
                  f"({pg['base_v']:#x} + n x {pg['stride_v']:#x}); offsets below are inside the page. {pg['doc']}", ""]
        o += ["| offset | name | access | meaning |", "|---|---|---|---|"]
        for r in (r for r in spec["registers"] if r["block"] == block):
            off = f"{r['offset']:#05x}"
            if "count" in r:
                off += f" + i*{r.get('stride', 4)} (i < {r['count']})"
            o.append(f"| {off} | `{r['name']}` | {r['access']} | {r['doc']} |")
    return "\n".join(o) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="compare instead of writing; exit 1 on drift")
    args = ap.parse_args()
    try:
        spec = tomllib.loads(SPEC.read_text())
        validate(spec)
    except (SpecError, tomllib.TOMLDecodeError, KeyError) as err:
        print(f"contract_gen: {SPEC.relative_to(ROOT)}: {err}", file=sys.stderr)
        return 2
    outputs = {OUT_SV: gen_sv(spec), OUT_RS: gen_rs(spec), OUT_MD: gen_md(spec)}
    drift = False
    for path, text in outputs.items():
        rel = path.relative_to(ROOT)
        if args.check:
            old = path.read_text() if path.exists() else ""
            if old != text:
                drift = True
                print(f"contract_gen: {rel} differs from what contract.toml generates:", file=sys.stderr)
                sys.stderr.writelines(difflib.unified_diff(
                    old.splitlines(True), text.splitlines(True), f"{rel} (committed)", f"{rel} (generated)"))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if drift:
        print("contract_gen: run `make gen` and commit the result.", file=sys.stderr)
        return 1
    if args.check:
        print("contract_gen: generated files match contract.toml")
    return 0


if __name__ == "__main__":
    sys.exit(main())
