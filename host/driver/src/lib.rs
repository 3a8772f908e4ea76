//! The FastHSL user-level driver: the PUT layer of the MPC cluster, on top of [`Device`].
//!
//! A [`Card`] brings one PCI-DDC NIC up (identity check, rings, receive window), programs
//! the RCUBE routers its BAR exposes, posts remote writes ([`Card::put`]) into the LME ring
//! and collects what happened by polling host memory: descriptor status words for sends,
//! the LMR ring for messages received. The fast path does not read card registers: the
//! only MMIO per message is the doorbell (and LMR_CONS when entries are consumed), as in
//! the original PUT layer.
//! A caller that would rather sleep than poll flags its messages with
//! [`contract::desc_flag::IRQ_REMOTE`] / `IRQ_LOCAL` and waits with [`Card::wait_lmr_irq`] or
//! [`Card::wait_interrupt`]; [`Card::set_coalescing`] trades interrupt rate for latency.
//!
//! [`Card::put`] picks the fastest way in ([`PutPath`]): a lone message is pushed through
//! the NIC's push window (the descriptor written by MMIO, so the card reads no descriptor;
//! up to [`contract::INLINE_MAX`] bytes of payload ride along, so it reads nothing at all);
//! messages behind others go through the LME ring, with payloads of up to 8 bytes inline in
//! the descriptor. Every descriptor also occupies its ring slot, so pushed and ring
//! descriptors complete in one order and one completion stream.
//!
//! The driver is written once against [`Device`], so the simulated card exercises exactly
//! the code that runs against a real board through VFIO.
//!
//! ```no_run
//! use fasthsl_driver::{Card, CardConfig, Device, DriverError};
//! use fasthsl_topology::Topology;
//!
//! /// Node 0 writes "hello" into node 1's receive region.
//! fn hello<D: Device>(dev0: D, dev1: D) -> Result<(), DriverError> {
//!     let topo: Topology = "full:2".parse()?;
//!     let (mut a, mut b) = (Card::open(dev0)?, Card::open(dev1)?);
//!     a.configure(CardConfig::for_node(&topo, 0))?;
//!     b.configure(CardConfig::for_node(&topo, 1))?;
//!     a.program_routes(&topo)?;
//!     b.program_routes(&topo)?;
//!
//!     let buf = a.device().dma_alloc(4096)?;
//!     a.device().mem_write(&buf, 0, b"hello")?;
//!     let t = a.put(1, &buf, 0, b.rx_iova()?, 5, 0)?;
//!     a.wait_completion(&t, 1_000_000)?.result.expect("card accepted the descriptor");
//!     let entry = b.wait_lmr(1_000_000)?; // src 0, len 5, addr = b.rx_iova()
//!     let mut got = [0u8; 5];
//!     b.read_rx((entry.addr - b.rx_iova()?) as usize, &mut got)?;
//!     assert_eq!(&got, b"hello");
//!     Ok(())
//! }
//! ```

#![forbid(unsafe_code)]

mod context;
mod reliable;
mod ring;
mod window;

use std::collections::VecDeque;
use std::ops::RangeInclusive;

pub use context::Context;
pub use fasthsl_contract as contract;
pub use fasthsl_contract::IntCoal;
use fasthsl_contract::{
    ctrl, desc_flag, err, int, nic_regs as nic, router_regs as rt, status_decode, DescErr, LmeDesc,
    LmrEntry, RouteBounds, RouteCtrl, CONTRACT_VERSION, ID_MAGIC, INLINE_MAX, INLINE_RING_MAX,
    MSG_LEN_MAX, MTU_MAX, RING_SIZE_MAX, ROUTER_CSR_BASE, ROUTER_PORTS, ROUTE_ENTRIES,
};
pub use fasthsl_device::{
    forward_device, BarPage, Device, DeviceError, DmaBuffer, Pace, PageDevice,
};
pub use fasthsl_topology::Routing;
use fasthsl_topology::{Topology, TopologyError};
pub use reliable::{ReliableConfig, ANSWER_TIMEOUT_RESET};
use ring::{LmeRing, LmrCursor};
use window::WindowTable;
pub use window::{RxWindow, WinStats, WindowPerms, WindowReject, WINDOWS, WINDOW_LEN_MAX};

/// How long [`Card::reset`] lets outstanding descriptors finish before disabling the card.
const RESET_DRAIN_NS: u64 = 10_000_000;

/// Errors of the driver.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    /// The backend failed (register or DMA memory access, allocation, OS call).
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// The ID register does not hold ID_MAGIC.
    #[error(
        "{name}: ID register reads {found:#010x}, expected {expected:#010x} ('FSHL'){hint}",
        expected = ID_MAGIC,
        hint = if *.found == u32::MAX {
            ": the card does not answer (all ones: link down, BAR disabled or device gone)"
        } else {
            ": this is not a FastHSL card, or its bitstream is not loaded"
        }
    )]
    NotFastHsl {
        /// Device name.
        name: String,
        /// Value read.
        found: u32,
    },
    /// The card implements a different major contract version.
    #[error(
        "{name}: card implements contract {}.{}, this driver needs major version {} (driver contract {}.{}); \
         update the driver or the bitstream so they match",
        .found >> 16, .found & 0xFFFF, CONTRACT_VERSION >> 16, CONTRACT_VERSION >> 16, CONTRACT_VERSION & 0xFFFF
    )]
    VersionMismatch {
        /// Device name.
        name: String,
        /// VERSION register value.
        found: u32,
    },
    /// An operation that needs a configured card was called before [`Card::configure`].
    #[error("the card is not configured: call Card::configure first")]
    NotConfigured,
    /// The context page does not answer its number: a card without contexts (contract
    /// 1.5 and later have them).
    #[error("the context page reads {found:#x} instead of its number: a card without contexts (contract 1.5)?")]
    NoContexts {
        /// What the page's ID register read.
        found: u32,
    },
    /// A context number outside the card's (1..CTX_COUNT-1 for a [`Context`], below
    /// CTX_COUNT for a destination context).
    #[error("context {n} does not exist (the card has contexts 0..{count}; 0 is the card's own)")]
    NoSuchContext {
        /// The number asked for.
        n: u32,
        /// CTX_COUNT.
        count: u32,
    },
    /// A [`CardConfig`] field is out of range.
    #[error("invalid card configuration: {field} {reason}")]
    BadConfig {
        /// Field name.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// The card did not take a configuration register value.
    #[error(
        "{register}: wrote {wrote:#x}, card reads back {read:#x} (ERR_STATUS {err_status:#x} {names:?})",
        names = err::names(*.err_status)
    )]
    ConfigRejected {
        /// Register name.
        register: &'static str,
        /// Value written.
        wrote: u64,
        /// Value read back.
        read: u64,
        /// ERR_STATUS after the write.
        err_status: u32,
    },
    /// Every register read back right, but the card flagged errors while being configured.
    #[error(
        "the card flagged errors while being configured: ERR_STATUS {err_status:#x} {names:?}",
        names = err::names(*.err_status)
    )]
    ConfigErrors {
        /// ERR_STATUS after configuration.
        err_status: u32,
    },
    /// The topology cannot be routed.
    #[error(transparent)]
    Topology(#[from] TopologyError),
    /// This card's node id is not a node of the topology.
    #[error("node {node} is not in the topology ({nodes} nodes)")]
    NodeNotInTopology {
        /// Configured node id.
        node: u16,
        /// Nodes in the topology.
        nodes: usize,
    },
    /// The topology gives this node more routers than its BAR has router pages.
    #[error("node {node} would manage routers {routers:?}, but a card exposes one router page")]
    TooManyRouters {
        /// Node id.
        node: u16,
        /// Routers the topology assigns to it.
        routers: Vec<usize>,
    },
    /// The router page does not identify as a router.
    #[error("router page at BAR0+{base:#x}: RT_ID reads {found:#010x}, expected {expected:#010x}", base = ROUTER_CSR_BASE, expected = ID_MAGIC)]
    NoRouter {
        /// RT_ID value read.
        found: u32,
    },
    /// A routing table entry reads back differently from what was written.
    #[error(
        "router {router} input {input} entry {entry}: {register} wrote {wrote:#010x}, reads back {read:#010x}"
    )]
    RouteVerify {
        /// Router index.
        router: usize,
        /// Input port.
        input: usize,
        /// Entry index within the input's table.
        entry: usize,
        /// RT_BOUNDS or RT_CTRL.
        register: &'static str,
        /// Value written.
        wrote: u32,
        /// Value read back.
        read: u32,
    },
    /// put with DESC_FLAG_BCAST: the range in dest is empty or outside DEST_RANGE.
    #[error(
        "put: broadcast range {lo}..={hi} is empty or outside DEST_RANGE {range_lo}..={range_hi}"
    )]
    BcastRange {
        /// Lowest node of the range (dest bits 7:0).
        lo: u16,
        /// Highest node (dest bits 15:8).
        hi: u16,
        /// DEST_RANGE low end.
        range_lo: u16,
        /// DEST_RANGE high end.
        range_hi: u16,
    },
    /// put: zero-length message.
    #[error("put: length is 0 (messages carry 1..={MSG_LEN_MAX} bytes)")]
    ZeroLength,
    /// put: message longer than MSG_LEN_MAX.
    #[error("put: length {len} exceeds MSG_LEN_MAX ({MSG_LEN_MAX} bytes)")]
    TooLong {
        /// Requested length.
        len: usize,
    },
    /// put: destination outside the configured DEST_RANGE.
    #[error("put: destination node {dest} is outside the configured range {lo}..={hi}")]
    DestOutOfRange {
        /// Requested destination.
        dest: u16,
        /// Lowest reachable node.
        lo: u16,
        /// Highest reachable node.
        hi: u16,
    },
    /// put: the local range does not lie inside the source buffer.
    #[error(
        "put: local range [{offset:#x}, +{len:#x}) is outside the {buf_len:#x}-byte source buffer"
    )]
    LocalRange {
        /// Offset in the buffer.
        offset: usize,
        /// Length.
        len: usize,
        /// Buffer length.
        buf_len: usize,
    },
    /// put: the remote range does not end at or below 2^48 (descriptors carry 48-bit
    /// remote addresses, contract 1.5).
    #[error("put: remote range {addr:#x}+{len:#x} ends past 2^48, the largest remote address")]
    RemoteRange {
        /// Remote address.
        addr: u64,
        /// Length.
        len: usize,
    },
    /// put: no free LME slot (completions not yet reaped, or the card is slow).
    #[error(
        "put: LME ring full ({outstanding} of {entries} entries outstanding; one stays empty)"
    )]
    RingFull {
        /// Ring entries.
        entries: u32,
        /// Descriptors posted and not completed.
        outstanding: usize,
    },
    /// A blocking wait ran out of (device) time.
    #[error("timed out after {waited_ns} ns waiting for {what}")]
    Timeout {
        /// What was awaited.
        what: &'static str,
        /// Device-clock nanoseconds waited.
        waited_ns: u64,
    },
    /// The ticket's completion was already handed out by [`Card::poll_completions`].
    #[error("descriptor #{seq} already completed and was returned by poll_completions")]
    AlreadyReaped {
        /// Sequence number of the ticket.
        seq: u64,
    },
    /// put_via: an inline path was asked for a message longer than it can carry.
    #[error("put: {len} bytes do not fit the {path:?} path (at most {max} bytes inline)")]
    InlineTooLong {
        /// Requested length.
        len: usize,
        /// The path asked for.
        path: PutPath,
        /// Its inline limit.
        max: usize,
    },
    /// put_via: the card's contract predates the push window and inline payloads (1.1).
    #[error(
        "put: the card implements contract {}.{}, the {path:?} path needs 1.1 or later",
        .version >> 16, .version & 0xFFFF
    )]
    PathUnsupported {
        /// The path asked for.
        path: PutPath,
        /// VERSION register value.
        version: u32,
    },
    /// Interrupt coalescing needs contract 1.2 or later.
    #[error(
        "interrupt coalescing: the card implements contract {}.{}, coalescing needs 1.2 or later",
        .version >> 16, .version & 0xFFFF
    )]
    CoalescingUnsupported {
        /// VERSION register value.
        version: u32,
    },
    /// Message acknowledgement (REL_CTRL) needs contract 1.5 or later.
    #[error(
        "acknowledgement: the card implements contract {}.{}, answers need 1.5 or later",
        .version >> 16, .version & 0xFFFF
    )]
    AckUnsupported {
        /// VERSION register value.
        version: u32,
    },
    /// Sender-side waiting for answers (REL_CTRL.SENDER_WAIT, REL_TIMEOUT) needs contract
    /// 1.6 or later.
    #[error(
        "sender wait: the card implements contract {}.{}, completion on the answer needs 1.6 or later",
        .version >> 16, .version & 0xFFFF
    )]
    SenderWaitUnsupported {
        /// VERSION register value.
        version: u32,
    },
    /// The receiver's duplicate filter (REL_CTRL.DEDUP) needs contract 1.7 or later.
    #[error(
        "dedup: the card implements contract {}.{}, the duplicate filter needs 1.7 or later",
        .version >> 16, .version & 0xFFFF
    )]
    DedupUnsupported {
        /// VERSION register value.
        version: u32,
    },
    /// REL_CTRL.DEDUP without REL_CTRL.SENDER_WAIT (or SENDER_WAIT cleared under DEDUP).
    /// Without SENDER_WAIT a sender's `lag` is 0, so a receiver's window takes every
    /// message as the newest of its source: an earlier message to the same node that
    /// completes later (another context's segments interleaved with TX_QUANTUM, or an
    /// adaptive route) would be dropped as a duplicate. Every card is configured alike, so
    /// the card's own SENDER_WAIT stands for its senders'.
    #[error(
        "dedup needs sender wait: turn REL_CTRL.SENDER_WAIT on before DEDUP, and DEDUP off \
         before SENDER_WAIT (without it, messages completing out of order would be dropped \
         as duplicates)"
    )]
    DedupNeedsSenderWait,
    /// The receiver's early NACK (REL_CTRL.EARLY_NACK) needs contract 1.8 or later.
    #[error(
        "early NACK: the card implements contract {}.{}, the early NACK needs 1.8 or later",
        .version >> 16, .version & 0xFFFF
    )]
    EarlyNackUnsupported {
        /// VERSION register value.
        version: u32,
    },
    /// Retransmission (REL_RETRIES) needs contract 1.7 or later.
    #[error(
        "retransmission: the card implements contract {}.{}, retries need 1.7 or later",
        .version >> 16, .version & 0xFFFF
    )]
    RetriesUnsupported {
        /// VERSION register value.
        version: u32,
    },
    /// set_retries: more than the 4-bit REL_RETRIES register holds.
    #[error("retransmission: {retries} retries asked, the card allows at most 15")]
    RetriesTooMany {
        /// The count asked for.
        retries: u32,
    },
    /// Segmenting between contexts (TX_QUANTUM) needs contract 1.8 or later.
    #[error(
        "tx quantum: the card implements contract {}.{}, TX_QUANTUM needs 1.8 or later",
        .version >> 16, .version & 0xFFFF
    )]
    TxQuantumUnsupported {
        /// VERSION register value.
        version: u32,
    },
    /// set_tx_quantum: not 0 (off) and not in 6..=24.
    #[error("tx quantum: log2 {log2} invalid, must be 0 (whole messages) or 6..=24")]
    TxQuantumInvalid {
        /// The log2 asked for.
        log2: u32,
    },
    /// Receive windows need contract 1.5 or later.
    #[error(
        "receive windows: the card implements contract {}.{}, windows need 1.5 or later",
        .version >> 16, .version & 0xFFFF
    )]
    WindowsUnsupported {
        /// VERSION register value.
        version: u32,
    },
    /// register_window: the range does not lie inside the receive region.
    #[error(
        "window [{offset:#x}, +{len:#x}) is outside the {rx_len:#x}-byte receive region \
         (or longer than {WINDOW_LEN_MAX:#x} bytes)"
    )]
    WindowRange {
        /// Offset in the receive region.
        offset: usize,
        /// Length.
        len: usize,
        /// Receive region length.
        rx_len: usize,
    },
    /// register_window: every window of the card's table is in use.
    #[error("all {windows} receive windows are in use: deregister one first")]
    WindowsFull {
        /// Windows in the table.
        windows: usize,
    },
    /// register_window_with_key: the table index the key names (bits 3:0) is in use.
    #[error("window key {key:#06x}: table index {} is in use", .key & 0xF)]
    WindowKeyInUse {
        /// Requested key.
        key: u16,
    },
    /// The ticket belongs to an earlier configuration (or another card).
    #[error("ticket #{seq} does not belong to this card's current configuration")]
    StaleTicket {
        /// Sequence number of the ticket.
        seq: u64,
    },
}

