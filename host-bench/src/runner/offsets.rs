//! Offsets of an instance's I/Os in flight, for fio's `log_offset`: a device echoes only the
//! request's tag, so the tag carries a slot (above the instance index) that holds the offset
//! until the I/O completes. Only instances whose job logs offsets keep one.

/// Tag bits below this hold the instance index; the slot (plus one) sits above them.
pub(super) const INSTANCE_BITS: u32 = 32;

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default)]
pub(super) struct InFlightOffsets {
    offsets: Vec<u64>,
    free: Vec<u32>,
}

impl InFlightOffsets {
    /// Room for `depth` I/Os in flight (more grow the table).
    pub(super) fn new(depth: u32) -> Self {
        InFlightOffsets { offsets: vec![0; depth as usize], free: (0..depth).rev().collect() }
    }

    /// Holds `offset` for an I/O about to be submitted; returns the tag bits that name it.
    pub(super) fn hold(&mut self, offset: u64) -> u64 {
        let k = self.free.pop().unwrap_or_else(|| {
            self.offsets.push(0);
            u32::try_from(self.offsets.len() - 1).unwrap_or(u32::MAX)
        });
        if let Some(o) = self.offsets.get_mut(k as usize) {
            *o = offset;
        }
        (u64::from(k) + 1) << INSTANCE_BITS
    }

    /// The offset held for the I/O with `tag`, its slot freed (0 for a tag without a slot).
    pub(super) fn release(&mut self, tag: u64) -> u64 {
        let Some(k) = (tag >> INSTANCE_BITS).checked_sub(1).and_then(|k| u32::try_from(k).ok()) else {
            return 0;
        };
        match self.offsets.get(k as usize) {
            Some(&o) => {
                self.free.push(k);
                o
            }
            None => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Completions in any order get their own offsets back, and slots are reused.
    #[test]
    fn each_completion_gets_its_own_offset() {
        let mut t = InFlightOffsets::new(2);
        let (a, b) = (t.hold(4096), t.hold(8192));
        let c = t.hold(12288); // more than the depth: the table grows
        assert_eq!(t.release(b), 8192);
        assert_eq!(t.release(c), 12288);
        let d = t.hold(65536);
        assert_eq!(t.release(a), 4096);
        assert_eq!(t.release(d), 65536);
        assert_eq!(t.release(7), 0, "a tag without a slot");
        assert_eq!(t.offsets.len(), 3);
    }
}
