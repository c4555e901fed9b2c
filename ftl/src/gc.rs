//! Garbage collection in one place: which block a die's lane collects next (`policy`), moving its live units to
//! the GC stream (`relocate`, on the logical core), spreading that work over host writes
//! (`pacing`, on the timed device) and erasing the victim once its data is safe (`erase`).

mod erase;
mod pacing;
pub mod policy;
mod relocate;

pub(crate) use pacing::Pacing;
pub(crate) use relocate::{Ahead, Reloc};
