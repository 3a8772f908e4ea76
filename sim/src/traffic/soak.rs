//! Soak test of router networks: long saturating mixed traffic with malformed packets,
//! checked packet by packet, with a stall watchdog and the routers' own error counters.
//!
//! Every node's generator is saturating while it is *on* (its source queue never runs
//! dry) and silent while *off* (on 500..4000 cycles, off 1..400, per node at random), so
//! the network keeps filling and draining. While on, a node sends bursts of 1..8
//! packets to one destination, drawn per burst from the classes uniform (any other
//! node), permutation (a fixed random derangement) and hotspot (one node, chosen anew
//! every epoch of 4096 cycles). The epochs rotate through four mixes, so every run of
//! 16 384 cycles has each: uniform only; permutation only; hotspot 1/2 + uniform 1/2
//! (tree saturation: the hot sink's backlog fills the buffers towards it); and uniform
//! 1/2 + permutation 1/4 + hotspot 1/4. Lengths are mixed per packet: 1..4, 5..16 or
//! 17..64 flits with equal weight. Sinks stall now and then (1..300 cycles without returning credits),
//! as a receiver with a full buffer, so back-pressure reaches into the network.
//!
//! # Malformed packets
//! A share of the packets ([`SoakConfig::malformed`]) is malformed, in three equal parts.
//! The link cannot express a packet that just stops: a sender cannot take flits back,
//! and a packet without `last` followed by another head is, on the wire, one longer
//! packet. So "no end marker" is modelled the way a NIC or PHY must end a packet it
//! cannot finish, and the malformed kinds are:
//! - **EEP**: a normal packet whose last flit carries `err`;
//! - **cut short**: a packet that stops after 1..L of its L flits, the last one sent
//!   carrying `err` (what a sender does when its data source fails mid-packet);
//! - **unknown destination**: the head's destination field is an id beyond the network
//!   (nodes..=0xFFFF), half of them also ending in EEP.
//!
//! Besides, a share [`SoakConfig::overlong`] of the packets is longer than any benchmark
//! packet, 65..=[`OVERLONG_MAX`] flits: longer than every buffer on its path, so one
//! packet holds a chain of routers (wormhole); the router does not limit length.
//!
//! What the routers must do with them (rtl/rcube/README.md): a packet with no table
//! entry is dropped at the first router that has none for it, counted once in that
//! router's `RT_DROP[input]`; a packet ending in EEP is forwarded with `err` and counted
//! in `RT_EEP[input]` of every router input it passes, including the one that drops it.
//! The harness walks the programmed tables the way `rcube_route_lookup` does (first
//! valid matching entry; none: drop) to know, per packet, where it ends and which
//! counters it bumps. At the end every counter of every router is read through its
//! configuration port and must equal that sum, and the scoreboard must have seen each
//! packet that was not dropped exactly once, at its node, intact, with `err` exactly on
//! its last flit if it was sent so, and in order per (source, destination).
//!
//! # Watchdog
//! If no flit moves on any link (terminal or router) for [`SoakConfig::watchdog`]
//! cycles while packets are pending, the run fails with [`TrafficError::Stall`], naming
//! every router port that holds flits, its open packet, the credits of each output and
//! the packet heads waiting at each input ([`WaitingHead`]: since when, for which
//! outputs by the tables; packets the tables drop at that input never wait there).
//! A head in front of a free output with credits, waiting for thousands of cycles, is
//! how the three-stage allocator's stall of session 47 was found.
//!
//! # Adaptive packets
//! A share [`SoakConfig::adaptive`] of the good packets carries the ADAPTIVE flag, and
//! the routers get [`Topology::adaptive_tables`] (the same primary ports, plus
//! alternatives on mesh and hypercube), so adaptive and deterministic packets share the
//! links. Adaptive packets are not checked for order (they may overtake each other);
//! everything else is. Malformed packets are never adaptive: the counters they bump
//! are predicted by walking their one (primary) route.
//!
//! # Broadcasts
//! A share [`SoakConfig::bcast`] of the good packets is a hardware broadcast (ptype
//! BCAST) of 1..=`BCAST_PKT_FLITS` flits to a node range: all nodes for a quarter of
//! them, else a random contiguous range (which may or may not hold the source). The
//! routers get [`Topology::bcast_tables`] (as `program_routes` writes them) and the
//! scoreboard expects each broadcast exactly once, intact, at every node of the range
//! but the source ([`super::Scoreboard::expect_at`]), from the range itself, not from the
//! tables. Broadcasts travel in their own queue and on their own tree, so unicast
//! packets of the same pair may overtake them and be overtaken; but the tree's path from
//! a source to a node is fixed and each router input keeps its broadcasts in one FIFO,
//! so broadcasts are checked for order among themselves per (source, node) (order lane
//! 1, [`super::Expected::lane`]). A range holding only the source has an empty output
//! set at its first router, which drops it and counts it in RT_DROP
//! ([`Walker::walk_bcast`] predicts where). The FIFO organisation has no replication and drops every broadcast at the
//! first router input, counted there: the soak checks exactly that for it.
//! [`SoakConfig::bcast_fault`] makes one sink lose or double one broadcast copy on its
//! way to the scoreboard, to show that the run then fails.

use std::fmt::Write as _;
use std::sync::Arc;

use fasthsl_contract::BCAST_PKT_FLITS;
use fasthsl_topology::{bcast_dest, BcastTables, RouterTables};

use super::{
    head_bcast_range, Delivery, Fate, Net, Pending, Phase, Rng, RouterKind, ScoreError, Scoreboard,
    Terminal, Topology, TrafficConfig, TrafficError, MAX_PACKET_FLITS, ROUTER_PORTS,
};
use crate::wiring::{self, Peer};
use fasthsl_contract::router_regs as rt;

