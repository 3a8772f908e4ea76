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
//!
//! **Adaptive routing** ([`adaptive_ports`], [`crate::Topology::adaptive_tables`]).
//! Without virtual channels an adaptive routing is deadlock-free when the *union* of
//! everything it allows keeps the CDG acyclic; no escape channel is needed then, since
//! any allowed output is as safe as any other. The primary port stays the deterministic
//! one above (so the default routing, and packets without DESC_FLAG_ADAPTIVE, are
//! unchanged) and the alternatives are chosen so that the union is a turn model:
//!
//! - **mesh**, west-last: Y then X allows every turn from Y into X; adding E->N and
//!   E->S (a packet still heading east may take the east link before its row changes)
//!   forbids only W->N and W->S, one turn of each of the two abstract cycles: the
//!   north-last turn model of Glass and Ni rotated by 90 degrees. So a destination east
//!   of here in another row may go east first; westward traffic stays Y then X.
//! - **hypercube**: besides the highest differing bit (e-cube), any lower differing
//!   bit that goes 0 -> 1. A move that clears a bit is then always on the highest
//!   differing bit, and only lower dimensions follow it. In a dependency cycle every
//!   dimension used is both set and cleared; the lowest one, l, is cleared by a move
//!   that only a lower dimension can follow, which the cycle lacks: no cycle.
//! - ring and torus keep their dateline routes (an alternative would cross a dateline or
//!   need a second channel class); star and full have a single minimal path.
//!
//! Interval tables limit how much of it can be expressed: the alternatives of a run of
//! destinations are the intersection of theirs, and an input has [`ROUTE_ENTRIES`]
//! entries. Adaptive entries go before the deterministic ones (first match wins; they
//! name the same primary port), chosen greedily by destinations x alternatives covered.
//! Dropping an alternative only shrinks the union, so the tables stay deadlock-free
//! whatever fits; [`crate::check()`] verifies the union for every table set anyway.

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

