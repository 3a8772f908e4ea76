//! One 4 KiB page of BAR0 as a device handle: what a process that owns one user-level
//! context of the card should be able to reach (issue 4).
//!
//! A page handle keeps BAR0 offsets as they are (a context's registers are at
//! `ctx_regs::page(n) + reg` through the page handle as through the whole BAR), so code
//! written for a context, `fasthsl_driver::Context` included, runs unchanged on either;
//! an access outside the page is refused with [`DeviceError::PageOffset`] before it
//! reaches the card.
//!
//! [`PageDevice`] is the restriction for any backend: it checks, and passes what is in
//! the page to the whole-BAR device it wraps. How real that restriction is depends on the
//! backend: the VFIO backend's own page handle (`fasthsl_vfio::VfioPage`) maps only the
//! page, so no pointer to another page exists in the handle; the simulator and the
//! vfio-user client are reached through calls, and there the wrapper's check is the
//! restriction. DMA memory is the wrapped device's (the same IOMMU mapping): a page
//! handle does not isolate DMA (docs/ARCHITECTURE.md, *Contexts*).

use fasthsl_contract::{BAR0_SIZE, CTX_COUNT, CTX_PAGE_BASE, CTX_PAGE_STRIDE};

use crate::{Device, DeviceError};

/// Bytes of a BAR page: the smallest unit an MMU maps on the hosts the card targets.
pub const BAR_PAGE: u32 = 0x1000;

// A context page must be exactly one mappable page, or a page handle would cut a
// context's registers in two (or reach a neighbour's).
const _: () = assert!(CTX_PAGE_STRIDE == BAR_PAGE as u64);
const _: () = assert!(CTX_PAGE_BASE.is_multiple_of(BAR_PAGE as u64));

/// A 4 KiB page of BAR0: its offset, and the check of a register offset against it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BarPage {
    base: u32,
}

impl BarPage {
    /// The page at BAR0 offset `base` of a BAR of `bar_len` bytes. Refused when `base` is
    /// not a multiple of 4 KiB or the page does not end inside the BAR.
    pub fn new(base: u64, bar_len: u64) -> Result<Self, DeviceError> {
        let bad = |reason: String| Err(DeviceError::BadPage { base, reason });
        if !base.is_multiple_of(u64::from(BAR_PAGE)) {
            return bad(format!("not a multiple of {BAR_PAGE:#x}"));
        }
        match base.checked_add(u64::from(BAR_PAGE)) {
            Some(end) if end <= bar_len && end <= 1 << 32 => Ok(BarPage { base: base as u32 }),
            _ => bad(format!(
                "the page does not end inside the {bar_len:#x}-byte BAR"
            )),
        }
    }

    /// Context `n`'s page of a FastHSL card (`CTX_PAGE_BASE + n * CTX_PAGE_STRIDE` of a
    /// `BAR0_SIZE` BAR). Refused for a context the card does not have (`n >= CTX_COUNT`),
    /// although BAR0 continues there: those offsets are undefined on the card.
    pub fn context(n: u32) -> Result<Self, DeviceError> {
        let base = CTX_PAGE_BASE + u64::from(n) * CTX_PAGE_STRIDE;
        if u64::from(n) >= CTX_COUNT {
            return Err(DeviceError::BadPage {
                base,
                reason: format!(
                    "context {n} does not exist: a card has contexts 0..={}",
                    CTX_COUNT - 1
                ),
            });
        }
        Self::new(base, BAR0_SIZE)
    }

    /// BAR0 offset of the page's first byte.
    pub fn base(&self) -> u32 {
        self.base
    }

    /// BAR0 offset just past the page (`u64`: the last page of a 4 GiB BAR ends at 2^32).
    pub fn end(&self) -> u64 {
        u64::from(self.base) + u64::from(BAR_PAGE)
    }

    /// The offset inside the page of the 32-bit register at BAR0 offset `offset`, or why
    /// the page handle must refuse it (outside the page, or not 4-byte aligned).
    pub fn check(&self, offset: u32) -> Result<u32, DeviceError> {
        let refuse = |reason| {
            Err(DeviceError::PageOffset {
                offset,
                base: self.base,
                reason,
            })
        };
        if !offset.is_multiple_of(4) {
            return refuse("not 4-byte aligned");
        }
        match offset.checked_sub(self.base) {
            Some(within) if within <= BAR_PAGE - 4 => Ok(within),
            _ => refuse("outside the page"),
        }
    }
}

