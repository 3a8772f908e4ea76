//! Bringing up every node of a simulated cluster, as the demo and the benchmarks need it.

use anyhow::{Context, Result};
use fasthsl_driver::{Card, CardConfig};
use fasthsl_sim::{Cluster, SimDevice};
use fasthsl_topology::Topology;

/// Opens and configures every node's card with a receive window of `rx_window(node)`
/// bytes, calls `after_configure` on each card right after its configuration (so buffers
/// allocated there keep their place in the node's DMA memory), then programs every
/// router from its managing node.
pub fn configured_cards(
    cluster: &Cluster,
    topology: &Topology,
    rx_window: impl Fn(usize) -> usize,
    mut after_configure: impl FnMut(usize, &mut Card<SimDevice>) -> Result<()>,
) -> Result<Vec<Card<SimDevice>>> {
    let mut cards = Vec::with_capacity(topology.nodes());
    for n in 0..topology.nodes() {
        let mut card =
            Card::open(cluster.device(n)).with_context(|| format!("opening node {n}"))?;
        let mut cc = CardConfig::for_node(topology, n as u16);
        cc.rx_window_bytes = rx_window(n);
        card.configure(cc)
            .with_context(|| format!("configuring node {n}"))?;
        after_configure(n, &mut card)?;
        cards.push(card);
    }
    for (n, card) in cards.iter().enumerate() {
        card.program_routes(topology)
            .with_context(|| format!("programming the routers of node {n}"))?;
    }
    Ok(cards)
}
