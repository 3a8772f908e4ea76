//! [`VfioDevice`]: the [`Device`] backend for a real card.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{fence, Ordering};
use std::time::Instant;

use fasthsl_contract::BAR0_SIZE;
use fasthsl_device::{forward_device, BarPage, Device, DeviceError, DmaBuffer, Pace, BAR_PAGE};
use vfio_bindings::bindings::vfio as vb;

use crate::iova::IovaSpace;
use crate::sys::{self, Mapping};
use crate::{check_sysfs, group_members, Paths, PciAddress, VfioError};

/// PCI command register: memory space and bus master enable.
const PCI_COMMAND: u64 = 0x04;
const PCI_COMMAND_MEMORY: u16 = 1 << 1;
const PCI_COMMAND_MASTER: u16 = 1 << 2;

/// Huge page size tried for large DMA buffers (x86-64 and arm64 with 4 KiB base pages).
const HUGE_PAGE: usize = 2 << 20;

/// How [`VfioDevice::open_with_config`] sets a device up. [`Default`] is right for a
/// FastHSL card; other values serve other devices (the QEMU `edu` test device) and
/// the fallbacks' tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VfioConfig {
    /// BAR0 must be at least this long (default: the contract's register file).
    pub min_bar0_len: u64,
    /// First bus address DMA buffers may get. Default 4 GiB: clear of the x86 MSI window
    /// and of anything firmware reserves low.
    pub iova_start: u64,
    /// End (exclusive) of the bus addresses the device can reach; `u64::MAX`: no limit
    /// beyond the IOMMU's own. A device with 32-bit DMA would say `1 << 32`.
    pub iova_end: u64,
    /// Back DMA buffers of 2 MiB and more with huge pages when the system has free ones
    /// (fewer IOMMU and TLB entries); falls back to normal pages otherwise.
    pub hugepages: bool,
    /// mmap BAR0 when VFIO allows it (default); `false` forces the pread/pwrite path that
    /// is otherwise only the fallback for a BAR VFIO will not map.
    pub mmap_bar0: bool,
}

impl Default for VfioConfig {
    fn default() -> Self {
        VfioConfig {
            min_bar0_len: BAR0_SIZE,
            iova_start: 1 << 32,
            iova_end: u64::MAX,
            hugepages: true,
            mmap_bar0: true,
        }
    }
}

/// Which interrupt mechanism was routed to the eventfd.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IrqKind {
    /// PCI MSI, vector 0.
    Msi,
    /// PCI MSI-X, vector 0.
    MsiX,
}

/// `struct vfio_irq_set` with room for exactly one eventfd.
#[repr(C)]
struct IrqSetOne {
    argsz: u32,
    flags: u32,
    index: u32,
    start: u32,
    count: u32,
    fd: i32,
}

/// One pinned, IOMMU-mapped DMA buffer.
struct DmaMapping {
    mem: Mapping,
    iova: u64,
    huge: bool,
}

struct DmaState {
    next_id: u64,
    space: IovaSpace,
    maps: HashMap<u64, DmaMapping>,
}

/// How BAR0 is reached.
enum Bar {
    /// mmapped: one volatile load or store per register access.
    Mapped(Mapping),
    /// Through the device fd at the region's offset (pread/pwrite), when VFIO does not
    /// allow mmap (or the config asks for it). One system call per access.
    Region { offset: u64, len: usize },
}

impl Bar {
    fn len(&self) -> usize {
        match self {
            Bar::Mapped(m) => m.len,
            Bar::Region { len, .. } => *len,
        }
    }

    /// One 32-bit read at byte `at` of the mapping (or region window); `at` is checked
    /// by the caller (4-aligned, `at + 4 <= len`). `bar_offset` names it in errors.
    fn read32(&self, device: &File, at: usize, bar_offset: u32) -> Result<u32, DeviceError> {
        debug_assert!(at.is_multiple_of(4) && at + 4 <= self.len());
        let v = match self {
            Bar::Mapped(m) => {
                let p = m.ptr.as_ptr().wrapping_add(at).cast::<u32>();
                // SAFETY: `p` is 4-aligned (mappings are page-aligned, `at` checked) and
                // inside the live mapping (checked by the caller); MMIO must be a single
                // volatile access.
                unsafe { p.read_volatile() }
            }
            Bar::Region { offset: base, .. } => {
                let mut b = [0u8; 4];
                // vfio-pci turns a 4-byte aligned pread into one 32-bit MMIO read.
                device
                    .read_exact_at(&mut b, base + at as u64)
                    .map_err(|source| DeviceError::Os {
                        what: format!("pread of BAR0 offset {bar_offset:#x}"),
                        source,
                    })?;
                u32::from_le_bytes(b)
            }
        };
        // Later reads of host memory must not be satisfied before this register read.
        fence(Ordering::Acquire);
        Ok(v)
    }

