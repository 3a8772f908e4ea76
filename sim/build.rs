//! Verilates the NIC and router tops and compiles them, with the C++ shim, into one
//! static library.
//!
//! All models (the NIC and five router variants) are built every time and picked at run
//! time, so any topology or router organisation runs without re-verilating. `FASTHSL_RTL_STUBS=<dir>` puts a directory of stand-in
//! modules ahead of the real RTL (development only; the default is the real RTL).

use std::collections::BTreeSet;
use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Verilated models: (top module, model prefix without the `V`, output
/// subdirectory, parameter overrides). The router top is built five times, so the
/// traffic benchmark can compare them in one binary: both input organisations with the
/// card's 16-flit buffers, and VOQ with 4096-flit buffers, 2 iSLIP iterations and grant
/// pointers that move on every iteration: the configuration that meets issue 3's
/// saturation goal for every packet length (rtl/rcube/README.md; its buffer is in RAM
/// arrays, so depth costs the simulation little); VOQ with the three pipeline options
/// (a 5-cycle hop at about twice the clock on an FPGA: docs/SYNTH.md); and VOQ with the
/// three-stage allocator (ALLOC_SPEC, experimental: a 6-cycle hop, the fastest router
/// clock so far). The cluster uses `sim_router` (VOQ, 16 flits, 1 iteration).
const TOPS: [(&str, &str, &str, &[&str]); 6] = [
    ("sim_nic", "sim_nic", "vl_nic", &[]),
    ("sim_router", "sim_router", "vl_router", &["-GVOQ=1'b1"]),
    (
        "sim_router",
        "sim_router_fifo",
        "vl_router_fifo",
        &["-GVOQ=1'b0"],
    ),
    (
        "sim_router",
        "sim_router_deep",
        "vl_router_deep",
        &[
            "-GVOQ=1'b1",
            "-GBUF_DEPTH=4096",
            "-GITERS=2",
            "-GGRANT_ALL=1'b1",
        ],
    ),
    (
        "sim_router",
        "sim_router_pipe",
        "vl_router_pipe",
        &[
            "-GVOQ=1'b1",
            "-GREG_AVAIL=1'b1",
            "-GREG_POP=1'b1",
            "-GALLOC_PIPE=1'b1",
        ],
    ),
    (
        "sim_router",
        "sim_router_spec",
        "vl_router_spec",
        &[
            "-GVOQ=1'b1",
            "-GREG_AVAIL=1'b1",
            "-GREG_POP=1'b1",
            "-GALLOC_SPEC=1'b1",
        ],
    ),
];

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let root = manifest
        .parent()
        .expect("sim/ lives in the workspace")
        .to_path_buf();
    let out = PathBuf::from(env::var("OUT_DIR").expect("set by cargo"));
    let trace = env::var_os("CARGO_FEATURE_TRACE").is_some();

    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=FASTHSL_RTL_STUBS");
    let stubs = env::var_os("FASTHSL_RTL_STUBS")
        .filter(|s| !s.is_empty())
        .map(PathBuf::from);
    if let Some(s) = &stubs {
        println!(
            "cargo:warning=FASTHSL_RTL_STUBS={}: building against stand-in RTL, not the real design",
            s.display()
        );
    }

    let vl_root = verilator_root();
    let vl_include = vl_root.join("include");

    // Stubs first: Verilator takes the first directory that has a module's file.
    let mut search: Vec<PathBuf> = stubs.iter().cloned().collect();
    for d in ["rtl/common", "rtl/ddc", "rtl/rcube"] {
        search.push(root.join(d));
    }
    let waivers = root.join("rtl/verilator_waivers.vlt");
    let packages = [
        root.join("rtl/pkg/fasthsl_pkg.sv"),
        root.join("rtl/common/fasthsl_link_pkg.sv"),
    ];
    let wrapper_dir = manifest.join("verilog");

    // Rebuild when a file Verilator read changes (listed per top in its __ver.d below),
    // and on edits of our own sources.
    rerun_if_changed(&waivers);
    rerun_if_changed(&wrapper_dir);
    rerun_if_changed(&manifest.join("csrc/shim.cpp"));

    let mut fast = Vec::new();
    let mut slow = Vec::new();
    let mut global = BTreeSet::new();
    let mut model_dirs = Vec::new();
    let mut clk_prev = Vec::new();
    for (top, name, sub, params) in TOPS {
        let mdir = out.join(sub);
        // Stale files from an earlier run would only confuse a reader; the lists come
        // from the fresh _classes.mk either way.
        let _ = fs::remove_dir_all(&mdir);
        fs::create_dir_all(&mdir).expect("create Verilator output directory");
        let mut cmd = Command::new("verilator");
        cmd.args([
            "--cc",
            "-Wall",
            "-Wno-fatal",
            "--x-assign",
            "fast",
            "--x-initial",
            "fast",
            // Inline every module: the shim's idle skip compares the root object, which
            // holds the whole state only if no module stays a class of its own
            // (checked below).
            "--inline-mult",
            "0",
        ])
        .args(["--top-module", top, "--prefix", &format!("V{name}")])
        .args(params)
        .arg("-Mdir")
        .arg(&mdir);
        if trace {
            cmd.arg("--trace-fst");
        }
        cmd.arg(&waivers).args(&packages);
        for d in &search {
            cmd.arg("-y").arg(d);
        }
        cmd.arg(wrapper_dir.join(format!("{top}.sv")));
        let output = cmd.output().unwrap_or_else(|e| no_verilator(&e));
        let log = String::from_utf8_lossy(&output.stderr);
        if !output.status.success() {
            panic!(
                "verilator failed on {name}:\n{log}\n(command: {cmd:?})\n\
                 If a module is missing, the RTL is incomplete; for development set \
                 FASTHSL_RTL_STUBS to a directory of stand-in modules."
            );
        }
        report_warnings(name, &log, &wrapper_dir);
        for dep in verilator_deps(&mdir.join(format!("V{name}__ver.d"))) {
            rerun_if_changed(&dep);
        }

        let mk = fs::read_to_string(mdir.join(format!("V{name}_classes.mk")))
            .expect("Verilator wrote the _classes.mk file");
        let lists = parse_classes_mk(&mk);
        let get = |keys: &[&str]| -> Vec<String> {
            lists
                .iter()
                .filter(|(n, _)| keys.contains(&n.as_str()))
                .flat_map(|(_, v)| v.iter().cloned())
                .collect()
        };
        if let Some(c) = get(&["VM_CLASSES_FAST", "VM_CLASSES_SLOW"])
            .iter()
            .find(|c| {
                let rest = c.strip_prefix(&format!("V{name}")).unwrap_or("?");
                !(rest.is_empty()
                    || rest.starts_with("___024root")
                    || rest.starts_with("__ConstPool"))
            })
        {
            panic!(
                "Verilator kept {c} as a class of its own: the model state would not all be \
                 in the root object, which the shim's exact idle skip relies on"
            );
        }
        for c in get(&["VM_CLASSES_FAST", "VM_SUPPORT_FAST"]) {
            fast.push(mdir.join(format!("{c}.cpp")));
        }
        for c in get(&["VM_CLASSES_SLOW", "VM_SUPPORT_SLOW"]) {
            slow.push(mdir.join(format!("{c}.cpp")));
        }
        for c in get(&["VM_GLOBAL_FAST", "VM_GLOBAL_SLOW"]) {
            global.insert(vl_include.join(format!("{c}.cpp")));
        }
        clk_prev.push(clock_prev_member(
            &mdir.join(format!("V{name}___024root.h")),
        ));
        model_dirs.push(mdir);
    }

    let mut base = cc::Build::new();
    base.cpp(true)
        .std("c++17")
        .debug(false)
        .warnings(false)
        .include(&vl_include)
        .include(vl_include.join("vltstd"))
        .define("VM_COVERAGE", "0")
        .define("VM_SC", "0")
        .define("VM_TRACE", if trace { "1" } else { "0" })
        .define("VM_TRACE_FST", if trace { "1" } else { "0" })
        .define("VM_TRACE_VCD", "0");
    for d in &model_dirs {
        base.include(d);
    }
    // Flags verilated.mk always passes; they only silence noise in generated code.
    for f in [
        "-faligned-new",
        "-fcf-protection=none",
        "-Wno-bool-operation",
        "-Wno-sign-compare",
        "-Wno-uninitialized",
        "-Wno-unused-but-set-variable",
        "-Wno-unused-parameter",
        "-Wno-unused-variable",
        "-Wno-shadow",
    ] {
        base.flag_if_supported(f);
    }
    if trace {
        base.define("FASTHSL_TRACE", None);
    }
    // All models must agree: the shim uses one member name for all of them.
    match clk_prev.first() {
        Some(Some(a)) if clk_prev.iter().all(|m| m.as_deref() == Some(a.as_str())) => {
            base.define("FH_CLK_PREV", a.as_str());
        }
        _ => println!(
            "cargo:warning=this Verilator's scheduler layout is unknown: models run two \
             evals per cycle (slower, still correct)"
        ),
    }

    // Construction and initial-value code runs once: build it cheaply. The per-cycle
    // code is what the simulation speed depends on, so it gets -O2 even in debug builds.
    let slow_objs = base
        .clone()
        .opt_level(1)
        .files(&slow)
        .compile_intermediates();
    let mut lib = base;
    lib.opt_level(2)
        .files(&fast)
        .files(&global)
        .file(manifest.join("csrc/shim.cpp"))
        .objects(&slow_objs)
        .compile("fasthsl_verilated");

    for l in ["z", "pthread", "atomic"] {
        println!("cargo:rustc-link-lib={l}");
    }
}

