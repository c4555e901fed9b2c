//! Per-I/O cost of the host side of the hot path: the next offset from a job's pattern, its
//! latency into the histogram and the time series. `cargo bench -p host-bench --bench
//! pattern_per_io`; one iteration is one I/O.
#![allow(clippy::unwrap_used)] // a panic in bench code is a failed bench

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use host_bench::job::pattern::IoPattern;
use host_bench::job::zipf::ZipfSampler;
use host_bench::job::{parse_str, ParseOptions};
use host_bench::stats::{Histogram, SeriesRecorder};
use nand_model::rng::{RngStreams, StreamId};
use rand::RngCore;

const BODIES: [(&str, &str); 8] = [
    ("randread", "rw=randread"),
    ("randrw_bssplit", "rw=randrw\nbssplit=4k/50:8k/30:64k/"),
    ("write", "rw=write"),
    ("zipf", "rw=randread\nrandom_distribution=zipf:1.2"),
    ("pareto", "rw=randread\nrandom_distribution=pareto:0.2"),
    ("normal", "rw=randread\nrandom_distribution=normal:5"),
    ("zoned", "rw=randread\nrandom_distribution=zoned:60/10:30/20:10/70"),
    ("randread_randommap", "rw=randread\nsize=1g"),
];

/// 100k I/Os per batch: pattern draw, histogram and series record.
const IOS: u64 = 100_000;

fn per_io(c: &mut Criterion) {
    let mut g = c.benchmark_group("pattern_per_io");
    g.throughput(criterion::Throughput::Elements(IOS));
    for (name, body) in BODIES {
        let spec = parse_str(&format!("[j]\n{body}\n"), "p.fio", &ParseOptions::default()).unwrap().jobs.remove(0);
        g.bench_function(name, |b| {
            b.iter_batched_ref(
                || {
                    let p =
                        IoPattern::new(&spec, 0, RngStreams::new(1).stream(StreamId::Host, 0), 1 << 40, 4096).unwrap();
                    (p, Histogram::new(), SeriesRecorder::new(0, 1_000_000_000))
                },
                |(p, h, s)| {
                    for i in 0..IOS {
                        let io = p.next_io().unwrap();
                        let lat = 50_000 + (io.offset_bytes >> 12) % 1000;
                        h.record(lat);
                        s.record(io.dir.index(), i * 200, io.len_bytes, lat);
                    }
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

fn zipf_sample(c: &mut Criterion) {
    let z = ZipfSampler::new(1 << 28, 1.2);
    let mut rng = RngStreams::new(1).stream(StreamId::Host, 0);
    c.bench_function("zipf_sample", |b| {
        b.iter(|| z.sample(|| (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)))
    });
}

criterion_group!(benches, per_io, zipf_sample);
criterion_main!(benches);
