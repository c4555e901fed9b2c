//! fio job files: parsed into plain, validated structs.
//!
//! A job file is read in two stages (like ripgrep's flags): `parse` splits it into sections of
//! raw `key=value` options, then every job section is resolved into a [`JobSpec`] with the
//! `[global]` options that precede it applied and defaults filled in. Values the file gets wrong
//! are reported as a one-line [`JobError`] naming the file, line, option and what is allowed.
//!
//! ```
//! use host_bench::job::{parse_str, ParseOptions};
//! let text = "[global]\nbs=4k\niodepth=32\n[rand]\nrw=randread\nruntime=10\ntime_based\n";
//! let file = parse_str(text, "x.fio", &ParseOptions::default()).unwrap();
//! assert_eq!(file.jobs[0].iodepth, 32);
//! ```

pub mod build;
mod checks;
mod error;
pub mod full_scale;
mod log_options;
mod options_table;
mod parse;
pub mod pattern;
pub mod randmap;
pub mod registry;
mod resolve;
mod seqpos;
pub mod substitute;
mod value;
pub mod zipf;

pub use error::{BadValue, JobError};
pub use full_scale::{ScaledOption, ScaledUnit, SizeBasis};
pub use log_options::LogOptions;
pub use parse::{parse_path, parse_str, resolve_sections, ParseOptions, RawOption, RawSection};
pub use substitute::HostVars;
pub use value::KbBase;

/// A whole job file after resolution.
#[derive(Clone, Debug, PartialEq)]
pub struct JobFile {
    /// File name as given to the parser, used in messages and reports.
    pub file: String,
    /// `[global]` options in file order, as written (reported as fio's "global options").
    pub global_options: Vec<(String, String)>,
    /// Job sections in file order, each fully resolved.
    pub jobs: Vec<JobSpec>,
    /// Unsupported options skipped because [`ParseOptions::ignore_unsupported`] was set.
    pub warnings: Vec<String>,
}

impl JobFile {
    /// fio's verify phases of the file's jobs (see [`JobSpec::verify_phase`]), as one more
    /// file to run after this one; `None` when no job verifies what it wrote.
    pub fn verify_phase(&self) -> Option<JobFile> {
        let jobs: Vec<JobSpec> = self.jobs.iter().filter_map(JobSpec::verify_phase).collect();
        (!jobs.is_empty()).then(|| JobFile {
            file: self.file.clone(),
            global_options: Vec::new(),
            jobs,
            warnings: Vec::new(),
        })
    }
}

/// Access pattern of a job (fio `rw=`).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum RwMode {
    Read,
    Write,
    Trim,
    RandRead,
    RandWrite,
    RandTrim,
    /// Sequential mixed reads and writes (`rw`, `readwrite`).
    ReadWrite,
    /// Random mixed reads and writes.
    RandRw,
}

impl RwMode {
    /// True when offsets are drawn at random rather than walked sequentially.
    pub const fn is_random(self) -> bool {
        matches!(self, RwMode::RandRead | RwMode::RandWrite | RwMode::RandTrim | RwMode::RandRw)
    }

    /// True when reads and writes are mixed according to `rwmixread`.
    pub const fn is_mixed(self) -> bool {
        matches!(self, RwMode::ReadWrite | RwMode::RandRw)
    }

    /// fio's spelling, used in reports.
    pub const fn as_str(self) -> &'static str {
        match self {
            RwMode::Read => "read",
            RwMode::Write => "write",
            RwMode::Trim => "trim",
            RwMode::RandRead => "randread",
            RwMode::RandWrite => "randwrite",
            RwMode::RandTrim => "randtrim",
            RwMode::ReadWrite => "rw",
            RwMode::RandRw => "randrw",
        }
    }
}

/// A size that is either absolute or a share of the device (fio `size=50%`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SizeSpec {
    Bytes(u64),
    /// Percent of the device capacity, in (0, 100].
    Percent(f64),
}

impl SizeSpec {
    /// Bytes for a device of `capacity_bytes`: an absolute size as written (fio counts its
    /// bytes as given: `size=1000000 bs=4k` issues I/Os until 1,000,000 bytes are reached), a
    /// share rounded down to `align_bytes` (at least 1).
    pub fn resolve(self, capacity_bytes: u64, align_bytes: u64) -> u64 {
        match self {
            SizeSpec::Bytes(b) => b,
            SizeSpec::Percent(p) => {
                let raw = nand_model::cast::sat_u64(capacity_bytes as f64 * p / 100.0);
                let align = align_bytes.max(1);
                raw / align * align
            }
        }
    }
}

