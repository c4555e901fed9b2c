//! Each die's supply (blocks free or freed by a pending erase) and, per supply level, the dies
//! at it: GC's search for the neediest idle die reads the lowest levels' masks instead of
//! comparing every die's supply (a pass over 64-128 dies per victim was ~1.3% of `ssdlab
//! bench`). Derived from the block table, never saved.

use crate::die_mask::DieMask;

#[derive(Clone, Debug, Default)]
pub struct SupplyLevels {
    supply: Vec<u32>,
    /// `at[s]`: the dies whose supply is `s` (grown as levels are reached).
    at: Vec<DieMask>,
    dies: u32,
}

impl SupplyLevels {
    /// The levels of `supplies` (one per die).
    #[allow(clippy::cast_possible_truncation)] // die numbers are u32
    pub fn new(supplies: Vec<u32>) -> Self {
        let mut l = SupplyLevels { supply: vec![0; supplies.len()], at: Vec::new(), dies: supplies.len() as u32 };
        for (d, s) in supplies.into_iter().enumerate() {
            l.level_mut(0).set(d as u32, true);
            l.set(d as u32, s);
        }
        l
    }

    /// Whether it was built (it is empty when new or restored).
    pub fn is_built(&self) -> bool {
        !self.supply.is_empty()
    }

    fn level_mut(&mut self, s: u32) -> &mut DieMask {
        let dies = self.dies;
        if self.at.len() <= s as usize {
            self.at.resize_with(s as usize + 1, || DieMask::new(dies));
        }
        &mut self.at[s as usize]
    }

    /// `die`'s supply is now `s`.
    #[inline]
    pub fn set(&mut self, die: u32, s: u32) {
        let old = std::mem::replace(&mut self.supply[die as usize], s);
        if old != s {
            self.at[old as usize].set(die, false);
            self.level_mut(s).set(die, true);
        }
    }

    /// Supply of every die, by die.
    #[cfg(test)]
    pub fn supplies(&self) -> &[u32] {
        &self.supply
    }

    /// The lowest level at or above `floor` holding a die not in `busy`, and those dies' mask
    /// words (written into `out`).
    pub fn lowest_idle_level(&self, floor: u32, busy: &DieMask, out: &mut Vec<u64>) -> Option<u32> {
        for (s, mask) in self.at.iter().enumerate().skip(floor as usize) {
            out.clear();
            out.extend(mask.words().iter().zip(busy.words()).map(|(&m, &b)| m & !b));
            if out.iter().any(|&w| w != 0) {
                #[allow(clippy::cast_possible_truncation)] // levels are block counts, u32
                return Some(s as u32);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lowest_level_with_an_idle_die_is_found() {
        let mut l = SupplyLevels::new(vec![3, 1, 1, 5]);
        let mut busy = DieMask::new(4);
        let mut out = Vec::new();
        assert_eq!(l.lowest_idle_level(0, &busy, &mut out), Some(1));
        assert_eq!(out, vec![0b0110]);
        busy.set(1, true);
        busy.set(2, true);
        assert_eq!(l.lowest_idle_level(0, &busy, &mut out), Some(3));
        assert_eq!(l.lowest_idle_level(4, &busy, &mut out), Some(5));
        l.set(3, 0);
        assert_eq!(l.lowest_idle_level(0, &busy, &mut out), Some(0));
        assert_eq!((l.supplies(), out.as_slice()), (&[3, 1, 1, 0][..], &[0b1000u64][..]));
        assert_eq!(l.lowest_idle_level(4, &busy, &mut out), None);
    }
}
