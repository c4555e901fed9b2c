//! Measured figures in the schema of `shared/calibration/measured.csv`: one row per published
//! number. Reading is strict about the file (missing columns, unparseable numbers are errors
//! naming file, line and column) and lenient about meaning: a row whose drive or metric the
//! simulator cannot model is kept here and skipped later with a reason.

use std::fmt;
use std::path::Path;

/// The columns every measured file must have, in any order.
pub const COLUMNS: [&str; 16] = [
    "id",
    "drive",
    "user_capacity_tb",
    "power_cap_w",
    "tool",
    "state",
    "workload",
    "bs",
    "read_pct",
    "random",
    "qd",
    "jobs",
    "metric",
    "value",
    "unit",
    "note",
];

/// One measured figure.
#[derive(Clone, Debug, PartialEq)]
pub struct MeasuredRow {
    pub id: String,
    pub drive: String,
    pub user_capacity_tb: Option<f64>,
    pub power_cap_w: Option<f64>,
    pub tool: String,
    pub state: String,
    pub workload: String,
    pub bs: String,
    pub read_pct: Option<f64>,
    /// "yes", "no" or a share such as "80%".
    pub random: String,
    pub qd: Option<u32>,
    pub jobs: Option<u32>,
    pub metric: String,
    pub value: f64,
    pub unit: String,
    pub note: String,
    /// Where the row came from (file:line), for messages.
    pub origin: String,
}

impl MeasuredRow {
    /// Values no measurement can have: every metric compared is a positive quantity (a 0 or
    /// negative one makes the relative error infinite or meaningless), capacities and caps are
    /// positive, a read share is a percentage. `Err` names the column, value and allowed range.
    pub fn check_ranges(&self) -> Result<(), String> {
        let out =
            |col: &str, v: f64, allowed: &str| Err(format!("column `{col}`: {v} is out of range (allowed {allowed})"));
        if !(self.value.is_finite() && self.value > 0.0) {
            return out("value", self.value, "a finite number > 0");
        }
        if self.metric == "cov" && self.value > 1000.0 {
            return out("value", self.value, "a CoV of 0 < % <= 1000");
        }
        if let Some(c) = self.user_capacity_tb.filter(|c| !(*c > 0.0 && *c <= 1000.0)) {
            return out("user_capacity_tb", c, "0 < TB <= 1000");
        }
        if let Some(w) = self.power_cap_w.filter(|w| !(*w > 0.0 && *w <= 1000.0)) {
            return out("power_cap_w", w, "0 < W <= 1000");
        }
        if let Some(p) = self.read_pct.filter(|p| !(0.0..=100.0).contains(p)) {
            return out("read_pct", p, "0 ..= 100");
        }
        Ok(())
    }
}

/// A measured file that cannot be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MeasuredError {
    #[error("{file}: {message}")]
    Io { file: String, message: String },
    #[error("{file}: line {line}: {message}")]
    Syntax { file: String, line: usize, message: String },
    #[error("{file}: line 1: missing column `{column}` (required: {})", COLUMNS.join(", "))]
    MissingColumn { file: String, column: &'static str },
    #[error("{file}: line {line}, column `{column}`: `{value}` is not {expected}")]
    Value { file: String, line: usize, column: &'static str, value: String, expected: &'static str },
}

/// Reads a measured CSV file.
pub fn read_file(path: &Path) -> Result<Vec<MeasuredRow>, MeasuredError> {
    let file = path.display().to_string();
    let text =
        std::fs::read_to_string(path).map_err(|e| MeasuredError::Io { file: file.clone(), message: e.to_string() })?;
    parse(&text, &file)
}

/// One record as the `csv` crate reads it, by header name (columns in any order, extra columns
/// ignored); [`parse`] then types each cell, so an error names its column.
#[derive(serde::Deserialize)]
struct RawRow {
    id: String,
    drive: String,
    user_capacity_tb: String,
    power_cap_w: String,
    tool: String,
    state: String,
    workload: String,
    bs: String,
    read_pct: String,
    random: String,
    qd: String,
    jobs: String,
    metric: String,
    value: String,
    unit: String,
    note: String,
}

