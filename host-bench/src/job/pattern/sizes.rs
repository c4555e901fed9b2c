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

/// fio's `get_next_buflen` for an I/O whose offset is already drawn, `room` bytes before the
/// end of its region: a size that fits, drawn again until one does (a table's size that does
/// not fit gives way to the next entry that does, as in fio's bssplit loop). `None` when even
/// the smallest size does not fit (fio then fails the I/O and the pass ends).
#[allow(clippy::cast_possible_truncation)] // below(n) < n, a u32
pub(super) fn fitting_len(
    rng: &mut ChaCha8Rng,
    table: &[(u32, u32)],
    range: Option<(u32, u32)>,
    room: u64,
) -> Option<u32> {
    if let Some((lo, hi)) = range {
        if u64::from(lo) > room {
            return None;
        }
        loop {
            let t = below(rng, u64::from(hi)) as u32;
            let len = hi.min(lo + t / lo * lo);
            if u64::from(len) <= room {
                return Some(len);
            }
        }
    }
    let smallest = table.iter().map(|e| e.0).min()?;
    if u64::from(smallest) > room {
        return None;
    }
    loop {
        let pick = below(rng, 100) as u32;
        if let Some(e) = table.iter().find(|e| pick < e.1 && u64::from(e.0) <= room) {
            return Some(e.0);
        }
    }
}

/// The smallest size of a table or range.
pub(super) fn smallest(table: &[(u32, u32)], range: Option<(u32, u32)>) -> u32 {
    range.map_or_else(|| table.iter().map(|e| e.0).min().unwrap_or(4096), |r| r.0)
}
