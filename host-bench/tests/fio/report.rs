#![allow(clippy::unwrap_used)] // a panic in test code is a failed test
use host_bench::job::{parse_str, ParseOptions};
use host_bench::report::{
    fio_json, fio_json_string, normal_text, series_csv, ExtraColumn, JsonOptions, SERIES_COLUMNS,
};
use host_bench::runner::{run, RunOptions, RunResult};
use serde_json::json;

use crate::mock::MockDevice;

pub fn sample_result(text: &str) -> RunResult {
    let f = parse_str(text, "t.fio", &ParseOptions::default()).unwrap();
    let mut dev = MockDevice::new(1 << 30, 4, 80_000);
    run(&f, &mut dev, &mut RunOptions::new(3)).unwrap()
}

pub const RANDRW: &str = "[global]\nioengine=io_uring\nbs=4k\nsize=16m\nruntime=2\ntime_based\n[randrw]\nrw=randrw\nrwmixread=70\niodepth=4\n";

/// fio's usr_cpu/sys_cpu/ctx come from the device's host usage (real targets), shared among the
/// jobs of a group by their I/Os; a device without one (the simulator) reports zeros.
#[test]
fn host_cpu_fields_follow_the_device_and_split_by_ios() {
    let text =
        "[global]\nbs=4k\nsize=16m\nruntime=2\ntime_based\n[a]\nrw=randread\niodepth=1\n[b]\nrw=randread\niodepth=3\n";
    let f = parse_str(text, "t.fio", &ParseOptions::default()).unwrap();
    let mut dev = MockDevice::new(1 << 30, 4, 80_000);
    dev.cpu_ns_per_io = Some(2_000);
    let v = fio_json(&run(&f, &mut dev, &mut RunOptions::new(3)).unwrap(), &JsonOptions::default());
    let mut ios = Vec::new();
    for job in v["jobs"].as_array().unwrap() {
        let n = job["read"]["total_ios"].as_f64().unwrap();
        let runtime_ns = job["read"]["runtime"].as_f64().unwrap() * 1e6;
        // 2 us of user and 1 us of system time per I/O, as a percentage of the runtime.
        let usr = job["usr_cpu"].as_f64().unwrap();
        assert!((usr / (n * 2_000.0 / runtime_ns * 100.0) - 1.0).abs() < 0.01, "{usr} for {n} I/Os");
        assert!((job["sys_cpu"].as_f64().unwrap() * 2.0 / usr - 1.0).abs() < 0.01);
        assert!((job["ctx"].as_f64().unwrap() / n - 1.0).abs() < 0.01);
        ios.push(n);
    }
    assert!((ios[1] / ios[0] - 3.0).abs() < 0.05, "{ios:?}");
    let sim = fio_json(&sample_result(RANDRW), &JsonOptions::default());
    assert_eq!((&sim["jobs"][0]["usr_cpu"], &sim["jobs"][0]["ctx"]), (&json!(0.0), &json!(0)));
}

