//! Bus-address (IOVA) allocation for DMA buffers.
//!
//! The kernel says which IOVA ranges its IOMMU can translate (the aperture minus reserved
//! windows such as x86's MSI range at 0xfee00000); the caller may narrow that further to a
//! window its device can address (a card with 32-bit DMA, QEMU's `edu` with 28 bits).
//! Buffers are placed first-fit, aligned, each followed by one unmapped guard page so a
//! device overrunning a buffer faults in the IOMMU instead of reaching its neighbour.
//! Freed space is reused.

use std::collections::BTreeMap;

/// Free-space bookkeeping over a set of usable IOVA ranges.
#[derive(Debug, Clone)]
pub(crate) struct IovaSpace {
    /// Usable ranges, `(first, last)` inclusive, sorted and disjoint.
    ranges: Vec<(u64, u64)>,
    /// Allocations: start -> end (exclusive, guard included), as u128 so that a buffer
    /// ending at 2^64 is representable.
    used: BTreeMap<u64, u128>,
    guard: u64,
}

impl IovaSpace {
    /// Usable space: `kernel` ranges (inclusive ends, as VFIO reports them) intersected with
    /// the window `[start, end)`.
    pub(crate) fn new(kernel: &[(u64, u64)], start: u64, end: u64, guard: u64) -> Self {
        let mut ranges: Vec<(u64, u64)> = kernel
            .iter()
            .filter_map(|&(lo, hi)| {
                let lo = lo.max(start);
                let hi = hi.min(end.saturating_sub(1));
                (end > 0 && lo <= hi).then_some((lo, hi))
            })
            .collect();
        ranges.sort_unstable();
        IovaSpace {
            ranges,
            used: BTreeMap::new(),
            guard,
        }
    }

    /// The usable ranges, inclusive ends.
    pub(crate) fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }

    /// Reserves `len` bytes aligned to `align` (a power of two); returns the IOVA.
    pub(crate) fn alloc(&mut self, len: u64, align: u64) -> Option<u64> {
        debug_assert!(align.is_power_of_two());
        if len == 0 {
            return None;
        }
        let need = u128::from(len) + u128::from(self.guard);
        let up = |a: u128| -> u128 { a.div_ceil(u128::from(align)) * u128::from(align) };
        for &(lo, hi) in &self.ranges {
            let mut cand = up(u128::from(lo));
            for (&s, &e) in &self.used {
                if e <= cand {
                    continue;
                }
                if cand + need <= u128::from(s) {
                    break;
                }
                cand = up(e);
            }
            // The buffer itself must fit; its guard page may fall outside the range
            // (unmapped space is as good a guard as any).
            if cand + u128::from(len) - 1 <= u128::from(hi) {
                let iova = cand as u64;
                self.used.insert(iova, cand + need);
                return Some(iova);
            }
        }
        None
    }

    /// Returns a reservation made by [`IovaSpace::alloc`].
    pub(crate) fn free(&mut self, iova: u64) {
        self.used.remove(&iova);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: &[(u64, u64)] = &[(0, u64::MAX)];

    #[test]
    fn first_fit_with_guard_pages_and_reuse() {
        let mut s = IovaSpace::new(ALL, 0x10_0000, 0x20_0000, 0x1000);
        let a = s.alloc(0x1000, 0x1000).unwrap();
        let b = s.alloc(0x3000, 0x1000).unwrap();
        let c = s.alloc(0x1000, 0x1000).unwrap();
        assert_eq!(a, 0x10_0000);
        assert_eq!(b, 0x10_2000, "one guard page after a");
        assert_eq!(c, 0x10_6000);
        s.free(b);
        // The hole left by b takes a buffer that fits with its guard page...
        assert_eq!(s.alloc(0x2000, 0x1000), Some(0x10_2000));
        // ...and the next one goes after c.
        assert_eq!(s.alloc(0x2000, 0x1000), Some(0x10_8000));
    }

    #[test]
    fn respects_alignment_window_and_kernel_holes() {
        // x86-like: the MSI window is not usable.
        let kernel = [(0, 0xfedf_ffff), (0xfef0_0000, (1 << 39) - 1)];
        let mut s = IovaSpace::new(&kernel, 0xfe00_0000, 1 << 40, 0x1000);
        assert_eq!(
            s.ranges(),
            &[(0xfe00_0000, 0xfedf_ffff), (0xfef0_0000, (1 << 39) - 1)]
        );
        let a = s.alloc(0x20_0000, 0x20_0000).unwrap();
        assert_eq!(a, 0xfe00_0000);
        // 0xfe20_0000 + 2 MiB + guard still fits below the hole...
        let b = s.alloc(0x20_0000, 0x20_0000).unwrap();
        assert_eq!(b, 0xfe40_0000);
        // ...but a 16 MiB buffer does not, so it skips the MSI window.
        let c = s.alloc(0x100_0000, 0x1000).unwrap();
        assert_eq!(c, 0xfef0_0000);
        for x in [a, b, c] {
            assert!(!(0xfee0_0000..0xfef0_0000).contains(&x));
        }
    }

    #[test]
    fn exhaustion_and_degenerate_requests() {
        let mut s = IovaSpace::new(ALL, 0x1000, 0x4000, 0x1000);
        assert_eq!(s.alloc(0, 0x1000), None);
        assert_eq!(s.alloc(0x4000, 0x1000), None, "larger than the window");
        assert_eq!(s.alloc(0x1000, 0x1000), Some(0x1000));
        assert_eq!(s.alloc(0x1000, 0x1000), Some(0x3000));
        assert_eq!(s.alloc(0x1000, 0x1000), None, "window full");
        // A window at the very top of the address space.
        let mut t = IovaSpace::new(ALL, u64::MAX - 0x1fff, u64::MAX, 0x1000);
        assert_eq!(t.alloc(0x1000, 0x1000), Some(u64::MAX - 0x1fff));
        assert_eq!(t.alloc(0x1000, 0x1000), None);
        // An empty intersection.
        let mut e = IovaSpace::new(&[(0, 0xffff)], 0x1_0000, 0x2_0000, 0x1000);
        assert!(e.ranges().is_empty());
        assert_eq!(e.alloc(0x1000, 0x1000), None);
    }
}
