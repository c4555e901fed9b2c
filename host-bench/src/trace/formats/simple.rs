//! The columnar formats: one I/O per line, fixed fields, no state.

use crate::device::IoDir;
use crate::trace::fields::{decimal_ns, split_into, split_ws, uint};
use crate::trace::{LineOut, LineParser};

const SECTOR: u64 = 512;
const S: u64 = 1_000_000_000;

fn need(n: usize, got: usize, what: &str) -> Result<(), String> {
    if got < n {
        return Err(format!("{got} fields, {what} has {n}"));
    }
    Ok(())
}

fn sectors(s: &str, what: &str) -> Result<u64, String> {
    uint(s, what)?.checked_mul(SECTOR).ok_or_else(|| format!("{what} '{s}' is too large"))
}

/// MSR Cambridge: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
pub struct Msr;

impl LineParser for Msr {
    fn parse(&mut self, line: &str) -> Result<LineOut, String> {
        let mut f = [""; 7];
        let n = split_into(line, ',', &mut f);
        need(7, n, "MSR")?;
        let ticks = uint(f[0], "Timestamp")?;
        let dir = match f[3] {
            "Read" | "read" => IoDir::Read,
            "Write" | "write" => IoDir::Write,
            t => return Err(format!("Type '{t}' is not Read or Write")),
        };
        Ok(LineOut::Io {
            raw_time_ns: ticks.checked_mul(100).ok_or("Timestamp is too large")?,
            dir,
            offset_bytes: uint(f[4], "Offset")?,
            len_bytes: uint(f[5], "Size")?,
            volume: Some(uint(f[2], "DiskNumber")?),
        })
    }
}

/// SNIA IOTTA SYSTOR'17: `Timestamp,Response,IOType,LUN,Offset,Size`.
pub struct Systor;

impl LineParser for Systor {
    fn parse(&mut self, line: &str) -> Result<LineOut, String> {
        let mut f = [""; 6];
        let n = split_into(line, ',', &mut f);
        need(6, n, "SYSTOR'17")?;
        let dir = match f[2] {
            "R" | "r" => IoDir::Read,
            "W" | "w" => IoDir::Write,
            t => return Err(format!("IOType '{t}' is not R or W")),
        };
        Ok(LineOut::Io {
            raw_time_ns: decimal_ns(f[0], S, "Timestamp")?,
            dir,
            offset_bytes: uint(f[4], "Offset")?,
            len_bytes: uint(f[5], "Size")?,
            volume: Some(uint(f[3], "LUN")?),
        })
    }
}

/// Tencent CBS: `Timestamp,Offset,Size,IOType,VolumeID`.
pub struct Tencent;

impl LineParser for Tencent {
    fn parse(&mut self, line: &str) -> Result<LineOut, String> {
        let mut f = [""; 5];
        let n = split_into(line, ',', &mut f);
        need(5, n, "Tencent CBS")?;
        let dir = match f[3] {
            "0" => IoDir::Read,
            "1" => IoDir::Write,
            t => return Err(format!("IOType '{t}' is not 0 (read) or 1 (write)")),
        };
        Ok(LineOut::Io {
            raw_time_ns: decimal_ns(f[0], S, "Timestamp")?,
            dir,
            offset_bytes: sectors(f[1], "Offset")?,
            len_bytes: sectors(f[2], "Size")?,
            volume: Some(uint(f[4], "VolumeID")?),
        })
    }
}

/// Alibaba block traces: `device_id,opcode,offset,length,timestamp`.
pub struct Alibaba;

impl LineParser for Alibaba {
    fn parse(&mut self, line: &str) -> Result<LineOut, String> {
        let mut f = [""; 5];
        let n = split_into(line, ',', &mut f);
        need(5, n, "Alibaba")?;
        let dir = match f[1] {
            "R" | "r" => IoDir::Read,
            "W" | "w" => IoDir::Write,
            t => return Err(format!("opcode '{t}' is not R or W")),
        };
        Ok(LineOut::Io {
            raw_time_ns: decimal_ns(f[4], 1_000, "timestamp")?,
            dir,
            offset_bytes: uint(f[2], "offset")?,
            len_bytes: uint(f[3], "length")?,
            volume: Some(uint(f[0], "device_id")?),
        })
    }
}

/// UMass SPC: `ASU,LBA,Size,Opcode,Timestamp` (LBA in 512 B sectors, Size in bytes, seconds).
pub struct Umass;

impl LineParser for Umass {
    fn parse(&mut self, line: &str) -> Result<LineOut, String> {
        let mut f = [""; 5];
        let n = split_into(line, ',', &mut f);
        need(5, n, "UMass SPC")?;
        let dir = match f[3] {
            "R" | "r" => IoDir::Read,
            "W" | "w" => IoDir::Write,
            t => return Err(format!("Opcode '{t}' is not r or w")),
        };
        Ok(LineOut::Io {
            raw_time_ns: decimal_ns(f[4], S, "Timestamp")?,
            dir,
            offset_bytes: sectors(f[1], "LBA")?,
            len_bytes: uint(f[2], "Size")?,
            volume: Some(uint(f[0], "ASU")?),
        })
    }
}

/// MQSim ASCII (`arrival_time device_no start_LBA size_in_sectors type`, ns, 0 = write) and
/// DiskSim ASCII (the same columns, time in decimal ms, flags bit 0 = read).
pub struct Mqsim {
    pub disksim: bool,
}

impl LineParser for Mqsim {
    fn parse(&mut self, line: &str) -> Result<LineOut, String> {
        let mut f = [""; 5];
        let n = split_ws(line, &mut f);
        need(5, n, if self.disksim { "DiskSim ASCII" } else { "MQSim ASCII" })?;
        let (time, dir) = if self.disksim {
            let flags = uint(f[4], "flags")?;
            (decimal_ns(f[0], 1_000_000, "time")?, if flags & 1 == 1 { IoDir::Read } else { IoDir::Write })
        } else {
            let dir = match f[4] {
                "0" => IoDir::Write,
                "1" => IoDir::Read,
                t => return Err(format!("type '{t}' is not 0 (write) or 1 (read)")),
            };
            (uint(f[0], "arrival_time")?, dir)
        };
        Ok(LineOut::Io {
            raw_time_ns: time,
            dir,
            offset_bytes: sectors(f[2], "start_LBA")?,
            len_bytes: sectors(f[3], "size_in_sectors")?,
            volume: Some(uint(f[1], "device_no")?),
        })
    }
}
