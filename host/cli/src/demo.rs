//! The simulated-cluster demo: bring-up, verified remote writes, ping-pong.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};
use fasthsl_driver::contract::{desc_flag, status_done, DescErr, LmrEntry};
use fasthsl_driver::{Card, Device, DmaBuffer};
use fasthsl_sim::{Cluster, SimConfig, SimDevice};
use fasthsl_topology::{Routing, Topology};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use crate::bringup::configured_cards_routed;
use fasthsl_rng::Rng;

/// Untouched bytes checked on each side of every received message.
const GUARD: usize = 64;
/// Receive-region bytes per sender in the all-pairs phase.
const PAIR_SLOT: usize = 8192;
/// Largest message of the all-pairs phase.
const PAIR_MAX: usize = 4096;

/// What the demo should do.
#[derive(Debug, Clone)]
pub struct DemoOptions {
    /// The network.
    pub topology: Topology,
    /// Routing tables; with adaptive ones every write is sent DESC_FLAG_ADAPTIVE.
    pub routing: Routing,
    /// Seed of every random choice.
    pub seed: u64,
    /// Largest message of the transfer sweep and the ping-pong.
    pub max_size: usize,
    /// Timed round trips per ping-pong size.
    pub iterations: u32,
    /// Draw a progress bar on stderr.
    pub progress: bool,
    /// Directory for FST waveforms (builds with the `trace` feature only).
    pub wave: Option<PathBuf>,
}

/// One ping-pong size.
#[derive(Debug, Clone, Serialize)]
pub struct PingPong {
    /// Message bytes.
    pub size: usize,
    /// Half the mean round trip, modeled nanoseconds.
    pub one_way_ns: f64,
    /// Half the mean round trip, card clock cycles.
    pub one_way_cycles: f64,
    /// `size / one_way`, 10^6 bytes per second.
    pub mbytes_per_s: f64,
}

/// What the demo found.
#[derive(Debug, Clone)]
pub struct Report {
    /// Nodes.
    pub nodes: usize,
    /// Topology text.
    pub topology: String,
    /// Routing tables used.
    pub routing: Routing,
    /// Seed used.
    pub seed: u64,
    /// Every check passed.
    pub verified: bool,
    /// What failed, if anything.
    pub failures: Vec<String>,
    /// Remote writes verified (sweep + all pairs + ping-pong).
    pub transfers: usize,
    /// Payload bytes moved.
    pub bytes: u64,
    /// Ping-pong results by size.
    pub pingpong: Vec<PingPong>,
    /// Simulated cycles.
    pub sim_cycles: u64,
    /// Wall-clock time of the whole run.
    pub wall: Duration,
    /// DMA accesses the modeled IOMMU refused.
    pub iommu_faults: usize,
    /// DMA port rule violations the simulator saw.
    pub violations: usize,
}

impl Report {
    /// Simulated cycles per wall-clock second.
    pub fn sim_cycles_per_s(&self) -> f64 {
        self.sim_cycles as f64 / self.wall.as_secs_f64().max(1e-9)
    }
}

/// A configured, routed simulated cluster with one source buffer per node.
pub struct Bench {
    /// The simulation.
    pub cluster: Cluster,
    /// Node `n`'s card.
    pub cards: Vec<Card<SimDevice>>,
    /// Node `n`'s source buffer.
    src: Vec<DmaBuffer>,
    rx_len: usize,
    /// Flags added to every write (DESC_FLAG_ADAPTIVE with adaptive routing).
    flags: u16,
}

/// Device time allowed for one message of `len` bytes: generous (the link moves about
/// 8 bytes per 4 ns cycle), so only a stuck card times out.
fn timeout_ns(len: usize) -> u64 {
    2_000_000 + len as u64 * 20
}

