//! Validation: run every measured row that can be modelled and compare. The report is a wire
//! type (its JSON schema is fixed by issue 6); rows that cannot run are listed with a reason.

use crate::anchor::{self, AnchoredSummary};
use crate::exec::{run_plans, BlockLength, RunSettings, NOT_RUN_INTERRUPTED};
use crate::measured::MeasuredRow;
use crate::plan::{map_row, DriveFacts, Mapping, Metric, Plan};
use ftl::profile;
use serde::Serialize;
use std::fmt::Write as _;

/// One compared row. `rel_error` = (predicted - measured) / measured.
#[derive(Clone, Debug, Serialize)]
pub struct RowResult {
    pub id: String,
    pub predicted: f64,
    pub measured: f64,
    pub unit: String,
    pub rel_error: f64,
    pub drive: String,
    pub metric: String,
    /// Tool defaults and interpretations used for this row.
    pub assumptions: Vec<String>,
    pub write_amplification: f64,
    pub scale_divisor: u32,
    /// On a per-second spread (CoV) row run with blocks shorter than the full-size drive's: the
    /// block length it ran with. A mix's per-second spread grows with the block length (GC idles
    /// in windows as long as an open stripe takes to fill; docs/scale.md), so such a row's
    /// figure is not the full-size drive's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub short_blocks: Option<BlockLength>,
    /// With `--baseline`: the baseline row measuring the same workload in another
    /// configuration, measured(baseline) x simulated(this) / simulated(baseline), and its error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchored_predicted: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchored_rel_error: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Skipped {
    pub id: String,
    pub reason: String,
}

/// The validation report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub rows: Vec<RowResult>,
    pub skipped: Vec<Skipped>,
    /// Over every row that ran.
    pub median_abs_rel_error: f64,
    pub max_abs_rel_error: f64,
    /// Over the IOPS and bandwidth rows (the acceptance figure).
    pub throughput_median_abs_rel_error: f64,
    pub throughput_rows: usize,
    pub seed: u64,
    /// Stopped by a signal: the rows that had finished are here, the rest are skipped as not
    /// run (written only when true, so a complete report is unchanged).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// With `--baseline`: medians over the rows that have an anchored prediction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchored: Option<AnchoredSummary>,
}

/// Drive facts for the mapping from the embedded profiles or profile files.
pub fn profile_facts(name: &str) -> Option<DriveFacts> {
    profile::load(name).ok().map(|p| facts_of(&p))
}

/// The facts of one profile.
fn facts_of(p: &ftl::ValidatedProfile) -> DriveFacts {
    let states_w = p.profile.power.states_w.clone();
    DriveFacts { ps0_w: states_w.first().copied().unwrap_or(f64::INFINITY), states_w }
}

/// Maps every row: runnable plans and skipped rows (in file order).
pub fn plan_rows(rows: &[MeasuredRow], facts: &dyn Fn(&str) -> Option<DriveFacts>) -> (Vec<Plan>, Vec<Skipped>) {
    let mut plans = Vec::new();
    let mut skipped = Vec::new();
    for r in rows {
        match map_row(r, facts) {
            Mapping::Run(p) => plans.push(*p),
            Mapping::Skip(reason) => skipped.push(Skipped { id: r.id.clone(), reason }),
        }
    }
    (plans, skipped)
}

/// Runs and compares every row.
pub fn validate(rows: &[MeasuredRow], s: &RunSettings) -> Report {
    validate_anchored(rows, None, s)
}

/// Runs and compares every row; with `baseline`, each row that has a baseline row (same
/// measurement, another configuration) also gets an anchored prediction. Baseline rows that
/// are not rows of `rows` are simulated as well.
pub fn validate_anchored(rows: &[MeasuredRow], baseline: Option<&[MeasuredRow]>, s: &RunSettings) -> Report {
    let mut plans = Vec::new();
    let mut plan_row = Vec::new();
    let mut skipped = Vec::new();
    let facts = |name: &str| s.profile_named(name).map(facts_of).or_else(|| profile_facts(name));
    for r in rows {
        match map_row(r, &facts) {
            Mapping::Run(p) => {
                plans.push(*p);
                plan_row.push(r);
            }
            Mapping::Skip(reason) => skipped.push(Skipped { id: r.id.clone(), reason }),
        }
    }
    let main = plans.len();
    // For each plan, its baseline row and the plan index simulating that row.
    let mut anchors: Vec<Option<(&MeasuredRow, usize)>> = vec![None; main];
    if let Some(base) = baseline {
        for (i, anchor_slot) in anchors.iter_mut().enumerate() {
            let Some(b) = anchor::find_baseline(plan_row[i], base) else { continue };
            let known = plan_row.iter().position(|r| same_row(r, b));
            let at = match known {
                Some(j) => j,
                None => match map_row(b, &facts) {
                    Mapping::Run(p) => {
                        plans.push(*p);
                        plan_row.push(b);
                        plans.len() - 1
                    }
                    Mapping::Skip(_) => continue,
                },
            };
            *anchor_slot = Some((b, at));
        }
    }
    let preds = run_plans(&plans, s);
    let mut out = Vec::new();
    for (i, (p, pred)) in plans.iter().zip(&preds).enumerate().take(main) {
        match pred {
            Ok(x) => {
                let anchored = anchors[i].and_then(|(b, j)| {
                    let sim_b = preds[j].as_ref().ok()?.value;
                    Some((b.id.clone(), anchor::anchored(b.value, x.value, sim_b)?))
                });
                out.push(RowResult {
                    id: p.id.clone(),
                    predicted: x.value,
                    measured: p.measured,
                    unit: p.unit.clone(),
                    rel_error: (x.value - p.measured) / p.measured,
                    drive: p.drive.clone(),
                    metric: p.metric.name(),
                    assumptions: p.assumptions.clone(),
                    write_amplification: x.wa,
                    scale_divisor: x.scale_divisor,
                    short_blocks: (p.metric == Metric::Cov
                        && x.block_word_lines.simulated < x.block_word_lines.full_size)
                        .then_some(x.block_word_lines),
                    anchored_rel_error: anchored.as_ref().map(|(_, a)| (a - p.measured) / p.measured),
                    anchored_predicted: anchored.as_ref().map(|(_, a)| *a),
                    baseline_id: anchored.map(|(id, _)| id),
                })
            }
            Err(_) if s.stopped() => skipped.push(Skipped { id: p.id.clone(), reason: NOT_RUN_INTERRUPTED.into() }),
            Err(reason) => skipped.push(Skipped { id: p.id.clone(), reason: format!("simulation failed: {reason}") }),
        }
    }
    let abs: Vec<f64> = out.iter().map(|r| r.rel_error.abs()).collect();
    let thr: Vec<f64> =
        out.iter().filter(|r| r.metric == "iops" || r.metric == "bandwidth").map(|r| r.rel_error.abs()).collect();
    let with_anchor: Vec<&RowResult> = out.iter().filter(|r| r.anchored_rel_error.is_some()).collect();
    let anchored = baseline.map(|_| AnchoredSummary {
        rows: with_anchor.len(),
        median_abs_rel_error: median(&with_anchor.iter().map(|r| r.rel_error.abs()).collect::<Vec<_>>()),
        anchored_median_abs_rel_error: median(
            &with_anchor.iter().filter_map(|r| r.anchored_rel_error.map(f64::abs)).collect::<Vec<_>>(),
        ),
    });
    Report {
        median_abs_rel_error: median(&abs),
        max_abs_rel_error: abs.iter().copied().fold(0.0, f64::max),
        throughput_median_abs_rel_error: median(&thr),
        throughput_rows: thr.len(),
        rows: out,
        skipped,
        seed: s.seed,
        interrupted: s.stopped(),
        anchored,
    }
}

