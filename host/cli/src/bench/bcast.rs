//! `fasthsl bench bcast`: broadcast latency against the node count, on the message
//! layer (software tree or hardware backend) and as one raw broadcast put. Latency is the
//! modeled time from the root's call to the completion of the last receiver, every
//! receiver having posted its part of the broadcast beforehand.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, ensure, Context, Result};
use clap::{Args, ValueEnum};
use fasthsl_driver::contract::desc_flag;
use fasthsl_driver::{Device, Pace};
use fasthsl_msg::layout::Layout;
use fasthsl_msg::{BcastBackend, Bootstrap, Endpoint, MsgBuf, MsgConfig, Request};
use fasthsl_sim::{Cluster, SimConfig};
use fasthsl_topology::{Topology, MAX_NODES};
use serde_json::json;

use crate::bringup::{self, configured_cards, BenchDevice, Testbed};
use crate::plot::{self, Panel, Series};
use fasthsl_rng::Rng;

/// Device time allowed for one broadcast (64 KiB through 6 tree levels takes ~0.3 ms).
const BCAST_TIMEOUT_NS: u64 = 20_000_000;
/// Device time allowed for the start-up handshake of every node.
const HELLO_TIMEOUT_NS: u64 = 5_000_000;

/// How the broadcast travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// The message layer's binomial tree of point-to-point messages
    #[value(alias = "layer-sw")]
    Sw,
    /// One broadcast put from the root, replicated by the routers (driver level)
    Hw,
    /// The message layer's hardware backend: broadcast puts into broadcast slots
    LayerHw,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Sw => "sw",
            Mode::Hw => "hw",
            Mode::LayerHw => "layer-hw",
        }
    }

    /// The message layer's backend for this mode. `Hw` is not the layer: it is measured
    /// on the driver (one broadcast put, [`measure_hw`]).
    fn backend(self) -> Result<BcastBackend> {
        match self {
            Mode::Sw => Ok(BcastBackend::SoftwareTree),
            Mode::LayerHw => Ok(BcastBackend::Hardware),
            Mode::Hw => bail!("--mode hw is measured on the driver, not the message layer"),
        }
    }
}

/// Topology family of a node-count sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Family {
    /// star:N (one router, N <= 8)
    Star,
    /// full:N (N <= 8)
    Full,
    /// ring:N
    Ring,
    /// mesh:XxY, as square as N allows
    Mesh,
    /// torus:XxY, as square as N allows (both sides >= 2)
    Torus,
    /// hypercube:log2(N) (N a power of two)
    Hypercube,
}

impl Family {
    /// The family's network of `n` nodes.
    pub fn topology(self, n: usize) -> Result<Topology> {
        // The most square X x Y = n with Y <= X (Y = 1 for a prime n).
        let y = (1..=n)
            .filter(|y| y * y <= n && n.is_multiple_of(*y))
            .max()
            .unwrap_or(1);
        let t = match self {
            Family::Star => Topology::star(n),
            Family::Full => Topology::full(n),
            Family::Ring => Topology::ring(n),
            Family::Mesh => Topology::mesh(n / y, y),
            Family::Torus => Topology::torus(n / y, y),
            Family::Hypercube => {
                ensure!(
                    n.is_power_of_two() && n >= 2,
                    "a hypercube has 2^D nodes: {n} is not a power of two (use --family ring, mesh or torus)"
                );
                Topology::hypercube(n.trailing_zeros())
            }
        };
        t.with_context(|| format!("no {self:?} network of {n} nodes"))
    }
}

/// Options of `fasthsl bench bcast`.
#[derive(Debug, Args)]
#[command(after_help = "\
Definitions (modeled time: simulated cycles, deterministic for a seed):
  latency_ns  from the root's ibcast call to the completion of the last receiver's \
ibcast (each receiver posts its ibcast before the root calls), mean of --iterations \
broadcasts after one untimed warm-up broadcast per size; every receiver's buffer is \
checked against the root's data after each broadcast. Between broadcasts every card \
finishes its sends, so each one starts on an idle network.
  sw (or layer-sw)  the message layer's binomial tree: ceil(log2 N) rounds of \
point-to-point messages (eager up to 4080 bytes, zero-copy rendezvous above).
  hw  one broadcast put (DESC_FLAG_BCAST, range 0..N-1) from the root, replicated by the \
