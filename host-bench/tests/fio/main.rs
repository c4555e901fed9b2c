//! Integration tests of the fio side of host-bench: job parser, pattern generators, stats,
//! runner (against a mock device) and reports (against real fio 3 output).

mod build;
mod compat;
mod control;
mod full_scale;
mod mock;
mod parse;
mod pattern;
mod perflogs;
mod registry;
mod report;
mod runner;
mod stats;
