//! Latency buckets of the recording: 4 per power of two of ns, so an interval's p99 is the
//! upper edge of the bucket it falls in.

/// Latency buckets: 4 per power of two of ns.
pub(crate) const LAT_BUCKETS: usize = 256;

pub(crate) fn lat_bucket(ns: u64) -> usize {
    if ns < 4 {
        return nand_model::cast::usize_from(ns);
    }
    let lg = 63 - ns.leading_zeros() as usize;
    (lg * 4 + ((ns >> (lg - 2)) & 3) as usize).min(LAT_BUCKETS - 1)
}

/// Upper edge of a latency bucket, ns.
pub(crate) fn lat_upper(b: usize) -> u64 {
    if b < 8 {
        return (b as u64).min(4); // 0..=3 exact; 4..8 unused
    }
    let (lg, sub) = (b / 4, b % 4);
    ((4 + sub as u64 + 1) << (lg - 2)).saturating_sub(1)
}

/// The upper edge (ns) of the latency bucket `ns` falls in: what a percentile of the page
/// reports for a latency of `ns`.
pub fn latency_bucket_upper_ns(ns: u64) -> u64 {
    lat_upper(lat_bucket(ns))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_buckets_bound_their_values() {
        for ns in [0u64, 1, 3, 4, 5, 7, 8, 100, 1000, 12_345, 1 << 40] {
            let b = lat_bucket(ns);
            assert!(lat_upper(b) >= ns, "{ns}: bucket {b} upper {}", lat_upper(b));
            if b > 8 {
                assert!(lat_upper(b - 1) < ns, "{ns}: bucket {b} too coarse");
            }
        }
    }
}
