//! Running fio jobs on a simulated drive: build the drive from a profile and options, run job
//! files on it (several in a row on the same drive state, as suites precondition then measure),
//! and write results with the drive's own counters beside fio's: the `"ssdlab"` objects of the
//! JSON and the extra columns of the time-series CSV.

use crate::drive_stats::{DriveStats, EraseCount, RunStats, ScaleStats, SimHeader, SteadyStateStats, SCALE_NOTE};
use crate::explore::{Observed, Recorder};
use crate::job::JobFile;
use crate::limits::LimitShares;
use crate::report::{fio_json, series_csv, ExtraColumn, JsonOptions};
use crate::runner::{
    run, CompleteHook, JobResult, RunError, RunOptions, RunPosition, RunProgress, RunResult, SubmitHook,
};
use crate::sim::{CounterSample, SimTarget};
use crate::stats::{iops_per_window, SampleSummary, DEVICE_SECOND_NS};
use ftl::device::{Counters, DeviceError, DeviceOptions, SimSsd};
use ftl::profile::{self, ProfileError, ValidatedProfile};
use ftl::GcPolicy;
use nand_model::governor::PowerInterval;
use nand_model::SimTime;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::atomic::AtomicBool;

/// Largest simulated drive chosen automatically: 2^24 mapping units (64 GiB of NAND at 4 KiB),
/// about 130 MiB of mapping tables, which simulates in seconds per drive write.
pub const AUTO_SCALE_MAX_UNITS: u64 = 1 << 24;

/// Everything that defines a simulated run besides the job file. Recorded in every result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimConfig {
    /// Embedded profile name or path of a profile TOML.
    pub drive: String,
    /// User capacity at full scale (bytes); default the profile's stock capacity.
    pub user_capacity_bytes: Option<u64>,
    /// Or OP as a fraction: (raw - user) / user.
    pub op: Option<f64>,
    /// Divide the drive by this; `None` = automatic (see [`AUTO_SCALE_MAX_UNITS`]).
    pub scale_divisor: Option<u32>,
    pub seed: u64,
    pub gc_policy: Option<GcPolicy>,
    pub hot_cold_separation: Option<bool>,
    pub plp: Option<bool>,
    /// Time-series interval of simulated time, ns.
    pub interval_ns: u64,
    /// NVMe power state (index into the profile's `power.states_w`): its maximum power is the cap.
    pub power_state: Option<usize>,
    /// Power cap, W (with a power state too, the lower of the two holds).
    pub power_cap_w: Option<f64>,
}

impl SimConfig {
    pub fn new(drive: impl Into<String>, seed: u64) -> Self {
        SimConfig {
            drive: drive.into(),
            user_capacity_bytes: None,
            op: None,
            scale_divisor: None,
            seed,
            gc_policy: None,
            hot_cold_separation: None,
            plp: None,
            interval_ns: 1_000_000_000,
            power_state: None,
            power_cap_w: None,
        }
    }
}

/// Why a simulated run could not start.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error(transparent)]
    Profile(#[from] ProfileError),
    #[error("{drive}: {source}")]
    Device { drive: String, source: DeviceError },
    #[error("--power-state {index}: {drive} has power states 0..={last} ({states})")]
    PowerState { drive: String, index: usize, last: usize, states: String },
    #[error("--power-cap {0} W is out of range (allowed a finite number > 0)")]
    PowerCap(f64),
    #[error(transparent)]
    Snapshot(#[from] crate::snapshot::SnapshotError),
}

/// Meter interval: fine enough to split short (scaled) jobs, ns.
const METER_INTERVAL_NS: u64 = 10_000_000;

/// The cap `cfg` asks for on `profile`: the power state's maximum power and/or `--power-cap`.
pub fn resolve_cap(cfg: &SimConfig, profile: &ValidatedProfile) -> Result<Option<f64>, SimError> {
    let states = &profile.profile.power.states_w;
    let from_state = match cfg.power_state {
        Some(i) => match states.get(i) {
            Some(&w) => Some(w),
            None => {
                let list =
                    states.iter().enumerate().map(|(i, w)| format!("PS{i} {w} W")).collect::<Vec<_>>().join(", ");
                return Err(SimError::PowerState {
                    drive: profile.profile.name.clone(),
                    index: i,
                    last: states.len().saturating_sub(1),
                    states: list,
                });
            }
        },
        None => None,
    };
    if let Some(c) = cfg.power_cap_w {
        if !(c.is_finite() && c > 0.0) {
            return Err(SimError::PowerCap(c));
        }
    }
    Ok(match (from_state, cfg.power_cap_w) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    })
}