/// Alternative output ports (bit o = port o) of `router` toward node `dest` for adaptive
/// packets, besides [`next_port`]: the adaptive routing of the module documentation.
/// 0 where the kind or the pair has none.
///
/// # Panics
/// If `router` or `dest` is out of range.
pub fn adaptive_ports(t: &Topology, router: usize, dest: usize) -> u8 {
    assert!(router < t.routers() && dest < t.nodes(), "out of range");
    if t.attachment(dest).router == router {
        return 0;
    }
    match t.shape() {
        Shape::Mesh { x, .. } => {
            let (rx, ry, dx, dy) = (router % x, router / x, dest % x, dest / x);
            if dx > rx && dy != ry {
                1 << PORT_EAST
            } else {
                0
            }
        }
        Shape::Hypercube(_) => {
            let diff = router ^ dest;
            let high = usize::BITS - 1 - diff.leading_zeros();
            let set = diff & dest & ((1usize << high) - 1);
            // Bit d of the id is on port d + 1.
            ((set << 1) & 0xFE) as u8
        }
        _ => 0,
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
    build(t, |_, _, _| 0)
}

/// [`tables`] with the alternatives of [`adaptive_ports`].
pub(crate) fn adaptive_tables(t: &Topology) -> Result<Vec<RouterTables>, TopologyError> {
    build(t, adaptive_ports)
}

/// Tables for the primary ports of [`next_port`] and the alternatives `alt` gives: each
/// input lists the destinations that can arrive on it by any allowed route.
pub(crate) fn build(
    t: &Topology,
    alt: impl Fn(&Topology, usize, usize) -> u8,
) -> Result<Vec<RouterTables>, TopologyError> {
    let peers = port_map(t);
    let mut arrive: Vec<Vec<BTreeMap<usize, (usize, u8)>>> =
        vec![vec![BTreeMap::new(); ROUTER_PORTS]; t.routers()];
    for dst in 0..t.nodes() {
        // Every (router, input) some allowed route to dst reaches, from every source.
        let mut todo: Vec<(usize, usize)> = (0..t.nodes())
            .map(|src| (t.attachment(src).router, t.attachment(src).port))
            .collect();
        while let Some((r, p)) = todo.pop() {
            if arrive[r][p].contains_key(&dst) {
                continue;
            }
            let out = next_port(t, r, dst);
            let amask = alt(t, r, dst) & !(1u8 << out);
            arrive[r][p].insert(dst, (out, amask));
            for o in (0..ROUTER_PORTS).filter(|&o| o == out || amask & (1 << o) != 0) {
                if let Some(Peer::Router(r2, p2)) = peers[r][o] {
                    todo.push((r2, p2));
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
                    let primary: Vec<usize> =
                        (0..t.nodes()).map(|d| next_port(t, router, d)).collect();
                    let iv = fit(dests, &primary);
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

/// Entries for one input: destination -> (primary port, alternatives). Exact when the
/// runs of equal (port, alternatives) fit in [`ROUTE_ENTRIES`]; otherwise the
/// deterministic intervals last, and before them, in the entries left, the adaptive
/// intervals (a run of consecutive destinations with one primary port, with the
/// intersection of their alternatives) covering the most destinations x alternatives.
///
/// Adaptive routes bring more destinations to an input (a mesh's west input sees every
/// row's eastern part), so its deterministic intervals may not fit either. They may
/// then span destinations that never arrive there (`primary[d]` is this router's
/// primary port toward any node d) when the span's port is theirs too: such an entry
/// adds no dependency (the input-output pair is used anyway) and sends a stray packet
/// the right way instead of dropping it.
fn fit(dests: &BTreeMap<usize, (usize, u8)>, primary: &[usize]) -> Vec<Interval> {
    let list: Vec<(usize, usize, u8)> = dests.iter().map(|(&d, &(p, a))| (d, p, a)).collect();
    let exact = compress_adaptive(&list);
    if exact.len() <= ROUTE_ENTRIES {
        return exact;
    }
    let mut base = compress(list.iter().map(|&(d, p, _)| (d, p)));
    if base.len() > ROUTE_ENTRIES {
        let mut bridged: Vec<Interval> = Vec::new();
        for iv in base {
            match bridged.last_mut() {
                Some(last)
                    if last.port == iv.port
                        && (usize::from(last.hi) + 1..usize::from(iv.lo))
                            .all(|g| primary[g] == usize::from(iv.port)) =>
                {
                    last.hi = iv.hi
                }
                _ => bridged.push(iv),
            }
        }
        base = bridged;
    }
    // Candidates: every run list[i..=j] of consecutive ids and one port, with a
    // non-empty common set of alternatives.
    let mut cand: Vec<(usize, usize, usize, u8)> = Vec::new(); // (value, i, j, amask)
    for i in 0..list.len() {
        let mut amask = list[i].2;
        for j in i..list.len() {
            if j > i && (list[j].0 != list[j - 1].0 + 1 || list[j].1 != list[i].1) {
                break;
            }
            amask &= list[j].2;
            if amask == 0 {
                break;
            }
            cand.push(((j - i + 1) * amask.count_ones() as usize, i, j, amask));
        }
    }
    cand.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut picked: Vec<(usize, usize, u8)> = Vec::new();
    for (_, i, j, amask) in cand {
        if base.len() + picked.len() >= ROUTE_ENTRIES {
            break;
        }
        if picked.iter().all(|&(pi, pj, _)| j < pi || i > pj) {
            picked.push((i, j, amask));
        }
    }
    picked.sort_unstable();
    picked
        .into_iter()
        .map(|(i, j, amask)| Interval {
            lo: list[i].0 as u16,
            hi: list[j].0 as u16,
            port: list[i].1 as u8,
            amask,
        })
        .chain(base)
        .collect()
}

/// Merges (destination, port, alternatives), in increasing destination order, into
/// intervals of consecutive destinations with the same port and alternatives.
fn compress_adaptive(dests: &[(usize, usize, u8)]) -> Vec<Interval> {
    let mut out: Vec<Interval> = Vec::new();
    for &(d, p, a) in dests {
        let (d, p) = (d as u16, p as u8);
        match out.last_mut() {
            Some(last)
                if last.port == p && last.amask == a && last.hi.checked_add(1) == Some(d) =>
            {
                last.hi = d
            }
            _ => out.push(Interval {
                lo: d,
                hi: d,
                port: p,
                amask: a,
            }),
        }
    }
    out
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
                amask: 0,
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
        Interval {
            lo,
            hi,
            port,
            amask: 0,
        }
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
