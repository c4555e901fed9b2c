//! Read-modify-write on the command path: a write that covers a mapping unit only partly reads
//! the old unit first (see [`crate::rmw`]).

use super::*;

impl SimSsd {
    /// Read-modify-write of write `slot`: its partly written end units whose old data is on
    /// NAND are read first (the codewords the write does not cover whole) (a unit in the write buffer merges in DRAM, an unmapped one with
    /// zeros), and any unit of it whose read is already in flight waits for that read (see
    /// [`crate::rmw`]). True when the write must wait; it is admitted when its reads are done.
    #[cold]
    pub(super) fn start_rmw(&mut self, slot: u32, c: Cmd) -> bool {
        let l = self.core.layout;
        let last = c.first_lpn + c.mus - 1;
        let mut waits = 0;
        for lpn in c.first_lpn..=last {
            let partial =
                (lpn == c.first_lpn && c.partial & PARTIAL_HEAD != 0) || (lpn == last && c.partial & PARTIAL_TAIL != 0);
            if let Some(id) = self.rmw.find(lpn) {
                self.rmw.wait(id, slot);
                waits += 1;
                continue;
            }
            if !partial {
                continue;
            }
            // Unmapped, or in the write buffer (merged in DRAM): no read needed.
            let Some((block, off)) = self.core.programmed_location(Lpn::new(lpn)) else { continue };
            let id = self.rmw.start(lpn);
            self.rmw.wait(id, slot);
            waits += 1;
            self.counters.rmw_reads += 1;
            let bytes = c.unit_rmw_bytes(lpn - c.first_lpn, self.mu_bytes);
            self.issue_page_read(TAG_RMW | id as u64, (block, l.page_index(off), bytes));
        }
        self.cmds[slot as usize].pending = waits;
        waits > 0
    }

    /// Read-modify-write read `id` is done: after ECC decode and the merge (the read overhead),
    /// the writes waiting only for it queue for admission, in arrival order.
    pub(super) fn rmw_read_done(&mut self, id: u32) {
        let merged = self.now + self.read_overhead_ns;
        let (cmds, queue) = (&mut self.cmds, &mut self.pending_writes);
        self.rmw.complete(id, |slot| {
            let c = &mut cmds[slot as usize];
            c.data_ready = c.data_ready.max(merged);
            c.pending -= 1;
            if c.pending == 0 {
                queue.push_back(slot);
            }
        });
        self.try_admit();
    }
}
