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
    } else if *head >= 64 && *head * 2 >= buf.len() {
        buf.drain(..*head);
        *head = 0;
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
}
