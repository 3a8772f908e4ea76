//! User-level contexts (contract 1.5) against the simulated cluster (the real RTL):
//! eight contexts per node sending at once, each LMR ring receiving exactly what was
//! addressed to its context, bad context numbers and context-page accesses refused and
//! counted, the latency of a small message on one context while another streams (at the
//! default TX_QUANTUM, with whole messages, and two other quanta), and TX_QUANTUM itself.

use std::collections::HashMap;

use fasthsl_driver::contract::{ctx_regs as ctx, desc_flag, err, int, nic_regs as nic, CTX_COUNT};
use fasthsl_driver::{
    forward_device, Card, CardConfig, Context, Device, DmaBuffer, DriverError, ReliableConfig,
};

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
    offsets: std::rc::Rc<std::cell::RefCell<Vec<u32>>>,
}

impl<D: Device> Device for Recorder<D> {
    fn bar_read32(&self, offset: u32) -> Result<u32, fasthsl_driver::DeviceError> {
        self.offsets.borrow_mut().push(offset);
        self.dev.bar_read32(offset)
    }
    fn bar_write32(&self, offset: u32, value: u32) -> Result<(), fasthsl_driver::DeviceError> {
        self.offsets.borrow_mut().push(offset);
        self.dev.bar_write32(offset, value)
    }
    forward_device!(self => self.dev; name, dma_alloc, dma_free, mem_write, mem_read, relax,
        wait_irq, now_ns, cycles);
}

