//! `fasthsl bench pingpong`: put latency (ping-pong) and streaming bandwidth between two
//! simulated nodes, on the real NIC and router RTL with the modeled host.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, ensure, Context, Result};
use clap::Args;
use fasthsl_driver::contract::{desc_flag, status_done, DescErr};
use fasthsl_driver::{
    Device, DmaBuffer, DriverError, Pace, PutPath, PutTicket, ReliableConfig, Routing, WindowPerms,
};
use fasthsl_msg::layout::Layout;
use fasthsl_msg::{Endpoint, MsgConfig, Request};
use fasthsl_sim::{SimConfig, Topology};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

use crate::bench::exchange;
use crate::bringup::{self, BenchDevice, Clock, Testbed};
use crate::plot::{self, Panel, Series};
use fasthsl_rng::Rng;

/// Options of `fasthsl bench pingpong`.
#[derive(Debug, Args)]
#[command(after_help = "\
Definitions (on the simulator all times are modeled: simulated cycles of the 250 MHz core \
clock with the default host model, deterministic for a seed; for --device see the end):
  one_way_ns / one_way_cycles  half the mean round trip of a ping-pong between nodes 0 and \
1, driver to driver: node 0 puts, node 1 polls its LMR ring until the entry appears and puts \
the same size back, node 0 polls likewise (after one untimed warm-up round trip). Card::put \
picks its path: messages of up to 64 bytes go inline through the push window.
  mbytes_per_s  streaming bandwidth, 10^6 bytes/s: node 0 posts --stream-bytes worth of \
messages of the size (8..512 messages) back to back while node 1 consumes its LMR ring; \
payload bytes divided by the time from the first put to the last LMR entry seen. Packet \
headers and CRC trailers are overhead counted against it.
  peak_mbytes_per_s  the largest mbytes_per_s; link_mbytes_per_s the raw link (8 bytes per \
cycle); n_half_bytes the message size at which streaming bandwidth reaches half the peak \
(interpolated on log2 size); bidir_mbytes_per_s the lower of the two directions when both \
nodes stream --bidir-size messages to each other at once.
  layer_one_way_ns (with --layer)  the same ping-pong on the message layer (fasthsl-msg) on \
the same cards, after the put measurements: node 1 has its receive posted, node 0 sends \
from a registered buffer (isend_buf: eager up to 4080 bytes, zero-copy rendezvous above) \
with its receive for the reply posted, node 1 sends the message back from where it \
landed; half the mean round trip after one untimed round, every reply checked. \
layer_overhead_ns = layer_one_way_ns - one_way_ns.
  With --device the times come from the cards: modeled cycles when they are simulated \
