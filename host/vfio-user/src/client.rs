//! The driver's backend for a card behind a vfio-user socket.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fasthsl_contract::{BAR0_SIZE, PCI_DEVICE_ID, PCI_VENDOR_ID};
use fasthsl_device::{Device, DeviceError, DmaBuffer, Pace};
use vfio_bindings::bindings::vfio::{
    VFIO_IRQ_SET_ACTION_TRIGGER, VFIO_IRQ_SET_DATA_EVENTFD, VFIO_PCI_BAR0_REGION_INDEX,
    VFIO_PCI_BAR2_REGION_INDEX, VFIO_PCI_CONFIG_REGION_INDEX, VFIO_PCI_INTX_IRQ_INDEX,
    VFIO_PCI_MSI_IRQ_INDEX,
};

use crate::shm::{self, SharedMap, PAGE};
use crate::{msi_cap, sim_regs, VfioUserError};

/// Most cycles one `WAIT_IRQ` request runs the (shared) simulation for.
const WAIT_CHUNK: u64 = 4096;

/// Client-side settings.
#[derive(Debug, Clone)]
pub struct VfioUserConfig {
    /// Size of the memory file DMA buffers are carved from (virtual: pages are only
    /// allocated when touched, and released when their buffer is freed).
    pub arena_bytes: u64,
    /// Bus address of the first byte of the arena; a buffer's IOVA is this plus its
    /// offset in the arena.
    pub iova_base: u64,
}

impl Default for VfioUserConfig {
    fn default() -> Self {
        VfioUserConfig {
            arena_bytes: 1 << 30,
            iova_base: 1 << 32,
        }
    }
}

/// What the simulation page told us.
#[derive(Debug, Clone, Copy)]
struct SimInfo {
    period_ps: u64,
    free: bool,
}

struct Alloc {
    /// Next free arena offset; offsets (and so IOVAs) are not reused, and every buffer is
    /// followed by an unmapped guard page, so overruns and use-after-free fault.
    next: u64,
    next_id: u64,
    /// id -> (iova, mapped bytes)
    live: HashMap<u64, (u64, u64)>,
}

/// A FastHSL card reached over vfio-user, as a [`Device`]: a `fasthsl serve` socket.
pub struct VfioUserDevice {
    path: PathBuf,
    client: RefCell<vfio_user::Client>,
    cfg: VfioUserConfig,
    memfd: File,
    arena: SharedMap,
    alloc: RefCell<Alloc>,
    eventfd: File,
    /// Offset of the MSI capability in config space, if the device has one.
    msi: Option<usize>,
    sim: Option<SimInfo>,
    node: Option<u64>,
    started: Instant,
}

fn proto(what: impl Into<String>) -> impl FnOnce(vfio_user::Error) -> VfioUserError {
    let what = what.into();
    move |source| VfioUserError::Protocol { what, source }
}

