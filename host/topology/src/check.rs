//! An independent checker for routing tables: it reads only the cabling and the tables
//! (never the routing function that built them) and verifies that
//!
//! - (a) every (source, destination) pair, a node to itself included, is delivered to
//!   the destination's NIC by walking the tables from the source's NIC input, with no
//!   loop, and reports each path's length;
//! - (b) the channel dependency graph is acyclic: its vertices are the directed
//!   channels (NIC injection, router-to-router link directions, NIC ejection), with an
//!   edge from one channel to the next wherever some route takes them in sequence. A
//!   cycle there is a possible wormhole deadlock without virtual channels; it is
//!   reported;
//! - (c) every input's table fits the hardware's [`ROUTE_ENTRIES`], names existing
//!   ports, and has `lo <= hi`.
//!
//! With adaptive entries (`Interval::amask`), (b) covers the union of every route the
//! tables allow: from every source, every output of every matching entry (primary and
//! alternatives) is followed, each must lead to a cabled port and never to another
//! node's NIC, and each step is a dependency. An acyclic union also rules out routes that
//! loop. Path lengths and loads (below) are those of the primary routes.
//!
//! It also measures the load each channel carries under uniform all-to-all traffic,
//! and from the busiest channel the saturation throughput, set against the bisection
//! bound.

use std::fmt;

use crate::bcast::BcastTables;
use crate::routing::{port_map, Peer};
use crate::{Interval, RouterTables, Topology, ROUTER_PORTS, ROUTE_ENTRIES};

/// A directed channel of the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Channel {
    /// Node's NIC into its router.
    Inject(usize),
    /// Router out to node's NIC.
    Eject(usize),
    /// Out of `router` through `port`, into the router cabled there.
    Link {
        /// Sending router.
        router: usize,
        /// Its output port.
        port: usize,
    },
}

impl fmt::Display for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Channel::Inject(n) => write!(f, "node {n} -> its router"),
            Channel::Eject(n) => write!(f, "router -> node {n}"),
            Channel::Link { router, port } => write!(f, "router {router} port {port} out"),
        }
    }
}

/// What the checker found wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CheckError {
    /// The tables do not match the topology's routers.
    #[error("expected tables for routers 0..{routers} in order with at most {ROUTER_PORTS} inputs each: {what}")]
    Shape {
        /// Routers in the topology.
        routers: usize,
        /// What is off.
        what: String,
    },
    /// (c) an input has more entries than the hardware.
    #[error(
        "router {router} input {input} has {entries} entries; the hardware has {ROUTE_ENTRIES}"
    )]
    TableTooLarge {
        /// Router.
        router: usize,
        /// Input port.
        input: usize,
        /// Entries in its table.
        entries: usize,
    },
    /// (c) an entry with an empty interval or a port the router lacks.
    #[error("router {router} input {input} entry {entry}: {what}")]
    BadEntry {
        /// Router.
        router: usize,
        /// Input port.
        input: usize,
        /// Entry index.
        entry: usize,
        /// What is wrong.
        what: String,
    },
    /// (a) no entry matches: the router drops the packet.
    #[error("{src} -> {dst}: no entry for it at router {router} input {input}")]
    Unroutable {
        /// Source node.
        src: usize,
        /// Destination node.
        dst: usize,
        /// Router where it is dropped.
        router: usize,
        /// Input it arrived on.
        input: usize,
    },
    /// (a) the route leaves through a port with nothing cabled to it.
    #[error("{src} -> {dst}: router {router} sends it to unconnected port {port}")]
    DeadEnd {
        /// Source node.
        src: usize,
        /// Destination node.
        dst: usize,
        /// Router.
        router: usize,
        /// Output port.
        port: usize,
    },
    /// (a) delivered to the wrong NIC.
    #[error("{src} -> {dst}: delivered to node {got}")]
    Misdelivered {
        /// Source node.
        src: usize,
        /// Destination node.
        dst: usize,
        /// Node it reached.
        got: usize,
    },
    /// (a) the route comes back to a channel it already used.
    #[error("{src} -> {dst}: the route loops (channel {again} twice)")]
    Loop {
        /// Source node.
        src: usize,
        /// Destination node.
        dst: usize,
        /// The channel used twice.
        again: Channel,
    },
    /// Broadcast tables that do not match the topology's routers.
    #[error("broadcast tables: {0}")]
    BcastShape(String),
    /// A broadcast reached a node other than exactly once (in range, not the source) or
    /// not at all (outside the range, or the source).
    #[error("broadcast from {src} to {lo}..={hi}: node {node} received it {got} times")]
    BcastDelivery {
        /// Source node.
        src: usize,
        /// Range, lowest node.
        lo: usize,
        /// Range, highest node.
        hi: usize,
        /// The node.
        node: usize,
        /// Copies it received.
        got: usize,
    },
    /// (b) the channel dependency graph has a cycle: deadlock-prone without VCs.
    #[error("channel dependency cycle (deadlock-prone without virtual channels): {}", cycle_text(.cycle))]
    Deadlock {
        /// The channels of the cycle, each depending on the next, the last on the first.
        cycle: Vec<Channel>,
    },
}

