//! Network topologies of a FastHSL cluster and their routing tables.
//!
//! One description serves both sides: the simulator wires its router models from it,
//! and the driver computes from it the interval routing tables it programs into the
//! routers at start-up. There is no central switch: in the RCUBE topologies each node's
//! card carries its own router, and `star` is the "through one router" setup.
//!
//! Port 0 of a router is its local NIC wherever the topology has one node per router.
//!
//! The router has no virtual channels, so a wormhole network is deadlock-free only if
//! the channel dependency graph of its routing is acyclic. Every kind here routes by
//! destination with an order on its channels (see [`routing`] for the argument per
//! kind), and [`check()`] verifies the tables independently: delivery of every pair, an
//! acyclic dependency graph, and table sizes.

use std::collections::VecDeque;
use std::fmt;
use std::str::FromStr;

pub mod bcast;
pub mod check;
pub mod routing;

pub use bcast::{bcast_dest, BcastTables};
pub use check::{
    analyze, check, check_bcast, BcastReport, Channel, CheckError, CheckReport, Throughput,
};

/// Ports of one router (contract: ROUTER_PORTS).
pub const ROUTER_PORTS: usize = 8;
/// Interval entries per router input (contract: ROUTE_ENTRIES).
pub const ROUTE_ENTRIES: usize = 8;
/// Largest cluster any kind builds: the size the tables, the checker and the simulator
/// are verified at (node ids are 16 bits on the wire, so this is not a format limit).
pub const MAX_NODES: usize = 64;
/// Largest hypercube dimension: 6 links plus the NIC use 7 of the 8 ports, and 2^6 =
/// [`MAX_NODES`].
pub const MAX_HYPERCUBE_DIM: u32 = 6;

/// Router port of the local NIC in every kind with one node per router.
pub const NIC_PORT: usize = 0;
/// Ring, mesh and torus: port toward the next node (x + 1; ring: id + 1).
pub const PORT_EAST: usize = 1;
/// Ring, mesh and torus: port toward the previous node (x - 1; ring: id - 1).
pub const PORT_WEST: usize = 2;
/// Mesh and torus: port toward the next row (y + 1).
pub const PORT_SOUTH: usize = 3;
/// Mesh and torus: port toward the previous row (y - 1).
pub const PORT_NORTH: usize = 4;

const SYNTAX: &str = "star:N, full:N, ring:N, mesh:XxY, torus:XxY, hypercube:D";

/// Which routing tables the routers get ([`Topology::tables`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Routing {
    /// One route per destination ([`Topology::routing_tables`]): packets of a pair stay
    /// in order.
    #[default]
    Deterministic,
    /// The same routes plus deadlock-free alternatives ([`Topology::adaptive_tables`]),
    /// taken only by packets sent with DESC_FLAG_ADAPTIVE; those may overtake each other.
    Adaptive,
}

impl Routing {
    /// The name used on command lines and in results.
    pub fn name(self) -> &'static str {
        match self {
            Routing::Deterministic => "deterministic",
            Routing::Adaptive => "adaptive",
        }
    }
}

impl fmt::Display for Routing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A routing name that is neither `deterministic` nor `adaptive`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown routing '{0}' (known: deterministic, adaptive)")]
pub struct UnknownRouting(pub String);

impl FromStr for Routing {
    type Err = UnknownRouting;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "deterministic" => Ok(Routing::Deterministic),
            "adaptive" => Ok(Routing::Adaptive),
            _ => Err(UnknownRouting(s.into())),
        }
    }
}

