//! `fasthsl bench exchange`: the MPC paper's CADNA pattern on the message layer. Three
//! processes on three nodes each send a 32-byte value to the other two and receive
//! theirs; the mean modeled time of one such exchange is reported. With `--latency`, also
//! the 8-byte one-way latency of the layer beside the raw put's, measured the same way.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{ensure, Context, Result};
use clap::Args;
use fasthsl_driver::{Card, Device, Pace};
use fasthsl_msg::{Bootstrap, Endpoint, MsgConfig, Request};
use fasthsl_sim::SimConfig;
use fasthsl_topology::Topology;
use serde_json::json;

use crate::bringup::{self, BenchDevice, Testbed};
use crate::plot::{self, Panel, Series};
use fasthsl_rng::Rng;

/// Processes of the CADNA pattern.
const PROCS: usize = 3;
/// Bytes of each value exchanged.
const VALUE: usize = 32;
/// Exchanges run before timing starts (HELLOs, first credits).
const WARMUP: u32 = 2;
/// Device time allowed for one exchange or round trip before giving up.
const STEP_TIMEOUT_NS: u64 = 2_000_000;

/// Options of `fasthsl bench exchange`.
#[derive(Debug, Args)]
pub struct ExchangeArgs {
    /// Network (the 3 processes run on nodes 0, 1 and 2) [default: full:3, or full:N for
    /// N --device cards]
    #[arg(long, value_name = "SPEC", value_parser = crate::parse_topology)]
    topology: Option<Topology>,
    /// Seed of the exchanged values
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Timed exchanges (and round trips with --latency)
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..))]
    iterations: u32,
    /// Also measure the 8-byte one-way latency, message layer vs. raw put
    #[arg(long)]
    latency: bool,
    /// Print JSON (one object per line)
    #[arg(long)]
    json: bool,
    /// Draw the time of each timed exchange (modeled ns) against its index into this PNG:
    /// the steady state and any outliers the mean hides
    #[arg(long, value_name = "FILE.png")]
    plot: Option<PathBuf>,
    /// Run on cards instead of the simulator, node i = the i-th --device (a PCI address
    /// or vfio-user:/path/to.sock; see `fasthsl bench pingpong --help`)
    #[arg(long = "device", value_name = "ADDR")]
    devices: Vec<String>,
}

/// Receive window of every node.
const RX_WINDOW: usize = 1 << 20;

/// Message-layer endpoints on every card, HELLOs not yet exchanged.
pub(crate) fn endpoints<D: Device>(cards: Vec<Card<D>>) -> Result<Vec<Endpoint<D>>> {
    let boot = Bootstrap::new(
        cards
            .iter()
            .map(|c| c.rx_iova())
            .collect::<Result<_, _>>()?,
    );
    cards
        .into_iter()
        .map(|c| {
            Endpoint::new(c, &boot, MsgConfig::default()).context("starting the message layer")
        })
        .collect()
}

/// Drives every endpoint (one thread stands for all processes) until `reqs` finish.
fn wait_all<D: Device>(eps: &mut [Endpoint<D>], reqs: Vec<(usize, Request)>) -> Result<()> {
    let start = eps[0].card().device().now_ns();
    let mut pending = reqs;
    while !pending.is_empty() {
        let mut still = Vec::new();
        for (n, r) in pending {
            if eps[n].test(&r)?.is_none() {
                still.push((n, r));
            }
        }
        pending = still;
        if pending.is_empty() {
            break;
        }
        let dev = eps[0].card().device();
        ensure!(
            dev.now_ns() - start < STEP_TIMEOUT_NS,
            "{} requests still pending after {STEP_TIMEOUT_NS} ns",
            pending.len()
        );
        dev.relax(Pace::Step);
    }
    Ok(())
}

/// One CADNA exchange: every process posts its two receives, sends its value to the two
/// others, and waits for all four operations; the values received are checked.
fn exchange<D: Device>(
    eps: &mut [Endpoint<D>],
    values: &[[u8; VALUE]; PROCS],
    tag: u32,
) -> Result<()> {
    let mut reqs = Vec::new();
    let mut bufs = Vec::new();
    for (p, ep) in eps.iter_mut().enumerate().take(PROCS) {
        for q in (0..PROCS).filter(|&q| q != p) {
            let b = ep.alloc(VALUE)?;
            reqs.push((p, ep.irecv(q as u16, tag, &b)?));
            bufs.push((p, q, b));
        }
    }
    for (p, ep) in eps.iter_mut().enumerate().take(PROCS) {
        for q in (0..PROCS).filter(|&q| q != p) {
            reqs.push((p, ep.isend(q as u16, tag, &values[p])?));
        }
    }
    wait_all(eps, reqs)?;
    for (p, q, b) in bufs {
        let mut got = [0u8; VALUE];
        eps[p].read(&b, 0, &mut got)?;
        ensure!(
            got == values[q],
            "process {p} received a wrong value from process {q}"
        );
        eps[p].free(b);
    }
    Ok(())
}

