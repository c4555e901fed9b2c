//! Write amplification of uniform random 4 KiB writes against the analytic large-block greedy
//! model (Desnoyers 2012), on a drive small enough for CI but with enough blocks for the model's
//! large-N assumption.
#![allow(clippy::cast_possible_truncation, clippy::unwrap_used)] // a panic in test code is a failed test; casts are of the test's own small values

use ftl::instant::InstantFtl;
use ftl::layout::Layout;
use ftl::wa_model::wa_greedy_uniform;
use ftl::{GcPolicy, Lpn};
use nand_model::rng::{RngStreams, StreamId};
use nand_model::{CellType, GeometryConfig};
use rand::Rng;

/// Measures steady-state WA at `op` (effective: physical MUs outside the GC free-block reserve
/// over user MUs).
pub fn measure_wa(op: f64, blocks_per_plane: u32, seed: u64) -> f64 {
    let geo = GeometryConfig {
        cell: CellType::Tlc,
        slc_mode: false,
        channels: 2,
        dies_per_channel: 2,
        planes_per_die: 2,
        blocks_per_plane,
        pages_per_block: 192,
        page_bytes: 16384,
    }
    .validate()
    .unwrap();
    let layout = Layout::new(geo, 4096).unwrap();
    let (mut f, user) = InstantFtl::filled_at_op(layout, op, GcPolicy::Greedy, false, 8).unwrap();
    let mut rng = RngStreams::new(seed).stream(StreamId::Host, 0);
    // Warm up to steady state, then measure over 4 more drive writes.
    let warm = (user as f64 * (3.0 + 2.0 * wa_greedy_uniform(op))) as u64;
    for _ in 0..warm {
        f.write(Lpn::new(rng.gen_range(0..user))).unwrap();
    }
    let before = f.core.stats;
    for _ in 0..4 * user as u64 {
        f.write(Lpn::new(rng.gen_range(0..user))).unwrap();
    }
    let s = f.core.stats;
    f.core.check_invariants().unwrap();
    (s.nand_write_mus() - before.nand_write_mus()) as f64 / (s.host_write_mus - before.host_write_mus) as f64
}

#[test]
fn uniform_random_wa_matches_lambert_w_model() {
    for (op, want) in [(0.07, 7.82), (0.145, 4.13), (0.28, 2.48), (0.50, 1.72), (1.00, 1.25)] {
        let got = measure_wa(op, 256, 1);
        let err = (got - want) / want;
        eprintln!("OP {:>5.1}%: WA {got:.3} model {want:.2} error {:+.2}%", op * 100.0, err * 100.0);
        assert!(err.abs() < 0.03, "OP {op}: WA {got} vs model {want}");
    }
}
