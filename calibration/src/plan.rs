//! Workload mapping: what a measured row means as a simulated run.
//!
//! A row becomes a [`Plan`]: which drive at which user capacity, which preconditioning (a
//! sequential fill; for random-write and mixed figures in steady state also random writes to
//! steady state), the fio workload of the measurement, and the metric to read from its result.
//! Empty qd/jobs columns take the named tool's documented default for that test; every default
//! and interpretation is recorded in [`Plan::assumptions`] so the report shows it per row.

use crate::apps;
use crate::measured::MeasuredRow;
use host_bench::job::{BsSplitEntry, RwMode};

/// What to read from a measurement's fio result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Metric {
    /// Read + write IOPS.
    Iops,
    /// Read + write MB/s (decimal).
    Bandwidth,
    /// Mean completion latency, us.
    MeanLatency,
    /// Completion-latency percentile (e.g. 99.0), us.
    Percentile(f64),
    /// Coefficient of variation of per-second IOPS, %.
    Cov,
    /// Mean drive power, W.
    Power,
    /// IOPS under the row's power cap over IOPS of the same workload without a cap.
    RelativeIops,
}

impl Metric {
    /// IOPS and bandwidth are the figures the acceptance median is taken over.
    pub fn is_throughput(self) -> bool {
        matches!(self, Metric::Iops | Metric::Bandwidth)
    }

    pub fn name(self) -> String {
        match self {
            Metric::Iops => "iops".into(),
            Metric::Bandwidth => "bandwidth".into(),
            Metric::MeanLatency => "mean_latency".into(),
            Metric::Percentile(p) => format!("p{p}_latency"),
            Metric::Cov => "cov".into(),
            Metric::Power => "power".into(),
            Metric::RelativeIops => "relative_iops".into(),
        }
    }
}

/// When a measurement runs on its group's drive: reads need only the fill; sequential writes
/// come next; random writes (which need, and leave, a randomly written drive) last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Phase {
    Read,
    SeqWrite,
    Random,
}

/// The fio workload of one measurement.
#[derive(Clone, Debug, PartialEq)]
pub struct Workload {
    /// fio `rw`.
    pub rw: RwMode,
    /// fio `bs` or, for application profiles, `bssplit`.
    pub bs: BlockSize,
    pub rwmixread: Option<u32>,
    pub percentage_random: Option<u32>,
    pub iodepth: u32,
    pub numjobs: u32,
    /// Mean bytes per I/O (sizes the run).
    pub mean_bytes: f64,
}

/// fio `bs` (one size for every direction) or `bssplit` (a mix per direction: read, write,
/// trim), as the job parser would resolve them.
#[derive(Clone, Debug, PartialEq)]
pub enum BlockSize {
    Bytes(u32),
    Split([Vec<BsSplitEntry>; 3]),
}

/// One row as a simulated run.
#[derive(Clone, Debug)]
pub struct Plan {
    pub id: String,
    /// Profile name or path given to the simulator.
    pub drive: String,
    /// Full-scale user capacity (None = the profile's stock capacity).
    pub user_capacity_bytes: Option<u64>,
    /// The row's power cap, W: the drive runs under the power governor at that cap (a cap at
    /// PS0 is the drive's own limit, so it is applied too).
    pub power_cap_w: Option<f64>,
    /// Random-write preconditioning before the Random phase (state = steady).
    pub steady: bool,
    pub phase: Phase,
    pub workload: Workload,
    pub metric: Metric,
    pub measured: f64,
    pub unit: String,
    pub assumptions: Vec<String>,
}

/// Facts about a drive profile the mapping needs.
pub struct DriveFacts {
    /// Maximum power of PS0, W: a cap at or above it does not limit the drive.
    pub ps0_w: f64,
    /// Maximum power of every power state (PS0, PS1, ...), W.
    pub states_w: Vec<f64>,
}

/// A row is either run or skipped with a reason.
pub enum Mapping {
    Run(Box<Plan>),
    Skip(String),
}

/// Maps one measured row. `facts` answers for known drives only.
pub fn map_row(row: &MeasuredRow, facts: &dyn Fn(&str) -> Option<DriveFacts>) -> Mapping {
    match map_inner(row, facts) {
        Ok(p) => Mapping::Run(Box::new(p)),
        Err(reason) => Mapping::Skip(reason),
    }
}

