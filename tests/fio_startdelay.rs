//! `startdelay` as fio (Debian's fio 3.33) runs it: a job starts that long after the run began,
//! a range `lo-hi` is drawn per instance, and the delay is not part of the job's runtime. fio
//! itself shows the last two on the same file (its run takes the delay, its job runtime does
//! not); the simulated run's `write_iolog` shows when each job's I/Os began.
//!
//! fio is installed by `.ci/run` (scripts/install-test-deps.sh). Without fio the test fails;
//! outside CI it can be skipped explicitly with SSDLAB_SKIP_FIO=1 (it then says so).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in test code is a failed test

use std::process::Command;

mod common;
use common::{bin, fio_scratch, fio_timed, json_report, stderr};

const JOBS: &str =
    "[global]\nrw=randread\nbs=4k\nsize=1m\n[a]\n[b]\nstartdelay=250ms\n[c]\nstartdelay=100ms-200ms\nnumjobs=2\n";

fn runtimes(json: &[u8]) -> Vec<(String, u64)> {
    let v = json_report(json);
    v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| (j["jobname"].as_str().unwrap().to_string(), j["job_runtime"].as_u64().unwrap()))
        .collect()
}

#[test]
fn jobs_start_after_their_delay_as_in_fio() {
    let Some((dir, data)) = fio_scratch("startdelay", 8 << 20) else { return };
    let with = |extra: String| JOBS.replacen("[global]\n", &format!("[global]\n{extra}"), 1);
    let (fio, wall_ms) = fio_timed(&dir, JOBS, &data);
    assert!(wall_ms >= 250, "fio waited for b's delay: {wall_ms} ms");
    for (job, ms) in runtimes(&fio.stdout) {
        assert!(ms < 100, "fio's {job}: the delay is not runtime ({ms} ms)");
    }

    // Simulated: when each job's first read was issued (µs since the run began).
    let log = dir.join("sim.log");
    std::fs::write(dir.join("s.fio"), with(format!("write_iolog={}\n", log.display()))).unwrap();
    let sim = Command::new(bin())
        .args(["run", dir.join("s.fio").to_str().unwrap(), "--drive", "tiny", "--output-format", "json"])
        .output()
        .unwrap();
    assert!(sim.status.success(), "ssdlab: {}", stderr(&sim));
    for (job, ms) in runtimes(&sim.stdout) {
        assert!(ms < 100, "ssdlab's {job}: the delay is not runtime ({ms} ms)");
    }
    let mut times: Vec<u64> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter_map(|l| match l.split_whitespace().collect::<Vec<_>>().as_slice() {
            [t, _, "read", _, _] => Some(t.parse().unwrap()),
            _ => None,
        })
        .collect();
    times.sort_unstable();
    // A new job's reads begin after a gap (each job runs ~3 ms of reads).
    let mut starts: Vec<u64> = Vec::new();
    for (k, &t) in times.iter().enumerate() {
        if k == 0 || t > times[k - 1] + 5_000 {
            starts.push(t);
        }
    }
    assert_eq!(starts.len(), 4, "a, the two clones of c and b start apart: {starts:?}");
    assert_eq!(starts[0], 0);
    assert!((100_000..=200_000).contains(&starts[1]) && (100_000..=200_000).contains(&starts[2]), "{starts:?}");
    assert!((250_000..251_000).contains(&starts[3]), "b at 250 ms: {starts:?}");
}
