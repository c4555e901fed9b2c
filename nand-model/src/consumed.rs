//! Queues kept as a `Vec` read through a cursor (`buf[head..]` live): cheaper per entry than a
//! `VecDeque` (no wrap-around arithmetic). [`drop_consumed`] is the one place that decides when
//! the consumed prefix goes, so every such queue keeps its buffer small and cache-resident.

/// Drops `buf[..head]` when nothing is live any more, or when the consumed prefix has grown to
/// at least 64 entries and half the buffer; resets `head` accordingly.
#[inline(always)]
pub fn drop_consumed<T>(buf: &mut Vec<T>, head: &mut usize) {
    if *head == buf.len() {
        buf.clear();
        *head = 0;
    } else if *head >= 64 {
        drop_half_consumed(buf, head);
    }
}

/// [`drop_consumed`]'s second case, out of line: inlined, the compiler evaluated both of its
/// tests on every pop (a queue's cursor is below 64 nearly always).
#[cold]
#[inline(never)]
fn drop_half_consumed<T>(buf: &mut Vec<T>, head: &mut usize) {
    if *head * 2 >= buf.len() {
        buf.drain(..*head);
        *head = 0;
    }
}

/// A FIFO on a `Vec` and a read cursor, for queues that one host command or NAND operation
/// passes through (cheaper per entry than a `VecDeque`'s wrap-around index arithmetic). It
/// serialises as the sequence of its live entries, as a `VecDeque` does.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(from = "Vec<T>", into = "Vec<T>")]
pub struct CursorQueue<T: Clone> {
    buf: Vec<T>,
    head: usize,
}

impl<T: Clone> Default for CursorQueue<T> {
    fn default() -> Self {
        CursorQueue { buf: Vec::new(), head: 0 }
    }
}

impl<T: Clone> From<Vec<T>> for CursorQueue<T> {
    fn from(buf: Vec<T>) -> Self {
        CursorQueue { buf, head: 0 }
    }
}

impl<T: Clone> From<CursorQueue<T>> for Vec<T> {
    fn from(mut q: CursorQueue<T>) -> Self {
        q.buf.drain(..q.head);
        q.buf
    }
}

impl<T: Clone> CursorQueue<T> {
    #[inline(always)]
    pub fn push_back(&mut self, x: T) {
        self.buf.push(x);
    }

    #[inline(always)]
    pub fn front(&self) -> Option<&T> {
        self.buf.get(self.head)
    }

    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<T> {
        let x = self.buf.get(self.head)?.clone();
        self.head += 1;
        drop_consumed(&mut self.buf, &mut self.head);
        Some(x)
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head == self.buf.len()
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.buf.len() - self.head
    }

    pub fn clear(&mut self) {
        self.buf.clear();
        self.head = 0;
    }

    /// The live entries, oldest first.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.buf[self.head..].iter()
    }
}

#[cfg(test)]
mod tests {
    use super::drop_consumed;

    #[test]
    fn keeps_the_live_part() {
        let (mut buf, mut head) = ((0..10).collect::<Vec<u32>>(), 10);
        drop_consumed(&mut buf, &mut head);
        assert_eq!((buf.len(), head), (0, 0));
        let (mut buf, mut head) = ((0..100).collect::<Vec<u32>>(), 70);
        drop_consumed(&mut buf, &mut head);
        assert_eq!((buf[0], buf.len(), head), (70, 30, 0));
        let (mut buf, mut head) = ((0..100).collect::<Vec<u32>>(), 40);
        drop_consumed(&mut buf, &mut head);
        assert_eq!((buf.len(), head), (100, 40));
    }

    #[test]
    fn cursor_queue_is_a_fifo_that_serialises_its_live_entries() {
        let mut q = super::CursorQueue::default();
        for i in 0..200u32 {
            q.push_back(i);
            if i % 3 == 0 {
                assert_eq!(q.pop_front(), Some(i / 3));
            }
        }
        assert_eq!((q.front(), q.len()), (Some(&67), 133));
        let v: Vec<u32> = q.clone().into();
        assert_eq!(v, (67..200).collect::<Vec<_>>());
        assert_eq!(q.iter().copied().collect::<Vec<_>>(), v);
        while q.pop_front().is_some() {}
        assert!(q.is_empty());
    }
}
