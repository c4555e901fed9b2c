//! Stage two: apply one option to a [`JobSpec`], validating its value.

use super::checks::{
    block_bytes, nonzero, split_total, storage_engine, unmodified, IODEPTH, LOOPS, NUMJOBS, PERCENT, RATE_IOPS,
    SPLIT_ALLOWED,
};
use super::error::{JobError, Loc};
use super::value::{
    boolean, float_in, int_in, int_in_u32, per_dir, size_bytes, size_spec, time_ns, time_ns_bare, KbBase,
};
use super::{
    BsSplitEntry, Distribution, JobSpec, RandomGenerator, RwMode, Sequencing, SizeSpec, SsMetric, SteadyState,
    StridedZones, UnifiedRw, Zone,
};

/// Whether an option was recognised.
pub(crate) enum Applied {
    Known,
    Unknown,
}

/// Applies an implemented option, by its canonical name (see [`super::registry`]), to `spec`.
/// `Unknown` means the registry calls a name implemented that this function does not handle.
pub(crate) fn apply_option(spec: &mut JobSpec, key: &str, value: Option<&str>, loc: &Loc) -> Result<Applied, JobError> {
    let v = value.unwrap_or("");
    match key {
        "name" => spec.name = v.to_string(),
        "description" => spec.description = Some(v.to_string()),
        "filename" => spec.filename = Some(v.to_string()),
        "ioengine" => storage_engine(v, loc)?,
        // io_uring_cmd's passthrough reads and writes are the drive's NVMe reads and writes.
        "cmd_type" if v.trim() != "nvme" => return Err(loc.bad("is not a command type of fio 3.33", "nvme")),
        "cmd_type" => {}
        "rw" => (spec.rw, spec.sequencing) = rw_mode(v, spec.sequencing, loc)?,
        "rw_sequencer" => {
            spec.sequencing.identical = match v.trim() {
                "sequential" => false,
                "identical" => true,
                _ => return Err(loc.bad("is not a sequencer", "sequential, identical")),
            }
        }
        "bs" => spec.bs_bytes = per_dir(v, spec.bs_bytes, loc, |f| block_size(f, loc))?,
        "bssplit" => spec.bssplit = bssplit(v, &spec.bssplit, loc)?,
        "bsrange" => spec.bs_range = per_dir(v, spec.bs_range, loc, |f| bs_range(f, loc).map(Some))?,
        "ba" => spec.blockalign_bytes = Some(block_size(v, loc)?),
        "rwmixread" => spec.rwmixread_percent = int_in_u32(v, PERCENT.0, PERCENT.1, loc)?,
        "rwmixwrite" => spec.rwmixread_percent = 100 - int_in_u32(v, 0, 100, loc)?,
        "iodepth" => spec.iodepth = int_in_u32(v, IODEPTH.0, IODEPTH.1, loc)?,
        "numjobs" => spec.numjobs = int_in_u32(v, NUMJOBS.0, NUMJOBS.1, loc)?,
        "size" => spec.size = Some(nonzero_size(v, loc)?),
        "offset" => spec.offset = size_spec(v, loc)?,
        "offset_increment" => spec.offset_increment = size_spec(v, loc)?,
        "offset_align" => spec.offset_align_bytes = size_bytes(v, loc)?,
        "io_size" => spec.io_size = Some(nonzero_size(v, loc)?),
        "filesize" => spec.filesize_bytes = Some(filesize(v, loc)?),
        "number_ios" => spec.number_ios = Some(int_in(v, 1, u64::MAX, loc)?),
        "runtime" => spec.runtime_ns = Some(time_ns(v, loc)?),
        "time_based" => spec.time_based = boolean(value, loc)?,
        "ramp_time" => spec.ramp_time_ns = time_ns(v, loc)?,
        "loops" => spec.loops = int_in_u32(v, LOOPS.0, LOOPS.1, loc)?,
        "stonewall" => spec.stonewall = boolean(value, loc)?,
        "new_group" => spec.new_group = boolean(value, loc)?,
        "exitall" => spec.exitall = boolean(value, loc)?,
        "exit_what" => {
            spec.exit_what = match v.trim() {
                "group" => super::ExitWhat::Group,
                "stonewall" => super::ExitWhat::Stonewall,
                "all" => super::ExitWhat::All,
                _ => return Err(loc.bad("is not an exit_what of fio 3.33", "group, stonewall, all")),
            }
        }
        "wait_for" => spec.wait_for = Some(v.trim().to_string()),
        "random_distribution" => spec.distribution = distribution(v, loc)?,
        "percentage_random" => {
            spec.percentage_random =
                per_dir(v, spec.percentage_random, loc, |f| int_in_u32(f, PERCENT.0, PERCENT.1, loc))?
        }
        "norandommap" => spec.norandommap = boolean(value, loc)?,
        "random_generator" => spec.random_generator = random_generator(v, loc)?,
        "randrepeat" => spec.randrepeat = boolean(value, loc)?,
        "percentile_list" => spec.percentile_list = percentile_list(v, loc)?,
        "steadystate" => spec.steadystate = Some(steady_state(v, spec.steadystate, loc)?),
        "steadystate_duration" => ss_mut(spec).dur_ns = time_ns(v, loc)?,
        "steadystate_ramp_time" => ss_mut(spec).ramp_ns = time_ns(v, loc)?,
        "group_reporting" => spec.group_reporting = boolean(value, loc)?,
        "unified_rw_reporting" => {
            spec.unified_rw = match v.trim() {
                "none" | "0" => UnifiedRw::None,
                "mixed" | "1" => UnifiedRw::Mixed,
                "both" | "2" => UnifiedRw::Both,
                _ => return Err(loc.bad("is not a reporting mode", "none, mixed, both, 0, 1, 2")),
            }
        }
        "rate_iops" => spec.rate_iops = per_dir(v, spec.rate_iops, loc, |f| int_in(f, RATE_IOPS.0, RATE_IOPS.1, loc))?,
        "rate" => spec.rate_bytes = per_dir(v, spec.rate_bytes, loc, |f| size_bytes(f, loc))?,
        "rate_min" => spec.rate_min_bytes = per_dir(v, spec.rate_min_bytes, loc, |f| size_bytes(f, loc))?,
        "rate_iops_min" => {
            spec.rate_iops_min = per_dir(v, spec.rate_iops_min, loc, |f| int_in(f, RATE_IOPS.0, RATE_IOPS.1, loc))?
        }
        "rate_cycle" => spec.rate_cycle_ms = int_in(v, 0, u64::from(u32::MAX), loc)?,
        "max_latency" => spec.max_latency_ns = per_dir(v, spec.max_latency_ns, loc, |f| usec_time_ns(f, loc))?,
        "rate_process" => {
            spec.rate_poisson = match v.trim() {
                "linear" => false,
                "poisson" => true,
                _ => return Err(loc.bad("is not a rate process", "linear, poisson")),
            }
        }
        "latency_target" => spec.latency.target_ns = usec_time_ns(v, loc)?,
        "latency_window" => spec.latency.window_ns = usec_time_ns(v, loc)?,
        "latency_percentile" => spec.latency.percentile = float_in(v, 0.0, 100.0, loc)?,
        "latency_run" => spec.latency.run = boolean(value, loc)?,
        "flow_id" => spec.flow.id = int_in_u32(v, 0, u32::MAX, loc)?,
        // fio 3.33 stores a negative weight unsigned (-1 is 4294967295), which wraps the
        // flow's total weight: refused rather than reproduced.
        "flow" => spec.flow.weight = int_in_u32(v, 0, 1000, loc)?,
        "startdelay" => {
            spec.start_delay_ns = match v.split_once('-') {
                Some((lo, hi)) => {
                    let (lo, hi) = (time_ns(lo, loc)?, time_ns(hi, loc)?);
                    (lo.min(hi), lo.max(hi))
                }
                None => (time_ns(v, loc)?, 0),
            }
        }
        "thinktime" => spec.think.ns = time_ns_bare(v, 1e3, loc)?,
        "thinktime_spin" => spec.think.spin_ns = time_ns_bare(v, 1e3, loc)?,
        "thinktime_blocks" => spec.think.blocks = Some(int_in(v, 1, u64::from(u32::MAX), loc)?),
        "thinktime_blocks_type" => {
            spec.think.by_issue = match v.trim() {
                "complete" => false,
                "issue" => true,
                _ => return Err(loc.bad("is not a blocks type", "complete, issue")),
            }
        }
        "thinktime_iotime" => spec.think.iotime_ns = time_ns(v, loc)?,
        "flow_sleep" => spec.flow.sleep_us = int_in(v, 0, u64::from(u32::MAX), loc)?,
        "io_submit_mode" => {
            spec.submit_offload = match v.trim() {
                "inline" => false,
                "offload" => true,
                _ => return Err(loc.bad("is not a submit mode", "inline, offload")),
            }
        }
        "verify" => spec.verify = verify_method(v, loc)?,
        "do_verify" => spec.do_verify = boolean(value, loc)?,
        "write_iolog" if !v.trim().is_empty() => spec.write_iolog = Some(v.trim().to_string()),
        "write_iolog" => return Err(loc.bad("is empty", "a file path")),
        "read_iolog" if !v.trim().is_empty() => spec.replay.read_iolog = Some(v.trim().to_string()),
        "read_iolog" => return Err(loc.bad("is empty", "a fio iolog (version 2 or 3)")),
        "replay_no_stall" => spec.replay.no_stall = boolean(value, loc)?,
        "replay_time_scale" => spec.replay.time_scale_percent = int_in_u32(v, 1, u32::MAX, loc)?,
        "replay_scale" => spec.replay.offset_divisor = int_in(v, 1, u64::from(u32::MAX), loc)?,
        "replay_align" => {
            let a = size_bytes(v, loc)?;
            if a != 0 && !a.is_power_of_two() {
                return Err(loc.bad("is not a power of two", "0 or a power of two, e.g. 4k"));
            }
            spec.replay.align_bytes = a;
        }
        "replay_redirect" => spec.replay.redirect = Some(v.trim().to_string()),
        // fio: without a value the prefix is the job's name.
        "write_bw_log" => spec.logs.bw = Some(log_prefix(v, spec)),
        "write_iops_log" => spec.logs.iops = Some(log_prefix(v, spec)),
        "write_lat_log" => spec.logs.lat = Some(log_prefix(v, spec)),
        "log_avg_msec" => spec.logs.avg_msec = int_in(v, 0, u64::from(u32::MAX), loc)?,
        "log_max_value" => spec.logs.max_value = boolean(value, loc)?,
        "log_offset" => spec.logs.offset = boolean(value, loc)?,
        "log_prio" => spec.logs.prio = boolean(value, loc)?,
        "per_job_logs" => spec.logs.per_job = boolean(value, loc)?,
        "zonemode" => {
            spec.zone_options.strided = match v.trim() {
                "none" => false,
                "strided" => true,
                _ => {
                    return Err(loc
                        .bad("is not supported", "none, strided (zbd zones are not modelled; use one job per region)"))
                }
            }
        }
        "zonesize" => spec.zone_options.size_bytes = size_bytes(v, loc)?,
        "zonerange" => spec.zone_options.range_bytes = size_bytes(v, loc)?,
        "zoneskip" => spec.zone_options.skip_bytes = size_bytes(v, loc)?,
        "kb_base" => {
            spec.kb_base = match v.trim() {
                "1024" => KbBase::Binary,
                "1000" => KbBase::Decimal,
                _ => return Err(loc.bad("is not a kb_base", "1024 (fio's default) or 1000")),
            }
        }
        _ => return Ok(Applied::Unknown),
    }
    Ok(Applied::Known)
}

