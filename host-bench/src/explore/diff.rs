//! Which sampled blocks changed since the last look. A full look compares the block table's
//! moving fields with a shadow copy field by field over all blocks (zipped slices: no branches
//! or bounds checks, so the compiler vectorises it) into a per-block difference, then visits
//! the blocks that differ; a look at given blocks is for the recorder's per-write log, which
//! knows which blocks a write can move.

use super::model::BlockRec;
use super::record::block_rec;
use ftl::blocks::BlockState;
use ftl::device::SimSsd;
use ftl::BlockId;

/// The sampled blocks as last seen.
pub struct BlockShadow {
    /// Records as drawn (what a change is reported against).
    pub last: Vec<BlockRec>,
    valid: Vec<u32>,
    wp: Vec<u32>,
    erase: Vec<u32>,
    state: Vec<BlockState>,
    /// Scratch: per block, not zero if its moving fields differ from the shadow's.
    diff: Vec<u32>,
    /// Scratch: the blocks that differ.
    hits: Vec<u32>,
    /// The victims being relocated then (a record's state depends on it, not only on the
    /// table) and the core's relocation epoch when they were listed.
    relocating: Vec<u32>,
    epoch: u64,
}

impl BlockShadow {
    /// Shadows blocks `0..init.len()` of `ssd`, whose records are `init`.
    pub fn new(ssd: &SimSsd, init: &[BlockRec]) -> BlockShadow {
        let t = &ssd.core.blocks;
        let n = init.len();
        BlockShadow {
            last: init.to_vec(),
            valid: t.valid[..n].to_vec(),
            wp: t.write_ptr[..n].to_vec(),
            erase: t.erase_count[..n].to_vec(),
            state: t.state[..n].to_vec(),
            diff: vec![0; n],
            hits: vec![0; n],
            relocating: ssd.core.relocating().map(BlockId::get).collect(),
            epoch: ssd.core.relocation_epoch(),
        }
    }

    /// Pushes `(block, its record before)` for every block whose record changed since the last
    /// call and remembers the new records (in [`Self::last`]).
    #[allow(clippy::cast_possible_truncation)] // block ids are u32 (Layout)
    pub fn changes(&mut self, ssd: &SimSsd, out: &mut Vec<(u32, BlockRec)>) {
        let t = &ssd.core.blocks;
        let n = self.last.len();
        let d = &mut self.diff[..n];
        for ((d, &x), &y) in d.iter_mut().zip(&t.valid[..n]).zip(&self.valid) {
            *d = x ^ y;
        }
        or_xor(d, &t.write_ptr[..n], &self.wp);
        or_xor(d, &t.erase_count[..n], &self.erase);
        for ((d, &x), &y) in d.iter_mut().zip(&t.state[..n]).zip(&self.state) {
            *d |= u32::from(x as u8 ^ y as u8);
        }
        // The blocks that differ, listed without a branch per block (which blocks changed is
        // not predictable: a mispredicted branch per changed block was a look's largest cost).
        let mut hits = std::mem::take(&mut self.hits);
        hits.resize(n, 0);
        let mut k = 0;
        for (i, &d) in self.diff[..n].iter().enumerate() {
            hits[k] = i as u32;
            k += usize::from(d != 0);
        }
        let start = out.len();
        for &b in &hits[..k] {
            let i = b as usize;
            (self.valid[i], self.wp[i], self.erase[i], self.state[i]) =
                (t.valid[i], t.write_ptr[i], t.erase_count[i], t.state[i]);
            self.record(ssd, b, out);
        }
        self.hits = hits;
        if ssd.core.relocation_epoch() != self.epoch {
            // A released victim's record changes without its table entry changing.
            self.epoch = ssd.core.relocation_epoch();
            let before = std::mem::take(&mut self.relocating);
            let now: Vec<u32> = ssd.core.relocating().map(BlockId::get).collect();
            for &b in before.iter().chain(&now) {
                if (b as usize) < n && !out[start..].iter().any(|c| c.0 == b) {
                    self.record(ssd, b, out);
                }
            }
            self.relocating = now;
        }
    }

    /// [`Self::changes`] looking only at `blocks` and, for their valid count alone, at
    /// `closed` (both may repeat): when the caller knows no other block can have changed, the
    /// blocks of `closed` can only have lost valid units, and the relocating victims are the same.
    pub fn changes_of(&mut self, ssd: &SimSsd, blocks: &[u32], closed: &[u32], out: &mut Vec<(u32, BlockRec)>) {
        let t = &ssd.core.blocks;
        for &b in blocks {
            let i = b as usize;
            let now = (t.valid[i], t.write_ptr[i], t.erase_count[i], t.state[i]);
            if now != (self.valid[i], self.wp[i], self.erase[i], self.state[i]) {
                (self.valid[i], self.wp[i], self.erase[i], self.state[i]) = now;
                self.record(ssd, b, out);
            }
        }
        for &b in closed {
            let i = b as usize;
            if t.valid[i] != self.valid[i] {
                self.valid[i] = t.valid[i];
                self.record(ssd, b, out);
            }
        }
    }

    #[inline]
    fn record(&mut self, ssd: &SimSsd, b: u32, out: &mut Vec<(u32, BlockRec)>) {
        let r = block_rec(ssd, b);
        let old = std::mem::replace(&mut self.last[b as usize], r);
        if r != old {
            out.push((b, old));
        }
    }
}

/// `d[i] |= a[i] ^ b[i]`, vectorised.
#[inline]
fn or_xor(d: &mut [u32], a: &[u32], b: &[u32]) {
    for ((d, &x), &y) in d.iter_mut().zip(a).zip(b) {
        *d |= x ^ y;
    }
}
