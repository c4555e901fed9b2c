//! `ssdlab calibrate --drive BASE --measured FILE... --out NEW.toml`: fit the declared profile
//! parameters (controller limits, NAND timings within physical bounds, optionally energies) to
//! measured figures and write the profile with a comment block recording the fit.

use super::common::{interrupt_flag, SimArgs};
use super::{print_out, CliError};
use calibration::fit::{self, FitError, FitOptions, FitResult};
use calibration::params::{self, Param};
use calibration::{inputs, validate, MeasuredRow, RunSettings};
use clap::Args;
use ftl::profile::{self, EMBEDDED};
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// Base profile: an embedded name or a profile TOML path.
    #[arg(long)]
    pub drive: String,
    /// Measured figures: CSV (measured.csv schema; rows of other drives are ignored), fio JSON of
    /// the real drive, or ssdlab result JSON. Several files may be given.
    #[arg(long, num_args = 1.., required = true)]
    pub measured: Vec<PathBuf>,
    /// Where to write the calibrated profile.
    #[arg(long)]
    pub out: PathBuf,
    /// Parameters to fit, comma-separated keys (default: cmd_limit_kiops, read_overhead_us,
    /// write_ack_us, t_prog_us, t_r_us, write_bandwidth_mbps, read_bandwidth_mbps; also
    /// write_cmd_limit_kiops, icc_read_ma, icc_prog_ma, icc_erase_ma, window_us).
    #[arg(long, value_delimiter = ',')]
    pub params: Vec<String>,
    #[command(flatten)]
    pub sim: SimArgs,
    /// Gauss-Newton iterations.
    #[arg(long, default_value_t = 6)]
    pub max_iter: usize,
    /// Values per parameter of the scan across its bounds that picks the starting point (0: start
    /// from the base profile's values).
    #[arg(long, default_value_t = 6)]
    pub scan_points: usize,
}

pub fn run(a: CalibrateArgs) -> Result<(), CliError> {
    let base = profile::load(&a.drive)?;
    super::preflight::check_output_file("--out", &a.out)?;
    let base_text = match EMBEDDED.iter().find(|(n, _)| *n == a.drive) {
        Some((_, t)) => t.to_string(),
        None => std::fs::read_to_string(&a.drive).map_err(|e| CliError::bad_input(format!("{}: {e}", a.drive)))?,
    };
    let mut params_sel = Vec::new();
    for k in &a.params {
        params_sel.push(Param::from_key(k.trim()).ok_or_else(|| {
            let known: Vec<&str> = params::ALL.iter().map(|p| p.key()).collect();
            CliError::bad_input(format!("--params {k}: unknown (allowed {})", known.join(", ")))
        })?);
    }
    if params_sel.is_empty() {
        params_sel = params::DEFAULT.to_vec();
    }
    let scale_divisor = a.sim.scale_divisor()?;
    let mut rows: Vec<MeasuredRow> = Vec::new();
    let mut other = 0usize;
    for f in &a.measured {
        for r in inputs::read_input(f, &a.drive).map_err(CliError::bad_input)? {
            if r.drive == a.drive || r.drive == base.profile.name {
                rows.push(MeasuredRow { drive: a.drive.clone(), ..r });
            } else {
                other += 1;
            }
        }
    }
    let facts = |_: &str| {
        Some(calibration::plan::DriveFacts {
            ps0_w: base.profile.power.states_w.first().copied().unwrap_or(f64::INFINITY),
            states_w: base.profile.power.states_w.clone(),
        })
    };
    let (plans, skipped) = validate::plan_rows(&rows, &facts);
    let mut text = String::new();
    if other > 0 {
        let _ = writeln!(text, "{other} rows of other drives ignored");
    }
    for s in &skipped {
        let _ = writeln!(text, "skipped {}: {}", s.id, s.reason);
    }
    let opts = FitOptions {
        params: params_sel,
        settings: RunSettings { scale_divisor, seed: a.sim.seed, stop: Some(interrupt_flag()), ..Default::default() },
        max_iter: a.max_iter,
        scan_points: a.scan_points,
        ..Default::default()
    };
    let result = fit::fit(&base, &plans, &opts).map_err(|e| match e {
        FitError::Interrupted => CliError::failed(e),
        e => CliError::bad_input(e),
    })?;
    text.push_str(&report(&result));
    if let Some(what) = result.non_finite() {
        print_out(&text)?;
        return Err(CliError::failed(format!(
            "the fit produced a value that is not a finite number ({what}); no profile written"
        )));
    }
    let inputs: Vec<String> = a.measured.iter().map(|p| p.display().to_string()).collect();
    let out_text = format!("{}{}", comment_block(&result, &a.drive, &inputs), fit::apply_to_text(&base_text, &result));
    profile::parse(&out_text, &a.out.display().to_string())
        .map_err(|e| CliError::failed(format!("calibrated profile does not load: {e}")))?;
    std::fs::write(&a.out, out_text).map_err(|e| CliError::failed(format!("{}: {e}", a.out.display())))?;
    let _ = writeln!(text, "wrote {}", a.out.display());
    print_out(&text)?;
    if result.interrupted {
        return Err(CliError::failed(format!(
            "interrupted after {} iterations: the best fit so far is in {} (marked interrupted)",
            result.iterations,
            a.out.display()
        )));
    }
    Ok(())
}

