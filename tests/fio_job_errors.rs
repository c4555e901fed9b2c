//! Jobs that fio ends with an error, as real fio (Debian's fio 3.33) ends them: `rate_min` /
//! `rate_iops_min` checked over `rate_cycle` after fio's 2 s settle (EIO), and `max_latency`
//! (ETIMEDOUT); fio refuses the same contradictory rate options. fio runs with the null engine
//! (no device), paced by `thinktime` to ~100 I/Os per second, which the simulated drive
//! (`tiny`, unscaled) reproduces: a 10 ms pause after every I/O.
//!
//! fio is installed by `.ci/run` (scripts/install-test-deps.sh). Without fio the test fails;
//! outside CI it can be skipped explicitly with SSDLAB_SKIP_FIO=1 (it then says so).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::cast_precision_loss)] // test code

use serde_json::Value;

mod common;
use common::{fio_or_skip, json_report, run_fio, ssdlab, stderr, temp_dir};

/// ~100 reads per second (a 10 ms pause after each), so ~400 KiB/s.
const PACED: &str = "ioengine=null\nsize=1g\nbs=4k\nrw=randread\nthinktime=10ms\ntime_based\n";

/// (error, job_runtime ms, read I/Os, exit success) of fio and of ssdlab on `tiny` for `job`.
fn both(name: &str, job: &str) -> [(u64, f64, f64, bool); 2] {
    let dir = temp_dir(name);
    let path = dir.join(format!("{name}.fio"));
    std::fs::write(&path, job).unwrap();
    let fio = run_fio(&path, &dir.join("fio.json"), None);
    let sim = ssdlab(&["run", path.to_str().unwrap(), "--drive", "tiny", "--output-format", "json"]);
    [(fio, "fio"), (sim, "ssdlab")].map(|(out, who)| {
        let j = &json_report(&out.stdout)["jobs"][0];
        assert!(j.is_object(), "{who}: no report: {}", stderr(&out));
        (
            num(j, "error"),
            j["job_runtime"].as_f64().unwrap(),
            j["read"]["total_ios"].as_f64().unwrap(),
            out.status.success(),
        )
    })
}

fn num(j: &Value, key: &str) -> u64 {
    j[key].as_u64().unwrap_or_else(|| panic!("{key} in {j}"))
}

#[test]
fn rate_min_ends_the_job_with_eio_as_fio_does() {
    if !fio_or_skip() {
        return;
    }
    // 2 s settle, a baseline, then 1 s later the rate (~400 KiB/s) is below 1 MiB/s: ~3 s.
    let [f, s] = both("ratemin", &format!("[j]\n{PACED}runtime=6\nratemin=1m\n"));
    assert_eq!((f.0, s.0), (5, 5), "fio {f:?}, ssdlab {s:?}");
    assert!(!f.3 && !s.3, "both exit with an error: fio {f:?}, ssdlab {s:?}");
    assert!((2990.0..3100.0).contains(&f.1), "fio ends after ~3 s: {f:?}");
    assert!((s.1 - f.1).abs() <= 0.02 * f.1, "runtime: fio {f:?}, ssdlab {s:?}");
    // fio's 10 ms think times overshoot on a busy machine (292 reads against 297 on a quiet
    // one, with other work on both cores), ssdlab's are exact.
    assert!((s.2 - f.2).abs() <= 0.05 * f.2, "reads: fio {f:?}, ssdlab {s:?}");

    // In I/Os with a 500 ms cycle: ~98 IOPS is below 150 at 2.5 s.
    let [f, s] = both("iopsmin", &format!("[j]\n{PACED}runtime=6\nrate_iops_min=150\nratecycle=500\n"));
    assert_eq!((f.0, s.0), (5, 5), "fio {f:?}, ssdlab {s:?}");
    assert!((2490.0..2600.0).contains(&f.1), "fio ends after ~2.5 s: {f:?}");
    assert!((s.1 - f.1).abs() <= 0.02 * f.1, "runtime: fio {f:?}, ssdlab {s:?}");

    // A minimum the job meets: it runs to its end without an error.
    let [f, s] = both("ratemet", &format!("[j]\n{PACED}runtime=3\nratemin=100k\n"));
    assert_eq!((f.0, s.0), (0, 0), "fio {f:?}, ssdlab {s:?}");
    assert!(f.3 && s.3, "both succeed: fio {f:?}, ssdlab {s:?}");
    assert!(s.1 >= 3000.0 && f.1 >= 3000.0, "both run 3 s: fio {f:?}, ssdlab {s:?}");
}

