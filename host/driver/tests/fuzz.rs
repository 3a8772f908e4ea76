//! Bad-input fuzzing of the simulated card (the real RTL, through the driver's low-level
//! entry points): random descriptors, push-window misuse and CSR accesses, checked against
//! a model of what the contract says the card must do.
//!
//! Two nodes (`full:2`); node 0 sends, node 1 receives, both take random CSR traffic.
//! Every operation is drawn from one seeded generator, so a failure is replayed with
//! `FUZZ_SEED=<seed> FUZZ_OPS=<n>`; the seed and the operation index are in every failure
//! message. `cargo test` runs `FUZZ_OPS` operations (default 100 000, seed 1); `make fuzz`
//! runs many more with a fresh seed.
//!
//! Operations: well-formed puts of random sizes, alignments and paths (ring, push, inline
//! push, inline ring), descriptors posted unchecked with one or more defects (length 0 or
//! above MSG_LEN_MAX, destination outside DEST_RANGE or unroutable, stray flag bits, inline
//! too long for its path, source outside mapped memory, remote range outside the receive
//! window or wrapping the address space), push-window misuse (stray window writes, triggers
//! that add no descriptor or an out-of-range index, reads of the write-only window), and
//! CSR reads and writes at any BAR0 offset, the router page included. Registers that would
//! break the data path (ring bases and sizes, enables, node id, windows, tables in use)
//! take random values only where the card must reject them; accepted values are written
//! between epochs, with nothing in flight, and the model follows them (reconfiguration).
//!
//! The oracle, per operation: every descriptor completes within [`BOUND_CYCLES`] of modeled
//! time with the code the model predicts (contract `desc_err` precedence); every LMR entry
//! expected at the receiver arrives, in order, with the right fields, and its bytes are
//! checked. Per epoch (everything drained): every statistics counter of both NICs and the
//! RT_DROP counters of both routers equal the model's count, ERR_STATUS holds every bit
//! that must be set and none that cannot be, every register the model tracks reads back,
//! node 1's IOMMU saw nothing. Every 32 epochs and at the end (the fault log only grows):
//! node 0's IOMMU saw only reads inside the source ranges the test itself handed out as
//! unmapped, at least one per descriptor whose source was entirely unmapped, and writes
//! only into the unmapped LME ring the test pointed the card at.
//! `the_oracle_fails_when_the_model_is_wrong` shows five deliberate model errors caught.
//! `random_descriptors_with_sender_wait` runs the same operations with REL_CTRL.SENDER_WAIT
//! on node 0 (`FUZZ_WAIT_OPS`, default 20 000, seed 2): every good descriptor's code then
//! is its receiver's answer (OK / REJECTED / RETRY_EXHAUSTED), as the model predicts it.
//!
//! A source the card cannot read: the sim host answers the refused reads with an error,
//! the packet the first refused word falls in is ended with EEP (node 1 counts it as
//! malformed), the rest of the message is not sent, and the descriptor completes with
//! DMA_RD; the packets wholly before it are sent and land (no LMR entry). The model
//! predicts the packet from the MTU and where the mapping ends.
//! `unmapped_source_is_reported_as_an_error` and
//! `source_running_into_unmapped_memory_cuts_the_message` check it directly.

use std::collections::{BTreeMap, VecDeque};
use std::time::Instant;

use fasthsl_driver::contract::{
    ctrl, desc_flag, err, nic_regs as nic, register_at, router_regs as rt, status_done, DescErr,
    LmeDesc, LmrEntry, RegAccess, ID_MAGIC, INLINE_MAX, INLINE_RING_MAX, MSG_LEN_MAX, MTU_MAX,
    RING_SIZE_MAX, ROUTER_CSR_BASE, ROUTE_ENTRIES, TX_QUANTUM_RESET,
};
use fasthsl_driver::{Card, CardConfig, CompletionError, Device, DmaBuffer, DriverError, PutPath};
use fasthsl_rng::Rng;
use fasthsl_sim::{Cluster, SimConfig, SimDevice};
use fasthsl_topology::Topology;

/// Source buffer on node 0 (bump-allocated per epoch: the card reads it asynchronously).
const SRC_BYTES: usize = 256 << 10;
/// Node 1's receive region.
const RX_BYTES: usize = 256 << 10;
/// Both ends of node 1's region are kept for remote ranges that straddle the window's
/// edges, so their partial landings never overwrite a message still to be checked.
const EDGE: usize = 16 << 10;
/// Largest message the fuzzer sends (multi-packet at every MTU).
const LEN_MAX: usize = 8192;
const LME_ENTRIES: u32 = 64;
/// Every descriptor completes, and every LMR entry arrives, within this many cycles of
/// being posted (a full ring of LEN_MAX messages at the smallest MTU takes ~150 000).
const BOUND_CYCLES: u64 = 400_000;
/// NIC offsets another change is adding registers to (interrupt coalescing): left alone.
const FOREIGN: std::ops::Range<u32> = 0x08c..0x100;
/// INT_MASK's width (24 bits): what the card stores of a write.
const INT_MASK_BITS: u32 = 0x00FF_FFFF;
/// Remote addresses as packets carry them (48 bits; header bits 63:48 are the window key).
const ADDR_MASK: u64 = (1 << 48) - 1;

/// The packets a message of `len` bytes is cut into, as (offset, length): at MTU from the
/// start of each TX_QUANTUM segment (contract 1.8; the fuzz leaves TX_QUANTUM at its reset
/// value, FOREIGN). Broadcasts and inline messages are not segmented.
fn packet_spans(len: u64, mtu: u64, flags: u16) -> Vec<(u64, u64)> {
    let q = 1u64 << TX_QUANTUM_RESET;
    let seg = if flags & (desc_flag::BCAST | desc_flag::INLINE) == 0 && len > q {
        q
    } else {
        len.max(1)
    };
    let mut spans = Vec::new();
    let mut off = 0;
    while off < len {
        let end = ((off / seg + 1) * seg).min(len);
        let plen = mtu.min(end - off);
        spans.push((off, plen));
        off += plen;
    }
    spans
}

/// The receive window block's registers (its counters and table; WIN_CFG and the log
/// are in FOREIGN): defined, but left alone here (docs/WINDOWS.md, tests/windows.rs).
fn window_reg(off: u32) -> bool {
    off.is_multiple_of(4)
        && ((nic::CNT_RX_REJECT_KEY..=nic::CNT_RX_REJECT_RANGE).contains(&off)
            || (nic::WIN_BASE_LO..nic::WIN_BASE_LO + nic::WIN_CTRL_COUNT * nic::WIN_CTRL_STRIDE)
                .contains(&off))
}

/// Statistics counters and router drops, as the model expects them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Count {
    tx_desc: u32,
    tx_pkts: u32,
    rx_pkts: u32,
    rx_msgs: u32,
    desc_err: u32,
    csr_err: u32,
    rx_drop_dest: u32,
    rx_drop_window: u32,
    /// Packets cut by a DMA read error at the sender (EEP): dropped as malformed.
    rx_drop_malformed: u32,
}

/// What the model knows of one NIC.
#[derive(Debug, Default)]
struct NicModel {
    cnt: Count,
    /// Registers with a known value: offset -> value.
    regs: BTreeMap<u32, u32>,
    /// ERR_STATUS bits that must be set at the next checkpoint.
    err_must: u32,
    /// ERR_STATUS bits that may be set.
    err_may: u32,
    /// ERR_STATUS bits the fuzzer cleared at random this epoch.
    err_cleared: u32,
    /// Push triggers this epoch: taken for sure, rejected for sure, either.
    push_taken: u32,
    push_rejected: u32,
    push_either: u32,
    push_total: (u32, u32),
}

impl NicModel {
    fn reg(&self, r: u32) -> u32 {
        self.regs[&r]
    }
    fn enabled(&self) -> bool {
        self.reg(nic::CTRL) & ctrl::ENABLE != 0
    }
    fn node_id(&self) -> u16 {
        self.reg(nic::NODE_ID) as u16
    }
    fn dest_ok(&self, dest: u16) -> bool {
        let r = self.reg(nic::DEST_RANGE);
        (r as u16..=(r >> 16) as u16).contains(&dest)
    }
    /// A broadcast range lo | hi << 8 the card would send (lo <= hi, both in DEST_RANGE).
    fn bcast_ok(&self, dest: u16) -> bool {
        let (lo, hi) = (dest & 0xFF, dest >> 8);
        lo <= hi && self.dest_ok(lo) && self.dest_ok(hi)
    }
    fn window(&self) -> (u64, u64) {
        let lohi = |lo, hi| u64::from(self.reg(lo)) | u64::from(self.reg(hi)) << 32;
        (
            lohi(nic::RXWIN_BASE_LO, nic::RXWIN_BASE_HI),
            lohi(nic::RXWIN_SIZE_LO, nic::RXWIN_SIZE_HI),
        )
    }
    fn csr_error(&mut self, bit: u32) {
        self.cnt.csr_err += 1;
        self.err_must |= bit;
        self.err_may |= bit;
    }
    fn async_error(&mut self, bit: u32) {
        self.err_may |= bit;
        if self.err_cleared & bit == 0 {
            // Written by the card before the checkpoint; only a random clear could race it.
            self.err_must |= bit;
        }
    }
}

