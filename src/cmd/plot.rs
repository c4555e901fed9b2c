//! `ssdlab plot SERIES.csv`: draw a saved time series as SVG beside it.

use super::CliError;
use clap::Args;
use host_bench::plot_series::series_svg;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct PlotArgs {
    /// A time-series CSV written by `ssdlab run --timeseries`.
    pub csv: PathBuf,
    /// Output SVG (default: the CSV path with .svg).
    #[arg(long)]
    pub output: Option<PathBuf>,
}

pub fn run(a: PlotArgs) -> Result<(), CliError> {
    let text = std::fs::read_to_string(&a.csv).map_err(|e| CliError::bad_input(format!("{}: {e}", a.csv.display())))?;
    let out = a.output.clone().unwrap_or_else(|| a.csv.with_extension("svg"));
    write_svg(&text, &a.csv, &out).map_err(CliError::bad_input)?;
    eprintln!("wrote {}", out.display());
    Ok(())
}

/// Renders `csv` (read from `source`) to `out`.
pub fn write_svg(csv: &str, source: &Path, out: &Path) -> Result<(), String> {
    let title = source.file_stem().and_then(|s| s.to_str()).unwrap_or("series");
    let svg = series_svg(csv, title).map_err(|e| format!("{}: {e}", source.display()))?;
    std::fs::write(out, svg).map_err(|e| format!("{}: {e}", out.display()))
}
