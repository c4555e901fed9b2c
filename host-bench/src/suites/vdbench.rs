//! VDBench-style application profiles (Oracle, SQL, VDI, VSI) run as an iorate curve: the
//! maximum IOPS first (closed loop, threads x QD), then 10%..100% of it open-loop, with the
//! latency at each point.
//!
//! The profiles are those of `calibration/profiles.csv` (read %, read and write bssplits, 80%
//! random). **Remainder assumption:** the source's splits do not sum to 100% and do not say what
//! the rest is. We treat the listed shares as relative weights and scale them up to 100%
//! (distribute the remainder proportionally over the listed sizes): it invents no block size
//! the source does not name, keeps the ratios between the named sizes, and keeps the mean
//! transfer size of the named sizes. fio's bssplit takes integer percents, so the scaled shares
//! are rounded by largest remainder (each within 1 point); read % is rounded to an integer too.

use super::{cell, Bench, Ctl, OutDir, Perf, SuiteError};
use crate::job::build::JobFileBuilder;
use crate::job::RwMode;
use crate::plot::{self, Chart, Series, Style};
use serde::Serialize;
use serde_json::json;

/// The remainder assumption, as written into every result JSON.
pub const REMAINDER_ASSUMPTION: &str = "listed bssplit shares do not sum to 100%; they are treated as relative weights and \
    scaled to 100% (the remainder is distributed proportionally over the listed sizes), then rounded to integer percents \
    by largest remainder; read % is rounded to an integer";

/// One application profile as published.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct AppProfile {
    pub name: &'static str,
    pub read_pct: f64,
    /// (KiB, percent) as listed.
    pub read_split: &'static [(u32, f64)],
    pub write_split: &'static [(u32, f64)],
    pub random_pct: u32,
}

/// calibration/profiles.csv, verbatim.
pub const PROFILES: [AppProfile; 4] = [
    AppProfile {
        name: "oracle",
        read_pct: 83.14,
        read_split: &[(4, 22.1), (8, 37.3), (16, 19.12)],
        write_split: &[(4, 22.1), (8, 37.3), (16, 19.12)],
        random_pct: 80,
    },
    AppProfile {
        name: "sql",
        read_pct: 68.42,
        read_split: &[(8, 53.57), (64, 28.75)],
        write_split: &[(4, 27.85), (8, 35.24), (64, 26.35)],
        random_pct: 80,
    },
    AppProfile {
        name: "vdi",
        read_pct: 59.48,
        read_split: &[(4, 39.35), (16, 16.47), (32, 10.37), (64, 12.86)],
        write_split: &[(4, 61.11), (8, 13.05)],
        random_pct: 80,
    },
    AppProfile {
        name: "vsi",
        read_pct: 57.4,
        read_split: &[(4, 25.68), (8, 26.31), (60, 10.52)],
        write_split: &[(4, 59.62), (8, 14.81)],
        random_pct: 80,
    },
];

pub fn profile(name: &str) -> Option<&'static AppProfile> {
    PROFILES.iter().find(|p| p.name == name)
}

/// Listed shares scaled to 100 and rounded to integers summing to exactly 100 (largest remainder).
pub fn normalized_split(split: &[(u32, f64)]) -> Vec<(u32, u32)> {
    let total: f64 = split.iter().map(|s| s.1).sum();
    if split.is_empty() || total <= 0.0 {
        return Vec::new();
    }
    let exact: Vec<f64> = split.iter().map(|s| s.1 / total * 100.0).collect();
    let mut ints: Vec<u32> = exact.iter().map(|e| nand_model::cast::sat_u32(e.floor())).collect();
    let mut order: Vec<usize> = (0..split.len()).collect();
    order.sort_by(|&a, &b| (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor())).then(a.cmp(&b)));
    let short = 100u32.saturating_sub(ints.iter().sum());
    for &i in order.iter().cycle().take(short as usize) {
        ints[i] += 1;
    }
    split.iter().zip(ints).map(|(s, p)| (s.0, p)).collect()
}

