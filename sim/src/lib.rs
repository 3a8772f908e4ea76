//! Cycle-accurate simulation of a FastHSL cluster.
//!
//! The real RTL (the DDC NIC and the RCUBE router), Verilated once at build time, is
//! instantiated per node and per router and wired as a [`Topology`] says, all in one
//! thread and one clock domain. Each node also gets a modeled host: DMA memory behind an
//! IOMMU and a PCIe link with fixed latencies. [`SimDevice`] exposes one node as a
//! [`fasthsl_device::Device`], so the driver runs unchanged on a simulated cluster.
//!
//! # Timing model (defaults from [`SimConfig`])
//! - Core clock 250 MHz: one [`Cluster::step`] cycle is 4 ns of modeled time.
//! - DMA read: the first beat reaches the card 125 cycles (500 ns) after its request
//!   was accepted, then one beat per cycle as the card takes them; answers come in
//!   request order; at most 32 reads are outstanding (request `ready` drops otherwise).
//! - DMA write: one beat per cycle is accepted and lands in host memory 62 cycles
//!   (250 ns) later, in order.
//! - MMIO: a BAR write is posted and reaches the card 62 cycles later (in order, one
//!   per cycle); a BAR read queues behind earlier writes and returns after a full
//!   round trip (125 cycles when the queue is empty), the call advancing the cluster.
//! - Links: what a model drives after clock edge t is what its neighbour samples at
//!   edge t+1, i.e. a plain wire between registered outputs and the next inputs.
//!
//! Everything is deterministic: the same calls give the same cycle counts and data.
//!
//! # Link faults
//! [`SimConfig::faults`] (or [`Cluster::set_link_faults`] at run time) injects faults on
//! chosen directed links: bit errors at a bit error rate over each flit's data and
//! control bits, dropped flits, and cuts of N cycles from cycle C, optionally hitting
//! credit pulses too. Each link draws from its own random stream derived from one seed,
//! so a run with faults repeats bit for bit. [`Cluster::link_faults`] counts what was
//! injected per link (flits corrupted, bits flipped, flits dropped or cut, cycles cut,
//! credits lost and restored). The model, including what a flipped `valid`, `last` or
//! `err` bit does and what happens to the credits of lost flits, is in [`faults`].
//! Without faults the cycle loop pays one branch.
//!
//! [`traffic`] is a separate harness: synthetic traffic generators and sinks at the
//! node ports of router models only (no NICs), for the router benchmark.
//!
//! # Speed
//! A model whose inputs did not change and whose state did not move in the last cycle
//! is not evaluated again ([`SimConfig::skip_idle`]; exact). Idle clusters and cards
//! waiting on the modeled PCIe latencies therefore run at millions of cycles per
//! second; cycles in which every link is busy cost a full evaluation of every model.
//! Tests run in the dev profile, but the Verilated C++ is always built with `-O2`.
#![warn(missing_docs)]

mod cluster;
mod device;
pub mod faults;
mod ffi;
mod host;
pub mod traffic;
mod wiring;

use std::path::PathBuf;

pub use cluster::Cluster;
pub use device::SimDevice;
pub use fasthsl_topology::Topology;
pub use faults::{FaultConfig, FaultCounters, FaultSpec, LinkCut, LinkFaults, LinkSelector};
pub use host::ExternalMemory;

