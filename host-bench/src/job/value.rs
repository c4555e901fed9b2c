//! Value syntax shared by options: sizes, times, integers, booleans and the per-direction
//! `read,write,trim` comma form.

use super::checks::{device_percent, in_range, ns_of};
use super::error::{JobError, Loc};
use super::SizeSpec;

const SIZE_ALLOWED: &str = "a number with optional suffix k/m/g/t/p or kb/mb/gb/tb/pb (powers of kb_base, 1024 by default), or KiB/MiB/GiB/TiB/PiB (powers of 1000 under fio's default kb_base, of 1024 under kb_base=1000)";
pub(crate) const TIME_ALLOWED: &str = "a number with optional suffix us/ms/s/m/h/d (default s)";

/// fio's `kb_base`: how a size's unit prefix reads (fio 3.33 `__get_mult_bytes`). Under the
/// default, k, kb and ki are 1024 and kib is 1000 ("inputs invert IEC and SI prefixes, for
/// compatibility"); under 1000 each is the other way round.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KbBase {
    /// `kb_base=1024`, fio's default.
    #[default]
    Binary,
    /// `kb_base=1000`.
    Decimal,
}

impl KbBase {
    fn base(self) -> u64 {
        match self {
            KbBase::Binary => 1024,
            KbBase::Decimal => 1000,
        }
    }

    /// The base of the IEC-looking suffixes (`KiB`), which fio reads the other way round.
    fn inverted(self) -> u64 {
        match self {
            KbBase::Binary => 1000,
            KbBase::Decimal => 1024,
        }
    }
}

/// Multiplier for a size suffix, as fio 3.33 reads it (any case): `X`, `Xb` and `Xi` are powers
/// of `kb_base`, `Xib` of the other base, for X in k, m, g, t, p.
fn size_multiplier(suffix: &str, kb: KbBase) -> Option<u64> {
    let s = suffix.to_ascii_lowercase();
    if s.is_empty() {
        return Some(1);
    }
    let (prefix, base) = match s.strip_suffix("ib") {
        Some(p) => (p, kb.inverted()),
        None => (s.strip_suffix('b').or_else(|| s.strip_suffix('i')).unwrap_or(&s), kb.base()),
    };
    let pow = match prefix {
        "k" => 1,
        "m" => 2,
        "g" => 3,
        "t" => 4,
        "p" => 5,
        _ => return None,
    };
    base.checked_pow(pow)
}

/// Splits "12.5k" into ("12.5", "k").
fn split_number(text: &str) -> (&str, &str) {
    let end = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    (&text[..end], &text[end..])
}

/// Bytes from text like `4k`, `1.5GiB`, `4096`.
pub(crate) fn size_bytes(text: &str, loc: &Loc) -> Result<u64, JobError> {
    let text = text.trim();
    let (num, suffix) = split_number(text);
    let mult = size_multiplier(suffix, loc.kb).ok_or_else(|| loc.bad("is not a size", SIZE_ALLOWED))?;
    if num.is_empty() {
        return Err(loc.bad("is not a size", SIZE_ALLOWED));
    }
    if let Ok(n) = num.parse::<u64>() {
        return n.checked_mul(mult).ok_or_else(|| loc.bad("is too large", "at most 2^64-1 bytes"));
    }
    let f: f64 = num.parse().map_err(|_| loc.bad("is not a size", SIZE_ALLOWED))?;
    let bytes = f * mult as f64;
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err(loc.bad("is too large", "at most 2^64-1 bytes"));
    }
    Ok(nand_model::cast::sat_u64(bytes))
}

/// A size or a percent of the device (`50%`).
pub(crate) fn size_spec(text: &str, loc: &Loc) -> Result<SizeSpec, JobError> {
    let text = text.trim();
    match text.strip_suffix('%') {
        Some(p) => {
            let pct: f64 = p.trim().parse().map_err(|_| loc.bad("is not a percent", "0..=100%"))?;
            device_percent(pct, loc)
        }
        None => size_bytes(text, loc).map(SizeSpec::Bytes),
    }
}

