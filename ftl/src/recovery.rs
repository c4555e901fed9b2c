//! Sudden power loss, and the rebuild of the mapping from what is on NAND.
//!
//! The DRAM state (L2P, valid counts, lists, streams, queues) is lost at a cut; what survives is
//! each programmed unit's spare area (its LPN in `p2l`, its write sequence in `seq`) and the TRIM
//! journal. Durable means programmed: `offset < prog_done[block]`. The rebuild scans every
//! programmed unit and keeps, per LPN, the copy with the highest sequence unless a journaled TRIM
//! is newer. This is correct because the device erases a GC victim only after the copies of its
//! data are safe (programmed, or in PLP-protected DRAM with PLP), so a relocated unit whose new
//! copy was lost still has its old copy on the victim.
//!
//! Limit: sequences are `u32` and compared without wrap-around, so a simulation must stay below
//! 2^32 binds + trims (16 TiB of NAND writes at 4 KiB units) to cut power safely.

use crate::blocks::BlockState;
use crate::core::FtlCore;
use crate::device::{SimSsd, Stall};
use crate::ids::{BlockId, Lpn, Ppn};
use nand_model::SimTime;

/// Why the mapping cannot be rebuilt.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecoveryError {
    #[error("power loss needs write sequences in the spare area: build the device with track_sequence")]
    NoSequence,
    #[error("rebuilt state is inconsistent: {0}")]
    Inconsistent(String),
}

/// What the rebuild found on NAND.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RebuildReport {
    /// LPNs mapped after the rebuild.
    pub mapped_lpns: u64,
    /// Units placed but never programmed, whose content is gone (host, GC or padding).
    pub unprogrammed_mus: u64,
    /// Partly written blocks closed where their programmed part ends: blocks fully placed
    /// whose programs had not all finished (no PLP), and open blocks that cannot be resumed.
    pub truncated_blocks: u32,
    /// Open blocks whose stream resumes writing them after their programmed part.
    pub resumed_blocks: u32,
    /// Blocks erased during boot: interrupted erases and blocks with nothing programmed.
    pub erased_at_boot: u32,
    /// Highest write sequence found (spare areas and TRIM journal).
    pub max_seq: u32,
}

/// What a power cut did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PowerCutReport {
    pub at_ns: SimTime,
    pub plp: bool,
    /// Host units in the write buffer at the cut (acknowledged or admitted, not yet programmed):
    /// lost without PLP, flushed with PLP.
    pub buffered_host_mus: u64,
    /// Units the capacitors programmed (PLP only), padding included.
    pub flushed_mus: u64,
    /// Padding added to complete the open program units for the flush (counted as NAND writes).
    pub pad_mus: u64,
    /// Host commands in flight and not acknowledged: dropped (the host sees no completion).
    pub dropped_commands: u64,
    pub rebuild: RebuildReport,
}

