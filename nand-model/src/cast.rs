//! Numeric conversions whose narrowing is the intended arithmetic, named so that
//! `clippy::cast_possible_truncation` stays denied everywhere else (a bare `as` that can lose
//! bits is then a reviewed choice, not an accident).

// ssdlab builds for 64-bit targets only, where u64 -> usize is lossless.
const _: () = assert!(usize::BITS == 64, "ssdlab needs a 64-bit target");

/// `x` as an index or length: lossless on the 64-bit targets ssdlab builds for (asserted at
/// compile time above).
#[inline(always)]
#[allow(clippy::cast_possible_truncation)] // usize is 64 bits wide (compile-time assertion)
pub const fn usize_from(x: u64) -> usize {
    x as usize
}

/// The integer part of `x` (toward zero), saturating at 0 and `u64::MAX`, NaN -> 0: a float
/// duration, count or size once the caller has rounded it as it means to.
#[inline(always)]
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // saturation is the intent
pub fn sat_u64(x: f64) -> u64 {
    x as u64
}

/// [`sat_u64`] for `u32`.
#[inline(always)]
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // saturation is the intent
pub fn sat_u32(x: f64) -> u32 {
    x as u32
}

/// [`sat_u64`] for `usize`.
#[inline(always)]
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // saturation is the intent
pub fn sat_usize(x: f64) -> usize {
    x as usize
}

/// [`sat_u64`] for `i64` (saturating at `i64::MIN` and `i64::MAX`).
#[inline(always)]
#[allow(clippy::cast_possible_truncation)] // saturation is the intent
pub fn sat_i64(x: f64) -> i64 {
    x as i64
}

/// [`sat_u64`] for `i32` (saturating at `i32::MIN` and `i32::MAX`).
#[inline(always)]
#[allow(clippy::cast_possible_truncation)] // saturation is the intent
pub fn sat_i32(x: f64) -> i32 {
    x as i32
}

/// The low 64 bits of `x` (a 128-bit word's lower half, or a product known to fit).
#[inline(always)]
#[allow(clippy::cast_possible_truncation)] // taking the low half is the intent
pub const fn low_u64(x: u128) -> u64 {
    x as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_conversions_saturate_and_truncate_toward_zero() {
        assert_eq!(sat_u64(2.9), 2);
        assert_eq!(sat_u64(-1.0), 0);
        assert_eq!(sat_u64(f64::NAN), 0);
        assert_eq!(sat_u64(1e30), u64::MAX);
        assert_eq!(sat_u32(5e9), u32::MAX);
        assert_eq!(sat_i32(-3.7), -3);
        assert_eq!(low_u64((7u128 << 64) | 9), 9);
        assert_eq!(usize_from(u64::MAX), usize::MAX);
    }
}
