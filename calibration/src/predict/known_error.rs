//! The model's known error on ratios between configurations, from `ssdlab validate --measured
//! ../shared/calibration/measured.csv --baseline ../shared/calibration/measured.csv`: the
//! largest |anchored error| of a drive's IOPS rows of the same workload class anchored on the
//! other configuration. Only the P5520 has such pairs (7.68 vs 6.4 TB) in the shared data; any
//! other drive or class takes the largest error seen, stated as such.

use crate::plan::Plan;
use host_bench::job::RwMode;
use serde::{Deserialize, Serialize};

/// A relative error and where it comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelError {
    /// Relative, e.g. 0.05 = +-5%.
    pub rel_error: f64,
    pub source: String,
}

/// What a workload does to the drive, as far as the ratio error goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Read,
    Mixed,
    Write,
}

impl Class {
    pub fn of(p: &Plan) -> Class {
        match (p.workload.rw, p.workload.rwmixread) {
            (RwMode::Read | RwMode::RandRead, _) | (_, Some(100)) => Class::Read,
            (RwMode::Write | RwMode::RandWrite, _) | (_, Some(0)) => Class::Write,
            _ => Class::Mixed,
        }
    }
}

/// (drive, class, largest |anchored error|, the rows): measured at seed 1, default scale.
const KNOWN: [(&str, Class, f64, &str); 3] = [
    ("solidigm-d7-p5520", Class::Read, 0.002, "p5520-rr-ezfio(-op): +0.2%, -0.2%"),
    ("solidigm-d7-p5520", Class::Mixed, 0.022, "p5520-mix-ezfio(-op): +2.2%, -2.1%"),
    ("solidigm-d7-p5520", Class::Write, 0.047, "p5520-rw-ezfio(-op): -4.5%, +4.7%"),
];

/// The largest of them: assumed where the shared data has no pair.
const LARGEST: f64 = 0.047;

/// The known ratio error for `plan`'s drive and workload class.
pub fn for_plan(plan: &Plan) -> ModelError {
    let class = Class::of(plan);
    match KNOWN.iter().find(|k| k.0 == plan.drive && k.1 == class) {
        Some(k) => ModelError {
            rel_error: k.2,
            source: format!(
                "largest |anchored error| of {}'s {:?} rows anchored on another capacity in `ssdlab validate \
                 --baseline` on the shared data ({})",
                k.0, class, k.3
            ),
        },
        None => ModelError {
            rel_error: LARGEST,
            source: format!(
                "{} has no measured pair of configurations for {class:?} workloads in the shared data: the largest \
                 |anchored error| seen (P5520 random write, 6.4 vs 7.68 TB) is assumed",
                plan.drive
            ),
        },
    }
}
