//! Configuration errors that name the key, the offending value and the allowed range. The loader
//! that knows the file name prefixes it; nothing here panics on bad input.

use std::fmt;

/// One invalid configuration value.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    /// Dotted key path, e.g. `geometry.channels`.
    pub key: String,
    /// The value as the user wrote it (or as it was derived).
    pub value: String,
    /// What would have been accepted, e.g. `1..=64`.
    pub allowed: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "key `{}` = {} is invalid (allowed: {})", self.key, self.value, self.allowed)
    }
}

impl std::error::Error for ConfigError {}

impl ConfigError {
    pub fn new(key: impl Into<String>, value: impl fmt::Display, allowed: impl Into<String>) -> Self {
        ConfigError { key: key.into(), value: value.to_string(), allowed: allowed.into() }
    }
}

/// Checks `lo <= value <= hi` for an integer setting.
pub fn check_u64(key: &str, value: u64, lo: u64, hi: u64) -> Result<u64, ConfigError> {
    if value < lo || value > hi {
        return Err(ConfigError::new(key, value, format!("{lo}..={hi}")));
    }
    Ok(value)
}

/// Checks `lo <= value <= hi` (and finiteness) for a float setting.
pub fn check_f64(key: &str, value: f64, lo: f64, hi: f64) -> Result<f64, ConfigError> {
    if !value.is_finite() || value < lo || value > hi {
        return Err(ConfigError::new(key, value, format!("{lo}..={hi}")));
    }
    Ok(value)
}
