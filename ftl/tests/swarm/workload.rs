//! Drawing a workload from a seed: phases with their own mix of reads, writes and TRIMs, block
//! sizes (sub-sector-of-a-unit, unaligned and multi-unit), alignment, queue depth, sequential or
//! random offsets, and where the drive tracks write sequences, a power cut at a random instant.

use crate::drive::pick;
use ftl::device::HostOp;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

#[derive(Clone, Debug)]
pub struct Phase {
    pub commands: u32,
    pub qd: usize,
    /// Weights of write, trim, read.
    pub mix: [u32; 3],
    /// Transfer sizes drawn from (bytes, multiples of the logical block).
    pub sizes: Vec<u32>,
    /// Offsets are multiples of this (bytes).
    pub align: u32,
    pub sequential: bool,
    /// Cut power this long after the phase's `cut_after`-th completion (ns).
    pub cut: Option<(u32, u64)>,
}

const SIZES: &[u32] = &[512, 1024, 2048, 3584, 4096, 4608, 8192, 12288, 16384, 20480, 65536, 131072];

pub fn draw(rng: &mut ChaCha8Rng, lb: u32, can_cut: bool) -> Vec<Phase> {
    let phases = rng.gen_range(1..=5);
    (0..phases)
        .map(|_| {
            let fixed = rng.gen_bool(0.5);
            let usable: Vec<u32> = SIZES.iter().copied().filter(|s| s % lb == 0).collect();
            let sizes = if fixed { vec![*pick(rng, &usable)] } else { usable };
            let commands = rng.gen_range(200..=6000);
            Phase {
                commands,
                qd: *pick(rng, &[1, 1, 2, 4, 8, 16, 32, 64]),
                mix: *pick(rng, &[[100, 0, 0], [0, 0, 100], [70, 10, 20], [30, 5, 65], [50, 25, 25], [90, 10, 0]]),
                sizes,
                align: *pick(rng, &[lb, 4096, 4096, 16384]).max(&lb),
                sequential: rng.gen_bool(0.3),
                cut: (can_cut && rng.gen_bool(0.35)).then(|| (rng.gen_range(0..commands), rng.gen_range(0..3_000_000))),
            }
        })
        .collect()
}

impl Phase {
    pub fn op(&self, rng: &mut ChaCha8Rng) -> HostOp {
        let [w, t, r] = self.mix;
        let x = rng.gen_range(0..w + t + r);
        if x < w {
            HostOp::Write
        } else if x < w + t {
            HostOp::Trim
        } else {
            HostOp::Read
        }
    }

    /// An (offset, length) inside `cap` bytes; `cursor` carries the sequential position.
    pub fn extent(&self, rng: &mut ChaCha8Rng, cap: u64, cursor: &mut u64) -> (u64, u32) {
        let len = *pick(rng, &self.sizes);
        let slots = (cap - len as u64) / self.align as u64 + 1;
        let off = if self.sequential {
            let o = *cursor;
            *cursor = o + len as u64;
            if *cursor + len as u64 > cap {
                *cursor = 0;
            }
            o.min(cap - len as u64) / self.align as u64 * self.align as u64
        } else {
            rng.gen_range(0..slots) * self.align as u64
        };
        (off, len)
    }
}
