//! The `fasthsl` binary as a user sees it: help, argument errors, a small demo.

use std::process::{Command, Output};

fn fasthsl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fasthsl"))
        .args(args)
        .output()
        .expect("run fasthsl")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs `fasthsl args`, which must fail with `needle` in its error output.
fn refused(args: &[&str], needle: &str) {
    let o = fasthsl(args);
    assert!(!o.status.success(), "{args:?} succeeded");
    let e = text(&o.stderr);
    assert!(e.contains(needle), "{args:?}: {e}");
}

/// The JSON lines of a run that must have succeeded.
fn json_lines(o: &Output) -> Vec<serde_json::Value> {
    assert!(o.status.success(), "{}", text(&o.stderr));
    text(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn assert_png(path: &std::path::Path) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[1..4], b"PNG", "{}", path.display());
}

#[test]
fn help_lists_every_command() {
    let o = fasthsl(&["--help"]);
    assert!(o.status.success());
    let s = text(&o.stdout);
    for c in ["demo", "list", "info", "stats"] {
        assert!(s.contains(c), "{s}");
    }
    for c in ["demo", "list", "info", "stats"] {
        let o = fasthsl(&[c, "--help"]);
        assert!(o.status.success(), "{c} --help");
    }
    let s = text(&fasthsl(&["demo", "--help"]).stdout);
    for flag in [
        "--topology",
        "--nodes",
        "--seed",
        "--json",
        "--max-size",
        "--iterations",
    ] {
        assert!(s.contains(flag), "{flag}: {s}");
    }
}

#[test]
fn bad_arguments_fail_clearly() {
    let cases: [(&[&str], &str); 7] = [
        (
            &["demo", "--topology", "ring:99"],
            "ring supports 2..=64 nodes, not 99",
        ),
        (
            &["demo", "--topology", "banyan:4"],
            "unknown topology kind 'banyan'",
        ),
        (&["demo", "--topology", "full:9"], "1..=8 nodes, not 9"),
        (&["demo", "--nodes", "0"], "--nodes"),
        (&["demo", "--max-size", "32M"], "size must be"),
        (&["demo", "--topology", "star:1"], "at least 2 nodes"),
        (&["bogus"], "bogus"),
    ];
    for (args, needle) in cases {
        refused(args, needle);
    }
}

#[test]
fn info_on_a_missing_card_explains() {
    let o = fasthsl(&["info", "--device", "ffff:ff:1f.7"]);
    assert!(!o.status.success());
    let e = text(&o.stderr);
    assert!(
        e.contains("no PCI device ffff:ff:1f.7") && e.contains("fasthsl list"),
        "{e}"
    );
    refused(&["info", "--device", "nonsense"], "not a PCI address");
}

