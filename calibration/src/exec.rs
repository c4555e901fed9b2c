//! Running plans on simulated drives.
//!
//! Plans that share a drive, a user capacity and a state form a group that runs on one
//! simulated drive in a fixed order: a sequential fill, the read measurements, the sequential
//! writes, then (steady state) random writes to steady state and the random-write and mixed
//! measurements. Preconditioning once per group instead of once per row keeps runtimes short;
//! groups run in parallel over the cores. Run lengths are counted in I/Os relative to the
//! simulated drive, so they mean the same at any scale: 2 drive writes of preconditioning, a
//! quarter of a drive write (at least 200k I/Os) per random-write measurement.

use crate::plan::{BlockSize, Metric, Phase, Plan};
use ftl::ValidatedProfile;
use host_bench::drive_stats::DriveStats;
use host_bench::job::{JobFile, JobSpec, RwMode, SizeSpec};
use host_bench::limits::LimitShares;
use host_bench::report::{job_figures, DirFigures, FioJobJson, JobFigures};
use host_bench::simrun::{SimConfig, SimSession};
use host_bench::stats::{stability_full_scale_s, DEVICE_SECOND_NS};
use host_bench::suites::ezfio::EZFIO_STABILITY_S;
use nand_model::rng::{RngStreams, StreamId};
use rayon::prelude::*;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// How to run: the simulated scale, the master seed and the stop token.
#[derive(Clone, Debug)]
pub struct RunSettings {
    /// None = automatic (`host_bench::simrun::auto_scale`).
    pub scale_divisor: Option<u32>,
    pub seed: u64,
    /// Set (by a signal) to stop: simulations under way end early and are not reported, rows
    /// not started are not run; rows finished before keep their results.
    pub stop: Option<Arc<AtomicBool>>,
    /// Start every group from this saved drive (`ssdlab drive precondition`) instead of a new
    /// one: its fill and preconditioning replace the plan's own; a group whose capacity or
    /// scale differs from the snapshot's is refused.
    pub from_drive: Option<std::path::PathBuf>,
    /// Profiles by their names, for drives not embedded (or to replace an embedded one): a
    /// plan whose drive names one runs on it.
    pub profiles: Vec<Arc<ValidatedProfile>>,
}

impl Default for RunSettings {
    fn default() -> Self {
        RunSettings { scale_divisor: None, seed: 1, stop: None, from_drive: None, profiles: Vec::new() }
    }
}

impl RunSettings {
    /// The profile given for drive `name`, if any (see [`Self::profiles`]).
    pub fn profile_named(&self, name: &str) -> Option<&ValidatedProfile> {
        self.profiles.iter().map(|p| &**p).find(|p| p.profile.name == name)
    }

    /// The stop token is set: results from now on are incomplete.
    pub fn stopped(&self) -> bool {
        self.stop.as_deref().is_some_and(|s| s.load(Ordering::SeqCst))
    }
}

/// Why a row has no result when the run was stopped.
pub const NOT_RUN_INTERRUPTED: &str = "not run: interrupted";

/// A plan's simulated figure and the facts needed to read it.
#[derive(Clone, Debug)]
pub struct Prediction {
    pub value: f64,
    /// Write amplification during the measurement (0 for reads).
    pub wa: f64,
    pub scale_divisor: u32,
    /// Block length the run simulated against the full-size drive's (scaling shortens blocks).
    pub block_word_lines: BlockLength,
    /// Resource shares during the measured job (for relative rows: the capped run's).
    pub limits: LimitShares,
}

/// Word lines per block: simulated, and on the full-size drive. Below
/// [`ftl::layout::MIN_BLOCKS_PER_PLANE`] blocks per plane a reduced drive has shorter blocks;
/// figures set by GC's per-block rhythm (a mix's per-second spread, docs/scale.md) depend on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BlockLength {
    pub simulated: u32,
    pub full_size: u32,
}

/// Runs every plan; results are in the order of `plans`. A plan whose drive cannot be built
/// or whose run fails gets an error message instead of a value.
pub fn run_plans(plans: &[Plan], s: &RunSettings) -> Vec<Result<Prediction, String>> {
    run_plans_on(plans, s, None)
}

