//! Card bring-up against the simulated cluster (the real RTL, Verilated): identity
//! checks, configuration, reset, routing tables.
//!
//! Where a test needs the card to misbehave, [`Faulty`] wraps the real [`SimDevice`] and
//! injects one fault (a register read that returns something else, a write that never
//! arrives, an extra refused write); every other access reaches the simulated card.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use fasthsl_driver::contract::{
    ctrl, err, int, nic_regs as nic, push, router_regs as rt, RouteBounds, RouteCtrl,
    CONTRACT_VERSION, ID_MAGIC, ROUTER_CSR_BASE, ROUTER_PORTS, ROUTE_ENTRIES,
};
use fasthsl_driver::{
    forward_device, Card, CardConfig, Device, DeviceError, DmaBuffer, DriverError, Routing,
};
use fasthsl_sim::{Cluster, SimConfig, SimDevice};
use fasthsl_topology::Topology;

fn topo(s: &str) -> Topology {
    s.parse().unwrap()
}

fn cluster(spec: &str) -> Cluster {
    Cluster::new(&topo(spec), SimConfig::default()).unwrap()
}

/// Small rings and receive region: bring-up tests move no data.
fn small(topology: &Topology, node: u16) -> CardConfig {
    CardConfig {
        lme_entries: 4,
        lmr_entries: 4,
        rx_window_bytes: 64 << 10,
        ..CardConfig::for_node(topology, node)
    }
}

fn router_reg(reg: u32, stride: u32, input: usize, entry: usize) -> u32 {
    ROUTER_CSR_BASE as u32 + reg + (input as u32 * ROUTE_ENTRIES as u32 + entry as u32) * stride
}

/// The valid entries router `r` of `t` should have, per input, as `Card::router_state`
/// reports them.
fn want_tables(t: &Topology, r: usize) -> Vec<Vec<(usize, RouteBounds, u8)>> {
    let tables = t.routing_tables().unwrap();
    (0..ROUTER_PORTS as usize)
        .map(|input| {
            tables[r]
                .inputs
                .get(input)
                .map_or(&[][..], |v| &v[..])
                .iter()
                .enumerate()
                .map(|(e, i)| (e, RouteBounds { lo: i.lo, hi: i.hi }, i.port))
                .collect()
        })
        .collect()
}

#[derive(Default)]
struct Faults {
    /// Reads of these registers return the given value instead of the card's.
    read_as: HashMap<u32, u32>,
    /// Writes to these registers never reach the card.
    drop_write: HashSet<u32>,
    /// A write to the key register is followed by the write `(register, value)`.
    also_write: HashMap<u32, (u32, u32)>,
    /// DMA buffers allocated through this device and not yet freed, in allocation order.
    live: Vec<DmaBuffer>,
}

/// Fault injection around a real simulated card; clones share the faults.
#[derive(Clone)]
struct Faulty {
    dev: SimDevice,
    f: Rc<RefCell<Faults>>,
}

impl Faulty {
    fn new(dev: SimDevice) -> Self {
        Faulty {
            dev,
            f: Rc::default(),
        }
    }
    fn read_as(&self, reg: u32, v: u32) -> &Self {
        self.f.borrow_mut().read_as.insert(reg, v);
        self
    }
    fn drop_write(&self, reg: u32) -> &Self {
        self.f.borrow_mut().drop_write.insert(reg);
        self
    }
    fn also_write(&self, after: u32, reg: u32, v: u32) -> &Self {
        self.f.borrow_mut().also_write.insert(after, (reg, v));
        self
    }
    fn heal(&self) {
        let mut f = self.f.borrow_mut();
        f.read_as.clear();
        f.drop_write.clear();
        f.also_write.clear();
    }
    /// DMA buffers the driver holds: `(iova, len)`, in allocation order.
    fn live(&self) -> Vec<(u64, usize)> {
        let f = self.f.borrow();
        f.live.iter().map(|b| (b.iova(), b.len())).collect()
    }
}

