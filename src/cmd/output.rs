//! Writing a run's results, shared by `run` and `replay`: the report in fio's formats (with the
//! drive's counters under the text summary) and the time series with their plots.

use super::{print_out, CliError};
use clap::ValueEnum;
use host_bench::report::{normal_text, series_file_names};
use host_bench::runner::RunResult;
use serde_json::Value;
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Normal,
    Json,
    #[value(name = "json+")]
    JsonPlus,
}

/// Writes the report in `format` to `output`, or stdout.
pub fn write_report(
    format: OutputFormat,
    result: &RunResult,
    json: &Value,
    output: Option<&Path>,
) -> Result<(), CliError> {
    let text = match format {
        OutputFormat::Normal => normal_summary(result, json),
        _ => format!("{}\n", serde_json::to_string_pretty(json).unwrap_or_default()),
    };
    match output {
        Some(p) => std::fs::write(p, text).map_err(|e| CliError::failed(format!("{}: {e}", p.display()))),
        None => print_out(&text),
    }
}

/// fio's text summary plus the drive's counters.
pub fn normal_summary(r: &RunResult, v: &Value) -> String {
    let mut s = normal_text(r);
    let x = &v["ssdlab"];
    if x.get("write_amplification").is_some() {
        s.push_str(&format!(
            "\nssdlab: drive {} (scale 1/{}), user {:.2} TB, OP {:.1}%, seed {}\n  host writes {:.2} drive writes, WA {:.3}, NAND writes {:.2} GB, GC stall {:.2} s, avg power {:.2} W, erase count min/avg/max {}/{:.1}/{}\n",
            x["drive"].as_str().unwrap_or("?"),
            x["scale"]["divisor"],
            x["user_capacity_bytes"].as_f64().unwrap_or(0.0) / 1e12,
            x["op_pct"].as_f64().unwrap_or(0.0),
            x["seed"],
            x["host_write_bytes"].as_f64().unwrap_or(0.0)
                / x["scale"]["user_capacity_bytes_simulated"].as_f64().unwrap_or(f64::INFINITY),
            x["write_amplification"].as_f64().unwrap_or(0.0),
            x["nand_write_bytes"].as_f64().unwrap_or(0.0) / 1e9,
            x["gc_stall_s"].as_f64().unwrap_or(0.0),
            x["avg_power_w"].as_f64().unwrap_or(0.0),
            x["erase_count"]["min"],
            x["erase_count"]["avg"].as_f64().unwrap_or(0.0),
            x["erase_count"]["max"],
        ));
        s.push_str(if x.get("replay").is_some() {
            "  (a trace replay: offsets beyond the simulated drive were mapped by --lba-map; byte counters are of the simulated drive)\n"
        } else {
            "  (IOPS, bandwidth and latency are full-scale figures; the run was shortened by the scale factor, byte counters are of the simulated drive)\n"
        });
    }
    if let Some(r) = x.get("replay") {
        let st = &r["stats"];
        s.push_str(&format!(
            "replay: {} records ({} mode, qd {}), {} bad lines, {} remapped by --lba-map {}, {} widened to the block size; issued late (the drive fell behind): {} ({:.2}%), max {:.1} us\n",
            st["records_issued"], st["mode"].as_str().unwrap_or("?"), st["qd"], r["read"]["bad_lines"], st["remapped"],
            st["lba_map"].as_str().unwrap_or("?"), st["aligned"], st["late"], st["late_pct"].as_f64().unwrap_or(0.0),
            st["late_max_us"].as_f64().unwrap_or(0.0),
        ));
    }
    s
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
