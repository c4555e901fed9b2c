//! The baseline of a what-if: one measured figure and the workload that produced it, read from
//! the measurement itself — a fio 3.x JSON output (its `global options` and `job options`), an
//! ssdlab result JSON (also its simulated configuration), or a row of a measured CSV.

use crate::exec::{fio_metric, MetricSource};
use crate::measured;
use crate::plan::{map_row, BlockSize, Mapping, Metric, Phase, Plan, Workload};
use crate::validate::profile_facts;
use host_bench::job::{
    self, BsSplitEntry, Distribution, JobError, JobSpec, ParseOptions, RawOption, RawSection, RwMode, SizeSpec,
};
use host_bench::report::FioReportJson;
use host_bench::simrun::SimConfig;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The workload as read from the baseline, for the report (and the tests that check it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkloadRead {
    pub rw: String,
    /// Block size in bytes when there is no split.
    pub bs_bytes: Option<u32>,
    /// fio `bssplit` as `SIZE/PERCENT:...`, sizes in bytes.
    pub bssplit: Option<String>,
    pub rwmixread: Option<u32>,
    pub iodepth: u32,
    pub numjobs: u32,
    /// The job's `size` as fio read it: bytes or percent of the target.
    pub size_bytes: Option<u64>,
    pub size_pct: Option<f64>,
}

/// A baseline ready to simulate: the plan (its configuration and measured value) and what was
/// read.
#[derive(Clone, Debug)]
pub struct Baseline {
    /// File and job/row it came from.
    pub source: String,
    pub plan: Plan,
    /// None for CSV rows (the row's columns are the workload).
    pub workload_read: Option<WorkloadRead>,
}

/// Which job or row of a file.
#[derive(Clone, Debug, Default)]
pub struct Select {
    pub row: Option<String>,
    pub job: Option<String>,
}

/// Reads a baseline for `drive` (required for fio JSON; a CSV row names its own drive, which
/// `drive` overrides when given). `Err` is a message for exit 2.
pub fn read(path: &Path, drive: Option<&str>, sel: &Select) -> Result<Baseline, String> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| format!("--baseline {file}: {e}"))?;
    if !text.trim_start().starts_with('{') {
        return from_csv(&text, &file, drive, sel);
    }
    let v: FioReportJson = serde_json::from_str(&text)
        .map_err(|e| format!("--baseline {file}: line {}: not valid JSON: {e}", e.line()))?;
    from_json(&v, &file, drive, sel)
}

fn from_csv(text: &str, file: &str, drive: Option<&str>, sel: &Select) -> Result<Baseline, String> {
    let rows = measured::parse(text, file).map_err(|e| e.to_string())?;
    let row = match &sel.row {
        Some(id) => rows.iter().find(|r| &r.id == id).ok_or_else(|| format!("--row {id}: no such row in {file}"))?,
        None if rows.len() == 1 => &rows[0],
        None => {
            return Err(format!("{file} has {} rows: choose one with --row ID (e.g. --row {})", rows.len(), rows[0].id))
        }
    };
    let mut row = row.clone();
    if let Some(d) = drive {
        row.drive = d.to_string();
    }
    match map_row(&row, &profile_facts) {
        Mapping::Run(p) => Ok(Baseline { source: format!("{file}: row {}", row.id), plan: *p, workload_read: None }),
        Mapping::Skip(why) => Err(format!("{file}: row {}: the simulator cannot run it: {why}", row.id)),
    }
}

