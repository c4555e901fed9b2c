//! fio's bandwidth, IOPS and latency logs (`write_bw_log`, `write_iops_log`, `write_lat_log`)
//! in fio 3.33's file names and line format (stat.c, iolog.c `flush_samples`):
//!
//! ```text
//! PREFIX_bw.N.log   PREFIX_iops.N.log   PREFIX_lat.N.log  PREFIX_clat.N.log  PREFIX_slat.N.log
//! msec, value, direction, bs, priority
//! msec, value, direction, bs, offset, priority        (log_offset=1)
//! ```
//! N counts job instances from 1 in file order (numjobs clones included); `per_job_logs=0`
//! drops it. Without `log_avg_msec` every completion is a line: bandwidth is bytes x 10^6 /
//! clat ns, IOPS 1, latencies in ns. With it, latency lines are a window's mean (rounded) or
//! maximum, written by the first sample at least a window after the previous line and once
//! more when the job ends; bandwidth (KiB/s) and IOPS lines come at each multiple of the
//! window for each direction that completed I/O in it, and a last partial window is dropped,
//! as fio's do. Times are job time in ms (simulated time on the simulated drive).

use std::io::{self, Write};

use crate::job::{JobFile, LogOptions};
use crate::runner::CompletedIo;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Bw,
    Iops,
    Lat,
    Clat,
    Slat,
}

/// Window state of one direction of an averaged latency log.
#[derive(Clone, Copy, Debug, Default)]
struct LatWindow {
    sum: u128,
    count: u64,
    max: u64,
    last_ms: u64,
}

/// One log of one job instance.
struct Sink {
    kind: Kind,
    file: usize,
    opts: LogOptions,
    lat: [LatWindow; 3],
    /// Averaged bandwidth/IOPS: the open window's index and its bytes and I/Os per direction.
    window: u64,
    bytes: [u64; 3],
    ios: [u64; 3],
    last_ms: u64,
}

/// The logs of a run, each written through a `W`.
pub struct FioLogs<W: Write> {
    files: Vec<(String, W)>,
    /// Sinks per job section, then per clone.
    sinks: Vec<Vec<Vec<Sink>>>,
}

impl<W: Write> FioLogs<W> {
    /// Opens (with `open`) every log the file's jobs ask for; paths are fio's names.
    pub fn create(file: &JobFile, mut open: impl FnMut(&str) -> io::Result<W>) -> io::Result<Self> {
        let mut logs = FioLogs { files: Vec::new(), sinks: Vec::new() };
        let mut instance = 0u64;
        for job in &file.jobs {
            let mut clones = Vec::new();
            for _ in 0..job.numjobs {
                instance += 1;
                let l = &job.logs;
                let wanted = [
                    (&l.bw, Kind::Bw, "bw"),
                    (&l.iops, Kind::Iops, "iops"),
                    (&l.lat, Kind::Lat, "lat"),
                    (&l.lat, Kind::Clat, "clat"),
                    (&l.lat, Kind::Slat, "slat"),
                ];
                let mut sinks = Vec::new();
                for (prefix, kind, suffix) in wanted {
                    let Some(prefix) = prefix else { continue };
                    let path = if l.per_job {
                        format!("{prefix}_{suffix}.{instance}.log")
                    } else {
                        format!("{prefix}_{suffix}.log")
                    };
                    let file = match logs.files.iter().position(|(p, _)| *p == path) {
                        Some(i) => i,
                        None => {
                            logs.files.push((path.clone(), open(&path)?));
                            logs.files.len() - 1
                        }
                    };
                    sinks.push(Sink {
                        kind,
                        file,
                        opts: l.clone(),
                        lat: Default::default(),
                        window: 0,
                        bytes: [0; 3],
                        ios: [0; 3],
                        last_ms: 0,
                    });
                }
                clones.push(sinks);
            }
            logs.sinks.push(clones);
        }
        Ok(logs)
    }

    /// True when some job writes a log.
    pub fn any(&self) -> bool {
        !self.files.is_empty()
    }

