//! The driver's data path against the simulated cluster (the real RTL, Verilated):
//! remote and loopback writes checked byte for byte, bad input, ring limits and
//! wrap-around, back-pressure, interrupts.

use fasthsl_driver::contract::{
    ctrl, desc_flag, err, int, nic_regs as nic, rel_ctrl, status_done, DescErr, LmeDesc, LmrEntry,
    MSG_LEN_MAX,
};
use fasthsl_driver::{
    Card, CardConfig, CompletionError, Device, DmaBuffer, DriverError, PutTicket, ReliableConfig,
    ANSWER_TIMEOUT_RESET,
};
use fasthsl_rng::Rng;
use fasthsl_sim::{Cluster, SimConfig, SimDevice};
use fasthsl_topology::Topology;

/// Device-time budget for one message: far above what the link needs.
fn timeout(len: usize) -> u64 {
    2_000_000 + 20 * len as u64
}

struct Net {
    cluster: Cluster,
    cards: Vec<Card<SimDevice>>,
    src: Vec<DmaBuffer>,
}

const RX: usize = 512 << 10;
const SRC: usize = 320 << 10;
const GUARD: usize = 64;

fn up_with(spec: &str, tweak: impl Fn(&mut CardConfig)) -> Net {
    let topo: Topology = spec.parse().unwrap();
    let cluster = Cluster::new(&topo, SimConfig::default()).unwrap();
    let mut cards = Vec::new();
    let mut src = Vec::new();
    for n in 0..topo.nodes() {
        let mut card = Card::open(cluster.device(n)).unwrap();
        let mut cfg = CardConfig::for_node(&topo, n as u16);
        cfg.rx_window_bytes = RX;
        tweak(&mut cfg);
        card.configure(cfg).unwrap();
        src.push(card.device().dma_alloc(SRC).unwrap());
        cards.push(card);
    }
    for c in &cards {
        c.program_routes(&topo).unwrap();
    }
    Net {
        cluster,
        cards,
        src,
    }
}

fn up(spec: &str) -> Net {
    up_with(spec, |_| {})
}

/// A write in flight and what it should produce.
struct Sent {
    src: usize,
    dst: usize,
    msg_id: u32,
    remote: u64,
    dst_off: usize,
    flags: u16,
    data: Vec<u8>,
}

impl Net {
    /// Writes random data at `src_off` of node `s`'s buffer, poisons the target range
    /// (plus guard bytes each side) at node `d`, posts the put.
    fn send(
        &mut self,
        rng: &mut Rng,
        (s, d): (usize, usize),
        len: usize,
        src_off: usize,
        dst_off: usize,
    ) -> (Sent, PutTicket) {
        let data = rng.bytes(len);
        self.cards[s]
            .device()
            .mem_write(&self.src[s], src_off, &data)
            .unwrap();
        let g0 = dst_off.saturating_sub(GUARD);
        let g1 = (dst_off + len + GUARD).min(RX);
        self.cards[d].write_rx(g0, &vec![0xA5; g1 - g0]).unwrap();
        let remote = self.cards[d].rx_iova().unwrap() + dst_off as u64;
        let flags = rng.next_u64() as u16 & (desc_flag::IRQ_LOCAL | desc_flag::IRQ_REMOTE);
        let t = self.cards[s]
            .put(d as u16, &self.src[s], src_off, remote, len, flags)
            .unwrap();
        let w = Sent {
            src: s,
            dst: d,
            msg_id: t.msg_id,
            remote,
            dst_off,
            flags,
            data,
        };
        (w, t)
    }

    /// Checks the LMR entry and the received bytes (guards included).
    fn check(&self, w: &Sent, e: &LmrEntry) {
        assert_eq!(
            *e,
            LmrEntry {
                src: w.src as u16,
                status: status_done(DescErr::Ok),
                msg_id: w.msg_id,
                addr: w.remote,
                len: w.data.len() as u32,
                flags: w.flags,
            }
        );
        let g0 = w.dst_off.saturating_sub(GUARD);
        let g1 = (w.dst_off + w.data.len() + GUARD).min(RX);
        let mut got = vec![0u8; g1 - g0];
        self.cards[w.dst].read_rx(g0, &mut got).unwrap();
        let at = w.dst_off - g0;
        let end = at + w.data.len();
        assert!(
            got[..at].iter().all(|&b| b == 0xA5),
            "bytes before the target overwritten"
        );
        assert!(
            got[end..].iter().all(|&b| b == 0xA5),
            "bytes after the target overwritten"
        );
        if got[at..end] != w.data[..] {
            let first = got[at..]
                .iter()
                .zip(&w.data)
                .position(|(a, b)| a != b)
                .unwrap();
            panic!(
                "{} -> {}: {} bytes at +{:#x}: first difference at byte {first}",
                w.src,
                w.dst,
                w.data.len(),
                w.dst_off
            );
        }
    }

