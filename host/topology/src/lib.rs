//! Network topologies of a FastHSL cluster and their routing tables.
//!
//! One description serves both sides: the simulator wires its router models from it,
//! and the driver computes from it the interval routing tables it programs into the
//! routers at start-up. There is no central switch: in the RCUBE topologies each node's
//! card carries its own router, and `star` is the two-node "through one router" setup.
//!
//! Port 0 of a router is its local NIC wherever the topology has one node per router.

use std::collections::VecDeque;
use std::fmt;
use std::str::FromStr;

/// Ports of one router (contract: ROUTER_PORTS).
pub const ROUTER_PORTS: usize = 8;
/// Interval entries per router input (contract: ROUTE_ENTRIES).
pub const ROUTE_ENTRIES: usize = 8;

/// Errors in a topology description.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TopologyError {
    /// The text is not `kind:N`.
    #[error("topology '{0}' is not of the form KIND:N (known kinds: star:N, full:N)")]
    Syntax(String),
    /// Unknown kind.
    #[error("unknown topology kind '{0}' (known kinds: star:N, full:N)")]
    UnknownKind(String),
    /// Node count outside what the kind supports.
    #[error("{kind} supports {min}..={max} nodes, not {nodes}")]
    NodeCount {
        kind: &'static str,
        nodes: usize,
        min: usize,
        max: usize,
    },
    /// A router would need more interval entries than the hardware has.
    #[error("router {router} input {port} needs {needed} routing intervals; the hardware has {ROUTE_ENTRIES}")]
    TableTooLarge {
        router: usize,
        port: usize,
        needed: usize,
    },
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

/// One interval routing entry: destinations `lo..=hi` leave through `port`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interval {
    /// Lowest destination.
    pub lo: u16,
    /// Highest destination.
    pub hi: u16,
    /// Output port.
    pub port: u8,
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
}

/// A cluster's network: nodes, routers, where each NIC attaches and the cables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topology {
    kind: Kind,
    nodes: usize,
    routers: usize,
    attach: Vec<Attachment>,
    links: Vec<Link>,
}

