#![allow(clippy::unwrap_used)] // a panic in test code is a failed test
use std::sync::atomic::{AtomicBool, Ordering};

use host_bench::device::IoDir;
use host_bench::job::{parse_str, JobFile, ParseOptions};
use host_bench::runner::{run, RunOptions, RunResult};

use crate::mock::MockDevice;

const GIB: u64 = 1 << 30;
const S: u64 = 1_000_000_000;

fn file(text: &str) -> JobFile {
    parse_str(text, "t.fio", &ParseOptions::default()).unwrap()
}

fn run_on(text: &str, dev: &mut MockDevice) -> RunResult {
    run(&file(text), dev, &mut RunOptions::new(1)).unwrap()
}

fn iops(r: &RunResult, job: usize, dir: usize) -> f64 {
    let j = &r.jobs[job];
    j.dirs[dir].ios as f64 * 1e9 / j.runtime_ns() as f64
}

#[test]
fn closed_loop_obeys_littles_law() {
    // iodepth 4 on 8 servers of 100 us: no queueing, IOPS = 4 / 100 us = 40k, latency 100 us.
    let mut dev = MockDevice::new(GIB, 8, 100_000);
    let r = run_on("[j]\nrw=randread\niodepth=4\nruntime=2\ntime_based\n", &mut dev);
    let got = iops(&r, 0, 0);
    assert!((got - 40_000.0).abs() < 40.0, "{got}");
    let clat = &r.jobs[0].dirs[0].clat;
    assert_eq!((clat.min(), clat.max()), (100_000, 100_000));
    assert!((r.jobs[0].runtime_ns() as f64 - 2e9).abs() < 200_000.0);

    // iodepth 16 on 4 servers: IOPS = 4 / 100 us = 40k, latency = 16 / 40k = 400 us.
    let mut dev = MockDevice::new(GIB, 4, 100_000);
    let r = run_on("[j]\nrw=randwrite\niodepth=16\nruntime=1\ntime_based\n", &mut dev);
    let got = iops(&r, 0, 1);
    assert!((got - 40_000.0).abs() < 40.0, "{got}");
    let mean = r.jobs[0].dirs[1].clat.mean();
    assert!((mean - 400_000.0).abs() < 1_000.0, "{mean}");
    // The first 8 submissions fill depths 1..=8; every later one finds 9..=16 outstanding.
    let levels = r.jobs[0].iodepth_levels;
    assert_eq!(levels[..4].iter().sum::<u64>(), 8, "{levels:?}");
    assert_eq!(levels[5] + levels[6], 0, "{levels:?}");
}

#[test]
fn numjobs_clones_share_the_device() {
    let mut dev = MockDevice::new(GIB, 8, 100_000);
    let r = run_on("[j]\nrw=randread\niodepth=2\nnumjobs=3\nruntime=1\ntime_based\n", &mut dev);
    assert_eq!(r.jobs.len(), 3);
    for j in 0..3 {
        assert!((iops(&r, j, 0) - 20_000.0).abs() < 40.0);
        assert_eq!(r.jobs[j].instances, 1);
    }
    let mut dev = MockDevice::new(GIB, 8, 100_000);
    let r = run_on("[j]\nrw=randread\niodepth=2\nnumjobs=3\ngroup_reporting\nruntime=1\ntime_based\n", &mut dev);
    assert_eq!((r.jobs.len(), r.jobs[0].instances), (1, 3));
    assert!((iops(&r, 0, 0) - 60_000.0).abs() < 100.0);
}

#[test]
fn size_loops_and_number_ios_bound_the_work() {
    let mut dev = MockDevice::new(GIB, 4, 10_000);
    let r = run_on("[a]\nrw=write\nbs=4k\nsize=1m\niodepth=8\n[b]\nstonewall\nrw=read\nsize=1m\nloops=2\n[c]\nstonewall\nrw=randread\nnumber_ios=100\n[d]\nstonewall\nrw=randread\nsize=1m\nio_size=64k\n", &mut dev);
    let ios: Vec<u64> = r.jobs.iter().map(|j| j.dirs.iter().map(|d| d.ios).sum()).collect();
    assert_eq!(ios, vec![256, 512, 100, 16]);
    assert_eq!(r.jobs[0].dirs[1].io_bytes, 1 << 20);
    // Sequential writes covered the 1 MiB region exactly once.
    let mut offs: Vec<u64> = dev.log.iter().take(256).map(|(_, q)| q.offset_bytes).collect();
    offs.sort_unstable();
    assert_eq!(offs, (0..256).map(|i| i * 4096).collect::<Vec<_>>());
}

