//! Setting up a group's jobs: per-job state (the slot) and each job instance with its pattern,
//! sizes, rate and steady-state criterion.

use super::*;
use nand_model::rng::{RngStreams, StreamId};

/// Figures of the ramp, kept until the ramp ends (see [`Slot::ramp`]).
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct RampStats {
    pub(super) dirs: [DirResult; 3],
    pub(super) series: SeriesRecorder,
    pub(super) iodepth_levels: [u64; 7],
    pub(super) start_ns: u64,
    pub(super) end_ns: u64,
}

/// A reported job's slot; `scaled_sizes` records what the scaled run shrank (`job::full_scale`).
pub(super) fn new_slot(
    spec: &JobSpec,
    scaled_sizes: &[crate::job::ScaledOption],
    groupid: usize,
    now_ns: u64,
    opts: &RunOptions,
) -> Slot {
    let origin = now_ns.saturating_add(scale(spec.ramp_time_ns, opts.time_scale));
    let steady_state = spec.steadystate.filter(|s| s.dur_ns > 0).map(|s| SteadyStateOutcome {
        criterion: SteadyState {
            dur_ns: scale(s.dur_ns, opts.time_scale),
            ramp_ns: scale(s.ramp_ns, opts.time_scale),
            ..s
        },
        reached: false,
        reached_at_ns: None,
    });
    Slot {
        result: JobResult {
            name: spec.name.clone(),
            groupid,
            instances: 0,
            options: spec.options.clone(),
            rw: spec.rw,
            iodepth: spec.iodepth,
            percentile_list: spec.percentile_list.clone(),
            description: spec.description.clone(),
            unified_rw: spec.unified_rw,
            dirs: Default::default(),
            series: Vec::new(),
            series_interval_ns: opts.series_interval_ns.max(1),
            start_ns: u64::MAX,
            end_ns: 0,
            instances_runtime_ns: 0,
            iodepth_levels: [0; 7],
            steady_state,
            latency: super::LatencyOutcome::new(&spec.latency, spec.iodepth),
            fatal: None,
            verify: Default::default(),
            host_usage: None,
            warmup: None,
            scaled_sizes: scaled_sizes.to_vec(),
        },
        series: SeriesRecorder::new(origin, opts.series_interval_ns),
        ss_all_reached: true,
        offload: spec.submit_offload,
        ramp: (origin > now_ns).then(|| {
            Box::new(RampStats {
                dirs: Default::default(),
                series: SeriesRecorder::new(now_ns, opts.series_interval_ns),
                iodepth_levels: [0; 7],
                start_ns: now_ns,
                end_ns: 0,
            })
        }),
    }
}

