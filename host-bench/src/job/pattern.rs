//! Offset, length and direction generator for one job instance.
//!
//! Built once per job from its [`JobSpec`], the device geometry and a seeded ChaCha8 stream;
//! after that [`IoPattern::next_io`] is allocation-free, hash-free and branch-light: tables for
//! bssplit and zones are small slices scanned linearly, Zipf and Pareto are closed-form samplers
//! (see [`super::zipf`]). The same spec, geometry and seed always give the same sequence.
//!
//! Skewed distributions (zipf, pareto, normal) pick a *rank* over the region in units of the
//! smallest alignment, then map ranks to places with a fixed affine permutation so hot blocks
//! are spread over the region rather than packed at its start (fio hashes ranks for the same
//! reason). Zoned distributions are not scrambled: zones are contiguous, in region order.
//!
//! Uniform random offsets follow fio's random map by default (see [`super::randmap`]): every
//! block of the region once per loop. As in fio, `norandommap`, a `blockalign` other than the
//! block size, or any non-uniform distribution draws with replacement instead; `lfsr` covers
//! the region once per loop without a map. A loop is the job's bytes per loop (`io_size`, else
//! the region); at its end the map is cleared and sequential I/O restarts at the region start.
//! As fio counts them, whole blocks are issued until the loop's bytes are reached, so where
//! they are not a block multiple a sequential loop's last I/O runs past them, while a full
//! map (whole blocks only) ends the loop first; a new pass needs a largest block of bytes left.
//!
//! Non-random offsets follow fio's per-direction positions, `rw=...:N` modifiers, and strided
//! zones (see `job/seqpos.rs`). As in fio, a non-random offset at or past the end of the
//! region ends the loop early (`rw=write:4k` writes half of `size`); a time-based job, or one
//! with an explicit `io_size`, starts a new pass instead.

use rand::RngCore;
use rand_chacha::ChaCha8Rng;

use super::randmap::{FullPeriod, RandomMap};
use super::seqpos::SeqPos;
use super::zipf::{ParetoSampler, ZipfSampler};
use super::{JobSpec, RwMode, Sequencing};
use crate::device::IoDir;

mod offsets;
mod sizes;
mod tables;
use tables::{bs_entries, coverage, file_region, make_sampler, start_offset};

/// Geometry problems that make a job impossible on a device.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    #[error("job '{job}': {what} = {bytes} bytes is not a multiple of the device's logical block size {block_bytes}")]
    Misaligned { job: String, what: &'static str, bytes: u64, block_bytes: u32 },
    #[error("job '{job}': region of {region_bytes} bytes at offset {offset_bytes} cannot hold a {block_bytes}-byte I/O (device capacity {capacity_bytes})")]
    RegionTooSmall { job: String, offset_bytes: u64, region_bytes: u64, block_bytes: u32, capacity_bytes: u64 },
    #[error("job '{job}': filesize = {filesize_bytes} bytes exceeds the device capacity {capacity_bytes}")]
    FileBeyondDevice { job: String, filesize_bytes: u64, capacity_bytes: u64 },
}

/// The next I/O to issue; offset and length are multiples of the logical block size.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct NextIo {
    pub dir: IoDir,
    pub offset_bytes: u64,
    pub len_bytes: u32,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
enum Sampler {
    Uniform,
    Zipf(ZipfSampler),
    Pareto(ParetoSampler),
    Normal {
        center: f64,
        sigma: f64,
    },
    /// (cumulative access percent, first slot, slot count) per zone.
    Zoned(Box<[(u32, u64, u64)]>),
}

