//! The simulated SSD as a [`Device`]: a thin adapter over [`ftl::device::SimSsd`] that also
//! samples the drive's internal counters (WA, free blocks, GC, energy) over simulated time, so
//! results can report them per job and per interval.

use crate::device::{Device, DeviceError, DeviceInfo, IoCompletion, IoDir, IoRequest};
use ftl::device::{Counters, HostOp, SimSsd, SubmitError};
use nand_model::SimTime;

// The runner hints offsets as far ahead as the simulator's prefetch pipeline expects them.
const _: () = assert!(crate::device::HINT_LOOKAHEAD == ftl::device::HINT_LOOKAHEAD);

/// One sample of the drive's counters at a simulated instant.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct CounterSample {
    pub t_ns: u64,
    pub counters: Counters,
}

/// Most interval samples kept; past this, every other one is dropped and the interval doubles,
/// so a run of any length holds at most this many (about 30 MiB).
pub const MAX_INTERVAL_SAMPLES: usize = 1 << 18;

/// A simulated drive behind the host [`Device`] trait.
///
/// Results ask for the counters "as of" an instant: the last sample at or before it. Samples
/// are taken every `sample_interval_ns` and when the drive drains, but a drain sample is kept
/// only when a result can ask for it (the runner's [`Device::report_grid`] boundaries and
/// [`Device::report_point`]s): the latest one waits in `idle` and is dropped when a newer sample
/// supersedes it for every reported instant. At queue depth 1 the drive drains after every
/// command, so keeping them all grew without bound; the answers are the same.
pub struct SimTarget {
    pub ssd: SimSsd,
    name: String,
    sampling: TargetState,
}

/// What the target holds besides the drive (samples, report points and grid), saved with a
/// run paused mid-way: the finished run's results read samples from before the pause.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct TargetState {
    sample_interval_ns: u64,
    next_sample_ns: u64,
    /// Interval samples and the drain samples a reported boundary needs, by time.
    samples: Vec<CounterSample>,
    /// Samples at report points (job and group ends), by time; a few per job.
    points: Vec<CounterSample>,
    /// The latest drain sample, not (yet) known to be needed.
    idle: Option<CounterSample>,
    /// (origin, interval) of the current group's reported boundaries.
    grids: Vec<(u64, u64)>,
}

impl SimTarget {
    /// Its samples and reporting state (see [`TargetState`]).
    pub fn state(&self) -> TargetState {
        self.sampling.clone()
    }

    /// Takes back a saved [`TargetState`] (the drive is restored separately).
    pub fn restore(&mut self, s: TargetState) -> Result<(), String> {
        if s.samples.is_empty() {
            return Err("the saved target has no counter samples".into());
        }
        self.sampling = s;
        Ok(())
    }

    /// Wraps `ssd`; counters are sampled every `sample_interval_ns` of simulated time and
    /// whenever the device drains (job-group boundaries).
    pub fn new(ssd: SimSsd, name: impl Into<String>, sample_interval_ns: u64) -> Self {
        let first = CounterSample { t_ns: ssd.now().ns(), counters: ssd.counters() };
        SimTarget {
            ssd,
            name: name.into(),
            sampling: TargetState {
                sample_interval_ns: sample_interval_ns.max(1),
                next_sample_ns: sample_interval_ns.max(1),
                samples: vec![first],
                points: Vec::new(),
                idle: None,
                grids: Vec::new(),
            },
        }
    }

    /// The sampling phase: (interval, time of the next interval sample), ns.
    pub fn sampling(&self) -> (u64, u64) {
        (self.sampling.sample_interval_ns, self.sampling.next_sample_ns)
    }

    /// Continues the sampling phase of a saved drive (see [`SimTarget::sampling`]).
    pub fn set_sampling(&mut self, interval_ns: u64, next_ns: u64) {
        self.sampling.sample_interval_ns = interval_ns.max(1);
        self.sampling.next_sample_ns = next_ns;
    }

    /// Samples kept (interval samples, needed drain samples and report points), by time.
    pub fn samples(&self) -> Vec<CounterSample> {
        let mut v: Vec<CounterSample> =
            self.sampling.samples.iter().chain(&self.sampling.points).chain(&self.sampling.idle).copied().collect();
        v.sort_by_key(|s| s.t_ns);
        v
    }

    /// The last sample at or before `t_ns` (the first sample if none).
    pub fn sample_at(&self, t_ns: u64) -> CounterSample {
        let last_le = |v: &[CounterSample]| v[..v.partition_point(|s| s.t_ns <= t_ns)].last().copied();
        let mut best = last_le(&self.sampling.samples).unwrap_or(self.sampling.samples[0]);
        for c in last_le(&self.sampling.points).into_iter().chain(self.sampling.idle.filter(|s| s.t_ns <= t_ns)) {
            if c.t_ns >= best.t_ns {
                best = c;
            }
        }
        best
    }

    fn latest_t(&self) -> u64 {
        let kept = self.sampling.samples.last().map_or(0, |s| s.t_ns);
        self.sampling.idle.map_or(kept, |s| s.t_ns).max(self.sampling.points.last().map_or(0, |s| s.t_ns))
    }

    #[inline]
    fn take_samples(&mut self) {
        let now = self.ssd.now().ns();
        if now >= self.sampling.next_sample_ns {
            self.settle_idle(now);
            self.push_sample(CounterSample { t_ns: now, counters: self.ssd.counters() });
            self.sampling.next_sample_ns =
                (now / self.sampling.sample_interval_ns + 1) * self.sampling.sample_interval_ns;
        } else if self.ssd.outstanding() == 0 && self.latest_t() != now {
            self.settle_idle(now);
            self.sampling.idle = Some(CounterSample { t_ns: now, counters: self.ssd.counters() });
        }
    }

