//! NAND timing: array read/program/erase times per cell type and the channel interface.
//! Configured in microseconds (readable in profiles), converted once to integer nanoseconds.

use crate::config_error::{check_f64, check_u64, ConfigError};
use crate::geometry::{CellType, Geometry};
use crate::time::{us_to_ns, SimTime, NS_PER_S};
use serde::{Deserialize, Serialize};

fn one() -> u32 {
    1
}
fn eight() -> u32 {
    8
}
fn yes() -> bool {
    true
}
fn default_t_cmd_ns() -> u32 {
    150
}
fn default_max_suspends() -> u32 {
    8
}
fn default_t_suspend_us() -> f64 {
    20.0
}
fn default_resume_cost_pct() -> f64 {
    100.0 / 32.0
}

/// `pct` percent of `ns`, rounded to the nearest ns.
fn pct_of(ns: SimTime, pct: f64) -> SimTime {
    SimTime::from_ns(crate::cast::sat_u64((ns.ns() as f64 * pct / 100.0).round()))
}

/// Timing as written in a drive profile (`[timing]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimingConfig {
    /// Array read time per page type (LSB, CSB, MSB, TSB order) in us; one value means the same
    /// (stated average) for every type.
    pub t_r_us: Vec<f64>,
    /// Time to program one word line (all its pages) on all planes of a multi-plane program, in
    /// us. For a two-pass QLC program this is the sum of both passes.
    pub t_prog_us: f64,
    /// 1 = one-shot program; 2 = two passes (coarse + fine) with the data held in the controller
    /// between them, so write-buffer space is held until the second pass ends.
    #[serde(default = "one")]
    pub program_passes: u32,
    /// Block erase time in us (a multi-plane erase costs one tBERS).
    pub t_bers_us: f64,
    /// Read time in SLC mode (used when `geometry.slc_mode`), us.
    #[serde(default)]
    pub t_r_slc_us: Option<f64>,
    /// Word-line program time in SLC mode, us.
    #[serde(default)]
    pub t_prog_slc_us: Option<f64>,
    /// Channel interface speed in mega-transfers per second (ONFI NV-DDR3 / Toggle).
    pub channel_mts: u32,
    /// Bus width in bits (8 for every current NAND package).
    #[serde(default = "eight")]
    pub bus_width_bits: u32,
    /// Command and address cycles plus status polling per operation, ns.
    #[serde(default = "default_t_cmd_ns")]
    pub t_cmd_ns: u32,
    /// Multi-plane operations: one tR/tPROG/tBERS for all planes of a die. Off = planes serialise.
    #[serde(default = "yes")]
    pub multi_plane: bool,
    /// Program/erase suspend: a read arriving at a busy die suspends the program or erase.
    #[serde(default)]
    pub suspend: bool,
    /// Cost of one suspend + resume, us (added to the read's start and the suspended op's end).
    #[serde(default = "default_t_suspend_us")]
    pub t_suspend_us: f64,
    /// Suspensions one program or erase may take; later reads wait for it to end. Firmware
    /// bounds suspension so that a steady stream of reads cannot hold a program (and the write
    /// buffer space of its data) off forever. Reads arriving while the op is already suspended
    /// are served in that suspension and do not count.
    #[serde(default = "default_max_suspends")]
    pub max_suspends_per_op: u32,
    /// Share of a suspended op's array time (tPROG or tBERS) that each resume repeats, percent:
    /// a suspension interrupts a program-verify (erase-verify) step, which runs again after the
    /// resume. Default 3.125 (1/32: a step of a program of ~32 incremental pulses, est.).
    #[serde(default = "default_resume_cost_pct")]
    pub resume_cost_pct: f64,
    /// Time a program or erase runs (from its start or its last resume) before it may be
    /// suspended, us: firmware lets the op make this much progress between suspensions so that
    /// reads cannot starve it (a "program suspend delay period", as in Micron's US 10,871,923),
    /// and a read arriving sooner waits for that point, not for the whole op. Reads arriving
    /// while the op is suspended are served in the same suspension. Default: none (any time).
    #[serde(default)]
    pub suspend_min_progress_us: Option<f64>,
    /// Independent plane reads (asynchronous multi-plane read, 176L-class NAND and later): a
    /// single-plane host read on an idle plane starts while other planes of the die read, so a die
    /// serves up to `planes_per_die` random reads at once. Programs and erases still take the die.
    #[serde(default)]
    pub independent_plane_reads: bool,
    /// Spread of the word-line program time over a block, first to last word line, percent of
    /// `t_prog_us` (the mean). A 3D NAND memory hole tapers from the top of the stack to the
    /// bottom, so the cells of one layer need fewer program-verify loops than another's; word
    /// lines are programmed bottom to top, so tPROG ramps over a block's word lines. Default 0
    /// (every word line takes `t_prog_us`).
    #[serde(default)]
    pub t_prog_layer_spread_pct: f64,
}

