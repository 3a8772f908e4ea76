//! Short soak of the router networks (the long one is `make soak`): saturating mixed
//! traffic with malformed packets on every topology, both router organisations (and the
//! pipelined VOQ router and the one with the three-stage allocator on three), every
//! packet and every router error counter checked; plus the checks that the soak's own
//! machinery (watchdog, EEP and order rules, table walk) can fail.

use fasthsl_sim::traffic::soak::{
    soak, BcastFault, PathEnd, SoakConfig, SoakReport, WaitingHead, Walker,
};
use fasthsl_sim::traffic::*;
use fasthsl_sim::Topology;

/// Cycles of traffic per (topology, organisation) in `cargo test`. Chosen so the whole
/// file stays well under 30 s in release mode on a busy 2-core machine.
fn short_cycles(t: &Topology) -> u64 {
    // Cost per cycle grows with the router count; every network gets the same
    // number of router-cycles, roughly, and at least 16 384 cycles (every traffic mix).
    (400_000 / t.routers() as u64).clamp(16_384, 40_000)
}

fn run(router: RouterKind, spec: &str, seed: u64) -> SoakReport {
    let t: Topology = spec.parse().expect("topology");
    let c = SoakConfig::new(router, t.clone(), short_cycles(&t), seed);
    let r = soak(&c).unwrap_or_else(|e| panic!("{spec} {router} seed {seed}: {e}"));
    eprintln!("{spec} {router}: {r:?}");
    // Every kind of packet actually happened, so the checks above were exercised.
    assert!(r.packets_delivered > 1_000, "{spec} {router}: {r:?}");
    assert!(
        r.eep_delivered > 0 && r.cut_short > 0,
        "{spec} {router}: {r:?}"
    );
    assert!(
        r.dropped > 0 && r.overlong_sent > 0,
        "{spec} {router}: {r:?}"
    );
    assert_eq!(r.rt_drop, r.dropped, "{spec} {router}");
    // The network's share of a latency is part of it: a head enters after its packet is
    // made, and every packet spends at least its flits and a router hop in the network.
    let d = r.slowest.expect("packets were delivered");
    assert!(
        d.created <= d.injected && d.injected < d.delivered,
        "{spec} {router}: {d:?}"
    );
    assert!(
        (2..=r.max_latency).contains(&r.max_network_latency),
        "{spec} {router}: {r:?}"
    );
    // A quarter of the good packets are adaptive (routed so by the VOQ router where the
    // tables have alternatives, deterministically elsewhere).
    assert!(
        r.adaptive_sent * 8 > r.packets_sent,
        "{spec} {router}: {r:?}"
    );
    // 3 % of the good packets are broadcasts. The VOQ router replicates them: every
    // copy was checked by the scoreboard (a range of the source alone is dropped, so
    // only most broadcasts have copies). The FIFO router drops and counts every one.
    assert!(
        r.bcast_sent * 100 > r.packets_sent,
        "{spec} {router}: {r:?}"
    );
    match router {
        RouterKind::Voq | RouterKind::VoqPipe | RouterKind::VoqSpec => {
            assert!(r.bcast_copies > r.bcast_sent, "{spec} {router}: {r:?}")
        }
        RouterKind::Fifo => {
            assert_eq!(r.bcast_copies, 0, "{spec} {router}");
            assert!(r.dropped > r.bcast_sent, "{spec} {router}: {r:?}");
        }
    }
    // EEP is counted at every router input a packet enters, so at least once each.
    assert!(r.rt_eep >= r.eep_delivered, "{spec} {router}: {r:?}");
    // Saturating sources keep the network busy (hotspot epochs hold it down the most).
    assert!(r.accepted > 0.1, "{spec} {router}: {r:?}");
    r
}

#[test]
fn soak_short_fifo() {
    for spec in [
        "star:8",
        "full:8",
        "ring:16",
        "mesh:4x4",
        "torus:4x4",
        "hypercube:6",
    ] {
        run(RouterKind::Fifo, spec, 1);
    }
}

#[test]
fn soak_short_voq() {
    for spec in [
        "star:8",
        "full:8",
        "ring:16",
        "mesh:4x4",
        "torus:4x4",
        "hypercube:6",
    ] {
        run(RouterKind::Voq, spec, 1);
    }
}

/// The VOQ router with its three pipeline options, on a network of each kind of
/// routing (one router, adaptive mesh, hypercube).
#[test]
fn soak_short_voq_pipe() {
    for spec in ["star:8", "mesh:4x4", "hypercube:6"] {
        run(RouterKind::VoqPipe, spec, 1);
    }
}

