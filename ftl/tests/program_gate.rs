//! Dies are handed programs two at a time: the write buffer's backlog waits in the controller,
//! not in the dies' own queues, where it would hold up whatever the other stream (GC or host)
//! sends next.
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use ftl::device::{DeviceOptions, HostOp, SimSsd};
use ftl::profile;

#[test]
fn a_die_never_holds_more_than_two_programs() {
    // generic-tlc on 8 dies: 1.3 GB/s of programs, under what PCIe brings, so the buffer fills.
    let text = profile::EMBEDDED.iter().find(|(n, _)| *n == "generic-tlc").map(|e| e.1).unwrap_or_default();
    let text = text.replacen("dies_per_channel = 16", "dies_per_channel = 1", 1).replacen(
        "user_capacity_bytes = 7_680_000_000_000",
        "user_capacity_bytes = 480_000_000_000",
        1,
    );
    let p = profile::parse(&text, "cut8-tlc").unwrap();
    let mut d = SimSsd::new(&p, &DeviceOptions { scale_divisor: 64, ..Default::default() }).unwrap();
    let dies = d.flash().geometry().dies();
    let cmds = d.capacity().user_bytes_sim / (128 << 10);
    let (mut sent, mut deepest) = (0u64, 0usize);
    // Sequential 128 KiB writes at QD 64: no reads and no GC, so a die's backlog is its programs.
    while sent < 64 {
        d.submit(sent, HostOp::Write, sent * (128 << 10), 128 << 10).unwrap();
        sent += 1;
    }
    let mut buffered = false;
    while d.next_completion(None).is_some() {
        deepest = deepest.max((0..dies).map(|die| d.flash().die_backlog(die)).max().unwrap_or(0));
        buffered |= d.counters().buffer_stall_ns > 0;
        if sent < cmds {
            d.submit(sent, HostOp::Write, sent * (128 << 10), 128 << 10).unwrap();
            sent += 1;
        }
    }
    assert!(buffered, "the write buffer never filled: the test does not load the dies");
    assert!(deepest <= 2, "a die held {deepest} programs");
    assert!(deepest == 2, "dies never held a staged program behind the running one ({deepest})");
}
