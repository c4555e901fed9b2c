//! Division by a divisor fixed at run time (units per block, blocks per die) as one 64x64-bit
//! multiply: a hardware divide costs 20-40 cycles and sits on the critical path of every host
//! write (`ppn -> block`). For 32-bit dividends, n / d = (ceil(2^64 / d) * n) >> 64 exactly
//! (Lemire, Kaser & Kurz 2019, "Faster remainder by direct computation").

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct FastDiv {
    d: u32,
    /// ceil(2^64 / d); 0 stands for d = 1 (2^64 does not fit).
    c: u64,
}

impl FastDiv {
    /// `d` must be at least 1.
    pub fn new(d: u32) -> FastDiv {
        let d = d.max(1);
        FastDiv { d, c: if d == 1 { 0 } else { u64::MAX / d as u64 + 1 } }
    }

    #[inline(always)]
    #[allow(clippy::cast_possible_truncation)] // the quotient is at most `n`
    pub fn quotient(self, n: u32) -> u32 {
        if self.c == 0 {
            return n;
        }
        ((self.c as u128 * n as u128) >> 64) as u32
    }

    #[inline(always)]
    pub fn remainder(self, n: u32) -> u32 {
        n - self.quotient(n) * self.d
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn edges() {
        for d in [1u32, 2, 3, 7, 48, 1000, 24_576, 65_535, u32::MAX - 1, u32::MAX] {
            let f = FastDiv::new(d);
            for n in [0u32, 1, d - 1, d, d.wrapping_add(1), u32::MAX - 1, u32::MAX] {
                assert_eq!(f.quotient(n), n / d, "{n} / {d}");
                assert_eq!(f.remainder(n), n % d, "{n} % {d}");
            }
        }
    }

    proptest! {
        #[test]
        fn matches_hardware_division(n in any::<u32>(), d in 1u32..) {
            let f = FastDiv::new(d);
            prop_assert_eq!(f.quotient(n), n / d);
            prop_assert_eq!(f.remainder(n), n % d);
        }
    }
}