#[test]
fn stonewall_runs_groups_one_after_another() {
    let text = "[global]\nrw=randread\nruntime=1\ntime_based\n[a]\n[b]\nstonewall\n[c]\n";
    let mut dev = MockDevice::new(GIB, 8, 100_000);
    let r = run_on(text, &mut dev);
    let g: Vec<usize> = r.jobs.iter().map(|j| j.groupid).collect();
    assert_eq!(g, vec![0, 1, 1]);
    assert!(r.jobs[1].start_ns >= r.jobs[0].end_ns);
    assert_eq!(r.jobs[1].start_ns, r.jobs[2].start_ns);
    // Without stonewall all three overlap.
    let mut dev = MockDevice::new(GIB, 8, 100_000);
    let r = run_on(&text.replace("stonewall\n", ""), &mut dev);
    assert!(r.jobs.iter().all(|j| j.groupid == 0 && j.start_ns < r.jobs[0].end_ns));
}

#[test]
fn ramp_time_is_excluded() {
    let mut dev = MockDevice::new(GIB, 1, 1_000_000);
    let r = run_on("[j]\nrw=randread\nramp_time=1\nruntime=2\ntime_based\n", &mut dev);
    let j = &r.jobs[0];
    assert_eq!(j.start_ns, r.start_ns + S);
    assert!((j.dirs[0].ios as i64 - 2000).abs() <= 1, "{}", j.dirs[0].ios);
    assert_eq!(dev.log.len(), 3000);
    assert_eq!(j.series.len(), 2);
    assert!((1000..=1001).contains(&j.series[0].ios[0]), "{:?}", j.series[0]);
}

#[test]
fn time_scale_shortens_runtimes_and_is_kept() {
    let mut dev = MockDevice::new(GIB, 1, 1_000_000);
    let mut opts = RunOptions::new(1);
    opts.time_scale = 0.1;
    let r = run(&file("[j]\nrw=randread\nruntime=10\ntime_based\n"), &mut dev, &mut opts).unwrap();
    assert_eq!(r.time_scale, 0.1);
    assert!((r.jobs[0].runtime_ns() as f64 - 1e9).abs() < 2e6);
    opts.time_scale = 0.0;
    assert!(run(&file("[j]\n"), &mut dev, &mut opts).is_err());
}

#[test]
fn rate_iops_submits_open_loop() {
    // fio: the rate applies to each direction (fio 3.33 gives ~200 reads/s and ~200 writes/s
    // for rw=randrw rate_iops=200), switching direction when the drawn one is ahead.
    let mut dev = MockDevice::new(GIB, 4, 100_000);
    let r = run_on("[j]\nrw=randrw\nrate_iops=1000\niodepth=8\nruntime=2\ntime_based\n", &mut dev);
    for d in 0..2 {
        let ios = r.jobs[0].dirs[d].ios as i64;
        assert!((ios - 2000).abs() <= 1, "{d}: {ios}");
        // Each direction's arrivals every 1 ms exactly; no queueing so latency is the service time.
        let times: Vec<u64> = dev.log.iter().filter(|e| e.1.dir.index() == d).map(|e| e.0).collect();
        assert!(times.windows(2).all(|w| w[1] - w[0] == 1_000_000), "{d}");
    }
    assert_eq!(r.jobs[0].dirs[0].clat.max(), 100_000);
    // rwmixread=90 does not change the rates: the direction that is behind goes first.
    let mut dev = MockDevice::new(GIB, 4, 100_000);
    let r = run_on("[j]\nrw=randrw\nrwmixread=90\nrate_iops=500,100\niodepth=8\nruntime=2\ntime_based\n", &mut dev);
    let (reads, writes) = (r.jobs[0].dirs[0].ios as i64, r.jobs[0].dirs[1].ios as i64);
    assert!((reads - 1000).abs() <= 2 && (writes - 200).abs() <= 2, "{reads} {writes}");
    // rate= in bytes: 4 MiB/s of 64 KiB writes = 64 IOPS.
    let mut dev = MockDevice::new(GIB, 4, 100_000);
    let r = run_on("[j]\nrw=write\nbs=64k\nrate=4m\nruntime=2\ntime_based\n", &mut dev);
    assert!((r.jobs[0].dirs[1].ios as i64 - 128).abs() <= 1, "{}", r.jobs[0].dirs[1].ios);
}

