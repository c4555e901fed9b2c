//! A job file's absolute sizes on a scaled drive. fio's `size=50g` is 0.7% of a 7.68 TB drive;
//! on the same drive simulated at 1/256 (30 GB) it would be all of it, and a job that writes a
//! small hot region of the full-size drive (WA ~1) would instead write the whole scaled drive
//! (WA ~3.4). A scaled run divides runtimes by the scale factor so that the same fraction of
//! the drive is written; the same factor applied to absolute sizes keeps the same fraction of
//! the drive addressed. Percent sizes are fractions already and block sizes are not sizes of
//! the drive, so neither changes.

use super::{Distribution, JobSpec, SizeSpec};

/// What a job's absolute sizes (`size=`, `offset=`, `io_size=`, ...) are counted on.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SizeBasis {
    /// The device the job runs on: the suites size their jobs from the simulated drive.
    #[default]
    Device,
    /// The full-size drive: a job file's sizes, shrunk with the drive in a scaled run.
    FullScale,
}

/// What one option's value became on the scaled drive.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct ScaledOption {
    /// fio's option name (a zone of `zoned_abs` as `random_distribution zone N`).
    pub option: String,
    /// As written, for the full-size drive.
    pub full_scale: u64,
    /// What the scaled run used.
    pub simulated: u64,
    pub unit: ScaledUnit,
}

/// Unit of a [`ScaledOption`].
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ScaledUnit {
    Bytes,
    /// `number_ios`: a count of I/Os, scaled like runtime so the same share is written.
    Ios,
}

impl JobSpec {
    /// This job on a drive scaled by `time_scale` (simulated / full-size, as the runner's
    /// runtimes): its absolute sizes shrunk by that factor, and what changed. `None` when
    /// nothing changes (sizes of the device, an unscaled drive, or no absolute size).
    ///
    /// A region or amount rounds to the job's smallest block size and keeps at least one of
    /// its largest blocks, so a job that runs on the full-size drive runs here too. An offset
    /// keeps its place within a MiB ([`ALIGNMENT_KEPT`]): `offset=2k` still misaligns 4 KiB
    /// writes, `offset=120k` with `rw=write:112k` still crosses 128 KiB stripes. Strided zones
    /// shrink only while a zone's range stays at least a MiB; smaller zones are an access
    /// pattern (read 64 KiB of each MiB), kept as written.
    pub fn at_scale(&self, time_scale: f64) -> Option<(JobSpec, Vec<ScaledOption>)> {
        if self.sizes != SizeBasis::FullScale
            || !(time_scale < 1.0 && time_scale > 0.0)
            || self.replay.read_iolog.is_some()
        {
            return None;
        }
        let smallest = u64::from((0..3).flat_map(|d| self.block_sizes(d)).min().unwrap_or(4096).max(1));
        let largest = u64::from((0..3).flat_map(|d| self.block_sizes(d)).max().unwrap_or(4096).max(1));
        let mut s = Shrink { ts: time_scale, unit: smallest, changed: Vec::new() };
        let mut out = self.clone();
        out.size = out.size.map(|v| s.size_spec("size", v, largest));
        out.offset = s.offset("offset", out.offset);
        out.offset_increment = s.offset("offset_increment", out.offset_increment);
        out.io_size = out.io_size.map(|v| s.size_spec("io_size", v, largest));
        out.filesize_bytes = out.filesize_bytes.map(|b| s.bytes("filesize", b, largest));
        out.number_ios = out.number_ios.map(|n| {
            let m = nand_model::cast::sat_u64((n as f64 * time_scale).round()).max(1);
            s.changed.push(ScaledOption {
                option: "number_ios".into(),
                full_scale: n,
                simulated: m,
                unit: ScaledUnit::Ios,
            });
            m
        });
        if let Some(z) = out.zones.as_mut().filter(|z| z.range_bytes as f64 * time_scale >= ALIGNMENT_KEPT as f64) {
            z.size_bytes = s.bytes("zonesize", z.size_bytes, largest);
            z.range_bytes = s.bytes("zonerange", z.range_bytes, z.size_bytes);
            z.skip_bytes = s.bytes("zoneskip", z.skip_bytes, 0);
        }
        if let Distribution::Zoned(zones) = &mut out.distribution {
            for (i, zone) in zones.iter_mut().enumerate() {
                zone.size = s.size_spec(&format!("random_distribution zone {}", i + 1), zone.size, s.unit);
            }
        }
        (!s.changed.is_empty()).then_some((out, s.changed))
    }

