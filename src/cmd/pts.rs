//! `ssdlab pts iops|throughput|latency|wsat`: SNIA PTS-E tests on a simulated drive or, with
//! `--target`, a real one.

use super::suite_args::{with_ctl, SuiteArgs};
use super::{print_out, CliError};
use clap::{Args, ValueEnum};
use host_bench::suites::pts::{PtsOptions, PtsTest};
use host_bench::suites::pts_report;

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
    pub bench: SuiteArgs,
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