/// fio's time options without `is_seconds` (latency_target, latency_window): a bare number is
/// microseconds; with a unit, the unit.
fn usec_time_ns(v: &str, loc: &Loc) -> Result<u64, JobError> {
    let t = v.trim();
    if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
        let us = int_in(t, 0, u64::MAX / 1000, loc)?;
        return Ok(us * 1000);
    }
    time_ns(v, loc)
}

fn log_prefix(v: &str, spec: &JobSpec) -> String {
    if v.trim().is_empty() {
        spec.name.clone()
    } else {
        v.trim().to_string()
    }
}

/// `ss_dur`/`ss_ramp` may come before `steadystate`; they wait on a placeholder with limit 0
/// (a real criterion always has a limit > 0), dropped by [`finish_job`] if never completed.
fn ss_mut(spec: &mut JobSpec) -> &mut SteadyState {
    spec.steadystate.get_or_insert(SteadyState {
        metric: SsMetric::IopsSlope,
        limit: 0.0,
        limit_is_percent: true,
        dur_ns: 0,
        ramp_ns: 0,
    })
}

/// Cross-option checks once a job section is complete.
pub(crate) fn finish_job(spec: &mut JobSpec, file: &str) -> Result<Vec<String>, JobError> {
    if spec.steadystate.is_some_and(|s| s.limit <= 0.0) {
        spec.steadystate = None;
    }
    let z = spec.zone_options;
    let size_text = z.size_bytes.to_string();
    let zone_loc = |option, value| Loc { file, line: spec.line, option, value, kb: spec.kb_base };
    const ZONES: &str = "zonemode=strided with zonesize > 0";
    spec.zones = match (z.strided, z.size_bytes) {
        // fio 3.33's checks (init.c).
        (false, 0) => None,
        (false, _) => return Err(zone_loc("zonesize", &size_text).bad("needs zonemode=strided", ZONES)),
        (true, 0) => return Err(zone_loc("zonemode", "strided").bad("needs a zonesize", ZONES)),
        (true, size) => Some(StridedZones {
            size_bytes: size,
            range_bytes: if z.range_bytes == 0 { size } else { z.range_bytes },
            skip_bytes: z.skip_bytes,
        }),
    };
    rate_checks(spec, file)?;
    let steered = [
        ("latency_target", spec.latency.target_ns > 0),
        ("flow", spec.flow.weight > 0),
        ("thinktime", spec.think.active()),
    ];
    if let Some((option, _)) = steered.into_iter().find(|s| s.1) {
        let paced = [("rate_iops", spec.rate_limited()), ("read_iolog", spec.replay.read_iolog.is_some())];
        if let Some((other, _)) = paced.into_iter().find(|p| p.1) {
            let loc = Loc { file, line: spec.line, option, value: "", kb: spec.kb_base };
            return Err(loc.bad(&format!("cannot be combined with {other} here"), "one of them per job"));
        }
    }
    let mut warnings = Vec::new();
    if spec.time_based && spec.runtime_ns.unwrap_or(0) == 0 {
        // fio 3.33 (init.c fixup_options) says so and runs the job without time_based.
        spec.time_based = false;
        warnings.push(format!(
            "{file}:{}: job '{}': time_based requires a runtime; time_based is off, as in fio",
            spec.line, spec.name
        ));
    }
    Ok(warnings)
}

