//! A group's results: fio's per-job figures once the group is done, progress, the log of
//! submitted I/Os while it runs, and errors named by the job they belong to.

use super::*;

impl GroupRun {
    pub(super) fn flush_submitted(&mut self, opts: &mut RunOptions) {
        if let (Some(log), Some(cb)) = (self.submitted.as_mut(), opts.on_submit.as_mut()) {
            cb(log);
            log.clear();
        }
        if let (Some(log), Some(cb)) = (self.completed.as_mut(), opts.on_complete.as_mut()) {
            cb(log);
            log.clear();
        }
    }

    pub(super) fn report_progress(&mut self, now_ns: u64, opts: &mut RunOptions) {
        let Some(cb) = opts.progress.as_mut() else {
            return;
        };
        let n = self.instances.len().max(1) as f64;
        let in_group = self.instances.iter().map(|i| i.fraction(now_ns)).sum::<f64>() / n;
        let fraction = (self.group as f64 + in_group) / self.groups.max(1) as f64;
        cb(RunProgress { group: self.group, groups: self.groups, fraction });
    }

    pub(super) fn into_results(mut self, now_ns: u64) -> Vec<JobResult> {
        for inst in &self.instances {
            let slot = &mut self.slots[inst.slot];
            if !inst.finished {
                // Interrupted: its time runs to now.
                slot.result.instances_runtime_ns += super::whole_ms(now_ns.saturating_sub(inst.measure_from_ns));
            }
            if let Some(ss) = slot.result.steady_state.as_mut() {
                slot.ss_all_reached &= inst.ss_reached_ns.is_some();
                ss.reached_at_ns = ss.reached_at_ns.max(inst.ss_reached_ns);
            }
        }
        self.slots
            .into_iter()
            .map(|mut s| {
                let measured = s.result.dirs.iter().any(|d| d.ios > 0);
                if let Some(ramp) = s.ramp.take().filter(|r| !measured && r.dirs.iter().any(|d| d.ios > 0)) {
                    // Every instance ended inside its ramp: fio never reset the statistics.
                    let r = *ramp;
                    (s.result.dirs, s.result.iodepth_levels) = (r.dirs, r.iodepth_levels);
                    (s.result.start_ns, s.result.end_ns, s.series) = (r.start_ns, r.end_ns, r.series);
                }
                if s.offload {
                    // fio's offload workers submit one I/O each and count their own depth.
                    let n = s.result.iodepth_levels.iter().sum();
                    s.result.iodepth_levels = [n, 0, 0, 0, 0, 0, 0];
                }
                let end = s.result.end_ns.max(s.result.start_ns).min(now_ns.max(s.result.start_ns));
                s.result.end_ns = end;
                s.series.finish(end);
                s.result.series_interval_ns = s.series.interval_ns();
                s.result.series = s.series.into_points();
                if let Some(ss) = s.result.steady_state.as_mut() {
                    ss.reached = s.ss_all_reached;
                }
                s.result
            })
            .collect()
    }

    pub(super) fn iolog_error(&self, i: usize, message: String) -> RunError {
        let job = self
            .instances
            .get(i)
            .and_then(|inst| self.slots.get(inst.slot))
            .map_or_else(String::new, |s| s.result.name.clone());
        RunError::Iolog { job, message }
    }

    pub(super) fn device_error(&self, i: usize, source: DeviceError) -> RunError {
        let job = self
            .instances
            .get(i)
            .and_then(|inst| self.slots.get(inst.slot))
            .map_or_else(String::new, |s| s.result.name.clone());
        RunError::Device { job, source }
    }
}

/// The reads of a job's verify phase (fio `do_verify`), which fio counts in the job's reads.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VerifyPhase {
    pub ios: u64,
    pub runtime_ns: u64,
}

impl JobResult {
    /// fio's runtime of direction `d`: the job's runtime if the direction did I/O in it, plus,
    /// for reads, the verify phase's (fio adds each phase's time to the directions it used).
    pub fn dir_runtime_ns(&self, d: usize) -> u64 {
        let verify = if d == 0 { self.verify } else { VerifyPhase::default() };
        let main = if self.dirs[d].ios > verify.ios { self.runtime_ns() } else { 0 };
        main + verify.runtime_ns
    }

    /// fio's `job_runtime`: every phase of the job; for a report that merges several
    /// instances, the sum of theirs (fio adds each thread's run time).
    pub fn job_runtime_ns(&self) -> u64 {
        // (A report whose instances all ended inside their ramp keeps the ramp's span: fio
        // reports those statistics unreset.)
        let merged = self.instances > 1 && self.instances_runtime_ns > 0;
        let main = if merged { self.instances_runtime_ns } else { self.runtime_ns() };
        main + self.verify.runtime_ns
    }
}

/// Adds the results of `phase` (`JobFile::verify_phase`, jobs named `NAME-verify`) to the
/// jobs they verified: fio reports a job's verify reads as its own reads.
pub fn merge_verify_phase(main: &mut RunResult, phase: &RunResult) {
    for p in &phase.jobs {
        let Some(name) = p.name.strip_suffix("-verify") else {
            continue;
        };
        let Some(job) = main.jobs.iter_mut().find(|j| j.name == name) else {
            continue;
        };
        let (from, to) = (&p.dirs[0], &mut job.dirs[0]);
        to.clat.merge(&from.clat);
        to.io_bytes += from.io_bytes;
        to.ios += from.ios;
        job.iodepth_levels.iter_mut().zip(p.iodepth_levels).for_each(|(a, b)| *a += b);
        job.verify.ios += from.ios;
        job.verify.runtime_ns += p.runtime_ns();
    }
    main.end_ns = main.end_ns.max(phase.end_ns);
}
