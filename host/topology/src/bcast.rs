//! Hardware broadcast: the trees routers replicate a broadcast along, and their tables.
//!
//! A broadcast packet (ptype BCAST) carries a node range `lo..=hi` in its dest field
//! ([`bcast_dest`]). A router copies it, per input port `p`, to every output `o` whose
//! table entry `(p, o)` is enabled and whose interval of nodes overlaps the range (never
//! back to `p`). The host builds those entries from a *broadcast routing function*
//! ([`bcast_next_port`]): the tree from source `s` is the union of its routes from `s` to
//! every node, and entry `(p, o)` of a router is the set of nodes whose route from any
//! source arrives on `p` and leaves on `o`. For that to deliver exactly once the sets
//! must not depend on the source (the route to `d` after arriving on `p` is the same for
//! every source), and for the interval test to be exact each set must be an interval of
//! consecutive ids; [`crate::check::check_bcast`] verifies both by replaying every
//! source and range.
//!
//! The routing functions, chosen so the trees' channel dependencies stay within the
//! rank order of the unicast routing ([`crate::routing`]):
//!
//! - **mesh and torus**: dimension order Y then X as on a mesh (no wrap-around links):
//!   a broadcast goes up and down the source's column, and from every router of it
//!   east and west along the row. Rows are consecutive ids, so every set is a block of
//!   rows or part of a row. On a torus the mesh paths never cross a dateline, so they
//!   use the rings' channels in the unicast rank order.
//! - **ring**: the line 0..N-1 (east to higher ids, west to lower), never the link
//!   between N-1 and 0, so never across the dateline.
//! - **hypercube**: e-cube (highest differing bit first), the unicast routing: the
//!   nodes reached over dimension `d` form a block of 2^d ids.
//! - **full, star**: the unicast routing (one hop, or none).
//!
//! Deadlock: a router takes a broadcast's whole output set at once, only with credits
//! for the whole packet on each output, so a broadcast never holds an output while it
//! waits and never stalls once started (rtl/rcube/README.md). Its dependencies are then
//! just the tree's (arrival channel -> each output), and the checker requires the union
//! of those and the unicast dependencies to be acyclic.

use crate::routing::{next_port, port_map, Peer};
use crate::{Shape, Topology, TopologyError, PORT_EAST, PORT_NORTH, PORT_SOUTH, PORT_WEST};
use crate::{MAX_NODES, ROUTER_PORTS};

/// Node ids a broadcast range can name (8 bits each for lo and hi in the dest field).
pub const BCAST_NODES: usize = 256;

/// The dest field of a broadcast to nodes `lo..=hi`: `lo | hi << 8`.
pub fn bcast_dest(lo: u8, hi: u8) -> u16 {
    u16::from(lo) | (u16::from(hi) << 8)
}

/// Broadcast table of one router: `inputs[p][o]` is the interval of nodes a broadcast
/// arriving on input `p` reaches through output `o`, if it is forwarded there at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BcastTables {
    /// Router index.
    pub router: usize,
    /// Per input port, per output port: `(lo, hi)` node ids.
    pub inputs: Vec<[Option<(u8, u8)>; ROUTER_PORTS]>,
}

impl BcastTables {
    /// RT_BC_MASK value of input `p`: the outputs with an entry.
    pub fn mask(&self, p: usize) -> u32 {
        self.inputs[p]
            .iter()
            .enumerate()
            .filter(|(_, e)| e.is_some())
            .fold(0, |m, (o, _)| m | (1 << o))
    }
}

/// The output port of `router` toward `dest` on a broadcast tree (module docs).
///
/// # Panics
/// If `router` or `dest` is out of range.
pub fn bcast_next_port(t: &Topology, router: usize, dest: usize) -> usize {
    assert!(router < t.routers() && dest < t.nodes(), "out of range");
    if t.attachment(dest).router == router {
        return t.attachment(dest).port;
    }
    match t.shape() {
        Shape::Ring(_) => {
            if dest > router {
                PORT_EAST
            } else {
                PORT_WEST
            }
        }
        Shape::Mesh { x, .. } | Shape::Torus { x, .. } => {
            let (rx, ry, dx, dy) = (router % x, router / x, dest % x, dest / x);
            if dy > ry {
                PORT_SOUTH
            } else if dy < ry {
                PORT_NORTH
            } else if dx > rx {
                PORT_EAST
            } else {
                PORT_WEST
            }
        }
        Shape::Star(_) | Shape::Full(_) | Shape::Hypercube(_) => next_port(t, router, dest),
    }
}

