//! fio's `latency_target` search on the simulated drive follows the drive's physics: past the
//! knee a queue of Q sees about Q / IOPS_max (Little's law), so the depth found grows in
//! proportion to the target, and a drive whose reads take twice as long (half the saturated
//! IOPS) settles at about half the depth for the same target.
#![allow(clippy::expect_used, clippy::unwrap_used)] // a panic in test code is a failed test

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("sim-latency-target-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A 32 MiB region written sequentially, then random 4 KiB reads over it (`read` options).
fn run(dir: &Path, drive: &str, read: &str) -> Value {
    let job = dir.join("job.fio");
    std::fs::write(
        &job,
        format!(
            "[fill]\nrw=write\nbs=128k\niodepth=8\nsize=32m\n[read]\nstonewall\nrw=randread\nbs=4k\nsize=32m\n\
             iodepth=64\nruntime=10\ntime_based\n{read}\n"
        ),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(["run", job.to_str().unwrap(), "--drive", drive, "--output-format", "json"])
        .output()
        .expect("run ssdlab");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["jobs"][1].clone()
}

#[test]
fn the_depth_found_follows_littles_law() {
    let dir = dir();
    let tiny = Command::new(env!("CARGO_BIN_EXE_ssdlab")).args(["drive", "show", "tiny"]).output().unwrap();
    let text = String::from_utf8(tiny.stdout).unwrap();
    assert!(text.contains("t_r_us = [50.0]"), "tiny's read time changed: update this test");
    let slow = dir.join("slow.toml");
    std::fs::write(&slow, text.replace("t_r_us = [50.0]", "t_r_us = [100.0]").replace("\"tiny\"", "\"tiny-slow\""))
        .unwrap();
    let slow = slow.to_str().unwrap().to_string();
    let saturated = |drive: &str| run(&dir, drive, "")["read"]["iops"].as_f64().unwrap();
    let iops_ratio = saturated(&slow) / saturated("tiny");
    assert!((0.45..0.6).contains(&iops_ratio), "twice the read time, about half the IOPS: {iops_ratio}");

    let mut fast_depths = Vec::new();
    for target_us in [200u64, 400, 800] {
        let read = format!("latency_target={target_us}us\nlatency_window=200ms\nlatency_percentile=99");
        let (f, s) = (run(&dir, "tiny", &read), run(&dir, &slow, &read));
        let depth = |j: &Value| j["latency_depth"].as_u64().unwrap();
        let (df, ds) = (depth(&f), depth(&s));
        for (name, j) in [("tiny", &f), ("slow", &s)] {
            // The report is the final window at the depth found: it met the target.
            let p99 = j["read"]["clat_ns"]["percentile"]["99.000000"].as_u64().unwrap();
            assert!(p99 <= target_us * 1000, "{name} at {target_us} us: p99 {p99} ns at QD {}", depth(j));
            assert_eq!(j["latency_target"].as_u64(), Some(target_us * 1000));
        }
        let expected = df as f64 * iops_ratio;
        assert!((ds as f64 - expected).abs() <= 1.0, "{target_us} us: slow QD {ds}, tiny QD {df} x {iops_ratio:.2}");
        fast_depths.push(df);
    }
    // Twice the target, twice the depth (within fio's bisection, one step).
    for w in fast_depths.windows(2) {
        assert!((w[1] as i64 - 2 * w[0] as i64).abs() <= 1, "{fast_depths:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