/// [`run_plans`] on `profile` (a calibration candidate, in memory) instead of the profiles the
/// plans' `drive` names, when given; `drive` then only groups and names the runs.
pub fn run_plans_on(
    plans: &[Plan],
    s: &RunSettings,
    profile: Option<&ValidatedProfile>,
) -> Vec<Result<Prediction, String>> {
    // A relative row is two IOPS runs of its workload: at its cap (in its own place) and
    // without a cap (appended); its value is their ratio.
    let mut runs: Vec<Plan> = plans.to_vec();
    let mut uncapped_run = vec![None; plans.len()];
    for (i, p) in plans.iter().enumerate() {
        if p.metric == Metric::RelativeIops {
            runs[i].metric = Metric::Iops;
            let mut free = runs[i].clone();
            free.power_cap_w = None;
            uncapped_run[i] = Some(runs.len());
            runs.push(free);
        }
    }
    let raw = run_each(&runs, s, profile);
    (0..plans.len())
        .map(|i| match uncapped_run[i] {
            None => raw[i].clone(),
            Some(j) => match (&raw[i], &raw[j]) {
                (Ok(capped), Ok(free)) if free.value > 0.0 => {
                    Ok(Prediction { value: capped.value / free.value, ..capped.clone() })
                }
                (Ok(_), Ok(_)) => Err("the uncapped run completed no I/O".into()),
                (Err(e), _) | (_, Err(e)) => Err(e.clone()),
            },
        })
        .collect()
}

/// Runs every plan as it is; results in the order of `plans`.
fn run_each(plans: &[Plan], s: &RunSettings, profile: Option<&ValidatedProfile>) -> Vec<Result<Prediction, String>> {
    let groups = group(plans);
    let done: Vec<Vec<(usize, Result<Prediction, String>)>> =
        groups.par_iter().map(|members| run_group(plans, members, s, profile)).collect();
    let mut out: Vec<Result<Prediction, String>> = vec![Err("not run".into()); plans.len()];
    for (i, r) in done.into_iter().flatten() {
        out[i] = r;
    }
    out
}

/// Plan indices grouped by (drive, capacity, steady), in first-appearance order, each group
/// sorted by phase then appearance.
pub fn group(plans: &[Plan]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, p) in plans.iter().enumerate() {
        let same = |j: &usize| {
            let q = &plans[*j];
            q.drive == p.drive
                && q.user_capacity_bytes == p.user_capacity_bytes
                && q.power_cap_w == p.power_cap_w
                && q.steady == p.steady
        };
        match groups.iter_mut().find(|g| g.first().is_some_and(same)) {
            Some(g) => g.push(i),
            None => groups.push(vec![i]),
        }
    }
    for g in &mut groups {
        g.sort_by_key(|&i| (plans[i].phase, i));
    }
    groups
}

