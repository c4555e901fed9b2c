//! GC victim choice, as pure decision functions over the block table (policy apart from the
//! relocation that carries it out).
//!
//! - Greedy: least valid data (Rosenblum & Ousterhout's "greedy" cleaner), measured per
//!   superblock as firmware collects (`superblocks.rs`): the chosen die's block whose superblock
//!   holds the fewest valid units per unit written, then its own fewest valid units. With large
//!   blocks it behaves like FIFO for uniform writes (Desnoyers 2012). A superblock once chosen
//!   is collected on every die before greedy weighs again, so the pass over the chosen die's
//!   blocks runs about once per superblock (ties: the block that reached its count last, see
//!   `Candidates`).
//! - Cost-benefit: maximise `(1 - u) * age / (2u)` (Rosenblum & Ousterhout 1992; the `2u` counts
//!   reading and rewriting the live data), with age in host MUs written since the block closed.
//!   Better than greedy under skew with separated streams, because cold blocks are collected at
//!   higher utilisation. Scored over the chosen die's blocks per victim (a lane collects on one
//!   die, so a choice costs that die's blocks, not the drive's).
//! - Either policy: when GC would pad its open program unit for blocked host writes (no PLP,
//!   no block free), the candidate with the fewest valid units fills it instead.

use crate::blocks::BlockTable;
use crate::config::GcPolicy;
use crate::die_mask::DieMask;
use crate::ids::BlockId;
use crate::superblocks::SuperblockRef;
use std::collections::VecDeque;

/// Superblocks greedy collects at once, at most (the oldest is let go beyond). At the default
/// scale caps of 32, 64 and 128 give the same run; 4 let superblocks go half collected and
/// raised WA by 0.6-0.9% against 64 (docs/scale.md).
const COLLECTING_MAX: usize = 64;

/// Victim chooser with the state it keeps between picks.
#[derive(serde::Serialize, serde::Deserialize, Debug, Default)]
pub struct VictimChooser {
    /// Where the search for the neediest die starts (rotates, so equal dies take turns).
    die_cursor: u32,
    /// The superblocks greedy is collecting, oldest first: a die's lane takes its block in the
    /// oldest that has one before greedy weighs the superblocks again (at most
    /// `COLLECTING_MAX`; the oldest is let go when another starts).
    collecting: VecDeque<SuperblockRef>,
    /// Mask words of the idle dies at a supply level (reused between picks).
    #[serde(skip)]
    scratch: Vec<u64>,
}

impl VictimChooser {
    /// Picks the block a GC lane collects next: on the die that most needs a free block (fewest
    /// free plus erase-pending blocks; rotating among equals) of those whose lane is idle (not
    /// in `busy`), chosen there by the policy; the next neediest when that die has no
    /// candidate.
    pub fn choose_for_lane(
        &mut self,
        blocks: &mut BlockTable,
        policy: GcPolicy,
        mus_per_block: u32,
        now_mus: u64,
        busy: &DieMask,
    ) -> Option<BlockId> {
        let dies = blocks.dies();
        let start = self.die_cursor % dies;
        // Supply levels from the lowest up; at each, its idle dies from the cursor on. The
        // lowest level's first die nearly always has a candidate.
        let mut idle = std::mem::take(&mut self.scratch);
        let mut floor = 0;
        let found = 'levels: loop {
            let Some(level) = blocks.supply_levels().lowest_idle_level(floor, busy, &mut idle) else {
                break None; // no idle lane with a candidate
            };
            for die in crate::die_mask::ones_from(&idle, start) {
                if let Some(b) = self.choose_on_die(blocks, die, policy, mus_per_block, now_mus) {
                    self.die_cursor = if die + 1 == dies { 0 } else { die + 1 };
                    break 'levels Some(b);
                }
            }
            floor = level + 1;
        };
        self.scratch = idle;
        found
    }

    /// The policy's choice among the candidates of one die. Greedy collects a superblock at a
    /// time, as superblock firmware does: the die's block in the oldest superblock being
    /// collected that has one there, else (and then that superblock is collected too) the die's
    /// block whose superblock holds the least valid data per unit written. Cost-benefit scores the die's
    /// blocks (ties go to the lowest block id, for determinism).
    fn choose_on_die(
        &mut self,
        blocks: &mut BlockTable,
        die: u32,
        policy: GcPolicy,
        mus_per_block: u32,
        now_mus: u64,
    ) -> Option<BlockId> {
        match policy {
            GcPolicy::Greedy => {
                while self.collecting.front().is_some_and(|&r| !blocks.superblock_may_hold_any(r)) {
                    self.collecting.pop_front();
                }
                let held = self.collecting.iter().find_map(|&r| blocks.candidate_in_superblock(r, die, mus_per_block));
                if held.is_some() {
                    return held;
                }
                let b = blocks.emptiest_superblock_on_die(die, mus_per_block)?;
                if self.collecting.len() == COLLECTING_MAX {
                    self.collecting.pop_front();
                }
                self.collecting.extend(blocks.superblock_of(b));
                Some(b)
            }
            GcPolicy::CostBenefit => cost_benefit_on_die(blocks, die, mus_per_block, now_mus),
        }
    }
}

