//! The recorder: an observer of a simulated run. It reads the drive's counters and block table
//! after completions (never writes to the drive), keeping a bounded number of frames: one per
//! `every` host completions and one whenever GC picks a victim. Past [`MAX_FRAMES`] neighbouring
//! frames merge (exactly: the later frame's counters, both frames' block changes) and `every`
//! doubles, so memory and the page's size stay bounded for runs of any length. Besides the
//! frames it logs the blocks each host write changed ([`WriteLog`], up to
//! [`MAX_WRITE_ENTRIES`] writes), so the page can step one write at a time anywhere.

use super::diff::BlockShadow;
pub use super::latency::latency_bucket_upper_ns;
pub(crate) use super::latency::{lat_bucket, lat_upper, LAT_BUCKETS};
use super::model::*;
use super::optrace::DieRecorder;
use super::thin;
use super::writewatch::WriteWatch;
use crate::device::{Device, DeviceError, DeviceInfo, HostUsage, IoCompletion, IoRequest};
use crate::sim::SimTarget;
use ftl::blocks::BlockState;
use ftl::device::SimSsd;
use ftl::BlockId;

/// Most frames kept.
pub const MAX_FRAMES: usize = 2400;
/// Drives with at most this many blocks are drawn block by block.
pub const MAX_SAMPLED_BLOCKS: u32 = 4096;
/// Larger drives show their first dies, about this many blocks, plus histograms of all blocks.
pub const SAMPLE_BLOCKS: u32 = 1024;
/// Without a write log: host writes after GC's first victim that get a frame each, never
/// merged (there the page steps one host write at a time).
pub const FINE_WRITES: u32 = 1000;
/// Host writes logged one by one at most (a lesson on `tiny` has about 62,000): past this the
/// page steps frame by frame. Bounds the page's size (~8 bytes per write once gzipped).
pub const MAX_WRITE_ENTRIES: usize = 150_000;
/// Cost-benefit candidates kept beside each victim.
pub const RIVALS: usize = 5;

/// A power cut planned at a simulated instant during the run (`explore --power-cut-at`).
pub struct MidRunCut {
    pub at_ns: u64,
    /// Set at the cut: the run's stop flag, so the runner starts no further job group.
    pub flag: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// What the cut did, once it happened.
    pub report: Option<ftl::recovery::PowerCutReport>,
}

/// Frames under construction, with what merging needs besides the columns.
pub struct Recorder {
    /// A power cut to make mid-run, if any.
    pub cut: Option<MidRunCut>,
    meta: DriveMeta,
    init: Vec<BlockRec>,
    frames: Frames,
    /// Block changes (frame, block, record) in frame order, grouped into `frames.delta` at the
    /// end: one flat vector, so a frame allocates nothing.
    deltas: Vec<(u32, u32, BlockRec)>,
    /// Latency counts (frame, bucket, count) in frame order, likewise.
    lat: Vec<(u32, u16, u32)>,
    cur_lat: Box<[u32; LAT_BUCKETS]>,
    /// Buckets of `cur_lat` that are not zero.
    touched: Vec<u16>,
    /// Scratch for merging: per block, the merged frame (+1) and position it was last put at.
    seen: Vec<(u32, usize)>,
    shadow: BlockShadow,
    /// Scratch: the blocks changed at the last look, with their records before.
    changed: Vec<(u32, BlockRec)>,
    /// Blocks changed since the last frame, and a mark per block for "in the list".
    dirty: Vec<u32>,
    dirty_mark: Vec<bool>,
    /// Blocks changed since the last write entry, with their records at that entry.
    wdirty: Vec<(u32, BlockRec)>,
    wdirty_mark: Vec<bool>,
    writes: WriteLog,
    last_write_ns: u64,
    /// Which blocks a write can have changed (what the per-write look covers); kept only with
    /// a write log: without one, looks are at frames only, and a full look then costs less
    /// than following every write.
    ww: WriteWatch,
    /// Log every host write ([`Recorder::with_write_log`]).
    write_log: bool,
    /// Without a write log: single-write frames still to take once GC has started.
    fine_left: u32,
    /// Victims seen since the last frame.
    victims: Vec<VictimRec>,
    every: u32,
    since: u32,
    last_victims: u64,
    calls: u64,
    dies: DieRecorder,
}

