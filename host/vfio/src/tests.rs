//! Tests that run without a card: address parsing, the sysfs checks against a fake
//! sysfs tree, and the real machine's "no such device" path.

use super::*;
use std::os::unix::fs::symlink;
use std::sync::atomic::{AtomicU32, Ordering};

/// A throw-away directory tree shaped like /sys and /dev/vfio.
struct FakeSys {
    root: PathBuf,
}

impl FakeSys {
    fn new() -> Self {
        static N: AtomicU32 = AtomicU32::new(0);
        let root = std::env::temp_dir().join(format!(
            "fasthsl-vfio-test-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        fs::create_dir_all(root.join("sys/bus/pci/devices")).unwrap();
        fs::create_dir_all(root.join("dev/vfio")).unwrap();
        FakeSys { root }
    }
    fn paths(&self) -> Paths {
        Paths {
            sysfs: self.root.join("sys"),
            dev_vfio: self.root.join("dev/vfio"),
        }
    }
    /// Adds a PCI function with ids, an optional driver and an optional IOMMU group.
    fn add(&self, addr: &str, vendor: u16, device: u16, driver: Option<&str>, group: Option<u32>) {
        let sys = self.root.join("sys");
        let real = sys.join("devices/pci0000:00").join(addr);
        fs::create_dir_all(&real).unwrap();
        fs::write(real.join("vendor"), format!("0x{vendor:04x}\n")).unwrap();
        fs::write(real.join("device"), format!("0x{device:04x}\n")).unwrap();
        if let Some(d) = driver {
            let dd = sys.join("bus/pci/drivers").join(d);
            fs::create_dir_all(&dd).unwrap();
            symlink(&dd, real.join("driver")).unwrap();
        }
        if let Some(g) = group {
            let gd = sys.join(format!("kernel/iommu_groups/{g}"));
            fs::create_dir_all(gd.join("devices")).unwrap();
            symlink(&gd, real.join("iommu_group")).unwrap();
            symlink(&real, gd.join("devices").join(addr)).unwrap();
        }
        symlink(&real, sys.join("bus/pci/devices").join(addr)).unwrap();
    }
}

impl Drop for FakeSys {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

const V: u16 = PCI_VENDOR_ID as u16;
const D: u16 = PCI_DEVICE_ID as u16;

fn addr(s: &str) -> PciAddress {
    s.parse().unwrap()
}

#[test]
fn pci_addresses_parse_and_print() {
    let a = addr("0000:01:00.0");
    assert_eq!((a.domain, a.bus, a.device, a.function), (0, 1, 0, 0));
    assert_eq!(a.to_string(), "0000:01:00.0");
    assert_eq!(addr("01:1f.7"), addr("0000:01:1f.7"));
    assert_eq!(addr("ABCD:ef:1F.3").to_string(), "abcd:ef:1f.3");
    for bad in [
        "",
        "0000:01:00",
        "0000:01:20.0",
        "0000:01:00.8",
        "00000:01:00.0",
        "1:2:3:4.0",
        "0000:0g:00.0",
        "0000:001:00.0",
        "0000:01:00.",
        "0000:01:+1.0",
    ] {
        let e = bad.parse::<PciAddress>().unwrap_err();
        assert!(matches!(e, VfioError::BadAddress { .. }), "{bad}");
        assert!(e.to_string().contains("DDDD:BB:DD.F"), "{e}");
    }
}

#[test]
fn nonexistent_device_on_this_machine_is_named_with_a_hint() {
    // Domain ffff does not exist on a real machine (nor in a container).
    let e = VfioDevice::open("ffff:ff:1f.7").unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, VfioError::NoSuchDevice { .. }), "{msg}");
    assert!(msg.contains("no PCI device ffff:ff:1f.7"), "{msg}");
    assert!(msg.contains("fasthsl list"), "{msg}");
    let e = VfioDevice::open("not-an-address").unwrap_err();
    assert!(matches!(e, VfioError::BadAddress { .. }));
}

#[test]
fn list_on_this_machine_does_not_fail() {
    // No FastHSL card here; the scan must still succeed (possibly empty).
    let cards = list().unwrap();
    assert!(cards.iter().all(|c| c.vendor == V && c.device == D));
}

#[test]
fn list_finds_only_fasthsl_cards_with_their_driver() {
    let s = FakeSys::new();
    s.add("0000:02:00.0", V, D, Some("vfio-pci"), Some(7));
    s.add("0000:01:00.0", V, D, None, None);
    s.add("0000:00:1f.0", 0x8086, 0x1234, Some("e1000e"), Some(3));
    let cards = list_in(&s.paths()).unwrap();
    assert_eq!(cards.len(), 2);
    assert_eq!(cards[0].address, addr("0000:01:00.0"));
    assert_eq!(
        (cards[0].driver.as_deref(), cards[0].iommu_group),
        (None, None)
    );
    assert!(!cards[0].ready());
    assert_eq!(cards[1].driver.as_deref(), Some("vfio-pci"));
    assert_eq!(cards[1].iommu_group, Some(7));
    assert!(cards[1].ready());
    // No PCI bus at all: empty, not an error.
    let none = Paths {
        sysfs: s.root.join("nothing"),
        dev_vfio: s.root.join("nothing"),
    };
    assert!(list_in(&none).unwrap().is_empty());
}

#[test]
fn sysfs_checks_explain_what_to_do() {
    let s = FakeSys::new();
    let p = s.paths();
    s.add("0000:03:00.0", V, D, Some("vfio-pci"), None);
    let e = check_sysfs(&p, &addr("0000:03:00.0")).unwrap_err();
    assert!(matches!(e, VfioError::NoIommuGroup { .. }));
    assert!(e.to_string().contains("intel_iommu=on"), "{e}");

    s.add("0000:04:00.0", V, D, Some("fasthsl_kmod"), Some(4));
    let e = check_sysfs(&p, &addr("0000:04:00.0"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("bound to driver 'fasthsl_kmod'"), "{e}");
    assert!(
        e.contains("echo 0000:04:00.0 > /sys/bus/pci/devices/0000:04:00.0/driver/unbind"),
        "{e}"
    );
    assert!(
        e.contains("echo vfio-pci > /sys/bus/pci/devices/0000:04:00.0/driver_override"),
        "{e}"
    );
    assert!(
        e.contains("echo 0000:04:00.0 > /sys/bus/pci/drivers_probe"),
        "{e}"
    );

    s.add("0000:05:00.0", V, D, None, Some(5));
    let e = check_sysfs(&p, &addr("0000:05:00.0"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("not bound to any driver") && !e.contains("unbind"),
        "{e}"
    );

    s.add("0000:06:00.0", V, D, Some("vfio-pci"), Some(6));
    assert_eq!(check_sysfs(&p, &addr("0000:06:00.0")).unwrap(), 6);
}

#[test]
fn missing_vfio_nodes_are_explained() {
    let s = FakeSys::new();
    s.add("0000:06:00.0", V, D, Some("vfio-pci"), Some(6));
    let e = VfioDevice::open_with(&s.paths(), addr("0000:06:00.0"), &VfioConfig::default())
        .unwrap_err();
    assert!(matches!(e, VfioError::NoVfio { .. }), "{e}");
    assert!(e.to_string().contains("modprobe vfio-pci"), "{e}");
}

#[test]
fn group_members_and_not_viable_message() {
    let s = FakeSys::new();
    s.add("0000:07:00.0", V, D, Some("vfio-pci"), Some(9));
    s.add(
        "0000:07:00.1",
        0x10de,
        0x0001,
        Some("snd_hda_intel"),
        Some(9),
    );
    let others = group_members(&s.paths(), 9, &addr("0000:07:00.0"));
    assert_eq!(
        others,
        vec![(
            "0000:07:00.1".to_string(),
            Some("snd_hda_intel".to_string())
        )]
    );
    let e = VfioError::GroupNotViable { group: 9, others }.to_string();
    assert!(e.contains("group 9 is not viable"), "{e}");
    assert!(e.contains("0000:07:00.1 (driver: snd_hda_intel)"), "{e}");
}

#[test]
fn dma_map_failure_points_at_memlock() {
    let e = VfioError::DmaMap {
        iova: 1 << 32,
        len: 4096,
        source: io::Error::from_raw_os_error(libc::ENOMEM),
        memlock: Some(65536),
    };
    let m = e.to_string();
    assert!(
        m.contains("RLIMIT_MEMLOCK (now 65536 bytes)") && m.contains("ulimit -l"),
        "{m}"
    );
    let d: fasthsl_device::DeviceError = e.into();
    assert!(matches!(
        d,
        fasthsl_device::DeviceError::OutOfMemory { len: 4096, .. }
    ));
}

#[test]
fn bar_too_small_names_both_sizes() {
    let e = VfioError::BarTooSmall {
        addr: addr("0000:01:00.0"),
        size: 0x1000,
        need: fasthsl_contract::BAR0_SIZE,
    }
    .to_string();
    assert!(
        e.contains("0x1000") && e.contains(&format!("{:#x}", fasthsl_contract::BAR0_SIZE)),
        "{e}"
    );
}

#[test]
fn ioctl_numbers_match_the_kernel_headers() {
    // From <linux/vfio.h>: VFIO_GET_API_VERSION = _IO(';', 100) = 0x3b64, MAP_DMA = 0x3b71.
    assert_eq!(sys::VFIO_GET_API_VERSION, 0x3b64);
    assert_eq!(sys::VFIO_GROUP_GET_STATUS, 0x3b67);
    assert_eq!(sys::VFIO_DEVICE_SET_IRQS, 0x3b6e);
    assert_eq!(sys::VFIO_IOMMU_MAP_DMA, 0x3b71);
    assert_eq!(sys::VFIO_IOMMU_UNMAP_DMA, 0x3b72);
    assert_eq!(sys::VFIO_DEVICE_RESET, 0x3b6f);
    assert_eq!(sys::VFIO_IOMMU_GET_INFO, 0x3b70);
}

/// A `vfio_iommu_type1_info` as the kernel fills it: header, then a migration capability,
/// then the IOVA-range capability.
fn iommu_info_bytes(argsz: u32, ranges: &[(u64, u64)]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend(argsz.to_le_bytes());
    b.extend(3u32.to_le_bytes()); // PGSIZES | CAPS
    b.extend(0x4020_1000u64.to_le_bytes());
    b.extend(24u32.to_le_bytes()); // cap_offset
    b.extend(0u32.to_le_bytes());
    // Migration capability (id 2), 32 bytes, next at 56.
    b.extend(2u16.to_le_bytes());
    b.extend(1u16.to_le_bytes());
    b.extend(56u32.to_le_bytes());
    b.extend([0u8; 24]);
    // IOVA ranges (id 1), last in the chain.
    b.extend(1u16.to_le_bytes());
    b.extend(1u16.to_le_bytes());
    b.extend(0u32.to_le_bytes());
    b.extend((ranges.len() as u32).to_le_bytes());
    b.extend(0u32.to_le_bytes());
    for (lo, hi) in ranges {
        b.extend(lo.to_le_bytes());
        b.extend(hi.to_le_bytes());
    }
    b
}

#[test]
fn iommu_info_capability_chain_is_decoded() {
    use crate::device::{parse_iommu_info, IommuInfo};
    let ranges = [(0, 0xfedf_ffff), (0xfef0_0000, (1 << 39) - 1)];
    let full = iommu_info_bytes(0, &ranges);
    let mut ok = full.clone();
    ok[..4].copy_from_slice(&(full.len() as u32).to_le_bytes());
    assert_eq!(
        parse_iommu_info(&ok),
        IommuInfo::Done {
            pgsizes: 0x4020_1000,
            ranges: ranges.to_vec()
        }
    );
    // First call: only the fixed part fits, the kernel asks for the whole chain.
    let mut short = ok[..24].to_vec();
    short[16..20].copy_from_slice(&0u32.to_le_bytes());
    assert_eq!(parse_iommu_info(&short), IommuInfo::NeedBytes(full.len()));
    // No capabilities (kernels before 5.4): everything usable.
    let mut old = ok[..24].to_vec();
    old[4..8].copy_from_slice(&1u32.to_le_bytes());
    assert_eq!(
        parse_iommu_info(&old),
        IommuInfo::Done {
            pgsizes: 0x4020_1000,
            ranges: vec![(0, u64::MAX)]
        }
    );
    // A chain that points outside the buffer or at itself ends without a panic.
    let mut bad = ok.clone();
    bad[28..32].copy_from_slice(&24u32.to_le_bytes()); // migration cap's next -> itself
    assert!(matches!(parse_iommu_info(&bad), IommuInfo::Done { .. }));
    let mut truncated = ok[..ok.len() - 8].to_vec();
    let tlen = truncated.len() as u32;
    truncated[..4].copy_from_slice(&tlen.to_le_bytes());
    assert_eq!(
        parse_iommu_info(&truncated),
        IommuInfo::Done {
            pgsizes: 0x4020_1000,
            ranges: ranges[..1].to_vec()
        }
    );
}

#[test]
fn a_page_starts_at_the_region_offset_plus_its_base() {
    use fasthsl_device::BarPage;
    // vfio-pci places region i at i << 40 in the device fd.
    let bar0 = u64::from(vfio_bindings::bindings::vfio::VFIO_PCI_BAR0_REGION_INDEX) << 40;
    assert_eq!(
        device::page_file_offset(bar0, BarPage::context(3).unwrap()),
        bar0 + 0x5000
    );
    let bar2 = 2u64 << 40;
    let p = BarPage::new(0xF000, 0x10000).unwrap();
    assert_eq!(device::page_file_offset(bar2, p), bar2 + 0xF000);
    // An access at BAR0 offset o of the page lands at the page's file offset + (o - base).
    assert_eq!(p.check(0xF010).unwrap(), 0x10);
}
