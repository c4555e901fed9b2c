//! A job's I/O from fio's `read_iolog` (v2 or v3): each entry in log order, with fio 3.33's
//! replay arithmetic (iolog.c): the delay before an entry is the time since the previous
//! entry, times 100 / `replay_time_scale`, none with `replay_no_stall` or when time runs
//! backwards; offsets divided by `replay_scale` and rounded down to `replay_align`. The log is
//! streamed (memory: one line), and a line that fio would skip as bad is an error here, naming
//! the file and line, so a replay is never silently shorter than its log.

use std::path::PathBuf;

use crate::job::pattern::NextIo;
use crate::job::Replay;
use crate::trace::reader::{ReadOptions, TraceReader};
use crate::trace::TraceFormat;

/// The entries of one iolog, as the runner asks for them.
pub(super) struct IologSource {
    reader: TraceReader,
    cfg: Replay,
    capacity_bytes: u64,
    logical_block_bytes: u64,
    prev_time_ns: Option<u64>,
}

impl IologSource {
    /// Opens the job's log; the first line must be fio's v2 or v3 header.
    pub fn open(cfg: &Replay, capacity_bytes: u64, logical_block_bytes: u32) -> Result<Self, String> {
        let path = cfg.read_iolog.clone().unwrap_or_default();
        std::fs::File::open(&path).map_err(|e| format!("read_iolog={path}: {e}"))?;
        let opts = ReadOptions { strict: true, ..Default::default() };
        Ok(IologSource {
            reader: TraceReader::new(&[PathBuf::from(&path)], &TraceFormat::FioIolog, opts),
            cfg: cfg.clone(),
            capacity_bytes,
            logical_block_bytes: u64::from(logical_block_bytes.max(1)),
            prev_time_ns: None,
        })
    }

    /// The next entry and the delay before it is issued (ns); `None` at the end of the log.
    pub fn next(&mut self) -> Result<Option<(NextIo, u64)>, String> {
        let Some(rec) = self.reader.next_record().map_err(|e| format!("read_iolog: {e}"))? else {
            return Ok(None);
        };
        let delay_ns = match self.prev_time_ns {
            Some(prev) if !self.cfg.no_stall && rec.time_ns >= prev => {
                let d = rec.time_ns - prev;
                if self.cfg.time_scale_percent == 100 {
                    d
                } else {
                    nand_model::cast::sat_u64(d as f64 * 100.0 / f64::from(self.cfg.time_scale_percent.max(1)))
                }
            }
            _ => 0,
        };
        self.prev_time_ns = Some(rec.time_ns);
        let mut offset = rec.offset_bytes / self.cfg.offset_divisor.max(1);
        if self.cfg.align_bytes > 0 {
            offset &= !(self.cfg.align_bytes - 1);
        }
        let (file, line) = self.reader.location();
        let lbs = self.logical_block_bytes;
        let end = offset.checked_add(rec.len_bytes);
        if end.is_none_or(|e| e > self.capacity_bytes) {
            return Err(format!(
                "{file}:{line}: entry at offset {offset} + {} bytes is past the end of the target ({} bytes)",
                rec.len_bytes, self.capacity_bytes
            ));
        }
        if !offset.is_multiple_of(lbs) || rec.len_bytes % lbs != 0 || rec.len_bytes > u64::from(u32::MAX) {
            return Err(format!(
                "{file}:{line}: entry at offset {offset} of {} bytes is not in whole {lbs}-byte blocks (replay_align rounds offsets)",
                rec.len_bytes
            ));
        }
        let len_bytes = u32::try_from(rec.len_bytes).map_err(|_| {
            format!(
                "{file}:{line}: entry at offset {offset} is {} bytes long (allowed at most 4294967295)",
                rec.len_bytes
            )
        })?;
        let io = NextIo { dir: rec.dir, offset_bytes: offset, len_bytes };
        Ok(Some((io, delay_ns)))
    }
}

/// The largest entry of an iolog in bytes (a real target sizes its buffers before the run, as
/// fio raises its `max_bs` while reading the log).
pub fn largest_entry_bytes(path: &str) -> Result<u64, String> {
    let opts = ReadOptions { strict: true, ..Default::default() };
    let mut reader = TraceReader::new(&[PathBuf::from(path)], &TraceFormat::FioIolog, opts);
    let mut largest = 0;
    while let Some(rec) = reader.next_record().map_err(|e| format!("read_iolog: {e}"))? {
        largest = largest.max(rec.len_bytes);
    }
    Ok(largest)
}