/// How to bring a card up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardConfig {
    /// This node's id (NODE_ID): packets for other ids are dropped.
    pub node_id: u16,
    /// Destinations the routing tables reach (DEST_RANGE, inclusive).
    pub dest_range: RangeInclusive<u16>,
    /// Payload bytes per packet: a multiple of 8 in 8..=MTU_MAX.
    pub mtu: u32,
    /// LME ring entries, 2..=RING_SIZE_MAX (one always stays empty).
    pub lme_entries: u32,
    /// LMR ring entries, 2..=RING_SIZE_MAX.
    pub lmr_entries: u32,
    /// Size of the receive region remote writes may land in, bytes (> 0).
    pub rx_window_bytes: usize,
    /// INT_MASK value (see [`contract::int`]); interrupts only matter to [`Card::wait_interrupt`].
    pub int_mask: u32,
}

impl CardConfig {
    /// Defaults for node `node` of `topology`: every node reachable, largest MTU, 256-entry
    /// rings, a 4 MiB receive region, all interrupts enabled.
    pub fn for_node(topology: &Topology, node: u16) -> Self {
        CardConfig {
            node_id: node,
            dest_range: 0..=(topology.nodes().max(1) - 1) as u16,
            mtu: MTU_MAX as u32,
            lme_entries: 256,
            lmr_entries: 256,
            rx_window_bytes: 4 << 20,
            int_mask: int::ALL,
        }
    }

    /// Checks every field against the contract's limits.
    pub fn validate(&self) -> Result<(), DriverError> {
        let bad = |field, reason: String| Err(DriverError::BadConfig { field, reason });
        if !self.mtu.is_multiple_of(8) || !(8..=MTU_MAX as u32).contains(&self.mtu) {
            return bad(
                "mtu",
                format!("{} is not a multiple of 8 in 8..={MTU_MAX}", self.mtu),
            );
        }
        for (field, n) in [
            ("lme_entries", self.lme_entries),
            ("lmr_entries", self.lmr_entries),
        ] {
            if !(2..=RING_SIZE_MAX as u32).contains(&n) {
                return bad(field, format!("{n} is outside 2..={RING_SIZE_MAX}"));
            }
        }
        if self.dest_range.is_empty() {
            return bad("dest_range", format!("{:?} is empty", self.dest_range));
        }
        if self.rx_window_bytes == 0 {
            return bad("rx_window_bytes", "must be > 0".into());
        }
        if self.int_mask & !int::ALL != 0 {
            return bad(
                "int_mask",
                format!("{:#x} has bits outside {:#x}", self.int_mask, int::ALL),
            );
        }
        Ok(())
    }
}

/// How a descriptor reaches the card.
///
/// Whatever the path, the descriptor is also written into its LME ring slot, and the push
/// window's trigger is the LME_PROD doorbell: pushed and ring descriptors are processed and
/// completed in ring order, in the same completion stream. A push the card cannot take
/// (push path busy, see PUSH_STATUS) is counted (CNT_PUSH_REJECT) and served from the
/// ring copy, so it is only slower, never lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PutPath {
    /// Let [`Card::put`] choose: [`PutPath::InlinePush`] for a lone message of up to
    /// INLINE_MAX bytes, [`PutPath::Push`] for a longer lone message, [`PutPath::Ring`]
    /// when descriptors are outstanding (the push path is then possibly busy).
    Auto,
    /// Descriptor in the ring, LME_PROD doorbell; payloads of up to INLINE_RING_MAX bytes
    /// travel inline in the descriptor's local_addr field (no payload read).
    Ring,
    /// Descriptor written through the push window: no descriptor read.
    Push,
    /// Descriptor and payload (up to INLINE_MAX bytes) through the push window: no DMA
    /// read at all.
    InlinePush,
}

/// Handle on a posted descriptor, for [`Card::wait_completion`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PutTicket {
    /// Sequence number: descriptors posted before this one since configuration.
    pub seq: u64,
    /// The descriptor's msg_id (delivered in the receiver's LMR entry).
    pub msg_id: u32,
    /// LME slot the descriptor occupies until it completes.
    pub slot: u32,
    /// The path it took (never [`PutPath::Auto`]).
    pub path: PutPath,
    epoch: u32,
}

/// Why the card failed a descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CompletionError {
    /// A code the contract defines.
    #[error("card rejected the descriptor: {:?} ({})", .0, .0.describe())]
    Rejected(DescErr),
    /// A code the contract does not define (card and driver disagree).
    #[error("descriptor completed with unknown code {0:#04x}")]
    Unknown(u8),
}

/// A finished descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    /// Sequence number (as in the [`PutTicket`]).
    pub seq: u64,
    /// The descriptor's msg_id.
    pub msg_id: u32,
    /// The LME slot it occupied.
    pub slot: u32,
    /// Success, or the error code the card wrote.
    pub result: Result<(), CompletionError>,
}

