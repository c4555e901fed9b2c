//! Parameter sweeps: one fio job file run on a grid of drive configurations (user capacity, i.e.
//! OP, x power state x power cap x seeds), in parallel over the machine's cores, optionally one
//! shard of the grid per machine (`shard K/N`), with a merge step that joins the shards' tables.
//!
//! Determinism: the grid order is fixed (capacity, then power state, then cap, then seed), every
//! point's seed is drawn from the master seed's [`StreamId::Sweep`] stream at the point's index,
//! and rows are sorted by index before writing, so the table does not depend on thread
//! scheduling, on the number of threads, or on how the grid was sharded.

pub mod checkpoint;
pub mod fork;
mod parallel;
pub mod plot;
pub mod slurm;

use crate::job::JobFile;
use crate::simrun::{resolve_cap, SimConfig, SimError, SimSession};
use ftl::profile;
use nand_model::rng::{RngStreams, StreamId};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::atomic::AtomicBool;

/// File names of a sweep directory.
pub const TABLE_CSV: &str = "sweep.csv";
pub const TABLE_JSON: &str = "sweep.json";
pub const SHARD_JSON: &str = "shard.json";

/// What to sweep.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SweepSpec {
    /// Path of the job file as given (recorded, not re-read).
    pub job_file: String,
    /// Template for every point (drive, scale, policy, master seed).
    pub base: SimConfig,
    /// User capacities at full scale, bytes; `None` = the profile's stock capacity.
    pub user_capacities: Vec<Option<u64>>,
    /// Power states; `None` = no power state.
    pub power_states: Vec<Option<usize>>,
    /// Power caps, W; `None` = no explicit cap.
    pub power_caps_w: Vec<Option<f64>>,
    /// Seeds per configuration.
    pub seeds: u32,
    /// Precondition once per user capacity and seed, then fork the power settings from that
    /// drive ([`fork`]); false = every point preconditions itself.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub precondition_once: bool,
}

/// One point of the grid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub index: usize,
    pub user_capacity_bytes: Option<u64>,
    pub power_state: Option<usize>,
    pub power_cap_w: Option<f64>,
    pub seed_index: u32,
    pub seed: u64,
}

/// `K/N`: run points with `index % N == K`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub k: u32,
    pub n: u32,
}

impl Shard {
    pub const WHOLE: Shard = Shard { k: 0, n: 1 };

    /// "3/16" -> shard 3 of 16 (0-based, as `$SLURM_ARRAY_TASK_ID`).
    pub fn parse(s: &str) -> Result<Shard, String> {
        let (k, n) = s.trim().split_once('/').ok_or("expected K/N, e.g. 3/16")?;
        let k: u32 = k.trim().parse().map_err(|_| "K is not a number")?;
        let n: u32 = n.trim().parse().map_err(|_| "N is not a number")?;
        if n == 0 || k >= n {
            return Err(format!("allowed 0 <= K < N, got {k}/{n}"));
        }
        Ok(Shard { k, n })
    }

    pub fn contains(&self, index: usize) -> bool {
        index % self.n as usize == self.k as usize
    }
}

/// One row of the result table: the configuration and what the last job of the file measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub index: usize,
    pub drive: String,
    pub user_capacity_bytes: u64,
    pub op_pct: f64,
    pub power_state: Option<usize>,
    /// The cap in force, W (power state and/or explicit cap).
    pub power_cap_w: Option<f64>,
    pub seed_index: u32,
    pub seed: u64,
    pub job: String,
    pub read_iops: f64,
    pub write_iops: f64,
    pub read_p99_us: f64,
    pub write_p99_us: f64,
    pub write_amplification: f64,
    pub avg_power_w: f64,
    pub peak_power_w: f64,
    pub iops_per_w: f64,
    pub energy_per_io_uj: f64,
    pub throttled_pct: f64,
}

/// Column names of [`TABLE_CSV`], in order.
pub const CSV_HEADER: &str = "index,drive,user_capacity_bytes,op_pct,power_state,power_cap_w,seed_index,seed,job,read_iops,write_iops,read_p99_us,write_p99_us,write_amplification,avg_power_w,peak_power_w,iops_per_w,energy_per_io_uj,throttled_pct";

