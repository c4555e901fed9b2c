#![allow(clippy::cast_possible_truncation)] // casts are of the test's own small values
use host_bench::stats::{Histogram, SampleSummary, SeriesRecorder};
use nand_model::rng::{RngStreams, StreamId};
use rand::Rng;

/// Stated bound: a percentile is within 1/128 of the exact order statistic.
const REL_ERR: f64 = 1.0 / 128.0;

fn exact_percentile(sorted: &[u64], p: f64) -> u64 {
    let rank = ((p / 100.0 * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

#[test]
fn percentiles_within_stated_error_of_exact() {
    let mut rng = RngStreams::new(1).stream(StreamId::Host, 0);
    for scale in [100.0f64, 50_000.0, 3e9] {
        let mut h = Histogram::new();
        let mut v: Vec<u64> = (0..100_000)
            .map(|_| {
                // Log-normal-ish spread over ~3 decades.
                let x: f64 = rng.gen_range(0.0..7.0);
                (scale * x.exp() / 100.0) as u64
            })
            .collect();
        v.iter().for_each(|&x| h.record(x));
        v.sort_unstable();
        for p in [0.1, 1.0, 5.0, 10.0, 50.0, 90.0, 99.0, 99.5, 99.9, 99.99, 100.0] {
            let exact = exact_percentile(&v, p) as f64;
            let got = h.percentile(p) as f64;
            assert!((got - exact).abs() <= exact * REL_ERR + 0.5, "scale {scale} p{p}: got {got} exact {exact}");
        }
        assert_eq!((h.min(), h.max(), h.count()), (v[0], v[v.len() - 1], 100_000));
        let mean = v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64;
        let var = v.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / (v.len() - 1) as f64;
        assert!((h.mean() - mean).abs() <= mean * 1e-12);
        assert!((h.stddev() - var.sqrt()).abs() <= var.sqrt() * 1e-6);
    }
}

#[test]
fn small_values_are_exact_and_empty_is_zero() {
    let mut h = Histogram::new();
    assert_eq!((h.percentile(50.0), h.min(), h.max(), h.mean(), h.stddev()), (0, 0, 0, 0.0, 0.0));
    for x in 0..64 {
        h.record(x);
    }
    assert_eq!(h.percentile(50.0), 31);
    assert_eq!(h.percentile(100.0), 63);
    assert_eq!(h.bins().count(), 64);
    h.record(u64::MAX);
    assert_eq!(h.max(), u64::MAX);
}

#[test]
fn merge_equals_recording_everything() {
    let mut rng = RngStreams::new(2).stream(StreamId::Host, 0);
    let (mut a, mut b, mut all) = (Histogram::new(), Histogram::new(), Histogram::new());
    for i in 0..10_000 {
        let x = rng.gen_range(1_000..5_000_000u64);
        if i % 3 == 0 {
            a.record(x)
        } else {
            b.record(x)
        }
        all.record(x);
    }
    a.merge(&b);
    assert_eq!(a, all);
    let total: u64 = all.bins().map(|(_, c)| c).sum();
    assert_eq!(total, 10_000);
    assert!((all.percent_at_or_below(u64::MAX) - 100.0).abs() < 1e-9);
}

#[test]
fn series_intervals_rates_and_p99() {
    let mut s = SeriesRecorder::new(1_000, 1_000_000_000);
    // Interval 0: 100 reads of 4 KiB, latency 10..=1000 us; interval 1 empty; interval 2: 50 writes.
    for i in 1..=100u64 {
        s.record(0, 1_000 + i * 1_000_000, 4096, i * 10_000);
    }
    for i in 0..50u64 {
        s.record(1, 1_000 + 2_000_000_001 + i, 8192, 2_000);
    }
    s.finish(1_000 + 2_500_000_000);
    let p = s.points();
    assert_eq!(p.len(), 3);
    assert_eq!((p[0].ios, p[0].start_ns, p[0].duration_ns), ([100, 0, 0], 0, 1_000_000_000));
    assert_eq!(p[0].iops(0), 100.0);
    assert_eq!(p[0].bw_bytes_per_s(0), 409_600.0);
    assert!((p[0].lat_mean_ns[0] - 505_000.0).abs() < 1e-6);
    let p99 = p[0].lat_p99_ns[0] as f64;
    assert!((p99 - 990_000.0).abs() <= 990_000.0 / 128.0, "{p99}");
    assert_eq!(p[1].ios, [0; 3]);
    assert_eq!((p[2].ios[1], p[2].duration_ns), (50, 500_000_000));
    assert_eq!(p[2].iops(1), 100.0);
    assert_eq!(p[2].lat_p99_ns[1], 2_000);
}

#[test]
fn sample_summary() {
    let s = SampleSummary::from_samples([10.0, 12.0, 8.0, 10.0]);
    assert_eq!((s.mean, s.min, s.max, s.samples), (10.0, 8.0, 12.0, 4));
    assert!((s.stddev - (8.0f64 / 3.0).sqrt()).abs() < 1e-12);
    assert!((s.cov_percent - s.stddev * 10.0).abs() < 1e-12);
    assert_eq!(SampleSummary::from_samples([]), SampleSummary::default());
}
