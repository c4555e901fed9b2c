//! The die timeline: every NAND operation booked on the shown dies, taken from the NAND model's
//! op log (`SimSsd::set_op_log`, off outside `explore`), and the spans a die's next operation
//! waited for the power governor (sampled after each host completion: the model logs no waits).

use super::model::DieTimeline;
use ftl::device::SimSsd;
use nand_model::{Governor, OpEvent, OpKind, SimTime};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Held-for-power entries kept at most (over all shown dies); past this every other one is
/// dropped, so a long run keeps a thinner sample.
pub const MAX_HELD_ENTRIES: usize = 24_000;

/// Code of an op in [`DieTimeline::ops`]: kind (0 read, 1 program, 2 erase) + 4 if GC work + 8
/// if served in a suspension + 16 x (plane + 1) for a single-plane read (0: every plane).
pub fn op_code(kind: OpKind, gc: bool, in_suspension: bool, plane: Option<u8>) -> u64 {
    let k = match kind {
        OpKind::Read => 0,
        OpKind::Program => 1,
        OpKind::Erase => 2,
    };
    k | (gc as u64) << 2 | (in_suspension as u64) << 3 | plane.map_or(0, |p| p as u64 + 1) << 4
}

/// Observed calls between two drains of the NAND model's op log (which holds the operations
/// booked meanwhile): a drain costs per call, and nothing reads the timeline before
/// [`DieRecorder::cut`] or [`DieRecorder::finish`], which drain first.
const DRAIN_EVERY: u32 = 64;

/// Per-die operations under construction, absolute times.
pub struct DieRecorder {
    dies: usize,
    /// Calls since the last drain.
    calls: u32,
    buf: Vec<OpEvent>,
    /// Per die: [code, start, end, transfer ns] x n.
    ops: Vec<Vec<u64>>,
    /// Per die: [from, to] x n.
    suspends: Vec<Vec<u64>>,
    /// Per die: [since, last seen waiting] x n.
    held: Vec<Vec<u64>>,
}

impl DieRecorder {
    /// Records dies `0..dies` of `ssd` from now on.
    pub fn start(ssd: &mut SimSsd, dies: u32) -> DieRecorder {
        ssd.set_op_log(Some(dies));
        let n = dies as usize;
        DieRecorder {
            dies: n,
            calls: 0,
            buf: Vec::new(),
            ops: vec![Vec::new(); n],
            suspends: vec![Vec::new(); n],
            held: vec![Vec::new(); n],
        }
    }

    /// Called after every observed call: drains the op log now and then.
    #[inline]
    pub fn tick(&mut self, ssd: &mut SimSsd) {
        self.calls += 1;
        if self.calls >= DRAIN_EVERY {
            self.calls = 0;
            self.drain(ssd);
        }
    }

    /// Moves the operations logged since the last drain into the timeline.
    pub fn drain(&mut self, ssd: &mut SimSsd) {
        ssd.drain_op_log(&mut self.buf);
        for e in self.buf.drain(..) {
            match e {
                OpEvent::Op(r) => {
                    // Erases are always GC work; a program says so itself.
                    let gc = r.background || r.kind == OpKind::Erase;
                    let plane = (r.kind == OpKind::Read && r.planes == 1).then_some(r.plane);
                    let code = op_code(r.kind, gc, r.in_suspension, plane);
                    self.ops[r.die as usize].extend_from_slice(&[code, r.start.ns(), r.end.ns(), r.xfer_ns.ns()]);
                }
                OpEvent::Suspend { die, op_start, from, to } => {
                    let ops = &mut self.ops[die as usize];
                    // The suspended op: the latest program or erase of the die with that start.
                    if let Some(rec) = ops.chunks_mut(4).rev().find(|o| o[1] == op_start.ns() && o[0] & 3 != 0) {
                        rec[2] += (to - from).ns();
                    }
                    self.suspends[die as usize].extend_from_slice(&[from.ns(), to.ns()]);
                }
            }
        }
    }

