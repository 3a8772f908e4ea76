//! User-level contexts (contract 1.5) against the simulated cluster (the real RTL):
//! eight contexts per node sending at once, each LMR ring receiving exactly what was
//! addressed to its context, bad context numbers and context-page accesses refused and
//! counted, the latency of a small message on one context while another streams (at the
//! default TX_QUANTUM, with whole messages, and two other quanta), and TX_QUANTUM itself.

use std::collections::HashMap;

use fasthsl_driver::contract::{ctx_regs as ctx, desc_flag, err, int, nic_regs as nic, CTX_COUNT};
use fasthsl_driver::{Card, CardConfig, Context, Device, DmaBuffer, DriverError};

use fasthsl_rng::Rng;
use fasthsl_sim::{Cluster, SimConfig, SimDevice};
use fasthsl_topology::Topology;

const RX: usize = 2 << 20;
const SRC: usize = 1 << 20;
const TIMEOUT_NS: u64 = 50_000_000;
/// Contexts of a card.
const NCTX: usize = CTX_COUNT as usize;

fn up() -> (Cluster, Vec<Card<SimDevice>>, Vec<DmaBuffer>) {
    let topo: Topology = "full:2".parse().unwrap();
    let cluster = Cluster::new(&topo, SimConfig::default()).unwrap();
    let mut cards = Vec::new();
    let mut src = Vec::new();
    for n in 0..topo.nodes() {
        let mut card = Card::open(cluster.device(n)).unwrap();
        let mut cfg = CardConfig::for_node(&topo, n as u16);
        cfg.rx_window_bytes = RX;
        card.configure(cfg).unwrap();
        src.push(card.device().dma_alloc(SRC).unwrap());
        cards.push(card);
    }
    for c in &cards {
        c.program_routes(&topo).unwrap();
    }
    (cluster, cards, src)
}

/// A message on its way: where it lands on the receiver and its bytes.
struct Expect {
    to_node: usize,
    to_ctx: usize,
    data: Vec<u8>,
}

