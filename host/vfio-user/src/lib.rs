//! The simulated FastHSL card as a separate process, reached over vfio-user.
//!
//! [`Server`] runs a simulated cluster (`fasthsl-sim`) and serves every node's card on
//! its own UNIX socket with the vfio-user protocol (rust-vmm's `vfio_user` crate), in the
//! same model as a kernel VFIO device:
//! - region 0 (BAR0, `BAR0_SIZE` bytes): 32-bit reads and writes go to the card's CSRs
//!   (NIC page, router page) with the simulator's MMIO timing;
//! - region 7: PCI config space with the contract's vendor and device ids and an MSI
//!   capability (one vector, 64-bit address; [`msi_cap`]);
//! - region 2 (BAR2, 4 KiB): the simulation's control page ([`sim_regs`]): clock,
//!   stepping, IOMMU fault count. A real card has no BAR2; only the simulated one does;
//! - `DMA_MAP` with a file descriptor: the server maps the client's memory and the card's
//!   DMA reaches it by IOVA; DMA anywhere else is an IOMMU fault (counted, not performed);
//! - `SET_IRQS` (MSI or INTx, one vector): the card's interrupt line is delivered on the
//!   client's eventfd, one signal per rising edge. Routing the MSI vector sets the MSI
//!   capability's enable bit; INTx is refused while MSI is enabled.
//!
//! [`VfioUserDevice`] is the matching [`fasthsl_device::Device`] backend: DMA buffers in
//! a sealed memfd mapped locally and `DMA_MAP`ped at IOVAs it chooses, interrupts on an
//! eventfd: MSI when the config space advertises the capability, INTx otherwise. `fasthsl_driver::Card` runs on it unchanged.
//!
//! # Time
//! With [`Clock::Driven`] (default) the simulation advances only when a client asks for
//! it: a BAR0 read waits for its modeled round trip, and the client's `relax` and
//! `wait_irq` write the control page's `STEP` and `WAIT_IRQ` registers. With one client,
//! a run is as deterministic as the in-process simulator (same calls, same cycles). With
//! several clients (one cluster, several processes) the order in which their requests
//! reach the simulation depends on the OS scheduler, so cycle counts vary from run to run
//! (data and ordering guarantees do not). [`Clock::Free`] runs the clock continuously
//! while any client is attached: what a guest OS needs, as it polls memory without
//! telling the device; modeled time then has no relation to the guest's requests.

mod client;
mod server;
mod shm;

use std::path::{Path, PathBuf};

pub use client::{VfioUserConfig, VfioUserDevice};
pub use server::{msi_cap, Clock, NodeStats, ServeConfig, Server};

/// The simulation control page (region 2, BAR2): 64-bit little-endian registers,
/// accessed 8 bytes at a time. Only the simulated card has it.
pub mod sim_regs {
    /// Size of the region.
    pub const SIZE: u64 = 0x1000;
    /// (ro) [`MAGIC_VALUE`].
    pub const MAGIC: u64 = 0x00;
    /// "FSIM".
    pub const MAGIC_VALUE: u64 = 0x4653_494d;
    /// (ro) Clock cycles since the cluster came out of reset.
    pub const CYCLE: u64 = 0x08;
    /// (ro) Clock period in picoseconds.
    pub const PERIOD_PS: u64 = 0x10;
    /// (ro) 0: driven clock, 1: free-running clock.
    pub const CLOCK: u64 = 0x18;
    /// (ro) This socket's node number.
    pub const NODE: u64 = 0x20;
    /// (ro) DMAs of this node's card the IOMMU refused since the server started.
    pub const IOMMU_FAULTS: u64 = 0x28;
    /// (ro) Bytes of client memory mapped for this node's card.
    pub const MAPPED_BYTES: u64 = 0x30;
    /// (wo) Advance the whole cluster by this many cycles (driven clock; at most
    /// [`MAX_STEP`]; ignored when the clock runs freely).
    pub const STEP: u64 = 0x38;
    /// (wo) Advance until this node's interrupt line rises, for at most this many
    /// cycles (at most [`MAX_STEP`]); the eventfd is signalled before the reply.
    pub const WAIT_IRQ: u64 = 0x40;
    /// (ro) Malformed or refused requests on this node's socket since the server started.
    pub const BAD_REQUESTS: u64 = 0x48;
    /// (ro) Interrupt line level.
    pub const IRQ_LINE: u64 = 0x50;
    /// Largest `STEP` / `WAIT_IRQ` argument: 2^32 cycles (17 s of modeled time).
    pub const MAX_STEP: u64 = 1 << 32;
}

