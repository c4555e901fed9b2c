//! The program gate: programs wait for the reads that carry their data and stay in order per
//! (die, write stream).

use super::*;

impl SimSsd {
    #[allow(clippy::cast_possible_truncation)] // planes_per_die <= 16 (validated geometry)
    pub(super) fn submit_program(&mut self, slot: u32) {
        let r = self.pus[slot as usize];
        let planes = self.core.layout.geo.planes_per_die as u8;
        // Labelled GC work when most of its units are GC's (for the op log's views only).
        let op = NandOp::program(TAG_PROG | slot as u64, r.die, planes, r.mus * self.mu_bytes);
        self.flash.submit(self.now, op.gc_labelled(2 * r.host_mus < r.mus));
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
