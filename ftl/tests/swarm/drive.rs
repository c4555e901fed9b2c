//! Drawing a drive from a seed: the embedded `tiny` profile with its geometry, timing, buffer,
//! mapping unit, sector size, GC policy, PLP, OP, power cap and scale varied within the ranges
//! the profile loader and `SimSsd::new` accept, so every draw builds.
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use ftl::config::GcPolicy;
use ftl::device::{DeviceOptions, SimSsd};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// One drawn drive: the profile and options it was built from (printed when a seed fails).
#[derive(Clone, Debug)]
pub struct DriveDraw {
    pub profile: ftl::profile::DriveProfile,
    pub opts: DeviceOptions,
}

pub fn draw(rng: &mut ChaCha8Rng) -> DriveDraw {
    let mut p = ftl::profile::load("tiny").unwrap().profile;
    p.geometry.channels = 0; // forces the first draw below
                             // At least 4 MiB of NAND, so the profile's 1 MiB minimum capacity fits.
    while p.geometry.validate().map_or(0, |g| g.raw_bytes()) < 4 << 20 {
        let g = &mut p.geometry;
        g.channels = rng.gen_range(1..=2);
        g.dies_per_channel = rng.gen_range(1..=2);
        g.planes_per_die = *pick(rng, &[1, 2, 4]);
        g.blocks_per_plane = rng.gen_range(16..=40);
        g.pages_per_block = 3 * rng.gen_range(4..=16);
        g.page_bytes = *pick(rng, &[4096, 8192, 16384]);
    }
    let t = &mut p.timing;
    t.multi_plane = rng.gen_bool(0.8);
    t.suspend = rng.gen_bool(0.5);
    t.max_suspends_per_op = rng.gen_range(1..=16);
    t.independent_plane_reads = rng.gen_bool(0.3);
    t.t_prog_us = rng.gen_range(300.0..3000.0);
    t.t_r_us = vec![rng.gen_range(20.0..90.0)];
    let c = &mut p.controller;
    c.write_buffer_mib = rng.gen_range(1..=3);
    c.mapping_unit_bytes = if p.geometry.page_bytes == 16384 && rng.gen_bool(0.3) { 16384 } else { 4096 };
    c.read_ahead_kib = *pick(rng, &[0, 0, 128, 512]);
    c.cmd_limit_kiops = rng.gen_range(50.0..400.0);
    p.host.logical_block_bytes = if rng.gen_bool(0.8) { 512 } else { 4096 };
    let f = &mut p.ftl;
    f.hot_cold_separation = rng.gen_bool(0.7);
    f.gc_bg_free_pct = rng.gen_range(4.0..12.0);
    f.gc_fg_free_pct = rng.gen_range(1.0..f.gc_bg_free_pct);
    // The stock capacity must stay below the raw NAND for the profile to load; the drive's
    // real capacity comes from the drawn OP below.
    let raw = p.geometry.validate().unwrap().raw_bytes();
    p.host.user_capacity_bytes = (raw / 2 / 16384 * 16384).max(1 << 20);
    // OP above what the GC thresholds hold back (as `SimSsd::new` counts them), plus a margin.
    let blocks = g_blocks(&p) as f64;
    let reserve = (blocks * p.ftl.gc_fg_free_pct / 100.0).ceil().max(2.0);
    let threshold = (blocks * p.ftl.gc_bg_free_pct / 100.0).ceil().max(reserve + 2.0);
    let op_min = threshold / (blocks - threshold) + 0.05;
    let opts = DeviceOptions {
        scale_divisor: *pick(rng, &[1, 1, 2, 4]),
        op: Some(rng.gen_range(op_min..op_min + 0.5)),
        gc_policy: Some(if rng.gen_bool(0.5) { GcPolicy::Greedy } else { GcPolicy::CostBenefit }),
        plp: Some(rng.gen_bool(0.6)),
        track_sequence: rng.gen_bool(0.8),
        power_cap_w: rng.gen_bool(0.3).then(|| rng.gen_range(1.7..8.0)),
        power_meter_interval_ns: rng
            .gen_bool(0.2)
            .then(|| nand_model::SimTime::from_ns(rng.gen_range(100_000..2_000_000))),
        ..Default::default()
    };
    DriveDraw { profile: p, opts }
}

impl DriveDraw {
    pub fn build(&self) -> Result<SimSsd, String> {
        let v = ftl::profile::validate(self.profile.clone(), "swarm").map_err(|e| e.to_string())?;
        SimSsd::new(&v, &self.opts).map_err(|e| e.to_string())
    }
}

/// Blocks as the FTL counts them (a block spans the planes of its die).
fn g_blocks(p: &ftl::profile::DriveProfile) -> u32 {
    let g = &p.geometry;
    g.channels * g.dies_per_channel * g.blocks_per_plane
}

pub fn pick<'a, T>(rng: &mut ChaCha8Rng, xs: &'a [T]) -> &'a T {
    &xs[rng.gen_range(0..xs.len())]
}
