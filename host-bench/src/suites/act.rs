//! Aerospike ACT (the flash certification tool), open loop.
//!
//! Load N = N x (2000 record reads/s + 1000 record writes/s). Records are 1536 bytes; reads are
//! rounded up to 512-byte units (to the logical block if larger), so 1536-byte reads. Record
//! writes do not reach the drive one by one: as in ACT they fill 128 KiB write blocks, so the
//! drive sees large-block writes at write-rate x 1536 / 128 KiB x 2 (the x2 is defragmentation)
//! and large-block reads (defrag) at the same rate. Each one-hour slice passes when fewer than
//! 5% / 1% / 0.1% of record reads take over 1 / 8 / 64 ms.
//!
//! Slices are stonewalled groups, so the drive drains for an instant between hours (each
//! slice's latency histogram is its own). Hours are full-scale: divided by the scale factor on a
//! scaled simulated drive.

use super::{cell, r6, Bench, Ctl, OutDir, Perf, SuiteError};
use crate::job::build::{JobFileBuilder, Section};
use crate::job::RwMode;
use crate::plot::{self, Chart, Series, Style};
use serde::Serialize;
use serde_json::json;

pub const RECORD_BYTES: u32 = 1536;
pub const LARGE_BLOCK_BYTES: u32 = 128 * 1024;
pub const READS_PER_LOAD: u64 = 2000;
pub const WRITES_PER_LOAD: u64 = 1000;
/// (threshold ms, allowed percent over it).
pub const CRITERIA: [(u64, f64); 3] = [(1, 5.0), (8, 1.0), (64, 0.1)];

/// Options; recorded.
#[derive(Clone, Debug, Serialize)]
pub struct ActOptions {
    /// Load multiplier N (certification: 30).
    pub load: f64,
    /// Full-scale hours (certification: 24).
    pub hours: f64,
    /// Slice length in full-scale seconds (ACT: 3600).
    pub slice_s: f64,
    /// Sequential fill passes before the test (ACT prepares drives by writing them).
    pub fill_passes: u32,
    /// Open-loop cap on outstanding reads.
    pub max_outstanding: u32,
}

impl Default for ActOptions {
    fn default() -> Self {
        ActOptions { load: 1.0, hours: 24.0, slice_s: 3600.0, fill_passes: 1, max_outstanding: 4096 }
    }
}

