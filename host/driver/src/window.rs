//! Receive windows with keys (docs/WINDOWS.md): the receiver registers pieces of its
//! receive region in the card's window table, each with a key the driver draws; a sender
//! puts the key into its descriptors ([`Card::put_keyed`]), and the card writes a packet
//! only if its key names a valid window that holds all of its bytes and allows its type.
//! Everything else is dropped by the card, counted ([`WinStats`]) and logged
//! ([`Card::take_window_reject`]).

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

use fasthsl_contract::{nic_regs as nic, win_cfg, WinCtrl, WinRej, WinRejInfo, CTX_COUNT};

use crate::{Card, Device, DriverError};

/// First contract version with the receive window table.
pub(crate) const WINDOWS_VERSION: u32 = 0x0001_0005;
/// Windows in the card's table.
pub const WINDOWS: usize = nic::WIN_CTRL_COUNT as usize;
/// WIN_REJ_INFO write that clears the log (its valid bit, write 1 to clear).
const LOG_CLEAR: u32 = 1 << 31;
/// Largest window the WIN_LEN register can describe, bytes.
pub const WINDOW_LEN_MAX: usize = u32::MAX as usize;

/// What a window lets in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct WindowPerms {
    /// Remote writes (ptype WRITE).
    pub write: bool,
    /// Broadcast writes (ptype BCAST): every receiver of a broadcast registers its own
    /// window with the key the broadcast carries ([`Card::register_window_with_key`]).
    pub bcast: bool,
}

impl WindowPerms {
    /// Remote writes only.
    pub const WRITE: WindowPerms = WindowPerms {
        write: true,
        bcast: false,
    };
}

/// A registered receive window. Give [`RxWindow::addr`] and [`RxWindow::key`] to the
/// senders; [`Card::deregister_window`] takes it back.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct RxWindow {
    index: u8,
    key: u16,
    offset: usize,
    len: usize,
    addr: u64,
    perms: WindowPerms,
    owner: u8,
}

impl RxWindow {
    /// The key senders put into their descriptors: bits 3:0 the table index, bits 15:4 a
    /// tag drawn at random, so the index alone does not open the window.
    pub fn key(&self) -> u16 {
        self.key
    }
    /// Bus address of the window's first byte (what senders use as `remote_addr`).
    pub fn addr(&self) -> u64 {
        self.addr
    }
    /// Offset of the window in this card's receive region ([`Card::read_rx`]).
    pub fn offset(&self) -> usize {
        self.offset
    }
    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }
    /// True for a zero-length window (which accepts nothing).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The context whose packets it accepts (packets name it as their destination
    /// context; 0 for [`Card::register_window`]).
    pub fn owner(&self) -> u8 {
        self.owner
    }
    /// Index in the card's table.
    pub fn index(&self) -> usize {
        usize::from(self.index)
    }
    /// What it lets in.
    pub fn perms(&self) -> WindowPerms {
        self.perms
    }
}

/// The first refusal the card logged (WIN_REJ_*).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowReject {
    /// Node that sent the refused packet.
    pub src: u16,
    /// Why (`Err(code)` for a code the contract does not define).
    pub reason: Result<WinRej, u8>,
    /// Packet type.
    pub ptype: u8,
    /// The packet's message id.
    pub msg_id: u32,
    /// The packet's remote address (48 bits).
    pub addr: u64,
    /// The key it carried.
    pub key: u16,
}

/// Window refusal counters (and the outer-window drops, for the total).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WinStats {
    /// CNT_RX_REJECT_KEY: no valid window for the key, wrong tag, or wrong context.
    pub reject_key: u32,
    /// CNT_RX_REJECT_PERM: the window does not allow the packet type.
    pub reject_perm: u32,
    /// CNT_RX_REJECT_RANGE: not entirely inside the window.
    pub reject_range: u32,
    /// WIN_CFG.ENFORCE: keys are checked.
    pub enforced: bool,
}

