//! The options every suite command (pts, ezfio, fob, act, profile) shares: the drive or real
//! target it runs on and the directory it writes, and the Ctrl-C/progress wrapper of a suite run.

use super::common::{interrupt_flag, progress_bar, DriveArgs, TargetArgs};
use super::CliError;
use clap::Args;
use host_bench::real::RealTarget;
use host_bench::suites::{Bench, Ctl, OutDir, RealBench, SimBench, SuiteError};
use std::path::PathBuf;

/// Where a suite runs and where it writes.
#[derive(Debug, Args)]
pub struct SuiteArgs {
    #[command(flatten)]
    pub drive: DriveArgs,
    /// Output directory (JSON, CSV, SVG).
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub target: TargetArgs,
    /// The real target was purged (e.g. `nvme format`) just before this run.
    #[arg(long, requires = "target")]
    pub assume_purged: bool,
}

impl SuiteArgs {
    /// Opens the bench; a real target gets `qd` slots of `max_block_bytes`.
    pub fn open(&self, qd: u32, max_block_bytes: u32) -> Result<Box<dyn Bench>, CliError> {
        let Some(o) = self.target.real_options(qd, max_block_bytes)? else {
            let cfg = self.drive.to_config()?;
            super::preflight::check_sim_memory(&cfg, None, 1)?;
            let b = SimBench::new(cfg).map_err(CliError::bad_input)?;
            return Ok(Box::new(b));
        };
        let path = o.path.clone();
        let target = RealTarget::open(o).map_err(CliError::bad_input)?;
        let bench = RealBench {
            target,
            path: path.display().to_string(),
            seed: self.drive.sim.seed,
            assume_purged: self.assume_purged,
        };
        if !self.assume_purged {
            eprintln!("purge the target first, then rerun with --assume-purged:\n  {}", bench.purge_command());
        }
        Ok(Box::new(bench))
    }

    /// The output directory, checked writable (call before the run).
    pub fn out_dir(&self) -> Result<OutDir, CliError> {
        super::preflight::check_output_dir("--out", &self.out)?;
        OutDir::create(&self.out).map_err(CliError::failed)
    }
}

/// Runs `body` with Ctrl-C handling and a progress bar labelled by the suite's current step.
pub fn with_ctl<T>(label: &str, body: impl FnOnce(&mut Ctl) -> Result<T, SuiteError>) -> Result<T, CliError> {
    let stop = interrupt_flag();
    let pb = progress_bar(label);
    let mut cb = |step: &str, f: f64| {
        pb.set_position(nand_model::cast::sat_u64(f * 1000.0));
        pb.set_message(step.to_string());
    };
    let mut ctl = Ctl { stop: Some(&stop), progress: Some(&mut cb) };
    let r = body(&mut ctl);
    pb.finish_and_clear();
    r.map_err(|e| match e {
        SuiteError::NotPurged { .. } | SuiteError::BadOption { .. } => CliError::bad_input(e),
        _ => CliError::failed(e),
    })
}
