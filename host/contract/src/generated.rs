// Generated from host/contract/contract.toml by host/contract/gen/contract_gen.py. Do not edit: run `make gen`.

// Field packing is emitted uniformly (shift by 0, cast to the same type) so every field reads alike.
#![allow(clippy::identity_op, clippy::unnecessary_cast, clippy::unreadable_literal)]

/// Contract version, major in the high 16 bits.
pub const CONTRACT_VERSION: u32 = 0x00010005;
/// Value of the ID register: ASCII 'FSHL'.
pub const ID_MAGIC: u32 = 0x4653484c;
/// Width of a node id.
pub const NODE_W: u32 = 0x10;
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
/// Size of BAR0, bytes.
pub const BAR0_SIZE: u64 = 0x2000;
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
    /// A payload DMA read was answered with an error (IOMMU refusal, PCIe completion with UR/CA status). The packet it fell in was ended with EEP (the receiver drops it as malformed) and nothing later of the message was sent; earlier packets may have landed, but the message never gets an LMR entry.
    DmaRd = 10,
    /// DESC_FLAG_BCAST with a range lo > hi, hi >= BCAST_NODES, or outside DEST_RANGE; nothing sent.
    BcastRange = 15,
}

impl DescErr {
    /// Every value, in code order.
    pub const ALL: [DescErr; 7] = [DescErr::Ok, DescErr::ZeroLen, DescErr::LenTooBig, DescErr::BadDest, DescErr::InlineLen, DescErr::DmaRd, DescErr::BcastRange];

    /// Decodes a wire value; `None` for codes the contract does not define.
    pub fn from_code(code: u8) -> Option<Self> {
        match code {
            0 => Some(DescErr::Ok),
            1 => Some(DescErr::ZeroLen),
            2 => Some(DescErr::LenTooBig),
            3 => Some(DescErr::BadDest),
            4 => Some(DescErr::InlineLen),
            10 => Some(DescErr::DmaRd),
            15 => Some(DescErr::BcastRange),
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
            DescErr::DmaRd => "A payload DMA read was answered with an error (IOMMU refusal, PCIe completion with UR/CA status). The packet it fell in was ended with EEP (the receiver drops it as malformed) and nothing later of the message was sent; earlier packets may have landed, but the message never gets an LMR entry.",
            DescErr::BcastRange => "DESC_FLAG_BCAST with a range lo > hi, hi >= BCAST_NODES, or outside DEST_RANGE; nothing sent.",
        }
    }
}

/// Packet type (header word 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Ptype {
    /// Remote write: payload lands at remote_addr.
    Write = 0,
    /// End-to-end acknowledgement of message msg_id (header only, len 0): every byte of it landed at node src. Built by ddc_ack_gen; not yet sent by the NIC (docs/RELIABILITY.md).
    Ack = 1,
    /// Message msg_id did not complete at node src (lost or incomplete packets): the sender may retransmit it. Header only, len 0.
    Nack = 2,
    /// Message msg_id was refused by node src's receive window/key check: retransmitting cannot help. Header only, len 0.
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
            Ptype::Ack => "End-to-end acknowledgement of message msg_id (header only, len 0): every byte of it landed at node src. Built by ddc_ack_gen; not yet sent by the NIC (docs/RELIABILITY.md).",
            Ptype::Nack => "Message msg_id did not complete at node src (lost or incomplete packets): the sender may retransmit it. Header only, len 0.",
            Ptype::NackReject => "Message msg_id was refused by node src's receive window/key check: retransmitting cannot help. Header only, len 0.",
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
    /// The payload is in the descriptor, not at local_addr: bytes 0..7 in the local_addr field (little-endian), bytes 8..63 of a pushed descriptor in PUSH_DATA. No payload DMA read. Bits 8..15 are local to the sender: they do not travel (packets carry the low 8 flag bits).
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

/// INT_STATUS / INT_MASK bits.
pub mod int {
    /// A descriptor with DESC_FLAG_IRQ_LOCAL completed.
    pub const LME_DONE: u32 = 1 << 0;
    /// An LMR entry with DESC_FLAG_IRQ_REMOTE was written.
    pub const LMR_NEW: u32 = 1 << 1;
    /// ERR_STATUS is non-zero.
    pub const ERROR: u32 = 1 << 2;
    /// Every defined bit.
    pub const ALL: u32 = LME_DONE | LMR_NEW | ERROR;

    /// Names of the defined bits set in `value`, lowest first.
    pub fn names(value: u32) -> Vec<&'static str> {
        const NAMES: [(u32, &str); 3] = [(LME_DONE, "LME_DONE"), (LMR_NEW, "LMR_NEW"), (ERROR, "ERROR")];
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
    /// Every defined bit.
    pub const ALL: u32 = CSR_BAD_ADDR | CSR_BAD_VALUE | LME_PROD_RANGE | LMR_CONS_RANGE | DESC_ERROR | RX_DROP | PUSH_REJECT;

