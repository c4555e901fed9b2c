//! Drive snapshots: the complete state of a simulated drive (mapping, block table, valid and
//! erase counts, open blocks, write buffer, commands and NAND operations in flight, event
//! queues, power governor and meter, simulated clock), plus where the host's job numbering
//! stands, in one versioned, checksummed file, so a run can continue from it exactly as if it
//! had never stopped.
//!
//! File layout (integers little-endian):
//! `magic "SSDLSNAP"` | `format u32` | `meta length u32` | meta (JSON, readable with `head -c`)
//! | `payload length u64` | `CRC-32 u32` of meta and payload | payload (zstd of bincode).
//!
//! A snapshot loads only into the drive it was made on: same ssdlab version, profile contents,
//! scale, user capacity, GC policy, separation, PLP and series interval ([`Identity`]). The
//! power setting may differ: a restored drive measures at its own cap ([`SimSsd::set_power_cap`]).

mod identity;
mod midrun;
pub mod precondition;
mod session;

pub use identity::{job_hash, profile_hash, Identity};
pub use midrun::{MidRunError, MidRunMeta, SaveReport};

use crate::runner::RunPosition;
use ftl::device::SimSsd;
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};

use std::path::Path;

pub const MAGIC: [u8; 8] = *b"SSDLSNAP";
/// Bumped whenever the payload's encoding changes.
pub const FORMAT: u32 = 10;
/// zstd level: fast; the tables compress well at any level (see docs/snapshots.md).
const ZSTD_LEVEL: i32 = 1;

/// The SNIA steady-state check of the workload that made the snapshot (`drive precondition`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SteadyStateRecord {
    /// The criterion as SNIA PTS states it.
    pub criterion: String,
    /// `randwrite-4k`, `seq-128k` or the job file's path.
    pub workload: String,
    /// Rounds run, each `round_drive_writes` drive writes.
    pub rounds: u32,
    pub round_drive_writes: f64,
    /// IOPS of each round (full-scale figures).
    pub round_iops: Vec<f64>,
    pub reached: bool,
    /// Rounds (1-based) of the window judged last (the passing one when reached), its range and
    /// slope excursion in percent of its average.
    pub window: Option<[u32; 2]>,
    pub range_pct: Option<f64>,
    pub slope_excursion_pct: Option<f64>,
}

/// What the snapshot says about itself (the readable part of the file).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SnapshotMeta {
    pub identity: Identity,
    /// Seed of the run that made it (informational: a continuing run takes its own `--seed`).
    pub seed: u64,
    /// Power setting in force when saved.
    pub power_state: Option<usize>,
    pub power_cap_w: Option<f64>,
    /// Job sections and groups run on the drive so far.
    pub position: RunPosition,
    /// Simulated time of the drive, ns.
    pub sim_time_ns: u64,
    /// Host bytes written so far (simulated drive) and in drive writes.
    pub host_write_bytes: u64,
    pub drive_writes: f64,
    /// What made it (command and job file).
    pub made_by: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<SteadyStateRecord>,
    /// Saved in the middle of a run (`run --save-at`): continue it with `--resume-from`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mid_run: Option<MidRunMeta>,
}

/// The host side's sampling phase, which a continued run keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sampling {
    pub interval_ns: u64,
    pub next_ns: u64,
}

#[derive(Serialize)]
struct PayloadRef<'a> {
    ssd: &'a SimSsd,
    sampling: Sampling,
    /// A mid-run save's runner and target state (`midrun.rs`, encoded); empty otherwise.
    mid_run: &'a [u8],
}

#[derive(Deserialize)]
pub(super) struct Payload {
    pub(super) ssd: SimSsd,
    sampling: Sampling,
    pub(super) mid_run: Vec<u8>,
}

/// Why a snapshot could not be written or read. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    /// Not a snapshot, damaged, another format, or made on another drive (exit 2).
    #[error("{path}: {message}")]
    Refused { path: String, message: String },
}

/// A drive state held in memory (encoded, uncompressed): sweep points fork from one by
/// decoding it, exactly as they would from the file it writes.
pub struct Frozen {
    pub meta: SnapshotMeta,
    payload: Vec<u8>,
}

impl Frozen {
    pub fn new(meta: SnapshotMeta, ssd: &SimSsd, sampling: Sampling) -> Frozen {
        Self::with_mid_run(meta, ssd, sampling, &[])
    }

    /// [`Frozen::new`] with a mid-run save's encoded runner state.
    pub(super) fn with_mid_run(meta: SnapshotMeta, ssd: &SimSsd, sampling: Sampling, mid_run: &[u8]) -> Frozen {
        // Encoding plain structs, maps of integers and sequences into a Vec cannot fail.
        let payload = bincode::serialize(&PayloadRef { ssd, sampling, mid_run }).unwrap_or_default();
        Frozen { meta, payload }
    }