/// Longest over-long packet, flits.
pub const OVERLONG_MAX: u32 = 300;
/// Input buffer depth of the simulated routers (`sim_router`), flits.
const ROUTER_BUF: u64 = super::CARD_BUF_DEPTH as u64;
/// The destination mix changes (and the hotspot moves) every this many cycles.
const EPOCH: u64 = 4_096;

/// One soak run.
#[derive(Debug, Clone)]
pub struct SoakConfig {
    /// Router organisation.
    pub router: RouterKind,
    /// Network.
    pub topology: Topology,
    /// Cycles of traffic; then no new packet starts and the network drains.
    pub cycles: u64,
    /// Seed of every random choice.
    pub seed: u64,
    /// Share of packets that are malformed (EEP, cut short, unknown destination).
    pub malformed: f64,
    /// Share of packets of 65..=[`OVERLONG_MAX`] flits.
    pub overlong: f64,
    /// Sinks stall now and then, holding back their credits.
    pub sink_stalls: bool,
    /// Fail if no flit moves for this many cycles while packets are pending.
    pub watchdog: u64,
    /// Check order per (source, destination) (of the packets routed deterministically).
    pub ordered: bool,
    /// Share of the good packets sent ADAPTIVE, 0..=1; above 0 the routers get
    /// adaptive tables.
    pub adaptive: f64,
    /// Fault injection for testing the watchdog: (node, cycle) from which that node's
    /// sink never returns a credit again.
    pub dead_sink: Option<(usize, u64)>,
    /// Share of the good packets sent as hardware broadcasts, 0..=1 (module docs).
    pub bcast: f64,
    /// Fault injection for testing the scoreboard: the first broadcast copy reaching
    /// this node's sink is lost or seen twice on its way to the scoreboard.
    pub bcast_fault: Option<(BcastFault, usize)>,
}

/// What [`SoakConfig::bcast_fault`] does to one broadcast copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BcastFault {
    /// The sink takes the copy (credits returned) but the scoreboard never sees it.
    LoseCopy,
    /// The scoreboard sees the copy twice.
    DuplicateCopy,
}

impl SoakConfig {
    /// The standard mix: 3 % malformed, 0.5 % over-long, a quarter of the good packets
    /// adaptive and 3 % broadcasts, stalling sinks, watchdog 10 000 cycles, order
    /// checked.
    pub fn new(router: RouterKind, topology: Topology, cycles: u64, seed: u64) -> Self {
        SoakConfig {
            router,
            topology,
            cycles,
            seed,
            malformed: 0.03,
            overlong: 0.005,
            sink_stalls: true,
            watchdog: 10_000,
            ordered: true,
            adaptive: 0.25,
            dead_sink: None,
            bcast: 0.03,
            bcast_fault: None,
        }
    }
}

/// What a soak run did. Every number is a count the run checked, not an estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct SoakReport {
    /// Cycles simulated: configuration, traffic, drain and the counter read-out.
    pub cycles: u64,
    /// Packets that entered the network.
    pub packets_sent: u64,
    /// Packets delivered and checked by the scoreboard.
    pub packets_delivered: u64,
    /// Flits taken by the sinks.
    pub flits_delivered: u64,
    /// Packets sent ending in EEP (cut short ones included) that were not dropped.
    pub eep_delivered: u64,
    /// Of those, cut short.
    pub cut_short: u64,
    /// Over-long packets (more than [`MAX_PACKET_FLITS`] flits) sent; all delivered
    /// but those that also had an unknown destination.
    pub overlong_sent: u64,
    /// Packets sent with the ADAPTIVE flag.
    pub adaptive_sent: u64,
    /// Broadcast packets sent (each is one packet in `packets_sent`).
    pub bcast_sent: u64,
    /// Broadcast copies delivered and checked (each is one packet in
    /// `packets_delivered`): one per node of each range but the source.
    pub bcast_copies: u64,
    /// Packets dropped by a router: unknown destination, broadcasts with an empty
    /// output set (and every broadcast on the FIFO organisation).
    pub dropped: u64,
    /// Sum of every router's RT_DROP counters (equal, per counter, to the expectation).
    pub rt_drop: u64,
    /// Sum of every router's RT_EEP counters (idem).
    pub rt_eep: u64,
    /// Flits taken by the sinks per node per traffic cycle.
    pub accepted: f64,
    /// Longest creation-to-tail latency seen, cycles (source queueing included).
    pub max_latency: u64,
    /// The packet that took it.
    pub slowest: Option<super::Delivery>,
    /// Longest head-injected-to-tail latency seen, cycles: the network's share, without
    /// the wait in the source queue and for a credit into the first router.
    pub max_network_latency: u64,
    /// Longest stretch without any flit moving while packets were pending, cycles.
    pub longest_idle: u64,
}

/// Where a packet ends, following the tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathEnd {
    /// At this node's sink.
    Node(usize),
    /// Dropped at (router, input): no valid entry matches, or it names a missing port.
    Drop(usize, usize),
    /// Sent out of (router, port), which is not cabled: it would wait for credits forever.
    Nowhere(usize, usize),
    /// Still travelling after visiting more inputs than the network has.
    Loop,
}

/// Follows packets through the programmed tables, as the routers' lookup does.
#[derive(Debug, Clone)]
pub struct Walker {
    tables: Vec<RouterTables>,
    bcast: Option<Vec<BcastTables>>,
    peers: Vec<[Option<Peer>; ROUTER_PORTS]>,
    attach: Vec<(usize, usize)>,
}

