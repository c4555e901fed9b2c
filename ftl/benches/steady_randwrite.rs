//! Steady-state 4 KiB random writes on the timed device (generic-tlc at 1/2048, QD 32): wall time
//! per simulated host write, single-threaded. `cargo bench -p ftl --bench steady_randwrite`.
#![allow(clippy::cast_possible_truncation, clippy::unwrap_used)] // a panic in test code is a failed test; casts are of the test's own small values

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ftl::device::{DeviceOptions, HostOp, SimSsd};
use nand_model::rng::{RngStreams, StreamId};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Keeps QD commands in flight until `n` more have completed.
fn writes(d: &mut SimSsd, rng: &mut ChaCha8Rng, units: u64, n: u64, tag: &mut u64) {
    let mut done = 0;
    while d.outstanding() < 32 {
        d.submit(*tag, HostOp::Write, rng.gen_range(0..units) * 4096, 4096).unwrap();
        *tag += 1;
    }
    while done < n {
        if d.next_completion(None).is_none() {
            break;
        }
        done += 1;
        d.submit(*tag, HostOp::Write, rng.gen_range(0..units) * 4096, 4096).unwrap();
        *tag += 1;
    }
}

fn bench(c: &mut Criterion) {
    let p = ftl::profile::load("generic-tlc").unwrap();
    let mut d = SimSsd::new(&p, &DeviceOptions { scale_divisor: 2048, ..Default::default() }).unwrap();
    let units = d.capacity().user_bytes_sim / 4096;
    let mut rng = RngStreams::new(1).stream(StreamId::Host, 0);
    let mut tag = 0;
    // Fill and warm up to steady state (random writes over ~2 drive-writes).
    for lpn in (0..units).step_by(32) {
        d.submit(tag, HostOp::Write, lpn * 4096, 32.min(units - lpn) as u32 * 4096).unwrap();
        tag += 1;
        while d.outstanding() >= 32 {
            d.next_completion(None);
        }
    }
    writes(&mut d, &mut rng, units, 2 * units, &mut tag);
    let mut g = c.benchmark_group("steady_state");
    g.throughput(Throughput::Elements(100_000));
    g.sample_size(10);
    g.bench_function("randwrite_4k_generic_tlc_1_2048", |b| {
        b.iter(|| writes(&mut d, &mut rng, units, 100_000, &mut tag))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
