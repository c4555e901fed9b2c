//! What room a write stream's open blocks and program unit have left (GC asks before it moves
//! a word line, and before it pads or fills its open unit).

use super::FtlCore;

impl FtlCore {
    /// Whether the open blocks of stream `si` have room for `need` more units together. GC
    /// asks before every word line, so it visits only the dies with an open block and stops
    /// as soon as the answer is known (usually at the first: an open block has room for at
    /// least a program unit).
    pub(crate) fn open_room_reaches(&self, si: usize, need: u64) -> bool {
        let mut room = 0u64;
        for die in self.streams[si].open_dies.ones() {
            if room >= need {
                break;
            }
            room += self.open_block_room(si, die);
        }
        room >= need
    }

    /// Units the open blocks of stream `si` can still take together (GC filling its open unit
    /// with part of a word line reads only the pages of the units that fit).
    pub(crate) fn open_room(&self, si: usize) -> u64 {
        self.streams[si].open_dies.ones().map(|die| self.open_block_room(si, die)).sum()
    }

    /// Units stream `si`'s open block on `die` can still take.
    fn open_block_room(&self, si: usize, die: u32) -> u64 {
        let block = self.streams[si].open[die as usize];
        u64::from(self.layout.mus_per_block - self.blocks.write_ptr[block.idx()])
    }

    /// Whether the stream `si` holds a partly filled program unit.
    pub fn stream_has_open_unit(&self, si: usize) -> bool {
        self.streams[si].pu_fill > 0
    }
}
