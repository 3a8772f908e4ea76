// Generated from host/contract/contract.toml by host/contract/gen/contract_gen.py. Do not edit: run `make gen`.

// Field packing is emitted uniformly (shift by 0, cast to the same type) so every field reads alike.
#![allow(clippy::identity_op, clippy::unnecessary_cast, clippy::unreadable_literal)]

/// Contract version, major in the high 16 bits.
pub const CONTRACT_VERSION: u32 = 0x00010008;
/// Value of the ID register: ASCII 'FSHL'.
pub const ID_MAGIC: u32 = 0x4653484c;
/// Width of a node id.
pub const NODE_W: u32 = 0x10;
/// The sender's answer timer ticks every 2^REL_TICK_LOG2 core cycles (REL_TIMEOUT).
pub const REL_TICK_LOG2: u64 = 0x8;
/// TX_QUANTUM at reset: log2 of the bytes of one message sent before the TX serves the next context (4 KiB).
pub const TX_QUANTUM_RESET: u64 = 0xc;
/// Largest payload of one packet, bytes. A multiple of 8.
pub const MTU_MAX: u64 = 0x400;
/// Largest message a descriptor may carry, bytes (16 MiB).
pub const MSG_LEN_MAX: u64 = 0x1000000;
/// Largest LME/LMR ring, entries.
pub const RING_SIZE_MAX: u64 = 0x1000;
/// Largest inline payload of a pushed descriptor, bytes: 8 in the local_addr field, the rest in PUSH_DATA.
pub const INLINE_MAX: u64 = 0x40;
/// Largest inline payload of a descriptor read from the LME ring (it fits the local_addr field).
pub const INLINE_RING_MAX: u64 = 0x8;
/// Largest DMA read request, 8-byte beats (256 bytes).
pub const DMA_RD_BEATS_MAX: u64 = 0x20;
/// Interval routing entries per router input.
pub const ROUTE_ENTRIES: u64 = 0x8;
/// Broadcast ranges encode node ids in 8 bits: a broadcast reaches only nodes 0..BCAST_NODES-1.
pub const BCAST_NODES: u64 = 0x100;
/// Largest payload of one broadcast packet, bytes: the NIC cuts broadcasts into packets of at most this much (and at most MTU), so a broadcast packet is at most BCAST_PKT_FLITS flits.
pub const BCAST_MTU: u64 = 0x40;
/// Largest broadcast packet, flits (3 header + 9 payload for 64 bytes at any alignment + 1 trailer). A router starts a broadcast only when every output of its set has this many credits, so a started broadcast never stalls (router input buffers must hold at least this many flits).
pub const BCAST_PKT_FLITS: u64 = 0xd;
/// Ports of one router.
pub const ROUTER_PORTS: u64 = 0x8;
/// Reset value of the router's stall timeout RT_TMO_CYCLES: long enough that only a packet whose sender lost its end (or died) is cut off.
pub const RT_TMO_CYCLES_RESET: u64 = 0x1000;
/// BAR0 offset of the local router's CSR page on a card (NIC + router).
pub const ROUTER_CSR_BASE: u64 = 0x1000;
/// User-level contexts of a NIC: LME/LMR ring pairs, each with its own register page (ctx registers). Context n's page is CTX_PAGE_BASE + n * CTX_PAGE_STRIDE; page 0's ring registers are context 0's.
pub const CTX_COUNT: u64 = 0x8;
/// BAR0 offset of context 0's register page.
pub const CTX_PAGE_BASE: u64 = 0x2000;
/// Bytes between two context pages: one 4 KiB page each, so a process maps only its own.
pub const CTX_PAGE_STRIDE: u64 = 0x1000;
/// Size of BAR0, bytes: page 0 the NIC, page 1 the router, then the CTX_COUNT context pages; a power of two, as a PCI BAR's size is. Offsets past the last context page are undefined (CSR_BAD_ADDR).
pub const BAR0_SIZE: u64 = 0x10000;
/// PCI vendor id the card enumerates with (to be assigned; see docs/HARDWARE.md).
pub const PCI_VENDOR_ID: u64 = 0x1ed5;
/// PCI device id of the FastHSL card.
pub const PCI_DEVICE_ID: u64 = 0x4853;
/// MSI vectors the card requests (one: the NIC's interrupt line, INT_STATUS says why).
pub const MSI_VECTORS: u64 = 0x1;

/// Completion error code a descriptor (LME status) or an LMR entry carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum DescErr {
    /// Done without error.
    Ok = 0,
    /// Descriptor length is 0; no DMA issued.
    ZeroLen = 1,
    /// Descriptor length above MSG_LEN_MAX; no DMA issued.
    LenTooBig = 2,
    /// Destination outside DEST_RANGE (the routing tables); no DMA issued.
    BadDest = 3,
    /// DESC_FLAG_INLINE with a length above INLINE_MAX (pushed) or INLINE_RING_MAX (from the ring); nothing sent.
    InlineLen = 4,
    /// REL_CTRL.SENDER_WAIT: the message left but was not acknowledged: its receiver gave it up (NACK) or no answer came within REL_TIMEOUT (a receiver with REL_CTRL.ACK_OFF never answers). The receiver may or may not have all of it (docs/RELIABILITY.md).
    RetryExhausted = 5,
    /// Descriptor word 1 bits 63:51 are not zero: a remote address at or above 2^48 (e.g. from a driver of contract 1.4 or older, where remote_addr had 64 bits); nothing sent.
    AddrRange = 11,
    /// A payload DMA read was answered with an error (IOMMU refusal, PCIe completion with UR/CA status). The packet it fell in was ended with EEP (the receiver drops it as malformed) and nothing later of the message was sent; earlier packets may have landed, but the message never gets an LMR entry.
    DmaRd = 10,
    /// DESC_FLAG_BCAST with a range lo > hi, hi >= BCAST_NODES, or outside DEST_RANGE; nothing sent.
    BcastRange = 15,
    /// The receiver refused the message's packets (receive window table: no valid window for the key, key mismatch, outside the window, no permission; or outside its RXWIN). Nothing of a refused packet was written; retransmitting cannot help. Reported to the sender by the receiver's NACK_REJECT (docs/WINDOWS.md).
    Rejected = 16,
}

impl DescErr {
    /// Every value, in code order.
    pub const ALL: [DescErr; 10] = [DescErr::Ok, DescErr::ZeroLen, DescErr::LenTooBig, DescErr::BadDest, DescErr::InlineLen, DescErr::RetryExhausted, DescErr::AddrRange, DescErr::DmaRd, DescErr::BcastRange, DescErr::Rejected];

    /// Decodes a wire value; `None` for codes the contract does not define.
    pub fn from_code(code: u8) -> Option<Self> {
        match code {
            0 => Some(DescErr::Ok),
            1 => Some(DescErr::ZeroLen),
            2 => Some(DescErr::LenTooBig),
            3 => Some(DescErr::BadDest),
            4 => Some(DescErr::InlineLen),
            5 => Some(DescErr::RetryExhausted),
            11 => Some(DescErr::AddrRange),
            10 => Some(DescErr::DmaRd),
            15 => Some(DescErr::BcastRange),
            16 => Some(DescErr::Rejected),
            _ => None,
        }
    }

    /// What the code means, from the contract.
    pub fn describe(self) -> &'static str {
        match self {
            DescErr::Ok => "Done without error.",
            DescErr::ZeroLen => "Descriptor length is 0; no DMA issued.",
            DescErr::LenTooBig => "Descriptor length above MSG_LEN_MAX; no DMA issued.",
            DescErr::BadDest => "Destination outside DEST_RANGE (the routing tables); no DMA issued.",
            DescErr::InlineLen => "DESC_FLAG_INLINE with a length above INLINE_MAX (pushed) or INLINE_RING_MAX (from the ring); nothing sent.",
            DescErr::RetryExhausted => "REL_CTRL.SENDER_WAIT: the message left but was not acknowledged: its receiver gave it up (NACK) or no answer came within REL_TIMEOUT (a receiver with REL_CTRL.ACK_OFF never answers). The receiver may or may not have all of it (docs/RELIABILITY.md).",
            DescErr::AddrRange => "Descriptor word 1 bits 63:51 are not zero: a remote address at or above 2^48 (e.g. from a driver of contract 1.4 or older, where remote_addr had 64 bits); nothing sent.",
            DescErr::DmaRd => "A payload DMA read was answered with an error (IOMMU refusal, PCIe completion with UR/CA status). The packet it fell in was ended with EEP (the receiver drops it as malformed) and nothing later of the message was sent; earlier packets may have landed, but the message never gets an LMR entry.",
            DescErr::BcastRange => "DESC_FLAG_BCAST with a range lo > hi, hi >= BCAST_NODES, or outside DEST_RANGE; nothing sent.",
            DescErr::Rejected => "The receiver refused the message's packets (receive window table: no valid window for the key, key mismatch, outside the window, no permission; or outside its RXWIN). Nothing of a refused packet was written; retransmitting cannot help. Reported to the sender by the receiver's NACK_REJECT (docs/WINDOWS.md).",
        }
    }
}

/// Why the receiver refused a packet (WIN_REJ_INFO.reason). Checked in this order; the first failing check names the reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum WinRej {
    /// No refusal logged.
    None = 0,
    /// Target range outside the outer receive window RXWIN (counted in CNT_RX_DROP_WINDOW).
    Rxwin = 1,
    /// WIN_CFG.ENFORCE is set and window key[3:0] is not valid (counted in CNT_RX_REJECT_KEY).
    Invalid = 2,
    /// The window's tag differs from key[15:4] (counted in CNT_RX_REJECT_KEY).
    Key = 3,
    /// The packet's destination context is not the window's owner (counted in CNT_RX_REJECT_KEY).
    Ctx = 4,
    /// The window does not allow this packet type: WRITE without win_ctrl.write, BCAST without win_ctrl.bcast (counted in CNT_RX_REJECT_PERM).
    Perm = 5,
    /// [remote_addr, remote_addr + len) not inside [base, base + len) of the window (counted in CNT_RX_REJECT_RANGE).
    Range = 6,
}

impl WinRej {
    /// Every value, in code order.
    pub const ALL: [WinRej; 7] = [WinRej::None, WinRej::Rxwin, WinRej::Invalid, WinRej::Key, WinRej::Ctx, WinRej::Perm, WinRej::Range];

