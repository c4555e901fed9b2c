//! The per-job tables an [`IoPattern`](super::IoPattern) is built from: block-size tables,
//! the offset sampler of the distribution, whether offsets cover the region once per loop, and
//! where the region starts and (with `filesize`) ends.
//! Construction only; nothing here runs per I/O.

use rand::RngCore;
use rand_chacha::ChaCha8Rng;

use super::super::randmap::{FullPeriod, RandomMap};
use super::super::zipf::{ParetoSampler, ZipfSampler};
use super::super::{Distribution, JobSpec, RandomGenerator, SizeSpec};
use super::{Coverage, PatternError, Sampler};

/// fio's rules for the random map: uniform distribution only, blockalign equal to the block
/// size; `lfsr` replaces the map by a full-period sequence (fixed block size only, like fio).
pub(super) fn coverage(
    spec: &JobSpec,
    bs_table: &[Box<[(u32, u32)]>; 3],
    align_bytes: &[u64; 3],
    blocks: u64,
    rng: &mut ChaCha8Rng,
) -> Coverage {
    let uniform = matches!(spec.distribution, Distribution::Uniform);
    let min_bs = |d: usize| bs_table[d].iter().map(|e| u64::from(e.0)).min().unwrap_or(4096);
    let aligned = (0..3).all(|d| align_bytes[d] == min_bs(d));
    if !spec.rw.is_random() || !uniform || blocks == 0 {
        // (Coverage only applies to the uniform sampler: the other samplers draw ranks.)
        return Coverage::None;
    }
    match spec.random_generator {
        RandomGenerator::Lfsr => Coverage::Sequence(FullPeriod::new(blocks, rng.next_u64(), rng.next_u64())),
        _ if spec.norandommap || !aligned => Coverage::None,
        _ => Coverage::Map(RandomMap::new(blocks)),
    }
}

/// Block-size table of a direction: its bssplit, else its single bs at 100%. A bsrange's
/// table holds its two ends, for the checks and the alignment; its lengths are drawn from the
/// range itself (`IoPattern::next_len`).
pub(super) fn bs_entries(spec: &JobSpec, d: usize) -> Box<[(u32, u32)]> {
    let split = &spec.bssplit[d];
    if let Some((lo, hi)) = spec.bs_range[d].filter(|_| split.is_empty()) {
        return vec![(lo, 50), (hi, 100)].into_boxed_slice();
    }
    if split.is_empty() {
        return vec![(spec.bs_bytes[d], 100)].into_boxed_slice();
    }
    // fio sorts a bssplit by percentage, smallest first (`bssplit_ddir`'s qsort; glibc's is
    // stable here): the order decides which size a draw falls to when its own does not fit.
    let mut entries: Vec<_> = split.iter().filter(|e| e.percent > 0).collect();
    entries.sort_by_key(|e| e.percent);
    let mut cum = 0;
    let mut out: Vec<(u32, u32)> = entries
        .into_iter()
        .map(|e| {
            cum += e.percent;
            (e.bytes, cum)
        })
        .collect();
    if out.is_empty() {
        out.push((spec.bs_bytes[d], 100));
    }
    out.into_boxed_slice()
}

pub(super) fn make_sampler(dist: &Distribution, slots: u64, region: u64, unit: u64) -> Sampler {
    match dist {
        Distribution::Uniform => Sampler::Uniform,
        Distribution::Zipf { theta } => Sampler::Zipf(ZipfSampler::new(slots, *theta)),
        Distribution::Pareto { h } => Sampler::Pareto(ParetoSampler::new(slots, *h)),
        Distribution::Normal { sigma_percent } => {
            Sampler::Normal { center: (slots as f64 - 1.0) / 2.0, sigma: slots as f64 * sigma_percent / 100.0 }
        }
        Distribution::Zoned(zones) => {
            let mut first = 0u64;
            let mut cum = 0u32;
            let mut table = Vec::with_capacity(zones.len());
            for z in zones {
                let bytes = match z.size {
                    SizeSpec::Bytes(b) => b,
                    SizeSpec::Percent(p) => nand_model::cast::sat_u64(region as f64 * p / 100.0),
                };
                let count = (bytes / unit).min(slots.saturating_sub(first)).max(1);
                let start = first.min(slots - 1);
                cum += z.access_percent;
                if z.access_percent > 0 {
                    table.push((cum, start, count));
                }
                first += count;
            }
            Sampler::Zoned(table.into_boxed_slice())
        }
    }
}

/// Where `numjobs` clone `subjob` starts, as fio 3.33's `get_start_offset`: `offset + subjob x
/// offset_increment`, and when either is a percentage (of the device) the sum aligned *up* to
/// `offset_align`, or else to the job's smallest block size.
pub(super) fn start_offset(spec: &JobSpec, subjob: u32, capacity_bytes: u64, smallest_bs: u64) -> u64 {
    let bytes = |s: SizeSpec| match s {
        SizeSpec::Bytes(b) => (b, false),
        SizeSpec::Percent(p) => (nand_model::cast::sat_u64(capacity_bytes as f64 * p / 100.0), true),
    };
    let (base, base_pct) = bytes(spec.offset);
    let (step, step_pct) = bytes(spec.offset_increment);
    let raw = base.saturating_add(step.saturating_mul(u64::from(subjob)));
    if !(base_pct || step_pct) {
        return raw;
    }
    let align = if spec.offset_align_bytes > 0 { spec.offset_align_bytes } else { smallest_bs.max(1) };
    raw.div_ceil(align).saturating_mul(align)
}

/// The region of a job with fio's `filesize` (its file: the drive's first `file` bytes), as
/// fio 3.33's `setup_files`: from `start` to the file's end, or `size=N%` of the file (aligned
/// down to the smallest block size) when that is less; an absolute `size` is the amount per loop
/// (`runner::setup`), not the region. A start at or past the file's end leaves no region.
pub(super) fn file_region(
    spec: &JobSpec,
    file: u64,
    start: u64,
    capacity_bytes: u64,
    smallest_bs: u64,
) -> Result<u64, PatternError> {
    if file > capacity_bytes {
        return Err(PatternError::FileBeyondDevice { job: spec.name.clone(), filesize_bytes: file, capacity_bytes });
    }
    let room = file.saturating_sub(start);
    Ok(match spec.size {
        Some(SizeSpec::Percent(p)) => {
            let share = nand_model::cast::sat_u64(file as f64 * p / 100.0);
            (share - share % smallest_bs.max(1)).min(room)
        }
        _ => room,
    })
}
