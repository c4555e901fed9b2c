//! A shared resource (a channel bus) as a list of reserved, non-overlapping busy intervals.
//! Unlike a single "busy until" mark, a later request can use a gap that an earlier reservation
//! left open (a die's transfer booked after its tR leaves the bus free for other dies meanwhile),
//! which is how a channel interleaves dies.

use crate::time::SimTime;
use std::collections::VecDeque;

/// Reserved busy intervals `[start, end)`, sorted and disjoint.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    busy: VecDeque<(SimTime, SimTime)>,
    busy_ns_total: SimTime,
}

impl Timeline {
    pub fn new() -> Self {
        Self::default()
    }

    /// Reserves `dur` ns at the earliest start `>= earliest` that does not overlap any existing
    /// reservation; returns the start. `now` (<= earliest, non-decreasing over calls) lets it
    /// forget intervals that are over.
    pub fn reserve(&mut self, now: SimTime, earliest: SimTime, dur: SimTime) -> SimTime {
        while let Some(&(_, end)) = self.busy.front() {
            if end <= now {
                self.busy.pop_front();
            } else {
                break;
            }
        }
        self.busy_ns_total += dur;
        let mut start = earliest;
        // Skip intervals that end before we could start: they are sorted and disjoint, so a
        // binary search finds the first that does not.
        let mut idx = self.busy.partition_point(|&(_, end)| end <= start);
        while idx < self.busy.len() {
            let (s, e) = self.busy[idx];
            if start + dur <= s {
                break;
            }
            start = start.max(e);
            idx += 1;
        }
        if dur > 0 {
            // Merge with the neighbours when touching, to keep the list short.
            let end = start + dur;
            let touches_prev = idx > 0 && self.busy[idx - 1].1 == start;
            let touches_next = idx < self.busy.len() && self.busy[idx].0 == end;
            match (touches_prev, touches_next) {
                (true, true) => {
                    let next_end = self.busy[idx].1;
                    self.busy[idx - 1].1 = next_end;
                    self.busy.remove(idx);
                }
                (true, false) => self.busy[idx - 1].1 = end,
                (false, true) => self.busy[idx].0 = start,
                (false, false) => self.busy.insert(idx, (start, end)),
            }
        }
        start
    }

    /// Total reserved time since creation (for utilisation).
    pub fn busy_ns_total(&self) -> SimTime {
        self.busy_ns_total
    }

    /// Number of pending intervals (diagnostics).
    pub fn pending(&self) -> usize {
        self.busy.len()
    }

    pub fn clear(&mut self) {
        self.busy.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn fills_gaps() {
        let mut t = Timeline::new();
        assert_eq!(t.reserve(0, 100, 10), 100);
        assert_eq!(t.reserve(0, 0, 10), 0); // fits before
        assert_eq!(t.reserve(0, 0, 95), 110); // does not fit in the 90 ns gap
        assert_eq!(t.reserve(0, 5, 50), 10);
    }

    proptest! {
        #[test]
        fn never_overlaps(reqs in proptest::collection::vec((0u64..1000, 1u64..50), 1..60)) {
            let mut t = Timeline::new();
            let mut got = Vec::new();
            for (earliest, dur) in reqs {
                let s = t.reserve(0, earliest, dur);
                prop_assert!(s >= earliest);
                got.push((s, s + dur));
            }
            got.sort();
            for w in got.windows(2) {
                prop_assert!(w[0].1 <= w[1].0, "{:?} overlaps {:?}", w[0], w[1]);
            }
        }
    }
}
