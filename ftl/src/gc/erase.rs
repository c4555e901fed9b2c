//! Erase: a relocated victim waits until the data moved out of it is safe, then is erased and
//! rejoins its die's free list.

use crate::core::FtlCore;
use crate::device::{SimSsd, TAG_ERASE};
use crate::ids::{BlockId, Lpn};
use nand_model::NandOp;

impl SimSsd {
    /// A victim's data has all been moved: queue its erase for when that data is safe.
    pub(crate) fn victim_relocated(&mut self, v: BlockId) {
        // With PLP the relocated data is safe in the controller's protected DRAM once read, so
        // the victim can be erased then; without PLP it must first be programmed.
        let after = if self.plp {
            self.gc_reads.next()
        } else {
            let si = self.core.gc_stream();
            self.pu_done[si].next() + self.core.stream_has_open_unit(si) as u64
        };
        self.victims.push_back((v, after));
        self.pending_erases += 1;
    }

    /// Everything below this sequence is safe, so victims waiting for it may be erased: GC
    /// reads done (with PLP) or GC programs done (without).
    #[inline]
    fn erase_watermark(&self) -> u64 {
        if self.plp {
            self.gc_reads.watermark()
        } else {
            self.pu_done[self.core.gc_stream()].watermark()
        }
    }

    #[inline]
    pub(crate) fn erase_ready_victims(&mut self) {
        if self.victims.front().is_some_and(|&(_, after)| self.erase_watermark() >= after) {
            self.erase_victims();
        }
    }

    #[allow(clippy::cast_possible_truncation)] // planes_per_die <= 16 (validated geometry)
    fn erase_victims(&mut self) {
        while let Some(&(v, after)) = self.victims.front() {
            if self.erase_watermark() < after {
                break;
            }
            self.victims.pop_front();
            let l = self.core.layout;
            let planes = l.geo.planes_per_die as u8;
            self.flash.submit(self.now, NandOp::erase(TAG_ERASE | u64::from(v.get()), l.die_of_block(v), planes));
        }
    }

    /// A victim's erase finished: it is free again, so waiting host writes and GC may go on.
    pub(crate) fn on_erase_done(&mut self, block: BlockId) {
        self.core.erase_done(block);
        self.pending_erases -= 1;
        self.try_admit();
        self.maybe_gc();
    }
}

impl FtlCore {
    /// A victim's erase finished: its spare area is blank again and it rejoins the free list.
    pub fn erase_done(&mut self, block: BlockId) {
        let l = self.layout;
        let base = l.first_ppn(block).idx();
        let n = self.blocks.write_ptr[block.idx()] as usize;
        self.p2l[base..base + n].fill(Lpn::NONE);
        self.blocks.release(block, l.die_of_block(block));
        self.stats.erases += 1;
    }
}