fn cycle_text(c: &[Channel]) -> String {
    let mut s: Vec<String> = c.iter().map(|ch| ch.to_string()).collect();
    if let Some(first) = s.first().cloned() {
        s.push(first);
    }
    s.join(" => ")
}

/// Saturation throughput under uniform traffic (every node sends to every other at
/// the same rate), in flits per cycle per node; a channel carries one flit per cycle.
#[derive(Debug, Clone, PartialEq)]
pub struct Throughput {
    /// The busiest router-to-router channel and the routes (ordered pairs of distinct
    /// nodes) through it; `None` without links (star, one node).
    pub busiest_link: Option<(Channel, usize)>,
    /// Injection rate at which the busiest link is full: (N - 1) / its routes
    /// (infinite without links).
    pub link_saturation: f64,
    /// What the nodes can actually inject: `link_saturation`, at most 1 (the NIC's own
    /// channel).
    pub saturation: f64,
    /// The most any routing could put across the bisection cut (see
    /// [`Topology::bisection_cut`]): links * (N - 1) / (|A| |B|), not capped by the
    /// injection rate. `None` without links.
    pub bisection_bound: Option<f64>,
    /// `link_saturation / bisection_bound`: what this routing leaves of the bisection
    /// bound (1 when the busiest link is a bisection link and all of them are equally
    /// loaded).
    pub bisection_fraction: Option<f64>,
}

/// What the checker measured on tables it accepted.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckReport {
    /// Nodes.
    pub nodes: usize,
    /// Router-to-router hops of every route, `hops[src * nodes + dst]`.
    pub hops: Vec<usize>,
    /// Longest route, hops.
    pub max_hops: usize,
    /// Mean hops over ordered pairs of distinct nodes.
    pub mean_hops: f64,
    /// Mean shortest-path hops over the same pairs: the difference to `mean_hops` is
    /// what deadlock avoidance costs in path length.
    pub mean_shortest_hops: f64,
    /// Largest table of any input.
    pub max_entries: usize,
    /// Edges of the channel dependency graph.
    pub dependencies: usize,
    /// Routes through each channel (all ordered pairs of distinct nodes), busiest first.
    pub loads: Vec<(Channel, usize)>,
    /// Saturation throughput (`None` with fewer than 2 nodes).
    pub throughput: Option<Throughput>,
}

/// Checks `tables` against `t` as the module documentation describes: (a), (b), (c).
pub fn check(t: &Topology, tables: &[RouterTables]) -> Result<CheckReport, CheckError> {
    let (mut report, mut deps) = measure(t, tables)?;
    add_adaptive(t, tables, &mut deps)?;
    report.dependencies = deps.iter().map(Vec::len).sum();
    if let Some(cycle) = find_cycle(&deps) {
        let chans = Chans { n: t.nodes() };
        return Err(CheckError::Deadlock {
            cycle: cycle.into_iter().map(|i| chans.channel(i)).collect(),
        });
    }
    for rt in tables {
        for (input, table) in rt.inputs.iter().enumerate() {
            if table.len() > ROUTE_ENTRIES {
                return Err(CheckError::TableTooLarge {
                    router: rt.router,
                    input,
                    entries: table.len(),
                });
            }
        }
    }
    Ok(report)
}

/// What [`check_bcast`] replayed and found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BcastReport {
    /// Broadcasts replayed: every source with every range of node ids.
    pub broadcasts: usize,
    /// Most router-to-router hops from a source to a receiver of a whole-network
    /// broadcast (the tree depth that sets the latency to the last receiver).
    pub max_depth: usize,
    /// Channel dependencies the broadcast trees add to the unicast ones.
    pub added_dependencies: usize,
}

