//! `ssdlab replay` and `ssdlab trace` end to end: a fio run's iolog converted and replayed
//! issues fio's offsets, sizes and directions; timed mode reports a drive falling behind;
//! --lba-map; bad lines; stats and convert.
//!
//! One case runs fio (Debian's fio 3.33, installed by scripts/install-test-deps.sh); without
//! fio it fails in CI, and outside CI it can be skipped with SSDLAB_SKIP_FIO=1 (it says so).
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::{iolog_ios, temp_dir};

fn bin() -> Command {
    Command::new(common::bin())
}

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("host-bench/tests/data/traces").join(name)
}

fn ok(out: Output) -> Output {
    assert!(out.status.success(), "exit {:?}\nstderr: {}", out.status, String::from_utf8_lossy(&out.stderr));
    out
}

/// Convert a fio iolog with `trace convert`, replay it closed loop, and compare what was issued.
fn convert_and_replay(tdir: &Path, fio_log: &Path, tag: &str) {
    let conv = tdir.join(format!("{tag}.converted.iolog"));
    ok(bin().args(["trace", "convert", "--format", "fio-iolog", "--output"]).arg(&conv).arg(fio_log).output().unwrap());
    let issued = tdir.join(format!("{tag}.issued.iolog"));
    let json = tdir.join(format!("{tag}.json"));
    ok(bin()
        .arg("replay")
        .arg(&conv)
        .args(["--format", "fio-iolog", "--drive", "tiny", "--mode", "closed", "--qd", "4", "--lba-map", "error"])
        .args(["--output-format", "json", "--output"])
        .arg(&json)
        .arg("--write-iolog")
        .arg(&issued)
        .output()
        .unwrap());
    let want = iolog_ios(fio_log);
    assert!(want.len() >= 20, "{}: {} I/Os", fio_log.display(), want.len());
    assert_eq!(iolog_ios(&conv), want, "converted");
    assert_eq!(iolog_ios(&issued), want, "issued by the replay");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let job = &v["jobs"][0];
    let ios = job["read"]["total_ios"].as_u64().unwrap() + job["write"]["total_ios"].as_u64().unwrap();
    assert_eq!(ios, want.len() as u64);
    assert_eq!(v["ssdlab"]["replay"]["stats"]["records_issued"].as_u64(), Some(want.len() as u64));
}

#[test]
fn fio_iolog_fixture_replays_as_fio_issued_it() {
    let tdir = temp_dir("replay-fio-iolog-fixture-replays-as-f");
    // Written by fio 3.33 from host-bench/tests/data/traces/fio-3.33-randrw.fio.
    convert_and_replay(&tdir, &data("fio-3.33-randrw.iolog"), "fixture");
}

#[test]
fn live_fio_run_replays_as_fio_issued_it() {
    let tdir = temp_dir("replay-live-fio-run-replays-as-fio-is");
    if !common::fio_or_skip() {
        return;
    }
    let file = tdir.join("fio-data.bin");
    let log = tdir.join("fio-live.iolog");
    ok(Command::new("fio")
        .args(["--name=live", "--size=4m", "--rw=randrw", "--bsrange=4k-32k", "--ioengine=psync", "--number_ios=64"])
        .arg(format!("--filename={}", file.display()))
        .arg(format!("--write_iolog={}", log.display()))
        .arg("--output=/dev/null")
        .output()
        .unwrap());
    convert_and_replay(&tdir, &log, "live");
}

/// A synthetic Alibaba trace: `n` 4 KiB writes `gap_us` apart.
fn alibaba_trace(tdir: &Path, name: &str, n: u64, gap_us: u64, stride: u64) -> PathBuf {
    let p = tdir.join(name);
    let text: String = (0..n).map(|i| format!("1,W,{},4096,{}\n", i * stride, 1_000_000 + i * gap_us)).collect();
    std::fs::write(&p, text).unwrap();
    p
}

