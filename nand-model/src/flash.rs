//! The NAND array as a discrete-event model. Each die executes one array operation at a time
//! from its own queues (reads first, then programs and erases in order); each channel is a
//! [`Timeline`] shared by its dies for data transfer. An operation's start and end follow from
//! those resources, so two operations needing the same die never overlap and two transfers on
//! one channel never overlap, while array times of different dies do overlap.
//!
//! A read's or erase's command and address cycles (`t_cmd`, ~150 ns) take no channel time
//! here and wait for no transfer: the controller's channel sequencer slips them in between
//! other dies' data bursts, so a die whose previous op is done starts its next one at once. (They
//! are ~2-5% of a busy channel's time at 4 KiB transfers.) Queued behind whole booked
//! transfers, the dies of a busy channel fell into step: on the P4420 (8 dies on a 667 MT/s
//! channel) each 128 KiB random read's page read waited ~17 us for its command and ~16 us for
//! its data, and the drive did 17.0k reads/s where it now does 21.9k; a program's command goes
//! with its data-in, which is a transfer.
//!
//! The caller (the FTL) submits [`NandOp`]s and pulls [`NandDone`]s in time order with
//! [`Flash::advance_until`]; nothing here knows what the data means.

mod check;
pub mod oplog;
mod power;
mod suspend;

use crate::energy::Energy;
use crate::event::EventQueue;
use crate::fastdiv::FastDiv;
use crate::geometry::Geometry;
use crate::governor::{Admission, Governor};
use crate::time::{SimTime, TransferTimer};
use crate::timeline::Timeline;
use crate::timing::Timing;
use std::collections::VecDeque;

/// Array operation kinds.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    Read,
    Program,
    Erase,
}

/// One operation on one die. `tag` is the caller's, returned in the completion.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct NandOp {
    pub tag: u64,
    pub kind: OpKind,
    pub die: u32,
    /// Page type (LSB=0, CSB/MSB=1, ...) for reads; for programs the word line's position in
    /// its block (`timing::LAYER_BANDS` bands, or `timing::LAYER_MEAN`), which sets its tPROG;
    /// ignored for erases.
    pub page_type: u8,
    /// Planes addressed by a multi-plane operation (1..=planes_per_die).
    pub planes: u8,
    /// Bytes moved over the channel (read out, or program data in); 0 for erase.
    pub bytes: u32,
    /// GC work. On a read: queued behind host reads and never suspends a program. On a program
    /// or erase it only labels the op for views (the op log); scheduling ignores it.
    pub background: bool,
    /// Plane of a single-plane read (for independent plane reads); 0 otherwise.
    pub plane: u8,
}

impl NandOp {
    /// A host read: served first, and may suspend a program or erase.
    pub fn read(tag: u64, die: u32, page_type: u8, planes: u8, bytes: u32) -> Self {
        NandOp { tag, kind: OpKind::Read, die, page_type, planes, bytes, background: false, plane: 0 }
    }
    /// The same op addressed to `plane` (single-plane reads).
    pub fn on_plane(self, plane: u8) -> Self {
        NandOp { plane, ..self }
    }
    /// A background (GC) read: after host reads, before programs and erases.
    pub fn background_read(tag: u64, die: u32, page_type: u8, planes: u8, bytes: u32) -> Self {
        NandOp { background: true, ..Self::read(tag, die, page_type, planes, bytes) }
    }
    pub fn program(tag: u64, die: u32, planes: u8, bytes: u32) -> Self {
        let page_type = crate::timing::LAYER_MEAN; // the mean tPROG until `at_layer` places it
        NandOp { tag, kind: OpKind::Program, die, page_type, planes, bytes, background: false, plane: 0 }
    }
    /// The same program at word-line position `layer` of its block (`timing::LAYER_BANDS`
    /// bands, or `timing::LAYER_MEAN`: not resolved), which sets its tPROG.
    pub fn at_layer(self, layer: u8) -> Self {
        debug_assert!(self.kind == OpKind::Program);
        NandOp { page_type: layer, ..self }
    }
    /// The same program or erase labelled as GC work (or not) for views; reads use
    /// [`NandOp::background_read`], which changes their scheduling.
    pub fn gc_labelled(self, gc: bool) -> Self {
        debug_assert!(self.kind != OpKind::Read);
        NandOp { background: gc, ..self }
    }
    pub fn erase(tag: u64, die: u32, planes: u8) -> Self {
        NandOp { tag, kind: OpKind::Erase, die, page_type: 0, planes, bytes: 0, background: false, plane: 0 }
    }
}

