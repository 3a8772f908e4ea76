//! The message layer end to end on the simulated cluster (Verilated NIC and routers):
//! ping-pong, all-to-all, ordering, credits, rendezvous, collectives, bad input.

mod common;

use common::{boot, cards, world, world_with, Rng, World};
use fasthsl_driver::PutPath;
use fasthsl_msg::{
    Device, Endpoint, MsgConfig, MsgError, Source, Status, ANY_TAG, DEFAULT_SHORT_MAX,
};

/// Sizes around every protocol boundary: empty, sub-word, the eager limit, multi-packet
/// and multi-read rendezvous.
fn sizes() -> Vec<usize> {
    let s = DEFAULT_SHORT_MAX;
    vec![
        0,
        1,
        7,
        8,
        9,
        64,
        1000,
        s - 1,
        s,
        s + 1,
        4096,
        20_000,
        100_000,
    ]
}

fn pingpong(w: &mut World, a: usize, b: usize, rng: &mut Rng) {
    for len in sizes() {
        let ping = rng.bytes(len);
        let pong = rng.bytes(len);
        let ra = w.eps[b].isend(a as u16, 5, &pong).unwrap();
        let bufa = w.eps[a].alloc(len).unwrap();
        let bufb = w.eps[b].alloc(len).unwrap();
        // b posts its receive before a sends (expected path); a's arrives before its
        // receive is posted (unexpected path) for the pong.
        let rb = w.eps[b].irecv(a as u16, 4, &bufb).unwrap();
        let sa = w.eps[a].isend(b as u16, 4, &ping).unwrap();
        let st = w.wait_ok(vec![(b, rb), (a, sa)]);
        assert_eq!(
            st[0],
            Status {
                src: a as u16,
                tag: 4,
                len,
                truncated: false
            }
        );
        assert_eq!((st[1].len, st[1].truncated), (len, false));
        let ra2 = w.eps[a].irecv(Source::Any, 5, &bufa).unwrap();
        let st = w.wait_ok(vec![(a, ra2), (b, ra)]);
        assert_eq!((st[0].src, st[0].len), (b as u16, len));
        let mut got = vec![0u8; len];
        w.eps[b].read(&bufb, 0, &mut got).unwrap();
        assert!(got == ping, "{a}->{b} {len} B: data differs");
        w.eps[a].read(&bufa, 0, &mut got).unwrap();
        assert!(got == pong, "{b}->{a} {len} B: data differs");
        w.eps[a].free(bufa);
        w.eps[b].free(bufb);
    }
}

#[test]
fn pingpong_many_sizes_two_nodes() {
    let mut w = world("full:2");
    let mut rng = Rng::new(1);
    pingpong(&mut w, 0, 1, &mut rng);
    let (s0, s1) = (w.eps[0].stats(), w.eps[1].stats());
    let long = sizes().iter().filter(|&&s| s > DEFAULT_SHORT_MAX).count() as u64;
    assert_eq!(s0.rdv_sent, long, "{s0:?}");
    assert_eq!(s1.rdv_recv, long, "{s1:?}");
    assert_eq!(s1.short_recv, sizes().len() as u64 - long, "{s1:?}");
    w.assert_clean();
}

#[test]
fn blocking_send_recv_and_self_send() {
    let mut w = world("full:2");
    for len in [0, 8, 100, DEFAULT_SHORT_MAX] {
        let msg: Vec<u8> = (0..len).map(|i| (i * 7 + len) as u8).collect();
        w.eps[0].send(1, 9, &msg).unwrap();
        let mut out = vec![0u8; len + 3];
        let st = w.eps[1].recv(0, 9, &mut out).unwrap();
        assert_eq!((st.src, st.tag, st.len, st.truncated), (0, 9, len, false));
        assert_eq!(&out[..len], &msg[..]);
        assert_eq!(&out[len..], &[0, 0, 0]);
    }
    // A node may message itself; the card loops the write back.
    let r = w.eps[1].isend(1, 3, b"me").unwrap();
    let mut out = [0u8; 2];
    let st = w.eps[1].recv(1, 3, &mut out).unwrap();
    assert_eq!((st.src, &out), (1, b"me"));
    w.eps[1].wait(&r).unwrap();
    w.assert_clean();
}

