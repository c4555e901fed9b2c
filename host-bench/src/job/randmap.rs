//! fio's random map and its map-free alternative, the full-period sequence (`random_generator=lfsr`).
//!
//! fio keeps, per job and file, one bit per block of the region (`randommap`, the default): a
//! drawn block that was already used this loop is replaced by the next free block after it
//! (wrapping), so a size-based random job touches every block exactly once per loop. The map
//! here is a flat bitmap, exactly 1 bit per block (fio's axmap adds summary levels; a flat scan
//! costs on average ln(blocks)/64 words per draw over a whole pass, since free blocks are dense
//! until the very end). `lfsr` gives the same once-per-loop coverage with no map at all.

/// One bit per block; bits past the last block are kept set so they are never "free".
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct RandomMap {
    words: Box<[u64]>,
    blocks: u64,
    used: u64,
}

impl RandomMap {
    /// A map of `blocks` free blocks (at least 1).
    pub fn new(blocks: u64) -> Self {
        let blocks = blocks.max(1);
        let words = huge_zeroed(nand_model::cast::usize_from(blocks.div_ceil(64)));
        let mut map = RandomMap { words, blocks, used: 0 };
        map.mark_tail();
        map
    }

    fn mark_tail(&mut self) {
        let tail = self.blocks % 64;
        if tail != 0 {
            if let Some(last) = self.words.last_mut() {
                *last |= !0u64 << tail;
            }
        }
    }

    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// Blocks used since the last reset.
    pub fn used(&self) -> u64 {
        self.used
    }

    pub fn is_full(&self) -> bool {
        self.used >= self.blocks
    }

    /// Frees every block (a new loop, or a time-based job that used the whole region).
    pub fn reset(&mut self) {
        self.words.fill(0);
        self.used = 0;
        self.mark_tail();
    }

    /// Hints the CPU to fetch `block`'s word: a map of a large region misses the cache on
    /// nearly every draw, so draws are made a few I/Os ahead and prefetched.
    #[inline]
    pub fn prefetch(&self, block: u64) {
        ftl::core::prefetch(&self.words, (block / 64) as usize);
    }

    #[inline]
    pub fn is_free(&self, block: u64) -> bool {
        self.words[(block / 64) as usize] & (1u64 << (block % 64)) == 0
    }

    /// `block` if free, else the first free block after it, wrapping to 0 (fio's
    /// `axmap_next_free`); `None` when the map is full.
    #[inline]
    pub fn free_at_or_after(&self, block: u64) -> Option<u64> {
        if self.is_free(block) {
            return Some(block);
        }
        if self.is_full() {
            return None;
        }
        self.first_free_from(block + 1).or_else(|| self.first_free_from(0))
    }

    /// The first free block at or after `from`. Late in a pass the used blocks form long runs
    /// (the free block after a used one is the next one taken, as in linear probing), so the
    /// scan past the first word goes a cache line (8 words) at a time: one AND over the line
    /// tells whether any of its blocks is free.
    fn first_free_from(&self, from: u64) -> Option<u64> {
        let w = (from / 64) as usize;
        let free = !*self.words.get(w)? & (!0u64 << (from % 64));
        if free != 0 {
            return Some(w as u64 * 64 + u64::from(free.trailing_zeros()));
        }
        let mut base = w + 1;
        let mut lines = self.words.get(base..)?.chunks_exact(8);
        for line in &mut lines {
            if line.iter().fold(!0u64, |all, &x| all & x) != !0 {
                return first_free_word(line, base);
            }
            base += 8;
        }
        first_free_word(lines.remainder(), base)
    }

    /// Marks up to `n` blocks used starting at the free block `block`, stopping at the first
    /// block already used or the end of the map; returns how many were marked (fio trims the
    /// I/O to that run).
    #[inline]
    pub fn mark_run(&mut self, block: u64, n: u64) -> u64 {
        let mut marked = 0;
        let mut b = block;
        while marked < n && b < self.blocks {
            let (w, bit) = ((b / 64) as usize, 1u64 << (b % 64));
            if self.words[w] & bit != 0 {
                break;
            }
            self.words[w] |= bit;
            marked += 1;
            b += 1;
        }
        self.used += marked;
        marked
    }
}

