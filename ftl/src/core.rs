//! The logical FTL: page-level mapping, write streams striped over dies, GC relocation, TRIM and
//! WA accounting. It decides *what* goes where; the timed device ([`crate::device`]) decides
//! *when* the resulting NAND operations run. Keeping this part timeless lets the property and WA
//! tests run millions of writes per second without the event engine.

use crate::blocks::BlockTable;
use crate::config::GcPolicy;
use crate::die_mask::DieMask;
use crate::gc::policy::VictimChooser;
use crate::gc::{Ahead, Reloc};
use crate::huge_pages::filled_vec;
use crate::ids::{BlockId, Lpn, Ppn};
use crate::layout::Layout;
use crate::live_units::LiveUnits;

mod invariants;
mod stream_room;

/// Write stream ids: host data and GC-relocated data. With hot/cold separation off both use
/// stream 0.
pub const HOST: usize = 0;
pub const GC: usize = 1;

/// NAND work the core asks the device to carry out.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoreEvent {
    /// A program unit is complete and can be programmed on `die` into `block`.
    /// `live_mus` of its `mus` carry data (host and relocated; the rest is padding): the write
    /// buffer space its completion frees.
    Program { die: u32, block: BlockId, mus: u32, host_mus: u32, live_mus: u32, stream: u8 },
    /// GC must read this much of a victim (one multi-plane page read).
    GcRead { die: u32, page_type: u8, planes: u8, bytes: u32 },
    /// All valid data of GC victim `block` has moved (after the reads and programs above): it
    /// can be erased once that data is safe.
    Relocated { block: BlockId },
}

/// Cumulative counters, in mapping units.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
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

#[derive(serde::Serialize, serde::Deserialize)]
struct Stream {
    /// Open block of this stream on each die (`BlockId::NONE` if none). An open block always has room:
    /// it leaves `open` the moment its last unit is placed.
    open: Vec<BlockId>,
    /// Dies where `open` holds a block.
    open_dies: DieMask,
    cursor: u32,
    /// MUs placed in the current program unit, and how many of them are host data.
    pu_fill: u32,
    pu_host: u32,
    /// MUs of the current program unit that carry data (not padding).
    pu_live: u32,
    pu_die: u32,
    /// Units still unwritten in `open`'s blocks: relocated data that fits there takes no free
    /// block (GC's start rule counts it).
    room: u64,
}