    /// Paths of the logs, for messages.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.iter().map(|(p, _)| p.as_str())
    }

    /// Adds completions to their jobs' logs.
    pub fn record(&mut self, ios: &[CompletedIo]) -> io::Result<()> {
        for io in ios {
            let Some(sinks) = self.sinks.get_mut(io.job as usize).and_then(|c| c.get_mut(io.clone as usize)) else {
                continue;
            };
            for sink in sinks.iter_mut() {
                let (path, out) = &mut self.files[sink.file];
                sink.record(io, out).map_err(|e| io::Error::new(e.kind(), format!("{path}: {e}")))?;
            }
        }
        Ok(())
    }

    /// Writes the last averaged latency lines and flushes every log.
    pub fn finish(mut self) -> io::Result<()> {
        for sink in self.sinks.iter_mut().flatten().flatten() {
            let (path, out) = &mut self.files[sink.file];
            sink.finish(out).map_err(|e| io::Error::new(e.kind(), format!("{path}: {e}")))?;
        }
        for (path, out) in &mut self.files {
            out.flush().map_err(|e| io::Error::new(e.kind(), format!("{path}: {e}")))?;
        }
        Ok(())
    }
}

impl Sink {
    /// One line: `msec, value, direction, bs[, offset], priority` (fio's `flush_samples`).
    fn line(&self, out: &mut impl Write, ms: u64, value: u64, dir: usize, bs: u64, offset: u64) -> io::Result<()> {
        write!(out, "{ms}, {value}, {dir}, {bs}, ")?;
        if self.opts.offset {
            write!(out, "{offset}, ")?;
        }
        if self.opts.prio {
            writeln!(out, "0x0000")
        } else {
            writeln!(out, "0")
        }
    }

    fn record(&mut self, io: &CompletedIo, out: &mut impl Write) -> io::Result<()> {
        let d = io.dir.index();
        let clat = io.complete_ns.saturating_sub(io.submit_ns);
        let (ms, value) = match self.kind {
            Kind::Bw => {
                (io.complete_ns / 1_000_000, (u64::from(io.len_bytes) * 1_000_000).checked_div(clat).unwrap_or(0))
            }
            Kind::Iops => (io.complete_ns / 1_000_000, 1),
            Kind::Lat | Kind::Clat => (io.complete_ns / 1_000_000, clat),
            Kind::Slat => (io.submit_ns / 1_000_000, 0),
        };
        self.last_ms = self.last_ms.max(ms);
        let avg = self.opts.avg_msec;
        if avg == 0 {
            return self.line(out, ms, value, d, u64::from(io.len_bytes), io.offset_bytes);
        }
        match self.kind {
            Kind::Bw | Kind::Iops => {
                let w = ms / avg;
                if w > self.window {
                    self.close_window(out)?;
                    self.window = w;
                }
                self.bytes[d] += u64::from(io.len_bytes);
                self.ios[d] += 1;
                Ok(())
            }
            Kind::Lat | Kind::Clat | Kind::Slat => {
                let win = &mut self.lat[d];
                win.sum += u128::from(value);
                win.count += 1;
                win.max = win.max.max(value);
                if ms < win.last_ms || ms - win.last_ms < avg {
                    return Ok(());
                }
                self.flush_lat(out, d, ms)?;
                self.lat[d].last_ms = ms - ms % avg;
                Ok(())
            }
        }
    }

    /// One line per direction with I/O in the window that just closed (at its end).
    fn close_window(&mut self, out: &mut impl Write) -> io::Result<()> {
        let avg = self.opts.avg_msec;
        let end_ms = (self.window + 1) * avg;
        for d in 0..3 {
            if self.ios[d] == 0 {
                continue;
            }
            let value = match self.kind {
                Kind::Bw => self.bytes[d] * 1000 / avg / 1024,
                _ => self.ios[d] * 1000 / avg,
            };
            self.line(out, end_ms, value, d, 0, 0)?;
        }
        self.bytes = [0; 3];
        self.ios = [0; 3];
        Ok(())
    }

    fn flush_lat(&mut self, out: &mut impl Write, d: usize, ms: u64) -> io::Result<()> {
        let w = self.lat[d];
        if w.count == 0 {
            return Ok(());
        }
        let value =
            if self.opts.max_value { w.max } else { nand_model::cast::sat_u64((w.sum as f64 / w.count as f64) + 0.5) };
        self.lat[d] = LatWindow { last_ms: w.last_ms, ..Default::default() };
        self.line(out, ms, value, d, 0, 0)
    }

    fn finish(&mut self, out: &mut impl Write) -> io::Result<()> {
        if self.opts.avg_msec == 0 {
            return Ok(());
        }
        match self.kind {
            // fio drops the last, partial bandwidth/IOPS window.
            Kind::Bw | Kind::Iops => Ok(()),
            _ => {
                for d in 0..3 {
                    self.flush_lat(out, d, self.last_ms)?;
                }
                Ok(())
            }
        }
    }
}
