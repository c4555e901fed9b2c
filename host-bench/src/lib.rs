//! Host side of ssdlab: reads fio job files, drives a [`device::Device`] (the simulated SSD or a
//! real file/block device) closed- or open-loop, and reports fio-compatible results, time series,
//! SNIA PTS-E / ezFIO / VDBench / ACT suites and plots.

pub mod device;
pub mod drive_stats;
pub mod explore;
pub mod job;
pub mod limits;
pub mod memory;
pub mod plot;
pub mod plot_series;
pub mod real;
pub mod report;
pub mod ring;
mod rng_serde;
pub mod runner;
pub mod sim;
pub mod simrun;
pub mod snapshot;
pub mod stats;
pub mod suites;
pub mod sweep;
pub mod trace;