/// A descriptor posted and not yet completed.
#[derive(Debug)]
struct Posted {
    seq: u64,
    op: u64,
    at: u64,
    want: Result<(), DescErr>,
}

/// An LMR entry the receiver must write, with the bytes to find at its address.
#[derive(Debug)]
struct WantLmr {
    op: u64,
    at: u64,
    entry: LmrEntry,
    data: Option<(usize, Vec<u8>)>,
}

/// A deliberate model error, to show the oracle notices (see `the_oracle_fails_...`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sabotage {
    None,
    /// Pushed inline limit applied to ring descriptors too.
    RingInlineLimit,
    /// The receive window ignored.
    NoWindow,
    /// One byte of every expected payload changed.
    Data,
    /// Refused register values not counted.
    CsrErrors,
    /// Unmapped sources handed out but not recorded.
    Faults,
}

/// What a message's receiver answers (contract 1.5), which REL_CTRL.SENDER_WAIT turns into
/// the descriptor's completion code (contract 1.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    /// Every packet landed: ACK, the descriptor completes OK.
    Ack,
    /// A packet failed the receive window check: NACK_REJECT, REJECTED.
    Reject,
    /// Nothing comes back (dropped on the way, wrong node, cut): RETRY_EXHAUSTED after
    /// REL_TIMEOUT.
    Silent,
}

struct Fuzz {
    sabotage: Sabotage,
    /// REL_CTRL.SENDER_WAIT on node 0: good descriptors complete on their answer.
    sender_wait: bool,
    seed: u64,
    op: u64,
    rng: Rng,
    cluster: Cluster,

    cards: Vec<Card<SimDevice>>,
    cfgs: Vec<CardConfig>,
    src: DmaBuffer,
    src_next: usize,
    rx_next: usize,
    nics: [NicModel; 2],
    /// Routing tables of inputs 0 and 1 of both routers: (lo, hi, port) in match order.
    tables: [[Vec<(u16, u16, u8)>; 2]; 2],
    /// Router table registers of unused inputs written at random: BAR offset -> value.
    rt_regs: [BTreeMap<u32, u32>; 2],
    rt_drop: [[u32; 2]; 2],
    posted: VecDeque<Posted>,
    lmr: [VecDeque<WantLmr>; 2],
    /// Ranges handed to the card unmapped, faults may fall in them: (lo, hi, writes too).
    unmapped: Vec<(u64, u64, bool)>,
    /// Descriptors that must have faulted (fully unmapped, read) since the last check.
    must_fault: usize,
    /// Node 0 IOMMU faults already checked; epochs since.
    faults_checked: usize,
    epochs_unchecked: u32,
    msg_id: u32,
    stats: BTreeMap<&'static str, u64>,
}

impl Fuzz {
    fn new(seed: u64) -> Self {
        let topo: Topology = "full:2".parse().unwrap();
        let cluster = Cluster::new(&topo, SimConfig::default()).unwrap();
        let mut cards = Vec::new();
        let mut cfgs = Vec::new();
        for n in 0..2u16 {
            let mut card = Card::open(cluster.device(n.into())).unwrap();
            let cfg = CardConfig {
                lme_entries: LME_ENTRIES,
                lmr_entries: 256,
                rx_window_bytes: if n == 1 { RX_BYTES } else { 4096 },
                ..CardConfig::for_node(&topo, n)
            };
            card.configure(cfg.clone()).unwrap();
            card.program_routes(&topo).unwrap();
            cards.push(card);
            cfgs.push(cfg);
        }
        let src = cards[0].device().dma_alloc(SRC_BYTES).unwrap();
        let mut tables: [[Vec<(u16, u16, u8)>; 2]; 2] = Default::default();
        let mut rt_drop = [[0; 2]; 2];
        for (r, card) in cards.iter().enumerate() {
            let s = card.router_state().unwrap();
            for input in 0..2 {
                tables[r][input] = s.tables[input]
                    .iter()
                    .map(|(_, b, p)| (b.lo, b.hi, *p))
                    .collect();
                rt_drop[r][input] = s.drop[input];
            }
        }
        let mut f = Fuzz {
            sabotage: Sabotage::None,
            sender_wait: false,
            seed,
            op: 0,
            rng: Rng::new(seed),
            cluster,

            cards,
            cfgs,
            src,
            src_next: 0,
            rx_next: EDGE,
            nics: Default::default(),
            tables,
            rt_regs: Default::default(),
            rt_drop,
            posted: VecDeque::new(),
            lmr: Default::default(),
            unmapped: Vec::new(),
            must_fault: 0,
            faults_checked: 0,
            epochs_unchecked: 0,
            msg_id: 0,
            stats: BTreeMap::new(),
        };
        for n in 0..2 {
            f.load_regs(n);
            let k = f.cards[n].counters().unwrap();
            f.nics[n].cnt = Count {
                tx_desc: k.tx_desc,
                tx_pkts: k.tx_pkts,
                rx_pkts: k.rx_pkts,
                rx_msgs: k.rx_msgs,
                desc_err: k.desc_err,
                csr_err: k.csr_err,
                rx_drop_dest: k.rx_drop_dest,
                rx_drop_window: k.rx_drop_window,
                rx_drop_malformed: k.rx_drop_malformed,
            };
            f.nics[n].push_total = (k.push, k.push_reject);
        }
        f
    }

    /// Failure context: replay instructions.
    fn ctx(&self) -> String {
        format!(
            "seed {} op {} cycle {} (replay: FUZZ_SEED={} FUZZ_OPS={} cargo test --release -p fasthsl-driver --test fuzz)",
            self.seed,
            self.op,
            self.cluster.cycles(),
            self.seed,
            self.op + 1
        )
    }

    fn bump(&mut self, what: &'static str) {
        *self.stats.entry(what).or_default() += 1;
    }

    /// The registers the model tracks, as the card holds them after a configuration.
    fn load_regs(&mut self, n: usize) {
        let s = self.cards[n].csr_state().unwrap();
        let lo = |v: u64| v as u32;
        let hi = |v: u64| (v >> 32) as u32;
        self.nics[n].regs = BTreeMap::from([
            (nic::ID, s.id),
            (nic::VERSION, s.version),
            (nic::NODE_ID, s.node_id),
            (nic::CTRL, s.ctrl),
            (nic::MTU, s.mtu),
            (nic::DEST_RANGE, s.dest_range),
            (nic::LME_BASE_LO, lo(s.lme_base)),
            (nic::LME_BASE_HI, hi(s.lme_base)),
            (nic::LME_SIZE, s.lme_size),
            (nic::LMR_BASE_LO, lo(s.lmr_base)),
            (nic::LMR_BASE_HI, hi(s.lmr_base)),
            (nic::LMR_SIZE, s.lmr_size),
            (nic::RXWIN_BASE_LO, lo(s.rxwin_base)),
            (nic::RXWIN_BASE_HI, hi(s.rxwin_base)),
            (nic::RXWIN_SIZE_LO, lo(s.rxwin_size)),
            (nic::RXWIN_SIZE_HI, hi(s.rxwin_size)),
            (nic::INT_MASK, s.int_mask),
        ]);
        assert_eq!(s.id, ID_MAGIC, "{}", self.ctx());
    }

    /// A register write the model expects the card to take.
    fn write_reg(&mut self, n: usize, reg: u32, v: u32) {
        self.cards[n].device().bar_write32(reg, v).unwrap();
        self.nics[n].regs.insert(reg, v);
    }

    // ---- routing and reception model ----

    /// Where a packet from node `src`'s NIC to `dest` ends: `Ok(node)` or dropped at
    /// `Err((router, input))`. full:2: NIC n on port 0 of router n, port 1 the link.
    fn route(&self, src: usize, dest: u16) -> Result<usize, (usize, usize)> {
        let (mut r, mut input) = (src, 0);
        for _ in 0..4 {
            let port = self.tables[r][input]
                .iter()
                .find(|(lo, hi, _)| (*lo..=*hi).contains(&dest))
                .map(|e| e.2);
            match port {
                None => return Err((r, input)),
                Some(0) => return Ok(r),
                Some(1) => {
                    r = 1 - r;
                    input = 1;
                }
                Some(p) => panic!("route to unconnected port {p}: {}", self.ctx()),
            }
        }
        panic!("routing loop for dest {dest}: {}", self.ctx())
    }

