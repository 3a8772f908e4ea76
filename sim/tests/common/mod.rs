//! Register-level bring-up of simulated nodes straight from the contract (no driver):
//! routing tables, rings, receive window, and posting/awaiting remote writes.
#![allow(dead_code)]

use fasthsl_contract::{
    desc_flag, nic_regs as nr, router_regs as rr, status, LmeDesc, LmrEntry, RouteBounds,
    RouteCtrl, MTU_MAX, ROUTER_CSR_BASE, ROUTE_ENTRIES,
};
use fasthsl_device::{Device, DmaBuffer, Pace};
use fasthsl_sim::{Cluster, SimConfig, SimDevice, Topology};

/// Entries of the LME and LMR rings the tests set up.
pub const RING: u32 = 16;

/// A node brought up by [`bring_up`].
pub struct Node {
    pub dev: SimDevice,
    pub id: u16,
    pub lme: DmaBuffer,
    pub lmr: DmaBuffer,
    pub rxwin: DmaBuffer,
    pub lme_prod: u32,
    pub lmr_cons: u32,
}

pub fn cluster(spec: &str) -> Cluster {
    let t: Topology = spec.parse().expect("topology");
    Cluster::new(&t, SimConfig::default()).expect("cluster")
}

fn router_reg(off: u32) -> u32 {
    ROUTER_CSR_BASE as u32 + off
}

/// Offsets of table entry `idx` (input * ROUTE_ENTRIES + entry) in the router page.
pub fn route_regs(idx: u32) -> (u32, u32) {
    (
        router_reg(rr::RT_BOUNDS + idx * rr::RT_BOUNDS_STRIDE),
        router_reg(rr::RT_CTRL + idx * rr::RT_CTRL_STRIDE),
    )
}

/// Programs every router's tables from the topology, through each router's manager.
pub fn program_routes(c: &Cluster) {
    let t = c.topology();
    for rt in t.routing_tables().expect("tables") {
        let dev = c.device(t.manager_of(rt.router));
        for (p, entries) in rt.inputs.iter().enumerate() {
            for (e, iv) in entries.iter().enumerate() {
                let (b, ctl) = route_regs((p * ROUTE_ENTRIES as usize + e) as u32);
                let bounds = RouteBounds {
                    lo: iv.lo,
                    hi: iv.hi,
                }
                .to_words()[0];
                let ctrl = RouteCtrl {
                    port: iv.port,
                    amask: iv.amask,
                    valid: true,
                }
                .to_words()[0];
                dev.bar_write32(b, bounds).unwrap();
                dev.bar_write32(ctl, ctrl).unwrap();
            }
        }
    }
}

fn write64(dev: &SimDevice, lo: u32, v: u64) {
    dev.bar_write32(lo, v as u32).unwrap();
    dev.bar_write32(lo + 4, (v >> 32) as u32).unwrap();
}

/// Configures a node: id, destination range, LME/LMR rings, an `rxwin_len`-byte receive
/// window, LMR_NEW and LME_DONE interrupts, enable.
pub fn bring_up(c: &Cluster, node: usize, rxwin_len: usize) -> Node {
    let dev = c.device(node);
    let nodes = c.topology().nodes() as u32;
    dev.bar_write32(nr::NODE_ID, node as u32).unwrap();
    dev.bar_write32(nr::DEST_RANGE, (nodes - 1) << 16).unwrap();
    let lme = dev.dma_alloc(RING as usize * LmeDesc::BYTES).unwrap();
    let lmr = dev.dma_alloc(RING as usize * LmrEntry::BYTES).unwrap();
    let rxwin = dev.dma_alloc(rxwin_len).unwrap();
    write64(&dev, nr::LME_BASE_LO, lme.iova());
    dev.bar_write32(nr::LME_SIZE, RING).unwrap();
    write64(&dev, nr::LMR_BASE_LO, lmr.iova());
    dev.bar_write32(nr::LMR_SIZE, RING).unwrap();
    write64(&dev, nr::RXWIN_BASE_LO, rxwin.iova());
    write64(&dev, nr::RXWIN_SIZE_LO, rxwin_len as u64);
    dev.bar_write32(nr::INT_MASK, 0b011).unwrap();
    dev.bar_write32(nr::CTRL, 1).unwrap();
    Node {
        dev,
        id: node as u16,
        lme,
        lmr,
        rxwin,
        lme_prod: 0,
        lmr_cons: 0,
    }
}

/// Writes `desc` into the next LME slot and rings the doorbell; returns the slot.
pub fn post(n: &mut Node, desc: LmeDesc) -> u32 {
    let slot = n.lme_prod;
    n.dev
        .mem_write(&n.lme, slot as usize * LmeDesc::BYTES, &desc.to_bytes())
        .unwrap();
    n.lme_prod = (slot + 1) % RING;
    n.dev.bar_write32(nr::LME_PROD, n.lme_prod).unwrap();
    slot
}

/// A remote write of `len` bytes from `local` to `remote` on `dest`, both interrupts.
pub fn desc(local: u64, remote: u64, len: u32, dest: u16, msg_id: u32) -> LmeDesc {
    LmeDesc {
        local_addr: local,
        remote_addr: remote,
        dctx: 0,
        len,
        dest,
        flags: desc_flag::IRQ_LOCAL | desc_flag::IRQ_REMOTE,
        msg_id,
        status: 0,
        key: 0,
    }
}

/// Polls host memory (one cycle per look) until LME slot `slot` is DONE; its status.
pub fn wait_lme(n: &Node, slot: u32, max_cycles: u64) -> u16 {
    let start = n.dev.cycles().unwrap();
    loop {
        let mut b = [0u8; 32];
        n.dev.mem_read(&n.lme, slot as usize * 32, &mut b).unwrap();
        let d = LmeDesc::from_bytes(&b);
        if d.status & status::DONE != 0 {
            return d.status;
        }
        let waited = n.dev.cycles().unwrap() - start;
        assert!(
            waited < max_cycles,
            "node {} LME slot {slot} not done after {waited} cycles",
            n.id
        );
        n.dev.relax(Pace::Step);
    }
}

/// Polls for the next LMR entry, consumes it (LMR_CONS) and returns it.
pub fn wait_lmr(n: &mut Node, max_cycles: u64) -> LmrEntry {
    let start = n.dev.cycles().unwrap();
    let off = n.lmr_cons as usize * LmrEntry::BYTES;
    loop {
        let mut b = [0u8; 32];
        n.dev.mem_read(&n.lmr, off, &mut b).unwrap();
        let e = LmrEntry::from_bytes(&b);
        if e.status & status::DONE != 0 {
            n.dev.mem_write(&n.lmr, off, &[0; 32]).unwrap();
            n.lmr_cons = (n.lmr_cons + 1) % RING;
            n.dev.bar_write32(nr::LMR_CONS, n.lmr_cons).unwrap();
            return e;
        }
        let waited = n.dev.cycles().unwrap() - start;
        assert!(
            waited < max_cycles,
            "node {} no LMR entry after {waited} cycles",
            n.id
        );
        n.dev.relax(Pace::Step);
    }
}

/// Packets a message of `len` bytes needs at the largest MTU (a lower bound).
pub fn min_packets(len: u64) -> u64 {
    len.div_ceil(MTU_MAX)
}
