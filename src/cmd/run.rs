//! `ssdlab run JOB.fio`: run a fio job file on a simulated drive (or, with `--target`, on a real
//! file or block device) and report like fio, plus the drive's own counters.

use super::common::{interrupt_flag, progress_bar, DriveArgs, TargetArgs};
use super::output::{write_report, write_series, OutputFormat, ReportArgs, SummaryFacts};
use super::CliError;
use clap::Args;
use host_bench::job::{self, JobFile, ParseOptions};
use host_bench::real::RealTarget;
use host_bench::report::{fio_json, series_csv, JsonOptions};
use host_bench::runner::{self, RunOptions, RunProgress, RunResult};
use host_bench::simrun::SimSession;
use serde_json::{json, Value};
use std::path::PathBuf;

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
}

pub fn run(a: RunArgs) -> Result<(), CliError> {
    let file = job::parse_path(&a.job, &ParseOptions { ignore_unsupported: a.ignore_unsupported })
        .map_err(CliError::bad_input)?;
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
        super::preflight::check_sim_memory(&cfg, Some(&file), 1)?;
        let mut s = match &a.from_drive {
            Some(p) => SimSession::from_snapshot(cfg, p).map_err(CliError::bad_input)?.0,
            None => SimSession::new(cfg).map_err(CliError::bad_input)?,
        };
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
        let stats = s.run_stats(&r);
        let v = s.json_with(&r, a.report.output_format == OutputFormat::JsonPlus, &stats);
        let csvs = r.jobs.iter().map(|j| (j.name.clone(), s.timeseries_csv(j))).collect();
        (v, r, csvs, Some(stats))
    };
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

type RealOutcome = (Value, RunResult, Vec<(String, String)>);

fn run_real(
    a: &RunArgs,
    file: &JobFile,
    stop: &std::sync::atomic::AtomicBool,
    progress: &mut dyn FnMut(RunProgress),
) -> Result<RealOutcome, CliError> {
    let qd = file.jobs.iter().map(|j| j.iodepth * j.numjobs).max().unwrap_or(1).max(1);
    let max_block = file
        .jobs
        .iter()
        .flat_map(|j| j.bs_bytes.iter().copied().chain(j.bssplit.iter().flatten().map(|e| e.bytes)))
        .max()
        .unwrap_or(4096);
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
        // Default window: the furthest job end (offset + size) given in bytes.
        o.size_bytes = file
            .jobs
            .iter()
            .filter_map(|j| match (j.size, j.offset) {
                (Some(job::SizeSpec::Bytes(b)), job::SizeSpec::Bytes(o)) => Some(o + b),
                (Some(job::SizeSpec::Bytes(b)), _) => Some(b),
                _ => None,
            })
            .max();
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
    let csvs = r.jobs.iter().map(|j| (j.name.clone(), series_csv(&j.series, &[]))).collect();
    if let Some(rep) = t.verify_report() {
        if rep.mismatches > 0 {
            return Err(CliError::failed(format!("verify found {} mismatching blocks", rep.mismatches)));
        }
    }
    Ok((v, r, csvs))
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
