//! `ssdlab replay TRACE... --format F`: a block trace on a simulated drive (or a real one with
//! `--target`), timed or closed loop; the same report, JSON and time series as `run`.

use super::common::{interrupt_flag, progress_bar, DriveArgs, TargetArgs};
use super::output::{write_report, write_series, OutputFormat, ReportArgs, SummaryFacts};
use super::CliError;
use clap::{Args, ValueEnum};
use host_bench::device::Device;
use host_bench::real::RealTarget;
use host_bench::report::iolog::IologWriter;
use host_bench::report::{fio_json, series_csv, JsonOptions};
use host_bench::runner::SubmittedIo;
use host_bench::simrun::SimSession;
use host_bench::trace::reader::ReadOptions;
use host_bench::trace::replay::{replay, trace_span, LbaMap, ReplayError, ReplayMode, ReplayOptions};
use host_bench::trace::{TraceFormat, TraceReader};
use serde_json::{json, Value};
use std::io::BufWriter;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    Timed,
    Closed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LbaMapArg {
    Wrap,
    Scale,
    Error,
}

/// Which records of which trace, read how: shared by `replay` and `trace`.
#[derive(Debug, Args, Clone)]
pub struct TraceInput {
    /// Trace files, read in order as one trace (.gz and .zst are decompressed).
    #[arg(required = true)]
    pub traces: Vec<PathBuf>,
    /// msr, systor, tencent, alibaba, umass, blkparse[:Q|:D], mqsim, disksim, fio-iolog, or
    /// csv:ts=COL[:unit=U],op=COL:w=V,offset=COL[:unit=B],size=COL[:unit=B] (docs/traces.md).
    #[arg(long)]
    pub format: String,
    /// Keep only this volume / disk / LUN / device id.
    #[arg(long)]
    pub volume: Option<u64>,
    /// Keep records in START..END seconds of trace time (either side may be left out).
    #[arg(long)]
    pub window: Option<String>,
    /// Stop at the first bad line instead of counting it.
    #[arg(long)]
    pub strict: bool,
}

impl TraceInput {
    pub fn format(&self) -> Result<TraceFormat, CliError> {
        TraceFormat::parse(&self.format).map_err(|e| CliError::bad_input(format!("--format: {e}")))
    }

    pub fn options(&self) -> Result<ReadOptions, CliError> {
        let mut o = ReadOptions { strict: self.strict, volume: self.volume, ..Default::default() };
        if let Some(w) = &self.window {
            let bad = || {
                CliError::bad_input(format!("--window {w}: allowed START..END in seconds, e.g. 60..120, 60.., ..30"))
            };
            let (a, b) = w.split_once("..").ok_or_else(bad)?;
            let secs = |s: &str| -> Result<Option<u64>, CliError> {
                if s.is_empty() {
                    return Ok(None);
                }
                host_bench::trace::fields::decimal_ns(s, 1_000_000_000, "window").map(Some).map_err(|_| bad())
            };
            (o.window_start_ns, o.window_end_ns) = (secs(a)?, secs(b)?);
            if let (Some(s), Some(e)) = (o.window_start_ns, o.window_end_ns) {
                if e <= s {
                    return Err(bad());
                }
            }
        }
        for t in &self.traces {
            if !t.is_file() {
                return Err(CliError::bad_input(format!("{}: no such trace file", t.display())));
            }
        }
        Ok(o)
    }

    pub fn reader(&self) -> Result<TraceReader, CliError> {
        Ok(TraceReader::new(&self.traces, &self.format()?, self.options()?))
    }
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    #[command(flatten)]
    pub input: TraceInput,
    #[command(flatten)]
    pub drive: DriveArgs,
    /// timed: each record at its arrival time (x --time-scale); closed: --qd outstanding.
    #[arg(long, value_enum, default_value = "timed")]
    pub mode: Mode,
    /// Outstanding commands: kept in closed mode, at most in timed mode.
    #[arg(long, default_value_t = 32)]
    pub qd: u32,
    /// Multiplies arrival times in timed mode (0.5 = twice as fast).
    #[arg(long, default_value_t = 1.0)]
    pub time_scale: f64,
    /// Records beyond the drive: wrap (offset modulo capacity), scale (trace span onto the
    /// drive) or error.
    #[arg(long, value_enum, default_value = "wrap")]
    pub lba_map: LbaMapArg,
    #[command(flatten)]
    pub report: ReportArgs,
    /// Fill the simulated drive first with N sequential 128 KiB passes (QD32), so reads find
    /// data on NAND rather than unmapped blocks; not part of the results.
    #[arg(long, default_value_t = 0, conflicts_with = "target")]
    pub precondition: u32,
    /// Log every issued command (after --lba-map) as a fio iolog v3.
    #[arg(long)]
    pub write_iolog: Option<PathBuf>,
    #[command(flatten)]
    pub real: TargetArgs,
}

