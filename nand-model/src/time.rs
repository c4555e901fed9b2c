//! Simulated time. Always integer nanoseconds since the start of a simulation; never the wall
//! clock, so that the same inputs give bit-identical results on any machine.

use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, AddAssign, Div, Mul, Sub, SubAssign};

/// Simulated time or duration in nanoseconds (one type for both, as the arithmetic mixes them).
///
/// A newtype rather than a bare `u64` so that simulated time cannot be mixed up with byte counts,
/// sequence numbers or wall-clock figures: crossing over is spelt [`SimTime::from_ns`] and
/// [`SimTime::ns`]. It costs nothing over the `u64`: the same layout (`repr(transparent)`), the
/// same encoding (serde transparent: snapshots and JSON hold the bare number), the plain `u64`
/// operators (same overflow behaviour), and `Debug`/`Display` print the bare number.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
#[repr(transparent)]
#[serde(transparent)]
pub struct SimTime(u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    /// Later than any event; also "never" where a time is required.
    pub const MAX: SimTime = SimTime(u64::MAX);

    #[inline(always)]
    pub const fn from_ns(ns: u64) -> SimTime {
        SimTime(ns)
    }

    /// The time in nanoseconds, for arithmetic with other quantities (energy, rates, counters).
    #[inline(always)]
    pub const fn ns(self) -> u64 {
        self.0
    }

    #[inline(always)]
    pub const fn saturating_sub(self, rhs: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(rhs.0))
    }
}

// Ordering by hand rather than derived: every method forwards to `u64`'s, so `<`, `max` and
// `min` compile to the one compare and select they were on the bare `u64`. The derived impls go
// through `partial_cmp`/`cmp` and an `Ordering`, which the simulator's hot path paid for: +0.4%
// instructions on `ssdlab bench --segments 1 --drive-writes 0.3` (cachegrind).
impl PartialOrd for SimTime {
    #[inline(always)]
    fn partial_cmp(&self, other: &SimTime) -> Option<Ordering> {
        Some(self.cmp(other))
    }
    #[inline(always)]
    fn lt(&self, other: &SimTime) -> bool {
        self.0 < other.0
    }
    #[inline(always)]
    fn le(&self, other: &SimTime) -> bool {
        self.0 <= other.0
    }
    #[inline(always)]
    fn gt(&self, other: &SimTime) -> bool {
        self.0 > other.0
    }
    #[inline(always)]
    fn ge(&self, other: &SimTime) -> bool {
        self.0 >= other.0
    }
}

impl Ord for SimTime {
    #[inline(always)]
    fn cmp(&self, other: &SimTime) -> Ordering {
        self.0.cmp(&other.0)
    }
    #[inline(always)]
    fn max(self, other: SimTime) -> SimTime {
        SimTime(self.0.max(other.0))
    }
    #[inline(always)]
    fn min(self, other: SimTime) -> SimTime {
        SimTime(self.0.min(other.0))
    }
}

impl fmt::Debug for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl Add for SimTime {
    type Output = SimTime;
    #[inline(always)]
    fn add(self, rhs: SimTime) -> SimTime {
        SimTime(self.0 + rhs.0)
    }
}

impl Sub for SimTime {
    type Output = SimTime;
    #[inline(always)]
    fn sub(self, rhs: SimTime) -> SimTime {
        SimTime(self.0 - rhs.0)
    }
}

impl AddAssign for SimTime {
    #[inline(always)]
    fn add_assign(&mut self, rhs: SimTime) {
        self.0 += rhs.0;
    }
}

impl SubAssign for SimTime {
    #[inline(always)]
    fn sub_assign(&mut self, rhs: SimTime) {
        self.0 -= rhs.0;
    }
}

/// A duration repeated `rhs` times.
impl Mul<u64> for SimTime {
    type Output = SimTime;
    #[inline(always)]
    fn mul(self, rhs: u64) -> SimTime {
        SimTime(self.0 * rhs)
    }
}

/// `lhs` times a duration (`10 * NS_PER_MS`).
impl Mul<SimTime> for u64 {
    type Output = SimTime;
    #[inline(always)]
    fn mul(self, rhs: SimTime) -> SimTime {
        SimTime(self * rhs.0)
    }
}

/// How many whole `rhs` fit in `self` (a count, so a plain number).
impl Div for SimTime {
    type Output = u64;
    #[inline(always)]
    fn div(self, rhs: SimTime) -> u64 {
        self.0 / rhs.0
    }
}

pub const NS_PER_US: SimTime = SimTime(1_000);
pub const NS_PER_MS: SimTime = SimTime(1_000_000);
pub const NS_PER_S: SimTime = SimTime(1_000_000_000);

/// Converts a configured duration in microseconds (a float in profiles, for readability) into
/// integer nanoseconds, rounding to the nearest ns. Done once at load, never on the hot path.
pub fn us_to_ns(us: f64) -> SimTime {
    SimTime(crate::cast::sat_u64((us * 1_000.0).round()))
}

/// Nanoseconds to move `bytes` over a link of `bytes_per_s`, rounded up so that a transfer never
/// takes zero time.
pub fn transfer_ns(bytes: u64, bytes_per_s: u64) -> SimTime {
    if bytes_per_s == 0 {
        return SimTime::ZERO;
    }
    // 64-bit arithmetic when the product fits (any size an I/O has): a 128-bit division is a
    // library call, and this runs for every NAND and PCIe transfer.
    SimTime(match bytes.checked_mul(NS_PER_S.0) {
        Some(num) => num.div_ceil(bytes_per_s),
        // Saturates: a transfer longer than u64 ns never ends within a simulation.
        None => u64::try_from((bytes as u128 * NS_PER_S.0 as u128).div_ceil(bytes_per_s as u128)).unwrap_or(u64::MAX),
    })
}

/// [`transfer_ns`] over one link, remembering the last size: a run moves one or two sizes, so
/// the division is skipped on the per-operation path.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug)]
pub struct TransferTimer {
    bytes_per_s: u64,
    last: (u32, SimTime),
}

impl TransferTimer {
    pub fn new(bytes_per_s: u64) -> TransferTimer {
        TransferTimer { bytes_per_s, last: (0, transfer_ns(0, bytes_per_s)) }
    }

    #[inline]
    pub fn ns(&mut self, bytes: u32) -> SimTime {
        if self.last.0 != bytes {
            self.last = (bytes, transfer_ns(bytes as u64, self.bytes_per_s));
        }
        self.last.1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_as_the_bare_number() {
        let t = SimTime::from_ns(1_234);
        assert_eq!(format!("{t} {t:?} {t:>6} {:?}", (t, Some(t))), "1234 1234   1234 (1234, Some(1234))");
    }
}