#[test]
fn pingpong_three_nodes_every_pair() {
    let mut w = world("full:3");
    let mut rng = Rng::new(2);
    pingpong(&mut w, 2, 0, &mut rng);
    pingpong(&mut w, 1, 2, &mut rng);
    w.assert_clean();
}

fn all_to_all(spec: &str, sizes: &[usize], seed: u64) {
    let mut w = world(spec);
    let n = w.eps.len();
    let mut rng = Rng::new(seed);
    let mut want = vec![];
    let mut reqs = vec![];
    let mut bufs = vec![];
    for d in 0..n {
        for s in 0..n {
            if s == d {
                continue;
            }
            let len = sizes[(s * n + d) % sizes.len()];
            let buf = w.eps[d].alloc(len).unwrap();
            reqs.push((d, w.eps[d].irecv(s as u16, 11, &buf).unwrap()));
            bufs.push((d, s, buf));
        }
    }
    for s in 0..n {
        for d in 0..n {
            if s != d {
                let len = sizes[(s * n + d) % sizes.len()];
                let data = rng.bytes(len);
                reqs.push((s, w.eps[s].isend(d as u16, 11, &data).unwrap()));
                want.push(((d, s), data));
            }
        }
    }
    let st = w.wait_ok(reqs);
    assert!(st.iter().all(|s| !s.truncated));
    for (d, s, buf) in &bufs {
        let data = &want.iter().find(|(k, _)| *k == (*d, *s)).unwrap().1;
        let mut got = vec![0u8; data.len()];
        w.eps[*d].read(buf, 0, &mut got).unwrap();
        assert!(&got == data, "{s} -> {d}: {} bytes differ", data.len());
    }
    w.assert_clean();
}

#[test]
fn all_to_all_three_nodes() {
    all_to_all("full:3", &[32, 1, 5000, 0, 4080, 4081], 3);
}

#[test]
fn all_to_all_eight_nodes() {
    all_to_all("full:8", &[32, 300, 3000, 8, 70_000, 1024], 4);
}

#[test]
fn unexpected_messages_keep_order_per_source_and_tag() {
    let mut w = world("full:3");
    // Node 1 and 2 send interleaved tags before node 0 posts anything, short and long.
    let mut reqs = vec![];
    for i in 0..6u8 {
        for s in [1usize, 2] {
            let tag = u32::from(i % 2);
            let len = if i == 3 { 6000 } else { 16 };
            let msg = vec![i * 10 + s as u8; len];
            reqs.push((s, w.eps[s].isend(0, tag, &msg).unwrap()));
        }
    }
    // The eager ones complete without the receiver; the long ones wait for their RSP.
    w.run_for(20_000);
    assert!(w.eps[0].unexpected_len() >= 10, "{:?}", w.eps[0]);
    // Tag 1 from node 2 first, then tag 0 from anyone, then the rest by ANY_TAG. The
    // senders of long messages must answer RSPs, so every node is driven while waiting.
    let mut got = vec![];
    let mut take = |w: &mut World, src: Source, tag: u32| {
        let buf = w.eps[0].alloc(8192).unwrap();
        let r = w.eps[0].irecv(src, tag, &buf).unwrap();
        let st = w.wait_ok(vec![(0, r)]);
        let mut b = [0u8];
        w.eps[0].read(&buf, 0, &mut b).unwrap();
        w.eps[0].free(buf);
        got.push((st[0].src, st[0].tag, b[0]));
    };
    for _ in 0..3 {
        take(&mut w, Source::Node(2), 1);
    }
    for _ in 0..6 {
        take(&mut w, Source::Any, 0);
    }
    for _ in 0..3 {
        take(&mut w, Source::Any, ANY_TAG);
    }
    assert_eq!(&got[..3], &[(2, 1, 12), (2, 1, 32), (2, 1, 52)]);
    for s in [1u16, 2] {
        let tag0: Vec<u8> = got[3..9].iter().filter(|g| g.0 == s).map(|g| g.2).collect();
        assert_eq!(
            tag0,
            vec![s as u8, 20 + s as u8, 40 + s as u8],
            "tag 0 from {s}"
        );
        assert!(got[3..9].iter().all(|g| g.1 == 0));
    }
    assert_eq!(&got[9..], &[(1, 1, 11), (1, 1, 31), (1, 1, 51)]);
    w.wait_ok(reqs);
    assert!(w.eps[0].stats().unexpected >= 10);
    w.assert_clean();
}