/// A die's state at an instant ([`Flash::die_activity`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DieActivity {
    /// The array operation under way: kind, start, (current) end, host reads served by
    /// suspending it so far.
    pub running: Option<(OpKind, SimTime, SimTime, u32)>,
    /// Since when the die's next operation has waited for the power governor.
    pub held_since: Option<SimTime>,
    /// Independent single-plane reads in flight.
    pub plane_reads: u32,
}

/// A finished operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NandDone {
    pub tag: u64,
    pub kind: OpKind,
    pub die: u32,
    /// When the die started it (after any queueing).
    pub start_ns: SimTime,
    pub end_ns: SimTime,
}

/// Counters over the whole run.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq)]
pub struct FlashStats {
    pub reads: u64,
    pub programs: u64,
    pub erases: u64,
    pub suspends: u64,
    pub bytes_read: u64,
    pub bytes_programmed: u64,
    /// Sum over dies of array-busy time.
    pub die_busy_ns: u64,
    /// Energy of array operations and transfers, J (standby is added by [`Flash::energy_j`]).
    pub op_energy_j: f64,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug)]
struct Running {
    op: NandOp,
    start: SimTime,
    end: SimTime,
    /// Reads served by suspending this op so far.
    suspends: u32,
}

#[derive(serde::Serialize, serde::Deserialize, Debug, Default)]
struct Die {
    running: Option<Running>,
    /// Bumped whenever `running.end` moves (suspend), so its stale end event is ignored.
    generation: u32,
    /// Reads done while the running program/erase is suspended end no earlier than this.
    suspended_reads_until: SimTime,
    /// The next op, popped from the queues but waiting for the power governor (and since when).
    held: Option<(NandOp, SimTime)>,
    reads: VecDeque<NandOp>,
    background_reads: VecDeque<NandOp>,
    writes: VecDeque<NandOp>,
    /// Independent plane reads in flight: die-wide operations wait until none is.
    plane_reads: u32,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug)]
enum Event {
    /// The running op of `die` ends (if `generation` is still current).
    DieDone { die: u32, generation: u32 },
    /// A read served during a suspension ends (its slot in `Flash::suspended`; kept out of the
    /// event so heap entries stay small).
    SuspendedRead(u32),
    /// The power governor's bucket holds enough for the head of its wait list.
    GovWake,
    /// An independent plane read ends (slot in `Flash::suspended`, which holds it the same way).
    PlaneRead(u32),
}

/// The NAND array: dies, channels, their queues and the event queue that orders completions.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Flash {
    geo: Geometry,
    timing: Timing,
    energy: Energy,
    channels: Vec<Timeline>,
    dies: Vec<Die>,
    events: EventQueue<Event>,
    /// Reads in flight during a suspension: (op, start, governor credit W), and free slots.
    suspended: Vec<(NandOp, SimTime, f64)>,
    free_suspended: Vec<u32>,
    /// Channel transfer times.
    xfer: TransferTimer,
    /// Dies map to channels round-robin (`die % channels`).
    ch_div: FastDiv,
    /// With independent plane reads: when each plane (die x planes_per_die) is free again.
    plane_free: Vec<SimTime>,
    stats: FlashStats,
    trace_hash: u64,
    queued: usize,
    /// Power admission and meter; `None` = neither (the ungoverned engine, unchanged).
    governor: Option<Box<Governor>>,
    /// Log of booked operations for views ([`oplog`]); `None` unless asked for.
    #[serde(skip)]
    oplog: Option<Box<oplog::OpLog>>,
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

impl Flash {
    pub fn new(geo: Geometry, timing: Timing, energy: Energy) -> Self {
        Flash {
            channels: (0..geo.channels).map(|_| Timeline::new()).collect(),
            dies: (0..geo.dies()).map(|_| Die::default()).collect(),
            geo,
            timing,
            energy,
            events: EventQueue::new(),
            suspended: Vec::new(),
            free_suspended: Vec::new(),
            xfer: TransferTimer::new(timing.channel_bytes_per_s),
            ch_div: FastDiv::new(geo.channels),
            plane_free: if timing.independent_plane_reads {
                vec![SimTime::ZERO; (geo.dies() * geo.planes_per_die) as usize]
            } else {
                Vec::new()
            },
            stats: FlashStats::default(),
            trace_hash: FNV_OFFSET,
            queued: 0,
            governor: None,
            oplog: None,
        }
    }

