//! What the device does when the FTL core emits work and when NAND operations complete.

use super::*;

impl SimSsd {
    #[inline]
    pub(crate) fn run_core_events(&mut self, ev: &mut Vec<CoreEvent>) {
        if ev.is_empty() {
            return;
        }
        // Whether the previous event was a GC read: a new run of reads starts after any other.
        let mut in_read_run = false;
        for e in ev.drain(..) {
            match e {
                CoreEvent::Program { die, block, mus, host_mus, live_mus, stream } => {
                    in_read_run = false;
                    let seq = self.pu_done[stream as usize].issue();
                    let rec = PuRec { block, die, mus, host_mus, live_mus, stream, seq };
                    let slot = nand_model::slots::put(&mut self.pus, &mut self.free_pus, rec);
                    // The unit carries relocated data read by GC reads lo..hi: those of the word
                    // lines moved since the stream's previous unit, plus the last word line
                    // before it (its remaining units may have spilled into this one). The
                    // next unit may still take data of the current word line.
                    let (lo, hi) = (self.pu_reads_from[stream as usize], self.gc_reads.next());
                    self.pu_reads_from[stream as usize] = self.read_run_start;
                    let reads_pending = host_mus < mus && !self.gc_reads.all_done(lo, hi);
                    let qi = program_queue(die, stream);
                    let q = &mut self.waiting_programs[qi as usize];
                    if reads_pending || !q.is_empty() {
                        let hi = if host_mus < mus { hi } else { lo }; // host data needs no read
                        q.push_back((lo, hi, slot));
                        if q.len() == 1 {
                            self.release_queued_programs(qi);
                        }
                    } else {
                        self.submit_program(slot);
                    }
                }
                CoreEvent::Relocated { block } => self.victim_relocated(block),
                CoreEvent::GcRead { die, page_type, planes, bytes } => {
                    let seq = self.gc_reads.issue();
                    if !in_read_run {
                        self.read_run_start = seq;
                        in_read_run = true;
                    }
                    self.flash
                        .submit(self.now, NandOp::background_read(TAG_GC_READ | seq, die, page_type, planes, bytes));
                }
            }
        }
    }

    #[allow(clippy::cast_possible_truncation)] // tags carry u32 slot and block ids in their low bits
    pub(super) fn on_nand_done(&mut self, d: NandDone) {
        let id = d.tag & TAG_MASK;
        match d.tag & !TAG_MASK {
            TAG_READ => {
                let c = &mut self.cmds[id as usize];
                c.pending -= 1;
                if c.pending == 0 {
                    let len = c.len;
                    self.finish_read(id as u32, len);
                }
            }
            TAG_RA => {
                let Some(ra) = self.read_ahead.as_mut() else { return };
                for slot in ra.read_done(id as u32) {
                    let c = &mut self.cmds[slot as usize];
                    c.pending -= 1;
                    if c.pending == 0 {
                        let len = c.len;
                        self.finish_read_dram(slot, len);
                    }
                }
            }
            TAG_RMW => self.rmw_read_done(id as u32),
            TAG_GC_READ => {
                self.gc_reads.complete(id);
                self.release_waiting_programs(id);
                if self.plp {
                    self.erase_ready_victims();
                }
            }
            TAG_PROG => {
                let r = self.pus[id as usize];
                self.free_pus.push(id as u32);
                self.dispatch_programs(r.die);
                self.core.program_done(r.block, r.mus);
                self.buffer_used_mus -= r.host_mus as u64;
                self.buffer_gc_mus -= (r.live_mus - r.host_mus) as u64;
                self.pu_done[r.stream as usize].complete(r.seq);
                self.erase_ready_victims();
                // Buffer space came free: GC, which may be waiting for it, claims it before the
                // host's waiting writes (the host waits on GC in the end anyway).
                self.maybe_gc();
                self.try_admit();
            }
            TAG_ERASE => self.on_erase_done(BlockId::new(id as u32)),
            _ => {}
        }
    }
}
