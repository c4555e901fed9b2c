//! A sweep as a Slurm array job: the sbatch script (task K runs shard K/N into `OUT/shard-K`),
//! the merge script, and reading back how far each shard is, from the shared output directory
//! and from `squeue`'s text. Nothing here runs a process; `ssdlab sweep --slurm` does.
//!
//! The script is plain bash a cluster admin can read: `#SBATCH` lines, one `ssdlab sweep`
//! command per task, and a trap that turns Slurm's warning before the time limit
//! (`--signal=B:USR1@60`) into SIGTERM for ssdlab, which saves its finished points in the
//! shard's checkpoint and exits; the task then requeues itself (`--requeue`) and its next run
//! resumes from the checkpoint. USR1 rather than TERM, so that `scancel` (TERM) still cancels.

use super::{checkpoint, read_dir, Shard, SweepSpec};
use std::path::{Path, PathBuf};

/// File names in the sweep's output directory.
pub const SCRIPT: &str = "sweep.sbatch";
pub const MERGE_SCRIPT: &str = "merge.sh";
pub const LOG_DIR: &str = "logs";
/// Preconditioned drives the shards of a forked sweep share (`sweep::fork`).
pub const DRIVE_CACHE: &str = "drives";

/// sbatch options the script sets unless `--slurm-args` gives the same option.
const DEFAULTS: [(&str, &str); 5] = [
    ("--job-name", "ssdlab-sweep"),
    ("--cpus-per-task", "1"),
    ("--open-mode", "append"),
    ("--requeue", ""),
    ("--signal", "B:USR1@60"),
];

/// Short sbatch options and their long names, so `-c 4` replaces the `--cpus-per-task` default.
const SHORT: [(&str, &str); 6] = [
    ("-J", "--job-name"),
    ("-c", "--cpus-per-task"),
    ("-a", "--array"),
    ("-o", "--output"),
    ("-D", "--chdir"),
    ("-e", "--error"),
];

/// Options the script owns (the array size is `--slurm-tasks`, logs and the working directory
/// follow `--out` and the current directory).
const OWNED: [&str; 4] = ["--array", "--output", "--chdir", "--error"];

/// One Slurm submission of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct SlurmJob {
    /// Absolute path of the ssdlab binary the tasks run.
    pub binary: PathBuf,
    /// Absolute working directory of the tasks (where relative job-file paths resolve).
    pub workdir: PathBuf,
    /// Absolute output directory shared by all tasks.
    pub out: PathBuf,
    /// Array tasks = shards.
    pub tasks: u32,
    /// `ssdlab sweep` arguments of the grid (job file, drive, lists, seeds, scale), without
    /// `--shard`, `--out` and `--threads`, which the script adds per task.
    pub sweep_args: Vec<String>,
    /// sbatch options, one per `#SBATCH` line (each a token list, e.g. `["--time=00:10:00"]`).
    pub sbatch_options: Vec<Vec<String>>,
}

/// Splits `--slurm-args` into sbatch options: each starts with `-`, following tokens that do not
/// are its value. Options the script owns are refused with the reason.
pub fn parse_sbatch_args(s: &str) -> Result<Vec<Vec<String>>, String> {
    let mut opts: Vec<Vec<String>> = Vec::new();
    for tok in s.split_whitespace() {
        if tok.starts_with('-') {
            let name = option_name(tok);
            if OWNED.contains(&name.as_str()) {
                return Err(format!(
                    "{tok}: set by ssdlab (array size: --slurm-tasks; logs: --out/{LOG_DIR}; working directory: the current one)"
                ));
            }
            opts.push(vec![tok.to_string()]);
        } else if let Some(last) = opts.last_mut() {
            last.push(tok.to_string());
        } else {
            return Err(format!("{tok}: expected an sbatch option starting with '-', e.g. --time=01:00:00"));
        }
    }
    if let Some(bad) = opts.iter().flatten().find(|t| t.contains(['\'', '"', '\\', '$', '`'])) {
        return Err(format!("{bad}: quotes, '$', '`' and '\\' are not accepted; edit the script instead"));
    }
    Ok(opts)
}

/// The long name of an option token: `--time=1:00` -> `--time`, `-c` -> `--cpus-per-task`.
fn option_name(tok: &str) -> String {
    let name = tok.split('=').next().unwrap_or(tok);
    SHORT.iter().find(|(s, _)| *s == name).map_or(name, |(_, l)| l).to_string()
}