/// The state of block `b` as drawn.
pub fn block_rec(ssd: &SimSsd, b: u32) -> BlockRec {
    let t = &ssd.core.blocks;
    let id = BlockId::new(b);
    let i = id.idx();
    let state = match t.state[i] {
        BlockState::Free => ST_FREE,
        BlockState::Open => ST_OPEN,
        BlockState::Closed if t.is_reserved(id) => ST_RESERVED,
        BlockState::Closed => ST_CLOSED,
        BlockState::Victim if ssd.core.is_relocating(id) => ST_RELOCATING,
        BlockState::Victim => ST_ERASING,
    };
    BlockRec {
        state,
        valid: t.valid[i],
        wp: t.write_ptr[i],
        erase: t.erase_count[i],
        stream: t.stream[i],
        closed_at: t.closed_at[i],
    }
}

/// Under cost-benefit, the best [`RIVALS`] candidates of victim `v`'s die now, best first
/// (ties by block id, as the policy breaks them).
fn rivals(ssd: &SimSsd, v: u32) -> Vec<(u32, u32, Option<f64>)> {
    if ssd.core.cfg.policy != ftl::GcPolicy::CostBenefit {
        return Vec::new();
    }
    let (t, mpb, now) = (&ssd.core.blocks, ssd.core.layout.mus_per_block, ssd.core.stats.host_write_mus);
    let mut c: Vec<(f64, u32)> = t
        .die_blocks(v / ssd.core.layout.blocks_per_die.max(1))
        .filter(|&b| b.get() != v && t.is_candidate(b, mpb))
        .map(|b| (ftl::gc::policy::score(t.valid[b.idx()], mpb, now.saturating_sub(t.closed_at[b.idx()])), b.get()))
        .collect();
    c.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    c.iter().take(RIVALS).map(|&(s, b)| (b, t.valid[b as usize], Some(s).filter(|s| s.is_finite()))).collect()
}

impl Recorder {
    /// Starts recording `ssd` (this switches its NAND op log on for the shown dies).
    pub fn new(ssd: &mut SimSsd, meta: DriveMeta) -> Recorder {
        let init: Vec<BlockRec> = (0..meta.sampled_blocks).map(|b| block_rec(ssd, b)).collect();
        let dies = DieRecorder::start(ssd, meta.sampled_blocks / meta.blocks_per_die.max(1));
        let n = init.len();
        let mut r = Recorder {
            cut: None,
            shadow: BlockShadow::new(ssd, &init),
            changed: Vec::new(),
            dirty: Vec::new(),
            dirty_mark: vec![false; n],
            wdirty: Vec::new(),
            wdirty_mark: vec![false; n],
            writes: WriteLog::default(),
            last_write_ns: 0,
            ww: WriteWatch::default(),
            write_log: false,
            fine_left: FINE_WRITES,
            victims: Vec::new(),
            init,
            meta,
            frames: Frames::default(),
            deltas: Vec::new(),
            lat: Vec::new(),
            cur_lat: Box::new([0; LAT_BUCKETS]),
            touched: Vec::new(),
            seen: Vec::new(),
            every: 1,
            since: 0,
            last_victims: ssd.core.stats.gc_victims,
            calls: 0,
            dies,
        };
        r.frame(ssd);
        r
    }

    /// Logs every host write's block changes (up to [`MAX_WRITE_ENTRIES`]), so the page steps
    /// one write at a time anywhere, instead of single-write frames for the first
    /// [`FINE_WRITES`] writes after GC starts. Costs about 1,100 instructions per write.
    pub fn with_write_log(mut self, on: bool) -> Recorder {
        self.write_log = on;
        self
    }

    pub fn meta(&self) -> &DriveMeta {
        &self.meta
    }

    /// Power is cut now: the die timeline ends the operations under way here.
    pub fn power_cut_now(&mut self, ssd: &mut SimSsd) {
        let now = ssd.now().ns();
        self.dies.cut(ssd, now);
    }

