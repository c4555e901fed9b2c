//! Structural invariants of the NAND model, for tests that drive it through long random runs
//! (the swarm test): they name the first broken one instead of letting it surface later as a
//! wrong latency.

use super::*;

impl Flash {
    /// Checks that no die runs two array operations at once (a die-wide op excludes plane reads
    /// and a governor-held op), that no die sits idle with work queued (every submitted op will
    /// complete), that the in-flight count matches what is queued, running and parked, and that
    /// every channel's reserved bus intervals are disjoint.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut held_or_queued = 0usize;
        for (i, d) in self.dies.iter().enumerate() {
            if d.running.is_some() && d.plane_reads > 0 {
                return Err(format!("die {i}: a die-wide operation runs beside {} plane reads", d.plane_reads));
            }
            if d.running.is_some() && d.held.is_some() {
                return Err(format!("die {i}: an operation is held for power while another runs"));
            }
            if let Some(r) = d.running {
                if r.end < r.start {
                    return Err(format!("die {i}: running op ends ({}) before it starts ({})", r.end, r.start));
                }
            }
            let queued = d.reads.len() + d.background_reads.len() + d.writes.len();
            if queued > 0 && d.running.is_none() && d.held.is_none() && d.plane_reads == 0 {
                return Err(format!("die {i}: idle with {queued} operations queued"));
            }
            held_or_queued += queued + d.running.is_some() as usize + d.held.is_some() as usize;
        }
        let parked = self.suspended.len() - self.free_suspended.len();
        if self.queued != held_or_queued + parked {
            return Err(format!(
                "in-flight count {} != queued/running/held {held_or_queued} + parked reads {parked}",
                self.queued
            ));
        }
        for (c, t) in self.channels.iter().enumerate() {
            t.check().map_err(|e| format!("channel {c}: {e}"))?;
        }
        Ok(())
    }
}
