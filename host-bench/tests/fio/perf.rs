//! Per-I/O cost of our part of the hot path. Ignored by default (timing); run with
//! `cargo test -p host-bench --release --test fio perf -- --ignored --nocapture`.
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use nand_model::rng::{RngStreams, StreamId};
use std::time::Instant;

use host_bench::job::pattern::IoPattern;
use host_bench::job::{parse_str, ParseOptions};
use host_bench::stats::{Histogram, SeriesRecorder};

fn ns_per_io(body: &str) -> f64 {
    let spec = parse_str(&format!("[j]\n{body}\n"), "p.fio", &ParseOptions::default()).unwrap().jobs.remove(0);
    let mut p = IoPattern::new(&spec, RngStreams::new(1).stream(StreamId::Host, 0), 1 << 40, 4096).unwrap();
    let mut h = Histogram::new();
    let mut s = SeriesRecorder::new(0, 1_000_000_000);
    let n = 5_000_000u64;
    let t = Instant::now();
    let mut acc = 0u64;
    for i in 0..n {
        let io = p.next_io().unwrap();
        let lat = 50_000 + (io.offset_bytes >> 12) % 1000;
        h.record(lat);
        s.record(io.dir.index(), i * 200, io.len_bytes, lat);
        acc ^= io.offset_bytes;
    }
    let el = t.elapsed().as_nanos() as f64 / n as f64;
    assert!(acc != 1);
    el
}

#[test]
#[ignore]
fn per_io_cost() {
    for body in [
        "rw=randread",
        "rw=randrw\nbssplit=4k/50:8k/30:64k/",
        "rw=write",
        "rw=randread\nrandom_distribution=zipf:1.2",
        "rw=randread\nrandom_distribution=pareto:0.2",
        "rw=randread\nrandom_distribution=normal:5",
        "rw=randread\nrandom_distribution=zoned:60/10:30/20:10/70",
    ] {
        println!("{:45} {:6.1} ns/IO", body.replace('\n', " "), ns_per_io(body));
    }
}

#[test]
#[ignore]
fn zipf_sampler_cost() {
    use host_bench::job::zipf::ZipfSampler;
    use rand::RngCore;
    let z = ZipfSampler::new(1 << 28, 1.2);
    let mut rng = RngStreams::new(1).stream(StreamId::Host, 0);
    let n = 5_000_000;
    let t = Instant::now();
    let mut acc = 0u64;
    for _ in 0..n {
        acc = acc.wrapping_add(z.sample(|| (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)));
    }
    println!("zipf sample alone {:.1} ns ({acc})", t.elapsed().as_nanos() as f64 / n as f64);
}