routers along the topology's broadcast tree, every receiver's NIC writing it at the same \
address; measured on the driver, not the message layer: from the root's put to the last \
receiver's LMR entry.
  layer-hw  the message layer's hardware backend (BcastBackend::Hardware, every receive \
window at one bus address): the root broadcasts the message in pieces of up to 4080 \
bytes into its broadcast slots; timed like sw (two nodes above 4080 bytes: one \
rendezvous unicast, which is faster there).

Wall time per network is printed on stderr: 64 simulated nodes take a while.

Examples:
  fasthsl bench bcast --nodes 2,4,8 --sizes 8 --json
  fasthsl bench bcast --family ring --nodes 4,8,16 --plot bcast.png
  fasthsl bench bcast --topology torus:4x4,mesh:4x4 --sizes 64K")]
pub struct BcastArgs {
    /// Node counts of the sweep, 2..=64: comma list
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = "2,4,8,16,32,64",
          value_parser = clap::value_parser!(u16).range(2..=MAX_NODES as i64))]
    nodes: Vec<u16>,
    /// Network family of the sweep
    #[arg(long, value_enum, default_value = "hypercube")]
    family: Family,
    /// Explicit networks instead of --nodes/--family: comma list of specs
    #[arg(long, value_name = "SPEC", value_delimiter = ',', value_parser = crate::parse_topology,
          conflicts_with_all = ["nodes", "family"])]
    topology: Vec<Topology>,
    /// Broadcast sizes, bytes (K/KiB, M/MiB suffixes): comma list
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = "8,64K",
          value_parser = crate::parse_size)]
    sizes: Vec<usize>,
    /// Broadcast implementation(s): comma list
    #[arg(long, value_enum, value_delimiter = ',', default_value = "sw")]
    mode: Vec<Mode>,
    /// Root node
    #[arg(long, default_value_t = 0)]
    root: u16,
    /// Timed broadcasts per point
    #[arg(long, value_name = "N", default_value_t = 2,
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    iterations: u32,
    /// Seed of the broadcast data
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// One JSON object per point: nodes, topology, op (bcast or barrier), bytes, mode,
    /// latency_ns, rounds (hw: 1)
    #[arg(long)]
    json: bool,
    /// Also measure the barrier of the layer's modes (sw, layer-hw): every node enters in
    /// the same cycle, latency to the last node's exit (bytes 0, op "barrier")
    #[arg(long)]
    barrier: bool,
    /// Draw latency against node count (one curve per size and mode) into this PNG
    #[arg(long, value_name = "FILE.png")]
    plot: Option<PathBuf>,
    /// Run on cards instead of the simulator, node i = the i-th --device (a PCI address
    /// or vfio-user:/path/to.sock; see `fasthsl bench pingpong --help`): one network, of
    /// as many nodes as cards (--topology, one spec, must agree; --nodes is not used)
    #[arg(long = "device", value_name = "ADDR")]
    devices: Vec<String>,
}

/// One measured point.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// Nodes.
    pub nodes: usize,
    /// Network.
    pub topology: String,
    /// Bytes broadcast.
    pub bytes: usize,
    /// How.
    pub mode: Mode,
    /// Mean latency, modeled ns.
    pub latency_ns: f64,
    /// A barrier, not a broadcast.
    pub barrier: bool,
}

impl Point {
    /// Sequential steps: the tree's rounds for sw, one (cut) broadcast for hw and layer-hw;
    /// a barrier gathers and releases (layer-hw: straight to node 0, one broadcast back;
    /// two nodes: one round each way).
    fn rounds(&self) -> u32 {
        let r = match self.mode {
            Mode::Sw => rounds(self.nodes),
            Mode::Hw | Mode::LayerHw => 1,
        };
        if self.barrier {
            2 * r
        } else {
            r
        }
    }

    fn op(&self) -> &'static str {
        if self.barrier {
            "barrier"
        } else {
            "bcast"
        }
    }
}

