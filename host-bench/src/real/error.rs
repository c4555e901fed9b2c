//! Errors of the real-drive target. Every message names the path and what was wrong, because
//! the person reading it is usually deciding whether a drive is safe to overwrite.

use std::path::PathBuf;

use crate::device::DeviceError;

/// Why a real target could not be opened or used.
#[derive(Debug, thiserror::Error)]
pub enum RealError {
    #[error("{}: cannot open: {source}", path.display())]
    Open { path: PathBuf, source: std::io::Error },
    #[error("{}: {what}: {source}", path.display())]
    Io { path: PathBuf, what: String, source: std::io::Error },
    #[error("{}: refusing to write: {reason}", path.display())]
    Refused { path: PathBuf, reason: String },
    #[error("{}: invalid option: {what}", path.display())]
    Invalid { path: PathBuf, what: String },
    #[error("{}: not a regular file or block device", path.display())]
    UnsupportedKind { path: PathBuf },
    #[error("{}: io_uring unavailable: {source}", path.display())]
    UringUnavailable { path: PathBuf, source: std::io::Error },
}

impl From<RealError> for DeviceError {
    fn from(e: RealError) -> Self {
        match e {
            RealError::Io { ref source, .. } | RealError::Open { ref source, .. } => {
                DeviceError::Io(std::io::Error::new(source.kind(), e.to_string()))
            }
            other => DeviceError::Other(other.to_string()),
        }
    }
}
