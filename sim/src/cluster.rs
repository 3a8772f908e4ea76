//! The cluster: models, wiring, hosts, and the cycle loop.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use fasthsl_contract::{BAR0_SIZE, ROUTER_CSR_BASE};
use fasthsl_device::DeviceError;
use fasthsl_topology::{Topology, ROUTER_PORTS};

use crate::device::SimDevice;
use crate::faults::{self, FaultCounters, FaultSpec, Faults, LinkFaults, LinkSelector, Port, Wire};
use crate::ffi::{self, NicIn, NicModel, NicOut, RouterIn, RouterModel, RouterOut};
use crate::host::{Host, Mmio, Target};
use crate::wiring::{self, Peer, Peers, TerminalOut};
use crate::{Endpoint, Flit, IommuFault, LinkFlits, SimConfig, SimError, Violation};

/// A simulated cluster: one NIC model per node, one router model per router, wired as
/// the topology says, each node with its modeled host.
///
/// A cheap handle: clones share the same simulation (single-threaded, `!Send`).
#[derive(Clone)]
pub struct Cluster {
    pub(crate) inner: Rc<RefCell<Inner>>,
}

pub(crate) struct Inner {
    pub(crate) cfg: SimConfig,
    topo: Topology,
    /// Posted-write latency, DMA read round trip, MMIO completion return, in cycles.
    posted: u64,
    rtt: u64,
    ret: u64,
    pub(crate) cycle: u64,
    nics: Vec<NicModel>,
    routers: Vec<RouterModel>,
    pub(crate) hosts: Vec<Host>,
    nic_in: Vec<NicIn>,
    nic_out: Vec<NicOut>,
    router_in: Vec<RouterIn>,
    router_out: Vec<RouterOut>,
    /// Node -> (router, port) its NIC plugs into.
    nic_att: Vec<(usize, usize)>,
    /// Per router, its connected ports only (idle ports cost nothing per cycle).
    peers: Peers,
    /// Per node, the routers whose config page its BAR shows.
    managed: Vec<Vec<usize>>,
    /// Per router, reads sent to its config port: (node, token), in order.
    cfg_reads: Vec<VecDeque<(usize, u64)>>,
    nic_tx_flits: Vec<u64>,
    router_tx_flits: Vec<[u64; ROUTER_PORTS]>,
    taps: Vec<Option<Vec<Flit>>>,
    pub(crate) next_buf_id: u64,
    /// Link faults; None (one branch per cycle) until a fault is configured.
    faults: Option<Box<Faults>>,
}

impl Cluster {
    /// Builds and resets the models for `topology`. Cycle 0 is the first cycle after reset.
    pub fn new(topology: &Topology, config: SimConfig) -> Result<Cluster, SimError> {
        if config.clock_period_ps == 0 {
            return Err(SimError::Config("clock_period_ps must be > 0".into()));
        }
        if config.max_dma_reads == 0 {
            return Err(SimError::Config("max_dma_reads must be > 0".into()));
        }
        if config.dma_read_rtt_ns <= config.posted_write_ns {
            return Err(SimError::Config(
                "dma_read_rtt_ns must exceed posted_write_ns (a round trip is two one-way trips)"
                    .into(),
            ));
        }
        #[cfg(not(feature = "trace"))]
        if config.trace_dir.is_some() {
            return Err(SimError::TraceUnavailable);
        }
        ffi::check_abi().map_err(SimError::Abi)?;

        let nodes = topology.nodes();
        let nrouters = topology.routers();
        let (peers, nic_att) = wiring::cabling(topology);

        let mut nics: Vec<NicModel> = (0..nodes).map(|_| NicModel::new()).collect();
        let mut routers: Vec<RouterModel> = (0..nrouters).map(|_| RouterModel::new()).collect();
        #[cfg(feature = "trace")]
        if let Some(dir) = &config.trace_dir {
            let err = |path: &std::path::Path, source| SimError::Trace {
                path: path.to_path_buf(),
                source,
            };
            std::fs::create_dir_all(dir).map_err(|e| err(dir, e))?;
            for (n, m) in nics.iter_mut().enumerate() {
                let p = dir.join(format!("nic{n}.fst"));
                m.trace_open(&p).map_err(|e| err(&p, e))?;
            }
            for (r, m) in routers.iter_mut().enumerate() {
                let p = dir.join(format!("router{r}.fst"));
                m.trace_open(&p).map_err(|e| err(&p, e))?;
            }
        }
        for m in &mut nics {
            m.set_skip(config.skip_idle);
            m.reset(config.reset_cycles);
        }
        for m in &mut routers {
            m.set_skip(config.skip_idle);
            m.reset(config.reset_cycles);
        }

        let posted = config.ns_to_cycles(config.posted_write_ns);
        let rtt = config.ns_to_cycles(config.dma_read_rtt_ns);
        let inner = Inner {
            posted,
            rtt,
            ret: rtt.saturating_sub(posted).max(1),
            cycle: 0,
            nics,
            routers,
            hosts: (0..nodes)
                .map(|n| Host::new(n, config.host_mem_bytes, config.shared_iova))
                .collect(),
            nic_in: vec![NicIn::default(); nodes],
            nic_out: vec![NicOut::default(); nodes],
            router_in: vec![RouterIn::default(); nrouters],
            router_out: vec![RouterOut::default(); nrouters],
            nic_att,
            peers,
            managed: (0..nodes).map(|n| topology.managed_by(n)).collect(),
            cfg_reads: vec![VecDeque::new(); nrouters],
            nic_tx_flits: vec![0; nodes],
            router_tx_flits: vec![[0; ROUTER_PORTS]; nrouters],
            taps: vec![None; nodes],
            next_buf_id: 1,
            faults: None,
            topo: topology.clone(),
            cfg: config,
        };
        let rules = inner.cfg.faults.rules.clone();
        let cluster = Cluster {
            inner: Rc::new(RefCell::new(inner)),
        };
        for (sel, spec) in rules {
            cluster.set_link_faults(sel, spec)?;
        }
        Ok(cluster)
    }