/// The automatic scale divisor for a profile: the smallest power of two that brings the NAND
/// under [`AUTO_SCALE_MAX_UNITS`] mapping units.
pub fn auto_scale(p: &ValidatedProfile) -> u32 {
    let units = p.raw_bytes() / p.profile.controller.mapping_unit_bytes as u64;
    let mut d = 1u32;
    while units / d as u64 > AUTO_SCALE_MAX_UNITS && d < (1 << 20) {
        d *= 2;
    }
    d
}

/// A simulated drive with its configuration, ready to run jobs.
pub struct SimSession {
    pub cfg: SimConfig,
    pub profile: ValidatedProfile,
    pub target: SimTarget,
    pub scale_divisor: u32,
    /// The cap in force, W (`None` = uncapped).
    pub power_cap_w: Option<f64>,
    /// Job sections and groups the drive ran before this session's runs (restored from a
    /// snapshot, or a sweep's shared preconditioning); [`SimSession::run`] continues from it.
    pub position: RunPosition,
    /// Runs started in this session: jobs with `randrepeat=0` draw new offsets in each
    /// ([`RunOptions::reseed`]).
    pub runs: u32,
}

/// Power figures of a span of simulated time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PowerSpan {
    pub avg_w: f64,
    /// Highest meter-bin power: NAND bin + controller idle + standby + the span's average host
    /// datapath power, W; at least `avg_w`.
    pub peak_w: f64,
    pub throttled_ns: u64,
}

impl SimSession {
    pub fn new(cfg: SimConfig) -> Result<SimSession, SimError> {
        Self::build(cfg, None, false)
    }

    /// A session on `profile`, given in memory (a calibration candidate) rather than loaded
    /// from `cfg.drive`, which then only names it.
    pub fn from_profile(cfg: SimConfig, profile: ValidatedProfile) -> Result<SimSession, SimError> {
        Self::build(cfg, Some(profile), false)
    }

    /// A session whose drive keeps write sequences in the spare area, so that
    /// [`ftl::device::SimSsd::power_cut`] can be simulated (more memory; same results).
    pub fn with_power_loss(cfg: SimConfig) -> Result<SimSession, SimError> {
        Self::build(cfg, None, true)
    }

    fn build(cfg: SimConfig, profile: Option<ValidatedProfile>, track_sequence: bool) -> Result<SimSession, SimError> {
        let (profile, opts) = Self::prepare_with(&cfg, profile, track_sequence)?;
        let ssd =
            SimSsd::new(&profile, &opts).map_err(|source| SimError::Device { drive: cfg.drive.clone(), source })?;
        Ok(Self::with_drive(cfg, profile, &opts, ssd))
    }

    /// The profile (`profile` when given, else the one `cfg.drive` names) and the device
    /// options `cfg` asks for (checked: power state, cap).
    pub(crate) fn prepare_with(
        cfg: &SimConfig,
        profile: Option<ValidatedProfile>,
        track_sequence: bool,
    ) -> Result<(ValidatedProfile, DeviceOptions), SimError> {
        let profile = match profile {
            Some(p) => p,
            None => profile::load(&cfg.drive)?,
        };
        let scale_divisor = cfg.scale_divisor.unwrap_or_else(|| auto_scale(&profile));
        let power_cap_w = resolve_cap(cfg, &profile)?;
        let opts = DeviceOptions {
            scale_divisor,
            user_capacity_bytes: cfg.user_capacity_bytes,
            op: cfg.op,
            gc_policy: cfg.gc_policy,
            hot_cold_separation: cfg.hot_cold_separation,
            plp: cfg.plp,
            track_sequence,
            power_cap_w,
            power_meter_interval_ns: Some(SimTime::from_ns(cfg.interval_ns.clamp(1, METER_INTERVAL_NS))),
        };
        Ok((profile, opts))
    }