    /// Accounts for an accepted descriptor: packets, drops, landings, the LMR entry.
    /// `data`: the bytes the receiver must hold if everything lands (None: unknown).
    /// `cut`: the packet a DMA read error falls in: the ones before it are sent, it is
    /// ended with EEP, the rest of the message is not sent.
    fn expect_delivery(&mut self, d: &LmeDesc, data: Option<Vec<u8>>, cut: Option<u64>) -> Answer {
        let mtu = u64::from(self.nics[0].reg(nic::MTU));
        let len = u64::from(d.len);
        let spans = packet_spans(len, mtu, d.flags);
        let pkts = cut.unwrap_or(spans.len() as u64) as u32;
        self.nics[0].cnt.tx_pkts += pkts;
        let node = match self.route(0, d.dest) {
            Ok(node) => node,
            Err((r, input)) => {
                self.rt_drop[r][input] += pkts + u32::from(cut.is_some());
                self.bump("unroutable");
                return Answer::Silent;
            }
        };
        let m = &self.nics[node];
        let accept = m.enabled() && m.node_id() == d.dest;
        let (base, size) = m.window();
        let mut landed = 0;
        for i in 0..u64::from(pkts) {
            // Packets carry 48-bit addresses: the card drops the descriptor's bits 63:48.
            let (off, plen) = spans[i as usize];
            let start = d.remote_addr.wrapping_add(off) & ADDR_MASK;
            let inside = start >= base
                && u128::from(start) + u128::from(plen) <= u128::from(base) + u128::from(size)
                || self.sabotage == Sabotage::NoWindow;
            let m = &mut self.nics[node];
            if !accept {
                m.cnt.rx_drop_dest += 1;
                m.async_error(err::RX_DROP);
            } else if !inside {
                m.cnt.rx_drop_window += 1;
                m.async_error(err::RX_DROP);
            } else {
                m.cnt.rx_pkts += 1;
                landed += 1;
            }
        }
        if cut.is_some() {
            // EEP is checked before anything else: malformed whatever the header says.
            let m = &mut self.nics[node];
            m.cnt.rx_drop_malformed += 1;
            m.async_error(err::RX_DROP);
            self.bump("cut by a DMA read error");
            return Answer::Silent;
        }
        // The receiver counts a message's bytes: no LMR entry unless every packet landed.
        if landed != pkts {
            self.bump(if accept {
                "dropped: window"
            } else {
                "dropped: dest"
            });
            // Window refusals are answered (NACK_REJECT); packets for another node are not.
            return if accept {
                Answer::Reject
            } else {
                Answer::Silent
            };
        }
        self.nics[node].cnt.rx_msgs += 1;
        let data = match data {
            Some(mut b) => {
                if self.sabotage == Sabotage::Data {
                    b[0] ^= 1;
                }
                Some((
                    ((d.remote_addr & ADDR_MASK) - self.cards[node].rx_iova().unwrap()) as usize,
                    b,
                ))
            }
            _ => None,
        };
        self.lmr[node].push_back(WantLmr {
            op: self.op,
            at: self.cluster.cycles(),
            entry: LmrEntry {
                src: 0,
                status: status_done(DescErr::Ok),
                msg_id: d.msg_id,
                addr: d.remote_addr & ADDR_MASK,
                len: d.len,
                // Packets carry the low 4 flag bits (contract 1.7).
                flags: d.flags & 0x0F,
            },
            data,
        });
        Answer::Ack
    }

    /// With SENDER_WAIT, the error a good descriptor completes with instead of OK.
    fn waited(&mut self, a: Answer) -> Option<DescErr> {
        if !self.sender_wait {
            return None;
        }
        self.bump(match a {
            Answer::Ack => "answer: ack",
            Answer::Reject => "answer: reject",
            Answer::Silent => "answer: none",
        });
        let e = match a {
            Answer::Ack => return None,
            Answer::Reject => DescErr::Rejected,
            Answer::Silent => DescErr::RetryExhausted,
        };
        self.nics[0].cnt.desc_err += 1;
        self.nics[0].async_error(err::DESC_ERROR);
        Some(e)
    }

    /// The card's verdict on a descriptor (contract precedence).
    fn classify(&self, d: &LmeDesc, pushed: bool) -> Result<(), DescErr> {
        let inline_max = if pushed || self.sabotage == Sabotage::RingInlineLimit {
            INLINE_MAX
        } else {
            INLINE_RING_MAX
        };
        if d.len == 0 {
            Err(DescErr::ZeroLen)
        } else if u64::from(d.len) > MSG_LEN_MAX {
            Err(DescErr::LenTooBig)
        } else if (d.remote_addr & ((1 << 48) - 1)) + u64::from(d.len) > 1 << 48 {
            // The card sees the 48 bits a descriptor carries.
            Err(DescErr::AddrRange)
        } else if d.flags & desc_flag::BCAST != 0 {
            // Only bad ranges get here (see bad_desc): broadcasts that would be sent
            // are tested in sim/tests/topologies.rs, not modeled by this oracle.
            assert!(
                !self.nics[0].bcast_ok(d.dest),
                "a valid broadcast reached the oracle"
            );
            Err(DescErr::BcastRange)
        } else if !self.nics[0].dest_ok(d.dest) {
            Err(DescErr::BadDest)
        } else if d.flags & desc_flag::INLINE != 0 && u64::from(d.len) > inline_max {
            Err(DescErr::InlineLen)
        } else {
            Ok(())
        }
    }

    // ---- completions and receptions ----

    /// Reaps completions and LMR entries on both nodes and checks them.
    fn poll(&mut self) {
        let now = self.cluster.cycles();
        for c in self.cards[0].poll_completions().unwrap() {
            let p = self
                .posted
                .pop_front()
                .unwrap_or_else(|| panic!("completion {c:?} nobody posted: {}", self.ctx()));
            let got = match c.result {
                Ok(()) => Ok(()),
                Err(CompletionError::Rejected(e)) => Err(e),
                Err(CompletionError::Unknown(code)) => {
                    panic!(
                        "descriptor of op {} completed with undefined code {code:#x}: {}",
                        p.op,
                        self.ctx()
                    )
                }
            };
            assert_eq!(c.seq, p.seq, "completion order: {}", self.ctx());
            assert_eq!(got, p.want, "descriptor of op {}: {}", p.op, self.ctx());
            assert!(
                now - p.at <= BOUND_CYCLES,
                "descriptor of op {} took {} cycles: {}",
                p.op,
                now - p.at,
                self.ctx()
            );
        }
        for n in 0..2 {
            for e in self.cards[n].poll_lmr().unwrap() {
                let w = self.lmr[n].pop_front().unwrap_or_else(|| {
                    panic!("node {n}: unexpected LMR entry {e:?}: {}", self.ctx())
                });
                assert_eq!(
                    e,
                    w.entry,
                    "node {n} LMR entry of op {}: {}",
                    w.op,
                    self.ctx()
                );
                if let Some((off, want)) = &w.data {
                    let mut got = vec![0u8; want.len()];
                    self.cards[n].read_rx(*off, &mut got).unwrap();
                    if got != *want {
                        let i = got.iter().zip(want).position(|(a, b)| a != b).unwrap();
                        panic!(
                            "node {n}: data of op {} ({} bytes at rx+{off:#x}) differs at byte {i}: {:#04x} != {:#04x}: {}",
                            w.op,
                            want.len(),
                            got[i],
                            want[i],
                            self.ctx()
                        );
                    }
                }
            }
            if let Some(w) = self.lmr[n].front() {
                assert!(
                    now - w.at <= BOUND_CYCLES,
                    "node {n}: LMR entry of op {} missing after {} cycles: {}",
                    w.op,
                    now - w.at,
                    self.ctx()
                );
            }
        }
        if let Some(p) = self.posted.front() {
            assert!(
                now - p.at <= BOUND_CYCLES,
                "descriptor of op {} not completed after {} cycles (card hung?): {}",
                p.op,
                now - p.at,
                self.ctx()
            );
        }
    }

    /// Waits until nothing is outstanding.
    fn drain(&mut self) {
        while !self.posted.is_empty() || self.lmr.iter().any(|q| !q.is_empty()) {
            self.cluster.step(64);
            self.poll();
        }
    }

    // ---- posting ----

