//! Exact number parsing for trace fields: integers, decimal seconds to ns without floating
//! point, and comma / whitespace field splitting without allocation.

/// Splits `line` on `sep` into `out` (ASCII-trimmed); returns how many fields there were (up
/// to `out.len()`; one more means more). For an ASCII separator (the hot path of
/// every delimited format) the separators are found with `memchr` (SIMD).
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
    // One field ends at separator `i`; false when `out` is full.
    let mut field = |i: usize, n: &mut usize| {
        if *n >= out.len() {
            return false;
        }
        // Splitting at an ASCII byte keeps char boundaries.
        out[*n] = trim(&line[start..i]);
        *n += 1;
        start = i + 1;
        true
    };
    let pat = u64::from(s) * LO;
    let mut chunks = b.chunks_exact(8);
    let mut base = 0;
    for c in &mut chunks {
        let mut hits = zero_bytes(u64::from_le_bytes(c.try_into().unwrap_or_default()) ^ pat);
        while hits != 0 {
            if !field(base + (hits.trailing_zeros() / 8) as usize, &mut n) {
                return n + 1;
            }
            hits &= hits - 1;
        }
        base += 8;
    }
    for (k, &c) in chunks.remainder().iter().enumerate() {
        if c == s && !field(base + k, &mut n) {
            return n + 1;
        }
    }
    if n >= out.len() {
        return n + 1;
    }
    out[n] = trim(&line[start..]);
    n + 1
}

/// `s.trim_ascii()`, answered from the end bytes for the usual field (ASCII whitespace is
/// all at most b' ').
#[inline]
fn trim(s: &str) -> &str {
    match s.as_bytes() {
        [first, .., last] if *first > b' ' && *last > b' ' => s,
        [only] if *only > b' ' => s,
        _ => s.trim_ascii(),
    }
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI7: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// Bit 7 set in each byte of `x` that is zero, nothing else (exact: no carry crosses a byte,
/// unlike the classic `(x - LO) & !x` test).
#[inline]
fn zero_bytes(x: u64) -> u64 {
    !(((x & HI7) + HI7) | x | HI7)
}

/// Eight ASCII digits (first digit in the lowest byte) as a number, or `None` if any byte is
/// not a digit. SWAR: digit pairs, then quads, then the eight, each by one multiply.
#[inline]
fn digits8(chunk: u64) -> Option<u64> {
    let low = chunk & 0x0f0f_0f0f_0f0f_0f0f;
    // High nibble 3 and low nibble at most 9 (low + 6 stays below 0x10).
    if chunk & 0xf0f0_f0f0_f0f0_f0f0 != 0x3030_3030_3030_3030
        || (low + 0x0606_0606_0606_0606) & 0xf0f0_f0f0_f0f0_f0f0 != 0
    {
        return None;
    }
    // Each multiply adds a neighbour's value x10^k into a lane; what overflows the top is
    // discarded by the shift and masks.
    let v = low.wrapping_mul(10 * 256 + 1) >> 8;
    let v = (v & 0x00ff_00ff_00ff_00ff).wrapping_mul(100 * 65536 + 1) >> 16;
    Some((v & 0x0000_ffff_0000_ffff).wrapping_mul(10000 * (1 << 32) + 1) >> 32)
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

/// A non-negative decimal integer. Up to 19 digits (no overflow possible) eight at a time;
/// anything else, errors included, goes to `uint_checked`.
#[inline]
pub fn uint(s: &str, what: &str) -> Result<u64, String> {
    let b = s.as_bytes();
    if b.is_empty() || b.len() > 19 {
        return uint_checked(s, what);
    }
    let mut v: u64 = 0;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        match digits8(u64::from_le_bytes(c.try_into().unwrap_or_default())) {
            Some(d) => v = v * 100_000_000 + d,
            None => return uint_checked(s, what),
        }
    }
    for &c in chunks.remainder() {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return uint_checked(s, what);
        }
        v = v * 10 + u64::from(d);
    }
    Ok(v)
}

/// [`uint`] digit by digit with overflow checks and the error messages.
#[cold]
fn uint_checked(s: &str, what: &str) -> Result<u64, String> {
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
    v = v
        .checked_add(u64::try_from(place / denom).map_err(|_| format!("{what} '{s}' is too large"))?)
        .ok_or_else(|| format!("{what} '{s}' is too large"))?;
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
#[allow(clippy::cast_possible_truncation)] // casts of the tests' own small values
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

    /// The SWAR paths agree with the plain definitions on every length and on near-digits.
    #[test]
    fn fast_paths_match_plain_parsing() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let alphabet = b"0123456789/:, -x";
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 24) as usize;
            let digits_only = x & (1 << 40) != 0;
            let s: String = (0..len)
                .map(|k| {
                    let r = (x >> (k * 2 % 40)) as usize ^ k.wrapping_mul(7);
                    if digits_only {
                        (b'0' + (r % 10) as u8) as char
                    } else {
                        alphabet[r % alphabet.len()] as char
                    }
                })
                .collect();
            assert_eq!(uint(&s, "v"), uint_checked(&s, "v"), "{s:?}");
            if len <= 20 {
                assert_eq!(uint(&s, "v").ok(), s.parse::<u64>().ok().filter(|_| !s.starts_with('+')), "{s:?}");
            }
            let mut fast = [""; 5];
            let n = split_into(&s, ',', &mut fast);
            let plain: Vec<&str> = s.split(',').map(str::trim_ascii).collect();
            assert_eq!(n, plain.len().min(6), "{s:?}");
            assert_eq!(&fast[..n.min(5)], &plain[..n.min(5)], "{s:?}");
        }
    }
}
