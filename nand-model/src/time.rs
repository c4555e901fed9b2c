//! Simulated time. Always integer nanoseconds since the start of a simulation; never the wall
//! clock, so that the same inputs give bit-identical results on any machine.

/// Simulated time or duration in nanoseconds.
pub type SimTime = u64;

pub const NS_PER_US: SimTime = 1_000;
pub const NS_PER_MS: SimTime = 1_000_000;
pub const NS_PER_S: SimTime = 1_000_000_000;

/// Converts a configured duration in microseconds (a float in profiles, for readability) into
/// integer nanoseconds, rounding to the nearest ns. Done once at load, never on the hot path.
pub fn us_to_ns(us: f64) -> SimTime {
    crate::cast::sat_u64((us * 1_000.0).round())
}

/// Nanoseconds to move `bytes` over a link of `bytes_per_s`, rounded up so that a transfer never
/// takes zero time.
pub fn transfer_ns(bytes: u64, bytes_per_s: u64) -> SimTime {
    if bytes_per_s == 0 {
        return 0;
    }
    // 64-bit arithmetic when the product fits (any size an I/O has): a 128-bit division is a
    // library call, and this runs for every NAND and PCIe transfer.
    match bytes.checked_mul(NS_PER_S) {
        Some(num) => num.div_ceil(bytes_per_s),
        // Saturates: a transfer longer than u64 ns never ends within a simulation.
        None => {
            SimTime::try_from((bytes as u128 * NS_PER_S as u128).div_ceil(bytes_per_s as u128)).unwrap_or(SimTime::MAX)
        }
    }
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