fn os(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> VfioUserError {
    let what = what.into();
    move |source| VfioUserError::Os { what, source }
}

fn backend(e: impl std::fmt::Display) -> DeviceError {
    DeviceError::Backend(format!("vfio-user: {e}"))
}

impl VfioUserDevice {
    /// Connects to the socket with default settings.
    pub fn connect(path: &Path) -> Result<Self, VfioUserError> {
        Self::connect_with(path, VfioUserConfig::default())
    }

    /// Connects, checks the PCI ids and BAR0, creates the DMA arena and routes the MSI
    /// vector to an eventfd.
    pub fn connect_with(path: &Path, cfg: VfioUserConfig) -> Result<Self, VfioUserError> {
        if cfg.arena_bytes == 0
            || !cfg.arena_bytes.is_multiple_of(PAGE)
            || !cfg.iova_base.is_multiple_of(PAGE)
        {
            return Err(VfioUserError::Device(format!(
                "arena size {:#x} and IOVA base {:#x} must be whole 4 KiB pages",
                cfg.arena_bytes, cfg.iova_base
            )));
        }
        let mut client = vfio_user::Client::new(path).map_err(proto(format!(
            "connecting to {} (is `fasthsl serve` running?)",
            path.display()
        )))?;
        let bar0 = client
            .region(VFIO_PCI_BAR0_REGION_INDEX)
            .map(|r| r.size)
            .unwrap_or(0);
        if bar0 < BAR0_SIZE {
            return Err(VfioUserError::Device(format!(
                "{}: BAR0 is {bar0:#x} bytes, a FastHSL card has {BAR0_SIZE:#x}",
                path.display()
            )));
        }
        let mut ids = [0u8; 4];
        client
            .region_read(VFIO_PCI_CONFIG_REGION_INDEX, 0, &mut ids)
            .map_err(proto("reading the PCI ids"))?;
        let (vendor, device) = (
            u16::from_le_bytes([ids[0], ids[1]]),
            u16::from_le_bytes([ids[2], ids[3]]),
        );
        if u64::from(vendor) != PCI_VENDOR_ID || u64::from(device) != PCI_DEVICE_ID {
            return Err(VfioUserError::Device(format!(
                "{}: PCI id {vendor:04x}:{device:04x} is not a FastHSL card ({PCI_VENDOR_ID:04x}:{PCI_DEVICE_ID:04x})",
                path.display()
            )));
        }
        let has_sim = client
            .region(VFIO_PCI_BAR2_REGION_INDEX)
            .is_some_and(|r| r.size >= sim_regs::SIZE);
        let mut read_sim = |off: u64| -> Result<u64, VfioUserError> {
            let mut b = [0u8; 8];
            client
                .region_read(VFIO_PCI_BAR2_REGION_INDEX, off, &mut b)
                .map_err(proto("reading the simulation page"))?;
            Ok(u64::from_le_bytes(b))
        };
        let (sim, node) = if has_sim && read_sim(sim_regs::MAGIC)? == sim_regs::MAGIC_VALUE {
            let info = SimInfo {
                period_ps: read_sim(sim_regs::PERIOD_PS)?.max(1),
                free: read_sim(sim_regs::CLOCK)? != 0,
            };
            (Some(info), Some(read_sim(sim_regs::NODE)?))
        } else {
            (None, None)
        };

        let memfd = shm::memfd("fasthsl-dma", cfg.arena_bytes)
            .map_err(os("creating the DMA memory file (memfd)"))?;
        let arena = SharedMap::new(&memfd, 0, cfg.arena_bytes as usize)
            .map_err(os("mapping the DMA memory file"))?;
        let eventfd = shm::eventfd().map_err(os("creating the interrupt eventfd"))?;
        let msi = find_msi(&mut client)?;
        let (index, what) = match msi {
            Some(_) => (
                VFIO_PCI_MSI_IRQ_INDEX,
                "routing MSI to an eventfd (SET_IRQS)",
            ),
            None => (
                VFIO_PCI_INTX_IRQ_INDEX,
                "routing INTx to an eventfd (SET_IRQS)",
            ),
        };
        client
            .set_irqs(
                index,
                VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER,
                0,
                1,
                &[eventfd.as_raw_fd()],
            )
            .map_err(proto(what))?;
        Ok(VfioUserDevice {
            path: path.to_path_buf(),
            client: RefCell::new(client),
            cfg,
            memfd,
            arena,
            alloc: RefCell::new(Alloc {
                next: 0,
                next_id: 1,
                live: HashMap::new(),
            }),
            eventfd,
            msi,
            sim,
            node,
            started: Instant::now(),
        })
    }

    /// How the card's interrupt reaches this client: "msi" when config space
    /// advertises the MSI capability, "intx" otherwise.
    pub fn irq_kind(&self) -> &'static str {
        if self.msi.is_some() {
            "msi"
        } else {
            "intx"
        }
    }

    /// Reads `out.len()` (1, 2 or 4) bytes of PCI config space at `offset`.
    pub fn config_read(&self, offset: u64, out: &mut [u8]) -> Result<(), DeviceError> {
        self.client
            .borrow_mut()
            .region_read(VFIO_PCI_CONFIG_REGION_INDEX, offset, out)
            .map_err(backend)
    }

    /// The node number the server gave this socket (simulated cards only).
    pub fn node(&self) -> Option<u64> {
        self.node
    }

    /// Reads a register of the simulation page (`None`: not a simulated card).
    pub fn sim_read(&self, reg: u64) -> Result<Option<u64>, DeviceError> {
        if self.sim.is_none() {
            return Ok(None);
        }
        let mut b = [0u8; 8];
        self.client
            .borrow_mut()
            .region_read(VFIO_PCI_BAR2_REGION_INDEX, reg, &mut b)
            .map_err(backend)?;
        Ok(Some(u64::from_le_bytes(b)))
    }

    fn sim_write(&self, reg: u64, v: u64) -> Result<(), DeviceError> {
        self.client
            .borrow_mut()
            .region_write(VFIO_PCI_BAR2_REGION_INDEX, reg, &v.to_le_bytes())
            .map_err(backend)
    }

    /// Arena offset of `[offset, offset+len)` of a live buffer.
    fn locate(&self, buf: &DmaBuffer, offset: usize, len: usize) -> Result<usize, DeviceError> {
        match self.alloc.borrow().live.get(&buf.id()) {
            Some(&(iova, _)) if iova == buf.iova() => {}
            _ => return Err(DeviceError::UnknownBuffer { iova: buf.iova() }),
        }
        buf.check(offset, len)?;
        Ok((buf.iova() - self.cfg.iova_base) as usize + offset)
    }

    fn check_bar(offset: u32) -> Result<(), DeviceError> {
        if !offset.is_multiple_of(4) || u64::from(offset) + 4 > BAR0_SIZE {
            return Err(DeviceError::BarOffset {
                offset,
                size: BAR0_SIZE as u32,
            });
        }
        Ok(())
    }
}