impl Bench {
    /// Builds the cluster, configures every card with a receive region large enough
    /// for `max_size`-byte messages, and programs the routes.
    pub fn up(
        topology: &Topology,
        routing: Routing,
        max_size: usize,
        wave: Option<&Path>,
    ) -> Result<Bench> {
        let nodes = topology.nodes();
        let rx_len = (max_size + 2 * GUARD + 4096)
            .max(nodes * PAIR_SLOT)
            .next_multiple_of(4096);
        let src_len = (max_size + 64)
            .max(nodes * PAIR_SLOT)
            .next_multiple_of(4096);
        let mut cfg = SimConfig::default();
        cfg.host_mem_bytes = cfg.host_mem_bytes.max(2 * (rx_len + src_len) + (8 << 20));
        if let Some(dir) = wave {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("creating the waveform directory {}", dir.display()))?;
            cfg.trace_dir = Some(dir.to_path_buf());
        }
        let cluster = Cluster::new(topology, cfg).context("building the simulated cluster")?;
        let mut src = Vec::with_capacity(nodes);
        let cards = configured_cards_routed(
            &cluster,
            topology,
            routing,
            |_| rx_len,
            |_, card| {
                src.push(card.device().dma_alloc(src_len)?);
                Ok(())
            },
        )?;
        Ok(Bench {
            cluster,
            cards,
            src,
            rx_len,
            flags: match routing {
                Routing::Deterministic => 0,
                Routing::Adaptive => desc_flag::ADAPTIVE,
            },
        })
    }

    /// Fills `len` random bytes at `src_off` of node `s`'s source buffer and a guard
    /// pattern around (and under) the target range at node `d`, then posts the put.
    fn post(&mut self, rng: &mut Rng, w: &mut Write) -> Result<()> {
        w.data = rng.bytes(w.len);
        w.pattern = rng.next_u64() as u8;
        w.flags =
            (rng.next_u64() as u16) & (desc_flag::IRQ_LOCAL | desc_flag::IRQ_REMOTE) | self.flags;
        self.cards[w.src]
            .device()
            .mem_write(&self.src[w.src], w.src_off, &w.data)?;
        let (g0, g1) = w.guarded(self.rx_len);
        self.cards[w.dst].write_rx(g0, &vec![w.pattern; g1 - g0])?;
        w.remote = self.cards[w.dst].rx_iova()? + w.dst_off as u64;
        let t = self.cards[w.src]
            .put(
                w.dst as u16,
                &self.src[w.src],
                w.src_off,
                w.remote,
                w.len,
                w.flags,
            )
            .with_context(|| w.describe())?;
        w.msg_id = t.msg_id;
        w.ticket = Some(t);
        Ok(())
    }

    /// Waits for the sender's completion of `w`.
    fn complete(&mut self, w: &Write, failures: &mut Vec<String>) -> Result<()> {
        let t = w.ticket.as_ref().expect("posted");
        let c = self.cards[w.src]
            .wait_completion(t, timeout_ns(w.len))
            .with_context(|| format!("{}: waiting for the send completion", w.describe()))?;
        if let Err(e) = c.result {
            failures.push(format!("{}: {e}", w.describe()));
        }
        Ok(())
    }

    /// Checks the LMR entry and every byte of `w` at the receiver (plus the guards).
    fn verify(&self, w: &Write, e: &LmrEntry, failures: &mut Vec<String>) -> Result<()> {
        let want = LmrEntry {
            src: w.src as u16,
            status: status_done(DescErr::Ok),
            msg_id: w.msg_id,
            addr: w.remote,
            len: w.len as u32,
            flags: w.flags,
        };
        if *e != want {
            failures.push(format!(
                "{}: LMR entry {e:?}, expected {want:?}",
                w.describe()
            ));
        }
        let (g0, g1) = w.guarded(self.rx_len);
        let mut got = vec![0u8; g1 - g0];
        self.cards[w.dst].read_rx(g0, &mut got)?;
        let mut expect = vec![w.pattern; g1 - g0];
        let at = w.dst_off - g0;
        expect[at..at + w.len].copy_from_slice(&w.data);
        if let Some(m) = mismatch(&expect, &got) {
            failures.push(format!(
                "{}: receive region differs at window offset {:#x} ({} bytes differ; \
                 data at +{at:#x}, guards around it)",
                w.describe(),
                g0 + m.0,
                m.1
            ));
        }
        Ok(())
    }

    /// One remote write, start to finish.
    fn write_one(&mut self, rng: &mut Rng, mut w: Write, failures: &mut Vec<String>) -> Result<()> {
        self.post(rng, &mut w)?;
        self.complete(&w, failures)?;
        let e = self.cards[w.dst]
            .wait_lmr(timeout_ns(w.len))
            .with_context(|| format!("{}: waiting for the LMR entry", w.describe()))?;
        self.verify(&w, &e, failures)
    }
}

