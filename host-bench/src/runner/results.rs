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
