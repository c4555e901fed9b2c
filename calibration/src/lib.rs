//! # calibration
//!
//! Fits drive-profile parameters to measured figures and reports how well a profile predicts
//! them. The flow, for `ssdlab validate` and `ssdlab calibrate`:
//!
//! 1. [`measured`] / [`inputs`]: measured figures as rows (CSV in the schema of
//!    `shared/calibration/measured.csv`, or fio/ssdlab JSON results).
//! 2. [`plan`]: each row as a simulated run (drive, capacity, preconditioning, fio workload,
//!    metric), with the tool defaults it assumed; rows that cannot be modelled are skipped with
//!    a reason.
//! 3. [`exec`]: plans grouped by drive state and run on simulated drives in parallel.
//! 4. [`validate`] compares, [`plot`] draws predicted against measured; [`fit`] moves the
//!    declared [`params`] within physical bounds to minimise the log error.
//!
//! Architecture invariant: this crate only reads profiles and runs the simulator through
//! `host_bench::simrun`; it never changes the simulator, and a fit only touches the parameters
//! of [`params::ALL`].

pub mod anchor;
pub mod apps;
pub mod exec;
pub mod fit;
pub mod inputs;
pub mod measured;
pub mod params;
pub mod plan;
pub mod plot;
pub mod predict;
pub mod validate;

pub use exec::RunSettings;
pub use measured::{MeasuredError, MeasuredRow};