/// fio 3.33's checks of the rate options (init.c `fixup_options`): a limit and a minimum are
/// each given in bytes or in I/Os, not both, and no direction's minimum exceeds its limit.
fn rate_checks(spec: &JobSpec, file: &str) -> Result<(), JobError> {
    let loc = |option| Loc { file, line: spec.line, option, value: "", kb: spec.kb_base };
    let any = |v: &[u64; 3]| v.iter().any(|&r| r > 0);
    if any(&spec.rate_bytes) && any(&spec.rate_iops) {
        return Err(loc("rate").bad("cannot be combined with rate_iops (fio: mutually exclusive)", "one of them"));
    }
    if any(&spec.rate_min_bytes) && any(&spec.rate_iops_min) {
        return Err(
            loc("rate_min").bad("cannot be combined with rate_iops_min (fio: mutually exclusive)", "one of them")
        );
    }
    for d in 0..3 {
        let (limit, min, option) = if spec.rate_bytes[d] > 0 {
            (spec.rate_bytes[d], spec.rate_min_bytes[d], "rate_min")
        } else {
            (spec.rate_iops[d], spec.rate_iops_min[d], "rate_iops_min")
        };
        if limit > 0 && limit < min {
            let (dir, text) = (["read", "write", "trim"][d], min.to_string());
            let at = Loc { file, line: spec.line, option, value: &text, kb: spec.kb_base };
            return Err(at.bad(
                &format!("exceeds the {dir} rate limit {limit} (fio: minimum rate exceeds rate)"),
                "a minimum <= the limit",
            ));
        }
    }
    Ok(())
}

