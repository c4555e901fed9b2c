//! GC relocation: moving victims' live units to the GC stream word line by word line, a lane per
//! die, with the reads they need and the mapping prefetches that hide their cache misses.

use crate::core::{prefetch, CoreEvent, FtlCore, Step, GC};
use crate::die_mask::DieMask;
use crate::ids::{BlockId, Ppn};
use crate::layout::NONE;
use nand_model::cast::{low_u64, usize_from};

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

/// Set bits of each byte value. The build targets baseline x86-64, which has no POPCNT
/// instruction: `count_ones` is a sequence of ~15 there, and GC counts the live units of every
/// page of each word line it moves (12 pages of a TLC word line on 4 planes).
const BYTE_ONES: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 1;
    while i < 256 {
        t[i] = t[i / 2] + (i % 2 == 1) as u8;
        i += 1;
    }
    t
};

/// Mapping entries of GC's next word line prefetched per host command.
const GC_PREFETCH_PER_COMMAND: u32 = 12;

/// The word line GC moves next (`victim`, `wl`): units `next..end` still to prefetch.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug)]
pub(crate) struct Ahead {
    pub(crate) victim: BlockId,
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

/// One die's GC lane: the victim on that die being relocated, if any.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug)]
pub(crate) struct Lane {
    /// The victim, or `BlockId::NONE` when the lane is idle.
    pub(crate) block: BlockId,
    /// Valid units when it was chosen.
    pub(crate) valid_at_pick: u32,
    /// Word lines it holds data in (none when nothing in it was valid) and the next to move.
    wls: u32,
    wl: u32,
}

const IDLE: Lane = Lane { block: BlockId::NONE, valid_at_pick: 0, wls: 0, wl: 0 };

/// GC's lanes, one per die. Firmware collects on every die at once (superblock GC), so the
/// page reads that move a full-size block's hundreds of word lines run on all dies rather than
/// queueing on one. Lanes move a word line each in turn, and a lane starts only once the lane
/// started before it has moved 1/dies of its word lines: the lanes run staggered, so victims
/// finish (and free their blocks) one after another rather than all at once.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub(crate) struct Reloc {
    lanes: Vec<Lane>,
    /// The dies whose lane holds a victim: finding the next busy lane is a few word operations,
    /// where a scan over up to 128 mostly idle lanes cost a visible share of every host write.
    busy: DieMask,
    /// Lanes with a victim: `busy`'s count, kept because GC asks it after every host write.
    active: u32,
    /// The lane that moves next.
    cursor: u32,
    /// The lane started last (`NONE`: none yet).
    last_started: u32,
    /// Word lines and erase gains (units) of the active lanes' victims, as chosen: their ratio
    /// is the word lines GC moves per host unit written.
    pub(crate) wls_sum: u64,
    pub(crate) gain_sum: u64,
    /// Word lines moved since the drive started (the device's pacing counts the difference).
    pub(crate) wls_moved: u64,
}

impl Reloc {
    pub(crate) fn new(dies: u32) -> Reloc {
        Reloc {
            lanes: vec![IDLE; dies as usize],
            busy: DieMask::new(dies),
            active: 0,
            cursor: 0,
            last_started: NONE,
            wls_sum: 0,
            gain_sum: 0,
            wls_moved: 0,
        }
    }

    /// Whether any lane holds a victim.
    pub(crate) fn any_active(&self) -> bool {
        self.active > 0
    }

    /// Lanes holding a victim.
    pub(crate) fn active_lanes(&self) -> u32 {
        self.active
    }

    /// Whether another lane may start: an idle one exists and the lane started last has moved
    /// 1/dies of its word lines (or finished).
    pub(crate) fn may_start(&self) -> bool {
        let n = self.lanes.len() as u64;
        (self.active as u64) < n
            && self
                .lanes
                .get(self.last_started as usize)
                .is_none_or(|l| l.block == BlockId::NONE || u64::from(l.wl) * n >= u64::from(l.wls))
    }

    /// The dies whose lane holds a victim.
    pub(crate) fn busy(&self) -> &DieMask {
        &self.busy
    }

    /// Whether `die`'s lane is idle.
    pub(crate) fn idle(&self, die: u32) -> bool {
        self.lanes[die as usize].block == BlockId::NONE
    }

