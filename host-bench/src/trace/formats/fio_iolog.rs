//! fio's iolog, versions 2 and 3 (`write_iolog`, `read_iolog`), as fio 3.33 reads it.
//!
//! ```text
//! fio version 3 iolog          fio version 2 iolog
//! 0 /f add                     /f add
//! 0 /f open                    /f open
//! 3 /f write 0 4096            /f write 0 4096
//! 9 /f close                   /f wait 1000
//! ```
//! v3 lines start with a time in microseconds since the start (what fio 3.33 writes); v2 has
//! none, and `wait N` holds the following entries until N milliseconds after the start (fio
//! 3.33 sleeps until `mtime_since_genesis()` reaches N). File actions (add, open, close) and sync /
//! datasync carry no data and are skipped, and so is a repeated header (fio writes one per job
//! appending to the log). Several files are replayed onto one target.

use crate::device::IoDir;
use crate::trace::fields::{split_ws, uint};
use crate::trace::{LineOut, LineParser};

#[derive(Default)]
pub struct FioIolog {
    version: Option<u8>,
    /// v2: the clock set by `wait` lines, ns.
    clock_ns: u64,
}

impl LineParser for FioIolog {
    fn parse(&mut self, line: &str) -> Result<LineOut, String> {
        let Some(version) = self.version else {
            self.version = Some(match line.trim() {
                "fio version 2 iolog" => 2,
                "fio version 3 iolog" => 3,
                h => return Err(format!("'{h}' is not an iolog header (fio version 2 iolog / fio version 3 iolog)")),
            });
            return Ok(LineOut::Skip);
        };
        if matches!(line.trim(), "fio version 2 iolog" | "fio version 3 iolog") {
            // fio 3.33 starts the log again when a later job appends to the same file.
            return Ok(LineOut::Skip);
        }
        let mut f = [""; 6];
        let n = split_ws(line, &mut f);
        let (time_ns, rest) = if version == 3 {
            if n < 3 {
                return Err("a v3 iolog line is 'TIME FILE ACTION [OFFSET LENGTH]'".into());
            }
            (uint(f[0], "time")?.checked_mul(1_000).ok_or("time is too large")?, &f[1..n.min(6)])
        } else {
            if n < 2 {
                return Err("a v2 iolog line is 'FILE ACTION [OFFSET LENGTH]'".into());
            }
            (self.clock_ns, &f[..n.min(6)])
        };
        let dir = match rest[1] {
            "read" => IoDir::Read,
            "write" => IoDir::Write,
            "trim" => IoDir::Trim,
            "wait" if version == 2 && rest.len() >= 3 => {
                let ms = uint(rest[2], "wait")?;
                self.clock_ns = self.clock_ns.max(ms.saturating_mul(1_000_000));
                return Ok(LineOut::Skip);
            }
            "add" | "open" | "close" | "sync" | "datasync" => return Ok(LineOut::Skip),
            a => {
                return Err(format!("action '{a}' is not read, write, trim, sync, datasync, wait, add, open or close"))
            }
        };
        if rest.len() < 4 {
            return Err(format!("'{}' needs an offset and a length", rest[1]));
        }
        Ok(LineOut::Io {
            raw_time_ns: time_ns,
            dir,
            offset_bytes: uint(rest[2], "offset")?,
            len_bytes: uint(rest[3], "length")?,
            volume: None,
        })
    }
}
