//! Superblocks: the blocks a write stream opens together, one per die, and their live data.
//!
//! Firmware stripes a stream over every die and collects garbage a superblock (a block on each
//! die, written at the same time) at once. Greedy then compares superblocks, not die-blocks, and
//! that matters for a reduced drive: its die-blocks are short (5 word lines of 512 at 1/256), so
//! the valid counts of die-blocks written at the same time scatter by ~2.7% of a block
//! (binomially), and greedy on die-blocks picks the lucky ones and lowers WA by ~2% against the
//! full-size drive; a superblock of 128 of them scatters like a full-length die-block and gives
//! the full-size WA (docs/scale.md, "Greedy by superblock").
//!
//! A stream's consecutive `dies` block openings form one superblock (the stream moves over the
//! dies in turn, so they are one block per die unless a die had no free block). Each superblock
//! has a slot with its member count, valid units and written units, kept current as units are
//! written, overwritten, moved and erased; a slot is reused once its last member is erased.

use crate::die_members::{DieMembers, OnDie};
use crate::ids::BlockId;

/// Words of a bit per die.
fn words_for(dies: u32) -> usize {
    (dies.max(1) as usize).div_ceil(64)
}

/// Superblock of a block never opened (reserved blocks, and free blocks of a new drive).
pub const NO_GROUP: u32 = u32::MAX;

/// A superblock as held between calls: its slot and its number there.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct SuperblockRef {
    slot: u32,
    serial: u64,
}

/// A superblock's valid and written units.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fill {
    pub valid: u64,
    pub written: u64,
}

/// Per-block superblock slots and per-slot sums.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct Superblocks {
    /// Slot of each block's superblock (`NO_GROUP` if it was never opened since it was erased).
    of_block: Vec<u32>,
    /// Per slot: blocks in it that are not erased yet.
    members: Vec<u32>,
    /// Per slot: valid units of its members, and units written into them (side by side: greedy
    /// reads both for every candidate it weighs).
    fill: Vec<Fill>,
    /// Slots with no members.
    free_slots: Vec<u32>,
    /// Per slot: the number of the superblock in it (superblocks are numbered as they start, so
    /// a reference to a slot can tell whether the slot has been reused since).
    serial: Vec<u64>,
    /// Superblocks started so far.
    started: u64,
    /// Per stream: the slot it opens blocks into and how many it opened there.
    current: [u32; 2],
    opened_in_current: [u32; 2],
    /// Blocks a superblock spans (the dies).
    width: u32,
    /// Per slot, `words` words of a bit per die: the superblock may still hold a GC candidate
    /// there (set when a block on the die joins it, cleared when a search of the die finds
    /// none), so greedy passes over the dies a superblock it collects is done with.
    may_hold: Vec<u64>,
    words: usize,
    blocks_per_die: u32,
    /// Per slot and die, the member block (derived from `of_block`; not saved, rebuilt on
    /// first use after a restore).
    #[serde(skip)]
    die_members: DieMembers,
}

impl Superblocks {
    /// `blocks` blocks on `dies` dies, none opened.
    #[allow(clippy::cast_possible_truncation)] // block ids are u32 by Layout's construction
    pub fn new(blocks: usize, dies: u32) -> Self {
        // Every slot in use has a member, so `blocks` slots suffice, plus one per stream whose
        // superblock has just been started.
        let slots = blocks + 2;
        Superblocks {
            of_block: vec![NO_GROUP; blocks],
            members: vec![0; slots],
            fill: vec![Fill::default(); slots],
            free_slots: (0..slots as u32).rev().collect(),
            serial: vec![0; slots],
            started: 0,
            current: [NO_GROUP; 2],
            opened_in_current: [0; 2],
            width: dies.max(1),
            may_hold: vec![0; slots * words_for(dies)],
            words: words_for(dies),
            blocks_per_die: (blocks as u32 / dies.max(1)).max(1),
            die_members: DieMembers::new(dies),
        }
    }

    #[allow(clippy::cast_possible_truncation)] // block ids are u32 by Layout's construction
    fn die_of(&self, b: usize) -> u32 {
        b as u32 / self.blocks_per_die
    }

    /// What slot `g`'s superblock holds on `die` (rebuilding the table after a restore).
    pub fn member_on_die(&mut self, g: u32, die: u32) -> OnDie {
        if !self.die_members.valid {
            self.die_members = DieMembers::built(&self.of_block, self.width, self.blocks_per_die);
        }
        self.die_members.on_die(g, die)
    }

    /// Bit of die `die` in slot `g`'s words: (word index, mask).
    fn die_bit(&self, g: u32, die: u32) -> (usize, u64) {
        (g as usize * self.words + (die / 64) as usize, 1u64 << (die % 64))
    }

    /// Slot `g`'s words in `may_hold`.
    fn words_of(&self, g: u32) -> std::ops::Range<usize> {
        let at = g as usize * self.words;
        at..at + self.words
    }

