//! The --scale advice for a geometry with more mapping units than 32-bit addresses hold names a
//! scale that fits, counted from the full-size drive: the linear estimate (units / 2^32) fails
//! when scaling's 256-block floor rounds word lines up, and advice computed from an already
//! scaled geometry was relative to that scale ("N >= 2" at --scale 1/64).
#![allow(clippy::cast_possible_truncation, clippy::unwrap_used)] // a panic in test code is a failed test; casts are of the test's own small values

use ftl::device::{DeviceError, DeviceOptions, SimSsd};
use ftl::layout::{scale_geometry, Layout, LayoutError};

/// 32 channels x 64 dies x 6 planes x 3000 blocks x 1000 word lines of 16 KiB TLC pages:
/// 1.1e12 mapping units; the linear estimate 1/103 leaves 4,303,355,904 of them (> 2^32).
fn huge() -> ftl::ValidatedProfile {
    let mut p = ftl::profile::load("generic-tlc").unwrap().profile;
    let g = &mut p.geometry;
    (g.channels, g.dies_per_channel, g.planes_per_die, g.blocks_per_plane) = (32, 64, 6, 3000);
    (g.pages_per_block, g.page_bytes) = (3000, 16384);
    p.host.user_capacity_bytes = p.geometry.validate().unwrap().raw_bytes() / 2 / 4096 * 4096;
    ftl::profile::validate(p, "huge").unwrap()
}

fn advised(scale: u32) -> u32 {
    let p = huge();
    let opts = DeviceOptions { scale_divisor: scale, ..Default::default() };
    match SimSsd::new(&p, &opts) {
        Err(DeviceError::Layout(LayoutError::TooLarge { min_scale, .. })) => min_scale as u32,
        Err(e) => panic!("unexpected error at 1/{scale}: {e}"),
        Ok(_) => panic!("1/{scale} built"),
    }
}

#[test]
fn advised_scale_fits_and_is_the_smallest() {
    let p = huge();
    let fits = |d: u32| Layout::new(scale_geometry(&p.geometry, d).0, 4096).is_ok();
    assert!(!fits(103), "the linear estimate must fail for this geometry, or the test proves nothing");
    for given in [1, 16, 64] {
        let d = advised(given);
        assert!(fits(d), "--scale 1/{given}: advised 1/{d} does not fit");
        assert!(!fits(d - 1), "--scale 1/{given}: 1/{} fits too, so 1/{d} is not the smallest", d - 1);
    }
}
