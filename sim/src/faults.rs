//! Link fault injection: bit errors, dropped flits and link cuts on chosen directed
//! links, driven from one seed so that a run repeats bit for bit.
//!
//! # What a directed link carries
//! The wire from X to Y carries X's flits to Y and the credit pulses X returns to Y (for
//! Y's flits to X). A fault on X→Y therefore changes only what Y samples. Faults act in
//! the cycle a flit crosses: a flit X drives after clock edge t ([`crate::Flit::cycle`]
//! = t) is sampled by Y in cycle t+1, and that is the cycle a [`LinkCut`] window or the
//! [`crate::Cluster::cycles`] count refers to.
//!
//! # Fault model
//! - **Bit errors** (`ber`): every flit actually sent exposes 67 bits: 64 data bits,
//!   `last`, `err` and `valid`. Each flips independently with probability `ber`. The
//!   positions are drawn as geometric gaps over the link's bit stream (one draw per
//!   error, not per bit), so a low rate costs almost nothing per flit.
//!   - data: the receiver sees a wrong word; the packet CRC catches it at the NIC;
//!     routers forward it (a flipped destination is routed where the table says, or
//!     dropped as unroutable).
//!   - `last` 1→0 merges the packet with the next one from the same sender; 0→1 cuts
//!     it in two, and the remainder is a packet whose first flit is payload read as a
//!     header.
//!   - `err` set on a last flit makes an EEP packet (dropped at the NIC, counted as EEP
//!     by routers); `err` on other flits is ignored by every receiver.
//!   - `valid` 1→0: the flit never reaches the receiver (the PHY would see an idle or
//!     invalid symbol), counted as a dropped flit.
//!
//!   Idle cycles carry no modeled bits: a real PHY's line code tells control symbols
//!   from data, and an invented flit (valid 0→1) would overrun a receiver the sender
//!   holds no credit for, which no credit-based link survives or allows.
//! - **Dropped flits** (`drop`): each flit sent is lost with this probability.
//! - **Cut** ([`LinkCut`]): for `cycles` cycles from `start`, every flit crossing the
//!   link is lost (and, with `hit_credits`, every credit pulse on it). The sender does
//!   not know the link is down: it keeps sending while it has credits and loses those
//!   flits (at most the receiver's buffer depth, 16 flits for a router input), then
//!   stalls until the link is back and the lost credits are restored (see below); so a
//!   cut both loses a few flits and stalls the traffic behind them.
//! - **Credit pulses** are hit only with `hit_credits` (default off: real links send
//!   flow-control information in separately protected symbols). When on, a pulse is
//!   lost with probability `drop` + `ber` (one bit) and always during a cut; a pulse is
//!   never invented.
//!
//! # Credits of lost flits
//! A lost flit took one of the sender's credits, and the receiver, never having stored
//! it, will never return it. By default the simulator returns that credit to the sender
//! (from the cycle after the loss, in the first cycle the sender's credit input is idle
//! and the link is not cut), as a link layer with absolute flow-control counters
//! (InfiniBand) or link retraining after a cut would; lost credit pulses are restored
//! the same way. With `leak_credits`, nothing is
//! restored: every lost flit or pulse permanently shrinks the link's window, and after
//! as many losses as the receiver's buffer has slots the link stops.
//!
//! # Cost
//! Without any fault configured the cluster's cycle loop pays one branch. With faults,
//! only the selected links are visited, one geometric draw per injected event.

use crate::{Endpoint, SimError};

/// Which directed links a fault specification applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LinkSelector {
    /// Every link of the cluster, both directions.
    All,
    /// Links between two routers, both directions.
    RouterLinks,
    /// Links between a NIC and its router, both directions.
    NicLinks,
    /// The one link from the first endpoint to the second.
    Directed(Endpoint, Endpoint),
    /// Every link leaving this endpoint.
    From(Endpoint),
    /// Every link entering this endpoint.
    To(Endpoint),
}