/// fio's verify methods; `0` means none.
fn verify_method(v: &str, loc: &Loc) -> Result<Option<String>, JobError> {
    const METHODS: [&str; 19] = [
        "md5",
        "crc64",
        "crc32",
        "crc32c-intel",
        "crc32c",
        "crc16",
        "crc7",
        "sha1",
        "sha256",
        "sha512",
        "sha3-224",
        "sha3-256",
        "sha3-384",
        "sha3-512",
        "xxhash",
        "meta",
        "pattern",
        "null",
        "0",
    ];
    match v.trim() {
        "0" => Ok(None),
        m if METHODS.contains(&m) => Ok(Some(m.to_string())),
        _ => Err(loc.bad("is not a verify method", &METHODS.join(", "))),
    }
}

fn random_generator(v: &str, loc: &Loc) -> Result<RandomGenerator, JobError> {
    Ok(match v.trim() {
        "tausworthe" => RandomGenerator::Tausworthe,
        "tausworthe64" => RandomGenerator::Tausworthe64,
        "lfsr" => RandomGenerator::Lfsr,
        _ => return Err(loc.bad("is not a known generator", "tausworthe, lfsr, tausworthe64")),
    })
}

/// `rw=pattern[:N]`: the pattern, and fio's offset modifier (str_rw_cb): for random patterns a
/// count of I/Os per new random offset, for sequential ones a signed size added after each I/O.
fn rw_mode(v: &str, seq: Sequencing, loc: &Loc) -> Result<(RwMode, Sequencing), JobError> {
    let (name, modifier) = v.trim().split_once(':').unwrap_or((v.trim(), ""));
    let mode = rw_name(name, loc)?;
    let mut seq = unmodified(seq);
    let m = modifier.trim();
    if m.is_empty() {
        return Ok((mode, seq));
    }
    if mode.is_random() {
        let n = size_bytes(m, loc)
            .map_err(|_| loc.bad("has a bad offset modifier", "randread:N with N in 1..=4294967295"))?;
        if n == 0 || n > u64::from(u32::MAX) {
            return Err(loc.bad("has an offset modifier out of range", "randread:N with N in 1..=4294967295"));
        }
        seq.every_nr = u32::try_from(n)
            .map_err(|_| loc.bad("has an offset modifier out of range", "randread:N with N in 1..=4294967295"))?;
    } else {
        let (neg, mag) = match m.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, m.strip_prefix('+').unwrap_or(m)),
        };
        let bytes = size_bytes(mag, loc)
            .map_err(|_| loc.bad("has a bad offset modifier", "read:SIZE, e.g. write:4k or read:-8k"))?;
        let bytes =
            i64::try_from(bytes).map_err(|_| loc.bad("has an offset modifier out of range", "|SIZE| < 2^63"))?;
        seq.add_bytes = if neg { -bytes } else { bytes };
    }
    Ok((mode, seq))
}

