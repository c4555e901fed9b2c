//! The program gate: programs wait for the reads that carry their data and stay in order per
//! (die, write stream); a die is given at most [`PROGRAMS_PER_DIE`] programs at a time, taken
//! from its host and GC queues in turn.
//!
//! A controller keeps its write buffer and GC's relocated data in DRAM and hands each die the
//! next program when the die is ready, alternating between the host's data and GC's. Queueing
//! every program in the die's own FIFO at once instead put a whole write buffer of host programs
//! ahead of GC's (or a whole victim of GC's ahead of the host's), so whichever stream came
//! second waited for all of it.

use super::*;

/// Programs a die holds at once (the one running and one staged behind it, as cache
/// programming does): enough to keep it busy, few enough that the controller still decides
/// what comes next.
pub(crate) const PROGRAMS_PER_DIE: u8 = 2;

impl SimSsd {
    /// Program `slot` has its data: hands it to its die now if the die has room and nothing of
    /// either stream waits before it, else queues it for [`Self::dispatch_programs`].
    pub(super) fn submit_program(&mut self, slot: u32) {
        let r = self.pus[slot as usize];
        let die = r.die as usize;
        let qi = program_queue(r.die, r.stream) as usize;
        if self.die_programs[die] < PROGRAMS_PER_DIE && self.ready_programs[qi].is_empty() {
            self.die_programs[die] += 1;
            self.last_stream[die] = r.stream;
            self.issue_program(slot);
        } else {
            self.ready_programs[qi].push_back(slot);
        }
    }

    /// A program of `die` finished: gives the die its next ready programs, the other stream's
    /// first when both have some.
    pub(super) fn dispatch_programs(&mut self, die: u32) {
        let d = die as usize;
        self.die_programs[d] -= 1;
        while self.die_programs[d] < PROGRAMS_PER_DIE {
            let other = 1 - self.last_stream[d];
            let stream = if self.ready_programs[program_queue(die, other) as usize].is_empty() {
                self.last_stream[d]
            } else {
                other
            };
            let Some(slot) = self.ready_programs[program_queue(die, stream) as usize].pop_front() else { return };
            self.die_programs[d] += 1;
            self.last_stream[d] = stream;
            self.issue_program(slot);
        }
    }

    #[allow(clippy::cast_possible_truncation)] // planes_per_die <= 16 (validated geometry)
    fn issue_program(&mut self, slot: u32) {
        let r = self.pus[slot as usize];
        let planes = self.core.layout.geo.planes_per_die as u8;
        // Labelled GC work when most of its units are GC's (for the op log's views only).
        let op = NandOp::program(TAG_PROG | slot as u64, r.die, planes, r.mus * self.mu_bytes)
            .at_layer(self.next_layer(program_queue(r.die, r.stream)));
        self.flash.submit(self.now, op.gc_labelled(2 * r.host_mus < r.mus));
    }

    /// The layer band (`nand_model::timing::LAYER_BANDS`) of program queue `qi`'s next word
    /// line in the full-size drive's block (`LAYER_MEAN` while the ramp is not resolved), and
    /// the queue moves on one word line.
    #[allow(clippy::cast_possible_truncation)] // < LAYER_BANDS = 255
    fn next_layer(&mut self, qi: u32) -> u8 {
        use nand_model::timing::{LAYER_BANDS, LAYER_MEAN};
        let wls = self.full_word_lines.max(1);
        let Some(wl) = self.stream_word_lines.get_mut(qi as usize) else { return LAYER_MEAN };
        let at = *wl;
        *wl = if at + 1 >= wls { 0 } else { at + 1 };
        if self.layer_ramp_resolved {
            (at as u64 * LAYER_BANDS as u64 / wls as u64) as u8
        } else {
            LAYER_MEAN
        }
    }

    /// GC read `seq` finished: re-examines the program queues whose first waiting program
    /// needed it. A program waits only for its own data's reads, not for unrelated reads queued
    /// on other dies.
    pub(super) fn release_waiting_programs(&mut self, seq: u64) {
        let Some(i) = seq.checked_sub(self.read_waiters_base) else { return };
        if let Some(slot) = self.read_waiters.get_mut(nand_model::cast::usize_from(i)) {
            let mut qi = std::mem::replace(slot, NO_QUEUE);
            while qi != NO_QUEUE {
                let next = self.next_waiter[qi as usize];
                self.release_queued_programs(qi); // may link `qi` under another read
                qi = next;
            }
        }
        // Drop the entries of completed reads from the front.
        let done = self.gc_reads.watermark();
        while self.read_waiters_base < done && self.read_waiters.front() == Some(&NO_QUEUE) {
            self.read_waiters.pop_front();
            self.read_waiters_base += 1;
        }
    }

    /// Submits the waiting programs of queue `qi` whose reads are done, in order, and parks the
    /// first one still waiting under the next read it needs.
    pub(super) fn release_queued_programs(&mut self, qi: u32) {
        while let Some(&(lo, hi, slot)) = self.waiting_programs[qi as usize].front() {
            if let Some(next) = self.gc_reads.first_pending(lo, hi) {
                if self.read_waiters.is_empty() {
                    self.read_waiters_base = next;
                }
                while next < self.read_waiters_base {
                    self.read_waiters.push_front(NO_QUEUE);
                    self.read_waiters_base -= 1;
                }
                let i = nand_model::cast::usize_from(next - self.read_waiters_base);
                if self.read_waiters.len() <= i {
                    self.read_waiters.resize(i + 1, NO_QUEUE);
                }
                self.next_waiter[qi as usize] = self.read_waiters[i];
                self.read_waiters[i] = qi;
                return;
            }
            self.waiting_programs[qi as usize].pop_front();
            self.submit_program(slot);
        }
    }
}
