//! fio's `randrepeat`: with 1 (the default) every run of a job replays the same offsets, as fio
//! does across invocations; with 0 each run of a session draws new ones, and the whole session
//! still repeats from its seed.
#![allow(clippy::expect_used)] // a panic in test code is a failed test

use host_bench::job::{parse_str, ParseOptions};
use host_bench::runner::SubmittedIo;
use host_bench::simrun::{SimConfig, SimSession};

fn job(randrepeat: u8) -> String {
    format!("[w]\nrw=randwrite\nbs=4k\nnumber_ios=2000\nnorandommap=1\nrandrepeat={randrepeat}\n")
}

/// Offsets of each of `runs` runs of `text` in one session.
fn offsets_per_run(text: &str, runs: usize, seed: u64) -> Vec<Vec<u64>> {
    let mut s = SimSession::new(SimConfig::new("tiny", seed)).expect("tiny builds");
    let file = parse_str(text, "r.fio", &ParseOptions::default()).expect("job parses");
    (0..runs)
        .map(|_| {
            let mut seen = Vec::new();
            let mut hook = |ios: &[SubmittedIo]| seen.extend(ios.iter().map(|io| io.offset_bytes));
            s.run_logged(&file, None, None, Some(&mut hook), None).expect("run");
            seen
        })
        .collect()
}

#[test]
fn randrepeat_1_replays_each_run() {
    let r = offsets_per_run(&job(1), 2, 7);
    assert_eq!(r[0].len(), 2000);
    assert_eq!(r[0], r[1]);
}

#[test]
fn randrepeat_0_draws_new_offsets_each_run_and_repeats_per_session() {
    let a = offsets_per_run(&job(0), 3, 7);
    assert_eq!(a[0].len(), 2000);
    let same = |x: &[u64], y: &[u64]| x.iter().zip(y).filter(|(p, q)| p == q).count();
    // Independent uniform draws over `tiny`'s blocks coincide rarely.
    assert!(same(&a[0], &a[1]) < 20, "runs 1 and 2 share {} offsets", same(&a[0], &a[1]));
    assert!(same(&a[1], &a[2]) < 20, "runs 2 and 3 share {} offsets", same(&a[1], &a[2]));
    assert_eq!(a, offsets_per_run(&job(0), 3, 7), "a session repeats from its seed");
}
