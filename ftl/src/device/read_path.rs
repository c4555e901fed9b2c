//! The device's read path: host reads served from the read-ahead window, the write buffer or NAND
//! page reads, then firmware overhead and the PCIe transfer.

use super::*;

impl SimSsd {
    pub(super) fn dispatch_read(&mut self, slot: u32, c: Cmd) {
        self.counters.host_read_bytes += c.len as u64;
        self.counters.host_reads += 1;
        if let Some(ra) = self.read_ahead.as_mut() {
            if ra.on_read(c.first_lpn, c.mus) {
                // Served from the read-ahead window in DRAM, once its reads are in.
                match ra.wait_for(c.first_lpn, c.first_lpn + c.mus, slot) {
                    0 => self.finish_read_dram(slot, c.len),
                    n => self.cmds[slot as usize].pending = n,
                }
                self.read_ahead_more();
                return;
            }
        }
        self.read_from_nand(slot, c);
        self.read_ahead_more();
    }

    /// A host read the read-ahead window does not hold: page reads on NAND.
    pub(super) fn read_from_nand(&mut self, slot: u32, c: Cmd) {
        let l = self.core.layout;
        let mut ops = 0;
        // Consecutive units on one NAND page make one page read.
        let mut cur: Option<(BlockId, u32, u32)> = None; // (block, page index, bytes)
        for lpn in c.first_lpn..c.first_lpn + c.mus {
            // Unmapped, or still in the DRAM write buffer: nothing to read from NAND.
            let Some((block, off)) = self.core.programmed_location(Lpn::new(lpn)) else { continue };
            let page = l.page_index(off);
            let unit = c.unit_read_bytes(lpn - c.first_lpn, self.mu_bytes);
            match cur.as_mut() {
                Some((b, p, bytes)) if *b == block && *p == page => *bytes += unit,
                _ => {
                    if let Some(prev) = cur.take() {
                        self.issue_host_read(slot, prev);
                        ops += 1;
                    }
                    cur = Some((block, page, unit));
                }
            }
        }
        if let Some(prev) = cur {
            self.issue_host_read(slot, prev);
            ops += 1;
        }
        if ops == 0 {
            self.finish_read(slot, c.len);
        } else {
            self.cmds[slot as usize].pending = ops;
        }
    }

    /// Extends the read-ahead window: the units after the stream's last read are read into DRAM,
    /// one group per word line (a multi-plane read per page type), units in the write buffer or
    /// unmapped need no read.
    #[allow(clippy::cast_possible_truncation)] // planes (<= 16), page types (<= 4) and their counts are small (validated geometry)
    pub(super) fn read_ahead_more(&mut self) {
        let Some((from, to)) = self.read_ahead.as_ref().and_then(|ra| ra.wanted(self.core.user_mus())) else {
            return;
        };
        let l = self.core.layout;
        let mus_per_plane_wl = l.mus_per_page * l.geo.bits_per_cell;
        // Where a unit's data is on NAND: (block, word line, plane, page type); None when it needs
        // no NAND read (unmapped, or still in the write buffer).
        let locate = |core: &FtlCore, lpn: u32| {
            let (block, off) = core.programmed_location(Lpn::new(lpn))?;
            let in_wl = off % l.mus_per_pu;
            Some((block, off / l.mus_per_pu, in_wl / mus_per_plane_wl, l.page_type(off) as usize))
        };
        let mut lpn = from;
        while lpn < to {
            let start = lpn;
            let first = locate(&self.core, lpn);
            let wl_of = |x: Option<(BlockId, u32, u32, usize)>| x.map(|(b, w, _, _)| (b, w));
            // Per page type: planes touched (bit mask) and bytes.
            let (mut planes, mut bytes) = ([0u32; 4], [0u32; 4]);
            while lpn < to {
                let here = if lpn == start { first } else { locate(&self.core, lpn) };
                if wl_of(here) != wl_of(first) {
                    break;
                }
                if let Some((_, _, p, t)) = here {
                    planes[t.min(3)] |= 1 << p;
                    bytes[t.min(3)] += self.mu_bytes;
                }
                lpn += 1;
            }
            let reads = planes.iter().filter(|&&m| m != 0).count() as u32;
            let Some(ra) = self.read_ahead.as_mut() else { return };
            let id = ra.add_group(start, lpn, reads);
            if let Some((block, _, _, _)) = first {
                let die = l.die_of_block(block);
                for t in 0..4 {
                    if planes[t] != 0 {
                        let op = NandOp::read(TAG_RA | id as u64, die, t as u8, planes[t].count_ones() as u8, bytes[t]);
                        self.flash.submit(self.now, op);
                    }
                }
            }
        }
    }

    pub(super) fn issue_host_read(&mut self, slot: u32, page: (BlockId, u32, u32)) {
        self.issue_page_read(TAG_READ | slot as u64, page);
    }

    /// A single-plane host-priority read of `bytes` of one NAND page.
    #[allow(clippy::cast_possible_truncation)] // planes (<= 16), page types (<= 4) and their counts are small (validated geometry)
    pub(super) fn issue_page_read(&mut self, tag: u64, (block, page, bytes): (BlockId, u32, u32)) {
        let l = self.core.layout;
        let die = l.die_of_block(block);
        let pt = l.page_type(page * l.mus_per_page);
        // Pages of a word line run plane by plane, each plane's pages by type.
        let plane = (page % (l.geo.planes_per_die * l.geo.bits_per_cell)) / l.geo.bits_per_cell;
        let op = NandOp::read(tag, die, pt, 1, bytes).on_plane(plane as u8);
        self.flash.submit(self.now, op);
    }

    /// A read served from the read-ahead window: decoded when it was prefetched, so only the DMA
    /// out of DRAM and the completion remain (the write path's acknowledgement time).
    pub(super) fn finish_read_dram(&mut self, slot: u32, len: u32) {
        self.finish_read_after(slot, len, self.write_ack_ns);
    }

    pub(super) fn finish_read(&mut self, slot: u32, len: u32) {
        self.finish_read_after(slot, len, self.read_overhead_ns);
    }

    /// Completes a read once `overhead_ns` of controller work and its PCIe transfer are done.
    pub(super) fn finish_read_after(&mut self, slot: u32, len: u32, overhead_ns: SimTime) {
        let x0 = (self.now + overhead_ns).max(self.pcie_out_free);
        self.pcie_out_free = x0 + self.pcie.ns(len);
        self.events.push(Class::ReadDone, self.pcie_out_free, DevEvent::Done(slot));
    }
}
