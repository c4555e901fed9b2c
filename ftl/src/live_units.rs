//! The live-unit bitmap: one bit per physical mapping unit, set while the unit holds the live
//! copy of its LPN. It is redundant with `l2p[p2l[ppn]] == ppn`, but sequential to read, so GC
//! scans a victim's word line as a few words instead of one random L2P lookup per unit (and it
//! takes 1/32 of the P2L's memory).

use crate::huge_pages::filled_vec;

/// One bit per physical unit, 64 to a word; unit `u` is bit `u % 64` of word `u / 64`.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(transparent)]
pub struct LiveUnits {
    words: Vec<u64>,
}

impl LiveUnits {
    /// `units` units, none live.
    pub fn new(units: usize) -> LiveUnits {
        LiveUnits { words: filled_vec(units.div_ceil(64), 0) }
    }

    #[inline(always)]
    pub fn set(&mut self, u: u32) {
        self.words[(u / 64) as usize] |= 1 << (u % 64);
    }

    #[inline(always)]
    pub fn clear(&mut self, u: u32) {
        self.words[(u / 64) as usize] &= !(1 << (u % 64));
    }

    #[inline(always)]
    pub fn get(&self, u: u32) -> bool {
        self.words[(u / 64) as usize] & (1 << (u % 64)) != 0
    }

    pub fn clear_all(&mut self) {
        self.words.fill(0);
    }

    /// Live units in the whole bitmap.
    pub fn count(&self) -> u64 {
        self.words.iter().map(|w| w.count_ones() as u64).sum()
    }

    /// Words allocated (for memory accounting).
    pub fn capacity_words(&self) -> usize {
        self.words.capacity()
    }

    /// Hints the CPU to fetch the word holding unit `u` (no effect on contents).
    #[inline(always)]
    pub fn prefetch(&self, u: u32) {
        crate::core::prefetch(&self.words, (u / 64) as usize);
    }

    /// Clears unit `first + i` for each bit i set in `mask`.
    pub fn clear_mask(&mut self, first: u32, mask: u128) {
        let (mut m, mut pos) = (mask, first);
        while m != 0 {
            let (w, b) = ((pos / 64) as usize, pos % 64);
            let take = 64 - b;
            self.words[w] &= !(nand_model::cast::low_u64(m) << b);
            m = if take >= 128 { 0 } else { m >> take };
            pos += take;
        }
    }

    /// Sets units `lo..lo + n`.
    pub fn set_range(&mut self, lo: u32, n: u32) {
        let (mut pos, end) = (lo, lo + n);
        while pos < end {
            let (w, b) = ((pos / 64) as usize, pos % 64);
            let take = (64 - b).min(end - pos);
            let mask = if take == 64 { u64::MAX } else { ((1u64 << take) - 1) << b };
            self.words[w] |= mask;
            pos += take;
        }
    }

    /// Units `lo..lo + n` (n <= 128) as bits, bit 0 = unit `lo`.
    pub fn bits(&self, lo: u32, n: u32) -> u128 {
        debug_assert!(n <= 128);
        let (mut out, mut got, mut pos) = (0u128, 0u32, lo);
        while got < n {
            let (w, b) = ((pos / 64) as usize, pos % 64);
            let take = (64 - b).min(n - got);
            let mask = if take == 64 { u64::MAX } else { (1u64 << take) - 1 };
            out |= (((self.words[w] >> b) & mask) as u128) << got;
            got += take;
            pos += take;
        }
        out
    }

    /// Word `w` with the bits of units outside `lo..hi` cleared.
    #[inline]
    pub fn word_in(&self, w: u32, lo: u32, hi: u32) -> u64 {
        let mut word = self.words[w as usize];
        if w * 64 < lo {
            word &= u64::MAX << (lo % 64);
        }
        if (w + 1) * 64 > hi {
            word &= !(u64::MAX << (hi % 64));
        }
        word
    }

    /// Live units among `lo..hi`.
    pub fn count_in(&self, lo: u32, hi: u32) -> u32 {
        (lo / 64..hi.div_ceil(64)).map(|w| self.word_in(w, lo, hi).count_ones()).sum()
    }
}

#[cfg(test)]
#[allow(clippy::cast_possible_truncation)] // casts of the tests' own small values
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Op {
        Set(u32),
        Clear(u32),
        ClearMask(u32, u128),
        SetRange(u32, u32),
    }

    const UNITS: u32 = 700;

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0..UNITS).prop_map(Op::Set),
            (0..UNITS).prop_map(Op::Clear),
            (0..UNITS - 128, any::<u128>()).prop_map(|(f, m)| Op::ClearMask(f, m)),
            (0..UNITS, 0..200u32).prop_map(|(lo, n)| Op::SetRange(lo, n.min(UNITS - lo))),
        ]
    }

    proptest! {
        /// Every operation and query agrees with a plain `Vec<bool>`.
        #[test]
        fn agrees_with_a_vec_of_bools(ops in prop::collection::vec(op(), 1..60), lo in 0..UNITS, len in 0..UNITS) {
            let mut live = LiveUnits::new(UNITS as usize);
            let mut model = vec![false; UNITS as usize];
            for o in ops {
                match o {
                    Op::Set(u) => { live.set(u); model[u as usize] = true; }
                    Op::Clear(u) => { live.clear(u); model[u as usize] = false; }
                    Op::ClearMask(f, m) => {
                        live.clear_mask(f, m);
                        for i in 0..128 { if m >> i & 1 == 1 { model[(f + i) as usize] = false; } }
                    }
                    Op::SetRange(lo, n) => {
                        live.set_range(lo, n);
                        model[lo as usize..(lo + n) as usize].fill(true);
                    }
                }
            }
            for u in 0..UNITS { prop_assert_eq!(live.get(u), model[u as usize], "unit {}", u); }
            prop_assert_eq!(live.count(), model.iter().filter(|&&b| b).count() as u64);
            let hi = (lo + len).min(UNITS);
            let want = model[lo as usize..hi as usize].iter().filter(|&&b| b).count() as u32;
            prop_assert_eq!(live.count_in(lo, hi), want);
            let n = (hi - lo).min(128);
            let bits = live.bits(lo, n);
            for i in 0..n { prop_assert_eq!(bits >> i & 1 == 1, model[(lo + i) as usize], "bit {}", i); }
            for w in lo / 64..hi.div_ceil(64) {
                let word = live.word_in(w, lo, hi);
                for b in 0..64 {
                    let u = w * 64 + b;
                    let expect = u >= lo && u < hi && model[u as usize];
                    prop_assert_eq!(word >> b & 1 == 1, expect, "word {} bit {}", w, b);
                }
            }
        }
    }
}