impl LinkSelector {
    fn matches(&self, from: Endpoint, to: Endpoint) -> bool {
        let nic = matches!(from, Endpoint::Nic(_)) || matches!(to, Endpoint::Nic(_));
        match *self {
            LinkSelector::All => true,
            LinkSelector::RouterLinks => !nic,
            LinkSelector::NicLinks => nic,
            LinkSelector::Directed(f, t) => f == from && t == to,
            LinkSelector::From(f) => f == from,
            LinkSelector::To(t) => t == to,
        }
    }
}

/// A window during which a link carries nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LinkCut {
    /// First cycle of the cut (as counted by [`crate::Cluster::cycles`]).
    pub start: u64,
    /// Length of the cut in cycles.
    pub cycles: u64,
}

impl LinkCut {
    fn covers(&self, cycle: u64) -> bool {
        cycle >= self.start && cycle - self.start < self.cycles
    }
}

/// The faults of one directed link. The default injects nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct FaultSpec {
    /// Bit error rate: probability that each of a flit's 67 bits (data, `last`, `err`,
    /// `valid`) is flipped. 0..=1.
    pub ber: f64,
    /// Probability that a flit is lost. 0..=1.
    pub drop: f64,
    /// A window of cycles in which the link loses everything it carries.
    pub cut: Option<LinkCut>,
    /// Credit pulses on the link are hit as well (by `drop`, `ber` and the cut).
    pub hit_credits: bool,
    /// Do not give back the credits of lost flits and lost credit pulses.
    pub leak_credits: bool,
}

// Compared by bit pattern so that FaultSpec (and SimConfig) can be Eq: a NaN never gets
// past validation anyway.
impl PartialEq for FaultSpec {
    fn eq(&self, o: &Self) -> bool {
        self.ber.to_bits() == o.ber.to_bits()
            && self.drop.to_bits() == o.drop.to_bits()
            && self.cut == o.cut
            && self.hit_credits == o.hit_credits
            && self.leak_credits == o.leak_credits
    }
}
impl Eq for FaultSpec {}

impl FaultSpec {
    /// Bit errors only.
    pub fn ber(ber: f64) -> Self {
        FaultSpec {
            ber,
            ..FaultSpec::default()
        }
    }

    /// Dropped flits only.
    pub fn drop(p: f64) -> Self {
        FaultSpec {
            drop: p,
            ..FaultSpec::default()
        }
    }

    /// A cut of `cycles` cycles from cycle `start` only.
    pub fn cut(start: u64, cycles: u64) -> Self {
        FaultSpec {
            cut: Some(LinkCut { start, cycles }),
            ..FaultSpec::default()
        }
    }

    /// True if the spec can change anything the link carries.
    pub fn injects(&self) -> bool {
        self.ber > 0.0 || self.drop > 0.0 || self.cut.is_some_and(|c| c.cycles > 0)
    }

    fn validate(&self) -> Result<(), SimError> {
        for (name, p) in [("ber", self.ber), ("drop", self.drop)] {
            if !(0.0..=1.0).contains(&p) {
                return Err(SimError::Config(format!(
                    "fault {name} must be a probability in 0..=1, got {p}"
                )));
            }
        }
        Ok(())
    }
}

/// Link faults of a whole cluster ([`crate::SimConfig::faults`]): rules applied in order
/// (a later rule replaces an earlier one's spec on the links both select).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FaultConfig {
    /// Seed of every link's random stream (each link derives its own from it and its
    /// endpoints, so adding faults on one link does not change another's).
    pub seed: u64,
    /// `(links, faults)` rules.
    pub rules: Vec<(LinkSelector, FaultSpec)>,
}

impl FaultConfig {
    /// No faults, with `seed` for faults added later ([`crate::Cluster::set_link_faults`]).
    pub fn seeded(seed: u64) -> Self {
        FaultConfig {
            seed,
            rules: Vec::new(),
        }
    }

    /// Adds a rule.
    pub fn with(mut self, links: LinkSelector, spec: FaultSpec) -> Self {
        self.rules.push((links, spec));
        self
    }
}