    /// Called after every `wait` of the run (with its completion, if any).
    #[inline]
    #[allow(clippy::cast_possible_truncation)] // latency buckets, blocks, dies and frames are far below u16/u32 limits (Layout ids are u32)
    pub fn observe(&mut self, ssd: &SimSsd, done: Option<&IoCompletion>) {
        self.calls += 1;
        if let Some(c) = done {
            self.since += 1;
            let b = lat_bucket(c.complete_ns.saturating_sub(c.submit_ns));
            if self.cur_lat[b] == 0 {
                self.touched.push(b as u16);
            }
            self.cur_lat[b] += 1;
        }
        self.dies.sample_held(ssd);
        let write = done.is_some_and(|c| c.dir == crate::device::IoDir::Write);
        if self.write_log && write {
            self.log_write(ssd);
        }
        if !self.write_log && write && self.fine_left > 0 && ssd.core.stats.gc_victims > 0 {
            self.fine_left -= 1;
            self.frame(ssd);
            // frame() has just pushed this frame's flag.
            if let Some(fine) = self.frames.fine.last_mut() {
                *fine = true;
            }
        } else if self.since >= self.every || ssd.core.stats.gc_victims != self.last_victims {
            self.frame(ssd);
        }
        if let (Some(c), true) = (done, self.write_log) {
            self.ww.completed(c);
        }
    }

    /// Finds the blocks changed since the last look: notes them for the next frame and the next
    /// write entry, and new victims for the next frame.
    /// With a write log, looks only at the blocks that can have changed when that is known
    /// ([`WriteWatch`]); without, every look is a full one.
    fn look(&mut self, ssd: &SimSsd) {
        self.changed.clear();
        let cands = if self.write_log { self.ww.candidates(ssd) } else { None };
        let full = cands.is_none();
        match cands {
            Some((any, closed)) => self.shadow.changes_of(ssd, any, closed, &mut self.changed),
            None => self.shadow.changes(ssd, &mut self.changed),
        }
        #[cfg(debug_assertions)]
        if !full {
            let mut missed = Vec::new();
            self.shadow.changes(ssd, &mut missed);
            let now: Vec<BlockRec> = missed.iter().map(|c| self.shadow.last[c.0 as usize]).collect();
            debug_assert!(missed.is_empty(), "explore: a short look missed block changes {missed:?}, now {now:?}");
        }
        if self.write_log {
            self.ww.looked(ssd, &self.shadow.last, &self.changed, full);
        }
        if self.changed.is_empty() {
            return;
        }
        let log = self.write_log && self.writes.n.len() < MAX_WRITE_ENTRIES;
        for &(b, old) in &self.changed {
            let i = b as usize;
            if !self.dirty_mark[i] {
                self.dirty_mark[i] = true;
                self.dirty.push(b);
            }
            if log && !self.wdirty_mark[i] {
                self.wdirty_mark[i] = true;
                self.wdirty.push((b, old));
            }
            let r = self.shadow.last[i];
            let was_victim = matches!(old.state, ST_RELOCATING | ST_ERASING);
            if matches!(r.state, ST_RELOCATING | ST_ERASING) && !was_victim {
                let valid = ssd.gc_valid_at_pick(BlockId::new(b)).unwrap_or(old.valid);
                let age = ssd.core.stats.host_write_mus.saturating_sub(old.closed_at);
                let mpb = self.meta.mus_per_block;
                self.victims.push(VictimRec {
                    block: b,
                    valid,
                    score: Some(ftl::gc::policy::score(valid, mpb, age)).filter(|s| s.is_finite()),
                    rivals: rivals(ssd, b),
                });
            }
        }
    }

    /// A host write completed now: logs the blocks changed since the previous one.
    #[allow(clippy::cast_possible_truncation)] // changed blocks per write are far below u32
    fn log_write(&mut self, ssd: &SimSsd) {
        self.look(ssd);
        let w = &mut self.writes;
        if w.n.len() >= MAX_WRITE_ENTRIES {
            w.dropped += 1;
            return;
        }
        let now = ssd.now().ns();
        w.dt_ns.push(now - self.last_write_ns);
        self.last_write_ns = now;
        w.n.push(self.wdirty.len() as u32);
        for &(b, old) in &self.wdirty {
            let r = self.shadow.last[b as usize];
            self.wdirty_mark[b as usize] = false;
            let b = b as u64;
            // Pushed one by one: the compiler inlines these but not a copy from a slice.
            let full = (r.state, r.erase, r.stream, r.closed_at) != (old.state, old.erase, old.stream, old.closed_at);
            w.ch.push(2 * b + u64::from(full));
            if full {
                w.ch.push(r.state as u64);
            }
            w.ch.push(r.valid as u64);
            w.ch.push(r.wp as u64);
            if full {
                w.ch.push(r.erase as u64);
                w.ch.push(r.stream as u64);
                w.ch.push(r.closed_at);
            }
        }
        self.wdirty.clear();
    }

