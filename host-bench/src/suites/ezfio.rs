//! ezFIO's test sequence (the NVMe-recommended steady-state script), in ezFIO's order:
//! 2x SEQ 128 KiB fill (QD64); SEQ read by block size (QD256); RND read by block size (16 threads
//! x QD16); SEQ write QD1 by block size; 2x RND 4 KiB fill (QD256); 4 KiB RND read by thread
//! count (QD1); 4 KiB 70/30 by thread count; the 20-minute 4 KiB 70/30 stability test at 256
//! threads (per-second IOPS, average, stddev, CoV); 4 KiB RND write by thread count; RND write by
//! block size. `quick` shortens every point and the stability test and thins the sweeps.

use super::{cell, r6, Bench, BenchConfig, Ctl, OutDir, Perf, SuiteError};
use crate::job::build::{JobFileBuilder, Section};
use crate::job::RwMode;
use crate::plot::{self, Chart, Series, Style};
use crate::stats::{iops_per_window, stability_full_scale_s, SampleSummary, DEVICE_SECOND_NS};
use serde::Serialize;
use serde_json::{json, Value};

/// A job as ezFIO writes every one: offsets drawn with replacement (no random map) and a fresh
/// seed per fio invocation. With fio's defaults instead, the random fill would be a permutation
/// that leaves the spare space full of wholly invalid blocks, and each later job would replay
/// the fill's offsets: both make GC nearly free for a while (a P5520's 70/30 stability test then
/// starts at ~720k IOPS for 700 s before falling to ~460k).
fn ezfio_job(job: Section, rw: Rw, bs: u32, qd: u32, threads: u32) -> Section {
    let job = match rw {
        (mode, Some(mix)) => job.rw(mode).rwmixread(mix),
        (mode, None) => job.rw(mode),
    };
    job.bs(bs).iodepth(qd).numjobs(threads).group_reporting().fresh_uniform_offsets()
}

/// A pattern and, for mixed ones, its read percent.
type Rw = (RwMode, Option<u32>);

/// Options; recorded in the result JSON.
#[derive(Clone, Debug, Serialize)]
pub struct EzfioOptions {
    /// Full-scale seconds per sweep point.
    pub point_s: f64,
    /// Full-scale seconds of the 70/30 stability test (ezFIO: 1200).
    pub stability_s: f64,
    /// Thinned sweeps (every other size / thread count).
    pub quick: bool,
}

impl EzfioOptions {
    pub fn full() -> Self {
        EzfioOptions { point_s: 60.0, stability_s: EZFIO_STABILITY_S, quick: false }
    }

    /// 5 s points, a 60 s stability test and thinned sweeps.
    pub fn quick() -> Self {
        EzfioOptions { point_s: 5.0, stability_s: 60.0, quick: true }
    }
}

/// One point of a sweep.
#[derive(Clone, Debug, Serialize)]
pub struct Point {
    /// Block size in bytes or thread count.
    pub x: u32,
    pub perf: Perf,
}

/// One ezFIO test.
#[derive(Clone, Debug, Serialize)]
pub struct TestResult {
    pub name: String,
    /// What `x` is: "bs_bytes" or "threads".
    pub x: &'static str,
    pub points: Vec<Point>,
}

/// The stability test's per-second IOPS and their summary. The seconds are device seconds
/// (`stats::iops_per_window`): at scale 1/N each spans N full-scale seconds of drive writes and
/// holds a real second's I/Os and NAND operations; on a real drive they are plain seconds.
#[derive(Clone, Debug, Serialize)]
pub struct Stability {
    pub iops_per_s: Vec<f64>,
    /// Full-scale seconds of drive writes each sample spans (1 on a real drive).
    pub sample_full_scale_s: f64,
    pub average: f64,
    pub stddev: f64,
    pub cov_pct: f64,
    pub min: f64,
    pub max: f64,
}

/// Everything the sequence measured.
#[derive(Clone, Debug, Serialize)]
pub struct EzfioResult {
    pub tests: Vec<TestResult>,
    pub stability: Option<Stability>,
    pub interrupted: bool,
}

const KIB: u32 = 1024;

/// Full-scale seconds of ezFIO's 70/30 stability test (its 20 minutes).
pub const EZFIO_STABILITY_S: f64 = 1200.0;

/// A test of the sequence: name, rw, x axis, points, threads and QD per point.
struct Step {
    name: &'static str,
    rw: Rw,
    by_threads: bool,
    xs: Vec<u32>,
    threads: u32,
    qd: u32,
}

