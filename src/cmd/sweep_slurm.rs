//! `ssdlab sweep JOB.fio ... --slurm --out DIR`: writes the sweep's array-job script and merge
//! script into DIR, submits the script with `sbatch`, follows the tasks with `squeue` (a line
//! per shard whenever its state changes) and merges the shards when every one is done.
//! `--slurm-script-only` stops after writing the scripts. See docs/sweeps.md.

use super::common::interrupt_flag;
use super::sweep::{fresh, SweepArgs};
use super::{print_out, CliError};
use host_bench::sweep::slurm::{self, QueuedTask, ShardProgress, SlurmJob};
use host_bench::sweep::{self, Shard, SweepSpec};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub fn run(a: &SweepArgs) -> Result<(), CliError> {
    if !a.slurm_script_only && !on_path("sbatch") {
        return Err(CliError::bad_input(
            "--slurm: sbatch not found on PATH; use --slurm-script-only to only write the script",
        ));
    }
    let (spec, _, _, out, _, _) = fresh(a)?;
    let out = std::path::absolute(&out).map_err(|e| CliError::bad_input(format!("--out {}: {e}", out.display())))?;
    let job = slurm_job(a, &spec, &out)?;
    // A shard directory left by an earlier submission would be resumed (its checkpoint) or
    // taken as done (its table): refuse rather than mix two runs.
    if let Some(old) = job.shard_dirs().into_iter().find(|d| d.exists()) {
        return Err(CliError::bad_input(format!(
            "--out {}: {} is left from an earlier --slurm run; remove it or choose another --out",
            out.display(),
            old.display()
        )));
    }
    let logs = out.join(slurm::LOG_DIR);
    std::fs::create_dir_all(&logs).map_err(|e| CliError::bad_input(format!("--out {}: {e}", logs.display())))?;
    let script = out.join(slurm::SCRIPT);
    let merge = out.join(slurm::MERGE_SCRIPT);
    write_executable(&script, &job.script())?;
    write_executable(&merge, &job.merge_script())?;
    if a.slurm_script_only {
        return print_out(&format!(
            "wrote {} ({} array tasks) and {}\nsubmit:        sbatch {}\nwhen all done: {}   (or sbatch --dependency=afterok:JOBID {})\n",
            script.display(),
            job.tasks,
            merge.display(),
            script.display(),
            merge.display(),
            merge.display()
        ));
    }
    let submitted = slurm_command("sbatch", &["--parsable", &script.display().to_string()])
        .map_err(|e| CliError::failed(format!("sbatch {}: {e}", script.display())))?;
    let job_id = submitted.trim().split(';').next().unwrap_or("").to_string();
    if job_id.is_empty() || !job_id.chars().all(|c| c.is_ascii_digit()) {
        return Err(CliError::failed(format!("sbatch printed {submitted:?}, expected a job id")));
    }
    eprintln!("submitted array job {job_id}: {} tasks, logs in {}", job.tasks, logs.display());
    let poll = Duration::from_secs_f64(a.slurm_poll.max(0.2));
    follow(&job, &spec, &job_id, poll, &interrupt_flag())?;
    let parts = job
        .shard_dirs()
        .iter()
        .map(|d| sweep::read_dir(d).map(|t| (d.display().to_string(), t)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(CliError::failed)?;
    let t = sweep::merge_named(parts).map_err(CliError::failed)?;
    sweep::write_dir(&out, &t, Shard::WHOLE).map_err(CliError::failed)?;
    eprintln!("merged {} points of job {job_id} into {}", t.rows.len(), out.display());
    print_out(&sweep::to_csv(&t).map_err(|e| CliError::failed(format!("sweep table: {e}")))?)
}

/// The submission from the command line: tasks, the grid's arguments, sbatch options.
fn slurm_job(a: &SweepArgs, spec: &SweepSpec, out: &Path) -> Result<SlurmJob, CliError> {
    let points = u32::try_from(spec.grid().len()).map_err(|_| {
        CliError::bad_input(format!(
            "the grid has {} points; a Slurm array takes at most 4294967295",
            spec.grid().len()
        ))
    })?;
    let tasks = a.slurm_tasks.unwrap_or(points);
    if tasks == 0 || tasks > points {
        return Err(CliError::bad_input(format!(
            "--slurm-tasks {tasks}: allowed 1..={points} (the grid has {points} points; one shard per task)"
        )));
    }
    let here = |what: &str, r: std::io::Result<PathBuf>| {
        r.map_err(|e| CliError::bad_input(format!("--slurm: cannot find {what}: {e}")))
    };
    let sbatch_options = slurm::parse_sbatch_args(a.slurm_args.as_deref().unwrap_or(""))
        .map_err(|e| CliError::bad_input(format!("--slurm-args {e}")))?;
    Ok(SlurmJob {
        binary: here("the ssdlab binary", std::env::current_exe())?,
        workdir: here("the current directory", std::env::current_dir())?,
        out: out.to_path_buf(),
        tasks,
        sweep_args: grid_args(a),
        sbatch_options,
    })
}

/// The `ssdlab sweep` arguments that define the grid, as given (so every task's spec, and the
/// merged `sweep.json`, are those of the same sweep run locally from this directory).
fn grid_args(a: &SweepArgs) -> Vec<String> {
    let mut v: Vec<String> = a.job.iter().map(|p| p.display().to_string()).collect();
    let mut push = |flag: &str, val: &Option<String>| {
        if let Some(x) = val {
            v.extend([flag.to_string(), x.clone()]);
        }
    };
    push("--drive", &Some(a.drive.drive.clone()));
    push("--user-capacity", &a.user_capacity);
    push("--op", &a.ftl.op);
    push("--gc-policy", &a.ftl.gc_policy);
    push("--power-state", &a.power_state);
    push("--power-cap", &a.power_cap);
    push("--seeds", &Some(a.seeds.to_string()));
    push("--seed", &Some(a.sim.seed.to_string()));
    push("--scale", &a.sim.scale);
    if a.ignore_unsupported {
        v.push("--ignore-unsupported".into());
    }
    if a.precondition_each {
        v.push("--precondition-each".into());
    }
    v
}

fn on_path(prog: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(prog).is_file()))
}

