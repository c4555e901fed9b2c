//! `ssdlab pts iops|throughput|latency|wsat`: SNIA PTS-E tests on a simulated drive or, with
//! `--target`, a real one. Also holds [`BenchArgs`], the target options every suite shares.

use super::common::{interrupt_flag, progress_bar, DriveArgs, TargetArgs};
use super::{print_out, CliError};
use clap::{Args, ValueEnum};
use host_bench::real::RealTarget;
use host_bench::suites::pts::{PtsOptions, PtsTest};
use host_bench::suites::{pts_report, Bench, Ctl, OutDir, RealBench, SimBench, SuiteError};
use std::path::PathBuf;

/// Where a suite runs and where it writes.
#[derive(Debug, Args)]
pub struct BenchArgs {
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

impl BenchArgs {
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PtsKind {
    Iops,
    Throughput,
    Latency,
    Wsat,
}

#[derive(Debug, Args)]
pub struct PtsArgs {
    /// Which PTS-E test.
    #[arg(value_enum)]
    pub test: PtsKind,
    #[command(flatten)]
    pub bench: BenchArgs,
    /// Threads per cell (default: T4 for IOPS/WSAT, T1 for throughput; latency is always T1Q1).
    #[arg(long)]
    pub threads: Option<u32>,
    /// Queue depth per thread (default 32).
    #[arg(long)]
    pub qd: Option<u32>,
    /// Full-scale seconds per cell (PTS: 60; divided by the scale factor on a scaled drive).
    #[arg(long, default_value_t = 60.0)]
    pub cell_seconds: f64,
    /// Round limit (5..=25).
    #[arg(long, default_value_t = 25)]
    pub max_rounds: usize,
    /// WSAT: user capacities of random writes.
    #[arg(long, default_value_t = 4.0)]
    pub wsat_capacities: f64,
}

pub fn run(a: PtsArgs) -> Result<(), CliError> {
    let test = match a.test {
        PtsKind::Iops => PtsTest::Iops,
        PtsKind::Throughput => PtsTest::Throughput,
        PtsKind::Latency => PtsTest::Latency,
        PtsKind::Wsat => PtsTest::Wsat,
    };
    let mut o = PtsOptions::new(test);
    if test != PtsTest::Latency {
        o.threads = a.threads.unwrap_or(o.threads);
        o.qd = a.qd.unwrap_or(o.qd);
    }
    o.cell_s = a.cell_seconds;
    o.max_rounds = a.max_rounds;
    o.wsat_capacities = a.wsat_capacities;
    o.validate().map_err(CliError::bad_input)?;
    let mut bench = a.bench.open(o.threads * o.qd, 1 << 20)?;
    let mut out = a.bench.out_dir()?;
    let started = std::time::Instant::now();
    let r = with_ctl(&format!("pts {}", test.name()), |ctl| pts_report::run(bench.as_mut(), &o, &mut out, ctl))?;
    let mut s = String::new();
    for seg in &r.segments {
        let status = match &seg.determination {
            Some(d) if d.reached => format!(
                "steady state reached in round {} (window {}-{}, average {:.1}, range {:.1}%, slope {:.1}%)",
                seg.rounds.len(),
                d.rounds[0],
                d.rounds[d.rounds.len() - 1],
                d.average,
                d.range_pct,
                d.slope_pct
            ),
            _ => format!("steady state not reached after {} rounds", seg.rounds.len()),
        };
        s.push_str(&format!("{}: {status}\n", seg.name));
    }
    if let Some(c) = &r.wsat {
        let last = c.points.last().map_or(0.0, |p| p.iops);
        let first = c.points.first().map_or(0.0, |p| p.iops);
        s.push_str(&format!("wsat: {} s, IOPS first second {first:.0}, last second {last:.0}\n", c.points.len()));
    }
    s.push_str(&format!(
        "wrote {} files to {} in {:.1} s wall time\n",
        out.written().len(),
        out.path().display(),
        started.elapsed().as_secs_f64()
    ));
    print_out(&s)?;
    if r.interrupted {
        return Err(CliError::failed("interrupted; partial results written"));
    }
    Ok(())
}
