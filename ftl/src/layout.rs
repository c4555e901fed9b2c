//! Physical address layout seen by the FTL, and the scaling of a drive.
//!
//! The FTL's erase unit is a *die-block*: the block with the same index on every plane of a die,
//! programmed with multi-plane word-line programs and erased with one multi-plane erase. A
//! physical address (PPN) counts mapping units (MU, 4 KiB by default):
//! `ppn = die_block * mus_per_block + offset`, and inside a die-block the offset runs word line
//! by word line, each word line holding `planes x bits` pages of `page_bytes / mu` units (plane
//! major), so a program unit (PU) is a contiguous run of `mus_per_pu` PPNs.

use crate::ids::{BlockId, Ppn};
use nand_model::{FastDiv, Geometry};

/// Sentinel for "nothing" in raw `u32` tables (the typed ids' `NONE`, [`crate::ids::Ppn::NONE`] etc., is this value).
pub const NONE: u32 = u32::MAX;

/// Dimensions the FTL works with, derived from the (possibly scaled) geometry.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub geo: Geometry,
    pub mu_bytes: u32,
    pub mus_per_page: u32,
    /// MUs of one multi-plane word-line program on one die.
    pub mus_per_pu: u32,
    pub pus_per_block: u32,
    pub mus_per_block: u32,
    pub dies: u32,
    pub blocks_per_die: u32,
    pub blocks: u32,
    /// `mus_per_block` and `blocks_per_die` as multiply-shift divisors (hot paths).
    mpb_div: FastDiv,
    bpd_div: FastDiv,
    pu_div: FastDiv,
}

/// Why a layout is impossible.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LayoutError {
    #[error("mapping unit {mu} B does not divide the page of {page} B")]
    MappingUnit { mu: u32, page: u32 },
    #[error("{mus} mapping units exceed the 32-bit physical address space; use --scale 1/N (N >= {min_scale})")]
    TooLarge { mus: u64, min_scale: u64 },
    #[error("{mus} mapping units exceed the 32-bit physical address space at every --scale (256 blocks per plane of one word line are kept); the geometry is too large to simulate")]
    NoScaleFits { mus: u64 },
}

impl LayoutError {
    /// The error of a scaled geometry, with its advice made true for the full-size one: the
    /// smallest divisor (from `full`, not from the already scaled geometry) whose layout fits
    /// after [`scale_geometry`]'s 256-block floor and word-line rounding.
    #[allow(clippy::cast_possible_truncation)] // clamped to u32's range
    pub fn advise_scale(self, full: &Geometry, mu_bytes: u32) -> LayoutError {
        let LayoutError::TooLarge { mus, .. } = self else { return self };
        let full_mus = full.raw_bytes() / mu_bytes as u64;
        let linear = full_mus.div_ceil(NONE as u64 - 1).clamp(1, u32::MAX as u64) as u32;
        // Rounding moves the first fitting divisor only a little past the linear estimate.
        let fits = |d: &u32| Layout::new(scale_geometry(full, *d).0, mu_bytes).is_ok();
        match (linear..=linear.saturating_mul(2).saturating_add(64)).find(fits) {
            Some(d) => LayoutError::TooLarge { mus, min_scale: d as u64 },
            None => LayoutError::NoScaleFits { mus },
        }
    }
}

/// Smallest number of blocks per plane scaling keeps. Each write stream keeps one open block per
/// die, so with few blocks per die the open blocks' unwritten space becomes a visible share of
/// the spare and WA rises (measured at OP 14.6% on 128 dies: 683 blocks/die 4.41, 256 4.45, 128
/// 4.49). Below this, further scaling shortens blocks by whole word lines instead, and the erase
/// time shrinks with the block (see [`scaled_erase_fraction`]).
pub const MIN_BLOCKS_PER_PLANE: u32 = 256;

/// Fraction of a full block's erase time and energy that a scaled (shortened) block costs, so
/// that erase work per byte written stays that of the full drive.
pub fn scaled_erase_fraction(full: &Geometry, scaled: &Geometry) -> f64 {
    scaled.pages_per_block as f64 / full.pages_per_block as f64
}

impl Layout {
    #[allow(clippy::cast_possible_truncation)] // blocks <= units < NONE (checked above)
    pub fn new(geo: Geometry, mu_bytes: u32) -> Result<Layout, LayoutError> {
        if mu_bytes == 0 || !geo.page_bytes.is_multiple_of(mu_bytes) {
            return Err(LayoutError::MappingUnit { mu: mu_bytes, page: geo.page_bytes });
        }
        let mus_per_page = geo.page_bytes / mu_bytes;
        let mus_per_pu = mus_per_page * geo.bits_per_cell * geo.planes_per_die;
        let pus_per_block = geo.word_lines_per_block();
        let mus_per_block = mus_per_pu * pus_per_block;
        let dies = geo.dies();
        let blocks = dies as u64 * geo.blocks_per_plane as u64;
        let mus = blocks * mus_per_block as u64;
        if mus >= NONE as u64 {
            return Err(LayoutError::TooLarge { mus, min_scale: mus.div_ceil(NONE as u64 - 1) });
        }
        Ok(Layout {
            geo,
            mu_bytes,
            mus_per_page,
            mus_per_pu,
            pus_per_block,
            mus_per_block,
            dies,
            blocks_per_die: geo.blocks_per_plane,
            blocks: blocks as u32,
            mpb_div: FastDiv::new(mus_per_block),
            bpd_div: FastDiv::new(geo.blocks_per_plane),
            pu_div: FastDiv::new(mus_per_pu),
        })
    }

