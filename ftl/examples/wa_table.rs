//! Steady-state WA tables on the timeless FTL, for the closing note of the FTL issue.
//!
//! `cargo run --release -p ftl --example wa_table -- uniform DIES BLOCKS_PER_PLANE WORD_LINES`
//! prints uniform-random 4 KiB WA at OP 7/14.5/28/50/100% against the Lambert-W model;
//! `... -- skew DIES BLOCKS_PER_PLANE WORD_LINES [OP]` prints 80/20 WA for greedy and
//! cost-benefit, with and without hot/cold separation, against the FIFO-classes model.
#![allow(clippy::cast_possible_truncation, clippy::expect_used)] // a panic in test code is a failed test; casts are of the test's own small values

use ftl::instant::InstantFtl;
use ftl::layout::Layout;
use ftl::wa_model::{wa_fifo_classes, wa_greedy_uniform};
use ftl::{GcPolicy, Lpn};
use nand_model::rng::{RngStreams, StreamId};
use nand_model::{CellType, GeometryConfig};
use rand::Rng;

struct Run {
    dies: u32,
    blocks_per_plane: u32,
    word_lines: u32,
}

impl Run {
    /// Builds the FTL at `op` (physical outside the GC reserve over user), filled sequentially.
    fn ftl(&self, op: f64, policy: GcPolicy, sep: bool) -> InstantFtl {
        let geo = GeometryConfig {
            cell: CellType::Tlc,
            slc_mode: false,
            channels: self.dies.div_ceil(4),
            dies_per_channel: self.dies.min(4),
            planes_per_die: 2,
            blocks_per_plane: self.blocks_per_plane,
            pages_per_block: self.word_lines * 3,
            page_bytes: 16384,
        }
        .validate()
        .expect("geometry");
        let layout = Layout::new(geo, 4096).expect("layout");
        let threshold = (layout.blocks / 128).max(8);
        InstantFtl::filled_at_op(layout, op, policy, sep, threshold).expect("fill").0
    }
}

/// Writes `warm` then `measure` drive-writes drawn by `pick`, returns the WA of the second part.
fn steady_wa(f: &mut InstantFtl, warm: f64, measure: f64, mut pick: impl FnMut() -> u32) -> f64 {
    let user = f.core.user_mus() as f64;
    for _ in 0..(user * warm) as u64 {
        f.write(Lpn::new(pick())).expect("write");
    }
    let b = f.core.stats;
    for _ in 0..(user * measure) as u64 {
        f.write(Lpn::new(pick())).expect("write");
    }
    let s = f.core.stats;
    (s.nand_write_mus() - b.nand_write_mus()) as f64 / (s.host_write_mus - b.host_write_mus) as f64
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let mode = a.get(1).map(String::as_str).unwrap_or("uniform");
    let num = |i: usize, d: u32| a.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let run = Run { dies: num(2, 16), blocks_per_plane: num(3, 256), word_lines: num(4, 64) };
    let mut rng = RngStreams::new(1).stream(StreamId::Host, 0);
    let wall = std::time::Instant::now();
    match mode {
        "uniform" => {
            println!("| OP | WA measured | model | error |\n|---|---|---|---|");
            for op in [0.07, 0.145, 0.28, 0.50, 1.00] {
                let mut f = run.ftl(op, GcPolicy::Greedy, false);
                let user = f.core.user_mus();
                let model = wa_greedy_uniform(op);
                let wa = steady_wa(&mut f, 3.0 + 2.0 * model, 4.0, || rng.gen_range(0..user));
                println!("| {:.1}% | {wa:.3} | {model:.3} | {:+.2}% |", op * 100.0, (wa / model - 1.0) * 100.0);
            }
        }
        "skew" => {
            let op: f64 = a.get(5).and_then(|s| s.parse().ok()).unwrap_or(0.28);
            let model = wa_fifo_classes(op, &[(0.8, 0.2), (0.2, 0.8)]);
            println!(
                "80/20 at OP {:.1}%: one-log FIFO model {model:.3}, uniform {:.3}",
                op * 100.0,
                wa_greedy_uniform(op)
            );
            println!("| policy | separation | WA |\n|---|---|---|");
            for policy in [GcPolicy::Greedy, GcPolicy::CostBenefit] {
                for sep in [false, true] {
                    let mut f = run.ftl(op, policy, sep);
                    let user = f.core.user_mus();
                    let hot = user / 5;
                    let wa = steady_wa(&mut f, 8.0, 4.0, || {
                        if rng.gen_bool(0.8) {
                            rng.gen_range(0..hot)
                        } else {
                            rng.gen_range(hot..user)
                        }
                    });
                    println!("| {policy:?} | {sep} | {wa:.3} |");
                }
            }
        }
        _ => eprintln!("usage: wa_table uniform|skew DIES BLOCKS_PER_PLANE WORD_LINES [OP]"),
    }
    eprintln!("wall {:.1} s", wall.elapsed().as_secs_f64());
}