/// The generated root's member holding the clock's value at the previous eval (its
/// name differs between Verilator releases). The shim uses it to run a cycle in one
/// eval; without it, the shim falls back to two.
fn clock_prev_member(root_header: &Path) -> Option<String> {
    let h = fs::read_to_string(root_header).ok()?;
    [
        "__Vtrigrprev__TOP__clk_i",
        "__Vtrigprevexpr___TOP__clk_i__0",
    ]
    .into_iter()
    .find(|m| h.contains(&format!(" {m};")))
    .map(str::to_string)
}

fn rerun_if_changed(p: &Path) {
    println!("cargo:rerun-if-changed={}", p.display());
}

/// The inputs Verilator read for one top (the right-hand side of its __ver.d):
/// every RTL file it used, the waivers, the wrapper and the Verilator binary itself.
/// (A module file that appears later only matters once a file we read names it.)
fn verilator_deps(ver_d: &Path) -> BTreeSet<PathBuf> {
    let text = fs::read_to_string(ver_d).expect("Verilator wrote its __ver.d file");
    let inputs = text.split_once(" : ").map(|(_, r)| r).unwrap_or("");
    inputs.split_whitespace().map(PathBuf::from).collect()
}

fn no_verilator(e: &std::io::Error) -> ! {
    panic!(
        "cannot run `verilator` ({e}): fasthsl-sim builds the RTL with Verilator 5.006 or \
         later; install it: apt-get install verilator, or run `make run`"
    )
}