impl Device for Faulty {
    fn bar_read32(&self, offset: u32) -> Result<u32, DeviceError> {
        let v = self.dev.bar_read32(offset)?;
        Ok(self.f.borrow().read_as.get(&offset).copied().unwrap_or(v))
    }
    fn bar_write32(&self, offset: u32, value: u32) -> Result<(), DeviceError> {
        let (dropped, extra) = {
            let f = self.f.borrow();
            (
                f.drop_write.contains(&offset),
                f.also_write.get(&offset).copied(),
            )
        };
        if !dropped {
            self.dev.bar_write32(offset, value)?;
        }
        if let Some((reg, v)) = extra {
            self.dev.bar_write32(reg, v)?;
        }
        Ok(())
    }
    fn dma_alloc(&self, len: usize) -> Result<DmaBuffer, DeviceError> {
        let b = self.dev.dma_alloc(len)?;
        let copy = DmaBuffer::new(b.id(), b.iova(), b.len());
        self.f.borrow_mut().live.push(copy);
        Ok(b)
    }
    fn dma_free(&self, buf: DmaBuffer) -> Result<(), DeviceError> {
        self.f.borrow_mut().live.retain(|b| *b != buf);
        self.dev.dma_free(buf)
    }
    forward_device!(self => self.dev; name, mem_write, mem_read, relax, wait_irq, now_ns,
        cycles);
}