cards of `fasthsl serve` (\"clock\": \"modeled_cycles\"), the host's monotonic clock for \
real cards (\"clock\": \"host_wall_clock\", one_way_cycles null).

Examples:
  fasthsl bench pingpong --json
  fasthsl bench pingpong --sizes 8,4K,64K --iterations 10 --plot pingpong.png
  fasthsl bench pingpong --layer --plot layer.png
  fasthsl serve --topology full:2 --socket /tmp/fh &
  fasthsl bench pingpong --device vfio-user:/tmp/fh/node0.sock --device vfio-user:/tmp/fh/node1.sock")]
pub struct PingpongArgs {
    /// Network [default: full:2] (see `fasthsl demo --help`); nodes 0 and 1 are measured
    #[arg(long, value_name = "SPEC", value_parser = crate::parse_topology)]
    topology: Option<Topology>,
    /// Shorthand for --topology full:N
    #[arg(long, value_name = "N", conflicts_with = "topology",
          value_parser = clap::value_parser!(u16).range(2..=8))]
    nodes: Option<u16>,
    /// Seed of the message data; modeled results are the same for the same seed
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Routing tables: deterministic, or adaptive (Topology::adaptive_tables: alternatives
    /// on mesh and hypercube) with every put sent DESC_FLAG_ADAPTIVE (the --layer
    /// messages stay deterministic)
    #[arg(long, value_name = "ROUTING", default_value = "deterministic",
          value_parser = crate::parse_routing)]
    routing: Routing,
    /// Message sizes, bytes: comma list, K/KiB and M/MiB suffixes (1..=16 MiB). Default:
    /// powers of two from 1 B to 1 MiB
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = crate::parse_size)]
    sizes: Vec<usize>,
    /// Timed ping-pong round trips per size
    #[arg(long, value_name = "N", default_value_t = 5,
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    iterations: u32,
    /// Bytes streamed per size for the bandwidth (at least 8, at most 512 messages)
    #[arg(long, value_name = "BYTES", default_value = "4MiB", value_parser = crate::parse_size)]
    stream_bytes: usize,
    /// Message size of the bidirectional streaming run (0: skip it)
    #[arg(long, value_name = "BYTES", default_value = "64KiB", value_parser = parse_size_or_zero)]
    bidir_size: usize,
    /// One JSON object per size on stdout, then a summary object
    #[arg(long)]
    json: bool,
    /// Also measure the ping-pong on the message layer (isend_buf/irecv) beside the raw put:
    /// layer_one_way_ns and layer_overhead_ns per size, a second curve in the plot
    #[arg(long)]
    layer: bool,
    /// Receivers send no ACK/NACK (REL_CTRL.ACK_OFF on every card): the card's behaviour
    /// before contract 1.5, to measure what acknowledgement costs
    #[arg(long)]
    no_ack: bool,
    /// Descriptors complete only on the receiver's answer (REL_CTRL.SENDER_WAIT on every
    /// card, contract 1.6): the cost of waiting for the end-to-end ACK
    #[arg(long)]
    sender_wait: bool,
    /// Receivers drop duplicates by (source, seq) (REL_CTRL.DEDUP on every card, contract
    /// 1.7): the cost of the duplicate check. Needs --sender-wait (without it, messages
    /// completing out of order would be taken for duplicates)
    #[arg(long, requires = "sender_wait")]
    dedup: bool,
    /// End-to-end reliability as a faulty network needs it (contract 1.7, on every card):
    /// descriptors wait for the answer, a message is retransmitted up to RETRIES times
    /// after a NACK or an answer timeout, receivers drop duplicates and NACK a message
    /// whose last packet arrives with bytes missing at once (SENDER_WAIT, REL_RETRIES,
    /// DEDUP, EARLY_NACK since contract 1.8; docs/RELIABILITY.md). Its cost on a clean link
    #[arg(long, value_name = "RETRIES", num_args = 0..=1, default_missing_value = "7",
          value_parser = clap::value_parser!(u32).range(0..=15))]
    reliable: Option<u32>,
    /// Receive windows with keys on (docs/WINDOWS.md): each node registers its receive
    /// region as one window and every put carries the peer's key, so the cards check keys
    /// and ranges on every packet
    #[arg(long, conflicts_with = "layer")]
    windows: bool,
    /// Draw latency and bandwidth against message size (log axes) into this PNG
    #[arg(long, value_name = "FILE.png")]
    plot: Option<PathBuf>,
    /// Run on cards instead of the simulator, node i = the i-th --device: a PCI address
    /// (a real card through VFIO, e.g. 0000:01:00.0) or vfio-user:/path/to.sock (a card of
    /// `fasthsl serve`). The node count is the number of cards; --topology must agree
    #[arg(long = "device", value_name = "ADDR")]
    devices: Vec<String>,
}

fn parse_size_or_zero(s: &str) -> Result<usize, String> {
    if s.trim() == "0" {
        return Ok(0);
    }
    crate::parse_size(s)
}

/// One size's results.
#[derive(Debug, Clone)]
struct Point {
    size: usize,
    one_way_cycles: f64,
    one_way_ns: f64,
    mbytes_per_s: f64,
    messages: usize,
    /// Message-layer one-way time, ns (with --layer).
    layer_one_way_ns: Option<f64>,
}