/// Errors in a topology description.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TopologyError {
    /// The text is not `kind:size`.
    #[error("topology '{0}' is not of the form KIND:SIZE (known: {SYNTAX})")]
    Syntax(String),
    /// Unknown kind.
    #[error("unknown topology kind '{0}' (known: {SYNTAX})")]
    UnknownKind(String),
    /// Node count outside what the kind supports.
    #[error("{kind} supports {min}..={max} nodes, not {nodes}: {why}")]
    NodeCount {
        /// The kind asked for.
        kind: &'static str,
        /// Nodes asked for.
        nodes: usize,
        /// Smallest supported.
        min: usize,
        /// Largest supported.
        max: usize,
        /// Where the limit comes from.
        why: &'static str,
    },
    /// A size parameter other than the node count is out of range.
    #[error("{kind}: {what} must be in {min}..={max}, not {value}: {why}")]
    Dimension {
        /// The kind asked for.
        kind: &'static str,
        /// Which parameter.
        what: &'static str,
        /// Value asked for.
        value: usize,
        /// Smallest supported.
        min: usize,
        /// Largest supported.
        max: usize,
        /// Where the limit comes from.
        why: &'static str,
    },
    /// A router would need more interval entries than the hardware has.
    #[error("router {router} input {port} needs {needed} routing intervals; the hardware has {ROUTE_ENTRIES}")]
    TableTooLarge {
        /// Router index.
        router: usize,
        /// Input port.
        port: usize,
        /// Intervals it would need.
        needed: usize,
    },
    /// The broadcast trees cannot be expressed in the router's broadcast tables.
    #[error("broadcast tables: {0}")]
    Broadcast(String),
}

/// Where a node's NIC plugs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attachment {
    /// Router index.
    pub router: usize,
    /// Router port.
    pub port: usize,
}

/// A bidirectional cable between two router ports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    /// One end: (router, port).
    pub a: (usize, usize),
    /// Other end: (router, port).
    pub b: (usize, usize),
}

/// One interval routing entry: destinations `lo..=hi` leave through `port`; adaptive
/// packets (DESC_FLAG_ADAPTIVE) may also take any port of `amask` when `port` is busy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Interval {
    /// Lowest destination.
    pub lo: u16,
    /// Highest destination.
    pub hi: u16,
    /// Output port.
    pub port: u8,
    /// Adaptive alternatives, bit o = output o (route_ctrl.amask); 0: deterministic.
    pub amask: u8,
}

/// Routing tables of one router: `inputs[p]` is the table of input port `p`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouterTables {
    /// Router index.
    pub router: usize,
    /// Per input port, the intervals in match order.
    pub inputs: Vec<Vec<Interval>>,
}

/// The kinds of network this crate can describe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// N nodes on one router (N <= 8): the minimal "through one router" cluster.
    Star,
    /// N nodes, one router each, every router cabled to every other (N <= 8: seven
    /// neighbour ports plus the NIC). One hop between any two nodes, deadlock-free.
    Full,
    /// N nodes in a bidirectional ring; transit traffic never crosses node 0.
    Ring,
    /// X by Y grid, row-major ids, Y-then-X dimension-order routing.
    Mesh,
    /// X by Y grid with wrap-around links; dimension-order routing, each ring of the
    /// torus with its dateline at coordinate 0.
    Torus,
    /// 2^D nodes, links between ids differing in one bit, e-cube routing.
    Hypercube,
}

/// A kind with its size parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `star:N`.
    Star(usize),
    /// `full:N`.
    Full(usize),
    /// `ring:N`.
    Ring(usize),
    /// `mesh:XxY`: `x` columns, `y` rows.
    Mesh {
        /// Columns.
        x: usize,
        /// Rows.
        y: usize,
    },
    /// `torus:XxY`: `x` columns, `y` rows.
    Torus {
        /// Columns.
        x: usize,
        /// Rows.
        y: usize,
    },
    /// `hypercube:D`: 2^D nodes.
    Hypercube(u32),
}

impl Shape {
    /// The kind without its size.
    pub fn kind(self) -> Kind {
        match self {
            Shape::Star(_) => Kind::Star,
            Shape::Full(_) => Kind::Full,
            Shape::Ring(_) => Kind::Ring,
            Shape::Mesh { .. } => Kind::Mesh,
            Shape::Torus { .. } => Kind::Torus,
            Shape::Hypercube(_) => Kind::Hypercube,
        }
    }
}

/// A cluster's network: nodes, routers, where each NIC attaches and the cables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topology {
    shape: Shape,
    nodes: usize,
    routers: usize,
    attach: Vec<Attachment>,
    links: Vec<Link>,
}