    /// Posts `ring` (and `pushed` through the window) unchecked, retrying while the ring is
    /// full, and records what the card must answer.
    /// `cut`: see [`Fuzz::expect_delivery`].
    fn post(
        &mut self,
        ring: LmeDesc,
        pushed: Option<(LmeDesc, Vec<u8>)>,
        data: Option<Vec<u8>>,
        cut: Option<u64>,
    ) {
        // With nothing outstanding the push path is free, so a push is taken for sure.
        self.poll();
        let idle = self.posted.is_empty();
        let want = self.classify(&ring, false);
        if let Some((p, _)) = &pushed {
            assert_eq!(self.classify(p, true), want, "fuzzer: copies disagree");
        }
        let want = match (want, cut) {
            (Ok(()), Some(_)) => Err(DescErr::DmaRd),
            (w, _) => w,
        };
        let t = loop {
            let r = match &pushed {
                None => self.cards[0].post_unchecked(ring),
                Some((p, inline)) => self.cards[0].push_unchecked(ring, *p, inline),
            };
            match r {
                Ok(t) => break t,
                Err(DriverError::RingFull { .. }) => {
                    self.cluster.step(32);
                    self.poll();
                }
                Err(e) => panic!("post: {e}: {}", self.ctx()),
            }
        };
        if pushed.is_some() {
            let m = &mut self.nics[0];
            if idle {
                m.push_taken += 1;
            } else {
                m.push_either += 1;
                m.err_may |= err::PUSH_REJECT;
            }
        }
        self.nics[0].cnt.tx_desc += 1;
        let mut want = want;
        match want {
            Ok(()) => {
                let a = self.expect_delivery(&ring, data, None);
                if let Some(e) = self.waited(a) {
                    want = Err(e);
                }
            }
            Err(DescErr::DmaRd) => {
                self.nics[0].cnt.desc_err += 1;
                self.nics[0].async_error(err::DESC_ERROR);
                self.expect_delivery(&ring, None, cut);
            }
            Err(_) => {
                self.nics[0].cnt.desc_err += 1;
                self.nics[0].async_error(err::DESC_ERROR);
                self.bump("rejected descriptors");
            }
        }
        self.posted.push_back(Posted {
            seq: t.seq,
            op: self.op,
            at: self.cluster.cycles(),
            want,
        });
    }

    /// `len` fresh random bytes in the source buffer; None when the epoch's share is used.
    fn src_alloc(&mut self, len: usize) -> Option<(usize, Vec<u8>)> {
        let off = self.src_next + self.rng.below_u64(8) as usize;
        if off + len > SRC_BYTES {
            return None;
        }
        self.src_next = (off + len + 7) & !7;
        let data = self.rng.bytes(len);
        self.cards[0]
            .device()
            .mem_write(&self.src, off, &data)
            .unwrap();
        Some((off, data))
    }

    /// A fresh, never written range of node 1's receive region (inside the edges).
    fn rx_alloc(&mut self, len: usize) -> Option<u64> {
        let off = self.rx_next + self.rng.below_u64(8) as usize;
        if off + len > RX_BYTES - EDGE {
            return None;
        }
        self.rx_next = (off + len + 7) & !7;
        Some(self.cards[1].rx_iova().unwrap() + off as u64)
    }

    /// Ids of the descriptors posted unchecked: the upper half of the id space, so they
    /// never equal an id the driver numbered (from 0) for a message still waiting for its
    /// answer (with SENDER_WAIT, answers are matched by (dest, msg_id)).
    fn next_msg_id(&mut self) -> u32 {
        self.msg_id = self.msg_id.wrapping_add(1);
        0x8000_0000 | self.msg_id
    }

    /// A well-formed put through the driver's own `put_via` (every path).
    fn good_put(&mut self) -> bool {
        let len = msg_len(&mut self.rng);
        let Some((off, data)) = self.src_alloc(len) else {
            return false;
        };
        let Some(remote) = self.rx_alloc(len) else {
            return false;
        };
        let path = match self.rng.below_u64(4) {
            0 => PutPath::Auto,
            1 => PutPath::Ring,
            2 => PutPath::Push,
            _ if len <= INLINE_MAX as usize => PutPath::InlinePush,
            _ => PutPath::Auto,
        };
        let flags = (self.rng.below_u64(4) as u16) & (desc_flag::IRQ_LOCAL | desc_flag::IRQ_REMOTE);
        self.poll();
        let idle = self.posted.is_empty();
        let t = loop {
            match self.cards[0].put_via(path, 1, &self.src, off, remote, len, flags) {
                Ok(t) => break t,
                Err(DriverError::RingFull { .. }) => {
                    self.cluster.step(32);
                    self.poll();
                }
                Err(e) => panic!("put: {e}: {}", self.ctx()),
            }
        };
        if t.path != PutPath::Ring {
            let m = &mut self.nics[0];
            if idle {
                m.push_taken += 1;
            } else {
                m.push_either += 1;
                m.err_may |= err::PUSH_REJECT;
            }
        }
        let d = LmeDesc {
            local_addr: self.src.iova() + off as u64,
            remote_addr: remote,
            dctx: 0,
            len: len as u32,
            dest: 1,
            flags,
            msg_id: t.msg_id,
            status: 0,
            key: 0,
        };
        let mut want = self.classify(&d, false);
        self.nics[0].cnt.tx_desc += 1;
        match want {
            Ok(()) => {
                let a = self.expect_delivery(&d, Some(data), None);
                if let Some(e) = self.waited(a) {
                    want = Err(e);
                }
            }
            Err(_) => {
                // DEST_RANGE may exclude node 1 this epoch.
                self.nics[0].cnt.desc_err += 1;
                self.nics[0].async_error(err::DESC_ERROR);
            }
        }
        self.posted.push_back(Posted {
            seq: t.seq,
            op: self.op,
            at: self.cluster.cycles(),
            want,
        });
        self.bump("good puts");
        true
    }

