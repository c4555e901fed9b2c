//! Block traces: parsers of the public trace formats, each a streaming iterator of typed
//! records, their replay on a [`crate::device::Device`], statistics and conversion to fio's
//! iolog.
//!
//! Every parser turns one line into at most one [`TraceRecord`]. Times are nanoseconds since
//! the first record of the trace (records earlier than the first are clamped to 0); offsets and
//! lengths are bytes. A line that cannot be parsed is a *bad line*: counted, the first few kept
//! with file and line number, fatal only with `strict` (see [`reader::TraceReader`]).

pub mod convert;
pub mod fields;
pub mod format;
mod formats;
pub mod reader;
pub mod replay;
pub mod stats;

pub use format::TraceFormat;
pub use reader::{BadLine, TraceError, TraceReader};

use crate::device::IoDir;

/// One I/O of a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    /// Arrival time, ns since the trace's first record.
    pub time_ns: u64,
    pub dir: IoDir,
    pub offset_bytes: u64,
    pub len_bytes: u64,
    /// Volume, disk, LUN or device number, where the format has one (for `--volume`).
    pub volume: Option<u64>,
}

/// A line parser for one format. `raw_time` is the record's time in ns on the format's own
/// clock; the reader rebases it on the first record.
pub trait LineParser: Send {
    /// Parses one line (without its line ending).
    fn parse(&mut self, line: &str) -> Result<LineOut, String>;
}

/// A parser's answer for one line: a record with its raw time, or nothing (a line the format
/// defines that carries no I/O: another action, a file open, a summary).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineOut {
    Io { raw_time_ns: u64, dir: IoDir, offset_bytes: u64, len_bytes: u64, volume: Option<u64> },
    Skip,
}