impl Topology {
    /// `nodes` NICs on one router.
    pub fn star(nodes: usize) -> Result<Self, TopologyError> {
        check_count(
            "star",
            nodes,
            1,
            ROUTER_PORTS,
            "one router has 8 ports, one per NIC",
        )?;
        Ok(Topology {
            shape: Shape::Star(nodes),
            nodes,
            routers: 1,
            attach: (0..nodes)
                .map(|n| Attachment { router: 0, port: n })
                .collect(),
            links: Vec::new(),
        })
    }

    /// `nodes` nodes with a router each, fully connected.
    pub fn full(nodes: usize) -> Result<Self, TopologyError> {
        check_count(
            "full",
            nodes,
            1,
            ROUTER_PORTS,
            "each router needs a port per other node plus its NIC, 8 ports",
        )?;
        let mut links = Vec::new();
        for a in 0..nodes {
            for b in a + 1..nodes {
                links.push(Link {
                    a: (a, full_port(a, b)),
                    b: (b, full_port(b, a)),
                });
            }
        }
        Ok(Self::one_per_router(Shape::Full(nodes), nodes, links))
    }

    /// `nodes` nodes in a bidirectional ring: port [`PORT_EAST`] of node i is cabled to
    /// port [`PORT_WEST`] of node i+1 (mod N). `ring:2` has two parallel cables.
    pub fn ring(nodes: usize) -> Result<Self, TopologyError> {
        check_count(
            "ring",
            nodes,
            2,
            MAX_NODES,
            "a ring needs 2 nodes, and 64 is the largest verified cluster",
        )?;
        let links = (0..nodes)
            .map(|i| Link {
                a: (i, PORT_EAST),
                b: ((i + 1) % nodes, PORT_WEST),
            })
            .collect();
        Ok(Self::one_per_router(Shape::Ring(nodes), nodes, links))
    }

    /// An `x` by `y` grid (node id = row * x + column), 4 neighbour ports plus the NIC.
    pub fn mesh(x: usize, y: usize) -> Result<Self, TopologyError> {
        let nodes = grid_count("mesh", x, y, 1)?;
        let mut links = Vec::new();
        for r in 0..y {
            for c in 0..x {
                let id = r * x + c;
                if c + 1 < x {
                    links.push(Link {
                        a: (id, PORT_EAST),
                        b: (id + 1, PORT_WEST),
                    });
                }
                if r + 1 < y {
                    links.push(Link {
                        a: (id, PORT_SOUTH),
                        b: (id + x, PORT_NORTH),
                    });
                }
            }
        }
        Ok(Self::one_per_router(Shape::Mesh { x, y }, nodes, links))
    }

    /// An `x` by `y` torus: a mesh plus the wrap-around cable of every row and column.
    /// A dimension of 2 gets two parallel cables, as `ring:2`.
    pub fn torus(x: usize, y: usize) -> Result<Self, TopologyError> {
        let nodes = grid_count("torus", x, y, 2)?;
        let mut links = Vec::new();
        for r in 0..y {
            for c in 0..x {
                let id = r * x + c;
                links.push(Link {
                    a: (id, PORT_EAST),
                    b: (r * x + (c + 1) % x, PORT_WEST),
                });
                links.push(Link {
                    a: (id, PORT_SOUTH),
                    b: (((r + 1) % y) * x + c, PORT_NORTH),
                });
            }
        }
        Ok(Self::one_per_router(Shape::Torus { x, y }, nodes, links))
    }

    /// A `dim`-dimensional hypercube: 2^dim nodes, port d+1 crosses dimension d.
    pub fn hypercube(dim: u32) -> Result<Self, TopologyError> {
        if !(1..=MAX_HYPERCUBE_DIM).contains(&dim) {
            return Err(TopologyError::Dimension {
                kind: "hypercube",
                what: "dimension D",
                value: dim as usize,
                min: 1,
                max: MAX_HYPERCUBE_DIM as usize,
                why: "D links plus the NIC must fit 8 ports, and 2^6 = 64 is the largest verified cluster",
            });
        }
        let nodes = 1usize << dim;
        let mut links = Vec::new();
        for a in 0..nodes {
            for d in 0..dim as usize {
                let b = a ^ (1 << d);
                if a < b {
                    links.push(Link {
                        a: (a, d + 1),
                        b: (b, d + 1),
                    });
                }
            }
        }
        Ok(Self::one_per_router(Shape::Hypercube(dim), nodes, links))
    }

