//! In-order completion watermark over sequence numbers that finish out of order (NAND operations
//! on different dies): `watermark()` is the first sequence not yet finished, so "everything
//! before S is done" is one comparison.

/// Sequences `base..next` are outstanding or done out of order; their completion bits live in a
/// ring of 64-bit words (bit `seq % capacity`), so finding the new watermark or the first
/// pending sequence of a range scans a word at a time. Bits of sequences outside `base..next`
/// are always clear.
#[derive(serde::Serialize, serde::Deserialize, Debug)]
pub struct InOrderTracker {
    base: u64,
    next: u64,
    ring: Vec<u64>,
}

impl Default for InOrderTracker {
    fn default() -> Self {
        InOrderTracker { base: 0, next: 0, ring: vec![0; 4] }
    }
}

impl InOrderTracker {
    fn capacity(&self) -> u64 {
        self.ring.len() as u64 * 64
    }

    /// Word index and bit of `seq` in the ring.
    #[inline]
    fn slot(&self, seq: u64) -> (usize, u32) {
        let pos = seq & (self.capacity() - 1);
        ((pos / 64) as usize, (pos % 64) as u32)
    }

    /// Hands out the next sequence number.
    #[inline]
    pub fn issue(&mut self) -> u64 {
        if self.next - self.base == self.capacity() {
            self.grow();
        }
        let s = self.next;
        self.next += 1;
        s
    }

    /// Doubles the ring, moving the bits of the outstanding sequences to their new places.
    fn grow(&mut self) {
        let doubled = vec![0; self.ring.len() * 2];
        let old = std::mem::replace(&mut self.ring, doubled);
        let old_cap = old.len() as u64 * 64;
        for seq in self.base..self.next {
            let pos = seq & (old_cap - 1);
            if old[(pos / 64) as usize] >> (pos % 64) & 1 != 0 {
                let (w, b) = self.slot(seq);
                self.ring[w] |= 1 << b;
            }
        }
    }

    /// Sequence the next `issue` will return.
    pub fn next(&self) -> u64 {
        self.next
    }

    pub fn complete(&mut self, seq: u64) {
        if seq < self.base || seq >= self.next {
            return;
        }
        let (w, b) = self.slot(seq);
        self.ring[w] |= 1 << b;
        // Advance the watermark over the run of completed sequences, clearing their bits.
        while self.base < self.next {
            let (w, b) = self.slot(self.base);
            let run = (self.ring[w] >> b).trailing_ones();
            if run == 0 {
                break;
            }
            let cleared = if run == 64 { u64::MAX } else { ((1u64 << run) - 1) << b };
            self.ring[w] &= !cleared;
            self.base += run as u64;
        }
    }

    /// Every sequence below this has completed.
    pub fn watermark(&self) -> u64 {
        self.base
    }

    /// The first sequence in `lo..hi` not yet completed, if any (sequences not yet issued do
    /// not count).
    #[allow(clippy::cast_possible_truncation)] // at most 64
    pub fn first_pending(&self, lo: u64, hi: u64) -> Option<u64> {
        let (mut seq, end) = (lo.max(self.base), hi.min(self.next));
        while seq < end {
            let (w, b) = self.slot(seq);
            let n = (64 - b as u64).min(end - seq) as u32;
            let mask = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
            let pending = !(self.ring[w] >> b) & mask;
            if pending != 0 {
                return Some(seq + pending.trailing_zeros() as u64);
            }
            seq += n as u64;
        }
        None
    }

    /// Whether every sequence in `lo..hi` has completed.
    pub fn all_done(&self, lo: u64, hi: u64) -> bool {
        self.first_pending(lo, hi).is_none()
    }

    /// Forgets outstanding sequences (power loss): all issued count as done.
    pub fn reset(&mut self) {
        self.ring.fill(0);
        self.base = self.next;
    }
}

#[cfg(test)]
#[allow(clippy::cast_possible_truncation)] // casts of the tests' own small values
mod tests {
    use super::*;

    #[test]
    fn watermark_advances_only_over_contiguous_completions() {
        let mut t = InOrderTracker::default();
        let a = t.issue();
        let b = t.issue();
        let c = t.issue();
        t.complete(b);
        assert_eq!(t.watermark(), 0);
        t.complete(a);
        assert_eq!(t.watermark(), 2);
        t.complete(c);
        assert_eq!(t.watermark(), 3);
    }

    #[test]
    fn ranges_complete_independently_of_earlier_sequences() {
        let mut t = InOrderTracker::default();
        let s: Vec<u64> = (0..5).map(|_| t.issue()).collect();
        t.complete(s[3]);
        t.complete(s[4]);
        assert!(t.all_done(3, 5));
        assert!(!t.all_done(2, 5));
        assert_eq!(t.first_pending(1, 5), Some(1));
        assert_eq!(t.first_pending(3, 5), None);
        assert!(!t.all_done(0, 1));
        t.complete(s[0]);
        assert!(t.all_done(0, 1) && t.all_done(0, 0));
        assert!(!t.all_done(0, 5));
    }

    proptest::proptest! {
        /// Against a plain list of done flags, through ring growth and wrap-around.
        #[test]
        fn matches_a_list_of_flags(ops in proptest::collection::vec((0u8..3, 0u64..300, 0u64..300), 1..600)) {
            let mut t = InOrderTracker::default();
            let mut done: Vec<bool> = Vec::new();
            for (op, a, b) in ops {
                match op {
                    0 => {
                        for _ in 0..(a % 7) {
                            proptest::prop_assert_eq!(t.issue(), done.len() as u64);
                            done.push(false);
                        }
                    }
                    1 if !done.is_empty() => {
                        // Mostly complete near the watermark, as NAND operations do.
                        let seq = (t.watermark() + a % 40).min(done.len() as u64 - 1);
                        t.complete(seq);
                        done[seq as usize] = true;
                    }
                    _ => {
                        let (lo, hi) = (a.min(b), a.max(b));
                        let want = (lo..hi.min(done.len() as u64)).find(|&s| !done[s as usize]);
                        proptest::prop_assert_eq!(t.first_pending(lo, hi), want);
                    }
                }
                let mark = done.iter().position(|&d| !d).unwrap_or(done.len()) as u64;
                proptest::prop_assert_eq!(t.watermark(), mark);
            }
        }
    }
}
