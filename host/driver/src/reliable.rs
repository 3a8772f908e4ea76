//! End-to-end reliable delivery in one call (docs/RELIABILITY.md): the REL_CTRL bits,
//! REL_TIMEOUT and REL_RETRIES a card needs on a faulty network, applied in the one order
//! the card accepts (DEDUP only under SENDER_WAIT) and read back.

use fasthsl_contract::{nic_regs as nic, rel_ctrl};

use crate::{
    Card, Device, DriverError, DEDUP_VERSION, EARLY_NACK_VERSION, RETX_VERSION, SENDER_WAIT_VERSION,
};

/// REL_TIMEOUT after reset, ticks (contract REL_TIMEOUT: 256, ~262 µs at 250 MHz).
pub const ANSWER_TIMEOUT_RESET: u16 = 256;

/// The REL_CTRL bits [`Card::set_reliable`] and [`Card::clear_reliable`] own; ACK_OFF is
/// the receiver's own switch ([`Card::set_acknowledge`]) and stays as it is.
const OWNED: u32 = rel_ctrl::SENDER_WAIT | rel_ctrl::DEDUP | rel_ctrl::EARLY_NACK;

/// Reliable delivery as [`Card::set_reliable`] sets it: descriptors complete on their
/// receiver's answer (REL_CTRL.SENDER_WAIT, always on here), and the rest below. Configure
/// every card of a cluster alike: a receiver sizes its duplicate memory from its own
/// REL_TIMEOUT and REL_RETRIES. The default is what a faulty network needs
/// (`fasthsl bench pingpong --reliable`); change fields with struct update syntax:
///
/// ```
/// # use fasthsl_driver::ReliableConfig;
/// let cfg = ReliableConfig { retries: 15, answer_timeout: 4, ..ReliableConfig::default() };
/// assert!(cfg.dedup);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReliableConfig {
    /// REL_RETRIES: retransmissions per message after a NACK or an answer timeout,
    /// 0..=15 (contract 1.7 for more than 0). Default 7.
    pub retries: u32,
    /// REL_TIMEOUT: ticks of 2^REL_TICK_LOG2 core cycles a message waits for its answer;
    /// it must exceed the network's answer round trip. Default
    /// [`ANSWER_TIMEOUT_RESET`].
    pub answer_timeout: u16,
    /// REL_CTRL.DEDUP: the receiver drops copies of messages it already has (contract 1.7).
    /// Default on (retransmissions make copies).
    pub dedup: bool,
    /// REL_CTRL.EARLY_NACK: the receiver NACKs a deterministically routed message whose
    /// last packet arrives with bytes missing, without waiting for the sender's timeout
    /// (contract 1.8). Default on.
    pub early_nack: bool,
}

impl Default for ReliableConfig {
    fn default() -> Self {
        ReliableConfig {
            retries: 7,
            answer_timeout: ANSWER_TIMEOUT_RESET,
            dedup: true,
            early_nack: true,
        }
    }
}

impl<D: Device> Card<D> {
    /// Turns reliable delivery on as `cfg` says: REL_TIMEOUT and REL_RETRIES first (the
    /// first waiting message and the receiver's duplicate memory use them), then
    /// SENDER_WAIT, then DEDUP (which needs SENDER_WAIT) and EARLY_NACK, each through its
    /// setter ([`Card::set_answer_timeout`], [`Card::set_retries`],
    /// [`Card::set_sender_wait`], [`Card::set_dedup`], [`Card::set_early_nack`]); then
    /// reads the three registers back. Everything a setter would refuse (more than 15
    /// retries, a feature the card's contract lacks) is refused before anything is
    /// written. Receivers must answer (REL_CTRL.ACK_OFF clear, the reset state;
    /// [`Card::set_acknowledge`]), or every message completes
    /// [`crate::contract::DescErr::RetryExhausted`].
    pub fn set_reliable(&self, cfg: ReliableConfig) -> Result<(), DriverError> {
        // The setters' own checks, all before the first write.
        self.has_feature(SENDER_WAIT_VERSION, true, |version| {
            DriverError::SenderWaitUnsupported { version }
        })?;
        self.retries_allowed(cfg.retries)?;
        self.has_feature(DEDUP_VERSION, cfg.dedup, |version| {
            DriverError::DedupUnsupported { version }
        })?;
        self.has_feature(EARLY_NACK_VERSION, cfg.early_nack, |version| {
            DriverError::EarlyNackUnsupported { version }
        })?;
        self.set_answer_timeout(cfg.answer_timeout)?;
        self.set_retries(cfg.retries)?;
        self.set_sender_wait(true)?;
        self.set_dedup(cfg.dedup)?;
        self.set_early_nack(cfg.early_nack)?;
        self.verify_reliable(Some(cfg))
    }

