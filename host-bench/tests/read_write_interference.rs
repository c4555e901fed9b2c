//! Writes beside a read load never make the reads faster. On the P4420 (8 dies on each 667 MT/s
//! channel) 128 KiB random reads at QD32 x 4 went from 17,043/s alone to 18,042/s with 250
//! writes/s beside them: a read's command cycles waited behind other dies' booked transfers,
//! the dies of a channel fell into step, and the programs' suspensions broke the step. Command
//! cycles now wait for no transfer (nand-model/src/flash.rs): 22,571 alone, 21,542 with writes
//! (since GC compares superblocks; 21,885 / 21,668 before).
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use host_bench::job::{self, ParseOptions};
use host_bench::simrun::{SimConfig, SimSession};

mod common;

/// After the common preconditioning: 60 s of reads alone, then 60 s of the same beside writes.
const READS_ALONE_THEN_WITH_WRITES: &str = "\
[alone]
stonewall
rw=randread
numjobs=4
group_reporting
time_based
runtime=60
[beside]
stonewall
rw=randread
numjobs=4
group_reporting
time_based
runtime=60
[writes]
rw=randwrite
iodepth=4
rate_iops=250
offset=0
size=1g
time_based
runtime=60
";

#[test]
fn reads_are_not_faster_with_writes_beside_them() {
    let mut cfg = SimConfig::new("intel-d5-p4420", 1);
    cfg.scale_divisor = Some(256);
    let mut session = SimSession::new(cfg).unwrap();
    let text = format!("{}{READS_ALONE_THEN_WITH_WRITES}", common::FILLED_THEN_QUARTER_SCATTERED);
    let file = job::parse_str(&text, "interference.fio", &ParseOptions::default()).unwrap();
    let result = session.run(&file, None, None).unwrap();
    let read_iops = |name: &str| {
        let j = result.jobs.iter().find(|j| j.name == name).unwrap();
        j.dirs[0].ios as f64 / ((j.end_ns - j.start_ns) as f64 * 1e-9)
    };
    let (alone, beside) = (read_iops("alone"), read_iops("beside"));
    eprintln!("128 KiB random reads: {alone:.0}/s alone, {beside:.0}/s beside 250 writes/s");
    assert!(beside <= alone * 1.01, "reads {beside:.0}/s with writes beside them > {alone:.0}/s alone");
}