    /// Total physical MUs.
    pub fn total_mus(&self) -> u64 {
        self.blocks as u64 * self.mus_per_block as u64
    }

    #[inline]
    pub fn die_of_block(&self, block: BlockId) -> u32 {
        self.bpd_div.quotient(block.get())
    }

    #[inline]
    pub fn block_of(&self, ppn: Ppn) -> BlockId {
        BlockId::new(self.mpb_div.quotient(ppn.get()))
    }

    #[inline]
    pub fn offset_of(&self, ppn: Ppn) -> u32 {
        self.mpb_div.remainder(ppn.get())
    }

    /// Word lines (program units) a block holds data in, with `written` units written.
    #[inline]
    pub fn wls_written(&self, written: u32) -> u32 {
        self.pu_div.quotient(written + self.mus_per_pu - 1)
    }

    pub fn first_ppn(&self, block: BlockId) -> Ppn {
        Ppn::new(block.get() * self.mus_per_block)
    }

    /// Page type (LSB, CSB, MSB, ...) of the page holding `offset`.
    #[allow(clippy::cast_possible_truncation)] // a page type is < bits_per_cell <= 4
    pub fn page_type(&self, offset: u32) -> u8 {
        ((offset % self.mus_per_pu) / self.mus_per_page % self.geo.bits_per_cell) as u8
    }

    /// Index of the page (within its block and plane-set) that holds `offset`: MUs with the same
    /// page index share one NAND page read.
    pub fn page_index(&self, offset: u32) -> u32 {
        offset / self.mus_per_page
    }
}

/// Scales a geometry to `1/divisor` of its capacity keeping channels, dies, planes, page size and
/// timing. Blocks per plane are divided first; below [`MIN_BLOCKS_PER_PLANE`] the rest of the
/// factor shortens blocks by whole word lines. Returns the geometry and the exact achieved factor
/// (full raw / scaled raw), which results use to state figures at full scale.
pub fn scale_geometry(geo: &Geometry, divisor: u32) -> (Geometry, f64) {
    let divisor = divisor.max(1);
    let mut g = *geo;
    let keep = MIN_BLOCKS_PER_PLANE.min(geo.blocks_per_plane);
    g.blocks_per_plane = (geo.blocks_per_plane / divisor).max(keep);
    let achieved = geo.blocks_per_plane as f64 / g.blocks_per_plane as f64;
    let rest = divisor as f64 / achieved;
    if rest > 1.0 {
        let wl = geo.word_lines_per_block();
        let new_wl = nand_model::cast::sat_u32((wl as f64 / rest).round()).clamp(1, wl);
        g.pages_per_block = new_wl * geo.bits_per_cell;
    }
    let factor = geo.raw_bytes() as f64 / g.raw_bytes() as f64;
    (g, factor)
}

/// A layout for unit tests of block bookkeeping: 2 dies of one plane, `blocks_per_plane` blocks
/// of 4 TLC word lines (48 units of 4 KiB).
#[cfg(test)]
pub(crate) fn two_die_layout(blocks_per_plane: u32) -> Layout {
    let geo = nand_model::GeometryConfig {
        cell: nand_model::CellType::Tlc,
        slc_mode: false,
        channels: 1,
        dies_per_channel: 2,
        planes_per_die: 1,
        blocks_per_plane,
        pages_per_block: 12,
        page_bytes: 16384,
    }
    .validate()
    .expect("a valid test geometry");
    Layout::new(geo, 4096).expect("a valid test layout")
}

#[cfg(test)]
mod tests {
    use super::*;
    use nand_model::{CellType, GeometryConfig};

    fn tlc() -> Geometry {
        GeometryConfig {
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
        .unwrap()
    }

    #[test]
    fn offsets_decompose() {
        let l = Layout::new(tlc().scaled(16, 1), 4096).unwrap();
        assert_eq!(l.mus_per_page, 4);
        assert_eq!(l.mus_per_pu, 48);
        assert_eq!(l.mus_per_block, 48 * 512);
        assert_eq!(l.page_type(0), 0);
        assert_eq!(l.page_type(4), 1);
        assert_eq!(l.page_type(8), 2);
        assert_eq!(l.page_type(12), 0); // next plane, LSB again
        assert_eq!(l.page_type(48), 0); // next word line
    }

    #[test]
    fn full_scale_8_tib_fits_32_bits_and_scaling_is_exact() {
        let g = tlc();
        assert!(Layout::new(g, 4096).is_ok());
        let (s16, f16) = scale_geometry(&g, 16);
        assert_eq!(s16.blocks_per_plane, 256);
        assert!((f16 - 16.0).abs() / 16.0 < 0.03, "{f16}");
        let (s128, f128) = scale_geometry(&g, 128);
        assert_eq!(s128.blocks_per_plane, 256);
        assert!((f128 - 128.0).abs() / 128.0 < 0.05, "{f128}");
        assert_eq!(s128.pages_per_block % 3, 0);
    }
}
