//! fio-compatible JSON (`--output-format=json` / `json+`).
//!
//! Keys, nesting and JSON types follow fio 3.x wherever the meaning is the same, so tools that
//! read fio output read ours. The output is a [`serde_json::Value`] with insertion-ordered maps:
//! callers may add keys (an `"ssdlab"` object is already present at the top level) before
//! serialising. Nothing here reads the clock: the same result and options give byte-identical
//! text.

use nand_model::cast::sat_u64;
use serde_json::{json, Map, Value};

use super::summary::{dir_summary, dir_summary_in, group_dir, group_mixed, mixed_view, runtime_ms, DirSummary};
use crate::job::UnifiedRw;
use crate::runner::{JobResult, RunResult};
use crate::stats::Histogram;

/// What the caller supplies that the result does not hold.
#[derive(Clone, Debug)]
pub struct JsonOptions {
    /// Add fio json+ `clat_ns.bins`.
    pub plus: bool,
    /// Value of fio's `"timestamp"` (Unix seconds). Pass a fixed value for reproducible output.
    pub timestamp_s: u64,
    /// Reported as `"fio version": "ssdlab-<version>"`.
    pub version: String,
}

impl Default for JsonOptions {
    fn default() -> Self {
        JsonOptions { plus: false, timestamp_s: 0, version: env!("CARGO_PKG_VERSION").to_string() }
    }
}

const DIR_NAMES: [&str; 3] = ["read", "write", "trim"];
const LAT_BOUNDS: [u64; 10] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000];

/// The whole report as a JSON value.
pub fn fio_json(result: &RunResult, opts: &JsonOptions) -> Value {
    let mut top = Map::new();
    top.insert("fio version".into(), json!(format!("ssdlab-{}", opts.version)));
    top.insert("timestamp".into(), json!(opts.timestamp_s));
    top.insert("timestamp_ms".into(), json!(opts.timestamp_s.saturating_mul(1000)));
    top.insert("global options".into(), options_map(&result.global_options));
    let jobs: Vec<Value> = result.jobs.iter().map(|j| job_json(j, result, opts)).collect();
    top.insert("jobs".into(), Value::Array(jobs));
    top.insert("disk_util".into(), Value::Array(Vec::new()));
    top.insert("ssdlab".into(), run_facts(result));
    Value::Object(top)
}

/// Pretty-printed [`fio_json`] with a trailing newline.
pub fn fio_json_string(result: &RunResult, opts: &JsonOptions) -> String {
    let mut s = serde_json::to_string_pretty(&fio_json(result, opts)).unwrap_or_default();
    s.push('\n');
    s
}

/// Facts needed to reproduce the run (fio has no place for them).
fn run_facts(r: &RunResult) -> Value {
    json!({
        "seed": r.seed,
        "time_scale": r.time_scale,
        "device": r.device,
        "interrupted": r.interrupted,
        "sim_start_ns": r.start_ns,
        "sim_end_ns": r.end_ns,
    })
}

fn options_map(opts: &[(String, String)]) -> Value {
    Value::Object(opts.iter().map(|(k, v)| (k.clone(), json!(v))).collect())
}

fn job_json(job: &JobResult, run: &RunResult, opts: &JsonOptions) -> Value {
    let runtime_ms = ns_to_ms(job.job_runtime_ns());
    let mut m = Map::new();
    m.insert("jobname".into(), json!(job.name));
    m.insert("groupid".into(), json!(job.groupid));
    m.insert("error".into(), json!(job.error_code()));
    m.insert("eta".into(), json!(0));
    // fio's `elapsed` is wall time, not `job_runtime`'s sum over merged threads.
    let span_ns = job.runtime_ns() + job.verify.runtime_ns;
    m.insert("elapsed".into(), json!(span_ns.div_ceil(1_000_000_000)));
    m.insert("job options".into(), options_map(&job.options));
    if job.unified_rw != UnifiedRw::Mixed {
        for (d, name) in DIR_NAMES.iter().enumerate() {
            m.insert((*name).into(), dir_json(job, d, &dir_summary(job, d, run), opts.plus));
        }
        m.insert("sync".into(), json!({"total_ios": 0, "lat_ns": empty_lat()}));
    }
    if job.unified_rw != UnifiedRw::None {
        // fio: "mixed" replaces the directions and "sync" (mixed) or follows them (both).
        let mixed = mixed_view(job);
        let group_bw = match job.unified_rw {
            UnifiedRw::Mixed => group_dir(run, job.groupid, 0),
            _ => group_mixed(run, job.groupid),
        };
        let sum = dir_summary_in(&mixed, 0, group_bw.map_or(0.0, |g| g.agg_bytes_per_s));
        m.insert("mixed".into(), dir_json(&mixed, 0, &sum, opts.plus));
    }
    m.insert("job_runtime".into(), json!(runtime_ms));
    // Host CPU, as fio reports it: percent of the job's runtime, and counts.
    let u = job.host_usage.unwrap_or_default();
    let pct = |ns: u64| if job.runtime_ns() == 0 { 0.0 } else { ns as f64 * 100.0 / job.runtime_ns() as f64 };
    m.insert("usr_cpu".into(), json!(pct(u.usr_ns)));
    m.insert("sys_cpu".into(), json!(pct(u.sys_ns)));
    m.insert("ctx".into(), json!(u.ctx));
    m.insert("majf".into(), json!(u.majf));
    m.insert("minf".into(), json!(u.minf));
    m.insert("iodepth_level".into(), iodepth_level(&job.iodepth_levels));
    let one_at_a_time = json!({"0": 0.0, "4": 100.0, "8": 0.0, "16": 0.0, "32": 0.0, "64": 0.0, ">=64": 0.0});
    m.insert("iodepth_submit".into(), one_at_a_time.clone());
    m.insert("iodepth_complete".into(), one_at_a_time);
    latency_buckets(job, &mut m);
    if let Some(ss) = &job.steady_state {
        let unit = if ss.criterion.limit_is_percent { "%" } else { "" };
        m.insert(
            "steadystate".into(),
            json!({
                "ss": ss.criterion.metric.as_str(),
                "duration": ss.criterion.dur_ns as f64 / 1e9,
                "attained": u8::from(ss.reached),
                "criterion": format!("{:.2}{unit}", ss.criterion.limit),
            }),
        );
    }
    Value::Object(m)
}

