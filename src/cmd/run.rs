//! `ssdlab run JOB.fio`: run a fio job file on a simulated drive (or, with `--target`, on a real
//! file or block device) and report like fio, plus the drive's own counters.

use super::common::{interrupt_flag, progress_bar, DriveArgs, TargetArgs};
use super::output::{write_report, write_series, OutputFormat, ReportArgs, SummaryFacts};
use super::CliError;
use clap::Args;
use host_bench::drive_stats::RunStats;
use host_bench::job::{self, JobFile, ParseOptions};
use host_bench::real::RealTarget;
use host_bench::report::{fio_json, series_csv, JsonOptions};
use host_bench::runner::{self, RunError, RunOptions, RunOutcome, RunProgress, RunResult};
use host_bench::simrun::{SimConfig, SimSession};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

#[derive(Debug, Args)]
pub struct RunArgs {
    /// fio job file.
    pub job: PathBuf,
    #[command(flatten)]
    pub drive: DriveArgs,
    #[command(flatten)]
    pub report: ReportArgs,
    /// Warn about unknown job-file options instead of failing.
    #[arg(long)]
    pub ignore_unsupported: bool,
    #[command(flatten)]
    pub real: TargetArgs,
    /// Stamp written blocks and check them on reads (real target).
    #[arg(long, requires = "target")]
    pub verify: bool,
    /// After the run, save the simulated drive's complete state here (docs/snapshots.md).
    #[arg(long, conflicts_with = "target")]
    pub save_drive: Option<PathBuf>,
    /// Start from a drive saved by --save-drive or `drive precondition` instead of a new one.
    #[arg(long, conflicts_with = "target")]
    pub from_drive: Option<PathBuf>,
    /// With --save-drive: save at this simulated time since the run started (fio time units,
    /// e.g. 800ms, 1.5s, 2m; the first I/O event at or after it), with the job's I/Os and the
    /// drive's work in flight, instead of after the run. The run goes on to its end; continue
    /// from the file with --resume-from.
    #[arg(long, requires = "save_drive", conflicts_with = "target")]
    pub save_at: Option<String>,
    /// Continue a run saved by --save-at: same job file, drive flags, --seed and power setting
    /// (refused otherwise). The report is the whole run's, byte for byte what the run would
    /// have printed without stopping.
    #[arg(long, conflicts_with_all = ["target", "from_drive", "save_drive"])]
    pub resume_from: Option<PathBuf>,
}

pub fn run(a: RunArgs) -> Result<(), CliError> {
    let file =
        job::parse_path(&a.job, &ParseOptions::for_user_file(a.ignore_unsupported)).map_err(CliError::bad_input)?;
    for w in &file.warnings {
        eprintln!("warning: {w}");
    }
    if let Some(p) = &a.report.output {
        super::preflight::check_output_file("--output", p)?;
    }
    if let Some(p) = &a.report.timeseries {
        super::preflight::check_output_file("--timeseries", p)?;
    }
    if let Some(p) = &a.save_drive {
        super::preflight::check_output_file("--save-drive", p)?;
    }
    let stop = interrupt_flag();
    let pb = progress_bar("run");
    let mut on_progress = |p: RunProgress| {
        let f = (p.group as f64 + p.fraction) / p.groups.max(1) as f64;
        pb.set_position(nand_model::cast::sat_u64(f * 1000.0));
    };
    let (json_value, result, csvs, stats) = if a.real.target.is_some() {
        let (v, r, csvs) = run_real(&a, &file, &stop, &mut on_progress)?;
        (v, r, csvs, None)
    } else {
        let cfg = a.drive.to_config()?;
        let save_at = a.save_at.as_deref().map(|t| super::common::parse_sim_time("--save-at", t)).transpose()?;
        if save_at.is_some() || a.resume_from.is_some() {
            runner::pausable(&file).map_err(|e| CliError::bad_input(format!("{}: {e}", file.file)))?;
        }
        super::preflight::check_sim_memory(&cfg, Some(&file), 1)?;
        if let Some(p) = &a.resume_from {
            let (s, r) = resume(cfg, p, &file, &stop, &mut on_progress)?;
            return finish(&a, sim_outcome(&a, &s, r)?, pb);
        }
        let mut s = match &a.from_drive {
            Some(p) => SimSession::from_snapshot(cfg, p).map_err(CliError::bad_input)?.0,
            None => SimSession::new(cfg).map_err(CliError::bad_input)?,
        };
        note_scaled_sizes(&file, s.scale_factor());
        if let (Some(at), Some(path)) = (save_at, &a.save_drive) {
            let (s, r, saved) = save_mid_run(s, &file, at, path, &stop, &mut on_progress)?;
            finish(&a, sim_outcome(&a, &s, r)?, pb)?;
            return if saved {
                Ok(())
            } else {
                Err(CliError::failed(format!(
                    "--save-at {}: the run ended before it; nothing saved",
                    a.save_at.as_deref().unwrap_or("")
                )))
            };
        }
        let mut logs = super::iolog::IologFiles::create(&file, None)?;
        let mut perf = super::iolog::PerfLogs::create(&file)?;
        let (logging, perf_logging) = (logs.any(), perf.any());
        let mut log_io = |ios: &[runner::SubmittedIo]| logs.record(ios);
        let mut log_done = |ios: &[runner::CompletedIo]| perf.record(ios);
        let on_submit: Option<runner::SubmitHook> = if logging { Some(&mut log_io) } else { None };
        let on_complete: Option<runner::CompleteHook> = if perf_logging { Some(&mut log_done) } else { None };
        let r = s
            .run_logged(&file, Some(&stop), Some(&mut on_progress), on_submit, on_complete)
            .map_err(CliError::failed)?;
        logs.finish(r.end_ns.saturating_sub(r.start_ns))?;
        perf.finish()?;
        if let Some(p) = &a.save_drive {
            save_drive(&mut s, &file, &r, p)?;
        }
        sim_outcome(&a, &s, r)?
    };
    finish(&a, (json_value, result, csvs, stats), pb)
}