impl Walker {
    /// From a topology and its routing tables.
    pub fn new(t: &Topology) -> Result<Self, TrafficError> {
        let tables = t
            .routing_tables()
            .map_err(|e| TrafficError::Routing(e.to_string()))?;
        Ok(Self::from_tables(t, tables))
    }

    /// From a topology and the tables its routers were given.
    pub fn from_tables(t: &Topology, tables: Vec<RouterTables>) -> Self {
        let (cabled, attach) = wiring::cabling(t);
        let peers = cabled
            .iter()
            .map(|ports| {
                let mut by_port = [None; ROUTER_PORTS];
                for &(p, peer) in ports {
                    by_port[p] = Some(peer);
                }
                by_port
            })
            .collect();
        Walker {
            tables,
            bcast: None,
            peers,
            attach,
        }
    }

    /// With the broadcast tables the routers were given.
    pub fn with_bcast(mut self, bcast: Vec<BcastTables>) -> Self {
        self.bcast = Some(bcast);
        self
    }

    /// Follows a broadcast from `src` to nodes `lo..=hi` through the broadcast tables, as
    /// `rcube_bcast_lookup` does (every enabled output but the arrival port whose
    /// interval overlaps the range; none: dropped). Returns the nodes reached, once per
    /// copy, and the router inputs that drop it. Without broadcast tables every router
    /// drops it at once.
    pub fn walk_bcast(
        &self,
        src: usize,
        lo: usize,
        hi: usize,
    ) -> (Vec<usize>, Vec<(usize, usize)>) {
        let (mut reached, mut drops) = (Vec::new(), Vec::new());
        let mut todo = vec![self.attach[src]];
        let mut visits = 0;
        while let Some((r, p)) = todo.pop() {
            visits += 1;
            if visits > self.peers.len() * ROUTER_PORTS {
                // A tree that loops: reported as a drop where it went round.
                drops.push((r, p));
                break;
            }
            let outs = self.bcast_outputs(r, p, lo, hi);
            if outs == 0 {
                drops.push((r, p));
            }
            for o in ports_in(outs) {
                match self.peers[r][o] {
                    Some(Peer::Terminal(n)) => reached.push(n),
                    Some(Peer::Router(r2, p2)) => todo.push((r2, p2)),
                    None => {}
                }
            }
        }
        (reached, drops)
    }

    /// The (primary) output a unicast packet with destination field `dest` takes at
    /// router `r`'s input `p`, as `rcube_route_lookup` picks it: the first valid entry
    /// holding `dest`; none (or a port beyond the router): the packet is dropped there.
    pub fn output(&self, r: usize, p: usize, dest: u16) -> Option<usize> {
        self.tables[r]
            .inputs
            .get(p)
            .and_then(|t| t.iter().find(|i| (i.lo..=i.hi).contains(&dest)))
            .map(|i| usize::from(i.port))
            .filter(|&q| q < ROUTER_PORTS)
    }

    /// The outputs (a mask) a broadcast to nodes `lo..=hi` is copied to at router `r`'s
    /// input `p`, as `rcube_bcast_lookup` picks them: every output but `p` whose
    /// interval overlaps the range. 0: dropped there.
    pub fn bcast_outputs(&self, r: usize, p: usize, lo: usize, hi: usize) -> u8 {
        let row = self
            .bcast
            .as_ref()
            .and_then(|b| b.get(r))
            .and_then(|b| b.inputs.get(p));
        (0..ROUTER_PORTS)
            .filter(|&o| o != p)
            .filter(|&o| {
                row.and_then(|row| row[o])
                    .is_some_and(|(a, b)| usize::from(a) <= hi && lo <= usize::from(b))
            })
            .fold(0, |m, o| m | 1 << o)
    }

    /// The router inputs a packet from `src` with destination field `dest` enters, in
    /// order, and where it ends.
    pub fn walk(&self, src: usize, dest: u16) -> (Vec<(usize, usize)>, PathEnd) {
        let mut at = self.attach[src];
        let mut inputs = Vec::new();
        let limit = self.peers.len() * ROUTER_PORTS;
        loop {
            inputs.push(at);
            if inputs.len() > limit {
                return (inputs, PathEnd::Loop);
            }
            let (r, p) = at;
            let Some(q) = self.output(r, p, dest) else {
                return (inputs, PathEnd::Drop(r, p));
            };
            match self.peers[r][q] {
                Some(Peer::Terminal(n)) => return (inputs, PathEnd::Node(n)),
                Some(Peer::Router(r2, p2)) => at = (r2, p2),
                None => return (inputs, PathEnd::Nowhere(r, q)),
            }
        }
    }
}

/// The traffic mix, shared by all terminals of a soak run.
#[derive(Debug, Clone)]
pub(super) struct Mix {
    nodes: usize,
    perm: Vec<usize>,
    malformed: f64,
    overlong: f64,
    sink_stalls: bool,
    ordered: bool,
    adaptive: f64,
    seed: u64,
    dead_sink: Option<(usize, u64)>,
    walker: Arc<Walker>,
    bcast: f64,
    /// The routers cannot replicate (FIFO organisation): broadcasts end at the first one.
    bcast_dropped: bool,
    bcast_fault: Option<(BcastFault, usize)>,
}

/// Per-terminal state of the mix.
#[derive(Debug, Clone, Default)]
pub(super) struct MixState {
    on: bool,
    phase_left: u64,
    burst_left: u32,
    burst_dest: usize,
    stall_left: u32,
    /// One sequence number space per source, so a packet expected at several sinks
    /// (broadcast) has one number, and per pair the numbers still increase.
    seq: u32,
    /// Sink: a packet is arriving (its head has been taken, its last flit not yet).
    sink_open: bool,
    /// Sink: [`SoakConfig::bcast_fault`] 0 armed, 1 on the copy arriving, 2 done.
    fault: u8,
    /// Sink: flits of the copy to be seen twice.
    replay: Vec<(bool, bool, u64)>,
}