#[test]
fn open_checks_identity_and_major_version() {
    let cl = cluster("full:1");
    let real = Card::open(cl.device(0)).unwrap();
    assert_eq!(real.version() >> 16, CONTRACT_VERSION >> 16);

    let f = Faulty::new(cl.device(0));
    f.read_as(nic::ID, 0x1234_5678);
    let e = Card::open(f.clone()).unwrap_err();
    assert!(
        matches!(
            e,
            DriverError::NotFastHsl {
                found: 0x1234_5678,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("0x12345678"), "{e}");
    assert!(e.to_string().contains("sim node 0"), "{e}");
    f.read_as(nic::ID, u32::MAX);
    let e = Card::open(f.clone()).unwrap_err();
    assert!(e.to_string().contains("does not answer"), "{e}");

    f.heal();
    f.read_as(nic::VERSION, CONTRACT_VERSION + 0x1_0000);
    let e = Card::open(f.clone()).unwrap_err();
    assert!(matches!(e, DriverError::VersionMismatch { .. }), "{e}");
    let want = format!(
        "contract {}.{}",
        (CONTRACT_VERSION >> 16) + 1,
        CONTRACT_VERSION & 0xFFFF
    );
    assert!(e.to_string().contains(&want), "{e}");

    // A newer minor version is compatible.
    f.read_as(nic::VERSION, CONTRACT_VERSION + 7);
    assert_eq!(Card::open(f).unwrap().version(), CONTRACT_VERSION + 7);
}

#[test]
fn configure_programs_every_register_and_enables() {
    let t = topo("full:3");
    let cl = Cluster::new(&t, SimConfig::default()).unwrap();
    let dev = Faulty::new(cl.device(2));
    let mut c = Card::open(dev.clone()).unwrap();
    let before = c.csr_state().unwrap();
    assert_eq!((before.id, before.ctrl), (ID_MAGIC, 0), "{before:?}");
    assert!(matches!(c.rx_iova(), Err(DriverError::NotConfigured)));

    c.configure(small(&t, 2)).unwrap();
    assert_eq!(c.config(), Some(&small(&t, 2)));
    // LME ring, LMR ring, receive region.
    let live = dev.live();
    assert_eq!(
        live.iter().map(|b| b.1).collect::<Vec<_>>(),
        vec![4 * 32, 4 * 32, 64 << 10]
    );
    let s = c.csr_state().unwrap();
    assert_eq!(s.node_id, 2);
    assert_eq!(s.mtu, small(&t, 2).mtu);
    assert_eq!(s.dest_range, 2 << 16);
    assert_eq!((s.lme_base, s.lme_size), (live[0].0, 4));
    assert_eq!((s.lmr_base, s.lmr_size), (live[1].0, 4));
    assert_eq!((s.rxwin_base, s.rxwin_size), (live[2].0, 64 << 10));
    assert_eq!(c.rx_iova().unwrap(), live[2].0);
    assert_eq!(c.rx_buffer().unwrap().len(), 64 << 10);
    assert_eq!(
        (s.lme_prod, s.lme_cons, s.lmr_prod, s.lmr_cons),
        (0, 0, 0, 0)
    );
    assert_eq!(s.int_mask, int::ALL);
    assert_eq!(s.ctrl, ctrl::ENABLE);
    assert_eq!((s.err_status, s.int_status), (0, 0));
    assert_eq!(s.fields().len(), 22);
    assert_eq!(
        s.push_status,
        push::FREE,
        "nothing pushed: the push path is free"
    );
    assert_eq!(s.status_fields().len(), 6);
    assert_eq!(c.counters().unwrap().csr_err, 0, "every write was accepted");
}

#[test]
fn configure_reports_a_register_the_card_does_not_take() {
    let t = topo("full:2");
    let cl = Cluster::new(&t, SimConfig::default()).unwrap();
    let dev = Faulty::new(cl.device(0));
    dev.drop_write(nic::LMR_SIZE);
    let mut c = Card::open(dev.clone()).unwrap();
    let e = c.configure(CardConfig::for_node(&t, 0)).unwrap_err();
    match e {
        DriverError::ConfigRejected {
            register: "LMR_SIZE",
            wrote: 256,
            read,
            ..
        } => assert_ne!(read, 256),
        e => panic!("{e}"),
    }
    assert_eq!(
        cl.device(0).bar_read32(nic::CTRL).unwrap(),
        0,
        "left disabled"
    );
    assert!(dev.live().is_empty(), "no DMA memory leaked");
    assert!(matches!(c.rx_iova(), Err(DriverError::NotConfigured)));

    // Once the card takes the register, the same card configures.
    dev.heal();
    c.configure(CardConfig::for_node(&t, 0)).unwrap();
    assert_eq!(c.csr_state().unwrap().lmr_size, 256);
}

#[test]
fn configure_reports_errors_the_card_flagged() {
    let t = topo("full:2");
    let cl = Cluster::new(&t, SimConfig::default()).unwrap();
    let dev = Faulty::new(cl.device(0));
    // Along with INT_MASK, the card gets an MTU it refuses (not a multiple of 8): it keeps
    // the MTU it had, so every register reads back right, but ERR_STATUS says so.
    dev.also_write(nic::INT_MASK, nic::MTU, 12);
    let mut c = Card::open(dev.clone()).unwrap();
    let e = c.configure(CardConfig::for_node(&t, 0)).unwrap_err();
    assert!(
        matches!(
            e,
            DriverError::ConfigErrors {
                err_status: err::CSR_BAD_VALUE
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("CSR_BAD_VALUE"), "{e}");
    assert!(dev.live().is_empty(), "no DMA memory leaked");
    assert_eq!(
        cl.device(0).bar_read32(nic::CTRL).unwrap(),
        0,
        "left disabled"
    );

    // configure clears errors an earlier user left behind.
    dev.heal();
    c.configure(CardConfig::for_node(&t, 0)).unwrap();
    assert_eq!(c.counters().unwrap().err_status, 0);
}

#[test]
fn reset_and_drop_release_dma_memory() {
    let t = topo("full:2");
    let cl = Cluster::new(&t, SimConfig::default()).unwrap();
    let dev = Faulty::new(cl.device(0));
    let mut c = Card::open(dev.clone()).unwrap();
    c.configure(small(&t, 0)).unwrap();
    let first = dev
        .f
        .borrow()
        .live
        .iter()
        .map(|b| (b.id(), b.iova(), b.len()))
        .collect::<Vec<_>>();
    assert_eq!(first.len(), 3);
    let freed = |bufs: &[(u64, u64, usize)]| {
        bufs.iter().all(|&(id, iova, len)| {
            let mut b = [0u8];
            matches!(
                cl.device(0)
                    .mem_read(&DmaBuffer::new(id, iova, len), 0, &mut b),
                Err(DeviceError::UnknownBuffer { .. })
            )
        })
    };
    assert!(!freed(&first));

    c.reset().unwrap();
    assert!(dev.live().is_empty());
    assert!(freed(&first), "the simulated host unmapped them");
    assert_eq!(cl.device(0).bar_read32(nic::CTRL).unwrap(), 0);
    assert!(matches!(c.rx_iova(), Err(DriverError::NotConfigured)));

    c.configure(small(&t, 0)).unwrap();
    let second = dev
        .f
        .borrow()
        .live
        .iter()
        .map(|b| (b.id(), b.iova(), b.len()))
        .collect::<Vec<_>>();
    assert_eq!(second.len(), 3);
    assert_eq!(cl.device(0).bar_read32(nic::CTRL).unwrap(), ctrl::ENABLE);
    drop(c);
    assert!(dev.live().is_empty());
    assert!(freed(&second));
    assert_eq!(cl.device(0).bar_read32(nic::CTRL).unwrap(), 0);
}

#[test]
fn routes_are_programmed_and_verified() {
    let t = topo("full:3");
    let cl = Cluster::new(&t, SimConfig::default()).unwrap();
    let dev = Faulty::new(cl.device(1));
    let mut c = Card::open(dev.clone()).unwrap();
    c.configure(small(&t, 1)).unwrap();
    let raw = cl.device(1);

    // A stale valid entry beyond the new tables must disappear.
    raw.bar_write32(
        router_reg(rt::RT_BOUNDS, rt::RT_BOUNDS_STRIDE, 0, 7),
        0x0005_0004,
    )
    .unwrap();
    raw.bar_write32(
        router_reg(rt::RT_CTRL, rt::RT_CTRL_STRIDE, 0, 7),
        1 << 31 | 2,
    )
    .unwrap();
    assert_eq!(c.router_state().unwrap().tables[0].len(), 1);

    assert_eq!(c.program_routes(&t).unwrap(), vec![1]);
    let s = c.router_state().unwrap();
    assert_eq!(s.id, ID_MAGIC);
    assert_eq!(s.tables, want_tables(&t, 1));
    assert_eq!(s.tables[0].len(), 3, "input 0 reaches all three nodes");

    // A node outside the topology, and a router page that does not answer.
    assert!(matches!(
        c.program_routes(&topo("full:1")),
        Err(DriverError::NodeNotInTopology { node: 1, nodes: 1 })
    ));
    dev.read_as(ROUTER_CSR_BASE as u32 + rt::RT_ID, 0);
    assert!(matches!(
        c.program_routes(&t),
        Err(DriverError::NoRouter { found: 0 })
    ));
    dev.heal();

    // An entry that does not stick is caught by the read-back.
    let reg = router_reg(rt::RT_BOUNDS, rt::RT_BOUNDS_STRIDE, 2, 1);
    raw.bar_write32(reg, 0x0007_0007).unwrap();
    dev.drop_write(reg);
    let e = c.program_routes(&t).unwrap_err();
    assert!(
        matches!(
            e,
            DriverError::RouteVerify {
                router: 1,
                input: 2,
                entry: 1,
                register: "RT_BOUNDS",
                read: 0x0007_0007,
                ..
            }
        ),
        "{e}"
    );
    dev.heal();
    assert_eq!(c.program_routes(&t).unwrap(), vec![1]);
}

/// Every RT_CTRL entry of the card's router, as read through its BAR.
fn route_ctrls<D: Device>(d: &D) -> Vec<RouteCtrl> {
    (0..ROUTER_PORTS as usize)
        .flat_map(|i| (0..ROUTE_ENTRIES as usize).map(move |e| (i, e)))
        .map(|(i, e)| {
            let v = d
                .bar_read32(router_reg(rt::RT_CTRL, rt::RT_CTRL_STRIDE, i, e))
                .unwrap();
            RouteCtrl::from_words(&[v])
        })
        .collect()
}

/// RT_CTRL entries router `r` should hold with `routing`.
fn want_ctrls(t: &Topology, r: usize, routing: Routing) -> Vec<RouteCtrl> {
    let tables = t.tables(routing).unwrap();
    (0..ROUTER_PORTS as usize)
        .flat_map(|i| (0..ROUTE_ENTRIES as usize).map(move |e| (i, e)))
        .map(|(i, e)| {
            tables[r]
                .inputs
                .get(i)
                .and_then(|v| v.get(e))
                .map_or(RouteCtrl::default(), |iv| RouteCtrl {
                    port: iv.port,
                    amask: iv.amask,
                    valid: true,
                })
        })
        .collect()
}

#[test]
fn adaptive_routes_carry_their_alternatives_and_can_be_taken_back() {
    // The centre router of a 3x3 mesh: west-last alternatives on several inputs.
    let t = topo("mesh:3x3");
    let cl = Cluster::new(&t, SimConfig::default()).unwrap();
    let mut c = Card::open(cl.device(4)).unwrap();
    c.configure(small(&t, 4)).unwrap();
    assert_eq!(
        c.program_routes_with(&t, Routing::Adaptive).unwrap(),
        vec![4]
    );
    let got = route_ctrls(c.device());
    assert_eq!(got, want_ctrls(&t, 4, Routing::Adaptive));
    assert!(
        got.iter().any(|e| e.valid && e.amask != 0),
        "alternatives programmed"
    );
    // Back to deterministic: the same ports, every alternative gone.
    assert_eq!(c.program_routes(&t).unwrap(), vec![4]);
    let got = route_ctrls(c.device());
    assert_eq!(got, want_ctrls(&t, 4, Routing::Deterministic));
    assert!(got.iter().all(|e| e.amask == 0));
}

#[test]
fn star_routes_are_programmed_by_node_zero_only() {
    let t = topo("star:2");
    let cl = Cluster::new(&t, SimConfig::default()).unwrap();
    let mut c1 = Card::open(cl.device(1)).unwrap();
    c1.configure(small(&t, 1)).unwrap();
    let mut c0 = Card::open(cl.device(0)).unwrap();
    c0.configure(small(&t, 0)).unwrap();
    let entry = (
        router_reg(rt::RT_BOUNDS, rt::RT_BOUNDS_STRIDE, 1, 0),
        router_reg(rt::RT_CTRL, rt::RT_CTRL_STRIDE, 1, 0),
    );
    let read = |(b, c): (u32, u32)| {
        let d = cl.device(0);
        (d.bar_read32(b).unwrap(), d.bar_read32(c).unwrap())
    };
    assert_eq!(read(entry).1, 0, "nothing programmed yet");
    assert!(c1.program_routes(&t).unwrap().is_empty());
    assert_eq!(read(entry).1, 0, "node 1 programmed nothing");
    assert_eq!(c0.program_routes(&t).unwrap(), vec![0]);
    // Entry 0 of input 1: destination 0 leaves on port 0.
    assert_eq!(read(entry), (0, 1 << 31));
    assert_eq!(c0.router_state().unwrap().tables, want_tables(&t, 0));
}

#[test]
fn a_contract_1_0_card_gets_neither_pushes_nor_inline_payloads() {
    let t = topo("full:2");
    let cl = cluster("full:2");
    let dev = Faulty::new(cl.device(0));
    dev.read_as(nic::VERSION, 0x0001_0000);
    let mut a = Card::open(dev.clone()).unwrap();
    let mut b = Card::open(cl.device(1)).unwrap();
    a.configure(small(&t, 0)).unwrap();
    b.configure(small(&t, 1)).unwrap();
    a.program_routes(&t).unwrap();
    b.program_routes(&t).unwrap();
    let buf = a.device().dma_alloc(4096).unwrap();
    a.device().mem_write(&buf, 0, b"8 bytes!").unwrap();
    let rx = b.rx_iova().unwrap();
    let e = a
        .put_via(fasthsl_driver::PutPath::Push, 1, &buf, 0, rx, 8, 0)
        .unwrap_err();
    assert!(matches!(e, DriverError::PathUnsupported { .. }), "{e}");
    let tk = a.put(1, &buf, 0, rx, 8, 0).unwrap();
    assert_eq!(tk.path, fasthsl_driver::PutPath::Ring);
    assert_eq!(a.wait_completion(&tk, 2_000_000).unwrap().result, Ok(()));
    let got = b.wait_lmr(2_000_000).unwrap();
    assert_eq!(got.len, 8);
    let mut data = [0u8; 8];
    b.read_rx(0, &mut data).unwrap();
    assert_eq!(&data, b"8 bytes!");
    // The ring descriptor carries the buffer address, not the payload (no INLINE flag:
    // a 1.0 card would take the payload bytes for an address).
    let lme = {
        let f = dev.f.borrow();
        DmaBuffer::new(f.live[0].id(), f.live[0].iova(), f.live[0].len())
    };
    let w0 = a.device().mem_read_u64(&lme, 0).unwrap();
    let w2 = a.device().mem_read_u64(&lme, 16).unwrap();
    assert_eq!(w0, buf.iova());
    assert_eq!(
        (w2 >> 48) as u16 & fasthsl_driver::contract::desc_flag::INLINE,
        0
    );
    let k = a.counters().unwrap();
    assert_eq!((k.push, k.push_reject, k.csr_err), (0, 0, 0));
}

/// Features a card's contract lacks are refused before anything is written, by the
/// single setters and by `set_reliable` alike; asking for their absence is fine.
#[test]
fn an_older_card_refuses_reliability_features_before_writing() {
    use fasthsl_driver::ReliableConfig;
    let cl = cluster("full:2");
    let raw = cl.device(0);
    let regs = || {
        (
            raw.bar_read32(nic::REL_CTRL).unwrap(),
            raw.bar_read32(nic::REL_TIMEOUT).unwrap(),
            raw.bar_read32(nic::REL_RETRIES).unwrap(),
            raw.bar_read32(nic::TX_QUANTUM).unwrap(),
        )
    };
    let reset = regs();
    let dev = Faulty::new(cl.device(0));

    // Contract 1.6: answers and SENDER_WAIT, no retransmission, dedup or early NACK.
    dev.read_as(nic::VERSION, 0x0001_0006);
    let card = Card::open(dev.clone()).unwrap();
    let e = card.set_reliable(ReliableConfig::default()).unwrap_err();
    assert!(matches!(e, DriverError::RetriesUnsupported { .. }), "{e}");
    let no_retx = ReliableConfig {
        retries: 0,
        ..ReliableConfig::default()
    };
    let e = card.set_reliable(no_retx).unwrap_err();
    assert!(matches!(e, DriverError::DedupUnsupported { .. }), "{e}");
    assert_eq!(regs(), reset, "a refused set_reliable wrote something");
    assert!(matches!(
        card.set_retries(1),
        Err(DriverError::RetriesUnsupported { .. })
    ));
    card.set_retries(0).unwrap();
    assert!(matches!(
        card.set_tx_quantum(12),
        Err(DriverError::TxQuantumUnsupported { .. })
    ));
    card.set_tx_quantum(0).unwrap();
    assert!(matches!(
        card.set_tx_quantum(5),
        Err(DriverError::TxQuantumInvalid { log2: 5 })
    ));
    assert_eq!(regs(), reset, "the absent registers were written");

    // Contract 1.5: no SENDER_WAIT, so no answer timeout either.
    dev.read_as(nic::VERSION, 0x0001_0005);
    let card = Card::open(dev.clone()).unwrap();
    for e in [
        card.set_reliable(no_retx).unwrap_err(),
        card.set_answer_timeout(100).unwrap_err(),
        card.set_sender_wait(true).unwrap_err(),
    ] {
        assert!(
            matches!(e, DriverError::SenderWaitUnsupported { .. }),
            "{e}"
        );
    }
    card.set_sender_wait(false).unwrap();
    assert_eq!(regs(), reset);

    // Today's card: everything exists; too many retries are still refused first.
    dev.heal();
    let card = Card::open(dev).unwrap();
    let e = card
        .set_reliable(ReliableConfig {
            retries: 16,
            ..ReliableConfig::default()
        })
        .unwrap_err();
    assert!(
        matches!(e, DriverError::RetriesTooMany { retries: 16 }),
        "{e}"
    );
    assert_eq!(regs(), reset);
    card.set_reliable(ReliableConfig::default()).unwrap();
    assert_ne!(regs(), reset);
}