impl FtlCore {
    /// Rebuilds mapping, valid counts, block states, GC candidates and free lists and the streams from
    /// the spare areas of programmed units and the TRIM journal. `erase_interrupted` lists the
    /// victims whose erase was under way at the cut: their content is undefined, so they are
    /// erased again. An open block goes back to its stream (recorded per block, as firmware
    /// keeps it in the block's metadata), which writes on after its programmed part: closing it
    /// there instead would strand its unwritten room, and a drive cut with no free block left
    /// would then have nowhere for GC to move data, so no write could ever complete again.
    pub fn rebuild_from_nand(&mut self, erase_interrupted: &[BlockId]) -> Result<RebuildReport, RecoveryError> {
        if !self.cfg.track_sequence {
            return Err(RecoveryError::NoSequence);
        }
        let mut rep = RebuildReport::default();
        for &b in erase_interrupted {
            if b.idx() < self.blocks.state.len() {
                self.erase_at_boot(b);
                rep.erased_at_boot += 1;
            }
        }
        let mpb = self.layout.mus_per_block;
        let now_mus = self.stats.host_write_mus;
        let mut resumed = Vec::new();
        for b in (0..self.layout.blocks).map(BlockId::new) {
            let i = b.idx();
            if self.blocks.state[i] == BlockState::Free || self.blocks.is_reserved(b) {
                continue;
            }
            let (durable, written) = (self.blocks.prog_done[i].min(self.blocks.write_ptr[i]), self.blocks.write_ptr[i]);
            let first = self.layout.first_ppn(b).idx();
            // What was placed but not programmed never reached the cells.
            for ppn in first + durable as usize..first + written as usize {
                rep.unprogrammed_mus += (self.p2l[ppn] != Lpn::NONE) as u64;
                self.p2l[ppn] = Lpn::NONE;
            }
            if durable == 0 {
                self.erase_at_boot(b);
                rep.erased_at_boot += 1;
                continue;
            }
            self.blocks.write_ptr[i] = durable;
            self.blocks.prog_done[i] = durable;
            if self.blocks.state[i] == BlockState::Open {
                if durable < mpb && durable % self.layout.mus_per_pu == 0 {
                    resumed.push(b);
                    continue;
                }
                self.blocks.closed_at[i] = now_mus;
            }
            if durable < mpb {
                rep.truncated_blocks += 1;
            }
            self.blocks.state[i] = BlockState::Closed;
        }
        rep.max_seq = self.rebuild_l2p();
        self.blocks.valid.fill(0);
        self.rebuild_live_units();
        for &ppn in &self.l2p {
            if ppn != Ppn::NONE {
                self.blocks.valid[self.layout.block_of(ppn).idx()] += 1;
            }
        }
        rep.mapped_lpns = self.l2p.iter().filter(|&&p| p != Ppn::NONE).count() as u64;
        self.blocks.restamp_candidates();
        self.blocks.rebuild_superblocks();
        self.blocks.recount_victim_valid();
        self.blocks.rebuild_free_lists(&self.layout);
        self.restart_streams(rep.max_seq.wrapping_add(1));
        for b in resumed {
            if self.resume_open_block(b) {
                rep.resumed_blocks += 1;
            } else {
                rep.truncated_blocks += 1;
            }
        }
        self.check_invariants().map_err(RecoveryError::Inconsistent)?;
        Ok(rep)
    }

    /// Newest programmed copy per LPN, then journaled TRIMs newer than it. Returns the highest
    /// sequence seen.
    fn rebuild_l2p(&mut self) -> u32 {
        self.l2p.fill(Ppn::NONE);
        let mut max_seq = 0;
        let user = self.cfg.user_mus;
        for b in (0..self.layout.blocks).map(BlockId::new) {
            if !matches!(self.blocks.state[b.idx()], BlockState::Closed | BlockState::Open) {
                continue;
            }
            let first = self.layout.first_ppn(b).get();
            for ppn in first..first + self.blocks.write_ptr[b.idx()] {
                let lpn = self.p2l[ppn as usize];
                if lpn == Lpn::NONE || lpn.get() >= user {
                    continue; // padding
                }
                let s = self.seq[ppn as usize];
                max_seq = max_seq.max(s);
                let cur = self.l2p[lpn.idx()];
                if cur == Ppn::NONE || s > self.seq[cur.idx()] {
                    self.l2p[lpn.idx()] = Ppn::new(ppn);
                }
            }
        }
        for &(lpn, s) in &self.trim_log {
            max_seq = max_seq.max(s);
            let Some(slot) = self.l2p.get_mut(lpn.idx()) else { continue };
            if *slot != Ppn::NONE && self.seq[slot.idx()] < s {
                *slot = Ppn::NONE;
            }
        }
        max_seq
    }

