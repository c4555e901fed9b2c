//! Which phases show the drive's slow swings (the layers' tPROG ramp): a reduced drive runs a
//! phase 1/N as long as the full-size drive, so only a long one averages them as the full-size
//! drive's phases do.

use super::*;

/// Device time a phase must last to see the drive's slow swings averaged, as the full-size
/// drive's phases do (`SimSsd::resolve_layer_ramp`): the layer ramp swings throughput over the
/// 10-30 s each write stream takes to fill a full-size block, and host and GC streams beat.
pub const SLOW_SWING_MIN_DEVICE_NS: u64 = 60_000_000_000;

/// Whether a group of `members` of `file` shows the drive's slow swings: on an unscaled drive
/// always (its phases are as long as the full-size drive's), at reduced scale only when every
/// member is time-based and runs at least [`SLOW_SWING_MIN_DEVICE_NS`] of device time. A
/// shorter scaled phase would see part of one swing (60 s groups of P5520 random writes at
/// 1/256 ranged -2.9% .. +5.6% around their mean with the swings, +-0.5% without); it takes
/// the mean program time instead.
pub(super) fn resolves_slow_swings(file: &JobFile, members: &[usize], time_scale: f64) -> bool {
    time_scale >= 1.0
        || members.iter().all(|&j| {
            file.jobs.get(j).is_some_and(|s| {
                s.time_based && s.runtime_ns.is_some_and(|r| scale(r, time_scale) >= SLOW_SWING_MIN_DEVICE_NS)
            })
        })
}
