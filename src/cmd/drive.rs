//! `ssdlab drive ...`: one drive profile, or a drive preconditioned and saved.

use super::common::{interrupt_flag, DriveArgs};
use super::{print_out, CliError};
use clap::{Args, Subcommand};
use ftl::profile;
use host_bench::job::{self, ParseOptions};
use host_bench::simrun::SimSession;
use host_bench::snapshot::precondition::{self, Workload};
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum DriveAction {
    /// Print the fully resolved profile (defaults filled in) as TOML.
    Show {
        /// An embedded profile name (see `ssdlab drives`) or the path of a profile file.
        name_or_path: String,
    },
    /// Bring a simulated drive to steady state (SNIA PTS check recorded) and save it for
    /// `run`/`predict --from-drive` (docs/snapshots.md).
    Precondition(Box<PreconditionArgs>),
}

#[derive(Debug, Args)]
pub struct PreconditionArgs {
    #[command(flatten)]
    pub drive: DriveArgs,
    /// randwrite-4k, seq-128k, or a fio job file run as each round.
    #[arg(long)]
    pub workload: String,
    /// The snapshot file to write.
    #[arg(long)]
    pub out: PathBuf,
}

pub fn run(action: DriveAction) -> Result<(), CliError> {
    match action {
        DriveAction::Show { name_or_path } => show(&name_or_path),
        DriveAction::Precondition(a) => precondition_drive(&a),
    }
}

fn show(name_or_path: &str) -> Result<(), CliError> {
    let p = profile::load(name_or_path)?;
    print_out(&profile::to_toml(&p.profile))
}

fn precondition_drive(a: &PreconditionArgs) -> Result<(), CliError> {
    let w = match a.workload.as_str() {
        "randwrite-4k" => Workload::RandWrite4k,
        "seq-128k" => Workload::Seq128k,
        p if p.ends_with(".fio") || std::path::Path::new(p).is_file() => Workload::Job(
            job::parse_path(std::path::Path::new(p), &ParseOptions::for_user_file(false))
                .map_err(CliError::bad_input)?,
        ),
        other => {
            return Err(CliError::bad_input(format!(
                "--workload {other}: allowed randwrite-4k, seq-128k or the path of a fio job file"
            )))
        }
    };
    super::preflight::check_output_file("--out", &a.out)?;
    let cfg = a.drive.to_config()?;
    super::preflight::check_sim_memory(&cfg, None, 1)?;
    let mut s = SimSession::new(cfg).map_err(CliError::bad_input)?;
    let stop = interrupt_flag();
    let mut progress = |k: usize, iops: &[f64]| {
        eprintln!("precondition: round {k}: {:.0} IOPS", iops.last().copied().unwrap_or(0.0));
    };
    let rec = precondition::run(&mut s, &w, Some(&stop), &mut progress).map_err(CliError::failed)?;
    let Some(rec) = rec else {
        return Err(CliError::failed("interrupted: nothing saved (the drive had not reached a round's end)"));
    };
    let made_by = format!("ssdlab drive precondition --workload {}", w.name());
    let frozen = s.freeze(made_by, Some(rec.clone()));
    let bytes = frozen.write(&a.out).map_err(CliError::failed)?;
    let c = s.target.ssd.counters();
    let verdict = match (rec.reached, rec.window) {
        (true, Some([a0, b0])) => format!("steady state reached in rounds {a0}-{b0}"),
        _ => format!("steady state NOT reached within {} rounds", rec.rounds),
    };
    print_out(&format!(
        "{}: {} ({:.2} drive writes, WA {:.3}, range {:.1}%, slope excursion {:.1}%); saved {} ({:.1} MB)\n",
        a.drive.name.drive,
        verdict,
        c.host_write_bytes as f64 / s.target.ssd.capacity().user_bytes_sim as f64,
        c.wa(),
        rec.range_pct.unwrap_or(f64::NAN),
        rec.slope_excursion_pct.unwrap_or(f64::NAN),
        a.out.display(),
        bytes as f64 / 1e6
    ))
}
