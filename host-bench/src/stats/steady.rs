//! fio-style steady-state detection over a rolling window of per-interval samples.

use crate::job::{SsMetric, SteadyState};

/// Tracks IOPS or bandwidth samples of one job instance and tells when the criterion holds.
///
/// Samples are taken every `interval_ns` (fio's `ss_interval`, 1 s) once `collect_from_ns` is
/// reached; the window holds `dur / interval` samples. `iops`/`bw`: every sample within the
/// limit of the window mean. `*_slope`: least-squares slope (per second) within the limit;
/// percent limits are relative to the window mean.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct SteadyStateTracker {
    crit: SteadyState,
    interval_ns: u64,
    next_boundary_ns: u64,
    collect_from_ns: u64,
    cur: u64,
    window: Box<[f64]>,
    filled: usize,
    head: usize,
}

impl SteadyStateTracker {
    /// `crit.dur_ns` and `crit.ramp_ns` already scaled; `start_ns` is when the job starts.
    /// `None` when detection is disabled (window of zero length).
    pub fn new(crit: SteadyState, start_ns: u64, interval_ns: u64) -> Option<Self> {
        let interval_ns = interval_ns.max(1);
        if crit.dur_ns == 0 {
            return None;
        }
        let len = (crit.dur_ns.div_ceil(interval_ns)).clamp(2, 1 << 20) as usize;
        let collect_from_ns = start_ns.saturating_add(crit.ramp_ns);
        Some(SteadyStateTracker {
            crit,
            interval_ns,
            next_boundary_ns: collect_from_ns.saturating_add(interval_ns),
            collect_from_ns,
            cur: 0,
            window: vec![0.0; len].into_boxed_slice(),
            filled: 0,
            head: 0,
        })
    }

    /// Records a completion of `len_bytes` at `now_ns`; true once steady state is reached.
    #[inline]
    pub fn record(&mut self, now_ns: u64, len_bytes: u32) -> bool {
        let mut reached = false;
        while now_ns >= self.next_boundary_ns {
            reached |= self.close_sample();
        }
        if now_ns >= self.collect_from_ns {
            self.cur += match self.crit.metric {
                SsMetric::Iops | SsMetric::IopsSlope => 1,
                SsMetric::Bw | SsMetric::BwSlope => u64::from(len_bytes),
            };
        }
        reached
    }

    fn close_sample(&mut self) -> bool {
        let per_s = self.cur as f64 * 1e9 / self.interval_ns as f64;
        self.cur = 0;
        self.next_boundary_ns = self.next_boundary_ns.saturating_add(self.interval_ns);
        self.window[self.head] = per_s;
        self.head = (self.head + 1) % self.window.len();
        self.filled = (self.filled + 1).min(self.window.len());
        self.filled == self.window.len() && self.holds()
    }

    /// Samples oldest first.
    fn samples(&self) -> impl Iterator<Item = f64> + '_ {
        let n = self.window.len();
        (0..n).map(move |i| self.window[(self.head + i) % n])
    }

    fn holds(&self) -> bool {
        let n = self.window.len() as f64;
        let mean = self.samples().sum::<f64>() / n;
        let limit = if self.crit.limit_is_percent { self.crit.limit / 100.0 * mean } else { self.crit.limit };
        match self.crit.metric {
            SsMetric::Iops | SsMetric::Bw => self.samples().all(|x| (x - mean).abs() <= limit),
            SsMetric::IopsSlope | SsMetric::BwSlope => {
                let x_mean = (n - 1.0) / 2.0;
                let (mut num, mut den) = (0.0, 0.0);
                for (i, y) in self.samples().enumerate() {
                    num += (i as f64 - x_mean) * (y - mean);
                    den += (i as f64 - x_mean).powi(2);
                }
                let slope_per_s = num / den / (self.interval_ns as f64 / 1e9);
                slope_per_s.abs() <= limit
            }
        }
    }
}