/// Parses measured CSV text (RFC 4180: quoted fields may hold commas, doubled quotes and
/// newlines); `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<Vec<MeasuredRow>, MeasuredError> {
    let mut reader = csv::ReaderBuilder::new().trim(csv::Trim::All).from_reader(text.as_bytes());
    let syntax = |e: csv::Error| {
        let line = e.position().map_or(1, |p| p.line());
        let message = match e.kind() {
            csv::ErrorKind::UnequalLengths { expected_len, len, .. } => {
                format!("{len} fields, the header has {expected_len}")
            }
            _ => e.to_string(),
        };
        MeasuredError::Syntax { file: file.into(), line: usize::try_from(line).unwrap_or(usize::MAX), message }
    };
    let header = reader.headers().map_err(syntax)?.clone();
    if header.iter().all(str::is_empty) {
        return Err(MeasuredError::Syntax {
            file: file.into(),
            line: 1,
            message: "empty file: expected a header line".into(),
        });
    }
    if let Some(column) = COLUMNS.into_iter().find(|c| !header.iter().any(|h| h == *c)) {
        return Err(MeasuredError::MissingColumn { file: file.into(), column });
    }
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(syntax)?;
        if record.iter().all(str::is_empty) {
            continue;
        }
        let line = record.position().map_or(0, |p| usize::try_from(p.line()).unwrap_or(usize::MAX));
        let raw: RawRow = record.deserialize(Some(&header)).map_err(syntax)?;
        let f = Cell { file, line };
        if raw.id.is_empty() {
            return Err(f.bad("id", &raw.id, "a non-empty id"));
        }
        rows.push(MeasuredRow {
            user_capacity_tb: f.opt_f64("user_capacity_tb", &raw.user_capacity_tb)?,
            power_cap_w: f.opt_f64("power_cap_w", &raw.power_cap_w)?,
            read_pct: f.opt_f64("read_pct", &raw.read_pct)?,
            qd: f.opt_u32("qd", &raw.qd)?,
            jobs: f.opt_u32("jobs", &raw.jobs)?,
            value: f.opt_f64("value", &raw.value)?.ok_or_else(|| f.bad("value", &raw.value, "a number"))?,
            origin: format!("{file}:{line}"),
            id: raw.id,
            drive: raw.drive,
            tool: raw.tool,
            state: raw.state,
            workload: raw.workload,
            bs: raw.bs,
            random: raw.random,
            metric: raw.metric,
            unit: raw.unit,
            note: raw.note,
        });
    }
    Ok(rows)
}

/// Where a cell is, for typed access with located errors.
struct Cell<'a> {
    file: &'a str,
    line: usize,
}

impl Cell<'_> {
    fn bad(&self, column: &'static str, value: &str, expected: &'static str) -> MeasuredError {
        MeasuredError::Value { file: self.file.into(), line: self.line, column, value: value.into(), expected }
    }

    fn opt_f64(&self, column: &'static str, raw: &str) -> Result<Option<f64>, MeasuredError> {
        let s = raw.trim_end_matches('%');
        if s.is_empty() {
            return Ok(None);
        }
        match s.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(Some(v)),
            _ => Err(self.bad(column, raw, "a finite number")),
        }
    }

    fn opt_u32(&self, column: &'static str, raw: &str) -> Result<Option<u32>, MeasuredError> {
        if raw.is_empty() {
            return Ok(None);
        }
        match raw.parse::<u32>() {
            Ok(v) if v > 0 => Ok(Some(v)),
            _ => Err(self.bad(column, raw, "a positive integer")),
        }
    }
}

impl fmt::Display for MeasuredRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}, {} {} = {} {})", self.id, self.drive, self.workload, self.metric, self.value, self.unit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str =
        "id,drive,user_capacity_tb,power_cap_w,tool,state,workload,bs,read_pct,random,qd,jobs,metric,value,unit,note\n";

    #[test]
    fn quoted_fields_and_empty_numbers() {
        let t = format!("{HEAD}a,tiny,,,fio,steady,\"4k, random\",4k,100,yes,,,iops,1000,iops,\"say \"\"hi\"\"\"\n");
        let rows = parse(&t, "m.csv").unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].workload, "4k, random");
        assert_eq!(rows[0].note, "say \"hi\"");
        assert_eq!(rows[0].qd, None);
        assert_eq!(rows[0].origin, "m.csv:2");
    }

    #[test]
    fn errors_name_line_and_column() {
        let t = format!("{HEAD}a,tiny,,,fio,steady,w,4k,100,yes,x,,iops,1000,iops,\n");
        let e = parse(&t, "m.csv").unwrap_err().to_string();
        assert_eq!(e, "m.csv: line 2, column `qd`: `x` is not a positive integer");
        let e = parse("id,drive\n", "m.csv").unwrap_err().to_string();
        assert!(e.contains("missing column `user_capacity_tb`"), "{e}");
        let t = format!("{HEAD}a,tiny\n");
        assert!(parse(&t, "m.csv").unwrap_err().to_string().contains("line 2: 2 fields"));
        // A quoted note over two lines: the next row starts on line 4, and its error says so.
        let t = format!(
            "{HEAD}a,tiny,,,fio,steady,w,4k,100,yes,1,1,iops,1000,iops,\"two\nlines\"\n\
             b,tiny,,,fio,steady,w,4k,100,yes,1,1,iops,12%x,iops,\n"
        );
        let e = parse(&t, "m.csv").unwrap_err().to_string();
        assert_eq!(e, "m.csv: line 4, column `value`: `12%x` is not a finite number");
        // Columns in another order are found by name.
        let t = "value,id,drive,user_capacity_tb,power_cap_w,tool,state,workload,bs,read_pct,random,qd,jobs,\
                 metric,unit,note\n5,a,tiny,,,fio,steady,w,4k,100,yes,1,1,iops,iops,\n";
        assert_eq!(parse(t, "m.csv").unwrap()[0].value, 5.0);
    }
}