/// The VOQ router with the three-stage allocator (experimental), on the same three. This
/// run caught a stall (session 47): an input whose packet waited on its last flit for a
/// credit counted as free, so an output pinned on it by the waiting bound granted it in
/// vain and nobody else (rcube_spec_alloc, busy_next). Before the fix, `make soak`'s
/// example at 100,000 cycles over seeds 1-10 stalled mesh:4x4 at 3 seeds and
/// hypercube:6 at 2; after it, none.
#[test]
fn soak_short_voq_spec() {
    for spec in ["star:8", "mesh:4x4", "hypercube:6"] {
        run(RouterKind::VoqSpec, spec, 1);
    }
}

#[test]
fn soak_is_deterministic_and_seeded() {
    let t = Topology::star(8).unwrap();
    let c = SoakConfig::new(RouterKind::Voq, t, 5_000, 7);
    let a = soak(&c).unwrap();
    assert_eq!(a, soak(&c).unwrap());
    assert_ne!(a, soak(&SoakConfig { seed: 8, ..c }).unwrap());
}

#[test]
fn good_traffic_alone_bumps_no_counter() {
    let t: Topology = "mesh:4x4".parse().unwrap();
    // No broadcasts either: the FIFO router drops and counts them.
    let c = SoakConfig {
        malformed: 0.0,
        bcast: 0.0,
        ..SoakConfig::new(RouterKind::Fifo, t, 5_000, 3)
    };
    let r = soak(&c).unwrap();
    assert_eq!(
        (r.rt_drop, r.rt_eep, r.dropped, r.eep_delivered),
        (0, 0, 0, 0)
    );
    assert!(r.packets_delivered > 500);
}

/// Runs star:8 with node 5's sink dead from cycle 2 000 until the watchdog fires, and
/// returns its report.
fn dead_sink_stall(router: RouterKind) -> (String, Vec<WaitingHead>) {
    let t = Topology::star(8).unwrap();
    let c = SoakConfig {
        dead_sink: Some((5, 2_000)),
        watchdog: 2_000,
        ..SoakConfig::new(router, t, 50_000, 1)
    };
    match soak(&c) {
        Err(TrafficError::Stall {
            idle,
            pending,
            ports,
            waiting,
            ..
        }) => {
            assert!(idle >= 2_000 && pending > 0, "{router}");
            eprintln!("{router}: {ports}");
            (ports, waiting)
        }
        other => panic!("{router}: expected a stall, got {other:?}"),
    }
}

#[test]
fn watchdog_fires_and_names_the_blocked_ports() {
    // A sink that stops returning credits for good: its router port runs dry, the
    // packets for it back up through the star, and nothing can move any more.
    let (ports, waiting) = dead_sink_stall(RouterKind::Fifo);
    // Router 0's port 5 (to node 5) has no credits and an open or waiting packet.
    assert!(
        ports.contains("router 0 port 5 (to node 5)") && ports.contains("0 credit(s)"),
        "{ports}"
    );
    // The heads waiting in the router are named, oldest first per input. The FIFO
    // router drops broadcasts and packets to unknown nodes at once, so none of those
    // (3 % of the packets sent by then are malformed) may linger in the list.
    assert!(!waiting.is_empty(), "{ports}");
    for w in &waiting {
        let (dest, _, _) = parse_head(w.head);
        assert!(
            head_bcast_range(w.head).is_none() && dest < 8 && w.outputs == 1 << dest,
            "{w:?}"
        );
        assert!(w.router == 0 && w.since < 50_000, "{w:?}");
    }
    for input in 0..8 {
        let at: Vec<_> = waiting.iter().filter(|w| w.input == input).collect();
        assert!(at.windows(2).all(|p| p[0].since <= p[1].since), "{at:?}");
        // A head that left is off the list: an input holds at most 16 flits.
        assert!(at.len() <= 16, "{at:?}");
        // In a FIFO input the head in front waits for the dead node, or for an output
        // whose input queue ahead is held by a packet for it.
        if let Some(first) = at.first() {
            assert!(ports.contains(&first.to_string()), "{first} in {ports}");
        }
    }
    assert!(
        waiting.iter().any(|w| w.outputs == 1 << 5) && ports.contains("for output 5"),
        "{ports}"
    );
}

