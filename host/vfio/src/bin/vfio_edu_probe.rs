//! Drives QEMU's `edu` educational PCI device (1234:11e8) through the FastHSL VFIO
//! backend, to prove the backend on a real kernel without an FPGA.
//!
//!   vfio_edu_probe 0000:01:00.0
//!
//! Runs inside the guest that `host/vfio/qemu/edu_vm.sh` boots (tests/qemu_edu.rs); the
//! device must be bound to vfio-pci. Every check compares against what edu's
//! specification says (QEMU docs/specs/edu.rst), and the first mismatch stops the run
//! with `FASTHSL-EDU-FAIL <why>`. On success the last line is
//! `FASTHSL-EDU-RESULT key=value ...`, which the test parses.

use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};
use fasthsl_contract::CTX_COUNT;
use fasthsl_device::{Device, DeviceError, DmaBuffer};
use fasthsl_vfio::{IrqKind, VfioConfig, VfioDevice, VfioError};

// edu's BAR0 registers (docs/specs/edu.rst).
const ID: u32 = 0x00;
const LIVENESS: u32 = 0x04;
const FACTORIAL: u32 = 0x08;
const STATUS: u32 = 0x20;
const STATUS_COMPUTING: u32 = 0x01;
const IRQ_STATUS: u32 = 0x24;
const IRQ_RAISE: u32 = 0x60;
const IRQ_ACK: u32 = 0x64;
const DMA_SRC: u32 = 0x80;
const DMA_DST: u32 = 0x88;
const DMA_COUNT: u32 = 0x90;
const DMA_CMD: u32 = 0x98;
const DMA_CMD_RUN: u32 = 0x1;
const DMA_CMD_TO_RAM: u32 = 0x2;
const DMA_CMD_IRQ: u32 = 0x4;
/// edu raises this interrupt status bit when a DMA with DMA_CMD_IRQ completes.
const DMA_IRQ: u32 = 0x100;
/// edu's internal DMA buffer: device address 0x40000, 4 KiB.
const EDU_BUF: u64 = 0x40000;
const EDU_BUF_LEN: usize = 4096;
/// Bytes per transfer: QEMU 7.2's edu range check is off by one (a transfer may not
/// end at the buffer's last byte, and a bad range aborts QEMU), so stay well inside.
const XFER: usize = 2048;
/// edu clamps DMA addresses to 28 bits (its default dma_mask).
const EDU_DMA_LIMIT: u64 = 1 << 28;
/// edu's BAR0 is 1 MiB.
const EDU_BAR0: u64 = 1 << 20;
/// A page of BAR0 for a page handle.
const PAGE: u32 = 0x1000;

const TIMEOUT: Duration = Duration::from_secs(10);

fn config(mmap_bar0: bool) -> VfioConfig {
    VfioConfig {
        min_bar0_len: EDU_BAR0,
        iova_start: 1 << 20,
        iova_end: EDU_DMA_LIMIT,
        hugepages: true,
        mmap_bar0,
    }
}

/// Polls register `reg` until `(value & mask) == 0`.
fn wait_clear(dev: &VfioDevice, reg: u32, mask: u32, what: &str) -> Result<()> {
    let t = Instant::now();
    while dev.bar_read32(reg)? & mask != 0 {
        ensure!(t.elapsed() < TIMEOUT, "{what}: timed out after {TIMEOUT:?}");
        std::thread::sleep(Duration::from_millis(1));
    }
    Ok(())
}