impl crate::core::FtlCore {
    /// With no block free, no lane moving and room left in GC's open unit: the candidate with
    /// the fewest valid units, whose data fills that unit (see `SimSsd::pad_gc_unit`).
    #[cold]
    pub(crate) fn victim_to_fill_open_unit(&self) -> Option<BlockId> {
        let si = self.stream_index(crate::core::GC);
        if self.blocks.free_total() > 0 || self.reloc.any_active() || !self.open_room_reaches(si, 1) {
            return None;
        }
        let idle = (0..self.layout.dies).filter(|&d| self.reloc.idle(d));
        let fewest = idle.filter_map(|d| self.blocks.fewest_valid_on_die(d, self.layout.mus_per_block));
        fewest.min_by_key(|b| self.blocks.valid[b.idx()])
    }
}

/// Cost-benefit's choice among the candidates of one die (ties go to the lowest block id, for
/// determinism).
fn cost_benefit_on_die(blocks: &BlockTable, die: u32, mus_per_block: u32, now_mus: u64) -> Option<BlockId> {
    blocks
        .die_blocks(die)
        .filter(|&b| blocks.is_candidate(b, mus_per_block))
        .map(|b| {
            let age = now_mus.saturating_sub(blocks.closed_at[b.idx()]);
            (score(blocks.valid[b.idx()], mus_per_block, age), b)
        })
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)))
        .map(|(_, b)| b)
}

/// Cost-benefit score of a block with `valid` of `mus_per_block` units, closed `age` ago.
pub fn score(valid: u32, mus_per_block: u32, age: u64) -> f64 {
    if valid == 0 {
        return f64::INFINITY;
    }
    let u = valid as f64 / mus_per_block as f64;
    (1.0 - u) * (age + 1) as f64 / (2.0 * u)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2 dies x 8 blocks of 48 units; `valid[b]` units live in closed block `b`.
    fn table(valid: &[(u32, u32)]) -> (BlockTable, u32) {
        let l = crate::layout::two_die_layout(8);
        let mut t = BlockTable::new(&l, 0);
        for &(die, n) in valid {
            let b = t.take_free(die, 0).unwrap();
            t.write_ptr[b.idx()] = l.mus_per_block;
            t.valid[b.idx()] = n;
            t.close(b, 0);
        }
        (t, l.mus_per_block)
    }

    #[test]
    fn greedy_collects_on_the_die_with_the_fewest_free_blocks() {
        // Die 0 has the emptiest block drive-wide, but die 1 has fewer free blocks left.
        let (mut t, mpb) = table(&[(0, 5), (1, 30), (1, 20), (1, 40)]);
        let v = VictimChooser::default().choose_for_lane(&mut t, GcPolicy::Greedy, mpb, 0, &DieMask::new(2)).unwrap();
        assert_eq!(v.get() / 8, 1, "victim {v} is not on die 1");
        assert_eq!(t.valid[v.idx()], 20, "not the fewest-valid block of die 1");
    }

    #[test]
    fn greedy_finishes_the_superblock_it_collects_before_weighing_again() {
        // Two superblocks over the two dies, written in turn: A = 10 + 30 valid, B = 24 + 24.
        let l = crate::layout::two_die_layout(8);
        let mpb = l.mus_per_block;
        let mut t = BlockTable::new(&l, 0);
        let mut open = |die, valid| {
            let b = t.take_free(die, 0).unwrap();
            t.wrote(b, mpb, valid);
            b
        };
        let (a0, a1, b0, b1) = (open(0, 10), open(1, 30), open(0, 24), open(1, 24));
        for b in [a0, a1, b0, b1] {
            t.close(b, 0);
        }
        let mut c = VictimChooser::default();
        let first = c.choose_for_lane(&mut t, GcPolicy::Greedy, mpb, 0, &DieMask::new(2)).unwrap();
        assert_eq!(first, a0, "A holds less valid data");
        t.mark_victim(first);
        // B's data is overwritten until B holds less than A; die 1 (fewer free blocks now) still
        // gives its block of A, the superblock being collected.
        for b in [b0, b1] {
            for _ in 0..20 {
                t.dec_valid(b);
            }
        }
        let second = c.choose_for_lane(&mut t, GcPolicy::Greedy, mpb, 0, &DieMask::new(2)).unwrap();
        assert_eq!(second, a1, "left A half collected");
        t.mark_victim(second);
        let third = c.choose_for_lane(&mut t, GcPolicy::Greedy, mpb, 0, &DieMask::new(2)).unwrap();
        assert!(third == b0 || third == b1, "A is done: B is the emptiest");
    }

    #[test]
    fn a_pending_victim_counts_as_its_dies_supply() {
        // Die 0 has one free block fewer; once its victim is chosen (erase pending) the dies are
        // even, so the next victim comes from die 1.
        let (mut t, mpb) = table(&[(0, 10), (0, 12), (0, 14), (1, 10), (1, 12)]);
        let mut c = VictimChooser::default();
        let a = c.choose_for_lane(&mut t, GcPolicy::Greedy, mpb, 0, &DieMask::new(2)).unwrap();
        assert_eq!(a.get() / 8, 0);
        t.mark_victim(a);
        let b = c.choose_for_lane(&mut t, GcPolicy::Greedy, mpb, 0, &DieMask::new(2)).unwrap();
        assert_eq!(b.get() / 8, 1, "second victim {b} not on die 1");
    }
}