/// Faults injected on one directed link so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FaultCounters {
    /// Flits the sender put on the link while faults were configured on it.
    pub flits: u64,
    /// Flits delivered with at least one flipped bit (data, `last` or `err`).
    pub flits_corrupted: u64,
    /// Bits flipped, control bits included.
    pub bits_flipped: u64,
    /// Of those, `last` bits (merged or split packets).
    pub last_flips: u64,
    /// Of those, `err` bits.
    pub err_flips: u64,
    /// Of those, `valid` bits (the flit is lost and also counted in `flits_dropped`).
    pub valid_flips: u64,
    /// Flits lost to `drop` or to a flipped `valid` bit.
    pub flits_dropped: u64,
    /// Flits lost because the link was cut.
    pub flits_cut: u64,
    /// Cycles the link spent cut.
    pub cycles_cut: u64,
    /// Credit pulses lost (only with `hit_credits`).
    pub credits_lost: u64,
    /// Credits given back for lost flits and lost pulses (not with `leak_credits`).
    pub credits_restored: u64,
}

impl FaultCounters {
    /// Flits that did not reach the receiver.
    pub fn flits_lost(&self) -> u64 {
        self.flits_dropped + self.flits_cut
    }

    fn add(&mut self, o: &FaultCounters) {
        self.flits += o.flits;
        self.flits_corrupted += o.flits_corrupted;
        self.bits_flipped += o.bits_flipped;
        self.last_flips += o.last_flips;
        self.err_flips += o.err_flips;
        self.valid_flips += o.valid_flips;
        self.flits_dropped += o.flits_dropped;
        self.flits_cut += o.flits_cut;
        self.cycles_cut += o.cycles_cut;
        self.credits_lost += o.credits_lost;
        self.credits_restored += o.credits_restored;
    }
}

/// One directed link with faults configured, its spec and what it injected so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkFaults {
    /// Sending end.
    pub from: Endpoint,
    /// Receiving end.
    pub to: Endpoint,
    /// Current faults.
    pub spec: FaultSpec,
    /// Injected so far.
    pub counters: FaultCounters,
}

/// Sum of the counters of several links.
pub fn total(links: &[LinkFaults]) -> FaultCounters {
    let mut t = FaultCounters::default();
    for l in links {
        t.add(&l.counters);
    }
    t
}

/// The inputs of one model port: what a link delivers to its receiving end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Port {
    /// A NIC's link inputs.
    Nic(usize),
    /// A router's inputs of port `.1`.
    Router(usize, usize),
}

impl From<Endpoint> for Port {
    fn from(e: Endpoint) -> Port {
        match e {
            Endpoint::Nic(n) => Port::Nic(n),
            Endpoint::Router(r, p) => Port::Router(r, p),
        }
    }
}

/// What one port samples in a cycle.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Wire {
    pub valid: bool,
    pub last: bool,
    pub err: bool,
    pub data: u64,
    pub credit: bool,
}

/// Access to the link inputs of the models, implemented by the cluster.
pub(crate) trait Ports {
    fn get(&self, p: Port) -> Wire;
    fn set(&mut self, p: Port, w: Wire);
}

/// Bits a flit exposes to bit errors: data 0..64, then last, err, valid.
const FLIT_BITS: u64 = 67;
const BIT_LAST: u64 = 64;
const BIT_ERR: u64 = 65;
const BIT_VALID: u64 = 66;

/// xoshiro256** seeded through SplitMix64 (no dependency; only determinism and a
/// decent spread matter here).
#[derive(Debug, Clone)]
struct Rng([u64; 4]);

impl Rng {
    fn new(seed: u64) -> Rng {
        let mut x = seed;
        let mut s = [0u64; 4];
        for w in &mut s {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            *w = z ^ (z >> 31);
        }
        Rng(s)
    }

    fn next(&mut self) -> u64 {
        let s = &mut self.0;
        let r = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        r
    }

