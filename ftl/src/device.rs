//! The timed simulated SSD: host commands in, completions out, in simulated nanoseconds.
//!
//! A command passes the controller's command processor (a FIFO server at the profile's command
//! limit), then: a read looks up its units and reads the NAND pages that hold them (or DRAM, for
//! units still in the write buffer, or nothing, for unmapped units), adds the firmware/ECC
//! overhead and moves its data over PCIe; a write moves its data over PCIe into the
//! power-loss-protected write buffer and is acknowledged once all its units have buffer space and
//! a place in the host write stream, so a full buffer or a GC stall shows up as write latency.
//! Full program units go to NAND; GC relocation reads precede the programs that carry their
//! data; a victim is erased only once every unit moved out of it is programmed.

use crate::core::{CoreConfig, CoreEvent, FtlCore, Step, HOST};
use crate::dev_events::{Class, DevEvents};
use crate::layout::{scale_geometry, scaled_erase_fraction, Layout, LayoutError};
use crate::profile::ValidatedProfile;
use crate::read_ahead::ReadAhead;
use crate::rmw::RmwReads;
use crate::tracker::InOrderTracker;
use crate::GcPolicy;
use nand_model::time::{us_to_ns, TransferTimer};
use nand_model::{Flash, NandDone, NandOp, SimTime};
use std::collections::VecDeque;

/// Host command kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HostOp {
    Read,
    Write,
    Trim,
}

/// A finished host command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostCompletion {
    pub tag: u64,
    pub op: HostOp,
    pub len_bytes: u32,
    pub submit_ns: SimTime,
    pub complete_ns: SimTime,
}

/// A command the device refuses.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SubmitError {
    #[error("I/O out of range: offset {offset} + length {len} > capacity {capacity}")]
    OutOfRange { offset: u64, len: u32, capacity: u64 },
    #[error("misaligned I/O: offset {offset}, length {len}, logical block {block}")]
    Misaligned { offset: u64, len: u32, block: u32 },
}

/// The device cannot be built as asked.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DeviceError {
    #[error(transparent)]
    Layout(#[from] LayoutError),
    #[error("user capacity {user} B is not below the usable NAND ({usable} B after reserved blocks and the GC reserve); allowed: OP > {min_op_pct:.2}%")]
    Capacity { user: u64, usable: u64, min_op_pct: f64 },
    #[error("--op {0}% is out of range (allowed 0 < OP <= 1000%)")]
    Op(f64),
    #[error(transparent)]
    Power(#[from] nand_model::GovernorError),
}

/// How to instantiate a profile.
#[derive(Clone, Debug, Default)]
pub struct DeviceOptions {
    /// Divide the drive by this (1 = full scale).
    pub scale_divisor: u32,
    /// User capacity at full scale, bytes (default: the profile's stock capacity).
    pub user_capacity_bytes: Option<u64>,
    /// Alternatively, OP = (raw - user) / user, as a fraction.
    pub op: Option<f64>,
    pub gc_policy: Option<GcPolicy>,
    pub hot_cold_separation: Option<bool>,
    pub plp: Option<bool>,
    /// Keep write sequence numbers in the spare area so power loss can be simulated.
    pub track_sequence: bool,
    /// Hold the drive's average power under this cap, W (the power governor); `None` = uncapped.
    pub power_cap_w: Option<f64>,
    /// Meter NAND power (peak, throttled time, a series of this interval, ns) even when
    /// uncapped; a cap always meters. `None` and no cap = no governor object at all.
    pub power_meter_interval_ns: Option<u64>,
}

/// Sizes the device was built with, full-scale and simulated.
#[derive(Clone, Debug, PartialEq)]
pub struct Capacity {
    /// full raw / simulated raw.
    pub scale_factor: f64,
    pub raw_bytes_full: u64,
    pub user_bytes_full: u64,
    pub raw_bytes_sim: u64,
    pub user_bytes_sim: u64,
    /// (raw - user) / user.
    pub op: f64,
    pub reserved_blocks: u32,
    pub gc_threshold_blocks: u32,
    pub blocks: u32,
}

/// Cumulative counters of a device, for results and time series.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Counters {
    pub host_read_bytes: u64,
    pub host_write_bytes: u64,
    pub host_trim_bytes: u64,
    pub host_reads: u64,
    pub host_writes: u64,
    pub nand_write_bytes: u64,
    pub nand_read_bytes: u64,
    pub gc_write_bytes: u64,
    pub gc_victims: u64,
    pub erases: u64,
    pub free_blocks: u32,
    /// Time host writes waited for GC to free space.
    pub gc_stall_ns: u64,
    /// Time host writes waited for write-buffer space.
    pub buffer_stall_ns: u64,
    pub energy_j: f64,
    /// NAND reads of old mapping units that partial host writes merge with (read-modify-write).
    pub rmw_reads: u64,
}

impl Counters {
    /// NAND bytes programmed per byte the host wrote (as it wrote them: a 512 B write that
    /// rewrites a 4 KiB unit counts 512 host bytes), so read-modify-write shows up in WA.
    pub fn wa(&self) -> f64 {
        if self.host_write_bytes == 0 {
            0.0
        } else {
            self.nand_write_bytes as f64 / self.host_write_bytes as f64
        }
    }
}

const TAG_READ: u64 = 1 << 56;
const TAG_GC_READ: u64 = 2 << 56;
const TAG_PROG: u64 = 3 << 56;
const TAG_ERASE: u64 = 4 << 56;
const TAG_RA: u64 = 5 << 56;
const TAG_RMW: u64 = 6 << 56;
const TAG_MASK: u64 = (1 << 56) - 1;
const NO_QUEUE: u32 = u32::MAX;

