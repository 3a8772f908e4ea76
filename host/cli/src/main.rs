//! `fasthsl`: run the simulated FastHSL cluster, find and inspect real cards.

/// `println!` that treats a closed stdout (`fasthsl ... | head`) as the end of the
/// output instead of panicking.
macro_rules! outln {
    () => { $crate::out_line(format_args!("")) };
    ($($t:tt)*) => { $crate::out_line(format_args!($($t)*)) };
}

mod bench;
mod bringup;
mod demo;
mod plot;
mod real;
mod serve;

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Parser, Subcommand};
use fasthsl_driver::contract::MSG_LEN_MAX;
use fasthsl_topology::{Routing, Topology};
use serde_json::json;

/// FastHSL: remote-write NIC (PCI-DDC) and RCUBE router, simulated or real.
#[derive(Debug, Parser)]
#[command(name = "fasthsl", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Bring up a simulated cluster, verify remote writes of 1 B up to --max-size
    /// between node pairs, then measure ping-pong latency and bandwidth
    Demo(DemoArgs),
    /// List the FastHSL cards on this machine and whether VFIO can use them
    List {
        /// Print JSON instead of a table
        #[arg(long)]
        json: bool,
    },
    /// Show identity, version, registers and router page of a real card (VFIO)
    Info {
        /// PCI address of the card, e.g. 0000:01:00.0 (see `fasthsl list`)
        #[arg(long, value_name = "PCI_ADDR")]
        device: String,
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
    /// Card counters: of every simulated node after a short demo, or of a real card
    /// with --device
    Stats(StatsArgs),
    /// Performance experiments on the simulated cluster, or on cards with --device (JSON
    /// lines with --json, plots with --plot)
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Serve a simulated card (or a whole simulated cluster, one socket per node) over
    /// vfio-user, for drivers and guests in other processes
    Serve(serve::ServeArgs),
}

#[derive(Debug, Args)]
struct ClusterArgs {
    /// Network [default: full:2]: star:N (N <= 8 nodes on one router), full:N (a router
    /// per node, all cabled to each other, N <= 8), ring:N (2..64), mesh:XxY, torus:XxY
    /// (X*Y <= 64, torus sides >= 2), hypercube:D (D <= 6, 2^D nodes). One router per
    /// node except star; deadlock-free routing without virtual channels (rings and tori
    /// route around a dateline at node/coordinate 0)
    #[arg(long, value_name = "SPEC", value_parser = parse_topology)]
    topology: Option<Topology>,
    /// Shorthand for --topology full:N
    #[arg(long, value_name = "N", conflicts_with = "topology",
          value_parser = clap::value_parser!(u16).range(2..=8))]
    nodes: Option<u16>,
    /// Seed of every random choice (sizes, alignments, pairs, data); modeled results
    /// are the same for the same seed
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Routing tables: deterministic, or adaptive (alternatives on mesh and hypercube,
    /// `Topology::adaptive_tables`) with every write sent DESC_FLAG_ADAPTIVE
    #[arg(long, value_name = "ROUTING", default_value = "deterministic",
          value_parser = parse_routing)]
    routing: Routing,
    /// Print one JSON object on stdout instead of tables (no progress bar)
    #[arg(long)]
    json: bool,
}

impl ClusterArgs {
    fn topology(&self) -> Topology {
        match (&self.topology, self.nodes) {
            (Some(t), _) => t.clone(),
            (None, Some(n)) => Topology::full(n.into()).expect("range checked by clap"),
            (None, None) => Topology::full(2).expect("2 nodes are valid"),
        }
    }
}

#[derive(Debug, Args)]
struct DemoArgs {
    #[command(flatten)]
    cluster: ClusterArgs,
    /// Largest message, bytes; K/KiB, M/MiB suffixes accepted (at most 16 MiB)
    #[arg(long, value_name = "BYTES", default_value = "1MiB", value_parser = parse_size)]
    max_size: usize,
    /// Timed round trips per ping-pong size
    #[arg(long, value_name = "N", default_value_t = 3,
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    iterations: u32,
    /// Write an FST waveform of every NIC and router model into DIR (GTKWave, Surfer).
    /// Needs a build with `--features trace` (`make wave` does it); tracing runs at
    /// roughly a tenth of the normal speed, so pair it with a small --max-size
    #[arg(long, value_name = "DIR")]
    wave: Option<std::path::PathBuf>,
}