/// One edu DMA of `len` bytes between `iova` and edu's buffer at `edu_off`; waits for
/// it (by interrupt when `irq`, else by polling the command register).
fn dma(
    dev: &VfioDevice,
    to_ram: bool,
    iova: u64,
    edu_off: u64,
    len: usize,
    irq: bool,
) -> Result<()> {
    ensure!(
        iova < 1 << 32,
        "edu's DMA registers are written 32 bits wide"
    );
    ensure!(
        edu_off as usize + len < EDU_BUF_LEN,
        "outside edu's buffer (QEMU would abort)"
    );
    let edu = EDU_BUF + edu_off;
    let (src, dst) = if to_ram { (edu, iova) } else { (iova, edu) };
    dev.bar_write32(DMA_SRC, src as u32)?;
    dev.bar_write32(DMA_DST, dst as u32)?;
    dev.bar_write32(DMA_COUNT, len as u32)?;
    let mut cmd = DMA_CMD_RUN;
    if to_ram {
        cmd |= DMA_CMD_TO_RAM;
    }
    if irq {
        cmd |= DMA_CMD_IRQ;
    }
    dev.bar_write32(DMA_CMD, cmd)?;
    if irq {
        let fired = dev.wait_irq(TIMEOUT.as_nanos() as u64)?;
        ensure!(
            fired,
            "no MSI within {TIMEOUT:?} after a DMA with the interrupt bit"
        );
        let st = dev.bar_read32(IRQ_STATUS)?;
        ensure!(
            st & DMA_IRQ != 0,
            "MSI fired but edu's interrupt status is {st:#x}, expected bit {DMA_IRQ:#x}"
        );
        dev.bar_write32(IRQ_ACK, DMA_IRQ)?;
    }
    wait_clear(dev, DMA_CMD, DMA_CMD_RUN, "DMA completion")
}

fn pattern(seed: u8, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ (i >> 8) as u8)
        .collect()
}

fn read_buf(dev: &VfioDevice, buf: &DmaBuffer, off: usize, len: usize) -> Result<Vec<u8>> {
    let mut v = vec![0u8; len];
    dev.mem_read(buf, off, &mut v)?;
    Ok(v)
}

fn first_diff(a: &[u8], b: &[u8]) -> String {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => format!(
            "first difference at byte {i}: {:#04x} vs {:#04x}",
            a[i], b[i]
        ),
        None => "lengths differ".into(),
    }
}

/// Register checks shared by the mmap and pread/pwrite BAR paths.
fn registers(dev: &VfioDevice, out: &mut Vec<(String, String)>, tag: &str) -> Result<()> {
    let id = dev.bar_read32(ID)?;
    ensure!(
        id & 0xffff == 0x00ed,
        "identification register {id:#010x}: expected 0xRRrr00ed"
    );
    out.push((format!("{tag}ident"), format!("{id:#010x}")));

    for v in [0x1234_5678u32, 0xa5a5_0ff0, 0] {
        dev.bar_write32(LIVENESS, v)?;
        let r = dev.bar_read32(LIVENESS)?;
        ensure!(
            r == !v,
            "liveness: wrote {v:#010x}, read {r:#010x}, expected {:#010x}",
            !v
        );
    }
    out.push((format!("{tag}liveness"), "ok".into()));

    for (n, f) in [(5u32, 120u32), (10, 3_628_800), (12, 479_001_600)] {
        dev.bar_write32(FACTORIAL, n)?;
        wait_clear(dev, STATUS, STATUS_COMPUTING, "factorial")?;
        let r = dev.bar_read32(FACTORIAL)?;
        ensure!(r == f, "factorial({n}) read {r}, expected {f}");
    }
    out.push((format!("{tag}factorial"), "ok".into()));
    Ok(())
}

