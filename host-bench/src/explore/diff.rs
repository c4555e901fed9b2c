//! Which sampled blocks changed since the last look. A full look compares the block table's
//! moving fields with a shadow copy a chunk at a time (without branches or bounds checks, so
//! the compiler vectorises it) and looks block by block only at chunks that differ; a look at
//! given blocks is for the recorder's per-write log, which knows which blocks a write can move.

use super::model::BlockRec;
use super::record::block_rec_with;
use ftl::blocks::BlockState;
use ftl::device::SimSsd;

/// Blocks compared per chunk before looking at single blocks.
const CHUNK: usize = 16;

/// The sampled blocks as last seen.
pub struct BlockShadow {
    /// Records as drawn (what a change is reported against).
    pub last: Vec<BlockRec>,
    valid: Vec<u32>,
    wp: Vec<u32>,
    erase: Vec<u32>,
    state: Vec<BlockState>,
    /// Scratch: first blocks of the chunks that differ.
    chunks: Vec<u32>,
    /// The victim being relocated then: its record's state depends on it, not on the table.
    relocating: Option<u32>,
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
            chunks: Vec::new(),
            relocating: ssd.core.relocating(),
        }
    }

    /// Pushes `(block, its record before)` for every block whose record changed since the last
    /// call and remembers the new records (in [`Self::last`]).
    #[allow(clippy::cast_possible_truncation)] // block ids are u32 (Layout)
    pub fn changes(&mut self, ssd: &SimSsd, out: &mut Vec<(u32, BlockRec)>) {
        let t = &ssd.core.blocks;
        let n = self.last.len();
        let relocating = ssd.core.relocating();
        let (v, w, e, s) = (&t.valid[..n], &t.write_ptr[..n], &t.erase_count[..n], &t.state[..n]);
        let (sv, sw, se, ss) = (&self.valid[..n], &self.wp[..n], &self.erase[..n], &self.state[..n]);
        self.chunks.clear();
        let mut a = 0;
        while a < n {
            let b = (a + CHUNK).min(n);
            let mut acc = 0u32;
            for i in a..b {
                acc |= (v[i] ^ sv[i]) | (w[i] ^ sw[i]) | (e[i] ^ se[i]) | (s[i] as u32 ^ ss[i] as u32);
            }
            if acc != 0 {
                self.chunks.push(a as u32);
            }
            a = b;
        }
        let start = out.len();
        for k in 0..self.chunks.len() {
            let a = self.chunks[k] as usize;
            for i in a..(a + CHUNK).min(n) {
                if (v[i], w[i], e[i], s[i]) != (self.valid[i], self.wp[i], self.erase[i], self.state[i]) {
                    (self.valid[i], self.wp[i], self.erase[i], self.state[i]) = (v[i], w[i], e[i], s[i]);
                    self.record(ssd, i as u32, relocating, out);
                }
            }
        }
        if relocating != self.relocating {
            // The relocating victim's record changes without its table entry changing.
            for b in [self.relocating, relocating].into_iter().flatten() {
                if (b as usize) < n && !out[start..].iter().any(|c| c.0 == b) {
                    self.record(ssd, b, relocating, out);
                }
            }
            self.relocating = relocating;
        }
    }

    /// [`Self::changes`] looking only at `blocks` and, for their valid count alone, at
    /// `closed` (both may repeat): when the caller knows no other block can have changed, the
    /// blocks of `closed` can only have lost valid units, and the relocating victim is the same.
    pub fn changes_of(&mut self, ssd: &SimSsd, blocks: &[u32], closed: &[u32], out: &mut Vec<(u32, BlockRec)>) {
        let t = &ssd.core.blocks;
        let relocating = ssd.core.relocating();
        for &b in blocks {
            let i = b as usize;
            let now = (t.valid[i], t.write_ptr[i], t.erase_count[i], t.state[i]);
            if now != (self.valid[i], self.wp[i], self.erase[i], self.state[i]) {
                (self.valid[i], self.wp[i], self.erase[i], self.state[i]) = now;
                self.record(ssd, b, relocating, out);
            }
        }
        for &b in closed {
            let i = b as usize;
            if t.valid[i] != self.valid[i] {
                self.valid[i] = t.valid[i];
                self.record(ssd, b, relocating, out);
            }
        }
    }

    fn record(&mut self, ssd: &SimSsd, b: u32, relocating: Option<u32>, out: &mut Vec<(u32, BlockRec)>) {
        let r = block_rec_with(ssd, b, relocating);
        let old = &mut self.last[b as usize];
        if r != *old {
            out.push((b, *old));
            *old = r;
        }
    }
}