    /// Decodes a wire value; `None` for codes the contract does not define.
    pub fn from_code(code: u8) -> Option<Self> {
        match code {
            0 => Some(WinRej::None),
            1 => Some(WinRej::Rxwin),
            2 => Some(WinRej::Invalid),
            3 => Some(WinRej::Key),
            4 => Some(WinRej::Ctx),
            5 => Some(WinRej::Perm),
            6 => Some(WinRej::Range),
            _ => None,
        }
    }

    /// What the code means, from the contract.
    pub fn describe(self) -> &'static str {
        match self {
            WinRej::None => "No refusal logged.",
            WinRej::Rxwin => "Target range outside the outer receive window RXWIN (counted in CNT_RX_DROP_WINDOW).",
            WinRej::Invalid => "WIN_CFG.ENFORCE is set and window key[3:0] is not valid (counted in CNT_RX_REJECT_KEY).",
            WinRej::Key => "The window's tag differs from key[15:4] (counted in CNT_RX_REJECT_KEY).",
            WinRej::Ctx => "The packet's destination context is not the window's owner (counted in CNT_RX_REJECT_KEY).",
            WinRej::Perm => "The window does not allow this packet type: WRITE without win_ctrl.write, BCAST without win_ctrl.bcast (counted in CNT_RX_REJECT_PERM).",
            WinRej::Range => "[remote_addr, remote_addr + len) not inside [base, base + len) of the window (counted in CNT_RX_REJECT_RANGE).",
        }
    }
}

/// Packet type (header word 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Ptype {
    /// Remote write: payload lands at remote_addr.
    Write = 0,
    /// End-to-end acknowledgement of message msg_id (header only, len 0): every byte of it landed at node src. Sent by the receiving NIC when a unicast message completes, unless REL_CTRL.ACK_OFF (docs/RELIABILITY.md).
    Ack = 1,
    /// Message msg_id did not complete at node src (lost or incomplete packets): the sender may retransmit it. Header only, len 0. Sent when the receiver's completion tracker gives the message up (its entry taken by a new message, or bytes counted twice).
    Nack = 2,
    /// Message msg_id was refused by node src's receive window/key check: retransmitting cannot help. Header only, len 0. The receiving NIC's reject input (for the window/key check) sends it.
    NackReject = 3,
    /// Broadcast remote write: dest holds a node range (lo in bits 7:0, hi in bits 15:8); routers replicate it along the broadcast tree, every NIC in the range (the sender excepted) writes it at remote_addr and appends its own LMR entry.
    Bcast = 4,
}

impl Ptype {
    /// Every value, in code order.
    pub const ALL: [Ptype; 5] = [Ptype::Write, Ptype::Ack, Ptype::Nack, Ptype::NackReject, Ptype::Bcast];

    /// Decodes a wire value; `None` for codes the contract does not define.
    pub fn from_code(code: u8) -> Option<Self> {
        match code {
            0 => Some(Ptype::Write),
            1 => Some(Ptype::Ack),
            2 => Some(Ptype::Nack),
            3 => Some(Ptype::NackReject),
            4 => Some(Ptype::Bcast),
            _ => None,
        }
    }

    /// What the code means, from the contract.
    pub fn describe(self) -> &'static str {
        match self {
            Ptype::Write => "Remote write: payload lands at remote_addr.",
            Ptype::Ack => "End-to-end acknowledgement of message msg_id (header only, len 0): every byte of it landed at node src. Sent by the receiving NIC when a unicast message completes, unless REL_CTRL.ACK_OFF (docs/RELIABILITY.md).",
            Ptype::Nack => "Message msg_id did not complete at node src (lost or incomplete packets): the sender may retransmit it. Header only, len 0. Sent when the receiver's completion tracker gives the message up (its entry taken by a new message, or bytes counted twice).",
            Ptype::NackReject => "Message msg_id was refused by node src's receive window/key check: retransmitting cannot help. Header only, len 0. The receiving NIC's reject input (for the window/key check) sends it.",
            Ptype::Bcast => "Broadcast remote write: dest holds a node range (lo in bits 7:0, hi in bits 15:8); routers replicate it along the broadcast tree, every NIC in the range (the sender excepted) writes it at remote_addr and appends its own LMR entry.",
        }
    }
}

/// Descriptor flags (lme_desc.flags, copied into packets and LMR entries).
pub mod desc_flag {
    /// Interrupt the sender (INT_STATUS.LME_DONE) when the descriptor completes.
    pub const IRQ_LOCAL: u16 = 1 << 0;
    /// Interrupt the receiver (INT_STATUS.LMR_NEW) when the LMR entry is written.
    pub const IRQ_REMOTE: u16 = 1 << 1;
    /// Broadcast: dest is a node range lo | hi << 8 (node ids < BCAST_NODES); the packets are sent once as ptype BCAST and replicated by the routers. The sender does not receive its own broadcast. Completes when the packets have left (no acknowledgement).
    pub const BCAST: u16 = 1 << 2;
    /// Adaptive routing: routers may send this message's packets to any output of their table entry's amask when the entry's port is busy. Packets of one message may then arrive out of order (the receiver completes by byte count).
    pub const ADAPTIVE: u16 = 1 << 3;
    /// The payload is in the descriptor, not at local_addr: bytes 0..7 in the local_addr field (little-endian), bytes 8..63 of a pushed descriptor in PUSH_DATA. No payload DMA read. Bits 4..15 are local to the sender: they do not travel (packets carry the low 4 flag bits since contract 1.7).
    pub const INLINE: u16 = 1 << 8;
    /// Every defined bit.
    pub const ALL: u16 = IRQ_LOCAL | IRQ_REMOTE | BCAST | ADAPTIVE | INLINE;

    /// Names of the defined bits set in `value`, lowest first.
    pub fn names(value: u16) -> Vec<&'static str> {
        const NAMES: [(u16, &str); 5] = [(IRQ_LOCAL, "IRQ_LOCAL"), (IRQ_REMOTE, "IRQ_REMOTE"), (BCAST, "BCAST"), (ADAPTIVE, "ADAPTIVE"), (INLINE, "INLINE")];
        NAMES.iter().filter(|(bit, _)| value & bit != 0).map(|&(_, name)| name).collect()
    }
}

/// Status word bits (lme_desc.status, lmr_entry.status); low 8 bits are a desc_err code.
pub mod status {
    /// Set by the NIC when the entry is final.
    pub const DONE: u16 = 1 << 15;
    /// Every defined bit.
    pub const ALL: u16 = DONE;

    /// Names of the defined bits set in `value`, lowest first.
    pub fn names(value: u16) -> Vec<&'static str> {
        const NAMES: [(u16, &str); 1] = [(DONE, "DONE")];
        NAMES.iter().filter(|(bit, _)| value & bit != 0).map(|&(_, name)| name).collect()
    }
}

/// NIC CTRL register bits.
pub mod ctrl {
    /// Process the LME ring and accept packets.
    pub const ENABLE: u32 = 1 << 0;
    /// Every defined bit.
    pub const ALL: u32 = ENABLE;

    /// Names of the defined bits set in `value`, lowest first.
    pub fn names(value: u32) -> Vec<&'static str> {
        const NAMES: [(u32, &str); 1] = [(ENABLE, "ENABLE")];
        NAMES.iter().filter(|(bit, _)| value & bit != 0).map(|&(_, name)| name).collect()
    }
}

/// NIC REL_CTRL register bits (end-to-end reliability, docs/RELIABILITY.md).
pub mod rel_ctrl {
    /// The receiver sends no ACK/NACK answers (the behaviour before contract 1.5), for comparison. Answers arriving are still taken.
    pub const ACK_OFF: u32 = 1 << 0;
    /// A unicast message's descriptor completes only when its receiver answers: OK on ACK, REJECTED on NACK_REJECT, RETRY_EXHAUSTED on NACK or after REL_TIMEOUT without an answer. Clear (reset): it completes when its last packet has left the NIC. Broadcasts never wait. Contract 1.6.
    pub const SENDER_WAIT: u32 = 1 << 1;
    /// The receiver drops duplicates by (src, seq) (ddc_rx_seq_window, CNT_RX_DUP) and acknowledges a duplicate's last packet again; needs senders that number their messages (contract 1.7 senders). Sources are remembered REL_TIMEOUT * (REL_RETRIES + 2) ticks after their last packet (this card's own settings: all cards are configured alike). Clear (reset): no duplicate check. Contract 1.7.
    pub const DEDUP: u32 = 1 << 2;
    /// The receiver answers NACK as soon as the last packet of a unicast message without DESC_FLAG_ADAPTIVE arrives and bytes of the message are still missing (deterministic routes deliver a message's packets in order, so the missing ones were lost), instead of when its tracker gives the message up. Counted in CNT_RX_EARLY_NACK. Contract 1.8.
    pub const EARLY_NACK: u32 = 1 << 3;
    /// Every defined bit.
    pub const ALL: u32 = ACK_OFF | SENDER_WAIT | DEDUP | EARLY_NACK;

    /// Names of the defined bits set in `value`, lowest first.
    pub fn names(value: u32) -> Vec<&'static str> {
        const NAMES: [(u32, &str); 4] = [(ACK_OFF, "ACK_OFF"), (SENDER_WAIT, "SENDER_WAIT"), (DEDUP, "DEDUP"), (EARLY_NACK, "EARLY_NACK")];
        NAMES.iter().filter(|(bit, _)| value & bit != 0).map(|&(_, name)| name).collect()
    }
}

/// INT_STATUS / INT_MASK bits.
pub mod int {
    /// A descriptor with DESC_FLAG_IRQ_LOCAL completed.
    pub const LME_DONE: u32 = 1 << 0;
    /// An LMR entry with DESC_FLAG_IRQ_REMOTE was written.
    pub const LMR_NEW: u32 = 1 << 1;
    /// ERR_STATUS is non-zero.
    pub const ERROR: u32 = 1 << 2;
    /// Bit 8+n: a descriptor of context n (1..7) with DESC_FLAG_IRQ_LOCAL completed; not coalesced (LME_DONE counts it too). Bit 8 stays 0: context 0 has only LME_DONE.
    pub const CTX_LME_DONE: u32 = 0xff << 8;
    /// Bit 16+n: an LMR entry of context n (1..7) for a message with DESC_FLAG_IRQ_REMOTE was written; not coalesced (LMR_NEW counts it too). Bit 16 stays 0: context 0 has only LMR_NEW.
    pub const CTX_LMR_NEW: u32 = 0xff << 16;
    /// Every defined bit.
    pub const ALL: u32 = LME_DONE | LMR_NEW | ERROR | CTX_LME_DONE | CTX_LMR_NEW;