/// The broadcast tables of every router (module docs). Errors if a set of nodes is not
/// an interval, or the network is larger than a broadcast range can name.
pub(crate) fn tables(t: &Topology) -> Result<Vec<BcastTables>, TopologyError> {
    if t.nodes() > BCAST_NODES.min(MAX_NODES) {
        return Err(TopologyError::Broadcast(format!(
            "{} nodes; broadcast ranges name nodes below {BCAST_NODES}",
            t.nodes()
        )));
    }
    let peers = port_map(t);
    // sets[r][p][o]: nodes, as a bit set (at most 64 nodes).
    let mut sets = vec![[[0u64; ROUTER_PORTS]; ROUTER_PORTS]; t.routers()];
    for src in 0..t.nodes() {
        for dst in (0..t.nodes()).filter(|&d| d != src) {
            let a = t.attachment(src);
            let (mut r, mut p) = (a.router, a.port);
            for _ in 0..=t.routers() {
                let o = bcast_next_port(t, r, dst);
                sets[r][p][o] |= 1 << dst;
                match peers[r][o] {
                    Some(Peer::Router(r2, p2)) => (r, p) = (r2, p2),
                    _ => break,
                }
            }
        }
    }
    sets.iter()
        .enumerate()
        .map(|(router, inputs)| {
            let inputs = inputs
                .iter()
                .enumerate()
                .map(|(p, outs)| {
                    let mut row = [None; ROUTER_PORTS];
                    for (o, &set) in outs.iter().enumerate() {
                        if set == 0 {
                            continue;
                        }
                        let lo = set.trailing_zeros();
                        let hi = 63 - set.leading_zeros();
                        let span = hi - lo + 1;
                        if set.count_ones() != span {
                            return Err(TopologyError::Broadcast(format!(
                                "router {router} input {p} output {o}: nodes {set:#x} are not consecutive"
                            )));
                        }
                        row[o] = Some((lo as u8, hi as u8));
                    }
                    Ok(row)
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(BcastTables { router, inputs })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NIC_PORT;

    #[test]
    fn mesh_tree_goes_along_the_column_then_the_rows() {
        let t = Topology::mesh(4, 4).unwrap();
        let bt = t.bcast_tables().unwrap();
        // Router 6 = (2, 1), from its NIC: rows 0 north, 2-3 south, own row west/east.
        let row = bt[6].inputs[NIC_PORT];
        assert_eq!(row[PORT_NORTH], Some((0, 3)));
        assert_eq!(row[PORT_SOUTH], Some((8, 15)));
        assert_eq!(row[PORT_WEST], Some((4, 5)));
        assert_eq!(row[PORT_EAST], Some((7, 7)));
        assert_eq!(row[NIC_PORT], None);
        // From the west (X phase): only east and the own NIC.
        let row = bt[6].inputs[PORT_WEST];
        assert_eq!(row[PORT_EAST], Some((7, 7)));
        assert_eq!(row[NIC_PORT], Some((6, 6)));
        assert_eq!(row[PORT_NORTH], None);
        assert_eq!(bt[6].mask(PORT_WEST), 1 << PORT_EAST | 1 << NIC_PORT);
    }

    #[test]
    fn ring_tree_never_uses_the_wrap_link() {
        let t = Topology::ring(8).unwrap();
        let bt = t.bcast_tables().unwrap();
        assert_eq!(bt[0].inputs[NIC_PORT][PORT_WEST], None);
        assert_eq!(bt[0].inputs[NIC_PORT][PORT_EAST], Some((1, 7)));
        assert_eq!(bt[7].inputs[NIC_PORT][PORT_EAST], None);
        assert_eq!(bt[3].inputs[PORT_WEST][PORT_EAST], Some((4, 7)));
    }

    #[test]
    fn dest_encoding() {
        assert_eq!(bcast_dest(3, 60), 3 | 60 << 8);
    }
}
