//! The recording a teaching page embeds: static facts about the drive, the block table at the
//! start, and frames (the drive's counters at an instant plus the blocks that changed since the
//! previous frame). Column-oriented so the embedded JSON stays compact.

use serde::{Deserialize, Serialize};

/// One block as the page draws it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockRec {
    /// 0 free, 1 open, 2 closed, 3 victim being relocated, 4 victim waiting for / in erase,
    /// 5 reserved (never written).
    pub state: u8,
    pub valid: u32,
    /// Write pointer, MUs.
    pub wp: u32,
    pub erase: u32,
    /// Stream that filled it: 0 host, 1 GC.
    pub stream: u8,
    /// Host MUs written when it was closed (cost-benefit's age origin).
    pub closed_at: u64,
}

pub const ST_FREE: u8 = 0;
pub const ST_OPEN: u8 = 1;
pub const ST_CLOSED: u8 = 2;
pub const ST_RELOCATING: u8 = 3;
pub const ST_ERASING: u8 = 4;
pub const ST_RESERVED: u8 = 5;

/// Drive facts the page needs to draw and label.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DriveMeta {
    pub drive: String,
    pub policy: String,
    pub hot_cold_separation: bool,
    pub plp: bool,
    pub seed: u64,
    pub op_pct: f64,
    /// Greedy WA under uniform random writes at this OP (Desnoyers 2012), the page's reference.
    pub wa_greedy_ref: f64,
    pub blocks: u32,
    pub dies: u32,
    pub planes_per_die: u32,
    pub blocks_per_die: u32,
    pub mus_per_block: u32,
    pub mu_bytes: u32,
    /// Blocks drawn one by one (all of them on small drives, the first dies' on large ones).
    pub sampled_blocks: u32,
    /// GC starts below this many free blocks.
    pub gc_threshold_blocks: u32,
    /// Host writes wait at or below this many free blocks (GC's reserve).
    pub host_reserve_blocks: u32,
    pub power_cap_w: Option<f64>,
    pub scale_divisor: u32,
    /// Command cycles before a program's data transfer, ns (where the die timeline draws it).
    #[serde(default)]
    pub t_cmd_ns: u64,
}

/// A victim chosen during a frame: block, valid units when chosen, cost-benefit score then.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VictimRec {
    pub block: u32,
    pub valid: u32,
    /// `None` for an empty block (an infinite score: nothing to copy).
    pub score: Option<f64>,
    /// Under cost-benefit: the best other candidates of the victim's die right after the choice
    /// (at the completion it was first seen after), best first, as (block, valid units, score):
    /// what the victim was chosen over.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rivals: Vec<(u32, u32, Option<f64>)>,
}

/// Frames as columns: index i of every vector is frame i.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Frames {
    /// Simulated time, ns.
    pub t_ns: Vec<u64>,
    /// Calls of the device's `wait`/`settle` observed before the frame was taken: several can
    /// return at one simulated instant, this says after which one (tests stop a run there).
    pub calls: Vec<u64>,
    /// Cumulative drive counters at `t_ns` (`ftl::device::Counters`).
    pub host_writes: Vec<u64>,
    pub host_reads: Vec<u64>,
    pub host_write_bytes: Vec<u64>,
    pub host_trim_bytes: Vec<u64>,
    pub nand_write_bytes: Vec<u64>,
    pub gc_write_bytes: Vec<u64>,
    pub gc_victims: Vec<u64>,
    pub erases: Vec<u64>,
    pub free_blocks: Vec<u32>,
    pub gc_stall_ns: Vec<u64>,
    pub energy_j: Vec<f64>,
    /// Cumulative time the power governor held operations, ns.
    pub throttled_ns: Vec<u64>,
    /// Host completions in the frame (since the previous one).
    pub completions: Vec<u32>,
    /// Frames taken after a single host write, kept apart when frames merge (without a write
    /// log the page steps through them one write at a time); not embedded.
    #[serde(skip)]
    pub fine: Vec<bool>,
    /// Entries of the run's [`WriteLog`] taken at or before the frame.
    #[serde(default)]
    pub writes: Vec<u32>,
    /// Changed sampled blocks: flat [id, state, valid, wp, erase, stream, closed_at] x n.
    pub delta: Vec<Vec<u64>>,
    /// Victims chosen in the frame.
    pub victims: Vec<Vec<VictimRec>>,
    /// On sampled drives: closed blocks by valid fraction, 16 bins, over the whole drive.
    pub hist: Vec<Vec<u32>>,
}