#[derive(Debug, Args)]
struct StatsArgs {
    #[command(flatten)]
    cluster: ClusterArgs,
    /// Read the counters of the real card at this PCI address instead
    #[arg(long, value_name = "PCI_ADDR", conflicts_with_all = ["topology", "nodes"])]
    device: Option<String>,
}

fn parse_topology(s: &str) -> Result<Topology, String> {
    s.parse::<Topology>().map_err(|e| e.to_string())
}

fn parse_routing(s: &str) -> Result<Routing, String> {
    s.parse::<Routing>().map_err(|e| e.to_string())
}

/// Bytes with an optional binary suffix: 4096, 64K, 64KiB, 1M, 1MiB.
fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: usize = num
        .parse()
        .map_err(|_| format!("'{s}' is not a size (e.g. 4096, 64KiB, 1MiB)"))?;
    let mul = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" | "kb" => 1 << 10,
        "m" | "mib" | "mb" => 1 << 20,
        _ => return Err(format!("unknown size unit '{unit}' (use K/KiB or M/MiB)")),
    };
    let v = n
        .checked_mul(mul)
        .ok_or_else(|| format!("'{s}' is too large"))?;
    if v == 0 || v as u64 > MSG_LEN_MAX {
        return Err(format!("size must be 1..={MSG_LEN_MAX} bytes, not {v}"));
    }
    Ok(v)
}

/// Writes one line to stdout; exits quietly if the reader went away.
fn out_line(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    if let Err(e) = o.write_fmt(args).and_then(|_| o.write_all(b"\n")) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: writing to stdout: {e}");
        std::process::exit(1);
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Demo(a) => demo_cmd(&a),
        Command::List { json } => real::list(json).map(|_| ExitCode::SUCCESS),
        Command::Info { device, json } => real::info(&device, json).map(|_| ExitCode::SUCCESS),
        Command::Bench(b) => bench::run(&b),
        Command::Serve(a) => serve::run(&a),
        Command::Stats(a) => match &a.device {
            Some(d) => real::stats(d, a.cluster.json).map(|_| ExitCode::SUCCESS),
            None => sim_stats(&a.cluster),
        },
    }
}