    /// Every directed link of the cluster, in the order of [`Cluster::link_flits`].
    pub fn links(&self) -> Vec<(Endpoint, Endpoint)> {
        self.link_flits().iter().map(|l| (l.from, l.to)).collect()
    }

    /// Sets the faults of every directed link `links` selects (replacing what they had;
    /// counters keep counting), from the next cycle on; returns how many links that is.
    /// Each link draws from its own random stream, derived from
    /// [`crate::FaultConfig::seed`] and its endpoints (see [`crate::faults`]).
    ///
    /// Fails for a probability outside 0..=1 or a selector that matches no link.
    pub fn set_link_faults(&self, links: LinkSelector, spec: FaultSpec) -> Result<usize, SimError> {
        let all = self.links();
        let mut inner = self.inner.borrow_mut();
        let seed = inner.cfg.faults.seed;
        let mut f = inner
            .faults
            .take()
            .unwrap_or_else(|| Box::new(Faults::new(seed)));
        let r = f.set(&all, links, spec);
        inner.faults = Some(f);
        r
    }

    /// Every link that has (or had) faults configured, with what was injected on it, in
    /// the order of [`Cluster::links`].
    pub fn link_faults(&self) -> Vec<LinkFaults> {
        self.inner
            .borrow()
            .faults
            .as_ref()
            .map(|f| f.report())
            .unwrap_or_default()
    }

    /// The fault counters of all links added up.
    pub fn fault_totals(&self) -> FaultCounters {
        faults::total(&self.link_faults())
    }

    /// The node's card as a [`fasthsl_device::Device`].
    ///
    /// # Panics
    /// If `node` is not a node of the topology.
    pub fn device(&self, node: usize) -> SimDevice {
        let nodes = self.inner.borrow().hosts.len();
        assert!(
            node < nodes,
            "node {node} does not exist (the cluster has {nodes})"
        );
        SimDevice::new(self.inner.clone(), node)
    }

    /// The topology the cluster was built from.
    pub fn topology(&self) -> Topology {
        self.inner.borrow().topo.clone()
    }

    /// The configuration the cluster was built with.
    pub fn config(&self) -> SimConfig {
        self.inner.borrow().cfg.clone()
    }

    /// Advances every model by `cycles` clock cycles.
    pub fn step(&self, cycles: u64) {
        let mut inner = self.inner.borrow_mut();
        for _ in 0..cycles {
            inner.step_one();
        }
    }

    /// Clock cycles since reset.
    pub fn cycles(&self) -> u64 {
        self.inner.borrow().cycle
    }

    /// Modeled time since reset, in nanoseconds.
    pub fn now_ns(&self) -> u64 {
        self.inner.borrow().now_ns()
    }

    /// Whether node `node`'s interrupt line is high (panics for a node that does not exist).
    pub fn irq(&self, node: usize) -> bool {
        self.inner.borrow().hosts[node].irq
    }

