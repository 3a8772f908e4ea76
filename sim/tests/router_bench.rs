//! The router traffic benchmark harness (`fasthsl_sim::traffic`): its scoreboard, its
//! determinism, and the numbers it must reproduce on the real router RTL.

use fasthsl_sim::traffic::*;
use fasthsl_sim::Topology;

/// Feeds one packet's flits to the scoreboard; returns the delivery if it was good.
fn deliver(b: &mut Scoreboard, sink: usize, flits: &[u64], cycle: u64) -> Option<Delivery> {
    let mut out = None;
    for (i, &f) in flits.iter().enumerate() {
        out = b.flit(sink, cycle + i as u64, i + 1 == flits.len(), false, f);
    }
    out
}

fn packet(src: usize, dest: usize, seq: u32, created: u64, len: u32) -> Vec<u64> {
    (0..len)
        .map(|i| packet_flit(src, dest, seq, created, i))
        .collect()
}

#[test]
fn head_flit_carries_dest_in_the_contract_field() {
    let h = head_flit(5, 3, 0x06AD_BEEF);
    let hdr = fasthsl_contract::PktHdr::from_words(&[h, 0, 0]);
    assert_eq!((hdr.dest, hdr.src), (5, 3));
    // ptype WRITE whatever the sequence number (routers replicate ptype BCAST).
    assert_eq!(hdr.ptype, fasthsl_contract::Ptype::Write as u8);
    assert_eq!(parse_head(h), (5, 3, 0x06AD_BEEF));
    // Nor does a sequence number ever set the ADAPTIVE flag (routers read it).
    for seq in (0..512).chain([(1 << 27) - 1]) {
        let h = head_flit(1, 2, seq);
        let hdr = fasthsl_contract::PktHdr::from_words(&[h, 0, 0]);
        assert_eq!(hdr.ptype, 0, "seq {seq}");
        assert_eq!(h & ADAPTIVE_HEAD_BIT, 0, "seq {seq}");
        assert_eq!(
            u16::from(hdr.flags) & fasthsl_contract::desc_flag::ADAPTIVE,
            0
        );
        assert_eq!(parse_head(h | ADAPTIVE_HEAD_BIT), (1, 2, seq));
    }
}

#[test]
fn scoreboard_accepts_good_traffic() {
    let mut b = Scoreboard::new(4);
    b.sent(0, 1, 0, 10, 4);
    b.sent(0, 1, 1, 11, 1);
    b.sent(2, 1, 0, 12, 2);
    // Interleaving across sources is fine; order per pair is kept.
    let d = deliver(&mut b, 1, &packet(2, 1, 0, 12, 2), 30).expect("good packet");
    assert_eq!(
        (d.src, d.dest, d.seq, d.created, d.delivered),
        (2, 1, 0, 12, 31)
    );
    assert!(deliver(&mut b, 1, &packet(0, 1, 0, 10, 4), 40).is_some());
    assert!(deliver(&mut b, 1, &packet(0, 1, 1, 11, 1), 50).is_some());
    assert_eq!(b.outstanding(), 0);
    assert!(b.finish().is_empty());
}

#[test]
fn scoreboard_catches_a_dropped_packet() {
    let mut b = Scoreboard::new(2);
    b.sent(0, 1, 0, 0, 2);
    b.sent(0, 1, 1, 1, 2);
    assert!(deliver(&mut b, 1, &packet(0, 1, 1, 1, 2), 9).is_some());
    assert_eq!(
        b.errors(),
        &[ScoreError::Lost {
            sink: 1,
            src: 0,
            seq: 0
        }]
    );
    // A packet lost at the end shows up as missing.
    let mut b = Scoreboard::new(2);
    b.sent(1, 0, 0, 0, 1);
    assert_eq!(
        b.finish(),
        vec![ScoreError::Missing {
            sink: 0,
            src: 1,
            seq: 0
        }]
    );
}

