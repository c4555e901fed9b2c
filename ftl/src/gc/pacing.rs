//! GC as the timed device runs it: when to start a victim and pacing its relocation against host
//! writes (the erase that follows: `erase.rs`).

use crate::core::Step;
use crate::device::{SimSsd, Stall};

/// Progress of the GC victim being relocated, paced against host writes.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug)]
pub(crate) struct Pacing {
    victim: u32,
    /// Word lines the victim holds.
    wls_total: u64,
    /// MUs its erase will free (block size minus valid at selection).
    gain_mus: u64,
    /// Host MUs written since it was selected (the write path counts them).
    pub(crate) host_mus: u64,
    wls_done: u64,
    /// The pacing target passes `wls_done` once `host_mus` reaches this (saves a division per
    /// host write): ceil(h * wls_total / gain_mus) > d  <=>  h >= d * gain_mus / wls_total + 1.
    next_at: u64,
}

impl Pacing {
    fn set_done(&mut self, wls_done: u64) {
        self.wls_done = wls_done;
        self.next_at = wls_done * self.gain_mus / self.wls_total.max(1) + 1;
    }
}

impl SimSsd {
    /// The victim GC is relocating now and how many valid units it held when chosen, for views
    /// that show GC at work (read-only; the simulation never asks).
    #[allow(clippy::cast_possible_truncation)] // at most mus_per_block, a u32
    pub fn gc_relocating(&self) -> Option<(u32, u32)> {
        let mpb = self.core.layout.mus_per_block as u64;
        self.pacing.map(|p| (p.victim, mpb.saturating_sub(p.gain_mus) as u32))
    }

    /// Runs GC: starts a victim when free blocks (counting erases under way) fall below the
    /// threshold and relocates it *paced* against host writes — the victim's word lines are
    /// spread over the host writes that consume the space it will free, so GC work is smooth
    /// rather than a burst per block (as firmware does to keep latency and IOPS steady). When
    /// host writes are blocked on space, or free blocks reach the host reserve, GC runs flat out.
    pub(crate) fn maybe_gc(&mut self) {
        loop {
            if let Some(mut p) = self.pacing {
                let urgent = matches!(self.stall, Stall::Space(_))
                    || self.core.blocks.free_total() <= self.core.cfg.host_reserve_blocks;
                if !urgent && p.host_mus < p.next_at {
                    break;
                }
                let target = if urgent {
                    p.wls_total
                } else {
                    p.host_mus.saturating_mul(p.wls_total).div_ceil(p.gain_mus).min(p.wls_total)
                };
                // Relocated data waits in the write buffer (the PLP-protected DRAM) until it is
                // programmed, as the host's does: GC moves no more than the buffer holds. A
                // victim with nothing valid moves nothing and is released at once.
                let mpb = u64::from(self.core.layout.mus_per_block);
                let room = if p.gain_mus >= mpb {
                    u64::MAX
                } else {
                    self.buffer_room_mus() / u64::from(self.core.layout.mus_per_pu)
                };
                let want = target.saturating_sub(p.wls_done).min(room);
                if want == 0 {
                    break;
                }
                let mut ev = std::mem::take(&mut self.scratch);
                let moved_before = self.core.stats.gc_write_mus;
                let step = self.core.relocate_step(u32::try_from(want).unwrap_or(u32::MAX), &mut ev);
                self.buffer_gc_mus += self.core.stats.gc_write_mus - moved_before;
                self.run_core_events(&mut ev);
                self.scratch = ev;
                p.set_done(self.core.relocation_progress().map_or(p.wls_total, |(_, wl)| wl as u64));
                self.pacing = Some(p);
                match step {
                    Step::Done => {
                        self.pacing = None;
                        self.victim_relocated(p.victim);
                    }
                    Step::More | Step::Stalled => break,
                }
                continue;
            }
            if !self.core.gc_wanted(self.pending_erases) {
                break;
            }
            let Some(v) = self.core.pick_victim() else { break };
            let l = self.core.layout;
            let valid = self.core.blocks.valid[v as usize] as u64;
            let wls_total = l.wls_written(self.core.blocks.write_ptr[v as usize]) as u64;
            self.core.start_relocation(v);
            let mut p = Pacing {
                victim: v,
                wls_total,
                gain_mus: (l.mus_per_block as u64).saturating_sub(valid).max(1),
                host_mus: if valid == 0 { u64::MAX / wls_total.max(1) } else { 0 },
                wls_done: 0,
                next_at: 0,
            };
            p.set_done(0);
            self.pacing = Some(p);
        }
        // Host writes blocked on space while a victim waits for a half-filled program unit:
        // pad it so the victim can be erased (padding counts as NAND writes).
        // Only when no program of the GC stream is in flight: otherwise its completion will
        // make progress and padding would waste NAND writes.
        if matches!(self.stall, Stall::Space(_)) && !self.plp && !self.victims.is_empty() {
            let si = self.core.gc_stream();
            let gc_programs_idle = self.pu_done[si].watermark() == self.pu_done[si].next();
            if gc_programs_idle && self.core.stream_has_open_unit(si) {
                let mut ev = std::mem::take(&mut self.scratch);
                self.core.pad_open_units(&mut ev);
                self.run_core_events(&mut ev);
                self.scratch = ev;
            }
        }
        self.erase_ready_victims();
    }
}
