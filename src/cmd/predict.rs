//! `ssdlab predict --baseline FILE --whatif KEY=VALUE[,...]...`: what-if answers anchored on a
//! measurement (calibration::predict).

use super::common::{parse_capacity, parse_fraction, parse_watts, SimArgs};
use super::{print_out, CliError};
use calibration::predict::{self, baseline, render, WhatIf};
use calibration::RunSettings;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Table,
    Json,
}

#[derive(Debug, Args)]
pub struct PredictArgs {
    /// Drive profile: an embedded name (`ssdlab drives`) or a profile TOML path. Required for a
    /// real fio JSON; a CSV row or an ssdlab result names its own.
    #[arg(long)]
    pub drive: Option<String>,
    /// The measurement: fio 3.x JSON output, an ssdlab result JSON, or a measured CSV.
    #[arg(long)]
    pub baseline: PathBuf,
    /// The CSV row to use (by id).
    #[arg(long, conflicts_with = "job")]
    pub row: Option<String>,
    /// The JSON job to use (by jobname).
    #[arg(long)]
    pub job: Option<String>,
    /// A configuration to predict: comma-separated user_capacity=6.4TB, op=40%, power_state=N,
    /// power_cap=15W; repeat for several.
    #[arg(long, required = true)]
    pub whatif: Vec<String>,
    /// Seeds per configuration (the interval includes their spread).
    #[arg(long, default_value_t = 1)]
    pub seeds: u32,
    #[command(flatten)]
    pub sim: SimArgs,
    #[arg(long, value_enum, default_value = "table")]
    pub output_format: Format,
    /// Also write predict.json, predict.txt and predict.svg here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Measure on a drive saved by `drive precondition` (or `run --save-drive`) instead of
    /// predict's own fill and preconditioning; what-ifs must keep its capacity and scale.
    #[arg(long)]
    pub from_drive: Option<PathBuf>,
}

/// One `--whatif` value; `Err` names the key and what is allowed.
pub fn parse_whatif(s: &str) -> Result<WhatIf, String> {
    let mut w = WhatIf { label: s.trim().to_string(), ..Default::default() };
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').ok_or_else(|| format!("`{part}` is not KEY=VALUE"))?;
        let (k, v) = (k.trim(), v.trim());
        match k {
            "user_capacity" => w.user_capacity_bytes = Some(parse_capacity(v).map_err(|e| format!("{k}={v}: {e}"))?),
            "op" => w.op = Some(parse_fraction(v).map_err(|e| format!("{k}={v}: {e}"))?),
            "power_state" => {
                w.power_state =
                    Some(v.parse().map_err(|_| format!("{k}={v}: allowed a power state number 0, 1, 2, ..."))?)
            }
            "power_cap" => w.power_cap_w = Some(parse_watts(v).map_err(|e| format!("{k}={v}: {e}"))?),
            _ => return Err(format!("unknown key `{k}` (allowed user_capacity, op, power_state, power_cap)")),
        }
    }
    if w.user_capacity_bytes.is_some() && w.op.is_some() {
        return Err("give user_capacity or op, not both".into());
    }
    if w == (WhatIf { label: w.label.clone(), ..Default::default() }) {
        return Err("empty: give at least one of user_capacity, op, power_state, power_cap".into());
    }
    Ok(w)
}

pub fn run(a: PredictArgs) -> Result<(), CliError> {
    let whatifs = a
        .whatif
        .iter()
        .map(|s| parse_whatif(s).map_err(|e| CliError::bad_input(format!("--whatif {s}: {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    if !(1..=64).contains(&a.seeds) {
        return Err(CliError::bad_input(format!("--seeds {}: allowed 1..=64", a.seeds)));
    }
    let scale_divisor = a.sim.scale_divisor()?;
    if let Some(dir) = &a.out {
        super::preflight::check_output_dir("--out", dir)?;
    }
    let sel = baseline::Select { row: a.row.clone(), job: a.job.clone() };
    let base = baseline::read(&a.baseline, a.drive.as_deref(), &sel).map_err(CliError::bad_input)?;
    // Every what-if is checked against the drive before anything runs.
    for w in &whatifs {
        predict::apply(&base.plan, w).map_err(CliError::bad_input)?;
    }
    let report = predict::predict(
        &base,
        &whatifs,
        a.seeds,
        &RunSettings {
            scale_divisor,
            seed: a.sim.seed,
            stop: None,
            from_drive: a.from_drive.clone(),
            ..Default::default()
        },
    )
    .map_err(CliError::failed)?;
    let json = serde_json::to_string_pretty(&report).map_err(CliError::failed)? + "\n";
    let table = render::table(&report);
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir).map_err(|e| CliError::failed(format!("{}: {e}", dir.display())))?;
        for (name, text) in [("predict.json", &json), ("predict.txt", &table), ("predict.svg", &render::svg(&report))] {
            let p = dir.join(name);
            std::fs::write(&p, text).map_err(|e| CliError::failed(format!("{}: {e}", p.display())))?;
        }
    }
    print_out(match a.output_format {
        Format::Json => &json,
        Format::Table => &table,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whatifs_parse_and_refuse_by_key() {
        let w = parse_whatif("user_capacity=6.4TB,power_cap=15W").unwrap();
        assert_eq!((w.user_capacity_bytes, w.power_cap_w), (Some(6_400_000_000_000), Some(15.0)));
        assert_eq!(parse_whatif("power_state=1").unwrap().power_state, Some(1));
        assert!(parse_whatif("colour=red").unwrap_err().contains("unknown key `colour`"));
        assert!(parse_whatif("power_cap=-3").unwrap_err().contains("power_cap=-3"));
        assert!(parse_whatif("op=40%,user_capacity=1TB").is_err());
        assert!(parse_whatif("").is_err());
    }
}
