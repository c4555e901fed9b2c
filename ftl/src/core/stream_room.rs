//! What room a write stream's open blocks and program unit have left (GC asks before it moves
//! a word line, and before it pads or fills its open unit).

use super::FtlCore;

impl FtlCore {
    /// Whether the open blocks of stream `si` have room for `need` more units together. GC
    /// asks before every word line, so it visits only the dies with an open block and stops
    /// as soon as the answer is known (usually at the first: an open block has room for at
    /// least a program unit).
    pub(crate) fn open_room_reaches(&self, si: usize, need: u64) -> bool {
        let s = &self.streams[si];
        let mut room = 0u64;
        for die in s.open_dies.ones() {
            if room >= need {
                break;
            }
            room += (self.layout.mus_per_block - self.blocks.write_ptr[s.open[die as usize].idx()]) as u64;
        }
        room >= need
    }

    /// Units the open blocks of stream `si` can still take together (GC filling its open unit
    /// with part of a word line reads only the pages of the units that fit).
    pub(crate) fn open_room(&self, si: usize) -> u64 {
        let s = &self.streams[si];
        let room = |die: u32| u64::from(self.layout.mus_per_block - self.blocks.write_ptr[s.open[die as usize].idx()]);
        s.open_dies.ones().map(room).sum()
    }

    /// Whether the stream `si` holds a partly filled program unit.
    pub fn stream_has_open_unit(&self, si: usize) -> bool {
        self.streams[si].pu_fill > 0
    }
}
