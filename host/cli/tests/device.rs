//! The benchmarks on cards served by another process: `fasthsl serve` runs a simulated
//! cluster, `fasthsl bench ... --device vfio-user:SOCKET` drives it through the
//! vfio-user client backend, exactly as it would drive real cards.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

fn fasthsl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fasthsl"))
        .args(args)
        .output()
        .expect("run fasthsl")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A `fasthsl serve` process; killed (by its own id) when dropped.
struct Served {
    child: Child,
    sockets: Vec<String>,
    dir: PathBuf,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Starts `fasthsl serve --topology SPEC` and reads the socket of every node.
fn serve(tag: &str, spec: &str, nodes: usize) -> Served {
    let dir = std::env::temp_dir().join(format!("fasthsl-cli-{tag}-{}", std::process::id()));
    let mut child = Command::new(env!("CARGO_BIN_EXE_fasthsl"))
        .args(["serve", "--topology", spec, "--socket"])
        .arg(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start fasthsl serve");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut sockets = Vec::new();
    for n in 0..nodes {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        let path = line
            .trim()
            .strip_prefix(&format!("node {n}: "))
            .unwrap_or_else(|| panic!("serve printed {line:?}"));
        sockets.push(format!("vfio-user:{path}"));
    }
    Served {
        child,
        sockets,
        dir,
    }
}

/// Ends the test process if it is still running after `secs` seconds (a stuck server
/// or client must fail the test, not hang it).
fn watchdog(secs: u64) {
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(secs));
        eprintln!("watchdog: still running after {secs} s, giving up");
        std::process::exit(101);
    });
}