#[test]
fn eight_contexts_per_node_send_at_once_and_each_ring_gets_only_its_own() {
    let (cluster, mut pair, src) = up();
    let mut rng = Rng::new(7);
    // Contexts 1..7 on both nodes, each on its own device handle (as a process would
    // have); context 0 is the card's own ring.
    let mut ctxs: Vec<Vec<Context<SimDevice>>> = (0..2)
        .map(|node| {
            (1..NCTX as u32)
                .map(|n| Context::open(cluster.device(node), n, 16, 64).unwrap())
                .collect()
        })
        .collect();
    let rx_iova = [pair[0].rx_iova().unwrap(), pair[1].rx_iova().unwrap()];
    // Keyed by (receiving node, remote address): unique per message.
    let mut expect: HashMap<(usize, u64), Expect> = HashMap::new();
    let mut rx_off = [0usize; 2];
    let mut src_off = [0usize; 2];
    for round in 0..6 {
        for node in 0..2 {
            let peer = 1 - node;
            for k in 0..NCTX {
                let to_ctx = (k + round) % NCTX;
                let len = 1 + rng.below(if round == 3 { 6000 } else { 700 });
                let data: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
                let s = src_off[node];
                src_off[node] += len + 8;
                pair[node].device().mem_write(&src[node], s, &data).unwrap();
                let remote = rx_iova[peer] + rx_off[peer] as u64;
                rx_off[peer] += len + 64;
                if k == 0 {
                    // Context 0: the card's own ring (page 0), as before contexts.
                    pair[node]
                        .put(peer as u16, &src[node], s, remote, len, 0)
                        .expect("context 0 put");
                    // Card::put always names context 0 as the receiver.
                    expect.insert(
                        (peer, remote),
                        Expect {
                            to_node: peer,
                            to_ctx: 0,
                            data,
                        },
                    );
                } else {
                    ctxs[node][k - 1]
                        .put(peer as u16, to_ctx as u8, &src[node], s, remote, len, 0)
                        .unwrap();
                    expect.insert(
                        (peer, remote),
                        Expect {
                            to_node: peer,
                            to_ctx,
                            data,
                        },
                    );
                }
            }
        }
    }
    let total = expect.len();
    assert_eq!(total, 2 * 6 * NCTX);
    // Every sender's completions: all good, in its ring order.
    for node_ctxs in ctxs.iter_mut() {
        for c in node_ctxs.iter_mut() {
            let done = c.wait_all(TIMEOUT_NS).unwrap();
            assert_eq!(done.len(), 6, "context {}", c.number());
            for (i, d) in done.iter().enumerate() {
                assert_eq!(d.result, Ok(()), "context {} completion {i}", c.number());
                assert_eq!(
                    d.msg_id,
                    i as u32,
                    "context {}: completions in ring order",
                    c.number()
                );
            }
        }
    }
    // Every receiver: context k's ring holds exactly the messages addressed to k.
    let mut got = 0;
    for node in 0..2 {
        let mut per_ctx: Vec<Vec<(u64, u32)>> = vec![Vec::new(); NCTX];
        let want: Vec<usize> = (0..NCTX)
            .map(|k| {
                expect
                    .values()
                    .filter(|e| e.to_node == node && e.to_ctx == k)
                    .count()
            })
            .collect();
        for _ in 0..want[0] {
            let e = pair[node].wait_lmr(TIMEOUT_NS).unwrap();
            per_ctx[0].push((e.addr, e.len));
        }
        for c in ctxs[node].iter_mut() {
            let k = c.number() as usize;
            for _ in 0..want[k] {
                let e = c.wait_lmr(TIMEOUT_NS).unwrap();
                per_ctx[k].push((e.addr, e.len));
            }
            assert!(
                c.poll_lmr().unwrap().is_empty(),
                "context {k}: extra entries"
            );
        }
        assert!(
            pair[node].poll_lmr().unwrap().is_empty(),
            "context 0: extra entries"
        );
        for (k, entries) in per_ctx.iter().enumerate() {
            for &(addr, len) in entries {
                let e = expect
                    .remove(&(node, addr))
                    .unwrap_or_else(|| panic!("node {node} context {k}: unknown entry {addr:#x}"));
                assert_eq!(
                    e.to_ctx, k,
                    "node {node}: message for context {} in {k}'s ring",
                    e.to_ctx
                );
                assert_eq!(len as usize, e.data.len());
                let mut back = vec![0u8; e.data.len()];
                pair[node]
                    .read_rx((addr - rx_iova[node]) as usize, &mut back)
                    .unwrap();
                assert!(
                    back == e.data,
                    "node {node} context {k}: payload at {addr:#x}"
                );
                got += 1;
            }
        }
    }
    assert_eq!(got, total);
    assert!(expect.is_empty());
    for c in pair.iter() {
        let cnt = c.counters().unwrap();
        assert_eq!(cnt.err_status, 0, "no errors: {cnt:?}");
    }
}

