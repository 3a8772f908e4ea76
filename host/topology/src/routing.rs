//! Deadlock-free routing for every kind, and the interval tables that implement it.
//!
//! The router has no virtual channels, so a wormhole route is deadlock-free only if the
//! channel dependency graph (CDG: a directed link depends on the next one a route takes
//! from it) is acyclic. Every kind here routes by destination alone (the output at a
//! router depends only on the destination), and ranks its channels so that every route
//! uses them in strictly increasing rank, which makes the CDG acyclic:
//!
//! - **star, full**: at most one router-to-router link per route; nothing to order.
//! - **hypercube** (e-cube): correct the highest differing bit first. A route uses
//!   dimensions in decreasing order, one link each; rank = dimension, descending. The
//!   destinations whose highest bit differing from the router's is `d` form one block
//!   of 2^d consecutive ids, so a table has D + 1 intervals.
//! - **mesh** (dimension order, Y then X): rows first, then columns. Within one
//!   dimension a route keeps its direction, so rank = (dimension, position along the
//!   direction of travel). Ids are row-major, so every other row is one interval and
//!   the own row splits into west / NIC / east: at most 5 intervals.
//! - **ring** (dateline at node 0): a packet may not pass *through* node 0 (it may
//!   start or end there). Between two other nodes it takes the path that avoids node 0
//!   (the ring behaves as the line 1..N-1); to or from node 0 it takes the shorter way.
//!   Cut at node 0, each direction's channels form a line: rank = position after
//!   node 0 in the direction of travel, and no route goes from the channel entering
//!   node 0 to the one leaving it. The wrap-around cycle of each direction is broken
//!   without virtual channels, at the price of detours: 1 -> N-1 goes the long way.
//! - **torus** (dimension order, each ring with its dateline at coordinate 0): Y phase
//!   then X phase, each a dateline ring as above. A route does not cross row 0 in its Y
//!   phase (it may turn into X there) nor column 0 in its X phase. At most 7 intervals:
//!   row 0, the rows above and below the own row, and the own row split in up to four.
//!
//! The throughput cost of the datelines is what [`mod@crate::check`] measures: the busiest
//! channel under uniform traffic, against the bisection bound.
//!
//! Each input's table lists only the destinations that can arrive on it, so a packet on
//! a turn the routing never makes (a corrupted destination, a bad table elsewhere) is
//! dropped and counted by the router rather than entering a dependency cycle.

use std::collections::{BTreeMap, VecDeque};

use crate::{
    Interval, RouterTables, Shape, Topology, TopologyError, PORT_EAST, PORT_NORTH, PORT_SOUTH,
    PORT_WEST, ROUTER_PORTS, ROUTE_ENTRIES,
};

/// What a router port is cabled to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Peer {
    /// Node `n`'s NIC.
    Nic(usize),
    /// (router, port) at the other end of a link.
    Router(usize, usize),
}

/// Per router and port, what it is cabled to.
pub(crate) fn port_map(t: &Topology) -> Vec<[Option<Peer>; ROUTER_PORTS]> {
    let mut m = vec![[None; ROUTER_PORTS]; t.routers()];
    for (n, a) in t.attachments().iter().enumerate() {
        m[a.router][a.port] = Some(Peer::Nic(n));
    }
    for l in t.links() {
        m[l.a.0][l.a.1] = Some(Peer::Router(l.b.0, l.b.1));
        m[l.b.0][l.b.1] = Some(Peer::Router(l.a.0, l.a.1));
    }
    m
}

/// In a ring of `n` positions with its dateline at 0: does the route from `i` to `d`
/// (i != d) go forward (i + 1)? Transit through 0 is forbidden; to or from 0 the shorter
/// way, ties forward. The choice is consistent along a route (every router on the way
/// makes the same one), which is what lets tables route by destination alone.
fn ring_forward(n: usize, i: usize, d: usize) -> bool {
    if i == 0 || d == 0 {
        let fwd = (d + n - i) % n;
        fwd <= n - fwd
    } else {
        d > i
    }
}