/// Mean one-way time of `iterations` 8-byte round trips between nodes 0 and 1 with raw
/// puts, as `fasthsl demo` measures it.
pub(crate) fn raw_one_way_ns<D: Device>(cards: &mut [Card<D>], iterations: u32) -> Result<f64> {
    let bufs = [
        cards[0].device().dma_alloc(4096)?,
        cards[1].device().dma_alloc(4096)?,
    ];
    let rx = [cards[0].rx_iova()?, cards[1].rx_iova()?];
    let mut t0 = 0;
    for i in 0..iterations + WARMUP {
        if i == WARMUP {
            t0 = cards[0].device().now_ns();
        }
        cards[0].put(1, &bufs[0], 0, rx[1], 8, 0)?;
        cards[1].wait_lmr(STEP_TIMEOUT_NS)?;
        cards[1].put(0, &bufs[1], 0, rx[0], 8, 0)?;
        cards[0].wait_lmr(STEP_TIMEOUT_NS)?;
        for c in cards.iter_mut().take(2) {
            for done in c.poll_completions()? {
                done.result.context("raw ping-pong put")?;
            }
        }
    }
    let t1 = cards[0].device().now_ns();
    let [b0, b1] = bufs;
    cards[0].device().dma_free(b0)?;
    cards[1].device().dma_free(b1)?;
    Ok((t1 - t0) as f64 / (2.0 * f64::from(iterations)))
}

/// The same round trips with the layer's blocking send and recv.
fn layer_one_way_ns<D: Device>(eps: &mut [Endpoint<D>], iterations: u32) -> Result<f64> {
    let mut out = [0u8; 8];
    let mut t0 = 0;
    for i in 0..iterations + WARMUP {
        if i == WARMUP {
            t0 = eps[0].card().device().now_ns();
        }
        let v = u64::from(i).to_le_bytes();
        eps[0].send(1, 1, &v)?;
        let st = eps[1].recv(0, 1, &mut out)?;
        ensure!(st.len == 8 && out == v, "ping {i}: wrong message");
        eps[1].send(0, 2, &out)?;
        let st = eps[0].recv(1, 2, &mut out)?;
        ensure!(st.len == 8 && out == v, "pong {i}: wrong message");
    }
    let t1 = eps[0].card().device().now_ns();
    Ok((t1 - t0) as f64 / (2.0 * f64::from(iterations)))
}

/// Runs the benchmark.
pub fn run(a: &ExchangeArgs) -> Result<ExitCode> {
    let topology = if a.devices.is_empty() {
        match &a.topology {
            Some(t) => t.clone(),
            None => Topology::full(PROCS).context("full:3")?,
        }
    } else {
        bringup::device_topology(a.devices.len(), a.topology.as_ref(), None)?
    };
    let nodes = topology.nodes();
    ensure!(
        nodes >= PROCS,
        "the exchange runs {PROCS} processes on {PROCS} nodes; {topology} has {nodes}"
    );
    if a.devices.is_empty() {
        let tb = Testbed::sim(
            &topology,
            SimConfig::default(),
            |_| RX_WINDOW,
            |_, _| Ok(()),
        )?;
        measure(a, tb)
    } else {
        let tb = Testbed::devices(&a.devices, &topology, |_| RX_WINDOW, |_, _| Ok(()))?;
        measure(a, tb)
    }
}

