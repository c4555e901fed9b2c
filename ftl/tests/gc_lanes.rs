//! GC runs a lane per die: lanes start staggered (one once the lane started before it has moved
//! 1/dies of its word lines), run on every die, and move a word line each in turn, so the page
//! reads of consecutive word lines go to different dies; every victim is reported relocated
//! once with nothing valid left, and the mapping stays right.
#![allow(clippy::unwrap_used)] // a panic in test code is a failed test

use ftl::core::{CoreEvent, Step};
use ftl::instant::InstantFtl;
use ftl::layout::Layout;
use ftl::{BlockId, GcPolicy, Lpn};
use nand_model::rng::{RngStreams, StreamId};
use nand_model::{CellType, GeometryConfig};
use rand::Rng;

/// 8 dies x 64 blocks of 32 word lines, at 25% OP, randomly overwritten into steady state.
fn aged_drive() -> InstantFtl {
    let geo = GeometryConfig {
        cell: CellType::Tlc,
        slc_mode: false,
        channels: 4,
        dies_per_channel: 2,
        planes_per_die: 2,
        blocks_per_plane: 64,
        pages_per_block: 96,
        page_bytes: 16384,
    }
    .validate()
    .unwrap();
    let layout = Layout::new(geo, 4096).unwrap();
    let (mut f, user) = InstantFtl::filled_at_op(layout, 0.25, GcPolicy::Greedy, false, 24).unwrap();
    let mut rng = RngStreams::new(11).stream(StreamId::Host, 0);
    for _ in 0..3 * u64::from(user) {
        f.write(Lpn::new(rng.gen_range(0..user))).unwrap();
    }
    f
}

#[test]
fn lanes_start_staggered_on_every_die_and_read_in_turn() {
    let mut f = aged_drive();
    let core = &mut f.core;
    let l = core.layout;
    let wls = l.geo.pages_per_block / l.geo.bits_per_cell;
    let mut ev = Vec::new();
    let mut victims = Vec::new();
    // Start lanes as they may start, moving a word line between tries, until every die has one.
    let mut moved = 0;
    while victims.len() < l.dies as usize {
        if let Some(v) = core.pick_victim() {
            core.start_lane(v);
            victims.push(v);
            assert!(
                core.pick_victim().is_none(),
                "another lane may start before lane {} moved a word line",
                victims.len()
            );
            continue;
        }
        assert_ne!(core.relocate_step(1, &mut ev), Step::Done);
        moved += 1;
        assert!(moved < 4 * wls * l.dies, "lanes did not all start");
    }
    let mut dies: Vec<u32> = victims.iter().map(|&v| l.die_of_block(v)).collect();
    dies.sort_unstable();
    assert_eq!(dies, (0..l.dies).collect::<Vec<_>>(), "victims {victims:?} are not one per die");

    // With every lane running, the next dies' worth of word lines read every die.
    ev.clear();
    for _ in 0..l.dies {
        core.relocate_step(1, &mut ev);
    }
    let mut read: Vec<u32> =
        ev.iter().filter_map(|e| if let CoreEvent::GcRead { die, .. } = *e { Some(die) } else { None }).collect();
    read.sort_unstable();
    read.dedup();
    assert_eq!(read.len(), l.dies as usize, "one word line per lane in turn reads every die: {read:?}");

    // Run to the end: each victim is reported once and holds nothing valid.
    while core.relocate_step(u32::MAX, &mut ev) != Step::Done {}
    let mut relocated: Vec<BlockId> =
        ev.iter().filter_map(|e| if let CoreEvent::Relocated { block } = *e { Some(block) } else { None }).collect();
    relocated.sort_unstable();
    let mut expect = victims.clone();
    expect.sort_unstable();
    assert_eq!(relocated, expect, "each victim reported relocated once");
    for &v in &victims {
        assert_eq!(core.blocks.valid[v.idx()], 0, "victim {v} still holds valid units");
    }
}

#[test]
fn lane_gc_keeps_the_mapping_right() {
    let f = aged_drive();
    f.core.check_invariants().unwrap();
    assert!(f.core.stats.gc_victims > 0);
}