    /// Installs (or removes) the power governor. Call before the first submit.
    pub fn set_governor(&mut self, g: Option<Governor>) {
        self.governor = g.map(Box::new);
    }

    /// Changes the power cap of an idle array's governor (see [`Governor::set_cap`]).
    pub fn set_power_cap(&mut self, cap_w: Option<f64>, now: SimTime) -> Result<(), crate::GovernorError> {
        if self.queued != 0 || !self.events.is_empty() || self.dies.iter().any(|d| d.running.is_some()) {
            return Err(crate::GovernorError::Setting {
                name: "cap_w",
                value: cap_w.unwrap_or(0.0),
                allowed: "a change only while the NAND is idle",
            });
        }
        match self.governor.as_mut() {
            Some(g) => g.set_cap(cap_w, now),
            None if cap_w.is_none() => Ok(()),
            None => Err(crate::GovernorError::Setting {
                name: "cap_w",
                value: cap_w.unwrap_or(0.0),
                allowed: "none on a drive built without a power meter",
            }),
        }
    }

    pub fn governor(&self) -> Option<&Governor> {
        self.governor.as_deref()
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geo
    }

    pub fn timing(&self) -> &Timing {
        &self.timing
    }

    pub fn stats(&self) -> &FlashStats {
        &self.stats
    }

    /// Hash (FNV-1a style, over 64-bit words) of every started operation (kind, die, start, end): equal inputs give equal
    /// hashes, so determinism tests compare one number.
    pub fn trace_hash(&self) -> u64 {
        self.trace_hash
    }

    /// Operations submitted and not yet completed.
    pub fn in_flight(&self) -> usize {
        self.queued
    }

    /// Sum over channels of reserved bus time (for utilisation).
    pub fn channel_busy_ns(&self) -> u64 {
        self.channels.iter().map(|c| c.busy_ns_total().ns()).sum()
    }

    /// What `die` is doing now, for views that draw the dies at work (read-only).
    pub fn die_activity(&self, die: u32) -> DieActivity {
        let d = &self.dies[die as usize];
        DieActivity {
            running: d.running.map(|r| (r.op.kind, r.start, r.end, r.suspends)),
            held_since: d.held.map(|(_, since)| since),
            plane_reads: d.plane_reads,
        }
    }

    /// Ops waiting (not started) plus running on `die`.
    pub fn die_backlog(&self, die: u32) -> usize {
        let d = &self.dies[die as usize];
        d.reads.len()
            + d.background_reads.len()
            + d.writes.len()
            + d.running.is_some() as usize
            + d.held.is_some() as usize
            + d.plane_reads as usize
    }

    /// Time the earliest pending completion is due.
    pub fn next_event_time(&self) -> Option<SimTime> {
        self.events.peek_time()
    }

    /// Total energy up to `now`: operations plus standby of every die for the elapsed time.
    pub fn energy_j(&self, now: SimTime) -> f64 {
        self.stats.op_energy_j + Energy::joules(self.energy.standby_w * self.geo.dies() as f64, now)
    }

    /// Queues `op` at `now`; it starts as soon as its die (and channel) allow.
    pub fn submit(&mut self, now: SimTime, op: NandOp) {
        debug_assert!(op.die < self.geo.dies());
        self.queued += 1;
        let die = op.die as usize;
        if op.kind == OpKind::Read && !op.background && self.dies[die].running.is_none() {
            self.unhold_for_read(now, die);
        }
        if self.dies[die].running.is_none() && self.dies[die].held.is_none() {
            if self.try_plane_read(now, op) {
                return;
            }
            if self.dies[die].plane_reads == 0 {
                self.start(now, op);
                return;
            }
            // A die-wide operation waits for the plane reads in flight (queued below).
        }
        let host_read = op.kind == OpKind::Read && !op.background;
        if host_read && self.timing.suspend && self.try_suspend_for(now, op) {
            return;
        }
        match op.kind {
            OpKind::Read if op.background => self.dies[die].background_reads.push_back(op),
            OpKind::Read => self.dies[die].reads.push_back(op),
            _ => self.dies[die].writes.push_back(op),
        }
    }

