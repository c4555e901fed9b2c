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

mod cmd;
mod construct;
mod nand_events;
mod program_gate;
mod read_path;
mod rmw_path;
mod settle;
mod write_path;

use crate::core::{CoreConfig, CoreEvent, FtlCore, HOST};
use crate::dev_events::{Class, DevEvents};
use crate::gc::Pacing;
use crate::ids::{BlockId, Lpn};
use crate::layout::{scale_geometry, scaled_erase_fraction, Layout, LayoutError};
use crate::profile::ValidatedProfile;
use crate::read_ahead::ReadAhead;
use crate::rmw::RmwReads;
use crate::tracker::InOrderTracker;
use crate::GcPolicy;
use cmd::{Cmd, PARTIAL_HEAD, PARTIAL_TAIL};
use nand_model::time::{us_to_ns, TransferTimer};
use nand_model::{Flash, NandDone, NandOp, SimTime};
use std::collections::VecDeque;

/// Host command kinds.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
    pub power_meter_interval_ns: Option<SimTime>,
}

/// Sizes the device was built with, full-scale and simulated.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
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
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq)]
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
    /// Sum over dies of time the NAND array was busy (reads, programs, erases), booked when
    /// each operation starts: which share of the dies' time the workload uses.
    pub die_busy_ns: u64,
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
pub(crate) const TAG_ERASE: u64 = 4 << 56;
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

/// How many commands ahead a host should pass offsets to [`SimSsd::hint_next_offset`]. 16 rather
/// than 8: with GC moving word lines of many dies' victims between two host writes, prefetched
/// lines were evicted or late at 8 (`ssdlab bench` medians of five alternated runs: 6.84 M/s at
/// 8, 7.15 at 16, 7.16 at 32; the whole-process run path unchanged).
pub const HINT_LOOKAHEAD: usize = 16;
/// Calls between the two prefetch stages of [`SimSsd::hint_next_offset`] (half the lookahead, so
/// the second stage also runs well before the command arrives).
const HINT_STAGE: usize = HINT_LOOKAHEAD / 2;

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug)]
pub(crate) enum DevEvent {
    Dispatch(u32),
    Done(u32),
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug)]
pub(crate) struct PuRec {
    block: BlockId,
    die: u32,
    mus: u32,
    host_mus: u32,
    /// Units carrying data, held in the write buffer until the program finishes.
    live_mus: u32,
    stream: u8,
    seq: u64,
}

/// What stops host writes at the moment, for stall-time accounting.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stall {
    None,
    Buffer(SimTime),
    Space(SimTime),
}

/// The simulated SSD.
#[derive(serde::Serialize, serde::Deserialize)]
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
    pub(crate) pending_writes: nand_model::consumed::CursorQueue<u32>,
    /// The write buffer (PLP-protected DRAM): host data from admission and GC's relocated data
    /// from its move, each until programmed.
    pub(crate) buffer_cap_mus: u64,
    pub(crate) buffer_used_mus: u64,
    pub(crate) buffer_gc_mus: u64,
    pub(crate) ctrl_ns_per_cmd: SimTime,
    /// Command-processor time of a write (>= `ctrl_ns_per_cmd`).
    pub(crate) ctrl_ns_per_write: SimTime,
    /// Command-processor time per byte written, ps (0 = no write-bandwidth limit).
    pub(crate) ctrl_ps_per_write_byte: u64,
    /// Command-processor time per byte read, ps (0 = no read-bandwidth limit).
    #[serde(default)]
    pub(crate) ctrl_ps_per_read_byte: u64,
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
    /// Programs whose data is ready, waiting for their die, per program queue (PU slots, in
    /// order); see `program_gate`.
    pub(crate) ready_programs: Vec<VecDeque<u32>>,
    /// Programs handed to each die and not finished.
    pub(crate) die_programs: Vec<u8>,
    /// The stream of the program last handed to each die (the other goes next).
    pub(crate) last_stream: Vec<u8>,
    /// Per program queue (die and write stream), the word line the stream's open block of the
    /// *full-size* drive would program next: programs issued, modulo `full_word_lines`. It sets
    /// each program's layer (its tPROG, `timing.t_prog_layer_spread_pct`) at every scale: a
    /// scaled die programs as many word lines per second as the full-size one, so its streams
    /// sweep the layers at the full-size drive's pace though its blocks are shorter.
    #[serde(default)]
    pub(crate) stream_word_lines: Vec<u32>,
    /// Word lines per block of the full-size geometry.
    #[serde(default)]
    pub(crate) full_word_lines: u32,
    /// Whether programs take their layer's tPROG (else the mean): see
    /// [`SimSsd::resolve_layer_ramp`].
    #[serde(default = "yes")]
    pub(crate) layer_ramp_resolved: bool,
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
    pub(crate) victims: VecDeque<(BlockId, u64)>,
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

