//! The controller's datapath limits (`controller.read_bandwidth_mbps`, `write_bandwidth_mbps`):
//! reads stop at their limit where the NAND and the link could go faster, and reads and writes
//! share the command processor that holds them, so adding writes to a read-bound load does not
//! raise its total bandwidth.
#![allow(clippy::cast_possible_truncation, clippy::unwrap_used)] // a panic in test code is a failed test; casts are of the test's own small values

use ftl::device::{DeviceOptions, HostOp, SimSsd};
use nand_model::rng::{RngStreams, StreamId};
use rand::Rng;

mod common;
use common::{closed_loop, fill_sequential as fill};

const BS: u32 = 128 * 1024;

/// generic-tlc (its NAND and link well above the limits tried) without its own datapath limits,
/// with both at `datapath_mbps` when given.
fn drive(datapath_mbps: Option<f64>) -> SimSsd {
    let text = ftl::profile::EMBEDDED.iter().find(|(n, _)| *n == "generic-tlc").map(|e| e.1).unwrap();
    let text: String = text
        .lines()
        .filter(|l| !l.starts_with("read_bandwidth_mbps") && !l.starts_with("write_bandwidth_mbps"))
        .map(|l| format!("{l}\n"))
        .collect();
    let text = match datapath_mbps {
        Some(b) => text.replacen(
            "plp = true",
            &format!("plp = true\nread_bandwidth_mbps = {b:.1}\nwrite_bandwidth_mbps = {b:.1}"),
            1,
        ),
        None => text,
    };
    let p = ftl::profile::parse(&text, "datapath").unwrap();
    SimSsd::new(&p, &DeviceOptions { scale_divisor: 4096, ..Default::default() }).unwrap()
}

/// MB/s of `n` random 128 KiB commands at QD16, `write_pct` percent of them writes.
fn random_mix(d: &mut SimSsd, n: u64, write_pct: u32) -> f64 {
    let mut rng = RngStreams::new(7).stream(StreamId::Host, 0);
    let blocks = d.capacity().user_bytes_sim / u64::from(BS);
    let t0 = d.now();
    let done = closed_loop(d, 16, n, |_| {
        let op = if rng.gen_range(0..100) < write_pct { HostOp::Write } else { HostOp::Read };
        (op, rng.gen_range(0..blocks) * u64::from(BS), BS)
    });
    assert_eq!(done, n);
    n as f64 * f64::from(BS) / ((d.now() - t0).ns() as f64 / 1e9) / 1e6
}

#[test]
fn reads_stop_at_the_datapath_and_writes_share_it() {
    let mut free = drive(None);
    fill(&mut free);
    let unlimited = random_mix(&mut free, 4000, 0);
    // A datapath well below what the dies and the link give. The drive was filled sequentially,
    // so the few writes find free blocks (no GC) and cost the reads no NAND time worth noting.
    let limit = (unlimited / 2.0).round();
    let mut d = drive(Some(limit));
    fill(&mut d);
    let reads = random_mix(&mut d, 4000, 0);
    let mixed = random_mix(&mut d, 4000, 5);
    d.check_invariants().unwrap();
    eprintln!(
        "128 KiB random QD16: {unlimited:.0} MB/s unlimited; datapath {limit:.0}: reads {reads:.0}, 95/5 {mixed:.0}"
    );
    assert!(reads <= limit * 1.01 && reads >= limit * 0.95, "reads {reads:.0} MB/s against the {limit:.0} datapath");
    assert!(
        mixed <= reads * 1.01,
        "95/5 {mixed:.0} MB/s above reads alone {reads:.0}: writes do not share the datapath"
    );
}
