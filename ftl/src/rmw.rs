//! Read-modify-write bookkeeping: the NAND reads that host writes smaller than (or unaligned to)
//! the mapping unit wait for, and which writes wait for which read.
//!
//! A host write that covers a mapping unit (MU) only partly must merge with the unit's old
//! data before the whole unit can be written again. When that data is on NAND (not in the write
//! buffer, not unmapped), the controller reads it first. Like a real controller's overlap check,
//! every later write that touches an MU whose read is still in flight waits for that read rather
//! than reading again: all of them merge into the one buffer copy of the unit in arrival order
//! (the read fills only the sectors no write has covered), so that copy holds the arrival-order
//! result whichever of the writes is admitted last, and one NAND read serves them all. Writes
//! waiting only for one read are released together, in arrival order. Only the bookkeeping lives
//! here; the device issues the reads and admits the writes.

/// Reads in flight and the writes waiting for them.
#[derive(serde::Serialize, serde::Deserialize, Debug, Default)]
pub(crate) struct RmwReads {
    /// (LPN, read id) of each read in flight; few at a time (at most two per queued command).
    inflight: Vec<(u32, u32)>,
    /// (read id, command slot) in arrival order: a command waits once per MU it shares.
    waiters: Vec<(u32, u32)>,
    next_id: u32,
}

impl RmwReads {
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.inflight.is_empty()
    }

    /// The read in flight for `lpn`, if any.
    pub fn find(&self, lpn: u32) -> Option<u32> {
        self.inflight.iter().find(|&&(l, _)| l == lpn).map(|&(_, id)| id)
    }

    /// Records a new read of `lpn`; returns its id (for the NAND tag).
    pub fn start(&mut self, lpn: u32) -> u32 {
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1) & ((1 << 24) - 1);
        self.inflight.push((lpn, id));
        id
    }

    /// Command `slot` waits for read `id`.
    pub fn wait(&mut self, id: u32, slot: u32) {
        self.waiters.push((id, slot));
    }

    /// Read `id` is done: forgets it and calls `release` for each waiting command, in arrival
    /// order. An unknown id (a read issued before a power loss) releases nothing.
    pub fn complete(&mut self, id: u32, mut release: impl FnMut(u32)) {
        if let Some(i) = self.inflight.iter().position(|&(_, r)| r == id) {
            self.inflight.swap_remove(i);
        }
        self.waiters.retain(|&(r, slot)| {
            if r == id {
                release(slot);
            }
            r != id
        });
    }

    /// At most one read per LPN in flight, and every waiting write waits for a read in flight.
    pub fn check(&self) -> Result<(), String> {
        for (i, &(lpn, _)) in self.inflight.iter().enumerate() {
            if self.inflight[..i].iter().any(|&(l, _)| l == lpn) {
                return Err(format!("two read-modify-write reads of lpn {lpn} in flight"));
            }
        }
        match self.waiters.iter().find(|&&(id, _)| !self.inflight.iter().any(|&(_, r)| r == id)) {
            Some(&(id, slot)) => Err(format!("command {slot} waits for read-modify-write read {id}, not in flight")),
            None => Ok(()),
        }
    }

    /// Forgets everything (power loss).
    pub fn reset(&mut self) {
        self.inflight.clear();
        self.waiters.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiters_are_released_by_their_read_in_arrival_order() {
        let mut r = RmwReads::default();
        let a = r.start(7);
        let b = r.start(9);
        r.wait(a, 1);
        r.wait(b, 2);
        r.wait(a, 3);
        assert_eq!(r.find(7), Some(a));
        assert_eq!(r.find(8), None);
        let mut got = Vec::new();
        r.complete(a, |s| got.push(s));
        assert_eq!(got, [1, 3]);
        assert_eq!(r.find(7), None);
        assert!(!r.is_empty());
        got.clear();
        r.complete(b, |s| got.push(s));
        assert_eq!(got, [2]);
        assert!(r.is_empty());
        r.check().unwrap();
        r.wait(b, 4);
        assert!(r.check().is_err(), "a waiter of a finished read");
    }
}
