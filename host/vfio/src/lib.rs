//! A real FastHSL card from user space, through Linux VFIO and the type-1 IOMMU.
//!
//! [`VfioDevice`] implements [`fasthsl_device::Device`]: BAR0 is mmapped and accessed
//! with volatile 32-bit loads and stores (pread/pwrite on the device fd when VFIO will
//! not map it); DMA buffers are anonymous, page-aligned mappings (2 MiB huge pages for
//! large ones when the system has them) pinned and mapped at bus addresses (IOVAs) the
//! backend picks inside the ranges the IOMMU reports, so the card can only reach memory
//! the driver handed it; the card's MSI (or MSI-X) vector is delivered to an eventfd for
//! [`fasthsl_device::Device::wait_irq`]; [`VfioDevice::reset`] resets the function.
//! [`VfioDevice::map_page`] gives a handle on one 4 KiB page of BAR0 alone ([`VfioPage`],
//! a user-level context's page: [`VfioDevice::map_context_page`]).
//!
//! Bringing a card up takes root once (bind to vfio-pci, IOMMU on); every failure on
//! that path is reported with the command that fixes it. [`list`] finds the cards.
//! docs/HARDWARE.md has the set-up; `make test-vfio` proves the backend on a real kernel
//! (QEMU, emulated IOMMU, QEMU's `edu` device).

mod device;
mod iova;
mod sys;

use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::str::FromStr;

pub use device::{IrqKind, VfioConfig, VfioDevice, VfioPage};
use fasthsl_contract::{PCI_DEVICE_ID, PCI_VENDOR_ID};

/// A PCI function address, `DDDD:BB:DD.F`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PciAddress {
    /// Domain (segment).
    pub domain: u16,
    /// Bus.
    pub bus: u8,
    /// Device (0..32).
    pub device: u8,
    /// Function (0..8).
    pub function: u8,
}

impl FromStr for PciAddress {
    type Err = VfioError;

    /// Accepts `0000:01:00.0` and, with domain 0 implied, `01:00.0` (as `lspci` prints).
    fn from_str(s: &str) -> Result<Self, VfioError> {
        let bad = || VfioError::BadAddress {
            input: s.to_string(),
        };
        let parts: Vec<&str> = s.trim().split(':').collect();
        let (domain, bus, rest) = match parts[..] {
            [d, b, r] => (d, b, r),
            [b, r] => ("0000", b, r),
            _ => return Err(bad()),
        };
        let (dev, func) = rest.split_once('.').ok_or_else(bad)?;
        let hex = |t: &str, max_len: usize| {
            if t.is_empty() || t.len() > max_len || !t.chars().all(|c| c.is_ascii_hexdigit()) {
                None
            } else {
                u32::from_str_radix(t, 16).ok()
            }
        };
        let domain = hex(domain, 4).ok_or_else(bad)?;
        let bus = hex(bus, 2).ok_or_else(bad)?;
        let device = hex(dev, 2).filter(|&d| d < 32).ok_or_else(bad)?;
        let function = hex(func, 1).filter(|&f| f < 8).ok_or_else(bad)?;
        Ok(PciAddress {
            domain: domain as u16,
            bus: bus as u8,
            device: device as u8,
            function: function as u8,
        })
    }
}

impl fmt::Display for PciAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04x}:{:02x}:{:02x}.{:x}",
            self.domain, self.bus, self.device, self.function
        )
    }
}