    /// Pops the next completion due at or before `limit`, starting whatever its die does next.
    pub fn advance_until(&mut self, limit: SimTime) -> Option<NandDone> {
        while let Some((t, ev)) = self.events.pop_until(limit) {
            match ev {
                Event::DieDone { die, generation } => {
                    let d = &mut self.dies[die as usize];
                    if generation != d.generation {
                        continue; // end moved by a suspend; a newer event exists
                    }
                    let Some(run) = d.running.take() else { continue };
                    self.queued -= 1;
                    if self.governor.is_some() {
                        self.release(&run.op);
                        self.drain(t);
                    }
                    self.start_next(t, die);
                    return Some(NandDone { tag: run.op.tag, kind: run.op.kind, die, start_ns: run.start, end_ns: t });
                }
                Event::SuspendedRead(slot) => {
                    let (op, start) = self.unpark_read(t, slot);
                    return Some(NandDone { tag: op.tag, kind: op.kind, die: op.die, start_ns: start, end_ns: t });
                }
                Event::PlaneRead(slot) => {
                    let (op, start) = self.unpark_read(t, slot);
                    let d = &mut self.dies[op.die as usize];
                    d.plane_reads -= 1;
                    if d.plane_reads == 0 && d.running.is_none() && d.held.is_none() {
                        self.start_next(t, op.die);
                    }
                    return Some(NandDone { tag: op.tag, kind: op.kind, die: op.die, start_ns: start, end_ns: t });
                }
                Event::GovWake => {
                    if let Some(g) = self.governor.as_deref_mut() {
                        if g.wake_at == Some(t) {
                            g.wake_at = None;
                            self.drain(t);
                        }
                    }
                }
            }
        }
        None
    }

    #[inline]
    fn start_next(&mut self, now: SimTime, die: u32) {
        // Host reads that can go to their plane independently start first, all of them.
        while let Some(&op) = self.dies[die as usize].reads.front() {
            if !self.try_plane_read(now, op) {
                break;
            }
            self.dies[die as usize].reads.pop_front();
        }
        let d = &mut self.dies[die as usize];
        if d.plane_reads > 0 {
            return; // die-wide operations wait for the plane reads
        }
        let next = d.reads.pop_front().or_else(|| d.background_reads.pop_front()).or_else(|| d.writes.pop_front());
        if let Some(op) = next {
            self.start(now, op);
        }
    }

    /// Keeps a read that runs beside the die's main operation (during a suspension, or on its
    /// own plane) until its end event: (op, start, governor credit W). Returns its slot.
    fn park_read(&mut self, op: NandOp, start: SimTime, credit_w: f64) -> u32 {
        crate::slots::put(&mut self.suspended, &mut self.free_suspended, (op, start, credit_w))
    }

    /// A parked read ended at `now`: frees its slot and returns its governor credit.
    fn unpark_read(&mut self, now: SimTime, slot: u32) -> (NandOp, SimTime) {
        let (op, start, credit_w) = self.suspended[slot as usize];
        self.free_suspended.push(slot);
        self.queued -= 1;
        if let Some(g) = self.governor.as_deref_mut() {
            g.release(credit_w);
            self.drain(now);
        }
        (op, start)
    }

    /// Starts `op` as an independent plane read if it can be one: the NAND supports it, it is a
    /// single-plane host read, and a power cap (if any) admits it now. Otherwise returns false
    /// and changes nothing; the op then takes the whole die like any other.
    #[inline]
    fn try_plane_read(&mut self, now: SimTime, op: NandOp) -> bool {
        if self.plane_free.is_empty() || op.kind != OpKind::Read || op.background || op.planes > 1 {
            return false;
        }
        let mut credit_w = 0.0;
        if self.governor.as_deref().is_some_and(Governor::capped) {
            let (e, p) = self.cost(&op);
            let Some(g) = self.governor.as_deref_mut() else { return false };
            match g.admit(now, e, p, true, false) {
                Admission::Start => credit_w = p,
                Admission::Wait(_) => return false,
            }
        }
        self.start_plane_read(now, op, credit_w);
        true
    }

    /// Starts a single-plane read on its plane while other planes of the die may be reading:
    /// command cycles on the channel, tR once the plane is free, then data out; the plane stays
    /// busy until its data is out. `credit_w` is what the governor admitted it with.
    fn start_plane_read(&mut self, now: SimTime, op: NandOp, credit_w: f64) {
        let planes = self.geo.planes_per_die;
        let idx = (op.die * planes + op.plane as u32 % planes) as usize;
        let xfer = self.xfer.ns(op.bytes);
        let t = &self.timing;
        let ch = self.ch_div.remainder(op.die) as usize;
        let cmd = now; // command cycles wait for no transfer (module doc)
        let array_start = (cmd + t.t_cmd_ns).max(self.plane_free[idx]);
        let array_ns = t.read_array_ns(op.page_type as u32, 1);
        let x = self.channels[ch].reserve(now, array_start + array_ns, xfer);
        let end = x + xfer;
        self.plane_free[idx] = end;
        self.account(now, &op, cmd, end, array_ns, self.energy.read_w, xfer);
        let slot = self.park_read(op, cmd, credit_w);
        self.dies[op.die as usize].plane_reads += 1;
        self.events.push(end, Event::PlaneRead(slot));
    }