/// The program queue of (die, write stream): programs in one queue go to one open block at a
/// time, so they keep their order; programs of different queues are independent.
#[inline]
fn program_queue(die: u32, stream: u8) -> u32 {
    die * 2 + stream as u32
}

/// How many commands ahead a host should pass offsets to [`SimSsd::hint_next_offset`].
pub const HINT_LOOKAHEAD: usize = 8;
/// Calls between the two prefetch stages of [`SimSsd::hint_next_offset`] (half the lookahead, so
/// the second stage also runs well before the command arrives).
const HINT_STAGE: usize = HINT_LOOKAHEAD / 2;

#[derive(Clone, Copy, Debug)]
pub(crate) enum DevEvent {
    Dispatch(u32),
    Done(u32),
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Cmd {
    tag: u64,
    op: HostOp,
    first_lpn: u32,
    mus: u32,
    len: u32,
    submit: SimTime,
    next_mu: u32,
    pending: u32,
    data_ready: SimTime,
    /// Writes: which end units the command covers only partly ([`PARTIAL_HEAD`], [`PARTIAL_TAIL`]).
    partial: u8,
}

/// The command's first unit is written only partly.
const PARTIAL_HEAD: u8 = 1;
/// The command's last unit (not also its first) is written only partly.
const PARTIAL_TAIL: u8 = 2;

#[derive(Clone, Copy, Debug)]
pub(crate) struct PuRec {
    block: u32,
    die: u32,
    mus: u32,
    host_mus: u32,
    stream: u8,
    seq: u64,
}

/// Progress of the GC victim being relocated, paced against host writes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pacing {
    victim: u32,
    /// Word lines the victim holds.
    wls_total: u64,
    /// MUs its erase will free (block size minus valid at selection).
    gain_mus: u64,
    /// Host MUs written since it was selected.
    host_mus: u64,
    wls_done: u64,
    /// The pacing target passes `wls_done` once `host_mus` reaches this (saves a division per
    /// host write): ceil(h * wls_total / gain_mus) > d  <=>  h >= d * gain_mus / wls_total + 1.
    next_at: u64,
}

impl Pacing {
    fn set_done(&mut self, wls_done: u64) {
        self.wls_done = wls_done;
        self.next_at = wls_done * self.gain_mus / self.wls_total.max(1) + 1;
    }
}

/// What stops host writes at the moment, for stall-time accounting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stall {
    None,
    Buffer(SimTime),
    Space(SimTime),
}

/// The simulated SSD.
pub struct SimSsd {
    pub core: FtlCore,
    pub(crate) flash: Flash,
    pub(crate) capacity: Capacity,
    pub(crate) lb_bytes: u32,
    pub(crate) mu_bytes: u32,
    pub(crate) now: SimTime,
    pub(crate) events: DevEvents<DevEvent>,
    pub(crate) cmds: Vec<Cmd>,
    pub(crate) free_cmds: Vec<u32>,
    pub(crate) outstanding: usize,
    pub(crate) pending_writes: VecDeque<u32>,
    pub(crate) buffer_cap_mus: u64,
    pub(crate) buffer_used_mus: u64,
    pub(crate) ctrl_ns_per_cmd: SimTime,
    pub(crate) ctrl_free: SimTime,
    /// PCIe transfer times (either direction).
    pub(crate) pcie: TransferTimer,
    pub(crate) pcie_in_free: SimTime,
    pub(crate) pcie_out_free: SimTime,
    pub(crate) read_overhead_ns: SimTime,
    pub(crate) write_ack_ns: SimTime,
    pub(crate) pus: Vec<PuRec>,
    pub(crate) free_pus: Vec<u32>,
    /// Programs waiting for the GC reads of the data they carry, per program queue (die and
    /// write stream, [`program_queue`]): (reads lo..hi, PU slot), in issue order. A block's word
    /// lines are programmed in sequence, so a program also waits while an earlier one of its
    /// queue waits; each stream has its own open block per die, so a GC program waiting for its
    /// data does not hold up the host programs of its die (nor their buffer space).
    pub(crate) waiting_programs: Vec<VecDeque<(u64, u64, u32)>>,
    /// Program queues whose first waiting program needs GC read `seq` next: at index `seq -
    /// read_waiters_base` the first such queue (NO_QUEUE if none), the rest linked through
    /// `next_waiter` (a queue waits on one read at a time). A read's completion looks only at
    /// the programs it can release, and nothing is allocated per wait.
    pub(crate) read_waiters: VecDeque<u32>,
    pub(crate) read_waiters_base: u64,
    pub(crate) next_waiter: Vec<u32>,
    /// Per write stream, the first GC read the stream's open program unit may carry data of.
    pub(crate) pu_reads_from: [u64; 2],
    /// First GC read of the latest run of reads (one word line's).
    pub(crate) read_run_start: u64,
    pub(crate) gc_reads: InOrderTracker,
    pub(crate) pu_done: [InOrderTracker; 2],
    /// Relocated victims waiting for erase: (block, sequence its data must reach first).
    pub(crate) victims: VecDeque<(u32, u64)>,
    pub(crate) pending_erases: u32,
    pub(crate) scratch: Vec<CoreEvent>,
    /// Core events of host writes being admitted (apart from `scratch`, which GC uses while
    /// admission may be under way).
    pub(crate) admit_events: Vec<CoreEvent>,
    pub(crate) stall: Stall,
    pub(crate) pacing: Option<Pacing>,
    pub(crate) counters: Counters,
    pub(crate) controller_idle_w: f64,
    pub(crate) host_j_per_byte: f64,
    pub(crate) plp: bool,
    /// Sequential read-ahead (None when the profile turns it off).
    pub(crate) read_ahead: Option<ReadAhead>,
    /// LPNs of the last `HINT_STAGE` hints (see `hint_next_offset`), ring position.
    pub(crate) hint_ring: [u32; HINT_STAGE],
    pub(crate) hint_pos: u32,
    /// Read-modify-write reads in flight and the writes waiting for them.
    pub(crate) rmw: RmwReads,
}

