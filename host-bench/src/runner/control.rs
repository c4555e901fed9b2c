//! Closed-loop instances whose depth or pace another rule sets: fio's `latency_target` search
//! (`lat_target.rs`), token flow between jobs (`flow.rs`) and think time (`think.rs`).
//! Instances without any never come here: the runner tests one `Option` per completion.

use super::flow::{FlowMember, FlowShared};
use super::lat_target::LatSearch;
use super::think::Think;
use super::*;

/// The rules that steer one instance.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct Control {
    pub(super) lat: Option<Box<LatSearch>>,
    pub(super) flow: Option<FlowMember>,
    pub(super) think: Option<Think>,
    /// A delayed start (`startdelay`): nothing is issued before it.
    pub(super) start_at_ns: Option<u64>,
}

impl Control {
    /// The job's rules, or `None` when it has none (the common case).
    pub(super) fn new(
        spec: &JobSpec,
        flows: &mut Vec<FlowShared>,
        window_ns: u64,
        now_ns: u64,
        start_at_ns: Option<u64>,
    ) -> Option<Box<Self>> {
        let lat = LatSearch::new(&spec.latency, window_ns, spec.iodepth, now_ns);
        let flow = (spec.flow.weight > 0)
            .then(|| FlowMember::join(flows, spec.flow.id, spec.flow.weight, spec.flow.sleep_us.saturating_mul(1000)));
        let think = Think::new(&spec.think, now_ns);
        (lat.is_some() || flow.is_some() || think.is_some() || start_at_ns.is_some())
            .then(|| Box::new(Control { lat, flow, think, start_at_ns }))
    }
}

impl GroupRun {
    /// What the run loop waits for besides completions: open-loop arrivals (submitting those
    /// due) and flow members to retry or wake. `None`: completions only.
    #[inline]
    pub(super) fn next_deadline<D: Device + ?Sized>(
        &mut self,
        dev: &mut D,
        open_loop: bool,
    ) -> Result<Option<u64>, RunError> {
        Ok(match (open_loop, self.controlled) {
            (false, false) => None,
            (true, false) => self.open_loop_arrivals(dev)?,
            (false, true) => self.control_wake(dev)?,
            (true, true) => earliest(self.open_loop_arrivals(dev)?, self.control_wake(dev)?),
        })
    }

    /// Submits what instance `i` may submit now: up to the searched depth (else `iodepth`),
    /// while its flow lets it; true when it submitted anything.
    pub(super) fn fill_controlled<D: Device + ?Sized>(
        &mut self,
        dev: &mut D,
        i: usize,
        now_ns: u64,
    ) -> Result<bool, RunError> {
        let mut any = false;
        loop {
            let inst = &mut self.instances[i];
            let Some(ctl) = inst.control.as_ref() else {
                return Ok(any);
            };
            let depth = ctl.lat.as_ref().map_or(inst.iodepth, |l| l.depth().min(inst.iodepth));
            if inst.outstanding >= depth || !inst.can_issue(now_ns) {
                return Ok(any);
            }
            let outstanding = inst.outstanding;
            if let Some(c) = inst.control.as_mut() {
                if c.start_at_ns.is_some_and(|t| t > now_ns) {
                    return Ok(any);
                }
                c.start_at_ns = None;
            }
            if inst.control.as_mut().and_then(|c| c.think.as_mut()).is_some_and(|t| !t.may_issue(now_ns)) {
                return Ok(any);
            }
            if let Some(f) = inst.control.as_mut().and_then(|c| c.flow.as_mut()) {
                if f.sleep_until_ns.is_some_and(|t| t > now_ns) {
                    return Ok(any);
                }
                f.sleep_until_ns = None;
                if f.held(&mut self.flows) {
                    if f.sleep_ns > 0 {
                        // fio: drain the queue, then sleep (the time starts once it is empty).
                        f.sleep_until_ns =
                            Some(if outstanding == 0 { now_ns.saturating_add(f.sleep_ns) } else { u64::MAX });
                    }
                    return Ok(any);
                }
            }
            self.submit(dev, i, now_ns)?;
            any = true;
            let inst = &mut self.instances[i];
            let (issued, outstanding) = (inst.issued_ios, inst.outstanding);
            if let Some(t) = inst.control.as_mut().and_then(|c| c.think.as_mut()) {
                t.submitted(issued, outstanding, depth, now_ns);
            }
        }
    }

    /// After a completion of a controlled instance `i` (its statistics already recorded).
    pub(super) fn controlled_completion<D: Device + ?Sized>(
        &mut self,
        dev: &mut D,
        i: usize,
        c: IoCompletion,
        now_ns: u64,
    ) -> Result<(), RunError> {
        let inst = &mut self.instances[i];
        let measuring = c.complete_ns >= inst.measure_from_ns;
        let had_ramp = inst.measure_from_ns > inst.start_ns;
        let empty = inst.outstanding == 0;
        let (issued, outstanding) = (inst.issued_ios, inst.outstanding);
        let Some(ctl) = inst.control.as_mut() else {
            return Ok(());
        };
        if let Some(t) = ctl.think.as_mut() {
            t.completed(issued, outstanding, now_ns);
        }
        let mut reset = false;
        if let Some(lat) = ctl.lat.as_mut() {
            lat.completed(c.complete_ns.saturating_sub(c.submit_ns));
            if measuring {
                lat.check(now_ns, had_ramp);
            }
            if empty && lat.quiesce.is_some() {
                reset = lat.drained(now_ns);
            }
            if lat.done || lat.fatal_ns.is_some() {
                inst.stopped = true;
            }
        }
        if let Some(f) = ctl.flow.as_mut() {
            if empty && f.sleep_until_ns == Some(u64::MAX) {
                f.sleep_until_ns = Some(now_ns.saturating_add(f.sleep_ns));
            }
        }
        if reset {
            let slot = inst.slot;
            self.restart_stats(slot, now_ns);
        }
        if self.fill_controlled(dev, i, now_ns)? {
            self.retry_flow(dev, i, now_ns)?;
        }
        self.check_done(dev, i, now_ns);
        Ok(())
    }