#[test]
fn credits_run_out_then_flow_again() {
    let cfg = MsgConfig {
        slots_per_peer: 4,
        ..MsgConfig::default()
    };
    let mut w = world_with("full:2", cfg, 1 << 20);
    let msgs: Vec<Vec<u8>> = (0..20u8).map(|i| vec![i; 8 + i as usize]).collect();
    let reqs: Vec<_> = msgs
        .iter()
        .map(|m| w.eps[0].isend(1, 2, m).unwrap())
        .collect();
    // Node 1 runs nothing: only its 4 slots can be filled.
    let end = w.now_ns() + 50_000;
    while w.now_ns() < end {
        w.eps[0].progress().unwrap();
        w.cluster.step(1);
    }
    let done = reqs
        .iter()
        .filter(|r| w.eps[0].test(r).unwrap().is_some())
        .count();
    assert_eq!(done, 4, "sends beyond the credits must stay pending");
    assert!(w.eps[0].stats().credit_stalls >= 1);
    let err = w.eps[0].wait_for(&reqs[4], 10_000).unwrap_err();
    assert!(
        matches!(&err, MsgError::Timeout { what, .. } if what.contains("credits")),
        "{err}"
    );
    // The receiver starts: everything arrives, in order, nothing lost.
    let bufs: Vec<_> = (0..msgs.len())
        .map(|_| w.eps[1].alloc(64).unwrap())
        .collect();
    let mut all: Vec<_> = bufs
        .iter()
        .map(|b| (1, w.eps[1].irecv(0, 2, b).unwrap()))
        .collect();
    all.extend(reqs.into_iter().skip(4).map(|r| (0, r)));
    let st = w.wait_ok(all);
    for (i, m) in msgs.iter().enumerate() {
        assert_eq!(st[i].len, m.len());
        let mut got = vec![0u8; m.len()];
        w.eps[1].read(&bufs[i], 0, &mut got).unwrap();
        assert_eq!(&got, m, "message {i}");
    }
    assert!(
        w.eps[1].stats().credit_msgs >= 1,
        "credits went back explicitly"
    );
    w.assert_clean();
}

