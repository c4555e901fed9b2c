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

/// Parses measured CSV text; `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<Vec<MeasuredRow>, MeasuredError> {
    let records = split_records(text, file)?;
    let Some((_, header)) = records.first() else {
        return Err(MeasuredError::Syntax {
            file: file.into(),
            line: 1,
            message: "empty file: expected a header line".into(),
        });
    };
    let mut index = [0usize; COLUMNS.len()];
    for (slot, col) in index.iter_mut().zip(COLUMNS) {
        *slot = header
            .iter()
            .position(|h| h.trim() == col)
            .ok_or(MeasuredError::MissingColumn { file: file.into(), column: col })?;
    }
    let mut rows = Vec::new();
    for (line, fields) in records.iter().skip(1) {
        if fields.iter().all(|f| f.trim().is_empty()) {
            continue;
        }
        if fields.len() != header.len() {
            return Err(MeasuredError::Syntax {
                file: file.into(),
                line: *line,
                message: format!("{} fields, the header has {}", fields.len(), header.len()),
            });
        }
        let cell = |k: usize| fields[index[k]].trim().to_string();
        let f = Fields { file, line: *line, fields, index: &index };
        let id = cell(0);
        if id.is_empty() {
            return Err(f.bad(0, "a non-empty id"));
        }
        rows.push(MeasuredRow {
            id,
            drive: cell(1),
            user_capacity_tb: f.opt_f64(2)?,
            power_cap_w: f.opt_f64(3)?,
            tool: cell(4),
            state: cell(5),
            workload: cell(6),
            bs: cell(7),
            read_pct: f.opt_f64(8)?,
            random: cell(9),
            qd: f.opt_u32(10)?,
            jobs: f.opt_u32(11)?,
            metric: cell(12),
            value: f.opt_f64(13)?.ok_or_else(|| f.bad(13, "a number"))?,
            unit: cell(14),
            note: cell(15),
            origin: format!("{file}:{line}"),
        });
    }
    Ok(rows)
}

/// One record's fields with the column index, for typed access with located errors.
struct Fields<'a> {
    file: &'a str,
    line: usize,
    fields: &'a [String],
    index: &'a [usize; COLUMNS.len()],
}

impl Fields<'_> {
    fn raw(&self, k: usize) -> &str {
        self.fields[self.index[k]].trim()
    }

    fn bad(&self, k: usize, expected: &'static str) -> MeasuredError {
        MeasuredError::Value {
            file: self.file.into(),
            line: self.line,
            column: COLUMNS[k],
            value: self.raw(k).into(),
            expected,
        }
    }

    fn opt_f64(&self, k: usize) -> Result<Option<f64>, MeasuredError> {
        let s = self.raw(k).trim_end_matches('%');
        if s.is_empty() {
            return Ok(None);
        }
        match s.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(Some(v)),
            _ => Err(self.bad(k, "a finite number")),
        }
    }

    fn opt_u32(&self, k: usize) -> Result<Option<u32>, MeasuredError> {
        let s = self.raw(k);
        if s.is_empty() {
            return Ok(None);
        }
        match s.parse::<u32>() {
            Ok(v) if v > 0 => Ok(Some(v)),
            _ => Err(self.bad(k, "a positive integer")),
        }
    }
}

/// RFC 4180 records (quoted fields may hold commas, doubled quotes and newlines), each with the
/// line it starts on.
fn split_records(text: &str, file: &str) -> Result<Vec<(usize, Vec<String>)>, MeasuredError> {
    let mut out = Vec::new();
    let mut fields = Vec::new();
    let mut field = String::new();
    let (mut line, mut start_line) = (1usize, 1usize);
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (false, '"') if field.trim().is_empty() => {
                field.clear();
                quoted = true;
            }
            (false, ',') => fields.push(std::mem::take(&mut field)),
            (false, '\n') => {
                fields.push(std::mem::take(&mut field));
                out.push((start_line, std::mem::take(&mut fields)));
                line += 1;
                start_line = line;
            }
            (false, '\r') => {}
            (_, ch) => {
                if ch == '\n' {
                    line += 1;
                }
                field.push(ch);
            }
        }
    }
    if quoted {
        return Err(MeasuredError::Syntax {
            file: file.into(),
            line: start_line,
            message: "unterminated quoted field".into(),
        });
    }
    if !field.is_empty() || !fields.is_empty() {
        fields.push(field);
        out.push((start_line, fields));
    }
    Ok(out)
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
    }
}
