//! The unmeasured warm-up of a scaled time-based job group, or of a size-based one whose
//! absolute amount the scale shrank below the write buffer: its jobs run until the drive's write
//! buffer stops filling, then the group starts and is measured.
//!
//! Why: a scaled run divides every runtime by the scale factor, but the write buffer keeps its
//! full size, because under load its size sets the write latency (a full buffer drains at the
//! NAND's pace). Filling it takes the same device time at every scale: a negligible share of a
//! full-size phase, and up to the whole of a scaled one. generic-qlc's PTS-E 128 KiB 95/5 cell
//! (60 s; 0.47 device s at 1/128) wrote its 44 MiB into the empty buffer and came out 7.9% above
//! 100/0, where the full-length cell, once the buffer is full and writes wait for programs,
//! comes out 10.5% below it. A full-size drive enters such a phase with its buffer at the
//! level the phase holds it at within a few seconds of a 60 s phase; the scaled drive does too.

use super::*;
use crate::device::WriteBufferState;
use nand_model::rng::{RngStreams, StreamId};

/// Device time between two looks at the buffer, ns.
const CHECK_NS: u64 = 100_000_000;
/// The buffer has stopped filling when it grew by less than capacity / this in one look: one
/// program unit of generic-qlc (256 KiB) on a 256 MiB buffer. A buffer that holds steady moves
/// by a few program units either way and stops the warm-up at its first step down; at 1/64 of
/// the slack (4 MiB) the PTS-E 128 KiB 95/5 cell of generic-qlc at 1/256, whose buffer fills at
/// ~2-4 MiB per look, was taken for steady after 0.2 device s (14,594 IOPS against 12,539 once
/// filled; 100/0: 13,249; measured before command cycles stopped waiting for transfers).
const GROWTH_SLACK_DIVISOR: u64 = 1024;
/// Longest warm-up, as a share of the group's longest full-scale runtime: a buffer that takes
/// longer than this to fill on the full-size drive is part of what the phase measures.
const MAX_SHARE: f64 = 0.1;
/// Longest warm-up of a size-based group, device ns: a buffer still filling after 10 s grows by
/// less than 26 MB/s net, which the full-size job would spend minutes behind.
const SIZE_BASED_MAX_NS: u64 = 10_000_000_000;

/// A group's warm-up, in each of its jobs' results: how long it ran and why it ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Warmup {
    /// Device (simulated) time the warm-up ran, ns; none of it is in the job's figures.
    pub device_ns: u64,
    pub end: WarmupEnd,
}

/// Why a warm-up ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WarmupEnd {
    /// Host writes waited for buffer space: the buffer is at its limit.
    BufferFull,
    /// The buffer grew by less than the slack in one look.
    Steady,
    /// 10% of the group's longest full-scale runtime (in device time) passed first, or 10 s
    /// of device time for a size-based group.
    Limit,
    /// A stop was requested (the run is being interrupted).
    Stopped,
}

/// How long (device ns) the warm-up of `members` of `file` may run at `time_scale` on a drive
/// whose write buffer holds `buffer_bytes`; `None` for no warm-up. Only scaled runs, only jobs
/// that generate their own I/O (a replayed log is left as it is; so are groups whose depth or
/// pace another rule sets, see [`warm_up`]), and either
/// - every member time-based: at most [`MAX_SHARE`] of the longest full-scale runtime, or
/// - every member size-based, one of them writing more on the full-size drive than the buffer
///   holds (`JobSpec::full_scale_write_bytes`): the full-size job spends a sliver of its writes
///   filling the buffer and the rest behind a full one, where its scaled amount (`size=10g` is
///   37 MiB at 1/273) would fit in the empty buffer whole. At most [`SIZE_BASED_MAX_NS`].
fn limit_ns(file: &JobFile, members: &[usize], time_scale: f64, buffer_bytes: u64) -> Option<f64> {
    let specs: Vec<&JobSpec> = members.iter().filter_map(|&j| file.jobs.get(j)).collect();
    if time_scale >= 1.0 || specs.is_empty() || specs.iter().any(|s| s.replay.read_iolog.is_some()) {
        return None;
    }
    if specs.iter().all(|s| s.time_based && s.runtime_ns.is_some_and(|r| r > 0)) {
        let longest = specs.iter().filter_map(|s| s.runtime_ns).max().unwrap_or(0);
        return Some(longest as f64 * MAX_SHARE);
    }
    let size_based = specs.iter().all(|s| !s.time_based);
    let overflows = specs.iter().any(|s| s.full_scale_write_bytes().is_some_and(|b| b > buffer_bytes));
    (size_based && overflows).then_some(SIZE_BASED_MAX_NS as f64)
}

