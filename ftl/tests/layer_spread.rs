//! A program's tPROG follows its word line's layer in the full-size drive's block
//! (`timing.t_prog_layer_spread_pct`), at every scale: a scaled die programs as many word lines
//! per second as the full-size one, so it must sweep the layers at the full-size pace although
//! its blocks are a few word lines long. The sweep is what makes the drive's per-second
//! throughput rise and fall over seconds, as the dies program their blocks in step.
#![allow(clippy::unwrap_used, clippy::cast_possible_truncation)] // a panic in test code is a failed test; casts are of the test's own small values

use ftl::device::{DeviceOptions, HostOp, SimSsd};
use ftl::profile;
use nand_model::{OpEvent, OpKind};

/// generic-tlc cut to 8 dies and 480 GB, with `spread_pct` of layer spread.
fn cut8(spread_pct: f64) -> profile::ValidatedProfile {
    let mut p = profile::load("generic-tlc").unwrap().profile;
    p.geometry.dies_per_channel = 1;
    p.host.user_capacity_bytes = 480_000_000_000;
    p.timing.t_prog_layer_spread_pct = spread_pct;
    profile::validate(p, "cut8-tlc").unwrap()
}

/// Array time of each program die 0 runs while `mib` MiB are written sequentially (host data
/// only: no GC), in order.
fn die0_program_times(p: &profile::ValidatedProfile, scale: u32, mib: u64) -> Vec<u64> {
    let mut d = SimSsd::new(p, &DeviceOptions { scale_divisor: scale, ..Default::default() }).unwrap();
    d.set_op_log(Some(1));
    let len = 128 * 1024;
    let (mut issued, mut log) = (0u64, Vec::new());
    let total = mib * 8;
    while issued < 32.min(total) {
        d.submit(issued, HostOp::Write, issued * len, len as u32).unwrap();
        issued += 1;
    }
    while d.next_completion(None).is_some() {
        if issued < total {
            d.submit(issued, HostOp::Write, issued * len, len as u32).unwrap();
            issued += 1;
        }
    }
    d.drain_op_log(&mut log);
    let t_cmd = p.timing.t_cmd_ns.ns();
    log.iter()
        .filter_map(|e| match e {
            OpEvent::Op(r) if r.kind == OpKind::Program => Some((r.end - r.start).ns() - t_cmd - r.xfer_ns.ns()),
            _ => None,
        })
        .collect()
}

#[test]
fn programs_sweep_the_full_size_blocks_layers_at_every_scale() {
    let p = cut8(20.0);
    let full_wl = p.geometry.word_lines_per_block() as usize;
    let planes = p.geometry.planes_per_die;
    // The ramp the full-size block's word lines give, first to last.
    let ramp: Vec<u64> = (0..full_wl)
        .map(|wl| {
            let band = (wl * nand_model::timing::LAYER_BANDS as usize / full_wl) as u8;
            p.timing.program_array_ns_at(planes, band).ns()
        })
        .collect();
    let mean = p.timing.program_array_ns(planes).ns();
    assert!(ramp[0] < mean * 91 / 100 && ramp[full_wl - 1] > mean * 109 / 100, "a 20% spread: {ramp:?}");
    // 8 dies x 192 KiB per word line: 1.5 blocks' worth of word lines on die 0.
    let unit_mib = p.geometry.program_unit_bytes() as f64 / (1 << 20) as f64;
    let mib = (1.5 * full_wl as f64 * 8.0 * unit_mib).ceil() as u64;
    for scale in [1, 16, 64] {
        let times = die0_program_times(&p, scale, mib);
        assert!(times.len() > full_wl, "1/{scale}: only {} programs on die 0", times.len());
        let want: Vec<u64> = (0..times.len()).map(|i| ramp[i % full_wl]).collect();
        assert_eq!(times, want, "1/{scale}: tPROG must follow the full-size block's {full_wl} word lines");
    }
    // A profile without a spread programs every word line in tPROG.
    let flat = die0_program_times(&cut8(0.0), 64, 64);
    assert!(!flat.is_empty() && flat.iter().all(|&t| t == mean));
}