/// The first free block in `words` (word 0 of which is map word `base`), if any.
#[inline]
fn first_free_word(words: &[u64], base: usize) -> Option<u64> {
    let k = words.iter().position(|&x| x != !0)?;
    Some((base + k) as u64 * 64 + u64::from((!words[k]).trailing_zeros()))
}

/// Every value of `0..n` exactly once per period, in a scrambled order, without a map: a
/// full-period linear congruential walk over the next power of two (Hull-Dobell: odd increment,
/// multiplier 1 mod 4), passed through an invertible mix and cycle-walked below `n`. Fills the
/// role of fio's LFSR (same coverage guarantee and no memory); the order is not fio's.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct FullPeriod {
    n: u64,
    mask: u64,
    a: u64,
    c: u64,
    seed: u64,
    state: u64,
    shift: u32,
    /// Values returned since the last reset: a period is over at `n` (fio's LFSR then
    /// reports the file done).
    #[serde(default)]
    drawn: u64,
}

impl FullPeriod {
    /// A sequence over `0..n` (n >= 1) from two random words.
    pub fn new(n: u64, r1: u64, r2: u64) -> Self {
        let n = n.max(1);
        let bits = 64 - (n - 1).leading_zeros();
        let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let a = ((r1 << 2) | 1) & mask;
        let c = (r2 | 1) & mask;
        let seed = (r1 ^ r2.rotate_left(17)) & mask;
        FullPeriod { n, mask, a: if mask < 4 { 1 } else { a }, c, seed, state: seed, shift: bits / 2 + 1, drawn: 0 }
    }

    /// Back to the start of the sequence (fio resets its LFSR each loop).
    pub fn reset(&mut self) {
        self.state = self.seed;
        self.drawn = 0;
    }

    /// Whether every value of the period has been returned.
    pub fn is_done(&self) -> bool {
        self.drawn >= self.n
    }

    /// The next value below `n`.
    #[inline]
    pub fn next_value(&mut self) -> u64 {
        loop {
            self.state = self.state.wrapping_mul(self.a).wrapping_add(self.c) & self.mask;
            // x -> x ^ (x >> s) is invertible on `bits` bits, so the walk stays a permutation.
            let x = self.state ^ (self.state >> self.shift);
            if x < self.n {
                self.drawn += 1;
                return x;
            }
        }
    }
}

/// Zeroed words, advised for transparent huge pages when large: the map is read at random, one
/// word per draw, and with 4 KiB pages nearly every draw would also miss the TLB. A pure
/// performance hint; failure is ignored.
fn huge_zeroed(n: usize) -> Box<[u64]> {
    let mut v: Vec<u64> = Vec::with_capacity(n);
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let (ptr, bytes) = (v.as_mut_ptr() as usize, n * 8);
        let (start, end) = (ptr.next_multiple_of(HUGE), (ptr + bytes) / HUGE * HUGE);
        if bytes >= 2 * HUGE && end > start {
            // SAFETY: madvise only changes how the kernel backs this range, which lies inside
            // an allocation this process owns; no memory is read or written.
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
        }
    }
    v.resize(n, 0);
    v.into_boxed_slice()
}

#[cfg(test)]
mod tests {
    use super::RandomMap;
    use rand::{Rng, SeedableRng};

    /// The line-at-a-time scan finds what a bit-by-bit scan finds, on maps of every density,
    /// for sizes that end inside a word and inside a line of 8 words.
    #[test]
    fn free_at_or_after_matches_a_bit_scan() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for blocks in [1u64, 63, 64, 65, 511, 512, 513, 1000, 4099] {
            for used_pct in [0u32, 50, 90, 99, 100] {
                let mut map = RandomMap::new(blocks);
                for b in 0..blocks {
                    if rng.gen_range(0..100) < used_pct {
                        map.mark_run(b, 1);
                    }
                }
                let naive = |from: u64| (from..blocks).chain(0..from).find(|&b| map.is_free(b));
                for from in 0..blocks {
                    assert_eq!(
                        map.free_at_or_after(from),
                        naive(from),
                        "{blocks} blocks, {used_pct}% used, from {from}"
                    );
                }
            }
        }
    }
}