/// Two configured nodes (0 and 1) of a testbed; times on the testbed's clock (ticks:
/// cycles, or nanoseconds on the host's wall clock).
struct Pair<D: BenchDevice> {
    tb: Testbed<D>,
    src: Vec<DmaBuffer>,
    rx_len: usize,
    /// Receive window key of nodes 0 and 1 (0: no windows).
    keys: [u16; 2],
    /// Descriptor flags of every put (DESC_FLAG_ADAPTIVE with adaptive routing).
    flags: u16,
}

/// Descriptor flags of the puts under `routing`.
fn put_flags(routing: Routing) -> u16 {
    match routing {
        Routing::Deterministic => 0,
        Routing::Adaptive => desc_flag::ADAPTIVE,
    }
}

/// Device time allowed for one message: only a stuck card times out.
fn timeout_ns(len: usize) -> u64 {
    2_000_000 + len as u64 * 20
}

/// Receive window and source buffer sizes for messages of up to `max_size` bytes; with
/// `layer`, the window also holds the message layer's slots and three buffers of that
/// size in its heap.
fn buffer_sizes(max_size: usize, layer: bool) -> (usize, usize) {
    let raw = (2 * max_size).max(4 << 20);
    let rx_len = if layer {
        let l = Layout::new(2, &MsgConfig::default());
        raw.max(l.heap_off + 3 * max_size.next_multiple_of(4096) + (256 << 10))
    } else {
        raw
    };
    (
        rx_len.next_multiple_of(4096),
        max_size.next_multiple_of(4096),
    )
}

impl Pair<fasthsl_sim::SimDevice> {
    fn sim(topology: &Topology, routing: Routing, max_size: usize, layer: bool) -> Result<Self> {
        let (rx_len, src_len) = buffer_sizes(max_size, layer);
        let mut cfg = SimConfig::default();
        cfg.host_mem_bytes = cfg.host_mem_bytes.max(2 * (rx_len + src_len) + (8 << 20));
        let mut src = Vec::new();
        let tb = Testbed::sim_routed(
            topology,
            routing,
            cfg,
            |_| rx_len,
            |_, card| {
                src.push(card.device().dma_alloc(src_len)?);
                Ok(())
            },
        )?;
        Ok(Pair {
            tb,
            src,
            rx_len,
            keys: [0; 2],
            flags: put_flags(routing),
        })
    }
}

impl Pair<bringup::CardDevice> {
    fn devices(
        specs: &[String],
        topology: &Topology,
        routing: Routing,
        max_size: usize,
        layer: bool,
    ) -> Result<Self> {
        let (rx_len, src_len) = buffer_sizes(max_size, layer);
        let mut src = Vec::new();
        let tb = Testbed::devices_routed(
            specs,
            topology,
            routing,
            |_| rx_len,
            |_, card| {
                src.push(card.device().dma_alloc(src_len)?);
                Ok(())
            },
        )?;
        Ok(Pair {
            tb,
            src,
            rx_len,
            keys: [0; 2],
            flags: put_flags(routing),
        })
    }
}

impl<D: BenchDevice> Pair<D> {
    /// Registers each node's whole receive region as one window (--windows).
    fn register_windows(&mut self) -> Result<()> {
        for n in 0..2 {
            let w = self.tb.cards[n]
                .register_window(0, self.rx_len, WindowPerms::WRITE)
                .with_context(|| format!("node {n}: registering its receive window"))?;
            self.keys[n] = w.key();
        }
        Ok(())
    }

    /// Card::put with the destination's window key.
    fn put(
        &mut self,
        s: usize,
        d: usize,
        remote: u64,
        size: usize,
    ) -> Result<PutTicket, DriverError> {
        let key = self.keys[d];
        self.tb.cards[s].put_keyed(
            PutPath::Auto,
            d as u16,
            &self.src[s],
            0,
            remote,
            key,
            size,
            self.flags,
        )
    }

    fn ticks(&self) -> u64 {
        self.tb.clock.ticks(self.tb.dev())
    }

    fn now_ns(&self) -> u64 {
        self.tb.dev().now_ns()
    }

    fn step(&self) {
        self.tb.dev().relax(Pace::Step);
    }

