//! CSV of a job's time series, with room for caller columns (WA, power, ...).

use std::fmt::Write;

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

/// Header row plus one row per interval.
pub fn series_csv(points: &[IntervalPoint], extra: &[ExtraColumn]) -> String {
    let mut out = SERIES_COLUMNS.join(",");
    for col in extra {
        out.push(',');
        out.push_str(&csv_field(col.name));
    }
    out.push('\n');
    for (i, p) in points.iter().enumerate() {
        let end_s = (p.start_ns + p.duration_ns) as f64 / 1e9;
        let _ = write!(
            out,
            "{end_s:.3},{:.1},{:.1},{:.1},{:.3},{:.3},{:.2},{:.2},{:.2},{:.2}",
            p.iops(0),
            p.iops(1),
            p.iops(2),
            p.bw_bytes_per_s(0) / 1e6,
            p.bw_bytes_per_s(1) / 1e6,
            p.lat_mean_ns[0] / 1e3,
            p.lat_p99_ns[0] as f64 / 1e3,
            p.lat_mean_ns[1] / 1e3,
            p.lat_p99_ns[1] as f64 / 1e3,
        );
        for col in extra {
            out.push(',');
            if let Some(v) = col.values.get(i) {
                let _ = write!(out, "{v}");
            }
        }
        out.push('\n');
    }
    out
}

/// Quotes a header name when it holds a comma or quote.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
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