/// A run's report: fio JSON, the result, each job's time series, and the drive's statistics.
type Outcome = (Value, RunResult, Vec<(String, String)>, Option<RunStats>);

fn sim_outcome(a: &RunArgs, s: &SimSession, r: RunResult) -> Result<Outcome, CliError> {
    let stats = s.run_stats(&r);
    let v = s.json_with(&r, a.report.output_format == OutputFormat::JsonPlus, &stats);
    let csvs = r.jobs.iter().map(|j| Ok((j.name.clone(), s.timeseries_csv(j)?))).collect::<Result<_, _>>();
    Ok((v, r, csvs.map_err(super::output::series_error)?, Some(stats)))
}

/// Writes the report and time series; the exit status says how the run ended.
fn finish(a: &RunArgs, outcome: Outcome, pb: indicatif::ProgressBar) -> Result<(), CliError> {
    let (json_value, result, csvs, stats) = outcome;
    pb.finish_and_clear();
    let facts = SummaryFacts { stats: stats.as_ref(), replay: None };
    write_report(a.report.output_format, &result, &json_value, facts, a.report.output.as_deref())?;
    if let Some(ts) = &a.report.timeseries {
        write_series(ts, &csvs)?;
    }
    if result.interrupted {
        return Err(CliError::failed("interrupted; partial results written"));
    }
    // fio exits 1 when a job ends with an error; the report above carries it (err=110).
    if let Some((job, ns, target)) =
        result.jobs.iter().find_map(|j| j.latency.exceeded_ns.map(|ns| (&j.name, ns, j.latency.target_ns)))
    {
        return Err(CliError::failed(format!(
            "job '{job}': latency of {ns} nsec exceeds the latency_target ({target} nsec) at QD 1; results written"
        )));
    }
    if let Some((job, fatal)) = result.jobs.iter().find_map(|j| j.fatal.map(|f| (&j.name, f))) {
        return Err(CliError::failed(format!("job '{job}': {fatal}; the job ended there, results written")));
    }
    Ok(())
}

/// Saves the drive after a finished run (an interrupted one is not saved: its last group did
/// not run to the end, so no run could continue it as if uninterrupted).
fn save_drive(s: &mut SimSession, file: &JobFile, r: &RunResult, path: &std::path::Path) -> Result<(), CliError> {
    if r.interrupted {
        eprintln!("ssdlab: --save-drive {}: not saved, the run was interrupted", path.display());
        return Ok(());
    }
    s.position = s.position.after(file);
    let frozen = s.freeze(format!("ssdlab run {}", file.file), None);
    let bytes = frozen.write(path).map_err(CliError::failed)?;
    eprintln!(
        "ssdlab: drive saved to {} ({:.1} MB; state {:.1} MB before compression)",
        path.display(),
        bytes as f64 / 1e6,
        frozen.encoded_bytes() as f64 / 1e6
    );
    Ok(())
}