/// Every node's endpoint, every HELLO exchanged.
struct World<D: BenchDevice> {
    eps: Vec<Endpoint<D>>,
    /// Backend and clock, for `--device` runs.
    describe: Option<serde_json::Value>,
}

/// Receive window for broadcasts of up to `max_bytes` on `n` nodes: the layout, then
/// the heap (each node's broadcast buffer, plus room for the layer's own use).
fn window(n: usize, cfg: &MsgConfig, max_bytes: usize) -> usize {
    (Layout::new(n, cfg).heap_off + max_bytes + (64 << 10)).next_multiple_of(4096)
}

impl<D: BenchDevice> World<D> {
    fn up(tb: Testbed<D>, cfg: &MsgConfig) -> Result<World<D>> {
        let n = tb.topology.nodes();
        let describe = tb.describe();
        let cards = tb.cards;
        let boot = Bootstrap::new(
            cards
                .iter()
                .map(|c| c.rx_iova())
                .collect::<Result<_, _>>()?,
        );
        let eps = cards
            .into_iter()
            .map(|c| Endpoint::new(c, &boot, cfg.clone()).context("starting the message layer"))
            .collect::<Result<Vec<_>>>()?;
        let mut w = World { eps, describe };
        // Every HELLO in before timing: the first broadcast should not pay for start-up.
        let start = w.now_ns();
        while !w.eps.iter().all(|e| (0..n as u16).all(|p| e.peer_ready(p))) {
            ensure!(
                w.now_ns() - start < HELLO_TIMEOUT_NS,
                "the message layer's start-up handshake did not finish in {HELLO_TIMEOUT_NS} ns"
            );
            w.drive()?;
        }
        w.quiesce()?;
        Ok(w)
    }

    /// The run's clock (node 0's card).
    fn now_ns(&self) -> u64 {
        self.eps[0].card().device().now_ns()
    }

    /// The cards advance one step (simulator: one cycle of the whole cluster).
    fn step(&self) {
        self.eps[0].card().device().relax(Pace::Step);
    }

    /// Every endpoint makes progress, then the cluster advances one cycle.
    fn drive(&mut self) -> Result<()> {
        for ep in &mut self.eps {
            ep.progress()?;
        }
        self.step();
        Ok(())
    }

    /// Drives until no card has a send outstanding: the network is idle again.
    fn quiesce(&mut self) -> Result<()> {
        let start = self.now_ns();
        while self.eps.iter().any(|e| e.card().outstanding() > 0) {
            ensure!(
                self.now_ns() - start < BCAST_TIMEOUT_NS,
                "sends still outstanding after {BCAST_TIMEOUT_NS} ns"
            );
            self.drive()?;
        }
        Ok(())
    }

    /// One barrier, every node entering now; returns the time to the last node's exit, ns.
    fn barrier(&mut self) -> Result<u64> {
        let mut reqs = Vec::new();
        for ep in &mut self.eps {
            reqs.push(Some(ep.ibarrier()?));
        }
        let t0 = self.now_ns();
        let mut last = 0;
        while reqs.iter().any(Option::is_some) {
            ensure!(
                self.now_ns() - t0 < BCAST_TIMEOUT_NS,
                "barrier: {} of {} nodes not out after {BCAST_TIMEOUT_NS} ns",
                reqs.iter().filter(|q| q.is_some()).count(),
                self.eps.len()
            );
            let mut done = false;
            for (ep, slot) in self.eps.iter_mut().zip(reqs.iter_mut()) {
                match slot {
                    Some(q) => {
                        if ep.test(q)?.is_some() {
                            *slot = None;
                            done = true;
                        }
                    }
                    None => ep.progress()?,
                }
            }
            if done {
                last = self.now_ns() - t0;
            }
            self.step();
        }
        self.quiesce()?;
        Ok(last)
    }

