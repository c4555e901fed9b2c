//! Subcommands. To add one: a variant on [`Command`] (its doc comment is the help text), a module
//! here with a `run` function returning `Result<(), CliError>`, and an arm in [`Command::run`].

mod act;
mod bench;
mod calibrate;
mod common;
mod drive;
mod drives;
mod explore;
mod ezfio;
mod fob;
mod iolog;
mod output;
mod plot;
mod predict;
mod preflight;
mod profile;
mod pts;
mod replay;
mod run;
mod suite_args;
mod sweep;
mod sweep_slurm;
mod trace;
mod validate;

use clap::Subcommand;
use ftl::profile::ProfileError;
use std::fmt;
use std::io::{self, Write};

/// Every subcommand of `ssdlab`.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the embedded drive profiles: NAND, capacities, OP, dies, power states.
    Drives,
    /// Inspect one drive profile.
    Drive {
        #[command(subcommand)]
        action: drive::DriveAction,
    },
    /// Run a fio job file on a simulated drive (or a real one with --target).
    Run(run::RunArgs),
    /// Replay a block trace (MSR, SYSTOR, Tencent, Alibaba, UMass, blkparse, MQSim, fio iolog,
    /// CSV) on a simulated drive (or a real one with --target), timed or closed loop.
    Replay(replay::ReplayArgs),
    /// Block traces: `trace stats` (mix, sizes, footprint, re-write distance, IOPS) and
    /// `trace convert` (to fio iolog v3).
    Trace {
        #[command(subcommand)]
        action: trace::TraceAction,
    },
    /// Draw a saved time-series CSV as SVG (IOPS; WA and power, or p99 latency).
    Plot(plot::PlotArgs),
    /// Run a job file over a grid of OP x power state x power cap (x seeds), in parallel or
    /// sharded; `sweep merge` joins shards.
    Sweep(sweep::SweepArgs),
    /// Simulator speed (4 KiB random writes per wall second) and FTL memory per 4 KiB of NAND.
    Bench(bench::BenchArgs),
    /// SNIA PTS-E test (purge, precondition, rounds to steady state): iops, throughput, latency, wsat.
    Pts(pts::PtsArgs),
    /// ezFIO's sequence: fills, block-size and thread sweeps, the 70/30 stability test (CoV).
    Ezfio(ezfio::EzfioArgs),
    /// VDBench-style application profile (oracle, sql, vdi, vsi) as an iorate curve.
    Profile(profile::ProfileArgs),
    /// Aerospike ACT at load N: pass/fail per one-hour slice.
    Act(act::ActArgs),
    /// Fresh-out-of-box to steady state: 4 KiB random writes, IOPS and WA per second.
    Fob(fob::FobArgs),
    /// Compare every row of a measured CSV with the simulated drive: predicted, measured, error.
    Validate(validate::ValidateArgs),
    /// What-if: a measured figure carried to another capacity (OP) or power state by the
    /// simulated ratio, with an interval and the limit that binds in each configuration.
    Predict(predict::PredictArgs),
    /// Fit profile parameters to measured figures and write the calibrated profile.
    Calibrate(calibrate::CalibrateArgs),
    /// Record a run (or a lesson) into an interactive offline teaching page (DIR/index.html).
    Explore(explore::ExploreArgs),
}

impl Command {
    pub fn run(self) -> Result<(), CliError> {
        match self {
            Command::Drives => drives::run(),
            Command::Drive { action } => drive::run(action),
            Command::Run(args) => run::run(args),
            Command::Replay(args) => replay::run(args),
            Command::Trace { action } => trace::run(action),
            Command::Plot(args) => plot::run(args),
            Command::Sweep(args) => sweep::run(args),
            Command::Bench(args) => bench::run(args),
            Command::Validate(args) => validate::run(args),
            Command::Calibrate(args) => calibrate::run(args),
            Command::Predict(args) => predict::run(args),
            Command::Pts(args) => pts::run(args),
            Command::Ezfio(args) => ezfio::run(args),
            Command::Profile(args) => profile::run(args),
            Command::Act(args) => act::run(args),
            Command::Fob(args) => fob::run(args),
            Command::Explore(args) => explore::run(args),
        }
    }
}

/// A command's failure: the process exit code and a one-line message for stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError {
    /// 1 = the run failed, 2 = bad input (arguments, profiles, files).
    pub code: u8,
    /// One line, without the `error: ` prefix.
    pub message: String,
}

impl CliError {
    /// Exit code 2: the user gave something unusable (a bad profile, a missing file).
    pub fn bad_input(message: impl fmt::Display) -> Self {
        CliError { code: 2, message: one_line(message) }
    }

    /// Exit code 1: the input was fine but the run did not complete.
    pub fn failed(message: impl fmt::Display) -> Self {
        CliError { code: 1, message: one_line(message) }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Errors print on one line: embedded newlines become "; ".
fn one_line(message: impl fmt::Display) -> String {
    let text = message.to_string();
    text.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("; ")
}

impl From<ProfileError> for CliError {
    /// Every profile error is the user's input: unknown name, unreadable file, bad key or value.
    fn from(e: ProfileError) -> Self {
        CliError::bad_input(e)
    }
}

/// Writes command output to stdout. A closed pipe (`ssdlab drives | head -1`) is not a failure.
pub(crate) fn print_out(text: &str) -> Result<(), CliError> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::failed(format!("cannot write to stdout: {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_carry_their_exit_code_on_one_line() {
        let e = CliError::bad_input("x.toml: key `a`\nsecond line");
        assert_eq!(e.code, 2);
        assert_eq!(e.message, "x.toml: key `a`; second line");
        assert_eq!(CliError::failed("boom").code, 1);
    }
}
