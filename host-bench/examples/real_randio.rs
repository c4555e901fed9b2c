//! Closed-loop random I/O on a real target, printing IOPS: our side of scripts/compare-fio.sh.
//!
//! Usage: real_randio PATH randread|randwrite BS IODEPTH SIZE SECONDS [auto|io_uring|psync]
//! Sizes accept k/m/g suffixes (powers of 1024). A file shorter than SIZE is first laid out
//! with sequential writes, as fio does, so reads hit allocated blocks.
#![allow(clippy::cast_possible_truncation)] // casts are of the test's own small values

use std::process::ExitCode;

use host_bench::device::{Device, IoDir, IoRequest};
use host_bench::real::{EngineChoice, RealOptions, RealTarget};

fn parse_size(s: &str) -> Result<u64, String> {
    let s = s.trim().to_ascii_lowercase();
    let (num, mult) = match s.chars().last() {
        Some('k') => (&s[..s.len() - 1], 1u64 << 10),
        Some('m') => (&s[..s.len() - 1], 1 << 20),
        Some('g') => (&s[..s.len() - 1], 1 << 30),
        _ => (&s[..], 1),
    };
    num.parse::<u64>().map(|n| n * mult).map_err(|e| format!("bad size {s:?}: {e}"))
}

fn layout(t: &mut RealTarget, size: u64) -> Result<(), Box<dyn std::error::Error>> {
    let chunk = 1u64 << 20;
    let mut off = 0;
    while off < size || t.outstanding() > 0 {
        while off < size && t.outstanding() < 8 {
            let len = chunk.min(size - off) as u32;
            t.submit(IoRequest { tag: off, dir: IoDir::Write, offset_bytes: off, len_bytes: len })?;
            off += u64::from(len);
        }
        t.wait(None)?;
    }
    Ok(())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.len() < 6 {
        return Err("usage: real_randio PATH randread|randwrite BS IODEPTH SIZE SECONDS [engine]".into());
    }
    let dir = match a[1].as_str() {
        "randread" => IoDir::Read,
        "randwrite" => IoDir::Write,
        other => return Err(format!("rw must be randread or randwrite, not {other:?}").into()),
    };
    let bs = parse_size(&a[2])?;
    let qd: u32 = a[3].parse()?;
    let size = parse_size(&a[4])?;
    let secs: u64 = a[5].parse()?;
    let engine: EngineChoice = a.get(6).map_or(Ok(EngineChoice::Auto), |s| s.parse())?;
    let existing = std::fs::metadata(&a[0]).map(|m| m.len()).unwrap_or(0);

    let mut opts = RealOptions::new(&a[0]);
    opts.queue_depth = qd;
    opts.max_block_bytes = (bs as u32).max(1 << 20);
    opts.size_bytes = Some(size);
    opts.engine = engine;
    // SUBMIT_BATCH overrides the target's default submission batch, for tuning.
    opts.submit_batch = std::env::var("SUBMIT_BATCH").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    let mut t = RealTarget::open(opts)?;
    if existing < size {
        eprintln!("laying out {size} bytes in {}", a[0]);
        layout(&mut t, size)?;
    }

    let blocks = size / bs;
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next_offset = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        // Lemire's multiply-shift: uniform enough and no division per I/O.
        ((u128::from(x) * u128::from(blocks)) >> 64) as u64 * bs
    };
    let start = t.now_ns();
    let end = start + secs * 1_000_000_000;
    let mut done: u64 = 0;
    let mut tag = 0;
    for _ in 0..qd {
        t.submit(IoRequest { tag, dir, offset_bytes: next_offset(), len_bytes: bs as u32 })?;
        tag += 1;
    }
    let mut last = start;
    while let Some(c) = t.wait(None)? {
        done += 1;
        last = c.complete_ns;
        if last < end {
            t.submit(IoRequest { tag, dir, offset_bytes: next_offset(), len_bytes: bs as u32 })?;
            tag += 1;
        }
    }
    let secs_run = (last - start) as f64 / 1e9;
    let iops = done as f64 / secs_run;
    println!(
        "engine={:?} rw={} bs={bs} iodepth={qd} ios={done} seconds={secs_run:.2} iops={iops:.0}",
        t.engine_kind(),
        a[1]
    );
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("real_randio: {e}");
            ExitCode::FAILURE
        }
    }
}
