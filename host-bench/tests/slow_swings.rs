//! The drive's slow swings (the layers' tPROG ramp, `timing.t_prog_layer_spread_pct`: the dies
//! program their blocks' layers in step, so throughput rises and falls over the seconds a write
//! stream takes to fill a full-size block) show in a phase that lasts long enough in device time
//! to average them, as the full-size drive's phases do. A shorter phase of a reduced drive,
//! which would see one part of a swing, takes the mean program time instead.
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use host_bench::job::{self, ParseOptions};
use host_bench::runner::SLOW_SWING_MIN_DEVICE_NS;
use host_bench::simrun::{SimConfig, SimSession};

const SCALE: u32 = 64;

/// generic-tlc cut to 8 dies and 480 GB, with `spread_pct` of layer spread, as a profile file.
fn cut8(spread_pct: f64) -> std::path::PathBuf {
    let mut p = ftl::profile::load("generic-tlc").unwrap().profile;
    p.geometry.dies_per_channel = 1;
    p.host.user_capacity_bytes = 480_000_000_000;
    p.timing.t_prog_layer_spread_pct = spread_pct;
    let path = std::env::temp_dir().join(format!("ssdlab-slow-swings-{}-{spread_pct}.toml", std::process::id()));
    std::fs::write(&path, ftl::profile::to_toml(&p)).unwrap();
    let written = ftl::profile::load(path.to_str().unwrap()).unwrap();
    assert_eq!(written.profile.timing.t_prog_layer_spread_pct, spread_pct);
    path
}

/// IOPS and per-device-second CoV of a random-write phase of `runtime_s` full-scale seconds
/// after a fill and one drive write of random writes, at 1/[`SCALE`].
fn phase(profile: &std::path::Path, runtime_s: u64) -> (f64, f64) {
    let mut cfg = SimConfig::new(profile.to_str().unwrap(), 1);
    cfg.scale_divisor = Some(SCALE);
    let mut session = SimSession::new(cfg).unwrap();
    let text = format!(
        "[global]\nbs=4k\niodepth=32\nnorandommap\nrandrepeat=0\n\
         [fill]\nrw=write\nbs=128k\nsize=100%\n\
         [precondition]\nstonewall\nrw=randwrite\nsize=100%\n\
         [phase]\nstonewall\nrw=randwrite\nnumjobs=4\ngroup_reporting\ntime_based\nruntime={runtime_s}\n"
    );
    let file = job::parse_str(&text, "slow_swings.fio", &ParseOptions::default()).unwrap();
    let result = session.run(&file, None, None).unwrap();
    let j = result.jobs.last().unwrap();
    let iops = j.dirs.iter().map(|d| d.ios).sum::<u64>() as f64 / ((j.end_ns - j.start_ns) as f64 * 1e-9);
    (iops, session.job_stats(j).iops_cov_pct.unwrap())
}

#[test]
fn a_long_phase_shows_the_layer_swing_and_a_short_scaled_one_takes_the_mean() {
    let (ramp, flat) = (cut8(21.0), cut8(0.0));
    let min_s = SLOW_SWING_MIN_DEVICE_NS / 1_000_000_000;
    // 64 device seconds (long enough) and 40 (not): runtimes are full-scale time.
    let (long_s, short_s) = ((min_s + 4) * SCALE as u64, 40 * SCALE as u64);
    let (short_ramp, short_flat) = (phase(&ramp, short_s), phase(&flat, short_s));
    let (long_ramp, long_flat) = (phase(&ramp, long_s), phase(&flat, long_s));
    eprintln!("short: {short_ramp:.3?} vs {short_flat:.3?}; long: {long_ramp:.3?} vs {long_flat:.3?} (IOPS, CoV %)");
    assert_eq!(short_ramp, short_flat, "a short scaled phase programs in the mean tPROG");
    assert!(long_ramp.1 > 2.0 * long_flat.1, "the ramp swings a long phase: CoV {long_ramp:?} vs {long_flat:?}");
    // The swing moves IOPS around the mean, not the mean itself by much.
    assert!((long_ramp.0 / long_flat.0 - 1.0).abs() < 0.05, "IOPS {long_ramp:?} vs {long_flat:?}");
    for p in [ramp, flat] {
        std::fs::remove_file(p).unwrap();
    }
}
