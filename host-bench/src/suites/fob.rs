//! Fresh-out-of-box -> transition -> steady state: purge, optionally fill sequentially, then
//! 4 KiB random writes (QD32 x 4 jobs) for N drive writes, reporting per-second IOPS and WA.
//! PTS-E WSAT is the same curve without the fill (4 user capacities), so it lives here too.
//!
//! Time to steady state applies the SNIA detector ([`super::steady`]) to 1-minute rounds of
//! IOPS: it is the start of the first 5-minute window that passes.

use super::steady::{self, Determination};
use super::{cell, r6, Bench, Ctl, OutDir, Perf, SuiteError};
use crate::job::build::JobFileBuilder;
use crate::job::RwMode;
use crate::plot::{self, Chart, Series, Style};
use crate::stats::{iops_per_window, windows, IntervalPoint, SampleSummary, DEVICE_SECOND_NS};
use serde::Serialize;
use serde_json::{json, Value};

/// Curve options; recorded in the result JSON.
#[derive(Clone, Debug, Serialize)]
pub struct CurveOptions {
    /// Sequential 128 KiB fill of the user capacity before the random writes.
    pub fill: bool,
    /// Random writes, in user capacities.
    pub drive_writes: f64,
    pub threads: u32,
    pub qd: u32,
    pub bs_bytes: u32,
    /// Time cap, full-scale seconds.
    pub max_s: f64,
    /// Round length of the steady-state detector, full-scale seconds.
    pub round_s: f64,
}

impl CurveOptions {
    /// `ssdlab fob` defaults: fill, 3 drive writes, 4 KiB QD32 x 4 jobs.
    pub fn fob() -> Self {
        CurveOptions {
            fill: true,
            drive_writes: 3.0,
            threads: 4,
            qd: 32,
            bs_bytes: 4096,
            max_s: 7.0 * 86_400.0,
            round_s: 60.0,
        }
    }

    /// PTS-E WSAT: from purge, 4 user capacities or 24 h.
    pub fn wsat(threads: u32, qd: u32, capacities: f64, max_s: f64) -> Self {
        CurveOptions { fill: false, drive_writes: capacities, threads, qd, bs_bytes: 4096, max_s, round_s: 60.0 }
    }

    fn validate(&self) -> Result<(), SuiteError> {
        let ok = self.drive_writes > 0.0
            && self.drive_writes <= 100.0
            && self.threads >= 1
            && self.qd >= 1
            && self.max_s > 0.0
            && self.round_s > 0.0;
        if ok {
            Ok(())
        } else {
            Err(SuiteError::BadOption {
                option: "curve",
                problem: "drive writes in (0, 100], threads and qd >= 1, durations > 0".into(),
            })
        }
    }
}

/// One second (full-scale) of the curve.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CurvePoint {
    /// End of the interval, full-scale seconds since the random writes began.
    pub t_s: f64,
    pub iops: f64,
    pub write_mbps: f64,
    pub mean_lat_us: f64,
    /// Host writes so far, in user capacities.
    pub drive_writes: f64,
    /// Host writes so far at full scale, GB.
    pub gb_written: f64,
    /// NAND / host writes in this interval (simulator only).
    pub wa: Option<f64>,
}

/// Write IOPS per device second from the start of steady state to the end of the curve.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SteadySpread {
    pub samples: u64,
    pub mean_iops: f64,
    pub cov_pct: f64,
    pub min_iops: f64,
    /// Device seconds without a completed write.
    pub zero_samples: u64,
    /// Full-scale seconds of drive writes one sample spans (1 on a real drive).
    pub sample_full_scale_s: f64,
}