/// Errors opening or using a card through VFIO; each says how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum VfioError {
    /// The text is not a PCI address.
    #[error(
        "'{input}' is not a PCI address: expected DDDD:BB:DD.F such as 0000:01:00.0 \
         (see `fasthsl list` or `lspci -D`)"
    )]
    BadAddress {
        /// What was given.
        input: String,
    },
    /// No such PCI function.
    #[error(
        "no PCI device {addr}: {path} does not exist; `fasthsl list` shows FastHSL cards, \
         `lspci -D` every PCI device"
    )]
    NoSuchDevice {
        /// Address asked for.
        addr: PciAddress,
        /// Sysfs directory looked at.
        path: PathBuf,
    },
    /// The device has no IOMMU group: the IOMMU is off.
    #[error(
        "{addr} has no IOMMU group, so the IOMMU is off: enable VT-d / AMD-Vi in the firmware \
         setup and boot Linux with intel_iommu=on (Intel) or amd_iommu=on (AMD) on the kernel \
         command line, then reboot"
    )]
    NoIommuGroup {
        /// Address.
        addr: PciAddress,
    },
    /// The device is bound to another driver (or none), not vfio-pci.
    #[error("{}", not_bound_message(.addr, .driver.as_deref()))]
    NotBoundToVfio {
        /// Address.
        addr: PciAddress,
        /// The driver bound now, if any.
        driver: Option<String>,
    },
    /// /dev/vfio/vfio is missing.
    #[error(
        "{path} does not exist: load VFIO (`sudo modprobe vfio-pci`) and make sure the IOMMU \
         is on (intel_iommu=on / amd_iommu=on on the kernel command line)"
    )]
    NoVfio {
        /// The container device path.
        path: PathBuf,
    },
    /// Permission denied on a VFIO device node.
    #[error(
        "permission denied opening {path}: run as root, or give your user the device \
         (`sudo chown $USER {path}`) and raise the locked-memory limit (`ulimit -l unlimited`)"
    )]
    Permission {
        /// Path that could not be opened.
        path: PathBuf,
    },
    /// The group is open elsewhere.
    #[error("{path} is busy: another process (another fasthsl, a VM) has the card open")]
    Busy {
        /// Group device path.
        path: PathBuf,
    },
    /// Not every device of the IOMMU group is bound to vfio-pci.
    #[error("{}", not_viable_message(*.group, .others))]
    GroupNotViable {
        /// IOMMU group number.
        group: u32,
        /// Other devices of the group and their drivers.
        others: Vec<(String, Option<String>)>,
    },
    /// The kernel's VFIO lacks something this backend needs.
    #[error("VFIO on this kernel is unusable here: {what}")]
    Unsupported {
        /// What is missing.
        what: String,
    },
    /// BAR0 is smaller than the register file the caller needs.
    #[error(
        "{addr}: BAR0 is {size:#x} bytes, the register file needs {need:#x}: wrong device \
         or wrong bitstream (check `lspci -vv -s {addr}`)"
    )]
    BarTooSmall {
        /// Address.
        addr: PciAddress,
        /// BAR0 size reported by VFIO.
        size: u64,
        /// Size needed (the contract's BAR0_SIZE for a FastHSL card).
        need: u64,
    },
    /// VFIO gives no read/write access to BAR0 (an unimplemented or I/O-port BAR).
    #[error(
        "{addr}: VFIO gives no read/write access to BAR0 (region flags {flags:#x}): the \
         function has no memory BAR0, so it is not the expected device"
    )]
    BarNotAccessible {
        /// Address.
        addr: PciAddress,
        /// Region flags reported by VFIO.
        flags: u32,
    },
    /// The IOMMU refused to map DMA memory.
    #[error("{}", dma_map_message(*.iova, *.len, .source, *.memlock))]
    DmaMap {
        /// Bus address asked for.
        iova: u64,
        /// Bytes.
        len: usize,
        /// The OS error.
        source: io::Error,
        /// RLIMIT_MEMLOCK (soft) in bytes, if known.
        memlock: Option<u64>,
    },
    /// Another OS call failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The OS error.
        #[source]
        source: io::Error,
    },
}

fn not_bound_message(addr: &PciAddress, driver: Option<&str>) -> String {
    let dev = format!("/sys/bus/pci/devices/{addr}");
    let mut s = match driver {
        Some(d) => format!("{addr} is bound to driver '{d}', not vfio-pci."),
        None => format!("{addr} is not bound to any driver (it must be bound to vfio-pci)."),
    };
    s.push_str(" To hand it to vfio-pci, as root:\n  modprobe vfio-pci\n");
    if driver.is_some() {
        s.push_str(&format!("  echo {addr} > {dev}/driver/unbind\n"));
    }
    s.push_str(&format!(
        "  echo vfio-pci > {dev}/driver_override\n  echo {addr} > /sys/bus/pci/drivers_probe"
    ));
    s
}

fn not_viable_message(group: u32, others: &[(String, Option<String>)]) -> String {
    let mut s = format!(
        "IOMMU group {group} is not viable: every device in it must be bound to vfio-pci \
         (or to no driver) before the card can be used."
    );
    if !others.is_empty() {
        s.push_str(" Devices in the group:");
        for (a, d) in others {
            s.push_str(&format!(
                "\n  {a} (driver: {})",
                d.as_deref().unwrap_or("none")
            ));
        }
    }
    s.push_str(
        "\nBind them to vfio-pci the same way as the card, or move the card to a slot \
         with its own IOMMU group.",
    );
    s
}

fn dma_map_message(iova: u64, len: usize, e: &io::Error, memlock: Option<u64>) -> String {
    let mut s = format!("VFIO_IOMMU_MAP_DMA of {len:#x} bytes at IOVA {iova:#x} failed: {e}");
    if e.raw_os_error() == Some(libc::ENOMEM) || e.raw_os_error() == Some(libc::EPERM) {
        let lim = match memlock {
            Some(u64::MAX) => "unlimited".to_string(),
            Some(b) => format!("{b} bytes"),
            None => "unknown".to_string(),
        };
        s.push_str(&format!(
            ". DMA memory is pinned and counts against RLIMIT_MEMLOCK (now {lim}): raise it with \
             `ulimit -l unlimited`, LimitMEMLOCK= in a systemd unit, or /etc/security/limits.conf"
        ));
    }
    s
}

