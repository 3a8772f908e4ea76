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
use fasthsl_device::{Device, DeviceError, DmaBuffer, Pace};
use vfio_bindings::bindings::vfio as vb;

use crate::sys::{self, Mapping};
use crate::{check_sysfs, group_members, Paths, PciAddress, VfioError};

/// First bus address handed out: above 4 GiB, clear of the x86 MSI window
/// (0xfee00000) and of anything a firmware reserves low.
const IOVA_BASE: u64 = 1 << 32;

/// PCI command register: memory space and bus master enable.
const PCI_COMMAND: u64 = 0x04;
const PCI_COMMAND_MEMORY: u16 = 1 << 1;
const PCI_COMMAND_MASTER: u16 = 1 << 2;

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
}

struct DmaState {
    next_id: u64,
    next_iova: u64,
    maps: HashMap<u64, DmaMapping>,
}

/// A FastHSL card opened through VFIO.
///
/// Not `Send`: it holds raw pointers into mappings, and a driver holds one device.
pub struct VfioDevice {
    addr: PciAddress,
    bar: Mapping,
    dma: RefCell<DmaState>,
    /// MSI eventfd, or why interrupts are unavailable.
    irq: Result<File, String>,
    t0: Instant,
    page: usize,
    // Kept open for the device's lifetime: closing the device fd would tear down the
    // MSI routing and reset the function. Fields drop in order, so these go last.
    _device: File,
    _group: File,
    container: File,
}