    /// Uniform in (0, 1].
    fn unit(&mut self) -> f64 {
        ((self.next() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Trials before the next success of a Bernoulli(p) sequence: geometric on 0, 1, ...
    /// `u64::MAX` stands for never.
    fn gap(&mut self, p: f64) -> u64 {
        if p <= 0.0 {
            return u64::MAX;
        }
        if p >= 1.0 {
            return 0;
        }
        // Inversion: floor(ln U / ln(1-p)); ln_1p keeps tiny rates exact. The cast
        // saturates, and 2^64 trials is "never" at any simulated length.
        (self.unit().ln() / (-p).ln_1p()).floor() as u64
    }
}

/// A stream id for a link, from its endpoints (stable across runs and configurations).
fn link_key(from: Endpoint, to: Endpoint) -> u64 {
    let code = |e: Endpoint| match e {
        Endpoint::Nic(n) => (n as u64) << 4,
        Endpoint::Router(r, p) => 1 << 63 | (r as u64) << 4 | p as u64,
    };
    code(from).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ code(to).rotate_left(29)
}

#[derive(Debug)]
struct LinkState {
    from: Endpoint,
    to: Endpoint,
    /// The sender's inputs (where its credits come back).
    tx: Port,
    /// The receiver's inputs (what this link drives).
    rx: Port,
    spec: FaultSpec,
    n: FaultCounters,
    rng: Rng,
    /// Bits (of flits sent) before the next bit error.
    bit_gap: u64,
    /// Flits before the next dropped one.
    drop_gap: u64,
    /// Credit pulses before the next lost one.
    credit_gap: u64,
    /// Credits to give back to the sender (its flits lost) and to the receiver (its
    /// credit pulses lost).
    owed_tx: u64,
    owed_rx: u64,
    /// Of those, owed since before this cycle (a credit comes back a cycle after the
    /// loss at the earliest).
    due_tx: u64,
    due_rx: u64,
}

impl LinkState {
    fn respec(&mut self, spec: FaultSpec) {
        self.spec = spec;
        self.bit_gap = self.rng.gap(spec.ber);
        self.drop_gap = self.rng.gap(spec.drop);
        self.credit_gap = if spec.hit_credits {
            self.rng.gap(self.credit_p())
        } else {
            u64::MAX
        };
    }

    fn credit_p(&self) -> f64 {
        1.0 - (1.0 - self.spec.drop) * (1.0 - self.spec.ber)
    }

    /// Applies this cycle's faults to what the receiver samples.
    fn hit(&mut self, now: u64, ports: &mut impl Ports) {
        self.due_tx = self.owed_tx;
        self.due_rx = self.owed_rx;
        let cut = self.spec.cut.is_some_and(|c| c.covers(now));
        if cut {
            self.n.cycles_cut += 1;
        }
        let mut w = ports.get(self.rx);
        let before = w;
        if w.valid {
            self.n.flits += 1;
            if cut {
                self.n.flits_cut += 1;
                w.valid = false;
            } else if self.drop_gap == 0 {
                self.drop_gap = self.rng.gap(self.spec.drop);
                self.n.flits_dropped += 1;
                w.valid = false;
            } else {
                self.drop_gap = self.drop_gap.saturating_sub(1);
                self.flip(&mut w);
            }
            if !w.valid {
                // A lost flit delivers nothing: the receiver samples an idle cycle.
                w.last = false;
                w.err = false;
                w.data = 0;
                if !self.spec.leak_credits {
                    self.owed_tx += 1;
                }
            }
        }
        if w.credit && self.spec.hit_credits {
            let lost = if cut {
                true
            } else if self.credit_gap == 0 {
                self.credit_gap = self.rng.gap(self.credit_p());
                true
            } else {
                self.credit_gap = self.credit_gap.saturating_sub(1);
                false
            };
            if lost {
                w.credit = false;
                self.n.credits_lost += 1;
                if !self.spec.leak_credits {
                    self.owed_rx += 1;
                }
            }
        }
        if w.valid != before.valid
            || w.last != before.last
            || w.err != before.err
            || w.data != before.data
            || w.credit != before.credit
        {
            ports.set(self.rx, w);
        }
    }

    /// Flips the bits of the flit that the error stream puts on it.
    fn flip(&mut self, w: &mut Wire) {
        if self.bit_gap >= FLIT_BITS {
            self.bit_gap = self.bit_gap.saturating_sub(FLIT_BITS);
            return;
        }
        let mut pos = self.bit_gap;
        while pos < FLIT_BITS {
            self.n.bits_flipped += 1;
            match pos {
                BIT_LAST => {
                    w.last = !w.last;
                    self.n.last_flips += 1;
                }
                BIT_ERR => {
                    w.err = !w.err;
                    self.n.err_flips += 1;
                }
                BIT_VALID => {
                    w.valid = !w.valid;
                    self.n.valid_flips += 1;
                }
                b => w.data ^= 1 << b,
            }
            pos = pos
                .saturating_add(1)
                .saturating_add(self.rng.gap(self.spec.ber));
        }
        self.bit_gap = pos - FLIT_BITS;
        if w.valid {
            self.n.flits_corrupted += 1;
        } else {
            self.n.flits_dropped += 1;
        }
    }

    /// Gives back owed credits where the credit input is idle this cycle.
    fn restore(&mut self, now: u64, ports: &mut impl Ports) {
        if self.spec.cut.is_some_and(|c| c.covers(now)) {
            return;
        }
        let owed = [
            (&mut self.owed_tx, self.due_tx, self.tx),
            (&mut self.owed_rx, self.due_rx, self.rx),
        ];
        for (owed, due, port) in owed {
            if due > 0 {
                let mut w = ports.get(port);
                if !w.credit {
                    w.credit = true;
                    ports.set(port, w);
                    *owed -= 1;
                    self.n.credits_restored += 1;
                }
            }
        }
    }
}

/// Fault state of a cluster: the links that have (or had) faults configured.
#[derive(Debug)]
pub(crate) struct Faults {
    seed: u64,
    links: Vec<LinkState>,
}

impl Faults {
    pub(crate) fn new(seed: u64) -> Faults {
        Faults {
            seed,
            links: Vec::new(),
        }
    }

    /// Sets `spec` on every link of `all` (every directed link of the cluster, in a fixed
    /// order) that `sel` selects; returns how many.
    pub(crate) fn set(
        &mut self,
        all: &[(Endpoint, Endpoint)],
        sel: LinkSelector,
        spec: FaultSpec,
    ) -> Result<usize, SimError> {
        spec.validate()?;
        let mut hits = 0;
        for &(from, to) in all.iter().filter(|&&(f, t)| sel.matches(f, t)) {
            hits += 1;
            let i = match self.links.iter().position(|l| l.from == from && l.to == to) {
                Some(i) => i,
                None => {
                    self.links.push(LinkState {
                        from,
                        to,
                        tx: from.into(),
                        rx: to.into(),
                        spec: FaultSpec::default(),
                        n: FaultCounters::default(),
                        rng: Rng::new(self.seed ^ link_key(from, to)),
                        bit_gap: u64::MAX,
                        drop_gap: u64::MAX,
                        credit_gap: u64::MAX,
                        owed_tx: 0,
                        owed_rx: 0,
                        due_tx: 0,
                        due_rx: 0,
                    });
                    self.links.len() - 1
                }
            };
            self.links[i].respec(spec);
        }
        if hits == 0 {
            return Err(SimError::Config(format!(
                "fault selector {sel:?} matches no link of the cluster"
            )));
        }
        // Visiting links in cluster order keeps runs independent of the order in which
        // faults were set (restore() takes idle credit slots first come, first served).
        let order = |l: &LinkState| all.iter().position(|&(f, t)| f == l.from && t == l.to);
        self.links.sort_by_key(order);
        Ok(hits)
    }

    /// Applies one cycle of faults to the link inputs the cluster just computed.
    pub(crate) fn apply(&mut self, now: u64, ports: &mut impl Ports) {
        for l in &mut self.links {
            l.hit(now, ports);
        }
        for l in &mut self.links {
            l.restore(now, ports);
        }
    }

    pub(crate) fn report(&self) -> Vec<LinkFaults> {
        self.links
            .iter()
            .map(|l| LinkFaults {
                from: l.from,
                to: l.to,
                spec: l.spec,
                counters: l.n,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometric_gaps_have_the_right_mean() {
        let mut r = Rng::new(1);
        for p in [0.5, 0.1, 1e-3] {
            let n = 200_000;
            let sum: f64 = (0..n).map(|_| r.gap(p) as f64).sum();
            let mean = sum / n as f64;
            let want = (1.0 - p) / p;
            assert!(
                (mean - want).abs() < 0.03 * want + 0.01,
                "p {p}: mean gap {mean}, want {want}"
            );
        }
        assert_eq!(r.gap(0.0), u64::MAX);
        assert_eq!(r.gap(1.0), 0);
    }

    #[test]
    fn link_streams_differ_and_repeat() {
        let a = link_key(Endpoint::Nic(0), Endpoint::Router(0, 0));
        let b = link_key(Endpoint::Router(0, 0), Endpoint::Nic(0));
        let c = link_key(Endpoint::Nic(1), Endpoint::Router(0, 1));
        assert!(a != b && b != c && a != c);
        let draw = |k| {
            let mut r = Rng::new(7 ^ k);
            (0..4).map(|_| r.next()).collect::<Vec<_>>()
        };
        assert_eq!(draw(a), draw(a));
        assert_ne!(draw(a), draw(b));
    }

    struct OnePort(Wire);
    impl Ports for OnePort {
        fn get(&self, _: Port) -> Wire {
            self.0
        }
        fn set(&mut self, _: Port, w: Wire) {
            self.0 = w;
        }
    }

    #[test]
    fn bit_errors_hit_at_the_configured_rate() {
        let all = [(Endpoint::Nic(0), Endpoint::Router(0, 0))];
        let mut f = Faults::new(3);
        f.set(&all, LinkSelector::All, FaultSpec::ber(1e-3))
            .unwrap();
        let flits = 300_000u64;
        let mut flips = 0u64;
        for now in 0..flits {
            let sent = Wire {
                valid: true,
                last: false,
                err: false,
                data: now,
                credit: false,
            };
            let mut p = OnePort(sent);
            f.apply(now, &mut p);
            let w = p.0;
            // A lost flit arrives as an idle cycle: only its valid flip is visible.
            flips += if w.valid {
                u64::from((w.data ^ now).count_ones()) + u64::from(w.last) + u64::from(w.err)
            } else {
                1
            };
        }
        // Idle cycles in which the last owed credits come back.
        for now in flits..flits + 4 {
            let mut p = OnePort(Wire {
                valid: false,
                last: false,
                err: false,
                data: 0,
                credit: false,
            });
            f.apply(now, &mut p);
        }
        let n = f.report()[0].counters;
        assert_eq!(n.flits, flits);
        assert_eq!(
            n.valid_flips, n.flits_dropped,
            "only valid flips lose flits here"
        );
        assert!(flips <= n.bits_flipped && flips + 3 * n.valid_flips >= n.bits_flipped);
        let want = flits as f64 * FLIT_BITS as f64 * 1e-3;
        let got = n.bits_flipped as f64;
        assert!(
            (got - want).abs() < 0.03 * want,
            "{got} flips, want ~{want}"
        );
        assert!(n.flits_dropped > 0 && n.flits_corrupted > 0, "{n:?}");
        assert_eq!(n.credits_restored, n.flits_dropped, "{n:?}");
    }

    #[test]
    fn cut_loses_flits_and_restores_their_credits_afterwards() {
        let all = [(Endpoint::Nic(0), Endpoint::Router(0, 0))];
        let mut f = Faults::new(0);
        f.set(&all, LinkSelector::NicLinks, FaultSpec::cut(10, 5))
            .unwrap();
        let mut restored_at = Vec::new();
        for now in 0..30 {
            let mut p = OnePort(Wire {
                valid: now < 20,
                last: true,
                err: false,
                data: 1,
                credit: false,
            });
            f.apply(now, &mut p);
            assert_eq!(p.0.valid, now < 20 && !(10..15).contains(&now), "{now}");
            if p.0.credit {
                restored_at.push(now);
            }
        }
        // The test port is both ends: owed credits come back once the cut is over,
        // one per cycle.
        assert_eq!(restored_at, vec![15, 16, 17, 18, 19]);
        let n = f.report()[0].counters;
        assert_eq!((n.flits, n.flits_cut, n.cycles_cut), (20, 5, 5));
        assert!(f
            .set(&all, LinkSelector::RouterLinks, FaultSpec::drop(0.5))
            .is_err());
        assert!(f
            .set(&all, LinkSelector::All, FaultSpec::drop(1.5))
            .is_err());
    }
}