/// The table files of a directory: spec, and the rows it holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub version: String,
    pub spec: SweepSpec,
    pub points_total: usize,
    pub rows: Vec<Row>,
    /// A stop signal ended the sweep: `rows` are the points that finished (absent when false,
    /// so a finished sweep's files are as before).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
}

/// Why a sweep failed.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    /// Bad configuration (exit code 2 at the CLI).
    #[error(transparent)]
    Config(#[from] SimError),
    #[error("point {index}: {message}")]
    Run { index: usize, message: String },
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("merge: {0}")]
    Merge(String),
}

impl SweepSpec {
    /// Every point, in index order.
    pub fn grid(&self) -> Vec<Point> {
        let streams = RngStreams::new(self.base.seed);
        let mut pts = Vec::new();
        for &cap_bytes in &self.user_capacities {
            for &ps in &self.power_states {
                for &cap_w in &self.power_caps_w {
                    for s in 0..self.seeds.max(1) {
                        let index = pts.len();
                        let seed = streams.seed_for(StreamId::Sweep, index as u64);
                        pts.push(Point {
                            index,
                            user_capacity_bytes: cap_bytes,
                            power_state: ps,
                            power_cap_w: cap_w,
                            seed_index: s,
                            seed,
                        });
                    }
                }
            }
        }
        pts
    }

    pub(crate) fn config(&self, p: &Point) -> SimConfig {
        let mut c = self.base.clone();
        c.seed = p.seed;
        c.user_capacity_bytes = p.user_capacity_bytes.or(self.base.user_capacity_bytes);
        c.power_state = p.power_state;
        c.power_cap_w = p.power_cap_w;
        c
    }

    /// Checks every point's drive and power settings before anything runs.
    pub fn validate(&self) -> Result<(), SweepError> {
        let prof = profile::load(&self.base.drive).map_err(SimError::from)?;
        for p in self.grid() {
            resolve_cap(&self.config(&p), &prof)?;
        }
        Ok(())
    }
}

/// Rounds to 6 decimals so values survive a text round trip unchanged (merge == whole).
fn r6(x: f64) -> f64 {
    if x.is_finite() {
        (x * 1e6).round() / 1e6
    } else {
        0.0
    }
}

/// Runs one point.
pub fn run_point(spec: &SweepSpec, job: &JobFile, p: &Point) -> Result<Row, SweepError> {
    run_point_until(spec, job, p, None)?.ok_or_else(|| SweepError::Run { index: p.index, message: "stopped".into() })
}

/// Runs one point until `stop` is set: `None` when it was (the point did not finish).
pub fn run_point_until(
    spec: &SweepSpec,
    job: &JobFile,
    p: &Point,
    stop: Option<&AtomicBool>,
) -> Result<Option<Row>, SweepError> {
    let err = |message: String| SweepError::Run { index: p.index, message };
    let mut s = SimSession::new(spec.config(p))?;
    let r = s.run(job, stop, None).map_err(|e| err(e.to_string()))?;
    if r.interrupted {
        return Ok(None);
    }
    row_of(&s, &r, p).map(Some)
}

/// The table row of point `p` from its session and run: the file's last job.
pub fn row_of(s: &SimSession, r: &crate::runner::RunResult, p: &Point) -> Result<Row, SweepError> {
    let err = |message: String| SweepError::Run { index: p.index, message };
    let j = r.jobs.last().ok_or_else(|| err("the job file has no jobs".into()))?;
    let x = s.job_stats(j);
    let fig = crate::report::job_figures(j, r);
    let f = r6;
    let iops = |d: &Option<crate::report::DirFigures>| r6(d.as_ref().map_or(0.0, |d| d.iops));
    let p99 =
        |d: &Option<crate::report::DirFigures>| r6(d.as_ref().and_then(|d| d.percentile_ns(99.0)).unwrap_or(0.0) / 1e3);
    Ok(Row {
        index: p.index,
        drive: s.profile.profile.name.clone(),
        user_capacity_bytes: x.user_capacity_bytes,
        op_pct: f(x.op_pct),
        power_state: p.power_state,
        power_cap_w: s.power_cap_w.map(r6),
        seed_index: p.seed_index,
        seed: p.seed,
        job: fig.name,
        read_iops: iops(&fig.read),
        write_iops: iops(&fig.write),
        read_p99_us: p99(&fig.read),
        write_p99_us: p99(&fig.write),
        write_amplification: f(x.write_amplification),
        avg_power_w: f(x.avg_power_w),
        peak_power_w: f(x.peak_power_w),
        iops_per_w: f(x.iops_per_w),
        energy_per_io_uj: f(x.energy_per_io_uj),
        throttled_pct: f(x.throttled_pct),
    })
}

