//! A simulated cluster with one message-layer endpoint per node, driven from one thread.

#![allow(dead_code)]

use fasthsl_driver::{Card, CardConfig};
use fasthsl_msg::{Bootstrap, Endpoint, MsgConfig, MsgError, Request, Status};
pub use fasthsl_rng::Rng;
use fasthsl_sim::{Cluster, SimConfig, SimDevice};
use fasthsl_topology::Topology;

pub struct World {
    pub cluster: Cluster,
    pub eps: Vec<Endpoint<SimDevice>>,
}

/// Device time allowed for everything a test waits for at once.
pub const TIMEOUT_NS: u64 = 5_000_000;

/// Cards configured with a `window`-byte receive region, routes programmed.
pub fn cards(spec: &str, window: usize) -> (Cluster, Vec<Card<SimDevice>>) {
    cards_on(spec, window, SimConfig::default())
}

/// [`cards`] on a cluster built with `sim`.
pub fn cards_on(spec: &str, window: usize, sim: SimConfig) -> (Cluster, Vec<Card<SimDevice>>) {
    let topo: Topology = spec.parse().unwrap();
    let cluster = Cluster::new(&topo, sim).unwrap();
    let mut cards = Vec::new();
    for n in 0..topo.nodes() {
        let mut card = Card::open(cluster.device(n)).unwrap();
        let mut cc = CardConfig::for_node(&topo, n as u16);
        cc.rx_window_bytes = window;
        card.configure(cc).unwrap();
        cards.push(card);
    }
    for c in &cards {
        c.program_routes(&topo).unwrap();
    }
    (cluster, cards)
}

pub fn boot(cards: &[Card<SimDevice>]) -> Bootstrap {
    Bootstrap::new(cards.iter().map(|c| c.rx_iova().unwrap()).collect())
}

pub fn world_with(spec: &str, cfg: MsgConfig, window: usize) -> World {
    let (cluster, cards) = cards(spec, window);
    let boot = boot(&cards);
    let eps = cards
        .into_iter()
        .map(|c| Endpoint::new(c, &boot, cfg.clone()).unwrap())
        .collect();
    World { cluster, eps }
}

/// Endpoints on cards whose receive windows share one bus address (what a hardware
/// broadcast needs), with `cfg`.
pub fn world_shared(spec: &str, cfg: MsgConfig, window: usize) -> World {
    let sim = SimConfig {
        shared_iova: true,
        ..SimConfig::default()
    };
    let (cluster, cards) = cards_on(spec, window, sim);
    let boot = boot(&cards);
    let eps = cards
        .into_iter()
        .map(|c| Endpoint::new(c, &boot, cfg.clone()).unwrap())
        .collect();
    World { cluster, eps }
}

pub fn world(spec: &str) -> World {
    world_with(spec, MsgConfig::default(), 2 << 20)
}

impl World {
    pub fn now_ns(&self) -> u64 {
        self.cluster.now_ns()
    }

    /// One round: every endpoint makes progress, then the cluster advances one cycle.
    pub fn drive(&mut self) {
        for ep in &mut self.eps {
            ep.progress().unwrap();
        }
        self.cluster.step(1);
    }

    /// Drives every endpoint for `ns` of modeled time.
    pub fn run_for(&mut self, ns: u64) {
        let end = self.now_ns() + ns;
        while self.now_ns() < end {
            self.drive();
        }
    }

    /// Drives every endpoint until all `(node, request)` pairs finish; statuses in order.
    pub fn wait_all(&mut self, reqs: Vec<(usize, Request)>) -> Vec<Result<Status, MsgError>> {
        let start = self.now_ns();
        let mut out: Vec<Option<Result<Status, MsgError>>> = reqs.iter().map(|_| None).collect();
        loop {
            for (i, (n, r)) in reqs.iter().enumerate() {
                if out[i].is_none() {
                    match self.eps[*n].test(r) {
                        Ok(Some(s)) => out[i] = Some(Ok(s)),
                        Ok(None) => {}
                        Err(e) => out[i] = Some(Err(e)),
                    }
                }
            }
            if out.iter().all(Option::is_some) {
                return out.into_iter().map(Option::unwrap).collect();
            }
            for ep in &mut self.eps {
                ep.progress().unwrap();
            }
            assert!(
                self.now_ns() - start < TIMEOUT_NS,
                "requests still pending after {TIMEOUT_NS} ns: {:?}",
                out.iter().map(Option::is_some).collect::<Vec<_>>()
            );
            self.cluster.step(1);
        }
    }

    /// Like `wait_all`, every request must succeed.
    pub fn wait_ok(&mut self, reqs: Vec<(usize, Request)>) -> Vec<Status> {
        self.wait_all(reqs)
            .into_iter()
            .map(|r| r.expect("request failed"))
            .collect()
    }

    /// Nothing went wrong below or inside the layer.
    pub fn assert_clean(&self) {
        assert_eq!(
            self.cluster.iommu_fault_count(),
            0,
            "{:?}",
            self.cluster.iommu_faults()
        );
        assert!(
            self.cluster.violations().is_empty(),
            "{:?}",
            self.cluster.violations()
        );
        for (n, ep) in self.eps.iter().enumerate() {
            let s = ep.stats();
            assert_eq!((s.protocol_errors, s.put_errors), (0, 0), "node {n}: {s:?}");
            let k = ep.card().counters().unwrap();
            assert_eq!(k.rx_dropped(), 0, "node {n}: {k:?}");
        }
    }
}