    /// Bytes a size-based job of a job file writes on the full-size drive when the file gives
    /// the amount in absolute terms (`io_size=`, `size=` or `number_ios=`, times `loops`, times
    /// the write share of a mix; a `filesize` bounds it); `None` for a time-based job, a percentage, a job that does not
    /// write, or a job sized on the device. A scaled run shrinks that amount, while the write
    /// buffer keeps its full size (`runner::warmup`).
    pub fn full_scale_write_bytes(&self) -> Option<u64> {
        use super::RwMode::{RandRw, RandWrite, ReadWrite, Write};
        if self.sizes != SizeBasis::FullScale || self.time_based || self.replay.read_iolog.is_some() {
            return None;
        }
        let write_share = match self.rw {
            Write | RandWrite => 1.0,
            ReadWrite | RandRw => f64::from(100 - self.rwmixread_percent.min(100)) / 100.0,
            _ => return None,
        };
        let per_loop = match (self.number_ios, self.io_size, self.size, self.filesize_bytes) {
            (Some(n), ..) => n.saturating_mul(u64::from(self.bs_bytes[1])),
            (None, Some(SizeSpec::Bytes(b)), ..) => b,
            (None, None, Some(SizeSpec::Bytes(b)), file) => file.map_or(b, |f| b.min(f)),
            (None, None, None, Some(f)) => f,
            _ => return None,
        };
        let total = per_loop as f64 * f64::from(self.loops.max(1)) * write_share;
        (total >= 1.0).then(|| nand_model::cast::sat_u64(total))
    }
}

/// An offset's place within this many bytes survives the shrink (its remainder is kept): it
/// covers every block size, mapping unit, page and stripe whose alignment a job may test.
pub const ALIGNMENT_KEPT: u64 = 1 << 20;

/// Shrinks absolute sizes by `ts`, to whole `unit`s, and records each change.
struct Shrink {
    ts: f64,
    unit: u64,
    changed: Vec<ScaledOption>,
}

impl Shrink {
    fn size_spec(&mut self, option: &str, v: SizeSpec, min: u64) -> SizeSpec {
        match v {
            SizeSpec::Bytes(b) if b > 0 => SizeSpec::Bytes(self.bytes(option, b, min)),
            other => other,
        }
    }

    /// An offset shrunk in whole MiB, its remainder within the MiB kept.
    fn offset(&mut self, option: &str, v: SizeSpec) -> SizeSpec {
        let SizeSpec::Bytes(b) = v else { return v };
        let rest = b % ALIGNMENT_KEPT;
        let mib = nand_model::cast::sat_u64(((b - rest) as f64 * self.ts / ALIGNMENT_KEPT as f64).round());
        let simulated = mib.saturating_mul(ALIGNMENT_KEPT).saturating_add(rest);
        if simulated != b {
            self.changed.push(ScaledOption {
                option: option.into(),
                full_scale: b,
                simulated,
                unit: ScaledUnit::Bytes,
            });
        }
        SizeSpec::Bytes(simulated)
    }

    fn bytes(&mut self, option: &str, b: u64, min: u64) -> u64 {
        if b == 0 {
            return 0;
        }
        let units = nand_model::cast::sat_u64((b as f64 * self.ts / self.unit as f64).round());
        let simulated = units.saturating_mul(self.unit).max(min);
        self.changed.push(ScaledOption { option: option.into(), full_scale: b, simulated, unit: ScaledUnit::Bytes });
        simulated
    }
}
