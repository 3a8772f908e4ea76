//! User-level message passing over FastHSL remote writes: tagged `send`/`recv` with
//! blocking and non-blocking forms, broadcast and barrier.
//!
//! An [`Endpoint`] owns one node's [`Card`] and talks to the endpoints of the other nodes
//! only through remote writes: short messages are copied into slots the receiver set
//! aside for each sender (flow-controlled by credits), long ones go by rendezvous
//! straight into the receiver's buffer. Arrival is detected by polling the card's LMR
//! ring in host memory; the data path makes no system call and takes no interrupt: the
//! only MMIO is the card's own doorbell. The protocol is described in docs/MESSAGING.md.
//!
//! Progress is made by the endpoint's own calls (`test`, `wait`, `progress`): nothing
//! runs in the background. In the simulator every node's endpoint lives in one thread,
//! so code that waits on one node while another must answer calls
//! [`Endpoint::progress`] on every endpoint in turn (see `tests/common`).
//!
//! ```no_run
//! use fasthsl_msg::{Bootstrap, Endpoint, MsgConfig, Source};
//! # fn f<D: fasthsl_msg::Device>(card0: fasthsl_msg::Card<D>, card1: fasthsl_msg::Card<D>) -> Result<(), fasthsl_msg::MsgError> {
//! let boot = Bootstrap::new(vec![card0.rx_iova()?, card1.rx_iova()?]);
//! let mut a = Endpoint::new(card0, &boot, MsgConfig::default())?;
//! let mut b = Endpoint::new(card1, &boot, MsgConfig::default())?;
//! a.send(1, 7, b"hello")?;
//! let mut buf = [0u8; 16];
//! let st = b.recv(Source::Any, 7, &mut buf)?;
//! assert_eq!((st.src, st.len, &buf[..5]), (0, 5, &b"hello"[..]));
//! # Ok(()) }
//! ```

#![forbid(unsafe_code)]

mod coll;
mod heap;
pub mod layout;

use std::collections::hash_map::RandomState;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, Hasher};

use fasthsl_driver::contract::{desc_flag, status_done, DescErr, BCAST_NODES, MSG_LEN_MAX};
pub use fasthsl_driver::{
    Card, CompletionError, Device, DeviceError, DmaBuffer, DriverError, Pace, WinStats,
};
use fasthsl_driver::{PutPath, WindowPerms};

pub use coll::BcastBackend;
use coll::{Coll, Step};
use heap::Heap;
use layout::{Area, Header, Kind, Layout, HDR_BYTES, HDR_MAX, HELLO_BYTES, HELLO_MAGIC};

/// Largest user tag; tags above are the layer's own (collectives).
pub const TAG_MAX: u32 = 0x7FFF_FFFF;
/// Matches any user tag in [`Endpoint::recv`] / [`Endpoint::irecv`].
pub const ANY_TAG: u32 = u32::MAX;
/// Default largest eager message, bytes: a slot is then one 4 KiB page. Chosen by
/// measurement (docs/MESSAGING.md): eager beats rendezvous by one round trip at every
/// size, so the limit is set by slot memory and the host's copy cost.
pub const DEFAULT_SHORT_MAX: usize = 4096 - layout::HDR_BYTES;
const COLL_TAG: u32 = 0x8000_0000;
/// Device time a dropped endpoint waits for its puts to complete.
const DROP_DRAIN_NS: u64 = 1_000_000;
const BARRIER_UP: u32 = 0x2000_0000;
const BARRIER_DOWN: u32 = 0x1000_0000;

/// Errors of the message layer.
#[derive(Debug, thiserror::Error)]
pub enum MsgError {
    /// The driver failed (including the device below it).
    #[error(transparent)]
    Driver(#[from] DriverError),
    /// DMA memory access failed.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// The destination (or source) is not a node of the cluster.
    #[error("node {node} does not exist: the cluster has {nodes} nodes (0..={})", .nodes - 1)]
    NoSuchNode {
        /// Node asked for.
        node: u16,
        /// Nodes in the bootstrap table.
        nodes: usize,
    },
    /// A tag outside the user range (or ANY_TAG given to a send).
    #[error("tag {tag:#x} is not a user tag: use 0..={TAG_MAX:#x} (ANY_TAG only to receive)")]
    BadTag {
        /// Tag given.
        tag: u32,
    },
    /// A wait ran out of device time (modeled time on the simulator).
    #[error("timed out after {waited_ns} ns waiting for {what}")]
    Timeout {
        /// What the request was waiting for, and from whom.
        what: String,
        /// Device-clock nanoseconds waited.
        waited_ns: u64,
    },
    /// The receive window cannot hold the layout.
    #[error(
        "the receive window has {have} bytes; the message layer needs at least {need} for \
         {nodes} nodes (slots, credits, bootstrap) plus heap: raise CardConfig::rx_window_bytes"
    )]
    WindowTooSmall {
        /// Window bytes.
        have: usize,
        /// Bytes the layout needs.
        need: usize,
        /// Nodes.
        nodes: usize,
    },
    /// A [`MsgConfig`] field is out of range.
    #[error("invalid message-layer configuration: {0}")]
    BadConfig(String),
    /// The bootstrap table does not fit this card.
    #[error("bootstrap: {0}")]
    Bootstrap(String),
    /// No room in the heap (registered buffers, rendezvous bounce buffers).
    #[error("heap exhausted: {len} bytes requested, {free} free (in pieces); free buffers or enlarge the receive window")]
    HeapExhausted {
        /// Bytes requested.
        len: usize,
        /// Free bytes.
        free: usize,
    },
    /// A buffer range outside its [`MsgBuf`].
    #[error("range [{offset}, +{len}) is outside the {buf_len}-byte buffer")]
    BufRange {
        /// Offset.
        offset: usize,
        /// Length.
        len: usize,
        /// Buffer length.
        buf_len: usize,
    },
    /// A message longer than the header's 32-bit length field.
    #[error("message of {len} bytes is too long: at most {} bytes", u32::MAX)]
    TooLong {
        /// Bytes asked for.
        len: usize,
    },
    /// The request was already returned, or never existed.
    #[error("request #{0} is unknown (already completed and returned, or cancelled)")]
    UnknownRequest(u64),
    /// A peer's HELLO carries a different layout: the two would misread each other.
    #[error(
        "node {node} runs the message layer with a different configuration \
         (layout hash {theirs:#018x}, ours {ours:#018x}): use the same MsgConfig and node count everywhere"
    )]
    ConfigMismatch {
        /// Peer.
        node: u16,
        /// Its hash.
        theirs: u64,
        /// Ours.
        ours: u64,
    },
    /// The card rejected one of the layer's puts (a layer bug or a broken card).
    #[error("the card rejected a put to node {dest}: {error}")]
    PutFailed {
        /// Destination of the put.
        dest: u16,
        /// The card's verdict.
        error: CompletionError,
    },
}

/// Where a receive accepts messages from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Any node.
    Any,
    /// One node.
    Node(u16),
}

impl From<u16> for Source {
    fn from(n: u16) -> Self {
        Source::Node(n)
    }
}

/// What a finished request did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status {
    /// Receives: the sender. Sends: this node. Broadcasts: the root.
    pub src: u16,
    /// The message's tag (0 for collectives).
    pub tag: u32,
    /// Bytes delivered: for a truncated receive, the prefix that fit.
    pub len: usize,
    /// The message was longer than the receive buffer (as MPI_ERR_TRUNCATE): only the
    /// first `len` bytes were delivered, nothing beyond the buffer was written.
    pub truncated: bool,
}

/// Settings every node of a cluster must share (checked by the HELLO handshake).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MsgConfig {
    /// Largest message sent eagerly into a slot; longer ones use rendezvous.
    pub short_max: usize,
    /// Slots (credits) each sender has at each receiver.
    pub slots_per_peer: u32,
    /// Send staging slots: eager messages being read by the card (local only).
    pub stage_slots: usize,
    /// Device time [`Endpoint::wait`] and the blocking calls wait before failing.
    pub timeout_ns: u64,
    /// How broadcasts travel.
    pub bcast: BcastBackend,
    /// Hardware backend: broadcast slots each root has on every node (its broadcast
    /// credits: a root waits when its oldest unconsumed broadcast is this many behind).
    pub bcast_slots: u32,
    /// Protect the receive region with keyed receive windows (docs/WINDOWS.md): at
    /// start-up each node registers its region as one window with the key the
    /// [`Bootstrap`] table gives it (and, for hardware broadcasts, the broadcast slots as
    /// a second window with the table's shared broadcast key), the card enforces keys from
    /// then on, and every put the layer issues carries its destination's key.
    pub windows: bool,
}

impl Default for MsgConfig {
    fn default() -> Self {
        MsgConfig {
            short_max: DEFAULT_SHORT_MAX,
            slots_per_peer: 16,
            stage_slots: 64,
            timeout_ns: 20_000_000,
            bcast: BcastBackend::SoftwareTree,
            bcast_slots: 8,
            windows: true,
        }
    }
}

