//! Per-run collections stay bounded: a QD1 run (the drive drains after every command) keeps a
//! handful of counter samples per interval, not one per I/O, and the counters a result reads at
//! any reported instant are exactly what keeping every drain sample would have given.
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use host_bench::device::{Device, DeviceError, DeviceInfo, IoCompletion, IoRequest};
use host_bench::job::{parse_str, ParseOptions};
use host_bench::runner::{run, RunOptions};
use host_bench::sim::{CounterSample, SimTarget};
use host_bench::simrun::{SimConfig, SimSession};
use host_bench::stats::{SeriesRecorder, MAX_SERIES_POINTS};

fn session() -> SimSession {
    SimSession::new(SimConfig::new("tiny", 5)).unwrap()
}

#[test]
fn qd1_run_keeps_a_few_samples_per_interval_not_one_per_io() {
    let job =
        parse_str("[w]\nrw=randread\niodepth=1\ntime_based\nruntime=20\n", "q1.fio", &ParseOptions::default()).unwrap();
    let mut s = session();
    let r = s.run(&job, None, None).unwrap();
    let ios = r.jobs[0].dirs[0].ios;
    let secs = r.jobs[0].runtime_ns() as f64 / 1e9;
    assert!(ios > 100_000, "expected a long QD1 run, got {ios} I/Os");
    let held = s.target.samples().len();
    // One interval sample and at most one needed drain sample per second, plus the ends.
    assert!((held as f64) <= 2.0 * secs.ceil() + 8.0, "{held} samples held for {ios} I/Os over {secs} s");
}

/// The old sampling kept as a reference: every drain sample and every interval sample.
struct KeepAll {
    inner: SimTarget,
    all: Vec<CounterSample>,
    interval_ns: u64,
    next_ns: u64,
}

impl KeepAll {
    fn sample_at(&self, t: u64) -> CounterSample {
        let i = self.all.partition_point(|s| s.t_ns <= t);
        self.all[i.saturating_sub(1)]
    }
}

impl Device for KeepAll {
    fn info(&self) -> DeviceInfo {
        self.inner.info()
    }
    fn now_ns(&self) -> u64 {
        self.inner.now_ns()
    }
    fn submit(&mut self, req: IoRequest) -> Result<(), DeviceError> {
        self.inner.submit(req)
    }
    fn wait(&mut self, deadline_ns: Option<u64>) -> Result<Option<IoCompletion>, DeviceError> {
        let c = self.inner.wait(deadline_ns)?;
        let now = self.inner.ssd.now().ns();
        let s = CounterSample { t_ns: now, counters: self.inner.ssd.counters() };
        if now >= self.next_ns {
            self.all.push(s);
            self.next_ns = (now / self.interval_ns + 1) * self.interval_ns;
        } else if self.inner.ssd.outstanding() == 0 && self.all.last().is_some_and(|l| l.t_ns != now) {
            self.all.push(s);
        }
        Ok(c)
    }
    fn outstanding(&self) -> usize {
        self.inner.outstanding()
    }
    fn report_grid(&mut self, origins_ns: &[u64], interval_ns: u64) {
        self.inner.report_grid(origins_ns, interval_ns)
    }
    fn report_point(&mut self) {
        self.inner.report_point()
    }
}

#[test]
fn reported_instants_read_the_same_counters_as_keeping_every_sample() {
    // Groups at QD1 with a ramp, QD4 with two jobs of different ramps, and an open loop.
    let text = "[global]\nbs=4k\nsize=100%\n[fill]\nrw=write\nbs=64k\niodepth=4\n\
                [q1]\nstonewall\nrw=randrw\nrwmixread=70\niodepth=1\ntime_based\nramp_time=0.35\nruntime=2.2\n\
                [a]\nstonewall\nrw=randread\niodepth=4\ntime_based\nruntime=1.7\n\
                [b]\nrw=randwrite\niodepth=1\ntime_based\nramp_time=0.21\nruntime=1.1\n\
                [open]\nstonewall\nrw=randread\nrate_iops=3000\ntime_based\nruntime=1.3\n";
    let job = parse_str(text, "mix.fio", &ParseOptions::default()).unwrap();
    let interval_ns = 100_000_000;
    let ssd = session().target.ssd;
    let first = CounterSample { t_ns: ssd.now().ns(), counters: ssd.counters() };
    let mut dev = KeepAll {
        inner: SimTarget::new(ssd, "tiny", interval_ns),
        all: vec![first],
        interval_ns,
        next_ns: interval_ns,
    };
    let mut opts = RunOptions::new(9);
    opts.series_interval_ns = interval_ns;
    let r = run(&job, &mut dev, &mut opts).unwrap();
    let mut instants = vec![r.start_ns, r.end_ns];
    for j in &r.jobs {
        instants.extend([j.start_ns, j.end_ns]);
        for p in &j.series {
            instants.extend([j.start_ns + p.start_ns, j.start_ns + p.start_ns + p.duration_ns]);
        }
    }
    assert!(instants.len() > 100);
    let all_drains = dev.all.len();
    for t in instants {
        let (kept, all) = (dev.inner.sample_at(t), dev.sample_at(t));
        assert_eq!((kept.t_ns, kept.counters), (all.t_ns, all.counters), "counters as of {t} ns differ");
    }
    assert!(dev.inner.samples().len() * 20 < all_drains, "{} kept of {all_drains}", dev.inner.samples().len());
}

#[test]
fn a_series_longer_than_its_cap_gets_coarser_not_longer() {
    let mut s = SeriesRecorder::new(0, 10);
    let n = 3 * MAX_SERIES_POINTS as u64 + 7;
    for k in 0..n * 10 {
        s.record(0, k + 1, 4096, 100 + k % 7);
    }
    s.finish(n * 10);
    let pts = s.points();
    assert!(pts.len() <= MAX_SERIES_POINTS, "{} points", pts.len());
    // Contiguous, and nothing lost.
    let mut t = 0;
    for p in pts {
        assert_eq!(p.start_ns, t);
        t += p.duration_ns;
    }
    assert_eq!(t, n * 10);
    assert_eq!(pts.iter().map(|p| p.ios[0]).sum::<u64>(), n * 10);
    assert_eq!(s.interval_ns(), 40);
}

#[test]
fn the_table_estimate_covers_what_the_drive_allocates() {
    for (drive, scale) in [("tiny", 1), ("generic-tlc", 256), ("solidigm-d5-p5430", 4096)] {
        let cfg = SimConfig { scale_divisor: Some(scale), ..SimConfig::new(drive, 1) };
        let est = host_bench::memory::estimate(&cfg, None).unwrap();
        let s = SimSession::new(cfg).unwrap();
        let c = &s.target.ssd.core;
        let actual = (c.l2p.capacity() * 4 + c.p2l.capacity() * 4 + c.live.capacity_words() * 8) as u64;
        assert_eq!(est.drive_units, c.layout.total_mus(), "{drive}");
        let ratio = est.tables_bytes as f64 / actual as f64;
        assert!((1.0..1.3).contains(&ratio), "{drive} 1/{scale}: estimate {} vs tables {actual}", est.tables_bytes);
    }
}
