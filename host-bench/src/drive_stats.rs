//! The typed `"ssdlab"` objects of a simulated run's JSON report: [`DriveStats`] for the drive's
//! counters over a span (each job, and the whole run) and [`RunStats`] for the run (those
//! counters plus the seed and full configuration). The JSON report serialises these structs and
//! the sweep, calibration, validate and predict read them in memory, so a renamed field is a
//! compile error rather than a figure that quietly reads as 0. Field names are the documented
//! JSON keys (`tests/drive_stats_schema.rs` pins them).

use crate::limits::{Limit, LimitShares};
use crate::simrun::SimConfig;
use ftl::profile::DriveProfile;
use serde::{Deserialize, Serialize};

/// The drive's counters over one span of simulated time: a job's `"ssdlab"` object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DriveStats {
    /// Full-scale user capacity.
    pub user_capacity_bytes: u64,
    pub raw_capacity_bytes: u64,
    pub op_pct: f64,
    /// The cap in force (`None`: uncapped).
    pub power_cap_w: Option<f64>,
    pub power_state: Option<usize>,
    /// Byte counters are of the simulated drive (x the scale factor for full scale).
    pub host_write_bytes: u64,
    pub host_read_bytes: u64,
    pub nand_write_bytes: u64,
    pub gc_write_bytes: u64,
    pub rmw_reads: u64,
    pub write_amplification: f64,
    pub gc_victims: u64,
    pub erases: u64,
    pub erase_count: EraseCount,
    /// Free blocks at the span's end.
    pub free_blocks: u32,
    pub gc_stall_s: f64,
    pub buffer_stall_s: f64,
    pub energy_j: f64,
    pub avg_power_w: f64,
    pub energy_per_io_uj: f64,
    pub peak_power_w: f64,
    pub iops_per_w: f64,
    pub throttled_s: f64,
    pub throttled_pct: f64,
    /// Operations the power governor held since the drive was built (`None`: no governor).
    pub governor_held_ops_total: Option<u64>,
    /// Spread (CoV, %) of the job's IOPS per device second, i.e. per simulated second at
    /// reduced scale (`stats::iops_per_window`); `None` for the run-wide object.
    pub iops_cov_pct: Option<f64>,
    pub steady_state: Option<SteadyStateStats>,
    pub span_s: f64,
    /// The unmeasured warm-up before the job's group (scaled time-based groups; none of it is
    /// in these figures); `None` for the run-wide object and for groups that had none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup: Option<crate::runner::Warmup>,
    /// The job file's absolute sizes (`size=50g`, ...) as the scaled drive ran them: the same
    /// share of the drive (`job::full_scale`); absent when none was scaled.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scaled_sizes: Vec<crate::job::ScaledOption>,
    pub limits: LimitShares,
    pub binding_limit: Limit,
}

/// Erase counts per block at the span's end.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EraseCount {
    pub min: u32,
    pub avg: f64,
    pub max: u32,
}

/// fio `steadystate=` detection of a job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SteadyStateStats {
    pub reached: bool,
    /// Simulated seconds from the job's start (`None`: not reached).
    pub time_s: Option<f64>,
    /// The criterion as configured (its Rust debug form).
    pub criteria: String,
}

/// The run's top-level `"ssdlab"` object: the counters over the whole run (with the last job's
/// steady state and spread) and everything needed to reproduce it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunStats {
    #[serde(flatten)]
    pub span: DriveStats,
    #[serde(flatten)]
    pub header: SimHeader,
    pub interrupted: bool,
    pub job_file: String,
}

/// Which simulated drive produced a result and how to build it again: the seed, the full
/// configuration and profile, the scale. A run's `"ssdlab"` object and every suite's `"config"`
/// carry this one struct.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimHeader {
    pub version: String,
    /// The profile's name.
    pub drive: String,
    /// Where the profile came from (embedded name or file path).
    pub profile_source: String,
    pub seed: u64,
    pub config: SimConfig,
    pub profile: DriveProfile,
    pub scale: ScaleStats,
    /// Factor the job runtimes were multiplied by (1 / scale factor; 1 for a trace replay).
    pub time_scale: f64,
}

/// How the drive was scaled down for simulation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScaleStats {
    pub divisor: u32,
    /// Full raw capacity / simulated raw capacity.
    pub factor: f64,
    pub raw_capacity_bytes_simulated: u64,
    pub user_capacity_bytes_simulated: u64,
    pub note: String,
}

/// What the `note` of [`ScaleStats`] says.
pub const SCALE_NOTE: &str =
    "the simulated drive keeps channels, dies, planes and timing and has 1/factor of the blocks; \
     IOPS, bandwidth and latency are full-scale figures; runtimes were divided by factor so the \
     same fraction of the drive is written; byte counters are simulated (x factor for full scale)";
