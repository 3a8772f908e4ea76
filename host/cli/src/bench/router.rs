//! `fasthsl bench router`: BookSim-style synthetic traffic on the real RCUBE router RTL.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::Args;
use fasthsl_sim::traffic::{self, Pattern, RouterKind, Routing, TrafficConfig, TrafficResult};
use fasthsl_sim::Topology;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

use crate::plot::{self, Panel, Series};

/// Options of `fasthsl bench router`.
#[derive(Debug, Args)]
#[command(after_help = "\
Definitions: offered load and accepted throughput are flits per node per cycle (1.0 = link \
rate: one 64-bit flit per cycle). Sources create packets by a Bernoulli process into \
unbounded source queues; packets created during the measurement window (after --warmup) \
are measured; latency runs from a packet's creation (source queueing included) to its \
tail flit taken by the sink, in clock cycles. A point is unstable (beyond \
saturation) when the source queues grew during the window by more than 2% of the packets \
created in it, or the measured packets are not all delivered within --drain cycles after \
the window; the default sweep stops at the first unstable point. --saturate keeps every \
source queue non-empty and reports the accepted throughput as saturation_throughput. \
Zero-load latency per hop: one packet at a time through the idle network, minus what a \
bare wire from generator to sink takes, divided by the routers traversed.

Examples:
  fasthsl bench router --router fifo,voq --plot lat.png
  fasthsl bench router --router voq,voq-pipe --topology mesh:4x4 --json
  fasthsl bench router --router fifo --saturate --packet-flits 1,4,16,64 --pattern uniform,permutation
  fasthsl bench router --buf-depth 16,4096 --saturate --warmup 40000 --packet-flits 1,4,16,64 --json
  fasthsl bench router --topology full:8 --offered 0.1,0.3,0.5 --json
  fasthsl bench router --topology mesh:4x4 --pattern transpose --saturate --routing deterministic,adaptive