impl MsgConfig {
    /// Checks the fields' ranges.
    pub fn validate(&self) -> Result<(), MsgError> {
        if self.short_max > 64 << 10 {
            return Err(MsgError::BadConfig(format!(
                "short_max {} is above 65536",
                self.short_max
            )));
        }
        if !(1..=4096).contains(&self.slots_per_peer) {
            return Err(MsgError::BadConfig(format!(
                "slots_per_peer {} is outside 1..=4096",
                self.slots_per_peer
            )));
        }
        if self.bcast == BcastBackend::Hardware && !(1..=4096).contains(&self.bcast_slots) {
            return Err(MsgError::BadConfig(format!(
                "bcast_slots {} is outside 1..=4096",
                self.bcast_slots
            )));
        }
        if self.stage_slots == 0 {
            return Err(MsgError::BadConfig("stage_slots must be >= 1".into()));
        }
        Ok(())
    }
}

/// The per-node fact the layout cannot compute: where each node's receive window is on
/// its own bus (IOVA). It comes from outside the data path, like MPI's process manager
/// wire-up; see docs/MESSAGING.md.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bootstrap {
    rx_bases: Vec<u64>,
    /// Node `n`'s receive-window key (with [`MsgConfig::windows`]).
    keys: Vec<u16>,
    /// The key every node's broadcast-slot window shares: one broadcast put carries one
    /// key to every receiver.
    bcast_key: u16,
}

/// Table index of the window covering a node's whole receive region.
pub const RX_WINDOW_INDEX: u16 = 0;
/// Table index of the broadcast-slot window (hardware broadcast backend).
pub const BCAST_WINDOW_INDEX: u16 = 1;

/// A key for table index `index` with a random nonzero 12-bit tag (key-less puts carry
/// key 0, and a tag a stale sender could know must not be reused).
fn draw_key(h: &RandomState, n: u64, index: u16) -> u16 {
    let mut i = 0u64;
    loop {
        let mut x = h.build_hasher();
        x.write_u64(n);
        x.write_u64(i);
        let tag = (x.finish() & 0xFFF) as u16;
        if tag != 0 {
            return (tag << 4) | index;
        }
        i += 1;
    }
}

impl Bootstrap {
    /// Node `n`'s receive window starts at `rx_bases[n]`. The table also draws every
    /// node's window key at random (the table is made once and handed to every node,
    /// like the addresses, so the keys travel with it).
    pub fn new(rx_bases: Vec<u64>) -> Self {
        let h = RandomState::new();
        let keys = (0..rx_bases.len() as u64)
            .map(|n| draw_key(&h, n, RX_WINDOW_INDEX))
            .collect();
        let bcast_key = draw_key(&h, u64::MAX, BCAST_WINDOW_INDEX);
        Bootstrap {
            rx_bases,
            keys,
            bcast_key,
        }
    }

    /// Every node's window at the same bus address: the deterministic-IOVA convention
    /// (the VFIO backend allocates IOVAs in order from a fixed base, so identically
    /// configured cards get identical windows). The keys are drawn here as in
    /// [`Bootstrap::new`]: nodes that each build their own table must still agree on the
    /// keys ([`Bootstrap::with_keys`] with keys handed out by the launcher), or run with
    /// [`MsgConfig::windows`] off.
    pub fn uniform(nodes: usize, rx_base: u64) -> Self {
        Self::new(vec![rx_base; nodes])
    }

    /// Replaces the drawn keys (a table assembled elsewhere): node `n` registers its
    /// receive window with `keys[n]` (index [`RX_WINDOW_INDEX`] in bits 3:0), and every
    /// node its broadcast-slot window with `bcast_key` (index [`BCAST_WINDOW_INDEX`]).
    /// Checked by [`Endpoint::new`].
    pub fn with_keys(mut self, keys: Vec<u16>, bcast_key: u16) -> Self {
        self.keys = keys;
        self.bcast_key = bcast_key;
        self
    }

    /// Node `n`'s receive-window key.
    pub fn key(&self, n: u16) -> Option<u16> {
        self.keys.get(usize::from(n)).copied()
    }

    /// The shared broadcast-slot window key.
    pub fn bcast_key(&self) -> u16 {
        self.bcast_key
    }

    /// Nodes in the table.
    pub fn nodes(&self) -> usize {
        self.rx_bases.len()
    }
}

/// A registered buffer: a piece of this node's receive window, so remote writes can land
/// in it (zero-copy rendezvous) and the card can read it (zero-copy send).
#[derive(Debug, PartialEq, Eq)]
pub struct MsgBuf {
    off: usize,
    len: usize,
}

impl MsgBuf {
    /// Bytes.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Zero-length buffer.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A non-blocking operation in progress: pass it to [`Endpoint::test`] or
/// [`Endpoint::wait`].
#[derive(Debug, PartialEq, Eq, Hash)]
#[must_use = "a request must be tested or waited for"]
pub struct Request {
    id: u64,
}

impl Request {
    /// The request's number (for messages).
    pub fn id(&self) -> u64 {
        self.id
    }
}

/// Event counters of an endpoint.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Eager messages sent.
    pub short_sent: u64,
    /// Eager messages received.
    pub short_recv: u64,
    /// Rendezvous messages sent (data written).
    pub rdv_sent: u64,
    /// Rendezvous messages received.
    pub rdv_recv: u64,
    /// Explicit credit messages sent (credits not piggybacked).
    pub credit_msgs: u64,
    /// Times a message waited because its destination's credits were used up.
    pub credit_stalls: u64,
    /// Messages that arrived before a matching receive was posted.
    pub unexpected: u64,
    /// Largest length of the unexpected queue.
    pub unexpected_max: usize,
    /// Received writes that make no sense to the protocol (counted and skipped).
    pub protocol_errors: u64,
    /// Puts the card rejected.
    pub put_errors: u64,
    /// Receives truncated.
    pub truncated: u64,
    /// Hardware broadcast puts sent (pieces of broadcasts, barrier releases).
    pub bcast_sent: u64,
    /// Hardware broadcast messages received.
    pub bcast_recv: u64,
    /// Broadcast credit messages sent (to roots).
    pub bcast_credit_msgs: u64,
    /// Times a broadcast waited for a receiver to consume the root's oldest one.
    pub bcast_stalls: u64,
}

/// A finished request: its status, and the data of a [`Endpoint::recv`].
type Finished = (Status, Option<Vec<u8>>);

/// Where a receive puts the data.
#[derive(Debug)]
pub(crate) enum Target {
    /// A registered buffer (heap offset, capacity).
    Buf { off: usize, cap: usize },
    /// A vector handed back by [`Endpoint::recv`] (capacity).
    Owned { cap: usize },
}

impl Target {
    fn cap(&self) -> usize {
        match *self {
            Target::Buf { cap, .. } | Target::Owned { cap } => cap,
        }
    }
}

/// A message that arrived before its receive.
#[derive(Debug)]
enum Unexpected {
    Short {
        src: u16,
        tag: u32,
        data: Vec<u8>,
    },
    Req {
        src: u16,
        tag: u32,
        sreq: u32,
        len: usize,
    },
}

impl Unexpected {
    fn key(&self) -> (u16, u32) {
        match *self {
            Unexpected::Short { src, tag, .. } | Unexpected::Req { src, tag, .. } => (src, tag),
        }
    }
}

#[derive(Debug)]
enum ReqState {
    /// Eager send waiting for a credit or a staging slot.
    SendQueued {
        dest: u16,
        tag: u32,
        len: usize,
    },
    /// Rendezvous send: REQ sent or queued; `granted` once the RSP came.
    SendRdv {
        dest: u16,
        tag: u32,
        len: usize,
        off: usize,
        bounce: bool,
        granted: Option<usize>,
    },
    /// Receive posted, not matched yet.
    RecvPosted {
        src: Source,
        tag: u32,
        target: Target,
    },
    /// Receive matched with a rendezvous REQ: RSP sent, waiting for the data.
    RecvRdv {
        src: u16,
        tag: u32,
        target: Target,
        off: usize,
        granted: usize,
        full: usize,
        got: usize,
    },
    /// Hardware broadcast piece waiting for broadcast credits or a staging slot.
    BcastQueued {
        len: usize,
    },
    /// A collective.
    Coll(Coll),
    Done(Status, Option<Vec<u8>>),
    Failed(MsgError),
}

/// A hardware broadcast piece waiting for broadcast credits.
#[derive(Debug)]
struct OutBcast {
    tag: u32,
    data: Vec<u8>,
    req: u64,
}

/// A slot message waiting for a credit.
#[derive(Debug)]
enum OutMsg {
    Short {
        tag: u32,
        data: Vec<u8>,
        req: Option<u64>,
    },
    Req {
        tag: u32,
        len: usize,
        sreq: u32,
    },
    Rsp {
        sreq: u32,
        granted: usize,
        addr: u64,
    },
}