    /// No IOMMU fault, no DMA rule broken, no packet dropped, no CSR rejected.
    fn assert_clean(&self) {
        assert_eq!(
            self.cluster.iommu_fault_count(),
            0,
            "{:?}",
            self.cluster.iommu_faults()
        );
        assert!(
            self.cluster.violations().is_empty(),
            "{:?}",
            self.cluster.violations()
        );
        for (n, c) in self.cards.iter().enumerate() {
            let k = c.counters().unwrap();
            assert_eq!(k.rx_dropped(), 0, "node {n}: {k:?}");
            assert_eq!(
                (k.csr_err, k.err_status & !err::DESC_ERROR),
                (0, 0),
                "node {n}: {k:?}"
            );
        }
    }
}

fn two_node_random_writes(spec: &str, seed: u64) {
    let mut net = up(spec);
    let mut rng = Rng::new(seed);
    let mut bytes = 0;
    for i in 0..40 {
        // Both ends of the range always, log-uniform sizes in between.
        let p = 1usize << rng.below(18);
        let len = match i {
            0 => 1,
            1 | 2 => 256 << 10,
            _ => (p + rng.below(p)).clamp(1, 256 << 10),
        };
        let pair = if i % 2 == 0 { (0, 1) } else { (1, 0) };
        let src_off = rng.below(64);
        let dst_off = GUARD + rng.below(4096);
        let (w, t) = net.send(&mut rng, pair, len, src_off, dst_off);
        let c = net.cards[pair.0].wait_completion(&t, timeout(len)).unwrap();
        assert_eq!(c.result, Ok(()), "{pair:?} {len} B");
        assert_eq!((c.msg_id, c.slot), (t.msg_id, t.slot));
        let e = net.cards[pair.1].wait_lmr(timeout(len)).unwrap();
        net.check(&w, &e);
        bytes += len;
    }
    assert!(
        bytes >= 512 << 10,
        "large messages are covered too ({bytes} B)"
    );
    net.assert_clean();
    let k0 = net.cards[0].counters().unwrap();
    let k1 = net.cards[1].counters().unwrap();
    assert_eq!(
        (k0.tx_desc, k0.rx_msgs, k1.tx_desc, k1.rx_msgs),
        (20, 20, 20, 20)
    );
    assert_eq!(k0.tx_pkts, k1.rx_pkts);
    assert_eq!(k1.tx_pkts, k0.rx_pkts);
}

#[test]
fn star2_random_writes_every_byte_verified() {
    two_node_random_writes("star:2", 11);
}

#[test]
fn full2_random_writes_every_byte_verified() {
    two_node_random_writes("full:2", 12);
}

#[test]
fn full8_all_pairs_concurrently() {
    let mut net = up("full:8");
    let mut rng = Rng::new(3);
    let mut sent = Vec::new();
    let mut tickets = Vec::new();
    for s in 0..8 {
        for d in (0..8).filter(|&d| d != s) {
            let len = 1 + rng.below(256);
            // Disjoint source and target ranges: all 56 messages are in flight at once.
            let src_off = 1024 * d + rng.below(8);
            let dst_off = s * 4096 + GUARD + rng.below(1024);
            let (w, t) = net.send(&mut rng, (s, d), len, src_off, dst_off);
            sent.push(w);
            tickets.push((s, t));
        }
    }
    for (s, t) in &tickets {
        let c = net.cards[*s].wait_completion(t, timeout(4096)).unwrap();
        assert_eq!(c.result, Ok(()));
    }
    for d in 0..8 {
        for _ in 0..7 {
            let e = net.cards[d].wait_lmr(timeout(4096)).unwrap();
            let w = sent
                .iter()
                .find(|w| w.dst == d && w.src == e.src as usize && w.msg_id == e.msg_id)
                .unwrap_or_else(|| panic!("node {d}: unexpected {e:?}"));
            net.check(w, &e);
        }
        assert!(net.cards[d].poll_lmr().unwrap().is_empty());
    }
    net.assert_clean();
}

