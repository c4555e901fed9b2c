//! `ssdlab explore`: record a simulated run as frames of the drive's counters and block table
//! ([`record`]) and write a self-contained teaching page ([`page`]); [`lessons`] are preset
//! scenarios with text and questions whose answers come from the run.
//!
//! Recording is an observer: [`Observed`] passes every call to the simulated target unchanged
//! and only reads the drive after each completion, so a run gives the same results with or
//! without it (tests/cli_explore.rs checks the JSON byte for byte).

pub mod diff;
pub mod latency;
pub mod lessons;
pub mod model;
pub mod optrace;
pub mod page;
pub mod record;
pub mod series;
mod thin;
pub mod writewatch;

pub use model::{Page, Question, Recording};
pub use record::{Observed, Recorder};

use crate::job::JobFile;
use crate::runner::{RunError, RunProgress, RunResult};
use crate::simrun::SimSession;
use std::sync::atomic::AtomicBool;

/// Static facts of the session's drive for the page.
pub fn meta_of(s: &SimSession) -> model::DriveMeta {
    let ssd = &s.target.ssd;
    let l = &ssd.core.layout;
    let cap = ssd.capacity();
    let sampled_dies = (record::SAMPLE_BLOCKS / l.blocks_per_die.max(1)).clamp(1, l.dies);
    let sampled = if l.blocks <= record::MAX_SAMPLED_BLOCKS { l.blocks } else { sampled_dies * l.blocks_per_die };
    model::DriveMeta {
        drive: s.profile.profile.name.clone(),
        policy: match ssd.core.cfg.policy {
            ftl::GcPolicy::Greedy => "greedy".into(),
            ftl::GcPolicy::CostBenefit => "cost-benefit".into(),
        },
        hot_cold_separation: ssd.core.cfg.hot_cold_separation,
        plp: ssd.plp(),
        seed: s.cfg.seed,
        op_pct: cap.op * 100.0,
        wa_greedy_ref: ftl::wa_model::wa_greedy_uniform(cap.op),
        blocks: l.blocks,
        dies: l.dies,
        planes_per_die: l.geo.planes_per_die,
        blocks_per_die: l.blocks_per_die,
        mus_per_block: l.mus_per_block,
        mu_bytes: l.mu_bytes,
        sampled_blocks: sampled,
        gc_threshold_blocks: ssd.core.cfg.gc_threshold_blocks,
        host_reserve_blocks: ssd.core.cfg.host_reserve_blocks,
        power_cap_w: s.power_cap_w,
        scale_divisor: s.scale_divisor,
        t_cmd_ns: ssd.flash().timing().t_cmd_ns.ns(),
    }
}

/// Runs `job` on the session with a recorder; the result is what [`SimSession::run`] gives.
pub fn record_run<'a>(
    s: &mut SimSession,
    job: &JobFile,
    stop: Option<&'a AtomicBool>,
    progress: Option<&'a mut dyn FnMut(RunProgress)>,
) -> Result<(RunResult, Recorder), RunError> {
    record_run_with(s, job, stop, progress, None, false)
}

/// [`record_run`] with a power cut planned mid-run (`stop` should be the cut's flag) and,
/// with `write_log`, every host write logged ([`Recorder::with_write_log`]).
pub fn record_run_with<'a>(
    s: &mut SimSession,
    job: &JobFile,
    stop: Option<&'a AtomicBool>,
    progress: Option<&'a mut dyn FnMut(RunProgress)>,
    cut: Option<record::MidRunCut>,
    write_log: bool,
) -> Result<(RunResult, Recorder), RunError> {
    let meta = meta_of(s);
    let mut rec = Recorder::new(&mut s.target.ssd, meta).with_write_log(write_log);
    rec.cut = cut;
    let r = s.run_observed(job, stop, progress, Some(&mut rec))?;
    Ok((r, rec))
}
