//! Runs a [`JobFile`] against a [`Device`] the way fio does.
//!
//! Each job instance (a job times `numjobs`) keeps `iodepth` I/Os outstanding (closed loop) or,
//! with `rate`/`rate_iops` or a replayed iolog, submits at arrival times (open loop, still
//! capped at `iodepth`; see `runner/rate.rs`).
//! Jobs run concurrently on the one device; `stonewall` starts a new group that runs after the
//! previous group has drained. Time is only read from the device, so on the simulator every
//! number here is simulated time and the run is deterministic for a given seed.
//!
//! ```no_run
//! # fn demo(dev: &mut dyn host_bench::device::Device, file: &host_bench::job::JobFile) {
//! use host_bench::runner::{run, RunOptions};
//! let mut opts = RunOptions::new(42);
//! opts.time_scale = 0.01; // drive scaled 1/100: runtimes 1/100 as long
//! let result = run(file, dev, &mut opts).unwrap();
//! # }
//! ```

mod control;
mod exitall;
mod fatal;
mod flow;
mod groups;
mod instance;
mod io_records;
mod iolog_source;
mod job_result;
mod lat_target;
mod min_rate;
mod offsets;
mod pause;
mod position;
mod rate;
mod results;
mod setup;
mod slow_swings;
mod think;
mod wait_for;
mod warmup;
pub use fatal::JobFatal;
use groups::{reporting_groups, split_groups};
use instance::{Instance, Source};
pub use io_records::{CompleteHook, CompletedIo, SubmitHook, SubmittedIo};
pub use iolog_source::largest_entry_bytes;
use iolog_source::IologSource;
pub use job_result::{DirResult, JobResult, RunResult, SteadyStateOutcome};
pub use lat_target::LatencyOutcome;
pub use min_rate::MinRateMiss;
pub use pause::{group_count, pausable, run_or_pause, PausedRun, RunOutcome};
pub use position::RunPosition;
pub use results::{merge_verify_phase, VerifyPhase};
use setup::{new_instance, new_slot, RampStats};
use slow_swings::resolves_slow_swings;
pub use slow_swings::SLOW_SWING_MIN_DEVICE_NS;
pub use warmup::{Warmup, WarmupEnd};

use std::sync::atomic::{AtomicBool, Ordering};

use crate::device::{Device, DeviceError, DeviceInfo, HostUsage, IoCompletion, IoRequest};
use crate::job::pattern::{IoPattern, NextIo, PatternError};
use crate::job::{JobFile, JobSpec, SteadyState};
use crate::stats::{SeriesRecorder, SteadyStateTracker};

/// How often (in completions) the stop flag is read and progress reported; a power of two.
const CHECK_EVERY: u64 = 4096;
/// Device time between stop-flag checks when completions are slow.
const CHECK_EVERY_NS: u64 = 1_000_000_000;
/// fio's steady-state sampling interval (`ss_interval`), before time scaling.
const SS_INTERVAL_NS: u64 = 1_000_000_000;

/// Progress report: `fraction` of the whole run (0..=1), by time or by bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunProgress {
    pub group: usize,
    pub groups: usize,
    pub fraction: f64,
}

