//! One node's host: DMA memory behind an IOMMU, and the PCIe queues between the host
//! and its card (MMIO requests, DMA reads in flight, posted DMA writes).

use std::collections::{BTreeMap, VecDeque};

use fasthsl_device::{DeviceError, DmaBuffer};

use crate::{IommuFault, Violation};

/// Mapping granularity of the modeled IOMMU.
pub(crate) const PAGE: u64 = 4096;
/// IOVA window of each node; nodes get disjoint windows so an address used on the wrong
/// node faults instead of silently landing in some other buffer.
const IOVA_WINDOW: u64 = 1 << 32;

/// Host memory the model does not own, mapped for the card at a bus address chosen by
/// someone else: e.g. a vfio-user client's shared memory (`DMA_MAP` with a file
/// descriptor). The card's DMA reads and writes go through these two calls, in order,
/// from the simulation thread.
pub trait ExternalMemory {
    /// Bytes the mapping covers.
    fn len(&self) -> usize;
    /// True for an empty mapping (never mapped: [`SimDevice::map_external`] refuses it).
    ///
    /// [`SimDevice::map_external`]: crate::SimDevice::map_external
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Copies `out.len()` bytes at `offset` (always inside the mapping) into `out`.
    fn read(&self, offset: usize, out: &mut [u8]);
    /// Copies `data` to `offset` (always inside the mapping).
    fn write(&mut self, offset: usize, data: &[u8]);
}

/// Where a mapped region's bytes live.
enum Backing {
    /// Allocated by `dma_alloc`: the model's own memory.
    Owned(Vec<u8>),
    /// Mapped with `map_external`.
    External(Box<dyn ExternalMemory>),
}

/// A live DMA mapping: `size` bytes (whole pages) at its IOVA; `len` is what was asked
/// for (owned buffers) or `size` (external mappings).
struct Region {
    id: u64,
    len: usize,
    size: usize,
    backing: Backing,
}

impl Region {
    fn read(&self, offset: usize, out: &mut [u8]) {
        match &self.backing {
            Backing::Owned(v) => out.copy_from_slice(&v[offset..offset + out.len()]),
            Backing::External(m) => m.read(offset, out),
        }
    }

    fn write(&mut self, offset: usize, data: &[u8]) {
        match &mut self.backing {
            Backing::Owned(v) => v[offset..offset + data.len()].copy_from_slice(data),
            Backing::External(m) => m.write(offset, data),
        }
    }
}

/// Where an MMIO access goes on the card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// NIC CSR port, 12-bit offset.
    Nic,
    /// Config port of the router(s) this node manages, 12-bit offset.
    Router,
}

/// An MMIO request travelling to the card.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mmio {
    pub arrive_at: u64,
    pub target: Target,
    pub addr: u16,
    /// `Some(value)` for a write, `None` for a read.
    pub wdata: Option<u32>,
    pub token: u64,
}

/// A DMA read accepted from the card and not yet fully answered.
#[derive(Debug, Clone, Copy)]
struct PendingRead {
    ready_at: u64,
    addr: u64,
    beats: u8,
    sent: u8,
    tag: u8,
    /// Already recorded as a fault; its beats are zeros.
    faulted: bool,
}

/// A DMA write beat accepted from the card, landing in memory at `apply_at`.
#[derive(Debug, Clone, Copy)]
struct PendingWrite {
    apply_at: u64,
    addr: u64,
    data: u64,
    strb: u8,
}

/// The beat the host offers on the read-response channel this cycle.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Beat {
    pub data: u64,
    pub tag: u8,
    pub last: bool,
    /// The IOMMU refused the read: the beat is an error response (zeros).
    pub err: bool,
}