#[derive(Debug, Clone, Copy)]
enum TxSrc {
    Stage(usize),
    Heap(usize),
    Hello,
    Credit(u16),
    BcastCredit(u16),
}

#[derive(Debug, Clone, Copy)]
enum TxDone {
    FreeStage(usize),
    SendData { req: u64, last: bool },
    Nothing,
}

#[derive(Debug, Clone, Copy)]
struct TxOp {
    /// A node, or a node range for a broadcast.
    dest: u16,
    flags: u16,
    src: TxSrc,
    remote: u64,
    len: usize,
    done: TxDone,
}

#[derive(Debug, Default)]
struct Peer {
    /// HELLO received: the peer's layer is up and agrees on the layout.
    ready: bool,
    mismatch: Option<u64>,
    /// Next sequence number to send to the peer.
    tx_seq: u32,
    /// Of our messages, how many the peer has consumed (its slots we may reuse).
    acked: u32,
    outbox: VecDeque<OutMsg>,
    stalled: bool,
    /// Next sequence number expected from the peer.
    rx_seq: u32,
    /// LMR entries seen for the peer's slots and not yet processed.
    arrived: u32,
    /// Of the peer's messages, how many we consumed; and how many we told it about.
    consumed: u32,
    returned: u32,
    /// Hardware broadcasts of this peer (as root): next number expected, which of its
    /// broadcast slots hold an arrived message, how many we consumed and told it about.
    brx_seq: u32,
    bready: Vec<bool>,
    bconsumed: u32,
    breturned: u32,
    /// Of our broadcasts, how many this peer has consumed.
    backed: u32,
}

/// One node's message-passing endpoint.
pub struct Endpoint<D: Device> {
    card: Card<D>,
    me: u16,
    cfg: MsgConfig,
    layout: Layout,
    hash: u64,
    rx_bases: Vec<u64>,
    /// Key each destination's receive window wants (all 0 without windows).
    keys: Vec<u16>,
    bcast_key: u16,
    rx_iova: u64,
    /// The receive window's handle, to use heap buffers as put sources.
    rx_alias: DmaBuffer,
    stage: DmaBuffer,
    stage_free: Vec<usize>,
    hello_src: usize,
    credit_src: usize,
    peers: Vec<Peer>,
    heap: Heap,
    txq: VecDeque<TxOp>,
    inflight: HashMap<u64, TxOp>,
    reqs: HashMap<u64, ReqState>,
    next_req: u64,
    posted: VecDeque<u64>,
    unexpected: VecDeque<Unexpected>,
    rdv_out: HashMap<u32, u64>,
    rdv_in: Vec<u64>,
    colls: Vec<u64>,
    coll_seq: u32,
    /// The hardware broadcast backend is in use (configured, and the windows share one
    /// bus address).
    hw_bcast: bool,
    /// Next number of our hardware broadcasts; pieces waiting for broadcast credits.
    btx_seq: u32,
    boutbox: VecDeque<OutBcast>,
    bstalled: bool,
    bcredit_src: usize,
    put_error: Option<MsgError>,
    stats: Stats,
}

fn le64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..8].try_into().expect("8 bytes"))
}

impl<D: Device> Endpoint<D> {
    /// Starts the layer on a configured `card` (routes programmed): checks the bootstrap
    /// table against the card, and posts this node's HELLO to every peer. Messages to a
    /// peer wait until its HELLO has arrived.
    pub fn new(mut card: Card<D>, boot: &Bootstrap, cfg: MsgConfig) -> Result<Self, MsgError> {
        cfg.validate()?;
        let Some(cc) = card.config() else {
            return Err(DriverError::NotConfigured.into());
        };
        let (me, dest_range, window) = (cc.node_id, cc.dest_range.clone(), cc.rx_window_bytes);
        let nodes = boot.nodes();
        if nodes == 0 || nodes > usize::from(u16::MAX) {
            return Err(MsgError::Bootstrap(format!("the table has {nodes} nodes")));
        }
        if usize::from(me) >= nodes {
            return Err(MsgError::Bootstrap(format!(
                "this card is node {me}, the table has only {nodes} nodes"
            )));
        }
        let rx_iova = card.rx_iova()?;
        if boot.rx_bases[usize::from(me)] != rx_iova {
            return Err(MsgError::Bootstrap(format!(
                "the table puts node {me}'s receive window at {:#x}, the card's is at {rx_iova:#x}",
                boot.rx_bases[usize::from(me)]
            )));
        }
        if *dest_range.start() != 0 || usize::from(*dest_range.end()) + 1 < nodes {
            return Err(MsgError::Bootstrap(format!(
                "the card reaches nodes {dest_range:?}, the table has 0..={}",
                nodes - 1
            )));
        }
        let layout = Layout::new(nodes, &cfg);
        // One put lands at one bus address on every receiver: only with every window at
        // the same address. Decided from the table alone, so every node decides alike;
        // the choice is part of the HELLO hash in case tables differ.
        let hw_bcast = cfg.bcast == BcastBackend::Hardware
            && nodes >= 2
            && nodes <= BCAST_NODES as usize
            && boot.rx_bases.iter().all(|&b| b == boot.rx_bases[0]);
        let need = layout.heap_off + 4096;
        if window < need {
            return Err(MsgError::WindowTooSmall {
                have: window,
                need,
                nodes,
            });
        }
        let (keys, bcast_key) = if cfg.windows {
            if boot.keys.len() != nodes
                || boot
                    .keys
                    .iter()
                    .any(|k| k & 0xF != RX_WINDOW_INDEX || k >> 4 == 0)
                || boot.bcast_key & 0xF != BCAST_WINDOW_INDEX
                || boot.bcast_key >> 4 == 0
            {
                return Err(MsgError::Bootstrap(format!(
                    "the table's window keys are malformed: {:#06x?}, broadcast {:#06x} \
                     (index {RX_WINDOW_INDEX} / {BCAST_WINDOW_INDEX} in bits 3:0, a nonzero tag above)",
                    boot.keys, boot.bcast_key
                )));
            }
            // The whole region is one window: eager slots, credits, HELLOs and rendezvous
            // heap buffers all take writes, and only writes with this node's key. The first
            // registration turns the card's enforcement on.
            card.register_window_with_key(
                0,
                window,
                WindowPerms::WRITE,
                boot.keys[usize::from(me)],
            )?;
            if hw_bcast {
                // Broadcasts land only in the broadcast slots, at the same offsets on
                // every node, so one shared key can open exactly them everywhere.
                card.register_window_with_key(
                    layout.bslots_off,
                    layout.heap_off - layout.bslots_off,
                    WindowPerms {
                        write: false,
                        bcast: true,
                    },
                    boot.bcast_key,
                )?;
            }
            (boot.keys.clone(), boot.bcast_key)
        } else {
            (vec![0; nodes], 0)
        };
        let rx = card.rx_buffer()?;
        let rx_alias = DmaBuffer::new(rx.id(), rx.iova(), rx.len());
        let hello_src = cfg.stage_slots * layout.slot_bytes;
        let credit_src = hello_src + HELLO_BYTES;
        let bcredit_src = credit_src + nodes * 8;
        let stage = card.device().dma_alloc(bcredit_src + nodes * 8)?;
        let hash = layout.hash(cfg.short_max, hw_bcast);
        let mut hello = [0u8; 24];
        hello[..8].copy_from_slice(&HELLO_MAGIC.to_le_bytes());
        hello[8..16].copy_from_slice(&hash.to_le_bytes());
        hello[16..].copy_from_slice(&u64::from(me).to_le_bytes());
        card.device().mem_write(&stage, hello_src, &hello)?;
        let mut peers: Vec<Peer> = (0..nodes)
            .map(|_| Peer {
                bready: vec![false; layout.bslots as usize],
                ..Peer::default()
            })
            .collect();
        peers[usize::from(me)].ready = true;
        let mut ep = Endpoint {
            card,
            me,
            heap: Heap::new(layout.heap_off, window),
            stage_free: (0..cfg.stage_slots).rev().collect(),
            cfg,
            layout,
            hash,
            rx_bases: boot.rx_bases.clone(),
            keys,
            bcast_key,
            rx_iova,
            rx_alias,
            stage,
            hello_src,
            credit_src,
            peers,
            txq: VecDeque::new(),
            inflight: HashMap::new(),
            reqs: HashMap::new(),
            next_req: 1,
            posted: VecDeque::new(),
            unexpected: VecDeque::new(),
            rdv_out: HashMap::new(),
            rdv_in: Vec::new(),
            colls: Vec::new(),
            coll_seq: 0,
            hw_bcast,
            btx_seq: 0,
            boutbox: VecDeque::new(),
            bstalled: false,
            bcredit_src,
            put_error: None,
            stats: Stats::default(),
        };
        for p in 0..nodes as u16 {
            if p != me {
                ep.txq.push_back(TxOp {
                    dest: p,
                    flags: 0,
                    src: TxSrc::Hello,
                    remote: ep.rx_bases[usize::from(p)]
                        + (ep.layout.hello_off + usize::from(me) * HELLO_BYTES) as u64,
                    len: 24,
                    done: TxDone::Nothing,
                });
            }
        }
        ep.flush_txq()?;
        Ok(ep)
    }