    /// A descriptor with random defects, posted unchecked through the ring or the window.
    fn bad_desc(&mut self) -> bool {
        let r = &mut self.rng;
        let mut len = msg_len(r);
        let mut flags = (r.below_u64(4) as u16) & (desc_flag::IRQ_LOCAL | desc_flag::IRQ_REMOTE);
        let mut dest = 1u16;
        let mut inline = false;
        let mut forced_reject = false;
        let defects = r.range_u64(1, 3);
        let mut src_kind = 0; // 0 mapped, 1 fully unmapped, 2 runs into the guard page
        let mut remote_kind = 0; // 0 fresh range in the window, 1.. outside in some way
        for _ in 0..defects {
            match r.below_u64(9) {
                0 => {
                    len = 0;
                    forced_reject = true;
                }
                1 => {
                    len = r.range_u64(MSG_LEN_MAX + 1, u64::from(u32::MAX)) as usize;
                    forced_reject = true;
                }
                2 => {
                    dest = r.next_u64() as u16;
                }
                3 => {
                    // Stray flag bits (not INLINE): ignored by the card.
                    flags |= (r.next_u64() as u16) & !desc_flag::INLINE;
                }
                4 => {
                    inline = true;
                    len = if r.chance(50) {
                        r.range_u64(1, INLINE_MAX) as usize
                    } else {
                        r.range_u64(INLINE_MAX + 1, 4096) as usize
                    };
                }
                5 | 6 => src_kind = r.range_u64(1, 2),
                _ => remote_kind = r.range_u64(1, 6),
            }
        }
        if len > LEN_MAX && !forced_reject {
            len = LEN_MAX;
        }
        let exact = len == MSG_LEN_MAX as usize + 1 && r.chance(20);
        if exact {
            // The exact limit, with a destination outside DEST_RANGE so it is not sent.
            let range = self.nics[0].reg(nic::DEST_RANGE);
            let (lo, hi) = (range as u16, (range >> 16) as u16);
            let outside = [Some(0xFFFF), lo.checked_sub(1), hi.checked_add(1)]
                .into_iter()
                .flatten()
                .find(|&d| !self.nics[0].dest_ok(d));
            if let Some(d) = outside {
                len = MSG_LEN_MAX as usize;
                dest = d;
            }
        }
        // A stray BCAST bit with a range the card accepts would be a real broadcast, which
        // this two-node oracle does not model: keep the bit only on bad ranges (the
        // card's BCAST_RANGE check is what is fuzzed).
        if flags & desc_flag::BCAST != 0 && self.nics[0].bcast_ok(dest) {
            flags &= !desc_flag::BCAST;
        }
        let push = self.rng.chance(40);
        if inline {
            flags |= desc_flag::INLINE;
        }
        let msg_id = self.next_msg_id();
        let plen = len.min(LEN_MAX);
        let body = self.rng.bytes(plen.min(INLINE_MAX as usize));
        // The source: mapped bytes we know, or a range the card cannot read.
        let (local, data) = match src_kind {
            0 if !inline => match self.src_alloc(plen) {
                Some((off, b)) => (self.src.iova() + off as u64, Some(b)),
                None => return false,
            },
            0 => (0, None),
            1 => {
                // Below node 0's IOVA window: never mapped.
                let a = self.rng.below_u64(0xFFFF_0000 - LEN_MAX as u64);
                (a, Some(vec![0u8; plen]))
            }
            _ => {
                // The guard page after the source buffer, from up to 4 KiB before it.
                let end = self.src.iova() + SRC_BYTES as u64;
                let back = self.rng.range_u64(1, 4096).min(plen as u64);
                (end - back, None)
            }
        };
        let rx = self.cards[1].rx_iova().unwrap();
        let rx_end = rx + RX_BYTES as u64;
        let span = plen.max(1) as u64;
        let remote = match remote_kind {
            0 => match self.rx_alloc(plen) {
                Some(a) => a,
                None => return false,
            },
            1 => rx - span - self.rng.below_u64(1 << 20),
            2 => rx - self.rng.range_u64(1, span.max(2) - 1).min(EDGE as u64),
            3 => rx_end - self.rng.range_u64(1, span.min(EDGE as u64)),
            4 => rx_end + self.rng.below_u64(1 << 30),
            5 => u64::MAX - self.rng.below_u64(span),
            _ => self.rng.next_u64(),
        };
        let d = LmeDesc {
            local_addr: local,
            remote_addr: remote,
            dctx: 0,
            len: len as u32,
            dest,
            flags,
            msg_id,
            status: 0,
            key: 0,
        };
        let (ring, pushed, expect_data) = if inline {
            let mut w0 = [0u8; 8];
            let k = body.len().min(8);
            w0[..k].copy_from_slice(&body[..k]);
            let pd = LmeDesc {
                local_addr: u64::from_le_bytes(w0),
                ..d
            };
            let data = (plen <= INLINE_MAX as usize).then(|| body.clone());
            if !push {
                let ok = plen <= INLINE_RING_MAX as usize;
                (pd, None, data.filter(|_| ok))
            } else if plen <= INLINE_RING_MAX as usize || plen > INLINE_MAX as usize {
                // Both copies inline: same verdict whichever the card takes.
                let tail = body.get(8..).unwrap_or(&[]).to_vec();
                (pd, Some((pd, tail)), data)
            } else {
                // Inline only in the window; the ring copy points at the same bytes.
                let Some((off, _)) = self.src_alloc(0) else {
                    return false;
                };
                self.cards[0]
                    .device()
                    .mem_write(&self.src, off, &body)
                    .unwrap();
                self.src_next = (off + body.len() + 7) & !7;
                let rd = LmeDesc {
                    local_addr: self.src.iova() + off as u64,
                    flags: flags & !desc_flag::INLINE,
                    ..d
                };
                (rd, Some((pd, body[8..].to_vec())), data)
            }
        } else {
            (d, push.then(|| (d, Vec::new())), data)
        };
        let expect_data = expect_data.filter(|_| remote_kind == 0);
        // Only a ring copy that reads `local` (the same as the pushed one then) touches it.
        let reads = ring.flags & desc_flag::INLINE == 0
            && ring.local_addr == local
            && self.classify(&ring, false).is_ok();
        // The first packet whose read words reach unmapped memory (the guard page is
        // page-aligned, so a read is refused whole or not at all).
        let mut cut = None;
        if reads && src_kind != 0 {
            let mtu = u64::from(self.nics[0].reg(nic::MTU));
            let len = u64::from(ring.len);
            let end = if src_kind == 1 {
                local
            } else {
                self.src.iova() + SRC_BYTES as u64
            };
            cut = packet_spans(len, mtu, ring.flags)
                .iter()
                .position(|&(off, plen)| local + off + plen > end)
                .map(|k| k as u64);
            let lo = ring.local_addr & !255;
            let hi = (ring.local_addr + u64::from(ring.len) + 255) & !255;
            if self.sabotage != Sabotage::Faults {
                self.unmapped.push((lo, hi, false));
            }
            if src_kind == 1 {
                self.must_fault += 1;
            }
            self.bump("unmapped sources");
        }
        self.post(ring, pushed, expect_data, cut);
        true
    }

    // ---- CSR traffic ----

    /// NIC offsets where a write is refused with CSR_BAD_ADDR and changes nothing
    /// (undefined, unaligned or read-only: contract's register table).
    fn nic_hole(&mut self) -> u32 {
        loop {
            let off = self.rng.below_u64(0x1000) as u32;
            if FOREIGN.contains(&off) || window_reg(off) {
                continue;
            }
            // A write there is refused (CSR_BAD_ADDR) and changes nothing: no register, or
            // a read-only one.
            let defined =
                register_at(nic::REGISTERS, off).is_some_and(|r| r.access != RegAccess::Ro);
            if !defined {
                return off;
            }
        }
    }

