//! The vfio-user server: one simulation thread owning the cluster, one thread per node
//! socket speaking the protocol and forwarding requests to the simulation.

use std::fs::File;
use std::io;
use std::os::unix::net::UnixStream;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender, TryRecvError};
use std::sync::Arc;
use std::thread::{self, JoinHandle};

use fasthsl_contract::{nic_regs as nic, BAR0_SIZE, PCI_DEVICE_ID, PCI_VENDOR_ID};
use fasthsl_device::Device;
use fasthsl_sim::{Cluster, SimConfig, SimDevice, Topology};
use vfio_bindings::bindings::vfio::{
    vfio_region_info, VFIO_IRQ_INFO_EVENTFD, VFIO_IRQ_SET_ACTION_MASK, VFIO_IRQ_SET_ACTION_TRIGGER,
    VFIO_IRQ_SET_ACTION_UNMASK, VFIO_IRQ_SET_DATA_EVENTFD, VFIO_IRQ_SET_DATA_NONE,
    VFIO_PCI_BAR0_REGION_INDEX, VFIO_PCI_BAR2_REGION_INDEX, VFIO_PCI_CONFIG_REGION_INDEX,
    VFIO_PCI_INTX_IRQ_INDEX, VFIO_PCI_MSI_IRQ_INDEX, VFIO_PCI_NUM_IRQS, VFIO_PCI_NUM_REGIONS,
    VFIO_REGION_INFO_FLAG_READ, VFIO_REGION_INFO_FLAG_WRITE,
};
use vfio_user::{DmaMapFlags, DmaUnmapFlags, IrqInfo, ServerBackend, ServerRegion};

use crate::shm::{self, SharedMap, PAGE};
use crate::{sim_regs, socket_paths, VfioUserError};

/// How simulated time advances (see the crate documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Clock {
    /// Only on client requests (BAR0 reads, `STEP`, `WAIT_IRQ`): deterministic for one
    /// client.
    #[default]
    Driven,
    /// Continuously while at least one client is attached (guests).
    Free,
}

/// What to serve.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// The simulated cluster.
    pub topology: Topology,
    /// Its host and timing model.
    pub sim: SimConfig,
    /// How time advances.
    pub clock: Clock,
    /// Socket path, pattern with `{node}`, or directory (see [`socket_paths`]).
    pub socket: PathBuf,
}

/// Counters of one node's socket.
#[derive(Debug, Default)]
pub struct NodeStats {
    /// Clients that connected and have gone again.
    pub connections_closed: AtomicU64,
    /// Requests refused with an error reply (malformed, out of range, unsupported).
    pub bad_requests: AtomicU64,
    /// Connections that ended in a protocol error or a server-side panic (the socket
    /// was then reopened for the next client).
    pub broken_connections: AtomicU64,
}

/// A running server: the simulation thread and one thread per node socket.
pub struct Server {
    sockets: Vec<PathBuf>,
    stats: Vec<Arc<NodeStats>>,
    threads: Vec<JoinHandle<()>>,
}

/// Largest single DMA mapping a client may ask for.
const MAX_MAP: u64 = 16 << 30;
/// Bytes of PCI configuration space served.
const CONFIG_SIZE: u64 = 256;

/// The MSI capability in configuration space (the only capability; see [`msi_cap`]).
pub mod msi_cap {
    /// Offset of the capability, as the capabilities pointer (0x34) gives it.
    pub const OFFSET: usize = 0x40;
    /// PCI capability id of MSI.
    pub const ID: u8 = 0x05;
    /// Message Control: MSI enable.
    pub const CTRL_ENABLE: u16 = 1 << 0;
    /// Message Control: 64-bit message address capable.
    pub const CTRL_64BIT: u16 = 1 << 7;
    /// Length of the 64-bit capability (id, next, control, address, upper address, data).
    pub const LEN: usize = 0x0e;
}
/// Cycles the server lets a card drain after disabling it (client gone, reset): a
/// 16 MiB message at the link rate, with margin.
const DRAIN_CYCLES: u64 = 4_000_000;
/// DMA-free cycles after which a disabled card counts as drained (> 2 read round trips).
const QUIET_CYCLES: u64 = 1024;
/// Cycles per batch of the free-running clock between two looks at the request queue.
const FREE_BATCH: u64 = 256;

