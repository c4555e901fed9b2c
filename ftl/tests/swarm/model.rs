//! The shadow model the swarm checks the drive against: per mapping unit, what the host may
//! read (zeros, or a copy at least as new as the last acknowledged write), and the units that
//! commands in flight touch (those are not checked until the commands complete).
#![allow(clippy::cast_possible_truncation)] // casts are of the test's own small values

use ftl::core::FtlCore;
use ftl::Lpn;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    Zeros,
    /// Written; the write sequence of the acknowledged copy (0 when sequences are not kept).
    Written(u32),
}

pub struct Model {
    pub want: Vec<Want>,
    /// Commands in flight that touch each unit.
    pub busy: Vec<u16>,
    pub seq_kept: bool,
}

impl Model {
    pub fn new(units: u32, seq_kept: bool) -> Model {
        Model { want: vec![Want::Zeros; units as usize], busy: vec![0; units as usize], seq_kept }
    }

    pub fn free(&self, first: u32, n: u32) -> bool {
        self.busy[first as usize..(first + n) as usize].iter().all(|&b| b == 0)
    }

    pub fn mark(&mut self, first: u32, n: u32, by: i32) {
        for b in &mut self.busy[first as usize..(first + n) as usize] {
            *b = (*b as i32 + by) as u16;
        }
    }

    /// What the drive holds for `lpn` now, if it is consistent (the spare area names it back).
    pub fn holds(&self, core: &FtlCore, lpn: u32) -> Result<Want, String> {
        match core.lookup(Lpn::new(lpn)) {
            None => Ok(Want::Zeros),
            Some(p) if core.p2l[p.idx()] != Lpn::new(lpn) => {
                Err(format!("unit {lpn} maps to ppn {p} whose spare area names {}", core.p2l[p.idx()]))
            }
            Some(p) => Ok(Want::Written(if self.seq_kept { core.seq[p.idx()] } else { 0 })),
        }
    }

    /// Read-your-writes: the drive returns what the last acknowledged command left.
    pub fn check(&self, core: &FtlCore, lpn: u32) -> Result<(), String> {
        let got = self.holds(core, lpn)?;
        match (self.want[lpn as usize], got) {
            (Want::Zeros, Want::Zeros) => Ok(()),
            (Want::Written(s), Want::Written(g)) if g >= s => Ok(()),
            (w, g) => Err(format!("unit {lpn}: expected {w:?}, the drive holds {g:?}")),
        }
    }

    pub fn check_all(&self, core: &FtlCore) -> Result<(), String> {
        (0..self.want.len() as u32).filter(|&l| self.busy[l as usize] == 0).try_for_each(|l| self.check(core, l))
    }
}