Adaptive routing programs the topology's adaptive tables (mesh: west-last turn model; \
hypercube: lower dimensions that set a bit may go first; other kinds stay deterministic) \
and marks every packet ADAPTIVE: a VOQ router sends it to an alternative output when its \
primary one is busy. The FIFO router ignores the alternatives.")]
pub struct RouterArgs {
    /// Router input organisation(s) to compare: fifo (one FIFO per input), voq
    /// (virtual output queues + iSLIP), voq-pipe (voq with its three pipeline options:
    /// a 5-cycle hop instead of 2, for about twice the FPGA clock; 16-flit buffers),
    /// voq-spec (experimental: voq with the three-stage allocator, a 6-cycle hop, the
    /// fastest router clock so far; 16-flit buffers); comma list or repeated
    #[arg(long, value_name = "KIND", value_delimiter = ',', default_value = "voq",
          value_parser = parse_kind)]
    router: Vec<RouterKind>,
    /// Flits per router input buffer (the link's credit pool): 16 (the card's; fifo and
    /// voq) or 4096 (voq only, with 2 iSLIP iterations: the configuration that meets the
    /// saturation goal of 0.95 for 1 to 64-flit packets; fill it with --warmup 40000);
    /// comma list. Each depth is its own Verilated model, so only these exist
    #[arg(
        long,
        value_name = "FLITS",
        value_delimiter = ',',
        default_value = "16"
    )]
    buf_depth: Vec<u32>,
    /// Routing(s) to compare: deterministic (the default tables), adaptive (adaptive
    /// tables, every packet ADAPTIVE, order per pair not checked); comma list
    #[arg(long, value_name = "ROUTING", value_delimiter = ',', default_value = "deterministic",
          value_parser = parse_routing)]
    routing: Vec<Routing>,
    /// Traffic pattern(s): uniform (to any other node), uniform-all (any node, its own
    /// included: the switch convention), permutation, hotspot[:NODE[:FRACTION]]
    /// (default node 0, 0.2), transpose (4/16/64 nodes), bitcomp (2^k nodes); comma list
    #[arg(long, value_name = "PATTERN", value_delimiter = ',', default_value = "uniform",
          value_parser = parse_pattern)]
    pattern: Vec<Pattern>,
    /// Packet length(s) in flits, 1..=64: a list (1,4,16,64) and/or ranges (1-8)
    #[arg(long, value_name = "LIST", default_value = "1", value_parser = parse_lengths)]
    packet_flits: Vec<Lengths>,
    /// Offered load(s), flits/node/cycle in (0, 1]; comma list. Default: a sweep from
    /// 0.05 in steps of 0.05 up to the first unstable point
    #[arg(long, value_name = "LOAD", value_delimiter = ',', value_parser = parse_load,
          conflicts_with = "saturate")]
    offered: Vec<f64>,
    /// Offered load 1.0 with source queues never empty: report the saturation throughput
    #[arg(long)]
    saturate: bool,
    /// Measurement window, cycles
    #[arg(long, value_name = "N", default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(100..=100_000_000))]
    cycles: u64,
    /// Warm-up before the window, cycles
    #[arg(long, value_name = "N", default_value_t = 1_000,
          value_parser = clap::value_parser!(u64).range(0..=100_000_000))]
    warmup: u64,
    /// Longest wait for the measured packets after the window, cycles
    #[arg(long, value_name = "N", default_value_t = 20_000,
          value_parser = clap::value_parser!(u64).range(0..=100_000_000))]
    drain: u64,
    /// Network: star:8 is one 8-port router with node i on port i (the default); any
    /// other spec (e.g. full:8) puts generators and sinks at the node ports of a
    /// network of router models wired as the topology says
    #[arg(long, value_name = "SPEC", value_parser = crate::parse_topology)]
    topology: Option<Topology>,
    /// Seed of every random choice; results are the same for the same seed
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Clock of each router model compared, MHz (e.g. the placed Fmax of the node rows
    /// in docs/synth-report.json: voq=16.4,voq-pipe=34.9): adds latencies in ns and
    /// throughput in MB/s per node (8-byte flits) to the results, and the plot is drawn in
    /// those units. Every router compared needs one
    #[arg(long, value_name = "ROUTER=MHZ", value_delimiter = ',', value_parser = parse_clock)]
    clock_mhz: Vec<(String, f64)>,
    /// One JSON object per run on stdout (keys: router, topology, pattern, packet_flits,
    /// offered, accepted, latency_mean, latency_p50, latency_p99, ...; with --clock-mhz
    /// also clock_mhz, latency_mean_ns, latency_p99_ns, offered_mbps, accepted_mbps)
    #[arg(long)]
    json: bool,
    /// Draw latency and accepted throughput vs offered load (or, with --saturate,
    /// saturation throughput vs packet length), one curve per configuration, as PNG
    #[arg(long, value_name = "FILE.png")]
    plot: Option<PathBuf>,
    /// Not available: this benchmark drives traffic generators wired into the Verilator
    /// model's router ports, which a card does not have (refused with an explanation)
    #[arg(long = "device", value_name = "ADDR")]
    devices: Vec<String>,
}

/// Packet lengths given as one argument.
#[derive(Debug, Clone)]
pub struct Lengths(Vec<u32>);

fn parse_kind(s: &str) -> Result<RouterKind, String> {
    s.parse().map_err(|e: traffic::TrafficError| e.to_string())
}

fn parse_clock(s: &str) -> Result<(String, f64), String> {
    let (name, mhz) = s
        .split_once('=')
        .ok_or_else(|| format!("'{s}': give ROUTER=MHZ, e.g. voq-pipe=28.2"))?;
    let mhz: f64 = mhz
        .trim()
        .parse()
        .map_err(|_| format!("'{s}': clock '{mhz}' is not a number (MHz)"))?;
    if !(mhz.is_finite() && mhz > 0.0 && mhz <= 10_000.0) {
        return Err(format!("'{s}': clock must be in (0, 10000] MHz"));
    }
    Ok((name.trim().to_ascii_lowercase(), mhz))
}

fn parse_routing(s: &str) -> Result<Routing, String> {
    s.parse()
        .map_err(|e: fasthsl_topology::UnknownRouting| e.to_string())
}

fn parse_pattern(s: &str) -> Result<Pattern, String> {
    s.parse().map_err(|e: traffic::TrafficError| e.to_string())
}

fn parse_load(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a number"))?;
    if v > 0.0 && v <= 1.0 {
        Ok(v)
    } else {
        Err(format!(
            "offered load must be in (0, 1] flits/node/cycle, not {v}"
        ))
    }
}

