//! GC relocation: moving a victim's live units to the GC stream word line by word line, with the
//! reads they need and the mapping prefetches that hide their cache misses.

use crate::core::{prefetch, CoreEvent, FtlCore, Step, GC};
use nand_model::cast::low_u64;

/// Calls `f(first + i)` for the set bits i of `bits`, in order, until `f` returns false; returns
/// the unit it stopped at, if any. Scanned as two 64-bit halves: bit scans on u64 are single
/// instructions, on u128 they branch.
#[inline(always)]
fn for_each_set_bit(bits: u128, first: u32, mut f: impl FnMut(u32) -> bool) -> Option<u32> {
    for (mut half, base) in [(low_u64(bits), first), (low_u64(bits >> 64), first + 64)] {
        while half != 0 {
            let unit = base + half.trailing_zeros();
            if !f(unit) {
                return Some(unit);
            }
            half &= half - 1;
        }
    }
    None
}

/// Mapping entries of GC's next word line prefetched per host command.
const GC_PREFETCH_PER_COMMAND: u32 = 12;

/// The word line GC moves next (`victim`, `wl`): units `next..end` still to prefetch.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug)]
pub(crate) struct Ahead {
    pub(crate) victim: u32,
    pub(crate) wl: u32,
    pub(crate) next: u32,
    pub(crate) end: u32,
}

/// Where GC relocation is writing: the next free unit of the GC stream's open program unit, the
/// units left in it, the units bound there but not yet committed, and units moved so far.
#[derive(Clone, Copy, Debug, Default)]
struct Run {
    dst: u32,
    room: u32,
    len: u32,
    moved: u32,
}

impl FtlCore {
    /// Relocates every valid MU of `victim` to the GC stream at once (the timeless driver and
    /// foreground GC). Emits the page reads it needs and the programs.
    pub fn relocate(&mut self, victim: u32, out: &mut Vec<CoreEvent>) {
        self.start_relocation(victim);
        while self.relocate_step(u32::MAX, out) == Step::More {}
    }

    /// Takes `victim` out of the GC candidates; [`Self::relocate_step`] then moves its data.
    pub fn start_relocation(&mut self, victim: u32) {
        self.blocks.mark_victim(victim);
        self.stats.gc_victims += 1;
        self.reloc = Some((victim, 0));
        self.aim_prefetch(victim, 0);
    }

    /// The victim being relocated, if any.
    pub fn relocating(&self) -> Option<u32> {
        self.reloc.map(|r| r.0)
    }

    /// The victim being relocated and the next word line to move.
    pub fn relocation_progress(&self) -> Option<(u32, u32)> {
        self.reloc
    }

    /// Relocates up to `max_wls` word lines of the victim in progress. Incremental relocation
    /// lets the device pace GC against host writes instead of moving a whole block in a burst.
    pub fn relocate_step(&mut self, max_wls: u32, out: &mut Vec<CoreEvent>) -> Step {
        let Some((victim, mut wl)) = self.reloc else { return Step::Done };
        let written = self.blocks.write_ptr[victim as usize];
        let wls = self.layout.wls_written(written);
        let mut n = 0;
        while wl < wls && n < max_wls {
            if !self.gc_has_room_for_unit() {
                self.reloc = Some((victim, wl));
                return Step::Stalled;
            }
            if (self.ahead.victim, self.ahead.wl) != (victim, wl) {
                self.aim_prefetch(victim, wl);
            }
            self.prefetch_ahead(u32::MAX);
            self.aim_prefetch(victim, wl + 1);
            self.relocate_wl(victim, wl, out);
            wl += 1;
            n += 1;
        }
        if wl < wls {
            self.reloc = Some((victim, wl));
            return Step::More;
        }
        self.reloc = None;
        Step::Done
    }