#[test]
fn card_rejects_bad_descriptors_and_keeps_working() {
    let mut net = up("full:2");
    let rx1 = net.cards[1].rx_iova().unwrap();
    let good = LmeDesc {
        local_addr: net.src[0].iova(),
        remote_addr: rx1,
        dctx: 0,
        len: 100,
        dest: 1,
        flags: 0,
        msg_id: 500,
        // Looks completed: post_unchecked must force it to 0.
        status: status_done(DescErr::Ok),
        key: 0,
    };
    let before = net.cards[0].counters().unwrap();
    for (bad, want) in [
        (
            LmeDesc {
                len: 0,
                msg_id: 1,
                ..good
            },
            DescErr::ZeroLen,
        ),
        (
            LmeDesc {
                len: MSG_LEN_MAX as u32 + 1,
                msg_id: 2,
                ..good
            },
            DescErr::LenTooBig,
        ),
        (
            LmeDesc {
                dest: 5,
                msg_id: 3,
                ..good
            },
            DescErr::BadDest,
        ),
    ] {
        let t = net.cards[0].post_unchecked(bad).unwrap();
        let c = net.cards[0].wait_completion(&t, timeout(0)).unwrap();
        assert_eq!(c.result, Err(CompletionError::Rejected(want)), "{bad:?}");
        assert_eq!(c.msg_id, bad.msg_id);
        let msg = c.result.unwrap_err().to_string();
        assert!(msg.contains(want.describe()), "{msg}");
    }
    let after = net.cards[0].counters().unwrap();
    assert_eq!(
        after.tx_pkts, before.tx_pkts,
        "no packet for a rejected descriptor"
    );
    assert_eq!(after.desc_err - before.desc_err, 3);
    assert_eq!(after.tx_desc - before.tx_desc, 3);
    assert_eq!(after.err_status, err::DESC_ERROR);
    assert_eq!(net.cards[0].clear_errors().unwrap(), err::DESC_ERROR);
    assert_eq!(net.cards[0].counters().unwrap().err_status, 0);
    assert!(
        net.cards[1].poll_lmr().unwrap().is_empty(),
        "nothing arrived"
    );

    // The next good descriptor goes through.
    net.cards[0]
        .device()
        .mem_write(&net.src[0], 0, &[7u8; 100])
        .unwrap();
    let t = net.cards[0].post_unchecked(good).unwrap();
    let c = net.cards[0].wait_completion(&t, timeout(100)).unwrap();
    assert_eq!(c.result, Ok(()));
    let e = net.cards[1].wait_lmr(timeout(100)).unwrap();
    assert_eq!((e.msg_id, e.len, e.src), (500, 100, 0));
    let mut got = [0u8; 100];
    net.cards[1].read_rx(0, &mut got).unwrap();
    assert_eq!(got, [7u8; 100]);
    net.assert_clean();
}

#[test]
fn doorbell_out_of_range_is_rejected_and_card_keeps_working() {
    let mut net = up("full:2");
    let entries = net.cards[0].config().unwrap().lme_entries;
    let dev = net.cards[0].device().clone();
    let csr_before = net.cards[0].counters().unwrap().csr_err;
    dev.bar_write32(nic::LME_PROD, entries).unwrap();
    dev.bar_write32(nic::LME_PROD, entries + 1000).unwrap();
    let k = net.cards[0].counters().unwrap();
    assert_ne!(k.err_status & err::LME_PROD_RANGE, 0, "{k:?}");
    assert_eq!(k.csr_err - csr_before, 2);
    assert_eq!(k.tx_desc, 0, "nothing was processed");
    assert_eq!(
        net.cards[0].csr_state().unwrap().lme_prod,
        0,
        "PROD unchanged"
    );
    net.cards[0].clear_errors().unwrap();

    let mut rng = Rng::new(9);
    let (w, t) = net.send(&mut rng, (0, 1), 333, 3, 77);
    let c = net.cards[0].wait_completion(&t, timeout(333)).unwrap();
    assert_eq!(c.result, Ok(()));
    let e = net.cards[1].wait_lmr(timeout(333)).unwrap();
    net.check(&w, &e);
    // The two rejected writes are the only CSR errors.
    assert_eq!(net.cards[0].counters().unwrap().csr_err - csr_before, 2);
}

