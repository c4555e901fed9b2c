//! In-order completion watermark over sequence numbers that finish out of order (NAND operations
//! on different dies): `watermark()` is the first sequence not yet finished, so "everything
//! before S is done" is one comparison.

use std::collections::VecDeque;

#[derive(Debug, Default)]
pub struct InOrderTracker {
    base: u64,
    next: u64,
    done: VecDeque<bool>,
}

impl InOrderTracker {
    /// Hands out the next sequence number.
    pub fn issue(&mut self) -> u64 {
        let s = self.next;
        self.next += 1;
        self.done.push_back(false);
        s
    }

    /// Sequence the next `issue` will return.
    pub fn next(&self) -> u64 {
        self.next
    }

    pub fn complete(&mut self, seq: u64) {
        if seq < self.base {
            return;
        }
        if let Some(slot) = self.done.get_mut((seq - self.base) as usize) {
            *slot = true;
        }
        while self.done.front() == Some(&true) {
            self.done.pop_front();
            self.base += 1;
        }
    }

    /// Every sequence below this has completed.
    pub fn watermark(&self) -> u64 {
        self.base
    }

    /// The first sequence in `lo..hi` not yet completed, if any.
    pub fn first_pending(&self, lo: u64, hi: u64) -> Option<u64> {
        if hi <= self.base {
            return None;
        }
        let from = (lo.max(self.base) - self.base) as usize;
        let to = ((hi - self.base) as usize).min(self.done.len());
        self.done.range(from..to).position(|&d| !d).map(|i| self.base + (from + i) as u64)
    }

    /// Whether every sequence in `lo..hi` has completed.
    pub fn all_done(&self, lo: u64, hi: u64) -> bool {
        self.first_pending(lo, hi).is_none()
    }

    /// Forgets outstanding sequences (power loss): all issued count as done.
    pub fn reset(&mut self) {
        self.done.clear();
        self.base = self.next;
    }
}

#[cfg(test)]
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
}
