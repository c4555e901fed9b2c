//! The size of an I/O, as fio's `get_next_buflen` draws it.

use rand_chacha::ChaCha8Rng;

use super::below;

/// A size from a direction's table (cumulative percentages) or its `bsrange` (`range`).
#[inline]
#[allow(clippy::cast_possible_truncation)] // below(n) < n, a u32
pub(super) fn next_len(rng: &mut ChaCha8Rng, table: &[(u32, u32)], range: Option<(u32, u32)>) -> u32 {
    if let Some((lo, hi)) = range {
        // fio's get_next_buflen: min + max x U, aligned down to a multiple of min, at most max.
        let t = below(rng, u64::from(hi)) as u32;
        return hi.min(lo + t / lo * lo);
    }
    if table.len() == 1 {
        return table[0].0;
    }
    let pick = below(rng, 100) as u32;
    table.iter().find(|e| pick < e.1).or(table.last()).map_or(4096, |e| e.0)
}
