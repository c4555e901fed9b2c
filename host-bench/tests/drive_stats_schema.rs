//! Pins the `"ssdlab"` objects of the JSON report (docs/results.md): their field names and
//! order, and that the report writes exactly the typed structs (`DriveStats`, `RunStats`) and
//! the figures (`job_figures`) that the sweep, calibration, validate and predict read in memory.
#![allow(clippy::expect_used, clippy::unwrap_used)] // a panic in test code is a failed test

use host_bench::job::{parse_str, ParseOptions};
use host_bench::report::{job_figures, FioReportJson, JobFigures};
use host_bench::simrun::{SimConfig, SimSession};
use serde_json::Value;

/// A job's `"ssdlab"` keys, as documented.
const JOB_KEYS: [&str; 30] = [
    "user_capacity_bytes",
    "raw_capacity_bytes",
    "op_pct",
    "power_cap_w",
    "power_state",
    "host_write_bytes",
    "host_read_bytes",
    "nand_write_bytes",
    "gc_write_bytes",
    "rmw_reads",
    "write_amplification",
    "gc_victims",
    "erases",
    "erase_count",
    "free_blocks",
    "gc_stall_s",
    "buffer_stall_s",
    "energy_j",
    "avg_power_w",
    "energy_per_io_uj",
    "peak_power_w",
    "iops_per_w",
    "throttled_s",
    "throttled_pct",
    "governor_held_ops_total",
    "iops_cov_pct",
    "steady_state",
    "span_s",
    "limits",
    "binding_limit",
];

/// The run's top-level `"ssdlab"` keys after the job keys.
const RUN_KEYS: [&str; 10] = [
    "version",
    "drive",
    "profile_source",
    "seed",
    "config",
    "profile",
    "scale",
    "time_scale",
    "interrupted",
    "job_file",
];

const SCALE_KEYS: [&str; 5] =
    ["divisor", "factor", "raw_capacity_bytes_simulated", "user_capacity_bytes_simulated", "note"];

fn keys(v: &Value) -> Vec<String> {
    v.as_object().expect("an object").keys().cloned().collect()
}

fn run() -> (SimSession, host_bench::runner::RunResult) {
    let mut s = SimSession::new(SimConfig::new("tiny", 3)).unwrap();
    let text = "[global]\nbs=4k\niodepth=4\n[w]\nrw=randwrite\nnumber_ios=3000\n\
                [r]\nstonewall\nrw=randread\nnumber_ios=2000\nsteadystate=iops:5%\nss_dur=1\n";
    let job = parse_str(text, "schema.fio", &ParseOptions::default()).unwrap();
    let r = s.run(&job, None, None).unwrap();
    (s, r)
}

#[test]
fn ssdlab_objects_keep_their_documented_names_and_order() {
    let (s, r) = run();
    let v = s.json(&r, false);
    let job_keys: Vec<String> = JOB_KEYS.iter().map(|k| k.to_string()).collect();
    for (jv, jr) in v["jobs"].as_array().unwrap().iter().zip(&r.jobs) {
        let x = &jv["ssdlab"];
        assert_eq!(keys(x), job_keys);
        assert_eq!(keys(&x["erase_count"]), ["min", "avg", "max"]);
        // What the report writes is the typed struct consumers read.
        assert_eq!(x, &serde_json::to_value(s.job_stats(jr)).unwrap());
    }
    let ss = &v["jobs"][1]["ssdlab"]["steady_state"];
    assert_eq!(keys(ss), ["reached", "time_s", "criteria"]);
    let top = &v["ssdlab"];
    let mut want = job_keys.clone();
    want.extend(RUN_KEYS.iter().map(|k| k.to_string()));
    assert_eq!(keys(top), want);
    assert_eq!(keys(&top["scale"]), SCALE_KEYS);
    assert_eq!(top, &serde_json::to_value(s.run_stats(&r)).unwrap());
}

#[test]
fn figures_in_memory_equal_the_report_read_back() {
    let (s, r) = run();
    // From the report's value (not its text, whose float parsing is not this crate's concern).
    let file: FioReportJson = serde_json::from_value(s.json(&r, false)).unwrap();
    let jobs = file.jobs.unwrap();
    assert_eq!(jobs.len(), r.jobs.len());
    for (jf, jr) in jobs.iter().zip(&r.jobs) {
        let read_back = JobFigures::from(jf);
        let mem = job_figures(jr, &r);
        assert_eq!(read_back, mem, "job {}", jr.name);
        let d = if jr.name == "w" { mem.write.unwrap() } else { mem.read.unwrap() };
        assert!(d.iops > 0.0 && d.total_ios > 0.0 && d.percentile_ns(99.0).is_some(), "{d:?}");
    }
    assert!(file.ssdlab.unwrap().config.is_some());
}

#[test]
fn suites_record_the_same_drive_header_as_a_run() {
    use host_bench::suites::{Bench, SimBench};
    let bench = SimBench::new(SimConfig::new("tiny", 3)).unwrap();
    let v = serde_json::to_value(bench.describe()).unwrap();
    let mut want = vec!["target".to_string()];
    want.extend(RUN_KEYS[..8].iter().map(|k| k.to_string()));
    want.extend(["user_capacity_bytes", "op_pct", "time_note"].map(String::from));
    assert_eq!(keys(&v), want);
    assert_eq!(v["target"], "simulated");
    assert_eq!(keys(&v["scale"]), SCALE_KEYS);
    // The header is the run's, field for field.
    let header = serde_json::to_value(bench.session.header()).unwrap();
    for k in keys(&header) {
        assert_eq!(v[&k], header[&k], "{k}");
    }
    let (s, r) = run();
    assert_eq!(v["op_pct"], serde_json::to_value(s.job_stats(&r.jobs[0])).unwrap()["op_pct"]);
}
