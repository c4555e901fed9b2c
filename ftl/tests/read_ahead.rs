//! Sequential read-ahead in the simulated SSD: a QD1 sequential reader is served from DRAM once
//! the stream is detected (much higher bandwidth than without), random reads are unaffected, and
//! writes into the prefetched window, trims and power loss leave the device consistent.
#![allow(clippy::cast_possible_truncation, clippy::unwrap_used)] // a panic in test code is a failed test; casts are of the test's own small values

use ftl::device::{DeviceOptions, HostOp, SimSsd};
use nand_model::rng::{RngStreams, StreamId};
use rand::Rng;

mod common;
use common::fill_sequential as fill;

fn tiny(read_ahead_kib: u32) -> ftl::profile::ValidatedProfile {
    let text = ftl::profile::EMBEDDED.iter().find(|(n, _)| *n == "tiny").map(|e| e.1).unwrap();
    let text = text.replacen("plp = true", &format!("plp = true\nread_ahead_kib = {read_ahead_kib}"), 1);
    ftl::profile::parse(&text, "tiny-ra").unwrap()
}

/// QD1 reads of `bs` bytes at the offsets from `next`; returns MB/s and the mean latency, us.
fn qd1_reads(d: &mut SimSsd, n: u64, bs: u32, mut next: impl FnMut(u64) -> u64) -> (f64, f64) {
    let t0 = d.now();
    let mut lat = 0u64;
    for i in 0..n {
        d.submit(i, HostOp::Read, next(i), bs).unwrap();
        let c = d.next_completion(None).unwrap();
        lat += (c.complete_ns - c.submit_ns).ns();
    }
    let secs = (d.now() - t0).ns() as f64 / 1e9;
    (n as f64 * bs as f64 / secs / 1e6, lat as f64 / n as f64 / 1e3)
}

#[test]
fn qd1_sequential_reads_are_served_from_the_window() {
    let bs = 128 * 1024u32;
    let mut bw = Vec::new();
    for kib in [0, 1024] {
        let mut d = SimSsd::new(&tiny(kib), &DeviceOptions::default()).unwrap();
        fill(&mut d);
        let n = d.capacity().user_bytes_sim / bs as u64;
        let (mb_s, _) = qd1_reads(&mut d, n, bs, |i| i * bs as u64);
        d.check_invariants().unwrap();
        eprintln!("read-ahead {kib} KiB: QD1 128 KiB sequential read {mb_s:.0} MB/s");
        bw.push(mb_s);
    }
    assert!(bw[1] > 1.5 * bw[0], "read-ahead {:.0} MB/s vs none {:.0} MB/s", bw[1], bw[0]);
}

#[test]
fn random_reads_do_not_trigger_it() {
    let mut lat = Vec::new();
    for kib in [0, 1024] {
        let mut d = SimSsd::new(&tiny(kib), &DeviceOptions::default()).unwrap();
        fill(&mut d);
        let units = d.capacity().user_bytes_sim / 4096;
        let mut rng = RngStreams::new(3).stream(StreamId::Host, 0);
        let (_, l) = qd1_reads(&mut d, 2000, 4096, |_| rng.gen_range(0..units) * 4096);
        lat.push(l);
    }
    assert!((lat[1] - lat[0]).abs() / lat[0] < 0.01, "mean latency {} us with read-ahead vs {} us", lat[1], lat[0]);
}

#[test]
fn writes_trims_and_power_loss_inside_the_window_stay_consistent() {
    let opts = DeviceOptions { track_sequence: true, ..Default::default() };
    let mut d = SimSsd::new(&tiny(1024), &opts).unwrap();
    fill(&mut d);
    let mut rng = RngStreams::new(11).stream(StreamId::Host, 0);
    let units = d.capacity().user_bytes_sim / 4096;
    let mut tag = 0u64;
    for round in 0..200u64 {
        // A sequential reader with writes and trims landing just ahead of it, QD up to 4.
        let base = (round * 64) % (units - 512);
        for k in 0..4u64 {
            d.submit(tag, HostOp::Read, (base + k * 32) * 4096, 32 * 4096).unwrap();
            tag += 1;
        }
        let ahead = base + 128 + rng.gen_range(0..256);
        let op = if rng.gen_bool(0.5) { HostOp::Write } else { HostOp::Trim };
        d.submit(tag, op, ahead * 4096, 8 * 4096).unwrap();
        tag += 1;
        while d.next_completion(None).is_some() {}
        if round % 50 == 49 {
            d.power_cut().unwrap();
        }
        d.check_invariants().unwrap();
    }
}

/// A write or trim into the prefetched window drops it: the next sequential read, of data the
/// window held, goes to NAND (a page read's latency) instead of DRAM.
#[test]
fn a_write_or_trim_into_the_window_drops_it() {
    let bs = 4096u32;
    let at = |unit: u64| unit * bs as u64;
    let (_, from_nand_us) = {
        let mut cold = SimSsd::new(&tiny(0), &DeviceOptions::default()).unwrap();
        fill(&mut cold);
        qd1_reads(&mut cold, 1, bs, |_| at(65))
    };
    for op in [HostOp::Write, HostOp::Trim] {
        let mut d = SimSsd::new(&tiny(1024), &DeviceOptions::default()).unwrap();
        fill(&mut d);
        // A sequential stream; the window (256 units) fills ahead of it.
        qd1_reads(&mut d, 64, bs, at);
        let (_, from_window_us) = qd1_reads(&mut d, 1, bs, |_| at(64));
        assert!(from_nand_us > 3.0 * from_window_us, "{op:?}: NAND {from_nand_us} us vs window {from_window_us} us");
        // One unit written (or trimmed) inside the window, past the next read.
        d.submit(1000, op, at(160), bs).unwrap();
        while d.next_completion(None).is_some() {}
        let (_, next_us) = qd1_reads(&mut d, 1, bs, |_| at(65));
        assert!(
            next_us > 0.9 * from_nand_us,
            "{op:?}: the read after it took {next_us} us, a NAND read {from_nand_us} us, the window {from_window_us} us"
        );
    }
}
