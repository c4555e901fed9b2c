//! `wait_for` as fio (Debian's fio 3.33) runs it: the job starts once every instance of the
//! named job has finished, its runtime counts from then, and fio's checks refuse a job that
//! names itself, an unknown job or one defined after it. fio shows the order on a file (its run
//! takes both jobs' time, the waiter's runtime only its own); the simulated run's per-job
//! `write_iolog`s show when each job's I/Os were issued.
//!
//! fio is installed by `.ci/run` (scripts/install-test-deps.sh). Without fio the test fails;
//! outside CI it can be skipped explicitly with SSDLAB_SKIP_FIO=1 (it then says so).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in test code is a failed test

use std::path::Path;
use std::process::Command;

mod common;
use common::{bin, fio_scratch, fio_timed, json_report, stderr};

/// A 300 ms time-based job, then one that waits for it (and would otherwise run beside it).
const JOBS: &str = "[global]\nrw=randread\nbs=4k\nsize=1m\n[w]\ntime_based\nruntime=300ms\n[r]\nwait_for=w\n";

/// (job name, reads, job_runtime ms) per reported job.
fn jobs(json: &[u8]) -> Vec<(String, u64, u64)> {
    let v = json_report(json);
    let name = |j: &serde_json::Value| j["jobname"].as_str().unwrap().to_string();
    let num = |j: &serde_json::Value, k: &str| j[k].as_u64().unwrap();
    v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| (name(j), num(&j["read"], "total_ios"), num(j, "job_runtime")))
        .collect()
}

/// Submission times (µs since the run began) of the reads in a `write_iolog`.
fn read_times(log: &Path) -> Vec<u64> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .filter_map(|l| match l.split_whitespace().collect::<Vec<_>>().as_slice() {
            [t, _, "read", _, _] => Some(t.parse().unwrap()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_job_starts_when_the_job_it_waits_for_has_finished_as_in_fio() {
    let Some((dir, data)) = fio_scratch("waitfor", 8 << 20) else { return };
    let (fio, wall_ms) = fio_timed(&dir, JOBS, &data);
    let f = jobs(&fio.stdout);
    assert_eq!(f.iter().map(|j| (j.0.as_str(), j.1)).nth(1), Some(("r", 256)), "fio: {f:?}");
    assert!(f[1].2 < 250, "fio's r: the wait is not its runtime: {f:?}");
    assert!(wall_ms >= 300, "fio's run took w's 300 ms before r: {wall_ms} ms");

    // Simulated, each job logging its submissions.
    let (wlog, rlog) = (dir.join("w.log"), dir.join("r.log"));
    let job = JOBS
        .replace("[w]\n", &format!("[w]\nwrite_iolog={}\n", wlog.display()))
        .replace("[r]\n", &format!("[r]\nwrite_iolog={}\n", rlog.display()));
    std::fs::write(dir.join("s.fio"), job).unwrap();
    let sim = Command::new(bin())
        .args(["run", dir.join("s.fio").to_str().unwrap(), "--drive", "tiny", "--output-format", "json"])
        .output()
        .unwrap();
    assert!(sim.status.success(), "ssdlab: {}", stderr(&sim));
    let s = jobs(&sim.stdout);
    assert_eq!(s.iter().map(|j| (j.0.as_str(), j.1)).collect::<Vec<_>>()[1], ("r", 256), "ssdlab: {s:?}");
    assert!(s[1].2 < 250, "ssdlab's r: the wait is not its runtime: {s:?}");
    let (w, r) = (read_times(&wlog), read_times(&rlog));
    let (w_last, r_first) = (w.iter().max().unwrap(), r.iter().min().unwrap());
    assert!(r_first >= w_last && *r_first >= 300_000, "r's first read at {r_first} us, w's last at {w_last} us");
}

#[test]
fn fios_checks_of_the_waitee_are_made() {
    let Some((dir, data)) = fio_scratch("waitfor-checks", 1 << 20) else { return };
    let file = format!("filename={}\nrw=read\nsize=64k\n", data.display());
    for (name, job, fio_says) in [
        ("itself", format!("[a]\n{file}wait_for=a\n"), "a job cannot wait for itself"),
        ("unknown", format!("[a]\n{file}wait_for=zz\n"), "waitee job zz unknown"),
        ("later", format!("[b]\n{file}wait_for=a\n[a]\n{file}"), "waitee job a unknown"),
    ] {
        let path = dir.join(format!("{name}.fio"));
        std::fs::write(&path, job).unwrap();
        let fio = Command::new("fio").arg(&path).output().unwrap();
        let text = format!("{}{}", String::from_utf8_lossy(&fio.stdout), String::from_utf8_lossy(&fio.stderr));
        assert!(!fio.status.success() && text.contains(fio_says), "fio, {name}: {text}");
        let sim = Command::new(bin()).args(["run", path.to_str().unwrap(), "--drive", "tiny"]).output().unwrap();
        assert_eq!(sim.status.code(), Some(2), "ssdlab, {name}: {}", stderr(&sim));
        // wait_for is each file's fifth line.
        assert!(
            stderr(&sim).contains(&format!("{name}.fio:5: option 'wait_for'")),
            "ssdlab names the file, line and option ({name}): {}",
            stderr(&sim)
        );
    }
}
