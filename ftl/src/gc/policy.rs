//! GC victim choice, as pure decision functions over the block table (policy apart from the
//! relocation that carries it out).
//!
//! - Greedy: fewest valid units (Rosenblum & Ousterhout's "greedy" cleaner). With large blocks it
//!   behaves like FIFO for uniform writes (Desnoyers 2012). One pass over the chosen die's valid
//!   counts per victim (ties: the block that reached its count last, see `BlockTable::stamp`).
//! - Cost-benefit: maximise `(1 - u) * age / (2u)` (Rosenblum & Ousterhout 1992; the `2u` counts
//!   reading and rewriting the live data), with age in host MUs written since the block closed.
//!   Better than greedy under skew with separated streams, because cold blocks are collected at
//!   higher utilisation. Scoring every block per victim is O(blocks), so candidates are ranked in
//!   batches: one scan ranks the best `blocks / CB_BATCH_DIVISOR` blocks, later picks take the
//!   next still-closed candidate, and the batch is refreshed when exhausted. Scores move slowly
//!   (a block's age grows, its utilisation only falls), so a batch stays near-optimal.

use crate::blocks::{BlockState, BlockTable};
use crate::config::GcPolicy;

/// A cost-benefit batch holds this fraction of all blocks (at least one).
pub const CB_BATCH_DIVISOR: usize = 256;

/// Victim chooser with the state the policies keep between picks.
#[derive(serde::Serialize, serde::Deserialize, Debug, Default)]
pub struct VictimChooser {
    /// Cost-benefit candidates, best last.
    batch: Vec<u32>,
    /// Where the search for the neediest die starts (rotates, so equal dies take turns).
    die_cursor: u32,
}

impl VictimChooser {
    /// Picks the closed block to collect next, or `None` when no closed block has an invalid unit.
    ///
    /// The victim comes from the die that most needs a free block (fewest free plus
    /// erase-pending blocks), chosen there by the policy. Write streams stripe program units
    /// over the dies round-robin and skip a die without a free block, so a die left without
    /// one idles while the others program: firmware that collects superblocks (one block per
    /// die) never lets that happen, and neither does this. Falls back to the whole drive when
    /// the neediest dies hold no candidate.
    #[allow(clippy::cast_possible_truncation)] // die numbers are u32 by Layout's construction
    pub fn choose(
        &mut self,
        blocks: &mut BlockTable,
        policy: GcPolicy,
        mus_per_block: u32,
        now_mus: u64,
    ) -> Option<u32> {
        let dies = blocks.dies();
        let need = blocks.supplies().iter().copied().min()?;
        let start = (self.die_cursor % dies) as usize;
        // The dies with that supply, from the cursor on, wrapping.
        for (lo, hi) in [(start, dies as usize), (0, start)] {
            let mut d = lo;
            while let Some(k) = blocks.supplies()[d..hi].iter().position(|&s| s == need) {
                let die = (d + k) as u32;
                if let Some(b) = choose_on_die(blocks, die, policy, mus_per_block, now_mus) {
                    self.die_cursor = (die + 1) % dies;
                    return Some(b);
                }
                d += k + 1;
            }
        }
        match policy {
            GcPolicy::Greedy => blocks.min_valid_closed(mus_per_block),
            GcPolicy::CostBenefit => self.cost_benefit(blocks, mus_per_block, now_mus),
        }
    }

    /// Picks the block a GC lane collects next: on the die that most needs a free block (fewest
    /// free plus erase-pending blocks; rotating among equals) of those whose lane is `idle`,
    /// chosen there by the policy; the next neediest when that die has no candidate.
    pub fn choose_for_lane(
        &mut self,
        blocks: &mut BlockTable,
        policy: GcPolicy,
        mus_per_block: u32,
        now_mus: u64,
        idle: impl Fn(u32) -> bool,
    ) -> Option<u32> {
        let dies = blocks.dies();
        let start = self.die_cursor % dies;
        // One pass finds the first neediest idle die from the cursor on, which nearly always
        // has a candidate.
        let supplies = blocks.supplies();
        let (mut level, mut die) = (u32::MAX, dies);
        for range in [start..dies, 0..start] {
            for d in range {
                let s = supplies[d as usize];
                if s < level && idle(d) {
                    (level, die) = (s, d);
                }
            }
        }
        if die == dies {
            return None; // no idle lane
        }
        if let Some(b) = choose_on_die(blocks, die, policy, mus_per_block, now_mus) {
            self.die_cursor = if die + 1 == dies { 0 } else { die + 1 };
            return Some(b);
        }
        // Supply levels from the lowest up; at each, the idle dies from the cursor on.
        let mut floor = 0;
        loop {
            let supplies = blocks.supplies();
            let level =
                (0..dies).filter(|&d| idle(d) && supplies[d as usize] >= floor).map(|d| supplies[d as usize]).min()?;
            for k in 0..dies {
                let die = (start + k) % dies;
                if idle(die) && blocks.supplies()[die as usize] == level {
                    if let Some(b) = choose_on_die(blocks, die, policy, mus_per_block, now_mus) {
                        self.die_cursor = (die + 1) % dies;
                        return Some(b);
                    }
                }
            }
            floor = level + 1;
        }
    }