#[test]
fn scoreboard_catches_a_duplicated_packet() {
    let mut b = Scoreboard::new(2);
    b.sent(0, 1, 0, 0, 3);
    assert!(deliver(&mut b, 1, &packet(0, 1, 0, 0, 3), 9).is_some());
    assert!(deliver(&mut b, 1, &packet(0, 1, 0, 0, 3), 19).is_none());
    assert_eq!(
        b.errors(),
        &[ScoreError::Unexpected {
            sink: 1,
            src: 0,
            seq: 0
        }]
    );
}

#[test]
fn scoreboard_catches_corruption_length_misrouting_and_eep() {
    // A corrupted body flit.
    let mut b = Scoreboard::new(2);
    b.sent(0, 1, 0, 7, 5);
    let mut p = packet(0, 1, 0, 7, 5);
    p[3] ^= 1 << 17;
    assert!(deliver(&mut b, 1, &p, 9).is_none());
    assert_eq!(
        b.errors(),
        &[ScoreError::Corrupt {
            sink: 1,
            src: 0,
            seq: 0,
            flit: 3
        }]
    );
    // A wrong creation stamp (flit 1) is corruption too.
    let mut b = Scoreboard::new(2);
    b.sent(0, 1, 0, 7, 2);
    assert!(deliver(&mut b, 1, &packet(0, 1, 0, 8, 2), 9).is_none());
    assert!(matches!(b.errors(), [ScoreError::Corrupt { flit: 1, .. }]));
    // Cut short.
    let mut b = Scoreboard::new(2);
    b.sent(0, 1, 0, 7, 5);
    assert!(deliver(&mut b, 1, &packet(0, 1, 0, 7, 3), 9).is_none());
    assert!(matches!(
        b.errors(),
        [ScoreError::Length {
            got: 3,
            want: 5,
            ..
        }]
    ));
    // Delivered to the wrong node.
    let mut b = Scoreboard::new(3);
    b.sent(0, 1, 0, 7, 1);
    assert!(deliver(&mut b, 2, &packet(0, 1, 0, 7, 1), 9).is_none());
    assert!(matches!(
        b.errors(),
        [ScoreError::Misrouted {
            sink: 2,
            dest: 1,
            src: 0
        }]
    ));
    // EEP.
    let mut b = Scoreboard::new(2);
    b.sent(0, 1, 0, 7, 1);
    b.flit(1, 9, true, true, packet(0, 1, 0, 7, 1)[0]);
    assert!(b.errors().contains(&ScoreError::Eep { sink: 1 }));
}

fn small(router: RouterKind, offered: f64) -> TrafficConfig {
    TrafficConfig {
        packet_flits: 4,
        warmup: 500,
        measure: 3_000,
        ..TrafficConfig::single_router(router, offered)
    }
}

#[test]
fn same_seed_same_result_other_seed_other_result() {
    let c = small(RouterKind::Fifo, 0.5);
    let a = run(&c).unwrap();
    let b = run(&c).unwrap();
    assert_eq!(a, b);
    let d = run(&TrafficConfig { seed: 2, ..c }).unwrap();
    assert_ne!(a, d);
    assert!(a.stable && a.measured_packets > 1_000);
    assert_eq!(a.measured_delivered, a.measured_packets);
}

/// Head-of-line blocking: Karol, Hluchyj, Morgan (1987) give 0.618 for an 8x8 FIFO
/// input-queued switch with destinations uniform over all outputs (0.586 for large N);
/// with destinations uniform over the 7 *other* ports, as here, the same model gives
/// 0.625 (Monte Carlo). The real router must land there: anything else is a generator,
/// credit or allocation problem.
#[test]
fn fifo_uniform_saturation_matches_hol_theory() {
    let c = TrafficConfig {
        saturate: true,
        warmup: 1_000,
        measure: 20_000,
        ..TrafficConfig::single_router(RouterKind::Fifo, 1.0)
    };
    let r = run(&c).unwrap();
    assert!(
        (0.60..=0.64).contains(&r.accepted),
        "saturation throughput {}",
        r.accepted
    );
    // Below it, the offered load is carried; beyond it, it is not.
    let low = run(&small(RouterKind::Fifo, 0.3)).unwrap();
    assert!(low.stable && (low.accepted - 0.3).abs() < 0.03, "{low:?}");
    let high = run(&small(RouterKind::Fifo, 0.9)).unwrap();
    assert!(!high.stable && high.accepted < 0.7, "{high:?}");
}