    /// One 32-bit write, as [`Bar::read32`].
    fn write32(
        &self,
        device: &File,
        at: usize,
        bar_offset: u32,
        value: u32,
    ) -> Result<(), DeviceError> {
        debug_assert!(at.is_multiple_of(4) && at + 4 <= self.len());
        // Doorbell ordering: descriptors written to host memory before this call must
        // be visible to the card before the register write reaches it.
        fence(Ordering::SeqCst);
        match self {
            Bar::Mapped(m) => {
                let p = m.ptr.as_ptr().wrapping_add(at).cast::<u32>();
                // SAFETY: as in read32.
                unsafe { p.write_volatile(value) };
            }
            Bar::Region { offset: base, .. } => device
                .write_all_at(&value.to_le_bytes(), base + at as u64)
                .map_err(|source| DeviceError::Os {
                    what: format!("pwrite of BAR0 offset {bar_offset:#x}"),
                    source,
                })?,
        }
        Ok(())
    }
}

/// A FastHSL card (or any PCI function) opened through VFIO.
///
/// Not `Send`: it holds raw pointers into mappings, and a driver holds one device.
pub struct VfioDevice {
    addr: PciAddress,
    bar: Bar,
    /// BAR0 region in the device fd (offset, size) and whether pages may be mmapped
    /// (VFIO allows it and the config did not ask for pread/pwrite): for [`VfioPage`].
    bar0_region: (u64, u64),
    bar0_mmap: bool,
    dma: RefCell<DmaState>,
    /// Interrupt eventfd and its kind, or why interrupts are unavailable.
    irq: Result<(File, IrqKind), String>,
    can_reset: bool,
    hugepages: bool,
    /// What the IOMMU reported: page-size bitmap and usable IOVA ranges (inclusive).
    iommu_pgsizes: u64,
    iommu_ranges: Vec<(u64, u64)>,
    t0: Instant,
    page: usize,
    /// Config space region offset in the device fd.
    cfg_offset: u64,
    // Kept open for the device's lifetime: closing the device fd would tear down the
    // MSI routing and reset the function. Fields drop in order, so these go last.
    device: File,
    _group: File,
    container: File,
}

impl std::fmt::Debug for VfioDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VfioDevice")
            .field("addr", &self.addr.to_string())
            .field("bar0_len", &self.bar.len())
            .field("bar0_mmapped", &matches!(self.bar, Bar::Mapped(_)))
            .field("dma_buffers", &self.dma.borrow().maps.len())
            .field("irq", &self.irq.as_ref().map(|(_, k)| *k).ok())
            .finish()
    }
}

fn io_err(what: impl Into<String>) -> impl FnOnce(io::Error) -> VfioError {
    let what = what.into();
    move |source| VfioError::Io { what, source }
}

/// Opens a VFIO device node, turning the common failures into actionable errors.
fn open_node(path: &Path, on_missing: impl FnOnce() -> VfioError) -> Result<File, VfioError> {
    match OpenOptions::new().read(true).write(true).open(path) {
        Ok(f) => Ok(f),
        Err(e) => Err(match e.raw_os_error() {
            Some(libc::ENOENT) => on_missing(),
            Some(libc::EACCES) | Some(libc::EPERM) => VfioError::Permission {
                path: path.to_path_buf(),
            },
            Some(libc::EBUSY) => VfioError::Busy {
                path: path.to_path_buf(),
            },
            _ => VfioError::Io {
                what: format!("opening {}", path.display()),
                source: e,
            },
        }),
    }
}

impl VfioDevice {
    /// Opens the card at `addr` ("0000:01:00.0"): checks sysfs (device present, IOMMU on,
    /// bound to vfio-pci), sets up a type-1 IOMMU container, maps BAR0, enables bus
    /// mastering and, if the card has an MSI (or MSI-X) vector, routes it to an eventfd.
    pub fn open(addr: &str) -> Result<Self, VfioError> {
        Self::open_with_config(addr, &VfioConfig::default())
    }

    /// [`VfioDevice::open`] with explicit settings (BAR size check, IOVA window, huge
    /// pages, BAR access path).
    pub fn open_with_config(addr: &str, cfg: &VfioConfig) -> Result<Self, VfioError> {
        Self::open_with(&Paths::default(), addr.parse()?, cfg)
    }