fn yes() -> bool {
    true
}

impl SimSsd {
    /// Whether programs take the tPROG of their word line's layer (`timing.t_prog_layer_spread_pct`,
    /// the default) or the mean. The ramp swings the drive's throughput over the seconds its
    /// streams take to fill a full-size block, so a phase sees it averaged only when it lasts
    /// minutes of device time. A reduced drive runs a phase 1/N as long as the full-size drive
    /// does, so a short phase would see one part of a swing the full-size drive averages over:
    /// the runner turns the ramp off for such phases and they take the mean instead. The word
    /// lines' positions advance either way.
    pub fn resolve_layer_ramp(&mut self, resolved: bool) {
        self.layer_ramp_resolved = resolved;
    }

    pub fn capacity(&self) -> &Capacity {
        &self.capacity
    }

    /// (min, mean, max) erase count over the blocks in service (wear, for reports).
    pub fn erase_stats(&self) -> (u32, f64, u32) {
        self.core.blocks.erase_stats()
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

    /// Logs every NAND operation booked from now on, on dies `0..dies_below` (`None`: stop);
    /// see [`nand_model::flash::oplog`]. Views only: the simulation does not change.
    pub fn set_op_log(&mut self, dies_below: Option<u32>) {
        self.flash.set_op_log(dies_below);
    }

    /// Moves the NAND operations logged since the last call to the end of `out`.
    pub fn drain_op_log(&mut self, out: &mut Vec<nand_model::OpEvent>) {
        self.flash.drain_op_log(out)
    }

    pub fn plp(&self) -> bool {
        self.plp
    }

    /// The write buffer now: bytes held (host data not yet programmed and relocated data) and
    /// its capacity.
    pub fn write_buffer_fill(&self) -> (u64, u64) {
        let mu = self.mu_bytes as u64;
        ((self.buffer_used_mus + self.buffer_gc_mus) * mu, self.buffer_cap_mus * mu)
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
        c.die_busy_ns = self.flash.stats().die_busy_ns;
        c.free_blocks = self.core.blocks.free_total();
        c.energy_j = self.energy_j();
        if let Stall::Space(t) = self.stall {
            c.gc_stall_ns += (self.now - t).ns();
        }
        if let Stall::Buffer(t) = self.stall {
            c.buffer_stall_ns += (self.now - t).ns();
        }
        c
    }

    /// Energy since power-on: NAND operations and standby, controller baseline, and the
    /// datapath energy of every byte NAND operations moved (host and GC data alike, the bytes
    /// the power governor charges; before, only host bytes were reported while the governor
    /// charged GC's too).
    pub fn energy_j(&self) -> f64 {
        let moved = self.flash.stats().bytes_read + self.core.stats.nand_write_mus() * self.mu_bytes as u64;
        self.flash.energy_j(self.now)
            + self.controller_idle_w * self.now.ns() as f64 * 1e-9
            + self.host_j_per_byte * moved as f64
    }

    /// Queues a host command at the current time.
    #[allow(clippy::cast_possible_truncation)] // low offset bits tested; LPNs fit u32 (range checked first)
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
            (head as u8 * PARTIAL_HEAD) | (tail as u8 * PARTIAL_TAIL)
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
            data_ready: SimTime::ZERO,
            partial,
            head_off: offset as u32 & mu_mask,
        };
        let slot = nand_model::slots::put(&mut self.cmds, &mut self.free_cmds, cmd);
        self.outstanding += 1;
        // The first mapping lookup of this command is a likely cache miss: start it now.
        crate::core::prefetch(&self.core.l2p, nand_model::cast::usize_from(first));
        let start = self.ctrl_free.max(self.now);
        self.ctrl_free = start
            + match op {
                HostOp::Write => {
                    self.ctrl_ns_per_write.max(SimTime::from_ns(len as u64 * self.ctrl_ps_per_write_byte / 1000))
                }
                HostOp::Read => {
                    self.ctrl_ns_per_cmd.max(SimTime::from_ns(len as u64 * self.ctrl_ps_per_read_byte / 1000))
                }
                HostOp::Trim => self.ctrl_ns_per_cmd,
            };
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
    #[allow(clippy::cast_possible_truncation)] // a hint: an LPN out of range only prefetches nothing
    pub fn hint_next_offset(&mut self, offset: u64) {
        let lpn = (offset >> self.mu_bytes.trailing_zeros()) as u32;
        crate::core::prefetch(&self.core.l2p, lpn as usize);
        let i = self.hint_pos as usize % HINT_STAGE;
        let earlier = std::mem::replace(&mut self.hint_ring[i], lpn);
        self.hint_pos = self.hint_pos.wrapping_add(1);
        self.core.prefetch_overwrite(Lpn::new(earlier));
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
        let c = &self.cmds[slot as usize];
        let done =
            HostCompletion { tag: c.tag, op: c.op, len_bytes: c.len, submit_ns: c.submit, complete_ns: self.now };
        self.free_cmds.push(slot);
        self.outstanding -= 1;
        done
    }