/// `1,4,16,64`, `1-8`, or a mix.
fn parse_lengths(s: &str) -> Result<Lengths, String> {
    let one = |t: &str| -> Result<u32, String> {
        let v: u32 = t
            .trim()
            .parse()
            .map_err(|_| format!("'{t}' is not a packet length"))?;
        if (1..=traffic::MAX_PACKET_FLITS).contains(&v) {
            Ok(v)
        } else {
            Err(format!(
                "packet length must be 1..={} flits, not {v}",
                traffic::MAX_PACKET_FLITS
            ))
        }
    };
    let mut out = Vec::new();
    for part in s.split(',') {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (one(a)?, one(b)?);
                if a > b {
                    return Err(format!("range {a}-{b} is empty"));
                }
                out.extend(a..=b);
            }
            None => out.push(one(part)?),
        }
    }
    Ok(Lengths(out))
}

/// A router model: organisation and input buffer depth.
#[derive(Debug, Clone, Copy, PartialEq)]
struct RouterModel {
    kind: RouterKind,
    buf_depth: u32,
}

impl std::fmt::Display for RouterModel {
    /// `voq` for the card's depth, `voq/4096` for another.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.buf_depth == traffic::CARD_BUF_DEPTH {
            write!(f, "{}", self.kind)
        } else {
            write!(f, "{}/{}", self.kind, self.buf_depth)
        }
    }
}

/// Every (organisation, depth) pair asked for that has a model. A depth no asked-for
/// organisation is built with is an error; fifo is quietly left out of a depth only
/// voq has, so `--router fifo,voq --buf-depth 16,4096` compares the three models.
fn router_models(kinds: &[RouterKind], depths: &[u32]) -> Result<Vec<RouterModel>> {
    let mut out = Vec::new();
    for &buf_depth in depths {
        let before = out.len();
        for &kind in kinds {
            if kind.buf_depths().contains(&buf_depth) {
                out.push(RouterModel { kind, buf_depth });
            }
        }
        if out.len() == before {
            let have: Vec<String> = kinds
                .iter()
                .map(|k| format!("{k}: {}", k.buf_depth_list(", ")))
                .collect();
            bail!(
                "--buf-depth {buf_depth}: no router model with {buf_depth}-flit buffers \
                 (simulated depths, {})",
                have.join("; ")
            );
        }
    }
    Ok(out)
}

/// Each router model's clock from --clock-mhz (by the name results show: voq, voq-pipe,
/// voq/4096, fifo): none without the option, all or an error with it.
fn router_clocks(
    routers: &[RouterModel],
    given: &[(String, f64)],
) -> Result<Vec<(RouterModel, f64)>> {
    if given.is_empty() {
        return Ok(Vec::new());
    }
    let names: Vec<String> = routers.iter().map(ToString::to_string).collect();
    for (n, _) in given {
        if !names.contains(n) {
            bail!(
                "--clock-mhz {n}=...: no router '{n}' in this run (routers: {})",
                names.join(", ")
            );
        }
    }
    routers
        .iter()
        .zip(&names)
        .map(|(&r, n)| match given.iter().rev().find(|(g, _)| g == n) {
            Some(&(_, mhz)) => Ok((r, mhz)),
            None => bail!(
                "--clock-mhz has no clock for router '{n}': give one for each of {}",
                names.join(", ")
            ),
        })
        .collect()
}

/// Flits per node per cycle at `mhz` as MB/s per node (8-byte flits).
fn mbps(flits_per_cycle: f64, mhz: f64) -> f64 {
    flits_per_cycle * 8.0 * mhz
}

/// One configuration's results, in run order.
struct Curve {
    router: RouterModel,
    /// MHz, with --clock-mhz
    clock: Option<f64>,
    routing: Routing,
    pattern: Pattern,
    flits: u32,
    points: Vec<TrafficResult>,
}

impl Curve {
    fn label(&self) -> String {
        let base = match self.routing {
            Routing::Deterministic => {
                format!("{} {} {}-flit", self.router, self.pattern, self.flits)
            }
            Routing::Adaptive => format!(
                "{} adaptive {} {}-flit",
                self.router, self.pattern, self.flits
            ),
        };
        match self.clock {
            Some(mhz) => format!("{base} @ {mhz} MHz"),
            None => base,
        }
    }
}

