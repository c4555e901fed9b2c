//! The simulated SSD as a [`Device`]: a thin adapter over [`ftl::device::SimSsd`] that also
//! samples the drive's internal counters (WA, free blocks, GC, energy) over simulated time, so
//! results can report them per job and per interval.

use crate::device::{Device, DeviceError, DeviceInfo, IoCompletion, IoDir, IoRequest};
use ftl::device::{Counters, HostOp, SimSsd, SubmitError};

/// One sample of the drive's counters at a simulated instant.
#[derive(Clone, Copy, Debug)]
pub struct CounterSample {
    pub t_ns: u64,
    pub counters: Counters,
}

/// A simulated drive behind the host [`Device`] trait.
pub struct SimTarget {
    pub ssd: SimSsd,
    name: String,
    sample_interval_ns: u64,
    next_sample_ns: u64,
    samples: Vec<CounterSample>,
}

impl SimTarget {
    /// Wraps `ssd`; counters are sampled every `sample_interval_ns` of simulated time and
    /// whenever the device drains (job-group boundaries).
    pub fn new(ssd: SimSsd, name: impl Into<String>, sample_interval_ns: u64) -> Self {
        let first = CounterSample { t_ns: ssd.now(), counters: ssd.counters() };
        SimTarget {
            ssd,
            name: name.into(),
            sample_interval_ns: sample_interval_ns.max(1),
            next_sample_ns: sample_interval_ns.max(1),
            samples: vec![first],
        }
    }

    pub fn samples(&self) -> &[CounterSample] {
        &self.samples
    }

    /// The last sample at or before `t_ns` (the first sample if none).
    pub fn sample_at(&self, t_ns: u64) -> CounterSample {
        let i = self.samples.partition_point(|s| s.t_ns <= t_ns);
        self.samples[i.saturating_sub(1)]
    }

    fn take_samples(&mut self) {
        let now = self.ssd.now();
        if now >= self.next_sample_ns {
            self.samples.push(CounterSample { t_ns: now, counters: self.ssd.counters() });
            self.next_sample_ns = (now / self.sample_interval_ns + 1) * self.sample_interval_ns;
        } else if self.ssd.outstanding() == 0 && self.samples.last().is_some_and(|s| s.t_ns != now) {
            self.samples.push(CounterSample { t_ns: now, counters: self.ssd.counters() });
        }
    }
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
        self.ssd.now()
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
        let c = self.ssd.next_completion(deadline_ns);
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
            submit_ns: c.submit_ns,
            complete_ns: c.complete_ns,
        }))
    }

    fn outstanding(&self) -> usize {
        self.ssd.outstanding()
    }

    #[inline]
    fn hint_next_offset(&mut self, offset_bytes: u64) {
        self.ssd.hint_next_offset(offset_bytes);
    }

    /// Runs the drive until its buffered programs (and any GC they trigger) are done.
    fn settle(&mut self) {
        if self.ssd.outstanding() == 0 {
            self.ssd.next_completion(None);
            self.take_samples();
        }
    }
}