fn run_group(
    plans: &[Plan],
    members: &[usize],
    s: &RunSettings,
    profile: Option<&ValidatedProfile>,
) -> Vec<(usize, Result<Prediction, String>)> {
    let Some(&first) = members.first() else {
        return Vec::new();
    };
    let p0 = &plans[first];
    let profile = profile.or_else(|| s.profile_named(&p0.drive));
    let mut cfg = SimConfig::new(p0.drive.clone(), s.seed);
    cfg.user_capacity_bytes = p0.user_capacity_bytes;
    cfg.power_cap_w = p0.power_cap_w;
    cfg.scale_divisor = s.scale_divisor;
    let built = match &s.from_drive {
        Some(path) => SimSession::from_snapshot_with(cfg, profile.cloned(), path).map(|(x, _)| x),
        None => match profile {
            Some(p) => SimSession::from_profile(cfg, p.clone()),
            None => SimSession::new(cfg),
        },
    };
    let mut session = match built {
        Ok(x) => x,
        Err(e) => return members.iter().map(|&i| (i, Err(e.to_string()))).collect(),
    };
    // Per-second IOPS samples are device seconds (`host_bench::stats::iops_per_window`), as in
    // `ssdlab ezfio`'s stability test; a series of simulated seconds needs no regrouping.
    session.cfg.interval_ns = DEVICE_SECOND_NS;
    let factor = session.scale_factor();
    let block_word_lines = BlockLength {
        simulated: session.target.ssd.core.layout.geo.word_lines_per_block(),
        full_size: session.profile.geometry.word_lines_per_block(),
    };
    let user_bytes = session.target.ssd.capacity().user_bytes_sim;
    let mut out = Vec::new();
    if s.from_drive.is_none() {
        if let Err(e) = run_jobs(&mut session, &fill_job(), s) {
            return members.iter().map(|&i| (i, Err(format!("fill: {e}")))).collect();
        }
    }
    let mut preconditioned = s.from_drive.is_some();
    for &i in members {
        let p = &plans[i];
        if p.phase == Phase::Random && p.steady && !preconditioned {
            preconditioned = true;
            if let Err(e) = run_jobs(&mut session, &precondition_job(user_bytes), s) {
                out.extend(
                    members
                        .iter()
                        .filter(|&&j| plans[j].phase == Phase::Random)
                        .map(|&j| (j, Err(format!("precondition: {e}")))),
                );
                return out;
            }
        }
        // Each measured row has its own master seed. With one seed for all, a row replays
        // the previous row's offsets exactly: its writes hit the data written a moment ago,
        // whole blocks invalidate at once, GC is nearly free and IOPS double until the replay
        // ends; a 20 s stability window then reports that transient as CoV (22% instead of
        // 0.3% on the 7a40).
        session.cfg.seed = RngStreams::new(s.seed).seed_for(StreamId::CalibrationRow, out.len() as u64);
        let r = run_result(&mut session, &measure_job(p, user_bytes, factor), s).and_then(|(fig, stats, limits)| {
            let job =
                MetricSource { figures: fig, iops_cov_pct: stats.iops_cov_pct, avg_power_w: Some(stats.avg_power_w) };
            let value = fio_metric(&job, p.metric).ok_or_else(|| format!("result has no {}", p.metric.name()))?;
            Ok(Prediction {
                value,
                wa: limits.write_amplification,
                scale_divisor: session.scale_divisor,
                block_word_lines,
                limits,
            })
        });
        out.push((i, r));
    }
    out
}

/// Runs one job; a run the stop token cut short (or that would start after it) is no result.
fn run_jobs(session: &mut SimSession, file: &JobFile, s: &RunSettings) -> Result<(), String> {
    run_result(session, file, s).map(|_| ())
}

/// The figures, drive statistics and limit shares of the run's last job.
fn run_result(
    session: &mut SimSession,
    file: &JobFile,
    s: &RunSettings,
) -> Result<(JobFigures, DriveStats, LimitShares), String> {
    if s.stopped() {
        return Err(NOT_RUN_INTERRUPTED.into());
    }
    let r = session.run(file, s.stop.as_deref(), None).map_err(|e| e.to_string())?;
    if r.interrupted || s.stopped() {
        return Err(NOT_RUN_INTERRUPTED.into());
    }
    let last = r.jobs.last().ok_or("no job in the result")?;
    Ok((job_figures(last, &r), session.job_stats(last), session.limits(last)))
}

/// A job with fio's defaults, named as its section would be.
fn job(name: &str, rw: RwMode, iodepth: u32) -> JobSpec {
    let mut j = JobSpec::with_defaults(name, 0);
    j.rw = rw;
    j.iodepth = iodepth;
    j
}

/// Jobs as one file, as the parser would return them; `global_options` only label reports,
/// and these runs write none.
fn job_file(jobs: Vec<JobSpec>) -> JobFile {
    JobFile { file: "calibration.fio".into(), global_options: Vec::new(), jobs, warnings: Vec::new() }
}

/// One sequential pass at 128k QD64 (ezFIO's fill; PTS-E's is the same transfer twice).
fn fill_job() -> JobFile {
    let mut j = job("fill", RwMode::Write, 64);
    j.bs_bytes = [128 * 1024; 3];
    j.size = Some(SizeSpec::Percent(100.0));
    job_file(vec![j])
}

/// 2 drive writes of uniform 4k random writes at Q32T4: steady state after a sequential fill.
fn precondition_job(user_bytes: u64) -> JobFile {
    let mut j = job("precondition", RwMode::RandWrite, 32);
    j.bs_bytes = [4096; 3];
    j.numjobs = 4;
    j.norandommap = true;
    j.group_reporting = true;
    j.number_ios = Some((2 * user_bytes / 4096 / 4).max(1));
    job_file(vec![j])
}

