//! # nand-model
//!
//! The lowest crate of ssdlab: the definitions every other crate shares (simulated time, ids, the
//! event queue, seeded RNG streams, configuration errors, fast run-time divisors) and a discrete-event model of a NAND
//! flash array: channels, dies, planes, blocks and pages with per-cell-type timing and per-operation
//! energy.
//!
//! It knows nothing of logical addresses, hosts or garbage collection: callers hand it physical
//! operations ([`NandOp`]) and it tells them, through completions, when each finished.
//!
//! ```
//! use nand_model::{CellType, Flash, GeometryConfig, NandOp, OpKind, TimingConfig, EnergyConfig, SimTime};
//! let geo = GeometryConfig::tiny_example().validate().unwrap();
//! let timing = TimingConfig::example(CellType::Tlc).validate(&geo).unwrap();
//! let energy = EnergyConfig::default().validate().unwrap();
//! let mut flash = Flash::new(geo, timing, energy);
//! flash.submit(SimTime::ZERO, NandOp::read(7, 0, 0, 1, 4096));
//! let done = flash.advance_until(SimTime::MAX).unwrap();
//! assert_eq!(done.tag, 7);
//! assert!(done.end_ns > SimTime::ZERO);
//! ```

pub mod cast;
pub mod config_error;
pub mod consumed;
pub mod energy;
pub mod event;
pub mod fastdiv;
pub mod flash;
pub mod geometry;
pub mod governor;
pub mod mutate;
pub mod rng;
pub mod slots;
pub mod time;
pub mod timeline;
pub mod timing;

pub use config_error::ConfigError;
pub use energy::{Energy, EnergyConfig};
pub use event::EventQueue;
pub use fastdiv::FastDiv;
pub use flash::oplog::{OpEvent, OpRecord};
pub use flash::{DieActivity, Flash, FlashStats, NandDone, NandOp, OpKind};
pub use geometry::{CellType, Geometry, GeometryConfig};
pub use governor::{Governor, GovernorConfig, GovernorError, GovernorStats, PowerInterval};
pub use rng::{RngStream, RngStreams};
pub use time::SimTime;
pub use timeline::Timeline;
pub use timing::{Timing, TimingConfig};
