//! fio's I/O log, version 3 (`write_iolog`): what fio 3.33 writes, so logs can be compared
//! with fio's and replayed by it.
//!
//! ```text
//! fio version 3 iolog
//! 0 /path add
//! 0 /path open
//! 1 /path write 0 16384
//! 9 /path close
//! ```
//! Times are microseconds since the run started (device time): fio 3.33 writes
//! `utime_since_now(io_log_start_time)` and replays the differences as microsecond delays.

use std::io::{self, Write};

use crate::device::IoDir;
use crate::runner::SubmittedIo;

/// Writes one iolog for one file name.
pub struct IologWriter<W: Write> {
    out: W,
    file: String,
    last_us: u64,
}

impl<W: Write> IologWriter<W> {
    /// Writes the header and the file's `add` and `open` lines.
    pub fn new(mut out: W, file: &str) -> io::Result<Self> {
        writeln!(out, "fio version 3 iolog\n0 {file} add\n0 {file} open")?;
        Ok(IologWriter { out, file: file.to_string(), last_us: 0 })
    }

    pub fn record(&mut self, io: &SubmittedIo) -> io::Result<()> {
        let action = match io.dir {
            IoDir::Read => "read",
            IoDir::Write => "write",
            IoDir::Trim => "trim",
        };
        self.last_us = io.time_ns / 1_000;
        writeln!(self.out, "{} {} {action} {} {}", self.last_us, self.file, io.offset_bytes, io.len_bytes)
    }

    /// Writes the `close` line at `end_ns` and hands back the output.
    pub fn finish(mut self, end_ns: u64) -> io::Result<W> {
        writeln!(self.out, "{} {} close", (end_ns / 1_000).max(self.last_us), self.file)?;
        self.out.flush()?;
        Ok(self.out)
    }
}