    pub(crate) fn open_with(
        paths: &Paths,
        addr: PciAddress,
        cfg: &VfioConfig,
    ) -> Result<Self, VfioError> {
        let group_no = check_sysfs(paths, &addr)?;

        let cpath = paths.dev_vfio.join("vfio");
        let container = open_node(&cpath, || VfioError::NoVfio {
            path: cpath.clone(),
        })?;
        let api = sys::ioctl_int(&container, sys::VFIO_GET_API_VERSION, 0)
            .map_err(io_err("VFIO_GET_API_VERSION"))?;
        if api != vb::VFIO_API_VERSION as i32 {
            return Err(VfioError::Unsupported {
                what: format!("VFIO API version {api}, expected {}", vb::VFIO_API_VERSION),
            });
        }
        let iommu_type = [vb::VFIO_TYPE1v2_IOMMU, vb::VFIO_TYPE1_IOMMU]
            .into_iter()
            .find(|&t| {
                sys::ioctl_int(&container, sys::VFIO_CHECK_EXTENSION, t.into()).unwrap_or(0) > 0
            })
            .ok_or_else(|| VfioError::Unsupported {
                what: "no type-1 IOMMU backend: load it (`sudo modprobe vfio_iommu_type1`) \
                       or build the kernel with CONFIG_VFIO_IOMMU_TYPE1"
                    .into(),
            })?;

        let gpath = paths.dev_vfio.join(group_no.to_string());
        let group = open_node(&gpath, || VfioError::NotBoundToVfio { addr, driver: None })?;
        let mut status = vb::vfio_group_status {
            argsz: std::mem::size_of::<vb::vfio_group_status>() as u32,
            flags: 0,
        };
        // SAFETY: VFIO_GROUP_GET_STATUS takes a vfio_group_status.
        unsafe { sys::ioctl_ptr(&group, sys::VFIO_GROUP_GET_STATUS, &mut status) }
            .map_err(io_err("VFIO_GROUP_GET_STATUS"))?;
        if status.flags & vb::VFIO_GROUP_FLAGS_VIABLE == 0 {
            return Err(VfioError::GroupNotViable {
                group: group_no,
                others: group_members(paths, group_no, &addr),
            });
        }
        sys::group_set_container(&group, &container).map_err(io_err("VFIO_GROUP_SET_CONTAINER"))?;
        sys::ioctl_int(&container, sys::VFIO_SET_IOMMU, iommu_type.into())
            .map_err(io_err("VFIO_SET_IOMMU (type-1)"))?;
        let (pgsizes, kernel_ranges) = iommu_info(&container)?;
        let page = sys::page_size();
        // The smallest IOMMU page decides the granule of DMA mappings.
        let granule = match pgsizes {
            0 => page,
            p => (1usize << p.trailing_zeros()).max(page),
        };
        let space = IovaSpace::new(&kernel_ranges, cfg.iova_start, cfg.iova_end, granule as u64);
        if space.ranges().is_empty() {
            return Err(VfioError::Unsupported {
                what: format!(
                    "no usable bus addresses: the IOMMU accepts {} and the device reaches \
                     [{:#x}, {:#x})",
                    fmt_ranges(&kernel_ranges),
                    cfg.iova_start,
                    cfg.iova_end
                ),
            });
        }

        let device = sys::group_get_device_fd(&group, &addr.to_string())
            .map_err(io_err(format!("VFIO_GROUP_GET_DEVICE_FD {addr}")))?;

        let mut info = vb::vfio_device_info {
            argsz: std::mem::size_of::<vb::vfio_device_info>() as u32,
            ..Default::default()
        };
        // SAFETY: VFIO_DEVICE_GET_INFO takes a vfio_device_info.
        unsafe { sys::ioctl_ptr(&device, sys::VFIO_DEVICE_GET_INFO, &mut info) }
            .map_err(io_err("VFIO_DEVICE_GET_INFO"))?;
        if info.flags & vb::VFIO_DEVICE_FLAGS_PCI == 0 {
            return Err(VfioError::Unsupported {
                what: format!("{addr} is not a PCI device to VFIO"),
            });
        }

        let bar0 = region_info(&device, vb::VFIO_PCI_BAR0_REGION_INDEX)?;
        if bar0.size < cfg.min_bar0_len {
            return Err(VfioError::BarTooSmall {
                addr,
                size: bar0.size,
                need: cfg.min_bar0_len,
            });
        }
        let rw = vb::VFIO_REGION_INFO_FLAG_READ | vb::VFIO_REGION_INFO_FLAG_WRITE;
        if bar0.flags & rw != rw {
            return Err(VfioError::BarNotAccessible {
                addr,
                flags: bar0.flags,
            });
        }
        let bar0_mmap = cfg.mmap_bar0 && bar0.flags & vb::VFIO_REGION_INFO_FLAG_MMAP != 0;
        let bar = if bar0_mmap {
            Bar::Mapped(
                Mapping::device(&device, bar0.size as usize, bar0.offset)
                    .map_err(io_err(format!("mmap of BAR0 of {addr}")))?,
            )
        } else {
            Bar::Region {
                offset: bar0.offset,
                len: bar0.size as usize,
            }
        };

        let cfg_region = region_info(&device, vb::VFIO_PCI_CONFIG_REGION_INDEX)?;
        enable_bus_master(&device, cfg_region.offset)?;

        let irq = setup_irq(&device);
        Ok(VfioDevice {
            addr,
            bar,
            bar0_region: (bar0.offset, bar0.size),
            bar0_mmap,
            dma: RefCell::new(DmaState {
                next_id: 1,
                space,
                maps: HashMap::new(),
            }),
            irq,
            can_reset: info.flags & vb::VFIO_DEVICE_FLAGS_RESET != 0,
            hugepages: cfg.hugepages,
            iommu_pgsizes: pgsizes,
            iommu_ranges: kernel_ranges,
            t0: Instant::now(),
            page: granule,
            cfg_offset: cfg_region.offset,
            device,
            _group: group,
            container,
        })
    }

