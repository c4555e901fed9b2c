//! Opening a real target: decide file vs block device, refuse destructive opens, size the
//! window, allocate the buffer pool and pick the engine.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use super::buf::BufPool;
use super::describe::{self, TargetDescription, TargetKind};
use super::engine::Engine;
use super::error::RealError;
use super::psync::PsyncEngine;
use super::safety;
use super::verify::Verifier;
use super::{sys, EngineChoice, ManuallyDrop, RealOptions, RealTarget};

/// Verify keeps 4 bytes per block; beyond this many blocks (1 GiB of RAM) it is refused.
const VERIFY_BLOCKS_MAX: u64 = 1 << 28;
const QUEUE_DEPTH_MAX: u32 = 4096;

fn invalid(path: &Path, what: impl Into<String>) -> RealError {
    RealError::Invalid { path: path.to_path_buf(), what: what.into() }
}

fn io_err(path: &Path, what: &str) -> impl FnOnce(io::Error) -> RealError {
    let (path, what) = (path.to_path_buf(), what.to_string());
    move |source| RealError::Io { path, what, source }
}

/// Refuses a head that carries data, unless the caller allowed destruction.
fn check_head(path: &Path, allow_destroy: bool) -> Result<(), RealError> {
    let head = safety::read_head(path).map_err(io_err(path, "reading the first bytes"))?;
    match safety::signature_refusal(&safety::detect_signatures(&head)) {
        Some(reason) if !allow_destroy => Err(RealError::Refused { path: path.to_path_buf(), reason }),
        _ => Ok(()),
    }
}

fn validate(o: &RealOptions) -> Result<(), RealError> {
    if o.queue_depth == 0 || o.queue_depth > QUEUE_DEPTH_MAX {
        return Err(invalid(&o.path, format!("queue_depth {} not in 1..={QUEUE_DEPTH_MAX}", o.queue_depth)));
    }
    if o.max_block_bytes == 0 || !o.max_block_bytes.is_multiple_of(4096) {
        return Err(invalid(&o.path, format!("max_block_bytes {} is not a multiple of 4096", o.max_block_bytes)));
    }
    if let Some(l) = o.logical_block_bytes {
        if !is_block_size(l) {
            return Err(invalid(&o.path, format!("logical_block_bytes {l} is not a power of two in 512..=65536")));
        }
    }
    Ok(())
}

/// A logical block size a target may have: a power of two in 512..=65536 bytes.
fn is_block_size(l: u32) -> bool {
    (512..=65536).contains(&l) && l.is_power_of_two()
}

/// How long a busy block device is retried before it is refused, and how often.
const EXCL_RETRY_FOR: std::time::Duration = std::time::Duration::from_secs(5);
const EXCL_RETRY_EVERY: std::time::Duration = std::time::Duration::from_millis(50);

fn open_file(o: &RealOptions, block: bool) -> Result<File, RealError> {
    let mut flags = 0;
    if o.direct {
        flags |= libc::O_DIRECT;
    }
    if block && o.writable {
        // On a block device O_EXCL fails with EBUSY while it is mounted or claimed.
        flags |= libc::O_EXCL;
    }
    let open = || {
        OpenOptions::new()
            .read(true)
            .write(o.writable)
            .create(o.writable && !block)
            .truncate(false)
            .custom_flags(flags)
            .open(&o.path)
    };
    // An exclusive claim can outlive its holder by a moment: the kernel drops an exited
    // process's io_uring (and with it the device) in a background worker, so a run started
    // right after another on the same device would find it busy. Mounts and holders were
    // checked before this; a claim that stays is refused after a few seconds.
    let mut waited = std::time::Duration::ZERO;
    let mut result = open();
    while block && waited < EXCL_RETRY_FOR && result.as_ref().is_err_and(|e| e.raw_os_error() == Some(libc::EBUSY)) {
        std::thread::sleep(EXCL_RETRY_EVERY);
        waited += EXCL_RETRY_EVERY;
        result = open();
    }
    result.map_err(|source| match source.raw_os_error() {
        Some(libc::EBUSY) if block => RealError::Refused {
            path: o.path.clone(),
            reason: format!(
                "device is busy (mounted or claimed; O_EXCL open failed for {} s)",
                EXCL_RETRY_FOR.as_secs()
            ),
        },
        Some(libc::EINVAL) if o.direct => RealError::Invalid {
            path: o.path.clone(),
            what: "the filesystem rejects O_DIRECT (set direct = false)".into(),
        },
        _ => RealError::Open { path: o.path.clone(), source },
    })
}

fn fill_pattern(pool: &mut BufPool) {
    // Non-repeating bytes so compressing or deduplicating drives cannot shortcut writes.
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    for chunk in pool.all_mut().chunks_exact_mut(8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        chunk.copy_from_slice(&x.to_le_bytes());
    }
}