/// Parameters of the modeled host, PCIe link and clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimConfig {
    /// Core clock period in picoseconds (4000: 250 MHz).
    pub clock_period_ps: u64,
    /// DMA read round trip: request accepted to first data beat at the card.
    pub dma_read_rtt_ns: u64,
    /// One-way latency of a posted write (card's DMA write to host memory, host's BAR
    /// write to the card).
    pub posted_write_ns: u64,
    /// DMA reads a card may have outstanding.
    pub max_dma_reads: usize,
    /// Host memory per node available to `dma_alloc` (whole pages are counted).
    pub host_mem_bytes: usize,
    /// Clock cycles the reset is held for at start-up.
    pub reset_cycles: u32,
    /// Skip evaluating a model in cycles that cannot change it: its inputs are the same
    /// as in the previous cycle, and that cycle left its complete state byte-for-byte
    /// unchanged (a fixed point). Exact, so results are identical either way; idle and
    /// waiting models then cost almost nothing. Off only to cross-check that claim.
    /// Trace builds never skip.
    pub skip_idle: bool,
    /// If set, every model writes an FST waveform (`nicN.fst`, `routerN.fst`) into this
    /// directory. Needs the crate feature `trace`; without it, [`Cluster::new`] fails
    /// with [`SimError::TraceUnavailable`].
    pub trace_dir: Option<PathBuf>,
    /// Link faults to inject (default: none, and no cost).
    pub faults: FaultConfig,
    /// Give every node the same IOVA window (node 0's) instead of disjoint ones, so
    /// buffers allocated in the same order sit at the same bus address on every node:
    /// what a hardware broadcast (one remote address for all receivers) needs. Off by
    /// default: disjoint windows make an address used on the wrong node fault.
    pub shared_iova: bool,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            clock_period_ps: 4000,
            dma_read_rtt_ns: 500,
            posted_write_ns: 250,
            max_dma_reads: 32,
            host_mem_bytes: 256 << 20,
            reset_cycles: 8,
            skip_idle: true,
            trace_dir: None,
            faults: FaultConfig::default(),
            shared_iova: false,
        }
    }
}

impl SimConfig {
    /// Whole cycles of `ns` nanoseconds (rounded down, at least one).
    pub fn ns_to_cycles(&self, ns: u64) -> u64 {
        (ns.saturating_mul(1000) / self.clock_period_ps).max(1)
    }
}

/// Errors building or running a simulated cluster.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// A [`SimConfig`] value is out of range.
    #[error("invalid simulation setting: {0}")]
    Config(String),
    /// `trace_dir` was set but the crate was built without FST support.
    #[error(
        "waveform tracing needs fasthsl-sim built with the `trace` feature \
         (e.g. cargo test -p fasthsl-sim --features trace)"
    )]
    TraceUnavailable,
    /// A trace file could not be created.
    #[error("cannot write waveform {path}: {source}")]
    Trace {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The compiled models do not match this crate's view of their interface.
    #[error("the Verilated models do not match fasthsl-sim ({0}); rebuild the crate")]
    Abi(String),
}

/// A card DMA that the modeled IOMMU refused: not entirely inside a live buffer's
/// mapped pages. The access was not performed (reads returned zeros).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IommuFault {
    /// Node whose card made the access.
    pub node: usize,
    /// Cycle the access was checked (read: request accepted; write: landing).
    pub cycle: u64,
    /// First byte accessed (bus address).
    pub addr: u64,
    /// Bytes accessed.
    pub len: u64,
    /// Write (true) or read (false).
    pub write: bool,
}

/// A card breaking the DMA port rules (e.g. a 0-beat read, an unaligned address).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Node whose card did it.
    pub node: usize,
    /// Cycle it happened.
    pub cycle: u64,
    /// What was wrong.
    pub what: String,
}

/// One flit seen on a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flit {
    /// Cycle (clock edge) after which the sender drove it.
    pub cycle: u64,
    /// Last flit of its packet.
    pub last: bool,
    /// Exceptional end of packet (EEP).
    pub err: bool,
    /// Payload.
    pub data: u64,
}

/// One end of a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Endpoint {
    /// A node's NIC.
    Nic(usize),
    /// A router port: (router, port).
    Router(usize, usize),
}

/// Flits sent one way over one link since start-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkFlits {
    /// Sending end.
    pub from: Endpoint,
    /// Receiving end.
    pub to: Endpoint,
    /// Valid flits sent.
    pub flits: u64,
}