impl MixState {
    /// A flit `(last, err, data)` taken by this node's sink goes to the scoreboard,
    /// through the broadcast fault if one is set for this node.
    pub(super) fn sink_flit(
        &mut self,
        mix: &Mix,
        board: &mut Scoreboard,
        node: usize,
        now: u64,
        (last, err, data): (bool, bool, u64),
    ) -> Option<Delivery> {
        let head = !self.sink_open;
        self.sink_open = !last;
        let Some((kind, _)) = mix.bcast_fault.filter(|&(_, n)| n == node) else {
            return board.flit(node, now, last, err, data);
        };
        if head && self.fault == 0 && head_bcast_range(data).is_some() {
            self.fault = 1;
        }
        if self.fault != 1 {
            return board.flit(node, now, last, err, data);
        }
        if last {
            self.fault = 2;
        }
        match kind {
            BcastFault::LoseCopy => None,
            BcastFault::DuplicateCopy => {
                let d = board.flit(node, now, last, err, data);
                self.replay.push((last, err, data));
                if last {
                    for (l, e, x) in std::mem::take(&mut self.replay) {
                        board.flit(node, now, l, e, x);
                    }
                }
                d
            }
        }
    }

    /// Whether this sink withholds credits this cycle.
    pub(super) fn sink_stalled(&mut self, mix: &Mix, rng: &mut Rng, node: usize, now: u64) -> bool {
        if mix
            .dead_sink
            .is_some_and(|(n, from)| n == node && now >= from)
        {
            return true;
        }
        if !mix.sink_stalls {
            return false;
        }
        if self.stall_left > 0 {
            self.stall_left -= 1;
            return true;
        }
        if rng.below(4_000) == 0 {
            self.stall_left = rng.below(300) as u32;
            return true;
        }
        false
    }
}

/// The epoch's mix (0 uniform, 1 permutation, 2 hotspot + uniform, 3 all three) and
/// its hotspot.
fn epoch(seed: u64, now: u64, nodes: usize) -> (u64, usize) {
    let e = now / EPOCH;
    let mut r = Rng::new(seed ^ e.wrapping_mul(0xA24B_AED4_963E_E407));
    ((e + seed) % 4, r.below(nodes))
}

/// Source side of the mix for one terminal and cycle: keeps the queue full while on.
pub(super) fn create(t: &mut Terminal, mix: &Mix, now: u64) {
    let m = &mut t.mix;
    let rng = &mut t.rng;
    if m.phase_left == 0 {
        m.on = !m.on;
        m.phase_left = if m.on {
            500 + rng.below(3_501) as u64
        } else {
            1 + rng.below(400) as u64
        };
    }
    m.phase_left -= 1;
    // Saturating while on: a packet is always ready behind the one being sent.
    if !m.on || !t.queue.is_empty() {
        return;
    }
    let src = t.node;
    let n = mix.nodes;
    if m.burst_left == 0 {
        m.burst_left = 1 + rng.below(8) as u32;
        let uniform = |rng: &mut Rng| {
            let d = rng.below(n - 1);
            if d >= src {
                d + 1
            } else {
                d
            }
        };
        let (kind, hot) = epoch(mix.seed, now, n);
        // 0: uniform, 1: permutation, 2: hotspot, by quarters of the mix.
        let class = match (kind, rng.below(4)) {
            (0, _) | (2, 0 | 1) | (3, 0 | 1) => 0,
            (1, _) | (3, 2) => 1,
            _ => 2,
        };
        m.burst_dest = match class {
            0 => uniform(rng),
            1 => mix.perm[src],
            _ if hot == src => uniform(rng),
            _ => hot,
        };
    }
    m.burst_left -= 1;
    let dest = m.burst_dest;
    let mut flits = match rng.below(3) {
        0 => 1 + rng.below(4),
        1 => 5 + rng.below(12),
        _ => 17 + rng.below(48),
    } as u32;
    let mut pk = Pending {
        fate: Fate::Deliver(dest),
        head_dest: dest as u16,
        seq: m.seq,
        created: now,
        flits,
        eep: false,
        ordered: mix.ordered,
        cut: false,
        adaptive: false,
        bcast: false,
    };
    if rng.unit() < mix.overlong {
        flits = MAX_PACKET_FLITS + 1 + rng.below((OVERLONG_MAX - MAX_PACKET_FLITS) as usize) as u32;
        pk.flits = flits;
    }
    let roll = rng.unit() * 3.0;
    if roll < mix.malformed {
        pk.eep = true;
    } else if roll < 2.0 * mix.malformed {
        pk.eep = true;
        pk.cut = true;
        pk.flits = 1 + rng.below(flits as usize) as u32;
    } else if roll < 3.0 * mix.malformed {
        let bad = (n + rng.below(0x1_0000 - n)) as u16;
        let (_, end) = mix.walker.walk(src, bad);
        // Only ends the tables define: a table sending ids beyond the network out of
        // an uncabled port would be a table bug, not a packet the router must survive.
        let fate = match end {
            PathEnd::Drop(..) => Some(Fate::Drop),
            PathEnd::Node(d) => Some(Fate::Deliver(d)),
            PathEnd::Nowhere(..) | PathEnd::Loop => None,
        };
        if let Some(f) = fate {
            pk.fate = f;
            pk.head_dest = bad;
            pk.eep = rng.below(2) == 0;
        }
    }
    let good = !pk.eep && pk.head_dest == dest as u16;
    if mix.bcast > 0.0 && good && pk.flits <= MAX_PACKET_FLITS && rng.unit() < mix.bcast {
        let (lo, hi) = if rng.below(4) == 0 {
            (0, n - 1)
        } else {
            let lo = rng.below(n);
            (lo, lo + rng.below(n - lo))
        };
        pk.bcast = true;
        pk.ordered = mix.ordered;
        pk.head_dest = bcast_dest(lo as u8, hi as u8);
        pk.flits = 1 + rng.below(BCAST_PKT_FLITS as usize) as u32;
        pk.fate = if mix.bcast_dropped || mix.walker.walk_bcast(src, lo, hi).0.is_empty() {
            Fate::Drop
        } else {
            Fate::Group(lo, hi)
        };
    } else if good && rng.unit() < mix.adaptive {
        pk.adaptive = true;
        pk.ordered = false;
    }
    m.seq = m.seq.wrapping_add(1);
    t.queue.push_back(pk);
}

