//! SNIA PTS-E steady-state determination over rounds of a tracking variable.
//!
//! Steady state holds for a window of [`WINDOW_ROUNDS`] consecutive rounds when both
//! - range: max(y) - min(y) <= 20% of the window average, and
//! - slope: |b| x 4 (the window span in rounds) <= 10% of the window average, where y = a + b x
//!   is the least-squares fit over the window (x = round number).
//!
//! A test runs at most [`MAX_ROUNDS`] rounds; without a passing window it reports "not reached".
//! The detector is a pure function of the series so it can be tested and reused (PTS rounds,
//! FOB 1-minute rounds) apart from the code that runs the rounds.

use serde::Serialize;

/// Rounds in the measurement window.
pub const WINDOW_ROUNDS: usize = 5;
/// Rounds before a test gives up.
pub const MAX_ROUNDS: usize = 25;
/// Allowed max - min, as a fraction of the window average.
pub const RANGE_LIMIT: f64 = 0.20;
/// Allowed |slope| x span, as a fraction of the window average.
pub const SLOPE_LIMIT: f64 = 0.10;

/// The determination for one window: its rounds, statistics and each criterion's verdict.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Determination {
    /// Round numbers (1-based) of the window.
    pub rounds: Vec<usize>,
    /// Tracking variable per window round.
    pub values: Vec<f64>,
    pub average: f64,
    /// (max - min) / average, percent.
    pub range_pct: f64,
    /// |b| x span / average, percent.
    pub slope_pct: f64,
    /// Fit line y = a + b x over the window (x = round number).
    pub fit_a: f64,
    pub fit_b: f64,
    pub range_ok: bool,
    pub slope_ok: bool,
    /// Both criteria pass.
    pub reached: bool,
}

/// Least-squares line through `(x, y)`: returns (a, b) of y = a + b x.
pub fn least_squares(xs: &[f64], ys: &[f64]) -> (f64, f64) {
    let n = xs.len().min(ys.len()) as f64;
    if n < 1.0 {
        return (0.0, 0.0);
    }
    let mx = xs.iter().sum::<f64>() / n;
    let my = ys.iter().sum::<f64>() / n;
    let sxy: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    let b = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    (my - b * mx, b)
}

/// Judges the window of rounds `first_round ..= first_round + values.len() - 1`.
pub fn judge(first_round: usize, values: &[f64]) -> Determination {
    let rounds: Vec<usize> = (first_round..first_round + values.len()).collect();
    let xs: Vec<f64> = rounds.iter().map(|&r| r as f64).collect();
    let n = values.len().max(1) as f64;
    let average = values.iter().sum::<f64>() / n;
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let (a, b) = least_squares(&xs, values);
    let span = values.len().saturating_sub(1) as f64;
    let pct = |x: f64| {
        if average > 0.0 {
            x / average * 100.0
        } else {
            f64::INFINITY
        }
    };
    let range_pct = if values.is_empty() { f64::INFINITY } else { pct(max - min) };
    let slope_pct = pct(b.abs() * span);
    let range_ok = range_pct <= RANGE_LIMIT * 100.0 + 1e-9;
    let slope_ok = slope_pct <= SLOPE_LIMIT * 100.0 + 1e-9;
    Determination {
        rounds,
        values: values.to_vec(),
        average,
        range_pct,
        slope_pct,
        fit_a: a,
        fit_b: b,
        range_ok,
        slope_ok,
        reached: range_ok && slope_ok && values.len() == WINDOW_ROUNDS,
    }
}

/// The window ending at the last round of `series` (rounds are 1-based), once there are enough.
pub fn latest(series: &[f64]) -> Option<Determination> {
    let n = series.len();
    (n >= WINDOW_ROUNDS).then(|| judge(n - WINDOW_ROUNDS + 1, &series[n - WINDOW_ROUNDS..]))
}

/// The first window that reaches steady state within [`MAX_ROUNDS`] rounds, else the last
/// window judged (marked not reached), else `None` for fewer than [`WINDOW_ROUNDS`] rounds.
pub fn first_reached(series: &[f64]) -> Option<Determination> {
    first_reached_within(series, MAX_ROUNDS)
}