fn metric_of(row: &MeasuredRow) -> Result<Metric, String> {
    let (m, unit) = match row.metric.as_str() {
        "iops" => (Metric::Iops, "iops"),
        "bandwidth" => (Metric::Bandwidth, "MB/s"),
        "mean_latency" => (Metric::MeanLatency, "us"),
        "p99_latency" => (Metric::Percentile(99.0), "us"),
        "p99.9_latency" => (Metric::Percentile(99.9), "us"),
        "p99.99_latency" => (Metric::Percentile(99.99), "us"),
        "cov" => (Metric::Cov, "percent"),
        "power" => (Metric::Power, "W"),
        "relative_iops" => (Metric::RelativeIops, "ratio"),
        "time_to_steady_state" => {
            return Err("time to steady state from FOB through a filesystem (NTFS) and a tool (iometer) the simulator \
                        does not model"
                .into())
        }
        "host_written" => return Err("a note on the reviewer's preconditioning, not a performance figure".into()),
        "read_latency" if row.tool == "vendor" => return Err("a vendor upper bound, not a measurement".into()),
        other => return Err(format!("metric `{other}` is not one the simulator reports")),
    };
    if !row.unit.eq_ignore_ascii_case(unit) {
        return Err(format!("unit `{}` for metric `{}` (expected {unit})", row.unit, row.metric));
    }
    Ok(m)
}

fn map_inner(row: &MeasuredRow, facts: &dyn Fn(&str) -> Option<DriveFacts>) -> Result<Plan, String> {
    row.check_ranges()?;
    let f = facts(&row.drive).ok_or_else(|| format!("no drive profile `{}`", row.drive))?;
    if row.tool == "vendor" {
        return Err("a vendor statement, not a measurement".into());
    }
    let metric = metric_of(row)?;
    let steady = match row.state.as_str() {
        "steady" => true,
        "peak" | "fob" | "FOB" => false,
        s => return Err(format!("state `{s}`: only steady and peak/FOB measurements are modelled")),
    };
    let mut assumptions = Vec::new();
    let mut power_cap_w = row.power_cap_w;
    if metric == Metric::RelativeIops && power_cap_w.is_none() {
        power_cap_w = Some(power_state_in_note(row, &f, &mut assumptions)?);
    }
    if let Some(cap) = power_cap_w {
        assumptions.push(format!("power governor holds the row's cap of {cap} W (PS0 is {} W)", f.ps0_w));
    }
    if metric == Metric::RelativeIops {
        assumptions.push("relative_iops: IOPS at the cap over IOPS of the same run uncapped, same drive state".into());
    }
    let mut workload = workload_of(row, &mut assumptions)?;
    apply_tool_defaults(row, &mut workload, &mut assumptions);
    let reads_only = workload.rwmixread == Some(100) || matches!(workload.rw, RwMode::Read | RwMode::RandRead);
    let phase = if reads_only {
        Phase::Read
    } else if workload.rw == RwMode::Write {
        Phase::SeqWrite
    } else {
        Phase::Random
    };
    assumptions.push(match (steady, phase) {
        (_, Phase::Read) => {
            "preconditioning: one sequential 128k fill (reads need mapped data, not a random layout)".into()
        }
        (_, Phase::SeqWrite) => "preconditioning: one sequential 128k fill (sequential writes keep WA ~1)".into(),
        (true, Phase::Random) => "preconditioning: sequential fill + 2 drive writes of 4k random writes (Q32T4)".into(),
        (false, Phase::Random) => {
            "peak: sequential fill, no random preconditioning (measured right after the group's other tests)".into()
        }
    });
    Ok(Plan {
        id: row.id.clone(),
        drive: row.drive.clone(),
        user_capacity_bytes: row.user_capacity_tb.map(|tb| nand_model::cast::sat_u64((tb * 1e12).round())),
        power_cap_w,
        steady,
        phase,
        workload,
        metric,
        measured: row.value,
        unit: row.unit.clone(),
        assumptions,
    })
}

