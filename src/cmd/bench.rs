//! `ssdlab bench`: how fast the simulator runs and how much memory the FTL needs.
//!
//! (a) simulated host 4 KiB random writes per wall-clock second in steady state, single-threaded,
//! on a scaled drive (fill, one drive-write of warm-up, then the measured drive-writes);
//! (b) bytes of FTL memory per 4 KiB of raw NAND: the mapping tables, the sequence array if kept
//! and the block table, over the raw mapping units, with the process RSS as a cross-check;
//! (c) with `--full-scale`, the same memory figure for the drive built at scale 1.

use super::common::parse_scale;
use super::{print_out, CliError};
use clap::Args;
use ftl::device::{DeviceOptions, HostOp, SimSsd};
use std::fmt::Write as _;
use std::time::Instant;

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Drive profile (embedded name or TOML path).
    #[arg(long, default_value = "generic-tlc")]
    drive: String,
    /// Simulate 1/N of the drive; default: the scale `ssdlab run` chooses (at most 2^24 mapping
    /// units, 64 GiB of NAND at 4 KiB), so the figure is the speed users get.
    #[arg(long)]
    scale: Option<String>,
    /// Random-write drive-writes measured after the warm-up.
    #[arg(long, default_value_t = 1.0)]
    drive_writes: f64,
    /// The measured writes run as this many separately timed segments (median reported).
    #[arg(long, default_value_t = 5)]
    segments: u32,
    /// Queue depth of the closed-loop host.
    #[arg(long, default_value_t = 32)]
    qd: u32,
    /// Also build the drive at scale 1 and measure its memory (allocates ~17 GB for 8 TiB).
    #[arg(long)]
    full_scale: bool,
    /// Keep write sequences (power-loss mode): 4 more bytes per unit.
    #[arg(long)]
    track_sequence: bool,
}

/// FTL table bytes of a built device: L2P + P2L (+ sequences) + live-unit bitmap + block table.
fn table_bytes(d: &SimSsd) -> u64 {
    let c = &d.core;
    let words = c.l2p.capacity() + c.p2l.capacity() + c.seq.capacity() + 2 * c.live.capacity_words();
    // Per block: state, stream (1 B each), valid, write and program pointers, erase count,
    // bucket links (4 B each) and the close time (8 B); free-list entries (4 B); the
    // superblocks' die-member entries (4 B, about one per block).
    let per_block = 2 + 4 * 4 + 2 * 4 + 8 + 4 + 4;
    words as u64 * 4 + c.layout.blocks as u64 * per_block
}

/// SplitMix64 (Steele et al. 2014): a seeded stream of offsets without a dependency.
struct SplitMix(u64);

impl SplitMix {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (((z ^ (z >> 31)) as u128 * n as u128) >> 64) as u64
    }
}

/// Resident set size of this process, bytes (Linux; 0 elsewhere).
fn rss_bytes() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Runs the closed loop: `n` commands from `next`, QD `qd`. Returns the commands completed.
fn closed_loop(d: &mut SimSsd, qd: u32, n: u64, mut next: impl FnMut() -> u64) -> Result<u64, CliError> {
    let mut tag = 0u64;
    let mut submitted = 0u64;
    let mut done = 0u64;
    while submitted < n.min(qd as u64) {
        d.submit(tag, HostOp::Write, next(), 4096).map_err(CliError::failed)?;
        (tag, submitted) = (tag + 1, submitted + 1);
    }
    // Offsets are drawn LOOKAHEAD commands ahead of their submission (in the same order), so
    // the device can fetch their mapping entries meanwhile, as a host generates its stream ahead.
    const LOOKAHEAD: usize = ftl::device::HINT_LOOKAHEAD;
    let mut ahead = std::collections::VecDeque::with_capacity(LOOKAHEAD);
    let mut drawn = submitted;
    while d.next_completion(None).is_some() {
        done += 1;
        while ahead.len() < LOOKAHEAD && drawn < n {
            let o = next();
            d.hint_next_offset(o);
            ahead.push_back(o);
            drawn += 1;
        }
        if let Some(o) = ahead.pop_front() {
            d.submit(tag, HostOp::Write, o, 4096).map_err(CliError::failed)?;
            (tag, submitted) = (tag + 1, submitted + 1);
        }
    }
    Ok(done)
}

/// Both drives the bench builds (one after the other) must fit the memory available.
fn check_bench_memory(a: &BenchArgs, p: &ftl::profile::ValidatedProfile, scale: u32) -> Result<(), CliError> {
    use host_bench::memory::{table_estimate, MemoryEstimate};
    let est = |d: u32| {
        let (drive_units, tables_bytes) = table_estimate(p, d, a.track_sequence);
        MemoryEstimate {
            drive_units,
            scale_divisor: d,
            tables_bytes,
            results_bytes: 0,
            base_bytes: host_bench::memory::BASE_BYTES,
        }
    };
    super::preflight::check_memory(&format!("bench on {}", a.drive), &est(scale), |_| {
        "use --scale 1/N with a larger N".into()
    })?;
    if a.full_scale {
        super::preflight::check_memory(&format!("bench --full-scale on {}", a.drive), &est(1), |_| {
            "drop --full-scale (it builds the whole drive at scale 1)".into()
        })?;
    }
    Ok(())
}