/// Caller controls for a run.
pub struct RunOptions<'a> {
    /// Master seed; job `j`, clone `k` draws from ChaCha8 stream `(j << 20) | k` of it.
    pub seed: u64,
    /// Multiplies every duration of the job file (runtime, ramp_time, ss_dur, ss_ramp and the
    /// steady-state sampling interval), e.g. 0.01 for a drive simulated at 1/100 capacity.
    pub time_scale: f64,
    /// Time-series interval (not scaled). Default 1 s.
    pub series_interval_ns: u64,
    /// Set to stop early: read every few thousand completions, then outstanding I/O drains.
    pub stop: Option<&'a AtomicBool>,
    /// Called every few thousand completions and at the end of each group.
    pub progress: Option<&'a mut dyn FnMut(RunProgress)>,
    /// Receives every submitted I/O (fio's `write_iolog`), in submission order, a few thousand
    /// at a time; `None` costs one branch per I/O.
    pub on_submit: Option<SubmitHook<'a>>,
    /// Receives every measured completion (fio's bandwidth, IOPS and latency logs), in
    /// completion order, a few thousand at a time; `None` costs one branch per I/O.
    pub on_complete: Option<CompleteHook<'a>>,
    /// Job sections and groups the drive has run before (a drive restored from a snapshot):
    /// this run's jobs draw the random streams, and report the group ids, that they would have
    /// had in one uninterrupted run, so continuing from a snapshot gives the same bytes.
    pub continued: RunPosition,
    /// Earlier runs of the same session. fio reseeds a job with `randrepeat=0` from the clock
    /// at every invocation; here such a job's streams are keyed by this count instead, so a
    /// session's runs draw different offsets while the whole session still repeats from `seed`.
    pub reseed: u32,
}

impl RunOptions<'_> {
    pub fn new(seed: u64) -> Self {
        RunOptions {
            seed,
            time_scale: 1.0,
            series_interval_ns: 1_000_000_000,
            stop: None,
            progress: None,
            on_submit: None,
            on_complete: None,
            continued: RunPosition::default(),
            reseed: 0,
        }
    }
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Pattern(#[from] PatternError),
    #[error("job '{job}': device error: {source}")]
    Device { job: String, source: DeviceError },
    #[error("device returned a completion with unknown tag {tag}")]
    UnknownTag { tag: u64 },
    #[error("time_scale = {0} is out of range (allowed a finite number > 0)")]
    BadTimeScale(f64),
    #[error("job '{job}': {message}")]
    Iolog { job: String, message: String },
    /// A run that cannot be paused and resumed as asked (see [`run_or_pause`]).
    #[error("{0}")]
    NotResumable(String),
}

/// Runs every group of `file` on `dev`, one group after another. Generic, so a concrete
/// target's calls inline into the per-I/O loop; `&mut dyn Device` works too. (To pause at an
/// instant and continue later, see [`run_or_pause`].)
pub fn run<D: Device + ?Sized>(file: &JobFile, dev: &mut D, opts: &mut RunOptions) -> Result<RunResult, RunError> {
    match run_or_pause(file, dev, opts, None, None)? {
        RunOutcome::Done(r) => Ok(r),
        // Without a pause instant the run never pauses.
        RunOutcome::Paused(p) => Err(RunError::NotResumable(format!("paused at {} ns unasked", p.at_ns))),
    }
}

/// Gives each job of a group its share of the group's host usage, by I/Os completed.
fn share_host_usage(results: &mut [JobResult], used: HostUsage) {
    let ios = |r: &JobResult| r.dirs.iter().map(|d| d.ios).sum::<u64>();
    let total: u64 = results.iter().map(ios).sum();
    let n = results.len().max(1) as f64;
    for r in results.iter_mut() {
        let share = if total == 0 { 1.0 / n } else { ios(r) as f64 / total as f64 };
        r.host_usage = Some(used.share(share));
    }
}

/// `ns` cut to whole milliseconds: fio counts each thread's run time in ms before adding them.
fn whole_ms(ns: u64) -> u64 {
    ns / 1_000_000 * 1_000_000
}

fn stop_requested(opts: &RunOptions) -> bool {
    opts.stop.is_some_and(|s| s.load(Ordering::Relaxed))
}

fn scale(ns: u64, f: f64) -> u64 {
    nand_model::cast::sat_u64((ns as f64 * f).round())
}

/// Accumulating result of one reported job while its group runs.
#[derive(serde::Serialize, serde::Deserialize)]
struct Slot {
    result: JobResult,
    series: SeriesRecorder,
    ss_all_reached: bool,
    /// What completed during `ramp_time`. fio resets a job's statistics when its ramp ends; a
    /// job that finishes (size-based) before that keeps them, so they are reported instead.
    ramp: Option<Box<RampStats>>,
    /// `io_submit_mode=offload`: fio's workers each see their own depth of 1.
    offload: bool,
}

