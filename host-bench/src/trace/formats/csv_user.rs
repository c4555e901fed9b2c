//! A delimited trace described on the command line:
//! `csv:ts=1:unit=us,op=4:w=W,offset=2:unit=512,size=3:unit=512[,vol=5][,sep=;]`.
//!
//! Columns are 1-based. `ts` unit: s, ms, us or ns (decimals allowed, default s). `op`: `w=X`
//! makes X a write, `r=Y` a read, `t=Z` a trim; with only `w=` every other value is a read,
//! with `r=` given too any value matching none is a bad line. `offset` and `size` units are
//! bytes per count (default 1). `sep`: one character, or `tab` / `space` (runs of
//! whitespace); default `,`.

use crate::device::IoDir;
use crate::trace::fields::{decimal_ns, split_into, split_ws, uint, unit_ns};
use crate::trace::{LineOut, LineParser};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsvSpec {
    /// 0-based columns.
    pub ts_col: usize,
    pub ts_unit_ns: u64,
    pub op_col: usize,
    pub write_value: Option<String>,
    pub read_value: Option<String>,
    pub trim_value: Option<String>,
    pub offset_col: usize,
    pub offset_unit_bytes: u64,
    pub size_col: usize,
    pub size_unit_bytes: u64,
    pub volume_col: Option<usize>,
    /// `None` = runs of whitespace.
    pub sep: Option<char>,
}

const HELP: &str = "csv:ts=COL[:unit=s|ms|us|ns],op=COL:w=VALUE[:r=VALUE][:t=VALUE],offset=COL[:unit=BYTES],size=COL[:unit=BYTES][,vol=COL][,sep=CHAR|tab|space]";

impl CsvSpec {
    pub fn parse(spec: &str) -> Result<CsvSpec, String> {
        let err = |m: String| format!("--format csv:{spec}: {m} (expected {HELP})");
        let mut s = CsvSpec {
            ts_col: usize::MAX,
            ts_unit_ns: 1_000_000_000,
            op_col: usize::MAX,
            write_value: None,
            read_value: None,
            trim_value: None,
            offset_col: usize::MAX,
            offset_unit_bytes: 1,
            size_col: usize::MAX,
            size_unit_bytes: 1,
            volume_col: None,
            sep: Some(','),
        };
        for item in spec.split(',') {
            let mut parts = item.split(':');
            let head = parts.next().unwrap_or("");
            let (key, val) = head.split_once('=').ok_or_else(|| err(format!("'{item}' is not KEY=VALUE")))?;
            if key == "sep" {
                s.sep = match val {
                    "tab" => Some('\t'),
                    "space" => None,
                    v if v.chars().count() == 1 => v.chars().next(),
                    v => return Err(err(format!("sep '{v}' is not one character, tab or space"))),
                };
                continue;
            }
            let col = match val.parse::<usize>() {
                Ok(c) if c >= 1 => c - 1,
                _ => return Err(err(format!("{key}: column '{val}' is not a number >= 1"))),
            };
            let opts: Vec<(&str, &str)> = parts
                .map(|p| p.split_once('=').ok_or_else(|| err(format!("'{p}' is not KEY=VALUE"))))
                .collect::<Result<_, _>>()?;
            for &(k, v) in &opts {
                match (key, k) {
                    ("ts", "unit") => {
                        s.ts_unit_ns = unit_ns(v).ok_or_else(|| err(format!("ts unit '{v}' is not s, ms, us or ns")))?
                    }
                    ("offset" | "size", "unit") => {
                        let u = v
                            .parse::<u64>()
                            .ok()
                            .filter(|&u| u >= 1)
                            .ok_or_else(|| err(format!("{key} unit '{v}' is not a whole number of bytes >= 1")))?;
                        if key == "offset" {
                            s.offset_unit_bytes = u;
                        } else {
                            s.size_unit_bytes = u;
                        }
                    }
                    ("op", "w") => s.write_value = Some(v.to_string()),
                    ("op", "r") => s.read_value = Some(v.to_string()),
                    ("op", "t") => s.trim_value = Some(v.to_string()),
                    _ => return Err(err(format!("{key} has no option '{k}'"))),
                }
            }
            match key {
                "ts" => s.ts_col = col,
                "op" => s.op_col = col,
                "offset" => s.offset_col = col,
                "size" => s.size_col = col,
                "vol" => s.volume_col = Some(col),
                k => return Err(err(format!("unknown key '{k}'"))),
            }
        }
        for (name, c) in [("ts", s.ts_col), ("op", s.op_col), ("offset", s.offset_col), ("size", s.size_col)] {
            if c == usize::MAX {
                return Err(err(format!("{name}=COL is missing")));
            }
        }
        if s.write_value.is_none() && s.read_value.is_none() {
            return Err(err("op needs w=VALUE or r=VALUE".into()));
        }
        Ok(s)
    }
}

pub struct CsvUser {
    spec: CsvSpec,
    width: usize,
}

impl CsvUser {
    pub fn new(spec: CsvSpec) -> Self {
        let width = [spec.ts_col, spec.op_col, spec.offset_col, spec.size_col, spec.volume_col.unwrap_or(0)]
            .into_iter()
            .max()
            .unwrap_or(0)
            + 1;
        CsvUser { spec, width }
    }
}

impl LineParser for CsvUser {
    fn parse(&mut self, line: &str) -> Result<LineOut, String> {
        let mut f = [""; 32];
        if self.width > f.len() {
            return Err(format!("columns beyond {} are not supported", f.len()));
        }
        let n = match self.spec.sep {
            Some(c) => split_into(line, c, &mut f),
            None => split_ws(line, &mut f),
        };
        if n < self.width {
            return Err(format!("{n} fields, the format names column {}", self.width));
        }
        let s = &self.spec;
        let op = f[s.op_col];
        let is = |v: &Option<String>| v.as_deref() == Some(op);
        let dir = if is(&s.write_value) {
            IoDir::Write
        } else if is(&s.trim_value) {
            IoDir::Trim
        } else if is(&s.read_value) || s.read_value.is_none() {
            IoDir::Read
        } else {
            return Err(format!("op '{op}' is none of the values given"));
        };
        let scaled = |v: &str, unit: u64, what: &str| -> Result<u64, String> {
            uint(v, what)?.checked_mul(unit).ok_or_else(|| format!("{what} '{v}' is too large"))
        };
        Ok(LineOut::Io {
            raw_time_ns: decimal_ns(f[s.ts_col], s.ts_unit_ns, "ts")?,
            dir,
            offset_bytes: scaled(f[s.offset_col], s.offset_unit_bytes, "offset")?,
            len_bytes: scaled(f[s.size_col], s.size_unit_bytes, "size")?,
            volume: match s.volume_col {
                Some(c) => Some(uint(f[c], "vol")?),
                None => None,
            },
        })
    }
}
