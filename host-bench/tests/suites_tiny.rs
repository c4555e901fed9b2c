//! Every suite end to end on the `tiny` drive with short settings.
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use host_bench::simrun::SimConfig;
use host_bench::suites::{act, ezfio, fob, pts, pts_report, vdbench, Ctl, OutDir, SimBench};
use std::path::{Path, PathBuf};

mod tmp;
use tmp::TempPath;

fn bench() -> SimBench {
    SimBench::new(SimConfig::new("tiny", 7)).unwrap()
}

/// An output directory and the guard that removes it.
fn out(name: &str) -> (TempPath, OutDir) {
    let dir = TempPath::new(name);
    let o = OutDir::create(dir.to_path_buf()).unwrap();
    (dir, o)
}

/// Vertex counts of the SVG's polylines (plotters draws each line series as one polyline).
fn polylines(svg: &str) -> Vec<usize> {
    svg.split("points=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(|p| p.split_whitespace().count())
        .collect()
}

/// Every plot is a whole SVG that draws data: a plot written beside a CSV table has a line
/// through as many points as the table has rows with a numeric x; any other plot has a line of 3 or more points
/// or several markers (axes and grid lines are 2-point lines).
fn assert_svgs(dir: &Path, names: &[String]) {
    let svgs: Vec<PathBuf> = names.iter().filter(|n| n.ends_with(".svg")).map(|n| dir.join(n)).collect();
    assert!(!svgs.is_empty(), "no plots in {names:?}");
    for p in svgs {
        let t = std::fs::read_to_string(&p).unwrap();
        assert!(t.starts_with("<svg") || t.starts_with("<?xml"), "{}", p.display());
        assert!(t.trim_end().ends_with("</svg>"), "{}", p.display());
        let lines = polylines(&t);
        // Rows on the curve: those with a numeric x (VDBench's `max` row is the run the curve
        // is scaled from, not a point of it).
        let numeric_x = |l: &&str| l.split(',').next().is_some_and(|x| x.parse::<f64>().is_ok());
        let rows = std::fs::read_to_string(p.with_extension("csv"))
            .map(|c| c.lines().skip(1).filter(numeric_x).count())
            .unwrap_or(0);
        if rows >= 2 {
            assert!(lines.contains(&rows), "{}: no line through the {rows} rows of its CSV ({lines:?})", p.display());
        } else {
            let markers = t.matches("<circle").count();
            assert!(lines.iter().any(|&n| n >= 3) || markers >= 2, "{}: no data drawn ({lines:?})", p.display());
        }
    }
}

#[test]
fn pts_iops_reaches_steady_state_with_56_cells() {
    let mut o = pts::PtsOptions::new(pts::PtsTest::Iops);
    o.cell_s = 0.3;
    let mut b = bench();
    let (_dir, mut d) = out("pts");
    let r = pts_report::run(&mut b, &o, &mut d, &mut Ctl::default()).unwrap();
    let seg = &r.segments[0];
    assert!(seg.reached(), "tracking {:?}", seg.tracking_values);
    assert!(seg.rounds.len() >= 5 && seg.rounds.len() <= 25);
    let t = seg.window_table();
    assert_eq!(t.len(), 56);
    let at = |m: u32, bs: u32| t.iter().find(|c| c.cell.read_pct == m && c.cell.bs_bytes == bs).unwrap().iops;
    for bs in [4096, 8192, 65536] {
        assert!(at(100, bs) > at(0, bs) && at(65, bs) > at(5, bs), "bs {bs}");
    }
    let csv = std::fs::read_to_string(d.path().join("iops-table.csv")).unwrap();
    assert_eq!(csv.lines().count(), 9, "{csv}");
    assert_svgs(d.path(), d.written());
}

#[test]
fn pts_throughput_has_two_segments_reads_faster_than_writes() {
    let mut o = pts::PtsOptions::new(pts::PtsTest::Throughput);
    o.cell_s = 0.3;
    let mut b = bench();
    let (_dir, mut d) = out("pts-tp");
    let r = pts_report::run(&mut b, &o, &mut d, &mut Ctl::default()).unwrap();
    assert_eq!(r.segments.len(), 2, "128 KiB and 1 MiB");
    for seg in &r.segments {
        assert!(seg.reached(), "{}: tracking {:?}", seg.name, seg.tracking_values);
        assert_eq!(seg.tracking, pts::Tracking::WriteMbps);
        let t = seg.window_table();
        let (rd, wr) =
            (t.iter().find(|c| c.cell.read_pct == 100).unwrap(), t.iter().find(|c| c.cell.read_pct == 0).unwrap());
        assert!(rd.cell.sequential && wr.cell.sequential);
        // Sequential reads outrun sequential writes (tPROG >> tR), and bandwidth is bytes x IOPS.
        assert!(rd.mbps > wr.mbps && wr.mbps > 0.0, "{}: read {} MB/s write {} MB/s", seg.name, rd.mbps, wr.mbps);
        let bs = rd.cell.bs_bytes as f64;
        assert!((rd.mbps - rd.iops * bs / 1e6).abs() / rd.mbps < 0.01, "{}: {rd:?}", seg.name);
    }
    assert_svgs(d.path(), d.written());
}

#[test]
fn pts_latency_is_qd1_and_grows_with_block_size_and_writes() {
    let mut o = pts::PtsOptions::new(pts::PtsTest::Latency);
    o.cell_s = 0.3;
    let mut b = bench();
    let (_dir, mut d) = out("pts-lat");
    let r = pts_report::run(&mut b, &o, &mut d, &mut Ctl::default()).unwrap();
    let seg = &r.segments[0];
    assert!(seg.reached(), "tracking {:?}", seg.tracking_values);
    assert_eq!((seg.threads, seg.qd), (1, 1), "PTS latency runs T1Q1 whatever the options say");
    let t = seg.window_table();
    assert_eq!(t.len(), 9, "3 mixes x 3 block sizes");
    let at = |m: u32, bs: u32| *t.iter().find(|c| c.cell.read_pct == m && c.cell.bs_bytes == bs).unwrap();
    for m in [100, 65, 0] {
        let us = |bs| at(m, bs).mean_us;
        eprintln!("mix {m}: mean latency 512 B {:.1} us, 4 KiB {:.1} us, 8 KiB {:.1} us", us(512), us(4096), us(8192));
    }
    for m in [100, 65] {
        let (small, big) = (at(m, 512), at(m, 8192));
        assert!(big.mean_us >= small.mean_us, "mix {m}: 8 KiB {} us < 512 B {} us", big.mean_us, small.mean_us);
    }
    // Writes: a 512 B write first reads its 4 KiB unit from NAND (read-modify-write): at least
    // tR slower than a 4 KiB write.
    let t_r_us = ftl::profile::load("tiny").unwrap().profile.timing.t_r_us[0];
    let (rmw, w4k, w8k) = (at(0, 512), at(0, 4096), at(0, 8192));
    assert!(w8k.mean_us >= w4k.mean_us, "writes: 8 KiB {} us < 4 KiB {} us", w8k.mean_us, w4k.mean_us);
    assert!(rmw.mean_us >= w4k.mean_us + t_r_us, "writes: 512 B {} us vs 4 KiB {} us", rmw.mean_us, w4k.mean_us);
    // Percentiles are histogram values, as fio's: a bucket's midpoint, so within 1/128 of the
    // latencies in it; where a cell's latencies are nearly all equal the mean can sit above it.
    for c in &t {
        assert!(c.p99_999_us >= c.mean_us * (1.0 - 1.0 / 128.0) && c.max_us >= c.p99_999_us, "{c:?}");
    }
    // At QD1 the device is never idle within a cell: IOPS x mean latency ~ 1 in every round
    // (Little's law with one I/O outstanding; per round, as averages of products differ).
    for round in &seg.rounds {
        for (cell, p) in seg.cells.iter().zip(round) {
            let busy = p.iops * p.lat.mean_us / 1e6;
            assert!(busy > 0.9 && busy <= 1.001, "{cell:?}: IOPS x latency {busy}");
        }
    }
    assert_svgs(d.path(), d.written());
}

#[test]
fn pts_wsat_falls_from_fob_to_steady_state() {
    let mut o = pts::PtsOptions::new(pts::PtsTest::Wsat);
    o.wsat_capacities = 3.0;
    let mut b = bench();
    let (_dir, mut d) = out("wsat");
    let r = pts_report::run(&mut b, &o, &mut d, &mut Ctl::default()).unwrap();
    let c = r.wsat.unwrap();
    let first = c.points[0].iops;
    let last = c.points[c.points.len() - 2].iops;
    assert!(first > 2.0 * last, "first {first} last {last}");
    assert!(c.points.iter().any(|p| p.wa.is_some_and(|w| w > 1.5)));
    assert_svgs(d.path(), d.written());
}

#[test]
fn ezfio_quick_computes_cov() {
    let o = ezfio::EzfioOptions { point_s: 0.1, stability_s: 8.0, quick: true };
    let mut b = bench();
    let (_dir, mut d) = out("ezfio");
    let r = ezfio::run(&mut b, &o, &mut d, &mut Ctl::default()).unwrap();
    assert_eq!(r.tests.len(), 7);
    let s = r.stability.unwrap();
    // ezFIO's figures from the per-second samples: mean, sample standard deviation (n - 1),
    // CoV = stddev / mean in percent (the report rounds to 6 significant digits).
    let x = &s.iops_per_s;
    assert!(x.len() >= 7, "{s:?}");
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let sd = (x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-5 * b.abs().max(1e-9);
    assert!(close(s.average, mean) && close(s.stddev, sd), "{s:?}: mean {mean}, stddev {sd}");
    assert!(close(s.cov_pct, sd / mean * 100.0), "{s:?}: CoV {}", sd / mean * 100.0);
    assert!(sd > 0.0, "{s:?}");
    let by_threads = r.tests.iter().find(|t| t.name == "rnd-read-4k-by-threads").unwrap();
    assert!(by_threads.points.last().unwrap().perf.iops > 2.0 * by_threads.points[0].perf.iops);
    assert_svgs(d.path(), d.written());
}

/// At reduced scale a stability sample is one device (simulated) second, which holds a real
/// second's I/Os; a full-scale second there is 1/4 of that and its spread is mostly the count.
#[test]
fn ezfio_stability_samples_are_device_seconds_at_reduced_scale() {
    let mut cfg = SimConfig::new("tiny", 7);
    cfg.scale_divisor = Some(4);
    let mut b = SimBench::new(cfg).unwrap();
    let o = ezfio::EzfioOptions { point_s: 0.1, stability_s: 8.0, quick: true };
    let (_dir, mut d) = out("ezfio-scaled");
    let s = ezfio::run(&mut b, &o, &mut d, &mut Ctl::default()).unwrap().stability.unwrap();
    assert_eq!(s.sample_full_scale_s, 4.0, "{s:?}");
    // 8 full-scale s would be 2 device seconds: the test runs 30 device seconds instead.
    assert!((29..=31).contains(&s.iops_per_s.len()), "{} samples", s.iops_per_s.len());
    let csv = std::fs::read_to_string(d.path().join("stability-7030-4k.csv")).unwrap();
    let last: f64 = csv.lines().last().unwrap().split(',').next().unwrap().parse().unwrap();
    assert_eq!(last, 4.0 * s.iops_per_s.len() as f64, "{csv}");
}

#[test]
fn vdbench_latency_increases_with_load() {
    let p = vdbench::profile("oracle").unwrap();
    let o = vdbench::CurveOptions { point_s: 0.5, steps_pct: vec![10, 50, 90, 100], ..Default::default() };
    let mut b = bench();
    let (_dir, mut d) = out("vdbench");
    let r = vdbench::run(&mut b, p, &o, &mut d, &mut Ctl::default()).unwrap();
    assert_eq!(r.read_split_used.iter().map(|s| s.1).sum::<u32>(), 100);
    assert_eq!(r.curve.len(), 4);
    let lat: Vec<f64> = r.curve.iter().map(|c| c.perf.lat.mean_us).collect();
    assert!(lat[3] > lat[0] && lat[2] > lat[0], "{lat:?}");
    let max = r.max.unwrap().perf.iops;
    assert!((r.curve[0].perf.iops / (0.1 * max) - 1.0).abs() < 0.1, "{} of {max}", r.curve[0].perf.iops);
    assert_svgs(d.path(), d.written());
}

#[test]
fn act_passes_low_load_and_fails_absurd_load() {
    let mut o = act::ActOptions { hours: 0.02, slice_s: 24.0, ..Default::default() };
    let (_dir, mut d) = out("act");
    let ok = act::run(&mut bench(), &o, &mut d, &mut Ctl::default()).unwrap();
    assert_eq!(ok.read_bytes, 1536);
    assert_eq!(ok.slices.len(), 3);
    assert!(ok.passed, "{:?}", ok.slices.iter().map(|s| s.pct_over_ms).collect::<Vec<_>>());
    assert_svgs(d.path(), d.written());
    o.load = 300.0;
    o.hours = 0.005;
    o.slice_s = 9.0;
    let bad = act::run(&mut bench(), &o, &mut out("act-bad").1, &mut Ctl::default()).unwrap();
    assert!(!bad.passed);
}

#[test]
fn fob_curve_decreases_then_flattens() {
    let o = fob::CurveOptions { drive_writes: 8.0, round_s: 1.0, ..fob::CurveOptions::fob() };
    let (_dir, mut d) = out("fob");
    let c = fob::run(&mut bench(), &o, &mut d, &mut Ctl::default()).unwrap();
    let n = c.points.len();
    assert!(n > 20, "{n}");
    let early = c.points[0].iops;
    let tail: Vec<f64> = c.points[n * 2 / 3..n - 1].iter().map(|p| p.iops).collect();
    let tail_avg = tail.iter().sum::<f64>() / tail.len() as f64;
    assert!(early > 1.2 * tail_avg, "early {early} tail {tail_avg}");
    assert!(tail.iter().all(|v| (v / tail_avg - 1.0).abs() < 0.35), "{tail:?}");
    assert!(c.time_to_steady_state_s.is_some(), "{:?}", c.rounds);
    // Marked where the steady state starts, after the FOB plateau, on the drive-writes axis.
    let dw = c.drive_writes_to_steady_state.unwrap();
    assert!(dw > 0.0 && dw < o.drive_writes, "{dw}, rounds {:?}", c.rounds);
    let svg = std::fs::read_to_string(d.path().join("fob-drive-writes.svg")).unwrap();
    assert!(svg.contains(&format!("steady state from {dw:.2} drive writes")), "no marker in the plot");
    // The steady-state spread covers the seconds from the window's start to the end (tiny runs
    // unscaled: a device second is a point of the curve; a partial last point may be dropped).
    let sp = c.steady_per_second.unwrap();
    let t0 = c.time_to_steady_state_s.unwrap();
    let steady: Vec<f64> = c.points.iter().filter(|p| p.t_s > t0 + 1e-9).map(|p| p.iops).collect();
    let k = usize::try_from(sp.samples).unwrap();
    assert!(k <= steady.len() && k + 1 >= steady.len(), "{sp:?} vs {} points after {t0} s", steady.len());
    let mean = steady[..k].iter().sum::<f64>() / k as f64;
    assert!((sp.mean_iops / mean - 1.0).abs() < 1e-4, "{sp:?} vs mean {mean}");
    assert_eq!(sp.zero_samples, 0, "{sp:?}");
    // The settled figure covers the last drive write only.
    let last = c.last_drive_write_per_second.unwrap();
    let settled: Vec<f64> =
        c.points.iter().filter(|p| p.drive_writes > o.drive_writes - 1.0 + 1e-9).map(|p| p.iops).collect();
    let k = usize::try_from(last.samples).unwrap();
    assert!(k <= settled.len() && k + 1 >= settled.len(), "{last:?} vs {} points", settled.len());
    let mean = settled[..k].iter().sum::<f64>() / k as f64;
    assert!((last.mean_iops / mean - 1.0).abs() < 1e-4, "{last:?} vs mean {mean}");
    assert_svgs(d.path(), d.written());
}

#[test]
fn a_scaled_curve_is_also_drawn_and_tabled_per_device_second() {
    // At 1/4 a full-scale second is 1/4 of a device second: 4 points per device second.
    let bench = SimBench::new(SimConfig { scale_divisor: Some(4), ..SimConfig::new("tiny", 7) }).unwrap();
    let o = fob::CurveOptions { drive_writes: 10.0, round_s: 1.0, ..fob::CurveOptions::fob() };
    let (_dir, mut d) = out("fob-scaled");
    let c = fob::run(&mut { bench }, &o, &mut d, &mut Ctl::default()).unwrap();
    let ds = &c.device_seconds;
    assert!(ds.len() >= 5, "{ds:?}");
    // Consecutive spans of whole points from the first: each a device second's I/Os (points
    // are equal full-scale seconds, so its IOPS is their mean) ending where its last point does;
    // the last may be shorter (at least half a device second).
    let mut next = 0;
    for (k, s) in ds.iter().enumerate() {
        assert_eq!(s.first_point, next, "{s:?}");
        let pts = &c.points[s.first_point..s.first_point + s.points];
        if k + 1 < ds.len() {
            assert_eq!(s.points, 4, "{s:?}");
            let mean = pts.iter().map(|p| p.iops).sum::<f64>() / pts.len() as f64;
            assert!((s.iops / mean - 1.0).abs() < 1e-3, "{s:?} vs mean {mean} of {pts:?}");
        }
        assert_eq!(s.t_s, pts.last().unwrap().t_s);
        next += s.points;
    }
    // fob.csv gives each row its device second's IOPS.
    let csv = std::fs::read_to_string(d.path().join("fob.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = header.iter().position(|&h| h == "write_iops_device_second").unwrap();
    let second = ds[1];
    for row in csv.lines().skip(1 + second.first_point).take(second.points) {
        let v: f64 = row.split(',').nth(col).unwrap().parse().unwrap();
        assert!((v - second.iops).abs() < 1.0, "{row} vs {second:?}");
    }
    // The plot draws it over the faint per-full-scale-second line.
    let svg = std::fs::read_to_string(d.path().join("fob-drive-writes.svg")).unwrap();
    assert!(svg.contains("IOPS per device second (4 full-scale s"), "no device-second line");
    assert!(polylines(&svg).contains(&ds.len()), "no line through {} device seconds", ds.len());
    assert_svgs(d.path(), d.written());
}

#[test]
fn a_curve_shorter_than_two_drive_writes_has_no_settled_figure() {
    let o = fob::CurveOptions { drive_writes: 1.5, round_s: 1.0, ..fob::CurveOptions::fob() };
    let (_dir, mut d) = out("fob-short");
    let c = fob::run(&mut bench(), &o, &mut d, &mut Ctl::default()).unwrap();
    assert!(c.points.last().unwrap().drive_writes > 1.4, "{:?}", c.points.last());
    assert!(c.last_drive_write_per_second.is_none());
}

#[test]
fn same_seed_gives_identical_json() {
    let run = |name: &str| {
        let o = act::ActOptions { hours: 0.005, slice_s: 9.0, ..Default::default() };
        let (_dir, mut d) = out(name);
        act::run(&mut bench(), &o, &mut d, &mut Ctl::default()).unwrap();
        std::fs::read(d.path().join("act.json")).unwrap()
    };
    assert_eq!(run("det-a"), run("det-b"));
}