fn from_json(v: &FioReportJson, file: &str, drive: Option<&str>, sel: &Select) -> Result<Baseline, String> {
    let version = v.fio_version.as_deref().unwrap_or("an unknown version");
    let jobs = v.jobs.as_ref().ok_or_else(|| format!("{file}: no `jobs` array: not fio JSON"))?;
    let names: Vec<&str> = jobs.iter().map(|j| j.jobname.as_deref().unwrap_or("")).collect();
    let k = match &sel.job {
        Some(n) => names
            .iter()
            .position(|x| x == n)
            .ok_or_else(|| format!("--job {n}: {file} has jobs {}", names.join(", ")))?,
        None if jobs.len() == 1 => 0,
        None => {
            return Err(format!("{file} has {} jobs ({}): choose one with --job NAME", jobs.len(), names.join(", ")))
        }
    };
    let jv = &jobs[k];
    let Some(job_opts) = &jv.job_options else {
        return Err(format!(
            "{file}: fio JSON from {version} has no `job options` in jobs[{k}]: the workload cannot be read \
             (fio 3.x --output-format=json writes them)"
        ));
    };
    // Resolve the job fio ran with ssdlab's parser, as the job file holding these options would
    // be (`[global]`, then the job), so every option means what it means to `ssdlab run` and
    // anything ssdlab cannot express is refused by name. A flag (`stonewall`) is echoed as "".
    let jf = job_sections(&v.global_options, names[k], job_opts, file)
        .and_then(|sections| job::resolve_sections(&sections, file, &ParseOptions::default()))
        .map_err(|e| format!("{file}: {e}"))?;
    let spec = jf.jobs.first().ok_or_else(|| format!("{file}: jobs[{k}] resolved to no job"))?;
    let (workload, read, mut notes) =
        workload_of(spec).map_err(|e| format!("{file}: jobs[{k}] ({}): {e}", names[k]))?;
    let metric = if workload.rw.is_random() { Metric::Iops } else { Metric::Bandwidth };
    let measured = fio_metric(&MetricSource::from(jv), metric).filter(|x| *x > 0.0).ok_or_else(|| {
        format!("{file}: jobs[{k}] has no positive {} (did the run complete any I/O?)", metric.name())
    })?;
    // An ssdlab result records the configuration it was simulated at.
    let sim_cfg: Option<SimConfig> = v.ssdlab.as_ref().and_then(|x| x.config.clone());
    let drive = match (drive, &sim_cfg) {
        (Some(d), _) => d.to_string(),
        (None, Some(c)) => c.drive.clone(),
        (None, None) => return Err(format!("{file} is a real fio run: name its drive with --drive NAME|PATH.toml")),
    };
    let facts = profile_facts(&drive).ok_or_else(|| format!("--drive {drive}: no such drive profile"))?;
    let (user_capacity_bytes, power_cap_w) = match &sim_cfg {
        Some(c) => {
            let state_w = c.power_state.and_then(|i| facts.states_w.get(i).copied());
            let cap = match (state_w, c.power_cap_w) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            notes.push("configuration: as recorded in the ssdlab result (`ssdlab.config`)".into());
            (c.user_capacity_bytes, cap)
        }
        None => {
            notes.push(format!(
                "configuration: the drive's stock user capacity at PS0 ({} W), as a drive runs out of the box",
                facts.ps0_w
            ));
            (None, Some(facts.ps0_w))
        }
    };
    notes.push("state: steady (the real run is taken as measured on a preconditioned drive)".into());
    let phase = if read.rwmixread == Some(100) || matches!(workload.rw, RwMode::Read | RwMode::RandRead) {
        Phase::Read
    } else if workload.rw == RwMode::Write {
        Phase::SeqWrite
    } else {
        Phase::Random
    };
    let plan = Plan {
        id: format!("{}:{}", Path::new(file).file_stem().and_then(|s| s.to_str()).unwrap_or("baseline"), names[k]),
        drive,
        user_capacity_bytes,
        power_cap_w,
        steady: true,
        phase,
        workload,
        metric,
        measured,
        unit: if metric == Metric::Iops { "iops" } else { "MB/s" }.into(),
        assumptions: notes,
    };
    Ok(Baseline { source: format!("{file}: jobs[{k}] {}", names[k]), plan, workload_read: Some(read) })
}

/// fio's echoed options as the sections of the job file that holds them, one line each:
/// `[global]` and its options, then the job's.
fn job_sections<'a>(
    global: impl IntoIterator<Item = (&'a String, &'a String)>,
    name: &str,
    job_opts: impl IntoIterator<Item = (&'a String, &'a String)>,
    file: &str,
) -> Result<[RawSection; 2], JobError> {
    let mut line = 0;
    Ok([section("global", global, &mut line, file)?, section(name, job_opts, &mut line, file)?])
}