impl Server {
    /// Builds the cluster, binds every node's socket and starts serving. A socket file
    /// left behind by a server that died is replaced; a live one is an error.
    pub fn start(cfg: ServeConfig) -> Result<Server, VfioUserError> {
        let nodes = cfg.topology.nodes();
        let sockets = socket_paths(&cfg.socket, nodes)?;
        let mut servers = Vec::with_capacity(nodes);
        for p in &sockets {
            servers.push(bind(p)?);
        }
        let stats: Vec<Arc<NodeStats>> = (0..nodes).map(|_| Arc::default()).collect();

        let (tx, rx) = mpsc::channel::<Req>();
        let (ready_tx, ready_rx) = mpsc::channel();
        let sim_stats = stats.clone();
        let topo = cfg.topology.clone();
        let sim_cfg = cfg.sim.clone();
        let clock = cfg.clock;
        let sim = thread::Builder::new()
            .name("fasthsl-sim".into())
            .spawn(move || {
                // The cluster is single-threaded (!Send): it is built and lives here.
                let cluster = match Cluster::new(&topo, sim_cfg) {
                    Ok(c) => {
                        let _ = ready_tx.send(Ok(()));
                        c
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                SimLoop::new(cluster, clock, sim_stats).run(rx);
            })
            .map_err(|source| VfioUserError::Os {
                what: "spawning the simulation thread".into(),
                source,
            })?;
        match ready_rx.recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(VfioUserError::Sim(e)),
            Err(_) => return Err(VfioUserError::Device("the simulation thread died".into())),
        }

        let mut threads = vec![sim];
        for (node, server) in servers.into_iter().enumerate() {
            let backend = NodeBackend::new(node, tx.clone(), stats[node].clone());
            let t = thread::Builder::new()
                .name(format!("fasthsl-vfio-user-{node}"))
                .spawn(move || serve_node(server, backend))
                .map_err(|source| VfioUserError::Os {
                    what: "spawning a socket thread".into(),
                    source,
                })?;
            threads.push(t);
        }
        Ok(Server {
            sockets,
            stats,
            threads,
        })
    }

    /// The socket of every node, in node order.
    pub fn sockets(&self) -> &[PathBuf] {
        &self.sockets
    }

    /// Counters of node `node`'s socket.
    pub fn stats(&self, node: usize) -> &NodeStats {
        &self.stats[node]
    }

    /// Blocks for as long as the server runs (until the process is stopped).
    pub fn wait(self) {
        for t in self.threads {
            let _ = t.join();
        }
    }
}

/// Binds a node's socket, replacing a stale socket file nobody listens on.
fn bind(path: &Path) -> Result<vfio_user::Server, VfioUserError> {
    if path.exists() {
        let is_socket = {
            use std::os::unix::fs::FileTypeExt;
            path.metadata()
                .map(|m| m.file_type().is_socket())
                .unwrap_or(false)
        };
        if !is_socket || UnixStream::connect(path).is_ok() {
            return Err(VfioUserError::SocketPath {
                path: path.to_path_buf(),
                why: if is_socket {
                    "another server is listening on it".into()
                } else {
                    "exists and is not a socket; remove it or choose another path".into()
                },
            });
        }
        std::fs::remove_file(path).map_err(|source| VfioUserError::Os {
            what: format!("removing the stale socket {}", path.display()),
            source,
        })?;
    }
    let region = |index: u32, size: u64| {
        let flags = if size > 0 {
            VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE
        } else {
            0
        };
        ServerRegion {
            region_info: vfio_region_info {
                argsz: std::mem::size_of::<vfio_region_info>() as u32,
                flags,
                index,
                cap_offset: 0,
                size,
                offset: 0,
            },
            sparse_areas: Vec::new(),
            mmap_fd: None,
        }
    };
    let regions = (0..VFIO_PCI_NUM_REGIONS)
        .map(|i| {
            let size = match i {
                VFIO_PCI_BAR0_REGION_INDEX => BAR0_SIZE,
                VFIO_PCI_BAR2_REGION_INDEX => sim_regs::SIZE,
                VFIO_PCI_CONFIG_REGION_INDEX => CONFIG_SIZE,
                _ => 0,
            };
            region(i, size)
        })
        .collect();
    let irqs = (0..VFIO_PCI_NUM_IRQS)
        .map(|index| IrqInfo {
            index,
            flags: VFIO_IRQ_INFO_EVENTFD,
            count: u32::from(index == VFIO_PCI_INTX_IRQ_INDEX || index == VFIO_PCI_MSI_IRQ_INDEX),
        })
        .collect();
    vfio_user::Server::new(path, true, irqs, regions).map_err(|source| VfioUserError::Protocol {
        what: format!("listening on {}", path.display()),
        source,
    })
}

/// Serves one client after another on a node's socket, forever.
fn serve_node(server: vfio_user::Server, mut backend: NodeBackend) {
    loop {
        // The library panics on some malformed messages (e.g. a bad VERSION payload);
        // a broken client must not take the socket down with it.
        let r = catch_unwind(AssertUnwindSafe(|| server.run(&mut backend)));
        if !matches!(r, Ok(Ok(()))) {
            backend
                .stats
                .broken_connections
                .fetch_add(1, Ordering::Relaxed);
        }
        backend
            .stats
            .connections_closed
            .fetch_add(1, Ordering::Relaxed);
        // The client is gone: its memory and eventfd must not be used any more.
        if backend.attached {
            backend.attached = false;
            if backend.call(Op::Detach).is_err() {
                return;
            }
        }
        backend.reset_config();
    }
}

// ---- requests to the simulation thread ----

enum Op {
    BarRead(u32),
    BarWrite(u32, u32),
    SimRead(u64),
    SimWrite(u64, u64),
    Map(u64, SharedMap),
    Unmap(u64, u64),
    SetIrq(Option<File>),
    Reset,
    Attach,
    Detach,
}

struct Req {
    node: usize,
    op: Op,
    reply: SyncSender<Result<u64, String>>,
}

struct NodeSim {
    dev: SimDevice,
    eventfd: Option<File>,
    irq_was: bool,
}

struct SimLoop {
    cluster: Cluster,
    nodes: Vec<NodeSim>,
    clock: Clock,
    attached: usize,
    stats: Vec<Arc<NodeStats>>,
}

impl SimLoop {
    fn new(cluster: Cluster, clock: Clock, stats: Vec<Arc<NodeStats>>) -> Self {
        let nodes = (0..cluster.topology().nodes())
            .map(|n| NodeSim {
                dev: cluster.device(n),
                eventfd: None,
                irq_was: false,
            })
            .collect();
        SimLoop {
            cluster,
            nodes,
            clock,
            attached: 0,
            stats,
        }
    }

