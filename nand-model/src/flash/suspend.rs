//! Program/erase suspend: a host read served at once by suspending its die's program or erase.

use super::*;

impl Flash {
    /// Serves a read at once by suspending the die's program or erase, if worth it.
    pub(super) fn try_suspend_for(&mut self, now: SimTime, op: NandOp) -> bool {
        let t = self.timing;
        let d = &self.dies[op.die as usize];
        let Some(run) = d.running else { return false };
        // A read arriving while the op is already suspended joins that suspension; otherwise the
        // op suspends at its next suspend point, once it has run `suspend_min_progress` since
        // it started or last resumed.
        if run.op.kind == OpKind::Read {
            return false;
        }
        let suspended_now = now + t.t_suspend_ns < d.suspended_reads_until;
        if !suspended_now && run.suspends >= t.max_suspends_per_op {
            return false;
        }
        let suspend_at = match t.suspend_min_progress_ns {
            Some(gap) if !suspended_now => {
                // Reads of an earlier op on this die ended before this op started.
                let resumed = if d.suspended_reads_until > run.start {
                    d.suspended_reads_until + t.t_suspend_ns
                } else {
                    run.start
                };
                now.max(resumed + gap)
            }
            _ => now,
        };
        if run.end <= suspend_at + 2 * t.t_suspend_ns {
            return false;
        }
        let mut extra_w = 0.0;
        if self.governor.as_deref().is_some_and(Governor::capped) {
            // A read the governor kept from suspending waits in the queue; later reads must not
            // suspend past it (each suspension pushes the program's end out, starving it).
            if !self.dies[op.die as usize].reads.is_empty() {
                return false;
            }
            // The read reserves its whole draw on top of the suspended op's credit: counting only
            // the difference let overlapping suspend/resume edges exceed the credits (found by
            // the property test); over-reserving for the few microseconds of a read is safe.
            let (e, p) = self.cost(&op);
            let extra = p;
            if !self.governor.as_deref_mut().is_some_and(|g| g.admit_suspend_read(now, e, extra)) {
                return false;
            }
            extra_w = extra;
        }
        let d = &self.dies[op.die as usize];
        let ch = self.geo.channel_of(op.die) as usize;
        let planes = op.planes.max(1) as u32;
        let array_ns = t.read_array_ns(op.page_type as u32, planes);
        let xfer = t.transfer_ns(op.bytes);
        let array_start = (suspend_at + t.t_suspend_ns).max(d.suspended_reads_until);
        // Its command goes out just before the array starts, waiting for no transfer (flash.rs).
        let cmd = array_start.saturating_sub(t.t_cmd_ns).max(now);
        let array_start = array_start.max(cmd + t.t_cmd_ns);
        let x = self.channels[ch].reserve(now, array_start + array_ns, xfer);
        let end = x + xfer;
        self.account(now, &op, cmd, end, array_ns, self.energy.read_w, xfer);
        self.stats.suspends += 1;
        let d = &mut self.dies[op.die as usize];
        let joined_until = d.suspended_reads_until;
        d.suspended_reads_until = array_start + array_ns;
        // A new suspension costs the op the read's array time, a suspend, a resume and the
        // verify step the resume repeats; a read joining a suspension under way extends it to
        // its own array end and no more (the die resumes once, after the last read).
        let repeat = match (suspended_now, run.op.kind) {
            (true, _) => SimTime::ZERO,
            (false, OpKind::Erase) => t.resume_cost_erase_ns,
            (false, _) => t.resume_cost_prog_ns,
        };
        let delay =
            if suspended_now { d.suspended_reads_until - joined_until } else { array_ns + 2 * t.t_suspend_ns + repeat };
        if let Some(r) = d.running.as_mut() {
            r.end += delay;
            r.suspends += u32::from(!suspended_now);
            if let Some(l) = self.oplog.as_deref_mut() {
                // The pause as the program sees it: suspend, the read, resume and the repeated step.
                l.suspended(
                    op.die,
                    r.start,
                    array_start - t.t_suspend_ns,
                    array_start + array_ns + t.t_suspend_ns + repeat,
                );
            }
            d.generation = d.generation.wrapping_add(1);
            self.events.push(r.end, Event::DieDone { die: op.die, generation: d.generation });
        }
        let slot = self.park_read(op, cmd, extra_w);
        self.events.push(end, Event::SuspendedRead(slot));
        true
    }
}