    fn csr_op(&mut self) {
        let n = self.rng.below_u64(2) as usize;
        let dev = self.cards[n].device().clone();
        let ro = [
            nic::ID,
            nic::VERSION,
            nic::LME_CONS,
            nic::PUSH_STATUS,
            nic::LMR_PROD,
            nic::CNT_TX_DESC + 4 * self.rng.below_u64(12) as u32,
        ];
        match self.rng.below_u64(12) {
            0..=2 => {
                // Read anything; check what the model knows.
                let off = match self.rng.below_u64(4) {
                    0 => self.nic_hole(),
                    1 => ROUTER_CSR_BASE as u32 + self.rng.below_u64(0xFFD) as u32,
                    _ => {
                        let keys: Vec<u32> = self.nics[n].regs.keys().copied().collect();
                        *self.pick(&keys)
                    }
                };
                let v = dev.bar_read32(off).unwrap();
                self.check_read(n, off, v);
            }
            3 => {
                let off = self.nic_hole();
                dev.bar_write32(off, self.rng.next_u64() as u32).unwrap();
                self.nics[n].csr_error(err::CSR_BAD_ADDR);
            }
            4 => {
                let off = ro[self.rng.below_u64(ro.len() as u64) as usize];
                dev.bar_write32(off, self.rng.next_u64() as u32).unwrap();
                self.nics[n].csr_error(err::CSR_BAD_ADDR);
            }
            5 => {
                // Values the card must refuse, on the registers that matter most.
                let r = &mut self.rng;
                let (reg, v, bit) = match r.below_u64(5) {
                    0 => {
                        let v = loop {
                            let v = match r.below_u64(3) {
                                0 => r.below_u64(8) as u32,
                                1 => r.range_u64(MTU_MAX + 1, 0xFFFF_FFFF) as u32,
                                _ => r.range_u64(8, MTU_MAX) as u32 | 1 << r.below_u64(3),
                            };
                            if !(v % 8 == 0 && (8..=MTU_MAX as u32).contains(&v)) {
                                break v;
                            }
                        };
                        (nic::MTU, v, err::CSR_BAD_VALUE)
                    }
                    1 | 2 => {
                        let v = if r.chance(30) {
                            0
                        } else {
                            r.range_u64(RING_SIZE_MAX + 1, 0xFFFF_FFFF) as u32
                        };
                        let reg = if r.chance(50) {
                            nic::LME_SIZE
                        } else {
                            nic::LMR_SIZE
                        };
                        (reg, v, err::CSR_BAD_VALUE)
                    }
                    3 => {
                        let size = self.nics[n].reg(nic::LME_SIZE);
                        let v = r.range_u64(u64::from(size), 0xFFFF_FFFF) as u32;
                        (nic::LME_PROD, v, err::LME_PROD_RANGE)
                    }
                    _ => {
                        let size = self.nics[n].reg(nic::LMR_SIZE);
                        let v = r.range_u64(u64::from(size), 0xFFFF_FFFF) as u32;
                        (nic::LMR_CONS, v, err::LMR_CONS_RANGE)
                    }
                };
                dev.bar_write32(reg, v).unwrap();
                if self.sabotage != Sabotage::CsrErrors {
                    self.nics[n].csr_error(bit);
                }
                self.bump("refused register values");
            }
            6 => {
                // INT_MASK keeps all 24 bits of its width (ddc_csr, tb_ddc_csr), bits 3..7
                // too, though no INT_STATUS bit sits there.
                let v = self.rng.next_u64() as u32;
                self.write_reg(n, nic::INT_MASK, v & INT_MASK_BITS);
                if v & !INT_MASK_BITS != 0 {
                    // Bits above the register are ignored, not refused.
                    dev.bar_write32(nic::INT_MASK, v).unwrap();
                }
            }
            7 => {
                // Write-1-to-clear registers with random values.
                let v = self.rng.next_u64() as u32;
                if self.rng.chance(50) {
                    dev.bar_write32(nic::INT_STATUS, v).unwrap();
                } else {
                    dev.bar_write32(nic::ERR_STATUS, v).unwrap();
                    let m = &mut self.nics[n];
                    m.err_must &= !v;
                    m.err_cleared |= v;
                }
            }
            8 | 9 => self.router_write(n),
            _ => self.push_misuse(n),
        }
        self.bump("csr ops");
    }

    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.rng.below_u64(v.len() as u64) as usize]
    }

    /// Router page: random values to registers the tables in use do not depend on.
    fn router_write(&mut self, n: usize) {
        let base = ROUTER_CSR_BASE as u32;
        let used = rt::RT_BOUNDS..rt::RT_BOUNDS + 2 * ROUTE_ENTRIES as u32 * rt::RT_BOUNDS_STRIDE;
        let v = self.rng.next_u64() as u32;
        if self.rng.chance(50) {
            // A table entry of an input full:2 leaves unconnected (2..7).
            let idx = self.rng.range_u64(2 * ROUTE_ENTRIES, 8 * ROUTE_ENTRIES - 1) as u32;
            let (off, keep) = if self.rng.chance(50) {
                (rt::RT_BOUNDS + idx * rt::RT_BOUNDS_STRIDE, u32::MAX)
            } else {
                (rt::RT_CTRL + idx * rt::RT_CTRL_STRIDE, 0x8000_FF07) // valid, amask, port
            };
            self.cards[n].device().bar_write32(base + off, v).unwrap();
            self.rt_regs[n].insert(base + off, v & keep);
        } else {
            let off = loop {
                let o = self.rng.below_u64(0xFFD) as u32;
                if !(used.start..used.end + 4).contains(&o) {
                    break o;
                }
            };
            if (rt::RT_BOUNDS..rt::RT_BOUNDS + 64 * rt::RT_BOUNDS_STRIDE).contains(&off) {
                // An unused entry, maybe unaligned: its value is no longer known.
                self.rt_regs[n].retain(|k, _| k & !7 != (base + off) & !7);
            }
            self.cards[n].device().bar_write32(base + off, v).unwrap();
        }
        self.bump("router writes");
    }

    /// Window writes outside a push, triggers that add no descriptor, window reads.
    fn push_misuse(&mut self, n: usize) {
        let dev = self.cards[n].device().clone();
        match self.rng.below_u64(4) {
            0 => {
                for _ in 0..self.rng.range_u64(1, 8) {
                    let off = if self.rng.chance(50) {
                        nic::PUSH_DESC + 4 * self.rng.below_u64(7) as u32
                    } else {
                        nic::PUSH_DATA
                            + 4 * self.rng.below_u64(u64::from(nic::PUSH_DATA_COUNT)) as u32
                    };
                    dev.bar_write32(off, self.rng.next_u64() as u32).unwrap();
                }
            }
            1 => {
                // Adds no descriptor: rejected, LME_PROD unchanged.
                let prod = dev.bar_read32(nic::LME_PROD).unwrap();
                dev.bar_write32(nic::PUSH_DESC + 7 * 4, prod).unwrap();
                let m = &mut self.nics[n];
                m.push_rejected += 1;
                m.err_must |= err::PUSH_REJECT;
                m.err_may |= err::PUSH_REJECT;
            }
            2 => {
                // Bits 31:16 of the trigger are a key: only bits 15:0 are the index.
                let size = self.nics[n].reg(nic::LME_SIZE);
                let v = self.rng.range_u64(u64::from(size), 0xFFFF) as u32
                    | (self.rng.next_u64() as u32) << 16;
                dev.bar_write32(nic::PUSH_DESC + 7 * 4, v).unwrap();
                let m = &mut self.nics[n];
                m.csr_error(err::LME_PROD_RANGE);
                m.push_rejected += 1;
                m.err_must |= err::PUSH_REJECT;
                m.err_may |= err::PUSH_REJECT;
            }
            _ => {
                let off = nic::PUSH_DESC + 4 * self.rng.below_u64(8 + 14) as u32;
                let v = dev.bar_read32(off).unwrap();
                self.check_read(n, off, v);
            }
        }
        self.bump("push misuse");
    }

    fn check_read(&mut self, n: usize, off: u32, v: u32) {
        let base = ROUTER_CSR_BASE as u32;
        if off >= base {
            let r = off - base;
            let want = match r {
                _ if r == rt::RT_ID => Some(ID_MAGIC),
                _ if r == rt::RT_PORTS => Some(8),
                _ => self.rt_regs[n].get(&off).copied(),
            };
            if let Some(w) = want {
                assert_eq!(v, w, "node {n} router reg {r:#x}: {}", self.ctx());
            }
            return;
        }
        if let Some(&w) = self.nics[n].regs.get(&off) {
            assert_eq!(v, w, "node {n} reg {off:#x}: {}", self.ctx());
        } else if !FOREIGN.contains(&off)
            && !window_reg(off)
            && (!off.is_multiple_of(4) || Self::nic_is_hole(off))
        {
            assert_eq!(
                v,
                u32::MAX,
                "node {n} undefined/write-only {off:#x}: {}",
                self.ctx()
            );
            self.nics[n].csr_error(err::CSR_BAD_ADDR);
        }
    }

    /// Whether a read of 4-byte aligned NIC offset `off` is a bad address: the contract
    /// defines no register there, or a write-only one (the push window).
    fn nic_is_hole(off: u32) -> bool {
        register_at(nic::REGISTERS, off).is_none_or(|r| r.access == RegAccess::Wo)
    }

    // ---- epochs ----

    /// Drains, then checks every counter, ERR_STATUS, the registers and the IOMMU.
    fn checkpoint(&mut self) {
        self.drain();
        let ctx = self.ctx();
        for n in 0..2 {
            let k = self.cards[n].counters().unwrap();
            let got = Count {
                tx_desc: k.tx_desc,
                tx_pkts: k.tx_pkts,
                rx_pkts: k.rx_pkts,
                rx_msgs: k.rx_msgs,
                desc_err: k.desc_err,
                csr_err: k.csr_err,
                rx_drop_dest: k.rx_drop_dest,
                rx_drop_window: k.rx_drop_window,
                rx_drop_malformed: k.rx_drop_malformed,
            };
            let m = &mut self.nics[n];
            assert_eq!(got, m.cnt, "node {n} counters: {ctx}");
            assert_eq!(k.rx_crc_err, 0, "node {n}: {ctx}");
            let (push, rej) = (k.push - m.push_total.0, k.push_reject - m.push_total.1);
            assert!(
                push + rej == m.push_taken + m.push_rejected + m.push_either
                    && push >= m.push_taken
                    && rej >= m.push_rejected,
                "node {n}: {push} pushes taken, {rej} rejected; expected {} taken, {} rejected, {} either: {ctx}",
                m.push_taken,
                m.push_rejected,
                m.push_either
            );
            m.push_total = (k.push, k.push_reject);
            (m.push_taken, m.push_rejected, m.push_either) = (0, 0, 0);
            let e = k.err_status;
            assert!(
                e & m.err_must == m.err_must && e & !m.err_may == 0,
                "node {n}: ERR_STATUS {e:#x} {:?}, must have {:#x}, may have {:#x}: {ctx}",
                err::names(e),
                m.err_must,
                m.err_may
            );
            self.cards[n].clear_errors().unwrap();
            (m.err_must, m.err_may, m.err_cleared) = (0, 0, 0);
            let regs: Vec<(u32, u32)> = m.regs.iter().map(|(&a, &b)| (a, b)).collect();
            for (off, want) in regs {
                let v = self.cards[n].device().bar_read32(off).unwrap();
                assert_eq!(v, want, "node {n} reg {off:#x}: {ctx}");
            }
            let dev = self.cards[n].device();
            let drop: Vec<u32> = (0..2)
                .map(|i| {
                    dev.bar_read32(ROUTER_CSR_BASE as u32 + rt::RT_DROP + i * rt::RT_DROP_STRIDE)
                        .unwrap()
                })
                .collect();
            assert_eq!(drop, self.rt_drop[n], "router {n} RT_DROP: {ctx}");
        }
        assert!(
            self.cards[1].device().iommu_faults().is_empty(),
            "node 1 IOMMU faults {:?}: {ctx}",
            self.cards[1].device().iommu_faults()
        );
        self.epochs_unchecked += 1;
        if self.epochs_unchecked >= 32 {
            self.check_faults();
        }
        assert!(
            self.cluster.violations().is_empty(),
            "{:?}: {ctx}",
            self.cluster.violations()
        );
        self.src_next = 0;
        self.rx_next = EDGE;
    }

    /// Node 0's IOMMU faults since the last check: reads inside the source ranges handed
    /// out unmapped (writes too in the ring chaos slots), at least one per descriptor whose
    /// source was entirely unmapped. Done every few epochs: the fault log only grows.
    fn check_faults(&mut self) {
        let count = self.cards[0].device().iommu_faults().len();
        let new = count - self.faults_checked;
        assert!(
            new >= self.must_fault,
            "{} descriptors with unmapped sources, {new} faults: {}",
            self.must_fault,
            self.ctx()
        );
        if new > 0 {
            let faults = self.cards[0].device().iommu_faults();
            for f in &faults[self.faults_checked..] {
                assert!(
                    self.unmapped.iter().any(|&(lo, hi, w)| f.addr >= lo
                        && f.addr + f.len <= hi
                        && (w || !f.write)),
                    "IOMMU fault {f:?} outside the unmapped ranges the test handed out: {}",
                    self.ctx()
                );
            }
        }
        self.faults_checked = count;
        self.unmapped.clear();
        self.must_fault = 0;
        self.epochs_unchecked = 0;
    }

    /// Between epochs, with nothing in flight: accepted values for registers that change
    /// what happens to traffic, the defaults restored first.
    fn reconfigure(&mut self) {
        let node1 = self.cfgs[1].node_id;
        let rx = self.cards[1].rx_iova().unwrap();
        self.write_reg(1, nic::NODE_ID, node1.into());
        self.write_reg(1, nic::CTRL, ctrl::ENABLE);
        self.write_reg(1, nic::RXWIN_BASE_LO, rx as u32);
        self.write_reg(1, nic::RXWIN_BASE_HI, (rx >> 32) as u32);
        self.write_reg(1, nic::RXWIN_SIZE_LO, RX_BYTES as u32);
        self.write_reg(1, nic::RXWIN_SIZE_HI, 0);
        self.write_reg(0, nic::DEST_RANGE, 1 << 16);
        let mtu = 8 * self.rng.range_u64(1, MTU_MAX / 8) as u32;
        let mtu = if self.rng.chance(50) {
            MTU_MAX as u32
        } else {
            mtu
        };
        self.write_reg(0, nic::MTU, mtu);
        match self.rng.below_u64(10) {
            0 => {
                let v = self.rng.next_u64() as u32;
                self.write_reg(0, nic::DEST_RANGE, v);
                self.bump("epochs: random DEST_RANGE");
            }
            1 => {
                let v = 2 + self.rng.below_u64(0xFFFE) as u32;
                self.write_reg(1, nic::NODE_ID, v);
                self.bump("epochs: receiver NODE_ID changed");
            }
            2 => {
                self.write_reg(1, nic::CTRL, 0);
                self.bump("epochs: receiver disabled");
            }
            3 => {
                let lo = self.rng.below_u64(RX_BYTES as u64 / 2) & !7;
                let size = self.rng.below_u64(RX_BYTES as u64 - lo);
                self.write_reg(1, nic::RXWIN_BASE_LO, (rx + lo) as u32);
                self.write_reg(1, nic::RXWIN_BASE_HI, ((rx + lo) >> 32) as u32);
                self.write_reg(1, nic::RXWIN_SIZE_LO, size as u32);
                self.bump("epochs: receive window shrunk");
            }
            4 => self.sender_paused(),
            5 => self.lme_ring_chaos(),
            _ => {}
        }
        // Nothing else is read back before traffic: a later mismatch names the epoch.
    }

    /// The sender disabled: posted descriptors wait (no completion, nothing sent), and go
    /// once it is enabled again.
    fn sender_paused(&mut self) {
        self.write_reg(0, nic::CTRL, 0);
        let k0 = self.cards[0].counters().unwrap();
        let count = self.rng.range_u64(1, 4);
        for _ in 0..count {
            self.good_put();
        }
        self.cluster.step(5000);
        let k1 = self.cards[0].counters().unwrap();
        assert_eq!(
            (k1.tx_desc, k1.tx_pkts),
            (k0.tx_desc, k0.tx_pkts),
            "disabled sender moved: {}",
            self.ctx()
        );
        assert!(
            self.cards[0].poll_completions().unwrap().is_empty(),
            "{}",
            self.ctx()
        );
        // Timing of the descriptors restarts here.
        let now = self.cluster.cycles();
        for p in &mut self.posted {
            p.at = now;
        }
        for w in &mut self.lmr[1] {
            w.at = now;
        }
        self.write_reg(0, nic::CTRL, ctrl::ENABLE);
        self.bump("epochs: sender paused");
    }

    /// LME_BASE pointed at unmapped memory behind the driver's back: the card reads zeros
    /// for the descriptor (ZERO_LEN), its status write faults, and it keeps running; the
    /// driver then configures the card afresh.
    fn lme_ring_chaos(&mut self) {
        let dev = self.cards[0].device().clone();
        let base = (self.rng.below_u64(0xFFF0_0000) & !0xFFF) as u32;
        let prod = dev.bar_read32(nic::LME_PROD).unwrap();
        let size = self.nics[0].reg(nic::LME_SIZE);
        let k0 = self.cards[0].counters().unwrap();
        let faults0 = self.cluster.iommu_fault_count();
        dev.bar_write32(nic::LME_BASE_LO, base).unwrap();
        dev.bar_write32(nic::LME_BASE_HI, 0).unwrap();
        dev.bar_write32(nic::LME_PROD, (prod + 1) % size).unwrap();
        let t0 = self.cluster.cycles();
        loop {
            let k = self.cards[0].counters().unwrap();
            if k.tx_desc == k0.tx_desc + 1 {
                assert_eq!(k.desc_err, k0.desc_err + 1, "{}", self.ctx());
                break;
            }
            assert!(
                self.cluster.cycles() - t0 < BOUND_CYCLES,
                "descriptor from an unmapped ring never completed: {}",
                self.ctx()
            );
            self.cluster.step(100);
        }
        self.cluster.step(200);
        let slot = u64::from(base) + u64::from(prod) * 32;
        let faults = self.cluster.iommu_fault_count() - faults0;
        assert!(
            faults >= 2,
            "expected a read and a status write fault in slot {slot:#x}, got {faults} faults: {}",
            self.ctx()
        );
        self.unmapped.push((slot, slot + 32, true));
        let m = &mut self.nics[0];
        m.cnt.tx_desc += 1;
        m.cnt.desc_err += 1;
        m.err_may |= err::DESC_ERROR;
        self.cards[0].configure(self.cfgs[0].clone()).unwrap();
        let csr = self.nics[0].cnt.csr_err;
        self.load_regs(0);
        self.nics[0].cnt.csr_err = csr;
        // configure cleared ERR_STATUS.
        self.nics[0].err_must = 0;
        self.bump("epochs: LME ring moved to unmapped memory");
    }
}