    /// Half the mean round trip of `iters` ping-pongs of `size` bytes, in cycles; checks
    /// every byte and LMR entry of the last round.
    fn ping_pong(&mut self, rng: &mut Rng, size: usize, iters: u32) -> Result<f64> {
        let data = [rng.bytes(size), rng.bytes(size)];
        for (n, d) in data.iter().enumerate() {
            self.tb.cards[n].device().mem_write(&self.src[n], 0, d)?;
        }
        let rx = [self.tb.cards[0].rx_iova()?, self.tb.cards[1].rx_iova()?];
        let round = |p: &mut Pair<D>| -> Result<()> {
            for (s, d) in [(0usize, 1usize), (1, 0)] {
                let t = p
                    .put(s, d, rx[d], size)
                    .with_context(|| format!("ping-pong {size} B: node {s} put"))?;
                let e = p.tb.cards[d]
                    .wait_lmr(timeout_ns(size))
                    .with_context(|| format!("ping-pong {size} B: node {d} waiting"))?;
                ensure!(
                    e.msg_id == t.msg_id
                        && e.len as usize == size
                        && e.src as usize == s
                        && e.status == status_done(DescErr::Ok),
                    "ping-pong {size} B: unexpected LMR entry {e:?} at node {d}"
                );
            }
            Ok(())
        };
        round(self)?; // warm-up: rings and caches of the model in their steady state
        let c0 = self.ticks();
        for _ in 0..iters {
            round(self)?;
        }
        let cycles = (self.ticks() - c0) as f64 / (2.0 * f64::from(iters));
        for (s, d) in [(0usize, 1usize), (1, 0)] {
            let mut got = vec![0u8; size];
            self.tb.cards[d].read_rx(0, &mut got)?;
            ensure!(
                got == data[s],
                "ping-pong {size} B: data received by node {d} differs"
            );
        }
        self.reap_all()?;
        Ok(cycles)
    }

    /// Waits for every outstanding send completion of both nodes (and checks them).
    fn reap_all(&mut self) -> Result<()> {
        for n in 0..2 {
            let start = self.now_ns();
            while self.tb.cards[n].outstanding() > 0 {
                for c in self.tb.cards[n].poll_completions()? {
                    if let Err(e) = c.result {
                        bail!("node {n}: descriptor #{} failed: {e}", c.seq);
                    }
                }
                if self.now_ns() - start > 100_000_000 {
                    bail!("node {n}: send completions did not arrive");
                }
                self.step();
            }
        }
        Ok(())
    }

    /// Streams `count` messages of `size` bytes from every node in `senders` to the other
    /// one at once; returns, per sender, the cycles from the start to the last LMR entry
    /// its peer saw.
    fn stream(&mut self, size: usize, count: usize, senders: &[usize]) -> Result<Vec<u64>> {
        let rx = [self.tb.cards[0].rx_iova()?, self.tb.cards[1].rx_iova()?];
        let slots = (self.rx_len / size.next_multiple_of(8)).max(1);
        let mut sent = [0usize; 2];
        let mut got = [0usize; 2];
        let mut end = [0u64; 2];
        let c0 = self.ticks();
        let limit_ns = self.now_ns() + count as u64 * timeout_ns(size);
        loop {
            let mut progress = false;
            for &s in senders {
                let d = 1 - s;
                while sent[s] < count {
                    let remote = rx[d] + ((sent[s] % slots) * size.next_multiple_of(8)) as u64;
                    match self.put(s, d, remote, size) {
                        Ok(_) => {
                            sent[s] += 1;
                            progress = true;
                        }
                        Err(DriverError::RingFull { .. }) => break,
                        Err(e) => return Err(e).context("streaming put"),
                    }
                }
                for c in self.tb.cards[s].poll_completions()? {
                    if let Err(e) = c.result {
                        bail!(
                            "stream {size} B: node {s} descriptor #{} failed: {e}",
                            c.seq
                        );
                    }
                }
                for e in self.tb.cards[d].poll_lmr()? {
                    ensure!(
                        e.status == status_done(DescErr::Ok) && e.len as usize == size,
                        "stream {size} B: unexpected LMR entry {e:?} at node {d}"
                    );
                    got[s] += 1;
                    progress = true;
                    if got[s] == count {
                        end[s] = self.ticks() - c0;
                    }
                }
            }
            if senders.iter().all(|&s| got[s] == count) {
                break;
            }
            if self.now_ns() > limit_ns {
                bail!("stream {size} B: only {got:?} of {count} messages arrived");
            }
            if !progress {
                self.step();
            }
        }
        self.reap_all()?;
        Ok(senders.iter().map(|&s| end[s]).collect())
    }

