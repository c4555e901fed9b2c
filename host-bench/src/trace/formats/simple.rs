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
    #[inline]
    fn parse(&mut self, line: &str) -> Result<LineOut, String> {
        match msr_plain(line.as_bytes()) {
            Some(out) => Ok(out),
            None => msr_general(line),
        }
    }
}

/// An MSR line in its usual shape (untrimmed digit fields of at most 19 digits, a known type,
/// a field after the size) in one pass over the bytes, with no field splitting; `None` for
/// anything else, which [`msr_general`] then parses or rejects with its message. Replaying a
/// large trace spends much of its host-side time here.
#[inline]
fn msr_plain(b: &[u8]) -> Option<LineOut> {
    let (ticks, i) = digits_then_comma(b, 0)?;
    let i = i + b.get(i..)?.iter().position(|&c| c == b',')? + 1; // Hostname (unused)
    let (disk, i) = digits_then_comma(b, i)?;
    let (dir, i) = match b.get(i..i + 5)? {
        [b'R' | b'r', b'e', b'a', b'd', b','] => (IoDir::Read, i + 5),
        [b'W' | b'w', b'r', b'i', b't', b'e'] if b.get(i + 5) == Some(&b',') => (IoDir::Write, i + 6),
        _ => return None,
    };
    let (offset_bytes, i) = digits_then_comma(b, i)?;
    let (len_bytes, _) = digits_then_comma(b, i)?;
    Some(LineOut::Io { raw_time_ns: ticks.checked_mul(100)?, dir, offset_bytes, len_bytes, volume: Some(disk) })
}

/// The decimal number of 1 to 19 digits at `b[i..]` and the index after the comma that must
/// follow it (19 digits cannot overflow a u64). A plain byte loop: a word-at-a-time digit
/// count plus [`uint`] measured more instructions on these short fields.
#[inline(always)]
fn digits_then_comma(b: &[u8], mut i: usize) -> Option<(u64, usize)> {
    let start = i;
    let mut v = 0u64;
    while let Some(&c) = b.get(i) {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        if i - start == 19 {
            return None;
        }
        v = v * 10 + u64::from(d);
        i += 1;
    }
    (i > start && b.get(i) == Some(&b',')).then_some((v, i + 1))
}

/// Any MSR line, with the message for a bad one.
fn msr_general(line: &str) -> Result<LineOut, String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-pass path answers exactly as the general parser on lines near the usual shape:
    /// digits of every length, spaces, missing and extra fields, other types, overflow.
    #[test]
    fn plain_msr_matches_the_general_parser() {
        let pieces: [&[&str]; 7] = [
            &[
                "128166372000000000",
                "0",
                "",
                " 12",
                "1234567",
                "12345678",
                "123456789",
                "9999999999999999999",
                "99999999999999999999",
                "1x",
            ],
            &["host", "", "a b", "usr_1"],
            &["0", "7", "", "12345678901234567890", " 3"],
            &["Read", "Write", "read", "write", "Reads", "Writ", "R", "Flush", "write "],
            &["5668741120", "0", "4096 ", "", "1e3"],
            &["20480", "4096", "", "12a"],
            &["100", "", "1,2"],
        ];
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut fast = 0;
        for _ in 0..20_000 {
            let mut line = String::new();
            let fields = 1 + (x % 8) as usize;
            for (k, choices) in pieces.iter().enumerate().take(fields) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if k > 0 {
                    line.push(',');
                }
                // Mostly the well-formed first choice, so both paths get exercised.
                let pick = if x.is_multiple_of(3) { (x >> 8) as usize % choices.len() } else { 0 };
                line.push_str(choices[pick]);
            }
            let plain = msr_plain(line.as_bytes());
            fast += plain.is_some() as u32;
            if let Some(p) = plain {
                assert_eq!(Ok(p), msr_general(&line), "{line:?}");
            }
            assert_eq!(Msr.parse(&line), msr_general(&line), "{line:?}");
        }
        assert!(fast > 1_000, "{fast} lines took the one-pass path");
    }
}
