//! Scaling keeps the physics: steady-state WA and IOPS of uniform 4 KiB random writes agree
//! within 3% between two scales of one drive. The drive is a cut-down 176L TLC array (8 dies,
//! 2048 blocks per plane) so that both scales reach steady state in CI time; `--ignored` runs the
//! same check on generic-tlc at 1/32 and 1/128 (minutes).
//!
//! Known limit: at 1/16 generic-tlc keeps 85 of its 512 word lines per block (every scale
//! keeps 256 blocks per die) and IOPS come out 4.5% below 1/128 (293.1k vs 307.0k; WA 2% apart).
//! The write buffer causes it: longer blocks mean longer GC read queues on a victim's die, so
//! the programs carrying its data (and that die's later programs) hold host data in the buffer
//! longer. With a 1 GiB buffer instead of 256 MiB the scales agree (306.6k vs 307.0k IOPS);
//! with 16 MiB the gap is -38.5%. At 1/4 (341-word-line blocks, 256 MiB) IOPS are 25% below
//! 1/128 (229.3k, WA 4.946): buffer-bound results are not scale-invariant yet.

use ftl::device::{DeviceOptions, HostOp, SimSsd};
use ftl::profile;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Closed-loop 4 KiB writes from `next`; returns (WA, IOPS) over the last `measure` writes.
fn run(d: &mut SimSsd, qd: u64, total: u64, measure: u64, mut next: impl FnMut() -> u64) -> (f64, f64) {
    let mut issued = 0;
    let mut done = 0;
    let mut mark = None;
    while issued < qd.min(total) {
        d.submit(issued, HostOp::Write, next(), 4096).unwrap();
        issued += 1;
    }
    while let Some(_c) = d.next_completion(None) {
        done += 1;
        if done == total - measure {
            mark = Some((d.now(), d.counters(), done));
        }
        if issued < total {
            d.submit(issued, HostOp::Write, next(), 4096).unwrap();
            issued += 1;
        }
    }
    let (t0, c0, n0) = mark.unwrap_or((0, Default::default(), 0));
    let c1 = d.counters();
    let wa = (c1.nand_write_bytes - c0.nand_write_bytes) as f64 / (c1.host_write_bytes - c0.host_write_bytes) as f64;
    let iops = (done - n0) as f64 / ((d.now() - t0) as f64 / 1e9);
    (wa, iops)
}

fn steady(drive: &profile::ValidatedProfile, scale: u32, drive_writes: f64) -> (f64, f64) {
    let mut d = SimSsd::new(drive, &DeviceOptions { scale_divisor: scale, ..Default::default() }).unwrap();
    let units = d.capacity().user_bytes_sim / 4096;
    let mut k = 0;
    run(&mut d, 64, units, 1, || {
        k += 1;
        (k - 1) * 4096
    });
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let total = (units as f64 * drive_writes) as u64;
    let r = run(&mut d, 64, total, total / 4, || rng.gen_range(0..units) * 4096);
    d.check_invariants().unwrap();
    eprintln!(
        "{} 1/{scale}: factor {:.1}, steady WA {:.3}, {:.0} IOPS",
        drive.profile.name,
        d.capacity().scale_factor,
        r.0,
        r.1
    );
    r
}

fn assert_agree(a: (f64, f64), b: (f64, f64)) {
    assert!((a.0 - b.0).abs() / a.0 < 0.03, "WA {} vs {}", a.0, b.0);
    assert!((a.1 - b.1).abs() / a.1 < 0.03, "IOPS {} vs {}", a.1, b.1);
}

fn cut_down_tlc() -> profile::ValidatedProfile {
    let text = profile::EMBEDDED.iter().find(|(n, _)| *n == "generic-tlc").map(|e| e.1).unwrap_or_default();
    let text = text
        .replacen("channels = 8", "channels = 4", 1)
        .replacen("dies_per_channel = 16", "dies_per_channel = 2", 1)
        .replacen("planes_per_die = 4", "planes_per_die = 2", 1)
        .replacen("blocks_per_plane = 683", "blocks_per_plane = 2048", 1)
        .replacen("pages_per_block = 1536", "pages_per_block = 144", 1)
        .replacen("user_capacity_bytes = 7_680_000_000_000", "user_capacity_bytes = 67_459_870_720", 1);
    profile::parse(&text, "cut-down-tlc").unwrap()
}

#[test]
fn steady_state_wa_and_iops_agree_between_scales() {
    let p = cut_down_tlc();
    assert_agree(steady(&p, 8, 4.0), steady(&p, 32, 4.0));
}

#[test]
#[ignore = "minutes of wall time and ~2 GB of memory; run with --ignored --nocapture"]
fn generic_tlc_agrees_between_1_32_and_1_128() {
    let p = profile::load("generic-tlc").unwrap();
    assert_agree(steady(&p, 32, 3.0), steady(&p, 128, 3.0));
}
