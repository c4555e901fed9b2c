//! Replaying a trace on a [`Device`]: timed (each record issued at its arrival time, scaled) or
//! closed loop (N outstanding in trace order), with trace offsets mapped onto the device.
//! Produces the same [`RunResult`] as a fio job, so JSON, time series and plots are shared.

use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

use super::{TraceError, TraceReader, TraceRecord};
use crate::device::{Device, DeviceError, IoCompletion, IoRequest};
use crate::job::{RwMode, UnifiedRw, DEFAULT_PERCENTILES};
use crate::runner::{DirResult, JobResult, RunResult, SubmittedIo};
use crate::stats::{Histogram, SeriesRecorder};

/// How arrivals are paced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReplayMode {
    /// Each record at its arrival time x `time_scale`, at most `qd` outstanding.
    Timed,
    /// `qd` outstanding, the next record on each completion.
    Closed,
}

/// What to do with a record beyond the device's capacity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LbaMap {
    /// Offset modulo the capacity.
    Wrap,
    /// Offsets scaled by capacity / `trace_span_bytes` (the trace's highest end offset).
    Scale,
    /// Refused: the replay stops with an error naming the line.
    Error,
}

pub struct ReplayOptions<'a> {
    pub mode: ReplayMode,
    pub qd: u32,
    /// Multiplies arrival times (timed mode): 0.5 replays twice as fast.
    pub time_scale: f64,
    pub lba_map: LbaMap,
    /// Highest offset + length in the trace, for [`LbaMap::Scale`].
    pub trace_span_bytes: u64,
    /// Largest command the target takes (a real target's buffer size); longer records are cut.
    pub max_len_bytes: Option<u32>,
    pub series_interval_ns: u64,
    pub stop: Option<&'a AtomicBool>,
    /// Called every few thousand records with the number issued so far.
    pub progress: Option<&'a mut dyn FnMut(u64)>,
    /// Receives every issued command (after mapping), e.g. for an iolog of what was issued.
    pub on_submit: Option<&'a mut dyn FnMut(&SubmittedIo)>,
    /// Name of the result's job and the trace files, for the report.
    pub name: String,
}

/// What the replay did besides the I/O figures: recorded in the result.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ReplayStats {
    pub mode: Option<ReplayMode>,
    pub qd: u32,
    pub time_scale: f64,
    pub lba_map: Option<LbaMap>,
    pub records_issued: u64,
    /// Timed mode: records issued after their arrival time because `qd` commands were still
    /// outstanding when they were due (the drive falling behind), and by how much (mean, p99
    /// and max over the late records).
    pub late: u64,
    pub late_pct: f64,
    pub late_mean_us: f64,
    pub late_p99_us: f64,
    pub late_max_us: f64,
    /// Timed mode: the largest delay between a record's arrival time and its issue that was
    /// not the queue's doing (0 on the simulator; on a real target, host scheduling).
    pub issue_jitter_max_us: f64,
    /// Records whose offset was moved by `--lba-map` (wrap or scale).
    pub remapped: u64,
    /// Records widened to the device's logical block (unaligned offset or length).
    pub aligned: u64,
    /// Records longer than the largest command (`max_len_bytes`, else 4 GiB - block) or the
    /// device, cut to it.
    pub truncated: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error("{file}:{line}: offset {offset_bytes} + {len_bytes} is beyond the drive's {capacity_bytes} bytes (--lba-map error; wrap or scale map it)")]
    OutOfRange { file: String, line: u64, offset_bytes: u64, len_bytes: u64, capacity_bytes: u64 },
    #[error("device error: {0}")]
    Device(#[from] DeviceError),
    #[error("--time-scale {0} is out of range (allowed a finite number > 0)")]
    BadTimeScale(f64),
    #[error("--qd {0} is out of range (allowed 1..=65536)")]
    BadQd(u32),
}

/// Maps and aligns records onto the device.
struct Mapper {
    cap: u64,
    lbs: u64,
    map: LbaMap,
    span: u64,
    max_len: u64,
}

impl Mapper {
    #[allow(clippy::cast_possible_truncation)] // len <= max_len <= u32::MAX
    fn map(&self, r: &TraceRecord, st: &mut ReplayStats) -> Option<(u64, u32)> {
        let (mut off, mut len) = (r.offset_bytes, r.len_bytes);
        let max_len = self.max_len;
        if len > max_len {
            len = max_len;
            st.truncated += 1;
        }
        let (a_off, a_end) = (off / self.lbs * self.lbs, (off + len).div_ceil(self.lbs) * self.lbs);
        if (a_off, a_end - a_off) != (off, len) {
            st.aligned += 1;
            (off, len) = (a_off, (a_end - a_off).min(max_len));
        }
        if off + len <= self.cap && self.map != LbaMap::Scale {
            return Some((off, len as u32));
        }
        let new = match self.map {
            LbaMap::Error => return None,
            LbaMap::Wrap => off % self.cap,
            LbaMap::Scale => {
                nand_model::cast::low_u64(u128::from(off) * u128::from(self.cap) / u128::from(self.span.max(self.cap)))
            }
        };
        let new = (new / self.lbs * self.lbs).min(self.cap - len);
        if new != off {
            st.remapped += 1;
        }
        Some((new, len as u32))
    }
}

