//! Ring index bookkeeping, kept apart from device access so it can be tested alone.

/// Driver-side state of the LME ring (descriptors to send).
///
/// The card treats `PROD == CONS` as "empty", so at most `size - 1` descriptors can be
/// outstanding: filling the last slot would make a full ring look empty to the card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LmeRing {
    size: u32,
    /// Next slot the driver fills; the value written to the LME_PROD doorbell.
    head: u32,
    /// Oldest slot not yet reaped.
    tail: u32,
    /// Descriptors posted since configuration; a descriptor's sequence number is the
    /// value of this counter when it was posted.
    posted: u64,
    /// Descriptors reaped since configuration.
    reaped: u64,
}

impl LmeRing {
    /// An empty ring of `size` entries (`size >= 2`, checked by the caller).
    pub(crate) fn new(size: u32) -> Self {
        debug_assert!(size >= 2);
        LmeRing {
            size,
            head: 0,
            tail: 0,
            posted: 0,
            reaped: 0,
        }
    }

    /// Entries in the ring.
    pub(crate) fn size(&self) -> u32 {
        self.size
    }

    /// Descriptors posted and not yet reaped.
    pub(crate) fn outstanding(&self) -> usize {
        (self.posted - self.reaped) as usize
    }

    /// Descriptors that can be posted now.
    pub(crate) fn free(&self) -> usize {
        self.size as usize - 1 - self.outstanding()
    }

    /// Claims the next slot: returns `(slot, sequence number, doorbell value)`, or `None`
    /// when the ring is full.
    pub(crate) fn push(&mut self) -> Option<(u32, u64, u32)> {
        if self.free() == 0 {
            return None;
        }
        let slot = self.head;
        let seq = self.posted;
        self.head = self.next(slot);
        self.posted += 1;
        Some((slot, seq, self.head))
    }

    /// The oldest outstanding slot and its sequence number.
    pub(crate) fn oldest(&self) -> Option<(u32, u64)> {
        (self.outstanding() > 0).then_some((self.tail, self.reaped))
    }

    /// Releases the oldest outstanding slot (the card completes in order).
    pub(crate) fn pop(&mut self) {
        debug_assert!(self.outstanding() > 0);
        self.tail = self.next(self.tail);
        self.reaped += 1;
    }

    /// Whether the descriptor with sequence number `seq` has already been reaped.
    pub(crate) fn is_reaped(&self, seq: u64) -> bool {
        seq < self.reaped
    }

    /// Whether `seq` names a descriptor that was ever posted.
    pub(crate) fn was_posted(&self, seq: u64) -> bool {
        seq < self.posted
    }

    fn next(&self, i: u32) -> u32 {
        (i + 1) % self.size
    }
}

/// Driver-side consumer index of the LMR ring (messages received).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LmrCursor {
    size: u32,
    cons: u32,
}

impl LmrCursor {
    pub(crate) fn new(size: u32) -> Self {
        LmrCursor { size, cons: 0 }
    }
    /// The slot the next entry will appear in.
    pub(crate) fn slot(&self) -> u32 {
        self.cons
    }
    /// Moves past the current slot; returns the new LMR_CONS value.
    pub(crate) fn advance(&mut self) -> u32 {
        self.cons = (self.cons + 1) % self.size;
        self.cons
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_holds_size_minus_one() {
        let mut r = LmeRing::new(4);
        assert_eq!(r.free(), 3);
        assert_eq!(r.push(), Some((0, 0, 1)));
        assert_eq!(r.push(), Some((1, 1, 2)));
        assert_eq!(r.push(), Some((2, 2, 3)));
        assert_eq!(r.free(), 0);
        assert_eq!(r.push(), None, "a 4th descriptor would make PROD == CONS");
        assert_eq!(r.outstanding(), 3);
    }

    #[test]
    fn ring_wraps_and_reaps_in_order() {
        let mut r = LmeRing::new(3);
        let mut doorbells = Vec::new();
        let mut reaped_slots = Vec::new();
        for i in 0..10u64 {
            let (slot, seq, db) = r.push().unwrap();
            assert_eq!(seq, i);
            assert_eq!(slot, (i % 3) as u32);
            doorbells.push(db);
            let (oldest, oseq) = r.oldest().unwrap();
            assert_eq!((oldest, oseq), (slot, seq));
            r.pop();
            reaped_slots.push(oldest);
            assert!(r.is_reaped(i));
            assert!(!r.is_reaped(i + 1));
        }
        assert_eq!(doorbells, vec![1, 2, 0, 1, 2, 0, 1, 2, 0, 1]);
        assert_eq!(reaped_slots, vec![0, 1, 2, 0, 1, 2, 0, 1, 2, 0]);
        assert_eq!(r.oldest(), None);
        assert_eq!(r.free(), 2);
        assert!(r.was_posted(9) && !r.was_posted(10));
    }

    #[test]
    fn ring_full_then_partial_reap() {
        let mut r = LmeRing::new(2);
        assert!(r.push().is_some());
        assert!(r.push().is_none());
        r.pop();
        assert_eq!(r.push(), Some((1, 1, 0)));
        assert_eq!(r.oldest(), Some((1, 1)));
        assert_eq!(r.size(), 2);
    }

    #[test]
    fn lmr_cursor_wraps() {
        let mut c = LmrCursor::new(3);
        assert_eq!(c.slot(), 0);
        assert_eq!(c.advance(), 1);
        assert_eq!(c.advance(), 2);
        assert_eq!(c.advance(), 0);
        assert_eq!(c.slot(), 0);
    }
}