#[test]
fn put_refuses_bad_requests_without_touching_the_ring() {
    let mut net = up("full:2");
    let rx = net.cards[1].rx_iova().unwrap();
    let c = &mut net.cards[0];
    let buf = &net.src[0];
    assert!(matches!(
        c.put(1, buf, 0, rx, 0, 0),
        Err(DriverError::ZeroLength)
    ));
    assert!(matches!(
        c.put(1, buf, 0, rx, MSG_LEN_MAX as usize + 1, 0),
        Err(DriverError::TooLong { .. })
    ));
    assert!(matches!(
        c.put(2, buf, 0, rx, 1, 0),
        Err(DriverError::DestOutOfRange {
            dest: 2,
            lo: 0,
            hi: 1
        })
    ));
    assert!(matches!(
        c.put(1, buf, SRC - 1, rx, 2, 0),
        Err(DriverError::LocalRange { .. })
    ));
    assert!(matches!(
        c.put(1, buf, 0, u64::MAX - 2, 8, 0),
        Err(DriverError::RemoteRange { .. })
    ));
    assert_eq!(c.outstanding(), 0);
    // Nothing reached the card: no doorbell, no descriptor processed.
    c.device().relax(fasthsl_driver::Pace::Step);
    let s = c.csr_state().unwrap();
    assert_eq!((s.lme_prod, s.lme_cons), (0, 0));
    assert_eq!(c.counters().unwrap().tx_desc, 0);
    net.assert_clean();
}

#[test]
fn ring_full_is_reported_and_clears_once_the_card_catches_up() {
    let mut net = up_with("full:2", |c| c.lme_entries = 4);
    let rx = net.cards[1].rx_iova().unwrap();
    let dev = net.cards[0].device().clone();
    let c = &mut net.cards[0];
    let buf = &net.src[0];
    // Stall the card: with CTRL.ENABLE clear, posted descriptors wait.
    dev.bar_write32(nic::CTRL, 0).unwrap();
    let tickets: Vec<_> = (0..3)
        .map(|_| c.put(1, buf, 0, rx, 8, 0).unwrap())
        .collect();
    assert_eq!(c.csr_state().unwrap().lme_prod, 3);
    let e = c.put(1, buf, 0, rx, 8, 0).unwrap_err();
    assert!(
        matches!(
            e,
            DriverError::RingFull {
                entries: 4,
                outstanding: 3
            }
        ),
        "{e}"
    );
    let e = c.wait_completion(&tickets[0], 20_000).unwrap_err();
    assert!(matches!(e, DriverError::Timeout { .. }), "{e}");
    assert_eq!(c.csr_state().unwrap().lme_cons, 0, "the card waited");

    dev.bar_write32(nic::CTRL, ctrl::ENABLE).unwrap();
    let done = c.wait_completion(&tickets[1], timeout(8)).unwrap();
    assert_eq!((done.seq, done.slot, done.msg_id), (1, 1, 1));
    assert_eq!(done.result, Ok(()));
    // Ticket 0 completed on the way and waits in the queue.
    let rest = c.poll_completions().unwrap();
    assert_eq!(rest.iter().map(|c| c.seq).collect::<Vec<_>>(), vec![0]);
    let t3 = c.put(1, buf, 0, rx, 8, 0).unwrap();
    assert_eq!(t3.slot, 3);
    let t4 = c.put(1, buf, 0, rx, 8, 0).unwrap();
    assert_eq!(
        (t4.slot, c.csr_state().unwrap().lme_prod),
        (0, 1),
        "doorbell wraps"
    );
    assert_eq!(c.wait_completion(&t4, timeout(8)).unwrap().result, Ok(()));
    assert!(matches!(
        c.wait_completion(&tickets[0], timeout(8)),
        Err(DriverError::AlreadyReaped { seq: 0 })
    ));
    for _ in 0..5 {
        assert_eq!(net.cards[1].wait_lmr(timeout(8)).unwrap().len, 8);
    }
    net.assert_clean();
    // A ticket of an earlier configuration is recognised.
    let cfg = net.cards[0].config().unwrap().clone();
    net.cards[0].configure(cfg).unwrap();
    assert!(matches!(
        net.cards[0].wait_completion(&t4, timeout(8)),
        Err(DriverError::StaleTicket { seq: 4 })
    ));
}

