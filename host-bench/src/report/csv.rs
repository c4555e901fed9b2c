//! CSV of a job's time series, with room for caller columns (WA, power, ...).

use crate::stats::IntervalPoint;

/// Fixed columns, in order. `time_s` is the end of the interval, seconds after the end of
/// ramp; bandwidth is MB/s (10^6 bytes); latencies are completion latencies in µs.
pub const SERIES_COLUMNS: [&str; 10] = [
    "time_s",
    "read_iops",
    "write_iops",
    "trim_iops",
    "read_bw_mbps",
    "write_bw_mbps",
    "read_lat_mean_us",
    "read_lat_p99_us",
    "write_lat_mean_us",
    "write_lat_p99_us",
];

/// A caller column: one value per interval; missing values leave the cell empty.
#[derive(Clone, Copy, Debug)]
pub struct ExtraColumn<'a> {
    pub name: &'a str,
    pub values: &'a [f64],
}

/// Records as CSV text through the `csv` crate: a field is quoted only when it holds a comma,
/// a quote or a line end; lines end in `\n`. Records may differ in length (callers give the
/// header and rows of one shape).
pub fn csv_text<R, F>(records: impl IntoIterator<Item = R>) -> Result<String, ::csv::Error>
where
    R: IntoIterator<Item = F>,
    F: AsRef<[u8]>,
{
    let mut w = csv_writer();
    for r in records {
        w.write_record(r)?;
    }
    finish(w)
}

/// Serde rows as CSV text, the header from the struct's field names (see [`csv_text`]).
pub fn csv_rows<T: serde::Serialize>(rows: impl IntoIterator<Item = T>) -> Result<String, ::csv::Error> {
    let mut w = csv_writer();
    for r in rows {
        w.serialize(r)?;
    }
    finish(w)
}

fn csv_writer() -> ::csv::Writer<Vec<u8>> {
    ::csv::WriterBuilder::new().flexible(true).terminator(::csv::Terminator::Any(b'\n')).from_writer(Vec::new())
}

fn finish(w: ::csv::Writer<Vec<u8>>) -> Result<String, ::csv::Error> {
    let bytes = w.into_inner().map_err(|e| ::csv::Error::from(e.into_error()))?;
    String::from_utf8(bytes).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e).into())
}

/// Header row plus one row per interval.
pub fn series_csv(points: &[IntervalPoint], extra: &[ExtraColumn]) -> Result<String, ::csv::Error> {
    let header = SERIES_COLUMNS.iter().copied().chain(extra.iter().map(|c| c.name)).map(String::from).collect();
    let rows = points.iter().enumerate().map(|(i, p)| {
        let end_s = (p.start_ns + p.duration_ns) as f64 / 1e9;
        let mut r = vec![
            format!("{end_s:.3}"),
            format!("{:.1}", p.iops(0)),
            format!("{:.1}", p.iops(1)),
            format!("{:.1}", p.iops(2)),
            format!("{:.3}", p.bw_bytes_per_s(0) / 1e6),
            format!("{:.3}", p.bw_bytes_per_s(1) / 1e6),
            format!("{:.2}", p.lat_mean_ns[0] / 1e3),
            format!("{:.2}", p.lat_p99_ns[0] as f64 / 1e3),
            format!("{:.2}", p.lat_mean_ns[1] / 1e3),
            format!("{:.2}", p.lat_p99_ns[1] as f64 / 1e3),
        ];
        // A missing value leaves its cell empty.
        r.extend(extra.iter().map(|c| c.values.get(i).map(f64::to_string).unwrap_or_default()));
        r
    });
    csv_text(std::iter::once(header).chain(rows))
}

/// File-name parts for per-job series: the job name with anything but `[A-Za-z0-9_-]` as `_`,
/// and a `.2`, `.3`, ... suffix on repeats (two jobs of one name, or `numjobs` clones without
/// `group_reporting`), so no job's series overwrites another's.
pub fn series_file_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut seen: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    names
        .into_iter()
        .map(|name| {
            let safe: String =
                name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
            // Sanitised names hold no '.', so a suffixed name never equals another job's name.
            let n = seen.entry(safe.clone()).or_insert(0);
            *n += 1;
            if *n == 1 {
                safe
            } else {
                format!("{safe}.{n}")
            }
        })
        .collect()
}