/// Page handles (`VfioDevice::map_page`): a page of BAR0 alone, mmapped by itself when
/// `mmapped` (else pread/pwrite confined to it), reads what the whole-BAR handle reads at
/// every offset of the page, writes the same registers, and refuses offsets outside the
/// page before they reach edu; pages that are not pages are refused.
fn page_handles(
    dev: &VfioDevice,
    out: &mut Vec<(String, String)>,
    tag: &str,
    mmapped: bool,
) -> Result<()> {
    for (base, what) in [(0x800, "an unaligned page"), (EDU_BAR0, "a page past BAR0")] {
        match dev.map_page(base) {
            Err(DeviceError::BadPage { .. }) => {}
            other => bail!("map_page({base:#x}), {what}: expected BadPage, got {other:?}"),
        }
    }
    // edu's BAR is large enough for context pages; the one past the last context is
    // refused by number, not by size.
    match dev.map_context_page(CTX_COUNT as u32) {
        Err(DeviceError::BadPage { .. }) => {}
        other => bail!("map_context_page({CTX_COUNT}): expected BadPage, got {other:?}"),
    }
    let p0 = dev.map_page(0).context("mapping page 0 of edu's BAR0")?;
    let p1 = dev.map_page(PAGE as u64).context("mapping page 1")?;
    let pc = dev
        .map_context_page(3)
        .context("mapping context 3's page")?;
    for p in [&p0, &p1, &pc] {
        ensure!(
            p.mmapped() == mmapped,
            "{p:?}: page mmapped is {}, expected {mmapped}",
            p.mmapped()
        );
    }
    // Every register offset of the page: page 0 holds edu's registers, pages 1 and the
    // context page answer edu's "no register" value; the handles must agree with BAR0.
    for p in [&p0, &p1, &pc] {
        let base = p.page().base();
        for off in (base..base + PAGE).step_by(4) {
            let (a, b) = (p.bar_read32(off)?, dev.bar_read32(off)?);
            ensure!(
                a == b,
                "{p:?}: offset {off:#x} reads {a:#010x} through the page, {b:#010x} through BAR0"
            );
        }
    }
    ensure!(
        p0.bar_read32(ID)? & 0xffff == 0x00ed,
        "identification through the page handle"
    );
    // Writes through the page reach the same register, both ways.
    p0.bar_write32(LIVENESS, 0x600d_f00d)?;
    ensure!(
        dev.bar_read32(LIVENESS)? == !0x600d_f00d,
        "liveness written through the page, read through BAR0"
    );
    dev.bar_write32(LIVENESS, 0x0bad_cafe)?;
    ensure!(
        p0.bar_read32(LIVENESS)? == !0x0bad_cafe,
        "liveness written through BAR0, read through the page"
    );
    // Outside the page: refused, and edu never sees it (its liveness register stays).
    for (p, off) in [
        (&p1, LIVENESS),
        (&p1, 2 * PAGE),
        (&p0, PAGE),
        (&p0, LIVENESS + 2),
        (&pc, LIVENESS),
    ] {
        match p.bar_write32(off, 0x1234_5678) {
            Err(DeviceError::PageOffset { .. }) => {}
            other => bail!("{p:?}: write to {off:#x}: expected PageOffset, got {other:?}"),
        }
        match p.bar_read32(off) {
            Err(DeviceError::PageOffset { .. }) => {}
            other => bail!("{p:?}: read of {off:#x}: expected PageOffset, got {other:?}"),
        }
    }
    ensure!(
        dev.bar_read32(LIVENESS)? == !0x0bad_cafe,
        "a refused write through a page handle reached edu"
    );
    // DMA memory of a page handle is the device's (one IOMMU container).
    let buf = p0.dma_alloc(EDU_BUF_LEN)?;
    p0.mem_write(&buf, 0, &[0xA5; 64])?;
    ensure!(
        read_buf(dev, &buf, 0, 64)? == [0xA5; 64],
        "a page handle's DMA buffer, read through the device"
    );
    p0.dma_free(buf)?;
    out.push((format!("{tag}page"), "ok".into()));
    Ok(())
}

