//! NAND array geometry. Raw capacity is always derived from the counts, never typed in.

use crate::config_error::{check_u64, ConfigError};
use serde::{Deserialize, Serialize};

/// How many bits each cell stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    Slc,
    Mlc,
    Tlc,
    Qlc,
}

impl CellType {
    pub const fn bits_per_cell(self) -> u32 {
        match self {
            CellType::Slc => 1,
            CellType::Mlc => 2,
            CellType::Tlc => 3,
            CellType::Qlc => 4,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            CellType::Slc => "SLC",
            CellType::Mlc => "MLC",
            CellType::Tlc => "TLC",
            CellType::Qlc => "QLC",
        }
    }
}

/// Geometry as written in a drive profile (`[geometry]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeometryConfig {
    /// Native cell type of the dies.
    pub cell: CellType,
    /// Operate the cells in SLC mode (1 bit per cell): capacity divides by the native bits per
    /// cell, timing uses the SLC-mode values.
    #[serde(default)]
    pub slc_mode: bool,
    pub channels: u32,
    pub dies_per_channel: u32,
    pub planes_per_die: u32,
    /// Blocks per plane at full scale (the FTL may divide it with `--scale 1/N`).
    pub blocks_per_plane: u32,
    /// Pages per block in native mode (word lines x bits per cell).
    pub pages_per_block: u32,
    /// Data bytes per page (spare area excluded).
    pub page_bytes: u32,
}

impl GeometryConfig {
    /// A small TLC array used in examples and unit tests: 2 channels x 2 dies x 2 planes.
    pub fn tiny_example() -> Self {
        GeometryConfig {
            cell: CellType::Tlc,
            slc_mode: false,
            channels: 2,
            dies_per_channel: 2,
            planes_per_die: 2,
            blocks_per_plane: 16,
            pages_per_block: 48,
            page_bytes: 16384,
        }
    }

    /// Checks ranges and consistency and derives the [`Geometry`].
    pub fn validate(&self) -> Result<Geometry, ConfigError> {
        check_u64("geometry.channels", self.channels.into(), 1, 64)?;
        check_u64("geometry.dies_per_channel", self.dies_per_channel.into(), 1, 64)?;
        check_u64("geometry.planes_per_die", self.planes_per_die.into(), 1, 16)?;
        check_u64("geometry.blocks_per_plane", self.blocks_per_plane.into(), 1, 1 << 20)?;
        check_u64("geometry.pages_per_block", self.pages_per_block.into(), 1, 1 << 16)?;
        let bits = self.cell.bits_per_cell();
        if !self.pages_per_block.is_multiple_of(bits) {
            return Err(ConfigError::new(
                "geometry.pages_per_block",
                self.pages_per_block,
                format!("a multiple of {bits} (bits per {} cell: word lines x bits)", self.cell.name()),
            ));
        }
        if !(512..=65536).contains(&self.page_bytes) || !self.page_bytes.is_power_of_two() {
            return Err(ConfigError::new("geometry.page_bytes", self.page_bytes, "a power of two in 512..=65536"));
        }
        let mode_bits = if self.slc_mode { 1 } else { bits };
        let word_lines = self.pages_per_block / bits;
        Ok(Geometry {
            cell: self.cell,
            slc_mode: self.slc_mode,
            channels: self.channels,
            dies_per_channel: self.dies_per_channel,
            planes_per_die: self.planes_per_die,
            blocks_per_plane: self.blocks_per_plane,
            pages_per_block: word_lines * mode_bits,
            bits_per_cell: mode_bits,
            page_bytes: self.page_bytes,
        })
    }
}

/// Validated geometry with derived quantities. Pages per block and bits per cell already reflect
/// SLC mode.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub cell: CellType,
    pub slc_mode: bool,
    pub channels: u32,
    pub dies_per_channel: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    /// Bits stored per cell in the mode the array is operated in.
    pub bits_per_cell: u32,
    pub page_bytes: u32,
}

