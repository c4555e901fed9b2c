//! A bit per die, with "first set die at or after the cursor, wrapping" in a few word operations.
//! The write frontier asks that question for every program unit; scanning up to 128 dies one by
//! one for an open block or a free block was a visible share of the per-I/O cost.

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct DieMask {
    words: Vec<u64>,
    dies: u32,
}

impl DieMask {
    pub fn new(dies: u32) -> DieMask {
        DieMask { words: vec![0; dies.div_ceil(64) as usize], dies }
    }

    #[inline]
    pub fn set(&mut self, die: u32, on: bool) {
        let w = &mut self.words[(die / 64) as usize];
        let bit = 1u64 << (die % 64);
        if on {
            *w |= bit;
        } else {
            *w &= !bit;
        }
    }

    #[inline]
    pub fn get(&self, die: u32) -> bool {
        self.words[(die / 64) as usize] & (1 << (die % 64)) != 0
    }

    /// The set dies in increasing order.
    #[inline]
    #[allow(clippy::cast_possible_truncation)] // die numbers are u32
    pub fn ones(&self) -> impl Iterator<Item = u32> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let bit = w.trailing_zeros();
                    w &= w - 1;
                    i as u32 * 64 + bit
                })
            })
        })
    }

    /// The mask's words (die `d` is bit `d % 64` of word `d / 64`).
    #[inline]
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    pub fn clear_all(&mut self) {
        self.words.fill(0);
    }

    /// The first die `d` in the cyclic order `cursor, cursor + 1, ..., dies - 1, 0, ...` set in
    /// `self` or (when given) in `other`.
    #[inline]
    #[allow(clippy::cast_possible_truncation)] // die numbers are u32
    pub fn next_from(&self, cursor: u32, other: Option<&DieMask>) -> Option<u32> {
        let n = self.words.len();
        let word = |i: usize| self.words[i] | other.map_or(0, |o| o.words[i]);
        let start = (cursor % self.dies) as usize;
        let (w0, b0) = (start / 64, start % 64);
        // The cursor's own word, from the cursor's bit up.
        let first = word(w0) & (u64::MAX << b0);
        if first != 0 {
            return Some((w0 * 64) as u32 + first.trailing_zeros());
        }
        for k in 1..=n {
            let i = (w0 + k) % n;
            let mut w = word(i);
            if i == w0 {
                w &= !(u64::MAX << b0); // wrapped back: only the bits below the cursor remain
            }
            if w != 0 {
                return Some((i * 64) as u32 + w.trailing_zeros());
            }
        }
        None
    }
}

/// The set bits of `words` in the cyclic order `start, start + 1, ..., 0, ..., start - 1`.
#[allow(clippy::cast_possible_truncation)] // die numbers are u32
pub fn ones_from(words: &[u64], start: u32) -> impl Iterator<Item = u32> + '_ {
    let (w0, b0) = ((start / 64) as usize, start % 64);
    let n = words.len();
    // Word w0 from bit b0 up, the words after it, the words before it, word w0 below b0.
    (0..=n).flat_map(move |k| {
        let i = (w0 + k) % n.max(1);
        let mut w = words.get(i).copied().unwrap_or(0);
        if k == 0 {
            w &= u64::MAX << b0;
        } else if k == n {
            w &= !(u64::MAX << b0);
        }
        std::iter::from_fn(move || {
            (w != 0).then(|| {
                let bit = w.trailing_zeros();
                w &= w - 1;
                i as u32 * 64 + bit
            })
        })
    })
}

#[cfg(test)]
#[allow(clippy::cast_possible_truncation)] // casts of the tests' own small values
mod tests {
    use super::*;

    #[test]
    fn ones_from_walks_the_set_dies_cyclically() {
        let mut m = DieMask::new(130);
        for d in [0, 5, 63, 64, 100, 129] {
            m.set(d, true);
        }
        let from = |s| ones_from(m.words(), s).collect::<Vec<_>>();
        assert_eq!(from(0), vec![0, 5, 63, 64, 100, 129]);
        assert_eq!(from(64), vec![64, 100, 129, 0, 5, 63]);
        assert_eq!(from(101), vec![129, 0, 5, 63, 64, 100]);
        assert_eq!(from(6), vec![63, 64, 100, 129, 0, 5]);
    }

    /// The plain scan the mask replaces.
    fn reference(a: &[bool], b: &[bool], cursor: u32) -> Option<u32> {
        let n = a.len() as u32;
        (0..n).map(|k| (cursor + k) % n).find(|&d| a[d as usize] || b[d as usize])
    }

    #[test]
    fn matches_a_linear_scan() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for dies in [1u32, 2, 5, 63, 64, 65, 128, 130, 200] {
            for _ in 0..200 {
                let mut a = vec![false; dies as usize];
                let mut b = vec![false; dies as usize];
                let (mut ma, mut mb) = (DieMask::new(dies), DieMask::new(dies));
                for d in 0..dies {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let (ia, ib) = (x.is_multiple_of(11), x.is_multiple_of(13));
                    a[d as usize] = ia;
                    b[d as usize] = ib;
                    ma.set(d, ia);
                    mb.set(d, ib);
                    assert_eq!(ma.get(d), ia);
                }
                let cursor = (x >> 20) as u32 % dies;
                let none = vec![false; dies as usize];
                assert_eq!(ma.next_from(cursor, Some(&mb)), reference(&a, &b, cursor));
                assert_eq!(ma.next_from(cursor, None), reference(&a, &none, cursor));
                assert!(ma.ones().eq((0..dies).filter(|&d| a[d as usize])));
            }
        }
    }
}
