//! `ssdlab explore`: a run (or a lesson's runs) recorded into one self-contained teaching page,
//! `DIR/index.html`, beside each run's result JSON (`DIR/run-N.json`, the same bytes `ssdlab run
//! --output-format json` writes for that configuration).

use super::common::{interrupt_flag, parse_fraction, DriveArgs};
use super::CliError;
use clap::Args;
use host_bench::explore::lessons::{self, RunSpec};
use host_bench::explore::{page, Page};
use host_bench::job::{self, ParseOptions};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct ExploreArgs {
    /// fio job file to run and record (or --lesson NAME).
    #[arg(required_unless_present_any = ["lesson", "list_lessons"], conflicts_with = "lesson")]
    pub job: Option<PathBuf>,
    #[command(flatten)]
    pub drive: DriveArgs,
    /// A preset scenario with text and questions (`--list-lessons`).
    #[arg(long)]
    pub lesson: Option<String>,
    /// List the lessons and exit.
    #[arg(long)]
    pub list_lessons: bool,
    /// Directory for index.html and the runs' JSON.
    #[arg(long, required_unless_present = "list_lessons")]
    pub out: Option<PathBuf>,
    /// Record two runs side by side at these OPs, e.g. 7%,28%.
    #[arg(long, conflicts_with_all = ["compare_gc", "compare_plp", "lesson"])]
    pub compare_op: Option<String>,
    /// Record two runs side by side with these GC policies, e.g. greedy,cost-benefit.
    #[arg(long, conflicts_with_all = ["compare_plp", "lesson"])]
    pub compare_gc: Option<String>,
    /// Record PLP on and off side by side, each with a power cut when the job ends.
    #[arg(long, conflicts_with = "lesson")]
    pub compare_plp: bool,
    /// Cut power when the job ends (before the write buffer drains) and record the reboot.
    #[arg(long, conflicts_with = "lesson")]
    pub power_cut: bool,
    /// Cut power at this simulated time instead of at the job's end (e.g. 1.5s, 800ms; with
    /// --compare-plp or alone).
    #[arg(long, conflicts_with = "lesson")]
    pub power_cut_at: Option<String>,
    /// Start from a drive saved by `run --save-drive` or `drive precondition` (docs/snapshots.md).
    #[arg(long, conflicts_with_all = ["lesson", "compare_plp", "power_cut", "power_cut_at"])]
    pub from_drive: Option<PathBuf>,
    /// Warn about unknown job-file options instead of failing.
    #[arg(long)]
    pub ignore_unsupported: bool,
    /// Log every host write's block changes, so "next write" steps exactly anywhere (without:
    /// in the first 1000 writes after GC starts). Recording then takes about twice as long.
    #[arg(long)]
    pub write_log: bool,
}

pub fn run(a: ExploreArgs) -> Result<(), CliError> {
    if a.list_lessons {
        let text: String = lessons::all().iter().map(|l| format!("{:<24} {}\n", l.name, l.summary)).collect();
        return super::print_out(&text);
    }
    let out = a.out.clone().ok_or_else(|| CliError::bad_input("--out DIR is required"))?;
    super::preflight::check_output_dir("--out", &out)?;
    let (title, text, mut specs, questions, command) = match &a.lesson {
        Some(name) => {
            let d = &a.drive;
            let touched = d.name.drive != "generic-tlc"
                || d.sim.seed != 1
                || [&d.user_capacity, &d.ftl.op, &d.sim.scale, &d.ftl.gc_policy, &d.power_cap]
                    .iter()
                    .any(|o| o.is_some())
                || d.power_state.is_some();
            if touched {
                return Err(CliError::bad_input(format!(
                    "--lesson {name} runs its own drives and seed; drop the drive flags (--drive, --op, --seed, ...) or run a job file instead"
                )));
            }
            let l = lessons::find(name).ok_or_else(|| {
                let names: Vec<&str> = lessons::all().iter().map(|l| l.name).collect();
                CliError::bad_input(format!("--lesson {name}: unknown (allowed: {})", names.join(", ")))
            })?;
            let text = l.text.iter().map(|s| s.to_string()).collect();
            (l.title.to_string(), text, l.runs, Some(l.questions), format!("ssdlab explore --lesson {name}"))
        }
        None => {
            let (title, specs) = job_specs(&a)?;
            (title, Vec::new(), specs, None, command_line())
        }
    };
    for s in &mut specs {
        s.write_log = a.write_log;
    }
    let stop = interrupt_flag();
    let mut recordings = Vec::new();
    for (n, spec) in specs.iter().enumerate() {
        let file = match &a.job {
            Some(p) if a.lesson.is_none() => {
                let f = job::parse_path(p, &ParseOptions::for_user_file(a.ignore_unsupported))
                    .map_err(CliError::bad_input)?;
                for w in &f.warnings {
                    eprintln!("warning: {w}");
                }
                f
            }
            _ => lessons::parse_job(spec, a.lesson.as_deref().unwrap_or("?")).map_err(CliError::failed)?,
        };
        super::preflight::check_sim_memory(&spec.cfg, Some(&file), 1)?;
        let (r, session, rec) = lessons::run_spec(spec, &file, Some(&stop)).map_err(CliError::bad_input)?;
        let json = session.json(&r, false);
        let path = out.join(format!("run-{}.json", n + 1));
        let body = format!("{}\n", serde_json::to_string_pretty(&json).unwrap_or_default());
        std::fs::write(&path, body).map_err(|e| CliError::failed(format!("{}: {e}", path.display())))?;
        recordings.push(rec);
        // A mid-run power cut stops its run too; only Ctrl-C ends the recording early.
        if r.interrupted && stop.load(std::sync::atomic::Ordering::SeqCst) {
            break;
        }
    }
    let questions = match questions {
        Some(q) if recordings.len() == specs.len() => q(&recordings),
        _ => Vec::new(),
    };
    let mut p = Page { title, text, questions, runs: recordings, command };
    let html = page::render(&mut p).map_err(|e| CliError::failed(format!("page data: {e}")))?;
    let path = out.join("index.html");
    std::fs::write(&path, html).map_err(|e| CliError::failed(format!("{}: {e}", path.display())))?;
    eprintln!("wrote {}", path.display());
    if stop.load(std::sync::atomic::Ordering::SeqCst) {
        return Err(CliError::failed("interrupted; the page holds the runs finished so far"));
    }
    Ok(())
}

