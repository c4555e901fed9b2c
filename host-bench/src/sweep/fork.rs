//! Precondition once, measure many: sweep points that differ only in power setting share one
//! preconditioned drive.
//!
//! The job file splits into a **preconditioning prefix** — the leading job groups that do a
//! fixed amount of work (no `time_based`, no `runtime`), short of the group holding the reported
//! last job — and the **measured suffix**. Points with the same user capacity and seed index
//! form a fork group: the prefix runs once per group, on the drive at its default power setting
//! (uncapped), with the seed of the group's first point; each point then continues from a copy
//! of that drive at its own power state or cap, after the drive has finished what it had in
//! flight, and runs the suffix with its own seed, numbering its jobs on from the prefix. Why
//! uncapped: preconditioning defines the drive's state by what is written (SNIA PTS: so many
//! drive writes of this pattern), and a power cap only slows the same writes down; a reviewer
//! preconditions once and sets the power state before measuring. Sharing the prefix within a
//! group also pairs the power states on one drive state, so their differences carry less noise.
//! docs/sweeps.md measures the effect against point-by-point preconditioning.
//!
//! With a `cache` directory (Slurm shards share `OUT/drives`), a group's drive is also written
//! there as a snapshot and any shard that needs it loads it instead of preconditioning again.

use super::{row_of, Point, Row, SweepError, SweepSpec};
use crate::job::{JobFile, JobSpec};
use crate::simrun::{SimError, SimSession};
use crate::snapshot::Frozen;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// Splits `job` into (prefix, suffix) when it has a preconditioning prefix (see above).
pub fn split(job: &JobFile) -> Option<(JobFile, JobFile)> {
    let n = job.jobs.len();
    let fixed_work = |j: &JobSpec| !j.time_based && j.runtime_ns.is_none();
    // Start of the group holding the last job.
    let last_group = (0..n).rev().find(|&i| i == 0 || job.jobs[i].stonewall)?;
    let mut cut = 0;
    for i in 0..last_group {
        if !fixed_work(&job.jobs[i]) {
            break;
        }
        if job.jobs[i + 1].stonewall {
            cut = i + 1;
        }
    }
    if cut == 0 {
        return None;
    }
    let part = |jobs: &[JobSpec]| JobFile { jobs: jobs.to_vec(), ..job.clone() };
    Some((part(&job.jobs[..cut]), part(&job.jobs[cut..])))
}

/// Fork groups of `points`: same capacity and seed index, in order of their first point.
pub fn groups<'a>(points: &[&'a Point]) -> Vec<Vec<&'a Point>> {
    let mut out: Vec<Vec<&Point>> = Vec::new();
    for &p in points {
        match out
            .iter_mut()
            .find(|g| g[0].user_capacity_bytes == p.user_capacity_bytes && g[0].seed_index == p.seed_index)
        {
            Some(g) => g.push(p),
            None => out.push(vec![p]),
        }
    }
    out
}

/// The point whose seed preconditions `p`'s group: the grid's first point of the same capacity
/// and seed index (the same whichever shard asks).
pub fn group_leader(spec: &SweepSpec, p: &Point) -> Point {
    let grid = spec.grid();
    grid.into_iter()
        .find(|q| q.user_capacity_bytes == p.user_capacity_bytes && q.seed_index == p.seed_index)
        .unwrap_or_else(|| p.clone())
}

/// Where a group's drive is cached in `dir`.
pub fn cache_path(dir: &Path, leader: &Point) -> PathBuf {
    dir.join(format!("precondition-{}.snap", leader.index))
}

/// Runs the prefix for the group of `leader` (uncapped, the leader's seed) and freezes the
/// drive; `None` when `stop` ended it.
pub fn precondition(
    spec: &SweepSpec,
    prefix: &JobFile,
    leader: &Point,
    stop: Option<&AtomicBool>,
) -> Result<Option<Frozen>, SweepError> {
    let mut cfg = spec.config(leader);
    cfg.power_state = None;
    cfg.power_cap_w = None;
    let mut s = SimSession::new(cfg)?;
    let r = s.run(prefix, stop, None).map_err(|e| SweepError::Run { index: leader.index, message: e.to_string() })?;
    if r.interrupted {
        return Ok(None);
    }
    s.position = s.position.after(prefix);
    Ok(Some(s.freeze(format!("ssdlab sweep {} (preconditioning of point {})", spec.job_file, leader.index), None)))
}

/// The group's drive from `cache` if there, else preconditioned (and written there).
pub fn precondition_cached(
    spec: &SweepSpec,
    prefix: &JobFile,
    leader: &Point,
    cache: Option<&Path>,
    stop: Option<&AtomicBool>,
) -> Result<Option<Frozen>, SweepError> {
    let path = cache.map(|d| cache_path(d, leader));
    if let Some(p) = path.as_ref().filter(|p| p.exists()) {
        return Ok(Some(Frozen::read(p).map_err(SimError::from)?));
    }
    let f = precondition(spec, prefix, leader, stop)?;
    if let (Some(f), Some(p)) = (&f, &path) {
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d)
                .map_err(|e| SweepError::Io { path: d.display().to_string(), message: e.to_string() })?;
        }
        f.write(p).map_err(SimError::from)?;
    }
    Ok(f)
}

/// Runs point `p` on a copy of its group's drive; `None` when `stop` ended it.
pub fn run_forked(
    spec: &SweepSpec,
    suffix: &JobFile,
    frozen: &Frozen,
    p: &Point,
    stop: Option<&AtomicBool>,
) -> Result<Option<Row>, SweepError> {
    let mut s = SimSession::thaw(spec.config(p), frozen, &frozen.meta.made_by)?;
    let r = s.run(suffix, stop, None).map_err(|e| SweepError::Run { index: p.index, message: e.to_string() })?;
    if r.interrupted {
        return Ok(None);
    }
    row_of(&s, &r, p).map(Some)
}