/// A group of concurrently running instances.
#[derive(serde::Serialize, serde::Deserialize)]
struct GroupRun {
    /// Submissions not yet passed to `RunOptions::on_submit` (only when it is set; a run
    /// with per-I/O logs is not paused, so these are never saved).
    #[serde(skip)]
    submitted: Option<Vec<SubmittedIo>>,
    /// Completions not yet passed to `RunOptions::on_complete` (only when it is set).
    #[serde(skip)]
    completed: Option<Vec<CompletedIo>>,
    /// Device time the run started (I/O log times are relative to it).
    run_start_ns: u64,
    group: usize,
    groups: usize,
    instances: Vec<Instance>,
    slots: Vec<Slot>,
    live: usize,
    completions: u64,
    /// `flow_id` counters of the group, whether any instance has a `control`, and whether a
    /// flow member left (the others may go on: `control_wake` retries them).
    flows: Vec<flow::FlowShared>,
    controlled: bool,
    flow_left: bool,
    /// Instances of `wait_for` jobs not made yet (a run with them is not saved mid-run), and
    /// whether an instance finished since they were last looked at.
    #[serde(skip)]
    waiting: Vec<wait_for::Waiting>,
    #[serde(skip)]
    instance_finished: bool,
    /// fio `exitall` (any job of the file has it) and each job section's `exit_what`.
    #[serde(default)]
    exit: exitall::ExitRule,
    /// The group runs long enough in device time to average the drive's slow swings
    /// ([`resolves_slow_swings`]).
    #[serde(default)]
    slow_swings: bool,
}

impl GroupRun {
    // The group's place in the file and on the clock: each argument is a different fact.
    #[allow(clippy::too_many_arguments)]
    fn new(
        file: &JobFile,
        members: &[usize],
        group: usize,
        groups: usize,
        info: &DeviceInfo,
        now_ns: u64,
        run_start_ns: u64,
        opts: &RunOptions,
    ) -> Result<Self, RunError> {
        let mut run = GroupRun {
            submitted: opts.on_submit.is_some().then(Vec::new),
            completed: opts.on_complete.is_some().then(Vec::new),
            run_start_ns,
            group,
            groups,
            instances: Vec::new(),
            slots: Vec::new(),
            live: 0,
            completions: 0,
            flows: Vec::new(),
            controlled: false,
            flow_left: false,
            waiting: Vec::new(),
            instance_finished: false,
            exit: exitall::ExitRule::of(file),
            slow_swings: resolves_slow_swings(file, members, opts.time_scale),
        };
        // `group_reporting` merges the jobs of a reporting group into one slot.
        let reporting = reporting_groups(&file.jobs);
        let first_groupid = opts.continued.first_groupid();
        let mut shared_slot: Option<(usize, usize)> = None;
        for &j in members {
            let Some(spec) = file.jobs.get(j) else {
                continue;
            };
            // A job file's absolute sizes are the full-size drive's (see `job::full_scale`):
            // shrunk once per job, for its slot's record and every clone.
            let scaled = spec.at_scale(opts.time_scale);
            let (spec, changed) = scaled.as_ref().map_or((spec, &[][..]), |(s, c)| (s, &c[..]));
            let groupid = first_groupid + reporting.get(j).copied().unwrap_or(0);
            for clone in 0..spec.numjobs {
                let slot = match (spec.group_reporting, shared_slot) {
                    (true, Some((g, s))) if g == groupid => s,
                    _ => {
                        run.slots.push(new_slot(spec, changed, groupid, now_ns, opts));
                        let s = run.slots.len() - 1;
                        if spec.group_reporting {
                            shared_slot = Some((groupid, s));
                        }
                        s
                    }
                };
                let waitee =
                    spec.wait_for.as_ref().and_then(|w| members.iter().copied().find(|&m| file.jobs[m].name == *w));
                if let Some(waitee) = waitee {
                    run.slots[slot].result.instances += 1;
                    run.waiting.push(wait_for::Waiting { spec: spec.clone(), job: j, clone, slot, waitee });
                    continue;
                }
                let inst = new_instance(spec, j, clone, slot, info, now_ns, run_start_ns, opts, &mut run.flows)?;
                run.controlled |= inst.control.is_some();
                let res = &mut run.slots[slot].result;
                res.instances += 1;
                res.start_ns = res.start_ns.min(inst.measure_from_ns);
                run.instances.push(inst);
            }
        }
        run.live = run.instances.len() + run.waiting.len();
        Ok(run)
    }