    /// Erases a block during boot: blank spare area, free, one more erase.
    fn erase_at_boot(&mut self, b: BlockId) {
        let i = b.idx();
        let first = self.layout.first_ppn(b).idx();
        self.p2l[first..first + self.layout.mus_per_block as usize].fill(Lpn::NONE);
        self.blocks.state[i] = BlockState::Free;
        self.blocks.valid[i] = 0;
        self.blocks.write_ptr[i] = 0;
        self.blocks.prog_done[i] = 0;
        self.blocks.erase_count[i] += 1;
        self.stats.erases += 1;
    }
}

impl SimSsd {
    /// Cuts power at the current simulated instant, then boots: in-flight NAND operations and
    /// host commands are dropped; with PLP the capacitors first program everything placed in the
    /// write buffer (open program units padded); the mapping is rebuilt from NAND. The device
    /// keeps working afterwards, at the same simulated time.
    pub fn power_cut(&mut self) -> Result<PowerCutReport, RecoveryError> {
        if !self.core.cfg.track_sequence {
            return Err(RecoveryError::NoSequence);
        }
        let mut rep = PowerCutReport {
            at_ns: self.now,
            plp: self.plp,
            buffered_host_mus: self.buffer_used_mus,
            dropped_commands: self.outstanding as u64,
            ..Default::default()
        };
        self.flash.power_cut(self.now);
        // Victims whose erase was submitted are exactly those no longer queued (and not still
        // being relocated: that one holds live data and is rebuilt like a closed block).
        let mut queued: std::collections::HashSet<BlockId> = self.victims.iter().map(|&(b, _)| b).collect();
        queued.extend(self.core.relocating());
        let interrupted: Vec<BlockId> = (0..self.core.layout.blocks)
            .map(BlockId::new)
            .filter(|b| self.core.blocks.state[b.idx()] == BlockState::Victim && !queued.contains(b))
            .collect();
        if self.plp {
            let pad_before = self.core.stats.pad_mus;
            let mut ev = std::mem::take(&mut self.scratch);
            self.core.pad_open_units(&mut ev);
            ev.clear(); // programmed within the capacitors' hold-up time, not scheduled
            self.scratch = ev;
            rep.pad_mus = self.core.stats.pad_mus - pad_before;
            let bt = &mut self.core.blocks;
            for i in 0..bt.state.len() {
                if bt.state[i] != BlockState::Free && bt.prog_done[i] < bt.write_ptr[i] {
                    rep.flushed_mus += (bt.write_ptr[i] - bt.prog_done[i]) as u64;
                    bt.prog_done[i] = bt.write_ptr[i];
                }
            }
        }
        self.reset_volatile();
        rep.rebuild = self.core.rebuild_from_nand(&interrupted)?;
        Ok(rep)
    }

    /// Forgets every queue, command and in-flight operation of the controller.
    fn reset_volatile(&mut self) {
        match self.stall {
            Stall::Buffer(t) => self.counters.buffer_stall_ns += (self.now - t).ns(),
            Stall::Space(t) => self.counters.gc_stall_ns += (self.now - t).ns(),
            Stall::None => {}
        }
        self.stall = Stall::None;
        self.events.clear();
        self.cmds.clear();
        self.free_cmds.clear();
        self.outstanding = 0;
        self.pending_writes.clear();
        self.buffer_used_mus = 0;
        self.buffer_gc_mus = 0;
        self.ctrl_free = self.now;
        self.pcie_in_free = self.now;
        self.pcie_out_free = self.now;
        self.pus.clear();
        self.free_pus.clear();
        self.waiting_programs.iter_mut().for_each(std::collections::VecDeque::clear);
        self.ready_programs.iter_mut().for_each(std::collections::VecDeque::clear);
        self.die_programs.fill(0);
        self.read_waiters.clear();
        self.read_waiters_base = self.gc_reads.next();
        self.gc_reads.reset();
        self.pu_reads_from = [self.gc_reads.next(); 2];
        for t in &mut self.pu_done {
            t.reset();
        }
        self.victims.clear();
        self.pacing = None;
        if let Some(ra) = self.read_ahead.as_mut() {
            ra.reset();
        }
        self.pending_erases = 0;
        self.rmw.reset();
    }
}
