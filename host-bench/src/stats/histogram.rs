//! Log-linear latency histogram in the style of fio's clat histogram.
//!
//! Values below 2^B (B = [`SUB_BUCKET_BITS`] = 6) have one bucket each; above, every power of
//! two is split into 2^B = 64 equal buckets. A bucket's width is at most 1/64 of its lower
//! bound, and values are reported as the bucket midpoint, so any reported percentile is within
//! 1/128 (0.78 %) of a value actually recorded in that bucket (exact below 64 ns). Buckets
//! cover the whole u64 range: 59 groups x 64 = 3776 counters (30 KiB).

/// Bits of mantissa kept per power of two.
pub const SUB_BUCKET_BITS: u32 = 6;
const SUB: u64 = 1 << SUB_BUCKET_BITS;
const GROUPS: usize = (64 - SUB_BUCKET_BITS as usize) + 1;
const BUCKETS: usize = GROUPS * nand_model::cast::usize_from(SUB);

/// Latency histogram with exact count, min, max, mean and standard deviation.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
pub struct Histogram {
    buckets: Vec<u64>,
    count: u64,
    min: u64,
    max: u64,
    /// Exact sums so mean and stddev do not depend on record order.
    sum: u128,
    sum_sq: u128,
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

impl Histogram {
    pub fn new() -> Self {
        Histogram { buckets: vec![0; BUCKETS], count: 0, min: u64::MAX, max: 0, sum: 0, sum_sq: 0 }
    }

    /// Bucket index of a value.
    #[inline]
    fn index(v: u64) -> usize {
        if v < SUB {
            return nand_model::cast::usize_from(v);
        }
        let msb = 63 - v.leading_zeros();
        let shift = msb - SUB_BUCKET_BITS;
        let sub = (v >> shift) & (SUB - 1);
        ((shift as usize + 1) << SUB_BUCKET_BITS) + sub as usize
    }

    /// Lowest value and width of bucket `i`.
    #[inline]
    #[allow(clippy::cast_possible_truncation)] // group <= 59
    fn bounds(i: usize) -> (u64, u64) {
        let group = i >> SUB_BUCKET_BITS;
        let sub = (i as u64) & (SUB - 1);
        if group == 0 {
            (sub, 1)
        } else {
            let shift = group as u32 - 1;
            ((SUB + sub) << shift, 1 << shift)
        }
    }

    /// Value reported for bucket `i`: its midpoint.
    #[inline]
    fn value(i: usize) -> u64 {
        let (lo, width) = Self::bounds(i);
        lo + (width - 1) / 2
    }

    /// Records one latency. Constant time.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        if let Some(b) = self.buckets.get_mut(Self::index(ns)) {
            *b += 1;
        }
        self.count += 1;
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
        self.sum += u128::from(ns);
        self.sum_sq += u128::from(ns) * u128::from(ns);
    }

    /// Records one latency in the buckets, count, min and max only, not the sums: for a
    /// histogram read only through [`Histogram::percentile`] (the time series' per-interval
    /// p99), whose sums would be dead work on every I/O. Its mean and stddev are then wrong.
    #[inline]
    pub fn record_for_percentiles(&mut self, ns: u64) {
        if let Some(b) = self.buckets.get_mut(Self::index(ns)) {
            *b += 1;
        }
        self.count += 1;
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// Smallest value, 0 when empty.
    pub fn min(&self) -> u64 {
        if self.count == 0 {
            0
        } else {
            self.min
        }
    }

    pub fn max(&self) -> u64 {
        self.max
    }

    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        self.sum as f64 / self.count as f64
    }

    /// Sample standard deviation (divides by n - 1, as fio does); 0 below two values.
    pub fn stddev(&self) -> f64 {
        if self.count < 2 {
            return 0.0;
        }
        let n = self.count as f64;
        let mean = self.sum as f64 / n;
        let var = (self.sum_sq as f64 - mean * self.sum as f64) / (n - 1.0);
        var.max(0.0).sqrt()
    }

    /// Value at percentile `p` (0..=100): the smallest bucket holding at least ceil(p% of N)
    /// values, reported as its midpoint clamped to [min, max]. 0 when empty.
    pub fn percentile(&self, p: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank =
            nand_model::cast::sat_u64((p.clamp(0.0, 100.0) / 100.0 * self.count as f64).ceil()).clamp(1, self.count);
        let mut seen = 0u64;
        for (i, &c) in self.buckets.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Self::value(i).clamp(self.min, self.max);
            }
        }
        self.max
    }

    /// Share of values at or below `ns` in percent (bucket resolution).
    pub fn percent_at_or_below(&self, ns: u64) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let last = Self::index(ns);
        let below: u64 = self.buckets.iter().take(last + 1).sum();
        below as f64 * 100.0 / self.count as f64
    }

    /// Non-empty buckets as (value in ns, count), ascending: fio json+ `bins`.
    pub fn bins(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.buckets.iter().enumerate().filter(|(_, &c)| c > 0).map(|(i, &c)| (Self::value(i), c))
    }

    /// Adds another histogram's values.
    pub fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.buckets.iter_mut().zip(&other.buckets) {
            *a += b;
        }
        self.count += other.count;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.sum += other.sum;
        self.sum_sq += other.sum_sq;
    }

    /// Empties the histogram, keeping its allocation.
    pub fn clear(&mut self) {
        if self.count > 0 {
            self.buckets.fill(0);
        }
        self.count = 0;
        self.min = u64::MAX;
        self.max = 0;
        self.sum = 0;
        self.sum_sq = 0;
    }
}