    /// A newer sample at `t_new` is about to supersede the pending drain sample: keep the
    /// drain sample if a reported boundary lies in `[its time, t_new)`.
    fn settle_idle(&mut self, t_new: u64) {
        if let Some(s) = self.sampling.idle.take() {
            if self.sampling.grids.iter().any(|&(o, i)| boundary_in(o, i, s.t_ns, t_new)) {
                self.push_sample(s);
            }
        }
    }

    fn push_sample(&mut self, s: CounterSample) {
        if self.sampling.samples.len() >= MAX_INTERVAL_SAMPLES {
            self.thin();
        }
        self.sampling.samples.push(s);
    }

    /// Halves the kept samples (the first stays) and doubles the intervals, so a very long run
    /// stays within [`MAX_INTERVAL_SAMPLES`] with evenly spread, coarser samples.
    fn thin(&mut self) {
        let mut i = 0usize;
        self.sampling.samples.retain(|_| {
            i += 1;
            i % 2 == 1
        });
        self.sampling.sample_interval_ns = self.sampling.sample_interval_ns.saturating_mul(2);
        self.sampling.grids.iter_mut().for_each(|g| g.1 = g.1.saturating_mul(2));
        let now = self.ssd.now().ns();
        self.sampling.next_sample_ns =
            (now / self.sampling.sample_interval_ns + 1).saturating_mul(self.sampling.sample_interval_ns);
    }
}

/// Whether some `origin + k * interval` (k >= 0) lies in `[a, b)`.
fn boundary_in(origin: u64, interval: u64, a: u64, b: u64) -> bool {
    if b <= origin || b <= a {
        return false;
    }
    let from = a.max(origin) - origin;
    let k = from.div_ceil(interval.max(1));
    origin.saturating_add(k.saturating_mul(interval)) < b
}

fn dir_of(op: HostOp) -> IoDir {
    match op {
        HostOp::Read => IoDir::Read,
        HostOp::Write => IoDir::Write,
        HostOp::Trim => IoDir::Trim,
    }
}

impl Device for SimTarget {
    fn info(&self) -> DeviceInfo {
        DeviceInfo {
            capacity_bytes: self.ssd.capacity().user_bytes_sim,
            logical_block_bytes: self.ssd.logical_block_bytes(),
            kind: "simulated",
            name: self.name.clone(),
        }
    }

    fn now_ns(&self) -> u64 {
        self.ssd.now().ns()
    }

    fn submit(&mut self, req: IoRequest) -> Result<(), DeviceError> {
        let op = match req.dir {
            IoDir::Read => HostOp::Read,
            IoDir::Write => HostOp::Write,
            IoDir::Trim => HostOp::Trim,
        };
        self.ssd.submit(req.tag, op, req.offset_bytes, req.len_bytes).map_err(|e| match e {
            SubmitError::OutOfRange { offset, len, capacity } => {
                DeviceError::OutOfRange { offset_bytes: offset, len_bytes: len, capacity_bytes: capacity }
            }
            SubmitError::Misaligned { offset, len, block } => {
                DeviceError::Misaligned { offset_bytes: offset, len_bytes: len, block_bytes: block }
            }
        })
    }

    fn wait(&mut self, deadline_ns: Option<u64>) -> Result<Option<IoCompletion>, DeviceError> {
        let c = self.ssd.next_completion(deadline_ns.map(SimTime::from_ns));
        self.take_samples();
        if c.is_none() && deadline_ns.is_none() && self.ssd.outstanding() > 0 {
            return Err(DeviceError::Other(format!(
                "simulated drive stalled with {} commands outstanding (no free space and nothing to collect)",
                self.ssd.outstanding()
            )));
        }
        Ok(c.map(|c| IoCompletion {
            tag: c.tag,
            dir: dir_of(c.op),
            len_bytes: c.len_bytes,
            submit_ns: c.submit_ns.ns(),
            complete_ns: c.complete_ns.ns(),
        }))
    }

    fn outstanding(&self) -> usize {
        self.ssd.outstanding()
    }

    #[inline]
    fn hint_next_offset(&mut self, offset_bytes: u64) {
        self.ssd.hint_next_offset(offset_bytes);
    }

    fn write_buffer(&self) -> Option<crate::device::WriteBufferState> {
        let (used_bytes, capacity_bytes) = self.ssd.write_buffer_fill();
        Some(crate::device::WriteBufferState {
            used_bytes,
            capacity_bytes,
            host_waited_ns: self.ssd.counters().buffer_stall_ns,
        })
    }

    /// Runs the drive until the host data in its write buffer is programmed (GC in flight
    /// goes on in the next phase; see `SimSsd::drain_host_data`).
    fn settle(&mut self) {
        if self.ssd.outstanding() == 0 {
            self.ssd.drain_host_data();
            self.take_samples();
        }
    }

    fn resolve_slow_swings(&mut self, resolved: bool) {
        self.ssd.resolve_layer_ramp(resolved);
    }

    fn report_grid(&mut self, origins_ns: &[u64], interval_ns: u64) {
        self.report_point();
        self.sampling.grids = origins_ns.iter().map(|&o| (o, interval_ns.max(1))).collect();
    }

    fn report_point(&mut self) {
        if let Some(s) = self.sampling.idle.take() {
            self.sampling.points.push(s);
        }
    }
}
