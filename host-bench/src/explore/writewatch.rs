//! Which blocks can have changed since the recorder's last look, so that with a write log the
//! looks after every host write and at frames cover a handful of blocks instead of the whole
//! table (without one the recorder looks only at frames, where a full look costs less than
//! following every write). Between two looks a block's record changes only if
//! - it was open or a victim at the last look (write pointer, valid count, state, erase), or
//! - it held a unit that an outstanding write overwrites when the write was submitted (valid
//!   count down: the FTL remaps a write's units when it admits it, between its submission and
//!   its completion, and admits writes in submission order, so when a write completes the oldest
//!   outstanding one has been admitted), or
//! - it was open since the oldest outstanding write was submitted (GC may have moved a unit
//!   that write overwrites into it), or
//! - a block was opened, freed, erased or picked as a victim, or a TRIM ran: any block can have
//!   changed, and the look is a full one.
//!
//! Debug builds check each short look against a full one (the browser tests run every lesson
//! so).

use super::model::{BlockRec, ST_ERASING, ST_OPEN, ST_RELOCATING};
use crate::device::{IoCompletion, IoDir, IoRequest};
use ftl::device::SimSsd;
use ftl::Lpn;
use std::collections::VecDeque;

/// What the next short look must cover.
#[derive(Default)]
pub struct WriteWatch {
    /// The sampled blocks holding the units the outstanding writes overwrite, as mapped at their
    /// submission, oldest write first (the runner's tags name a job, not a command, so writes
    /// are told apart by order)...
    outstanding: VecDeque<u32>,
    /// ... and how many of them each write has.
    per_write: VecDeque<u32>,
    /// Writes submitted and completed so far.
    submitted: u64,
    completed: u64,
    /// Blocks that changed state to closed (or free) with writes outstanding, and the writes
    /// submitted by then: they stay watched until those writes completed.
    retired: VecDeque<(u32, u64)>,
    /// Blocks dropped from the two lists above since the last look: still to be looked at
    /// (between two frames many writes are submitted, admitted and completed).
    spent: Vec<u32>,
    /// TRIMs submitted and not completed.
    trims: u32,
    /// A TRIM completed since the last look.
    trimmed: bool,
    /// Blocks open or victims at the last look.
    watch: Vec<u32>,
    /// (free blocks, releases to the free lists and victim picks, erases, relocation epoch)
    /// at the last look: any change means a full look.
    sig: Option<(u32, u64, u64, u64)>,
    /// Scratch: the blocks of a short look.
    cands: Vec<u32>,
}

fn sig_of(ssd: &SimSsd) -> (u32, u64, u64, u64) {
    let c = &ssd.core;
    (c.blocks.free_total(), c.blocks.releases, c.stats.erases, c.relocation_epoch())
}

impl WriteWatch {
    /// `req` is about to be submitted to `ssd` (blocks `0..sampled` are recorded).
    pub fn submitted(&mut self, ssd: &SimSsd, req: &IoRequest, sampled: u32) {
        match req.dir {
            IoDir::Read => {}
            IoDir::Trim => self.trims += 1,
            IoDir::Write => {
                let before = self.outstanding.len();
                let mu = u64::from(ssd.core.layout.mu_bytes.max(1));
                let first = req.offset_bytes / mu;
                let last = (req.offset_bytes + u64::from(req.len_bytes.max(1)) - 1) / mu;
                let core = &ssd.core;
                for lpn in first..=last {
                    let Ok(lpn) = u32::try_from(lpn) else { break };
                    if let Some(b) = core.lookup(Lpn::new(lpn)).map(|p| core.layout.block_of(p).get()) {
                        // Neighbouring units are mostly in one block: keep it once.
                        if b < sampled && self.outstanding.len() > before && self.outstanding.back() != Some(&b)
                            || b < sampled && self.outstanding.len() == before
                        {
                            self.outstanding.push_back(b);
                        }
                    }
                }
                self.submitted += 1;
                self.per_write.push_back(u32::try_from(self.outstanding.len() - before).unwrap_or(u32::MAX));
            }
        }
    }

    /// The submission of the last request (going in `dir`) failed: it will not complete.
    pub fn refused(&mut self, dir: IoDir) {
        match dir {
            IoDir::Write => {
                let n = self.per_write.pop_back().unwrap_or(0) as usize;
                self.outstanding.truncate(self.outstanding.len().saturating_sub(n));
                self.submitted = self.submitted.saturating_sub(1);
            }
            IoDir::Trim => self.trims = self.trims.saturating_sub(1),
            IoDir::Read => {}
        }
    }

    /// A command completed (after the look at its completion).
    pub fn completed(&mut self, c: &IoCompletion) {
        match c.dir {
            IoDir::Write => {
                // Not necessarily this one, but the oldest outstanding write is in.
                let n = self.per_write.pop_front().unwrap_or(0) as usize;
                self.spent.extend(self.outstanding.drain(..n.min(self.outstanding.len())));
                self.completed += 1;
                while self.retired.front().is_some_and(|r| r.1 <= self.completed) {
                    if let Some(r) = self.retired.pop_front() {
                        self.spent.push(r.0);
                    }
                }
            }
            IoDir::Trim => {
                self.trims = self.trims.saturating_sub(1);
                self.trimmed = true;
            }
            IoDir::Read => {}
        }
    }

    /// The blocks a short look must cover now: those that can have changed in any way, and
    /// those that can only have lost valid units (closed ones); `None` if only a full look
    /// will do.
    pub fn candidates(&mut self, ssd: &SimSsd) -> Option<(&[u32], &[u32])> {
        if self.trims > 0 || self.trimmed || self.sig != Some(sig_of(ssd)) {
            return None;
        }
        self.cands.clear();
        self.cands.extend(self.outstanding.iter().copied());
        self.cands.extend(self.retired.iter().map(|r| r.0));
        self.cands.extend_from_slice(&self.spent);
        Some((&self.watch, &self.cands))
    }

    /// A look (short or full) just ended with the blocks as in `last`; `changed` are the blocks
    /// it found changed.
    pub fn looked(&mut self, ssd: &SimSsd, last: &[BlockRec], changed: &[(u32, BlockRec)], full: bool) {
        self.sig = Some(sig_of(ssd));
        self.spent.clear();
        self.trimmed = false;
        let moving = |b: u32| matches!(last[b as usize].state, ST_OPEN | ST_RELOCATING | ST_ERASING);
        if !full && changed.iter().all(|&(b, old)| last[b as usize].state == old.state) {
            return;
        }
        if self.submitted > self.completed {
            // Closed since the last look (open then, or opened since).
            for &(b, old) in changed {
                if !moving(b) && last[b as usize].state != old.state {
                    self.retired.push_back((b, self.submitted));
                }
            }
        }
        self.watch.retain(|&b| moving(b));
        if full {
            self.watch.clear();
            self.watch.extend((0u32..).zip(last).filter(|(b, _)| moving(*b)).map(|(b, _)| b));
        } else {
            for &(b, _) in changed {
                if moving(b) && !self.watch.contains(&b) {
                    self.watch.push(b);
                }
            }
        }
    }
}
