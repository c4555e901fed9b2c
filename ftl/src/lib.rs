//! # ftl
//!
//! The firmware of the simulated SSD on top of [`nand_model`]: drive profiles, page-level mapping,
//! the write buffer, garbage collection, TRIM, power-loss recovery and the power governor, behind
//! a host-facing device API.

pub mod config;
pub mod profile;

pub use config::{ControllerConfig, FtlConfig, GcPolicy, HostConfig, PowerConfig};
pub use profile::{DriveProfile, ProfileError, ValidatedProfile};
