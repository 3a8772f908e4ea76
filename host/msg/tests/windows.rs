//! The message layer behind keyed receive windows (MsgConfig::windows, docs/WINDOWS.md):
//! it runs end to end with the card enforcing keys, and the card refuses puts into a
//! node's region that do not carry that node's key, while the layer keeps working.

mod common;

use common::*;
use fasthsl_driver::{Device, PutPath};
use fasthsl_msg::{BcastBackend, MsgConfig, BCAST_WINDOW_INDEX, RX_WINDOW_INDEX};

fn hw() -> MsgConfig {
    MsgConfig {
        bcast: BcastBackend::Hardware,
        ..MsgConfig::default()
    }
}

/// Every node sends an eager and a rendezvous message to the next one, then node 1
/// broadcasts (several pieces) and everyone meets at a barrier; all with keys enforced.
fn layer_behind_windows(spec: &str) {
    assert!(MsgConfig::default().windows, "windows are on by default");
    let mut w = world_shared(spec, hw(), 2 << 20);
    let n = w.eps.len();
    let mut rng = Rng::new(n as u64);
    for e in &w.eps {
        let s = e.card().window_stats().unwrap();
        assert!(s.enforced, "node {} does not enforce keys", e.node());
        assert_eq!(e.bcast_backend(), BcastBackend::Hardware);
    }
    for len in [100usize, 70_000] {
        let data: Vec<Vec<u8>> = (0..n).map(|_| rng.bytes(len)).collect();
        let mut reqs = vec![];
        let mut bufs = vec![];
        for d in 0..n {
            let s = (d + n - 1) % n;
            let b = w.eps[d].alloc(len).unwrap();
            reqs.push((d, w.eps[d].irecv(s as u16, 7, &b).unwrap()));
            bufs.push(b);
        }
        for (s, msg) in data.iter().enumerate() {
            let d = ((s + 1) % n) as u16;
            reqs.push((s, w.eps[s].isend(d, 7, msg).unwrap()));
        }
        w.wait_ok(reqs);
        for (d, b) in bufs.into_iter().enumerate() {
            let mut got = vec![0u8; len];
            w.eps[d].read(&b, 0, &mut got).unwrap();
            assert!(got == data[(d + n - 1) % n], "{len} B into node {d} differ");
            w.eps[d].free(b);
        }
    }
    let len = 3 * DEFAULT_PIECE;
    let data = rng.bytes(len);
    let mut reqs = vec![];
    let mut bufs = vec![];
    for (i, ep) in w.eps.iter_mut().enumerate() {
        let b = ep.alloc(len).unwrap();
        let fill = if i == 1 {
            data.clone()
        } else {
            vec![0xA5; len]
        };
        ep.write(&b, 0, &fill).unwrap();
        reqs.push((i, ep.ibcast(1, &b, len).unwrap()));
        bufs.push(b);
    }
    w.wait_ok(reqs);
    for (i, b) in bufs.into_iter().enumerate() {
        let mut got = vec![0u8; len];
        w.eps[i].read(&b, 0, &mut got).unwrap();
        assert!(got == data, "broadcast: node {i} differs");
    }
    let reqs = (0..n).map(|i| (i, w.eps[i].ibarrier().unwrap())).collect();
    w.wait_ok(reqs);
    for e in &w.eps {
        // From three nodes on the root's pieces are hardware broadcasts (with two, one
        // receiver, they may travel as plain writes): either way the bytes arrived above.
        if n >= 3 && e.node() != 1 {
            assert!(e.stats().bcast_recv > 0, "{:?}", e.stats());
        }
        let s = e.card().window_stats().unwrap();
        assert_eq!(s.rejected(), 0, "node {}: {s:?}", e.node());
        assert_eq!(e.stats().put_errors + e.stats().protocol_errors, 0);
    }
    w.assert_clean();
}

/// A broadcast of this many bytes takes several pieces (one per eager slot).
const DEFAULT_PIECE: usize = fasthsl_msg::DEFAULT_SHORT_MAX;

#[test]
fn layer_behind_windows_2_nodes() {
    layer_behind_windows("full:2");
}

#[test]
fn layer_behind_windows_3_nodes() {
    layer_behind_windows("full:3");
}

#[test]
fn layer_behind_windows_8_nodes() {
    layer_behind_windows("full:8");
}

