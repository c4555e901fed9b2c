//! Job files built in code from typed values, for the suites and commands that run fio jobs of
//! their own (user job files are parsed, see [`super::parse_str`]).
//!
//! A built file is what the parser returns for the same options written as a job file: each
//! setter records its `key=value` as fio echoes it ("job options"), numbers it as the next line
//! of that file (for messages), runs the parser's own value checks (`job/checks.rs`) and the
//! section's cross-option checks when it ends. The first problem is kept and returned by
//! [`JobFileBuilder::build`], so a suite option a job cannot take is reported as before.
//!
//! ```
//! use host_bench::job::{build::JobFileBuilder, RwMode};
//! let mut b = JobFileBuilder::new("fill.fio");
//! b.job("fill").rw(RwMode::Write).bs(128 << 10).iodepth(32).size_percent(100.0);
//! let file = b.build().unwrap();
//! assert_eq!(file.jobs[0].iodepth, 32);
//! ```

use super::checks::{
    block_bytes, device_percent, in_range, in_range_u32, nonzero, ns_of, split_total, unmodified, IODEPTH, LOOPS,
    NUMJOBS, PERCENT, RATE_IOPS, SPLIT_ALLOWED,
};
use super::error::{JobError, Loc};
use super::resolve::finish_job;
use super::value::TIME_ALLOWED;
use super::{BsSplitEntry, JobFile, JobSpec, RwMode, SizeSpec};

/// A job file under construction: `[global]` and job sections in order.
#[derive(Debug)]
pub struct JobFileBuilder {
    file: String,
    /// Lines used so far (a section header or an option takes one).
    line: usize,
    global: JobSpec,
    global_options: Vec<(String, String)>,
    /// The open job section; `None` before the first or while `[global]` is open.
    current: Option<JobSpec>,
    jobs: Vec<JobSpec>,
    /// The parser's warnings for the same file (e.g. `time_based` without a runtime).
    warnings: Vec<String>,
    error: Option<JobError>,
}

impl JobFileBuilder {
    /// An empty file; `file` names it in messages and reports.
    pub fn new(file: &str) -> Self {
        JobFileBuilder {
            file: file.to_string(),
            line: 0,
            global: JobSpec::with_defaults("global", 0),
            global_options: Vec::new(),
            current: None,
            jobs: Vec::new(),
            warnings: Vec::new(),
            error: None,
        }
    }

    /// Opens a `[global]` section: its options apply to the job sections after it.
    pub fn global(&mut self) -> Section<'_> {
        self.close();
        self.line += 1;
        Section { b: self }
    }

    /// Opens job section `name`, starting from the globals given so far.
    pub fn job(&mut self, name: &str) -> Section<'_> {
        self.close();
        self.line += 1;
        let mut spec = self.global.clone();
        spec.name = name.to_string();
        spec.line = self.line;
        spec.options.clear();
        self.current = Some(spec);
        Section { b: self }
    }

    /// The file, or the first problem in file order.
    pub fn build(mut self) -> Result<JobFile, JobError> {
        self.close();
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.jobs.is_empty() {
            return Err(JobError::NoJobs { file: self.file });
        }
        Ok(JobFile { file: self.file, global_options: self.global_options, jobs: self.jobs, warnings: self.warnings })
    }

    /// Ends the open job section with the parser's cross-option checks.
    fn close(&mut self) {
        let Some(mut spec) = self.current.take() else { return };
        if self.error.is_none() {
            match finish_job(&mut spec, &self.file) {
                Ok(w) => {
                    self.warnings.extend(w);
                    self.jobs.push(spec);
                }
                Err(e) => self.error = Some(e),
            }
        }
    }
}

/// The open section of a [`JobFileBuilder`]; each setter is one option of it.
#[derive(Debug)]
pub struct Section<'a> {
    b: &'a mut JobFileBuilder,
}