/// Runs to the instant `at_ns`, saves the run there to `path`, and goes on to the end; the
/// flag says whether it was saved (a run that ends first is not).
fn save_mid_run(
    mut s: SimSession,
    file: &JobFile,
    at_ns: u64,
    path: &std::path::Path,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(RunProgress),
) -> Result<(SimSession, RunResult, bool), CliError> {
    let run_err = |e: RunError| match e {
        RunError::NotResumable(_) => CliError::bad_input(e),
        e => CliError::failed(e),
    };
    match s.run_until(file, at_ns, Some(stop), Some(&mut *progress)).map_err(run_err)? {
        RunOutcome::Done(r) => Ok((s, r, false)),
        RunOutcome::Paused(paused) => {
            let t0 = Instant::now();
            let made_by = format!("ssdlab run {} --save-at {:.9} s", file.file, at_ns as f64 / 1e9);
            let rep = s.save_mid_run(file, at_ns, &paused, made_by, path).map_err(CliError::failed)?;
            eprintln!(
                "ssdlab: run saved at {:.6} s of simulated time to {} ({:.1} MB; state {:.1} MB before compression; {:.2} s)",
                rep.saved_at_ns as f64 / 1e9,
                path.display(),
                rep.file_bytes as f64 / 1e6,
                rep.encoded_bytes as f64 / 1e6,
                t0.elapsed().as_secs_f64()
            );
            let r = s.continue_run(file, *paused, Some(stop), Some(progress)).map_err(run_err)?;
            Ok((s, r, true))
        }
    }
}

/// Loads a run saved by --save-at and runs it to its end.
fn resume(
    cfg: SimConfig,
    path: &std::path::Path,
    file: &JobFile,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(RunProgress),
) -> Result<(SimSession, RunResult), CliError> {
    let t0 = Instant::now();
    let (mut s, paused, meta) = SimSession::resume_from(cfg, path, file).map_err(CliError::bad_input)?;
    if let Some(m) = &meta.mid_run {
        eprintln!(
            "ssdlab: resuming {} at {:.6} s of simulated time, job group {}/{} (loaded in {:.2} s)",
            m.job_file,
            m.saved_at_ns as f64 / 1e9,
            m.group,
            m.groups,
            t0.elapsed().as_secs_f64()
        );
    }
    let r = s.continue_run(file, paused, Some(stop), Some(progress)).map_err(CliError::failed)?;
    Ok((s, r))
}

type RealOutcome = (Value, RunResult, Vec<(String, String)>);

fn run_real(
    a: &RunArgs,
    file: &JobFile,
    stop: &std::sync::atomic::AtomicBool,
    progress: &mut dyn FnMut(RunProgress),
) -> Result<RealOutcome, CliError> {
    let qd = file.jobs.iter().map(|j| j.iodepth * j.numjobs).max().unwrap_or(1).max(1);
    let max_block = file.jobs.iter().flat_map(|j| (0..3).flat_map(move |d| j.block_sizes(d))).max().unwrap_or(4096);
    let mut max_block = u64::from(max_block);
    for log in file.jobs.iter().filter_map(|j| j.replay.read_iolog.as_deref()) {
        max_block = max_block.max(runner::largest_entry_bytes(log).map_err(CliError::bad_input)?);
    }
    let max_block = u32::try_from(max_block)
        .map_err(|_| CliError::bad_input(format!("{}: an iolog entry is larger than 4 GiB", file.file)))?;
    let Some(mut o) = a.real.real_options(qd, max_block)? else {
        return Err(CliError::bad_input("no --target given"));
    };
    // `--verify`, or fio's verify= in the job file.
    o.verify = a.verify || file.jobs.iter().any(|j| j.verifies());
    // A job file that only reads opens the target read-only: no O_CREAT, no exclusive claim,
    // and a device or image holding data may be read without --allow-destroy.
    o.writable = o.verify || file.jobs.iter().any(writes);
    if a.real.target_size.is_none() {
        o.size_bytes = default_window(&file.jobs);
    }
    let mut t = RealTarget::open(o).map_err(CliError::bad_input)?;
    let mut logs = super::iolog::IologFiles::create(file, a.real.target.as_deref())?;
    let mut perf = super::iolog::PerfLogs::create(file)?;
    let (logging, perf_logging) = (logs.any(), perf.any());
    let mut log_io = |ios: &[runner::SubmittedIo]| logs.record(ios);
    let mut log_done = |ios: &[runner::CompletedIo]| perf.record(ios);
    let mut ro = RunOptions::new(a.drive.sim.seed);
    ro.stop = Some(stop);
    ro.progress = Some(progress);
    if logging {
        ro.on_submit = Some(&mut log_io);
    }
    if perf_logging {
        ro.on_complete = Some(&mut log_done);
    }
    let mut r = runner::run(file, &mut t, &mut ro).map_err(CliError::failed)?;
    ro.on_submit = None;
    ro.on_complete = None;
    if let Some(phase) = file.verify_phase().filter(|_| !r.interrupted) {
        // fio's verify phase (do_verify): read back what was written; checked by the target.
        let checked = runner::run(&phase, &mut t, &mut ro).map_err(CliError::failed)?;
        runner::merge_verify_phase(&mut r, &checked);
    }
    logs.finish(r.end_ns.saturating_sub(r.start_ns))?;
    perf.finish()?;
    let mut v =
        fio_json(&r, &JsonOptions { plus: a.report.output_format == OutputFormat::JsonPlus, ..Default::default() });
    if let Some(o) = v.get_mut("ssdlab").and_then(Value::as_object_mut) {
        o.insert("target".into(), json!(t.description()));
        o.insert("engine".into(), json!(format!("{:?}", t.engine_kind())));
        if let Some(rep) = t.verify_report() {
            o.insert("verify".into(), json!(format!("{rep:?}")));
        }
    }
    let csvs = r.jobs.iter().map(|j| Ok((j.name.clone(), series_csv(&j.series, &[])?))).collect::<Result<_, _>>();
    let csvs = csvs.map_err(super::output::series_error)?;
    if let Some(rep) = t.verify_report() {
        if rep.mismatches > 0 {
            return Err(CliError::failed(format!("verify found {} mismatching blocks", rep.mismatches)));
        }
    }
    Ok((v, r, csvs))
}

