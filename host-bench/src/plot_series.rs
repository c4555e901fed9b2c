//! A time-series CSV (as written by `ssdlab run --timeseries`) drawn as two stacked panels:
//! IOPS per direction above, and the drive's WA and power (or p99 latency for a real target)
//! below. Reads the CSV back so `ssdlab plot` can redraw any saved series.

use crate::plot::{render_stacked, Chart, PlotError, Series, Style};

/// Columns by header name.
struct Table {
    header: Vec<String>,
    rows: Vec<Vec<f64>>,
}

impl Table {
    fn parse(text: &str) -> Result<Table, String> {
        let mut lines = text.lines();
        let header: Vec<String> = lines.next().ok_or("empty CSV")?.split(',').map(|s| s.trim().to_string()).collect();
        let mut rows = Vec::new();
        for (i, line) in lines.enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let row: Vec<f64> = line.split(',').map(|c| c.trim().parse::<f64>().unwrap_or(f64::NAN)).collect();
            if row.len() != header.len() {
                return Err(format!("line {}: {} fields, header has {}", i + 2, row.len(), header.len()));
            }
            rows.push(row);
        }
        Ok(Table { header, rows })
    }

    fn column(&self, name: &str) -> Option<Vec<(f64, f64)>> {
        let x = self.header.iter().position(|h| h == "time_s")?;
        let y = self.header.iter().position(|h| h == name)?;
        Some(self.rows.iter().filter(|r| r[y].is_finite()).map(|r| (r[x], r[y])).collect())
    }
}

/// Why a series could not be plotted.
#[derive(Debug, thiserror::Error)]
pub enum SeriesPlotError {
    #[error("time-series CSV: {0}")]
    Csv(String),
    #[error(transparent)]
    Plot(#[from] PlotError),
}

/// SVG of a time-series CSV.
pub fn series_svg(csv: &str, title: &str) -> Result<String, SeriesPlotError> {
    let t = Table::parse(csv).map_err(SeriesPlotError::Csv)?;
    if t.column("read_iops").is_none() {
        return Err(SeriesPlotError::Csv("no time_s/read_iops columns: not an ssdlab time series".into()));
    }
    let mut top = Chart::new(title, "time (s)", "IOPS");
    for (col, name) in [("read_iops", "read"), ("write_iops", "write"), ("trim_iops", "trim")] {
        if let Some(p) = t.column(col) {
            if p.iter().any(|&(_, y)| y > 0.0) {
                top = top.with(Series::new(name, p, Style::Line));
            }
        }
    }
    let (bottom_label, cols): (&str, &[(&str, &str)]) = if t.column("wa").is_some() {
        ("WA / power (W)", &[("wa", "write amplification"), ("power_w", "power (W)")])
    } else {
        ("p99 latency (us)", &[("read_lat_p99_us", "read p99"), ("write_lat_p99_us", "write p99")])
    };
    let mut bottom = Chart::new("", "time (s)", bottom_label);
    for &(col, name) in cols {
        if let Some(p) = t.column(col) {
            if p.iter().any(|&(_, y)| y > 0.0) {
                bottom = bottom.with(Series::new(name, p, Style::Line));
            }
        }
    }
    Ok(render_stacked(&top, &bottom)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_a_series_and_rejects_other_csv() {
        let csv = "time_s,read_iops,write_iops,trim_iops,wa,power_w\n1,0,100,0,1.0,10\n2,0,80,0,2.5,11\n";
        let svg = series_svg(csv, "t").unwrap();
        assert!(svg.starts_with("<svg") || svg.starts_with("<?xml"));
        assert!(series_svg("a,b\n1,2\n", "t").is_err());
        assert!(series_svg("time_s,read_iops\n1,2,3\n", "t").is_err());
    }
}