fn write_executable(path: &Path, text: &str) -> Result<(), CliError> {
    use std::os::unix::fs::PermissionsExt;
    let bad = |e: std::io::Error| CliError::bad_input(format!("--out: {}: {e}", path.display()));
    std::fs::write(path, text).map_err(bad)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).map_err(bad)
}

/// Runs a Slurm client command; its stdout, or why it failed.
fn slurm_command(cmd: &str, args: &[&str]) -> Result<String, String> {
    let o = Command::new(cmd).args(args).output().map_err(|e| format!("{cmd}: {e} (is Slurm installed?)"))?;
    if !o.status.success() {
        return Err(format!("{cmd} exited with {}: {}", o.status, String::from_utf8_lossy(&o.stderr).trim()));
    }
    Ok(String::from_utf8_lossy(&o.stdout).into_owned())
}

/// Polls until no task of the job is queued, printing a shard's line when it changes; fails
/// naming the shards that did not finish.
fn follow(job: &SlurmJob, spec: &SweepSpec, job_id: &str, poll: Duration, stop: &AtomicBool) -> Result<(), CliError> {
    let grid = spec.grid();
    let n = job.tasks;
    let expected: Vec<usize> =
        (0..n).map(|k| grid.iter().filter(|p| Shard { k, n }.contains(p.index)).count()).collect();
    let mut last: Vec<String> = vec![String::new(); n as usize];
    let (mut errors, mut empty_polls) = (0, 0);
    loop {
        let queued = match slurm_command("squeue", &["-h", "-r", "-j", job_id, "-o", slurm::SQUEUE_FORMAT]) {
            Ok(text) => {
                errors = 0;
                Some(slurm::parse_squeue(&text))
            }
            // Slurm forgets a finished job after MinJobAge (300 s by default).
            Err(e) if e.contains("Invalid job id") => Some(Vec::new()),
            Err(e) if errors < 10 => {
                errors += 1;
                eprintln!("warning: {e}; retrying");
                None
            }
            Err(e) => return Err(CliError::failed(format!("following job {job_id}: {e}"))),
        };
        let mut done = 0;
        for k in 0..n {
            let progress = slurm::shard_progress(&job.out, spec, Shard { k, n });
            let state = queued.as_ref().and_then(|q| q.iter().find(|t| t.task == k)).map(task_state);
            let line = match (progress, state) {
                (ShardProgress::Done, None) => {
                    done += 1;
                    "done".to_string()
                }
                (ShardProgress::Done, Some(s)) => format!("{s}, table written"),
                (ShardProgress::Partial(p), s) => {
                    format!("{}, {p}/{} points", s.unwrap_or_else(|| "not queued".into()), expected[k as usize])
                }
            };
            if line != last[k as usize] {
                eprintln!("shard {k}/{n} (task {job_id}_{k}): {line}");
                last[k as usize] = line;
            }
        }
        if done == n {
            return Ok(());
        }
        if queued.as_ref().is_some_and(|q| q.is_empty()) {
            empty_polls += 1;
            // Twice in a row: a task is written whole before it leaves the queue.
            if empty_polls >= 2 {
                return Err(unfinished(job, spec, job_id));
            }
        } else {
            empty_polls = 0;
        }
        let until = std::time::Instant::now() + poll;
        while std::time::Instant::now() < until {
            if stop.load(Ordering::SeqCst) {
                return Err(CliError::failed(format!(
                    "stopped following; job {job_id} keeps running on the cluster. Merge when it is done: {}",
                    job.out.join(slurm::MERGE_SCRIPT).display()
                )));
            }
            std::thread::sleep(Duration::from_millis(100).min(poll));
        }
    }
}

/// "running", or "pending (Resources)": the reason only for pending tasks (squeue keeps a
/// stale one on running tasks).
fn task_state(t: &QueuedTask) -> String {
    match t.reason.as_str() {
        r if t.state == "PENDING" && r != "None" && !r.is_empty() => format!("pending ({r})"),
        _ => t.state.to_lowercase(),
    }
}

/// The error when the job left the queue with shards unfinished: which, their logs, sacct's
/// states when accounting is on, and how to finish them from their checkpoints.
fn unfinished(job: &SlurmJob, spec: &SweepSpec, job_id: &str) -> CliError {
    let n = job.tasks;
    let missing: Vec<u32> =
        (0..n).filter(|&k| slurm::shard_progress(&job.out, spec, Shard { k, n }) != ShardProgress::Done).collect();
    let list = missing.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
    let states = slurm_command("sacct", &["-n", "-X", "-P", "-j", job_id, "-o", "JobID,State"])
        .map(|s| format!("; sacct: {}", s.split_whitespace().collect::<Vec<_>>().join(" ")))
        .unwrap_or_default();
    CliError::failed(format!(
        "job {job_id} left the queue with shard(s) {list} unfinished (logs: {}/shard-K.log){states}. \
         Finished points are kept: resubmit with `sbatch --array={list} {}`, then run {}",
        job.out.join(slurm::LOG_DIR).display(),
        job.out.join(slurm::SCRIPT).display(),
        job.out.join(slurm::MERGE_SCRIPT).display()
    ))
}
