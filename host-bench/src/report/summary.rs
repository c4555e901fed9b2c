//! Per-direction figures shared by the JSON and text reports.

use crate::runner::{DirResult, JobResult, RunResult};
use crate::stats::SampleSummary;

/// Rates and per-interval summaries of one direction of one reported job.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DirSummary {
    /// Job runtime when the direction did any I/O, else 0 (as fio reports it).
    pub runtime_ns: u64,
    pub bw_bytes_per_s: f64,
    pub iops: f64,
    /// Bandwidth per interval in KiB/s.
    pub bw_kib: SampleSummary,
    pub iops_samples: SampleSummary,
    /// This job's share of its group's bandwidth in this direction, percent.
    pub agg_percent: f64,
}

fn rate(count: u64, runtime_ns: u64) -> f64 {
    if runtime_ns == 0 {
        0.0
    } else {
        count as f64 * 1e9 / runtime_ns as f64
    }
}

fn runtime_of(dir: &DirResult, job: &JobResult) -> u64 {
    if dir.ios > 0 {
        job.runtime_ns()
    } else {
        0
    }
}

pub(crate) fn dir_summary(job: &JobResult, d: usize, run: &RunResult) -> DirSummary {
    let dir = &job.dirs[d];
    let runtime_ns = runtime_of(dir, job);
    let bw = rate(dir.io_bytes, runtime_ns);
    let group_bw: f64 = run
        .jobs
        .iter()
        .filter(|o| o.groupid == job.groupid)
        .map(|o| rate(o.dirs[d].io_bytes, runtime_of(&o.dirs[d], o)))
        .sum();
    let (bw_kib, iops_samples) = if dir.ios > 0 {
        (
            SampleSummary::from_samples(job.series.iter().map(|p| p.bw_bytes_per_s(d) / 1024.0)),
            SampleSummary::from_samples(job.series.iter().map(|p| p.iops(d))),
        )
    } else {
        Default::default()
    };
    DirSummary {
        runtime_ns,
        bw_bytes_per_s: bw,
        iops: rate(dir.ios, runtime_ns),
        bw_kib,
        iops_samples,
        agg_percent: if group_bw > 0.0 { bw / group_bw * 100.0 } else { 0.0 },
    }
}