/// A packet head inside a router, for the watchdog's report: it entered an input and
/// has not left by every output it is routed to. Packets the tables drop at that input
/// never wait.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitingHead {
    /// Router.
    pub router: usize,
    /// Input the head entered.
    pub input: usize,
    /// Cycle the head entered.
    pub since: u64,
    /// The head flit.
    pub head: u64,
    /// Outputs (a mask) it still has to leave by: the primary route of a unicast packet
    /// (an adaptive one may leave by an alternative instead), or the copies a broadcast
    /// still owes.
    pub outputs: u8,
}

impl std::fmt::Display for WaitingHead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} waiting since cycle {} for output",
            head_name(self.head),
            self.since
        )?;
        if self.outputs.count_ones() > 1 {
            f.write_str("s")?;
        }
        let outs: Vec<String> = ports_in(self.outputs).map(|o| o.to_string()).collect();
        write!(f, " {}", outs.join(","))
    }
}

/// The ports of an output mask ([`Walker::bcast_outputs`], [`WaitingHead::outputs`]),
/// lowest first.
fn ports_in(mask: u8) -> impl Iterator<Item = usize> {
    (0..ROUTER_PORTS).filter(move |&o| (mask >> o) & 1 != 0)
}

/// "packet src->dest #seq", or "broadcast src->lo..hi #seq".
fn head_name(head: u64) -> String {
    let (d, s, q) = super::parse_head(head);
    match head_bcast_range(head) {
        Some((lo, hi)) => format!("broadcast {s}->{lo}..{hi} #{q}"),
        None => format!("packet {s}->{d} #{q}"),
    }
}

/// Waiting heads the report lists per router input, oldest first.
const REPORT_HEADS: usize = 4;

/// Link bookkeeping of a soak run: activity for the watchdog, what each router port
/// holds for its report, and the counters the injected packets imply.
#[derive(Debug)]
pub(super) struct Tracker {
    walker: Arc<Walker>,
    names: Vec<[String; ROUTER_PORTS]>,
    exp_drop: Vec<[u64; ROUTER_PORTS]>,
    exp_eep: Vec<[u64; ROUTER_PORTS]>,
    flits_in: Vec<[u64; ROUTER_PORTS]>,
    credits_back: Vec<[u64; ROUTER_PORTS]>,
    flits_out: Vec<[u64; ROUTER_PORTS]>,
    credits_in: Vec<[u64; ROUTER_PORTS]>,
    open_in: Vec<[Option<(u64, u32)>; ROUTER_PORTS]>,
    open_out: Vec<[Option<(u64, u32)>; ROUTER_PORTS]>,
    /// Per router input, oldest first.
    waiting: Vec<[Vec<WaitingHead>; ROUTER_PORTS]>,
    last_move: u64,
    longest_idle: u64,
    sent: u64,
    eep: u64,
    cut_short: u64,
    overlong: u64,
    adaptive: u64,
    bcast: u64,
    bcast_copies: u64,
    /// The routers drop broadcasts at the first input (FIFO organisation).
    bcast_dropped: bool,
    dropped: u64,
}

/// Follows one link direction's packet framing: the open packet's head and flit count.
fn frame(open: &mut Option<(u64, u32)>, data: u64, last: bool) {
    let (head, k) = open.unwrap_or((data, 0));
    *open = (!last).then_some((head, k + 1));
}

impl Tracker {
    fn new(walker: Arc<Walker>, net: &Net, bcast_dropped: bool) -> Self {
        let nr = net.routers.len();
        let mut names: Vec<[String; ROUTER_PORTS]> = (0..nr)
            .map(|_| std::array::from_fn(|_| "-".into()))
            .collect();
        for (r, ports) in net.peers.iter().enumerate() {
            for &(p, peer) in ports {
                names[r][p] = match peer {
                    Peer::Terminal(n) => format!("node {n}"),
                    Peer::Router(r2, p2) => format!("router {r2} port {p2}"),
                };
            }
        }
        let z = vec![[0u64; ROUTER_PORTS]; nr];
        Tracker {
            walker,
            names,
            exp_drop: z.clone(),
            exp_eep: z.clone(),
            flits_in: z.clone(),
            credits_back: z.clone(),
            flits_out: z.clone(),
            credits_in: z,
            open_in: vec![[None; ROUTER_PORTS]; nr],
            open_out: vec![[None; ROUTER_PORTS]; nr],
            waiting: (0..nr)
                .map(|_| std::array::from_fn(|_| Vec::new()))
                .collect(),
            last_move: 0,
            longest_idle: 0,
            sent: 0,
            eep: 0,
            cut_short: 0,
            overlong: 0,
            adaptive: 0,
            bcast: 0,
            bcast_copies: 0,
            bcast_dropped,
            dropped: 0,
        }
    }