/// Card statistics registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counters {
    /// CNT_TX_DESC: descriptors completed.
    pub tx_desc: u32,
    /// CNT_TX_PKTS: packets sent.
    pub tx_pkts: u32,
    /// CNT_RX_PKTS: packets received into host memory.
    pub rx_pkts: u32,
    /// CNT_RX_MSGS: LMR entries written.
    pub rx_msgs: u32,
    /// CNT_DESC_ERR: descriptors completed with an error.
    pub desc_err: u32,
    /// CNT_CSR_ERR: rejected register accesses.
    pub csr_err: u32,
    /// CNT_RX_CRC_ERR: packets dropped for a bad CRC.
    pub rx_crc_err: u32,
    /// CNT_RX_DROP_DEST: packets dropped, wrong destination or card disabled.
    pub rx_drop_dest: u32,
    /// CNT_RX_DROP_MALFORMED: packets dropped as malformed.
    pub rx_drop_malformed: u32,
    /// CNT_RX_DROP_WINDOW: packets dropped, target outside the receive window.
    pub rx_drop_window: u32,
    /// ERR_STATUS (sticky error bits, see [`contract::err`]).
    pub err_status: u32,
    /// CNT_PUSH: descriptors taken through the push window.
    pub push: u32,
    /// CNT_PUSH_REJECT: pushes the card served from the ring copy instead.
    pub push_reject: u32,
    /// CNT_RX_MSG_EXPIRED: started multi-packet messages the receiver gave up (a packet
    /// lost: no LMR entry). Reads 0 on cards before contract 1.3.
    pub rx_msg_expired: u32,
    /// CNT_RX_TRACK_FULL: packets of new multi-packet messages that found the receiver's
    /// completion table full (their message gets no LMR entry).
    pub rx_track_full: u32,
    /// CNT_DMA_RD_ERR: DMA reads the host answered with an error (IOMMU refusal).
    pub dma_rd_err: u32,
    /// CNT_ACK_TX: ACKs this card sent (unicast messages that completed here). Reads 0
    /// on cards before contract 1.5, as do the other answer counters.
    pub ack_tx: u32,
    /// CNT_NACK_TX: NACKs (and NACK_REJECTs) this card sent.
    pub nack_tx: u32,
    /// CNT_ACK_RX: ACKs received for this card's messages.
    pub ack_rx: u32,
    /// CNT_NACK_RX: NACKs (and NACK_REJECTs) received for this card's messages.
    pub nack_rx: u32,
    /// CNT_ANS_DROP: answers not sent because their queue was full.
    pub ans_drop: u32,
    /// CNT_RX_DROP_CTX: packets dropped, their destination context has no LMR ring.
    /// Reads 0 on cards before contract 1.5.
    pub rx_drop_ctx: u32,
    /// CNT_RETX: retransmissions this card started (a message re-read after a NACK or an
    /// answer timeout, [`Card::set_retries`]). Reads 0 on cards before contract 1.7.
    pub retx: u32,
    /// CNT_REL_TIMEOUT: answer timeouts of this card's waiting messages (each then
    /// retransmitted or completed RetryExhausted). Reads 0 on cards before contract 1.7.
    pub rel_timeout: u32,
    /// CNT_RX_DUP: packets dropped as duplicates (REL_CTRL.DEDUP, [`Card::set_dedup`]).
    /// Reads 0 on cards before contract 1.7, as does `rx_seq_evict`.
    pub rx_dup: u32,
    /// CNT_RX_SEQ_EVICT: duplicate-filter slots taken over by another source id.
    pub rx_seq_evict: u32,
    /// CNT_RX_EARLY_NACK: NACKs sent as soon as a deterministically routed message's
    /// last packet arrived with bytes missing ([`Card::set_early_nack`]; also in
    /// `nack_tx`). Reads 0 on cards before contract 1.8, as does `rx_lmr_full`.
    pub rx_early_nack: u32,
    /// CNT_RX_LMR_FULL: messages of contexts 1..7 that completed while their context's
    /// LMR ring was full: no entry, NACKed (a sender with retries sends them again).
    pub rx_lmr_full: u32,
}

impl Counters {
    const REGS: [(&'static str, u32); 28] = [
        ("tx_desc", nic::CNT_TX_DESC),
        ("tx_pkts", nic::CNT_TX_PKTS),
        ("rx_pkts", nic::CNT_RX_PKTS),
        ("rx_msgs", nic::CNT_RX_MSGS),
        ("desc_err", nic::CNT_DESC_ERR),
        ("csr_err", nic::CNT_CSR_ERR),
        ("rx_crc_err", nic::CNT_RX_CRC_ERR),
        ("rx_drop_dest", nic::CNT_RX_DROP_DEST),
        ("rx_drop_malformed", nic::CNT_RX_DROP_MALFORMED),
        ("rx_drop_window", nic::CNT_RX_DROP_WINDOW),
        ("err_status", nic::ERR_STATUS),
        ("push", nic::CNT_PUSH),
        ("push_reject", nic::CNT_PUSH_REJECT),
        ("rx_msg_expired", nic::CNT_RX_MSG_EXPIRED),
        ("rx_track_full", nic::CNT_RX_TRACK_FULL),
        ("dma_rd_err", nic::CNT_DMA_RD_ERR),
        ("ack_tx", nic::CNT_ACK_TX),
        ("nack_tx", nic::CNT_NACK_TX),
        ("ack_rx", nic::CNT_ACK_RX),
        ("nack_rx", nic::CNT_NACK_RX),
        ("ans_drop", nic::CNT_ANS_DROP),
        ("rx_drop_ctx", nic::CNT_RX_DROP_CTX),
        ("retx", nic::CNT_RETX),
        ("rel_timeout", nic::CNT_REL_TIMEOUT),
        ("rx_dup", nic::CNT_RX_DUP),
        ("rx_seq_evict", nic::CNT_RX_SEQ_EVICT),
        ("rx_early_nack", nic::CNT_RX_EARLY_NACK),
        ("rx_lmr_full", nic::CNT_RX_LMR_FULL),
    ];

    /// `(name, value)` of every field, in register order, for printing.
    pub fn fields(&self) -> [(&'static str, u32); 28] {
        let v = [
            self.tx_desc,
            self.tx_pkts,
            self.rx_pkts,
            self.rx_msgs,
            self.desc_err,
            self.csr_err,
            self.rx_crc_err,
            self.rx_drop_dest,
            self.rx_drop_malformed,
            self.rx_drop_window,
            self.err_status,
            self.push,
            self.push_reject,
            self.rx_msg_expired,
            self.rx_track_full,
            self.dma_rd_err,
            self.ack_tx,
            self.nack_tx,
            self.ack_rx,
            self.nack_rx,
            self.ans_drop,
            self.rx_drop_ctx,
            self.retx,
            self.rel_timeout,
            self.rx_dup,
            self.rx_seq_evict,
            self.rx_early_nack,
            self.rx_lmr_full,
        ];
        let mut out = [("", 0); 28];
        for (i, o) in out.iter_mut().enumerate() {
            *o = (Self::REGS[i].0, v[i]);
        }
        out
    }

    /// Packets the card dropped on reception, for any reason.
    pub fn rx_dropped(&self) -> u32 {
        self.rx_crc_err
            + self.rx_drop_dest
            + self.rx_drop_malformed
            + self.rx_drop_window
            + self.rx_drop_ctx
    }
}

/// The NIC's configuration and ring registers, as read from the card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CsrState {
    /// ID.
    pub id: u32,
    /// VERSION.
    pub version: u32,
    /// NODE_ID.
    pub node_id: u32,
    /// CTRL.
    pub ctrl: u32,
    /// MTU.
    pub mtu: u32,
    /// DEST_RANGE (lo in bits 15:0, hi in bits 31:16).
    pub dest_range: u32,
    /// LME_BASE_HI:LO.
    pub lme_base: u64,
    /// LME_SIZE.
    pub lme_size: u32,
    /// LME_PROD.
    pub lme_prod: u32,
    /// LME_CONS.
    pub lme_cons: u32,
    /// PUSH_STATUS (bit 0 FREE: the push path holds no descriptor).
    pub push_status: u32,
    /// LMR_BASE_HI:LO.
    pub lmr_base: u64,
    /// LMR_SIZE.
    pub lmr_size: u32,
    /// LMR_PROD.
    pub lmr_prod: u32,
    /// LMR_CONS.
    pub lmr_cons: u32,
    /// RXWIN_BASE_HI:LO.
    pub rxwin_base: u64,
    /// RXWIN_SIZE_HI:LO.
    pub rxwin_size: u64,
    /// INT_STATUS.
    pub int_status: u32,
    /// INT_MASK.
    pub int_mask: u32,
    /// INT_COAL_LME_DONE (int_coal format: count 15:0, cycles 31:16).
    pub int_coal_lme_done: u32,
    /// INT_COAL_LMR_NEW (int_coal format).
    pub int_coal_lmr_new: u32,
    /// ERR_STATUS.
    pub err_status: u32,
}

impl CsrState {
    /// `(register name, value)` pairs, in register order, for printing.
    pub fn fields(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("ID", self.id.into()),
            ("VERSION", self.version.into()),
            ("NODE_ID", self.node_id.into()),
            ("CTRL", self.ctrl.into()),
            ("MTU", self.mtu.into()),
            ("DEST_RANGE", self.dest_range.into()),
            ("LME_BASE", self.lme_base),
            ("LME_SIZE", self.lme_size.into()),
            ("LME_PROD", self.lme_prod.into()),
            ("LME_CONS", self.lme_cons.into()),
            ("PUSH_STATUS", self.push_status.into()),
            ("LMR_BASE", self.lmr_base),
            ("LMR_SIZE", self.lmr_size.into()),
            ("LMR_PROD", self.lmr_prod.into()),
            ("LMR_CONS", self.lmr_cons.into()),
            ("RXWIN_BASE", self.rxwin_base),
            ("RXWIN_SIZE", self.rxwin_size),
            ("INT_STATUS", self.int_status.into()),
            ("INT_MASK", self.int_mask.into()),
            ("INT_COAL_LME_DONE", self.int_coal_lme_done.into()),
            ("INT_COAL_LMR_NEW", self.int_coal_lmr_new.into()),
            ("ERR_STATUS", self.err_status.into()),
        ]
    }

    /// The status and notification registers (`fasthsl stats` shows them next to the
    /// counters): push path, interrupt status/mask/coalescing, errors.
    pub fn status_fields(&self) -> Vec<(&'static str, u64)> {
        const STATUS: [&str; 6] = [
            "PUSH_STATUS",
            "INT_STATUS",
            "INT_MASK",
            "INT_COAL_LME_DONE",
            "INT_COAL_LMR_NEW",
            "ERR_STATUS",
        ];
        self.fields()
            .into_iter()
            .filter(|(n, _)| STATUS.contains(n))
            .collect()
    }
}

