//! Where everything lives in a node's receive window, and the formats written there.
//!
//! Every node computes the same layout from the same [`MsgConfig`] and
//! node count, so a sender knows a receiver's slot addresses from the receiver's window
//! base alone (the only per-node fact the bootstrap must provide).

use crate::{BcastBackend, MsgConfig};

/// Bumped whenever a format or the layout changes: part of the HELLO hash, so nodes
/// running different versions refuse to talk instead of misreading each other.
pub const LAYOUT_VERSION: u64 = 2;

/// Bytes of the bootstrap (HELLO) record each peer writes.
pub const HELLO_BYTES: usize = 64;
/// `b"FHSLMSG1"` as a little-endian word: first word of a HELLO record.
pub const HELLO_MAGIC: u64 = u64::from_le_bytes(*b"FHSLMSG1");
/// Bytes of the fixed header at the start of every slot message (a SHORT's payload
/// follows it).
pub const HDR_BYTES: usize = 16;
/// Bytes of the longest header: the fixed part plus a REQ's or RSP's extension.
pub const HDR_MAX: usize = 32;
/// Alignment of slots, heap blocks and areas (a cache line).
pub const ALIGN: usize = 64;
const PAGE: usize = 4096;

/// Offsets within the receive window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Nodes in the cluster.
    pub nodes: usize,
    /// Slots each sender owns at each receiver (its credits).
    pub slots: u32,
    /// Bytes per slot: header plus the largest short payload, rounded up to [`ALIGN`].
    pub slot_bytes: usize,
    /// HELLO records: node `s` writes `[s * HELLO_BYTES, +HELLO_BYTES)`.
    pub hello_off: usize,
    /// Credit words: node `r` writes the u64 at `credit_off + 8 * r`.
    pub credit_off: usize,
    /// Broadcast credit words: node `r` writes the u64 at `bcredit_off + 8 * r`, the
    /// number of this node's hardware broadcasts it has consumed.
    pub bcredit_off: usize,
    /// Slot area: sender `s`'s slot `i` is at `slots_off + (s * slots + i) * slot_bytes`.
    pub slots_off: usize,
    /// Broadcast slots per root (0: no hardware broadcast backend configured).
    pub bslots: u32,
    /// Broadcast slot area: root `s`'s slot `i` is at
    /// `bslots_off + (s * bslots + i) * slot_bytes`, at the same offset on every node, so
    /// one broadcast put from `s` fills it everywhere.
    pub bslots_off: usize,
    /// First byte of the heap (registered message buffers); it ends at the window's end.
    pub heap_off: usize,
}

fn align_up(v: usize, a: usize) -> usize {
    v.div_ceil(a) * a
}

impl Layout {
    /// The layout for `nodes` nodes and `cfg`.
    pub fn new(nodes: usize, cfg: &MsgConfig) -> Layout {
        let slot_bytes = align_up(HDR_BYTES + cfg.short_max, ALIGN);
        let hello_off = 0;
        let credit_off = align_up(hello_off + nodes * HELLO_BYTES, ALIGN);
        let bcredit_off = align_up(credit_off + nodes * 8, ALIGN);
        let slots_off = align_up(bcredit_off + nodes * 8, PAGE);
        let bslots = match cfg.bcast {
            BcastBackend::SoftwareTree => 0,
            BcastBackend::Hardware => cfg.bcast_slots,
        };
        let bslots_off = align_up(
            slots_off + nodes * cfg.slots_per_peer as usize * slot_bytes,
            PAGE,
        );
        let heap_off = align_up(bslots_off + nodes * bslots as usize * slot_bytes, PAGE);
        Layout {
            nodes,
            slots: cfg.slots_per_peer,
            slot_bytes,
            hello_off,
            credit_off,
            bcredit_off,
            slots_off,
            bslots,
            bslots_off,
            heap_off,
        }
    }

    /// Offset of root `root`'s broadcast slot `i`.
    pub fn bslot_off(&self, root: usize, i: u32) -> usize {
        self.bslots_off + (root * self.bslots as usize + i as usize) * self.slot_bytes
    }

    /// Offset of sender `src`'s slot `i`.
    pub fn slot_off(&self, src: usize, i: u32) -> usize {
        self.slots_off + (src * self.slots as usize + i as usize) * self.slot_bytes
    }

    /// What a received write at window offset `off` from `src` is.
    pub fn classify(&self, src: usize, off: usize) -> Area {
        if src >= self.nodes {
            return Area::Unknown;
        }
        if off == self.hello_off + src * HELLO_BYTES {
            return Area::Hello;
        }
        if off == self.credit_off + src * 8 {
            return Area::Credit;
        }
        if off == self.bcredit_off + src * 8 {
            return Area::BcastCredit;
        }
        let bfirst = self.bslot_off(src, 0);
        let bend = self.bslot_off(src + 1, 0);
        if (bfirst..bend).contains(&off) && (off - bfirst).is_multiple_of(self.slot_bytes) {
            return Area::BcastSlot(((off - bfirst) / self.slot_bytes) as u32);
        }
        let first = self.slot_off(src, 0);
        let end = self.slot_off(src + 1, 0);
        if (first..end).contains(&off) && (off - first).is_multiple_of(self.slot_bytes) {
            return Area::Slot;
        }
        if off >= self.heap_off {
            return Area::Heap;
        }
        Area::Unknown
    }