    /// Whether the GC stream can take another word line's worth of units.
    fn gc_has_room_for_unit(&self) -> bool {
        self.blocks.free_total() > 0 || self.open_room_reaches(self.stream_index(GC), self.layout.mus_per_pu as u64)
    }

    /// Makes word line `wl` of `victim` the next to prefetch and starts fetching its spare area
    /// (the P2L entries) and live bits, which the mapping-entry prefetches then read.
    fn aim_prefetch(&mut self, victim: u32, wl: u32) {
        let (first, end) = self.wl_units(victim, wl);
        self.ahead = Ahead { victim, wl, next: first, end };
        let mut ppn = first;
        while ppn < end {
            prefetch(&self.p2l, ppn as usize);
            ppn += 16; // 16 entries per 64-byte line
        }
        self.live.prefetch(first);
        self.live.prefetch(end.saturating_sub(1));
    }

    /// Prefetches the mapping entries of up to `max` more live units of the word line GC moves
    /// next. The spare area is read sequentially but the L2P entries it names are random cache
    /// misses; a whole word line's at once stalls the CPU on all of them together, so the
    /// host path calls this with a few units per command ([`Self::prefetch_gc_some`]) and
    /// relocation fetches whatever is left before it moves the word line.
    fn prefetch_ahead(&mut self, max: u32) {
        let (mut next, end, mut left) = (self.ahead.next, self.ahead.end, max);
        while next < end && left > 0 {
            let w = next / 64;
            let mut bits = self.live.word_in(w, next, end);
            next = ((w + 1) * 64).min(end);
            while bits != 0 {
                let ppn = w * 64 + bits.trailing_zeros();
                prefetch(&self.l2p, self.p2l[ppn as usize] as usize);
                bits &= bits - 1;
                left -= 1;
                if left == 0 {
                    if bits != 0 {
                        next = ppn + 1;
                    }
                    break;
                }
            }
        }
        self.ahead.next = next;
    }

    /// A host command's share of GC's mapping-entry prefetches (see `prefetch_ahead`).
    /// No effect on state beyond the prefetch cursor.
    #[inline]
    pub fn prefetch_gc_some(&mut self) {
        if self.ahead.next < self.ahead.end {
            self.prefetch_ahead(GC_PREFETCH_PER_COMMAND);
        }
    }

    /// Physical units `first..end` of word line `wl` of `victim` that hold data (none past the
    /// block's write pointer).
    fn wl_units(&self, victim: u32, wl: u32) -> (u32, u32) {
        let l = &self.layout;
        let written = self.blocks.write_ptr[victim as usize];
        let base = l.first_ppn(victim);
        (base + (wl * l.mus_per_pu).min(written), base + ((wl + 1) * l.mus_per_pu).min(written))
    }

    /// Moves the valid units of one word line of `victim`. Its page reads (one multi-plane read
    /// per page type with live data) are emitted first, so every program carrying this data
    /// waits for them. The units move in offset order, 128 live bits at a time (one chunk for
    /// any word line of up to 128 units).
    fn relocate_wl(&mut self, victim: u32, wl: u32, out: &mut Vec<CoreEvent>) {
        let (first, end) = self.wl_units(victim, wl);
        if first >= end {
            return;
        }
        let mpp = self.layout.mus_per_page;
        let mut live = self.live.bits(first, (end - first).min(128));
        let read = if end - first <= 128 {
            let page_mask = if mpp >= 64 { u64::MAX } else { (1u64 << mpp) - 1 };
            self.emit_gc_reads(
                victim,
                |k| {
                    let sh = k * mpp;
                    // A page of 64 units or fewer (any 4 KiB unit on pages up to 256 KiB): one
                    // 64-bit popcount; wider pages take the 128-bit one.
                    match sh {
                        128.. => 0,
                        _ if mpp <= 64 => (low_u64(live >> sh) & page_mask).count_ones(),
                        _ => (live >> sh).count_ones(),
                    }
                },
                out,
            )
        } else {
            self.emit_gc_reads(
                victim,
                |k| {
                    let lo = first + k * mpp;
                    if lo >= end {
                        0
                    } else {
                        self.live.count_in(lo, (lo + mpp).min(end))
                    }
                },
                out,
            )
        };
        if read == 0 {
            return;
        }
        let mut run = Run::default();
        let mut lo = first;
        loop {
            let stopped = for_each_set_bit(live, lo, |ppn| self.move_unit(ppn, &mut run, out));
            // Live units that could not move (none in practice: see move_unit).
            let rest = stopped.map_or(0, |ppn| live & (u128::MAX << (ppn - lo)));
            // The moved units leave the victim: their live bits go in one pass.
            self.live.clear_mask(lo, live & !rest);
            lo += 128;
            if stopped.is_some() || lo >= end {
                break;
            }
            live = self.live.bits(lo, (end - lo).min(128));
        }
        self.end_moves(victim, run, out);
    }