/// The cap of a row that names a power state in its note ("power mode 1", "PS1") instead of
/// a cap in W: that state's maximum power in the drive profile.
fn power_state_in_note(row: &MeasuredRow, f: &DriveFacts, notes: &mut Vec<String>) -> Result<f64, String> {
    let note = row.note.to_ascii_lowercase();
    let state = ["power mode ", "power state ", "ps"].iter().find_map(|key| {
        let at = note.find(key)? + key.len();
        let digits: String = note[at..].chars().take_while(|c| c.is_ascii_digit()).collect();
        digits.parse::<usize>().ok()
    });
    let Some(n) = state else {
        return Err("relative_iops needs a power cap (power_cap_w) or a power state named in the note".into());
    };
    let w = f.states_w.get(n).copied().ok_or_else(|| {
        format!(
            "the note names power state {n}; the profile has {} (PS0..PS{})",
            f.states_w.len(),
            f.states_w.len() - 1
        )
    })?;
    notes.push(format!("the note's power state {n} is the profile's PS{n} = {w} W"));
    Ok(w)
}

fn parse_kib(bs: &str) -> Option<u32> {
    let s = bs.trim().to_ascii_lowercase();
    let n = s.strip_suffix('k').unwrap_or(&s);
    n.parse::<u32>().ok().filter(|&k| (1..=16_384).contains(&k))
}

fn workload_of(row: &MeasuredRow, notes: &mut Vec<String>) -> Result<Workload, String> {
    if let Some(app) = apps::find(&row.workload) {
        let mix = nand_model::cast::sat_u32(app.read_pct.round());
        notes.push(format!(
            "{} profile: bssplit {} (listed splits rescaled to 100%: the unspecified remainder is assumed to follow \
             the listed sizes), rwmixread {mix}, {}% random; dedup/compression ratios not modelled",
            app.name,
            apps::bssplit(app),
            app.random_pct
        ));
        return Ok(Workload {
            rw: RwMode::RandRw,
            bs: BlockSize::Split(apps::split_entries(app)),
            rwmixread: Some(mix),
            percentage_random: Some(app.random_pct),
            iodepth: 0,
            numjobs: 0,
            mean_bytes: apps::mean_bytes(app),
        });
    }
    let random = match row.random.as_str() {
        "yes" => true,
        "no" => false,
        r => return Err(format!("random `{r}` without an application profile")),
    };
    let read_pct = match row.read_pct {
        Some(r) => r,
        None if row.metric == "relative_iops" && random => {
            notes.push("read % not given: 100 (a QD1 random figure without a mix is read latency-bound)".into());
            100.0
        }
        None => return Err("read % not given".into()),
    };
    let kib = if row.bs.is_empty() {
        let k = if random { 4 } else { 128 };
        notes.push(format!("bs not given: {k}k ({} default)", if random { "random" } else { "ezFIO sequential" }));
        k
    } else {
        parse_kib(&row.bs).ok_or_else(|| format!("block size `{}` (expected e.g. 4k, 128k)", row.bs))?
    };
    let mix = nand_model::cast::sat_u32(read_pct.round());
    let rw = match (random, mix) {
        (true, 100) => RwMode::RandRead,
        (true, 0) => RwMode::RandWrite,
        (true, _) => RwMode::RandRw,
        (false, 100) => RwMode::Read,
        (false, 0) => RwMode::Write,
        (false, _) => RwMode::ReadWrite,
    };
    Ok(Workload {
        rw,
        bs: BlockSize::Bytes(kib * 1024),
        rwmixread: (mix != 0 && mix != 100).then_some(mix),
        percentage_random: None,
        iodepth: 0,
        numjobs: 0,
        mean_bytes: kib as f64 * 1024.0,
    })
}