/// Every host write completion of the run, while there is room (the page steps through them
/// one at a time from the frame before): when it completed and the sampled blocks whose record
/// differs from the previous entry's. Records that changed only in valid count and write
/// pointer (most of them) are stored as those two numbers.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct WriteLog {
    /// Each entry's time minus the previous entry's (the first's: minus 0), ns.
    pub dt_ns: Vec<u64>,
    /// Changed blocks per entry.
    pub n: Vec<u32>,
    /// The changes, entry after entry: `[2 x block, valid, wp]` when only those moved, else
    /// `[2 x block + 1, state, valid, wp, erase, stream, closed_at]`.
    pub ch: Vec<u64>,
    /// Host writes completed after the log filled up ([`super::record::MAX_WRITE_ENTRIES`]),
    /// not logged: past the last entry the page steps frame by frame.
    pub dropped: u64,
}

/// The charts' intervals as columns (index k is interval k, from frame `from_frame[k]` to
/// frame `to_frame[k]`); `explore::series` computes them from the frames.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Series {
    pub from_frame: Vec<u32>,
    pub to_frame: Vec<u32>,
    /// Host completions per second of simulated time.
    pub iops: Vec<f64>,
    /// 99th percentile latency of the interval's completions, us (upper edge of its log bucket:
    /// 4 buckets per power of two).
    pub p99_us: Vec<f64>,
    /// NAND bytes written / host bytes written in the interval (`None` without host writes).
    pub wa: Vec<Option<f64>>,
    /// Cumulative WA at the interval's end.
    pub wa_cum: Vec<f64>,
    /// Free blocks at the interval's end.
    pub free_blocks: Vec<u32>,
    /// Share of the interval host writes waited for GC, %.
    pub gc_stall_pct: Vec<f64>,
    /// Energy / time over the interval, W.
    pub power_w: Vec<f64>,
    /// Share of the interval the power governor held operations, %.
    pub throttled_pct: Vec<f64>,
}

/// What the shown dies did: every NAND operation booked on them (from the NAND model's op
/// log), the pauses of programs and erases suspended for host reads, and the spans a die's next
/// operation waited for the power governor (sampled after each host completion).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DieTimeline {
    /// Distinct op shapes: [code, duration (ns, with its suspensions), transfer (ns)]. Code:
    /// `explore::optrace::op_code` (kind, GC work, served in a suspension, plane). The transfer
    /// is at the start of a program (after the command cycles) and at the end of a read.
    #[serde(default)]
    pub shapes: Vec<[u64; 3]>,
    /// Per die, in start order: flat [shape index, start - previous start (ns)] x n.
    pub ops: Vec<Vec<u64>>,
    /// Per die: flat [from - previous from (ns), duration (ns)] x n: a program or erase paused
    /// for a host read.
    #[serde(default)]
    pub suspends: Vec<Vec<u64>>,
    /// Per die: flat [since - previous since (ns), duration (ns, until last seen waiting)] x n.
    pub held: Vec<Vec<u64>>,
}

/// A lesson's question and the answer the run gives.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Question {
    pub q: String,
    pub answer: String,
}

/// One recorded run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Recording {
    /// Short label ("OP 7%", "greedy").
    pub label: String,
    pub meta: DriveMeta,
    pub init: Vec<BlockRec>,
    pub frames: Frames,
    #[serde(default)]
    pub writes: WriteLog,
    pub dies: DieTimeline,
    /// The charts' values (filled in for the page by `explore::series::chart_series`).
    #[serde(default)]
    pub series: Series,
    /// Latency bucket counts (frame, bucket, count) in frame order; not embedded in the page.
    #[serde(skip)]
    pub lat: Vec<(u32, u16, u32)>,
    /// What happened at the end (a power cut's report), when the scenario has one.
    pub notes: Vec<String>,
}

/// What the page embeds: one run, or two of the same seed to compare, with a lesson's text.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Page {
    pub title: String,
    /// Explanatory paragraphs (plain text).
    pub text: Vec<String>,
    pub questions: Vec<Question>,
    pub runs: Vec<Recording>,
    pub command: String,
}
