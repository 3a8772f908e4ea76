//! User-level contexts (contract 1.5): an LME/LMR ring pair with its own doorbells on its
//! own 4 KiB page of BAR0 (`ctx_regs::page(n)`), so a process needs only that page to
//! send and receive. Context 0 is the card's own rings ([`crate::Card::put`] and
//! friends, configured by [`crate::Card::configure`]); a [`Context`] is one of contexts
//! 1..CTX_COUNT-1, on its own device handle (a process's own mapping of the card).
//!
//! A context touches nothing but its page (set-up: its ring registers; data path:
//! LME_PROD, LMR_CONS) and its own host memory: no lock or register is shared with other
//! contexts. Its handle can be narrowed to that page: [`crate::PageDevice::context`] on
//! any backend, `fasthsl_vfio::VfioDevice::map_context_page` (the page mapped alone) on
//! a real card; register offsets stay BAR0 offsets, so a context runs unchanged on the
//! whole BAR or on its page, and on the wrong page `open` fails with the handle's
//! refusal (`DeviceError::PageOffset`) before anything reaches the card. Node id, routes, enable and the receive window are the card's (page 0), set
//! up by whoever configured the card. The card serves the contexts with work round
//! robin, a message at a time.

use std::collections::VecDeque;

use fasthsl_contract::{ctx_regs as ctx, desc_flag, LmeDesc, LmrEntry, CTX_COUNT, RING_SIZE_MAX};
use fasthsl_device::{Device, DmaBuffer, Pace};

use crate::ring::{LmeRing, LmrCursor};
use crate::{check_put, hi32, lo32, reap_lme, reap_lmr_ring, Completion, DriverError};

/// One user-level context of a card: its rings, its page. Dropping it stops its
/// reception (LMR_SIZE 0: the card then drops and counts packets for it).
pub struct Context<D: Device> {
    dev: D,
    n: u32,
    page: u32,
    lme: DmaBuffer,
    lmr: DmaBuffer,
    ring: LmeRing,
    lmr_cursor: LmrCursor,
    next_msg_id: u32,
    done: VecDeque<Completion>,
    received: VecDeque<LmrEntry>,
}

