//! The structural invariants of the FTL core, checked by tests and after recovery: every
//! mapping agrees with the spare area and the valid counts, the block census adds up, and the
//! running sums (free list, open blocks' room, superblocks, victims' valid units) match a
//! recount.

use super::FtlCore;
use crate::blocks::BlockState;
use crate::ids::{Lpn, Ppn};

impl FtlCore {
    /// Checks the structural invariants; returns a description of the first violation.
    #[allow(clippy::cast_possible_truncation)] // LPNs are u32 by Layout's construction
    pub fn check_invariants(&self) -> Result<(), String> {
        let l = &self.layout;
        let mut valid = vec![0u32; l.blocks as usize];
        for (lpn, &ppn) in self.l2p.iter().enumerate() {
            if ppn == Ppn::NONE {
                continue;
            }
            if self.p2l[ppn.idx()] != Lpn::new(lpn as u32) {
                return Err(format!("lpn {lpn} -> ppn {ppn} but spare area says {}", self.p2l[ppn.idx()]));
            }
            let b = l.block_of(ppn);
            if self.blocks.state[b.idx()] == BlockState::Free {
                return Err(format!("lpn {lpn} mapped into free block {b}"));
            }
            if l.offset_of(ppn) >= self.blocks.write_ptr[b.idx()] {
                return Err(format!("lpn {lpn} mapped beyond the write pointer of block {b}"));
            }
            valid[b.idx()] += 1;
        }
        let live = self.live.count();
        let mapped = self.l2p.iter().filter(|&&p| p != Ppn::NONE).count() as u64;
        if live != mapped || self.l2p.iter().any(|&p| p != Ppn::NONE && !self.is_live(p)) {
            return Err(format!("live-unit bitmap has {live} bits for {mapped} mapped LPNs"));
        }
        if valid != self.blocks.valid {
            let b = (0..valid.len()).find(|&i| valid[i] != self.blocks.valid[i]).unwrap_or(0);
            return Err(format!("block {b}: valid count {} but {} live mappings", self.blocks.valid[b], valid[b]));
        }
        let (free, open, closed, victim) = self.blocks.census();
        if free + open + closed + victim + self.blocks.reserved != l.blocks {
            return Err(format!("free {free} + open {open} + closed {closed} + victim {victim} != {}", l.blocks));
        }
        if free != self.blocks.free_total() {
            return Err(format!("free list holds {} but {free} blocks are free", self.blocks.free_total()));
        }
        for (si, s) in self.streams.iter().enumerate() {
            let room: u64 = s
                .open_dies
                .ones()
                .map(|d| u64::from(l.mus_per_block - self.blocks.write_ptr[s.open[d as usize].idx()]))
                .sum();
            if room != s.room {
                return Err(format!("stream {si}: open blocks have room for {room} units, the stream says {}", s.room));
            }
        }
        self.blocks.check_superblocks()
    }
}
