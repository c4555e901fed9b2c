//! `ssdlab drive ...`: one drive profile.

use super::{print_out, CliError};
use clap::Subcommand;
use ftl::profile;

#[derive(Debug, Subcommand)]
pub enum DriveAction {
    /// Print the fully resolved profile (defaults filled in) as TOML.
    Show {
        /// An embedded profile name (see `ssdlab drives`) or the path of a profile file.
        name_or_path: String,
    },
}

pub fn run(action: DriveAction) -> Result<(), CliError> {
    match action {
        DriveAction::Show { name_or_path } => show(&name_or_path),
    }
}

fn show(name_or_path: &str) -> Result<(), CliError> {
    let p = profile::load(name_or_path)?;
    print_out(&profile::to_toml(&p.profile))
}