    /// This node's id.
    pub fn node(&self) -> u16 {
        self.me
    }

    /// Nodes in the cluster.
    pub fn nodes(&self) -> usize {
        self.layout.nodes
    }

    /// The configuration in use.
    pub fn config(&self) -> &MsgConfig {
        &self.cfg
    }

    /// How broadcasts and barriers travel: `Hardware` only if configured and every
    /// node's receive window is at the same bus address (the bootstrap table), else the
    /// software tree.
    pub fn bcast_backend(&self) -> BcastBackend {
        if self.hw_bcast {
            BcastBackend::Hardware
        } else {
            BcastBackend::SoftwareTree
        }
    }

    /// Where things are in the receive window.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Event counters.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// The card (device access, counters). Its rings belong to the endpoint: posting or
    /// polling through it directly would take the layer's entries.
    pub fn card(&self) -> &Card<D> {
        &self.card
    }

    /// Whether node `n`'s HELLO has arrived (always true for this node).
    pub fn peer_ready(&self, n: u16) -> bool {
        self.peers.get(usize::from(n)).is_some_and(|p| p.ready)
    }

    /// Messages that arrived with no matching receive yet.
    pub fn unexpected_len(&self) -> usize {
        self.unexpected.len()
    }

    fn check_node(&self, node: u16) -> Result<(), MsgError> {
        if usize::from(node) >= self.layout.nodes {
            return Err(MsgError::NoSuchNode {
                node,
                nodes: self.layout.nodes,
            });
        }
        if let Some(theirs) = self.peers[usize::from(node)].mismatch {
            return Err(MsgError::ConfigMismatch {
                node,
                theirs,
                ours: self.hash,
            });
        }
        Ok(())
    }

    // ---- registered buffers --------------------------------------------------------

    /// Reserves a registered buffer of `len` bytes in the receive window.
    pub fn alloc(&mut self, len: usize) -> Result<MsgBuf, MsgError> {
        match self.heap.alloc(len) {
            Some(off) => Ok(MsgBuf { off, len }),
            None => Err(MsgError::HeapExhausted {
                len,
                free: self.heap.free_bytes(),
            }),
        }
    }

    /// Returns a buffer to the heap. It must not be in use by a pending request.
    pub fn free(&mut self, buf: MsgBuf) {
        self.heap.free(buf.off, buf.len);
    }

    fn buf_range(&self, buf: &MsgBuf, offset: usize, len: usize) -> Result<usize, MsgError> {
        match offset.checked_add(len) {
            Some(end) if end <= buf.len && self.heap.contains(buf.off, buf.len) => {
                Ok(buf.off + offset)
            }
            _ => Err(MsgError::BufRange {
                offset,
                len,
                buf_len: buf.len,
            }),
        }
    }

    /// Copies `data` into `buf` at `offset`.
    pub fn write(&self, buf: &MsgBuf, offset: usize, data: &[u8]) -> Result<(), MsgError> {
        let at = self.buf_range(buf, offset, data.len())?;
        Ok(self.card.write_rx(at, data)?)
    }

    /// Copies from `buf` at `offset` into `out`.
    pub fn read(&self, buf: &MsgBuf, offset: usize, out: &mut [u8]) -> Result<(), MsgError> {
        let at = self.buf_range(buf, offset, out.len())?;
        Ok(self.card.read_rx(at, out)?)
    }

    // ---- requests ------------------------------------------------------------------

    fn new_req(&mut self, st: ReqState) -> u64 {
        let id = self.next_req;
        self.next_req += 1;
        self.reqs.insert(id, st);
        id
    }

    fn finish(&mut self, id: u64, st: Status, data: Option<Vec<u8>>) {
        if st.truncated && self.is_recv(id) {
            self.stats.truncated += 1;
        }
        self.reqs.insert(id, ReqState::Done(st, data));
    }

    fn is_recv(&self, id: u64) -> bool {
        matches!(
            self.reqs.get(&id),
            Some(ReqState::RecvPosted { .. } | ReqState::RecvRdv { .. })
        )
    }

    /// Starts sending a copy of `data` to `dest` with `tag`. Eager messages complete once
    /// copied for the card; rendezvous ones once the data has been written remotely.
    pub fn isend(&mut self, dest: u16, tag: u32, data: &[u8]) -> Result<Request, MsgError> {
        self.check_send(dest, tag)?;
        let id = self.send_inner(dest, tag, SendSrc::Copy(data))?;
        Ok(Request { id })
    }

    /// Starts sending `len` bytes of the registered buffer `buf` without copying them
    /// (rendezvous reads them from `buf`; leave it untouched until the request finishes).
    pub fn isend_buf(
        &mut self,
        dest: u16,
        tag: u32,
        buf: &MsgBuf,
        len: usize,
    ) -> Result<Request, MsgError> {
        self.check_send(dest, tag)?;
        let off = self.buf_range(buf, 0, len)?;
        let id = self.send_inner(dest, tag, SendSrc::Heap(off, len))?;
        Ok(Request { id })
    }

    fn check_send(&self, dest: u16, tag: u32) -> Result<(), MsgError> {
        self.check_node(dest)?;
        if tag > TAG_MAX {
            return Err(MsgError::BadTag { tag });
        }
        Ok(())
    }

    fn send_inner(&mut self, dest: u16, tag: u32, src: SendSrc<'_>) -> Result<u64, MsgError> {
        let len = src.len();
        if u32::try_from(len).is_err() {
            return Err(MsgError::TooLong { len });
        }
        if len <= self.cfg.short_max {
            let data = match src {
                SendSrc::Copy(d) => d.to_vec(),
                SendSrc::Heap(off, len) => {
                    let mut v = vec![0; len];
                    self.card.read_rx(off, &mut v)?;
                    v
                }
            };
            let id = self.new_req(ReqState::SendQueued { dest, tag, len });
            self.peers[usize::from(dest)]
                .outbox
                .push_back(OutMsg::Short {
                    tag,
                    data,
                    req: Some(id),
                });
            self.pump(dest)?;
            self.flush_txq()?;
            return Ok(id);
        }
        let (off, bounce) = match src {
            SendSrc::Copy(d) => {
                let off = self.heap.alloc(len).ok_or(MsgError::HeapExhausted {
                    len,
                    free: self.heap.free_bytes(),
                })?;
                self.card.write_rx(off, d)?;
                (off, true)
            }
            SendSrc::Heap(off, _) => (off, false),
        };
        let id = self.new_req(ReqState::SendRdv {
            dest,
            tag,
            len,
            off,
            bounce,
            granted: None,
        });
        self.rdv_out.insert(id as u32, id);
        self.peers[usize::from(dest)].outbox.push_back(OutMsg::Req {
            tag,
            len,
            sreq: id as u32,
        });
        self.pump(dest)?;
        self.flush_txq()?;
        Ok(id)
    }

    /// Posts a receive into the registered buffer `buf` for a message from `src` with
    /// `tag` (or [`ANY_TAG`]). Messages match receives in posting order, and messages from
    /// one source with one tag are received in the order they were sent.
    pub fn irecv(
        &mut self,
        src: impl Into<Source>,
        tag: u32,
        buf: &MsgBuf,
    ) -> Result<Request, MsgError> {
        check_recv_tag(tag)?;
        let off = self.buf_range(buf, 0, buf.len)?;
        let id = self.recv_inner(src.into(), tag, Target::Buf { off, cap: buf.len })?;
        Ok(Request { id })
    }

    fn recv_inner(&mut self, src: Source, tag: u32, target: Target) -> Result<u64, MsgError> {
        if let Source::Node(n) = src {
            self.check_node(n)?;
        }
        let id = self.new_req(ReqState::RecvPosted { src, tag, target });
        let hit = self
            .unexpected
            .iter()
            .position(|u| matches_recv(src, tag, u.key()));
        match hit.and_then(|i| self.unexpected.remove(i)) {
            Some(Unexpected::Short { src, tag, data }) => self.deliver_short(id, src, tag, data)?,
            Some(Unexpected::Req {
                src,
                tag,
                sreq,
                len,
            }) => self.start_rdv_recv(id, src, tag, sreq, len)?,
            None => self.posted.push_back(id),
        }
        self.flush_txq()?;
        Ok(id)
    }