/// Curve options; recorded.
#[derive(Clone, Debug, Serialize)]
pub struct CurveOptions {
    pub threads: u32,
    pub qd: u32,
    /// Full-scale seconds per point.
    pub point_s: f64,
    /// Load points as percent of the maximum (vdbench iorate curve: 10..=100 step 10).
    pub steps_pct: Vec<u32>,
    /// Sequential fill passes before the curve (reads then hit written data).
    pub fill_passes: u32,
}

impl Default for CurveOptions {
    /// T8Q32, as the vdbench row of measured.csv; 1-minute points.
    fn default() -> Self {
        CurveOptions {
            threads: 8,
            qd: 32,
            point_s: 60.0,
            steps_pct: (1..=10).map(|i| i * 10).collect(),
            fill_passes: 1,
        }
    }
}

/// One point of the curve.
#[derive(Clone, Debug, Serialize)]
pub struct CurvePoint {
    /// Target as percent of max; `None` for the closed-loop max run.
    pub load_pct: Option<u32>,
    pub target_iops: Option<u64>,
    pub perf: Perf,
}

#[derive(Clone, Debug, Serialize)]
pub struct ProfileResult {
    pub profile: AppProfile,
    pub read_pct_used: u32,
    pub read_split_used: Vec<(u32, u32)>,
    pub write_split_used: Vec<(u32, u32)>,
    pub max: Option<CurvePoint>,
    pub curve: Vec<CurvePoint>,
    pub interrupted: bool,
}

/// VDBench's iorate counts reads and writes together; fio limits each direction, by bytes
/// (`rate_iops` counts in the smallest block size), so the total is split by the read share
/// and given as `rate` at each direction's mean block size (a direction without I/O: no limit).
/// Returns (read, write) bytes per second.
fn rate_per_direction(total: u64, read_pct: u32, rs: &[(u32, u32)], ws: &[(u32, u32)]) -> (u64, u64) {
    let mean_bytes = |s: &[(u32, u32)]| s.iter().map(|&(k, p)| u64::from(k) * 1024 * u64::from(p)).sum::<u64>() / 100;
    let share = |pct: u64, split: &[(u32, u32)]| {
        if pct == 0 {
            0
        } else {
            ((total * pct / 100).max(1) * mean_bytes(split).max(512)).max(1)
        }
    };
    let read_pct = u64::from(read_pct.min(100));
    (share(read_pct, rs), share(100 - read_pct, ws))
}

/// One point of the curve as job section `name`: closed loop at threads x QD, or rate-limited
/// to `rate` IOPS with at most threads x QD outstanding from one job.
fn section(b: &mut JobFileBuilder, p: &AppProfile, name: &str, rate: Option<u64>, o: &CurveOptions) {
    let (read_pct, rs, ws) = (
        nand_model::cast::sat_u32(p.read_pct.round()),
        normalized_split(p.read_split),
        normalized_split(p.write_split),
    );
    let (depth, jobs) = match rate {
        None => (o.qd, o.threads),
        Some(_) => ((o.qd * o.threads).min(65536), 1),
    };
    let in_bytes = |s: &[(u32, u32)]| s.iter().map(|&(k, pct)| (k * 1024, pct)).collect::<Vec<_>>();
    let job = b
        .job(name)
        .stonewall()
        .rw(RwMode::RandRw)
        .rwmixread(read_pct)
        .percentage_random(p.random_pct)
        .bssplit(&in_bytes(&rs), &in_bytes(&ws))
        .iodepth(depth)
        .numjobs(jobs)
        .group_reporting();
    let job = match rate {
        None => job,
        Some(r) => {
            let (read, write) = rate_per_direction(r.max(1), read_pct, &rs, &ws);
            job.rate(read, write)
        }
    };
    job.time_based_for(o.point_s);
}