#[test]
fn bad_contexts_and_context_page_accesses_are_refused_and_counted() {
    let (cluster, mut cards, src) = up();
    let (c0, c1) = cards.split_at_mut(1);
    let (a, b) = (&mut c0[0], &mut c1[0]);
    assert!(matches!(
        Context::open(cluster.device(0), 0, 16, 16),
        Err(DriverError::NoSuchContext { n: 0, .. })
    ));
    assert!(matches!(
        Context::open(cluster.device(0), NCTX as u32, 16, 16),
        Err(DriverError::NoSuchContext { .. })
    ));
    assert!(matches!(
        Context::open(cluster.device(0), 3, 1, 16),
        Err(DriverError::BadConfig { .. })
    ));
    let mut c3 = Context::open(cluster.device(0), 3, 16, 16).unwrap();
    assert!(matches!(
        c3.put(1, NCTX as u8, &src[0], 0, b.rx_iova().unwrap(), 8, 0),
        Err(DriverError::NoSuchContext { .. })
    ));
    assert!(matches!(
        c3.put(1, 1, &src[0], 0, 1 << 48, 8, 0),
        Err(DriverError::RemoteRange { .. })
    ));
    assert_eq!(c3.outstanding(), 0, "refused puts touch nothing");

    let dev = a.device();
    let before = a.counters().unwrap();
    assert_eq!(before.err_status, 0);
    // A page past the last context, and a global register through a context page.
    assert_eq!(dev.bar_read32(ctx::page(NCTX as u32)).unwrap(), 0xFFFF_FFFF);
    dev.bar_write32(ctx::page(3) + nic::NODE_ID, 0x77).unwrap();
    assert_eq!(
        dev.bar_read32(ctx::page(3) + nic::NODE_ID).unwrap(),
        0xFFFF_FFFF
    );
    assert_eq!(
        dev.bar_read32(nic::NODE_ID).unwrap(),
        0,
        "node id unchanged"
    );
    let after = a.counters().unwrap();
    assert_eq!(after.csr_err, before.csr_err + 3);
    assert_eq!(after.err_status & err::CSR_BAD_ADDR, err::CSR_BAD_ADDR);
    a.clear_errors().unwrap();

    // A message for a context without an LMR ring on the receiver: dropped and counted.
    let rx = b.rx_iova().unwrap();
    c3.put(1, 5, &src[0], 0, rx, 64, 0).unwrap();
    let done = c3.wait_all(TIMEOUT_NS).unwrap();
    assert_eq!(
        done[0].result,
        Ok(()),
        "the sender completes: the packets left"
    );
    let mut waited = 0;
    while b.device().bar_read32(nic::CNT_RX_DROP_CTX).unwrap() == 0 && waited < 1000 {
        b.device().relax(fasthsl_driver::Pace::Step);
        waited += 1;
    }
    let cnt = b.counters().unwrap();
    assert_eq!(cnt.rx_drop_ctx, 1);
    assert_eq!(cnt.rx_dropped(), 1);
    assert_eq!(cnt.err_status & err::RX_DROP, err::RX_DROP);
    assert!(b.poll_lmr().unwrap().is_empty());
}

#[test]
fn small_message_on_one_context_while_another_streams() {
    let (cluster, cards, src) = up();
    let a = &cards[0];
    let b = &cards[1];
    let mut big = Context::open(cluster.device(0), 1, 16, 16).unwrap();
    let mut small = Context::open(cluster.device(0), 2, 16, 16).unwrap();
    let mut rx_big = Context::open(cluster.device(1), 1, 16, 16).unwrap();
    let mut rx_small = Context::open(cluster.device(1), 2, 16, 16).unwrap();
    let rx = b.rx_iova().unwrap();
    let dev = a.device();

    let one_way = |small: &mut Context<SimDevice>, rx_small: &mut Context<SimDevice>| {
        let t0 = dev.now_ns();
        small
            .put(1, 2, &src[0], SRC - 8, rx + RX as u64 - 8, 8, 0)
            .unwrap();
        rx_small.wait_lmr(TIMEOUT_NS).unwrap();
        let t = dev.now_ns() - t0;
        small.wait_all(TIMEOUT_NS).unwrap();
        t
    };
    let alone_ns = one_way(&mut small, &mut rx_small);
    assert_eq!(
        a.tx_quantum().unwrap(),
        fasthsl_driver::contract::TX_QUANTUM_RESET as u32
    );
    // The default quantum first (the JSON line's numbers), then whole messages, then two
    // other quanta for the record.
    let quanta = [fasthsl_driver::contract::TX_QUANTUM_RESET as u32, 0, 8, 16];
    let mut behind = Vec::new();
    for (i, &q) in quanta.iter().enumerate() {
        a.set_tx_quantum(q).unwrap();
        let t_big = dev.now_ns();
        big.put(1, 1, &src[0], 0, rx, SRC - 64, 0).unwrap();
        let behind_ns = one_way(&mut small, &mut rx_small);
        rx_big.wait_lmr(TIMEOUT_NS).unwrap();
        let big_ns = dev.now_ns() - t_big;
        big.wait_all(TIMEOUT_NS).unwrap();
        if i == 0 {
            println!(
                "{{\"bench\":\"contexts\",\"small_alone_ns\":{alone_ns},\"small_behind_stream_ns\":{behind_ns},\"stream_bytes\":{},\"stream_ns\":{big_ns},\"tx_quantum\":{q}}}",
                SRC - 64
            );
        } else {
            println!(
                "{{\"bench\":\"contexts_quantum\",\"tx_quantum\":{q},\"small_behind_stream_ns\":{behind_ns},\"stream_ns\":{big_ns}}}"
            );
        }
        behind.push((q, behind_ns, big_ns));
    }
    a.set_tx_quantum(fasthsl_driver::contract::TX_QUANTUM_RESET as u32)
        .unwrap();
    // Packet-granular round robin: behind the stream, the 8-byte message waits for about
    // one segment of it (4 KiB: ~2 us at the link's 2 GB/s), not for the stream; with
    // TX_QUANTUM 0 (whole messages) it waits for most of the 1 MiB message.
    let (_, def_ns, def_big_ns) = behind[0];
    assert!(
        def_ns < alone_ns + 5_000,
        "default quantum: {def_ns} ns behind the stream, {alone_ns} ns alone"
    );
    let (_, off_ns, off_big_ns) = behind[1];
    assert!(
        off_ns > off_big_ns / 2,
        "TX_QUANTUM 0: {off_ns} ns behind a {off_big_ns} ns stream"
    );
    // Segmenting costs the lone stream (almost) nothing.
    assert!(
        def_big_ns < off_big_ns + off_big_ns / 50,
        "stream: {def_big_ns} ns in segments, {off_big_ns} ns whole"
    );
}

