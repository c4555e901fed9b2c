//! What a run reports: per-direction totals, each reported job's figures and the run's
//! (`RunResult`), the structs the JSON and text writers and every consumer share.

use super::{JobFatal, LatencyOutcome, VerifyPhase, Warmup};
use crate::device::{DeviceInfo, HostUsage};
use crate::job::{RwMode, ScaledOption, SteadyState, UnifiedRw};
use crate::stats::{Histogram, IntervalPoint};

/// Totals and completion latencies of one direction.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq)]
pub struct DirResult {
    /// Completion latency (submit to complete); slat is 0 here, so lat equals clat.
    pub clat: Histogram,
    pub io_bytes: u64,
    pub ios: u64,
}

/// Steady-state outcome of a reported job.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
pub struct SteadyStateOutcome {
    /// Criterion with durations already scaled.
    pub criterion: SteadyState,
    /// True when every instance of the job reached steady state.
    pub reached: bool,
    /// Latest time an instance reached it.
    pub reached_at_ns: Option<u64>,
}

/// One reported job: a single instance, or a whole group with `group_reporting`.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
pub struct JobResult {
    pub name: String,
    pub groupid: usize,
    /// Job instances merged into this result.
    pub instances: u32,
    /// fio's "job options": options written in the job section.
    pub options: Vec<(String, String)>,
    pub rw: RwMode,
    pub iodepth: u32,
    pub percentile_list: Vec<f64>,
    pub description: Option<String>,
    /// fio `unified_rw_reporting` of the job.
    pub unified_rw: UnifiedRw,
    /// read, write, trim.
    pub dirs: [DirResult; 3],
    pub series: Vec<IntervalPoint>,
    pub series_interval_ns: u64,
    /// Measurement window: end of ramp to last completion (device time).
    pub start_ns: u64,
    pub end_ns: u64,
    /// Each merged instance's own measured time (end of its ramp to its end), summed: fio's
    /// `job_runtime` of a report that merges several (`group_reporting`).
    #[serde(default)]
    pub instances_runtime_ns: u64,
    /// Submissions by outstanding depth: 1, 2, 3-4, 5-8, 9-16, 17-63, >=64 (fio's buckets).
    pub iodepth_levels: [u64; 7],
    pub steady_state: Option<SteadyStateOutcome>,
    /// fio's `latency_target` search (or the job's iodepth without one).
    pub latency: LatencyOutcome,
    /// `max_latency` exceeded or a minimum rate missed: the job ended there with fio's errno.
    #[serde(default)]
    pub fatal: Option<JobFatal>,
    /// fio's verify phase (`do_verify`), whose reads are counted in `dirs[0]`.
    pub verify: VerifyPhase,
    /// Host CPU used while the job ran (real targets only). Jobs of one group run in one
    /// thread, so each gets the group's usage in proportion to its I/Os.
    pub host_usage: Option<HostUsage>,
    /// The unmeasured warm-up its group ran first (scaled time-based groups; `runner::warmup`).
    pub warmup: Option<Warmup>,
    /// The job file's absolute sizes as the scaled drive ran them (`job::full_scale`).
    #[serde(default)]
    pub scaled_sizes: Vec<ScaledOption>,
}

impl JobResult {
    pub fn runtime_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns)
    }

    /// fio's `error` of the job (a Linux errno): ETIMEDOUT (110) for a latency_target missed
    /// at QD 1, else that of [`JobResult::fatal`], else 0.
    pub fn error_code(&self) -> u32 {
        if self.latency.exceeded_ns.is_some() {
            110
        } else {
            self.fatal.map_or(0, |f| f.errno())
        }
    }
}

/// Everything a run measured, plus what is needed to reproduce it.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub file: String,
    pub global_options: Vec<(String, String)>,
    pub jobs: Vec<JobResult>,
    pub seed: u64,
    pub time_scale: f64,
    pub device: DeviceInfo,
    /// Device time at start and end of the whole run.
    pub start_ns: u64,
    pub end_ns: u64,
    /// The stop flag ended the run early.
    pub interrupted: bool,
}