    /// Withdraws a receive that has not matched a message yet; returns whether it did
    /// (false: the request is already under way or done; wait for it instead).
    pub fn cancel(&mut self, req: Request) -> Result<bool, MsgError> {
        match self.posted.iter().position(|&r| r == req.id) {
            Some(i) => {
                self.posted.remove(i);
                self.reqs.remove(&req.id);
                Ok(true)
            }
            None if self.reqs.contains_key(&req.id) => Ok(false),
            None => Err(MsgError::UnknownRequest(req.id)),
        }
    }

    /// Makes progress, then returns the request's status if it has finished (the request
    /// is then consumed: further calls report it unknown).
    pub fn test(&mut self, req: &Request) -> Result<Option<Status>, MsgError> {
        self.progress()?;
        Ok(self.take(req.id)?.map(|(s, _)| s))
    }

    fn take(&mut self, id: u64) -> Result<Option<Finished>, MsgError> {
        match self.reqs.get(&id) {
            None => Err(MsgError::UnknownRequest(id)),
            Some(ReqState::Done(..) | ReqState::Failed(_)) => {
                match self.reqs.remove(&id).expect("present") {
                    ReqState::Done(s, d) => Ok(Some((s, d))),
                    ReqState::Failed(e) => Err(e),
                    _ => unreachable!(),
                }
            }
            Some(_) => Ok(None),
        }
    }

    /// Waits for the request, at most [`MsgConfig::timeout_ns`] of device time.
    pub fn wait(&mut self, req: &Request) -> Result<Status, MsgError> {
        self.wait_for(req, self.cfg.timeout_ns)
    }

    /// Waits for the request at most `timeout_ns` of device time. On timeout the request
    /// stays pending (it may still complete, or be cancelled).
    pub fn wait_for(&mut self, req: &Request, timeout_ns: u64) -> Result<Status, MsgError> {
        self.wait_data(req.id, timeout_ns).map(|(s, _)| s)
    }

    fn wait_data(&mut self, id: u64, timeout_ns: u64) -> Result<Finished, MsgError> {
        let start = self.card.device().now_ns();
        loop {
            self.progress()?;
            if let Some(r) = self.take(id)? {
                return Ok(r);
            }
            let waited_ns = self.card.device().now_ns().saturating_sub(start);
            if waited_ns >= timeout_ns {
                return Err(MsgError::Timeout {
                    what: self.describe(id),
                    waited_ns,
                });
            }
            self.card.device().relax(Pace::Step);
        }
    }

    /// Sends a copy of `data`; returns once the buffer may be reused (eager) or the data
    /// has been written into the receiver's buffer (rendezvous).
    pub fn send(&mut self, dest: u16, tag: u32, data: &[u8]) -> Result<Status, MsgError> {
        let r = self.isend(dest, tag, data)?;
        self.wait(&r)
    }

    /// Receives a message into `out`; a longer message is truncated to `out.len()` bytes
    /// and reported so in the status.
    pub fn recv(
        &mut self,
        src: impl Into<Source>,
        tag: u32,
        out: &mut [u8],
    ) -> Result<Status, MsgError> {
        check_recv_tag(tag)?;
        let id = self.recv_inner(src.into(), tag, Target::Owned { cap: out.len() })?;
        let (st, data) = self.wait_data(id, self.cfg.timeout_ns)?;
        let data = data.unwrap_or_default();
        out[..data.len()].copy_from_slice(&data);
        Ok(st)
    }

    fn describe(&self, id: u64) -> String {
        let ready = |n: u16| {
            if self.peers[usize::from(n)].ready {
                String::new()
            } else {
                format!(" (node {n} has not said HELLO: its message layer is not running, or the bootstrap table has its window wrong)")
            }
        };
        match self.reqs.get(&id) {
            Some(ReqState::SendQueued { dest, tag, len }) => format!(
                "node {dest} to free a slot for an eager send of {len} bytes, tag {tag} (its credits are used up: is it receiving?){}",
                ready(*dest)
            ),
            Some(ReqState::SendRdv {
                dest,
                tag,
                len,
                granted: None,
                ..
            }) => format!(
                "node {dest}'s rendezvous reply (RSP) to a send of {len} bytes, tag {tag}: it answers when a matching receive is posted{}",
                ready(*dest)
            ),
            Some(ReqState::SendRdv {
                dest, len, granted: Some(g), ..
            }) => format!("the card to write {g} of {len} bytes to node {dest}"),
            Some(ReqState::RecvPosted { src, tag, .. }) => {
                let tag = if *tag == ANY_TAG { "any tag".to_string() } else { format!("tag {tag}") };
                match src {
                    Source::Any => format!("a message from any node with {tag}"),
                    Source::Node(n) => format!("a message from node {n} with {tag}{}", ready(*n)),
                }
            }
            Some(ReqState::RecvRdv {
                src, granted, got, ..
            }) => format!(
                "the rendezvous data from node {src} ({got} of {granted} bytes arrived)"
            ),
            Some(ReqState::BcastQueued { len }) => {
                let k = self.layout.bslots;
                let slow: Vec<usize> = (0..self.layout.nodes)
                    .filter(|&q| {
                        q != usize::from(self.me)
                            && self.btx_seq.wrapping_sub(self.peers[q].backed) >= k
                    })
                    .collect();
                format!(
                    "nodes {slow:?} to consume our oldest hardware broadcast ({len}-byte piece                      waiting: all {k} broadcast slots are in use; are they in the broadcast?)"
                )
            }
            Some(ReqState::Coll(c)) => {
                let hint = if self.hw_bcast {
                    " over the hardware broadcast backend (if the root's broadcast never                      arrives: does the network replicate broadcasts? FIFO routers and                      networks without broadcast tables drop them, counted in the routers'                      RT_DROP; use BcastBackend::SoftwareTree there)"
                } else {
                    ""
                };
                let first = c
                    .pending
                    .first()
                    .map(|&r| format!("; first of them: {}", self.describe(r)))
                    .unwrap_or_default();
                format!(
                    "{}{hint} (phase with {} operations pending{first}, {} phases left)",
                    c.what,
                    c.pending.len(),
                    c.phases.len()
                )
            }
            Some(_) => "a finished request".into(),
            None => format!("unknown request #{id}"),
        }
    }

    // ---- progress ------------------------------------------------------------------

    /// Does everything that can be done now without waiting: reaps completions, reads
    /// arrived messages, matches them, returns credits, sends what credits allow.
    /// Never blocks and never advances the device clock.
    pub fn progress(&mut self) -> Result<(), MsgError> {
        for c in self.card.poll_completions()? {
            let Some(op) = self.inflight.remove(&c.seq) else {
                continue;
            };
            if let Err(error) = c.result {
                self.stats.put_errors += 1;
                self.put_error.get_or_insert(MsgError::PutFailed {
                    dest: op.dest,
                    error,
                });
            }
            match op.done {
                TxDone::FreeStage(i) => self.stage_free.push(i),
                TxDone::SendData { req, last: true } => self.send_data_done(req),
                TxDone::SendData { last: false, .. } | TxDone::Nothing => {}
            }
        }
        self.poll_incoming()?;
        for p in 0..self.layout.nodes as u16 {
            self.pump(p)?;
            self.return_credits(p, false)?;
            self.return_credits(p, true)?;
        }
        self.pump_bcast()?;
        self.flush_txq()?;
        self.step_colls()?;
        if let Some(e) = self.put_error.take() {
            return Err(e);
        }
        Ok(())
    }

    fn poll_incoming(&mut self) -> Result<(), MsgError> {
        let entries = self.card.poll_lmr()?;
        if entries.is_empty() {
            return Ok(());
        }
        for e in entries {
            let src = usize::from(e.src);
            let off = e.addr.wrapping_sub(self.rx_iova);
            let area = if e.status != status_done(DescErr::Ok) || off >= 1 << 48 {
                Area::Unknown
            } else {
                self.layout.classify(src, off as usize)
            };
            match area {
                Area::Hello => self.on_hello(src)?,
                Area::Credit => {
                    let mut w = [0u8; 8];
                    self.card
                        .read_rx(self.layout.credit_off + src * 8, &mut w)?;
                    self.on_ack(src, le64(&w) as u32);
                }
                Area::Slot => self.peers[src].arrived += 1,
                Area::BcastCredit => {
                    let mut w = [0u8; 8];
                    self.card
                        .read_rx(self.layout.bcredit_off + src * 8, &mut w)?;
                    self.on_bcast_ack(src, le64(&w) as u32);
                }
                Area::BcastSlot(i) if e.flags & desc_flag::BCAST != 0 => {
                    self.peers[src].bready[i as usize] = true;
                }
                Area::BcastSlot(_) => self.stats.protocol_errors += 1,
                Area::Heap => self.on_data(e.src, off as usize, e.len as usize),
                Area::Unknown => self.stats.protocol_errors += 1,
            }
        }
        for src in 0..self.layout.nodes {
            self.drain_slots(src)?;
            self.drain_bcast_slots(src)?;
        }
        Ok(())
    }