#[test]
fn loopback_put_delivers_data_and_wraps_the_lmr_ring() {
    let mut net = up_with("full:2", |c| c.lmr_entries = 4);
    let mut rng = Rng::new(17);
    // More rounds than LMR entries: the consumer index must wrap.
    for round in 0..6 {
        let (w, t) = net.send(&mut rng, (1, 1), 300, 5, GUARD + 1000 + round);
        let done = net.cards[1].wait_completion(&t, timeout(300)).unwrap();
        assert_eq!((done.result, done.msg_id), (Ok(()), t.msg_id));
        let e = net.cards[1].wait_lmr(timeout(300)).unwrap();
        assert_eq!(e.msg_id, round as u32);
        net.check(&w, &e);
    }
    let c = &mut net.cards[1];
    assert!(c.poll_lmr().unwrap().is_empty());
    let s = c.csr_state().unwrap();
    assert_eq!((s.lmr_prod, s.lmr_cons), (6 % 4, 6 % 4));
    let n = c.counters().unwrap();
    assert_eq!((n.tx_desc, n.rx_msgs, n.err_status), (6, 6, 0));
    assert!(matches!(
        c.wait_lmr(1000),
        Err(DriverError::Timeout {
            what: "an LMR entry",
            ..
        })
    ));
    assert_eq!(
        net.cards[0].counters().unwrap().rx_msgs,
        0,
        "node 0 saw none"
    );
    net.assert_clean();
}

#[test]
fn lmr_back_pressure_loses_nothing() {
    // The receiver's LMR ring holds one finished entry at a time; five messages posted
    // at once must all arrive, in order, as the driver drains it.
    let mut net = up_with("full:2", |c| c.lmr_entries = 2);
    let mut rng = Rng::new(21);
    let mut sent = Vec::new();
    for i in 0..5 {
        let (w, _) = net.send(&mut rng, (0, 1), 200 + i, i * 1024, i * 1024 + GUARD);
        sent.push(w);
    }
    for w in &sent {
        let e = net.cards[1].wait_lmr(timeout(4096)).unwrap();
        net.check(w, &e);
    }
    let mut done = Vec::new();
    // Bounded in device time: a card that never completes fails the test, not hangs it.
    let deadline = net.cards[0].device().now_ns() + timeout(4096);
    while done.len() < 5 {
        assert!(
            net.cards[0].device().now_ns() < deadline,
            "only {} of 5 completions arrived",
            done.len()
        );
        done.extend(net.cards[0].poll_completions().unwrap());
        net.cards[0].device().relax(fasthsl_driver::Pace::Step);
    }
    assert!(done.iter().all(|c| c.result.is_ok()));
    assert_eq!(
        done.iter().map(|c| c.seq).collect::<Vec<_>>(),
        vec![0, 1, 2, 3, 4]
    );
    net.assert_clean();
}

#[test]
fn remote_interrupt_wakes_the_receiver() {
    let mut net = up("full:2");
    let rx = net.cards[1].rx_iova().unwrap();
    net.cards[0]
        .put(1, &net.src[0], 0, rx, 64, desc_flag::IRQ_REMOTE)
        .unwrap();
    let st = net.cards[1].wait_interrupt(timeout(64)).unwrap();
    assert_eq!(st.map(|s| s & int::LMR_NEW), Some(int::LMR_NEW), "{st:?}");
    assert_eq!(net.cards[1].wait_lmr(0).unwrap().len, 64);
    // Cleared: no new interrupt without a new message.
    assert_eq!(net.cards[1].wait_interrupt(10_000).unwrap(), None);
}

