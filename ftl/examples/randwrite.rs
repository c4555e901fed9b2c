//! Quick closed-loop random-write driver: prints simulated IOPS, WA and wall-clock speed.
//! `cargo run --release -p ftl --example randwrite -- PROFILE SCALE QD DRIVE_WRITES [BS]`
#![allow(clippy::cast_possible_truncation, clippy::unwrap_used)] // a panic in test code is a failed test; casts are of the test's own small values

use ftl::device::{DeviceOptions, HostOp, SimSsd};
use nand_model::rng::{RngStreams, StreamId};
use rand::Rng;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map(String::as_str).unwrap_or("tiny");
    let scale: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let qd: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(32);
    let drive_writes: f64 = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(3.0);
    let bs: u32 = args.get(5).and_then(|s| s.parse().ok()).unwrap_or(4096);
    let p = ftl::profile::load(name).unwrap();
    let mut d = SimSsd::new(&p, &DeviceOptions { scale_divisor: scale, ..Default::default() }).unwrap();
    let cap = d.capacity().clone();
    eprintln!("{cap:?}");
    let blocks = cap.user_bytes_sim / bs as u64;
    let wall = std::time::Instant::now();
    // Sequential fill.
    let mut next = 0u64;
    let mut tag = 0;
    for _ in 0..qd {
        d.submit(tag, HostOp::Write, next * bs as u64, bs).unwrap();
        next += 1;
        tag += 1;
    }
    while let Some(_c) = d.next_completion(None) {
        if next < blocks {
            d.submit(tag, HostOp::Write, next * bs as u64, bs).unwrap();
            next += 1;
            tag += 1;
        }
    }
    let fill_t = d.now();
    eprintln!(
        "fill: {:.2} s simulated, WA {:.3}, wall {:?}",
        fill_t.ns() as f64 / 1e9,
        d.counters().wa(),
        wall.elapsed()
    );
    let mut rng = RngStreams::new(1).stream(StreamId::Host, 0);
    let total = (blocks as f64 * drive_writes) as u64;
    let wall = std::time::Instant::now();
    for _ in 0..qd {
        d.submit(tag, HostOp::Write, rng.gen_range(0..blocks) * bs as u64, bs).unwrap();
        tag += 1;
    }
    let mut done = 0u64;
    let mut t_last = d.now();
    let mut c_last = d.counters();
    let mut ios_last = 0u64;
    while let Some(_c) = d.next_completion(None) {
        done += 1;
        if done + (qd as u64) <= total {
            d.submit(tag, HostOp::Write, rng.gen_range(0..blocks) * bs as u64, bs).unwrap();
            tag += 1;
        }
        if done.is_multiple_of((total / 10).max(1)) {
            let c = d.counters();
            let dt = (d.now() - t_last).ns() as f64 / 1e9;
            let wa = (c.nand_write_bytes - c_last.nand_write_bytes) as f64
                / (c.host_write_bytes - c_last.host_write_bytes) as f64;
            eprintln!(
                "{:>5.1} drive writes: {:>9.0} IOPS  WA {:.3}  free {}  gc stall {:.3} s",
                done as f64 / blocks as f64,
                (done - ios_last) as f64 / dt,
                wa,
                c.free_blocks,
                c.gc_stall_ns as f64 / 1e9
            );
            t_last = d.now();
            c_last = c;
            ios_last = done;
        }
    }
    let el = wall.elapsed().as_secs_f64();
    let fs = d.flash().stats();
    let g = d.flash().geometry();
    eprintln!(
        "die busy {:.1}%  channel busy {:.1}%  reads {} programs {} erases {} suspends {}",
        fs.die_busy_ns as f64 / (g.dies() as f64 * d.now().ns() as f64) * 100.0,
        d.flash().channel_busy_ns() as f64 / (g.channels as f64 * d.now().ns() as f64) * 100.0,
        fs.reads,
        fs.programs,
        fs.erases,
        fs.suspends
    );
    d.check_invariants().unwrap();
    println!(
        "{done} random writes in {el:.2} s wall = {:.2} M IO/s; WA {:.3}",
        done as f64 / el / 1e6,
        d.counters().wa()
    );
}
