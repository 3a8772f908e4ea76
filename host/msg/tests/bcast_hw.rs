//! The message layer's broadcast and barrier on the routers' hardware broadcast, and its
//! fallback to the software tree, on the Verilated cluster.

mod common;

use common::*;
use fasthsl_driver::contract::{desc_flag, router_regs as rt, ROUTER_CSR_BASE, ROUTER_PORTS};
use fasthsl_driver::{Device, PutPath};
use fasthsl_msg::layout::{Header, Kind};
use fasthsl_msg::{BcastBackend, Endpoint, MsgConfig, MsgError};
use fasthsl_sim::SimConfig;
use fasthsl_topology::bcast_dest;

fn hw() -> MsgConfig {
    MsgConfig {
        bcast: BcastBackend::Hardware,
        ..MsgConfig::default()
    }
}

/// One broadcast of `len` random bytes from `root`, every node's buffer checked.
fn bcast_once(w: &mut World, rng: &mut Rng, root: u16, len: usize) {
    let data = rng.bytes(len);
    let mut reqs = vec![];
    let mut bufs = vec![];
    for (i, ep) in w.eps.iter_mut().enumerate() {
        let b = ep.alloc(len).unwrap();
        if i == usize::from(root) {
            ep.write(&b, 0, &data).unwrap();
        } else {
            ep.write(&b, 0, &vec![0xA5; len]).unwrap();
        }
        reqs.push((i, ep.ibcast(root, &b, len).unwrap()));
        bufs.push(b);
    }
    let st = w.wait_ok(reqs);
    assert!(
        st.iter()
            .all(|s| s.src == root && s.len == len && !s.truncated),
        "{st:?}"
    );
    for (i, b) in bufs.into_iter().enumerate() {
        let mut got = vec![0u8; len];
        w.eps[i].read(&b, 0, &mut got).unwrap();
        assert!(got == data, "bcast from {root}, {len} B: node {i} differs");
        w.eps[i].free(b);
    }
}

/// A barrier holds everyone until the last node enters (first the highest node last,
/// then node 0, the gathering node, last).
fn barrier_holds(w: &mut World) {
    let n = w.eps.len();
    for last in [n - 1, 0] {
        let mut reqs = vec![];
        for i in (0..n).filter(|&i| i != last) {
            reqs.push((i, w.eps[i].ibarrier().unwrap()));
        }
        w.run_for(30_000);
        for (i, r) in &reqs {
            assert_eq!(w.eps[*i].test(r).unwrap(), None, "node {i} left early");
        }
        reqs.push((last, w.eps[last].ibarrier().unwrap()));
        w.wait_ok(reqs);
    }
}

fn hardware_bcast_and_barrier(spec: &str) {
    let mut w = world_shared(spec, hw(), 2 << 20);
    let n = w.eps.len();
    let k = w.eps[0].config().bcast_slots as usize;
    assert!(w
        .eps
        .iter()
        .all(|e| e.bcast_backend() == BcastBackend::Hardware));
    let mut rng = Rng::new(n as u64 + 100);
    // Around the piece size (short_max = 4080): one piece, one byte more, several.
    for (root, len) in [
        (0u16, 8usize),
        ((n - 1) as u16, 0),
        (1, 48),
        (0, 4080),
        ((n - 1) as u16, 4081),
        (1, 20_000),
    ] {
        bcast_once(&mut w, &mut rng, root, len);
    }
    // More broadcasts from one root than it has slots, from two roots, with unicast
    // traffic from the root in between: every slot is reused, after its credits came back.
    for root in [0u16, (n - 1) as u16] {
        for i in 0..2 * k + 3 {
            bcast_once(&mut w, &mut rng, root, 1 + (i * 7) % 60);
            let dest = (usize::from(root) + 1 + i % (n - 1)) % n;
            let msg = rng.bytes(24);
            let s = w.eps[usize::from(root)]
                .isend(dest as u16, 5, &msg)
                .unwrap();
            let b = w.eps[dest].alloc(24).unwrap();
            let r = w.eps[dest].irecv(root, 5, &b).unwrap();
            w.wait_ok(vec![(usize::from(root), s), (dest, r)]);
            let mut got = [0u8; 24];
            w.eps[dest].read(&b, 0, &mut got).unwrap();
            assert_eq!(&got[..], &msg[..]);
            w.eps[dest].free(b);
        }
    }
    barrier_holds(&mut w);
    // More barriers than node 0 has broadcast slots: each releases with a broadcast.
    for _ in 0..2 * k + 3 {
        let reqs = (0..n).map(|i| (i, w.eps[i].ibarrier().unwrap())).collect();
        w.wait_ok(reqs);
    }
    // From 3 nodes on every broadcast and barrier release went by hardware, and the roots
    // got broadcast credits back. On two nodes a broadcast (or a release) is one unicast,
    // faster than a broadcast put there.
    let sent: u64 = w.eps.iter().map(|e| e.stats().bcast_sent).sum();
    let recv: u64 = w.eps.iter().map(|e| e.stats().bcast_recv).sum();
    // 8, 0, 48, 4080 B: one piece each; 4081 B: two; 20000 B: five; then the barriers.
    let expected = 11 + 2 * (2 * k as u64 + 3) + 2 + 2 * k as u64 + 3;
    if n == 2 {
        assert_eq!((sent, recv), (0, 0));
        assert!(w.eps[0].stats().short_sent >= 6 + 4 * k as u64);
    } else {
        assert_eq!(sent, expected, "hardware broadcast puts");
        assert_eq!(
            recv,
            sent * (n as u64 - 1),
            "each reaches every other node once"
        );
        let credits: u64 = w.eps.iter().map(|e| e.stats().bcast_credit_msgs).sum();
        assert!(credits >= (n as u64 - 1) * 4, "credits returned: {credits}");
    }
    w.assert_clean();
}