#[test]
fn modeled_time_is_deterministic() {
    let run = || {
        let mut net = up("star:2");
        let mut rng = Rng::new(5);
        let start = net.cluster.cycles();
        for len in [1, 1000, 65536] {
            let (w, t) = net.send(&mut rng, (0, 1), len, 5, 100);
            net.cards[0].wait_completion(&t, timeout(len)).unwrap();
            let e = net.cards[1].wait_lmr(timeout(len)).unwrap();
            net.check(&w, &e);
        }
        net.cluster.cycles() - start
    };
    assert_eq!(run(), run());
}

/// REL_CTRL.DEDUP (contract 1.7) through the driver: the switch sets and clears only its
/// own bit, a first message from a source is never a duplicate, and the receiver's
/// duplicate counters are read (and shown by `fasthsl stats` through `fields`).
#[test]
fn dedup_switch_and_counters() {
    let mut net = up("full:2");
    let rel_ctrl = |c: &Card<SimDevice>| c.device().bar_read32(nic::REL_CTRL).unwrap();
    let before = rel_ctrl(&net.cards[1]);
    assert_eq!(before & rel_ctrl::DEDUP, 0, "DEDUP is off after reset");
    // DEDUP without SENDER_WAIT would drop messages that complete out of order.
    assert!(matches!(
        net.cards[1].set_dedup(true),
        Err(DriverError::DedupNeedsSenderWait)
    ));
    assert_eq!(
        rel_ctrl(&net.cards[1]),
        before,
        "a refused switch wrote REL_CTRL"
    );
    net.cards[1].set_sender_wait(true).unwrap();
    net.cards[1].set_dedup(true).unwrap();
    assert_eq!(
        rel_ctrl(&net.cards[1]),
        before | rel_ctrl::DEDUP | rel_ctrl::SENDER_WAIT
    );
    let mut rng = Rng::new(23);
    let (w, t) = net.send(&mut rng, (0, 1), 300, 0, GUARD);
    let done = net.cards[0].wait_completion(&t, timeout(300)).unwrap();
    assert_eq!(done.result, Ok(()));
    let e = net.cards[1].wait_lmr(timeout(300)).unwrap();
    net.check(&w, &e);
    let k = net.cards[1].counters().unwrap();
    assert_eq!((k.rx_msgs, k.rx_dup, k.rx_seq_evict), (1, 0, 0), "{k:?}");
    let names: Vec<&str> = k.fields().iter().map(|(n, _)| *n).collect();
    assert!(names.contains(&"rx_dup") && names.contains(&"rx_seq_evict"));
    assert!(matches!(
        net.cards[1].set_sender_wait(false),
        Err(DriverError::DedupNeedsSenderWait)
    ));
    net.cards[1].set_dedup(false).unwrap();
    assert_eq!(rel_ctrl(&net.cards[1]), before | rel_ctrl::SENDER_WAIT);
    net.cards[1].set_sender_wait(false).unwrap();
    net.assert_clean();
}

