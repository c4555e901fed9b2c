//! The power governor inside the simulated SSD: a cap above peak power changes nothing (same NAND
//! trace, same completions), a tight cap throttles (lower IOPS, queueing latency) but completes
//! every command, and caps at or below the baseline are refused.
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use ftl::device::{DeviceError, DeviceOptions, HostCompletion, HostOp, SimSsd};
use nand_model::rng::{RngStreams, StreamId};
use nand_model::time::NS_PER_MS;
use nand_model::SimTime;
use rand::Rng;

/// Closed-loop 70/30 random 4 KiB mix at `qd` after a sequential fill; returns the completions.
fn run(opts: &DeviceOptions, qd: usize, ios: u64) -> (Vec<HostCompletion>, SimSsd) {
    let p = ftl::profile::load("tiny").unwrap();
    let mut d = SimSsd::new(&p, opts).unwrap();
    let bs = 4096u32;
    let blocks = d.capacity().user_bytes_sim / bs as u64;
    let mut rng = RngStreams::new(5).stream(StreamId::Host, 0);
    let mut out = Vec::new();
    let mut tag = 0u64;
    let next = |rng: &mut rand_chacha::ChaCha8Rng, tag: u64, d: &mut SimSsd| {
        let op = if tag < blocks {
            HostOp::Write
        } else if rng.gen_bool(0.7) {
            HostOp::Read
        } else {
            HostOp::Write
        };
        let lba = if tag < blocks { tag } else { rng.gen_range(0..blocks) };
        d.submit(tag, op, lba * bs as u64, bs).unwrap();
    };
    for _ in 0..qd {
        next(&mut rng, tag, &mut d);
        tag += 1;
    }
    while let Some(c) = d.next_completion(None) {
        out.push(c);
        if tag < blocks + ios {
            next(&mut rng, tag, &mut d);
            tag += 1;
        }
    }
    (out, d)
}

#[test]
fn a_cap_above_peak_power_is_identical_to_uncapped() {
    let plain = DeviceOptions { scale_divisor: 1, ..Default::default() };
    let capped = DeviceOptions { power_cap_w: Some(1000.0), ..plain.clone() };
    let metered = DeviceOptions { power_meter_interval_ns: Some(NS_PER_MS), ..plain.clone() };
    let (a, da) = run(&plain, 16, 40_000);
    let (b, db) = run(&capped, 16, 40_000);
    let (c, dc) = run(&metered, 16, 40_000);
    assert!(da.flash().governor().is_none());
    assert_eq!(da.flash().trace_hash(), db.flash().trace_hash());
    assert_eq!(da.flash().trace_hash(), dc.flash().trace_hash());
    assert_eq!(a, b);
    assert_eq!(a, c);
    assert_eq!(da.counters(), db.counters());
    assert_eq!(db.flash().governor().map(|g| g.stats().held_ops), Some(0));
}

#[test]
fn a_tight_cap_throttles_but_loses_nothing() {
    let plain = DeviceOptions { scale_divisor: 1, ..Default::default() };
    // tiny: 1.5 W idle (+ die standby); 1.6 W leaves under 0.1 W of sustained budget for the
    // NAND and its datapath, less than one 2-plane op draws (0.165 W): the dies take turns.
    let capped = DeviceOptions { power_cap_w: Some(1.6), ..plain.clone() };
    let (a, da) = run(&plain, 16, 20_000);
    let (b, db) = run(&capped, 16, 20_000);
    assert_eq!(a.len(), b.len(), "every command completes");
    let mut tags: Vec<u64> = b.iter().map(|c| c.tag).collect();
    tags.sort_unstable();
    tags.dedup();
    assert_eq!(tags.len(), b.len());
    assert!(db.now() > da.now(), "throttled run takes longer: {} vs {}", db.now(), da.now());
    let g = db.flash().governor().unwrap();
    assert!(g.stats().held_ops > 0 && g.throttled_total(db.now()) > SimTime::ZERO);
    // The cap is a sustained limit: over the run the drive's average (NAND, standby and idle)
    // stays under it; the bucket may lend one window's energy (10 ms) to reads, a negligible
    // share of a run this long.
    let avg_w = db.energy_j() / (db.now().ns() as f64 * 1e-9);
    assert!(avg_w <= 1.6 * 1.01, "average {avg_w} W over the run");
    assert!(avg_w >= 1.5, "the budget is used: average {avg_w} W");
}

#[test]
fn a_cap_below_the_baseline_is_refused() {
    let p = ftl::profile::load("tiny").unwrap();
    let e = SimSsd::new(&p, &DeviceOptions { scale_divisor: 1, power_cap_w: Some(1.0), ..Default::default() }).err();
    assert!(matches!(e, Some(DeviceError::Power(_))), "{e:?}");
}