    fn on_hello(&mut self, src: usize) -> Result<(), MsgError> {
        let mut r = [0u8; 24];
        self.card
            .read_rx(self.layout.hello_off + src * HELLO_BYTES, &mut r)?;
        if le64(&r) != HELLO_MAGIC || le64(&r[16..]) != src as u64 {
            self.stats.protocol_errors += 1;
            return Ok(());
        }
        let theirs = le64(&r[8..]);
        if theirs == self.hash {
            self.peers[src].ready = true;
        } else {
            self.peers[src].mismatch = Some(theirs);
        }
        Ok(())
    }

    fn on_ack(&mut self, src: usize, ack: u32) {
        let p = &mut self.peers[src];
        // Cumulative counts: a stale (older) value changes nothing.
        if (ack.wrapping_sub(p.acked) as i32) > 0
            && ack.wrapping_sub(p.acked) <= p.tx_seq.wrapping_sub(p.acked)
        {
            p.acked = ack;
        }
    }

    fn drain_slots(&mut self, src: usize) -> Result<(), MsgError> {
        while self.peers[src].arrived > 0 {
            let p = &mut self.peers[src];
            let seq = p.rx_seq;
            p.arrived -= 1;
            p.rx_seq = p.rx_seq.wrapping_add(1);
            p.consumed = p.consumed.wrapping_add(1);
            let off = self.layout.slot_off(src, seq % self.layout.slots);
            let mut hb = [0u8; HDR_MAX];
            self.card.read_rx(off, &mut hb)?;
            let h = match Header::from_bytes(&hb) {
                Some(h) if h.seq == seq => h,
                _ => {
                    self.stats.protocol_errors += 1;
                    continue;
                }
            };
            self.on_ack(src, h.ack);
            let src16 = src as u16;
            match h.kind {
                Kind::Short => {
                    let len = h.len as usize;
                    if len > self.cfg.short_max {
                        self.stats.protocol_errors += 1;
                        continue;
                    }
                    let mut data = vec![0u8; len];
                    self.card.read_rx(off + HDR_BYTES, &mut data)?;
                    self.stats.short_recv += 1;
                    match self.match_posted(src16, h.tag) {
                        Some(id) => self.deliver_short(id, src16, h.tag, data)?,
                        None => self.push_unexpected(Unexpected::Short {
                            src: src16,
                            tag: h.tag,
                            data,
                        }),
                    }
                }
                Kind::Req => {
                    let len = h.len as usize;
                    match self.match_posted(src16, h.tag) {
                        Some(id) => self.start_rdv_recv(id, src16, h.tag, h.sreq, len)?,
                        None => self.push_unexpected(Unexpected::Req {
                            src: src16,
                            tag: h.tag,
                            sreq: h.sreq,
                            len,
                        }),
                    }
                }
                Kind::Rsp => self.on_rsp(src16, &h),
                // Broadcasts belong in broadcast slots.
                Kind::Bcast => self.stats.protocol_errors += 1,
            }
        }
        Ok(())
    }

    fn on_bcast_ack(&mut self, src: usize, ack: u32) {
        let p = &mut self.peers[src];
        // Cumulative, as for unicast credits: an older value changes nothing.
        if (ack.wrapping_sub(p.backed) as i32) > 0
            && ack.wrapping_sub(p.backed) <= self.btx_seq.wrapping_sub(p.backed)
        {
            p.backed = ack;
        }
    }

    /// Consumes root `src`'s arrived broadcasts in its sequence order. Arrival is per
    /// slot (the LMR entry names the slot), not a count: nothing orders one root's
    /// broadcasts against each other or against unicasts, so a later broadcast may be
    /// seen first and waits in its slot until the ones before it are consumed.
    fn drain_bcast_slots(&mut self, src: usize) -> Result<(), MsgError> {
        let k = self.layout.bslots;
        if k == 0 {
            return Ok(());
        }
        loop {
            let p = &mut self.peers[src];
            let seq = p.brx_seq;
            let i = (seq % k) as usize;
            if !p.bready[i] {
                return Ok(());
            }
            p.bready[i] = false;
            let off = self.layout.bslot_off(src, seq % k);
            let mut hb = [0u8; HDR_MAX];
            self.card.read_rx(off, &mut hb)?;
            let h = match Header::from_bytes(&hb) {
                Some(h)
                    if h.kind == Kind::Bcast
                        && h.seq == seq
                        && h.len as usize <= self.cfg.short_max =>
                {
                    h
                }
                // Not the broadcast expected here (a stray write, counted): the root's
                // real one still comes, with its own LMR entry.
                _ => {
                    self.stats.protocol_errors += 1;
                    continue;
                }
            };
            let p = &mut self.peers[src];
            p.brx_seq = seq.wrapping_add(1);
            p.bconsumed = p.bconsumed.wrapping_add(1);
            let mut data = vec![0u8; h.len as usize];
            self.card.read_rx(off + HDR_BYTES, &mut data)?;
            self.stats.bcast_recv += 1;
            let src16 = src as u16;
            match self.match_posted(src16, h.tag) {
                Some(id) => self.deliver_short(id, src16, h.tag, data)?,
                None => self.push_unexpected(Unexpected::Short {
                    src: src16,
                    tag: h.tag,
                    data,
                }),
            }
        }
    }

    /// Moves our broadcast pieces to the card while every node has a free broadcast
    /// slot of ours (the slot reuse rule: slot `i mod K` is written again only once every
    /// receiver has consumed broadcast `i`) and staging slots last.
    fn pump_bcast(&mut self) -> Result<(), MsgError> {
        let k = self.layout.bslots;
        while !self.boutbox.is_empty() {
            let me = usize::from(self.me);
            let seq = self.btx_seq;
            let ready = self.peers.iter().all(|p| p.ready);
            let full = self
                .peers
                .iter()
                .enumerate()
                .any(|(q, p)| q != me && seq.wrapping_sub(p.backed) >= k);
            if !ready || full {
                if full && !self.bstalled {
                    self.bstalled = true;
                    self.stats.bcast_stalls += 1;
                }
                return Ok(());
            }
            self.bstalled = false;
            let Some(si) = self.stage_free.pop() else {
                return Ok(());
            };
            let m = self.boutbox.pop_front().expect("not empty");
            self.btx_seq = seq.wrapping_add(1);
            let h = Header {
                kind: Kind::Bcast,
                seq,
                tag: m.tag,
                len: m.data.len() as u32,
                ack: 0,
                sreq: 0,
                addr: 0,
            };
            let at = si * self.layout.slot_bytes;
            let mut bytes = h.to_bytes();
            bytes.extend_from_slice(&m.data);
            self.card.device().mem_write(&self.stage, at, &bytes)?;
            let hi = (self.layout.nodes - 1) as u16;
            self.txq.push_back(TxOp {
                dest: hi << 8,
                flags: desc_flag::BCAST,
                src: TxSrc::Stage(si),
                remote: self.rx_bases[me] + self.layout.bslot_off(me, seq % k) as u64,
                len: bytes.len(),
                done: TxDone::FreeStage(si),
            });
            self.stats.bcast_sent += 1;
            let st = Status {
                src: self.me,
                tag: m.tag,
                len: m.data.len(),
                truncated: false,
            };
            self.finish(m.req, st, None);
        }
        Ok(())
    }

    /// Queues one hardware broadcast piece (`len` <= `short_max` bytes of the heap at
    /// `off`); the request finishes once it is staged for the card.
    fn bcast_inner(&mut self, tag: u32, off: usize, len: usize) -> Result<u64, MsgError> {
        let mut data = vec![0; len];
        self.card.read_rx(off, &mut data)?;
        let id = self.new_req(ReqState::BcastQueued { len });
        self.boutbox.push_back(OutBcast { tag, data, req: id });
        self.pump_bcast()?;
        self.flush_txq()?;
        Ok(id)
    }

    fn push_unexpected(&mut self, u: Unexpected) {
        self.unexpected.push_back(u);
        self.stats.unexpected += 1;
        self.stats.unexpected_max = self.stats.unexpected_max.max(self.unexpected.len());
    }

    fn match_posted(&mut self, src: u16, tag: u32) -> Option<u64> {
        let i = self.posted.iter().position(|id| match self.reqs.get(id) {
            Some(ReqState::RecvPosted { src: s, tag: t, .. }) => matches_recv(*s, *t, (src, tag)),
            _ => false,
        })?;
        self.posted.remove(i)
    }

    fn deliver_short(
        &mut self,
        id: u64,
        src: u16,
        tag: u32,
        mut data: Vec<u8>,
    ) -> Result<(), MsgError> {
        let Some(ReqState::RecvPosted { target, .. }) = self.reqs.get(&id) else {
            return Ok(());
        };
        let full = data.len();
        let n = full.min(target.cap());
        let owned = match *target {
            Target::Buf { off, .. } => {
                self.card.write_rx(off, &data[..n])?;
                None
            }
            Target::Owned { .. } => {
                data.truncate(n);
                Some(data)
            }
        };
        let st = Status {
            src,
            tag,
            len: n,
            truncated: n < full,
        };
        self.finish(id, st, owned);
        Ok(())
    }

