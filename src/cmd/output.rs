//! Writing a run's results, shared by `run` and `replay`: the report in fio's formats (with the
//! drive's counters under the text summary) and the time series with their plots.

use super::{print_out, CliError};
use clap::{Args, ValueEnum};
use host_bench::drive_stats::RunStats;
use host_bench::report::{normal_text, series_file_names};
use host_bench::runner::RunResult;
use host_bench::trace::reader::ReadCounts;
use host_bench::trace::replay::ReplayStats;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Where and how `run` and `replay` report: declared once, flattened into both.
#[derive(Debug, Args, Clone)]
pub struct ReportArgs {
    /// Output format, as fio's --output-format.
    #[arg(long, value_enum, default_value = "normal")]
    pub output_format: OutputFormat,
    /// Write the report here instead of stdout.
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// Per-second time series (CSV) and its SVG beside it; with several jobs, one file per job
    /// (`NAME.JOB.csv`).
    #[arg(long)]
    pub timeseries: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Normal,
    Json,
    #[value(name = "json+")]
    JsonPlus,
}

/// What the text summary adds to fio's: a simulated drive's statistics (`None` on a real
/// target) and, for a trace replay, what the replay did.
#[derive(Clone, Copy, Default)]
pub struct SummaryFacts<'a> {
    pub stats: Option<&'a RunStats>,
    pub replay: Option<(&'a ReplayStats, &'a ReadCounts)>,
}

/// Writes the report in `format` to `output`, or stdout.
pub fn write_report(
    format: OutputFormat,
    result: &RunResult,
    json: &Value,
    facts: SummaryFacts,
    output: Option<&Path>,
) -> Result<(), CliError> {
    let text = match format {
        OutputFormat::Normal => normal_summary(result, facts),
        _ => format!("{}\n", serde_json::to_string_pretty(json).unwrap_or_default()),
    };
    match output {
        Some(p) => std::fs::write(p, text).map_err(|e| CliError::failed(format!("{}: {e}", p.display()))),
        None => print_out(&text),
    }
}

/// fio's text summary plus the drive's counters.
pub fn normal_summary(r: &RunResult, facts: SummaryFacts) -> String {
    let mut s = normal_text(r);
    // As the JSON report holds them: a number it cannot write (non-finite) shows as 0.
    let z = |v: f64| if v.is_finite() { v } else { 0.0 };
    if let Some(x) = facts.stats {
        let d = &x.span;
        s.push_str(&format!(
            "\nssdlab: drive {} (scale 1/{}), user {:.2} TB, OP {:.1}%, seed {}\n  host writes {:.2} drive writes, WA {:.3}, NAND writes {:.2} GB, GC stall {:.2} s, avg power {:.2} W, erase count min/avg/max {}/{:.1}/{}\n",
            x.header.drive,
            x.header.scale.divisor,
            d.user_capacity_bytes as f64 / 1e12,
            z(d.op_pct),
            x.header.seed,
            d.host_write_bytes as f64 / x.header.scale.user_capacity_bytes_simulated as f64,
            z(d.write_amplification),
            d.nand_write_bytes as f64 / 1e9,
            z(d.gc_stall_s),
            z(d.avg_power_w),
            d.erase_count.min,
            z(d.erase_count.avg),
            d.erase_count.max,
        ));
        s.push_str(if facts.replay.is_some() {
            "  (a trace replay: offsets beyond the simulated drive were mapped by --lba-map; byte counters are of the simulated drive)\n"
        } else {
            "  (IOPS, bandwidth and latency are full-scale figures; the run was shortened by the scale factor, byte counters are of the simulated drive)\n"
        });
    }
    if let Some((st, counts)) = facts.replay {
        // The modes' names as the JSON report writes them (lowercase).
        let name = |x: Option<String>| x.map_or("?".to_string(), |n| n.to_lowercase());
        s.push_str(&format!(
            "replay: {} records ({} mode, qd {}), {} bad lines, {} remapped by --lba-map {}, {} widened to the block size; issued late (the drive fell behind): {} ({:.2}%), max {:.1} us\n",
            st.records_issued, name(st.mode.map(|m| format!("{m:?}"))), st.qd, counts.bad_lines, st.remapped,
            name(st.lba_map.map(|m| format!("{m:?}"))), st.aligned, st.late, z(st.late_pct),
            z(st.late_max_us),
        ));
    }
    s
}

/// A time series that could not be written as CSV (a run failure, exit 1).
pub fn series_error(e: csv::Error) -> CliError {
    CliError::failed(format!("time series CSV: {e}"))
}

/// Writes each job's CSV and its SVG plot beside it.
pub fn write_series(path: &Path, csvs: &[(String, String)]) -> Result<(), CliError> {
    let write = |p: &Path, text: &str| {
        std::fs::write(p, text).map_err(|e| CliError::failed(format!("{}: {e}", p.display())))?;
        super::plot::write_svg(text, p, &p.with_extension("svg")).map_err(CliError::failed)
    };
    if csvs.len() == 1 {
        return write(path, &csvs[0].1);
    }
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("series");
    let names = series_file_names(csvs.iter().map(|(name, _)| name.as_str()));
    for (safe, (_, text)) in names.iter().zip(csvs) {
        write(&path.with_file_name(format!("{stem}.{safe}.csv")), text)?;
    }
    Ok(())
}
