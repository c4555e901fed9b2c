//! GC relocation on word lines wider than one 128-unit scan (64 KiB TLC pages on 4 planes: 192
//! units a word line): random overwrites and TRIMs with GC running keep the mapping right, so
//! every live unit of a victim past the first 128 is moved too.

use ftl::instant::InstantFtl;
use ftl::layout::Layout;
use ftl::{GcPolicy, Lpn};
use nand_model::rng::{RngStreams, StreamId};
use nand_model::{CellType, GeometryConfig};
use rand::Rng;

#[test]
fn wide_word_lines_relocate_every_live_unit() {
    let geo = GeometryConfig {
        cell: CellType::Tlc,
        slc_mode: false,
        channels: 1,
        dies_per_channel: 2,
        planes_per_die: 4,
        blocks_per_plane: 48,
        pages_per_block: 24,
        page_bytes: 65536,
    }
    .validate()
    .unwrap();
    let layout = Layout::new(geo, 4096).unwrap();
    assert!(layout.mus_per_pu > 128, "{} units a word line", layout.mus_per_pu);
    let (mut f, user) = InstantFtl::filled_at_op(layout, 0.25, GcPolicy::Greedy, false, 6).unwrap();
    let mut rng = RngStreams::new(7).stream(StreamId::Host, 0);
    for i in 0..3 * user as u64 {
        let lpn = Lpn::new(rng.gen_range(0..user));
        if i % 16 == 0 {
            f.trim(lpn);
        } else {
            f.write(lpn).unwrap();
        }
        if i % 4096 == 0 {
            f.core.check_invariants().unwrap();
        }
    }
    f.core.check_invariants().unwrap();
    assert!(f.core.stats.gc_write_mus > user as u64 / 2, "GC moved {} units", f.core.stats.gc_write_mus);
}
