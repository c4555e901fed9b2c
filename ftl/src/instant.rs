//! A timeless driver of [`FtlCore`]: programs finish and erases happen the moment they are asked
//! for. The WA and mapping-integrity tests use it to push millions of writes through the firmware
//! logic without the event engine; the timed device gives the same WA because it runs the same
//! core with the same GC decisions.

use crate::core::{CoreConfig, CoreEvent, FtlCore, NoSpace};
use crate::layout::Layout;

pub struct InstantFtl {
    pub core: FtlCore,
    events: Vec<CoreEvent>,
}

impl InstantFtl {
    pub fn new(layout: Layout, cfg: CoreConfig) -> Self {
        InstantFtl { core: FtlCore::new(layout, cfg), events: Vec::new() }
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

    pub fn write(&mut self, lpn: u32) -> Result<(), NoSpace> {
        self.collect();
        let r = self.core.write(lpn, &mut self.events);
        self.settle();
        r.map(|_| ())
    }

    pub fn trim(&mut self, lpn: u32) {
        self.core.trim(lpn);
    }
}
