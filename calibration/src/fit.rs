//! The fit: bounded Levenberg-Marquardt on log-parameters against log-residuals.
//!
//! Why this optimiser: drive figures are close to power laws of the parameters (IOPS ~ 1/tPROG
//! when program-bound, latency ~ tR + overhead), so in log space the problem is nearly linear and
//! Gauss-Newton converges in a few iterations. Each iteration evaluates the base point and one
//! forward difference per parameter, all in parallel; a step is accepted only if it lowers the
//! loss (else the damping grows). A coarse scan of each parameter across its bounds picks the
//! starting point first, since figures are flat in a limit until it binds. No randomness: the
//! result depends only on the inputs and the simulator seed.

mod scan;

use crate::exec::{run_plans_on, RunSettings};
use crate::params::Param;
use crate::plan::{Metric, Plan};
use ftl::profile::{self, ValidatedProfile};
use ftl::DriveProfile;
use rayon::prelude::*;
use scan::axis_scan;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};

/// What to fit and how hard.
#[derive(Clone, Debug)]
pub struct FitOptions {
    pub params: Vec<Param>,
    pub settings: RunSettings,
    /// Gauss-Newton iterations (each: 1 + parameters simulations, in parallel).
    pub max_iter: usize,
    /// Stop when no parameter moves by more than this factor.
    pub tolerance: f64,
    /// Values per parameter of the scan across its bounds that picks the starting point (each
    /// parameter alone, log-spaced); 0 or 1: none.
    pub scan_points: usize,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            params: crate::params::DEFAULT.to_vec(),
            settings: RunSettings::default(),
            max_iter: 6,
            tolerance: 1.005,
            scan_points: 6,
        }
    }
}

/// One fitted parameter.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FittedParam {
    pub key: &'static str,
    pub start: f64,
    pub fitted: f64,
    pub lower: f64,
    pub upper: f64,
    /// At a bound: the data wanted to go further than physics allows.
    pub at_bound: bool,
    /// An optional limit unset before / after the fit (its value is then the upper bound).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub start_none: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub fitted_none: bool,
}

/// One point of the fit.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FitPoint {
    pub id: String,
    pub metric: String,
    pub measured: f64,
    pub unit: String,
    pub predicted_start: f64,
    pub predicted: f64,
    pub rel_error: f64,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct FitResult {
    pub params: Vec<FittedParam>,
    pub points: Vec<FitPoint>,
    /// Mean squared (Huber) log error before and after.
    pub loss_start: f64,
    pub loss: f64,
    pub simulations: usize,
    pub iterations: usize,
    /// Parameters the axis scan moved before the first step: key, from, to.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scan_moves: Vec<(&'static str, f64, f64)>,
    pub seed: u64,
    /// Stopped by a signal: the parameters are the best the fit had accepted by then (the
    /// start if no step had been), not a converged fit.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    #[serde(skip)]
    pub profile: DriveProfile,
}

impl FitResult {
    /// The first value of the fit that is not a finite number (a parameter, the loss or a
    /// point's prediction), named; `None` when all are. Such a fit must not become a profile.
    pub fn non_finite(&self) -> Option<String> {
        for p in &self.params {
            if !(p.start.is_finite() && p.fitted.is_finite()) {
                return Some(format!("parameter {}: {} -> {}", p.key, p.start, p.fitted));
            }
        }
        if !(self.loss_start.is_finite() && self.loss.is_finite()) {
            return Some(format!("loss {} -> {}", self.loss_start, self.loss));
        }
        self.points
            .iter()
            .find(|p| !(p.predicted.is_finite() && p.predicted_start.is_finite() && p.rel_error.is_finite()))
            .map(|p| format!("point {}: predicted {} -> {}", p.id, p.predicted_start, p.predicted))
    }
}

/// Why a fit could not run.
#[derive(Debug, thiserror::Error)]
pub enum FitError {
    #[error("no measured point of drive `{0}` can be simulated")]
    NoPoints(String),
    #[error("none of the parameters {0} moves any measured point")]
    NoParams(String),
    #[error("{0}")]
    Profile(String),
    #[error("interrupted before the starting point was simulated; nothing fitted")]
    Interrupted,
}

/// Residual of a failed simulation: a factor of 10, so the optimiser steers away from it.
const FAIL_RESIDUAL: f64 = std::f64::consts::LN_10;

