//! The event queue of the discrete-event engine: a min-heap on `(time, seq)`. The sequence number
//! is assigned at push, so events at the same instant pop in the order they were scheduled — a
//! deterministic tie-break that does not depend on the event payload or on heap internals.

use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// `key` packs `(time, seq)` into one integer (time in the high half), so ordering an entry is a
/// single comparison on the heap's hot path.
#[derive(serde::Serialize, serde::Deserialize)]
struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> Entry<E> {
    fn time(&self) -> SimTime {
        SimTime::from_ns((self.key >> 64) as u64)
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap and we want the earliest (time, seq) on top.
        other.key.cmp(&self.key)
    }
}

/// Min-heap of timed events with FIFO order among equal times.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue { heap: BinaryHeap::new(), next_seq: 0 }
    }

    /// Schedules `event` at `time`.
    pub fn push(&mut self, time: SimTime, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { key: ((time.ns() as u128) << 64) | seq as u128, event });
    }

    /// Time of the earliest event, if any.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time())
    }

    /// Removes and returns the earliest event.
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        self.heap.pop().map(|e| (e.time(), e.event))
    }

    /// Removes the earliest event if it is due at or before `limit`.
    pub fn pop_until(&mut self, limit: SimTime) -> Option<(SimTime, E)> {
        match self.heap.peek() {
            Some(e) if e.time() <= limit => self.pop(),
            _ => None,
        }
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    pub fn clear(&mut self) {
        self.heap.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn t(ns: u64) -> SimTime {
        SimTime::from_ns(ns)
    }

    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut q = EventQueue::new();
        q.push(t(20), "c");
        q.push(t(10), "a");
        q.push(t(20), "d");
        q.push(t(10), "b");
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(t(10), "a"), (t(10), "b"), (t(20), "c"), (t(20), "d")]);
    }

    #[test]
    fn pop_until_respects_limit() {
        let mut q = EventQueue::new();
        q.push(t(5), 1);
        q.push(t(15), 2);
        assert_eq!(q.pop_until(t(10)), Some((t(5), 1)));
        assert_eq!(q.pop_until(t(10)), None);
        assert_eq!(q.peek_time(), Some(t(15)));
    }
}