pub fn run(a: ReplayArgs) -> Result<(), CliError> {
    let format = a.input.format()?;
    let read_opts = a.input.options()?;
    if !(a.time_scale.is_finite() && a.time_scale > 0.0) {
        return Err(CliError::bad_input(format!("--time-scale {}: allowed a finite number > 0", a.time_scale)));
    }
    if !(1..=65536).contains(&a.qd) {
        return Err(CliError::bad_input(format!("--qd {}: allowed 1..=65536", a.qd)));
    }
    if let Some(p) = &a.report.output {
        super::preflight::check_output_file("--output", p)?;
    }
    if let Some(p) = &a.report.timeseries {
        super::preflight::check_output_file("--timeseries", p)?;
    }
    if let Some(p) = &a.write_iolog {
        super::preflight::check_output_file("--write-iolog", p)?;
    }
    let lba_map = match a.lba_map {
        LbaMapArg::Wrap => LbaMap::Wrap,
        LbaMapArg::Scale => LbaMap::Scale,
        LbaMapArg::Error => LbaMap::Error,
    };
    // A first pass for the span when offsets are scaled or a real file must be sized.
    let need_span = lba_map == LbaMap::Scale || (a.real.target.is_some() && a.real.target_size.is_none());
    let span = if need_span {
        let mut r = TraceReader::new(&a.input.traces, &format, read_opts.clone());
        trace_span(&mut r).map_err(CliError::bad_input)?
    } else {
        0
    };
    let stop = interrupt_flag();
    let pb = progress_bar("replay");
    let mut on_progress = |n: u64| pb.set_message(format!("{n} records"));
    let mut log = match &a.write_iolog {
        Some(p) => {
            let f = std::fs::File::create(p).map_err(|e| CliError::failed(format!("{}: {e}", p.display())))?;
            let name = a.real.target.as_ref().map_or_else(|| "ssdlab".to_string(), |t| t.display().to_string());
            Some(
                IologWriter::new(BufWriter::new(f), &name)
                    .map_err(|e| CliError::failed(format!("{}: {e}", p.display())))?,
            )
        }
        None => None,
    };
    let mut log_error: Option<std::io::Error> = None;
    let mut on_submit = |io: &SubmittedIo| {
        if let Some(w) = log.as_mut() {
            if let Err(e) = w.record(io) {
                log_error.get_or_insert(e);
            }
        }
    };
    let mut opts = ReplayOptions {
        mode: if a.mode == Mode::Timed { ReplayMode::Timed } else { ReplayMode::Closed },
        qd: a.qd,
        time_scale: a.time_scale,
        lba_map,
        trace_span_bytes: span,
        max_len_bytes: None,
        series_interval_ns: 1_000_000_000,
        stop: Some(&stop),
        progress: Some(&mut on_progress),
        on_submit: if a.write_iolog.is_some() { Some(&mut on_submit) } else { None },
        name: a.input.traces.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(","),
    };
    let mut reader = TraceReader::new(&a.input.traces, &format, read_opts);
    let (mut json_value, result, stats, csvs, sim) = if a.real.target.is_some() {
        let Some(mut o) = a.real.real_options(a.qd, 1 << 20)? else {
            return Err(CliError::bad_input("no --target given"));
        };
        if a.real.target_size.is_none() {
            o.size_bytes = Some(span.next_multiple_of(4096).max(4096));
        }
        opts.max_len_bytes = Some(o.max_block_bytes);
        let mut t = RealTarget::open(o).map_err(CliError::bad_input)?;
        let (r, st) = replay(&mut reader, &mut t, &mut opts).map_err(replay_error)?;
        let mut v =
            fio_json(&r, &JsonOptions { plus: a.report.output_format == OutputFormat::JsonPlus, ..Default::default() });
        if let Some(o) = v.get_mut("ssdlab").and_then(Value::as_object_mut) {
            o.insert("target".into(), json!(t.description()));
        }
        let csvs = r.jobs.iter().map(|j| Ok((j.name.clone(), series_csv(&j.series, &[])?))).collect::<Result<_, _>>();
        let csvs: Vec<_> = csvs.map_err(super::output::series_error)?;
        (v, r, st, csvs, None)
    } else {
        let cfg = a.drive.to_config()?;
        super::preflight::check_sim_memory(&cfg, None, 1)?;
        let mut s = SimSession::new(cfg).map_err(CliError::bad_input)?;
        if a.precondition > 0 {
            let job =
                host_bench::suites::pts::precondition_file("precondition", a.precondition).map_err(CliError::failed)?;
            let r = s.run(&job, Some(&stop), None).map_err(CliError::failed)?;
            if r.interrupted {
                return Err(CliError::failed("interrupted during --precondition; nothing replayed"));
            }
            s.target.settle();
        }
        opts.series_interval_ns = s.cfg.interval_ns;
        let (r, st) = replay(&mut reader, &mut s.target, &mut opts).map_err(replay_error)?;
        let mut run_stats = s.run_stats(&r);
        // Trace time is not shortened by the drive's scale (`--time-scale` is in "replay").
        run_stats.header.time_scale = 1.0;
        let v = s.json_with(&r, a.report.output_format == OutputFormat::JsonPlus, &run_stats);
        let csvs = r.jobs.iter().map(|j| Ok((j.name.clone(), s.timeseries_csv(j)?))).collect::<Result<_, _>>();
        let csvs: Vec<_> = csvs.map_err(super::output::series_error)?;
        (v, r, st, csvs, Some(run_stats))
    };
    pb.finish_and_clear();
    let end_ns = result.end_ns.saturating_sub(result.start_ns);
    drop(opts);
    if let (Some(w), Some(p)) = (log, &a.write_iolog) {
        let fail = |e: std::io::Error| CliError::failed(format!("{}: {e}", p.display()));
        if let Some(e) = log_error {
            return Err(fail(e));
        }
        w.finish(end_ns).map_err(fail)?;
    }
    let counts = &reader.counts;
    for b in &counts.first_bad_lines {
        eprintln!("warning: bad line {b}");
    }
    if counts.bad_lines > counts.first_bad_lines.len() as u64 {
        eprintln!("warning: {} bad lines in all (the first {} shown)", counts.bad_lines, counts.first_bad_lines.len());
    }
    if stats.late > 0 {
        eprintln!(
            "note: the drive fell behind the trace: {} records ({:.2}%) issued late, mean {:.1} us, max {:.1} us",
            stats.late, stats.late_pct, stats.late_mean_us, stats.late_max_us
        );
    }
    if let Some(o) = json_value.get_mut("ssdlab").and_then(Value::as_object_mut) {
        if sim.is_none() {
            // A real target's facts: trace time, not shortened by a scale.
            o.insert("time_scale".into(), json!(1.0));
        }
        o.insert(
            "replay".into(),
            json!({"traces": a.input.traces, "format": a.input.format, "volume": a.input.volume,
                   "window": a.input.window, "precondition_passes": a.precondition, "stats": stats, "read": counts}),
        );
    }
    let facts = SummaryFacts { stats: sim.as_ref(), replay: Some((&stats, counts)) };
    write_report(a.report.output_format, &result, &json_value, facts, a.report.output.as_deref())?;
    if let Some(ts) = &a.report.timeseries {
        write_series(ts, &csvs)?;
    }
    if result.interrupted {
        return Err(CliError::failed("interrupted; partial results written"));
    }
    Ok(())
}

/// A bad trace (strict bad line, unreadable file, a record refused by `--lba-map error`) is bad
/// input (exit 2); a device failing is a failed run (exit 1).
fn replay_error(e: ReplayError) -> CliError {
    match e {
        ReplayError::Device(_) => CliError::failed(e),
        _ => CliError::bad_input(e),
    }
}
