//! What the FastHSL driver needs from a card, and nothing more.
//!
//! One trait, [`Device`], with a backend per way of reaching a card: Linux VFIO for a
//! real board (`fasthsl-vfio`) and the in-process Verilator model (`fasthsl-sim`). The
//! driver is written once against the trait, so the simulated card exercises the same
//! code paths as the real one.
//!
//! DMA memory is owned by the backend and reached through [`Device::mem_read`] /
//! [`Device::mem_write`] rather than through Rust references: the card writes it behind
//! the compiler's back, so on real hardware every access must be volatile, and in the
//! simulator the memory lives inside the host model.
//!
//! [`PageDevice`] narrows any device to one 4 KiB page of BAR0 (a user-level context's
//! page, [`BarPage::context`]): register accesses outside it are refused before they
//! reach the card; the VFIO backend has its own page handle that maps only the page.
//!
//! A wrapper that passes most methods to an inner device states only the ones it changes
//! and lists the rest in [`forward_device!`].

use std::fmt;

#[macro_use]
mod forward;
mod page;

pub use page::{BarPage, PageDevice, BAR_PAGE};

/// Errors a backend reports at the library boundary.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// A register access outside BAR0.
    #[error("BAR0 offset {offset:#x} is outside the {size:#x}-byte BAR")]
    BarOffset { offset: u32, size: u32 },
    /// A DMA buffer access outside the buffer.
    #[error(
        "access [{offset:#x}, +{len:#x}) is outside the {size:#x}-byte DMA buffer at {iova:#x}"
    )]
    DmaBounds {
        iova: u64,
        offset: usize,
        len: usize,
        size: usize,
    },
    /// The buffer handle does not belong to this device (or was freed).
    #[error("DMA buffer at {iova:#x} is not mapped on this device")]
    UnknownBuffer { iova: u64 },
    /// No DMA memory left (simulated host memory, IOVA space, or locked-memory limit).
    #[error("cannot allocate {len:#x} bytes of DMA memory: {reason}")]
    OutOfMemory { len: usize, reason: String },
    /// Waiting for an interrupt is not possible on this device (no vector set up).
    #[error("interrupts are not available: {0}")]
    NoInterrupts(String),
    /// An operating-system call failed; `what` says which and what to do about it.
    #[error("{what}: {source}")]
    Os {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// Anything else a backend needs to say, with an actionable message.
    #[error("{0}")]
    Backend(String),
    /// A page handle asked for a page that is not one (not 4 KiB aligned, past the BAR,
    /// or the page of a context the card does not have).
    #[error("no BAR0 page at {base:#x}: {reason}")]
    BadPage { base: u64, reason: String },
    /// A register access through a page handle ([`PageDevice`], a backend's page
    /// mapping) outside its page, or not 4-byte aligned: refused before it reaches the card.
    #[error("BAR0 offset {offset:#x} is not a register of this handle's page [{base:#x}, +0x1000): {reason}")]
    PageOffset {
        offset: u32,
        base: u32,
        reason: &'static str,
    },
}

/// A DMA-able buffer: host memory the card may read and write, at a bus address (IOVA).
///
/// The handle only names the memory; the backend that created it owns it. Buffers are
/// page-aligned and zeroed when allocated.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct DmaBuffer {
    id: u64,
    iova: u64,
    len: usize,
}

impl DmaBuffer {
    /// For backends: names memory the backend has mapped at `iova`.
    pub fn new(id: u64, iova: u64, len: usize) -> Self {
        DmaBuffer { id, iova, len }
    }
    /// Backend-private identifier.
    pub fn id(&self) -> u64 {
        self.id
    }
    /// Bus address of the first byte, as the card sees it.
    pub fn iova(&self) -> u64 {
        self.iova
    }
    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }
    /// True for a zero-length buffer.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Checks that `[offset, offset+len)` lies inside the buffer.
    pub fn check(&self, offset: usize, len: usize) -> Result<(), DeviceError> {
        match offset.checked_add(len) {
            Some(end) if end <= self.len => Ok(()),
            _ => Err(DeviceError::DmaBounds {
                iova: self.iova,
                offset,
                len,
                size: self.len,
            }),
        }
    }
}