impl<D: Device> Context<D> {
    /// Sets up context `n` (1..CTX_COUNT-1) of the card behind `dev` with rings of
    /// `lme_entries` descriptors and `lmr_entries` receive entries (2..=RING_SIZE_MAX
    /// each), through the context's page only. Fails if the page is not there (a card
    /// older than contract 1.5: outside its BAR, or not answering the context's number)
    /// or the card refuses a register (e.g. the context still has descriptors
    /// outstanding from an earlier user).
    pub fn open(dev: D, n: u32, lme_entries: u32, lmr_entries: u32) -> Result<Self, DriverError> {
        if n == 0 || n >= CTX_COUNT as u32 {
            return Err(DriverError::NoSuchContext {
                n,
                count: CTX_COUNT as u32,
            });
        }
        for (field, e) in [("lme_entries", lme_entries), ("lmr_entries", lmr_entries)] {
            if !(2..=RING_SIZE_MAX as u32).contains(&e) {
                return Err(DriverError::BadConfig {
                    field,
                    reason: format!("{e} is outside 2..={RING_SIZE_MAX}"),
                });
            }
        }
        let page = ctx::page(n);
        let lme = dev.dma_alloc(lme_entries as usize * LmeDesc::BYTES)?;
        let lmr = match dev.dma_alloc(lmr_entries as usize * LmrEntry::BYTES) {
            Ok(b) => b,
            Err(e) => {
                let _ = dev.dma_free(lme);
                return Err(e.into());
            }
        };
        let writes: [(&'static str, u32, u32); 6] = [
            ("LME_BASE_LO", ctx::LME_BASE_LO, lo32(lme.iova())),
            ("LME_BASE_HI", ctx::LME_BASE_HI, hi32(lme.iova())),
            ("LME_SIZE", ctx::LME_SIZE, lme_entries),
            ("LMR_BASE_LO", ctx::LMR_BASE_LO, lo32(lmr.iova())),
            ("LMR_BASE_HI", ctx::LMR_BASE_HI, hi32(lmr.iova())),
            ("LMR_SIZE", ctx::LMR_SIZE, lmr_entries),
        ];
        let result = (|| {
            let id = dev.bar_read32(page + ctx::ID)?;
            if id != n {
                return Err(DriverError::NoContexts { found: id });
            }
            for &(_, reg, v) in &writes {
                dev.bar_write32(page + reg, v)?;
            }
            for &(name, reg, v) in &writes {
                let read = dev.bar_read32(page + reg)?;
                if read != v {
                    return Err(DriverError::ConfigRejected {
                        register: name,
                        wrote: v.into(),
                        read: read.into(),
                        err_status: 0,
                    });
                }
            }
            Ok(())
        })();
        if let Err(e) = result {
            let _ = dev.dma_free(lme);
            let _ = dev.dma_free(lmr);
            return Err(e);
        }
        Ok(Context {
            dev,
            n,
            page,
            lme,
            lmr,
            ring: LmeRing::new(lme_entries),
            lmr_cursor: LmrCursor::new(lmr_entries),
            next_msg_id: 0,
            done: VecDeque::new(),
            received: VecDeque::new(),
        })
    }

    /// The context's number.
    pub fn number(&self) -> u32 {
        self.n
    }

    /// BAR0 offset of the context's page: all it touches on the card.
    pub fn page(&self) -> u32 {
        self.page
    }

    /// The context's device handle, for its DMA buffers.
    pub fn device(&self) -> &D {
        &self.dev
    }

    /// Posts a remote write: `len` bytes at `buf[local_offset..]` go to `remote_addr` on
    /// node `dest`, and the receiver's LMR entry goes to its context `dctx`. The checks
    /// of [`crate::Card::put`] but the destination range (page 0's DEST_RANGE, not
    /// readable from a context page: the card fails such a descriptor with BAD_DEST);
    /// always a ring descriptor (the push window is context 0's). Sends key 0: for a
    /// receiver that enforces windows, use [`Context::put_keyed`].
    /// Returns the message id (delivered in the receiver's LMR entry).
    #[allow(clippy::too_many_arguments)]
    pub fn put(
        &mut self,
        dest: u16,
        dctx: u8,
        buf: &DmaBuffer,
        local_offset: usize,
        remote_addr: u64,
        len: usize,
        flags: u16,
    ) -> Result<u32, DriverError> {
        self.put_keyed(dest, dctx, buf, local_offset, remote_addr, 0, len, flags)
    }

    /// [`Context::put`] into a receive window of the destination: `key` is the window's
    /// [`crate::RxWindow::key`] there, and a window registered for a context
    /// ([`crate::Card::register_window_for_context`]) accepts only packets whose `dctx`
    /// is its owner. As with [`crate::Card::put_keyed`], a refusal is the receiver's: the
    /// descriptor completes, the receiver drops, counts and logs the packets.
    #[allow(clippy::too_many_arguments)]
    pub fn put_keyed(
        &mut self,
        dest: u16,
        dctx: u8,
        buf: &DmaBuffer,
        local_offset: usize,
        remote_addr: u64,
        key: u16,
        len: usize,
        flags: u16,
    ) -> Result<u32, DriverError> {
        if u32::from(dctx) >= CTX_COUNT as u32 {
            return Err(DriverError::NoSuchContext {
                n: dctx.into(),
                count: CTX_COUNT as u32,
            });
        }
        check_put(
            &(0..=u16::MAX),
            dest,
            flags,
            buf.len(),
            local_offset,
            remote_addr,
            len,
        )?;
        if self.ring.free() == 0 {
            self.reap()?;
        }
        let Some((slot, _seq, doorbell)) = self.ring.push() else {
            return Err(DriverError::RingFull {
                entries: self.ring.size(),
                outstanding: self.ring.outstanding(),
            });
        };
        let msg_id = self.next_msg_id;
        self.next_msg_id = self.next_msg_id.wrapping_add(1);
        let desc = LmeDesc {
            local_addr: buf.iova() + local_offset as u64,
            remote_addr,
            dctx,
            len: len as u32,
            dest,
            flags: flags & !desc_flag::INLINE,
            msg_id,
            status: 0,
            key,
        };
        self.dev
            .mem_write(&self.lme, slot as usize * LmeDesc::BYTES, &desc.to_bytes())?;
        // The backend orders the descriptor write before the doorbell.
        self.dev.bar_write32(self.page + ctx::LME_PROD, doorbell)?;
        Ok(msg_id)
    }

    /// Descriptors posted and not yet completed (as far as the context has looked).
    pub fn outstanding(&self) -> usize {
        self.ring.outstanding()
    }

    fn reap(&mut self) -> Result<(), DriverError> {
        reap_lme(&self.dev, &self.lme, &mut self.ring, &mut self.done)
    }

    /// Completions since the last call, in posting order. Host memory only.
    pub fn poll_completions(&mut self) -> Result<Vec<Completion>, DriverError> {
        self.reap()?;
        Ok(self.done.drain(..).collect())
    }

    fn reap_lmr(&mut self) -> Result<(), DriverError> {
        if let Some(c) = reap_lmr_ring(
            &self.dev,
            &self.lmr,
            &mut self.lmr_cursor,
            &mut self.received,
        )? {
            self.dev.bar_write32(self.page + ctx::LMR_CONS, c)?;
        }
        Ok(())
    }

    /// Messages received by this context since the last call, in arrival order.
    pub fn poll_lmr(&mut self) -> Result<Vec<LmrEntry>, DriverError> {
        self.reap_lmr()?;
        Ok(self.received.drain(..).collect())
    }

    /// Waits until every posted descriptor has completed; returns their completions.
    /// `timeout_ns` is device time.
    pub fn wait_all(&mut self, timeout_ns: u64) -> Result<Vec<Completion>, DriverError> {
        let start = self.dev.now_ns();
        loop {
            self.reap()?;
            if self.ring.outstanding() == 0 {
                return Ok(self.done.drain(..).collect());
            }
            let waited_ns = self.dev.now_ns().saturating_sub(start);
            if waited_ns >= timeout_ns {
                return Err(DriverError::Timeout {
                    what: "a context's completions",
                    waited_ns,
                });
            }
            self.dev.relax(Pace::Step);
        }
    }

    /// Waits for the context's next received message. `timeout_ns` is device time.
    pub fn wait_lmr(&mut self, timeout_ns: u64) -> Result<LmrEntry, DriverError> {
        let start = self.dev.now_ns();
        loop {
            if self.received.is_empty() {
                self.reap_lmr()?;
            }
            if let Some(e) = self.received.pop_front() {
                return Ok(e);
            }
            let waited_ns = self.dev.now_ns().saturating_sub(start);
            if waited_ns >= timeout_ns {
                return Err(DriverError::Timeout {
                    what: "a context's LMR entry",
                    waited_ns,
                });
            }
            self.dev.relax(Pace::Step);
        }
    }
}

impl<D: Device> std::fmt::Debug for Context<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("n", &self.n)
            .field("outstanding", &self.ring.outstanding())
            .finish()
    }
}

impl<D: Device> Drop for Context<D> {
    fn drop(&mut self) {
        // Stop reception (the card drops and counts what still comes for the context) and,
        // if nothing is in flight, sending (the card refuses LME_SIZE otherwise). The
        // rings are not freed: an entry or status word already on its way may still be
        // written; they go with the device's memory.
        let _ = self.dev.bar_write32(self.page + ctx::LMR_SIZE, 0);
        let _ = self.reap();
        if self.ring.outstanding() == 0 {
            let _ = self.dev.bar_write32(self.page + ctx::LME_SIZE, 0);
        }
    }
}
