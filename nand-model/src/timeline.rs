//! A shared resource (a channel bus) as a list of reserved, non-overlapping busy intervals.
//! Unlike a single "busy until" mark, a later request can use a gap that an earlier reservation
//! left open (a die's transfer booked after its tR leaves the bus free for other dies meanwhile),
//! which is how a channel interleaves dies.

use crate::time::SimTime;

/// Reserved busy intervals `[start, end)`, sorted and disjoint: `busy[head..]` are the live ones
/// (a `Vec` and a cursor, see [`crate::consumed`]).
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default)]
pub struct Timeline {
    busy: Vec<(SimTime, SimTime)>,
    head: usize,
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
        while self.head < self.busy.len() && self.busy[self.head].1 <= now {
            self.head += 1;
        }
        crate::consumed::drop_consumed(&mut self.busy, &mut self.head);
        self.busy_ns_total += dur;
        let mut start = earliest;
        // Skip intervals that end before we could start: they are sorted and disjoint, so a
        // binary search finds the first that does not.
        let live = &self.busy[self.head..];
        let mut idx = live.partition_point(|&(_, end)| end <= start);
        while idx < live.len() {
            let (s, e) = live[idx];
            if start + dur <= s {
                break;
            }
            start = start.max(e);
            idx += 1;
        }
        if dur > SimTime::ZERO {
            // Merge with the neighbours when touching, to keep the list short.
            let idx = self.head + idx;
            let end = start + dur;
            let touches_prev = idx > self.head && self.busy[idx - 1].1 == start;
            let touches_next = idx < self.busy.len() && self.busy[idx].0 == end;
            match (touches_prev, touches_next) {
                (true, true) => {
                    self.busy[idx - 1].1 = self.busy[idx].1;
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
        self.busy.len() - self.head
    }

    /// The live intervals are non-empty, sorted and disjoint (what `reserve` relies on).
    pub fn check(&self) -> Result<(), String> {
        let live = &self.busy[self.head..];
        if let Some(&(s, e)) = live.iter().find(|&&(s, e)| s >= e) {
            return Err(format!("empty or inverted interval [{s}, {e})"));
        }
        match live.windows(2).find(|w| w[0].1 > w[1].0) {
            Some(w) => Err(format!("bus intervals overlap: {:?} and {:?}", w[0], w[1])),
            None => Ok(()),
        }
    }

    pub fn clear(&mut self) {
        self.busy.clear();
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    impl Timeline {
        /// [`Timeline::reserve`] in plain ns, as the reference below works.
        fn reserve_ns(&mut self, now: u64, earliest: u64, dur: u64) -> u64 {
            self.reserve(SimTime::from_ns(now), SimTime::from_ns(earliest), SimTime::from_ns(dur)).ns()
        }
    }

    #[test]
    fn fills_gaps() {
        let mut t = Timeline::new();
        assert_eq!(t.reserve_ns(0, 100, 10), 100);
        assert_eq!(t.reserve_ns(0, 0, 10), 0); // fits before
        assert_eq!(t.reserve_ns(0, 0, 95), 110); // does not fit in the 90 ns gap
        assert_eq!(t.reserve_ns(0, 5, 50), 10);
    }

    /// The plain list the cursor version must match: intervals kept in a `VecDeque`, finished
    /// ones popped from the front.
    fn reference_reserve(busy: &mut std::collections::VecDeque<(u64, u64)>, now: u64, earliest: u64, dur: u64) -> u64 {
        while busy.front().is_some_and(|&(_, e)| e <= now) {
            busy.pop_front();
        }
        let mut start = earliest;
        let mut idx = busy.partition_point(|&(_, end)| end <= start);
        while idx < busy.len() && start + dur > busy[idx].0 {
            start = start.max(busy[idx].1);
            idx += 1;
        }
        if dur > 0 {
            let end = start + dur;
            let tp = idx > 0 && busy[idx - 1].1 == start;
            let tn = idx < busy.len() && busy[idx].0 == end;
            match (tp, tn) {
                (true, true) => {
                    busy[idx - 1].1 = busy[idx].1;
                    busy.remove(idx);
                }
                (true, false) => busy[idx - 1].1 = end,
                (false, true) => busy[idx].0 = start,
                (false, false) => busy.insert(idx, (start, end)),
            }
        }
        start
    }

    proptest! {
        #[test]
        fn matches_the_plain_list(reqs in proptest::collection::vec((0u64..40, 0u64..400, 0u64..60), 1..400)) {
            let mut t = Timeline::new();
            let mut r = std::collections::VecDeque::new();
            let mut now = 0;
            for (step, ahead, dur) in reqs {
                now += step;
                prop_assert_eq!(t.reserve_ns(now, now + ahead, dur), reference_reserve(&mut r, now, now + ahead, dur));
                prop_assert_eq!(t.pending(), r.len());
            }
        }

        #[test]
        fn never_overlaps(reqs in proptest::collection::vec((0u64..1000, 1u64..50), 1..60)) {
            let mut t = Timeline::new();
            let mut got = Vec::new();
            for (earliest, dur) in reqs {
                let s = t.reserve_ns(0, earliest, dur);
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
