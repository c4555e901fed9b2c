//! fio 3.33's queue-depth search (`latency_target`, io_u.c `lat_target_*`): the job starts at
//! QD 1 and doubles the depth after each window whose completions met the target at the
//! percentile, bisects between the last good and the first bad depth after a failing one, and,
//! once a window leaves the depth unchanged, drains, restarts its statistics and runs one more
//! window at that depth (the reported figures), then ends (unless `latency_run`). With
//! percentile 100 a single late completion fails the depth at once (the queue drains first, as
//! fio's `io_u_quiesce`), and one at QD 1 ends the job with fio's error ETIMEDOUT.

use crate::job::LatencyTarget;

/// What a job reports about its search (fio's `latency_depth`, `latency_target`, ... keys).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq)]
pub struct LatencyOutcome {
    /// The queue depth the job ended at (its `iodepth` without a target, as fio).
    pub depth: u32,
    pub target_ns: u64,
    /// As written in the job (fio reports it in microseconds), not time-scaled.
    pub window_us: u64,
    pub percentile: f64,
    /// A completion over the target at QD 1 with percentile 100 ended the job: its latency
    /// (fio: "latency of N nsec exceeds specified max", error ETIMEDOUT).
    pub exceeded_ns: Option<u64>,
}

impl LatencyOutcome {
    pub fn new(spec: &LatencyTarget, iodepth: u32) -> Self {
        LatencyOutcome {
            depth: iodepth,
            target_ns: spec.target_ns,
            window_us: spec.window_ns / 1000,
            percentile: spec.percentile,
            exceeded_ns: None,
        }
    }
}

/// Why the instance drains its queue before the next window.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Quiesce {
    /// A failed depth: the next window starts when the queue is empty.
    NewCycle,
    /// The depth is found: statistics restart when the queue is empty (fio `reset_all_stats`).
    FinalRun,
}

/// The search state of one job instance (fio's `latency_qd*`, `latency_ts`, ...).
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct LatSearch {
    target_ns: u64,
    window_ns: u64,
    percentile: f64,
    run: bool,
    max_qd: u32,
    pub(super) qd: u32,
    qd_high: u32,
    qd_low: u32,
    stable: u32,
    end_run: bool,
    cycle_start_ns: u64,
    cycle_ios: u64,
    ios: u64,
    failed: u64,
    /// The ramp's end restarted the search (fio resets all statistics then).
    ramp_reset: bool,
    pub(super) quiesce: Option<Quiesce>,
    /// The search is over: the job ends once its queue is empty.
    pub(super) done: bool,
    /// A completion over the target at QD 1 (percentile 100): the job ends with an error.
    pub(super) fatal_ns: Option<u64>,
}

impl LatSearch {
    /// `window_ns` is already time-scaled.
    pub(super) fn new(spec: &LatencyTarget, window_ns: u64, iodepth: u32, now_ns: u64) -> Option<Box<Self>> {
        if spec.target_ns == 0 {
            return None;
        }
        let mut s = LatSearch {
            target_ns: spec.target_ns,
            window_ns,
            percentile: spec.percentile,
            run: spec.run,
            max_qd: iodepth.max(1),
            qd: 1,
            qd_high: 1,
            qd_low: 1,
            stable: 0,
            end_run: false,
            cycle_start_ns: now_ns,
            cycle_ios: 0,
            ios: 0,
            failed: 0,
            ramp_reset: false,
            quiesce: None,
            done: false,
            fatal_ns: None,
        };
        s.init(now_ns);
        Some(Box::new(s))
    }

    /// fio `lat_target_init`.
    fn init(&mut self, now_ns: u64) {
        self.end_run = false;
        self.qd = 1;
        self.qd_high = self.max_qd;
        self.qd_low = 1;
        self.new_cycle(now_ns);
    }

    /// fio `lat_new_cycle`.
    fn new_cycle(&mut self, now_ns: u64) {
        self.cycle_start_ns = now_ns;
        self.cycle_ios = self.ios;
        self.failed = 0;
    }

    /// The queue depth the instance may fill to now (0 while it drains).
    #[inline]
    pub(super) fn depth(&self) -> u32 {
        if self.quiesce.is_some() || self.done || self.fatal_ns.is_some() {
            0
        } else {
            self.qd
        }
    }