/// One slice's verdict.
#[derive(Clone, Debug, Serialize)]
pub struct Slice {
    pub slice: usize,
    /// Percent of record reads over 1, 8, 64 ms.
    pub pct_over_ms: [f64; 3],
    pub pass: [bool; 3],
    pub passed: bool,
    pub reads: Perf,
    pub large_block_writes: Option<Perf>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ActResult {
    pub read_bytes: u32,
    pub read_rate: u64,
    pub large_block_rate: u64,
    pub slices: Vec<Slice>,
    pub passed: bool,
    pub interrupted: bool,
}

/// Runs ACT and writes `act.json`, `act.csv`, `act.svg`.
pub fn run(bench: &mut dyn Bench, o: &ActOptions, out: &mut OutDir, ctl: &mut Ctl) -> Result<ActResult, SuiteError> {
    if !(o.load > 0.0
        && o.load <= 10_000.0
        && o.hours > 0.0
        && o.slice_s > 0.0
        && o.hours * 3600.0 / o.slice_s <= 10_000.0)
    {
        return Err(SuiteError::BadOption {
            option: "act",
            problem: "load in (0, 10000], hours > 0, at most 10000 slices".into(),
        });
    }
    let lbs = bench.info().logical_block_bytes.max(512);
    let read_bytes = RECORD_BYTES.div_ceil(lbs) * lbs;
    let read_rate = nand_model::cast::sat_u64((READS_PER_LOAD as f64 * o.load).round().max(1.0));
    let write_rate = WRITES_PER_LOAD as f64 * o.load;
    let large_block_rate =
        nand_model::cast::sat_u64((write_rate * RECORD_BYTES as f64 / LARGE_BLOCK_BYTES as f64 * 2.0).round().max(1.0));
    let purge = bench.purge()?;
    super::pts::precondition(bench, o.fill_passes, ctl, (0.0, 0.1))?;
    let slices = nand_model::cast::sat_usize((o.hours * 3600.0 / o.slice_s).ceil()).max(1);
    let mut b = JobFileBuilder::new("act.fio");
    for s in 1..=slices {
        let len = (o.hours * 3600.0 - (s - 1) as f64 * o.slice_s).min(o.slice_s);
        let paced = |job: Section, bs, iops| {
            job.bs(bs).rate_iops(iops).iodepth(o.max_outstanding).time_based_for(len);
        };
        paced(b.job(&format!("s{s}-reads")).stonewall().rw(RwMode::RandRead), read_bytes, read_rate);
        paced(b.job(&format!("s{s}-lb-writes")).rw(RwMode::RandWrite), LARGE_BLOCK_BYTES, large_block_rate);
        paced(b.job(&format!("s{s}-lb-reads")).rw(RwMode::RandRead), LARGE_BLOCK_BYTES, large_block_rate);
    }
    let r = bench.run_job(&b.build()?, ctl, "act", (0.1, 1.0))?;
    let mut res = ActResult {
        read_bytes,
        read_rate,
        large_block_rate,
        slices: Vec::new(),
        passed: false,
        interrupted: r.interrupted,
    };
    for (i, group) in r.jobs.chunks(3).enumerate() {
        let reads = &group[0];
        let h = &reads.dirs[0].clat;
        let pct_over_ms = CRITERIA.map(|(ms, _)| {
            r6(if h.count() == 0 { 0.0 } else { (100.0 - h.percent_at_or_below(ms * 1_000_000)).max(0.0) })
        });
        let pass = [0, 1, 2].map(|k| pct_over_ms[k] < CRITERIA[k].1);
        res.slices.push(Slice {
            slice: i + 1,
            pct_over_ms,
            pass,
            passed: pass.iter().all(|&p| p),
            reads: Perf::of(reads, bench),
            large_block_writes: group.get(1).map(|j| Perf::of(j, bench)),
        });
    }
    res.passed = !res.slices.is_empty() && res.slices.len() == slices && res.slices.iter().all(|s| s.passed);
    out.json("act.json", &json!({"suite": "aerospike-act", "options": o, "config": bench.describe(), "purge": purge, "criteria": "per slice: < 5% of reads over 1 ms, < 1% over 8 ms, < 0.1% over 64 ms", "model_note": "record writes reach the drive as 128 KiB large-block writes (rate = writes/s x 1536 / 131072 x 2), with large-block defrag reads at the same rate", "result": res}))?;
    let rows: Vec<Vec<String>> = res
        .slices
        .iter()
        .map(|s| {
            vec![
                s.slice.to_string(),
                cell(s.reads.read_iops),
                cell(s.pct_over_ms[0]),
                cell(s.pct_over_ms[1]),
                cell(s.pct_over_ms[2]),
                cell(s.reads.read_lat.mean_us),
                s.passed.to_string(),
            ]
        })
        .collect();
    out.csv(
        "act.csv",
        &["slice", "read_iops", "pct_over_1ms", "pct_over_8ms", "pct_over_64ms", "read_lat_mean_us", "pass"],
        &rows,
    )?;
    let line = |k: usize| res.slices.iter().map(|s| (s.slice as f64, s.pct_over_ms[k])).collect::<Vec<_>>();
    let n = res.slices.len().max(1) as f64;
    let limit = |k: usize| vec![(1.0, CRITERIA[k].1), (n, CRITERIA[k].1)];
    let c = Chart::new(
        format!("ACT load {}x: {}", o.load, if res.passed { "PASS" } else { "FAIL" }),
        "slice (hour)",
        "% of reads over threshold",
    )
    .with(Series::new("> 1 ms", line(0), Style::LinePoints).color((0, 70, 200)))
    .with(Series::new("> 8 ms", line(1), Style::LinePoints).color((230, 140, 0)))
    .with(Series::new("> 64 ms", line(2), Style::LinePoints).color((200, 0, 0)))
    .with(Series::new("limit 5%", limit(0), Style::Dashed).color((0, 70, 200)))
    .with(Series::new("limit 1%", limit(1), Style::Dashed).color((230, 140, 0)))
    .with(Series::new("limit 0.1%", limit(2), Style::Dashed).color((200, 0, 0)));
    let svg = plot::render(&c).map_err(|e| SuiteError::Plot { name: "act".into(), message: e.to_string() })?;
    out.text("act.svg", &svg)?;
    Ok(res)
}
