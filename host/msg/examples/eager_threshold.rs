//! Measures what the eager threshold (`MsgConfig::short_max`) should be: the one-way
//! ping-pong time of each size sent eagerly (copied into a slot) and by rendezvous
//! (REQ, RSP, direct write), in modeled time on a simulated full:2 cluster. Prints one
//! JSON object per size.
//!
//! `cargo run --release -p fasthsl-msg --example eager_threshold [iterations]`

use fasthsl_driver::{Card, CardConfig};
use fasthsl_msg::{Bootstrap, Endpoint, MsgConfig, Request};
use fasthsl_sim::{Cluster, SimConfig, SimDevice};
use fasthsl_topology::Topology;

fn world(short_max: usize) -> (Cluster, Vec<Endpoint<SimDevice>>) {
    let topo: Topology = "full:2".parse().unwrap();
    let cluster = Cluster::new(&topo, SimConfig::default()).unwrap();
    let mut cards = Vec::new();
    for n in 0..2 {
        let mut card = Card::open(cluster.device(n)).unwrap();
        let mut cc = CardConfig::for_node(&topo, n as u16);
        cc.rx_window_bytes = 8 << 20;
        card.configure(cc).unwrap();
        cards.push(card);
    }
    for c in &cards {
        c.program_routes(&topo).unwrap();
    }
    let boot = Bootstrap::new(cards.iter().map(|c| c.rx_iova().unwrap()).collect());
    let cfg = MsgConfig {
        short_max,
        ..MsgConfig::default()
    };
    let eps = cards
        .into_iter()
        .map(|c| Endpoint::new(c, &boot, cfg.clone()).unwrap())
        .collect();
    (cluster, eps)
}

fn wait(cluster: &Cluster, eps: &mut [Endpoint<SimDevice>], reqs: Vec<(usize, Request)>) {
    let mut pending = reqs;
    while !pending.is_empty() {
        pending.retain(|(n, r)| eps[*n].test(r).unwrap().is_none());
        cluster.step(1);
    }
}

/// Mean one-way time of `iters` round trips of `size` bytes, receives pre-posted.
fn one_way(short_max: usize, size: usize, iters: u32) -> f64 {
    let (cluster, mut eps) = world(short_max);
    let bufs: Vec<_> = eps.iter_mut().map(|e| e.alloc(size).unwrap()).collect();
    let mut t0 = 0;
    for i in 0..iters + 2 {
        if i == 2 {
            t0 = cluster.now_ns();
        }
        for (s, d) in [(0usize, 1usize), (1, 0)] {
            let r = eps[d].irecv(s as u16, 0, &bufs[d]).unwrap();
            let q = eps[s].isend_buf(d as u16, 0, &bufs[s], size).unwrap();
            wait(&cluster, &mut eps, vec![(d, r), (s, q)]);
        }
    }
    (cluster.now_ns() - t0) as f64 / (2.0 * f64::from(iters))
}

fn main() {
    let iters = std::env::args()
        .nth(1)
        .map_or(20, |s| s.parse().expect("iterations: a number"));
    let mut size = 8;
    while size <= 32 << 10 {
        let eager = one_way(64 << 10, size, iters);
        let rdv = one_way(0, size, iters);
        println!(
            "{{\"size\": {size}, \"eager_one_way_ns\": {eager:.1}, \"rendezvous_one_way_ns\": {rdv:.1}}}"
        );
        size *= 2;
    }
}