/// One `bssplit` entry: this block size for this share of I/Os.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BsSplitEntry {
    pub bytes: u32,
    /// Integer percent; the entries of one direction sum to exactly 100.
    pub percent: u32,
}

/// A zone of `random_distribution=zoned` / `zoned_abs`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Zone {
    /// Share of accesses that land in this zone, percent.
    pub access_percent: u32,
    /// Zone size: percent of the region (`zoned`) or bytes (`zoned_abs`).
    pub size: SizeSpec,
}

/// fio `random_distribution`.
#[derive(Clone, Debug, PartialEq)]
pub enum Distribution {
    Uniform,
    /// Zipf with exponent theta (> 0, != 1 is not required).
    Zipf {
        theta: f64,
    },
    /// Pareto with fio's shape h in (0, 1).
    Pareto {
        h: f64,
    },
    /// Gaussian centred on the region, sigma as percent of the region.
    Normal {
        sigma_percent: f64,
    },
    /// Zones in region order; access percents sum to 100.
    Zoned(Vec<Zone>),
}

/// fio `random_generator`: how uniform random offsets are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RandomGenerator {
    /// `tausworthe` (fio's default) and `tausworthe64`: independent uniform draws, here from the
    /// job's ChaCha stream; with the random map, repeats within a loop move to the next free block.
    Tausworthe,
    Tausworthe64,
    /// `lfsr`: every block once per loop from a full-period sequence, no random map needed.
    Lfsr,
}

impl RandomGenerator {
    pub const fn as_str(self) -> &'static str {
        match self {
            RandomGenerator::Tausworthe => "tausworthe",
            RandomGenerator::Tausworthe64 => "tausworthe64",
            RandomGenerator::Lfsr => "lfsr",
        }
    }
}

/// fio's `rw=...:N` offset modifier and `rw_sequencer`: where non-random I/Os go.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sequencing {
    /// Sequential patterns: bytes skipped after each I/O (`rw=write:4k` leaves 4 KiB holes;
    /// negative walks backwards). fio's `ddir_seq_add`; 0 without a modifier.
    pub add_bytes: i64,
    /// Random patterns: a new random offset every N-th I/O (`rw=randread:8`); the I/Os in
    /// between follow `identical`. fio's `ddir_seq_nr`; 1 without a modifier.
    pub every_nr: u32,
    /// `rw_sequencer=identical`: the I/Os between random ones repeat the previous offset;
    /// `sequential` (the default): they continue after the previous I/O.
    pub identical: bool,
}

impl Default for Sequencing {
    fn default() -> Self {
        Sequencing { add_bytes: 0, every_nr: 1, identical: false }
    }
}

/// fio `zonemode=strided`: I/O goes to `size_bytes` of each zone of `range_bytes`, then skips
/// `skip_bytes` to the next zone (wrapping to `offset` at the end of the device).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct StridedZones {
    pub size_bytes: u64,
    pub range_bytes: u64,
    pub skip_bytes: u64,
}

/// Zone options as written; resolved into [`JobSpec::zones`] when the job section ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ZoneOptions {
    pub strided: bool,
    pub size_bytes: u64,
    pub range_bytes: u64,
    pub skip_bytes: u64,
}

/// fio `read_iolog` and its replay options: the job's I/Os come from an iolog (v2 or v3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    /// The log; `None` for a job that generates its I/O.
    pub read_iolog: Option<String>,
    /// `replay_no_stall`: issue as fast as `iodepth` allows, ignoring the log's times.
    pub no_stall: bool,
    /// `replay_time_scale`: percent of the log's pace (200 replays twice as fast). Default 100.
    pub time_scale_percent: u32,
    /// `replay_scale`: offsets divided by this. Default 1.
    pub offset_divisor: u64,
    /// `replay_align`: offsets rounded down to this power of two (0: as logged).
    pub align_bytes: u64,
    /// `replay_redirect`: the file fio would send every I/O to (recorded; the drive or
    /// --target is the file, as for `filename`).
    pub redirect: Option<String>,
}

impl Default for Replay {
    fn default() -> Self {
        Replay {
            read_iolog: None,
            no_stall: false,
            time_scale_percent: 100,
            offset_divisor: 1,
            align_bytes: 0,
            redirect: None,
        }
    }
}

/// fio `exit_what`: which jobs a finishing job ends under `exitall`.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ExitWhat {
    /// The jobs of its reporting group (fio's default).
    #[default]
    Group,
    /// Every job running now; later groups run as usual.
    Stonewall,
    /// Every job, later groups' too.
    All,
}

