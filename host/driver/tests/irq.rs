//! Interrupts against the simulated cluster (the real RTL): a blocking wait wakes on a
//! completion and on a received message, only flagged descriptors interrupt, masked
//! sources never raise the line (but still record their events), coalescing by count and
//! by time cuts the interrupt rate, and the modeled 8-byte one-way latency with
//! interrupts stays within its regression bound next to polling. Everything is measured
//! in modeled cycles (deterministic), not wall-clock time.
//!
//! The simulator delivers the interrupt line to the host in the cycle it changes (no
//! MSI write, no OS wake-up is modeled), so the interrupt path costs here only what the
//! driver does per wake-up: one INT_STATUS read (a 500 ns round trip) and a posted ack.

use fasthsl_driver::contract::{desc_flag, int, nic_regs as nic};
use fasthsl_driver::{Card, CardConfig, Device, DmaBuffer, DriverError, IntCoal, IntSource};
use fasthsl_sim::{Cluster, SimConfig, SimDevice};
use fasthsl_topology::Topology;

const TIMEOUT_NS: u64 = 5_000_000;
const RX: usize = 1 << 20;

struct Net {
    cluster: Cluster,
    cards: Vec<Card<SimDevice>>,
    src: Vec<DmaBuffer>,
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
        let buf = card.device().dma_alloc(64 << 10).unwrap();
        let fill: Vec<u8> = (0..buf.len()).map(|i| (i * 7 + n) as u8).collect();
        card.device().mem_write(&buf, 0, &fill).unwrap();
        src.push(buf);
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

impl Net {
    fn put(&mut self, s: usize, d: usize, len: usize, off: usize, flags: u16) {
        let rx = self.cards[d].rx_iova().unwrap();
        self.cards[s]
            .put(d as u16, &self.src[s], 0, rx + off as u64, len, flags)
            .unwrap();
    }