#[test]
fn a_context_touches_only_its_own_page() {
    let (cluster, cards, _src) = up();
    let rx = cards[1].rx_iova().unwrap();
    let rec = |node| Recorder {
        dev: cluster.device(node),
        offsets: Default::default(),
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

/// The same as `a_context_touches_only_its_own_page`, on page handles
/// (`PageDevice::context`): the contexts send and receive through them unchanged, every
/// access the card sees is inside the context's page, and what is outside (another
/// context's page, page 0, the page past the last context, an unaligned offset) is
/// refused by the handle before it reaches the card, so the card counts no bad access.
#[test]
fn a_context_on_its_page_handle_works_and_reaches_nothing_else() {
    use fasthsl_driver::{DeviceError, PageDevice};
    let (cluster, cards, _src) = up();
    let rx = cards[1].rx_iova().unwrap();
    let logs: [std::rc::Rc<std::cell::RefCell<Vec<u32>>>; 2] = Default::default();
    let page = |node: usize, n: u32| {
        PageDevice::context(
            Recorder {
                dev: cluster.device(node),
                offsets: logs[node].clone(),
            },
            n,
        )
    };
    let csr_err = [0, 1].map(|n| cards[n].counters().unwrap().csr_err);
    assert!(matches!(
        page(0, NCTX as u32),
        Err(DeviceError::BadPage { .. })
    ));
    // A handle on context 4's page cannot set up context 5.
    match Context::open(page(0, 4).unwrap(), 5, 16, 16) {
        Err(DriverError::Device(DeviceError::PageOffset { base, .. })) => {
            assert_eq!(base, ctx::page(4))
        }
        other => panic!("context 5 through context 4's page: {other:?}"),
    }
    assert!(
        logs[0].borrow().is_empty(),
        "the refused open reached the card"
    );

    let mut tx = Context::open(page(0, 4).unwrap(), 4, 16, 16).unwrap();
    let mut rxc = Context::open(page(1, 6).unwrap(), 6, 16, 64).unwrap();
    let buf = tx.device().dma_alloc(4096).unwrap();
    let data: Vec<u8> = (0..4096).map(|i| (i * 13 + 5) as u8).collect();
    tx.device().mem_write(&buf, 0, &data).unwrap();
    for i in 0..12u64 {
        let len = 64 + 200 * i as usize;
        tx.put(1, 6, &buf, 0, rx + 8192 * i, len, 0).unwrap();
    }
    for c in tx.wait_all(TIMEOUT_NS).unwrap() {
        assert_eq!(c.result, Ok(()));
    }
    for i in 0..12u64 {
        let e = rxc.wait_lmr(TIMEOUT_NS).unwrap();
        let len = 64 + 200 * i as usize;
        assert_eq!((e.addr, e.len as usize), (rx + 8192 * i, len));
        let mut back = vec![0u8; len];
        cards[1].read_rx((8192 * i) as usize, &mut back).unwrap();
        assert!(back == data[..len], "message {i}");
    }

    // Outside the page, through the context's own handle: refused, never sent.
    let dev = tx.device();
    let seen = logs[0].borrow().len();
    for off in [
        nic::NODE_ID,
        nic::LME_PROD,
        ctx::page(3) + ctx::LME_PROD,
        ctx::page(5),
        ctx::page(4) - 4,
        ctx::page(4) + ctx::PAGE_STRIDE,
        ctx::page(NCTX as u32),
        ctx::page(4) + ctx::LME_PROD + 2,
    ] {
        assert!(
            matches!(
                dev.bar_write32(off, 0x77),
                Err(DeviceError::PageOffset { .. })
            ),
            "write to {off:#x}"
        );
        assert!(
            matches!(dev.bar_read32(off), Err(DeviceError::PageOffset { .. })),
            "read of {off:#x}"
        );
    }
    assert_eq!(
        logs[0].borrow().len(),
        seen,
        "a refused access reached the card"
    );
    for (node, n) in [(0, 4u32), (1, 6)] {
        let offs = logs[node].borrow();
        assert!(!offs.is_empty());
        for &o in offs.iter() {
            assert!(
                (ctx::page(n)..ctx::page(n) + ctx::PAGE_STRIDE).contains(&o),
                "context {n} reached BAR0 offset {o:#x} outside its page"
            );
        }
    }
    for n in 0..2 {
        let cnt = cards[n].counters().unwrap();
        assert_eq!(
            cnt.csr_err, csr_err[n],
            "node {n}: the card saw a bad access"
        );
        assert_eq!(cnt.err_status, 0, "node {n}: {cnt:?}");
    }
    assert_eq!(cards[0].device().bar_read32(nic::NODE_ID).unwrap(), 0);
}

/// Waits (device time) until `f` holds for the receiver's counters; returns them.
fn wait_counters<D: Device>(
    card: &Card<D>,
    what: &str,
    f: impl Fn(&fasthsl_driver::Counters) -> bool,
) -> fasthsl_driver::Counters {
    let start = card.device().now_ns();
    loop {
        let k = card.counters().unwrap();
        if f(&k) {
            return k;
        }
        assert!(card.device().now_ns() - start < TIMEOUT_NS, "{what}: {k:?}");
        card.device().relax(fasthsl_driver::Pace::Step);
    }
}

/// Contract 1.8: a context that stops draining its LMR ring never stalls reception for
/// the others. Context 1 of node 1 fills its 8-entry ring (7 entries) and does not drain
/// it: further messages to it get no entry and are counted (rx_lmr_full, ERR_STATUS
/// RX_DROP) while context 2 receives a stream, every message whole. Then, with sender
/// wait, retries and the duplicate filter on both cards, messages to the full ring are
/// NACKed and retransmitted until context 1 drains its ring, and then land exactly once.
#[test]
fn a_full_context_ring_never_stalls_the_others_and_retries_deliver_once_it_drains() {
    let (cluster, cards, _src) = up();
    let rx = cards[1].rx_iova().unwrap();
    let mut tx1 = Context::open(cluster.device(0), 1, 64, 16).unwrap();
    let mut tx2 = Context::open(cluster.device(0), 2, 64, 16).unwrap();
    let mut rx1 = Context::open(cluster.device(1), 1, 16, 8).unwrap();
    let mut rx2 = Context::open(cluster.device(1), 2, 16, 64).unwrap();
    let mut rng = Rng::new(21);
    let buf = tx1.device().dma_alloc(SRC).unwrap();
    let data: Vec<u8> = (0..SRC).map(|_| rng.next_u64() as u8).collect();
    tx1.device().mem_write(&buf, 0, &data).unwrap();
    // Each message: source offset == receive offset, so its bytes are data[off..off + len].
    let mut next = 0usize;
    let mut place = |len: usize| {
        let off = next;
        next = (next + len + 64).next_multiple_of(64);
        assert!(next <= SRC);
        off
    };
    let check = |e: &fasthsl_driver::contract::LmrEntry, len: usize| {
        let off = (e.addr - rx) as usize;
        assert_eq!(e.len as usize, len);
        let mut back = vec![0u8; len];
        cards[1].read_rx(off, &mut back).unwrap();
        assert!(back == data[off..off + len], "payload at {off:#x}");
    };

    // Phase 1, no waiting: fill context 1's ring, then 5 more to it, and a stream of 32
    // messages of 1 KiB to context 2 behind them.
    for _ in 0..12 {
        let off = place(300);
        tx1.put(1, 1, &buf, off, rx + off as u64, 300, 0).unwrap();
    }
    let mut want2 = Vec::new();
    for _ in 0..32 {
        let off = place(1024);
        tx2.put(1, 2, &buf, off, rx + off as u64, 1024, 0).unwrap();
        want2.push(off);
    }
    for off in &want2 {
        let e = rx2
            .wait_lmr(TIMEOUT_NS)
            .expect("context 2 stalled by context 1's ring");
        assert_eq!(
            (e.addr - rx) as usize,
            *off,
            "context 2's messages in order"
        );
        check(&e, 1024);
    }
    for c in [&mut tx1, &mut tx2] {
        for d in c.wait_all(TIMEOUT_NS).unwrap() {
            assert_eq!(d.result, Ok(()));
        }
    }
    let k = wait_counters(&cards[1], "5 messages dropped", |k| k.rx_lmr_full == 5);
    assert_ne!(k.err_status & err::RX_DROP, 0, "{k:?}");
    // Answers are on: each drop was NACKed (a stray at the sender: it does not wait).
    assert_eq!(k.nack_tx, 5, "{k:?}");
    assert_eq!(k.rx_msgs, 7 + 32, "{k:?}");

    // Phase 2: reliable, context 1's ring still full (its 7 entries not read).
    let rel = ReliableConfig {
        retries: 15,
        answer_timeout: 4,
        early_nack: false,
        ..ReliableConfig::default()
    };
    for c in &cards {
        c.set_reliable(rel).unwrap();
        c.clear_errors().unwrap();
    }
    let full0 = cards[1].counters().unwrap().rx_lmr_full;
    let retx0 = cards[0].counters().unwrap().retx;
    let mut want1 = Vec::new();
    for i in 0..3 {
        let len = 100 + 200 * i;
        let off = place(len);
        tx1.put(1, 1, &buf, off, rx + off as u64, len, 0).unwrap();
        want1.push((off, len));
    }
    want2.clear();
    for _ in 0..8 {
        let off = place(1024);
        tx2.put(1, 2, &buf, off, rx + off as u64, 1024, 0).unwrap();
        want2.push(off);
    }
    for off in &want2 {
        let e = rx2
            .wait_lmr(TIMEOUT_NS)
            .expect("context 2 stalled (reliable)");
        assert_eq!((e.addr - rx) as usize, *off);
        check(&e, 1024);
    }
    // Context 1's messages bounce off its full ring...
    wait_counters(&cards[1], "NACKed on the full ring", |k| {
        k.rx_lmr_full >= full0 + 3
    });
    // ...until it drains: its 7 old entries, then the 3 new ones, exactly once.
    let old = rx1.poll_lmr().unwrap();
    assert_eq!(old.len(), 7);
    for d in tx1.wait_all(TIMEOUT_NS).unwrap() {
        assert_eq!(d.result, Ok(()), "context 1's message after the drain");
    }
    for d in tx2.wait_all(TIMEOUT_NS).unwrap() {
        assert_eq!(d.result, Ok(()));
    }
    let mut got: Vec<(usize, usize)> = Vec::new();
    for _ in 0..want1.len() {
        let e = rx1.wait_lmr(TIMEOUT_NS).unwrap();
        let off = (e.addr - rx) as usize;
        check(&e, e.len as usize);
        got.push((off, e.len as usize));
    }
    got.sort();
    assert_eq!(got, want1);
    cluster.step(20_000);
    assert!(
        rx1.poll_lmr().unwrap().is_empty(),
        "a message delivered twice"
    );
    assert!(rx2.poll_lmr().unwrap().is_empty());
    let (ks, kr) = (cards[0].counters().unwrap(), cards[1].counters().unwrap());
    assert!(kr.rx_lmr_full >= full0 + 3, "{kr:?}");
    assert!(ks.retx > retx0, "{ks:?}");
    eprintln!(
        "full context ring: {} drops NACKed, {} retransmissions until the drain",
        kr.rx_lmr_full - full0,
        ks.retx - retx0
    );
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
