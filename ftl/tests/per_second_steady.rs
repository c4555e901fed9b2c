//! Per-second IOPS of a reduced drive in steady state look like the full-size drive's: steady,
//! with no second without a completed write (issue 22).
//!
//! The drive is generic-tlc cut to 8 dies and 480 GB, small enough to simulate unscaled, where
//! its FOB's per-second write IOPS have a CoV of 0.9% after 1 drive write. At 1/8 (blocks of 170
//! word lines) the same measure was 75.7% with 609 zero-IOPS seconds while host writes waited
//! for whole erased blocks and GC's relocated programs queued ahead of the host's on every die;
//! with programs handed to dies in turn and relocated data held in the write buffer it is 0.6%.
//! A full-scale second is `1/scale` of simulated time here, as in `ssdlab fob`'s rows.
#![allow(clippy::unwrap_used, clippy::cast_possible_truncation)] // a panic in test code is a failed test; casts are of the test's own small values

use ftl::device::{DeviceOptions, HostOp, SimSsd};
use ftl::profile;
use nand_model::rng::{RngStreams, StreamId};
use rand::Rng;

fn cut8() -> profile::ValidatedProfile {
    let text = profile::EMBEDDED.iter().find(|(n, _)| *n == "generic-tlc").map(|e| e.1).unwrap_or_default();
    let text = text.replacen("dies_per_channel = 16", "dies_per_channel = 1", 1).replacen(
        "user_capacity_bytes = 7_680_000_000_000",
        "user_capacity_bytes = 480_000_000_000",
        1,
    );
    // Without the layers' tPROG ramp (`t_prog_layer_spread_pct`), whose slow swing is physics
    // of the full-size drive too (tests/layer_spread.rs): this test is about what reduction does.
    let text = text.replacen("t_prog_layer_spread_pct = 21.0", "t_prog_layer_spread_pct = 0.0", 1);
    let p = profile::parse(&text, "cut8-tlc").unwrap();
    assert_eq!(p.timing.t_prog_spread_ns.ns(), 0, "the ramp is off");
    p
}

/// Writes completed in each window of `window_ns` during the last `measure` of `total` closed-
/// loop 4 KiB writes from `next` at queue depth `qd`.
fn windows(
    d: &mut SimSsd,
    qd: u64,
    total: u64,
    measure: u64,
    window_ns: u64,
    mut next: impl FnMut() -> u64,
) -> Vec<u64> {
    let mut issued = 0;
    while issued < qd.min(total) {
        d.submit(issued, HostOp::Write, next(), 4096).unwrap();
        issued += 1;
    }
    let (mut done, mut start, mut counts) = (0, None, Vec::new());
    while d.next_completion(None).is_some() {
        done += 1;
        if done > total - measure {
            let t0 = *start.get_or_insert(d.now());
            let w = ((d.now() - t0).ns() / window_ns) as usize;
            if counts.len() <= w {
                counts.resize(w + 1, 0);
            }
            counts[w] += 1;
        }
        if issued < total {
            d.submit(issued, HostOp::Write, next(), 4096).unwrap();
            issued += 1;
        }
    }
    counts.pop(); // the last window is partial
    counts
}

#[test]
fn reduced_drive_per_second_iops_are_steady() {
    let scale = 8;
    let mut d = SimSsd::new(&cut8(), &DeviceOptions { scale_divisor: scale, ..Default::default() }).unwrap();
    let units = d.capacity().user_bytes_sim / 4096;
    let mut k = 0;
    windows(&mut d, 128, units, 1, u64::MAX, || {
        k += 1;
        (k - 1) * 4096
    });
    let mut rng = RngStreams::new(3).stream(StreamId::Host, 0);
    let counts =
        windows(&mut d, 128, 2 * units, units, 1_000_000_000 / scale as u64, || rng.gen_range(0..units) * 4096);
    d.check_invariants().unwrap();
    let n = counts.len() as f64;
    let mean = counts.iter().sum::<u64>() as f64 / n;
    let sd = (counts.iter().map(|&c| (c as f64 - mean).powi(2)).sum::<f64>() / n).sqrt();
    let zero = counts.iter().filter(|&&c| c == 0).count();
    let cov = 100.0 * sd / mean;
    eprintln!(
        "cut8 1/{scale}: {} windows, mean {:.0} IOPS, CoV {cov:.2}%, {zero} empty",
        counts.len(),
        mean * scale as f64
    );
    assert!(counts.len() >= 200, "too few windows to judge: {}", counts.len());
    assert_eq!(zero, 0, "windows without a completed write");
    assert!(cov < 2.0, "per-second CoV {cov:.2}% (unscaled drive: 0.9%)");
}