    /// One broadcast of `data` from `root` into `bufs`; returns its latency, ns.
    fn bcast(&mut self, root: u16, bufs: &[MsgBuf], data: &[u8]) -> Result<u64> {
        let n = self.eps.len();
        let r = usize::from(root);
        self.eps[r].write(&bufs[r], 0, data)?;
        let mut reqs: Vec<Option<Request>> = Vec::new();
        for (i, ep) in self.eps.iter_mut().enumerate() {
            reqs.push(if i == r {
                None
            } else {
                Some(ep.ibcast(root, &bufs[i], data.len())?)
            });
        }
        let t0 = self.now_ns();
        let root_req = self.eps[r].ibcast(root, &bufs[r], data.len())?;
        let mut root_req = Some(root_req);
        let mut last = 0;
        while reqs.iter().any(Option::is_some) || root_req.is_some() {
            ensure!(
                self.now_ns() - t0 < BCAST_TIMEOUT_NS,
                "broadcast of {} bytes from node {root}: {} of {} receivers not done after {BCAST_TIMEOUT_NS} ns",
                data.len(),
                reqs.iter().filter(|q| q.is_some()).count(),
                n - 1
            );
            // Testing does not advance the device clock: a receiver done in this pass
            // finished at the time read after it.
            let mut receiver_done = false;
            for (i, ep) in self.eps.iter_mut().enumerate() {
                let slot = if i == r { &mut root_req } else { &mut reqs[i] };
                match slot {
                    Some(q) => {
                        if let Some(st) = ep.test(q)? {
                            ensure!(st.len == data.len(), "node {i}: broadcast status {st:?}");
                            *slot = None;
                            receiver_done |= i != r;
                        }
                    }
                    None => ep.progress()?,
                }
            }
            if receiver_done {
                last = self.now_ns() - t0;
            }
            self.step();
        }
        let mut got = vec![0u8; data.len()];
        for (i, ep) in self.eps.iter().enumerate() {
            ep.read(&bufs[i], 0, &mut got)?;
            ensure!(got == data, "node {i} received wrong broadcast data");
        }
        self.quiesce()?;
        Ok(last)
    }
}

/// Measures `sizes` x `modes` on one network: one warm-up broadcast per size and mode,
/// then the mean of `iterations`. Also returns the backend and clock of a `--device` run.
///
/// `testbed(topology, window, shared)` brings up the cards; `shared`: every receive
/// window must be at one bus address (layer-hw).
pub fn measure<D: BenchDevice>(
    topo: &Topology,
    mut testbed: impl FnMut(&Topology, usize, bool) -> Result<Testbed<D>>,
    sizes: &[usize],
    modes: &[Mode],
    root: u16,
    iterations: u32,
    seed: u64,
) -> Result<(Vec<Point>, Option<serde_json::Value>)> {
    ensure!(
        usize::from(root) < topo.nodes(),
        "root {root} is not a node of {topo} (nodes 0..={})",
        topo.nodes() - 1
    );
    let max = sizes.iter().copied().max().unwrap_or(1);
    let mut rng = Rng::new(seed);
    let mut points = Vec::new();
    let mut describe = None;
    for &mode in modes {
        if mode == Mode::Hw {
            points.extend(measure_hw(topo, sizes, root, iterations, &mut rng)?);
            continue;
        }
        let cfg = MsgConfig {
            bcast: mode.backend()?,
            ..MsgConfig::default()
        };
        let shared = mode == Mode::LayerHw;
        let mut w = World::up(
            testbed(topo, window(topo.nodes(), &cfg, max), shared)?,
            &cfg,
        )?;
        describe = w.describe.take();
        ensure!(
            w.eps.iter().all(|e| e.bcast_backend() == cfg.bcast),
            "{topo}: the message layer fell back to the software tree: --mode layer-hw needs \
             every receive window at one bus address"
        );
        let bufs = w
            .eps
            .iter_mut()
            .map(|e| e.alloc(max).context("broadcast buffer"))
            .collect::<Result<Vec<_>>>()?;
        for &size in sizes {
            w.bcast(root, &bufs, &rng.bytes(size))
                .with_context(|| format!("{topo}: warm-up broadcast of {size} bytes"))?;
            let mut total = 0;
            for i in 0..iterations {
                total += w
                    .bcast(root, &bufs, &rng.bytes(size))
                    .with_context(|| format!("{topo}: broadcast {i} of {size} bytes"))?;
            }
            points.push(Point {
                nodes: topo.nodes(),
                topology: topo.to_string(),
                bytes: size,
                mode,
                latency_ns: total as f64 / f64::from(iterations),
                barrier: false,
            });
        }
        for (n, ep) in w.eps.iter().enumerate() {
            let s = ep.stats();
            ensure!(
                s.protocol_errors == 0 && s.put_errors == 0,
                "node {n}: {s:?}"
            );
        }
        let faults = bringup::iommu_faults(w.eps.iter().map(|e| e.card().device()));
        ensure!(
            faults.unwrap_or(0) == 0,
            "the modeled IOMMU refused {faults:?} DMA accesses"
        );
    }
    Ok((points, describe))
}

