//! GC as the timed device runs it: when to start a lane's victim and pacing the lanes'
//! relocation against host writes (the erase that follows: `erase.rs`).

use crate::core::Step;
use crate::device::{SimSsd, Stall};

/// Fixed-point scale of [`Pacing`]'s word-line figures.
const ONE: u64 = 1 << 32;

/// How far GC's lanes are behind host writes: each host unit written owes `ratio` word lines
/// (the active victims' word lines over the units their erases free), each word line moved
/// pays one. Word lines are fixed point (`ONE`).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default)]
pub(crate) struct Pacing {
    /// Word lines owed.
    pub(crate) credit: u64,
    /// Word lines owed per host unit written.
    pub(crate) ratio: u64,
}

impl SimSsd {
    /// How many valid units `block` held when GC chose it, while GC is relocating it, for
    /// views that show GC at work (read-only; the simulation never asks).
    pub fn gc_valid_at_pick(&self, block: crate::ids::BlockId) -> Option<u32> {
        self.core.valid_at_pick(block)
    }

    /// The pacing ratio for the active lanes (see [`Pacing`]).
    fn pacing_ratio(&self) -> u64 {
        let r = &self.core.reloc;
        let gain = r.gain_sum.max(1);
        // A lane starts and ends every few word lines at the default scale: a 64-bit division
        // where the shifted sum fits (always, in practice) instead of a 128-bit one.
        if r.wls_sum < 1 << 32 {
            return (r.wls_sum << 32) / gain;
        }
        let wide = (u128::from(r.wls_sum) << 32) / u128::from(gain);
        u64::try_from(wide).unwrap_or(u64::MAX)
    }

    /// Runs GC: while free blocks (counting what erases under way will free, and victims in
    /// flight net of their data: `FtlCore::gc_wanted`) are below the threshold, starts
    /// lanes (a victim per die, staggered, see `relocate.rs`), and relocates the lanes' word
    /// lines *paced* against host writes — spread over the host writes that consume the space
    /// they free, so GC work is smooth rather than a burst per block (as firmware does to keep
    /// latency and IOPS steady). When host writes are blocked on space, or free blocks reach
    /// the host reserve, GC runs flat out.
    #[inline(always)]
    pub(crate) fn maybe_gc(&mut self) {
        if self.gc_would_only_wait() {
            self.gc_tail();
        } else {
            self.run_gc();
        }
    }

    /// Whether [`Self::run_gc`]'s loop would end at once with nothing changed but what this
    /// check does too (the pacing reset, the lane cursor settled). Host writes ask after every
    /// unit, and in `ssdlab bench` nearly every ask is one of two cases: no lane active and
    /// enough free blocks, or lanes flat out with the write buffer too full for a word line.
    #[inline(always)]
    fn gc_would_only_wait(&mut self) -> bool {
        let urgent = self.gc_urgent();
        let core = &self.core;
        if !core.reloc.any_active() {
            // `gc_wanted` is false (its first test), so no lane starts and pacing is reset.
            if urgent || core.blocks.free_total() + self.pending_erases < core.cfg.gc_threshold_blocks {
                return false;
            }
            self.pacing = None;
            return true;
        }
        // No lane may start (`pick_victim` refuses without looking further), nothing is owed
        // but the word lines GC cannot buffer, and the next lane still has data to move.
        urgent
            && self.pacing.is_some()
            && !core.lane_could_start()
            && self.buffer_room_mus() < u64::from(core.layout.mus_per_pu)
            && self.core.next_lane_has_work()
    }

    /// GC runs flat out: host writes are blocked on space, or free blocks are down to the host
    /// reserve (one rule for the quick answer and the loop, which must agree).
    #[inline(always)]
    fn gc_urgent(&self) -> bool {
        matches!(self.stall, Stall::Space(_)) || self.core.blocks.free_total() <= self.core.cfg.host_reserve_blocks
    }

