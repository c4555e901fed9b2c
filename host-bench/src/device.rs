//! The one device trait every suite drives: the simulated SSD and a real file or block device
//! implement it, so the same job runs on both and the results can be compared.
//!
//! Time is in nanoseconds. For the simulator it is simulated time (never the wall clock); for a
//! real target it is wall time since the target was opened. The host loop only ever reads time
//! through [`Device::now_ns`] and the completions, so it cannot tell the two apart.

use serde::Serialize;

/// What an I/O does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IoDir {
    Read,
    Write,
    Trim,
}

impl IoDir {
    /// Index into per-direction arrays (read 0, write 1, trim 2), the order fio reports them in.
    pub const fn index(self) -> usize {
        match self {
            IoDir::Read => 0,
            IoDir::Write => 1,
            IoDir::Trim => 2,
        }
    }
}

/// One host command. Offsets and lengths are bytes and must be multiples of the device's
/// logical block size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoRequest {
    /// Caller-chosen tag, returned unchanged in the completion.
    pub tag: u64,
    pub dir: IoDir,
    pub offset_bytes: u64,
    pub len_bytes: u32,
}

/// A finished command with its submit and completion times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoCompletion {
    pub tag: u64,
    pub dir: IoDir,
    pub len_bytes: u32,
    pub submit_ns: u64,
    pub complete_ns: u64,
}

/// Static facts about a target.
#[derive(Clone, Debug, Serialize)]
pub struct DeviceInfo {
    /// Addressable bytes the host may use.
    pub capacity_bytes: u64,
    /// Offsets and lengths must be multiples of this.
    pub logical_block_bytes: u32,
    /// "simulated" or "real".
    pub kind: &'static str,
    /// Drive profile name or path of the real target.
    pub name: String,
}

/// A device's write buffer at one instant (see [`Device::write_buffer`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteBufferState {
    /// Bytes the buffer holds.
    pub used_bytes: u64,
    pub capacity_bytes: u64,
    /// Time host writes have waited for buffer space since power-on, ns (a cumulative count).
    pub host_waited_ns: u64,
}

/// The host process's CPU time and scheduling counts, cumulative since it started: what fio
/// reports per job as `usr_cpu`, `sys_cpu`, `ctx`, `majf` and `minf`.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostUsage {
    pub usr_ns: u64,
    pub sys_ns: u64,
    /// Voluntary plus involuntary context switches.
    pub ctx: u64,
    pub majf: u64,
    pub minf: u64,
}

impl HostUsage {
    /// What was used between `earlier` and `self`.
    pub fn since(self, earlier: HostUsage) -> HostUsage {
        HostUsage {
            usr_ns: self.usr_ns.saturating_sub(earlier.usr_ns),
            sys_ns: self.sys_ns.saturating_sub(earlier.sys_ns),
            ctx: self.ctx.saturating_sub(earlier.ctx),
            majf: self.majf.saturating_sub(earlier.majf),
            minf: self.minf.saturating_sub(earlier.minf),
        }
    }

    /// This usage scaled by `share` (0..=1), for a job's part of a group's.
    pub fn share(self, share: f64) -> HostUsage {
        let f = |x: u64| nand_model::cast::sat_u64((x as f64 * share).round());
        HostUsage {
            usr_ns: f(self.usr_ns),
            sys_ns: f(self.sys_ns),
            ctx: f(self.ctx),
            majf: f(self.majf),
            minf: f(self.minf),
        }
    }
}

/// Errors a device can report to the host loop.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    #[error("I/O out of range: offset {offset_bytes} + {len_bytes} > capacity {capacity_bytes}")]
    OutOfRange { offset_bytes: u64, len_bytes: u32, capacity_bytes: u64 },
    #[error("misaligned I/O: offset {offset_bytes}, length {len_bytes}, block size {block_bytes}")]
    Misaligned { offset_bytes: u64, len_bytes: u32, block_bytes: u32 },
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("verify failed: {0}")]
    Verify(String),
    #[error("{0}")]
    Other(String),
}

/// How many I/Os ahead of submitting them the runner draws a job's offsets and passes them to
/// [`Device::hint_next_offset`] (the trace replayer likewise). Part of the trait's contract, so
/// the runner needs nothing of a particular device; the simulated target checks at compile time
/// that it matches the depth its mapping prefetches are pipelined for.
pub const HINT_LOOKAHEAD: usize = 16;

/// A block device as the host sees it: submit commands, wait for completions.
pub trait Device {
    fn info(&self) -> DeviceInfo;

    /// Current time in ns (simulated time for the simulator).
    fn now_ns(&self) -> u64;

    /// Queue a command at the current time. The device decides when it actually starts.
    fn submit(&mut self, req: IoRequest) -> Result<(), DeviceError>;

    /// Wait for the next completion, but not past `deadline_ns` when one is given.
    /// Returns `Ok(None)` when the deadline came first (time then equals the deadline) or when
    /// nothing is outstanding and no deadline was given. Used by open-loop workloads (ACT,
    /// VDBench iorate) that submit at fixed arrival times.
    fn wait(&mut self, deadline_ns: Option<u64>) -> Result<Option<IoCompletion>, DeviceError>;

    /// Commands submitted but not yet returned by [`Device::wait`].
    fn outstanding(&self) -> usize;

    /// A command at `offset_bytes` will be submitted [`HINT_LOOKAHEAD`] commands from now. A
    /// performance hint only (the simulator prefetches its mapping state); results must not
    /// depend on it.
    fn hint_next_offset(&mut self, _offset_bytes: u64) {}

    /// Lets the write buffer a job group leaves dirty drain before the next group starts, and
    /// nothing more (GC in flight goes on in the next group, as on the full-size drive). The
    /// runner asks only when runtimes are scaled down: a full-size drive spends a negligible
    /// share of a phase on such a fixed-size transient, a phase shortened by the scale factor
    /// would spend that factor times more. No-op by default.
    fn settle(&mut self) {}

    /// Whether the phase starting now is long enough in device time to show the drive's slow
    /// swings as the full-size drive's phases average them (the runner says so at each group's
    /// start; see `runner::resolves_slow_swings`). No-op by default.
    fn resolve_slow_swings(&mut self, _resolved: bool) {}

    /// The write buffer's state, for devices whose buffer the runner can see (the simulator):
    /// scaled runs warm a time-based group up until it stops filling (see `runner::warmup`).
    /// `None` by default.
    fn write_buffer(&self) -> Option<WriteBufferState> {
        None
    }

    /// Reporting hint: the group starting now reports the device's state now, at each
    /// `origin + k * interval_ns` of `origins_ns` (its time-series boundaries) and at each
    /// [`Device::report_point`]. A device that keeps a history of its state for results (the
    /// simulator's counters) keeps those instants and may thin out the rest, so its memory does
    /// not grow with the number of I/Os. Replaces the previous group's grid.
    fn report_grid(&mut self, _origins_ns: &[u64], _interval_ns: u64) {}

    /// Reporting hint: a result boundary (a job instance finished, a group drained) is now.
    fn report_point(&mut self) {}

    /// The host process's CPU usage so far, on a real target. A simulator has none to report
    /// (its results must not depend on the machine running it).
    fn host_usage(&self) -> Option<HostUsage> {
        None
    }
}