fn verilator_root() -> PathBuf {
    let out = Command::new("verilator")
        .args(["--getenv", "VERILATOR_ROOT"])
        .output()
        .unwrap_or_else(|e| no_verilator(&e));
    let root = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || root.is_empty() {
        panic!(
            "`verilator --getenv VERILATOR_ROOT` gave no directory: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let root = PathBuf::from(root);
    if !root.join("include/verilated.cpp").exists() {
        panic!(
            "Verilator's run-time sources are not in {}/include; is the installation complete?",
            root.display()
        );
    }
    root
}

/// Our own wrappers must be lint-clean; warnings from the RTL proper are passed on
/// (the RTL has its own lint gate) without breaking the build.
fn report_warnings(top: &str, log: &str, wrapper_dir: &Path) {
    let wrapper = wrapper_dir.to_string_lossy();
    let mut own = Vec::new();
    for line in log.lines().filter(|l| l.starts_with("%Warning")) {
        if line.contains(wrapper.as_ref()) {
            own.push(line);
        } else {
            println!("cargo:warning=verilator ({top}): {line}");
        }
    }
    if !own.is_empty() {
        panic!(
            "the simulation wrappers must be -Wall clean:\n{}",
            own.join("\n")
        );
    }
}

/// `VM_X += \` followed by one tab-indented name per line, up to a blank line.
fn parse_classes_mk(mk: &str) -> Vec<(String, Vec<String>)> {
    let mut lists = Vec::new();
    let mut cur: Option<(String, Vec<String>)> = None;
    for line in mk.lines() {
        if let Some((name, items)) = cur.as_mut() {
            let item = line.trim().trim_end_matches('\\').trim();
            if line.starts_with(char::is_whitespace) && !item.is_empty() {
                items.push(item.to_string());
                continue;
            }
            lists.push((std::mem::take(name), std::mem::take(items)));
            cur = None;
        }
        if let Some(name) = line.strip_suffix("+= \\") {
            cur = Some((name.trim().to_string(), Vec::new()));
        }
    }
    if let Some(c) = cur {
        lists.push(c);
    }
    lists
}