    /// A session around a drive already built (or restored) for `cfg`.
    pub(crate) fn with_drive(cfg: SimConfig, profile: ValidatedProfile, opts: &DeviceOptions, ssd: SimSsd) -> Self {
        let target = SimTarget::new(ssd, profile.profile.name.clone(), cfg.interval_ns);
        SimSession {
            cfg,
            profile,
            target,
            scale_divisor: opts.scale_divisor,
            power_cap_w: opts.power_cap_w,
            position: RunPosition::default(),
            runs: 0,
        }
    }

    /// full raw / simulated raw.
    pub fn scale_factor(&self) -> f64 {
        self.target.ssd.capacity().scale_factor
    }

    /// Runs `job` on the drive as it is now. Runtimes are shortened by the scale factor so that
    /// the same fraction of the drive is written as on the full-size drive.
    pub fn run<'a>(
        &mut self,
        job: &JobFile,
        stop: Option<&'a AtomicBool>,
        progress: Option<&'a mut dyn FnMut(RunProgress)>,
    ) -> Result<RunResult, RunError> {
        self.run_logged(job, stop, progress, None, None)
    }

    /// [`SimSession::run`], passing every submitted I/O to `on_submit` (fio's `write_iolog`)
    /// and every measured completion to `on_complete` (fio's bandwidth/IOPS/latency logs).
    pub fn run_logged<'a>(
        &mut self,
        job: &JobFile,
        stop: Option<&'a AtomicBool>,
        progress: Option<&'a mut dyn FnMut(RunProgress)>,
        on_submit: Option<SubmitHook<'a>>,
        on_complete: Option<CompleteHook<'a>>,
    ) -> Result<RunResult, RunError> {
        self.run_with(job, stop, progress, on_submit, on_complete, None)
    }

    /// [`Self::run`] with a recorder watching the drive (`ssdlab explore`); the results are
    /// the same with or without one.
    pub fn run_observed<'a>(
        &mut self,
        job: &JobFile,
        stop: Option<&'a AtomicBool>,
        progress: Option<&'a mut dyn FnMut(RunProgress)>,
        recorder: Option<&mut Recorder>,
    ) -> Result<RunResult, RunError> {
        self.run_with(job, stop, progress, None, None, recorder)
    }

    fn run_with<'a>(
        &mut self,
        job: &JobFile,
        stop: Option<&'a AtomicBool>,
        progress: Option<&'a mut dyn FnMut(RunProgress)>,
        on_submit: Option<SubmitHook<'a>>,
        on_complete: Option<CompleteHook<'a>>,
        recorder: Option<&mut Recorder>,
    ) -> Result<RunResult, RunError> {
        let mut opts = self.run_options(stop, progress);
        self.runs = self.runs.saturating_add(1);
        opts.on_submit = on_submit;
        opts.on_complete = on_complete;
        match recorder {
            None => run(job, &mut self.target, &mut opts),
            Some(rec) => run(job, &mut Observed { target: &mut self.target, rec }, &mut opts),
        }
    }

    /// The runner's options for a run on this drive: its seed, time scale, series interval and
    /// job numbering.
    pub(crate) fn run_options<'a>(
        &self,
        stop: Option<&'a AtomicBool>,
        progress: Option<&'a mut dyn FnMut(RunProgress)>,
    ) -> RunOptions<'a> {
        let mut opts = RunOptions::new(self.cfg.seed);
        opts.time_scale = 1.0 / self.scale_factor();
        opts.series_interval_ns = self.cfg.interval_ns;
        opts.stop = stop;
        opts.progress = progress;
        opts.continued = self.position;
        opts.reseed = self.runs;
        opts
    }

    /// Counters between two instants of simulated time.
    fn span(&self, from_ns: u64, to_ns: u64) -> (CounterSample, CounterSample) {
        (self.target.sample_at(from_ns), self.target.sample_at(to_ns))
    }

    /// fio JSON of `result` with the `"ssdlab"` objects added ([`Self::job_stats`] per job,
    /// [`Self::run_stats`] at the top).
    pub fn json(&self, result: &RunResult, plus: bool) -> Value {
        self.json_with(result, plus, &self.run_stats(result))
    }

    /// [`Self::json`] with the top-level object given (a replay amends it first).
    pub fn json_with(&self, result: &RunResult, plus: bool, top: &RunStats) -> Value {
        let mut v = fio_json(result, &JsonOptions { plus, timestamp_s: 0, ..Default::default() });
        if let Some(jobs) = v.get_mut("jobs").and_then(Value::as_array_mut) {
            for (jv, jr) in jobs.iter_mut().zip(&result.jobs) {
                if let Some(obj) = jv.as_object_mut() {
                    obj.insert("ssdlab".into(), to_json(&self.job_stats(jr)));
                }
            }
        }
        if let Some(o) = v.as_object_mut() {
            o.insert("ssdlab".into(), to_json(top));
        }
        v
    }

    /// The drive's counters over one job of a result: that job's `"ssdlab"` object.
    pub fn job_stats(&self, job: &JobResult) -> DriveStats {
        let (a, b) = self.span(job.start_ns, job.end_ns);
        self.drive_stats(&a, &b, Some(job))
    }

    /// The run's top-level `"ssdlab"` object: counters over the whole run, seed, configuration.
    pub fn run_stats(&self, result: &RunResult) -> RunStats {
        let (a, b) = self.span(result.start_ns, result.end_ns);
        RunStats {
            span: self.drive_stats(&a, &b, result.jobs.last()),
            header: self.header(),
            interrupted: result.interrupted,
            job_file: result.file.clone(),
        }
    }

    /// The drive's identity and configuration, as every result records it.
    pub fn header(&self) -> SimHeader {
        let c = self.target.ssd.capacity();
        SimHeader {
            version: env!("CARGO_PKG_VERSION").to_string(),
            drive: self.profile.profile.name.clone(),
            profile_source: self.profile.source.clone(),
            seed: self.cfg.seed,
            config: self.cfg.clone(),
            profile: self.profile.profile.clone(),
            scale: ScaleStats {
                divisor: self.scale_divisor,
                factor: c.scale_factor,
                raw_capacity_bytes_simulated: c.raw_bytes_sim,
                user_capacity_bytes_simulated: c.user_bytes_sim,
                note: SCALE_NOTE.to_string(),
            },
            time_scale: 1.0 / self.scale_factor(),
        }
    }

    /// Average and peak power and throttled time over `[a, b)` from the counters and the meter.
    pub fn power_span(&self, a: &CounterSample, b: &CounterSample) -> PowerSpan {
        self.power_span_in(a, b, &self.meter_series())
    }

    /// The power meter's intervals so far (empty without a meter), to share between spans.
    fn meter_series(&self) -> Vec<PowerInterval> {
        self.target.ssd.flash().governor().map(|g| g.series(self.target.ssd.now())).unwrap_or_default()
    }

    /// [`Self::power_span`] over a meter series already taken (it is ordered by start).
    fn power_span_in(&self, a: &CounterSample, b: &CounterSample, meter: &[PowerInterval]) -> PowerSpan {
        let d = delta(&a.counters, &b.counters);
        let secs = (b.t_ns.saturating_sub(a.t_ns)) as f64 / 1e9;
        if secs <= 0.0 {
            return PowerSpan::default();
        }
        let pw = &self.profile.profile.power;
        // The datapath power of every byte NAND operations moved (as `SimSsd::energy_j`).
        let datapath_w = |d: &ftl::device::Counters, secs: f64| {
            pw.host_pj_per_byte * 1e-12 * (d.nand_read_bytes + d.nand_write_bytes) as f64 / secs
        };
        let span_datapath_w = datapath_w(&d, secs);
        let idle_w = pw.controller_idle_w + self.profile.energy.standby_w * self.profile.geometry.dies() as f64;
        let (mut peak, mut thr) = (0.0f64, 0u64);
        let from = meter.partition_point(|iv| iv.start_ns.ns() < a.t_ns);
        let inside = &meter[from..meter.partition_point(|iv| iv.start_ns.ns() < b.t_ns)];
        // Each meter interval's peak rides on that interval's own datapath power (where the
        // counters resolve it), so a span's peak is the highest of its intervals' peaks and
        // never below a shorter span's inside it. An interval's end sample is the next one's start.
        let mut sa = self.target.sample_at(inside.first().map_or(a.t_ns, |iv| iv.start_ns.ns()));
        for (k, iv) in inside.iter().enumerate() {
            let sb = self.target.sample_at(inside.get(k + 1).map_or(b.t_ns, |n| n.start_ns.ns()));
            let dt = sb.t_ns.saturating_sub(sa.t_ns) as f64 / 1e9;
            let dp_w = if dt > 0.0 { datapath_w(&delta(&sa.counters, &sb.counters), dt) } else { span_datapath_w };
            peak = peak.max(idle_w + dp_w + iv.peak_w);
            thr += iv.throttled_ns.ns();
            sa = sb;
        }
        if inside.is_empty() {
            peak = idle_w + span_datapath_w;
        }
        // The meter's intervals are those starting inside the span, so a span that is not on
        // their grid misses the energy of its first part; no span peaks below its own average.
        let avg_w = d.energy_j / secs;
        PowerSpan { avg_w, peak_w: peak.max(avg_w), throttled_ns: thr.min(b.t_ns - a.t_ns) }
    }

    /// Which limits bound the drive during `job` (see [`LimitShares`]).
    pub fn limits(&self, job: &JobResult) -> LimitShares {
        let (a, b) = self.span(job.start_ns, job.end_ns);
        self.limits_over(&a, &b)
    }

    fn limits_over(&self, a: &CounterSample, b: &CounterSample) -> LimitShares {
        let d = delta(&a.counters, &b.counters);
        let held = self.power_span(a, b).throttled_ns;
        LimitShares::from_delta(&d, b.t_ns.saturating_sub(a.t_ns), &self.profile, held)
    }

    fn drive_stats(&self, a: &CounterSample, b: &CounterSample, job: Option<&JobResult>) -> DriveStats {
        let c = self.target.ssd.capacity();
        let d = delta(&a.counters, &b.counters);
        let secs = (b.t_ns.saturating_sub(a.t_ns)) as f64 / 1e9;
        let (min, avg, max) = self.target.ssd.erase_stats();
        let ios = d.host_reads + d.host_writes;
        // Per device second, whatever the series interval (see `stats::iops_per_window`).
        let iops_cov_pct =
            job.map(|j| SampleSummary::from_samples(iops_per_window(&j.series, DEVICE_SECOND_NS)).cov_percent);
        let pw = self.power_span(a, b);
        let avg_w = pw.avg_w;
        let limits = self.limits_over(a, b);
        let steady_state = job.and_then(|j| j.steady_state.as_ref()).map(|s| SteadyStateStats {
            reached: s.reached,
            time_s: s.reached_at_ns.map(|t| t as f64 / 1e9),
            criteria: format!("{:?}", s.criterion),
        });
        DriveStats {
            user_capacity_bytes: c.user_bytes_full,
            raw_capacity_bytes: c.raw_bytes_full,
            op_pct: c.op * 100.0,
            power_cap_w: self.power_cap_w,
            power_state: self.cfg.power_state,
            host_write_bytes: d.host_write_bytes,
            host_read_bytes: d.host_read_bytes,
            nand_write_bytes: d.nand_write_bytes,
            gc_write_bytes: d.gc_write_bytes,
            rmw_reads: d.rmw_reads,
            write_amplification: d.wa(),
            gc_victims: d.gc_victims,
            erases: d.erases,
            erase_count: EraseCount { min, avg, max },
            free_blocks: b.counters.free_blocks,
            gc_stall_s: d.gc_stall_ns as f64 / 1e9,
            buffer_stall_s: d.buffer_stall_ns as f64 / 1e9,
            energy_j: d.energy_j,
            avg_power_w: avg_w,
            energy_per_io_uj: if ios > 0 { d.energy_j / ios as f64 * 1e6 } else { 0.0 },
            peak_power_w: pw.peak_w,
            iops_per_w: if avg_w > 0.0 && secs > 0.0 { ios as f64 / secs / avg_w } else { 0.0 },
            throttled_s: pw.throttled_ns as f64 / 1e9,
            throttled_pct: if secs > 0.0 { pw.throttled_ns as f64 / 1e9 / secs * 100.0 } else { 0.0 },
            governor_held_ops_total: self.target.ssd.flash().governor().map(|g| g.stats().held_ops),
            iops_cov_pct,
            steady_state,
            span_s: secs,
            warmup: job.and_then(|j| j.warmup),
            scaled_sizes: job.map(|j| j.scaled_sizes.clone()).unwrap_or_default(),
            limits,
            binding_limit: limits.binding(),
        }
    }

    /// Time-series CSV of one job with the drive's counters per interval appended.
    pub fn timeseries_csv(&self, job: &JobResult) -> Result<String, csv::Error> {
        let n = job.series.len();
        let (mut wa, mut free, mut gc_mbps, mut power) =
            (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut peak, mut thr) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let meter = self.meter_series();
        for p in &job.series {
            let t0 = job.start_ns + p.start_ns;
            let t1 = t0 + p.duration_ns;
            let (a, b) = self.span(t0, t1);
            let d = delta(&a.counters, &b.counters);
            let secs = (b.t_ns.saturating_sub(a.t_ns)) as f64 / 1e9;
            wa.push(d.wa());
            free.push(b.counters.free_blocks as f64);
            gc_mbps.push(if secs > 0.0 { d.gc_write_bytes as f64 / secs / 1e6 } else { 0.0 });
            let pw = self.power_span_in(&a, &b, &meter);
            power.push(pw.avg_w);
            peak.push(pw.peak_w);
            thr.push(if secs > 0.0 { pw.throttled_ns as f64 / 1e9 / secs * 100.0 } else { 0.0 });
        }
        series_csv(
            &job.series,
            &[
                ExtraColumn { name: "wa", values: &wa },
                ExtraColumn { name: "free_blocks", values: &free },
                ExtraColumn { name: "gc_write_mbps", values: &gc_mbps },
                ExtraColumn { name: "power_w", values: &power },
                ExtraColumn { name: "peak_power_w", values: &peak },
                ExtraColumn { name: "throttled_pct", values: &thr },
            ],
        )
    }
}