impl Section<'_> {
    /// Records option `key` (echoed as `value`) and applies it unless an earlier one failed.
    fn set(self, key: &str, value: String, apply: impl FnOnce(&mut JobSpec, &Loc) -> Result<(), JobError>) -> Self {
        self.option(key, Some(value), apply)
    }

    /// A flag written without a value: applied, and not echoed (fio 3.33 leaves bare flags out
    /// of "job options").
    fn flag(self, key: &str, apply: impl FnOnce(&mut JobSpec)) -> Self {
        self.option(key, None, |spec, _| {
            apply(spec);
            Ok(())
        })
    }

    /// Applies option `key` (echoed when it has a value) unless an earlier one failed.
    fn option(
        self,
        key: &str,
        value: Option<String>,
        apply: impl FnOnce(&mut JobSpec, &Loc) -> Result<(), JobError>,
    ) -> Self {
        let b = &mut *self.b;
        b.line += 1;
        if b.error.is_some() {
            return self;
        }
        let loc = Loc {
            file: &b.file,
            line: b.line,
            option: key,
            value: value.as_deref().unwrap_or(""),
            kb: Default::default(),
        };
        let (spec, echo) = match b.current.as_mut() {
            Some(spec) => (spec, None),
            None => (&mut b.global, Some(&mut b.global_options)),
        };
        if let Err(e) = apply(spec, &loc) {
            b.error = Some(e);
            return self;
        }
        if let Some(value) = value {
            echo.unwrap_or(&mut spec.options).push((key.to_string(), value));
        }
        self
    }

    /// `stonewall`: wait for every earlier job.
    pub fn stonewall(self) -> Self {
        self.flag("stonewall", |s| s.stonewall = true)
    }

    /// `group_reporting`.
    pub fn group_reporting(self) -> Self {
        self.flag("group_reporting", |s| s.group_reporting = true)
    }

    /// `rw=` without an offset modifier.
    pub fn rw(self, rw: RwMode) -> Self {
        self.set("rw", rw.as_str().to_string(), |s, _| {
            s.rw = rw;
            s.sequencing = unmodified(s.sequencing);
            Ok(())
        })
    }

    /// `rwmixread=`, percent of mixed I/Os that are reads.
    pub fn rwmixread(self, pct: u32) -> Self {
        self.set("rwmixread", pct.to_string(), |s, loc| {
            s.rwmixread_percent = in_range_u32(pct, PERCENT, loc)?;
            Ok(())
        })
    }

    /// `bs=`, one block size for every direction.
    pub fn bs(self, bytes: u32) -> Self {
        self.set("bs", size_text(bytes), |s, loc| {
            s.bs_bytes = [block_bytes(bytes.into(), loc)?; 3];
            Ok(())
        })
    }

    /// `bssplit=READ,WRITE` (trims as writes); entries are (bytes, percent), each list's
    /// percents summing to 100.
    pub fn bssplit(self, read: &[(u32, u32)], write: &[(u32, u32)]) -> Self {
        let text = format!("{},{}", split_text(read), split_text(write));
        self.set("bssplit", text, |s, loc| {
            // As the parser's READ,WRITE form: an empty list keeps its direction; trims take
            // the last list given.
            let (r, w) = (split_of(read, loc)?, split_of(write, loc)?);
            if let Some(r) = &r {
                s.bssplit[0] = r.clone();
            }
            if let Some(w) = &w {
                s.bssplit[1] = w.clone();
            }
            if let Some(t) = w.or(r) {
                s.bssplit[2] = t;
            }
            Ok(())
        })
    }

    /// `iodepth=`.
    pub fn iodepth(self, n: u32) -> Self {
        self.set("iodepth", n.to_string(), |s, loc| {
            s.iodepth = in_range_u32(n, IODEPTH, loc)?;
            Ok(())
        })
    }

    /// `numjobs=`.
    pub fn numjobs(self, n: u32) -> Self {
        self.set("numjobs", n.to_string(), |s, loc| {
            s.numjobs = in_range_u32(n, NUMJOBS, loc)?;
            Ok(())
        })
    }

    /// `size=PCT%` of the device.
    pub fn size_percent(self, pct: f64) -> Self {
        self.set("size", format!("{pct}%"), |s, loc| {
            s.size = Some(nonzero(device_percent(pct, loc)?, loc)?);
            Ok(())
        })
    }

    /// `offset=PCT%` of the device.
    pub fn offset_percent(self, pct: f64) -> Self {
        self.set("offset", format!("{pct}%"), |s, loc| {
            s.offset = device_percent(pct, loc)?;
            Ok(())
        })
    }

    /// `io_size=` in bytes.
    pub fn io_size(self, bytes: u64) -> Self {
        self.set("io_size", bytes.to_string(), |s, loc| {
            s.io_size = Some(nonzero(SizeSpec::Bytes(bytes), loc)?);
            Ok(())
        })
    }

    /// `loops=`.
    pub fn loops(self, n: u32) -> Self {
        self.set("loops", n.to_string(), |s, loc| {
            s.loops = in_range_u32(n, LOOPS, loc)?;
            Ok(())
        })
    }

    /// `runtime=MSms`.
    pub fn runtime_ms(self, ms: u64) -> Self {
        self.set("runtime", format!("{ms}ms"), |s, loc| {
            s.runtime_ns = Some(ns_of(ms as f64, 1e6, TIME_ALLOWED, loc)?);
            Ok(())
        })
    }

    /// `time_based`: run for `runtime` (which the section must set).
    pub fn time_based(self) -> Self {
        self.flag("time_based", |s| s.time_based = true)
    }

    /// `runtime=` of `seconds` at millisecond resolution (at least 1 ms), then `time_based`.
    pub fn time_based_for(self, seconds: f64) -> Self {
        self.runtime_ms(nand_model::cast::sat_u64((seconds * 1000.0).round().max(1.0))).time_based()
    }

    /// `norandommap` and `randrepeat=0`: independent uniform offsets, new ones every run.
    pub fn fresh_uniform_offsets(self) -> Self {
        self.set("norandommap", "1".into(), |s, _| {
            s.norandommap = true;
            Ok(())
        })
        .set("randrepeat", "0".into(), |s, _| {
            s.randrepeat = false;
            Ok(())
        })
    }

    /// `percentage_random=` for every direction.
    pub fn percentage_random(self, pct: u32) -> Self {
        self.set("percentage_random", pct.to_string(), |s, loc| {
            s.percentage_random = [in_range_u32(pct, PERCENT, loc)?; 3];
            Ok(())
        })
    }

    /// `rate_iops=` for every direction.
    pub fn rate_iops(self, iops: u64) -> Self {
        self.set("rate_iops", iops.to_string(), |s, loc| {
            s.rate_iops = [in_range(iops, RATE_IOPS.0, RATE_IOPS.1, loc)?; 3];
            Ok(())
        })
    }

    /// `rate=READ,WRITE` in bytes per second (trims as writes; 0 is no limit).
    pub fn rate(self, read: u64, write: u64) -> Self {
        self.set("rate", format!("{read},{write}"), |s, _| {
            s.rate_bytes = [read, write, write];
            Ok(())
        })
    }
}

