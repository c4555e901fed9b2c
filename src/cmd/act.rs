//! `ssdlab act`: Aerospike ACT at load N, pass/fail per one-hour slice. Exit code 1 on FAIL.

use super::suite_args::{with_ctl, SuiteArgs};
use super::{print_out, CliError};
use clap::Args;
use host_bench::suites::act::{self, ActOptions};

#[derive(Debug, Args)]
pub struct ActArgs {
    #[command(flatten)]
    pub bench: SuiteArgs,
    /// Load multiplier N: N x (2000 reads/s + 1000 writes/s).
    #[arg(long, default_value_t = 1.0)]
    pub load: f64,
    /// Full-scale hours (divided by the scale factor on a scaled simulated drive).
    #[arg(long, default_value_t = 24.0)]
    pub hours: f64,
    /// Slice length in full-scale seconds (ACT: 3600).
    #[arg(long, default_value_t = 3600.0)]
    pub slice_seconds: f64,
}

pub fn run(a: ActArgs) -> Result<(), CliError> {
    let o = ActOptions { load: a.load, hours: a.hours, slice_s: a.slice_seconds, ..Default::default() };
    let mut bench = a.bench.open(o.max_outstanding, 128 << 10)?;
    let mut out = a.bench.out_dir()?;
    let r = with_ctl("act", |ctl| act::run(bench.as_mut(), &o, &mut out, ctl))?;
    let mut s = format!(
        "ACT load {}x: {} reads/s of {} B, {} large-block reads and writes/s\nslice  >1ms%  >8ms%  >64ms%  result\n",
        o.load, r.read_rate, r.read_bytes, r.large_block_rate
    );
    for sl in &r.slices {
        s.push_str(&format!(
            "{:>5}  {:>5.2}  {:>5.2}  {:>6.3}  {}\n",
            sl.slice,
            sl.pct_over_ms[0],
            sl.pct_over_ms[1],
            sl.pct_over_ms[2],
            if sl.passed { "pass" } else { "FAIL" }
        ));
    }
    s.push_str(&format!(
        "{}; wrote {} files to {}\n",
        if r.passed { "PASS" } else { "FAIL" },
        out.written().len(),
        out.path().display()
    ));
    print_out(&s)?;
    if r.interrupted {
        return Err(CliError::failed("interrupted; partial results written"));
    }
    if !r.passed {
        return Err(CliError::failed("ACT failed"));
    }
    Ok(())
}