    /// The card's PCI address.
    pub fn address(&self) -> PciAddress {
        self.addr
    }

    /// Whether an interrupt is routed to an eventfd (else [`Device::wait_irq`] says why not).
    pub fn has_interrupts(&self) -> bool {
        self.irq.is_ok()
    }

    /// The interrupt mechanism in use, if any.
    pub fn irq_kind(&self) -> Option<IrqKind> {
        self.irq.as_ref().ok().map(|(_, k)| *k)
    }

    /// BAR0 length in bytes.
    pub fn bar0_len(&self) -> usize {
        self.bar.len()
    }

    /// Whether BAR0 is mmapped (else reached by pread/pwrite on the device fd).
    pub fn bar0_mmapped(&self) -> bool {
        matches!(self.bar, Bar::Mapped(_))
    }

    /// A handle on the 4 KiB page of BAR0 at offset `base` alone (see [`VfioPage`]):
    /// the page is mmapped by itself (length 4 KiB at the region's offset + `base`) when
    /// VFIO allows mmap of BAR0, the configuration did not ask for pread/pwrite and the
    /// system's pages are 4 KiB; otherwise its accesses are preads/pwrites confined to
    /// the page. Refused for a page that is not 4 KiB aligned or does not end inside BAR0.
    pub fn map_page(&self, base: u64) -> Result<VfioPage<'_>, DeviceError> {
        let page = BarPage::new(base, self.bar0_region.1)?;
        let offset = page_file_offset(self.bar0_region.0, page);
        let access = if self.bar0_mmap && sys::page_size() == BAR_PAGE as usize {
            // A refusal here (a BAR whose mmappable areas leave this page out: a sparse
            // mmap around an MSI-X table) leaves the pread/pwrite path, still confined.
            match Mapping::device(&self.device, BAR_PAGE as usize, offset) {
                Ok(m) => Bar::Mapped(m),
                Err(_) => Bar::Region {
                    offset,
                    len: BAR_PAGE as usize,
                },
            }
        } else {
            Bar::Region {
                offset,
                len: BAR_PAGE as usize,
            }
        };
        Ok(VfioPage {
            dev: self,
            page,
            bar: access,
        })
    }

    /// [`VfioDevice::map_page`] of context `n`'s page of a FastHSL card
    /// ([`BarPage::context`]: refused for a context the card does not have).
    pub fn map_context_page(&self, n: u32) -> Result<VfioPage<'_>, DeviceError> {
        self.map_page(BarPage::context(n)?.base().into())
    }

    /// The bus-address ranges DMA buffers are placed in (IOMMU ranges within the
    /// configured window), inclusive ends.
    pub fn iova_ranges(&self) -> Vec<(u64, u64)> {
        self.dma.borrow().space.ranges().to_vec()
    }

    /// What the IOMMU reported (`VFIO_IOMMU_GET_INFO`): the bitmap of page sizes it maps
    /// and the IOVA ranges it accepts, inclusive ends (`[(0, u64::MAX)]` from kernels that
    /// do not report ranges).
    pub fn iommu_info(&self) -> (u64, &[(u64, u64)]) {
        (self.iommu_pgsizes, &self.iommu_ranges)
    }

    /// Whether `buf` is backed by huge pages; `None` for a buffer not of this device.
    pub fn dma_is_huge(&self, buf: &DmaBuffer) -> Option<bool> {
        let st = self.dma.borrow();
        st.maps
            .get(&buf.id())
            .filter(|m| m.iova == buf.iova())
            .map(|m| m.huge)
    }

    /// Whether VFIO can reset the function (FLR, power-management or bus reset).
    pub fn can_reset(&self) -> bool {
        self.can_reset
    }

    /// Resets the function (`VFIO_DEVICE_RESET`). The kernel saves and restores config
    /// space around it; DMA mappings and the interrupt routing stay. Device state (the
    /// card's registers) is back to its reset values.
    pub fn reset(&self) -> Result<(), VfioError> {
        if !self.can_reset {
            return Err(VfioError::Unsupported {
                what: format!(
                    "{} cannot be reset through VFIO: it has no function-level reset, no \
                     power-management reset and shares its bus (no secondary-bus reset)",
                    self.addr
                ),
            });
        }
        sys::ioctl_int(&self.device, sys::VFIO_DEVICE_RESET, 0)
            .map_err(io_err(format!("VFIO_DEVICE_RESET of {}", self.addr)))?;
        // The restored command register should have bus mastering again; make sure.
        enable_bus_master(&self.device, self.cfg_offset)
    }

    fn check_bar(&self, offset: u32) -> Result<(), DeviceError> {
        if !offset.is_multiple_of(4) || offset as usize + 4 > self.bar.len() {
            return Err(DeviceError::BarOffset {
                offset,
                size: self.bar.len().min(u32::MAX as usize) as u32,
            });
        }
        Ok(())
    }

    /// Pointer to `[offset, offset+len)` of `buf`, after checking bounds and ownership.
    fn dma_ptr(&self, buf: &DmaBuffer, offset: usize, len: usize) -> Result<*mut u8, DeviceError> {
        buf.check(offset, len)?;
        let st = self.dma.borrow();
        let m = st
            .maps
            .get(&buf.id())
            .filter(|m| m.iova == buf.iova() && m.mem.len >= buf.len())
            .ok_or(DeviceError::UnknownBuffer { iova: buf.iova() })?;
        Ok(m.mem.ptr.as_ptr().wrapping_add(offset))
    }

    fn unmap_dma(&self, iova: u64, len: usize) -> io::Result<()> {
        let mut unmap = vb::vfio_iommu_type1_dma_unmap {
            argsz: std::mem::size_of::<vb::vfio_iommu_type1_dma_unmap>() as u32,
            flags: 0,
            iova,
            size: len as u64,
            ..Default::default()
        };
        // SAFETY: VFIO_IOMMU_UNMAP_DMA takes a vfio_iommu_type1_dma_unmap; without the
        // dirty-bitmap flag the kernel touches no trailing data.
        unsafe { sys::ioctl_ptr(&self.container, sys::VFIO_IOMMU_UNMAP_DMA, &mut unmap) }.map(drop)
    }

    /// Anonymous memory for a DMA buffer of at least `len` bytes: huge pages when asked
    /// for, large enough and available, else normal pages.
    fn dma_memory(&self, len: usize) -> Result<(Mapping, bool), DeviceError> {
        if self.hugepages && len >= HUGE_PAGE {
            let huge_len = len.div_ceil(HUGE_PAGE) * HUGE_PAGE;
            // ENOMEM here only means no free huge page: fall through to normal pages.
            if let Ok(m) = Mapping::anonymous(huge_len, true) {
                return Ok((m, true));
            }
        }
        let mapped = len.max(1).div_ceil(self.page) * self.page;
        let m = Mapping::anonymous(mapped, false).map_err(|e| DeviceError::OutOfMemory {
            len,
            reason: format!("mmap: {e}"),
        })?;
        Ok((m, false))
    }
}