/// b - a for every cumulative counter (gauges such as free blocks are taken from b).
pub fn delta(a: &Counters, b: &Counters) -> Counters {
    Counters {
        host_read_bytes: b.host_read_bytes - a.host_read_bytes,
        host_write_bytes: b.host_write_bytes - a.host_write_bytes,
        host_trim_bytes: b.host_trim_bytes - a.host_trim_bytes,
        host_reads: b.host_reads - a.host_reads,
        host_writes: b.host_writes - a.host_writes,
        nand_write_bytes: b.nand_write_bytes - a.nand_write_bytes,
        nand_read_bytes: b.nand_read_bytes - a.nand_read_bytes,
        gc_write_bytes: b.gc_write_bytes - a.gc_write_bytes,
        gc_victims: b.gc_victims - a.gc_victims,
        erases: b.erases - a.erases,
        free_blocks: b.free_blocks,
        gc_stall_ns: b.gc_stall_ns - a.gc_stall_ns,
        buffer_stall_ns: b.buffer_stall_ns - a.buffer_stall_ns,
        energy_j: b.energy_j - a.energy_j,
        rmw_reads: b.rmw_reads - a.rmw_reads,
        die_busy_ns: b.die_busy_ns - a.die_busy_ns,
    }
}

/// A stats struct as JSON. Its fields are numbers, strings, options and plain structs, which
/// always serialise (non-finite numbers become `null`, as `json!` wrote them).
fn to_json<T: Serialize>(x: &T) -> Value {
    serde_json::to_value(x).unwrap_or(Value::Null)
}
