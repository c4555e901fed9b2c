//! `ssdlab sweep JOB.fio --drive D --user-capacity 7.68TB,6.4TB --power-state 0,1,2 --out DIR`:
//! a job file on a grid of drive configurations, in parallel, optionally one shard of it;
//! `ssdlab sweep merge DIR... --out DIR` joins shards. See docs/sweeps.md.

use super::common::{interrupt_flag, parse_capacity, parse_watts, DriveName, FtlArgs, SimArgs};
use super::{print_out, CliError};
use clap::{Args, Subcommand};
use host_bench::job::JobFile;
use host_bench::job::{self, ParseOptions};
use host_bench::simrun::{SimConfig, SimError};
use host_bench::sweep::checkpoint::{self, Plan};
use host_bench::sweep::{self, Row, Shard, SweepControl, SweepError, SweepSpec};
use std::path::PathBuf;

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct SweepArgs {
    #[command(subcommand)]
    pub action: Option<SweepAction>,
    /// fio job file; the last job of the file is the measurement reported per point.
    #[arg(required_unless_present = "resume")]
    pub job: Option<PathBuf>,
    /// Finish a stopped sweep from the checkpoint in DIR (its --out): the grid, shard and job
    /// file come from there; only the points not finished run.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["job", "out", "shard", "user_capacity", "op", "gc_policy", "power_state", "power_cap", "scale"])]
    pub resume: Option<PathBuf>,
    #[command(flatten)]
    pub drive: DriveName,
    #[command(flatten)]
    pub ftl: FtlArgs,
    /// User capacities (OP axis), comma-separated, e.g. 7.68TB,6.4TB. Default: stock.
    #[arg(long)]
    pub user_capacity: Option<String>,
    /// Power states, comma-separated, e.g. 0,1,2 (`none` = uncapped). Default: uncapped.
    #[arg(long)]
    pub power_state: Option<String>,
    /// Power caps in W, comma-separated, e.g. 25,15,10 or none,11 (crossed with the power states).
    #[arg(long)]
    pub power_cap: Option<String>,
    /// Seeds per configuration (each point's seed derives from --seed and its index).
    #[arg(long, default_value_t = 1)]
    pub seeds: u32,
    #[command(flatten)]
    pub sim: SimArgs,
    /// Run only the K-th of N slices of the grid (0-based), e.g. $SLURM_ARRAY_TASK_ID/16.
    #[arg(long)]
    pub shard: Option<String>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Output directory: sweep.csv, sweep.json, plots (*.svg).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Warn about unknown job-file options instead of failing.
    #[arg(long)]
    pub ignore_unsupported: bool,
    /// Run as a Slurm array job (one shard per task): write DIR/sweep.sbatch, submit it with
    /// sbatch, follow it with squeue and merge the shards into DIR when all are done.
    #[arg(long, conflicts_with_all = ["shard", "resume", "threads"])]
    pub slurm: bool,
    /// Extra sbatch options written into the script, e.g. "--partition=debug --time=02:00:00".
    #[arg(long, value_name = "OPTIONS", allow_hyphen_values = true)]
    pub slurm_args: Option<String>,
    /// Array tasks (shards), 1..=points (default: one point per task).
    #[arg(long, value_name = "N")]
    pub slurm_tasks: Option<u32>,
    /// Only write DIR/sweep.sbatch and DIR/merge.sh, for submitting by hand.
    #[arg(long, conflicts_with_all = ["shard", "resume", "threads"])]
    pub slurm_script_only: bool,
    /// Precondition every point on its own (the old way) instead of once per user capacity and
    /// seed with the power settings forked from that drive (docs/sweeps.md).
    #[arg(long)]
    pub precondition_each: bool,
    /// Keep the preconditioned drives of a forked sweep as snapshots in DIR, shared by shards
    /// (the Slurm script sets OUT/drives); a drive already there is loaded, not rebuilt.
    #[arg(long, value_name = "DIR")]
    pub drive_cache: Option<PathBuf>,
    /// Seconds between squeue polls while following the job.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub slurm_poll: f64,
}

#[derive(Debug, Subcommand)]
pub enum SweepAction {
    /// Join the directories of a sharded sweep into one table and plots.
    Merge {
        /// Shard output directories.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Where to write the merged table and plots.
        #[arg(long)]
        out: PathBuf,
    },
}