#[test]
fn rendezvous_zero_copy_and_truncation() {
    let mut w = world_with("full:2", MsgConfig::default(), 4 << 20);
    let mut rng = Rng::new(7);
    for len in [DEFAULT_SHORT_MAX + 1, 65_536, 1 << 20] {
        let data = rng.bytes(len);
        let src = w.eps[0].alloc(len).unwrap();
        w.eps[0].write(&src, 0, &data).unwrap();
        // Guard buffers either side of the target show any overrun.
        let before = w.eps[1].alloc(64).unwrap();
        let dst = w.eps[1].alloc(len).unwrap();
        let after = w.eps[1].alloc(64).unwrap();
        for g in [&before, &after] {
            w.eps[1].write(g, 0, &[0xA5; 64]).unwrap();
        }
        let s = w.eps[0].isend_buf(1, 1, &src, len).unwrap();
        let r = w.eps[1].irecv(0, 1, &dst).unwrap();
        let st = w.wait_ok(vec![(0, s), (1, r)]);
        assert_eq!(
            st[1],
            Status {
                src: 0,
                tag: 1,
                len,
                truncated: false
            }
        );
        let mut got = vec![0u8; len];
        w.eps[1].read(&dst, 0, &mut got).unwrap();
        assert!(got == data, "{len} B rendezvous: data differs");
        for g in [&before, &after] {
            let mut b = [0u8; 64];
            w.eps[1].read(g, 0, &mut b).unwrap();
            assert_eq!(b, [0xA5; 64], "guard overwritten");
        }
        for b in [before, dst, after] {
            w.eps[1].free(b);
        }
        w.eps[0].free(src);
    }
    // Truncation, long and short: the prefix arrives, the rest is reported, not written.
    for len in [5000, 100] {
        let data = rng.bytes(len);
        let dst = w.eps[1].alloc(64).unwrap();
        let after = w.eps[1].alloc(64).unwrap();
        w.eps[1].write(&after, 0, &[0x5A; 64]).unwrap();
        let r = w.eps[1].irecv(0, 3, &dst).unwrap();
        let s = w.eps[0].isend(1, 3, &data).unwrap();
        let st = w.wait_ok(vec![(1, r), (0, s)]);
        assert_eq!(
            st[0],
            Status {
                src: 0,
                tag: 3,
                len: 64,
                truncated: true
            }
        );
        let mut got = [0u8; 64];
        w.eps[1].read(&dst, 0, &mut got).unwrap();
        assert_eq!(&got[..], &data[..64]);
        w.eps[1].read(&after, 0, &mut got).unwrap();
        assert_eq!(got, [0x5A; 64], "{len} B into 64: overran the buffer");
        w.eps[1].free(dst);
        w.eps[1].free(after);
    }
    // Blocking recv into a short slice, message behind it arrives whole.
    let long = rng.bytes(6000);
    let s = w.eps[0].isend(1, 4, &long).unwrap();
    let s2 = w.eps[0].isend(1, 4, b"next").unwrap();
    let r = {
        let b = w.eps[1].alloc(10).unwrap();
        (w.eps[1].irecv(0, 4, &b).unwrap(), b)
    };
    let st = w.wait_ok(vec![(1, r.0), (0, s), (0, s2)]);
    assert_eq!((st[0].len, st[0].truncated), (10, true));
    let mut out = [0u8; 8];
    let st = w.eps[1].recv(0, 4, &mut out).unwrap();
    assert_eq!((st.len, &out[..4]), (4, &b"next"[..]));
    assert_eq!(w.eps[1].stats().truncated, 3);
    w.assert_clean();
}

fn bcast_barrier(spec: &str) {
    let mut w = world(spec);
    let n = w.eps.len();
    let mut rng = Rng::new(n as u64);
    for (root, len) in [(0u16, 32usize), ((n - 1) as u16, 20_000), (1, 0)] {
        let data = rng.bytes(len);
        let mut reqs = vec![];
        let mut bufs = vec![];
        for (i, ep) in w.eps.iter_mut().enumerate() {
            let b = ep.alloc(len).unwrap();
            if i == usize::from(root) {
                ep.write(&b, 0, &data).unwrap();
            }
            reqs.push((i, ep.ibcast(root, &b, len).unwrap()));
            bufs.push(b);
        }
        let st = w.wait_ok(reqs);
        assert!(st.iter().all(|s| s.src == root && s.len == len));
        for (i, b) in bufs.into_iter().enumerate() {
            let mut got = vec![0u8; len];
            w.eps[i].read(&b, 0, &mut got).unwrap();
            assert!(got == data, "bcast from {root}, {len} B: node {i} differs");
            w.eps[i].free(b);
        }
    }
    // A barrier holds everyone until the last node enters.
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
    w.assert_clean();
}

#[test]
fn bcast_and_barrier_three_nodes() {
    bcast_barrier("full:3");
}

#[test]
fn bcast_and_barrier_eight_nodes() {
    bcast_barrier("full:8");
}