/// Host side of one node.
pub(crate) struct Host {
    node: usize,
    regions: BTreeMap<u64, Region>,
    next_iova: u64,
    iova_end: u64,
    mem_used: usize,
    mem_limit: usize,
    reads: VecDeque<PendingRead>,
    writes: VecDeque<PendingWrite>,
    pub mmio: VecDeque<Mmio>,
    /// Tokens of reads sent to the NIC CSR port, in order.
    pub nic_reads: VecDeque<u64>,
    /// Completed MMIO read: (token, cycle the value is back at the CPU, value).
    pub mmio_done: Option<(u64, u64, u32)>,
    pub next_token: u64,
    pub irq: bool,
    pub faults: Vec<IommuFault>,
    pub violations: Vec<Violation>,
}

impl Host {
    pub(crate) fn new(node: usize, mem_limit: usize, shared_iova: bool) -> Self {
        let base = IOVA_WINDOW * if shared_iova { 1 } else { node as u64 + 1 };
        Host {
            node,
            regions: BTreeMap::new(),
            next_iova: base,
            iova_end: base + IOVA_WINDOW,
            mem_used: 0,
            mem_limit,
            reads: VecDeque::new(),
            writes: VecDeque::new(),
            mmio: VecDeque::new(),
            nic_reads: VecDeque::new(),
            mmio_done: None,
            next_token: 0,
            irq: false,
            faults: Vec::new(),
            violations: Vec::new(),
        }
    }

    // ---- buffers ----

    /// Zeroed, page-aligned memory; IOVAs are never reused and each buffer is followed
    /// by an unmapped guard page, so overruns and use-after-free show up as faults.
    pub(crate) fn alloc(&mut self, id: u64, len: usize) -> Result<DmaBuffer, DeviceError> {
        let mapped = (len as u64).max(1).div_ceil(PAGE) * PAGE;
        if self.mem_used as u64 + mapped > self.mem_limit as u64 {
            return Err(DeviceError::OutOfMemory {
                len,
                reason: format!(
                    "simulated host memory of node {} is {:#x} bytes, {:#x} in use (SimConfig::host_mem_bytes)",
                    self.node, self.mem_limit, self.mem_used
                ),
            });
        }
        let iova = self.next_iova;
        if iova + mapped + PAGE > self.iova_end {
            return Err(DeviceError::OutOfMemory {
                len,
                reason: format!("IOVA window of node {} is exhausted", self.node),
            });
        }
        if self.overlaps(iova, mapped + PAGE) {
            return Err(DeviceError::OutOfMemory {
                len,
                reason: format!(
                    "IOVA window of node {} is taken by external mappings",
                    self.node
                ),
            });
        }
        self.next_iova = iova + mapped + PAGE;
        self.mem_used += mapped as usize;
        self.regions.insert(
            iova,
            Region {
                id,
                len,
                size: mapped as usize,
                backing: Backing::Owned(vec![0; mapped as usize]),
            },
        );
        Ok(DmaBuffer::new(id, iova, len))
    }

    /// Whether any live mapping touches `[iova, iova+len)`.
    fn overlaps(&self, iova: u64, len: u64) -> bool {
        let end = iova.saturating_add(len);
        self.regions
            .range(..end)
            .next_back()
            .is_some_and(|(&base, r)| base + r.size as u64 > iova)
    }

    /// Maps `mem` for the card at `iova` (page-aligned, whole pages, clear of every other
    /// mapping). Owned by the caller's side: `free` and the `mem_*` calls refuse it.
    pub(crate) fn map_external(
        &mut self,
        iova: u64,
        mem: Box<dyn ExternalMemory>,
    ) -> Result<(), DeviceError> {
        let size = mem.len();
        let bad = |why: &str| {
            Err(DeviceError::Backend(format!(
                "cannot map {size:#x} bytes at IOVA {iova:#x}: {why}"
            )))
        };
        if size == 0 || !(size as u64).is_multiple_of(PAGE) || !iova.is_multiple_of(PAGE) {
            return bad("address and size must be whole 4 KiB pages");
        }
        if iova.checked_add(size as u64).is_none() {
            return bad("the range wraps around");
        }
        if self.overlaps(iova, size as u64) {
            return bad("it overlaps a live mapping");
        }
        self.regions.insert(
            iova,
            Region {
                // Never matches a DmaBuffer id (those start at 1).
                id: 0,
                len: size,
                size,
                backing: Backing::External(mem),
            },
        );
        Ok(())
    }

