//! A timeless driver of [`FtlCore`]: programs finish and erases happen the moment they are asked
//! for. The WA and mapping-integrity tests use it to push millions of writes through the firmware
//! logic without the event engine; the timed device gives the same WA because it runs the same
//! core with the same GC decisions.

use crate::config::GcPolicy;
use crate::core::{CoreConfig, CoreEvent, FtlCore, NoSpace};
use crate::ids::Lpn;
use crate::layout::Layout;

pub struct InstantFtl {
    pub core: FtlCore,
    events: Vec<CoreEvent>,
}

impl InstantFtl {
    pub fn new(layout: Layout, cfg: CoreConfig) -> Self {
        InstantFtl { core: FtlCore::new(layout, cfg), events: Vec::new() }
    }

    /// A drive at over-provisioning `op`, effective: the units outside the GC free-block reserve
    /// (`gc_threshold_blocks`; host writes keep half of it back) over the user units; no blocks
    /// set aside. Sequentially filled, as WA experiments start. Returns it and its user units.
    pub fn filled_at_op(
        layout: Layout,
        op: f64,
        policy: GcPolicy,
        hot_cold_separation: bool,
        gc_threshold_blocks: u32,
    ) -> Result<(Self, u32), NoSpace> {
        let usable = (layout.blocks - gc_threshold_blocks) as f64 * layout.mus_per_block as f64;
        let user = nand_model::cast::sat_u32(usable / (1.0 + op));
        let cfg = CoreConfig {
            user_mus: user,
            policy,
            hot_cold_separation,
            gc_threshold_blocks,
            host_reserve_blocks: gc_threshold_blocks / 2,
            reserved_blocks_per_die: 0,
            track_sequence: false,
        };
        let mut f = InstantFtl::new(layout, cfg);
        for lpn in 0..user {
            f.write(Lpn::new(lpn))?;
        }
        Ok((f, user))
    }

    fn settle(&mut self) {
        for ev in self.events.drain(..) {
            if let CoreEvent::Program { block, mus, .. } = ev {
                self.core.program_done(block, mus);
            }
        }
    }

    /// Runs GC until free blocks are back at the threshold (or nothing can be collected).
    pub fn collect(&mut self) {
        while self.core.gc_wanted(0) && self.force_gc() {}
    }

    /// Collects one victim regardless of the threshold; false when there is none.
    pub fn force_gc(&mut self) -> bool {
        let Some(v) = self.core.pick_victim() else { return false };
        self.core.relocate(v, &mut self.events);
        self.settle();
        self.core.erase_done(v);
        true
    }

    pub fn write(&mut self, lpn: Lpn) -> Result<(), NoSpace> {
        self.collect();
        let r = self.core.write(lpn, &mut self.events);
        self.settle();
        r.map(|_| ())
    }

    pub fn trim(&mut self, lpn: Lpn) {
        self.core.trim(lpn);
    }
}
