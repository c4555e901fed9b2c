//! What recording costs: the `op-wa` lesson's job (fill `tiny`, then three drive writes of 4 KiB
//! random writes) run plain and with the explore recorder, and the recording rendered into the
//! page. `cargo bench -p host-bench --bench explore_overhead`; the target is recorded <= 2x plain.
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use criterion::{criterion_group, criterion_main, Criterion};
use host_bench::explore::{lessons, page, record_run, Page};
use host_bench::simrun::SimSession;

fn bench(c: &mut Criterion) {
    let lesson = lessons::find("op-wa").unwrap();
    let spec = &lesson.runs[1];
    let file = lessons::parse_job(spec, lesson.name).unwrap();
    let mut g = c.benchmark_group("explore_tiny_op_wa");
    g.sample_size(10);
    g.bench_function("plain", |b| {
        b.iter(|| {
            let mut s = SimSession::new(spec.cfg.clone()).unwrap();
            s.run(&file, None, None).unwrap()
        })
    });
    g.bench_function("recorded", |b| {
        b.iter(|| {
            let mut s = SimSession::new(spec.cfg.clone()).unwrap();
            let (r, rec) = record_run(&mut s, &file, None, None).unwrap();
            (r, rec.finish(&mut s.target.ssd, "x", vec![]))
        })
    });
    g.bench_function("recorded_and_page", |b| {
        b.iter(|| {
            let mut s = SimSession::new(spec.cfg.clone()).unwrap();
            let (_, rec) = record_run(&mut s, &file, None, None).unwrap();
            let runs = vec![rec.finish(&mut s.target.ssd, "x", vec![])];
            page::render(&mut Page { title: "t".into(), text: vec![], questions: vec![], runs, command: String::new() })
                .unwrap()
                .len()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