/// The router page of a card, as read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouterState {
    /// RT_ID (ID_MAGIC on a working card).
    pub id: u32,
    /// RT_PORTS.
    pub ports: u32,
    /// RT_DROP per input port: packets no entry matched.
    pub drop: [u32; ROUTER_PORTS as usize],
    /// RT_EEP per input port: packets that arrived ending in EEP.
    pub eep: [u32; ROUTER_PORTS as usize],
    /// RT_TMO per input port: packets ended by the stall timeout (their end never came).
    pub tmo: [u32; ROUTER_PORTS as usize],
    /// Valid table entries per input port, in match order: `(entry index, bounds, port)`.
    pub tables: Vec<Vec<(usize, RouteBounds, u8)>>,
}

/// State that exists only while the card is configured.
#[derive(Debug)]
struct Active {
    cfg: CardConfig,
    lme: DmaBuffer,
    lmr: DmaBuffer,
    rx: DmaBuffer,
    ring: LmeRing,
    lmr_cursor: LmrCursor,
    next_msg_id: u32,
    /// Completions reaped from the ring but not yet handed out.
    done: VecDeque<Completion>,
    /// LMR entries consumed from the ring but not yet handed out.
    received: VecDeque<LmrEntry>,
    /// Receive windows registered in the card's table.
    windows: WindowTable,
}

/// One FastHSL card, driven through a [`Device`] backend.
pub struct Card<D: Device> {
    dev: D,
    version: u32,
    /// Bumped at every configuration so tickets of an earlier one are recognised.
    epoch: u32,
    active: Option<Active>,
}

fn lo32(v: u64) -> u32 {
    v as u32
}
fn hi32(v: u64) -> u32 {
    (v >> 32) as u32
}

/// First contract version (major.minor) with the push window and inline payloads.
const FAST_PATHS_VERSION: u32 = 0x0001_0001;
/// First contract version with interrupt coalescing (INT_COAL_*).
const COALESCING_VERSION: u32 = 0x0001_0002;
/// First contract with the receiver's completion counters (CNT_RX_MSG_EXPIRED,
/// CNT_RX_TRACK_FULL); older cards do not decode them.
const MSG_TRACK_VERSION: u32 = 0x0001_0003;
/// First contract whose receiver answers messages (ACK/NACK, REL_CTRL, CNT_ACK_*).
const ACK_VERSION: u32 = 0x0001_0005;
/// First contract whose descriptors can complete on the receiver's answer
/// (REL_CTRL.SENDER_WAIT, REL_TIMEOUT, desc_err RETRY_EXHAUSTED).
const SENDER_WAIT_VERSION: u32 = 0x0001_0006;
/// First contract whose packets carry seq/lag/attempt and whose receiver can drop
/// duplicates (REL_CTRL.DEDUP, REL_RETRIES, CNT_RX_DUP, CNT_RX_SEQ_EVICT).
const DEDUP_VERSION: u32 = 0x0001_0007;
/// First contract with contexts (context pages, CNT_RX_DROP_CTX).
const CONTEXTS_VERSION: u32 = 0x0001_0005;
/// First contract that retransmits (REL_RETRIES, CNT_RETX, CNT_REL_TIMEOUT).
const RETX_VERSION: u32 = 0x0001_0007;
/// First contract with the early NACK (REL_CTRL.EARLY_NACK, CNT_RX_EARLY_NACK) and the
/// per-context LMR-full drop (CNT_RX_LMR_FULL).
const EARLY_NACK_VERSION: u32 = 0x0001_0008;
/// First contract whose TX serves contexts a segment at a time (TX_QUANTUM).
const TX_QUANTUM_VERSION: u32 = 0x0001_0008;

/// An interrupt source the card can coalesce (INT_STATUS bits LME_DONE and LMR_NEW).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntSource {
    /// Sends: descriptors posted with [`contract::desc_flag::IRQ_LOCAL`] completed.
    LmeDone,
    /// Receives: LMR entries of messages sent with [`contract::desc_flag::IRQ_REMOTE`].
    LmrNew,
}

impl IntSource {
    /// Both sources.
    pub const ALL: [IntSource; 2] = [IntSource::LmeDone, IntSource::LmrNew];

    /// The source's INT_STATUS / INT_MASK bit.
    pub fn bit(self) -> u32 {
        match self {
            IntSource::LmeDone => int::LME_DONE,
            IntSource::LmrNew => int::LMR_NEW,
        }
    }

    fn coal_reg(self) -> u32 {
        match self {
            IntSource::LmeDone => nic::INT_COAL_LME_DONE,
            IntSource::LmrNew => nic::INT_COAL_LMR_NEW,
        }
    }
}

/// One past the largest remote address a descriptor or packet carries (lme_desc.remote_addr,
/// pkt_hdr remote_addr: 48 bits; a packet's bits 63:48 are the key).
const REMOTE_ADDR_END: u64 = 1 << 48;

/// Moves the finished descriptors of one LME ring to `done`, in ring order. Reads
/// descriptor status words in host memory only (the card's rings and every context's
/// use the same rule).
pub(crate) fn reap_lme<D: Device>(
    dev: &D,
    lme: &DmaBuffer,
    ring: &mut LmeRing,
    done: &mut VecDeque<Completion>,
) -> Result<(), DriverError> {
    while let Some((slot, seq)) = ring.oldest() {
        let w3 = dev.mem_read_u64(lme, slot as usize * LmeDesc::BYTES + DESC_W3)?;
        let Some(code) = status_decode((w3 >> 32) as u16) else {
            break;
        };
        let result = match code {
            Ok(DescErr::Ok) => Ok(()),
            Ok(e) => Err(CompletionError::Rejected(e)),
            Err(c) => Err(CompletionError::Unknown(c)),
        };
        ring.pop();
        done.push_back(Completion {
            seq,
            msg_id: w3 as u32,
            slot,
            result,
        });
    }
    Ok(())
}

/// Moves the written entries of one LMR ring to `received`, clearing each slot for its
/// next use; returns the new consumer index to write to the ring's LMR_CONS, if any.
pub(crate) fn reap_lmr_ring<D: Device>(
    dev: &D,
    lmr: &DmaBuffer,
    cursor: &mut LmrCursor,
    received: &mut VecDeque<LmrEntry>,
) -> Result<Option<u32>, DriverError> {
    let mut cons = None;
    loop {
        let off = cursor.slot() as usize * LmrEntry::BYTES;
        let w0 = dev.mem_read_u64(lmr, off)?;
        if status_decode((w0 >> 16) as u16).is_none() {
            break;
        }
        let mut rest = [0u8; 24];
        dev.mem_read(lmr, off + 8, &mut rest)?;
        let mut w = [w0, 0, 0, 0];
        for (i, chunk) in rest.chunks_exact(8).enumerate() {
            w[i + 1] = u64::from_le_bytes(chunk.try_into().expect("8-byte chunk"));
        }
        received.push_back(LmrEntry::from_words(&w));
        dev.mem_write(lmr, off, &[0u8; LmrEntry::BYTES])?;
        cons = Some(cursor.advance());
    }
    Ok(cons)
}

/// Byte offset of a descriptor's word 3 (msg_id, status) within its slot.
const DESC_W3: usize = 24;

/// The driver's checks of a put, in the order they are reported.
fn check_put(
    dest_range: &RangeInclusive<u16>,
    dest: u16,
    flags: u16,
    buf_len: usize,
    local_offset: usize,
    remote_addr: u64,
    len: usize,
) -> Result<(), DriverError> {
    if len == 0 {
        return Err(DriverError::ZeroLength);
    }
    if len as u64 > MSG_LEN_MAX {
        return Err(DriverError::TooLong { len });
    }
    if flags & desc_flag::BCAST != 0 {
        let (lo, hi) = (dest & 0xFF, dest >> 8);
        if lo > hi || !dest_range.contains(&lo) || !dest_range.contains(&hi) {
            return Err(DriverError::BcastRange {
                lo,
                hi,
                range_lo: *dest_range.start(),
                range_hi: *dest_range.end(),
            });
        }
    } else if !dest_range.contains(&dest) {
        return Err(DriverError::DestOutOfRange {
            dest,
            lo: *dest_range.start(),
            hi: *dest_range.end(),
        });
    }
    match local_offset.checked_add(len) {
        Some(end) if end <= buf_len => {}
        _ => {
            return Err(DriverError::LocalRange {
                offset: local_offset,
                len,
                buf_len,
            })
        }
    }
    // Descriptor word 1 is remote_addr[47:0] | dctx << 48: the card refuses (ADDR_RANGE)
    // what would not fit, and the driver says so first.
    if remote_addr
        .checked_add(len as u64)
        .is_none_or(|end| end > REMOTE_ADDR_END)
    {
        return Err(DriverError::RemoteRange {
            addr: remote_addr,
            len,
        });
    }
    Ok(())
}

impl<D: Device> Card<D> {
    /// Checks that `dev` is a FastHSL card this driver understands (ID and VERSION
    /// registers). Changes nothing on the card.
    pub fn open(dev: D) -> Result<Self, DriverError> {
        let id = dev.bar_read32(nic::ID)?;
        if id != ID_MAGIC {
            return Err(DriverError::NotFastHsl {
                name: dev.name(),
                found: id,
            });
        }
        let version = dev.bar_read32(nic::VERSION)?;
        if version >> 16 != CONTRACT_VERSION >> 16 {
            return Err(DriverError::VersionMismatch {
                name: dev.name(),
                found: version,
            });
        }
        Ok(Card {
            dev,
            version,
            epoch: 0,
            active: None,
        })
    }

    /// The backend, for DMA buffer management and raw register access.
    pub fn device(&self) -> &D {
        &self.dev
    }

    /// The VERSION register read at open.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The active configuration, if [`Card::configure`] succeeded.
    pub fn config(&self) -> Option<&CardConfig> {
        self.active.as_ref().map(|a| &a.cfg)
    }

    fn active(&self) -> Result<&Active, DriverError> {
        self.active.as_ref().ok_or(DriverError::NotConfigured)
    }

    fn active_mut(&mut self) -> Result<&mut Active, DriverError> {
        self.active.as_mut().ok_or(DriverError::NotConfigured)
    }

    /// Disables the card and releases the rings and receive region. Outstanding
    /// descriptors get a bounded time to finish first so the card does not read freed
    /// memory. Incoming packets are dropped until the next [`Card::configure`].
    pub fn reset(&mut self) -> Result<(), DriverError> {
        if self
            .active
            .as_ref()
            .is_some_and(|a| a.ring.outstanding() > 0)
        {
            // Best effort: a card that never completes must still be resettable.
            let _ = self.wait_until(RESET_DRAIN_NS, "outstanding descriptors", |c| {
                c.reap()?;
                Ok((c.active()?.ring.outstanding() == 0).then_some(()))
            });
        }
        self.dev.bar_write32(nic::CTRL, 0)?;
        // A read flushes the posted write: the card is disabled once it returns.
        self.dev.bar_read32(nic::CTRL)?;
        if let Some(a) = self.active.take() {
            self.dev.dma_free(a.lme)?;
            self.dev.dma_free(a.lmr)?;
            self.dev.dma_free(a.rx)?;
        }
        Ok(())
    }

