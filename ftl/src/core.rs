//! The logical FTL: page-level mapping, write streams striped over dies, GC relocation, TRIM and
//! WA accounting. It decides *what* goes where; the timed device ([`crate::device`]) decides
//! *when* the resulting NAND operations run. Keeping this part timeless lets the property and WA
//! tests run millions of writes per second without the event engine.

use crate::blocks::{BlockState, BlockTable};
use crate::config::GcPolicy;
use crate::die_mask::DieMask;
use crate::gc_policy::VictimChooser;
use crate::huge_pages::filled_vec;
use crate::layout::{Layout, NONE};

/// Write stream ids: host data and GC-relocated data. With hot/cold separation off both use
/// stream 0.
pub const HOST: usize = 0;
pub const GC: usize = 1;

/// NAND work the core asks the device to carry out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoreEvent {
    /// A program unit is complete and can be programmed on `die` into `block`.
    Program { die: u32, block: u32, mus: u32, host_mus: u32, stream: u8 },
    /// GC must read this much of a victim (one multi-plane page read).
    GcRead { die: u32, page_type: u8, planes: u8, bytes: u32 },
}

/// Cumulative counters, in mapping units.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FtlStats {
    pub host_write_mus: u64,
    pub host_trim_mus: u64,
    pub gc_write_mus: u64,
    pub pad_mus: u64,
    pub gc_victims: u64,
    pub erases: u64,
}

impl FtlStats {
    pub fn nand_write_mus(&self) -> u64 {
        self.host_write_mus + self.gc_write_mus + self.pad_mus
    }

    /// Write amplification: NAND programmed / host written.
    pub fn wa(&self) -> f64 {
        if self.host_write_mus == 0 {
            return 0.0;
        }
        self.nand_write_mus() as f64 / self.host_write_mus as f64
    }
}

struct Stream {
    /// Open block of this stream on each die (NONE if none). An open block always has room:
    /// it leaves `open` the moment its last unit is placed.
    open: Vec<u32>,
    /// Dies where `open` holds a block.
    open_dies: DieMask,
    cursor: u32,
    /// MUs placed in the current program unit, and how many of them are host data.
    pu_fill: u32,
    pu_host: u32,
    pu_die: u32,
}

/// Settings of the logical FTL.
#[derive(Clone, Copy, Debug)]
pub struct CoreConfig {
    pub user_mus: u32,
    pub policy: GcPolicy,
    pub hot_cold_separation: bool,
    /// Free blocks below which GC runs.
    pub gc_threshold_blocks: u32,
    /// Free blocks only GC may take (host writes wait below this).
    pub host_reserve_blocks: u32,
    pub reserved_blocks_per_die: u32,
    /// Keep a per-MU write sequence in the spare area, needed to rebuild the map after power loss.
    pub track_sequence: bool,
}

/// The mapping tables, block table and write streams.
pub struct FtlCore {
    pub layout: Layout,
    pub cfg: CoreConfig,
    /// Logical -> physical, per LPN.
    pub l2p: Vec<u32>,
    /// The LPN stored in each physical MU's spare area (NONE: never written since erase).
    pub p2l: Vec<u32>,
    /// One bit per physical MU: set while the MU holds the live copy of its LPN. Redundant with
    /// `l2p[p2l[ppn]] == ppn` but sequential to read, so GC scans a victim without a random L2P
    /// lookup per unit (1/32 of the P2L's memory).
    pub valid_bits: Vec<u64>,
    /// Write sequence stored beside each MU (power-loss mode only).
    pub seq: Vec<u32>,
    /// Persisted TRIM journal (LPN, sequence), power-loss mode only.
    pub trim_log: Vec<(u32, u32)>,
    pub blocks: BlockTable,
    streams: [Stream; 2],
    pub stats: FtlStats,
    next_seq: u32,
    chooser: VictimChooser,
    /// The victim being relocated and its next word line.
    reloc: Option<(u32, u32)>,
    /// The word line GC moves next and how far its mapping entries have been prefetched.
    ahead: Ahead,
    /// `blocks.releases` when the host stream was last found blocked (see host_can_write).
    host_blocked_at: std::cell::Cell<Option<u64>>,
}