/// Barrier latency of the layer's `modes` (`Hw` has none: skipped) on one network: one
/// warm-up, then the mean of `iterations`.
pub fn measure_barrier<D: BenchDevice>(
    topo: &Topology,
    mut testbed: impl FnMut(&Topology, usize, bool) -> Result<Testbed<D>>,
    modes: &[Mode],
    iterations: u32,
) -> Result<Vec<Point>> {
    let mut points = Vec::new();
    for &mode in modes.iter().filter(|&&m| m != Mode::Hw) {
        let cfg = MsgConfig {
            bcast: mode.backend()?,
            ..MsgConfig::default()
        };
        let shared = mode == Mode::LayerHw;
        let mut w = World::up(testbed(topo, window(topo.nodes(), &cfg, 0), shared)?, &cfg)?;
        ensure!(
            w.eps.iter().all(|e| e.bcast_backend() == cfg.bcast),
            "{topo}: the message layer fell back to the software tree"
        );
        w.barrier()
            .with_context(|| format!("{topo}: warm-up barrier"))?;
        let mut total = 0;
        for i in 0..iterations {
            total += w
                .barrier()
                .with_context(|| format!("{topo}: barrier {i}"))?;
        }
        points.push(Point {
            nodes: topo.nodes(),
            topology: topo.to_string(),
            bytes: 0,
            mode,
            latency_ns: total as f64 / f64::from(iterations),
            barrier: true,
        });
    }
    Ok(points)
}

/// A simulated cluster for [`measure`].
fn sim_bed(t: &Topology, window: usize, shared: bool) -> Result<Testbed<fasthsl_sim::SimDevice>> {
    let cfg = SimConfig {
        shared_iova: shared,
        ..SimConfig::default()
    };
    Testbed::sim(t, cfg, |_| window, |_, _| Ok(()))
}