    /// Resets the card and brings it up with `cfg`: rings and receive region in fresh
    /// DMA memory, every register written and read back, errors cleared, then enabled.
    pub fn configure(&mut self, cfg: CardConfig) -> Result<(), DriverError> {
        cfg.validate()?;
        self.reset()?;
        let d = &self.dev;
        let lme = d.dma_alloc(cfg.lme_entries as usize * LmeDesc::BYTES)?;
        let lmr = d.dma_alloc(cfg.lmr_entries as usize * LmrEntry::BYTES)?;
        let rx = d.dma_alloc(cfg.rx_window_bytes)?;
        let dest_range =
            u32::from(*cfg.dest_range.start()) | u32::from(*cfg.dest_range.end()) << 16;
        let rx_size = cfg.rx_window_bytes as u64;
        // A card before contexts has no per-context interrupt bits to enable.
        let int_mask = if self.version < CONTEXTS_VERSION {
            cfg.int_mask & (int::LME_DONE | int::LMR_NEW | int::ERROR)
        } else {
            cfg.int_mask
        };
        // Errors left by earlier users would make the checks below meaningless.
        d.bar_write32(nic::ERR_STATUS, err::ALL)?;
        d.bar_write32(nic::INT_STATUS, int::ALL)?;
        let writes: [(&'static str, u32, u32); 16] = [
            ("NODE_ID", nic::NODE_ID, cfg.node_id.into()),
            ("MTU", nic::MTU, cfg.mtu),
            ("DEST_RANGE", nic::DEST_RANGE, dest_range),
            ("LME_BASE_LO", nic::LME_BASE_LO, lo32(lme.iova())),
            ("LME_BASE_HI", nic::LME_BASE_HI, hi32(lme.iova())),
            ("LME_SIZE", nic::LME_SIZE, cfg.lme_entries),
            ("LMR_BASE_LO", nic::LMR_BASE_LO, lo32(lmr.iova())),
            ("LMR_BASE_HI", nic::LMR_BASE_HI, hi32(lmr.iova())),
            ("LMR_SIZE", nic::LMR_SIZE, cfg.lmr_entries),
            ("RXWIN_BASE_LO", nic::RXWIN_BASE_LO, lo32(rx.iova())),
            ("RXWIN_BASE_HI", nic::RXWIN_BASE_HI, hi32(rx.iova())),
            ("RXWIN_SIZE_LO", nic::RXWIN_SIZE_LO, lo32(rx_size)),
            ("RXWIN_SIZE_HI", nic::RXWIN_SIZE_HI, hi32(rx_size)),
            ("INT_MASK", nic::INT_MASK, int_mask),
            // Writing the sizes reset the indexes; read back below like the rest.
            ("LME_PROD", nic::LME_PROD, 0),
            ("LMR_CONS", nic::LMR_CONS, 0),
        ];
        let result = (|| {
            for &(_, reg, v) in &writes {
                d.bar_write32(reg, v)?;
            }
            // An earlier user's windows must not survive: open (RXWIN only) until the
            // first register_window.
            self.clear_windows()?;
            // An earlier user's coalescing would delay this one's interrupts.
            if self.version >= COALESCING_VERSION {
                for src in IntSource::ALL {
                    d.bar_write32(src.coal_reg(), 0)?;
                }
            }
            let err_status = d.bar_read32(nic::ERR_STATUS)?;
            for &(name, reg, v) in &writes {
                let read = d.bar_read32(reg)?;
                if read != v {
                    return Err(DriverError::ConfigRejected {
                        register: name,
                        wrote: v.into(),
                        read: read.into(),
                        err_status,
                    });
                }
            }
            if err_status != 0 {
                return Err(DriverError::ConfigErrors { err_status });
            }
            d.bar_write32(nic::CTRL, ctrl::ENABLE)?;
            Ok(())
        })();
        if let Err(e) = result {
            // Leave nothing half-configured behind; the first error is the useful one.
            let _ = d.bar_write32(nic::CTRL, 0);
            let _ = d.dma_free(lme);
            let _ = d.dma_free(lmr);
            let _ = d.dma_free(rx);
            return Err(e);
        }
        self.epoch = self.epoch.wrapping_add(1);
        self.active = Some(Active {
            ring: LmeRing::new(cfg.lme_entries),
            lmr_cursor: LmrCursor::new(cfg.lmr_entries),
            cfg,
            lme,
            lmr,
            rx,
            next_msg_id: 0,
            done: VecDeque::new(),
            received: VecDeque::new(),
            windows: WindowTable::new(),
        });
        Ok(())
    }

    /// The receive region: remote writes to this node must target
    /// `[rx.iova(), rx.iova() + rx.len())`.
    pub fn rx_buffer(&self) -> Result<&DmaBuffer, DriverError> {
        Ok(&self.active()?.rx)
    }

    /// Bus address of the receive region, for peers' `remote_addr`.
    pub fn rx_iova(&self) -> Result<u64, DriverError> {
        Ok(self.active()?.rx.iova())
    }

    /// Copies from the receive region at `offset`.
    pub fn read_rx(&self, offset: usize, out: &mut [u8]) -> Result<(), DriverError> {
        let a = self.active()?;
        Ok(self.dev.mem_read(&a.rx, offset, out)?)
    }

    /// Writes into the receive region at `offset` (e.g. a pattern that shows overruns).
    pub fn write_rx(&self, offset: usize, data: &[u8]) -> Result<(), DriverError> {
        let a = self.active()?;
        Ok(self.dev.mem_write(&a.rx, offset, data)?)
    }

    /// Programs the routing tables of the routers this node manages (the router page of
    /// its BAR) from `topology`, then reads every entry back. Returns the routers
    /// programmed (empty when another node's card carries this node's router).
    /// Deterministic routing: [`Self::program_routes_with`] chooses.
    pub fn program_routes(&self, topology: &Topology) -> Result<Vec<usize>, DriverError> {
        self.program_routes_with(topology, Routing::Deterministic)
    }

    /// [`Self::program_routes`] with the tables of `routing`: with [`Routing::Adaptive`]
    /// the entries also carry their alternative outputs (`route_ctrl.amask`), which the
    /// routers use for packets of messages sent with DESC_FLAG_ADAPTIVE; other messages
    /// keep their one route. The broadcast tables are the same either way.
    pub fn program_routes_with(
        &self,
        topology: &Topology,
        routing: Routing,
    ) -> Result<Vec<usize>, DriverError> {
        let node = self.active()?.cfg.node_id;
        if usize::from(node) >= topology.nodes() {
            return Err(DriverError::NodeNotInTopology {
                node,
                nodes: topology.nodes(),
            });
        }
        let routers = topology.managed_by(node.into());
        if routers.len() > 1 {
            return Err(DriverError::TooManyRouters { node, routers });
        }
        let tables = topology.tables(routing)?;
        let d = &self.dev;
        for &r in &routers {
            let id = d.bar_read32(ROUTER_CSR_BASE as u32 + rt::RT_ID)?;
            if id != ID_MAGIC {
                return Err(DriverError::NoRouter { found: id });
            }
            let want = route_registers(&tables[r].inputs);
            for &(input, entry, bounds, ctrl) in &want {
                let idx = (input * ROUTE_ENTRIES as usize + entry) as u32;
                let b = ROUTER_CSR_BASE as u32 + rt::RT_BOUNDS + idx * rt::RT_BOUNDS_STRIDE;
                let c = ROUTER_CSR_BASE as u32 + rt::RT_CTRL + idx * rt::RT_CTRL_STRIDE;
                // Invalidate before changing the bounds so no packet matches a half-written entry.
                d.bar_write32(c, 0)?;
                d.bar_write32(b, bounds)?;
                d.bar_write32(c, ctrl)?;
            }
            for &(input, entry, bounds, ctrl) in &want {
                let idx = (input * ROUTE_ENTRIES as usize + entry) as u32;
                let b = ROUTER_CSR_BASE as u32 + rt::RT_BOUNDS + idx * rt::RT_BOUNDS_STRIDE;
                let c = ROUTER_CSR_BASE as u32 + rt::RT_CTRL + idx * rt::RT_CTRL_STRIDE;
                for (register, reg, wrote) in [("RT_BOUNDS", b, bounds), ("RT_CTRL", c, ctrl)] {
                    let read = d.bar_read32(reg)?;
                    if read != wrote {
                        return Err(DriverError::RouteVerify {
                            router: r,
                            input,
                            entry,
                            register,
                            wrote,
                            read,
                        });
                    }
                }
            }
        }
        // Broadcast tables where the topology has deadlock-free trees; elsewhere every
        // mask is 0, so a broadcast that reaches a router is dropped and counted.
        let bc = topology.bcast_tables().ok();
        for &r in &routers {
            for input in 0..ROUTER_PORTS as usize {
                let row = bc
                    .as_ref()
                    .map_or([None; ROUTER_PORTS as usize], |b| b[r].inputs[input]);
                let mask_reg =
                    ROUTER_CSR_BASE as u32 + rt::RT_BC_MASK + input as u32 * rt::RT_BC_MASK_STRIDE;
                // Disable before changing the intervals, as for the unicast entries.
                d.bar_write32(mask_reg, 0)?;
                let mut mask = 0u32;
                for (o, e) in row.iter().enumerate() {
                    let reg = ROUTER_CSR_BASE as u32
                        + rt::RT_BC_BOUNDS
                        + (input * ROUTER_PORTS as usize + o) as u32 * rt::RT_BC_BOUNDS_STRIDE;
                    let (lo, hi) = e.unwrap_or((0, 0));
                    let bounds = u32::from(lo) | (u32::from(hi) << 16);
                    d.bar_write32(reg, bounds)?;
                    let read = d.bar_read32(reg)?;
                    if read != bounds {
                        return Err(DriverError::RouteVerify {
                            router: r,
                            input,
                            entry: o,
                            register: "RT_BC_BOUNDS",
                            wrote: bounds,
                            read,
                        });
                    }
                    if e.is_some() {
                        mask |= 1 << o;
                    }
                }
                d.bar_write32(mask_reg, mask)?;
                let read = d.bar_read32(mask_reg)?;
                if read != mask {
                    return Err(DriverError::RouteVerify {
                        router: r,
                        input,
                        entry: 0,
                        register: "RT_BC_MASK",
                        wrote: mask,
                        read,
                    });
                }
            }
        }
        Ok(routers)
    }

    /// Reads the router page of this card's BAR: identity, drop counters, valid entries.
    pub fn router_state(&self) -> Result<RouterState, DriverError> {
        let d = &self.dev;
        let base = ROUTER_CSR_BASE as u32;
        let mut s = RouterState {
            id: d.bar_read32(base + rt::RT_ID)?,
            ports: d.bar_read32(base + rt::RT_PORTS)?,
            drop: [0; ROUTER_PORTS as usize],
            eep: [0; ROUTER_PORTS as usize],
            tmo: [0; ROUTER_PORTS as usize],
            tables: Vec::new(),
        };
        for p in 0..ROUTER_PORTS as u32 {
            s.drop[p as usize] = d.bar_read32(base + rt::RT_DROP + p * rt::RT_DROP_STRIDE)?;
            s.eep[p as usize] = d.bar_read32(base + rt::RT_EEP + p * rt::RT_EEP_STRIDE)?;
            s.tmo[p as usize] = d.bar_read32(base + rt::RT_TMO + p * rt::RT_TMO_STRIDE)?;
            let mut table = Vec::new();
            for e in 0..ROUTE_ENTRIES as u32 {
                let idx = p * ROUTE_ENTRIES as u32 + e;
                let ctrl = RouteCtrl::from_words(&[
                    d.bar_read32(base + rt::RT_CTRL + idx * rt::RT_CTRL_STRIDE)?
                ]);
                if ctrl.valid {
                    let bounds = RouteBounds::from_words(&[
                        d.bar_read32(base + rt::RT_BOUNDS + idx * rt::RT_BOUNDS_STRIDE)?
                    ]);
                    table.push((e as usize, bounds, ctrl.port));
                }
            }
            s.tables.push(table);
        }
        Ok(s)
    }

    /// Posts a remote write: `len` bytes at `buf[local_offset..]` go to `remote_addr` on
    /// node `dest`. Checks everything the driver can (length, destination, local range,
    /// ring space) before touching the ring; the card's own checks show up in the
    /// [`Completion`]. Returns at once; the message is on its way when the doorbell is rung.
    /// Takes the fastest path ([`PutPath::Auto`]); the buffer must stay untouched until
    /// the completion whatever the path (a rejected push is served from the ring copy).
    pub fn put(
        &mut self,
        dest: u16,
        buf: &DmaBuffer,
        local_offset: usize,
        remote_addr: u64,
        len: usize,
        flags: u16,
    ) -> Result<PutTicket, DriverError> {
        self.put_via(
            PutPath::Auto,
            dest,
            buf,
            local_offset,
            remote_addr,
            len,
            flags,
        )
    }

    /// [`Card::put`] along a chosen path. A push while descriptors are outstanding may
    /// find the push path busy: the card then serves it from the ring (counted in
    /// CNT_PUSH_REJECT). `flags` bits above the low 8 are the driver's (INLINE is set here).
    #[allow(clippy::too_many_arguments)]
    pub fn put_via(
        &mut self,
        path: PutPath,
        dest: u16,
        buf: &DmaBuffer,
        local_offset: usize,
        remote_addr: u64,
        len: usize,
        flags: u16,
    ) -> Result<PutTicket, DriverError> {
        self.put_keyed(path, dest, buf, local_offset, remote_addr, 0, len, flags)
    }

    /// [`Card::put_via`] into a receive window of the destination: `key` is the window's
    /// [`RxWindow::key`] there (0 for a receiver that enforces no windows). A key the
    /// receiver refuses is not an error here: the descriptor completes, the receiver drops
    /// the packets, counts them and logs the refusal ([`Card::take_window_reject`]).
    #[allow(clippy::too_many_arguments)]
    pub fn put_keyed(
        &mut self,
        path: PutPath,
        dest: u16,
        buf: &DmaBuffer,
        local_offset: usize,
        remote_addr: u64,
        key: u16,
        len: usize,
        flags: u16,
    ) -> Result<PutTicket, DriverError> {
        if self.active()?.ring.outstanding() > 0 {
            // Completions free ring slots, and an empty ring means a free push path.
            self.reap()?;
        }
        let a = self.active()?;
        check_put(
            &a.cfg.dest_range,
            dest,
            flags,
            buf.len(),
            local_offset,
            remote_addr,
            len,
        )?;
        // Contract 1.0 cards have no push window and no inline payloads.
        let fast = self.version >= FAST_PATHS_VERSION;
        let path = match path {
            PutPath::Push | PutPath::InlinePush if !fast => {
                return Err(DriverError::PathUnsupported {
                    path,
                    version: self.version,
                })
            }
            PutPath::Auto if !fast || a.ring.outstanding() > 0 => PutPath::Ring,
            PutPath::Auto if len <= INLINE_MAX as usize => PutPath::InlinePush,
            PutPath::Auto => PutPath::Push,
            PutPath::InlinePush if len > INLINE_MAX as usize => {
                return Err(DriverError::InlineTooLong {
                    len,
                    path,
                    max: INLINE_MAX as usize,
                })
            }
            p => p,
        };
        let msg_id = a.next_msg_id;
        let flags = flags & !desc_flag::INLINE;
        let desc = LmeDesc {
            local_addr: buf.iova() + local_offset as u64,
            remote_addr,
            dctx: 0,
            len: len as u32,
            dest,
            flags,
            msg_id,
            status: 0,
            key,
        };
        // Payload bytes 0..7 ride in local_addr (ring or push), the rest in PUSH_DATA.
        let inline = if (fast && len <= INLINE_RING_MAX as usize) || path == PutPath::InlinePush {
            let mut b = vec![0u8; len];
            self.dev.mem_read(buf, local_offset, &mut b)?;
            Some(b)
        } else {
            None
        };
        let with_word0 = |d: LmeDesc, b: &[u8]| {
            let mut w0 = [0u8; 8];
            let n = b.len().min(8);
            w0[..n].copy_from_slice(&b[..n]);
            LmeDesc {
                local_addr: u64::from_le_bytes(w0),
                flags: d.flags | desc_flag::INLINE,
                ..d
            }
        };
        // The ring copy: inline when it fits the descriptor, else the buffer address.
        let ring_desc = match &inline {
            Some(b) if len <= INLINE_RING_MAX as usize => with_word0(desc, b),
            _ => desc,
        };
        let pushed = match (path, &inline) {
            (PutPath::InlinePush, Some(b)) => Some((with_word0(desc, b), &b[b.len().min(8)..])),
            (PutPath::Push, _) => Some((ring_desc, &[][..])),
            _ => None,
        };
        let t = self.post_desc(ring_desc, pushed, path)?;
        let a = self.active_mut()?;
        a.next_msg_id = a.next_msg_id.wrapping_add(1);
        Ok(t)
    }

    /// Posts `desc` as it is, bypassing the driver's checks of length, destination and
    /// addresses, so tests can exercise the card's own rejection of bad descriptors.
    /// Only the ring is protected: a full ring is still refused, and the status word is
    /// forced to 0 (a non-zero status would look already completed to the driver).
    pub fn post_unchecked(&mut self, desc: LmeDesc) -> Result<PutTicket, DriverError> {
        self.post_desc(desc, None, PutPath::Ring)
    }

    /// Like [`Card::post_unchecked`], but through the push window: `desc` goes to the
    /// ring slot and `pushed` (with `inline` as PUSH_DATA, bytes 8.. of an inline payload)
    /// through the window. Lets tests feed the card's push checks bad descriptors.
    pub fn push_unchecked(
        &mut self,
        desc: LmeDesc,
        pushed: LmeDesc,
        inline: &[u8],
    ) -> Result<PutTicket, DriverError> {
        let path = if pushed.flags & desc_flag::INLINE != 0 {
            PutPath::InlinePush
        } else {
            PutPath::Push
        };
        self.post_desc(desc, Some((pushed, inline)), path)
    }

    /// Writes `desc` into the next ring slot and rings the doorbell: LME_PROD, or the push
    /// window's trigger after the window (PUSH_DATA first, then PUSH_DESC[0..6]).
    fn post_desc(
        &mut self,
        desc: LmeDesc,
        pushed: Option<(LmeDesc, &[u8])>,
        path: PutPath,
    ) -> Result<PutTicket, DriverError> {
        if self.active()?.ring.free() == 0 {
            self.reap()?;
        }
        let epoch = self.epoch;
        let a = self.active.as_mut().ok_or(DriverError::NotConfigured)?;
        let Some((slot, seq, doorbell)) = a.ring.push() else {
            return Err(DriverError::RingFull {
                entries: a.ring.size(),
                outstanding: a.ring.outstanding(),
            });
        };
        let desc = LmeDesc { status: 0, ..desc };
        self.dev
            .mem_write(&a.lme, slot as usize * LmeDesc::BYTES, &desc.to_bytes())?;
        // The backend orders the descriptor write before the doorbell.
        match pushed {
            None => self.dev.bar_write32(nic::LME_PROD, doorbell)?,
            Some((p, data)) => {
                for (i, chunk) in data.chunks(4).enumerate() {
                    let mut v = [0u8; 4];
                    v[..chunk.len()].copy_from_slice(chunk);
                    self.dev.bar_write32(
                        nic::PUSH_DATA + i as u32 * nic::PUSH_DATA_STRIDE,
                        u32::from_le_bytes(v),
                    )?;
                }
                let w = LmeDesc { status: 0, ..p }.to_words();
                for h in 0..7u32 {
                    let word = w[(h / 2) as usize];
                    let half = if h % 2 == 0 { lo32(word) } else { hi32(word) };
                    self.dev
                        .bar_write32(nic::PUSH_DESC + h * nic::PUSH_DESC_STRIDE, half)?;
                }
                // The trigger sits where word 3's status and key are: bits 31:16 = key.
                self.dev.bar_write32(
                    nic::PUSH_DESC + 7 * nic::PUSH_DESC_STRIDE,
                    doorbell | u32::from(p.key) << 16,
                )?;
            }
        }
        Ok(PutTicket {
            seq,
            msg_id: desc.msg_id,
            slot,
            path,
            epoch,
        })
    }

    /// Descriptors posted and not yet completed (as far as the driver has looked).
    pub fn outstanding(&self) -> usize {
        self.active.as_ref().map_or(0, |a| a.ring.outstanding())
    }

    /// Moves finished descriptors from the ring to the completion queue, in ring order.
    /// Reads descriptor status words in host memory only.
    fn reap(&mut self) -> Result<(), DriverError> {
        let a = self.active.as_mut().ok_or(DriverError::NotConfigured)?;
        reap_lme(&self.dev, &a.lme, &mut a.ring, &mut a.done)
    }

    /// Completions since the last call, in posting order; frees their ring slots.
    /// Reads host memory only (no MMIO).
    pub fn poll_completions(&mut self) -> Result<Vec<Completion>, DriverError> {
        self.reap()?;
        Ok(self.active_mut()?.done.drain(..).collect())
    }

    /// Waits until the descriptor of `ticket` completes and returns its completion
    /// (other completions met on the way stay queued for [`Card::poll_completions`]).
    /// `timeout_ns` is device time: modeled time on the simulator.
    pub fn wait_completion(
        &mut self,
        ticket: &PutTicket,
        timeout_ns: u64,
    ) -> Result<Completion, DriverError> {
        {
            let a = self.active()?;
            if ticket.epoch != self.epoch || !a.ring.was_posted(ticket.seq) {
                return Err(DriverError::StaleTicket { seq: ticket.seq });
            }
        }
        self.wait_until(timeout_ns, "a descriptor completion", |c| {
            c.reap()?;
            let a = c.active_mut()?;
            if let Some(i) = a.done.iter().position(|x| x.seq == ticket.seq) {
                return Ok(a.done.remove(i));
            }
            if a.ring.is_reaped(ticket.seq) {
                return Err(DriverError::AlreadyReaped { seq: ticket.seq });
            }
            Ok(None)
        })
    }

    /// Consumes finished LMR entries: each is read (word 0 first: the card writes it
    /// last), zeroed so the slot does not look finished on the next lap, and the new
    /// LMR_CONS is written once per batch. Host memory polling; MMIO only when entries
    /// were found.
    fn reap_lmr(&mut self) -> Result<(), DriverError> {
        let a = self.active.as_mut().ok_or(DriverError::NotConfigured)?;
        if let Some(c) = reap_lmr_ring(&self.dev, &a.lmr, &mut a.lmr_cursor, &mut a.received)? {
            self.dev.bar_write32(nic::LMR_CONS, c)?;
        }
        Ok(())
    }

    /// Messages received since the last call (LMR entries, in arrival order).
    pub fn poll_lmr(&mut self) -> Result<Vec<LmrEntry>, DriverError> {
        self.reap_lmr()?;
        Ok(self.active_mut()?.received.drain(..).collect())
    }

    /// Waits for the next received message. `timeout_ns` is device time.
    pub fn wait_lmr(&mut self, timeout_ns: u64) -> Result<LmrEntry, DriverError> {
        self.wait_until(timeout_ns, "an LMR entry", |c| {
            if c.active()?.received.is_empty() {
                c.reap_lmr()?;
            }
            Ok(c.active_mut()?.received.pop_front())
        })
    }

    /// Sleeps until the card interrupts (see [`CardConfig::int_mask`]) or `timeout_ns`
    /// passes; returns the INT_STATUS bits that were set (and clears them), or `None`
    /// on timeout.
    pub fn wait_interrupt(&self, timeout_ns: u64) -> Result<Option<u32>, DriverError> {
        if !self.dev.wait_irq(timeout_ns)? {
            return Ok(None);
        }
        let st = self.dev.bar_read32(nic::INT_STATUS)?;
        self.dev.bar_write32(nic::INT_STATUS, st)?;
        // Flush the posted clear: a level interrupt still high when the caller waits
        // again would look like a new one.
        self.dev.bar_read32(nic::INT_STATUS)?;
        Ok(Some(st))
    }

    /// Sets the interrupt mask (INT_MASK, [`contract::int`] bits) of the configured card;
    /// [`Card::configure`] sets it from [`CardConfig::int_mask`]. Masked sources keep
    /// setting INT_STATUS (and coalescing), they only stop raising the line: unmasking a
    /// source that has signalled meanwhile interrupts at once.
    pub fn set_int_mask(&mut self, mask: u32) -> Result<(), DriverError> {
        if mask & !int::ALL != 0 {
            return Err(DriverError::BadConfig {
                field: "int_mask",
                reason: format!("{mask:#x} has bits outside {:#x}", int::ALL),
            });
        }
        self.active()?;
        self.dev.bar_write32(nic::INT_MASK, mask)?;
        self.active_mut()?.cfg.int_mask = mask;
        Ok(())
    }

    /// Coalesces `src`'s interrupts: its pending events are signalled once `coal.count`
    /// of them are pending or `coal.cycles` core cycles after the first of them, whichever
    /// comes first; 0 in either signals at once (the default after [`Card::configure`]).
    /// The time bound always applies (at most 65535 cycles), so no event waits forever.
    /// The setting applies to events already pending; [`Card::configure`] resets it.
    pub fn set_coalescing(&self, src: IntSource, coal: IntCoal) -> Result<(), DriverError> {
        self.has_feature(COALESCING_VERSION, true, |version| {
            DriverError::CoalescingUnsupported { version }
        })?;
        self.dev.bar_write32(src.coal_reg(), coal.to_words()[0])?;
        Ok(())
    }

    /// Whether this card's receiver answers the messages it gets with ACK/NACK packets
    /// (REL_CTRL.ACK_OFF clear: the reset state). Off gives the behaviour before contract
    /// 1.5, for comparison (docs/RELIABILITY.md). Cards before 1.5 never answer.
    pub fn set_acknowledge(&self, on: bool) -> Result<(), DriverError> {
        // ACK_OFF is the inverted switch: set means "no answers".
        self.set_rel_ctrl_bit(
            contract::rel_ctrl::ACK_OFF,
            !on,
            on,
            ACK_VERSION,
            |version| DriverError::AckUnsupported { version },
        )
    }

    /// Whether REL_CTRL has `bit` set (false on cards before contract 1.5, which have no
    /// REL_CTRL).
    fn rel_ctrl_has(&self, bit: u32) -> Result<bool, DriverError> {
        if self.version < ACK_VERSION {
            return Ok(false);
        }
        Ok(self.dev.bar_read32(nic::REL_CTRL)? & bit != 0)
    }

    /// Whether the card implements a feature of contract version `since`. On an older
    /// card, asking for the feature (`wanted`) is the error `unsupported` makes of the
    /// card's version; not asking is fine, and the feature is simply absent (`false`).
    pub(crate) fn has_feature(
        &self,
        since: u32,
        wanted: bool,
        unsupported: impl FnOnce(u32) -> DriverError,
    ) -> Result<bool, DriverError> {
        match (self.version >= since, wanted) {
            (true, _) => Ok(true),
            (false, true) => Err(unsupported(self.version)),
            (false, false) => Ok(false),
        }
    }

    /// Sets or clears one REL_CTRL bit, keeping the others. On a card older than
    /// `since` the bit does not exist: asking for the feature (`wanted`) is an error,
    /// asking for its absence is already true.
    fn set_rel_ctrl_bit(
        &self,
        bit: u32,
        set: bool,
        wanted: bool,
        since: u32,
        unsupported: impl FnOnce(u32) -> DriverError,
    ) -> Result<(), DriverError> {
        if !self.has_feature(since, wanted, unsupported)? {
            return Ok(());
        }
        let v = self.dev.bar_read32(nic::REL_CTRL)? & !bit;
        self.dev
            .bar_write32(nic::REL_CTRL, if set { v | bit } else { v })?;
        Ok(())
    }

    /// Whether this card's unicast descriptors complete only when their receiver answers
    /// (REL_CTRL.SENDER_WAIT, contract 1.6): OK on its ACK, [`DescErr::Rejected`] on its
    /// NACK_REJECT, [`DescErr::RetryExhausted`] on a NACK or after the answer timeout
    /// without an answer (a receiver with acknowledgement off never answers). Off (the
    /// reset state): a descriptor completes when its packets have left. Broadcasts never
    /// wait. Retransmission: [`Card::set_retries`] (docs/RELIABILITY.md). Everything
    /// reliable delivery needs in one call: [`Card::set_reliable`].
    pub fn set_sender_wait(&self, on: bool) -> Result<(), DriverError> {
        let bit = contract::rel_ctrl::SENDER_WAIT;
        if !on && self.rel_ctrl_has(contract::rel_ctrl::DEDUP)? {
            return Err(DriverError::DedupNeedsSenderWait);
        }
        self.set_rel_ctrl_bit(bit, on, on, SENDER_WAIT_VERSION, |version| {
            DriverError::SenderWaitUnsupported { version }
        })
    }

    /// Whether this card's receiver drops duplicate packets by (source, seq)
    /// (REL_CTRL.DEDUP, contract 1.7): a copy of a message already complete here (a
    /// retransmission whose ACK was lost) writes nothing, is counted in
    /// [`Counters::rx_dup`], and its last packet is acknowledged again. Needs senders
    /// that number their messages (contract 1.7 senders): one that numbers every message
    /// 0 would have all but its first message dropped. A source is remembered
    /// REL_TIMEOUT * (REL_RETRIES + 2) ticks after its last packet, from this card's own
    /// settings, so configure every card alike. Needs SENDER_WAIT on first
    /// ([`DriverError::DedupNeedsSenderWait`]). Off (reset): no duplicate check.
    pub fn set_dedup(&self, on: bool) -> Result<(), DriverError> {
        if on
            && self.version >= DEDUP_VERSION
            && !self.rel_ctrl_has(contract::rel_ctrl::SENDER_WAIT)?
        {
            return Err(DriverError::DedupNeedsSenderWait);
        }
        self.set_rel_ctrl_bit(
            contract::rel_ctrl::DEDUP,
            on,
            on,
            DEDUP_VERSION,
            |version| DriverError::DedupUnsupported { version },
        )
    }

    /// Whether this card's receiver NACKs a message as soon as its last packet arrives
    /// with bytes missing (REL_CTRL.EARLY_NACK, contract 1.8), instead of only when its
    /// tracker gives the message up: a lost packet then costs its sender a round trip
    /// instead of the answer timeout. Only for unicast messages without
    /// [`contract::desc_flag::ADAPTIVE`] (a deterministic route keeps a message's
    /// packets in order; an adaptive one's may still be on their way). A lost last
    /// packet or one-packet message still waits for the timeout. Off (reset).
    pub fn set_early_nack(&self, on: bool) -> Result<(), DriverError> {
        self.set_rel_ctrl_bit(
            contract::rel_ctrl::EARLY_NACK,
            on,
            on,
            EARLY_NACK_VERSION,
            |version| DriverError::EarlyNackUnsupported { version },
        )
    }

    /// The answer timeout of [`Card::set_sender_wait`], in ticks of 2^REL_TICK_LOG2 core
    /// cycles (REL_TIMEOUT; 0 acts as 1; reset 256, ~262 µs at 250 MHz).
    pub fn set_answer_timeout(&self, ticks: u16) -> Result<(), DriverError> {
        self.has_feature(SENDER_WAIT_VERSION, true, |version| {
            DriverError::SenderWaitUnsupported { version }
        })?;
        self.dev.bar_write32(nic::REL_TIMEOUT, u32::from(ticks))?;
        Ok(())
    }

    /// Retransmissions allowed per waiting message (REL_RETRIES, contract 1.7; 0..=15,
    /// reset 0): with [`Card::set_sender_wait`], a message that gets a NACK or no answer
    /// within the answer timeout is re-read from host memory (its descriptor from its
    /// ring slot, its payload from its buffer) and sent again, up to `retries` times,
    /// before it completes [`DescErr::RetryExhausted`]. The buffer and the ring slot must
    /// stay unchanged until the completion, as for any put. All cards of a cluster should
    /// use the same value: a receiver sizes its duplicate memory from its own setting
    /// (docs/RELIABILITY.md).
    pub fn set_retries(&self, retries: u32) -> Result<(), DriverError> {
        if !self.retries_allowed(retries)? {
            return Ok(());
        }
        self.dev.bar_write32(nic::REL_RETRIES, retries)?;
        Ok(())
    }

    /// Whether REL_RETRIES exists to be written (false on cards before contract 1.7,
    /// where only 0 is accepted); `retries` beyond 15 or nonzero there are refused.
    pub(crate) fn retries_allowed(&self, retries: u32) -> Result<bool, DriverError> {
        let has = self.has_feature(RETX_VERSION, retries != 0, |version| {
            DriverError::RetriesUnsupported { version }
        })?;
        if retries > 15 {
            return Err(DriverError::RetriesTooMany { retries });
        }
        Ok(has)
    }

    /// REL_RETRIES as the card holds it (an MMIO read; 0 on cards before contract 1.7).
    pub fn retries(&self) -> Result<u32, DriverError> {
        if self.version < RETX_VERSION {
            return Ok(0);
        }
        Ok(self.dev.bar_read32(nic::REL_RETRIES)? & 0xF)
    }

    /// Fairness between contexts (TX_QUANTUM, contract 1.8): a message longer than
    /// 2^`log2` bytes is sent in segments of that size, and between two segments the card
    /// sends one segment or one shorter message of every other context with work, so a
    /// short message waits for about one segment per busy context, not for a whole long
    /// message (docs/MESSAGING.md, Contexts). `log2` 6..=24 (64 B .. 16 MiB); 0 sends
    /// whole messages. Reset [`contract::TX_QUANTUM_RESET`] (4 KiB). A bad value is
    /// refused here, not sent to the card; on a card before 1.8 only 0 is accepted.
    pub fn set_tx_quantum(&self, log2: u32) -> Result<(), DriverError> {
        if log2 != 0 && !(6..=24).contains(&log2) {
            return Err(DriverError::TxQuantumInvalid { log2 });
        }
        if !self.has_feature(TX_QUANTUM_VERSION, log2 != 0, |version| {
            DriverError::TxQuantumUnsupported { version }
        })? {
            return Ok(());
        }
        self.dev.bar_write32(nic::TX_QUANTUM, log2)?;
        Ok(())
    }

    /// TX_QUANTUM as the card holds it (an MMIO read; 0, whole messages, on cards before
    /// contract 1.8).
    pub fn tx_quantum(&self) -> Result<u32, DriverError> {
        if self.version < TX_QUANTUM_VERSION {
            return Ok(0);
        }
        Ok(self.dev.bar_read32(nic::TX_QUANTUM)? & 0x1F)
    }

    /// The coalescing thresholds of `src` as the card holds them (an MMIO read).
    pub fn coalescing(&self, src: IntSource) -> Result<IntCoal, DriverError> {
        self.has_feature(COALESCING_VERSION, true, |version| {
            DriverError::CoalescingUnsupported { version }
        })?;
        Ok(IntCoal::from_words(&[self
            .dev
            .bar_read32(src.coal_reg())?]))
    }

    /// Like [`Card::wait_lmr`], but sleeps on the interrupt line between looks at the LMR
    /// ring instead of polling it. Needs [`IntSource::LmrNew`] unmasked and the sender's
    /// [`contract::desc_flag::IRQ_REMOTE`]; messages sent without it are still returned,
    /// but only when something else wakes the driver or the timeout passes (then
    /// [`DriverError::Timeout`]). Per wake-up: one MMIO read of INT_STATUS (which source,
    /// as a handler of a shared line must) and a posted write acknowledging LMR_NEW before
    /// the ring is read, so an entry landing after the read raises the line again.
    pub fn wait_lmr_irq(&mut self, timeout_ns: u64) -> Result<LmrEntry, DriverError> {
        let start = self.dev.now_ns();
        loop {
            if self.active()?.received.is_empty() {
                self.reap_lmr()?;
            }
            if let Some(e) = self.active_mut()?.received.pop_front() {
                return Ok(e);
            }
            let waited_ns = self.dev.now_ns().saturating_sub(start);
            if waited_ns >= timeout_ns || !self.dev.wait_irq(timeout_ns - waited_ns)? {
                return Err(DriverError::Timeout {
                    what: "an LMR entry (interrupt)",
                    waited_ns: self.dev.now_ns().saturating_sub(start),
                });
            }
            let st = self.dev.bar_read32(nic::INT_STATUS)?;
            if st & int::LMR_NEW != 0 {
                self.dev.bar_write32(nic::INT_STATUS, int::LMR_NEW)?;
            } else {
                // Another source holds the line; leave it to its owner, but do not spin
                // on it: poll the ring until it drops or an entry shows up.
                self.dev.relax(Pace::Step);
            }
        }
    }

    /// Polls `f` until it yields a value, letting the card advance in between, for at
    /// most `timeout_ns` of device time.
    fn wait_until<T>(
        &mut self,
        timeout_ns: u64,
        what: &'static str,
        mut f: impl FnMut(&mut Self) -> Result<Option<T>, DriverError>,
    ) -> Result<T, DriverError> {
        let start = self.dev.now_ns();
        loop {
            if let Some(v) = f(self)? {
                return Ok(v);
            }
            let waited_ns = self.dev.now_ns().saturating_sub(start);
            if waited_ns >= timeout_ns {
                return Err(DriverError::Timeout { what, waited_ns });
            }
            self.dev.relax(Pace::Step);
        }
    }

    /// Reads every statistics counter and ERR_STATUS.
    pub fn counters(&self) -> Result<Counters, DriverError> {
        let mut v = [0u32; 28];
        for (i, (_, reg)) in Counters::REGS.iter().enumerate() {
            let tracked = (nic::CNT_RX_MSG_EXPIRED..=nic::CNT_RX_TRACK_FULL).contains(reg);
            if (tracked && self.version < MSG_TRACK_VERSION)
                || (*reg == nic::CNT_RX_DROP_CTX && self.version < CONTEXTS_VERSION)
            {
                continue;
            }
            let answers = (nic::CNT_ACK_TX..=nic::CNT_ANS_DROP).contains(reg);
            if answers && self.version < ACK_VERSION {
                continue;
            }
            // Contract 1.7: CNT_RETX, CNT_REL_TIMEOUT, CNT_RX_DUP, CNT_RX_SEQ_EVICT.
            let rel = (nic::CNT_RETX..=nic::CNT_RX_SEQ_EVICT).contains(reg);
            if rel && self.version < RETX_VERSION.min(DEDUP_VERSION) {
                continue;
            }
            let early = *reg == nic::CNT_RX_EARLY_NACK || *reg == nic::CNT_RX_LMR_FULL;
            if early && self.version < EARLY_NACK_VERSION {
                continue;
            }
            v[i] = self.dev.bar_read32(*reg)?;
        }
        Ok(Counters {
            tx_desc: v[0],
            tx_pkts: v[1],
            rx_pkts: v[2],
            rx_msgs: v[3],
            desc_err: v[4],
            csr_err: v[5],
            rx_crc_err: v[6],
            rx_drop_dest: v[7],
            rx_drop_malformed: v[8],
            rx_drop_window: v[9],
            err_status: v[10],
            push: v[11],
            push_reject: v[12],
            rx_msg_expired: v[13],
            rx_track_full: v[14],
            dma_rd_err: v[15],
            ack_tx: v[16],
            nack_tx: v[17],
            ack_rx: v[18],
            nack_rx: v[19],
            ans_drop: v[20],
            rx_drop_ctx: v[21],
            retx: v[22],
            rel_timeout: v[23],
            rx_dup: v[24],
            rx_seq_evict: v[25],
            rx_early_nack: v[26],
            rx_lmr_full: v[27],
        })
    }

    /// Clears the sticky ERR_STATUS bits; returns the bits that were set.
    pub fn clear_errors(&self) -> Result<u32, DriverError> {
        let e = self.dev.bar_read32(nic::ERR_STATUS)?;
        self.dev.bar_write32(nic::ERR_STATUS, e)?;
        Ok(e)
    }

    /// Reads the NIC's configuration, ring and interrupt registers.
    pub fn csr_state(&self) -> Result<CsrState, DriverError> {
        let r = |reg| self.dev.bar_read32(reg);
        let r64 = |lo, hi| -> Result<u64, DeviceError> {
            Ok(u64::from(r(lo)?) | u64::from(r(hi)?) << 32)
        };
        Ok(CsrState {
            id: r(nic::ID)?,
            version: r(nic::VERSION)?,
            node_id: r(nic::NODE_ID)?,
            ctrl: r(nic::CTRL)?,
            mtu: r(nic::MTU)?,
            dest_range: r(nic::DEST_RANGE)?,
            lme_base: r64(nic::LME_BASE_LO, nic::LME_BASE_HI)?,
            lme_size: r(nic::LME_SIZE)?,
            lme_prod: r(nic::LME_PROD)?,
            lme_cons: r(nic::LME_CONS)?,
            push_status: r(nic::PUSH_STATUS)?,
            lmr_base: r64(nic::LMR_BASE_LO, nic::LMR_BASE_HI)?,
            lmr_size: r(nic::LMR_SIZE)?,
            lmr_prod: r(nic::LMR_PROD)?,
            lmr_cons: r(nic::LMR_CONS)?,
            rxwin_base: r64(nic::RXWIN_BASE_LO, nic::RXWIN_BASE_HI)?,
            rxwin_size: r64(nic::RXWIN_SIZE_LO, nic::RXWIN_SIZE_HI)?,
            int_status: r(nic::INT_STATUS)?,
            int_mask: r(nic::INT_MASK)?,
            int_coal_lme_done: r(nic::INT_COAL_LME_DONE)?,
            int_coal_lmr_new: r(nic::INT_COAL_LMR_NEW)?,
            err_status: r(nic::ERR_STATUS)?,
        })
    }
}

impl<D: Device> std::fmt::Debug for Card<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Card")
            .field("device", &self.dev.name())
            .field("version", &format_args!("{:#x}", self.version))
            .field("config", &self.config())
            .field("outstanding", &self.outstanding())
            .finish()
    }
}

