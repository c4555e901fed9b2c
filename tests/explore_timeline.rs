//! The die timeline of a teaching page in headless Chromium against the simulator: around a
//! moment of GC, the operations drawn on every plane row of every die are exactly those the NAND
//! model logged there (count, kind, host/GC, start and end); the operation drawn under way on
//! each die at the cursor is the one the die runs at that moment; and the page's count of
//! operations started by the cursor equals the NAND model's own counters then.
//!
//! Needs Debian's `chromium` (scripts/install-test-deps.sh): SKIPPED without it, a failure under
//! `CI=true`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::cast_possible_truncation)] // a panic in test code is a failed test; casts of the test's own small values

use host_bench::device::IoCompletion;
use host_bench::explore::lessons;
use host_bench::runner::{self, RunOptions};
use host_bench::sim::SimTarget;
use host_bench::simrun::SimSession;
use nand_model::{OpEvent, OpKind, OpRecord};
use std::collections::BTreeMap;

mod common;
use common::browser::{assert_clean, attr, chromium, dump_dom, embedded, run_panel, tags, write_lesson};
use common::temp_dir;
use common::watch::Watched;

/// The NAND model at one observed call: time, reads/programs/erases booked, ops logged so far,
/// each die's running op (kind, start, end).
struct At {
    now: u64,
    booked: [u64; 3],
    logged: usize,
    running: Vec<Option<(OpKind, u64, u64)>>,
}

/// Logs every NAND op (with the call it was booked by) and captures the model after the calls
/// numbered in `at`, counted as the recorder counts them.
struct OpWatch {
    calls: u64,
    at: Vec<u64>,
    got: BTreeMap<u64, At>,
    log: Vec<OpEvent>,
}

impl OpWatch {
    fn after_call(&mut self, target: &mut SimTarget) {
        self.calls += 1;
        target.ssd.drain_op_log(&mut self.log);
        if self.at.binary_search(&self.calls).is_ok() {
            let f = target.ssd.flash();
            let s = f.stats();
            let dies = f.geometry().dies();
            let running =
                (0..dies).map(|d| f.die_activity(d).running.map(|(k, s, e, _)| (k, s.ns(), e.ns()))).collect();
            let at = At {
                now: target.ssd.now().ns(),
                booked: [s.reads, s.programs, s.erases],
                logged: self.log.len(),
                running,
            };
            self.got.insert(self.calls, at);
        }
    }
}

/// Runs `spec` afresh with every NAND op logged; the model at calls `at`, and the log.
fn rerun(spec: &lessons::RunSpec, mut at: Vec<u64>) -> (BTreeMap<u64, At>, Vec<OpEvent>) {
    let file = lessons::parse_job(spec, "test").unwrap();
    let mut s = SimSession::new(spec.cfg.clone()).unwrap();
    let mut opts = RunOptions::new(spec.cfg.seed);
    opts.time_scale = 1.0 / s.scale_factor();
    opts.series_interval_ns = spec.cfg.interval_ns;
    at.sort_unstable();
    s.target.ssd.set_op_log(Some(u32::MAX));
    let mut w = OpWatch { calls: 0, at, got: BTreeMap::new(), log: Vec::new() };
    let mut dev =
        Watched { target: &mut s.target, after: |t: &mut SimTarget, _: Option<&IoCompletion>| w.after_call(t) };
    runner::run(&file, &mut dev, &mut opts).unwrap();
    assert_eq!(w.got.len(), w.at.len(), "the re-run never reached some calls of {:?}", w.at);
    (w.got, w.log)
}

/// Each op as drawn: (die, plane row) -> sorted (kind, GC work, start, end), with the ends a
/// suspension moved; `planes` rows per die.
type Drawn = BTreeMap<(u32, u32), Vec<(&'static str, bool, u64, u64)>>;

fn kind_name(k: OpKind) -> &'static str {
    match k {
        OpKind::Read => "read",
        OpKind::Program => "program",
        OpKind::Erase => "erase",
    }
}

/// The logged ops with their final ends (a suspension extends the op running on its die).
fn final_ops(log: &[OpEvent]) -> Vec<OpRecord> {
    let mut ops: Vec<OpRecord> = Vec::new();
    for e in log {
        match *e {
            OpEvent::Op(r) => ops.push(r),
            OpEvent::Suspend { die, op_start, from, to } => {
                let r = ops.iter_mut().rev().find(|r| r.die == die && r.start == op_start && r.kind != OpKind::Read);
                r.expect("a suspension of an op never logged").end += to - from;
            }
        }
    }
    ops
}

/// What the model logged on each plane row within [a, b].
fn expected_rows(ops: &[OpRecord], planes: u32, a: u64, b: u64) -> Drawn {
    let mut m = Drawn::new();
    for r in ops.iter().filter(|r| r.end.ns() >= a && r.start.ns() <= b) {
        let gc = r.background || r.kind == OpKind::Erase;
        let rows = if r.kind == OpKind::Read && r.planes == 1 { r.plane as u32..r.plane as u32 + 1 } else { 0..planes };
        for p in rows {
            m.entry((r.die, p)).or_default().push((kind_name(r.kind), gc, r.start.ns(), r.end.ns()));
        }
    }
    m.values_mut().for_each(|v| v.sort());
    m
}

