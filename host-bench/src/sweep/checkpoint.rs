//! Checkpoints of a running sweep in its output directory, so a stopped sweep (Ctrl-C, Slurm's
//! SIGTERM at the time limit, a killed node) loses no finished point and `--resume` runs only
//! the rest.
//!
//! Layout: `DIR/checkpoint/sweep.json` says what runs (spec, shard, the job file's text, so a
//! later edit of the file cannot mix two sweeps) and `DIR/checkpoint/point-NNNNNN.json` holds
//! each finished point's row, written to a temporary name and renamed, so a file is whole or
//! absent. Rows are rounded to 6 decimals when made, so they read back unchanged and a resumed
//! sweep's table is byte for byte the uninterrupted one's.

use super::{write_whole, Row, Shard, SweepError, SweepSpec};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Subdirectory of the sweep's output directory.
pub const DIR_NAME: &str = "checkpoint";
const PLAN_JSON: &str = "sweep.json";

/// What a sweep runs, enough to resume it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub version: String,
    pub spec: SweepSpec,
    pub shard: Shard,
    /// The job file's text when the sweep started.
    pub job_text: String,
    pub ignore_unsupported: bool,
}

fn io(p: &Path, e: impl std::fmt::Display) -> SweepError {
    SweepError::Io { path: p.display().to_string(), message: e.to_string() }
}

fn cp_dir(out: &Path) -> PathBuf {
    out.join(DIR_NAME)
}

/// Starts a fresh checkpoint in `out` (an older one there is replaced).
pub fn start(out: &Path, plan: &Plan) -> Result<(), SweepError> {
    let dir = cp_dir(out);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| io(&dir, e))?;
    }
    std::fs::create_dir_all(&dir).map_err(|e| io(&dir, e))?;
    let text = serde_json::to_string_pretty(plan).map_err(|e| io(&dir, e))?;
    write_whole(&dir.join(PLAN_JSON), &format!("{text}\n"))
}

/// Records a finished point.
pub fn save_row(out: &Path, row: &Row) -> Result<(), SweepError> {
    let p = cp_dir(out).join(format!("point-{:06}.json", row.index));
    let text = serde_json::to_string(row).map_err(|e| io(&p, e))?;
    write_whole(&p, &format!("{text}\n"))
}

/// The plan and the finished rows of the checkpoint in `out`.
pub fn load(out: &Path) -> Result<(Plan, Vec<Row>), SweepError> {
    let dir = cp_dir(out);
    let plan_path = dir.join(PLAN_JSON);
    let text = std::fs::read_to_string(&plan_path)
        .map_err(|e| io(&plan_path, format!("{e} (no sweep checkpoint here to resume)")))?;
    let plan: Plan = serde_json::from_str(&text).map_err(|e| io(&plan_path, e))?;
    if plan.version != env!("CARGO_PKG_VERSION") {
        return Err(io(
            &plan_path,
            format!(
                "started by ssdlab {}, this is {}; resume with the same version",
                plan.version,
                env!("CARGO_PKG_VERSION")
            ),
        ));
    }
    let total = plan.spec.grid().len();
    let mut rows = Vec::new();
    for entry in std::fs::read_dir(&dir).map_err(|e| io(&dir, e))? {
        let p = entry.map_err(|e| io(&dir, e))?.path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !(name.starts_with("point-") && name.ends_with(".json")) {
            continue;
        }
        let text = std::fs::read_to_string(&p).map_err(|e| io(&p, e))?;
        let row: Row = serde_json::from_str(&text).map_err(|e| io(&p, e))?;
        if row.index >= total || !plan.shard.contains(row.index) {
            return Err(io(&p, format!("point {} is not in this sweep's grid or shard", row.index)));
        }
        rows.push(row);
    }
    rows.sort_by_key(|r| r.index);
    Ok((plan, rows))
}

/// Removes the checkpoint once the whole table is written.
pub fn clear(out: &Path) -> Result<(), SweepError> {
    let dir = cp_dir(out);
    match std::fs::remove_dir_all(&dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io(&dir, e)),
        _ => Ok(()),
    }
}
