//! A small seeded generator shared by the simulator's traffic generators, the CLI's
//! workloads and the test suites. Simulated results must be the same for a seed on every
//! machine and every build, which rules out thread-local or OS entropy; one 64-bit
//! state is all the quality these workloads need, so a crate dependency is pointless.

/// SplitMix64 (Steele, Lea, Flood 2014): one 64-bit state, full period, good mixing.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n` > 0; the tiny modulo bias is irrelevant here).
    pub fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0);
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `0..n` for 64-bit quantities (addresses, cycles).
    pub fn below_u64(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        self.next_u64() % n
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        debug_assert!(lo <= hi);
        lo + self.below(hi - lo + 1)
    }

    /// Uniform in `lo..=hi` for 64-bit quantities (`hi` < `u64::MAX`).
    pub fn range_u64(&mut self, lo: u64, hi: u64) -> u64 {
        debug_assert!(lo <= hi && hi < u64::MAX);
        lo + self.below_u64(hi - lo + 1)
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below_u64(100) < percent
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut v = Vec::with_capacity(n + 8);
        while v.len() < n {
            v.extend_from_slice(&self.next_u64().to_le_bytes());
        }
        v.truncate(n);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_in_range() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        for _ in 0..1000 {
            assert_eq!(a.next_u64(), b.next_u64());
            let r = a.range(3, 9);
            assert!((3..=9).contains(&r));
            assert_eq!(b.range(3, 9), r);
            let r = a.range_u64(1 << 40, (1 << 40) + 5);
            assert!(((1 << 40)..=(1 << 40) + 5).contains(&r));
            assert_eq!(b.range_u64(1 << 40, (1 << 40) + 5), r);
            let u = a.unit();
            assert!((0.0..1.0).contains(&u));
            assert_eq!(b.unit(), u);
            assert!(a.below(5) < 5);
            b.below(5);
        }
        assert_eq!(a.bytes(13), b.bytes(13));
        assert_eq!(a.bytes(13).len(), 13);
        assert!(!a.chance(0) && a.chance(100));
        // Reference value of SplitMix64 with seed 0.
        assert_eq!(Rng::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn range_covers_both_ends() {
        let mut r = Rng::new(1);
        let mut seen = [false; 4];
        for _ in 0..200 {
            seen[r.range(0, 3)] = true;
        }
        assert_eq!(seen, [true; 4]);
    }
}
