//! Runs the `op-wa` lesson's second job (OP 40%) on `tiny`, plain, recorded or recorded with a
//! write log, `times` times in one process: a steady driver for counting the recorder's
//! instructions (`valgrind --tool=cachegrind --cache-sim=no`) or profiling it (`perf record`),
//! where `benches/explore_overhead.rs` measures wall time.
//! `cargo run --release -p host-bench --example explore_driver -- recorded [times]`
#![allow(clippy::unwrap_used)] // a panic in a profiling driver is a failed run

use host_bench::explore::{lessons, record_run_with};
use host_bench::simrun::SimSession;

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "recorded".into());
    let times: u32 = std::env::args().nth(2).map_or(1, |t| t.parse().unwrap());
    let lesson = lessons::find("op-wa").unwrap();
    let spec = &lesson.runs[1];
    let file = lessons::parse_job(spec, lesson.name).unwrap();
    let mut frames = 0;
    for _ in 0..times {
        let mut s = SimSession::new(spec.cfg.clone()).unwrap();
        let write_log = match mode.as_str() {
            "plain" => {
                s.run(&file, None, None).unwrap();
                continue;
            }
            "recorded" => false,
            "write-log" => true,
            m => panic!("mode {m}: plain, recorded or write-log"),
        };
        let (_, rec) = record_run_with(&mut s, &file, None, None, None, write_log).unwrap();
        frames = rec.finish(&mut s.target.ssd, "x", vec![]).frames.t_ns.len();
    }
    println!("{mode} x{times}: {frames} frames");
}
