//! GC candidates (closed blocks) in greedy's order among equals: fewest valid units first, then
//! the block whose count changed last. One `u64` key per block holds both, so a count change
//! writes one word (the per-valid-count linked lists this replaces touched the block's links
//! and up to three neighbours' on every host overwrite: random cache misses). Greedy compares
//! superblocks first (`superblocks.rs`) and these keys among the blocks of equally full ones.

use crate::ids::BlockId;

/// Key of a block that is not a candidate (above every candidate's key).
const NONE: u64 = u64::MAX;

/// Keys `valid << stamp_bits | (stamp_max - stamp)`: a later stamp sorts first among equal counts.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct Candidates {
    keys: Vec<u64>,
    /// Low bits of a key that hold the (inverted) stamp; the rest hold the valid count.
    stamp_bits: u32,
    next_stamp: u64,
}

impl Candidates {
    /// `blocks` non-candidates, for valid counts up to `max_valid`.
    pub fn new(blocks: usize, max_valid: u32) -> Self {
        // A candidate's key stays below NONE: the count field never reaches all ones.
        let valid_bits = 32 - (max_valid + 1).leading_zeros();
        Candidates { keys: vec![NONE; blocks], stamp_bits: 64 - valid_bits, next_stamp: 0 }
    }

    fn stamp_max(&self) -> u64 {
        (1u64 << self.stamp_bits) - 1
    }

    /// `b`'s key: its valid count, then the latest changed first; `None` if not a candidate.
    #[inline(always)]
    pub fn key(&self, b: BlockId) -> Option<u64> {
        let k = self.keys[b.idx()];
        (k != NONE).then_some(k)
    }

    /// Keys of a contiguous run of blocks, and [`Self::limit_key`] of `limit`.
    #[inline]
    pub fn keys_and_limit(&self, blocks: std::ops::Range<usize>, limit: u32) -> (&[u64], u64) {
        (&self.keys[blocks], self.limit_key(limit))
    }

    /// The least key of a block with `limit` valid units: candidates below it have fewer;
    /// non-candidates are above every limit.
    #[inline]
    pub fn limit_key(&self, limit: u32) -> u64 {
        u64::from(limit) << self.stamp_bits
    }

    #[inline(always)]
    pub fn contains(&self, b: BlockId) -> bool {
        self.keys[b.idx()] != NONE
    }

    /// `b` is a candidate with `valid` units as of now (the latest of its count).
    #[inline(always)]
    pub fn set(&mut self, b: BlockId, valid: u32) {
        if self.next_stamp > self.stamp_max() {
            self.renumber();
        }
        self.keys[b.idx()] = (u64::from(valid) << self.stamp_bits) | (self.stamp_max() - self.next_stamp);
        self.next_stamp += 1;
    }

    /// Hints the CPU to fetch `b`'s key (no effect on contents).
    #[inline(always)]
    pub fn prefetch(&self, b: usize) {
        crate::core::prefetch(&self.keys, b);
    }

    /// `b` is no longer a candidate.
    #[inline]
    pub fn remove(&mut self, b: BlockId) {
        self.keys[b.idx()] = NONE;
    }

    pub fn clear(&mut self) {
        self.keys.fill(NONE);
    }

    /// Stamps ran out (after 2^stamp_bits changes): renumbers the candidates from 0 in the
    /// same order, so choices are unchanged.
    #[cold]
    fn renumber(&mut self) {
        let mask = self.stamp_max();
        let mut order: Vec<usize> = (0..self.keys.len()).filter(|&i| self.keys[i] != NONE).collect();
        // Oldest first: the largest inverted stamp.
        order.sort_unstable_by_key(|&i| std::cmp::Reverse(self.keys[i] & mask));
        for (n, &i) in order.iter().enumerate() {
            self.keys[i] = (self.keys[i] & !mask) | (mask - n as u64);
        }
        self.next_stamp = order.len() as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::Candidates;
    use crate::ids::BlockId;

    /// The least key is the fewest-valid candidate changed last, before and after the stamps
    /// are renumbered, checked against a list of (block, valid, order of change).
    #[test]
    fn best_is_fewest_valid_then_latest() {
        let mut c = Candidates::new(40, 100);
        c.stamp_bits = 6; // renumber every 64 changes
        let mut model: Vec<Option<(u32, u64)>> = vec![None; 40];
        let mut t = 0u64;
        let mut x = 7u64;
        for _ in 0..2000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let b = u32::try_from((x >> 33) % 40).unwrap_or(0);
            if (x >> 20).is_multiple_of(5) {
                c.remove(BlockId::new(b));
                model[b as usize] = None;
            } else {
                let v = u32::try_from((x >> 40) % 6).unwrap_or(0);
                c.set(BlockId::new(b), v);
                model[b as usize] = Some((v, t));
                t += 1;
            }
            for (lo, hi, limit) in [(0u32, 40u32, 100u32), (3, 29, 4), (8, 16, 2)] {
                let want = (lo..hi)
                    .filter_map(|b| model[b as usize].map(|(v, t)| (v, std::cmp::Reverse(t), b)))
                    .filter(|&(v, _, _)| v < limit)
                    .min()
                    .map(|(_, _, b)| BlockId::new(b));
                let by_key = (lo..hi)
                    .filter_map(|b| c.key(BlockId::new(b)).map(|k| (k, b)))
                    .filter(|&(k, _)| k < u64::from(limit) << c.stamp_bits)
                    .min()
                    .map(|(_, b)| BlockId::new(b));
                assert_eq!(by_key, want);
            }
        }
    }
}
