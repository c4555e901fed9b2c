//! `ssdlab run --save-drive/--from-drive` and `ssdlab drive precondition` from the command line:
//! a continued run prints the uninterrupted run's job objects, a snapshot of another drive
//! configuration is refused with exit 2 naming the flag, and a preconditioned drive records the
//! SNIA steady-state check.
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

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
