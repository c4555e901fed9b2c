//! `thinktime` as real fio (Debian's fio 3.33) runs it: after every `thinktime_blocks` I/Os the
//! job drains its queue and pauses, the pause after the last I/O included. On the same file,
//! fio and `ssdlab run --target` do the same I/Os in about the same time (the pauses dominate);
//! on a simulated drive the runtime is the pauses plus the I/Os' latencies, to the millisecond.
//!
//! fio is installed by `.ci/run` (scripts/install-test-deps.sh). Without fio the test fails;
//! outside CI it can be skipped explicitly with SSDLAB_SKIP_FIO=1 (it then says so).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::cast_precision_loss)] // test code

use serde_json::Value;
use std::process::Command;

mod common;
use common::{bin, fio_scratch, json_report, stderr};

/// 64 reads, a 5 ms pause after every 8: 8 pauses, 40 ms.
const JOB: &str = "[t]\nioengine=psync\ndirect=1\nrw=randread\nbs=4k\nsize=256k\nthinktime=5000\nthinktime_blocks=8\n";

fn job_of(stdout: &[u8]) -> Value {
    json_report(stdout)["jobs"][0].clone()
}

#[test]
fn thinktime_pauses_as_fio_pauses() {
    let Some((dir, data)) = fio_scratch("thinktime", 4 << 20) else { return };
    std::fs::write(dir.join("t.fio"), format!("{JOB}filename={}\n", data.display())).unwrap();
    let fio = Command::new("fio").args(["--output-format=json", dir.join("t.fio").to_str().unwrap()]).output().unwrap();
    assert!(fio.status.success(), "fio: {}", String::from_utf8_lossy(&fio.stderr));
    let ssd = Command::new(bin())
        .args(["run", dir.join("t.fio").to_str().unwrap(), "--target", data.to_str().unwrap()])
        .args(["--output-format", "json"])
        .output()
        .unwrap();
    assert!(ssd.status.success(), "ssdlab: {}", stderr(&ssd));
    let (f, s) = (job_of(&fio.stdout), job_of(&ssd.stdout));
    assert_eq!(s["read"]["total_ios"], f["read"]["total_ios"]);
    let (fr, sr) = (f["job_runtime"].as_f64().unwrap(), s["job_runtime"].as_f64().unwrap());
    assert!(fr >= 40.0 && sr >= 40.0, "both pause 8 x 5 ms: fio {fr} ms, ssdlab {sr} ms");
    assert!((sr - fr).abs() <= 0.25 * fr, "fio {fr} ms, ssdlab {sr} ms");

    // Simulated: 8 pauses of 5 ms plus 64 read latencies.
    let sim = Command::new(bin())
        .args(["run", dir.join("t.fio").to_str().unwrap(), "--drive", "tiny", "--output-format", "json"])
        .output()
        .unwrap();
    assert!(sim.status.success(), "ssdlab sim: {}", stderr(&sim));
    let j = job_of(&sim.stdout);
    let lat_ms = j["read"]["clat_ns"]["mean"].as_f64().unwrap() * 64.0 / 1e6;
    let runtime = j["job_runtime"].as_f64().unwrap();
    assert!((runtime - (40.0 + lat_ms)).abs() <= 1.0, "runtime {runtime} ms, pauses 40 ms + I/O {lat_ms:.2} ms");
}
