//! # ftl
//!
//! The firmware of the simulated SSD on top of [`nand_model`]: drive profiles, page-level mapping,
//! the write buffer, garbage collection, TRIM, power-loss recovery and the power governor, behind
//! a host-facing device API.

pub mod blocks;
pub mod candidates;
pub mod config;
pub mod core;
mod dev_events;
pub mod device;
pub mod die_mask;
pub mod die_members;
pub mod gc;
mod huge_pages;
pub mod ids;
pub mod instant;
pub mod layout;
pub mod live_units;
pub mod profile;
pub mod read_ahead;
pub mod recovery;
mod rmw;
pub mod superblocks;
pub mod supply_levels;
pub mod tracker;
pub mod wa_model;

pub use config::{ControllerConfig, FtlConfig, GcPolicy, HostConfig, PowerConfig};
pub use ids::{BlockId, Lpn, Ppn};
pub use profile::{DriveProfile, ProfileError, ValidatedProfile};
