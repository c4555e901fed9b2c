//! What a simulated run will hold in memory, estimated before anything is built, so a run
//! that cannot fit fails up front with the flag to change instead of dying in an allocation.
//!
//! Pure arithmetic on the profile and the job file; the caller compares the total with the
//! memory the machine has (only the binary reads `/proc`).

use crate::job::JobFile;
use crate::sim::{CounterSample, MAX_INTERVAL_SAMPLES};
use crate::simrun::{auto_scale, SimConfig, SimError};
use crate::stats::{IntervalPoint, MAX_SERIES_POINTS};
use ftl::layout::scale_geometry;
use ftl::profile::{self, ValidatedProfile};
use std::fmt;

/// Mapping-table bytes per physical mapping unit: L2P (4 B, at most one per unit), P2L (4 B)
/// and the live-unit bitmap (1 bit). `ssdlab bench` measures 8.4 B of RSS per unit in all.
const TABLE_BYTES_PER_UNIT: f64 = 8.125;
/// Write sequences kept for power-loss recovery, bytes per unit.
const SEQUENCE_BYTES_PER_UNIT: f64 = 4.0;
/// Block table per block: state, stream, counters, pointers, GC candidate key, close time, free list.
const BYTES_PER_BLOCK: u64 = 40;
/// The process itself, the NAND model, write buffer and queues: measured ~6 MiB on `tiny`.
pub const BASE_BYTES: u64 = 32 << 20;
/// A latency histogram (fixed buckets) with its sums.
const HISTOGRAM_BYTES: u64 = 16 << 10;

/// A simulated run's memory, by what holds it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MemoryEstimate {
    pub drive_units: u64,
    pub scale_divisor: u32,
    /// FTL mapping tables and block table of the simulated drive.
    pub tables_bytes: u64,
    /// Latency histograms, time series and counter samples of the run (each bounded).
    pub results_bytes: u64,
    pub base_bytes: u64,
}

impl MemoryEstimate {
    pub fn total_bytes(&self) -> u64 {
        self.tables_bytes + self.results_bytes + self.base_bytes
    }
}

impl fmt::Display for MemoryEstimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (mapping tables {} for {} units at scale 1/{}, results {}, base {})",
            gib(self.total_bytes()),
            gib(self.tables_bytes),
            self.drive_units,
            self.scale_divisor,
            gib(self.results_bytes),
            gib(self.base_bytes)
        )
    }
}

/// Bytes as GiB with two decimals ("0.03 GiB").
pub fn gib(bytes: u64) -> String {
    format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
}

/// FTL tables of `p` built at `scale_divisor`: (mapping units, bytes).
pub fn table_estimate(p: &ValidatedProfile, scale_divisor: u32, track_sequence: bool) -> (u64, u64) {
    let (g, _) = scale_geometry(&p.geometry, scale_divisor);
    let units = g.raw_bytes() / u64::from(p.profile.controller.mapping_unit_bytes.max(1));
    let per_unit = TABLE_BYTES_PER_UNIT + if track_sequence { SEQUENCE_BYTES_PER_UNIT } else { 0.0 };
    let blocks = u64::from(g.dies()) * u64::from(g.blocks_per_plane);
    (units, nand_model::cast::sat_u64(units as f64 * per_unit) + blocks * BYTES_PER_BLOCK)
}

/// Result collections of `job` (`None`: one job of unknown length): per reported
/// job three histograms plus a series of at most [`MAX_SERIES_POINTS`] (fewer when its runtime
/// says so), and the drive's counter samples (at most [`MAX_INTERVAL_SAMPLES`]).
pub fn results_estimate(job: Option<&JobFile>, time_scale: f64, interval_ns: u64) -> u64 {
    let point = (std::mem::size_of::<IntervalPoint>() + 3 * 8) as u64;
    let per_slot = |runtime_ns: Option<u64>| {
        let points = runtime_ns
            .map(|r| nand_model::cast::sat_u64((r as f64 * time_scale / interval_ns.max(1) as f64).ceil()) + 2)
            .unwrap_or(u64::MAX)
            .min(MAX_SERIES_POINTS as u64);
        6 * HISTOGRAM_BYTES + points * point
    };
    let slots: u64 = match job {
        None => per_slot(None),
        Some(f) => f
            .jobs
            .iter()
            .map(|j| {
                let n = if j.group_reporting { 1 } else { u64::from(j.numjobs.max(1)) };
                let runtime = j.runtime_ns.map(|r| r.saturating_add(j.ramp_time_ns));
                n * per_slot(runtime)
            })
            .sum(),
    };
    slots + (MAX_INTERVAL_SAMPLES * std::mem::size_of::<CounterSample>()) as u64
}

/// Memory of running `job` on the drive `cfg` describes, without building it.
pub fn estimate(cfg: &SimConfig, job: Option<&JobFile>) -> Result<MemoryEstimate, SimError> {
    let p = profile::load(&cfg.drive)?;
    let scale_divisor = cfg.scale_divisor.unwrap_or_else(|| auto_scale(&p));
    let (drive_units, tables_bytes) = table_estimate(&p, scale_divisor, false);
    let (_, factor) = scale_geometry(&p.geometry, scale_divisor);
    Ok(MemoryEstimate {
        drive_units,
        scale_divisor,
        tables_bytes,
        results_bytes: results_estimate(job, 1.0 / factor, cfg.interval_ns),
        base_bytes: BASE_BYTES,
    })
}

/// The smallest power-of-two multiple of `from` (up to 2^20) whose estimate fits `avail`.
pub fn fitting_scale(cfg: &SimConfig, job: Option<&JobFile>, from: u32, avail: u64) -> Option<u32> {
    let mut d = from.max(1);
    while d <= 1 << 20 {
        let c = SimConfig { scale_divisor: Some(d), ..cfg.clone() };
        if estimate(&c, job).ok()?.total_bytes() <= avail {
            return Some(d);
        }
        d = d.checked_mul(2)?;
    }
    None
}
