//! SNIA SSS PTS-E: IOPS, Throughput, Latency and WSAT tests.
//!
//! Each test (or, for Throughput, each block size) is a *segment*: purge, workload-independent
//! preconditioning (2x user capacity of SEQ 128 KiB), then rounds of the test's cell matrix
//! (1 minute per cell, full-scale) until the tracking variable reaches steady state
//! ([`super::steady`]) or [`steady::MAX_ROUNDS`] rounds pass. On the simulator every duration is
//! divided by the scale factor (see [`super::Bench::time_scale`]), so a cell writes the same
//! fraction of the drive as a one-minute cell on the full-size drive.
//! WSAT writes 4 KiB random for 4x the user capacity (or 24 h) from purge, without rounds.

use super::steady::{self, Determination};
use super::{r6, Bench, Ctl, Perf, SuiteError};
use crate::job::build::{size_text, JobFileBuilder};
use crate::job::{JobError, JobFile, RwMode};
use serde::Serialize;

/// Which PTS-E test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PtsTest {
    Iops,
    Throughput,
    Latency,
    Wsat,
}

impl PtsTest {
    pub fn name(self) -> &'static str {
        match self {
            PtsTest::Iops => "iops",
            PtsTest::Throughput => "throughput",
            PtsTest::Latency => "latency",
            PtsTest::Wsat => "wsat",
        }
    }
}

/// R/W mixes of the IOPS test, read percent.
pub const IOPS_MIXES: [u32; 7] = [100, 95, 65, 50, 35, 5, 0];
/// Block sizes of the IOPS test, bytes, in the PTS order (largest first).
pub const IOPS_BS: [u32; 8] = [1 << 20, 128 << 10, 64 << 10, 32 << 10, 16 << 10, 8 << 10, 4 << 10, 512];

/// Test options; recorded in the result JSON.
#[derive(Clone, Debug, Serialize)]
pub struct PtsOptions {
    pub test: PtsTest,
    /// Threads (fio numjobs) of every cell; the Latency test always uses 1.
    pub threads: u32,
    /// Outstanding I/Os per thread; the Latency test always uses 1.
    pub qd: u32,
    /// Full-scale seconds per cell (PTS: 60).
    pub cell_s: f64,
    /// Round limit (PTS: 25).
    pub max_rounds: usize,
    /// Preconditioning passes of SEQ 128 KiB over the user capacity (PTS: 2).
    pub precondition_passes: u32,
    /// WSAT: user capacities of 4 KiB random writes (PTS: 4) and time cap in full-scale seconds.
    pub wsat_capacities: f64,
    pub wsat_max_s: f64,
}

impl PtsOptions {
    /// PTS-E defaults; threads x QD as in the p4420 rows of measured.csv (T4Q32 for IOPS and
    /// WSAT, T1Q32 for Throughput), T1Q1 for Latency.
    pub fn new(test: PtsTest) -> Self {
        let (threads, qd) = match test {
            PtsTest::Iops | PtsTest::Wsat => (4, 32),
            PtsTest::Throughput => (1, 32),
            PtsTest::Latency => (1, 1),
        };
        PtsOptions {
            test,
            threads,
            qd,
            cell_s: 60.0,
            max_rounds: steady::MAX_ROUNDS,
            precondition_passes: 2,
            wsat_capacities: 4.0,
            wsat_max_s: 86_400.0,
        }
    }

    pub fn validate(&self) -> Result<(), SuiteError> {
        let bad = |option, problem: &str| Err(SuiteError::BadOption { option, problem: problem.into() });
        if !(1..=1024).contains(&self.threads) || !(1..=4096).contains(&self.qd) {
            return bad("threads/qd", "allowed threads 1..=1024, qd 1..=4096");
        }
        if !(self.cell_s.is_finite() && self.cell_s >= 0.001) {
            return bad("cell_s", "allowed >= 0.001 s");
        }
        if !(steady::WINDOW_ROUNDS..=steady::MAX_ROUNDS).contains(&self.max_rounds) {
            return bad("max_rounds", "allowed 5..=25");
        }
        if !(self.wsat_capacities > 0.0 && self.wsat_capacities <= 100.0) {
            return bad("wsat_capacities", "allowed (0, 100]");
        }
        Ok(())
    }
}

/// One cell of a round: an access pattern at one block size.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Cell {
    pub read_pct: u32,
    pub bs_bytes: u32,
    pub sequential: bool,
}