/// The output port of `router` toward node `dest`: the routing function every table
/// implements.
///
/// # Panics
/// If `router` or `dest` is out of range.
pub fn next_port(t: &Topology, router: usize, dest: usize) -> usize {
    assert!(router < t.routers() && dest < t.nodes(), "out of range");
    if t.attachment(dest).router == router {
        return t.attachment(dest).port;
    }
    let ring = |n, i, d, fwd, back| if ring_forward(n, i, d) { fwd } else { back };
    match t.shape() {
        Shape::Star(_) => unreachable!("a star has one router"),
        Shape::Full(_) => crate::full_port(router, dest),
        Shape::Ring(n) => ring(n, router, dest, PORT_EAST, PORT_WEST),
        Shape::Hypercube(_) => {
            let diff = router ^ dest;
            (usize::BITS - 1 - diff.leading_zeros()) as usize + 1
        }
        Shape::Mesh { x, .. } | Shape::Torus { x, .. } => {
            let (rx, ry, dx, dy) = (router % x, router / x, dest % x, dest / x);
            let torus = matches!(t.shape(), Shape::Torus { .. });
            match (torus, ry != dy) {
                (false, true) if dy > ry => PORT_SOUTH,
                (false, true) => PORT_NORTH,
                (false, false) if dx > rx => PORT_EAST,
                (false, false) => PORT_WEST,
                (true, true) => {
                    let Shape::Torus { y, .. } = t.shape() else {
                        unreachable!()
                    };
                    ring(y, ry, dy, PORT_SOUTH, PORT_NORTH)
                }
                (true, false) => ring(x, rx, dx, PORT_EAST, PORT_WEST),
            }
        }
    }
}

/// Routers a packet from `src` to `dst` visits, in order (one for a local delivery).
///
/// # Panics
/// If the routing function does not deliver (a bug: the tests check every kind).
pub(crate) fn path(t: &Topology, src: usize, dst: usize) -> Vec<usize> {
    let peers = port_map(t);
    let mut r = t.attachment(src).router;
    let mut out = vec![r];
    loop {
        match peers[r][next_port(t, r, dst)] {
            Some(Peer::Nic(n)) => {
                assert_eq!(n, dst, "{t}: {src} -> {dst} delivered to {n}");
                return out;
            }
            Some(Peer::Router(r2, _)) => r = r2,
            None => panic!("{t}: {src} -> {dst} routed to an unconnected port of router {r}"),
        }
        out.push(r);
        assert!(out.len() <= t.routers(), "{t}: {src} -> {dst} loops");
    }
}