/// Says, before the run, which absolute sizes of the job file the scaled drive shrinks to the
/// same share of the drive (`job::full_scale`); the JSON states them per job too.
fn note_scaled_sizes(file: &JobFile, scale_factor: f64) {
    for j in &file.jobs {
        let Some((_, changed)) = j.at_scale(1.0 / scale_factor) else { continue };
        let list: Vec<String> = changed
            .iter()
            .map(|c| match c.unit {
                job::ScaledUnit::Bytes => {
                    format!("{} {} -> {}", c.option, binary_size(c.full_scale), binary_size(c.simulated))
                }
                job::ScaledUnit::Ios => format!("{} {} -> {}", c.option, c.full_scale, c.simulated),
            })
            .collect();
        eprintln!(
            "note: job '{}': sizes of the full-size drive, run on the drive at 1/{scale_factor:.0} as the same share of it: {}",
            j.name,
            list.join(", ")
        );
    }
}

/// `bytes` in the largest binary unit that keeps it at least 1, to 1 decimal.
fn binary_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[u])
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// Whether a job writes or trims (a mix with rwmixread=100 only reads).
fn writes(j: &job::JobSpec) -> bool {
    use job::RwMode::*;
    if j.replay.read_iolog.is_some() {
        // A replayed log may write whatever the job's rw says.
        return true;
    }
    match j.rw {
        Read | RandRead => false,
        ReadWrite | RandRw => j.rwmixread_percent < 100,
        Write | RandWrite | Trim | RandTrim => true,
    }
}

/// `--target`'s default window: the furthest job end (offset + size, the last `numjobs` clone's
/// with `offset_increment`, plus a largest block where the size is not a block multiple, or a
/// job's `filesize`) where every sized job gives it in bytes; the whole target (`None`)
/// when no job has a size, or one places its region by a percentage (of the whole target, as
/// fio's is of the file).
fn default_window(jobs: &[job::JobSpec]) -> Option<u64> {
    let mut window: Option<u64> = None;
    for j in jobs {
        // fio's `filesize`: the file (the window) ends there, whatever size and offset say.
        if let Some(end) = j.filesize_bytes {
            window = Some(window.map_or(end, |w| w.max(end)));
            continue;
        }
        let Some(job::SizeSpec::Bytes(size)) = j.size else { continue };
        // A size that is not a multiple of every block size ends with an I/O that runs past it
        // (fio issues whole blocks until the size is reached): room for one more block.
        let sizes = || (0..3).flat_map(|d| j.block_sizes(d)).map(u64::from);
        let past = if sizes().all(|bs| size % bs.max(1) == 0) { 0 } else { sizes().max().unwrap_or(0) };
        match (j.offset, j.offset_increment) {
            (job::SizeSpec::Bytes(o), job::SizeSpec::Bytes(step)) => {
                let end = o + step * u64::from(j.numjobs.saturating_sub(1)) + size + past;
                window = Some(window.map_or(end, |w| w.max(end)));
            }
            _ => return None,
        }
    }
    // A size need not be a multiple of 4 KiB (`size=1MiB` is 1,000,000 bytes to fio); the
    // window is, so it ends at the next 4 KiB.
    window.map(|w| w.next_multiple_of(4096))
}