/// Tracking variable of a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tracking {
    Iops,
    WriteMbps,
    MeanLatencyUs,
}

impl Tracking {
    pub fn of(self, p: &Perf) -> f64 {
        match self {
            Tracking::Iops => p.iops,
            Tracking::WriteMbps => p.write_mbps,
            Tracking::MeanLatencyUs => p.lat.mean_us,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Tracking::Iops => "IOPS",
            Tracking::WriteMbps => "write MB/s",
            Tracking::MeanLatencyUs => "mean latency (us)",
        }
    }
}

/// A purge + precondition + rounds unit with its own steady-state determination.
#[derive(Clone, Debug, Serialize)]
pub struct Segment {
    pub name: String,
    pub cells: Vec<Cell>,
    /// Index into `cells` of the tracking cell.
    pub tracking_cell: usize,
    pub tracking: Tracking,
    pub threads: u32,
    pub qd: u32,
    /// Per round, per cell.
    pub rounds: Vec<Vec<Perf>>,
    pub tracking_values: Vec<f64>,
    pub determination: Option<Determination>,
    pub precondition: Option<Perf>,
}

impl Segment {
    pub fn reached(&self) -> bool {
        self.determination.as_ref().is_some_and(|d| d.reached)
    }

    /// Rounds of the measurement window (the last five run).
    pub fn window(&self) -> &[Vec<Perf>] {
        &self.rounds[self.rounds.len().saturating_sub(steady::WINDOW_ROUNDS)..]
    }

    /// Window averages per cell (mean of means; max of maxima).
    pub fn window_table(&self) -> Vec<CellAverage> {
        let w = self.window();
        let n = w.len().max(1) as f64;
        self.cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let avg = |f: &dyn Fn(&Perf) -> f64| r6(w.iter().filter_map(|r| r.get(i)).map(f).sum::<f64>() / n);
                CellAverage {
                    cell: *c,
                    iops: avg(&|p| p.iops),
                    mbps: avg(&|p| p.mbps),
                    read_mbps: avg(&|p| p.read_mbps),
                    write_mbps: avg(&|p| p.write_mbps),
                    mean_us: avg(&|p| p.lat.mean_us),
                    p99_999_us: avg(&|p| p.lat.p99_999_us),
                    max_us: r6(w.iter().filter_map(|r| r.get(i)).map(|p| p.lat.max_us).fold(0.0, f64::max)),
                    write_amplification: w.iter().filter_map(|r| r.get(i)?.write_amplification).next_back().map(r6),
                }
            })
            .collect()
    }
}

/// Measurement-window average of one cell.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CellAverage {
    pub cell: Cell,
    pub iops: f64,
    pub mbps: f64,
    pub read_mbps: f64,
    pub write_mbps: f64,
    pub mean_us: f64,
    pub p99_999_us: f64,
    pub max_us: f64,
    pub write_amplification: Option<f64>,
}

/// The segments a test runs, before any I/O.
pub fn plan(o: &PtsOptions) -> Vec<Segment> {
    let seg = |name: String, cells: Vec<Cell>, tracking_cell, tracking, threads, qd| Segment {
        name,
        cells,
        tracking_cell,
        tracking,
        threads,
        qd,
        rounds: Vec::new(),
        tracking_values: Vec::new(),
        determination: None,
        precondition: None,
    };
    let grid = |mixes: &[u32], sizes: &[u32]| -> Vec<Cell> {
        mixes
            .iter()
            .flat_map(|&m| sizes.iter().map(move |&b| Cell { read_pct: m, bs_bytes: b, sequential: false }))
            .collect()
    };
    match o.test {
        PtsTest::Iops => {
            let cells = grid(&IOPS_MIXES, &IOPS_BS);
            let t = cells.iter().position(|c| c.read_pct == 0 && c.bs_bytes == 4096).unwrap_or(0);
            vec![seg("iops".into(), cells, t, Tracking::Iops, o.threads, o.qd)]
        }
        PtsTest::Throughput => [128 << 10, 1 << 20]
            .iter()
            .map(|&bs| {
                let cells = vec![
                    Cell { read_pct: 100, bs_bytes: bs, sequential: true },
                    Cell { read_pct: 0, bs_bytes: bs, sequential: true },
                ];
                seg(format!("throughput-{}", size_text(bs)), cells, 1, Tracking::WriteMbps, o.threads, o.qd)
            })
            .collect(),
        PtsTest::Latency => {
            let cells = grid(&[100, 65, 0], &[8 << 10, 4 << 10, 512]);
            let t = cells.iter().position(|c| c.read_pct == 0 && c.bs_bytes == 4096).unwrap_or(0);
            vec![seg("latency".into(), cells, t, Tracking::MeanLatencyUs, 1, 1)]
        }
        PtsTest::Wsat => Vec::new(),
    }
}