    fn cost_benefit(&mut self, blocks: &BlockTable, mus_per_block: u32, now_mus: u64) -> Option<u32> {
        loop {
            while let Some(&b) = self.batch.last() {
                let i = b as usize;
                if blocks.state[i] == BlockState::Closed && blocks.valid[i] < mus_per_block {
                    return Some(b);
                }
                self.batch.pop();
            }
            if !self.refill(blocks, mus_per_block, now_mus) {
                return None;
            }
        }
    }

    /// Ranks all closed blocks and keeps the best batch; false when there is no candidate.
    #[allow(clippy::cast_possible_truncation)] // block ids are u32 by Layout's construction
    fn refill(&mut self, blocks: &BlockTable, mus_per_block: u32, now_mus: u64) -> bool {
        let mut scored: Vec<(f64, u32)> = Vec::new();
        for (i, (&s, &v)) in blocks.state.iter().zip(blocks.valid.iter()).enumerate() {
            if s != BlockState::Closed || v >= mus_per_block || blocks.write_ptr[i] == 0 {
                continue;
            }
            scored.push((score(v, mus_per_block, now_mus.saturating_sub(blocks.closed_at[i])), i as u32));
        }
        if scored.is_empty() {
            return false;
        }
        let keep = (blocks.state.len() / CB_BATCH_DIVISOR).clamp(1, scored.len());
        // Highest scores first; ties broken by block id for determinism.
        let by_score = |a: &(f64, u32), b: &(f64, u32)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
        if keep < scored.len() {
            scored.select_nth_unstable_by(keep - 1, by_score);
            scored.truncate(keep);
        }
        scored.sort_unstable_by(by_score);
        self.batch.clear();
        self.batch.extend(scored.iter().rev().map(|&(_, b)| b));
        true
    }

    /// Forgets batched candidates (after power-loss recovery rebuilds the block table).
    pub fn reset(&mut self) {
        self.batch.clear();
    }
}

/// The policy's choice among the candidates of one die: greedy by a pass over the die's valid
/// counts, cost-benefit by a scan of its blocks (ties go to the lowest block
/// id, for determinism).
fn choose_on_die(blocks: &mut BlockTable, die: u32, policy: GcPolicy, mus_per_block: u32, now_mus: u64) -> Option<u32> {
    match policy {
        GcPolicy::Greedy => blocks.min_valid_closed_on_die(die, mus_per_block),
        GcPolicy::CostBenefit => blocks
            .die_blocks(die)
            .filter(|&b| blocks.is_candidate(b, mus_per_block))
            .map(|b| {
                let age = now_mus.saturating_sub(blocks.closed_at[b as usize]);
                (score(blocks.valid[b as usize], mus_per_block, age), b)
            })
            .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)))
            .map(|(_, b)| b),
    }
}

/// Cost-benefit score of a block with `valid` of `mus_per_block` units, closed `age` ago.
pub fn score(valid: u32, mus_per_block: u32, age: u64) -> f64 {
    if valid == 0 {
        return f64::INFINITY;
    }
    let u = valid as f64 / mus_per_block as f64;
    (1.0 - u) * (age + 1) as f64 / (2.0 * u)
}

/// One-shot choice without batching (tests and the reference model).
pub fn choose_victim(blocks: &mut BlockTable, policy: GcPolicy, mus_per_block: u32, now_mus: u64) -> Option<u32> {
    VictimChooser::default().choose(blocks, policy, mus_per_block, now_mus)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::Layout;
    use nand_model::{CellType, GeometryConfig};

    /// 2 dies x 8 blocks of 48 units; `valid[b]` units live in closed block `b`.
    fn table(valid: &[(u32, u32)]) -> (BlockTable, u32) {
        let geo = GeometryConfig {
            cell: CellType::Tlc,
            slc_mode: false,
            channels: 1,
            dies_per_channel: 2,
            planes_per_die: 1,
            blocks_per_plane: 8,
            pages_per_block: 12,
            page_bytes: 16384,
        }
        .validate()
        .unwrap();
        let l = Layout::new(geo, 4096).unwrap();
        let mut t = BlockTable::new(&l, 0);
        for &(die, n) in valid {
            let b = t.take_free(die, 0).unwrap();
            t.write_ptr[b as usize] = l.mus_per_block;
            t.valid[b as usize] = n;
            t.close(b, 0);
        }
        (t, l.mus_per_block)
    }

    #[test]
    fn greedy_collects_on_the_die_with_the_fewest_free_blocks() {
        // Die 0 has the emptiest block drive-wide, but die 1 has fewer free blocks left.
        let (mut t, mpb) = table(&[(0, 5), (1, 30), (1, 20), (1, 40)]);
        let v = VictimChooser::default().choose(&mut t, GcPolicy::Greedy, mpb, 0).unwrap();
        assert_eq!(v / 8, 1, "victim {v} is not on die 1");
        assert_eq!(t.valid[v as usize], 20, "not the fewest-valid block of die 1");
    }

    #[test]
    fn a_pending_victim_counts_as_its_dies_supply() {
        // Die 0 has one free block fewer; once its victim is chosen (erase pending) the dies are
        // even, so the next victim comes from die 1.
        let (mut t, mpb) = table(&[(0, 10), (0, 12), (0, 14), (1, 10), (1, 12)]);
        let mut c = VictimChooser::default();
        let a = c.choose(&mut t, GcPolicy::Greedy, mpb, 0).unwrap();
        assert_eq!(a / 8, 0);
        t.mark_victim(a);
        let b = c.choose(&mut t, GcPolicy::Greedy, mpb, 0).unwrap();
        assert_eq!(b / 8, 1, "second victim {b} not on die 1");
    }
}