/// Fits `opts.params` of `base` to the plans (which must all be for this drive).
pub fn fit(base: &ValidatedProfile, plans: &[Plan], opts: &FitOptions) -> Result<FitResult, FitError> {
    // cov is a property of the GC schedule's noise, not of these parameters: reported, not fitted.
    let plans: Vec<Plan> = plans.iter().filter(|p| p.metric != Metric::Cov).cloned().collect();
    if plans.is_empty() {
        return Err(FitError::NoPoints(base.profile.name.clone()));
    }
    let params: Vec<Param> = opts.params.iter().copied().filter(|q| plans.iter().any(|p| q.affects(p))).collect();
    if params.is_empty() {
        let names: Vec<&str> = opts.params.iter().map(|p| p.key()).collect();
        return Err(FitError::NoParams(names.join(", ")));
    }
    let cell = base.geometry.cell.name().to_ascii_lowercase();
    let bounds: Vec<(f64, f64)> = params.iter().map(|p| p.bounds(&cell)).collect();
    let x0: Vec<f64> = params.iter().zip(&bounds).map(|(p, b)| p.get(&base.profile).clamp(b.0, b.1).ln()).collect();
    let ev = Evaluator {
        base: &base.profile,
        params: &params,
        plans: &plans,
        settings: &opts.settings,
        sims: AtomicU64::new(0),
    };
    let all = vec![true; plans.len()];
    let start_pred = ev.eval(&x0, &all, None);
    let stopped = || opts.settings.stopped();
    if stopped() {
        return Err(FitError::Interrupted);
    }
    let loss_start = ev.loss(&start_pred);
    let (mut x, mut pred, mut loss) = axis_scan(&ev, &bounds, (x0.clone(), start_pred.clone(), loss_start), opts);
    let scan_moves = params
        .iter()
        .enumerate()
        .filter(|&(j, _)| (x[j] - x0[j]).abs() > 1e-9)
        .map(|(j, p)| (p.key(), x0[j].exp(), x[j].exp()))
        .collect();
    let mut lambda = 1e-3;
    let h = 1.1f64.ln();
    let mut iterations = 0;
    for _ in 0..opts.max_iter {
        iterations += 1;
        let res = ev.residuals(&pred);
        // Forward differences (backwards at an upper bound), one simulation per parameter.
        let cols: Vec<(f64, Vec<Option<f64>>)> = (0..params.len())
            .into_par_iter()
            .map(|j| {
                let step = if x[j] + h > bounds[j].1.ln() { -h } else { h };
                let mut xj = x.clone();
                xj[j] += step;
                let mask: Vec<bool> = plans.iter().map(|p| params[j].affects(p)).collect();
                (step, ev.eval(&xj, &mask, Some(&pred)))
            })
            .collect();
        if stopped() {
            break; // the differences are incomplete
        }
        let jac: Vec<Vec<f64>> = cols
            .iter()
            .map(|(step, pj)| ev.residuals(pj).iter().zip(&res).map(|(a, b)| (a - b) / step).collect())
            .collect();
        let mut improved = false;
        for _ in 0..4 {
            let delta = lm_step(&jac, &res, lambda);
            let xn: Vec<f64> = (0..x.len())
                .map(|j| {
                    (x[j] + delta[j].clamp(-std::f64::consts::LN_2, std::f64::consts::LN_2))
                        .clamp(bounds[j].0.ln(), bounds[j].1.ln())
                })
                .collect();
            let moved = xn.iter().zip(&x).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            if moved < opts.tolerance.ln() {
                break;
            }
            let pn = ev.eval(&xn, &all, None);
            if stopped() {
                break; // incomplete: keep the last accepted point
            }
            let ln = ev.loss(&pn);
            if ln < loss {
                x = xn;
                pred = pn;
                loss = ln;
                lambda = (lambda / 3.0).max(1e-6);
                improved = true;
                break;
            }
            lambda *= 8.0;
        }
        if !improved || loss < 1e-8 || stopped() {
            break;
        }
    }
    let mut profile = base.profile.clone();
    let mut fitted = Vec::new();
    for (j, p) in params.iter().enumerate() {
        let v = round_param(*p, x[j].exp());
        p.set(&mut profile, v);
        let fitted_none = p.is_unset_in(&profile);
        let at_bound =
            !fitted_none && ((x[j] - bounds[j].0.ln()).abs() < 1e-3 || (x[j] - bounds[j].1.ln()).abs() < 1e-3);
        fitted.push(FittedParam {
            key: p.key(),
            start: p.get(&base.profile),
            fitted: v,
            lower: bounds[j].0,
            upper: bounds[j].1,
            at_bound,
            start_none: p.is_unset_in(&base.profile),
            fitted_none,
        });
    }
    let points = plans
        .iter()
        .enumerate()
        .map(|(i, p)| FitPoint {
            id: p.id.clone(),
            metric: p.metric.name(),
            measured: p.measured,
            unit: p.unit.clone(),
            predicted_start: start_pred[i].unwrap_or(f64::NAN),
            predicted: pred[i].unwrap_or(f64::NAN),
            rel_error: pred[i].map_or(f64::NAN, |v| (v - p.measured) / p.measured),
        })
        .collect();
    Ok(FitResult {
        params: fitted,
        points,
        loss_start,
        loss,
        simulations: nand_model::cast::usize_from(ev.sims.load(Ordering::Relaxed)),
        iterations,
        scan_moves,
        seed: opts.settings.seed,
        interrupted: stopped(),
        profile,
    })
}

