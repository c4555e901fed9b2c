//! The fit's starting point: a coarse scan of each parameter across its bounds.

use super::{Evaluator, FitOptions};
use rayon::prelude::*;

/// The starting point: each parameter tried alone at `opts.scan_points` log-spaced values
/// across its bounds (the others at the start), then the best value of every parameter that
/// improved together if that beats the best single move. Why: many figures are flat in a
/// parameter until it binds (a datapath limit left unset, tPROG while writes are
/// channel-bound), and a forward difference there is zero or noise, so the local steps alone
/// stay in, or wander along, a plateau far from the data. Returns (x, predictions, loss).
pub(super) fn axis_scan(
    ev: &Evaluator,
    bounds: &[(f64, f64)],
    start: (Vec<f64>, Vec<Option<f64>>, f64),
    opts: &FitOptions,
) -> (Vec<f64>, Vec<Option<f64>>, f64) {
    let k = opts.scan_points;
    if k < 2 || opts.settings.stopped() {
        return start;
    }
    let (x0, pred0, loss0) = start;
    let tries: Vec<(usize, f64)> = (0..x0.len())
        .flat_map(|j| {
            let (lo, hi) = (bounds[j].0.ln(), bounds[j].1.ln());
            (0..k).map(move |i| (j, lo + (hi - lo) * i as f64 / (k - 1) as f64))
        })
        .filter(|&(j, v)| (v - x0[j]).abs() > 1e-6)
        .collect();
    let tried: Vec<(usize, f64, Vec<Option<f64>>, f64)> = tries
        .into_par_iter()
        .map(|(j, v)| {
            let mut xj = x0.clone();
            xj[j] = v;
            let mask: Vec<bool> = ev.plans.iter().map(|p| ev.params[j].affects(p)).collect();
            let pj = ev.eval(&xj, &mask, Some(&pred0));
            let l = ev.loss(&pj);
            (j, v, pj, l)
        })
        .collect();
    if opts.settings.stopped() {
        return (x0, pred0, loss0); // incomplete: start from the start
    }
    // Per parameter, the index of its best try if that beats the start (the first of equals).
    let mut best: Vec<Option<usize>> = vec![None; x0.len()];
    for (i, (j, _, _, l)) in tried.iter().enumerate() {
        if *l < loss0 && best[*j].is_none_or(|b| *l < tried[b].3) {
            best[*j] = Some(i);
        }
    }
    // The best single move: the least of the per-parameter bests (tries are in parameter order,
    // so among equals the first try, as a scan of all of them would pick).
    let Some(single) = best.iter().flatten().copied().min_by(|&a, &b| tried[a].3.total_cmp(&tried[b].3)) else {
        return (x0, pred0, loss0);
    };
    let (j1, v1, p1, l1) = tried[single].clone();
    let mut x1 = x0.clone();
    x1[j1] = v1;
    let mut chosen = (x1, p1, l1);
    if best.iter().flatten().count() > 1 {
        let xc: Vec<f64> = x0.iter().zip(&best).map(|(&x, b)| b.map_or(x, |i| tried[i].1)).collect();
        let all = vec![true; ev.plans.len()];
        let pc = ev.eval(&xc, &all, None);
        let lc = ev.loss(&pc);
        if lc < chosen.2 && !opts.settings.stopped() {
            chosen = (xc, pc, lc);
        }
    }
    chosen
}