/// The group's jobs as the warm-up runs them: time-based, no ramp, no steady-state stop, the
/// warm-up's longest length as runtime (as the file states it: the runner scales it).
fn warmup_file(file: &JobFile, members: &[usize], runtime_ns: u64) -> JobFile {
    let mut w = file.clone();
    for &j in members {
        if let Some(s) = w.jobs.get_mut(j) {
            s.ramp_time_ns = 0;
            s.time_based = true;
            s.runtime_ns = Some(runtime_ns);
            s.steadystate = None;
        }
    }
    w
}

fn settled(before: WriteBufferState, after: WriteBufferState) -> Option<WarmupEnd> {
    if after.host_waited_ns > before.host_waited_ns {
        Some(WarmupEnd::BufferFull)
    } else if after.used_bytes <= before.used_bytes + after.capacity_bytes / GROWTH_SLACK_DIVISOR {
        Some(WarmupEnd::Steady)
    } else {
        None
    }
}

/// Runs group `g`'s jobs unmeasured until the write buffer has stopped filling (see the
/// module's doc), from random streams of their own; `None` when the group gets no warm-up
/// (also when a latency-target search or a flow sets a member's depth or pace: what depth to
/// warm up at is that rule's own result).
#[allow(clippy::too_many_arguments)] // the group's place in the file and on the clock, as GroupRun::new
pub(super) fn warm_up<D: Device + ?Sized>(
    file: &JobFile,
    members: &[usize],
    g: usize,
    groups: usize,
    info: &DeviceInfo,
    dev: &mut D,
    opts: &RunOptions,
) -> Result<Option<Warmup>, RunError> {
    let Some(mut before) = dev.write_buffer() else {
        return Ok(None);
    };
    // The full-size drive runs a time-based phase for its whole runtime of device time, so the
    // longest warm-up is a share of that much device time; the runner divides a file's
    // runtimes by the scale, so the warm-up's file states it multiplied back.
    let Some(max_device_ns) = limit_ns(file, members, opts.time_scale, before.capacity_bytes) else {
        return Ok(None);
    };
    let wfile = warmup_file(file, members, nand_model::cast::sat_u64((max_device_ns / opts.time_scale).round()));
    let mut wopts = RunOptions {
        seed: RngStreams::new(opts.seed).seed_for(StreamId::Warmup, g as u64 + u64::from(opts.continued.groups)),
        time_scale: opts.time_scale,
        series_interval_ns: opts.series_interval_ns,
        stop: opts.stop,
        progress: None,
        on_submit: None,
        on_complete: None,
        continued: opts.continued,
        reseed: opts.reseed,
    };
    let start_ns = dev.now_ns();
    let mut group = GroupRun::new(&wfile, members, g, groups, info, start_ns, start_ns, &wopts)?;
    if group.controlled {
        return Ok(None);
    }
    // The warm-up is the phase's start: it sees the drive's slow swings as the phase does.
    group.slow_swings = resolves_slow_swings(file, members, opts.time_scale);
    group.start(dev, &wopts)?;
    let end = loop {
        let look_at = dev.now_ns().saturating_add(CHECK_NS);
        match group.run(dev, &mut wopts, look_at)? {
            // Every job reached the warm-up's longest length (or was stopped) and drained.
            Some(stopped) => break if stopped { WarmupEnd::Stopped } else { WarmupEnd::Limit },
            None => {
                // A buffer that went out of sight counts as one that stopped filling.
                let now = dev.write_buffer().unwrap_or(before);
                if let Some(end) = settled(before, now) {
                    group.instances.iter_mut().for_each(|i| i.stopped = true);
                    group.run(dev, &mut wopts, u64::MAX)?;
                    break end;
                }
                before = now;
            }
        }
    };
    Ok(Some(Warmup { device_ns: dev.now_ns() - start_ns, end }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(used_kib: u64, waited_ns: u64) -> WriteBufferState {
        WriteBufferState { used_bytes: used_kib << 10, capacity_bytes: 256 << 20, host_waited_ns: waited_ns }
    }

    #[test]
    fn a_filling_buffer_is_not_settled_a_full_or_flat_one_is() {
        // 256 MiB buffer: the slack is 256 KiB per look.
        assert_eq!(settled(state(10_240, 0), state(10_240 + 300, 0)), None);
        assert_eq!(settled(state(10_240, 0), state(10_240 + 200, 0)), Some(WarmupEnd::Steady));
        assert_eq!(settled(state(30_720, 0), state(10_240, 0)), Some(WarmupEnd::Steady));
        assert_eq!(settled(state(200 << 10, 5), state(250 << 10, 6)), Some(WarmupEnd::BufferFull));
    }
}