fn demo_cmd(a: &DemoArgs) -> Result<ExitCode> {
    let opts = demo::DemoOptions {
        topology: a.cluster.topology(),
        routing: a.cluster.routing,
        seed: a.cluster.seed,
        max_size: a.max_size,
        iterations: a.iterations,
        progress: !a.cluster.json && std::io::stderr().is_terminal(),
        wave: a.wave.clone(),
    };
    let (r, _bench) = demo::run(&opts)?;
    if a.cluster.json {
        let v = json!({
            "nodes": r.nodes,
            "topology": r.topology,
            "routing": r.routing.name(),
            "seed": r.seed,
            "verified": r.verified,
            "transfers": r.transfers,
            "pingpong": r.pingpong,
            "sim_cycles": r.sim_cycles,
            "sim_cycles_per_s": r.sim_cycles_per_s(),
            "iommu_faults": r.iommu_faults,
            "failures": r.failures,
        });
        outln!("{v}");
    } else {
        print_report(&r);
    }
    for f in &r.failures {
        eprintln!("FAILED: {f}");
    }
    Ok(if r.verified {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn print_report(r: &demo::Report) {
    outln!(
        "FastHSL demo: {} ({} nodes, {} routing), seed {}",
        r.topology,
        r.nodes,
        r.routing,
        r.seed
    );
    outln!(
        "remote writes: {} ({} incl. ping-pong), {}; IOMMU faults: {}, DMA port violations: {}",
        r.transfers,
        human_bytes(r.bytes),
        if r.verified {
            "every byte and LMR entry verified"
        } else {
            "VERIFICATION FAILED"
        },
        r.iommu_faults,
        r.violations
    );
    outln!();
    outln!("ping-pong node 0 <-> node 1 (one-way = round trip / 2, modeled time)");
    outln!(
        "{:>10} {:>14} {:>14} {:>10}",
        "size",
        "one-way ns",
        "cycles",
        "MB/s"
    );
    for p in &r.pingpong {
        outln!(
            "{:>10} {:>14.1} {:>14.1} {:>10.1}",
            human_size(p.size),
            p.one_way_ns,
            p.one_way_cycles,
            p.mbytes_per_s
        );
    }
    outln!();
    outln!(
        "simulator: {} cycles in {:.2} s wall = {:.2} M cycles/s",
        r.sim_cycles,
        r.wall.as_secs_f64(),
        r.sim_cycles_per_s() / 1e6
    );
}

fn human_bytes(n: u64) -> String {
    match n {
        n if n >= 1_000_000 => format!("{:.1} MB", n as f64 / 1e6),
        n if n >= 1_000 => format!("{:.1} kB", n as f64 / 1e3),
        n => format!("{n} B"),
    }
}

fn human_size(n: usize) -> String {
    match n {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => format!("{n} B"),
    }
}

/// `fasthsl stats` on the simulator: a short demo, then every node's counters.
fn sim_stats(a: &ClusterArgs) -> Result<ExitCode> {
    let opts = demo::DemoOptions {
        topology: a.topology(),
        routing: a.routing,
        seed: a.seed,
        max_size: 4096,
        iterations: 1,
        progress: false,
        wave: None,
    };
    let (r, bench) = demo::run(&opts)?;
    let topo = opts.topology;
    let mut nodes = Vec::new();
    for (n, card) in bench.cards.iter().enumerate() {
        let cnt = card.counters()?;
        let win = card.window_stats()?;
        let csr = card.csr_state()?;
        let routers = topo.managed_by(n);
        let router = if routers.is_empty() {
            None
        } else {
            Some(card.router_state()?)
        };
        nodes.push((n, cnt, win, csr, routers, router));
    }
    if a.json {
        let v = json!({
            "topology": topo.to_string(),
            "verified": r.verified,
            "sim_cycles": r.sim_cycles,
            "nodes": nodes.iter().map(|(n, c, w, s, rs, rt)| json!({
                "node": n,
                "counters": real::object(c.fields()),
                "windows": real::window_json(w),
                "status": real::object(s.status_fields()),
                "routers": rs,
                "router": rt.as_ref().map(real::router_json),
            })).collect::<Vec<_>>(),
        });
        outln!("{v}");
    } else {
        outln!(
            "{}: after a short demo ({} writes, {}), {} cycles",
            topo,
            r.transfers,
            if r.verified {
                "verified"
            } else {
                "VERIFICATION FAILED"
            },
            r.sim_cycles
        );
        for (n, c, w, s, rs, rt) in &nodes {
            outln!("node {n}:");
            real::print_counters(c);
            real::print_window_stats(w);
            real::print_status(s);
            if let Some(rt) = rt {
                outln!(" router {rs:?} (this node's router page):");
                real::print_router(rt);
            }
        }
    }
    for f in &r.failures {
        eprintln!("FAILED: {f}");
    }
    Ok(if r.verified {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("64K"), Ok(65536));
        assert_eq!(parse_size("1MiB"), Ok(1 << 20));
        assert_eq!(parse_size("16M"), Ok(16 << 20));
        assert!(parse_size("17M").is_err());
        assert!(parse_size("0").is_err());
        assert!(parse_size("1G").is_err());
        assert!(parse_size("x").is_err());
    }

    #[test]
    fn default_topology_is_full_2() {
        let cli = Cli::try_parse_from(["fasthsl", "demo"]).unwrap();
        let Command::Demo(a) = cli.command else {
            panic!()
        };
        assert_eq!(a.cluster.topology().to_string(), "full:2");
        let cli = Cli::try_parse_from(["fasthsl", "demo", "--nodes", "8"]).unwrap();
        let Command::Demo(a) = cli.command else {
            panic!()
        };
        assert_eq!(a.cluster.topology().to_string(), "full:8");
        assert!(
            Cli::try_parse_from(["fasthsl", "demo", "--nodes", "2", "--topology", "star:2"])
                .is_err()
        );
        assert_eq!(a.cluster.routing, Routing::Deterministic);
        let cli = Cli::try_parse_from(["fasthsl", "demo", "--routing", "adaptive"]).unwrap();
        let Command::Demo(a) = cli.command else {
            panic!()
        };
        assert_eq!(a.cluster.routing, Routing::Adaptive);
        assert!(Cli::try_parse_from(["fasthsl", "demo", "--routing", "west-first"]).is_err());
    }
}