impl SimSsd {
    pub fn new(p: &ValidatedProfile, opts: &DeviceOptions) -> Result<SimSsd, DeviceError> {
        let prof = &p.profile;
        let (geo, factor) = scale_geometry(&p.geometry, opts.scale_divisor.max(1));
        let mu = prof.controller.mapping_unit_bytes;
        let layout = Layout::new(geo, mu)?;
        let raw_full = p.geometry.raw_bytes();
        let user_full = match (opts.user_capacity_bytes, opts.op) {
            (Some(u), _) => u,
            (None, Some(op)) => {
                if !(op > 0.0 && op <= 10.0) {
                    return Err(DeviceError::Op(op * 100.0));
                }
                (raw_full as f64 / (1.0 + op)) as u64
            }
            (None, None) => prof.host.user_capacity_bytes,
        };
        let user_mus = ((user_full as f64 / factor) as u64 / mu as u64) as u32;
        let blocks = layout.blocks;
        let pct_blocks = |pct: f64| (blocks as f64 * pct / 100.0).ceil() as u32;
        let reserved_per_die = ((layout.blocks_per_die as f64 * prof.ftl.reserved_blocks_pct / 100.0).round() as u32)
            .min(layout.blocks_per_die / 2);
        let host_reserve = pct_blocks(prof.ftl.gc_fg_free_pct).max(2);
        let threshold = pct_blocks(prof.ftl.gc_bg_free_pct).max(host_reserve + 2);
        let in_service = blocks - reserved_per_die * layout.dies;
        let usable_mus = (in_service.saturating_sub(threshold)) as u64 * layout.mus_per_block as u64;
        if user_mus as u64 >= usable_mus || user_mus == 0 {
            let usable = (usable_mus as f64 * mu as f64 * factor) as u64;
            return Err(DeviceError::Capacity {
                user: user_full,
                usable,
                min_op_pct: (raw_full as f64 / usable as f64 - 1.0) * 100.0,
            });
        }
        let cfg = CoreConfig {
            user_mus,
            policy: opts.gc_policy.unwrap_or(prof.ftl.gc_policy),
            hot_cold_separation: opts.hot_cold_separation.unwrap_or(prof.ftl.hot_cold_separation),
            gc_threshold_blocks: threshold,
            host_reserve_blocks: host_reserve,
            reserved_blocks_per_die: reserved_per_die,
            track_sequence: opts.track_sequence,
        };
        let user_sim = user_mus as u64 * mu as u64;
        let capacity = Capacity {
            scale_factor: factor,
            raw_bytes_full: raw_full,
            user_bytes_full: (user_sim as f64 * factor).round() as u64,
            raw_bytes_sim: geo.raw_bytes(),
            user_bytes_sim: user_sim,
            op: (geo.raw_bytes() as f64 - user_sim as f64) / user_sim as f64,
            reserved_blocks: reserved_per_die * layout.dies,
            gc_threshold_blocks: threshold,
            blocks,
        };
        let mut timing = p.timing;
        timing.t_bers_ns = (timing.t_bers_ns as f64 * scaled_erase_fraction(&p.geometry, &geo)).round() as SimTime;
        let mut flash = Flash::new(geo, timing, p.energy);
        if opts.power_cap_w.is_some() || opts.power_meter_interval_ns.is_some() {
            let standby_w = p.energy.standby_w * geo.dies() as f64;
            let interval_ns = opts.power_meter_interval_ns.unwrap_or(1_000_000_000);
            let gc = prof.power.governor_config(opts.power_cap_w, standby_w, interval_ns);
            flash.set_governor(Some(nand_model::Governor::new(gc, geo.dies())?));
        }
        let ctrl = &prof.controller;
        Ok(SimSsd {
            core: FtlCore::new(layout, cfg),
            flash,
            capacity,
            lb_bytes: prof.host.logical_block_bytes,
            mu_bytes: mu,
            now: 0,
            events: DevEvents::new(),
            cmds: Vec::new(),
            free_cmds: Vec::new(),
            outstanding: 0,
            pending_writes: VecDeque::new(),
            buffer_cap_mus: ((ctrl.write_buffer_mib as u64) << 20) / mu as u64,
            buffer_used_mus: 0,
            ctrl_ns_per_cmd: (1e6 / ctrl.cmd_limit_kiops).round() as SimTime,
            ctrl_free: 0,
            pcie: TransferTimer::new(prof.host.pcie_bytes_per_s() as u64),
            pcie_in_free: 0,
            pcie_out_free: 0,
            read_overhead_ns: us_to_ns(ctrl.read_overhead_us),
            write_ack_ns: us_to_ns(ctrl.write_ack_us),
            pus: Vec::new(),
            free_pus: Vec::new(),
            waiting_programs: vec![VecDeque::new(); 2 * geo.dies() as usize],
            read_waiters: VecDeque::new(),
            read_waiters_base: 0,
            next_waiter: vec![NO_QUEUE; 2 * geo.dies() as usize],
            pu_reads_from: [0; 2],
            read_run_start: 0,
            gc_reads: InOrderTracker::default(),
            pu_done: [InOrderTracker::default(), InOrderTracker::default()],
            victims: VecDeque::new(),
            pending_erases: 0,
            scratch: Vec::new(),
            admit_events: Vec::new(),
            stall: Stall::None,
            pacing: None,
            counters: Counters::default(),
            controller_idle_w: prof.power.controller_idle_w,
            host_j_per_byte: prof.power.host_pj_per_byte * 1e-12,
            plp: opts.plp.unwrap_or(ctrl.plp),
            read_ahead: (ctrl.read_ahead_kib > 0)
                .then(|| ReadAhead::new(((ctrl.read_ahead_kib as u64 * 1024) / mu as u64).max(1) as u32)),
            hint_ring: [u32::MAX; HINT_STAGE],
            hint_pos: 0,
            rmw: RmwReads::default(),
        })
    }

