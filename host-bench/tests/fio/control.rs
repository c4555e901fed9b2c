//! fio's `latency_target` search and `flow` between jobs, on the mock device (4 servers of
//! 100 us: a queue of Q <= 4 sees 100 us, deeper queues wait Q / 4 x 100 us at worst).
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use host_bench::runner::{run, RunOptions, RunResult};

use crate::mock::MockDevice;

const GIB: u64 = 1 << 30;

fn run_on(text: &str, dev: &mut MockDevice) -> RunResult {
    let file = host_bench::job::parse_str(text, "t.fio", &Default::default()).unwrap();
    run(&file, dev, &mut RunOptions::new(1)).unwrap()
}

/// With percentile 99: fio's default 100 fails a depth at each late completion, so one window
/// at a depth twice too deep drains the queue down to QD 1 (as in fio).
fn search(target: &str, servers: usize) -> RunResult {
    let mut dev = MockDevice::new(GIB, servers, 100_000);
    let job = format!(
        "[j]\nrw=randread\niodepth=32\nruntime=10\ntime_based\nlatency_target={target}\nlatency_window=50ms\nlatency_percentile=99\n"
    );
    run_on(&job, &mut dev)
}

#[test]
fn latency_target_finds_the_deepest_queue_that_meets_it() {
    // Every completion within 150 us: only a queue no deeper than the servers (100 us).
    let r = search("150us", 4);
    let j = &r.jobs[0];
    assert_eq!(j.latency.depth, 4, "{:?}", j.latency);
    assert_eq!(j.latency.target_ns, 150_000);
    assert_eq!(j.latency.window_us, 50_000);
    assert_eq!(j.latency.exceeded_ns, None);
    // fio's final window at the depth found is the report: 4 outstanding, one window long,
    // then the job ends well before its runtime.
    assert_eq!(j.dirs[0].clat.max(), 100_000);
    assert!((j.runtime_ns() as f64 - 50e6).abs() < 1e6, "{}", j.runtime_ns());
    // The queue drained before the final window: it refills through depths 1 and 2 once.
    assert_eq!(j.iodepth_levels, [1, 1, j.dirs[0].ios - 2, 0, 0, 0, 0]);
    assert!(r.end_ns - r.start_ns < 2_000_000_000);
    // Twice the servers, or twice the latency allowed: twice the depth (Little's law).
    assert_eq!(search("150us", 8).jobs[0].latency.depth, 8);
    assert_eq!(search("250us", 4).jobs[0].latency.depth, 8);
    // A target every depth meets: the job's iodepth.
    assert_eq!(search("1s", 4).jobs[0].latency.depth, 32);
}

#[test]
fn a_target_nothing_meets_stays_at_qd1_or_fails_the_job() {
    let mut dev = MockDevice::new(GIB, 4, 100_000);
    let job = "[j]\nrw=randread\niodepth=8\nruntime=1\ntime_based\nlatency_target=50us\nlatency_window=10ms\n";
    let r = run_on(&format!("{job}latency_percentile=50\n"), &mut dev);
    let j = &r.jobs[0];
    assert_eq!((j.latency.depth, j.latency.exceeded_ns), (1, None));
    assert!((j.runtime_ns() as f64 - 1e9).abs() < 1e6, "QD 1 for the whole runtime");
    assert_eq!(j.iodepth_levels[0], j.dirs[0].ios);
    // Percentile 100 (fio's default): the first late completion at QD 1 ends the job (fio's
    // ETIMEDOUT), after one I/O.
    let mut dev = MockDevice::new(GIB, 4, 100_000);
    let j = &run_on(job, &mut dev).jobs[0];
    assert_eq!(j.latency.exceeded_ns, Some(100_000));
    assert_eq!(j.dirs[0].ios, 1);
}

#[test]
fn flow_weights_set_the_ratio_of_ios() {
    let mut dev = MockDevice::new(GIB, 4, 100_000);
    let text = "[global]\nrw=randread\niodepth=4\nruntime=1\ntime_based\nflow_id=3\n[a]\nflow=2\n[b]\nflow=1\n\
                [c]\nflow_id=4\nflow=1\n";
    let r = run_on(text, &mut dev);
    let ios: Vec<f64> = r.jobs.iter().map(|j| j.dirs[0].ios as f64).collect();
    // fio's counter allows at most one I/O past the weight; the rest is the queue in flight.
    assert!((ios[0] / ios[1] - 2.0).abs() < 0.01, "{ios:?}");
    // c, alone in its flow, is never held: it gets its fair share of the 4 servers.
    assert!(ios[2] > 0.9 * (ios[0] + ios[1]) / 2.0, "{ios:?}");
}

#[test]
fn flow_sleep_drains_and_waits() {
    let ios = |sleep: &str| -> (f64, f64) {
        let mut dev = MockDevice::new(GIB, 8, 100_000);
        let text = format!(
            "[global]\nrw=randread\niodepth=4\nruntime=1\ntime_based\nflow_id=1\n[a]\nflow=1\n{sleep}\n[b]\nflow=3\n"
        );
        let r = run_on(&text, &mut dev);
        (r.jobs[0].dirs[0].ios as f64, r.jobs[1].dirs[0].ios as f64)
    };
    let (a, b) = ios("");
    let (sa, sb) = ios("flow_sleep=10000");
    // The weights hold either way.
    assert!((b / a - 3.0).abs() < 0.01 && (sb / sa - 3.0).abs() < 0.05, "{a} {b} {sa} {sb}");
    // Held, a drains its queue and sleeps 10 ms, and b soon waits for a: together they do a
    // fraction of the I/O.
    assert!(sa + sb < 0.5 * (a + b), "{a} {b} {sa} {sb}");
}

/// No side-by-side test with real fio: fio 3.33 with io_submit_mode=offload hung in one of two
/// runs on the test file (16 minutes, killed), so this holds fio's source (rate-submit.c: each
/// submit worker has its own thread data and depth) instead.
#[test]
fn offload_reports_every_submission_at_depth_1() {
    let job = "[j]\nrw=randread\nbs=4k\nsize=1m\niodepth=4\n";
    let mut dev = MockDevice::new(GIB, 4, 100_000);
    let inline = run_on(job, &mut dev);
    let mut dev = MockDevice::new(GIB, 4, 100_000);
    let offload = run_on(&format!("{job}io_submit_mode=offload\n"), &mut dev);
    let (i, o) = (&inline.jobs[0], &offload.jobs[0]);
    assert_eq!(i.iodepth_levels, [1, 1, 254, 0, 0, 0, 0]);
    assert_eq!(o.iodepth_levels, [256, 0, 0, 0, 0, 0, 0]);
    // The same I/Os at the same depth.
    assert_eq!((o.dirs[0].ios, o.runtime_ns()), (i.dirs[0].ios, i.runtime_ns()));
}
