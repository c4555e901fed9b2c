//! The device's own event queue. Its events come from FIFO servers (command processor, PCIe
//! directions, write-buffer admission), so each class is scheduled at non-decreasing times: a
//! FIFO per class replaces a heap, and the next event is the least `(time, seq)` over the class
//! heads — the same order a [`nand_model::EventQueue`] would give, at O(1) per event. A push that
//! would break a class's order is inserted in place, so correctness never rests on the
//! monotonicity argument.

use nand_model::SimTime;

/// Event classes, each fed by one FIFO server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Dispatch = 0,
    ReadDone = 1,
    WriteDone = 2,
    TrimDone = 3,
}

/// A FIFO on a `Vec` and a read cursor ([`nand_model::consumed`]).
#[derive(serde::Serialize, serde::Deserialize, Debug)]
struct Fifo<E> {
    buf: Vec<(SimTime, u64, E)>,
    head: usize,
}

impl<E: Copy> Fifo<E> {
    #[inline]
    fn front(&self) -> Option<&(SimTime, u64, E)> {
        self.buf.get(self.head)
    }

    #[inline(always)]
    fn push(&mut self, t: SimTime, seq: u64, ev: E) {
        match self.buf.last() {
            Some(&(last, _, _)) if last > t && self.head < self.buf.len() => {
                let at = self.head + self.buf[self.head..].partition_point(|&(x, _, _)| x <= t);
                self.buf.insert(at, (t, seq, ev));
            }
            _ => self.buf.push((t, seq, ev)),
        }
    }

    /// Removes the front event; returns it and the time of the new front (`SimTime::MAX` if
    /// none), read before the consumed prefix may go so that nothing is loaded twice.
    #[inline]
    fn pop(&mut self) -> Option<((SimTime, E), SimTime)> {
        let &(t, _, e) = self.buf.get(self.head)?;
        self.head += 1;
        let next = self.buf.get(self.head).map_or(SimTime::MAX, |f| f.0);
        nand_model::consumed::drop_consumed(&mut self.buf, &mut self.head);
        Some(((t, e), next))
    }

    fn clear(&mut self) {
        self.buf.clear();
        self.head = 0;
    }
}

#[derive(serde::Serialize, serde::Deserialize, Debug)]
pub(crate) struct DevEvents<E> {
    q: [Fifo<E>; 4],
    seq: u64,
    /// Time of each class's front event (`SimTime::MAX` when empty), so finding the next event
    /// compares four integers without touching the FIFOs; sequences break ties.
    front: [SimTime; 4],
    /// The class holding the next event (valid when any class is non-empty).
    head: usize,
}

impl<E: Copy> DevEvents<E> {
    pub fn new() -> Self {
        let fifo = || Fifo { buf: Vec::new(), head: 0 };
        DevEvents { q: [fifo(), fifo(), fifo(), fifo()], seq: 0, front: [SimTime::MAX; 4], head: 0 }
    }

    #[inline(always)]
    pub fn push(&mut self, class: Class, t: SimTime, ev: E) {
        let seq = self.seq;
        self.seq += 1;
        let c = class as usize;
        self.q[c].push(t, seq, ev);
        // An event inserted in place lands after equal times, so a class's front changes only
        // when the new event is strictly earlier; having the highest sequence, it leads overall
        // only then too.
        if t < self.front[c] {
            self.front[c] = t;
        }
        if t < self.front[self.head] {
            self.head = c;
        }
    }

    /// The class whose front (of `front`) is the least `(time, seq)`.
    #[inline]
    fn find_head(&self, front: &[SimTime; 4]) -> usize {
        let mut best = 0;
        for c in 1..4 {
            let (t, b) = (front[c], front[best]);
            if t < b || (t == b && t != SimTime::MAX && self.front_seq(c) < self.front_seq(best)) {
                best = c;
            }
        }
        best
    }

    #[inline]
    fn front_seq(&self, c: usize) -> u64 {
        self.q[c].front().map_or(u64::MAX, |e| e.1)
    }

    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        let t = self.front[self.head];
        (t != SimTime::MAX).then_some(t)
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let h = self.head;
        if self.front[h] == SimTime::MAX {
            return None;
        }
        let ((t, e), next) = self.q[h].pop()?;
        // The new fronts are built in registers and compared there: storing `front[h]` and
        // loading the four back made each pop wait on a store it might alias (10% of
        // `next_completion`'s samples in `perf record` of `ssdlab bench`).
        let front: [SimTime; 4] = std::array::from_fn(|c| if c == h { next } else { self.front[c] });
        self.front = front;
        self.head = self.find_head(&front);
        Some((t, e))
    }

    pub fn clear(&mut self) {
        for q in &mut self.q {
            q.clear();
        }
        self.front = [SimTime::MAX; 4];
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn t(ns: u64) -> SimTime {
        SimTime::from_ns(ns)
    }

    #[test]
    fn merges_classes_in_time_then_push_order() {
        let mut e = DevEvents::new();
        e.push(Class::WriteDone, t(10), 'a');
        e.push(Class::Dispatch, t(5), 'b');
        e.push(Class::ReadDone, t(10), 'c');
        e.push(Class::WriteDone, t(7), 'd'); // out of order within a class: inserted in place
        let got: Vec<_> = std::iter::from_fn(|| e.pop()).collect();
        assert_eq!(got, vec![(t(5), 'b'), (t(7), 'd'), (t(10), 'a'), (t(10), 'c')]);
    }

    #[test]
    fn pops_in_time_then_push_order_under_random_interleaving() {
        let classes = [Class::Dispatch, Class::ReadDone, Class::WriteDone, Class::TrimDone];
        let mut e = DevEvents::new();
        let mut reference: Vec<(SimTime, u64)> = Vec::new();
        let (mut x, mut id, mut now) = (0x9E37_79B9u64, 0u64, SimTime::ZERO);
        for _ in 0..5000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x % 3 == 0 {
                let got = e.pop();
                reference.sort();
                let want = (!reference.is_empty()).then(|| reference.remove(0));
                assert_eq!(got.map(|g| g.1), want.map(|w| w.1));
                if let Some((at, _)) = got {
                    now = at;
                }
            } else {
                let at = now + t((x >> 8) % 50);
                e.push(classes[(x >> 4) as usize % 4], at, id);
                reference.push((at, id));
                id += 1;
            }
            reference.sort();
            assert_eq!(e.peek_time(), reference.first().map(|r| r.0));
        }
    }
}
