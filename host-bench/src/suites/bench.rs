//! What a suite runs on: the simulated drive or a real target, behind one trait.

use super::{Ctl, SuiteError};
use crate::device::{Device, DeviceInfo};
use crate::drive_stats::SimHeader;
use crate::job::JobFile;
use crate::real::describe::TargetDescription;
use crate::real::{purge, RealTarget};
use crate::runner::{self, RunOptions, RunProgress, RunResult};
use crate::simrun::{delta, SimConfig, SimSession};
use serde::Serialize;
use serde_json::{json, Value};

/// A target a suite can purge and run fio jobs on.
pub trait Bench {
    fn info(&self) -> DeviceInfo;
    /// Device time per full-scale time: 1 for a real drive, 1/scale factor for a scaled simulation.
    fn time_scale(&self) -> f64;
    /// Returns the drive to fresh-out-of-box (or refuses, for a real drive not known to be purged).
    fn purge(&mut self) -> Result<Value, SuiteError>;
    /// Runs `job`; `label` and `span` (start, end fractions of the suite) drive the progress bar.
    fn run_job(&mut self, job: &JobFile, ctl: &mut Ctl, label: &str, span: (f64, f64))
        -> Result<RunResult, SuiteError>;
    /// NAND bytes per host byte written between two device instants; `None` when the target
    /// cannot tell (real drives) or nothing was written.
    fn write_amplification(&self, from_ns: u64, to_ns: u64) -> Option<f64>;
    /// Resolved configuration and seed, written into every result JSON as `"config"`.
    fn describe(&self) -> BenchConfig;
}

/// What a suite ran on: a result's `"config"` object, tagged `"target": "simulated" | "real"`.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "target", rename_all = "lowercase")]
pub enum BenchConfig {
    Simulated {
        /// The same header as a run's `"ssdlab"` object.
        #[serde(flatten)]
        drive: Box<SimHeader>,
        /// Full-scale user capacity and its OP (a run's job objects carry the same two).
        user_capacity_bytes: u64,
        op_pct: f64,
        time_note: &'static str,
    },
    Real {
        version: &'static str,
        path: String,
        seed: u64,
        device: TargetDescription,
        /// The I/O engine's name as the CLI prints it.
        engine: String,
        time_scale: f64,
    },
}

/// What the `time_note` of a simulated suite's configuration says.
const SIM_TIME_NOTE: &str = "every duration (runtime, hours, minutes) is full-scale and was divided by the scale factor \
                             on the simulated drive, so the same fraction of the drive is written; IOPS, MB/s and latency \
                             are full-scale figures; time axes are full-scale seconds";

fn progress_cb<'c>(ctl: &'c mut Ctl, label: &'c str, span: (f64, f64)) -> Option<impl FnMut(RunProgress) + 'c> {
    let p: &'c mut (dyn FnMut(&str, f64) + 'c) = &mut **ctl.progress.as_mut()?;
    Some(move |rp: RunProgress| p(label, span.0 + (span.1 - span.0) * rp.fraction))
}

/// The simulator: a [`SimSession`] whose per-interval series are one full-scale second long.
pub struct SimBench {
    pub session: SimSession,
    /// Jobs run since the last purge (a fresh session needs no purge).
    dirty: bool,
    purges: u32,
}

impl SimBench {
    /// Builds the drive. The series interval is set to one full-scale second of device time
    /// (1 s / scale factor), so per-second IOPS and WA mean the same on every scale.
    pub fn new(mut cfg: SimConfig) -> Result<Self, SuiteError> {
        let probe = SimSession::new(cfg.clone())?;
        let interval = nand_model::cast::sat_u64((1e9 / probe.scale_factor()).round().max(1.0));
        let session = if interval == cfg.interval_ns {
            probe
        } else {
            drop(probe);
            cfg.interval_ns = interval;
            SimSession::new(cfg)?
        };
        Ok(SimBench { session, dirty: false, purges: 0 })
    }
}

impl Bench for SimBench {
    fn info(&self) -> DeviceInfo {
        self.session.target.info()
    }

    fn time_scale(&self) -> f64 {
        1.0 / self.session.scale_factor()
    }

    fn purge(&mut self) -> Result<Value, SuiteError> {
        if self.dirty {
            self.session = SimSession::new(self.session.cfg.clone())?;
            self.dirty = false;
        }
        self.purges += 1;
        Ok(json!({"method": "simulated drive rebuilt fresh-out-of-box (all blocks erased, mapping empty)"}))
    }

    fn run_job(
        &mut self,
        job: &JobFile,
        ctl: &mut Ctl,
        label: &str,
        span: (f64, f64),
    ) -> Result<RunResult, SuiteError> {
        self.dirty = true;
        let stop = ctl.stop;
        let mut cb = progress_cb(ctl, label, span);
        let progress = cb.as_mut().map(|f| f as &mut dyn FnMut(RunProgress));
        Ok(self.session.run(job, stop, progress)?)
    }

    fn write_amplification(&self, from_ns: u64, to_ns: u64) -> Option<f64> {
        let t = &self.session.target;
        let c = delta(&t.sample_at(from_ns).counters, &t.sample_at(to_ns).counters);
        (c.host_write_bytes > 0).then(|| c.wa())
    }

    fn describe(&self) -> BenchConfig {
        let c = self.session.target.ssd.capacity();
        BenchConfig::Simulated {
            drive: Box::new(self.session.header()),
            user_capacity_bytes: c.user_bytes_full,
            op_pct: c.op * 100.0,
            time_note: SIM_TIME_NOTE,
        }
    }
}

/// A real file or block device. Purging is the user's job: the suite prints the command and
/// continues only when told the drive was purged.
pub struct RealBench {
    pub target: RealTarget,
    pub path: String,
    pub seed: u64,
    pub assume_purged: bool,
}

impl RealBench {
    /// The purge command for this target (NVMe format for NVMe namespaces, else blkdiscard).
    pub fn purge_command(&self) -> String {
        let plan = if purge::nvme_controller_of(&self.path).is_some() {
            purge::nvme_format(&self.path)
        } else {
            purge::blkdiscard(&self.path)
        };
        plan.commands.join(" && ")
    }
}

impl Bench for RealBench {
    fn info(&self) -> DeviceInfo {
        self.target.info()
    }

    fn time_scale(&self) -> f64 {
        1.0
    }

    fn purge(&mut self) -> Result<Value, SuiteError> {
        let command = self.purge_command();
        if !self.assume_purged {
            return Err(SuiteError::NotPurged { command });
        }
        Ok(json!({"method": "assumed purged by the user (--assume-purged)", "command": command}))
    }

    fn run_job(
        &mut self,
        job: &JobFile,
        ctl: &mut Ctl,
        label: &str,
        span: (f64, f64),
    ) -> Result<RunResult, SuiteError> {
        let mut opts = RunOptions::new(self.seed);
        opts.stop = ctl.stop;
        let mut cb = progress_cb(ctl, label, span);
        opts.progress = cb.as_mut().map(|f| f as &mut dyn FnMut(RunProgress));
        Ok(runner::run(job, &mut self.target, &mut opts)?)
    }

    fn write_amplification(&self, _from_ns: u64, _to_ns: u64) -> Option<f64> {
        None
    }

    fn describe(&self) -> BenchConfig {
        BenchConfig::Real {
            version: env!("CARGO_PKG_VERSION"),
            path: self.path.clone(),
            seed: self.seed,
            device: self.target.description().clone(),
            engine: format!("{:?}", self.target.engine_kind()),
            time_scale: 1.0,
        }
    }
}