#[test]
fn rate_process_poisson_has_exponential_gaps() {
    let mut dev = MockDevice::new(GIB, 64, 10_000);
    let r = run_on(
        "[j]\nrw=randread\nrate_iops=1000\nrate_process=poisson\niodepth=64\nruntime=20\ntime_based\n",
        &mut dev,
    );
    let ios = r.jobs[0].dirs[0].ios as f64;
    assert!((ios / 20_000.0 - 1.0).abs() < 0.03, "{ios}");
    let gaps: Vec<f64> = dev.log.windows(2).map(|w| (w[1].0 - w[0].0) as f64).collect();
    let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
    let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64).sqrt();
    assert!((sd / mean - 1.0).abs() < 0.05, "exponential gaps have CoV 1: {}", sd / mean);
    let short = gaps.iter().filter(|&&g| g < mean).count() as f64 / gaps.len() as f64;
    assert!((short - (1.0 - (-1.0f64).exp())).abs() < 0.02, "P(gap < mean) = 1 - 1/e: {short}");
}

#[test]
fn rate_iops_backlog_is_capped_by_iodepth() {
    // Device does 1000 IOPS, arrivals at 2000/s with iodepth 4: throughput stays 1000 IOPS.
    let mut dev = MockDevice::new(GIB, 1, 1_000_000);
    let r = run_on("[j]\nrw=randread\nrate_iops=2000\niodepth=4\nruntime=1\ntime_based\n", &mut dev);
    assert!((r.jobs[0].dirs[0].ios as i64 - 1000).abs() <= 4, "{}", r.jobs[0].dirs[0].ios);
}

#[test]
fn steady_state_ends_job_early() {
    let mut dev = MockDevice::new(GIB, 8, 100_000);
    let r = run_on(
        "[j]\nrw=randread\niodepth=4\nruntime=60\ntime_based\nsteadystate=iops_slope:0.3%\nss_dur=5\nss_ramp=2\n",
        &mut dev,
    );
    let ss = r.jobs[0].steady_state.as_ref().unwrap();
    assert!(ss.reached);
    let at = ss.reached_at_ns.unwrap() - r.start_ns;
    assert!((7 * S..8 * S).contains(&at), "{at}");
    assert!(r.jobs[0].runtime_ns() < 8 * S);
    // An unreachable absolute criterion runs to the end.
    let mut dev = MockDevice::new(GIB, 8, 100_000);
    let r = run_on("[j]\nrw=randread\nruntime=5\ntime_based\nss=iops:0.000001\nss_dur=10\n", &mut dev);
    assert!(!r.jobs[0].steady_state.as_ref().unwrap().reached);
}

#[test]
fn stop_flag_and_progress() {
    let stop = AtomicBool::new(false);
    let mut calls = 0;
    let mut last = 0.0;
    let mut cb = |p: host_bench::runner::RunProgress| {
        calls += 1;
        last = p.fraction;
        if p.fraction > 0.25 {
            stop.store(true, Ordering::Relaxed);
        }
    };
    let mut opts = RunOptions::new(1);
    opts.stop = Some(&stop);
    opts.progress = Some(&mut cb);
    let mut dev = MockDevice::new(GIB, 8, 100_000);
    let f =
        file("[a]\nrw=randread\niodepth=8\nruntime=10\ntime_based\n[b]\nstonewall\nrw=read\nruntime=10\ntime_based\n");
    let r = run(&f, &mut dev, &mut opts).unwrap();
    assert!(r.interrupted);
    assert_eq!(r.jobs.len(), 1, "second group never started");
    assert!(r.jobs[0].runtime_ns() < 6 * S);
    assert!(calls > 2 && last <= 0.5, "{calls} {last}");
    assert_eq!(dev.outstanding_after_run(), 0);
}

