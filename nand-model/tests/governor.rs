//! The power governor against the NAND model: random workloads and caps.
//! - Peak credits: at no instant do running ops draw more than `cap x peak_ratio - baseline`,
//!   hence with `peak_ratio` 1 the average power over any window stays under the cap.
//! - Average credits: ops started in any span T carry at most depth + rate x T of energy, plus
//!   one more depth that host reads may borrow.
//! - A host read is never kept behind a program the governor holds on its die.
//! - Nothing is lost: every op completes once. A cap above peak power changes nothing.
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use nand_model::time::NS_PER_MS;
use nand_model::*;
use proptest::prelude::*;
use std::collections::HashMap;

const BASELINE_W: f64 = 2.0;
/// Upper bound on the wait between admission and command start on a channel.
const LAG_NS: u64 = NS_PER_MS.ns();

mod common;
use common::ns;

fn flash(suspend: bool) -> Flash {
    flash_with(suspend, false)
}

/// 2 channels x 4 dies x 4 planes.
fn flash_with(suspend: bool, independent_plane_reads: bool) -> Flash {
    common::flash(2, 4, suspend, independent_plane_reads)
}

fn governor(cap_w: Option<f64>, peak_ratio: f64, window_ns: SimTime) -> Governor {
    let cfg = GovernorConfig { cap_w, peak_ratio, window_ns, ..GovernorConfig::meter(BASELINE_W, NS_PER_MS) };
    Governor::new(cfg, 8).unwrap()
}

/// (gap before submit ns, kind 0..3, die, planes, page type, background).
type Step = (u64, u8, u32, u8, u8, bool);

fn op_of(tag: u64, s: &Step) -> NandOp {
    let (_, kind, die, planes, pt, bg) = *s;
    match kind {
        0 if bg => NandOp::background_read(tag, die, pt, planes, 16384 * planes as u32),
        0 => NandOp::read(tag, die, pt, 1, 4096).on_plane((tag % 4) as u8),
        1 => NandOp::program(tag, die, 4, 3 * 4 * 16384),
        _ => NandOp::erase(tag, die, 4),
    }
}

/// Runs `steps` and returns the completions in order.
fn run(f: &mut Flash, steps: &[Step]) -> Vec<NandDone> {
    let mut now = SimTime::ZERO;
    let mut out = Vec::new();
    for (i, s) in steps.iter().enumerate() {
        now += ns(s.0);
        while let Some(d) = f.advance_until(now) {
            out.push(d);
        }
        f.submit(now, op_of(i as u64, s));
    }
    out.extend(std::iter::from_fn(|| f.advance_until(SimTime::MAX)));
    out
}