    /// Names of the defined bits set in `value`, lowest first.
    pub fn names(value: u32) -> Vec<&'static str> {
        const NAMES: [(u32, &str); 5] = [(LME_DONE, "LME_DONE"), (LMR_NEW, "LMR_NEW"), (ERROR, "ERROR"), (CTX_LME_DONE, "CTX_LME_DONE"), (CTX_LMR_NEW, "CTX_LMR_NEW")];
        NAMES.iter().filter(|(bit, _)| value & bit != 0).map(|&(_, name)| name).collect()
    }
}

/// ERR_STATUS bits (sticky, write 1 to clear).
pub mod err {
    /// Access to an undefined offset, or a write to a read-only register.
    pub const CSR_BAD_ADDR: u32 = 1 << 0;
    /// A register write with a value the card refuses.
    pub const CSR_BAD_VALUE: u32 = 1 << 1;
    /// LME_PROD written with an index >= LME_SIZE.
    pub const LME_PROD_RANGE: u32 = 1 << 2;
    /// LMR_CONS written with an index >= LMR_SIZE.
    pub const LMR_CONS_RANGE: u32 = 1 << 3;
    /// A descriptor completed with an error code.
    pub const DESC_ERROR: u32 = 1 << 4;
    /// An incoming packet was dropped.
    pub const RX_DROP: u32 = 1 << 5;
    /// A push doorbell (PUSH_DESC[7]) was applied as a plain LME_PROD doorbell: push path busy, push window incomplete, or not exactly one new descriptor. The ring copy is fetched instead.
    pub const PUSH_REJECT: u32 = 1 << 6;
    /// An incoming packet was refused by the receive window table (CNT_RX_REJECT_*; first one logged in WIN_REJ_*).
    pub const WIN_REJECT: u32 = 1 << 16;
    /// Every defined bit.
    pub const ALL: u32 = CSR_BAD_ADDR | CSR_BAD_VALUE | LME_PROD_RANGE | LMR_CONS_RANGE | DESC_ERROR | RX_DROP | PUSH_REJECT | WIN_REJECT;

    /// Names of the defined bits set in `value`, lowest first.
    pub fn names(value: u32) -> Vec<&'static str> {
        const NAMES: [(u32, &str); 8] = [(CSR_BAD_ADDR, "CSR_BAD_ADDR"), (CSR_BAD_VALUE, "CSR_BAD_VALUE"), (LME_PROD_RANGE, "LME_PROD_RANGE"), (LMR_CONS_RANGE, "LMR_CONS_RANGE"), (DESC_ERROR, "DESC_ERROR"), (RX_DROP, "RX_DROP"), (PUSH_REJECT, "PUSH_REJECT"), (WIN_REJECT, "WIN_REJECT")];
        NAMES.iter().filter(|(bit, _)| value & bit != 0).map(|&(_, name)| name).collect()
    }
}

/// WIN_CFG register bits.
pub mod win_cfg {
    /// Every WRITE and BCAST packet must match a valid window of the table (and still lie inside RXWIN). Clear (reset): only RXWIN is checked and keys are ignored.
    pub const ENFORCE: u32 = 1 << 0;
    /// Every defined bit.
    pub const ALL: u32 = ENFORCE;

    /// Names of the defined bits set in `value`, lowest first.
    pub fn names(value: u32) -> Vec<&'static str> {
        const NAMES: [(u32, &str); 1] = [(ENFORCE, "ENFORCE")];
        NAMES.iter().filter(|(bit, _)| value & bit != 0).map(|&(_, name)| name).collect()
    }
}

/// PUSH_STATUS register bits.
pub mod push {
    /// The push path holds no descriptor: the next push doorbell will be taken (if the window is complete and it adds exactly one descriptor).
    pub const FREE: u32 = 1 << 0;
    /// Every defined bit.
    pub const ALL: u32 = FREE;

    /// Names of the defined bits set in `value`, lowest first.
    pub fn names(value: u32) -> Vec<&'static str> {
        const NAMES: [(u32, &str); 1] = [(FREE, "FREE")];
        NAMES.iter().filter(|(bit, _)| value & bit != 0).map(|&(_, name)| name).collect()
    }
}

/// LME ring entry (send descriptor), written by the driver, read by the NIC. Status written back by the NIC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LmeDesc {
    /// Bus address of the source buffer (any alignment).
    pub local_addr: u64,
    /// Bus address on the destination node (any alignment), below 2^48.
    pub remote_addr: u64,
    /// Destination context: the receiver appends the LMR entry to this context's LMR ring (CTX_COUNT contexts). Bits 63:51 of the word must be zero (ADDR_RANGE).
    pub dctx: u8,
    /// Bytes, 1..MSG_LEN_MAX.
    pub len: u32,
    /// Destination node id.
    pub dest: u16,
    /// DESC_FLAG_* bits.
    pub flags: u16,
    /// Driver-chosen id, delivered in the receiver's LMR entry.
    pub msg_id: u32,
    /// 0 when posted; the NIC writes STATUS_DONE | error code when finished.
    pub status: u16,
    /// Receive window key on the destination (0 when the receiver enforces no windows); copied into every packet header. Pushed descriptors carry it in the trigger's bits 31:16 (PUSH_DESC).
    pub key: u16,
}

impl LmeDesc {
    /// Words in the format.
    pub const WORDS: usize = 4;
    /// Bytes in memory.
    pub const BYTES: usize = 32;

    /// Packs into words (reserved bits zero).
    pub fn to_words(&self) -> [u64; 4] {
        let mut w = [0 as u64; 4];
        w[0] |= self.local_addr as u64;
        w[1] |= ((self.remote_addr as u64) & 0xffffffffffff) << 0;
        w[1] |= ((self.dctx as u64) & 0x7) << 48;
        w[2] |= ((self.len as u64) & 0xffffffff) << 0;
        w[2] |= ((self.dest as u64) & 0xffff) << 32;
        w[2] |= ((self.flags as u64) & 0xffff) << 48;
        w[3] |= ((self.msg_id as u64) & 0xffffffff) << 0;
        w[3] |= ((self.status as u64) & 0xffff) << 32;
        w[3] |= ((self.key as u64) & 0xffff) << 48;
        w
    }

    /// Unpacks from words (reserved bits ignored).
    pub fn from_words(w: &[u64; 4]) -> Self {
        Self {
            local_addr: w[0] as u64,
            remote_addr: ((w[1] >> 0) & 0xffffffffffff) as u64,
            dctx: ((w[1] >> 48) & 0x7) as u8,
            len: ((w[2] >> 0) & 0xffffffff) as u32,
            dest: ((w[2] >> 32) & 0xffff) as u16,
            flags: ((w[2] >> 48) & 0xffff) as u16,
            msg_id: ((w[3] >> 0) & 0xffffffff) as u32,
            status: ((w[3] >> 32) & 0xffff) as u16,
            key: ((w[3] >> 48) & 0xffff) as u16,
        }
    }

    /// Little-endian bytes, as in host memory.
    pub fn to_bytes(&self) -> [u8; 32] {
        let mut b = [0u8; 32];
        for (i, w) in self.to_words().iter().enumerate() {
            b[i * 8..(i + 1) * 8].copy_from_slice(&w.to_le_bytes());
        }
        b
    }

    /// From little-endian bytes, as in host memory.
    pub fn from_bytes(b: &[u8; 32]) -> Self {
        let mut w = [0 as u64; 4];
        for (i, word) in w.iter_mut().enumerate() {
            let mut le = [0u8; 8];
            le.copy_from_slice(&b[i * 8..(i + 1) * 8]);
            *word = u64::from_le_bytes(le);
        }
        Self::from_words(&w)
    }
}

/// LMR ring entry, written by the receiving NIC after the last packet of a message landed. Word 0 is written last, so a set STATUS_DONE means the entry is complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LmrEntry {
    /// Source node id.
    pub src: u16,
    /// STATUS_DONE | error code.
    pub status: u16,
    /// The sender descriptor's msg_id.
    pub msg_id: u32,
    /// Remote address of the message's first byte.
    pub addr: u64,
    /// Message length, bytes.
    pub len: u32,
    /// The descriptor's flags.
    pub flags: u16,
}

impl LmrEntry {
    /// Words in the format.
    pub const WORDS: usize = 4;
    /// Bytes in memory.
    pub const BYTES: usize = 32;

    /// Packs into words (reserved bits zero).
    pub fn to_words(&self) -> [u64; 4] {
        let mut w = [0 as u64; 4];
        w[0] |= ((self.src as u64) & 0xffff) << 0;
        w[0] |= ((self.status as u64) & 0xffff) << 16;
        w[0] |= ((self.msg_id as u64) & 0xffffffff) << 32;
        w[1] |= self.addr as u64;
        w[2] |= ((self.len as u64) & 0xffffffff) << 0;
        w[2] |= ((self.flags as u64) & 0xffff) << 32;
        w
    }

    /// Unpacks from words (reserved bits ignored).
    pub fn from_words(w: &[u64; 4]) -> Self {
        Self {
            src: ((w[0] >> 0) & 0xffff) as u16,
            status: ((w[0] >> 16) & 0xffff) as u16,
            msg_id: ((w[0] >> 32) & 0xffffffff) as u32,
            addr: w[1] as u64,
            len: ((w[2] >> 0) & 0xffffffff) as u32,
            flags: ((w[2] >> 32) & 0xffff) as u16,
        }
    }

    /// Little-endian bytes, as in host memory.
    pub fn to_bytes(&self) -> [u8; 32] {
        let mut b = [0u8; 32];
        for (i, w) in self.to_words().iter().enumerate() {
            b[i * 8..(i + 1) * 8].copy_from_slice(&w.to_le_bytes());
        }
        b
    }

    /// From little-endian bytes, as in host memory.
    pub fn from_bytes(b: &[u8; 32]) -> Self {
        let mut w = [0 as u64; 4];
        for (i, word) in w.iter_mut().enumerate() {
            let mut le = [0u8; 8];
            le.copy_from_slice(&b[i * 8..(i + 1) * 8]);
            *word = u64::from_le_bytes(le);
        }
        Self::from_words(&w)
    }
}