impl Topology {
    /// `nodes` NICs on one router.
    pub fn star(nodes: usize) -> Result<Self, TopologyError> {
        check_count("star", nodes, 1, ROUTER_PORTS)?;
        Ok(Topology {
            kind: Kind::Star,
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
        check_count("full", nodes, 1, ROUTER_PORTS)?;
        let mut links = Vec::new();
        for a in 0..nodes {
            for b in a + 1..nodes {
                links.push(Link {
                    a: (a, full_port(a, b)),
                    b: (b, full_port(b, a)),
                });
            }
        }
        Ok(Topology {
            kind: Kind::Full,
            nodes,
            routers: nodes,
            attach: (0..nodes)
                .map(|n| Attachment { router: n, port: 0 })
                .collect(),
            links,
        })
    }

    /// The kind of network.
    pub fn kind(&self) -> Kind {
        self.kind
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

    /// Shortest-path interval routing tables for every router (the same table on every
    /// input of a router: deterministic routing; later kinds may differ per input).
    pub fn routing_tables(&self) -> Result<Vec<RouterTables>, TopologyError> {
        let mut out = Vec::with_capacity(self.routers);
        for r in 0..self.routers {
            let ports = self.next_hop_ports(r);
            let intervals = compress(&ports);
            if intervals.len() > ROUTE_ENTRIES {
                return Err(TopologyError::TableTooLarge {
                    router: r,
                    port: 0,
                    needed: intervals.len(),
                });
            }
            out.push(RouterTables {
                router: r,
                inputs: vec![intervals; ROUTER_PORTS],
            });
        }
        Ok(out)
    }

    /// For router `r`, the output port toward every destination node (BFS over routers).
    fn next_hop_ports(&self, r: usize) -> Vec<u8> {
        // first_port[x] = port of r on a shortest path from r to router x.
        let mut first_port: Vec<Option<usize>> = vec![None; self.routers];
        let mut seen = vec![false; self.routers];
        let mut queue = VecDeque::new();
        seen[r] = true;
        queue.push_back(r);
        while let Some(x) = queue.pop_front() {
            let mut nbrs: Vec<(usize, usize, usize)> = Vec::new(); // (x's port, neighbour, neighbour port)
            for l in &self.links {
                if l.a.0 == x {
                    nbrs.push((l.a.1, l.b.0, l.b.1));
                }
                if l.b.0 == x {
                    nbrs.push((l.b.1, l.a.0, l.a.1));
                }
            }
            nbrs.sort();
            for (xport, y, _) in nbrs {
                if !seen[y] {
                    seen[y] = true;
                    first_port[y] = if x == r { Some(xport) } else { first_port[x] };
                    queue.push_back(y);
                }
            }
        }
        (0..self.nodes)
            .map(|n| {
                let a = self.attach[n];
                if a.router == r {
                    a.port as u8
                } else {
                    first_port[a.router].expect("topologies here are connected") as u8
                }
            })
            .collect()
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
) -> Result<(), TopologyError> {
    if (min..=max).contains(&nodes) {
        Ok(())
    } else {
        Err(TopologyError::NodeCount {
            kind,
            nodes,
            min,
            max,
        })
    }
}

/// Merges runs of consecutive destinations with the same port into intervals.
fn compress(ports: &[u8]) -> Vec<Interval> {
    let mut out: Vec<Interval> = Vec::new();
    for (d, &p) in ports.iter().enumerate() {
        match out.last_mut() {
            Some(last) if last.port == p && usize::from(last.hi) + 1 == d => last.hi = d as u16,
            _ => out.push(Interval {
                lo: d as u16,
                hi: d as u16,
                port: p,
            }),
        }
    }
    out
}

impl FromStr for Topology {
    type Err = TopologyError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (kind, n) = s
            .split_once(':')
            .ok_or_else(|| TopologyError::Syntax(s.to_string()))?;
        let n: usize = n
            .trim()
            .parse()
            .map_err(|_| TopologyError::Syntax(s.to_string()))?;
        match kind.trim() {
            "star" => Topology::star(n),
            "full" => Topology::full(n),
            other => Err(TopologyError::UnknownKind(other.to_string())),
        }
    }
}

impl fmt::Display for Topology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            Kind::Star => "star",
            Kind::Full => "full",
        };
        write!(f, "{kind}:{}", self.nodes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Follows the tables hop by hop and returns the (router, port) the packet leaves on
    /// toward a NIC, or None if it loops.
    fn deliver(
        t: &Topology,
        tables: &[RouterTables],
        src: usize,
        dest: usize,
    ) -> Option<Attachment> {
        let mut at = t.attachment(src);
        for _ in 0..=t.routers() {
            let table = &tables[at.router].inputs[at.port];
            let e = table
                .iter()
                .find(|i| (i.lo..=i.hi).contains(&(dest as u16)))?;
            let out = (at.router, usize::from(e.port));
            if let Some(n) = t
                .attachments()
                .iter()
                .position(|a| (a.router, a.port) == out)
            {
                return Some(t.attachment(n));
            }
            let l = t.links().iter().find(|l| l.a == out || l.b == out)?;
            let (r, p) = if l.a == out { l.b } else { l.a };
            at = Attachment { router: r, port: p };
        }
        None
    }

    #[test]
    fn every_pair_is_delivered_to_the_right_nic() {
        for spec in ["star:1", "star:2", "star:8", "full:2", "full:3", "full:8"] {
            let t: Topology = spec.parse().unwrap();
            let tables = t.routing_tables().unwrap();
            for s in 0..t.nodes() {
                for d in 0..t.nodes() {
                    assert_eq!(
                        deliver(&t, &tables, s, d),
                        Some(t.attachment(d)),
                        "{spec} {s}->{d}"
                    );
                }
            }
        }
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
    }

    #[test]
    fn managers() {
        let star = Topology::star(4).unwrap();
        assert_eq!(star.manager_of(0), 0);
        assert_eq!(star.managed_by(0), vec![0]);
        assert!(star.managed_by(1).is_empty());
        let full = Topology::full(3).unwrap();
        assert_eq!(full.managed_by(2), vec![2]);
    }

    #[test]
    fn bad_descriptions_are_rejected_clearly() {
        assert_eq!(
            "ring".parse::<Topology>(),
            Err(TopologyError::Syntax("ring".into()))
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
            "blob:2".parse::<Topology>(),
            Err(TopologyError::UnknownKind(_))
        ));
        assert_eq!(Topology::full(5).unwrap().to_string(), "full:5");
    }
}