fn run(addr: &str) -> Result<Vec<(String, String)>> {
    let mut out: Vec<(String, String)> = Vec::new();
    let t0 = Instant::now();

    // Error paths on a real kernel first: they must say what is wrong.
    match VfioDevice::open("0000:0f:1f.0") {
        Err(VfioError::NoSuchDevice { .. }) => {}
        other => bail!("opening a missing device: expected NoSuchDevice, got {other:?}"),
    }
    match VfioDevice::open("0000:00:00.0") {
        Err(e @ VfioError::NotBoundToVfio { .. }) => {
            ensure!(
                e.to_string().contains("driver_override"),
                "unhelpful message: {e}"
            );
        }
        other => bail!("opening the host bridge: expected NotBoundToVfio, got {other:?}"),
    }
    let mut big = config(true);
    big.min_bar0_len = 2 * EDU_BAR0;
    match VfioDevice::open_with_config(addr, &big) {
        Err(VfioError::BarTooSmall { size, .. }) if size == EDU_BAR0 => {}
        other => bail!("BAR0 size check: expected BarTooSmall(1 MiB), got {other:?}"),
    }
    out.push(("open_errors".into(), "ok".into()));

    let dev = VfioDevice::open_with_config(addr, &config(true)).context("opening edu")?;
    let (pgsizes, kernel_ranges) = dev.iommu_info();
    println!(
        "probe: opened {dev:?}; IOMMU page sizes {pgsizes:#x}, usable IOVAs {:x?}, used {:x?}",
        kernel_ranges,
        dev.iova_ranges()
    );
    // x86: the kernel keeps the MSI window out of the usable ranges, and the backend
    // read that from the capability chain.
    ensure!(
        kernel_ranges.len() >= 2
            && kernel_ranges
                .iter()
                .all(|&(lo, hi)| hi < 0xfee0_0000 || lo > 0xfeef_ffff),
        "IOVA ranges from VFIO_IOMMU_GET_INFO do not exclude the MSI window: {kernel_ranges:x?}"
    );
    ensure!(
        pgsizes & 0x1000 != 0,
        "IOMMU page sizes {pgsizes:#x} lack 4 KiB"
    );
    out.push(("iommu_info".into(), "ok".into()));
    ensure!(dev.bar0_mmapped(), "BAR0 of edu should be mmappable");
    ensure!(
        dev.bar0_len() as u64 == EDU_BAR0,
        "BAR0 is {:#x} bytes",
        dev.bar0_len()
    );
    match VfioDevice::open_with_config(addr, &config(true)) {
        Err(VfioError::Busy { .. }) => {}
        other => bail!("second open of an open device: expected Busy, got {other:?}"),
    }

    registers(&dev, &mut out, "")?;
    page_handles(&dev, &mut out, "", true)?;

    // Bad register and buffer accesses are refused, not performed.
    ensure!(matches!(
        dev.bar_read32(EDU_BAR0 as u32),
        Err(DeviceError::BarOffset { .. })
    ));
    ensure!(matches!(
        dev.bar_write32(2, 0),
        Err(DeviceError::BarOffset { .. })
    ));

    // DMA: host buffer -> edu -> another host buffer, checked byte for byte.
    let a = dev.dma_alloc(EDU_BUF_LEN)?;
    let b = dev.dma_alloc(EDU_BUF_LEN)?;
    let c = dev.dma_alloc(EDU_BUF_LEN)?;
    for buf in [&a, &b, &c] {
        ensure!(
            buf.iova() >= 1 << 20 && buf.iova() + buf.len() as u64 <= EDU_DMA_LIMIT,
            "IOVA {buf} outside the window edu can reach"
        );
    }
    ensure!(
        a.iova() != b.iova() && b.iova() != c.iova(),
        "IOVAs overlap: {a} {b} {c}"
    );
    ensure!(matches!(
        dev.mem_read(&a, EDU_BUF_LEN - 4, &mut [0u8; 8]),
        Err(DeviceError::DmaBounds { .. })
    ));
    let pat = pattern(0x5a, XFER);
    dev.mem_write(&a, 0, &pat)?;
    let t = Instant::now();
    dma(&dev, false, a.iova(), 0, XFER, false)?;
    dma(&dev, true, b.iova(), 0, XFER, false)?;
    let got = read_buf(&dev, &b, 0, XFER)?;
    ensure!(
        got == pat,
        "DMA round trip through edu corrupted the data: {}",
        first_diff(&got, &pat)
    );
    out.push(("dma".into(), "ok".into()));
    out.push((
        "dma_round_trip_ms".into(),
        t.elapsed().as_millis().to_string(),
    ));

    // Partial, unaligned DMA into the middle of a buffer: only those bytes change.
    dma(&dev, true, c.iova() + 100, 8, 300, false)?;
    let got = read_buf(&dev, &c, 0, EDU_BUF_LEN)?;
    ensure!(
        got[..100].iter().all(|&x| x == 0),
        "bytes before the DMA target changed"
    );
    ensure!(
        got[100..400] == pat[8..308],
        "partial DMA data wrong: {}",
        first_diff(&got[100..400], &pat[8..308])
    );
    ensure!(
        got[400..].iter().all(|&x| x == 0),
        "bytes after the DMA target changed"
    );
    out.push(("dma_offset".into(), "ok".into()));

    // Interrupts: MSI on the eventfd, from the raise register and from DMA completion.
    let kind = dev
        .irq_kind()
        .context("no interrupt routed (edu has MSI)")?;
    ensure!(kind == IrqKind::Msi, "expected MSI, got {kind:?}");
    ensure!(
        !dev.wait_irq(50_000_000)?,
        "interrupt pending before any was raised"
    );
    dev.bar_write32(IRQ_RAISE, 0x1)?;
    ensure!(
        dev.wait_irq(TIMEOUT.as_nanos() as u64)?,
        "no MSI after writing the raise register"
    );
    let st = dev.bar_read32(IRQ_STATUS)?;
    ensure!(st == 0x1, "interrupt status {st:#x} after raising 0x1");
    dev.bar_write32(IRQ_ACK, 0x1)?;
    ensure!(
        dev.bar_read32(IRQ_STATUS)? == 0,
        "interrupt status not cleared by the ack"
    );
    ensure!(
        !dev.wait_irq(50_000_000)?,
        "a second MSI arrived without a second raise"
    );
    out.push(("msi".into(), "ok".into()));
    let pat2 = pattern(0x3c, XFER);
    dev.mem_write(&a, 0, &pat2)?;
    let t = Instant::now();
    dma(&dev, false, a.iova(), 0, XFER, true)?;
    dma(&dev, true, b.iova(), 0, XFER, true)?;
    ensure!(
        read_buf(&dev, &b, 0, XFER)? == pat2,
        "DMA with interrupts: data wrong"
    );
    out.push(("dma_msi".into(), "ok".into()));
    out.push((
        "dma_msi_round_trip_ms".into(),
        t.elapsed().as_millis().to_string(),
    ));

    // The IOMMU confines the device: a DMA aimed at the guard page after `a` (mapped
    // nowhere) must not land in any buffer.
    let guard = a.iova() + EDU_BUF_LEN as u64;
    ensure!(
        guard != b.iova() && guard != c.iova(),
        "no guard page between buffers"
    );
    let before: Vec<Vec<u8>> = [&a, &b, &c]
        .iter()
        .map(|x| read_buf(&dev, x, 0, EDU_BUF_LEN))
        .collect::<Result<_>>()?;
    dma(&dev, true, guard, 0, XFER, false)?;
    let after: Vec<Vec<u8>> = [&a, &b, &c]
        .iter()
        .map(|x| read_buf(&dev, x, 0, EDU_BUF_LEN))
        .collect::<Result<_>>()?;
    ensure!(
        before == after,
        "a DMA to an unmapped IOVA changed a mapped buffer"
    );
    out.push(("iommu_guard".into(), "ok".into()));

    // A 2 MiB buffer: huge-page backed when the system has free huge pages; DMA at
    // both ends so the whole mapping is proven.
    let h = dev.dma_alloc(2 << 20)?;
    let huge = dev
        .dma_is_huge(&h)
        .context("buffer unknown to the device")?;
    if huge {
        ensure!(
            h.iova() % (2 << 20) == 0,
            "huge buffer IOVA {h} not 2 MiB aligned"
        );
    }
    let last = (2 << 20) - XFER;
    dev.mem_write(&h, last, &pat)?;
    dma(&dev, false, h.iova() + last as u64, 0, XFER, false)?;
    dma(&dev, true, h.iova(), 0, XFER, false)?;
    ensure!(
        read_buf(&dev, &h, 0, XFER)? == pat,
        "DMA through the 2 MiB buffer: data wrong"
    );
    out.push(("dma_2m".into(), "ok".into()));
    out.push(("hugepage".into(), if huge { "yes" } else { "no" }.into()));

    // More 2 MiB buffers than the guest reserved huge pages: once they run out, the
    // backend falls back to normal pages, and DMA through such a buffer works too.
    let mut extra = Vec::new();
    let fallback = loop {
        ensure!(
            extra.len() < 32,
            "32 more 2 MiB buffers and every one huge?"
        );
        let x = dev.dma_alloc(2 << 20)?;
        let huge = dev
            .dma_is_huge(&x)
            .context("buffer unknown to the device")?;
        if !huge {
            break x;
        }
        extra.push(x);
    };
    dev.mem_write(&fallback, last, &pat2)?;
    dma(&dev, false, fallback.iova() + last as u64, 0, XFER, false)?;
    dma(&dev, true, fallback.iova(), 0, XFER, false)?;
    ensure!(
        read_buf(&dev, &fallback, 0, XFER)? == pat2,
        "DMA through a 2 MiB normal-page buffer: data wrong"
    );
    out.push((
        "hugepage_fallback".into(),
        format!("ok_after_{}", extra.len() + 1),
    ));
    for x in extra.into_iter().chain([fallback]) {
        dev.dma_free(x)?;
    }

    // Freeing unmaps: the IOVA is reusable, a second free is refused.
    let (a_iova, b_copy) = (a.iova(), DmaBuffer::new(b.id(), b.iova(), b.len()));
    dev.dma_free(a)?;
    dev.dma_free(b)?;
    ensure!(
        matches!(dev.dma_free(b_copy), Err(DeviceError::UnknownBuffer { .. })),
        "double free accepted"
    );
    let a2 = dev.dma_alloc(EDU_BUF_LEN)?;
    ensure!(
        a2.iova() == a_iova,
        "freed IOVA {a_iova:#x} not reused (got {a2})"
    );
    dev.mem_write(&a2, 0, &pat2)?;
    dma(&dev, false, a2.iova(), 0, XFER, false)?;
    dma(&dev, true, c.iova(), 0, XFER, false)?;
    ensure!(
        read_buf(&dev, &c, 0, XFER)? == pat2,
        "DMA through a re-used IOVA: data wrong"
    );
    out.push(("dma_reuse".into(), "ok".into()));

    // Function reset, when VFIO offers one (edu sits alone behind a root port, so a
    // secondary-bus reset is possible): the device must work afterwards, DMA and MSI
    // included (bus mastering and MSI are restored).
    if dev.can_reset() {
        dev.bar_write32(LIVENESS, 0x0f0f_0f0f)?;
        dev.reset().context("VFIO_DEVICE_RESET")?;
        let live = dev.bar_read32(LIVENESS)?;
        println!(
            "probe: after reset, liveness reads {live:#010x} (before: {:#010x})",
            !0x0f0f_0f0fu32
        );
        let id = dev.bar_read32(ID)?;
        ensure!(
            id & 0xffff == 0x00ed,
            "identification after reset {id:#010x}"
        );
        dev.mem_write(&a2, 0, &pat)?;
        dma(&dev, false, a2.iova(), 0, XFER, true)?;
        dma(&dev, true, c.iova(), 0, XFER, true)?;
        ensure!(
            read_buf(&dev, &c, 0, XFER)? == pat,
            "DMA after reset: data wrong"
        );
        out.push(("reset".into(), "ok".into()));
    } else {
        out.push(("reset".into(), "unsupported".into()));
    }
    drop(dev);

    // The pread/pwrite BAR path (the fallback for BARs VFIO will not mmap), on a fresh
    // open: closing released the group, so this also proves clean tear-down.
    let dev = VfioDevice::open_with_config(addr, &config(false)).context("re-opening edu")?;
    ensure!(!dev.bar0_mmapped(), "mmap_bar0=false still mmapped");
    registers(&dev, &mut out, "pread_")?;
    page_handles(&dev, &mut out, "pread_", false)?;
    let d = dev.dma_alloc(EDU_BUF_LEN)?;
    dev.mem_write(&d, 0, &pat)?;
    dma(&dev, false, d.iova(), 0, XFER, true)?;
    let e = dev.dma_alloc(EDU_BUF_LEN)?;
    dma(&dev, true, e.iova(), 0, XFER, true)?;
    ensure!(
        read_buf(&dev, &e, 0, XFER)? == pat,
        "DMA on the pread path: data wrong"
    );
    out.push(("pread_dma_msi".into(), "ok".into()));
    out.push(("total_ms".into(), t0.elapsed().as_millis().to_string()));
    Ok(out)
}