/// One cell, stonewalled so cells run one after another.
///
/// Every cell draws uniformly random offsets (no random map) from a seed of its own round: with
/// fio's defaults each round would replay the previous round's offsets cell by cell, its writes
/// would invalidate the blocks the previous round filled in the order it filled them, and GC
/// would be nearly free.
fn cell_job(b: &mut JobFileBuilder, name: &str, c: &Cell, threads: u32, qd: u32, cell_s: f64) {
    let rw = match (c.sequential, c.read_pct) {
        (true, 100) => RwMode::Read,
        (true, 0) => RwMode::Write,
        (true, _) => RwMode::ReadWrite,
        (false, 100) => RwMode::RandRead,
        (false, 0) => RwMode::RandWrite,
        (false, _) => RwMode::RandRw,
    };
    let mut job = b.job(name).stonewall().rw(rw);
    if rw.is_mixed() {
        job = job.rwmixread(c.read_pct);
    }
    job.bs(c.bs_bytes).iodepth(qd).numjobs(threads).group_reporting().fresh_uniform_offsets().time_based_for(cell_s);
}

/// The preconditioning job: `passes` x user capacity of SEQ 128 KiB at QD32 (`passes` >= 1).
pub fn precondition_file(file: &str, passes: u32) -> Result<JobFile, JobError> {
    let mut b = JobFileBuilder::new(file);
    b.job("precondition").rw(RwMode::Write).bs(128 << 10).iodepth(32).size_percent(100.0).loops(passes);
    b.build()
}

/// Workload-independent preconditioning: `passes` x user capacity of SEQ 128 KiB at QD32.
pub fn precondition(
    bench: &mut dyn Bench,
    passes: u32,
    ctl: &mut Ctl,
    span: (f64, f64),
) -> Result<Option<Perf>, SuiteError> {
    if passes == 0 {
        return Ok(None);
    }
    let r = bench.run_job(&precondition_file("precondition.fio", passes)?, ctl, "precondition", span)?;
    Ok(r.jobs.first().map(|j| Perf::of(j, bench)))
}

/// Runs the segments of `o.test` (not WSAT: `pts_report::run` runs that as a FOB curve,
/// [`super::fob::run_curve`]); stops early on Ctrl-C.
/// Returns the segments and whether the run was interrupted.
pub fn run_rounds(bench: &mut dyn Bench, o: &PtsOptions, ctl: &mut Ctl) -> Result<(Vec<Segment>, bool), SuiteError> {
    o.validate()?;
    let mut segs = plan(o);
    let nseg = segs.len().max(1) as f64;
    for (si, seg) in segs.iter_mut().enumerate() {
        let at = |f: f64| (si as f64 + f) / nseg;
        bench.purge()?;
        seg.precondition = precondition(bench, o.precondition_passes, ctl, (at(0.0), at(0.1)))?;
        if ctl.stopped() {
            return Ok((segs, true));
        }
        for round in 1..=o.max_rounds {
            let mut b = JobFileBuilder::new(&format!("{}-round{round}.fio", seg.name));
            for (i, c) in seg.cells.iter().enumerate() {
                cell_job(&mut b, &format!("r{round}-c{i}"), c, seg.threads, seg.qd, o.cell_s);
            }
            let job = b.build()?;
            let span = (
                at(0.1 + 0.9 * (round - 1) as f64 / o.max_rounds as f64),
                at(0.1 + 0.9 * round as f64 / o.max_rounds as f64),
            );
            let label = format!("{} round {round}", seg.name);
            let r = bench.run_job(&job, ctl, &label, span)?;
            let perfs: Vec<Perf> = r.jobs.iter().map(|j| Perf::of(j, bench)).collect();
            if r.interrupted || perfs.len() != seg.cells.len() {
                return Ok((segs, true));
            }
            seg.tracking_values.push(seg.tracking.of(&perfs[seg.tracking_cell]));
            seg.rounds.push(perfs);
            seg.determination = steady::latest(&seg.tracking_values);
            if seg.reached() {
                break;
            }
        }
    }
    Ok((segs, false))
}
