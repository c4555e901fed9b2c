//! Where a drive's job numbering stands across runs (a drive continued from a snapshot).

use super::split_groups;
use crate::job::JobFile;

/// How many job sections and groups a drive has run, counted over the runs it continued.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RunPosition {
    pub jobs: u32,
    pub groups: u32,
}

impl RunPosition {
    /// The position after `file` ran whole from this one.
    #[allow(clippy::cast_possible_truncation)] // a job file's jobs and groups number far below 2^32
    pub fn after(self, file: &JobFile) -> RunPosition {
        RunPosition {
            jobs: self.jobs + file.jobs.len() as u32,
            groups: self.groups + split_groups(&file.jobs).len() as u32,
        }
    }
}