/// Checks broadcast tables `bc` together with the unicast `tables` (which must pass
/// [`check`]): every source with every range `lo..=hi` of node ids, replayed with the
/// router's rule (copy to every enabled output of the arrival input whose interval
/// overlaps the range, never back to the input), reaches each node of the range except
/// the source exactly once and no other node; and the union of the unicast dependencies
/// and the trees' (arrival channel -> each output) is acyclic (crate::bcast: a router
/// never lets a broadcast hold outputs while it waits, so those are all it adds).
pub fn check_bcast(
    t: &Topology,
    tables: &[RouterTables],
    bc: &[BcastTables],
) -> Result<BcastReport, CheckError> {
    check(t, tables)?;
    let (_, mut deps) = measure(t, tables)?;
    let unicast_deps: usize = deps.iter().map(Vec::len).sum();
    if bc.len() != t.routers()
        || bc
            .iter()
            .enumerate()
            .any(|(r, b)| b.router != r || b.inputs.len() > ROUTER_PORTS)
    {
        return Err(CheckError::BcastShape(format!(
            "want one table per router 0..{} in order, at most {ROUTER_PORTS} inputs each",
            t.routers()
        )));
    }
    let n = t.nodes();
    let peers = port_map(t);
    let chans = Chans { n };
    let into = |r: usize, p: usize| match peers[r][p] {
        Some(Peer::Nic(node)) => Some(Channel::Inject(node)),
        Some(Peer::Router(r2, p2)) => Some(Channel::Link {
            router: r2,
            port: p2,
        }),
        None => None,
    };
    let out_of = |r: usize, o: usize| match peers[r][o] {
        Some(Peer::Nic(node)) => Some(Channel::Eject(node)),
        Some(Peer::Router(..)) => Some(Channel::Link { router: r, port: o }),
        None => None,
    };
    let mut broadcasts = 0;
    let mut max_depth = 0;
    let mut got = vec![0usize; n];
    for src in 0..n {
        for lo in 0..n {
            for hi in lo..n {
                broadcasts += 1;
                let whole = lo == 0 && hi == n - 1;
                got.iter_mut().for_each(|g| *g = 0);
                let a = t.attachment(src);
                let mut queue = vec![(a.router, a.port, 0usize)];
                let mut steps = 0;
                while let Some((r, p, depth)) = queue.pop() {
                    steps += 1;
                    if steps > t.routers() * ROUTER_PORTS {
                        return Err(CheckError::BcastDelivery {
                            src,
                            lo,
                            hi,
                            node: src,
                            got: usize::MAX,
                        });
                    }
                    let row = bc[r].inputs.get(p).copied().unwrap_or([None; ROUTER_PORTS]);
                    for (o, e) in row.iter().enumerate() {
                        let Some((l, h)) = *e else { continue };
                        if o == p || usize::from(h) < lo || usize::from(l) > hi {
                            continue;
                        }
                        match peers[r][o] {
                            Some(Peer::Nic(node)) => got[node] += 1,
                            Some(Peer::Router(r2, p2)) => {
                                max_depth = max_depth.max(depth + 1);
                                queue.push((r2, p2, depth + 1));
                            }
                            None => {
                                return Err(CheckError::BcastShape(format!(
                                    "router {r} input {p} forwards to unconnected port {o}"
                                )))
                            }
                        }
                        if whole {
                            let (ci, co) = (into(r, p), out_of(r, o));
                            if let (Some(ci), Some(co)) = (ci, co) {
                                let (ci, co) = (chans.index(ci), chans.index(co));
                                if !deps[ci].contains(&co) {
                                    deps[ci].push(co);
                                }
                            }
                        }
                    }
                }
                for (node, &g) in got.iter().enumerate() {
                    let want = usize::from((lo..=hi).contains(&node) && node != src);
                    if g != want {
                        return Err(CheckError::BcastDelivery {
                            src,
                            lo,
                            hi,
                            node,
                            got: g,
                        });
                    }
                }
            }
        }
    }
    if let Some(cycle) = find_cycle(&deps) {
        return Err(CheckError::Deadlock {
            cycle: cycle.into_iter().map(|i| chans.channel(i)).collect(),
        });
    }
    Ok(BcastReport {
        broadcasts,
        max_depth,
        added_dependencies: deps.iter().map(Vec::len).sum::<usize>() - unicast_deps,
    })
}

/// (a) and the measurements, without (b) and without the hardware's entry limit: for
/// comparing tables that are not deadlock-free or do not fit (shortest paths on a
/// ring or torus) with ones that are and do.
pub fn analyze(t: &Topology, tables: &[RouterTables]) -> Result<CheckReport, CheckError> {
    measure(t, tables).map(|(report, _)| report)
}

/// The report and the channel dependency graph (adjacency lists by channel index).
fn measure(
    t: &Topology,
    tables: &[RouterTables],
) -> Result<(CheckReport, Vec<Vec<usize>>), CheckError> {
    let n = t.nodes();
    check_tables(t, tables)?;
    let peers = port_map(t);
    let chans = Chans { n };
    let mut deps: Vec<Vec<usize>> = vec![Vec::new(); chans.count(t.routers())];
    let mut load = vec![0usize; deps.len()];
    let mut hops = vec![0usize; n * n];
    let mut used = vec![usize::MAX; deps.len()];
    for src in 0..n {
        for dst in 0..n {
            let pair = src * n + dst;
            let route = walk(t, tables, &peers, src, dst, |c| {
                let i = chans.index(c);
                let again = used[i] == pair;
                used[i] = pair;
                again
            })?;
            for w in route.windows(2) {
                let (a, b) = (chans.index(w[0]), chans.index(w[1]));
                if !deps[a].contains(&b) {
                    deps[a].push(b);
                }
            }
            hops[pair] = route.len() - 2;
            if src != dst {
                for c in &route {
                    load[chans.index(*c)] += 1;
                }
            }
        }
    }
    let pairs = n * n.saturating_sub(1);
    let sum = |f: &dyn Fn(usize, usize) -> usize| -> f64 {
        let total: usize = (0..n)
            .flat_map(|s| (0..n).map(move |d| (s, d)))
            .filter(|(s, d)| s != d)
            .map(|(s, d)| f(s, d))
            .sum();
        total as f64 / pairs.max(1) as f64
    };
    let dist: Vec<Vec<usize>> = (0..t.routers()).map(|r| t.distances_from(r)).collect();
    let mut loads: Vec<(Channel, usize)> = load
        .iter()
        .enumerate()
        .filter(|&(_, &l)| l > 0)
        .map(|(i, &l)| (chans.channel(i), l))
        .collect();
    loads.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let throughput = (n >= 2).then(|| {
        let busiest_link = loads
            .iter()
            .find(|(c, _)| matches!(c, Channel::Link { .. }))
            .copied();
        let link_saturation =
            busiest_link.map_or(f64::INFINITY, |(_, l)| (n - 1) as f64 / l as f64);
        let bisection_bound = t.bisection_cut().map(|(links, side)| {
            let a = side.iter().filter(|&&s| s).count();
            (links * (n - 1)) as f64 / (a * (n - a)) as f64
        });
        Throughput {
            busiest_link,
            link_saturation,
            saturation: link_saturation.min(1.0),
            bisection_bound,
            bisection_fraction: bisection_bound.map(|b| link_saturation / b),
        }
    });
    let report = CheckReport {
        nodes: n,
        max_hops: hops.iter().copied().max().unwrap_or(0),
        mean_hops: sum(&|s, d| hops[s * n + d]),
        mean_shortest_hops: sum(&|s, d| dist[t.attachment(s).router][t.attachment(d).router]),
        hops,
        max_entries: tables
            .iter()
            .flat_map(|rt| rt.inputs.iter().map(Vec::len))
            .max()
            .unwrap_or(0),
        dependencies: deps.iter().map(Vec::len).sum(),
        loads,
        throughput,
    };
    Ok((report, deps))
}