// The instance's place in the file, the group and on the clock: each argument is a different fact.
#[allow(clippy::too_many_arguments)]
#[allow(clippy::cast_possible_truncation)] // a job file's jobs number far below 2^32
pub(super) fn new_instance(
    spec: &JobSpec,
    job_index: usize,
    clone: u32,
    slot: usize,
    info: &DeviceInfo,
    now_ns: u64,
    run_start_ns: u64,
    opts: &RunOptions,
    flows: &mut Vec<super::flow::FlowShared>,
) -> Result<Instance, RunError> {
    // Jobs of a run continued from a snapshot draw the streams they would have had in one run.
    let job_no = job_index as u64 + u64::from(opts.continued.jobs);
    let streams = RngStreams::new(opts.seed);
    // `randrepeat=0`: this run's streams differ from every earlier run's (see `RunOptions::reseed`).
    let run_key = if spec.randrepeat { 0 } else { (u64::from(opts.reseed) + 1) << 44 };
    let key = run_key | (job_no << 20) | u64::from(clone);
    let rng = streams.stream(StreamId::Host, key);
    let ts = opts.time_scale;
    let group_start_ns = now_ns;
    let now_ns = start_ns(spec, &streams, key, group_start_ns, run_start_ns, ts);
    let measure_from_ns = now_ns.saturating_add(scale(spec.ramp_time_ns, ts));
    let end_ns = spec.runtime_ns.map_or(u64::MAX, |r| measure_from_ns.saturating_add(scale(r, ts)));
    let replay = spec.replay.read_iolog.is_some();
    let (source, budget_bytes, budget_ios) = if replay {
        // fio: the job is the log, whatever its rw, bs or size say.
        let log = IologSource::open(&spec.replay, info.capacity_bytes, info.logical_block_bytes)
            .map_err(|message| RunError::Iolog { job: spec.name.clone(), message })?;
        (Source::Iolog(Box::new(log)), u64::MAX, u64::MAX)
    } else {
        let mut pattern = IoPattern::new(spec, clone, rng, info.capacity_bytes, info.logical_block_bytes)?;
        let (b, n) = budgets(spec, &mut pattern, info);
        (Source::Pattern(pattern), b, n)
    };
    let paced = (replay && !spec.replay.no_stall) || spec.rate_limited();
    let ss_interval = scale(SS_INTERVAL_NS, ts).max(1);
    let ss = spec.steadystate.and_then(|s| {
        let scaled = SteadyState { dur_ns: scale(s.dur_ns, ts), ramp_ns: scale(s.ramp_ns, ts), ..s };
        SteadyStateTracker::new(scaled, measure_from_ns, ss_interval)
    });
    Ok(Instance {
        source,
        replay_paced: replay && !spec.replay.no_stall,
        waiting_slot: false,
        job: job_index as u32,
        clone,
        ahead: super::instance::Ahead::new((
            NextIo { dir: crate::device::IoDir::Read, offset_bytes: 0, len_bytes: 0 },
            0,
        )),
        slot,
        iodepth: spec.iodepth.max(1),
        outstanding: 0,
        start_ns: now_ns,
        measure_from_ns,
        end_ns,
        budget_bytes,
        budget_ios,
        issued_bytes: 0,
        issued_ios: 0,
        rate: {
            let r = streams.stream(StreamId::HostRate, key);
            // A replayed log keeps its own pace.
            rate::RateState::new(spec, r).filter(|_| !replay)
        },
        next_arrival_ns: now_ns,
        stopped: false,
        finished: false,
        ss,
        ss_reached_ns: None,
        control: control::Control::new(
            spec,
            flows,
            scale(spec.latency.window_ns, ts),
            measure_from_ns,
            // A delayed closed-loop instance waits for its start; paced ones wait for their
            // first arrival, which is the start.
            (now_ns > group_start_ns && !paced).then_some(now_ns),
        ),
        min_rate: super::min_rate::MinRate::new(spec, ts, measure_from_ns),
        // A latency is a latency at any scale; u64::MAX where no maximum is set.
        max_latency_ns: spec.max_latency_ns.map(|m| if m == 0 { u64::MAX } else { m }),
        offsets: spec.logs.wants_offsets().then(|| Box::new(super::offsets::InFlightOffsets::new(spec.iodepth.max(1)))),
    })
}

/// When an instance starts: fio starts a job `startdelay` after the run began (not its group),
/// or with its group when that is later; a range is drawn per instance. Scaled like runtime.
fn start_ns(spec: &JobSpec, streams: &RngStreams, key: u64, group_start_ns: u64, run_start_ns: u64, ts: f64) -> u64 {
    let (lo, hi) = spec.start_delay_ns;
    let delay = if hi > lo {
        // fio's rand_between: inclusive of both ends.
        let r = rand::RngCore::next_u64(&mut streams.stream(StreamId::StartDelay, key));
        lo + r % (hi - lo + 1)
    } else {
        lo
    };
    group_start_ns.max(run_start_ns.saturating_add(scale(delay, ts)))
}

/// Bytes and I/Os a generated job may issue over all its loops; sets the pattern's loops.
fn budgets(spec: &JobSpec, pattern: &mut IoPattern, info: &DeviceInfo) -> (u64, u64) {
    let loops = u64::from(spec.loops.max(1));
    if spec.randrepeat && !spec.time_based {
        pattern.repeat_each_pass();
    }
    if spec.time_based {
        (u64::MAX, u64::MAX)
    } else if let Some(n) = spec.number_ios {
        pattern.set_loops(spec.loops, spec.io_size.is_some());
        (u64::MAX, n.saturating_mul(loops))
    } else {
        let lbs = u64::from(info.logical_block_bytes);
        let region = pattern.region().1;
        let per_loop = match (spec.io_size, spec.filesize_bytes, spec.size) {
            (Some(s), _, _) => s.resolve(info.capacity_bytes, lbs),
            // fio: with a filesize, an absolute size is the amount per loop, at most the file.
            (None, Some(_), Some(crate::job::SizeSpec::Bytes(b))) => b.min(region),
            _ => region,
        };
        pattern.set_loop_bytes(per_loop);
        pattern.set_loops(spec.loops, spec.io_size.is_some());
        (per_loop.saturating_mul(loops), u64::MAX)
    }
}