    /// Names of the defined bits set in `value`, lowest first.
    pub fn names(value: u32) -> Vec<&'static str> {
        const NAMES: [(u32, &str); 7] = [(CSR_BAD_ADDR, "CSR_BAD_ADDR"), (CSR_BAD_VALUE, "CSR_BAD_VALUE"), (LME_PROD_RANGE, "LME_PROD_RANGE"), (LMR_CONS_RANGE, "LMR_CONS_RANGE"), (DESC_ERROR, "DESC_ERROR"), (RX_DROP, "RX_DROP"), (PUSH_REJECT, "PUSH_REJECT")];
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
    /// Bus address on the destination node (any alignment).
    pub remote_addr: u64,
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
        w[1] |= self.remote_addr as u64;
        w[2] |= ((self.len as u64) & 0xffffffff) << 0;
        w[2] |= ((self.dest as u64) & 0xffff) << 32;
        w[2] |= ((self.flags as u64) & 0xffff) << 48;
        w[3] |= ((self.msg_id as u64) & 0xffffffff) << 0;
        w[3] |= ((self.status as u64) & 0xffff) << 32;
        w
    }

    /// Unpacks from words (reserved bits ignored).
    pub fn from_words(w: &[u64; 4]) -> Self {
        Self {
            local_addr: w[0] as u64,
            remote_addr: w[1] as u64,
            len: ((w[2] >> 0) & 0xffffffff) as u32,
            dest: ((w[2] >> 32) & 0xffff) as u16,
            flags: ((w[2] >> 48) & 0xffff) as u16,
            msg_id: ((w[3] >> 0) & 0xffffffff) as u32,
            status: ((w[3] >> 32) & 0xffff) as u16,
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
    /// The descriptor's flags (low 8 bits).
    pub flags: u8,
    /// Payload bytes in this packet, 1..MTU_MAX.
    pub len: u16,
    /// Destination address of this packet's first payload byte.
    pub remote_addr: u64,
    /// Message id (descriptor msg_id).
    pub msg_id: u32,
    /// Byte offset of this packet's first payload byte in its message.
    pub offset: u32,
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
        w[0] |= ((self.flags as u64) & 0xff) << 40;
        w[0] |= ((self.len as u64) & 0xffff) << 48;
        w[1] |= self.remote_addr as u64;
        w[2] |= ((self.msg_id as u64) & 0xffffffff) << 0;
        w[2] |= ((self.offset as u64) & 0xffffffff) << 32;
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
            flags: ((w[0] >> 40) & 0xff) as u8,
            len: ((w[0] >> 48) & 0xffff) as u16,
            remote_addr: w[1] as u64,
            msg_id: ((w[2] >> 0) & 0xffffffff) as u32,
            offset: ((w[2] >> 32) & 0xffffffff) as u32,
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
    /// Destinations the routing tables reach: lo[15:0], hi[31:16] inclusive. Descriptors outside fail with BAD_DEST. Reset: 0..0xFFFF. (rw)
    pub const DEST_RANGE: u32 = 0x014;
    /// LME ring bus address, low 32 bits (32-byte aligned; low bits ignored). (rw)
    pub const LME_BASE_LO: u32 = 0x020;
    /// LME ring bus address, high 32 bits. (rw)
    pub const LME_BASE_HI: u32 = 0x024;
    /// LME ring entries, 1..RING_SIZE_MAX; other values rejected. Writing it resets LME_PROD and LME_CONS to 0. (rw)
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
    /// bit 0 LME_DONE, bit 1 LMR_NEW, bit 2 ERROR. irq = |(INT_STATUS & INT_MASK). LME_DONE and LMR_NEW are set when their source's coalescing (INT_COAL_*) signals; ERROR is never coalesced. (rw1c)
    pub const INT_STATUS: u32 = 0x080;
    /// Interrupt enables, same bits as INT_STATUS. (rw)
    pub const INT_MASK: u32 = 0x084;
    /// Sticky errors: bit 0 CSR_BAD_ADDR, 1 CSR_BAD_VALUE, 2 LME_PROD_RANGE, 3 LMR_CONS_RANGE, 4 DESC_ERROR, 5 RX_DROP, 6 PUSH_REJECT. Any set bit sets INT_STATUS.ERROR. (rw1c)
    pub const ERR_STATUS: u32 = 0x088;
    /// Coalescing of INT_STATUS.LME_DONE (int_coal format). Events are counted whatever INT_MASK says; the mask only gates the interrupt line. Signalling the pending events (or writing LME_SIZE) restarts the count and the timer; acknowledging INT_STATUS does not. New thresholds apply to the events already pending. (rw)
    pub const INT_COAL_LME_DONE: u32 = 0x090;
    /// Coalescing of INT_STATUS.LMR_NEW (int_coal format), same rules as INT_COAL_LME_DONE (LMR_SIZE restarts it). (rw)
    pub const INT_COAL_LMR_NEW: u32 = 0x094;
    /// Push window (write-combined doorbell): the next LME descriptor as eight 32-bit halves, lme_desc word i bits 31:0 at index 2i, bits 63:32 at 2i+1. The driver also writes the descriptor into its ring slot (LME_PROD). Index 7 (word 3 high half: the status field) is the trigger: its value is the new LME_PROD and is applied exactly like an LME_PROD write. The pushed copy is used instead of a ring read when the push path is free (PUSH_STATUS.FREE), indices 0..6 and the PUSH_DATA registers an inline length needs were written since the last trigger, and the value adds exactly one descriptor (LME_PROD + 1 mod LME_SIZE); otherwise the push is rejected (ERR_STATUS.PUSH_REJECT, CNT_PUSH_REJECT) and the NIC reads the ring copy as for a plain doorbell. Ordering: the pushed descriptor is its ring slot's descriptor, so it is processed and completed in ring order with the others (one completion stream: status word and LME_CONS). Writes while the push path is busy are ignored. (wo)
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
    /// DMA reads (payload or descriptor) the host answered with an error. A payload read error completes its descriptor with DMA_RD; a descriptor read error delivers the descriptor as zeros (ZERO_LEN). (ro)
    pub const CNT_DMA_RD_ERR: u32 = 0x160;
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
}