/// Quotes `s` for bash when it holds anything but plain path and number characters.
pub fn sh_quote(s: &str) -> String {
    let plain = !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "_./:,=%+-@".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The directory of shard `k` in `out`.
pub fn shard_dir(out: &Path, k: u32) -> PathBuf {
    out.join(format!("shard-{k}"))
}

impl SlurmJob {
    /// The sbatch array script.
    pub fn script(&self) -> String {
        let n = self.tasks;
        let q = |p: &Path| sh_quote(&p.display().to_string());
        let mut s = String::from("#!/bin/bash\n");
        s += &format!(
            "# ssdlab sweep as a Slurm array job: task K runs shard K/{n} of the grid into OUT/shard-K.\n\
             # Written by ssdlab {}; submit with `sbatch {}`, then run {} once every task is done.\n",
            env!("CARGO_PKG_VERSION"),
            self.out.join(SCRIPT).display(),
            self.out.join(MERGE_SCRIPT).display()
        );
        s += &format!("#SBATCH --array=0-{}\n", n.saturating_sub(1));
        s += &format!("#SBATCH --chdir={}\n", q(&self.workdir));
        s += &format!("#SBATCH --output={}\n", q(&self.out.join(LOG_DIR).join("shard-%a.log")));
        let given: Vec<String> = self.sbatch_options.iter().map(|o| option_name(&o[0])).collect();
        for (name, value) in DEFAULTS {
            if !given.iter().any(|g| g == name) {
                s += &format!("#SBATCH {name}{}\n", if value.is_empty() { String::new() } else { format!("={value}") });
            }
        }
        for o in &self.sbatch_options {
            s += &format!("#SBATCH {}\n", o.join(" "));
        }
        s += &format!(
            "\nset -u\nSSDLAB={}\nOUT={}\nSHARD=\"$OUT/shard-$SLURM_ARRAY_TASK_ID\"\nTHREADS=\"${{SLURM_CPUS_PER_TASK:-1}}\"\n\
             saved() {{ ls \"$SHARD/{cp}\"/point-*.json 2>/dev/null | wc -l; }}\n\
             before=$(saved)\n\n",
            q(&self.binary),
            q(&self.out),
            cp = checkpoint::DIR_NAME,
        );
        let args: Vec<String> = self.sweep_args.iter().map(|a| sh_quote(a)).collect();
        s += &format!(
            "if [ -f \"$SHARD/{cp}/sweep.json\" ]; then\n\
             \x20   # A requeued task: run only the points its earlier run did not finish.\n\
             \x20   \"$SSDLAB\" sweep --resume \"$SHARD\" --threads \"$THREADS\" --drive-cache \"$OUT/{dc}\" &\n\
             else\n\
             \x20   \"$SSDLAB\" sweep {} \\\n\
             \x20       --threads \"$THREADS\" --shard \"$SLURM_ARRAY_TASK_ID/{n}\" --out \"$SHARD\" --drive-cache \"$OUT/{dc}\" &\n\
             fi\n",
            args.join(" "),
            cp = checkpoint::DIR_NAME,
            dc = DRIVE_CACHE,
        );
        s += "child=$!\n\n\
              # Slurm's warning before the time limit (--signal=B:USR1@60) asks the task to stop\n\
              # and come back: ssdlab gets SIGTERM, keeps every finished point in the shard's\n\
              # checkpoint and exits, and the task requeues itself to resume from there. SIGTERM\n\
              # (scancel, the time limit itself) is passed on the same way but does not requeue.\n\
              requeue=0\n\
              trap 'requeue=1; kill -TERM \"$child\" 2>/dev/null' USR1\n\
              trap 'kill -TERM \"$child\" 2>/dev/null' TERM INT\n\
              wait \"$child\"\n\
              status=$?\n\
              # A trapped signal ends `wait` early; wait for ssdlab to finish saving.\n\
              while [ \"$status\" -gt 128 ] && kill -0 \"$child\" 2>/dev/null; do\n\
              \x20   wait \"$child\"\n\
              \x20   status=$?\n\
              done\n";
        s += &format!(
            "if [ \"$requeue\" = 1 ] && [ -f \"$SHARD/{cp}/sweep.json\" ]; then\n\
             \x20   if [ \"$(saved)\" -gt \"$before\" ]; then\n\
             \x20       echo \"ssdlab: shard $SLURM_ARRAY_TASK_ID stopped, finished points saved; requeueing\"\n\
             \x20       scontrol requeue \"${{SLURM_ARRAY_JOB_ID}}_${{SLURM_ARRAY_TASK_ID}}\"\n\
             \x20   else\n\
             \x20       echo \"ssdlab: shard $SLURM_ARRAY_TASK_ID finished no point in this run; not requeueing (give tasks a longer --time)\"\n\
             \x20   fi\n\
             fi\n\
             exit \"$status\"\n",
            cp = checkpoint::DIR_NAME
        );
        s
    }

    /// The merge step: runnable by hand or as a dependent job
    /// (`sbatch --dependency=afterok:JOBID merge.sh`).
    pub fn merge_script(&self) -> String {
        let q = |p: &Path| sh_quote(&p.display().to_string());
        format!(
            "#!/bin/bash\n\
             # Joins the {n} shards of the sweep in {out} once every array task is done; refuses\n\
             # missing or duplicated points and names them.\n\
             #SBATCH --job-name=ssdlab-merge\n\
             #SBATCH --output={log}\n\
             set -eu\n\
             OUT={outq}\n\
             exec {bin} sweep merge \"$OUT\"/shard-{{0..{last}}} --out \"$OUT\"\n",
            n = self.tasks,
            out = self.out.display(),
            log = q(&self.out.join(LOG_DIR).join("merge.log")),
            outq = q(&self.out),
            bin = q(&self.binary),
            last = self.tasks.saturating_sub(1),
        )
    }

    /// Shard directories, in task order.
    pub fn shard_dirs(&self) -> Vec<PathBuf> {
        (0..self.tasks).map(|k| shard_dir(&self.out, k)).collect()
    }
}

/// How far a shard is, from its directory alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShardProgress {
    /// Its table of this sweep is complete.
    Done,
    /// `n` points checkpointed (0 when not started).
    Partial(usize),
}