fn thin(v: Vec<u32>, quick: bool) -> Vec<u32> {
    if quick {
        v.into_iter().step_by(2).collect()
    } else {
        v
    }
}

fn steps(q: bool) -> Vec<Step> {
    let bs_all = || {
        thin(vec![512, 4 * KIB, 8 * KIB, 16 * KIB, 32 * KIB, 64 * KIB, 128 * KIB, 256 * KIB, 512 * KIB, 1024 * KIB], q)
    };
    let threads = || thin(vec![1, 2, 4, 8, 16, 32, 64, 128, 256], q);
    let s = |name, rw, by_threads, xs, threads, qd| Step { name, rw, by_threads, xs, threads, qd };
    vec![
        s("seq-read-by-bs", (RwMode::Read, None), false, bs_all(), 1, 256),
        s("rnd-read-by-bs", (RwMode::RandRead, None), false, bs_all(), 16, 16),
        s("seq-write-qd1-by-bs", (RwMode::Write, None), false, bs_all(), 1, 1),
        s("fill-rnd-4k", (RwMode::RandWrite, None), false, vec![], 0, 0),
        s("rnd-read-4k-by-threads", (RwMode::RandRead, None), true, threads(), 0, 1),
        s("rnd-7030-4k-by-threads", (RwMode::RandRw, Some(70)), true, threads(), 0, 1),
        s("stability-7030-4k", (RwMode::RandRw, Some(70)), false, vec![], 0, 0),
        s("rnd-write-4k-by-threads", (RwMode::RandWrite, None), true, threads(), 0, 1),
        s("rnd-write-by-bs", (RwMode::RandWrite, None), false, bs_all(), 16, 16),
    ]
}

/// Runs the sequence and writes `ezfio.json`, one CSV and one SVG per test.
pub fn run(
    bench: &mut dyn Bench,
    o: &EzfioOptions,
    out: &mut OutDir,
    ctl: &mut Ctl,
) -> Result<EzfioResult, SuiteError> {
    if !(o.point_s >= 0.001 && o.stability_s >= 1.0) {
        return Err(SuiteError::BadOption {
            option: "ezfio durations",
            problem: "point >= 0.001 s, stability >= 1 s".into(),
        });
    }
    let purge = bench.purge()?;
    let fill = |bench: &mut dyn Bench, ctl: &mut Ctl, rw: RwMode, bs: u32, span| -> Result<(), SuiteError> {
        let mut b = JobFileBuilder::new("fill.fio");
        let qd = if rw == RwMode::Write { 64 } else { 256 };
        b.job("fill").rw(rw).bs(bs).iodepth(qd).size_percent(100.0).loops(2).fresh_uniform_offsets();
        bench.run_job(&b.build()?, ctl, "fill", span).map(|_| ())
    };
    fill(bench, ctl, RwMode::Write, 128 * KIB, (0.0, 0.1))?;
    let plan = steps(o.quick);
    let n = plan.len() as f64;
    let mut res = EzfioResult { tests: Vec::new(), stability: None, interrupted: false };
    for (i, st) in plan.iter().enumerate() {
        let span = (0.1 + 0.9 * i as f64 / n, 0.1 + 0.9 * (i + 1) as f64 / n);
        if ctl.stopped() {
            res.interrupted = true;
            break;
        }
        match st.name {
            "fill-rnd-4k" => fill(bench, ctl, st.rw.0, 4 * KIB, span)?,
            "stability-7030-4k" => {
                let mut b = JobFileBuilder::new("stability.fio");
                ezfio_job(b.job("stability"), st.rw, 4 * KIB, 1, 256)
                    .time_based_for(stability_full_scale_s(o.stability_s, bench.time_scale()));
                let r = bench.run_job(&b.build()?, ctl, st.name, span)?;
                res.interrupted |= r.interrupted;
                let iops: Vec<f64> = r
                    .jobs
                    .first()
                    .map(|j| iops_per_window(&j.series, DEVICE_SECOND_NS).into_iter().map(r6).collect())
                    .unwrap_or_default();
                let s = SampleSummary::from_samples(iops.iter().copied());
                res.stability = Some(Stability {
                    iops_per_s: iops,
                    sample_full_scale_s: r6(1.0 / bench.time_scale()),
                    average: r6(s.mean),
                    stddev: r6(s.stddev),
                    cov_pct: r6(s.cov_percent),
                    min: s.min,
                    max: s.max,
                });
            }
            _ => {
                let mut b = JobFileBuilder::new(&format!("{}.fio", st.name));
                for &x in &st.xs {
                    let (bs, threads) = if st.by_threads { (4 * KIB, x) } else { (x, st.threads) };
                    let job = b.job(&format!("{}-{x}", st.name)).stonewall();
                    ezfio_job(job, st.rw, bs, st.qd, threads).time_based_for(o.point_s);
                }
                let r = bench.run_job(&b.build()?, ctl, st.name, span)?;
                res.interrupted |= r.interrupted;
                let points = st.xs.iter().zip(&r.jobs).map(|(&x, j)| Point { x, perf: Perf::of(j, bench) }).collect();
                res.tests.push(TestResult {
                    name: st.name.into(),
                    x: if st.by_threads { "threads" } else { "bs_bytes" },
                    points,
                });
            }
        }
        if res.interrupted {
            break;
        }
    }
    write(out, o, &res, bench.describe(), purge)?;
    Ok(res)
}