impl<D: Device> Drop for Card<D> {
    fn drop(&mut self) {
        if self.active.is_some() {
            // Nothing to report to from drop; an explicit reset() returns the errors.
            let _ = self.reset();
        }
    }
}

/// Register values for a router: `(input, entry, RT_BOUNDS, RT_CTRL)` for every entry of
/// every input, unused entries invalid, so stale entries of an earlier setup disappear.
fn route_registers(inputs: &[Vec<fasthsl_topology::Interval>]) -> Vec<(usize, usize, u32, u32)> {
    let mut out = Vec::with_capacity((ROUTER_PORTS * ROUTE_ENTRIES) as usize);
    for input in 0..ROUTER_PORTS as usize {
        let table = inputs.get(input).map_or(&[][..], |t| &t[..]);
        for entry in 0..ROUTE_ENTRIES as usize {
            let (bounds, ctrl) = match table.get(entry) {
                Some(i) => (
                    RouteBounds { lo: i.lo, hi: i.hi },
                    RouteCtrl {
                        port: i.port,
                        amask: i.amask,
                        valid: true,
                    },
                ),
                None => (RouteBounds::default(), RouteCtrl::default()),
            };
            out.push((input, entry, bounds.to_words()[0], ctrl.to_words()[0]));
        }
    }
    out
}

#[cfg(test)]
mod tests;