    /// Block `b` joined slot `g`'s superblock: it may hold a candidate on `b`'s die.
    #[allow(clippy::cast_possible_truncation)] // block ids are u32 by Layout's construction
    fn mark_may_hold(&mut self, g: u32, b: usize) {
        let (w, m) = self.die_bit(g, b as u32 / self.blocks_per_die);
        self.may_hold[w] |= m;
    }

    /// Whether slot `g`'s superblock may hold a GC candidate on `die`.
    pub fn may_hold(&self, g: u32, die: u32) -> bool {
        let (w, m) = self.die_bit(g, die);
        self.may_hold.get(w).is_some_and(|&x| x & m != 0)
    }

    /// A search found no candidate of slot `g`'s superblock on `die`.
    pub fn done_on_die(&mut self, g: u32, die: u32) {
        let (w, m) = self.die_bit(g, die);
        if let Some(x) = self.may_hold.get_mut(w) {
            *x &= !m;
        }
    }

    /// Whether superblock `r` may still hold a GC candidate on some die (false once its slot
    /// was reused).
    pub fn may_hold_any(&self, r: SuperblockRef) -> bool {
        self.slot(r).is_some_and(|g| self.may_hold[self.words_of(g)].iter().any(|&x| x != 0))
    }

    /// `b` was opened by `stream` (0 host, 1 GC): it joins the stream's current superblock, or
    /// starts the next one when the current has a block on every die.
    pub fn open(&mut self, b: BlockId, stream: u8) {
        let s = usize::from(stream.min(1));
        if self.current[s] == NO_GROUP || self.opened_in_current[s] == self.width {
            let done = self.current[s];
            self.current[s] = self.free_slots.pop().unwrap_or(NO_GROUP);
            self.opened_in_current[s] = 0;
            if let Some(n) = self.serial.get_mut(self.current[s] as usize) {
                self.started += 1;
                *n = self.started;
                let words = self.words_of(self.current[s]);
                self.may_hold[words].fill(0);
                self.die_members.clear_slot(self.current[s]);
            }
            // A finished superblock whose blocks were all erased while it was open.
            if done != NO_GROUP && self.members[done as usize] == 0 {
                self.fill[done as usize].written = 0;
                self.free_slots.push(done);
            }
        }
        let g = self.current[s];
        self.of_block[b.idx()] = g;
        if g != NO_GROUP {
            self.mark_may_hold(g, b.idx());
            if self.die_members.valid {
                self.die_members.joined(g, self.die_of(b.idx()), b.get());
            }
            self.members[g as usize] += 1;
            self.opened_in_current[s] += 1;
        }
    }

    /// `n` units were written into `b`, `live` of them valid.
    #[inline(always)]
    pub fn wrote(&mut self, b: BlockId, n: u32, live: u32) {
        // `NO_GROUP` indexes no slot.
        if let Some(f) = self.fill.get_mut(self.of_block[b.idx()] as usize) {
            f.written += u64::from(n);
            f.valid += u64::from(live);
        }
    }

    /// `b`'s superblock: its slot and number (`None` for a block in none).
    pub fn of(&self, b: BlockId) -> Option<SuperblockRef> {
        let slot = self.of_block[b.idx()];
        self.serial.get(slot as usize).map(|&serial| SuperblockRef { slot, serial })
    }

    /// The slot of superblock `r` if it still holds it (not freed and reused since).
    pub fn slot(&self, r: SuperblockRef) -> Option<u32> {
        (self.serial.get(r.slot as usize) == Some(&r.serial)).then_some(r.slot)
    }

    /// Hints the CPU to fetch `b`'s superblock slot (no effect on contents).
    #[inline(always)]
    pub fn prefetch(&self, b: usize) {
        crate::core::prefetch(&self.of_block, b);
    }

    /// `n` units of `b` became invalid.
    #[inline(always)]
    pub fn lost(&mut self, b: BlockId, n: u32) {
        if let Some(f) = self.fill.get_mut(self.of_block[b.idx()] as usize) {
            f.valid -= u64::from(n);
        }
    }

    /// `b`, with `written` units and none valid, was erased: it leaves its superblock, whose
    /// slot is freed with its last member.
    pub fn erased(&mut self, b: BlockId, written: u32) {
        let g = std::mem::replace(&mut self.of_block[b.idx()], NO_GROUP);
        if g == NO_GROUP {
            return;
        }
        if self.die_members.valid {
            self.die_members.left(g, self.die_of(b.idx()), b.get());
        }
        let i = g as usize;
        self.fill[i].written -= u64::from(written);
        self.members[i] -= 1;
        let opening = self.current.contains(&g);
        if self.members[i] == 0 && !opening {
            debug_assert_eq!(self.fill[i].valid, 0);
            self.fill[i].written = 0;
            self.free_slots.push(g);
        }
    }

    /// Valid and written units of `b`'s superblock (`None` for a block in none).
    #[cfg(test)]
    pub(crate) fn fill_of(&self, b: BlockId) -> Option<Fill> {
        let g = self.of_block[b.idx()];
        (g != NO_GROUP).then(|| self.fill[g as usize])
    }