fn drawn_rows(panel: &str) -> Drawn {
    let mut m = Drawn::new();
    for t in tags(panel, "data-op=") {
        let (d, p) = attr(t, "data-op").unwrap().split_once('.').unwrap();
        let kind = match attr(t, "data-kind").unwrap() {
            "read" => "read",
            "program" => "program",
            "erase" => "erase",
            k => panic!("unknown kind {k}"),
        };
        let n = |a: &str| attr(t, a).unwrap().parse::<u64>().unwrap();
        m.entry((d.parse().unwrap(), p.parse().unwrap())).or_default().push((
            kind,
            n("data-gc") == 1,
            n("data-s"),
            n("data-e"),
        ));
    }
    m.values_mut().for_each(|v| v.sort());
    m
}

#[test]
fn die_timeline_equals_the_nand_models_operations() {
    let Some(chrome) = chromium() else { return };
    let dir = temp_dir("timeline");
    let lesson = lessons::find("op-wa").unwrap();
    let page = write_lesson("op-wa", &dir);
    let data = embedded(&page);
    let (k, spec) = (0, &lesson.runs[0]);
    let f = &data.runs[k].frames;
    let planes = data.runs[k].meta.planes_per_die;
    let n = f.t_ns.len();
    // The whole run's log first, to pick a moment whose window holds every kind of op.
    let (_, log) = rerun(spec, vec![]);
    let ops = final_ops(&log);
    let half_w = 2_500_000; // win=5 (ms)
    let kinds_in = |a: u64, b: u64| {
        let mut seen = [false; 4];
        for r in ops.iter().filter(|r| r.end.ns() >= a && r.start.ns() <= b) {
            seen[r.kind as usize] = true;
            seen[3] |= r.kind == OpKind::Program && !r.background;
        }
        seen
    };
    let i = (n / 2..n - 1)
        .find(|&j| f.t_ns[j + 1] > f.t_ns[j] && kinds_in(f.t_ns[j] - half_w, f.t_ns[j] + half_w) == [true; 4])
        .expect("a moment with reads, host and GC programs and an erase around it");
    let t = f.t_ns[i];
    let (dom, err) = dump_dom(&chrome, &page, &format!("t={t}&win=5"), 3000);
    assert_clean(&dom, &err, "die timeline");
    let panel = run_panel(&dom, k);
    let svg = tags(panel, "data-shown=").next().unwrap();
    let (a, b): (f64, f64) =
        (attr(svg, "data-from").unwrap().parse().unwrap(), attr(svg, "data-to").unwrap().parse().unwrap());
    assert_eq!((a as u64, b as u64), (t - half_w, t + half_w), "window");
    let drawn = drawn_rows(panel);
    let want = expected_rows(&ops, planes, a as u64, b as u64);
    assert_eq!(drawn.len() as u32, data.runs[k].meta.dies * planes, "a row per plane of every die: {:?}", drawn.keys());
    for (row, ops) in &want {
        assert_eq!(
            drawn.get(row),
            Some(ops),
            "die {} plane {}: ops drawn in [{a}, {b}] vs the NAND model's log",
            row.0,
            row.1
        );
    }
    assert_eq!(drawn.len(), want.len(), "rows drawn: {:?}", drawn.keys());
    // At the cursor: each die's running op, and the ops started so far, from the model itself.
    let (got, log2) = rerun(spec, vec![f.calls[i]]);
    assert_eq!(log2.len(), log.len(), "the re-run is not deterministic");
    let m = &got[&f.calls[i]];
    assert_eq!(m.now, t, "frame {i}: time");
    for (d, run) in m.running.iter().enumerate() {
        let Some((kind, s, e)) = *run else { continue };
        let on = drawn[&(d as u32, 0)].iter().any(|o| o.0 == kind_name(kind) && o.2 == s && o.3 >= e);
        assert!(on, "die {d} runs a {kind:?} over [{s}, {e}) at t={t}, not drawn: {:?}", drawn[&(d as u32, 0)]);
    }
    // The model counts an op when it books it; one booked by the cursor's call may start later
    // (its channel was busy), and one booked later at the cursor's instant starts then.
    let logged_ops = log2[..m.logged].iter().filter(|e| matches!(e, OpEvent::Op(_))).count();
    let started = |kind: OpKind, x: u64| {
        let booked_late = ops[..logged_ops].iter().filter(|r| r.kind == kind && r.start.ns() > t).count() as u64;
        let at_t_after = ops[logged_ops..].iter().filter(|r| r.kind == kind && r.start.ns() == t).count() as u64;
        x - booked_late + at_t_after
    };
    let oc = tags(panel, "class=\"opcount\"").next().unwrap();
    let shown: Vec<u64> =
        ["data-reads", "data-programs", "data-erases"].iter().map(|a| attr(oc, a).unwrap().parse().unwrap()).collect();
    let kinds = [OpKind::Read, OpKind::Program, OpKind::Erase];
    let want: Vec<u64> = kinds.iter().zip(m.booked).map(|(&k, x)| started(k, x)).collect();
    assert_eq!(shown, want, "reads, programs, erases started by t={t}");
    assert!(want.iter().all(|&x| x > 0), "{want:?}: the check is vacuous");
}