    /// A packet's head left terminal `src`: book the counters it will bump.
    pub(super) fn started(&mut self, src: usize, pk: &Pending) {
        self.sent += 1;
        if pk.flits > MAX_PACKET_FLITS {
            self.overlong += 1;
        }
        self.adaptive += u64::from(pk.adaptive);
        if pk.bcast {
            self.bcast += 1;
            let (lo, hi) = (
                usize::from(pk.head_dest & 0xFF),
                usize::from(pk.head_dest >> 8),
            );
            match pk.fate {
                Fate::Group(..) => {
                    self.bcast_copies += (lo..=hi).filter(|&n| n != src).count() as u64;
                }
                _ => {
                    let drops = if self.bcast_dropped {
                        vec![self.walker.attach[src]]
                    } else {
                        self.walker.walk_bcast(src, lo, hi).1
                    };
                    for (r, p) in drops {
                        self.exp_drop[r][p] += 1;
                    }
                    self.dropped += 1;
                }
            }
            return;
        }
        let unicast_good = pk.fate == Fate::Deliver(usize::from(pk.head_dest));
        if unicast_good && !pk.eep {
            return;
        }
        let (inputs, end) = self.walker.walk(src, pk.head_dest);
        if pk.eep {
            for &(r, p) in &inputs {
                self.exp_eep[r][p] += 1;
            }
        }
        if let PathEnd::Drop(r, p) = end {
            self.exp_drop[r][p] += 1;
            self.dropped += 1;
        } else if pk.eep {
            self.eep += 1;
            self.cut_short += u64::from(pk.cut);
        }
    }

    /// Router inputs of cycle `now` (flits entering, credits reaching the outputs).
    pub(super) fn inputs(&mut self, now: u64, rin: &[super::RouterIn]) {
        for (r, ri) in rin.iter().enumerate() {
            if ri.in_valid != 0 {
                self.moved(now);
            }
            for p in 0..ROUTER_PORTS {
                if (ri.in_valid >> p) & 1 != 0 {
                    self.flits_in[r][p] += 1;
                    if self.open_in[r][p].is_none() {
                        self.head_entered(now, r, p, ri.in_data[p]);
                    }
                    frame(
                        &mut self.open_in[r][p],
                        ri.in_data[p],
                        (ri.in_last >> p) & 1 != 0,
                    );
                }
                if (ri.out_credit >> p) & 1 != 0 {
                    self.credits_in[r][p] += 1;
                }
            }
        }
    }

    /// Router outputs after the edge of cycle `now`.
    pub(super) fn outputs(&mut self, now: u64, rout: &[super::RouterOut]) {
        for (r, ro) in rout.iter().enumerate() {
            if ro.out_valid != 0 {
                self.moved(now);
            }
            for p in 0..ROUTER_PORTS {
                if (ro.out_valid >> p) & 1 != 0 {
                    self.flits_out[r][p] += 1;
                    if self.open_out[r][p].is_none() {
                        self.head_left(r, p, ro.out_data[p]);
                    }
                    frame(
                        &mut self.open_out[r][p],
                        ro.out_data[p],
                        (ro.out_last >> p) & 1 != 0,
                    );
                }
                if (ro.in_credit >> p) & 1 != 0 {
                    self.credits_back[r][p] += 1;
                }
            }
        }
    }

    fn head_entered(&mut self, now: u64, r: usize, p: usize, head: u64) {
        let outputs = match head_bcast_range(head) {
            Some(_) if self.bcast_dropped => 0,
            Some((lo, hi)) => self.walker.bcast_outputs(r, p, lo, hi),
            None => {
                let dest = super::parse_head(head).0 as u16;
                self.walker.output(r, p, dest).map_or(0, |q| 1 << q)
            }
        };
        if outputs != 0 {
            self.waiting[r][p].push(WaitingHead {
                router: r,
                input: p,
                since: now,
                head,
                outputs,
            });
        }
    }

    /// A head left router `r` by output `o`: a unicast packet has left (by its primary
    /// output or an adaptive alternative), a broadcast owes one copy fewer.
    fn head_left(&mut self, r: usize, o: usize, head: u64) {
        let bcast = head_bcast_range(head).is_some();
        for list in &mut self.waiting[r] {
            if let Some(k) = list.iter().position(|w| w.head == head) {
                let w = &mut list[k];
                w.outputs &= if bcast { !(1 << o) } else { 0 };
                if w.outputs == 0 {
                    list.remove(k);
                }
                return;
            }
        }
    }

    /// Every waiting head, per router input, oldest first.
    fn waiting(&self) -> Vec<WaitingHead> {
        self.waiting.iter().flatten().flatten().cloned().collect()
    }

    fn moved(&mut self, now: u64) {
        self.longest_idle = self.longest_idle.max(now - self.last_move);
        self.last_move = now;
    }

    /// Whether router `r`'s port `p` holds flits, has a packet open in either direction
    /// or an output without credits.
    fn busy(&self, r: usize, p: usize) -> bool {
        let held = (self.flits_in[r][p] + ROUTER_BUF).saturating_sub(self.credits_back[r][p]);
        let credits = self.credits_in[r][p].saturating_sub(self.flits_out[r][p]);
        held > 0 || self.open_in[r][p].is_some() || self.open_out[r][p].is_some() || credits == 0
    }

    /// No cabled router port is [`Self::busy`]: nothing is left in the network.
    fn network_empty(&self) -> bool {
        (0..self.names.len())
            .all(|r| (0..ROUTER_PORTS).all(|p| self.names[r][p] == "-" || !self.busy(r, p)))
    }