fn list<T>(
    s: &Option<String>,
    flag: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Vec<Option<T>>, CliError> {
    match s {
        None => Ok(vec![None]),
        Some(s) => s
            .split(',')
            .map(|x| match x.trim() {
                "none" => Ok(None),
                x => parse(x).map(Some).map_err(|e| CliError::bad_input(format!("{flag} {x}: {e}"))),
            })
            .collect(),
    }
}

fn sweep_error(e: SweepError) -> CliError {
    match e {
        SweepError::Config(_) | SweepError::Merge(_) => CliError::bad_input(e),
        _ => CliError::failed(e),
    }
}

pub fn run(a: SweepArgs) -> Result<(), CliError> {
    if let Some(SweepAction::Merge { dirs, out }) = a.action {
        super::preflight::check_output_dir("--out", &out)?;
        let parts = dirs
            .iter()
            .map(|d| sweep::read_dir(d).map(|t| (d.display().to_string(), t)))
            .collect::<Result<Vec<_>, _>>()
            .map_err(CliError::bad_input)?;
        let t = sweep::merge_named(parts).map_err(sweep_error)?;
        sweep::write_dir(&out, &t, Shard::WHOLE).map_err(sweep_error)?;
        return print_out(&format!("merged {} points into {}\n", t.rows.len(), out.display()));
    }
    if a.slurm || a.slurm_script_only {
        return super::sweep_slurm::run(&a);
    }
    if a.slurm_args.is_some() || a.slurm_tasks.is_some() {
        return Err(CliError::bad_input("--slurm-args and --slurm-tasks need --slurm or --slurm-script-only"));
    }
    let (spec, file, shard, out, done, plan) = match &a.resume {
        Some(dir) => resumed(dir)?,
        None => fresh(&a)?,
    };
    let threads = a.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let total = spec.grid().iter().filter(|p| shard.contains(p.index)).count();
    super::preflight::check_sim_memory(&spec.base, Some(&file), threads.clamp(1, total.max(1)))?;
    if let Some(plan) = plan {
        checkpoint::start(&out, &plan).map_err(sweep_error)?;
    }
    let done_before = done.len();
    let count = std::sync::atomic::AtomicUsize::new(done_before);
    let report = |r: &Row| -> Result<(), SweepError> {
        checkpoint::save_row(&out, r)?;
        let n = count.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        eprintln!(
            "[{n}/{total}] point {}: OP {:.1}% cap {} -> {:.0} IOPS, {:.2} W",
            r.index,
            r.op_pct,
            r.power_cap_w.map_or("none".to_string(), |w| format!("{w} W")),
            r.read_iops + r.write_iops,
            r.avg_power_w
        );
        Ok(())
    };
    let stop = interrupt_flag();
    let control = SweepControl { threads, stop: Some(&stop), done, on_done: &report, cache: a.drive_cache.as_deref() };
    let t = sweep::run_with(&spec, &file, shard, &control).map_err(|e| match e {
        SweepError::Config(SimError::Device { .. }) | SweepError::Config(_) => CliError::bad_input(e),
        e => sweep_error(e),
    })?;
    sweep::write_dir(&out, &t, shard).map_err(sweep_error)?;
    if t.interrupted {
        return Err(CliError::failed(format!(
            "interrupted: {} of {total} points finished ({} this run), table and checkpoint in {}; finish with: ssdlab sweep --resume {}",
            t.rows.len(),
            t.rows.len() - done_before,
            out.display(),
            out.display()
        )));
    }
    checkpoint::clear(&out).map_err(sweep_error)?;
    print_out(&sweep::to_csv(&t).map_err(|e| CliError::failed(format!("sweep table: {e}")))?)
}

/// What runs: grid, job, shard, output directory, rows already finished, and for a new sweep
/// the checkpoint plan to start.
pub(super) type Started = (SweepSpec, JobFile, Shard, PathBuf, Vec<Row>, Option<Plan>);

/// A new sweep from the command line.
pub(super) fn fresh(a: &SweepArgs) -> Result<Started, CliError> {
    let (Some(job_path), Some(out)) = (&a.job, &a.out) else {
        return Err(CliError::bad_input("sweep needs a job file and --out DIR (or --resume DIR)"));
    };
    let job_text =
        std::fs::read_to_string(job_path).map_err(|e| CliError::bad_input(format!("{}: {e}", job_path.display())))?;
    let opts = ParseOptions::for_user_file(a.ignore_unsupported);
    let file = job::parse_str(&job_text, &job_path.display().to_string(), &opts).map_err(CliError::bad_input)?;
    for w in &file.warnings {
        eprintln!("warning: {w}");
    }
    super::preflight::check_output_dir("--out", out)?;
    let mut base = SimConfig::new(a.drive.drive.clone(), a.sim.seed);
    base.op = a.ftl.op()?;
    base.scale_divisor = a.sim.scale_divisor()?;
    base.gc_policy = a.ftl.gc_policy()?;
    let spec = SweepSpec {
        job_file: job_path.display().to_string(),
        base,
        user_capacities: list(&a.user_capacity, "--user-capacity", parse_capacity)?,
        power_states: list(&a.power_state, "--power-state", |x| {
            x.trim().parse::<usize>().map_err(|_| "not a power-state index (0, 1, ...)".to_string())
        })?,
        power_caps_w: list(&a.power_cap, "--power-cap", parse_watts)?,
        seeds: a.seeds.max(1),
        precondition_once: !a.precondition_each,
    };
    let shard = match &a.shard {
        Some(s) => Shard::parse(s).map_err(|e| CliError::bad_input(format!("--shard {s}: {e}")))?,
        None => Shard::WHOLE,
    };
    spec.validate().map_err(CliError::bad_input)?;
    let plan = Plan {
        version: env!("CARGO_PKG_VERSION").to_string(),
        spec: spec.clone(),
        shard,
        job_text,
        ignore_unsupported: a.ignore_unsupported,
    };
    Ok((spec, file, shard, out.clone(), Vec::new(), Some(plan)))
}

/// A stopped sweep from its checkpoint.
fn resumed(dir: &std::path::Path) -> Result<Started, CliError> {
    let (plan, rows) = checkpoint::load(dir).map_err(CliError::bad_input)?;
    let opts = ParseOptions::for_user_file(plan.ignore_unsupported);
    let file = job::parse_str(&plan.job_text, &plan.spec.job_file, &opts).map_err(CliError::bad_input)?;
    eprintln!("resuming {}: {} points already finished", dir.display(), rows.len());
    Ok((plan.spec, file, plan.shard, dir.to_path_buf(), rows, None))
}