/// Runs the benchmark.
pub fn run(a: &RouterArgs) -> Result<ExitCode> {
    crate::bringup::no_devices(
        &a.devices,
        "`bench router` cannot run on a card: it drives traffic generators placed at the \
         router's ports inside the Verilator model, and a card's router ports are cabled to \
         its NIC and other cards. Measure a card's router with `bench pingpong`, `exchange`, \
         `bcast` or `sharing --device ...`, or run `bench router` without --device",
    )?;
    let topology = match &a.topology {
        Some(t) => t.clone(),
        None => Topology::star(8).expect("star:8 is valid"),
    };
    let mut lengths: Vec<u32> = a.packet_flits.iter().flat_map(|l| l.0.clone()).collect();
    dedup(&mut lengths);
    let mut kinds = a.router.clone();
    dedup(&mut kinds);
    let mut depths = a.buf_depth.clone();
    dedup(&mut depths);
    let routers = router_models(&kinds, &depths)?;
    let clocks = router_clocks(&routers, &a.clock_mhz)?;
    let clock_of = |r: RouterModel| clocks.iter().find(|x| x.0 == r).map(|x| x.1);
    let mut routings = a.routing.clone();
    dedup(&mut routings);
    let mut patterns: Vec<Pattern> = Vec::new();
    for p in &a.pattern {
        if !patterns.contains(p) {
            patterns.push(*p);
        }
    }
    let sweep = a.offered.is_empty() && !a.saturate;
    let loads: Vec<f64> = if a.saturate {
        vec![1.0]
    } else if sweep {
        (1..=20).map(|i| f64::from(i) / 20.0).collect()
    } else {
        a.offered.clone()
    };
    if let Some(p) = &a.plot {
        if p.extension().and_then(|e| e.to_str()) != Some("png") {
            bail!(
                "--plot writes PNG: give a file name ending in .png, not {}",
                p.display()
            );
        }
    }

    let configs = routers.len() * routings.len() * patterns.len() * lengths.len();
    let bar = if std::io::stderr().is_terminal() {
        let b = ProgressBar::new((configs * loads.len()) as u64);
        b.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} runs {msg}")
                .expect("valid template"),
        );
        b
    } else {
        ProgressBar::hidden()
    };

    // Zero-load latency per hop, once per router organisation (single packets, 1 flit).
    let mut per_hop = Vec::new();
    for &r in &routers {
        bar.set_message(format!("{r}: zero-load latency"));
        let z = traffic::zero_load(r.kind, r.buf_depth, &topology, 1)
            .with_context(|| format!("zero-load latency of the {r} router"))?;
        per_hop.push((r, z.per_hop));
    }
    let hop_of = |r: RouterModel| per_hop.iter().find(|x| x.0 == r).map_or(0.0, |x| x.1);

    if !a.json {
        outln!(
            "RCUBE router benchmark: {topology} ({} nodes, {} routers), seed {}, warm-up {} + window {} cycles",
            topology.nodes(),
            topology.routers(),
            a.seed,
            a.warmup,
            a.cycles
        );
        for (r, h) in &per_hop {
            outln!("{r}: zero-load latency {h:.2} cycles per router hop");
        }
        if !depths.contains(&traffic::DEEP_BUF_DEPTH) && kinds.contains(&RouterKind::Voq) {
            outln!(
                "input buffers: {} flits (the card's); --buf-depth {} adds the deep VOQ model \
                 that reaches 0.95 of link rate at saturation",
                traffic::CARD_BUF_DEPTH,
                traffic::DEEP_BUF_DEPTH
            );
        }
        outln!(
            "loads in flits/node/cycle; latency in cycles from packet creation to tail delivered"
        );
        if !clocks.is_empty() {
            let list: Vec<String> = clocks.iter().map(|(r, f)| format!("{r} {f} MHz")).collect();
            outln!(
                "at {}: lat_ns is lat_mean in ns, MB/s the accepted throughput per node",
                list.join(", ")
            );
        }
        outln!();
        outln!(
            "{:<9} {:<13} {:<14} {:>5} {:>7} {:>8} {:>8} {:>9} {:>6} {:>6} {}{}",
            "router",
            "routing",
            "pattern",
            "flits",
            "offered",
            "injected",
            "accepted",
            "lat_mean",
            "p50",
            "p99",
            if clocks.is_empty() {
                String::new()
            } else {
                format!("{:>8} {:>7} ", "lat_ns", "MB/s")
            },
            " note"
        );
    }

    let mut curves = Vec::new();
    for &router in &routers {
        for (&routing, &pattern) in routings
            .iter()
            .flat_map(|r| patterns.iter().map(move |p| (r, p)))
        {
            for &flits in &lengths {
                let mut curve = Curve {
                    router,
                    clock: clock_of(router),
                    routing,
                    pattern,
                    flits,
                    points: Vec::new(),
                };
                for (i, &offered) in loads.iter().enumerate() {
                    bar.set_message(format!("{} @ {offered:.2}", curve.label()));
                    let c = TrafficConfig {
                        router: router.kind,
                        buf_depth: router.buf_depth,
                        topology: topology.clone(),
                        pattern,
                        packet_flits: flits,
                        offered,
                        saturate: a.saturate,
                        warmup: a.warmup,
                        measure: a.cycles,
                        drain_max: a.drain,
                        seed: a.seed,
                        routing,
                    };
                    let r = traffic::run(&c)
                        .with_context(|| format!("{} at offered load {offered}", curve.label()))?;
                    bar.inc(1);
                    bar.suspend(|| print_point(a, &topology, &curve, &r, hop_of(router)));
                    let stop = sweep && !r.stable;
                    curve.points.push(r);
                    if stop {
                        bar.inc((loads.len() - i - 1) as u64);
                        break;
                    }
                }
                curves.push(curve);
            }
        }
    }
    bar.finish_and_clear();

    if let Some(path) = &a.plot {
        draw(path, a, &topology, &curves)?;
        if !a.json {
            outln!();
            outln!("plot: {}", path.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn dedup<T: PartialEq + Copy>(v: &mut Vec<T>) {
    let mut out: Vec<T> = Vec::with_capacity(v.len());
    for &x in v.iter() {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    *v = out;
}

fn print_point(a: &RouterArgs, topology: &Topology, c: &Curve, r: &TrafficResult, per_hop: f64) {
    let lat = r.latency;
    if a.json {
        let mut v = json!({
            "router": c.router.kind.name(),
            "buf_depth": c.router.buf_depth,
            "routing": c.routing.name(),
            "topology": topology.to_string(),
            "pattern": c.pattern.name(),
            "packet_flits": c.flits,
            "offered": r.offered,
            "injected": r.injected,
            "accepted": r.accepted,
            "latency_mean": lat.map(|l| l.mean),
            "latency_p50": lat.map(|l| l.p50),
            "latency_p99": lat.map(|l| l.p99),
            "latency_max": lat.map(|l| l.max),
            "stable": r.stable,
            "measured_packets": r.measured_packets,
            "mean_hops": r.mean_hops,
            "zero_load_latency_per_hop": per_hop,
            "seed": a.seed,
            "warmup": a.warmup,
            "cycles": a.cycles,
            "sim_cycles": r.cycles,
        });
        if a.saturate {
            v["saturation_throughput"] = json!(r.accepted);
        }
        if let Some(mhz) = c.clock {
            let ns = 1_000.0 / mhz;
            v["clock_mhz"] = json!(mhz);
            v["latency_mean_ns"] = json!(lat.map(|l| l.mean * ns));
            v["latency_p99_ns"] = json!(lat.map(|l| l.p99 as f64 * ns));
            v["offered_mbps"] = json!(mbps(r.offered, mhz));
            v["accepted_mbps"] = json!(mbps(r.accepted, mhz));
        }
        outln!("{v}");
        return;
    }
    let (mean, p50, p99) = match lat {
        Some(l) => (
            format!("{:.1}", l.mean),
            l.p50.to_string(),
            l.p99.to_string(),
        ),
        None => ("-".into(), "-".into(), "-".into()),
    };
    let note = if a.saturate {
        format!("saturation throughput {:.3}", r.accepted)
    } else if !r.stable {
        "unstable (beyond saturation)".into()
    } else {
        String::new()
    };
    let at_clock = match c.clock {
        Some(mhz) => format!(
            "{:>8} {:>7.1} ",
            lat.map_or("-".into(), |l| format!("{:.0}", l.mean * 1_000.0 / mhz)),
            mbps(r.accepted, mhz)
        ),
        None => String::new(),
    };
    outln!(
        "{:<9} {:<13} {:<14} {:>5} {:>7.3} {:>8.3} {:>8.3} {:>9} {:>6} {:>6} {} {}",
        c.router.to_string(),
        c.routing.name(),
        c.pattern.name(),
        c.flits,
        r.offered,
        r.injected,
        r.accepted,
        mean,
        p50,
        p99,
        at_clock,
        note
    );
}

fn draw(
    path: &std::path::Path,
    a: &RouterArgs,
    topology: &Topology,
    curves: &[Curve],
) -> Result<()> {
    // With clocks (all or none: router_clocks), loads in MB/s per node and latency in ns.
    let timed = curves.iter().all(|c| c.clock.is_some()) && !curves.is_empty();
    let load = |c: &Curve, flits_per_cycle: f64| match c.clock {
        Some(mhz) if timed => mbps(flits_per_cycle, mhz),
        _ => flits_per_cycle,
    };
    let time = |c: &Curve, cycles: f64| match c.clock {
        Some(mhz) if timed => cycles * 1_000.0 / mhz,
        _ => cycles,
    };
    let load_unit = if timed {
        "MB/s per node"
    } else {
        "flits/node/cycle"
    };
    let panels = if a.saturate {
        // One curve per (router, pattern) across packet lengths.
        let mut series: Vec<Series> = Vec::new();
        for c in curves {
            let label = match c.routing {
                Routing::Deterministic => format!("{} {}", c.router, c.pattern),
                Routing::Adaptive => format!("{} adaptive {}", c.router, c.pattern),
            };
            let pt = (f64::from(c.flits), load(c, c.points[0].accepted));
            match series.iter_mut().find(|s| s.label == label) {
                Some(s) => s.points.push(pt),
                None => series.push(Series {
                    label,
                    points: vec![pt],
                }),
            }
        }
        vec![Panel {
            title: format!("RCUBE saturation throughput, {topology}"),
            x_label: "packet length (flits)".into(),
            y_label: format!("saturation throughput ({load_unit})"),
            log_x: true,
            log_y: false,
            series,
        }]
    } else {
        let lat = curves
            .iter()
            .map(|c| Series {
                label: c.label(),
                points: c
                    .points
                    .iter()
                    .filter(|r| r.stable)
                    .filter_map(|r| r.latency.map(|l| (load(c, r.offered), time(c, l.mean))))
                    .collect(),
            })
            .collect();
        let acc = curves
            .iter()
            .map(|c| Series {
                label: c.label(),
                points: c
                    .points
                    .iter()
                    .map(|r| (load(c, r.offered), load(c, r.accepted)))
                    .collect(),
            })
            .collect();
        vec![
            Panel {
                title: format!("RCUBE latency vs load, {topology}"),
                x_label: format!("offered load ({load_unit})"),
                y_label: format!(
                    "mean latency ({}, log scale)",
                    if timed { "ns" } else { "cycles" }
                ),
                log_x: false,
                // Packet lengths 1..64 put zero-load latencies 20x apart.
                log_y: true,
                series: lat,
            },
            Panel {
                title: format!("RCUBE accepted vs offered, {topology}"),
                x_label: format!("offered load ({load_unit})"),
                y_label: format!("accepted throughput ({load_unit})"),
                log_x: false,
                log_y: false,
                series: acc,
            },
        ]
    };
    plot::draw_png(path, &panels)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::{Cli, Command};

    fn parse(args: &[&str]) -> Result<RouterArgs, clap::Error> {
        let argv = ["fasthsl", "bench", "router"].iter().chain(args);
        match Cli::try_parse_from(argv)?.command {
            Command::Bench(crate::bench::BenchCommand::Router(a)) => Ok(a),
            c => panic!("parsed as {c:?}"),
        }
    }

    #[test]
    fn buffer_depths_pick_linked_models() {
        let m = router_models(&[RouterKind::Fifo, RouterKind::Voq], &[16, 4096]).unwrap();
        let names: Vec<String> = m.iter().map(ToString::to_string).collect();
        assert_eq!(names, ["fifo", "voq", "voq/4096"]);
        let m = router_models(&[RouterKind::Voq, RouterKind::VoqPipe], &[16, 4096]).unwrap();
        let names: Vec<String> = m.iter().map(ToString::to_string).collect();
        assert_eq!(names, ["voq", "voq-pipe", "voq/4096"]);
        let e = router_models(&[RouterKind::VoqPipe], &[4096]).unwrap_err();
        assert!(e.to_string().contains("voq-pipe: 16"), "{e}");
        let e = router_models(&[RouterKind::Fifo], &[4096]).unwrap_err();
        assert!(e.to_string().contains("fifo: 16"), "{e}");
        let e = router_models(&[RouterKind::Voq], &[64]).unwrap_err();
        assert!(e.to_string().contains("voq: 16, 4096"), "{e}");
        assert_eq!(parse(&[]).unwrap().buf_depth, vec![16]);
        assert!(parse(&["--buf-depth", "x"]).is_err());
    }

    #[test]
    fn lists_and_ranges_parse() {
        let a = parse(&[
            "--router",
            "fifo,voq",
            "--packet-flits",
            "1,4-6",
            "--packet-flits",
            "64",
        ])
        .unwrap();
        assert_eq!(a.router, vec![RouterKind::Fifo, RouterKind::Voq]);
        let p = parse(&["--router", "voq-pipe"]).unwrap();
        assert_eq!(p.router, vec![RouterKind::VoqPipe]);
        assert!(parse(&["--router", "voq-piped"]).is_err());
        let l: Vec<u32> = a.packet_flits.iter().flat_map(|l| l.0.clone()).collect();
        assert_eq!(l, vec![1, 4, 5, 6, 64]);
        let a = parse(&["--offered", "0.1,0.5", "--pattern", "uniform,hotspot:2:0.3"]).unwrap();
        assert_eq!(a.offered, vec![0.1, 0.5]);
        assert_eq!(
            a.pattern[1],
            Pattern::Hotspot {
                node: 2,
                fraction: 0.3
            }
        );
        let a = parse(&[]).unwrap();
        assert_eq!(a.router, vec![RouterKind::Voq]);
        assert_eq!(a.routing, vec![Routing::Deterministic]);
        let a = parse(&["--routing", "deterministic,adaptive"]).unwrap();
        assert_eq!(a.routing, vec![Routing::Deterministic, Routing::Adaptive]);
    }

    #[test]
    fn bad_arguments_are_rejected_clearly() {
        for (args, says) in [
            (&["--router", "fofo"][..], "unknown router organisation"),
            (&["--routing", "random"], "unknown routing"),
            (&["--packet-flits", "0"], "packet length must be 1..=64"),
            (&["--packet-flits", "65"], "packet length must be 1..=64"),
            (&["--packet-flits", "8-2"], "is empty"),
            (&["--offered", "0"], "offered load must be in (0, 1]"),
            (&["--offered", "1.5"], "offered load must be in (0, 1]"),
            (&["--offered", "x"], "not a number"),
            (&["--pattern", "zipf"], "unknown"),
            (&["--topology", "nonsense:4"], "nonsense"),
            (&["--saturate", "--offered", "0.5"], "cannot be used with"),
            (&["--cycles", "5"], "5"),
            (&["--clock-mhz", "voq"], "ROUTER=MHZ"),
            (&["--clock-mhz", "voq=fast"], "not a number"),
            (&["--clock-mhz", "voq=0"], "(0, 10000]"),
        ] {
            let e = parse(args)
                .err()
                .unwrap_or_else(|| panic!("{args:?} accepted"));
            assert!(e.to_string().contains(says), "{args:?}: {e}");
        }
        let a = parse(&["--plot", "out.jpg"]).unwrap();
        let e = run(&a).unwrap_err();
        assert!(e.to_string().contains("PNG"), "{e}");
        // A clock for a router not compared, or a router without one: refused before
        // anything runs.
        let a = parse(&["--router", "voq", "--clock-mhz", "fifo=60"]).unwrap();
        let e = run(&a).unwrap_err();
        assert!(e.to_string().contains("no router 'fifo'"), "{e}");
        let a = parse(&["--router", "voq,voq-pipe", "--clock-mhz", "voq=14.5"]).unwrap();
        let e = run(&a).unwrap_err();
        assert!(
            e.to_string().contains("no clock for router 'voq-pipe'"),
            "{e}"
        );
    }

    #[test]
    fn clocks_turn_cycles_into_ns_and_mbps() {
        let a = parse(&[
            "--router",
            "voq,voq-pipe",
            "--clock-mhz",
            "VOQ=14.5,voq-pipe=28.2",
        ])
        .unwrap();
        let m = router_models(&a.router, &a.buf_depth).unwrap();
        let c = router_clocks(&m, &a.clock_mhz).unwrap();
        assert_eq!(c.iter().map(|x| x.1).collect::<Vec<_>>(), [14.5, 28.2]);
        assert!(router_clocks(&m, &[]).unwrap().is_empty());
        // 0.5 flit/cycle of 8 bytes at 100 MHz: 400 MB/s.
        assert_eq!(mbps(0.5, 100.0), 400.0);
    }
}