#[test]
fn watchdog_report_names_only_heads_owing_the_dead_output() {
    // The VOQ router keeps a queue per output, so when it stalls on a dead sink every
    // waiting head owes that output (a broadcast with node 5 in its range included),
    // or waits behind such a broadcast: an input whose broadcast waits takes no unicast
    // match (rtl/rcube/README.md). Any other head waiting for an output would be the
    // kind of bug this report found in the three-stage allocator. Packets the router
    // dropped never show.
    let (ports, waiting) = dead_sink_stall(RouterKind::Voq);
    assert!(!waiting.is_empty(), "{ports}");
    let mut behind = 0;
    for w in &waiting {
        let blocked_by_bcast = waiting.iter().any(|b| {
            b.input == w.input
                && b.since < w.since
                && b.outputs & 1 << 5 != 0
                && head_bcast_range(b.head).is_some()
        });
        behind += usize::from(blocked_by_bcast);
        assert!(
            w.router == 0 && (w.outputs & 1 << 5 != 0 || blocked_by_bcast),
            "{w} in {ports}"
        );
        let (dest, _, _) = parse_head(w.head);
        match head_bcast_range(w.head) {
            Some((lo, hi)) => assert!((lo..=hi).contains(&5), "{w}"),
            None if !blocked_by_bcast => assert_eq!((dest, w.outputs), (5, 1 << 5), "{w}"),
            None => {}
        }
    }
    // Both kinds happen in this run, so both branches above were checked.
    assert!(
        behind > 0 && waiting.iter().any(|w| w.outputs == 1 << 5),
        "{ports}"
    );
}

/// The first broadcast copy reaching node 5 is lost (or seen twice) on its way to the
/// scoreboard: the run must fail, naming that copy.
fn bcast_fault(spec: &str, fault: BcastFault, ordered: bool) -> TrafficError {
    let t: Topology = spec.parse().unwrap();
    let c = SoakConfig {
        bcast_fault: Some((fault, 5)),
        watchdog: 2_000,
        ordered,
        ..SoakConfig::new(RouterKind::Voq, t, 8_000, 4)
    };
    soak(&c).expect_err("a broadcast copy was lost or doubled; the soak must fail")
}

#[test]
fn lost_broadcast_copy_fails_the_run() {
    // Broadcasts keep their order per (source, node): a later broadcast of the same
    // source reaching node 5 shows the copy lost, during the run.
    match bcast_fault("mesh:4x4", BcastFault::LoseCopy, true) {
        TrafficError::IntegrityAt { errors, .. } => {
            assert!(
                matches!(errors[..], [ScoreError::Lost { sink: 5, .. }]),
                "{errors:?}"
            );
        }
        e => panic!("expected a lost copy, got {e}"),
    }
    // Without order checks it is found at the end: nothing is left in the network, so
    // the copy is named missing, not reported as a stall.
    match bcast_fault("mesh:4x4", BcastFault::LoseCopy, false) {
        TrafficError::IntegrityAt { errors, .. } => {
            assert!(
                matches!(errors[..], [ScoreError::Missing { sink: 5, .. }]),
                "{errors:?}"
            );
        }
        e => panic!("expected a missing copy, got {e}"),
    }
}

#[test]
fn duplicated_broadcast_copy_fails_the_run() {
    match bcast_fault("hypercube:6", BcastFault::DuplicateCopy, true) {
        TrafficError::IntegrityAt { errors, .. } => {
            assert!(
                matches!(errors[..], [ScoreError::Unexpected { sink: 5, .. }]),
                "{errors:?}"
            );
        }
        e => panic!("expected a duplicate copy, got {e}"),
    }
}

#[test]
fn walker_follows_the_broadcast_trees() {
    let t: Topology = "mesh:4x4".parse().unwrap();
    let w = Walker::new(&t)
        .unwrap()
        .with_bcast(t.bcast_tables().unwrap());
    for (src, lo, hi) in [(5, 0, 15), (0, 3, 12), (15, 14, 15), (6, 6, 6)] {
        let (mut reached, drops) = w.walk_bcast(src, lo, hi);
        reached.sort_unstable();
        let want: Vec<usize> = (lo..=hi).filter(|&n| n != src).collect();
        assert_eq!(reached, want, "{src} -> {lo}..={hi}");
        // Only the source alone gives an empty set: dropped at its router's NIC input.
        let dropped = if want.is_empty() {
            vec![(src, 0)]
        } else {
            vec![]
        };
        assert_eq!(drops, dropped, "{src} -> {lo}..={hi}");
    }
    // Without broadcast tables (as the FIFO router behaves) the first router drops it.
    assert_eq!(
        Walker::new(&t).unwrap().walk_bcast(3, 0, 15),
        (vec![], vec![(3, 0)])
    );
}

