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
}