/// Accumulates the one reported job.
struct Acc {
    dirs: [DirResult; 3],
    series: SeriesRecorder,
    levels: [u64; 7],
    end_ns: u64,
}

impl Acc {
    fn complete(&mut self, c: &IoCompletion) {
        let lat = c.complete_ns.saturating_sub(c.submit_ns);
        let d = &mut self.dirs[c.dir.index()];
        d.clat.record(lat);
        d.io_bytes += u64::from(c.len_bytes);
        d.ios += 1;
        self.series.record(c.dir.index(), c.complete_ns, c.len_bytes, lat);
        self.end_ns = self.end_ns.max(c.complete_ns);
    }
}

/// fio's iodepth_level buckets: 1, 2, 4, 8, 16, 32, >=64.
fn depth_bucket(depth: usize) -> usize {
    match depth {
        0..=1 => 0,
        64.. => 6,
        d => ((usize::BITS - (d - 1).leading_zeros()) as usize).min(5),
    }
}

const CHECK_EVERY: u64 = 4096;
/// Records read ahead of their issue, for the device's prefetch hints.
const LOOKAHEAD: usize = crate::device::HINT_LOOKAHEAD;

/// A record with where it came from (file index, line).
type Located = (TraceRecord, (usize, u64));

struct Lookahead {
    recs: crate::ring::Ring<Located, LOOKAHEAD>,
    done: bool,
}

impl Lookahead {
    fn next(
        &mut self,
        reader: &mut TraceReader,
        dev: &mut dyn Device,
        mapper: &Mapper,
    ) -> Result<Option<Located>, TraceError> {
        while !self.done && self.recs.len() < LOOKAHEAD {
            match reader.next_record()? {
                Some(r) => {
                    // The wrapped offset (exact for --lba-map wrap; a hint only otherwise).
                    dev.hint_next_offset(r.offset_bytes % mapper.cap.max(1));
                    self.recs.push_back((r, reader.file_line()));
                }
                None => self.done = true,
            }
        }
        Ok(self.recs.pop_front())
    }
}

/// The highest offset + length of a trace (a pass over it), for `--lba-map scale` and the
/// size of a new real target file.
pub fn trace_span(reader: &mut TraceReader) -> Result<u64, TraceError> {
    let mut span = 0u64;
    while let Some(r) = reader.next_record()? {
        span = span.max(r.offset_bytes.saturating_add(r.len_bytes));
    }
    Ok(span)
}