    /// Takes a frame now.
    #[allow(clippy::cast_possible_truncation)] // latency buckets, blocks, dies and frames are far below u16/u32 limits (Layout ids are u32)
    pub fn frame(&mut self, ssd: &SimSsd) {
        self.look(ssd);
        let c = ssd.counters();
        let idx = self.frames.t_ns.len() as u32;
        let f = &mut self.frames;
        f.t_ns.push(ssd.now().ns());
        f.calls.push(self.calls);
        f.host_writes.push(c.host_writes);
        f.host_reads.push(c.host_reads);
        f.host_write_bytes.push(c.host_write_bytes);
        f.host_trim_bytes.push(c.host_trim_bytes);
        f.nand_write_bytes.push(c.nand_write_bytes);
        f.gc_write_bytes.push(c.gc_write_bytes);
        f.gc_victims.push(c.gc_victims);
        f.erases.push(c.erases);
        f.free_blocks.push(c.free_blocks);
        f.gc_stall_ns.push(c.gc_stall_ns);
        f.energy_j.push(c.energy_j);
        f.throttled_ns.push(ssd.flash().governor().map_or(0, |g| g.throttled_total(ssd.now()).ns()));
        f.completions.push(self.since);
        f.fine.push(false);
        f.writes.push(self.writes.n.len() as u32);
        let mpb = self.meta.mus_per_block;
        for &b in &self.dirty {
            self.dirty_mark[b as usize] = false;
            self.deltas.push((idx, b, self.shadow.last[b as usize]));
        }
        self.dirty.clear();
        f.victims.push(std::mem::take(&mut self.victims));
        if self.meta.sampled_blocks < self.meta.blocks {
            let t = &ssd.core.blocks;
            let mut h = vec![0u32; 16];
            for b in 0..self.meta.blocks {
                if t.state[b as usize] == BlockState::Closed && !t.is_reserved(BlockId::new(b)) {
                    h[(t.valid[b as usize] as usize * 16 / (mpb as usize + 1)).min(15)] += 1;
                }
            }
            f.hist.push(h);
        }
        for &b in &self.touched {
            self.lat.push((idx, b, std::mem::take(&mut self.cur_lat[b as usize])));
        }
        self.touched.clear();
        self.since = 0;
        self.last_victims = c.gc_victims;
        if self.frames.t_ns.len() > MAX_FRAMES {
            self.thin();
        }
    }

    /// Merges frames pairwise ([`thin::thin`]) and doubles the completions per frame.
    fn thin(&mut self) {
        let blocks = self.meta.sampled_blocks as usize;
        thin::thin(&mut self.frames, &mut self.deltas, &mut self.lat, &mut self.seen, blocks);
        self.every = self.every.saturating_mul(2);
    }

    /// The recording, with a last frame at the end of the run.
    pub fn finish(mut self, ssd: &mut SimSsd, label: impl Into<String>, notes: Vec<String>) -> Recording {
        if self.frames.t_ns.last() != Some(&ssd.now().ns()) || self.since > 0 {
            self.frame(ssd);
        }
        let mut frames = self.frames;
        let dies = self.dies.finish(ssd);
        let mut len = vec![0usize; frames.t_ns.len()];
        for &(i, ..) in &self.deltas {
            len[i as usize] += 7;
        }
        frames.delta = len.into_iter().map(Vec::with_capacity).collect();
        for &(i, b, r) in &self.deltas {
            frames.delta[i as usize].extend_from_slice(&[
                b as u64,
                r.state as u64,
                r.valid as u64,
                r.wp as u64,
                r.erase as u64,
                r.stream as u64,
                r.closed_at,
            ]);
        }
        Recording {
            label: label.into(),
            meta: self.meta,
            init: self.init,
            frames,
            writes: self.writes,
            dies,
            series: Default::default(),
            lat: self.lat,
            notes,
        }
    }
}