/// Values written back are rounded to what a profile comment can state (3 significant digits
/// for large values, 0.1 for small ones).
fn round_param(p: Param, v: f64) -> f64 {
    match p {
        Param::TRUs | Param::ReadOverheadUs | Param::WriteAckUs => (v * 10.0).round() / 10.0,
        _ => (v * 1.0).round().max(1.0),
    }
}

/// Solves (JᵀJ + λ diag(JᵀJ)) δ = -Jᵀr; `jac[j][i]` = d r_i / d x_j. Columns without any
/// sensitivity stay put.
// Gaussian elimination reads one row while it updates another: indices say it plainest.
#[allow(clippy::needless_range_loop)]
fn lm_step(jac: &[Vec<f64>], res: &[f64], lambda: f64) -> Vec<f64> {
    let n = jac.len();
    let mut a = vec![vec![0.0; n + 1]; n];
    for j in 0..n {
        for k in 0..n {
            a[j][k] = jac[j].iter().zip(&jac[k]).map(|(x, y)| x * y).sum();
        }
        a[j][n] = -jac[j].iter().zip(res).map(|(x, y)| x * y).sum::<f64>();
    }
    for (j, row) in a.iter_mut().enumerate() {
        let d = row[j];
        row[j] = if d > 1e-12 { d * (1.0 + lambda) } else { 1.0 };
        if d <= 1e-12 {
            row[n] = 0.0;
        }
    }
    // Gaussian elimination with partial pivoting.
    for c in 0..n {
        let piv = (c..n).max_by(|&p, &q| a[p][c].abs().total_cmp(&a[q][c].abs())).unwrap_or(c);
        a.swap(c, piv);
        let d = a[c][c];
        if d.abs() < 1e-15 {
            continue;
        }
        for r in 0..n {
            if r != c {
                let f = a[r][c] / d;
                for k in c..=n {
                    a[r][k] -= f * a[c][k];
                }
            }
        }
    }
    (0..n).map(|j| if a[j][j].abs() < 1e-15 { 0.0 } else { a[j][n] / a[j][j] }).collect()
}

struct Evaluator<'a> {
    base: &'a DriveProfile,
    params: &'a [Param],
    plans: &'a [Plan],
    settings: &'a RunSettings,
    sims: AtomicU64,
}