impl Geometry {
    pub fn dies(&self) -> u32 {
        self.channels * self.dies_per_channel
    }

    pub fn planes(&self) -> u32 {
        self.dies() * self.planes_per_die
    }

    /// Channel a die hangs on: dies are numbered channel-major-interleaved (die d is on channel
    /// d % channels) so consecutive die ids spread over channels.
    pub fn channel_of(&self, die: u32) -> u32 {
        die % self.channels
    }

    /// Word lines per block: one program unit per plane programs one word line (all its pages).
    pub fn word_lines_per_block(&self) -> u32 {
        self.pages_per_block / self.bits_per_cell
    }

    pub fn block_bytes(&self) -> u64 {
        self.pages_per_block as u64 * self.page_bytes as u64
    }

    /// Bytes one multi-plane program writes on a die: a word line on every plane.
    pub fn program_unit_bytes(&self) -> u64 {
        self.bits_per_cell as u64 * self.page_bytes as u64 * self.planes_per_die as u64
    }

    pub fn die_bytes(&self) -> u64 {
        self.block_bytes() * self.blocks_per_plane as u64 * self.planes_per_die as u64
    }

    /// Raw NAND capacity in bytes (all dies, all blocks, data area only).
    pub fn raw_bytes(&self) -> u64 {
        self.die_bytes() * self.dies() as u64
    }

    /// Page type of a page index in its block (0 = LSB, 1 = CSB/MSB, ...): pages of one word line
    /// are consecutive.
    pub fn page_type(&self, page_in_block: u32) -> u32 {
        page_in_block % self.bits_per_cell
    }

    /// The same geometry with `blocks_per_plane` divided by `divisor` (at least `min_blocks`).
    pub fn scaled(&self, divisor: u32, min_blocks: u32) -> Geometry {
        let mut g = *self;
        g.blocks_per_plane = (self.blocks_per_plane / divisor.max(1)).max(min_blocks).max(1);
        g
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tlc_176l_die_is_512_gbit_class() {
        // 4 planes x 683 blocks x 1536 pages x 16 KiB = 64.03 GiB: a 512 Gb die plus spare blocks.
        let g = GeometryConfig {
            cell: CellType::Tlc,
            slc_mode: false,
            channels: 8,
            dies_per_channel: 16,
            planes_per_die: 4,
            blocks_per_plane: 683,
            pages_per_block: 1536,
            page_bytes: 16384,
        }
        .validate()
        .unwrap();
        assert_eq!(g.dies(), 128);
        assert_eq!(g.block_bytes(), 24 << 20);
        assert_eq!(g.die_bytes(), 683 * 4 * (24u64 << 20));
        assert_eq!(g.raw_bytes(), 128 * g.die_bytes());
        assert_eq!(g.program_unit_bytes(), 3 * 4 * 16384);
        assert_eq!(g.word_lines_per_block(), 512);
    }

    #[test]
    fn slc_mode_divides_capacity_by_bits() {
        let mut c = GeometryConfig::tiny_example();
        let native = c.validate().unwrap();
        c.slc_mode = true;
        let slc = c.validate().unwrap();
        assert_eq!(native.raw_bytes(), 3 * slc.raw_bytes());
        assert_eq!(slc.bits_per_cell, 1);
        assert_eq!(slc.program_unit_bytes(), 2 * 16384);
    }

    #[test]
    fn rejects_zero_and_inconsistent() {
        let mut c = GeometryConfig::tiny_example();
        c.channels = 0;
        assert_eq!(c.validate().unwrap_err().key, "geometry.channels");
        let mut c = GeometryConfig::tiny_example();
        c.pages_per_block = 47;
        let e = c.validate().unwrap_err();
        assert_eq!(e.key, "geometry.pages_per_block");
        assert!(e.allowed.contains("multiple of 3"));
        let mut c = GeometryConfig::tiny_example();
        c.page_bytes = 10000;
        assert_eq!(c.validate().unwrap_err().key, "geometry.page_bytes");
    }
}