/// A device handle that records every BAR offset it is asked for: what a process that
/// mapped only its context's page could reach.
struct Recorder<D: Device> {
    dev: D,
    offsets: std::cell::RefCell<Vec<u32>>,
}

impl<D: Device> Device for Recorder<D> {
    fn name(&self) -> String {
        self.dev.name()
    }
    fn bar_read32(&self, offset: u32) -> Result<u32, fasthsl_driver::DeviceError> {
        self.offsets.borrow_mut().push(offset);
        self.dev.bar_read32(offset)
    }
    fn bar_write32(&self, offset: u32, value: u32) -> Result<(), fasthsl_driver::DeviceError> {
        self.offsets.borrow_mut().push(offset);
        self.dev.bar_write32(offset, value)
    }
    fn dma_alloc(&self, len: usize) -> Result<DmaBuffer, fasthsl_driver::DeviceError> {
        self.dev.dma_alloc(len)
    }
    fn dma_free(&self, buf: DmaBuffer) -> Result<(), fasthsl_driver::DeviceError> {
        self.dev.dma_free(buf)
    }
    fn mem_write(
        &self,
        buf: &DmaBuffer,
        offset: usize,
        data: &[u8],
    ) -> Result<(), fasthsl_driver::DeviceError> {
        self.dev.mem_write(buf, offset, data)
    }
    fn mem_read(
        &self,
        buf: &DmaBuffer,
        offset: usize,
        out: &mut [u8],
    ) -> Result<(), fasthsl_driver::DeviceError> {
        self.dev.mem_read(buf, offset, out)
    }
    fn relax(&self, pace: fasthsl_driver::Pace) {
        self.dev.relax(pace)
    }
    fn wait_irq(&self, timeout_ns: u64) -> Result<bool, fasthsl_driver::DeviceError> {
        self.dev.wait_irq(timeout_ns)
    }
    fn now_ns(&self) -> u64 {
        self.dev.now_ns()
    }
    fn cycles(&self) -> Option<u64> {
        self.dev.cycles()
    }
}