impl TimingConfig {
    /// Representative timing used by examples: 176-layer TLC (ISSCC 2021 class).
    pub fn example(cell: CellType) -> Self {
        let (t_r, t_prog, t_bers) = match cell {
            CellType::Qlc => (vec![100.0], 5000.0, 10_000.0),
            _ => (vec![50.0], 1200.0, 3500.0),
        };
        TimingConfig {
            t_r_us: t_r,
            t_prog_us: t_prog,
            program_passes: 1,
            t_bers_us: t_bers,
            t_r_slc_us: None,
            t_prog_slc_us: None,
            channel_mts: 1600,
            bus_width_bits: 8,
            t_cmd_ns: 150,
            multi_plane: true,
            suspend: false,
            t_suspend_us: 20.0,
            max_suspends_per_op: default_max_suspends(),
            resume_cost_pct: default_resume_cost_pct(),
            suspend_min_progress_us: None,
            independent_plane_reads: false,
            t_prog_layer_spread_pct: 0.0,
        }
    }

    /// Checks physical ranges and derives the nanosecond [`Timing`] for `geo`.
    pub fn validate(&self, geo: &Geometry) -> Result<Timing, ConfigError> {
        let bits = geo.cell.bits_per_cell() as usize;
        if self.t_r_us.len() != 1 && self.t_r_us.len() != bits {
            return Err(ConfigError::new(
                "timing.t_r_us",
                format!("{} values", self.t_r_us.len()),
                format!("1 value or {bits} (one per page type of {})", geo.cell.name()),
            ));
        }
        for &t in &self.t_r_us {
            check_f64("timing.t_r_us", t, 1.0, 2_000.0)?;
        }
        check_f64("timing.t_prog_us", self.t_prog_us, 10.0, 50_000.0)?;
        check_u64("timing.program_passes", self.program_passes.into(), 1, 2)?;
        check_f64("timing.t_bers_us", self.t_bers_us, 100.0, 100_000.0)?;
        check_u64("timing.channel_mts", self.channel_mts.into(), 10, 10_000)?;
        if self.bus_width_bits != 8 && self.bus_width_bits != 16 {
            return Err(ConfigError::new("timing.bus_width_bits", self.bus_width_bits, "8 or 16"));
        }
        check_u64("timing.t_cmd_ns", self.t_cmd_ns.into(), 0, 100_000)?;
        check_f64("timing.t_suspend_us", self.t_suspend_us, 0.0, 1_000.0)?;
        check_u64("timing.max_suspends_per_op", self.max_suspends_per_op.into(), 1, 1_000)?;
        check_f64("timing.resume_cost_pct", self.resume_cost_pct, 0.0, 50.0)?;
        if let Some(v) = self.suspend_min_progress_us {
            check_f64("timing.suspend_min_progress_us", v, 0.0, 100_000.0)?;
        }
        check_f64("timing.t_prog_layer_spread_pct", self.t_prog_layer_spread_pct, 0.0, 100.0)?;
        let mut t_r_ns = [SimTime::ZERO; 4];
        let mut t_prog_ns = us_to_ns(self.t_prog_us);
        if geo.slc_mode {
            let t_r = check_f64("timing.t_r_slc_us", self.t_r_slc_us.unwrap_or(self.t_r_us[0] * 0.5), 1.0, 2_000.0)?;
            let t_p = check_f64(
                "timing.t_prog_slc_us",
                self.t_prog_slc_us.unwrap_or(self.t_prog_us / bits as f64 * 0.5),
                10.0,
                50_000.0,
            )?;
            t_r_ns = [us_to_ns(t_r); 4];
            t_prog_ns = us_to_ns(t_p);
        } else {
            for (i, slot) in t_r_ns.iter_mut().enumerate() {
                let v = if self.t_r_us.len() == 1 { self.t_r_us[0] } else { self.t_r_us[i.min(bits - 1)] };
                *slot = us_to_ns(v);
            }
        }
        let bytes_per_s = self.channel_mts as u64 * 1_000_000 * (self.bus_width_bits as u64 / 8);
        Ok(Timing {
            t_r_ns,
            t_prog_ns,
            program_passes: self.program_passes,
            t_bers_ns: us_to_ns(self.t_bers_us),
            channel_bytes_per_s: bytes_per_s,
            t_cmd_ns: SimTime::from_ns(self.t_cmd_ns.into()),
            multi_plane: self.multi_plane,
            suspend: self.suspend,
            t_suspend_ns: us_to_ns(self.t_suspend_us),
            max_suspends_per_op: self.max_suspends_per_op,
            resume_cost_prog_ns: pct_of(t_prog_ns, self.resume_cost_pct),
            resume_cost_erase_ns: pct_of(us_to_ns(self.t_bers_us), self.resume_cost_pct),
            suspend_min_progress_ns: self.suspend_min_progress_us.map(us_to_ns),
            independent_plane_reads: self.independent_plane_reads,
            t_prog_spread_ns: pct_of(t_prog_ns, self.t_prog_layer_spread_pct),
        })
    }
}