/// Fills iodepth/numjobs from the row or the tool's documented default for that test.
fn apply_tool_defaults(row: &MeasuredRow, w: &mut Workload, notes: &mut Vec<String>) {
    let random = w.rw.is_random();
    let tool = row.tool.to_ascii_lowercase();
    let (qd, jobs, why): (u32, u32, String) = match (row.qd, row.jobs) {
        (Some(q), Some(j)) => (q, j, String::new()),
        (Some(q), None) => (q, 1, format!("jobs not given: 1 job x QD{q} (fio numjobs default)")),
        (None, Some(j)) => (1, j, format!("qd not given: QD1 x {j} jobs (fio iodepth default)")),
        (None, None) => {
            if tool.starts_with("ezfio") || tool.starts_with("nvme-cli") {
                let src = if tool.starts_with("nvme-cli") { "power read during the ezFIO test: " } else { "" };
                if random {
                    (
                        1,
                        256,
                        format!(
                            "{src}ezFIO default: 4k random by thread count, peak at 256 threads x QD1 (REFERENCE.md)"
                        ),
                    )
                } else if w.rw == RwMode::Read {
                    (256, 1, format!("{src}ezFIO default: SEQ read by block size at QD256 (REFERENCE.md)"))
                } else {
                    (
                        64,
                        1,
                        format!(
                            "{src}ezFIO default: SEQ 128k fill at QD64, its sustained sequential write (REFERENCE.md)"
                        ),
                    )
                }
            } else if tool.starts_with("vdbench") {
                (
                    32,
                    8,
                    "vdbench max iorate: threads as the P5430 vdbench rows, 32 x 8 = 256 outstanding (vdbench's own \
                         default threads=8 would cap a 64-die drive far below the figure)"
                        .into(),
                )
            } else {
                (1, 1, format!("{}: qd/jobs not given: fio defaults iodepth=1, numjobs=1", row.tool))
            }
        }
    };
    w.iodepth = qd;
    w.numjobs = jobs;
    if !why.is_empty() {
        notes.push(why);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measured;

    fn row(line: &str) -> MeasuredRow {
        let head = measured::COLUMNS.join(",");
        measured::parse(&format!("{head}\n{line}\n"), "t.csv").unwrap().remove(0)
    }

    fn facts(name: &str) -> Option<DriveFacts> {
        (name == "tiny").then_some(DriveFacts { ps0_w: 8.0, states_w: vec![8.0, 6.0, 4.0] })
    }

    #[test]
    fn ezfio_defaults_and_phases() {
        let r = row("a,tiny,,8,ezfio,steady,4k random write,4k,0,yes,,,iops,1000,iops,");
        let Mapping::Run(p) = map_row(&r, &facts) else { panic!("skipped") };
        assert_eq!((p.workload.iodepth, p.workload.numjobs, p.phase), (1, 256, Phase::Random));
        assert!(p.assumptions.iter().any(|a| a.contains("256 threads")));
        let r = row("b,tiny,,,fio,steady,seq read,128k,100,no,32,1,bandwidth,100,MB/s,");
        let Mapping::Run(p) = map_row(&r, &facts) else { panic!("skipped") };
        assert_eq!((p.workload.rw, p.phase), (RwMode::Read, Phase::Read));
    }

    #[test]
    fn relative_rows_run_at_the_named_power_state() {
        let r =
            row("a,tiny,,,vdbench,steady,SQL profile,,68.42,80%,,,relative_iops,0.85,ratio,power mode 1 reaches 85%");
        let Mapping::Run(p) = map_row(&r, &facts) else { panic!("skipped") };
        assert_eq!((p.metric, p.power_cap_w), (Metric::RelativeIops, Some(6.0)));
        let r = row("b,tiny,,4,fio,steady,QD1 random,4k,,yes,1,1,relative_iops,1.0,ratio,qualitative");
        let Mapping::Run(p) = map_row(&r, &facts) else { panic!("skipped") };
        assert_eq!((p.workload.rw, p.power_cap_w, p.phase), (RwMode::RandRead, Some(4.0), Phase::Read));
        let r = row("c,tiny,,,fio,steady,w,4k,0,yes,1,1,relative_iops,1,ratio,power mode 7");
        assert!(matches!(map_row(&r, &facts), Mapping::Skip(why) if why.contains("PS0..PS2")));
    }

    #[test]
    fn skips_say_why() {
        let cases = [
            ("a,nosuch,,,fio,steady,w,4k,0,yes,1,1,iops,1,iops,", "no drive profile"),
            ("a,tiny,,,fio,steady,w,4k,0,yes,1,1,relative_iops,1,ratio,", "power state named"),
            ("a,tiny,,,fio,steady,w,4k,0,yes,1,1,bogus,1,x,", "metric `bogus`"),
            ("a,tiny,,,fio,steady,w,4k,0,yes,1,1,iops,1,MB/s,", "unit"),
        ];
        for (line, want) in cases {
            match map_row(&row(line), &facts) {
                Mapping::Skip(reason) => assert!(reason.contains(want), "{reason}"),
                Mapping::Run(_) => panic!("{line} ran"),
            }
        }
        // A capped row runs under the governor at its cap.
        match map_row(&row("a,tiny,,4,fio,steady,w,4k,0,yes,1,1,iops,1,iops,"), &facts) {
            Mapping::Run(p) => assert_eq!(p.power_cap_w, Some(4.0)),
            Mapping::Skip(reason) => panic!("capped row skipped: {reason}"),
        }
    }
}