    /// Every router port that holds flits, has a packet open or an output without
    /// credits, for the watchdog's report.
    fn ports(&self) -> String {
        let pk = |o: Option<(u64, u32)>| match o {
            Some((h, k)) => format!("{} open after {k} flit(s)", head_name(h)),
            None => "no packet open".into(),
        };
        let mut out = String::new();
        for r in 0..self.names.len() {
            for p in 0..ROUTER_PORTS {
                if self.names[r][p] == "-" {
                    continue;
                }
                // The router announced ROUTER_BUF credits after reset; every further
                // credit pulse is a slot it freed.
                let held =
                    (self.flits_in[r][p] + ROUTER_BUF).saturating_sub(self.credits_back[r][p]);
                let credits = self.credits_in[r][p].saturating_sub(self.flits_out[r][p]);
                let (oi, oo) = (self.open_in[r][p], self.open_out[r][p]);
                if !self.busy(r, p) {
                    continue;
                }
                let _ = write!(
                    out,
                    "\n  router {r} port {p} (to {}): input holds {held} flit(s), {}; \
                     output has {credits} credit(s), {}",
                    self.names[r][p],
                    pk(oi),
                    pk(oo)
                );
                let w = &self.waiting[r][p];
                for h in w.iter().take(REPORT_HEADS) {
                    let _ = write!(out, "\n    {h}");
                }
                if w.len() > REPORT_HEADS {
                    let _ = write!(out, "\n    and {} more", w.len() - REPORT_HEADS);
                }
            }
        }
        if out.is_empty() {
            out.push_str("no router port holds anything");
        }
        out
    }
}

/// Packets created and not yet delivered: in source queues, being sent, in the network.
fn pending(net: &Net) -> u64 {
    net.board.outstanding()
        + net
            .terms
            .iter()
            .map(|t| t.queue.len() as u64 + u64::from(t.current.is_some()))
            .sum::<u64>()
}

fn check(c: &SoakConfig) -> Result<(), TrafficError> {
    let bad = |s: &str| Err(TrafficError::Config(s.into()));
    if c.cycles == 0 {
        return bad("the soak needs at least one cycle of traffic");
    }
    if !(0.0..=1.0).contains(&c.malformed) || !(0.0..=1.0).contains(&c.overlong) {
        return bad("malformed and over-long shares must be within 0..=1");
    }
    if !(0.0..=1.0).contains(&c.adaptive) {
        return bad("the adaptive share must be within 0..=1");
    }
    if !(0.0..=1.0).contains(&c.bcast) {
        return bad("the broadcast share must be within 0..=1");
    }
    if c.bcast_fault.is_some_and(|(_, n)| n >= c.topology.nodes()) {
        return bad("the broadcast fault's node is not a node of the network");
    }
    if c.watchdog == 0 {
        return bad("the watchdog needs at least one cycle");
    }
    if c.topology.nodes() < 2 {
        return bad("the network needs at least 2 nodes");
    }
    if c.dead_sink.is_some_and(|(n, _)| n >= c.topology.nodes()) {
        return bad("the dead sink is not a node of the network");
    }
    Ok(())
}