/// Two cycles per router, plus one for each pipeline option of the pipelined VOQ router
/// (REG_AVAIL, REG_POP, ALLOC_PIPE: 5) and two for the three-stage allocator (REG_AVAIL,
/// REG_POP, ALLOC_SPEC: 6), on one router and through two.
#[test]
fn zero_load_latency_per_router_is_two_cycles_plus_the_pipeline_options() {
    for (kind, depth, hop) in [
        (RouterKind::Fifo, CARD_BUF_DEPTH, 2),
        (RouterKind::Voq, CARD_BUF_DEPTH, 2),
        (RouterKind::Voq, DEEP_BUF_DEPTH, 2),
        (RouterKind::VoqPipe, CARD_BUF_DEPTH, 5),
        (RouterKind::VoqSpec, CARD_BUF_DEPTH, 6),
    ] {
        let star = zero_load(kind, depth, &Topology::star(8).unwrap(), 1).unwrap();
        assert_eq!(star.samples.len(), 56);
        assert!(star
            .samples
            .iter()
            .all(|&(_, _, h, l)| h == 1 && l == star.direct + hop));
        assert_eq!(star.per_hop, hop as f64);
        for flits in [1, 4] {
            let full = zero_load(kind, depth, &Topology::full(4).unwrap(), flits).unwrap();
            assert!(full
                .samples
                .iter()
                .all(|&(_, _, h, l)| h == 2 && l == full.direct + 2 * hop));
            assert_eq!(full.per_hop, hop as f64);
        }
        // A longer packet adds its serialisation only.
        let long = zero_load(kind, depth, &Topology::star(8).unwrap(), 8).unwrap();
        assert_eq!(long.direct, star.direct + 7);
        assert_eq!(long.per_hop, hop as f64);
    }
}

/// Saturation per cycle of the pipelined router against the default one: permutations
/// still at link rate, uniform 1-flit packets within 0.06 of it (the grants a cycle
/// before the accepts lose some matches: tb_rcube_router_sat).
#[test]
fn pipelined_router_saturation_is_close_to_the_default() {
    let sat = |kind, pattern, flits| {
        let c = TrafficConfig {
            pattern,
            packet_flits: flits,
            saturate: true,
            warmup: 1_000,
            measure: 4_000,
            ..TrafficConfig::single_router(kind, 1.0)
        };
        run(&c).unwrap().accepted
    };
    for flits in [1, 16] {
        let p = sat(RouterKind::VoqPipe, Pattern::Permutation, flits);
        assert!(p > 0.99, "permutation, {flits} flits: {p}");
        let pipe = sat(RouterKind::VoqPipe, Pattern::Uniform, flits);
        let voq = sat(RouterKind::Voq, Pattern::Uniform, flits);
        eprintln!("uniform, {flits}-flit packets: voq {voq:.3}, voq-pipe {pipe:.3}");
        assert!(
            pipe > 0.5 && pipe > voq - 0.06,
            "uniform, {flits} flits: {pipe} vs {voq}"
        );
    }
}

#[test]
fn full4_network_delivers_everything() {
    for pattern in [Pattern::Uniform, Pattern::Transpose, Pattern::Bitcomp] {
        let c = TrafficConfig {
            topology: Topology::full(4).unwrap(),
            pattern,
            packet_flits: 5,
            offered: 0.3,
            warmup: 300,
            measure: 2_000,
            ..TrafficConfig::single_router(RouterKind::Voq, 0.3)
        };
        // run() drains the network and fails on any lost, duplicated or damaged packet.
        let r = run(&c).unwrap();
        assert!(r.stable, "{pattern}: {r:?}");
        assert!(r.delivered_packets > 200, "{pattern}: {r:?}");
        // full:N: every pair is two routers apart; transpose keeps 0 and 3 at home.
        let hops = if pattern == Pattern::Transpose {
            1.5
        } else {
            2.0
        };
        assert!((r.mean_hops - hops).abs() < 0.1, "{pattern}: {r:?}");
    }
}