    fn run(mut self, rx: Receiver<Req>) {
        loop {
            let req = if self.clock == Clock::Free && self.attached > 0 {
                match rx.try_recv() {
                    Ok(r) => r,
                    Err(TryRecvError::Empty) => {
                        self.cluster.step(FREE_BATCH);
                        self.signal_irqs();
                        continue;
                    }
                    Err(TryRecvError::Disconnected) => return,
                }
            } else {
                match rx.recv() {
                    Ok(r) => r,
                    Err(_) => return,
                }
            };
            let res = self.handle(req.node, req.op);
            self.signal_irqs();
            let _ = req.reply.send(res);
        }
    }

    /// One eventfd signal per rising edge of a card's (level) interrupt line.
    fn signal_irqs(&mut self) {
        for n in &mut self.nodes {
            let level = n.dev.irq_line();
            if level && !n.irq_was {
                if let Some(fd) = &n.eventfd {
                    let _ = shm::eventfd_signal(fd);
                }
            }
            n.irq_was = level;
        }
    }

    fn driven(&self) -> bool {
        self.clock == Clock::Driven
    }

    /// Disables the card and lets what it has in flight land, so nothing it started for
    /// an earlier client reaches memory mapped later.
    fn quiesce(&mut self, node: usize) {
        let dev = &self.nodes[node].dev;
        let _ = dev.bar_write32(nic::CTRL, 0);
        let _ = dev.bar_read32(nic::CTRL);
        // A disabled card takes no new descriptor but finishes the message it is
        // sending; it is done when no DMA has been in flight for a while (its payload
        // reads are back to back while a message is active).
        let end = self.cluster.cycles() + DRAIN_CYCLES;
        let mut quiet = 0;
        while quiet < QUIET_CYCLES && self.cluster.cycles() < end {
            self.cluster.step(1);
            quiet = if dev.host_quiet() { quiet + 1 } else { 0 };
        }
    }