    /// Unmaps every external mapping lying entirely inside `[iova, iova+len)`; returns
    /// how many bytes were unmapped (0: nothing matched).
    pub(crate) fn unmap_external(&mut self, iova: u64, len: u64) -> u64 {
        let end = iova.saturating_add(len);
        let gone: Vec<u64> = self
            .regions
            .range(iova..end)
            .filter(|(&base, r)| {
                matches!(r.backing, Backing::External(_)) && base + r.size as u64 <= end
            })
            .map(|(&base, _)| base)
            .collect();
        gone.iter()
            .filter_map(|base| self.regions.remove(base))
            .map(|r| r.size as u64)
            .sum()
    }

    /// Bytes of external memory mapped.
    pub(crate) fn external_bytes(&self) -> u64 {
        self.regions
            .values()
            .filter(|r| matches!(r.backing, Backing::External(_)))
            .map(|r| r.size as u64)
            .sum()
    }

    fn region_of(&self, buf: &DmaBuffer) -> Result<&Region, DeviceError> {
        match self.regions.get(&buf.iova()) {
            Some(r)
                if r.id == buf.id()
                    && r.len == buf.len()
                    && matches!(r.backing, Backing::Owned(_)) =>
            {
                Ok(r)
            }
            _ => Err(DeviceError::UnknownBuffer { iova: buf.iova() }),
        }
    }

    pub(crate) fn free(&mut self, buf: DmaBuffer) -> Result<(), DeviceError> {
        self.region_of(&buf)?;
        let r = self.regions.remove(&buf.iova()).expect("checked above");
        self.mem_used -= r.size;
        Ok(())
    }

    pub(crate) fn mem_write(
        &mut self,
        buf: &DmaBuffer,
        offset: usize,
        data: &[u8],
    ) -> Result<(), DeviceError> {
        self.region_of(buf)?;
        buf.check(offset, data.len())?;
        let r = self.regions.get_mut(&buf.iova()).expect("checked above");
        r.write(offset, data);
        Ok(())
    }

    pub(crate) fn mem_read(
        &self,
        buf: &DmaBuffer,
        offset: usize,
        out: &mut [u8],
    ) -> Result<(), DeviceError> {
        let r = self.region_of(buf)?;
        buf.check(offset, out.len())?;
        r.read(offset, out);
        Ok(())
    }

    /// The mapped region holding all of `[addr, addr+len)`, as (iova, region).
    fn mapped(&self, addr: u64, len: u64) -> Option<(u64, &Region)> {
        let (&base, r) = self.regions.range(..=addr).next_back()?;
        let end = addr.checked_add(len)?;
        (end <= base + r.size as u64).then_some((base, r))
    }

    fn fault(&mut self, cycle: u64, addr: u64, len: u64, write: bool) {
        self.faults.push(IommuFault {
            node: self.node,
            cycle,
            addr,
            len,
            write,
        });
    }

    fn violation(&mut self, cycle: u64, what: String) {
        self.violations.push(Violation {
            node: self.node,
            cycle,
            what,
        });
    }

    // ---- DMA reads ----

    pub(crate) fn reads_in_flight(&self) -> usize {
        self.reads.len()
    }

    /// The card's read request was accepted in cycle `now`.
    pub(crate) fn accept_read(&mut self, now: u64, rtt: u64, addr: u64, beats: u8, tag: u8) {
        if !(1..=32).contains(&beats) {
            // Nothing sensible to answer; dropping it makes the card's bug visible.
            self.violation(
                now,
                format!("DMA read of {beats} beats at {addr:#x} (1..=32 allowed)"),
            );
            return;
        }
        if addr & 7 != 0 {
            self.violation(
                now,
                format!("DMA read address {addr:#x} is not 8-byte aligned"),
            );
        }
        let addr = addr & !7;
        let len = u64::from(beats) * 8;
        let faulted = self.mapped(addr, len).is_none();
        if faulted {
            self.fault(now, addr, len, false);
        }
        self.reads.push_back(PendingRead {
            ready_at: now + rtt,
            addr,
            beats,
            sent: 0,
            tag,
            faulted,
        });
    }