/// One section from line `*line + 1` on; `*line` becomes its last line.
fn section<'a>(
    name: &str,
    opts: impl IntoIterator<Item = (&'a String, &'a String)>,
    line: &mut usize,
    file: &str,
) -> Result<RawSection, JobError> {
    *line += 1;
    let mut s = RawSection { name: name.into(), line: *line, options: Vec::new() };
    for (k, v) in opts {
        *line += 1;
        s.options.push(RawOption::from_echo(file, *line, k, v)?);
    }
    Ok(s)
}

/// The fio job as the calibration workload, or the option the simulator cannot express.
pub fn workload_of(j: &JobSpec) -> Result<(Workload, WorkloadRead, Vec<String>), String> {
    if matches!(j.rw, RwMode::Trim | RwMode::RandTrim) {
        return Err("option `rw`: trim workloads are not predicted".into());
    }
    if j.distribution != Distribution::Uniform {
        return Err("option `random_distribution`: only uniform random offsets are predicted".into());
    }
    for key in [
        "rate",
        "rate_iops",
        "rate_min",
        "rate_iops_min",
        "thinktime",
        "offset",
        "offset_increment",
        "zonemode",
        "io_size",
    ] {
        if let Some((k, _)) = j.options.iter().find(|(k, _)| k == key) {
            return Err(format!("option `{k}`: the prediction runs closed-loop over the whole drive"));
        }
    }
    let reads = !matches!(j.rw, RwMode::Write | RwMode::RandWrite);
    let writes = !matches!(j.rw, RwMode::Read | RwMode::RandRead);
    let dirs: Vec<usize> = [(reads, 0), (writes, 1)].iter().filter(|d| d.0).map(|d| d.1).collect();
    if dirs.iter().any(|&d| j.bs_range[d].is_some() && j.bssplit[d].is_empty()) {
        return Err("option `bsrange`: block-size ranges are not predicted; give the sizes with bssplit".into());
    }
    let split: &Vec<BsSplitEntry> = &j.bssplit[dirs[0]];
    if dirs.iter().any(|&d| j.bssplit[d] != *split || (split.is_empty() && j.bs_bytes[d] != j.bs_bytes[dirs[0]])) {
        return Err("option `bs`/`bssplit`: reads and writes with different block sizes are not predicted".into());
    }
    let (bs, bs_bytes, bssplit, mean_bytes) = if split.is_empty() {
        let b = j.bs_bytes[dirs[0]];
        (BlockSize::Bytes(b), Some(b), None, b as f64)
    } else {
        let s = split.iter().map(|e| format!("{}/{}", e.bytes, e.percent)).collect::<Vec<_>>().join(":");
        let mean = split.iter().map(|e| e.bytes as f64 * e.percent as f64 / 100.0).sum();
        (BlockSize::Split([split.clone(), split.clone(), split.clone()]), None, Some(s), mean)
    };
    let rwmixread = if j.rw.is_mixed() { Some(j.rwmixread_percent) } else { None };
    let pct_random = j.percentage_random[dirs[0]];
    let mut notes = Vec::new();
    let (size_bytes, size_pct) = match j.size {
        Some(SizeSpec::Bytes(b)) => (Some(b), None),
        Some(SizeSpec::Percent(p)) => (None, Some(p)),
        None => (None, None),
    };
    if size_bytes.is_some() || size_pct.is_some_and(|p| p < 100.0) {
        notes.push(
            "size: the real run's region is not the whole drive; the simulated runs span the whole user \
                    capacity (OP effects need the drive's full mapping)"
                .into(),
        );
    }
    let read = WorkloadRead {
        rw: j.rw.as_str().into(),
        bs_bytes,
        bssplit,
        rwmixread,
        iodepth: j.iodepth,
        numjobs: j.numjobs,
        size_bytes,
        size_pct,
    };
    let w = Workload {
        rw: j.rw,
        bs,
        rwmixread: rwmixread.filter(|m| *m != 0 && *m != 100),
        percentage_random: (j.rw.is_random() && pct_random != 100).then_some(pct_random),
        iodepth: j.iodepth,
        numjobs: j.numjobs,
        mean_bytes,
    };
    Ok((w, read, notes))
}