#[test]
fn walker_follows_the_tables_like_the_router() {
    let t: Topology = "ring:16".parse().unwrap();
    let w = Walker::new(&t).unwrap();
    // Node 1 to node 15 goes the long way round (dateline at node 0): 15 routers.
    let (inputs, end) = w.walk(1, 15);
    assert_eq!(end, PathEnd::Node(15));
    assert_eq!(inputs.len(), 15);
    assert_eq!(inputs[0], (1, 0));
    // Beyond the network: dropped at the source's own router, NIC input.
    assert_eq!(w.walk(3, 16), (vec![(3, 0)], PathEnd::Drop(3, 0)));
    assert_eq!(w.walk(3, 0xFFFF).1, PathEnd::Drop(3, 0));
}

fn flits(src: usize, dest: usize, seq: u32, created: u64, len: u32) -> Vec<u64> {
    (0..len)
        .map(|i| packet_flit(src, dest, seq, created, i))
        .collect()
}

/// Feeds a packet, `err` on the flits listed.
fn feed(b: &mut Scoreboard, sink: usize, f: &[u64], err_at: &[usize]) -> Option<Delivery> {
    let mut out = None;
    for (i, &d) in f.iter().enumerate() {
        out = b.flit(
            sink,
            100 + i as u64,
            i + 1 == f.len(),
            err_at.contains(&i),
            d,
        );
    }
    out
}

fn exp(seq: u32, flits: u32, eep: bool, ordered: bool, head_dest: u16) -> Expected {
    Expected {
        seq,
        created: 5,
        injected: 5,
        flits,
        eep,
        ordered,
        lane: 0,
        head_dest,
    }
}

#[test]
fn scoreboard_eep_rules() {
    // Sent with EEP, arrives with EEP on the last flit: good.
    let mut b = Scoreboard::new(2);
    b.expect_at(0, &[1], exp(0, 3, true, true, 1));
    let d = feed(&mut b, 1, &flits(0, 1, 0, 5, 3), &[2]).expect("good");
    assert!(d.eep && d.flits == 3);
    assert!(b.finish().is_empty());
    // Sent with EEP, arrives without: the router lost the exceptional end.
    let mut b = Scoreboard::new(2);
    b.expect_at(0, &[1], exp(0, 3, true, true, 1));
    assert!(feed(&mut b, 1, &flits(0, 1, 0, 5, 3), &[]).is_none());
    assert_eq!(
        b.errors(),
        &[ScoreError::EepLost {
            sink: 1,
            src: 0,
            seq: 0
        }]
    );
    // EEP on a flit other than the last.
    let mut b = Scoreboard::new(2);
    b.expect_at(0, &[1], exp(0, 3, true, true, 1));
    feed(&mut b, 1, &flits(0, 1, 0, 5, 3), &[1, 2]);
    assert_eq!(b.errors(), &[ScoreError::Eep { sink: 1 }]);
}

#[test]
fn scoreboard_order_is_per_packet_and_groups_reach_every_sink() {
    // An unordered packet may be overtaken without being called lost.
    let mut b = Scoreboard::new(3);
    b.expect_at(0, &[1], exp(0, 2, false, false, 1));
    b.expect_at(0, &[1], exp(1, 2, false, true, 1));
    assert!(feed(&mut b, 1, &flits(0, 1, 1, 5, 2), &[]).is_some());
    assert!(feed(&mut b, 1, &flits(0, 1, 0, 5, 2), &[]).is_some());
    assert!(b.finish().is_empty());
    // An ordered one may not.
    let mut b = Scoreboard::new(3);
    b.expect_at(0, &[1], exp(0, 2, false, true, 1));
    b.expect_at(0, &[1], exp(1, 2, false, true, 1));
    feed(&mut b, 1, &flits(0, 1, 1, 5, 2), &[]);
    assert!(matches!(b.errors(), [ScoreError::Lost { seq: 0, .. }]));
    // A group packet (head addressed to 0x8000) is expected once at each of its sinks.
    let mut b = Scoreboard::new(3);
    b.expect_at(0, &[1, 2], exp(0, 4, false, true, 0x8000));
    let g = flits(0, 0x8000, 0, 5, 4);
    assert!(feed(&mut b, 2, &g, &[]).is_some());
    assert_eq!(b.outstanding(), 1);
    assert!(feed(&mut b, 1, &g, &[]).is_some());
    // A second copy is not outstanding; its head is not this sink's address.
    assert!(feed(&mut b, 1, &g, &[]).is_none());
    assert_eq!(
        b.finish(),
        vec![ScoreError::Misrouted {
            sink: 1,
            dest: 0x8000,
            src: 0
        }]
    );
}