/// The channels `src -> dst` uses, injection first, ejection last, as the tables route
/// it. `seen` is told each channel and answers whether this route used it before.
fn walk(
    t: &Topology,
    tables: &[RouterTables],
    peers: &[[Option<Peer>; ROUTER_PORTS]],
    src: usize,
    dst: usize,
    mut seen: impl FnMut(Channel) -> bool,
) -> Result<Vec<Channel>, CheckError> {
    let a = t.attachment(src);
    let (mut router, mut input) = (a.router, a.port);
    let mut route = vec![Channel::Inject(src)];
    seen(Channel::Inject(src));
    loop {
        let port = usize::from(entry_for(tables, src, dst, router, input)?.port);
        match hop(peers, src, dst, router, port)? {
            None => {
                route.push(Channel::Eject(dst));
                return Ok(route);
            }
            Some((r2, p2)) => {
                let c = Channel::Link { router, port };
                if seen(c) {
                    return Err(CheckError::Loop { src, dst, again: c });
                }
                route.push(c);
                (router, input) = (r2, p2);
            }
        }
    }
}

/// The entry of `router`'s table for `input` that routes `dst` (the first whose interval
/// holds it), on the route from `src`.
fn entry_for(
    tables: &[RouterTables],
    src: usize,
    dst: usize,
    router: usize,
    input: usize,
) -> Result<&Interval, CheckError> {
    let table = tables[router].inputs.get(input).map_or(&[][..], |v| &v[..]);
    let d = dst as u64;
    table
        .iter()
        .find(|iv| (u64::from(iv.lo)..=u64::from(iv.hi)).contains(&d))
        .ok_or(CheckError::Unroutable {
            src,
            dst,
            router,
            input,
        })
}

/// Where output `port` of `router` takes a packet `src -> dst`: `None` into `dst`'s NIC,
/// `Some((router, input))` on to another router; an error for an uncabled port or
/// another NIC.
fn hop(
    peers: &[[Option<Peer>; ROUTER_PORTS]],
    src: usize,
    dst: usize,
    router: usize,
    port: usize,
) -> Result<Option<(usize, usize)>, CheckError> {
    match peers[router][port] {
        None => Err(CheckError::DeadEnd {
            src,
            dst,
            router,
            port,
        }),
        Some(Peer::Nic(got)) if got != dst => Err(CheckError::Misdelivered { src, dst, got }),
        Some(Peer::Nic(_)) => Ok(None),
        Some(Peer::Router(r2, p2)) => Ok(Some((r2, p2))),
    }
}

/// Adds to `deps` every dependency of the routes the tables allow with their
/// alternatives (the primary routes' are there already); checks that every allowed
/// output of a reachable entry is cabled and does not end at the wrong NIC.
fn add_adaptive(
    t: &Topology,
    tables: &[RouterTables],
    deps: &mut [Vec<usize>],
) -> Result<(), CheckError> {
    if !tables
        .iter()
        .flat_map(|rt| rt.inputs.iter().flatten())
        .any(|iv| iv.amask & !(1u8 << iv.port) != 0)
    {
        return Ok(());
    }
    let peers = port_map(t);
    let chans = Chans { n: t.nodes() };
    for dst in 0..t.nodes() {
        let mut seen = vec![false; deps.len()];
        // (channel a packet arrives on, its source)
        let mut todo: Vec<(Channel, usize)> =
            (0..t.nodes()).map(|s| (Channel::Inject(s), s)).collect();
        while let Some((c, src)) = todo.pop() {
            let ci = chans.index(c);
            if std::mem::replace(&mut seen[ci], true) {
                continue;
            }
            let (router, input) = match c {
                Channel::Inject(s) => (t.attachment(s).router, t.attachment(s).port),
                Channel::Link { router, port } => match peers[router][port] {
                    Some(Peer::Router(r2, p2)) => (r2, p2),
                    _ => unreachable!("only cabled links are queued"),
                },
                Channel::Eject(_) => continue,
            };
            let iv = entry_for(tables, src, dst, router, input)?;
            let outs = iv.amask | (1u8 << iv.port);
            for port in (0..ROUTER_PORTS).filter(|&o| outs & (1 << o) != 0) {
                let next = match hop(&peers, src, dst, router, port)? {
                    None => Channel::Eject(dst),
                    Some(_) => Channel::Link { router, port },
                };
                let ni = chans.index(next);
                if !deps[ci].contains(&ni) {
                    deps[ci].push(ni);
                }
                todo.push((next, src));
            }
        }
    }
    Ok(())
}

