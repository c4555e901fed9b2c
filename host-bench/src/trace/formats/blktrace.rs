//! Binary blktrace (`blktrace -d DEV -o NAME` per-CPU files, or `blkparse -d` dumps), as fio
//! reads it for `read_iolog=`: a stream of 48-byte `struct blk_io_trace` events, each followed
//! by `pdu_len` bytes of payload:
//!
//! ```text
//! u32 magic (0x65617400 | version 7)  u32 sequence  u64 time (ns)  u64 sector (512 B)
//! u32 bytes  u32 action  u32 pid  u32 device  u32 cpu  u16 error  u16 pdu_len
//! ```
//! Native byte order of the tracing machine; the other order is recognised by the magic. Like
//! fio, only queue events (`action & 0xffff == 1`, Q) are I/O; notify, flush and SCSI (pc)
//! events and zero-length events are skipped; a discard is a trim; the write category bit
//! (1 << 17) makes a write, else a read. Volume = device number.

use crate::device::IoDir;
use crate::trace::LineOut;

pub const EVENT_BYTES: usize = 48;
const MAGIC: u32 = 0x6561_7400;
const VERSION: u32 = 0x07;
const TA_QUEUE: u32 = 1;
const fn tc(cat: u32) -> u32 {
    cat << 16
}
const TC_WRITE: u32 = tc(1 << 1);
const TC_FLUSH: u32 = tc(1 << 2);
const TC_PC: u32 = tc(1 << 9);
const TC_NOTIFY: u32 = tc(1 << 10);
const TC_DISCARD: u32 = tc(1 << 13);

/// Byte order of a trace, found from its first event's magic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Little,
    Big,
}

/// The order whose magic `head` carries, or an error naming what was found.
pub fn detect(head: &[u8; EVENT_BYTES]) -> Result<Order, String> {
    let le = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
    let be = u32::from_be_bytes([head[0], head[1], head[2], head[3]]);
    for (m, o) in [(le, Order::Little), (be, Order::Big)] {
        if m & 0xffff_ff00 == MAGIC {
            if m & 0xff != VERSION {
                return Err(format!("blktrace version {} (fio reads version {VERSION})", m & 0xff));
            }
            return Ok(o);
        }
    }
    Err(format!("magic {le:#010x} is not blktrace's ({MAGIC:#010x} | version)"))
}

/// One event: what it is (I/O or skipped) and the payload length that follows it.
pub fn parse_event(e: &[u8; EVENT_BYTES], order: Order) -> Result<(LineOut, u16), String> {
    let u32_at = |i: usize| {
        let b = [e[i], e[i + 1], e[i + 2], e[i + 3]];
        if order == Order::Little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        }
    };
    let u64_at = |i: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&e[i..i + 8]);
        if order == Order::Little {
            u64::from_le_bytes(b)
        } else {
            u64::from_be_bytes(b)
        }
    };
    let pdu = {
        let b = [e[46], e[47]];
        if order == Order::Little {
            u16::from_le_bytes(b)
        } else {
            u16::from_be_bytes(b)
        }
    };
    let magic = u32_at(0);
    if magic & 0xffff_ff00 != MAGIC {
        return Err(format!("event magic {magic:#010x} is not blktrace's (stream out of step)"));
    }
    let (time, sector, bytes, action, device) = (u64_at(8), u64_at(16), u32_at(24), u32_at(28), u32_at(36));
    if action & 0xffff != TA_QUEUE || action & (TC_NOTIFY | TC_FLUSH | TC_PC) != 0 || bytes == 0 {
        return Ok((LineOut::Skip, pdu));
    }
    let dir = if action & TC_DISCARD != 0 {
        IoDir::Trim
    } else if action & TC_WRITE != 0 {
        IoDir::Write
    } else {
        IoDir::Read
    };
    let offset_bytes = sector.checked_mul(512).ok_or("sector is too large")?;
    Ok((
        LineOut::Io {
            raw_time_ns: time,
            dir,
            offset_bytes,
            len_bytes: u64::from(bytes),
            volume: Some(u64::from(device)),
        },
        pdu,
    ))
}