/// First differing index and number of differing bytes.
fn mismatch(a: &[u8], b: &[u8]) -> Option<(usize, usize)> {
    let first = a.iter().zip(b).position(|(x, y)| x != y)?;
    Some((first, a.iter().zip(b).filter(|(x, y)| x != y).count()))
}

/// One planned remote write and what is needed to check it.
#[derive(Debug, Default)]
struct Write {
    src: usize,
    dst: usize,
    len: usize,
    src_off: usize,
    dst_off: usize,
    data: Vec<u8>,
    pattern: u8,
    flags: u16,
    remote: u64,
    msg_id: u32,
    ticket: Option<fasthsl_driver::PutTicket>,
}

impl Write {
    fn new(src: usize, dst: usize, len: usize, src_off: usize, dst_off: usize) -> Self {
        Write {
            src,
            dst,
            len,
            src_off,
            dst_off,
            ..Default::default()
        }
    }
    fn describe(&self) -> String {
        format!(
            "write node {} -> node {}, {} bytes (source +{:#x}, target +{:#x})",
            self.src, self.dst, self.len, self.src_off, self.dst_off
        )
    }
    /// The checked range of the receive region: the message plus guards.
    fn guarded(&self, rx_len: usize) -> (usize, usize) {
        (
            self.dst_off.saturating_sub(GUARD),
            (self.dst_off + self.len + GUARD).min(rx_len),
        )
    }
}

/// Sizes of the sweep: every power of two up to `max`, a random size between each two,
/// and `max` itself.
fn sweep_sizes(rng: &mut Rng, max: usize) -> Vec<usize> {
    let mut v = Vec::new();
    let mut p = 1usize;
    while p <= max {
        v.push(p);
        let next = p * 2;
        if next - 1 > p {
            let hi = (next - 1).min(max);
            if hi > p {
                v.push(rng.range(p + 1, hi));
            }
        }
        p = next;
    }
    if *v.last().expect("max >= 1") != max {
        v.push(max);
    }
    v
}

/// Ping-pong sizes: powers of two from 8 up to `max` (at least one size).
fn pingpong_sizes(max: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (3..=24)
        .map(|b| 1usize << b)
        .filter(|&s| s <= max)
        .collect();
    if v.is_empty() {
        v.push(max);
    }
    v
}