fn rw_name(v: &str, loc: &Loc) -> Result<RwMode, JobError> {
    Ok(match v.trim() {
        "read" => RwMode::Read,
        "write" => RwMode::Write,
        "trim" => RwMode::Trim,
        "randread" => RwMode::RandRead,
        "randwrite" => RwMode::RandWrite,
        "randtrim" => RwMode::RandTrim,
        "rw" | "readwrite" => RwMode::ReadWrite,
        "randrw" => RwMode::RandRw,
        _ => {
            return Err(loc.bad(
                "is not a known pattern",
                "read, write, trim, randread, randwrite, randtrim, rw, readwrite, randrw",
            ))
        }
    })
}

/// A block size: 1 byte ..= 1 GiB.
fn block_size(v: &str, loc: &Loc) -> Result<u32, JobError> {
    block_bytes(size_bytes(v, loc)?, loc)
}

/// `min-max` or `min:max`, either order (fio swaps them).
fn bs_range(v: &str, loc: &Loc) -> Result<(u32, u32), JobError> {
    let (a, b) = v
        .split_once('-')
        .or_else(|| v.split_once(':'))
        .ok_or_else(|| loc.bad("is not a range", "min-max block sizes per direction, e.g. 4k-64k or 4k-64k,8k-16k"))?;
    let (a, b) = (block_size(a.trim(), loc)?, block_size(b.trim(), loc)?);
    Ok((a.min(b), a.max(b)))
}