impl WinStats {
    /// `(name, value)` of every counter, for printing.
    pub fn fields(&self) -> [(&'static str, u32); 3] {
        [
            ("rx_reject_key", self.reject_key),
            ("rx_reject_perm", self.reject_perm),
            ("rx_reject_range", self.reject_range),
        ]
    }
    /// Packets the window table refused.
    pub fn rejected(&self) -> u32 {
        self.reject_key + self.reject_perm + self.reject_range
    }
}

/// Per-configuration window bookkeeping of the driver.
#[derive(Debug)]
pub(crate) struct WindowTable {
    used: [bool; WINDOWS],
    /// Last tag given to each index, so a reused index never gets its old key back.
    last_tag: [u16; WINDOWS],
    hasher: RandomState,
    draws: u64,
}

impl WindowTable {
    pub(crate) fn new() -> Self {
        WindowTable {
            used: [false; WINDOWS],
            last_tag: [0; WINDOWS],
            hasher: RandomState::new(),
            draws: 0,
        }
    }

    /// A 12-bit tag from the process's random hash keys; never 0 (key-less puts carry
    /// key 0) and never the index's last one (a stale key must not open a reused index).
    fn draw_tag(&mut self, index: usize) -> u16 {
        loop {
            let mut h = self.hasher.build_hasher();
            h.write_u64(self.draws);
            self.draws += 1;
            let tag = (h.finish() & 0xFFF) as u16;
            if tag != 0 && tag != self.last_tag[index] {
                return tag;
            }
        }
    }
}

fn win_reg(base: u32, index: usize) -> u32 {
    base + index as u32 * nic::WIN_CTRL_STRIDE
}

impl<D: Device> Card<D> {
    fn windows_supported(&self) -> Result<(), DriverError> {
        if self.version < WINDOWS_VERSION {
            return Err(DriverError::WindowsUnsupported {
                version: self.version,
            });
        }
        Ok(())
    }

    /// Clears the card's window table and turns enforcement off (at configuration: an
    /// earlier user's windows must not survive it).
    pub(crate) fn clear_windows(&self) -> Result<(), DriverError> {
        if self.version < WINDOWS_VERSION {
            return Ok(());
        }
        self.dev.bar_write32(nic::WIN_CFG, 0)?;
        for i in 0..WINDOWS {
            self.dev.bar_write32(win_reg(nic::WIN_CTRL, i), 0)?;
        }
        self.dev.bar_write32(nic::WIN_REJ_INFO, LOG_CLEAR)?;
        Ok(())
    }

    /// Registers `[offset, offset + len)` of this card's receive region as a window with
    /// a fresh key. From the first registration on the card enforces keys: every incoming
    /// write must carry the key of a window that holds it (until the next
    /// [`Card::configure`]). Writes that do not are dropped by the card, never written.
    pub fn register_window(
        &mut self,
        offset: usize,
        len: usize,
        perms: WindowPerms,
    ) -> Result<RxWindow, DriverError> {
        self.add_window(offset, len, perms, None, 0)
    }

    /// [`Card::register_window`] for context `owner` of this card (a
    /// [`crate::Context`]): the card accepts a packet in it only if the packet names
    /// `owner` as its destination context (`dctx` of [`crate::Context::put_keyed`]);
    /// with the right key but another context it is refused (reason CTX).
    pub fn register_window_for_context(
        &mut self,
        owner: u8,
        offset: usize,
        len: usize,
        perms: WindowPerms,
    ) -> Result<RxWindow, DriverError> {
        if u32::from(owner) >= CTX_COUNT as u32 {
            return Err(DriverError::NoSuchContext {
                n: owner.into(),
                count: CTX_COUNT as u32,
            });
        }
        self.add_window(offset, len, perms, None, owner)
    }

    /// [`Card::register_window`] with a key chosen by the caller, e.g. the key of a
    /// broadcast that every receiver registers alike. Its index (key bits 3:0) must be free.
    pub fn register_window_with_key(
        &mut self,
        offset: usize,
        len: usize,
        perms: WindowPerms,
        key: u16,
    ) -> Result<RxWindow, DriverError> {
        self.add_window(offset, len, perms, Some(key), 0)
    }