    fn handle(&mut self, node: usize, op: Op) -> Result<u64, String> {
        let dev = self.nodes[node].dev.clone();
        match op {
            Op::BarRead(off) => Ok(match dev.bar_read32(off) {
                Ok(v) => u64::from(v),
                // What a real root complex returns for a read that is never answered.
                Err(_) => 0xFFFF_FFFF,
            }),
            Op::BarWrite(off, v) => dev
                .bar_write32(off, v)
                .map(|_| 0)
                .map_err(|e| e.to_string()),
            Op::SimRead(off) => {
                let c = &self.cluster;
                Ok(match off {
                    sim_regs::MAGIC => sim_regs::MAGIC_VALUE,
                    sim_regs::CYCLE => c.cycles(),
                    sim_regs::PERIOD_PS => c.config().clock_period_ps,
                    sim_regs::CLOCK => u64::from(self.clock == Clock::Free),
                    sim_regs::NODE => node as u64,
                    sim_regs::IOMMU_FAULTS => dev.iommu_faults().len() as u64,
                    sim_regs::MAPPED_BYTES => dev.external_bytes(),
                    sim_regs::BAD_REQUESTS => self.stats[node].bad_requests.load(Ordering::Relaxed),
                    sim_regs::IRQ_LINE => u64::from(dev.irq_line()),
                    _ => 0,
                })
            }
            Op::SimWrite(off, v) => {
                if v > sim_regs::MAX_STEP {
                    return Err(format!(
                        "step of {v} cycles (at most {})",
                        sim_regs::MAX_STEP
                    ));
                }
                match off {
                    sim_regs::STEP if self.driven() => self.cluster.step(v),
                    sim_regs::WAIT_IRQ if self.driven() => {
                        // Until the line rises: a line left high (status not cleared)
                        // is no new interrupt, as with MSI.
                        let end = self.cluster.cycles() + v;
                        let mut was = dev.irq_line();
                        while self.cluster.cycles() < end {
                            self.cluster.step(1);
                            let now = dev.irq_line();
                            if now && !was {
                                break;
                            }
                            was = now;
                        }
                    }
                    _ => {}
                }
                Ok(self.cluster.cycles())
            }
            Op::Map(iova, map) => dev
                .map_external(iova, Box::new(map))
                .map(|_| 0)
                .map_err(|e| e.to_string()),
            Op::Unmap(iova, len) => match dev.unmap_external(iova, len) {
                0 => Err(format!("nothing is mapped inside [{iova:#x}, +{len:#x})")),
                n => Ok(n),
            },
            Op::SetIrq(fd) => {
                self.nodes[node].eventfd = fd;
                // A line already high is reported to the new eventfd at once.
                self.nodes[node].irq_was = false;
                Ok(0)
            }
            Op::Reset => {
                self.quiesce(node);
                Ok(0)
            }
            Op::Attach => {
                self.attached += 1;
                Ok(0)
            }
            Op::Detach => {
                self.attached = self.attached.saturating_sub(1);
                self.quiesce(node);
                let n = &mut self.nodes[node];
                n.eventfd = None;
                n.dev.unmap_external(0, u64::MAX);
                Ok(0)
            }
        }
    }
}

// ---- the protocol side of one node ----

struct NodeBackend {
    node: usize,
    tx: Sender<Req>,
    stats: Arc<NodeStats>,
    config: [u8; CONFIG_SIZE as usize],
    /// The simulation counts this client as attached (from its first request on: the
    /// library gives no word when it accepts a connection).
    attached: bool,
}

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

impl NodeBackend {
    fn new(node: usize, tx: Sender<Req>, stats: Arc<NodeStats>) -> Self {
        let mut b = NodeBackend {
            node,
            tx,
            stats,
            config: [0; CONFIG_SIZE as usize],
            attached: false,
        };
        b.reset_config();
        b
    }

