//! Predicted against measured on log-log axes, one point per row, with y = x and the +-10%
//! band. Units differ between rows (IOPS, MB/s, us, W); on log axes the distance from the
//! diagonal is the relative error whatever the unit, which is what the plot is for.

use crate::validate::Report;
use plotters::prelude::*;
use std::path::Path;

/// Writes the SVG; errors are plotters' message.
pub fn write_svg(r: &Report, path: &Path) -> Result<(), String> {
    let pts: Vec<(f64, f64, &str)> = r
        .rows
        .iter()
        .filter(|x| x.predicted > 0.0 && x.measured > 0.0)
        .map(|x| (x.measured, x.predicted, x.metric.as_str()))
        .collect();
    let lo = pts.iter().flat_map(|p| [p.0, p.1]).fold(f64::INFINITY, f64::min).min(1.0) * 0.5;
    let hi = pts.iter().flat_map(|p| [p.0, p.1]).fold(0.0, f64::max).max(10.0) * 2.0;
    let root = SVGBackend::new(path, (900, 800)).into_drawing_area();
    let e = |e: &dyn std::fmt::Display| e.to_string();
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!(
                "ssdlab validate: predicted vs measured (median |err| {:.1}%, IOPS/BW {:.1}%)",
                r.median_abs_rel_error * 100.0,
                r.throughput_median_abs_rel_error * 100.0
            ),
            ("sans-serif", 18),
        )
        .margin(20)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d((lo..hi).log_scale(), (lo..hi).log_scale())
        .map_err(|x| e(&x))?;
    chart.configure_mesh().x_desc("measured (IOPS, MB/s, us, %, W)").y_desc("predicted").draw().map_err(|x| e(&x))?;
    let line = |k: f64| (0..=60).map(move |i| lo * (hi / lo).powf(i as f64 / 60.0)).map(move |x| (x, x * k));
    chart.draw_series(LineSeries::new(line(1.0), BLACK.stroke_width(2))).map_err(|x| e(&x))?.label("y = x");
    for k in [0.9, 1.1] {
        chart.draw_series(LineSeries::new(line(k), RGBColor(150, 150, 150))).map_err(|x| e(&x))?;
    }
    let classes: [(&str, RGBColor); 5] = [
        ("iops", RGBColor(31, 119, 180)),
        ("bandwidth", RGBColor(44, 160, 44)),
        ("latency", RGBColor(214, 39, 40)),
        ("cov", RGBColor(148, 103, 189)),
        ("power", RGBColor(255, 127, 14)),
    ];
    for (name, color) in classes {
        let sel: Vec<(f64, f64)> = pts.iter().filter(|p| p.2.contains(name)).map(|p| (p.0, p.1)).collect();
        if sel.is_empty() {
            continue;
        }
        chart
            .draw_series(sel.into_iter().map(|p| Circle::new(p, 5, color.filled())))
            .map_err(|x| e(&x))?
            .label(name)
            .legend(move |(x, y)| Circle::new((x, y), 5, color.filled()));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(|x| e(&x))?;
    root.present().map_err(|x| e(&x))
}
