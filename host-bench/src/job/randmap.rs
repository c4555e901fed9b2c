//! fio's random map and its map-free alternative, the full-period sequence (`random_generator=lfsr`).
//!
//! fio keeps, per job and file, one bit per block of the region (`randommap`, the default): a
//! drawn block that was already used this loop is replaced by the next free block after it
//! (wrapping), so a size-based random job touches every block exactly once per loop. The map
//! here is a flat bitmap, exactly 1 bit per block (fio's axmap adds summary levels; a flat scan
//! costs on average ln(blocks)/64 words per draw over a whole pass, since free blocks are dense
//! until the very end). `lfsr` gives the same once-per-loop coverage with no map at all.

/// One bit per block; bits past the last block are kept set so they are never "free".
#[derive(Clone, Debug)]
pub struct RandomMap {
    words: Box<[u64]>,
    /// Bit `w` set when word `w` is full: near the end of a pass free blocks are sparse and the
    /// search for the next one skips 64 full words per summary word (fio's axmap has such
    /// levels too).
    full: Box<[u64]>,
    blocks: u64,
    used: u64,
}

impl RandomMap {
    /// A map of `blocks` free blocks (at least 1).
    pub fn new(blocks: u64) -> Self {
        let blocks = blocks.max(1);
        let words = huge_zeroed(blocks.div_ceil(64) as usize);
        let full = vec![0; words.len().div_ceil(64)].into_boxed_slice();
        let mut map = RandomMap { words, full, blocks, used: 0 };
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
        self.full.fill(0);
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

    fn first_free_from(&self, from: u64) -> Option<u64> {
        let w = (from / 64) as usize;
        let first = self.words.get(w)?;
        let free = !first & (!0u64 << (from % 64));
        if free != 0 {
            return Some(w as u64 * 64 + u64::from(free.trailing_zeros()));
        }
        let w = self.first_unfull_word(w + 1)?;
        Some(w as u64 * 64 + u64::from((!self.words[w]).trailing_zeros()))
    }

    /// The first word at or after `w` with a free block, from the summary.
    fn first_unfull_word(&self, w: usize) -> Option<usize> {
        let mut s = w / 64;
        let mut open = !*self.full.get(s)? & (!0u64 << (w % 64));
        loop {
            if open != 0 {
                // Summary bits past the last word are clear: no such word means none left.
                let w = s * 64 + open.trailing_zeros() as usize;
                return (w < self.words.len()).then_some(w);
            }
            s += 1;
            open = !*self.full.get(s)?;
        }
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
            if self.words[w] == !0 {
                self.full[w / 64] |= 1 << (w % 64);
            }
            marked += 1;
            b += 1;
        }
        self.used += marked;
        marked
    }
}

/// Every value of `0..n` exactly once per period, in a scrambled order, without a map: a
/// full-period linear congruential walk over the next power of two (Hull-Dobell: odd increment,
/// multiplier 1 mod 4), passed through an invertible mix and cycle-walked below `n`. Fills the
/// role of fio's LFSR (same coverage guarantee and no memory); the order is not fio's.
#[derive(Clone, Debug)]
pub struct FullPeriod {
    n: u64,
    mask: u64,
    a: u64,
    c: u64,
    seed: u64,
    state: u64,
    shift: u32,
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
        FullPeriod { n, mask, a: if mask < 4 { 1 } else { a }, c, seed, state: seed, shift: bits / 2 + 1 }
    }

    /// Back to the start of the sequence (fio resets its LFSR each loop).
    pub fn reset(&mut self) {
        self.state = self.seed;
    }

    /// The next value below `n`.
    #[inline]
    pub fn next_value(&mut self) -> u64 {
        loop {
            self.state = self.state.wrapping_mul(self.a).wrapping_add(self.c) & self.mask;
            // x -> x ^ (x >> s) is invertible on `bits` bits, so the walk stays a permutation.
            let x = self.state ^ (self.state >> self.shift);
            if x < self.n {
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

    /// Random runs marked until the map is full: every answer matches a plain scan of a
    /// `Vec<bool>` (the summary must never hide a free block nor offer a used one).
    #[test]
    fn next_free_matches_a_plain_scan() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for blocks in [1u64, 63, 64, 65, 4095, 4096, 4097, 9000] {
            let mut map = RandomMap::new(blocks);
            let mut used = vec![false; blocks as usize];
            for _pass in 0..2 {
                while !map.is_full() {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let b = x % blocks;
                    let plain = (b..blocks).chain(0..b).find(|&k| !used[k as usize]);
                    let got = map.free_at_or_after(b);
                    assert_eq!(got, plain, "{blocks} blocks, from {b}");
                    let Some(start) = got else { break };
                    let n = 1 + (x >> 40) % 300;
                    let marked = map.mark_run(start, n);
                    let plain_run = (start..blocks).take(n as usize).take_while(|&k| !used[k as usize]).count();
                    assert_eq!(marked, plain_run as u64);
                    for k in start..start + marked {
                        used[k as usize] = true;
                    }
                }
                assert_eq!(map.free_at_or_after(0), None);
                map.reset();
                used.fill(false);
            }
        }
    }
}