/// Deterministic generator of (direction, offset, length) for one job instance.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct IoPattern {
    #[serde(with = "crate::rng_serde")]
    rng: ChaCha8Rng,
    rw: RwMode,
    rwmixread_percent: u32,
    /// Per direction: (block size, cumulative percent) entries, last one at 100.
    bs_table: [Box<[(u32, u32)]>; 3],
    /// Per direction, a bsrange's (min, max) when it sets the lengths (no bssplit).
    bs_range: [Option<(u32, u32)>; 3],
    align_bytes: [u64; 3],
    percentage_random: [u32; 3],
    region_start_bytes: u64,
    region_bytes: u64,
    capacity_bytes: u64,
    /// Length random offsets are drawn in: the region, or the zone range with strided zones.
    span_bytes: u64,
    /// Where non-random I/O goes (fio's positions, offset modifiers, strided zones).
    seq: SeqPos,
    sequencing: Sequencing,
    /// I/Os left until the next random offset (fio `ddir_seq_nr`).
    seq_left: u32,
    sampler: Sampler,
    /// Rank unit and count for skewed samplers.
    unit_bytes: u64,
    slots: u64,
    /// Rank scrambler (see [`IoPattern::permute`]): odd multiplier, increment, 2^k - 1 mask
    /// and xorshift amount.
    perm_a: u64,
    perm_c: u64,
    perm_mask: u64,
    perm_shift: u32,
    /// Uniform random offsets without replacement: a map of used blocks (units of `unit_bytes`)
    /// or a full-period sequence over them; neither for draws with replacement.
    coverage: Coverage,
    /// Bytes per loop and bytes left in this one; `u64::MAX` for time-based or I/O-count jobs.
    loop_bytes: u64,
    loop_left: u64,
    /// Loops after the current one; a loop that ends early (see the module doc) uses one up.
    loops_left: u64,
    /// A non-random offset past the region starts a new pass instead of ending the loop
    /// (time-based jobs and explicit `io_size`, as fio's keep_running).
    wrap_at_end: bool,
    /// The largest block of any direction: fio's `keep_running` starts no new pass for less
    /// than one such block of the loop's bytes.
    #[serde(default)]
    max_bs_bytes: u64,
    /// Random words for the next map draws, taken `DRAW_AHEAD` I/Os early so the map word each
    /// one lands on can be prefetched (the same words in the same order: deterministic).
    draws: [u64; DRAW_AHEAD],
    draw_next: usize,
    /// fio's `randrepeat` between passes (see [`IoPattern::repeat_each_pass`]).
    #[serde(default)]
    repeat_passes: bool,
    /// The generator and draws as made, for passes that start over from them.
    #[serde(default)]
    first_draws: Option<Box<FirstDraws>>,
}

/// The random state a pattern starts from.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
struct FirstDraws {
    #[serde(with = "crate::rng_serde")]
    rng: ChaCha8Rng,
    draws: [u64; DRAW_AHEAD],
}

/// Map draws made ahead of use; enough I/Os to hide a memory access.
const DRAW_AHEAD: usize = 16;

/// How uniform random offsets avoid repeats within a loop.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
enum Coverage {
    /// Draws with replacement (`norandommap`, fio's non-uniform distributions).
    None,
    Map(RandomMap),
    Sequence(FullPeriod),
}

