//! The push window and inline payloads against the simulated cluster (the real RTL):
//! every path delivers byte-exact data, a pushed descriptor costs no descriptor read and
//! an inline one no read at all (its first flit leaves sooner than one DMA read round
//! trip after the put), pushed and ring descriptors complete in one order, misuse of the
//! window is rejected and counted while the card keeps going, the modeled 8-byte one-way
//! latency stays within its budget and 4 KiB streaming keeps the link busy (modeled
//! cycles, deterministic: these are regression checks, not timed tests).

use fasthsl_driver::contract::{
    desc_flag, err, nic_regs as nic, status_done, DescErr, LmeDesc, LmrEntry, INLINE_MAX,
};
use fasthsl_driver::{
    Card, CardConfig, CompletionError, Device, DmaBuffer, DriverError, PutPath, PutTicket,
};
use fasthsl_sim::{Cluster, SimConfig, SimDevice};
use fasthsl_topology::Topology;

const TIMEOUT_NS: u64 = 5_000_000;
const RX: usize = 256 << 10;

struct Net {
    cluster: Cluster,
    cards: Vec<Card<SimDevice>>,
    src: Vec<DmaBuffer>,
    seed: u64,
}

fn up() -> Net {
    let topo: Topology = "full:2".parse().unwrap();
    let cluster = Cluster::new(&topo, SimConfig::default()).unwrap();
    let mut cards = Vec::new();
    let mut src = Vec::new();
    for n in 0..2 {
        let mut card = Card::open(cluster.device(n)).unwrap();
        let mut cfg = CardConfig::for_node(&topo, n as u16);
        cfg.rx_window_bytes = RX;
        card.configure(cfg).unwrap();
        src.push(card.device().dma_alloc(64 << 10).unwrap());
        cards.push(card);
    }
    for c in &cards {
        c.program_routes(&topo).unwrap();
    }
    Net {
        cluster,
        cards,
        src,
        seed: 1,
    }
}

impl Net {
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n)
            .map(|_| {
                self.seed = self
                    .seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (self.seed >> 33) as u8
            })
            .collect()
    }

    /// Node 0 sends `len` random bytes from `src_off` to node 1's receive region at
    /// `dst_off` along `path`; returns the ticket and the data.
    fn send(
        &mut self,
        path: PutPath,
        len: usize,
        src_off: usize,
        dst_off: usize,
    ) -> (PutTicket, Vec<u8>) {
        let data = self.bytes(len);
        self.cards[0]
            .device()
            .mem_write(&self.src[0], src_off, &data)
            .unwrap();
        let remote = self.cards[1].rx_iova().unwrap() + dst_off as u64;
        let t = self.cards[0]
            .put_via(path, 1, &self.src[0], src_off, remote, len, 0)
            .unwrap();
        (t, data)
    }

    /// Waits for node 1's next LMR entry and checks it and the bytes it announces.
    fn expect(&mut self, t: &PutTicket, data: &[u8], dst_off: usize) {
        let e = self.cards[1].wait_lmr(TIMEOUT_NS).unwrap();
        let rx = self.cards[1].rx_iova().unwrap();
        assert_eq!(
            e,
            LmrEntry {
                src: 0,
                status: status_done(DescErr::Ok),
                msg_id: t.msg_id,
                addr: rx + dst_off as u64,
                len: data.len() as u32,
                // INLINE is local to the sender: it does not travel.
                flags: 0,
            },
            "{t:?}"
        );
        let mut got = vec![0u8; data.len()];
        self.cards[1].read_rx(dst_off, &mut got).unwrap();
        assert!(got == data, "{t:?}: data differs");
    }

    fn assert_clean(&self) {
        assert_eq!(
            self.cluster.iommu_fault_count(),
            0,
            "{:?}",
            self.cluster.iommu_faults()
        );
        assert!(self.cluster.violations().is_empty());
        for c in &self.cards {
            assert_eq!(c.counters().unwrap().rx_dropped(), 0);
        }
    }
}

