//! A time-series CSV (as written by `ssdlab run --timeseries`) drawn as two stacked panels:
//! IOPS per direction above, and the drive's WA and power (or p99 latency for a real target)
//! below. Reads the CSV back so `ssdlab plot` can redraw any saved series.

use crate::plot::{render_stacked, Chart, PlotError, Series, Style};

/// The columns of a time-series row the plot draws (`crate::report::SERIES_COLUMNS` and the
/// simulator's `wa`/`power_w`), read by header name; other columns are ignored. An empty cell
/// (a value the interval did not have) is `None`.
#[derive(serde::Deserialize)]
struct SeriesRow {
    time_s: f64,
    read_iops: f64,
    write_iops: Option<f64>,
    trim_iops: Option<f64>,
    read_lat_p99_us: Option<f64>,
    write_lat_p99_us: Option<f64>,
    wa: Option<f64>,
    power_w: Option<f64>,
}

/// The rows, and whether the file is a simulated drive's (it has the `wa` column).
struct Table {
    rows: Vec<SeriesRow>,
    simulated: bool,
}

impl Table {
    fn parse(text: &str) -> Result<Table, String> {
        let mut r = csv::ReaderBuilder::new().trim(csv::Trim::All).from_reader(text.as_bytes());
        let at = |e: &csv::Error| e.position().map_or(String::new(), |p| format!("line {}: ", p.line()));
        let header = r.headers().map_err(|e| format!("{}{e}", at(&e)))?.clone();
        if !header.iter().any(|h| h == "time_s") || !header.iter().any(|h| h == "read_iops") {
            return Err("no time_s/read_iops columns: not an ssdlab time series".into());
        }
        let simulated = header.iter().any(|h| h == "wa");
        let rows = r
            .deserialize()
            .collect::<Result<Vec<SeriesRow>, _>>()
            .map_err(|e| format!("{}{}", at(&e), plain(&e, &header)))?;
        Ok(Table { rows, simulated })
    }

    /// (time, value) of one column's finite values.
    fn points(&self, value: impl Fn(&SeriesRow) -> Option<f64>) -> Vec<(f64, f64)> {
        self.rows.iter().filter_map(|r| value(r).filter(|y| y.is_finite()).map(|y| (r.time_s, y))).collect()
    }
}

/// A `csv` error without the position (given as the line), naming the column.
fn plain(e: &csv::Error, header: &csv::StringRecord) -> String {
    match e.kind() {
        csv::ErrorKind::UnequalLengths { expected_len, len, .. } => format!("{len} fields, header has {expected_len}"),
        csv::ErrorKind::Deserialize { err, .. } => match err.field() {
            Some(k) => format!(
                "column `{}`: {}",
                header.get(usize::try_from(k).unwrap_or(usize::MAX)).unwrap_or("?"),
                err.kind()
            ),
            None => err.kind().to_string(),
        },
        _ => e.to_string(),
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

/// A column the plot draws and its legend.
type Col = (fn(&SeriesRow) -> Option<f64>, &'static str);

/// SVG of a time-series CSV.
pub fn series_svg(csv: &str, title: &str) -> Result<String, SeriesPlotError> {
    let t = Table::parse(csv).map_err(SeriesPlotError::Csv)?;
    let mut top = Chart::new(title, "time (s)", "IOPS");
    let iops: [Col; 3] = [(|r| Some(r.read_iops), "read"), (|r| r.write_iops, "write"), (|r| r.trim_iops, "trim")];
    for (col, name) in iops {
        let p = t.points(col);
        if p.iter().any(|&(_, y)| y > 0.0) {
            top = top.with(Series::new(name, p, Style::Line));
        }
    }
    let (bottom_label, cols): (&str, [Col; 2]) = if t.simulated {
        ("WA / power (W)", [(|r| r.wa, "write amplification"), (|r| r.power_w, "power (W)")])
    } else {
        ("p99 latency (us)", [(|r| r.read_lat_p99_us, "read p99"), (|r| r.write_lat_p99_us, "write p99")])
    };
    let mut bottom = Chart::new("", "time (s)", bottom_label);
    for (col, name) in cols {
        let p = t.points(col);
        if p.iter().any(|&(_, y)| y > 0.0) {
            bottom = bottom.with(Series::new(name, p, Style::Line));
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
        let e = series_svg("time_s,read_iops\n1,2\n1,2,3\n", "t").unwrap_err().to_string();
        assert_eq!(e, "time-series CSV: line 3: 3 fields, header has 2");
        let e = series_svg("time_s,read_iops\n1,2\n2,x\n", "t").unwrap_err().to_string();
        assert!(e.starts_with("time-series CSV: line 3: column `read_iops`: "), "{e}");
    }
}
