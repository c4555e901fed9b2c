//! Output paths for tests: each in a fresh temporary directory that is removed, with whatever
//! the test wrote there, when its guard is dropped (also when the test fails).

#![allow(clippy::expect_used)] // a panic in test code is a failed test

use std::ops::Deref;
use std::path::{Path, PathBuf};

/// `name` inside a fresh temporary directory (the path itself is not created).
pub struct TempPath {
    path: PathBuf,
    _dir: tempfile::TempDir,
}

impl TempPath {
    pub fn new(name: &str) -> TempPath {
        let dir = tempfile::Builder::new().prefix("ssdlab-test-").tempdir().expect("a temporary directory");
        TempPath { path: dir.path().join(name), _dir: dir }
    }
}

impl Deref for TempPath {
    type Target = PathBuf;
    fn deref(&self) -> &PathBuf {
        &self.path
    }
}

impl AsRef<Path> for TempPath {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}