/// Walks the capability list of config space for MSI; bounded, so a looping list from a
/// broken device ends the walk.
fn find_msi(client: &mut vfio_user::Client) -> Result<Option<usize>, VfioUserError> {
    let mut read = |off: u64| -> Result<u8, VfioUserError> {
        let mut b = [0u8; 1];
        client
            .region_read(VFIO_PCI_CONFIG_REGION_INDEX, off, &mut b)
            .map_err(proto("reading the PCI capability list"))?;
        Ok(b[0])
    };
    if read(0x06)? & 0x10 == 0 {
        return Ok(None);
    }
    let mut at = usize::from(read(0x34)? & 0xfc);
    for _ in 0..48 {
        if at < 0x40 {
            return Ok(None);
        }
        if read(at as u64)? == msi_cap::ID {
            return Ok(Some(at));
        }
        at = usize::from(read(at as u64 + 1)? & 0xfc);
    }
    Ok(None)
}

impl std::fmt::Debug for VfioUserDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VfioUserDevice")
            .field("path", &self.path)
            .field("node", &self.node)
            .finish_non_exhaustive()
    }
}

impl Device for VfioUserDevice {
    fn name(&self) -> String {
        match self.node {
            Some(n) => format!("vfio-user {} (sim node {n})", self.path.display()),
            None => format!("vfio-user {}", self.path.display()),
        }
    }

    fn bar_read32(&self, offset: u32) -> Result<u32, DeviceError> {
        // Checked here: the protocol library cannot parse an error reply to a read.
        Self::check_bar(offset)?;
        let mut b = [0u8; 4];
        self.client
            .borrow_mut()
            .region_read(VFIO_PCI_BAR0_REGION_INDEX, u64::from(offset), &mut b)
            .map_err(backend)?;
        Ok(u32::from_le_bytes(b))
    }

    fn bar_write32(&self, offset: u32, value: u32) -> Result<(), DeviceError> {
        Self::check_bar(offset)?;
        self.client
            .borrow_mut()
            .region_write(
                VFIO_PCI_BAR0_REGION_INDEX,
                u64::from(offset),
                &value.to_le_bytes(),
            )
            .map_err(backend)
    }

