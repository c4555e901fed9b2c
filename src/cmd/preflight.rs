//! Checks made before any simulation starts, so a run that cannot finish or cannot be saved
//! fails in a moment with the flag to change: the memory the run needs against what the
//! machine (or the process's limits) can give, and every output path's writability.

use super::CliError;
use host_bench::job::JobFile;
use host_bench::memory::{self, gib, MemoryEstimate};
use host_bench::simrun::SimConfig;
use std::fs::OpenOptions;
use std::path::Path;

/// Memory this process can still get, bytes, and which limit says so: the smallest of
/// `MemAvailable`, the cgroup's `memory.max` headroom and the address-space limit (`ulimit -v`)
/// headroom. `None` when none can be read (not Linux).
pub fn available_memory() -> Option<(u64, &'static str)> {
    let mut best: Option<(u64, &'static str)> = None;
    let mut offer = |v: Option<u64>, what: &'static str| {
        if let Some(v) = v {
            if best.is_none_or(|(b, _)| v < b) {
                best = Some((v, what));
            }
        }
    };
    let kib_field = |text: &str, key: &str| -> Option<u64> {
        text.lines().find_map(|l| l.strip_prefix(key))?.split_whitespace().next()?.parse::<u64>().ok().map(|k| k * 1024)
    };
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    offer(kib_field(&meminfo, "MemAvailable:"), "MemAvailable in /proc/meminfo");
    let read_u64 = |p: &str| std::fs::read_to_string(p).ok()?.trim().parse::<u64>().ok();
    if let (Some(max), Some(cur)) = (read_u64("/sys/fs/cgroup/memory.max"), read_u64("/sys/fs/cgroup/memory.current")) {
        offer(Some(max.saturating_sub(cur)), "the cgroup's memory.max");
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes one rlimit struct we own.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } == 0 && lim.rlim_cur != libc::RLIM_INFINITY {
        let used = kib_field(&status, "VmSize:").unwrap_or(0);
        offer(Some(lim.rlim_cur.saturating_sub(used)), "the address-space limit (ulimit -v)");
    }
    best
}

/// Fails with exit 2 when `est` does not fit the memory available; `advice` says which flag to
/// change (e.g. "use --scale 1/64 or smaller").
pub fn check_memory(what: &str, est: &MemoryEstimate, advice: impl FnOnce(u64) -> String) -> Result<(), CliError> {
    let Some((avail, source)) = available_memory() else {
        return Ok(());
    };
    if est.total_bytes() <= avail {
        return Ok(());
    }
    Err(CliError::bad_input(format!(
        "{what} needs about {est}, but only {} is available ({source}); {}",
        gib(avail),
        advice(avail)
    )))
}

/// The memory check of a simulated run of `job` (several at once with `parallel` > 1).
pub fn check_sim_memory(cfg: &SimConfig, job: Option<&JobFile>, parallel: usize) -> Result<(), CliError> {
    let one = memory::estimate(cfg, job).map_err(CliError::bad_input)?;
    let n = parallel.max(1) as u64;
    let est = MemoryEstimate { tables_bytes: one.tables_bytes * n, results_bytes: one.results_bytes * n, ..one };
    let what = if n > 1 { format!("simulating {n} drives at once") } else { format!("simulating {}", cfg.drive) };
    check_memory(&what, &est, |avail| {
        let per_run = avail / n;
        match memory::fitting_scale(cfg, job, one.scale_divisor.saturating_mul(2), per_run) {
            Some(d) => {
                format!("use --scale 1/{d} (or 1/N with N > {d}){}", if n > 1 { ", or fewer --threads" } else { "" })
            }
            None => "no --scale fits; free memory or raise the limit".into(),
        }
    })
}

/// `path` (given with `flag`) can be written: not a directory, and either an existing file open
/// for writing or a new name in a writable directory (probed by creating and removing it).
pub fn check_output_file(flag: &str, path: &Path) -> Result<(), CliError> {
    let bad = |why: String| CliError::bad_input(format!("{flag} {}: {why}", path.display()));
    if path.is_dir() {
        return Err(bad("is a directory (a file name is needed)".into()));
    }
    if path.exists() {
        return OpenOptions::new().write(true).open(path).map(drop).map_err(|e| bad(format!("cannot write: {e}")));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return Err(bad(format!("directory {} does not exist", parent.display())));
    }
    OpenOptions::new().write(true).create_new(true).open(path).map_err(|e| bad(format!("cannot create: {e}")))?;
    let _ = std::fs::remove_file(path);
    Ok(())
}

/// `dir` (given with `flag`) exists or can be created, and files can be created in it.
pub fn check_output_dir(flag: &str, dir: &Path) -> Result<(), CliError> {
    let bad = |why: String| CliError::bad_input(format!("{flag} {}: {why}", dir.display()));
    if dir.exists() && !dir.is_dir() {
        return Err(bad("is not a directory".into()));
    }
    std::fs::create_dir_all(dir).map_err(|e| bad(format!("cannot create the directory: {e}")))?;
    let probe = dir.join(format!(".ssdlab-write-check-{}", std::process::id()));
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&probe)
        .map_err(|e| bad(format!("cannot write in the directory: {e}")))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}