/// Runs one soak: see the module documentation for what is sent and checked.
pub fn soak(c: &SoakConfig) -> Result<SoakReport, TrafficError> {
    check(c)?;
    let tc = TrafficConfig {
        router: c.router,
        buf_depth: super::CARD_BUF_DEPTH,
        topology: c.topology.clone(),
        pattern: super::Pattern::Permutation,
        packet_flits: 1,
        offered: 1.0,
        saturate: false,
        warmup: 0,
        measure: 1,
        drain_max: 0,
        seed: c.seed,
        routing: if c.adaptive > 0.0 {
            super::Routing::Adaptive
        } else {
            super::Routing::Deterministic
        },
    };
    let mut net = Net::new(&tc)?;
    // Walks the tables the routers got (adaptive ones have the same primary routes).
    let tables = match tc.routing {
        super::Routing::Deterministic => c.topology.routing_tables(),
        super::Routing::Adaptive => c.topology.adaptive_tables(),
    }
    .map_err(|e| TrafficError::Routing(e.to_string()))?;
    let mut walker = Walker::from_tables(&c.topology, tables);
    if c.bcast > 0.0 {
        // The broadcast tables `program_routes` writes; a network without them (ids
        // beyond a broadcast range) cannot carry the broadcast share.
        let bt = c.topology.bcast_tables().map_err(|e| {
            TrafficError::Config(format!(
                "{}: no broadcast tables ({e}); run it with a broadcast share of 0",
                c.topology
            ))
        })?;
        push_bcast_tables(&mut net, &bt);
        walker = walker.with_bcast(bt);
    }
    let walker = Arc::new(walker);
    let bcast_dropped = c.router == RouterKind::Fifo;
    // Net::new marks every packet adaptive under Routing::Adaptive; here the mix decides.
    net.source.adaptive = false;
    net.source.mix = Some(Mix {
        nodes: net.nodes,
        // The permutation pattern's derangement, drawn from the seed.
        perm: net.source.dests.fixed.clone(),
        malformed: c.malformed,
        overlong: c.overlong,
        sink_stalls: c.sink_stalls,
        ordered: c.ordered,
        adaptive: c.adaptive,
        seed: c.seed,
        dead_sink: c.dead_sink,
        walker: walker.clone(),
        bcast: c.bcast,
        bcast_dropped,
        bcast_fault: c.bcast_fault,
    });
    net.track = Some(Box::new(Tracker::new(walker, &net, bcast_dropped)));
    net.configure()?;

    let mut flits = 0u64;
    let mut max_latency = 0u64;
    let mut slowest = None;
    let mut max_network_latency = 0;
    let watch = |net: &Net| -> Result<(), TrafficError> {
        let t = net.track.as_ref().expect("set above");
        let idle = net.cycle - t.last_move;
        if idle >= c.watchdog {
            let p = pending(net);
            let sending = net
                .terms
                .iter()
                .any(|t| t.current.is_some() || !t.queue.is_empty());
            if p > 0 && !sending && t.network_empty() {
                // Nothing is left anywhere: what the scoreboard still waits for was lost
                // (or swallowed without a trace), so name it rather than call it a stall.
                return Err(TrafficError::IntegrityAt {
                    cycle: net.cycle,
                    errors: net.board.clone().finish(),
                });
            }
            if p > 0 {
                return Err(TrafficError::Stall {
                    cycle: net.cycle,
                    idle,
                    pending: p,
                    ports: t.ports(),
                    waiting: t.waiting(),
                });
            }
        }
        if net.board.errors().is_empty() {
            Ok(())
        } else {
            Err(TrafficError::IntegrityAt {
                cycle: net.cycle,
                errors: net.board.errors().to_vec(),
            })
        }
    };
    // The watchdog starts with the traffic, not with the configuration writes.
    net.track.as_mut().expect("set above").last_move = net.cycle;
    net.phase = Phase::Run;
    let t0 = net.cycle;
    let mut step = |net: &mut Net| {
        net.step();
        flits += net.taken;
        for d in &net.done {
            if d.delivered - d.created > max_latency {
                max_latency = d.delivered - d.created;
                slowest = Some(*d);
            }
            max_network_latency = max_network_latency.max(d.delivered - d.injected);
        }
    };
    while net.cycle < t0 + c.cycles {
        step(&mut net);
        watch(&net)?;
    }
    // No new packet starts; packets partly sent are finished, queued ones never enter.
    net.phase = Phase::Stop;
    for t in &mut net.terms {
        t.queue.clear();
    }
    while pending(&net) > 0 {
        step(&mut net);
        watch(&net)?;
    }
    // Flits of dropped packets may still be leaving a router; let the links go quiet.
    for _ in 0..4 * ROUTER_BUF {
        step(&mut net);
    }
    let t = net.track.as_ref().expect("set above");
    let longest_idle = t.longest_idle;

    let nr = net.routers.len();
    let regs: Vec<u32> = (0..ROUTER_PORTS as u32)
        .map(|i| rt::RT_DROP + i * rt::RT_DROP_STRIDE)
        .chain((0..ROUTER_PORTS as u32).map(|i| rt::RT_EEP + i * rt::RT_EEP_STRIDE))
        .collect();
    let got = net.cfg_read(&vec![regs; nr])?;
    let t = net.track.as_ref().expect("set above");
    let (mut rt_drop, mut rt_eep) = (0u64, 0u64);
    for (r, vals) in got.iter().enumerate() {
        for p in 0..ROUTER_PORTS {
            for (counter, expected, read) in [
                ("RT_DROP", t.exp_drop[r][p], vals[p]),
                ("RT_EEP", t.exp_eep[r][p], vals[ROUTER_PORTS + p]),
            ] {
                if u64::from(read) != expected {
                    return Err(TrafficError::Counter {
                        router: r,
                        counter,
                        input: p,
                        expected,
                        read,
                    });
                }
            }
            rt_drop += u64::from(vals[p]);
            rt_eep += u64::from(vals[ROUTER_PORTS + p]);
        }
    }
    let board = std::mem::replace(&mut net.board, super::Scoreboard::new(0));
    if board.dropped != t.dropped {
        return Err(TrafficError::Sim(format!(
            "scoreboard booked {} dropped packets, the tracker {}",
            board.dropped, t.dropped
        )));
    }
    let errors: Vec<ScoreError> = board.finish();
    if !errors.is_empty() {
        return Err(TrafficError::IntegrityAt {
            cycle: net.cycle,
            errors,
        });
    }
    Ok(SoakReport {
        cycles: net.cycle,
        packets_sent: t.sent,
        packets_delivered: net.delivered,
        flits_delivered: flits,
        eep_delivered: t.eep,
        cut_short: t.cut_short,
        overlong_sent: t.overlong,
        adaptive_sent: t.adaptive,
        bcast_sent: t.bcast,
        bcast_copies: t.bcast_copies,
        dropped: t.dropped,
        rt_drop,
        rt_eep,
        accepted: flits as f64 / (c.cycles as f64 * net.nodes as f64),
        max_latency,
        slowest,
        max_network_latency,
        longest_idle,
    })
}

/// Queues the broadcast tables' writes (RT_BC_BOUNDS of every enabled output, then
/// RT_BC_MASK per input, as `program_routes` orders them) for [`Net::configure`], which
/// also reads each back.
fn push_bcast_tables(net: &mut Net, bt: &[BcastTables]) {
    for t in bt {
        let q = &mut net.cfg[t.router];
        for (p, row) in t.inputs.iter().enumerate() {
            for (o, e) in row.iter().enumerate() {
                if let Some((lo, hi)) = e {
                    let idx = (p * ROUTER_PORTS + o) as u32;
                    q.push_back((
                        rt::RT_BC_BOUNDS + idx * rt::RT_BC_BOUNDS_STRIDE,
                        u32::from(*lo) | u32::from(*hi) << 16,
                    ));
                }
            }
            q.push_back((rt::RT_BC_MASK + p as u32 * rt::RT_BC_MASK_STRIDE, t.mask(p)));
        }
    }
}