#[test]
fn hardware_bcast_and_barrier_two_nodes() {
    hardware_bcast_and_barrier("hypercube:1");
}

#[test]
fn hardware_bcast_and_barrier_three_nodes() {
    hardware_bcast_and_barrier("full:3");
}

#[test]
fn hardware_bcast_and_barrier_eight_nodes() {
    hardware_bcast_and_barrier("hypercube:3");
}

/// Receive windows at different bus addresses: one broadcast put cannot land in all of
/// them, so the endpoints fall back to the tree, with the same API and results.
#[test]
fn windows_at_different_addresses_fall_back_to_the_tree() {
    let mut w = world_with("hypercube:2", hw(), 2 << 20);
    assert!(w
        .eps
        .iter()
        .all(|e| e.bcast_backend() == BcastBackend::SoftwareTree));
    let mut rng = Rng::new(7);
    for (root, len) in [(0u16, 8usize), (3, 20_000), (2, 0)] {
        bcast_once(&mut w, &mut rng, root, len);
    }
    barrier_holds(&mut w);
    assert!(w.eps.iter().all(|e| e.stats().bcast_sent == 0));
    assert!(w.eps.iter().all(|e| e.stats().bcast_recv == 0));
    w.assert_clean();
}

/// The slot reuse rule: a root writes broadcast slot `i mod K` again only once every
/// receiver has consumed broadcast `i`. Receivers that do not run hold the root at K
/// broadcasts; once they run, all broadcasts arrive, in order.
#[test]
fn a_root_waits_for_every_receiver_before_reusing_a_slot() {
    let cfg = MsgConfig {
        bcast_slots: 4,
        ..hw()
    };
    let mut w = world_shared("full:3", cfg, 2 << 20);
    w.run_for(5_000);
    let count = 11;
    let mut rng = Rng::new(3);
    let data: Vec<Vec<u8>> = (0..count).map(|_| rng.bytes(16)).collect();
    let mut root_reqs = vec![];
    for d in &data {
        let b = w.eps[0].alloc(16).unwrap();
        w.eps[0].write(&b, 0, d).unwrap();
        root_reqs.push((0, w.eps[0].ibcast(0, &b, 16).unwrap()));
    }
    // Only the root runs: receivers' cards store broadcasts, their layers consume none.
    for _ in 0..20_000 {
        w.eps[0].progress().unwrap();
        w.cluster.step(1);
    }
    let s = w.eps[0].stats();
    assert_eq!(s.bcast_sent, 4, "{s:?}");
    assert!(s.bcast_stalls >= 1, "{s:?}");
    // A blocking wait on a stalled piece names the receivers holding it.
    let e = w.eps[0].wait_for(&root_reqs[5].1, 10_000).unwrap_err();
    assert!(
        matches!(&e, MsgError::Timeout { what, .. } if what.contains("[1, 2]") && what.contains("broadcast slots")),
        "{e}"
    );
    let mut reqs = root_reqs;
    let mut bufs = vec![];
    for n in 1..3 {
        for _ in 0..count {
            let b = w.eps[n].alloc(16).unwrap();
            reqs.push((n, w.eps[n].ibcast(0, &b, 16).unwrap()));
            bufs.push((n, b));
        }
    }
    w.wait_ok(reqs);
    for (i, (n, b)) in bufs.iter().enumerate() {
        let mut got = [0u8; 16];
        w.eps[*n].read(b, 0, &mut got).unwrap();
        assert_eq!(
            &got[..],
            &data[i % count][..],
            "node {n}, broadcast {}",
            i % count
        );
    }
    assert_eq!(w.eps[0].stats().bcast_sent, count as u64);
    assert!(w.eps[1].stats().bcast_credit_msgs >= 2);
    w.assert_clean();
}

