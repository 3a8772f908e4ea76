//! One node of a simulated cluster as a [`Device`].

use std::cell::RefCell;
use std::rc::Rc;

use fasthsl_device::{Device, DeviceError, DmaBuffer, Pace};

use crate::cluster::{Cluster, Inner};
use crate::host::ExternalMemory;
use crate::IommuFault;

/// A simulated card: node `node` of a [`Cluster`]. Clones refer to the same card.
///
/// Every call that waits (BAR reads, `relax`, `wait_irq`) advances the whole cluster,
/// so the other nodes keep running while this one waits.
#[derive(Clone)]
pub struct SimDevice {
    inner: Rc<RefCell<Inner>>,
    node: usize,
}

impl SimDevice {
    pub(crate) fn new(inner: Rc<RefCell<Inner>>, node: usize) -> Self {
        SimDevice { inner, node }
    }

    /// The node this card belongs to.
    pub fn node(&self) -> usize {
        self.node
    }

    /// The cluster this card is part of.
    pub fn cluster(&self) -> Cluster {
        Cluster {
            inner: self.inner.clone(),
        }
    }

    /// Maps memory provided from outside the model (e.g. a vfio-user client's shared
    /// memory) for this card's DMA at bus address `iova`: page-aligned, whole pages, and
    /// clear of every other mapping of the node. The card's DMA inside it reads and
    /// writes `mem`; outside every mapping it stays an IOMMU fault.
    pub fn map_external(&self, iova: u64, mem: Box<dyn ExternalMemory>) -> Result<(), DeviceError> {
        self.inner.borrow_mut().hosts[self.node].map_external(iova, mem)
    }

    /// Unmaps the external mappings lying entirely inside `[iova, iova+len)`; returns the
    /// bytes unmapped (0 when none matched). DMA still in flight to them faults.
    pub fn unmap_external(&self, iova: u64, len: u64) -> u64 {
        self.inner.borrow_mut().hosts[self.node].unmap_external(iova, len)
    }

    /// Bytes of external memory currently mapped for this card.
    pub fn external_bytes(&self) -> u64 {
        self.inner.borrow().hosts[self.node].external_bytes()
    }

    /// Whether this card's interrupt line is high.
    pub fn irq_line(&self) -> bool {
        self.inner.borrow().hosts[self.node].irq
    }

    /// The DMAs of this card the IOMMU refused so far.
    pub fn iommu_faults(&self) -> Vec<IommuFault> {
        self.inner.borrow().hosts[self.node].faults.clone()
    }

    /// True when nothing is in flight between this card and its host (MMIO, DMA).
    pub fn host_quiet(&self) -> bool {
        self.inner.borrow().hosts[self.node].quiet()
    }
}

impl std::fmt::Debug for SimDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimDevice")
            .field("node", &self.node)
            .finish_non_exhaustive()
    }
}

impl Device for SimDevice {
    fn name(&self) -> String {
        format!("sim node {}", self.node)
    }

    fn bar_read32(&self, offset: u32) -> Result<u32, DeviceError> {
        self.inner.borrow_mut().mmio_read(self.node, offset)
    }

    fn bar_write32(&self, offset: u32, value: u32) -> Result<(), DeviceError> {
        self.inner.borrow_mut().mmio_write(self.node, offset, value)
    }

    fn dma_alloc(&self, len: usize) -> Result<DmaBuffer, DeviceError> {
        let mut inner = self.inner.borrow_mut();
        // Ids are unique across the cluster, so another node's handle is never mistaken
        // for one of ours.
        let id = inner.next_buf_id;
        inner.next_buf_id += 1;
        inner.hosts[self.node].alloc(id, len)
    }

    fn dma_free(&self, buf: DmaBuffer) -> Result<(), DeviceError> {
        self.inner.borrow_mut().hosts[self.node].free(buf)
    }

    fn mem_write(&self, buf: &DmaBuffer, offset: usize, data: &[u8]) -> Result<(), DeviceError> {
        self.inner.borrow_mut().hosts[self.node].mem_write(buf, offset, data)
    }

    fn mem_read(&self, buf: &DmaBuffer, offset: usize, out: &mut [u8]) -> Result<(), DeviceError> {
        self.inner.borrow().hosts[self.node].mem_read(buf, offset, out)
    }

    fn relax(&self, pace: Pace) {
        match pace {
            Pace::Step => self.inner.borrow_mut().step_one(),
        }
    }

    fn wait_irq(&self, timeout_ns: u64) -> Result<bool, DeviceError> {
        let mut inner = self.inner.borrow_mut();
        let end = inner
            .cycle
            .saturating_add(inner.ns_to_cycles_ceil(timeout_ns));
        loop {
            if inner.hosts[self.node].irq {
                return Ok(true);
            }
            if inner.cycle >= end {
                return Ok(false);
            }
            inner.step_one();
        }
    }

    fn now_ns(&self) -> u64 {
        self.inner.borrow().now_ns()
    }

    fn cycles(&self) -> Option<u64> {
        Some(self.inner.borrow().cycle)
    }
}