/// Packet header: the first three flits of every packet. Self-describing, so packets may arrive in any order (the receiver counts a message's bytes to see it complete). Payload flits follow, their byte lanes aligned to remote_addr (lane = address mod 8; unused lanes zero), then one trailer flit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PktHdr {
    /// Destination node id: the field routers route on.
    pub dest: u16,
    /// Source node id.
    pub src: u16,
    /// Packet type (ptype enum).
    pub ptype: u8,
    /// First packet of its message.
    pub first: bool,
    /// Last packet of its message.
    pub last: bool,
    /// Transmission attempt of the message, modulo 4: 0 the first, n the n-th retransmission (REL_RETRIES). The receiver restarts a message's byte count when a packet of another attempt arrives, so a retransmitted message is counted once. Contract 1.7.
    pub attempt: u8,
    /// The descriptor's flags (low 4 bits: IRQ_LOCAL, IRQ_REMOTE, BCAST, ADAPTIVE). Contract 1.7 (8 bits before).
    pub flags: u8,
    /// seq minus the sender's lowest sequence number to this destination not yet final (neither acknowledged nor given up), 0..15: every message to this destination numbered below seq - lag is final at the sender, so the receiver may forget it (docs/RELIABILITY.md). 0 in broadcasts. Contract 1.7.
    pub lag: u8,
    /// Payload bytes in this packet, 1..MTU_MAX.
    pub len: u16,
    /// Destination context (the descriptor's dctx): whose LMR ring gets the message's entry.
    pub dctx: u8,
    /// Destination address of this packet's first payload byte (the descriptor's remote_addr, bits 47:0).
    pub remote_addr: u64,
    /// Receive window key (descriptor key): bits 3:0 select the receiver's window, bits 15:4 must equal its tag (docs/WINDOWS.md).
    pub key: u16,
    /// Message id (descriptor msg_id).
    pub msg_id: u32,
    /// Byte offset of this packet's first payload byte in its message (below MSG_LEN_MAX). Contract 1.7 (32 bits before).
    pub offset: u32,
    /// Sequence number of the message among this sender's unicast messages to this destination, modulo 256, contiguous: the receiver's duplicate filter (ddc_rx_seq_window) keys on (src, seq). 0 in broadcasts. Contract 1.7.
    pub seq: u8,
}

impl PktHdr {
    /// Words in the format.
    pub const WORDS: usize = 3;
    /// Bytes in memory.
    pub const BYTES: usize = 24;

    /// Packs into words (reserved bits zero).
    pub fn to_words(&self) -> [u64; 3] {
        let mut w = [0 as u64; 3];
        w[0] |= ((self.dest as u64) & 0xffff) << 0;
        w[0] |= ((self.src as u64) & 0xffff) << 16;
        w[0] |= ((self.ptype as u64) & 0xf) << 32;
        w[0] |= ((self.first as u64) & 0x1) << 36;
        w[0] |= ((self.last as u64) & 0x1) << 37;
        w[0] |= ((self.attempt as u64) & 0x3) << 38;
        w[0] |= ((self.flags as u64) & 0xf) << 40;
        w[0] |= ((self.lag as u64) & 0xf) << 44;
        w[0] |= ((self.len as u64) & 0x7ff) << 48;
        w[0] |= ((self.dctx as u64) & 0x7) << 59;
        w[1] |= ((self.remote_addr as u64) & 0xffffffffffff) << 0;
        w[1] |= ((self.key as u64) & 0xffff) << 48;
        w[2] |= ((self.msg_id as u64) & 0xffffffff) << 0;
        w[2] |= ((self.offset as u64) & 0xffffff) << 32;
        w[2] |= ((self.seq as u64) & 0xff) << 56;
        w
    }

    /// Unpacks from words (reserved bits ignored).
    pub fn from_words(w: &[u64; 3]) -> Self {
        Self {
            dest: ((w[0] >> 0) & 0xffff) as u16,
            src: ((w[0] >> 16) & 0xffff) as u16,
            ptype: ((w[0] >> 32) & 0xf) as u8,
            first: (w[0] >> 36) & 1 == 1,
            last: (w[0] >> 37) & 1 == 1,
            attempt: ((w[0] >> 38) & 0x3) as u8,
            flags: ((w[0] >> 40) & 0xf) as u8,
            lag: ((w[0] >> 44) & 0xf) as u8,
            len: ((w[0] >> 48) & 0x7ff) as u16,
            dctx: ((w[0] >> 59) & 0x7) as u8,
            remote_addr: ((w[1] >> 0) & 0xffffffffffff) as u64,
            key: ((w[1] >> 48) & 0xffff) as u16,
            msg_id: ((w[2] >> 0) & 0xffffffff) as u32,
            offset: ((w[2] >> 32) & 0xffffff) as u32,
            seq: ((w[2] >> 56) & 0xff) as u8,
        }
    }

    /// Little-endian bytes, as in host memory.
    pub fn to_bytes(&self) -> [u8; 24] {
        let mut b = [0u8; 24];
        for (i, w) in self.to_words().iter().enumerate() {
            b[i * 8..(i + 1) * 8].copy_from_slice(&w.to_le_bytes());
        }
        b
    }

    /// From little-endian bytes, as in host memory.
    pub fn from_bytes(b: &[u8; 24]) -> Self {
        let mut w = [0 as u64; 3];
        for (i, word) in w.iter_mut().enumerate() {
            let mut le = [0u8; 8];
            le.copy_from_slice(&b[i * 8..(i + 1) * 8]);
            *word = u64::from_le_bytes(le);
        }
        Self::from_words(&w)
    }
}

/// Packet trailer: the last flit. CRC-32 (IEEE 802.3, reflected, as crc32fast) over the header and payload flits, 8 bytes each, little-endian, unused lanes zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PktTrl {
    /// CRC-32 of everything before the trailer.
    pub crc: u32,
}

impl PktTrl {
    /// Words in the format.
    pub const WORDS: usize = 1;
    /// Bytes in memory.
    pub const BYTES: usize = 8;

    /// Packs into words (reserved bits zero).
    pub fn to_words(&self) -> [u64; 1] {
        let mut w = [0 as u64; 1];
        w[0] |= ((self.crc as u64) & 0xffffffff) << 0;
        w
    }

    /// Unpacks from words (reserved bits ignored).
    pub fn from_words(w: &[u64; 1]) -> Self {
        Self {
            crc: ((w[0] >> 0) & 0xffffffff) as u32,
        }
    }

    /// Little-endian bytes, as in host memory.
    pub fn to_bytes(&self) -> [u8; 8] {
        let mut b = [0u8; 8];
        for (i, w) in self.to_words().iter().enumerate() {
            b[i * 8..(i + 1) * 8].copy_from_slice(&w.to_le_bytes());
        }
        b
    }

    /// From little-endian bytes, as in host memory.
    pub fn from_bytes(b: &[u8; 8]) -> Self {
        let mut w = [0 as u64; 1];
        for (i, word) in w.iter_mut().enumerate() {
            let mut le = [0u8; 8];
            le.copy_from_slice(&b[i * 8..(i + 1) * 8]);
            *word = u64::from_le_bytes(le);
        }
        Self::from_words(&w)
    }
}

/// Router table entry bounds register (32 bits, one word of a 32-bit register): destinations lo..hi inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RouteBounds {
    /// Lowest destination of the interval.
    pub lo: u16,
    /// Highest destination of the interval.
    pub hi: u16,
}

impl RouteBounds {
    /// Words in the format.
    pub const WORDS: usize = 1;
    /// Bytes in memory.
    pub const BYTES: usize = 4;

    /// Packs into words (reserved bits zero).
    pub fn to_words(&self) -> [u32; 1] {
        let mut w = [0 as u32; 1];
        w[0] |= ((self.lo as u32) & 0xffff) << 0;
        w[0] |= ((self.hi as u32) & 0xffff) << 16;
        w
    }

    /// Unpacks from words (reserved bits ignored).
    pub fn from_words(w: &[u32; 1]) -> Self {
        Self {
            lo: ((w[0] >> 0) & 0xffff) as u16,
            hi: ((w[0] >> 16) & 0xffff) as u16,
        }
    }

    /// Little-endian bytes, as in host memory.
    pub fn to_bytes(&self) -> [u8; 4] {
        let mut b = [0u8; 4];
        for (i, w) in self.to_words().iter().enumerate() {
            b[i * 4..(i + 1) * 4].copy_from_slice(&w.to_le_bytes());
        }
        b
    }

    /// From little-endian bytes, as in host memory.
    pub fn from_bytes(b: &[u8; 4]) -> Self {
        let mut w = [0 as u32; 1];
        for (i, word) in w.iter_mut().enumerate() {
            let mut le = [0u8; 4];
            le.copy_from_slice(&b[i * 4..(i + 1) * 4]);
            *word = u32::from_le_bytes(le);
        }
        Self::from_words(&w)
    }
}

/// Interrupt coalescing thresholds of one source (INT_COAL_LME_DONE, INT_COAL_LMR_NEW; 32 bits). The source's pending events are signalled (its INT_STATUS bit set) as soon as their number reaches count OR cycles core cycles have passed since the first of them; a threshold of 0 signals at once, so the reset value 0 means no coalescing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IntCoal {
    /// Signal when this many events are pending (0 and 1: every event).
    pub count: u16,
    /// Signal at the latest this many core cycles after the first pending event (0: at once).
    pub cycles: u16,
}

impl IntCoal {
    /// Words in the format.
    pub const WORDS: usize = 1;
    /// Bytes in memory.
    pub const BYTES: usize = 4;

    /// Packs into words (reserved bits zero).
    pub fn to_words(&self) -> [u32; 1] {
        let mut w = [0 as u32; 1];
        w[0] |= ((self.count as u32) & 0xffff) << 0;
        w[0] |= ((self.cycles as u32) & 0xffff) << 16;
        w
    }

    /// Unpacks from words (reserved bits ignored).
    pub fn from_words(w: &[u32; 1]) -> Self {
        Self {
            count: ((w[0] >> 0) & 0xffff) as u16,
            cycles: ((w[0] >> 16) & 0xffff) as u16,
        }
    }

    /// Little-endian bytes, as in host memory.
    pub fn to_bytes(&self) -> [u8; 4] {
        let mut b = [0u8; 4];
        for (i, w) in self.to_words().iter().enumerate() {
            b[i * 4..(i + 1) * 4].copy_from_slice(&w.to_le_bytes());
        }
        b
    }

    /// From little-endian bytes, as in host memory.
    pub fn from_bytes(b: &[u8; 4]) -> Self {
        let mut w = [0 as u32; 1];
        for (i, word) in w.iter_mut().enumerate() {
            let mut le = [0u8; 4];
            le.copy_from_slice(&b[i * 4..(i + 1) * 4]);
            *word = u32::from_le_bytes(le);
        }
        Self::from_words(&w)
    }
}