    #[inline]
    fn dispatch(&mut self, slot: u32) {
        // Only the fields each arm uses are read: the whole command is 56 bytes, and a write's
        // dispatch runs once per host write.
        match self.cmds[slot as usize].op {
            HostOp::Read => self.dispatch_read(slot, self.cmds[slot as usize]),
            HostOp::Write => {
                let c = &mut self.cmds[slot as usize];
                let (len, partial, first_lpn, mus) = (c.len, c.partial, c.first_lpn, c.mus);
                let x0 = self.now.max(self.pcie_in_free);
                self.pcie_in_free = x0 + self.pcie.ns(len);
                c.data_ready = self.pcie_in_free;
                self.counters.host_write_bytes += len as u64;
                self.counters.host_writes += 1;
                self.invalidate_read_ahead(first_lpn, mus);
                if (partial != 0 || !self.rmw.is_empty()) && self.start_rmw(slot, self.cmds[slot as usize]) {
                    return; // admitted once the old data it merges with is read
                }
                self.pending_writes.push_back(slot);
                self.try_admit();
            }
            HostOp::Trim => {
                let c = self.cmds[slot as usize];
                self.invalidate_read_ahead(c.first_lpn, c.mus);
                // Only units the TRIM covers whole are unmapped: a unit it covers partly still
                // holds sectors the host did not trim.
                let head = (c.partial & PARTIAL_HEAD != 0) as u32;
                let tail = (c.partial & PARTIAL_TAIL != 0) as u32;
                for lpn in c.first_lpn + head..(c.first_lpn + c.mus).saturating_sub(tail) {
                    self.core.trim(Lpn::new(lpn));
                }
                self.counters.host_trim_bytes += c.len as u64;
                self.events.push(Class::TrimDone, self.now + self.write_ack_ns, DevEvent::Done(slot));
            }
        }
    }

    /// A write or trim of `c`'s units makes any read-ahead data of them stale.
    #[inline]
    fn invalidate_read_ahead(&mut self, first_lpn: u32, mus: u32) {
        if let Some(ra) = self.read_ahead.as_mut() {
            ra.invalidate(first_lpn, first_lpn + mus);
        }
    }

    /// Structural invariants of the firmware state.
    #[allow(clippy::cast_possible_truncation)] // HOST is stream 0
    pub fn check_invariants(&self) -> Result<(), String> {
        self.core.check_invariants()?;
        self.rmw.check()?;
        if self.buffer_used_mus + self.buffer_gc_mus > self.buffer_cap_mus {
            return Err(format!(
                "write buffer over capacity: {} host + {} relocated > {}",
                self.buffer_used_mus, self.buffer_gc_mus, self.buffer_cap_mus
            ));
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