    fn add_window(
        &mut self,
        offset: usize,
        len: usize,
        perms: WindowPerms,
        key: Option<u16>,
        owner: u8,
    ) -> Result<RxWindow, DriverError> {
        self.windows_supported()?;
        let a = self.active()?;
        let rx_len = a.rx.len();
        // Only memory the driver mapped for receiving can become a window.
        if len > WINDOW_LEN_MAX || offset.checked_add(len).is_none_or(|end| end > rx_len) {
            return Err(DriverError::WindowRange {
                offset,
                len,
                rx_len,
            });
        }
        let addr = a.rx.iova() + offset as u64;
        let a = self.active_mut()?;
        let index = match key {
            Some(k) => {
                let i = usize::from(k & 0xF);
                if a.windows.used[i] {
                    return Err(DriverError::WindowKeyInUse { key: k });
                }
                i
            }
            None => a
                .windows
                .used
                .iter()
                .position(|u| !u)
                .ok_or(DriverError::WindowsFull { windows: WINDOWS })?,
        };
        let tag = match key {
            Some(k) => k >> 4,
            None => a.windows.draw_tag(index),
        };
        a.windows.used[index] = true;
        a.windows.last_tag[index] = tag;
        let ctrl = WinCtrl {
            valid: true,
            write: perms.write,
            bcast: perms.bcast,
            owner,
            tag,
        }
        .to_words()[0];
        let d = &self.dev;
        // Invalid while its bounds change, so no packet is checked against half of them.
        d.bar_write32(win_reg(nic::WIN_CTRL, index), 0)?;
        d.bar_write32(win_reg(nic::WIN_BASE_LO, index), addr as u32)?;
        d.bar_write32(win_reg(nic::WIN_BASE_HI, index), (addr >> 32) as u32)?;
        d.bar_write32(win_reg(nic::WIN_LEN, index), len as u32)?;
        d.bar_write32(win_reg(nic::WIN_CTRL, index), ctrl)?;
        d.bar_write32(nic::WIN_CFG, win_cfg::ENFORCE)?;
        let read = d.bar_read32(win_reg(nic::WIN_CTRL, index))?;
        if read != ctrl {
            return Err(DriverError::ConfigRejected {
                register: "WIN_CTRL",
                wrote: ctrl.into(),
                read: read.into(),
                err_status: d.bar_read32(nic::ERR_STATUS)?,
            });
        }
        Ok(RxWindow {
            index: index as u8,
            key: tag << 4 | index as u16,
            offset,
            len,
            addr,
            perms,
            owner,
        })
    }

    /// Takes a window back: once this returns, the card refuses every packet that carries
    /// its key and has not been accepted yet (the read flushes the write). Packets the
    /// card had already accepted into its receive buffer may still land; a caller that
    /// reuses the memory waits for the messages it expects, or for quiet on the link.
    pub fn deregister_window(&mut self, w: RxWindow) -> Result<(), DriverError> {
        self.windows_supported()?;
        let i = w.index();
        let a = self.active_mut()?;
        a.windows.used[i] = false;
        self.dev.bar_write32(win_reg(nic::WIN_CTRL, i), 0)?;
        self.dev.bar_read32(win_reg(nic::WIN_CTRL, i))?;
        Ok(())
    }

    /// Window refusal counters.
    pub fn window_stats(&self) -> Result<WinStats, DriverError> {
        if self.version < WINDOWS_VERSION {
            return Ok(WinStats::default());
        }
        let d = &self.dev;
        Ok(WinStats {
            reject_key: d.bar_read32(nic::CNT_RX_REJECT_KEY)?,
            reject_perm: d.bar_read32(nic::CNT_RX_REJECT_PERM)?,
            reject_range: d.bar_read32(nic::CNT_RX_REJECT_RANGE)?,
            enforced: d.bar_read32(nic::WIN_CFG)? & win_cfg::ENFORCE != 0,
        })
    }

    /// The first refusal logged since the last call (window table or outer window), and
    /// re-arms the log; `None` when nothing was refused. Later refusals before this call
    /// are only counted ([`Card::window_stats`], [`crate::Counters::rx_drop_window`]).
    pub fn take_window_reject(&mut self) -> Result<Option<WindowReject>, DriverError> {
        self.windows_supported()?;
        let d = &self.dev;
        let info = WinRejInfo::from_words(&[d.bar_read32(nic::WIN_REJ_INFO)?]);
        if !info.valid {
            return Ok(None);
        }
        let msg_id = d.bar_read32(nic::WIN_REJ_MSG_ID)?;
        let lo = d.bar_read32(nic::WIN_REJ_ADDR_LO)?;
        let hi = d.bar_read32(nic::WIN_REJ_ADDR_HI)?;
        d.bar_write32(nic::WIN_REJ_INFO, LOG_CLEAR)?;
        Ok(Some(WindowReject {
            src: info.src,
            reason: WinRej::from_code(info.reason).ok_or(info.reason),
            ptype: info.ptype,
            msg_id,
            addr: u64::from(hi & 0xFFFF) << 32 | u64::from(lo),
            key: (hi >> 16) as u16,
        }))
    }
}