    /// The beat to offer this cycle, if one is due. Data is read from memory when the
    /// beat is delivered, after every earlier DMA write has landed (PCIe ordering: a
    /// read does not pass earlier posted writes).
    pub(crate) fn read_beat(&mut self, now: u64) -> Option<Beat> {
        let head = *self.reads.front()?;
        if head.ready_at > now {
            return None;
        }
        let addr = head.addr + u64::from(head.sent) * 8;
        let data = if head.faulted {
            0
        } else if let Some((base, r)) = self.mapped(addr, 8) {
            let mut b = [0u8; 8];
            r.read((addr - base) as usize, &mut b);
            u64::from_le_bytes(b)
        } else {
            // Unmapped between request and completion (buffer freed in flight).
            self.fault(now, head.addr, u64::from(head.beats) * 8, false);
            self.reads.front_mut().expect("head exists").faulted = true;
            0
        };
        let err = self.reads.front().expect("head exists").faulted;
        Some(Beat {
            data,
            tag: head.tag,
            last: head.sent + 1 == head.beats,
            err,
        })
    }

    /// The offered beat was taken by the card.
    pub(crate) fn beat_taken(&mut self) {
        let head = self.reads.front_mut().expect("a beat was offered");
        head.sent += 1;
        if head.sent == head.beats {
            self.reads.pop_front();
        }
    }

    // ---- DMA writes ----

    pub(crate) fn accept_write(&mut self, now: u64, delay: u64, addr: u64, data: u64, strb: u8) {
        if addr & 7 != 0 {
            self.violation(
                now,
                format!("DMA write address {addr:#x} is not 8-byte aligned"),
            );
        }
        self.writes.push_back(PendingWrite {
            apply_at: now + delay,
            addr: addr & !7,
            data,
            strb,
        });
    }

    /// Lands every write due by `now` in memory, in order.
    pub(crate) fn apply_writes(&mut self, now: u64) {
        while let Some(w) = self.writes.front().copied() {
            if w.apply_at > now {
                break;
            }
            self.writes.pop_front();
            if w.strb == 0 {
                continue;
            }
            let lo = w.strb.trailing_zeros() as u64;
            let hi = 8 - w.strb.leading_zeros() as u64;
            let (start, len) = (w.addr + lo, hi - lo);
            let Some((base, _)) = self.mapped(start, len) else {
                self.fault(now, start, len, true);
                continue;
            };
            let r = self.regions.get_mut(&base).expect("just found");
            let o = (w.addr - base) as usize;
            let bytes = w.data.to_le_bytes();
            // Only strobed bytes are stored, one contiguous run at a time: shared memory
            // may have its other bytes written by the CPU meanwhile.
            let mut i = 0;
            while i < 8 {
                if w.strb & (1 << i) == 0 {
                    i += 1;
                    continue;
                }
                let run = (w.strb >> i).trailing_ones() as usize;
                r.write(o + i, &bytes[i..i + run]);
                i += run;
            }
        }
    }

