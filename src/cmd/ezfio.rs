//! `ssdlab ezfio`: ezFIO's test sequence with per-test CSV and plots.

use super::suite_args::{with_ctl, SuiteArgs};
use super::{print_out, CliError};
use clap::Args;
use host_bench::suites::ezfio::{self, EzfioOptions};

#[derive(Debug, Args)]
pub struct EzfioArgs {
    #[command(flatten)]
    pub bench: SuiteArgs,
    /// Short run: 5 s points, 60 s stability test, every other block size / thread count.
    #[arg(long)]
    pub quick: bool,
    /// Override the full-scale seconds per sweep point.
    #[arg(long)]
    pub point_seconds: Option<f64>,
    /// Override the full-scale seconds of the 70/30 stability test (ezFIO: 1200).
    #[arg(long)]
    pub stability_seconds: Option<f64>,
}

pub fn run(a: EzfioArgs) -> Result<(), CliError> {
    let mut o = if a.quick { EzfioOptions::quick() } else { EzfioOptions::full() };
    o.point_s = a.point_seconds.unwrap_or(o.point_s);
    o.stability_s = a.stability_seconds.unwrap_or(o.stability_s);
    let mut bench = a.bench.open(256, 1 << 20)?;
    let mut out = a.bench.out_dir()?;
    let r = with_ctl("ezfio", |ctl| ezfio::run(bench.as_mut(), &o, &mut out, ctl))?;
    let mut s = String::new();
    if let Some(st) = &r.stability {
        s.push_str(&format!(
            "stability 4k 70/30 x256: average {:.0} IOPS, stddev {:.0}, CoV {:.2}%\n",
            st.average, st.stddev, st.cov_pct
        ));
    }
    s.push_str(&format!("wrote {} files to {}\n", out.written().len(), out.path().display()));
    print_out(&s)?;
    if r.interrupted {
        return Err(CliError::failed("interrupted; partial results written"));
    }
    Ok(())
}