    /// Encoded size, bytes (before compression).
    pub fn encoded_bytes(&self) -> usize {
        self.payload.len()
    }

    /// A fresh copy of the drive. `path` names the source in errors.
    pub fn thaw(&self, path: &str) -> Result<(SimSsd, Sampling), SnapshotError> {
        let p = self.decode(path)?;
        Ok((p.ssd, p.sampling))
    }

    pub(super) fn decode(&self, path: &str) -> Result<Payload, SnapshotError> {
        bincode::deserialize(&self.payload).map_err(|e| SnapshotError::Refused {
            path: path.to_string(),
            message: format!("payload does not decode: {e}"),
        })
    }

    /// Writes the file whole (a temporary name renamed over `path`); returns its size.
    pub fn write(&self, path: &Path) -> Result<u64, SnapshotError> {
        let io =
            |e: &dyn std::fmt::Display| SnapshotError::Io { path: path.display().to_string(), message: e.to_string() };
        let meta_json = serde_json::to_vec_pretty(&self.meta).map_err(|e| io(&e))?;
        let payload = zstd::bulk::compress(&self.payload, ZSTD_LEVEL).map_err(|e| io(&e))?;
        let mut crc = crc32fast::Hasher::new();
        crc.update(&meta_json);
        crc.update(&payload);
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(".tmp");
        let tmp = path.with_file_name(name);
        let mut f = std::io::BufWriter::new(std::fs::File::create(&tmp).map_err(|e| io(&e))?);
        let mut put = |b: &[u8]| f.write_all(b).map_err(|e| io(&e));
        put(&MAGIC)?;
        put(&FORMAT.to_le_bytes())?;
        put(&u32::try_from(meta_json.len()).map_err(|e| io(&e))?.to_le_bytes())?;
        put(&meta_json)?;
        put(&(payload.len() as u64).to_le_bytes())?;
        put(&crc.finalize().to_le_bytes())?;
        put(&payload)?;
        let f = f.into_inner().map_err(|e| io(&e))?;
        f.sync_all().map_err(|e| io(&e))?;
        std::fs::rename(&tmp, path).map_err(|e| io(&e))?;
        Ok(16 + meta_json.len() as u64 + 12 + payload.len() as u64)
    }

    /// Reads a snapshot file (magic, format, checksum checked; the drive is checked by whoever
    /// thaws it, against the configuration it is asked for).
    pub fn read(path: &Path) -> Result<Frozen, SnapshotError> {
        let (meta, packed) = read_parts(path)?;
        let payload = zstd::stream::decode_all(packed.as_slice()).map_err(|e| SnapshotError::Refused {
            path: path.display().to_string(),
            message: format!("payload does not decompress: {e}"),
        })?;
        Ok(Frozen { meta, payload })
    }
}

/// Reads only the readable part (checks magic, format and checksum).
pub fn read_meta(path: &Path) -> Result<SnapshotMeta, SnapshotError> {
    Ok(read_parts(path)?.0)
}

fn read_parts(path: &Path) -> Result<(SnapshotMeta, Vec<u8>), SnapshotError> {
    let p = path.display().to_string();
    let refused = |message: String| SnapshotError::Refused { path: p.clone(), message };
    let mut f = std::fs::File::open(path).map_err(|e| SnapshotError::Io { path: p.clone(), message: e.to_string() })?;
    let mut all = Vec::new();
    f.read_to_end(&mut all).map_err(|e| SnapshotError::Io { path: p.clone(), message: e.to_string() })?;
    if all.len() < 16 || all[..8] != MAGIC {
        return Err(refused("not an ssdlab drive snapshot (no SSDLSNAP header)".into()));
    }
    let u32_at = |i: usize| u32::from_le_bytes(all[i..i + 4].try_into().unwrap_or_default());
    let format = u32_at(8);
    if format != FORMAT {
        return Err(refused(format!("snapshot format {format}; this ssdlab reads format {FORMAT} only")));
    }
    let meta_len = u32_at(12) as usize;
    let short = || refused("truncated (the file is shorter than its header says)".into());
    let meta_end = 16usize.checked_add(meta_len).filter(|&e| e + 12 <= all.len()).ok_or_else(short)?;
    let payload_len = u64::from_le_bytes(all[meta_end..meta_end + 8].try_into().unwrap_or_default());
    let stored_crc = u32_at(meta_end + 8);
    let body = meta_end + 12;
    if (all.len() - body) as u64 != payload_len {
        return Err(short());
    }
    let mut crc = crc32fast::Hasher::new();
    crc.update(&all[16..meta_end]);
    crc.update(&all[body..]);
    if crc.finalize() != stored_crc {
        return Err(refused("checksum mismatch: the file is damaged".into()));
    }
    let meta: SnapshotMeta =
        serde_json::from_slice(&all[16..meta_end]).map_err(|e| refused(format!("header does not parse: {e}")))?;
    Ok((meta, all.split_off(body)))
}
