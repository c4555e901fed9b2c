//! The two I/O engines behind [`super::RealTarget`]: io_uring (preferred) and a pool of
//! pread/pwrite threads (when io_uring is unavailable or not wanted). Both take commands tagged
//! with a buffer slot and hand back raw results; error checking and timing live in the target.

use std::collections::VecDeque;
use std::io;
use std::time::Duration;

/// What the engine does with a slot's buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Read,
    Write,
    /// File: punch a hole. Block device: BLKDISCARD.
    Trim,
}

/// One command for an engine; `offset` is absolute in the file or device.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cmd {
    pub slot: u16,
    pub op: Op,
    pub offset: u64,
    pub len: u32,
    pub buf: *mut u8,
}

/// A finished command: bytes transferred, or `-errno`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Raw {
    pub slot: u16,
    pub result: i64,
}

/// Which engine a target runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    IoUring,
    Psync,
}

pub(crate) enum Engine {
    #[cfg(target_os = "linux")]
    Uring(Box<super::uring::UringEngine>),
    Psync(super::psync::PsyncEngine),
}

impl Engine {
    pub(crate) fn kind(&self) -> EngineKind {
        match self {
            #[cfg(target_os = "linux")]
            Engine::Uring(_) => EngineKind::IoUring,
            Engine::Psync(_) => EngineKind::Psync,
        }
    }

    /// Queues `cmd`; it may only reach the kernel at the next `flush` or `wait`.
    pub(crate) fn push(&mut self, cmd: Cmd) -> io::Result<()> {
        match self {
            #[cfg(target_os = "linux")]
            Engine::Uring(e) => e.push(cmd),
            Engine::Psync(e) => e.push(cmd),
        }
    }

    /// Hands queued commands to the kernel without waiting.
    pub(crate) fn flush(&mut self) -> io::Result<()> {
        match self {
            #[cfg(target_os = "linux")]
            Engine::Uring(e) => e.flush(),
            Engine::Psync(_) => Ok(()),
        }
    }

    /// Commands pushed but not yet handed to the kernel.
    pub(crate) fn pending(&self) -> usize {
        match self {
            #[cfg(target_os = "linux")]
            Engine::Uring(e) => e.pending(),
            Engine::Psync(_) => 0,
        }
    }

    /// Moves finished commands to `out` without blocking.
    pub(crate) fn reap(&mut self, out: &mut VecDeque<Raw>) {
        match self {
            #[cfg(target_os = "linux")]
            Engine::Uring(e) => e.reap(out),
            Engine::Psync(e) => e.reap(out),
        }
    }

    /// Flushes, then blocks until at least one command finished (moved to `out`) or `timeout`
    /// passed.
    pub(crate) fn wait(&mut self, timeout: Option<Duration>, out: &mut VecDeque<Raw>) -> io::Result<()> {
        match self {
            #[cfg(target_os = "linux")]
            Engine::Uring(e) => e.wait(timeout, out),
            Engine::Psync(e) => e.wait(timeout, out),
        }
    }
}
