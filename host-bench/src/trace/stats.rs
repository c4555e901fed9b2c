//! `ssdlab trace stats`: what a trace asks of a drive, in one streaming pass. Memory grows
//! with the trace's footprint (about 8 bytes per 4 KiB unit touched, in 16 MiB chunks), not
//! with its length.

use std::collections::HashMap;

use serde::Serialize;

use super::reader::ReadCounts;
use super::{TraceError, TraceReader};
use crate::device::IoDir;
use crate::plot::{render_stacked, Chart, PlotError, Series, Style};
use crate::stats::Histogram;

/// Footprint and re-write distance are counted in units of this many bytes (the FTL's mapping
/// unit).
pub const UNIT_BYTES: u64 = 4096;
const CHUNK_UNITS: u64 = 4096;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DirStats {
    pub ios: u64,
    pub bytes: u64,
}

/// One size bucket: I/Os with `len <= le_bytes` (and above the previous bucket).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SizeBucket {
    pub le_bytes: u64,
    pub ios: u64,
}

/// A distribution summary.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Dist {
    pub count: u64,
    pub mean: f64,
    pub p10: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
}

impl Dist {
    fn of(h: &Histogram, div: f64) -> Dist {
        if h.count() == 0 {
            return Dist::default();
        }
        let p = |q: f64| h.percentile(q) as f64 / div;
        Dist {
            count: h.count(),
            mean: h.mean() / div,
            p10: p(10.0),
            p50: p(50.0),
            p90: p(90.0),
            p99: p(99.0),
            max: h.max() as f64 / div,
        }
    }
}

/// Everything `trace stats` reports.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TraceStats {
    pub read: DirStats,
    pub write: DirStats,
    pub trim: DirStats,
    pub read_pct_ios: f64,
    pub duration_s: f64,
    /// Power-of-two buckets from 512 B.
    pub size_histogram: Vec<SizeBucket>,
    /// Distinct 4 KiB units touched (any direction), written and read, in bytes.
    pub footprint_bytes: u64,
    pub write_footprint_bytes: u64,
    pub read_footprint_bytes: u64,
    pub highest_offset_bytes: u64,
    /// Time between consecutive arrivals, us.
    pub interarrival_us: Dist,
    /// Re-write distance: host bytes written between two writes of the same 4 KiB unit, GiB.
    /// A unit overwritten after less than the drive's spare space was written is rewritten
    /// before GC reaches it; long distances are what raises WA.
    pub rewrite_distance_gib: Dist,
    /// Share of written units that overwrite data the trace wrote before, %.
    pub overwrite_pct: f64,
    pub interval_s: f64,
    /// I/Os per second in each interval.
    pub iops: Vec<f64>,
    pub counts: ReadCounts,
}

struct Chunk {
    /// Write sequence (units written before, + 1) of each unit's last write; 0 = never.
    last_write: Box<[u64]>,
    read: Box<[u64]>,
}

