//! The charts' values: the run cut into intervals of a shared time axis, each interval's host
//! IOPS, p99 latency, WA, free blocks, GC stall, power and throttled share computed from the
//! frames at its two ends. Computed here rather than in the page so that the p99 is the exact
//! percentile of the interval's merged latency buckets (not a bound from per-frame values) and
//! so that a test can check every value against a re-run of the simulator.

use super::model::{Frames, Recording, Series};
use super::record::{lat_upper, LAT_BUCKETS};

/// Intervals per chart.
pub const BINS: u64 = 200;

/// Last frame with `t_ns <= t` (frame 0 if none).
fn frame_at(f: &Frames, t: u64) -> usize {
    f.t_ns.partition_point(|&x| x <= t).saturating_sub(1)
}

/// Percentile `pct` (0..=100) of bucket counts, as the bucket's upper edge in us (0 without
/// samples).
pub fn percentile_us(counts: &[u64], pct: u64) -> f64 {
    let n: u64 = counts.iter().sum();
    let want = (n * pct).div_ceil(100).max(1);
    let mut acc = 0u64;
    for (b, &c) in counts.iter().enumerate() {
        acc += c;
        if acc >= want {
            return lat_upper(b) as f64 / 1000.0;
        }
    }
    0.0
}

/// The chart series of `r` over `[t_start, t_end]` in [`BINS`] intervals: interval k ends at
/// the last frame at or before `t_start + (t_end - t_start) * k / BINS` (intervals that would
/// hold no frame are skipped). `t_start` is 0 except on a drive loaded from a snapshot.
#[allow(clippy::cast_possible_truncation)] // frame indices are u32 like the recorder's
pub fn chart_series(r: &Recording, t_start: u64, t_end: u64) -> Series {
    let f = &r.frames;
    let mut s = Series::default();
    let mut counts = vec![0u64; LAT_BUCKETS];
    let mut lat = r.lat.iter().peekable();
    let mut prev = 0usize;
    for k in 1..=BINS {
        let te = t_start + nand_model::cast::low_u64((t_end - t_start) as u128 * k as u128 / BINS as u128);
        let b = frame_at(f, te);
        if b <= prev {
            continue;
        }
        let a = prev;
        counts.iter_mut().for_each(|c| *c = 0);
        while let Some(&&(i, bucket, c)) = lat.peek() {
            if i as usize > b {
                break;
            }
            if i as usize > a {
                counts[bucket as usize] += c as u64;
            }
            lat.next();
        }
        let dt_s = (f.t_ns[b] - f.t_ns[a]) as f64 / 1e9;
        let per_s = |x: f64| if dt_s > 0.0 { x / dt_s } else { 0.0 };
        let ios: u64 = f.completions[a + 1..=b].iter().map(|&c| c as u64).sum();
        let dh = f.host_write_bytes[b] - f.host_write_bytes[a];
        let dn = f.nand_write_bytes[b] - f.nand_write_bytes[a];
        s.from_frame.push(a as u32);
        s.to_frame.push(b as u32);
        s.iops.push(per_s(ios as f64));
        s.p99_us.push(percentile_us(&counts, 99));
        s.wa.push((dh > 0).then(|| dn as f64 / dh as f64));
        s.wa_cum.push(wa(f.nand_write_bytes[b], f.host_write_bytes[b]));
        s.free_blocks.push(f.free_blocks[b]);
        s.gc_stall_pct.push(per_s((f.gc_stall_ns[b] - f.gc_stall_ns[a]) as f64 / 1e7));
        s.power_w.push(per_s(f.energy_j[b] - f.energy_j[a]));
        s.throttled_pct.push(per_s((f.throttled_ns[b] - f.throttled_ns[a]) as f64 / 1e7));
        prev = b;
    }
    s
}

/// Cumulative WA as the page shows it (0 before the host wrote anything).
pub fn wa(nand_bytes: u64, host_bytes: u64) -> f64 {
    if host_bytes == 0 {
        0.0
    } else {
        nand_bytes as f64 / host_bytes as f64
    }
}