    pub fn capacity(&self) -> &Capacity {
        &self.capacity
    }

    pub fn now(&self) -> SimTime {
        self.now
    }

    pub fn logical_block_bytes(&self) -> u32 {
        self.lb_bytes
    }

    pub fn outstanding(&self) -> usize {
        self.outstanding
    }

    pub fn flash(&self) -> &Flash {
        &self.flash
    }

    pub fn plp(&self) -> bool {
        self.plp
    }

    /// Cumulative counters up to now.
    pub fn counters(&self) -> Counters {
        let mut c = self.counters;
        let s = &self.core.stats;
        let mu = self.mu_bytes as u64;
        c.nand_write_bytes = s.nand_write_mus() * mu;
        c.gc_write_bytes = s.gc_write_mus * mu;
        c.gc_victims = s.gc_victims;
        c.erases = s.erases;
        c.nand_read_bytes = self.flash.stats().bytes_read;
        c.free_blocks = self.core.blocks.free_total();
        c.energy_j = self.energy_j();
        if let Stall::Space(t) = self.stall {
            c.gc_stall_ns += self.now - t;
        }
        if let Stall::Buffer(t) = self.stall {
            c.buffer_stall_ns += self.now - t;
        }
        c
    }

    /// Energy since power-on: NAND operations and standby, controller baseline, host datapath.
    pub fn energy_j(&self) -> f64 {
        let host_bytes = self.counters.host_read_bytes + self.counters.host_write_bytes;
        self.flash.energy_j(self.now)
            + self.controller_idle_w * self.now as f64 * 1e-9
            + self.host_j_per_byte * host_bytes as f64
    }

    /// Queues a host command at the current time.
    pub fn submit(&mut self, tag: u64, op: HostOp, offset: u64, len: u32) -> Result<(), SubmitError> {
        let cap = self.capacity.user_bytes_sim;
        // Block and unit sizes are powers of two (validated in the profile): masks and shifts.
        let lb_mask = self.lb_bytes - 1;
        if len == 0 || (offset as u32 | len) & lb_mask != 0 {
            return Err(SubmitError::Misaligned { offset, len, block: self.lb_bytes });
        }
        if offset + len as u64 > cap {
            return Err(SubmitError::OutOfRange { offset, len, capacity: cap });
        }
        let mu_shift = self.mu_bytes.trailing_zeros();
        let first = offset >> mu_shift;
        let last = (offset + len as u64 - 1) >> mu_shift;
        let mu_mask = self.mu_bytes - 1;
        let partial = if (offset as u32 | len) & mu_mask == 0 {
            0
        } else {
            let head = offset as u32 & mu_mask != 0 || (first == last && len & mu_mask != 0);
            let tail = first != last && (offset + len as u64) as u32 & mu_mask != 0;
            head as u8 * PARTIAL_HEAD | tail as u8 * PARTIAL_TAIL
        };
        let cmd = Cmd {
            tag,
            op,
            first_lpn: first as u32,
            mus: (last - first + 1) as u32,
            len,
            submit: self.now,
            next_mu: 0,
            pending: 0,
            data_ready: 0,
            partial,
        };
        let slot = nand_model::slots::put(&mut self.cmds, &mut self.free_cmds, cmd);
        self.outstanding += 1;
        // The first mapping lookup of this command is a likely cache miss: start it now.
        crate::core::prefetch(&self.core.l2p, first as usize);
        let start = self.ctrl_free.max(self.now);
        self.ctrl_free = start + self.ctrl_ns_per_cmd;
        if start == self.now {
            self.dispatch(slot);
        } else {
            self.events.push(Class::Dispatch, start, DevEvent::Dispatch(slot));
        }
        Ok(())
    }

    /// Performance hint, no effect on results: the host will submit a command at `offset` in a
    /// few commands' time. Random host writes are memory-bound on a large drive (the mapping
    /// entry, then the old unit's live bit and block counters, are cache misses in turn), so
    /// the lookups run as a two-stage software pipeline: this call prefetches the mapping entry
    /// of `offset` and, for the offset hinted `HINT_STAGE` calls earlier (its entry now cached),
    /// the state its write will update. Each call also carries a share of the mapping entries
    /// GC will update next ([`FtlCore::prefetch_gc_some`]).
    #[inline]
    pub fn hint_next_offset(&mut self, offset: u64) {
        let lpn = (offset >> self.mu_bytes.trailing_zeros()) as u32;
        crate::core::prefetch(&self.core.l2p, lpn as usize);
        let i = self.hint_pos as usize % HINT_STAGE;
        let earlier = std::mem::replace(&mut self.hint_ring[i], lpn);
        self.hint_pos = self.hint_pos.wrapping_add(1);
        self.core.prefetch_overwrite(earlier);
        self.core.prefetch_gc_some();
    }