    fn start_rdv_recv(
        &mut self,
        id: u64,
        src: u16,
        tag: u32,
        sreq: u32,
        full: usize,
    ) -> Result<(), MsgError> {
        let Some(ReqState::RecvPosted { target, .. }) = self.reqs.remove(&id) else {
            return Ok(());
        };
        let granted = full.min(target.cap());
        let off = match target {
            Target::Buf { off, .. } => off,
            Target::Owned { .. } => match self.heap.alloc(granted) {
                Some(off) => off,
                None => {
                    // Nothing is lost: the message waits for another receive.
                    self.unexpected.push_front(Unexpected::Req {
                        src,
                        tag,
                        sreq,
                        len: full,
                    });
                    self.reqs.insert(
                        id,
                        ReqState::Failed(MsgError::HeapExhausted {
                            len: granted,
                            free: self.heap.free_bytes(),
                        }),
                    );
                    return Ok(());
                }
            },
        };
        self.peers[usize::from(src)].outbox.push_back(OutMsg::Rsp {
            sreq,
            granted,
            addr: self.rx_iova + off as u64,
        });
        self.reqs.insert(
            id,
            ReqState::RecvRdv {
                src,
                tag,
                target,
                off,
                granted,
                full,
                got: 0,
            },
        );
        if granted == 0 {
            self.rdv_recv_done(id)?;
        } else {
            self.rdv_in.push(id);
        }
        self.pump(src)
    }

    fn on_data(&mut self, src: u16, off: usize, len: usize) {
        let hit = self.rdv_in.iter().position(|id| match self.reqs.get(id) {
            Some(ReqState::RecvRdv {
                src: s,
                off: o,
                granted,
                ..
            }) => *s == src && off >= *o && off + len <= *o + *granted,
            _ => false,
        });
        let Some(i) = hit else {
            self.stats.protocol_errors += 1;
            return;
        };
        let id = self.rdv_in[i];
        if let Some(ReqState::RecvRdv { got, granted, .. }) = self.reqs.get_mut(&id) {
            *got += len;
            if *got >= *granted {
                self.rdv_in.swap_remove(i);
                // Only fails on a device error, which the next progress reports again.
                let _ = self.rdv_recv_done(id);
            }
        }
    }

    fn rdv_recv_done(&mut self, id: u64) -> Result<(), MsgError> {
        let Some(ReqState::RecvRdv {
            src,
            tag,
            target,
            off,
            granted,
            full,
            ..
        }) = self.reqs.remove(&id)
        else {
            return Ok(());
        };
        let data = match target {
            Target::Buf { .. } => None,
            Target::Owned { .. } => {
                let mut v = vec![0u8; granted];
                let r = self.card.read_rx(off, &mut v);
                self.heap.free(off, granted);
                r?;
                Some(v)
            }
        };
        self.stats.rdv_recv += 1;
        if granted < full {
            self.stats.truncated += 1;
        }
        self.reqs.insert(
            id,
            ReqState::Done(
                Status {
                    src,
                    tag,
                    len: granted,
                    truncated: granted < full,
                },
                data,
            ),
        );
        Ok(())
    }

    fn on_rsp(&mut self, src: u16, h: &Header) {
        let Some(&id) = self.rdv_out.get(&h.sreq) else {
            self.stats.protocol_errors += 1;
            return;
        };
        let Some(ReqState::SendRdv {
            dest,
            len,
            off,
            granted,
            ..
        }) = self.reqs.get_mut(&id)
        else {
            self.stats.protocol_errors += 1;
            return;
        };
        let g = h.len as usize;
        if *dest != src || granted.is_some() || g > *len {
            self.stats.protocol_errors += 1;
            return;
        }
        *granted = Some(g);
        let off = *off;
        self.rdv_out.remove(&h.sreq);
        if g == 0 {
            self.send_data_done(id);
            return;
        }
        let chunk = MSG_LEN_MAX as usize;
        let mut at = 0;
        while at < g {
            let n = chunk.min(g - at);
            self.txq.push_back(TxOp {
                dest: src,
                flags: 0,
                src: TxSrc::Heap(off + at),
                remote: h.addr + at as u64,
                len: n,
                done: TxDone::SendData {
                    req: id,
                    last: at + n == g,
                },
            });
            at += n;
        }
    }

    fn send_data_done(&mut self, id: u64) {
        let Some(ReqState::SendRdv {
            tag,
            len,
            off,
            bounce,
            granted,
            ..
        }) = self.reqs.get(&id)
        else {
            return;
        };
        let (tag, len, off, bounce, g) = (*tag, *len, *off, *bounce, granted.unwrap_or(0));
        if bounce {
            self.heap.free(off, len);
        }
        self.stats.rdv_sent += 1;
        let st = Status {
            src: self.me,
            tag,
            len: g,
            truncated: g < len,
        };
        self.finish(id, st, None);
    }

    /// Moves slot messages for `dest` from its outbox to the card while credits and
    /// staging slots last.
    fn pump(&mut self, dest: u16) -> Result<(), MsgError> {
        let d = usize::from(dest);
        let k = self.layout.slots;
        loop {
            let p = &mut self.peers[d];
            if !p.ready || p.outbox.is_empty() {
                return Ok(());
            }
            if p.tx_seq.wrapping_sub(p.acked) >= k {
                if !p.stalled {
                    p.stalled = true;
                    self.stats.credit_stalls += 1;
                }
                return Ok(());
            }
            p.stalled = false;
            let Some(si) = self.stage_free.pop() else {
                return Ok(());
            };
            let msg = p.outbox.pop_front().expect("not empty");
            let seq = p.tx_seq;
            p.tx_seq = seq.wrapping_add(1);
            p.returned = p.consumed;
            let ack = p.consumed;
            let (h, payload, done_req) = match msg {
                OutMsg::Short { tag, data, req } => (
                    Header {
                        kind: Kind::Short,
                        seq,
                        tag,
                        len: data.len() as u32,
                        ack,
                        sreq: 0,
                        addr: 0,
                    },
                    data,
                    req,
                ),
                OutMsg::Req { tag, len, sreq } => (
                    Header {
                        kind: Kind::Req,
                        seq,
                        tag,
                        len: len as u32,
                        ack,
                        sreq,
                        addr: 0,
                    },
                    Vec::new(),
                    None,
                ),
                OutMsg::Rsp {
                    sreq,
                    granted,
                    addr,
                } => (
                    Header {
                        kind: Kind::Rsp,
                        seq,
                        tag: 0,
                        len: granted as u32,
                        ack,
                        sreq,
                        addr,
                    },
                    Vec::new(),
                    None,
                ),
            };
            let at = si * self.layout.slot_bytes;
            let mut bytes = h.to_bytes();
            bytes.extend_from_slice(&payload);
            self.card.device().mem_write(&self.stage, at, &bytes)?;
            self.txq.push_back(TxOp {
                dest,
                flags: 0,
                src: TxSrc::Stage(si),
                remote: self.rx_bases[d]
                    + self.layout.slot_off(usize::from(self.me), seq % k) as u64,
                len: bytes.len(),
                done: TxDone::FreeStage(si),
            });
            if let Some(id) = done_req {
                self.stats.short_sent += 1;
                let st = Status {
                    src: self.me,
                    tag: h.tag,
                    len: payload.len(),
                    truncated: false,
                };
                self.finish(id, st, None);
            }
        }
    }

    /// Tells `peer` how many of its messages we consumed when half their slots are owed
    /// and no message of ours is about to carry them: its unicast slots, or with `bcast`
    /// its broadcast slots (`peer` as root), each counted and returned on their own.
    fn return_credits(&mut self, peer: u16, bcast: bool) -> Result<(), MsgError> {
        let p = &mut self.peers[usize::from(peer)];
        let (count, returned, slots) = if bcast {
            (p.bconsumed, &mut p.breturned, self.layout.bslots)
        } else {
            (p.consumed, &mut p.returned, self.layout.slots)
        };
        let owed = count.wrapping_sub(*returned);
        if owed == 0 || owed < (slots / 2).max(1) {
            return Ok(());
        }
        *returned = count;
        let (src, stage, remote_off) = if bcast {
            (
                TxSrc::BcastCredit(peer),
                self.bcredit_src,
                self.layout.bcredit_off,
            )
        } else {
            (TxSrc::Credit(peer), self.credit_src, self.layout.credit_off)
        };
        let stage_off = stage + usize::from(peer) * 8;
        self.post_credit(peer, count, src, stage_off, remote_off)?;
        if bcast {
            self.stats.bcast_credit_msgs += 1;
        } else {
            self.stats.credit_msgs += 1;
        }
        Ok(())
    }