pub fn run(a: BenchArgs) -> Result<(), CliError> {
    let p = ftl::profile::load(&a.drive)?;
    let scale = match &a.scale {
        Some(s) => parse_scale(s).map_err(|e| CliError::bad_input(format!("--scale {s}: {e}")))?,
        None => host_bench::simrun::auto_scale(&p),
    };
    if !(a.drive_writes > 0.0 && a.drive_writes <= 100.0) || a.qd == 0 || a.qd > 4096 {
        return Err(CliError::bad_input("--drive-writes allowed 0 < x <= 100, --qd allowed 1..=4096"));
    }
    check_bench_memory(&a, &p, scale)?;
    let opts = DeviceOptions { scale_divisor: scale, track_sequence: a.track_sequence, ..Default::default() };
    let mut d = SimSsd::new(&p, &opts).map_err(CliError::bad_input)?;
    // Its writes are a size-based phase: as `ssdlab run` runs one on a reduced drive, in the
    // mean tPROG (the layers' ramp is resolved in long time-based phases only).
    d.resolve_layer_ramp(scale <= 1);
    let user_units = d.capacity().user_bytes_sim / 4096;
    let raw_mus = d.core.layout.total_mus();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "ssdlab bench: {} at scale 1/{scale} ({:.2} GiB raw simulated, {} blocks of {} word lines, {} user 4 KiB units), QD {}",
        a.drive,
        d.capacity().raw_bytes_sim as f64 / (1u64 << 30) as f64,
        d.core.layout.blocks,
        d.core.layout.geo.word_lines_per_block(),
        user_units,
        a.qd
    );
    let mut lba = 0u64;
    closed_loop(&mut d, a.qd, user_units, || {
        lba += 1;
        (lba - 1) * 4096
    })?;
    let mut rng = SplitMix(1);
    closed_loop(&mut d, a.qd, user_units, || rng.below(user_units) * 4096)?;
    let before = d.counters();
    let n = nand_model::cast::sat_u64(user_units as f64 * a.drive_writes);
    // The measured writes run as equal segments, each timed on its own: on a shared machine the
    // wall clock of a segment can stretch when the host steals the CPU, so the median segment
    // is the figure and the spread is shown beside it.
    let segments = a.segments.clamp(1, 100) as u64;
    let mut rates = Vec::with_capacity(segments as usize);
    let (mut done, mut wall) = (0u64, 0.0f64);
    for k in 0..segments {
        let len = n * (k + 1) / segments - n * k / segments;
        let t0 = Instant::now();
        let got = closed_loop(&mut d, a.qd, len, || rng.below(user_units) * 4096)?;
        let dt = t0.elapsed().as_secs_f64();
        rates.push(got as f64 / dt / 1e6);
        (done, wall) = (done + got, wall + dt);
    }
    rates.sort_by(f64::total_cmp);
    let median = rates[rates.len() / 2];
    let c = d.counters();
    let wa =
        (c.nand_write_bytes - before.nand_write_bytes) as f64 / (c.host_write_bytes - before.host_write_bytes) as f64;
    d.check_invariants().map_err(CliError::failed)?;
    let _ = writeln!(
        out,
        "(a) steady-state 4 KiB random writes: {median:.2} M simulated host writes per wall second (median of {segments} segments, range {:.2}-{:.2}; all: {done} in {wall:.2} s = {:.2} M/s; WA {wa:.3})",
        rates[0],
        rates[rates.len() - 1],
        done as f64 / wall / 1e6
    );
    let tb = table_bytes(&d);
    let _ = writeln!(
        out,
        "(b) FTL tables {:.1} MiB = {:.2} bytes per 4 KiB of raw NAND ({raw_mus} units); process RSS {:.1} MiB = {:.2} bytes per 4 KiB",
        tb as f64 / (1u64 << 20) as f64,
        tb as f64 / raw_mus as f64,
        rss_bytes() as f64 / (1u64 << 20) as f64,
        rss_bytes() as f64 / raw_mus as f64
    );
    drop(d);
    if a.full_scale {
        let rss0 = rss_bytes();
        let t0 = Instant::now();
        let opts = DeviceOptions { scale_divisor: 1, track_sequence: a.track_sequence, ..Default::default() };
        let d = SimSsd::new(&p, &opts).map_err(CliError::failed)?;
        let raw_mus = d.core.layout.total_mus();
        let tb = table_bytes(&d);
        let rss = rss_bytes().saturating_sub(rss0);
        let _ = writeln!(
            out,
            "(c) full scale: {:.2} TiB raw, {raw_mus} units, built in {:.1} s: FTL tables {:.2} GiB = {:.2} bytes per 4 KiB; RSS growth {:.2} GiB = {:.2} bytes per 4 KiB",
            d.capacity().raw_bytes_sim as f64 / (1u64 << 40) as f64,
            t0.elapsed().as_secs_f64(),
            tb as f64 / (1u64 << 30) as f64,
            tb as f64 / raw_mus as f64,
            rss as f64 / (1u64 << 30) as f64,
            rss as f64 / raw_mus as f64
        );
    }
    print_out(&out)
}
