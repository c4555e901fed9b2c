//! A run saved at a random instant in the middle of a job (`run --save-at`), written to a file,
//! loaded by a new session and continued (`--resume-from`) reports byte for byte what the
//! uninterrupted run reports: the fio JSON with every `"ssdlab"` object, the text report and
//! each job's time series. Three seeds on two drives; the instant is drawn from a seeded stream.
//! Also: saving does not change the saving run's own report, and a save is refused for another
//! job file, seed or power setting, and by `--from-drive`.

#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use host_bench::job::{parse_str, JobFile, ParseOptions};
use host_bench::report::normal_text;
use host_bench::runner::{RunOutcome, RunResult};
use host_bench::simrun::{SimConfig, SimSession};
use nand_model::rng::{RngStreams, StreamId};
use rand::Rng;
use std::path::PathBuf;

/// A toy drive uncapped, and a P5520 cut down and capped at PS2 (the governor holds operations).
const DRIVES: [(&str, u32, Option<usize>); 2] = [("tiny", 1, None), ("solidigm-d7-p5520", 8192, Some(2))];
const SEEDS: [u64; 3] = [1, 7, 1234];

/// A fill, then a group of concurrent jobs covering the runner's state: a random map
/// (randrw, 2 clones reported as a group), a poisson rate schedule with its own stream, a
/// zipf read with ramp time, a latency-target search and a sequential reader with holes.
/// (host-bench/tests/data/mid-run.fio; `tests/cli_snapshot.rs` runs it through the binary.)
const JOB: &str = include_str!("data/mid-run.fio");

/// A fresh temporary directory, removed with what the test wrote there when dropped.
struct TempDir(tempfile::TempDir);

impl TempDir {
    fn new(test: &str) -> TempDir {
        TempDir(tempfile::Builder::new().prefix(&format!("ssdlab-midrun-{test}-")).tempdir().unwrap())
    }

    fn join(&self, name: impl AsRef<std::path::Path>) -> PathBuf {
        self.0.path().join(name)
    }
}

fn cfg(drive: &str, scale: u32, ps: Option<usize>, seed: u64) -> SimConfig {
    let mut c = SimConfig::new(drive, seed);
    c.scale_divisor = Some(scale);
    c.power_state = ps;
    c.interval_ns = 20_000_000;
    c
}

fn job(text: &str) -> JobFile {
    parse_str(text, "mid.fio", &ParseOptions::default()).unwrap()
}

/// Everything a run prints or writes: JSON+, the text report, each job's time series.
fn outputs(s: &SimSession, r: &RunResult) -> Vec<String> {
    let mut v = vec![s.json(r, true).to_string()];
    v.push(normal_text(r));
    v.extend(r.jobs.iter().map(|j| s.timeseries_csv(j).unwrap()));
    v
}

#[test]
fn a_run_saved_mid_job_and_resumed_reports_the_uninterrupted_run_byte_for_byte() {
    let dir = TempDir::new("resume");
    let file = job(JOB);
    for (drive, scale, ps) in DRIVES {
        for seed in SEEDS {
            let c = cfg(drive, scale, ps, seed);
            let mut one = SimSession::new(c.clone()).unwrap();
            let whole = one.run(&file, None, None).unwrap();
            let want = outputs(&one, &whole);
            // A job past the fill, and an instant inside its span, from a seeded stream.
            let mut rng = RngStreams::new(seed).stream(StreamId::Host, 999);
            let j = &whole.jobs[rng.gen_range(1..whole.jobs.len())];
            let at = rng.gen_range(j.start_ns..j.end_ns) - whole.start_ns;
            let mut s = SimSession::new(c.clone()).unwrap();
            let RunOutcome::Paused(paused) = s.run_until(&file, at, None, None).unwrap() else {
                panic!("{drive} seed {seed}: the run ended before {at} ns");
            };
            assert!(paused.at_ns - paused.start_ns >= at, "paused before the instant");
            let path = dir.join(format!("{drive}-{seed}.snap"));
            s.save_mid_run(&file, at, &paused, "test".into(), &path).unwrap();
            // The saving run goes on, unchanged by the save.
            let saver = s.continue_run(&file, *paused, None, None).unwrap();
            assert!(outputs(&s, &saver) == want, "{drive} seed {seed}: the saving run's own report changed");
            let (mut r, paused, _) = SimSession::resume_from(c.clone(), &path, &file).unwrap();
            let resumed = r.continue_run(&file, paused, None, None).unwrap();
            let got = outputs(&r, &resumed);
            for (k, (a, b)) in got.iter().zip(&want).enumerate() {
                assert!(a == b, "{drive} seed {seed}, saved at {at} ns in job '{}': output {k} differs", j.name);
            }
            assert_eq!(got.len(), want.len());
            eprintln!("{drive} seed {seed}: saved at {at} ns in job '{}', resumed byte-identical", j.name);
        }
    }
}

#[test]
fn a_mid_run_save_continues_only_the_run_it_was_taken_from() {
    let dir = TempDir::new("refuse");
    let file = job(JOB);
    let c = cfg("tiny", 1, None, 3);
    let mut s = SimSession::new(c.clone()).unwrap();
    let RunOutcome::Paused(paused) = s.run_until(&file, 5_000_000, None, None).unwrap() else {
        panic!("the run ended before 5 ms");
    };
    let path = dir.join("refuse.snap");
    s.save_mid_run(&file, 5_000_000, &paused, "test".into(), &path).unwrap();
    let refused = |c: SimConfig, f: &JobFile| match SimSession::resume_from(c, &path, f) {
        Err(e) => (e.is_bad_input(), e.to_string()),
        Ok(_) => panic!("resumed with another configuration"),
    };
    let other = job(&JOB.replace("size=30%", "size=31%"));
    let (bad, msg) = refused(c.clone(), &other);
    assert!(bad && msg.contains("job file: snapshot mid.fio"), "{msg}");
    let (bad, msg) = refused(cfg("tiny", 1, None, 4), &file);
    assert!(bad && msg.contains("seed (--seed): snapshot 3, this run 4"), "{msg}");
    let (bad, msg) = refused(cfg("tiny", 1, Some(1), 3), &file);
    assert!(bad && msg.contains("power setting"), "{msg}");
    let (bad, msg) = refused(cfg("tiny", 2, None, 3), &file);
    assert!(bad && msg.contains("scale (--scale): snapshot 1/1, this run 1/2"), "{msg}");
    let msg = match SimSession::from_snapshot(c.clone(), &path) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("--from-drive loaded a mid-run save"),
    };
    assert!(msg.contains("--resume-from"), "{msg}");
    // And the other way: a drive saved after a whole run is no mid-run save.
    let whole = dir.join("whole.snap");
    SimSession::new(c.clone()).unwrap().freeze("test".into(), None).write(&whole).unwrap();
    let msg = match SimSession::resume_from(c, &whole, &file) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("resumed a drive saved after a whole run"),
    };
    assert!(msg.contains("--from-drive"), "{msg}");
}