/// The tables of every router: for each (router, input), the destinations that arrive
/// there on some route, merged into intervals of consecutive ids with one output port.
pub(crate) fn tables(t: &Topology) -> Result<Vec<RouterTables>, TopologyError> {
    let peers = port_map(t);
    let mut arrive: Vec<Vec<BTreeMap<usize, usize>>> =
        vec![vec![BTreeMap::new(); ROUTER_PORTS]; t.routers()];
    for src in 0..t.nodes() {
        for dst in 0..t.nodes() {
            let a = t.attachment(src);
            let (mut r, mut p) = (a.router, a.port);
            for _ in 0..=t.routers() {
                let out = next_port(t, r, dst);
                arrive[r][p].insert(dst, out);
                match peers[r][out] {
                    Some(Peer::Router(r2, p2)) => (r, p) = (r2, p2),
                    _ => break,
                }
            }
        }
    }
    arrive
        .iter()
        .enumerate()
        .map(|(router, inputs)| {
            let inputs = inputs
                .iter()
                .enumerate()
                .map(|(port, dests)| {
                    let iv = compress(dests.iter().map(|(&d, &p)| (d, p)));
                    if iv.len() > ROUTE_ENTRIES {
                        Err(TopologyError::TableTooLarge {
                            router,
                            port,
                            needed: iv.len(),
                        })
                    } else {
                        Ok(iv)
                    }
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(RouterTables { router, inputs })
        })
        .collect()
}

/// Shortest-path tables, the same on every input (first hop of a breadth-first search,
/// lowest port first). Deadlock-prone wherever the network has a cycle (ring, torus):
/// kept as the counter-example the checker must reject, and to compare path lengths.
/// Tables larger than [`ROUTE_ENTRIES`] are returned as they are.
pub fn shortest_path_tables(t: &Topology) -> Vec<RouterTables> {
    (0..t.routers())
        .map(|r| {
            let mut first: Vec<Option<usize>> = vec![None; t.routers()];
            let mut seen = vec![false; t.routers()];
            seen[r] = true;
            let mut queue = VecDeque::from([r]);
            while let Some(x) = queue.pop_front() {
                let mut nbrs: Vec<(usize, usize)> = Vec::new();
                for l in t.links() {
                    if l.a.0 == x {
                        nbrs.push((l.a.1, l.b.0));
                    }
                    if l.b.0 == x {
                        nbrs.push((l.b.1, l.a.0));
                    }
                }
                nbrs.sort();
                for (xport, y) in nbrs {
                    if !seen[y] {
                        seen[y] = true;
                        first[y] = if x == r { Some(xport) } else { first[x] };
                        queue.push_back(y);
                    }
                }
            }
            let ports = (0..t.nodes()).map(|n| {
                let a = t.attachment(n);
                let p = if a.router == r {
                    a.port
                } else {
                    first[a.router].expect("topologies here are connected")
                };
                (n, p)
            });
            RouterTables {
                router: r,
                inputs: vec![compress(ports); ROUTER_PORTS],
            }
        })
        .collect()
}

/// Merges (destination, port) pairs, in increasing destination order, into intervals
/// of consecutive destinations with the same port.
fn compress(dests: impl Iterator<Item = (usize, usize)>) -> Vec<Interval> {
    let mut out: Vec<Interval> = Vec::new();
    for (d, p) in dests {
        let (d, p) = (d as u16, p as u8);
        match out.last_mut() {
            Some(last) if last.port == p && last.hi.checked_add(1) == Some(d) => last.hi = d,
            _ => out.push(Interval {
                lo: d,
                hi: d,
                port: p,
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NIC_PORT;

    fn iv(lo: u16, hi: u16, port: u8) -> Interval {
        Interval { lo, hi, port }
    }

    #[test]
    fn ring_direction_avoids_node_zero_in_transit() {
        for n in 2..=16 {
            for s in 0..n {
                for d in (0..n).filter(|&d| d != s) {
                    let fwd = ring_forward(n, s, d);
                    let mut i = s;
                    while i != d {
                        assert!(i == s || i != 0, "ring:{n} {s}->{d} passes node 0");
                        assert_eq!(ring_forward(n, i, d), fwd, "ring:{n} {s}->{d} at {i}");
                        i = if fwd { (i + 1) % n } else { (i + n - 1) % n };
                    }
                }
            }
        }
    }

    #[test]
    fn mesh_tables_are_row_blocks() {
        let t = Topology::mesh(4, 4).unwrap();
        let tables = t.routing_tables().unwrap();
        // Router 6 = (2, 1): row 0 north, own row west / NIC / east, rows 2-3 south.
        assert_eq!(
            tables[6].inputs[NIC_PORT],
            vec![
                iv(0, 3, PORT_NORTH as u8),
                iv(4, 5, PORT_WEST as u8),
                iv(6, 6, NIC_PORT as u8),
                iv(7, 7, PORT_EAST as u8),
                iv(8, 15, PORT_SOUTH as u8),
            ]
        );
        // From the west (travelling east, X phase): only the own row east of here.
        assert_eq!(
            tables[6].inputs[PORT_WEST],
            vec![iv(6, 6, NIC_PORT as u8), iv(7, 7, PORT_EAST as u8)]
        );
    }

    #[test]
    fn hypercube_tables_are_bit_blocks() {
        let t = Topology::hypercube(3).unwrap();
        let tables = t.routing_tables().unwrap();
        // Node 5 = 101: 0-3 differ in bit 2, 4 in bit 0, 6-7 in bit 1.
        assert_eq!(
            tables[5].inputs[NIC_PORT],
            vec![iv(0, 3, 3), iv(4, 4, 1), iv(5, 5, 0), iv(6, 7, 2)]
        );
        // Arriving over bit 2 (from 1): everything left to correct is below bit 2.
        assert_eq!(
            tables[5].inputs[3],
            vec![iv(4, 4, 1), iv(5, 5, 0), iv(6, 7, 2)]
        );
    }

    #[test]
    fn ring_dateline_router_passes_nothing_through() {
        let t = Topology::ring(8).unwrap();
        let tables = t.routing_tables().unwrap();
        assert_eq!(tables[0].inputs[PORT_WEST], vec![iv(0, 0, 0)]);
        assert_eq!(tables[0].inputs[PORT_EAST], vec![iv(0, 0, 0)]);
        // Node 3: 0 is 3 hops west (5 east), 1-2 west, 4-7 east.
        assert_eq!(
            tables[3].inputs[NIC_PORT],
            vec![
                iv(0, 2, PORT_WEST as u8),
                iv(3, 3, 0),
                iv(4, 7, PORT_EAST as u8)
            ]
        );
    }

    #[test]
    fn compress_merges_only_consecutive_ids_with_one_port() {
        let got = compress([(0, 1), (1, 1), (3, 1), (4, 2), (5, 2)].into_iter());
        assert_eq!(got, vec![iv(0, 1, 1), iv(3, 3, 1), iv(4, 5, 2)]);
    }
}