/// Runs the points of `shard` on `threads` threads; rows come back in index order.
pub fn run(
    spec: &SweepSpec,
    job: &JobFile,
    shard: Shard,
    threads: usize,
    on_done: &(dyn Fn(&Row) + Sync),
) -> Result<Table, SweepError> {
    let report = |r: &Row| {
        on_done(r);
        Ok(())
    };
    run_with(spec, job, shard, &SweepControl { threads, stop: None, done: Vec::new(), on_done: &report, cache: None })
}

/// How a sweep runs besides its grid: threads, a stop token, points already finished.
pub struct SweepControl<'a> {
    pub threads: usize,
    /// When set, running points stop (and are dropped), no new point starts and the table of
    /// the finished ones comes back marked `interrupted`.
    pub stop: Option<&'a AtomicBool>,
    /// Rows finished earlier (a resumed sweep): kept, not run again.
    pub done: Vec<Row>,
    /// Called from the worker threads with each row as it finishes (checkpoint, progress); an
    /// error fails the sweep.
    pub on_done: &'a (dyn Fn(&Row) -> Result<(), SweepError> + Sync),
    /// Where forked sweeps keep their preconditioned drives as snapshots, shared by shards
    /// ([`fork`]); `None` = in memory only.
    pub cache: Option<&'a Path>,
}

/// [`run`] with a stop token and earlier rows.
pub fn run_with(spec: &SweepSpec, job: &JobFile, shard: Shard, c: &SweepControl) -> Result<Table, SweepError> {
    spec.validate()?;
    let grid = spec.grid();
    let have: std::collections::HashSet<usize> = c.done.iter().map(|r| r.index).collect();
    let points: Vec<&Point> = grid.iter().filter(|p| shard.contains(p.index) && !have.contains(&p.index)).collect();
    let results = match fork::split(job).filter(|_| spec.precondition_once) {
        Some((prefix, suffix)) => parallel::forked(spec, &prefix, &suffix, &points, c),
        None => parallel::each(spec, job, &points, c),
    };
    let mut rows = c.done.clone();
    for r in results? {
        rows.push(r?);
    }
    rows.sort_by_key(|r| r.index);
    let expected = grid.iter().filter(|p| shard.contains(p.index)).count();
    Ok(Table {
        version: env!("CARGO_PKG_VERSION").to_string(),
        spec: spec.clone(),
        points_total: grid.len(),
        interrupted: rows.len() < expected,
        rows,
    })
}

/// One line of [`TABLE_CSV`]: its field names are [`CSV_HEADER`]. Reals are written with
/// `Display` (shortest exact form, `1` not `1.0`), as the table has always been.
#[derive(Serialize)]
struct CsvRow<'a> {
    index: usize,
    drive: &'a str,
    user_capacity_bytes: u64,
    op_pct: String,
    power_state: Option<usize>,
    power_cap_w: Option<String>,
    seed_index: u32,
    seed: u64,
    /// Commas and line ends as `_`, so the column needs no quoting.
    job: String,
    read_iops: String,
    write_iops: String,
    read_p99_us: String,
    write_p99_us: String,
    write_amplification: String,
    avg_power_w: String,
    peak_power_w: String,
    iops_per_w: String,
    energy_per_io_uj: String,
    throttled_pct: String,
}

impl<'a> From<&'a Row> for CsvRow<'a> {
    fn from(r: &'a Row) -> Self {
        CsvRow {
            index: r.index,
            drive: &r.drive,
            user_capacity_bytes: r.user_capacity_bytes,
            op_pct: r.op_pct.to_string(),
            power_state: r.power_state,
            power_cap_w: r.power_cap_w.map(|w| w.to_string()),
            seed_index: r.seed_index,
            seed: r.seed,
            job: r.job.replace([',', '\n'], "_"),
            read_iops: r.read_iops.to_string(),
            write_iops: r.write_iops.to_string(),
            read_p99_us: r.read_p99_us.to_string(),
            write_p99_us: r.write_p99_us.to_string(),
            write_amplification: r.write_amplification.to_string(),
            avg_power_w: r.avg_power_w.to_string(),
            peak_power_w: r.peak_power_w.to_string(),
            iops_per_w: r.iops_per_w.to_string(),
            energy_per_io_uj: r.energy_per_io_uj.to_string(),
            throttled_pct: r.throttled_pct.to_string(),
        }
    }
}

