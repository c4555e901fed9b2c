//! The real-drive target: a file or block device opened with O_DIRECT and driven through the
//! same [`Device`] trait as the simulator.
//!
//! ```no_run
//! use host_bench::device::{Device, IoDir, IoRequest};
//! use host_bench::real::{RealOptions, RealTarget};
//! let mut opts = RealOptions::new("/tmp/ssdlab.img");
//! opts.size_bytes = Some(1 << 30);
//! opts.queue_depth = 32;
//! let mut t = RealTarget::open(opts)?;
//! t.submit(IoRequest { tag: 1, dir: IoDir::Write, offset_bytes: 0, len_bytes: 4096 })?;
//! let done = t.wait(None)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Invariants: at most `queue_depth` commands are in the engine, each owning one buffer slot
//! until its completion is processed; every request is checked against the window
//! `[offset_bytes, offset_bytes + size_bytes)` before it reaches the kernel. This is the only
//! code in the project that reads the wall clock.

mod buf;
pub mod describe;
mod engine;
mod error;
mod open;
mod psync;
pub mod purge;
pub mod safety;
mod sys;
#[cfg(target_os = "linux")]
mod uring;
pub mod verify;

use std::collections::VecDeque;
use std::fs::File;
use std::mem::ManuallyDrop;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use describe::{NvmeDescription, PowerState, TargetDescription, TargetKind};
pub use engine::EngineKind;
pub use error::RealError;
pub use safety::{detect_signatures, Signature};
#[cfg(target_os = "linux")]
pub use uring::io_uring_available;
pub use verify::{Mismatch, VerifyReport};

use crate::device::{Device, DeviceError, DeviceInfo, HostUsage, IoCompletion, IoDir, IoRequest};
use buf::BufPool;
use engine::{Cmd, Engine, Op, Raw};
use verify::{Verifier, SEQ_AMBIGUOUS, SEQ_UNKNOWN};

/// Engine selection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineChoice {
    /// io_uring, falling back to psync when io_uring setup fails.
    Auto,
    /// io_uring or an error.
    IoUring,
    /// Threads doing pread/pwrite.
    Psync,
}

impl std::str::FromStr for EngineChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(EngineChoice::Auto),
            "io_uring" | "uring" => Ok(EngineChoice::IoUring),
            "psync" => Ok(EngineChoice::Psync),
            other => Err(format!("unknown engine {other:?}; expected auto, io_uring or psync")),
        }
    }
}

/// How to open a real target. Start from [`RealOptions::new`] and set fields.
#[derive(Clone, Debug)]
pub struct RealOptions {
    pub path: PathBuf,
    pub engine: EngineChoice,
    /// Commands in flight at most; also the number of buffer slots (1..=4096).
    pub queue_depth: u32,
    /// Largest read/write; each slot has this many bytes (multiple of 4096).
    pub max_block_bytes: u32,
    /// Start of the window the target exposes, in bytes from the start of the file/device.
    pub offset_bytes: u64,
    /// Window size. `None`: to the end of the device or existing file. A file is created or
    /// extended to `offset_bytes + size_bytes` when writable.
    pub size_bytes: Option<u64>,
    /// Open for writes (and trims). Read-only targets skip the destroy checks.
    pub writable: bool,
    /// Write even though the device carries a partition table or filesystem signature.
    /// A mounted or otherwise held device is refused regardless.
    pub allow_destroy: bool,
    /// Let trims reach a block device as BLKDISCARD. Files always punch holes.
    pub allow_discard: bool,
    /// Stamp written blocks and check reads (see [`verify`]); 4 bytes of RAM per block.
    pub verify: bool,
    /// Apply the block-device signature check to a regular file (for tests and images).
    pub device_like: bool,
    /// Logical block size of a file target. Default: the offset alignment the kernel reports
    /// for O_DIRECT on the file (`statx` STATX_DIOALIGN; 512 on most disks), else 4096.
    /// Ignored for block devices (their own logical block size holds).
    pub logical_block_bytes: Option<u32>,
    /// Hand queued commands to the kernel once this many are pending, even before the next
    /// wait. 0 (default) means `max(1, queue_depth / 8)`: batching everything until the host
    /// waits left the drive under-queued (0.85x fio at QD 32), 1..4 beat fio.
    pub submit_batch: u32,
    /// io_uring SINGLE_ISSUER + DEFER_TASKRUN: the target must then do all I/O from one
    /// thread (the first one that submits).
    pub single_issuer: bool,
    /// O_DIRECT (default true). Off only for filesystems that reject it.
    pub direct: bool,
}

