//! `ssdlab drive precondition`: bring a drive to steady state the SNIA PTS way and say whether
//! it got there. A built-in workload first fills the drive (workload-independent
//! preconditioning: two passes of 128 KiB sequential writes), then writes in rounds
//! (workload-dependent preconditioning) until the last [`steady::WINDOW_ROUNDS`] rounds' IOPS
//! pass the PTS criteria (range <= 20%, slope excursion <= 10% of the window average) or
//! [`steady::MAX_ROUNDS`] rounds have run. A job file is itself the round, repeated the same way.
//! Every round continues the drive's job numbering, so rounds draw fresh random streams.

use super::SteadyStateRecord;
use crate::job::build::JobFileBuilder;
use crate::job::{JobFile, RwMode};
use crate::runner::RunError;
use crate::simrun::SimSession;
use crate::suites::steady;
use std::sync::atomic::AtomicBool;

/// What `--workload` names.
#[derive(Clone, Debug)]
pub enum Workload {
    /// 4 KiB random writes, QD32 x 4 jobs, 0.2 drive writes per round.
    RandWrite4k,
    /// 128 KiB sequential writes, QD32, a quarter of the drive per round (in turn).
    Seq128k,
    /// A job file, run whole as each round; its last job's IOPS is tracked.
    Job(JobFile),
}

const RAND_ROUND_DRIVE_WRITES: f64 = 0.2;

impl Workload {
    pub fn name(&self) -> String {
        match self {
            Workload::RandWrite4k => "randwrite-4k".into(),
            Workload::Seq128k => "seq-128k".into(),
            Workload::Job(f) => f.file.clone(),
        }
    }

    /// The job file of round `k` (0-based) and the drive writes it makes (0 if unknown).
    fn round(&self, k: usize) -> (JobFile, f64) {
        let mut b = JobFileBuilder::new("built-in");
        match self {
            Workload::RandWrite4k => {
                b.global().group_reporting().bs(4096).iodepth(32);
                b.job("round").rw(RwMode::RandWrite).numjobs(4).size_percent(5.0);
            }
            Workload::Seq128k => {
                b.global().bs(128 << 10).iodepth(32);
                b.job("round").rw(RwMode::Write).offset_percent([0.0, 25.0, 50.0, 75.0][k % 4]).size_percent(25.0);
            }
            Workload::Job(f) => return (f.clone(), 0.0),
        }
        let dw = if matches!(self, Workload::RandWrite4k) { RAND_ROUND_DRIVE_WRITES } else { 0.25 };
        (built(b), dw)
    }
}

/// The fill before the rounds: two passes of 128 KiB sequential writes at QD32.
fn fill() -> JobFile {
    let mut b = JobFileBuilder::new("built-in");
    b.global().bs(128 << 10).iodepth(32);
    b.job("fill").rw(RwMode::Write).size_percent(100.0).loops(2);
    built(b)
}

#[allow(clippy::expect_used)] // the built-in jobs' values are fixed and valid; the tests run every one
fn built(b: JobFileBuilder) -> JobFile {
    b.build().expect("built-in job is valid")
}

/// Preconditions `s`'s drive with `w`; `Ok(None)` when `stop` ended it. The session's position
/// counts every job run, ready for [`SimSession::freeze`].
#[allow(clippy::cast_possible_truncation)] // at most steady::MAX_ROUNDS rounds
pub fn run(
    s: &mut SimSession,
    w: &Workload,
    stop: Option<&AtomicBool>,
    progress: &mut dyn FnMut(usize, &[f64]),
) -> Result<Option<SteadyStateRecord>, RunError> {
    let go = |s: &mut SimSession, f: &JobFile| -> Result<Option<f64>, RunError> {
        let r = s.run(f, stop, None)?;
        s.position = s.position.after(f);
        if r.interrupted {
            return Ok(None);
        }
        let last = r.jobs.last().map_or(0.0, |j| {
            let secs = j.runtime_ns().max(1) as f64 / 1e9;
            j.dirs.iter().map(|d| d.ios).sum::<u64>() as f64 / secs
        });
        Ok(Some(last))
    };
    if !matches!(w, Workload::Job(_)) && go(s, &fill())?.is_none() {
        return Ok(None);
    }
    let mut iops = Vec::new();
    let mut round_dw = 0.0;
    let mut found = None;
    for k in 0..steady::MAX_ROUNDS {
        let (f, dw) = w.round(k);
        round_dw = dw;
        let Some(v) = go(s, &f)? else { return Ok(None) };
        iops.push(v);
        progress(k + 1, &iops);
        if let Some(d) = steady::latest(&iops).filter(|d| d.reached) {
            found = Some(d);
            break;
        }
    }
    let judged = found.or_else(|| steady::latest(&iops));
    Ok(Some(SteadyStateRecord {
        criterion: format!(
            "SNIA PTS: {} consecutive rounds with max-min <= {:.0}% and least-squares slope excursion <= {:.0}% of their average IOPS, within {} rounds",
            steady::WINDOW_ROUNDS,
            steady::RANGE_LIMIT * 100.0,
            steady::SLOPE_LIMIT * 100.0,
            steady::MAX_ROUNDS
        ),
        workload: w.name(),
        rounds: iops.len() as u32,
        round_drive_writes: round_dw,
        round_iops: iops,
        reached: judged.as_ref().is_some_and(|d| d.reached),
        window: judged.as_ref().map(|d| [d.rounds[0] as u32, *d.rounds.last().unwrap_or(&0) as u32]),
        range_pct: judged.as_ref().map(|d| d.range_pct),
        slope_excursion_pct: judged.as_ref().map(|d| d.slope_pct),
    }))
}