    /// The victims of the busy lanes, in die order.
    pub(crate) fn victims(&self) -> impl Iterator<Item = BlockId> + '_ {
        self.busy.ones().map(|d| self.lanes[d as usize].block)
    }

    /// Moves the cursor to the next busy lane (itself if busy) and returns that lane; `None`
    /// when every lane is idle. The lanes skipped are idle, so the order lanes move in is that
    /// of a one-by-one walk.
    #[inline]
    fn settle_cursor(&mut self) -> Option<Lane> {
        // Usually already there: after a call that moved nothing.
        let here = self.lanes[self.cursor as usize];
        if here.block != BlockId::NONE {
            return Some(here);
        }
        self.cursor_to_busy_lane()
    }

    /// [`Self::settle_cursor`] past an idle lane, out of line so that the usual case inlines.
    #[inline(never)]
    fn cursor_to_busy_lane(&mut self) -> Option<Lane> {
        let i = self.busy.next_from(self.cursor, None)?;
        self.cursor = i;
        Some(self.lanes[i as usize])
    }
}

impl FtlCore {
    /// Relocates every valid MU of `victim` (its die's lane idle) to the GC stream at once (the
    /// timeless driver). Emits the page reads it needs, the programs and its `Relocated`.
    pub fn relocate(&mut self, victim: BlockId, out: &mut Vec<CoreEvent>) {
        self.start_lane(victim);
        while self.relocate_step(u32::MAX, out) == Step::More {}
    }

    /// Takes `victim` out of the GC candidates into its die's lane (which must be idle);
    /// [`Self::relocate_step`] then moves its data.
    pub fn start_lane(&mut self, victim: BlockId) {
        let l = self.layout;
        self.blocks.mark_victim(victim);
        self.stats.gc_victims += 1;
        let valid = self.blocks.valid[victim.idx()];
        let wls = if valid == 0 { 0 } else { l.wls_written(self.blocks.write_ptr[victim.idx()]) };
        let die = l.die_of_block(victim);
        let r = &mut self.reloc;
        debug_assert!(r.idle(die), "lane {die} is busy");
        r.lanes[die as usize] = Lane { block: victim, valid_at_pick: valid, wls, wl: 0 };
        r.busy.set(die, true);
        r.active += 1;
        r.last_started = die;
        r.wls_sum += u64::from(wls);
        r.gain_sum += u64::from(l.mus_per_block - valid);
        self.relocation_epoch += 1;
        if r.active == 1 {
            r.cursor = die;
            self.aim_prefetch(victim, 0);
        }
    }

