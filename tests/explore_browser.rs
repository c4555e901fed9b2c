//! Every lesson's page in headless Chromium: it runs without console messages or script
//! errors, the block map has a cell per block of `tiny`, a later fragment time changes the block
//! states and the charts, a breakpoint stops where it says, and the numbers the page shows for a
//! moment equal the simulator's own counters and block table at that moment (a fresh run of the
//! same configuration, stopped there).
//!
//! Needs Debian's `chromium` (scripts/install-test-deps.sh). Without it the test prints SKIPPED;
//! under `CI=true` it fails.
#![allow(clippy::cast_possible_truncation, clippy::expect_used, clippy::unwrap_used)] // a panic in test code is a failed test; casts are of the test's own small values

use ftl::device::Counters;
use host_bench::device::IoCompletion;
use host_bench::explore::lessons;
use host_bench::explore::model::BlockRec;
use host_bench::explore::record::{block_rec, latency_bucket_upper_ns};
use host_bench::runner::{self, RunOptions};
use host_bench::sim::SimTarget;
use host_bench::simrun::SimSession;
use std::path::Path;
use std::process::Command;

mod common;
use common::browser::{assert_clean, attr, chromium, dump_dom, embedded, readout, run_panel, tags, write_lesson};
use common::temp_dir;
use common::watch::Watched;

/// (state, valid, erase, wp) of every block cell of the panel, in block order.
fn cells(panel: &str) -> Vec<(u8, u32, u32, u32)> {
    tags(panel, "class=\"blk")
        .map(|t| {
            let n = |a: &str| attr(t, a).unwrap_or_else(|| panic!("cell without {a}: {t}")).parse::<u32>().unwrap();
            (n("data-state") as u8, n("data-valid"), n("data-erase"), n("data-wp"))
        })
        .collect()
}

