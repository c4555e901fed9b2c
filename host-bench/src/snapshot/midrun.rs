//! A run saved in the middle (`ssdlab run JOB --save-at T --save-drive F`) and continued from
//! there (`ssdlab run JOB --resume-from F`). Beside the drive (with its commands and NAND
//! operations in flight) the file holds the runner's whole state ([`PausedRun`]) and the
//! target's counter samples, so the continued run's report is byte for byte the one the run
//! would have printed without stopping. It continues only the same job file, on the same
//! drive configuration, seed and power setting.

use super::{Frozen, Sampling, SnapshotError, SnapshotMeta};
use crate::job::JobFile;
use crate::runner::{run_or_pause, PausedRun, RunError, RunOutcome, RunProgress, RunResult};
use crate::sim::TargetState;
use crate::simrun::{SimConfig, SimError, SimSession};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::atomic::AtomicBool;

/// What the header says about a mid-run save.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MidRunMeta {
    /// The job file as given, and the hash of its parsed contents ([`super::job_hash`]).
    pub job_file: String,
    pub job_hash: String,
    /// The instant asked for and the one saved at (the first event at or after it), ns of
    /// simulated time since the run started.
    pub save_at_ns: u64,
    pub saved_at_ns: u64,
    /// The job group running then (1-based) and how many the file has.
    pub group: usize,
    pub groups: usize,
}

#[derive(Serialize)]
struct MidRunRef<'a> {
    target: TargetState,
    run: &'a PausedRun,
}

#[derive(Deserialize)]
struct MidRun {
    target: TargetState,
    run: PausedRun,
}

/// A mid-run save as written.
#[derive(Clone, Copy, Debug)]
pub struct SaveReport {
    pub file_bytes: u64,
    /// The state before compression.
    pub encoded_bytes: usize,
    /// Simulated ns since the run started.
    pub saved_at_ns: u64,
}

/// Why a run could not be saved mid-way or continued.
#[derive(Debug, thiserror::Error)]
pub enum MidRunError {
    #[error(transparent)]
    Sim(#[from] SimError),
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    #[error(transparent)]
    Run(#[from] RunError),
}

impl MidRunError {
    /// Bad input (another drive, job file, seed or power setting; a damaged file; a run that
    /// cannot be paused) rather than a run that failed.
    pub fn is_bad_input(&self) -> bool {
        match self {
            MidRunError::Sim(_) | MidRunError::Snapshot(SnapshotError::Refused { .. }) => true,
            MidRunError::Run(RunError::NotResumable(_)) => true,
            MidRunError::Snapshot(SnapshotError::Io { .. }) | MidRunError::Run(_) => false,
        }
    }
}

impl SimSession {
    /// Runs `job` from the drive's current state until the first event `pause_at_ns` of
    /// simulated time after its start (or to its end, if it ends first).
    pub fn run_until<'a>(
        &mut self,
        job: &JobFile,
        pause_at_ns: u64,
        stop: Option<&'a AtomicBool>,
        progress: Option<&'a mut dyn FnMut(RunProgress)>,
    ) -> Result<RunOutcome, RunError> {
        let mut opts = self.run_options(stop, progress);
        self.runs = self.runs.saturating_add(1);
        let at = self.target.ssd.now().ns().saturating_add(pause_at_ns);
        run_or_pause(job, &mut self.target, &mut opts, Some(at), None)
    }

    /// Continues a paused run of `job` on this session's drive to its end.
    pub fn continue_run<'a>(
        &mut self,
        job: &JobFile,
        paused: PausedRun,
        stop: Option<&'a AtomicBool>,
        progress: Option<&'a mut dyn FnMut(RunProgress)>,
    ) -> Result<RunResult, RunError> {
        let mut opts = self.run_options(stop, progress);
        match run_or_pause(job, &mut self.target, &mut opts, None, Some(paused))? {
            RunOutcome::Done(r) => Ok(r),
            RunOutcome::Paused(p) => Err(RunError::NotResumable(format!("paused at {} ns unasked", p.at_ns))),
        }
    }

    /// Writes the drive, the target's samples and `paused` (a run of `job` paused at the
    /// instant `save_at_ns` asked for) to `path`.
    pub fn save_mid_run(
        &self,
        job: &JobFile,
        save_at_ns: u64,
        paused: &PausedRun,
        made_by: String,
        path: &Path,
    ) -> Result<SaveReport, SnapshotError> {
        let saved_at_ns = paused.at_ns.saturating_sub(paused.start_ns);
        let mut meta = self.snapshot_meta(made_by, None);
        meta.mid_run = Some(MidRunMeta {
            job_file: job.file.clone(),
            job_hash: super::job_hash(job),
            save_at_ns,
            saved_at_ns,
            group: paused.group + 1,
            groups: crate::runner::group_count(job),
        });
        let mid = bincode::serialize(&MidRunRef { target: self.target.state(), run: paused }).map_err(|e| {
            SnapshotError::Io { path: path.display().to_string(), message: format!("the run's state: {e}") }
        })?;
        let (interval_ns, next_ns) = self.target.sampling();
        let frozen = Frozen::with_mid_run(meta, &self.target.ssd, Sampling { interval_ns, next_ns }, &mid);
        let file_bytes = frozen.write(path)?;
        Ok(SaveReport { file_bytes, encoded_bytes: frozen.encoded_bytes(), saved_at_ns })
    }

    /// A session on the drive of a mid-run save and the paused run, to continue with
    /// [`SimSession::continue_run`]. Refused unless `cfg` builds the same drive with the same
    /// seed and power setting and `job` is the job file that was running.
    pub fn resume_from(
        cfg: SimConfig,
        path: &Path,
        job: &JobFile,
    ) -> Result<(SimSession, PausedRun, SnapshotMeta), MidRunError> {
        let source = path.display().to_string();
        let refused = |message: String| SnapshotError::Refused { path: source.clone(), message };
        let frozen = Frozen::read(path)?;
        let meta = frozen.meta.clone();
        let Some(mid) = &meta.mid_run else {
            return Err(refused(
                "saved after a whole run, not in the middle of one: start a run on it with --from-drive".into(),
            )
            .into());
        };
        let (profile, opts) = Self::prepare_for(&cfg, None, &frozen, &source)?;
        let mut diffs = Vec::new();
        if meta.seed != cfg.seed {
            diffs.push(format!("seed (--seed): snapshot {}, this run {}", meta.seed, cfg.seed));
        }
        if meta.power_state != cfg.power_state || meta.power_cap_w != opts.power_cap_w {
            diffs.push(format!(
                "power setting (--power-state/--power-cap): snapshot {:?} / {:?} W, this run {:?} / {:?} W",
                meta.power_state, meta.power_cap_w, cfg.power_state, opts.power_cap_w
            ));
        }
        let hash = super::job_hash(job);
        if mid.job_hash != hash {
            diffs.push(format!(
                "job file: snapshot {} (contents {}), this run {} (contents {hash})",
                mid.job_file, mid.job_hash, job.file
            ));
        }
        if !diffs.is_empty() {
            return Err(
                refused(format!("a run saved mid-way continues only as it started: {}", diffs.join("; "))).into()
            );
        }
        let payload = frozen.decode(&source)?;
        let state: MidRun = bincode::deserialize(&payload.mid_run)
            .map_err(|e| refused(format!("the run's state does not decode: {e}")))?;
        let mut s = Self::with_drive(cfg, profile, &opts, payload.ssd);
        s.target.restore(state.target).map_err(refused)?;
        s.position = meta.position;
        Ok((s, state.run, meta))
    }
}