    /// Announces the group's report grid and fills every instance's queue (not again for a
    /// group restored mid-run: [`GroupRun::run`] continues it).
    fn start<D: Device + ?Sized>(&mut self, dev: &mut D, opts: &RunOptions) -> Result<(), RunError> {
        let origins: Vec<u64> = self.slots.iter().map(|s| s.series.origin_ns()).collect();
        dev.report_grid(&origins, opts.series_interval_ns.max(1));
        dev.resolve_slow_swings(self.slow_swings);
        for i in 0..self.instances.len() {
            self.instances[i].refill(dev).map_err(|message| self.iolog_error(i, message))?;
        }
        let now = dev.now_ns();
        for i in 0..self.instances.len() {
            self.kick(dev, i, now)?;
        }
        if self.instance_finished {
            self.wake_waiters(dev, opts)?;
        }
        Ok(())
    }

    /// Fills a new instance's queue (or, paced, leaves it to its arrivals); it may be done at once.
    fn kick<D: Device + ?Sized>(&mut self, dev: &mut D, i: usize, now: u64) -> Result<(), RunError> {
        if self.instances[i].control.is_some() {
            self.fill_controlled(dev, i, now)?;
        } else if !self.instances[i].paced() {
            while self.instances[i].outstanding < self.instances[i].iodepth && self.instances[i].can_issue(now) {
                self.submit(dev, i, now)?;
            }
        }
        self.check_done(dev, i, now);
        Ok(())
    }

    /// Runs until every instance is done (`Some(interrupted)`), or until the first event at or
    /// after `pause_at_ns` (`None`: the state is whole there, to save and continue).
    fn run<D: Device + ?Sized>(
        &mut self,
        dev: &mut D,
        opts: &mut RunOptions,
        pause_at_ns: u64,
    ) -> Result<Option<bool>, RunError> {
        let mut open_loop = self.instances.iter().any(Instance::paced);
        let mut interrupted = false;
        let mut iterations = 0u64;
        // The next time-based check: each second of device time (slow real drives), or the pause.
        let mut next_check_ns = dev.now_ns().saturating_add(CHECK_EVERY_NS).min(pause_at_ns);
        while self.live > 0 {
            let deadline = self.next_deadline(dev, open_loop)?;
            if self.instance_finished && !self.waiting.is_empty() {
                // Waiters may start (and an idle device would otherwise end the loop).
                self.wake_waiters(dev, opts)?;
                open_loop = self.instances.iter().any(Instance::paced);
                continue;
            }
            if self.live == 0 {
                break;
            }
            let now_ns = match dev.wait(deadline).map_err(|e| self.device_error(0, e))? {
                Some(c) => {
                    self.on_completion(dev, c)?;
                    c.complete_ns
                }
                None => match deadline {
                    Some(d) => d,
                    None => break,
                },
            };
            // Every few thousand iterations, or each second of device time (slow real drives).
            iterations += 1;
            if iterations & (CHECK_EVERY - 1) == 0 || now_ns >= next_check_ns {
                if now_ns >= pause_at_ns {
                    return Ok(None);
                }
                next_check_ns = now_ns.saturating_add(CHECK_EVERY_NS).min(pause_at_ns);
                if stop_requested(opts) && !interrupted {
                    interrupted = true;
                    self.instances.iter_mut().for_each(|i| i.stopped = true);
                    self.drop_waiters(now_ns);
                }
                self.report_progress(now_ns, opts);
                self.flush_submitted(opts);
            }
        }
        dev.report_point();
        self.report_progress(dev.now_ns(), opts);
        self.flush_submitted(opts);
        Ok(Some(interrupted))
    }