    /// [`Self::maybe_gc`] past its quick answer: starts lanes, relocates, then [`Self::gc_tail`].
    #[inline(never)]
    fn run_gc(&mut self) {
        loop {
            let urgent = self.gc_urgent();
            // The common case after a host write: nothing owed, no lane to start.
            if !urgent
                && self.pacing.is_some_and(|p| p.credit < ONE && p.ratio > 0)
                && !(self.core.lane_could_start() && self.core.gc_wanted(self.pending_erases))
            {
                break;
            }
            let mut started = false;
            while self.core.gc_wanted(self.pending_erases) {
                let Some(v) = self.core.pick_victim() else { break };
                self.core.start_lane(v);
                started = true;
            }
            // Rather than pad GC's open unit, fill it from the victim with the fewest valid
            // units (`pad_gc_unit`).
            let fill_open_unit = !started && self.padding_wanted();
            if fill_open_unit {
                if let Some(v) = self.core.victim_to_fill_open_unit() {
                    self.core.start_lane(v);
                    started = true;
                }
            }
            if !self.core.reloc.any_active() {
                self.pacing = None;
                break;
            }
            let mut p = self.pacing.unwrap_or_default();
            if started || self.pacing.is_none() {
                p.ratio = self.pacing_ratio();
            }
            // Relocated data waits in the write buffer (the PLP-protected DRAM) until it is
            // programmed, as the host's does: GC moves no more than the buffer holds. Lanes
            // with nothing valid left move nothing and are released on the way.
            let owed = if urgent { u64::MAX } else { p.credit / ONE };
            let (room_mus, wl_mus) = (self.buffer_room_mus(), u64::from(self.core.layout.mus_per_pu));
            // The common case while GC runs flat out: the buffer has no room for a word line, and
            // the next lane has data to move; the step would move nothing and release nothing.
            if (owed == 0 || room_mus < wl_mus) && self.core.next_lane_has_work() {
                self.pacing = Some(p);
                break;
            }
            let want = owed.min(room_mus / wl_mus);
            let mut ev = std::mem::take(&mut self.scratch);
            let moved_before = self.core.stats.gc_write_mus;
            let epoch = self.core.relocation_epoch();
            let wls_before = self.core.reloc.wls_moved;
            let step =
                self.core.relocate_step_filling(u32::try_from(want).unwrap_or(u32::MAX), fill_open_unit, &mut ev);
            let moved_wls = self.core.reloc.wls_moved - wls_before;
            self.buffer_gc_mus += self.core.stats.gc_write_mus - moved_before;
            self.run_core_events(&mut ev);
            self.scratch = ev;
            p.credit = p.credit.saturating_sub(moved_wls.saturating_mul(ONE));
            if self.core.relocation_epoch() != epoch {
                p.ratio = self.pacing_ratio();
            }
            self.pacing = Some(p);
            match step {
                // Lanes finished: more may start.
                Step::Done => continue,
                // Flat out with the NAND idle, no completion will call GC again (host writes
                // wait for space): it moves on while the buffer has room (swarm seed 2760 left
                // two writes waiting forever, its moved data short of a program unit).
                Step::More if urgent && self.flash.in_flight() == 0 => continue,
                Step::More | Step::Stalled => break,
            }
        }
        self.gc_tail();
    }

    /// What every GC pass ends with: padding a victim's half-filled program unit when host
    /// writes are blocked, and erasing the victims whose data is safe.
    #[inline(always)]
    fn gc_tail(&mut self) {
        if self.padding_wanted() {
            self.pad_gc_unit();
        }
        self.erase_ready_victims();
    }

    /// Host writes blocked on space while a victim (no PLP) waits for a half-filled program
    /// unit of GC and no program of the GC stream is in flight (its completion would make
    /// progress): only padding the unit lets the victim be erased.
    #[inline(always)]
    fn padding_wanted(&self) -> bool {
        matches!(self.stall, Stall::Space(_)) && !self.plp && !self.victims.is_empty() && {
            let si = self.core.gc_stream();
            self.pu_done[si].watermark() == self.pu_done[si].next() && self.core.stream_has_open_unit(si)
        }
    }

    /// Pads GC's open program unit so the victims waiting on it can be erased (padding counts
    /// as NAND writes). Before that, `run_gc` fills it with live units of another victim if
    /// any is left: where a block is one program unit, the padded block held the moved data
    /// alone and was the next victim, and GC moved the same data round for ever (swarm seeds
    /// 8675, 11876, 18952, 20858).
    #[inline(never)]
    fn pad_gc_unit(&mut self) {
        let mut ev = std::mem::take(&mut self.scratch);
        self.core.pad_open_units(&mut ev);
        self.run_core_events(&mut ev);
        self.scratch = ev;
    }
}