impl RealOptions {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        RealOptions {
            path: path.into(),
            engine: EngineChoice::Auto,
            queue_depth: 32,
            max_block_bytes: 128 * 1024,
            offset_bytes: 0,
            size_bytes: None,
            writable: true,
            allow_destroy: false,
            allow_discard: false,
            verify: false,
            device_like: false,
            logical_block_bytes: None,
            submit_batch: 0,
            single_issuer: true,
            direct: true,
        }
    }
}

/// A command the engine owns, indexed by its buffer slot.
#[derive(Clone, Copy, Debug)]
struct InFlight {
    tag: u64,
    dir: IoDir,
    /// Window-relative.
    offset: u64,
    len: u32,
    submit_ns: u64,
    /// Verify: sequence number stamped into a write.
    seq: u32,
    /// Verify: overlapped a conflicting command, so its data is not checkable.
    tainted: bool,
}

/// A file or block device driven with O_DIRECT through io_uring or psync threads.
pub struct RealTarget {
    // Field order matters for drop: the engine (ring, worker threads) goes before the pool.
    engine: Engine,
    /// Freed in `Drop` only after all I/O drained; leaked otherwise.
    pool: ManuallyDrop<BufPool>,
    file: Arc<File>,
    path: PathBuf,
    kind: TargetKind,
    start: Instant,
    window_offset: u64,
    capacity: u64,
    lbs: u32,
    writable: bool,
    allow_discard: bool,
    submit_batch: usize,
    slots: Vec<Option<InFlight>>,
    free: Vec<u16>,
    in_engine: usize,
    raw: VecDeque<Raw>,
    ready: VecDeque<Result<IoCompletion, DeviceError>>,
    verify: Option<Verifier>,
    description: TargetDescription,
    fallback_reason: Option<String>,
}

impl RealTarget {
    /// Opens `opts.path`; see [`RealOptions`] for what is checked and refused.
    pub fn open(opts: RealOptions) -> Result<Self, RealError> {
        open::open(opts)
    }

    pub fn description(&self) -> &TargetDescription {
        &self.description
    }

    pub fn engine_kind(&self) -> EngineKind {
        self.engine.kind()
    }

    /// Why `EngineChoice::Auto` fell back to psync, if it did.
    pub fn fallback_reason(&self) -> Option<&str> {
        self.fallback_reason.as_deref()
    }

    /// Verify totals so far; `None` when verify is off.
    pub fn verify_report(&self) -> Option<&VerifyReport> {
        self.verify.as_ref().map(|v| &v.report)
    }

    fn check(&self, req: &IoRequest) -> Result<(), DeviceError> {
        let lbs = u64::from(self.lbs);
        if req.len_bytes == 0 || !req.offset_bytes.is_multiple_of(lbs) || u64::from(req.len_bytes) % lbs != 0 {
            return Err(DeviceError::Misaligned {
                offset_bytes: req.offset_bytes,
                len_bytes: req.len_bytes,
                block_bytes: self.lbs,
            });
        }
        let end = req.offset_bytes.checked_add(u64::from(req.len_bytes));
        if end.is_none_or(|e| e > self.capacity) {
            return Err(DeviceError::OutOfRange {
                offset_bytes: req.offset_bytes,
                len_bytes: req.len_bytes,
                capacity_bytes: self.capacity,
            });
        }
        if req.dir != IoDir::Trim && req.len_bytes as usize > self.pool.slot_bytes() {
            return Err(DeviceError::Other(format!(
                "{}: {} bytes exceeds max_block_bytes {}",
                self.path.display(),
                req.len_bytes,
                self.pool.slot_bytes()
            )));
        }
        if req.dir != IoDir::Read && !self.writable {
            return Err(DeviceError::Other(format!("{}: opened read-only", self.path.display())));
        }
        if req.dir == IoDir::Trim && self.kind == TargetKind::Block && !self.allow_discard {
            return Err(DeviceError::Other(format!(
                "{}: trim on a block device needs allow_discard",
                self.path.display()
            )));
        }
        Ok(())
    }

    fn io_error(&self, what: String, source: std::io::Error) -> DeviceError {
        DeviceError::Io(std::io::Error::new(source.kind(), format!("{}: {what}: {source}", self.path.display())))
    }