    /// Turns reliable delivery off, back to the reset state: DEDUP off before
    /// SENDER_WAIT, EARLY_NACK off, REL_RETRIES 0, REL_TIMEOUT [`ANSWER_TIMEOUT_RESET`];
    /// then reads them back. ACK_OFF stays as it is. On a card that lacks a feature it is
    /// already off.
    pub fn clear_reliable(&self) -> Result<(), DriverError> {
        self.set_dedup(false)?;
        self.set_early_nack(false)?;
        self.set_sender_wait(false)?;
        self.set_retries(0)?;
        if self.version >= SENDER_WAIT_VERSION {
            self.set_answer_timeout(ANSWER_TIMEOUT_RESET)?;
        }
        self.verify_reliable(None)
    }

    /// Reliable delivery as the card holds it (MMIO reads): `None` while SENDER_WAIT is
    /// off (DEDUP cannot be on then), else its settings.
    pub fn reliable(&self) -> Result<Option<ReliableConfig>, DriverError> {
        if self.version < SENDER_WAIT_VERSION {
            return Ok(None);
        }
        let ctrl = self.dev.bar_read32(nic::REL_CTRL)?;
        if ctrl & rel_ctrl::SENDER_WAIT == 0 {
            return Ok(None);
        }
        Ok(Some(ReliableConfig {
            retries: self.retries()?,
            answer_timeout: (self.dev.bar_read32(nic::REL_TIMEOUT)? & 0xFFFF) as u16,
            dedup: ctrl & rel_ctrl::DEDUP != 0,
            early_nack: ctrl & rel_ctrl::EARLY_NACK != 0,
        }))
    }

    /// Reads REL_CTRL (its [`OWNED`] bits), REL_TIMEOUT and REL_RETRIES back against
    /// what `want` (None: the reset state) put there; registers the card's contract lacks
    /// are skipped.
    fn verify_reliable(&self, want: Option<ReliableConfig>) -> Result<(), DriverError> {
        let (ctrl, timeout, retries) = match want {
            Some(c) => (
                rel_ctrl::SENDER_WAIT
                    | if c.dedup { rel_ctrl::DEDUP } else { 0 }
                    | if c.early_nack {
                        rel_ctrl::EARLY_NACK
                    } else {
                        0
                    },
                c.answer_timeout,
                c.retries,
            ),
            None => (0, ANSWER_TIMEOUT_RESET, 0),
        };
        if self.version < SENDER_WAIT_VERSION {
            return Ok(());
        }
        let mut checks = vec![
            ("REL_CTRL", nic::REL_CTRL, OWNED, ctrl),
            ("REL_TIMEOUT", nic::REL_TIMEOUT, 0xFFFF, u32::from(timeout)),
        ];
        if self.version >= RETX_VERSION {
            checks.push(("REL_RETRIES", nic::REL_RETRIES, 0xF, retries));
        }
        for (register, reg, mask, wrote) in checks {
            let read = self.dev.bar_read32(reg)? & mask;
            if read != wrote {
                return Err(DriverError::ConfigRejected {
                    register,
                    wrote: wrote.into(),
                    read: read.into(),
                    err_status: self.dev.bar_read32(nic::ERR_STATUS)?,
                });
            }
        }
        Ok(())
    }
}
