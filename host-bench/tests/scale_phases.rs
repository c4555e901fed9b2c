//! A time-based phase means the same at any scale. Runtimes are divided by the scale factor, so
//! anything of fixed size (the write buffer a fill leaves dirty, the power governor's bucket)
//! would weigh `factor` times more in a scaled phase than on the full-size drive unless it is
//! scaled too (issue 13: fill, then a 30 s QD1 random read at 11 W with no ramp gave 0.32x the
//! uncapped IOPS at the default scale).
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use host_bench::job::{self, ParseOptions};
use host_bench::simrun::{SimConfig, SimSession};

const FILL_THEN_QD1_READ: &str = "\
[fill]
rw=write
bs=128k
iodepth=32
size=100%
[qd1]
stonewall
rw=randread
bs=4k
iodepth=1
time_based
runtime=30
";

/// IOPS of the last job of `text` on the P5520 at `1/divisor`, capped at `cap_w` or not.
fn last_job_iops(text: &str, divisor: u32, cap_w: Option<f64>) -> f64 {
    let mut cfg = SimConfig::new("solidigm-d7-p5520", 1);
    cfg.scale_divisor = Some(divisor);
    cfg.power_cap_w = cap_w;
    let mut session = SimSession::new(cfg).unwrap();
    let file = job::parse_str(text, "scale_phases.fio", &ParseOptions::default()).unwrap();
    let result = session.run(&file, None, None).unwrap();
    let job = result.jobs.last().unwrap();
    let secs = (job.end_ns - job.start_ns) as f64 * 1e-9;
    job.dirs.iter().map(|d| d.ios).sum::<u64>() as f64 / secs
}

#[test]
fn a_capped_qd1_read_after_a_fill_agrees_across_scales() {
    // The default scale of this drive (1/256) and one four times smaller.
    let capped_256 = last_job_iops(FILL_THEN_QD1_READ, 256, Some(11.0));
    let capped_1024 = last_job_iops(FILL_THEN_QD1_READ, 1024, Some(11.0));
    let free_256 = last_job_iops(FILL_THEN_QD1_READ, 256, None);
    eprintln!("QD1 read after fill: 11 W {capped_256:.0} (1/256), {capped_1024:.0} (1/1024); uncapped {free_256:.0}");
    let gap = (capped_256 / capped_1024 - 1.0).abs();
    assert!(gap <= 0.03, "1/256 vs 1/1024 differ by {:.1}%", gap * 100.0);
    // QD1 reads draw far less than 11 W: the cap must barely show (measured.csv p5520-qd1-power).
    assert!(capped_256 >= 0.95 * free_256, "capped {capped_256:.0} < 0.95 x uncapped {free_256:.0}");
}