/// fio `unified_rw_reporting`: per-direction figures, one "mixed" set, or both.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum UnifiedRw {
    #[default]
    None,
    Mixed,
    Both,
}

/// Metric of fio's steady-state detection.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SsMetric {
    /// All samples within the limit of the window mean.
    Iops,
    /// Least-squares slope of the window within the limit.
    IopsSlope,
    Bw,
    BwSlope,
}

impl SsMetric {
    pub const fn as_str(self) -> &'static str {
        match self {
            SsMetric::Iops => "iops",
            SsMetric::IopsSlope => "iops_slope",
            SsMetric::Bw => "bw",
            SsMetric::BwSlope => "bw_slope",
        }
    }
}

/// fio `steadystate=metric:limit[%]` with `ss_dur` and `ss_ramp`.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct SteadyState {
    pub metric: SsMetric,
    /// Limit in metric units (IOPS, bytes/s, or per second for slopes) or percent of the mean.
    pub limit: f64,
    pub limit_is_percent: bool,
    /// Rolling window; 0 disables detection (fio's default).
    pub dur_ns: u64,
    /// Time after job start before samples are collected.
    pub ramp_ns: u64,
}

/// One job section with globals applied and defaults filled in.
#[derive(Clone, Debug, PartialEq)]
pub struct JobSpec {
    /// Section name, or `name=` when given.
    pub name: String,
    /// Line of the section header, for messages.
    pub line: usize,
    /// Options written in the job section itself (fio's "job options").
    pub options: Vec<(String, String)>,
    pub rw: RwMode,
    /// Block size per direction (read, write, trim). Default 4 KiB.
    pub bs_bytes: [u32; 3],
    /// Per-direction block size mix; overrides `bs_bytes` for that direction when non-empty.
    pub bssplit: [Vec<BsSplitEntry>; 3],
    /// Per-direction `bsrange` (min, max): overrides `bs_bytes` (in either order, as fio's
    /// min_bs/max_bs do), not `bssplit`.
    pub bs_range: [Option<(u32, u32)>; 3],
    /// Offset alignment for random I/O; default the smallest block size of the direction.
    pub blockalign_bytes: Option<u32>,
    /// Percent of mixed I/Os that are reads. Default 50.
    pub rwmixread_percent: u32,
    pub iodepth: u32,
    pub numjobs: u32,
    /// Region size; default the device from `offset` to its end.
    pub size: Option<SizeSpec>,
    pub offset: SizeSpec,
    /// `offset_increment`: each `numjobs` clone starts this much further than the one before.
    pub offset_increment: SizeSpec,
    /// `offset_align`: a percentage offset is aligned up to this; 0 = the job's smallest block size.
    pub offset_align_bytes: u64,
    /// Bytes of I/O per loop when it differs from `size`.
    pub io_size: Option<SizeSpec>,
    /// fio `filesize` (one size): the job's file is the drive's first `filesize` bytes, so the
    /// region runs from `offset` to there, and `size` is the amount per loop (a percentage:
    /// of the file); see `job::pattern`.
    pub filesize_bytes: Option<u64>,
    /// I/O count per loop; wins over sizes.
    pub number_ios: Option<u64>,
    pub runtime_ns: Option<u64>,
    pub time_based: bool,
    pub ramp_time_ns: u64,
    pub loops: u32,
    /// Start a new group: wait for all earlier jobs to finish.
    pub stonewall: bool,
    /// fio `new_group`: start a new reporting group (as `stonewall` does) without waiting.
    pub new_group: bool,
    /// fio `wait_for`: start once every instance of this earlier job has finished.
    pub wait_for: Option<String>,
    /// fio `exitall`: once any job of the file has it, a job that finishes ends others, by its
    /// `exit_what`.
    pub exitall: bool,
    pub exit_what: ExitWhat,
    pub distribution: Distribution,
    /// Share of random I/Os for random modes, per direction; the rest continue sequentially.
    pub percentage_random: [u32; 3],
    /// `rw=...:N` and `rw_sequencer`.
    pub sequencing: Sequencing,
    /// `zonemode=strided` with its zone options (checked when the section ends).
    pub zones: Option<StridedZones>,
    /// `zonemode` as written (fio's default `none`), and `zonesize`/`zonerange`/`zoneskip`
    /// before the section is complete.
    pub zone_options: ZoneOptions,
    /// fio's default (false) keeps a random map: each block once per loop (see [`randmap`]).
    pub norandommap: bool,
    pub random_generator: RandomGenerator,
    pub randrepeat: bool,
    /// Percentiles reported for completion latency.
    pub percentile_list: Vec<f64>,
    pub steadystate: Option<SteadyState>,
    pub group_reporting: bool,
    pub unified_rw: UnifiedRw,
    pub filename: Option<String>,
    /// fio `rate_iops` per direction (read, write, trim), I/Os per second; 0 is no limit.
    pub rate_iops: [u64; 3],
    /// fio `rate` per direction, bytes per second (fio refuses a job with both `rate` and
    /// `rate_iops`).
    pub rate_bytes: [u64; 3],
    /// fio `rate_process=poisson` (default linear).
    pub rate_poisson: bool,
    /// fio `rate_min` per direction, bytes per second: the job ends with EIO when a direction
    /// does less over a `rate_cycle` (see `runner::min_rate`); 0 is no minimum.
    pub rate_min_bytes: [u64; 3],
    /// fio `rate_iops_min` per direction, I/Os per second (a job has this or `rate_min`).
    pub rate_iops_min: [u64; 3],
    /// fio `rate_cycle`: the window, ms of job time, over which a minimum rate is checked.
    pub rate_cycle_ms: u64,
    /// fio `max_latency` per direction, ns (0: none): a completion slower than this ends the
    /// job with ETIMEDOUT, in the ramp too, as fio.
    pub max_latency_ns: [u64; 3],
    /// `verify=` method if any (fio's names; `0` clears it). On a real target any method other
    /// than `null` turns on ssdlab's block stamps: every written block carries its offset and
    /// write sequence, every read is checked (fio's checksum itself is not reproduced).
    pub verify: Option<String>,
    /// fio `read_iolog` and the replay options.
    pub replay: Replay,
    /// fio's bandwidth, IOPS and latency logs.
    pub logs: LogOptions,
    /// fio `write_iolog`: a path for the log of every I/O this job submits (fio's iolog v3).
    pub write_iolog: Option<String>,
    /// fio `do_verify` (default on): after a job that writes, read its region back and check it.
    pub do_verify: bool,
    /// fio `latency_target` and its window, percentile and `latency_run` (target 0: off).
    pub latency: LatencyTarget,
    /// fio `flow_id`, `flow`, `flow_sleep` (weight 0: no flow control).
    pub flow: Flow,
    /// fio `startdelay` (after the run began; a range `lo-hi` is drawn per instance; hi 0: fixed).
    pub start_delay_ns: (u64, u64),
    /// fio `thinktime` and its companions (`runner/think.rs`).
    pub think: ThinkTime,
    /// fio `io_submit_mode=offload` (default inline).
    pub submit_offload: bool,
    pub description: Option<String>,
    /// What the absolute sizes above are counted on (see [`full_scale`]).
    pub sizes: SizeBasis,
    /// fio `kb_base`: how the section's size prefixes read (`value::KbBase`).
    pub kb_base: KbBase,
}