/// A simulated target with a recorder watching it: every call goes to the target unchanged; the
/// recorder looks at the drive after each `wait`.
pub struct Observed<'a> {
    pub target: &'a mut SimTarget,
    pub rec: &'a mut Recorder,
}

impl Observed<'_> {
    /// Cuts power now (the drive drops its in-flight commands and reboots) and stops the run:
    /// returning no completion without a deadline ends the runner's job group, and the stop
    /// flag keeps it from starting another. A paced job (the runner waits with a deadline)
    /// would go on submitting, so it is refused.
    fn cut_power(&mut self, paced: bool) -> Result<(), DeviceError> {
        if paced {
            return Err(DeviceError::Other(
                "--power-cut-at: a paced job (rate, rate_iops, or an iolog replayed with its timing) cannot be cut mid-run".into(),
            ));
        }
        self.rec.frame(&self.target.ssd);
        self.rec.power_cut_now(&mut self.target.ssd);
        let rep = self.target.ssd.power_cut().map_err(|e| DeviceError::Other(e.to_string()))?;
        if let Some(c) = self.rec.cut.as_mut() {
            c.report = Some(rep);
            c.flag.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        self.rec.frame(&self.target.ssd);
        Ok(())
    }
}

impl Device for Observed<'_> {
    fn info(&self) -> DeviceInfo {
        self.target.info()
    }
    fn now_ns(&self) -> u64 {
        self.target.now_ns()
    }
    fn submit(&mut self, req: IoRequest) -> Result<(), DeviceError> {
        if !self.rec.write_log {
            return self.target.submit(req);
        }
        let dir = req.dir;
        self.rec.ww.submitted(&self.target.ssd, &req, self.rec.meta.sampled_blocks);
        let r = self.target.submit(req);
        if r.is_err() {
            self.rec.ww.refused(dir);
        }
        r
    }
    fn wait(&mut self, deadline_ns: Option<u64>) -> Result<Option<IoCompletion>, DeviceError> {
        let cut_at = self.rec.cut.as_ref().filter(|c| c.report.is_none()).map(|c| c.at_ns);
        let r = match cut_at {
            Some(at) => self.target.wait(Some(deadline_ns.map_or(at, |d| d.min(at))))?,
            None => self.target.wait(deadline_ns)?,
        };
        if let (Some(at), None) = (cut_at, r) {
            if self.target.ssd.now().ns() >= at {
                return self.cut_power(deadline_ns.is_some()).map(|_| None);
            }
        }
        self.rec.dies.tick(&mut self.target.ssd);
        self.rec.observe(&self.target.ssd, r.as_ref());
        Ok(r)
    }
    fn outstanding(&self) -> usize {
        self.target.outstanding()
    }
    fn hint_next_offset(&mut self, offset_bytes: u64) {
        self.target.hint_next_offset(offset_bytes)
    }
    fn settle(&mut self) {
        self.target.settle();
        self.rec.dies.tick(&mut self.target.ssd);
        self.rec.observe(&self.target.ssd, None);
    }
    fn resolve_slow_swings(&mut self, resolved: bool) {
        self.target.resolve_slow_swings(resolved)
    }
    fn report_grid(&mut self, origins_ns: &[u64], interval_ns: u64) {
        self.target.report_grid(origins_ns, interval_ns)
    }
    fn report_point(&mut self) {
        self.target.report_point()
    }
    fn host_usage(&self) -> Option<HostUsage> {
        self.target.host_usage()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinning_keeps_every_column_aligned_and_bounded() {
        let mut s = crate::simrun::SimSession::new(crate::simrun::SimConfig::new("tiny", 1)).unwrap();
        let meta = super::super::meta_of(&s);
        let mut rec = Recorder::new(&mut s.target.ssd, meta);
        for _ in 0..3 * MAX_FRAMES {
            rec.frame(&s.target.ssd);
        }
        assert!(rec.every > 1, "never thinned");
        let r = rec.finish(&mut s.target.ssd, "x", vec![]);
        let v = serde_json::to_value(&r.frames).unwrap();
        let n = r.frames.t_ns.len();
        assert!(n <= MAX_FRAMES && n > MAX_FRAMES / 4, "{n} frames");
        for (k, col) in v.as_object().unwrap() {
            let len = col.as_array().unwrap().len();
            assert!(len == n || (k == "hist" && len == 0), "column {k}: {len} entries, {n} frames");
        }
    }
}
