//! The power governor's side of the die model: what an operation costs, holding it while the cap
//! does not admit it, and starting held operations as the budget allows.

use super::*;

impl Flash {
    /// A host read found its idle die holding a program or erase that waits for the power
    /// governor: that op goes back to the head of its queue (and off the wait list) so the read
    /// is not kept behind the budget of a write. Reads the governor holds stay where they are.
    #[cold]
    #[allow(clippy::cast_possible_truncation)] // die indices come from the geometry's u32 die count
    pub(super) fn unhold_for_read(&mut self, now: SimTime, die: usize) {
        let Some((held, _)) = self.dies[die].held else { return };
        if held.kind == OpKind::Read {
            return;
        }
        if let Some(g) = self.governor.as_deref_mut() {
            g.unhold(now, die as u32);
        }
        let d = &mut self.dies[die];
        d.held = None;
        d.writes.push_front(held);
    }

    /// Starts `op` at `now` if the power governor admits it, else holds it on its die.
    #[inline]
    pub(super) fn start(&mut self, now: SimTime, op: NandOp) {
        if self.governor.as_deref().is_some_and(Governor::capped) {
            let (e, p) = self.cost(&op);
            if let Some(g) = self.governor.as_deref_mut() {
                let host_read = op.kind == OpKind::Read && !op.background;
                if let Admission::Wait(at) = g.admit(now, e, p, host_read, false) {
                    let first = g.head().is_none();
                    g.hold(now, op.die, host_read);
                    self.dies[op.die as usize].held = Some((op, now));
                    if let (true, Some(at)) = (first, at) {
                        self.schedule_wake(at);
                    }
                    return;
                }
            }
        }
        self.book(now, op);
    }

    /// Energy (array + transfer + host datapath share, J) and peak draw (W) of `op`: what the
    /// governor charges. O(1).
    pub(super) fn cost(&self, op: &NandOp) -> (f64, f64) {
        let t = &self.timing;
        let planes = op.planes.max(1) as u32;
        let (array_ns, w) = match op.kind {
            OpKind::Read => (t.read_array_ns(op.page_type as u32, planes), self.energy.read_w),
            OpKind::Program => (t.program_array_ns_at(planes, op.page_type), self.energy.prog_w),
            OpKind::Erase => (t.erase_array_ns(planes), self.energy.erase_w),
        };
        let array_w = w * planes as f64;
        let host_j = self.governor.as_deref().map_or(0.0, |g| g.config().host_j_per_byte * op.bytes as f64);
        let e = Energy::joules(array_w, array_ns)
            + Energy::joules(self.energy.transfer_w, t.transfer_ns(op.bytes))
            + host_j;
        (e, array_w.max(self.energy.transfer_w))
    }

    pub(super) fn release(&mut self, op: &NandOp) {
        let (_, p) = self.cost(op);
        if let Some(g) = self.governor.as_deref_mut() {
            g.release(p);
        }
    }

    pub(super) fn schedule_wake(&mut self, at: SimTime) {
        if let Some(g) = self.governor.as_deref_mut() {
            if g.wake_at != Some(at) {
                g.wake_at = Some(at);
                self.events.push(at, Event::GovWake);
            }
        }
    }

    /// Starts waiting ops in arrival order while the governor admits them.
    pub(super) fn drain(&mut self, now: SimTime) {
        loop {
            let Some(die) = self.governor.as_deref().and_then(Governor::head) else { return };
            let Some((op, since)) = self.dies[die as usize].held else { return };
            let (e, p) = self.cost(&op);
            let Some(g) = self.governor.as_deref_mut() else { return };
            let host_read = op.kind == OpKind::Read && !op.background;
            match g.admit(now, e, p, host_read, true) {
                Admission::Start => {
                    g.pop_head(now, now - since);
                    self.dies[die as usize].held = None;
                    self.book(now, op);
                }
                Admission::Wait(Some(at)) => return self.schedule_wake(at),
                Admission::Wait(None) => return,
            }
        }
    }
}