#[test]
fn json_is_deterministic_and_extensible() {
    let opts = JsonOptions { plus: true, timestamp_s: 1_700_000_000, version: "0.1.0".into() };
    let a = fio_json_string(&sample_result(RANDRW), &opts);
    let b = fio_json_string(&sample_result(RANDRW), &opts);
    assert_eq!(a, b);
    let mut v = fio_json(&sample_result(RANDRW), &opts);
    assert_eq!(v["fio version"], json!("ssdlab-0.1.0"));
    assert_eq!(v["timestamp"], json!(1_700_000_000u64));
    assert_eq!(v["global options"]["ioengine"], json!("io_uring"));
    assert_eq!(v["ssdlab"]["seed"], json!(3));
    v["ssdlab"]["wa"] = json!(1.5);
    v["jobs"][0]["ssdlab"] = json!({"power_w": 7.0});
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["fio version", "timestamp", "timestamp_ms", "global options", "jobs", "disk_util", "ssdlab"]);
    let job = &v["jobs"][0];
    assert_eq!(job["jobname"], json!("randrw"));
    assert_eq!(job["job options"]["rwmixread"], json!("70"));
    // 4 outstanding on 4 servers of 80 us: 50k IOPS split 70/30.
    let r = job["read"]["iops"].as_f64().unwrap();
    let w = job["write"]["iops"].as_f64().unwrap();
    assert!((r + w - 50_000.0).abs() < 100.0, "{r} {w}");
    assert!((r / (r + w) - 0.7).abs() < 0.01);
    assert_eq!(job["read"]["clat_ns"]["percentile"]["99.000000"], json!(80_000));
    // One latency, so one bin (keyed by its bucket's midpoint) holding every read.
    let bins = job["read"]["clat_ns"]["bins"].as_object().unwrap();
    assert_eq!(bins.len(), 1);
    let (k, n) = bins.iter().next().unwrap();
    assert_eq!(n, &job["read"]["total_ios"]);
    let k: f64 = k.parse().unwrap();
    assert!((k - 80_000.0).abs() <= 80_000.0 / 128.0, "{k}");
    assert_eq!(job["read"]["bw_samples"], json!(2));
    assert_eq!(job["latency_us"]["100"], json!(100.0));
    assert!(job["iodepth_level"]["4"].as_f64().unwrap() > 99.9);
    assert!(job["trim"]["clat_ns"].get("percentile").is_none());
}

#[test]
fn custom_percentile_list_is_used() {
    let v = fio_json(
        &sample_result("[j]\nrw=randread\nruntime=1\ntime_based\npercentile_list=50:99.9\n"),
        &JsonOptions::default(),
    );
    let keys: Vec<&String> = v["jobs"][0]["read"]["clat_ns"]["percentile"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["50.000000", "99.900000"]);
}

#[test]
fn normal_text_has_fio_lines() {
    let t = normal_text(&sample_result(RANDRW));
    assert!(t.starts_with("randrw: (groupid=0, jobs=1): err= 0\n"), "{t}");
    let read = t.lines().find(|l| l.trim_start().starts_with("read: IOPS=")).unwrap();
    // 50k IOPS split 70/30 by the seeded mix: reads are about 35k IOPS of 4 KiB.
    let iops: f64 = read["  read: IOPS=".len()..].split('k').next().unwrap().parse().unwrap();
    assert!((iops - 35.0).abs() < 0.5, "{read}");
    assert!(read.contains("k, BW=13") && read.contains("MiB/s (14") && read.contains("MB/s)("), "{read}");
    assert!(read.ends_with("/2000msec)"), "{read}");
    assert!(t.contains("    clat (usec): min=80, max=80, avg=80.00, stdev=0.00\n"), "{t}");
    assert!(t.contains("     |  1.00th=[   80],  5.00th=[   80], 10.00th=[   80], 20.00th=[   80],\n"), "{t}");
    assert!(t.contains("Run status group 0 (all jobs):\n"));
    // fio 3.33's group lines: the direction right-aligned in 7 columns, no indent.
    assert!(t.contains("\n   READ: bw=137MiB/s"), "{t}");
}

#[test]
fn csv_has_header_rows_and_extra_columns() {
    let r = sample_result(RANDRW);
    let pts = &r.jobs[0].series;
    let wa = [1.0, 1.25];
    let csv =
        series_csv(pts, &[ExtraColumn { name: "wa", values: &wa }, ExtraColumn { name: "power, W", values: &[] }])
            .unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], format!("{},wa,\"power, W\"", SERIES_COLUMNS.join(",")));
    assert_eq!(lines.len(), 1 + pts.len());
    let cells: Vec<&str> = lines[2].split(',').collect();
    assert_eq!(cells.len(), 12);
    assert_eq!((cells[0], cells[10], cells[11]), ("2.000", "1.25", ""));
    let total: f64 = cells[1].parse::<f64>().unwrap() + cells[2].parse::<f64>().unwrap();
    assert!((total - 50_000.0).abs() < 100.0, "{total}");
    assert_eq!(cells[7], "80.00");
}

