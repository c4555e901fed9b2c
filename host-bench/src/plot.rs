//! SVG charts for the suites (plotters, SVG backend): x-y line/point charts with an optional
//! log2 x axis, and two stacked panels sharing a page. Charts are described as plain data
//! ([`Chart`]) so suites never touch plotters types, and rendered to a `String`.

use plotters::prelude::*;

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Line,
    Points,
    LinePoints,
    /// Reference lines: bands, averages, fits.
    Dashed,
}

/// One named series (an empty name keeps it out of the legend).
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub style: Style,
    /// RGB; `None` picks from a palette by position.
    pub color: Option<(u8, u8, u8)>,
}

impl Series {
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>, style: Style) -> Self {
        Series { name: name.into(), points, style, color: None }
    }

    pub fn color(mut self, rgb: (u8, u8, u8)) -> Self {
        self.color = Some(rgb);
        self
    }
}

/// An x-y chart.
#[derive(Clone, Debug, Default)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    /// x values are plotted on a log2 axis (block sizes, thread counts); they must be > 0.
    pub x_log2: bool,
    /// Start the y axis at 0 (rates); otherwise fit the data.
    pub y_from_zero: bool,
}

impl Chart {
    pub fn new(title: impl Into<String>, x_label: impl Into<String>, y_label: impl Into<String>) -> Self {
        Chart {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            y_from_zero: true,
            ..Default::default()
        }
    }

    pub fn with(mut self, s: Series) -> Self {
        self.series.push(s);
        self
    }
}

/// Why a chart could not be drawn (a plotters backend error, as text).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct PlotError(String);

const SIZE: (u32, u32) = (960, 600);

/// Renders one chart as an SVG document.
pub fn render(chart: &Chart) -> Result<String, PlotError> {
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        draw(&root, chart)?;
        root.present().map_err(err)?;
    }
    Ok(buf)
}

/// Renders two charts stacked vertically (e.g. IOPS above, WA below, same x axis).
pub fn render_stacked(top: &Chart, bottom: &Chart) -> Result<String, PlotError> {
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (SIZE.0, SIZE.1 * 3 / 2)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (a, b) = root.split_vertically(SIZE.1 * 3 / 4);
        draw(&a, top)?;
        draw(&b, bottom)?;
        root.present().map_err(err)?;
    }
    Ok(buf)
}

fn err(e: impl std::fmt::Debug) -> PlotError {
    PlotError(format!("{e:?}"))
}

fn tx(chart: &Chart, x: f64) -> f64 {
    if chart.x_log2 {
        x.max(f64::MIN_POSITIVE).log2()
    } else {
        x
    }
}

/// Data range padded by 5%, (0, 1) when empty or degenerate.
fn range(vals: impl Iterator<Item = f64>, from_zero: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in vals.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if lo > hi {
        return (0.0, 1.0);
    }
    if from_zero && lo >= 0.0 {
        lo = 0.0;
    }
    let pad = if hi > lo { (hi - lo) * 0.05 } else { hi.abs().max(1.0) * 0.1 };
    (if from_zero && lo == 0.0 { 0.0 } else { lo - pad }, hi + pad)
}

/// Compact tick label: 1.2M, 35k, 0.5.
pub fn fmt_num(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{}M", trim(format!("{:.3}", v / 1e6)))
    } else if a >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if a >= 100.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        trim(format!("{v:.2}"))
    }
}

fn trim(s: String) -> String {
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn draw<DB: DrawingBackend>(area: &DrawingArea<DB, plotters::coord::Shift>, c: &Chart) -> Result<(), PlotError> {
    let pts = || c.series.iter().flat_map(|s| s.points.iter()).filter(|p| p.0.is_finite() && p.1.is_finite());
    let (x0, x1) = range(pts().map(|p| tx(c, p.0)), false);
    let (y0, y1) = range(pts().map(|p| p.1), c.y_from_zero);
    let mut ch = ChartBuilder::on(area)
        .caption(&c.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(75)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    let log2 = c.x_log2;
    let fx = move |v: &f64| {
        if log2 {
            fmt_num(2f64.powf(*v))
        } else {
            fmt_num(*v)
        }
    };
    let fy = |v: &f64| fmt_num(*v);
    ch.configure_mesh()
        .x_desc(c.x_label.as_str())
        .y_desc(c.y_label.as_str())
        .x_label_formatter(&fx)
        .y_label_formatter(&fy)
        .draw()
        .map_err(err)?;
    for (i, s) in c.series.iter().enumerate() {
        let color = s.color.map_or_else(|| Palette99::pick(i).to_rgba(), |(r, g, b)| RGBColor(r, g, b).to_rgba());
        let data: Vec<(f64, f64)> =
            s.points.iter().filter(|p| p.0.is_finite() && p.1.is_finite()).map(|&(x, y)| (tx(c, x), y)).collect();
        let legend = move |(x, y): (i32, i32)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2));
        match s.style {
            Style::Line | Style::LinePoints => {
                let anno = ch.draw_series(LineSeries::new(data.clone(), color.stroke_width(2))).map_err(err)?;
                if !s.name.is_empty() {
                    anno.label(s.name.as_str()).legend(legend);
                }
                if s.style == Style::LinePoints {
                    ch.draw_series(data.iter().map(|&p| Circle::new(p, 3, color.filled()))).map_err(err)?;
                }
            }
            Style::Points => {
                let anno = ch.draw_series(data.iter().map(|&p| Circle::new(p, 3, color.filled()))).map_err(err)?;
                if !s.name.is_empty() {
                    anno.label(s.name.as_str()).legend(legend);
                }
            }
            Style::Dashed => {
                let anno = ch.draw_series(DashedLineSeries::new(data, 8, 5, color.stroke_width(1))).map_err(err)?;
                if !s.name.is_empty() {
                    anno.label(s.name.as_str()).legend(legend);
                }
            }
        }
    }
    if c.series.iter().any(|s| !s.name.is_empty()) {
        ch.configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_svg_with_log_axis_and_panels() {
        let c = Chart { x_log2: true, ..Chart::new("t", "bs KiB", "IOPS") }
            .with(Series::new("a", vec![(0.5, 10.0), (4.0, 100.0), (1024.0, 1.0)], Style::LinePoints))
            .with(Series::new("band", vec![(0.5, 50.0), (1024.0, 50.0)], Style::Dashed).color((200, 0, 0)));
        let svg = render(&c).unwrap();
        assert!(svg.starts_with("<svg") || svg.starts_with("<?xml"), "{}", &svg[..50]);
        let two = render_stacked(&c, &Chart::new("empty", "x", "y")).unwrap();
        assert!(two.contains("</svg>"));
        assert_eq!(fmt_num(1_250_000.0), "1.25M");
        assert_eq!(fmt_num(35_000.0), "35k");
        assert_eq!(fmt_num(0.5), "0.5");
    }
}