#[test]
fn hotspot_limits_throughput_to_the_hot_port() {
    // Half the traffic of 7 nodes to one port: it saturates when 7 * 0.5 * load = 1.
    let c = TrafficConfig {
        pattern: Pattern::Hotspot {
            node: 2,
            fraction: 0.5,
        },
        ..small(RouterKind::Fifo, 0.5)
    };
    let r = run(&c).unwrap();
    assert!(!r.stable, "{r:?}");
    let ok = run(&TrafficConfig { offered: 0.1, ..c }).unwrap();
    assert!(ok.stable, "{ok:?}");
}

#[test]
fn bad_settings_are_rejected() {
    let base = TrafficConfig::single_router(RouterKind::Fifo, 0.5);
    let bad = |c: TrafficConfig| matches!(run(&c), Err(TrafficError::Config(_)));
    assert!(bad(TrafficConfig {
        packet_flits: 0,
        ..base.clone()
    }));
    assert!(bad(TrafficConfig {
        packet_flits: 65,
        ..base.clone()
    }));
    assert!(bad(TrafficConfig {
        offered: 0.0,
        ..base.clone()
    }));
    assert!(bad(TrafficConfig {
        offered: 1.5,
        ..base.clone()
    }));
    assert!(bad(TrafficConfig {
        measure: 0,
        ..base.clone()
    }));
    // transpose needs 4^k nodes; star:8 has 8.
    assert!(bad(TrafficConfig {
        pattern: Pattern::Transpose,
        ..base.clone()
    }));
    assert!(bad(TrafficConfig {
        pattern: Pattern::Hotspot {
            node: 8,
            fraction: 0.1
        },
        ..base.clone()
    }));
    assert!(bad(TrafficConfig {
        topology: Topology::star(1).unwrap(),
        ..base.clone()
    }));
    // Only the linked depths exist: 4096 is built for VOQ only, 64 for neither.
    assert!(bad(TrafficConfig {
        buf_depth: DEEP_BUF_DEPTH,
        ..base.clone()
    }));
    for router in [
        RouterKind::Fifo,
        RouterKind::Voq,
        RouterKind::VoqPipe,
        RouterKind::VoqSpec,
    ] {
        assert!(bad(TrafficConfig {
            router,
            buf_depth: 64,
            ..base.clone()
        }));
    }
    assert!(bad(TrafficConfig {
        router: RouterKind::VoqPipe,
        buf_depth: DEEP_BUF_DEPTH,
        ..base.clone()
    }));
    assert_eq!(RouterKind::Voq.buf_depth_list(" or "), "16 or 4096");
    let e = run(&TrafficConfig {
        router: RouterKind::Voq,
        buf_depth: 64,
        ..base.clone()
    })
    .unwrap_err();
    assert!(e.to_string().contains("with 16 or 4096 flits"), "{e}");

    assert_eq!("fifo".parse::<RouterKind>().unwrap(), RouterKind::Fifo);
    assert_eq!(
        "voq-pipe".parse::<RouterKind>().unwrap(),
        RouterKind::VoqPipe
    );
    assert_eq!(RouterKind::VoqPipe.to_string(), "voq-pipe");
    assert_eq!(
        "voq-spec".parse::<RouterKind>().unwrap(),
        RouterKind::VoqSpec
    );
    assert_eq!(RouterKind::VoqSpec.to_string(), "voq-spec");
    let e = "fofo".parse::<RouterKind>().unwrap_err();
    assert!(
        e.to_string().contains("fifo, voq, voq-pipe, voq-spec"),
        "{e}"
    );
    assert_eq!(
        "uniform-all".parse::<Pattern>().unwrap(),
        Pattern::UniformAll
    );
    assert_eq!(
        "hotspot:3:0.25".parse::<Pattern>().unwrap(),
        Pattern::Hotspot {
            node: 3,
            fraction: 0.25
        }
    );
    for p in [
        "hotspot:x",
        "hotspot:1:2",
        "uniform:3",
        "uniform-all:1",
        "zipf",
        "hotspot:1:0.1:2",
    ] {
        assert!(p.parse::<Pattern>().is_err(), "{p}");
    }
}