/// Errors of the server and the client backend.
#[derive(Debug, thiserror::Error)]
pub enum VfioUserError {
    /// A socket path or pattern that cannot be used.
    #[error("socket path {path}: {why}")]
    SocketPath {
        /// The path.
        path: PathBuf,
        /// What is wrong and what to do.
        why: String,
    },
    /// The protocol library failed (connect, bind, a message).
    #[error("{what}: {source}")]
    Protocol {
        /// What was being done.
        what: String,
        /// The library's error.
        #[source]
        source: vfio_user::Error,
    },
    /// An operating-system call failed.
    #[error("{what}: {source}")]
    Os {
        /// What was being done.
        what: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The simulated cluster could not be built.
    #[error("cannot start the simulation: {0}")]
    Sim(#[from] fasthsl_sim::SimError),
    /// The device behind the socket is not what was expected.
    #[error("{0}")]
    Device(String),
}

/// The socket of every node for `nodes` nodes from `spec`:
/// - one node: `spec` itself, unless it contains `{node}`, which becomes `0`;
/// - several nodes: `spec` with `{node}` replaced by the node number, or, without
///   `{node}`, a directory (created if missing) holding `node0.sock`, `node1.sock`, ...
pub fn socket_paths(spec: &Path, nodes: usize) -> Result<Vec<PathBuf>, VfioUserError> {
    let s = spec.to_str().ok_or_else(|| VfioUserError::SocketPath {
        path: spec.to_path_buf(),
        why: "not valid UTF-8".into(),
    })?;
    if s.is_empty() {
        return Err(VfioUserError::SocketPath {
            path: spec.to_path_buf(),
            why: "empty".into(),
        });
    }
    if s.contains("{node}") {
        return Ok((0..nodes)
            .map(|n| PathBuf::from(s.replace("{node}", &n.to_string())))
            .collect());
    }
    if nodes == 1 && !spec.is_dir() {
        return Ok(vec![spec.to_path_buf()]);
    }
    std::fs::create_dir_all(spec).map_err(|source| VfioUserError::SocketPath {
        path: spec.to_path_buf(),
        why: format!("several nodes need a directory or a pattern with {{node}} ({source})"),
    })?;
    Ok((0..nodes)
        .map(|n| spec.join(format!("node{n}.sock")))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn socket_paths_follow_the_documented_rules() {
        let one = socket_paths(Path::new("/tmp/x.sock"), 1).unwrap();
        assert_eq!(one, vec![PathBuf::from("/tmp/x.sock")]);
        let pat = socket_paths(Path::new("/run/fh-{node}.sock"), 3).unwrap();
        assert_eq!(pat[2], PathBuf::from("/run/fh-2.sock"));
        assert_eq!(pat.len(), 3);
        let dir = std::env::temp_dir().join(format!("fh-sockdir-{}", std::process::id()));
        let d = socket_paths(&dir, 2).unwrap();
        assert!(dir.is_dir());
        assert_eq!(d[1], dir.join("node1.sock"));
        // One node and an existing directory: a socket inside it.
        assert_eq!(socket_paths(&dir, 1).unwrap(), vec![dir.join("node0.sock")]);
        std::fs::remove_dir(&dir).unwrap();
        assert!(socket_paths(Path::new(""), 1).is_err());
    }
}
