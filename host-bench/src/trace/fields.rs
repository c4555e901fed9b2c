//! Exact number parsing for trace fields: integers, decimal seconds to ns without floating
//! point, and comma / whitespace field splitting without allocation.

/// Splits `line` on `sep` into `out` (ASCII-trimmed); returns how many fields there were (up
/// to `out.len()`; one more means more). Byte-wise for an ASCII separator: the hot path of
/// every delimited format.
#[inline]
pub fn split_into<'a>(line: &'a str, sep: char, out: &mut [&'a str]) -> usize {
    if !sep.is_ascii() {
        let mut n = 0;
        for f in line.split(sep) {
            if n >= out.len() {
                return n + 1;
            }
            out[n] = f.trim();
            n += 1;
        }
        return n;
    }
    let (b, s) = (line.as_bytes(), sep as u8);
    let (mut n, mut start) = (0, 0);
    for (i, &c) in b.iter().enumerate() {
        if c == s {
            if n >= out.len() {
                return n + 1;
            }
            // Splitting at an ASCII byte keeps char boundaries.
            out[n] = line[start..i].trim_ascii();
            n += 1;
            start = i + 1;
        }
    }
    if n >= out.len() {
        return n + 1;
    }
    out[n] = line[start..].trim_ascii();
    n + 1
}

/// Splits on runs of whitespace.
#[inline]
pub fn split_ws<'a>(line: &'a str, out: &mut [&'a str]) -> usize {
    let mut n = 0;
    for f in line.split_ascii_whitespace() {
        if n < out.len() {
            out[n] = f;
        }
        n += 1;
    }
    n
}

/// A non-negative decimal integer.
#[inline]
pub fn uint(s: &str, what: &str) -> Result<u64, String> {
    let b = s.as_bytes();
    if b.is_empty() || b.len() > 20 {
        return Err(format!("{what} '{s}' is not a non-negative integer"));
    }
    let mut v: u64 = 0;
    for &c in b {
        if !c.is_ascii_digit() {
            return Err(format!("{what} '{s}' is not a non-negative integer"));
        }
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(c - b'0')))
            .ok_or_else(|| format!("{what} '{s}' is too large"))?;
    }
    Ok(v)
}

/// A non-negative decimal number (`12`, `1.427376394`, `3e-3` is refused) times `unit_ns`,
/// exactly: digits beyond ns resolution are truncated.
pub fn decimal_ns(s: &str, unit_ns: u64, what: &str) -> Result<u64, String> {
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, f),
        None => (s, ""),
    };
    let bad = || format!("{what} '{s}' is not a non-negative decimal number");
    if (int.is_empty() && frac.is_empty()) || !frac.bytes().all(|c| c.is_ascii_digit()) {
        return Err(bad());
    }
    let i = if int.is_empty() { 0 } else { uint(int, what).map_err(|_| bad())? };
    let mut v = i.checked_mul(unit_ns).ok_or_else(|| format!("{what} '{s}' is too large"))?;
    // Fraction: each digit is worth unit_ns / 10^k, kept exact while unit_ns divides.
    let mut place = unit_ns as u128;
    let mut acc: u128 = 0;
    let mut denom: u128 = 1;
    for c in frac.bytes().take(19) {
        acc = acc * 10 + u128::from(c - b'0');
        denom *= 10;
    }
    place *= acc;
    v = v.checked_add((place / denom) as u64).ok_or_else(|| format!("{what} '{s}' is too large"))?;
    Ok(v)
}

/// A time unit name to ns: s, ms, us, ns.
pub fn unit_ns(u: &str) -> Option<u64> {
    match u {
        "s" => Some(1_000_000_000),
        "ms" => Some(1_000_000),
        "us" => Some(1_000),
        "ns" => Some(1),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_counts_and_trims() {
        let mut f = [""; 3];
        assert_eq!(split_into(" a , b,c", ',', &mut f), 3);
        assert_eq!(f, ["a", "b", "c"]);
        assert_eq!(split_into("a,b", ',', &mut f), 2);
        assert!(split_into("a,b,c,d", ',', &mut f) > 3);
        assert_eq!(split_into("", ',', &mut f), 1);
        assert_eq!(split_into("x;y", ';', &mut f), 2);
    }

    #[test]
    fn decimals_are_exact() {
        assert_eq!(decimal_ns("1.427376394", 1_000_000_000, "t").unwrap(), 1_427_376_394);
        assert_eq!(decimal_ns("0.5", 1_000_000, "t").unwrap(), 500_000);
        assert_eq!(decimal_ns("12", 1_000, "t").unwrap(), 12_000);
        assert_eq!(decimal_ns("1487304000.000047", 1_000_000_000, "t").unwrap(), 1_487_304_000_000_047_000);
        assert!(decimal_ns("-1", 1, "t").is_err());
        assert!(decimal_ns("1e3", 1, "t").is_err());
        assert!(decimal_ns(".", 1, "t").is_err());
        assert_eq!(uint("18446744073709551615", "x").unwrap(), u64::MAX);
        assert!(uint("18446744073709551616", "x").is_err());
    }
}