/// Adaptive routing on mesh:4x4 under transpose traffic: the west-last alternatives
/// (east before the row change) relieve the links Y-then-X overloads; every packet is
/// still delivered exactly once and intact (run() drains and checks the scoreboard),
/// with order per pair not checked for adaptive packets.
#[test]
fn adaptive_routing_raises_mesh_transpose_saturation() {
    let c = TrafficConfig {
        topology: Topology::mesh(4, 4).unwrap(),
        pattern: Pattern::Transpose,
        packet_flits: 4,
        saturate: true,
        warmup: 1_000,
        measure: 5_000,
        ..TrafficConfig::single_router(RouterKind::Voq, 1.0)
    };
    let det = run(&c).unwrap();
    let ada = run(&TrafficConfig {
        routing: Routing::Adaptive,
        ..c.clone()
    })
    .unwrap();
    // Measured 0.625 and 0.719 (seed 1); 0.625 and 0.781 before the allocator's waiting
    // bound (session 37, rtl/rcube/README.md), whose pinned inputs wait for their output.
    assert!(
        ada.accepted > det.accepted + 0.08,
        "deterministic {} adaptive {}",
        det.accepted,
        ada.accepted
    );
    // The FIFO router ignores the alternatives: the same as deterministic.
    let fifo = |routing| {
        run(&TrafficConfig {
            router: RouterKind::Fifo,
            routing,
            ..c.clone()
        })
        .unwrap()
        .accepted
    };
    assert_eq!(fifo(Routing::Adaptive), fifo(Routing::Deterministic));
}

/// Issue 3's goal on the 8x8 router: >= 0.95 of link rate under uniform saturation for
/// every packet length from 1 to 64 flits, and 1.00 under permutation. It takes the deep
/// model: 4096-flit buffers (32 packets of 64 flits per input are just enough) and 2
/// iSLIP iterations whose grant pointers move on both. Without the last, 1-flit packets
/// to the 7 other ports stop at 0.948, and with 1 iteration at 0.875 (rtl/rcube/
/// README.md). Measured here (seed 1, 40 000 warm-up, 10 000 window): uniform
/// 0.98 / 0.97 / 0.97 / 0.96. The 16-flit card buffer stays near 0.6 for long packets,
/// which shows the depth is what lifts them.
#[test]
fn deep_voq_router_saturates_above_095_for_every_packet_length() {
    let sat = |depth, pattern, flits| {
        let c = TrafficConfig {
            buf_depth: depth,
            pattern,
            packet_flits: flits,
            saturate: true,
            warmup: 40_000,
            measure: 10_000,
            ..TrafficConfig::single_router(RouterKind::Voq, 1.0)
        };
        run(&c).unwrap().accepted
    };
    for flits in [1, 4, 16, 64] {
        let a = sat(DEEP_BUF_DEPTH, Pattern::Uniform, flits);
        assert!(a >= 0.95, "{flits}-flit uniform: {a}");
        let p = sat(DEEP_BUF_DEPTH, Pattern::Permutation, flits);
        assert!(p >= 0.995, "{flits}-flit permutation: {p}");
    }
    let all = sat(DEEP_BUF_DEPTH, Pattern::UniformAll, 1);
    assert!(all >= 0.98, "1-flit uniform-all: {all}");
    let shallow = sat(CARD_BUF_DEPTH, Pattern::Uniform, 64);
    assert!(shallow < 0.7, "64-flit uniform, 16-flit buffers: {shallow}");
}