    fn mbytes_per_s(&self, bytes: usize, ticks: u64) -> f64 {
        bytes as f64 / (ticks.max(1) as f64 * self.tb.clock.ns_per_tick()) * 1000.0
    }
}

/// Half the mean round trip of `iters` message-layer ping-pongs of `size` bytes between
/// nodes 0 and 1 (after one untimed round), ns on `clock`; every reply is checked.
fn layer_ping_pong<D: BenchDevice>(
    eps: &mut [Endpoint<D>],
    clock: Clock,
    rng: &mut Rng,
    size: usize,
    iters: u32,
) -> Result<f64> {
    let data = rng.bytes(size);
    let out = eps[0].alloc(size)?;
    let back = eps[0].alloc(size)?;
    let mid = eps[1].alloc(size)?;
    eps[0].write(&out, 0, &data)?;
    let mut t0 = 0;
    for i in 0..=iters {
        if i == 1 {
            t0 = clock.ticks(eps[0].card().device());
        }
        let (ping, pong) = (1 + 2 * (i % 1000), 2 + 2 * (i % 1000));
        let r1 = eps[1].irecv(0u16, ping, &mid)?;
        let r0 = eps[0].irecv(1u16, pong, &back)?;
        let s0 = eps[0].isend_buf(1, ping, &out, size)?;
        drive(eps, &[(1, r1)])?;
        let s1 = eps[1].isend_buf(0, pong, &mid, size)?;
        drive(eps, &[(0, r0), (0, s0), (1, s1)])?;
    }
    let t = (clock.ticks(eps[0].card().device()) - t0) as f64 * clock.ns_per_tick();
    let mut got = vec![0u8; size];
    eps[0].read(&back, 0, &mut got)?;
    ensure!(got == data, "the reply differs from the message sent");
    eps[0].free(out);
    eps[0].free(back);
    eps[1].free(mid);
    Ok(t / (2.0 * f64::from(iters)))
}

/// Drives both endpoints until every `(node, request)` is done.
fn drive<D: BenchDevice>(eps: &mut [Endpoint<D>], reqs: &[(usize, Request)]) -> Result<()> {
    let mut done = vec![false; reqs.len()];
    let start = eps[0].card().device().now_ns();
    let limit = timeout_ns(1 << 24);
    loop {
        for (k, (n, r)) in reqs.iter().enumerate() {
            if !done[k] {
                done[k] = eps[*n].test(r)?.is_some();
            }
        }
        if done.iter().all(|&d| d) {
            return Ok(());
        }
        // Both progress, so the one not waiting answers rendezvous requests.
        for ep in eps.iter_mut() {
            ep.progress()?;
        }
        let dev = eps[0].card().device();
        ensure!(
            dev.now_ns() - start < limit,
            "message-layer requests not done after {limit} ns"
        );
        dev.relax(Pace::Step);
    }
}

/// Messages streamed for one size: `stream_bytes` worth, 8..=512 of them.
fn stream_count(size: usize, stream_bytes: usize) -> usize {
    (stream_bytes / size).clamp(8, 512)
}

/// Size at which `points` (ascending sizes) first reach `half`, interpolated on log2 size.
fn n_half(points: &[(usize, f64)], half: f64) -> Option<f64> {
    let mut prev: Option<(usize, f64)> = None;
    for &(s, bw) in points {
        if bw >= half {
            return Some(match prev {
                Some((ps, pbw)) if bw > pbw => {
                    let (l0, l1) = ((ps as f64).log2(), (s as f64).log2());
                    (l0 + (half - pbw) / (bw - pbw) * (l1 - l0)).exp2()
                }
                _ => s as f64,
            });
        }
        prev = Some((s, bw));
    }
    None
}