fn ns_to_ms(ns: u64) -> u64 {
    runtime_ms(ns)
}

fn empty_lat() -> Value {
    json!({"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0})
}

fn dir_json(job: &JobResult, d: usize, sum: &DirSummary, plus: bool) -> Value {
    let dir = &job.dirs[d];
    let (bw, bw_sum, iops_sum) = (sum.bw_bytes_per_s, sum.bw_kib, sum.iops_samples);
    let mut m = Map::new();
    m.insert("io_bytes".into(), json!(dir.io_bytes));
    m.insert("io_kbytes".into(), json!(dir.io_bytes / 1024));
    m.insert("bw_bytes".into(), json!(sat_u64(bw)));
    m.insert("bw".into(), json!(sat_u64(bw / 1024.0)));
    m.insert("iops".into(), json!(sum.iops));
    m.insert("runtime".into(), json!(ns_to_ms(sum.runtime_ns)));
    m.insert("total_ios".into(), json!(dir.ios));
    m.insert("short_ios".into(), json!(0));
    m.insert("drop_ios".into(), json!(0));
    m.insert("slat_ns".into(), empty_lat());
    m.insert("clat_ns".into(), hist_json(&dir.clat, &job.percentile_list, plus));
    m.insert("lat_ns".into(), hist_json(&dir.clat, &[], false));
    m.insert("bw_min".into(), json!(sat_u64(bw_sum.min)));
    m.insert("bw_max".into(), json!(sat_u64(bw_sum.max)));
    m.insert("bw_agg".into(), json!(sum.agg_percent));
    m.insert("bw_mean".into(), json!(bw_sum.mean));
    m.insert("bw_dev".into(), json!(bw_sum.stddev));
    m.insert("bw_samples".into(), json!(bw_sum.samples));
    m.insert("iops_min".into(), json!(sat_u64(iops_sum.min)));
    m.insert("iops_max".into(), json!(sat_u64(iops_sum.max)));
    m.insert("iops_mean".into(), json!(iops_sum.mean));
    m.insert("iops_stddev".into(), json!(iops_sum.stddev));
    m.insert("iops_samples".into(), json!(iops_sum.samples));
    Value::Object(m)
}

/// min/max/mean/stddev/N, plus percentiles (when any I/O and a list) and json+ bins.
fn hist_json(h: &Histogram, percentiles: &[f64], plus: bool) -> Value {
    let mut m = Map::new();
    m.insert("min".into(), json!(h.min()));
    m.insert("max".into(), json!(h.max()));
    m.insert("mean".into(), json!(h.mean()));
    m.insert("stddev".into(), json!(h.stddev()));
    m.insert("N".into(), json!(h.count()));
    if h.count() > 0 && !percentiles.is_empty() {
        let p: Map<String, Value> = percentiles.iter().map(|&p| (format!("{p:.6}"), json!(h.percentile(p)))).collect();
        m.insert("percentile".into(), Value::Object(p));
    }
    if plus && h.count() > 0 {
        let bins: Map<String, Value> = h.bins().map(|(v, c)| (v.to_string(), json!(c))).collect();
        m.insert("bins".into(), Value::Object(bins));
    }
    Value::Object(m)
}

fn iodepth_level(levels: &[u64; 7]) -> Value {
    let total: u64 = levels.iter().sum();
    let keys = ["1", "2", "4", "8", "16", "32", ">=64"];
    let m: Map<String, Value> = keys
        .iter()
        .zip(levels)
        .map(|(k, &n)| (k.to_string(), json!(if total > 0 { n as f64 * 100.0 / total as f64 } else { 0.0 })))
        .collect();
    Value::Object(m)
}

/// fio's `latency_ns|us|ms`: percent of all I/Os whose completion latency falls in each range
/// (up to and including the key), at histogram resolution.
fn latency_buckets(job: &JobResult, m: &mut Map<String, Value>) {
    let mut all = Histogram::new();
    job.dirs.iter().for_each(|d| all.merge(&d.clat));
    let mut below_prev = 0.0;
    for (unit, ns_per) in [("latency_ns", 1u64), ("latency_us", 1_000), ("latency_ms", 1_000_000)] {
        let mut map = Map::new();
        let bounds = if unit == "latency_ms" {
            &[2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000][..]
        } else {
            &LAT_BOUNDS[..]
        };
        for &b in bounds {
            let cum = all.percent_at_or_below(b * ns_per);
            map.insert(b.to_string(), json!(round2(cum - below_prev)));
            below_prev = cum;
        }
        if unit == "latency_ms" {
            let rest = if all.count() > 0 { 100.0 - below_prev } else { 0.0 };
            map.insert(">=2000".into(), json!(round2(rest.max(0.0))));
        }
        m.insert(unit.into(), Value::Object(map));
    }
    m.insert("latency_depth".into(), json!(job.latency.depth));
    m.insert("latency_target".into(), json!(job.latency.target_ns));
    m.insert("latency_percentile".into(), json!(job.latency.percentile));
    m.insert("latency_window".into(), json!(job.latency.window_us));
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}
