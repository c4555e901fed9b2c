//! A fixed-capacity FIFO of `Copy` items: the few I/Os (runner) or trace records (replay)
//! drawn ahead of their issue. Each I/O costs one push and one pop, which here are a few
//! index operations; a `VecDeque` adds capacity checks and growth paths several times that.

#[derive(Clone, Debug)]
pub struct Ring<T: Copy, const N: usize> {
    items: [T; N],
    head: usize,
    len: usize,
}

impl<T: Copy, const N: usize> Ring<T, N> {
    /// An empty ring; `filler` only initialises the unused slots.
    pub fn new(filler: T) -> Self {
        Ring { items: [filler; N], head: 0, len: 0 }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends `item`; false (and nothing stored) when the ring is full.
    #[inline]
    pub fn push_back(&mut self, item: T) -> bool {
        if self.len >= N {
            return false;
        }
        self.items[(self.head + self.len) % N] = item;
        self.len += 1;
        true
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let item = self.items[self.head];
        self.head = (self.head + 1) % N;
        self.len -= 1;
        Some(item)
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        (self.len > 0).then(|| &self.items[self.head])
    }
}

/// Saved as it is (all `N` slots, head, length), so a restored ring is the same ring.
impl<T: Copy + serde::Serialize, const N: usize> serde::Serialize for Ring<T, N> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (&self.items[..], self.head, self.len).serialize(s)
    }
}

impl<'de, T: Copy + serde::Deserialize<'de>, const N: usize> serde::Deserialize<'de> for Ring<T, N> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (items, head, len): (Vec<T>, usize, usize) = serde::Deserialize::deserialize(d)?;
        let n = items.len();
        let items: [T; N] =
            items.try_into().map_err(|_| serde::de::Error::custom(format!("a ring of {N} slots saved with {n}")))?;
        if head >= N.max(1) || len > N {
            return Err(serde::de::Error::custom("ring head or length out of range"));
        }
        Ok(Ring { items, head, len })
    }
}

#[cfg(test)]
mod tests {
    use super::Ring;

    /// Keeps FIFO order across wrap-around and refuses pushes when full.
    #[test]
    fn fifo_across_wraparound() {
        let mut r: Ring<u32, 3> = Ring::new(0);
        let mut want = std::collections::VecDeque::new();
        for i in 0..50u32 {
            if i % 3 != 2 {
                assert_eq!(r.push_back(i), want.len() < 3);
                if want.len() < 3 {
                    want.push_back(i);
                }
            } else {
                assert_eq!(r.pop_front(), want.pop_front());
            }
            assert_eq!(r.len(), want.len());
            assert_eq!(r.front(), want.front());
        }
    }
}