fn command_line() -> String {
    let args: Vec<String> = std::env::args().skip(1).collect();
    format!("ssdlab {}", args.join(" "))
}

/// The configurations of a job-file run: one, or two to compare.
fn job_specs(a: &ExploreArgs) -> Result<(String, Vec<RunSpec>), CliError> {
    let job_path = a.job.as_ref().ok_or_else(|| CliError::bad_input("a job file or --lesson is required"))?;
    let base = a.drive.to_config()?;
    let cut_at = a.power_cut_at.as_deref().map(|t| super::common::parse_sim_time("--power-cut-at", t)).transpose()?;
    let power_cut = a.power_cut || cut_at.is_some();
    let one = |label: String, cfg, power_cut| RunSpec {
        label,
        cfg,
        job: String::new(),
        power_cut,
        power_cut_at_ns: if power_cut { cut_at } else { None },
        from_drive: a.from_drive.clone(),
        write_log: false,
    };
    let name = job_path.display().to_string();
    let pair = |s: &str, flag: &str| -> Result<(String, String), CliError> {
        match s.split(',').map(str::trim).collect::<Vec<_>>()[..] {
            [x, y] => Ok((x.to_string(), y.to_string())),
            _ => Err(CliError::bad_input(format!("{flag} {s}: allowed two values separated by a comma"))),
        }
    };
    let specs = if let Some(s) = &a.compare_op {
        let (x, y) = pair(s, "--compare-op")?;
        let mut v = Vec::new();
        for o in [x, y] {
            let f = parse_fraction(&o).map_err(|e| CliError::bad_input(format!("--compare-op {o}: {e}")))?;
            let mut c = base.clone();
            c.op = Some(f);
            c.user_capacity_bytes = None;
            v.push(one(format!("OP {o}"), c, power_cut));
        }
        v
    } else if let Some(s) = &a.compare_gc {
        let (x, y) = pair(s, "--compare-gc")?;
        let mut v = Vec::new();
        for g in [x, y] {
            let mut c = base.clone();
            c.gc_policy = Some(match g.as_str() {
                "greedy" => ftl::GcPolicy::Greedy,
                "cost-benefit" => ftl::GcPolicy::CostBenefit,
                _ => return Err(CliError::bad_input(format!("--compare-gc {g}: allowed greedy or cost-benefit"))),
            });
            v.push(one(g, c, power_cut));
        }
        v
    } else if a.compare_plp {
        [true, false]
            .iter()
            .map(|&on| {
                let mut c = base.clone();
                c.plp = Some(on);
                one(format!("PLP {}", if on { "on" } else { "off" }), c, true)
            })
            .collect()
    } else {
        vec![one(base.drive.clone(), base.clone(), power_cut)]
    };
    Ok((format!("{name} on {}", base.drive), specs))
}