    /// Blocks until the engine returns something, then turns raw results into completions.
    fn wait_engine(&mut self, timeout: Option<Duration>) -> Result<(), DeviceError> {
        if let Err(e) = self.engine.wait(timeout, &mut self.raw) {
            return Err(self.io_error("waiting for completions".into(), e));
        }
        self.process_raw();
        Ok(())
    }

    fn take_slot(&mut self) -> Result<u16, DeviceError> {
        while self.free.is_empty() {
            self.wait_engine(None)?;
        }
        self.free.pop().ok_or_else(|| DeviceError::Other("no free buffer slot".into()))
    }

    /// Verify bookkeeping at submit: taint overlapping conflicting commands both ways.
    fn taint_overlaps(&mut self, dir: IoDir, offset: u64, len: u32) -> bool {
        let end = offset + u64::from(len);
        let mut tainted = false;
        for f in self.slots.iter_mut().flatten() {
            let overlaps = f.offset < end && offset < f.offset + u64::from(f.len);
            let conflict = dir != IoDir::Read || f.dir != IoDir::Read;
            if overlaps && conflict {
                f.tainted = true;
                tainted = true;
            }
        }
        tainted
    }

    /// Block-device trim for the io_uring engine, which has no discard opcode: done inline.
    fn trim_inline(&mut self, req: IoRequest, submit_ns: u64) {
        let abs = self.window_offset + req.offset_bytes;
        let res = sys::blkdiscard(self.file_fd(), abs, u64::from(req.len_bytes));
        let lbs = u64::from(self.lbs);
        if let Some(v) = self.verify.as_mut() {
            v.set_range(req.offset_bytes / lbs, u64::from(req.len_bytes) / lbs, SEQ_UNKNOWN);
        }
        let done = res
            .map(|_| IoCompletion {
                tag: req.tag,
                dir: req.dir,
                len_bytes: req.len_bytes,
                submit_ns,
                complete_ns: self.now_ns(),
            })
            .map_err(|e| self.io_error(format!("discard at offset {abs} len {}", req.len_bytes), e));
        self.ready.push_back(done);
    }

    fn file_fd(&self) -> i32 {
        use std::os::fd::AsRawFd;
        self.file.as_raw_fd()
    }

    /// Turns raw engine results into completions: frees slots, checks results, runs verify.
    fn process_raw(&mut self) {
        if self.raw.is_empty() {
            return;
        }
        let now = self.now_ns();
        let lbs = u64::from(self.lbs);
        while let Some(r) = self.raw.pop_front() {
            let slot = usize::from(r.slot);
            let Some(f) = self.slots.get_mut(slot).and_then(Option::take) else {
                self.ready.push_back(Err(DeviceError::Other(format!(
                    "{}: completion for idle slot {slot}",
                    self.path.display()
                ))));
                continue;
            };
            self.free.push(r.slot);
            self.in_engine -= 1;
            let abs = self.window_offset + f.offset;
            let expected = if f.dir == IoDir::Trim { 0 } else { i64::from(f.len) };
            let what = || format!("{:?} at offset {abs} len {}", f.dir, f.len).to_lowercase();
            let result = if r.result < 0 {
                let errno = i32::try_from(-r.result).unwrap_or(libc::EIO);
                Err(self.io_error(what(), std::io::Error::from_raw_os_error(errno)))
            } else if r.result != expected {
                Err(self.io_error(
                    what(),
                    std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        format!("short transfer of {} bytes", r.result),
                    ),
                ))
            } else {
                Ok(())
            };
            if let Some(v) = self.verify.as_mut() {
                let (lba, blocks) = (f.offset / lbs, u64::from(f.len) / lbs);
                match (f.dir, &result) {
                    (IoDir::Write, Ok(())) => {
                        v.report.blocks_written += blocks;
                        v.set_range(lba, blocks, if f.tainted { SEQ_AMBIGUOUS } else { f.seq });
                    }
                    (IoDir::Read, Ok(())) if f.tainted => v.report.blocks_unchecked += blocks,
                    (IoDir::Read, Ok(())) => {
                        v.check_read(self.pool.slot(slot, f.len as usize), lba, nand_model::cast::usize_from(lbs))
                    }
                    (IoDir::Read, Err(_)) => {}
                    // Failed writes and any trim leave the content unknown.
                    _ => v.set_range(lba, blocks, SEQ_UNKNOWN),
                }
            }
            self.ready.push_back(result.map(|()| IoCompletion {
                tag: f.tag,
                dir: f.dir,
                len_bytes: f.len,
                submit_ns: f.submit_ns,
                complete_ns: now,
            }));
        }
    }
}