    /// Runs the simulation to the next host completion, or to `deadline` if that comes first
    /// (then returns `None` with the clock at the deadline). Without a deadline, `None` means
    /// nothing is left to complete.
    pub fn next_completion(&mut self, deadline: Option<SimTime>) -> Option<HostCompletion> {
        let limit = deadline.unwrap_or(SimTime::MAX);
        loop {
            let te = self.events.peek_time();
            let tf = self.flash.next_event_time();
            let t = match (te, tf) {
                (None, None) => break,
                (Some(a), None) => a,
                (None, Some(b)) => b,
                (Some(a), Some(b)) => a.min(b),
            };
            if t > limit {
                break;
            }
            self.now = t;
            if tf == Some(t) && te.is_none_or(|a| a > t) {
                if let Some(done) = self.flash.advance_until(t) {
                    self.on_nand_done(done);
                }
                continue;
            }
            let Some((_, ev)) = self.events.pop() else { break };
            match ev {
                DevEvent::Dispatch(slot) => self.dispatch(slot),
                DevEvent::Done(slot) => return Some(self.finish(slot)),
            }
        }
        if let Some(d) = deadline {
            self.now = self.now.max(d);
        }
        None
    }

    #[inline]
    fn finish(&mut self, slot: u32) -> HostCompletion {
        let c = self.cmds[slot as usize];
        self.free_cmds.push(slot);
        self.outstanding -= 1;
        HostCompletion { tag: c.tag, op: c.op, len_bytes: c.len, submit_ns: c.submit, complete_ns: self.now }
    }

    #[inline]
    fn dispatch(&mut self, slot: u32) {
        let c = self.cmds[slot as usize];
        match c.op {
            HostOp::Read => self.dispatch_read(slot, c),
            HostOp::Write => {
                let x0 = self.now.max(self.pcie_in_free);
                self.pcie_in_free = x0 + self.pcie.ns(c.len);
                self.cmds[slot as usize].data_ready = self.pcie_in_free;
                self.counters.host_write_bytes += c.len as u64;
                self.counters.host_writes += 1;
                self.invalidate_read_ahead(c);
                if (c.partial != 0 || !self.rmw.is_empty()) && self.start_rmw(slot, c) {
                    return; // admitted once the old data it merges with is read
                }
                self.pending_writes.push_back(slot);
                self.try_admit();
            }
            HostOp::Trim => {
                self.invalidate_read_ahead(c);
                for lpn in c.first_lpn..c.first_lpn + c.mus {
                    self.core.trim(lpn);
                }
                self.counters.host_trim_bytes += c.len as u64;
                self.events.push(Class::TrimDone, self.now + self.write_ack_ns, DevEvent::Done(slot));
            }
        }
    }

    /// A write or trim of `c`'s units makes any read-ahead data of them stale.
    #[inline]
    fn invalidate_read_ahead(&mut self, c: Cmd) {
        if let Some(ra) = self.read_ahead.as_mut() {
            ra.invalidate(c.first_lpn, c.first_lpn + c.mus);
        }
    }