/// Points, parameters and losses as a table.
fn report(r: &FitResult) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{:<28} {:<14} {:>12} {:>12} {:>12} {:<6} {:>8}",
        "point", "metric", "measured", "start", "fitted", "unit", "error"
    );
    for p in &r.points {
        let _ = writeln!(
            t,
            "{:<28} {:<14} {:>12} {:>12} {:>12} {:<6} {:>+7.1}%",
            p.id,
            p.metric,
            validate::fmt_num(p.measured),
            validate::fmt_num(p.predicted_start),
            validate::fmt_num(p.predicted),
            p.unit,
            p.rel_error * 100.0
        );
    }
    let _ = writeln!(t, "\n{:<30} {:>10} {:>10}   bounds", "parameter", "start", "fitted");
    for p in &r.params {
        let _ = writeln!(
            t,
            "{:<30} {:>10} {:>10}   [{}, {}]{}",
            p.key,
            shown(p.start, p.start_none),
            shown(p.fitted, p.fitted_none),
            p.lower,
            p.upper,
            if p.at_bound { "  AT BOUND" } else { "" }
        );
    }
    for (key, from, to) in &r.scan_moves {
        let _ =
            writeln!(t, "axis scan: started {key} at {} (base {})", validate::fmt_num(*to), validate::fmt_num(*from));
    }
    let _ = writeln!(
        t,
        "\nmean squared log error {:.4} -> {:.4} (rms {:.1}% -> {:.1}%), {} iterations, {} simulations, seed {}",
        r.loss_start,
        r.loss,
        (r.loss_start.sqrt().exp() - 1.0) * 100.0,
        (r.loss.sqrt().exp() - 1.0) * 100.0,
        r.iterations,
        r.simulations,
        r.seed
    );
    t
}

/// A parameter's value (three decimals below 100, so a ratio or a current in mA keeps its
/// digits), or "none" for an optional limit left unset.
fn shown(v: f64, none: bool) -> String {
    if none {
        "none".into()
    } else {
        validate::fmt_num(v)
    }
}

/// The comment block recording the fit, prepended to the profile.
fn comment_block(r: &FitResult, base: &str, inputs: &[String]) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "# Calibrated by `ssdlab calibrate` from {base}; inputs: {}", inputs.join(", "));
    if r.interrupted {
        let _ = writeln!(t, "# INTERRUPTED after {} iterations: the best fit so far, not converged", r.iterations);
    }
    let _ = writeln!(
        t,
        "# seed {}, {} iterations, {} simulations; rms log error {:.1}% -> {:.1}%",
        r.seed,
        r.iterations,
        r.simulations,
        (r.loss_start.sqrt().exp() - 1.0) * 100.0,
        (r.loss.sqrt().exp() - 1.0) * 100.0
    );
    for p in &r.params {
        let b = if p.at_bound { " (at its physical bound)" } else { "" };
        let _ = writeln!(t, "#   {} {} -> {}{b}", p.key, shown(p.start, p.start_none), shown(p.fitted, p.fitted_none));
    }
    for p in &r.points {
        let _ = writeln!(
            t,
            "#   {}: measured {} {}, predicted {} ({:+.1}%)",
            p.id,
            validate::fmt_num(p.measured),
            p.unit,
            validate::fmt_num(p.predicted),
            p.rel_error * 100.0
        );
    }
    t.push_str("#\n");
    t
}

#[cfg(test)]
mod tests {
    use super::shown;

    #[test]
    fn small_values_keep_their_digits() {
        // A ratio of 0.85 or a current of 3.96 mA printed to one decimal read as 0.8 and 4.0.
        assert_eq!(shown(3.96, false), "3.960");
        assert_eq!(shown(0.85, false), "0.850");
        assert_eq!(shown(1100.0, false), "1100");
        assert_eq!(shown(1100.0, true), "none");
    }
}