    /// Notes which shown dies wait for the power governor now.
    #[inline]
    pub fn sample_held(&mut self, ssd: &SimSsd) {
        // Only a capped governor holds operations, and a cap changes only on an idle array.
        if ssd.flash().governor().is_some_and(Governor::capped) {
            self.sample_held_capped(ssd);
        }
    }

    #[inline(never)]
    #[allow(clippy::cast_possible_truncation)] // die numbers are u32
    fn sample_held_capped(&mut self, ssd: &SimSsd) {
        let now = ssd.now().ns();
        for d in 0..self.dies {
            if let Some(since) = ssd.flash().die_activity(d as u32).held_since.map(SimTime::ns) {
                let h = &mut self.held[d];
                let n = h.len();
                if n >= 2 && h[n - 2] == since {
                    h[n - 1] = now;
                } else {
                    h.extend_from_slice(&[since, now]);
                }
            }
        }
        if self.held.iter().map(|v| v.len() / 2).sum::<usize>() > MAX_HELD_ENTRIES {
            for v in &mut self.held {
                *v = v.chunks(2).step_by(2).flatten().copied().collect();
            }
        }
    }

    /// Power was cut at `now`: operations not started by then never ran, running ones end there.
    pub fn cut(&mut self, ssd: &mut SimSsd, now: u64) {
        self.drain(ssd);
        for v in &mut self.ops {
            *v = v.chunks(4).filter(|o| o[1] < now).flat_map(|o| [o[0], o[1], o[2].min(now), o[3]]).collect();
        }
        for v in &mut self.suspends {
            *v = v.chunks(2).filter(|s| s[0] < now).flat_map(|s| [s[0], s[1].min(now)]).collect();
        }
    }

    /// The timeline, each die's operations in start order, times delta-encoded, each op's
    /// (code, duration, transfer) replaced by its index in a table of the distinct ones (a
    /// hundred or so on a lesson run: most ops of a kind take the same time).
    pub fn finish(mut self, ssd: &mut SimSsd) -> DieTimeline {
        self.drain(ssd);
        ssd.set_op_log(None);
        let mut index: HashMap<(u64, u64, u64), u64, BuildHasherDefault<ShapeHasher>> = HashMap::default();
        let mut shapes = Vec::new();
        let mut ops = Vec::with_capacity(self.dies);
        for v in &self.ops {
            let mut recs: Vec<&[u64]> = v.chunks(4).collect();
            recs.sort_by_key(|o| o[1]); // stable: booking order among equal starts
            let mut out = Vec::with_capacity(v.len() / 2);
            let mut prev = 0;
            for o in recs {
                let shape = [o[0], o[2] - o[1], o[3]];
                let k = *index.entry((shape[0], shape[1], shape[2])).or_insert_with(|| {
                    shapes.push(shape);
                    shapes.len() as u64 - 1
                });
                out.extend_from_slice(&[k, o[1] - prev]);
                prev = o[1];
            }
            ops.push(out);
        }
        DieTimeline {
            shapes,
            ops,
            suspends: self.suspends.into_iter().map(pairs_delta).collect(),
            held: self.held.into_iter().map(pairs_delta).collect(),
        }
    }
}

/// A multiplicative hash (FxHash's step) for the shape table, whose keys the simulator makes,
/// not an adversary: the standard SipHash took 60% of the timeline's finish on `tiny`.
#[derive(Default)]
struct ShapeHasher(u64);

impl Hasher for ShapeHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        bytes.iter().for_each(|&b| self.write_u64(u64::from(b)));
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

/// [from, to] pairs as (from - previous from, to - from), which print in a few digits.
fn pairs_delta(mut v: Vec<u64>) -> Vec<u64> {
    let mut prev = 0;
    for p in v.chunks_mut(2) {
        let (a, b) = (p[0], p[1]);
        p[0] = a.saturating_sub(prev);
        p[1] = b.saturating_sub(a);
        prev = a;
    }
    v
}