    /// Every DMA the IOMMU refused so far, per node in order.
    pub fn iommu_faults(&self) -> Vec<IommuFault> {
        let inner = self.inner.borrow();
        inner
            .hosts
            .iter()
            .flat_map(|h| h.faults.iter().cloned())
            .collect()
    }

    /// Number of refused DMAs (all nodes).
    pub fn iommu_fault_count(&self) -> usize {
        self.inner
            .borrow()
            .hosts
            .iter()
            .map(|h| h.faults.len())
            .sum()
    }

    /// DMA port rule breaks by the cards (should stay empty).
    pub fn violations(&self) -> Vec<Violation> {
        let inner = self.inner.borrow();
        inner
            .hosts
            .iter()
            .flat_map(|h| h.violations.iter().cloned())
            .collect()
    }

    /// Flits sent so far over every link, both directions, NIC links first.
    pub fn link_flits(&self) -> Vec<LinkFlits> {
        let inner = self.inner.borrow();
        let mut v = Vec::new();
        for (n, &(r, p)) in inner.nic_att.iter().enumerate() {
            v.push(LinkFlits {
                from: Endpoint::Nic(n),
                to: Endpoint::Router(r, p),
                flits: inner.nic_tx_flits[n],
            });
            v.push(LinkFlits {
                from: Endpoint::Router(r, p),
                to: Endpoint::Nic(n),
                flits: inner.router_tx_flits[r][p],
            });
        }
        for (r, ports) in inner.peers.iter().enumerate() {
            for &(p, peer) in ports {
                if let Peer::Router(r2, p2) = peer {
                    v.push(LinkFlits {
                        from: Endpoint::Router(r, p),
                        to: Endpoint::Router(r2, p2),
                        flits: inner.router_tx_flits[r][p],
                    });
                }
            }
        }
        v
    }

    /// Starts (or stops, discarding what was recorded) recording the flits node
    /// `node`'s NIC sends (panics for a node that does not exist).
    pub fn set_tap(&self, node: usize, on: bool) {
        self.inner.borrow_mut().taps[node] = on.then(Vec::new);
    }

    /// The flits recorded by the tap on `node` since the last call (the tap stays on).
    pub fn take_tap(&self, node: usize) -> Vec<Flit> {
        self.inner.borrow_mut().taps[node]
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// True when no host has a DMA or MMIO transaction in flight.
    pub fn host_quiet(&self) -> bool {
        self.inner.borrow().hosts.iter().all(Host::quiet)
    }

    /// Writes buffered waveform data to the FST files.
    #[cfg(feature = "trace")]
    pub fn flush_traces(&self) {
        let mut inner = self.inner.borrow_mut();
        for m in &mut inner.nics {
            m.trace_flush();
        }
        for m in &mut inner.routers {
            m.trace_flush();
        }
    }
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.inner.borrow();
        f.debug_struct("Cluster")
            .field("topology", &inner.topo.to_string())
            .field("cycle", &inner.cycle)
            .finish_non_exhaustive()
    }
}

impl Inner {
    pub(crate) fn now_ns(&self) -> u64 {
        // u128: cycles * ps overflows u64 after ~53 days of modeled time at 4 ns.
        (u128::from(self.cycle) * u128::from(self.cfg.clock_period_ps) / 1000) as u64
    }

    pub(crate) fn ns_to_cycles_ceil(&self, ns: u64) -> u64 {
        (u128::from(ns) * 1000).div_ceil(u128::from(self.cfg.clock_period_ps)) as u64
    }

    /// Splits a BAR0 offset into its target port, or fails like a real BAR would.
    fn decode(offset: u32) -> Result<(Target, u16), DeviceError> {
        if u64::from(offset) + 4 > BAR0_SIZE {
            return Err(DeviceError::BarOffset {
                offset,
                size: BAR0_SIZE as u32,
            });
        }
        let off = u64::from(offset);
        // Page 1 is the router's; the NIC decodes the others (page 0, the context pages and
        // the undefined rest) from the whole offset, as on a card.
        Ok(
            if (ROUTER_CSR_BASE..ROUTER_CSR_BASE + 0x1000).contains(&off) {
                (Target::Router, (off - ROUTER_CSR_BASE) as u16)
            } else {
                (Target::Nic, off as u16)
            },
        )
    }

    /// Queues an MMIO request behind the node's earlier ones; returns its token.
    fn enqueue_mmio(
        &mut self,
        node: usize,
        offset: u32,
        wdata: Option<u32>,
    ) -> Result<u64, DeviceError> {
        let (target, addr) = Self::decode(offset)?;
        let arrive_at = self.cycle + self.posted;
        let h = &mut self.hosts[node];
        let token = h.next_token;
        h.next_token += 1;
        h.mmio.push_back(Mmio {
            arrive_at,
            target,
            addr,
            wdata,
            token,
        });
        Ok(token)
    }