    /// FNV-1a over everything two nodes must agree on; `hw_bcast`: the hardware
    /// broadcast backend is in use (not only configured).
    pub fn hash(&self, short_max: usize, hw_bcast: bool) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for v in [
            LAYOUT_VERSION,
            self.nodes as u64,
            u64::from(self.slots),
            self.slot_bytes as u64,
            short_max as u64,
            u64::from(self.bslots),
            u64::from(hw_bcast),
        ] {
            for b in v.to_le_bytes() {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x100_0000_01b3);
            }
        }
        h
    }
}

/// Kinds of received writes, by where they landed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Area {
    /// The sender's HELLO record.
    Hello,
    /// The sender's credit word.
    Credit,
    /// One of the sender's slots.
    Slot,
    /// The sender's broadcast credit word: how many of our broadcasts it consumed.
    BcastCredit,
    /// Broadcast slot `i` of the sender (the root of a hardware broadcast).
    BcastSlot(u32),
    /// The heap: rendezvous data.
    Heap,
    /// Nowhere the layer writes to: counted as a protocol error.
    Unknown,
}

/// Slot message kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// Eager message: the payload follows the header.
    Short = 1,
    /// Rendezvous request: `len` bytes are waiting at the sender, `sreq` names them.
    Req = 2,
    /// Rendezvous reply: write `len` bytes of `sreq` to `addr`.
    Rsp = 3,
    /// Hardware broadcast (in a broadcast slot): the payload follows the header; `seq`
    /// numbers the root's broadcasts.
    Bcast = 4,
}

/// The header of a slot message: 16 bytes, then 8 (REQ) or 16 (RSP) bytes of extension.
/// Kept short because every eager message carries it: payloads up to 48 bytes still fit
/// the 64 bytes a pushed descriptor carries inline.
///
/// | word | bits | field |
/// |---|---|---|
/// | 0 | 7:0 | kind |
/// | 0 | 31:8 | SHORT, BCAST: payload bytes (0 otherwise) |
/// | 0 | 63:32 | seq: per (sender, receiver) message number |
/// | 1 | 31:0 | tag |
/// | 1 | 63:32 | ack: messages from the receiver the sender has consumed (credits) |
/// | 2 | 31:0 | REQ: message bytes; RSP: bytes granted |
/// | 2 | 63:32 | sreq: the sender's request id (REQ, RSP) |
/// | 3 | 63:0 | RSP: target bus address |
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Message kind.
    pub kind: Kind,
    /// Sequence number.
    pub seq: u32,
    /// Tag.
    pub tag: u32,
    /// SHORT: payload bytes (< 2^24); REQ: message bytes; RSP: bytes granted.
    pub len: u32,
    /// Piggybacked credit return.
    pub ack: u32,
    /// Sender request id (REQ, RSP).
    pub sreq: u32,
    /// Target address (RSP).
    pub addr: u64,
}

impl Header {
    /// Bytes of this kind's header.
    pub fn bytes(kind: Kind) -> usize {
        match kind {
            Kind::Short | Kind::Bcast => HDR_BYTES,
            Kind::Req => HDR_BYTES + 8,
            Kind::Rsp => HDR_MAX,
        }
    }

    /// The bytes written at the start of the slot.
    pub fn to_bytes(&self) -> Vec<u8> {
        let short_len = if matches!(self.kind, Kind::Short | Kind::Bcast) {
            u64::from(self.len & 0xFF_FFFF)
        } else {
            0
        };
        let w = [
            self.kind as u64 | short_len << 8 | u64::from(self.seq) << 32,
            u64::from(self.tag) | u64::from(self.ack) << 32,
            u64::from(self.len) | u64::from(self.sreq) << 32,
            self.addr,
        ];
        let mut out: Vec<u8> = w.iter().flat_map(|v| v.to_le_bytes()).collect();
        out.truncate(Self::bytes(self.kind));
        out
    }