    fn assert_clean(&self) {
        assert_eq!(self.cluster.iommu_fault_count(), 0);
        assert!(self.cluster.violations().is_empty());
        for c in &self.cards {
            assert_eq!(c.counters().unwrap().err_status, 0);
        }
    }
}

#[test]
fn blocking_waits_wake_on_completion_and_on_arrival() {
    let mut net = up();
    assert!(!net.cluster.irq(0) && !net.cluster.irq(1));

    // Unflagged traffic interrupts nobody.
    net.put(0, 1, 64, 0, 0);
    assert_eq!(net.cards[1].wait_interrupt(20_000).unwrap(), None);
    assert_eq!(net.cards[1].poll_lmr().unwrap().len(), 1);
    assert_eq!(net.cards[0].poll_completions().unwrap().len(), 1);
    assert!(
        !net.cluster.irq(0),
        "a descriptor without IRQ_LOCAL interrupted"
    );

    // The sender sleeps until its flagged descriptor completes.
    let c0 = net.cluster.cycles();
    net.put(0, 1, 256, 0, desc_flag::IRQ_LOCAL | desc_flag::IRQ_REMOTE);
    let st = net.cards[0].wait_interrupt(TIMEOUT_NS).unwrap();
    assert_eq!(st, Some(int::LME_DONE));
    let done = net.cards[0].poll_completions().unwrap();
    assert_eq!(done.len(), 1, "woken before the status word was visible");
    assert!(done[0].result.is_ok());
    let woke = net.cluster.cycles() - c0;
    assert!(woke < 2_000, "sender woke after {woke} cycles");

    // The entry landed while node 0 slept: it is returned without sleeping, and its
    // interrupt is still pending (only a wake-up acknowledges).
    assert!(net.cluster.irq(1));
    let e = net.cards[1].wait_lmr_irq(TIMEOUT_NS).unwrap();
    assert_eq!((e.len, e.src), (256, 0));

    // A blocking wait with nothing coming consumes that stale wake-up, then sleeps until
    // the timeout (modeled time); the line is low afterwards.
    let t0 = net.cards[1].device().now_ns();
    let e = net.cards[1].wait_lmr_irq(30_000).unwrap_err();
    assert!(matches!(e, DriverError::Timeout { .. }), "{e}");
    assert!(net.cards[1].device().now_ns() - t0 >= 30_000);
    assert!(!net.cluster.irq(1), "line still high after the ack");

    // Asleep first, then the message: the wait wakes on its arrival.
    net.put(0, 1, 64, 4096, desc_flag::IRQ_REMOTE);
    let c0 = net.cluster.cycles();
    let e = net.cards[1].wait_lmr_irq(TIMEOUT_NS).unwrap();
    assert_eq!(
        (e.len, e.addr),
        (64, net.cards[1].rx_iova().unwrap() + 4096)
    );
    let woke = net.cluster.cycles() - c0;
    assert!(woke < 1_000, "receiver woke after {woke} cycles");
    net.assert_clean();
}

#[test]
fn masked_sources_never_raise_the_line() {
    let mut net = up();
    net.cards[1]
        .set_int_mask(int::LME_DONE | int::ERROR)
        .unwrap();
    net.cards[0]
        .set_int_mask(int::LMR_NEW | int::ERROR)
        .unwrap();
    for i in 0..20 {
        net.put(
            0,
            1,
            128,
            i * 128,
            desc_flag::IRQ_LOCAL | desc_flag::IRQ_REMOTE,
        );
    }
    let mut got = 0;
    for _ in 0..20_000 {
        net.cluster.step(1);
        assert!(!net.cluster.irq(1), "masked LMR_NEW raised node 1's line");
        assert!(!net.cluster.irq(0), "masked LME_DONE raised node 0's line");
        got += net.cards[1].poll_lmr().unwrap().len();
    }
    assert_eq!(got, 20);
    // The events were recorded: unmasking raises the line at once.
    let dev1 = net.cards[1].device();
    assert_eq!(dev1.bar_read32(nic::INT_STATUS).unwrap(), int::LMR_NEW);
    net.cards[1].set_int_mask(int::ALL).unwrap();
    assert_eq!(
        net.cards[1].wait_interrupt(1_000).unwrap(),
        Some(int::LMR_NEW)
    );
    assert!(net.cards[1].set_int_mask(0x8).is_err());
    net.assert_clean();
}

/// Streams `n` messages of `len` bytes with IRQ_REMOTE from node 0 to node 1 and counts
/// the rising edges of node 1's interrupt line, acknowledging each at once with a posted
/// write (an ideal handler). Returns (edges, cycles from first put to last entry).
fn stream_edges(net: &mut Net, coal: IntCoal, n: usize, len: usize) -> (usize, u64) {
    net.cards[1]
        .set_coalescing(IntSource::LmrNew, coal)
        .unwrap();
    assert_eq!(net.cards[1].coalescing(IntSource::LmrNew).unwrap(), coal);
    let c0 = net.cluster.cycles();
    for i in 0..n {
        net.put(0, 1, len, (i * len) % RX, desc_flag::IRQ_REMOTE);
    }
    let (mut edges, mut got, mut prev) = (0, 0, false);
    let mut last = c0;
    // After the last entry, a partial batch is still signalled by time.
    let drain = if coal.count > 1 {
        u64::from(coal.cycles) + 200
    } else {
        0
    };
    while got < n || net.cluster.cycles() - last < drain || net.cluster.irq(1) || prev {
        assert!(
            net.cluster.cycles() - c0 < 2_000_000,
            "stream stalled at {got}/{n}"
        );
        net.cluster.step(1);
        let line = net.cluster.irq(1);
        if line && !prev {
            edges += 1;
            net.cards[1]
                .device()
                .bar_write32(nic::INT_STATUS, int::LMR_NEW)
                .unwrap();
        }
        prev = line;
        let k = net.cards[1].poll_lmr().unwrap().len();
        if k > 0 {
            got += k;
            last = net.cluster.cycles();
        }
        net.cards[0].poll_completions().unwrap();
    }
    (edges, last - c0)
}

#[test]
fn coalescing_cuts_the_interrupt_rate() {
    let mut net = up();
    const N: usize = 192;
    const LEN: usize = 1024;
    let mut per_msg = Vec::new();
    for count in [1u16, 8, 32] {
        let coal = IntCoal {
            count,
            cycles: u16::MAX,
        };
        let (edges, cycles) = stream_edges(&mut net, coal, N, LEN);
        let r = edges as f64 / N as f64;
        println!(
            "{{\"count\": {count}, \"messages\": {N}, \"len\": {LEN}, \"interrupts\": {edges}, \"per_message\": {r:.4}, \"cycles\": {cycles}}}"
        );
        per_msg.push((count, edges));
    }
    // Count 1: 1 KiB messages arrive further apart than the ack takes to land, so every
    // message is its own interrupt; 8 and 32: one per full batch (N is a multiple).
    assert_eq!(per_msg[0].1, N);
    assert_eq!(per_msg[1].1, N / 8);
    assert_eq!(per_msg[2].1, N / 32);

    // Time threshold: 5 messages under count 32 are signalled once, by time, and no
    // sooner than the threshold after the first arrival.
    let coal = IntCoal {
        count: 32,
        cycles: 2000,
    };
    let (edges, _) = stream_edges(&mut net, coal, 5, 64);
    assert_eq!(edges, 1);
    net.cards[1]
        .set_coalescing(IntSource::LmrNew, IntCoal::default())
        .unwrap();
    net.assert_clean();
}

#[test]
fn time_threshold_bounds_the_delay_of_a_lone_message() {
    let mut net = up();
    let cycles = 3000u16;
    net.cards[1]
        .set_coalescing(IntSource::LmrNew, IntCoal { count: 16, cycles })
        .unwrap();
    net.put(0, 1, 8, 0, desc_flag::IRQ_REMOTE);
    // The entry lands long before the interrupt: poll the ring to see when.
    let c0 = net.cluster.cycles();
    let mut landed = None;
    while !net.cluster.irq(1) {
        assert!(net.cluster.cycles() - c0 < 100_000, "no interrupt");
        net.cluster.step(1);
        if landed.is_none() && !net.cards[1].poll_lmr().unwrap().is_empty() {
            landed = Some(net.cluster.cycles());
        }
    }
    let landed = landed.expect("interrupt before the entry was visible");
    let raised = net.cluster.cycles();
    // The card signals `cycles` after the event; the entry becomes visible 62 cycles
    // after its write was issued, so the line rises about cycles - 62 after that.
    let gap = raised - landed;
    assert!(
        (u64::from(cycles) - 100..=u64::from(cycles)).contains(&gap),
        "line rose {gap} cycles after the entry landed (threshold {cycles})"
    );
    net.assert_clean();
}

/// Half the mean round trip of `iters` 8-byte ping-pongs, in cycles, driver to driver;
/// each side waits by polling the LMR ring or by sleeping on the interrupt.
fn one_way_cycles(net: &mut Net, iters: u64, irq: bool) -> f64 {
    let flags = if irq { desc_flag::IRQ_REMOTE } else { 0 };
    let c0 = net.cluster.cycles();
    for _ in 0..iters {
        for (s, d) in [(0, 1), (1, 0)] {
            net.put(s, d, 8, 0, flags);
            if irq {
                net.cards[d].wait_lmr_irq(TIMEOUT_NS).unwrap();
            } else {
                net.cards[d].wait_lmr(TIMEOUT_NS).unwrap();
            }
        }
    }
    (net.cluster.cycles() - c0) as f64 / (2 * iters) as f64
}

#[test]
fn eight_byte_latency_with_interrupts_vs_polling() {
    let mut net = up();
    let ns_per_cycle = SimConfig::default().clock_period_ps as f64 / 1000.0;
    one_way_cycles(&mut net, 1, false); // warm-up
    let poll = one_way_cycles(&mut net, 8, false) * ns_per_cycle;
    one_way_cycles(&mut net, 1, true);
    let irq = one_way_cycles(&mut net, 8, true) * ns_per_cycle;
    println!(
        "{{\"len\": 8, \"one_way_ns_polling\": {poll:.1}, \"one_way_ns_interrupt\": {irq:.1}}}"
    );
    // Polling stays within the latency goal. The interrupt path pays the handler's
    // INT_STATUS read (a 500 ns round trip), but the line rises when the LMR entry's
    // write is issued, 250 ns before polling can see the entry: measured +256 ns.
    assert!(poll <= 700.0, "polling one-way {poll} ns");
    assert!(
        irq > poll + 200.0,
        "interrupt path {irq} ns vs polling {poll} ns"
    );
    assert!(
        irq <= poll + 300.0,
        "interrupt path {irq} ns vs polling {poll} ns"
    );
    net.assert_clean();
}
