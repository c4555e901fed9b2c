//! Per-direction figures shared by the JSON and text reports.

use crate::job::UnifiedRw;
use crate::runner::{DirResult, JobResult, RunResult};
use crate::stats::IntervalPoint;
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
    /// fio's `per=`/`bw_agg`: the mean of this job's bandwidth samples as a share of its
    /// group's aggregate bandwidth ([`GroupDir::agg_bytes_per_s`]), percent, at most 100.
    pub agg_percent: f64,
}

/// fio's "Run status group" figures of one direction (stat.c): the group's bytes over its
/// longest runtime, not the sum of the jobs' bandwidths (they differ when runtimes differ).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct GroupDir {
    pub io_bytes: u64,
    pub min_run_ns: u64,
    pub max_run_ns: u64,
    pub agg_bytes_per_s: f64,
    /// Slowest and fastest job bandwidth of the group.
    pub min_bw_bytes_per_s: f64,
    pub max_bw_bytes_per_s: f64,
}

/// Group figures of direction `d`, or `None` when no job of the group did I/O in it.
pub(crate) fn group_dir(run: &RunResult, group: usize, d: usize) -> Option<GroupDir> {
    let views: Vec<_> = run.jobs.iter().filter(|j| j.groupid == group).map(group_view).collect();
    group_dir_of(views.iter().map(|v| v.as_ref()), d)
}

/// fio's MIXED group line of `unified_rw_reporting=both`: the directions' figures summed
/// (aggregate bandwidths and bytes), runtimes and job bandwidths over all directions.
pub(crate) fn group_mixed(run: &RunResult, group: usize) -> Option<GroupDir> {
    (0..3).filter_map(|d| group_dir(run, group, d)).reduce(|a, b| GroupDir {
        io_bytes: a.io_bytes + b.io_bytes,
        min_run_ns: a.min_run_ns.min(b.min_run_ns),
        max_run_ns: a.max_run_ns.max(b.max_run_ns),
        agg_bytes_per_s: a.agg_bytes_per_s + b.agg_bytes_per_s,
        min_bw_bytes_per_s: a.min_bw_bytes_per_s.min(b.min_bw_bytes_per_s),
        max_bw_bytes_per_s: a.max_bw_bytes_per_s.max(b.max_bw_bytes_per_s),
    })
}

/// [`group_dir`] over the given jobs (e.g. their mixed views).
pub(crate) fn group_dir_of<'a>(jobs: impl Iterator<Item = &'a JobResult>, d: usize) -> Option<GroupDir> {
    let mut g: Option<GroupDir> = None;
    for job in jobs.filter(|j| j.dirs[d].ios > 0) {
        let (bytes, runtime) = (job.dirs[d].io_bytes, job.dir_runtime_ns(d));
        let bw = rate(bytes, runtime);
        let e = g.get_or_insert(GroupDir {
            io_bytes: 0,
            min_run_ns: u64::MAX,
            max_run_ns: 0,
            agg_bytes_per_s: 0.0,
            min_bw_bytes_per_s: f64::INFINITY,
            max_bw_bytes_per_s: 0.0,
        });
        e.io_bytes += bytes;
        e.min_run_ns = e.min_run_ns.min(runtime);
        e.max_run_ns = e.max_run_ns.max(runtime);
        e.min_bw_bytes_per_s = e.min_bw_bytes_per_s.min(bw);
        e.max_bw_bytes_per_s = e.max_bw_bytes_per_s.max(bw);
    }
    g.map(|mut e| {
        e.agg_bytes_per_s = rate(e.io_bytes, e.max_run_ns);
        e
    })
}

/// fio's runtime in msec: elapsed microseconds rounded up (backend.c).
pub(crate) fn runtime_ms(ns: u64) -> u64 {
    (ns / 1000).div_ceil(1000)
}

fn rate(count: u64, runtime_ns: u64) -> f64 {
    if runtime_ns == 0 {
        0.0
    } else {
        count as f64 * 1e9 / runtime_ns as f64
    }
}

fn runtime_of(dir: &DirResult, job: &JobResult, d: usize) -> u64 {
    if dir.ios > 0 {
        job.dir_runtime_ns(d)
    } else {
        0
    }
}

pub(crate) fn dir_summary(job: &JobResult, d: usize, run: &RunResult) -> DirSummary {
    let group_bw = group_dir(run, job.groupid, d).map_or(0.0, |g| g.agg_bytes_per_s);
    dir_summary_in(job, d, group_bw)
}

/// [`dir_summary`] against a given group aggregate bandwidth (bytes/s).
pub(crate) fn dir_summary_in(job: &JobResult, d: usize, group_bw: f64) -> DirSummary {
    let dir = &job.dirs[d];
    let runtime_ns = runtime_of(dir, job, d);
    let bw = rate(dir.io_bytes, runtime_ns);
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
        // fio: 100 unless the group moved more than 1 KiB/s; capped at 100.
        agg_percent: if group_bw > 1024.0 { (bw_kib.mean * 1024.0 / group_bw * 100.0).min(100.0) } else { 100.0 },
    }
}

/// fio's `unified_rw_reporting` view of a job: every direction summed into slot 0 (reads),
/// bandwidth and IOPS samples summed per interval.
pub(crate) fn mixed_view(job: &JobResult) -> JobResult {
    let mut m = job.clone();
    let mut all = DirResult::default();
    for d in &job.dirs {
        all.clat.merge(&d.clat);
        all.io_bytes += d.io_bytes;
        all.ios += d.ios;
    }
    m.dirs = [all, DirResult::default(), DirResult::default()];
    m.series = job.series.iter().map(mixed_point).collect();
    m
}

fn mixed_point(p: &IntervalPoint) -> IntervalPoint {
    let ios: u64 = p.ios.iter().sum();
    let lat_sum: f64 = p.ios.iter().zip(&p.lat_mean_ns).map(|(&n, &l)| n as f64 * l).sum();
    IntervalPoint {
        start_ns: p.start_ns,
        duration_ns: p.duration_ns,
        ios: [ios, 0, 0],
        bytes: [p.bytes.iter().sum(), 0, 0],
        lat_mean_ns: [if ios > 0 { lat_sum / ios as f64 } else { 0.0 }, 0.0, 0.0],
        lat_p99_ns: [p.lat_p99_ns.iter().copied().max().unwrap_or(0), 0, 0],
    }
}

/// The job as its group's figures count it: mixed jobs by their mixed view (fio sums a
/// `unified_rw_reporting=mixed` job's directions before the group figures are made).
pub(crate) fn group_view(job: &JobResult) -> std::borrow::Cow<'_, JobResult> {
    match job.unified_rw {
        UnifiedRw::Mixed => std::borrow::Cow::Owned(mixed_view(job)),
        _ => std::borrow::Cow::Borrowed(job),
    }
}