#[test]
fn every_path_delivers_and_pushes_skip_the_reads() {
    let mut net = up();
    let cfg = SimConfig::default();
    let rtt = cfg.ns_to_cycles(cfg.dma_read_rtt_ns);
    let posted = cfg.ns_to_cycles(cfg.posted_write_ns);
    net.cluster.set_tap(0, true);
    let mut pushes = 0;
    let cases: Vec<(PutPath, usize)> = (1..=INLINE_MAX as usize)
        .step_by(7)
        .chain([8, 64])
        .map(|n| (PutPath::InlinePush, n))
        .chain([
            (PutPath::Push, 1),
            (PutPath::Push, 100),
            (PutPath::Push, 3000),
        ])
        .chain([(PutPath::Ring, 3), (PutPath::Ring, 8), (PutPath::Ring, 9)])
        .chain([(PutPath::Auto, 5), (PutPath::Auto, 2000)])
        .collect();
    for (i, &(path, len)) in cases.iter().enumerate() {
        let (src_off, dst_off) = (8 * i + i % 8, 4096 * i + (3 * i) % 8);
        net.cluster.take_tap(0);
        let t0 = net.cluster.cycles();
        let (t, data) = net.send(path, len, src_off, dst_off);
        let want = match (path, len) {
            (PutPath::Auto, n) if n <= INLINE_MAX as usize => PutPath::InlinePush,
            (PutPath::Auto, _) => PutPath::Push,
            (p, _) => p,
        };
        assert_eq!(t.path, want);
        if matches!(want, PutPath::Push | PutPath::InlinePush) {
            pushes += 1;
        }
        let c = net.cards[0].wait_completion(&t, TIMEOUT_NS).unwrap();
        assert_eq!(c.result, Ok(()), "{path:?} {len}");
        net.expect(&t, &data, dst_off);
        let first = net.cluster.take_tap(0)[0].cycle - t0;
        // Doorbell (posted) + one read round trip per read the card made, + a few cycles.
        // Payloads of up to 8 bytes ride in the descriptor on every path.
        let reads = match (want, len) {
            (PutPath::InlinePush, _) => 0,
            (PutPath::Push, n) if n <= 8 => 0,
            (PutPath::Ring, n) if n <= 8 => 1,
            (PutPath::Push, _) => 1,
            _ => 2,
        };
        assert!(
            first > posted + reads * rtt && first < posted + reads * rtt + 40,
            "{path:?} {len} B: first flit {first} cycles after the put, expected {reads} read(s)"
        );
    }
    let k = net.cards[0].counters().unwrap();
    assert_eq!((k.push, k.push_reject, k.err_status), (pushes, 0, 0));
    net.assert_clean();
}

#[test]
fn pushed_and_ring_descriptors_complete_in_one_order() {
    let mut net = up();
    // Back to back: the first is pushed, the rest go to the ring behind it (Auto), plus
    // forced pushes while the push path may be busy: those the card cannot take are
    // served from their ring copy, counted, and still land in order.
    let mut sent = Vec::new();
    for i in 0..24 {
        let path = match i % 5 {
            1 => PutPath::InlinePush,
            4 => PutPath::Push,
            _ => PutPath::Auto,
        };
        let len = [8, 40, 64, 300, 1500][i % 5];
        let dst = 2048 * i;
        let (t, data) = net.send(path, len, dst + i % 8, dst);
        if i == 0 {
            assert_eq!(t.path, PutPath::InlinePush);
        } else if path == PutPath::Auto {
            assert_eq!(t.path, PutPath::Ring, "descriptors outstanding: ring");
        }
        sent.push((t, data, dst));
    }
    let mut done = Vec::new();
    while done.len() < sent.len() {
        done.extend(net.cards[0].poll_completions().unwrap());
        net.cluster.step(100);
    }
    let seqs: Vec<u64> = done.iter().map(|c| c.seq).collect();
    let want: Vec<u64> = sent.iter().map(|(t, ..)| t.seq).collect();
    assert_eq!(seqs, want, "one completion stream, in posting order");
    assert!(done.iter().all(|c| c.result.is_ok()));
    for (t, data, dst) in &sent {
        net.expect(t, data, *dst);
    }
    let k = net.cards[0].counters().unwrap();
    assert_eq!(k.tx_desc, 24);
    let pushed = sent
        .iter()
        .filter(|(t, ..)| t.path != PutPath::Ring)
        .count() as u32;
    assert_eq!(
        k.push + k.push_reject,
        pushed,
        "every push either taken or rejected"
    );
    // Pushes right behind another find the push path busy: rejected, served from the
    // ring copy, delivered anyway (checked above).
    assert!(k.push >= 1 && k.push_reject >= 1, "{k:?}");
    assert_eq!(k.err_status, err::PUSH_REJECT);
    net.assert_clean();
}

