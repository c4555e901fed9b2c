//! `ssdlab profile oracle|sql|vdi|vsi`: a VDBench-style application profile as an iorate curve.

use super::suite_args::{with_ctl, SuiteArgs};
use super::{print_out, CliError};
use clap::{Args, ValueEnum};
use host_bench::suites::vdbench::{self, CurveOptions};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AppName {
    Oracle,
    Sql,
    Vdi,
    Vsi,
}

#[derive(Debug, Args)]
pub struct ProfileArgs {
    /// Application profile (calibration/profiles.csv).
    #[arg(value_enum)]
    pub profile: AppName,
    #[command(flatten)]
    pub bench: SuiteArgs,
    /// Threads of the closed-loop max run.
    #[arg(long, default_value_t = 8)]
    pub threads: u32,
    /// Queue depth per thread of the max run (open-loop points cap outstanding at threads x qd).
    #[arg(long, default_value_t = 32)]
    pub qd: u32,
    /// Full-scale seconds per curve point.
    #[arg(long, default_value_t = 60.0)]
    pub point_seconds: f64,
}

pub fn run(a: ProfileArgs) -> Result<(), CliError> {
    let name = match a.profile {
        AppName::Oracle => "oracle",
        AppName::Sql => "sql",
        AppName::Vdi => "vdi",
        AppName::Vsi => "vsi",
    };
    let p = vdbench::profile(name).ok_or_else(|| CliError::bad_input(format!("unknown profile {name}")))?;
    let o = CurveOptions { threads: a.threads, qd: a.qd, point_s: a.point_seconds, ..Default::default() };
    let mut bench = a.bench.open(a.threads.saturating_mul(a.qd), 64 << 10)?;
    let mut out = a.bench.out_dir()?;
    let r = with_ctl(&format!("profile {name}"), |ctl| vdbench::run(bench.as_mut(), p, &o, &mut out, ctl))?;
    let mut s = format!(
        "{name}: read {}%, read bssplit {:?}, write bssplit {:?} (remainder: {})\n",
        r.read_pct_used,
        r.read_split_used,
        r.write_split_used,
        vdbench::REMAINDER_ASSUMPTION
    );
    for c in r.max.iter().chain(&r.curve) {
        let load = c.load_pct.map_or("max".to_string(), |l| format!("{l}%"));
        s.push_str(&format!(
            "  {load:>5}: {:>10.0} IOPS  mean {:>9.1} us  p99 {:>9.1} us\n",
            c.perf.iops, c.perf.lat.mean_us, c.perf.lat.p99_us
        ));
    }
    s.push_str(&format!("wrote {} files to {}\n", out.written().len(), out.path().display()));
    print_out(&s)?;
    if r.interrupted {
        return Err(CliError::failed("interrupted; partial results written"));
    }
    Ok(())
}