/// fio `filesize`: one size (fio's range `lo-hi` / `lo:hi` with equal ends is one size too). A
/// real range draws a size per file, and ssdlab has one file, the drive.
fn filesize(v: &str, loc: &Loc) -> Result<u64, JobError> {
    const ALLOWED: &str = "one size > 0, e.g. filesize=16g (a range draws a size per file; the drive is one file)";
    let (lo, hi) = match v.split_once(['-', ':']) {
        Some((lo, hi)) => (size_bytes(lo, loc)?, size_bytes(hi, loc)?),
        None => (size_bytes(v, loc)?, size_bytes(v, loc)?),
    };
    if lo != hi {
        return Err(loc.bad("is a range of file sizes", ALLOWED));
    }
    if lo == 0 {
        return Err(loc.bad("is zero", ALLOWED));
    }
    Ok(lo)
}

fn nonzero_size(v: &str, loc: &Loc) -> Result<SizeSpec, JobError> {
    nonzero(size_spec(v, loc)?, loc)
}

/// `4k/50:8k/30:64k/` per direction; empty percents share the remainder equally.
fn bssplit(v: &str, current: &[Vec<BsSplitEntry>; 3], loc: &Loc) -> Result<[Vec<BsSplitEntry>; 3], JobError> {
    let fields: Vec<&str> = v.split(',').collect();
    if fields.len() > 3 {
        return Err(loc.bad("has too many fields", "at most 3 comma-separated lists: read,write,trim"));
    }
    let mut out = current.clone();
    let mut last: Option<Vec<BsSplitEntry>> = None;
    for (i, slot) in out.iter_mut().enumerate() {
        match fields.get(i).map(|f| f.trim()) {
            Some("") => {}
            Some(field) => {
                let list = bssplit_one(field, loc)?;
                *slot = list.clone();
                last = Some(list);
            }
            None => {
                if let Some(list) = &last {
                    *slot = list.clone();
                }
            }
        }
    }
    Ok(out)
}

fn bssplit_one(field: &str, loc: &Loc) -> Result<Vec<BsSplitEntry>, JobError> {
    let mut entries = Vec::new();
    let mut open = 0u32;
    let mut sum = 0u32;
    for item in field.split(':').filter(|s| !s.trim().is_empty()) {
        let (bs, pct) = item.split_once('/').unwrap_or((item, ""));
        let bytes = block_size(bs, loc)?;
        let percent = if pct.trim().is_empty() {
            open = open.saturating_add(1);
            None
        } else {
            let p =
                int_in_u32(pct, PERCENT.0, PERCENT.1, loc).map_err(|_| loc.bad("has a bad percent", SPLIT_ALLOWED))?;
            sum = sum.saturating_add(p);
            Some(p)
        };
        entries.push((bytes, percent));
    }
    split_total(entries.len(), sum, open, loc)?;
    let rest = 100 - sum;
    let (share, mut extra) = (rest.checked_div(open).unwrap_or(0), rest.checked_rem(open).unwrap_or(0));
    Ok(entries
        .into_iter()
        .map(|(bytes, p)| {
            let percent = p.unwrap_or_else(|| {
                let e = u32::from(extra > 0);
                extra = extra.saturating_sub(1);
                share + e
            });
            BsSplitEntry { bytes, percent }
        })
        .collect())
}

fn distribution(v: &str, loc: &Loc) -> Result<Distribution, JobError> {
    const ALLOWED: &str = "random, zipf:theta, pareto:h, normal:sigma%, zoned:pct/pct:..., zoned_abs:pct/size:...";
    let (kind, arg) = v.trim().split_once(':').unwrap_or((v.trim(), ""));
    let need_arg = |lo: f64, hi: f64| -> Result<f64, JobError> {
        let f: f64 = arg.parse().map_err(|_| loc.bad("has a bad parameter", ALLOWED))?;
        if !(f > lo && f < hi) {
            return Err(loc.bad("has a parameter out of range", &format!("{kind} parameter in ({lo}, {hi})")));
        }
        Ok(f)
    };
    Ok(match kind {
        "random" if arg.is_empty() => Distribution::Uniform,
        "zipf" => Distribution::Zipf { theta: need_arg(0.0, 100.0)? },
        "pareto" => Distribution::Pareto { h: need_arg(0.0, 1.0)? },
        "normal" | "gauss" => Distribution::Normal { sigma_percent: need_arg(0.0, 1000.0)? },
        "zoned" => Distribution::Zoned(zones(arg, false, loc)?),
        "zoned_abs" => Distribution::Zoned(zones(arg, true, loc)?),
        _ => return Err(loc.bad("is not a known distribution", ALLOWED)),
    })
}

