//! The VDBench-style application profiles of `shared/calibration/profiles.csv` (Oracle, SQL,
//! VDI, VSI) as fio `bssplit` strings.
//!
//! The source's block-size splits do not sum to 100%. Assumption (stated in every row that uses
//! them): the unspecified remainder is distributed like the listed sizes, i.e. each split is
//! rescaled to 100% and rounded to whole percent (fio's bssplit takes integers), the rounding
//! residue going to the largest entry.

/// One application profile: read %, read and write block-size splits (size in KiB, share %),
/// random share %.
pub struct AppProfile {
    pub name: &'static str,
    pub read_pct: f64,
    pub read_split: &'static [(u32, f64)],
    pub write_split: &'static [(u32, f64)],
    pub random_pct: u32,
}

/// profiles.csv, transcribed.
pub const APP_PROFILES: [AppProfile; 4] = [
    AppProfile {
        name: "oracle",
        read_pct: 83.14,
        read_split: &[(4, 22.1), (8, 37.3), (16, 19.12)],
        write_split: &[(4, 22.1), (8, 37.3), (16, 19.12)],
        random_pct: 80,
    },
    AppProfile {
        name: "sql",
        read_pct: 68.42,
        read_split: &[(8, 53.57), (64, 28.75)],
        write_split: &[(4, 27.85), (8, 35.24), (64, 26.35)],
        random_pct: 80,
    },
    AppProfile {
        name: "vdi",
        read_pct: 59.48,
        read_split: &[(4, 39.35), (16, 16.47), (32, 10.37), (64, 12.86)],
        write_split: &[(4, 61.11), (8, 13.05)],
        random_pct: 80,
    },
    AppProfile {
        name: "vsi",
        read_pct: 57.4,
        read_split: &[(4, 25.68), (8, 26.31), (60, 10.52)],
        write_split: &[(4, 59.62), (8, 14.81)],
        random_pct: 80,
    },
];

/// The profile a measured row's workload names ("Oracle profile" -> oracle).
pub fn find(workload: &str) -> Option<&'static AppProfile> {
    let w = workload.to_ascii_lowercase();
    APP_PROFILES.iter().find(|p| w.split_whitespace().next() == Some(p.name))
}

/// One split rescaled to integer percentages summing to 100 (`4k/28:8k/47:16k/25`).
pub fn rescaled(split: &[(u32, f64)]) -> String {
    let total: f64 = split.iter().map(|e| e.1).sum();
    let mut pct: Vec<u32> = split.iter().map(|e| (e.1 / total * 100.0).round() as u32).collect();
    let sum: u32 = pct.iter().sum();
    if let Some(i) = (0..split.len()).max_by(|&a, &b| split[a].1.total_cmp(&split[b].1)) {
        pct[i] = (pct[i] + 100).saturating_sub(sum);
    }
    split.iter().zip(pct).map(|(e, p)| format!("{}k/{p}", e.0)).collect::<Vec<_>>().join(":")
}

impl AppProfile {
    /// fio `bssplit=READ,WRITE`.
    pub fn bssplit(&self) -> String {
        format!("{},{}", rescaled(self.read_split), rescaled(self.write_split))
    }

    /// Mean transfer size in bytes of the rescaled mix (for sizing runs).
    pub fn mean_bytes(&self) -> f64 {
        let mean = |s: &[(u32, f64)]| {
            let t: f64 = s.iter().map(|e| e.1).sum();
            s.iter().map(|e| e.0 as f64 * 1024.0 * e.1 / t).sum::<f64>()
        };
        let r = self.read_pct / 100.0;
        r * mean(self.read_split) + (1.0 - r) * mean(self.write_split)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_rescale_to_100() {
        assert_eq!(rescaled(&[(4, 22.1), (8, 37.3), (16, 19.12)]), "4k/28:8k/48:16k/24");
        for p in &APP_PROFILES {
            for half in p.bssplit().split(',') {
                let s: u32 = half.split(':').map(|e| e.split('/').nth(1).unwrap().parse::<u32>().unwrap()).sum();
                assert_eq!(s, 100, "{}", p.name);
            }
        }
        assert_eq!(find("VDI profile").map(|p| p.name), Some("vdi"));
    }
}
