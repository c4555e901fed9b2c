//! Runs a PTS-E test and writes its report: per segment the rounds CSV, the determination table,
//! the convergence plot, the measurement-window plot (average, +-10% and +-20% bands, fit line),
//! the result table (block size x mix) as CSV and JSON, and a 2D chart; WSAT as a curve.

use super::fob::{self, Curve, CurveOptions};
use super::pts::{self, CellAverage, PtsOptions, PtsTest, Segment, IOPS_MIXES};
use super::{cell, Bench, Ctl, OutDir, SuiteError};
use crate::job::build::size_text;
use crate::plot::{self, Chart, Series, Style};
use serde_json::{json, Value};

/// What a PTS-E run produced (also written to `pts-TEST.json`).
pub struct PtsOutcome {
    pub segments: Vec<Segment>,
    pub wsat: Option<Curve>,
    pub interrupted: bool,
    pub json: Value,
}

const DURATION_NOTE: &str = "cells are 1 minute (cell_s) of full-scale time; on a scaled simulated drive every \
                             duration is divided by the scale factor (see config.time_scale) so a cell writes the same \
                             fraction of the drive as on the full-size drive";

/// Runs test `o.test` on `bench` and writes the report into `out`.
pub fn run(bench: &mut dyn Bench, o: &PtsOptions, out: &mut OutDir, ctl: &mut Ctl) -> Result<PtsOutcome, SuiteError> {
    o.validate()?;
    let meta = json!({"suite": "snia-pts-e", "test": o.test, "options": o, "config": bench.describe(), "duration_note": DURATION_NOTE});
    if o.test == PtsTest::Wsat {
        let curve = fob::run_curve(bench, &CurveOptions::wsat(o.threads, o.qd, o.wsat_capacities, o.wsat_max_s), ctl)?;
        fob::write_curve(out, "pts-wsat", "PTS-E WSAT", &curve, meta.clone())?;
        let interrupted = curve.interrupted;
        return Ok(PtsOutcome { segments: Vec::new(), wsat: Some(curve), interrupted, json: meta });
    }
    let (segments, interrupted) = pts::run_rounds(bench, o, ctl)?;
    let mut segs_json = Vec::new();
    for s in &segments {
        let table = s.window_table();
        write_segment(out, o.test, s, &table)?;
        segs_json.push(json!({
            "name": s.name,
            "threads": s.threads,
            "qd": s.qd,
            "tracking": s.tracking,
            "tracking_cell": s.cells.get(s.tracking_cell),
            "precondition": s.precondition,
            "steady_state": {
                "reached": s.reached(),
                "rounds_run": s.rounds.len(),
                "status": if s.reached() { "reached" } else { "not reached" },
                "determination": s.determination,
            },
            "window_averages": table,
            "tracking_per_round": s.tracking_values,
            "rounds": s.rounds,
        }));
    }
    let mut v = meta;
    if let Some(m) = v.as_object_mut() {
        m.insert("interrupted".into(), json!(interrupted));
        m.insert("segments".into(), Value::Array(segs_json));
    }
    out.json(&format!("pts-{}.json", o.test.name()), &v)?;
    Ok(PtsOutcome { segments, wsat: None, interrupted, json: v })
}

fn svg(r: Result<String, plot::PlotError>, name: &str) -> Result<String, SuiteError> {
    r.map_err(|e| SuiteError::Plot { name: name.into(), message: e.to_string() })
}

fn mix_label(read_pct: u32) -> String {
    format!("{read_pct}/{}", 100 - read_pct)
}