/// fio's spelling of a size in bytes: KiB when whole ("4k", "1024k"), else bytes ("512", "0").
pub fn size_text(bytes: u32) -> String {
    if bytes > 0 && bytes.is_multiple_of(1024) {
        format!("{}k", bytes / 1024)
    } else {
        bytes.to_string()
    }
}

fn split_text(split: &[(u32, u32)]) -> String {
    split.iter().map(|&(b, p)| format!("{}/{p}", size_text(b))).collect::<Vec<_>>().join(":")
}

/// One direction's split with the parser's checks; `None` for an empty list (an empty field).
fn split_of(split: &[(u32, u32)], loc: &Loc) -> Result<Option<Vec<BsSplitEntry>>, JobError> {
    if split.is_empty() {
        return Ok(None);
    }
    let mut sum = 0u32;
    let mut out = Vec::with_capacity(split.len());
    for &(bytes, percent) in split {
        let bytes = block_bytes(bytes.into(), loc)?;
        in_range_u32(percent, PERCENT, loc).map_err(|_| loc.bad("has a bad percent", SPLIT_ALLOWED))?;
        sum = sum.saturating_add(percent);
        out.push(BsSplitEntry { bytes, percent });
    }
    split_total(out.len(), sum, 0, loc)?;
    Ok(Some(out))
}
