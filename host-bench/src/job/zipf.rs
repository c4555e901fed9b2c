//! Closed-form samplers for skewed ranks, constant time and allocation-free per draw.
//!
//! Zipf uses rejection-inversion (W. Hörmann and G. Derflinger, "Rejection-inversion to
//! generate variates from monotone discrete distributions", ACM TOMACS 6(3), 1996): no table,
//! O(1) expected time (acceptance is high for all theta), exact distribution. Pareto uses fio's
//! closed form `rank = (n-1) * u^(ln h / ln(1-h))`.

/// Draws ranks 0..n with P(rank k) proportional to (k+1)^-theta.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct ZipfSampler {
    n: f64,
    theta: f64,
    h_integral_x1: f64,
    h_integral_n: f64,
    s: f64,
    /// Acceptance bound H(k + 0.5) - h(k) for the most popular ranks, where most draws land;
    /// saves two transcendental calls per draw there.
    head_bound: Box<[f64]>,
}

/// Ranks whose acceptance bound is precomputed.
const HEAD_RANKS: u64 = 256;

impl ZipfSampler {
    /// `n` >= 1 ranks, `theta` > 0.
    pub fn new(n: u64, theta: f64) -> Self {
        let n_f = n.max(1) as f64;
        let mut z =
            ZipfSampler { n: n_f, theta, h_integral_x1: 0.0, h_integral_n: 0.0, s: 0.0, head_bound: Box::new([]) };
        z.h_integral_x1 = z.h_integral(1.5) - 1.0;
        z.h_integral_n = z.h_integral(n_f + 0.5);
        z.s = 2.0 - z.h_integral_inv(z.h_integral(2.5) - z.h(2.0));
        z.head_bound = (1..=n.clamp(1, HEAD_RANKS)).map(|k| z.h_integral(k as f64 + 0.5) - z.h(k as f64)).collect();
        z
    }

    /// A rank in 0..n from a source of uniform [0,1) numbers.
    #[inline]
    pub fn sample(&self, mut uniform: impl FnMut() -> f64) -> u64 {
        // Bounded: acceptance probability is well above 1/2, so 64 rounds fail with p < 2^-64.
        for _ in 0..64 {
            let u = self.h_integral_n + uniform() * (self.h_integral_x1 - self.h_integral_n);
            let x = self.h_integral_inv(u);
            let k = (x + 0.5).floor().clamp(1.0, self.n);
            if k - x <= self.s || u >= self.bound(k) {
                return nand_model::cast::sat_u64(k) - 1;
            }
        }
        0
    }

    /// H(k + 0.5) - h(k), from the table for popular ranks.
    #[inline]
    fn bound(&self, k: f64) -> f64 {
        match self.head_bound.get(nand_model::cast::sat_usize(k) - 1) {
            Some(&b) => b,
            None => self.h_integral(k + 0.5) - self.h(k),
        }
    }

    /// Unnormalised density x^-theta.
    #[inline]
    fn h(&self, x: f64) -> f64 {
        (-self.theta * x.ln()).exp()
    }

    /// Integral of h: (x^(1-theta) - 1) / (1 - theta), continuous at theta = 1 (ln x).
    #[inline]
    fn h_integral(&self, x: f64) -> f64 {
        let log_x = x.ln();
        expm1_over_x((1.0 - self.theta) * log_x) * log_x
    }

    #[inline]
    fn h_integral_inv(&self, x: f64) -> f64 {
        let t = (x * (1.0 - self.theta)).max(-1.0);
        (log1p_over_x(t) * x).exp()
    }
}

/// expm1(x)/x, 1 at 0.
#[inline]
fn expm1_over_x(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x * 0.5 * (1.0 + x / 3.0)
    }
}

/// ln(1+x)/x, 1 at 0.
#[inline]
fn log1p_over_x(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x / 3.0)
    }
}

/// fio's Pareto: rank = (n-1) * u^p with p = ln h / ln(1-h). The popular end is rank 0 for
/// h < 0.5 and rank n-1 for h > 0.5; callers permute ranks, so only the popularity curve matters.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct ParetoSampler {
    n_minus_1: f64,
    power: f64,
}

impl ParetoSampler {
    /// `h` in (0, 1).
    pub fn new(n: u64, h: f64) -> Self {
        ParetoSampler { n_minus_1: n.saturating_sub(1) as f64, power: h.ln() / (1.0 - h).ln() }
    }

    #[inline]
    pub fn sample(&self, u: f64) -> u64 {
        nand_model::cast::sat_u64(self.n_minus_1 * u.powf(self.power))
    }
}