    /// Superblock slots of a contiguous run of blocks (`NO_GROUP` where none), and the fills
    /// they index: greedy's scan over one die reads these directly.
    #[inline]
    pub fn slots_and_fills(&self, blocks: std::ops::Range<usize>) -> (&[u32], &[Fill]) {
        (&self.of_block[blocks], &self.fill)
    }

    /// Recomputes the sums from every block's counts (after recovery rewrote them wholesale).
    pub fn recount(&mut self, valid: &[u32], written: &[u32]) {
        self.fill.fill(Fill::default());
        for (b, &g) in self.of_block.iter().enumerate() {
            if g != NO_GROUP {
                let f = &mut self.fill[g as usize];
                f.valid += u64::from(valid[b]);
                f.written += u64::from(written[b]);
            }
        }
    }

    /// Rebuilds membership and sums from the blocks after recovery rewrote them: `free` blocks
    /// leave their superblocks, slots without members are freed.
    #[allow(clippy::cast_possible_truncation)] // slot ids are u32 by construction
    pub fn rebuild(&mut self, free: impl Fn(usize) -> bool, valid: &[u32], written: &[u32]) {
        for (b, g) in self.of_block.iter_mut().enumerate() {
            if free(b) {
                *g = NO_GROUP;
            }
        }
        self.members.fill(0);
        self.may_hold.fill(0);
        for b in 0..self.of_block.len() {
            let g = self.of_block[b];
            if g != NO_GROUP {
                self.members[g as usize] += 1;
                self.mark_may_hold(g, b);
            }
        }
        self.recount(valid, written);
        self.current = [NO_GROUP; 2];
        self.opened_in_current = [0; 2];
        // Membership was rewritten: references taken before name other superblocks now.
        for n in &mut self.serial {
            self.started += 1;
            *n = self.started;
        }
        self.free_slots = (0..self.members.len() as u32).rev().filter(|&g| self.members[g as usize] == 0).collect();
        self.die_members = DieMembers::built(&self.of_block, self.width, self.blocks_per_die);
    }

    /// Checks the sums and member counts against every block's counts.
    pub fn check(&self, valid: &[u32], written: &[u32]) -> Result<(), String> {
        let mut want = self.clone();
        want.recount(valid, written);
        let mut members = vec![0u32; self.members.len()];
        for &g in self.of_block.iter().filter(|&&g| g != NO_GROUP) {
            members[g as usize] += 1;
        }
        self.die_members.check(&self.of_block, self.blocks_per_die)?;
        let have = self.fill.iter().zip(&self.members);
        for (g, ((f, m), (wf, wm))) in have.zip(want.fill.iter().zip(&members)).enumerate() {
            if (f, m) != (wf, wm) {
                return Err(format!(
                    "superblock slot {g}: valid/written/members {}/{}/{m} but blocks hold {}/{}/{wm}",
                    f.valid, f.written, wf.valid, wf.written
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_fills_one_superblock_per_round_of_dies_and_frees_it_with_its_last_block() {
        let mut s = Superblocks::new(8, 2);
        let b = |i| BlockId::new(i);
        s.open(b(0), 0);
        s.open(b(4), 0);
        s.open(b(1), 0); // third opening on two dies: a new superblock
        assert_eq!(s.fill_of(b(0)), Some(Fill { valid: 0, written: 0 }));
        s.wrote(b(0), 10, 10);
        s.wrote(b(4), 10, 8);
        s.wrote(b(1), 10, 10);
        assert_eq!(s.fill_of(b(4)), Some(Fill { valid: 18, written: 20 }), "the first two blocks share one superblock");
        assert_eq!(s.fill_of(b(1)), Some(Fill { valid: 10, written: 10 }));
        s.lost(b(0), 10);
        s.erased(b(0), 10);
        assert_eq!(s.fill_of(b(4)), Some(Fill { valid: 8, written: 10 }));
        let free_before = s.free_slots.len();
        s.lost(b(4), 8);
        s.erased(b(4), 10);
        assert_eq!(s.free_slots.len(), free_before + 1, "slot not freed with its last member");
        assert!(s.check(&[0, 10, 0, 0, 0, 0, 0, 0], &[0, 10, 0, 0, 0, 0, 0, 0]).is_ok());
    }

    #[test]
    fn a_reference_lapses_when_its_slot_is_reused() {
        let mut s = Superblocks::new(8, 2);
        let b = |i| BlockId::new(i);
        s.open(b(0), 0);
        s.open(b(4), 0);
        let r = s.of(b(0)).unwrap();
        assert_eq!(s.of(b(4)), Some(r));
        s.open(b(1), 0); // the next superblock starts: the first is complete
        s.erased(b(0), 0);
        s.erased(b(4), 0); // its last member: the slot is free
        assert!(s.slot(r).is_some(), "not reused yet");
        s.open(b(5), 0);
        s.open(b(2), 0); // a third superblock takes the freed slot
        assert_eq!(s.of(b(2)).map(|n| n.slot), Some(r.slot));
        assert_eq!(s.slot(r), None);
    }
}