/// A device handle that reaches one BAR0 page of the device it wraps, and all of its
/// DMA memory (see the module documentation for what that does and does not isolate).
#[derive(Debug)]
pub struct PageDevice<D> {
    dev: D,
    page: BarPage,
}

impl<D: Device> PageDevice<D> {
    /// Restricts `dev`'s register accesses to `page`. The wrapped device is not given
    /// back: what holds the page handle holds only the page.
    pub fn new(dev: D, page: BarPage) -> Self {
        PageDevice { dev, page }
    }

    /// Context `n`'s page of the card behind `dev` ([`BarPage::context`]).
    pub fn context(dev: D, n: u32) -> Result<Self, DeviceError> {
        Ok(Self::new(dev, BarPage::context(n)?))
    }

    /// The page this handle reaches.
    pub fn page(&self) -> BarPage {
        self.page
    }
}

impl<D: Device> Device for PageDevice<D> {
    fn name(&self) -> String {
        format!("{} page {:#x}", self.dev.name(), self.page.base)
    }
    fn bar_read32(&self, offset: u32) -> Result<u32, DeviceError> {
        self.page.check(offset)?;
        self.dev.bar_read32(offset)
    }
    fn bar_write32(&self, offset: u32, value: u32) -> Result<(), DeviceError> {
        self.page.check(offset)?;
        self.dev.bar_write32(offset, value)
    }
    // mem_*_u64 too: the wrapped backend's own versions (VFIO's are single volatile
    // accesses, which the default, a byte copy, is not).
    forward_device!(self => self.dev; dma_alloc, dma_free, mem_write, mem_read, relax,
        wait_irq, now_ns, cycles, mem_read_u64, mem_write_u64);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DmaBuffer, Pace};
    use std::cell::RefCell;

    #[test]
    fn pages_must_be_aligned_and_inside_the_bar() {
        let p = BarPage::new(0x3000, 0x10000).unwrap();
        assert_eq!((p.base(), p.end()), (0x3000, 0x4000));
        assert_eq!(BarPage::new(0xF000, 0x10000).unwrap().end(), 0x10000);
        for (base, len) in [
            (0x3004, 0x10000),              // unaligned
            (0x0800, 0x10000),              // unaligned
            (0x10000, 0x10000),             // starts at the end
            (0xF000, 0xF800),               // ends past a BAR that is not whole pages
            (0x1_0000_0000, 0x2_0000_0000), // beyond 32-bit offsets
            (!0xFFF, u64::MAX),             // end overflows
        ] {
            assert!(
                matches!(BarPage::new(base, len), Err(DeviceError::BadPage { .. })),
                "page {base:#x} of a {len:#x} BAR"
            );
        }
    }

    #[test]
    fn context_pages_follow_the_contract_and_stop_at_the_last_context() {
        for n in 0..CTX_COUNT as u32 {
            let p = BarPage::context(n).unwrap();
            assert_eq!(u64::from(p.base()), CTX_PAGE_BASE + u64::from(n) * 0x1000);
        }
        assert_eq!(BarPage::context(2).unwrap().base(), 0x4000);
        // The page after the last context is inside BAR0 but belongs to no context.
        let past = CTX_COUNT as u32;
        assert!(CTX_PAGE_BASE + u64::from(past) * CTX_PAGE_STRIDE < BAR0_SIZE);
        match BarPage::context(past) {
            Err(e @ DeviceError::BadPage { .. }) => {
                assert!(e.to_string().contains("does not exist"), "{e}")
            }
            other => panic!("context {past}: {other:?}"),
        }
        assert!(BarPage::context(u32::MAX).is_err());
    }

    #[test]
    fn register_offsets_inside_the_page_only() {
        let p = BarPage::new(0x5000, 0x10000).unwrap();
        assert_eq!(p.check(0x5000).unwrap(), 0);
        assert_eq!(p.check(0x5ABC).unwrap(), 0xABC);
        assert_eq!(p.check(0x5FFC).unwrap(), 0xFFC);
        for (off, why) in [
            (0x4FFC, "outside the page"),
            (0x6000, "outside the page"),
            (0x0, "outside the page"),
            (!3, "outside the page"),
            (0x5002, "not 4-byte aligned"),
            (0x5FFE, "not 4-byte aligned"),
        ] {
            match p.check(off) {
                Err(DeviceError::PageOffset {
                    offset,
                    base,
                    reason,
                }) => {
                    assert_eq!((offset, base, reason), (off, 0x5000, why));
                }
                other => panic!("offset {off:#x}: {other:?}"),
            }
        }
        // The last page of a 4 GiB BAR: no overflow at the top.
        let top = BarPage::new(0xFFFF_F000, 1 << 32).unwrap();
        assert_eq!(top.check(0xFFFF_FFFC).unwrap(), 0xFFC);
        assert_eq!(top.end(), 1 << 32);
    }

    /// A whole-BAR device of 16 pages of registers that records what reaches it.
    struct Fake {
        regs: RefCell<Vec<u32>>,
        seen: RefCell<Vec<(char, u32)>>,
    }

    impl Fake {
        fn new() -> Self {
            Fake {
                regs: RefCell::new((0..0x4000).map(|i| i * 3).collect()),
                seen: RefCell::new(Vec::new()),
            }
        }
    }

    impl Device for Fake {
        fn name(&self) -> String {
            "fake".into()
        }
        fn bar_read32(&self, offset: u32) -> Result<u32, DeviceError> {
            self.seen.borrow_mut().push(('r', offset));
            Ok(self.regs.borrow()[offset as usize / 4])
        }
        fn bar_write32(&self, offset: u32, value: u32) -> Result<(), DeviceError> {
            self.seen.borrow_mut().push(('w', offset));
            self.regs.borrow_mut()[offset as usize / 4] = value;
            Ok(())
        }
        fn dma_alloc(&self, len: usize) -> Result<DmaBuffer, DeviceError> {
            Ok(DmaBuffer::new(1, 0x1000, len))
        }
        fn dma_free(&self, _buf: DmaBuffer) -> Result<(), DeviceError> {
            Ok(())
        }
        fn mem_write(&self, _: &DmaBuffer, _: usize, _: &[u8]) -> Result<(), DeviceError> {
            Ok(())
        }
        fn mem_read(&self, _: &DmaBuffer, _: usize, _: &mut [u8]) -> Result<(), DeviceError> {
            Ok(())
        }
        fn relax(&self, _pace: Pace) {}
        fn wait_irq(&self, _timeout_ns: u64) -> Result<bool, DeviceError> {
            Ok(false)
        }
        fn now_ns(&self) -> u64 {
            0
        }
        fn cycles(&self) -> Option<u64> {
            None
        }
    }

    #[test]
    fn a_page_device_passes_its_page_and_refuses_the_rest_before_the_card() {
        let fake = Fake::new();
        let page = PageDevice::context(&fake, 3).unwrap();
        let base = page.page().base();
        assert_eq!(base, 0x5000);
        // Same offsets, same registers as through the whole BAR.
        assert_eq!(
            page.bar_read32(base + 0x10).unwrap(),
            fake.bar_read32(base + 0x10).unwrap()
        );
        page.bar_write32(base + 0xFFC, 0xABCD).unwrap();
        assert_eq!(fake.bar_read32(base + 0xFFC).unwrap(), 0xABCD);
        let reached = fake.seen.borrow().len();
        // Outside the page, both ways, and unaligned: refused, nothing reaches the card.
        for off in [0, base - 4, base + 0x1000, base + 0x2000, base + 2] {
            assert!(matches!(
                page.bar_read32(off),
                Err(DeviceError::PageOffset { .. })
            ));
            assert!(matches!(
                page.bar_write32(off, 0xDEAD),
                Err(DeviceError::PageOffset { .. })
            ));
        }
        assert_eq!(
            fake.seen.borrow().len(),
            reached,
            "a refused access reached the card"
        );
        assert!(fake.regs.borrow().iter().all(|&v| v != 0xDEAD));
        assert!(page.name().contains("page 0x5000"));
        assert!(PageDevice::context(&fake, CTX_COUNT as u32).is_err());
    }

    /// A device whose every method records its name and answers with a value of its own,
    /// so a wrapper that calls the wrong inner method is caught.
    #[derive(Default)]
    struct Calls(RefCell<Vec<&'static str>>);

    impl Calls {
        fn log(&self, m: &'static str) {
            self.0.borrow_mut().push(m);
        }
    }

    impl Device for Calls {
        fn name(&self) -> String {
            self.log("name");
            "calls".into()
        }
        fn bar_read32(&self, offset: u32) -> Result<u32, DeviceError> {
            self.log("bar_read32");
            Ok(offset ^ 0xA5A5)
        }
        fn bar_write32(&self, _: u32, _: u32) -> Result<(), DeviceError> {
            self.log("bar_write32");
            Ok(())
        }
        fn dma_alloc(&self, len: usize) -> Result<DmaBuffer, DeviceError> {
            self.log("dma_alloc");
            Ok(DmaBuffer::new(7, 0x7000, len))
        }
        fn dma_free(&self, _: DmaBuffer) -> Result<(), DeviceError> {
            self.log("dma_free");
            Ok(())
        }
        fn mem_write(&self, _: &DmaBuffer, _: usize, _: &[u8]) -> Result<(), DeviceError> {
            self.log("mem_write");
            Ok(())
        }
        fn mem_read(&self, _: &DmaBuffer, _: usize, out: &mut [u8]) -> Result<(), DeviceError> {
            self.log("mem_read");
            out.fill(0x11);
            Ok(())
        }
        fn relax(&self, _: Pace) {
            self.log("relax");
        }
        fn wait_irq(&self, timeout_ns: u64) -> Result<bool, DeviceError> {
            self.log("wait_irq");
            Ok(timeout_ns == 5)
        }
        fn now_ns(&self) -> u64 {
            self.log("now_ns");
            42
        }
        fn cycles(&self) -> Option<u64> {
            self.log("cycles");
            Some(43)
        }
        fn mem_read_u64(&self, _: &DmaBuffer, _: usize) -> Result<u64, DeviceError> {
            self.log("mem_read_u64");
            Ok(44)
        }
        fn mem_write_u64(&self, _: &DmaBuffer, _: usize, _: u64) -> Result<(), DeviceError> {
            self.log("mem_write_u64");
            Ok(())
        }
    }

    /// Calls every method once; returns what the device answered.
    fn call_all(d: &impl Device, reg: u32) -> (String, u32, u64, bool, u64, Option<u64>, u64) {
        let name = d.name();
        let v = d.bar_read32(reg).unwrap();
        d.bar_write32(reg, 1).unwrap();
        let b = d.dma_alloc(64).unwrap();
        assert_eq!((b.id(), b.iova(), b.len()), (7, 0x7000, 64));
        d.mem_write(&b, 0, &[1]).unwrap();
        let mut out = [0u8; 2];
        d.mem_read(&b, 0, &mut out).unwrap();
        assert_eq!(out, [0x11; 2]);
        d.relax(Pace::Step);
        let irq = d.wait_irq(5).unwrap();
        let (now, cycles) = (d.now_ns(), d.cycles());
        let w = d.mem_read_u64(&b, 0).unwrap();
        d.mem_write_u64(&b, 0, 9).unwrap();
        d.dma_free(b).unwrap();
        (name, v, u64::from(out[0]), irq, now, cycles, w)
    }

    const ALL: [&str; 13] = [
        "name",
        "bar_read32",
        "bar_write32",
        "dma_alloc",
        "mem_write",
        "mem_read",
        "relax",
        "wait_irq",
        "now_ns",
        "cycles",
        "mem_read_u64",
        "mem_write_u64",
        "dma_free",
    ];

    #[test]
    fn wrappers_pass_every_method_to_the_same_method_of_their_device() {
        let inner = Calls::default();
        let reg = 0x2010;
        let direct = call_all(&inner, reg);
        assert_eq!(*inner.0.borrow(), ALL);
        inner.0.borrow_mut().clear();
        // A reference forwards everything, u64 accesses included.
        assert_eq!(call_all(&&inner, reg), direct);
        assert_eq!(*inner.0.borrow(), ALL);
        inner.0.borrow_mut().clear();
        // A page handle: its own name (which asks the device's), the rest the same.
        let page = PageDevice::new(&inner, BarPage::new(0x2000, 0x10000).unwrap());
        let mut got = call_all(&page, reg);
        assert_eq!(got.0, "calls page 0x2000");
        got.0 = direct.0.clone();
        assert_eq!(got, direct);
        assert_eq!(*inner.0.borrow(), ALL);
    }
}
