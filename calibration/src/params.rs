//! The declared set of fittable profile parameters, their physical bounds and which measured
//! figures each one can move. Only these are ever changed by a fit: geometry, capacity and
//! firmware policy are physics or published facts, not knobs.

use crate::plan::{Metric, Phase, Plan};
use ftl::DriveProfile;
use host_bench::job::RwMode;
use std::fmt;

/// A fittable parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Param {
    CmdLimitKiops,
    ReadOverheadUs,
    WriteAckUs,
    /// Word-line program time (all planes, all passes).
    TProgUs,
    /// Mean array read time; a per-page-type list is scaled as a whole, keeping its shape.
    TRUs,
    IccReadMa,
    IccProgMa,
    IccEraseMa,
    /// Power-governor averaging window: declared, but no figure depends on it until the power
    /// governor is part of the simulated drive, so it is never selected by default.
    PowerWindowUs,
}

pub const ALL: [Param; 9] = [
    Param::CmdLimitKiops,
    Param::ReadOverheadUs,
    Param::WriteAckUs,
    Param::TProgUs,
    Param::TRUs,
    Param::IccReadMa,
    Param::IccProgMa,
    Param::IccEraseMa,
    Param::PowerWindowUs,
];

/// The default fit: controller and NAND timing (what the embedded profiles are calibrated on).
pub const DEFAULT: [Param; 5] =
    [Param::CmdLimitKiops, Param::ReadOverheadUs, Param::WriteAckUs, Param::TProgUs, Param::TRUs];

impl Param {
    /// The profile key, `section.field`.
    pub fn key(self) -> &'static str {
        match self {
            Param::CmdLimitKiops => "controller.cmd_limit_kiops",
            Param::ReadOverheadUs => "controller.read_overhead_us",
            Param::WriteAckUs => "controller.write_ack_us",
            Param::TProgUs => "timing.t_prog_us",
            Param::TRUs => "timing.t_r_us",
            Param::IccReadMa => "nand_energy.icc_read_ma",
            Param::IccProgMa => "nand_energy.icc_prog_ma",
            Param::IccEraseMa => "nand_energy.icc_erase_ma",
            Param::PowerWindowUs => "power.window_us",
        }
    }

    pub fn from_key(s: &str) -> Option<Param> {
        ALL.into_iter().find(|p| p.key() == s || p.key().split('.').nth(1) == Some(s))
    }

    pub fn get(self, p: &DriveProfile) -> f64 {
        match self {
            Param::CmdLimitKiops => p.controller.cmd_limit_kiops,
            Param::ReadOverheadUs => p.controller.read_overhead_us,
            Param::WriteAckUs => p.controller.write_ack_us,
            Param::TProgUs => p.timing.t_prog_us,
            Param::TRUs => p.timing.t_r_us.iter().sum::<f64>() / p.timing.t_r_us.len().max(1) as f64,
            Param::IccReadMa => p.nand_energy.icc_read_ma,
            Param::IccProgMa => p.nand_energy.icc_prog_ma,
            Param::IccEraseMa => p.nand_energy.icc_erase_ma,
            Param::PowerWindowUs => p.power.window_us,
        }
    }

    pub fn set(self, p: &mut DriveProfile, v: f64) {
        match self {
            Param::CmdLimitKiops => p.controller.cmd_limit_kiops = v,
            Param::ReadOverheadUs => p.controller.read_overhead_us = v,
            Param::WriteAckUs => p.controller.write_ack_us = v,
            Param::TProgUs => p.timing.t_prog_us = v,
            Param::TRUs => {
                let k = v / Param::TRUs.get(p);
                p.timing.t_r_us = scaled_t_r(&p.timing.t_r_us, k);
            }
            Param::IccReadMa => p.nand_energy.icc_read_ma = v,
            Param::IccProgMa => p.nand_energy.icc_prog_ma = v,
            Param::IccEraseMa => p.nand_energy.icc_erase_ma = v,
            Param::PowerWindowUs => p.power.window_us = v,
        }
    }

    /// Physical bounds for a cell type ("slc", "mlc", "tlc", "qlc").
    ///
    /// tR: TLC 30-90 us (ISSCC 2021 176L table ~40-55 us; older 3D generations slower), QLC
    /// 60-200 us. tPROG per word line on all planes: TLC 700-4000 us (160-184 MB/s/die for
    /// 176L at 4 planes down to ~48 MB/s/die, the planar-TLC era), QLC 2-25 ms (40 MB/s/die
    /// for 144L down to 12 MB/s/die for 64L, ISSCC 2018/2021). Controller: command limits of
    /// 0.1-6 M/s, firmware/ECC read overhead 2-60 us, write acknowledgement 2-60 us (spec-sheet
    /// write latencies are 5-20 us). Currents: 5-60 mA (SimpleSSD/Amber ~25 mA).
    pub fn bounds(self, cell: &str) -> (f64, f64) {
        let qlc = cell == "qlc";
        match self {
            Param::CmdLimitKiops => (100.0, 6000.0),
            Param::ReadOverheadUs => (2.0, 60.0),
            Param::WriteAckUs => (2.0, 60.0),
            Param::TProgUs if qlc => (2000.0, 25_000.0),
            Param::TProgUs => (700.0, 4000.0),
            Param::TRUs if qlc => (60.0, 200.0),
            Param::TRUs => (30.0, 90.0),
            Param::IccReadMa | Param::IccProgMa | Param::IccEraseMa => (5.0, 60.0),
            Param::PowerWindowUs => (100.0, 1_000_000.0),
        }
    }

    /// Can this parameter move the plan's figure?
    pub fn affects(self, p: &Plan) -> bool {
        let reads = p.phase == Phase::Read || p.workload.rwmixread.is_some() || p.workload.rw == RwMode::RandRw;
        let writes = p.phase != Phase::Read;
        match self {
            Param::CmdLimitKiops => p.metric != Metric::Power,
            Param::ReadOverheadUs | Param::TRUs => reads,
            Param::WriteAckUs | Param::TProgUs => writes,
            Param::IccReadMa | Param::IccProgMa | Param::IccEraseMa => p.metric == Metric::Power,
            Param::PowerWindowUs => false,
        }
    }
}

/// `t_r_us` scaled by `k`, rounded to 0.1 us.
pub fn scaled_t_r(t: &[f64], k: f64) -> Vec<f64> {
    t.iter().map(|x| (x * k * 10.0).round() / 10.0).collect()
}

impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}