/// A network that does not replicate broadcasts (here: broadcast tables cleared, as on
/// the FIFO router, which drops them) while the layer is told it does: the receivers'
/// broadcast and everyone's barrier time out saying what is missing.
#[test]
fn dropped_hardware_broadcasts_time_out_with_a_clear_error() {
    let cfg = MsgConfig {
        timeout_ns: 40_000,
        ..hw()
    };
    let mut w = world_shared("full:3", cfg, 1 << 20);
    for ep in &w.eps {
        for p in 0..ROUTER_PORTS as u32 {
            ep.card()
                .device()
                .bar_write32(
                    ROUTER_CSR_BASE as u32 + rt::RT_BC_MASK + p * rt::RT_BC_MASK_STRIDE,
                    0,
                )
                .unwrap();
        }
    }
    w.run_for(5_000);
    let bufs: Vec<_> = w.eps.iter_mut().map(|e| e.alloc(8).unwrap()).collect();
    // The root's part finishes (a broadcast is not acknowledged) ...
    w.eps[0].bcast(0, &bufs[0], 8).unwrap();
    // ... the receivers' does not.
    let e = w.eps[1].bcast(0, &bufs[1], 8).unwrap_err();
    assert!(
        matches!(&e, MsgError::Timeout { what, .. }
            if what.contains("a broadcast") && what.contains("replicate broadcasts")),
        "{e}"
    );
    let drops: u32 = w
        .eps
        .iter()
        .map(|e| e.card().router_state().unwrap().drop.iter().sum::<u32>())
        .sum();
    assert!(drops >= 1, "the routers counted the dropped broadcast");
}

/// Writes into broadcast slots that are not the root's next broadcast are counted and
/// skipped; a well-formed one from a raw card is delivered.
#[test]
fn stray_broadcast_slot_writes_are_counted_and_skipped() {
    let sim = SimConfig {
        shared_iova: true,
        ..SimConfig::default()
    };
    let (cluster, mut cs) = cards_on("full:3", 1 << 20, sim);
    let boot = boot(&cs);
    let mut raw = cs.pop().unwrap();
    let c1 = cs.pop().unwrap();
    let c0 = cs.pop().unwrap();
    let mut e0 = Endpoint::new(c0, &boot, hw()).unwrap();
    let mut e1 = Endpoint::new(c1, &boot, hw()).unwrap();
    let l = *e0.layout();
    let base = e0.card().rx_iova().unwrap();
    let src = raw.device().dma_alloc(4096).unwrap();
    let hdr = |seq: u32, len: u32| Header {
        kind: Kind::Bcast,
        seq,
        tag: 0x8000_0077,
        len,
        ack: 0,
        sreq: 0,
        addr: 0,
    };
    let mut put = |h: Header, dest: u16, flags: u16, to: usize| {
        let mut b = h.to_bytes();
        b.extend_from_slice(&[9u8; 4]);
        raw.device().mem_write(&src, 0, &b).unwrap();
        // The raw card plays node 2, a member of the bootstrap table: it holds the keys.
        let key = if flags & desc_flag::BCAST != 0 {
            boot.bcast_key()
        } else {
            boot.key(dest).unwrap()
        };
        let t = raw
            .put_keyed(
                PutPath::Auto,
                dest,
                &src,
                0,
                base + to as u64,
                key,
                b.len(),
                flags,
            )
            .unwrap();
        raw.wait_completion(&t, 1_000_000).unwrap();
    };
    let all = bcast_dest(0, 2);
    // Unicast (not a broadcast) into node 2's broadcast slot at node 0.
    put(hdr(0, 4), 0, 0, l.bslot_off(2, 0));
    // A broadcast from node 2 into node 1's broadcast slots.
    put(hdr(0, 4), all, desc_flag::BCAST, l.bslot_off(1, 0));
    // Node 2's slot 0, but numbered 5.
    put(hdr(5, 4), all, desc_flag::BCAST, l.bslot_off(2, 0));
    // Longer than a slot holds.
    put(hdr(0, 1 << 20), all, desc_flag::BCAST, l.bslot_off(2, 0));
    for _ in 0..3000 {
        e0.progress().unwrap();
        e1.progress().unwrap();
        cluster.step(1);
    }
    assert_eq!(e0.stats().protocol_errors, 4, "{:?}", e0.stats());
    assert_eq!(e1.stats().protocol_errors, 3, "{:?}", e1.stats());
    assert_eq!(e0.unexpected_len() + e1.unexpected_len(), 0);
    // The real broadcast 0 is delivered (as an unexpected collective message).
    put(hdr(0, 4), all, desc_flag::BCAST, l.bslot_off(2, 0));
    for _ in 0..3000 {
        e0.progress().unwrap();
        e1.progress().unwrap();
        cluster.step(1);
    }
    assert_eq!((e0.unexpected_len(), e1.unexpected_len()), (1, 1));
    assert_eq!((e0.stats().bcast_recv, e1.stats().bcast_recv), (1, 1));
    assert_eq!(cluster.iommu_fault_count(), 0);
}