/// The table as CSV (fixed column order, one row per point; the header alone when empty).
pub fn to_csv(t: &Table) -> Result<String, csv::Error> {
    if t.rows.is_empty() {
        return Ok(format!("{CSV_HEADER}\n"));
    }
    crate::report::csv_rows(t.rows.iter().map(CsvRow::from))
}

/// Writes `sweep.csv`, `sweep.json` (and `shard.json` for a shard) and the plots into `dir`. Each
/// table file is written whole (see `write_whole`); `sweep.json` comes after `sweep.csv`, so a
/// complete `sweep.json` means the directory's table is complete.
pub fn write_dir(dir: &Path, t: &Table, shard: Shard) -> Result<(), SweepError> {
    let io = |p: &Path, e: std::io::Error| SweepError::Io { path: p.display().to_string(), message: e.to_string() };
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let write = |name: &str, text: &str| write_whole(&dir.join(name), text);
    let csv = to_csv(t)
        .map_err(|e| SweepError::Io { path: dir.join(TABLE_CSV).display().to_string(), message: e.to_string() })?;
    write(TABLE_CSV, &csv)?;
    let json = serde_json::to_string_pretty(t).map_err(|e| SweepError::Merge(e.to_string()))?;
    write(TABLE_JSON, &format!("{json}\n"))?;
    if shard != Shard::WHOLE {
        let m = serde_json::json!({"shard": format!("{}/{}", shard.k, shard.n), "rows": t.rows.len(), "points_total": t.points_total});
        write(SHARD_JSON, &format!("{m:#}\n"))?;
    } else {
        let _ = std::fs::remove_file(dir.join(SHARD_JSON));
    }
    if t.rows.len() == t.points_total {
        plot::write_all(dir, t).map_err(|e| SweepError::Io { path: dir.display().to_string(), message: e })?;
    }
    Ok(())
}

/// Writes `text` to `path` whole: a temporary name in the same directory renamed over it, so a
/// reader on a shared filesystem (a merge, a follower) sees the old file, the new one or none,
/// never half of one.
pub(crate) fn write_whole(path: &Path, text: &str) -> Result<(), SweepError> {
    let io = |p: &Path, e: std::io::Error| SweepError::Io { path: p.display().to_string(), message: e.to_string() };
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    let tmp = path.with_file_name(name);
    std::fs::write(&tmp, text).map_err(|e| io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| io(path, e))
}

/// Reads a directory's `sweep.json`.
pub fn read_dir(dir: &Path) -> Result<Table, SweepError> {
    let p = dir.join(TABLE_JSON);
    let text = std::fs::read_to_string(&p)
        .map_err(|e| SweepError::Io { path: p.display().to_string(), message: e.to_string() })?;
    serde_json::from_str(&text).map_err(|e| SweepError::Io { path: p.display().to_string(), message: e.to_string() })
}

/// Joins shard tables of one sweep: same spec, disjoint rows, together the whole grid.
pub fn merge(parts: Vec<Table>) -> Result<Table, SweepError> {
    merge_named(parts.into_iter().enumerate().map(|(i, t)| (format!("piece {}", i + 1), t)).collect())
}

