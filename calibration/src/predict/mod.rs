//! `ssdlab predict`: what a capacity (OP) or power-state change does to a measured figure.
//!
//! The baseline workload is simulated at the baseline configuration and at each what-if
//! configuration with the same seeds; the answer is anchored on the measurement: measured x
//! simulated ratio. The ratio cancels most of what the model gets wrong about the absolute
//! figure (the workload's unstated details, the host), so the anchored figure is the one to use;
//! its interval is the spread of the ratio over seeds widened by the model's known error on
//! ratios for that drive ([`known_error`]).

pub mod baseline;
pub mod known_error;
pub mod render;

use crate::exec::{run_plans, Prediction, RunSettings};
use crate::plan::Plan;
use crate::validate::profile_facts;
use baseline::{Baseline, WorkloadRead};
use ftl::profile;
use host_bench::limits::{Limit, LimitShares};
use nand_model::rng::{RngStreams, StreamId};
use serde::{Deserialize, Serialize};

/// Version of the JSON schema of [`PredictReport`] (docs/predict.md).
pub const SCHEMA: &str = "ssdlab-predict/1";

/// One what-if: the keys given override the baseline's configuration.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WhatIf {
    /// As typed, e.g. `user_capacity=6.4TB,power_cap=15W`.
    pub label: String,
    pub user_capacity_bytes: Option<u64>,
    /// OP as a fraction: the user capacity becomes raw / (1 + op).
    pub op: Option<f64>,
    pub power_state: Option<usize>,
    pub power_cap_w: Option<f64>,
}

/// A configuration as simulated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConfigOut {
    /// Full-scale user capacity (None = the profile's stock capacity).
    pub user_capacity_bytes: Option<u64>,
    /// The cap the governor holds, W (None = uncapped).
    pub power_cap_w: Option<f64>,
}

/// Simulated figures of one configuration over the seeds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Simulated {
    /// The absolute prediction: mean over seeds.
    pub mean: f64,
    pub per_seed: Vec<f64>,
    /// Binding limit of the first seed's measured job, and its resource shares.
    pub binding_limit: Limit,
    pub binding_limit_text: String,
    pub limits: LimitShares,
}

/// Low/central/high.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Band {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WhatIfOut {
    pub whatif: String,
    pub config: ConfigOut,
    pub simulated: Simulated,
    /// simulated(what-if) / simulated(baseline), per seed pairs: mean, min, max.
    pub ratio: Band,
    /// measured baseline x ratio; low/high: the seed spread widened by the model error.
    pub anchored: Band,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BaselineOut {
    pub source: String,
    pub drive: String,
    pub metric: String,
    pub unit: String,
    pub measured: f64,
    pub config: ConfigOut,
    /// The workload read from a fio/ssdlab JSON (absent for CSV rows: their columns are it).
    pub workload: Option<WorkloadRead>,
    pub simulated: Simulated,
}

/// The whole answer; the JSON of `ssdlab predict --output-format json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PredictReport {
    pub schema: String,
    pub version: String,
    pub baseline: BaselineOut,
    pub whatifs: Vec<WhatIfOut>,
    pub seeds: Vec<u64>,
    pub scale_divisor: u32,
    pub model_error: known_error::ModelError,
    /// Every default and interpretation used.
    pub assumptions: Vec<String>,
}

/// The what-if applied to the baseline plan, or why it is impossible (exit 2).
pub fn apply(base: &Plan, w: &WhatIf) -> Result<Plan, String> {
    let p = profile::load(&base.drive).map_err(|e| e.to_string())?;
    let facts = profile_facts(&base.drive).ok_or_else(|| format!("no drive profile `{}`", base.drive))?;
    let raw = p.raw_bytes();
    let mut plan = base.clone();
    plan.id = w.label.clone();
    if let Some(op) = w.op {
        plan.user_capacity_bytes = Some(nand_model::cast::sat_u64(raw as f64 / (1.0 + op)));
    }
    if let Some(c) = w.user_capacity_bytes {
        plan.user_capacity_bytes = Some(c);
    }
    if let Some(c) = plan.user_capacity_bytes.filter(|&c| c >= raw) {
        return Err(format!(
            "--whatif {}: user_capacity {:.3} TB is not below the raw NAND of {} ({:.3} TB)",
            w.label,
            c as f64 / 1e12,
            base.drive,
            raw as f64 / 1e12
        ));
    }
    let state_w = match w.power_state {
        Some(i) => Some(*facts.states_w.get(i).ok_or_else(|| {
            format!(
                "--whatif {}: power_state {i}: {} has power states 0..={} ({})",
                w.label,
                base.drive,
                facts.states_w.len().saturating_sub(1),
                facts.states_w.iter().enumerate().map(|(i, w)| format!("PS{i} {w} W")).collect::<Vec<_>>().join(", ")
            )
        })?),
        None => None,
    };
    match (state_w, w.power_cap_w) {
        (Some(a), Some(b)) => plan.power_cap_w = Some(a.min(b)),
        (Some(a), None) | (None, Some(a)) => plan.power_cap_w = Some(a),
        (None, None) => {}
    }
    Ok(plan)
}