impl Evaluator<'_> {
    /// Predictions at log-parameters `x` for the masked plans; the rest copied from `fallback`.
    fn eval(&self, x: &[f64], mask: &[bool], fallback: Option<&[Option<f64>]>) -> Vec<Option<f64>> {
        self.sims.fetch_add(1, Ordering::Relaxed);
        let mut prof = self.base.clone();
        for (p, v) in self.params.iter().zip(x) {
            p.set(&mut prof, v.exp());
        }
        let mut out: Vec<Option<f64>> = fallback.map_or_else(|| vec![None; self.plans.len()], |f| f.to_vec());
        // A candidate outside the profile's ranges predicts nothing, as a failed run would.
        let Ok(candidate) = profile::validate(prof, "calibration candidate") else {
            for (o, _) in out.iter_mut().zip(mask).filter(|(_, &m)| m) {
                *o = None;
            }
            return out;
        };
        // One name for all plans, so they group as they would on one drive.
        let drive = candidate.profile.name.clone();
        let idx: Vec<usize> = (0..self.plans.len()).filter(|&i| mask[i]).collect();
        let sub: Vec<Plan> = idx.iter().map(|&i| Plan { drive: drive.clone(), ..self.plans[i].clone() }).collect();
        let res = run_plans_on(&sub, self.settings, Some(&candidate));
        for (i, r) in idx.into_iter().zip(res) {
            out[i] = r.ok().map(|p| p.value);
        }
        out
    }

    /// Huber pseudo-residuals of the log error: quadratic within 25%, linear beyond, so a few
    /// figures the model cannot reach (a missing mechanism) do not drag every parameter.
    fn residuals(&self, pred: &[Option<f64>]) -> Vec<f64> {
        let c = 1.25f64.ln();
        self.plans
            .iter()
            .zip(pred)
            .map(|(p, v)| match v {
                Some(v) if *v > 0.0 => (v / p.measured).ln(),
                _ => FAIL_RESIDUAL,
            })
            .map(|r| if r.abs() <= c { r } else { r.signum() * (2.0 * c * r.abs() - c * c).sqrt() })
            .collect()
    }

    fn loss(&self, pred: &[Option<f64>]) -> f64 {
        let r = self.residuals(pred);
        r.iter().map(|x| x * x).sum::<f64>() / r.len().max(1) as f64
    }
}

/// Writes the fitted values into the base profile's text, keeping its comments: each fitted
/// key's value is replaced in place (or added under its section), with `# fitted (was X)`.
pub fn apply_to_text(text: &str, fit: &FitResult) -> String {
    let mut out = text.to_string();
    for fp in &fit.params {
        let Some(p) = Param::from_key(fp.key) else {
            continue;
        };
        if p.is_unset_in(&fit.profile) {
            // No limit binds: a limit the base set is commented out, none is added.
            out = unset_key(&out, fp.key, "unset by the fit: no limit binds the measured figures");
            continue;
        }
        let value = match p {
            Param::TRUs => {
                let v: Vec<String> = fit.profile.timing.t_r_us.iter().map(|x| format!("{x:.1}")).collect();
                format!("[{}]", v.join(", "))
            }
            _ => fmt_value(fp.fitted),
        };
        let was = if fp.start_none { "none".to_string() } else { fmt_value(fp.start) };
        out = set_key(&out, fp.key, &value, &format!("fitted (was {was})"));
    }
    out
}

fn fmt_value(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.1}")
    } else {
        format!("{v}")
    }
}

/// Comments out `key = ...` under `[section]` of a TOML text (section.key), with `note`; a
/// text without it is returned as it is.
pub fn unset_key(text: &str, dotted: &str, note: &str) -> String {
    let Some((section, key)) = dotted.split_once('.') else {
        return text.to_string();
    };
    let header = format!("[{section}]");
    let mut in_section = false;
    let mut out = String::with_capacity(text.len());
    for l in text.lines() {
        let t = l.trim_start();
        if t.starts_with('[') {
            in_section = t.starts_with(&header);
        }
        if in_section && !t.starts_with('#') && l.split('=').next().map(str::trim) == Some(key) {
            let _ = writeln!(out, "# {} # {note}", l.split('#').next().unwrap_or(l).trim_end());
        } else {
            out.push_str(l);
            out.push('\n');
        }
    }
    out
}

