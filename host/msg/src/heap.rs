//! First-fit allocator for the heap part of the receive window (registered buffers and
//! rendezvous bounce buffers). Offsets only: the memory itself is the card's window.

use std::collections::BTreeMap;

use crate::layout::ALIGN;

/// Free blocks by start offset; adjacent free blocks are always merged.
#[derive(Debug, Clone)]
pub(crate) struct Heap {
    free: BTreeMap<usize, usize>,
    start: usize,
    end: usize,
}

impl Heap {
    /// A heap over `[start, end)`.
    pub(crate) fn new(start: usize, end: usize) -> Heap {
        let mut free = BTreeMap::new();
        if end > start {
            free.insert(start, end - start);
        }
        Heap { free, start, end }
    }

    /// Bytes actually reserved for a request of `len` (at least one aligned unit, so
    /// a zero-length buffer still has a distinct address).
    pub(crate) fn rounded(len: usize) -> usize {
        len.max(1).div_ceil(ALIGN) * ALIGN
    }

    /// Reserves `len` bytes; returns the offset, or `None` if no free block is big enough.
    pub(crate) fn alloc(&mut self, len: usize) -> Option<usize> {
        let need = Self::rounded(len);
        let (&at, &size) = self.free.iter().find(|(_, &s)| s >= need)?;
        self.free.remove(&at);
        if size > need {
            self.free.insert(at + need, size - need);
        }
        Some(at)
    }

    /// Returns a block allocated with `len`.
    pub(crate) fn free(&mut self, at: usize, len: usize) {
        let mut at = at;
        let mut size = Self::rounded(len);
        debug_assert!(at >= self.start && at + size <= self.end);
        if let Some((&next, &nsize)) = self.free.range(at + size..).next() {
            if next == at + size {
                self.free.remove(&next);
                size += nsize;
            }
        }
        if let Some((&prev, &psize)) = self.free.range(..at).next_back() {
            if prev + psize == at {
                self.free.remove(&prev);
                at = prev;
                size += psize;
            }
        }
        self.free.insert(at, size);
    }

    /// Free bytes in total.
    pub(crate) fn free_bytes(&self) -> usize {
        self.free.values().sum()
    }

    /// Whether `[at, at + len)` lies inside the heap.
    pub(crate) fn contains(&self, at: usize, len: usize) -> bool {
        at >= self.start && at.checked_add(len).is_some_and(|e| e <= self.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocates_aligned_disjoint_blocks_and_merges_on_free() {
        let mut h = Heap::new(4096, 4096 + 1024);
        let a = h.alloc(100).unwrap();
        let b = h.alloc(1).unwrap();
        let c = h.alloc(0).unwrap();
        assert_eq!((a, b, c), (4096, 4096 + 128, 4096 + 192));
        assert_eq!(h.free_bytes(), 1024 - 256);
        assert_eq!(h.alloc(1024), None, "not enough room");
        h.free(b, 1);
        h.free(a, 100);
        assert_eq!(h.alloc(192), Some(4096), "a and b merged into one block");
        h.free(4096, 192);
        h.free(c, 0);
        assert_eq!(h.free_bytes(), 1024);
        assert_eq!(h.alloc(1024), Some(4096), "everything merged back");
        assert!(h.contains(4096, 1024) && !h.contains(4096, 1025) && !h.contains(0, 1));
    }
}
