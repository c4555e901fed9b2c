//! Records kept by index in a `Vec` (commands, program units, parked reads), their freed slots
//! reused: ids stay small and stable and nothing is allocated once the pool has grown.

/// Stores `item` in a free slot of `items` (the most recently freed) or a new one; returns its
/// index. The caller pushes an index onto `free` when it is done with that slot.
#[allow(clippy::cast_possible_truncation)] // slot ids are u32 by design: a pool holds at most the records in flight
#[inline]
pub fn put<T>(items: &mut Vec<T>, free: &mut Vec<u32>, item: T) -> u32 {
    match free.pop() {
        Some(i) => {
            items[i as usize] = item;
            i
        }
        None => {
            items.push(item);
            (items.len() - 1) as u32
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn reuses_the_latest_freed_slot() {
        let (mut items, mut free) = (Vec::new(), Vec::new());
        assert_eq!(super::put(&mut items, &mut free, 'a'), 0);
        assert_eq!(super::put(&mut items, &mut free, 'b'), 1);
        free.push(0);
        assert_eq!(super::put(&mut items, &mut free, 'c'), 0);
        assert_eq!(items, vec!['c', 'b']);
    }
}