#[test]
fn push_window_misuse_is_rejected_and_the_card_keeps_going() {
    let mut net = up();
    let rx1 = net.cards[1].rx_iova().unwrap();
    let dev = net.cards[0].device().clone();
    let local = net.src[0].iova();
    let good = LmeDesc {
        local_addr: local,
        remote_addr: rx1,
        dctx: 0,
        len: 100,
        dest: 1,
        flags: 0,
        msg_id: 77,
        status: 0,
        key: 0,
    };
    // Inline length above what the pushed or the ring descriptor can carry: the
    // descriptor fails with INLINE_LEN, nothing is sent.
    let inl = |len| LmeDesc {
        len,
        flags: desc_flag::INLINE,
        ..good
    };
    let t = net.cards[0]
        .push_unchecked(good, inl(INLINE_MAX as u32 + 1), &[0; 56])
        .unwrap();
    let c = net.cards[0].wait_completion(&t, TIMEOUT_NS).unwrap();
    assert_eq!(c.result, Err(CompletionError::Rejected(DescErr::InlineLen)));
    let t = net.cards[0].post_unchecked(inl(9)).unwrap();
    let c = net.cards[0].wait_completion(&t, TIMEOUT_NS).unwrap();
    assert_eq!(c.result, Err(CompletionError::Rejected(DescErr::InlineLen)));
    // A trigger that adds no descriptor, and one with the window not rewritten since the
    // last trigger: both rejected (LME_PROD unchanged: nothing is sent).
    let prod = dev.bar_read32(nic::LME_PROD).unwrap();
    dev.bar_write32(nic::PUSH_DESC + 7 * nic::PUSH_DESC_STRIDE, prod)
        .unwrap();
    dev.bar_write32(nic::PUSH_DESC + 7 * nic::PUSH_DESC_STRIDE, prod)
        .unwrap();
    // Reading the write-only window is a CSR error, not a hang.
    assert_eq!(dev.bar_read32(nic::PUSH_DESC).unwrap(), u32::MAX);
    let k = net.cards[0].counters().unwrap();
    assert_eq!((k.push, k.push_reject, k.desc_err, k.csr_err), (1, 2, 2, 1));
    assert_eq!(
        k.err_status,
        err::PUSH_REJECT | err::DESC_ERROR | err::CSR_BAD_ADDR
    );
    assert_eq!(
        dev.bar_read32(nic::PUSH_STATUS).unwrap(),
        fasthsl_driver::contract::push::FREE
    );
    net.cards[0].clear_errors().unwrap();
    assert!(net.cards[1].poll_lmr().unwrap().is_empty(), "nothing sent");
    // The card keeps going, on every path.
    for (i, path) in [PutPath::InlinePush, PutPath::Push, PutPath::Ring]
        .into_iter()
        .enumerate()
    {
        let (t, data) = net.send(path, 50, 0, 1024 * i);
        assert_eq!(
            net.cards[0].wait_completion(&t, TIMEOUT_NS).unwrap().result,
            Ok(())
        );
        net.expect(&t, &data, 1024 * i);
    }
    // An inline path cannot carry more than INLINE_MAX bytes: a typed error, nothing posted.
    let e = net.cards[0]
        .put_via(
            PutPath::InlinePush,
            1,
            &net.src[0],
            0,
            rx1,
            INLINE_MAX as usize + 1,
            0,
        )
        .unwrap_err();
    assert!(matches!(e, DriverError::InlineTooLong { .. }), "{e}");
    assert_eq!(net.cards[0].outstanding(), 0);
    net.assert_clean();
}