/// fio's queue-depth search (`latency_target`): the deepest queue whose completions meet
/// `target_ns` at `percentile` over each `window_ns` (see `runner/lat_target.rs`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LatencyTarget {
    /// Completion latency limit; 0 turns the search off (fio's default).
    pub target_ns: u64,
    /// Time each queue depth is measured before it is judged (fio: 0, every completion).
    pub window_ns: u64,
    /// Percent of a window's I/Os that must meet the target (fio's default 100).
    pub percentile: f64,
    /// `latency_run`: keep searching for the whole run instead of stopping once found.
    pub run: bool,
}

impl Default for LatencyTarget {
    fn default() -> Self {
        LatencyTarget { target_ns: 0, window_ns: 0, percentile: 100.0, run: false }
    }
}

/// fio's token flow between jobs of one `flow_id` (see `runner/flow.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flow {
    pub id: u32,
    /// The job's share of its flow (0: the job takes no part).
    pub weight: u32,
    /// `flow_sleep`: microseconds a held job waits, its queue drained, before it retries.
    pub sleep_us: u64,
}

/// fio's think time: after `blocks` I/Os (or `iotime_ns` of I/O), the job drains its queue and
/// pauses (see `runner/think.rs`). All zero: no think time (fio's default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ThinkTime {
    /// `thinktime`: the pause (bare numbers are microseconds).
    pub ns: u64,
    /// `thinktime_spin`: the part of the pause spent spinning (a pause either way here).
    pub spin_ns: u64,
    /// `thinktime_blocks` when given (fio's default 1 otherwise, unless `thinktime_iotime`).
    pub blocks: Option<u64>,
    /// `thinktime_blocks_type=issue` (default `complete`: blocks are counted as they complete).
    pub by_issue: bool,
    /// `thinktime_iotime`: also pause once this much time passed since the last pause.
    pub iotime_ns: u64,
}