/// Runs the iorate curve of `p` and writes `vdbench-NAME.json`, `.csv` and `.svg`.
pub fn run(
    bench: &mut dyn Bench,
    p: &AppProfile,
    o: &CurveOptions,
    out: &mut OutDir,
    ctl: &mut Ctl,
) -> Result<ProfileResult, SuiteError> {
    if o.threads == 0 || o.qd == 0 || o.point_s <= 0.0 || o.steps_pct.iter().any(|&s| s == 0 || s > 1000) {
        return Err(SuiteError::BadOption {
            option: "vdbench curve",
            problem: "threads, qd, point_s > 0 and steps in 1..=1000%".into(),
        });
    }
    let purge = bench.purge()?;
    super::pts::precondition(bench, o.fill_passes, ctl, (0.0, 0.1))?;
    let mut res = ProfileResult {
        profile: *p,
        read_pct_used: nand_model::cast::sat_u32(p.read_pct.round()),
        read_split_used: normalized_split(p.read_split),
        write_split_used: normalized_split(p.write_split),
        max: None,
        curve: Vec::new(),
        interrupted: ctl.stopped(),
    };
    if !res.interrupted {
        let mut b = JobFileBuilder::new("max.fio");
        section(&mut b, p, "max", None, o);
        let r = bench.run_job(&b.build()?, ctl, "iorate=max", (0.1, 0.25))?;
        res.interrupted = r.interrupted;
        res.max = r.jobs.first().map(|j| CurvePoint { load_pct: None, target_iops: None, perf: Perf::of(j, bench) });
    }
    if let (Some(max), false) = (&res.max, res.interrupted) {
        let mut b = JobFileBuilder::new("curve.fio");
        let targets: Vec<u64> = o
            .steps_pct
            .iter()
            .map(|&s| nand_model::cast::sat_u64((max.perf.iops * s as f64 / 100.0).round()))
            .collect();
        for (s, t) in o.steps_pct.iter().zip(&targets) {
            section(&mut b, p, &format!("iorate-{s}pct"), Some(*t), o);
        }
        let r = bench.run_job(&b.build()?, ctl, "iorate curve", (0.25, 1.0))?;
        res.interrupted = r.interrupted;
        res.curve = o
            .steps_pct
            .iter()
            .zip(&targets)
            .zip(&r.jobs)
            .map(|((&s, &t), j)| CurvePoint { load_pct: Some(s), target_iops: Some(t), perf: Perf::of(j, bench) })
            .collect();
    }
    let v = json!({"suite": "vdbench-profile", "profile": p.name, "remainder_assumption": REMAINDER_ASSUMPTION, "options": o, "config": bench.describe(), "purge": purge, "result": res});
    out.json(&format!("vdbench-{}.json", p.name), &v)?;
    let rows: Vec<Vec<String>> = res
        .max
        .iter()
        .chain(&res.curve)
        .map(|c| {
            vec![
                c.load_pct.map_or("max".into(), |s| s.to_string()),
                c.target_iops.map_or(String::new(), |t| t.to_string()),
                cell(c.perf.iops),
                cell(c.perf.mbps),
                cell(c.perf.lat.mean_us),
                cell(c.perf.read_lat.mean_us),
                cell(c.perf.write_lat.mean_us),
                cell(c.perf.lat.p99_us),
                cell(c.perf.lat.p99_99_us),
            ]
        })
        .collect();
    out.csv(
        &format!("vdbench-{}.csv", p.name),
        &[
            "load_pct",
            "target_iops",
            "iops",
            "mbps",
            "lat_mean_us",
            "read_lat_mean_us",
            "write_lat_mean_us",
            "lat_p99_us",
            "lat_p99_99_us",
        ],
        &rows,
    )?;
    let pts = |f: fn(&Perf) -> f64| res.curve.iter().map(|c| (c.perf.iops, f(&c.perf))).collect::<Vec<_>>();
    let mut chart = Chart::new(
        format!(
            "{}: latency vs IOPS (iorate curve, max {:.0} IOPS)",
            p.name,
            res.max.as_ref().map_or(0.0, |m| m.perf.iops)
        ),
        "IOPS",
        "latency (us)",
    )
    .with(Series::new("mean", pts(|p| p.lat.mean_us), Style::LinePoints))
    .with(Series::new("read mean", pts(|p| p.read_lat.mean_us), Style::LinePoints))
    .with(Series::new("write mean", pts(|p| p.write_lat.mean_us), Style::LinePoints));
    chart.series.push(Series::new("p99", pts(|p| p.lat.p99_us), Style::Dashed));
    let svg = plot::render(&chart).map_err(|e| SuiteError::Plot { name: p.name.into(), message: e.to_string() })?;
    out.text(&format!("vdbench-{}.svg", p.name), &svg)?;
    Ok(res)
}
