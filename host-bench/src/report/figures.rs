//! The headline figures of a reported job, typed: what the JSON report writes under fio's names
//! (`iops`, `bw_bytes`, `total_ios`, `clat_ns`, ...) and what consumers compare. A simulated
//! run's figures are taken in memory ([`job_figures`]); a fio JSON file read from disk
//! deserialises into [`FioJobJson`] and converts to the same [`JobFigures`].

use super::summary::{dir_summary, DirSummary};
use crate::job::UnifiedRw;
use crate::runner::{JobResult, RunResult};
use indexmap::IndexMap;
use serde::Deserialize;
use std::collections::BTreeMap;

/// One direction's figures as the JSON report writes them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DirFigures {
    /// Whole bytes per second (fio's `bw_bytes`).
    pub bw_bytes: f64,
    pub iops: f64,
    pub total_ios: f64,
    /// `clat_ns.mean`.
    pub clat_mean_ns: f64,
    /// `clat_ns.percentile`: ns by the percentile as fio keys it (`{q:.6}`), empty when the
    /// direction did no I/O.
    pub clat_percentiles_ns: BTreeMap<String, f64>,
    pub iops_mean: f64,
    pub iops_stddev: f64,
}

impl DirFigures {
    /// The completion-latency percentile `q` when the report lists it (fio keys percentiles as
    /// `{q:.6}`, so that is what matches).
    pub fn percentile_ns(&self, q: f64) -> Option<f64> {
        self.clat_percentiles_ns.get(&format!("{q:.6}")).copied()
    }
}

/// A job's figures: `read` and `write` are `None` where the report has no such object
/// (`unified_rw_reporting=mixed`, or a fio file without them).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobFigures {
    pub name: String,
    pub read: Option<DirFigures>,
    pub write: Option<DirFigures>,
}

/// The figures of direction `d` of `job` from its summary, as the JSON report writes them.
pub(crate) fn dir_figures_of(job: &JobResult, d: usize, sum: &DirSummary) -> DirFigures {
    let dir = &job.dirs[d];
    let h = &dir.clat;
    let clat_percentiles_ns = if h.count() > 0 {
        job.percentile_list.iter().map(|&p| (format!("{p:.6}"), h.percentile(p) as f64)).collect()
    } else {
        BTreeMap::new()
    };
    DirFigures {
        bw_bytes: nand_model::cast::sat_u64(sum.bw_bytes_per_s) as f64,
        iops: sum.iops,
        total_ios: dir.ios as f64,
        clat_mean_ns: h.mean(),
        clat_percentiles_ns,
        iops_mean: sum.iops_samples.mean,
        iops_stddev: sum.iops_samples.stddev,
    }
}

/// The figures of `job` of `run`, in memory (the same numbers the JSON report holds).
pub fn job_figures(job: &JobResult, run: &RunResult) -> JobFigures {
    let dir =
        |d: usize| (job.unified_rw != UnifiedRw::Mixed).then(|| dir_figures_of(job, d, &dir_summary(job, d, run)));
    JobFigures { name: job.name.clone(), read: dir(0), write: dir(1) }
}

/// A fio JSON report as read from a file (fio's or ssdlab's): only what consumers use. Every
/// field is optional, as fio versions differ in what they write.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct FioReportJson {
    #[serde(rename = "fio version")]
    pub fio_version: Option<String>,
    #[serde(rename = "global options")]
    pub global_options: IndexMap<String, String>,
    pub jobs: Option<Vec<FioJobJson>>,
    /// ssdlab's top-level object, when the file is an ssdlab result.
    pub ssdlab: Option<SsdlabTopJson>,
}

/// One job of a [`FioReportJson`].
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct FioJobJson {
    pub jobname: Option<String>,
    #[serde(rename = "job options")]
    pub job_options: Option<IndexMap<String, String>>,
    pub read: Option<FioDirJson>,
    pub write: Option<FioDirJson>,
    /// ssdlab's per-job drive statistics, when the file is an ssdlab result.
    pub ssdlab: Option<SsdlabJobJson>,
}

/// One direction of a [`FioJobJson`].
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct FioDirJson {
    pub bw_bytes: Option<f64>,
    pub iops: Option<f64>,
    pub total_ios: Option<f64>,
    pub clat_ns: FioLatJson,
    pub iops_mean: Option<f64>,
    pub iops_stddev: Option<f64>,
}

/// `clat_ns` of a [`FioDirJson`].
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct FioLatJson {
    pub mean: Option<f64>,
    pub percentile: BTreeMap<String, f64>,
}

/// The part of a result file's per-job `"ssdlab"` object (`crate::drive_stats::DriveStats`)
/// that calibration reads; optional so that older results still load.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct SsdlabJobJson {
    pub iops_cov_pct: Option<f64>,
    pub avg_power_w: Option<f64>,
}

/// The part of a result file's top-level `"ssdlab"` object (`crate::drive_stats::RunStats`)
/// that calibration reads; `config` is the writer's own struct, so a result whose configuration
/// does not read is refused rather than taken for a real fio run.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct SsdlabTopJson {
    pub user_capacity_bytes: Option<f64>,
    pub config: Option<crate::simrun::SimConfig>,
}

impl From<&FioDirJson> for DirFigures {
    /// Missing numbers read as 0, as fio leaves out what it did not measure.
    fn from(d: &FioDirJson) -> Self {
        DirFigures {
            bw_bytes: d.bw_bytes.unwrap_or(0.0),
            iops: d.iops.unwrap_or(0.0),
            total_ios: d.total_ios.unwrap_or(0.0),
            clat_mean_ns: d.clat_ns.mean.unwrap_or(0.0),
            clat_percentiles_ns: d.clat_ns.percentile.clone(),
            iops_mean: d.iops_mean.unwrap_or(f64::NAN),
            iops_stddev: d.iops_stddev.unwrap_or(f64::NAN),
        }
    }
}

impl From<&FioJobJson> for JobFigures {
    fn from(j: &FioJobJson) -> Self {
        JobFigures {
            name: j.jobname.clone().unwrap_or_default(),
            read: j.read.as_ref().map(DirFigures::from),
            write: j.write.as_ref().map(DirFigures::from),
        }
    }
}
