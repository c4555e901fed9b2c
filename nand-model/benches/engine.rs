//! Event-engine throughput: NAND operations per wall second on a many-die random schedule
//! (128 dies on 8 channels, the size of a 7.68 TB TLC drive).
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use nand_model::*;
use rand::{Rng, SeedableRng};

fn schedule(n: u64) -> u64 {
    let mut gc = GeometryConfig::tiny_example();
    gc.channels = 8;
    gc.dies_per_channel = 16;
    gc.planes_per_die = 4;
    let geo = gc.validate().unwrap();
    let t = TimingConfig::example(CellType::Tlc).validate(&geo).unwrap();
    let mut f = Flash::new(geo, t, EnergyConfig::default().validate().unwrap());
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut now = SimTime::ZERO;
    let mut done = 0;
    for i in 0..n {
        now += SimTime::from_ns(rng.gen_range(0..400));
        while f.advance_until(now).is_some() {
            done += 1;
        }
        let die = rng.gen_range(0..128);
        let op = if rng.gen_ratio(1, 8) {
            NandOp::program(i, die, 4, 196_608)
        } else {
            NandOp::read(i, die, rng.gen_range(0..3), 1, 4096)
        };
        f.submit(now, op);
    }
    while f.advance_until(SimTime::MAX).is_some() {
        done += 1;
    }
    done
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("engine");
    g.throughput(Throughput::Elements(100_000));
    g.bench_function("random_ops_128_dies", |b| b.iter(|| schedule(100_000)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