fn fmt_ranges(r: &[(u64, u64)]) -> String {
    let v: Vec<String> = r.iter().map(|(a, b)| format!("[{a:#x}, {b:#x}]")).collect();
    v.join(" ")
}

/// The IOMMU's supported page sizes (bitmap) and usable IOVA ranges (inclusive ends).
/// Kernels before 5.4 report no ranges: then the whole space is assumed usable.
fn iommu_info(container: &File) -> Result<(u64, Vec<(u64, u64)>), VfioError> {
    let mut words = std::mem::size_of::<vb::vfio_iommu_type1_info>() / 8;
    // The first call reports how big the capability chain is; the second one gets it.
    for _ in 0..4 {
        let mut buf = vec![0u64; words];
        // argsz is the low half of word 0 (the struct's first u32 on a little-endian host).
        buf[0] = (words * 8) as u64;
        sys::ioctl_buf(container, sys::VFIO_IOMMU_GET_INFO, &mut buf)
            .map_err(io_err("VFIO_IOMMU_GET_INFO"))?;
        let bytes: Vec<u8> = buf.iter().flat_map(|w| w.to_le_bytes()).collect();
        match parse_iommu_info(&bytes) {
            IommuInfo::Done { pgsizes, ranges } => return Ok((pgsizes, ranges)),
            IommuInfo::NeedBytes(n) => words = n.div_ceil(8),
        }
    }
    Err(VfioError::Unsupported {
        what: "VFIO_IOMMU_GET_INFO keeps asking for a larger buffer".into(),
    })
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum IommuInfo {
    /// Page-size bitmap and usable ranges (inclusive ends).
    Done {
        pgsizes: u64,
        ranges: Vec<(u64, u64)>,
    },
    /// The capability chain did not fit: call again with this many bytes.
    NeedBytes(usize),
}

/// Decodes a `vfio_iommu_type1_info` with its capability chain, as the kernel filled it.
pub(crate) fn parse_iommu_info(bytes: &[u8]) -> IommuInfo {
    let u32_at = |o: usize| {
        bytes
            .get(o..o.checked_add(4)?)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
    };
    let u64_at = |o: usize| {
        bytes
            .get(o..o.checked_add(8)?)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
    };
    let argsz = u32_at(0).unwrap_or(0) as usize;
    let flags = u32_at(4).unwrap_or(0);
    let pgsizes = if flags & vb::VFIO_IOMMU_INFO_PGSIZES != 0 {
        u64_at(8).unwrap_or(0)
    } else {
        0
    };
    let whole = IommuInfo::Done {
        pgsizes,
        ranges: vec![(0, u64::MAX)],
    };
    if flags & vb::VFIO_IOMMU_INFO_CAPS == 0 {
        return whole;
    }
    if argsz > bytes.len() {
        return IommuInfo::NeedBytes(argsz);
    }
    // Walk the chain (offsets from the start of the struct; 0 ends it), bounded in case
    // of a loop.
    let mut off = u32_at(16).unwrap_or(0) as usize;
    for _ in 0..64 {
        if off == 0 {
            break;
        }
        let (Some(head), Some(next)) = (u32_at(off), u32_at(off + 4)) else {
            break;
        };
        if head & 0xffff == vb::VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE {
            let n = u32_at(off + 8).unwrap_or(0) as usize;
            let ranges = (0..n)
                .map_while(|i| {
                    let r = off + 16 + 16 * i;
                    Some((u64_at(r)?, u64_at(r + 8)?))
                })
                .collect();
            return IommuInfo::Done { pgsizes, ranges };
        }
        off = next as usize;
    }
    whole
}

fn region_info(device: &File, index: u32) -> Result<vb::vfio_region_info, VfioError> {
    let mut r = vb::vfio_region_info {
        argsz: std::mem::size_of::<vb::vfio_region_info>() as u32,
        index,
        ..Default::default()
    };
    // SAFETY: VFIO_DEVICE_GET_REGION_INFO takes a vfio_region_info; capabilities beyond
    // argsz are not written.
    unsafe { sys::ioctl_ptr(device, sys::VFIO_DEVICE_GET_REGION_INFO, &mut r) }
        .map_err(io_err(format!("VFIO_DEVICE_GET_REGION_INFO {index}")))?;
    Ok(r)
}

/// vfio-pci enables memory decoding but leaves bus mastering to the user: without it
/// every DMA of the card is dropped.
fn enable_bus_master(device: &File, cfg_offset: u64) -> Result<(), VfioError> {
    let mut cmd = [0u8; 2];
    device
        .read_exact_at(&mut cmd, cfg_offset + PCI_COMMAND)
        .map_err(io_err("reading the PCI command register"))?;
    let cmd = u16::from_le_bytes(cmd) | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
    device
        .write_all_at(&cmd.to_le_bytes(), cfg_offset + PCI_COMMAND)
        .map_err(io_err("enabling bus mastering in the PCI command register"))
}

/// Routes MSI vector 0 (or, without MSI, MSI-X vector 0) to a new eventfd; `Err` says
/// why interrupts are unavailable.
fn setup_irq(device: &File) -> Result<(File, IrqKind), String> {
    let mut why = Vec::new();
    for (index, kind) in [
        (vb::VFIO_PCI_MSI_IRQ_INDEX, IrqKind::Msi),
        (vb::VFIO_PCI_MSIX_IRQ_INDEX, IrqKind::MsiX),
    ] {
        match route_vector0(device, index) {
            Ok(efd) => return Ok((efd, kind)),
            Err(e) => why.push(format!("{kind:?}: {e}")),
        }
    }
    Err(format!("{}; poll instead", why.join("; ")))
}

fn route_vector0(device: &File, index: u32) -> Result<File, String> {
    let mut info = vb::vfio_irq_info {
        argsz: std::mem::size_of::<vb::vfio_irq_info>() as u32,
        index,
        ..Default::default()
    };
    // SAFETY: VFIO_DEVICE_GET_IRQ_INFO takes a vfio_irq_info.
    unsafe { sys::ioctl_ptr(device, sys::VFIO_DEVICE_GET_IRQ_INFO, &mut info) }
        .map_err(|e| format!("VFIO_DEVICE_GET_IRQ_INFO: {e}"))?;
    if info.count == 0 || info.flags & vb::VFIO_IRQ_INFO_EVENTFD == 0 {
        return Err("no vector".into());
    }
    let efd = sys::eventfd().map_err(|e| format!("eventfd: {e}"))?;
    let mut set = IrqSetOne {
        argsz: std::mem::size_of::<IrqSetOne>() as u32,
        flags: vb::VFIO_IRQ_SET_DATA_EVENTFD | vb::VFIO_IRQ_SET_ACTION_TRIGGER,
        index,
        start: 0,
        count: 1,
        fd: std::os::fd::AsRawFd::as_raw_fd(&efd),
    };
    // SAFETY: VFIO_DEVICE_SET_IRQS reads a vfio_irq_set followed by `count` (1) i32 fds,
    // which is exactly IrqSetOne's layout; argsz covers it.
    unsafe { sys::ioctl_ptr(device, sys::VFIO_DEVICE_SET_IRQS, &mut set) }
        .map_err(|e| format!("VFIO_DEVICE_SET_IRQS (-> eventfd): {e}"))?;
    Ok(efd)
}

impl Device for VfioDevice {
    fn name(&self) -> String {
        format!("{} (vfio)", self.addr)
    }

    fn bar_read32(&self, offset: u32) -> Result<u32, DeviceError> {
        self.check_bar(offset)?;
        self.bar.read32(&self.device, offset as usize, offset)
    }

    fn bar_write32(&self, offset: u32, value: u32) -> Result<(), DeviceError> {
        self.check_bar(offset)?;
        self.bar
            .write32(&self.device, offset as usize, offset, value)
    }

    fn dma_alloc(&self, len: usize) -> Result<DmaBuffer, DeviceError> {
        let (mem, huge) = self.dma_memory(len)?;
        let mut st = self.dma.borrow_mut();
        // Huge buffers get IOVAs aligned like their pages, so the IOMMU can use its
        // own large pages for them.
        let align = if huge { HUGE_PAGE } else { self.page } as u64;
        let iova =
            st.space
                .alloc(mem.len as u64, align)
                .ok_or_else(|| DeviceError::OutOfMemory {
                    len,
                    reason: format!(
                        "no free bus-address range of {:#x} bytes in {}",
                        mem.len,
                        fmt_ranges(st.space.ranges())
                    ),
                })?;
        let mut map = vb::vfio_iommu_type1_dma_map {
            argsz: std::mem::size_of::<vb::vfio_iommu_type1_dma_map>() as u32,
            flags: vb::VFIO_DMA_MAP_FLAG_READ | vb::VFIO_DMA_MAP_FLAG_WRITE,
            vaddr: mem.ptr.as_ptr() as u64,
            iova,
            size: mem.len as u64,
        };
        // SAFETY: VFIO_IOMMU_MAP_DMA takes a vfio_iommu_type1_dma_map; the range is our
        // own mapping, which stays alive until it is unmapped from the IOMMU (dma_free
        // or drop).
        let mapped = unsafe { sys::ioctl_ptr(&self.container, sys::VFIO_IOMMU_MAP_DMA, &mut map) };
        if let Err(source) = mapped {
            st.space.free(iova);
            return Err(DeviceError::from(VfioError::DmaMap {
                iova,
                len: mem.len,
                source,
                memlock: sys::memlock_limit(),
            }));
        }
        let id = st.next_id;
        st.next_id += 1;
        st.maps.insert(id, DmaMapping { mem, iova, huge });
        Ok(DmaBuffer::new(id, iova, len))
    }

    fn dma_free(&self, buf: DmaBuffer) -> Result<(), DeviceError> {
        let m = {
            let mut st = self.dma.borrow_mut();
            match st.maps.get(&buf.id()) {
                Some(m) if m.iova == buf.iova() => st.maps.remove(&buf.id()).expect("present"),
                _ => return Err(DeviceError::UnknownBuffer { iova: buf.iova() }),
            }
        };
        if let Err(source) = self.unmap_dma(m.iova, m.mem.len) {
            // The card may still reach the pages: leak them rather than hand them back
            // to the allocator.
            std::mem::forget(m);
            return Err(DeviceError::Os {
                what: format!("VFIO_IOMMU_UNMAP_DMA at {:#x}", buf.iova()),
                source,
            });
        }
        self.dma.borrow_mut().space.free(m.iova);
        drop(m); // munmap only once the card can no longer reach the pages
        Ok(())
    }

    fn mem_write(&self, buf: &DmaBuffer, offset: usize, data: &[u8]) -> Result<(), DeviceError> {
        let p = self.dma_ptr(buf, offset, data.len())?;
        // SAFETY: `p..p+len` is inside a live mapping of ours (bounds checked by
        // dma_ptr) and cannot overlap `data`, a Rust slice outside DMA memory (DMA memory
        // is never exposed as a slice).
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p, data.len()) };
        fence(Ordering::Release);
        Ok(())
    }

    fn mem_read(&self, buf: &DmaBuffer, offset: usize, out: &mut [u8]) -> Result<(), DeviceError> {
        let p = self.dma_ptr(buf, offset, out.len())?;
        // SAFETY: as in mem_write, with the roles of source and destination swapped.
        unsafe { std::ptr::copy_nonoverlapping(p, out.as_mut_ptr(), out.len()) };
        fence(Ordering::Acquire);
        Ok(())
    }

    fn mem_read_u64(&self, buf: &DmaBuffer, offset: usize) -> Result<u64, DeviceError> {
        if !offset.is_multiple_of(8) {
            let mut b = [0u8; 8];
            self.mem_read(buf, offset, &mut b)?;
            return Ok(u64::from_le_bytes(b));
        }
        let p = self.dma_ptr(buf, offset, 8)?;
        // SAFETY: in bounds (dma_ptr) and 8-aligned (page-aligned base, offset % 8 == 0).
        // Volatile: status words are polled in a loop while the card writes them, so the
        // load must be repeated every time.
        let v = unsafe { p.cast::<u64>().read_volatile() };
        // The rest of an entry is read after its status word.
        fence(Ordering::Acquire);
        Ok(u64::from_le(v))
    }

    fn mem_write_u64(&self, buf: &DmaBuffer, offset: usize, value: u64) -> Result<(), DeviceError> {
        if !offset.is_multiple_of(8) {
            return self.mem_write(buf, offset, &value.to_le_bytes());
        }
        let p = self.dma_ptr(buf, offset, 8)?;
        // SAFETY: as in mem_read_u64.
        unsafe { p.cast::<u64>().write_volatile(value.to_le()) };
        fence(Ordering::Release);
        Ok(())
    }

    fn relax(&self, _pace: Pace) {
        std::hint::spin_loop();
    }

    fn wait_irq(&self, timeout_ns: u64) -> Result<bool, DeviceError> {
        let (efd, _) = self
            .irq
            .as_ref()
            .map_err(|why| DeviceError::NoInterrupts(why.clone()))?;
        let ready = sys::poll_readable(efd, timeout_ns).map_err(|source| DeviceError::Os {
            what: "waiting for the MSI eventfd".into(),
            source,
        })?;
        if ready {
            // Reading resets the eventfd's counter; WouldBlock means another reader won.
            let mut b = [0u8; 8];
            match (&*efd).read(&mut b) {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(source) => {
                    return Err(DeviceError::Os {
                        what: "reading the MSI eventfd".into(),
                        source,
                    })
                }
            }
        }
        Ok(ready)
    }

    fn now_ns(&self) -> u64 {
        self.t0.elapsed().as_nanos() as u64
    }

    fn cycles(&self) -> Option<u64> {
        None
    }
}

