//! Pausing a run at a simulated instant and continuing it: the runner's whole state (each
//! group's instances with their patterns, random streams and maps, rate and flow state, the
//! queue-depth searches, histograms and series so far, the results of finished groups) as one
//! serde value, so it can be saved beside the drive and a later process can go on exactly
//! where this one stopped (`ssdlab run --save-at`, `--resume-from`; docs/snapshots.md).

use super::*;
use serde::{Deserialize, Serialize};

/// A run stopped between two events of its device, whole: continuing it with the same job
/// file on the same device state gives what the run would have given without the pause.
#[derive(Serialize, Deserialize)]
pub struct PausedRun {
    /// Device time of the pause (the first event at or after the instant asked for), ns.
    pub at_ns: u64,
    /// Device time the run started, ns.
    pub start_ns: u64,
    /// The group that was running, and the results of the groups before it.
    pub group: usize,
    /// The run's [`RunOptions::reseed`]: later groups' `randrepeat=0` jobs draw from it.
    #[serde(default)]
    reseed: u32,
    jobs: Vec<JobResult>,
    run: GroupRun,
}

/// How [`run_or_pause`] ended.
pub enum RunOutcome {
    Done(RunResult),
    Paused(Box<PausedRun>),
}

/// [`run`], pausing at the first event at or after `pause_at_ns` (`None`: never), and starting
/// from a paused run (`from`: the device must hold the state it had when that run paused).
/// Refused for runs whose state is partly outside the runner: a replayed `read_iolog` (its
/// place in the log file) and per-I/O logs (what was written to them).
pub fn run_or_pause<D: Device + ?Sized>(
    file: &JobFile,
    dev: &mut D,
    opts: &mut RunOptions,
    pause_at_ns: Option<u64>,
    from: Option<PausedRun>,
) -> Result<RunOutcome, RunError> {
    if !(opts.time_scale.is_finite() && opts.time_scale > 0.0) {
        return Err(RunError::BadTimeScale(opts.time_scale));
    }
    if pause_at_ns.is_some() || from.is_some() {
        check_pausable(file, opts)?;
    }
    let info = dev.info();
    let groups = split_groups(&file.jobs);
    let (start_ns, mut jobs, first, mut restored) = match from {
        Some(p) if p.group < groups.len() => {
            opts.reseed = p.reseed;
            (p.start_ns, p.jobs, p.group, Some(p.run))
        }
        Some(p) => {
            return Err(RunError::NotResumable(format!(
                "{}: the saved run was in job group {} of {}; this job file has {}",
                file.file,
                p.group + 1,
                p.run.groups,
                groups.len()
            )))
        }
        None => (dev.now_ns(), Vec::new(), 0, None),
    };
    let pause_at = pause_at_ns.unwrap_or(u64::MAX);
    let mut interrupted = false;
    // A job with `exit_what=all` ended: the groups after it run nothing (fio reports them).
    let mut all_ended = false;
    for (g, members) in groups.iter().enumerate().skip(first) {
        let mut group = match restored.take() {
            // Restored in the middle: its settle and start are behind it.
            Some(run) => run,
            None => {
                if stop_requested(opts) {
                    interrupted = true;
                    break;
                }
                if opts.time_scale < 1.0 && !all_ended {
                    dev.settle();
                }
                let warm =
                    if all_ended { None } else { warmup::warm_up(file, members, g, groups.len(), &info, dev, opts)? };
                if stop_requested(opts) {
                    interrupted = true;
                    break;
                }
                let mut group = GroupRun::new(file, members, g, groups.len(), &info, dev.now_ns(), start_ns, opts)?;
                group.slots.iter_mut().for_each(|s| s.result.warmup = warm);
                if all_ended {
                    group.instances.iter_mut().for_each(|i| i.stopped = true);
                    group.drop_waiters(dev.now_ns());
                }
                group.start(dev, opts)?;
                group
            }
        };
        let usage_before = dev.host_usage();
        let Some(stopped) = group.run(dev, opts, pause_at)? else {
            return Ok(RunOutcome::Paused(Box::new(PausedRun {
                at_ns: dev.now_ns(),
                start_ns,
                group: g,
                reseed: opts.reseed,
                jobs,
                run: group,
            })));
        };
        interrupted |= stopped;
        all_ended |= group.exit.all_ended;
        let mut results = group.into_results(dev.now_ns());
        if let (Some(a), Some(b)) = (usage_before, dev.host_usage()) {
            share_host_usage(&mut results, b.since(a));
        }
        jobs.extend(results);
        if interrupted {
            break;
        }
    }
    Ok(RunOutcome::Done(RunResult {
        file: file.file.clone(),
        global_options: file.global_options.clone(),
        jobs,
        seed: opts.seed,
        time_scale: opts.time_scale,
        device: info,
        start_ns,
        end_ns: dev.now_ns(),
        interrupted,
    }))
}

/// Job groups in `file` (a job with `stonewall` starts one).
pub fn group_count(file: &JobFile) -> usize {
    split_groups(&file.jobs).len()
}

/// Why `file` cannot be paused and resumed, if it cannot: a job replays an iolog (its place in
/// the log file is not part of the state) or writes per-I/O logs (what is already in them).
pub fn pausable(file: &JobFile) -> Result<(), String> {
    for j in &file.jobs {
        if j.replay.read_iolog.is_some() {
            return Err(format!("job '{}' replays an iolog (read_iolog): such a run cannot be saved mid-run", j.name));
        }
        if j.wait_for.is_some() {
            return Err(format!("job '{}' waits for another (wait_for): such a run cannot be saved mid-run", j.name));
        }
        let l = &j.logs;
        if j.write_iolog.is_some() || l.bw.is_some() || l.iops.is_some() || l.lat.is_some() {
            return Err(format!(
                "job '{}' writes per-I/O logs (write_iolog, write_bw_log, write_iops_log or write_lat_log): \
                 such a run cannot be saved mid-run",
                j.name
            ));
        }
    }
    Ok(())
}

fn check_pausable(file: &JobFile, opts: &RunOptions) -> Result<(), RunError> {
    pausable(file).map_err(RunError::NotResumable)?;
    if opts.on_submit.is_some() || opts.on_complete.is_some() {
        return Err(RunError::NotResumable("a run with per-I/O hooks cannot be saved mid-run".into()));
    }
    Ok(())
}