/// Receive window control register WIN_CTRL (32 bits). A window's key is tag << 4 | its index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WinCtrl {
    /// Window is in use.
    pub valid: bool,
    /// Accept WRITE packets.
    pub write: bool,
    /// Accept BCAST packets (a broadcast carries one key to every node: each receiver registers its own window with that key).
    pub bcast: bool,
    /// Owner context: only packets for this destination context are accepted (0 until packets carry a context).
    pub owner: u8,
    /// Key bits 15:4 a packet must carry.
    pub tag: u16,
}

impl WinCtrl {
    /// Words in the format.
    pub const WORDS: usize = 1;
    /// Bytes in memory.
    pub const BYTES: usize = 4;

    /// Packs into words (reserved bits zero).
    pub fn to_words(&self) -> [u32; 1] {
        let mut w = [0 as u32; 1];
        w[0] |= ((self.valid as u32) & 0x1) << 0;
        w[0] |= ((self.write as u32) & 0x1) << 1;
        w[0] |= ((self.bcast as u32) & 0x1) << 2;
        w[0] |= ((self.owner as u32) & 0x7) << 4;
        w[0] |= ((self.tag as u32) & 0xfff) << 20;
        w
    }

    /// Unpacks from words (reserved bits ignored).
    pub fn from_words(w: &[u32; 1]) -> Self {
        Self {
            valid: (w[0] >> 0) & 1 == 1,
            write: (w[0] >> 1) & 1 == 1,
            bcast: (w[0] >> 2) & 1 == 1,
            owner: ((w[0] >> 4) & 0x7) as u8,
            tag: ((w[0] >> 20) & 0xfff) as u16,
        }
    }

    /// Little-endian bytes, as in host memory.
    pub fn to_bytes(&self) -> [u8; 4] {
        let mut b = [0u8; 4];
        for (i, w) in self.to_words().iter().enumerate() {
            b[i * 4..(i + 1) * 4].copy_from_slice(&w.to_le_bytes());
        }
        b
    }

    /// From little-endian bytes, as in host memory.
    pub fn from_bytes(b: &[u8; 4]) -> Self {
        let mut w = [0 as u32; 1];
        for (i, word) in w.iter_mut().enumerate() {
            let mut le = [0u8; 4];
            le.copy_from_slice(&b[i * 4..(i + 1) * 4]);
            *word = u32::from_le_bytes(le);
        }
        Self::from_words(&w)
    }
}

/// WIN_REJ_INFO register (32 bits): the first refused packet since the log was cleared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WinRejInfo {
    /// Source node of the refused packet.
    pub src: u16,
    /// win_rej code.
    pub reason: u8,
    /// Packet type.
    pub ptype: u8,
    /// The log holds a refusal (write 1 to clear and re-arm).
    pub valid: bool,
}

impl WinRejInfo {
    /// Words in the format.
    pub const WORDS: usize = 1;
    /// Bytes in memory.
    pub const BYTES: usize = 4;

    /// Packs into words (reserved bits zero).
    pub fn to_words(&self) -> [u32; 1] {
        let mut w = [0 as u32; 1];
        w[0] |= ((self.src as u32) & 0xffff) << 0;
        w[0] |= ((self.reason as u32) & 0xf) << 16;
        w[0] |= ((self.ptype as u32) & 0xf) << 20;
        w[0] |= ((self.valid as u32) & 0x1) << 31;
        w
    }

    /// Unpacks from words (reserved bits ignored).
    pub fn from_words(w: &[u32; 1]) -> Self {
        Self {
            src: ((w[0] >> 0) & 0xffff) as u16,
            reason: ((w[0] >> 16) & 0xf) as u8,
            ptype: ((w[0] >> 20) & 0xf) as u8,
            valid: (w[0] >> 31) & 1 == 1,
        }
    }

    /// Little-endian bytes, as in host memory.
    pub fn to_bytes(&self) -> [u8; 4] {
        let mut b = [0u8; 4];
        for (i, w) in self.to_words().iter().enumerate() {
            b[i * 4..(i + 1) * 4].copy_from_slice(&w.to_le_bytes());
        }
        b
    }

    /// From little-endian bytes, as in host memory.
    pub fn from_bytes(b: &[u8; 4]) -> Self {
        let mut w = [0 as u32; 1];
        for (i, word) in w.iter_mut().enumerate() {
            let mut le = [0u8; 4];
            le.copy_from_slice(&b[i * 4..(i + 1) * 4]);
            *word = u32::from_le_bytes(le);
        }
        Self::from_words(&w)
    }
}

/// Router table entry control register (32 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RouteCtrl {
    /// Output port for destinations in the interval.
    pub port: u8,
    /// Adaptive alternatives: bit o set = a packet with DESC_FLAG_ADAPTIVE arriving while its port output is busy (held by another packet, out of credits, or already queued for at this input) may take output o instead, if o is free with room downstream (VOQ router; chosen on arrival; bits of ports the router lacks are ignored). 0: deterministic. The union of port and amask routes must keep the channel dependency graph acyclic (fasthsl_topology::check).
    pub amask: u8,
    /// Entry is used.
    pub valid: bool,
}

impl RouteCtrl {
    /// Words in the format.
    pub const WORDS: usize = 1;
    /// Bytes in memory.
    pub const BYTES: usize = 4;

    /// Packs into words (reserved bits zero).
    pub fn to_words(&self) -> [u32; 1] {
        let mut w = [0 as u32; 1];
        w[0] |= ((self.port as u32) & 0x7) << 0;
        w[0] |= ((self.amask as u32) & 0xff) << 8;
        w[0] |= ((self.valid as u32) & 0x1) << 31;
        w
    }

    /// Unpacks from words (reserved bits ignored).
    pub fn from_words(w: &[u32; 1]) -> Self {
        Self {
            port: ((w[0] >> 0) & 0x7) as u8,
            amask: ((w[0] >> 8) & 0xff) as u8,
            valid: (w[0] >> 31) & 1 == 1,
        }
    }

    /// Little-endian bytes, as in host memory.
    pub fn to_bytes(&self) -> [u8; 4] {
        let mut b = [0u8; 4];
        for (i, w) in self.to_words().iter().enumerate() {
            b[i * 4..(i + 1) * 4].copy_from_slice(&w.to_le_bytes());
        }
        b
    }

    /// From little-endian bytes, as in host memory.
    pub fn from_bytes(b: &[u8; 4]) -> Self {
        let mut w = [0 as u32; 1];
        for (i, word) in w.iter_mut().enumerate() {
            let mut le = [0u8; 4];
            le.copy_from_slice(&b[i * 4..(i + 1) * 4]);
            *word = u32::from_le_bytes(le);
        }
        Self::from_words(&w)
    }
}

/// How software may access a register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RegAccess {
    /// Read only.
    Ro,
    /// Read and write.
    Rw,
    /// Read; writing 1 to a bit clears it.
    Rw1c,
    /// Write only.
    Wo,
}

/// One register of a block, or one array of them (`count` instances `stride` bytes apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RegInfo {
    /// Name, as the offset constant of the block's module.
    pub name: &'static str,
    /// Byte offset of the first instance.
    pub offset: u32,
    /// Instances (1 for a single register).
    pub count: u32,
    /// Bytes between instances.
    pub stride: u32,
    /// Access.
    pub access: RegAccess,
    /// Defined bits (from bit 0; 32 when the contract gives no width).
    pub width: u32,
}