impl Drop for VfioDevice {
    fn drop(&mut self) {
        // Unmap from the IOMMU before the pages go back to the system.
        let maps: Vec<DmaMapping> = self.dma.get_mut().maps.drain().map(|(_, m)| m).collect();
        for m in maps {
            let _ = self.unmap_dma(m.iova, m.mem.len);
        }
    }
}

/// Where `page` of a BAR starts in the device fd, whose BAR region starts at `region`.
pub(crate) fn page_file_offset(region: u64, page: BarPage) -> u64 {
    region + u64::from(page.base())
}

/// One 4 KiB page of a [`VfioDevice`]'s BAR0, as a [`Device`]: what a user-level
/// context of the card needs (`VfioDevice::map_context_page`, then
/// `fasthsl_driver::Context::open` on it).
///
/// Register offsets are BAR0 offsets, as on the whole device; any outside the page (or
/// not 4-byte aligned) is refused with [`DeviceError::PageOffset`] before anything
/// reaches the card. The handle holds a mapping of its page only, so it has no way to
/// touch another page. DMA memory, interrupts and the clock are the device's: buffers
/// are allocated in the device's IOMMU container (one per IOMMU group), in the same
/// IO address space as the card owner's and every other context's buffers. The page
/// handle therefore separates the code that holds it from other pages, inside the process
/// that opened the card; isolating processes from one another (registers and DMA) needs
/// a component that holds the VFIO fds for them (docs/HARDWARE.md, *Contexts*).
pub struct VfioPage<'a> {
    dev: &'a VfioDevice,
    page: BarPage,
    bar: Bar,
}

