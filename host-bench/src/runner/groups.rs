//! How a job file's jobs form groups: run groups (`stonewall`) and fio's reporting groups.

use crate::job::JobSpec;

/// The reporting group of each job (fio's `groupid`): a job with `stonewall` or `new_group`
/// after at least one job starts the next (its `numjobs` clones stay in it, as in fio).
pub(crate) fn reporting_groups(jobs: &[JobSpec]) -> Vec<usize> {
    let mut id = 0;
    jobs.iter()
        .enumerate()
        .map(|(i, job)| {
            if i > 0 && (job.stonewall || job.new_group) {
                id += 1;
            }
            id
        })
        .collect()
}

/// Job indices per group: a job with `stonewall` starts a new group.
pub(super) fn split_groups(jobs: &[JobSpec]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        match groups.last_mut() {
            Some(g) if !job.stonewall => g.push(i),
            _ => groups.push(vec![i]),
        }
    }
    groups
}