    /// Books the die and channel for `op` starting no earlier than `now`.
    #[inline]
    fn book(&mut self, now: SimTime, op: NandOp) {
        let ch = self.ch_div.remainder(op.die) as usize; // geo.channel_of without a divide
        let planes = op.planes.max(1) as u32;
        let xfer = self.xfer.ns(op.bytes);
        let t = &self.timing;
        let (start, end, array_ns, array_w) = match op.kind {
            OpKind::Read => {
                let cmd = now; // command cycles wait for no transfer (module doc)
                let array_start = cmd + t.t_cmd_ns;
                let array_ns = t.read_array_ns(op.page_type as u32, planes);
                let x = self.channels[ch].reserve(now, array_start + array_ns, xfer);
                (cmd, x + xfer, array_ns, self.energy.read_w)
            }
            OpKind::Program => {
                let cmd = self.channels[ch].reserve(now, now, t.t_cmd_ns + xfer);
                let array_ns = t.program_array_ns_at(planes, op.page_type);
                (cmd, cmd + t.t_cmd_ns + xfer + array_ns, array_ns, self.energy.prog_w)
            }
            OpKind::Erase => {
                let cmd = now; // command cycles wait for no transfer (module doc)
                let array_ns = t.erase_array_ns(planes);
                (cmd, cmd + t.t_cmd_ns + array_ns, array_ns, self.energy.erase_w)
            }
        };
        self.account(now, &op, start, end, array_ns, array_w, xfer);
        let d = &mut self.dies[op.die as usize];
        d.running = Some(Running { op, start, end, suspends: 0 });
        self.events.push(end, Event::DieDone { die: op.die, generation: d.generation });
    }

    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn account(
        &mut self,
        now: SimTime,
        op: &NandOp,
        start: SimTime,
        end: SimTime,
        array_ns: SimTime,
        array_w: f64,
        xfer: SimTime,
    ) {
        let s = &mut self.stats;
        let planes = op.planes.max(1) as f64;
        let e = Energy::joules(array_w * planes, array_ns) + Energy::joules(self.energy.transfer_w, xfer);
        s.op_energy_j += e;
        if let Some(g) = self.governor.as_deref_mut() {
            g.meter_add(now, start, end, e);
        }
        s.die_busy_ns += (end - start).ns();
        match op.kind {
            OpKind::Read => {
                s.reads += 1;
                s.bytes_read += op.bytes as u64;
            }
            OpKind::Program => {
                s.programs += 1;
                s.bytes_programmed += op.bytes as u64;
            }
            OpKind::Erase => s.erases += 1,
        }
        // FNV-1a over 64-bit words (not bytes: this runs once per NAND operation), with a
        // shift-xor so high bits feed back into the low ones.
        let mut h = self.trace_hash;
        for v in [op.kind as u64 | (op.die as u64) << 8, start.ns(), end.ns()] {
            h ^= v;
            h = h.wrapping_mul(FNV_PRIME);
            h ^= h >> 29;
        }
        self.trace_hash = h;
        if self.oplog.is_some() {
            self.log_op(op, start, end, xfer);
        }
    }

    /// Forgets everything queued or running (sudden power loss at `now`): the caller decides
    /// what the interrupted operations mean for the data.
    pub fn power_cut(&mut self, now: SimTime) -> Vec<NandOp> {
        let mut lost = Vec::new();
        for d in &mut self.dies {
            if let Some(r) = d.running.take() {
                lost.push(r.op);
            }
            if let Some((op, _)) = d.held.take() {
                lost.push(op);
            }
            lost.extend(d.reads.drain(..));
            lost.extend(d.background_reads.drain(..));
            lost.extend(d.writes.drain(..));
            d.generation = d.generation.wrapping_add(1);
            d.plane_reads = 0;
        }
        for c in &mut self.channels {
            c.clear();
        }
        self.events.clear();
        self.suspended.clear();
        self.free_suspended.clear();
        self.plane_free.fill(SimTime::ZERO);
        self.queued = 0;
        if let Some(g) = self.governor.as_deref_mut() {
            g.clear(now);
        }
        lost
    }
}