fn replay_json(trace: &Path, format: &str, extra: &[&str]) -> Value {
    let out = ok(bin()
        .arg("replay")
        .arg(trace)
        .args(["--format", format, "--drive", "tiny", "--output-format", "json"])
        .args(extra)
        .output()
        .unwrap());
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn timed_mode_counts_a_drive_falling_behind() {
    let tdir = temp_dir("replay-timed-mode-counts-a-drive-fall");
    // 1 us apart at QD1: a 4 KiB write takes longer, so nearly every record is late.
    let fast = alibaba_trace(&tdir, "fast.csv", 200, 1, 4096);
    let v = replay_json(&fast, "alibaba", &["--mode", "timed", "--qd", "1"]);
    let st = &v["ssdlab"]["replay"]["stats"];
    assert!(st["late"].as_u64().unwrap() >= 150, "{st}");
    assert!(st["late_max_us"].as_f64().unwrap() > 10.0, "{st}");
    // 10 ms apart: every record on time, and the run spans the trace (199 gaps).
    let slow = alibaba_trace(&tdir, "slow.csv", 200, 10_000, 4096);
    let v = replay_json(&slow, "alibaba", &["--mode", "timed", "--qd", "1"]);
    assert_eq!(v["ssdlab"]["replay"]["stats"]["late"].as_u64(), Some(0));
    let runtime_ms = v["jobs"][0]["write"]["runtime"].as_u64().unwrap();
    assert!((1990..=2000).contains(&runtime_ms), "runtime {runtime_ms} ms");
    // --time-scale 0.1 replays it ten times as fast.
    let v = replay_json(&slow, "alibaba", &["--mode", "timed", "--qd", "1", "--time-scale", "0.1"]);
    let runtime_ms = v["jobs"][0]["write"]["runtime"].as_u64().unwrap();
    assert!((199..=200).contains(&runtime_ms), "runtime {runtime_ms} ms");
}

#[test]
fn lba_map_wrap_scale_and_error() {
    let tdir = temp_dir("replay-lba-map-wrap-scale-and-error");
    // tiny has ~84 MB: offsets up to 1 GiB.
    let t = alibaba_trace(&tdir, "wide.csv", 64, 10, 16 << 20);
    let err = bin()
        .arg("replay")
        .arg(&t)
        .args(["--format", "alibaba", "--drive", "tiny", "--lba-map", "error"])
        .output()
        .unwrap();
    assert!(!err.status.success());
    let msg = String::from_utf8_lossy(&err.stderr);
    assert!(msg.contains("wide.csv:") && msg.contains("--lba-map"), "{msg}");
    for map in ["wrap", "scale"] {
        let log = tdir.join(format!("wide.{map}.iolog"));
        let v = replay_json(&t, "alibaba", &["--lba-map", map, "--write-iolog", log.to_str().unwrap()]);
        let cap = v["ssdlab"]["scale"]["user_capacity_bytes_simulated"].as_u64().unwrap();
        let ios = iolog_ios(&log);
        assert_eq!(ios.len(), 64);
        assert!(ios.iter().all(|(_, off, len)| off + len <= cap), "{map}");
        if map == "wrap" {
            // Offset modulo the capacity (4 KiB aligned, as every offset here is).
            for (i, (_, off, _)) in ios.iter().enumerate() {
                assert_eq!(*off, (i as u64 * (16 << 20)) % cap, "record {i}");
            }
        }
        if map == "scale" {
            // Scaled offsets keep their order.
            assert!(ios.windows(2).all(|w| w[0].1 <= w[1].1), "{ios:?}");
        }
    }
}

#[test]
fn bad_lines_are_reported_and_strict_is_fatal() {
    let out = ok(bin()
        .arg("replay")
        .arg(data("msr.csv"))
        .args(["--format", "msr", "--drive", "tiny", "--mode", "closed"])
        .output()
        .unwrap());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("msr.csv:3:"), "{err}");
    let out = bin()
        .arg("replay")
        .arg(data("msr.csv"))
        .args(["--format", "msr", "--drive", "tiny", "--strict"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let out = bin().arg("replay").arg(data("msr.csv")).args(["--format", "nosuch"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn trace_stats_reports_mix_footprint_and_rewrites() {
    let tdir = temp_dir("replay-trace-stats-reports-mix-footpr");
    // 100 writes over 10 distinct 4 KiB units in turn: each rewrite comes 10 units later.
    let p = tdir.join("rewrites.csv");
    let text: String = (0..100u64).map(|i| format!("1,W,{},4096,{}\n", (i % 10) * 4096, i * 1000)).collect();
    std::fs::write(&p, text).unwrap();
    let json = tdir.join("rewrites.stats.json");
    let svg = tdir.join("rewrites.svg");
    let out = ok(bin()
        .args(["trace", "stats", "--format", "alibaba", "--interval", "0.01", "--json"])
        .arg(&json)
        .arg("--plot")
        .arg(&svg)
        .arg(&p)
        .output()
        .unwrap());
    assert!(String::from_utf8_lossy(&out.stdout).contains("footprint"));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["write"]["ios"].as_u64(), Some(100));
    assert_eq!(v["write_footprint_bytes"].as_u64(), Some(40960));
    assert_eq!(v["overwrite_pct"].as_f64(), Some(90.0));
    let d = v["rewrite_distance_gib"]["p50"].as_f64().unwrap() * (1u64 << 30) as f64;
    assert!((d - 40960.0).abs() < 40960.0 * 0.05, "re-write distance {d} bytes");
    assert_eq!(v["iops"].as_array().unwrap().len(), 10);
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
}

#[test]
fn replays_on_a_real_file_target() {
    let tdir = temp_dir("replay-replays-on-a-real-file-target");
    let target = tdir.join("target.img");
    let issued = tdir.join("target.issued.iolog");
    let fixture = data("fio-3.33-randrw.iolog");
    let out = ok(bin()
        .arg("replay")
        .arg(&fixture)
        .args(["--format", "fio-iolog", "--mode", "timed", "--time-scale", "0.01", "--output-format", "json"])
        .arg("--target")
        .arg(&target)
        .arg("--write-iolog")
        .arg(&issued)
        .output()
        .unwrap());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["ssdlab"]["replay"]["stats"]["records_issued"].as_u64(), Some(40));
    assert_eq!(iolog_ios(&issued), iolog_ios(&fixture));
    // The new file was sized to the trace's highest offset.
    let len = std::fs::metadata(&target).unwrap().len();
    assert!((8_000_000..=8 << 20).contains(&len), "{len}");
}

#[test]
fn precondition_makes_reads_find_data() {
    let tdir = temp_dir("replay-precondition-makes-reads-find-");
    // Reads only: on a fresh drive they hit unmapped blocks (no NAND access).
    let p = tdir.join("reads.csv");
    let text: String = (0..200u64).map(|i| format!("1,R,{},4096,{}\n", i * 65536, i * 100)).collect();
    std::fs::write(&p, text).unwrap();
    let mean = |v: &Value| v["jobs"][0]["read"]["clat_ns"]["mean"].as_f64().unwrap();
    let fresh = replay_json(&p, "alibaba", &["--mode", "closed", "--qd", "1"]);
    let filled = replay_json(&p, "alibaba", &["--mode", "closed", "--qd", "1", "--precondition", "1"]);
    assert!(mean(&filled) > 2.0 * mean(&fresh), "fresh {} ns, filled {} ns", mean(&fresh), mean(&filled));
    // The fill is not part of the replay's counters.
    assert_eq!(filled["ssdlab"]["host_write_bytes"].as_u64(), Some(0));
}