/// I/Os measured: random writes a quarter drive write (at least 200k); reads 400k (1M for
/// p99.99, so the tail holds 100 samples); sequential transfers a tenth of the drive.
fn measure_ios(p: &Plan, user_bytes: u64) -> u64 {
    let by_bytes = |share: f64| nand_model::cast::sat_u64(user_bytes as f64 * share / p.workload.mean_bytes);
    let ios = match (p.phase, p.metric) {
        (_, Metric::Percentile(q)) if q > 99.9 => 1_000_000,
        (Phase::Read, _) if p.workload.rw == RwMode::Read => by_bytes(0.1).max(20_000),
        (Phase::Read, _) => 400_000,
        (Phase::SeqWrite, _) => by_bytes(0.1).max(20_000),
        (Phase::Random, _) => by_bytes(0.25).max(200_000),
    };
    ios.max(p.workload.numjobs as u64)
}

/// Warm-up job then the measured job (the last in the result), same workload.
fn measure_job(p: &Plan, user_bytes: u64, factor: f64) -> JobFile {
    let w = &p.workload;
    let mut base = job("", w.rw, w.iodepth);
    match &w.bs {
        BlockSize::Bytes(b) => base.bs_bytes = [*b; 3],
        BlockSize::Split(split) => base.bssplit = split.clone(),
    }
    if let Some(m) = w.rwmixread {
        base.rwmixread_percent = m;
    }
    if let Some(r) = w.percentage_random {
        base.percentage_random = [r; 3];
    }
    base.numjobs = w.numjobs;
    base.norandommap = true;
    base.group_reporting = true;
    base.percentile_list = vec![50.0, 99.0, 99.9, 99.99];
    let total = measure_ios(p, user_bytes);
    let per_job = |n: u64| (n / w.numjobs as u64).max(1);
    let mut warm = base.clone();
    warm.name = "warm".into();
    warm.number_ios = Some(per_job(total / 5));
    let mut measure = base;
    measure.name = "measure".into();
    measure.stonewall = true;
    if p.metric == Metric::Cov {
        // ezFIO's stability test, as `ssdlab ezfio` runs it: 20 minutes of full-scale time and
        // 300 device seconds (`stability_full_scale_s`; the job runtime is full-scale time).
        let seconds = stability_full_scale_s(EZFIO_STABILITY_S, 1.0 / factor);
        measure.time_based = true;
        measure.runtime_ns = Some(nand_model::cast::sat_u64((seconds * 1e9).ceil()));
    } else {
        measure.number_ios = Some(per_job(total));
    }
    job_file(vec![warm, measure])
}

/// What a metric is read from: a job's fio figures and, for a simulated job, two of its drive
/// statistics (`None` for a real fio run).
#[derive(Clone, Debug, Default)]
pub struct MetricSource {
    pub figures: JobFigures,
    pub iops_cov_pct: Option<f64>,
    pub avg_power_w: Option<f64>,
}

impl From<&FioJobJson> for MetricSource {
    fn from(j: &FioJobJson) -> Self {
        let x = j.ssdlab.clone().unwrap_or_default();
        MetricSource { figures: JobFigures::from(j), iops_cov_pct: x.iops_cov_pct, avg_power_w: x.avg_power_w }
    }
}