/// Write IOPS over one device second of the curve: at scale 1/N the span of N full-scale
/// seconds that holds as many I/Os and NAND operations as one second of the real drive, so its
/// spread is a real second's (a full-scale second's point holds 1/N of them). On a real drive
/// (or at scale 1) it is one point.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DeviceSecond {
    /// End of the span, full-scale seconds since the random writes began.
    pub t_s: f64,
    /// Host writes at the end of the span, in user capacities.
    pub drive_writes: f64,
    pub iops: f64,
    /// The curve's points (full-scale seconds) the span holds: `first_point..first_point + points`.
    pub first_point: usize,
    pub points: usize,
}

/// The whole curve and its steady-state determination.
#[derive(Clone, Debug, Serialize)]
pub struct Curve {
    pub options: CurveOptions,
    /// How the drive was returned to fresh-out-of-box.
    pub purge: Value,
    pub fill: Option<Perf>,
    pub perf: Option<Perf>,
    pub points: Vec<CurvePoint>,
    /// The same curve per device second (see [`DeviceSecond`]); a last span shorter than half a
    /// second is left out.
    pub device_seconds: Vec<DeviceSecond>,
    /// Mean IOPS per round of `round_s`.
    pub rounds: Vec<f64>,
    pub determination: Option<Determination>,
    /// Start of the window from which steady state is sustained (see `steady::sustained`), full-scale seconds; `None` if not reached.
    pub time_to_steady_state_s: Option<f64>,
    /// Host writes (in user capacities) at the start of that window: where a review marks
    /// steady state on its drive-writes axis.
    pub drive_writes_to_steady_state: Option<f64>,
    /// Per-second spread once steady state is reached, over device seconds (see
    /// `stats::iops_per_window`): the curve's points are full-scale seconds, which at 1/N hold
    /// 1/N of a real second's I/Os.
    pub steady_per_second: Option<SteadySpread>,
    /// The same over the curve's last drive write, on curves of at least two (`None` on
    /// shorter ones). SNIA's window opens while IOPS still recover from the cliff (on
    /// generic-tlc they climb ~10% over the next half drive write), and that drift dominates
    /// `steady_per_second`; a drive turned over once more has settled, as the real drives had
    /// when their stability tests ran (ezFIO's follows two drive writes of random writes).
    pub last_drive_write_per_second: Option<SteadySpread>,
    pub interrupted: bool,
}