/// Table count and order, entry contents (the part of (c) every walk needs).
fn check_tables(t: &Topology, tables: &[RouterTables]) -> Result<(), CheckError> {
    let shape = |what: String| CheckError::Shape {
        routers: t.routers(),
        what,
    };
    if tables.len() != t.routers() {
        return Err(shape(format!("got {} tables", tables.len())));
    }
    for (r, rt) in tables.iter().enumerate() {
        if rt.router != r {
            return Err(shape(format!("table {r} is for router {}", rt.router)));
        }
        if rt.inputs.len() > ROUTER_PORTS {
            return Err(shape(format!("router {r} has {} inputs", rt.inputs.len())));
        }
        for (input, table) in rt.inputs.iter().enumerate() {
            for (entry, iv) in table.iter().enumerate() {
                let bad = |what: String| CheckError::BadEntry {
                    router: r,
                    input,
                    entry,
                    what,
                };
                if iv.lo > iv.hi {
                    return Err(bad(format!("empty interval {}..={}", iv.lo, iv.hi)));
                }
                if usize::from(iv.port) >= ROUTER_PORTS {
                    return Err(bad(format!("port {} does not exist", iv.port)));
                }
            }
        }
    }
    Ok(())
}

/// Dense numbering of the channels: injections, ejections, then 8 ports per router.
struct Chans {
    n: usize,
}

impl Chans {
    fn count(&self, routers: usize) -> usize {
        2 * self.n + routers * ROUTER_PORTS
    }
    fn index(&self, c: Channel) -> usize {
        match c {
            Channel::Inject(n) => n,
            Channel::Eject(n) => self.n + n,
            Channel::Link { router, port } => 2 * self.n + router * ROUTER_PORTS + port,
        }
    }
    fn channel(&self, i: usize) -> Channel {
        if i < self.n {
            Channel::Inject(i)
        } else if i < 2 * self.n {
            Channel::Eject(i - self.n)
        } else {
            let j = i - 2 * self.n;
            Channel::Link {
                router: j / ROUTER_PORTS,
                port: j % ROUTER_PORTS,
            }
        }
    }
}

/// A cycle of the directed graph `adj`, if it has one (iterative depth-first search).
fn find_cycle(adj: &[Vec<usize>]) -> Option<Vec<usize>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnPath,
        Done,
    }
    let mut mark = vec![Mark::New; adj.len()];
    for root in 0..adj.len() {
        if mark[root] != Mark::New {
            continue;
        }
        // (vertex, index of its next edge to follow); the stack is the current path.
        let mut stack = vec![(root, 0usize)];
        mark[root] = Mark::OnPath;
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            if let Some(&w) = adj[v].get(*next) {
                *next += 1;
                match mark[w] {
                    Mark::OnPath => {
                        let from = stack.iter().position(|&(x, _)| x == w).expect("on path");
                        return Some(stack[from..].iter().map(|&(x, _)| x).collect());
                    }
                    Mark::New => {
                        mark[w] = Mark::OnPath;
                        stack.push((w, 0));
                    }
                    Mark::Done => {}
                }
            } else {
                mark[v] = Mark::Done;
                stack.pop();
            }
        }
    }
    None
}

#[cfg(test)]
mod bcast_tests {
    use super::*;
    use crate::NIC_PORT;

    fn all_kinds() -> Vec<Topology> {
        let mut v = vec![
            Topology::star(8).unwrap(),
            Topology::full(8).unwrap(),
            Topology::hypercube(6).unwrap(),
            Topology::hypercube(1).unwrap(),
        ];
        for n in [2, 3, 8, 16, 64] {
            v.push(Topology::ring(n).unwrap());
        }
        for (x, y) in [(2, 2), (4, 4), (8, 8), (3, 5), (1, 4)] {
            v.push(Topology::mesh(x, y).unwrap());
        }
        for (x, y) in [(2, 2), (4, 4), (8, 8), (3, 5), (2, 32)] {
            v.push(Topology::torus(x, y).unwrap());
        }
        v
    }

    #[test]
    fn every_kind_broadcasts_exactly_once_without_deadlock() {
        for t in all_kinds() {
            let tables = t.routing_tables().unwrap();
            let bc = t.bcast_tables().unwrap();
            let r = check_bcast(&t, &tables, &bc).unwrap_or_else(|e| panic!("{t}: {e}"));
            let n = t.nodes();
            assert_eq!(r.broadcasts, n * n * (n + 1) / 2, "{t}");
            assert!(r.max_depth <= t.routers(), "{t}");
        }
    }

