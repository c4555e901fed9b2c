//! `ssdlab run --save-drive/--from-drive` and `ssdlab drive precondition` from the command line:
//! a continued run prints the uninterrupted run's job objects, a snapshot of another drive
//! configuration is refused with exit 2 naming the flag, and a preconditioned drive records the
//! SNIA steady-state check.
#![allow(clippy::unwrap_used, clippy::cast_possible_truncation)] // a panic in test code is a failed test; casts of the test's own small values

mod common;
use common::{ssdlab, temp_dir};

const GLOBAL: &str = "[global]\nbs=4k\niodepth=16\n";
const PRE: &str = "[fill]\nrw=write\nbs=128k\nsize=100%\n[pre]\nstonewall\nrw=randwrite\nnumjobs=2\nsize=60%\n";
const POST: &str = "[mix]\nstonewall\nrw=randrw\nrwmixread=70\nsize=30%\n";

fn jobs(path: &std::path::Path) -> Vec<serde_json::Value> {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    v["jobs"].as_array().unwrap().clone()
}

#[test]
fn run_continued_from_a_saved_drive_prints_the_uninterrupted_jobs() {
    let d = temp_dir("snapshot-continued");
    let p = |n: &str| d.join(n).display().to_string();
    std::fs::write(d.join("a.fio"), format!("{GLOBAL}{PRE}")).unwrap();
    std::fs::write(d.join("b.fio"), format!("{GLOBAL}{POST}")).unwrap();
    std::fs::write(d.join("ab.fio"), format!("{GLOBAL}{PRE}{POST}")).unwrap();
    let common = ["--drive", "tiny", "--seed", "9", "--output-format", "json"];
    let o =
        ssdlab(&[&["run", &p("a.fio"), "--save-drive", &p("s.snap"), "--output", &p("a.json")][..], &common].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("drive saved to"));
    let o =
        ssdlab(&[&["run", &p("b.fio"), "--from-drive", &p("s.snap"), "--output", &p("b.json")][..], &common].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = ssdlab(&[&["run", &p("ab.fio"), "--output", &p("ab.json")][..], &common].concat());
    assert!(o.status.success());
    let (b, ab) = (jobs(&d.join("b.json")), jobs(&d.join("ab.json")));
    assert_eq!(b.len(), 1);
    assert_eq!(b[0].to_string(), ab.last().unwrap().to_string());
    // Another capacity: refused before anything runs, exit 2, naming the flag.
    let o = ssdlab(&["run", &p("b.fio"), "--drive", "tiny", "--user-capacity", "70MiB", "--from-drive", &p("s.snap")]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("refused") && err.contains("--user-capacity"), "{err}");
}

#[test]
fn drive_precondition_records_the_steady_state_check() {
    let d = temp_dir("snapshot-drive");
    let snap = d.join("pre.snap").display().to_string();
    let o = ssdlab(&["drive", "precondition", "--drive", "tiny", "--workload", "randwrite-4k", "--out", &snap]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("steady state reached in rounds"), "{out}");
    let meta = host_bench::snapshot::read_meta(std::path::Path::new(&snap)).unwrap();
    let ss = meta.steady_state.unwrap();
    assert!(ss.reached && ss.rounds >= 5 && ss.range_pct.unwrap() <= 20.0 && ss.slope_excursion_pct.unwrap() <= 10.0);
    assert_eq!(ss.round_iops.len(), ss.rounds as usize);
    assert!(meta.drive_writes > 2.0, "fill (2 passes) + rounds: {}", meta.drive_writes);
    let job = d.join("m.fio");
    std::fs::write(&job, format!("{GLOBAL}{POST}")).unwrap();
    let o = ssdlab(&["run", &job.display().to_string(), "--drive", "tiny", "--from-drive", &snap]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = ssdlab(&["drive", "precondition", "--drive", "tiny", "--workload", "zipf", "--out", &snap]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("allowed randwrite-4k, seq-128k"));
}

/// A fill, then concurrent jobs with a random map, a poisson rate, zipf with ramp time, a
/// latency-target search and a sequential reader with holes, then a last group.
const MID: &str = include_str!("../host-bench/tests/data/mid-run.fio");

/// The test's own seeded stream of instants (SplitMix64). They fall in 40-90% of the run, past
/// the fill (about a third of it on both drives), where the random streams are in use.
fn fraction(state: &mut u64) -> f64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
}

#[test]
fn run_saved_at_a_random_instant_and_resumed_prints_the_uninterrupted_report() {
    let d = temp_dir("snapshot-mid-run");
    std::fs::write(d.join("mid.fio"), MID).unwrap();
    let mut stream = 0x5eed_u64;
    for (drive, scale, ps) in [("tiny", "1", "none"), ("solidigm-d7-p5520", "1/8192", "2")] {
        for seed in ["1", "7", "1234"] {
            let mut flags = vec!["run", "mid.fio", "--drive", drive, "--scale", scale, "--seed", seed];
            if ps != "none" {
                flags.extend(["--power-state", ps]);
            }
            let run = |extra: &[&str]| {
                let o = std::process::Command::new(env!("CARGO_BIN_EXE_ssdlab"))
                    .current_dir(&d)
                    .args(&flags)
                    .args(extra)
                    .output()
                    .unwrap();
                assert!(o.status.success(), "{drive} {seed} {extra:?}: {}", String::from_utf8_lossy(&o.stderr));
                o
            };
            let json = ["--output-format", "json+"];
            let whole = run(&[&json[..], &["--output", "whole.json", "--timeseries", "whole.csv"]].concat());
            let text = run(&[]).stdout;
            assert!(whole.stdout.is_empty());
            let v: serde_json::Value = serde_json::from_slice(&std::fs::read(d.join("whole.json")).unwrap()).unwrap();
            let span_s = v["ssdlab"]["span_s"].as_f64().unwrap();
            let at = format!("{}ns", ((0.4 + 0.5 * fraction(&mut stream)) * span_s * 1e9) as u64);
            let o = run(&[&json[..], &["--save-at", &at, "--save-drive", "m.snap", "--output", "saver.json"]].concat());
            assert!(String::from_utf8_lossy(&o.stderr).contains("run saved at"));
            let _ =
                run(&[&json[..], &["--resume-from", "m.snap", "--output", "res.json", "--timeseries", "res.csv"]]
                    .concat());
            let same = |a: &str, b: &str| std::fs::read(d.join(a)).unwrap() == std::fs::read(d.join(b)).unwrap();
            assert!(same("whole.json", "saver.json"), "{drive} {seed}: saving changed the run's report");
            assert!(same("whole.json", "res.json"), "{drive} {seed} saved at {at}: resumed JSON differs");
            for j in ["fill", "mix", "rated", "zipf", "lat", "seq", "tail"] {
                assert!(same(&format!("whole.{j}.csv"), &format!("res.{j}.csv")), "{drive} {seed} at {at}: {j} series");
            }
            let resumed_text = run(&["--resume-from", "m.snap"]).stdout;
            assert!(resumed_text == text, "{drive} {seed} saved at {at}: resumed text report differs");
        }
    }
    // Refused with exit 2, naming what differs: another seed or job file; a mid-run save
    // through --from-drive; a job that writes per-I/O logs.
    // The last save was of the P5520 at 1/8192, PS2, seed 1234.
    let base = ["run", "mid.fio", "--drive", "solidigm-d7-p5520", "--scale", "1/8192"];
    let refused = |extra: &[&str], want: &str| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_ssdlab"))
            .current_dir(&d)
            .args(base)
            .args(extra)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(want), "{extra:?}: {err}");
    };
    let snap = d.join("m.snap").display().to_string();
    let ps2 = ["--power-state", "2", "--resume-from", &snap];
    refused(&[&["--seed", "2"][..], &ps2].concat(), "seed (--seed): snapshot 1234, this run 2");
    refused(&["--seed", "1234", "--resume-from", &snap], "power setting (--power-state/--power-cap)");
    refused(&["--seed", "1234", "--from-drive", &snap], "--resume-from");
    refused(&[&["--seed", "1234", "--op", "20%"][..], &ps2].concat(), "user capacity (--user-capacity/--op)");
    std::fs::write(d.join("mid.fio"), MID.replace("size=10%", "size=11%")).unwrap();
    refused(&[&["--seed", "1234"][..], &ps2].concat(), "job file: snapshot mid.fio");
    std::fs::write(d.join("mid.fio"), MID.replace("[tail]\n", "[tail]\nwrite_iolog=t.log\n")).unwrap();
    refused(&["--save-at", "1ms", "--save-drive", "x.snap"], "per-I/O logs");
}
