//! Test suites built from fio jobs: SNIA PTS-E ([`pts`]), ezFIO ([`ezfio`]), VDBench-style
//! application profiles ([`vdbench`]), Aerospike ACT ([`act`]) and the FOB-to-steady-state curve
//! ([`fob`]), with the SNIA steady-state detector in [`steady`].
//!
//! A suite is policy (which jobs, in which order, when to stop) built as fio job values
//! ([`crate::job::build`]) and run through a [`Bench`]: the simulator ([`SimBench`], which adds the drive's own counters such as
//! WA) or a real file/block device ([`RealBench`]). Every suite writes a directory of JSON, CSV
//! and SVG files through [`OutDir`]; the JSON records the bench's configuration and seed, and
//! contains no wall-clock values, so the same inputs give byte-identical JSON.

pub mod act;
pub mod ezfio;
pub mod fob;
pub mod pts;
pub mod pts_report;
pub mod steady;
pub mod vdbench;

mod bench;
mod out;

pub use bench::{Bench, BenchConfig, RealBench, SimBench};
pub use out::{cell, OutDir};

use crate::job::JobError;
use crate::runner::{JobResult, RunError};
use crate::simrun::SimError;
use crate::stats::Histogram;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};

/// Why a suite could not complete.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    #[error("suite built an invalid job: {0}")]
    Job(#[from] JobError),
    #[error(transparent)]
    Run(#[from] RunError),
    #[error(transparent)]
    Sim(#[from] SimError),
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("plot {name}: {message}")]
    Plot { name: String, message: String },
    #[error("the real target must be purged first: run `{command}`, then pass --assume-purged")]
    NotPurged { command: String },
    #[error("invalid suite option {option}: {problem}")]
    BadOption { option: &'static str, problem: String },
    #[error("{0}")]
    Target(String),
}

/// Receives a suite's progress: what it is doing and the fraction done (0..=1).
pub type SuiteProgress<'a> = &'a mut dyn FnMut(&str, f64);

/// Caller controls shared by every suite: Ctrl-C and progress (suite-level fraction 0..=1).
#[derive(Default)]
pub struct Ctl<'a> {
    pub stop: Option<&'a AtomicBool>,
    pub progress: Option<SuiteProgress<'a>>,
}

impl Ctl<'_> {
    pub fn stopped(&self) -> bool {
        self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
    }

    pub fn report(&mut self, label: &str, fraction: f64) {
        if let Some(p) = self.progress.as_mut() {
            p(label, fraction.clamp(0.0, 1.0));
        }
    }
}

/// Completion-latency figures of one direction (or all), microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct LatStats {
    pub ios: u64,
    pub mean_us: f64,
    pub max_us: f64,
    pub p99_us: f64,
    pub p99_99_us: f64,
    pub p99_999_us: f64,
}

impl LatStats {
    pub fn of(h: &Histogram) -> Self {
        if h.count() == 0 {
            return LatStats::default();
        }
        let us = |ns: u64| ns as f64 / 1e3;
        LatStats {
            ios: h.count(),
            mean_us: h.mean() / 1e3,
            max_us: us(h.max()),
            p99_us: us(h.percentile(99.0)),
            p99_99_us: us(h.percentile(99.99)),
            p99_999_us: us(h.percentile(99.999)),
        }
    }
}

/// What one measured job delivered: rates are full-scale figures, WA from the drive when known.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Perf {
    pub read_iops: f64,
    pub write_iops: f64,
    pub iops: f64,
    pub read_mbps: f64,
    pub write_mbps: f64,
    pub mbps: f64,
    pub read_lat: LatStats,
    pub write_lat: LatStats,
    /// Reads and writes together.
    pub lat: LatStats,
    /// NAND writes / host writes over the job (simulator only).
    pub write_amplification: Option<f64>,
    /// Measured span in full-scale seconds.
    pub runtime_s: f64,
}

impl Perf {
    /// Summary of `job`; `time_scale` converts device time to full-scale time.
    pub fn of(job: &JobResult, bench: &dyn Bench) -> Self {
        let secs = job.runtime_ns().max(1) as f64 / 1e9;
        let [r, w, _] = &job.dirs;
        let mut all = r.clat.clone();
        all.merge(&w.clat);
        let wa = bench.write_amplification(job.start_ns, job.end_ns);
        Perf {
            read_iops: r.ios as f64 / secs,
            write_iops: w.ios as f64 / secs,
            iops: (r.ios + w.ios) as f64 / secs,
            read_mbps: r.io_bytes as f64 / secs / 1e6,
            write_mbps: w.io_bytes as f64 / secs / 1e6,
            mbps: (r.io_bytes + w.io_bytes) as f64 / secs / 1e6,
            read_lat: LatStats::of(&r.clat),
            write_lat: LatStats::of(&w.clat),
            lat: LatStats::of(&all),
            write_amplification: wa,
            runtime_s: secs / bench.time_scale(),
        }
    }
}

/// Rounds to 6 significant digits so JSON and CSV stay readable (and stable across platforms).
pub fn r6(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return if x.is_finite() { 0.0 } else { f64::NAN };
    }
    let mag = 10f64.powi(5 - nand_model::cast::sat_i32(x.abs().log10().floor()));
    (x * mag).round() / mag
}