    fn one_per_router(shape: Shape, nodes: usize, links: Vec<Link>) -> Self {
        Topology {
            shape,
            nodes,
            routers: nodes,
            attach: (0..nodes)
                .map(|n| Attachment {
                    router: n,
                    port: NIC_PORT,
                })
                .collect(),
            links,
        }
    }

    /// The kind of network.
    pub fn kind(&self) -> Kind {
        self.shape.kind()
    }
    /// The kind with its size parameters.
    pub fn shape(&self) -> Shape {
        self.shape
    }
    /// Number of nodes (NICs); node ids are `0..nodes`.
    pub fn nodes(&self) -> usize {
        self.nodes
    }
    /// Number of routers.
    pub fn routers(&self) -> usize {
        self.routers
    }
    /// Where node `n`'s NIC plugs in.
    pub fn attachment(&self, node: usize) -> Attachment {
        self.attach[node]
    }
    /// All attachments, indexed by node id.
    pub fn attachments(&self) -> &[Attachment] {
        &self.attach
    }
    /// Router-to-router cables.
    pub fn links(&self) -> &[Link] {
        &self.links
    }
    /// The node whose card's BAR exposes router `r`'s configuration page: the node on
    /// the router's lowest attached port (each router here has at least one node).
    pub fn manager_of(&self, router: usize) -> usize {
        (0..self.nodes)
            .filter(|&n| self.attach[n].router == router)
            .min_by_key(|&n| self.attach[n].port)
            .expect("every router has a node")
    }
    /// Routers that node `n` programs (through its BAR's router page).
    pub fn managed_by(&self, node: usize) -> Vec<usize> {
        (0..self.routers)
            .filter(|&r| self.manager_of(r) == node)
            .collect()
    }

    /// What (router, port) is cabled to, if anything: the other end of a link.
    pub fn peer(&self, router: usize, port: usize) -> Option<(usize, usize)> {
        self.links.iter().find_map(|l| {
            if l.a == (router, port) {
                Some(l.b)
            } else if l.b == (router, port) {
                Some(l.a)
            } else {
                None
            }
        })
    }

    /// The node whose NIC is on (router, port), if any.
    pub fn nic_at(&self, router: usize, port: usize) -> Option<usize> {
        self.attach
            .iter()
            .position(|a| (a.router, a.port) == (router, port))
    }

    /// The deadlock-free interval routing tables of every router (see [`routing`]):
    /// per input, entries only for the destinations that can arrive on it, so a packet
    /// that could only get there by a forbidden turn is dropped and counted.
    pub fn routing_tables(&self) -> Result<Vec<RouterTables>, TopologyError> {
        routing::tables(self)
    }

    /// Tables for adaptive routing (see [`routing::adaptive_ports`]): the same primary
    /// ports as [`Self::routing_tables`], plus alternatives (`Interval::amask`) where the
    /// kind has a deadlock-free adaptive routing (mesh: west-last turn model; hypercube:
    /// a lower dimension may be taken first when it sets a bit) and as far as they fit
    /// in [`ROUTE_ENTRIES`]. Ring, torus, star and full stay deterministic.
    pub fn adaptive_tables(&self) -> Result<Vec<RouterTables>, TopologyError> {
        routing::adaptive_tables(self)
    }

    /// The tables of `routing`: [`Self::routing_tables`] or [`Self::adaptive_tables`].
    pub fn tables(&self, routing: Routing) -> Result<Vec<RouterTables>, TopologyError> {
        match routing {
            Routing::Deterministic => self.routing_tables(),
            Routing::Adaptive => self.adaptive_tables(),
        }
    }