/// Nothing orders a root's broadcasts on the way: a receiver that sees broadcast 2 before
/// 0 and 1 keeps it in its slot and delivers 0, 1, 2 in order. A raw card plays the root
/// and sends them out of order; pieces of 4 bytes make one 12-byte broadcast of three.
#[test]
fn broadcasts_seen_out_of_order_are_consumed_in_sequence() {
    let sim = SimConfig {
        shared_iova: true,
        ..SimConfig::default()
    };
    let (cluster, mut cs) = cards_on("full:3", 1 << 20, sim);
    let boot = boot(&cs);
    let mut raw = cs.pop().unwrap();
    let cfg = MsgConfig {
        short_max: 4,
        ..hw()
    };
    let mut eps: Vec<_> = cs
        .into_iter()
        .map(|c| Endpoint::new(c, &boot, cfg.clone()).unwrap())
        .collect();
    let l = *eps[0].layout();
    let base = eps[0].card().rx_iova().unwrap();
    let src = raw.device().dma_alloc(4096).unwrap();
    let run = |eps: &mut Vec<Endpoint<_>>| {
        for _ in 0..3000 {
            for e in eps.iter_mut() {
                e.progress().unwrap();
            }
            cluster.step(1);
        }
    };
    let tag = 0x8000_0000; // the first collective's tag
    for (n, seq) in [2u32, 0, 1].into_iter().enumerate() {
        let h = Header {
            kind: Kind::Bcast,
            seq,
            tag,
            len: 4,
            ack: 0,
            sreq: 0,
            addr: 0,
        };
        let mut b = h.to_bytes();
        b.extend_from_slice(&[seq as u8; 4]);
        raw.device().mem_write(&src, 0, &b).unwrap();
        let to = base + l.bslot_off(2, seq) as u64;
        let t = raw
            .put_keyed(
                PutPath::Auto,
                bcast_dest(0, 2),
                &src,
                0,
                to,
                boot.bcast_key(),
                b.len(),
                desc_flag::BCAST,
            )
            .unwrap();
        raw.wait_completion(&t, 1_000_000).unwrap();
        run(&mut eps);
        let delivered = [0, 1, 3][n];
        for e in &eps {
            assert_eq!(e.stats().bcast_recv, delivered, "after seq {seq}");
        }
    }
    for e in &mut eps {
        let b = e.alloc(12).unwrap();
        e.bcast(2, &b, 12).unwrap();
        let mut got = [0u8; 12];
        e.read(&b, 0, &mut got).unwrap();
        assert_eq!(got, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
        assert_eq!(e.stats().protocol_errors, 0);
    }
}
