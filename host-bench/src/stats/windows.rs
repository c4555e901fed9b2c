//! Per-second figures of a scaled run, over the span that holds a full-scale second's work.
//!
//! At scale 1/N a full-scale second of drive writes is 1/N of a simulated second, which holds
//! 1/N of the I/Os and NAND operations of the real drive's second: its spread is mostly the
//! small count (the P5520's ezFIO stability test at 1/273: ~1,700 I/Os per full-scale second,
//! IOPS CoV 14.3% over them against 0.48% per simulated second). A simulated second holds what
//! a real second does (the dies, planes and timing are the real drive's), so per-second spread
//! in a steady state — where the drive does not drift over the N full-scale seconds such a
//! window spans — is measured over simulated seconds ("device seconds"). What a reduced drive
//! still lacks is the full-size drive's block length, so GC's per-block steps are finer; see
//! docs/scale.md for how far that leaves the figure from the full-size drive's.

use super::IntervalPoint;

/// One second of device (simulated) time.
pub const DEVICE_SECOND_NS: u64 = 1_000_000_000;

/// Samples a per-second spread is computed from at least: a stability phase at reduced scale
/// runs long enough to give this many device seconds (the CoV of 30 samples is itself known to
/// about +-13%).
pub const MIN_DEVICE_SECONDS: u32 = 30;

/// Total IOPS (all directions) of consecutive `window_ns` spans of `points`, each span made of
/// whole points; a last span shorter than half a window is dropped (a run's tail is a sliver
/// whose rate would dominate the spread). Points longer than the window are one sample each.
pub fn iops_per_window(points: &[IntervalPoint], window_ns: u64) -> Vec<f64> {
    windows(points, window_ns).into_iter().map(|w| w.iops).collect()
}

/// One span of [`windows`]: which points it holds and their total IOPS.
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    pub points: std::ops::Range<usize>,
    pub iops: f64,
}

/// The spans [`iops_per_window`] takes its samples from, with the points each holds.
pub fn windows(points: &[IntervalPoint], window_ns: u64) -> Vec<Window> {
    let window_ns = window_ns.max(1);
    let mut out = Vec::new();
    let (mut first, mut ios, mut ns) = (0usize, 0u64, 0u64);
    for (i, p) in points.iter().enumerate() {
        ios += p.ios.iter().sum::<u64>();
        ns += p.duration_ns;
        if ns >= window_ns {
            out.push(Window { points: first..i + 1, iops: ios as f64 / (ns as f64 / 1e9) });
            (first, ios, ns) = (i + 1, 0, 0);
        }
    }
    if ns > 0 && ns * 2 >= window_ns {
        out.push(Window { points: first..points.len(), iops: ios as f64 / (ns as f64 / 1e9) });
    }
    out
}

/// Device seconds of a stability phase at most, where the test is longer. A drive's throughput
/// rises and falls over tens of seconds as its dies program the layers of their blocks in step
/// (`timing.t_prog_layer_spread_pct`; host and GC streams sweep them at different paces), so
/// the per-second spread needs minutes of the drive's own time: on the P5520 at 6.4 TB (ezFIO's
/// 70/30 stability test, 20% spread) 30 device seconds gave a CoV of 1.734%, 300 gave 2.181%,
/// 600 2.297% and the test's full 1,200 2.281%.
pub const MAX_STABILITY_DEVICE_SECONDS: f64 = 300.0;

/// Full-scale seconds a stability phase of `full_scale_s` runs: the test's length in device
/// seconds, between [`MIN_DEVICE_SECONDS`] and [`MAX_STABILITY_DEVICE_SECONDS`], and never less
/// than `full_scale_s` of full-scale time (`time_scale`: device time per full-scale time).
pub fn stability_full_scale_s(full_scale_s: f64, time_scale: f64) -> f64 {
    let device_s = full_scale_s.min(MAX_STABILITY_DEVICE_SECONDS).max(f64::from(MIN_DEVICE_SECONDS));
    full_scale_s.max(device_s / time_scale.max(f64::MIN_POSITIVE))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(start_ns: u64, duration_ns: u64, ios: u64) -> IntervalPoint {
        IntervalPoint {
            start_ns,
            duration_ns,
            ios: [ios, 0, 0],
            bytes: [0; 3],
            lat_mean_ns: [0.0; 3],
            lat_p99_ns: [0; 3],
        }
    }

    #[test]
    fn groups_whole_points_into_windows_and_drops_a_short_tail() {
        // 10 ms points: 100 per second; 250 of them = 2.5 s -> 2 whole seconds + a half.
        let pts: Vec<_> = (0..250).map(|i| pt(i * 10_000_000, 10_000_000, if i < 100 { 1 } else { 2 })).collect();
        assert_eq!(iops_per_window(&pts, DEVICE_SECOND_NS), vec![100.0, 200.0, 200.0]);
        let pts: Vec<_> = (0..240).map(|i| pt(i * 10_000_000, 10_000_000, 1)).collect();
        assert_eq!(iops_per_window(&pts, DEVICE_SECOND_NS), vec![100.0, 100.0]);
        let w = windows(&pts, DEVICE_SECOND_NS);
        assert_eq!((w[0].points.clone(), w[1].points.clone()), (0..100, 100..200));
    }

    #[test]
    fn points_as_long_as_the_window_are_samples_as_they_are() {
        let pts: Vec<_> = (0..5).map(|i| pt(i * DEVICE_SECOND_NS, DEVICE_SECOND_NS, 7 + i)).collect();
        assert_eq!(iops_per_window(&pts, DEVICE_SECOND_NS), vec![7.0, 8.0, 9.0, 10.0, 11.0]);
    }

    #[test]
    fn stability_runs_the_tests_length_in_device_seconds_up_to_300() {
        assert_eq!(stability_full_scale_s(1200.0, 1.0), 1200.0);
        assert_eq!(stability_full_scale_s(1200.0, 1.0 / 273.0), 300.0 * 273.0);
        assert_eq!(stability_full_scale_s(60.0, 1.0 / 273.0), 60.0 * 273.0);
        assert_eq!(stability_full_scale_s(10.0, 1.0 / 273.0), 30.0 * 273.0);
        assert_eq!(stability_full_scale_s(20_000.0, 1.0 / 16.0), 20_000.0);
    }
}