    /// The broadcast tables of every router (see [`bcast`]): per input and output, the
    /// interval of nodes a broadcast arriving there reaches through that output.
    pub fn bcast_tables(&self) -> Result<Vec<BcastTables>, TopologyError> {
        bcast::tables(self)
    }

    /// Router-to-router hops of the route the tables give from `src` to `dst` (0 for
    /// two nodes on one router or a node to itself).
    ///
    /// # Panics
    /// If `src` or `dst` is not a node.
    pub fn hops(&self, src: usize, dst: usize) -> usize {
        routing::path(self, src, dst).len() - 1
    }

    /// Mean of [`Topology::hops`] over all ordered pairs of distinct nodes (0 for one node).
    pub fn mean_hops(&self) -> f64 {
        let n = self.nodes;
        if n < 2 {
            return 0.0;
        }
        let total: usize = (0..n)
            .flat_map(|s| (0..n).map(move |d| (s, d)))
            .filter(|(s, d)| s != d)
            .map(|(s, d)| self.hops(s, d))
            .sum();
        total as f64 / (n * (n - 1)) as f64
    }

    /// Router-to-router hops of a shortest path (graph distance), for comparing with
    /// [`Topology::hops`]: the difference is what deadlock avoidance costs in length.
    pub fn distance(&self, src: usize, dst: usize) -> usize {
        self.distances_from(self.attach[src].router)[self.attach[dst].router]
    }

    /// Router-to-router hops from router `from` to every router (breadth-first).
    pub(crate) fn distances_from(&self, from: usize) -> Vec<usize> {
        let mut adj = vec![Vec::new(); self.routers];
        for l in &self.links {
            adj[l.a.0].push(l.b.0);
            adj[l.b.0].push(l.a.0);
        }
        let mut dist = vec![usize::MAX; self.routers];
        dist[from] = 0;
        let mut queue = VecDeque::from([from]);
        while let Some(r) = queue.pop_front() {
            for &y in &adj[r] {
                if dist[y] == usize::MAX {
                    dist[y] = dist[r] + 1;
                    queue.push_back(y);
                }
            }
        }
        dist
    }

    /// Links across a balanced cut of the nodes (sizes floor(N/2) and ceil(N/2)), the
    /// smallest over the cuts this evaluates: the lower half of the node ids, and for
    /// mesh and torus also the left half of the columns (column-major order). For even
    /// sizes that is the minimum bisection: ring 2, mesh min(X, Y), torus 2 min(X, Y),
    /// hypercube 2^(D-1), full (N/2)^2. `None` with fewer than 2 routers: only the NIC
    /// ports limit a star.
    pub fn bisection_links(&self) -> Option<usize> {
        self.bisection_cut().map(|(links, _)| links)
    }

    /// The cut behind [`Topology::bisection_links`]: its link count and which nodes are
    /// on the first side.
    pub fn bisection_cut(&self) -> Option<(usize, Vec<bool>)> {
        if self.routers < 2 {
            return None;
        }
        let n = self.nodes;
        let mut cuts: Vec<Vec<bool>> = vec![(0..n).map(|i| i < n / 2).collect()];
        if let Shape::Mesh { x, y } | Shape::Torus { x, y } = self.shape {
            cuts.push((0..n).map(|i| (i % x) * y + i / x < n / 2).collect());
        }
        cuts.into_iter()
            .map(|side| {
                let router_side: Vec<bool> = (0..self.routers)
                    .map(|r| side[self.manager_of(r)])
                    .collect();
                let crossing = self
                    .links
                    .iter()
                    .filter(|l| router_side[l.a.0] != router_side[l.b.0])
                    .count();
                (crossing, side)
            })
            .min_by_key(|(c, _)| *c)
    }
}

/// Port of router `a` that faces router `b` in a full network: neighbours in id order on ports 1..
fn full_port(a: usize, b: usize) -> usize {
    if b < a {
        b + 1
    } else {
        b
    }
}