/// Purges `bench` and runs the curve.
pub fn run_curve(bench: &mut dyn Bench, o: &CurveOptions, ctl: &mut Ctl) -> Result<Curve, SuiteError> {
    o.validate()?;
    let purge = bench.purge()?;
    let fill = if o.fill { super::pts::precondition(bench, 1, ctl, (0.0, 0.1))? } else { None };
    let cap = bench.info().capacity_bytes;
    let per_job = (nand_model::cast::sat_u64(cap as f64 * o.drive_writes / o.threads as f64) / u64::from(o.bs_bytes))
        .max(1)
        * u64::from(o.bs_bytes);
    // Uniformly random offsets, as SNIA's WSAT defines them (no random map: fio's default makes each
    // drive write a permutation, whose steady state has a lower WA).
    let mut b = JobFileBuilder::new("randwrite.fio");
    b.job("randwrite")
        .rw(RwMode::RandWrite)
        .bs(o.bs_bytes)
        .iodepth(o.qd)
        .numjobs(o.threads)
        .group_reporting()
        .io_size(per_job)
        .runtime_ms(nand_model::cast::sat_u64((o.max_s * 1000.0).round()))
        .fresh_uniform_offsets();
    let job = b.build();
    let mut curve = Curve {
        options: o.clone(),
        purge,
        fill,
        perf: None,
        points: Vec::new(),
        device_seconds: Vec::new(),
        rounds: Vec::new(),
        determination: None,
        time_to_steady_state_s: None,
        drive_writes_to_steady_state: None,
        steady_per_second: None,
        last_drive_write_per_second: None,
        interrupted: ctl.stopped(),
    };
    if curve.interrupted {
        return Ok(curve);
    }
    let r = bench.run_job(&job?, ctl, "random writes", (0.1, 1.0))?;
    curve.interrupted = r.interrupted;
    let Some(job) = r.jobs.first() else {
        return Ok(curve);
    };
    curve.perf = Some(Perf::of(job, bench));
    let ts = bench.time_scale();
    let mut bytes = 0u64;
    for p in &job.series {
        bytes += p.bytes[1];
        let t0 = job.start_ns + p.start_ns;
        let wa = bench.write_amplification(t0, t0 + p.duration_ns);
        curve.points.push(CurvePoint {
            t_s: r6((p.start_ns + p.duration_ns) as f64 / 1e9 / ts),
            iops: r6(p.iops(1)),
            write_mbps: r6(p.bw_bytes_per_s(1) / 1e6),
            mean_lat_us: r6(p.lat_mean_ns[1] / 1e3),
            drive_writes: r6(bytes as f64 / cap.max(1) as f64),
            gb_written: r6(bytes as f64 / ts / 1e9),
            wa: wa.map(r6),
        });
    }
    curve.device_seconds = device_seconds(&job.series, &curve.points);
    curve.rounds = minute_rounds(&curve.points, o.round_s);
    curve.determination = steady::sustained(&curve.rounds);
    curve.time_to_steady_state_s =
        curve.determination.as_ref().filter(|d| d.reached).map(|d| (d.rounds[0] - 1) as f64 * o.round_s);
    curve.drive_writes_to_steady_state = curve.determination.as_ref().filter(|d| d.reached).map(|d| {
        let ends = round_ends(&curve.points, o.round_s);
        // The window starts where the round before it ended (at 0 for the first round).
        d.rounds[0].checked_sub(2).and_then(|k| ends.get(k)).map_or(0.0, |&i| curve.points[i].drive_writes)
    });
    curve.steady_per_second = curve.time_to_steady_state_s.map(|t| {
        let from_ns = nand_model::cast::sat_u64(t * ts * 1e9);
        spread_per_device_second(&job.series[job.series.partition_point(|p| p.start_ns < from_ns)..], ts)
    });
    let total_dw = curve.points.last().map_or(0.0, |p| p.drive_writes);
    if total_dw >= 2.0 {
        // Points and series are one-to-one: the first point past `total - 1` drive writes
        // opens the window (its interval ends after the mark; at most one interval early).
        let from = curve.points.partition_point(|p| p.drive_writes <= total_dw - 1.0);
        curve.last_drive_write_per_second = Some(spread_per_device_second(&job.series[from..], ts));
    }
    Ok(curve)
}

/// Write IOPS per device second over `series` (`time_scale`: device time per full-scale time).
fn spread_per_device_second(series: &[IntervalPoint], time_scale: f64) -> SteadySpread {
    let x = iops_per_window(series, DEVICE_SECOND_NS);
    let s = SampleSummary::from_samples(x.iter().copied());
    SteadySpread {
        samples: s.samples,
        mean_iops: r6(s.mean),
        cov_pct: r6(s.cov_percent),
        min_iops: r6(if s.samples > 0 { s.min } else { 0.0 }),
        zero_samples: x.iter().filter(|&&v| v == 0.0).count() as u64,
        sample_full_scale_s: r6(1.0 / time_scale),
    }
}

/// The curve per device second: `series` and `points` are one-to-one.
fn device_seconds(series: &[IntervalPoint], points: &[CurvePoint]) -> Vec<DeviceSecond> {
    windows(series, DEVICE_SECOND_NS)
        .into_iter()
        .filter_map(|w| {
            let last = points.get(w.points.end.checked_sub(1)?)?;
            Some(DeviceSecond {
                t_s: last.t_s,
                drive_writes: last.drive_writes,
                iops: r6(w.iops),
                first_point: w.points.start,
                points: w.points.len(),
            })
        })
        .collect()
}

