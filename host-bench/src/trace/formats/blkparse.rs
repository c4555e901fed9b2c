//! blkparse's default text output, e.g. `  8,16   1   1   1.427376394  5529  Q  WS 274432 + 8 [fio]`:
//! device, CPU, sequence, seconds, pid, action, RWBS, sector (512 B) `+` sectors, process.
//!
//! One action class is the issue point (Q: queued by the filesystem, D: issued to the driver);
//! other actions are skipped. RWBS with `D` is a discard (trim), else `W` a write, `R` a read;
//! events without data (flushes, `N`) are skipped. The per-CPU summary blkparse prints at the end
//! (from the first line starting `CPU` or `Total`) is skipped.

use crate::device::IoDir;
use crate::trace::fields::{decimal_ns, split_ws, uint};
use crate::trace::{LineOut, LineParser};

pub struct Blkparse {
    action: String,
    in_summary: bool,
}

impl Blkparse {
    pub fn new(action: char) -> Self {
        Blkparse { action: action.to_string(), in_summary: false }
    }
}

impl LineParser for Blkparse {
    fn parse(&mut self, line: &str) -> Result<LineOut, String> {
        let t = line.trim_start();
        if self.in_summary || t.starts_with("CPU") || t.starts_with("Total") {
            self.in_summary = true;
            return Ok(LineOut::Skip);
        }
        let mut f = [""; 11];
        let n = split_ws(line, &mut f);
        if n < 7 || !f[0].contains(',') {
            return Err("not a blkparse event line (device,cpu,seq,time,pid,action,rwbs ...)".into());
        }
        if f[5] != self.action {
            return Ok(LineOut::Skip);
        }
        let rwbs = f[6];
        let dir = if rwbs.contains('D') {
            IoDir::Trim
        } else if rwbs.contains('W') {
            IoDir::Write
        } else if rwbs.contains('R') {
            IoDir::Read
        } else {
            return Ok(LineOut::Skip);
        };
        if n < 10 || f[8] != "+" {
            // A flush or other event without a sector range.
            return Ok(LineOut::Skip);
        }
        let sectors = uint(f[9], "sectors")?;
        if sectors == 0 {
            return Ok(LineOut::Skip);
        }
        let major_minor = f[0].split_once(',').map(|(a, b)| (uint(a, "major"), uint(b, "minor")));
        let volume = match major_minor {
            Some((Ok(a), Ok(b))) => Some((a << 20) | b),
            _ => return Err(format!("device '{}' is not major,minor", f[0])),
        };
        Ok(LineOut::Io {
            raw_time_ns: decimal_ns(f[3], 1_000_000_000, "time")?,
            dir,
            offset_bytes: uint(f[7], "sector")?.checked_mul(512).ok_or("sector is too large")?,
            len_bytes: sectors * 512,
            volume,
        })
    }
}