fn check_count(
    kind: &'static str,
    nodes: usize,
    min: usize,
    max: usize,
    why: &'static str,
) -> Result<(), TopologyError> {
    if (min..=max).contains(&nodes) {
        Ok(())
    } else {
        Err(TopologyError::NodeCount {
            kind,
            nodes,
            min,
            max,
            why,
        })
    }
}

/// Checks an X by Y grid's sizes; returns its node count.
fn grid_count(
    kind: &'static str,
    x: usize,
    y: usize,
    min_side: usize,
) -> Result<usize, TopologyError> {
    let why = if min_side > 1 {
        "a wrap-around ring needs 2 nodes per dimension (ring:N for one dimension)"
    } else {
        "each side needs a node"
    };
    for (what, v) in [("X", x), ("Y", y)] {
        if !(min_side..=MAX_NODES).contains(&v) {
            return Err(TopologyError::Dimension {
                kind,
                what,
                value: v,
                min: min_side,
                max: MAX_NODES,
                why,
            });
        }
    }
    let nodes = x * y;
    check_count(
        kind,
        nodes,
        min_side * min_side,
        MAX_NODES,
        "X*Y nodes; 4 neighbour ports plus the NIC fit 8 ports, and 64 is the largest verified cluster",
    )?;
    Ok(nodes)
}

impl FromStr for Topology {
    type Err = TopologyError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let syntax = || TopologyError::Syntax(s.to_string());
        let (kind, size) = s.split_once(':').ok_or_else(syntax)?;
        let size = size.trim();
        let number = |t: &str| t.trim().parse::<usize>().map_err(|_| syntax());
        let grid = || -> Result<(usize, usize), TopologyError> {
            let (a, b) = size
                .split_once(['x', 'X'])
                .ok_or_else(|| TopologyError::Syntax(s.to_string()))?;
            Ok((number(a)?, number(b)?))
        };
        match kind.trim() {
            "star" => Topology::star(number(size)?),
            "full" => Topology::full(number(size)?),
            "ring" => Topology::ring(number(size)?),
            "mesh" => grid().and_then(|(x, y)| Topology::mesh(x, y)),
            "torus" => grid().and_then(|(x, y)| Topology::torus(x, y)),
            "hypercube" => {
                let d = number(size)?;
                Topology::hypercube(u32::try_from(d).unwrap_or(u32::MAX))
            }
            other => Err(TopologyError::UnknownKind(other.to_string())),
        }
    }
}

impl fmt::Display for Topology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.shape {
            Shape::Star(n) => write!(f, "star:{n}"),
            Shape::Full(n) => write!(f, "full:{n}"),
            Shape::Ring(n) => write!(f, "ring:{n}"),
            Shape::Mesh { x, y } => write!(f, "mesh:{x}x{y}"),
            Shape::Torus { x, y } => write!(f, "torus:{x}x{y}"),
            Shape::Hypercube(d) => write!(f, "hypercube:{d}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routing_names_and_tables() {
        for r in [Routing::Deterministic, Routing::Adaptive] {
            assert_eq!(r.name().parse::<Routing>(), Ok(r));
        }
        assert_eq!(" Adaptive".parse::<Routing>(), Ok(Routing::Adaptive));
        assert!("west-first".parse::<Routing>().is_err());
        assert_eq!(Routing::default(), Routing::Deterministic);
        let t = Topology::mesh(4, 4).unwrap();
        assert_eq!(
            t.tables(Routing::Deterministic).unwrap(),
            t.routing_tables().unwrap()
        );
        let a = t.tables(Routing::Adaptive).unwrap();
        assert_eq!(a, t.adaptive_tables().unwrap());
        // Adaptive mesh tables do carry alternatives.
        assert!(a
            .iter()
            .flat_map(|r| &r.inputs)
            .flatten()
            .any(|i| i.amask != 0));
    }

    #[test]
    fn full_network_uses_one_hop_and_distinct_ports() {
        let t = Topology::full(8).unwrap();
        assert_eq!(t.links().len(), 28);
        for r in 0..8 {
            let mut ports: Vec<usize> = t
                .links()
                .iter()
                .flat_map(|l| [l.a, l.b])
                .filter(|&(x, _)| x == r)
                .map(|(_, p)| p)
                .collect();
            ports.sort();
            assert_eq!(ports, (1..8).collect::<Vec<_>>());
        }
        assert_eq!(t.mean_hops(), 1.0);
    }