/// Replays every record of `reader` on `dev`.
pub fn replay(
    reader: &mut TraceReader,
    dev: &mut dyn Device,
    opts: &mut ReplayOptions,
) -> Result<(RunResult, ReplayStats), ReplayError> {
    if !(opts.time_scale.is_finite() && opts.time_scale > 0.0) {
        return Err(ReplayError::BadTimeScale(opts.time_scale));
    }
    if !(1..=65536).contains(&opts.qd) {
        return Err(ReplayError::BadQd(opts.qd));
    }
    let info = dev.info();
    let lbs = u64::from(info.logical_block_bytes.max(1));
    let mapper = Mapper {
        cap: info.capacity_bytes,
        lbs,
        map: opts.lba_map,
        span: opts.trace_span_bytes,
        max_len: (u64::from(opts.max_len_bytes.unwrap_or(u32::MAX)) / lbs * lbs).min(info.capacity_bytes),
    };
    let start = dev.now_ns();
    let interval = opts.series_interval_ns.max(1);
    dev.report_grid(&[start], interval);
    let mut acc =
        Acc { dirs: Default::default(), series: SeriesRecorder::new(start, interval), levels: [0; 7], end_ns: start };
    let mut st = ReplayStats {
        mode: Some(opts.mode),
        qd: opts.qd,
        time_scale: opts.time_scale,
        lba_map: Some(opts.lba_map),
        ..Default::default()
    };
    let mut late = Histogram::new();
    let mut jitter_max_ns = 0u64;
    // The pending record was due while `qd` commands were outstanding.
    let mut held = false;
    let qd = opts.qd as usize;
    let timed = opts.mode == ReplayMode::Timed;
    let due =
        |r: &TraceRecord| start.saturating_add(nand_model::cast::sat_u64((r.time_ns as f64 * opts.time_scale).round()));
    // Records are read LOOKAHEAD ahead and their offsets passed to the device as hints (the
    // simulator prefetches mapping state); what is issued, and when, is unchanged.
    let filler =
        TraceRecord { time_ns: 0, dir: crate::device::IoDir::Read, offset_bytes: 0, len_bytes: 0, volume: None };
    let mut ahead = Lookahead { recs: crate::ring::Ring::new((filler, (0, 0))), done: false };
    let mut pending = ahead.next(reader, dev, &mapper)?;
    let mut interrupted = false;
    let mut completions = 0u64;
    loop {
        let now = dev.now_ns();
        while let Some((r, loc)) = pending {
            if timed && due(&r) > now {
                break;
            }
            if dev.outstanding() >= qd {
                held |= timed;
                break;
            }
            if timed {
                let l = now - due(&r);
                if held && l > 0 {
                    late.record(l);
                    st.late += 1;
                } else {
                    jitter_max_ns = jitter_max_ns.max(l);
                }
                held = false;
            }
            let Some((off, len)) = mapper.map(&r, &mut st) else {
                let (file, line) = loc;
                return Err(ReplayError::OutOfRange {
                    file: reader.file_name(file),
                    line,
                    offset_bytes: r.offset_bytes,
                    len_bytes: r.len_bytes,
                    capacity_bytes: mapper.cap,
                });
            };
            if let Some(f) = opts.on_submit.as_mut() {
                let time_ns = now - start;
                f(&SubmittedIo { job: 0, clone: 0, time_ns, dir: r.dir, offset_bytes: off, len_bytes: len });
            }
            dev.submit(IoRequest { tag: 0, dir: r.dir, offset_bytes: off, len_bytes: len })?;
            acc.levels[depth_bucket(dev.outstanding())] += 1;
            st.records_issued += 1;
            pending = if interrupted { None } else { ahead.next(reader, dev, &mapper)? };
        }
        if pending.is_none() && dev.outstanding() == 0 {
            break;
        }
        let deadline = match pending {
            Some((r, _)) if timed && dev.outstanding() < qd => Some(due(&r)),
            _ => None,
        };
        if let Some(c) = dev.wait(deadline)? {
            acc.complete(&c);
            completions += 1;
            if completions.is_multiple_of(CHECK_EVERY) {
                if opts.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                    interrupted = true;
                    pending = None;
                }
                if let Some(p) = opts.progress.as_mut() {
                    p(st.records_issued);
                }
            }
        } else if deadline.is_none() {
            break;
        }
    }
    dev.report_point();
    let end = dev.now_ns();
    if st.records_issued > 0 && timed {
        st.late_pct = st.late as f64 / st.records_issued as f64 * 100.0;
        if st.late > 0 {
            st.late_mean_us = late.mean() / 1e3;
            st.late_p99_us = late.percentile(99.0) as f64 / 1e3;
            st.late_max_us = late.max() as f64 / 1e3;
        }
        st.issue_jitter_max_us = jitter_max_ns as f64 / 1e3;
    }
    let job_end = acc.end_ns.max(start);
    let mut series = acc.series;
    series.finish(job_end);
    let job = JobResult {
        name: opts.name.clone(),
        groupid: 0,
        instances: 1,
        options: vec![
            ("mode".into(), format!("{:?}", opts.mode).to_lowercase()),
            ("iodepth".into(), opts.qd.to_string()),
            ("lba_map".into(), format!("{:?}", opts.lba_map).to_lowercase()),
        ],
        rw: RwMode::RandRw,
        iodepth: opts.qd,
        verify: Default::default(),
        latency: crate::runner::LatencyOutcome { depth: opts.qd, percentile: 100.0, ..Default::default() },
        fatal: None,
        percentile_list: DEFAULT_PERCENTILES.to_vec(),
        description: None,
        unified_rw: UnifiedRw::None,
        dirs: acc.dirs,
        series_interval_ns: series.interval_ns(),
        series: series.into_points(),
        start_ns: start,
        end_ns: job_end,
        instances_runtime_ns: 0,
        iodepth_levels: acc.levels,
        steady_state: None,
        host_usage: None,
        warmup: None,
        scaled_sizes: Vec::new(),
    };
    let result = RunResult {
        file: opts.name.clone(),
        global_options: Vec::new(),
        jobs: vec![job],
        seed: 0,
        time_scale: opts.time_scale,
        device: info,
        start_ns: start,
        end_ns: end,
        interrupted,
    };
    Ok((result, st))
}
