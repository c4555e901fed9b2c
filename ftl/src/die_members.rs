//! Which block a superblock holds on each die: greedy's "the die's block in the superblock
//! being collected" becomes a look-up instead of a pass over the die's blocks (which cost
//! `ssdlab bench` ~1.5% of its time). A superblock nearly always has one block per die; where
//! it has more (a die had no free block when the stream came round), the entry says so and the
//! caller falls back to the pass.

/// No current member on the die.
const NONE: u32 = u32::MAX;
/// Two or more members joined on the die (the entry stays so until the slot is reused).
const MANY: u32 = u32::MAX - 1;

/// What a superblock holds on one die.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnDie {
    None,
    One(u32),
    /// More than one member, or not known: ask the block table.
    Many,
}

/// Per superblock slot and die, the member block. Grown as slots are used: slots are handed
/// out lowest first, so the table stays about one entry per block.
#[derive(Clone, Debug, Default)]
pub struct DieMembers {
    entries: Vec<u32>,
    width: usize,
    /// False after deserialisation (the table is not saved): every look-up answers `Many`
    /// until the owner rebuilds it.
    pub(crate) valid: bool,
}

impl DieMembers {
    pub fn new(dies: u32) -> Self {
        DieMembers { entries: Vec::new(), width: dies.max(1) as usize, valid: true }
    }

    fn at(&self, slot: u32, die: u32) -> usize {
        slot as usize * self.width + die as usize
    }

    /// Slot `slot` starts a new superblock: no members.
    pub fn clear_slot(&mut self, slot: u32) {
        let at = self.at(slot, 0);
        if let Some(e) = self.entries.get_mut(at..at + self.width) {
            e.fill(NONE);
        }
    }

    /// Block `b` on `die` joined `slot`.
    pub fn joined(&mut self, slot: u32, die: u32, b: u32) {
        let at = self.at(slot, die);
        if at >= self.entries.len() {
            self.entries.resize(self.at(slot + 1, 0), NONE);
        }
        let e = &mut self.entries[at];
        *e = if *e == NONE { b } else { MANY };
    }

    /// Block `b` on `die` left `slot` (erased).
    pub fn left(&mut self, slot: u32, die: u32, b: u32) {
        let at = self.at(slot, die);
        if let Some(e) = self.entries.get_mut(at) {
            if *e == b {
                *e = NONE;
            }
        }
    }

    /// What `slot` holds on `die`.
    #[inline]
    pub fn on_die(&self, slot: u32, die: u32) -> OnDie {
        if !self.valid {
            return OnDie::Many;
        }
        match self.entries.get(self.at(slot, die)).copied().unwrap_or(NONE) {
            NONE => OnDie::None,
            MANY => OnDie::Many,
            b => OnDie::One(b),
        }
    }

    /// The table of `dies` dies built from every block's slot (`NO_GROUP`, i.e. `u32::MAX`,
    /// for none).
    pub fn built(of_block: &[u32], dies: u32, blocks_per_die: u32) -> Self {
        let mut m = DieMembers::new(dies);
        for (b, &g) in of_block.iter().enumerate() {
            if g != u32::MAX {
                #[allow(clippy::cast_possible_truncation)] // block ids are u32 by Layout's construction
                m.joined(g, b as u32 / blocks_per_die, b as u32);
            }
        }
        m
    }

    /// Checks every entry against the blocks' slots: a `One` entry names a member on its die
    /// that is the only one there.
    pub fn check(&self, of_block: &[u32], blocks_per_die: u32) -> Result<(), String> {
        if !self.valid {
            return Ok(());
        }
        let mut count = vec![0u32; self.entries.len()];
        for (b, &g) in of_block.iter().enumerate() {
            if g == u32::MAX {
                continue;
            }
            #[allow(clippy::cast_possible_truncation)] // block ids are u32 by Layout's construction
            let (die, b) = (b as u32 / blocks_per_die, b as u32);
            let at = self.at(g, die);
            match self.entries.get(at).copied().unwrap_or(NONE) {
                MANY => {}
                e if e == b => count[at] += 1,
                e => return Err(format!("block {b} in superblock slot {g} on die {die}, but the die's entry is {e}")),
            }
        }
        match self.entries.iter().zip(&count).position(|(&e, &n)| e != NONE && e != MANY && n != 1) {
            Some(at) => Err(format!("die-member entry {at} names block {} outside its slot", self.entries[at])),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_member_per_die_is_found_and_a_second_makes_the_entry_many() {
        let mut m = DieMembers::new(2);
        m.joined(3, 1, 17);
        assert_eq!((m.on_die(3, 1), m.on_die(3, 0), m.on_die(9, 0)), (OnDie::One(17), OnDie::None, OnDie::None));
        m.left(3, 1, 17);
        assert_eq!(m.on_die(3, 1), OnDie::None);
        m.joined(3, 1, 17);
        m.joined(3, 1, 19);
        m.left(3, 1, 17);
        assert_eq!(m.on_die(3, 1), OnDie::Many, "a second member on the die is not tracked one by one");
        m.clear_slot(3);
        assert_eq!(m.on_die(3, 1), OnDie::None);
        m.valid = false;
        assert_eq!(m.on_die(3, 1), OnDie::Many);
    }

    #[test]
    fn rebuild_and_check_agree_with_the_blocks_slots() {
        // 2 dies x 4 blocks; slot 0 has blocks 0 and 4, slot 1 has blocks 1 and 2 (both die 0).
        let of_block = [0, 1, 1, u32::MAX, 0, u32::MAX, u32::MAX, u32::MAX];
        let m = DieMembers::built(&of_block, 2, 4);
        assert_eq!((m.on_die(0, 0), m.on_die(0, 1), m.on_die(1, 0)), (OnDie::One(0), OnDie::One(4), OnDie::Many));
        assert!(m.check(&of_block, 4).is_ok());
        let moved = [0, 1, 1, u32::MAX, 1, u32::MAX, u32::MAX, u32::MAX];
        assert!(m.check(&moved, 4).is_err(), "block 4 now in slot 1, entry still says slot 0");
    }
}
