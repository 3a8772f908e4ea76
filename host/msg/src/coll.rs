//! Collectives as schedules of point-to-point steps: a list of phases, each a set of
//! sends and receives posted together; a phase starts when the previous one finished.
//! The endpoint advances them from `progress`, so they never block and several nodes
//! simulated in one thread make progress together.

use crate::Target;

/// How a broadcast (and the release half of a barrier) reaches every node. Callers see
/// the same `bcast`/`barrier` API either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BcastBackend {
    /// Binomial tree of unicasts: ceil(log2 N) rounds, each node sends at most that many.
    #[default]
    SoftwareTree,
    /// The routers' hardware broadcast (DESC_FLAG_BCAST): the root puts each piece of
    /// the message once, into its broadcast slot, at the same bus address on every node;
    /// a barrier is a gather to node 0 by unicast and a release by one broadcast.
    /// Requested, not promised: it needs every receive window at one bus address (the
    /// bootstrap table says so); otherwise the endpoint falls back to the tree
    /// ([`crate::Endpoint::bcast_backend`]). Only ask for it on a network that
    /// replicates broadcasts (VOQ routers with broadcast tables: the FIFO router drops
    /// them, and the broadcast then times out with a message saying so).
    Hardware,
}

/// One point-to-point operation of a schedule.
#[derive(Debug)]
pub(crate) enum Step {
    /// Send `len` bytes of the heap at `off` (`len` 0: a bare notification).
    Send {
        dest: u16,
        tag: u32,
        off: usize,
        len: usize,
    },
    /// Receive into `target`.
    Recv { src: u16, tag: u32, target: Target },
    /// Hardware broadcast of `len` bytes of the heap at `off` (at most `short_max`) to
    /// every other node, through this node's broadcast slots.
    Bcast { tag: u32, off: usize, len: usize },
}

/// A schedule in progress.
#[derive(Debug)]
pub(crate) struct Coll {
    /// Phases not yet started, in order (the next one first).
    pub(crate) phases: std::collections::VecDeque<Vec<Step>>,
    /// Sub-requests of the phase running now.
    pub(crate) pending: Vec<u64>,
    /// Reported in the collective's status.
    pub(crate) root: u16,
    /// Reported in the collective's status.
    pub(crate) len: usize,
    /// For timeout messages.
    pub(crate) what: &'static str,
}

/// Parent and children of relative rank `v` in a binomial tree over `n` ranks, children
/// farthest subtree first (it has the most work left to do).
pub(crate) fn binomial(v: usize, n: usize) -> (Option<usize>, Vec<usize>) {
    let mut mask = 1;
    let mut parent = None;
    while mask < n {
        if v & mask != 0 {
            parent = Some(v - mask);
            break;
        }
        mask <<= 1;
    }
    let mut children = Vec::new();
    let mut m = mask >> 1;
    while m > 0 {
        if v + m < n {
            children.push(v + m);
        }
        m >>= 1;
    }
    (parent, children)
}

/// Absolute node of relative rank `v` for `root`.
pub(crate) fn abs(v: usize, root: u16, n: usize) -> u16 {
    ((v + root as usize) % n) as u16
}

/// Relative rank of `me` for `root`.
pub(crate) fn rel(me: u16, root: u16, n: usize) -> usize {
    (me as usize + n - root as usize) % n
}

/// Whether a broadcast over `n` nodes goes by hardware broadcast when the backend is
/// `Hardware`. Not for two nodes: there the "tree" is one unicast, which carries up to
/// MTU bytes per packet, while broadcast packets carry at most 64 (64 KiB: 36.7 us
/// against 58.8 us; 4080 B: 3.7 against 4.7 us; 8 B: 656 against 664 ns). From 3 nodes
/// on the tree needs two rounds and the broadcast wins at every size measured
/// (docs/MESSAGING.md).
pub(crate) fn use_hardware(backend: BcastBackend, n: usize) -> bool {
    backend == BcastBackend::Hardware && n > 2
}

/// Phases of a broadcast of `len` bytes at heap offset `off` from `root`, as node `me`.
/// Hardware (from 3 nodes on): the root broadcasts the message in pieces of `chunk` bytes (a zero-byte
/// message is one empty piece); every other node receives the pieces, in order, from the
/// root with the collective's tag.
pub(crate) fn bcast_plan(
    backend: BcastBackend,
    me: u16,
    root: u16,
    n: usize,
    tag: u32,
    (off, len): (usize, usize),
    chunk: usize,
) -> Vec<Vec<Step>> {
    let pieces = || {
        let chunk = chunk.max(1);
        (0..len.div_ceil(chunk).max(1)).map(move |i| (i * chunk, chunk.min(len - i * chunk)))
    };
    if use_hardware(backend, n) {
        return if me == root {
            vec![pieces()
                .map(|(at, l)| Step::Bcast {
                    tag,
                    off: off + at,
                    len: l,
                })
                .collect()]
        } else {
            vec![pieces()
                .map(|(at, l)| Step::Recv {
                    src: root,
                    tag,
                    target: Target::Buf {
                        off: off + at,
                        cap: l,
                    },
                })
                .collect()]
        };
    }
    match backend {
        BcastBackend::SoftwareTree | BcastBackend::Hardware => {
            let (parent, children) = binomial(rel(me, root, n), n);
            let mut phases = Vec::new();
            if let Some(p) = parent {
                phases.push(vec![Step::Recv {
                    src: abs(p, root, n),
                    tag,
                    target: Target::Buf { off, cap: len },
                }]);
            }
            let sends: Vec<Step> = children
                .iter()
                .map(|&c| Step::Send {
                    dest: abs(c, root, n),
                    tag,
                    off,
                    len,
                })
                .collect();
            if !sends.is_empty() {
                phases.push(sends);
            }
            phases
        }
    }
}