    /// The victims being relocated: chosen and their data not all moved.
    pub fn relocating(&self) -> impl Iterator<Item = BlockId> + '_ {
        self.reloc.victims()
    }

    /// Whether `block` is a victim whose data is still being moved.
    pub fn is_relocating(&self, block: BlockId) -> bool {
        let die = self.layout.die_of_block(block);
        self.reloc.lanes.get(die as usize).is_some_and(|l| l.block == block)
    }

    /// Changes whenever [`Self::relocating`] does (a lane starts or finishes).
    pub fn relocation_epoch(&self) -> u64 {
        self.relocation_epoch
    }

    /// Valid units `block` held when GC chose it, while it is being relocated.
    pub fn valid_at_pick(&self, block: BlockId) -> Option<u32> {
        self.is_relocating(block).then(|| self.reloc.lanes[self.layout.die_of_block(block) as usize].valid_at_pick)
    }

    /// Relocates up to `max_wls` word lines of the active lanes, one per lane in turn
    /// (incremental relocation lets the device pace GC against host writes instead of moving
    /// whole blocks in a burst). A victim whose data has all moved leaves its lane and is
    /// reported at once (`CoreEvent::Relocated`, after the reads and programs that carry its
    /// data), even with `max_wls` 0 when the lane reached has nothing left to move. `Done`
    /// when no lane is active.
    pub fn relocate_step(&mut self, max_wls: u32, out: &mut Vec<CoreEvent>) -> Step {
        self.relocate_step_filling(max_wls, false, out)
    }

    /// [`Self::relocate_step`]; with `fill_open_unit` (no block free, host writes blocked) a
    /// word line whose live units do not all fit in GC's open unit moves those that do: the
    /// full unit is programmed, the victims waiting on it are erased, and the rest of the word
    /// line follows into a freed block.
    pub(crate) fn relocate_step_filling(
        &mut self,
        max_wls: u32,
        fill_open_unit: bool,
        out: &mut Vec<CoreEvent>,
    ) -> Step {
        let dies = self.layout.dies;
        let mut n = 0;
        while let Some(lane) = self.reloc.settle_cursor() {
            let i = self.reloc.cursor;
            let next = if i + 1 == dies { 0 } else { i + 1 };
            if self.lane_has_work(lane) {
                if n >= max_wls {
                    return Step::More;
                }
                // The word line moves its live units only, at most a program unit's worth.
                let partly = !self.gc_has_room_for(self.blocks.valid[lane.block.idx()].min(self.layout.mus_per_pu));
                if partly && !(fill_open_unit && self.open_room_reaches(self.stream_index(GC), 1)) {
                    return Step::Stalled;
                }
                if (self.ahead.victim, self.ahead.wl) != (lane.block, lane.wl) {
                    self.aim_prefetch(lane.block, lane.wl);
                }
                self.prefetch_ahead(u32::MAX);
                // Moving in part, the pages read are those of the units that fit; the rest are
                // read when they move.
                let fits = if partly { self.open_room(self.stream_index(GC)) } else { u64::MAX };
                self.relocate_wl(lane.block, lane.wl, u32::try_from(fits).unwrap_or(u32::MAX), out);
                if partly && self.wl_has_live(lane.block, lane.wl) {
                    return Step::Stalled; // the rest of the word line waits for a free block
                }
                self.reloc.lanes[i as usize].wl += 1;
                self.reloc.wls_moved += 1;
                n += 1;
                if self.lane_has_work(self.reloc.lanes[i as usize]) {
                    self.reloc.cursor = next;
                    self.aim_next_lane();
                    continue;
                }
            }
            // Nothing valid is left in it (its remaining word lines hold no live data).
            let r = &mut self.reloc;
            r.lanes[i as usize] = IDLE;
            r.busy.set(i, false);
            r.active -= 1;
            r.wls_sum -= u64::from(lane.wls);
            r.gain_sum -= u64::from(self.layout.mus_per_block - lane.valid_at_pick);
            r.cursor = next;
            self.relocation_epoch += 1;
            out.push(CoreEvent::Relocated { block: lane.block });
            self.aim_next_lane();
        }
        Step::Done
    }

    /// Whether [`Self::relocate_step`] with no word lines to move would do nothing but settle
    /// its cursor: the next busy lane still has data to move (no lane to release). Settles the
    /// cursor as that call would, so skipping the call changes nothing. Inlined: host writes
    /// ask it after nearly every unit while GC runs flat out.
    #[inline(always)]
    pub fn next_lane_has_work(&mut self) -> bool {
        self.reloc.settle_cursor().is_some_and(|lane| self.lane_has_work(lane))
    }

    /// Whether `lane` still has data to move: word lines left and valid units in its victim
    /// (the word lines past the last valid unit hold none).
    #[inline]
    fn lane_has_work(&self, lane: Lane) -> bool {
        lane.wl < lane.wls && self.blocks.valid[lane.block.idx()] > 0
    }

    /// Aims the mapping prefetches at the word line the lane at the cursor (or the next busy
    /// one) moves next.
    fn aim_next_lane(&mut self) {
        let Some(i) = self.reloc.busy.next_from(self.reloc.cursor, None) else { return };
        let l = self.reloc.lanes[i as usize];
        if (self.ahead.victim, self.ahead.wl) != (l.block, l.wl) {
            self.aim_prefetch(l.block, l.wl);
        }
    }

    /// Whether the GC stream can take `need` more units. Asking for a whole program unit when
    /// the drive has no free block would stall a victim whose few live units fit in the open
    /// unit: with blocks of one program unit and no PLP, GC then padded every victim's unit
    /// to a whole block and freed none (swarm seed 256).
    fn gc_has_room_for(&self, need: u32) -> bool {
        self.blocks.free_total() > 0 || self.open_room_reaches(self.stream_index(GC), u64::from(need))
    }

    /// Makes word line `wl` of `victim` the next to prefetch and starts fetching its spare area
    /// (the P2L entries) and live bits, which the mapping-entry prefetches then read.
    fn aim_prefetch(&mut self, victim: BlockId, wl: u32) {
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
                prefetch(&self.l2p, self.p2l[ppn as usize].idx());
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
    fn wl_units(&self, victim: BlockId, wl: u32) -> (u32, u32) {
        let l = &self.layout;
        let written = self.blocks.write_ptr[victim.idx()];
        let base = l.first_ppn(victim).get();
        (base + (wl * l.mus_per_pu).min(written), base + ((wl + 1) * l.mus_per_pu).min(written))
    }

    /// Whether word line `wl` of `victim` still holds live units.
    #[cold]
    fn wl_has_live(&self, victim: BlockId, wl: u32) -> bool {
        let (first, end) = self.wl_units(victim, wl);
        self.live.count_in(first, end) > 0
    }

    /// Moves the valid units of one word line of `victim`, or its first `fits` (when the GC
    /// stream has room for no more). Its page reads (one multi-plane read per page type with
    /// live data to move) are emitted first, so every program carrying this data waits for
    /// them. The units move in offset order, 128 live bits at a time (one chunk for any word
    /// line of up to 128 units).
    fn relocate_wl(&mut self, victim: BlockId, wl: u32, fits: u32, out: &mut Vec<CoreEvent>) {
        let (first, end) = self.wl_units(victim, wl);
        if first >= end {
            return;
        }
        let mpp = self.layout.mus_per_page;
        let mut live = self.live.bits(first, (end - first).min(128));
        // Pages in offset order: the first `fits` live units are those of the first pages.
        let mut left = fits;
        let mut cap = |n: u32| {
            let take = n.min(left);
            left -= take;
            take
        };
        let read = if end - first <= 128 {
            let page_mask = if mpp >= 64 { u64::MAX } else { (1u64 << mpp) - 1 };
            self.emit_gc_reads(
                victim,
                |k| {
                    let sh = k * mpp;
                    // A page of 8 units or fewer (4 KiB units on pages up to 32 KiB): a table
                    // look-up; of 64 or fewer (pages up to 256 KiB): one 64-bit popcount; wider
                    // pages take the 128-bit one.
                    cap(match sh {
                        128.. => 0,
                        _ if mpp <= 8 => u32::from(BYTE_ONES[usize_from(low_u64(live >> sh) & page_mask)]),
                        _ if mpp <= 64 => (low_u64(live >> sh) & page_mask).count_ones(),
                        _ => (live >> sh).count_ones(),
                    })
                },
                out,
            )
        } else {
            let live_units = &self.live;
            self.emit_gc_reads(
                victim,
                |k| {
                    let lo = first + k * mpp;
                    cap(if lo >= end { 0 } else { live_units.count_in(lo, (lo + mpp).min(end)) })
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
            let stopped = self.move_units(live, lo, &mut run, out);
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
        // Every unit moved was read, and none twice (swarm seeds 8675, 11876, 18952, 20858 move
        // word lines in part).
        debug_assert_eq!(run.moved, read, "units moved from word line {wl} of {victim} != units read");
        self.end_moves(victim, run, out);
    }

    /// GC page reads for the live units of a word line, `live` bit i = unit `first + i`:
    /// one multi-plane read per page type holding live data. Returns how many units are live.
    #[allow(clippy::cast_possible_truncation)] // page types (<= 4) and planes (<= 16) are small (validated geometry)
    fn emit_gc_reads(&self, victim: BlockId, mut page_live: impl FnMut(u32) -> u32, out: &mut Vec<CoreEvent>) -> u32 {
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

    /// Moves the units of `live` (bit i = unit `first + i`) to the GC stream in order, opening
    /// program units as `run` fills them. Returns the unit it stopped at if the GC stream has no
    /// room (room for the word line's live units is checked first, except when GC fills its open
    /// unit with part of a word line): the rest stays live in the victim.
    fn move_units(&mut self, live: u128, first: u32, run: &mut Run, out: &mut Vec<CoreEvent>) -> Option<u32> {
        let mut todo = live;
        loop {
            if run.room == 0 {
                if todo == 0 {
                    return None;
                }
                self.commit_run(run, out);
                run.len = 0;
                let Ok((dst, room)) = self.unit_room(GC) else { return Some(first + todo.trailing_zeros()) };
                (run.dst, run.room) = (dst.get(), room);
            }
            let stopped = self.bind_units(todo, first, run)?;
            todo = live & (u128::MAX << (stopped - first));
        }
    }

    /// Binds the units of `live` (bit i = unit `first + i`), in order, to the free units of the
    /// open program unit `run` reached, while it has room; returns the first unit left over.
    /// The tables are local slices here: the stores then cannot alias their headers in `self`,
    /// which the loop reloaded for every unit (30 instructions per unit moved, ~20 now). The
    /// caller clears the victim's live bits; the new ones are set when the run commits.
    #[inline(always)]
    fn bind_units(&mut self, live: u128, first: u32, run: &mut Run) -> Option<u32> {
        let (l2p, p2l, seq) = (&mut self.l2p[..], &mut self.p2l[..], &mut self.seq[..]);
        let (track_sequence, next_seq) = (self.cfg.track_sequence, &mut self.next_seq);
        let (start, end) = (run.dst, run.dst + run.room);
        let mut dst = start;
        let stopped = for_each_set_bit(live, first, |ppn| {
            if dst == end {
                return false;
            }
            let lpn = p2l[ppn as usize];
            l2p[lpn.idx()] = Ppn::new(dst);
            p2l[dst as usize] = lpn;
            if track_sequence {
                seq[dst as usize] = crate::core::take_sequence(next_seq);
            }
            dst += 1;
            true
        });
        let n = dst - start;
        run.dst = dst;
        run.room -= n;
        run.len += n;
        run.moved += n;
        stopped
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
    fn end_moves(&mut self, victim: BlockId, run: Run, out: &mut Vec<CoreEvent>) {
        self.commit_run(&run, out);
        self.blocks.moved_out(victim, run.moved);
        self.stats.gc_write_mus += run.moved as u64;
    }
}