/// Runs the benchmark.
pub fn run(a: &PingpongArgs) -> Result<ExitCode> {
    let topology = if a.devices.is_empty() {
        match (&a.topology, a.nodes) {
            (Some(t), _) => t.clone(),
            (None, Some(n)) => Topology::full(n.into()).context("--nodes")?,
            (None, None) => Topology::full(2).context("full:2")?,
        }
    } else {
        bringup::device_topology(a.devices.len(), a.topology.as_ref(), a.nodes)?
    };
    ensure!(
        topology.nodes() >= 2,
        "the benchmark needs two nodes (two --device cards on hardware), {topology} has {}",
        topology.nodes()
    );
    let mut sizes = if a.sizes.is_empty() {
        (0..=20).map(|k| 1usize << k).collect()
    } else {
        a.sizes.clone()
    };
    sizes.sort_unstable();
    sizes.dedup();
    let max_size = sizes.iter().copied().max().unwrap_or(1).max(a.bidir_size);
    if a.devices.is_empty() {
        let mut pair = Pair::sim(&topology, a.routing, max_size, a.layer)?;
        if a.windows {
            pair.register_windows()?;
        }
        measure(a, pair, &sizes)
    } else {
        let mut pair = Pair::devices(&a.devices, &topology, a.routing, max_size, a.layer)?;
        if a.windows {
            pair.register_windows()?;
        }
        measure(a, pair, &sizes)
    }
}