/// Hardware broadcast on the driver: one put with DESC_FLAG_BCAST to every node from
/// `root`, landing at the same receive-region address everywhere. Latency: from the put
/// to the last receiver's LMR entry, polled every cycle; the data is checked everywhere.
pub fn measure_hw(
    topo: &Topology,
    sizes: &[usize],
    root: u16,
    iterations: u32,
    rng: &mut Rng,
) -> Result<Vec<Point>> {
    topo.bcast_tables()
        .with_context(|| format!("{topo}: no hardware broadcast (use --mode sw)"))?;
    let n = topo.nodes();
    let r = usize::from(root);
    let max = sizes.iter().copied().max().unwrap_or(1);
    let window = max.next_multiple_of(4096) + 4096;
    let cfg = SimConfig {
        shared_iova: true,
        ..SimConfig::default()
    };
    let cluster = Cluster::new(topo, cfg).context("building the cluster")?;
    let mut cards = configured_cards(&cluster, topo, |_| window, |_, _| Ok(()))?;
    let src = cards[r]
        .device()
        .dma_alloc(max)
        .context("root's source buffer")?;
    let iova = cards[r].rx_iova()?;
    for (i, c) in cards.iter().enumerate() {
        ensure!(
            c.rx_iova()? == iova,
            "node {i}'s receive region is not at the root's address: a broadcast lands at one address"
        );
    }
    let dest = fasthsl_topology::bcast_dest(0, (n - 1) as u8);
    let mut points = Vec::new();
    for &size in sizes {
        let mut total = 0;
        for i in 0..=iterations {
            let data = rng.bytes(size);
            cards[r].device().mem_write(&src, 0, &data)?;
            for (k, c) in cards.iter().enumerate() {
                if k != r {
                    c.write_rx(0, &vec![0u8; size])?;
                }
            }
            let t0 = cluster.now_ns();
            let t = cards[r].put(dest, &src, 0, iova, size, desc_flag::BCAST)?;
            let mut waiting: Vec<usize> = (0..n).filter(|&k| k != r).collect();
            let mut last = 0;
            while !waiting.is_empty() {
                ensure!(
                    cluster.now_ns() - t0 < BCAST_TIMEOUT_NS,
                    "{topo}: hardware broadcast of {size} bytes: {} receivers not done",
                    waiting.len()
                );
                cluster.step(1);
                let mut still = Vec::new();
                for k in waiting {
                    let got = cards[k].poll_lmr()?;
                    ensure!(
                        got.len() <= 1,
                        "node {k}: {} entries for one broadcast",
                        got.len()
                    );
                    match got.first() {
                        Some(e) => {
                            ensure!(
                                usize::from(e.src) == r
                                    && e.msg_id == t.msg_id
                                    && e.len as usize == size,
                                "node {k}: unexpected entry {e:?}"
                            );
                            last = cluster.now_ns() - t0;
                        }
                        None => still.push(k),
                    }
                }
                waiting = still;
            }
            let c = cards[r].wait_completion(&t, BCAST_TIMEOUT_NS)?;
            ensure!(c.result.is_ok(), "root's broadcast put: {:?}", c.result);
            let mut got = vec![0u8; size];
            for (k, c) in cards.iter().enumerate() {
                if k != r {
                    c.read_rx(0, &mut got)?;
                    ensure!(got == data, "node {k} received wrong broadcast data");
                }
            }
            // The first one is the warm-up.
            if i > 0 {
                total += last;
            }
        }
        points.push(Point {
            nodes: n,
            topology: topo.to_string(),
            bytes: size,
            mode: Mode::Hw,
            latency_ns: total as f64 / f64::from(iterations),
            barrier: false,
        });
    }
    ensure!(
        cluster.iommu_fault_count() == 0,
        "the modeled IOMMU refused DMA accesses: {:?}",
        cluster.iommu_faults()
    );
    Ok(points)
}

/// `8 B`, `64 KiB`, `1 MiB`: sizes as the plot legend shows them.
fn size_label(s: usize) -> String {
    if s >= 1 << 20 && s.is_multiple_of(1 << 20) {
        format!("{} MiB", s >> 20)
    } else if s >= 1 << 10 && s.is_multiple_of(1 << 10) {
        format!("{} KiB", s >> 10)
    } else {
        format!("{s} B")
    }
}

/// Tree rounds of a binomial broadcast over `n` nodes: ceil(log2 n).
fn rounds(n: usize) -> u32 {
    n.next_power_of_two().trailing_zeros()
}