impl Drop for Fuzz {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("fuzz failed at {}", self.ctx());
        }
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v}: not a number")),
        Err(_) => default,
    }
}

/// Runs `ops` operations from `seed`; returns the fuzzer for inspection.
fn run(seed: u64, ops: u64, sabotage: Sabotage) -> Fuzz {
    run_with(seed, ops, sabotage, false)
}

/// Answer timeout of the SENDER_WAIT run: 16 ticks of 256 cycles, far below BOUND_CYCLES
/// and far above the answer round trip (node 1's LMR ring is polled every operation).
const FUZZ_ANSWER_TIMEOUT: u16 = 16;

fn run_with(seed: u64, ops: u64, sabotage: Sabotage, sender_wait: bool) -> Fuzz {
    let wall = Instant::now();
    let mut f = Fuzz::new(seed);
    f.sabotage = sabotage;
    if sender_wait {
        f.cards[0].set_sender_wait(true).unwrap();
        f.cards[0].set_answer_timeout(FUZZ_ANSWER_TIMEOUT).unwrap();
        f.sender_wait = true;
    }
    eprintln!("fuzz: seed {seed}, {ops} operations, sender wait {sender_wait}");
    let mut epoch_left = f.rng.range_u64(20, 400);
    while f.op < ops {
        let done = match f.rng.below_u64(100) {
            0..=34 => f.good_put(),
            35..=54 => f.bad_desc(),
            55..=89 => {
                f.csr_op();
                true
            }
            _ => {
                let c = f.rng.range_u64(1, 400);
                f.cluster.step(c);
                true
            }
        };
        if done {
            let c = f.rng.below_u64(24);
            f.cluster.step(c);
            f.poll();
            f.op += 1;
            epoch_left -= 1;
        }
        if !done || epoch_left == 0 {
            f.checkpoint();
            f.bump("epochs");
            f.reconfigure();
            epoch_left = f.rng.range_u64(20, 400);
        }
    }
    f.checkpoint();
    f.check_faults();
    let secs = wall.elapsed().as_secs_f64();
    let stats: Vec<String> = f
        .stats
        .iter()
        .map(|(k, v)| format!("\"{k}\": {v}"))
        .collect();
    // Wall time is informative only; nothing is asserted on it.
    println!(
        "{{\"fuzz\": \"nic\", \"seed\": {seed}, \"ops\": {ops}, \"cycles\": {}, \"iommu_faults\": {}, \"wall_s\": {secs:.1}, \"ops_per_s\": {:.0}, \"counts\": {{{}}}}}",
        f.cluster.cycles(),
        f.cluster.iommu_fault_count(),
        ops as f64 / secs,
        stats.join(", ")
    );
    f
}