fn config_of(p: &Plan) -> ConfigOut {
    ConfigOut { user_capacity_bytes: p.user_capacity_bytes, power_cap_w: p.power_cap_w }
}

fn simulated(runs: &[&Prediction]) -> Simulated {
    let per_seed: Vec<f64> = runs.iter().map(|r| r.value).collect();
    let limits = runs.first().map(|r| r.limits).unwrap_or_default();
    let binding = limits.binding();
    Simulated {
        mean: per_seed.iter().sum::<f64>() / per_seed.len().max(1) as f64,
        per_seed,
        binding_limit: binding,
        binding_limit_text: binding.describe().into(),
        limits,
    }
}

/// Runs the baseline and every what-if over `seeds` master seeds drawn from `settings.seed`'s
/// [`StreamId::Repeat`] stream. Bad what-ifs
/// are `Err` before anything runs; a failed simulation is `Err` too.
pub fn predict(b: &Baseline, whatifs: &[WhatIf], seeds: u32, settings: &RunSettings) -> Result<PredictReport, String> {
    let mut plans = vec![b.plan.clone()];
    for w in whatifs {
        plans.push(apply(&b.plan, w)?);
    }
    let streams = RngStreams::new(settings.seed);
    let seed_list: Vec<u64> = (0..seeds.max(1) as u64).map(|k| streams.seed_for(StreamId::Repeat, k)).collect();
    // runs[seed][plan]
    let mut runs: Vec<Vec<Prediction>> = Vec::new();
    for &seed in &seed_list {
        let s = RunSettings { seed, ..settings.clone() };
        let r: Result<Vec<Prediction>, String> = run_plans(&plans, &s).into_iter().collect();
        runs.push(r.map_err(|e| format!("simulation failed (seed {seed}): {e}"))?);
    }
    let column = |i: usize| runs.iter().map(|r| &r[i]).collect::<Vec<_>>();
    let model_error = known_error::for_plan(&b.plan);
    let base_sim = simulated(&column(0));
    let measured = b.plan.measured;
    let mut out = Vec::new();
    for (i, w) in whatifs.iter().enumerate() {
        let col = column(i + 1);
        let ratios: Vec<f64> = col.iter().zip(column(0)).map(|(x, b)| x.value / b.value).collect();
        if ratios.iter().any(|r| !r.is_finite()) {
            return Err("the simulated baseline completed no I/O: no ratio to anchor on".into());
        }
        let (lo, hi) = ratios.iter().fold((f64::INFINITY, 0.0f64), |(l, h), &r| (l.min(r), h.max(r)));
        let mean = ratios.iter().sum::<f64>() / ratios.len() as f64;
        out.push(WhatIfOut {
            whatif: w.label.clone(),
            config: config_of(&plans[i + 1]),
            simulated: simulated(&col),
            ratio: Band { value: mean, low: lo, high: hi },
            anchored: Band {
                value: measured * mean,
                low: measured * lo * (1.0 - model_error.rel_error),
                high: measured * hi * (1.0 + model_error.rel_error),
            },
        });
    }
    let mut assumptions = b.plan.assumptions.clone();
    assumptions.push(format!(
        "interval: the ratio's range over {} seed(s), widened by +-{:.1}% ({})",
        seed_list.len(),
        model_error.rel_error * 100.0,
        model_error.source
    ));
    Ok(PredictReport {
        schema: SCHEMA.into(),
        version: env!("CARGO_PKG_VERSION").into(),
        baseline: BaselineOut {
            source: b.source.clone(),
            drive: b.plan.drive.clone(),
            metric: b.plan.metric.name(),
            unit: b.plan.unit.clone(),
            measured,
            config: config_of(&b.plan),
            workload: b.workload_read.clone(),
            simulated: base_sim,
        },
        whatifs: out,
        scale_divisor: runs.first().and_then(|r| r.first()).map(|p| p.scale_divisor).unwrap_or(1),
        seeds: seed_list,
        model_error,
        assumptions,
    })
}