/// `60/10:30/20:10/70`; access percents sum to 100, zone sizes (percent) to at most 100.
fn zones(arg: &str, absolute: bool, loc: &Loc) -> Result<Vec<Zone>, JobError> {
    const ALLOWED: &str = "access%/size entries separated by ':' whose access percents sum to 100";
    let mut out = Vec::new();
    let (mut access_sum, mut size_pct_sum) = (0u32, 0.0f64);
    for item in arg.split(':').filter(|s| !s.trim().is_empty()) {
        let (a, s) = item.split_once('/').ok_or_else(|| loc.bad("has a zone without size", ALLOWED))?;
        let access_percent = int_in_u32(a, 0, 100, loc).map_err(|_| loc.bad("has a bad access percent", ALLOWED))?;
        let size = if absolute {
            SizeSpec::Bytes(size_bytes(s, loc)?)
        } else if s.trim().is_empty() {
            // fio: a zone with no size takes the rest of the region ("zoned:50/5:30/15:20/").
            let rest = (100.0 - size_pct_sum).max(0.0);
            size_pct_sum = 100.0;
            SizeSpec::Percent(rest)
        } else {
            let p = float_in(s.trim_end_matches('%'), 0.0, 100.0, loc)?;
            size_pct_sum += p;
            SizeSpec::Percent(p)
        };
        access_sum = access_sum.saturating_add(access_percent);
        out.push(Zone { access_percent, size });
    }
    if out.is_empty() || access_sum != 100 {
        return Err(loc.bad(&format!("has access percents summing to {access_sum}"), ALLOWED));
    }
    if size_pct_sum > 100.0 + 1e-9 {
        return Err(loc.bad("has zone sizes above 100%", "zone sizes summing to at most 100%"));
    }
    Ok(out)
}

fn percentile_list(v: &str, loc: &Loc) -> Result<Vec<f64>, JobError> {
    const ALLOWED: &str = "1 to 20 percentiles in (0, 100] separated by ':'";
    let mut out = Vec::new();
    for item in v.split(':').filter(|s| !s.trim().is_empty()) {
        let p: f64 = item.trim().parse().map_err(|_| loc.bad("is not a percentile list", ALLOWED))?;
        if !(p > 0.0 && p <= 100.0) {
            return Err(loc.bad("has a percentile out of range", ALLOWED));
        }
        out.push(p);
    }
    if out.is_empty() || out.len() > 20 {
        return Err(loc.bad("has the wrong number of entries", ALLOWED));
    }
    Ok(out)
}

fn steady_state(v: &str, prev: Option<SteadyState>, loc: &Loc) -> Result<SteadyState, JobError> {
    const ALLOWED: &str = "iops:L, iops_slope:L, bw:L, bw_slope:L with L a number or a percent, e.g. iops_slope:0.3%";
    let (m, lim) = v.trim().split_once(':').ok_or_else(|| loc.bad("is not a steady-state criterion", ALLOWED))?;
    let metric = match m {
        "iops" => SsMetric::Iops,
        "iops_slope" => SsMetric::IopsSlope,
        "bw" => SsMetric::Bw,
        "bw_slope" => SsMetric::BwSlope,
        _ => return Err(loc.bad("has an unknown metric", ALLOWED)),
    };
    let (num, limit_is_percent) = match lim.trim().strip_suffix('%') {
        Some(n) => (n, true),
        None => (lim.trim(), false),
    };
    let limit: f64 = match metric {
        SsMetric::Bw | SsMetric::BwSlope if !limit_is_percent => size_bytes(num, loc)? as f64,
        _ => num.parse().map_err(|_| loc.bad("has a bad limit", ALLOWED))?,
    };
    if !(limit.is_finite() && limit > 0.0) {
        return Err(loc.bad("has a limit out of range", ALLOWED));
    }
    let (dur_ns, ramp_ns) = prev.map_or((0, 0), |p| (p.dur_ns, p.ramp_ns));
    Ok(SteadyState { metric, limit, limit_is_percent, dur_ns, ramp_ns })
}