    #[test]
    fn a_duplicating_table_is_rejected() {
        // Ring 8: node 0's router also sends its own broadcasts over the wrap link to 7,
        // which the line 0 -> 1 -> ... -> 7 reaches as well.
        let t = Topology::ring(8).unwrap();
        let tables = t.routing_tables().unwrap();
        let mut bc = t.bcast_tables().unwrap();
        bc[7].inputs[crate::PORT_EAST][NIC_PORT] = Some((7, 7));
        bc[0].inputs[NIC_PORT][crate::PORT_WEST] = Some((7, 7));
        let e = check_bcast(&t, &tables, &bc).unwrap_err();
        assert!(matches!(e, CheckError::BcastDelivery { .. }), "{e}");
    }

    #[test]
    fn a_missing_entry_is_a_missed_node() {
        let t = Topology::mesh(4, 4).unwrap();
        let tables = t.routing_tables().unwrap();
        let mut bc = t.bcast_tables().unwrap();
        bc[5].inputs[crate::PORT_WEST][NIC_PORT] = None;
        let e = check_bcast(&t, &tables, &bc).unwrap_err();
        assert!(
            matches!(
                e,
                CheckError::BcastDelivery {
                    node: 5,
                    got: 0,
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn a_tree_across_the_dateline_closes_a_cycle() {
        // Ring 8 with the line tree, plus: router 7 forwards eastbound broadcasts over the
        // wrap link to 0, and router 0 passes them on east. That both duplicates copies
        // and closes the dependency ring; the checker must refuse it (it reports the
        // first of the two it meets).
        let t = Topology::ring(8).unwrap();
        let tables = t.routing_tables().unwrap();
        let mut bc = t.bcast_tables().unwrap();
        bc[7].inputs[crate::PORT_WEST][crate::PORT_EAST] = Some((0, 0));
        bc[0].inputs[crate::PORT_WEST][crate::PORT_EAST] = Some((1, 1));
        let e = check_bcast(&t, &tables, &bc).unwrap_err();
        assert!(
            matches!(
                e,
                CheckError::BcastDelivery { .. } | CheckError::Deadlock { .. }
            ),
            "{e}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::shortest_path_tables;
    use crate::Interval;

    fn specs() -> Vec<String> {
        let mut v = Vec::new();
        v.extend((2..=16).map(|n| format!("ring:{n}")));
        v.extend(["ring:31", "ring:64"].map(String::from));
        for x in 2..=8 {
            for y in 2..=8 {
                v.push(format!("mesh:{x}x{y}"));
            }
        }
        v.extend(
            [
                "mesh:1x1",
                "mesh:1x8",
                "mesh:16x4",
                "mesh:4x16",
                "mesh:64x1",
            ]
            .map(String::from),
        );
        for x in 3..=8 {
            for y in 3..=8 {
                v.push(format!("torus:{x}x{y}"));
            }
        }
        v.extend(
            [
                "torus:2x2",
                "torus:2x5",
                "torus:16x4",
                "torus:4x16",
                "torus:2x32",
            ]
            .map(String::from),
        );
        v.extend((1..=6).map(|d| format!("hypercube:{d}")));
        v.extend((1..=8).map(|n| format!("full:{n}")));
        v.extend((1..=8).map(|n| format!("star:{n}")));
        v
    }

    #[test]
    fn every_kind_and_size_is_delivered_deadlock_free_and_fits() {
        for spec in specs() {
            let t: Topology = spec.parse().unwrap();
            let tables = t.routing_tables().unwrap_or_else(|e| panic!("{spec}: {e}"));
            let rep = check(&t, &tables).unwrap_or_else(|e| panic!("{spec}: {e}"));
            assert!(rep.max_entries <= ROUTE_ENTRIES, "{spec}");
            // The checker's walk agrees with the routing function's own hop count.
            for s in 0..t.nodes() {
                for d in 0..t.nodes() {
                    assert_eq!(rep.hops[s * t.nodes() + d], t.hops(s, d), "{spec} {s}->{d}");
                }
            }
            assert!((rep.mean_hops - t.mean_hops()).abs() < 1e-12, "{spec}");
            assert!(rep.mean_hops >= rep.mean_shortest_hops - 1e-12, "{spec}");
            if let Some(tp) = &rep.throughput {
                assert!(tp.saturation > 0.0 && tp.saturation <= 1.0, "{spec}");
                if let Some(f) = tp.bisection_fraction {
                    assert!(f > 0.0 && f <= 1.0 + 1e-12, "{spec} {tp:?}");
                }
            }
        }
    }

    /// Kinds without datelines route on shortest paths.
    #[test]
    fn mesh_hypercube_full_routes_are_shortest() {
        for spec in ["mesh:5x3", "mesh:8x8", "hypercube:6", "full:8", "star:5"] {
            let t: Topology = spec.parse().unwrap();
            let rep = check(&t, &t.routing_tables().unwrap()).unwrap();
            assert_eq!(rep.mean_hops, rep.mean_shortest_hops, "{spec}");
        }
    }

    #[test]
    fn shortest_path_ring_and_torus_are_reported_deadlock_prone() {
        for spec in ["ring:5", "ring:8", "torus:4x4"] {
            let t: Topology = spec.parse().unwrap();
            let bad = shortest_path_tables(&t);
            let Err(CheckError::Deadlock { cycle }) = check(&t, &bad) else {
                panic!("{spec}: the wrap-around cycle was not found");
            };
            // A real cycle: every channel is a link, and each one's far end is where
            // the next one leaves.
            assert!(cycle.len() >= 3, "{spec}: {cycle:?}");
            for (i, c) in cycle.iter().enumerate() {
                let next = cycle[(i + 1) % cycle.len()];
                let (Channel::Link { router, port }, Channel::Link { router: r2, .. }) = (*c, next)
                else {
                    panic!("{spec}: NIC channel in a cycle: {cycle:?}");
                };
                assert_eq!(t.peer(router, port).map(|p| p.0), Some(r2), "{spec}");
            }
            let msg = CheckError::Deadlock { cycle }.to_string();
            assert!(msg.contains("deadlock"), "{msg}");
        }
        // One hop per route: no dependency between links, shortest paths are fine.
        let t = Topology::full(8).unwrap();
        assert!(check(&t, &shortest_path_tables(&t)).is_ok());
    }

    #[test]
    fn broken_tables_are_reported() {
        let t = Topology::ring(6).unwrap();
        let good = t.routing_tables().unwrap();

        // A missing entry: 2 -> 4 passes node 3, whose west input has nothing for 4.
        let mut bad = good.clone();
        bad[3].inputs[crate::PORT_WEST].retain(|iv| !(iv.lo..=iv.hi).contains(&4));
        assert!(matches!(
            check(&t, &bad),
            Err(CheckError::Unroutable { router: 3, .. })
        ));

        // Delivered to the wrong NIC.
        let mut bad = good.clone();
        bad[2].inputs[0].insert(
            0,
            Interval {
                lo: 5,
                hi: 5,
                port: 0,
                amask: 0,
            },
        );
        assert_eq!(
            check(&t, &bad),
            Err(CheckError::Misdelivered {
                src: 2,
                dst: 5,
                got: 2
            })
        );

        // An unconnected port.
        let mut bad = good.clone();
        bad[1].inputs[0].insert(
            0,
            Interval {
                lo: 4,
                hi: 4,
                port: 6,
                amask: 0,
            },
        );
        assert!(matches!(
            check(&t, &bad),
            Err(CheckError::DeadEnd {
                router: 1,
                port: 6,
                ..
            })
        ));

        // Two routers bouncing a packet back and forth.
        let mut bad = good.clone();
        for r in [1, 2] {
            for table in &mut bad[r].inputs {
                table.insert(
                    0,
                    Interval {
                        lo: 3,
                        hi: 3,
                        port: if r == 1 { 1 } else { 2 },
                        amask: 0,
                    },
                );
            }
        }
        assert!(matches!(
            check(&t, &bad),
            Err(CheckError::Loop { dst: 3, .. })
        ));

        // Too many entries, an empty interval, a port that does not exist.
        let mut bad = good.clone();
        bad[0].inputs[5] = vec![
            Interval {
                lo: 9,
                hi: 9,
                port: 1,
                amask: 0,
            };
            ROUTE_ENTRIES + 1
        ];
        assert!(matches!(
            check(&t, &bad),
            Err(CheckError::TableTooLarge {
                router: 0,
                input: 5,
                entries: 9
            })
        ));
        let mut bad = good.clone();
        bad[0].inputs[5] = vec![Interval {
            lo: 9,
            hi: 8,
            port: 1,
            amask: 0,
        }];
        assert!(matches!(check(&t, &bad), Err(CheckError::BadEntry { .. })));
        let mut bad = good.clone();
        bad[0].inputs[5] = vec![Interval {
            lo: 9,
            hi: 9,
            port: 8,
            amask: 0,
        }];
        assert!(matches!(check(&t, &bad), Err(CheckError::BadEntry { .. })));
        assert!(matches!(
            check(&t, &good[1..]),
            Err(CheckError::Shape { .. })
        ));
    }

    #[test]
    fn cycle_finder() {
        assert_eq!(find_cycle(&[vec![1], vec![2], vec![]]), None);
        assert_eq!(find_cycle(&[vec![1, 2], vec![2], vec![]]), None);
        let c = find_cycle(&[vec![1], vec![2], vec![3], vec![1]]).unwrap();
        assert_eq!(c, vec![1, 2, 3]);
        assert_eq!(find_cycle(&[vec![0]]), Some(vec![0]));
    }

    /// The numbers behind the throughput table in docs/ARCHITECTURE.md.
    #[test]
    fn dateline_cost_against_the_bisection_bound() {
        let fraction = |spec: &str, shortest: bool| {
            let t: Topology = spec.parse().unwrap();
            let tables = if shortest {
                shortest_path_tables(&t)
            } else {
                t.routing_tables().unwrap()
            };
            let rep = analyze(&t, &tables).unwrap();
            let f = rep.throughput.unwrap().bisection_fraction.unwrap();
            (f * 1000.0).round() / 1000.0
        };
        // Dimension order on a mesh and e-cube reach the bisection bound (even sizes).
        for spec in ["mesh:4x4", "mesh:8x8", "mesh:16x4", "hypercube:6", "full:8"] {
            assert_eq!(fraction(spec, false), 1.0, "{spec}");
        }
        // Datelines: a little over half of the bisection bound on larger rings and tori,
        // where shortest paths (deadlock-prone without VCs) would reach 0.8-0.97.
        for (spec, dateline, shortest) in [
            ("ring:8", 0.615, 0.8),
            ("ring:16", 0.561, 0.889),
            ("ring:64", 0.516, 0.97),
            ("torus:4x4", 0.667, 0.667),
            ("torus:8x8", 0.615, 0.8),
        ] {
            assert_eq!(
                (fraction(spec, false), fraction(spec, true)),
                (dateline, shortest),
                "{spec}"
            );
        }
    }

    #[test]
    fn adaptive_tables_pass_the_union_check_and_adapt_where_they_can() {
        for spec in specs() {
            let t: Topology = spec.parse().unwrap();
            let det = t.routing_tables().unwrap();
            let ada = t.adaptive_tables().unwrap();
            let report = check(&t, &ada).unwrap_or_else(|e| panic!("{spec}: {e}"));
            // Primary routes are the deterministic ones: same path lengths.
            assert_eq!(report.hops, check(&t, &det).unwrap().hops, "{spec}");
            let alternatives = ada
                .iter()
                .flat_map(|rt| rt.inputs.iter().flatten())
                .filter(|iv| iv.amask != 0)
                .count();
            let two_d = match t.shape() {
                crate::Shape::Mesh { x, y } => x >= 2 && y >= 2,
                crate::Shape::Hypercube(d) => d >= 2,
                _ => false,
            };
            match t.kind() {
                crate::Kind::Mesh | crate::Kind::Hypercube if two_d => {
                    assert!(alternatives > 0, "{spec}: no adaptive entry");
                    assert!(report.dependencies > check(&t, &det).unwrap().dependencies);
                }
                crate::Kind::Ring | crate::Kind::Torus | crate::Kind::Star | crate::Kind::Full => {
                    assert_eq!(ada, det, "{spec}: deterministic kinds keep their tables")
                }
                _ => {}
            }
        }
    }

    /// Fully adaptive minimal routing (every productive direction) without virtual
    /// channels: the union closes turn cycles, and the checker must say so.
    #[test]
    fn fully_adaptive_union_is_rejected() {
        use crate::routing::{build, next_port};
        use crate::{PORT_EAST, PORT_NORTH, PORT_SOUTH, PORT_WEST};
        let mesh_all = |t: &Topology, r: usize, d: usize| -> u8 {
            let crate::Shape::Mesh { x, .. } = t.shape() else {
                unreachable!()
            };
            let (rx, ry, dx, dy) = (r % x, r / x, d % x, d / x);
            let mut m = 0u8;
            if t.attachment(d).router == r {
                return 0;
            }
            if dx > rx {
                m |= 1 << PORT_EAST;
            }
            if dx < rx {
                m |= 1 << PORT_WEST;
            }
            if dy > ry {
                m |= 1 << PORT_SOUTH;
            }
            if dy < ry {
                m |= 1 << PORT_NORTH;
            }
            m & !(1 << next_port(t, r, d))
        };
        for spec in ["mesh:3x3", "mesh:4x4"] {
            let t: Topology = spec.parse().unwrap();
            let tables = build(&t, mesh_all).unwrap();
            assert!(
                matches!(check(&t, &tables), Err(CheckError::Deadlock { .. })),
                "{spec}: fully adaptive mesh accepted"
            );
            // The same tables without their alternatives are Y then X again: accepted.
            let mut det = tables.clone();
            det.iter_mut()
                .flat_map(|rt| rt.inputs.iter_mut().flatten())
                .for_each(|iv| iv.amask = 0);
            check(&t, &det).unwrap();
        }
        let cube_all = |t: &Topology, r: usize, d: usize| -> u8 {
            (((r ^ d) << 1) & 0xFE) as u8 & !(1 << next_port(t, r, d))
        };
        let t = Topology::hypercube(3).unwrap();
        let tables = build(&t, cube_all).unwrap();
        assert!(matches!(
            check(&t, &tables),
            Err(CheckError::Deadlock { .. })
        ));
    }

    #[test]
    fn adaptive_alternative_to_a_wrong_nic_or_nowhere_is_rejected() {
        let t = Topology::mesh(3, 3).unwrap();
        let mut bad = t.adaptive_tables().unwrap();
        // Router 4 (centre), NIC input: node 0 is north-west; its entry may also eject.
        let e = bad[4].inputs[0].iter().position(|iv| iv.lo == 0).unwrap();
        bad[4].inputs[0][e].amask = 1 << crate::NIC_PORT;
        assert!(matches!(
            check(&t, &bad),
            Err(CheckError::Misdelivered { got: 4, .. })
        ));
        // Router 0 (corner) has no west link.
        let mut bad = t.adaptive_tables().unwrap();
        let e = bad[0].inputs[0]
            .iter()
            .position(|iv| iv.lo <= 8 && 8 <= iv.hi)
            .unwrap();
        bad[0].inputs[0][e].amask |= 1 << crate::PORT_WEST;
        assert!(matches!(check(&t, &bad), Err(CheckError::DeadEnd { .. })));
    }
}
