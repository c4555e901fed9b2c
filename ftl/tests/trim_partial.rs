//! A TRIM unmaps only the mapping units it covers whole: the sectors of a partly covered unit
//! that the host did not trim keep their data (found by the swarm test: a 512 B TRIM used to
//! unmap its whole 4 KiB unit, so the other seven sectors read zeros).
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use ftl::device::{DeviceOptions, HostOp, SimSsd};
use ftl::Lpn;

fn drive() -> SimSsd {
    let p = ftl::profile::load("tiny").unwrap();
    SimSsd::new(&p, &DeviceOptions::default()).unwrap()
}

fn run(d: &mut SimSsd, op: HostOp, offset: u64, len: u32) {
    d.submit(0, op, offset, len).unwrap();
    while d.next_completion(None).is_some() {}
}

#[test]
fn trim_keeps_partly_covered_units() {
    let mut d = drive();
    run(&mut d, HostOp::Write, 0, 4 * 4096);
    // Sector 1 of unit 0 only; then the last 512 B of unit 1 through the first 512 B of unit 3.
    run(&mut d, HostOp::Trim, 512, 512);
    run(&mut d, HostOp::Trim, 2 * 4096 - 512, 4096 + 1024);
    let mapped: Vec<bool> = (0..4).map(|l| d.core.lookup(Lpn::new(l)).is_some()).collect();
    assert_eq!(mapped, [true, true, false, true], "only unit 2 is covered whole");
    // Whole units go.
    run(&mut d, HostOp::Trim, 0, 4096);
    run(&mut d, HostOp::Trim, 3 * 4096, 4096);
    let mapped: Vec<bool> = (0..4).map(|l| d.core.lookup(Lpn::new(l)).is_some()).collect();
    assert_eq!(mapped, [false, true, false, false]);
    d.check_invariants().unwrap();
}
