//! fio's `exitall`: once any job of a file has it (fio sets one global flag), every job that
//! finishes ends others, as its `exit_what` says: its reporting group, every job running now,
//! or every job (later groups then run nothing). An ended job issues nothing more; its I/Os in
//! flight complete.

use super::*;
use crate::job::ExitWhat;

/// Whether a finishing job ends others, and how each job section does it.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default)]
pub(super) struct ExitRule {
    pub(super) on: bool,
    what: Vec<ExitWhat>,
    /// A job with `exit_what=all` finished: the groups after this one run nothing.
    pub(super) all_ended: bool,
}

impl ExitRule {
    pub(super) fn of(file: &JobFile) -> Self {
        ExitRule {
            on: file.jobs.iter().any(|j| j.exitall),
            what: file.jobs.iter().map(|j| j.exit_what).collect(),
            all_ended: false,
        }
    }
}

impl GroupRun {
    /// Instance `i` finished: ends the instances its job's `exit_what` names.
    pub(super) fn end_others<D: Device + ?Sized>(&mut self, dev: &mut D, i: usize, now_ns: u64) {
        let what = self.exit.what.get(self.instances[i].job as usize).copied().unwrap_or_default();
        let groupid = self.slots[self.instances[i].slot].result.groupid;
        let ends = |run: &Self, k: usize| {
            let inst = &run.instances[k];
            !inst.stopped
                && match what {
                    ExitWhat::Group => run.slots[inst.slot].result.groupid == groupid,
                    // fio ends the jobs that are running, not those yet to start.
                    ExitWhat::Stonewall => inst.issued_ios > 0,
                    ExitWhat::All => true,
                }
        };
        let ended: Vec<usize> = (0..self.instances.len()).filter(|&k| ends(self, k)).collect();
        for &k in &ended {
            self.instances[k].stopped = true;
        }
        match what {
            ExitWhat::Group => self.drop_waiters_of(now_ns, |s| s.result.groupid == groupid),
            ExitWhat::Stonewall => {}
            ExitWhat::All => {
                self.drop_waiters(now_ns);
                self.exit.all_ended = true;
            }
        }
        // Ended instances with nothing in flight are done now; the others when it completes.
        for k in ended {
            if self.instances[k].outstanding == 0 {
                self.check_done(dev, k, now_ns);
            }
        }
    }
}