impl IoPattern {
    /// Resolves the job's region on a device for `numjobs` clone `subjob` (0-based) and
    /// prepares the samplers.
    pub fn new(
        spec: &JobSpec,
        subjob: u32,
        mut rng: ChaCha8Rng,
        capacity_bytes: u64,
        logical_block_bytes: u32,
    ) -> Result<Self, PatternError> {
        let lbs = u64::from(logical_block_bytes.max(1));
        let misaligned = |what: &'static str, bytes: u64| PatternError::Misaligned {
            job: spec.name.clone(),
            what,
            bytes,
            block_bytes: logical_block_bytes,
        };
        let mut bs_table: [Box<[(u32, u32)]>; 3] = Default::default();
        let mut align_bytes = [lbs; 3];
        let mut max_bs = 0u32;
        for d in 0..3 {
            bs_table[d] = bs_entries(spec, d);
            for &(bs, _) in bs_table[d].iter() {
                if u64::from(bs) % lbs != 0 {
                    return Err(misaligned("block size", u64::from(bs)));
                }
                max_bs = max_bs.max(bs);
            }
            let min_bs = bs_table[d].iter().map(|e| e.0).min().unwrap_or(4096);
            align_bytes[d] = u64::from(spec.blockalign_bytes.unwrap_or(min_bs));
            if align_bytes[d] % lbs != 0 {
                return Err(misaligned("blockalign", align_bytes[d]));
            }
        }
        let smallest_bs = bs_table.iter().flat_map(|t| t.iter().map(|e| u64::from(e.0))).min().unwrap_or(4096);
        let start = start_offset(spec, subjob, capacity_bytes, smallest_bs) / lbs * lbs;
        let start = start.min(capacity_bytes);
        let region = match spec.filesize_bytes {
            None => {
                spec.size.map_or(capacity_bytes - start, |s| s.resolve(capacity_bytes, lbs)).min(capacity_bytes - start)
            }
            Some(file) => file_region(spec, file, start, capacity_bytes, smallest_bs)?,
        };
        if region < u64::from(max_bs) || max_bs == 0 {
            return Err(PatternError::RegionTooSmall {
                job: spec.name.clone(),
                offset_bytes: start,
                region_bytes: region,
                block_bytes: max_bs,
                capacity_bytes,
            });
        }
        let span = spec.zones.map_or(region, |z| z.range_bytes);
        if span < u64::from(max_bs) {
            return Err(PatternError::RegionTooSmall {
                job: spec.name.clone(),
                offset_bytes: start,
                region_bytes: span,
                block_bytes: max_bs,
                capacity_bytes,
            });
        }
        let unit_bytes = align_bytes.iter().copied().min().unwrap_or(lbs).max(1);
        let slots = (span / unit_bytes).max(1);
        let sampler = make_sampler(&spec.distribution, slots, span, unit_bytes);
        let perm_bits = 64 - (slots - 1).leading_zeros();
        let perm_mask = if perm_bits >= 64 { u64::MAX } else { (1u64 << perm_bits) - 1 };
        let perm_a = (rng.next_u64() | 1) & perm_mask.max(1);
        let perm_c = rng.next_u64() & perm_mask;
        let perm_shift = perm_bits / 2 + 1;
        let coverage = coverage(spec, &bs_table, &align_bytes, span / unit_bytes, &mut rng);
        // Only a map draws ahead, so patterns without one keep their sequence.
        let ahead = matches!(coverage, Coverage::Map(_));
        let draws = std::array::from_fn(|_| if ahead { rng.next_u64() } else { 0 });
        let first_draws = Some(Box::new(FirstDraws { rng: rng.clone(), draws }));
        Ok(IoPattern {
            rng,
            rw: spec.rw,
            rwmixread_percent: spec.rwmixread_percent,
            bs_table,
            bs_range: std::array::from_fn(|d| spec.bs_range[d].filter(|_| spec.bssplit[d].is_empty())),
            align_bytes,
            percentage_random: spec.percentage_random,
            region_start_bytes: start,
            region_bytes: region,
            capacity_bytes,
            span_bytes: span,
            seq: SeqPos::new(start, region, capacity_bytes, spec.sequencing.add_bytes, spec.zones),
            sequencing: spec.sequencing,
            seq_left: spec.sequencing.every_nr,
            sampler,
            unit_bytes,
            slots,
            perm_a,
            perm_c,
            perm_mask,
            perm_shift,
            coverage,
            loop_bytes: u64::MAX,
            loop_left: u64::MAX,
            loops_left: u64::MAX,
            wrap_at_end: true,
            max_bs_bytes: u64::from(max_bs),
            draws,
            draw_next: 0,
            repeat_passes: false,
            first_draws,
        })
    }

    /// Bytes per loop of a size-based job (fio's `io_size`, else the region): when they are
    /// used up the random map is cleared and sequential I/O restarts at the region start.
    pub fn set_loop_bytes(&mut self, bytes: u64) {
        self.loop_bytes = bytes.max(1);
        self.loop_left = self.loop_bytes;
    }

    /// fio's loop rules for a job that is not time-based: `loops` loops, and whether a
    /// non-random offset past the region starts a new pass (an explicit `io_size`) or ends
    /// the loop. After the last loop [`IoPattern::next_io`] returns `None`.
    pub fn set_loops(&mut self, loops: u32, wrap_at_end: bool) {
        self.loops_left = u64::from(loops.max(1)) - 1;
        self.wrap_at_end = wrap_at_end;
    }

    /// fio's `randrepeat` (its default) in a job that is not time-based: a pass that ends
    /// because its offsets ran out (the random map full, the sequential walk at the region's
    /// end) ends fio's `do_io`, and the next one starts with the generators seeded as at the
    /// start (`clear_io_state`), so every such pass issues the same I/Os: `loops=2` of random
    /// writes writes one permutation twice. Draws with replacement never run out, so fio runs
    /// all their loops in one `do_io` and they go on drawing (checked against fio 3.33).
    pub fn repeat_each_pass(&mut self) {
        self.repeat_passes = true;
    }

    /// Starts the draws over, if this pass repeats the first (see [`IoPattern::repeat_each_pass`]);
    /// true if it did.
    fn restart_draws(&mut self) -> bool {
        let ran_out = !matches!(self.coverage, Coverage::None) || !self.rw.is_random();
        match self.first_draws.as_deref().filter(|_| self.repeat_passes && ran_out) {
            Some(f) => {
                self.rng = f.rng.clone();
                self.draws = f.draws;
                self.draw_next = 0;
                true
            }
            None => false,
        }
    }

    /// Whether a pass that ended starts another within the loop: the job wraps and at least
    /// one largest block of the loop's bytes is left (fio's `keep_running`).
    #[inline]
    fn wraps(&self) -> bool {
        self.wrap_at_end && self.loop_left >= self.max_bs_bytes
    }

    /// True when uniform random offsets hit each block once per loop (map or full-period sequence).
    pub fn covers_once_per_loop(&self) -> bool {
        !matches!(self.coverage, Coverage::None)
    }

    /// Random-map bits held by this pattern (0 without a map): one per block of the region.
    pub fn map_bits(&self) -> u64 {
        match &self.coverage {
            Coverage::Map(m) => m.blocks(),
            _ => 0,
        }
    }

    /// fio's per-loop reset: random map cleared, LFSR back to its seed, sequential I/O at the
    /// start. False when no loop is left.
    fn new_loop(&mut self) -> Option<bool> {
        if self.loops_left == 0 {
            return None;
        }
        self.loops_left = self.loops_left.saturating_sub(1);
        self.loop_left = self.loop_bytes;
        Some(self.new_pass())
    }

    /// A new pass over the region (fio's `fio_file_reset`), within the same loop; true if its
    /// draws start over (see [`IoPattern::restart_draws`]).
    fn new_pass(&mut self) -> bool {
        self.seq.reset();
        self.reset_coverage();
        self.restart_draws()
    }

    fn reset_coverage(&mut self) {
        match &mut self.coverage {
            Coverage::None => {}
            Coverage::Map(m) => m.reset(),
            Coverage::Sequence(s) => s.reset(),
        }
    }

    /// (start, length) of the byte region this job addresses.
    pub fn region(&self) -> (u64, u64) {
        (self.region_start_bytes, self.region_bytes)
    }

    /// The next I/O, or `None` when the job's loops are done (see [`IoPattern::set_loops`]).
    /// Constant time, no allocation.
    #[inline]
    pub fn next_io(&mut self) -> Option<NextIo> {
        let dir = self.next_dir();
        self.next_io_as(dir)
    }

    /// The direction the next I/O would have (fio's `rwmix` draw); [`IoPattern::next_io_as`]
    /// then makes it, possibly in another direction (fio's rate limit switches directions).
    #[inline]
    pub fn draw_dir(&mut self) -> IoDir {
        self.next_dir()
    }

    /// The next I/O in direction `dir`, or `None` when the job's loops are done.
    #[inline]
    pub fn next_io_as(&mut self, mut dir: IoDir) -> Option<NextIo> {
        if self.loop_left == 0 {
            let restarted = self.new_loop()?;
            dir = self.first_dir(dir, restarted);
        }
        if let Some(io) = self.fill(dir) {
            return Some(io);
        }
        // fio: an offset that cannot be placed ends the pass; a new loop or pass follows
        // if the job has one, and a fresh pass that cannot place an I/O either ends the job.
        let restarted = if self.wraps() { self.new_pass() } else { self.new_loop()? };
        dir = self.first_dir(dir, restarted);
        self.fill(dir)
    }

    /// The direction of a pass's first I/O: drawn again when the pass's draws started over
    /// (fio draws it from the reseeded generator), else the one drawn already.
    #[inline]
    fn first_dir(&mut self, dir: IoDir, restarted: bool) -> IoDir {
        if restarted && self.rw.is_mixed() {
            self.next_dir()
        } else {
            dir
        }
    }

    /// fio's `fill_io_u` for one I/O: direction, size, zone, offset; `None` when the offset
    /// falls outside the region or the device.
    #[inline]
    fn fill(&mut self, dir: IoDir) -> Option<NextIo> {
        let d = dir.index();
        // fio's order (`fill_io_u`): the offset, then a size that fits before the region's end.
        // With one size there is nothing to fit (and no draw): the size comes first as before.
        let fixed = self.bs_range[d].is_none() && self.bs_table[d].len() == 1;
        let mut len = if fixed { self.next_len(d) } else { sizes::smallest(&self.bs_table[d], self.bs_range[d]) };
        let mut sized = fixed;
        if self.seq.enter_zone(d) {
            self.reset_coverage();
        }
        let rel = if !self.rw.is_random() {
            self.seq.seq_offset(d)?
        } else if self.random_turn() {
            let random =
                self.percentage_random[d] >= 100 || below(&mut self.rng, 100) < u64::from(self.percentage_random[d]);
            match if random { None } else { self.seq.seq_offset(d) } {
                Some(rel) => rel,
                None => self.random_rel(d, &mut len, &mut sized)?,
            }
        } else if self.sequencing.identical {
            self.seq.identical_offset(d)
        } else {
            match self.seq.seq_offset(d) {
                Some(rel) => rel,
                None => self.random_rel(d, &mut len, &mut sized)?,
            }
        };
        let zoned = self.span_bytes != self.region_bytes;
        if !sized {
            let end = if zoned { self.span_bytes } else { self.region_bytes };
            let room = end.saturating_sub(rel);
            len = sizes::fitting_len(&mut self.rng, &self.bs_table[d], self.bs_range[d], room)?;
        }
        let len64 = u64::from(len);
        let abs = self.seq.base().checked_add(rel)?;
        // fio's checks (`get_next_offset`, `fill_io_u`): the offset inside the region and the
        // I/O inside the device. The last I/O of a region whose size is not a multiple of the
        // block size runs past the region's end, as in fio (`size=1000000 bs=4k rw=write`
        // writes 245 blocks); a strided zone keeps its I/Os inside it.
        if rel >= self.region_bytes
            || (zoned && rel + len64 > self.span_bytes)
            || abs.checked_add(len64)? > self.capacity_bytes
        {
            return None;
        }
        self.seq.issued(d, rel, len64);
        self.loop_left = self.loop_left.saturating_sub(len64);
        Some(NextIo { dir, offset_bytes: abs, len_bytes: len })
    }

    /// fio's `ddir_seq_nr`: true on every N-th I/O of `rw=rand...:N` (every I/O without it).
    #[inline]
    fn random_turn(&mut self) -> bool {
        self.seq_left = self.seq_left.saturating_sub(1);
        if self.seq_left == 0 {
            self.seq_left = self.sequencing.every_nr.max(1);
            return true;
        }
        false
    }

    /// A random offset relative to the zone (or region) start, drawn for an I/O of `len` bytes;
    /// under the random map (or full-period sequence) a size not yet drawn (`sized` false) is
    /// drawn at the offset found, and the size is trimmed to the free run. `None` once every
    /// block was used this pass (see `covered_offset`).
    #[inline]
    fn random_rel(&mut self, d: usize, len: &mut u32, sized: &mut bool) -> Option<u64> {
        if matches!(self.coverage, Coverage::None) {
            Some(self.random_offset(d, *len))
        } else {
            let (rel, covered) = self.covered_offset(d, *len, !*sized)?;
            *len = covered;
            *sized = true;
            Some(rel)
        }
    }

    /// A uniform random offset without replacement and the length that fits there: fio marks
    /// the I/O's blocks in the map and trims the I/O at the first block already used. `None`
    /// when every block was used and the job does not wrap: fio's file is then done and the
    /// loop ends, even with bytes of it left (`size` not a multiple of the block size).
    #[inline]
    #[allow(clippy::cast_possible_truncation)] // fits <= len, a u32
    fn covered_offset(&mut self, d: usize, len: u32, draw_size: bool) -> Option<(u64, u32)> {
        let unit = self.unit_bytes;
        let wrap = self.wraps();
        Some(match &mut self.coverage {
            Coverage::Map(map) => {
                if map.is_full() {
                    // A pass that repeats the first starts in `next_io_as` (fio ends `do_io`).
                    if !wrap || self.repeat_passes {
                        return None;
                    }
                    // A time-based job (or io_size above size) starts a new pass, as fio does.
                    map.reset();
                }
                let align = self.align_bytes[d];
                let last_start = self.span_bytes - u64::from(len);
                let choices = div(last_start, align) + 1;
                let r = std::mem::replace(&mut self.draws[self.draw_next], self.rng.next_u64());
                // Prefetch for the draw used DRAW_AHEAD I/Os from now, assuming the same size.
                map.prefetch(rescale(scaled(self.draws[self.draw_next], choices), align, unit));
                self.draw_next = (self.draw_next + 1) % DRAW_AHEAD;
                let drawn = rescale(scaled(r, choices), align, unit);
                let block = map.free_at_or_after(drawn).unwrap_or(drawn);
                // fio marks the map after the size is drawn (`mark_random_map`).
                let len = if draw_size {
                    let room = self.span_bytes.saturating_sub(block * unit);
                    sizes::fitting_len(&mut self.rng, &self.bs_table[d], self.bs_range[d], room)?
                } else {
                    len
                };
                let marked = map.mark_run(block, u64::from(len).div_ceil(unit)).max(1);
                let fits = (marked * unit).min(u64::from(len)) as u32;
                (block * unit, fits)
            }
            Coverage::Sequence(seq) => {
                if seq.is_done() {
                    if !wrap || self.repeat_passes {
                        return None;
                    }
                    seq.reset();
                }
                let rel = seq.next_value() * unit;
                let len = if draw_size {
                    let room = self.span_bytes.saturating_sub(rel);
                    sizes::fitting_len(&mut self.rng, &self.bs_table[d], self.bs_range[d], room)?
                } else {
                    len
                };
                let fits = (self.span_bytes - rel).min(u64::from(len)) as u32;
                (rel, fits)
            }
            Coverage::None => (self.random_offset(d, len), len),
        })
    }

    #[inline]
    fn next_dir(&mut self) -> IoDir {
        match self.rw {
            RwMode::Read | RwMode::RandRead => IoDir::Read,
            RwMode::Write | RwMode::RandWrite => IoDir::Write,
            RwMode::Trim | RwMode::RandTrim => IoDir::Trim,
            RwMode::ReadWrite | RwMode::RandRw => {
                if below(&mut self.rng, 100) < u64::from(self.rwmixread_percent) {
                    IoDir::Read
                } else {
                    IoDir::Write
                }
            }
        }
    }

    #[inline]
    fn next_len(&mut self, d: usize) -> u32 {
        sizes::next_len(&mut self.rng, &self.bs_table[d], self.bs_range[d])
    }
}

/// Uniform in 0..n by multiply-shift (bias below n / 2^64, negligible for our n).
#[inline]
pub(crate) fn below(rng: &mut ChaCha8Rng, n: u64) -> u64 {
    scaled(rng.next_u64(), n)
}

/// `a / b`, as a shift when `b` is a power of two (block sizes nearly always are): a 64-bit
/// divide costs tens of cycles, several times per random I/O otherwise. Same result.
#[inline(always)]
fn div(a: u64, b: u64) -> u64 {
    if b.is_power_of_two() {
        a >> b.trailing_zeros()
    } else {
        a / b
    }
}

/// `slot * align / unit` (slot in units of `align`, result in units of `unit`; `slot * align`
/// lies inside the region, so it does not overflow).
#[inline(always)]
fn rescale(slot: u64, align: u64, unit: u64) -> u64 {
    div(slot * align, unit)
}

/// A random word mapped to 0..n (multiply-shift).
#[inline]
fn scaled(r: u64, n: u64) -> u64 {
    ((u128::from(r) * u128::from(n)) >> 64) as u64
}
