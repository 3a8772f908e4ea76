//! The FastHSL hardware/software contract.
//!
//! Everything the card and the software must agree on is generated from
//! `host/contract/contract.toml` into `generated.rs` (and into the RTL package
//! `rtl/pkg/fasthsl_pkg.sv`); nothing here is written by hand except the
//! helpers below, which only combine generated items.

// Generated code keeps the generator's layout; `make gen-check` guards it instead of rustfmt.
#[rustfmt::skip]
mod generated;
pub use generated::*;

/// Status word of a finished LME descriptor or LMR entry.
pub fn status_done(err: DescErr) -> u16 {
    status::DONE | err as u16
}

/// Decodes a status word: `None` while the entry is not finished, else the error code
/// (`Err(code)` for a code the contract does not define).
pub fn status_decode(status: u16) -> Option<Result<DescErr, u8>> {
    if status & status::DONE == 0 {
        return None;
    }
    let code = (status & 0xFF) as u8;
    Some(DescErr::from_code(code).ok_or(code))
}

impl RegInfo {
    /// Whether `off` is the byte offset of one of this register's instances.
    pub fn holds(&self, off: u32) -> bool {
        off.checked_sub(self.offset)
            .is_some_and(|d| d % self.stride == 0 && d / self.stride < self.count)
    }

    /// Byte offsets of every instance, lowest first.
    pub fn offsets(&self) -> impl Iterator<Item = u32> {
        let (offset, stride) = (self.offset, self.stride);
        (0..self.count).map(move |i| offset + i * stride)
    }
}