    pub(crate) fn mmio_write(
        &mut self,
        node: usize,
        offset: u32,
        value: u32,
    ) -> Result<(), DeviceError> {
        self.enqueue_mmio(node, offset, Some(value)).map(|_| ())
    }

    pub(crate) fn mmio_read(&mut self, node: usize, offset: u32) -> Result<u32, DeviceError> {
        let token = self.enqueue_mmio(node, offset, None)?;
        let h = &self.hosts[node];
        // Generous: every queued write costs at least a cycle before the read goes out.
        let start = self.cycle;
        let limit = start + self.posted + self.ret + h.mmio.len() as u64 + 100_000;
        loop {
            let h = &mut self.hosts[node];
            if let Some((t, at, v)) = h.mmio_done {
                if t == token && self.cycle >= at {
                    h.mmio_done = None;
                    return Ok(v);
                }
            }
            if self.cycle >= limit {
                return Err(DeviceError::Backend(format!(
                    "sim node {node}: no response to the BAR0 read of {offset:#x} after {} cycles; \
                     the card's CSR port did not answer",
                    self.cycle - start
                )));
            }
            self.step_one();
        }
    }

    /// Hands the MMIO request due this cycle (at most one per node) to its port.
    fn dispatch_mmio(&mut self, n: usize, now: u64) {
        let h = &mut self.hosts[n];
        let ni = &mut self.nic_in[n];
        ni.csr_valid = 0;
        let Some(m) = h.mmio.front().copied() else {
            return;
        };
        if m.arrive_at > now {
            return;
        }
        h.mmio.pop_front();
        match m.target {
            Target::Nic => {
                ni.csr_valid = 1;
                ni.csr_write = u8::from(m.wdata.is_some());
                ni.csr_addr = m.addr;
                ni.csr_wdata = m.wdata.unwrap_or(0);
                if m.wdata.is_none() {
                    h.nic_reads.push_back(m.token);
                }
            }
            Target::Router => {
                let managed = &self.managed[n];
                match m.wdata {
                    Some(v) => {
                        // Writes go to every router the node manages (at most one in
                        // the current topologies); with none they are dropped, as a
                        // card without a router would.
                        for &r in managed {
                            let ri = &mut self.router_in[r];
                            ri.cfg_valid = 1;
                            ri.cfg_write = 1;
                            ri.cfg_addr = m.addr;
                            ri.cfg_wdata = v;
                        }
                    }
                    None => match managed.first() {
                        Some(&r) => {
                            let ri = &mut self.router_in[r];
                            ri.cfg_valid = 1;
                            ri.cfg_write = 0;
                            ri.cfg_addr = m.addr;
                            ri.cfg_wdata = 0;
                            self.cfg_reads[r].push_back((n, m.token));
                        }
                        // Nothing decodes the page: the read completes with all ones.
                        None => h.mmio_done = Some((m.token, now + self.ret, 0xFFFF_FFFF)),
                    },
                }
            }
        }
    }