    /// One completion of `lat_ns` (fio `account_io_completion`'s latency check).
    pub(super) fn completed(&mut self, lat_ns: u64) {
        self.ios += 1;
        if lat_ns <= self.target_ns {
            return;
        }
        if self.percentile == 100.0 {
            if self.ramp_down() && self.fatal_ns.is_none() {
                self.fatal_ns = Some(lat_ns);
            }
        } else {
            self.failed += 1;
        }
    }

    /// fio `lat_target_check`, after a completion at `now_ns` outside the ramp; a ramp that
    /// just ended restarts the search first (fio's `reset_all_stats` at the ramp's end).
    pub(super) fn check(&mut self, now_ns: u64, after_ramp: bool) {
        if after_ramp && !self.ramp_reset {
            self.ramp_reset = true;
            if !self.end_run {
                self.init(now_ns);
            }
        }
        if self.quiesce.is_some() || self.done || now_ns.saturating_sub(self.cycle_start_ns) < self.window_ns {
            return;
        }
        let ios = self.ios - self.cycle_ios;
        // 0 / 0 is NaN in fio, which fails the comparison.
        let success = (ios as f64 - self.failed as f64) / ios as f64 * 100.0;
        if success >= self.percentile {
            self.success(now_ns);
        } else {
            self.ramp_down();
        }
    }

    /// The queue is empty after a quiesce: the next window starts; true when the job's
    /// statistics restart here (the final run at the found depth).
    pub(super) fn drained(&mut self, now_ns: u64) -> bool {
        let reset = self.quiesce.take() == Some(Quiesce::FinalRun);
        self.new_cycle(now_ns);
        reset
    }

    /// fio `__lat_target_failed`: true at QD 1 (nothing left to lower).
    fn ramp_down(&mut self) -> bool {
        if self.qd == 1 {
            return true;
        }
        self.qd_high = self.qd;
        if self.qd == self.qd_low {
            self.qd_low -= 1;
        }
        self.qd = (self.qd + self.qd_low) / 2;
        self.stable = 0;
        self.quiesce = Some(Quiesce::NewCycle);
        false
    }

    /// fio `lat_target_success`.
    fn success(&mut self, now_ns: u64) {
        let qd = self.qd;
        self.qd_low = self.qd;
        if self.qd + 1 == self.qd_high {
            self.stable += 1;
            if self.stable >= 3 {
                self.qd_high += 1;
                self.stable = 0;
            }
        }
        if self.qd_high != self.max_qd {
            self.qd = (self.qd + self.qd_high) / 2;
        } else {
            self.qd *= 2;
        }
        self.qd = self.qd.min(self.max_qd);
        if !self.run && self.qd == qd {
            if self.end_run {
                self.done = true;
            } else {
                self.end_run = true;
                self.quiesce = Some(Quiesce::FinalRun);
                return;
            }
        }
        self.new_cycle(now_ns);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search(pct: f64) -> Box<LatSearch> {
        let spec = LatencyTarget { target_ns: 1000, window_ns: 100, percentile: pct, run: false };
        LatSearch::new(&spec, 100, 16, 0).unwrap()
    }

    #[test]
    fn a_met_target_doubles_to_the_maximum_then_runs_one_final_window() {
        let mut s = search(100.0);
        let mut t = 0;
        for want in [2, 4, 8, 16, 16] {
            s.completed(10);
            t += 100;
            s.check(t, false);
            assert_eq!(s.qd, want);
        }
        assert_eq!(s.quiesce, Some(Quiesce::FinalRun));
        assert!(s.drained(t));
        s.completed(10);
        s.check(t + 100, false);
        assert!(s.done);
    }

    #[test]
    fn a_failed_depth_bisects_towards_the_last_good_one() {
        let mut s = search(90.0);
        s.completed(10);
        s.check(100, false); // QD 2
        s.completed(10);
        s.check(200, false); // QD 4
        s.completed(5000);
        s.check(300, false); // fails: (4 + 2) / 2
        assert_eq!((s.qd, s.qd_low, s.qd_high), (3, 2, 4));
        assert_eq!(s.quiesce, Some(Quiesce::NewCycle));
        assert!(!s.drained(300));
    }

    #[test]
    fn percentile_100_fails_at_once_and_qd1_is_fatal() {
        let mut s = search(100.0);
        s.completed(5000);
        assert_eq!(s.fatal_ns, Some(5000));
        let mut s = search(50.0);
        s.completed(5000);
        s.check(100, false);
        assert_eq!((s.qd, s.fatal_ns), (1, None));
    }
}