    /// fio `reset_all_stats` when the searched depth is found: the report is its final window.
    fn restart_stats(&mut self, slot: usize, now_ns: u64) {
        let s = &mut self.slots[slot];
        s.result.dirs = Default::default();
        s.result.iodepth_levels = [0; 7];
        s.result.start_ns = now_ns;
        s.result.end_ns = now_ns;
        s.ramp = None;
    }

    /// Instance `i` counted in its flow: the members it held back may go on (fio's held jobs
    /// spin on the shared counter).
    pub(super) fn retry_flow<D: Device + ?Sized>(
        &mut self,
        dev: &mut D,
        i: usize,
        now_ns: u64,
    ) -> Result<(), RunError> {
        let Some(flow) = self.instances[i].control.as_ref().and_then(|c| c.flow.map(|f| f.flow)) else {
            return Ok(());
        };
        let mut progress = true;
        while progress {
            progress = false;
            for j in 0..self.instances.len() {
                let member = self.instances[j].control.as_ref().and_then(|c| c.flow).is_some_and(|f| f.flow == flow);
                if j != i && member && !self.instances[j].finished && self.fill_controlled(dev, j, now_ns)? {
                    progress = true;
                    self.check_done(dev, j, now_ns);
                }
            }
        }
        Ok(())
    }

    /// A controlled instance finished: its search's outcome is reported, and it leaves its
    /// flow (the others are retried before the runner next waits).
    pub(super) fn controlled_finished(&mut self, i: usize) {
        let inst = &mut self.instances[i];
        let Some(ctl) = inst.control.as_mut() else {
            return;
        };
        if let Some(lat) = ctl.lat.as_ref() {
            let out = &mut self.slots[inst.slot].result.latency;
            out.depth = lat.qd;
            out.exceeded_ns = out.exceeded_ns.or(lat.fatal_ns);
        }
        if let Some(f) = ctl.flow.as_mut() {
            f.leave(&mut self.flows);
            self.flow_left = true;
        }
    }

    /// Retries flow members after one left, wakes those whose `flow_sleep` is over; returns
    /// the next wake-up time, if any.
    pub(super) fn control_wake<D: Device + ?Sized>(&mut self, dev: &mut D) -> Result<Option<u64>, RunError> {
        let now = dev.now_ns();
        while std::mem::take(&mut self.flow_left) {
            for i in 0..self.instances.len() {
                let member = self.instances[i].control.as_ref().is_some_and(|c| c.flow.is_some());
                if member && !self.instances[i].finished {
                    self.fill_controlled(dev, i, now)?;
                    self.check_done(dev, i, now);
                }
            }
        }
        let mut next: Option<u64> = None;
        for i in 0..self.instances.len() {
            match self.wake_at(i) {
                Some(t) if t <= now && !self.instances[i].finished => {
                    if self.fill_controlled(dev, i, now)? {
                        self.retry_flow(dev, i, now)?;
                    }
                    self.check_done(dev, i, now);
                    if let Some(t) = self.wake_at(i) {
                        next = Some(next.map_or(t, |n| n.min(t)));
                    }
                }
                Some(t) if !self.instances[i].finished => next = Some(next.map_or(t, |n| n.min(t))),
                _ => {}
            }
        }
        Ok(next)
    }

    /// Whether instance `i`, done issuing, still pauses: fio pauses after a job's last I/O too,
    /// and the pause is part of the job's runtime (its end moves to the pause's end).
    pub(super) fn still_thinking(&mut self, i: usize, now_ns: u64) -> bool {
        let inst = &self.instances[i];
        let Some(think) = inst.control.as_ref().and_then(|c| c.think) else {
            return false;
        };
        if think.until_ns.is_some_and(|t| t > now_ns) {
            return true;
        }
        if now_ns >= inst.measure_from_ns {
            let r = &mut self.slots[inst.slot].result;
            r.end_ns = r.end_ns.max(now_ns);
        }
        false
    }

    /// When instance `i` next wakes from a flow sleep or a think-time pause (`None`: it does
    /// not sleep, or waits for its queue to drain).
    fn wake_at(&self, i: usize) -> Option<u64> {
        let ctl = self.instances[i].control.as_ref()?;
        let flow = ctl.flow.and_then(|f| f.sleep_until_ns);
        let think = ctl.think.and_then(|t| t.until_ns);
        let first = earliest(flow.filter(|&t| t != u64::MAX), think.filter(|&t| t != u64::MAX));
        earliest(first, ctl.start_at_ns)
    }
}

/// The earlier of two optional times.
fn earliest(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}