/// [`merge`] of pieces named by where they came from (a shard's directory), so an error names
/// the pieces as well as the points: every duplicated point with the pieces holding it, the
/// missing points, a piece of another sweep.
pub fn merge_named(parts: Vec<(String, Table)>) -> Result<Table, SweepError> {
    const SHOWN: usize = 20;
    let mut it = parts.into_iter();
    let (first, mut whole) = it.next().ok_or_else(|| SweepError::Merge("no directories given".into()))?;
    let mut source: Vec<(usize, String)> = whole.rows.iter().map(|r| (r.index, first.clone())).collect();
    for (name, t) in it {
        if t.spec != whole.spec || t.points_total != whole.points_total {
            return Err(SweepError::Merge(format!(
                "{name} is of a different sweep than {first} (job, drive, grid or master seed differ)"
            )));
        }
        source.extend(t.rows.iter().map(|r| (r.index, name.clone())));
        whole.rows.extend(t.rows);
    }
    source.sort();
    let mut dups: Vec<String> = Vec::new();
    for w in source.chunk_by(|a, b| a.0 == b.0).filter(|g| g.len() > 1) {
        dups.push(format!("{} (in {})", w[0].0, w.iter().map(|(_, n)| n.as_str()).collect::<Vec<_>>().join(" and ")));
    }
    if !dups.is_empty() {
        let more = dups.len().saturating_sub(SHOWN);
        dups.truncate(SHOWN);
        return Err(SweepError::Merge(format!(
            "{} point(s) appear more than once: {}{}",
            dups.len() + more,
            dups.join(", "),
            if more > 0 { format!(", and {more} more") } else { String::new() }
        )));
    }
    whole.rows.sort_by_key(|r| r.index);
    whole.interrupted = false;
    if whole.rows.len() != whole.points_total {
        let have: std::collections::HashSet<usize> = whole.rows.iter().map(|r| r.index).collect();
        let missing: Vec<usize> = (0..whole.points_total).filter(|i| !have.contains(i)).collect();
        let shown: Vec<String> = missing.iter().take(SHOWN).map(usize::to_string).collect();
        return Err(SweepError::Merge(format!(
            "{} of {} points present; missing point(s) {}{}",
            whole.rows.len(),
            whole.points_total,
            shown.join(", "),
            if missing.len() > SHOWN { format!(", and {} more", missing.len() - SHOWN) } else { String::new() }
        )));
    }
    Ok(whole)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> SweepSpec {
        SweepSpec {
            job_file: "x.fio".into(),
            base: SimConfig::new("tiny", 7),
            user_capacities: vec![None, Some(70 << 20)],
            power_states: vec![Some(0), Some(2)],
            power_caps_w: vec![None],
            seeds: 2,
            precondition_once: false,
        }
    }

    #[test]
    fn grid_order_and_seeds_are_fixed() {
        let g = spec().grid();
        assert_eq!(g.len(), 8);
        assert_eq!((g[3].user_capacity_bytes, g[3].power_state, g[3].seed_index), (None, Some(2), 1));
        assert_eq!(g, spec().grid());
        let seeds: std::collections::HashSet<u64> = g.iter().map(|p| p.seed).collect();
        assert_eq!(seeds.len(), 8);
    }

    #[test]
    fn shards_partition_the_grid() {
        assert_eq!(Shard::parse("3/16"), Ok(Shard { k: 3, n: 16 }));
        assert!(Shard::parse("16/16").is_err());
        let g = spec().grid();
        for i in 0..g.len() {
            assert_eq!((0..3).filter(|k| Shard { k: *k, n: 3 }.contains(i)).count(), 1);
        }
    }

    /// The serde row's header is the documented one, reals are written as `Display` writes them,
    /// an absent power setting is an empty cell, and a job name cannot add a column.
    #[test]
    fn csv_rows_keep_the_header_and_number_format() {
        let row = Row {
            index: 3,
            drive: "tiny".into(),
            user_capacity_bytes: 70 << 20,
            op_pct: 28.0,
            power_state: None,
            power_cap_w: Some(2.5),
            seed_index: 1,
            seed: 9,
            job: "a,b".into(),
            read_iops: 0.0,
            write_iops: 1234.5,
            read_p99_us: 0.0,
            write_p99_us: 80.25,
            write_amplification: 1.0,
            avg_power_w: 2.0,
            peak_power_w: 2.5,
            iops_per_w: 617.25,
            energy_per_io_uj: 1620.0,
            throttled_pct: 0.0,
        };
        let t = Table { version: "0".into(), spec: spec(), points_total: 1, rows: vec![row], interrupted: false };
        let csv = to_csv(&t).unwrap();
        assert_eq!(
            csv,
            format!("{CSV_HEADER}\n3,tiny,73400320,28,,2.5,1,9,a_b,0,1234.5,0,80.25,1,2,2.5,617.25,1620,0\n")
        );
    }
}