/// Nanoseconds from a fio time value; bare numbers are seconds.
pub(crate) fn time_ns(text: &str, loc: &Loc) -> Result<u64, JobError> {
    time_ns_bare(text, 1e9, loc)
}

/// Nanoseconds from a fio time value whose bare numbers are `bare_ns` each (fio's `is_time`
/// integer options without `is_seconds`, e.g. `thinktime`, count microseconds).
pub(crate) fn time_ns_bare(text: &str, bare_ns: f64, loc: &Loc) -> Result<u64, JobError> {
    let text = text.trim();
    let (num, suffix) = split_number(text);
    let unit_ns: f64 = match suffix.to_ascii_lowercase().as_str() {
        "" => bare_ns,
        "s" | "sec" => 1e9,
        "us" | "usec" => 1e3,
        "ms" | "msec" => 1e6,
        "m" | "min" => 60e9,
        "h" | "hr" => 3600e9,
        "d" => 86400e9,
        _ => return Err(loc.bad("is not a time", TIME_ALLOWED)),
    };
    let n: f64 = num.parse().map_err(|_| loc.bad("is not a time", TIME_ALLOWED))?;
    ns_of(n, unit_ns, TIME_ALLOWED, loc)
}

/// An integer in `min..=max`; accepts size suffixes like fio does for integer options.
pub(crate) fn int_in(text: &str, min: u64, max: u64, loc: &Loc) -> Result<u64, JobError> {
    let allowed = format!("{min}..={max}");
    let n = size_bytes(text, loc).map_err(|_| loc.bad("is not an integer", &allowed))?;
    in_range(n, min, max, loc)
}

/// [`int_in`] for an option held as `u32`.
pub(crate) fn int_in_u32(text: &str, min: u32, max: u32, loc: &Loc) -> Result<u32, JobError> {
    let n = int_in(text, min.into(), max.into(), loc)?;
    u32::try_from(n).map_err(|_| loc.bad("is out of range", &format!("{min}..={max}")))
}

/// A float in `min..=max` (inclusive).
pub(crate) fn float_in(text: &str, min: f64, max: f64, loc: &Loc) -> Result<f64, JobError> {
    let allowed = format!("{min}..={max}");
    let f: f64 = text.trim().parse().map_err(|_| loc.bad("is not a number", &allowed))?;
    if !(min..=max).contains(&f) {
        return Err(loc.bad("is out of range", &allowed));
    }
    Ok(f)
}

/// fio booleans: a bare flag, 1/0, true/false, yes/no, on/off.
pub(crate) fn boolean(text: Option<&str>, loc: &Loc) -> Result<bool, JobError> {
    match text.map(|t| t.trim().to_ascii_lowercase()).as_deref() {
        None | Some("1") | Some("true") | Some("yes") | Some("on") => Ok(true),
        Some("0") | Some("false") | Some("no") | Some("off") => Ok(false),
        Some(_) => Err(loc.bad("is not a boolean", "1/0, true/false, yes/no, on/off")),
    }
}

/// fio's `read,write,trim` form: empty fields keep `current`; a missing trailing field takes
/// the last given value ("bs=4k,8k" makes trims 8k).
pub(crate) fn per_dir<T: Copy>(
    text: &str,
    current: [T; 3],
    loc: &Loc,
    mut one: impl FnMut(&str) -> Result<T, JobError>,
) -> Result<[T; 3], JobError> {
    let fields: Vec<&str> = text.split(',').collect();
    if fields.len() > 3 {
        return Err(loc.bad("has too many fields", "at most 3 comma-separated values: read,write,trim"));
    }
    let mut out = current;
    let mut last = None;
    for (i, slot) in out.iter_mut().enumerate() {
        match fields.get(i).map(|f| f.trim()) {
            Some("") => {}
            Some(field) => {
                let v = one(field)?;
                *slot = v;
                last = Some(v);
            }
            None => {
                if let Some(v) = last {
                    *slot = v;
                }
            }
        }
    }
    Ok(out)
}