    /// No router port is used twice, every link joins ports 1..7, and the degree is
    /// what the kind says.
    #[test]
    fn cabling_is_consistent() {
        for (spec, links, degree) in [
            ("ring:2", 2, 2),
            ("ring:7", 7, 2),
            ("mesh:3x2", 7, 3),
            ("mesh:1x5", 4, 2),
            ("torus:4x4", 32, 4),
            ("torus:2x3", 12, 4),
            ("hypercube:1", 1, 1),
            ("hypercube:6", 192, 6),
        ] {
            let t: Topology = spec.parse().unwrap();
            assert_eq!(t.links().len(), links, "{spec}");
            let mut used = vec![[0u32; ROUTER_PORTS]; t.routers()];
            for l in t.links() {
                for (r, p) in [l.a, l.b] {
                    assert!((1..ROUTER_PORTS).contains(&p), "{spec}");
                    used[r][p] += 1;
                }
            }
            for a in t.attachments() {
                used[a.router][a.port] += 1;
            }
            assert!(
                used.iter().flatten().all(|&u| u <= 1),
                "{spec}: port reused"
            );
            let max_deg = used
                .iter()
                .map(|ports| ports[1..].iter().sum::<u32>())
                .max()
                .unwrap();
            assert_eq!(max_deg, degree, "{spec}");
        }
    }

    #[test]
    fn grid_numbering_is_row_major() {
        let t = Topology::mesh(4, 3).unwrap();
        assert_eq!(t.nodes(), 12);
        assert_eq!(t.peer(5, PORT_EAST), Some((6, PORT_WEST)));
        assert_eq!(t.peer(5, PORT_SOUTH), Some((9, PORT_NORTH)));
        assert_eq!(t.peer(3, PORT_EAST), None, "mesh rows do not wrap");
        let t = Topology::torus(4, 3).unwrap();
        assert_eq!(t.peer(3, PORT_EAST), Some((0, PORT_WEST)));
        assert_eq!(t.peer(9, PORT_SOUTH), Some((1, PORT_NORTH)));
        let h = Topology::hypercube(3).unwrap();
        assert_eq!(h.peer(5, 2), Some((7, 2)), "bit 1 on port 2");
        assert_eq!(h.peer(5, 3), Some((1, 3)), "bit 2 on port 3");
    }

    #[test]
    fn managers() {
        let star = Topology::star(4).unwrap();
        assert_eq!(star.manager_of(0), 0);
        assert_eq!(star.managed_by(0), vec![0]);
        assert!(star.managed_by(1).is_empty());
        let full = Topology::full(3).unwrap();
        assert_eq!(full.managed_by(2), vec![2]);
        let cube = Topology::hypercube(6).unwrap();
        assert!((0..64).all(|n| cube.managed_by(n) == vec![n]));
    }

    #[test]
    fn bisection_of_each_kind() {
        for (spec, links) in [
            ("ring:8", 2),
            ("ring:7", 2),
            ("mesh:4x4", 4),
            ("mesh:8x2", 2),
            ("mesh:2x8", 2),
            ("torus:4x4", 8),
            ("torus:8x4", 8),
            ("torus:8x8", 16),
            ("hypercube:1", 1),
            ("hypercube:6", 32),
            ("full:8", 16),
            ("full:5", 6),
        ] {
            let t: Topology = spec.parse().unwrap();
            let (got, side) = t.bisection_cut().unwrap();
            assert_eq!(got, links, "{spec}");
            assert_eq!(side.iter().filter(|&&s| s).count(), t.nodes() / 2, "{spec}");
        }
        assert_eq!(Topology::star(8).unwrap().bisection_links(), None);
    }