    /// Writes a credit count into its staging word (`stage_off`, what `src` names) and
    /// queues the 8-byte put of it into `peer`'s credit word for us, in the array at
    /// `remote_off` of its window. Unicast and broadcast credits both go this way.
    fn post_credit(
        &mut self,
        peer: u16,
        count: u32,
        src: TxSrc,
        stage_off: usize,
        remote_off: usize,
    ) -> Result<(), MsgError> {
        // The word may be rewritten before the card reads it: the count only grows, so
        // the peer gets the same or a newer value.
        self.card
            .device()
            .mem_write_u64(&self.stage, stage_off, u64::from(count))?;
        self.txq.push_back(TxOp {
            dest: peer,
            flags: 0,
            src,
            remote: self.rx_bases[usize::from(peer)]
                + (remote_off + usize::from(self.me) * 8) as u64,
            len: 8,
            done: TxDone::Nothing,
        });
        Ok(())
    }

    /// Posts queued puts in order until the LME ring is full.
    fn flush_txq(&mut self) -> Result<(), MsgError> {
        while let Some(op) = self.txq.front().copied() {
            let (buf, off) = match op.src {
                TxSrc::Stage(i) => (&self.stage, i * self.layout.slot_bytes),
                TxSrc::Heap(off) => (&self.rx_alias, off),
                TxSrc::Hello => (&self.stage, self.hello_src),
                TxSrc::Credit(p) => (&self.stage, self.credit_src + usize::from(p) * 8),
                TxSrc::BcastCredit(p) => (&self.stage, self.bcredit_src + usize::from(p) * 8),
            };
            let key = if op.flags & desc_flag::BCAST != 0 {
                self.bcast_key
            } else {
                self.keys[usize::from(op.dest)]
            };
            match self.card.put_keyed(
                PutPath::Auto,
                op.dest,
                buf,
                off,
                op.remote,
                key,
                op.len,
                op.flags,
            ) {
                Ok(t) => {
                    self.txq.pop_front();
                    self.inflight.insert(t.seq, op);
                }
                Err(DriverError::RingFull { .. }) => return Ok(()),
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }

    // ---- collectives ---------------------------------------------------------------

    fn coll_tag(&mut self, kind: u32) -> u32 {
        let t = COLL_TAG | kind | (self.coll_seq & 0x0FFF_FFFF);
        self.coll_seq = self.coll_seq.wrapping_add(1);
        t
    }

    /// Starts broadcasting `len` bytes of `buf` from `root` to `buf` on every node. Every
    /// node calls it, in the same order relative to other collectives.
    pub fn ibcast(&mut self, root: u16, buf: &MsgBuf, len: usize) -> Result<Request, MsgError> {
        self.check_node(root)?;
        let off = self.buf_range(buf, 0, len)?;
        let tag = self.coll_tag(0);
        let phases = coll::bcast_plan(
            self.bcast_backend(),
            self.me,
            root,
            self.layout.nodes,
            tag,
            (off, len),
            self.cfg.short_max,
        );
        Ok(self.start_coll(phases, root, len, "a broadcast"))
    }

    /// Starts a barrier: finishes on every node once every node has entered it.
    pub fn ibarrier(&mut self) -> Result<Request, MsgError> {
        let up = self.coll_tag(BARRIER_UP);
        let down = up & !BARRIER_UP | BARRIER_DOWN;
        let phases = coll::barrier_plan(self.bcast_backend(), self.me, self.layout.nodes, up, down);
        Ok(self.start_coll(phases, 0, 0, "a barrier"))
    }

    /// Broadcast, blocking (see [`Endpoint::ibcast`]).
    pub fn bcast(&mut self, root: u16, buf: &MsgBuf, len: usize) -> Result<Status, MsgError> {
        let r = self.ibcast(root, buf, len)?;
        self.wait(&r)
    }

    /// Barrier, blocking (see [`Endpoint::ibarrier`]).
    pub fn barrier(&mut self) -> Result<Status, MsgError> {
        let r = self.ibarrier()?;
        self.wait(&r)
    }

    fn start_coll(
        &mut self,
        phases: Vec<Vec<Step>>,
        root: u16,
        len: usize,
        what: &'static str,
    ) -> Request {
        let id = self.new_req(ReqState::Coll(Coll {
            phases: phases.into(),
            pending: Vec::new(),
            root,
            len,
            what,
        }));
        self.colls.push(id);
        Request { id }
    }

    fn step_colls(&mut self) -> Result<(), MsgError> {
        let mut i = 0;
        while i < self.colls.len() {
            let id = self.colls[i];
            let Some(ReqState::Coll(mut c)) = self.reqs.remove(&id) else {
                self.colls.remove(i);
                continue;
            };
            let result = self.step_coll(&mut c);
            match result {
                Ok(true) => {
                    self.colls.remove(i);
                    let st = Status {
                        src: c.root,
                        tag: 0,
                        len: c.len,
                        truncated: false,
                    };
                    self.reqs.insert(id, ReqState::Done(st, None));
                }
                Ok(false) => {
                    self.reqs.insert(id, ReqState::Coll(c));
                    i += 1;
                }
                Err(e) => {
                    self.colls.remove(i);
                    self.reqs.insert(id, ReqState::Failed(e));
                }
            }
        }
        Ok(())
    }

    /// Advances one collective; true when it has finished.
    fn step_coll(&mut self, c: &mut Coll) -> Result<bool, MsgError> {
        loop {
            let mut still = Vec::new();
            for &r in &c.pending {
                if self.take(r)?.is_none() {
                    still.push(r);
                }
            }
            c.pending = still;
            if !c.pending.is_empty() {
                return Ok(false);
            }
            let Some(phase) = c.phases.pop_front() else {
                return Ok(true);
            };
            for step in phase {
                let r = match step {
                    Step::Send {
                        dest,
                        tag,
                        off,
                        len,
                    } => self.send_inner(dest, tag, SendSrc::Heap(off, len))?,
                    Step::Recv { src, tag, target } => {
                        self.recv_inner(Source::Node(src), tag, target)?
                    }
                    Step::Bcast { tag, off, len } => self.bcast_inner(tag, off, len)?,
                };
                c.pending.push(r);
            }
        }
    }
}

impl<D: Device> Drop for Endpoint<D> {
    fn drop(&mut self) {
        // The card may still be reading staged messages: give it a bounded time to finish
        // so it never reads freed memory, then release the staging buffer (the card is
        // reset by its own drop).
        let start = self.card.device().now_ns();
        while self.card.outstanding() > 0
            && self.card.device().now_ns().saturating_sub(start) < DROP_DRAIN_NS
        {
            if self.card.poll_completions().is_err() {
                break;
            }
            self.card.device().relax(Pace::Step);
        }
        let stage = std::mem::replace(&mut self.stage, DmaBuffer::new(0, 0, 0));
        let _ = self.card.device().dma_free(stage);
    }
}

impl<D: Device> std::fmt::Debug for Endpoint<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("node", &self.me)
            .field("nodes", &self.layout.nodes)
            .field("pending_requests", &self.reqs.len())
            .field("unexpected", &self.unexpected.len())
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

enum SendSrc<'a> {
    Copy(&'a [u8]),
    Heap(usize, usize),
}

impl SendSrc<'_> {
    fn len(&self) -> usize {
        match *self {
            SendSrc::Copy(d) => d.len(),
            SendSrc::Heap(_, len) => len,
        }
    }
}

fn check_recv_tag(tag: u32) -> Result<(), MsgError> {
    if tag > TAG_MAX && tag != ANY_TAG {
        return Err(MsgError::BadTag { tag });
    }
    Ok(())
}

/// Whether a receive for (`want_src`, `want_tag`) takes a message (`src`, `tag`).
fn matches_recv(want_src: Source, want_tag: u32, (src, tag): (u16, u32)) -> bool {
    let src_ok = match want_src {
        Source::Any => true,
        Source::Node(n) => n == src,
    };
    let tag_ok = if want_tag == ANY_TAG {
        tag <= TAG_MAX
    } else {
        want_tag == tag
    };
    src_ok && tag_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_tag_never_matches_the_layers_own_tags() {
        assert!(matches_recv(Source::Any, ANY_TAG, (3, 7)));
        assert!(!matches_recv(Source::Any, ANY_TAG, (3, COLL_TAG | 1)));
        assert!(matches_recv(Source::Node(3), 7, (3, 7)));
        assert!(!matches_recv(Source::Node(2), 7, (3, 7)));
        assert!(!matches_recv(Source::Node(3), 8, (3, 7)));
    }

    #[test]
    fn config_limits() {
        assert!(MsgConfig::default().validate().is_ok());
        let bad = MsgConfig {
            slots_per_peer: 0,
            ..MsgConfig::default()
        };
        assert!(matches!(bad.validate(), Err(MsgError::BadConfig(_))));
    }
}
