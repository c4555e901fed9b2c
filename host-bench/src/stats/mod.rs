//! Latency histograms, per-interval time series and sample summaries.
//!
//! Everything here records in constant time without allocating per I/O; allocation happens
//! when a recorder is built and once per finished interval.

mod histogram;
mod series;
mod steady;
mod windows;

pub use histogram::{Histogram, SUB_BUCKET_BITS};
pub use series::{IntervalPoint, SeriesRecorder, MAX_SERIES_POINTS};
pub use steady::SteadyStateTracker;
pub use windows::{
    iops_per_window, stability_full_scale_s, windows, Window, DEVICE_SECOND_NS, MAX_STABILITY_DEVICE_SECONDS,
    MIN_DEVICE_SECONDS,
};

/// Mean, spread and range of a set of samples (e.g. IOPS per second).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SampleSummary {
    pub mean: f64,
    /// Sample standard deviation (n - 1), 0 for fewer than two samples.
    pub stddev: f64,
    pub min: f64,
    pub max: f64,
    pub samples: u64,
    /// Coefficient of variation, stddev / mean in percent (0 when the mean is 0).
    pub cov_percent: f64,
}

impl SampleSummary {
    /// Summary of `samples`; all zeros for an empty set.
    pub fn from_samples(samples: impl IntoIterator<Item = f64>) -> Self {
        let (mut n, mut sum, mut sum_sq) = (0u64, 0.0f64, 0.0f64);
        let (mut min, mut max) = (f64::INFINITY, f64::NEG_INFINITY);
        for x in samples {
            n += 1;
            sum += x;
            sum_sq += x * x;
            min = min.min(x);
            max = max.max(x);
        }
        if n == 0 {
            return SampleSummary::default();
        }
        let mean = sum / n as f64;
        let var = if n > 1 { ((sum_sq - sum * mean) / (n - 1) as f64).max(0.0) } else { 0.0 };
        let stddev = var.sqrt();
        let cov_percent = if mean != 0.0 { stddev / mean * 100.0 } else { 0.0 };
        SampleSummary { mean, stddev, min, max, samples: n, cov_percent }
    }
}
