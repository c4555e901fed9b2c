//! `ssdlab fob`: fresh-out-of-box -> transition -> steady-state curve of 4 KiB random writes.

use super::suite_args::{with_ctl, SuiteArgs};
use super::{print_out, CliError};
use clap::Args;
use host_bench::suites::fob::{self, CurveOptions};

#[derive(Debug, Args)]
pub struct FobArgs {
    #[command(flatten)]
    pub bench: SuiteArgs,
    /// Random writes, in drive (user capacity) writes.
    #[arg(long, default_value_t = 3.0)]
    pub drive_writes: f64,
    /// Skip the sequential fill after the purge.
    #[arg(long)]
    pub no_fill: bool,
    #[arg(long, default_value_t = 4)]
    pub threads: u32,
    #[arg(long, default_value_t = 32)]
    pub qd: u32,
    /// Round length of the steady-state detector, full-scale seconds.
    #[arg(long, default_value_t = 60.0)]
    pub round_seconds: f64,
}

pub fn run(a: FobArgs) -> Result<(), CliError> {
    let o = CurveOptions {
        fill: !a.no_fill,
        drive_writes: a.drive_writes,
        threads: a.threads,
        qd: a.qd,
        round_s: a.round_seconds,
        ..CurveOptions::fob()
    };
    let mut bench = a.bench.open(a.threads.saturating_mul(a.qd), 128 << 10)?;
    let mut out = a.bench.out_dir()?;
    let c = with_ctl("fob", |ctl| fob::run(bench.as_mut(), &o, &mut out, ctl))?;
    let first = c.points.first().map_or(0.0, |p| p.iops);
    let ss = match (&c.determination, c.time_to_steady_state_s) {
        (Some(d), Some(t)) => format!(
            "steady state after {t:.0} s at {:.0} IOPS (window rounds {}-{})",
            d.average,
            d.rounds[0],
            d.rounds[d.rounds.len() - 1]
        ),
        _ => format!("steady state not reached in {} rounds", c.rounds.len()),
    };
    let spread = c.steady_per_second.map_or(String::new(), |s| {
        format!(
            "; per-second IOPS in steady state: CoV {:.2}%, min {:.0}, {} zero, over {} device seconds",
            s.cov_pct, s.min_iops, s.zero_samples, s.samples
        )
    });
    let settled = c.last_drive_write_per_second.map_or(String::new(), |s| {
        format!("; over the last drive write: CoV {:.2}% over {} device seconds", s.cov_pct, s.samples)
    });
    print_out(&format!(
        "FOB {first:.0} IOPS; {ss}{spread}{settled}; {} s of curve; wrote {} files to {}\n",
        c.points.len(),
        out.written().len(),
        out.path().display()
    ))?;
    if c.interrupted {
        return Err(CliError::failed("interrupted; partial results written"));
    }
    Ok(())
}