/// Reads one metric from a job (ssdlab's, or a real fio run's for the fio-native metrics).
/// Numbers the JSON report cannot hold (non-finite; it writes `null`) count as missing, so a
/// job read in memory gives what its report read back would.
pub fn fio_metric(job: &MetricSource, metric: Metric) -> Option<f64> {
    let finite = |x: f64| Some(x).filter(|x| x.is_finite());
    let or0 = |x: f64| finite(x).unwrap_or(0.0);
    let dirs = [job.figures.read.as_ref(), job.figures.write.as_ref()];
    let ios = |d: Option<&DirFigures>| d.map_or(0.0, |d| or0(d.total_ios));
    let busier = || if ios(dirs[0]) >= ios(dirs[1]) { dirs[0] } else { dirs[1] };
    match metric {
        // A relative figure is the ratio of two IOPS runs (`run_plans`); each reads IOPS.
        Metric::Iops | Metric::RelativeIops => Some(dirs.iter().map(|d| d.map_or(0.0, |d| or0(d.iops))).sum()),
        Metric::Bandwidth => Some(dirs.iter().map(|d| d.map_or(0.0, |d| or0(d.bw_bytes))).sum::<f64>() / 1e6),
        Metric::MeanLatency => {
            let n: f64 = dirs.iter().map(|&d| ios(d)).sum();
            if n <= 0.0 {
                return None;
            }
            let sum: f64 = dirs.iter().map(|&d| ios(d) * d.map_or(0.0, |d| or0(d.clat_mean_ns))).sum();
            Some(sum / n / 1e3)
        }
        Metric::Percentile(q) => busier()?.percentile_ns(q).map(|ns| ns / 1e3),
        Metric::Cov => job.iops_cov_pct.and_then(finite).or_else(|| {
            let d = busier()?;
            let (m, sd) = (finite(d.iops_mean)?, finite(d.iops_stddev)?);
            (m > 0.0).then(|| sd / m * 100.0)
        }),
        Metric::Power => job.avg_power_w.and_then(finite),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measured;
    use crate::plan::{map_row, DriveFacts, Mapping};
    use host_bench::job::{parse_str, ParseOptions};

    fn plan(line: &str) -> Plan {
        let head = measured::COLUMNS.join(",");
        let row = measured::parse(&format!("{head}\n{line}\n"), "t.csv").unwrap().remove(0);
        let facts = |_: &str| Some(DriveFacts { ps0_w: 8.0, states_w: vec![8.0, 6.0] });
        match map_row(&row, &facts) {
            Mapping::Run(p) => *p,
            Mapping::Skip(why) => panic!("skipped: {why}"),
        }
    }

    /// The jobs as fio reads `text`; section lines and the options-as-written only label reports,
    /// and a built job's sizes are the device's where a file's are the full-size drive's.
    fn parsed(text: &str) -> Vec<JobSpec> {
        let mut f = parse_str(text, "t.fio", &ParseOptions::default()).unwrap();
        for j in &mut f.jobs {
            j.line = 0;
            j.options.clear();
            j.sizes = host_bench::job::SizeBasis::Device;
        }
        f.jobs
    }

    /// Each job built as a value is the job fio's text for it resolves to.
    #[test]
    fn jobs_built_as_values_mean_what_their_fio_text_means() {
        assert_eq!(fill_job().jobs, parsed("[fill]\nrw=write\nbs=128k\niodepth=64\nsize=100%\n"));
        let pre = "[precondition]\nrw=randwrite\nbs=4k\niodepth=32\nnumjobs=4\nnorandommap=1\n\
                   group_reporting=1\nnumber_ios=500\n";
        assert_eq!(precondition_job(4096 * 1000).jobs, parsed(pre));
        let common = "iodepth=32\nnumjobs=8\nnorandommap=1\ngroup_reporting=1\npercentile_list=50:99:99.9:99.99\n";
        let gib = 1 << 30;
        // An application profile: bssplit per direction, a mix, partly random.
        let p = plan("a,tiny,,,vdbench,steady,SQL profile,,68.42,80%,32,8,iops,1000,iops,");
        let split = crate::apps::bssplit(crate::apps::find("SQL profile").unwrap());
        let mix = p.workload.rwmixread.unwrap();
        let pct = p.workload.percentage_random.unwrap();
        let total = measure_ios(&p, gib);
        let text = format!(
            "[global]\nrw=randrw\nbssplit={split}\nrwmixread={mix}\npercentage_random={pct}\n{common}\
             [warm]\nnumber_ios={}\n[measure]\nstonewall\nnumber_ios={}\n",
            total / 5 / 8,
            total / 8
        );
        assert_eq!(measure_job(&p, gib, 64.0).jobs, parsed(&text));
        // ezFIO's stability test: 1200 full-scale s, here 300 device seconds x the scale factor.
        let p = plan("b,tiny,,,ezfio,steady,70/30,4k,70,yes,32,8,cov,1.5,percent,");
        let text = format!(
            "[global]\nrw=randrw\nbs=4k\nrwmixread=70\n{common}[warm]\nnumber_ios={}\n\
             [measure]\nstonewall\ntime_based=1\nruntime=19200\n",
            measure_ios(&p, gib) / 5 / 8
        );
        assert_eq!(measure_job(&p, gib, 64.0).jobs, parsed(&text));
    }
}