/// NIC register byte offsets.
pub mod nic_regs {
    /// Identity: ID_MAGIC. (ro)
    pub const ID: u32 = 0x000;
    /// Contract version, major[31:16] minor[15:0]. (ro)
    pub const VERSION: u32 = 0x004;
    /// This node's id; packets for another id are dropped (RX_DROP_DEST). (rw)
    pub const NODE_ID: u32 = 0x008;
    /// bit 0 ENABLE: process the LME ring and accept packets. While clear, posted descriptors wait (the message in progress finishes) and incoming packets are dropped and counted in CNT_RX_DROP_DEST. (rw)
    pub const CTRL: u32 = 0x00c;
    /// Payload bytes per packet: a multiple of 8 in 8..MTU_MAX; other values are rejected (ERR_STATUS.CSR_BAD_VALUE). Reset: MTU_MAX. (rw)
    pub const MTU: u32 = 0x010;
    /// Destinations the routing tables reach: lo[15:0], hi[31:16] inclusive. Descriptors outside fail with BAD_DEST (BCAST_RANGE for a broadcast); a descriptor is checked as it is fetched, so a change applies to descriptors fetched after it. Reset: 0..0xFFFF. (rw)
    pub const DEST_RANGE: u32 = 0x014;
    /// LME ring bus address, low 32 bits (32-byte aligned; low bits ignored). (rw)
    pub const LME_BASE_LO: u32 = 0x020;
    /// LME ring bus address, high 32 bits. (rw)
    pub const LME_BASE_HI: u32 = 0x024;
    /// LME ring entries, 1..RING_SIZE_MAX; other values rejected. Writing it resets LME_PROD and LME_CONS to 0, and the whole transmit side with them: every context's LME_PROD and LME_CONS restart at 0 and the TX pipeline is flushed (a privileged bring-up operation). (rw)
    pub const LME_SIZE: u32 = 0x028;
    /// Doorbell: index of the next slot the driver will fill. Values >= LME_SIZE are rejected (ERR_STATUS.LME_PROD_RANGE). (rw)
    pub const LME_PROD: u32 = 0x02c;
    /// Index of the next descriptor the NIC will complete. (ro)
    pub const LME_CONS: u32 = 0x030;
    /// bit 0 FREE: the push path is free (see PUSH_DESC). A driver that pushes only while it has no descriptor outstanding never needs to read it. (ro)
    pub const PUSH_STATUS: u32 = 0x034;
    /// LMR ring bus address, low 32 bits (32-byte aligned). (rw)
    pub const LMR_BASE_LO: u32 = 0x040;
    /// LMR ring bus address, high 32 bits. (rw)
    pub const LMR_BASE_HI: u32 = 0x044;
    /// LMR ring entries, 1..RING_SIZE_MAX; other values rejected. Writing it resets LMR_PROD and LMR_CONS to 0. (rw)
    pub const LMR_SIZE: u32 = 0x048;
    /// Index of the next LMR slot the NIC will write. (ro)
    pub const LMR_PROD: u32 = 0x04c;
    /// Index of the next LMR entry the driver will consume; the NIC stalls reception (back-pressure, no loss) while the ring is full. Values >= LMR_SIZE rejected (ERR_STATUS.LMR_CONS_RANGE). (rw)
    pub const LMR_CONS: u32 = 0x050;
    /// Receive window base, low 32 bits: incoming writes must fall entirely inside the window. (rw)
    pub const RXWIN_BASE_LO: u32 = 0x060;
    /// Receive window base, high 32 bits. (rw)
    pub const RXWIN_BASE_HI: u32 = 0x064;
    /// Receive window size in bytes, low 32 bits (0: accept nothing). (rw)
    pub const RXWIN_SIZE_LO: u32 = 0x068;
    /// Receive window size, high 32 bits. (rw)
    pub const RXWIN_SIZE_HI: u32 = 0x06c;
    /// bit 0 LME_DONE, bit 1 LMR_NEW, bit 2 ERROR, bits 9..15 CTX_LME_DONE and 17..23 CTX_LMR_NEW of contexts 1..7. irq = |(INT_STATUS & INT_MASK). LME_DONE and LMR_NEW count the events of every context and are set when their source's coalescing (INT_COAL_*) signals; the per-context bits say which context (contexts 1..7) and are set at once; ERROR is never coalesced. (rw1c)
    pub const INT_STATUS: u32 = 0x080;
    /// Interrupt enables, same bits as INT_STATUS (the one MSI vector stays: a handler demultiplexes the per-context bits). (rw)
    pub const INT_MASK: u32 = 0x084;
    /// Sticky errors: bit 0 CSR_BAD_ADDR, 1 CSR_BAD_VALUE, 2 LME_PROD_RANGE, 3 LMR_CONS_RANGE, 4 DESC_ERROR, 5 RX_DROP, 6 PUSH_REJECT, 16 WIN_REJECT. Any set bit sets INT_STATUS.ERROR. (rw1c)
    pub const ERR_STATUS: u32 = 0x088;
    /// Coalescing of INT_STATUS.LME_DONE (int_coal format). Events are counted whatever INT_MASK says; the mask only gates the interrupt line. Signalling the pending events (or writing LME_SIZE) restarts the count and the timer; acknowledging INT_STATUS does not. New thresholds apply to the events already pending. (rw)
    pub const INT_COAL_LME_DONE: u32 = 0x090;
    /// Coalescing of INT_STATUS.LMR_NEW (int_coal format), same rules as INT_COAL_LME_DONE (LMR_SIZE restarts it). (rw)
    pub const INT_COAL_LMR_NEW: u32 = 0x094;
    /// End-to-end reliability control (REL_CTRL bits). bit 0 ACK_OFF: send no ACK/NACK. bit 1 SENDER_WAIT: descriptors complete on the answer. bit 2 DEDUP: the receiver drops duplicates. bit 3 EARLY_NACK: the receiver NACKs a deterministically routed message whose last packet arrives with bytes missing. Reset 0: answers are sent, descriptors complete when their last packet left, no duplicate check, a message is NACKed only when its tracker gives it up. (rw)
    pub const REL_CTRL: u32 = 0x098;
    /// REL_CTRL.SENDER_WAIT: ticks of 2^REL_TICK_LOG2 core cycles a sent message waits for its answer before it completes RETRY_EXHAUSTED (it expires on the n-th tick after its last packet left); 0 acts as 1. Reset: 256 (65 536..65 792 cycles, ~262 us at 250 MHz). Contract 1.6. (rw)
    pub const REL_TIMEOUT: u32 = 0x09c;
    /// REL_CTRL.SENDER_WAIT: retransmissions allowed per message (0..15) after a NACK or a timeout, before it completes RETRY_EXHAUSTED. A retransmission re-reads the descriptor from its LME ring slot and the payload from host memory. Reset 0: no retransmission. Contract 1.7. (rw)
    pub const REL_RETRIES: u32 = 0x0a0;
    /// Fairness between contexts: log2 of the payload bytes the TX sends of one message before it serves the next context with work (packet-granular round robin; a message longer than 2^TX_QUANTUM is sent in segments, interleaved with other contexts' messages). Values 6..24 (64 B .. 16 MiB); 0 turns segmenting off (a whole message at a time, the behaviour before contract 1.8); other values rejected (ERR_STATUS.CSR_BAD_VALUE). Reset TX_QUANTUM_RESET (4 KiB). Contract 1.8. (rw)
    pub const TX_QUANTUM: u32 = 0x0a4;
    /// Receive window table: bit 0 ENFORCE (WIN_CFG bits). Reset 0: keys ignored, only RXWIN checked (docs/WINDOWS.md). (rw)
    pub const WIN_CFG: u32 = 0x0e0;
    /// Refusal log (win_rej_info format): the first packet the window checks refused since the log was cleared (reason RXWIN included). Further refusals only count (CNT_RX_DROP_WINDOW, CNT_RX_REJECT_*) until software writes 1 to bit 31, which clears the log. WIN_REJ_MSG_ID and WIN_REJ_ADDR_* belong to the same packet. (rw1c)
    pub const WIN_REJ_INFO: u32 = 0x0e4;
    /// Refusal log: msg_id of the refused packet. (ro)
    pub const WIN_REJ_MSG_ID: u32 = 0x0e8;
    /// Refusal log: remote_addr bits 31:0 of the refused packet. (ro)
    pub const WIN_REJ_ADDR_LO: u32 = 0x0ec;
    /// Refusal log: remote_addr bits 47:32 in 15:0, the packet's key in 31:16. (ro)
    pub const WIN_REJ_ADDR_HI: u32 = 0x0f0;
    /// Receive window i: base bus address bits 31:0. (rw)
    pub const WIN_BASE_LO: u32 = 0x300;
    /// Instances of WIN_BASE_LO.
    pub const WIN_BASE_LO_COUNT: u32 = 16;
    /// Bytes between instances of WIN_BASE_LO.
    pub const WIN_BASE_LO_STRIDE: u32 = 16;
    /// Receive window i: base bus address bits 47:32 (addresses are 48 bits). (rw)
    pub const WIN_BASE_HI: u32 = 0x304;
    /// Instances of WIN_BASE_HI.
    pub const WIN_BASE_HI_COUNT: u32 = 16;
    /// Bytes between instances of WIN_BASE_HI.
    pub const WIN_BASE_HI_STRIDE: u32 = 16;
    /// Receive window i: length in bytes (0: accepts nothing). A packet is accepted only if all of its bytes lie in [base, base + len). (rw)
    pub const WIN_LEN: u32 = 0x308;
    /// Instances of WIN_LEN.
    pub const WIN_LEN_COUNT: u32 = 16;
    /// Bytes between instances of WIN_LEN.
    pub const WIN_LEN_STRIDE: u32 = 16;
    /// Receive window i: win_ctrl format (valid, write, bcast, owner, tag). Key of window i: tag << 4 | i. Changing a window affects packets whose verdict comes after the write; packets already accepted into the receive buffer still land. (rw)
    pub const WIN_CTRL: u32 = 0x30c;
    /// Instances of WIN_CTRL.
    pub const WIN_CTRL_COUNT: u32 = 16;
    /// Bytes between instances of WIN_CTRL.
    pub const WIN_CTRL_STRIDE: u32 = 16;
    /// Push window (write-combined doorbell): the next LME descriptor as eight 32-bit halves, lme_desc word i bits 31:0 at index 2i, bits 63:32 at 2i+1. The driver also writes the descriptor into its ring slot (LME_PROD). Index 7 (word 3 high half: the status field) is the trigger: its value's bits 15:0 are the new LME_PROD, applied exactly like an LME_PROD write, and its bits 31:16 are the pushed descriptor's key (lme_desc word 3 bits 63:48). The pushed copy is used instead of a ring read when the push path is free (PUSH_STATUS.FREE), indices 0..6 and the PUSH_DATA registers an inline length needs were written since the last trigger, and the value adds exactly one descriptor (LME_PROD + 1 mod LME_SIZE); otherwise the push is rejected (ERR_STATUS.PUSH_REJECT, CNT_PUSH_REJECT) and the NIC reads the ring copy as for a plain doorbell. Ordering: the pushed descriptor is its ring slot's descriptor, so it is processed and completed in ring order with the others (one completion stream: status word and LME_CONS). Writes while the push path is busy are ignored. (wo)
    pub const PUSH_DESC: u32 = 0x200;
    /// Instances of PUSH_DESC.
    pub const PUSH_DESC_COUNT: u32 = 8;
    /// Bytes between instances of PUSH_DESC.
    pub const PUSH_DESC_STRIDE: u32 = 4;
    /// Inline payload bytes 8..63 of a pushed DESC_FLAG_INLINE descriptor, 4 bytes per register, little-endian (index i holds bytes 8+4i..11+4i). Write before the trigger; only the registers covering the length are needed. (wo)
    pub const PUSH_DATA: u32 = 0x220;
    /// Instances of PUSH_DATA.
    pub const PUSH_DATA_COUNT: u32 = 14;
    /// Bytes between instances of PUSH_DATA.
    pub const PUSH_DATA_STRIDE: u32 = 4;
    /// Descriptors completed (success or error). (ro)
    pub const CNT_TX_DESC: u32 = 0x100;
    /// Packets sent. (ro)
    pub const CNT_TX_PKTS: u32 = 0x104;
    /// Packets received and written to host memory. (ro)
    pub const CNT_RX_PKTS: u32 = 0x108;
    /// LMR entries written. (ro)
    pub const CNT_RX_MSGS: u32 = 0x10c;
    /// Descriptors completed with an error code. (ro)
    pub const CNT_DESC_ERR: u32 = 0x110;
    /// Rejected CSR accesses (bad address, read-only, bad value, index out of range). (ro)
    pub const CNT_CSR_ERR: u32 = 0x114;
    /// Packets dropped for a CRC mismatch. (ro)
    pub const CNT_RX_CRC_ERR: u32 = 0x118;
    /// Packets dropped: destination is not NODE_ID. (ro)
    pub const CNT_RX_DROP_DEST: u32 = 0x11c;
    /// Packets dropped: EEP, bad type, length field disagreeing with the flits, or too short/long. (ro)
    pub const CNT_RX_DROP_MALFORMED: u32 = 0x120;
    /// Packets dropped: target range outside the receive window. (ro)
    pub const CNT_RX_DROP_WINDOW: u32 = 0x124;
    /// Push doorbells taken: descriptors that went through the push path (no descriptor DMA read). (ro)
    pub const CNT_PUSH: u32 = 0x128;
    /// Push doorbells rejected (ERR_STATUS.PUSH_REJECT): applied as plain doorbells. (ro)
    pub const CNT_PUSH_REJECT: u32 = 0x12c;
    /// Multi-packet messages the receiver gave up: a started message (some packets accepted) whose completion entry was idle for 12288..16384 cycles (49..66 us at 250 MHz) and was taken by a new message, or whose byte count ran past its length (a packet counted twice). They get no LMR entry (docs/RELIABILITY.md). (ro)
    pub const CNT_RX_MSG_EXPIRED: u32 = 0x130;
    /// Accepted packets of a new multi-packet message that found the receiver's completion table full (64 messages in progress, none idle long enough to be taken): their bytes are written but the message cannot complete and gets no LMR entry. (ro)
    pub const CNT_RX_TRACK_FULL: u32 = 0x134;
    /// Packets refused by the window table: no valid window for key[3:0], tag mismatch, or wrong owner context (win_rej INVALID, KEY, CTX). (ro)
    pub const CNT_RX_REJECT_KEY: u32 = 0x180;
    /// Packets refused by the window table: the window does not allow the packet type (win_rej PERM). (ro)
    pub const CNT_RX_REJECT_PERM: u32 = 0x184;
    /// Packets refused by the window table: not entirely inside the window (win_rej RANGE). (ro)
    pub const CNT_RX_REJECT_RANGE: u32 = 0x188;
    /// Packets dropped: their destination context (header dctx) has no LMR ring on this node (its LMR_SIZE is 0; context 0 always receives, page 0's rule) (ERR_STATUS.RX_DROP). (ro)
    pub const CNT_RX_DROP_CTX: u32 = 0x164;
    /// DMA reads (payload or descriptor) the host answered with an error. A payload read error completes its descriptor with DMA_RD; a descriptor read error delivers the descriptor as zeros (ZERO_LEN). (ro)
    pub const CNT_DMA_RD_ERR: u32 = 0x160;
    /// ACK packets sent (a unicast message completed here, or an answer to a duplicate). (ro)
    pub const CNT_ACK_TX: u32 = 0x138;
    /// NACK and NACK_REJECT packets sent. (ro)
    pub const CNT_NACK_TX: u32 = 0x13c;
    /// ACK packets received for this node's messages. (ro)
    pub const CNT_ACK_RX: u32 = 0x140;
    /// NACK and NACK_REJECT packets received for this node's messages. (ro)
    pub const CNT_NACK_RX: u32 = 0x144;
    /// Answers (ACK/NACK) not sent because their queue was full: the sender times out and retransmits, which is answered again. (ro)
    pub const CNT_ANS_DROP: u32 = 0x148;
    /// Retransmissions started (REL_RETRIES): a message re-read from host memory after a NACK or an answer timeout. Contract 1.7. (ro)
    pub const CNT_RETX: u32 = 0x14c;
    /// Answer timeouts: messages whose answer did not come within REL_TIMEOUT (each then retransmitted or completed RETRY_EXHAUSTED). Contract 1.7. (ro)
    pub const CNT_REL_TIMEOUT: u32 = 0x150;
    /// Packets dropped as duplicates: their message (src, seq) already completed here or was given up by its sender (ddc_rx_seq_window). Nothing of them is written; the last packet of a duplicate message is acknowledged again. Contract 1.7. (ro)
    pub const CNT_RX_DUP: u32 = 0x154;
    /// Duplicate-filter slots taken over by another source id (more than 64 sources whose ids share low 6 bits): the earlier source's late copies are no longer recognised. Contract 1.7. (ro)
    pub const CNT_RX_SEQ_EVICT: u32 = 0x158;
    /// NACKs sent early (REL_CTRL.EARLY_NACK): a deterministically routed message's last packet arrived with bytes of the message missing. Also counted in CNT_NACK_TX. Contract 1.8. (ro)
    pub const CNT_RX_EARLY_NACK: u32 = 0x15c;
    /// Messages of contexts 1..7 that completed while their context's LMR ring was full: the entry is not written and the message is NACKed (a sender with REL_RETRIES sends it again), so one context that does not drain its ring never stalls reception for the others (ERR_STATUS.RX_DROP). Context 0 keeps back-pressure (page 0's rule). Contract 1.8. (ro)
    pub const CNT_RX_LMR_FULL: u32 = 0x168;
    /// Every register of the block, by offset.
    pub const REGISTERS: &[super::RegInfo] = &[
        super::RegInfo { name: "ID", offset: 0x000, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "VERSION", offset: 0x004, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "NODE_ID", offset: 0x008, count: 1, stride: 4, access: super::RegAccess::Rw, width: 16 },
        super::RegInfo { name: "CTRL", offset: 0x00c, count: 1, stride: 4, access: super::RegAccess::Rw, width: 1 },
        super::RegInfo { name: "MTU", offset: 0x010, count: 1, stride: 4, access: super::RegAccess::Rw, width: 16 },
        super::RegInfo { name: "DEST_RANGE", offset: 0x014, count: 1, stride: 4, access: super::RegAccess::Rw, width: 32 },
        super::RegInfo { name: "LME_BASE_LO", offset: 0x020, count: 1, stride: 4, access: super::RegAccess::Rw, width: 32 },
        super::RegInfo { name: "LME_BASE_HI", offset: 0x024, count: 1, stride: 4, access: super::RegAccess::Rw, width: 32 },
        super::RegInfo { name: "LME_SIZE", offset: 0x028, count: 1, stride: 4, access: super::RegAccess::Rw, width: 16 },
        super::RegInfo { name: "LME_PROD", offset: 0x02c, count: 1, stride: 4, access: super::RegAccess::Rw, width: 16 },
        super::RegInfo { name: "LME_CONS", offset: 0x030, count: 1, stride: 4, access: super::RegAccess::Ro, width: 16 },
        super::RegInfo { name: "PUSH_STATUS", offset: 0x034, count: 1, stride: 4, access: super::RegAccess::Ro, width: 1 },
        super::RegInfo { name: "LMR_BASE_LO", offset: 0x040, count: 1, stride: 4, access: super::RegAccess::Rw, width: 32 },
        super::RegInfo { name: "LMR_BASE_HI", offset: 0x044, count: 1, stride: 4, access: super::RegAccess::Rw, width: 32 },
        super::RegInfo { name: "LMR_SIZE", offset: 0x048, count: 1, stride: 4, access: super::RegAccess::Rw, width: 16 },
        super::RegInfo { name: "LMR_PROD", offset: 0x04c, count: 1, stride: 4, access: super::RegAccess::Ro, width: 16 },
        super::RegInfo { name: "LMR_CONS", offset: 0x050, count: 1, stride: 4, access: super::RegAccess::Rw, width: 16 },
        super::RegInfo { name: "RXWIN_BASE_LO", offset: 0x060, count: 1, stride: 4, access: super::RegAccess::Rw, width: 32 },
        super::RegInfo { name: "RXWIN_BASE_HI", offset: 0x064, count: 1, stride: 4, access: super::RegAccess::Rw, width: 32 },
        super::RegInfo { name: "RXWIN_SIZE_LO", offset: 0x068, count: 1, stride: 4, access: super::RegAccess::Rw, width: 32 },
        super::RegInfo { name: "RXWIN_SIZE_HI", offset: 0x06c, count: 1, stride: 4, access: super::RegAccess::Rw, width: 32 },
        super::RegInfo { name: "INT_STATUS", offset: 0x080, count: 1, stride: 4, access: super::RegAccess::Rw1c, width: 24 },
        super::RegInfo { name: "INT_MASK", offset: 0x084, count: 1, stride: 4, access: super::RegAccess::Rw, width: 24 },
        super::RegInfo { name: "ERR_STATUS", offset: 0x088, count: 1, stride: 4, access: super::RegAccess::Rw1c, width: 17 },
        super::RegInfo { name: "INT_COAL_LME_DONE", offset: 0x090, count: 1, stride: 4, access: super::RegAccess::Rw, width: 32 },
        super::RegInfo { name: "INT_COAL_LMR_NEW", offset: 0x094, count: 1, stride: 4, access: super::RegAccess::Rw, width: 32 },
        super::RegInfo { name: "REL_CTRL", offset: 0x098, count: 1, stride: 4, access: super::RegAccess::Rw, width: 4 },
        super::RegInfo { name: "REL_TIMEOUT", offset: 0x09c, count: 1, stride: 4, access: super::RegAccess::Rw, width: 16 },
        super::RegInfo { name: "REL_RETRIES", offset: 0x0a0, count: 1, stride: 4, access: super::RegAccess::Rw, width: 4 },
        super::RegInfo { name: "TX_QUANTUM", offset: 0x0a4, count: 1, stride: 4, access: super::RegAccess::Rw, width: 5 },
        super::RegInfo { name: "WIN_CFG", offset: 0x0e0, count: 1, stride: 4, access: super::RegAccess::Rw, width: 1 },
        super::RegInfo { name: "WIN_REJ_INFO", offset: 0x0e4, count: 1, stride: 4, access: super::RegAccess::Rw1c, width: 32 },
        super::RegInfo { name: "WIN_REJ_MSG_ID", offset: 0x0e8, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "WIN_REJ_ADDR_LO", offset: 0x0ec, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "WIN_REJ_ADDR_HI", offset: 0x0f0, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_TX_DESC", offset: 0x100, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_TX_PKTS", offset: 0x104, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_RX_PKTS", offset: 0x108, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_RX_MSGS", offset: 0x10c, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_DESC_ERR", offset: 0x110, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_CSR_ERR", offset: 0x114, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_RX_CRC_ERR", offset: 0x118, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_RX_DROP_DEST", offset: 0x11c, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_RX_DROP_MALFORMED", offset: 0x120, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_RX_DROP_WINDOW", offset: 0x124, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_PUSH", offset: 0x128, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_PUSH_REJECT", offset: 0x12c, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_RX_MSG_EXPIRED", offset: 0x130, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_RX_TRACK_FULL", offset: 0x134, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_ACK_TX", offset: 0x138, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_NACK_TX", offset: 0x13c, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_ACK_RX", offset: 0x140, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_NACK_RX", offset: 0x144, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_ANS_DROP", offset: 0x148, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_RETX", offset: 0x14c, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_REL_TIMEOUT", offset: 0x150, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_RX_DUP", offset: 0x154, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_RX_SEQ_EVICT", offset: 0x158, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_RX_EARLY_NACK", offset: 0x15c, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_DMA_RD_ERR", offset: 0x160, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_RX_DROP_CTX", offset: 0x164, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_RX_LMR_FULL", offset: 0x168, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_RX_REJECT_KEY", offset: 0x180, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_RX_REJECT_PERM", offset: 0x184, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "CNT_RX_REJECT_RANGE", offset: 0x188, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "PUSH_DESC", offset: 0x200, count: 8, stride: 4, access: super::RegAccess::Wo, width: 32 },
        super::RegInfo { name: "PUSH_DATA", offset: 0x220, count: 14, stride: 4, access: super::RegAccess::Wo, width: 32 },
        super::RegInfo { name: "WIN_BASE_LO", offset: 0x300, count: 16, stride: 16, access: super::RegAccess::Rw, width: 32 },
        super::RegInfo { name: "WIN_BASE_HI", offset: 0x304, count: 16, stride: 16, access: super::RegAccess::Rw, width: 16 },
        super::RegInfo { name: "WIN_LEN", offset: 0x308, count: 16, stride: 16, access: super::RegAccess::Rw, width: 32 },
        super::RegInfo { name: "WIN_CTRL", offset: 0x30c, count: 16, stride: 16, access: super::RegAccess::Rw, width: 32 },
    ];
}

/// ROUTER register byte offsets.
pub mod router_regs {
    /// Identity: ID_MAGIC. (ro)
    pub const RT_ID: u32 = 0x000;
    /// Number of ports. (ro)
    pub const RT_PORTS: u32 = 0x004;
    /// Per input port: packets dropped because no table entry matched their destination. (ro)
    pub const RT_DROP: u32 = 0x010;
    /// Instances of RT_DROP.
    pub const RT_DROP_COUNT: u32 = 8;
    /// Bytes between instances of RT_DROP.
    pub const RT_DROP_STRIDE: u32 = 4;
    /// Per input port: packets that arrived ending in EEP (forwarded with EEP). (ro)
    pub const RT_EEP: u32 = 0x030;
    /// Instances of RT_EEP.
    pub const RT_EEP_COUNT: u32 = 8;
    /// Bytes between instances of RT_EEP.
    pub const RT_EEP_STRIDE: u32 = 4;
    /// Per input port: packets cut off by the stall timeout (RT_TMO_CYCLES): their body stopped arriving mid-packet, the router ended them with an EEP flit and released their output. (ro)
    pub const RT_TMO: u32 = 0x070;
    /// Instances of RT_TMO.
    pub const RT_TMO_COUNT: u32 = 8;
    /// Bytes between instances of RT_TMO.
    pub const RT_TMO_STRIDE: u32 = 4;
    /// Stall timeout in cycles, bits 15:0 (higher bits read 0): a packet whose next flit has not arrived for this long while its input buffer has room (so the sender holds a credit) is ended with an EEP flit (counted in RT_TMO). 0 disables the timeout. Reset value RT_TMO_CYCLES_RESET. (rw)
    pub const RT_TMO_CYCLES: u32 = 0x090;
    /// Routing table: entry e of input p at index p*ROUTE_ENTRIES+e; route_bounds format. The first valid matching entry wins. (rw)
    pub const RT_BOUNDS: u32 = 0x100;
    /// Instances of RT_BOUNDS.
    pub const RT_BOUNDS_COUNT: u32 = 64;
    /// Bytes between instances of RT_BOUNDS.
    pub const RT_BOUNDS_STRIDE: u32 = 8;
    /// Routing table entry control (route_ctrl format), same indexing as RT_BOUNDS. (rw)
    pub const RT_CTRL: u32 = 0x104;
    /// Instances of RT_CTRL.
    pub const RT_CTRL_COUNT: u32 = 64;
    /// Bytes between instances of RT_CTRL.
    pub const RT_CTRL_STRIDE: u32 = 8;
    /// Broadcast table, per input port p: bit o set = a broadcast arriving on p may be forwarded to output o (bits 7:0; the input's own bit is ignored). Forwarded when its range overlaps RT_BC_BOUNDS[p*ROUTER_PORTS+o]. (rw)
    pub const RT_BC_MASK: u32 = 0x050;
    /// Instances of RT_BC_MASK.
    pub const RT_BC_MASK_COUNT: u32 = 8;
    /// Bytes between instances of RT_BC_MASK.
    pub const RT_BC_MASK_STRIDE: u32 = 4;
    /// Broadcast table: nodes behind output o for broadcasts arriving on input p, at index p*ROUTER_PORTS+o; route_bounds format (lo, hi node ids). (rw)
    pub const RT_BC_BOUNDS: u32 = 0x300;
    /// Instances of RT_BC_BOUNDS.
    pub const RT_BC_BOUNDS_COUNT: u32 = 64;
    /// Bytes between instances of RT_BC_BOUNDS.
    pub const RT_BC_BOUNDS_STRIDE: u32 = 4;
    /// Every register of the block, by offset.
    pub const REGISTERS: &[super::RegInfo] = &[
        super::RegInfo { name: "RT_ID", offset: 0x000, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "RT_PORTS", offset: 0x004, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "RT_DROP", offset: 0x010, count: 8, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "RT_EEP", offset: 0x030, count: 8, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "RT_BC_MASK", offset: 0x050, count: 8, stride: 4, access: super::RegAccess::Rw, width: 32 },
        super::RegInfo { name: "RT_TMO", offset: 0x070, count: 8, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "RT_TMO_CYCLES", offset: 0x090, count: 1, stride: 4, access: super::RegAccess::Rw, width: 32 },
        super::RegInfo { name: "RT_BOUNDS", offset: 0x100, count: 64, stride: 8, access: super::RegAccess::Rw, width: 32 },
        super::RegInfo { name: "RT_CTRL", offset: 0x104, count: 64, stride: 8, access: super::RegAccess::Rw, width: 32 },
        super::RegInfo { name: "RT_BC_BOUNDS", offset: 0x300, count: 64, stride: 4, access: super::RegAccess::Rw, width: 32 },
    ];
}

/// CTX register byte offsets inside one page; page n (n < `PAGES`)
/// starts at BAR0 offset `page(n)`.
pub mod ctx_regs {
    /// A context's own LME/LMR rings and doorbells; the TX serves the contexts with work round robin, a message at a time. Context 0's ring registers are page 0's LME_*/LMR_* registers (same offsets, same state and rules), so software written for one ring keeps working; the push window (PUSH_*) is page 0's, context 0's only. Every other offset of a context page is undefined (CSR_BAD_ADDR); nothing global is reachable from a context page. The sender names the receiving context in the descriptor (lme_desc.dctx).
    pub const PAGES: u32 = super::CTX_COUNT as u32;
    /// BAR0 offset of page 0.
    pub const PAGE_BASE: u32 = super::CTX_PAGE_BASE as u32;
    /// Bytes between pages.
    pub const PAGE_STRIDE: u32 = super::CTX_PAGE_STRIDE as u32;
    /// BAR0 offset of page `n` (`n < PAGES`).
    pub const fn page(n: u32) -> u32 {
        PAGE_BASE + n * PAGE_STRIDE
    }
    /// This page's context number n (0..CTX_COUNT-1). (ro)
    pub const ID: u32 = 0x000;
    /// The context's LME ring bus address, low 32 bits (32-byte aligned; low bits ignored). (rw)
    pub const LME_BASE_LO: u32 = 0x020;
    /// The context's LME ring bus address, high 32 bits. (rw)
    pub const LME_BASE_HI: u32 = 0x024;
    /// The context's LME ring entries, 0..RING_SIZE_MAX (0: the context sends nothing); other values rejected (CSR_BAD_VALUE). Writing it resets the context's LME_PROD and LME_CONS to 0; it is rejected (CSR_BAD_VALUE) while the context has descriptors not yet completed, so one context's reset never disturbs another's traffic. (Context 0's page reaches page 0's LME_SIZE, with page 0's rules.) (rw)
    pub const LME_SIZE: u32 = 0x028;
    /// The context's doorbell: index of the next slot the driver will fill. Values >= LME_SIZE are rejected (ERR_STATUS.LME_PROD_RANGE). (rw)
    pub const LME_PROD: u32 = 0x02c;
    /// Index of the context's next descriptor the NIC will complete. (ro)
    pub const LME_CONS: u32 = 0x030;
    /// The context's LMR ring bus address, low 32 bits (32-byte aligned). (rw)
    pub const LMR_BASE_LO: u32 = 0x040;
    /// The context's LMR ring bus address, high 32 bits. (rw)
    pub const LMR_BASE_HI: u32 = 0x044;
    /// The context's LMR ring entries, 0..RING_SIZE_MAX (0: the context receives nothing, its packets are dropped and counted in CNT_RX_DROP_CTX); other values rejected. Writing it resets the context's LMR_PROD and LMR_CONS to 0. (rw)
    pub const LMR_SIZE: u32 = 0x048;
    /// Index of the context's next LMR slot the NIC will write. (ro)
    pub const LMR_PROD: u32 = 0x04c;
    /// Index of the context's next LMR entry the driver will consume. While the ring is full, a message completing for context 1..7 gets no entry and is NACKed (CNT_RX_LMR_FULL, contract 1.8); context 0's page is page 0's ring, which back-pressures reception instead. Values >= LMR_SIZE rejected (ERR_STATUS.LMR_CONS_RANGE). (rw)
    pub const LMR_CONS: u32 = 0x050;
    /// Every register of the block, by offset.
    pub const REGISTERS: &[super::RegInfo] = &[
        super::RegInfo { name: "ID", offset: 0x000, count: 1, stride: 4, access: super::RegAccess::Ro, width: 32 },
        super::RegInfo { name: "LME_BASE_LO", offset: 0x020, count: 1, stride: 4, access: super::RegAccess::Rw, width: 32 },
        super::RegInfo { name: "LME_BASE_HI", offset: 0x024, count: 1, stride: 4, access: super::RegAccess::Rw, width: 32 },
        super::RegInfo { name: "LME_SIZE", offset: 0x028, count: 1, stride: 4, access: super::RegAccess::Rw, width: 16 },
        super::RegInfo { name: "LME_PROD", offset: 0x02c, count: 1, stride: 4, access: super::RegAccess::Rw, width: 16 },
        super::RegInfo { name: "LME_CONS", offset: 0x030, count: 1, stride: 4, access: super::RegAccess::Ro, width: 16 },
        super::RegInfo { name: "LMR_BASE_LO", offset: 0x040, count: 1, stride: 4, access: super::RegAccess::Rw, width: 32 },
        super::RegInfo { name: "LMR_BASE_HI", offset: 0x044, count: 1, stride: 4, access: super::RegAccess::Rw, width: 32 },
        super::RegInfo { name: "LMR_SIZE", offset: 0x048, count: 1, stride: 4, access: super::RegAccess::Rw, width: 16 },
        super::RegInfo { name: "LMR_PROD", offset: 0x04c, count: 1, stride: 4, access: super::RegAccess::Ro, width: 16 },
        super::RegInfo { name: "LMR_CONS", offset: 0x050, count: 1, stride: 4, access: super::RegAccess::Rw, width: 16 },
    ];
}