/// Runs the demo; returns the report and the cluster (for `fasthsl stats`).
pub fn run(opts: &DemoOptions) -> Result<(Report, Bench)> {
    let topo = &opts.topology;
    let nodes = topo.nodes();
    ensure!(
        nodes >= 2,
        "the demo needs at least 2 nodes (got {topo}); try --nodes 2"
    );
    let wall = Instant::now();
    let mut rng = Rng::new(opts.seed);
    let mut failures = Vec::new();

    // The whole plan first, so the progress bar knows the total.
    let sweep: Vec<Write> = sweep_sizes(&mut rng, opts.max_size)
        .into_iter()
        .map(|len| {
            let s = rng.range(0, nodes - 1);
            let d = (s + rng.range(1, nodes - 1)) % nodes;
            Write::new(s, d, len, rng.range(0, 63), GUARD + rng.range(0, 4095))
        })
        .collect();
    let pair_max = PAIR_MAX.min(opts.max_size);
    let pairs: Vec<Write> = (0..nodes)
        .flat_map(|s| (0..nodes).filter(move |&d| d != s).map(move |d| (s, d)))
        .map(|(s, d)| {
            let len = rng.range(1, pair_max);
            let room = PAIR_SLOT - 2 * GUARD - len;
            // Disjoint ranges at both ends: a sender's messages are all in flight at
            // once, so they must not share source bytes either.
            Write::new(
                s,
                d,
                len,
                d * PAIR_SLOT + rng.range(0, 63),
                s * PAIR_SLOT + GUARD + rng.range(0, room),
            )
        })
        .collect();
    let pp_sizes = pingpong_sizes(opts.max_size);
    let total: u64 = sweep.iter().map(|w| w.len as u64).sum::<u64>()
        + pairs.iter().map(|w| w.len as u64).sum::<u64>()
        + pp_sizes.iter().map(|&s| 2 * s as u64).sum::<u64>() * u64::from(opts.iterations);

    let bar = if opts.progress {
        let b = ProgressBar::new(total);
        b.set_style(
            ProgressStyle::with_template(
                "{spinner} {msg:24} [{bar:30}] {bytes}/{total_bytes} ({elapsed})",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        b
    } else {
        ProgressBar::hidden()
    };

    bar.set_message("bring-up and routing");
    let mut bench = Bench::up(topo, opts.routing, opts.max_size, opts.wave.as_deref())?;
    let mut transfers = 0;

    bar.set_message("transfer sweep");
    for w in sweep {
        let len = w.len as u64;
        bench.write_one(&mut rng, w, &mut failures)?;
        transfers += 1;
        bar.inc(len);
    }

    // Every ordered pair at once: all descriptors posted before any wait, so the
    // routers see contention for the same outputs.
    bar.set_message("all pairs, concurrent");
    let mut pairs = pairs;
    for w in pairs.iter_mut() {
        bench.post(&mut rng, w)?;
    }
    for w in &pairs {
        bench.complete(w, &mut failures)?;
    }
    for d in 0..nodes {
        for _ in 0..nodes - 1 {
            let e = bench.cards[d]
                .wait_lmr(timeout_ns(PAIR_MAX * nodes))
                .with_context(|| format!("all pairs: node {d} waiting for its messages"))?;
            match pairs
                .iter()
                .find(|w| w.dst == d && usize::from(e.src) == w.src && w.msg_id == e.msg_id)
            {
                Some(w) => bench.verify(w, &e, &mut failures)?,
                None => failures.push(format!(
                    "all pairs: node {d} got an unexpected LMR entry {e:?}"
                )),
            }
        }
    }
    transfers += pairs.len();
    bar.inc(pairs.iter().map(|w| w.len as u64).sum());

    bar.set_message("ping-pong 0 <-> 1");
    let mut pingpong = Vec::new();
    for &size in &pp_sizes {
        let (pp, n) = ping_pong(
            &mut bench,
            &mut rng,
            size,
            opts.iterations,
            &mut failures,
            &bar,
        )?;
        transfers += n;
        pingpong.push(pp);
    }
    bar.finish_and_clear();

    // Nothing may be left over: a stray entry or completion means a duplicate or lost message.
    for (n, card) in bench.cards.iter_mut().enumerate() {
        for c in card.poll_completions()? {
            if let Err(e) = c.result {
                failures.push(format!("node {n}: descriptor #{} failed: {e}", c.seq));
            }
        }
        let extra = card.poll_lmr()?;
        if !extra.is_empty() {
            failures.push(format!("node {n}: {} unexpected LMR entries", extra.len()));
        }
        let cnt = card.counters()?;
        if cnt.rx_dropped() != 0 || cnt.desc_err != 0 || cnt.csr_err != 0 {
            failures.push(format!("node {n}: card reports errors: {cnt:?}"));
        }
    }
    let iommu_faults = bench.cluster.iommu_fault_count();
    if iommu_faults != 0 {
        failures.push(format!(
            "{iommu_faults} IOMMU faults, first: {:?}",
            bench.cluster.iommu_faults()[0]
        ));
    }
    let violations = bench.cluster.violations();
    if let Some(v) = violations.first() {
        failures.push(format!(
            "{} DMA port violations, first: {v:?}",
            violations.len()
        ));
    }

    let report = Report {
        nodes,
        topology: topo.to_string(),
        routing: opts.routing,
        seed: opts.seed,
        verified: failures.is_empty(),
        failures,
        transfers,
        bytes: total,
        pingpong,
        sim_cycles: bench.cluster.cycles(),
        wall: wall.elapsed(),
        iommu_faults,
        violations: violations.len(),
    };
    Ok((report, bench))
}

/// Node 0 puts `size` bytes into node 1's receive region; node 1 sees the LMR entry by
/// polling and puts `size` bytes back; node 0 polls for it. One-way time is half the
/// mean round trip. Returns the result and the number of writes made.
fn ping_pong(
    b: &mut Bench,
    rng: &mut Rng,
    size: usize,
    iterations: u32,
    failures: &mut Vec<String>,
    bar: &ProgressBar,
) -> Result<(PingPong, usize)> {
    let ping = rng.bytes(size);
    let pong = rng.bytes(size);
    b.cards[0].device().mem_write(&b.src[0], 0, &ping)?;
    b.cards[1].device().mem_write(&b.src[1], 0, &pong)?;
    let rx0 = b.cards[0].rx_iova()?;
    let rx1 = b.cards[1].rx_iova()?;
    let to = timeout_ns(size);
    let dev0 = b.cards[0].device().clone();
    let (t0, c0) = (dev0.now_ns(), dev0.cycles().unwrap_or(0));
    for _ in 0..iterations {
        b.cards[0].put(1, &b.src[0], 0, rx1, size, b.flags)?;
        let e = b.cards[1]
            .wait_lmr(to)
            .context("ping-pong: node 1 waiting for ping")?;
        b.cards[1].put(0, &b.src[1], 0, rx0, size, b.flags)?;
        let f = b.cards[0]
            .wait_lmr(to)
            .context("ping-pong: node 0 waiting for pong")?;
        for (who, x) in [("ping", e), ("pong", f)] {
            if x.len as usize != size || x.status != status_done(DescErr::Ok) {
                failures.push(format!("ping-pong {size} B: {who} LMR entry {x:?}"));
            }
        }
        // Host-memory reads only: they cost the modeled clock nothing.
        for card in &mut b.cards[..2] {
            for c in card.poll_completions()? {
                if let Err(e) = c.result {
                    failures.push(format!("ping-pong {size} B: send failed: {e}"));
                }
            }
        }
        bar.inc(2 * size as u64);
    }
    let (t1, c1) = (dev0.now_ns(), dev0.cycles().unwrap_or(0));
    for (card, want, what) in [(&b.cards[1], &ping, "ping"), (&b.cards[0], &pong, "pong")] {
        let mut got = vec![0u8; size];
        card.read_rx(0, &mut got)?;
        if let Some((at, n)) = mismatch(want, &got) {
            failures.push(format!(
                "ping-pong {size} B: {what} data differs at +{at:#x} ({n} bytes)"
            ));
        }
    }
    let trips = 2.0 * f64::from(iterations);
    let one_way_ns = (t1 - t0) as f64 / trips;
    if one_way_ns <= 0.0 {
        bail!("ping-pong {size} B: the device clock did not advance");
    }
    Ok((
        PingPong {
            size,
            one_way_ns,
            one_way_cycles: (c1 - c0) as f64 / trips,
            mbytes_per_s: size as f64 / one_way_ns * 1e3,
        },
        2 * iterations as usize,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_covers_powers_of_two_and_the_maximum() {
        let mut r = Rng::new(1);
        let s = sweep_sizes(&mut r, 1 << 20);
        for b in 0..=20 {
            assert!(s.contains(&(1 << b)), "{b}");
        }
        assert_eq!(s.len(), 21 + 19);
        assert!(s.iter().all(|&x| (1..=1 << 20).contains(&x)));
        let s = sweep_sizes(&mut r, 1000);
        assert_eq!(*s.last().unwrap(), 1000);
        assert!(s.iter().all(|&x| x <= 1000));
        assert_eq!(sweep_sizes(&mut r, 1), vec![1]);
        assert_eq!(sweep_sizes(&mut r, 2), vec![1, 2]);
    }

    #[test]
    fn pingpong_sizes_span_8_to_max() {
        assert_eq!(pingpong_sizes(64), vec![8, 16, 32, 64]);
        assert_eq!(pingpong_sizes(100), vec![8, 16, 32, 64]);
        assert_eq!(pingpong_sizes(4), vec![4]);
        assert_eq!(pingpong_sizes(1 << 20).len(), 18);
    }

    #[test]
    fn mismatch_reports_first_and_count() {
        assert_eq!(mismatch(b"abcd", b"abcd"), None);
        assert_eq!(mismatch(b"abcd", b"xbcy"), Some((0, 2)));
    }

    #[test]
    fn guard_range_is_clipped() {
        let w = Write::new(0, 1, 10, 0, 20);
        assert_eq!(w.guarded(1000), (0, 94));
        assert_eq!(w.guarded(50), (0, 50));
    }
}
