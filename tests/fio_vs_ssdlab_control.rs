//! fio's `latency_target` search and `flow` between jobs: the same job files through real fio
//! (Debian's fio 3.33) and `ssdlab run --target` on one small file, both O_DIRECT. Latencies of a
//! real file differ run to run, so the cases are ones whose outcome does not depend on them: a
//! target every depth meets, one no I/O meets, and the ratio of I/Os that flow weights fix.
//!
//! fio is installed by `.ci/run` (scripts/install-test-deps.sh). Without fio the test fails;
//! outside CI it can be skipped explicitly with SSDLAB_SKIP_FIO=1 (it then says so).
#![allow(clippy::cast_possible_truncation, clippy::unwrap_used)] // a panic in test code is a failed test; casts are of the test's own small values

mod common;

use common::{disk_temp_dir, fio_or_skip, run_fio, run_ssdlab_target, TestDir};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

const FILE_BYTES: u64 = 16 << 20;

/// A fresh working directory with the test file (removed when the test ends).
fn work_dir(name: &str) -> TestDir {
    let d = disk_temp_dir(&format!("fio-vs-control-{name}"));
    std::fs::write(d.join("data.img"), vec![0u8; FILE_BYTES as usize]).unwrap();
    d
}

/// Runs `body` (job sections, `DATA` standing for the file) through fio and ssdlab: their
/// exit codes and job objects.
fn both(dir: &Path, name: &str, body: &str) -> [(i32, Vec<Value>); 2] {
    let data = dir.join("data.img");
    let job = dir.join(format!("{name}.fio"));
    std::fs::write(&job, body.replace("DATA", data.to_str().unwrap())).unwrap();
    let fio = run_fio(&job, &dir.join(format!("{name}.fio.json")), None);
    let ssd = run_ssdlab_target(&job, &data, FILE_BYTES);
    let jobs = |bytes: &[u8], who: &str| -> Vec<Value> {
        let v: Value = serde_json::from_slice(bytes)
            .unwrap_or_else(|e| panic!("{name}: {who} JSON: {e}: {}", String::from_utf8_lossy(bytes)));
        v["jobs"].as_array().unwrap().clone()
    };
    [
        (fio.status.code().unwrap_or(-1), jobs(&fio.stdout, "fio")),
        (ssd.status.code().unwrap_or(-1), jobs(&ssd.stdout, "ssdlab")),
    ]
}

fn latency_keys(j: &Value) -> (u64, u64, f64, u64, u64) {
    (
        j["latency_depth"].as_u64().unwrap(),
        j["latency_target"].as_u64().unwrap(),
        j["latency_percentile"].as_f64().unwrap(),
        j["latency_window"].as_u64().unwrap(),
        j["error"].as_u64().unwrap(),
    )
}

const LAT_JOB: &str = "[j]\nfilename=DATA\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\niodepth=16\nruntime=1\n\
                       time_based\nlatency_window=100ms\n";

#[test]
fn latency_target_search_as_fio() {
    if !fio_or_skip() {
        return;
    }
    let dir = work_dir("lat");
    // Every depth meets 10 s: 1, 2, 4, 8, 16, then one more window at 16 is the report and the
    // job ends long before its runtime.
    for (who, (code, jobs)) in
        ["fio", "ssdlab"].iter().zip(both(&dir, "loose", &format!("{LAT_JOB}latency_target=10s\n")))
    {
        let j = &jobs[0];
        assert_eq!(code, 0, "{who}");
        assert_eq!(latency_keys(j), (16, 10_000_000_000, 100.0, 100_000, 0), "{who}");
        let runtime_ms = j["read"]["runtime"].as_u64().unwrap();
        assert!((90..400).contains(&runtime_ms), "{who}: the final window only: {runtime_ms} ms");
        assert!(j["iodepth_level"]["16"].as_f64().unwrap() > 90.0, "{who}: {}", j["iodepth_level"]);
        // Little's law over the reported window: 16 in flight all along (the search's shallower
        // windows are not in the figures).
        let in_flight = j["read"]["iops"].as_f64().unwrap() * j["read"]["clat_ns"]["mean"].as_f64().unwrap() / 1e9;
        assert!((12.0..17.0).contains(&in_flight), "{who}: iops x mean latency = {in_flight}");
    }
    // No I/O meets 1 us; at percentile 50 the job stays at QD 1 for its whole runtime.
    let tight = format!("{LAT_JOB}latency_target=1us\nlatency_percentile=50\n");
    let [(fc, f), (sc, s)] = both(&dir, "tight", &tight);
    for (who, code, j) in [("fio", fc, &f[0]), ("ssdlab", sc, &s[0])] {
        assert_eq!(code, 0, "{who}");
        assert_eq!(latency_keys(j), (1, 1_000, 50.0, 100_000, 0), "{who}");
        let runtime_ms = j["read"]["runtime"].as_u64().unwrap();
        assert!((990..1100).contains(&runtime_ms), "{who}: {runtime_ms} ms");
        assert_eq!(j["iodepth_level"]["1"].as_f64().unwrap(), 100.0, "{who}");
    }
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<BTreeSet<String>>();
    assert_eq!(keys(&f[0]), keys(&s[0]), "job keys");
    // At fio's default percentile 100, a completion over the target at QD 1 ends the job with
    // ETIMEDOUT (110) and the run exits 1.
    for (who, (code, jobs)) in
        ["fio", "ssdlab"].iter().zip(both(&dir, "fatal", &format!("{LAT_JOB}latency_target=1us\n")))
    {
        let j = &jobs[0];
        assert_eq!(code, 1, "{who}");
        assert_eq!(latency_keys(j), (1, 1_000, 100.0, 100_000, 110), "{who}");
        assert!(j["read"]["total_ios"].as_u64().unwrap() <= 2, "{who}: {}", j["read"]["total_ios"]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn flow_weights_as_fio() {
    if !fio_or_skip() {
        return;
    }
    let dir = work_dir("flow");
    let body = "[global]\nfilename=DATA\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\niodepth=4\nruntime=1\n\
                time_based\nflow_id=1\n[a]\nflow=2\n[b]\nflow=1\n";
    for (who, (code, jobs)) in ["fio", "ssdlab"].iter().zip(both(&dir, "flow", body)) {
        assert_eq!(code, 0, "{who}");
        let ios: Vec<f64> = jobs.iter().map(|j| j["read"]["total_ios"].as_f64().unwrap()).collect();
        // fio's check lets a job run at most one I/O past its weighted share of the flow's
        // counter, and each job has at most iodepth (4) in flight when the run ends: with
        // thousands of I/Os the ratio is 2 within (1 + 4) / n, well inside 1%.
        assert!(ios[1] > 500.0, "{who}: {ios:?}");
        assert!((ios[0] / ios[1] - 2.0).abs() < 0.02, "{who}: {ios:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