#[test]
fn random_descriptors_and_csr_writes_never_break_the_card() {
    let seed = env_u64("FUZZ_SEED", 1);
    let ops = env_u64("FUZZ_OPS", 100_000);
    let f = run(seed, ops, Sabotage::None);
    // The run covered what it claims to (not a fuzzer that quietly skips everything).
    for (what, min) in [
        ("good puts", ops / 5),
        ("rejected descriptors", ops / 50),
        ("unmapped sources", ops / 500),
        ("push misuse", ops / 200),
        ("refused register values", ops / 200),
        ("router writes", ops / 100),
    ] {
        let n = f.stats.get(what).copied().unwrap_or(0);
        assert!(n >= min, "only {n} {what} in {ops} operations");
    }
}

/// The same fuzzing with REL_CTRL.SENDER_WAIT on node 0 (contract 1.6): every good
/// descriptor completes with its receiver's answer, OK for a message that landed whole
/// (ACK), REJECTED for one a window check refused (NACK_REJECT), RETRY_EXHAUSTED for one
/// nobody answers (unroutable, another node, cut by a read error: DMA_RD wins there),
/// still in ring order and within the bound.
#[test]
fn random_descriptors_with_sender_wait() {
    let seed = env_u64("FUZZ_SEED", 2);
    let ops = env_u64("FUZZ_WAIT_OPS", 20_000);
    let f = run_with(seed, ops, Sabotage::None, true);
    for (what, min) in [
        ("answer: ack", ops / 10),
        ("answer: reject", ops / 1000),
        ("answer: none", ops / 1000),
    ] {
        let n = f.stats.get(what).copied().unwrap_or(0);
        assert!(n >= min, "only {n} '{what}' in {ops} operations");
    }
}

#[test]
fn the_oracle_fails_when_the_model_is_wrong() {
    for s in [
        Sabotage::RingInlineLimit,
        Sabotage::NoWindow,
        Sabotage::Data,
        Sabotage::CsrErrors,
        Sabotage::Faults,
    ] {
        let r = std::panic::catch_unwind(|| run(1, 3000, s));
        assert!(
            r.is_err(),
            "{s:?}: 3000 operations passed with a wrong model"
        );
    }
}

/// Node 1's counters, LMR ring and receive region after a message whose source read
/// failed: `landed` leading bytes of `src` (already known) arrived, nothing else.
fn check_cut_message(
    f: &mut Fuzz,
    k1: fasthsl_driver::Counters,
    rx_off: usize,
    len: usize,
    landed: &[u8],
    pkts_landed: u32,
) {
    // Let the EEP'd packet cross the router.
    f.cluster.step(20_000);
    let k = f.cards[1].counters().unwrap();
    assert_eq!(
        k.rx_pkts - k1.rx_pkts,
        pkts_landed,
        "packets before the error land"
    );
    assert_eq!(
        k.rx_drop_malformed - k1.rx_drop_malformed,
        1,
        "the cut packet is dropped"
    );
    assert_eq!(k.rx_msgs, k1.rx_msgs, "no LMR entry for a cut message");
    assert!(f.cards[1].poll_lmr().unwrap().is_empty());
    let mut got = vec![0u8; len];
    f.cards[1].read_rx(rx_off, &mut got).unwrap();
    assert_eq!(&got[..landed.len()], landed, "bytes before the error");
    assert!(
        got[landed.len()..].iter().all(|&b| b == 0xA5),
        "nothing written past the packets before the error"
    );
    assert!(f.cards[1].device().iommu_faults().is_empty());
}

/// A payload the IOMMU refuses: the sim host answers the read with an error, the card
/// ends the packet with EEP (the receiver drops it as malformed), sends nothing more of
/// the message, completes the descriptor with DMA_RD and counts the failed reads; the
/// receiver's memory is untouched and no LMR entry appears. The card keeps working.
#[test]
fn unmapped_source_is_reported_as_an_error() {
    let mut f = Fuzz::new(1);
    let rx = f.cards[1].rx_iova().unwrap();
    let len = 3000;
    f.cards[1].write_rx(EDGE, &vec![0xA5u8; len]).unwrap();
    let (k0, k1) = (
        f.cards[0].counters().unwrap(),
        f.cards[1].counters().unwrap(),
    );
    let d = LmeDesc {
        local_addr: 0x1000, // below node 0's IOVA window: never mapped
        remote_addr: rx + EDGE as u64,
        dctx: 0,
        len: len as u32,
        dest: 1,
        flags: 0,
        msg_id: 7,
        status: 0,
        key: 0,
    };
    let t = f.cards[0].post_unchecked(d).unwrap();
    let c = f.cards[0].wait_completion(&t, 5_000_000).unwrap();
    assert!(f.cluster.iommu_fault_count() >= 1, "the read was refused");
    assert_eq!(
        c.result,
        Err(CompletionError::Rejected(DescErr::DmaRd)),
        "descriptor with an unmapped payload"
    );
    let k = f.cards[0].counters().unwrap();
    assert_eq!(
        (k.dma_rd_err - k0.dma_rd_err) as usize,
        f.cluster.iommu_fault_count(),
        "every refused read counted once"
    );
    assert_eq!(k.desc_err - k0.desc_err, 1);
    assert_eq!(k.tx_pkts, k0.tx_pkts, "a cut packet is not a sent packet");
    assert_ne!(k.err_status & err::DESC_ERROR, 0);
    check_cut_message(&mut f, k1, EDGE, len, &[], 0);

    // The card goes on: a good put right after is delivered.
    let data = f.rng.bytes(100);
    f.cards[0].device().mem_write(&f.src, 0, &data).unwrap();
    let t = f.cards[0]
        .put_via(PutPath::Ring, 1, &f.src, 0, rx + EDGE as u64, 100, 0)
        .unwrap();
    let c = f.cards[0].wait_completion(&t, 5_000_000).unwrap();
    assert_eq!(c.result, Ok(()));
    let e = f.cards[1].wait_lmr(5_000_000).unwrap();
    assert_eq!(e.len, 100);
    let mut got = vec![0u8; 100];
    f.cards[1].read_rx(EDGE, &mut got).unwrap();
    assert_eq!(got, data);
}

/// A source that runs into unmapped memory mid-message: the packets wholly before the
/// fault land, the one it falls in is cut (EEP), the rest is not sent; DMA_RD.
#[test]
fn source_running_into_unmapped_memory_cuts_the_message() {
    let mut f = Fuzz::new(1);
    let rx = f.cards[1].rx_iova().unwrap();
    let mtu = f.cards[0].device().bar_read32(nic::MTU).unwrap() as usize;
    let len = 3 * mtu;
    // The source ends mtu + mtu/2 bytes into the message: packet 1 faults.
    let off = SRC_BYTES - (mtu + mtu / 2);
    let data = f.rng.bytes(mtu + mtu / 2);
    f.cards[0].device().mem_write(&f.src, off, &data).unwrap();
    f.cards[1].write_rx(EDGE, &vec![0xA5u8; len]).unwrap();
    let (k0, k1) = (
        f.cards[0].counters().unwrap(),
        f.cards[1].counters().unwrap(),
    );
    let d = LmeDesc {
        local_addr: f.src.iova() + off as u64,
        remote_addr: rx + EDGE as u64,
        dctx: 0,
        len: len as u32,
        dest: 1,
        flags: 0,
        msg_id: 9,
        status: 0,
        key: 0,
    };
    let t = f.cards[0].post_unchecked(d).unwrap();
    let c = f.cards[0].wait_completion(&t, 5_000_000).unwrap();
    assert_eq!(c.result, Err(CompletionError::Rejected(DescErr::DmaRd)));
    let k = f.cards[0].counters().unwrap();
    assert!(k.dma_rd_err > k0.dma_rd_err);
    assert_eq!(
        (k.dma_rd_err - k0.dma_rd_err) as usize,
        f.cluster.iommu_fault_count(),
        "every refused read counted once"
    );
    assert_eq!(
        k.tx_pkts - k0.tx_pkts,
        1,
        "only the packet before the fault"
    );
    check_cut_message(&mut f, k1, EDGE, len, &data[..mtu], 1);
}

/// A message length: mostly small, sometimes several packets.
fn msg_len(r: &mut Rng) -> usize {
    match r.below_u64(20) {
        0..=12 => r.range(1, 64),
        13..=17 => r.range(65, 512),
        18 => r.range(513, 2048),
        _ if r.chance(50) => r.range(513, 2048),
        _ => r.range(2049, LEN_MAX),
    }
}