    /// Submits due open-loop arrivals; returns the next arrival time to wait for.
    fn open_loop_arrivals<D: Device + ?Sized>(&mut self, dev: &mut D) -> Result<Option<u64>, RunError> {
        let now = dev.now_ns();
        let mut next: Option<u64> = None;
        for i in 0..self.instances.len() {
            let inst = &self.instances[i];
            if !inst.paced() || inst.finished {
                continue;
            }
            loop {
                let inst = &mut self.instances[i];
                if inst.rate.is_some() {
                    inst.fetch_rated(now);
                }
                if !(inst.next_arrival_ns <= now && inst.outstanding < inst.iodepth && inst.can_issue(now)) {
                    break;
                }
                self.submit(dev, i, now)?;
                self.instances[i].schedule_next_arrival(now);
            }
            self.check_done(dev, i, now);
            let inst = &self.instances[i];
            if !inst.finished && inst.can_issue(now) && inst.outstanding < inst.iodepth {
                let t = inst.next_arrival_ns.min(inst.end_ns);
                next = Some(next.map_or(t, |n: u64| n.min(t)));
            }
        }
        Ok(next)
    }

    #[inline]
    fn on_completion<D: Device + ?Sized>(&mut self, dev: &mut D, c: IoCompletion) -> Result<(), RunError> {
        self.completions += 1;
        let index = c.tag & ((1 << offsets::INSTANCE_BITS) - 1);
        let idx = usize::try_from(index).ok().filter(|&i| i < self.instances.len());
        let Some(i) = idx else {
            return Err(RunError::UnknownTag { tag: c.tag });
        };
        let inst = &mut self.instances[i];
        inst.outstanding = inst.outstanding.saturating_sub(1);
        let offset_bytes = inst.offsets.as_mut().map_or(0, |o| o.release(c.tag));
        let lat = c.complete_ns.saturating_sub(c.submit_ns);
        if c.complete_ns >= inst.measure_from_ns {
            let slot = &mut self.slots[inst.slot];
            let d = &mut slot.result.dirs[c.dir.index()];
            d.clat.record(lat);
            d.io_bytes += u64::from(c.len_bytes);
            d.ios += 1;
            slot.series.record(c.dir.index(), c.complete_ns, c.len_bytes, lat);
            slot.result.end_ns = slot.result.end_ns.max(c.complete_ns);
            if let Some(log) = self.completed.as_mut() {
                log.push(CompletedIo {
                    job: inst.job,
                    clone: inst.clone,
                    submit_ns: c.submit_ns.saturating_sub(inst.start_ns),
                    complete_ns: c.complete_ns.saturating_sub(inst.start_ns),
                    dir: c.dir,
                    len_bytes: c.len_bytes,
                    offset_bytes,
                });
            }
        } else if let Some(ramp) = self.slots[inst.slot].ramp.as_mut() {
            let d = &mut ramp.dirs[c.dir.index()];
            d.clat.record(lat);
            d.io_bytes += u64::from(c.len_bytes);
            d.ios += 1;
            ramp.series.record(c.dir.index(), c.complete_ns, c.len_bytes, lat);
            ramp.end_ns = ramp.end_ns.max(c.complete_ns);
        }
        if let Some(ss) = inst.ss.as_mut() {
            if ss.record(c.complete_ns, c.len_bytes) && inst.ss_reached_ns.is_none() {
                inst.ss_reached_ns = Some(c.complete_ns);
                inst.stopped = true;
            }
        }
        let max_ns = inst.max_latency_ns[c.dir.index()];
        if lat > max_ns {
            inst.stopped = true;
            let r = &mut self.slots[inst.slot].result;
            r.fatal = r.fatal.or(Some(JobFatal::MaxLatency { dir: c.dir, latency_ns: lat, max_ns }));
        }
        if let Some(m) = inst.min_rate.as_mut() {
            m.completed(c.dir, c.len_bytes);
            let miss =
                if c.complete_ns >= inst.measure_from_ns && !inst.stopped { m.check(c.complete_ns) } else { None };
            if let Some(miss) = miss {
                inst.stopped = true;
                let r = &mut self.slots[inst.slot].result;
                r.fatal = r.fatal.or(Some(JobFatal::MinRate(miss)));
            }
        }
        let now = dev.now_ns();
        if inst.waiting_slot {
            inst.waiting_slot = false;
            inst.next_arrival_ns = c.complete_ns.saturating_add(inst.ahead.front().map_or(0, |e| e.1));
        }
        if inst.rate.is_some() {
            // Fetch now, so the next arrival (if any before the end) is known.
            inst.fetch_rated(now);
        }
        if inst.control.is_some() {
            return self.controlled_completion(dev, i, c, now);
        }
        if !inst.paced() && inst.can_issue(now) {
            self.submit(dev, i, now)?;
        } else if inst.rate.is_some()
            && inst.outstanding == 0
            && (inst.next_arrival_ns >= inst.end_ns || now >= inst.end_ns)
        {
            // An open-loop instance's last completion: it ends its job's span, though the
            // instance is done only at its end time.
            dev.report_point();
        }
        self.check_done(dev, i, now);
        Ok(())
    }

