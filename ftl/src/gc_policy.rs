//! GC victim choice, as pure decision functions over the block table (policy apart from the
//! relocation that carries it out).

use crate::blocks::{BlockState, BlockTable};
use crate::config::GcPolicy;

/// Picks the closed block to collect next, or `None` when no closed block has an invalid unit.
///
/// - Greedy: fewest valid units (Rosenblum & Ousterhout's "greedy" cleaner). With large blocks it
///   behaves like FIFO for uniform writes (Desnoyers 2012).
/// - Cost-benefit: maximise `(1 - u) * age / (2u)` (Rosenblum & Ousterhout 1992; the `2u` counts
///   reading and rewriting the live data), with age in host MUs written since the block closed.
///   Better than greedy under skew because cold blocks are collected at higher utilisation.
pub fn choose_victim(blocks: &BlockTable, policy: GcPolicy, mus_per_block: u32, now_mus: u64) -> Option<u32> {
    match policy {
        GcPolicy::Greedy => greedy(blocks, mus_per_block),
        GcPolicy::CostBenefit => cost_benefit(blocks, mus_per_block, now_mus),
    }
}

fn greedy(blocks: &BlockTable, mus_per_block: u32) -> Option<u32> {
    // A full block gains nothing; the bucket lists hold only closed (never reserved) blocks.
    blocks.peek_min_valid_closed(mus_per_block)
}

fn cost_benefit(blocks: &BlockTable, mus_per_block: u32, now_mus: u64) -> Option<u32> {
    let mut best = 0.0f64;
    let mut pick = None;
    for (i, (&s, &v)) in blocks.state.iter().zip(blocks.valid.iter()).enumerate() {
        if s != BlockState::Closed || v >= mus_per_block || blocks.write_ptr[i] == 0 {
            continue;
        }
        if v == 0 {
            return Some(i as u32);
        }
        let u = v as f64 / mus_per_block as f64;
        let age = (now_mus.saturating_sub(blocks.closed_at[i]) + 1) as f64;
        let score = (1.0 - u) * age / (2.0 * u);
        if score > best {
            best = score;
            pick = Some(i as u32);
        }
    }
    pick
}