/// Replaces `key = value` under `[section]` of a TOML text (section.key), or appends it to the
/// section. The old trailing comment is kept after `note`.
pub fn set_key(text: &str, dotted: &str, value: &str, note: &str) -> String {
    let Some((section, key)) = dotted.split_once('.') else {
        return text.to_string();
    };
    let lines: Vec<&str> = text.lines().collect();
    let header = format!("[{section}]");
    let Some(start) = lines.iter().position(|l| l.trim_start().starts_with(&header)) else {
        return format!("{}\n{header}\n{key} = {value}  # {note}\n", text.trim_end());
    };
    let end = (start + 1..lines.len()).find(|&i| lines[i].trim_start().starts_with('[')).unwrap_or(lines.len());
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let is_key = |l: &str| l.split('=').next().map(str::trim) == Some(key) && !l.trim_start().starts_with('#');
    match (start + 1..end).find(|&i| is_key(lines[i])) {
        Some(i) => {
            let old_comment = lines[i].split_once('#').map(|(_, c)| c.trim()).unwrap_or("");
            let lhs = format!("{key} = {value}");
            let comment = if old_comment.is_empty() { note.to_string() } else { format!("{note}; {old_comment}") };
            out[i] = format!("{lhs:<30} # {comment}");
        }
        None => {
            let at = (start + 1..end).rev().find(|&i| !lines[i].trim().is_empty()).map_or(start + 1, |i| i + 1);
            out.insert(at, format!("{:<30} # {note}", format!("{key} = {value}")));
        }
    }
    let mut s = out.join("\n");
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_key_replaces_in_section_and_keeps_comment() {
        let t = "[timing]\nt_prog_us = 1200.0   # one-shot\n[controller]\ncmd_limit_kiops = 10.0\n";
        let s = set_key(t, "timing.t_prog_us", "1500.0", "fitted (was 1200.0)");
        assert!(s.contains("t_prog_us = 1500.0"), "{s}");
        assert!(s.contains("# fitted (was 1200.0); one-shot"), "{s}");
        let s = set_key(t, "controller.write_ack_us", "7.5", "fitted");
        let tail: Vec<&str> = s.lines().rev().take(2).collect();
        assert!(tail[0].starts_with("write_ack_us = 7.5") && tail[0].ends_with("# fitted"), "{s}");
        assert_eq!(tail[1], "cmd_limit_kiops = 10.0");
    }

    #[test]
    fn unset_key_comments_out_the_key_of_its_section_only() {
        let t = "[controller]\nwrite_bandwidth_mbps = 4200.0 # spec\n[other]\nwrite_bandwidth_mbps = 1.0\n";
        let s = unset_key(t, "controller.write_bandwidth_mbps", "unset by the fit");
        assert!(s.contains("# write_bandwidth_mbps = 4200.0 # unset by the fit\n"), "{s}");
        assert!(s.ends_with("[other]\nwrite_bandwidth_mbps = 1.0\n"), "{s}");
        assert_eq!(unset_key("[timing]\nt_r_us = 1\n", "controller.x", "n"), "[timing]\nt_r_us = 1\n");
    }

    #[test]
    fn a_fit_with_a_non_finite_value_is_named() {
        let profile = ftl::profile::load("tiny").unwrap().profile;
        let param = FittedParam {
            key: "timing.t_prog_us",
            start: 1.0,
            fitted: 2.0,
            lower: 0.5,
            upper: 4.0,
            at_bound: false,
            start_none: false,
            fitted_none: false,
        };
        let point = FitPoint {
            id: "rr".into(),
            metric: "iops".into(),
            measured: 1.0,
            unit: "iops".into(),
            predicted_start: 1.0,
            predicted: 1.0,
            rel_error: 0.0,
        };
        let ok = FitResult {
            params: vec![param.clone()],
            points: vec![point.clone()],
            loss_start: 0.1,
            loss: 0.01,
            simulations: 1,
            iterations: 1,
            scan_moves: Vec::new(),
            seed: 1,
            interrupted: false,
            profile,
        };
        assert_eq!(ok.non_finite(), None);
        let nan_param = FitResult { params: vec![FittedParam { fitted: f64::NAN, ..param }], ..ok.clone() };
        assert!(nan_param.non_finite().unwrap().contains("t_prog_us"));
        let nan_loss = FitResult { loss: f64::NAN, ..ok.clone() };
        assert!(nan_loss.non_finite().unwrap().contains("loss"));
        let inf_point = FitResult { points: vec![FitPoint { rel_error: f64::INFINITY, ..point }], ..ok };
        assert!(inf_point.non_finite().unwrap().contains("rr"));
    }

    #[test]
    fn lm_step_solves_a_linear_problem() {
        // r = [x0 - 1, 2 x1 + 2] at x = 0: J = [[1,0],[0,2]] -> delta = [1, -1].
        let jac = vec![vec![1.0, 0.0], vec![0.0, 2.0]];
        let d = lm_step(&jac, &[-1.0, 2.0], 0.0);
        assert!((d[0] - 1.0).abs() < 1e-12 && (d[1] + 1.0).abs() < 1e-12, "{d:?}");
    }
}