/// Reads the whole trace and summarises it.
pub fn trace_stats(reader: &mut TraceReader, interval_ns: u64) -> Result<TraceStats, TraceError> {
    let interval_ns = interval_ns.max(1);
    let mut s = TraceStats { interval_s: interval_ns as f64 / 1e9, ..Default::default() };
    let mut chunks: HashMap<u64, Chunk> = HashMap::new();
    let mut sizes = [0u64; 24];
    let (mut gaps, mut rewrite) = (Histogram::new(), Histogram::new());
    let (mut last_t, mut end_t) = (None::<u64>, 0u64);
    let (mut written_units, mut overwrites) = (0u64, 0u64);
    let mut per_interval: Vec<u64> = Vec::new();
    while let Some(r) = reader.next_record()? {
        let d = match r.dir {
            IoDir::Read => &mut s.read,
            IoDir::Write => &mut s.write,
            IoDir::Trim => &mut s.trim,
        };
        d.ios += 1;
        d.bytes += r.len_bytes;
        let b = (64 - (r.len_bytes.max(512) - 1).leading_zeros() as usize).saturating_sub(9).min(sizes.len() - 1);
        sizes[b] += 1;
        if let Some(t) = last_t {
            gaps.record(r.time_ns.saturating_sub(t));
        }
        last_t = Some(r.time_ns);
        end_t = end_t.max(r.time_ns);
        let slot = usize::try_from(r.time_ns / interval_ns).unwrap_or(usize::MAX).min(1 << 26);
        if per_interval.len() <= slot {
            per_interval.resize(slot + 1, 0);
        }
        per_interval[slot] += 1;
        let end = r.offset_bytes.saturating_add(r.len_bytes);
        s.highest_offset_bytes = s.highest_offset_bytes.max(end);
        if r.dir == IoDir::Trim {
            continue;
        }
        for u in r.offset_bytes / UNIT_BYTES..end.div_ceil(UNIT_BYTES) {
            let c = chunks.entry(u / CHUNK_UNITS).or_insert_with(|| Chunk {
                last_write: vec![0; nand_model::cast::usize_from(CHUNK_UNITS)].into_boxed_slice(),
                read: vec![0; (CHUNK_UNITS / 64) as usize].into_boxed_slice(),
            });
            let i = (u % CHUNK_UNITS) as usize;
            if r.dir == IoDir::Write {
                let prev = c.last_write[i];
                if prev > 0 {
                    overwrites += 1;
                    rewrite.record((written_units + 1 - prev) * UNIT_BYTES);
                }
                written_units += 1;
                c.last_write[i] = written_units;
            } else {
                c.read[i / 64] |= 1 << (i % 64);
            }
        }
    }
    let (mut any, mut w, mut rd) = (0u64, 0u64, 0u64);
    for c in chunks.values() {
        for i in 0..nand_model::cast::usize_from(CHUNK_UNITS) {
            let (wr, re) = (c.last_write[i] > 0, c.read[i / 64] >> (i % 64) & 1 == 1);
            w += u64::from(wr);
            rd += u64::from(re);
            any += u64::from(wr || re);
        }
    }
    (s.footprint_bytes, s.write_footprint_bytes, s.read_footprint_bytes) =
        (any * UNIT_BYTES, w * UNIT_BYTES, rd * UNIT_BYTES);
    let total = s.read.ios + s.write.ios + s.trim.ios;
    s.read_pct_ios = if total > 0 { s.read.ios as f64 / total as f64 * 100.0 } else { 0.0 };
    s.duration_s = end_t as f64 / 1e9;
    let last = sizes.iter().rposition(|&n| n > 0).unwrap_or(0);
    s.size_histogram = (0..=last).map(|i| SizeBucket { le_bytes: 512 << i, ios: sizes[i] }).collect();
    s.interarrival_us = Dist::of(&gaps, 1e3);
    s.rewrite_distance_gib = Dist::of(&rewrite, (1u64 << 30) as f64);
    s.overwrite_pct = if written_units > 0 { overwrites as f64 / written_units as f64 * 100.0 } else { 0.0 };
    s.iops = per_interval.iter().map(|&n| n as f64 / s.interval_s).collect();
    s.counts = reader.counts.clone();
    Ok(s)
}

/// IOPS over time above the size histogram, as one SVG.
pub fn stats_svg(s: &TraceStats, title: &str) -> Result<String, PlotError> {
    let iops = s.iops.iter().enumerate().map(|(i, &v)| (i as f64 * s.interval_s, v)).collect();
    let top = Chart::new(format!("{title}: IOPS per {} s", s.interval_s), "trace time (s)", "IOPS").with(Series::new(
        "IOPS",
        iops,
        Style::Line,
    ));
    let sizes = s.size_histogram.iter().map(|b| (b.le_bytes as f64 / 1024.0, b.ios as f64)).collect();
    let mut bottom =
        Chart::new("I/O size histogram", "size <= KiB", "I/Os").with(Series::new("I/Os", sizes, Style::LinePoints));
    bottom.x_log2 = true;
    render_stacked(&top, &bottom)
}
