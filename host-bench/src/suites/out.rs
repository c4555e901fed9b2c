//! The output directory of a suite: JSON, CSV and SVG files, plus the list of what was written.

use super::SuiteError;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A directory the suite writes into (created if missing).
pub struct OutDir {
    dir: PathBuf,
    written: Vec<String>,
}

impl OutDir {
    pub fn create(dir: impl Into<PathBuf>) -> Result<Self, SuiteError> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir).map_err(|source| SuiteError::Io { path: dir.display().to_string(), source })?;
        Ok(OutDir { dir, written: Vec::new() })
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// File names written so far, in order.
    pub fn written(&self) -> &[String] {
        &self.written
    }

    pub fn text(&mut self, name: &str, text: &str) -> Result<(), SuiteError> {
        let p = self.dir.join(name);
        std::fs::write(&p, text).map_err(|source| SuiteError::Io { path: p.display().to_string(), source })?;
        self.written.push(name.to_string());
        Ok(())
    }

    /// Pretty JSON with a trailing newline.
    pub fn json(&mut self, name: &str, v: &Value) -> Result<(), SuiteError> {
        let text = serde_json::to_string_pretty(v).map_err(|e| SuiteError::Target(format!("{name}: {e}")))?;
        self.text(name, &format!("{text}\n"))
    }

    /// CSV from a header and rows of already formatted cells (`crate::report::csv_text`).
    pub fn csv(&mut self, name: &str, header: &[&str], rows: &[Vec<String>]) -> Result<(), SuiteError> {
        let header = header.iter().map(|h| h.to_string()).collect::<Vec<_>>();
        let text = crate::report::csv_text(std::iter::once(&header).chain(rows))
            .map_err(|e| SuiteError::Target(format!("{name}: {e}")))?;
        self.text(name, &text)
    }
}

/// A CSV cell for a float: shortest exact representation, empty for NaN.
pub fn cell(x: f64) -> String {
    if x.is_finite() {
        format!("{}", super::r6(x))
    } else {
        String::new()
    }
}