    /// Type-0 header of a network controller with a 32-bit BAR0 (the card) and BAR2
    /// (the simulation page), INTA, and one capability: MSI, one vector, 64-bit address
    /// (what a guest OS looks for before it falls back to INTx).
    fn reset_config(&mut self) {
        let c = &mut self.config;
        c.fill(0);
        c[0..2].copy_from_slice(&(PCI_VENDOR_ID as u16).to_le_bytes());
        c[2..4].copy_from_slice(&(PCI_DEVICE_ID as u16).to_le_bytes());
        c[0x0a] = 0x80; // subclass: other network controller
        c[0x0b] = 0x02; // class: network controller
        c[0x2c..0x2e].copy_from_slice(&(PCI_VENDOR_ID as u16).to_le_bytes());
        c[0x2e..0x30].copy_from_slice(&(PCI_DEVICE_ID as u16).to_le_bytes());
        c[0x3d] = 1;
        c[0x06] = 0x10; // status: capabilities list
        c[0x34] = msi_cap::OFFSET as u8;
        let m = msi_cap::OFFSET;
        c[m] = msi_cap::ID;
        c[m + 1] = 0; // last capability
        c[m + 2..m + 4].copy_from_slice(&msi_cap::CTRL_64BIT.to_le_bytes());
    }

    /// Whether the MSI capability is enabled (by a guest, or by SET_IRQS on the MSI index).
    fn msi_enabled(&self) -> bool {
        self.config[msi_cap::OFFSET + 2] & msi_cap::CTRL_ENABLE as u8 != 0
    }

    fn set_msi_enabled(&mut self, on: bool) {
        let o = msi_cap::OFFSET + 2;
        self.config[o] = (self.config[o] & !(msi_cap::CTRL_ENABLE as u8)) | u8::from(on);
    }

    fn config_write(&mut self, off: usize, data: &[u8]) {
        for (i, &b) in data.iter().enumerate() {
            let o = off + i;
            match o {
                // Command: memory space, bus master, INTx disable.
                0x04 => self.config[o] = b & 0x06,
                0x05 => self.config[o] = b & 0x04,
                0x3c => self.config[o] = b,
                // MSI control: only the enable bit; one vector, so Multiple Message
                // Enable stays 0, and the 64-bit bit is read-only.
                o if o == msi_cap::OFFSET + 2 => {
                    self.config[o] = (self.config[o] & !0x01) | (b & 0x01)
                }
                // Message address (dword aligned), upper address, data.
                o if o == msi_cap::OFFSET + 4 => self.config[o] = b & 0xfc,
                o if (msi_cap::OFFSET + 5..msi_cap::OFFSET + msi_cap::LEN).contains(&o) => {
                    self.config[o] = b
                }
                _ => {}
            }
        }
        // BARs: 32-bit memory BARs; writable bits are the ones above the size.
        for (bar, size) in [(0x10usize, BAR0_SIZE), (0x18, sim_regs::SIZE)] {
            if off < bar + 4 && off + data.len() > bar {
                let mut v = [0u8; 4];
                for (i, vb) in v.iter_mut().enumerate() {
                    let o = bar + i;
                    *vb = if o >= off && o < off + data.len() {
                        data[o - off]
                    } else {
                        self.config[o]
                    };
                }
                let addr = u32::from_le_bytes(v) & !(size as u32 - 1);
                self.config[bar..bar + 4].copy_from_slice(&addr.to_le_bytes());
            }
        }
    }