/// Node 2 runs no layer: its raw card puts into node 0's region without a key, with a
/// wrong tag, and with the broadcast key as a plain write. The card refuses all three
/// (nothing written, counted), and nodes 0 and 1 keep talking.
#[test]
fn puts_without_the_nodes_key_are_refused_and_the_layer_keeps_working() {
    let (cluster, mut cs) = cards("full:3", 1 << 20);
    let boot = boot(&cs);
    let mut raw = cs.pop().unwrap();
    let c1 = cs.pop().unwrap();
    let c0 = cs.pop().unwrap();
    let mut e0 = fasthsl_msg::Endpoint::new(c0, &boot, MsgConfig::default()).unwrap();
    let mut e1 = fasthsl_msg::Endpoint::new(c1, &boot, MsgConfig::default()).unwrap();
    let key = boot.key(0).unwrap();
    assert_eq!(key & 0xF, RX_WINDOW_INDEX);
    assert_eq!(boot.bcast_key() & 0xF, BCAST_WINDOW_INDEX);
    // Let the HELLOs land, then take the baseline.
    let mut out = [0u8; 4];
    e1.send(0, 1, &[7; 4]).unwrap();
    e0.recv(1, 1, &mut out).unwrap();
    let before = e0.card().window_stats().unwrap();
    assert!(before.enforced);
    let l = *e0.layout();
    let base = e0.card().rx_iova().unwrap();
    let src = raw.device().dma_alloc(4096).unwrap();
    raw.device().mem_write(&src, 0, &[0xEE; 256]).unwrap();
    // Node 2's own eager slot 0 at node 0, and a heap offset: both inside the region.
    let targets = [l.slot_off(2, 0), l.heap_off + 4096];
    let mut snap = vec![];
    for &t in &targets {
        let mut b = vec![0u8; 256];
        e0.card().read_rx(t, &mut b).unwrap();
        assert_ne!(b, vec![0xEE; 256]);
        snap.push(b);
    }
    let wrong = key ^ 0x10;
    let mut refused = 0;
    for &t in &targets {
        for k in [0, wrong, boot.bcast_key()] {
            let tk = raw
                .put_keyed(PutPath::Auto, 0, &src, 0, base + t as u64, k, 256, 0)
                .unwrap();
            raw.wait_completion(&tk, 1_000_000).unwrap();
            refused += 1;
        }
    }
    for _ in 0..3000 {
        e0.progress().unwrap();
        e1.progress().unwrap();
        cluster.step(1);
    }
    for (&t, s) in targets.iter().zip(&snap) {
        let mut b = vec![0u8; 256];
        e0.card().read_rx(t, &mut b).unwrap();
        assert_eq!(&b, s, "a refused put wrote node 0's region at {t:#x}");
    }
    let after = e0.card().window_stats().unwrap();
    assert_eq!(
        after.reject_key - before.reject_key,
        refused,
        "{before:?} -> {after:?}"
    );
    assert_eq!(e0.stats().protocol_errors, 0, "the layer never saw them");
    // The layer keeps working, in both directions, eager and rendezvous.
    for len in [4usize, 20_000] {
        let data = vec![len as u8; len];
        let (b0, b1) = (e0.alloc(len).unwrap(), e1.alloc(len).unwrap());
        let r0 = e0.irecv(1u16, 2, &b0).unwrap();
        let r1 = e1.irecv(0u16, 3, &b1).unwrap();
        let s1 = e1.isend(0, 2, &data).unwrap();
        let s0 = e0.isend(1, 3, &data).unwrap();
        let mut done = [false; 4];
        for _ in 0..200_000 {
            e0.progress().unwrap();
            e1.progress().unwrap();
            done[0] = done[0] || e0.test(&r0).unwrap().is_some();
            done[1] = done[1] || e1.test(&r1).unwrap().is_some();
            done[2] = done[2] || e1.test(&s1).unwrap().is_some();
            done[3] = done[3] || e0.test(&s0).unwrap().is_some();
            if done.iter().all(|&d| d) {
                break;
            }
            cluster.step(1);
        }
        assert!(done.iter().all(|&d| d), "{len} B: {done:?}");
        let mut got = vec![0u8; len];
        e0.read(&b0, 0, &mut got).unwrap();
        assert!(got == data);
        e1.read(&b1, 0, &mut got).unwrap();
        assert!(got == data);
    }
    // With the right key the same put lands: the refusals were the key's doing.
    let tk = raw
        .put_keyed(
            PutPath::Auto,
            0,
            &src,
            0,
            base + targets[1] as u64,
            key,
            256,
            0,
        )
        .unwrap();
    raw.wait_completion(&tk, 1_000_000).unwrap();
    for _ in 0..2000 {
        cluster.step(1);
    }
    let mut b = vec![0u8; 256];
    e0.card().read_rx(targets[1], &mut b).unwrap();
    assert_eq!(b, vec![0xEE; 256]);
    assert_eq!(cluster.iommu_fault_count(), 0);
}

/// With windows off nothing is registered and keys are not enforced (the old behaviour).
#[test]
fn windows_off_leaves_the_card_open() {
    let cfg = MsgConfig {
        windows: false,
        ..MsgConfig::default()
    };
    let mut w = world_with("full:2", cfg, 1 << 20);
    let b = w.eps[1].alloc(8).unwrap();
    let r = w.eps[1].irecv(0u16, 1, &b).unwrap();
    let s = w.eps[0].isend(1, 1, &[1; 8]).unwrap();
    w.wait_ok(vec![(1, r), (0, s)]);
    for e in &w.eps {
        assert!(!e.card().window_stats().unwrap().enforced);
    }
}
