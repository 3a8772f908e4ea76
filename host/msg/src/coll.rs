//! Collectives as schedules of point-to-point steps: a list of phases, each a set of
//! sends and receives posted together; a phase starts when the previous one finished.
//! The endpoint advances them from `progress`, so they never block and several nodes
//! simulated in one thread make progress together.

use crate::Target;

/// How a broadcast (and the release half of a barrier) reaches every node.
///
/// The hook for hardware broadcast: when the router learns to copy a packet to several
/// outputs (issue 3), a `Hardware` variant plans one multicast put from the root into
/// every node's slot instead of the tree, and `Endpoint` picks it when the card says the
/// feature is there. Callers see the same `bcast`/`barrier` API either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BcastBackend {
    /// Binomial tree of unicasts: ceil(log2 N) rounds, each node sends at most that many.
    #[default]
    SoftwareTree,
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

/// Phases of a broadcast of `len` bytes at heap offset `off` from `root`, as node `me`.
pub(crate) fn bcast_plan(
    backend: BcastBackend,
    me: u16,
    root: u16,
    n: usize,
    tag: u32,
    (off, len): (usize, usize),
) -> Vec<Vec<Step>> {
    match backend {
        BcastBackend::SoftwareTree => {
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

/// Phases of a barrier: zero-byte notifications gathered up a binomial tree rooted at
/// node 0, then released down it. `up_tag` and `down_tag` keep the halves apart.
pub(crate) fn barrier_plan(me: u16, n: usize, up_tag: u32, down_tag: u32) -> Vec<Vec<Step>> {
    let (parent, children) = binomial(me as usize, n);
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
    fn relative_ranks_round_trip() {
        for root in 0..5u16 {
            for me in 0..5u16 {
                assert_eq!(abs(rel(me, root, 5), root, 5), me);
            }
        }
    }
}
