//! `ssdlab`: the command line. `main` only parses the arguments, dispatches to a command in
//! [`cmd`] and maps its error to an exit code (0 ok, 1 run failed, 2 bad input).

mod cmd;

use clap::Parser;
use std::process::ExitCode;

/// SSD firmware simulator and test bench.
#[derive(Debug, Parser)]
#[command(name = "ssdlab", version, about)]
struct Cli {
    #[command(subcommand)]
    command: cmd::Command,
}

fn main() -> ExitCode {
    // Usage errors exit with clap's code 2 (bad input); --help and --version with 0.
    let cli = Cli::parse();
    match cli.command.run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}
