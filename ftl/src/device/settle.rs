//! Between job phases: the drive finishes the host data it holds, and nothing more.

use super::*;

impl SimSsd {
    /// Runs the drive until every host unit in its write buffer is programmed, except those in
    /// a program unit still open (they wait for more data, as they would on any drive). GC
    /// work in flight stops where it is and goes on in the next phase: a full-size drive
    /// starts that phase at once, so running GC on to the end here would hand the next phase
    /// free blocks the full-size drive does not have. Meant for a drive with no host command
    /// outstanding; with one in flight it returns at once.
    pub fn drain_host_data(&mut self) {
        while self.outstanding == 0 && self.buffer_used_mus > self.core.host_mus_in_open_units() {
            let Some(t) = self.next_event_time() else { break };
            // No host command is outstanding, so no completion can come back.
            let _ = self.next_completion(Some(t));
        }
    }

    /// The time of the earliest pending event, device or NAND.
    fn next_event_time(&self) -> Option<SimTime> {
        match (self.events.peek_time(), self.flash.next_event_time()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}
