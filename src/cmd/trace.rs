//! `ssdlab trace stats|convert`: what a trace asks of a drive, and the trace as a fio iolog.

use super::replay::TraceInput;
use super::{print_out, CliError};
use clap::{Args, Subcommand, ValueEnum};
use host_bench::trace::convert::to_fio_iolog;
use host_bench::trace::stats::{stats_svg, trace_stats, TraceStats};
use std::io::BufWriter;
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum TraceAction {
    /// Read/write mix, size histogram, footprint, inter-arrival times, re-write distance and
    /// IOPS per interval.
    Stats(StatsArgs),
    /// Write the trace as a fio iolog v3 (replay it with fio's read_iolog=).
    Convert(ConvertArgs),
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    #[command(flatten)]
    pub input: TraceInput,
    /// IOPS interval, seconds of trace time.
    #[arg(long, default_value_t = 1.0)]
    pub interval: f64,
    /// Also write the figures as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// SVG: IOPS over time above the size histogram.
    #[arg(long)]
    pub plot: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ConvertTo {
    FioIolog,
}

#[derive(Debug, Args)]
pub struct ConvertArgs {
    #[command(flatten)]
    pub input: TraceInput,
    #[arg(long, value_enum, default_value = "fio-iolog")]
    pub to: ConvertTo,
    /// The iolog to write.
    #[arg(long)]
    pub output: PathBuf,
    /// File name written in the iolog (fio replays on it; `replay_redirect=` moves it).
    #[arg(long, default_value = "/dev/nvme0n1")]
    pub file_name: String,
}

pub fn run(a: TraceAction) -> Result<(), CliError> {
    match a {
        TraceAction::Stats(s) => stats(s),
        TraceAction::Convert(c) => convert(c),
    }
}

fn report_bad_lines(r: &host_bench::trace::TraceReader) {
    for b in &r.counts.first_bad_lines {
        eprintln!("warning: bad line {b}");
    }
    if r.counts.bad_lines > r.counts.first_bad_lines.len() as u64 {
        eprintln!("warning: {} bad lines in all", r.counts.bad_lines);
    }
}

fn stats(a: StatsArgs) -> Result<(), CliError> {
    if !(a.interval.is_finite() && a.interval >= 1e-6) {
        return Err(CliError::bad_input(format!("--interval {}: allowed seconds >= 0.000001", a.interval)));
    }
    for (flag, p) in [("--json", &a.json), ("--plot", &a.plot)] {
        if let Some(p) = p {
            super::preflight::check_output_file(flag, p)?;
        }
    }
    let mut r = a.input.reader()?;
    let s = trace_stats(&mut r, nand_model::cast::sat_u64((a.interval * 1e9).round())).map_err(CliError::bad_input)?;
    report_bad_lines(&r);
    print_out(&stats_text(&s))?;
    if let Some(p) = &a.json {
        let text = serde_json::to_string_pretty(&s).unwrap_or_default() + "\n";
        std::fs::write(p, text).map_err(|e| CliError::failed(format!("{}: {e}", p.display())))?;
    }
    if let Some(p) = &a.plot {
        let title = a.input.traces.first().and_then(|t| t.file_name()).map_or("trace".into(), |n| n.to_string_lossy());
        let svg = stats_svg(&s, &title).map_err(CliError::failed)?;
        std::fs::write(p, svg).map_err(|e| CliError::failed(format!("{}: {e}", p.display())))?;
    }
    Ok(())
}

fn gib(b: u64) -> f64 {
    b as f64 / (1u64 << 30) as f64
}

/// The human summary of `trace stats`.
pub fn stats_text(s: &TraceStats) -> String {
    let mut t = String::new();
    let total = s.read.ios + s.write.ios + s.trim.ios;
    t.push_str(&format!(
        "records        {} over {:.3} s ({} lines, {} bad)\n",
        total, s.duration_s, s.counts.lines, s.counts.bad_lines
    ));
    t.push_str(&format!(
        "mix            reads {} ({:.1}%, {:.3} GiB), writes {} ({:.3} GiB), trims {} ({:.3} GiB)\n",
        s.read.ios,
        s.read_pct_ios,
        gib(s.read.bytes),
        s.write.ios,
        gib(s.write.bytes),
        s.trim.ios,
        gib(s.trim.bytes)
    ));
    t.push_str(&format!(
        "footprint      {:.3} GiB touched, {:.3} GiB written, {:.3} GiB read (4 KiB units); highest offset {:.3} GiB\n",
        gib(s.footprint_bytes),
        gib(s.write_footprint_bytes),
        gib(s.read_footprint_bytes),
        gib(s.highest_offset_bytes)
    ));
    let d = &s.rewrite_distance_gib;
    t.push_str(&format!(
        "re-writes      {:.1}% of written units overwrite earlier data; distance (GiB written between) p10 {:.3} p50 {:.3} p90 {:.3} max {:.3}\n",
        s.overwrite_pct, d.p10, d.p50, d.p90, d.max
    ));
    let g = &s.interarrival_us;
    t.push_str(&format!(
        "inter-arrival  mean {:.1} us, p50 {:.1} p90 {:.1} p99 {:.1} max {:.1} us\n",
        g.mean, g.p50, g.p90, g.p99, g.max
    ));
    let (mean, peak) = if s.iops.is_empty() {
        (0.0, 0.0)
    } else {
        (s.iops.iter().sum::<f64>() / s.iops.len() as f64, s.iops.iter().cloned().fold(0.0, f64::max))
    };
    t.push_str(&format!(
        "IOPS per {} s  mean {:.0}, peak {:.0} over {} intervals\n",
        s.interval_s,
        mean,
        peak,
        s.iops.len()
    ));
    t.push_str("sizes          ");
    let sizes: Vec<String> = s
        .size_histogram
        .iter()
        .filter(|b| b.ios > 0)
        .map(|b| format!("<={}K {:.1}%", b.le_bytes as f64 / 1024.0, b.ios as f64 / total.max(1) as f64 * 100.0))
        .collect();
    t.push_str(&sizes.join(", "));
    t.push('\n');
    t
}

fn convert(a: ConvertArgs) -> Result<(), CliError> {
    super::preflight::check_output_file("--output", &a.output)?;
    let mut r = a.input.reader()?;
    let f = std::fs::File::create(&a.output).map_err(|e| CliError::failed(format!("{}: {e}", a.output.display())))?;
    let ConvertTo::FioIolog = a.to;
    let n = to_fio_iolog(&mut r, BufWriter::new(f), &a.file_name).map_err(CliError::bad_input)?;
    report_bad_lines(&r);
    eprintln!("{n} records written to {}", a.output.display());
    Ok(())
}
