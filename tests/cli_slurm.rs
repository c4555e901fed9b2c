//! Issue 19 against a live single-node Slurm (started by the test, as root, from Debian's
//! slurm-wlm and munge): `ssdlab sweep --slurm` with 4 array tasks gives the table of the same
//! sweep run locally, byte for byte; and a task stopped mid-way by SIGTERM saves its finished
//! points, requeues itself, resumes, and the merged table is still the same.
//!
//! Run locally: `scripts/install-test-deps.sh && cargo test --test cli_slurm -- --nocapture`
//! (as root). Without Slurm it prints a loud "SKIPPED"; under CI=true it fails instead.
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

mod slurm_cluster;

use slurm_cluster::Cluster;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A fill, then 4 KiB random writes long enough that a shard's second point is still running
/// when the test signals the task after its first point.
const JOB: &str = "[global]\ngroup_reporting\n[fill]\nrw=write\nbs=128k\niodepth=8\nsize=100%\n\
[rw]\nstonewall\nrw=randwrite\nbs=4k\niodepth=8\ntime_based\nruntime=300\n";

/// 8 points: 2 capacities x 2 power states x 2 seeds; 4 shards of 2 points.
const GRID: [&str; 8] = ["--drive", "tiny", "--user-capacity", "80MiB,70MiB", "--power-state", "0,2", "--seeds", "2"];

/// Kills the child (a follower) by pid if the test fails before it exits.
struct ChildGuard(Option<Child>);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if let Some(c) = &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn ssdlab(c: &Cluster) -> Command {
    c.command(env!("CARGO_BIN_EXE_ssdlab"))
}

fn sweep_args(job: &Path, out: &Path, extra: &[&str]) -> Vec<String> {
    let mut a = vec!["sweep".to_string(), job.display().to_string()];
    a.extend(GRID.iter().map(|s| s.to_string()));
    a.extend(extra.iter().map(|s| s.to_string()));
    a.extend(["--out".to_string(), out.display().to_string()]);
    a
}

fn assert_same_table(local: &Path, slurm: &Path) {
    for f in ["sweep.csv", "sweep.json"] {
        let a = std::fs::read(local.join(f)).unwrap();
        let b = std::fs::read(slurm.join(f)).unwrap_or_else(|e| panic!("{}: {e}", slurm.join(f).display()));
        assert!(a == b, "{f} of the Slurm sweep in {} differs from the local one", slurm.display());
    }
}

