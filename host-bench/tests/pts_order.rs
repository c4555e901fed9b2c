//! PTS-E IOPS tables as real drives show them (issue 13): on every embedded profile, at each
//! block size up to 128 KiB, IOPS do not rise (by more than 3%) as the write share grows from
//! 100/0 to 0/100, and 512 B random writes (a read-modify-write of their mapping unit) are not
//! faster than 4 KiB ones. The full PTS-E IOPS test at the default scale, seed 1, as
//! `ssdlab pts iops --drive D` runs it (`scripts/pts-order.py` checks the same on its CSV).
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use host_bench::simrun::SimConfig;
use host_bench::suites::{pts, Ctl, SimBench};

/// The cells out of order in `drive`'s window table, and its 512 B / 4 KiB random-write ratio.
fn out_of_order(drive: &str) -> (Vec<String>, f64) {
    let mut b = SimBench::new(SimConfig::new(drive, 1)).unwrap();
    let o = pts::PtsOptions::new(pts::PtsTest::Iops);
    let (segments, interrupted) = pts::run_rounds(&mut b, &o, &mut Ctl::default()).unwrap();
    assert!(!interrupted);
    let table = segments[0].window_table();
    let iops = |read_pct: u32, bs: u32| {
        table.iter().find(|c| c.cell.read_pct == read_pct && c.cell.bs_bytes == bs).unwrap().iops
    };
    let mixes = [100, 95, 65, 50, 35, 5, 0];
    let mut bad = Vec::new();
    for bs in [512, 4096, 8192, 16384, 32768, 65536, 131072] {
        for w in mixes.windows(2) {
            let (before, after) = (iops(w[0], bs), iops(w[1], bs));
            if after > before * 1.03 {
                bad.push(format!("{bs} B {}/{}: {after:.0} > {before:.0} at {}", w[1], 100 - w[1], w[0]));
            }
        }
    }
    (bad, iops(0, 512) / iops(0, 4096))
}

/// The profiles checked below, one test each (they run in parallel).
const CHECKED: [&str; 8] = [
    "generic-tlc",
    "generic-qlc",
    "solidigm-d7-p5520",
    "solidigm-d7-ps1010",
    "solidigm-d5-p5430",
    "memblaze-pblaze7-7a40",
    "intel-d5-p4420",
    "tiny",
];

#[test]
fn every_embedded_profile_is_checked() {
    let mut embedded = ftl::profile::embedded_names();
    embedded.sort_unstable();
    let mut checked = CHECKED.to_vec();
    checked.sort_unstable();
    assert_eq!(embedded, checked);
}

fn check(drive: &str) {
    let (bad, small_writes) = out_of_order(drive);
    assert!(bad.is_empty(), "{drive}: IOPS rise with the write share: {bad:?}");
    assert!(small_writes <= 1.0, "{drive}: 512 B random writes {small_writes:.2}x of 4 KiB");
}

#[test]
fn generic_tlc() {
    check("generic-tlc");
}

#[test]
fn generic_qlc() {
    check("generic-qlc");
}

#[test]
fn solidigm_d7_p5520() {
    check("solidigm-d7-p5520");
}

#[test]
fn solidigm_d7_ps1010() {
    check("solidigm-d7-ps1010");
}

#[test]
fn solidigm_d5_p5430() {
    check("solidigm-d5-p5430");
}

#[test]
fn memblaze_pblaze7_7a40() {
    check("memblaze-pblaze7-7a40");
}

#[test]
fn intel_d5_p4420() {
    check("intel-d5-p4420");
}

#[test]
fn tiny() {
    check("tiny");
}