/// fio's stat.c: a group's bandwidth is its bytes over its longest runtime, and `per=` is a
/// job's mean bandwidth sample over that (not the sum of the jobs' bandwidths).
#[test]
fn group_bandwidth_is_bytes_over_longest_runtime() {
    // 1 outstanding on 4 servers of 80 us: 12.5k IOPS of 4 KiB = 48.8 MiB/s per job.
    let text = "[global]\nbs=4k\nsize=16m\ntime_based\nrw=randread\n[a]\nruntime=1\n[b]\nruntime=2\n";
    let r = sample_result(text);
    let t = normal_text(&r);
    let line = t.lines().find(|l| l.contains("READ: bw=")).unwrap();
    // (1 s + 2 s) x 48.8 MiB/s over 2 s = 73.2 MiB/s; the old sum of bandwidths was 97.7.
    assert!(line.starts_with("   READ: bw=73.2MiB/s (76.8MB/s), 48.8MiB/s-48.8MiB/s"), "{line}");
    assert!(line.ends_with("run=1000-2000msec"), "{line}");
    let v = fio_json(&r, &JsonOptions::default());
    let per = |j: usize| v["jobs"][j]["read"]["bw_agg"].as_f64().unwrap();
    assert!((per(0) - 66.67).abs() < 0.1 && (per(1) - 66.67).abs() < 0.1, "{} {}", per(0), per(1));
}

#[test]
fn unified_rw_reporting_mixed_and_both() {
    let base = "[global]\nbs=4k\nsize=16m\nruntime=1\ntime_based\nrw=randrw\niodepth=4\n";
    let v = fio_json(&sample_result(&format!("{base}[m]\nunified_rw_reporting=mixed\n")), &JsonOptions::default());
    let job = v["jobs"][0].as_object().unwrap();
    assert!(job.contains_key("mixed") && !job.contains_key("read") && !job.contains_key("sync"));
    // 4 outstanding on 4 servers of 80 us: 50k IOPS, reads and writes together.
    let iops = job["mixed"]["iops"].as_f64().unwrap();
    assert!((iops - 50_000.0).abs() < 100.0, "{iops}");
    let t = normal_text(&sample_result(&format!("{base}[m]\nunified_rw_reporting=1\n")));
    assert!(t.contains("  mixed: IOPS=50.0k") && !t.contains("  read: IOPS"), "{t}");
    assert!(t.contains("\n  MIXED: bw=195MiB/s") && !t.contains("READ:"), "{t}");

    let v = fio_json(&sample_result(&format!("{base}[b]\nunified_rw_reporting=both\n")), &JsonOptions::default());
    let job = &v["jobs"][0];
    let keys: Vec<&String> = job.as_object().unwrap().keys().skip(6).take(5).collect();
    assert_eq!(keys, ["read", "write", "trim", "sync", "mixed"]);
    let sum = job["read"]["io_bytes"].as_u64().unwrap() + job["write"]["io_bytes"].as_u64().unwrap();
    assert_eq!(job["mixed"]["io_bytes"].as_u64(), Some(sum));
    let t = normal_text(&sample_result(&format!("{base}[b]\nunified_rw_reporting=both\n")));
    assert!(
        t.contains("\n   READ: bw=") && t.contains("\n  WRITE: bw=") && t.contains("\n  MIXED: bw=195MiB/s"),
        "{t}"
    );
}

#[test]
fn series_file_names_never_collide() {
    use host_bench::report::series_file_names;
    let names = series_file_names(["a", "a", "b c", "a", "a.2", "b_c"]);
    assert_eq!(names, ["a", "a.2", "b_c", "a.3", "a_2", "b_c.2"]);
    let distinct: std::collections::HashSet<&String> = names.iter().collect();
    assert_eq!(distinct.len(), names.len());
}