    /// Nothing in flight between this host and its card.
    pub(crate) fn quiet(&self) -> bool {
        self.reads.is_empty() && self.writes.is_empty() && self.mmio.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host_with_buf(len: usize) -> (Host, DmaBuffer) {
        let mut h = Host::new(0, 1 << 20, false);
        let b = h.alloc(1, len).unwrap();
        (h, b)
    }

    #[test]
    fn buffers_are_page_aligned_zeroed_and_guarded() {
        let mut h = Host::new(2, 1 << 20, false);
        let a = h.alloc(1, 100).unwrap();
        let b = h.alloc(2, 4096).unwrap();
        assert_eq!(a.iova() % PAGE, 0);
        assert_eq!(a.iova(), 3 << 32, "node 2's window");
        // One mapped page for `a`, then an unmapped guard page.
        assert_eq!(b.iova(), a.iova() + 2 * PAGE);
        let mut out = [0xAAu8; 100];
        h.mem_read(&a, 0, &mut out).unwrap();
        assert!(out.iter().all(|&x| x == 0));
        assert!(
            h.mapped(a.iova() + 4088, 8).is_some(),
            "whole page is mapped"
        );
        assert!(
            h.mapped(a.iova() + 4090, 8).is_none(),
            "runs into the guard page"
        );
    }

    #[test]
    fn handles_are_checked() {
        let (mut h, b) = host_with_buf(64);
        assert!(matches!(
            h.mem_write(&b, 60, &[0; 8]),
            Err(DeviceError::DmaBounds { .. })
        ));
        let forged = DmaBuffer::new(99, b.iova(), b.len());
        assert!(matches!(
            h.mem_write(&forged, 0, &[1]),
            Err(DeviceError::UnknownBuffer { .. })
        ));
        let again = DmaBuffer::new(b.id(), b.iova(), b.len());
        h.free(b).unwrap();
        assert!(matches!(
            h.free(again),
            Err(DeviceError::UnknownBuffer { .. })
        ));
        assert!(matches!(
            h.alloc(3, 2 << 20),
            Err(DeviceError::OutOfMemory { .. })
        ));
    }

    #[test]
    fn strobed_writes_land_late_and_in_order() {
        let (mut h, b) = host_with_buf(64);
        let a = b.iova();
        h.accept_write(10, 62, a, 0x1111_1111_1111_1111, 0xFF);
        h.accept_write(11, 62, a, 0x2222_2222_2222_2222, 0x0C);
        h.apply_writes(71);
        assert_eq!(h.writes.len(), 2, "nothing lands before 62 cycles");
        h.apply_writes(72);
        let mut w = [0u8; 8];
        h.mem_read(&b, 0, &mut w).unwrap();
        assert_eq!(u64::from_le_bytes(w), 0x1111_1111_1111_1111);
        h.apply_writes(73);
        h.mem_read(&b, 0, &mut w).unwrap();
        assert_eq!(u64::from_le_bytes(w), 0x1111_1111_2222_1111);
        assert!(h.faults.is_empty());
    }

    #[test]
    fn unmapped_accesses_fault_and_are_not_performed() {
        let (mut h, b) = host_with_buf(64);
        // Write whose strobed bytes reach into the guard page.
        h.accept_write(0, 1, b.iova() + PAGE - 8, u64::MAX, 0xFF);
        h.accept_write(0, 1, b.iova() + PAGE, u64::MAX, 0x01);
        h.apply_writes(1);
        assert_eq!(h.faults.len(), 1);
        assert_eq!(
            (h.faults[0].addr, h.faults[0].len, h.faults[0].write),
            (b.iova() + PAGE, 1, true)
        );
        // Read crossing the end of the mapping: zeros, one fault.
        h.accept_read(5, 3, b.iova() + PAGE - 8, 2, 7);
        assert!(h.read_beat(7).is_none(), "not before the round trip");
        let beat = h.read_beat(8).unwrap();
        assert_eq!((beat.data, beat.tag, beat.last), (0, 7, false));
        h.beat_taken();
        assert!(h.read_beat(9).unwrap().last);
        h.beat_taken();
        assert_eq!(h.reads_in_flight(), 0);
        assert_eq!(h.faults.len(), 2);
        assert!(!h.faults[1].write);
        assert!(h.violations.is_empty());
    }

    /// External memory backed by a shared vector, so the test sees what the card did.
    struct Shared(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

    impl ExternalMemory for Shared {
        fn len(&self) -> usize {
            self.0.borrow().len()
        }
        fn read(&self, offset: usize, out: &mut [u8]) {
            out.copy_from_slice(&self.0.borrow()[offset..offset + out.len()]);
        }
        fn write(&mut self, offset: usize, data: &[u8]) {
            self.0.borrow_mut()[offset..offset + data.len()].copy_from_slice(data);
        }
    }

    #[test]
    fn external_memory_takes_dma_by_iova_and_faults_outside() {
        let mut h = Host::new(0, 1 << 20, false);
        let mem = std::rc::Rc::new(std::cell::RefCell::new(vec![0xEEu8; 2 * PAGE as usize]));
        let iova = 0x7_0000_0000;
        h.map_external(iova, Box::new(Shared(mem.clone()))).unwrap();
        // Refused: unaligned, overlapping, empty.
        let one = || {
            Box::new(Shared(std::rc::Rc::new(std::cell::RefCell::new(vec![
                0;
                4096
            ]))))
        };
        assert!(h.map_external(iova + 8, one()).is_err());
        assert!(h.map_external(iova + PAGE, one()).is_err());
        assert!(h
            .map_external(0x9_0000_0000, Box::new(Shared(Default::default())))
            .is_err());
        assert_eq!(h.external_bytes(), 2 * PAGE);

        // A strobed write stores only its strobed bytes (0x0F | 0x80: two runs).
        h.accept_write(0, 1, iova + 8, 0x1122_3344_5566_7788, 0x8F);
        h.apply_writes(1);
        assert_eq!(
            &mem.borrow()[8..16],
            &[0x88, 0x77, 0x66, 0x55, 0xEE, 0xEE, 0xEE, 0x11]
        );
        // Reads come from the external bytes.
        mem.borrow_mut()[PAGE as usize..PAGE as usize + 8].copy_from_slice(&42u64.to_le_bytes());
        h.accept_read(2, 1, iova + PAGE, 1, 3);
        assert_eq!(h.read_beat(3).unwrap().data, 42);
        h.beat_taken();
        // The page after the mapping is not mapped: fault, memory untouched.
        h.accept_write(4, 1, iova + 2 * PAGE, u64::MAX, 0xFF);
        h.apply_writes(5);
        assert_eq!(h.faults.len(), 1);
        // DmaBuffer handles never reach external memory.
        let forged = DmaBuffer::new(0, iova, 2 * PAGE as usize);
        assert!(h.mem_write(&forged, 0, &[1]).is_err());

        assert_eq!(h.unmap_external(iova, PAGE), 0, "only whole mappings go");
        assert_eq!(h.unmap_external(iova, 2 * PAGE), 2 * PAGE);
        h.accept_write(6, 1, iova, u64::MAX, 0xFF);
        h.apply_writes(7);
        assert_eq!(h.faults.len(), 2, "unmapped: the write faults");
        assert_eq!(mem.borrow()[0], 0xEE);
    }

    #[test]
    fn reads_answer_in_order_one_beat_per_take() {
        let (mut h, b) = host_with_buf(64);
        for i in 0..8u64 {
            h.mem_write(&b, (i * 8) as usize, &(i + 100).to_le_bytes())
                .unwrap();
        }
        h.accept_read(0, 125, b.iova(), 3, 1);
        h.accept_read(1, 125, b.iova() + 40, 1, 2);
        let mut got = Vec::new();
        for now in 0..200 {
            if let Some(beat) = h.read_beat(now) {
                got.push((now, beat.data, beat.tag, beat.last));
                h.beat_taken();
            }
        }
        assert_eq!(
            got,
            vec![
                (125, 100, 1, false),
                (126, 101, 1, false),
                (127, 102, 1, true),
                (128, 105, 2, true)
            ]
        );
        h.accept_read(300, 125, b.iova(), 0, 3);
        assert_eq!(h.violations.len(), 1, "0-beat read is a violation");
    }
}