fn measure<D: BenchDevice>(a: &ExchangeArgs, tb: Testbed<D>) -> Result<ExitCode> {
    let describe = tb.describe();
    let topology = tb.topology.clone();
    let mut cards = tb.cards;
    let raw = if a.latency {
        Some(raw_one_way_ns(&mut cards, a.iterations)?)
    } else {
        None
    };
    let mut eps = endpoints(cards)?;
    let mut rng = Rng::new(a.seed);
    let mut next_values = || {
        let mut v = [[0u8; VALUE]; PROCS];
        for p in v.iter_mut() {
            p.copy_from_slice(&rng.bytes(VALUE));
        }
        v
    };
    let mut t0 = 0;
    let mut each_ns = Vec::with_capacity(a.iterations as usize);
    for i in 0..a.iterations + WARMUP {
        let start = eps[0].card().device().now_ns();
        if i == WARMUP {
            t0 = start;
        }
        exchange(&mut eps, &next_values(), i % 1000).with_context(|| format!("exchange {i}"))?;
        if i >= WARMUP {
            each_ns.push(eps[0].card().device().now_ns() - start);
        }
    }
    let exchange_ns = (eps[0].card().device().now_ns() - t0) as f64 / f64::from(a.iterations);
    for (n, ep) in eps.iter().enumerate() {
        let s = ep.stats();
        ensure!(
            s.protocol_errors == 0 && s.put_errors == 0,
            "node {n}: {s:?}"
        );
    }
    if a.json {
        outln!(
            "{}",
            bringup::with_description(
                json!({"exchange_ns": exchange_ns, "exchanges": a.iterations}),
                describe.clone()
            )
        );
    } else {
        outln!(
            "exchange ({PROCS} processes, {VALUE}-byte values, {}): {exchange_ns:.0} ns per exchange, mean of {} (MPC, 1999: 74 us kernel-level, 47 us user-level)",
            topology,
            a.iterations
        );
    }
    if let Some(path) = &a.plot {
        plot::draw_png(
            path,
            &[Panel {
                title: format!("CADNA exchange ({PROCS} processes, {VALUE} B values), {topology}"),
                x_label: "exchange".into(),
                y_label: "time of one exchange, ns (modeled)".into(),
                log_x: false,
                log_y: false,
                series: vec![Series {
                    label: format!("mean {exchange_ns:.0} ns"),
                    points: each_ns
                        .iter()
                        .enumerate()
                        .map(|(i, &t)| (i as f64, t as f64))
                        .collect(),
                }],
            }],
        )
        .with_context(|| format!("drawing {}", path.display()))?;
    }
    if let Some(raw) = raw {
        let layer = layer_one_way_ns(&mut eps, a.iterations)?;
        if a.json {
            outln!(
                "{}",
                bringup::with_description(
                    json!({"size": 8, "layer_one_way_ns": layer, "raw_one_way_ns": raw, "added_ns": layer - raw}),
                    describe
                )
            );
        } else {
            outln!(
                "8-byte one-way latency: message layer {layer:.1} ns, raw put {raw:.1} ns, added {:.1} ns",
                layer - raw
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(topology: &str, iterations: u32) -> ExchangeArgs {
        ExchangeArgs {
            topology: Some(topology.parse().unwrap()),
            seed: 3,
            iterations,
            latency: false,
            json: true,
            plot: None,
            devices: Vec::new(),
        }
    }

    #[test]
    fn plot_draws_every_timed_exchange() {
        let dir =
            std::env::temp_dir().join(format!("fasthsl-exchange-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let png = dir.join("exchange.png");
        let mut a = args("full:3", 5);
        a.plot = Some(png.clone());
        run(&a).unwrap();
        let bytes = std::fs::read(&png).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn exchanges_check_values_and_take_modeled_time() {
        let topo = "full:3".parse().unwrap();
        let tb = Testbed::sim(&topo, SimConfig::default(), |_| RX_WINDOW, |_, _| Ok(())).unwrap();
        let cluster = tb.dev().cluster();
        let mut eps = endpoints(tb.cards).unwrap();
        let mut rng = Rng::new(5);
        for i in 0..4 {
            let mut v = [[0u8; VALUE]; PROCS];
            for p in v.iter_mut() {
                p.copy_from_slice(&rng.bytes(VALUE));
            }
            let t0 = cluster.now_ns();
            exchange(&mut eps, &v, i).unwrap();
            // Two dependent steps at least: an exchange cannot be faster than one message.
            assert!(cluster.now_ns() - t0 > 400, "exchange {i}");
        }
        assert!(eps.iter().all(|e| e.stats().short_recv == 8));
    }

    #[test]
    fn too_few_nodes_is_an_error() {
        let e = run(&args("full:2", 1)).unwrap_err();
        assert!(e.to_string().contains("3 processes"), "{e}");
    }
}