impl Device for RealTarget {
    fn info(&self) -> DeviceInfo {
        DeviceInfo {
            capacity_bytes: self.capacity,
            logical_block_bytes: self.lbs,
            kind: "real",
            name: self.path.display().to_string(),
        }
    }

    fn host_usage(&self) -> Option<HostUsage> {
        sys::process_usage().ok()
    }

    fn now_ns(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    fn submit(&mut self, req: IoRequest) -> Result<(), DeviceError> {
        self.check(&req)?;
        let submit_ns = self.now_ns();
        let tainted = self.verify.is_some() && self.taint_overlaps(req.dir, req.offset_bytes, req.len_bytes);
        if req.dir == IoDir::Trim && self.kind == TargetKind::Block && self.engine.kind() == EngineKind::IoUring {
            self.trim_inline(req, submit_ns);
            return Ok(());
        }
        let slot = self.take_slot()?;
        let lbs = self.lbs as usize;
        let mut seq = 0;
        if req.dir == IoDir::Write {
            if let Some(v) = self.verify.as_mut() {
                seq = v.next_seq();
                let first = req.offset_bytes / lbs as u64;
                let data = self.pool.slot_mut(usize::from(slot), req.len_bytes as usize);
                for (i, block) in data.chunks_exact_mut(lbs).enumerate() {
                    verify::stamp_block(block, first + i as u64, seq);
                }
            }
        }
        let op = match req.dir {
            IoDir::Read => Op::Read,
            IoDir::Write => Op::Write,
            IoDir::Trim => Op::Trim,
        };
        let cmd = Cmd {
            slot,
            op,
            offset: self.window_offset + req.offset_bytes,
            len: req.len_bytes,
            buf: self.pool.slot_ptr(usize::from(slot)),
        };
        self.slots[usize::from(slot)] = Some(InFlight {
            tag: req.tag,
            dir: req.dir,
            offset: req.offset_bytes,
            len: req.len_bytes,
            submit_ns,
            seq,
            tainted,
        });
        if let Err(e) = self.engine.push(cmd) {
            self.slots[usize::from(slot)] = None;
            self.free.push(slot);
            return Err(self.io_error(format!("queueing I/O at offset {}", cmd.offset), e));
        }
        self.in_engine += 1;
        if self.engine.pending() >= self.submit_batch {
            if let Err(e) = self.engine.flush() {
                return Err(self.io_error("submitting".into(), e));
            }
        }
        Ok(())
    }

    fn wait(&mut self, deadline_ns: Option<u64>) -> Result<Option<IoCompletion>, DeviceError> {
        loop {
            if let Some(r) = self.ready.pop_front() {
                return r.map(Some);
            }
            let now = self.now_ns();
            if self.in_engine == 0 {
                if let Some(d) = deadline_ns.filter(|&d| d > now) {
                    std::thread::sleep(Duration::from_nanos(d - now));
                }
                return Ok(None);
            }
            match deadline_ns {
                Some(d) if d <= now => {
                    // Deadline already passed: hand over queued work, take what is done.
                    if let Err(e) = self.engine.flush() {
                        return Err(self.io_error("submitting".into(), e));
                    }
                    self.engine.reap(&mut self.raw);
                    self.process_raw();
                    if self.ready.is_empty() {
                        return Ok(None);
                    }
                }
                Some(d) => self.wait_engine(Some(Duration::from_nanos(d - now)))?,
                None => self.wait_engine(None)?,
            }
        }
    }

    fn outstanding(&self) -> usize {
        self.in_engine + self.ready.len()
    }
}

impl Drop for RealTarget {
    fn drop(&mut self) {
        // The kernel or a worker may still write into the pool: drain before freeing it.
        let give_up = Instant::now() + Duration::from_secs(60);
        let mut ok = true;
        while self.in_engine > 0 && ok {
            ok = self.wait_engine(Some(Duration::from_secs(1))).is_ok() && Instant::now() < give_up;
        }
        if ok {
            // SAFETY: nothing is in flight any more and the pool is never used after this.
            unsafe { ManuallyDrop::drop(&mut self.pool) }
        }
    }
}
