//! Checks of option values once they are numbers, shared by the parser (after it reads a
//! value's text) and the typed builder ([`super::build`]): a job built in code is refused with
//! exactly the message the same job written as text gets.

use super::error::{JobError, Loc};
use super::{Sequencing, SizeSpec};

/// Allowed values of the integer options both paths set.
pub(crate) const PERCENT: (u32, u32) = (0, 100);
pub(crate) const IODEPTH: (u32, u32) = (1, 65536);
pub(crate) const NUMJOBS: (u32, u32) = (1, 4096);
pub(crate) const LOOPS: (u32, u32) = (1, u32::MAX);
pub(crate) const RATE_IOPS: (u64, u64) = (0, 1_000_000_000);

/// What a `bssplit` list may be, in its messages.
pub(crate) const SPLIT_ALLOWED: &str = "size/percent entries separated by ':' summing to 100, e.g. 4k/50:8k/30:64k/";

/// `n` in `min..=max`.
pub(crate) fn in_range(n: u64, min: u64, max: u64, loc: &Loc) -> Result<u64, JobError> {
    if n < min || n > max {
        return Err(loc.bad("is out of range", &format!("{min}..={max}")));
    }
    Ok(n)
}

/// [`in_range`] for a `u32` option and its `(min, max)`.
pub(crate) fn in_range_u32(n: u32, (min, max): (u32, u32), loc: &Loc) -> Result<u32, JobError> {
    in_range(n.into(), min.into(), max.into(), loc).map(|_| n)
}

/// A block size: 1 byte ..= 1 GiB.
pub(crate) fn block_bytes(n: u64, loc: &Loc) -> Result<u32, JobError> {
    if n == 0 || n > 1 << 30 {
        return Err(loc.bad("is out of range", "1..=1GiB"));
    }
    u32::try_from(n).map_err(|_| loc.bad("is out of range", "1..=1GiB"))
}

/// A region size (`size`, `io_size`): more than nothing.
pub(crate) fn nonzero(s: SizeSpec, loc: &Loc) -> Result<SizeSpec, JobError> {
    match s {
        SizeSpec::Bytes(0) => Err(loc.bad("is zero", "a size > 0 or a percent > 0")),
        SizeSpec::Percent(p) if p <= 0.0 => Err(loc.bad("is zero", "a size > 0 or a percent > 0")),
        _ => Ok(s),
    }
}

/// A share of the device, percent.
pub(crate) fn device_percent(pct: f64, loc: &Loc) -> Result<SizeSpec, JobError> {
    if !(0.0..=100.0).contains(&pct) {
        return Err(loc.bad("is out of range", "0..=100%"));
    }
    Ok(SizeSpec::Percent(pct))
}

/// `n` time units of `unit_ns` nanoseconds each, computed in `f64` as fio values are read.
pub(crate) fn ns_of(n: f64, unit_ns: f64, allowed: &str, loc: &Loc) -> Result<u64, JobError> {
    let ns = n * unit_ns;
    if !ns.is_finite() || ns >= u64::MAX as f64 {
        return Err(loc.bad("is too long", allowed));
    }
    Ok(nand_model::cast::sat_u64(ns))
}

/// One direction's `bssplit` totals: `entries` sizes whose given percents sum to `sum`, `open`
/// of them without a percent (they share the rest).
pub(crate) fn split_total(entries: usize, sum: u32, open: u32, loc: &Loc) -> Result<(), JobError> {
    if entries == 0 || sum > 100 || (open == 0 && sum != 100) {
        return Err(loc.bad(&format!("sums to {sum}%, not 100%"), SPLIT_ALLOWED));
    }
    Ok(())
}

/// The sequencing after an `rw=` without an offset modifier: no holes, a new random offset per
/// I/O (`rw_sequencer` is kept).
pub(crate) fn unmodified(seq: Sequencing) -> Sequencing {
    Sequencing { add_bytes: 0, every_nr: 1, ..seq }
}

/// fio 3.33's engines that issue no reads or writes of data (`fio --enghelp`): a job using one
/// measures a CPU, a network or file-system metadata, not a drive, so it is refused rather
/// than run as block I/O.
const NON_STORAGE_ENGINES: &[(&str, &str)] = &[
    ("cpuio", "burns CPU"),
    ("net", "moves data over a network socket"),
    ("netsplice", "moves data over a network socket"),
    ("rdma", "moves data over RDMA"),
    ("exec", "runs a program"),
    ("ftruncate", "truncates files"),
    ("falloc", "allocates file space"),
    ("e4defrag", "defragments ext4 files"),
    ("filecreate", "creates files"),
    ("filestat", "stats files"),
    ("filedelete", "deletes files"),
    ("dircreate", "creates directories"),
    ("dirstat", "stats directories"),
    ("dirdelete", "deletes directories"),
];

/// Refuses an `ioengine` whose operations are not reads and writes of data.
pub(crate) fn storage_engine(v: &str, loc: &Loc) -> Result<(), JobError> {
    let engine = v.trim();
    match NON_STORAGE_ENGINES.iter().find(|(name, _)| *name == engine) {
        Some((_, what)) => Err(loc.bad(
            &format!("{what}, not reads and writes of a drive's blocks"),
            "an engine that reads and writes data, e.g. psync, libaio, io_uring (any of them drives the simulator)",
        )),
        None => Ok(()),
    }
}