#[allow(clippy::cast_possible_truncation)] // qd <= QUEUE_DEPTH_MAX (validated), below u16::MAX
pub(super) fn open(o: RealOptions) -> Result<RealTarget, RealError> {
    validate(&o)?;
    let path = o.path.as_path();
    let meta = match fs::metadata(path) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == io::ErrorKind::NotFound && o.writable => None,
        Err(source) => return Err(RealError::Open { path: path.to_path_buf(), source }),
    };
    let block = meta.as_ref().is_some_and(|m| m.file_type().is_block_device());
    if meta.as_ref().is_some_and(|m| !block && !m.is_file()) {
        return Err(RealError::UnsupportedKind { path: path.to_path_buf() });
    }
    if o.writable {
        if let (true, Some(m)) = (block, meta.as_ref()) {
            if let Some(reason) = safety::block_in_use(m.rdev()) {
                // Never overridable: writing under a mounted filesystem corrupts it at once.
                return Err(RealError::Refused { path: path.to_path_buf(), reason });
            }
        }
        if block || (o.device_like && meta.is_some()) {
            check_head(path, o.allow_destroy)?;
        }
    }
    let file = open_file(&o, block)?;
    let fd = file.as_raw_fd();
    let (dev_size, lbs) = if block {
        let size = sys::block_size_bytes(fd).map_err(io_err(path, "BLKGETSIZE64"))?;
        let lbs = sys::block_logical_bytes(fd).map_err(io_err(path, "BLKSSZGET"))?;
        (size, lbs)
    } else {
        let len = file.metadata().map_err(io_err(path, "stat"))?.len();
        // As fio, O_DIRECT I/O as small and as aligned as the kernel takes on this file.
        let kernel = sys::dio_offset_align(fd).filter(|&a| is_block_size(a));
        (len, o.logical_block_bytes.or(kernel).unwrap_or(4096))
    };
    let l = u64::from(lbs);
    if !o.offset_bytes.is_multiple_of(l) {
        return Err(invalid(
            path,
            format!("offset_bytes {} is not a multiple of the {lbs}-byte block", o.offset_bytes),
        ));
    }
    let size = match o.size_bytes {
        Some(s) => s,
        None if dev_size > o.offset_bytes => dev_size - o.offset_bytes,
        None => return Err(invalid(path, "size_bytes is required: the file is empty or shorter than offset_bytes")),
    };
    if size == 0 || size % l != 0 {
        return Err(invalid(path, format!("size_bytes {size} is not a positive multiple of the {lbs}-byte block")));
    }
    let end = o.offset_bytes.checked_add(size).ok_or_else(|| invalid(path, "offset_bytes + size_bytes overflows"))?;
    if end > dev_size {
        if block || !o.writable {
            return Err(invalid(path, format!("window end {end} exceeds the size {dev_size}")));
        }
        file.set_len(end).map_err(io_err(path, "extending the file"))?;
    }
    if !o.max_block_bytes.is_multiple_of(lbs) {
        return Err(invalid(path, format!("max_block_bytes {} is not a multiple of {lbs}", o.max_block_bytes)));
    }
    let qd = o.queue_depth as usize;
    let mut pool = BufPool::new(qd, o.max_block_bytes as usize, (lbs as usize).max(4096))
        .ok_or_else(|| invalid(path, format!("cannot allocate {qd} x {} bytes of buffers", o.max_block_bytes)))?;
    fill_pattern(&mut pool);
    let verify = if o.verify {
        let blocks = size / l;
        if blocks > VERIFY_BLOCKS_MAX {
            return Err(invalid(path, format!("verify over {blocks} blocks needs too much RAM; shrink size_bytes")));
        }
        Some(Verifier::new(nand_model::cast::usize_from(blocks)))
    } else {
        None
    };
    let kind = if block { TargetKind::Block } else { TargetKind::File };
    let nvme = meta
        .as_ref()
        .filter(|_| block)
        .and_then(|m| safety::sysfs_dir(m.rdev()))
        .map(
            |sys| {
                if sys.join("partition").exists() {
                    sys.parent().map(Path::to_path_buf).unwrap_or(sys)
                } else {
                    sys
                }
            },
        )
        .and_then(|sys| describe::nvme_description(&sys, fd));
    let description = TargetDescription {
        path: path.display().to_string(),
        kind,
        size_bytes: dev_size.max(end),
        logical_block_bytes: lbs,
        nvme,
    };
    let file = Arc::new(file);
    let (engine, fallback_reason) = make_engine(&o, &file, block, &pool)?;
    Ok(RealTarget {
        engine,
        pool: ManuallyDrop::new(pool),
        file,
        path: o.path.clone(),
        kind,
        start: Instant::now(),
        window_offset: o.offset_bytes,
        capacity: size,
        lbs,
        writable: o.writable,
        allow_discard: o.allow_discard,
        submit_batch: if o.submit_batch == 0 { (qd / 8).max(1) } else { o.submit_batch as usize },
        slots: vec![None; qd],
        free: (0..qd as u16).rev().collect(),
        in_engine: 0,
        raw: std::collections::VecDeque::with_capacity(qd),
        ready: std::collections::VecDeque::with_capacity(qd),
        verify,
        description,
        fallback_reason,
    })
}

fn make_engine(
    o: &RealOptions,
    file: &Arc<File>,
    block: bool,
    pool: &BufPool,
) -> Result<(Engine, Option<String>), RealError> {
    let psync = |reason: Option<String>| -> Result<(Engine, Option<String>), RealError> {
        let e =
            PsyncEngine::new(file.clone(), block, pool.slots()).map_err(io_err(&o.path, "starting psync threads"))?;
        Ok((Engine::Psync(e), reason))
    };
    if o.engine == EngineChoice::Psync {
        return psync(None);
    }
    #[cfg(target_os = "linux")]
    {
        let flags = super::uring::UringFlags { single_issuer: o.single_issuer };
        match super::uring::UringEngine::new(file.as_raw_fd(), o.queue_depth, pool, flags) {
            Ok(e) => Ok((Engine::Uring(Box::new(e)), None)),
            Err(source) if o.engine == EngineChoice::IoUring => {
                Err(RealError::UringUnavailable { path: o.path.clone(), source })
            }
            Err(e) => psync(Some(format!("io_uring setup failed: {e}"))),
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        if o.engine == EngineChoice::IoUring {
            return Err(RealError::UringUnavailable {
                path: o.path.clone(),
                source: io::Error::from(io::ErrorKind::Unsupported),
            });
        }
        psync(Some("io_uring exists only on Linux".into()))
    }
}