#[test]
fn contradictory_rate_options_are_refused_as_fio_refuses_them() {
    if !fio_or_skip() {
        return;
    }
    let dir = temp_dir("ratebad");
    let cases = [
        ("rate=1m\nrate_iops=10\n", "option 'rate'"),
        ("ratemin=1m\nrate_iops_min=3\n", "option 'rate_min'"),
        ("rw=randrw\nrate=1m,2m\nratemin=512k,3m\n", "option 'rate_min' = 3145728 exceeds the write rate limit"),
        ("rate_iops=100\nrate_iops_min=200\n", "option 'rate_iops_min' = 200 exceeds the read rate limit"),
    ];
    for (i, (opts, said)) in cases.into_iter().enumerate() {
        let path = dir.join(format!("bad{i}.fio"));
        std::fs::write(&path, format!("[j]\nioengine=null\nsize=1m\nrw=randread\n{opts}")).unwrap();
        let fio = run_fio(&path, &dir.join(format!("bad{i}.json")), None);
        assert!(!fio.status.success(), "fio accepted {opts:?}");
        let sim = ssdlab(&["run", path.to_str().unwrap(), "--drive", "tiny"]);
        assert_eq!(sim.status.code(), Some(2), "ssdlab on {opts:?}: {}", stderr(&sim));
        assert!(stderr(&sim).contains(said), "{opts:?}: {}", stderr(&sim));
    }
    // fio takes a per-direction max_latency; so does ssdlab.
    let ok = dir.join("maxlat.fio");
    std::fs::write(&ok, "[j]\nioengine=null\nsize=1m\nrw=randread\nmax_latency=10ms,20ms\n").unwrap();
    let fio = std::process::Command::new("fio").arg("--parse-only").arg(&ok).output().unwrap();
    assert!(fio.status.success(), "fio: {}", String::from_utf8_lossy(&fio.stderr));
    assert!(ssdlab(&["run", ok.to_str().unwrap(), "--drive", "tiny"]).status.success());
}

/// `max_latency` on the simulated drive: random writes at QD 32 on `tiny` take ~160 us each
/// (the write buffer full), so 200 us is exceeded within the first milliseconds and 20 ms never.
#[test]
fn max_latency_ends_the_job_with_etimedout() {
    let dir = temp_dir("maxlat");
    let run = |max: &str| {
        let path = dir.join(format!("ml{max}.fio"));
        std::fs::write(&path, format!("[j]\nrw=randwrite\nbs=4k\niodepth=32\nsize=100%\nmax_latency={max}\n")).unwrap();
        let out = ssdlab(&["run", path.to_str().unwrap(), "--drive", "tiny", "--output-format", "json"]);
        let j = json_report(&out.stdout)["jobs"][0].clone();
        (out, j)
    };
    let (out, j) = run("200");
    assert_eq!(num(&j, "error"), 110, "{}", stderr(&out));
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("exceeds specified max (200000 nsec)"), "{}", stderr(&out));
    let lat_max = j["write"]["clat_ns"]["max"].as_u64().unwrap();
    assert!(lat_max > 200_000, "the job saw the late completion: max {lat_max} ns");
    let (out, full) = run("20ms");
    assert_eq!(num(&full, "error"), 0, "{}", stderr(&out));
    assert!(out.status.success());
    let (stopped, whole) = (num(&j["write"], "io_bytes"), num(&full["write"], "io_bytes"));
    assert!(stopped * 4 < whole, "the failing job stopped early: {stopped} of {whole} bytes");
}

/// On a scaled drive the settle and the cycle are job time, scaled like runtime, and the rate is
/// per device second (the full-size drive's): a fresh generic-tlc does far more than 1,000 and
/// far fewer than 10 million random writes per second at QD 1.
#[test]
fn min_rate_on_a_scaled_drive_uses_scaled_job_time() {
    let dir = temp_dir("ratescaled");
    let run = |min: u64| {
        let path = dir.join(format!("m{min}.fio"));
        std::fs::write(&path, format!("[j]\nrw=randwrite\nbs=4k\ntime_based\nruntime=6\nrate_iops_min={min}\n"))
            .unwrap();
        let out = ssdlab(&["run", path.to_str().unwrap(), "--drive", "generic-tlc", "--output-format", "json"]);
        let j = json_report(&out.stdout)["jobs"][0].clone();
        (out, j)
    };
    let (out, miss) = run(10_000_000);
    assert_eq!(num(&miss, "error"), 5, "{}", stderr(&out));
    let (out, met) = run(1000);
    assert_eq!(num(&met, "error"), 0, "{}", stderr(&out));
    // Device ms: the miss comes at ~3 s of job time, half of the 6 s the other job runs.
    let (t_miss, t_met) = (miss["job_runtime"].as_f64().unwrap(), met["job_runtime"].as_f64().unwrap());
    let ratio = t_miss / t_met;
    assert!((0.45..0.56).contains(&ratio), "ended at {t_miss} of {t_met} device ms ({ratio:.3})");
    assert!(t_met < 100.0, "the 6 s job ran scaled: {t_met} device ms");
}