/// (energy J, peak W) of an op as the governor charges it (EnergyConfig::default, example timing).
fn cost(f: &Flash, op: &NandOp) -> (f64, f64) {
    let e = EnergyConfig::default().validate().unwrap();
    let t = f.timing();
    let planes = op.planes.max(1) as u32;
    let (ns, w) = match op.kind {
        OpKind::Read => (t.read_array_ns(op.page_type as u32, planes), e.read_w),
        OpKind::Program => (t.program_array_ns(planes), e.prog_w),
        OpKind::Erase => (t.erase_array_ns(planes), e.erase_w),
    };
    let aw = w * planes as f64;
    (Energy::joules(aw, ns) + Energy::joules(e.transfer_w, t.transfer_ns(op.bytes)), aw.max(e.transfer_w))
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    proptest::collection::vec(
        (0u64..400_000, 0u8..3, 0u32..8, 1u8..=4, 0u8..3, any::<bool>()).prop_map(|(g, k, d, p, t, b)| {
            // Mostly reads and programs; erases are rare as on a drive.
            let k = if k == 2 && g % 5 != 0 { 1 } else { k };
            (g, k, d, p, t, b)
        }),
        1..250,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn average_power_never_exceeds_the_cap(
        steps in steps(),
        // Credits from one programming die (0.33 W) up to all eight.
        budget_w in 0.34f64..2.8,
        peak_ratio in prop_oneof![Just(1.0), 1.0f64..2.0],
        window_ms in 1u64..20,
        suspend in any::<bool>(),
        aipr in any::<bool>(),
    ) {
        let cap = BASELINE_W + budget_w;
        let window_ns = window_ms * NS_PER_MS.ns();
        let mut f = flash_with(suspend, aipr);
        f.set_governor(Some(governor(Some(cap), peak_ratio, ns(window_ns))));
        let done = run(&mut f, &steps);
        // Nothing lost or duplicated.
        let mut tags: Vec<u64> = done.iter().map(|d| d.tag).collect();
        tags.sort_unstable();
        prop_assert_eq!(tags, (0..steps.len() as u64).collect::<Vec<_>>());
        let ops: HashMap<u64, NandOp> = steps.iter().enumerate().map(|(i, s)| (i as u64, op_of(i as u64, s))).collect();
        let iv: Vec<(u64, u64, f64, f64)> = done
            .iter()
            .map(|d| {
                let (e, p) = cost(&f, &ops[&d.tag]);
                (d.start_ns.ns(), d.end_ns.ns(), e, p)
            })
            .collect();
        let credit = cap * peak_ratio - BASELINE_W;
        let rate = cap - BASELINE_W;
        let depth = rate * window_ns as f64 * 1e-9;
        for &(t, _, _, _) in &iv {
            // Instantaneous draw at every op start.
            // A die executes one array op at a time (a suspended program draws nothing while its
            // reads run), except independent plane reads, which run side by side: per die the
            // larger of its highest non-read draw and the sum of its reads in flight.
            let (mut other, mut reads) = ([0.0f64; 8], [0.0f64; 8]);
            for (o, d) in iv.iter().zip(&done) {
                if o.0 <= t && t < o.1 {
                    let i = d.die as usize;
                    if d.kind == OpKind::Read {
                        reads[i] += o.3;
                    } else {
                        other[i] = other[i].max(o.3);
                    }
                }
            }
            let draw: f64 = (0..8).map(|i| other[i].max(reads[i])).sum();
            prop_assert!(draw <= credit + 1e-9, "draw {draw} W > credit {credit} W at {t}");
            if peak_ratio == 1.0 {
                // Average over the window starting here (energy spread over each op's span).
                let w_end = t + window_ns;
                let e: f64 = iv
                    .iter()
                    .map(|o| {
                        let ov = o.1.min(w_end).saturating_sub(o.0.max(t));
                        o.2 * ov as f64 / (o.1 - o.0).max(1) as f64
                    })
                    .sum();
                let avg = BASELINE_W + e / (window_ns as f64 * 1e-9);
                prop_assert!(avg <= cap + 1e-9, "average {avg} W > cap {cap} W over [{t}, {w_end})");
            }
        }
        // Token bucket: energy of ops admitted within [a, b] <= depth + rate (b - a). An op
        // longer than the window is charged the bucket's depth (else it could never start). The
        // completion records the command start, which lags admission by the channel backlog
        // (at most the 3 other dies' program transfers, < 0.4 ms here): allow 1 ms of lag.
        let mut starts: Vec<(u64, f64)> = iv.iter().map(|o| (o.0, o.2.min(depth))).collect();
        starts.sort_by_key(|s| s.0);
        for i in 0..starts.len() {
            let mut e = 0.0;
            for j in i..starts.len() {
                e += starts[j].1;
                let span = (starts[j].0 - starts[i].0 + LAG_NS) as f64 * 1e-9;
                // Host reads may borrow one more depth (the bucket goes into debt for them).
                prop_assert!(e <= 2.0 * depth + rate * span + 1e-9, "bucket: {e} J in {span} s > 2 x {depth} + {rate} x span");
            }
        }
    }

    #[test]
    fn a_cap_above_peak_changes_nothing(steps in steps(), suspend in any::<bool>()) {
        let mut plain = flash(suspend);
        let a = run(&mut plain, &steps);
        let mut capped = flash(suspend);
        capped.set_governor(Some(governor(Some(1000.0), 1.0, 10 * NS_PER_MS)));
        let b = run(&mut capped, &steps);
        let mut metered = flash(suspend);
        metered.set_governor(Some(governor(None, 1.0, 10 * NS_PER_MS)));
        let c = run(&mut metered, &steps);
        prop_assert_eq!(&a, &b);
        prop_assert_eq!(&a, &c);
        prop_assert_eq!(plain.trace_hash(), capped.trace_hash());
        prop_assert_eq!(plain.trace_hash(), metered.trace_hash());
        prop_assert_eq!(capped.governor().map(|g| g.stats().held_ops), Some(0));
    }
}

#[test]
fn a_tight_cap_delays_but_completes_everything() {
    // Eight programs at once, credits for two: they run two at a time, in arrival order.
    let mut f = flash(false);
    f.set_governor(Some(governor(Some(BASELINE_W + 0.7), 1.0, 10 * NS_PER_MS)));
    for die in 0..8 {
        f.submit(ns(0), NandOp::program(die as u64, die, 4, 3 * 4 * 16384));
    }
    let done: Vec<NandDone> = std::iter::from_fn(|| f.advance_until(SimTime::MAX)).collect();
    assert_eq!(done.len(), 8);
    let mut starts: Vec<(u64, SimTime)> = done.iter().map(|d| (d.tag, d.start_ns)).collect();
    starts.sort_unstable();
    assert!(starts.windows(2).all(|w| w[0].1 <= w[1].1), "admitted in arrival order: {starts:?}");
    assert!(starts[7].1 >= ns(3 * 1_200_000), "the last pair waited for three earlier pairs: {starts:?}");
    let g = f.governor().unwrap();
    assert_eq!(g.stats().held_ops, 6);
    assert!(g.throttled_total(done.last().unwrap().end_ns) > SimTime::ZERO);
}

#[test]
fn a_host_read_goes_before_a_program_the_governor_holds() {
    // Credits for one program and a read: die 1's program is held while die 0's runs. A host read for die 1
    // then starts at once (the held program goes back to its queue) instead of waiting ~1.2 ms.
    let mut f = flash(false);
    f.set_governor(Some(governor(Some(BASELINE_W + 0.5), 1.0, 10 * NS_PER_MS)));
    f.submit(ns(0), NandOp::program(0, 0, 4, 3 * 4 * 16384));
    f.submit(ns(0), NandOp::program(1, 1, 4, 3 * 4 * 16384));
    f.submit(ns(1_000), NandOp::read(2, 1, 0, 1, 4096));
    let done: Vec<NandDone> = std::iter::from_fn(|| f.advance_until(SimTime::MAX)).collect();
    assert_eq!(done.len(), 3, "nothing lost");
    let read = done.iter().find(|d| d.tag == 2).unwrap();
    let held = done.iter().find(|d| d.tag == 1).unwrap();
    assert!(read.end_ns < ns(200_000), "read waited behind the held program: {read:?}");
    assert!(held.start_ns >= read.end_ns, "the held program runs after the read: {done:?}");
}