impl From<VfioError> for fasthsl_device::DeviceError {
    fn from(e: VfioError) -> Self {
        match e {
            VfioError::DmaMap { len, .. } => fasthsl_device::DeviceError::OutOfMemory {
                len,
                reason: e.to_string(),
            },
            VfioError::Io { what, source } => fasthsl_device::DeviceError::Os { what, source },
            other => fasthsl_device::DeviceError::Backend(other.to_string()),
        }
    }
}

/// A FastHSL card found on the PCI bus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PciCard {
    /// PCI address.
    pub address: PciAddress,
    /// Vendor id.
    pub vendor: u16,
    /// Device id.
    pub device: u16,
    /// Driver bound now (`vfio-pci` when usable), if any.
    pub driver: Option<String>,
    /// IOMMU group, if the IOMMU is on.
    pub iommu_group: Option<u32>,
}

impl PciCard {
    /// Whether [`VfioDevice::open`] can be expected to work (bound to vfio-pci, IOMMU on).
    pub fn ready(&self) -> bool {
        self.driver.as_deref() == Some("vfio-pci") && self.iommu_group.is_some()
    }
}

/// Where sysfs and the VFIO device nodes live (a fake tree in tests).
#[derive(Debug, Clone)]
pub(crate) struct Paths {
    pub(crate) sysfs: PathBuf,
    pub(crate) dev_vfio: PathBuf,
}

impl Default for Paths {
    fn default() -> Self {
        Paths {
            sysfs: PathBuf::from("/sys"),
            dev_vfio: PathBuf::from("/dev/vfio"),
        }
    }
}

impl Paths {
    fn pci_devices(&self) -> PathBuf {
        self.sysfs.join("bus/pci/devices")
    }
    fn device_dir(&self, addr: &PciAddress) -> PathBuf {
        self.pci_devices().join(addr.to_string())
    }
}

/// Last path component of a symlink's target (`driver`, `iommu_group` links).
fn link_name(path: &Path) -> Option<String> {
    fs::read_link(path)
        .ok()?
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
}

fn read_hex_id(path: &Path) -> Option<u16> {
    let t = fs::read_to_string(path).ok()?;
    u16::from_str_radix(t.trim().trim_start_matches("0x"), 16).ok()
}

/// The IOMMU group of a device that must be usable through VFIO, or why it is not.
pub(crate) fn check_sysfs(paths: &Paths, addr: &PciAddress) -> Result<u32, VfioError> {
    let dir = paths.device_dir(addr);
    if !dir.exists() {
        return Err(VfioError::NoSuchDevice {
            addr: *addr,
            path: dir,
        });
    }
    let group = link_name(&dir.join("iommu_group"))
        .and_then(|g| g.parse().ok())
        .ok_or(VfioError::NoIommuGroup { addr: *addr })?;
    let driver = link_name(&dir.join("driver"));
    if driver.as_deref() != Some("vfio-pci") {
        return Err(VfioError::NotBoundToVfio {
            addr: *addr,
            driver,
        });
    }
    Ok(group)
}

/// The other devices of IOMMU group `group` and their drivers.
pub(crate) fn group_members(
    paths: &Paths,
    group: u32,
    except: &PciAddress,
) -> Vec<(String, Option<String>)> {
    let dir = paths
        .sysfs
        .join(format!("kernel/iommu_groups/{group}/devices"));
    let mut out: Vec<(String, Option<String>)> = fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|a| *a != except.to_string())
        .map(|a| {
            let d = link_name(&paths.pci_devices().join(&a).join("driver"));
            (a, d)
        })
        .collect();
    out.sort();
    out
}

/// FastHSL cards (PCI_VENDOR_ID:PCI_DEVICE_ID) on this machine, with their drivers.
pub fn list() -> Result<Vec<PciCard>, VfioError> {
    list_in(&Paths::default())
}

pub(crate) fn list_in(paths: &Paths) -> Result<Vec<PciCard>, VfioError> {
    let dir = paths.pci_devices();
    let entries = match fs::read_dir(&dir) {
        Ok(e) => e,
        // No PCI bus at all (some containers): no cards, not an error.
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(VfioError::Io {
                what: format!("reading {}", dir.display()),
                source,
            })
        }
    };
    let mut cards = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(address) = name.parse::<PciAddress>() else {
            continue;
        };
        let p = entry.path();
        let (Some(vendor), Some(device)) = (
            read_hex_id(&p.join("vendor")),
            read_hex_id(&p.join("device")),
        ) else {
            continue;
        };
        if u64::from(vendor) != PCI_VENDOR_ID || u64::from(device) != PCI_DEVICE_ID {
            continue;
        }
        cards.push(PciCard {
            address,
            vendor,
            device,
            driver: link_name(&p.join("driver")),
            iommu_group: link_name(&p.join("iommu_group")).and_then(|g| g.parse().ok()),
        });
    }
    cards.sort_by_key(|c| c.address);
    Ok(cards)
}

#[cfg(test)]
mod tests;
