//! fio 3.33's minimum rate (`rate_min`, `rate_iops_min`, `rate_cycle`; backend.c
//! `__check_min_rate`): once the job has run 2 s past its ramp, every completion checks each
//! direction that has completed I/O. The first check records a baseline; a later one at least
//! `rate_cycle` after the last computes the direction's bytes (or I/Os) per second since then
//! and ends the job with EIO when it is below the minimum, otherwise it becomes the new baseline.
//! Times are fio's whole milliseconds of job time; on a scaled drive job time is device time
//! divided by the time scale (as runtime), and the rate is per device second, which is the
//! full-size drive's rate.

use crate::device::IoDir;
use crate::job::JobSpec;

/// fio's settle period before the first check, ms of job time.
const SETTLE_MS: u64 = 2000;

/// Which minimum a job missed (fio: "rate_min=NB/s not met, got MB/s").
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct MinRateMiss {
    pub dir: IoDir,
    /// True for `rate_min` (bytes per second), false for `rate_iops_min`.
    pub bytes: bool,
    pub min: u64,
    pub got: u64,
}

impl std::fmt::Display for MinRateMiss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.bytes {
            write!(f, "rate_min={}B/s not met, got {}B/s", self.min, self.got)
        } else {
            write!(f, "rate_iops_min={} not met, got {} IOPS", self.min, self.got)
        }
    }
}

/// The check's state for one job instance.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub(super) struct MinRate {
    /// Minimum per direction (0: unchecked), bytes or I/Os per second.
    min: [u64; 3],
    bytes: bool,
    cycle_ms: u64,
    /// Device ns per ms of job time (1e6 on an unscaled drive).
    ns_per_job_ms: f64,
    /// Checks start from here (the end of the ramp; fio resets `td->start` then).
    start_ns: u64,
    /// Completed since the instance started, ramp included (fio `this_io_bytes`, `this_io_blocks`).
    done_bytes: [u64; 3],
    done_ios: [u64; 3],
    /// The baseline of each direction: its counts and time at the last check that set one.
    last_count: [u64; 3],
    last_ns: [u64; 3],
    has_baseline: [bool; 3],
}

impl MinRate {
    /// The job's check, or `None` without a minimum. `time_scale` is the runner's (device
    /// time per job time).
    pub(super) fn new(spec: &JobSpec, time_scale: f64, start_ns: u64) -> Option<Box<Self>> {
        if !spec.checks_min_rate() {
            return None;
        }
        let bytes = spec.rate_min_bytes.iter().any(|&r| r > 0);
        Some(Box::new(MinRate {
            min: if bytes { spec.rate_min_bytes } else { spec.rate_iops_min },
            bytes,
            cycle_ms: spec.rate_cycle_ms,
            ns_per_job_ms: 1e6 * time_scale,
            start_ns,
            done_bytes: [0; 3],
            done_ios: [0; 3],
            last_count: [0; 3],
            last_ns: [0; 3],
            has_baseline: [false; 3],
        }))
    }

    /// Counts a completion (measured or in the ramp).
    #[inline]
    pub(super) fn completed(&mut self, dir: IoDir, len_bytes: u32) {
        let d = dir.index();
        self.done_bytes[d] += u64::from(len_bytes);
        self.done_ios[d] += 1;
    }

    /// Whole ms of job time in `ns` of device time (fio `mtime_since`).
    fn job_ms(&self, ns: u64) -> u64 {
        if self.ns_per_job_ms == 1e6 {
            ns / 1_000_000
        } else {
            nand_model::cast::sat_u64(ns as f64 / self.ns_per_job_ms)
        }
    }

    /// fio's check at a completion past the ramp, at `now_ns`: the first direction below its
    /// minimum, if any.
    pub(super) fn check(&mut self, now_ns: u64) -> Option<MinRateMiss> {
        if self.job_ms(now_ns.saturating_sub(self.start_ns)) < SETTLE_MS {
            return None;
        }
        let mut miss = None;
        for d in 0..3 {
            if self.min[d] == 0 || self.done_bytes[d] == 0 {
                continue;
            }
            let count = if self.bytes { self.done_bytes[d] } else { self.done_ios[d] };
            if self.has_baseline[d] {
                let spent_ns = now_ns.saturating_sub(self.last_ns[d]);
                let spent_ms = self.job_ms(spent_ns);
                if spent_ms < self.cycle_ms || spent_ms == 0 {
                    continue;
                }
                let delta = count.saturating_sub(self.last_count[d]);
                // fio's integer arithmetic per job second; per device second on a scaled drive.
                let got = if self.ns_per_job_ms == 1e6 {
                    delta.saturating_mul(1000) / spent_ms
                } else {
                    nand_model::cast::sat_u64(delta as f64 * 1e9 / spent_ns.max(1) as f64)
                };
                if got < self.min[d] {
                    let dir = [IoDir::Read, IoDir::Write, IoDir::Trim][d];
                    miss = miss.or(Some(MinRateMiss { dir, bytes: self.bytes, min: self.min[d], got }));
                    continue;
                }
            }
            self.last_count[d] = count;
            self.last_ns[d] = now_ns;
            self.has_baseline[d] = true;
        }
        miss
    }
}