#[test]
fn wrong_tag_waits_as_unexpected() {
    let mut w = world("full:2");
    let mut out = [0u8; 8];
    let b = w.eps[1].alloc(8).unwrap();
    let r5 = w.eps[1].irecv(0, 5, &b).unwrap();
    w.eps[0].send(1, 7, b"seven").unwrap();
    let err = w.eps[1].wait_for(&r5, 20_000).unwrap_err();
    assert!(
        matches!(&err, MsgError::Timeout { what, waited_ns } if what.contains("node 0 with tag 5") && *waited_ns >= 20_000),
        "{err}"
    );
    assert_eq!(w.eps[1].unexpected_len(), 1);
    let st = w.eps[1].recv(0, 7, &mut out).unwrap();
    assert_eq!((st.tag, &out[..5]), (7, &b"seven"[..]));
    // The tag-5 receive is still posted and takes the next tag-5 message.
    w.eps[0].send(1, 5, b"five").unwrap();
    let st = w.eps[1].wait(&r5).unwrap();
    assert_eq!((st.tag, st.len), (5, 4));
    // A posted receive can be withdrawn; a finished request is gone.
    let r = w.eps[1].irecv(0, 6, &b).unwrap();
    assert!(w.eps[1].cancel(r).unwrap());
    w.eps[0].send(1, 6, b"six").unwrap();
    w.run_for(5_000);
    assert_eq!(
        w.eps[1].unexpected_len(),
        1,
        "the cancelled receive took the message"
    );
    let st = w.eps[1].recv(0, 6, &mut out).unwrap();
    assert_eq!((st.len, &out[..3]), (3, &b"six"[..]));
    assert!(matches!(
        w.eps[1].test(&r5),
        Err(MsgError::UnknownRequest(_))
    ));
    // Reserved tags are refused.
    assert!(matches!(
        w.eps[0].isend(1, 0x8000_0000, b"x"),
        Err(MsgError::BadTag { .. })
    ));
    assert!(matches!(
        w.eps[0].isend(1, ANY_TAG, b"x"),
        Err(MsgError::BadTag { .. })
    ));
    assert!(matches!(
        w.eps[1].recv(0, 0x9000_0000, &mut out),
        Err(MsgError::BadTag { .. })
    ));
    w.assert_clean();
}

#[test]
fn nonexistent_nodes_are_typed_errors() {
    let mut w = world("full:3");
    let e = w.eps[0].isend(3, 1, b"x").unwrap_err();
    assert!(
        matches!(e, MsgError::NoSuchNode { node: 3, nodes: 3 }),
        "{e}"
    );
    assert!(e.to_string().contains("0..=2"), "{e}");
    assert!(matches!(
        w.eps[0].send(9, 1, b"x"),
        Err(MsgError::NoSuchNode { node: 9, .. })
    ));
    let mut out = [0u8; 4];
    assert!(matches!(
        w.eps[0].recv(7, 1, &mut out),
        Err(MsgError::NoSuchNode { node: 7, .. })
    ));
    let b = w.eps[0].alloc(4).unwrap();
    assert!(matches!(
        w.eps[0].ibcast(5, &b, 4),
        Err(MsgError::NoSuchNode { node: 5, .. })
    ));
    assert!(matches!(
        w.eps[0].isend_buf(1, 1, &b, 5),
        Err(MsgError::BufRange { .. })
    ));
    w.assert_clean();
}

#[test]
fn silent_peers_time_out_with_clear_errors() {
    let cfg = MsgConfig {
        timeout_ns: 40_000,
        ..MsgConfig::default()
    };
    let mut w = world_with("full:2", cfg, 1 << 20);
    // Let the HELLOs cross, then node 1 stops running its layer.
    w.run_for(5_000);
    assert!(w.eps[0].peer_ready(1));
    let t0 = w.now_ns();
    let e = w.eps[0].send(1, 1, &[7u8; 5000]).unwrap_err();
    let waited = w.now_ns() - t0;
    assert!(
        matches!(&e, MsgError::Timeout { what, .. } if what.contains("RSP")),
        "{e}"
    );
    assert!((40_000..80_000).contains(&waited), "waited {waited} ns");
    let mut out = [0u8; 4];
    let e = w.eps[0].recv(1, 1, &mut out).unwrap_err();
    assert!(
        matches!(&e, MsgError::Timeout { what, .. } if what.contains("from node 1")),
        "{e}"
    );
    let e = w.eps[0].barrier().unwrap_err();
    assert!(
        matches!(&e, MsgError::Timeout { what, .. } if what.contains("barrier")),
        "{e}"
    );
}