/// `Card::set_reliable` / `clear_reliable`: one call leaves REL_CTRL, REL_TIMEOUT and
/// REL_RETRIES as asked (ACK_OFF untouched), refuses what an individual setter refuses
/// before writing anything, and "off" restores the reset state.
#[test]
fn set_reliable_in_one_call() {
    let mut net = up("full:2");
    // (REL_CTRL, REL_TIMEOUT, REL_RETRIES) as the card holds them.
    let regs = |c: &Card<SimDevice>| {
        let d = c.device();
        (
            d.bar_read32(nic::REL_CTRL).unwrap(),
            d.bar_read32(nic::REL_TIMEOUT).unwrap(),
            d.bar_read32(nic::REL_RETRIES).unwrap(),
        )
    };
    let reset = (0, u32::from(ANSWER_TIMEOUT_RESET), 0);
    assert_eq!(
        regs(&net.cards[0]),
        reset,
        "the driver's reset values are the card's"
    );
    assert_eq!(net.cards[0].reliable().unwrap(), None);

    let cfg = ReliableConfig {
        retries: 5,
        answer_timeout: 40,
        dedup: true,
        early_nack: true,
    };
    // Receiver 1 does not answer: set_reliable must leave its ACK_OFF alone.
    net.cards[1].set_acknowledge(false).unwrap();
    for c in &net.cards {
        c.set_reliable(cfg).unwrap();
        assert_eq!(c.reliable().unwrap(), Some(cfg));
    }
    let on = rel_ctrl::SENDER_WAIT | rel_ctrl::DEDUP | rel_ctrl::EARLY_NACK;
    assert_eq!(regs(&net.cards[0]), (on, 40, 5));
    assert_eq!(regs(&net.cards[1]), (on | rel_ctrl::ACK_OFF, 40, 5));
    net.cards[1].set_acknowledge(true).unwrap();

    // Refused like the setters, and nothing written.
    for bad in [16, 100] {
        let asked = ReliableConfig {
            retries: bad,
            answer_timeout: 7,
            dedup: false,
            ..cfg
        };
        assert!(matches!(
            net.cards[0].set_reliable(asked),
            Err(DriverError::RetriesTooMany { retries }) if retries == bad
        ));
        assert_eq!(regs(&net.cards[0]), (on, 40, 5), "a refused call wrote");
    }
    // Set again with fewer features: the others go off, SENDER_WAIT stays.
    let plain = ReliableConfig {
        retries: 0,
        answer_timeout: 9,
        dedup: false,
        early_nack: false,
    };
    net.cards[0].set_reliable(plain).unwrap();
    assert_eq!(regs(&net.cards[0]), (rel_ctrl::SENDER_WAIT, 9, 0));
    net.cards[0].set_reliable(cfg).unwrap();

    // Works end to end: an answered message completes OK.
    let mut rng = Rng::new(29);
    let (w, t) = net.send(&mut rng, (0, 1), 1500, 0, GUARD);
    let done = net.cards[0].wait_completion(&t, timeout(1500)).unwrap();
    assert_eq!(done.result, Ok(()));
    let e = net.cards[1].wait_lmr(timeout(1500)).unwrap();
    net.check(&w, &e);
    assert_eq!(net.cards[1].counters().unwrap().ack_tx, 1);

    // Off, from DEDUP on (which plain set_sender_wait(false) refuses): the reset state.
    for c in &net.cards {
        c.clear_reliable().unwrap();
        assert_eq!(regs(c), reset);
        assert_eq!(c.reliable().unwrap(), None);
        c.clear_reliable().unwrap();
        assert_eq!(regs(c), reset, "off twice is still off");
    }
    net.assert_clean();
}

#[test]
fn retries_retransmit_an_unanswered_message_then_give_up() {
    let mut net = up("full:2");
    let mut rng = Rng::new(23);
    let c0 = &net.cards[0];
    assert_eq!(c0.retries().unwrap(), 0, "REL_RETRIES resets to 0");
    c0.set_retries(3).unwrap();
    assert_eq!(c0.retries().unwrap(), 3, "REL_RETRIES reads back");
    assert!(matches!(
        c0.set_retries(16),
        Err(DriverError::RetriesTooMany { retries: 16 })
    ));
    assert_eq!(c0.retries().unwrap(), 3, "a refused value changes nothing");
    c0.set_sender_wait(true).unwrap();
    c0.set_answer_timeout(4).unwrap();
    // The receiver never answers: every copy lands, none is acknowledged.
    net.cards[1].set_acknowledge(false).unwrap();
    let (w, t) = net.send(&mut rng, (0, 1), 2000, 8, GUARD);
    let done = net.cards[0].wait_completion(&t, timeout(2000)).unwrap();
    assert!(
        matches!(
            done.result,
            Err(CompletionError::Rejected(DescErr::RetryExhausted))
        ),
        "{:?}",
        done.result
    );
    let n = net.cards[0].counters().unwrap();
    assert_eq!(
        (n.retx, n.rel_timeout, n.tx_desc, n.desc_err),
        (3, 4, 1, 1),
        "first copy and 3 retransmissions, each timed out: {n:?}"
    );
    assert_eq!(n.tx_pkts, 4 * 2, "2000 bytes: 2 packets per copy");
    // Copies the receiver did not filter as duplicates each get an entry (its sequence
    // window is the receiver's business); every one describes the same, intact message.
    let e = net.cards[1].wait_lmr(timeout(2000)).unwrap();
    net.check(&w, &e);
    let more = net.cards[1].poll_lmr().unwrap();
    assert!(more.len() <= 3, "{more:?}");
    for e in &more {
        net.check(&w, e);
    }
    assert_eq!(net.cards[1].counters().unwrap().ack_tx, 0);
    net.assert_clean();
}
