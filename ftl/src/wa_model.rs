//! Analytic write-amplification models the simulator is checked against.

/// Principal branch W0 of the Lambert W function for x in [-1/e, 0], by Halley iteration.
pub fn lambert_w0(x: f64) -> f64 {
    let e_inv = -(-1.0f64).exp();
    if x <= e_inv {
        return -1.0;
    }
    // Start near the branch point for x close to -1/e, else at ln(1+x).
    let mut w = if x < -0.3 { -1.0 + (2.0 * (1.0 + std::f64::consts::E * x)).sqrt() } else { (1.0 + x).ln() };
    for _ in 0..64 {
        let ew = w.exp();
        let f = w * ew - x;
        let wp1 = w + 1.0;
        if wp1.abs() < 1e-15 {
            break;
        }
        let step = f / (ew * wp1 - (w + 2.0) * f / (2.0 * wp1));
        w -= step;
        if step.abs() < 1e-15 * (1.0 + w.abs()) {
            break;
        }
    }
    w
}

/// WA of greedy GC with large blocks under uniform random writes (= FIFO), Desnoyers 2012:
/// A = a / (a + W0(-a e^-a)) with a = 1 + OP, OP = (physical - user) / user.
pub fn wa_greedy_uniform(op: f64) -> f64 {
    let a = 1.0 + op;
    a / (a + lambert_w0(-a * (-a).exp()))
}

/// FIFO WA with K temperature classes sharing one log (r_k of writes to f_k of the LBAs):
/// A = sum_k r_k / (1 - exp(-(a / A) r_k / f_k)), solved as a fixed point.
pub fn wa_fifo_classes(op: f64, classes: &[(f64, f64)]) -> f64 {
    let a = 1.0 + op;
    let mut wa = wa_greedy_uniform(op);
    for _ in 0..200 {
        let next: f64 = classes.iter().map(|&(r, f)| r / (1.0 - (-(a / wa) * r / f).exp())).sum();
        if (next - wa).abs() < 1e-12 {
            return next;
        }
        wa = 0.5 * (wa + next);
    }
    wa
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_reference_table() {
        for (op, want) in [
            (0.07, 7.82),
            (0.12, 4.85),
            (0.145, 4.13),
            (0.20, 3.19),
            (0.28, 2.48),
            (0.37, 2.06),
            (0.50, 1.72),
            (0.72, 1.43),
            (1.00, 1.25),
        ] {
            let got = wa_greedy_uniform(op);
            assert!((got - want).abs() < 0.006, "OP {op}: {got} vs {want}");
        }
    }

    #[test]
    fn lambert_identity() {
        for x in [-0.36, -0.3, -0.1, -0.01, 0.0] {
            let w = lambert_w0(x);
            assert!((w * w.exp() - x).abs() < 1e-12);
        }
    }

    #[test]
    fn skew_without_separation_is_worse() {
        let skew = wa_fifo_classes(0.28, &[(0.8, 0.2), (0.2, 0.8)]);
        assert!(skew > 2.48 && skew < 3.2, "{skew}");
    }
}