fn write_segment(out: &mut OutDir, test: PtsTest, s: &Segment, table: &[CellAverage]) -> Result<(), SuiteError> {
    let n = &s.name;
    // Every round, every cell.
    let mut rows = Vec::new();
    for (ri, round) in s.rounds.iter().enumerate() {
        for (c, p) in s.cells.iter().zip(round) {
            rows.push(vec![
                (ri + 1).to_string(),
                mix_label(c.read_pct),
                c.bs_bytes.to_string(),
                c.sequential.to_string(),
                cell(p.iops),
                cell(p.mbps),
                cell(p.lat.mean_us),
                cell(p.lat.max_us),
                cell(p.lat.p99_999_us),
                p.write_amplification.map_or(String::new(), cell),
            ]);
        }
    }
    out.csv(
        &format!("{n}-rounds.csv"),
        &[
            "round",
            "mix_rw",
            "bs_bytes",
            "sequential",
            "iops",
            "mbps",
            "lat_mean_us",
            "lat_max_us",
            "lat_p99_999_us",
            "wa",
        ],
        &rows,
    )?;
    // Determination table.
    let mut det = vec![vec!["rounds_run".into(), s.rounds.len().to_string(), String::new(), String::new()]];
    if let Some(d) = &s.determination {
        det.push(vec![
            "window_rounds".into(),
            format!("{}-{}", d.rounds[0], d.rounds[d.rounds.len() - 1]),
            String::new(),
            String::new(),
        ]);
        det.push(vec!["window_average".into(), cell(d.average), String::new(), String::new()]);
        det.push(vec!["range_pct".into(), cell(d.range_pct), "20".into(), d.range_ok.to_string()]);
        det.push(vec!["slope_x_span_pct".into(), cell(d.slope_pct), "10".into(), d.slope_ok.to_string()]);
        det.push(vec!["fit_a".into(), cell(d.fit_a), String::new(), String::new()]);
        det.push(vec!["fit_b".into(), cell(d.fit_b), String::new(), String::new()]);
    }
    det.push(vec![
        "steady_state".into(),
        if s.reached() { "reached" } else { "not reached" }.into(),
        String::new(),
        s.reached().to_string(),
    ]);
    out.csv(&format!("{n}-determination.csv"), &["criterion", "value", "limit", "pass"], &det)?;
    // Convergence: every block size of the tracking cell's mix, per round.
    let Some(tc) = s.cells.get(s.tracking_cell) else {
        return Ok(());
    };
    let mut conv =
        Chart::new(format!("{n}: convergence ({} per round)", s.tracking.label()), "round", s.tracking.label());
    for (i, c) in s.cells.iter().enumerate().filter(|(_, c)| c.read_pct == tc.read_pct && c.sequential == tc.sequential)
    {
        let pts = s
            .rounds
            .iter()
            .enumerate()
            .filter_map(|(r, perfs)| Some(((r + 1) as f64, s.tracking.of(perfs.get(i)?))))
            .collect();
        let name = format!(
            "{} {}{}",
            mix_label(c.read_pct),
            size_text(c.bs_bytes),
            if i == s.tracking_cell { " (tracking)" } else { "" }
        );
        conv.series.push(Series::new(name, pts, Style::LinePoints));
    }
    out.text(&format!("{n}-convergence.svg"), &svg(plot::render(&conv), "convergence")?)?;
    // Measurement window.
    if let Some(d) = &s.determination {
        let (x0, x1) = (d.rounds[0] as f64, d.rounds[d.rounds.len() - 1] as f64);
        let flat = |k: f64| vec![(x0, d.average * k), (x1, d.average * k)];
        let status = if d.reached { "steady state" } else { "not reached" };
        let w =
            Chart::new(format!("{n}: measurement window, rounds {x0}-{x1} ({status})"), "round", s.tracking.label())
                .with(
                    Series::new(
                        "tracking",
                        d.rounds.iter().zip(&d.values).map(|(&r, &v)| (r as f64, v)).collect(),
                        Style::LinePoints,
                    )
                    .color((0, 70, 200)),
                )
                .with(Series::new("average", flat(1.0), Style::Line).color((0, 0, 0)))
                .with(Series::new("+10%", flat(1.1), Style::Dashed).color((230, 140, 0)))
                .with(Series::new("-10%", flat(0.9), Style::Dashed).color((230, 140, 0)))
                .with(Series::new("+20%", flat(1.2), Style::Dashed).color((200, 0, 0)))
                .with(Series::new("-20%", flat(0.8), Style::Dashed).color((200, 0, 0)))
                .with(
                    Series::new(
                        "least-squares fit",
                        vec![(x0, d.fit_a + d.fit_b * x0), (x1, d.fit_a + d.fit_b * x1)],
                        Style::Line,
                    )
                    .color((0, 150, 0)),
                );
        out.text(&format!("{n}-window.svg"), &svg(plot::render(&w), "window")?)?;
    }
    write_table(out, test, s, table)
}

/// The result table (CSV + JSON) and its 2D chart.
fn write_table(out: &mut OutDir, test: PtsTest, s: &Segment, table: &[CellAverage]) -> Result<(), SuiteError> {
    let n = &s.name;
    let mut sizes: Vec<u32> = Vec::new();
    for c in table {
        if !sizes.contains(&c.cell.bs_bytes) {
            sizes.push(c.cell.bs_bytes);
        }
    }
    let mut mixes: Vec<u32> = Vec::new();
    for c in table {
        if !mixes.contains(&c.cell.read_pct) {
            mixes.push(c.cell.read_pct);
        }
    }
    let find = |bs: u32, m: u32| table.iter().find(|c| c.cell.bs_bytes == bs && c.cell.read_pct == m);
    let (metric, label): (fn(&CellAverage) -> f64, &str) = match test {
        PtsTest::Throughput => (|c| c.mbps, "MB/s"),
        PtsTest::Latency => (|c| c.mean_us, "mean latency (us)"),
        _ => (|c| c.iops, "IOPS"),
    };
    let mut header: Vec<String> = vec!["bs".into()];
    header.extend(mixes.iter().map(|&m| mix_label(m)));
    if test == PtsTest::Latency {
        header.extend(mixes.iter().map(|&m| format!("{} max_us", mix_label(m))));
        header.extend(mixes.iter().map(|&m| format!("{} p99.999_us", mix_label(m))));
    }
    let mut rows = Vec::new();
    for &bs in &sizes {
        let mut r = vec![size_text(bs)];
        r.extend(mixes.iter().map(|&m| find(bs, m).map_or(String::new(), |c| cell(metric(c)))));
        if test == PtsTest::Latency {
            r.extend(mixes.iter().map(|&m| find(bs, m).map_or(String::new(), |c| cell(c.max_us))));
            r.extend(mixes.iter().map(|&m| find(bs, m).map_or(String::new(), |c| cell(c.p99_999_us))));
        }
        rows.push(r);
    }
    let h: Vec<&str> = header.iter().map(String::as_str).collect();
    out.csv(&format!("{n}-table.csv"), &h, &rows)?;
    out.json(
        &format!("{n}-table.json"),
        &json!({"metric": label, "unit_note": "window averages; MB/s = 10^6 B/s", "cells": table}),
    )?;
    let mut chart = Chart {
        x_log2: true,
        ..Chart::new(format!("{n}: {label} vs block size (window average)"), "block size (KiB)", label)
    };
    let order = if test == PtsTest::Iops { IOPS_MIXES.to_vec() } else { mixes.clone() };
    for m in order {
        let pts = table
            .iter()
            .filter(|c| c.cell.read_pct == m)
            .map(|c| (c.cell.bs_bytes as f64 / 1024.0, metric(c)))
            .collect();
        chart.series.push(Series::new(format!("R/W {}", mix_label(m)), pts, Style::LinePoints));
    }
    out.text(&format!("{n}-vs-bs.svg"), &svg(plot::render(&chart), "vs-bs")?)
}
