//! Where a random offset lands: the distribution's samplers (uniform, zoned, zipf, pareto,
//! normal) and the draws they are made from.

use rand::RngCore;
use rand_chacha::ChaCha8Rng;

use super::{below, div, IoPattern, Sampler};

impl IoPattern {
    #[inline]
    #[allow(clippy::cast_possible_truncation)] // below(100) < 100
    pub(super) fn random_offset(&mut self, d: usize, len: u32) -> u64 {
        let align = self.align_bytes[d];
        let last_start = self.span_bytes - u64::from(len);
        let slot = match &self.sampler {
            Sampler::Uniform => return below(&mut self.rng, div(last_start, align) + 1) * align,
            Sampler::Zoned(zones) => {
                let pick = below(&mut self.rng, 100) as u32;
                let zone = zones.iter().find(|z| pick < z.0).or(zones.last());
                let (first, count) = zone.map_or((0, self.slots), |z| (z.1, z.2));
                first + below(&mut self.rng, count.max(1))
            }
            Sampler::Zipf(z) => {
                let rng = &mut self.rng;
                let rank = z.sample(|| unit_f64(rng));
                self.permute(rank)
            }
            Sampler::Pareto(p) => {
                let rank = p.sample(unit_f64(&mut self.rng));
                self.permute(rank)
            }
            Sampler::Normal { center, sigma } => {
                let (center, sigma) = (*center, *sigma);
                let rank = self.normal_rank(center, sigma);
                self.permute(rank)
            }
        };
        let off = slot * self.unit_bytes / align * align;
        off.min(last_start / align * align)
    }

    /// Box-Muller draw, redrawn (bounded) until inside the region, then clamped.
    #[inline]
    fn normal_rank(&mut self, center: f64, sigma: f64) -> u64 {
        let max = (self.slots - 1) as f64;
        let mut x = center;
        for _ in 0..16 {
            let u1 = 1.0 - unit_f64(&mut self.rng);
            let u2 = unit_f64(&mut self.rng);
            x = center + sigma * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
            if (0.0..=max).contains(&x) {
                break;
            }
        }
        nand_model::cast::sat_u64(x.clamp(0.0, max))
    }

    /// Bijection on 0..slots: an invertible mix on the next power of two, cycle-walked until
    /// the value lands below `slots` (fewer than two rounds on average; no division).
    #[inline]
    fn permute(&self, rank: u64) -> u64 {
        let mut x = rank;
        for _ in 0..128 {
            x = x.wrapping_mul(self.perm_a).wrapping_add(self.perm_c) & self.perm_mask;
            x ^= x >> self.perm_shift;
            if x < self.slots {
                return x;
            }
        }
        rank
    }
}

/// Uniform in [0, 1) with 53 random bits.
#[inline]
fn unit_f64(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}