/// Hints the CPU to bring `v[i]` into cache (no effect where unsupported or out of range).
#[inline(always)]
pub fn prefetch<T>(v: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x) = v.get(i) {
        // SAFETY: a prefetch never faults and does not access memory architecturally; the
        // pointer comes from a live reference anyway.
        unsafe { std::arch::x86_64::_mm_prefetch(x as *const T as *const i8, std::arch::x86_64::_MM_HINT_T0) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (v, i);
}

/// Calls `f(first + i)` for the set bits i of `bits`, in order, until `f` returns false; returns
/// the unit it stopped at, if any. Scanned as two 64-bit halves: bit scans on u64 are single
/// instructions, on u128 they branch.
#[inline(always)]
fn for_each_set_bit(bits: u128, first: u32, mut f: impl FnMut(u32) -> bool) -> Option<u32> {
    for (mut half, base) in [(bits as u64, first), ((bits >> 64) as u64, first + 64)] {
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
#[derive(Clone, Copy, Debug)]
struct Ahead {
    victim: u32,
    wl: u32,
    next: u32,
    end: u32,
}

/// Progress of an incremental relocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The victim holds no more valid data.
    Done,
    /// More word lines remain.
    More,
    /// The GC stream has no room for another word line right now.
    Stalled,
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

/// No block can take more data for this stream right now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoSpace;

impl FtlCore {
    pub fn new(layout: Layout, cfg: CoreConfig) -> FtlCore {
        let stream = || Stream {
            open: vec![NONE; layout.dies as usize],
            open_dies: DieMask::new(layout.dies),
            cursor: 0,
            pu_fill: 0,
            pu_host: 0,
            pu_die: 0,
        };
        let total = layout.total_mus() as usize;
        let mut blocks = BlockTable::new(&layout, cfg.reserved_blocks_per_die);
        // GC's reserve is kept on every die: a host stream that could open blocks only while the
        // drive-wide count exceeded it would, once GC runs flat out, get one freed block at a
        // time and pour all its writes into that one die.
        blocks.set_host_reserve_per_die((cfg.host_reserve_blocks + layout.dies / 2) / layout.dies);
        FtlCore {
            l2p: filled_vec(cfg.user_mus as usize, NONE),
            p2l: filled_vec(total, NONE),
            valid_bits: filled_vec(total.div_ceil(64), 0),
            seq: if cfg.track_sequence { filled_vec(total, 0) } else { Vec::new() },
            trim_log: Vec::new(),
            blocks,
            streams: [stream(), stream()],
            layout,
            cfg,
            stats: FtlStats::default(),
            next_seq: 1,
            host_blocked_at: std::cell::Cell::new(None),
            chooser: VictimChooser::default(),
            reloc: None,
            ahead: Ahead { victim: NONE, wl: 0, next: 0, end: 0 },
        }
    }

    pub fn user_mus(&self) -> u32 {
        self.cfg.user_mus
    }

    fn stream_index(&self, stream: usize) -> usize {
        if self.cfg.hot_cold_separation {
            stream
        } else {
            HOST
        }
    }

    /// True when a host MU can be placed now without waiting for GC.
    pub fn host_can_write(&self) -> bool {
        let s = &self.streams[HOST];
        if s.pu_fill > 0 {
            return true;
        }
        // While blocked, the answer can only change when a block is released (host open blocks
        // only fill up): skip the die scan until then.
        if self.host_blocked_at.get() == Some(self.blocks.releases) {
            return false;
        }
        let ok = s.open_dies.next_from(s.cursor, Some(self.host_takeable())).is_some();
        self.host_blocked_at.set(if ok { None } else { Some(self.blocks.releases) });
        ok
    }

    /// Where the open program unit of `stream` continues, opening one if needed: the first free
    /// physical unit and how many units the program unit still takes. The caller binds data to
    /// a prefix of them and then calls [`Self::commit`].
    #[inline(always)]
    fn unit_room(&mut self, stream: usize) -> Result<(u32, u32), NoSpace> {
        let si = self.stream_index(stream);
        if self.streams[si].pu_fill == 0 {
            self.start_unit(si, stream == GC)?;
        }
        let s = &self.streams[si];
        let block = s.open[s.pu_die as usize];
        let ppn = self.layout.first_ppn(block) + self.blocks.write_ptr[block as usize];
        Ok((ppn, self.layout.mus_per_pu - s.pu_fill))
    }

    /// Takes the next `n` units of the open program unit of `stream` (`live` of them bound to
    /// data, `host` of those host data): advances the write pointer, adds the valid count (the
    /// block is still open, so no bucket moves) and, when the unit is full, emits its program
    /// and closes the block if that was its last unit.
    #[inline(always)]
    fn commit(&mut self, stream: usize, n: u32, live: u32, host: u32, out: &mut Vec<CoreEvent>) {
        let si = self.stream_index(stream);
        let s = &mut self.streams[si];
        let die = s.pu_die;
        let block = s.open[die as usize];
        let bi = block as usize;
        self.blocks.write_ptr[bi] += n;
        self.blocks.valid[bi] += live;
        s.pu_fill += n;
        s.pu_host += host;
        if s.pu_fill == self.layout.mus_per_pu {
            out.push(CoreEvent::Program { die, block, mus: s.pu_fill, host_mus: s.pu_host, stream: si as u8 });
            s.pu_fill = 0;
            s.pu_host = 0;
            if self.blocks.write_ptr[bi] == self.layout.mus_per_block {
                s.open[die as usize] = NONE;
                s.open_dies.set(die, false);
                self.blocks.close(block, self.stats.host_write_mus);
            }
        }
    }

    /// Chooses the die for the next program unit of stream `si`: round-robin from the cursor,
    /// skipping dies with no room and no free block.
    fn start_unit(&mut self, si: usize, is_gc: bool) -> Result<(), NoSpace> {
        let dies = self.layout.dies;
        let takeable = if is_gc { self.blocks.free_dies() } else { self.host_takeable() };
        let s = &self.streams[si];
        let die = s.open_dies.next_from(s.cursor, Some(takeable)).ok_or(NoSpace)?;
        if !s.open_dies.get(die) {
            let b = self.blocks.take_free(die, si as u8).ok_or(NoSpace)?;
            let s = &mut self.streams[si];
            s.open[die as usize] = b;
            s.open_dies.set(die, true);
        }
        let s = &mut self.streams[si];
        s.pu_die = die;
        s.cursor = (die + 1) % dies;
        Ok(())
    }

    /// Dies where a host stream may open a block: any with a free block while the drive keeps
    /// more than GC's reserve; below it, those that keep their share of the reserve. Never
    /// stricter than the drive-wide rule, so GC's watermarks still guarantee progress.
    #[inline]
    fn host_takeable(&self) -> &crate::die_mask::DieMask {
        if self.blocks.free_total() > self.cfg.host_reserve_blocks {
            self.blocks.free_dies()
        } else {
            self.blocks.host_free_dies()
        }
    }

    fn next_sequence(&mut self) -> u32 {
        let s = self.next_seq;
        self.next_seq = self.next_seq.wrapping_add(1).max(1);
        s
    }

    #[inline(always)]
    fn unmap_old(&mut self, lpn: u32) {
        let old = self.l2p[lpn as usize];
        if old != NONE {
            self.clear_valid_bit(old);
            self.blocks.dec_valid(self.layout.block_of(old));
        }
    }

    /// Prefetches what a host write of `lpn` will update besides its mapping entry (assumed
    /// cached): the old unit's live-bit word and its block's counters. No effect on state.
    #[inline]
    pub fn prefetch_overwrite(&self, lpn: u32) {
        let Some(&old) = self.l2p.get(lpn as usize) else { return };
        if old != NONE {
            prefetch(&self.valid_bits, (old / 64) as usize);
            let b = self.layout.block_of(old) as usize;
            prefetch(&self.blocks.valid, b);
            prefetch(&self.blocks.state, b);
            prefetch(&self.blocks.next, b);
            prefetch(&self.blocks.prev, b);
        }
    }

    /// Host write of one MU. Fails (changing nothing) when the host stream has no space.
    #[inline]
    pub fn write(&mut self, lpn: u32, out: &mut Vec<CoreEvent>) -> Result<u32, NoSpace> {
        let (ppn, _) = self.unit_room(HOST)?;
        self.unmap_old(lpn);
        self.bind(lpn, ppn);
        self.stats.host_write_mus += 1;
        self.commit(HOST, 1, 1, 1, out);
        Ok(ppn)
    }

    /// Maps `lpn` to the not yet committed unit `ppn` (the valid count follows in `commit`).
    #[inline]
    fn bind(&mut self, lpn: u32, ppn: u32) {
        self.l2p[lpn as usize] = ppn;
        self.p2l[ppn as usize] = lpn;
        self.valid_bits[(ppn / 64) as usize] |= 1 << (ppn % 64);
        if self.cfg.track_sequence {
            let s = self.next_sequence();
            self.seq[ppn as usize] = s;
        }
    }

    #[inline]
    fn clear_valid_bit(&mut self, ppn: u32) {
        self.valid_bits[(ppn / 64) as usize] &= !(1 << (ppn % 64));
    }

    #[inline]
    fn is_live(&self, ppn: u32) -> bool {
        self.valid_bits[(ppn / 64) as usize] & (1 << (ppn % 64)) != 0
    }

    /// Recomputes the live-unit bitmap from the L2P table (after recovery).
    pub(crate) fn rebuild_valid_bits(&mut self) {
        self.valid_bits.fill(0);
        for i in 0..self.l2p.len() {
            let ppn = self.l2p[i];
            if ppn != NONE {
                self.valid_bits[(ppn / 64) as usize] |= 1 << (ppn % 64);
            }
        }
    }

    /// TRIM of one MU: unmapped data is not valid and is never relocated.
    pub fn trim(&mut self, lpn: u32) {
        if self.l2p[lpn as usize] != NONE {
            self.unmap_old(lpn);
            self.l2p[lpn as usize] = NONE;
        }
        self.stats.host_trim_mus += 1;
        if self.cfg.track_sequence {
            let s = self.next_sequence();
            self.trim_log.push((lpn, s));
        }
    }

    pub fn lookup(&self, lpn: u32) -> Option<u32> {
        let p = self.l2p[lpn as usize];
        (p != NONE).then_some(p)
    }

    /// Whether GC should run: free blocks below the threshold.
    pub fn gc_wanted(&self, pending_free: u32) -> bool {
        self.blocks.free_total() + pending_free < self.cfg.gc_threshold_blocks
    }

    /// Picks a victim that the GC stream has room to relocate.
    pub fn pick_victim(&mut self) -> Option<u32> {
        let v = self.chooser.choose(
            &mut self.blocks,
            self.cfg.policy,
            self.layout.mus_per_block,
            self.stats.host_write_mus,
        )?;
        let need = self.blocks.valid[v as usize] as u64;
        let free_room = self.blocks.free_total() as u64 * self.layout.mus_per_block as u64;
        // The open blocks' room is a scan over every die: only needed when free blocks fall short.
        (free_room >= need || free_room + self.open_room(self.stream_index(GC)) >= need).then_some(v)
    }

    fn open_room(&self, si: usize) -> u64 {
        self.streams[si]
            .open
            .iter()
            .filter(|&&b| b != NONE)
            .map(|&b| (self.layout.mus_per_block - self.blocks.write_ptr[b as usize]) as u64)
            .sum()
    }

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
        self.blocks.free_total() > 0 || self.open_room(self.stream_index(GC)) >= self.layout.mus_per_pu as u64
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
        prefetch(&self.valid_bits, (first / 64) as usize);
        prefetch(&self.valid_bits, (end.saturating_sub(1) / 64) as usize);
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
            let mut bits = self.live_word(w, next, end);
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
    /// waits for them.
    fn relocate_wl(&mut self, victim: u32, wl: u32, out: &mut Vec<CoreEvent>) {
        let (first, end) = self.wl_units(victim, wl);
        if first >= end {
            return;
        }
        if end - first <= 128 {
            let live = self.live_bits(first, end - first);
            self.relocate_units(victim, first, live, out);
        } else {
            self.relocate_units_wide(victim, first, end, out);
        }
    }

    /// GC page reads for the live units of a word line, `live` bit i = unit `first + i`:
    /// one multi-plane read per page type holding live data. Returns how many units are live.
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

    /// Relocates a word line of at most 128 units whose live units are the set bits of `live`
    /// (bit i = physical unit `first + i`).
    fn relocate_units(&mut self, victim: u32, first: u32, live: u128, out: &mut Vec<CoreEvent>) {
        let mpp = self.layout.mus_per_page;
        let page_mask = if mpp >= 64 { u64::MAX } else { (1u64 << mpp) - 1 };
        let page_live = |k: u32| {
            let sh = k * mpp;
            // A page of 64 units or fewer (any 4 KiB unit on pages up to 256 KiB): one 64-bit
            // popcount; wider pages take the 128-bit one.
            match sh {
                128.. => 0,
                _ if mpp <= 64 => (((live >> sh) as u64) & page_mask).count_ones(),
                _ => (live >> sh).count_ones(),
            }
        };
        if self.emit_gc_reads(victim, page_live, out) == 0 {
            return;
        }
        let mut run = Run::default();
        let stopped = for_each_set_bit(live, first, |ppn| self.move_unit(ppn, &mut run, out));
        // Live units that could not move (none in practice: see move_unit).
        let rest = stopped.map_or(0, |ppn| live & (u128::MAX << (ppn - first)));
        // The moved units leave the victim: their live bits go in one pass.
        self.clear_live_bits(first, live & !rest);
        self.end_moves(victim, run, out);
    }

    /// Clears the live bits of units `first + i` for each bit i set in `mask`.
    fn clear_live_bits(&mut self, first: u32, mask: u128) {
        let (mut m, mut pos) = (mask, first);
        while m != 0 {
            let (w, b) = ((pos / 64) as usize, pos % 64);
            let take = 64 - b;
            self.valid_bits[w] &= !((m as u64) << b);
            m = if take >= 128 { 0 } else { m >> take };
            pos += take;
        }
    }

    /// Sets the live bits of units `lo..lo + n` (a committed run of relocated units).
    fn set_live_range(&mut self, lo: u32, n: u32) {
        let (mut pos, end) = (lo, lo + n);
        while pos < end {
            let (w, b) = ((pos / 64) as usize, pos % 64);
            let take = (64 - b).min(end - pos);
            let mask = if take == 64 { u64::MAX } else { ((1u64 << take) - 1) << b };
            self.valid_bits[w] |= mask;
            pos += take;
        }
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
            self.set_live_range(run.dst - run.len, run.len);
            self.commit(GC, run.len, run.len, 0, out);
        }
    }

    /// Commits the last partial run and settles the victim's count and the GC statistics.
    fn end_moves(&mut self, victim: u32, run: Run, out: &mut Vec<CoreEvent>) {
        self.commit_run(&run, out);
        self.blocks.valid[victim as usize] -= run.moved;
        self.stats.gc_write_mus += run.moved as u64;
    }

    /// Bits `lo..lo + n` of the live-unit bitmap (n <= 128), bit 0 = unit `lo`.
    fn live_bits(&self, lo: u32, n: u32) -> u128 {
        let (mut out, mut got, mut pos) = (0u128, 0u32, lo);
        while got < n {
            let (w, b) = ((pos / 64) as usize, pos % 64);
            let take = (64 - b).min(n - got);
            let mask = if take == 64 { u64::MAX } else { (1u64 << take) - 1 };
            out |= (((self.valid_bits[w] >> b) & mask) as u128) << got;
            got += take;
            pos += take;
        }
        out
    }

    /// [`Self::relocate_units`] for word lines of more than 128 units (units `lo..hi`).
    fn relocate_units_wide(&mut self, victim: u32, lo: u32, hi: u32, out: &mut Vec<CoreEvent>) {
        let mpp = self.layout.mus_per_page;
        let page_live = |k: u32| {
            let first = lo + k * mpp;
            if first >= hi {
                0
            } else {
                self.count_live(first, (first + mpp).min(hi))
            }
        };
        if self.emit_gc_reads(victim, page_live, out) == 0 {
            return;
        }
        // Live units in offset order.
        let mut run = Run::default();
        let mut w = lo / 64;
        'words: while w * 64 < hi {
            let mut word = self.live_word(w, lo, hi);
            while word != 0 {
                let ppn = w * 64 + word.trailing_zeros();
                word &= word - 1;
                if !self.move_unit(ppn, &mut run, out) {
                    break 'words;
                }
                self.clear_valid_bit(ppn);
            }
            w += 1;
        }
        self.end_moves(victim, run, out);
    }

    /// Live units among physical units `lo..hi`.
    fn count_live(&self, lo: u32, hi: u32) -> u32 {
        (lo / 64..hi.div_ceil(64)).map(|w| self.live_word(w, lo, hi).count_ones()).sum()
    }

    /// Word `w` of the live-unit bitmap with the bits outside units `lo..hi` cleared.
    #[inline]
    fn live_word(&self, w: u32, lo: u32, hi: u32) -> u64 {
        let mut word = self.valid_bits[w as usize];
        if w * 64 < lo {
            word &= u64::MAX << (lo % 64);
        }
        if (w + 1) * 64 > hi {
            word &= !(u64::MAX << (hi % 64));
        }
        word
    }

    /// Pads the open program unit of each stream so everything placed can be programmed (used
    /// when GC pauses or on flush). Padding counts as NAND writes.
    pub fn pad_open_units(&mut self, out: &mut Vec<CoreEvent>) {
        for si in 0..2 {
            let fill = self.streams[si].pu_fill;
            if fill == 0 {
                continue;
            }
            let pad = self.layout.mus_per_pu - fill;
            // The unit is open on a block with room for all of it; the padding holds no data.
            self.commit(si, pad, 0, 0, out);
            self.stats.pad_mus += pad as u64;
        }
    }

    /// Whether a stream holds a partly filled program unit.
    pub fn has_open_unit(&self) -> bool {
        self.streams.iter().any(|s| s.pu_fill > 0)
    }

    /// The stream index GC data goes to (the host stream when separation is off).
    pub fn gc_stream(&self) -> usize {
        self.stream_index(GC)
    }

    /// Whether the stream `si` holds a partly filled program unit.
    pub fn stream_has_open_unit(&self, si: usize) -> bool {
        self.streams[si].pu_fill > 0
    }

    /// A program finished: its MUs are durable.
    pub fn program_done(&mut self, block: u32, mus: u32) {
        self.blocks.prog_done[block as usize] += mus;
    }

    /// A victim's erase finished: its spare area is blank again and it rejoins the free list.
    pub fn erase_done(&mut self, block: u32) {
        let l = self.layout;
        let base = l.first_ppn(block) as usize;
        let n = self.blocks.write_ptr[block as usize] as usize;
        self.p2l[base..base + n].fill(NONE);
        self.blocks.release(block, l.die_of_block(block));
        self.stats.erases += 1;
    }

    /// Power loss: the streams' open blocks and partial units are gone (recovery closed those
    /// blocks), and sequence numbers restart after the highest one found on NAND.
    pub(crate) fn restart_streams(&mut self, next_seq: u32) {
        for s in &mut self.streams {
            s.open.fill(NONE);
            s.open_dies.clear_all();
            (s.pu_fill, s.pu_host) = (0, 0);
        }
        self.next_seq = next_seq.max(1);
        self.chooser.reset();
        self.host_blocked_at.set(None);
        self.reloc = None;
    }

    /// Checks the structural invariants; returns a description of the first violation.
    pub fn check_invariants(&self) -> Result<(), String> {
        let l = &self.layout;
        let mut valid = vec![0u32; l.blocks as usize];
        for (lpn, &ppn) in self.l2p.iter().enumerate() {
            if ppn == NONE {
                continue;
            }
            if self.p2l[ppn as usize] != lpn as u32 {
                return Err(format!("lpn {lpn} -> ppn {ppn} but spare area says {}", self.p2l[ppn as usize]));
            }
            let b = l.block_of(ppn);
            if self.blocks.state[b as usize] == BlockState::Free {
                return Err(format!("lpn {lpn} mapped into free block {b}"));
            }
            if l.offset_of(ppn) >= self.blocks.write_ptr[b as usize] {
                return Err(format!("lpn {lpn} mapped beyond the write pointer of block {b}"));
            }
            valid[b as usize] += 1;
        }
        let live: u64 = self.valid_bits.iter().map(|w| w.count_ones() as u64).sum();
        let mapped = self.l2p.iter().filter(|&&p| p != NONE).count() as u64;
        if live != mapped || self.l2p.iter().any(|&p| p != NONE && !self.is_live(p)) {
            return Err(format!("live-unit bitmap has {live} bits for {mapped} mapped LPNs"));
        }
        if valid != self.blocks.valid {
            let b = (0..valid.len()).find(|&i| valid[i] != self.blocks.valid[i]).unwrap_or(0);
            return Err(format!("block {b}: valid count {} but {} live mappings", self.blocks.valid[b], valid[b]));
        }
        let (free, open, closed, victim) = self.blocks.census();
        if free + open + closed + victim + self.blocks.reserved != l.blocks {
            return Err(format!("free {free} + open {open} + closed {closed} + victim {victim} != {}", l.blocks));
        }
        if free != self.blocks.free_total() {
            return Err(format!("free list holds {} but {free} blocks are free", self.blocks.free_total()));
        }
        Ok(())
    }
}