/// Half the mean round trip of `iters` 8-byte ping-pongs between nodes 0 and 1, in
/// cycles, driver to driver, polling.
fn one_way_cycles(net: &mut Net, len: usize, iters: u64) -> f64 {
    let rx = [
        net.cards[0].rx_iova().unwrap(),
        net.cards[1].rx_iova().unwrap(),
    ];
    let c0 = net.cluster.cycles();
    for _ in 0..iters {
        for (s, d) in [(0, 1), (1, 0)] {
            net.cards[s]
                .put(d as u16, &net.src[s], 0, rx[d], len, 0)
                .unwrap();
            net.cards[d].wait_lmr(TIMEOUT_NS).unwrap();
        }
    }
    (net.cluster.cycles() - c0) as f64 / (2 * iters) as f64
}

#[test]
fn eight_byte_one_way_latency_stays_within_700_ns() {
    let mut net = up();
    one_way_cycles(&mut net, 8, 1); // warm-up
    let cyc = one_way_cycles(&mut net, 8, 4);
    let ns = cyc * SimConfig::default().clock_period_ps as f64 / 1000.0;
    // Modeled time (deterministic cycles), not wall-clock time.
    assert!(ns <= 700.0, "8-byte one-way latency {ns} ns ({cyc} cycles)");
    let k = net.cards[0].counters().unwrap();
    assert_eq!(k.push, 5, "every ping went through the push window");
    net.assert_clean();
}

/// Streams `count` messages of `len` bytes from every node in `senders` to the other at
/// once; returns the bytes per cycle each direction achieved (first put to last LMR
/// entry at the receiver).
fn stream(net: &mut Net, len: usize, count: usize, senders: &[usize]) -> Vec<f64> {
    let rx = [
        net.cards[0].rx_iova().unwrap(),
        net.cards[1].rx_iova().unwrap(),
    ];
    let (mut sent, mut got, mut end) = ([0; 2], [0; 2], [0u64; 2]);
    let c0 = net.cluster.cycles();
    while senders.iter().any(|&s| got[s] < count) {
        assert!(
            net.cluster.cycles() - c0 < 10_000_000,
            "stream stuck: {got:?}"
        );
        for &s in senders {
            let d = 1 - s;
            while sent[s] < count {
                let remote = rx[d] + ((sent[s] % 32) * len) as u64;
                match net.cards[s].put(d as u16, &net.src[s], 0, remote, len, 0) {
                    Ok(_) => sent[s] += 1,
                    Err(DriverError::RingFull { .. }) => break,
                    Err(e) => panic!("{e}"),
                }
            }
            for c in net.cards[s].poll_completions().unwrap() {
                assert_eq!(c.result, Ok(()));
            }
            for e in net.cards[d].poll_lmr().unwrap() {
                assert_eq!((e.len as usize, e.status), (len, status_done(DescErr::Ok)));
                got[s] += 1;
                if got[s] == count {
                    end[s] = net.cluster.cycles() - c0;
                }
            }
        }
        net.cluster.step(1);
    }
    senders
        .iter()
        .map(|&s| (len * count) as f64 / end[s] as f64)
        .collect()
}

#[test]
fn streaming_4k_messages_reach_95_percent_of_the_link_each_way() {
    let mut net = up();
    // The raw link moves one 8-byte flit per cycle; headers and CRC count against us.
    let one_way = stream(&mut net, 4096, 128, &[0])[0];
    assert!(one_way >= 0.95 * 8.0, "{one_way} bytes/cycle");
    let both = stream(&mut net, 4096, 128, &[0, 1]);
    assert!(
        both.iter().all(|&b| b >= 0.90 * 8.0),
        "bidirectional {both:?} bytes/cycle"
    );
    net.assert_clean();
}