/// Settings of the logical FTL.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug)]
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
#[derive(serde::Serialize, serde::Deserialize)]
pub struct FtlCore {
    pub layout: Layout,
    pub cfg: CoreConfig,
    /// Logical -> physical, per LPN (`Ppn::NONE`: unmapped).
    pub l2p: Vec<Ppn>,
    /// The LPN stored in each physical MU's spare area (`Lpn::NONE`: never written since erase).
    pub p2l: Vec<Lpn>,
    /// Which physical MUs hold the live copy of their LPN.
    pub live: LiveUnits,
    /// Write sequence stored beside each MU (power-loss mode only).
    pub seq: Vec<u32>,
    /// Persisted TRIM journal (LPN, sequence), power-loss mode only.
    pub trim_log: Vec<(Lpn, u32)>,
    pub blocks: BlockTable,
    streams: [Stream; 2],
    pub stats: FtlStats,
    /// The next write sequence ([`take_sequence`]).
    pub(crate) next_seq: u32,
    chooser: VictimChooser,
    /// `blocks.releases` when the last victim could not start for want of room with no block
    /// free: until a block is released neither the free room nor GC's open room can grow, so
    /// the choice is not re-run on every event (it is O(dies)).
    gc_blocked_at: Option<u64>,
    /// (word lines moved, releases, free blocks, relocation epoch) when a lane last could not
    /// start.
    lane_refused_at: Option<(u64, u64, u32, u64)>,
    /// GC's lanes: the victims being relocated, one per die.
    pub(crate) reloc: Reloc,
    /// Counts starts and releases of relocations (see [`Self::relocation_epoch`]).
    pub(crate) relocation_epoch: u64,
    /// The word line GC moves next and how far its mapping entries have been prefetched.
    pub(crate) ahead: Ahead,
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

/// Takes the next write sequence from the counter `next` (sequences skip 0 when they wrap).
#[inline(always)]
pub(crate) fn take_sequence(next: &mut u32) -> u32 {
    let s = *next;
    *next = next.wrapping_add(1).max(1);
    s
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

/// No block can take more data for this stream right now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoSpace;

impl FtlCore {
    pub fn new(layout: Layout, cfg: CoreConfig) -> FtlCore {
        let stream = || Stream {
            open: vec![BlockId::NONE; layout.dies as usize],
            open_dies: DieMask::new(layout.dies),
            cursor: 0,
            pu_fill: 0,
            pu_host: 0,
            pu_live: 0,
            pu_die: 0,
            room: 0,
        };
        let total = nand_model::cast::usize_from(layout.total_mus());
        let mut blocks = BlockTable::new(&layout, cfg.reserved_blocks_per_die);
        // GC's reserve is kept on every die: a host stream that could open blocks only while the
        // drive-wide count exceeded it would, once GC runs flat out, get one freed block at a
        // time and pour all its writes into that one die.
        blocks.set_host_reserve_per_die((cfg.host_reserve_blocks + layout.dies / 2) / layout.dies);
        FtlCore {
            l2p: filled_vec(cfg.user_mus as usize, Ppn::NONE),
            p2l: filled_vec(total, Lpn::NONE),
            live: LiveUnits::new(total),
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
            gc_blocked_at: None,
            lane_refused_at: None,
            reloc: Reloc::new(layout.dies),
            relocation_epoch: 0,
            ahead: Ahead { victim: BlockId::NONE, wl: 0, next: 0, end: 0 },
        }
    }

    pub fn user_mus(&self) -> u32 {
        self.cfg.user_mus
    }

    pub(crate) fn stream_index(&self, stream: usize) -> usize {
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
    pub(crate) fn unit_room(&mut self, stream: usize) -> Result<(Ppn, u32), NoSpace> {
        let si = self.stream_index(stream);
        if self.streams[si].pu_fill == 0 {
            self.start_unit(si, stream == GC)?;
        }
        let s = &self.streams[si];
        let block = s.open[s.pu_die as usize];
        let ppn = self.layout.first_ppn(block) + self.blocks.write_ptr[block.idx()];
        Ok((ppn, self.layout.mus_per_pu - s.pu_fill))
    }

    /// Takes the next `n` units of the open program unit of `stream` (`live` of them bound to
    /// data, `host` of those host data): advances the write pointer, adds the valid count (the
    /// block is still open, so not yet a GC candidate) and, when the unit is full, emits its program
    /// and closes the block if that was its last unit.
    #[inline(always)]
    #[allow(clippy::cast_possible_truncation)] // stream indices are 0 and 1
    pub(crate) fn commit(&mut self, stream: usize, n: u32, live: u32, host: u32, out: &mut Vec<CoreEvent>) {
        let si = self.stream_index(stream);
        let s = &mut self.streams[si];
        let die = s.pu_die;
        let block = s.open[die as usize];
        let bi = block.idx();
        self.blocks.wrote(block, n, live);
        s.room -= u64::from(n);
        s.pu_fill += n;
        s.pu_host += host;
        s.pu_live += live;
        if s.pu_fill == self.layout.mus_per_pu {
            let (mus, host_mus, live_mus) = (s.pu_fill, s.pu_host, s.pu_live);
            out.push(CoreEvent::Program { die, block, mus, host_mus, live_mus, stream: si as u8 });
            s.pu_fill = 0;
            s.pu_host = 0;
            s.pu_live = 0;
            if self.blocks.write_ptr[bi] == self.layout.mus_per_block {
                s.open[die as usize] = BlockId::NONE;
                s.open_dies.set(die, false);
                self.blocks.close(block, self.stats.host_write_mus);
            }
        }
    }

    /// Chooses the die for the next program unit of stream `si`: round-robin from the cursor,
    /// skipping dies with no room and no free block.
    #[allow(clippy::cast_possible_truncation)] // stream indices are 0 and 1
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
            s.room += u64::from(self.layout.mus_per_block - self.blocks.write_ptr[b.idx()]);
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

    pub(crate) fn next_sequence(&mut self) -> u32 {
        take_sequence(&mut self.next_seq)
    }

    #[inline(always)]
    fn unmap_old(&mut self, lpn: Lpn) {
        let old = self.l2p[lpn.idx()];
        if old != Ppn::NONE {
            self.clear_valid_bit(old);
            self.blocks.dec_valid(self.layout.block_of(old));
        }
    }

    /// Prefetches what a host write of `lpn` will update besides its mapping entry (assumed
    /// cached): the old unit's live-bit word and its block's valid count, GC key and superblock
    /// slot (without the slot, its load was the top stall of the host write path: 22% of
    /// `try_admit`'s samples in `perf record` of `ssdlab bench`, 3% with it). No effect on
    /// state.
    #[inline]
    pub fn prefetch_overwrite(&self, lpn: Lpn) {
        let Some(&old) = self.l2p.get(lpn.idx()) else { return };
        if old != Ppn::NONE {
            self.live.prefetch(old.get());
            let b = self.layout.block_of(old).idx();
            prefetch(&self.blocks.valid, b);
            self.blocks.candidates.prefetch(b);
            self.blocks.superblocks.prefetch(b);
        }
    }

    /// Host write of one MU. Fails (changing nothing) when the host stream has no space.
    #[inline]
    pub fn write(&mut self, lpn: Lpn, out: &mut Vec<CoreEvent>) -> Result<Ppn, NoSpace> {
        let (ppn, _) = self.unit_room(HOST)?;
        self.unmap_old(lpn);
        self.bind(lpn, ppn);
        self.stats.host_write_mus += 1;
        self.commit(HOST, 1, 1, 1, out);
        Ok(ppn)
    }

    /// Maps `lpn` to the not yet committed unit `ppn` (the valid count follows in `commit`).
    #[inline]
    fn bind(&mut self, lpn: Lpn, ppn: Ppn) {
        self.l2p[lpn.idx()] = ppn;
        self.p2l[ppn.idx()] = lpn;
        self.live.set(ppn.get());
        if self.cfg.track_sequence {
            let s = self.next_sequence();
            self.seq[ppn.idx()] = s;
        }
    }

    #[inline]
    fn clear_valid_bit(&mut self, ppn: Ppn) {
        self.live.clear(ppn.get());
    }

    #[inline]
    fn is_live(&self, ppn: Ppn) -> bool {
        self.live.get(ppn.get())
    }

    /// Recomputes the live-unit bitmap from the L2P table (after recovery).
    pub(crate) fn rebuild_live_units(&mut self) {
        self.live.clear_all();
        for i in 0..self.l2p.len() {
            let ppn = self.l2p[i];
            if ppn != Ppn::NONE {
                self.live.set(ppn.get());
            }
        }
    }

    /// TRIM of one MU: unmapped data is not valid and is never relocated.
    pub fn trim(&mut self, lpn: Lpn) {
        if self.l2p[lpn.idx()] != Ppn::NONE {
            self.unmap_old(lpn);
            self.l2p[lpn.idx()] = Ppn::NONE;
        }
        self.stats.host_trim_mus += 1;
        if self.cfg.track_sequence {
            let s = self.next_sequence();
            self.trim_log.push((lpn, s));
        }
    }

    pub fn lookup(&self, lpn: Lpn) -> Option<Ppn> {
        let p = self.l2p[lpn.idx()];
        (p != Ppn::NONE).then_some(p)
    }

    /// Where `lpn`'s data can be read from NAND: its block and offset, or None when it is
    /// unmapped or its word line is not programmed yet (the data is still in the write buffer).
    #[inline]
    pub fn programmed_location(&self, lpn: Lpn) -> Option<(BlockId, u32)> {
        let ppn = self.lookup(lpn)?;
        let (block, off) = (self.layout.block_of(ppn), self.layout.offset_of(ppn));
        (off < self.blocks.prog_done[block.idx()]).then_some((block, off))
    }

    /// Whether GC should start another lane: free blocks, blocks queued for erase and the
    /// blocks the victims in flight will free, less the space their data still needs beyond
    /// the room left in GC's open blocks, are below the threshold. Counting only free and
    /// erase-queued blocks, GC kept starting lanes until the erases caught up, and the lanes
    /// still in flight then overshot the threshold (by 42 blocks at 1/32 on the P5520), leaving
    /// GC idle for ~100 ms while the host used them up (docs/scale.md, "Per-second spread of a
    /// 70/30 mix").
    #[inline]
    pub fn gc_wanted(&self, pending_free: u32) -> bool {
        let free = self.blocks.free_total() + pending_free;
        if free >= self.cfg.gc_threshold_blocks {
            return false; // victims in flight never free less than their data takes
        }
        let mpb = u64::from(self.layout.mus_per_block);
        let blocks = u64::from(free + self.reloc.active_lanes());
        let need = self.blocks.victim_valid.saturating_sub(self.streams[self.stream_index(GC)].room);
        blocks * mpb < u64::from(self.cfg.gc_threshold_blocks) * mpb + need
    }

    /// What a refused lane start depends on: word lines moved, lanes started or ended, blocks
    /// released, free blocks.
    fn lane_state(&self) -> (u64, u64, u32, u64) {
        (self.reloc.wls_moved, self.blocks.releases, self.blocks.free_total(), self.relocation_epoch)
    }

    /// Whether [`Self::pick_victim`] could start a lane now. A lane that could not start is not
    /// tried again until its state (see `lane_state`) changes: the choice is O(dies), and GC
    /// asks after every host write while it is wanted.
    #[inline]
    pub fn lane_could_start(&self) -> bool {
        self.gc_blocked_at != Some(self.blocks.releases)
            && self.reloc.may_start()
            && self.lane_refused_at != Some(self.lane_state())
    }

    /// Host writes have just become blocked on space: GC's memo of a refused lane start is
    /// dropped so that the next pass chooses again. The memo keys on what changes GC's room
    /// (see `lane_state`), not on the candidates' valid counts, which host writes and TRIMs
    /// lower meanwhile; with the host blocked, no write would come to call GC again, and a
    /// victim that now exists or fits would wait forever (swarm seed 16369).
    pub fn forget_refused_lane(&mut self) {
        self.gc_blocked_at = None;
        self.lane_refused_at = None;
    }

    /// Picks the victim GC's next lane collects, if a lane may start (see
    /// `Reloc::may_start`): on the neediest die whose lane is idle, by the policy (see
    /// [`VictimChooser::choose_for_lane`]), when the GC stream has room for its data.
    #[inline]
    pub fn pick_victim(&mut self) -> Option<BlockId> {
        if !self.lane_could_start() {
            return None;
        }
        self.choose_lane_victim()
    }

    /// [`Self::pick_victim`] once a lane could start; out of line, so that the common refusal
    /// (asked after every host write while GC is wanted) costs a few compares.
    #[inline(never)]
    fn choose_lane_victim(&mut self) -> Option<BlockId> {
        let state = self.lane_state();
        let Some(v) = self.chooser.choose_for_lane(
            &mut self.blocks,
            self.cfg.policy,
            self.layout.mus_per_block,
            self.stats.host_write_mus,
            self.reloc.busy(),
        ) else {
            self.lane_refused_at = Some(state);
            return None;
        };
        let mpb = self.layout.mus_per_block as u64;
        let free_room = self.blocks.free_total() as u64 * mpb;
        let need = self.blocks.valid[v.idx()] as u64;
        let fits = if !self.reloc.any_active() {
            // The open blocks' room is a scan over every die: only asked when free blocks fall
            // short.
            free_room >= need || self.open_room_reaches(self.stream_index(GC), need - free_room)
        } else {
            // Host writes may take free blocks down to their reserve while the lanes move (and
            // fill a shared stream's open blocks): another lane starts only while the reserve,
            // less a block for the stream's open unit, could hold all the lanes' data.
            let sure_room = free_room.min(self.cfg.host_reserve_blocks as u64 * mpb).saturating_sub(mpb);
            // The lanes' victims hold all the valid data of victims (the others are moved out,
            // waiting for their erase).
            let held = self.blocks.victim_valid;
            debug_assert_eq!(held, self.reloc.victims().map(|b| u64::from(self.blocks.valid[b.idx()])).sum::<u64>());
            held + need <= sure_room
        };
        if !fits && free_room == 0 && !self.reloc.any_active() {
            self.gc_blocked_at = Some(self.blocks.releases);
        }
        if !fits {
            self.lane_refused_at = Some(state);
        }
        fits.then_some(v)
    }

    /// Host units placed in the streams' open program units, not yet sent to NAND.
    pub fn host_mus_in_open_units(&self) -> u64 {
        self.streams.iter().map(|s| u64::from(s.pu_host)).sum()
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

    /// A program finished: its MUs are durable.
    pub fn program_done(&mut self, block: BlockId, mus: u32) {
        self.blocks.prog_done[block.idx()] += mus;
    }

    /// Power loss: the streams' open blocks and partial units are gone (recovery hands the
    /// blocks back with [`Self::resume_open_block`]), and sequence numbers restart after the
    /// highest one found on NAND.
    pub(crate) fn restart_streams(&mut self, next_seq: u32) {
        for s in &mut self.streams {
            s.open.fill(BlockId::NONE);
            s.open_dies.clear_all();
            (s.pu_fill, s.pu_host, s.pu_live, s.room) = (0, 0, 0, 0);
        }
        self.next_seq = next_seq.max(1);
        self.gc_blocked_at = None;
        self.lane_refused_at = None;
        self.host_blocked_at.set(None);
        self.reloc = Reloc::new(self.layout.dies);
        self.relocation_epoch += 1;
    }

    /// Power-up: open block `b` (partly programmed, ending on a program unit) goes back to the
    /// stream that wrote it, on its die, which continues after its programmed part. False (and
    /// `b` is closed instead) if that stream already has a block open there.
    pub(crate) fn resume_open_block(&mut self, b: BlockId) -> bool {
        let die = self.layout.die_of_block(b);
        let si = usize::from(self.blocks.stream[b.idx()]).min(self.streams.len() - 1);
        let room = self.layout.mus_per_block - self.blocks.write_ptr[b.idx()];
        let s = &mut self.streams[si];
        if s.open[die as usize] != BlockId::NONE {
            self.blocks.close(b, self.stats.host_write_mus);
            return false;
        }
        s.open[die as usize] = b;
        s.open_dies.set(die, true);
        s.room += u64::from(room);
        true
    }
}