/// Index of the last point of each complete round of `round_s` seconds.
fn round_ends(points: &[CurvePoint], round_s: f64) -> Vec<usize> {
    let mut ends = Vec::new();
    for (i, p) in points.iter().enumerate() {
        if p.t_s >= (ends.len() + 1) as f64 * round_s - 1e-6 {
            ends.push(i);
        }
    }
    ends
}

/// Mean IOPS per complete round of `round_s` seconds (a trailing partial round is dropped).
fn minute_rounds(points: &[CurvePoint], round_s: f64) -> Vec<f64> {
    let mut start = 0;
    round_ends(points, round_s)
        .into_iter()
        .map(|end| {
            let r = &points[start..=end];
            start = end + 1;
            r6(r.iter().map(|p| p.iops).sum::<f64>() / r.len() as f64)
        })
        .collect()
}

/// Writes `{prefix}.json`, `{prefix}.csv` and the plots.
pub fn write_curve(out: &mut OutDir, prefix: &str, title: &str, curve: &Curve, meta: Value) -> Result<(), SuiteError> {
    let mut v = meta;
    if let Some(o) = v.as_object_mut() {
        o.insert("curve".into(), json!(curve));
        o.insert("time_to_steady_state_note".into(), json!("start of the 5-round window of 1-minute IOPS rounds from which every later window passes the SNIA range (20%) and slope (10%) criteria (steady state sustained to the end of the curve)"));
    }
    out.json(&format!("{prefix}.json"), &v)?;
    let mut per_device_second = vec![None; curve.points.len()];
    for d in &curve.device_seconds {
        for v in per_device_second.iter_mut().skip(d.first_point).take(d.points) {
            *v = Some(d.iops);
        }
    }
    let rows: Vec<Vec<String>> = curve
        .points
        .iter()
        .zip(&per_device_second)
        .map(|(p, d)| {
            vec![
                cell(p.t_s),
                cell(p.iops),
                cell(p.write_mbps),
                cell(p.mean_lat_us),
                cell(p.drive_writes),
                cell(p.gb_written),
                p.wa.map_or(String::new(), cell),
                d.map_or(String::new(), cell),
            ]
        })
        .collect();
    out.csv(
        &format!("{prefix}.csv"),
        &[
            "time_s",
            "write_iops",
            "write_mbps",
            "write_lat_mean_us",
            "drive_writes",
            "gb_written",
            "wa",
            "write_iops_device_second",
        ],
        &rows,
    )?;
    let ends = round_ends(&curve.points, curve.options.round_s);
    // Full-scale seconds a device second spans (1 on a real drive or at scale 1; the first
    // span starts at 0).
    let device_second_s = curve.device_seconds.first().map_or(1.0, |d| d.t_s);
    let scaled = device_second_s > 1.5;
    let round_x = |x_of: &dyn Fn(&CurvePoint) -> f64, k: usize| ends.get(k).map(|&i| x_of(&curve.points[i]));
    // What reviews draw: the per-round averages and, once steady state is reached, its
    // average with the SNIA band (range 20% = average +-10%) and a marker where it starts.
    let steady = |x_of: &dyn Fn(&CurvePoint) -> f64| -> Vec<Series> {
        let Some(d) = curve.determination.as_ref().filter(|d| d.reached) else { return Vec::new() };
        let first = d.rounds[0];
        let x0 = if first >= 2 { round_x(x_of, first - 2) } else { Some(0.0) };
        // Sustained to the end of the curve (`steady::sustained`), so drawn to its end.
        let (Some(x0), Some(x1)) = (x0, curve.points.last().map(x_of)) else {
            return Vec::new();
        };
        let top = curve.points.iter().map(|p| p.iops).fold(d.average * 1.1, f64::max);
        let red = (200, 0, 0);
        vec![
            Series::new("steady-state average", vec![(x0, d.average), (x1, d.average)], Style::Dashed).color(red),
            Series::new("SNIA band (average +-10%)", vec![(x0, d.average * 1.1), (x1, d.average * 1.1)], Style::Dashed)
                .color((230, 140, 140)),
            Series::new("", vec![(x0, d.average * 0.9), (x1, d.average * 0.9)], Style::Dashed).color((230, 140, 140)),
            Series::new(
                match curve.drive_writes_to_steady_state {
                    Some(dw) => format!("steady state from {dw:.2} drive writes"),
                    None => "steady state reached".into(),
                },
                vec![(x0, 0.0), (x0, top)],
                Style::Dashed,
            )
            .color((90, 90, 90)),
        ]
    };
    let iops = |x_of: &dyn Fn(&CurvePoint) -> f64, xl: &str| {
        let per_second = curve.points.iter().map(|p| (x_of(p), p.iops)).collect();
        let mut c = Chart::new(format!("{title}: IOPS vs {xl}"), xl, "write IOPS");
        c.series.push(if scaled {
            // A full-scale second holds 1/N of a real second's I/Os: drawn faint, under the
            // device-second line, which holds a real second's.
            Series::new("IOPS per full-scale second", per_second, Style::Line).color((190, 190, 190))
        } else {
            Series::new("IOPS (per second)", per_second, Style::Line)
        });
        let rounds: Vec<(f64, f64)> =
            curve.rounds.iter().enumerate().filter_map(|(k, &v)| Some((round_x(x_of, k)?, v))).collect();
        c.series.push(
            Series::new(format!("{:.0} s average", curve.options.round_s), rounds, Style::LinePoints)
                .color((255, 140, 0)),
        );
        if let Some(span_s) = scaled.then_some(device_second_s) {
            let mid = |d: &DeviceSecond| curve.points.get(d.first_point + d.points / 2).map(x_of);
            c.series.push(
                Series::new(
                    format!("IOPS per device second ({span_s:.0} full-scale s: a real second's I/O count)"),
                    curve.device_seconds.iter().filter_map(|d| Some((mid(d)?, d.iops))).collect(),
                    Style::Line,
                )
                .color((0, 90, 200)),
            );
        }
        c.series.extend(steady(x_of));
        c
    };
    let wa = |x_of: &dyn Fn(&CurvePoint) -> f64, xl: &str| {
        Chart::new("write amplification per interval", xl, "WA").with(
            Series::new("WA", curve.points.iter().filter_map(|p| Some((x_of(p), p.wa?))).collect(), Style::Line)
                .color((0, 120, 0)),
        )
    };
    let t = |p: &CurvePoint| p.t_s;
    let dw = |p: &CurvePoint| p.drive_writes;
    let gb = |p: &CurvePoint| p.gb_written;
    let svg = |r: Result<String, plot::PlotError>, name: &str| {
        r.map_err(|e| SuiteError::Plot { name: name.into(), message: e.to_string() })
    };
    out.text(
        &format!("{prefix}-time.svg"),
        &svg(plot::render_stacked(&iops(&t, "time (s)"), &wa(&t, "time (s)")), "time")?,
    )?;
    out.text(
        &format!("{prefix}-drive-writes.svg"),
        &svg(plot::render_stacked(&iops(&dw, "drive writes"), &wa(&dw, "drive writes")), "drive writes")?,
    )?;
    out.text(&format!("{prefix}-gb-written.svg"), &svg(plot::render(&iops(&gb, "GB written")), "gb")?)?;
    Ok(())
}

/// `ssdlab fob`: runs the curve and writes `fob.json`, `fob.csv` and the plots.
pub fn run(bench: &mut dyn Bench, o: &CurveOptions, out: &mut OutDir, ctl: &mut Ctl) -> Result<Curve, SuiteError> {
    let curve = run_curve(bench, o, ctl)?;
    let meta = json!({"suite": "fob-to-steady-state", "options": o, "config": bench.describe()});
    write_curve(out, "fob", "FOB -> steady state", &curve, meta)?;
    Ok(curve)
}