/// The register of `regs` (a block's `REGISTERS`) one of whose instances is at `off`.
pub fn register_at(regs: &'static [RegInfo], off: u32) -> Option<&'static RegInfo> {
    regs.iter().find(|r| r.holds(off))
}

/// CRC-32 of a packet's header and payload flits, as the card computes it.
pub fn packet_crc(flits: &[u64]) -> u32 {
    let mut hasher = Crc32::new();
    for f in flits {
        hasher.update(&f.to_le_bytes());
    }
    hasher.finish()
}

/// Bitwise CRC-32 (IEEE, reflected): small and dependency-free; the tests pin it to crc32fast.
struct Crc32(u32);

impl Crc32 {
    fn new() -> Self {
        Crc32(0xFFFF_FFFF)
    }
    fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u32::from(b);
            for _ in 0..8 {
                self.0 = if self.0 & 1 != 0 {
                    (self.0 >> 1) ^ 0xEDB8_8320
                } else {
                    self.0 >> 1
                };
            }
        }
    }
    fn finish(self) -> u32 {
        !self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_round_trips_through_bytes() {
        let d = LmeDesc {
            local_addr: 0x1234_5678_9abc_def0,
            remote_addr: 0x0000_cba9_8765_4321,
            dctx: 5,
            len: 0xdead_beef,
            dest: 0x0102,
            flags: desc_flag::IRQ_LOCAL | desc_flag::IRQ_REMOTE,
            msg_id: 0xcafe_f00d,
            status: 0,
            key: 0xbeef,
        };
        assert_eq!(LmeDesc::from_bytes(&d.to_bytes()), d);
        assert_eq!(d.to_bytes()[30..32], 0xbeefu16.to_le_bytes());
        assert_eq!(d.to_bytes()[16..20], 0xdead_beefu32.to_le_bytes());
        assert_eq!(d.to_bytes()[20..22], 0x0102u16.to_le_bytes());
        // Word 1: the 48-bit remote address, dctx in bits 50:48, bits 63:51 clear.
        assert_eq!(d.to_words()[1], 0x0005_cba9_8765_4321);
    }

    #[test]
    fn packet_header_fields_do_not_overlap() {
        let h = PktHdr {
            dest: 0xffff,
            src: 0xffff,
            ptype: 0xf,
            first: true,
            last: true,
            attempt: 3,
            flags: 0xf,
            lag: 0xf,
            len: 0x7ff,
            dctx: 7,
            remote_addr: (1 << 48) - 1,
            key: 0xffff,
            msg_id: u32::MAX,
            offset: (1 << 24) - 1,
            seq: 0xff,
        };
        let w = h.to_words();
        assert_eq!(PktHdr::from_words(&w), h);
        // Only the reserved bits 62..63 of word 0 stay clear.
        assert_eq!(w[0], !(0b11u64 << 62));
        // Word 2: msg_id, the 24-bit offset and the sequence number fill it exactly.
        assert_eq!(w[2], u64::MAX);
        // An offset up to MSG_LEN_MAX - 1 fits its field.
        const { assert!(MSG_LEN_MAX - 1 < 1 << 24) };
        // Word 1: the 48-bit address and the key fill it exactly.
        assert_eq!(w[1], u64::MAX);
        let k = PktHdr {
            key: 0xa5c3,
            remote_addr: 0x1234_5678_9abc,
            ..PktHdr::default()
        };
        assert_eq!(k.to_words()[1], 0xa5c3_1234_5678_9abc);
    }

    /// `pub const NAME: u32 = 0x...;` items of `pub mod <module>` in generated.rs, without
    /// the arrays' `_COUNT`/`_STRIDE`: read from the source text, so the register tables
    /// are checked against the offset constants, not against themselves.
    fn offset_constants(module: &str) -> Vec<(String, u32)> {
        let src = include_str!("generated.rs");
        let start = src.find(&format!("pub mod {module} {{")).unwrap();
        let body = &src[start..];
        let body = &body[..body.find("\n}\n").unwrap()];
        body.lines()
            .filter_map(|l| l.trim().strip_prefix("pub const ")?.split_once(": u32 = "))
            .filter(|(name, _)| !name.ends_with("_COUNT") && !name.ends_with("_STRIDE"))
            .filter_map(|(name, v)| {
                let hex = v.strip_suffix(';')?.strip_prefix("0x")?;
                Some((name.to_string(), u32::from_str_radix(hex, 16).ok()?))
            })
            .collect()
    }

    #[test]
    fn register_tables_match_the_offset_constants() {
        let blocks: [(&str, &[RegInfo], u32); 3] = [
            ("nic_regs", nic_regs::REGISTERS, ROUTER_CSR_BASE as u32),
            ("router_regs", router_regs::REGISTERS, 0x1000),
            ("ctx_regs", ctx_regs::REGISTERS, ctx_regs::PAGE_STRIDE),
        ];
        for (module, regs, size) in blocks {
            let consts = offset_constants(module);
            assert!(consts.len() > 3, "{module}: {consts:?}");
            // Every constant is in the table, with its offset; nothing else is.
            assert_eq!(consts.len(), regs.len(), "{module}");
            for (name, off) in &consts {
                let r = regs.iter().find(|r| r.name == name);
                assert_eq!(r.map(|r| r.offset), Some(*off), "{module}::{name}");
            }
            // Sorted by offset; no two instances share an offset; all inside the block.
            assert!(
                regs.windows(2).all(|w| w[0].offset < w[1].offset),
                "{module}"
            );
            let mut seen = std::collections::BTreeMap::new();
            for r in regs {
                assert!(r.count >= 1 && r.stride >= 4 && r.stride % 4 == 0, "{r:?}");
                assert!((1..=32).contains(&r.width), "{r:?}");
                for off in r.offsets() {
                    assert!(off % 4 == 0 && off < size, "{r:?}");
                    assert_eq!(seen.insert(off, r.name), None, "{module} {off:#x}: {r:?}");
                    assert_eq!(register_at(regs, off), Some(r));
                    assert_eq!(register_at(regs, off + 1), None);
                }
            }
        }
    }

    #[test]
    fn nic_register_table_spot_checks() {
        let at = |off| register_at(nic_regs::REGISTERS, off);
        // Arrays: PUSH_DATA's 14 words, then nothing; the window table interleaves four
        // arrays of 16 entries.
        let last = nic_regs::PUSH_DATA + 4 * (nic_regs::PUSH_DATA_COUNT - 1);
        assert_eq!(
            at(last).map(|r| (r.name, r.access)),
            Some(("PUSH_DATA", RegAccess::Wo))
        );
        assert_eq!(at(last + 4), None);
        let win = nic_regs::WIN_CTRL + 15 * nic_regs::WIN_CTRL_STRIDE;
        assert_eq!(at(win).map(|r| r.name), Some("WIN_CTRL"));
        assert_eq!(at(win + 4), None);
        // Holes between blocks of registers stay holes.
        for hole in [
            0x018, 0x01c, 0x054, 0x08c, 0x0a8, 0x0dc, 0x0f4, 0x16c, 0x17c, 0x18c, 0x400, 0xffc,
        ] {
            assert_eq!(at(hole), None, "{hole:#x}");
        }
        // Access and width as the contract gives them.
        let r = at(nic_regs::ERR_STATUS).unwrap();
        assert_eq!(
            (r.name, r.access, r.width),
            ("ERR_STATUS", RegAccess::Rw1c, 17)
        );
        let r = at(nic_regs::CNT_RX_LMR_FULL).unwrap();
        assert_eq!((r.access, r.width), (RegAccess::Ro, 32));
        assert_eq!(at(nic_regs::REL_RETRIES).unwrap().width, 4);
    }

    #[test]
    fn status_decoding() {
        assert_eq!(status_decode(0), None);
        assert_eq!(
            status_decode(status_done(DescErr::BadDest)),
            Some(Ok(DescErr::BadDest))
        );
        assert_eq!(status_decode(status::DONE | 0x7f), Some(Err(0x7f)));
    }

    #[test]
    fn crc_matches_crc32fast() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for n in 0..64 {
            let flits: Vec<u64> = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x
                })
                .collect();
            let bytes: Vec<u8> = flits.iter().flat_map(|f| f.to_le_bytes()).collect();
            assert_eq!(packet_crc(&flits), crc32fast::hash(&bytes));
        }
    }
}
