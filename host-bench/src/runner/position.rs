//! Where a drive's job numbering stands across runs (a drive continued from a snapshot).

use super::{reporting_groups, split_groups};
use crate::job::JobFile;

/// How many job sections, groups and reporting groups a drive has run, counted over the runs
/// it continued.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RunPosition {
    pub jobs: u32,
    pub groups: u32,
    /// Reporting groups (`new_group` adds them between stonewalls); absent from snapshots made
    /// before it was counted, where `groups` stands for it.
    #[serde(default)]
    pub reporting_groups: u32,
}

impl RunPosition {
    /// The position after `file` ran whole from this one.
    #[allow(clippy::cast_possible_truncation)] // a job file's jobs and groups number far below 2^32
    pub fn after(self, file: &JobFile) -> RunPosition {
        let reporting = reporting_groups(&file.jobs).last().map_or(0, |&g| g + 1) as u32;
        RunPosition {
            jobs: self.jobs + file.jobs.len() as u32,
            groups: self.groups + split_groups(&file.jobs).len() as u32,
            reporting_groups: self.first_groupid() as u32 + reporting,
        }
    }

    /// The `groupid` of the next run's first group.
    pub fn first_groupid(self) -> usize {
        self.reporting_groups.max(self.groups) as usize
    }
}