    fn call(&mut self, op: Op) -> io::Result<u64> {
        if !self.attached && !matches!(op, Op::Detach) {
            self.attached = true;
            self.send(Op::Attach)?;
        }
        self.send(op)
    }

    fn send(&self, op: Op) -> io::Result<u64> {
        let (reply, rx) = mpsc::sync_channel(1);
        let gone = || io::Error::new(io::ErrorKind::BrokenPipe, "the simulation thread stopped");
        self.tx
            .send(Req {
                node: self.node,
                op,
                reply,
            })
            .map_err(|_| gone())?;
        rx.recv()
            .map_err(|_| gone())?
            .map_err(|m| io::Error::new(io::ErrorKind::InvalidInput, m))
    }

    /// Counts a refused request; the library sends the error reply.
    fn refuse<T>(&self, e: io::Error) -> io::Result<T> {
        self.stats.bad_requests.fetch_add(1, Ordering::Relaxed);
        Err(e)
    }

    fn check_access(&self, region: u32, offset: u64, len: usize) -> io::Result<()> {
        let (size, widths): (u64, &[usize]) = match region {
            VFIO_PCI_BAR0_REGION_INDEX => (BAR0_SIZE, &[4]),
            VFIO_PCI_BAR2_REGION_INDEX => (sim_regs::SIZE, &[8]),
            VFIO_PCI_CONFIG_REGION_INDEX => (CONFIG_SIZE, &[1, 2, 4]),
            _ => return self.refuse(invalid(format!("region {region} has no registers"))),
        };
        let ok = widths.contains(&len)
            && offset.is_multiple_of(len as u64)
            && offset.checked_add(len as u64).is_some_and(|e| e <= size);
        if ok {
            Ok(())
        } else {
            self.refuse(invalid(format!(
                "region {region}: access of {len} bytes at {offset:#x} (size {size:#x}, widths {widths:?}, aligned)"
            )))
        }
    }
}

impl ServerBackend for NodeBackend {
    fn region_read(&mut self, region: u32, offset: u64, data: &mut [u8]) -> io::Result<()> {
        self.check_access(region, offset, data.len())?;
        match region {
            VFIO_PCI_BAR0_REGION_INDEX => {
                let v = self.call(Op::BarRead(offset as u32))? as u32;
                data.copy_from_slice(&v.to_le_bytes());
            }
            VFIO_PCI_BAR2_REGION_INDEX => {
                let v = self.call(Op::SimRead(offset))?;
                data.copy_from_slice(&v.to_le_bytes());
            }
            _ => {
                let o = offset as usize;
                data.copy_from_slice(&self.config[o..o + data.len()]);
            }
        }
        Ok(())
    }

    fn region_write(&mut self, region: u32, offset: u64, data: &[u8]) -> io::Result<()> {
        self.check_access(region, offset, data.len())?;
        let r = match region {
            VFIO_PCI_BAR0_REGION_INDEX => {
                let v = u32::from_le_bytes(data.try_into().expect("4 bytes, checked"));
                self.call(Op::BarWrite(offset as u32, v))
            }
            VFIO_PCI_BAR2_REGION_INDEX => {
                let v = u64::from_le_bytes(data.try_into().expect("8 bytes, checked"));
                self.call(Op::SimWrite(offset, v))
            }
            _ => {
                self.config_write(offset as usize, data);
                Ok(0)
            }
        };
        match r {
            Ok(_) => Ok(()),
            Err(e) => self.refuse(e),
        }
    }