impl VfioPage<'_> {
    /// The page.
    pub fn page(&self) -> BarPage {
        self.page
    }

    /// Whether the page is mmapped by itself (else reached by pread/pwrite confined to it).
    pub fn mmapped(&self) -> bool {
        matches!(self.bar, Bar::Mapped(_))
    }
}

impl std::fmt::Debug for VfioPage<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VfioPage")
            .field("addr", &self.dev.addr.to_string())
            .field("base", &format_args!("{:#x}", self.page.base()))
            .field("mmapped", &self.mmapped())
            .finish()
    }
}

impl Device for VfioPage<'_> {
    fn name(&self) -> String {
        format!("{} page {:#x}", self.dev.name(), self.page.base())
    }

    fn bar_read32(&self, offset: u32) -> Result<u32, DeviceError> {
        let at = self.page.check(offset)?;
        self.bar.read32(&self.dev.device, at as usize, offset)
    }

    fn bar_write32(&self, offset: u32, value: u32) -> Result<(), DeviceError> {
        let at = self.page.check(offset)?;
        self.bar
            .write32(&self.dev.device, at as usize, offset, value)
    }

    // mem_*_u64 too: the device's single volatile accesses, not the default byte copy.
    forward_device!(self => self.dev; dma_alloc, dma_free, mem_write, mem_read, mem_read_u64,
        mem_write_u64, relax, wait_irq, now_ns, cycles);
}