/// How a poll loop should wait between two looks at host memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// Let the card make the smallest step of progress (simulator: one clock cycle).
    Step,
}

/// Access to one FastHSL card.
///
/// Methods take `&self`: a driver holds one device, and simulated cards of one cluster
/// share a single simulation, so backends use interior mutability where they need it.
pub trait Device {
    /// Where the card is: a PCI address, or "sim node N".
    fn name(&self) -> String;

    /// Reads a 32-bit register of BAR0. On the simulator this costs a modeled read round trip.
    fn bar_read32(&self, offset: u32) -> Result<u32, DeviceError>;

    /// Writes a 32-bit register of BAR0 (posted). Host-memory writes made before it are
    /// visible to the card before this write arrives (doorbell ordering).
    fn bar_write32(&self, offset: u32, value: u32) -> Result<(), DeviceError>;

    /// Allocates zeroed, page-aligned DMA memory mapped for the card.
    fn dma_alloc(&self, len: usize) -> Result<DmaBuffer, DeviceError>;

    /// Unmaps and releases a buffer.
    fn dma_free(&self, buf: DmaBuffer) -> Result<(), DeviceError>;

    /// Copies `data` into a DMA buffer at `offset`.
    fn mem_write(&self, buf: &DmaBuffer, offset: usize, data: &[u8]) -> Result<(), DeviceError>;

    /// Copies from a DMA buffer at `offset` into `out`.
    fn mem_read(&self, buf: &DmaBuffer, offset: usize, out: &mut [u8]) -> Result<(), DeviceError>;

    /// Called by poll loops between two looks at memory or registers: the simulated card
    /// advances, real hardware gets a spin hint.
    fn relax(&self, pace: Pace);

    /// Waits for the card's interrupt for at most `timeout_ns` (modeled time on the
    /// simulator). Returns whether it fired; the caller then reads INT_STATUS.
    fn wait_irq(&self, timeout_ns: u64) -> Result<bool, DeviceError>;

    /// Nanoseconds on the device's clock: modeled time on the simulator (deterministic),
    /// a monotonic clock on real hardware.
    fn now_ns(&self) -> u64;

    /// Core clock cycles since the card came up, where the backend knows them (simulator).
    fn cycles(&self) -> Option<u64>;

    /// Reads a little-endian u64 from a DMA buffer.
    fn mem_read_u64(&self, buf: &DmaBuffer, offset: usize) -> Result<u64, DeviceError> {
        let mut b = [0u8; 8];
        self.mem_read(buf, offset, &mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    /// Writes a little-endian u64 into a DMA buffer.
    fn mem_write_u64(&self, buf: &DmaBuffer, offset: usize, value: u64) -> Result<(), DeviceError> {
        self.mem_write(buf, offset, &value.to_le_bytes())
    }
}

/// A borrowed device is a device: a [`PageDevice`] or a context can share the handle of
/// the card's owner in the same process (a vfio-user socket serves one connection).
impl<D: Device + ?Sized> Device for &D {
    forward_device!(self => (**self); name, bar_read32, bar_write32, dma_alloc, dma_free,
        mem_write, mem_read, relax, wait_irq, now_ns, cycles, mem_read_u64, mem_write_u64);
}

impl fmt::Display for DmaBuffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}+{:#x}", self.iova, self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_check_rejects_overflow_and_overrun() {
        let b = DmaBuffer::new(1, 0x1000, 64);
        assert!(b.check(0, 64).is_ok());
        assert!(b.check(64, 0).is_ok());
        assert!(matches!(b.check(60, 8), Err(DeviceError::DmaBounds { .. })));
        assert!(matches!(
            b.check(usize::MAX, 2),
            Err(DeviceError::DmaBounds { .. })
        ));
    }
}
