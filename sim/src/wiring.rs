//! How a network's routers are cabled to each other and to their terminals (the NIC
//! models of a cluster, the traffic generators of the router bench), and the per-cycle
//! copy of last cycle's outputs into every router's inputs. Both simulators wire a
//! topology through here, so a link behaves the same in the cluster and in the bench.

use fasthsl_topology::Topology;

use crate::ffi::{RouterIn, RouterOut};

/// What a router port is cabled to.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Peer {
    /// The terminal of node n (its NIC, or its traffic generator).
    Terminal(usize),
    /// Port p2 of router r2.
    Router(usize, usize),
}

/// Per router, its cabled ports in port order with what each is cabled to.
pub(crate) type Peers = Vec<Vec<(usize, Peer)>>;

/// The topology's cabling: the peers of every router, and every node's (router, port).
pub(crate) fn cabling(t: &Topology) -> (Peers, Vec<(usize, usize)>) {
    let mut peers: Peers = vec![Vec::new(); t.routers()];
    let mut attach = Vec::with_capacity(t.nodes());
    for n in 0..t.nodes() {
        let a = t.attachment(n);
        peers[a.router].push((a.port, Peer::Terminal(n)));
        attach.push((a.router, a.port));
    }
    for l in t.links() {
        peers[l.a.0].push((l.a.1, Peer::Router(l.b.0, l.b.1)));
        peers[l.b.0].push((l.b.1, Peer::Router(l.a.0, l.a.1)));
    }
    for p in &mut peers {
        p.sort_by_key(|&(port, _)| port);
    }
    (peers, attach)
}

/// What a terminal drove toward its router port last cycle.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TerminalOut {
    pub valid: bool,
    pub last: bool,
    pub err: bool,
    /// The credit it returns for the router's output toward it.
    pub credit: bool,
    pub data: u64,
}

/// Sets one router's link inputs from what its peers drove last cycle (one cycle of
/// wire): `routers` are the routers' last outputs, `terminal(n)` node n's.
pub(crate) fn gather_inputs(
    ri: &mut RouterIn,
    ports: &[(usize, Peer)],
    routers: &[RouterOut],
    terminal: impl Fn(usize) -> TerminalOut,
) {
    let (mut v, mut l, mut e, mut c) = (0u8, 0u8, 0u8, 0u8);
    for &(p, peer) in ports {
        match peer {
            Peer::Terminal(n) => {
                let o = terminal(n);
                v |= u8::from(o.valid) << p;
                l |= u8::from(o.last) << p;
                e |= u8::from(o.err) << p;
                c |= u8::from(o.credit) << p;
                ri.in_data[p] = o.data;
            }
            Peer::Router(r2, p2) => {
                let o = &routers[r2];
                v |= ((o.out_valid >> p2) & 1) << p;
                l |= ((o.out_last >> p2) & 1) << p;
                e |= ((o.out_err >> p2) & 1) << p;
                c |= ((o.in_credit >> p2) & 1) << p;
                ri.in_data[p] = o.out_data[p2];
            }
        }
    }
    ri.in_valid = v;
    ri.in_last = l;
    ri.in_err = e;
    ri.out_credit = c;
}