/// As [`first_reached`] with another round limit (FOB curves look over hundreds of minutes).
pub fn first_reached_within(series: &[f64], max_rounds: usize) -> Option<Determination> {
    let limit = series.len().min(max_rounds);
    let mut last = None;
    for end in WINDOW_ROUNDS..=limit {
        let d = judge(end - WINDOW_ROUNDS + 1, &series[end - WINDOW_ROUNDS..end]);
        if d.reached {
            return Some(d);
        }
        last = Some(d);
    }
    last
}

/// The window after the last one that fails: steady state *sustained* to the end of the
/// series (FOB and WSAT curves, which run a fixed amount and can be judged afterwards). A
/// curve that dips below its steady state and recovers (the usual FOB bathtub) passes the
/// criteria inside the dip, which the first passing window would report as steady state.
/// `None` for fewer than [`WINDOW_ROUNDS`] rounds; the last window, marked not reached, when it
/// fails.
pub fn sustained(series: &[f64]) -> Option<Determination> {
    let windows = series.len().checked_sub(WINDOW_ROUNDS)? + 1;
    let judged = |start: usize| judge(start + 1, &series[start..start + WINDOW_ROUNDS]);
    let last = judged(windows - 1);
    if !last.reached {
        return Some(last);
    }
    let first = (0..windows - 1).rev().find(|&s| !judged(s).reached).map_or(0, |s| s + 1);
    Some(judged(first))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sustained_skips_a_passing_dip() {
        // Falls into a dip that is flat for 5 rounds, recovers 30%, then holds.
        let s = [300.0, 200.0, 100.0, 100.0, 100.0, 100.0, 100.0, 130.0, 130.0, 130.0, 130.0, 130.0, 130.0];
        assert_eq!(first_reached_within(&s, usize::MAX).unwrap().rounds[0], 3);
        let d = sustained(&s).unwrap();
        assert!(d.reached);
        assert_eq!(d.rounds[0], 8, "{d:?}");
        assert!(!sustained(&[100.0, 100.0, 100.0, 100.0, 100.0, 200.0]).unwrap().reached);
        assert!(sustained(&[1.0; 4]).is_none());
    }

    #[test]
    fn flat_series_passes_both() {
        let d = latest(&[100.0, 101.0, 99.0, 100.0, 100.5]).unwrap();
        assert!(d.range_ok && d.slope_ok && d.reached);
        assert_eq!(d.rounds, vec![1, 2, 3, 4, 5]);
        assert!((d.average - 100.1).abs() < 1e-9);
    }

    #[test]
    fn range_only_failure() {
        // Symmetric spikes: the fit is flat but max - min is 30% of the average.
        let d = latest(&[100.0, 85.0, 115.0, 115.0, 85.0]).unwrap();
        assert!(!d.range_ok, "{d:?}");
        assert!(d.slope_ok, "{d:?}");
        assert!(!d.reached);
    }

    #[test]
    fn slope_only_failure() {
        // Steady climb of 3% per round: range 12% passes, slope x 4 = 12% fails.
        let d = latest(&[100.0, 103.0, 106.0, 109.0, 112.0]).unwrap();
        assert!(d.range_ok, "{d:?}");
        assert!(!d.slope_ok, "{d:?}");
        assert!((d.fit_b - 3.0).abs() < 1e-9 && (d.slope_pct - 12.0 / 106.0 * 100.0).abs() < 1e-9);
    }

    #[test]
    fn reached_only_at_round_n() {
        // Falling from FOB, then flat from round 6: the first passing window is rounds 5..=9.
        let s = [300.0, 250.0, 200.0, 150.0, 105.0, 100.0, 101.0, 99.0, 100.0, 100.0];
        for end in 5..9 {
            assert!(!first_reached(&s[..end]).unwrap().reached, "window ending {end}");
        }
        let d = first_reached(&s).unwrap();
        assert!(d.reached);
        assert_eq!(d.rounds, vec![5, 6, 7, 8, 9]);
    }

    #[test]
    fn not_reached_within_25_rounds() {
        let s: Vec<f64> = (0..30).map(|i| 1000.0 - 30.0 * i as f64).collect();
        let d = first_reached(&s).unwrap();
        assert!(!d.reached);
        assert_eq!(*d.rounds.last().unwrap(), MAX_ROUNDS);
        assert!(first_reached(&s[..4]).is_none());
    }
}