/// Phases of a barrier. Software tree: zero-byte notifications gathered up a binomial
/// tree rooted at node 0, then released down it. Hardware (from 3 nodes on): every node
/// notifies node 0 directly, node 0 releases everyone with one zero-byte broadcast. `up_tag` and
/// `down_tag` keep the halves apart.
pub(crate) fn barrier_plan(
    backend: BcastBackend,
    me: u16,
    n: usize,
    up_tag: u32,
    down_tag: u32,
) -> Vec<Vec<Step>> {
    let recv = |src: usize, tag| Step::Recv {
        src: src as u16,
        tag,
        target: Target::Owned { cap: 0 },
    };
    let send = |dest: usize, tag| Step::Send {
        dest: dest as u16,
        tag,
        off: 0,
        len: 0,
    };
    if use_hardware(backend, n) {
        return if me == 0 {
            vec![
                (1..n).map(|c| recv(c, up_tag)).collect(),
                vec![Step::Bcast {
                    tag: down_tag,
                    off: 0,
                    len: 0,
                }],
            ]
        } else {
            vec![vec![send(0, up_tag)], vec![recv(0, down_tag)]]
        };
    }
    let (parent, children) = binomial(me as usize, n);
    let mut phases = Vec::new();
    if !children.is_empty() {
        phases.push(children.iter().map(|&c| recv(c, up_tag)).collect());
    }
    if let Some(p) = parent {
        phases.push(vec![send(p, up_tag)]);
        phases.push(vec![recv(p, down_tag)]);
    }
    if !children.is_empty() {
        phases.push(children.iter().map(|&c| send(c, down_tag)).collect());
    }
    phases
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomial_tree_covers_every_rank_once() {
        for n in 1..=70 {
            let mut seen = vec![0; n];
            seen[0] = 1;
            for v in 0..n {
                let (parent, children) = binomial(v, n);
                assert_eq!(parent.is_none(), v == 0, "n {n} v {v}");
                for c in children {
                    assert_eq!(binomial(c, n).0, Some(v), "n {n}: {c}'s parent");
                    seen[c] += 1;
                }
            }
            assert!(seen.iter().all(|&s| s == 1), "n {n}: {seen:?}");
        }
        assert_eq!(binomial(0, 8), (None, vec![4, 2, 1]));
        assert_eq!(binomial(6, 8), (Some(4), vec![7]));
        assert_eq!(binomial(4, 6), (Some(0), vec![5]));
    }

    #[test]
    fn hardware_plans_cut_the_message_and_keep_two_nodes_on_unicast() {
        let hw = BcastBackend::Hardware;
        let root = bcast_plan(hw, 2, 2, 5, 9, (128, 10_000), 4080);
        assert_eq!(root.len(), 1);
        let cut: Vec<(usize, usize)> = root[0]
            .iter()
            .map(|s| match s {
                Step::Bcast { off, len, tag: 9 } => (*off, *len),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(cut, [(128, 4080), (4208, 4080), (8288, 1840)]);
        let leaf = bcast_plan(hw, 0, 2, 5, 9, (64, 10_000), 4080);
        assert_eq!(leaf.len(), 1);
        assert!(leaf[0]
            .iter()
            .all(|s| matches!(s, Step::Recv { src: 2, tag: 9, .. })));
        assert_eq!(leaf[0].len(), 3);
        let empty = bcast_plan(hw, 1, 1, 3, 9, (0, 0), 4080);
        assert!(matches!(empty[0][..], [Step::Bcast { len: 0, .. }]));
        // Two nodes: one unicast.
        let two = bcast_plan(hw, 0, 0, 2, 9, (0, 8), 4080);
        assert!(matches!(
            two[0][..],
            [Step::Send {
                dest: 1,
                len: 8,
                ..
            }]
        ));
        assert!(use_hardware(hw, 3));
        assert!(!use_hardware(BcastBackend::SoftwareTree, 8));
        let b0 = barrier_plan(hw, 0, 4, 1, 2);
        assert_eq!(b0[0].len(), 3);
        assert!(matches!(b0[1][..], [Step::Bcast { tag: 2, len: 0, .. }]));
        let two = barrier_plan(hw, 1, 2, 1, 2);
        assert!(matches!(two[1][..], [Step::Recv { src: 0, tag: 2, .. }]));
        assert!(barrier_plan(hw, 0, 2, 1, 2)
            .iter()
            .flatten()
            .all(|s| !matches!(s, Step::Bcast { .. })));
        let b3 = barrier_plan(hw, 3, 4, 1, 2);
        assert!(matches!(
            b3[0][..],
            [Step::Send {
                dest: 0,
                tag: 1,
                ..
            }]
        ));
        assert!(matches!(b3[1][..], [Step::Recv { src: 0, tag: 2, .. }]));
    }

    #[test]
    fn relative_ranks_round_trip() {
        for root in 0..5u16 {
            for me in 0..5u16 {
                assert_eq!(abs(rel(me, root, 5), root, 5), me);
            }
        }
    }
}