    #[inline]
    fn submit<D: Device + ?Sized>(&mut self, dev: &mut D, i: usize, now_ns: u64) -> Result<(), RunError> {
        let inst = &mut self.instances[i];
        let Some(io) = inst.next_io(dev).map_err(|message| self.iolog_error(i, message))? else {
            return Ok(());
        };
        let inst = &mut self.instances[i];
        if let Some(r) = inst.rate.as_mut() {
            r.issued(io.dir, io.len_bytes);
        }
        let held = inst.offsets.as_mut().map_or(0, |o| o.hold(io.offset_bytes));
        let req =
            IoRequest { tag: i as u64 | held, dir: io.dir, offset_bytes: io.offset_bytes, len_bytes: io.len_bytes };
        inst.outstanding += 1;
        inst.issued_bytes += u64::from(io.len_bytes);
        inst.issued_ios += 1;
        let depth = inst.outstanding;
        if let Some(log) = self.submitted.as_mut() {
            log.push(SubmittedIo {
                job: inst.job,
                clone: inst.clone,
                time_ns: now_ns.saturating_sub(self.run_start_ns),
                dir: io.dir,
                offset_bytes: io.offset_bytes,
                len_bytes: io.len_bytes,
            });
        }
        if now_ns >= inst.measure_from_ns {
            self.slots[inst.slot].result.iodepth_levels[depth_bucket(depth)] += 1;
        } else if let Some(ramp) = self.slots[inst.slot].ramp.as_mut() {
            ramp.iodepth_levels[depth_bucket(depth)] += 1;
        }
        dev.submit(req).map_err(|e| self.device_error(i, e))
    }

    fn check_done<D: Device + ?Sized>(&mut self, dev: &mut D, i: usize, now_ns: u64) {
        let inst = &mut self.instances[i];
        if !inst.finished && inst.outstanding == 0 && !inst.can_issue(now_ns) {
            if self.still_thinking(i, now_ns) {
                return;
            }
            let inst = &mut self.instances[i];
            inst.finished = true;
            self.slots[inst.slot].result.instances_runtime_ns += whole_ms(now_ns.saturating_sub(inst.measure_from_ns));
            self.live -= 1;
            self.instance_finished = true;
            dev.report_point();
            if inst.control.is_some() {
                self.controlled_finished(i);
            }
            if self.exit.on {
                self.end_others(dev, i, now_ns);
            }
        }
    }
}

/// fio's iodepth_level buckets: 1, 2, 4, 8, 16, 32, >=64.
#[inline]
fn depth_bucket(depth: u32) -> usize {
    match depth {
        0..=1 => 0,
        64.. => 6,
        d => (32 - (d - 1).leading_zeros()).min(5) as usize,
    }
}