/// Reads shard `k`'s progress: done when its `sweep.json` is this sweep's and holds all its
/// points (a stale table of another sweep does not count), else the checkpointed points.
pub fn shard_progress(out: &Path, spec: &SweepSpec, shard: Shard) -> ShardProgress {
    let dir = shard_dir(out, shard.k);
    let expected = spec.grid().iter().filter(|p| shard.contains(p.index)).count();
    if let Ok(t) = read_dir(&dir) {
        if t.spec == *spec && !t.interrupted && t.rows.len() == expected && !dir.join(checkpoint::DIR_NAME).exists() {
            return ShardProgress::Done;
        }
    }
    let points = std::fs::read_dir(dir.join(checkpoint::DIR_NAME))
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| e.file_name().to_str().is_some_and(|n| n.starts_with("point-") && n.ends_with(".json")))
                .count()
        })
        .unwrap_or(0);
    ShardProgress::Partial(points)
}

/// One array task as `squeue -h -r -o "%K %T %r"` prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueuedTask {
    pub task: u32,
    /// PENDING, RUNNING, COMPLETING, REQUEUED, ...
    pub state: String,
    /// Why it is pending (`None`, `Resources`, `BeginTime` after a requeue, ...).
    pub reason: String,
}

/// The squeue format string [`parse_squeue`] reads.
pub const SQUEUE_FORMAT: &str = "%K %T %r";

/// Parses squeue's lines; lines that are not one task (an unexpanded range) are skipped.
pub fn parse_squeue(text: &str) -> Vec<QueuedTask> {
    text.lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let task = it.next()?.parse().ok()?;
            let state = it.next()?.to_string();
            let reason = it.collect::<Vec<_>>().join(" ");
            Some(QueuedTask { task, state, reason })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(opts: &str) -> SlurmJob {
        SlurmJob {
            binary: "/opt/ssdlab/bin/ssdlab".into(),
            workdir: "/home/u/w".into(),
            out: "/scratch/u/sweep out".into(),
            tasks: 4,
            sweep_args: vec!["jobs/rr.fio".into(), "--drive".into(), "tiny".into()],
            sbatch_options: parse_sbatch_args(opts).unwrap(),
        }
    }

    #[test]
    fn script_runs_one_shard_per_task_and_requeues_on_usr1() {
        let s = job("--time=00:10:00 -c 4").script();
        assert!(s.starts_with("#!/bin/bash\n"));
        for line in [
            "#SBATCH --array=0-3\n",
            "#SBATCH --requeue\n",
            "#SBATCH --signal=B:USR1@60\n",
            "#SBATCH --time=00:10:00\n",
            "#SBATCH -c 4\n",
            "#SBATCH --output='/scratch/u/sweep out/logs/shard-%a.log'\n",
            "SSDLAB=/opt/ssdlab/bin/ssdlab\n",
            "--shard \"$SLURM_ARRAY_TASK_ID/4\" --out \"$SHARD\" --drive-cache \"$OUT/drives\" &\n",
            "sweep --resume \"$SHARD\"",
            "scontrol requeue",
        ] {
            assert!(s.contains(line), "missing {line:?} in\n{s}");
        }
        // -c 4 replaces the default of one CPU.
        assert!(!s.contains("--cpus-per-task=1"), "{s}");
    }

    #[test]
    fn owned_and_malformed_options_are_refused() {
        assert!(parse_sbatch_args("--array=0-9").unwrap_err().contains("--slurm-tasks"));
        assert!(parse_sbatch_args("-o x.log").is_err());
        assert!(parse_sbatch_args("time=1").is_err());
        assert!(parse_sbatch_args("--comment=$(rm)").is_err());
        assert_eq!(parse_sbatch_args("-p debug --qos=low").unwrap(), vec![vec!["-p", "debug"], vec!["--qos=low"]]);
    }

    #[test]
    fn quoting_and_squeue() {
        assert_eq!(sh_quote("80MiB,70MiB"), "80MiB,70MiB");
        assert_eq!(sh_quote("a b'c"), r"'a b'\''c'");
        let q = parse_squeue("0 RUNNING None\n3 PENDING BeginTime\n[4-7] PENDING Resources\n");
        assert_eq!(q.len(), 2);
        assert_eq!((q[1].task, q[1].state.as_str(), q[1].reason.as_str()), (3, "PENDING", "BeginTime"));
    }
}
