//! The VDBench-style application profiles (Oracle, SQL, VDI, VSI) as the calibration maps them:
//! the profile table and the remainder assumption are the suite's
//! (`host_bench::suites::vdbench`), so `ssdlab profile` and `ssdlab validate` run the same mix.

use host_bench::job::BsSplitEntry;
use host_bench::suites::vdbench::{normalized_split, PROFILES};
pub use host_bench::suites::vdbench::{AppProfile, REMAINDER_ASSUMPTION};

/// The profile a measured row's workload names ("Oracle profile" -> oracle).
pub fn find(workload: &str) -> Option<&'static AppProfile> {
    let w = workload.to_ascii_lowercase();
    PROFILES.iter().find(|p| w.split_whitespace().next() == Some(p.name))
}

/// One split rescaled to integer percentages summing to 100 (`4k/28:8k/48:16k/24`).
pub fn rescaled(split: &[(u32, f64)]) -> String {
    normalized_split(split).iter().map(|(k, p)| format!("{k}k/{p}")).collect::<Vec<_>>().join(":")
}

/// fio `bssplit=READ,WRITE`.
pub fn bssplit(p: &AppProfile) -> String {
    format!("{},{}", rescaled(p.read_split), rescaled(p.write_split))
}

/// The profile's `bssplit` as the job parser resolves [`bssplit`]: read, write, and trim (fio
/// repeats the last list given).
pub fn split_entries(p: &AppProfile) -> [Vec<BsSplitEntry>; 3] {
    let entries = |s: &[(u32, f64)]| -> Vec<BsSplitEntry> {
        normalized_split(s).into_iter().map(|(kib, percent)| BsSplitEntry { bytes: kib * 1024, percent }).collect()
    };
    let write = entries(p.write_split);
    [entries(p.read_split), write.clone(), write]
}

/// Mean transfer size in bytes of the rescaled mix (for sizing runs).
pub fn mean_bytes(p: &AppProfile) -> f64 {
    let mean = |s: &[(u32, f64)]| {
        let t: f64 = s.iter().map(|e| e.1).sum();
        s.iter().map(|e| e.0 as f64 * 1024.0 * e.1 / t).sum::<f64>()
    };
    let r = p.read_pct / 100.0;
    r * mean(p.read_split) + (1.0 - r) * mean(p.write_split)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_rescale_to_100() {
        assert_eq!(rescaled(&[(4, 22.1), (8, 37.3), (16, 19.12)]), "4k/28:8k/48:16k/24");
        for p in &PROFILES {
            for half in bssplit(p).split(',') {
                let s: u32 = half.split(':').filter_map(|e| e.split('/').nth(1)?.parse::<u32>().ok()).sum();
                assert_eq!(s, 100, "{}", p.name);
            }
        }
        assert_eq!(find("VDI profile").map(|p| p.name), Some("vdi"));
    }
}