#[test]
fn a_node_without_the_layer_or_with_another_config_is_reported() {
    let (cluster, mut cs) = cards("full:3", 1 << 20);
    let boot = boot(&cs);
    let c2 = cs.pop().unwrap();
    let c1 = cs.pop().unwrap();
    let c0 = cs.pop().unwrap();
    let cfg = MsgConfig {
        timeout_ns: 30_000,
        ..MsgConfig::default()
    };
    let mut e0 = Endpoint::new(c0, &boot, cfg.clone()).unwrap();
    let other = MsgConfig {
        slots_per_peer: 3,
        ..cfg.clone()
    };
    let mut e2 = Endpoint::new(c2, &boot, other).unwrap();
    // Node 1 never starts the layer: node 0 keeps the message and says why it waits.
    let e = e0.send(1, 1, b"hi").unwrap_err();
    assert!(
        matches!(&e, MsgError::Timeout { what, .. } if what.contains("HELLO")),
        "{e}"
    );
    // Node 2 runs a different layout: refused before anything is written.
    for _ in 0..2000 {
        e0.progress().unwrap();
        e2.progress().unwrap();
        cluster.step(1);
    }
    let e = e0.send(2, 1, b"hi").unwrap_err();
    assert!(matches!(e, MsgError::ConfigMismatch { node: 2, .. }), "{e}");
    let e = e2.send(0, 1, b"hi").unwrap_err();
    assert!(matches!(e, MsgError::ConfigMismatch { node: 0, .. }), "{e}");
    // A wrong bootstrap table is caught at start.
    let bad = fasthsl_msg::Bootstrap::new(vec![0, 0x1000, 0]);
    let e = Endpoint::new(c1, &bad, cfg).unwrap_err();
    assert!(matches!(e, MsgError::Bootstrap(_)), "{e}");
}

#[test]
fn malformed_writes_are_counted_and_skipped() {
    // Node 2 runs no message layer: its raw card plays a buggy or hostile peer.
    let (cluster, mut cs) = cards("full:3", 1 << 20);
    let boot = boot(&cs);
    let mut raw = cs.pop().unwrap();
    let c1 = cs.pop().unwrap();
    let c0 = cs.pop().unwrap();
    let cfg = MsgConfig::default();
    let mut e0 = Endpoint::new(c0, &boot, cfg.clone()).unwrap();
    let mut e1 = Endpoint::new(c1, &boot, cfg).unwrap();
    let l = *e0.layout();
    let base = e0.card().rx_iova().unwrap();
    let src = raw.device().dma_alloc(8192).unwrap();
    // An empty header in node 2's slot 0, a SHORT claiming more than a slot holds in its
    // slot 1, and a write into node 1's slots (not node 2's to write).
    let mut bad = [0u8; 64];
    bad[0] = 1; // SHORT
    bad[1..4].copy_from_slice(&[0xFF; 3]); // 16 MiB - 1 bytes: more than a slot holds
    bad[4..8].copy_from_slice(&1u32.to_le_bytes()); // seq 1: the next one expected
    raw.device().mem_write(&src, 64, &bad).unwrap();
    let writes = [
        (0, l.slot_off(2, 0), 64),
        (64, l.slot_off(2, 1), 64),
        (0, l.slot_off(1, 0), 32),
    ];
    for (from, to, len) in writes {
        // Node 2 is in the bootstrap table, so it holds node 0's window key: the
        // writes pass the card and reach the layer's own checks.
        let key = boot.key(0).unwrap();
        let t = raw
            .put_keyed(PutPath::Auto, 0, &src, from, base + to as u64, key, len, 0)
            .unwrap();
        raw.wait_completion(&t, 1_000_000).unwrap();
    }
    // Node 0 keeps working with node 1 meanwhile, and counts each bad write once.
    let mut out = [0u8; 4];
    for i in 0..3u8 {
        e1.send(0, 1, &[i; 4]).unwrap();
        let st = e0.recv(1, 1, &mut out).unwrap();
        assert_eq!((st.len, out), (4, [i; 4]));
    }
    for _ in 0..2000 {
        e0.progress().unwrap();
        e1.progress().unwrap();
        cluster.step(1);
    }
    assert_eq!(e0.stats().protocol_errors, 3, "{:?}", e0.stats());
    assert_eq!(e0.unexpected_len(), 0, "nothing malformed was delivered");
    assert_eq!(cluster.iommu_fault_count(), 0);
}