fn json_lines(o: &Output) -> Vec<Value> {
    assert!(
        o.status.success(),
        "{}\n{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    text(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn pingpong_on_two_served_cards() {
    watchdog(240);
    let s = serve("pp", "full:2", 2);
    let mut args = vec![
        "bench",
        "pingpong",
        "--sizes",
        "8,3000",
        "--iterations",
        "2",
        "--stream-bytes",
        "8",
        "--bidir-size",
        "0",
        "--layer",
        "--json",
    ];
    for d in &s.sockets {
        args.extend(["--device", d.as_str()]);
    }
    let o = fasthsl(&args);
    let v = json_lines(&o);
    assert_eq!(v.len(), 3, "two sizes and a summary: {v:?}");
    for (p, size) in v.iter().zip([8, 3000]) {
        assert_eq!(p["size"], size);
        let ns = p["one_way_ns"].as_f64().unwrap();
        // A round trip crosses two routers and the modeled PCIe twice: hundreds of ns.
        assert!(ns > 200.0, "{p}");
        assert!(p["one_way_cycles"].as_f64().unwrap() > 50.0, "{p}");
        assert!(p["mbytes_per_s"].as_f64().unwrap() > 0.0, "{p}");
        assert_eq!(p["stream_messages"], 8);
        // The message layer on the same cards: its own ping-pong, and the difference.
        let layer = p["layer_one_way_ns"].as_f64().unwrap();
        assert!(layer > 200.0, "{p}");
        let added = p["layer_overhead_ns"].as_f64().unwrap();
        assert!((added - (layer - ns)).abs() < 1e-6, "{p}");
    }
    let sum = &v[2];
    assert_eq!(sum["backend"], "vfio-user");
    assert_eq!(sum["clock"], "modeled_cycles");
    assert_eq!(sum["topology"], "full:2");
    assert_eq!(sum["iommu_faults"], 0);
    assert_eq!(sum["devices"].as_array().unwrap().len(), 2);
    assert!(sum["sim_cycles"].as_u64().unwrap() > 0);
}

#[test]
fn exchange_bcast_sharing_on_three_served_cards_and_device_errors() {
    watchdog(240);
    let s = serve("ex", "full:3", 3);
    let mut args = vec![
        "bench",
        "exchange",
        "--iterations",
        "3",
        "--latency",
        "--json",
    ];
    for d in &s.sockets {
        args.extend(["--device", d.as_str()]);
    }
    let v = json_lines(&fasthsl(&args));
    assert_eq!(v.len(), 2, "{v:?}");
    assert!(v[0]["exchange_ns"].as_f64().unwrap() > 400.0, "{}", v[0]);
    assert_eq!(v[0]["clock"], "modeled_cycles");
    assert!(v[1]["layer_one_way_ns"].as_f64().unwrap() > 0.0);
    assert!(v[1]["raw_one_way_ns"].as_f64().unwrap() > 0.0);

    // Broadcast and sharing on the same cards (the served cluster is reused: each run
    // reconfigures the cards).
    let mut args = vec!["bench", "bcast", "--sizes", "8,5000", "--json"];
    for d in &s.sockets {
        args.extend(["--device", d.as_str()]);
    }
    let v = json_lines(&fasthsl(&args));
    assert_eq!(v.len(), 2, "{v:?}");
    for p in &v {
        assert_eq!(p["nodes"], 3);
        assert_eq!(p["clock"], "modeled_cycles");
        assert!(p["latency_ns"].as_f64().unwrap() > 600.0, "{p}");
    }
    let scheme = s.dir.with_extension("scheme");
    std::fs::write(&scheme, "a 0 2 16K\nb 1 2 16K\n").unwrap();
    let mut args = vec![
        "bench",
        "sharing",
        "--scheme",
        scheme.to_str().unwrap(),
        "--json",
    ];
    for d in &s.sockets {
        args.extend(["--device", d.as_str()]);
    }
    let v = json_lines(&fasthsl(&args));
    let _ = std::fs::remove_file(&scheme);
    assert_eq!(v.len(), 2, "{v:?}");
    for p in &v {
        assert_eq!(p["backend"], "vfio-user");
        // Each flow on its own context of its source card (the served cards have them).
        assert_eq!(p["context"], 1, "{p}");
        // Two flows into one node share its ejection link.
        assert!(p["penalty"].as_f64().unwrap() > 1.3, "{p}");
        assert!(p["fair_penalty"].as_f64().unwrap() > 1.9, "{p}");
    }

    // The topology must agree with the number of cards.
    let mut bad = vec!["bench", "exchange", "--topology", "full:4"];
    for d in &s.sockets {
        bad.extend(["--device", d.as_str()]);
    }
    let o = fasthsl(&bad);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("full:4 has 4 nodes but 3 --device card(s)"),
        "{}",
        text(&o.stderr)
    );
    // Cards out of node order are refused before anything runs.
    let swapped = [
        "bench",
        "pingpong",
        "--device",
        &s.sockets[1],
        "--device",
        &s.sockets[0],
        "--topology",
        "full:2",
    ];
    let o = fasthsl(&swapped);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("list the sockets in node order"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn device_arguments_fail_clearly() {
    let o = fasthsl(&[
        "bench", "pingpong", "--device", "01:00", "--device", "01:01",
    ]);
    assert!(!o.status.success());
    let e = text(&o.stderr);
    assert!(e.contains("is not a PCI address"), "{e}");
    assert!(e.contains("vfio-user:"), "{e}");

    let o = fasthsl(&[
        "bench",
        "pingpong",
        "--device",
        "vfio-user:/nonexistent/fasthsl.sock",
        "--device",
        "vfio-user:/nonexistent/fasthsl1.sock",
    ]);
    assert!(!o.status.success());
    let e = text(&o.stderr);
    assert!(e.contains("/nonexistent/fasthsl.sock"), "{e}");
    assert!(e.contains("fasthsl serve"), "{e}");

    let o = fasthsl(&["bench", "router", "--device", "0000:01:00.0"]);
    assert!(!o.status.success());
    let e = text(&o.stderr);
    assert!(e.contains("cannot run on a card"), "{e}");

    let o = fasthsl(&["bench", "pingpong", "--device", "vfio-user:/x.sock"]);
    assert!(!o.status.success());
    let e = text(&o.stderr);
    assert!(e.contains("needs two nodes"), "{e}");
}