    #[test]
    fn hops_and_distance() {
        let m = Topology::mesh(4, 4).unwrap();
        assert_eq!(m.hops(0, 15), 6);
        assert_eq!(m.distance(0, 15), 6);
        assert_eq!(m.hops(5, 5), 0);
        // Ring: 3 -> 5 on ring:6 is 2 hops east; 1 -> 5 would be 2 hops west through
        // node 0, which transit traffic may not cross, so it goes 4 hops east.
        let r = Topology::ring(6).unwrap();
        assert_eq!((r.hops(3, 5), r.distance(3, 5)), (2, 2));
        assert_eq!((r.hops(1, 5), r.distance(1, 5)), (4, 2));
        assert_eq!((r.hops(5, 0), r.hops(0, 5), r.hops(0, 3)), (1, 1, 3));
        let h = Topology::hypercube(6).unwrap();
        assert_eq!(h.hops(0, 63), 6);
        assert_eq!(h.mean_hops(), 6.0 * 32.0 / 63.0);
        assert_eq!(Topology::star(3).unwrap().hops(0, 2), 0);
    }

    #[test]
    fn parse_round_trips() {
        for spec in [
            "star:1",
            "full:8",
            "ring:64",
            "mesh:8x8",
            "mesh:1x1",
            "torus:16x4",
            "torus:2x2",
            "hypercube:6",
        ] {
            let t: Topology = spec.parse().unwrap();
            assert_eq!(t.to_string(), spec);
        }
        assert_eq!(
            "torus:4X4".parse::<Topology>().unwrap(),
            Topology::torus(4, 4).unwrap()
        );
        assert_eq!(Topology::full(5).unwrap().to_string(), "full:5");
        assert_eq!(Topology::torus(4, 4).unwrap().kind(), Kind::Torus);
    }

    #[test]
    fn bad_descriptions_are_rejected_clearly() {
        assert_eq!(
            "ring".parse::<Topology>(),
            Err(TopologyError::Syntax("ring".into()))
        );
        assert_eq!(
            "mesh:4".parse::<Topology>(),
            Err(TopologyError::Syntax("mesh:4".into()))
        );
        assert_eq!(
            "ring:4x4".parse::<Topology>(),
            Err(TopologyError::Syntax("ring:4x4".into()))
        );
        assert!(matches!(
            "full:9".parse::<Topology>(),
            Err(TopologyError::NodeCount { nodes: 9, .. })
        ));
        assert!(matches!(
            "star:0".parse::<Topology>(),
            Err(TopologyError::NodeCount { .. })
        ));
        assert!(matches!(
            "ring:65".parse::<Topology>(),
            Err(TopologyError::NodeCount {
                nodes: 65,
                max: 64,
                ..
            })
        ));
        assert!(matches!(
            "ring:1".parse::<Topology>(),
            Err(TopologyError::NodeCount { min: 2, .. })
        ));
        assert!(matches!(
            "mesh:9x8".parse::<Topology>(),
            Err(TopologyError::NodeCount { nodes: 72, .. })
        ));
        assert!(matches!(
            "torus:1x8".parse::<Topology>(),
            Err(TopologyError::Dimension {
                what: "X",
                value: 1,
                ..
            })
        ));
        assert!(matches!(
            "mesh:0x3".parse::<Topology>(),
            Err(TopologyError::Dimension { what: "X", .. })
        ));
        assert!(matches!(
            "hypercube:7".parse::<Topology>(),
            Err(TopologyError::Dimension {
                value: 7,
                max: 6,
                ..
            })
        ));
        assert!(matches!(
            "hypercube:99999999999".parse::<Topology>(),
            Err(TopologyError::Dimension { .. })
        ));
        assert!(matches!(
            "blob:2".parse::<Topology>(),
            Err(TopologyError::UnknownKind(_))
        ));
        let msg = "torus:1x8".parse::<Topology>().unwrap_err().to_string();
        assert!(msg.contains("2 nodes per dimension"), "{msg}");
        let msg = "hypercube:7".parse::<Topology>().unwrap_err().to_string();
        assert!(msg.contains("8 ports"), "{msg}");
        let msg = "blob:2".parse::<Topology>().unwrap_err().to_string();
        assert!(msg.contains("torus:XxY"), "{msg}");
    }
}