impl ThinkTime {
    /// Whether the job thinks at all (fio checks `thinktime` only).
    pub fn active(&self) -> bool {
        self.ns > 0
    }
}

/// fio's default completion-latency percentiles.
pub const DEFAULT_PERCENTILES: [f64; 17] =
    [1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99];

impl JobSpec {
    /// True when a direction is rate-limited (`rate` or `rate_iops`).
    pub fn rate_limited(&self) -> bool {
        self.rate_iops.iter().chain(&self.rate_bytes).any(|&r| r > 0)
    }

    /// True when a direction has a minimum rate (`rate_min` or `rate_iops_min`).
    pub fn checks_min_rate(&self) -> bool {
        self.rate_min_bytes.iter().chain(&self.rate_iops_min).any(|&r| r > 0)
    }

    /// A job with fio's defaults and no options applied.
    pub fn with_defaults(name: &str, line: usize) -> Self {
        JobSpec {
            name: name.to_string(),
            line,
            options: Vec::new(),
            rw: RwMode::Read,
            bs_bytes: [4096; 3],
            bssplit: [Vec::new(), Vec::new(), Vec::new()],
            bs_range: [None; 3],
            blockalign_bytes: None,
            rwmixread_percent: 50,
            iodepth: 1,
            numjobs: 1,
            size: None,
            offset: SizeSpec::Bytes(0),
            offset_increment: SizeSpec::Bytes(0),
            offset_align_bytes: 0,
            io_size: None,
            filesize_bytes: None,
            number_ios: None,
            runtime_ns: None,
            time_based: false,
            ramp_time_ns: 0,
            loops: 1,
            stonewall: false,
            new_group: false,
            wait_for: None,
            exitall: false,
            exit_what: ExitWhat::Group,
            distribution: Distribution::Uniform,
            percentage_random: [100; 3],
            sequencing: Sequencing::default(),
            zones: None,
            zone_options: ZoneOptions::default(),
            norandommap: false,
            random_generator: RandomGenerator::Tausworthe,
            randrepeat: true,
            percentile_list: DEFAULT_PERCENTILES.to_vec(),
            steadystate: None,
            group_reporting: false,
            unified_rw: UnifiedRw::None,
            filename: None,
            rate_iops: [0; 3],
            rate_bytes: [0; 3],
            rate_poisson: false,
            rate_min_bytes: [0; 3],
            rate_iops_min: [0; 3],
            rate_cycle_ms: 1000,
            max_latency_ns: [0; 3],
            verify: None,
            do_verify: true,
            latency: LatencyTarget::default(),
            flow: Flow::default(),
            start_delay_ns: (0, 0),
            think: ThinkTime::default(),
            submit_offload: false,
            write_iolog: None,
            replay: Replay::default(),
            logs: LogOptions::default(),
            description: None,
            sizes: SizeBasis::Device,
            kb_base: KbBase::Binary,
        }
    }

    /// True when the job asks for verification (a `verify=` method other than `null`).
    pub fn verifies(&self) -> bool {
        self.verify.as_deref().is_some_and(|m| m != "null")
    }

    /// fio's verify phase of this job, if it has one: a sequential read of the region it
    /// wrote (same offset, size and block size), run after it with the checks on.
    pub fn verify_phase(&self) -> Option<JobSpec> {
        let writes = matches!(self.rw, RwMode::Write | RwMode::RandWrite | RwMode::ReadWrite | RwMode::RandRw);
        if !(self.verifies() && self.do_verify && writes) {
            return None;
        }
        let mut v = JobSpec::with_defaults(&format!("{}-verify", self.name), self.line);
        v.rw = RwMode::Read;
        v.bs_bytes = [self.block_sizes(1).min().unwrap_or(4096); 3];
        v.iodepth = self.iodepth;
        v.size = self.size;
        v.offset = self.offset;
        v.stonewall = true;
        v.filename = self.filename.clone();
        v.sizes = self.sizes;
        Some(v)
    }

    /// Block sizes a direction can use (its bssplit, else the ends of its bsrange, else its bs).
    pub fn block_sizes(&self, dir: usize) -> impl Iterator<Item = u32> + '_ {
        let split = &self.bssplit[dir];
        let range = self.bs_range[dir].filter(|_| split.is_empty());
        let single = if split.is_empty() && range.is_none() { Some(self.bs_bytes[dir]) } else { None };
        let ends = range.into_iter().flat_map(|(lo, hi)| [lo, hi]);
        split.iter().map(|e| e.bytes).chain(ends).chain(single)
    }
}
