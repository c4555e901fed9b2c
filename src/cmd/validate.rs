//! `ssdlab validate --measured FILE.csv`: run every measured row on its drive profile and report
//! predicted, measured and relative error, worst first (or JSON), with a predicted-vs-measured
//! plot when `--out DIR` is given.

use super::common::{interrupt_flag, SimArgs};
use super::{print_out, CliError};
use calibration::{measured, plot, validate, RunSettings};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Table,
    Json,
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Measured figures, CSV in the schema of shared/calibration/measured.csv.
    #[arg(long)]
    pub measured: PathBuf,
    /// Baseline figures (same schema): a row of --measured whose drive and workload match a
    /// row here in another capacity/power configuration also gets an anchored prediction:
    /// the baseline's measured value x the simulated ratio between the two configurations.
    #[arg(long)]
    pub baseline: Option<PathBuf>,
    /// table (worst rows first) or json.
    #[arg(long, value_enum, default_value = "table")]
    pub output_format: Format,
    /// Also write validation.json, validation.txt and validation.svg (predicted vs measured) here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// A drive profile TOML (repeatable): rows whose drive is its name run on it, e.g. a drive
    /// that is not embedded, or the output of `ssdlab calibrate` in place of the embedded one.
    #[arg(long = "profile")]
    pub profiles: Vec<PathBuf>,
    #[command(flatten)]
    pub sim: SimArgs,
}

pub fn run(a: ValidateArgs) -> Result<(), CliError> {
    let rows = measured::read_file(&a.measured).map_err(CliError::bad_input)?;
    let baseline = match &a.baseline {
        Some(p) => Some(measured::read_file(p).map_err(CliError::bad_input)?),
        None => None,
    };
    if let Some(dir) = &a.out {
        super::preflight::check_output_dir("--out", dir)?;
    }
    let scale_divisor = a.sim.scale_divisor()?;
    let profiles = load_profiles(&a.profiles)?;
    let stop = interrupt_flag();
    let settings = RunSettings { scale_divisor, seed: a.sim.seed, stop: Some(stop), from_drive: None, profiles };
    let report = validate::validate_anchored(&rows, baseline.as_deref(), &settings);
    let json = serde_json::to_string_pretty(&report).map_err(CliError::failed)? + "\n";
    let table = validate::table(&report);
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir).map_err(|e| CliError::failed(format!("{}: {e}", dir.display())))?;
        let write = |name: &str, text: &str| {
            let p = dir.join(name);
            std::fs::write(&p, text).map_err(|e| CliError::failed(format!("{}: {e}", p.display())))
        };
        write("validation.json", &json)?;
        write("validation.txt", &table)?;
        plot::write_svg(&report, &dir.join("validation.svg")).map_err(|e| CliError::failed(format!("plot: {e}")))?;
    }
    match a.output_format {
        Format::Json => print_out(&json)?,
        Format::Table => print_out(&table)?,
    }
    if report.interrupted {
        return Err(CliError::failed(format!(
            "interrupted: {} rows finished and written, the rest listed as not run",
            report.rows.len()
        )));
    }
    if report.rows.is_empty() {
        return Err(CliError::bad_input(format!(
            "{}: no row could run ({} skipped, each with its reason above)",
            a.measured.display(),
            report.skipped.len()
        )));
    }
    Ok(())
}

/// The `--profile` files, each validated; two with one name are refused (which would run?).
fn load_profiles(paths: &[PathBuf]) -> Result<Vec<std::sync::Arc<ftl::ValidatedProfile>>, CliError> {
    let mut out: Vec<std::sync::Arc<ftl::ValidatedProfile>> = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path)
            .map_err(|e| CliError::bad_input(format!("--profile {}: {e}", path.display())))?;
        let p = ftl::profile::parse(&text, &path.display().to_string()).map_err(CliError::bad_input)?;
        // `out` holds one profile per path so far, in order: its index is the path's.
        if let Some(j) = out.iter().position(|q| q.profile.name == p.profile.name) {
            return Err(CliError::bad_input(format!(
                "--profile {}: drive `{}` is given by --profile {} already (one profile per drive)",
                path.display(),
                p.profile.name,
                paths[j].display()
            )));
        }
        out.push(std::sync::Arc::new(p));
    }
    Ok(out)
}