/// Validated timing in integer nanoseconds, for the array mode in use.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// tR by page type (index = page type; unused types repeat the last).
    pub t_r_ns: [SimTime; 4],
    pub t_prog_ns: SimTime,
    pub program_passes: u32,
    pub t_bers_ns: SimTime,
    pub channel_bytes_per_s: u64,
    pub t_cmd_ns: SimTime,
    pub multi_plane: bool,
    pub suspend: bool,
    pub t_suspend_ns: SimTime,
    pub max_suspends_per_op: u32,
    /// What a resume costs a suspended program / erase (the repeated verify step).
    pub resume_cost_prog_ns: SimTime,
    pub resume_cost_erase_ns: SimTime,
    /// `None`: an op may be suspended at any time.
    pub suspend_min_progress_ns: Option<SimTime>,
    pub independent_plane_reads: bool,
    /// tPROG of a block's last word line less its first's (see
    /// `TimingConfig::t_prog_layer_spread_pct`).
    #[serde(default)]
    pub t_prog_spread_ns: SimTime,
}

/// Positions in a block a program's word line is given at: [`Timing::program_array_ns_at`]'s
/// `layer` runs from 0 (the first word line) to `LAYER_BANDS - 1` (the last).
pub const LAYER_BANDS: u32 = 255;

/// The `layer` of a program whose position is not resolved: it takes the mean tPROG, what the
/// ramp averages to over a block.
pub const LAYER_MEAN: u8 = 255;

impl Timing {
    /// Channel time to move `bytes` between controller and die.
    pub fn transfer_ns(&self, bytes: u32) -> SimTime {
        crate::time::transfer_ns(bytes as u64, self.channel_bytes_per_s)
    }

    /// Array time of a read of `planes` planes (multi-plane: one tR).
    pub fn read_array_ns(&self, page_type: u32, planes: u32) -> SimTime {
        let t = self.t_r_ns[(page_type as usize).min(3)];
        if self.multi_plane {
            t
        } else {
            t * planes.max(1) as u64
        }
    }

    /// Mean array time of a program of `planes` planes (multi-plane: one tPROG).
    pub fn program_array_ns(&self, planes: u32) -> SimTime {
        if self.multi_plane {
            self.t_prog_ns
        } else {
            self.t_prog_ns * planes.max(1) as u64
        }
    }

