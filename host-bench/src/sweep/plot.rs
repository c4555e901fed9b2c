//! SVG plots of a sweep table: IOPS against OP for each power setting, p99 latency against OP,
//! and IOPS against the power cap for each OP. Points of several seeds are averaged.

use super::{Row, Table};
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

/// One line: label and (x, y) points sorted by x.
type Line = (String, Vec<(f64, f64)>);

fn power_label(r: &Row) -> String {
    match (r.power_state, r.power_cap_w) {
        (Some(ps), Some(w)) => format!("PS{ps} ({w} W)"),
        (None, Some(w)) => format!("{w} W cap"),
        _ => "uncapped".to_string(),
    }
}

fn total_iops(r: &Row) -> f64 {
    r.read_iops + r.write_iops
}

fn p99_us(r: &Row) -> f64 {
    r.read_p99_us.max(r.write_p99_us)
}

/// Groups rows by `key`, x by `x`, averaging `y` over seeds.
fn lines(rows: &[Row], key: impl Fn(&Row) -> String, x: impl Fn(&Row) -> f64, y: impl Fn(&Row) -> f64) -> Vec<Line> {
    let mut m: BTreeMap<String, BTreeMap<i64, (f64, f64, u32)>> = BTreeMap::new();
    for r in rows {
        let xv = x(r);
        let e =
            m.entry(key(r)).or_default().entry(nand_model::cast::sat_i64((xv * 1e6).round())).or_insert((xv, 0.0, 0));
        e.1 += y(r);
        e.2 += 1;
    }
    m.into_iter().map(|(k, pts)| (k, pts.into_values().map(|(x, s, n)| (x, s / n as f64)).collect())).collect()
}

fn draw(path: &Path, title: &str, x_label: &str, y_label: &str, data: &[Line]) -> Result<(), String> {
    let pts = data.iter().flat_map(|l| l.1.iter());
    let (mut x0, mut x1, mut y1) = (f64::MAX, f64::MIN, 0.0f64);
    for &(x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        return Ok(());
    }
    let pad = ((x1 - x0) * 0.05).max(0.5);
    let root = SVGBackend::new(path, (800, 500)).into_drawing_area();
    let e = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d((x0 - pad)..(x1 + pad), 0.0..(y1 * 1.1).max(1e-9))
        .map_err(|x| e(&x))?;
    chart.configure_mesh().x_desc(x_label).y_desc(y_label).draw().map_err(|x| e(&x))?;
    for (i, (label, line)) in data.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(line.iter().copied(), color.stroke_width(2)))
            .map_err(|x| e(&x))?
            .label(label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
        chart.draw_series(line.iter().map(|&(x, y)| Circle::new((x, y), 3, color.filled()))).map_err(|x| e(&x))?;
    }
    chart.configure_series_labels().border_style(BLACK).background_style(WHITE.mix(0.8)).draw().map_err(|x| e(&x))?;
    root.present().map_err(|x| e(&x))
}

/// Writes `iops_vs_op.svg`, `p99_vs_op.svg` and `iops_vs_power_cap.svg` into `dir`.
pub fn write_all(dir: &Path, t: &Table) -> Result<(), String> {
    let rows = &t.rows;
    let job = rows.first().map(|r| r.job.as_str()).unwrap_or("");
    let drive = rows.first().map(|r| r.drive.as_str()).unwrap_or("");
    let by_op = lines(rows, power_label, |r| r.op_pct, total_iops);
    draw(&dir.join("iops_vs_op.svg"), &format!("{drive} {job}: IOPS vs OP"), "OP (%)", "IOPS", &by_op)?;
    let lat = lines(rows, power_label, |r| r.op_pct, p99_us);
    draw(&dir.join("p99_vs_op.svg"), &format!("{drive} {job}: p99 latency vs OP"), "OP (%)", "p99 latency (us)", &lat)?;
    let capped: Vec<Row> = rows.iter().filter(|r| r.power_cap_w.is_some()).cloned().collect();
    let by_cap = lines(&capped, |r| format!("OP {:.1}%", r.op_pct), |r| r.power_cap_w.unwrap_or(0.0), total_iops);
    draw(
        &dir.join("iops_vs_power_cap.svg"),
        &format!("{drive} {job}: IOPS vs power cap"),
        "power cap (W)",
        "IOPS",
        &by_cap,
    )
}