    /// Decodes a header from the first [`HDR_MAX`] bytes of a slot; `None` for an unknown
    /// kind (an empty or corrupted slot).
    pub fn from_bytes(b: &[u8; HDR_MAX]) -> Option<Header> {
        let w = |i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
        let kind = match w(0) as u8 {
            1 => Kind::Short,
            2 => Kind::Req,
            3 => Kind::Rsp,
            4 => Kind::Bcast,
            _ => return None,
        };
        let (len, sreq, addr) = match kind {
            Kind::Short | Kind::Bcast => (((w(0) >> 8) & 0xFF_FFFF) as u32, 0, 0),
            Kind::Req => (w(2) as u32, (w(2) >> 32) as u32, 0),
            Kind::Rsp => (w(2) as u32, (w(2) >> 32) as u32, w(3)),
        };
        Some(Header {
            kind,
            seq: (w(0) >> 32) as u32,
            tag: w(1) as u32,
            len,
            ack: (w(1) >> 32) as u32,
            sreq,
            addr,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips_and_rejects_empty_slots() {
        let h = Header {
            kind: Kind::Rsp,
            seq: 0xDEAD_BEEF,
            tag: 7,
            len: 1 << 20,
            ack: 3,
            sreq: 0x1234_5678,
            addr: 0x2_0000_1000,
        };
        let decode = |h: &Header| {
            let mut b = [0xEEu8; HDR_MAX];
            let bytes = h.to_bytes();
            assert_eq!(bytes.len(), Header::bytes(h.kind));
            b[..bytes.len()].copy_from_slice(&bytes);
            Header::from_bytes(&b)
        };
        assert_eq!(decode(&h), Some(h));
        let req = Header {
            kind: Kind::Req,
            addr: 0,
            ..h
        };
        assert_eq!(decode(&req), Some(req));
        let short = Header {
            kind: Kind::Short,
            len: 4080,
            sreq: 0,
            addr: 0,
            ..h
        };
        assert_eq!(decode(&short), Some(short));
        let bc = Header {
            kind: Kind::Bcast,
            len: 17,
            ..short
        };
        assert_eq!(decode(&bc), Some(bc));
        assert_eq!(Header::from_bytes(&[0; HDR_MAX]), None);
    }

    #[test]
    fn areas_do_not_overlap_and_classify() {
        let cfg = MsgConfig::default();
        let l = Layout::new(8, &cfg);
        assert!(l.credit_off >= l.hello_off + 8 * HELLO_BYTES);
        assert!(l.slots_off >= l.credit_off + 8 * 8);
        assert!(l.heap_off >= l.slot_off(8, 0));
        assert_eq!(l.slot_bytes % ALIGN, 0);
        assert!(l.slot_bytes >= HDR_BYTES + cfg.short_max);
        assert_eq!(l.classify(3, 3 * HELLO_BYTES), Area::Hello);
        assert_eq!(
            l.classify(3, 2 * HELLO_BYTES),
            Area::Unknown,
            "node 2's record"
        );
        assert_eq!(l.classify(5, l.credit_off + 40), Area::Credit);
        assert_eq!(l.classify(2, l.slot_off(2, 5)), Area::Slot);
        assert_eq!(
            l.classify(2, l.slot_off(3, 0)),
            Area::Unknown,
            "node 3's slot"
        );
        assert_eq!(l.classify(2, l.slot_off(2, 1) + 8), Area::Unknown);
        assert_eq!(l.classify(0, l.heap_off), Area::Heap);
        assert_eq!(l.classify(8, l.heap_off), Area::Unknown, "no node 8");
        assert_eq!(l.bslots, 0, "no broadcast slots for the software tree");
        assert_eq!(l.classify(4, l.bcredit_off + 32), Area::BcastCredit);
    }

    #[test]
    fn broadcast_slots_sit_between_the_slots_and_the_heap() {
        let cfg = MsgConfig {
            bcast: BcastBackend::Hardware,
            ..MsgConfig::default()
        };
        let l = Layout::new(8, &cfg);
        assert_eq!(l.bslots, cfg.bcast_slots);
        assert!(l.bslots_off >= l.slot_off(8, 0));
        assert!(l.heap_off >= l.bslot_off(8, 0));
        assert_eq!(l.classify(3, l.bslot_off(3, 2)), Area::BcastSlot(2));
        assert_eq!(
            l.classify(3, l.bslot_off(3, cfg.bcast_slots - 1)),
            Area::BcastSlot(cfg.bcast_slots - 1)
        );
        assert_eq!(l.classify(3, l.bslot_off(4, 0)), Area::Unknown, "node 4's");
        assert_eq!(l.classify(3, l.bslot_off(3, 1) + 64), Area::Unknown);
        let sw = Layout::new(8, &MsgConfig::default());
        assert_ne!(l.hash(4080, true), sw.hash(4080, false));
        assert_ne!(l.hash(4080, true), l.hash(4080, false));
    }

    #[test]
    fn hash_depends_on_what_peers_must_share() {
        let cfg = MsgConfig::default();
        let a = Layout::new(3, &cfg);
        assert_eq!(
            a.hash(cfg.short_max, false),
            Layout::new(3, &cfg).hash(cfg.short_max, false)
        );
        assert_ne!(
            a.hash(cfg.short_max, false),
            Layout::new(4, &cfg).hash(cfg.short_max, false)
        );
        let more = MsgConfig {
            slots_per_peer: cfg.slots_per_peer + 1,
            ..cfg.clone()
        };
        assert_ne!(
            a.hash(cfg.short_max, false),
            Layout::new(3, &more).hash(cfg.short_max, false)
        );
    }
}