/// The checks a non-root user makes, after `edu_vm.sh`'s init gave it the group node
/// (`chown`) and a 64 KiB locked-memory limit: the device opens and works, small DMA
/// buffers map, and a buffer beyond the limit is refused with the memlock advice.
fn run_unprivileged(addr: &str, expect_denied: bool) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    if expect_denied {
        match VfioDevice::open_with_config(addr, &config(true)) {
            Err(e @ VfioError::Permission { .. }) => {
                ensure!(e.to_string().contains("chown"), "unhelpful message: {e}");
            }
            other => {
                bail!("opening a root-owned group as a user: expected Permission, got {other:?}")
            }
        }
        out.push(("user_denied".into(), "ok".into()));
        return Ok(out);
    }
    let dev = VfioDevice::open_with_config(addr, &config(true)).context("opening edu as a user")?;
    let id = dev.bar_read32(ID)?;
    ensure!(id & 0xffff == 0x00ed, "identification register {id:#010x}");
    let a = dev.dma_alloc(EDU_BUF_LEN)?;
    let b = dev.dma_alloc(EDU_BUF_LEN)?;
    let pat = pattern(0x77, XFER);
    dev.mem_write(&a, 0, &pat)?;
    dma(&dev, false, a.iova(), 0, XFER, true)?;
    dma(&dev, true, b.iova(), 0, XFER, true)?;
    ensure!(
        read_buf(&dev, &b, 0, XFER)? == pat,
        "DMA as a user: data wrong"
    );
    out.push(("user_dma_msi".into(), "ok".into()));
    match dev.dma_alloc(1 << 20) {
        Err(DeviceError::OutOfMemory { reason, .. }) => {
            ensure!(
                reason.contains("RLIMIT_MEMLOCK") && reason.contains("ulimit -l"),
                "DMA map refusal does not explain the locked-memory limit: {reason}"
            );
            println!("probe: 1 MiB over a 64 KiB memlock limit: {reason}");
        }
        other => bail!(
            "1 MiB DMA buffer with a 64 KiB memlock limit: expected OutOfMemory, got {other:?}"
        ),
    }
    // The refusal left the device usable.
    let c = dev.dma_alloc(EDU_BUF_LEN)?;
    dma(&dev, true, c.iova(), 0, XFER, false)?;
    ensure!(
        read_buf(&dev, &c, 0, XFER)? == pat,
        "DMA after a refused map: data wrong"
    );
    out.push(("user_memlock_error".into(), "ok".into()));
    Ok(out)
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |args: &mut Vec<String>, f: &str| {
        let had = args.iter().any(|a| a == f);
        args.retain(|a| a != f);
        had
    };
    let unprivileged = flag(&mut args, "--unprivileged");
    let expect_denied = flag(&mut args, "--expect-denied");
    let as_user = match args.iter().position(|a| a == "--as-user") {
        Some(i) if i + 1 < args.len() => {
            let uid = args.remove(i + 1);
            args.remove(i);
            Some(uid.parse::<u32>().unwrap_or_else(|_| {
                eprintln!("--as-user takes a numeric uid");
                std::process::exit(2)
            }))
        }
        Some(_) => {
            eprintln!("--as-user takes a numeric uid");
            std::process::exit(2)
        }
        None => None,
    };
    let [addr] = args.as_slice() else {
        eprintln!(
            "usage: vfio_edu_probe [--as-user UID [--expect-denied]] <PCI address of an edu \
             device bound to vfio-pci>"
        );
        std::process::exit(2);
    };
    if let Some(uid) = as_user {
        // Run the user checks in a child with uid and gid dropped (std drops the
        // supplementary groups too), so no capability is left.
        use std::os::unix::process::CommandExt;
        let mut cmd = std::process::Command::new(std::env::current_exe().expect("own path"));
        cmd.arg("--unprivileged").uid(uid).gid(uid);
        if expect_denied {
            cmd.arg("--expect-denied");
        }
        let status = cmd
            .arg(addr)
            .status()
            .expect("running the unprivileged child");
        std::process::exit(status.code().unwrap_or(1));
    }
    let (tag, res) = if unprivileged {
        ("USER-", run_unprivileged(addr, expect_denied))
    } else {
        ("", run(addr))
    };
    match res {
        Ok(kv) => {
            let line: Vec<String> = kv.iter().map(|(k, v)| format!("{k}={v}")).collect();
            println!("FASTHSL-EDU-{tag}RESULT {}", line.join(" "));
        }
        Err(e) => {
            println!("FASTHSL-EDU-{tag}FAIL {e:#}");
            std::process::exit(1);
        }
    }
}
