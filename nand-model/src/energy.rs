//! Per-operation NAND energy from first principles: energy = V x I x t for the array operation
//! (VCC rail) and for the bytes moved over the channel (VCCQ rail), plus die standby current.
//! No vendor publishes per-operation energy for current NAND, so every profile states the currents
//! it assumes (SimpleSSD/Amber use ~25 mA ICC at 3.3 V, ~10-20 mA ICCQ at 1.2 V, ~30 uA standby).

use crate::config_error::{check_f64, ConfigError};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Currents and voltages as written in a profile (`[nand_energy]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EnergyConfig {
    /// Core supply, V.
    pub vcc_v: f64,
    /// I/O supply, V.
    pub vccq_v: f64,
    /// Array current of one plane while reading, mA (a multi-plane read draws it per plane).
    pub icc_read_ma: f64,
    /// Array current of one plane while programming, mA.
    pub icc_prog_ma: f64,
    /// Array current of one plane while erasing, mA.
    pub icc_erase_ma: f64,
    /// I/O current while the channel moves data to or from this die, mA.
    pub iccq_transfer_ma: f64,
    /// Standby current of an idle die, uA.
    pub standby_ua: f64,
}

impl Default for EnergyConfig {
    fn default() -> Self {
        EnergyConfig {
            vcc_v: 3.3,
            vccq_v: 1.2,
            icc_read_ma: 25.0,
            icc_prog_ma: 25.0,
            icc_erase_ma: 25.0,
            iccq_transfer_ma: 20.0,
            standby_ua: 30.0,
        }
    }
}

impl EnergyConfig {
    pub fn validate(&self) -> Result<Energy, ConfigError> {
        check_f64("nand_energy.vcc_v", self.vcc_v, 1.0, 5.0)?;
        check_f64("nand_energy.vccq_v", self.vccq_v, 0.9, 3.6)?;
        check_f64("nand_energy.icc_read_ma", self.icc_read_ma, 0.0, 500.0)?;
        check_f64("nand_energy.icc_prog_ma", self.icc_prog_ma, 0.0, 500.0)?;
        check_f64("nand_energy.icc_erase_ma", self.icc_erase_ma, 0.0, 500.0)?;
        check_f64("nand_energy.iccq_transfer_ma", self.iccq_transfer_ma, 0.0, 500.0)?;
        check_f64("nand_energy.standby_ua", self.standby_ua, 0.0, 10_000.0)?;
        // W per plane while active = V * mA / 1000.
        Ok(Energy {
            read_w: self.vcc_v * self.icc_read_ma / 1000.0,
            prog_w: self.vcc_v * self.icc_prog_ma / 1000.0,
            erase_w: self.vcc_v * self.icc_erase_ma / 1000.0,
            transfer_w: self.vccq_v * self.iccq_transfer_ma / 1000.0,
            standby_w: self.vcc_v * self.standby_ua / 1e6,
        })
    }
}

/// Validated power draws in watts; energies follow by multiplying with simulated durations.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct Energy {
    /// Per plane.
    pub read_w: f64,
    pub prog_w: f64,
    pub erase_w: f64,
    /// Per die while its data moves on the channel.
    pub transfer_w: f64,
    /// Per idle die.
    pub standby_w: f64,
}

impl Energy {
    /// Joules of `watts` held for `ns`.
    pub fn joules(watts: f64, ns: SimTime) -> f64 {
        watts * ns.ns() as f64 * 1e-9
    }
}
