//! The served card advertises MSI in its PCI config space, the client backend finds it
//! by walking the capability list and routes the MSI vector, which enables the
//! capability; the card's interrupt then arrives on that vector.

mod common;
use common::{serve, watchdog};
use fasthsl_contract::{desc_flag, int};
use fasthsl_device::Device;
use fasthsl_driver::{Card, CardConfig};
use fasthsl_topology::Topology;
use fasthsl_vfio_user::{msi_cap, VfioUserDevice};

const TIMEOUT_NS: u64 = 200_000;

fn cfg8(d: &VfioUserDevice, off: u64) -> u8 {
    let mut b = [0u8; 1];
    d.config_read(off, &mut b).unwrap();
    b[0]
}

fn cfg16(d: &VfioUserDevice, off: u64) -> u16 {
    let mut b = [0u8; 2];
    d.config_read(off, &mut b).unwrap();
    u16::from_le_bytes(b)
}

#[test]
fn msi_capability_is_advertised_enabled_and_delivers_the_interrupt() {
    watchdog(60);
    let (server, dir) = serve(2, "msi");
    let topo = Topology::full(2).unwrap();
    let devs: Vec<VfioUserDevice> = server
        .sockets()
        .iter()
        .map(|p| VfioUserDevice::connect(p).unwrap())
        .collect();

    // Advertised: status has the capabilities list, the pointer leads to MSI, one
    // vector with a 64-bit address; enabled because the client routed the MSI vector.
    let d = &devs[1];
    assert_eq!(cfg8(d, 0x06) & 0x10, 0x10, "capabilities list bit");
    let at = u64::from(cfg8(d, 0x34));
    assert_eq!(at, msi_cap::OFFSET as u64);
    assert_eq!(cfg8(d, at), msi_cap::ID);
    assert_eq!(cfg8(d, at + 1), 0, "MSI is the last capability");
    let ctrl = cfg16(d, at + 2);
    assert_eq!(ctrl & msi_cap::CTRL_64BIT, msi_cap::CTRL_64BIT);
    assert_eq!(
        ctrl & 0x000e,
        0,
        "one vector (Multiple Message Capable = 0)"
    );
    assert_eq!(
        ctrl & msi_cap::CTRL_ENABLE,
        msi_cap::CTRL_ENABLE,
        "{ctrl:#x}"
    );
    assert!(devs.iter().all(|d| d.irq_kind() == "msi"));

    // Working: node 0 asks for an interrupt at node 1, which arrives on the MSI vector.
    let mut cards: Vec<Card<VfioUserDevice>> = devs
        .into_iter()
        .enumerate()
        .map(|(n, d)| {
            let mut c = Card::open(d).unwrap();
            c.configure(CardConfig::for_node(&topo, n as u16)).unwrap();
            c
        })
        .collect();
    for c in &cards {
        c.program_routes(&topo).unwrap();
    }
    let buf = cards[0].device().dma_alloc(4096).unwrap();
    cards[0].device().mem_write(&buf, 0, b"interrupt").unwrap();
    let rx = cards[1].rx_iova().unwrap();
    // Nothing pending yet: waiting times out without an interrupt.
    assert_eq!(cards[1].wait_interrupt(2_000).unwrap(), None);
    let t = cards[0]
        .put(1, &buf, 0, rx, 9, desc_flag::IRQ_REMOTE)
        .unwrap();
    let bits = cards[1].wait_interrupt(TIMEOUT_NS).unwrap();
    assert!(bits.is_some_and(|b| b & int::LMR_NEW != 0), "{bits:?}");
    let e = cards[1].wait_lmr(TIMEOUT_NS).unwrap();
    assert_eq!((e.src, e.len), (0, 9));
    let mut got = [0u8; 9];
    cards[1].read_rx(0, &mut got).unwrap();
    assert_eq!(&got, b"interrupt");
    assert_eq!(
        cards[0].wait_completion(&t, TIMEOUT_NS).unwrap().result,
        Ok(())
    );
    drop(cards);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// What a guest (or a raw client) can do with the capability: only the enable bit, the
/// message address (dword aligned) and data are writable, one vector stays one vector;
/// routing INTx while MSI is enabled is refused (and counted), and allowed again once
/// the MSI vector is removed.
#[test]
fn msi_control_bits_and_intx_exclusion() {
    use std::os::fd::AsRawFd;
    use vfio_bindings::bindings::vfio::{
        VFIO_IRQ_SET_ACTION_TRIGGER, VFIO_IRQ_SET_DATA_EVENTFD, VFIO_IRQ_SET_DATA_NONE,
        VFIO_PCI_BAR2_REGION_INDEX, VFIO_PCI_CONFIG_REGION_INDEX, VFIO_PCI_INTX_IRQ_INDEX,
        VFIO_PCI_MSI_IRQ_INDEX,
    };
    let (_server, sock) = serve(1, "msi2");
    let mut c = vfio_user::Client::new(&sock).unwrap();
    let m = msi_cap::OFFSET as u64;
    let mut rd = |c: &mut vfio_user::Client, region: u32, off: u64, n: usize| -> u64 {
        let mut b = [0u8; 8];
        c.region_read(region, off, &mut b[..n]).unwrap();
        u64::from_le_bytes(b)
    };
    let ctrl = |c: &mut vfio_user::Client,
                rd: &mut dyn FnMut(&mut vfio_user::Client, u32, u64, usize) -> u64| {
        rd(c, VFIO_PCI_CONFIG_REGION_INDEX, m + 2, 2) as u16
    };
    assert_eq!(
        ctrl(&mut c, &mut rd),
        msi_cap::CTRL_64BIT,
        "off after reset"
    );
    c.region_write(VFIO_PCI_CONFIG_REGION_INDEX, m + 2, &[0xff, 0xff])
        .unwrap();
    assert_eq!(
        ctrl(&mut c, &mut rd),
        msi_cap::CTRL_64BIT | msi_cap::CTRL_ENABLE,
        "only the enable bit is writable"
    );
    c.region_write(
        VFIO_PCI_CONFIG_REGION_INDEX,
        m + 4,
        &0xfee0_0003u32.to_le_bytes(),
    )
    .unwrap();
    c.region_write(
        VFIO_PCI_CONFIG_REGION_INDEX,
        m + 0xc,
        &0x4321u16.to_le_bytes(),
    )
    .unwrap();
    assert_eq!(
        rd(&mut c, VFIO_PCI_CONFIG_REGION_INDEX, m + 4, 4),
        0xfee0_0000
    );
    assert_eq!(rd(&mut c, VFIO_PCI_CONFIG_REGION_INDEX, m + 0xc, 2), 0x4321);
    c.region_write(VFIO_PCI_CONFIG_REGION_INDEX, m + 2, &[0, 0])
        .unwrap();
    assert_eq!(ctrl(&mut c, &mut rd), msi_cap::CTRL_64BIT);

    // Any file stands in for the eventfd: only the routing is looked at here.
    let fd = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/null")
        .unwrap();
    let bad = |c: &mut vfio_user::Client| {
        let mut b = [0u8; 8];
        c.region_read(
            VFIO_PCI_BAR2_REGION_INDEX,
            fasthsl_vfio_user::sim_regs::BAD_REQUESTS,
            &mut b,
        )
        .unwrap();
        u64::from_le_bytes(b)
    };
    let trigger = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;
    c.set_irqs(VFIO_PCI_MSI_IRQ_INDEX, trigger, 0, 1, &[fd.as_raw_fd()])
        .unwrap();
    assert_eq!(
        ctrl(&mut c, &mut rd) & msi_cap::CTRL_ENABLE,
        msi_cap::CTRL_ENABLE,
        "routing the MSI vector enables MSI"
    );
    let before = bad(&mut c);
    let _ = c.set_irqs(VFIO_PCI_INTX_IRQ_INDEX, trigger, 0, 1, &[fd.as_raw_fd()]);
    assert_eq!(bad(&mut c), before + 1, "INTx refused while MSI is on");
    let none = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER;
    c.set_irqs(VFIO_PCI_MSI_IRQ_INDEX, none, 0, 0, &[]).unwrap();
    assert_eq!(ctrl(&mut c, &mut rd) & msi_cap::CTRL_ENABLE, 0);
    c.set_irqs(VFIO_PCI_INTX_IRQ_INDEX, trigger, 0, 1, &[fd.as_raw_fd()])
        .unwrap();
    assert_eq!(bad(&mut c), before + 1, "INTx accepted with MSI off");
    let _ = std::fs::remove_file(&sock);
}