    /// One clock cycle of the whole cluster.
    pub(crate) fn step_one(&mut self) {
        let now = self.cycle;

        // Link inputs of this cycle are the registered outputs of the last one.
        for (n, &(r, p)) in self.nic_att.iter().enumerate() {
            let ro = &self.router_out[r];
            let ni = &mut self.nic_in[n];
            ni.rx_valid = (ro.out_valid >> p) & 1;
            ni.rx_last = (ro.out_last >> p) & 1;
            ni.rx_err = (ro.out_err >> p) & 1;
            ni.rx_data = ro.out_data[p];
            ni.tx_credit = (ro.in_credit >> p) & 1;
        }
        let nic_out = &self.nic_out;
        for (r, ports) in self.peers.iter().enumerate() {
            let ri = &mut self.router_in[r];
            wiring::gather_inputs(ri, ports, &self.router_out, |n| {
                let o = &nic_out[n];
                TerminalOut {
                    valid: o.tx_valid != 0,
                    last: o.tx_last != 0,
                    err: o.tx_err != 0,
                    credit: o.rx_credit != 0,
                    data: o.tx_data,
                }
            });
            ri.cfg_valid = 0;
        }
        if let Some(f) = self.faults.as_deref_mut() {
            f.apply(
                now,
                &mut LinkInputs {
                    nic: &mut self.nic_in,
                    router: &mut self.router_in,
                },
            );
        }

        // Host side of every node, then the NICs.
        for n in 0..self.nics.len() {
            self.hosts[n].apply_writes(now);
            self.dispatch_mmio(n, now);
            let h = &mut self.hosts[n];
            let ni = &mut self.nic_in[n];
            ni.dma_rd_req_ready = u8::from(h.reads_in_flight() < self.cfg.max_dma_reads);
            match h.read_beat(now) {
                Some(b) => {
                    ni.dma_rd_rsp_valid = 1;
                    ni.dma_rd_rsp_data = b.data;
                    ni.dma_rd_rsp_tag = b.tag;
                    ni.dma_rd_rsp_last = u8::from(b.last);
                    ni.dma_rd_rsp_err = u8::from(b.err);
                }
                None => ni.dma_rd_rsp_valid = 0,
            }
            ni.dma_wr_ready = 1;

            let o = &mut self.nic_out[n];
            self.nics[n].tick(ni, o);

            if o.dma_rd_req_fire != 0 {
                h.accept_read(
                    now,
                    self.rtt,
                    o.dma_rd_req_addr,
                    o.dma_rd_req_beats,
                    o.dma_rd_req_tag,
                );
            }
            if o.dma_rd_rsp_fire != 0 {
                h.beat_taken();
            }
            if o.dma_wr_fire != 0 {
                h.accept_write(
                    now,
                    self.posted,
                    o.dma_wr_addr,
                    o.dma_wr_data,
                    o.dma_wr_strb,
                );
            }
            if o.csr_rsp_valid != 0 {
                match h.nic_reads.pop_front() {
                    Some(t) => h.mmio_done = Some((t, now + self.ret, o.csr_rdata)),
                    None => h.violations.push(Violation {
                        node: n,
                        cycle: now,
                        what: "CSR read response without a read request".into(),
                    }),
                }
            }
            h.irq = o.irq != 0;
            if o.tx_valid != 0 {
                self.nic_tx_flits[n] += 1;
                if let Some(tap) = &mut self.taps[n] {
                    tap.push(Flit {
                        cycle: now,
                        last: o.tx_last != 0,
                        err: o.tx_err != 0,
                        data: o.tx_data,
                    });
                }
            }
        }

        for r in 0..self.routers.len() {
            let o = &mut self.router_out[r];
            self.routers[r].tick(&self.router_in[r], o);
            if o.cfg_rsp_valid != 0 {
                if let Some((n, t)) = self.cfg_reads[r].pop_front() {
                    self.hosts[n].mmio_done = Some((t, now + self.ret, o.cfg_rdata));
                }
            }
            let mut m = o.out_valid;
            while m != 0 {
                self.router_tx_flits[r][m.trailing_zeros() as usize] += 1;
                m &= m - 1;
            }
        }

        self.cycle += 1;
    }
}

/// The link inputs of every model, as the fault injector sees them.
struct LinkInputs<'a> {
    nic: &'a mut [NicIn],
    router: &'a mut [RouterIn],
}

impl faults::Ports for LinkInputs<'_> {
    fn get(&self, p: Port) -> Wire {
        match p {
            Port::Nic(n) => {
                let i = &self.nic[n];
                Wire {
                    valid: i.rx_valid != 0,
                    last: i.rx_last != 0,
                    err: i.rx_err != 0,
                    data: i.rx_data,
                    credit: i.tx_credit != 0,
                }
            }
            Port::Router(r, p) => {
                let i = &self.router[r];
                let bit = |m: u8| (m >> p) & 1 != 0;
                Wire {
                    valid: bit(i.in_valid),
                    last: bit(i.in_last),
                    err: bit(i.in_err),
                    data: i.in_data[p],
                    credit: bit(i.out_credit),
                }
            }
        }
    }

    fn set(&mut self, p: Port, w: Wire) {
        match p {
            Port::Nic(n) => {
                let i = &mut self.nic[n];
                i.rx_valid = u8::from(w.valid);
                i.rx_last = u8::from(w.last);
                i.rx_err = u8::from(w.err);
                i.rx_data = w.data;
                i.tx_credit = u8::from(w.credit);
            }
            Port::Router(r, p) => {
                let i = &mut self.router[r];
                let put = |m: &mut u8, v: bool| *m = (*m & !(1 << p)) | (u8::from(v) << p);
                put(&mut i.in_valid, w.valid);
                put(&mut i.in_last, w.last);
                put(&mut i.in_err, w.err);
                put(&mut i.out_credit, w.credit);
                i.in_data[p] = w.data;
            }
        }
    }
}