#[test]
fn lesson_pages_in_headless_chromium() {
    let Some(chrome) = chromium() else { return };
    let dir = temp_dir("lessons");
    let tiny = ftl::profile::load("tiny").unwrap();
    let tiny_blocks = tiny.geometry.dies() * tiny.geometry.blocks_per_plane;
    for l in lessons::all() {
        let out = dir.join(l.name);
        let o = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
            .args(["explore", "--lesson", l.name, "--out", out.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}: {}", l.name, String::from_utf8_lossy(&o.stderr));
        let page = out.join("index.html");
        let size = std::fs::metadata(&page).unwrap().len();
        assert!(size < 5 << 20, "{}: page is {size} bytes", l.name);
        let data = embedded(&page);
        let (dom, err) = dump_dom(&chrome, &page, "", 5000);
        assert_clean(&dom, &err, l.name);
        let body = tags(&dom, "<body").next().unwrap();
        eprintln!("{}: {} bytes, rendered in {} ms", l.name, size, attr(body, "data-render-ms").unwrap_or("?"));
        for (k, r) in data.runs.iter().enumerate() {
            let n = cells(run_panel(&dom, k)).len();
            assert_eq!(n as u32, r.meta.sampled_blocks, "{}: run {k}: cells", l.name);
            if r.meta.drive == "tiny" {
                assert_eq!(n as u32, tiny_blocks, "{}: one cell per block of tiny", l.name);
            }
        }
        assert!(!data.questions.is_empty() && data.questions.iter().all(|q| !q.answer.is_empty()), "{}", l.name);
    }
    // A later moment: block states, readouts and chart cursors all move.
    let page = dir.join("op-wa").join("index.html");
    let data = embedded(&page);
    let t = &data.runs[0].frames.t_ns;
    let (early, late) = (t[t.len() / 5], t[t.len() * 4 / 5]);
    let (d1, e1) = dump_dom(&chrome, &page, &format!("t={early}"), 3000);
    let (d2, e2) = dump_dom(&chrome, &page, &format!("t={late}"), 3000);
    assert_clean(&d1, &e1, "op-wa early");
    assert_clean(&d2, &e2, "op-wa late");
    let (p1, p2) = (run_panel(&d1, 0), run_panel(&d2, 0));
    assert_ne!(cells(p1), cells(p2), "block states did not change between t={early} and t={late}");
    assert_ne!(readout(p1, "nand_write_bytes"), readout(p2, "nand_write_bytes"));
    let cursors =
        |p: &str| tags(p, "data-chart=").map(|t| attr(t, "data-cursor-x").unwrap().to_string()).collect::<Vec<_>>();
    let (c1, c2) = (cursors(p1), cursors(p2));
    assert_eq!(c1.len(), 6, "charts");
    assert!(c1.iter().zip(&c2).all(|(a, b)| a != b), "chart cursors did not move: {c1:?} vs {c2:?}");
    // The die timeline shows operations around a moment of random writes.
    let shown = tags(p2, "data-shown=").map(|t| attr(t, "data-shown").unwrap().parse::<u32>().unwrap()).next();
    assert!(shown.is_some_and(|n| n > 0), "die timeline empty at t={late}: {shown:?}");
    // "Next write" steps one host write completion at a time after GC starts: the frames there
    // hold one write each, and a step lands on the next write of either run.
    let singles = |r: &host_bench::explore::Recording| single_write_frames(&r.frames);
    let fine = singles(&data.runs[0]);
    // (Writes that complete at one simulated instant are one moment of the page. Since GC's
    // relocated data shares the write buffer, writes waiting for buffer space are admitted
    // together when a program frees it: 201 single-write moments here, 500+ before.)
    assert!(fine.len() >= 150, "only {} single-write frames after GC started", fine.len());
    // A frame whose write is the only one, in either run, since the frame before it: the
    // page's step goes to the next write moment of both runs on their shared time axis.
    let writes_in = |from: u64, to: u64| -> u64 {
        data.runs
            .iter()
            .flat_map(|r| {
                let f = &r.frames;
                (1..f.t_ns.len())
                    .filter(move |&j| f.t_ns[j] > from && f.t_ns[j] <= to)
                    .map(move |j| f.host_writes[j] - f.host_writes[j - 1])
            })
            .sum()
    };
    let t = &data.runs[0].frames.t_ns;
    let i = fine[fine.len() / 2..].iter().copied().find(|&j| writes_in(t[j - 1], t[j]) == 1).unwrap();
    let from = data.runs[0].frames.t_ns[i - 1];
    let (d, e) = dump_dom(&chrome, &page, &format!("t={from}&stepw=1"), 3000);
    assert_clean(&d, &e, "next write");
    let body = tags(&d, "<body").next().unwrap();
    assert_eq!(attr(body, "data-step-writes"), Some("1"), "{body}");
    let t_step: u64 = attr(body, "data-t").unwrap().parse().unwrap();
    let next = data
        .runs
        .iter()
        .flat_map(|r| {
            let f = &r.frames;
            (1..f.t_ns.len())
                .filter(move |&j| f.t_ns[j] > from && f.host_writes[j] > f.host_writes[j - 1])
                .map(move |j| f.t_ns[j])
        })
        .min();
    assert_eq!(Some(t_step), next, "next write from t={from}");
    assert!(t_step <= data.runs[0].frames.t_ns[i]);
    if t_step == data.runs[0].frames.t_ns[i] {
        let shown = readout(run_panel(&d, 0), "host_writes");
        assert_eq!(shown, data.runs[0].frames.host_writes[i].to_string());
        assert_eq!(data.runs[0].frames.host_writes[i], data.runs[0].frames.host_writes[i - 1] + 1);
    }
    // Playing from the start with a breakpoint at the 5th GC victim stops exactly there.
    let (d, e) = dump_dom(&chrome, &page, "t=0&bp-gc=5&play=1", 20000);
    assert_clean(&d, &e, "breakpoint");
    let body = tags(&d, "<body").next().unwrap();
    let reason = attr(body, "data-stop-reason").unwrap_or_else(|| panic!("did not stop: {body}"));
    assert!(reason.contains("GC victim #5"), "{reason}");
    let t_stop: u64 = attr(body, "data-t").unwrap().parse().unwrap();
    let hit = data.runs.iter().enumerate().find_map(|(k, r)| {
        let i = r.frames.t_ns.iter().position(|&x| x == t_stop)?;
        (r.frames.gc_victims[i] >= 5 && i > 0 && r.frames.gc_victims[i - 1] < 5).then_some((k, i))
    });
    let (k, i) = hit.unwrap_or_else(|| panic!("t={t_stop}: no run reaches its 5th victim there"));
    assert_eq!(readout(run_panel(&d, k), "gc_victims"), data.runs[k].frames.gc_victims[i].to_string());
    let first = data
        .runs
        .iter()
        .filter_map(|r| r.frames.gc_victims.iter().position(|&v| v >= 5).map(|j| r.frames.t_ns[j]))
        .min();
    assert_eq!(first, Some(t_stop), "stopped at t={t_stop}, but the 5th victim came first at {first:?}");
    // A victim with at least k valid units: the first such choice in either run.
    let k = 300;
    let (d, e) = dump_dom(&chrome, &page, &format!("t=0&bp-vv={k}&play=1"), 20000);
    assert_clean(&d, &e, "victim breakpoint");
    let body = tags(&d, "<body").next().unwrap();
    let t_stop: u64 = attr(body, "data-t").unwrap().parse().unwrap();
    assert!(
        attr(body, "data-stop-reason").is_some_and(|r| r.contains(&format!("victim with &gt;= {k} valid"))),
        "{body}"
    );
    let first = data
        .runs
        .iter()
        .filter_map(|r| r.frames.victims.iter().position(|v| v.iter().any(|v| v.valid >= k)).map(|j| r.frames.t_ns[j]))
        .filter(|&t| t > 0)
        .min();
    assert_eq!(first, Some(t_stop), "stopped at t={t_stop}, the first victim with >= {k} valid is at {first:?}");
}

/// The drive at one observed call: time, counters, throttled time, block table, host units
/// written (cost-benefit's clock).
type Snap = (u64, Counters, u64, Vec<BlockRec>, u64);

/// Frames after GC's first victim that hold exactly one host write more than the previous.
fn single_write_frames(f: &host_bench::explore::model::Frames) -> Vec<usize> {
    let first_gc = f.gc_victims.iter().position(|&v| v > 0).unwrap_or(f.t_ns.len());
    (first_gc.max(1)..f.t_ns.len())
        .filter(|&j| f.host_writes[j] == f.host_writes[j - 1] + 1 && f.t_ns[j] > f.t_ns[j - 1])
        .collect()
}

/// Captures the drive after the wait/settle calls numbered in `at` (as the recorder counts
/// them) and logs every completion's latency.
struct Stopper {
    calls: u64,
    at: Vec<u64>,
    got: std::collections::BTreeMap<u64, Snap>,
    /// (call, latency ns) of every completion.
    done: Vec<(u64, u64)>,
}

fn snap(target: &SimTarget) -> Snap {
    let ssd = &target.ssd;
    let blocks = (0..ssd.core.layout.blocks).map(|b| block_rec(ssd, b)).collect();
    let throttled = ssd.flash().governor().map_or(0, |g| g.throttled_total(ssd.now()).ns());
    (ssd.now().ns(), ssd.counters(), throttled, blocks, ssd.core.stats.host_write_mus)
}

impl Stopper {
    fn after_call(&mut self, target: &SimTarget, done: Option<&IoCompletion>) {
        self.calls += 1;
        if let Some(c) = done {
            self.done.push((self.calls, c.complete_ns - c.submit_ns));
        }
        if self.at.binary_search(&self.calls).is_ok() {
            self.got.insert(self.calls, snap(target));
        }
    }
}

/// Runs `spec` afresh and captures the drive after each of the observed calls `at` (0: before
/// the run); also returns every completion's (call, latency).
fn rerun(spec: &lessons::RunSpec, at: Vec<u64>) -> (std::collections::BTreeMap<u64, Snap>, Vec<(u64, u64)>) {
    let file = lessons::parse_job(spec, "test").unwrap();
    let mut s = SimSession::new(spec.cfg.clone()).unwrap();
    let mut opts = RunOptions::new(spec.cfg.seed);
    opts.time_scale = 1.0 / s.scale_factor();
    opts.series_interval_ns = spec.cfg.interval_ns;
    let mut at = at;
    at.sort_unstable();
    at.dedup();
    let mut w = Stopper { calls: 0, at, got: Default::default(), done: vec![] };
    w.got.insert(0, snap(&s.target));
    let mut dev =
        Watched { target: &mut s.target, after: |t: &mut SimTarget, c: Option<&IoCompletion>| w.after_call(t, c) };
    runner::run(&file, &mut dev, &mut opts).unwrap();
    let missing: Vec<&u64> = w.at.iter().filter(|c| !w.got.contains_key(c)).collect();
    assert!(missing.is_empty(), "the re-run never reached calls {missing:?}");
    (w.got, w.done)
}

/// What one chart shows at a moment: the interval (from, to frame) and each line's value.
struct ChartReading {
    title: String,
    from: usize,
    to: usize,
    values: Vec<(String, Option<f64>)>,
}

fn chart_readings(panel: &str) -> Vec<ChartReading> {
    tags(panel, "data-chart=")
        .map(|t| {
            let title = attr(t, "data-chart").unwrap().to_string();
            let frame = |a: &str| attr(t, a).unwrap_or_else(|| panic!("{title}: no {a}")).parse().unwrap();
            let values = t
                .split(" data-v-")
                .skip(1)
                .map(|kv| {
                    let (k, v) = kv.split_once("=\"").unwrap();
                    let v = &v[..v.find('"').unwrap()];
                    (k.to_string(), (!v.is_empty()).then(|| v.parse::<f64>().unwrap()))
                })
                .collect();
            ChartReading { from: frame("data-from-frame"), to: frame("data-to-frame"), title, values }
        })
        .collect()
}

/// The value a chart line must show over the interval between two captured moments, computed
/// from the simulator's counters there and the completions the re-run logged in between.
fn expected_chart_value(key: &str, a: &Snap, b: &Snap, lats: &mut [u64]) -> Option<f64> {
    let dt_s = (b.0 - a.0) as f64 / 1e9;
    let per_s = |x: f64| if dt_s > 0.0 { x / dt_s } else { 0.0 };
    let (ca, cb) = (&a.1, &b.1);
    Some(match key {
        "iops" => per_s(lats.len() as f64),
        "p99_us" => {
            lats.sort_unstable();
            let k = (lats.len() * 99).div_ceil(100).max(1);
            lats.get(k - 1).map_or(0.0, |&ns| latency_bucket_upper_ns(ns) as f64 / 1000.0)
        }
        "wa" => {
            let dh = cb.host_write_bytes - ca.host_write_bytes;
            return (dh > 0).then(|| (cb.nand_write_bytes - ca.nand_write_bytes) as f64 / dh as f64);
        }
        "wa_cum" => cb.wa(),
        "free_blocks" => cb.free_blocks as f64,
        "gc_stall_pct" => per_s((cb.gc_stall_ns - ca.gc_stall_ns) as f64 / 1e7),
        "power_w" => per_s(cb.energy_j - ca.energy_j),
        "throttled_pct" => per_s((b.2 - a.2) as f64 / 1e7),
        _ => panic!("unknown chart line {key}"),
    })
}

#[test]
fn page_numbers_equal_the_simulators_counters() {
    let Some(chrome) = chromium() else { return };
    let dir = temp_dir("counters");
    let lesson = lessons::find("op-wa").unwrap();
    let page = write_lesson("op-wa", &dir);
    check_against_simulator(&chrome, &page, &lesson.runs);
    // Under a power cap, so that the governor's throttled time is not 0.
    let mut capped = lesson.runs[0].clone();
    capped.cfg.power_cap_w = Some(1.7);
    let job = dir.join("capped.fio");
    std::fs::write(&job, &capped.job).unwrap();
    let out = dir.join("capped");
    let o = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(["explore", job.to_str().unwrap(), "--drive", "tiny", "--op", "15%", "--power-cap", "1.7"])
        .args(["--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let throttled = check_against_simulator(&chrome, &out.join("index.html"), &[capped]);
    assert!(throttled > 0, "the capped run never throttled: the check is vacuous");
    // Cost-benefit: the histogram's candidates and scores are the block table's at that frame.
    let lesson = lessons::find("greedy-vs-cost-benefit").unwrap();
    let out = dir.join("cb");
    let o = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(["explore", "--lesson", lesson.name, "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let k = lesson.runs.iter().position(|r| r.cfg.gc_policy == Some(ftl::GcPolicy::CostBenefit)).unwrap();
    check_rivals(&chrome, &out.join("index.html"), &lesson.runs[k], k);
}

/// At a frame of run `k` (cost-benefit) where GC chose a victim, the histogram marks the best
/// other candidates of the victim's die with the scores the block table gives at that moment.
fn check_rivals(chrome: &Path, page: &Path, spec: &lessons::RunSpec, k: usize) {
    let data = embedded(page);
    let f = &data.runs[k].frames;
    let (n, mpb, bpd) = (f.t_ns.len(), data.runs[k].meta.mus_per_block, data.runs[k].meta.blocks_per_die);
    // A frame that was never merged (a single-write one), so that it is the moment the
    // candidates were scored.
    let i = single_write_frames(f)
        .into_iter()
        .find(|&j| !f.victims[j].is_empty() && j + 1 < n && f.t_ns[j + 1] > f.t_ns[j])
        .expect("a single-write frame with a victim");
    let victim = f.victims[i].last().unwrap().block;
    let (dom, err) = dump_dom(chrome, page, &format!("t={}", f.t_ns[i]), 3000);
    assert_clean(&dom, &err, "cost-benefit histogram");
    let shown: Vec<(u32, f64)> = tags(run_panel(&dom, k), "data-rival=")
        .map(|t| (attr(t, "data-rival").unwrap().parse().unwrap(), attr(t, "data-score").unwrap().parse().unwrap()))
        .collect();
    let (got, _) = rerun(spec, vec![f.calls[i]]);
    let (_, _, _, blocks, now_mus) = &got[&f.calls[i]];
    let die = victim / bpd;
    let mut want: Vec<(f64, u32)> = (die * bpd..(die + 1) * bpd)
        .filter(|&b| b != victim)
        .map(|b| (b, &blocks[b as usize]))
        .filter(|(_, r)| r.state == 2 && r.wp > 0 && r.valid < mpb)
        .map(|(b, r)| (ftl::gc::policy::score(r.valid, mpb, now_mus.saturating_sub(r.closed_at)), b))
        .collect();
    want.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let want: Vec<(u32, f64)> = want.iter().take(5).map(|&(s, b)| (b, s)).collect();
    assert!(!want.is_empty(), "frame {i}: no other candidate on die {die}: the check is vacuous");
    assert_eq!(shown, want, "frame {i} (victim {victim}): candidates and scores");
}

/// Opens `page` at a few moments of each run and compares what it shows (readouts, block map,
/// every chart line) with a fresh run of `specs[k]` stopped there; returns the largest throttled
/// time seen.
fn check_against_simulator(chrome: &Path, page: &Path, specs: &[lessons::RunSpec]) -> u64 {
    let data = embedded(page);
    let mut max_throttled = 0;
    for (k, spec) in specs.iter().enumerate() {
        let f = &data.runs[k].frames;
        let n = f.t_ns.len();
        // A few moments with a time of their own (the fragment names a time).
        // One of them among the single-write frames after GC starts.
        let fine = single_write_frames(f);
        let picks: Vec<usize> = [n / 7, n / 3, n / 2, n * 5 / 6]
            .into_iter()
            .chain(fine.get(fine.len() / 3).copied())
            .map(|i| (i..n - 1).find(|&j| f.t_ns[j + 1] > f.t_ns[j]).unwrap())
            .collect();
        let doms: Vec<String> = picks
            .iter()
            .map(|&i| {
                let (dom, err) = dump_dom(chrome, page, &format!("t={}", f.t_ns[i]), 3000);
                assert_clean(&dom, &err, "counters");
                dom
            })
            .collect();
        let charts: Vec<Vec<ChartReading>> = doms.iter().map(|d| chart_readings(run_panel(d, k))).collect();
        // Stop a fresh run of the same configuration at those moments and at the charts'
        // interval ends.
        let mut at: Vec<u64> = picks.iter().map(|&i| f.calls[i]).collect();
        at.extend(charts.iter().flatten().flat_map(|c| [f.calls[c.from], f.calls[c.to]]));
        let (got, done) = rerun(spec, at);
        for ((&i, dom), charts) in picks.iter().zip(&doms).zip(&charts) {
            let (t, c, throttled, blocks, _) = &got[&f.calls[i]];
            assert_eq!(f.t_ns[i], *t, "run {k} frame {i}: time");
            max_throttled = max_throttled.max(*throttled);
            let p = run_panel(dom, k);
            let what = format!("run {k} at t={t} (frame {i})");
            for (key, want) in [
                ("host_writes", c.host_writes),
                ("host_reads", c.host_reads),
                ("host_write_bytes", c.host_write_bytes),
                ("host_trim_bytes", c.host_trim_bytes),
                ("nand_write_bytes", c.nand_write_bytes),
                ("gc_write_bytes", c.gc_write_bytes),
                ("gc_victims", c.gc_victims),
                ("erases", c.erases),
                ("free_blocks", c.free_blocks as u64),
                ("gc_stall_ns", c.gc_stall_ns),
                ("throttled_ns", *throttled),
                ("t_ms", *t),
            ] {
                assert_eq!(readout(p, key), want.to_string(), "{what}: {key}");
            }
            assert_eq!(readout(p, "energy_j").parse::<f64>().unwrap(), c.energy_j, "{what}: energy");
            assert_eq!(readout(p, "wa"), format!("{:.4}", c.wa()), "{what}: WA");
            let want: Vec<(u8, u32, u32, u32)> = blocks.iter().map(|b| (b.state, b.valid, b.erase, b.wp)).collect();
            assert_eq!(cells(p), want, "{what}: block map");
            assert_eq!(charts.len(), 6, "{what}: charts");
            let lines: usize = charts.iter().map(|c| c.values.len()).sum();
            assert_eq!(lines, 8, "{what}: chart lines");
            for ch in charts {
                // The interval shown is the last one that ended by the moment.
                assert!(ch.from < ch.to && ch.to <= i, "{what}: {}: interval {}..{}", ch.title, ch.from, ch.to);
                let (a, b) = (&got[&f.calls[ch.from]], &got[&f.calls[ch.to]]);
                let (ca, cb) = (f.calls[ch.from], f.calls[ch.to]);
                let mut lats: Vec<u64> = done.iter().filter(|d| d.0 > ca && d.0 <= cb).map(|d| d.1).collect();
                for (key, shown) in &ch.values {
                    let want = expected_chart_value(key, a, b, &mut lats);
                    assert_eq!(*shown, want, "{what}: chart {}: {key} over frames {}..{}", ch.title, ch.from, ch.to);
                }
            }
        }
    }
    max_throttled
}

/// With `--write-log`, "next write" late in a run steps exactly one host write: the block map
/// before and after the step equals the simulator's block table right after the write
/// completions before and at that write (a fresh run of the same configuration), and differs.
#[test]
fn next_write_steps_one_write_anywhere_with_a_write_log() {
    let Some(chrome) = chromium() else { return };
    let dir = temp_dir("write-log");
    let o = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(["explore", "--lesson", "op-wa", "--write-log", "--out", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let page = dir.join("index.html");
    let data = embedded(&page);
    let log = &data.runs[0].writes;
    assert!(log.n.len() > 40_000 && log.dropped == 0, "{} writes logged, {} dropped", log.n.len(), log.dropped);
    // Late in the run, long after the single-write frames of a page without a write log, at a
    // write whose completion (and its neighbours') changed blocks: writes admitted together,
    // when a program frees buffer space, change the blocks at the first one's completion.
    let late = log.n.len() * 9 / 10;
    let e = (late..log.n.len() - 1).find(|&k| log.n[k - 1] > 0 && log.n[k] > 0 && log.n[k + 1] > 0).unwrap();
    let (d, err) = dump_dom(&chrome, &page, &format!("w=0.{e}&stepw=1"), 3000);
    assert_clean(&d, &err, "step");
    let body = tags(&d, "<body").next().unwrap();
    assert_eq!(attr(body, "data-step-writes"), Some("1"), "{body}");
    let run: usize = attr(body, "data-step-run").unwrap().parse().unwrap();
    let entry: usize = attr(body, "data-step-entry").unwrap().parse().unwrap();
    let after = cells(run_panel(&d, run));
    let (d0, err0) = dump_dom(&chrome, &page, &format!("w={run}.{}", entry - 1), 3000);
    assert_clean(&d0, &err0, "before the step");
    let before = cells(run_panel(&d0, run));
    // The simulator after write completions `entry` and `entry + 1` of that run.
    let spec = &lessons::find("op-wa").unwrap().runs[run];
    let file = lessons::parse_job(spec, "test").unwrap();
    let mut s = SimSession::new(spec.cfg.clone()).unwrap();
    let mut opts = RunOptions::new(spec.cfg.seed);
    opts.time_scale = 1.0 / s.scale_factor();
    opts.series_interval_ns = spec.cfg.interval_ns;
    let (mut writes, mut snaps) = (0usize, Vec::new());
    let mut dev = Watched {
        target: &mut s.target,
        after: |t: &mut SimTarget, c: Option<&IoCompletion>| {
            if c.is_some_and(|c| c.dir == host_bench::device::IoDir::Write) {
                writes += 1;
                if writes == entry || writes == entry + 1 {
                    let n = before.len() as u32;
                    snaps.push(
                        (0..n)
                            .map(|b| block_rec(&t.ssd, b))
                            .map(|r| (r.state, r.valid, r.erase, r.wp))
                            .collect::<Vec<_>>(),
                    );
                }
            }
        },
    };
    runner::run(&file, &mut dev, &mut opts).unwrap();
    assert_eq!(snaps.len(), 2, "the re-run completed {writes} writes");
    assert_eq!(before, snaps[0], "run {run}: the block map before write {entry} of the log");
    assert_eq!(after, snaps[1], "run {run}: the block map after write {entry} of the log");
    let moved = before.iter().zip(&after).filter(|(a, b)| a != b).count();
    assert!(moved >= 1, "the step changed no block");
}
