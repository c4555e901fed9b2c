//! Reporting groups and `exitall`, as real fio (Debian's fio 3.33) has them. Groups: `stonewall` and `new_group`
//! each start the next `groupid` (a job with both starts one), `numjobs` clones stay in their
//! job's group, and `group_reporting` merges a reporting group's jobs into one report named
//! after its first job, while `new_group` jobs still run beside the jobs before them. The same
//! job file runs through fio (on a file) and ssdlab (on the simulated `tiny` drive); the
//! reported (job name, groupid) lists must be equal, with and without `group_reporting`.
//! `exitall`: a job that finishes ends others by its `exit_what` (its group, every running job,
//! or every job: a later group then runs nothing).
//!
//! fio is installed by `.ci/run` (scripts/install-test-deps.sh). Without fio the test fails;
//! outside CI it can be skipped explicitly with SSDLAB_SKIP_FIO=1 (it then says so).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code

use std::path::Path;
use std::process::Command;

mod common;
use common::{bin, fio_scratch, fio_timed, json_report, stderr};

const JOBS: &str = "bs=4k\nsize=256k\nrw=randread\n[a]\nnumjobs=2\n[b]\nnew_group\n[c]\n[d]\nstonewall\n[e]\nnew_group\nstonewall\n[f]\nnew_group\n";

/// (jobname, groupid) of every report in a fio-format JSON result.
fn groups(json: &serde_json::Value) -> Vec<(String, u64)> {
    json["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| (j["jobname"].as_str().unwrap().to_string(), j["groupid"].as_u64().unwrap()))
        .collect()
}

/// Runs the job file `body` (starting with `[global]`) through fio on `data` (psync, O_DIRECT)
/// and through ssdlab on the simulated `tiny` drive, in `dir`: the two JSON reports.
fn both_reports(dir: &Path, data: &Path, body: &str) -> (serde_json::Value, serde_json::Value) {
    let fio = json_report(&fio_timed(dir, body, data).0.stdout);
    let ssd_job = dir.join("s.fio");
    std::fs::write(&ssd_job, body).unwrap();
    let out = Command::new(bin())
        .args(["run", ssd_job.to_str().unwrap(), "--drive", "tiny", "--output-format", "json"])
        .output()
        .expect("run ssdlab");
    assert!(out.status.success(), "ssdlab: {}", stderr(&out));
    (fio, json_report(&out.stdout))
}

#[test]
fn stonewall_and_new_group_number_reporting_groups_as_fio() {
    let Some((dir, data)) = fio_scratch("groups", 1 << 20) else { return };
    for (tag, global) in [("merged", "group_reporting\n"), ("separate", "")] {
        let (fio, ssd) = both_reports(&dir, &data, &format!("[global]\n{global}{JOBS}"));
        let (fio, ssd) = (groups(&fio), groups(&ssd));
        assert_eq!(ssd, fio, "{tag}");
        let ids: Vec<u64> = fio.iter().map(|g| g.1).collect();
        assert_eq!(*ids.last().unwrap(), 4, "{tag}: five reporting groups in {fio:?}");
    }
}

/// (jobname, total I/Os) of every report.
fn ios(json: &serde_json::Value) -> Vec<(String, u64)> {
    json["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let n = ["read", "write", "trim"].iter().map(|d| j[*d]["total_ios"].as_u64().unwrap_or(0)).sum();
            (j["jobname"].as_str().unwrap().to_string(), n)
        })
        .collect()
}

#[test]
fn a_finishing_job_ends_others_by_exit_what_as_in_fio() {
    let Some((dir, data)) = fio_scratch("exitall", 1 << 20) else { return };
    // `short` ends after 50 reads; `long` would read for a second, `after` (a later group) for
    // 200 ms.
    let jobs = |exit: &str| {
        format!("[global]\nbs=4k\nsize=1m\nrw=randread\n[short]\nnumber_ios=50\n{exit}\n[long]\ntime_based\nruntime=1\n[after]\nstonewall\ntime_based\nruntime=200ms\n")
    };
    // What `long` reads when nothing ends it, per tool: an ended `long` stops far short of it
    // (by the next few I/Os in principle; real fio's threads notice the end when the machine
    // schedules them, 50-122 I/Os later on the 2-core test VM).
    let mut unended = [0u64; 2];
    for (tag, exit, long_ended, after_runs) in [
        ("none", "", false, true),
        ("group", "exitall\nexit_what=group", true, true),
        ("stonewall", "exitall\nexit_what=stonewall", true, true),
        ("all", "exitall\nexit_what=all", true, false),
    ] {
        let (fio, ssd) = both_reports(&dir, &data, &jobs(exit));
        let (fio, ssd) = (ios(&fio), ios(&ssd));
        for (k, (who, r)) in [("fio", &fio), ("ssdlab", &ssd)].into_iter().enumerate() {
            eprintln!("exit_what {tag}, {who}: {r:?}");
            let names: Vec<&str> = r.iter().map(|x| x.0.as_str()).collect();
            assert_eq!(names, ["short", "long", "after"], "{tag}, {who}");
            assert_eq!(r[0].1, 50, "{tag}, {who}: {r:?}");
            if tag == "none" {
                unended[k] = r[1].1;
                assert!(r[1].1 > 1000, "{tag}, {who}: {r:?}: `long` ran for a second");
            }
            assert_eq!(r[1].1 * 10 < unended[k], long_ended, "{tag}, {who}: {r:?}, unended {}", unended[k]);
            assert_eq!(r[2].1 > 0, after_runs, "{tag}, {who}: {r:?}");
        }
    }
}

#[test]
fn a_merged_reports_job_runtime_adds_its_jobs_as_fio_does() {
    // Three 300 ms clones under group_reporting: fio reports job_runtime 900 (each thread's
    // run time in ms, added), while each direction's runtime stays the span (~300).
    let Some((dir, data)) = fio_scratch("job-runtime", 1 << 20) else { return };
    let body = "[global]\nbs=4k\nsize=1m\nrw=randread\ngroup_reporting\n[a]\nnumjobs=3\ntime_based\nruntime=300ms\n";
    let (fio, ssd) = both_reports(&dir, &data, body);
    for (who, r) in [("fio", &fio), ("ssdlab", &ssd)] {
        let (job, dir) =
            (r["jobs"][0]["job_runtime"].as_u64().unwrap(), r["jobs"][0]["read"]["runtime"].as_u64().unwrap());
        assert!((900..=910).contains(&job), "{who}: job_runtime {job}");
        assert!((300..=305).contains(&dir), "{who}: read runtime {dir}");
    }
}
