//! fio's `wait_for`: a job whose waitee runs in the same group starts once every instance of
//! the waitee has finished (fio's `waitee_running`). Its instances are made then, so its
//! startdelay, ramp and runtime count from that moment; its reported slot exists from the
//! group's start (its time series runs on the group's clock). A waitee in an earlier group has
//! finished before the group starts, so its waiters start with the group.

use super::setup::new_instance;
use super::*;

/// An instance not made yet, with what making it takes.
pub(super) struct Waiting {
    /// The job's spec as this run uses it (sizes already shrunk for a scaled drive).
    pub(super) spec: JobSpec,
    /// Job section index and clone number.
    pub(super) job: usize,
    pub(super) clone: u32,
    pub(super) slot: usize,
    /// The job section whose instances must all have finished.
    pub(super) waitee: usize,
}

impl GroupRun {
    /// Whether job section `job` is done: none of its instances waits or runs.
    fn job_done(&self, job: usize) -> bool {
        !self.waiting.iter().any(|w| w.job == job)
            && self.instances.iter().filter(|i| i.job as usize == job).all(|i| i.finished)
    }

    /// Makes and starts every waiting instance whose waitee is done; those may finish at once
    /// and release others in turn. Called after an instance finished.
    pub(super) fn wake_waiters<D: Device + ?Sized>(&mut self, dev: &mut D, opts: &RunOptions) -> Result<(), RunError> {
        self.instance_finished = false;
        while let Some(k) = self.waiting.iter().position(|w| self.job_done(w.waitee)) {
            let w = self.waiting.remove(k);
            let (now, info) = (dev.now_ns(), dev.info());
            let inst =
                new_instance(&w.spec, w.job, w.clone, w.slot, &info, now, self.run_start_ns, opts, &mut self.flows)?;
            self.controlled |= inst.control.is_some();
            let res = &mut self.slots[w.slot].result;
            res.start_ns = res.start_ns.min(inst.measure_from_ns);
            self.instances.push(inst);
            let i = self.instances.len() - 1;
            self.instances[i].refill(dev).map_err(|message| self.iolog_error(i, message))?;
            self.kick(dev, i, now)?;
        }
        Ok(())
    }

    /// A stopped run starts no waiting instance; a job none of whose instances started is
    /// reported as starting and ending at `now_ns` (an empty span).
    pub(super) fn drop_waiters(&mut self, now_ns: u64) {
        self.drop_waiters_of(now_ns, |_| true);
    }

    /// [`Self::drop_waiters`] for the waiting instances whose report is in a slot `of` picks.
    pub(super) fn drop_waiters_of(&mut self, now_ns: u64, of: impl Fn(&Slot) -> bool) {
        let (drop, keep): (Vec<Waiting>, Vec<Waiting>) =
            std::mem::take(&mut self.waiting).into_iter().partition(|w| of(&self.slots[w.slot]));
        self.waiting = keep;
        self.live -= drop.len();
        for w in drop {
            let r = &mut self.slots[w.slot].result;
            if r.start_ns == u64::MAX {
                (r.start_ns, r.end_ns) = (now_ns, r.end_ns.max(now_ns));
            }
        }
    }
}