    /// GC page reads for the live units of a word line, `live` bit i = unit `first + i`:
    /// one multi-plane read per page type holding live data. Returns how many units are live.
    #[allow(clippy::cast_possible_truncation)] // page types (<= 4) and planes (<= 16) are small (validated geometry)
    fn emit_gc_reads(&self, victim: u32, page_live: impl Fn(u32) -> u32, out: &mut Vec<CoreEvent>) -> u32 {
        let l = self.layout;
        let bits = (l.geo.bits_per_cell as usize).min(4);
        let mut planes = [0u8; 4];
        let mut bytes = [0u32; 4];
        let mut moved = 0;
        // Page (plane p, type t) of the word line is page index p * bits + t.
        for p in 0..l.geo.planes_per_die {
            for t in 0..bits {
                let n = page_live(p * bits as u32 + t as u32);
                planes[t] += (n > 0) as u8;
                bytes[t] += n * l.mu_bytes;
                moved += n;
            }
        }
        let die = l.die_of_block(victim);
        for t in 0..bits {
            if planes[t] > 0 {
                out.push(CoreEvent::GcRead { die, page_type: t as u8, planes: planes[t], bytes: bytes[t] });
            }
        }
        moved
    }

    /// Moves live unit `ppn` of the victim to the GC stream, opening program units as `run`
    /// fills them. False if the GC stream has no room (cannot happen: room for a whole unit is
    /// checked before each word line; if it did, the rest would stay live in the victim).
    #[inline(always)]
    fn move_unit(&mut self, ppn: u32, run: &mut Run, out: &mut Vec<CoreEvent>) -> bool {
        if run.room == 0 {
            self.commit_run(run, out);
            let Ok((dst, room)) = self.unit_room(GC) else { return false };
            (run.dst, run.room, run.len) = (dst, room, 0);
        }
        // The caller clears the victim's live bit; the new one is set when the run commits.
        let lpn = self.p2l[ppn as usize];
        self.l2p[lpn as usize] = run.dst;
        self.p2l[run.dst as usize] = lpn;
        if self.cfg.track_sequence {
            let s = self.next_sequence();
            self.seq[run.dst as usize] = s;
        }
        run.dst += 1;
        run.room -= 1;
        run.len += 1;
        run.moved += 1;
        true
    }

    /// Commits the units bound in `run` (if any) and sets their live bits.
    #[inline]
    fn commit_run(&mut self, run: &Run, out: &mut Vec<CoreEvent>) {
        if run.len > 0 {
            self.live.set_range(run.dst - run.len, run.len);
            self.commit(GC, run.len, run.len, 0, out);
        }
    }

    /// Commits the last partial run and settles the victim's count and the GC statistics.
    fn end_moves(&mut self, victim: u32, run: Run, out: &mut Vec<CoreEvent>) {
        self.commit_run(&run, out);
        self.blocks.valid[victim as usize] -= run.moved;
        self.stats.gc_write_mus += run.moved as u64;
    }
}