#[test]
fn same_seed_same_result() {
    let text = "[j]\nrw=randrw\nbssplit=4k/50:64k/\nrandom_distribution=zipf:1.1\niodepth=8\nruntime=1\ntime_based\n";
    let mut d1 = MockDevice::new(GIB, 4, 50_000);
    let mut d2 = MockDevice::new(GIB, 4, 50_000);
    run_on(text, &mut d1);
    run_on(text, &mut d2);
    assert_eq!(d1.log, d2.log);
}

#[test]
fn geometry_errors_surface() {
    let mut dev = MockDevice::new(1 << 20, 1, 1_000);
    let e = run(&file("[j]\nbs=2m\n"), &mut dev, &mut RunOptions::new(1)).unwrap_err();
    assert!(e.to_string().contains("cannot hold a 2097152-byte I/O"), "{e}");
}

#[test]
fn fresh_random_fill_writes_every_block_once_per_loop() {
    // fio's default random map: `rw=randwrite size=100%` leaves no LBA unwritten.
    let mut dev = MockDevice::new(16 << 20, 8, 10_000);
    let r = run_on("[fill]\nrw=randwrite\nbs=4k\niodepth=8\nsize=100%\nloops=2\n", &mut dev);
    assert_eq!(r.jobs[0].dirs[1].ios, 2 * 4096);
    for pass in dev.log.chunks(4096) {
        let mut offsets: Vec<u64> = pass.iter().map(|(_, req)| req.offset_bytes).collect();
        offsets.sort_unstable();
        assert_eq!(offsets, (0..4096).map(|b| b * 4096).collect::<Vec<_>>());
    }
    // norandommap: about 1/e of the blocks stay unwritten after one pass.
    let mut dev = MockDevice::new(16 << 20, 8, 10_000);
    run_on("[fill]\nrw=randwrite\nbs=4k\niodepth=8\nsize=100%\nnorandommap\n", &mut dev);
    let written: std::collections::HashSet<u64> = dev.log.iter().map(|(_, req)| req.offset_bytes).collect();
    let unwritten = 1.0 - written.len() as f64 / 4096.0;
    assert!((unwritten - 0.368).abs() < 0.03, "{unwritten}");
}

#[test]
fn ramp_longer_than_a_size_based_job_reports_every_io() {
    // fio 3.33 (checked): a size-based job that ends inside its ramp_time keeps its statistics
    // (they are reset only when the ramp ends); a longer job reports what followed the ramp.
    // 4 outstanding on 4 servers of 80 us: 50k IOPS, so 4096 I/Os take 81.9 ms.
    let mut dev = MockDevice::new(GIB, 4, 80_000);
    let r = run_on("[j]\nrw=randwrite\nbs=4k\nsize=16m\niodepth=4\nramp_time=1\n", &mut dev);
    let j = &r.jobs[0];
    assert_eq!((j.dirs[1].ios, j.dirs[1].io_bytes), (4096, 16 << 20));
    assert!((j.runtime_ns() as f64 - 81.92e6).abs() < 0.2e6, "{}", j.runtime_ns());
    assert!(j.iodepth_levels.iter().sum::<u64>() == 4096);
    assert!(!j.series.is_empty());
    let mut dev = MockDevice::new(GIB, 4, 80_000);
    let r = run_on("[j]\nrw=randwrite\nbs=4k\nsize=16m\niodepth=4\nramp_time=40ms\n", &mut dev);
    let ios = r.jobs[0].dirs[1].ios;
    assert!((ios as i64 - 2096).abs() < 8, "{ios}");
}

/// Writes `lines` as an iolog under the test's temp dir and returns its path.
fn iolog(name: &str, lines: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, lines).unwrap();
    p.display().to_string()
}

const V3: &str = "fio version 3 iolog\n10 /dev/x add\n10 /dev/x open\n100 /dev/x write 8192 4096\n\
                  300 /dev/x read 0 16384\n300 /dev/x trim 65536 8192\n1300 /dev/x write 4096 4096\n1400 /dev/x close\n";

fn replayed(dev: &MockDevice) -> Vec<(u64, IoDir, u64, u32)> {
    let t0 = dev.log[0].0;
    dev.log.iter().map(|(t, r)| (t - t0, r.dir, r.offset_bytes, r.len_bytes)).collect()
}