    fn dma_map(
        &mut self,
        flags: DmaMapFlags,
        offset: u64,
        address: u64,
        size: u64,
        fd: Option<File>,
    ) -> io::Result<()> {
        let Some(fd) = fd else {
            return self.refuse(invalid(
                "DMA_MAP without a file descriptor: this server needs shared memory".into(),
            ));
        };
        if !flags.contains(DmaMapFlags::READ_WRITE) {
            return self.refuse(invalid("DMA_MAP must be readable and writable".into()));
        }
        if size == 0
            || size > MAX_MAP
            || !size.is_multiple_of(PAGE)
            || !offset.is_multiple_of(PAGE)
            || !address.is_multiple_of(PAGE)
        {
            return self.refuse(invalid(format!(
                "DMA_MAP of {size:#x} bytes at IOVA {address:#x}, file offset {offset:#x}: \
                 whole 4 KiB pages, at most {MAX_MAP:#x} bytes"
            )));
        }
        // Touching a mapping past the end of its file kills the server (SIGBUS).
        let file_len = shm::file_size(&fd)?;
        if offset.checked_add(size).is_none_or(|end| end > file_len) {
            return self.refuse(invalid(format!(
                "DMA_MAP of [{offset:#x}, +{size:#x}) of a {file_len:#x}-byte file"
            )));
        }
        let map = match SharedMap::new(&fd, offset, size as usize) {
            Ok(m) => m,
            Err(e) => return self.refuse(e),
        };
        match self.call(Op::Map(address, map)) {
            Ok(_) => Ok(()),
            Err(e) => self.refuse(e),
        }
    }

    fn dma_unmap(&mut self, _flags: DmaUnmapFlags, address: u64, size: u64) -> io::Result<()> {
        match self.call(Op::Unmap(address, size)) {
            Ok(_) => Ok(()),
            Err(e) => self.refuse(e),
        }
    }

    fn reset(&mut self) -> io::Result<()> {
        self.call(Op::Reset).map(|_| ())
    }

    fn set_irqs(
        &mut self,
        index: u32,
        flags: u32,
        start: u32,
        count: u32,
        mut fds: Vec<File>,
    ) -> io::Result<()> {
        if index != VFIO_PCI_MSI_IRQ_INDEX && index != VFIO_PCI_INTX_IRQ_INDEX {
            return self.refuse(invalid(format!("IRQ index {index} has no vectors")));
        }
        if flags & (VFIO_IRQ_SET_ACTION_MASK | VFIO_IRQ_SET_ACTION_UNMASK) != 0 {
            // INTx masking: the line is delivered as edges, nothing to mask.
            return Ok(());
        }
        if flags & VFIO_IRQ_SET_ACTION_TRIGGER == 0 || start != 0 || count > 1 {
            return self.refuse(invalid(format!(
                "SET_IRQS flags {flags:#x} start {start} count {count}: one trigger vector only"
            )));
        }
        let fd = if flags & VFIO_IRQ_SET_DATA_EVENTFD != 0 && count == 1 {
            match fds.pop() {
                Some(f) => Some(f),
                None => return self.refuse(invalid("SET_IRQS without its eventfd".into())),
            }
        } else if flags & VFIO_IRQ_SET_DATA_NONE != 0 || count == 0 {
            None
        } else {
            return self.refuse(invalid(format!("SET_IRQS data flags {flags:#x}")));
        };
        // As on a PCI function, MSI and INTx exclude each other: with MSI enabled the
        // card does not assert INTx.
        if index == VFIO_PCI_INTX_IRQ_INDEX && fd.is_some() && self.msi_enabled() {
            return self.refuse(invalid(
                "SET_IRQS INTx while MSI is enabled: disable MSI first (SET_IRQS MSI with no \
                 eventfd)"
                    .into(),
            ));
        }
        // Enabling the vector enables the capability, as the kernel's vfio-pci does on
        // a real function.
        if index == VFIO_PCI_MSI_IRQ_INDEX {
            self.set_msi_enabled(fd.is_some());
        }
        self.call(Op::SetIrq(fd)).map(|_| ())
    }
}