#[test]
fn scoreboard_orders_broadcasts_among_themselves_only() {
    let g = 0x0300; // the range 0..=3
    let bc = |seq| Expected {
        lane: 1,
        ..exp(seq, 2, false, true, g)
    };
    let bflits = |seq| {
        let mut f = flits(0, g.into(), seq, 5, 2);
        f[0] |= BCAST_HEAD_BITS;
        f
    };
    // Unicast #1 passes broadcast #0 and broadcast #3 passes unicast #2: both fine.
    let mut b = Scoreboard::new(3);
    b.expect_at(0, &[1], bc(0));
    b.expect_at(0, &[1], exp(1, 2, false, true, 1));
    b.expect_at(0, &[1], exp(2, 2, false, true, 1));
    b.expect_at(0, &[1], bc(3));
    assert!(feed(&mut b, 1, &flits(0, 1, 1, 5, 2), &[]).is_some());
    assert!(feed(&mut b, 1, &bflits(0), &[]).is_some());
    assert!(feed(&mut b, 1, &bflits(3), &[]).is_some());
    assert!(feed(&mut b, 1, &flits(0, 1, 2, 5, 2), &[]).is_some());
    assert!(b.finish().is_empty());
    // Broadcast #3 before broadcast #0: #0 is lost, and if it comes after all, it is
    // not outstanding any more (a copy for a node of its range: a duplicate).
    let mut b = Scoreboard::new(3);
    b.expect_at(0, &[1], bc(0));
    b.expect_at(0, &[1], bc(3));
    assert!(feed(&mut b, 1, &bflits(3), &[]).is_some());
    assert!(feed(&mut b, 1, &bflits(0), &[]).is_none());
    let e = b.finish();
    assert!(
        matches!(
            e[..],
            [
                ScoreError::Lost { seq: 0, .. },
                ScoreError::Unexpected { seq: 0, .. }
            ]
        ),
        "{e:?}"
    );
}

#[test]
fn bad_soak_settings_are_rejected() {
    let t = Topology::star(8).unwrap();
    let base = SoakConfig::new(RouterKind::Fifo, t, 1_000, 1);
    for c in [
        SoakConfig {
            cycles: 0,
            ..base.clone()
        },
        SoakConfig {
            malformed: 1.5,
            ..base.clone()
        },
        SoakConfig {
            watchdog: 0,
            ..base.clone()
        },
        SoakConfig {
            bcast: -0.1,
            ..base.clone()
        },
        SoakConfig {
            bcast_fault: Some((BcastFault::LoseCopy, 8)),
            ..base.clone()
        },
        SoakConfig {
            dead_sink: Some((8, 0)),
            ..base
        },
    ] {
        assert!(matches!(soak(&c), Err(TrafficError::Config(_))), "{c:?}");
    }
}

/// Finding, not fixed (rtl/ is not this test's to change): starvation of long paths
/// under sustained saturation. On ring:64 (dateline routing: 63 -> 10 takes 53 hops
/// west), seed 1, FIFO organisation, packet 63->10 #5 is created in cycle 61 and only
/// delivered in cycle 201 380, after the sources stop at cycle ~200 300: it waits the
/// whole run (VOQ: the same, max latency 201 636). No flit stops moving (the watchdog
/// never fires) and nothing is lost; both organisations show it, so it is most likely
/// the parking-lot unfairness of locally fair round-robin arbitration (at every hop
/// through traffic shares the output with local injections, so a far source's share
/// halves per hop), not a defect of one router; not diagnosed further. Age-based
/// arbitration or source throttling would bound it. Run with `--ignored` to see it.
#[test]
#[ignore = "known: long paths starve under saturation (round-robin parking lot)"]
fn long_ring_paths_are_not_starved() {
    let t: Topology = "ring:64".parse().unwrap();
    let r = soak(&SoakConfig::new(RouterKind::Fifo, t, 200_000, 1)).unwrap();
    assert!(
        r.max_latency < 50_000,
        "slowest packet {:?}: {} cycles",
        r.slowest,
        r.max_latency
    );
}