#[test]
fn list_runs_without_a_card() {
    let o = fasthsl(&["list"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = fasthsl(&["list", "--json"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v.is_array());
}

#[test]
fn small_demo_json_is_verified_and_deterministic() {
    let run = || {
        let o = fasthsl(&[
            "demo",
            "--json",
            "--max-size",
            "4096",
            "--iterations",
            "1",
            "--seed",
            "5",
        ]);
        assert!(o.status.success(), "stderr: {}", text(&o.stderr));
        assert!(
            o.stderr.is_empty() || !text(&o.stderr).contains('\r'),
            "no progress bar with --json"
        );
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
        v
    };
    let v = run();
    assert_eq!(v["verified"], true, "{v}");
    assert_eq!(v["nodes"], 2);
    assert_eq!(v["topology"], "full:2");
    assert_eq!(v["iommu_faults"], 0);
    assert!(v["sim_cycles_per_s"].as_f64().unwrap() > 0.0);
    let pp = v["pingpong"].as_array().unwrap();
    assert_eq!(pp.len(), 10, "8 B .. 4 KiB");
    for p in pp {
        assert!(p["one_way_ns"].as_f64().unwrap() > 0.0);
        assert!(p["one_way_cycles"].as_f64().unwrap() > 0.0);
        assert!(p["mbytes_per_s"].as_f64().unwrap() > 0.0);
    }
    // Modeled numbers depend on the seed only.
    assert_eq!(run()["pingpong"], v["pingpong"]);
}

#[test]
fn stats_shows_every_node() {
    let o = fasthsl(&["stats", "--json", "--topology", "star:3"]);
    assert!(o.status.success(), "stderr: {}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let nodes = v["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 3);
    assert!(nodes[0]["counters"]["tx_desc"].as_u64().unwrap() > 0);
    assert_eq!(nodes[0]["counters"]["dma_rd_err"].as_u64(), Some(0));
    // REL_CTRL.DEDUP is off by default: nothing dropped as a duplicate (contract 1.7).
    assert_eq!(nodes[1]["counters"]["rx_dup"].as_u64(), Some(0));
    assert_eq!(nodes[1]["counters"]["rx_seq_evict"].as_u64(), Some(0));
    assert_eq!(nodes[1]["counters"]["rx_early_nack"].as_u64(), Some(0));
    assert_eq!(nodes[1]["counters"]["rx_lmr_full"].as_u64(), Some(0));
    // The demo registers no receive window: keys not enforced, nothing refused.
    assert_eq!(nodes[1]["windows"]["rx_reject_key"].as_u64(), Some(0));
    assert_eq!(nodes[1]["windows"]["enforce"].as_bool(), Some(false));
    assert_eq!(
        nodes[0]["status"]["PUSH_STATUS"].as_u64(),
        Some(1),
        "push path free after the demo"
    );
    assert!(nodes[0]["status"]["INT_COAL_LMR_NEW"].is_u64());
    assert!(
        nodes[0]["router"].is_object(),
        "node 0 manages the star's router"
    );
    assert!(nodes[1]["router"].is_null());
}

#[test]
fn sharing_draws_its_penalty_bars() {
    let dir = std::env::temp_dir().join(format!("fasthsl-cli-sharing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scheme = dir.join("s.txt");
    std::fs::write(&scheme, "a 0 1 16K\nb 0 1 16K\n").unwrap();
    let png = dir.join("s.png");
    let o = fasthsl(&[
        "bench",
        "sharing",
        "--topology",
        "full:2",
        "--scheme",
        scheme.to_str().unwrap(),
        "--json",
        "--plot",
        png.to_str().unwrap(),
    ]);
    let lines = json_lines(&o);
    assert_eq!(lines.len(), 2);
    // Two equal flows out of one node share its link: each takes about twice as long.
    for l in &lines {
        assert!(l["penalty"].as_f64().unwrap() > 1.5, "{l}");
    }
    assert_png(&png);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sharing_gives_each_flow_a_context_and_refuses_too_many_per_source() {
    let dir = std::env::temp_dir().join(format!("fasthsl-cli-ctx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scheme = dir.join("s.txt");
    // Eight flows out of node 0: one more than the contexts a card has for flows.
    let text8: String = (0..8).map(|i| format!("f{i} 0 1 64\n")).collect();
    std::fs::write(&scheme, &text8).unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "bench",
            "sharing",
            "--topology",
            "full:2",
            "--scheme",
            scheme.to_str().unwrap(),
            "--json",
        ];
        args.extend_from_slice(extra);
        fasthsl(&args)
    };
    let o = run(&[]);
    assert!(!o.status.success());
    let e = text(&o.stderr);
    assert!(
        e.contains("node 0 is the source of 8 flows, but a card has 7 contexts"),
        "{e}"
    );
    // The old behaviour still carries it: every flow on the card's own ring.
    let o = run(&["--contexts", "shared"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let ctx: Vec<u64> = text(&o.stdout)
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["context"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(ctx, vec![0; 8]);
    // Seven fit, on contexts 1..7.
    let text7: String = text8.lines().take(7).map(|l| format!("{l}\n")).collect();
    std::fs::write(&scheme, text7).unwrap();
    let o = run(&[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let ctx: Vec<u64> = text(&o.stdout)
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["context"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(ctx, (1..=7).collect::<Vec<u64>>());
    let o = run(&["--contexts", "each"]);
    assert!(!o.status.success());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn pingpong_layer_adds_the_message_layer_beside_the_put() {
    let o = fasthsl(&[
        "bench",
        "pingpong",
        "--sizes",
        "8,8K",
        "--iterations",
        "2",
        "--stream-bytes",
        "8",
        "--bidir-size",
        "0",
        "--layer",
        "--json",
    ]);
    let v = json_lines(&o);
    assert_eq!(v.len(), 3);
    for p in &v[..2] {
        let raw = p["one_way_ns"].as_f64().unwrap();
        let layer = p["layer_one_way_ns"].as_f64().unwrap();
        // The layer sends the same bytes through the same cards, plus its own work.
        assert!(layer > raw, "{p}");
        assert_eq!(p["layer_overhead_ns"].as_f64().unwrap(), layer - raw);
    }
    // Without --layer the lines keep their fields.
    let o = fasthsl(&[
        "bench",
        "pingpong",
        "--sizes",
        "8",
        "--iterations",
        "1",
        "--stream-bytes",
        "8",
        "--bidir-size",
        "0",
        "--json",
    ]);
    let first = text(&o.stdout).lines().next().unwrap().to_string();
    assert!(!first.contains("layer"), "{first}");
}

/// `bench pingpong --json` lines (sizes 8 B and 4 KiB, then the summary) without and
/// with `flag`; asserts the flag changes neither modeled latency nor bandwidth.
fn pingpong_same_without_and_with(
    flag: &str,
    stream_bytes: &str,
) -> (Vec<serde_json::Value>, Vec<serde_json::Value>) {
    let run = |on: bool| {
        let mut args = vec![
            "bench",
            "pingpong",
            "--sizes",
            "8,4K",
            "--iterations",
            "2",
            "--stream-bytes",
            stream_bytes,
            "--bidir-size",
            "0",
            "--json",
        ];
        if on {
            args.push(flag);
        }
        let o = fasthsl(&args);
        assert!(o.status.success(), "{}", text(&o.stderr));
        text(&o.stdout)
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .collect::<Vec<_>>()
    };
    let (off, on) = (run(false), run(true));
    for k in 0..2 {
        assert_eq!(
            on[k]["one_way_cycles"], off[k]["one_way_cycles"],
            "{flag}: {}",
            on[k]
        );
        assert_eq!(
            on[k]["mbytes_per_s"], off[k]["mbytes_per_s"],
            "{flag}: {}",
            on[k]
        );
    }
    (off, on)
}

/// REL_CTRL.SENDER_WAIT (contract 1.6): the descriptor's completion waits for the ACK, which
/// is off the ping-pong's critical path and, with 16 messages unanswered at once, off the
/// streaming's: same modeled latency and bandwidth.
#[test]
fn pingpong_with_sender_wait_costs_nothing() {
    let (off, on) = pingpong_same_without_and_with("--sender-wait", "64K");
    assert_eq!(on[2]["sender_wait"].as_bool(), Some(true));
    assert_eq!(off[2]["sender_wait"].as_bool(), Some(false));
}

/// Contract 1.7 reliability on a clean link (sender wait, retries, duplicate filter): the
/// sequence check and the retransmission tags cost no cycle on the ping-pong or the stream.
#[test]
fn pingpong_reliable_costs_nothing() {
    let (off, on) = pingpong_same_without_and_with("--reliable", "64K");
    assert_eq!(on[2]["dedup"].as_bool(), Some(true));
    assert_eq!(on[2]["sender_wait"].as_bool(), Some(true));
    assert_eq!(on[2]["retries"].as_u64(), Some(7));
    assert_eq!(off[2]["retries"].as_u64(), Some(0));
    assert_eq!(on[2]["early_nack"].as_bool(), Some(true));
    assert_eq!(off[2]["early_nack"].as_bool(), Some(false));
    // More than the 4-bit REL_RETRIES holds is refused before anything runs.
    let o = fasthsl(&["bench", "pingpong", "--reliable=16", "--json"]);
    assert!(!o.status.success());
}

/// The window check costs no cycle: same modeled latency and bandwidth with keyed puts.
#[test]
fn pingpong_with_windows_measures_keyed_puts() {
    let (_, on) = pingpong_same_without_and_with("--windows", "32K");
    assert_eq!(on[2]["windows"].as_bool(), Some(true));
    assert_eq!(on[2]["iommu_faults"].as_u64(), Some(0));
    // --windows is the raw puts' option; the message layer (--layer) registers its own.
    let o = fasthsl(&["bench", "pingpong", "--windows", "--layer", "--json"]);
    assert!(!o.status.success());
}

/// `--routing adaptive`: the driver programs the adaptive tables (read back by it) and
/// every put carries DESC_FLAG_ADAPTIVE. On full:2 there is one path, so modeled latency
/// and bandwidth stay the same; the summary names the routing. A bad value is refused.
#[test]
fn pingpong_with_adaptive_routing() {
    let (off, on) = pingpong_same_without_and_with("--routing=adaptive", "32K");
    assert_eq!(on[2]["routing"].as_str(), Some("adaptive"));
    assert_eq!(off[2]["routing"].as_str(), Some("deterministic"));
    refused(
        &["bench", "pingpong", "--routing", "west-first"],
        "unknown routing 'west-first'",
    );
}

/// `bench router` with clocks: the pipelined VOQ router against the default one, in
/// cycles and, at the clocks given, in ns and MB/s per node; the plot in those units.
#[test]
fn router_bench_compares_the_pipelined_router_at_its_clock() {
    let dir = std::env::temp_dir().join(format!("fasthsl-cli-router-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("r.png");
    let o = fasthsl(&[
        "bench",
        "router",
        "--router",
        "voq,voq-pipe",
        "--offered",
        "0.1,0.4",
        "--warmup",
        "200",
        "--cycles",
        "2000",
        "--clock-mhz",
        "voq=14.5,voq-pipe=28.2",
        "--json",
        "--plot",
        png.to_str().unwrap(),
    ]);
    let lines = json_lines(&o);
    assert_eq!(lines.len(), 4);
    for l in &lines {
        let (hop, mhz) = match l["router"].as_str().unwrap() {
            "voq" => (2.0, 14.5),
            "voq-pipe" => (5.0, 28.2),
            r => panic!("router {r}"),
        };
        assert_eq!(l["zero_load_latency_per_hop"].as_f64(), Some(hop), "{l}");
        assert_eq!(l["clock_mhz"].as_f64(), Some(mhz), "{l}");
        let lat = l["latency_mean"].as_f64().unwrap();
        let ns = l["latency_mean_ns"].as_f64().unwrap();
        assert!((ns - lat * 1_000.0 / mhz).abs() < 1e-6, "{l}");
        let acc = l["accepted"].as_f64().unwrap();
        let mb = l["accepted_mbps"].as_f64().unwrap();
        assert!((mb - acc * 8.0 * mhz).abs() < 1e-6, "{l}");
        assert!(l["stable"].as_bool().unwrap(), "{l}");
    }
    assert_png(&png);
    std::fs::remove_dir_all(&dir).unwrap();
}
