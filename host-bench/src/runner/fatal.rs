//! Why fio would end a job with an error before its end: a completion over `max_latency`
//! (ETIMEDOUT) or a direction under `rate_min` / `rate_iops_min` (EIO, see `min_rate.rs`).
//! The job stops issuing, its queue drains, and the report carries fio's errno.

use super::min_rate::MinRateMiss;
use crate::device::IoDir;

/// The error that ended a job.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum JobFatal {
    /// fio `max_latency` exceeded (io_u.c `lat_fatal`).
    MaxLatency { dir: IoDir, latency_ns: u64, max_ns: u64 },
    /// fio `rate_min` / `rate_iops_min` missed (backend.c `check_min_rate`).
    MinRate(MinRateMiss),
}

impl JobFatal {
    /// fio's errno for it (Linux): ETIMEDOUT or EIO.
    pub fn errno(&self) -> u32 {
        match self {
            JobFatal::MaxLatency { .. } => 110,
            JobFatal::MinRate(_) => 5,
        }
    }
}

impl std::fmt::Display for JobFatal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JobFatal::MaxLatency { dir, latency_ns, max_ns } => {
                let d = format!("{dir:?}").to_lowercase();
                write!(f, "latency of {latency_ns} nsec exceeds specified max ({max_ns} nsec) ({d})")
            }
            JobFatal::MinRate(m) => {
                let d = format!("{:?}", m.dir).to_lowercase();
                write!(f, "{m} ({d})")
            }
        }
    }
}