    fn dma_alloc(&self, len: usize) -> Result<DmaBuffer, DeviceError> {
        let size = (len as u64).max(1).div_ceil(PAGE) * PAGE;
        let mut a = self.alloc.borrow_mut();
        let off = a.next;
        if off + size + PAGE > self.cfg.arena_bytes {
            return Err(DeviceError::OutOfMemory {
                len,
                reason: format!(
                    "the {:#x}-byte DMA arena is used up (VfioUserConfig::arena_bytes)",
                    self.cfg.arena_bytes
                ),
            });
        }
        let iova = self.cfg.iova_base + off;
        let before = self.sim_read(sim_regs::MAPPED_BYTES)?;
        self.client
            .borrow_mut()
            .dma_map(off, iova, size, self.memfd.as_raw_fd())
            .map_err(backend)?;
        // The library does not report a refused map; the simulated card's page does.
        if let Some(before) = before {
            let after = self.sim_read(sim_regs::MAPPED_BYTES)?.unwrap_or(0);
            if after != before + size {
                return Err(backend(format!(
                    "the server refused to map {size:#x} bytes at IOVA {iova:#x}"
                )));
            }
        }
        a.next = off + size + PAGE;
        let id = a.next_id;
        a.next_id += 1;
        a.live.insert(id, (iova, size));
        Ok(DmaBuffer::new(id, iova, len))
    }

    fn dma_free(&self, buf: DmaBuffer) -> Result<(), DeviceError> {
        let (iova, size) = match self.alloc.borrow().live.get(&buf.id()) {
            Some(&(iova, size)) if iova == buf.iova() => (iova, size),
            _ => return Err(DeviceError::UnknownBuffer { iova: buf.iova() }),
        };
        self.client
            .borrow_mut()
            .dma_unmap(iova, size)
            .map_err(backend)?;
        self.alloc.borrow_mut().live.remove(&buf.id());
        // Give the pages back; the arena offsets are not reused.
        let _ = shm::punch_hole(&self.memfd, iova - self.cfg.iova_base, size);
        Ok(())
    }

    fn mem_write(&self, buf: &DmaBuffer, offset: usize, data: &[u8]) -> Result<(), DeviceError> {
        let o = self.locate(buf, offset, data.len())?;
        self.arena.write(o, data);
        Ok(())
    }

    fn mem_read(&self, buf: &DmaBuffer, offset: usize, out: &mut [u8]) -> Result<(), DeviceError> {
        let o = self.locate(buf, offset, out.len())?;
        self.arena.read(o, out);
        Ok(())
    }

    fn relax(&self, pace: Pace) {
        match (pace, self.sim) {
            // Errors surface at the next BAR access or timeout; relax has no way to
            // report them.
            (Pace::Step, Some(s)) if !s.free => {
                let _ = self.sim_write(sim_regs::STEP, 1);
            }
            _ => std::thread::yield_now(),
        }
    }

    fn wait_irq(&self, timeout_ns: u64) -> Result<bool, DeviceError> {
        let take = || {
            shm::eventfd_take(&self.eventfd).map_err(|source| DeviceError::Os {
                what: "reading the interrupt eventfd".into(),
                source,
            })
        };
        if take()? {
            return Ok(true);
        }
        match self.sim {
            Some(s) => {
                let cycles = (u128::from(timeout_ns) * 1000).div_ceil(u128::from(s.period_ps));
                let end = self.cycles().unwrap_or(0).saturating_add(cycles as u64);
                loop {
                    let now = self.cycles().unwrap_or(0);
                    if now >= end {
                        return take();
                    }
                    if s.free {
                        std::thread::sleep(Duration::from_micros(50));
                    } else {
                        // The server signals the eventfd before it replies.
                        // In chunks: other clients of the same cluster get their turn.
                        self.sim_write(sim_regs::WAIT_IRQ, (end - now).min(WAIT_CHUNK))?;
                    }
                    if take()? {
                        return Ok(true);
                    }
                }
            }
            None => {
                let deadline = Instant::now() + Duration::from_nanos(timeout_ns);
                while Instant::now() < deadline {
                    if take()? {
                        return Ok(true);
                    }
                    std::thread::sleep(Duration::from_micros(50));
                }
                take()
            }
        }
    }

    fn now_ns(&self) -> u64 {
        match (self.sim, self.cycles()) {
            (Some(s), Some(c)) => (u128::from(c) * u128::from(s.period_ps) / 1000) as u64,
            _ => self.started.elapsed().as_nanos() as u64,
        }
    }

    fn cycles(&self) -> Option<u64> {
        self.sim_read(sim_regs::CYCLE).ok().flatten()
    }
}