/// Runs the benchmark.
pub fn run(a: &BcastArgs) -> Result<ExitCode> {
    ensure!(
        a.devices.is_empty() || !a.mode.iter().any(|m| *m != Mode::Sw),
        "--mode hw and layer-hw run on the simulated cluster only: a hardware broadcast \
         lands at one address on every node, and the cards behind --device have no shared \
         receive address yet (use --mode sw with --device)"
    );
    let topos: Vec<Topology> = if !a.devices.is_empty() {
        ensure!(
            a.topology.len() <= 1,
            "--device runs one network (its cards); give at most one --topology"
        );
        vec![bringup::device_topology(
            a.devices.len(),
            a.topology.first(),
            None,
        )?]
    } else if a.topology.is_empty() {
        a.nodes
            .iter()
            .map(|&n| a.family.topology(n.into()))
            .collect::<Result<_>>()?
    } else {
        a.topology.clone()
    };
    for t in &topos {
        ensure!(
            t.nodes() >= 2,
            "{t} has {} node: a broadcast needs 2",
            t.nodes()
        );
        ensure!(
            usize::from(a.root) < t.nodes(),
            "--root {} is not a node of {t} (nodes 0..={})",
            a.root,
            t.nodes() - 1
        );
    }
    let mut sizes = a.sizes.clone();
    sizes.sort_unstable();
    sizes.dedup();
    if !a.json {
        outln!(
            "broadcast latency, root {}, modeled ns (mean of {}, seed {})",
            a.root,
            a.iterations,
            a.seed
        );
        outln!(
            "{:>5} {:>14} {:>9} {:>8} {:>6} {:>12}",
            "nodes",
            "topology",
            "bytes",
            "mode",
            "rounds",
            "latency ns"
        );
    }
    let wall = Instant::now();
    let mut points = Vec::new();
    for t in &topos {
        let w0 = Instant::now();
        let (ps, describe) = if a.devices.is_empty() {
            let (mut ps, d) = measure(t, sim_bed, &sizes, &a.mode, a.root, a.iterations, a.seed)?;
            if a.barrier {
                ps.extend(measure_barrier(t, sim_bed, &a.mode, a.iterations)?);
            }
            (ps, d)
        } else {
            let devs = |t: &Topology, w: usize, _shared: bool| {
                Testbed::devices(&a.devices, t, |_| w, |_, _| Ok(()))
            };
            let (mut ps, d) = measure(t, devs, &sizes, &a.mode, a.root, a.iterations, a.seed)?;
            if a.barrier {
                ps.extend(measure_barrier(t, devs, &a.mode, a.iterations)?);
            }
            (ps, d)
        };
        for p in &ps {
            if a.json {
                outln!(
                    "{}",
                    bringup::with_description(
                        json!({
                            "nodes": p.nodes,
                            "topology": p.topology,
                            "op": p.op(),
                            "bytes": p.bytes,
                            "mode": p.mode.name(),
                            "latency_ns": p.latency_ns,
                            "rounds": p.rounds(),
                        }),
                        describe.clone()
                    )
                );
            } else {
                outln!(
                    "{:>5} {:>14} {:>9} {:>8} {:>6} {:>12.0}",
                    p.nodes,
                    p.topology,
                    if p.barrier {
                        "barrier".to_string()
                    } else {
                        p.bytes.to_string()
                    },
                    p.mode.name(),
                    p.rounds(),
                    p.latency_ns
                );
            }
        }
        eprintln!("{t}: wall time {:.1} s", w0.elapsed().as_secs_f64());
        points.extend(ps);
    }
    eprintln!("total wall time {:.1} s", wall.elapsed().as_secs_f64());
    if let Some(path) = &a.plot {
        let mut series = Vec::new();
        for &m in &a.mode {
            for &s in &sizes {
                series.push(Series {
                    label: format!("{}, {}", size_label(s), m.name()),
                    points: points
                        .iter()
                        .filter(|p| p.mode == m && p.bytes == s && !p.barrier)
                        .map(|p| (p.nodes as f64, p.latency_ns))
                        .collect(),
                });
            }
            if a.barrier && m != Mode::Hw {
                series.push(Series {
                    label: format!("barrier, {}", m.name()),
                    points: points
                        .iter()
                        .filter(|p| p.mode == m && p.barrier)
                        .map(|p| (p.nodes as f64, p.latency_ns))
                        .collect(),
                });
            }
        }
        let what = if a.topology.is_empty() {
            format!("{:?}", a.family).to_lowercase()
        } else {
            "given networks".into()
        };
        plot::draw_png(
            path,
            &[Panel {
                title: format!("broadcast latency, {what}, root {}", a.root),
                x_label: "nodes".into(),
                y_label: "latency, ns (modeled)".into(),
                log_x: true,
                log_y: true,
                series,
            }],
        )
        .with_context(|| format!("drawing {}", path.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_build_the_expected_networks() {
        let spec = |f: Family, n| f.topology(n).map(|t| t.to_string());
        assert_eq!(spec(Family::Hypercube, 2).unwrap(), "hypercube:1");
        assert_eq!(spec(Family::Hypercube, 64).unwrap(), "hypercube:6");
        assert_eq!(spec(Family::Mesh, 32).unwrap(), "mesh:8x4");
        assert_eq!(spec(Family::Torus, 16).unwrap(), "torus:4x4");
        assert_eq!(spec(Family::Mesh, 2).unwrap(), "mesh:2x1");
        assert_eq!(spec(Family::Ring, 5).unwrap(), "ring:5");
        let e = spec(Family::Hypercube, 12).unwrap_err().to_string();
        assert!(e.contains("not a power of two"), "{e}");
        let e = format!("{:#}", spec(Family::Full, 16).unwrap_err());
        assert!(e.contains("full supports"), "{e}");
        assert!(spec(Family::Torus, 7).is_err());
    }

    #[test]
    fn hardware_mode_measures_the_last_receiver() {
        let mut rng = Rng::new(1);
        let p = measure_hw(&"ring:4".parse().unwrap(), &[8, 2000], 1, 1, &mut rng).unwrap();
        assert_eq!(p.len(), 2);
        assert!(p.iter().all(|p| p.mode == Mode::Hw && p.latency_ns > 0.0));
        assert!(p[1].latency_ns > p[0].latency_ns, "{p:?}");
    }

    /// The layer's hardware backend delivers everywhere (measure checks every buffer) and
    /// beats the tree from 4 nodes on; it stays within 150 ns of the raw broadcast put
    /// for 8 bytes (the layer's header and the receiver's completion).
    #[test]
    fn layer_hardware_backend_beats_the_tree() {
        let t: Topology = "hypercube:2".parse().unwrap();
        let modes = [Mode::Sw, Mode::LayerHw];
        let (ps, _) = measure(&t, sim_bed, &[8, 8192], &modes, 1, 1, 3).unwrap();
        let lat = |m, b| {
            ps.iter()
                .find(|p| p.mode == m && p.bytes == b)
                .unwrap()
                .latency_ns
        };
        assert!(lat(Mode::LayerHw, 8) < lat(Mode::Sw, 8), "{ps:?}");
        assert!(lat(Mode::LayerHw, 8192) < lat(Mode::Sw, 8192), "{ps:?}");
        let raw = measure_hw(&t, &[8], 1, 1, &mut Rng::new(3)).unwrap();
        let d = lat(Mode::LayerHw, 8) - raw[0].latency_ns;
        assert!((0.0..150.0).contains(&d), "layer {ps:?} raw {raw:?}");
        // Barrier: gather by unicast + one broadcast beats gather + release by the tree.
        let b = measure_barrier(&t, sim_bed, &[Mode::Hw, Mode::Sw, Mode::LayerHw], 1).unwrap();
        assert_eq!(b.len(), 2, "{b:?}");
        assert!(b.iter().all(|p| p.barrier && p.latency_ns > 600.0), "{b:?}");
        assert!(b[1].latency_ns < b[0].latency_ns, "{b:?}");
    }

    #[test]
    fn size_labels() {
        assert_eq!(
            [8, 65536, 1 << 20, 1500].map(size_label),
            ["8 B", "64 KiB", "1 MiB", "1500 B"]
        );
    }

    #[test]
    fn rounds_are_ceil_log2() {
        assert_eq!([2, 3, 4, 5, 8, 9, 64].map(rounds), [1, 2, 2, 3, 3, 4, 6]);
    }

    /// Broadcasts reach every node (measure checks every buffer after every broadcast)
    /// and take at least one message time per tree round, and more rounds take longer.
    #[test]
    fn bcast_on_2_and_4_nodes_delivers_to_everyone() {
        let mut lat = Vec::new();
        for (spec, root) in [("full:2", 1), ("full:4", 0), ("hypercube:2", 3)] {
            let t: Topology = spec.parse().unwrap();
            let (ps, _) = measure(&t, sim_bed, &[8, 8192], &[Mode::Sw], root, 1, 2).unwrap();
            assert_eq!(ps.len(), 2);
            for p in &ps {
                assert_eq!((p.nodes, p.bytes, p.mode), (t.nodes(), p.bytes, Mode::Sw));
                // An 8-byte message alone takes ~0.6 us one way: each round costs at least
                // the wire, router and posted-write latencies (> 300 ns).
                assert!(p.latency_ns > 300.0 * f64::from(rounds(t.nodes())), "{p:?}");
            }
            assert!(ps[1].latency_ns > ps[0].latency_ns, "{ps:?}");
            lat.push(ps[0].latency_ns);
        }
        // Two rounds cost more than one.
        assert!(lat[1] > lat[0] && lat[2] > lat[0], "{lat:?}");
    }
}