/// The same row read twice (the measured file given as its own baseline): equal but for origin.
fn same_row(a: &MeasuredRow, b: &MeasuredRow) -> bool {
    a.id == b.id
        && anchor::same_measurement(a, b)
        && a.value == b.value
        && (a.user_capacity_tb, a.power_cap_w) == (b.user_capacity_tb, b.power_cap_w)
}

/// Median (mean of the middle two for even counts); 0 for none.
pub fn median(v: &[f64]) -> f64 {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => 0.0,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

/// Human-readable table, worst rows first, then skipped rows and the summary.
pub fn table(r: &Report) -> String {
    let mut rows: Vec<&RowResult> = r.rows.iter().collect();
    rows.sort_by(|a, b| b.rel_error.abs().total_cmp(&a.rel_error.abs()).then(a.id.cmp(&b.id)));
    let mut t = String::new();
    let _ = write!(
        t,
        "{:<24} {:<22} {:<13} {:>12} {:>12} {:<8} {:>8}",
        "id", "drive", "metric", "predicted", "measured", "unit", "error"
    );
    if r.anchored.is_some() {
        let _ = write!(t, "  {:>12} {:>8} baseline", "anchored", "error");
    }
    t.push('\n');
    for x in rows {
        let _ = write!(
            t,
            "{:<24} {:<22} {:<13} {:>12} {:>12} {:<8} {:>+7.1}%",
            x.id,
            x.drive,
            x.metric,
            fmt_num(x.predicted),
            fmt_num(x.measured),
            x.unit,
            x.rel_error * 100.0
        );
        if let (Some(a), Some(e), Some(b)) = (x.anchored_predicted, x.anchored_rel_error, &x.baseline_id) {
            let _ = write!(t, "  {:>12} {:>+7.1}% {b}", fmt_num(a), e * 100.0);
        }
        t.push('\n');
    }
    let short: Vec<(&RowResult, BlockLength)> = r.rows.iter().filter_map(|x| Some((x, x.short_blocks?))).collect();
    if !short.is_empty() {
        let _ = writeln!(
            t,
            "\nper-second spread with short blocks (it grows with the block length, docs/scale.md; \
             --scale 1/3 or larger runs blocks near full length):"
        );
        for (x, b) in short {
            let _ = writeln!(
                t,
                "  {:<24} blocks of {} of the full-size drive's {} word lines (scale 1/{})",
                x.id, b.simulated, b.full_size, x.scale_divisor
            );
        }
    }
    if !r.skipped.is_empty() {
        let _ = writeln!(t, "\nskipped:");
        for s in &r.skipped {
            let _ = writeln!(t, "  {:<24} {}", s.id, s.reason);
        }
    }
    let _ = writeln!(
        t,
        "\n{} rows run, {} skipped; median |error| {:.1}% (IOPS/bandwidth rows: {:.1}% over {}), max {:.1}%",
        r.rows.len(),
        r.skipped.len(),
        r.median_abs_rel_error * 100.0,
        r.throughput_median_abs_rel_error * 100.0,
        r.throughput_rows,
        r.max_abs_rel_error * 100.0
    );
    if r.interrupted {
        let _ = writeln!(t, "INTERRUPTED: only the rows above that ran are complete");
    }
    if let Some(a) = &r.anchored {
        let _ = writeln!(
            t,
            "anchored on a baseline row: {} rows; median |error| absolute {:.1}%, anchored {:.1}%",
            a.rows,
            a.median_abs_rel_error * 100.0,
            a.anchored_median_abs_rel_error * 100.0
        );
    }
    t
}

pub fn fmt_num(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}