    fn dispatch_read(&mut self, slot: u32, c: Cmd) {
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
    fn read_from_nand(&mut self, slot: u32, c: Cmd) {
        let l = self.core.layout;
        let mut ops = 0;
        // Consecutive units on one NAND page make one page read.
        let mut cur: Option<(u32, u32, u32)> = None; // (block, page index, bytes)
        for lpn in c.first_lpn..c.first_lpn + c.mus {
            let Some(ppn) = self.core.lookup(lpn) else { continue };
            let block = l.block_of(ppn);
            let off = l.offset_of(ppn);
            if off >= self.core.blocks.prog_done[block as usize] {
                continue; // still in the DRAM write buffer
            }
            let page = l.page_index(off);
            match cur.as_mut() {
                Some((b, p, bytes)) if *b == block && *p == page => *bytes += self.mu_bytes,
                _ => {
                    if let Some(prev) = cur.take() {
                        self.issue_host_read(slot, prev);
                        ops += 1;
                    }
                    cur = Some((block, page, self.mu_bytes));
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
    fn read_ahead_more(&mut self) {
        let Some((from, to)) = self.read_ahead.as_ref().and_then(|ra| ra.wanted(self.core.user_mus())) else {
            return;
        };
        let l = self.core.layout;
        let mus_per_plane_wl = l.mus_per_page * l.geo.bits_per_cell;
        // Where a unit's data is on NAND: (block, word line, plane, page type); None when it needs
        // no NAND read (unmapped, or still in the write buffer).
        let locate = |core: &FtlCore, lpn: u32| {
            let ppn = core.lookup(lpn)?;
            let (block, off) = (l.block_of(ppn), l.offset_of(ppn));
            (off < core.blocks.prog_done[block as usize]).then(|| {
                let in_wl = off % l.mus_per_pu;
                (block, off / l.mus_per_pu, in_wl / mus_per_plane_wl, l.page_type(off) as usize)
            })
        };
        let mut lpn = from;
        while lpn < to {
            let start = lpn;
            let first = locate(&self.core, lpn);
            let wl_of = |x: Option<(u32, u32, u32, usize)>| x.map(|(b, w, _, _)| (b, w));
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

    fn issue_host_read(&mut self, slot: u32, page: (u32, u32, u32)) {
        self.issue_page_read(TAG_READ | slot as u64, page);
    }

    /// A single-plane host-priority read of `bytes` of one NAND page.
    fn issue_page_read(&mut self, tag: u64, (block, page, bytes): (u32, u32, u32)) {
        let l = self.core.layout;
        let die = l.die_of_block(block);
        let pt = l.page_type(page * l.mus_per_page);
        // Pages of a word line run plane by plane, each plane's pages by type.
        let plane = (page % (l.geo.planes_per_die * l.geo.bits_per_cell)) / l.geo.bits_per_cell;
        let op = NandOp::read(tag, die, pt, 1, bytes).on_plane(plane as u8);
        self.flash.submit(self.now, op);
    }

    /// Read-modify-write of write `slot`: its partly written end units whose old data is on
    /// NAND are read first (a unit in the write buffer merges in DRAM, an unmapped one with
    /// zeros), and any unit of it whose read is already in flight waits for that read (see
    /// [`crate::rmw`]). True when the write must wait; it is admitted when its reads are done.
    #[cold]
    fn start_rmw(&mut self, slot: u32, c: Cmd) -> bool {
        let l = self.core.layout;
        let last = c.first_lpn + c.mus - 1;
        let mut waits = 0;
        for lpn in c.first_lpn..=last {
            let partial =
                (lpn == c.first_lpn && c.partial & PARTIAL_HEAD != 0) || (lpn == last && c.partial & PARTIAL_TAIL != 0);
            if let Some(id) = self.rmw.find(lpn) {
                self.rmw.wait(id, slot);
                waits += 1;
                continue;
            }
            if !partial {
                continue;
            }
            let Some(ppn) = self.core.lookup(lpn) else { continue };
            let (block, off) = (l.block_of(ppn), l.offset_of(ppn));
            if off >= self.core.blocks.prog_done[block as usize] {
                continue; // in the write buffer: merged in DRAM
            }
            let id = self.rmw.start(lpn);
            self.rmw.wait(id, slot);
            waits += 1;
            self.counters.rmw_reads += 1;
            self.issue_page_read(TAG_RMW | id as u64, (block, l.page_index(off), self.mu_bytes));
        }
        self.cmds[slot as usize].pending = waits;
        waits > 0
    }

    /// Read-modify-write read `id` is done: after ECC decode and the merge (the read overhead),
    /// the writes waiting only for it queue for admission, in arrival order.
    fn rmw_read_done(&mut self, id: u32) {
        let merged = self.now + self.read_overhead_ns;
        let (cmds, queue) = (&mut self.cmds, &mut self.pending_writes);
        self.rmw.complete(id, |slot| {
            let c = &mut cmds[slot as usize];
            c.data_ready = c.data_ready.max(merged);
            c.pending -= 1;
            if c.pending == 0 {
                queue.push_back(slot);
            }
        });
        self.try_admit();
    }

    /// A read served from the read-ahead window: decoded when it was prefetched, so only the DMA
    /// out of DRAM and the completion remain (the write path's acknowledgement time).
    fn finish_read_dram(&mut self, slot: u32, len: u32) {
        self.finish_read_after(slot, len, self.write_ack_ns);
    }

    fn finish_read(&mut self, slot: u32, len: u32) {
        self.finish_read_after(slot, len, self.read_overhead_ns);
    }

    /// Completes a read once `overhead_ns` of controller work and its PCIe transfer are done.
    fn finish_read_after(&mut self, slot: u32, len: u32, overhead_ns: SimTime) {
        let x0 = (self.now + overhead_ns).max(self.pcie_out_free);
        self.pcie_out_free = x0 + self.pcie.ns(len);
        self.events.push(Class::ReadDone, self.pcie_out_free, DevEvent::Done(slot));
    }

    /// Admits waiting writes, in order, while buffer space and stream space allow.
    fn try_admit(&mut self) {
        while let Some(&slot) = self.pending_writes.front() {
            if !self.admit(slot) {
                return;
            }
            self.pending_writes.pop_front();
        }
    }

    /// Admits write `slot` unit by unit while buffer and stream space allow; true once all its
    /// units are in (it is then acknowledged), false when it must wait (the stall is recorded).
    #[inline]
    fn admit(&mut self, slot: u32) -> bool {
        let c = self.cmds[slot as usize];
        let mut next = c.next_mu;
        while next < c.mus {
            if self.buffer_used_mus >= self.buffer_cap_mus {
                self.set_stall(Stall::Buffer(self.now));
                self.cmds[slot as usize].next_mu = next;
                return false;
            }
            if !self.core.host_can_write() {
                self.cmds[slot as usize].next_mu = next;
                self.set_stall(Stall::Space(self.now));
                self.maybe_gc();
                return false;
            }
            // host_can_write() was checked just above, so the write cannot fail.
            let _ = self.core.write(c.first_lpn + next, &mut self.admit_events);
            self.buffer_used_mus += 1;
            if let Some(p) = self.pacing.as_mut() {
                p.host_mus = p.host_mus.saturating_add(1);
            }
            next += 1;
            if !self.admit_events.is_empty() {
                let mut ev = std::mem::take(&mut self.admit_events);
                self.run_core_events(&mut ev);
                self.admit_events = ev;
            }
        }
        self.set_stall(Stall::None);
        let ack = self.now.max(c.data_ready) + self.write_ack_ns;
        self.events.push(Class::WriteDone, ack, DevEvent::Done(slot));
        self.maybe_gc();
        true
    }

    fn set_stall(&mut self, s: Stall) {
        match (self.stall, s) {
            (Stall::Buffer(_), Stall::Buffer(_)) | (Stall::Space(_), Stall::Space(_)) => return,
            (Stall::Buffer(t), _) => self.counters.buffer_stall_ns += self.now - t,
            (Stall::Space(t), _) => self.counters.gc_stall_ns += self.now - t,
            (Stall::None, _) => {}
        }
        self.stall = s;
    }

    #[inline]
    fn run_core_events(&mut self, ev: &mut Vec<CoreEvent>) {
        if ev.is_empty() {
            return;
        }
        // Whether the previous event was a GC read: a new run of reads starts after any other.
        let mut in_read_run = false;
        for e in ev.drain(..) {
            match e {
                CoreEvent::Program { die, block, mus, host_mus, stream } => {
                    in_read_run = false;
                    let seq = self.pu_done[stream as usize].issue();
                    let rec = PuRec { block, die, mus, host_mus, stream, seq };
                    let slot = nand_model::slots::put(&mut self.pus, &mut self.free_pus, rec);
                    // The unit carries relocated data read by GC reads lo..hi: those of the word
                    // lines moved since the stream's previous unit, plus the last word line
                    // before it (its remaining units may have spilled into this one). The
                    // next unit may still take data of the current word line.
                    let (lo, hi) = (self.pu_reads_from[stream as usize], self.gc_reads.next());
                    self.pu_reads_from[stream as usize] = self.read_run_start;
                    let reads_pending = host_mus < mus && !self.gc_reads.all_done(lo, hi);
                    let qi = program_queue(die, stream);
                    let q = &mut self.waiting_programs[qi as usize];
                    if reads_pending || !q.is_empty() {
                        let hi = if host_mus < mus { hi } else { lo }; // host data needs no read
                        q.push_back((lo, hi, slot));
                        if q.len() == 1 {
                            self.release_queued_programs(qi);
                        }
                    } else {
                        self.submit_program(slot);
                    }
                }
                CoreEvent::GcRead { die, page_type, planes, bytes } => {
                    let seq = self.gc_reads.issue();
                    if !in_read_run {
                        self.read_run_start = seq;
                        in_read_run = true;
                    }
                    self.flash
                        .submit(self.now, NandOp::background_read(TAG_GC_READ | seq, die, page_type, planes, bytes));
                }
            }
        }
    }

    fn submit_program(&mut self, slot: u32) {
        let r = self.pus[slot as usize];
        let planes = self.core.layout.geo.planes_per_die as u8;
        self.flash.submit(self.now, NandOp::program(TAG_PROG | slot as u64, r.die, planes, r.mus * self.mu_bytes));
    }

    /// GC read `seq` finished: re-examines the program queues whose first waiting program
    /// needed it. A program waits only for its own data's reads, not for unrelated reads queued
    /// on other dies.
    fn release_waiting_programs(&mut self, seq: u64) {
        let Some(i) = seq.checked_sub(self.read_waiters_base) else { return };
        if let Some(slot) = self.read_waiters.get_mut(i as usize) {
            let mut qi = std::mem::replace(slot, NO_QUEUE);
            while qi != NO_QUEUE {
                let next = self.next_waiter[qi as usize];
                self.release_queued_programs(qi); // may link `qi` under another read
                qi = next;
            }
        }
        // Drop the entries of completed reads from the front.
        let done = self.gc_reads.watermark();
        while self.read_waiters_base < done && self.read_waiters.front() == Some(&NO_QUEUE) {
            self.read_waiters.pop_front();
            self.read_waiters_base += 1;
        }
    }

    /// Submits the waiting programs of queue `qi` whose reads are done, in order, and parks the
    /// first one still waiting under the next read it needs.
    fn release_queued_programs(&mut self, qi: u32) {
        while let Some(&(lo, hi, slot)) = self.waiting_programs[qi as usize].front() {
            if let Some(next) = self.gc_reads.first_pending(lo, hi) {
                if self.read_waiters.is_empty() {
                    self.read_waiters_base = next;
                }
                while next < self.read_waiters_base {
                    self.read_waiters.push_front(NO_QUEUE);
                    self.read_waiters_base -= 1;
                }
                let i = (next - self.read_waiters_base) as usize;
                if self.read_waiters.len() <= i {
                    self.read_waiters.resize(i + 1, NO_QUEUE);
                }
                self.next_waiter[qi as usize] = self.read_waiters[i];
                self.read_waiters[i] = qi;
                return;
            }
            self.waiting_programs[qi as usize].pop_front();
            self.submit_program(slot);
        }
    }

    fn on_nand_done(&mut self, d: NandDone) {
        let id = d.tag & TAG_MASK;
        match d.tag & !TAG_MASK {
            TAG_READ => {
                let c = &mut self.cmds[id as usize];
                c.pending -= 1;
                if c.pending == 0 {
                    let len = c.len;
                    self.finish_read(id as u32, len);
                }
            }
            TAG_RA => {
                let Some(ra) = self.read_ahead.as_mut() else { return };
                for slot in ra.read_done(id as u32) {
                    let c = &mut self.cmds[slot as usize];
                    c.pending -= 1;
                    if c.pending == 0 {
                        let len = c.len;
                        self.finish_read_dram(slot, len);
                    }
                }
            }
            TAG_RMW => self.rmw_read_done(id as u32),
            TAG_GC_READ => {
                self.gc_reads.complete(id);
                self.release_waiting_programs(id);
                if self.plp {
                    self.erase_ready_victims();
                }
            }
            TAG_PROG => {
                let r = self.pus[id as usize];
                self.free_pus.push(id as u32);
                self.core.program_done(r.block, r.mus);
                self.buffer_used_mus -= r.host_mus as u64;
                self.pu_done[r.stream as usize].complete(r.seq);
                self.erase_ready_victims();
                self.try_admit();
            }
            TAG_ERASE => {
                self.core.erase_done(id as u32);
                self.pending_erases -= 1;
                self.try_admit();
                self.maybe_gc();
            }
            _ => {}
        }
    }

    /// Runs GC: starts a victim when free blocks (counting erases under way) fall below the
    /// threshold and relocates it *paced* against host writes — the victim's word lines are
    /// spread over the host writes that consume the space it will free, so GC work is smooth
    /// rather than a burst per block (as firmware does to keep latency and IOPS steady). When
    /// host writes are blocked on space, or free blocks reach the host reserve, GC runs flat out.
    fn maybe_gc(&mut self) {
        loop {
            if let Some(mut p) = self.pacing {
                let urgent = matches!(self.stall, Stall::Space(_))
                    || self.core.blocks.free_total() <= self.core.cfg.host_reserve_blocks;
                if !urgent && p.host_mus < p.next_at {
                    break;
                }
                let target =
                    if urgent { p.wls_total } else { (p.host_mus * p.wls_total).div_ceil(p.gain_mus).min(p.wls_total) };
                let want = target.saturating_sub(p.wls_done);
                if want == 0 {
                    break;
                }
                let mut ev = std::mem::take(&mut self.scratch);
                let step = self.core.relocate_step(want.min(u32::MAX as u64) as u32, &mut ev);
                self.run_core_events(&mut ev);
                self.scratch = ev;
                p.set_done(self.core.relocation_progress().map_or(p.wls_total, |(_, wl)| wl as u64));
                self.pacing = Some(p);
                match step {
                    Step::Done => {
                        self.pacing = None;
                        self.victim_relocated(p.victim);
                    }
                    Step::More | Step::Stalled => break,
                }
                continue;
            }
            if !self.core.gc_wanted(self.pending_erases) {
                break;
            }
            let Some(v) = self.core.pick_victim() else { break };
            let l = self.core.layout;
            let valid = self.core.blocks.valid[v as usize] as u64;
            let wls_total = l.wls_written(self.core.blocks.write_ptr[v as usize]) as u64;
            self.core.start_relocation(v);
            let mut p = Pacing {
                victim: v,
                wls_total,
                gain_mus: (l.mus_per_block as u64).saturating_sub(valid).max(1),
                host_mus: if valid == 0 { u64::MAX / wls_total.max(1) } else { 0 },
                wls_done: 0,
                next_at: 0,
            };
            p.set_done(0);
            self.pacing = Some(p);
        }
        // Host writes blocked on space while a victim waits for a half-filled program unit:
        // pad it so the victim can be erased (padding counts as NAND writes).
        // Only when no program of the GC stream is in flight: otherwise its completion will
        // make progress and padding would waste NAND writes.
        if matches!(self.stall, Stall::Space(_)) && !self.plp && !self.victims.is_empty() {
            let si = self.core.gc_stream();
            let gc_programs_idle = self.pu_done[si].watermark() == self.pu_done[si].next();
            if gc_programs_idle && self.core.stream_has_open_unit(si) {
                let mut ev = std::mem::take(&mut self.scratch);
                self.core.pad_open_units(&mut ev);
                self.run_core_events(&mut ev);
                self.scratch = ev;
            }
        }
        self.erase_ready_victims();
    }

    /// A victim's data has all been moved: queue its erase for when that data is safe.
    fn victim_relocated(&mut self, v: u32) {
        // With PLP the relocated data is safe in the controller's protected DRAM once read, so
        // the victim can be erased then; without PLP it must first be programmed.
        let after = if self.plp {
            self.gc_reads.next()
        } else {
            let si = self.core.gc_stream();
            self.pu_done[si].next() + self.core.stream_has_open_unit(si) as u64
        };
        self.victims.push_back((v, after));
        self.pending_erases += 1;
    }

    /// Everything below this sequence is safe, so victims waiting for it may be erased: GC
    /// reads done (with PLP) or GC programs done (without).
    #[inline]
    fn erase_watermark(&self) -> u64 {
        if self.plp {
            self.gc_reads.watermark()
        } else {
            self.pu_done[self.core.gc_stream()].watermark()
        }
    }

    #[inline]
    fn erase_ready_victims(&mut self) {
        if self.victims.front().is_some_and(|&(_, after)| self.erase_watermark() >= after) {
            self.erase_victims();
        }
    }

    fn erase_victims(&mut self) {
        while let Some(&(v, after)) = self.victims.front() {
            if self.erase_watermark() < after {
                break;
            }
            self.victims.pop_front();
            let l = self.core.layout;
            let planes = l.geo.planes_per_die as u8;
            self.flash.submit(self.now, NandOp::erase(TAG_ERASE | v as u64, l.die_of_block(v), planes));
        }
    }

    /// Structural invariants of the firmware state.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.core.check_invariants()?;
        self.rmw.check()?;
        if self.buffer_used_mus > self.buffer_cap_mus {
            return Err(format!("write buffer over capacity: {} > {}", self.buffer_used_mus, self.buffer_cap_mus));
        }
        // With hot/cold separation, host program units carry no GC data: none may wait (behind
        // a GC program of its die or otherwise), or host data would hold buffer space for reads.
        if self.core.cfg.hot_cold_separation {
            let dies = self.core.layout.dies;
            if let Some(die) =
                (0..dies).find(|&d| !self.waiting_programs[program_queue(d, HOST as u8) as usize].is_empty())
            {
                return Err(format!("host programs of die {die} wait for GC reads"));
            }
        }
        Ok(())
    }
}
