//! `ssdlab sweep` and the power flags end to end: a power state out of range is bad input (exit
//! code 2, one stderr line), a small sweep writes its table and plots, and shards merge.
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use std::process::Command;

mod common;
use common::{ssdlab, temp_dir};

const JOB: &str = "[global]\ngroup_reporting\n[fill]\nrw=write\nbs=128k\niodepth=8\nsize=100%\n\
[rr]\nstonewall\nrw=randread\nbs=4k\niodepth=8\ntime_based\nruntime=1\n";

fn job(dir: &std::path::Path) -> String {
    let p = dir.join("rr.fio");
    std::fs::write(&p, JOB).unwrap();
    p.display().to_string()
}

#[test]
fn power_state_out_of_range_is_exit_2_with_one_line() {
    let dir = temp_dir("ps");
    let j = job(&dir);
    let out = dir.join("o").display().to_string();
    for args in [
        vec!["run", j.as_str(), "--drive", "tiny", "--power-state", "3"],
        vec!["sweep", j.as_str(), "--drive", "tiny", "--power-state", "0,7", "--out", out.as_str()],
    ] {
        let o = ssdlab(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("power state") && err.contains("0..=2"), "{err}");
    }
    let o = ssdlab(&["run", j.as_str(), "--drive", "tiny", "--power-cap", "-3"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn sweep_shards_and_merge() {
    let dir = temp_dir("shards");
    let j = job(&dir);
    let d = |n: &str| dir.join(n).display().to_string();
    let common = ["--drive", "tiny", "--user-capacity", "80MiB,70MiB", "--power-state", "0,2", "--threads", "2"];
    let run = |extra: &[&str]| {
        let mut a = vec!["sweep", j.as_str()];
        a.extend_from_slice(&common);
        a.extend_from_slice(extra);
        let o = ssdlab(&a);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    run(&["--out", &d("whole")]);
    run(&["--shard", "0/2", "--out", &d("s0")]);
    run(&["--shard", "1/2", "--out", &d("s1")]);
    let o = ssdlab(&["sweep", "merge", &d("s0"), &d("s1"), "--out", &d("merged")]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let a = std::fs::read(dir.join("whole/sweep.csv")).unwrap();
    let b = std::fs::read(dir.join("merged/sweep.csv")).unwrap();
    assert_eq!(a, b);
    assert_eq!(String::from_utf8_lossy(&a).lines().count(), 5);
    assert!(dir.join("merged/p99_vs_op.svg").exists());
}

/// `--slurm-script-only` writes plain bash: run by hand once per task (as Slurm would, with
/// `SLURM_ARRAY_TASK_ID` set) and then `merge.sh`, it gives the local sweep's table. No Slurm
/// needed; tests/cli_slurm.rs runs the same on a live cluster.
#[test]
fn slurm_script_run_by_hand_equals_local_sweep() {
    let dir = temp_dir("slurm-script");
    let j = job(&dir);
    let d = |n: &str| dir.join(n).display().to_string();
    let grid = ["--drive", "tiny", "--user-capacity", "80MiB,70MiB", "--power-state", "0,2"];
    let mut a = vec!["sweep", j.as_str()];
    a.extend_from_slice(&grid);
    let (local_dir, slurm_dir, bad_dir) = (d("local"), d("s"), d("bad"));
    let local = [a.clone(), vec!["--threads", "2", "--out", &local_dir]].concat();
    assert!(ssdlab(&local).status.success());
    let gen = [a.clone(), vec!["--slurm-script-only", "--slurm-tasks", "3", "--out", &slurm_dir]].concat();
    let o = ssdlab(&gen);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let script = std::fs::read_to_string(dir.join("s/sweep.sbatch")).unwrap();
    for want in ["#SBATCH --array=0-2\n", "#SBATCH --requeue\n", "#SBATCH --signal=B:USR1@60\n"] {
        assert!(script.contains(want), "{want:?} missing:\n{script}");
    }
    assert!(script.contains(&format!("SSDLAB={}\n", env!("CARGO_BIN_EXE_ssdlab"))), "{script}");
    for k in 0..3 {
        let o = Command::new("bash")
            .arg(dir.join("s/sweep.sbatch"))
            .env("SLURM_ARRAY_TASK_ID", k.to_string())
            .env("SLURM_ARRAY_JOB_ID", "1")
            .output()
            .unwrap();
        assert!(o.status.success(), "task {k}: {}", String::from_utf8_lossy(&o.stderr));
    }
    let o = Command::new("bash").arg(dir.join("s/merge.sh")).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in ["sweep.csv", "sweep.json"] {
        assert_eq!(
            std::fs::read(dir.join("local").join(f)).unwrap(),
            std::fs::read(dir.join("s").join(f)).unwrap(),
            "{f}"
        );
    }
    // Bad submissions are exit 2 naming the flag.
    for (extra, flag) in [(["--slurm-tasks", "5"], "--slurm-tasks"), (["--slurm-args", "--array=0-1"], "--slurm-args")]
    {
        let o = ssdlab(&[a.clone(), extra.to_vec(), vec!["--slurm-script-only", "--out", &bad_dir]].concat());
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains(flag));
    }
}

/// `--op` and `--gc-policy` hold for every point of the grid, as for `ssdlab run`; `--op`
/// cannot be given with the `--user-capacity` axis.
#[test]
fn sweep_takes_op_and_gc_policy() {
    let dir = temp_dir("op");
    let j = job(&dir);
    let out = dir.join("o").display().to_string();
    let o = ssdlab(&[
        "sweep",
        j.as_str(),
        "--drive",
        "tiny",
        "--op",
        "30%",
        "--gc-policy",
        "cost-benefit",
        "--power-state",
        "0,2",
        "--out",
        out.as_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let csv = std::fs::read_to_string(dir.join("o/sweep.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 2, "{csv}");
    for r in rows {
        let op_pct: f64 = r.split(',').nth(3).unwrap().parse().unwrap();
        assert!((op_pct - 30.0).abs() < 0.1, "{r}");
    }
    let spec = std::fs::read_to_string(dir.join("o/sweep.json")).unwrap();
    assert!(spec.contains("\"gc_policy\": \"cost-benefit\""), "{spec}");
    let bad =
        ssdlab(&["sweep", j.as_str(), "--drive", "tiny", "--op", "30%", "--user-capacity", "70MiB", "--out", &out]);
    assert_eq!(bad.status.code(), Some(2));
}