#[test]
fn read_iolog_replays_entries_with_fios_delays() {
    let log = iolog("v3.log", V3);
    // Delays are the time since the previous entry (us), issued in log order; rw and bs ignored.
    let mut dev = MockDevice::new(1 << 30, 4, 50_000);
    let r = run_on(&format!("[r]\nread_iolog={log}\nrw=randwrite\nbs=64k\niodepth=4\n"), &mut dev);
    assert_eq!(
        replayed(&dev),
        vec![
            (0, IoDir::Write, 8192, 4096),
            (200_000, IoDir::Read, 0, 16384),
            (200_000, IoDir::Trim, 65536, 8192),
            (1_200_000, IoDir::Write, 4096, 4096)
        ]
    );
    assert_eq!((r.jobs[0].dirs[0].ios, r.jobs[0].dirs[1].ios, r.jobs[0].dirs[2].ios), (1, 2, 1));
    assert_eq!(r.jobs[0].dirs[1].io_bytes, 8192);
    // replay_time_scale=200: half the delays; replay_no_stall: none.
    let mut dev = MockDevice::new(1 << 30, 4, 50_000);
    run_on(&format!("[r]\nread_iolog={log}\nreplay_time_scale=200\niodepth=4\n"), &mut dev);
    assert_eq!(replayed(&dev).iter().map(|e| e.0).collect::<Vec<_>>(), vec![0, 100_000, 100_000, 600_000]);
    let mut dev = MockDevice::new(1 << 30, 4, 50_000);
    run_on(&format!("[r]\nread_iolog={log}\nreplay_no_stall=1\niodepth=4\n"), &mut dev);
    assert_eq!(replayed(&dev).iter().map(|e| e.0).collect::<Vec<_>>(), vec![0, 0, 0, 0]);
    // At QD1 an entry's delay starts when the slot frees (fio fetches it, then waits).
    let mut dev = MockDevice::new(1 << 30, 4, 500_000);
    run_on(&format!("[r]\nread_iolog={log}\niodepth=1\n"), &mut dev);
    assert_eq!(replayed(&dev).iter().map(|e| e.0).collect::<Vec<_>>(), vec![0, 700_000, 1_200_000, 2_700_000]);
    // replay_scale divides offsets, replay_align rounds them down.
    let mut dev = MockDevice::new(1 << 30, 4, 50_000);
    run_on(&format!("[r]\nread_iolog={log}\nreplay_scale=2\nreplay_align=8k\nreplay_no_stall=1\n"), &mut dev);
    assert_eq!(replayed(&dev).iter().map(|e| e.2).collect::<Vec<_>>(), vec![0, 0, 32768, 0]);
}

#[test]
fn read_iolog_v2_and_bad_logs() {
    // v2: no times; `wait N` holds later entries until N ms after the start (fio 3.33).
    let log =
        iolog("v2.log", "fio version 2 iolog\n/f add\n/f open\n/f read 4096 4096\n/f wait 100\n/f write 0 8192\n");
    let mut dev = MockDevice::new(1 << 30, 4, 50_000);
    run_on(&format!("[r]\nread_iolog={log}\niodepth=2\n"), &mut dev);
    assert_eq!(replayed(&dev), vec![(0, IoDir::Read, 4096, 4096), (100_000_000, IoDir::Write, 0, 8192)]);
    let err = |text: &str| {
        let mut dev = MockDevice::new(1 << 20, 4, 50_000);
        run(&file(text), &mut dev, &mut RunOptions::new(1)).unwrap_err().to_string()
    };
    let bad = iolog("bad.log", "fio version 3 iolog\n5 /f write 0 4096\n6 /f scribble 0 4096\n");
    let e = err(&format!("[r]\nread_iolog={bad}\n"));
    assert!(e.contains("job 'r'") && e.contains("bad.log:3") && e.contains("scribble"), "{e}");
    let past = iolog("past.log", "fio version 3 iolog\n5 /f write 1048576 4096\n");
    let e = err(&format!("[r]\nread_iolog={past}\n"));
    assert!(e.contains("past.log:2") && e.contains("past the end of the target (1048576 bytes)"), "{e}");
    let e = err("[r]\nread_iolog=/nonexistent/x.log\n");
    assert!(e.contains("read_iolog=/nonexistent/x.log: No such file"), "{e}");
}