fn wait_until(what: &str, secs: u64, mut ok: impl FnMut() -> bool) {
    let t0 = Instant::now();
    while !ok() {
        assert!(t0.elapsed() < Duration::from_secs(secs), "timed out after {secs} s waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn points_saved(shard: &Path) -> usize {
    std::fs::read_dir(shard.join("checkpoint"))
        .map(|d| d.filter_map(Result::ok).filter(|e| e.file_name().to_string_lossy().ends_with(".json")).count())
        .unwrap_or(0)
        .saturating_sub(1) // the plan, checkpoint/sweep.json
}

/// Sends `signal` to the batch shell of `task` once its shard has saved its first point (of
/// two, so the second is running).
fn signal_after_first_point(c: &Cluster, shard: &Path, task: &str, signal: &str) {
    wait_until(&format!("{task}'s first point"), 90, || points_saved(shard) >= 1);
    assert_eq!(points_saved(shard), 1, "{task} finished before the signal; lengthen JOB's runtime");
    // scancel may keep retrying ("Job can not be altered now") after the signal got through,
    // while the task ends; it is stopped once the task has left the running state.
    let scancel = c.command("scancel").args(["--batch", &format!("--signal={signal}"), task]).spawn().unwrap();
    let _scancel = ChildGuard(Some(scancel));
    let k: u32 = task.rsplit('_').next().unwrap().parse().unwrap();
    wait_until(&format!("{task} to stop running"), 60, || !c.queue().iter().any(|t| t.1 == k && t.2 == "RUNNING"));
}

/// Slurm holds a requeued task for about two minutes; start it in 3 s (not at once: slurmd
/// refuses a job's new run in the second its last one ended, "Job credential revoked").
fn release(c: &Cluster, task: &str) {
    let k: u32 = task.rsplit('_').next().unwrap().parse().unwrap();
    wait_until(&format!("{task} to be pending"), 60, || c.queue().iter().any(|t| t.1 == k && t.2 == "PENDING"));
    retry("scontrol update StartTime=now+3", || {
        c.command("scontrol").args(["update", &format!("JobId={task}"), "StartTime=now+3"]).status()
    });
}

/// Runs a Slurm command until it succeeds (the controller may answer "try again later").
fn retry(what: &str, mut run: impl FnMut() -> std::io::Result<std::process::ExitStatus>) {
    wait_until(what, 30, || run().is_ok_and(|s| s.success()));
}

#[test]
fn slurm_sweep_equals_local_and_survives_sigterm_and_requeue() {
    let Some(cluster) = Cluster::start("sweep") else { return };
    let work: PathBuf = cluster.dir.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let job = work.join("rw.fio");
    std::fs::write(&job, JOB).unwrap();

    let local = work.join("local");
    let o = ssdlab(&cluster).args(sweep_args(&job, &local, &["--threads", "2"])).output().unwrap();
    assert!(o.status.success(), "local sweep: {}", String::from_utf8_lossy(&o.stderr));

    // 1. Four array tasks, followed to the end and merged.
    let s1 = work.join("slurm");
    let o = ssdlab(&cluster)
        .args(sweep_args(&job, &s1, &["--slurm", "--slurm-tasks", "4", "--slurm-poll", "0.5"]))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "slurm sweep: {err}\nlogs: {}", s1.join("logs").display());
    assert!(err.contains("shard 3/4") && err.contains(": done"), "{err}");
    let script = std::fs::read_to_string(s1.join("sweep.sbatch")).unwrap();
    assert!(script.contains("#SBATCH --array=0-3") && script.contains("#SBATCH --requeue"), "{script}");
    assert_same_table(&local, &s1);
    assert!(!s1.join("shard-2/checkpoint").exists(), "a finished shard keeps no checkpoint");

    // 2. Task 1 gets SIGTERM after its first point: it saves it and exits, and is requeued by
    // hand. Task 3 gets Slurm's time-limit warning (USR1) after its first point: it saves it
    // and requeues itself. Both resume from their checkpoints.
    let s2 = work.join("slurm-term");
    let follower = ssdlab(&cluster)
        .args(sweep_args(&job, &s2, &["--slurm", "--slurm-tasks", "4", "--slurm-poll", "0.5"]))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut follower = ChildGuard(Some(follower));
    let job_id = {
        let mut id = None;
        wait_until("the array job in squeue", 30, || {
            id = cluster.queue().first().map(|t| t.0.clone());
            id.is_some()
        });
        id.unwrap()
    };
    let task = |k: u32| format!("{job_id}_{k}");
    signal_after_first_point(&cluster, &s2.join("shard-1"), &task(1), "TERM");
    wait_until("task 1 to stop", 60, || !cluster.queue().iter().any(|t| t.1 == 1));
    retry("scontrol requeue", || cluster.command("scontrol").args(["requeue", &task(1)]).status());
    release(&cluster, &task(1));
    signal_after_first_point(&cluster, &s2.join("shard-3"), &task(3), "USR1");
    release(&cluster, &task(3));
    let running = follower.0.as_mut().unwrap();
    wait_until("the follower to finish", 120, || running.try_wait().ok().flatten().is_some());
    let o = follower.0.take().unwrap().wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "slurm sweep with a requeue: {err}");
    for k in [1, 3] {
        let log = std::fs::read_to_string(s2.join(format!("logs/shard-{k}.log"))).unwrap();
        assert!(log.contains("1 points already finished"), "task {k} did not resume:\n{log}");
        assert_eq!(log.contains("requeueing"), k == 3, "only USR1 makes a task requeue itself:\n{log}");
    }
    assert_same_table(&local, &s2);
}