    /// Array time of a program of `planes` planes at word-line position `layer` of its block
    /// (0 ..= `LAYER_BANDS - 1`): the mean plus the ramp of `t_prog_spread_ns`, linear in the
    /// position and zero-sum over the block; [`LAYER_MEAN`]: the mean.
    pub fn program_array_ns_at(&self, planes: u32, layer: u8) -> SimTime {
        let mean = self.program_array_ns(planes);
        let spread = self.t_prog_spread_ns.ns();
        if spread == 0 || layer == LAYER_MEAN {
            return mean;
        }
        let top = (LAYER_BANDS - 1) as u64;
        // mean + spread * (layer / top - 1/2), in integers
        let per_plane = if self.multi_plane { 1 } else { planes.max(1) as u64 };
        let up = spread * layer as u64 * per_plane / top;
        SimTime::from_ns((mean.ns() + up).saturating_sub(spread * per_plane / 2))
    }

    pub fn erase_array_ns(&self, planes: u32) -> SimTime {
        if self.multi_plane {
            self.t_bers_ns
        } else {
            self.t_bers_ns * planes.max(1) as u64
        }
    }

    /// Sustained program bandwidth of one die in bytes/s (array + transfer of a program unit),
    /// the figure NAND papers quote as "MB/s per die".
    pub fn die_program_bytes_per_s(&self, geo: &Geometry) -> f64 {
        let unit = geo.program_unit_bytes();
        let t = self.program_array_ns(geo.planes_per_die)
            + crate::time::transfer_ns(unit, self.channel_bytes_per_s)
            + self.t_cmd_ns;
        unit as f64 * NS_PER_S.ns() as f64 / t.ns() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::GeometryConfig;

    #[test]
    fn tlc_die_program_bandwidth_is_about_160_mb_s() {
        let mut gc = GeometryConfig::tiny_example();
        gc.planes_per_die = 4;
        let geo = gc.validate().unwrap();
        let t = TimingConfig::example(CellType::Tlc).validate(&geo).unwrap();
        // 192 KiB per 1.2 ms + 123 us transfer: ~149 MB/s with the transfer not overlapped.
        let bw = t.die_program_bytes_per_s(&geo) / 1e6;
        assert!((140.0..170.0).contains(&bw), "{bw}");
        assert_eq!(t.transfer_ns(16384).ns(), 10_240);
    }

    #[test]
    fn rejects_out_of_range() {
        let geo = GeometryConfig::tiny_example().validate().unwrap();
        let mut t = TimingConfig::example(CellType::Tlc);
        t.t_prog_us = 0.5;
        let e = t.validate(&geo).unwrap_err();
        assert_eq!(e.key, "timing.t_prog_us");
        assert_eq!(e.allowed, "10..=50000");
        let mut t = TimingConfig::example(CellType::Tlc);
        t.t_r_us = vec![50.0, 60.0];
        assert_eq!(t.validate(&geo).unwrap_err().key, "timing.t_r_us");
    }

    #[test]
    fn the_layer_spread_ramps_tprog_over_the_block_around_its_mean() {
        let geo = GeometryConfig::tiny_example().validate().unwrap();
        let mut c = TimingConfig::example(CellType::Tlc);
        c.t_prog_layer_spread_pct = 20.0;
        let t = c.validate(&geo).unwrap();
        let mean = t.program_array_ns(1).ns();
        assert_eq!(mean, 1_200_000);
        assert_eq!(t.program_array_ns_at(1, 0).ns(), 1_080_000);
        assert_eq!(t.program_array_ns_at(1, 254).ns(), 1_320_000);
        assert_eq!(t.program_array_ns_at(1, LAYER_MEAN).ns(), mean, "unresolved: the mean");
        let times: Vec<u64> = (0..=254u8).map(|b| t.program_array_ns_at(1, b).ns()).collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "rises with the layer");
        let avg = times.iter().sum::<u64>() as f64 / times.len() as f64;
        assert!((avg - mean as f64).abs() < 1.0, "zero-sum over the block: {avg}");
        c.t_prog_layer_spread_pct = 0.0;
        let flat = c.validate(&geo).unwrap();
        assert!((0..=255u8).all(|b| flat.program_array_ns_at(1, b).ns() == mean));
        c.t_prog_layer_spread_pct = 120.0;
        assert_eq!(c.validate(&geo).unwrap_err().key, "timing.t_prog_layer_spread_pct");
    }
}