fn measure<D: BenchDevice>(
    a: &PingpongArgs,
    mut pair: Pair<D>,
    sizes: &[usize],
) -> Result<ExitCode> {
    let topology = pair.tb.topology.clone();
    let routing = pair.tb.routing;
    let clock = pair.tb.clock;
    let mut rng = Rng::new(a.seed);
    for c in &pair.tb.cards {
        c.set_acknowledge(!a.no_ack)?;
        if let Some(retries) = a.reliable {
            c.set_reliable(ReliableConfig {
                retries,
                ..ReliableConfig::default()
            })?;
        } else {
            c.set_sender_wait(a.sender_wait)?;
            // Only when asked: the default run's register traffic stays as it was.
            if a.dedup {
                c.set_dedup(true)?;
            }
        }
    }

    let bar = if !a.json && std::io::stderr().is_terminal() {
        let b = ProgressBar::new(sizes.len() as u64 + u64::from(a.bidir_size > 0));
        b.set_style(ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}")?);
        b
    } else {
        ProgressBar::hidden()
    };
    if !a.json {
        println!(
            "ping-pong and streaming, nodes 0 <-> 1 of {topology} ({}, {} routing, seed {})",
            if clock.counts_cycles() {
                "modeled time"
            } else {
                "host wall-clock time"
            },
            pair.tb.routing,
            a.seed
        );
        if a.layer {
            println!(
                "{:>10} {:>12} {:>10} {:>14} {:>9} {:>12} {:>10}",
                "size", "one-way ns", "cycles", "stream MB/s", "messages", "layer ns", "added ns"
            );
        } else {
            println!(
                "{:>10} {:>12} {:>10} {:>14} {:>9}",
                "size", "one-way ns", "cycles", "stream MB/s", "messages"
            );
        }
    }
    let print_point = |p: &Point| {
        if a.json {
            let mut v = json!({
                "size": p.size,
                "one_way_ns": p.one_way_ns,
                "one_way_cycles": clock.counts_cycles().then_some(p.one_way_cycles),
                "mbytes_per_s": p.mbytes_per_s,
                "stream_messages": p.messages,
            });
            if let Some(l) = p.layer_one_way_ns {
                v["layer_one_way_ns"] = json!(l);
                v["layer_overhead_ns"] = json!(l - p.one_way_ns);
            }
            println!("{v}");
        } else if let Some(l) = p.layer_one_way_ns {
            println!(
                "{:>10} {:>12.0} {:>10.1} {:>14.1} {:>9} {:>12.0} {:>10.0}",
                p.size,
                p.one_way_ns,
                p.one_way_cycles,
                p.mbytes_per_s,
                p.messages,
                l,
                l - p.one_way_ns
            )
        } else {
            println!(
                "{:>10} {:>12.0} {:>10.1} {:>14.1} {:>9}",
                p.size, p.one_way_ns, p.one_way_cycles, p.mbytes_per_s, p.messages
            )
        }
    };
    let mut points = Vec::new();
    for &size in sizes {
        bar.set_message(format!("{size} B"));
        let cyc = pair.ping_pong(&mut rng, size, a.iterations)?;
        let count = stream_count(size, a.stream_bytes);
        let t = pair.stream(size, count, &[0])?[0];
        let p = Point {
            size,
            one_way_cycles: cyc,
            one_way_ns: cyc * clock.ns_per_tick(),
            mbytes_per_s: pair.mbytes_per_s(size * count, t),
            messages: count,
            layer_one_way_ns: None,
        };
        // With --layer, a size's line waits for its layer measurement.
        if !a.layer {
            bar.suspend(|| print_point(&p));
        }
        points.push(p);
        bar.inc(1);
    }
    let bidir = if a.bidir_size > 0 {
        bar.set_message(format!("bidirectional {} B", a.bidir_size));
        let count = stream_count(a.bidir_size, a.stream_bytes);
        let t = pair.stream(a.bidir_size, count, &[0, 1])?;
        bar.inc(1);
        let bw: Vec<f64> = t
            .iter()
            .map(|&c| pair.mbytes_per_s(a.bidir_size * count, c))
            .collect();
        Some(bw.iter().copied().fold(f64::INFINITY, f64::min))
    } else {
        None
    };
    // The message layer takes the cards over: it runs last.
    let describe = pair.tb.describe();
    let eps = if a.layer {
        bar.set_message("message layer");
        let cards = std::mem::take(&mut pair.tb.cards);
        let mut eps = exchange::endpoints(cards)?;
        for p in points.iter_mut() {
            let t = layer_ping_pong(&mut eps, clock, &mut rng, p.size, a.iterations)
                .with_context(|| format!("message-layer ping-pong of {} B", p.size))?;
            p.layer_one_way_ns = Some(t);
        }
        for (n, ep) in eps.iter().enumerate() {
            let s = ep.stats();
            ensure!(
                s.protocol_errors == 0 && s.put_errors == 0,
                "node {n}: {s:?}"
            );
        }
        points.iter().for_each(|p| bar.suspend(|| print_point(p)));
        Some(eps)
    } else {
        None
    };
    bar.finish_and_clear();
    let devs: Vec<&D> = match &eps {
        Some(e) => e.iter().map(|e| e.card().device()).collect(),
        None => pair.tb.cards.iter().map(|c| c.device()).collect(),
    };

    // The raw link moves 8 bytes per core clock cycle (250 MHz on every card).
    let ns_per_cycle = match clock {
        Clock::Modeled { ns_per_cycle } => ns_per_cycle,
        Clock::Wall => SimConfig::default().clock_period_ps as f64 / 1000.0,
    };
    let link = 8.0 / ns_per_cycle * 1000.0;
    let peak = points.iter().map(|p| p.mbytes_per_s).fold(0.0, f64::max);
    let curve: Vec<(usize, f64)> = points.iter().map(|p| (p.size, p.mbytes_per_s)).collect();
    let nh = n_half(&curve, peak / 2.0);
    let faults = bringup::iommu_faults(devs.iter().copied());
    let summary = json!({
        "peak_mbytes_per_s": peak,
        "link_mbytes_per_s": link,
        "peak_fraction_of_link": peak / link,
        "n_half_bytes": nh.map(f64::round),
        "bidir_mbytes_per_s": bidir,
        "bidir_size": (a.bidir_size > 0).then_some(a.bidir_size),
        "topology": topology.to_string(),
        "routing": routing.name(),
        "seed": a.seed,
        "iterations": a.iterations,
        "windows": a.windows,
        "sim_cycles": devs[0].cycles(),
        "iommu_faults": faults,
        "acknowledge": !a.no_ack,
        "sender_wait": a.sender_wait || a.reliable.is_some(),
        "dedup": a.dedup || a.reliable.is_some(),
        "retries": a.reliable.unwrap_or(0),
        "early_nack": a.reliable.is_some(),
    });
    let summary = bringup::with_description(summary, describe);
    if a.json {
        println!("{summary}");
    } else {
        println!(
            "peak streaming {peak:.1} MB/s = {:.3} of the raw link ({link:.0} MB/s); n_half {}",
            peak / link,
            nh.map_or("not reached".into(), |v| format!("{v:.0} B"))
        );
        if let Some(b) = bidir {
            println!(
                "bidirectional {} B messages: {b:.1} MB/s per direction ({:.3} of the link)",
                a.bidir_size,
                b / link
            );
        }
    }
    if let Some(path) = &a.plot {
        let time = if clock.counts_cycles() {
            "modeled"
        } else {
            "host clock"
        };
        let mut lat = vec![Series {
            label: "put one-way latency".into(),
            points: points
                .iter()
                .map(|p| (p.size as f64, p.one_way_ns))
                .collect(),
        }];
        if a.layer {
            lat.push(Series {
                label: "message layer (isend_buf/irecv)".into(),
                points: points
                    .iter()
                    .filter_map(|p| Some((p.size as f64, p.layer_one_way_ns?)))
                    .collect(),
            });
        }
        let bw = Series {
            label: "streaming bandwidth".into(),
            points: points
                .iter()
                .map(|p| (p.size as f64, p.mbytes_per_s))
                .collect(),
        };
        let raw = Series {
            label: "raw link".into(),
            points: points.iter().map(|p| (p.size as f64, link)).collect(),
        };
        plot::draw_png(
            path,
            &[
                Panel {
                    title: format!("ping-pong, {topology}: one-way latency"),
                    x_label: "message size, bytes".into(),
                    y_label: format!("one-way latency, ns ({time})"),
                    log_x: true,
                    log_y: true,
                    series: lat,
                },
                Panel {
                    title: format!("put streaming, {topology}: bandwidth"),
                    x_label: "message size, bytes".into(),
                    y_label: format!("MB/s ({time})"),
                    log_x: true,
                    log_y: true,
                    series: vec![bw, raw],
                },
            ],
        )
        .with_context(|| format!("drawing {}", path.display()))?;
    }
    ensure!(
        faults.unwrap_or(0) == 0,
        "the modeled IOMMU refused {faults:?} DMA accesses"
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_suffixes_and_limits() {
        assert_eq!(crate::parse_size("4K"), Ok(4096));
        assert_eq!(crate::parse_size("1MiB"), Ok(1 << 20));
        assert_eq!(crate::parse_size(" 12 "), Ok(12));
        assert!(crate::parse_size("0").is_err());
        assert!(crate::parse_size("17M").is_err());
        assert!(crate::parse_size("x").is_err());
        assert_eq!(parse_size_or_zero("0"), Ok(0));
    }

    #[test]
    fn n_half_interpolates_on_log_size() {
        let c = [(1, 10.0), (4, 40.0), (16, 100.0)];
        assert_eq!(n_half(&c, 40.0), Some(4.0));
        // halfway between 40 and 100 at sizes 4 and 16: log2 midpoint 8
        assert!((n_half(&c, 70.0).unwrap() - 8.0).abs() < 1e-9);
        assert_eq!(n_half(&c, 5.0), Some(1.0));
        assert_eq!(n_half(&c, 200.0), None);
    }

    #[test]
    fn stream_counts_stay_in_bounds() {
        assert_eq!(stream_count(1, 4 << 20), 512);
        assert_eq!(stream_count(1 << 20, 4 << 20), 8);
        assert_eq!(stream_count(64 << 10, 4 << 20), 64);
    }
}
