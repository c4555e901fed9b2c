//! The small array the engine tests run on: example TLC timing, default energy, 4 planes/die.
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use nand_model::*;

/// `channels` x `dies_per_channel` dies of 4 planes, with program/erase suspend and independent
/// plane reads as asked.
pub fn flash(channels: u32, dies_per_channel: u32, suspend: bool, independent_plane_reads: bool) -> Flash {
    flash_with(channels, dies_per_channel, |tc| {
        tc.suspend = suspend;
        tc.independent_plane_reads = independent_plane_reads;
    })
}

/// 1 channel x 2 dies of 4 planes with the example TLC timing as `edit` leaves it.
#[allow(dead_code)] // not every test binary that includes this module uses it
pub fn flash_with_timing(edit: impl FnOnce(&mut TimingConfig)) -> Flash {
    flash_with(1, 2, edit)
}

/// `channels` x `dies_per_channel` dies of 4 planes with the example TLC timing as `edit`
/// leaves it.
fn flash_with(channels: u32, dies_per_channel: u32, edit: impl FnOnce(&mut TimingConfig)) -> Flash {
    let mut gc = GeometryConfig::tiny_example();
    gc.channels = channels;
    gc.dies_per_channel = dies_per_channel;
    gc.planes_per_die = 4;
    let geo = gc.validate().unwrap();
    let mut tc = TimingConfig::example(CellType::Tlc);
    edit(&mut tc);
    let t = tc.validate(&geo).unwrap();
    Flash::new(geo, t, EnergyConfig::default().validate().unwrap())
}

/// `v` ns as a [`SimTime`] (test literals).
#[allow(dead_code)] // not every test binary that includes this module uses it
pub const fn ns(v: u64) -> SimTime {
    SimTime::from_ns(v)
}
