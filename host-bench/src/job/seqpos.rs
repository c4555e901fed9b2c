//! Where a non-random I/O goes, with fio 3.33's arithmetic (io_u.c): per-direction positions
//! (`last_pos`, `last_start`), the `rw=...:N` hole or backward step (`get_next_seq_offset`,
//! quirks included: a backward walk from a nonzero `offset` first rewinds to `size`, not to
//! `offset + size`) and strided zones (`setup_strided_zone_mode`). Offsets handed out are
//! relative to the current zone start ([`SeqPos::base`]), as fio's are to `file_offset`.

use super::StridedZones;

/// Sequential positions of one job instance.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub(super) struct SeqPos {
    /// Absolute end of the previous I/O per direction (fio `last_pos`).
    last_pos: [u64; 3],
    /// Absolute start of the previous I/O per direction (fio `last_start`).
    last_start: [Option<u64>; 3],
    /// Start of the current zone; the job's `offset` without zones (fio `file_offset`).
    base: u64,
    /// The job's `offset`, where zones wrap to.
    start: u64,
    /// The job's region length (fio's `f->io_size`) and the device size (`real_file_size`).
    io_size: u64,
    file_size: u64,
    add: i64,
    zones: Option<Zones>,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug)]
struct Zones {
    cfg: StridedZones,
    /// Bytes issued in the current zone (fio `zone_bytes`).
    bytes: u64,
}

impl SeqPos {
    pub fn new(start: u64, io_size: u64, file_size: u64, add: i64, zones: Option<StridedZones>) -> Self {
        SeqPos {
            last_pos: [start; 3],
            last_start: [None; 3],
            base: start,
            start,
            io_size,
            file_size,
            add,
            zones: zones.map(|cfg| Zones { cfg, bytes: 0 }),
        }
    }

    /// Start of the current zone (the region start without zones).
    #[inline]
    pub fn base(&self) -> u64 {
        self.base
    }

    /// fio's `fio_file_reset`: every direction back to the zone start (a new loop or zone pass).
    pub fn reset(&mut self) {
        self.last_pos = [self.base; 3];
        self.last_start = [None; 3];
    }

    /// fio's `setup_strided_zone_mode`, before each I/O of direction `d`: moves to the next
    /// zone when this one has had its `zonesize` bytes. True when the random map (or LFSR)
    /// must be reset, which fio does each `zonerange` bytes of I/O.
    #[inline]
    pub fn enter_zone(&mut self, d: usize) -> bool {
        let Some(z) = self.zones.as_mut() else {
            return false;
        };
        if z.bytes >= z.cfg.size_bytes {
            z.bytes = 0;
            self.base = self.base.saturating_add(z.cfg.range_bytes).saturating_add(z.cfg.skip_bytes);
            if self.base >= self.file_size {
                self.base = self.start;
            }
            self.last_pos[d] = self.base;
        }
        if self.last_pos[d] >= self.base.saturating_add(z.cfg.range_bytes) {
            self.last_pos[d] = self.base;
        }
        if z.bytes % z.cfg.range_bytes.max(1) == 0 {
            self.reset();
            return true;
        }
        false
    }

    /// fio's `get_next_seq_offset`: the offset after the previous I/O of direction `d` plus the
    /// modifier, relative to [`SeqPos::base`]; `None` once the position is past the device.
    #[inline]
    pub fn seq_offset(&mut self, d: usize) -> Option<u64> {
        if self.last_pos[d] >= self.file_size {
            return None;
        }
        let rewind = self.file_size.min(self.io_size);
        if self.last_pos[d] == self.base && self.base != 0 && self.add < 0 {
            self.last_pos[d] = rewind;
        }
        let mut pos = self.last_pos[d].wrapping_sub(self.base);
        if pos != 0 && self.add != 0 {
            pos = pos.wrapping_add(self.add as u64);
            if pos >= self.file_size {
                pos = if self.add > 0 { self.base } else { rewind.wrapping_add(self.add as u64) };
            }
        }
        Some(pos)
    }

    /// `rw_sequencer=identical`: the previous I/O's offset in direction `d` (0 before any).
    #[inline]
    pub fn identical_offset(&self, d: usize) -> u64 {
        self.last_start[d].map_or(0, |s| s.wrapping_sub(self.base))
    }

    /// Records an issued I/O at `rel` (relative to the base) of `len` bytes in direction `d`.
    #[inline]
    pub fn issued(&mut self, d: usize, rel: u64, len: u64) {
        let abs = self.base + rel;
        self.last_start[d] = Some(abs);
        self.last_pos[d] = abs + len;
        if let Some(z) = self.zones.as_mut() {
            z.bytes += len;
        }
    }
}