#[test]
fn a_context_touches_only_its_own_page() {
    let (cluster, cards, _src) = up();
    let rx = cards[1].rx_iova().unwrap();
    let rec = |node| Recorder {
        dev: cluster.device(node),
        offsets: std::cell::RefCell::new(Vec::new()),
    };
    let mut tx = Context::open(rec(0), 4, 16, 16).unwrap();
    // Its LMR ring holds every message: nothing is consumed until all are sent.
    let mut rxc = Context::open(rec(1), 6, 16, 64).unwrap();
    let buf = tx.device().dma_alloc(4096).unwrap();
    tx.device().mem_write(&buf, 0, &[0x5A; 4096]).unwrap();
    for i in 0..20 {
        tx.put(1, 6, &buf, 0, rx + 4096 * (i % 4), 100 + 50 * i as usize, 0)
            .unwrap();
        if i % 5 == 4 {
            for c in tx.wait_all(TIMEOUT_NS).unwrap() {
                assert_eq!(c.result, Ok(()));
            }
        }
    }
    for i in 0..20 {
        let e = rxc.wait_lmr(TIMEOUT_NS).unwrap();
        assert_eq!(e.len as usize, 100 + 50 * i);
    }
    for (c, n) in [(&tx, 4u32), (&rxc, 6)] {
        let offs = c.device().offsets.borrow();
        assert!(!offs.is_empty());
        for &o in offs.iter() {
            assert!(
                (ctx::page(n)..ctx::page(n) + ctx::PAGE_STRIDE).contains(&o),
                "context {n} touched BAR0 offset {o:#x} outside its page"
            );
        }
    }
}

#[test]
fn per_context_interrupt_bits_name_the_context() {
    let (cluster, cards, _src) = up();
    let rx = cards[1].rx_iova().unwrap();
    let mut tx = Context::open(cluster.device(0), 3, 16, 16).unwrap();
    let mut rxc = Context::open(cluster.device(1), 5, 16, 16).unwrap();
    let buf = tx.device().dma_alloc(64).unwrap();
    for c in &cards {
        c.device().bar_write32(nic::INT_STATUS, int::ALL).unwrap();
    }
    tx.put(
        1,
        5,
        &buf,
        0,
        rx,
        64,
        desc_flag::IRQ_LOCAL | desc_flag::IRQ_REMOTE,
    )
    .unwrap();
    rxc.wait_lmr(TIMEOUT_NS).unwrap();
    assert_eq!(tx.wait_all(TIMEOUT_NS).unwrap()[0].result, Ok(()));
    // The sender: LME_DONE (every context's, coalesced) and CTX_LME_DONE bit 8+3.
    let st = cards[0].device().bar_read32(nic::INT_STATUS).unwrap();
    assert_eq!(
        st,
        int::LME_DONE | 1 << (8 + 3),
        "sender INT_STATUS {st:#x}"
    );
    // The receiver: LMR_NEW and CTX_LMR_NEW bit 16+5.
    let st = cards[1].device().bar_read32(nic::INT_STATUS).unwrap();
    assert_eq!(
        st,
        int::LMR_NEW | 1 << (16 + 5),
        "receiver INT_STATUS {st:#x}"
    );
    assert_eq!(int::names(st), vec!["LMR_NEW", "CTX_LMR_NEW"]);
}

#[test]
fn tx_quantum_reads_back_and_bad_values_are_refused_before_the_card() {
    let (_cluster, cards, _src) = up();
    let a = &cards[0];
    assert_eq!(
        a.tx_quantum().unwrap(),
        fasthsl_driver::contract::TX_QUANTUM_RESET as u32
    );
    for q in [0, 6, 10, 24] {
        a.set_tx_quantum(q).unwrap();
        assert_eq!(a.tx_quantum().unwrap(), q);
    }
    let csr_err = a.counters().unwrap().csr_err;
    for q in [1, 5, 25, 31, 32, u32::MAX] {
        match a.set_tx_quantum(q) {
            Err(DriverError::TxQuantumInvalid { log2 }) => assert_eq!(log2, q),
            other => panic!("TX_QUANTUM {q}: {other:?}"),
        }
        assert_eq!(
            a.tx_quantum().unwrap(),
            24,
            "a refused value reached the card"
        );
    }
    assert_eq!(
        a.counters().unwrap().csr_err,
        csr_err,
        "the card saw a bad write"
    );
    // The card refuses what the driver would: a raw write of 5 is counted, 24 stays.
    a.device().bar_write32(nic::TX_QUANTUM, 5).unwrap();
    assert_eq!(a.tx_quantum().unwrap(), 24);
    assert_eq!(a.counters().unwrap().csr_err, csr_err + 1);
}