fn write(
    out: &mut OutDir,
    o: &EzfioOptions,
    res: &EzfioResult,
    config: BenchConfig,
    purge: Value,
) -> Result<(), SuiteError> {
    out.json("ezfio.json", &json!({"suite": "ezfio", "options": o, "config": config, "purge": purge, "result": res}))?;
    let svg = |r: Result<String, plot::PlotError>, name: &str| {
        r.map_err(|e| SuiteError::Plot { name: name.into(), message: e.to_string() })
    };
    for t in &res.tests {
        let rows: Vec<Vec<String>> = t
            .points
            .iter()
            .map(|p| {
                vec![
                    p.x.to_string(),
                    cell(p.perf.iops),
                    cell(p.perf.mbps),
                    cell(p.perf.lat.mean_us),
                    cell(p.perf.lat.p99_99_us),
                ]
            })
            .collect();
        out.csv(&format!("{}.csv", t.name), &[t.x, "iops", "mbps", "lat_mean_us", "lat_p99_99_us"], &rows)?;
        let bw = t.x == "bs_bytes" && !t.name.starts_with("rnd-read");
        let (label, f): (&str, fn(&Perf) -> f64) = if bw { ("MB/s", |p| p.mbps) } else { ("IOPS", |p| p.iops) };
        let xl = if t.x == "threads" { "threads (QD1 each)" } else { "block size (KiB)" };
        let div = if t.x == "threads" { 1.0 } else { 1024.0 };
        let c = Chart { x_log2: true, ..Chart::new(format!("ezFIO {}", t.name), xl, label) }
            .with(Series::new(
                label,
                t.points.iter().map(|p| (p.x as f64 / div, f(&p.perf))).collect(),
                Style::LinePoints,
            ))
            .with(Series::new(
                "mean latency (us)",
                t.points.iter().map(|p| (p.x as f64 / div, p.perf.lat.mean_us)).collect(),
                Style::Points,
            ));
        out.text(&format!("{}.svg", t.name), &svg(plot::render(&c), &t.name)?)?;
    }
    if let Some(s) = &res.stability {
        // x: full-scale seconds at each sample's end (each sample is one device second).
        let t = |i: usize| r6((i + 1) as f64 * s.sample_full_scale_s);
        let rows: Vec<Vec<String>> = s.iops_per_s.iter().enumerate().map(|(i, v)| vec![cell(t(i)), cell(*v)]).collect();
        out.csv("stability-7030-4k.csv", &["second", "iops"], &rows)?;
        let flat = |k: f64| vec![(t(0), k), (t(s.iops_per_s.len().saturating_sub(1)), k)];
        let per = if s.sample_full_scale_s > 1.0 {
            format!("IOPS per device second ({:.0} full-scale s each)", s.sample_full_scale_s)
        } else {
            "IOPS per second".to_string()
        };
        let c = Chart::new(
            format!("ezFIO 4k 70/30 stability, 256 threads: avg {:.0}, CoV {:.2}%", s.average, s.cov_pct),
            "time (full-scale s)",
            "IOPS",
        )
        .with(Series::new(&per, s.iops_per_s.iter().enumerate().map(|(i, v)| (t(i), *v)).collect(), Style::Line))
        .with(Series::new("average", flat(s.average), Style::Dashed).color((0, 0, 0)))
        .with(Series::new("average - stddev", flat(s.average - s.stddev), Style::Dashed).color((200, 0, 0)))
        .with(Series::new("average + stddev", flat(s.average + s.stddev), Style::Dashed).color((200, 0, 0)));
        out.text("stability-7030-4k.svg", &svg(plot::render(&c), "stability")?)?;
    }
    Ok(())
}