impl std::fmt::Debug for VfioDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VfioDevice")
            .field("addr", &self.addr.to_string())
            .field("bar0_len", &self.bar.len)
            .field("dma_buffers", &self.dma.borrow().maps.len())
            .field("msi", &self.irq.is_ok())
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
    /// mastering and, if the card has an MSI vector, routes it to an eventfd.
    pub fn open(addr: &str) -> Result<Self, VfioError> {
        Self::open_with(&Paths::default(), addr.parse()?)
    }

    pub(crate) fn open_with(paths: &Paths, addr: PciAddress) -> Result<Self, VfioError> {
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
                what: "no type-1 IOMMU backend (enable CONFIG_VFIO_IOMMU_TYPE1)".into(),
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
        if bar0.size < BAR0_SIZE {
            return Err(VfioError::BarTooSmall {
                addr,
                size: bar0.size,
            });
        }
        if bar0.flags & vb::VFIO_REGION_INFO_FLAG_MMAP == 0 {
            return Err(VfioError::BarNotMappable {
                addr,
                flags: bar0.flags,
            });
        }
        let bar = Mapping::device(&device, bar0.size as usize, bar0.offset)
            .map_err(io_err(format!("mmap of BAR0 of {addr}")))?;

        // vfio-pci enables memory decoding but leaves bus mastering to the user: without
        // it every DMA of the card is dropped.
        let cfg = region_info(&device, vb::VFIO_PCI_CONFIG_REGION_INDEX)?;
        let mut cmd = [0u8; 2];
        device
            .read_exact_at(&mut cmd, cfg.offset + PCI_COMMAND)
            .map_err(io_err("reading the PCI command register"))?;
        let cmd = u16::from_le_bytes(cmd) | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
        device
            .write_all_at(&cmd.to_le_bytes(), cfg.offset + PCI_COMMAND)
            .map_err(io_err("enabling bus mastering in the PCI command register"))?;

        let irq = setup_msi(&device);
        Ok(VfioDevice {
            addr,
            bar,
            dma: RefCell::new(DmaState {
                next_id: 1,
                next_iova: IOVA_BASE,
                maps: HashMap::new(),
            }),
            irq,
            t0: Instant::now(),
            page: sys::page_size(),
            _device: device,
            _group: group,
            container,
        })
    }

    /// The card's PCI address.
    pub fn address(&self) -> PciAddress {
        self.addr
    }

    /// Whether MSI is routed to an eventfd (else [`Device::wait_irq`] reports why not).
    pub fn has_interrupts(&self) -> bool {
        self.irq.is_ok()
    }

    fn bar_ptr(&self, offset: u32) -> Result<*mut u32, DeviceError> {
        if !offset.is_multiple_of(4) || offset as usize + 4 > self.bar.len {
            return Err(DeviceError::BarOffset {
                offset,
                size: self.bar.len as u32,
            });
        }
        // The offset is inside the mapping (checked above), so `add` stays in bounds.
        Ok(self.bar.ptr.as_ptr().wrapping_add(offset as usize).cast())
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

/// Routes MSI vector 0 to a new eventfd; `Err` says why interrupts are unavailable.
fn setup_msi(device: &File) -> Result<File, String> {
    let mut info = vb::vfio_irq_info {
        argsz: std::mem::size_of::<vb::vfio_irq_info>() as u32,
        index: vb::VFIO_PCI_MSI_IRQ_INDEX,
        ..Default::default()
    };
    // SAFETY: VFIO_DEVICE_GET_IRQ_INFO takes a vfio_irq_info.
    unsafe { sys::ioctl_ptr(device, sys::VFIO_DEVICE_GET_IRQ_INFO, &mut info) }
        .map_err(|e| format!("VFIO_DEVICE_GET_IRQ_INFO (MSI): {e}"))?;
    if info.count == 0 || info.flags & vb::VFIO_IRQ_INFO_EVENTFD == 0 {
        return Err("the card exposes no MSI vector; poll instead".into());
    }
    let efd = sys::eventfd().map_err(|e| format!("eventfd: {e}"))?;
    let mut set = IrqSetOne {
        argsz: std::mem::size_of::<IrqSetOne>() as u32,
        flags: vb::VFIO_IRQ_SET_DATA_EVENTFD | vb::VFIO_IRQ_SET_ACTION_TRIGGER,
        index: vb::VFIO_PCI_MSI_IRQ_INDEX,
        start: 0,
        count: 1,
        fd: std::os::fd::AsRawFd::as_raw_fd(&efd),
    };
    // SAFETY: VFIO_DEVICE_SET_IRQS reads a vfio_irq_set followed by `count` (1) i32 fds,
    // which is exactly IrqSetOne's layout; argsz covers it.
    unsafe { sys::ioctl_ptr(device, sys::VFIO_DEVICE_SET_IRQS, &mut set) }
        .map_err(|e| format!("VFIO_DEVICE_SET_IRQS (MSI -> eventfd): {e}"))?;
    Ok(efd)
}

impl Device for VfioDevice {
    fn name(&self) -> String {
        format!("{} (vfio)", self.addr)
    }

    fn bar_read32(&self, offset: u32) -> Result<u32, DeviceError> {
        let p = self.bar_ptr(offset)?;
        // SAFETY: `p` is 4-aligned (BAR mappings are page-aligned, offset checked) and
        // inside the live BAR0 mapping; MMIO must be a single volatile access.
        let v = unsafe { p.read_volatile() };
        // Later reads of host memory must not be satisfied before this register read.
        fence(Ordering::Acquire);
        Ok(v)
    }

    fn bar_write32(&self, offset: u32, value: u32) -> Result<(), DeviceError> {
        let p = self.bar_ptr(offset)?;
        // Doorbell ordering: descriptors written to host memory before this call must
        // be visible to the card before the register write reaches it.
        fence(Ordering::SeqCst);
        // SAFETY: as in bar_read32.
        unsafe { p.write_volatile(value) };
        Ok(())
    }

    fn dma_alloc(&self, len: usize) -> Result<DmaBuffer, DeviceError> {
        let mapped = len.max(1).div_ceil(self.page) * self.page;
        let mem = Mapping::anonymous(mapped).map_err(|e| DeviceError::OutOfMemory {
            len,
            reason: format!("mmap: {e}"),
        })?;
        let mut st = self.dma.borrow_mut();
        let iova = st.next_iova;
        let mut map = vb::vfio_iommu_type1_dma_map {
            argsz: std::mem::size_of::<vb::vfio_iommu_type1_dma_map>() as u32,
            flags: vb::VFIO_DMA_MAP_FLAG_READ | vb::VFIO_DMA_MAP_FLAG_WRITE,
            vaddr: mem.ptr.as_ptr() as u64,
            iova,
            size: mapped as u64,
        };
        // SAFETY: VFIO_IOMMU_MAP_DMA takes a vfio_iommu_type1_dma_map; the range is our
        // own mapping, which stays alive until it is unmapped from the IOMMU (dma_free
        // or drop).
        unsafe { sys::ioctl_ptr(&self.container, sys::VFIO_IOMMU_MAP_DMA, &mut map) }.map_err(
            |source| {
                DeviceError::from(VfioError::DmaMap {
                    iova,
                    len: mapped,
                    source,
                    memlock: sys::memlock_limit(),
                })
            },
        )?;
        // One unmapped guard page between buffers: a card overrun faults in the IOMMU
        // instead of corrupting the neighbour.
        st.next_iova += (mapped + self.page) as u64;
        let id = st.next_id;
        st.next_id += 1;
        st.maps.insert(id, DmaMapping { mem, iova });
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
        self.unmap_dma(m.iova, m.mem.len)
            .map_err(|source| DeviceError::Os {
                what: format!("VFIO_IOMMU_UNMAP_DMA at {:#x}", m.iova),
                source,
            })?;
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
        let efd = self
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
