//! The write path: admission into the write buffer and a place in the host write stream, unit
//! by unit, in arrival order; a full buffer or a GC stall shows up as write latency.

use super::*;

impl SimSsd {
    /// Admits waiting writes, in order, while buffer space and stream space allow. Inlined up to
    /// the full-buffer test: GC claims the space a program frees before the host does, so many
    /// calls find the buffer full and only record the stall (as [`Self::admit`] would).
    #[inline]
    pub(crate) fn try_admit(&mut self) {
        if self.buffer_room_mus() == 0 {
            if !self.pending_writes.is_empty() {
                self.set_stall(Stall::Buffer(self.now));
            }
            return;
        }
        self.admit_waiting();
    }

    /// [`Self::try_admit`] with room in the buffer.
    #[inline(never)]
    fn admit_waiting(&mut self) {
        while let Some(&slot) = self.pending_writes.front() {
            if !self.admit(slot) {
                return;
            }
            self.pending_writes.pop_front();
        }
    }

    /// Admits write `slot` unit by unit while buffer and stream space allow; true once all its
    /// units are in (it is then acknowledged), false when it must wait (the stall is recorded).
    #[inline]
    fn admit(&mut self, slot: u32) -> bool {
        // A full buffer, first: the write waits as the loop below would make it, before it
        // reads the command (in `ssdlab bench` a third of the calls find the buffer full).
        if self.buffer_room_mus() == 0 {
            self.set_stall(Stall::Buffer(self.now));
            return false;
        }
        // The fields used, not the whole 56-byte command: this runs once per host write.
        let c = &self.cmds[slot as usize];
        let (first_lpn, mus, data_ready, mut next) = (c.first_lpn, c.mus, c.data_ready, c.next_mu);
        while next < mus {
            if self.buffer_room_mus() == 0 {
                self.set_stall(Stall::Buffer(self.now));
                self.cmds[slot as usize].next_mu = next;
                return false;
            }
            if !self.core.host_can_write() {
                self.cmds[slot as usize].next_mu = next;
                if !matches!(self.stall, Stall::Space(_)) {
                    self.core.forget_refused_lane();
                }
                self.set_stall(Stall::Space(self.now));
                self.maybe_gc();
                return false;
            }
            // host_can_write() was checked just above, so the write cannot fail.
            let _ = self.core.write(Lpn::new(first_lpn + next), &mut self.admit_events);
            self.buffer_used_mus += 1;
            if let Some(p) = self.pacing.as_mut() {
                p.credit = p.credit.saturating_add(p.ratio);
            }
            next += 1;
            if !self.admit_events.is_empty() {
                let mut ev = std::mem::take(&mut self.admit_events);
                self.run_core_events(&mut ev);
                self.admit_events = ev;
            }
        }
        self.end_stall();
        let ack = self.now.max(data_ready) + self.write_ack_ns;
        self.events.push(Class::WriteDone, ack, DevEvent::Done(slot));
        self.maybe_gc();
        true
    }

    /// Write-buffer units neither host data nor relocated data holds.
    #[inline]
    pub(crate) fn buffer_room_mus(&self) -> u64 {
        self.buffer_cap_mus.saturating_sub(self.buffer_used_mus + self.buffer_gc_mus)
    }

    /// Ends the stall host writes were in, if any: once per write admitted, where there is
    /// usually none to end (one test, where `set_stall`'s match compiled to several).
    #[inline(always)]
    fn end_stall(&mut self) {
        if !matches!(self.stall, Stall::None) {
            self.set_stall(Stall::None);
        }
    }

    pub(super) fn set_stall(&mut self, s: Stall) {
        match (self.stall, s) {
            (Stall::Buffer(_), Stall::Buffer(_)) | (Stall::Space(_), Stall::Space(_)) => return,
            (Stall::Buffer(t), _) => self.counters.buffer_stall_ns += (self.now - t).ns(),
            (Stall::Space(t), _) => self.counters.gc_stall_ns += (self.now - t).ns(),
            (Stall::None, _) => {}
        }
        self.stall = s;
    }
}
